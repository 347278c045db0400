package supervise

import (
	"github.com/mpbench/mpbench/launch"
	"github.com/mpbench/mpbench/result/rowfile"
)

// Files are a job's result files written by rank 0: JSON Lines and CSV
// (--json, --csv); "" for a file not written.
type Files struct {
	JSON, CSV string
}

// Seal gives each file the failed end record for runErr where it lacks
// one (rowfile.Seal), after every rank has exited. Errors are ignored: the
// run's own error is the one to report.
func (f Files) Seal(runErr error) { f.each(runErr, rowfile.Seal) }

// Reseal gives each file of a job started by package launch, which failed
// with runErr, the launcher's account as its end record (rowfile.Reseal),
// replacing rank 0's own: the file then names the first failing rank and
// its signal, as the launcher's line does. hosts is the job's rank-to-host
// map (nil: all local); when rank 0 ran on another host the files are
// there, and a file of the same name here is left alone.
func (f Files) Reseal(hosts []string, runErr error) {
	if len(hosts) > 0 && !launch.IsLocalHost(hosts[0]) {
		return
	}
	f.each(runErr, rowfile.Reseal)
}

func (f Files) each(runErr error, seal func(path string, csv bool, runErr error) error) {
	if f.JSON != "" {
		_ = seal(f.JSON, false, runErr)
	}
	if f.CSV != "" {
		_ = seal(f.CSV, true, runErr)
	}
}
