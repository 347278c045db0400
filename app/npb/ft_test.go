package npb

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/app"
	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
)

func runFT(t *testing.T, np int, cl FTClass) (*app.Report, string) {
	t.Helper()
	reps := make([]*app.Report, np)
	var progress bytes.Buffer
	commtest.Run(t, np, comm.Config{}, func(c comm.Comm) error {
		rep, err := FT(app.NewComm(c, coll.Algorithms{}), cl, &progress)
		reps[c.Rank()] = rep
		return err
	})
	return reps[0], progress.String()
}

// TestFTClassSVerifies runs class S on 1 and 4 ranks against NPB's
// checksums and checks the progress lines NPB prints.
func TestFTClassSVerifies(t *testing.T) {
	cl, _ := LookupFT("S")
	for _, np := range []int{1, 4} {
		rep, progress := runFT(t, np, cl)
		if !rep.Verified {
			t.Errorf("FT S on %d ranks: %s\n%s", np, rep.Verification, progress)
		}
		if n := strings.Count(progress, "Checksum ="); n != cl.Iter {
			t.Errorf("FT S on %d ranks: %d checksum lines, want %d", np, n, cl.Iter)
		}
		if !strings.Contains(progress, " T =    1     Checksum =    5.546087004") {
			t.Errorf("first checksum line not NPB's:\n%s", progress)
		}
		if mx := rep.Max(); np > 1 && !(mx.Comm > 0) {
			t.Errorf("FT S on %d ranks: no communication time measured: %+v", np, mx)
		}
	}
}

// TestFTVerifyTolerance checks ft.f's verification rule: relative error
// 1e-12 per iteration, NaN and missing iterations failing.
func TestFTVerifyTolerance(t *testing.T) {
	cl, _ := LookupFT("S")
	near := append([]complex128(nil), cl.Sums...)
	far := append([]complex128(nil), cl.Sums...)
	near[5] *= complex(1+5e-13, 0)
	far[5] *= complex(1+2e-12, 0)
	if ok, e := FTVerify(near, cl.Sums); !ok || e < 4e-13 || e > 6e-13 {
		t.Errorf("5e-13 off: verified %v, error %g", ok, e)
	}
	if ok, e := FTVerify(far, cl.Sums); ok || e < 1.9e-12 {
		t.Errorf("2e-12 off: verified %v, error %g", ok, e)
	}
	far[5] = complex(math.NaN(), 0)
	if ok, _ := FTVerify(far, cl.Sums); ok {
		t.Error("NaN checksum verified")
	}
	if ok, _ := FTVerify(near[:5], cl.Sums); ok {
		t.Error("5 of 6 iterations verified")
	}
}

// TestFTLayoutLargeClasses checks FT's index arithmetic for the grids of
// classes D (2048x1024x1024 = 2^31 points) and E (4096x2048x2048 = 2^34),
// which overflow 32-bit indices, split over 1 to 1024 ranks: every rank's
// points, offsets and Alltoall blocks add up to the grid, and the last
// index of each layout is the last point.
func TestFTLayoutLargeClasses(t *testing.T) {
	for _, g := range [][3]int64{{2048, 1024, 1024}, {4096, 2048, 2048}} {
		total := g[0] * g[1] * g[2]
		for np := int64(1); np <= 1024; np *= 2 {
			for _, rank := range []int64{0, np - 1} {
				l, err := newFTLayout(g[0], g[1], g[2], np, rank)
				if err != nil {
					t.Fatal(err)
				}
				if l.points()*np != total || l.block()*np != l.points() {
					t.Fatalf("%v on %d ranks: %d points per rank, %d per block, grid %d", g, np, l.points(), l.block(), total)
				}
				if last := l.at1(l.nx-1, l.ny-1, l.nzl-1); last != l.points()-1 {
					t.Fatalf("%v on %d ranks: last layout-1 index %d, want %d", g, np, last, l.points()-1)
				}
				if last := l.at2(l.nx-1, l.nyl-1, l.nz-1); last != l.points()-1 {
					t.Fatalf("%v on %d ranks: last layout-2 index %d, want %d", g, np, last, l.points()-1)
				}
				if last := l.atBlock(np-1, l.nx-1, l.nyl-1, l.nzl-1); last != l.points()-1 {
					t.Fatalf("%v on %d ranks: last Alltoall index %d, want %d", g, np, last, l.points()-1)
				}
			}
			// The last rank's planes end at nz; the seed jump to its last
			// plane needs 2 nx ny z, past 2^31.
			if l, _ := newFTLayout(g[0], g[1], g[2], np, np-1); l.z0()+l.nzl != g[2] || 2*g[0]*g[1]*(g[2]-1) <= 1<<31 {
				t.Fatalf("%v on %d ranks: planes end at %d", g, np, l.z0()+l.nzl)
			}
		}
		if got := FTBytes(g[0], g[1], g[2], 1); got != total*72 {
			t.Errorf("%v: FTBytes %d, want %d", g, got, total*72)
		}
	}
	if _, err := newFTLayout(64, 64, 64, 3, 0); err == nil {
		t.Error("3 ranks accepted for a 64^3 grid")
	}
}
