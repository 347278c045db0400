package comm

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport/inmem"
)

// The interleaving tests run the protocol's patterns over transport/inmem
// with the interleave hook making goroutines yield or sleep at random at
// every point where another goroutine may overtake them, so that orders of
// events a loaded machine produces rarely (a CTS before its sender waits,
// Data before the receiver parks, a wake-up between unlock and park) occur
// in every run. A pattern that does not finish within interleaveDeadline
// fails with every goroutine's stack and every rank's matching state.

// interleaveDeadline bounds one run of a pattern; generous, as only a hang
// can take that long.
const interleaveDeadline = 60 * time.Second

// patternsRan records the patterns run: TestMain runs the package's tests
// once per transport, these build their own inmem worlds.
var patternsRan = map[string]bool{}

// interleaveRuns is how many runs of each pattern a test makes:
// MPBENCH_INTERLEAVE_RUNS, or 20 (a few seconds under -race).
func interleaveRuns() int {
	if n, err := strconv.Atoi(os.Getenv("MPBENCH_INTERLEAVE_RUNS")); err == nil && n > 0 {
		return n
	}
	return 20
}

// withInterleaving installs a hook that, at each point, yields with
// probability 1/4 and sleeps up to 50 usec with probability 1/8.
func withInterleaving(t *testing.T) {
	f := func(string) {
		switch x := rand.IntN(8); {
		case x < 2:
			runtime.Gosched()
		case x < 3:
			time.Sleep(time.Duration(rand.IntN(interleaveSleepMax())) * time.Microsecond)
		}
	}
	interleave.Store(&f)
	t.Cleanup(func() { interleave.Store(nil) })
}

// runPattern runs f on n ranks over inmem with the given eager limit, many
// times, failing with the goroutine stacks and matching state on a hang.
func runPattern(t *testing.T, n, eager int, f func(c *communicator) error) {
	t.Helper()
	if patternsRan[t.Name()] {
		t.Skip("runs over inmem in the first transport pass only")
	}
	patternsRan[t.Name()] = true
	withInterleaving(t)
	for run := range interleaveRuns() {
		eps := inmem.New(n)
		ws := make([]*World, n)
		for i, ep := range eps {
			w, err := NewWorld(ep, Config{EagerLimit: eager})
			if err != nil {
				t.Fatal(err)
			}
			ws[i] = w
		}
		errs := make(chan error, n)
		var wg sync.WaitGroup
		for _, w := range ws {
			wg.Go(func() { errs <- f(w.communicator) })
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(interleaveDeadline):
			buf := make([]byte, 8<<20)
			buf = buf[:runtime.Stack(buf, true)]
			var st strings.Builder
			for _, w := range ws {
				st.WriteString(w.DebugState())
			}
			for _, w := range ws {
				w.Close()
			}
			t.Fatalf("run %d hung for %v; matching state:\n%s\ngoroutines:\n%s", run, interleaveDeadline, st.String(), buf)
		}
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("run %d: %v", run, err)
			}
		}
		for _, w := range ws {
			w.Close()
		}
	}
}

// TestInterleavedBarrier: dissemination barriers on 5 ranks (eager
// 0-byte sendrecvs whose receives are often posted after the message).
func TestInterleavedBarrier(t *testing.T) {
	runPattern(t, 5, 0, func(c *communicator) error {
		for range 30 {
			if err := c.Barrier(); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestInterleavedAlltoall: every rank posts a non-blocking receive from
// every other, then non-blocking rendezvous sends to all, then waits for
// all in order (coll's linear Alltoall), on 5 ranks.
func TestInterleavedAlltoall(t *testing.T) {
	const block = 8 << 10
	runPattern(t, 5, 4096, func(c *communicator) error {
		p, me := c.Size(), c.Rank()
		send := bytes.Repeat([]byte{byte(me)}, p*block)
		recv := make([]byte, p*block)
		for round := range 3 {
			var reqs []Request
			for i := 1; i < p; i++ {
				src := (me - i + p) % p
				r, err := c.Irecv(recv[src*block:(src+1)*block], src, round)
				if err != nil {
					return err
				}
				reqs = append(reqs, r)
			}
			for i := 1; i < p; i++ {
				dst := (me + i) % p
				r, err := c.Isend(send[dst*block:(dst+1)*block], dst, round)
				if err != nil {
					return err
				}
				reqs = append(reqs, r)
			}
			if err := Waitall(reqs); err != nil {
				return err
			}
			for src := range p {
				if src != me && recv[src*block] != byte(src) {
					return fmt.Errorf("round %d: block from rank %d holds %d", round, src, recv[src*block])
				}
			}
		}
		return nil
	})
}

// TestInterleavedSendrecvRing: blocking Sendrecv around a ring of 3 ranks,
// alternating rendezvous and eager sizes, the receive from AnySource.
func TestInterleavedSendrecvRing(t *testing.T) {
	runPattern(t, 3, 1024, func(c *communicator) error {
		p, me := c.Size(), c.Rank()
		buf := make([]byte, 4096)
		for i := range 20 {
			n := 16
			if i%2 == 0 {
				n = 4096
			}
			out := bytes.Repeat([]byte{byte(i)}, n)
			st, err := c.Sendrecv(out, (me+1)%p, i, buf, AnySource, i)
			if err != nil {
				return err
			}
			if st.Count != n || buf[n-1] != byte(i) {
				return fmt.Errorf("step %d: got %d bytes ending in %d", i, st.Count, buf[n-1])
			}
		}
		return nil
	})
}

// interleaveSleepMax is the longest random sleep at a point in usec:
// MPBENCH_INTERLEAVE_SLEEP_US, or 50.
func interleaveSleepMax() int {
	if n, err := strconv.Atoi(os.Getenv("MPBENCH_INTERLEAVE_SLEEP_US")); err == nil && n > 0 {
		return n
	}
	return 50
}
