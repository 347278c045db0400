package coll

import (
	"math"
	"strings"
	"testing"
)

// TestBcastCost checks each Bcast algorithm's cost formula with alpha =
// 10, beta = 0.01 per byte.
func TestBcastCost(t *testing.T) {
	h := Hockney{Alpha: 10, Beta: 0.01}
	n := 1 << 20
	for _, c := range []struct {
		ch   Choice
		p, n int
		want float64
	}{
		{Choice{Algorithm: "binomial"}, 8, 100, 3 * (10 + 1)},
		{Choice{Algorithm: "linear"}, 8, 100, 7 * (10 + 1)},
		{Choice{Algorithm: "scatter_allgather"}, 8, n, (3+7)*10 + 2*7.0/8*float64(n)*0.01},
		// 1 MiB in 64 segments of 16 KiB: 7 + 63 steps of one segment.
		{Choice{Algorithm: "pipeline", Segment: 16384}, 8, n, (7 + 64 - 1) * (10 + 16384*0.01)},
		{Choice{Algorithm: "pipeline"}, 8, n, (7 + 64 - 1) * (10 + 16384*0.01)}, // the default segment
		// A message shorter than the segment is one segment of its size.
		{Choice{Algorithm: "pipeline", Segment: 16384}, 4, 100, 3 * (10 + 1)},
		{Choice{Algorithm: "binomial"}, 1, n, 0},
	} {
		if u, err := Cost("bcast", c.ch, c.p, c.n, h); math.Abs(u-c.want) > 1e-6 || err != nil {
			t.Errorf("%s, %d ranks, %d B: %g (%v), want %g", c.ch, c.p, c.n, u, err, c.want)
		}
	}
}

// TestEveryBcastAlgorithmHasCost: every Bcast algorithm in the table has a
// cost formula, so whatever the decision table or a tuning picks, mpbench
// predict's model is that algorithm's.
func TestEveryBcastAlgorithmHasCost(t *testing.T) {
	algs, err := Listed("bcast")
	if err != nil || len(algs) == 0 {
		t.Fatalf("bcast's algorithms: %v %v", algs, err)
	}
	for _, a := range algs {
		if u, err := Cost("bcast", Choice{Algorithm: a.Name}, 4, 1<<16, Hockney{Alpha: 10, Beta: 0.01}); err != nil || !(u > 0) {
			t.Errorf("%s: %g, %v", a.Name, u, err)
		}
	}
}

// TestCostRefuses: an unknown collective, an algorithm not in the table
// and one without a formula are errors naming them, never another
// algorithm's time.
func TestCostRefuses(t *testing.T) {
	h := Hockney{Alpha: 10, Beta: 0.01}
	for _, c := range []struct {
		coll, alg, want string
	}{
		{"scan", "binomial", `unknown collective "scan"`},
		{"bcast", "ring", `no bcast algorithm "ring" (valid: linear, binomial, pipeline, scatter_allgather)`},
		{"bcast", "", `no bcast algorithm ""`},
		{"allreduce", "ring", `no cost formula for the allreduce algorithm "ring"`},
	} {
		if u, err := Cost(c.coll, Choice{Algorithm: c.alg}, 8, 100, h); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s=%s: %g, %v; want an error with %q", c.coll, c.alg, u, err, c.want)
		}
	}
}
