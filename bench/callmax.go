package bench

import "math"

// CallMax is the mean over repetitions of the slowest rank's time in each
// repetition: samples[r][i] is rank r's time in repetition i (usec, every
// rank the same count; extra repetitions of a longer slice are ignored).
// It is at least t_max, the largest of the ranks' means, and equals it
// only when one rank is the slowest in every repetition. NaN without
// samples.
func CallMax(samples [][]float64) float64 {
	n := math.MaxInt
	for _, s := range samples {
		n = min(n, len(s))
	}
	if len(samples) == 0 || n == 0 {
		return math.NaN()
	}
	sum := 0.0
	for i := 0; i < n; i++ {
		slowest := math.Inf(-1)
		for _, s := range samples {
			slowest = math.Max(slowest, s[i])
		}
		sum += slowest
	}
	return sum / float64(n)
}
