package comm_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
)

// collective is the optional interface package coll looks for.
type collective interface {
	CollectiveComm() (comm.Comm, error)
}

// TestCollectiveComm: the collective view keeps group and rank order, its
// messages (user and reserved tags) do not match the parent's receives or
// the reverse, a view's own CollectiveComm is a further separate space,
// and repeated calls return the same communicator.
func TestCollectiveComm(t *testing.T) {
	commtest.Run(t, 3, comm.Config{}, func(c comm.Comm) error {
		v, err := c.(collective).CollectiveComm()
		if err != nil {
			return err
		}
		again, _ := c.(collective).CollectiveComm()
		if again != v {
			return errors.New("second CollectiveComm returned a different communicator")
		}
		if v.Size() != c.Size() || v.Rank() != c.Rank() {
			return fmt.Errorf("view is rank %d of %d, want %d of %d", v.Rank(), v.Size(), c.Rank(), c.Size())
		}
		vv, err := v.(collective).CollectiveComm()
		if err != nil {
			return err
		}
		if vv.Size() != c.Size() || vv.Rank() != c.Rank() {
			return errors.New("view of the view changed the group")
		}
		next, prev := (c.Rank()+1)%3, (c.Rank()+2)%3
		spaces := []comm.Comm{c, v, vv}
		for i, s := range spaces {
			for _, tag := range []int{5, -5} {
				if err := s.Send([]byte{byte(i)}, next, tag); err != nil {
					return err
				}
			}
		}
		buf := make([]byte, 1)
		for i := len(spaces) - 1; i >= 0; i-- { // receive in the other order
			for _, tag := range []int{-5, 5} {
				want := tag
				if tag > 0 {
					tag = comm.AnyTag
				}
				st, err := spaces[i].Recv(buf, comm.AnySource, tag)
				if err != nil {
					return err
				}
				if int(buf[0]) != i || st.Source != prev || st.Tag != want {
					return fmt.Errorf("space %d tag %d: got message of space %d, status %+v", i, want, buf[0], st)
				}
			}
		}
		for _, s := range spaces {
			if err := s.Barrier(); err != nil {
				return err
			}
		}
		return nil
	})
}
