package comm_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
)

// TestNonOvertakingWildcard: every rank but 0 sends 200 numbered messages
// of mixed eager and rendezvous sizes with varying tags; rank 0 receives
// them all with AnySource/AnyTag and checks that each sender's sequence
// arrives in send order with correct status.
func TestNonOvertakingWildcard(t *testing.T) {
	const m = 200
	for _, n := range []int{2, 3, 4} {
		t.Run(fmt.Sprintf("n%d", n), func(t *testing.T) {
			commtest.Run(t, n, small, func(c comm.Comm) error {
				size := func(i int) int { return 8 + (i%3)*60 } // 8, 68, 128 bytes: eager and rendezvous
				if c.Rank() != 0 {
					for i := range m {
						buf := pattern(size(i), i)
						binary.LittleEndian.PutUint64(buf, uint64(i))
						if err := c.Send(buf, 0, i%7); err != nil {
							return err
						}
					}
					return nil
				}
				next := make([]int, n)
				buf := make([]byte, 200)
				for range m * (n - 1) {
					st, err := c.Recv(buf, comm.AnySource, comm.AnyTag)
					if err != nil {
						return err
					}
					src := st.Source
					if src < 1 || src >= n {
						return fmt.Errorf("status source %d", src)
					}
					i := next[src]
					next[src]++
					got := int(binary.LittleEndian.Uint64(buf))
					if got != i {
						return fmt.Errorf("from rank %d: got message %d, want %d (overtaken)", src, got, i)
					}
					if st.Tag != i%7 || st.Count != size(i) {
						return fmt.Errorf("message %d from rank %d: status %+v, want tag %d count %d", i, src, st, i%7, size(i))
					}
					want := pattern(size(i), i)
					binary.LittleEndian.PutUint64(want, uint64(i))
					if !bytes.Equal(buf[:st.Count], want) {
						return fmt.Errorf("message %d from rank %d: payload differs", i, src)
					}
				}
				return nil
			})
		})
	}
}

// TestEagerThenRendezvousOrder: an eager message followed by a rendezvous
// one with the same tag match receives in send order, whether the
// receives are posted before the messages arrive or after.
func TestEagerThenRendezvousOrder(t *testing.T) {
	for _, late := range []bool{false, true} {
		t.Run(fmt.Sprintf("late=%v", late), func(t *testing.T) {
			commtest.Run(t, 2, small, func(c comm.Comm) error {
				sizes := []int{10, 1000, 20, 5000, 0}
				if c.Rank() == 0 {
					if !late {
						if err := c.Barrier(); err != nil { // receiver has posted
							return err
						}
					}
					var reqs []comm.Request
					for i, n := range sizes {
						r, err := c.Isend(pattern(n, i), 1, 3)
						if err != nil {
							return err
						}
						reqs = append(reqs, r)
					}
					if late {
						if err := c.Barrier(); err != nil {
							return err
						}
					}
					return comm.Waitall(reqs)
				}
				bufs := make([][]byte, len(sizes))
				var reqs []comm.Request
				post := func() error {
					for i := range sizes {
						bufs[i] = make([]byte, 5000)
						r, err := c.Irecv(bufs[i], 0, comm.AnyTag)
						if err != nil {
							return err
						}
						reqs = append(reqs, r)
					}
					return nil
				}
				if !late {
					if err := post(); err != nil {
						return err
					}
				}
				if err := c.Barrier(); err != nil {
					return err
				}
				if late {
					if err := post(); err != nil {
						return err
					}
				}
				for i, r := range reqs {
					st, err := r.Wait()
					if err != nil {
						return err
					}
					if st.Count != sizes[i] || !bytes.Equal(bufs[i][:st.Count], pattern(sizes[i], i)) {
						return fmt.Errorf("receive %d got %d bytes, want message %d of %d bytes", i, st.Count, i, sizes[i])
					}
				}
				return nil
			})
		})
	}
}

// TestWildcardStatus: AnySource with a fixed tag, a fixed source with
// AnyTag, and both wild report the actual source, tag and count.
func TestWildcardStatus(t *testing.T) {
	commtest.Run(t, 3, comm.Config{}, func(c comm.Comm) error {
		switch c.Rank() {
		case 1:
			if err := c.Send(pattern(11, 1), 0, 40); err != nil {
				return err
			}
			return c.Send(pattern(12, 2), 0, 41)
		case 2:
			if err := c.Send(pattern(21, 3), 0, 50); err != nil {
				return err
			}
			return c.Send(pattern(22, 4), 0, 51)
		}
		buf := make([]byte, 64)
		check := func(src, tag int, want comm.Status, seed int) error {
			st, err := c.Recv(buf, src, tag)
			if err != nil {
				return err
			}
			if st != want {
				return fmt.Errorf("Recv(%d, %d): status %+v, want %+v", src, tag, st, want)
			}
			if !bytes.Equal(buf[:st.Count], pattern(st.Count, seed)) {
				return fmt.Errorf("Recv(%d, %d): payload differs", src, tag)
			}
			return nil
		}
		if err := check(comm.AnySource, 51, comm.Status{Source: 2, Tag: 51, Count: 22}, 4); err != nil {
			return err
		}
		if err := check(1, comm.AnyTag, comm.Status{Source: 1, Tag: 40, Count: 11}, 1); err != nil {
			return err
		}
		if err := check(comm.AnySource, 41, comm.Status{Source: 1, Tag: 41, Count: 12}, 2); err != nil {
			return err
		}
		return check(comm.AnySource, comm.AnyTag, comm.Status{Source: 2, Tag: 50, Count: 21}, 3)
	})
}
