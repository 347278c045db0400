package matmul

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/app"
	"github.com/mpbench/mpbench/app/hostblas"
	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
)

// naive is the textbook triple loop, independent of BLAS.
func naive(n int, square bool) []float64 {
	out := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for k := 0; k < n; k++ {
				b := ElementB(k, j)
				if square {
					b = ElementA(k, j)
				}
				s += ElementA(i, k) * b
			}
			out[i*n+j] = s
		}
	}
	return out
}

func TestSerialMatchesTripleLoop(t *testing.T) {
	for _, sq := range []bool{false, true} {
		if e := MaxRelError(Serial(37, sq), naive(37, sq)); e > 1e-14 {
			t.Errorf("square=%v: serial Gemm differs from the triple loop by %g", sq, e)
		}
	}
}

func TestPartCoversOrder(t *testing.T) {
	for _, tc := range []struct{ n, parts int }{{10, 3}, {1000, 16}, {7, 7}, {2000, 4}} {
		prev := 0
		for k := 0; k < tc.parts; k++ {
			lo, hi := Part(tc.n, tc.parts, k)
			if lo != prev || hi-lo < tc.n/tc.parts || hi-lo > tc.n/tc.parts+1 {
				t.Fatalf("Part(%d, %d, %d) = [%d, %d), previous end %d", tc.n, tc.parts, k, lo, hi, prev)
			}
			prev = hi
		}
		if prev != tc.n {
			t.Fatalf("parts of %d in %d end at %d", tc.n, tc.parts, prev)
		}
	}
}

// TestDistributedProduct runs the product on grids 1x1, 1x2, 1x3, 2x2,
// 2x3 and 2x4 (orders not divisible by the grid included) and checks the
// result, the Bcast count and the time split on every rank, with and
// without the barriers of Sync (whose time is waiting, not communication),
// and with the untimed warm-up pass (p + q Bcasts, none counted in the
// timed calls) or without it (Cold).
func TestDistributedProduct(t *testing.T) {
	for _, tc := range []struct {
		np, n              int
		square, sync, cold bool
	}{{1, 20, false, false, false}, {2, 33, false, true, false}, {2, 33, false, true, true}, {3, 31, true, false, true},
		{4, 40, true, true, false}, {6, 29, false, false, false}, {8, 50, false, true, true}} {
		reps := make([]*app.Report, tc.np)
		calls := make([]int64, tc.np)
		commtest.Run(t, tc.np, comm.Config{}, func(c comm.Comm) error {
			ac := app.NewComm(c, coll.Algorithms{})
			rep, err := Run(ac, Config{N: tc.n, Square: tc.square, Verify: true, Sync: tc.sync, Cold: tc.cold})
			reps[c.Rank()], calls[c.Rank()] = rep, ac.CommCalls()
			return err
		})
		rep := reps[0]
		if !rep.Verified {
			t.Errorf("np %d n %d: not verified: %s", tc.np, tc.n, rep.Verification)
		}
		if len(rep.Ranks) != tc.np {
			t.Fatalf("np %d: %d rank times", tc.np, len(rep.Ranks))
		}
		p, q := analysis.Grid(tc.np)
		warm := fmt.Sprintf("Warm-up         = %24s", fmt.Sprintf("%d untimed Bcasts", p+q))
		if tc.cold {
			warm = "Warm-up         =               none (cold)"
		}
		if !slices.Contains(rep.Notes, warm) {
			t.Errorf("np %d cold %v: notes %q lack %q", tc.np, tc.cold, rep.Notes, warm)
		}
		for r, ct := range calls {
			if ct != int64(p+q) {
				t.Errorf("np %d rank %d: %d timed calls, want %d Bcasts (%d x %d grid)", tc.np, r, ct, p+q, p, q)
			}
		}
		for r, rt := range rep.Ranks {
			if rt.Total <= 0 || rt.Compute <= 0 || rt.Comm < 0 || rt.Compute+rt.Comm+rt.Wait > rt.Total*1.0001 {
				t.Errorf("np %d rank %d: times %+v inconsistent", tc.np, r, rt)
			}
			if (rt.Wait > 0) != (tc.sync && tc.np > 1) {
				t.Errorf("np %d sync %v rank %d: wait %g", tc.np, tc.sync, r, rt.Wait)
			}
		}
		// The sum over calls of the slowest rank's time is at least the
		// largest sum over one rank, and at most the sum over all ranks.
		var all float64
		for _, rt := range rep.Ranks {
			all += rt.Comm
		}
		if mx := rep.Max().Comm; !(rep.CommCallMax >= mx*(1-1e-12)) || rep.CommCallMax > all*(1+1e-12) {
			t.Errorf("np %d: per-call maxima sum to %g s; want between the largest rank's %g s and all ranks' %g s", tc.np, rep.CommCallMax, mx, all)
		}
		// With Sync, every Bcast step's Align barrier: the slowest
		// rank's time in each, summed, is positive and part of the
		// ranks' waiting; without it there is none.
		var waits float64
		for _, rt := range rep.Ranks {
			waits += rt.Wait
		}
		v, inRow := rep.Row().Extra["align_calls_max_s"]
		if tc.sync && tc.np > 1 && (!(rep.AlignCallMax > 0) || rep.AlignCallMax > waits*(1+1e-12) || v != rep.AlignCallMax) ||
			!(tc.sync && tc.np > 1) && (!math.IsNaN(rep.AlignCallMax) || inRow) {
			t.Errorf("np %d sync %v: Align maxima sum to %g s (row %g, %v), ranks waited %g s", tc.np, tc.sync, rep.AlignCallMax, v, inRow, waits)
		}
		if want := 2 * math.Pow(float64(tc.n), 3) / rep.Max().Total / 1e6; math.Abs(rep.Mops-want) > 1e-9*want {
			t.Errorf("Mop/s %g, want %g", rep.Mops, want)
		}
	}
}

