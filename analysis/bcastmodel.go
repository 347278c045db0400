package analysis

import (
	"fmt"
	"math"
	"sort"

	"github.com/mpbench/mpbench/result"
)

// Interp returns the Bcast time in usec for bytes on procs ranks
// interpolated between the two measured sizes around it, linearly in
// log(time) against log(size) (exact at a measured size), and whether it
// could: false when procs ranks were not measured or bytes lies outside
// the measured sizes.
func (bt BcastTimes) Interp(procs int, bytes int64) (float64, bool) {
	pts := bt.byProcs[procs]
	if len(pts) == 0 || bytes < pts[0].Bytes || bytes > pts[len(pts)-1].Bytes {
		return math.NaN(), false
	}
	i := sort.Search(len(pts), func(i int) bool { return pts[i].Bytes >= bytes })
	if pts[i].Bytes == bytes {
		return pts[i].Usec, true
	}
	lo, hi := pts[i-1], pts[i]
	w := math.Log(float64(bytes)/float64(lo.Bytes)) / math.Log(float64(hi.Bytes)/float64(lo.Bytes))
	return math.Exp(math.Log(lo.Usec) + w*math.Log(hi.Usec/lo.Usec)), true
}

// Procs returns the rank counts with measured Bcast times, ascending.
func (bt BcastTimes) Procs() []int {
	var out []int
	for p := range bt.byProcs {
		out = append(out, p)
	}
	sort.Ints(out)
	return out
}

// BcastModel predicts Bcast times from a Hockney fit of point-to-point
// times (a message of n bytes costs alpha + n beta) and a cost model that
// picks the broadcast algorithm for the rank count and size and applies
// its formula: mpbench predict passes coll's decision table (modelled on
// MPICH's) and the cost formulas coll keeps with each Bcast algorithm
// (coll.Cost). It is a model: it knows neither the MPI library's real
// algorithm nor contention beyond the formula.
type BcastModel struct {
	Fit  Fit    // alpha = Fit.AlphaUsec, beta = Fit.BetaInv (usec, usec/byte)
	From string // what the fit was made from, e.g. "PingPong, 2 ranks"
	// Cost is the modelled time in usec of a Bcast of bytes on p >= 2
	// ranks whose messages cost alpha + n beta usec, and the algorithm
	// whose formula gave it, e.g. "pipeline:seg=16384"; an error where it
	// has no formula. nil is an error of Usec.
	Cost func(p int, bytes int64, alpha, beta float64) (usec float64, alg string, err error)
}

// Usec returns the modelled Bcast time in usec of bytes on p ranks, and
// the algorithm whose formula gave it: 0 and "none" on one rank, else
// Cost's. Error when the model has no Cost or Cost has no formula for the
// algorithm it picks: never another algorithm's time.
func (m BcastModel) Usec(p int, bytes int64) (float64, string, error) {
	if p <= 1 {
		return 0, "none", nil
	}
	if m.Cost == nil {
		return math.NaN(), "", fmt.Errorf("the Bcast model has no cost formulas (BcastModel.Cost)")
	}
	return m.Cost(p, bytes, m.Fit.AlphaUsec, m.Fit.BetaInv)
}

// FitBcastModel fits the point-to-point model of a BcastModel to rows:
// the PingPong rows (t = alpha + n beta, half the round trip) when there
// are any, else the Bcast rows on 2 ranks (one message). Error when
// neither gives a fit.
func FitBcastModel(rows []result.Row) (BcastModel, error) {
	var pp, b2 []Point
	for i := range rows {
		r := &rows[i]
		if r.Bytes <= 0 || !(r.Time() > 0) || r.Multi != result.MultiNone {
			continue
		}
		switch n := normBenchmark(r.Benchmark); {
		case n == "pingpong" || n == "osulatency":
			pp = append(pp, Point{r.Bytes, r.Time()})
		case (n == "bcast" || n == "osubcast") && r.Processes == 2:
			b2 = append(b2, Point{r.Bytes, r.Time()})
		}
	}
	for _, src := range []struct {
		pts  []Point
		from string
	}{{pp, "PingPong"}, {b2, "Bcast on 2 ranks"}} {
		if len(src.pts) == 0 {
			continue
		}
		f, err := FitHockney(src.pts, FitOptions{})
		if err == nil && f.AlphaUsec >= 0 && f.BetaInv > 0 {
			return BcastModel{Fit: f, From: src.from}, nil
		}
	}
	return BcastModel{}, fmt.Errorf("no PingPong rows and no Bcast rows on 2 ranks to fit the Hockney model to (need sizes > 0 with a positive time)")
}

