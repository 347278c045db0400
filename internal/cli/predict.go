package cli

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/app/matmul"
	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/result"
)

// newPredictCmd is "mpbench predict": application times predicted from
// benchmark tables.
func newPredictCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:         "predict APP [options]",
		Short:       "Predict an application's communication time from benchmark tables",
		Annotations: map[string]string{nounAnnotation: "application"},
	}
	cmd.AddCommand(newPredictMatmulCmd())
	return cmd
}

// predictFlags are the options of "mpbench predict matmul".
type predictFlags struct {
	bench   []string
	scaling []string
	n       int
	np      []int
	net     string
}

// newPredictMatmulCmd is "mpbench predict matmul".
func newPredictMatmulCmd() *cobra.Command {
	var f predictFlags
	cmd := &cobra.Command{
		Use:   "matmul --bench FILE [-n 2000] [--np 2,4,8,16] [--net switch|shared|multi|auto] [--scaling FILE]",
		Short: "Predict the block matrix product's communication from measured Bcast tables (the study's expressions 4.4 and 4.5)",
		Long: `Predicts the communication time of "mpbench app matmul" on N = p x q ranks as the
study does (section 4.3.3, expression 4.4): q x multi_p Bcast_q(M/N) +
p x multi_q Bcast_p(M/N), M the bytes of one n x n float64 matrix, where p
simultaneous Bcasts cost one Bcast on a switched network and p of them on a
shared one (expression 4.5). --net multi takes multi_p Bcast_q as measured:
the files' Multi-Bcast of p groups of q ranks (mpbench run or IMB-MPI1 with
-multi 0, on the ranks that run the product), which counts whatever the
simultaneous Bcasts share, a hub or one host's CPUs. A row measured with
mpbench run --sync-all gives the time of one call as the product waits for
it (t_callmax_usec: every group's call started together, the slowest rank's
time in each call, averaged), and that is used in place of t_max (IMB's
groups call unsynchronised, and t_max is the slowest rank's mean).

Bcast times come from the --bench files (IMB, OSU or mpbench output of any
version): measured at the block size, or interpolated on a log scale between
the measured sizes around it. Where the rank count or the size was not
measured, from a model: a Hockney fit of the files' PingPong (else of their
Bcast on 2 ranks) with the cost formula of the Bcast algorithm coll's decision
table picks; the source column says which, so predictions for N beyond the
machine (--np 64,1024; N at most n) are labelled as the model's. --net auto takes the
switched/shared verdict from the ABG classification of the same files
(Multi-PingPong, Sendrecv, Exchange at several process counts). --scaling
reads mpbench app matmul or mpbench scaling result files and prints the
measured communication (median over runs of comm_calls_max_s, the slowest
rank's time in each Bcast summed; comm_max_s from older files) beside the
prediction.`,
		Example: `  mpbench run -np 2 --sync-all -msglog 16:22 --all-sizes -iter 1000,4096 Bcast PingPong --json bc2.jsonl
  mpbench run -np 4 --sync-all -npmin 2 -msglog 16:22 --all-sizes -iter 1000,4096 Bcast PingPong --json bc4.jsonl
  mpbench run -np 4 --sync-all -npmin 2 -multi 0 -msglog 16:22 --all-sizes -iter 1000,4096 Bcast --json mb4.jsonl
  mpbench scaling --np 1,2,4 --json mm.jsonl -- app matmul -n 1000 --sync
  mpbench predict matmul --bench bc2.jsonl -n 1000 --np 2 --net switch --scaling mm.jsonl
  mpbench predict matmul --bench bc4.jsonl,mb4.jsonl -n 1000 --np 4 --net multi --scaling mm.jsonl
  mpbench predict matmul --bench bc4.jsonl -n 1000 --np 4,64,512 --net switch`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPredictMatmul(cmd, &f) },
	}
	fs := cmd.Flags()
	fs.StringSliceVar(&f.bench, "bench", nil, "benchmark result files with Bcast (and PingPong) tables (required; repeat or comma-separate)")
	fs.StringSliceVar(&f.scaling, "scaling", nil, "result files of mpbench app matmul or mpbench scaling: the measured communication")
	fs.IntVarP(&f.n, "n", "n", 2000, "matrix order n")
	fs.IntSliceVar(&f.np, "np", []int{2, 4, 8, 16}, "process counts to predict for")
	fs.StringVar(&f.net, "net", "auto", "switch (simultaneous Bcasts in parallel), shared (serialised: hub, wifi), multi (as the files' measured Multi-Bcast), or auto (from the files' ABG)")
	return cmd
}

