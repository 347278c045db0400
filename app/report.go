package app

import (
	"fmt"
	"io"
	"math"
	"strings"

	"gonum.org/v1/gonum/floats"

	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/result"
)

// RankTimes are one rank's times over the timed part of a run, in seconds.
type RankTimes struct {
	Total   float64 // wall time of the timed part, T(N)
	Compute float64 // time inside the application's own kernels
	Comm    float64 // time inside communication calls (Comm.CommSeconds)
	Wait    float64 // time in synchronising barriers (Comm.WaitSeconds), 0 without
}

// Report is the outcome of one run of an application, complete on rank 0
// (Ranks holds every rank's times there, only the caller's elsewhere).
type Report struct {
	App        string // "matmul", "EP", "FT"
	Class      string // NPB class letter; "" for the matrix product
	Size       string // problem size as printed: "2000", "64x64x64", "33554432"
	Elements   int64  // problem size in elements: n, 2^(m+1) random numbers, nx*ny*nz points
	NP         int    // ranks
	Iterations int    // NPB iterations (0: none)
	Ranks      []RankTimes
	// Mops is Mop/s total as NPB defines it for the benchmark (operations
	// counted by the benchmark's formula over the maximum total time);
	// for the matrix product 2 n^3 floating-point operations.
	Mops   float64
	OpType string // what Mops counts, e.g. "Random numbers generated"
	// Verified is true when the result matched the reference;
	// Verification says what was compared and how close it came.
	Verified     bool
	Verification string
	// Unchecked is true when no reference was compared (the result is
	// neither verified nor failed, e.g. a matrix product above
	// matmul.MaxVerify).
	Unchecked bool
	// CommCallMax is the sum over the timed communication calls of the
	// slowest rank's time in each, seconds (Report.Gather; NaN when the
	// ranks made different numbers of calls). Every rank makes the same
	// collective calls in turn, and a call is over for the application
	// when its last rank leaves it: this is how long the communication
	// lasted on the run's critical path when barriers separate the calls
	// from computation (app matmul --sync), and it is what a sum of
	// benchmark times (t_max per call, expression 4.4) predicts. It is
	// >= Max().Comm, the largest sum over one rank, which is smaller
	// whenever the slowest rank changes from call to call (a Bcast's
	// root, whose send can end before its receiver has the data).
	CommCallMax float64
	// AlignCallMax is the sum over the Align barriers (Comm.Align) of the
	// slowest rank's time in each, seconds; NaN when the run made none
	// or the ranks made different numbers. Each term is how much later
	// than the first rank the last one left the Sync before it: what a
	// collective entered straight from that Sync, with no Align, would
	// have counted as communication.
	AlignCallMax float64
	Notes        []string // further lines for the text output (grid, BLAS, load)
	// Results are the benchmark's own result lines, printed before the
	// summary (NPB's "EP Benchmark Results:" block).
	Results []string
}

// Max returns the maximum of each time over the ranks.
func (r *Report) Max() RankTimes {
	var m RankTimes
	for _, t := range r.Ranks {
		m.Total, m.Compute, m.Comm, m.Wait = max(m.Total, t.Total), max(m.Compute, t.Compute), max(m.Comm, t.Comm), max(m.Wait, t.Wait)
	}
	return m
}

// Avg returns the mean of each time over the ranks.
func (r *Report) Avg() RankTimes {
	var a RankTimes
	for _, t := range r.Ranks {
		a.Total, a.Compute, a.Comm, a.Wait = a.Total+t.Total, a.Compute+t.Compute, a.Comm+t.Comm, a.Wait+t.Wait
	}
	if n := float64(len(r.Ranks)); n > 0 {
		a.Total, a.Compute, a.Comm, a.Wait = a.Total/n, a.Compute/n, a.Comm/n, a.Wait/n
	}
	return a
}

// Gather collects every rank's times (mine, the caller's) into r.Ranks on
// rank 0 of c (other ranks get only their own), the per-call maxima of
// c's timed calls into r.CommCallMax and those of its Align barriers into
// r.AlignCallMax, with untimed collectives on c.Raw(): an MPI_Gather of
// the times, MPI_Allreduces of the counts and element-wise MPI_Reduces
// (max) of the calls' and barriers' times.
func (r *Report) Gather(c *Comm, mine RankTimes) error {
	var err error
	if r.Ranks, err = gatherTimes(c, mine); err != nil {
		return err
	}
	if r.CommCallMax, err = callMax(c, c.CallSeconds()); err != nil {
		return err
	}
	r.AlignCallMax, err = callMax(c, c.AlignSeconds())
	if len(c.AlignSeconds()) == 0 {
		r.AlignCallMax = nan
	}
	return err
}

