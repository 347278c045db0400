package analysis

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Piecewise is a segmented Hockney fit of a size sweep: one line, or two
// or three segments with breaks between them, as MPI libraries switch
// protocol with the size (short/inline, eager, rendezvous; a LogGP-style
// cut, see A. Alexandrov et al., "LogGP", SPAA 1995). Each segment is a
// robust fit of its own (FitRobust): points that disagree with the rest
// of their segment are left out and listed, never bending it.
type Piecewise struct {
	// Single is the one-line fit over all points.
	Single Fit
	// Segments are the fits chosen, in ascending size: Single alone, or
	// two or three segments (see FitPiecewise).
	Segments []Fit
	// Breaks are the smallest sizes of the segments after the first,
	// ascending; nil for one line.
	Breaks []int64
	// Split is true when two or more segments explain the data better
	// than one line (lower BIC); Eager is then the first segment and
	// Rendezvous the last, BreakBytes the smallest size of the last
	// (the rendezvous protocol's start). Without a split they are zero
	// values and BreakBytes is -1.
	Split      bool
	Eager      Fit
	Rendezvous Fit
	BreakBytes int64
	// BICSingle and BICSplit are the Bayesian information criteria
	// n ln(SSE/n) + k ln n of the one-line model (k = 2 + its left-out
	// points) and of the best model with breaks (k = 3 per segment - 1,
	// plus the left-out points: each is fitted exactly, a parameter of
	// its own); lower is better. BICSplit is NaN when no break was
	// possible.
	BICSingle, BICSplit float64
}

// Outliers returns the points left out by the chosen segments, in
// ascending size.
func (p Piecewise) Outliers() []Point {
	var out []Point
	for _, f := range p.Segments {
		out = append(out, f.Outliers...)
	}
	return out
}

// SegmentNames names the chosen segments as fit tables do: "single";
// "eager", "rendezvous"; "short", "eager", "rendezvous" (MPI libraries'
// short/inline, eager and rendezvous protocols).
func (p Piecewise) SegmentNames() []string {
	switch len(p.Segments) {
	case 2:
		return []string{"eager", "rendezvous"}
	case 3:
		return []string{"short", "eager", "rendezvous"}
	}
	return []string{"single"}
}

// Best returns the fit that applies to a message of b bytes: the segment
// containing b when the sweep was split, else the single line.
func (p Piecewise) Best(b int64) Fit {
	if !p.Split {
		return p.Single
	}
	i := sort.Search(len(p.Breaks), func(i int) bool { return p.Breaks[i] > b })
	return p.Segments[i]
}

// BreakEvidence is how much lower the BIC of a model with one more break
// must be than that of the best model without it (two segments against
// one line, three against two): 10, "very strong" evidence on Kass and
// Raftery's scale ("Bayes factors", JASA 90(430), 1995). BIC charges a
// break its parameters but not the search over every position it could
// take, so the best of some twenty cuts of a straight sweep with 3%
// relative noise lowers the BIC by up to about 13 by chance (in 1 of 400
// sweeps above 10; 11% of sweeps lower it at all), while the protocol
// switches of the real IMB files in testdata lower it by 11 to 150.
const BreakEvidence = 10.0

