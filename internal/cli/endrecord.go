package cli

import "github.com/mpbench/mpbench/result/rowfile"

// closeResultFiles seals the --json and --csv files of f with a failed end
// record for runErr where they lack one (rowfile.Seal), after every rank
// has exited; errors are ignored, as the run's own error is the one to
// report.
func closeResultFiles(f *runFlags, runErr error) {
	for _, out := range []struct {
		path string
		csv  bool
	}{{f.jsonFile, false}, {f.csvFile, true}} {
		if out.path != "" {
			_ = rowfile.Seal(out.path, out.csv, runErr)
		}
	}
}
