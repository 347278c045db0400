package comm_test

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"testing"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
)

// pattern returns n bytes that depend on seed and position.
func pattern(n, seed int) []byte {
	b := make([]byte, n)
	x := uint32(seed)*2654435761 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// small is a config whose eager limit makes rendezvous cheap to test.
var small = comm.Config{EagerLimit: 64}

func TestPingPongSizes(t *testing.T) {
	for _, cfg := range []comm.Config{{}, small} {
		for _, n := range []int{0, 1, 63, 64, 65, 1000, 65536, 65537, 1 << 20} {
			t.Run(fmt.Sprintf("eager%d/%dB", cfg.EagerLimit, n), func(t *testing.T) {
				commtest.Run(t, 2, cfg, func(c comm.Comm) error {
					want := pattern(n, 7)
					buf := make([]byte, n)
					peer := 1 - c.Rank()
					if c.Rank() == 0 {
						if err := c.Send(want, peer, 5); err != nil {
							return err
						}
						st, err := c.Recv(buf, peer, 6)
						if err != nil {
							return err
						}
						if st != (comm.Status{Source: peer, Tag: 6, Count: n}) {
							return fmt.Errorf("status %+v", st)
						}
					} else {
						st, err := c.Recv(buf, peer, 5)
						if err != nil {
							return err
						}
						if st != (comm.Status{Source: peer, Tag: 5, Count: n}) {
							return fmt.Errorf("status %+v", st)
						}
						if err := c.Send(buf, peer, 6); err != nil {
							return err
						}
					}
					if !bytes.Equal(buf, want) {
						return errors.New("payload differs")
					}
					return nil
				})
			})
		}
	}
}

func TestIsendIrecvMany(t *testing.T) {
	const m = 1000
	commtest.Run(t, 2, small, func(c comm.Comm) error {
		peer := 1 - c.Rank()
		bufs := make([][]byte, m)
		var reqs []comm.Request
		for i := range m {
			n := (i * 37) % 200 // mix of eager and rendezvous sizes
			bufs[i] = make([]byte, n)
			// Post receives in reverse tag order: completion is out of order.
			r, err := c.Irecv(bufs[i], peer, m-1-i)
			if err != nil {
				return err
			}
			reqs = append(reqs, r)
		}
		for i := range m {
			tag := m - 1 - i
			n := (i * 37) % 200
			r, err := c.Isend(pattern(n, tag+c.Rank()*m), peer, tag)
			if err != nil {
				return err
			}
			reqs = append(reqs, r)
		}
		if err := comm.Waitall(reqs); err != nil {
			return err
		}
		for i := range m {
			tag := m - 1 - i
			if !bytes.Equal(bufs[i], pattern(len(bufs[i]), tag+peer*m)) {
				return fmt.Errorf("message with tag %d differs", tag)
			}
			st, err := reqs[i].Wait()
			if err != nil || st.Tag != tag || st.Source != peer || st.Count != len(bufs[i]) {
				return fmt.Errorf("request %d: status %+v, err %v", i, st, err)
			}
		}
		return nil
	})
}

func checksum(b []byte) uint32 { return crc32.ChecksumIEEE(b) }
