package cli

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/mpbench/mpbench/report"
)

// splitTuningInputs separates the tuning results among report's
// arguments (a directory written by "mpbench tune", or its
// decisions.json) from result files, and reads the tuning results. A
// decisions.json that cannot be read is a usage error.
func splitTuningInputs(args []string) ([]report.Tuning, []string, error) {
	var tunings []report.Tuning
	var rest []string
	for _, a := range args {
		path := a
		if fi, err := os.Stat(a); err == nil && fi.IsDir() {
			path = filepath.Join(a, "decisions.json")
		} else if filepath.Base(a) != "decisions.json" {
			rest = append(rest, a)
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, usageErrorf("%s: %v; give a directory written by 'mpbench tune -o DIR' or result files", a, errors.Unwrap(err))
		}
		var d tuneDecisions
		if err := json.Unmarshal(b, &d); err != nil || len(d.Tables) == 0 {
			return nil, nil, usageErrorf("%s: not a decisions.json of mpbench tune (%v)", path, err)
		}
		tunings = append(tunings, report.Tuning{Name: a, Runtime: d.Manifest.Runtime, Header: d.Manifest.Header, Tables: d.Tables})
	}
	return tunings, rest, nil
}

// writeTuningPage writes the heat-map page of tunings to path.
func writeTuningPage(path string, tunings []report.Tuning, title string) error {
	return writeOutput(path, func(w io.Writer) error { return report.WriteTuningHTML(w, tunings, title) })
}
