package comm_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
)

// TestOneGiB sends a 1 GiB message by rendezvous and checks it by CRC-32.
// It needs about 2 GiB of memory, so it runs only with MPBENCH_TEST_GIB=1.
func TestOneGiB(t *testing.T) {
	if os.Getenv("MPBENCH_TEST_GIB") != "1" {
		t.Skip("set MPBENCH_TEST_GIB=1 to send a 1 GiB message")
	}
	const n = 1 << 30
	commtest.Run(t, 2, comm.Config{}, func(c comm.Comm) error {
		buf := make([]byte, n)
		if c.Rank() == 0 {
			for i := range buf {
				buf[i] = byte(i * 7 >> 3)
			}
			if err := c.Send(buf, 1, 0); err != nil {
				return err
			}
			return c.Send(binary.LittleEndian.AppendUint32(nil, checksum(buf)), 1, 1)
		}
		st, err := c.Recv(buf, 0, 0)
		if err != nil {
			return err
		}
		sum := make([]byte, 4)
		if _, err := c.Recv(sum, 0, 1); err != nil {
			return err
		}
		if st.Count != n || checksum(buf) != binary.LittleEndian.Uint32(sum) {
			return fmt.Errorf("got %d bytes with crc %08x, want %d bytes with crc %08x", st.Count, checksum(buf), n, binary.LittleEndian.Uint32(sum))
		}
		return nil
	})
}
