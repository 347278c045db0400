package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/report"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/read"
)

// analyzeFlags are the options shared by "mpbench analyze" and "mpbench
// report".
type analyzeFlags struct {
	wire    string
	k       int
	combine bool
}

// options turns the flags into report options, and warns in one line on
// cmd's stderr when --k is given without --wire (the latency is the mean
// difference to the wire time, so k has nothing to average). Error: a bad
// wire spec or k < 1, as a usage error.
func (f *analyzeFlags) options(cmd *cobra.Command) (report.Options, error) {
	if cmd.Flags().Changed("k") && f.wire == "" {
		fmt.Fprintln(cmd.ErrOrStderr(), "mpbench: warning: --k has no effect without --wire (the latency averages the differences to a wire model's times)")
	}
	opt := report.Options{K: f.k}
	if f.k < 1 {
		return opt, usageErrorf("--k %d: the latency averages the first k sizes; k must be 1 or more", f.k)
	}
	if f.wire != "" {
		m, err := analysis.ParseWireModel(f.wire)
		if err != nil {
			return opt, usageErrorf("--wire: %v", err)
		}
		opt.Wire = &m
	}
	return opt, nil
}

// addAnalyzeFlags defines --wire and --k on cmd.
func addAnalyzeFlags(cmd *cobra.Command, f *analyzeFlags) {
	cmd.Flags().StringVar(&f.wire, "wire", "", "link model for the wire-time table and % of line rate: "+analysis.WireSpecForms)
	cmd.Flags().IntVarP(&f.k, "k", "k", analysis.DefaultLatencySizes, "latency = mean difference of the first k sizes (needs --wire)")
	cmd.Flags().BoolVar(&f.combine, "combine", false, "also analyse all runs together as one (files of one network at different process counts: ABG scaling and inversions across them)")
}

