package rowfile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mpbench/mpbench/result"
)

// Seal makes sure the JSON Lines (csv false) or CSV (csv true) result file
// at path ends with an end record after a failed run: a writer that was
// killed could not write one, and readers could not tell a finished file
// from one still being written. An empty file (the job failed before its
// header was written) gets a header (sealEmpty) and the end record. When the
// file is not empty (the meta record comes first) and its last line is not an end record, Seal appends a
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

// Files are a run's row files: the JSON Lines file (--json) and the CSV
// file (--csv), written by rank 0; "" for a file not written.
type Files struct {
	JSON, CSV string
}

// Seal seals each file with Seal. Both are tried; the error is the first
// file's whose end record could not be appended, or nil.
func (f Files) Seal(runErr error) error { return f.each(runErr, Seal) }

// Reseal reseals each file with Reseal. Both are tried; the error is the
// first file's whose end record could not be written, or nil.
func (f Files) Reseal(runErr error) error { return f.each(runErr, Reseal) }

func (f Files) each(runErr error, seal func(path string, csv bool, runErr error) error) error {
	var first error
	for _, file := range []struct {
		path string
		csv  bool
	}{{f.JSON, false}, {f.CSV, true}} {
		if file.path == "" {
			continue
		}
		if err := seal(file.path, file.csv, runErr); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func seal(path string, csv bool, runErr error, replace bool) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	tail, size, err := readTail(f)
	if err == nil && size == 0 {
		return sealEmpty(f, csv, runErr)
	}
	if err != nil || len(bytes.TrimSpace(tail)) == 0 {
		return nil
	}
	if end := endRecordAt(tail, int64(len(tail)) == size, csv); end >= 0 {
		if !replace {
			return nil
		}
		if err := f.Truncate(size - int64(len(tail)-end)); err != nil {
			return err
		}
		tail = tail[:end]
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		return err
	}
	if len(tail) > 0 && tail[len(tail)-1] != '\n' { // a record cut short by the kill
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

// maxTail is how much of the end of a result file seal reads: more than
// any end record.
const maxTail = 64 << 10

// readTail returns the last maxTail bytes of f and f's size. Only regular
// files are read: --json /dev/full or a FIFO would never end.
func readTail(f *os.File) ([]byte, int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file", f.Name())
	}
	n := min(fi.Size(), maxTail)
	tail := make([]byte, n)
	if _, err := f.ReadAt(tail, fi.Size()-n); err != nil {
		return nil, 0, err
	}
	return tail, fi.Size(), nil
}

// endRecordAt returns the offset in tail (the end of a result file, whole
// when it is the entire file) of its last line when that line is an end
// record, else -1.
func endRecordAt(tail []byte, whole, csv bool) int {
	body := bytes.TrimRight(tail, "\n")
	i := bytes.LastIndexByte(body, '\n')
	if i < 0 && !whole {
		return -1 // the last line is longer than the tail: a row, not an end record
	}
	start := i + 1
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

// sealEmpty writes into f, an empty result file (the job failed before
// rank 0 wrote its header: e.g. the launcher ran out of open files while
// it started the ranks), a header of what the launcher knows (tool
// mpbench, this host, the time) and the end record of runErr, so that the
// file reads as a run that failed and says why.
func sealEmpty(f *os.File, csv bool, runErr error) error {
	var w Writer = NewJSONLWriter(f)
	if csv {
		w = NewCSVWriter(f)
	}
	host, _ := os.Hostname()
	if err := w.WriteMeta(result.Meta{Tool: "mpbench", Date: time.Now().UTC().Format(time.RFC3339), Host: host}); err != nil {
		return err
	}
	return w.WriteEnd(runErr)
}
