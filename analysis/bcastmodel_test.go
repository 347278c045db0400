package analysis

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/result"
)

func bcastRow(procs int, bytes int64, usec float64) result.Row {
	r := result.NewRow("Bcast", procs, bytes)
	r.TMax = usec
	return r
}

// TestBcastInterp checks the log-scale interpolation: exact at measured
// sizes, exact between them for a power law (t = c x^0.5 here), and
// refused outside the measured sizes or rank counts.
func TestBcastInterp(t *testing.T) {
	bt := NewBcastTimes([]result.Row{bcastRow(4, 1024, 32), bcastRow(4, 4096, 64), bcastRow(2, 1024, 10)})
	if u, ok := bt.Interp(4, 4096); !ok || u != 64 {
		t.Errorf("at a measured size: %g %v", u, ok)
	}
	if u, ok := bt.Interp(4, 2048); !ok || math.Abs(u-32*math.Sqrt2) > 1e-9 {
		t.Errorf("2048 B between 1024 (32 us) and 4096 (64 us): %g, want %g", u, 32*math.Sqrt2)
	}
	for _, c := range []struct {
		p int
		b int64
	}{{4, 512}, {4, 8192}, {8, 2048}} {
		if _, ok := bt.Interp(c.p, c.b); ok {
			t.Errorf("%d ranks, %d B interpolated", c.p, c.b)
		}
	}
	if p := bt.Procs(); len(p) != 2 || p[0] != 2 || p[1] != 4 {
		t.Errorf("Procs %v", p)
	}
}

// TestBcastTimesMergeRuns checks that rows of one size and rank count from
// several files count as one point with their median time, so that
// interpolation runs between sizes: at 4 KiB the median of 2000, 2500 and
// 3000 us; at 2 KiB the median of 1000 and 1200; between them the
// log-scale interpolation of those two medians. Multi-Bcast rows merge
// the same way.
func TestBcastTimesMergeRuns(t *testing.T) {
	rows := []result.Row{bcastRow(2, 2048, 1000), bcastRow(2, 4096, 3000), bcastRow(2, 4096, 2000), bcastRow(2, 2048, 1200), bcastRow(2, 4096, 2500)}
	bt := NewBcastTimes(rows)
	if u, ok := bt.Interp(2, 4096); !ok || u != 2500 {
		t.Errorf("4096 B from three runs: %g %v, want their median 2500", u, ok)
	}
	if u, ok := bt.Interp(2, 2048); !ok || u != 1100 {
		t.Errorf("2048 B from two runs: %g %v, want their median 1100", u, ok)
	}
	want := math.Exp((math.Log(1100) + math.Log(2500)) / 2)
	if u, ok := bt.Interp(2, 2896); !ok || math.Abs(u-want)/want > 1e-3 {
		t.Errorf("2896 B: %g %v, want %g between the medians", u, ok, want)
	}
	var multi []result.Row
	for _, r := range rows {
		r.Multi, r.Groups = result.MultiWorst, 2
		multi = append(multi, r)
	}
	if u, ok := NewMultiBcastTimes(multi)[2].Interp(2, 4096); !ok || u != 2500 {
		t.Errorf("Multi-Bcast 4096 B from three runs: %g %v, want 2500", u, ok)
	}
}

// binomialCost is a Bcast cost model of the binomial tree alone
// (ceil(log2 p) messages in series), as a caller's model for the tests.
func binomialCost(p int, bytes int64, alpha, beta float64) (float64, string, error) {
	return math.Ceil(math.Log2(float64(p))) * (alpha + float64(bytes)*beta), "binomial", nil
}

// TestBcastModelUsec: the model applies its Cost to the fit's alpha and
// beta; one rank costs nothing; a model without Cost, or whose Cost has
// no formula, is an error, never some algorithm's time.
func TestBcastModelUsec(t *testing.T) {
	fit := Fit{AlphaUsec: 10, BetaInv: 0.01}
	m := BcastModel{Fit: fit, Cost: binomialCost}
	if u, name, err := m.Usec(8, 100); name != "binomial" || math.Abs(u-33) > 1e-9 || err != nil {
		t.Errorf("binomial: %g us by %s (%v), want 33", u, name, err)
	}
	if u, _, err := m.Usec(1, 1<<20); u != 0 || err != nil {
		t.Errorf("one rank: %g %v", u, err)
	}
	none := fmt.Errorf(`no cost formula for the bcast algorithm "ring"`)
	for _, m := range []BcastModel{{Fit: fit}, {Fit: fit, Cost: func(int, int64, float64, float64) (float64, string, error) {
		return math.NaN(), "ring", none
	}}} {
		if u, _, err := m.Usec(8, 100); err == nil {
			t.Errorf("no formula: %g us, want an error", u)
		}
		e := BcastEstimator{Model: &m}
		if got, err := e.Estimate(8, 100); err == nil {
			t.Errorf("no formula: estimated %+v", got)
		}
	}
}

