package result

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Spread is the distribution behind one row's time: the per-repetition
// times of one rank, as OSU 7.3+ prints P50/P90/P99 and ReproMPI reports
// distributions. mpbench records the times of the row's first rank (rank 0
// of the pair or group) for point-to-point benchmarks, and of the slowest
// rank (the one whose mean is the row's t_max) for collectives, gathered
// after the timed loop so that gathering costs the loop nothing. Times are
// per repetition as the row's time is defined (half the round trip for
// PingPong, one window for Uniband), in usec.
type Spread struct {
	// Rank is the world rank the times were measured on.
	Rank int
	// Samples are the per-repetition times in repetition order, usec;
	// nil when the spread was read from a file that keeps only the
	// summary.
	Samples []float64
	// N is the number of repetitions.
	N int
	// Min, P50, P90, P99 and Max are order statistics of the times in
	// usec: Pq is the smallest time t with at least q% of the times <= t
	// (gonum stat.Quantile, Empirical: the inverse of the empirical
	// distribution function).
	Min, P50, P90, P99, Max float64
	// CV is the coefficient of variation: the sample standard deviation
	// over the mean (0 for fewer than 2 times).
	CV float64
}

// NewSpread summarises samples (usec, in repetition order; kept in the
// result, not copied) measured on world rank rank. It returns nil for no
// samples.
func NewSpread(rank int, samples []float64) *Spread {
	if len(samples) == 0 {
		return nil
	}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	s := &Spread{Rank: rank, Samples: samples, N: len(samples), Min: sorted[0], Max: sorted[len(sorted)-1]}
	s.P50 = stat.Quantile(0.50, stat.Empirical, sorted, nil)
	s.P90 = stat.Quantile(0.90, stat.Empirical, sorted, nil)
	s.P99 = stat.Quantile(0.99, stat.Empirical, sorted, nil)
	if len(samples) > 1 {
		mean, std := stat.MeanStdDev(samples, nil)
		if mean > 0 {
			s.CV = std / mean
		}
	}
	return s
}

// Tail returns the samples at fractions qs of the sorted times the way
// PerfKitBenchmarker's patched IMB prints its -show_tail line: the time at
// index floor(q*n) of the ascending order (q = 1 gives the largest). It
// needs Samples; without them it returns NaN for every q.
func (s *Spread) Tail(qs []float64) []float64 {
	out := make([]float64, len(qs))
	sorted := slices.Clone(s.Samples)
	slices.Sort(sorted)
	for i, q := range qs {
		out[i] = math.NaN()
		if len(sorted) > 0 {
			out[i] = sorted[min(int(q*float64(len(sorted))), len(sorted)-1)]
		}
	}
	return out
}