// gatherTimes collects every rank's times on rank 0 of c; other ranks
// get only their own.
func gatherTimes(c *Comm, mine RankTimes) ([]RankTimes, error) {
	if c.Size() == 1 {
		return []RankTimes{mine}, nil
	}
	send := []float64{mine.Total, mine.Compute, mine.Comm, mine.Wait}
	var recv []float64
	if c.Rank() == 0 {
		recv = make([]float64, 4*c.Size())
	}
	if err := c.alg.Gather(c.Raw(), Float64Bytes(send), Float64Bytes(recv), 0); err != nil {
		return nil, fmt.Errorf("gathering the ranks' times: %w", err)
	}
	if c.Rank() != 0 {
		return []RankTimes{mine}, nil
	}
	out := make([]RankTimes, c.Size())
	for i := range out {
		out[i] = RankTimes{recv[4*i], recv[4*i+1], recv[4*i+2], recv[4*i+3]}
	}
	return out, nil
}

// callMax returns on rank 0 the sum over the calls of mine, the calling
// rank's times of its calls in order, of the largest time any rank of c
// spent in each (the k-th call of every rank is the same collective
// call), seconds; NaN when the ranks made different numbers of calls.
// Other ranks get NaN.
func callMax(c *Comm, mine []float64) (float64, error) {
	if c.Size() == 1 {
		return floats.Sum(mine), nil
	}
	n := float64(len(mine))
	counts := []float64{n, -n} // the largest count and minus the smallest
	if err := c.alg.Allreduce(c.Raw(), Float64Bytes([]float64{n, -n}), Float64Bytes(counts), coll.Float64, coll.Max); err != nil {
		return nan, fmt.Errorf("comparing the ranks' call counts: %w", err)
	}
	if counts[0] != -counts[1] {
		return nan, nil
	}
	if n == 0 {
		return 0, nil
	}
	var slowest []float64
	if c.Rank() == 0 {
		slowest = make([]float64, len(mine))
	}
	if err := c.alg.Reduce(c.Raw(), Float64Bytes(mine), Float64Bytes(slowest), coll.Float64, coll.Max, 0); err != nil {
		return nan, fmt.Errorf("gathering the calls' times: %w", err)
	}
	if c.Rank() != 0 {
		return nan, nil
	}
	return floats.Sum(slowest), nil
}

// MaxOver returns the maximum of v over the ranks of c, on every rank (an
// untimed MPI_Allreduce on c.Raw()).
func MaxOver(c *Comm, v float64) (float64, error) {
	if c.Size() == 1 {
		return v, nil
	}
	in, out := []float64{v}, []float64{0}
	if err := c.alg.Allreduce(c.Raw(), Float64Bytes(in), Float64Bytes(out), coll.Float64, coll.Max); err != nil {
		return 0, err
	}
	return out[0], nil
}

// Name is the run's name in result rows: "matmul", or NPB's "EP.A" style
// (benchmark and class).
func (r *Report) Name() string {
	if r.Class == "" {
		return r.App
	}
	return r.App + "." + r.Class
}

// Row is the run as a result row: Benchmark is Name(), Processes NP,
// Bytes the problem size in elements, Repetitions 1, t_min/t_max/t_avg
// the total time over the ranks in usec, and Extra the times split
// (compute_max_s, compute_avg_s, comm_max_s, comm_avg_s, comm_calls_max_s
// (CommCallMax, left out when NaN), and wait_max_s, wait_avg_s and
// align_calls_max_s (AlignCallMax) when the run synchronised, in
// seconds), mops and verified (1 or 0; left out when Unchecked).
func (r *Report) Row() result.Row {
	row := result.NewRow(r.Name(), r.NP, r.Elements)
	row.Repetitions = 1
	mx, av := r.Max(), r.Avg()
	row.TMin = math.Inf(1)
	for _, t := range r.Ranks {
		row.TMin = min(row.TMin, t.Total*1e6)
	}
	row.TMax, row.TAvg = mx.Total*1e6, av.Total*1e6
	row.Extra = map[string]float64{
		"compute_max_s": mx.Compute, "compute_avg_s": av.Compute,
		"comm_max_s": mx.Comm, "comm_avg_s": av.Comm,
		"mops": r.Mops,
	}
	if !math.IsNaN(r.CommCallMax) {
		row.Extra["comm_calls_max_s"] = r.CommCallMax
	}
	if !math.IsNaN(r.AlignCallMax) {
		row.Extra["align_calls_max_s"] = r.AlignCallMax
	}
	if mx.Wait > 0 {
		row.Extra["wait_max_s"], row.Extra["wait_avg_s"] = mx.Wait, av.Wait
	}
	switch {
	case r.Verified:
		row.Extra["verified"] = 1
	case !r.Unchecked:
		row.Extra["verified"] = 0
	}
	return row
}

