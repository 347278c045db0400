package analysis

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/result"
)

var appNodes = []int{1, 2, 4, 8, 16}

// appRuns rebuilds the run times T(N) = comm + C1/N of one row of
// thesis-apps-comm-latency.csv (the table prints T(N) - C1/N).
func appRuns(t *testing.T, ref refTable, i int) (c1 float64, runs []AppRun, comm map[int]float64) {
	c1, comm = ref.must(t, i, "C1_s"), map[int]float64{}
	for _, n := range appNodes {
		if v, ok := ref.num(t, i, fmt.Sprintf("N%d", n)); ok {
			runs = append(runs, AppRun{n, v + c1/float64(n)})
			comm[n] = v
		}
	}
	return c1, runs, comm
}

// TestAppDecompositionStudy decomposes the measured runs of tables
// 4.18-4.22 and checks the thesis's readings of them.
func TestAppDecompositionStudy(t *testing.T) {
	ref := readRef(t, "thesis-apps-comm-latency.csv")
	seen := 0
	for i := range ref.recs {
		app, net := ref.str(t, i, "app"), ref.str(t, i, "network")
		if strings.Contains(app, "predicted") {
			continue
		}
		c1, runs, comm := appRuns(t, ref, i)
		sh, err := Decompose(c1, runs)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sh {
			if math.Abs(s.CommS-comm[s.Nodes]) > 1e-9*math.Max(1, s.TotalS) || math.Abs(s.ComputeS+s.CommS-s.TotalS) > 1e-9*s.TotalS ||
				math.Abs(s.CommShare-s.CommS/s.TotalS) > 1e-12 {
				t.Errorf("%s %s N=%d: %+v", app, net, s.Nodes, s)
			}
		}
		seen++
		if app != "gromacs_dppc" {
			continue
		}
		g := map[int]AppShare{}
		for _, s := range sh {
			g[s.Nodes] = s
		}
		switch net {
		case "hub10":
			// "with 16 nodes on the hub the run takes 60 times the one-node time"
			if r := g[16].TotalS / c1; math.Round(r) != 60 {
				t.Errorf("gromacs_dppc hub 16 nodes: %.2f x the one-node time, thesis says 60", r)
			}
			// "triples from 2 to 4 nodes and then doubles at 8 and 16"
			for n, want := range map[int]float64{4: 3, 8: 2, 16: 2} {
				if math.Abs(g[n].CommGrowth-want) > 0.1*want {
					t.Errorf("hub N=%d: communication grows %.2fx, thesis %gx", n, g[n].CommGrowth, want)
				}
			}
		case "switch100", "switch10":
			// "doubles from 2 to 4 nodes and stays constant at 4, 8 and
			// 16" (switch10 grows 1.13x from 4 to 8: "about").
			for n, want := range map[int]float64{4: 2, 8: 1, 16: 1} {
				if math.Abs(g[n].CommGrowth-want) > 0.15*want {
					t.Errorf("%s N=%d: communication grows %.2fx, thesis %gx", net, n, g[n].CommGrowth, want)
				}
			}
		}
		// gromacs_dppc on 16 nodes spends most of its time communicating
		// on every network, and on the hub runs slower than on one node.
		if g[16].CommShare < 0.5 || (net == "hub10" && g[16].Speedup >= 1) {
			t.Errorf("%s 16 nodes: share %.2f, speedup %.2f", net, g[16].CommShare, g[16].Speedup)
		}
	}
	if seen != 19 {
		t.Errorf("decomposed %d rows, table has 19 measured rows", seen)
	}
	if _, err := Decompose(0, nil); err == nil {
		t.Error("C1 = 0 accepted")
	}
	if _, err := Decompose(1, []AppRun{{0, 1}}); err == nil {
		t.Error("0 nodes accepted")
	}
}

// TestMatmulPredictionWifi reproduces the wifi row of table 4.23 from the
// Bcast times of table 4.24 with expressions 4.4 and 4.5 (shared medium),
// for the 1000 x 1000 double-precision matrix of section 4.3.3.
func TestMatmulPredictionWifi(t *testing.T) {
	bt := NewBcastTimes(bcastRows(t))
	ref := readRef(t, "thesis-apps-comm-latency.csv")
	const matrix = 1000 * 1000 * 8
	rows := 0
	for i := range ref.recs {
		if ref.str(t, i, "app") != "matmul_1000_predicted_from_bcast" || ref.str(t, i, "network") != "wifi54" {
			continue
		}
		rows++
		for _, n := range appNodes[1:] {
			want := ref.must(t, i, fmt.Sprintf("N%d", n))
			pr, err := PredictMatmulComm(matrix, n, Shared, bt)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(pr.TotalS-want)/want > 0.005 {
				t.Errorf("N=%d (%dx%d, %d B blocks): %.3f s, table 4.23 %.1f", n, pr.P, pr.Q, pr.BlockBytes, pr.TotalS, want)
			}
		}
	}
	if rows != 1 {
		t.Fatalf("found %d wifi prediction rows", rows)
	}
	// The 4-rank Bcast was measured, the 8-rank one was not.
	if _, err := PredictMatmulComm(matrix, 64, Shared, bt); err == nil || !strings.Contains(err.Error(), "8 ranks") {
		t.Errorf("64 nodes need Bcast on 8 ranks: %v", err)
	}
}

