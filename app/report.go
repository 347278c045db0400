package app

import (
	"fmt"
	"io"
	"math"
	"strings"

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
	Notes     []string // further lines for the text output (grid, BLAS, load)
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

// GatherTimes collects every rank's times on rank 0 of c (an untimed
// MPI_Gather on c.Raw()); other ranks get only their own.
func GatherTimes(c *Comm, mine RankTimes) ([]RankTimes, error) {
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
// (compute_max_s, compute_avg_s, comm_max_s, comm_avg_s, and
// wait_max_s, wait_avg_s when the run synchronised, in seconds), mops
// and verified (1 or 0; left out when Unchecked).
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
	_, err := io.WriteString(w, b.String())
	return err
}
