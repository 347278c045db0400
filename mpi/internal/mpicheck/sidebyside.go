//go:build mpi

package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/mpi"
	"github.com/mpbench/mpbench/mpi/internal/cref"
)

// sideBySizes are the message sizes (bytes) of the side-by-side ping-pong
// with the repetitions of one sample, chosen so that a sample takes about
// 20-50 ms on 2 ranks sharing memory (Open MPI 4.1 and MPICH 4.0 on 2
// CPUs: 0 B about 1 us per round trip, 1 MiB about 170 us, 4 MiB 750 us).
var sideBySizes = []struct{ n, reps int }{
	{0, 30000}, {8, 30000}, {1024, 20000}, {65536, 2000}, {1 << 20, 200}, {4 << 20, 40},
}

// sideBySide measures IMB's PingPong between ranks 0 and 1 twice in one job
// on the same buffers: in C (package cref, the loop of IMB_pingpong.c) and
// as mpbench measures it ("mpb": the PingPong benchmark's kernel,
// bench.PingPongRounds, through the comm.Comm interface on *mpi.Comm, which
// runs the loop in the library with Comm.RunLoop). For each size it
// runs one untimed warm-up sample of each, then rounds rounds of one C and
// one mpb sample, alternating which goes first, each after a barrier, so
// that both see the same placement and machine state; the ratio of
// adjacent samples is then free of the run-to-run noise that separate jobs
// have. Rank 0 prints per size: the medians over the rounds of t (half
// round trip, in microseconds, rank 0's clock) for C and mpb, the median
// over the rounds of the difference mpb - C of one round's t (mpbench's
// cost per half round trip, which depends less on process placement than
// the ratio does for small messages), mpb/C of the medians, mpb/C of the
// minima, and the smallest and largest mpb/C of one round. The header
// gives rank 0's GOMAXPROCS (mpi raises it to 2 at least) and
// the thread level the library provides. Ranks other than 0 and 1 only
// join the barriers. Afterwards each of ranks 0 and 1 checks that its
// receive buffer holds the peer's data.
func sideBySide(c *mpi.Comm, w io.Writer, rounds int) error {
	if c.Rank() == 0 {
		version, _, _ := strings.Cut(mpi.LibraryVersion(), "\n")
		fmt.Fprintf(w, "# mpicheck side-by-side ping-pong, %s\n", version)
		fmt.Fprintf(w, "# C: IMB_pingpong.c loop in C (cref.PingPong); mpb: the PingPong benchmark's kernel (bench.PingPongRounds) on mpi, which runs its loop in the library (Comm.RunLoop)\n")
		level, _ := mpi.ThreadLevel()
		fmt.Fprintf(w, "# %d rounds per size, C and mpb alternating first; t = half round trip in usec (rank 0), medians over rounds; GOMAXPROCS %d; %s\n", rounds, runtime.GOMAXPROCS(0), level)
		fmt.Fprintf(w, "#%11s %12s %12s %12s %12s %10s %10s  %s\n", "bytes", "repetitions", "C t[usec]", "mpb t[usec]", "mpb-C[usec]", "mpb/C med", "mpb/C min", "mpb/C per round min..max")
	}
	var g comm.Comm = c // the mpb samples run bench's kernel, through the interface
	for _, s := range sideBySizes {
		send, recv := fill(s.n, c.Rank()), fill(s.n, 7)
		sample := func(inC bool) (float64, error) {
			if err := c.Barrier(); err != nil {
				return 0, err
			}
			if inC {
				return cref.PingPong(send, recv, s.reps)
			}
			if c.Rank() > 1 {
				return 0, nil // only ranks 0 and 1 take part, as in cref.PingPong
			}
			return bench.PingPongRounds(g, send, recv, s.reps)
		}
		if _, err := sample(true); err != nil { // warm-up
			return err
		}
		if _, err := sample(false); err != nil {
			return err
		}
		ct, gt := make([]float64, rounds), make([]float64, rounds)
		for r := range rounds {
			for k := range 2 {
				inC := (r+k)%2 == 0 // even rounds C first, odd rounds Go first
				t, err := sample(inC)
				if err != nil {
					return fmt.Errorf("%d bytes, round %d: %w", s.n, r, err)
				}
				if inC {
					ct[r] = t
				} else {
					gt[r] = t
				}
			}
		}
		if me := c.Rank(); me < 2 && s.n > 0 && !slices.Equal(recv, fill(s.n, 1-me)) {
			return fmt.Errorf("%d bytes: rank %d's receive buffer does not hold rank %d's data", s.n, me, 1-me)
		}
		if c.Rank() == 0 {
			fmt.Fprintln(w, sideRow(s.n, s.reps, ct, gt))
		}
	}
	return c.Barrier()
}

// sideRow formats one size's row of sideBySide from the per-round elapsed
// times (seconds) of the C and mpb samples.
func sideRow(n, reps int, ct, gt []float64) string {
	usec := func(sec float64) float64 { return sec / float64(reps) / 2 * 1e6 }
	lo, hi := math.Inf(1), math.Inf(-1)
	diff := make([]float64, len(ct))
	for r := range ct {
		q := gt[r] / ct[r]
		lo, hi = min(lo, q), max(hi, q)
		diff[r] = gt[r] - ct[r]
	}
	cm, gm := median(ct), median(gt)
	return fmt.Sprintf("%12d %12d %12.3f %12.3f %12.3f %10.3f %10.3f  %.3f..%.3f", n, reps, usec(cm), usec(gm),
		usec(median(diff)), gm/cm, slices.Min(gt)/slices.Min(ct), lo, hi)
}

// fill returns n bytes, none of them zero (so that every page is written
// and backed, not the shared zero page), whose content depends on seed.
func fill(n, seed int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte((i+seed)%255) + 1
	}
	return b
}

// median is the median of v (mean of the middle two for even lengths); v
// is not modified.
func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	m := len(s) / 2
	if len(s)%2 == 0 {
		return (s[m-1] + s[m]) / 2
	}
	return s[m]
}
