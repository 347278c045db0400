package rowfile

import (
	"bytes"
	"io"
	"os"
)

// Seal makes sure the JSON Lines (csv false) or CSV (csv true) result file
// at path ends with an end record after a failed run: a writer that was
// killed could not write one, and readers could not tell a finished file
// from one still being written. When the file is not empty (the meta record
// comes first) and its last line is not an end record, Seal appends a
// "failed" end record with runErr (JSON Lines:
// {"type":"end","status":"failed","error":...}; CSV: "# end=failed:
// <error>"), after a line break when the last record was cut short. Files
// that already end with an end record, empty files and files that cannot
// be read are left alone (nil error); an error is returned only when the
// end record cannot be appended. The caller makes sure nothing else writes
// the file meanwhile.
func Seal(path string, csv bool, runErr error) error {
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
	var w Writer = NewJSONLWriter(f)
	if csv {
		w = NewCSVWriter(f)
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