// FitPiecewise fits one robust Hockney line (FitRobust) and the best
// models of two and of three robust segments, and keeps the one with the
// lowest BIC (each break only when clearly lower, BreakEvidence),
// which charges each model for its parameters (two per
// segment, one per break, one per left-out point), so a straight sweep
// is not split by noise, a single spike is left out rather than cut into
// a segment, and a cliff (a protocol switch) becomes a break. Breaks are
// found by exhaustive search: every cut leaving at least MinSegmentSizes
// distinct valid sizes in each segment is fitted. Mean squared relative
// residuals below the rounding of printed times (0.01 usec, uniform
// error of variance 0.01^2/12) count as that rounding, so two-decimal
// rounding never splits a line. Points of 0 bytes are left out of every
// fit and counted in Skipped: MPI libraries short-cut empty messages (no
// payload path, often no rendezvous check), so their time is not alpha +
// 0 / bandwidth, and one such fast row would otherwise pull alpha down
// and open a spurious "segment" at the smallest sizes. Errors:
// ErrInsufficientSizes (wrapped) when even the single fit cannot be made.
func FitPiecewise(pts []Point, opt FitOptions) (Piecewise, error) {
	valid := make([]Point, 0, len(pts))
	skipped := 0
	for _, p := range pts {
		if p.Bytes > 0 && p.Usec > 0 && !math.IsInf(p.Usec, 0) {
			valid = append(valid, p)
		} else {
			skipped++
		}
	}
	sort.SliceStable(valid, func(i, j int) bool { return valid[i].Bytes < valid[j].Bytes })
	res := Piecewise{BreakBytes: -1, BICSplit: math.NaN()}
	single, err := FitRobust(valid, opt)
	single.Skipped = skipped
	res.Single, res.Segments = single, []Fit{single}
	if err != nil {
		return res, err
	}
	n := float64(len(valid))
	floor := roundingFloor(valid, opt.Weighting)
	res.BICSingle = bic(single.SSE, n, 2+len(single.Outliers), floor)
	// Cuts are indices into valid where a new size starts.
	var cuts []int
	for i := 1; i < len(valid); i++ {
		if valid[i].Bytes != valid[i-1].Bytes {
			cuts = append(cuts, i)
		}
	}
	fits := map[[2]int]*Fit{}
	seg := func(lo, hi int) *Fit {
		k := [2]int{lo, hi}
		if f, ok := fits[k]; ok {
			return f
		}
		var fp *Fit
		if positiveSizes(valid[lo:hi]) >= MinSegmentSizes {
			if f, err := fitRobust(valid[lo:hi], opt, false, hi < len(valid)); err == nil {
				fp = &f
			}
		}
		fits[k] = fp
		return fp
	}
	// best[s] is the best model of s segments and its BIC.
	best := map[int][]int{}
	bestBIC := map[int]float64{2: math.Inf(1), 3: math.Inf(1)}
	try := func(bounds []int) {
		sse, outliers := 0.0, 0
		var prev *Fit
		for i := 1; i < len(bounds); i++ {
			f := seg(bounds[i-1], bounds[i])
			if f == nil || prev != nil && !cliffPoint(*prev, *f, valid[bounds[i-1]]) {
				return
			}
			prev = f
			sse += f.SSE
			outliers += len(f.Outliers)
		}
		segs := len(bounds) - 1
		if b := bic(sse, n, 3*segs-1+outliers, floor); b < bestBIC[segs] {
			bestBIC[segs], best[segs] = b, append([]int(nil), bounds...)
		}
	}
	for i, c1 := range cuts {
		try([]int{0, c1, len(valid)})
		for _, c2 := range cuts[i+1:] {
			try([]int{0, c1, c2, len(valid)})
		}
	}
	if best[2] == nil {
		return res, nil
	}
	// Each break must lower the BIC by more than BreakEvidence: two
	// segments against one line, three against the best two.
	chosen, chosenBIC := best[2], bestBIC[2]
	if best[3] != nil && bestBIC[3] < chosenBIC-BreakEvidence {
		chosen, chosenBIC = best[3], bestBIC[3]
	}
	res.BICSplit = chosenBIC
	if !(chosenBIC < res.BICSingle-BreakEvidence) {
		return res, nil
	}
	res.Split, res.Segments = true, nil
	for i := 1; i < len(chosen); i++ {
		res.Segments = append(res.Segments, *seg(chosen[i-1], chosen[i]))
		if i > 1 {
			res.Breaks = append(res.Breaks, valid[chosen[i-1]].Bytes)
		}
	}
	res.Eager, res.Rendezvous = res.Segments[0], res.Segments[len(res.Segments)-1]
	res.BreakBytes = res.Breaks[len(res.Breaks)-1]
	return res, nil
}

// cliffPoint reports whether the first point p of segment f, which
// follows segment prev, may stand where it is: kept by f, or left out of
// f because it is slower than prev predicts by more than the robust
// cut-off (BisquareC x MinRelativeScale of its time), the spike of a
// protocol switch. A first point left out but not that slow belongs to
// prev (the same data with the break one size later), so such a
// segmentation is not counted twice. The last point of a segment that
// another follows is always kept (fitRobust's pinLast).
func cliffPoint(prev, f Fit, p Point) bool {
	if len(f.Outliers) == 0 || f.Outliers[0].Bytes != p.Bytes {
		return true
	}
	return (p.Usec-prev.Predict(p.Bytes))/p.Usec > BisquareC*MinRelativeScale
}

// roundingFloor is the mean squared residual that printed times' rounding
// alone gives (0.01 usec steps, variance 0.01^2/12 per time): relative to
// each time under Relative weighting.
func roundingFloor(pts []Point, wt Weighting) float64 {
	v := PrintResolutionUsec * PrintResolutionUsec / 12
	if wt == Absolute || len(pts) == 0 {
		return v
	}
	s := 0.0
	for _, p := range pts {
		s += v / (p.Usec * p.Usec)
	}
	return s / float64(len(pts))
}

// MinSegmentSizes is the least number of distinct sizes above 0 bytes
// each segment of a piecewise fit needs. With fewer, one fast row (a
// 0-byte message short-cut by the MPI library, a cached small message)
// makes a "segment" of two or three points whose line fits exactly, and
// the split wins on noise.
const MinSegmentSizes = 4

// positiveSizes counts the distinct sizes above 0 bytes of points sorted
// by size.
func positiveSizes(pts []Point) int {
	n := 0
	for i, p := range pts {
		if p.Bytes > 0 && (i == 0 || pts[i-1].Bytes != p.Bytes) {
			n++
		}
	}
	return n
}

// bic is the Bayesian information criterion of a least-squares model with
// k parameters and residual sum of squares sse over n points (Schwarz
// 1978, Gaussian errors). Mean squared residuals below floor count as
// floor, so exact data is not split by rounding noise.
func bic(sse, n float64, k int, floor float64) float64 {
	return n*math.Log(math.Max(sse/n, floor)) + float64(k)*math.Log(n)
}

// String summarises the fit in one line, units included.
func (p Piecewise) String() string {
	f := func(x Fit) string {
		return fmt.Sprintf("alpha %.3g us, %.4g MB/s, n1/2 %.3g B, R^2 %.4f", x.AlphaUsec, x.BandwidthMBps, x.NHalfBytes, x.R2)
	}
	if !p.Split {
		return "single: " + f(p.Single)
	}
	names := p.SegmentNames()
	var parts []string
	for i, seg := range p.Segments {
		from := ""
		if i > 0 {
			from = fmt.Sprintf(" (from %d B)", p.Breaks[i-1])
		}
		parts = append(parts, names[i]+from+": "+f(seg))
	}
	return strings.Join(parts, "; ")
}
