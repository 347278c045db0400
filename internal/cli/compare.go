package cli

import (
	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/report"
)

// newCompareCmd is "mpbench compare A B [C...]".
func newCompareCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "compare A B [C...]",
		Short: "Compare result files point by point with the first (time, bandwidth, ratio, % loss)",
		Long: `compare reads result files ("-": standard input) as "mpbench analyze" does and compares every later
file with the first, per benchmark, process count and message size: each run's
time (usec) and bandwidth (bytes / time in MB/s = 10^6 B/s, so files whose tools
print different Mbytes compare in one unit), the ratio to the first, the
difference and the % of bandwidth lost, as the study's tables 4.3/4.4. When a
file repeats a measurement (several runs in one file), the spread of the
repeats is the noise and differences larger than it are marked significant.`,
		Example: `  mpbench compare before.txt after.txt
  mpbench compare --format md switch.txt hub.txt wifi.txt`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := report.ParseFormat(format)
			if err != nil {
				return usageErrorf("--format: %v", err)
			}
			files, loadErr := loadFiles(args, cmd.InOrStdin(), cmd.ErrOrStderr())
			if loadErr != nil {
				// A comparison with a side missing would compare other files than asked.
				return loadErr
			}
			var sources []report.Source
			for _, lf := range files {
				sources = append(sources, report.Source{Name: lf.path, Runs: lf.runs})
			}
			c := report.Compare(sources)
			if err := report.WriteComparison(cmd.OutOrStdout(), c, f); err != nil {
				return err
			}
			if len(c.Rows) == 0 {
				return usageErrorf("%s and the other files have no point (benchmark, processes, message size) in common: compare runs of the same benchmarks and sizes", args[0])
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", string(report.Text), "output format: "+report.FormatNames)
	return cmd
}
