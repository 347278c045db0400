package cli

import (
	"github.com/mpbench/mpbench/launch"
	"github.com/mpbench/mpbench/result/rowfile"
)

// closeResultFiles seals the --json and --csv files of f with a failed end
// record for runErr where they lack one (rowfile.Seal), after every rank
// has exited; errors are ignored, as the run's own error is the one to
// report.
func closeResultFiles(f *runFlags, runErr error) {
	sealResultFiles(f, runErr, rowfile.Seal)
}

// endResultFiles gives the --json and --csv files of a job started by
// mpbench's launcher, which failed with runErr, the launcher's account as
// their end record (rowfile.Reseal), replacing rank 0's own: the file then
// names the first failing rank and its signal, as the launcher's line does.
// hosts is the job's rank-to-host map (nil: all local); when rank 0 ran on
// another host the files are there, and a file of the same name here is
// left alone.
func endResultFiles(f *runFlags, hosts []string, runErr error) {
	if len(hosts) > 0 && !launch.IsLocalHost(hosts[0]) {
		return
	}
	sealResultFiles(f, runErr, rowfile.Reseal)
}

func sealResultFiles(f *runFlags, runErr error, seal func(path string, csv bool, runErr error) error) {
	for _, out := range []struct {
		path string
		csv  bool
	}{{f.jsonFile, false}, {f.csvFile, true}} {
		if out.path != "" {
			_ = seal(out.path, out.csv, runErr)
		}
	}
}
