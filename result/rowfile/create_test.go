package rowfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/result"
)

// TestCreate: Files.Create writes the meta record to both files, every row
// reaches both, and the end record names the run's error; the files read
// back as one aborted run with the row.
func TestCreate(t *testing.T) {
	dir := t.TempDir()
	f := Files{JSON: filepath.Join(dir, "r.jsonl"), CSV: filepath.Join(dir, "r.csv")}
	o, err := f.Create(result.Meta{Tool: "mpbench", MByte: result.MB, Transport: "tcp"})
	if err != nil {
		t.Fatal(err)
	}
	row := result.NewRow("PingPong", 2, 1024)
	row.Repetitions, row.TMax = 1000, 2.5
	if err := o.WriteRow(row); err != nil {
		t.Fatal(err)
	}
	if err := o.WriteEnd(errors.New("rank 1: peer gone")); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, end string
		read      func(file *os.File) ([]result.Run, error)
	}{
		{f.JSON, `{"type":"end","status":"failed","error":"rank 1: peer gone"}`, func(file *os.File) ([]result.Run, error) { return ReadJSONL(file, file.Name()) }},
		{f.CSV, "# end=failed: rank 1: peer gone", func(file *os.File) ([]result.Run, error) { return ReadCSV(file, file.Name()) }},
	} {
		b, err := os.ReadFile(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); lines[len(lines)-1] != tc.end {
			t.Errorf("%s ends with %q, want %q", tc.path, lines[len(lines)-1], tc.end)
		}
		file, err := os.Open(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		runs, err := tc.read(file)
		file.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 1 || !runs[0].Aborted || len(runs[0].Rows) != 1 || runs[0].Rows[0].TMax != 2.5 || runs[0].Meta.Transport != "tcp" || runs[0].EndError != "rank 1: peer gone" {
			t.Errorf("%s reads as %+v, want one aborted tcp run with the PingPong row and the end record's error", tc.path, runs)
		}
	}
}

// TestCreateFails: a file that cannot be created is the error, and the
// file created before it keeps its meta record; a zero Open writes nothing.
func TestCreateFails(t *testing.T) {
	dir := t.TempDir()
	f := Files{JSON: filepath.Join(dir, "r.jsonl"), CSV: filepath.Join(dir, "missing", "r.csv")}
	if _, err := f.Create(result.Meta{Tool: "mpbench", MByte: result.MB}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Create = %v, want the CSV file's not-exist error", err)
	}
	if b, _ := os.ReadFile(f.JSON); !strings.HasPrefix(string(b), `{"type":"meta"`) {
		t.Errorf("the JSON file holds %q, want its meta record", b)
	}
	var o Open
	if err := o.WriteRow(result.NewRow("PingPong", 2, 0)); err != nil {
		t.Errorf("zero Open: WriteRow = %v", err)
	}
	if err := o.Close(); err != nil {
		t.Errorf("zero Open: Close = %v", err)
	}
}
