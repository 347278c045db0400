package cli

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/analysis/scaling"
	"github.com/mpbench/mpbench/app/hostblas"
	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/internal/sink"
	"github.com/mpbench/mpbench/launch/supervise"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/rowfile"
)

// scalingFlags are the options of "mpbench scaling".
type scalingFlags struct {
	np       []int
	repeats  int
	c1       float64
	jsonFile string
	csvFile  string
}

// newScalingCmd is "mpbench scaling [options] -- COMMAND".
func newScalingCmd(inv *invocation) *cobra.Command {
	var f scalingFlags
	cmd := &cobra.Command{
		Use:   "scaling [--np 1,2,4,8] [--repeats 3] -- app NAME [options] | COMMAND with {np}",
		Short: "Run an application at several process counts and print the study's scaling table",
		Long: `scaling runs an application at every process count of --np, --repeats times in
interleaved rounds, and prints the table of the study's section 4.3: T(N) (the
median of the repeats, with the fastest and slowest), the computation time
C1/N (C1 the one-process time), the communication estimate T(N) - C1/N,
speedup C1/T(N), efficiency, the budget C1 - C1/N (the most communication N
processes may spend and still beat one) and where adding processes stops
paying.

After "--" comes either an mpbench application ("app matmul -n 2000", "app ep
--class A": T(N) is the time it reports, and the communication it measures
inside its calls is printed beside the estimate), or any command with an
{np} placeholder, timed from start to exit, as the study ran GROMACS and
LAMMPS. An application's measured communication is its comm_calls_max_s
(the slowest rank's time in each call, summed), and its transport and BLAS
go into the --json/--csv metadata as "mpbench app" writes them:

  mpbench scaling --np 1,2,4 -- mpirun -np {np} lmp -in in.lj

Without 1 in --np, --c1 SECONDS gives the one-process time. --json and
--csv write every run as a row as soon as it ends; a failing run stops the
sweep, keeps the rows and exits 1.`,
		Example: `  mpbench scaling --np 1,2,4 --repeats 3 -- app matmul -n 1000
  mpbench scaling --np 2,4,8 --c1 16.2 -- mpirun -np {np} ./ft.A.x`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScaling(cmd, &f, inv, args)
		},
	}
	fs := cmd.Flags()
	fs.IntSliceVar(&f.np, "np", []int{1, 2, 4}, "process counts to run at, e.g. 1,2,4,8")
	fs.IntVar(&f.repeats, "repeats", 3, "runs per process count (T(N) is their median)")
	fs.Float64Var(&f.c1, "c1", 0, "one-process time C1 in seconds, when 1 is not in --np")
	fs.StringVar(&f.jsonFile, "json", "", "also write every run to FILE as JSON Lines, as it ends")
	fs.StringVar(&f.csvFile, "csv", "", "also write every run to FILE as CSV, as it ends")
	return cmd
}

