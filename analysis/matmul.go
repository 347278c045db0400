package analysis

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/mpbench/mpbench/result"
)

// Medium says whether a network carries simultaneous transfers in
// parallel.
type Medium int

const (
	// Switched: groups of simultaneous Bcasts cost one Bcast (thesis
	// expression 4.5, switch).
	Switched Medium = iota
	// Shared: they are serialised, q Bcasts cost q times one (expression
	// 4.5, hub and wifi).
	Shared
	// MultiMeasured: p simultaneous Bcasts cost what a Multi-Bcast of p
	// groups measured on the same ranks costs (IMB -multi 0), whatever
	// shares the transfers: the network, or on one host its CPUs.
	MultiMeasured
)

// String names the medium as the report prints it ("switched", "shared"
// or "measured Multi-Bcast").
func (m Medium) String() string {
	switch m {
	case Shared:
		return "shared"
	case MultiMeasured:
		return "measured Multi-Bcast"
	}
	return "switched"
}

// BcastTimes holds measured Bcast times by rank count, for the matrix
// product prediction.
type BcastTimes struct {
	byProcs map[int][]Point
}

// NewBcastTimes collects the Bcast rows (IMB Bcast, osu_bcast) with a
// positive time (CallTime) and a known process count of the plain
// benchmark (not Multi- layouts), by rank count;
// several rows of one size and rank count (several files) count as one,
// with their median time.
func NewBcastTimes(rows []result.Row) BcastTimes {
	bt := BcastTimes{byProcs: map[int][]Point{}}
	for i := range rows {
		r := &rows[i]
		// A Multi-Bcast layout is several Bcasts at once, not one on all
		// its ranks: only the plain benchmark's series count.
		if isBcastRow(r) && r.Processes > 0 {
			bt.byProcs[r.Processes] = append(bt.byProcs[r.Processes], Point{r.Bytes, CallTime(r)})
		}
	}
	for p, pts := range bt.byProcs {
		bt.byProcs[p] = mergeSizes(pts)
	}
	return bt
}

// isBcastRow reports whether r is a row NewBcastTimes reads: the plain
// Bcast (IMB Bcast, osu_bcast, mpbench's), with a size and a time.
func isBcastRow(r *result.Row) bool {
	n := normBenchmark(r.Benchmark)
	return (n == "bcast" || n == "osubcast") && r.Multi == result.MultiNone && r.Bytes > 0 && CallTime(r) > 0
}

// BcastFilesWithoutProcs returns the files (Row.File, in order of first
// row) of the Bcast rows that NewBcastTimes leaves out for want of a
// process count: osu_bcast prints none, and the OSU reader takes it from
// a launcher line above the table's title when the file keeps one.
func BcastFilesWithoutProcs(rows []result.Row) []string {
	var files []string
	for i := range rows {
		if r := &rows[i]; isBcastRow(r) && r.Processes <= 0 && !slices.Contains(files, r.File) {
			files = append(files, r.File)
		}
	}
	return files
}

// CallTime is the time of one call of r's benchmark as an application
// that waits for the call's last rank sees it, usec: the row's
// result.ExtraCallMax (mpbench run --sync-all: the slowest rank's time in
// each call, averaged; for -multi 0 over every group, which started each
// call together) when it has one, else its headline time (Row.Time: IMB's
// t_max, the slowest rank's mean, whose groups' calls did not start
// together). NaN when the row has neither.
func CallTime(r *result.Row) float64 {
	if v, ok := r.Extra[result.ExtraCallMax]; ok && v > 0 {
		return v
	}
	return r.Time()
}

// CallTimes counts the rows of rows that CallTime reads from
// result.ExtraCallMax.
func CallTimes(rows []result.Row) int {
	n := 0
	for i := range rows {
		if v, ok := rows[i].Extra[result.ExtraCallMax]; ok && v > 0 {
			n++
		}
	}
	return n
}