// TestFitBcastModelAndEstimate fits the model to exact PingPong rows and
// checks the estimator's order: measured, interpolated, model.
func TestFitBcastModelAndEstimate(t *testing.T) {
	var rows []result.Row
	for _, b := range []int64{1, 1024, 65536, 1 << 20} {
		r := result.NewRow("PingPong", 2, b)
		r.TMax = 5 + 0.001*float64(b)
		rows = append(rows, r)
	}
	rows = append(rows, bcastRow(2, 1024, 7), bcastRow(2, 4096, 11))
	m, err := FitBcastModel(rows)
	if err != nil || math.Abs(m.Fit.AlphaUsec-5) > 1e-6 || math.Abs(m.Fit.BetaInv-0.001) > 1e-9 || m.From != "PingPong" {
		t.Fatalf("fit %+v %v", m, err)
	}
	m.Cost = binomialCost
	e := BcastEstimator{Times: NewBcastTimes(rows), Model: &m}
	for _, c := range []struct {
		p      int
		b      int64
		source string
		usec   float64
	}{{2, 1024, "measured", 7}, {2, 2048, "interpolated", 7 * math.Pow(11.0/7, 0.5)}, {2, 1 << 20, "measured at 4096 B + model (binomial)", 11 + 0.001*((1<<20)-4096)}, {4, 1 << 20, "model (binomial)", 2 * (5 + 0.001*(1<<20))}, {1, 5, "none (1 rank)", 0}} {
		got, err := e.Estimate(c.p, c.b)
		if err != nil || got.Source != c.source || math.Abs(got.Usec-c.usec) > 1e-6*math.Max(1, c.usec) {
			t.Errorf("%d ranks, %d B: %+v %v; want %s %g", c.p, c.b, got, err, c.source, c.usec)
		}
	}
	if _, err := (BcastEstimator{Times: NewBcastTimes(rows)}).Estimate(4, 100); err == nil {
		t.Error("no model, nothing measured on 4 ranks: estimated anyway")
	}
	if _, err := FitBcastModel(rows[4:5]); err == nil {
		t.Error("one Bcast size fitted")
	}
}

// TestMediumFromABGStudy takes the verdict for the study's networks from
// the ABG of tables 4.5-4.16: switches carry simultaneous Bcasts in
// parallel, hub and wifi serialise them (expression 4.5).
func TestMediumFromABGStudy(t *testing.T) {
	rows, _, _ := abgRows(t)
	for net, want := range map[string]Medium{"switch100": Switched, "switch10": Switched, "hub10": Shared, "wifi54": Shared} {
		var sub []result.Row
		for _, r := range rows {
			if r.File == net {
				sub = append(sub, r)
			}
		}
		got, ev, err := MediumFromABG(sub)
		if err != nil || got != want || !strings.Contains(ev, "ABG at 4194304 B") {
			t.Errorf("%s: %v (%s) %v, want %v", net, got, ev, err, want)
		}
	}
	if _, _, err := MediumFromABG([]result.Row{bcastRow(2, 1024, 7)}); err == nil {
		t.Error("a verdict without ABG series")
	}
}

// TestCallTimeFromSyncAll checks that a row of mpbench run --sync-all is
// read at its t_callmax_usec, plain and Multi-Bcast alike, and a row
// without it at t_max: the 2 MB Multi-Bcast of 2 groups at 1191 us t_max
// and 1740 us per call gives 1740, the 1 MB one without the column 600.
func TestCallTimeFromSyncAll(t *testing.T) {
	aligned := bcastRow(2, 2000000, 1191)
	aligned.Multi, aligned.Groups = result.MultiWorst, 2
	aligned.SetExtra(result.ExtraCallMax, 1740)
	imb := bcastRow(2, 1000000, 600)
	imb.Multi, imb.Groups = result.MultiWorst, 2
	if got := CallTime(&aligned); got != 1740 {
		t.Errorf("CallTime with t_callmax_usec: %g, want 1740", got)
	}
	if got := CallTime(&imb); got != 600 {
		t.Errorf("CallTime without t_callmax_usec: %g, want t_max 600", got)
	}
	rows := []result.Row{aligned, imb}
	mt := NewMultiBcastTimes(rows)
	if u, ok := mt[2].Interp(2, 2000000); !ok || u != 1740 {
		t.Errorf("Multi-Bcast at 2 MB: %g %v, want 1740", u, ok)
	}
	if u, ok := mt[2].Interp(2, 1000000); !ok || u != 600 {
		t.Errorf("Multi-Bcast at 1 MB: %g %v, want 600", u, ok)
	}
	plain := bcastRow(2, 4000000, 1537)
	plain.SetExtra(result.ExtraCallMax, 1550)
	if u, ok := NewBcastTimes([]result.Row{plain}).Interp(2, 4000000); !ok || u != 1550 {
		t.Errorf("Bcast at 4 MB: %g %v, want 1550", u, ok)
	}
	if n := CallTimes(append(rows, plain)); n != 2 {
		t.Errorf("CallTimes: %d rows, want 2", n)
	}
}