// runScaling checks the input, runs the sweep and prints the table.
func runScaling(cmd *cobra.Command, f *scalingFlags, inv *invocation, args []string) error {
	if cmd.ArgsLenAtDash() != 0 || len(args) == 0 {
		return usageErrorf("scaling needs the command after \"--\": mpbench scaling --np 1,2,4 -- app matmul -n 1000, or -- mpirun -np {np} PROGRAM")
	}
	if f.repeats < 1 {
		return usageErrorf("--repeats %d: need at least 1 run per process count", f.repeats)
	}
	for i, np := range f.np {
		if err := bench.CheckNP(np); err != nil {
			return err
		}
		if slices.Contains(f.np[:i], np) {
			return usageErrorf("--np %s: %d twice; give each process count once (--repeats runs each several times)", joinInts(f.np), np)
		}
	}
	if f.c1 < 0 || math.IsNaN(f.c1) || math.IsInf(f.c1, 0) {
		return usageErrorf("--c1 %g: expected the one-process time in seconds, > 0", f.c1)
	}
	if f.c1 == 0 && !slices.Contains(f.np, 1) {
		return usageErrorf("--np %s has no 1: give the one-process time with --c1 SECONDS, or add 1", joinInts(f.np))
	}
	if err := checkOutputPaths(f.jsonFile, f.csvFile, stdoutScaling); err != nil {
		return err
	}
	isApp := args[0] == "app"
	if isApp {
		if err := checkAppArgs(cmd, args); err != nil {
			return err
		}
		for _, a := range args {
			switch flagName(a) {
			case "np":
				return usageErrorf("%s: scaling sets the process count of every run from --np; leave -np out of the application's options", a)
			case "json", "csv":
				return usageErrorf("%s: scaling writes every run's row to its own --json/--csv; give them before \"--\" (mpbench scaling --%s FILE -- app ...)", a, flagName(a))
			}
		}
	} else if !strings.Contains(strings.Join(args, " "), "{np}") {
		return usageErrorf("%s: the command needs an {np} placeholder for the process count (e.g. mpirun -np {np} %s), or run an mpbench application with '-- app NAME'", args[0], args[0])
	} else if _, err := exec.LookPath(args[0]); err != nil {
		return usageErrorf("%s: no such program (not in PATH, or not an executable file); give its path, or install it", args[0])
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find the mpbench executable: %w", err)
	}
	ctx, stop := notifyInterrupt(context.Background())
	defer stop()
	if isApp {
		// Every process count's options are checked before the first run,
		// so that one the application refuses (FT at -np 3) fails at once.
		for _, np := range f.np {
			argv := append([]string{exe}, append(append([]string{}, args...), "--np", strconv.Itoa(np), "--"+checkOnlyFlag)...)
			if _, err := runScalingChild(ctx, argv, "mpbench "+strings.Join(args, " ")+" --np "+strconv.Itoa(np), true); err != nil {
				return err
			}
		}
	}
	// The files are created now, so that a path that cannot be written
	// fails before the first run, and again with the application's own
	// facts (its BLAS) once the first run has told them, before any row.
	files, err := openScalingFiles(f, inv, args, result.Meta{})
	if err != nil {
		return err
	}
	defer func() { files.Close() }()
	rows := 0
	tmp, err := os.MkdirTemp("", "mpbench-scaling")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	stderr := cmd.ErrOrStderr()
	var last result.Row
	run := func(np, rep int) (scaling.Measurement, error) {
		if isApp {
			m, row, meta, err := runScalingApp(ctx, exe, args, np, filepath.Join(tmp, "run.jsonl"))
			last = row
			if err == nil && rows == 0 {
				files.Close()
				if files, err = openScalingFiles(f, inv, args, meta); err != nil {
					files = &rowfile.Open{}
				}
			}
			return m, err
		}
		m, err := runScalingCommand(ctx, args, np)
		last = result.NewRow(scaling.ProgramName(args), np, -1)
		last.Repetitions, last.TMax = 1, m.T*1e6
		return m, err
	}
	each := func(m scaling.Measurement) error {
		comm := ""
		if !math.IsNaN(m.CommS) {
			comm = fmt.Sprintf(", communication %.4g s", m.CommS)
		}
		fmt.Fprintf(stderr, "scaling: N = %d, run %d of %d: T = %.4g s%s\n", m.NP, m.Repeat+1, f.repeats, m.T, comm)
		rows++
		return files.WriteRow(last)
	}
	ms, err := scaling.Sweep(f.np, f.repeats, run, each)
	if ctx.Err() != nil {
		err = cancelCause(ctx, errInterrupted)
	}
	if werr := files.WriteEnd(err); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		return err
	}
	tb, err := scaling.Build(ms, f.c1)
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "# Scaling of: %s\n", strings.Join(args, " "))
	return tb.Print(cmd.OutOrStdout())
}

// runScalingApp runs "mpbench app ..." on np ranks with its row written to
// jsonPath, and returns T(N) and the measured communication from that row
// (scaling.MeasuredComm: its comm_calls_max_s), the row, and the run's
// meta record.
func runScalingApp(ctx context.Context, exe string, args []string, np int, jsonPath string) (scaling.Measurement, result.Row, result.Meta, error) {
	argv := append(append([]string{}, args...), "--np", strconv.Itoa(np), "--json", jsonPath)
	if _, err := runScalingChild(ctx, append([]string{exe}, argv...), "mpbench "+strings.Join(argv, " "), true); err != nil {
		return scaling.Measurement{}, result.Row{}, result.Meta{}, err
	}
	file, err := os.Open(jsonPath)
	if err != nil {
		return scaling.Measurement{}, result.Row{}, result.Meta{}, err
	}
	defer file.Close()
	runs, err := rowfile.ReadJSONL(file, jsonPath)
	if err != nil || len(runs) != 1 || len(runs[0].Rows) != 1 {
		return scaling.Measurement{}, result.Row{}, result.Meta{}, fmt.Errorf("reading the application's row from %s: %v", jsonPath, err)
	}
	row := runs[0].Rows[0]
	return scaling.Measurement{T: row.TMax / 1e6, CommS: scaling.MeasuredComm(row.Extra)}, row, runs[0].Meta, nil
}