// BcastEstimate is one Bcast time used in a prediction and where it came
// from.
type BcastEstimate struct {
	Procs  int
	Bytes  int64
	Usec   float64
	Source string // "measured", "interpolated", "model (<algorithm>)" or "measured at <S> B + model (<algorithm>)"
}

// BcastEstimator gives Bcast times from measured tables where it can and
// from a model elsewhere.
type BcastEstimator struct {
	Times BcastTimes
	Model *BcastModel // nil: measured and interpolated times only
}

// Estimate returns the Bcast time of bytes on procs ranks: 0 on one rank;
// the measured time, or one interpolated on a log scale between measured
// sizes (Interp); else the model's, anchored past the largest size
// measured on procs ranks to the time measured there (that time plus the
// model's growth from it, source "measured at S B + model (alg)"). Error
// when neither applies.
func (e BcastEstimator) Estimate(procs int, bytes int64) (BcastEstimate, error) {
	est := BcastEstimate{Procs: procs, Bytes: bytes}
	if procs <= 1 {
		est.Source = "none (1 rank)"
		return est, nil
	}
	if u, ok := e.Times.Interp(procs, bytes); ok {
		est.Usec, est.Source = u, "interpolated"
		if pts := e.Times.byProcs[procs]; pts[sort.Search(len(pts), func(i int) bool { return pts[i].Bytes >= bytes })].Bytes == bytes {
			est.Source = "measured"
		}
		return est, nil
	}
	if e.Model == nil {
		measured := "no Bcast measured on %d ranks"
		if pts := e.Times.byProcs[procs]; len(pts) > 0 {
			measured = fmt.Sprintf("Bcast on %%d ranks measured from %d to %d bytes only", pts[0].Bytes, pts[len(pts)-1].Bytes)
		}
		return est, fmt.Errorf(measured+", not around %d bytes, and no PingPong to fit a model on; give files with a Bcast on %d ranks up to %d bytes, or a PingPong (IMB PingPong, osu_latency) for the model", procs, bytes, procs, bytes)
	}
	u, alg, err := e.Model.Usec(procs, bytes)
	if err != nil {
		return est, fmt.Errorf("no Bcast measured on %d ranks around %d bytes, and the model cannot estimate it: %w", procs, bytes, err)
	}
	est.Usec, est.Source = u, "model ("+alg+")"
	if pts := e.Times.byProcs[procs]; len(pts) > 0 && bytes > pts[len(pts)-1].Bytes {
		// Past the largest size measured on procs ranks: the measured
		// time there plus the model's growth from it, so that a larger
		// block never costs less than the largest one measured.
		last := pts[len(pts)-1]
		if ul, _, err := e.Model.Usec(procs, last.Bytes); err == nil {
			est.Usec = last.Usec + max(0, u-ul)
			est.Source = fmt.Sprintf("measured at %d B + model (%s)", last.Bytes, alg)
		}
	}
	return est, nil
}

// MediumFromABG takes the switched/shared verdict for the matrix product's
// simultaneous Bcasts from the ABG classification of rows
// (ClassifyScaling of ABGTable): at the largest size classified, the
// majority of the benchmarks' verdicts between switch-like and
// shared-medium-like. The evidence names the votes. Error when rows hold
// no series to classify, or the verdicts tie.
func MediumFromABG(rows []result.Row) (Medium, string, error) {
	abg, _ := ABGTable(rows, -1)
	sc := ClassifyScaling(abg)
	var top int64 = -1
	for _, s := range sc {
		top = max(top, s.Bytes)
	}
	sw, sh := 0, 0
	for _, s := range sc {
		if s.Bytes != top {
			continue
		}
		switch s.Class {
		case SwitchLike:
			sw++
		case SharedMedium:
			sh++
		}
	}
	ev := fmt.Sprintf("ABG at %d B: %d benchmarks switch-like, %d shared-medium-like", top, sw, sh)
	switch {
	case top < 0:
		return Switched, "", fmt.Errorf("no benchmark with ABG at several process counts to classify the network by (run Multi-PingPong, Sendrecv or Exchange at 2 or more process counts)")
	case sw > sh:
		return Switched, ev, nil
	case sh > sw:
		return Shared, ev, nil
	}
	return Switched, ev, fmt.Errorf("the network's class is undecided (%s)", ev)
}
