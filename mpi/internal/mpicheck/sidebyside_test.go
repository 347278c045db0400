//go:build mpi

package main

import (
	"strings"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		in := append([]float64(nil), c.v...)
		if got := median(c.v); got != c.want {
			t.Errorf("median(%v) = %v, want %v", in, got, c.want)
		}
		for i := range in {
			if c.v[i] != in[i] {
				t.Fatalf("median modified its input: %v, was %v", c.v, in)
			}
		}
	}
}

// TestSideRow: 100 repetitions taking 2 ms are t = 10 usec; Go/C per round
// 1.5, 1.0, 2.0; medians 2 ms (C) and 3 ms (Go); minima 1 ms and 2 ms; Go
// - C per round 1 ms, 0, 1 ms, median 1 ms = 5 usec.
func TestSideRow(t *testing.T) {
	ct := []float64{0.002, 0.003, 0.001}
	gt := []float64{0.003, 0.003, 0.002}
	got := strings.Fields(sideRow(64, 100, ct, gt))
	want := []string{"64", "100", "10.000", "15.000", "5.000", "1.500", "2.000", "1.000..2.000"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("sideRow = %q, want %q", got, want)
	}
}

func TestFillNonZero(t *testing.T) {
	a, b := fill(1000, 0), fill(1000, 1)
	for i := range a {
		if a[i] == 0 || b[i] == 0 {
			t.Fatalf("fill wrote a zero byte at %d", i)
		}
	}
	if string(a) == string(b) {
		t.Errorf("fill with seeds 0 and 1 gave the same bytes: the receive check could not tell the ranks apart")
	}
}
