package coll

import (
	"fmt"

	"github.com/mpbench/mpbench/comm"
)

// Point-to-point helpers that check received lengths: every message of a
// collective has a size both sides know, so a shorter one means the ranks
// passed inconsistent buffer sizes.

func lengthError(got, want, src int) error {
	return fmt.Errorf("received %d bytes from rank %d where %d were expected (buffer sizes or counts differ between ranks)", got, src, want)
}

// recv receives exactly len(buf) bytes from src.
func recv(c comm.Comm, buf []byte, src, tag int) error {
	st, err := c.Recv(buf, src, tag)
	if err != nil {
		return fmt.Errorf("receive from rank %d: %w", src, err)
	}
	if st.Count != len(buf) {
		return lengthError(st.Count, len(buf), src)
	}
	return nil
}

// send sends buf to dst.
func send(c comm.Comm, buf []byte, dst, tag int) error {
	if err := c.Send(buf, dst, tag); err != nil {
		return fmt.Errorf("send to rank %d: %w", dst, err)
	}
	return nil
}

// sendrecv exchanges sbuf (to dst) for exactly len(rbuf) bytes from src.
func sendrecv(c comm.Comm, sbuf []byte, dst int, rbuf []byte, src, tag int) error {
	st, err := c.Sendrecv(sbuf, dst, tag, rbuf, src, tag)
	if err != nil {
		return fmt.Errorf("sendrecv with ranks %d/%d: %w", dst, src, err)
	}
	if st.Count != len(rbuf) {
		return lengthError(st.Count, len(rbuf), src)
	}
	return nil
}

// pending is a set of non-blocking operations completed together.
type pending struct {
	reqs []comm.Request
	want []int // expected receive length, -1 for sends
	peer []int
}

func (q *pending) isend(c comm.Comm, buf []byte, dst, tag int) error {
	r, err := c.Isend(buf, dst, tag)
	if err != nil {
		return fmt.Errorf("isend to rank %d: %w", dst, err)
	}
	q.add(r, -1, dst)
	return nil
}

func (q *pending) irecv(c comm.Comm, buf []byte, src, tag int) error {
	r, err := c.Irecv(buf, src, tag)
	if err != nil {
		return fmt.Errorf("irecv from rank %d: %w", src, err)
	}
	q.add(r, len(buf), src)
	return nil
}

func (q *pending) add(r comm.Request, want, peer int) {
	q.reqs = append(q.reqs, r)
	q.want = append(q.want, want)
	q.peer = append(q.peer, peer)
}

// wait completes every request (like comm.Waitall) and returns the first
// error or length mismatch; the set is empty afterwards.
func (q *pending) wait() error {
	var first error
	for i, r := range q.reqs {
		st, err := r.Wait()
		if err != nil {
			err = fmt.Errorf("request with rank %d: %w", q.peer[i], err)
		} else if q.want[i] >= 0 && st.Count != q.want[i] {
			err = lengthError(st.Count, q.want[i], q.peer[i])
		}
		if err != nil && first == nil {
			first = err
		}
	}
	q.reqs, q.want, q.peer = q.reqs[:0], q.want[:0], q.peer[:0]
	return first
}

// waitOne completes request i only (used by the pipeline algorithms,
// which consume receives in order); wait later skips nothing, Wait is
// idempotent.
func (q *pending) waitOne(i int) error {
	st, err := q.reqs[i].Wait()
	if err != nil {
		return fmt.Errorf("request with rank %d: %w", q.peer[i], err)
	}
	if q.want[i] >= 0 && st.Count != q.want[i] {
		return lengthError(st.Count, q.want[i], q.peer[i])
	}
	return nil
}
