package all

import (
	"testing"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/transporttest"
)

// TestConformance runs transporttest's suite on every registered
// transport, over its driver's in-process jobs (transport.Driver.NewJob):
// per-source order, concurrent senders, payload ownership, large frames,
// started sends, bad sends, close semantics and peer failure (a rank
// killed as a crashed process ends). Registering a transport is all it
// takes for the suite to run on it.
func TestConformance(t *testing.T) {
	drivers := transport.Drivers()
	var names []string
	for _, d := range drivers {
		names = append(names, d.Properties().Name)
	}
	for _, want := range []string{"inmem", "shm", "tcp"} {
		if _, ok := transport.Lookup(want); !ok {
			t.Fatalf("transport %s not registered (have %v)", want, names)
		}
	}
	for _, d := range drivers {
		t.Run(d.Properties().Name, func(t *testing.T) { transporttest.Run(t, d.NewJob) })
	}
}
