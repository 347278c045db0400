package tcp

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// NewJob returns n connected endpoints of one job whose ranks all live in
// this process, over loopback (endpoint i has rank i): for tests and
// benchmarks of the runtime over TCP. o.Rank and o.Size are ignored; an
// empty o.Secret gets a random one, a zero o.CloseTimeout 5 s. Errors name
// the rank whose set-up failed.
func NewJob(n int, o Options) ([]transport.Endpoint, error) {
	if n < 1 {
		return nil, fmt.Errorf("tcp: job of %d ranks: need at least 1", n)
	}
	if len(o.Secret) == 0 {
		o.Secret = make([]byte, 16)
		rand.Read(o.Secret)
	}
	if o.CloseTimeout == 0 {
		o.CloseTimeout = 5 * time.Second
	}
	lns := make([]*Listener, n)
	addrs := make([]string, n)
	for r := range n {
		o.Rank, o.Size = r, n
		ln, err := Listen(o)
		if err != nil {
			for _, l := range lns[:r] {
				l.Close()
			}
			return nil, fmt.Errorf("tcp: rank %d: %w", r, err)
		}
		lns[r], addrs[r] = ln, ln.Addr()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	eps := make([]transport.Endpoint, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r, ln := range lns {
		wg.Go(func() {
			ep, err := ln.Connect(ctx, addrs)
			if err != nil {
				errs[r] = fmt.Errorf("tcp: rank %d: %w", r, err)
				cancel()
				return
			}
			eps[r] = ep
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, ep := range eps {
			if ep != nil {
				ep.Close()
			}
		}
		return nil, err
	}
	return eps, nil
}