// newAnalyzeCmd is "mpbench analyze FILE...".
func newAnalyzeCmd() *cobra.Command {
	var f analyzeFlags
	var format string
	cmd := &cobra.Command{
		Use:   "analyze FILE...",
		Short: "Print the study's tables for IMB, OSU or mpbench result files",
		Long: `analyze reads every FILE (IMB text output of any version, OSU Micro-Benchmarks
output, mpbench JSON Lines or CSV; the format is detected) and prints, for each
run and benchmark ("-" reads standard input): the wire-time table and latency (with --wire), the Hockney
alpha-beta fit with its eager/rendezvous break, the aggregate bandwidth across
process counts with the switch/shared-medium classification, anomaly flags and
the problems met while reading (file:line).

Times are in usec, sizes in bytes; bandwidths name their Mbyte (10^6 or 2^20).`,
		Example: `  mpbench analyze imb-pingpong.txt
  mpbench analyze --wire eth:1g --k 7 run1.txt run2.txt
  ssh node01 cat IMB.log | mpbench analyze -
  mpbench analyze --format json results/*.txt > analysis.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			fmtSel, err := report.ParseFormat(format)
			if err != nil {
				return usageErrorf("--format: %v", err)
			}
			opt, err := f.options(cmd)
			if err != nil {
				return err
			}
			files, loadErr := loadFiles(args, cmd.InOrStdin(), cmd.ErrOrStderr())
			reps := analyzeFiles(files, opt, f.combine)
			if err := report.WriteDocument(cmd.OutOrStdout(), reps, opt.K, fmtSel); err != nil {
				return err
			}
			return loadErr
		},
	}
	addAnalyzeFlags(cmd, &f)
	cmd.Flags().StringVar(&format, "format", string(report.Text), "output format: "+report.FormatNames)
	return cmd
}

// loadedFile is one result file read.
type loadedFile struct {
	path string
	runs []result.Run
}

// Stdin is the file argument that reads standard input.
const Stdin = "-"

// loadFiles reads every path with the format-detecting reader; the path
// "-" reads stdin (once: a second "-" reads nothing and is not benchmark
// output). A file that is missing or in no known format is named in one
// line "mpbench: FILE: ..." on stderr (once, when given twice); the last
// such error is returned as a usage error (exit status 2) for the caller
// to return once the readable files are done, and is not printed here.
func loadFiles(paths []string, stdin io.Reader, stderr io.Writer) ([]loadedFile, error) {
	var out []loadedFile
	var last error
	said := map[string]bool{} // errors kept, so that a file given twice is named once
	keep := func(err error) {
		if msg := oneLine(err.Error()); !said[msg] {
			said[msg] = true
			if last != nil {
				fmt.Fprintln(stderr, errorPrefix+oneLine(last.Error()))
			}
			last = err
		}
	}
	for _, p := range paths {
		if st, err := os.Stat(p); p != Stdin && err == nil && st.IsDir() {
			files, err := loadDir(p, stderr)
			if err != nil {
				keep(err)
			}
			out = append(out, files...)
			continue
		}
		var runs []result.Run
		var err error
		if p == Stdin {
			p = "stdin"
			runs, err = read.Read(stdin, p)
		} else {
			runs, err = read.File(p)
		}
		if err != nil {
			keep(fileError(p, err))
			continue
		}
		out = append(out, loadedFile{path: p, runs: runs})
	}
	return out, last
}

// loadDir reads every regular, non-hidden file directly in dir, in name
// order. Files in no known format (or over 256 MiB) are skipped and named in one line on
// stderr (when at least one result file was read); a file that fails otherwise (unreadable) is an error like a named
// file's. A directory without any result file is a usage error.
func loadDir(dir string, stderr io.Writer) ([]loadedFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, usageErrorf("%s: cannot list the directory: %v", dir, err)
	}
	var out []loadedFile
	var skipped []string
	var last error
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		runs, err := read.File(p)
		switch {
		case errors.Is(err, read.ErrNotBenchmark), errors.Is(err, read.ErrTooLarge):
			skipped = append(skipped, e.Name())
		case err != nil:
			if last != nil {
				fmt.Fprintln(stderr, errorPrefix+oneLine(last.Error()))
			}
			last = fileError(p, err)
		default:
			out = append(out, loadedFile{path: p, runs: runs})
		}
	}
	if len(out) == 0 && last == nil {
		return nil, usageErrorf("%s: no result file in this directory (%d other file(s); accepted: %s); give the files or another directory", dir, len(skipped), result.FormatTitles())
	}
	if len(skipped) > 0 {
		fmt.Fprintf(stderr, "mpbench: %s: skipped %d file(s) that are not benchmark output: %s\n", dir, len(skipped), strings.Join(skipped, ", "))
	}
	return out, last
}

// fileError words a file's read error as one line naming the file and the
// accepted forms.
func fileError(path string, err error) error {
	switch {
	case errors.Is(err, read.ErrNotBenchmark):
		return usageErrorf("%s: not benchmark output (no benchmark table found); accepted: %s", path, result.FormatTitles())
	case errors.Is(err, fs.ErrNotExist):
		return usageErrorf("%s: no such file; expected a result file (%s), a directory of them, or - for standard input", path, result.FormatTitles())
	case errors.Is(err, read.ErrTooLarge):
		return usageErrorf("%s: %v", path, read.ErrTooLarge)
	}
	return usageErrorf("%s: %v", path, err)
}

// combinedName names the report of all runs taken together, appsName
// that of the application runs of several runs.
const (
	combinedName = "all runs combined"
	appsName     = "applications of all runs combined"
)

// analyzeFiles analyses every run of every file, in order, and with
// combine, when there are several runs, all of them as one run last.
// Without combine, when several runs hold application rows (mpbench app
// files at different -np, scaling files), their application rows are
// analysed as one run last: one scaling table per application and size.
func analyzeFiles(files []loadedFile, opt report.Options, combine bool) []report.RunReport {
	var reps []report.RunReport
	var all, apps []result.Run
	for _, f := range files {
		for i, r := range f.runs {
			reps = append(reps, report.Analyze(f.path, i+1, len(f.runs), r, opt))
			if _, rows := report.SplitAppRows(r); len(rows) > 0 {
				r.Rows = rows
				apps = append(apps, r)
			}
		}
		all = append(all, f.runs...)
	}
	switch {
	case combine && len(all) > 1:
		reps = append(reps, report.Analyze(combinedName, 1, 1, report.Combine(all), opt))
	case len(apps) > 1:
		reps = append(reps, report.Analyze(appsName, 1, 1, report.Combine(apps), opt))
	}
	return reps
}
