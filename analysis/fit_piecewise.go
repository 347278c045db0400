package analysis

import (
	"fmt"
	"math"
	"sort"
)

// Piecewise is a two-segment Hockney fit of a size sweep: an eager segment
// for the small sizes and a rendezvous segment from BreakBytes up, as MPI
// libraries switch protocol above an eager limit (a LogGP-style cut; see
// A. Alexandrov et al., "LogGP", SPAA 1995, and the MPI eager/rendezvous
// protocols). Each segment is an independent least-squares fit.
type Piecewise struct {
	// Single is the one-line fit over all points.
	Single Fit
	// Split is true when two segments explain the data better than one
	// line (lower BIC, see FitPiecewise); Eager, Rendezvous and BreakBytes
	// are then set, else they are zero values and BreakBytes is -1.
	Split      bool
	Eager      Fit
	Rendezvous Fit
	// BreakBytes is the smallest size of the rendezvous segment, bytes.
	BreakBytes int64
	// BICSingle and BICSplit are the Bayesian information criteria
	// n ln(SSE/n) + k ln n of the one-line (k = 2) and two-segment (k = 5:
	// two lines and the break) models; lower is better.
	BICSingle, BICSplit float64
}

// Best returns the fit that applies to a message of b bytes: the segment
// containing b when the sweep was split, else the single line.
func (p Piecewise) Best(b int64) Fit {
	switch {
	case !p.Split:
		return p.Single
	case b < p.BreakBytes:
		return p.Eager
	}
	return p.Rendezvous
}

// FitPiecewise fits one Hockney line and the best two-segment model to the
// points. The break is found by exhaustive search: every cut leaving at
// least MinSegmentSizes distinct valid sizes on each side is fitted and
// the cut with the least total weighted squared error wins. The
// two-segment model is kept only when its BIC is lower than the single
// line's, which charges it for its three extra parameters, so a straight
// sweep is not split by noise. Points of 0 bytes are left out of every
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
	single, err := FitHockney(valid, opt)
	single.Skipped = skipped
	res.Single = single
	if err != nil {
		return res, err
	}
	n := float64(single.Points)
	// Residuals below 1e-10 of the times are rounding, not signal.
	floor := 1e-20
	if opt.Weighting == Absolute {
		s := 0.0
		for _, p := range valid {
			s += p.Usec * p.Usec
		}
		floor *= s / n
	}
	res.BICSingle = bic(single.SSE, n, 2, floor)
	best := math.Inf(1)
	for cut := 1; cut < len(valid); cut++ {
		if valid[cut].Bytes == valid[cut-1].Bytes {
			continue // a size is never split across segments
		}
		if positiveSizes(valid[:cut]) < MinSegmentSizes || positiveSizes(valid[cut:]) < MinSegmentSizes {
			continue
		}
		lo, errLo := FitHockney(valid[:cut], opt)
		hi, errHi := FitHockney(valid[cut:], opt)
		if errLo != nil || errHi != nil {
			continue
		}
		if sse := lo.SSE + hi.SSE; sse < best {
			best = sse
			res.Eager, res.Rendezvous, res.BreakBytes = lo, hi, valid[cut].Bytes
		}
	}
	if math.IsInf(best, 1) {
		res.BreakBytes = -1
		return res, nil
	}
	res.BICSplit = bic(best, n, 5, floor)
	if res.BICSplit < res.BICSingle {
		res.Split = true
	} else {
		res.Eager, res.Rendezvous, res.BreakBytes = Fit{}, Fit{}, -1
	}
	return res, nil
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
	return fmt.Sprintf("eager (< %d B): %s; rendezvous: %s", p.BreakBytes, f(p.Eager), f(p.Rendezvous))
}
