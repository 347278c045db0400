package cli

import (
	"bytes"
	"io"
	"os"

	"github.com/mpbench/mpbench/result/rowfile"
)

// closeResultFile makes sure a --json or --csv file written by rank 0 ends
// with an end record after a failed job: when rank 0 was killed, it could
// not write one, and readers could not tell a finished file from one
// still being written. The launcher appends a "failed" end record (JSON
// Lines: {"type":"end","status":"failed","error":...}; CSV:
// "# end=failed: <error>") with runErr when the file is not empty (rank 0
// writes the meta record first) and its last line is not an end record. It is called after every rank has
// exited, so nothing else writes the file. Files that already end with an
// end record, empty files and unreadable files are left alone.
func closeResultFile(path string, csv bool, runErr error) error {
	b, err := os.ReadFile(path)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if hasEndRecord(b, csv) {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if b[len(b)-1] != '\n' { // a record cut short by the kill
		if _, err := io.WriteString(f, "\n"); err != nil {
			return err
		}
	}
	var w rowfile.Writer = rowfile.NewJSONLWriter(f)
	if csv {
		w = rowfile.NewCSVWriter(f)
	}
	return w.WriteEnd(runErr)
}

// hasEndRecord reports whether the last complete line of a result file is
// an end record.
func hasEndRecord(b []byte, csv bool) bool {
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	last := bytes.TrimSpace(lines[len(lines)-1])
	if csv {
		return bytes.HasPrefix(last, []byte("# end="))
	}
	return bytes.HasPrefix(last, []byte(`{"type":"end"`))
}

// closeResultFiles appends an end record for runErr to the --json and
// --csv files of f that lack one (closeResultFile); errors are ignored, as
// the run's own error is the one to report.
func closeResultFiles(f *runFlags, runErr error) {
	for _, out := range []struct {
		path string
		csv  bool
	}{{f.jsonFile, false}, {f.csvFile, true}} {
		if out.path != "" {
			_ = closeResultFile(out.path, out.csv, runErr)
		}
	}
}
