package report

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/analysis/scaling"
	"github.com/mpbench/mpbench/result"
)

// AppScaling is one application's runs at several process counts in a
// result file ("mpbench app" or "mpbench scaling" rows), decomposed as
// the study's section 4.3 does.
type AppScaling struct {
	Name  string // the application's row name, e.g. "matmul" or "EP.A"
	Size  int64  // problem size in elements (the rows' bytes column)
	Table *scaling.Table
	Err   error // why no table: no one-process run to take C1 from
}

// isAppRow reports whether r is an application's run (it carries the
// communication time mpbench's applications measure) rather than a
// benchmark's row.
func isAppRow(r *result.Row) bool {
	_, ok := r.Extra["comm_max_s"]
	return ok
}

// SplitAppRows separates run's application rows from its benchmarks':
// every row of a scaling sweep's file (scaling.SweepCommand; an external
// command's rows named by the program it ran, scaling.ProgramName, also in
// files that named them by its launcher), else the rows of mpbench's
// applications (they carry comm_max_s).
func SplitAppRows(run result.Run) (bench, apps []result.Row) {
	if argv, ok := scaling.SweepCommand(run.Meta); ok {
		launcher, name := filepath.Base(argv[0]), scaling.ProgramName(argv)
		for _, r := range run.Rows {
			if r.Benchmark == launcher && argv[0] != "app" {
				r.Benchmark = name
			}
			apps = append(apps, r)
		}
		return nil, apps
	}
	for _, r := range run.Rows {
		if isAppRow(&r) {
			apps = append(apps, r)
		} else {
			bench = append(bench, r)
		}
	}
	return bench, apps
}

// appScalings groups application rows by application and size and builds
// each group's scaling table (scaling.Build; C1 from the one-process
// runs).
func appScalings(rows []result.Row) []AppScaling {
	type key struct {
		name string
		size int64
	}
	var order []key
	ms := map[key][]scaling.Measurement{}
	for _, r := range rows {
		k := key{r.Benchmark, r.Bytes}
		if _, ok := ms[k]; !ok {
			order = append(order, k)
		}
		ms[k] = append(ms[k], scaling.Measurement{NP: r.Processes, T: r.TMax / 1e6, CommS: scaling.MeasuredComm(r.Extra)})
	}
	var out []AppScaling
	for _, k := range order {
		t, err := scaling.Build(ms[k], 0)
		out = append(out, AppScaling{Name: k.name, Size: k.size, Table: t, Err: err})
	}
	return out
}

// label names the application and its size, "matmul (size 1000)", or the
// command's program alone for an external command's sweep (no size).
func (a AppScaling) label() string {
	if a.Size < 0 {
		return a.Name
	}
	return fmt.Sprintf("%s (size %d)", a.Name, a.Size)
}

// appSection lays out one application's scaling table.
func (a AppScaling) section() Section {
	sec := Section{Title: fmt.Sprintf("Application %s: scaling", a.label())}
	switch {
	case errors.Is(a.Err, scaling.ErrNoC1):
		sec.line("no scaling table: no run on 1 process to take C1 from; give the file of one with this one (mpbench app ... -np 1 --json FILE), or run mpbench scaling with 1 in --np")
		return sec
	case a.Err != nil:
		sec.line("no scaling table: %v", a.Err)
		return sec
	}
	t := analysis.Table{Title: sec.Title, Columns: []analysis.Column{{Name: "N"}, {Name: "T(N)", Unit: "s"}, {Name: "min", Unit: "s"}, {Name: "max", Unit: "s"},
		{Name: "C1/N", Unit: "s"}, {Name: "T(N) - C1/N", Unit: "s"}, {Name: "measured comm", Unit: "s"}, {Name: "budget C1 - C1/N", Unit: "s"},
		{Name: "speedup"}, {Name: "efficiency"}}}
	for _, r := range a.Table.Rows {
		c := func(v float64, p int) analysis.Cell { return analysis.Cell{Value: v, Prec: p} }
		t.Rows = append(t.Rows, []analysis.Cell{c(float64(r.Nodes), 0), c(r.TotalS, 4), c(r.Min, 4), c(r.Max, 4), c(r.ComputeS, 4),
			c(r.CommS, 4), c(r.MeasuredCommS, 4), c(r.BudgetS, 4), c(r.Speedup, 3), c(r.Efficiency, 3)})
	}
	sec.table(t)
	sec.line("C1 = %.4g s (%s); T(N) is the median of the runs at N; T(N) - C1/N is the study's communication estimate, "+
		"measured comm the time the application spent inside its communication calls, the slowest rank's time in each call summed (comm_calls_max_s; median)", a.Table.C1S, a.Table.C1Source)
	if a.Table.StopsAt > 0 {
		sec.line("adding processes stops paying at N = %d; fastest on N = %d", a.Table.StopsAt, a.Table.Best)
	} else {
		sec.line("every added process shortened the run; fastest on N = %d", a.Table.Best)
	}
	return sec
}

// AppScalingPlot draws T(N), C1/N and the measured communication against
// the process count, both axes logarithmic (the study's figures 4.87 and
// 4.109-4.123).
func AppScalingPlot(title string, a AppScaling) (*plot.Plot, string, error) {
	cs := appCurves(a)
	if len(cs) == 0 {
		return nil, "", fmt.Errorf("report: %q: fewer than two process counts", title)
	}
	p, err := logLogPlot(title, "processes", "time [s]", cs)
	if err != nil {
		return nil, "", err
	}
	p.X.Tick.Marker = countTicks(cs)
	return p, "Run time T(N), the computation time C1/N it would take with no communication, and the communication time " +
		"the application measured inside its calls, against the number of processes, both axes logarithmic: where T(N) " +
		"stops falling, communication outgrows the computation saved.", nil
}

// appCurves returns the curves of AppScalingPlot: T(N), C1/N and, when
// measured at two or more counts above one process, the communication;
// none for fewer than two process counts.
func appCurves(a AppScaling) []curve {
	if a.Table == nil || len(a.Table.Rows) < 2 {
		return nil
	}
	cs := []curve{{label: "T(N)"}, {label: "C1/N"}, {label: "measured communication"}}
	for _, r := range a.Table.Rows {
		x := float64(r.Nodes)
		cs[0].xy = append(cs[0].xy, plotter.XY{X: x, Y: r.TotalS})
		cs[1].xy = append(cs[1].xy, plotter.XY{X: x, Y: r.ComputeS})
		if r.Nodes > 1 && r.MeasuredCommS > 0 && !math.IsNaN(r.MeasuredCommS) {
			cs[2].xy = append(cs[2].xy, plotter.XY{X: x, Y: r.MeasuredCommS})
		}
	}
	if len(cs[2].xy) < 2 {
		cs = cs[:2]
	}
	return cs
}
