package scaling

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestSweepInterleavesAndKeepsRows checks the order of the runs (every
// count once per round) and that a failing run keeps what was measured.
func TestSweepInterleavesAndKeepsRows(t *testing.T) {
	var order []int
	var seen int
	ms, err := Sweep([]int{1, 2, 4}, 2, func(np, r int) (Measurement, error) {
		order = append(order, np)
		if np == 4 && r == 1 {
			return Measurement{}, errors.New("rank 3 died")
		}
		return Measurement{T: float64(np), CommS: math.NaN()}, nil
	}, func(Measurement) error { seen++; return nil })
	if want := []int{1, 2, 4, 1, 2, 4}; len(order) != len(want) || order[3] != 1 || order[5] != 4 {
		t.Errorf("run order %v, want %v", order, want)
	}
	if err == nil || !strings.Contains(err.Error(), "-np 4 (repeat 2 of 2): rank 3 died") {
		t.Errorf("error %v", err)
	}
	if len(ms) != 5 || seen != 5 || ms[4].NP != 2 || ms[4].Repeat != 1 {
		t.Errorf("kept %d measurements (%d passed on): %+v", len(ms), seen, ms)
	}
}

// TestBuildTable checks the table's numbers against the section 4.3
// definitions worked by hand: C1 = median T(1) = 10 s; N = 2: median 6 s,
// C1/N 5, estimate 1, speedup 10/6, efficiency 10/12, budget 5; N = 4:
// 7 s, estimate 4.5, slower than N = 2, so adding processes stops paying
// at 4 and the fastest count is 2.
func TestBuildTable(t *testing.T) {
	var ms []Measurement
	add := func(np int, comm float64, ts ...float64) {
		for i, v := range ts {
			ms = append(ms, Measurement{NP: np, Repeat: i, T: v, CommS: comm})
		}
	}
	add(1, 0, 11, 9, 10)
	add(2, 0.8, 6.2, 5.8, 6)
	add(4, math.NaN(), 7, 7.5, 6.9)
	tb, err := Build(ms, 0)
	if err != nil {
		t.Fatal(err)
	}
	if tb.C1S != 10 || len(tb.Rows) != 3 || tb.Best != 2 || tb.StopsAt != 4 {
		t.Fatalf("C1 %g, %d rows, best %d, stops %d", tb.C1S, len(tb.Rows), tb.Best, tb.StopsAt)
	}
	r2, r4 := tb.Rows[1], tb.Rows[2]
	if !near(r2.TotalS, 6) || !near(r2.ComputeS, 5) || !near(r2.CommS, 1) || !near(r2.Speedup, 10.0/6) ||
		!near(r2.Efficiency, 10.0/12) || !near(r2.BudgetS, 5) || r2.Min != 5.8 || r2.Max != 6.2 || r2.MeasuredCommS != 0.8 {
		t.Errorf("N=2 row %+v", r2)
	}
	if !near(r4.TotalS, 7) || !near(r4.CommS, 4.5) || !math.IsNaN(r4.MeasuredCommS) {
		t.Errorf("N=4 row %+v", r4)
	}
	var b strings.Builder
	if err := tb.Print(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "stops paying at N = 4") || !strings.Contains(b.String(), "5.8..6.2") {
		t.Errorf("printed table:\n%s", b.String())
	}
	if tb, err := Build(ms[3:], 12); err != nil || tb.C1S != 12 || tb.Rows[0].Nodes != 2 {
		t.Errorf("given C1: %+v %v", tb, err)
	}
	if _, err := Build(ms[3:], 0); err == nil {
		t.Error("table without T(1) or --c1 built")
	}
}
