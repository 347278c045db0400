package rowfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSeal(t *testing.T) {
	dir := t.TempDir()
	runErr := errors.New("launch: rank 0: killed by signal SIGKILL")
	for _, tc := range []struct {
		name, content string
		csv           bool
		want          string
	}{
		{"cut.jsonl", `{"type":"meta"}` + "\n" + `{"type":"row","bench`, false,
			`{"type":"meta"}` + "\n" + `{"type":"row","bench` + "\n" + `{"type":"end","status":"failed","error":"launch: rank 0: killed by signal SIGKILL"}` + "\n"},
		{"rows.jsonl", `{"type":"meta"}` + "\n" + `{"type":"row"}` + "\n", false,
			`{"type":"meta"}` + "\n" + `{"type":"row"}` + "\n" + `{"type":"end","status":"failed","error":"launch: rank 0: killed by signal SIGKILL"}` + "\n"},
		{"ended.jsonl", `{"type":"meta"}` + "\n" + `{"type":"end","status":"failed","error":"x"}` + "\n", false,
			`{"type":"meta"}` + "\n" + `{"type":"end","status":"failed","error":"x"}` + "\n"},
		{"rows.csv", "# format=mpbench-csv\nbenchmark,processes\nPingPong,2\n", true,
			"# format=mpbench-csv\nbenchmark,processes\nPingPong,2\n# end=failed: launch: rank 0: killed by signal SIGKILL\n"},
		{"ended.csv", "# format=mpbench-csv\n# end=ok\n", true, "# format=mpbench-csv\n# end=ok\n"},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := Seal(path, tc.csv, runErr); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if b, _ := os.ReadFile(path); string(b) != tc.want {
			t.Errorf("%s: file is\n%s\nwant\n%s", tc.name, b, tc.want)
		}
	}
	if err := Seal(filepath.Join(dir, "missing"), false, runErr); err != nil {
		t.Errorf("missing file: %v, want nil (nothing to close)", err)
	}
}

// TestReseal: the launcher's account replaces the end record the rank
// wrote (which names what the rank saw, not the cause), and is appended
// where there is none.
func TestReseal(t *testing.T) {
	dir := t.TempDir()
	runErr := errors.New("run failed: launch: rank 2: killed by signal SIGKILL")
	for _, tc := range []struct {
		name, content string
		csv           bool
		want          string
	}{
		{"ended.jsonl", `{"type":"meta"}` + "\n" + `{"type":"row"}` + "\n" + `{"type":"end","status":"failed","error":"rank 0: comm: world closed"}` + "\n", false,
			`{"type":"meta"}` + "\n" + `{"type":"row"}` + "\n" + `{"type":"end","status":"failed","error":"run failed: launch: rank 2: killed by signal SIGKILL"}` + "\n"},
		{"ok.jsonl", `{"type":"meta"}` + "\n" + `{"type":"end","status":"ok"}`, false,
			`{"type":"meta"}` + "\n" + `{"type":"end","status":"failed","error":"run failed: launch: rank 2: killed by signal SIGKILL"}` + "\n"},
		{"cut.jsonl", `{"type":"meta"}` + "\n" + `{"type":"row","bench`, false,
			`{"type":"meta"}` + "\n" + `{"type":"row","bench` + "\n" + `{"type":"end","status":"failed","error":"run failed: launch: rank 2: killed by signal SIGKILL"}` + "\n"},
		{"ended.csv", "# format=mpbench-csv\nbenchmark,processes\nPingPong,2\n# end=failed: interrupted; rows measured so far were kept\n", true,
			"# format=mpbench-csv\nbenchmark,processes\nPingPong,2\n# end=failed: run failed: launch: rank 2: killed by signal SIGKILL\n"},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := Reseal(path, tc.csv, runErr); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if b, _ := os.ReadFile(path); string(b) != tc.want {
			t.Errorf("%s: file is\n%s\nwant\n%s", tc.name, b, tc.want)
		}
	}
}

// TestSealNotRegular: a result "file" that is a device is left alone:
// reading /dev/full or /dev/zero to its end would never finish.
func TestSealNotRegular(t *testing.T) {
	for _, dev := range []string{"/dev/full", "/dev/zero", "/dev/null"} {
		done := make(chan error, 1)
		go func() { done <- Reseal(dev, false, errors.New("write: no space left on device")) }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: %v, want nil (left alone)", dev, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Reseal(%s) still reading after 10 s", dev)
		}
	}
}