// runScalingCommand runs an external command with {np} replaced by np and
// times it from start to exit.
func runScalingCommand(ctx context.Context, args []string, np int) (scaling.Measurement, error) {
	argv := make([]string, len(args))
	for i, a := range args {
		argv[i] = strings.ReplaceAll(a, "{np}", strconv.Itoa(np))
	}
	t, err := runScalingChild(ctx, argv, strings.Join(argv, " "), false)
	if err != nil {
		return scaling.Measurement{}, err
	}
	return scaling.Measurement{T: t.Seconds(), CommS: math.NaN()}, nil
}

// runScalingChild runs one run of the sweep, argv, named name in errors,
// as a supervised child (supervise.Command: an interrupt is passed on to
// it), and returns the time from its start to its exit. A run that fails
// is an error ending with the last 10 lines of its output; when the child
// is mpbench (an application) and refused its input (childUsage), a usage
// error, so that scaling exits 2 as the application would have.
func runScalingChild(ctx context.Context, argv []string, name string, mpbench bool) (time.Duration, error) {
	var out bytes.Buffer
	t0 := time.Now()
	err := supervise.Command{Argv: argv, Name: name, Stdout: &out, Stderr: &out}.Run(ctx)
	took := time.Since(t0)
	switch {
	case err == nil:
		return took, nil
	case out.Len() == 0 && mpbench && childUsage(err):
		return took, usageErrorf("%s: bad input (no output)", name)
	case mpbench && childUsage(err) && strings.Count(strings.TrimSpace(out.String()), "\n") == 0:
		return took, usageErrorf("%s: %s", name, strings.TrimPrefix(strings.TrimSpace(out.String()), errorPrefix))
	case mpbench && childUsage(err):
		return took, usageErrorf("%s: bad input; its output ended:\n%s", name, tail(out.String(), 10))
	case out.Len() == 0:
		return took, fmt.Errorf("%v (no output)", err)
	}
	return took, fmt.Errorf("%v; its output ended:\n%s", err, tail(out.String(), 10))
}

// flagName is the name of the option a is ("np" for -np, --np, -np=4 or
// --np=4), or "" when a is not an option.
func flagName(a string) string {
	if !strings.HasPrefix(a, "-") {
		return ""
	}
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	return name
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// openScalingFiles opens --json and --csv and writes their meta record:
// the sweep's command args (scaling.InfoCommand), and the facts of app, an
// mpbench application run's meta record, that hold for every run of the
// sweep: its transport and its BLAS (hostblas.FieldKeys). The zero Meta
// adds none.
func openScalingFiles(f *scalingFlags, inv *invocation, args []string, app result.Meta) (*rowfile.Open, error) {
	m := sink.LocalMachine()
	meta := result.Meta{
		Tool: "mpbench", Version: Version, MByte: 1e6, Date: time.Now().Format(time.RFC3339Nano),
		Host: m.Host, Command: inv.commandLine(),
		Options: map[string]string{"np": joinInts(f.np), "repeats": strconv.Itoa(f.repeats)},
		Info: map[string]string{"cpu": m.CPU, "cores": strconv.Itoa(m.Cores), "go": runtime.Version(),
			"os": runtime.GOOS + "/" + runtime.GOARCH, "kernel": m.Release, scaling.InfoCommand: strings.Join(args, " ")},
		Transport: app.Transport,
	}
	for _, k := range hostblas.FieldKeys {
		if v, ok := app.Info[k]; ok {
			meta.Info[k] = v
		}
	}
	return rowfile.Files{JSON: f.jsonFile, CSV: f.csvFile}.Create(meta)
}
