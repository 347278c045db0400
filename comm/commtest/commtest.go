// Package commtest runs tests of code written against comm.Comm on
// goroutine ranks over the in-memory transport, or over shared memory or
// loopback TCP (Transport).
package commtest

import (
	"fmt"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/inmem"
)

// Timeout bounds how long Run waits for all ranks to return.
var Timeout = 2 * time.Minute

// Run starts n ranks (goroutines) connected by Transport (transport/inmem
// unless set otherwise), each with its own comm.World built with cfg,
// calls f on every rank's world, and waits for all of them. It fails t naming the rank if f returns an error
// or panics on any rank, and stops t (naming the ranks still running) if
// they do not all return within Timeout. When a rank fails, its endpoint
// is killed so that ranks waiting on it fail instead of hanging. Worlds
// are closed before Run returns.
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
func RunOn(t testing.TB, eps []transport.Endpoint, cfg comm.Config, f func(c comm.Comm) error) {
	t.Helper()
	n := len(eps)
	worlds := make([]*comm.World, n)
	for i, ep := range eps {
		w, err := comm.NewWorld(ep, cfg)
		if err != nil {
			t.Fatalf("commtest: rank %d: %v", i, err)
		}
		worlds[i] = w
	}
	defer func() {
		var wg sync.WaitGroup
		for _, w := range worlds {
			wg.Go(func() { w.Close() })
		}
		wg.Wait()
	}()

	type result struct {
		rank int
		err  error
	}
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
	timer := time.NewTimer(Timeout)
	defer timer.Stop()
	for len(running) > 0 {
		select {
		case res := <-results:
			delete(running, res.rank)
			if res.err != nil {
				t.Errorf("rank %d: %v", res.rank, res.err)
				if ie, ok := eps[res.rank].(*inmem.Endpoint); ok {
					ie.Kill()
				}
			}
		case <-timer.C:
			var ranks []int
			for r := range n {
				if running[r] {
					ranks = append(ranks, r)
				}
			}
			t.Fatalf("commtest: ranks %v of %d did not return within %v", ranks, n, Timeout)
		}
	}
}