func TestBadOrders(t *testing.T) {
	commtest.Run(t, 4, comm.Config{}, func(c comm.Comm) error {
		ac := app.NewComm(c, coll.Algorithms{})
		if _, err := Run(ac, Config{N: 1}); err == nil {
			t.Error("n = 1 on a 2 x 2 grid accepted")
		}
		if _, err := Run(ac, Config{N: MaxVerify + 1, Verify: true}); err == nil {
			t.Error("verification above MaxVerify accepted")
		}
		return nil
	})
}

// TestDistributedProductOpenBLAS runs the product with the host's OpenBLAS
// in the local products on grids 1x1, 1x2 and 2x2 and checks it against
// the serial product (gonum's Dgemm, itself checked against the triple
// loop by TestSerialMatchesTripleLoop). Hosts without
// OpenBLAS skip it; CI installs libopenblas0 and sets
// MPBENCH_REQUIRE_OPENBLAS=1, which makes a missing library a failure.
func TestDistributedProductOpenBLAS(t *testing.T) {
	info, err := hostblas.Use(hostblas.OpenBLAS, nil, 1)
	if err != nil {
		if os.Getenv("MPBENCH_REQUIRE_OPENBLAS") == "1" {
			t.Fatalf("MPBENCH_REQUIRE_OPENBLAS=1 but %v", err)
		}
		t.Skipf("no OpenBLAS on this host: %v", err)
	}
	defer hostblas.Use(hostblas.Gonum, nil, 1)
	desc := info.String()
	for _, tc := range []struct{ np, n int }{{1, 45}, {2, 33}, {4, 61}} {
		reps := make([]*app.Report, tc.np)
		commtest.Run(t, tc.np, comm.Config{}, func(c comm.Comm) error {
			ac := app.NewComm(c, coll.Algorithms{})
			rep, err := Run(ac, Config{N: tc.n, Verify: true, BLAS: desc})
			reps[c.Rank()] = rep
			return err
		})
		if !reps[0].Verified {
			t.Errorf("np %d n %d with %s: not verified: %s", tc.np, tc.n, desc, reps[0].Verification)
		}
		if line := "Local products  = " + desc; !slices.Contains(reps[0].Notes, line) {
			t.Errorf("np %d: notes %q lack %q", tc.np, reps[0].Notes, line)
		}
	}
}

