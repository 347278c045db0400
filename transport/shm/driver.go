package shm

import "github.com/mpbench/mpbench/transport"

func init() { transport.Register(driver{}) }

// EagerBytes is the eager threshold in bytes the runtime uses over shared
// memory: payloads from DefaultCMABytes on are read by single copy, so
// eager and rendezvous copy alike and rendezvous only adds two small frames;
// eager up to 64 KiB measured fastest, rendezvous beyond (a large eager
// payload may have to be copied into an unexpected-message buffer first).
const EagerBytes = 64 << 10

// driver registers the transport as "shm".
type driver struct{}

func (driver) Properties() transport.Properties {
	return transport.Properties{
		Name:       "shm",
		Summary:    "shared memory between the ranks of one host (Linux)",
		EagerBytes: EagerBytes,
		Reach:      transport.SameHost,
		Progress:   transport.PolledByWaiter,
		Launch:     true,
	}
}

func (driver) NewJob(n int) ([]transport.Endpoint, error) { return NewJob(n, Options{}) }
