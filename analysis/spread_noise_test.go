package analysis

import (
	"math"
	"testing"
)

// TestSpreadNoiseHeavyTail: a mean of 1000 repetitions whose median is
// 0.40 usec but whose few millisecond repetitions give a CV of 23 varies
// between runs by far more than P90/P50 - 1; its noise is two standard
// errors of the difference of two means, so a 62% change of the mean
// between two runs of one configuration is not significant.
func TestSpreadNoiseHeavyTail(t *testing.T) {
	s := Spread{MinUsec: 0.3, P50Usec: 0.40, P90Usec: 0.44, P99Usec: 0.6, MaxUsec: 10860, CV: 23.1, N: 1000}
	want := 2 * math.Sqrt2 * 23.1 / math.Sqrt(1000) // 2.066
	if got := s.Noise(); math.Abs(got-want) > 1e-12 || !(got > 0.623) {
		t.Errorf("noise %g, want %g (above the 62.3%% change)", got, want)
	}
	// A tight distribution keeps P90/P50 - 1 as its noise.
	tight := Spread{P50Usec: 1.0, P90Usec: 1.1, CV: 0.05, N: 1000}
	if got := tight.Noise(); math.Abs(got-0.1) > 1e-12 {
		t.Errorf("tight noise %g, want 0.1", got)
	}
	// Without CV or N (OSU tail columns), only the percentiles count.
	osu := Spread{P50Usec: 2.0, P90Usec: 2.5, CV: math.NaN()}
	if got := osu.Noise(); math.Abs(got-0.25) > 1e-12 {
		t.Errorf("OSU noise %g, want 0.25", got)
	}
}