// TestSyncClosesEveryStep checks the barriers of Sync on a 2 x 3 grid:
// every Bcast of the timed part lies between two barriers of the whole
// grid before it and one after it, so no rank computes while a Bcast of
// its step is in flight and the Bcast starts from ranks that left a
// barrier together; without Sync there is no barrier.
func TestSyncClosesEveryStep(t *testing.T) {
	for _, sync := range []bool{true, false} {
		var spans []app.Span
		commtest.Run(t, 6, comm.Config{}, func(c comm.Comm) error {
			ac := app.NewComm(c, coll.Algorithms{})
			ac.StartTrace()
			if _, err := Run(ac, Config{N: 36, Sync: sync}); err != nil {
				return err
			}
			s, err := app.GatherTrace(ac)
			if c.Rank() == 0 {
				spans = s
			}
			return err
		})
		ops := map[int][]string{}
		for _, s := range spans {
			ops[s.Rank] = append(ops[s.Rank], s.Op)
		}
		for r := range 6 {
			seq := strings.Join(ops[r], " ")
			bcasts, syncs, aligns := strings.Count(seq, "Bcast"), strings.Count(seq, "Sync"), strings.Count(seq, "Align")
			if bcasts != 5 { // 3 row Bcasts and 2 column Bcasts
				t.Fatalf("sync %v rank %d: %d Bcasts in %q, want 5", sync, r, bcasts, seq)
			}
			if !sync && syncs+aligns != 0 || sync && (syncs != 2*bcasts || aligns != bcasts || strings.Count(seq, "Sync Align Bcast Sync") != bcasts) {
				t.Errorf("sync %v rank %d: spans %q, want every Bcast after a Sync and an Align and before a Sync, only with sync", sync, r, seq)
			}
		}
	}
}

// TestBytes checks the memory formula on a 2 x 2 grid, n = 10: per rank a
// 5 x 5 block of A, B and C (75 float64), an A receive buffer of 5 x 6 and
// a B one of 6 x 5 (60): 540 over the 4 ranks, 4320 bytes; A x A keeps
// no B (440); verification adds rank 0's gathered C, its copy and the
// serial A, B, C (500, or 400 for A x A).
func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want int64
	}{
		{Config{N: 10}, 8 * 540},
		{Config{N: 10, Square: true}, 8 * 440},
		{Config{N: 10, Verify: true}, 8 * 1040},
		{Config{N: 10, Square: true, Verify: true}, 8 * 840},
	} {
		if got := Bytes(tc.cfg, 4); got != tc.want {
			t.Errorf("%+v: %d bytes, want %d", tc.cfg, got, tc.want)
		}
	}
	// n = 100000 on 2 ranks, the order a reviewer ran out of memory with:
	// 5 n^2 + 3 n float64, about 373 GiB.
	if got := Bytes(Config{N: 100000}, 2); got != 8*(5*100000*100000+3*100000) {
		t.Errorf("n = 100000, np 2: %d bytes", got)
	}
}

// TestUnverifiedSaysWhy: a product of an order that could be verified but
// was not (Verify false: mpbench app matmul --no-verify) names the option,
// not the order limit.
func TestUnverifiedSaysWhy(t *testing.T) {
	var rep *app.Report
	commtest.Run(t, 1, comm.Config{}, func(c comm.Comm) error {
		var err error
		rep, err = Run(app.NewComm(c, coll.Algorithms{}), Config{N: 20})
		return err
	})
	if rep.Verification != "none (skipped: --no-verify)" || !rep.Unchecked {
		t.Errorf("verification %q, unchecked %v", rep.Verification, rep.Unchecked)
	}
}
