package main

import (
	"fmt"
	"slices"
)

// sample is one measured time of a benchmark at a size in one round.
type sample struct {
	bench string
	bytes int64
	usec  float64
}

// step is the time ratio between two neighbouring sizes of one benchmark.
type step struct {
	bench      string
	from, to   int64
	fromMedian float64 // usec, median over the rounds
	toMedian   float64
	ratio      float64 // toMedian / fromMedian
	minRatio   float64 // min over rounds at to / min over rounds at from
	spread     float64 // largest (max/min) of the two sizes' samples: the noise seen
}

// cliff reports whether s is a cliff at the limit: both the ratio of the
// medians and the ratio of the minima exceed it. Load on the machine only
// makes times longer, so the minima are what the runtime can do, and a
// step that is there in the minima and in the medians is in every round;
// a load burst that hits one size's rounds moves its median or nothing.
func (s step) cliff(limit float64) bool { return s.ratio > limit && s.minRatio > limit }

// steps groups samples by benchmark and size and returns the steps between
// neighbouring sizes of each benchmark, in the order benchmarks first
// appear. Sizes with a time of 0 (a 0-byte row) are skipped.
func steps(samples []sample) []step {
	var order []string
	by := map[string]map[int64][]float64{}
	for _, s := range samples {
		if s.usec <= 0 {
			continue
		}
		m := by[s.bench]
		if m == nil {
			m = map[int64][]float64{}
			by[s.bench] = m
			order = append(order, s.bench)
		}
		m[s.bytes] = append(m[s.bytes], s.usec)
	}
	var out []step
	for _, b := range order {
		m := by[b]
		sizes := make([]int64, 0, len(m))
		for n := range m {
			sizes = append(sizes, n)
		}
		slices.Sort(sizes)
		for i := 1; i < len(sizes); i++ {
			f, t := m[sizes[i-1]], m[sizes[i]]
			s := step{bench: b, from: sizes[i-1], to: sizes[i], fromMedian: median(f), toMedian: median(t)}
			s.ratio = s.toMedian / s.fromMedian
			s.minRatio = slices.Min(t) / slices.Min(f)
			s.spread = max(slices.Max(f)/slices.Min(f), slices.Max(t)/slices.Min(t))
			out = append(out, s)
		}
	}
	return out
}

// median returns the median of v (mean of the two middle values for an
// even count); v must not be empty.
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// sizeName prints a byte count as IMB users read it (8K, 16K, 1M).
func sizeName(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dM", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dK", n>>10)
	}
	return fmt.Sprint(n)
}
