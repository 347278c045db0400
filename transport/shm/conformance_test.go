package shm

import (
	"fmt"
	"testing"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/transporttest"
)

// TestConformance runs the suite on the configurations other than the
// default (which transport/all's TestConformance runs on every registered
// transport): single copy off (every payload through the ring), and a
// small ring that streams most payloads in pieces.
func TestConformance(t *testing.T) {
	for _, o := range []Options{{CMABytes: -1}, {RingBytes: 16 << 10, CMABytes: 1024}} {
		t.Run(fmt.Sprintf("ring%d-cma%d", o.RingBytes, o.CMABytes), func(t *testing.T) {
			o.Dir = t.TempDir()
			transporttest.Run(t, func(n int) ([]transport.Endpoint, error) { return NewJob(n, o) })
		})
	}
}