// TestResealLongFile: in a file longer than the part Reseal reads, the end
// record is still found and replaced, and a last row longer than that part
// is not taken for one.
func TestResealLongFile(t *testing.T) {
	dir := t.TempDir()
	row := `{"type":"row","x":"` + strings.Repeat("y", 1000) + `"}` + "\n"
	body := `{"type":"meta"}` + "\n" + strings.Repeat(row, 200)
	path := filepath.Join(dir, "long.jsonl")
	os.WriteFile(path, []byte(body+`{"type":"end","status":"failed","error":"rank 0: comm: world closed"}`+"\n"), 0o644)
	if err := Reseal(path, false, errors.New("launch: rank 1: killed by signal SIGKILL")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != body+`{"type":"end","status":"failed","error":"launch: rank 1: killed by signal SIGKILL"}`+"\n" {
		t.Errorf("file ends %q", b[len(b)-200:])
	}
	huge := `{"type":"meta"}` + "\n" + `{"type":"row","x":"` + strings.Repeat("z", 100<<10) + `"}`
	os.WriteFile(path, []byte(huge), 0o644)
	if err := Seal(path, false, errors.New("killed")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != huge+"\n"+`{"type":"end","status":"failed","error":"killed"}`+"\n" {
		t.Errorf("file ends %q", b[len(b)-100:])
	}
}

// TestFiles: a run's pair of row files is sealed as each file alone (the
// JSON Lines file as JSON Lines, the CSV file as CSV), a file not written
// is skipped, and Reseal replaces the rank's end record in both.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	jsonl, csv := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "run.csv")
	write := func() {
		os.WriteFile(jsonl, []byte(`{"type":"meta"}`+"\n"+`{"type":"row"}`+"\n"), 0o644)
		os.WriteFile(csv, []byte("# format=mpbench-csv\nbenchmark,processes\nPingPong,2\n# end=failed: rank 0: comm: world closed\n"), 0o644)
	}
	read := func(path string) string { b, _ := os.ReadFile(path); return string(b) }
	write()
	runErr := errors.New("run failed: launch: rank 1: killed by signal SIGKILL")
	if err := (Files{JSON: jsonl, CSV: csv}).Seal(runErr); err != nil {
		t.Fatal(err)
	}
	if got, want := read(jsonl), `{"type":"meta"}`+"\n"+`{"type":"row"}`+"\n"+`{"type":"end","status":"failed","error":"run failed: launch: rank 1: killed by signal SIGKILL"}`+"\n"; got != want {
		t.Errorf("sealed JSON Lines file:\n%s\nwant\n%s", got, want)
	}
	if got, want := read(csv), "# format=mpbench-csv\nbenchmark,processes\nPingPong,2\n# end=failed: rank 0: comm: world closed\n"; got != want {
		t.Errorf("Seal changed a CSV file that had its end record:\n%s", got)
	}
	write()
	if err := (Files{CSV: csv}).Reseal(runErr); err != nil {
		t.Fatal(err)
	}
	if got, want := read(csv), "# format=mpbench-csv\nbenchmark,processes\nPingPong,2\n# end=failed: run failed: launch: rank 1: killed by signal SIGKILL\n"; got != want {
		t.Errorf("resealed CSV file:\n%s\nwant\n%s", got, want)
	}
	if got := read(jsonl); strings.Contains(got, `"end"`) {
		t.Errorf("Reseal of Files without JSON touched the JSON Lines file: %s", got)
	}
	if err := (Files{}).Seal(runErr); err != nil {
		t.Errorf("no files: %v", err)
	}
}

// TestSealEmpty: a result file left empty by a job that failed before its
// header was written (the launcher out of open files while it started the
// ranks) gets a header and the end record naming the failure, and reads as
// a failed run of mpbench.
func TestSealEmpty(t *testing.T) {
	runErr := errors.New("launch: rank 0: starting mpbench: fork/exec mpbench: too many open files")
	for _, csv := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "r")
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := Seal(path, csv, runErr); err != nil {
			t.Fatalf("csv %v: %v", csv, err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		read := ReadJSONL
		if csv {
			read = ReadCSV
		}
		runs, err := read(f, path)
		f.Close()
		if err != nil || len(runs) != 1 {
			t.Fatalf("csv %v: %v, %d runs", csv, err, len(runs))
		}
		r := runs[0]
		if r.Meta.Tool != "mpbench" || !r.Aborted || r.EndError != runErr.Error() || len(r.Rows) != 0 {
			t.Errorf("csv %v: tool %q, aborted %v, end %q, %d rows; want mpbench, the failure, no rows", csv, r.Meta.Tool, r.Aborted, r.EndError, len(r.Rows))
		}
	}
}
