package result

import (
	"math"
	"testing"
)

// TestTimeHeadline checks that the headline time follows the source's
// definition: IMB rows t_max, OSU rows t_avg, each falling back to the
// other columns when absent.
func TestTimeHeadline(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		h             Headline
		min, max, avg float64
		want          float64
	}{
		{HeadlineMax, 1, 3, 2, 3},
		{HeadlineAvg, 1, 3, 2, 2},
		{HeadlineAvg, 1, 3, nan, 3},
		{HeadlineMax, 1, nan, 2, 2},
		{HeadlineMax, 1, nan, nan, 1},
		{HeadlineAvg, nan, nan, nan, nan},
	}
	for _, c := range cases {
		r := NewRow("x", 2, 8)
		r.Headline, r.TMin, r.TMax, r.TAvg = c.h, c.min, c.max, c.avg
		got := r.Time()
		if !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("%v min %g max %g avg %g: Time() = %g, want %g", c.h, c.min, c.max, c.avg, got, c.want)
		}
	}
}
