//go:build mpi

package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mpbench/mpbench/mpi"
)

// pingPong times Send/Recv round trips between ranks 0 and 1 (other ranks
// wait in the closing barrier) for 0 B, 8 B, 1 MiB and 4 MiB, after a
// warm-up, and prints from rank 0 the half round-trip time in microseconds
// and the bandwidth size/t in MB/s (MB = 10^6 bytes, as IMB 2018+), the
// same quantities as IMB-MPI1 PingPong.
func pingPong(c *mpi.Comm, w io.Writer) error {
	sizes := []struct{ n, reps int }{{0, 20000}, {8, 20000}, {1 << 20, 500}, {4 << 20, 200}}
	if c.Rank() == 0 {
		version, _, _ := strings.Cut(mpi.LibraryVersion(), "\n")
		fmt.Fprintf(w, "# mpicheck ping-pong, %s\n#%11s %12s %12s %12s\n", version, "bytes", "repetitions", "t[usec]", "Mbytes/sec")
	}
	for _, s := range sizes {
		buf := make([]byte, s.n)
		if err := c.Barrier(); err != nil {
			return err
		}
		var t0 float64
		for i := -s.reps / 10; i < s.reps; i++ { // first tenth: warm-up
			if i == 0 {
				t0 = c.Wtime()
			}
			switch c.Rank() {
			case 0:
				if err := c.Send(buf, 1, 1); err != nil {
					return err
				}
				if _, err := c.Recv(buf, 1, 1); err != nil {
					return err
				}
			case 1:
				if _, err := c.Recv(buf, 0, 1); err != nil {
					return err
				}
				if err := c.Send(buf, 0, 1); err != nil {
					return err
				}
			}
		}
		usec := (c.Wtime() - t0) / float64(s.reps) / 2 * 1e6
		if c.Rank() == 0 {
			fmt.Fprintf(w, "%12d %12d %12.2f %12.2f\n", s.n, s.reps, usec, float64(s.n)/usec)
		}
	}
	return c.Barrier()
}
