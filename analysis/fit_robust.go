package analysis

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// Constants of the robust fit (FitRobust).
const (
	// BisquareC is the tuning constant of Tukey's bisquare weight
	// w(u) = (1 - (u/c)^2)^2 for |u| < c, else 0, where u is a residual
	// over the residual scale: c = 4.685 gives 95% efficiency on normal
	// errors (Holland and Welsch, "Robust regression using iteratively
	// reweighted least-squares", Communications in Statistics A6(9),
	// 1977).
	BisquareC = 4.685
	// MADNormal turns the median absolute residual into the standard
	// deviation of normal errors (1 / 0.6745; Hampel 1974).
	MADNormal = 1.4826
	// MinRelativeScale is the least residual scale the robust fit assumes
	// for relative residuals: 5%. A point is left out only when it is more
	// than BisquareC x the scale (23% at this floor) off the line of the
	// others, so the ordinary spread of a sweep (a few percent, the
	// curvature a straight line leaves between protocol regimes) never
	// removes a point; a 50x spike or a point across a cliff is far beyond.
	MinRelativeScale = 0.05
	// robustIterations bounds the reweighting; it converges in a few.
	robustIterations = 50
)

// FitRobust fits t = alpha + bytes x beta_inv so that points which
// disagree with the others (a spike, a point on the far side of a cliff)
// do not bend the line: iteratively reweighted least squares with Tukey's
// bisquare weights (Holland and Welsch 1977) on the residuals of
// FitOptions.Weighting (relative ones by default, so every size of a
// log-spaced sweep counts alike), the residual scale being the median
// absolute residual x MADNormal, at least MinRelativeScale (relative) or
// MinRelativeScale x the median time (absolute). Each step is a weighted
// least-squares fit (gonum stat.LinearRegression). Points whose weight
// ends at 0 are left out: the returned Fit is the ordinary weighted
// least-squares fit of the other points (so a sweep without outliers
// gets exactly FitHockney's fit), listing the left-out points in
// Fit.Outliers. Only isolated points are left out: neighbouring sizes
// that all disagree with the line form a regime of their own, which a
// break describes (FitPiecewise), so they are kept. No point is left out when fewer than MinFitSizes points
// over 2 sizes would remain. gonum has no robust regression; the
// algorithm is written here. Errors as FitHockney.
func FitRobust(pts []Point, opt FitOptions) (Fit, error) {
	return fitRobust(pts, opt, false, false)
}

// fitRobust is FitRobust; pinFirst and pinLast keep the smallest and the
// largest valid point whatever their weight: a segment of a piecewise
// fit that meets another there must not leave out the point that marks
// the break (it belongs to the other segment, which the break search
// then finds).
func fitRobust(pts []Point, opt FitOptions, pinFirst, pinLast bool) (Fit, error) {
	x, y, skipped := validPoints(pts)
	keep := robustKeep(x, y, opt.Weighting)
	if len(keep) > 0 {
		keep[0] = keep[0] || pinFirst
		keep[len(keep)-1] = keep[len(keep)-1] || pinLast
	}
	var kx, ky []float64
	var out []Point
	for i := range x {
		if keep[i] {
			kx, ky = append(kx, x[i]), append(ky, y[i])
		} else {
			out = append(out, Point{int64(x[i]), y[i]})
		}
	}
	f, err := fitXY(kx, ky, opt)
	if err != nil && len(out) > 0 {
		f, err = fitXY(x, y, opt)
		out = nil
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Bytes < out[j].Bytes })
	f.Skipped, f.Outliers = skipped, out
	return f, err
}

// robustKeep runs the bisquare IRLS on (x, y) and reports which points
// keep a positive weight. All are kept when too few would remain.
func robustKeep(x, y []float64, wt Weighting) []bool {
	keep := make([]bool, len(x))
	for i := range keep {
		keep[i] = true
	}
	if len(x) < MinFitSizes || distinct(x) < 2 {
		return keep
	}
	base := baseWeights(y, wt)
	if base == nil {
		base = make([]float64, len(y))
		for i := range base {
			base[i] = 1
		}
	}
	floor := MinRelativeScale
	if wt == Absolute {
		sorted := append([]float64(nil), y...)
		sort.Float64s(sorted)
		floor *= median(sorted)
	}
	rw := make([]float64, len(x))
	for i := range rw {
		rw[i] = 1
	}
	w := make([]float64, len(x))
	res := make([]float64, len(x))
	for range robustIterations {
		for i := range w {
			w[i] = base[i] * rw[i]
		}
		alpha, beta := stat.LinearRegression(x, y, w, false)
		for i := range x {
			res[i] = math.Abs(y[i]-(alpha+beta*x[i])) * math.Sqrt(base[i])
		}
		sorted := append([]float64(nil), res...)
		sort.Float64s(sorted)
		scale := math.Max(MADNormal*median(sorted), floor)
		change := 0.0
		for i, r := range res {
			nw := 0.0
			if u := r / (BisquareC * scale); u < 1 {
				nw = (1 - u*u) * (1 - u*u)
			}
			change = math.Max(change, math.Abs(nw-rw[i]))
			rw[i] = nw
		}
		if change < 1e-6 {
			break
		}
	}
	// Neighbouring sizes that all disagree with the line may agree with
	// each other, a regime of their own (a break for FitPiecewise to
	// find), and are kept. A run inside the sweep too short to be a
	// segment (fewer than MinSegmentSizes points, with agreeing sizes on
	// both sides) cannot be a regime: the times return to the line after
	// it, so it is a cluster of spikes and left out like a single one.
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return x[order[a]] < x[order[b]] })
	for j := 0; j < len(order); {
		if rw[order[j]] > 0 {
			j++
			continue
		}
		end := j
		for end < len(order) && rw[order[end]] == 0 {
			end++
		}
		interior := j > 0 && end < len(order)
		regime := end-j > 1 && !(interior && end-j < MinSegmentSizes)
		for _, i := range order[j:end] {
			keep[i] = regime
		}
		j = end
	}
	var kx []float64
	for i := range x {
		if keep[i] {
			kx = append(kx, x[i])
		}
	}
	if len(kx) < MinFitSizes || distinct(kx) < 2 {
		for i := range keep {
			keep[i] = true
		}
	}
	return keep
}
