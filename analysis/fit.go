package analysis

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// ErrInsufficientSizes is returned (wrapped) by the fits when fewer than
// MinFitSizes points have a positive time.
var ErrInsufficientSizes = errors.New("insufficient sizes")

// MinFitSizes is the least number of valid points (time > 0) a fit, or
// each segment of a piecewise fit, needs.
const MinFitSizes = 3

// Weighting selects the error a least-squares fit minimises.
type Weighting int

const (
	// Relative minimises the sum of squared relative residuals
	// ((t - fit)/t)^2, i.e. weights 1/t^2. Times of a size sweep span four
	// or more decades; unweighted least squares lets the largest sizes
	// decide everything and leaves the latency term (alpha) to the noise
	// of a few microseconds at the small sizes. With relative weights
	// every size counts by its relative error, which is also how the
	// measurement noise behaves (a few percent at every size). Default.
	Relative Weighting = iota
	// Absolute is ordinary least squares on the times in usec.
	Absolute
)

// String names the weighting as used in fit tables ("relative" or "absolute").
func (w Weighting) String() string {
	if w == Absolute {
		return "absolute"
	}
	return "relative"
}

// FitOptions tunes the Hockney fits.
type FitOptions struct {
	Weighting Weighting
	// Model, when not nil, gives the link's asymptotic payload rate so that
	// the fitted bandwidth is also reported as a percentage of it.
	Model *WireModel
}

// Fit is a Hockney (alpha-beta) model t(b) = Alpha + b x BetaInv of a size
// sweep (R. W. Hockney, "The communication challenge for MPP: Intel
// Paragon and Meiko CS-2", Parallel Computing 20(3), 1994), fitted by
// weighted least squares (gonum stat.LinearRegression) to the points
// the robust fit kept (FitRobust; FitHockney keeps every valid point).
type Fit struct {
	AlphaUsec float64 // start-up time, usec (may come out negative on bad data)
	BetaInv   float64 // time per byte, usec/B
	// BandwidthMBps is the asymptotic bandwidth 1/BetaInv in MB/s (10^6
	// bytes/s = bytes/usec); NaN when BetaInv <= 0.
	BandwidthMBps float64
	// NHalfBytes is the half-performance length n1/2 = Alpha x bandwidth,
	// the size at which half the asymptotic bandwidth is reached, bytes.
	NHalfBytes float64
	// R2 is the coefficient of determination under the fit's weights,
	// over the points kept; below PoorR2 the line does not describe them.
	R2 float64
	// SSE is the weighted sum of squared residuals (relative: unitless;
	// absolute: usec^2).
	SSE     float64
	Points  int // valid points used
	Skipped int // points left out: time <= 0, NaN or size < 0
	// Outliers are the valid points the robust fit left out because they
	// disagree with the others (FitRobust), in ascending size; nil for
	// FitHockney.
	Outliers  []Point
	MinBytes  int64 // smallest size used
	MaxBytes  int64 // largest size used
	Weighting Weighting
	// LineRatePct is BandwidthMBps as a percentage of the wire model's
	// asymptotic payload rate (WireModel.PayloadMBps); NaN without a model.
	LineRatePct float64
}

// PoorR2 is the R^2 below which a fit is reported as poor: the Hockney
// line does not describe the sweep (curvature, a break not found, noise).
const PoorR2 = 0.95

// Poor reports whether the fit is poor: R^2 below PoorR2, and not Flat.
func (f Fit) Poor() bool { return f.R2 < PoorR2 && !f.Flat() }

// FlatResidual is the root-mean-square relative residual (1%) up to which
// a fit with R^2 below PoorR2 is not poor but flat: its times hardly vary
// (a latency-bound segment), so R^2, the share of their variation the line
// explains, says little while the line is within the noise.
const FlatResidual = 0.01

// RMSRelative is the root-mean-square relative residual of a fit under
// Relative weighting, NaN under Absolute or without points.
func (f Fit) RMSRelative() float64 {
	if f.Weighting != Relative || f.Points == 0 {
		return math.NaN()
	}
	return math.Sqrt(f.SSE / float64(f.Points))
}

