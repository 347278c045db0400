package analysis

import (
	"fmt"
	"strings"

	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/transport"
)

// RuntimeHeader returns the header, in bytes, that the runtime which
// produced a run writes before every message's bytes in the stream that
// carries them, as the run's metadata names that runtime, and a phrase
// naming the header (for table titles); 0 and "" when the file does not
// identify it:
//
//   - mpbench's own runtime (Meta.Tool "mpbench") over TCP (Meta.Transport
//     "tcp", or a "+"-joined list naming it, such as "shm+tcp" for ranks
//     on several hosts): its frame header, transport.HeaderSize = 32
//     bytes, so a 0-byte message is one 86-byte Ethernet frame (MAC 14,
//     IPv4 20, TCP 20, header 32), as captured on a testbed node and as
//     the testbed's model counts it (docs/testbed.md);
//   - 0 for everything else: IMB and OSU files come from MPI libraries,
//     whose framing their output does not record; mpbench's MPI build
//     (Transport "mpi (...)") sends through its library; shm and inmem
//     runs cross no wire.
//
// Not charged: the rendezvous handshake above the eager threshold (an RTS
// and a CTS, each a header alone: 17.6 usec at 100 Mbit/s against 88 ms
// for a 1 MiB message's frames) and the 4-byte CRC trailer that
// MPBENCH_VERIFY=1 adds to every frame (the file does not record it).
func RuntimeHeader(m result.Meta) (bytes int64, what string) {
	if m.Tool != "mpbench" {
		return 0, ""
	}
	for _, t := range strings.Split(m.Transport, "+") {
		if strings.TrimSpace(t) == "tcp" {
			return transport.HeaderSize, fmt.Sprintf("mpbench's %d-byte TCP frame header", transport.HeaderSize)
		}
	}
	return 0, ""
}

// ForRun returns w as it applies to the rows of a run with metadata m:
// with MessageHeader set to RuntimeHeader(m) and the name saying so
// ("eth:100m:mtu=1500 + mpbench's 32-byte TCP frame header"), or w
// unchanged when the run's runtime adds no known header.
func (w WireModel) ForRun(m result.Meta) WireModel {
	n, what := RuntimeHeader(m)
	if n == 0 {
		return w
	}
	w.MessageHeader = n
	w.Name += " + " + what
	return w
}
