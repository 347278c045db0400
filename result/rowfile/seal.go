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
func Seal(path string, csv bool, runErr error) error { return seal(path, csv, runErr, false) }

// Reseal is Seal for the launcher of a failed job, which knows the job's
// cause best: an end record the file already ends with is replaced by the
// failed one with runErr. The rank that wrote the file ends it with its own
// account, which names what that rank saw (a peer gone, a closed world, an
// interrupt without the signal) rather than the cause (the rank that was
// killed first, and by which signal); after Reseal the file's end record
// is the line the launcher printed. Empty and unreadable files are left
// alone, as by Seal.
func Reseal(path string, csv bool, runErr error) error { return seal(path, csv, runErr, true) }

func seal(path string, csv bool, runErr error, replace bool) error {
	b, err := os.ReadFile(path)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if end := endRecordAt(b, csv); end >= 0 {
		if !replace {
			return nil
		}
		if err := os.Truncate(path, int64(end)); err != nil {
			return err
		}
		b = b[:end]
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if len(b) > 0 && b[len(b)-1] != '\n' { // a record cut short by the kill
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

// endRecordAt returns the offset of the last line of a result file when
// that line is an end record, else -1.
func endRecordAt(b []byte, csv bool) int {
	body := bytes.TrimRight(b, "\n")
	start := bytes.LastIndexByte(body, '\n') + 1
	last := bytes.TrimSpace(body[start:])
	prefix := []byte(`{"type":"end"`)
	if csv {
		prefix = []byte("# end=")
	}
	if bytes.HasPrefix(last, prefix) {
		return start
	}
	return -1
}
