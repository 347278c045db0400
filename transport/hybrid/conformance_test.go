package hybrid

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/inmem"
	_ "github.com/mpbench/mpbench/transport/shm" // registers "shm"
	_ "github.com/mpbench/mpbench/transport/tcp" // registers "tcp"
	"github.com/mpbench/mpbench/transport/transporttest"
)

// TestConformance runs the transport suite on hybrid endpoints as
// mpbench's launcher builds them: ranks placed on "hosts", each transport
// connected (ProcessDriver's Prepare and Connect) only between the ranks
// it is to reach, a peer on the rank's own host reached through the near
// transport and any other through TCP. Ranks 0 and 1 share a host, every
// other rank has one of its own, so a job of 2 runs over the near
// transport alone and one of 3 delivers from both transports to one rank
// at once (rank 1 gets rank 0's frames through the near transport and rank
// 2's through TCP). Near transports:
//   - shm (not on systems without it);
//   - inmem, whose ranks can fail like a crashed process, so that the
//     peer-failure case runs through a mixed endpoint too;
//   - none: every rank on a host of its own, all TCP.
func TestConformance(t *testing.T) {
	host := func(r int) int { return max(r-1, 0) } // ranks 0 and 1 on host 0
	for _, near := range []string{"shm", "inmem", ""} {
		name := near + "+tcp"
		if near == "" {
			name = "tcp"
		}
		t.Run(name, func(t *testing.T) {
			if near == "shm" && runtime.GOOS != "linux" {
				t.Skip("shared memory needs Linux")
			}
			transporttest.Run(t, func(n int) ([]transport.Endpoint, error) {
				same := func(r, p int) bool { return near != "" && host(r) == host(p) }
				var nearEps []transport.Endpoint
				var err error
				switch near {
				case "inmem":
					nearEps = inmem.New(n)
				case "shm":
					if nearEps, err = connect(t, "shm", n, same); err != nil {
						return nil, err
					}
				}
				far, err := connect(t, "tcp", n, func(r, p int) bool { return !same(r, p) })
				if err != nil {
					return nil, err
				}
				return combine(n, nearEps, far, same)
			})
		})
	}
}

// connect builds a job of n ranks over the registered process transport
// name as the launcher does: every rank prepares, then every rank connects
// to the ranks p with reach(rank, p), all at once. What is left of the job
// is removed at the test's end.
func connect(t *testing.T, name string, n int, reach func(r, p int) bool) ([]transport.Endpoint, error) {
	d, ok := transport.Lookup(name)
	pd, isProcess := d.(transport.ProcessDriver)
	if !ok || !isProcess {
		return nil, fmt.Errorf("%s is not a registered process transport", name)
	}
	secret := make([]byte, 16)
	rand.Read(secret)
	if c, ok := d.(transport.JobCleaner); ok {
		t.Cleanup(func() { c.RemoveJob(secret) })
	}
	preps := make([]transport.Prepared, n)
	addrs := make([]string, n)
	for r := range n {
		p, err := pd.Prepare(transport.ProcessConfig{Rank: r, Size: n, Secret: secret, Addr: "127.0.0.1"})
		if err != nil {
			for _, q := range preps[:r] {
				q.Abort()
			}
			return nil, fmt.Errorf("%s: rank %d: %w", name, r, err)
		}
		preps[r], addrs[r] = p, p.Addr()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	eps := make([]transport.Endpoint, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Go(func() {
			in := make([]bool, n)
			for p := range n {
				in[p] = p != r && reach(r, p)
			}
			if eps[r], errs[r] = preps[r].Connect(ctx, addrs, in); errs[r] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, ep := range eps {
			if ep != nil {
				ep.Close()
			}
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return eps, nil
}

// combine makes each rank's hybrid endpoint of near (may be nil) and far
// parts, routing a peer p with same(rank, p) through near and any other
// through far. An endpoint all of whose parts in use can be killed
// (transporttest.Killer) is returned as one that can be killed too.
func combine(n int, near, far []transport.Endpoint, same func(r, p int) bool) ([]transport.Endpoint, error) {
	out := make([]transport.Endpoint, n)
	for r := range n {
		parts := []Part{{Name: "tcp", Endpoint: far[r]}}
		route := make([]int, n)
		if near != nil {
			parts = append(parts, Part{Name: "near", Endpoint: near[r]})
			for p := range n {
				if same(r, p) {
					route[p] = 1
				}
			}
		}
		e, err := New(r, n, parts, route)
		if err != nil {
			return nil, fmt.Errorf("rank %d: %w", r, err)
		}
		out[r] = e
		if killable(e) {
			out[r] = killer{e}
		}
	}
	return out, nil
}

// killable reports whether every part e uses can be killed.
func killable(e *Endpoint) bool {
	for _, p := range e.Parts() {
		if _, ok := p.(transporttest.Killer); !ok {
			return false
		}
	}
	return true
}

// killer is a hybrid endpoint whose rank fails as a crashed process does:
// Kill kills every part.
type killer struct{ *Endpoint }

func (k killer) Kill() {
	for _, p := range k.Parts() {
		p.(transporttest.Killer).Kill()
	}
}
