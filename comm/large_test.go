package comm_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
)

// Test64MiB sends 64 MiB and 0 bytes both ways (rendezvous and eager) and
// checks the content by CRC-32.
func Test64MiB(t *testing.T) {
	const n = 64 << 20
	want := pattern(n, 64)
	sum := checksum(want)
	commtest.Run(t, 2, comm.Config{}, func(c comm.Comm) error {
		buf := make([]byte, n)
		if c.Rank() == 0 {
			if err := c.Send(want, 1, 0); err != nil {
				return err
			}
			if err := c.Send(nil, 1, 1); err != nil {
				return err
			}
			st, err := c.Recv(buf, 1, 0)
			if err != nil {
				return err
			}
			if st.Count != n || checksum(buf) != sum {
				return fmt.Errorf("echo: %d bytes, crc %08x, want %d bytes crc %08x", st.Count, checksum(buf), n, sum)
			}
			return nil
		}
		st, err := c.Recv(buf, 0, 0)
		if err != nil {
			return err
		}
		if st.Count != n || checksum(buf) != sum {
			return fmt.Errorf("got %d bytes crc %08x, want %d bytes crc %08x", st.Count, checksum(buf), n, sum)
		}
		st, err = c.Recv(make([]byte, 4), 0, 1)
		if err != nil {
			return err
		}
		if st != (comm.Status{Source: 0, Tag: 1, Count: 0}) {
			return fmt.Errorf("0-byte message: status %+v", st)
		}
		return c.Send(buf, 0, 0)
	})
}

// TestRendezvousExchange: symmetric exchanges of rendezvous-sized messages
// that must not deadlock: Sendrecv in a ring, Isend then blocking Recv on
// both sides, and a receiver that posts only after the sender has been
// waiting.
func TestRendezvousExchange(t *testing.T) {
	const n = 1 << 20
	for _, ranks := range []int{2, 3, 4} {
		t.Run(fmt.Sprintf("sendrecv-ring-n%d", ranks), func(t *testing.T) {
			commtest.Run(t, ranks, comm.Config{}, func(c comm.Comm) error {
				right, left := (c.Rank()+1)%ranks, (c.Rank()+ranks-1)%ranks
				buf := make([]byte, n)
				st, err := c.Sendrecv(pattern(n, c.Rank()), right, 9, buf, left, 9)
				if err != nil {
					return err
				}
				if st != (comm.Status{Source: left, Tag: 9, Count: n}) || !bytes.Equal(buf, pattern(n, left)) {
					return fmt.Errorf("from rank %d: status %+v or payload wrong", left, st)
				}
				return nil
			})
		})
	}
	t.Run("isend-recv", func(t *testing.T) {
		commtest.Run(t, 2, small, func(c comm.Comm) error {
			peer := 1 - c.Rank()
			r, err := c.Isend(pattern(n, c.Rank()), peer, 1)
			if err != nil {
				return err
			}
			buf := make([]byte, n)
			if _, err := c.Recv(buf, peer, 1); err != nil {
				return err
			}
			if _, err := r.Wait(); err != nil {
				return err
			}
			if !bytes.Equal(buf, pattern(n, peer)) {
				return errors.New("payload differs")
			}
			return nil
		})
	})
	t.Run("late-receiver", func(t *testing.T) {
		commtest.Run(t, 2, small, func(c comm.Comm) error {
			if c.Rank() == 0 {
				r, err := c.Isend(pattern(n, 5), 1, 2)
				if err != nil {
					return err
				}
				if done, _, _ := r.Test(); done {
					return errors.New("rendezvous send complete before the receiver posted")
				}
				if err := c.Send(nil, 1, 3); err != nil { // tell rank 1 to post now
					return err
				}
				_, err = r.Wait()
				return err
			}
			if _, err := c.Recv(nil, 0, 3); err != nil {
				return err
			}
			buf := make([]byte, n)
			if _, err := c.Recv(buf, 0, 2); err != nil {
				return err
			}
			if !bytes.Equal(buf, pattern(n, 5)) {
				return errors.New("payload differs")
			}
			return nil
		})
	})
}

// TestTruncate: a message longer than the receive buffer fails the receive
// with ErrTruncate (eager and rendezvous), the sender completes, and later
// messages still arrive.
func TestTruncate(t *testing.T) {
	for _, n := range []int{40, 4000} { // eager and rendezvous with small
		t.Run(fmt.Sprintf("%dB", n), func(t *testing.T) {
			commtest.Run(t, 2, small, func(c comm.Comm) error {
				if c.Rank() == 0 {
					if err := c.Send(pattern(n, 1), 1, 0); err != nil {
						return fmt.Errorf("sender of a truncated message: %v", err)
					}
					return c.Send(pattern(8, 2), 1, 0)
				}
				_, err := c.Recv(make([]byte, n-1), 0, 0)
				if !errors.Is(err, comm.ErrTruncate) {
					return fmt.Errorf("Recv of %d bytes into %d: err %v, want ErrTruncate", n, n-1, err)
				}
				buf := make([]byte, 8)
				st, err := c.Recv(buf, 0, 0)
				if err != nil {
					return err
				}
				if st.Count != 8 || !bytes.Equal(buf, pattern(8, 2)) {
					return errors.New("message after the truncated one differs")
				}
				return nil
			})
		})
	}
}

// TestSelf: messages to the own rank, eager and rendezvous, posted before
// and after the send, and Sendrecv with oneself.
func TestSelf(t *testing.T) {
	commtest.Run(t, 1, small, func(c comm.Comm) error {
		for _, n := range []int{0, 10, 1000} {
			// send first
			r, err := c.Isend(pattern(n, n), 0, 4)
			if err != nil {
				return err
			}
			buf := make([]byte, n)
			st, err := c.Recv(buf, comm.AnySource, comm.AnyTag)
			if err != nil {
				return err
			}
			if _, err := r.Wait(); err != nil {
				return err
			}
			if st != (comm.Status{Source: 0, Tag: 4, Count: n}) || !bytes.Equal(buf, pattern(n, n)) {
				return fmt.Errorf("%d bytes send-first: status %+v or payload wrong", n, st)
			}
			// receive first
			rr, err := c.Irecv(buf, 0, 5)
			if err != nil {
				return err
			}
			if err := c.Send(pattern(n, n+1), 0, 5); err != nil {
				return err
			}
			if st, err = rr.Wait(); err != nil {
				return err
			}
			if st.Count != n || !bytes.Equal(buf, pattern(n, n+1)) {
				return fmt.Errorf("%d bytes receive-first: wrong", n)
			}
			// sendrecv
			st, err = c.Sendrecv(pattern(n, n+2), 0, 6, buf, 0, 6)
			if err != nil {
				return err
			}
			if st.Count != n || !bytes.Equal(buf, pattern(n, n+2)) {
				return fmt.Errorf("%d bytes sendrecv: wrong", n)
			}
		}
		return nil
	})
}
