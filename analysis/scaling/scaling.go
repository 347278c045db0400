// Package scaling runs an application at several process counts and
// builds the study's scaling table (section 4.3): T(N), the computation
// time C1/N, the communication estimate T(N) - C1/N, speedup, efficiency,
// the communication budget C1 - C1/N (figure 4.87) and where adding nodes
// stops paying, with the communication mpbench's applications measure
// inside their calls beside the estimate.
package scaling

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/result"
)

// Measurement is one run at NP processes.
type Measurement struct {
	NP     int
	Repeat int     // 0-based repeat index
	T      float64 // run time T(N), seconds
	// CommS is the communication time measured inside the application's
	// calls, seconds: the slowest rank's time in each call, summed over
	// the calls (an mpbench application's comm_calls_max_s); NaN when the
	// command does not report it (external commands).
	CommS float64
}

// Sweep runs run(np, repeat) for every process count in nps, repeats
// times, in interleaved rounds (every count once per round, so that a
// drift of the machine spreads over all counts), passing each
// measurement to each as soon as it is taken. It stops at the first error
// of run or each and returns the measurements taken so far with it.
func Sweep(nps []int, repeats int, run func(np, repeat int) (Measurement, error), each func(Measurement) error) ([]Measurement, error) {
	var out []Measurement
	for r := 0; r < repeats; r++ {
		for _, np := range nps {
			m, err := run(np, r)
			if err != nil {
				return out, fmt.Errorf("run at -np %d (repeat %d of %d): %w", np, r+1, repeats, err)
			}
			m.NP, m.Repeat = np, r
			out = append(out, m)
			if err := each(m); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// Row is the table's row for one process count.
type Row struct {
	analysis.AppShare         // TotalS is the median T(N) of the repeats
	Min, Max          float64 // fastest and slowest repeat, seconds
	Repeats           int
	// MeasuredCommS is the median communication time measured inside the
	// application's calls, NaN when not reported.
	MeasuredCommS float64
}

// Table is the scaling table of a sweep.
type Table struct {
	C1S      float64 // the one-node time C1, seconds
	C1Source string  // where C1 comes from ("T(1) measured", "given")
	Rows     []Row
	Best     int // node count with the shortest median T(N)
	StopsAt  int // first node count not faster than the one before (0: none)
}

// ErrNoC1 is Build's error for measurements without a one-process run
// and no C1 given.
var ErrNoC1 = errors.New("no one-process run to take C1 from")

// MeasuredComm is the communication time an mpbench application's row
// reports, from its extra columns, in seconds: comm_calls_max_s (the
// slowest rank's time in each call, summed: how long the run's
// communication lasted), else comm_max_s (the largest sum over one rank,
// from builds that do not write the former), else NaN.
func MeasuredComm(extra map[string]float64) float64 {
	if c, ok := extra["comm_calls_max_s"]; ok {
		return c
	}
	if c, ok := extra["comm_max_s"]; ok {
		return c
	}
	return math.NaN()
}

// InfoCommand is the metadata key (result.Meta.Info) of a scaling sweep's
// result file that holds the command it ran at every process count, as
// given after "--" ("app matmul -n 1000", "mpirun -np {np} lmp -in
// in.lj"): every row of such a file is one run of it.
const InfoCommand = "scaling_command"

// SweepCommand returns the command of a scaling sweep's result file from
// its metadata (InfoCommand, or in files written without it the part of
// the mpbench command line after "mpbench scaling ... --"), split into
// words, and whether meta is a sweep's.
func SweepCommand(meta result.Meta) ([]string, bool) {
	if c := meta.Info[InfoCommand]; c != "" {
		return strings.Fields(c), true
	}
	f := strings.Fields(meta.Command)
	if meta.Tool != "mpbench" || len(f) < 3 || filepath.Base(f[0]) != "mpbench" || f[1] != "scaling" {
		return nil, false
	}
	for i, a := range f {
		if a == "--" && i+1 < len(f) {
			return f[i+1:], true
		}
	}
	return nil, false
}

// Build makes the table from measurements. C1 is the median T(1) when the
// sweep ran on one process, else c1 (> 0) when given; ErrNoC1 when neither.
func Build(ms []Measurement, c1 float64) (*Table, error) {
	byNP := map[int][]Measurement{}
	for _, m := range ms {
		byNP[m.NP] = append(byNP[m.NP], m)
	}
	nps := make([]int, 0, len(byNP))
	for np := range byNP {
		nps = append(nps, np)
	}
	sort.Ints(nps)
	t := &Table{}
	switch {
	case c1 > 0:
		t.C1S, t.C1Source = c1, "given (--c1)"
	case len(byNP[1]) > 0:
		t.C1S, t.C1Source = median(times(byNP[1])), "T(1), measured"
	default:
		return nil, ErrNoC1
	}
	runs := make([]analysis.AppRun, len(nps))
	for i, np := range nps {
		runs[i] = analysis.AppRun{Nodes: np, Seconds: median(times(byNP[np]))}
	}
	shares, err := analysis.Decompose(t.C1S, runs)
	if err != nil {
		return nil, err
	}
	for i, sh := range shares {
		ts := times(byNP[sh.Nodes])
		comm := make([]float64, 0, len(ts))
		for _, m := range byNP[sh.Nodes] {
			if !math.IsNaN(m.CommS) {
				comm = append(comm, m.CommS)
			}
		}
		r := Row{AppShare: shares[i], Min: slices.Min(ts), Max: slices.Max(ts), Repeats: len(ts), MeasuredCommS: math.NaN()}
		if len(comm) > 0 {
			r.MeasuredCommS = median(comm)
		}
		t.Rows = append(t.Rows, r)
	}
	t.Best, t.StopsAt = analysis.Payoff(shares)
	return t, nil
}

// Print writes the table, one row per process count, and the verdict.
func (t *Table) Print(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# C1 = %.4g s (%s); compute C1/N, communication estimate T(N) - C1/N (a lower bound when they overlap)\n", t.C1S, t.C1Source)
	fmt.Fprintf(&b, "# budget = C1 - C1/N: the most communication N processes may spend and still beat one\n")
	if slices.ContainsFunc(t.Rows, func(r Row) bool { return !math.IsNaN(r.MeasuredCommS) }) {
		fmt.Fprintf(&b, "# measured: the communication the application timed inside its calls, the slowest rank's time in each call summed (median of the repeats)\n")
	}
	fmt.Fprintf(&b, "%6s %10s %21s %10s %12s %12s %10s %8s %8s\n", "N", "T(N)[s]", "min..max[s]", "C1/N[s]", "T-C1/N[s]", "measured[s]", "budget[s]", "speedup", "effic.")
	for _, r := range t.Rows {
		meas := "-"
		if !math.IsNaN(r.MeasuredCommS) {
			meas = fmt.Sprintf("%.4g", r.MeasuredCommS)
		}
		fmt.Fprintf(&b, "%6d %10.4g %21s %10.4g %12.4g %12s %10.4g %8.3g %8.3g\n", r.Nodes, r.TotalS,
			fmt.Sprintf("%.4g..%.4g", r.Min, r.Max), r.ComputeS, r.CommS, meas, r.BudgetS, r.Speedup, r.Efficiency)
	}
	switch {
	case len(t.Rows) == 0:
	case t.StopsAt == 0:
		fmt.Fprintf(&b, "# every added process shortened the run; fastest on N = %d\n", t.Best)
	default:
		fmt.Fprintf(&b, "# adding processes stops paying at N = %d (not faster than the count before); fastest on N = %d\n", t.StopsAt, t.Best)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func times(ms []Measurement) []float64 {
	out := make([]float64, len(ms))
	for i, m := range ms {
		out[i] = m.T
	}
	return out
}

// median of v (mean of the middle two for an even count); v is not
// modified.
func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