// mergeSizes sorts pts by size and replaces the points of one size
// (several files or runs measuring it) by one with their median time, so
// that interpolation runs between sizes, never between two runs of one
// size.
func mergeSizes(pts []Point) []Point {
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].Bytes < pts[j].Bytes })
	out := pts[:0]
	for i := 0; i < len(pts); {
		j := i
		var ts []float64
		for ; j < len(pts) && pts[j].Bytes == pts[i].Bytes; j++ {
			ts = append(ts, pts[j].Usec)
		}
		sort.Float64s(ts)
		out = append(out, Point{pts[i].Bytes, median(ts)})
		i = j
	}
	return out
}

// MultiBcastTimes holds measured Multi-Bcast times by number of groups:
// the rows of IMB's -multi 0 (every group at once, one row per size over
// all groups, the slowest group's time) with more than one group, keyed
// by Groups, each a BcastTimes by group size.
type MultiBcastTimes map[int]BcastTimes

// NewMultiBcastTimes collects the Multi-Bcast rows (IMB -multi 0, more
// than one group, a positive time, CallTime) of rows; several of one size, group
// size and group count count as one, with their median time.
func NewMultiBcastTimes(rows []result.Row) MultiBcastTimes {
	mt := MultiBcastTimes{}
	for i := range rows {
		r := &rows[i]
		if normBenchmark(r.Benchmark) != "bcast" || r.Multi != result.MultiWorst || r.Groups < 2 || r.Bytes <= 0 || !(CallTime(r) > 0) {
			continue
		}
		bt, ok := mt[r.Groups]
		if !ok {
			bt = BcastTimes{byProcs: map[int][]Point{}}
			mt[r.Groups] = bt
		}
		bt.byProcs[r.Processes] = append(bt.byProcs[r.Processes], Point{r.Bytes, CallTime(r)})
	}
	for _, bt := range mt {
		for p, pts := range bt.byProcs {
			bt.byProcs[p] = mergeSizes(pts)
		}
	}
	return mt
}

// Usec returns the Bcast time in usec for the given bytes on procs ranks:
// 0 for one rank; otherwise the time measured at the nearest size (by
// size ratio) scaled in proportion to the size, t(x) = t(x_m) x / x_m, the
// rule the thesis uses for table 4.23 (it reproduces the wifi row from
// table 4.24). Error when no Bcast was measured on procs ranks.
func (bt BcastTimes) Usec(procs int, bytes int64) (float64, error) {
	if procs <= 1 {
		return 0, nil
	}
	pts := bt.byProcs[procs]
	if len(pts) == 0 {
		return math.NaN(), fmt.Errorf("no Bcast measured on %d ranks", procs)
	}
	best := pts[0]
	for _, p := range pts[1:] {
		if math.Abs(math.Log(float64(p.Bytes)/float64(bytes))) < math.Abs(math.Log(float64(best.Bytes)/float64(bytes))) {
			best = p
		}
	}
	return best.Usec * float64(bytes) / float64(best.Bytes), nil
}

// Grid returns the p x q process grid of n nodes used for the block matrix
// product: p the largest divisor of n not above sqrt(n), q = n/p.
func Grid(n int) (p, q int) {
	for p = int(math.Sqrt(float64(n))); p > 1 && n%p != 0; p-- {
	}
	if p < 1 {
		p = 1
	}
	return p, n / p
}

// MatmulPrediction is the communication time predicted for the block
// matrix product of section 4.3.3 on n = p x q nodes.
type MatmulPrediction struct {
	Nodes, P, Q int
	Medium      Medium
	BlockBytes  int64   // M/n, bytes per block
	RowsUsec    float64 // q x multi_p Bcast_q(M/n), usec
	ColsUsec    float64 // p x multi_q Bcast_p(M/n), usec
	TotalS      float64 // (RowsUsec + ColsUsec) / 10^6, seconds
	// BcastQ and BcastP are the Bcast times used, Bcast_q and Bcast_p of
	// one block (for MultiMeasured multi_p Bcast_q and multi_q Bcast_p),
	// with their sources.
	BcastQ, BcastP BcastEstimate
}

