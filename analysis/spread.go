package analysis

import (
	"math"

	"github.com/mpbench/mpbench/result"
)

// Spread is the distribution of one point's per-repetition times as its
// source recorded it: mpbench's own (result.Row.Spread: one rank's
// repetitions, with their coefficient of variation), OSU 7.3+'s
// tail-latency columns (P50/P90/P99 Tail Lat(us), percentiles of the
// iterations' latencies, osu_util.c) or the tail line of
// PerfKitBenchmarker's IMB (-show_tail: min, p10 ... p99.99, max). Times in
// usec; NaN where the source recorded none.
type Spread struct {
	MinUsec, P50Usec, P90Usec, P99Usec, MaxUsec float64
	CV                                          float64 // standard deviation over mean; NaN when not recorded
	N                                           int     // repetitions the time is the mean of; 0 when not recorded
	Source                                      string  // "mpbench", "OSU tail columns", "IMB -show_tail"
}

// spreadSources maps a source's Row.Extra keys to the Spread fields: min,
// p50, p90, p99, max ("" when the source prints none).
var spreadSources = []struct {
	name                     string
	min, p50, p90, p99, max_ string
}{
	{"OSU tail columns", "", "P50 Tail Lat(us)", "P90 Tail Lat(us)", "P99 Tail Lat(us)", ""},
	{"IMB -show_tail", "tail_min", "tail_p50", "tail_p90", "tail_p99", "tail_max"},
}

// SpreadOf returns the distribution a row carries (mpbench's
// result.Row.Spread first, then a source's columns), ok false when it has
// no median and no upper percentile (P90 or P99).
func SpreadOf(r *result.Row) (Spread, bool) {
	if s := r.Spread; s != nil && s.P50 > 0 {
		return Spread{s.Min, s.P50, s.P90, s.P99, s.Max, s.CV, s.N, "mpbench"}, true
	}
	get := func(k string) float64 {
		if v, ok := r.Extra[k]; ok && k != "" {
			return v
		}
		return math.NaN()
	}
	for _, s := range spreadSources {
		sp := Spread{get(s.min), get(s.p50), get(s.p90), get(s.p99), get(s.max_), math.NaN(), 0, s.name}
		if sp.P50Usec > 0 && (sp.P90Usec > 0 || sp.P99Usec > 0) {
			return sp, true
		}
	}
	return Spread{}, false
}

// Noise is the relative noise of a time that is the mean of the
// repetitions, used by CompareRuns as a point's noise when it has no
// repeated measurement: the larger of the spread of the repetitions above
// their median, P90/P50 - 1 (P99/P50 - 1 when no P90 is printed), and,
// where the coefficient of variation CV and the count N are recorded, two
// standard errors of the difference of two such means, 2 sqrt(2) CV /
// sqrt(N) (the standard error of a mean is the standard deviation over
// sqrt(N)). The second term matters for heavy tails: a few repetitions of
// milliseconds among a thousand of a microsecond move the mean far more
// than P90 moves. NaN without a median.
func (s Spread) Noise() float64 {
	hi := s.P90Usec
	if !(hi > 0) {
		hi = s.P99Usec
	}
	if !(s.P50Usec > 0) || !(hi > 0) {
		return math.NaN()
	}
	noise := math.Max(hi/s.P50Usec-1, 0)
	if s.CV > 0 && s.N > 1 {
		noise = math.Max(noise, 2*math.Sqrt2*s.CV/math.Sqrt(float64(s.N)))
	}
	return noise
}

// TailRatio is P99/P50, how far the slowest repetitions lie from the
// median (1 for a tight distribution); NaN when either is missing.
func (s Spread) TailRatio() float64 {
	if s.P50Usec > 0 && s.P99Usec > 0 {
		return s.P99Usec / s.P50Usec
	}
	return math.NaN()
}
