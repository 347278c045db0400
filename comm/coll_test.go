package comm_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
)

// TestBarrier: no rank leaves barrier k before every rank has entered it
// (ranks are goroutines sharing a counter of entries).
func TestBarrier(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5} {
		t.Run(fmt.Sprintf("n%d", n), func(t *testing.T) {
			var entered atomic.Int64
			const rounds = 50
			commtest.Run(t, n, comm.Config{}, func(c comm.Comm) error {
				for k := 1; k <= rounds; k++ {
					entered.Add(1)
					if err := c.Barrier(); err != nil {
						return err
					}
					if got := entered.Load(); got < int64(k*n) {
						return fmt.Errorf("left barrier %d after %d entries, want >= %d", k, got, k*n)
					}
				}
				return nil
			})
		})
	}
}

// TestSplit: even and odd ranks split with reversed keys; the new
// communicators have the right sizes and rank order, their messages do
// not mix with the parent's, and a second-level split works.
func TestSplit(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4} {
		t.Run(fmt.Sprintf("n%d", n), func(t *testing.T) {
			commtest.Run(t, n, comm.Config{}, func(c comm.Comm) error {
				r := c.Rank()
				color := r % 2
				sub, err := c.Split(color, -r) // reverse order within a color
				if err != nil {
					return err
				}
				var group []int // old ranks of my color, in new rank order
				for o := n - 1; o >= 0; o-- {
					if o%2 == color {
						group = append(group, o)
					}
				}
				if sub.Size() != len(group) || group[sub.Rank()] != r {
					return fmt.Errorf("split: rank %d of %d, want rank of %d in %v", sub.Rank(), sub.Size(), r, group)
				}
				// Isolation: same tag on parent and child; each receive gets its own.
				sr := sub.Rank()
				next, prev := (sr+1)%sub.Size(), (sr+sub.Size()-1)%sub.Size()
				parentPeer := (r + 1) % n
				parentPrev := (r + n - 1) % n
				if err := c.Send([]byte{'p', byte(r)}, parentPeer, 7); err != nil {
					return err
				}
				if err := sub.Send([]byte{'s', byte(r)}, next, 7); err != nil {
					return err
				}
				buf := make([]byte, 2)
				st, err := sub.Recv(buf, comm.AnySource, comm.AnyTag)
				if err != nil {
					return err
				}
				if buf[0] != 's' || int(buf[1]) != group[prev] || st.Source != prev {
					return fmt.Errorf("child receive got %q from %d, want 's' from old rank %d (new %d)", buf, st.Source, group[prev], prev)
				}
				st, err = c.Recv(buf, comm.AnySource, 7)
				if err != nil {
					return err
				}
				if buf[0] != 'p' || int(buf[1]) != parentPrev || st.Source != parentPrev {
					return fmt.Errorf("parent receive got %q from %d, want 'p' from %d", buf, st.Source, parentPrev)
				}
				// Undefined gets nil; the rest form one communicator by old rank.
				col := 0
				if r == 0 {
					col = comm.Undefined
				}
				rest, err := c.Split(col, 0)
				if err != nil {
					return err
				}
				if r == 0 {
					if rest != nil {
						return errors.New("Split(Undefined) returned a communicator")
					}
				} else if rest.Size() != n-1 || rest.Rank() != r-1 {
					return fmt.Errorf("rest: rank %d of %d, want %d of %d", rest.Rank(), rest.Size(), r-1, n-1)
				}
				// Split of a split, and barriers on all levels.
				one, err := sub.Split(0, 0)
				if err != nil {
					return err
				}
				if one.Size() != sub.Size() || one.Rank() != sub.Rank() {
					return errors.New("split of a split with one color changed the group")
				}
				for _, cc := range []comm.Comm{c, sub, one} {
					if err := cc.Barrier(); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}

// TestTestNonBlocking: Test on a receive whose message cannot have been
// sent yet reports not done, then done after the message.
func TestTestNonBlocking(t *testing.T) {
	commtest.Run(t, 2, comm.Config{}, func(c comm.Comm) error {
		if c.Rank() == 1 {
			if err := c.Barrier(); err != nil {
				return err
			}
			return c.Send([]byte("hi"), 0, 1)
		}
		buf := make([]byte, 2)
		r, err := c.Irecv(buf, 1, 1)
		if err != nil {
			return err
		}
		if done, _, _ := r.Test(); done {
			return errors.New("Test reports a receive done before its message was sent")
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		for {
			done, st, err := r.Test()
			if err != nil {
				return err
			}
			if done {
				if st != (comm.Status{Source: 1, Tag: 1, Count: 2}) || string(buf) != "hi" {
					return fmt.Errorf("status %+v, payload %q", st, buf)
				}
				break
			}
		}
		st, err := r.Wait()
		if err != nil || st.Count != 2 {
			return fmt.Errorf("Wait after Test: %+v %v", st, err)
		}
		return nil
	})
}

// TestInvalidArgs: bad ranks and tags fail with ErrRank and ErrTag.
func TestInvalidArgs(t *testing.T) {
	commtest.Run(t, 2, comm.Config{}, func(c comm.Comm) error {
		check := func(what string, err, want error) error {
			if !errors.Is(err, want) {
				return fmt.Errorf("%s: err %v, want %v", what, err, want)
			}
			return nil
		}
		_, recvRank := c.Recv(nil, 2, 0)
		_, irecvTag := c.Irecv(nil, 0, comm.MaxTag+1)
		_, isendRank := c.Isend(nil, -1, 0)
		_, srTag := c.Sendrecv(nil, 0, comm.AnyTag, nil, 0, 0)
		for _, e := range []error{
			check("Send to rank 2", c.Send(nil, 2, 0), comm.ErrRank),
			check("Send with AnyTag", c.Send(nil, 0, comm.AnyTag), comm.ErrTag),
			check("Send with MaxTag+1", c.Send(nil, 0, comm.MaxTag+1), comm.ErrTag),
			check("Send with a tag below MinReservedTag", c.Send(nil, 0, comm.MinReservedTag-1), comm.ErrTag),
			check("Recv from rank 2", recvRank, comm.ErrRank),
			check("Irecv with MaxTag+1", irecvTag, comm.ErrTag),
			check("Isend to rank -1", isendRank, comm.ErrRank),
			check("Sendrecv sending AnyTag", srTag, comm.ErrTag),
		} {
			if e != nil {
				return e
			}
		}
		_, err := c.Split(-5, 0)
		if err == nil {
			return errors.New("Split with color -5 succeeded")
		}
		return nil
	})
}

// TestReservedTags: negative (reserved) tags reach matching receives with
// the same tag and are never matched by AnyTag receives.
func TestReservedTags(t *testing.T) {
	commtest.Run(t, 2, comm.Config{}, func(c comm.Comm) error {
		if c.Rank() == 0 {
			if err := c.Send([]byte("coll"), 1, -7); err != nil {
				return err
			}
			return c.Send([]byte("user"), 1, 7)
		}
		buf := make([]byte, 4)
		st, err := c.Recv(buf, comm.AnySource, comm.AnyTag)
		if err != nil {
			return err
		}
		if string(buf) != "user" || st.Tag != 7 {
			return fmt.Errorf("AnyTag receive got %q tag %d, want the user message", buf, st.Tag)
		}
		st, err = c.Recv(buf, 0, -7)
		if err != nil {
			return err
		}
		if string(buf) != "coll" || st.Tag != -7 {
			return fmt.Errorf("reserved receive got %q tag %d", buf, st.Tag)
		}
		return nil
	})
}

// TestClock: Wtime does not go backwards and advances; Wtick is 1 ns.
func TestClock(t *testing.T) {
	commtest.Run(t, 1, comm.Config{}, func(c comm.Comm) error {
		if c.Wtick() != 1e-9 {
			return fmt.Errorf("Wtick %g", c.Wtick())
		}
		t0 := c.Wtime()
		last := t0
		for c.Wtime() == t0 {
		}
		for range 1000 {
			now := c.Wtime()
			if now < last {
				return fmt.Errorf("Wtime went back from %g to %g", last, now)
			}
			last = now
		}
		if t0 < 0 || last <= t0 {
			return fmt.Errorf("Wtime %g then %g", t0, last)
		}
		return nil
	})
}