// runPredictMatmul reads the files and prints the prediction table.
func runPredictMatmul(cmd *cobra.Command, f *predictFlags) error {
	if len(f.bench) == 0 {
		return usageErrorf("predict matmul needs --bench FILE: a result file with Bcast tables (e.g. from mpbench run -np 4 -npmin 2 Bcast PingPong --json bc.jsonl)")
	}
	if err := checkMatrixOrder(f.n); err != nil {
		return err
	}
	for _, np := range f.np {
		if err := bench.CheckNP(np); err != nil {
			return err
		}
		if f.n < np {
			return usageErrorf("-n %d on %d ranks: the product gives every rank a block, so it needs n >= N (mpbench app matmul refuses it); use -n %d or more, or fewer ranks", f.n, np, np)
		}
	}
	if f.net != "switch" && f.net != "shared" && f.net != "auto" && f.net != "multi" {
		return usageErrorf("--net %s: use switch, shared, multi or auto", f.net)
	}
	rows, err := loadRows(cmd, "--bench", f.bench)
	if err != nil {
		return err
	}
	bt := analysis.NewBcastTimes(rows)
	est := analysis.BcastEstimator{Times: bt}
	modelNote := "none (no PingPong or 2-rank Bcast to fit)"
	if m, err := analysis.FitBcastModel(rows); err == nil {
		m.Cost = bcastCost
		est.Model = &m
		modelNote = fmt.Sprintf("Hockney fit of %s (alpha %.4g us, %.4g MB/s) with coll's Bcast cost formulas", m.From, m.Fit.AlphaUsec, m.Fit.BandwidthMBps)
	}
	// osu_bcast prints no process count: without the launcher line above
	// its title, its rows cannot be used.
	noProcs := ""
	if files := analysis.BcastFilesWithoutProcs(rows); len(files) > 0 {
		noProcs = fmt.Sprintf("the Bcast table of %s has no process count (osu_bcast prints none), so it is left out: keep the launcher line that ran it (mpirun -np 4 osu_bcast) above its title", strings.Join(files, ", "))
	}
	if len(bt.Procs()) == 0 && est.Model == nil {
		if noProcs != "" {
			return usageErrorf("%s", noProcs)
		}
		return usageErrorf("%v: no Bcast or PingPong table; measure one with 'mpbench run -np 4 -npmin 2 Bcast PingPong --json FILE'", f.bench)
	}
	medium, verdict := analysis.Switched, "given (--net switch)"
	switch f.net {
	case "shared":
		medium, verdict = analysis.Shared, "given (--net shared)"
	case "multi":
		medium, verdict = analysis.MultiMeasured, "given (--net multi: simultaneous Bcasts from the files' Multi-Bcast)"
	case "auto":
		var ev string
		if medium, ev, err = analysis.MediumFromABG(rows); err != nil {
			return usageErrorf("--net auto: %v; give the network instead: --net switch (a switch, or ranks on one host), --net shared (a hub, wifi) or --net multi (with a Multi-Bcast file, mpbench run -multi 0 Bcast)", err)
		}
		verdict = "from the files' ABG: " + ev
	}
	measured, measuredNote := map[int]float64{}, ""
	if len(f.scaling) > 0 {
		srows, err := loadRows(cmd, "--scaling", f.scaling)
		if err != nil {
			return err
		}
		measured, measuredNote = measuredMatmulComm(srows, f.n)
		if len(measured) == 0 {
			return usageErrorf("--scaling %s: no mpbench app matmul run of -n %d%s; give -n of the runs, or the files of runs of that order", strings.Join(f.scaling, ","), f.n, matmulOrders(srows))
		}
	}
	matrix := int64(f.n) * int64(f.n) * 8
	var preds []matmul.Predicted
	for _, np := range f.np {
		var pr analysis.MatmulPrediction
		if medium == analysis.MultiMeasured {
			pr, err = analysis.PredictMatmulMulti(matrix, np, multiEstimate(rows, est))
		} else {
			pr, err = analysis.PredictMatmul(matrix, np, medium, est.Estimate)
		}
		if err != nil {
			if noProcs != "" {
				return usageErrorf("%v (%s)", err, noProcs)
			}
			return usageErrorf("%v", err)
		}
		m, ok := measured[np]
		if !ok {
			m = math.NaN()
		}
		preds = append(preds, matmul.Predicted{MatmulPrediction: pr, MeasuredS: m})
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "# Block matrix product, n = %d (M = %d bytes), communication by expression 4.4\n", f.n, matrix)
	fmt.Fprintf(out, "# Network: %s, %s\n", medium, verdict)
	fmt.Fprintf(out, "# Bcast times measured on %v ranks; model: %s\n", bt.Procs(), modelNote)
	if noProcs != "" {
		fmt.Fprintf(out, "# Note: %s\n", noProcs)
	}
	if k := analysis.CallTimes(rows); k > 0 {
		fmt.Fprintf(out, "# Bcast time per call: the slowest rank's time in each call, averaged (t_callmax_usec, mpbench run --sync-all) in %d rows, t_max in the others\n", k)
	}
	if measuredNote != "" {
		fmt.Fprintf(out, "# Measured communication: median over runs of %s\n", measuredNote)
	}
	return matmul.WritePredictions(out, preds)
}

