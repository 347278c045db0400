package tcp

import "github.com/mpbench/mpbench/transport"

func init() { transport.Register(driver{}) }

// EagerBytes is the eager threshold in bytes the runtime uses over TCP: a
// rendezvous round trip costs about as much as 100 KiB on the wire, and
// with 4 MiB socket buffers eager sends measured faster up to 256 KiB.
const EagerBytes = 256 << 10

// driver registers the transport as "tcp".
type driver struct{}

func (driver) Properties() transport.Properties {
	return transport.Properties{
		Name:       "tcp",
		Summary:    "TCP between ranks on any hosts (loopback on one)",
		EagerBytes: EagerBytes,
		Reach:      transport.AnyHost,
		Progress:   transport.PolledByWaiter,
		Launch:     true,
	}
}

func (driver) NewJob(n int) ([]transport.Endpoint, error) { return NewJob(n, Options{}) }