// PredictMatmulComm predicts the communication time of the block matrix
// product of a matrix of matrixBytes bytes on n nodes from Bcast times
// (thesis expression 4.4):
//
//	q x multi_p Bcast_q(M/n)  +  p x multi_q Bcast_p(M/n)
//
// where multi_p Bcast_q is p simultaneous Bcasts among q ranks, costing
// one Bcast_q on a Switched network and p of them on a Shared one
// (expression 4.5), the Bcast times by the thesis's rule (BcastTimes.Usec).
// Errors: n < 1, matrixBytes <= 0, or a Bcast time missing for p or q
// ranks.
func PredictMatmulComm(matrixBytes int64, n int, medium Medium, bt BcastTimes) (MatmulPrediction, error) {
	return PredictMatmul(matrixBytes, n, medium, func(procs int, bytes int64) (BcastEstimate, error) {
		u, err := bt.Usec(procs, bytes)
		return BcastEstimate{Procs: procs, Bytes: bytes, Usec: u, Source: "thesis rule"}, err
	})
}

// PredictMatmul is expression 4.4 with the Bcast times of est (for
// example BcastEstimator.Estimate: measured, interpolated or modelled).
// Errors: n < 1, matrixBytes <= 0, or est's error for p or q ranks.
func PredictMatmul(matrixBytes int64, n int, medium Medium, est func(procs int, bytes int64) (BcastEstimate, error)) (MatmulPrediction, error) {
	return predictMatmul(matrixBytes, n, medium, func(_, procs int, bytes int64) (BcastEstimate, error) { return est(procs, bytes) })
}

// PredictMatmulMulti is expression 4.4 with multi_p Bcast_q taken as a
// whole from est(p, q, bytes): the time of p simultaneous Bcasts among q
// ranks each, as a Multi-Bcast of p groups measures it on the ranks that
// run the product (for one group, a plain Bcast). Where the groups share
// something (a hub; on one host the CPUs that make every copy) this
// measures what expression 4.5 can only classify. Errors: n < 1,
// matrixBytes <= 0, or est's error.
func PredictMatmulMulti(matrixBytes int64, n int, est func(groups, procs int, bytes int64) (BcastEstimate, error)) (MatmulPrediction, error) {
	return predictMatmul(matrixBytes, n, MultiMeasured, est)
}

// predictMatmul is expression 4.4 with est(groups, procs, bytes) the time
// of one of groups simultaneous Bcasts among procs ranks (for Switched
// and Shared, one plain Bcast, multiplied by groups for Shared).
func predictMatmul(matrixBytes int64, n int, medium Medium, est func(groups, procs int, bytes int64) (BcastEstimate, error)) (MatmulPrediction, error) {
	if n < 1 || matrixBytes <= 0 {
		return MatmulPrediction{}, fmt.Errorf("matrix product prediction: need n >= 1 nodes and a matrix > 0 bytes (got %d, %d)", n, matrixBytes)
	}
	p, q := Grid(n)
	block := int64(math.Round(float64(matrixBytes) / float64(n)))
	pr := MatmulPrediction{Nodes: n, P: p, Q: q, Medium: medium, BlockBytes: block}
	var err error
	if pr.BcastQ, err = est(p, q, block); err != nil {
		return pr, fmt.Errorf("matrix product on %d = %dx%d nodes: %w", n, p, q, err)
	}
	if pr.BcastP, err = est(q, p, block); err != nil {
		return pr, fmt.Errorf("matrix product on %d = %dx%d nodes: %w", n, p, q, err)
	}
	multiP, multiQ := 1.0, 1.0
	if medium == Shared {
		multiP, multiQ = float64(p), float64(q)
	}
	pr.RowsUsec = float64(q) * multiP * pr.BcastQ.Usec
	pr.ColsUsec = float64(p) * multiQ * pr.BcastP.Usec
	pr.TotalS = (pr.RowsUsec + pr.ColsUsec) / 1e6
	return pr, nil
}
