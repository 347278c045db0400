package shm

import (
	"context"
	"crypto/rand"
	"sync"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// NewJob returns n connected endpoints of one job whose ranks all live in
// this process (endpoint i has rank i): for tests and benchmarks of the
// runtime over shared memory. o.Rank and o.Size are ignored; an empty
// o.Secret gets a random one. Nothing is left in o.Dir on return. A rank
// killed with Endpoint.Kill fails as one whose process died.
func NewJob(n int, o Options) ([]transport.Endpoint, error) {
	if len(o.Secret) == 0 {
		o.Secret = make([]byte, 16)
		rand.Read(o.Secret)
	}
	pend := make([]*Pending, n)
	for r := range n {
		o.Rank, o.Size = r, n
		p, err := Prepare(o)
		if err != nil {
			for _, q := range pend[:r] {
				q.Abort()
			}
			return nil, err
		}
		pend[r] = p
	}
	local := make([]bool, n)
	for i := range local {
		local[i] = true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	eps := make([]transport.Endpoint, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r, p := range pend {
		wg.Go(func() {
			ep, err := p.Attach(ctx, local)
			if err != nil {
				cancel()
				errs[r] = err
				return
			}
			eps[r] = ep
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			for _, ep := range eps {
				if ep != nil {
					ep.Close()
				}
			}
			return nil, err
		}
	}
	return eps, nil
}
