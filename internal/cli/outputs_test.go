package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestCheckOutputPaths(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "out")
	for _, tc := range []struct{ json, csv, want string }{
		{f, f, "--json " + f + " and --csv " + f + " name the same file"},
		{f, filepath.Join(dir, ".", "sub", "..", "out"), "name the same file"},
		{"-", "", "--json -: standard output carries the IMB text; expected --json FILE"},
		{"", "-", "--csv -: standard output carries the IMB text; expected --csv FILE"},
		{filepath.Join(dir, "no", "such"), "", "--json " + filepath.Join(dir, "no", "such") + ": cannot create the file"},
	} {
		err := checkOutputPaths(tc.json, tc.csv)
		if err == nil || !isUsage(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("checkOutputPaths(%q, %q) = %v, want a usage error containing %q", tc.json, tc.csv, err, tc.want)
		}
	}
	// A symbolic link to the other (existing) file is the same file too.
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(f, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := checkOutputPaths(filepath.Join(dir, "link"), f); err == nil || !strings.Contains(err.Error(), "same file") {
		t.Errorf("json through a link to the csv file: %v, want rejected", err)
	}
	if err := checkOutputPaths(filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "a.csv")); err != nil {
		t.Errorf("two different files: %v", err)
	}
}

func TestCloseResultFile(t *testing.T) {
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
		{"empty.jsonl", "", false, ""},
		{"rows.csv", "# format=mpbench-csv\nbenchmark,processes\nPingPong,2\n", true,
			"# format=mpbench-csv\nbenchmark,processes\nPingPong,2\n# end=failed: launch: rank 0: killed by signal SIGKILL\n"},
		{"ended.csv", "# format=mpbench-csv\n# end=ok\n", true, "# format=mpbench-csv\n# end=ok\n"},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := closeResultFile(path, tc.csv, runErr); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if b, _ := os.ReadFile(path); string(b) != tc.want {
			t.Errorf("%s: file is\n%s\nwant\n%s", tc.name, b, tc.want)
		}
	}
	if err := closeResultFile(filepath.Join(dir, "missing"), false, runErr); err != nil {
		t.Errorf("missing file: %v, want nil (nothing to close)", err)
	}
}

func TestExitStatusSignals(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{&interrupted{sig: syscall.SIGINT}, ExitInterrupted},
		{&interrupted{sig: syscall.SIGTERM}, ExitTerminated},
		{errInterrupted, ExitInterrupted},
	} {
		if got := exitStatus(tc.err); got != tc.want {
			t.Errorf("exitStatus(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
	if !errors.Is(&interrupted{sig: syscall.SIGTERM}, errInterrupted) {
		t.Error("an *interrupted must match errInterrupted")
	}
}
