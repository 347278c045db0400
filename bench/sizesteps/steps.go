// Package sizesteps summarises benchmark times measured over several
// interleaved rounds: the median and spread of each benchmark and size, and
// the steps between neighbouring sizes, which reveal cliffs (a protocol or
// progress problem that makes one size many times slower than the one
// below it). bench/cliffguard and bench/imbtable use it.
package sizesteps

import (
	"fmt"
	"slices"
)

// Sample is one measured time of a benchmark at a size in one round.
type Sample struct {
	Bench string
	Bytes int64
	Usec  float64
}

// Step is the time ratio between two neighbouring sizes of one benchmark.
type Step struct {
	Bench      string
	From, To   int64
	FromMedian float64 // usec, median over the rounds
	ToMedian   float64
	Ratio      float64 // ToMedian / FromMedian
	MinRatio   float64 // min over rounds at To / min over rounds at From
	Spread     float64 // largest (max/min) of the two sizes' samples: the noise seen
}

// Cliff reports whether s is a cliff at the limit: both the ratio of the
// medians and the ratio of the minima exceed it. Load on the machine only
// makes times longer, so the minima are what the runtime can do, and a
// step that is there in the minima and in the medians is in every round;
// a load burst that hits one size's rounds moves its median or nothing.
func (s Step) Cliff(limit float64) bool { return s.Ratio > limit && s.MinRatio > limit }

// Steps groups samples by benchmark and size and returns the steps between
// neighbouring sizes of each benchmark, in the order benchmarks first
// appear. Sizes with a time of 0 (a 0-byte row) are skipped.
func Steps(samples []Sample) []Step {
	var order []string
	by := map[string]map[int64][]float64{}
	for _, s := range samples {
		if s.Usec <= 0 {
			continue
		}
		m := by[s.Bench]
		if m == nil {
			m = map[int64][]float64{}
			by[s.Bench] = m
			order = append(order, s.Bench)
		}
		m[s.Bytes] = append(m[s.Bytes], s.Usec)
	}
	var out []Step
	for _, b := range order {
		m := by[b]
		sizes := make([]int64, 0, len(m))
		for n := range m {
			sizes = append(sizes, n)
		}
		slices.Sort(sizes)
		for i := 1; i < len(sizes); i++ {
			f, t := m[sizes[i-1]], m[sizes[i]]
			s := Step{Bench: b, From: sizes[i-1], To: sizes[i], FromMedian: Median(f), ToMedian: Median(t)}
			s.Ratio = s.ToMedian / s.FromMedian
			s.MinRatio = slices.Min(t) / slices.Min(f)
			s.Spread = max(slices.Max(f)/slices.Min(f), slices.Max(t)/slices.Min(t))
			out = append(out, s)
		}
	}
	return out
}

// Median returns the median of v (mean of the two middle values for an
// even count); v must not be empty.
func Median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// SizeName prints a byte count as IMB users read it (8K, 16K, 1M).
func SizeName(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dM", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dK", n>>10)
	}
	return fmt.Sprint(n)
}
