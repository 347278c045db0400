package comm_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/mpbench/mpbench/comm/commtest"
	"github.com/mpbench/mpbench/transport"
)

// TestMain runs the package's tests once per transport (inmem, shm, tcp),
// or over the one named by MPBENCH_COMMTEST_TRANSPORT: the runtime's
// conformance tests must pass on every byte mover.
func TestMain(m *testing.M) {
	transports := commtest.Transports
	if os.Getenv(commtest.EnvTransport) != "" {
		transports = []string{commtest.Transport}
	}
	code := 0
	for _, tr := range transports {
		commtest.Transport = tr
		fmt.Printf("=== comm tests over %s\n", tr)
		if c := m.Run(); c != 0 {
			fmt.Printf("--- comm tests over %s failed\n", tr)
			code = c
		}
	}
	os.Exit(code)
}

// BenchmarkPingPongShm is BenchmarkPingPong over shared memory (both ranks
// in this process, so on 2 cores the numbers include Go scheduling).
func BenchmarkPingPongShm(b *testing.B) {
	benchPingPong(b, func() []transport.Endpoint { return commtest.Endpoints(b, "shm", 2) })
}
