package npb

import (
	"testing"

	"github.com/mpbench/mpbench/app"
	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
)

func runEP(t *testing.T, np int, class string) *app.Report {
	t.Helper()
	cl, err := LookupEP(class)
	if err != nil {
		t.Fatal(err)
	}
	reps := make([]*app.Report, np)
	commtest.Run(t, np, comm.Config{}, func(c comm.Comm) error {
		rep, err := EP(app.NewComm(c, coll.Algorithms{}), cl)
		reps[c.Rank()] = rep
		return err
	})
	return reps[0]
}

// TestEPClassSVerifies checks class S against NPB's sums on 3 ranks (3
// does not divide the 256 batches: the uneven split of ep.f).
func TestEPClassSVerifies(t *testing.T) {
	for _, np := range []int{3} {
		rep := runEP(t, np, "S")
		if !rep.Verified {
			t.Errorf("EP S on %d ranks: %s\n%v", np, rep.Verification, rep.Results)
		}
		if len(rep.Ranks) != np || rep.Mops <= 0 {
			t.Errorf("EP S on %d ranks: %d rank times, %g Mop/s", np, len(rep.Ranks), rep.Mops)
		}
	}
}

func TestEPBatchesCoverAll(t *testing.T) {
	for _, tc := range []struct{ total, np int64 }{{256, 3}, {1 << 20, 1024}, {1 << 28, 7}, {5, 5}} {
		next := int64(0)
		for r := int64(0); r < tc.np; r++ {
			first, count := EPBatches(tc.total, tc.np, r)
			if first != next || count < tc.total/tc.np || count > tc.total/tc.np+1 {
				t.Fatalf("%d batches on %d ranks: rank %d gets [%d, +%d), previous end %d", tc.total, tc.np, r, first, count, next)
			}
			next = first + count
		}
		if next != tc.total {
			t.Fatalf("%d batches on %d ranks end at %d", tc.total, tc.np, next)
		}
	}
}

func TestLookupEP(t *testing.T) {
	if c, err := LookupEP("a"); err != nil || c.M != 28 {
		t.Errorf("class a: %+v %v", c, err)
	}
	if _, err := LookupEP("X"); err == nil {
		t.Error("class X accepted")
	}
}
