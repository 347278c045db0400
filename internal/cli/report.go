package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/report"
)

// newReportCmd is "mpbench report FILE... -o report.html".
func newReportCmd() *cobra.Command {
	var f analyzeFlags
	var out, pngDir, title string
	cmd := &cobra.Command{
		Use:   "report FILE... -o report.html",
		Short: "Write one self-contained HTML page with the tables and plots of result files",
		Long: `report reads every FILE ("-": standard input) as "mpbench analyze" does and writes one HTML page:
a summary of the runs, plots of time and bandwidth against message size (runs
sharing a benchmark overlaid) and of the aggregate bandwidth against the
process count, then every run's tables, anomaly flags and reading problems.
The page loads nothing from outside (plots are inline SVG): it reads offline
and can be mailed. --png-dir also writes each plot as a PNG file.

Given directories written by "mpbench tune" (or their decisions.json), it
writes instead a page of heat maps, one per collective: message size by
process count, the colour naming the winning algorithm and the text its
speedup over the default.`,
		Example: `  mpbench report imb-*.txt osu_latency.log -o cluster.html
  mpbench report tuned/ -o tuning.html
  mpbench report --wire ib:hdr run.txt -o run.html --png-dir plots/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErrorf("report needs -o FILE.html, the page to write")
			}
			if tunings, rest, err := splitTuningInputs(args); err != nil || len(tunings) > 0 {
				if err == nil && len(rest) > 0 {
					err = usageErrorf("%s: give tuning directories (mpbench tune -o DIR) and result files to separate report commands", rest[0])
				}
				if err != nil {
					return err
				}
				return writeTuningPage(out, tunings, title)
			}
			opt, err := f.options(cmd)
			if err != nil {
				return err
			}
			files, loadErr := loadFiles(args, cmd.InOrStdin(), cmd.ErrOrStderr())
			if len(files) == 0 {
				return loadErr
			}
			reps := analyzeFiles(files, opt, f.combine)
			if err := writePage(out, reps, report.HTMLOptions{Title: title, Files: len(files), Wire: f.wire, K: f.k}); err != nil {
				return err
			}
			if pngDir != "" {
				if err := writePNGs(pngDir, reps); err != nil {
					return err
				}
			}
			return loadErr
		},
	}
	addAnalyzeFlags(cmd, &f)
	cmd.Flags().StringVarP(&out, "output", "o", "", "HTML file to write (required)")
	cmd.Flags().StringVar(&pngDir, "png-dir", "", "also write every plot as DIR/<plot>.png (created if missing)")
	cmd.Flags().StringVar(&title, "title", "", "page title (default \"mpbench report\")")
	return cmd
}

// writePage writes the HTML page to path.
func writePage(path string, reps []report.RunReport, opt report.HTMLOptions) error {
	return writeOutput(path, func(w io.Writer) error { return report.WriteHTML(w, reps, opt) })
}

// writeOutput creates path (a bad path is a usage error naming -o) and
// writes it through a buffer with write; an error of write, the flush or
// the close names path.
func writeOutput(path string, write func(io.Writer) error) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return usageErrorf("-o %s: %v", path, errors.Unwrap(err))
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("write %s: %w", path, cerr)
		}
	}()
	w := bufio.NewWriter(f)
	if err := write(w); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// writePNGs writes every figure of the report as dir/<id>.png.
func writePNGs(dir string, reps []report.RunReport) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageErrorf("--png-dir %s: %v", dir, errors.Unwrap(err))
	}
	for _, fig := range report.Figures(reps) {
		path := filepath.Join(dir, fig.ID+".png")
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		err = report.WritePlot(f, fig.Plot, "png", report.PlotWidth, report.PlotHeight)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return nil
}
