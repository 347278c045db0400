package comm_test

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/mpbench/mpbench/comm"
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

// cpuTime is the CPU time (user and system, in nanoseconds) this process
// (who = unix.RUSAGE_SELF) or the calling thread (rusageThread) has
// used: unlike the wall clock it does not grow while other processes have
// the CPU.
func cpuTime(b *testing.B, who int) int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(who, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkPathShm drives both ranks of a shared-memory job from one
// goroutine: rank 0 sends, rank 1 receives (finding the frame in its ring
// by its own poll), rank 1 sends back, rank 0 receives. ns/op is the
// runtime's and transport's own work for two messages, without waiting
// for the other rank's CPU, so its CPU time per op holds on a loaded
// machine: cpu-ns/op is the process's, thread-cpu-ns/op the driving
// thread's alone (the goroutine is locked to it), without the runtime's
// monitor thread and the endpoints' poller goroutines, whose wake-ups
// vary with the load; allocs/op counts both ranks.
func BenchmarkPathShm(b *testing.B) {
	for _, n := range []int{0, 8, 1024, 8192} {
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) {
			round := shmPath(b, n)
			b.ReportAllocs()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			b.ResetTimer()
			cpu0, thr0 := cpuTime(b, unix.RUSAGE_SELF), cpuTime(b, rusageThread)
			defer func() {
				thr := cpuTime(b, rusageThread) - thr0
				b.ReportMetric(float64(cpuTime(b, unix.RUSAGE_SELF)-cpu0)/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(thr)/float64(b.N), "thread-cpu-ns/op")
			}()
			for range b.N {
				if err := round(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// shmWorlds returns the worlds of a new two-rank shared-memory job,
// closed at the end of t.
func shmWorlds(t testing.TB) []*comm.World {
	eps := commtest.Endpoints(t, "shm", 2)
	ws := make([]*comm.World, 2)
	for i, ep := range eps {
		w, err := comm.NewWorld(ep, comm.Config{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		ws[i] = w
	}
	return ws
}

// shmPath returns one round of BenchmarkPathShm over a new two-rank
// shared-memory job (closed at the end of t): rank 0 sends n bytes to
// rank 1 with a blocking Send, rank 1 receives them with a blocking Recv
// and sends them back, rank 0 receives them; every call runs on the
// calling goroutine.
func shmPath(t testing.TB, n int) func() error {
	ws := shmWorlds(t)
	buf := make([]byte, n)
	return func() error {
		if err := ws[0].Send(buf, 1, 1); err != nil {
			return err
		}
		if _, err := ws[1].Recv(buf, 0, 1); err != nil {
			return err
		}
		if err := ws[1].Send(buf, 0, 1); err != nil {
			return err
		}
		_, err := ws[0].Recv(buf, 1, 1)
		return err
	}
}

// TestSmallMessagesAllocateNothing: blocking Send and Recv of 0 and 8
// bytes over shared memory (matching, the pooled requests, the frame in
// the ring, its delivery) allocate nothing on the heap: an allocation per
// message makes the garbage collector run on the CPUs the ranks poll on.
// It runs once, in the shm pass.
func TestSmallMessagesAllocateNothing(t *testing.T) {
	if commtest.Transport != "shm" {
		t.Skip("builds its own shm job: runs once, in the shm pass")
	}
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops pooled requests at random")
	}
	t.Setenv(transport.EnvVerify, "")
	for _, n := range []int{0, 8} {
		round := shmPath(t, n)
		var err error
		one := func() {
			if err == nil {
				err = round()
			}
		}
		one() // first use: nothing lazy is counted below
		allocs := testing.AllocsPerRun(500, one)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if allocs != 0 {
			t.Errorf("%d bytes: %.2f heap allocations per round trip (two blocking sends and receives), want 0", n, allocs)
		}
	}
}

// TestIrecvAllocations: a non-blocking receive over shared memory
// allocates its request with its waker in one allocation, and the
// waker's poll function when its Wait polls: 2 per Irecv that waits, 4
// per round trip of Send and Irecv+Wait each way (the request, its waker,
// the waker's channel and poll function made up front cost 8). The
// channel is made only if the wait parks, which a message already in the
// ring never makes it do. It runs once, in the shm pass.
func TestIrecvAllocations(t *testing.T) {
	if commtest.Transport != "shm" {
		t.Skip("builds its own shm job: runs once, in the shm pass")
	}
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops pooled requests at random")
	}
	t.Setenv(transport.EnvVerify, "")
	ws := shmWorlds(t)
	buf := make([]byte, 8)
	var err error
	leg := func(from, to int) error {
		if err := ws[from].Send(buf, to, 1); err != nil {
			return err
		}
		q, err := ws[to].Irecv(buf, from, 1)
		if err != nil {
			return err
		}
		_, err = q.Wait()
		return err
	}
	round := func() {
		if err == nil {
			err = leg(0, 1)
		}
		if err == nil {
			err = leg(1, 0)
		}
	}
	round()
	allocs := testing.AllocsPerRun(500, round)
	if err != nil {
		t.Fatal(err)
	}
	if allocs > 4 {
		t.Errorf("%.2f heap allocations per round trip of Send and Irecv+Wait each way, want at most 4", allocs)
	}
}
