package rowfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
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
		{"empty.jsonl", "", false, ""},
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
		{"empty.csv", "", true, ""},
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