func TestMatmulSwitchedAndGrid(t *testing.T) {
	for n, want := range map[int][2]int{1: {1, 1}, 2: {1, 2}, 4: {2, 2}, 7: {1, 7}, 8: {2, 4}, 12: {3, 4}, 16: {4, 4}} {
		if p, q := Grid(n); p != want[0] || q != want[1] {
			t.Errorf("Grid(%d) = %dx%d, want %dx%d", n, p, q, want[0], want[1])
		}
	}
	// Bcast: 2 ranks 100 us, 4 ranks 200 us for 1000 B, proportional to size.
	var rows []result.Row
	for procs, tm := range map[int]float64{2: 100, 4: 200} {
		r := result.NewRow("Bcast", procs, 1000)
		r.TMax = tm
		rows = append(rows, r)
	}
	bt := NewBcastTimes(rows)
	// 8 nodes = 2 x 4, blocks of 500 B: switched 4 x Bcast_4 + 2 x Bcast_2
	// = 4 x 100 + 2 x 50 us; shared multiplies each by the other side.
	sw, err := PredictMatmulComm(4000, 8, Switched, bt)
	if err != nil {
		t.Fatal(err)
	}
	sh, _ := PredictMatmulComm(4000, 8, Shared, bt)
	if sw.RowsUsec != 400 || sw.ColsUsec != 100 || math.Abs(sw.TotalS-500e-6) > 1e-15 || sh.RowsUsec != 800 || sh.ColsUsec != 400 {
		t.Errorf("switched %+v, shared %+v", sw, sh)
	}
	one, _ := PredictMatmulComm(4000, 1, Switched, bt)
	if one.TotalS != 0 {
		t.Errorf("one node communicates %g s", one.TotalS)
	}
}

// TestPayoffMatmulStudy reads the 1000 x 1000 matrix product rows of table
// 4.22 as section 4.3.3 does: on the 100 Mbit/s switch the run time falls
// at every node count up to 16; on every other network two nodes are
// already slower than one (T(1) = C1).
func TestPayoffMatmulStudy(t *testing.T) {
	ref := readRef(t, "thesis-apps-comm-latency.csv")
	seen := 0
	for i := range ref.recs {
		if ref.str(t, i, "app") != "matmul_1000_measured" {
			continue
		}
		net := ref.str(t, i, "network")
		c1, runs, _ := appRuns(t, ref, i)
		sh, err := Decompose(c1, append(runs, AppRun{1, c1}))
		if err != nil {
			t.Fatal(err)
		}
		best, stops := Payoff(sh)
		wantBest, wantStops := 1, 2
		if net == "switch100" {
			wantBest, wantStops = 16, 0
		}
		if best != wantBest || stops != wantStops {
			t.Errorf("%s: fastest on %d nodes, stops paying at %d; want %d and %d", net, best, stops, wantBest, wantStops)
		}
		for _, s := range sh {
			if math.Abs(s.Efficiency-s.Speedup/float64(s.Nodes)) > 1e-12 || math.Abs(s.BudgetS-(c1-c1/float64(s.Nodes))) > 1e-12 {
				t.Errorf("%s N=%d: efficiency %g, budget %g", net, s.Nodes, s.Efficiency, s.BudgetS)
			}
			// N nodes beat one exactly when the communication stays
			// within the budget of figure 4.87.
			if (s.CommS < s.BudgetS) != (s.TotalS < c1) {
				t.Errorf("%s N=%d: comm %g within budget %g but T %g vs C1 %g", net, s.Nodes, s.CommS, s.BudgetS, s.TotalS, c1)
			}
		}
		seen++
	}
	if seen != 4 {
		t.Errorf("%d matrix-product rows, want 4", seen)
	}
	if b, s := Payoff(nil); b != 0 || s != 0 {
		t.Errorf("Payoff(nil) = %d, %d", b, s)
	}
}
