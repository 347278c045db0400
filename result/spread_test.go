package result

import (
	"math"
	"testing"
)

func TestNewSpread(t *testing.T) {
	// 1..100 usec shuffled: quantiles are the values themselves.
	var samples []float64
	for i := 0; i < 100; i++ {
		samples = append(samples, float64((i*37)%100+1))
	}
	s := NewSpread(3, samples)
	if s.Rank != 3 || s.N != 100 || s.Min != 1 || s.Max != 100 || s.P50 != 50 || s.P90 != 90 || s.P99 != 99 {
		t.Errorf("spread %+v: want min 1, p50 50, p90 90, p99 99, max 100", *s)
	}
	// mean 50.5, sample standard deviation sqrt(100*101/12) = 29.011
	if math.Abs(s.CV-29.011491975882016/50.5) > 1e-12 {
		t.Errorf("CV %v, want %v", s.CV, 29.011491975882016/50.5)
	}
	if got := s.Tail([]float64{0, 0.1, 0.5, 0.999, 1}); got[0] != 1 || got[1] != 11 || got[2] != 51 || got[3] != 100 || got[4] != 100 {
		t.Errorf("Tail = %v, want [1 11 51 100 100] (index floor(q*n))", got)
	}
	if NewSpread(0, nil) != nil {
		t.Error("NewSpread of no samples: want nil")
	}
	one := NewSpread(0, []float64{2.5})
	if one.P50 != 2.5 || one.P99 != 2.5 || one.CV != 0 {
		t.Errorf("one sample: %+v", *one)
	}
}