// multiEstimate returns the time of one of groups simultaneous Bcasts
// among procs ranks: est's plain Bcast for one group, else the files'
// Multi-Bcast of that many groups, measured at bytes or interpolated on a
// log scale. Error (naming the run that would measure it) when the files
// have no such Multi-Bcast around bytes.
func multiEstimate(rows []result.Row, est analysis.BcastEstimator) func(groups, procs int, bytes int64) (analysis.BcastEstimate, error) {
	multi := analysis.NewMultiBcastTimes(rows)
	return func(groups, procs int, bytes int64) (analysis.BcastEstimate, error) {
		if groups <= 1 || procs <= 1 {
			return est.Estimate(procs, bytes)
		}
		e := analysis.BcastEstimate{Procs: procs, Bytes: bytes}
		u, ok := multi[groups].Interp(procs, bytes)
		if !ok {
			return e, fmt.Errorf("--net multi: no Multi-Bcast of %d groups of %d ranks around %d bytes in the files; measure it with 'mpbench run -np %d -npmin %d -multi 0 Bcast --json FILE' on the ranks that run the product", groups, procs, bytes, groups*procs, procs)
		}
		e.Usec, e.Source = u, fmt.Sprintf("multi x%d interpolated", groups)
		return e, nil
	}
}

// loadRows reads every row of the files of option (--bench, --scaling):
// a file that cannot be read is one usage error naming the option and the
// file ("--bench bc.jsonl: no such file").
func loadRows(cmd *cobra.Command, option string, paths []string) ([]result.Row, error) {
	files, err := loadFiles(paths, cmd.InOrStdin(), cmd.ErrOrStderr())
	if err != nil {
		return nil, usageErrorf("%s %v", option, err)
	}
	var rows []result.Row
	for _, lf := range files {
		for _, r := range lf.runs {
			rows = append(rows, r.Rows...)
		}
	}
	return rows, nil
}

// measuredMatmulComm is the median over runs of the measured communication
// of the matrix product of order n, by process count: per run the sum over
// its Bcasts of the slowest rank's time in each (comm_calls_max_s), which
// is what expression 4.4's sum of per-Bcast times predicts, or in files
// without it the largest sum over one rank (comm_max_s). what names the
// definitions the runs used, for the table's header.
func measuredMatmulComm(rows []result.Row, n int) (out map[int]float64, what string) {
	by := map[int][]float64{}
	var calls, ranks int
	for _, r := range rows {
		if r.Benchmark != "matmul" || r.Bytes != int64(n) {
			continue
		}
		if c, ok := r.Extra["comm_calls_max_s"]; ok {
			by[r.Processes] = append(by[r.Processes], c)
			calls++
		} else if c, ok := r.Extra["comm_max_s"]; ok {
			by[r.Processes] = append(by[r.Processes], c)
			ranks++
		}
	}
	out = map[int]float64{}
	for np, v := range by {
		sort.Float64s(v)
		out[np] = (v[(len(v)-1)/2] + v[len(v)/2]) / 2
	}
	const byCall, byRank = "the slowest rank's time in each Bcast, summed (comm_calls_max_s)", "the largest sum over one rank (comm_max_s)"
	switch {
	case calls > 0 && ranks > 0:
		what = fmt.Sprintf("%s in %d runs, %s in %d older ones", byCall, calls, byRank, ranks)
	case calls > 0:
		what = byCall
	case ranks > 0:
		what = byRank
	}
	return out, what
}

// matmulOrders names the orders of the matrix product's runs in rows, as
// " (the files have -n 100, 1000)", or "" when they have none.
func matmulOrders(rows []result.Row) string {
	var ns []int64
	for _, r := range rows {
		if r.Benchmark == "matmul" && !slices.Contains(ns, r.Bytes) {
			ns = append(ns, r.Bytes)
		}
	}
	if len(ns) == 0 {
		return " (the files have none)"
	}
	slices.Sort(ns)
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.FormatInt(n, 10)
	}
	return " (the files have -n " + strings.Join(s, ", ") + ")"
}

// bcastCost is analysis.BcastModel's cost model: the time of the Bcast
// algorithm coll's decision table picks for p ranks and bytes, by that
// algorithm's cost formula (coll.Cost), and the algorithm in override
// syntax ("pipeline:seg=16384").
func bcastCost(p int, bytes int64, alpha, beta float64) (float64, string, error) {
	ch, err := coll.Algorithms{}.Select("bcast", p, int(bytes))
	if err != nil {
		return math.NaN(), "", err
	}
	u, err := coll.Cost("bcast", ch, p, int(bytes), coll.Hockney{Alpha: alpha, Beta: beta})
	return u, ch.String(), err
}
