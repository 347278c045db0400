package npb

import (
	"fmt"
	"math"
	"strings"

	"github.com/mpbench/mpbench/app"
	"github.com/mpbench/mpbench/coll"
)

// EPClass is a problem class of EP: 2^(M+1) uniform random numbers make
// 2^M candidate pairs; SX and SY are the reference sums of the accepted
// Gaussian deviates (NPB3.4-MPI ep.f).
type EPClass struct {
	Name   string
	M      int
	SX, SY float64
}

// EPClasses are EP's classes S to D.
var EPClasses = []EPClass{
	{"S", 24, -3.247834652034740e+3, -6.958407078382297e+3},
	{"W", 25, -2.863319731645753e+3, -6.320053679109499e+3},
	{"A", 28, -4.295875165629892e+3, -1.580732573678431e+4},
	{"B", 30, 4.033815542441498e+4, -2.660669192809235e+4},
	{"C", 32, 4.764367927995374e+4, -8.084072988043731e+4},
	{"D", 36, 1.982481200946593e+5, -1.020596636361769e+5},
}

// LookupEP returns the EP class named name (S, W, A, B, C, D; any case).
func LookupEP(name string) (EPClass, error) {
	for _, c := range EPClasses {
		if strings.EqualFold(c.Name, name) {
			return c, nil
		}
	}
	return EPClass{}, fmt.Errorf("EP class %q: valid classes are S, W, A, B, C, D", name)
}

// EP constants of ep.f: batches of 2^mk pairs, nq annuli, seed s,
// tolerance epsilon.
const (
	epMK      = 16
	epNK      = 1 << epMK
	epNQ      = 10
	epSeed    = 271828183
	epEpsilon = 1e-8
)

// EPBatches returns the batches [first, first+count) of 2^16 pairs that
// rank of np computes when there are total batches: the first
// total mod np ranks get one more (ep.f's np_add and k_offset).
func EPBatches(total, np, rank int64) (first, count int64) {
	base, large := total/np, total%np
	if rank < large {
		return rank * (base + 1), base + 1
	}
	return large*(base+1) + (rank-large)*base, base
}

// EP runs NPB's EP kernel of class cl on the ranks of c (every rank calls
// it) and returns the report, complete on rank 0. Each rank generates its
// share of the 2^(M-16) batches of 2^17 uniform numbers (batch k starts
// from seed s a^(2^17 k)), turns them into Gaussian pairs by the
// Marsaglia polar method, and counts them in square annuli; three
// Allreduces (sx, sy, the counts) combine the ranks. Timed as ep.f times:
// from a barrier to the end of the Allreduces, T(N) the maximum over the
// ranks. Errors: communication failures, more ranks than batches.
func EP(c *app.Comm, cl EPClass) (*app.Report, error) {
	np, rank := int64(c.Size()), int64(c.Rank())
	batches := int64(1) << (cl.M - epMK)
	if np > batches {
		return nil, fmt.Errorf("EP class %s has %d batches: at most %d ranks", cl.Name, batches, batches)
	}
	first, count := EPBatches(batches, np, rank)
	x := make([]float64, 2*epNK)
	if err := c.Algorithms().Barrier(c.Raw()); err != nil {
		return nil, err
	}
	c.ResetClock()
	t0 := c.Wtime()
	an := Pow46(A, 2*epNK) // a^(2 nk): the jump from one batch to the next
	var sx, sy float64
	var q [epNQ]float64
	for k := first; k < first+count; k++ {
		seed := (epSeed * Pow46(an, k)) & mask46
		Vranlc(&seed, A, x)
		sx, sy = gaussianPairs(x, &q, sx, sy)
		c.Progress(k-first+1, count)
	}
	compute := c.Wtime() - t0
	sums := []float64{sx, sy}
	all := make([]float64, 2)
	if err := c.Allreduce(app.Float64Bytes(sums[:1]), app.Float64Bytes(all[:1]), coll.Float64, coll.Sum); err != nil {
		return nil, err
	}
	if err := c.Allreduce(app.Float64Bytes(sums[1:]), app.Float64Bytes(all[1:]), coll.Float64, coll.Sum); err != nil {
		return nil, err
	}
	var qa [epNQ]float64
	if err := c.Allreduce(app.Float64Bytes(q[:]), app.Float64Bytes(qa[:]), coll.Float64, coll.Sum); err != nil {
		return nil, err
	}
	mine := app.RankTimes{Total: c.Wtime() - t0, Compute: compute, Comm: c.CommSeconds()}
	sx, sy = all[0], all[1]
	var gc float64
	for _, v := range qa {
		gc += v
	}

	rep := &app.Report{App: "EP", Class: cl.Name, Size: fmt.Sprintf("%.0f", math.Ldexp(1, cl.M+1)),
		Elements: 1 << (cl.M + 1), NP: int(np), OpType: "Random numbers generated"}
	var err error
	if err = rep.Gather(c, mine); err != nil {
		return nil, err
	}
	tm := rep.Max().Total
	rep.Mops = math.Ldexp(1, cl.M+1) / tm / 1e6
	errX, errY := math.Abs((sx-cl.SX)/cl.SX), math.Abs((sy-cl.SY)/cl.SY)
	rep.Verified = errX <= epEpsilon && errY <= epEpsilon // false on NaN
	rep.Verification = fmt.Sprintf("NPB 3.4 sums, relative errors %.3g and %.3g (limit %g)", errX, errY, epEpsilon)
	rep.Results = append(rep.Results, "EP Benchmark Results:", "",
		fmt.Sprintf("CPU Time =%10.4f", tm), fmt.Sprintf("N = 2^%5d", cl.M),
		fmt.Sprintf("No. Gaussian Pairs =%15.0f", gc),
		fmt.Sprintf("Sums = %25.15e%25.15e", sx, sy), "Counts:")
	for i, v := range qa {
		rep.Results = append(rep.Results, fmt.Sprintf("%3d%15.0f", i, v))
	}
	return rep, nil
}

// gaussianPairs turns the uniform numbers x (pairs) into Gaussian
// deviates by the acceptance-rejection (polar) method of ep.f, tallies
// them in q by annulus max(|X|, |Y|) and returns the sums sx, sy updated.
func gaussianPairs(x []float64, q *[epNQ]float64, sx, sy float64) (float64, float64) {
	for i := 0; i+1 < len(x); i += 2 {
		x1 := 2*x[i] - 1
		x2 := 2*x[i+1] - 1
		t1 := x1*x1 + x2*x2
		if t1 <= 1 {
			t2 := math.Sqrt(-2 * math.Log(t1) / t1)
			t3, t4 := x1*t2, x2*t2
			l := int(max(math.Abs(t3), math.Abs(t4)))
			q[l]++
			sx += t3
			sy += t4
		}
	}
	return sx, sy
}
