package coll

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mpbench/mpbench/comm"
)

// A minimal in-process comm.Comm for schedule tests: eager sends, MPI
// matching at post time (posted receives first, then unexpected messages
// in arrival order), and a trace of every message. Split supports only
// duplication (the same color on every rank), which is all coll needs.

type sent struct {
	ctx, src, dst, tag, bytes int
}

type fakeMsg struct {
	ctx, src, tag int
	data          []byte
}

type fakeRecv struct {
	ctx, src, tag int
	buf           []byte
	done          chan struct{}
	st            comm.Status
	err           error
}

type fakeNet struct {
	mu     sync.Mutex
	unexp  [][]*fakeMsg  // per destination rank
	posted [][]*fakeRecv // per destination rank
	trace  []sent
}

type fakeComm struct {
	net       *fakeNet
	ctx, rank int
	size      int
	splits    int
	epoch     time.Time
}

func newFake(n int) (*fakeNet, []comm.Comm) {
	net := &fakeNet{unexp: make([][]*fakeMsg, n), posted: make([][]*fakeRecv, n)}
	cs := make([]comm.Comm, n)
	for i := range cs {
		cs[i] = &fakeComm{net: net, ctx: 1, rank: i, size: n, epoch: time.Now()}
	}
	return net, cs
}

func (c *fakeComm) Rank() int { return c.rank }
func (c *fakeComm) Size() int { return c.size }

func matches(ctx, src, tag int, m *fakeMsg) bool {
	return ctx == m.ctx && (src == comm.AnySource || src == m.src) && (tag == comm.AnyTag || tag == m.tag)
}

func (r *fakeRecv) deliver(m *fakeMsg) {
	r.st = comm.Status{Source: m.src, Tag: m.tag, Count: len(m.data)}
	if len(m.data) > len(r.buf) {
		r.err = comm.ErrTruncate
	} else {
		copy(r.buf, m.data)
	}
	close(r.done)
}

type doneReq struct {
	r *fakeRecv
}

func (d doneReq) Wait() (comm.Status, error) {
	if d.r == nil {
		return comm.Status{}, nil
	}
	select {
	case <-d.r.done:
	case <-time.After(20 * time.Second):
		return comm.Status{}, errors.New("fake: receive timed out (deadlock?)")
	}
	return d.r.st, d.r.err
}

func (d doneReq) Test() (bool, comm.Status, error) {
	if d.r == nil {
		return true, comm.Status{}, nil
	}
	select {
	case <-d.r.done:
		return true, d.r.st, d.r.err
	default:
		return false, comm.Status{}, nil
	}
}

func (c *fakeComm) Isend(buf []byte, dest, tag int) (comm.Request, error) {
	if dest < 0 || dest >= c.size {
		return nil, comm.ErrRank
	}
	if tag < 0 || tag > comm.MaxTag {
		return nil, comm.ErrTag
	}
	m := &fakeMsg{ctx: c.ctx, src: c.rank, tag: tag, data: append([]byte(nil), buf...)}
	n := c.net
	n.mu.Lock()
	defer n.mu.Unlock()
	n.trace = append(n.trace, sent{ctx: c.ctx, src: c.rank, dst: dest, tag: tag, bytes: len(buf)})
	for i, r := range n.posted[dest] {
		if matches(r.ctx, r.src, r.tag, m) {
			n.posted[dest] = append(n.posted[dest][:i], n.posted[dest][i+1:]...)
			r.deliver(m)
			return doneReq{}, nil
		}
	}
	n.unexp[dest] = append(n.unexp[dest], m)
	return doneReq{}, nil
}

func (c *fakeComm) Irecv(buf []byte, source, tag int) (comm.Request, error) {
	if source != comm.AnySource && (source < 0 || source >= c.size) {
		return nil, comm.ErrRank
	}
	r := &fakeRecv{ctx: c.ctx, src: source, tag: tag, buf: buf, done: make(chan struct{})}
	n := c.net
	n.mu.Lock()
	defer n.mu.Unlock()
	for i, m := range n.unexp[c.rank] {
		if matches(r.ctx, r.src, r.tag, m) {
			n.unexp[c.rank] = append(n.unexp[c.rank][:i], n.unexp[c.rank][i+1:]...)
			r.deliver(m)
			return doneReq{r}, nil
		}
	}
	n.posted[c.rank] = append(n.posted[c.rank], r)
	return doneReq{r}, nil
}

func (c *fakeComm) Send(buf []byte, dest, tag int) error {
	_, err := c.Isend(buf, dest, tag)
	return err
}

func (c *fakeComm) Recv(buf []byte, source, tag int) (comm.Status, error) {
	r, err := c.Irecv(buf, source, tag)
	if err != nil {
		return comm.Status{}, err
	}
	return r.Wait()
}

func (c *fakeComm) Sendrecv(sb []byte, dest, stag int, rb []byte, source, rtag int) (comm.Status, error) {
	r, err := c.Irecv(rb, source, rtag)
	if err != nil {
		return comm.Status{}, err
	}
	if err := c.Send(sb, dest, stag); err != nil {
		return comm.Status{}, err
	}
	return r.Wait()
}

func (c *fakeComm) Barrier() error { return errors.New("fake: Barrier is not used by coll") }

func (c *fakeComm) Split(color, key int) (comm.Comm, error) {
	if key != c.rank {
		return nil, fmt.Errorf("fake: only Split(color, rank) duplication is supported")
	}
	c.splits++
	return &fakeComm{net: c.net, ctx: c.ctx*100 + c.splits, rank: c.rank, size: c.size, epoch: c.epoch}, nil
}

func (c *fakeComm) Wtime() float64 { return time.Since(c.epoch).Seconds() }
func (c *fakeComm) Wtick() float64 { return 1e-9 }

// runFake runs f on n fake ranks and fails t with the first rank's error or
// on a hang; it returns the message trace.
func runFake(t testing.TB, n int, f func(c comm.Comm) error) []sent {
	t.Helper()
	net, cs := newFake(n)
	errs := make(chan error, n)
	for _, c := range cs {
		go func(c comm.Comm) {
			err := f(c)
			if err != nil {
				err = fmt.Errorf("rank %d: %w", c.Rank(), err)
			}
			errs <- err
		}(c)
	}
	for range cs {
		select {
		case err := <-errs:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%d ranks hung", n)
		}
	}
	net.mu.Lock()
	defer net.mu.Unlock()
	for d, q := range net.unexp {
		if len(q) > 0 {
			t.Fatalf("%d unreceived messages at rank %d (first from rank %d, tag %d)", len(q), d, q[0].src, q[0].tag)
		}
	}
	return append([]sent(nil), net.trace...)
}
