// Package commtest runs tests of code written against comm.Comm on
// goroutine ranks over the in-memory transport, or over shared memory or
// loopback TCP (Transport).
package commtest

import (
	"fmt"
	"runtime/debug"
	"testing"
	"time"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/inmem"
)

// Run starts n ranks (goroutines) connected by Transport (transport/inmem
// unless set otherwise), each with its own comm.World built with cfg,
// calls f on every rank's world, and waits for all of them. It fails t
// naming the rank if f returns an error or panics on any rank. When a rank
// fails, its endpoint is killed so that ranks waiting on it fail instead of
// hanging. If the ranks do not all return within Timeout, Run logs every
// goroutine's stack, closes all worlds so that blocked calls return, and
// stops t naming the hung ranks (see RunOn). Worlds are closed before Run
// returns.
func Run(t testing.TB, n int, cfg comm.Config, f func(c comm.Comm) error) {
	t.Helper()
	if n < 1 {
		t.Fatalf("commtest: Run with %d ranks: want at least 1", n)
	}
	RunOn(t, Endpoints(t, Transport, n), cfg, f)
}

// RunOn is Run over the given endpoints of one job (endpoint i has rank
// i), for example a tcp mesh. Endpoints that are *inmem.Endpoint are
// killed when their rank fails; the worlds (and so the endpoints) are
// closed, concurrently, before RunOn returns.
//
// A hang ends the test within Timeout plus at most 2*Grace: on timeout
// RunOn reports the ranks still running with every rank's pending
// operations (comm.World.DebugState) and a dump of all goroutine stacks,
// closes every world (pending operations fail with comm.ErrClosed, later
// ones at once), waits up to Grace for the hung ranks to return, names
// those that did not, and calls t.FailNow. Closing the worlds is
// itself bounded by Grace: a Close that does not return is reported (with
// the stacks) instead of blocking the test.
func RunOn(t testing.TB, eps []transport.Endpoint, cfg comm.Config, f func(c comm.Comm) error) {
	t.Helper()
	if timeoutErr != nil {
		t.Fatalf("commtest: %v", timeoutErr)
	}
	n := len(eps)
	worlds := make([]*comm.World, n)
	for i, ep := range eps {
		w, err := comm.NewWorld(ep, cfg)
		if err != nil {
			closeWorlds(t, worlds[:i])
			t.Fatalf("commtest: rank %d: %v", i, err)
		}
		worlds[i] = w
	}
	closed := false
	defer func() {
		if !closed {
			closeWorlds(t, worlds)
		}
	}()

	results := make(chan result, n)
	for i := range worlds {
		go func() {
			defer func() {
				if p := recover(); p != nil {
					results <- result{i, fmt.Errorf("panic: %v\n%s", p, debug.Stack())}
				}
			}()
			results <- result{i, f(worlds[i])}
		}()
	}

	running := make(map[int]bool, n)
	for i := range n {
		running[i] = true
	}
	onErr := func(res result) {
		t.Errorf("rank %d: %v", res.rank, res.err)
		if ie, ok := eps[res.rank].(*inmem.Endpoint); ok {
			ie.Kill()
		}
	}
	if ok, stalled := collect(results, running, Timeout, onErr); !ok {
		closed = true
		timedOut(t, worlds, results, running, stalled)
	}
}

// result is what one rank's f returned.
type result struct {
	rank int
	err  error
}

// collect receives results until no rank is running or the process has
// run for d (runClock: stalls of the whole process do not count); it calls
// onErr for each failed rank and reports whether all ranks returned, and
// how long the process was stalled meanwhile.
func collect(results <-chan result, running map[int]bool, d time.Duration, onErr func(result)) (bool, time.Duration) {
	clk := newRunClock(d, time.Now())
	ticker := time.NewTicker(clk.tick)
	defer ticker.Stop()
	for len(running) > 0 {
		select {
		case res := <-results:
			delete(running, res.rank)
			if res.err != nil && onErr != nil {
				onErr(res)
			}
		case <-ticker.C:
			clk.advance(time.Now())
			if clk.ran >= d {
				return false, clk.stalled
			}
		}
	}
	return true, clk.stalled
}
