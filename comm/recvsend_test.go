package comm_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
)

// TestRecvSendFallback runs a ping-pong through comm.RecvSend on the native
// runtime (no RecvSender): rank 1 receives each ping and sends a reply
// prepared before the call; both sides check what they got.
func TestRecvSendFallback(t *testing.T) {
	commtest.Run(t, 2, comm.Config{}, func(c comm.Comm) error {
		if _, ok := c.(comm.RecvSender); ok {
			return fmt.Errorf("the native runtime implements RecvSender; this test is for the fallback")
		}
		buf := make([]byte, 100)
		for i := 0; i < 3; i++ {
			ping := bytes.Repeat([]byte{byte(i + 1)}, 100)
			reply := bytes.Repeat([]byte{byte(i + 101)}, 100)
			want := reply
			var st comm.Status
			var err error
			if c.Rank() == 0 {
				if err = c.Send(ping, 1, 7); err == nil {
					st, err = c.Recv(buf, 1, 8)
				}
			} else {
				want = ping
				st, err = comm.RecvSend(c, buf, 0, 7, reply, 0, 8)
			}
			if err != nil {
				return err
			}
			if st.Count != 100 || !bytes.Equal(buf, want) {
				return fmt.Errorf("round %d: got %d bytes starting %v, want 100 of %d", i, st.Count, buf[:2], want[0])
			}
		}
		return nil
	})
}

// TestRecvSendTruncated checks that a failed receive sends nothing.
func TestRecvSendTruncated(t *testing.T) {
	commtest.Run(t, 2, comm.Config{}, func(c comm.Comm) error {
		if c.Rank() == 0 {
			if err := c.Send(make([]byte, 10), 1, 1); err != nil {
				return err
			}
			// The only message from rank 1 must be the one after the failure.
			buf := make([]byte, 4)
			st, err := c.Recv(buf, 1, comm.AnyTag)
			if err != nil || st.Tag != 3 {
				return fmt.Errorf("got tag %d (%v), want only the later message with tag 3", st.Tag, err)
			}
			return nil
		}
		_, err := comm.RecvSend(c, make([]byte, 4), 0, 1, []byte("sent"), 0, 2)
		if !errors.Is(err, comm.ErrTruncate) {
			return fmt.Errorf("RecvSend into a short buffer: %v, want ErrTruncate", err)
		}
		return c.Send([]byte("late"), 0, 3)
	})
}