// Print writes the report as the NAS Parallel Benchmarks print theirs
// (print_results.f of NPB 3.4: "Verification = SUCCESSFUL", Mop/s total
// and per process), followed by the split of the time into computation
// and communication, per rank and the maximum over ranks.
func (r *Report) Print(w io.Writer) error {
	var b strings.Builder
	for _, l := range r.Results {
		fmt.Fprintln(&b, l)
	}
	fmt.Fprintf(&b, "\n %s Benchmark Completed.\n", r.App)
	if r.Class != "" {
		fmt.Fprintf(&b, " Class           = %24s\n", r.Class)
	}
	fmt.Fprintf(&b, " Size            = %24s\n", r.Size)
	if r.Iterations > 0 {
		fmt.Fprintf(&b, " Iterations      = %24d\n", r.Iterations)
	}
	mx := r.Max()
	fmt.Fprintf(&b, " Time in seconds = %24.2f\n", mx.Total)
	fmt.Fprintf(&b, " Total processes = %24d\n", r.NP)
	fmt.Fprintf(&b, " Mop/s total     = %24.2f\n", r.Mops)
	fmt.Fprintf(&b, " Mop/s/process   = %24.2f\n", r.Mops/float64(max(r.NP, 1)))
	fmt.Fprintf(&b, " Operation type  = %24s\n", r.OpType)
	verdict := "UNSUCCESSFUL"
	switch {
	case r.Verified:
		verdict = "  SUCCESSFUL"
	case r.Unchecked:
		verdict = "NOT PERFORMED"
	}
	fmt.Fprintf(&b, " Verification    = %24s\n", verdict)
	if r.Verification != "" {
		fmt.Fprintf(&b, " Verification by = %s\n", r.Verification)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, " %s\n", n)
	}
	wait := mx.Wait > 0
	fmt.Fprintf(&b, "\n Time split (seconds; compute: the application's kernels, comm: inside communication calls")
	if wait {
		fmt.Fprintf(&b, ",\n wait: in the barriers around them")
	}
	fmt.Fprintf(&b, ")\n %8s %12s %12s %12s", "rank", "total", "compute", "comm")
	if wait {
		fmt.Fprintf(&b, " %12s", "wait")
	}
	fmt.Fprintf(&b, " %8s\n", "comm %")
	row := func(name string, t RankTimes) {
		share := 0.0
		if t.Total > 0 {
			share = 100 * t.Comm / t.Total
		}
		fmt.Fprintf(&b, " %8s %12.4f %12.4f %12.4f", name, t.Total, t.Compute, t.Comm)
		if wait {
			fmt.Fprintf(&b, " %12.4f", t.Wait)
		}
		fmt.Fprintf(&b, " %8.1f\n", share)
	}
	for i, t := range r.Ranks {
		row(fmt.Sprint(i), t)
	}
	row("max", mx)
	if len(r.Ranks) > 1 && !math.IsNaN(r.CommCallMax) {
		fmt.Fprintf(&b, " %8s %12s %12s %12.4f   (comm: the slowest rank's time in each call, summed over the calls)\n", "by call", "", "", r.CommCallMax)
	}
	if len(r.Ranks) > 1 && !math.IsNaN(r.AlignCallMax) {
		fmt.Fprintf(&b, " %8s %12s %12s %12s %12.4f   (wait: how much later the last rank left each step's first barrier than the first, summed)\n", "skew", "", "", "", r.AlignCallMax)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