// Flat reports whether a fit's R^2 is below PoorR2 while its relative
// residuals are within FlatResidual: the line fits, R^2 says little.
func (f Fit) Flat() bool { return f.R2 < PoorR2 && f.RMSRelative() <= FlatResidual }

// Span returns the smallest and the largest size of the fit's points,
// the left-out ones included.
func (f Fit) Span() (lo, hi int64) {
	lo, hi = f.MinBytes, f.MaxBytes
	for _, p := range f.Outliers {
		lo, hi = min(lo, p.Bytes), max(hi, p.Bytes)
	}
	return lo, hi
}

// Predict returns the fitted time in usec for a message of b bytes.
func (f Fit) Predict(b int64) float64 { return f.AlphaUsec + float64(b)*f.BetaInv }

// validPoints splits pts into sizes and times of the points a fit can use
// (time > 0 and finite, size >= 0) and counts the others.
func validPoints(pts []Point) (x, y []float64, skipped int) {
	for _, p := range pts {
		if p.Bytes < 0 || !(p.Usec > 0) || math.IsInf(p.Usec, 0) {
			skipped++
			continue
		}
		x = append(x, float64(p.Bytes))
		y = append(y, p.Usec)
	}
	return x, y, skipped
}

// FitHockney fits t = alpha + bytes x beta_inv to the points. Points with
// a zero, negative or NaN time are skipped (an all-zero column is a
// reporting fault, field case B17) and counted in Fit.Skipped. Error
// wrapping ErrInsufficientSizes when fewer than MinFitSizes valid points
// or fewer than 2 distinct sizes remain.
func FitHockney(pts []Point, opt FitOptions) (Fit, error) {
	x, y, skipped := validPoints(pts)
	f, err := fitXY(x, y, opt)
	f.Skipped = skipped
	return f, err
}

// fitXY fits by weighted least squares, weights baseWeights.
func fitXY(x, y []float64, opt FitOptions) (Fit, error) {
	nan := math.NaN()
	f := Fit{AlphaUsec: nan, BetaInv: nan, BandwidthMBps: nan, NHalfBytes: nan, R2: nan, SSE: nan,
		LineRatePct: nan, Points: len(x), Weighting: opt.Weighting}
	if len(x) < MinFitSizes || distinct(x) < 2 {
		return f, fmt.Errorf("%w: %d valid points (time > 0) over %d sizes; a fit needs %d", ErrInsufficientSizes, len(x), distinct(x), MinFitSizes)
	}
	w := baseWeights(y, opt.Weighting)
	f.AlphaUsec, f.BetaInv = stat.LinearRegression(x, y, w, false)
	f.R2 = stat.RSquared(x, y, w, f.AlphaUsec, f.BetaInv)
	f.SSE = 0
	for i := range x {
		r := y[i] - (f.AlphaUsec + f.BetaInv*x[i])
		if w != nil {
			r *= math.Sqrt(w[i])
		}
		f.SSE += r * r
	}
	f.MinBytes, f.MaxBytes = int64(x[0]), int64(x[0])
	for _, v := range x {
		f.MinBytes, f.MaxBytes = min(f.MinBytes, int64(v)), max(f.MaxBytes, int64(v))
	}
	if f.BetaInv > 0 {
		f.BandwidthMBps = 1 / f.BetaInv
		f.NHalfBytes = f.AlphaUsec / f.BetaInv
		if opt.Model != nil {
			f.LineRatePct = 100 * f.BandwidthMBps / opt.Model.PayloadMBps()
		}
	}
	return f, nil
}

// baseWeights returns the least-squares weights of times y: 1/t^2 under
// Relative, nil (all 1) under Absolute.
func baseWeights(y []float64, wt Weighting) []float64 {
	if wt != Relative {
		return nil
	}
	w := make([]float64, len(y))
	for i, t := range y {
		w[i] = 1 / (t * t)
	}
	return w
}

func distinct(x []float64) int {
	seen := map[float64]bool{}
	for _, v := range x {
		seen[v] = true
	}
	return len(seen)
}
