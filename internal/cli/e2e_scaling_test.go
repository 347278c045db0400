package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScalingE2E sweeps the matrix product over 1 and 2 ranks and checks
// the table's rows, the JSON rows written per run, the BLAS named in the
// file's metadata as "mpbench app" names it, and that the communication
// reported is the rows' comm_calls_max_s.
func TestScalingE2E(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "sc.jsonl")
	cmd, out, errb := e2eCmd(t, "scaling", "--np", "1,2", "--repeats", "2", "--json", jsonPath, "--", "app", "matmul", "-n", "100")
	if err := cmd.Run(); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", exitCode(err), err, out, errb)
	}
	var rows []string
	for _, l := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(l); len(f) == 9 && (f[0] == "1" || f[0] == "2") {
			rows = append(rows, f[0])
		}
	}
	if len(rows) != 2 || strings.Count(errb.String(), "scaling: N = ") != 4 {
		t.Errorf("table rows %v, progress:\n%s\noutput:\n%s", rows, errb, out)
	}
	run := readOneRun(t, jsonPath)
	if len(run.Rows) != 4 || run.Aborted {
		t.Fatalf("JSON: %+v", run)
	}
	r := run.Rows[1]
	if r.Benchmark != "matmul" || r.Processes != 2 || !(r.Extra["comm_max_s"] > 0) || !(r.Extra["comm_calls_max_s"] >= r.Extra["comm_max_s"]) {
		t.Errorf("second run's row %+v", r)
	}
	if line := fmt.Sprintf("scaling: N = 2, run 1 of 2: T = %.4g s, communication %.4g s\n", r.TMax/1e6, r.Extra["comm_calls_max_s"]); !strings.Contains(errb.String(), line) {
		t.Errorf("progress lacks %q (comm_calls_max_s):\n%s", line, errb)
	}
	info := run.Meta.Info
	if b := info["blas"]; b != "gonum" && !strings.HasPrefix(b, "OpenBLAS ") || info["blas_threads"] == "" || run.Meta.Transport == "" {
		t.Errorf("meta lacks the application's BLAS or transport: transport %q, info %v", run.Meta.Transport, info)
	}
}

// TestScalingBadInput checks the usage errors (exit 2, one line: no run's
// progress line before it).
func TestScalingBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"scaling", "--np", "2,4", "--", "app", "ep"},
		{"scaling", "--", "sleep", "1"},
		{"scaling", "--", "app", "ep", "-np", "2"},
		{"scaling", "--repeats", "0", "--", "app", "ep"},
		{"scaling", "app", "ep"},
		{"scaling", "--np", "1", "--repeats", "1", "--", "app", "matmul", "-n", "0"}, // refused by the application
		{"scaling", "--np", "1,3", "--", "app", "ft", "--class", "S"},                // N = 3 refused before the N = 1 run
		{"scaling", "--np", "1,1,2", "--", "app", "ep"},
		{"scaling", "--np", "1,2", "--", "/nonexistent/cmd", "{np}"},
	} {
		cmd, _, errb := e2eCmd(t, args...)
		if err := cmd.Run(); exitCode(err) != ExitUsage || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q", args, exitCode(err), errb)
		}
	}
	for args, want := range map[string]string{
		"--np 1,3 -- app ft --class S":      "mpbench: mpbench app ft --class S --np 3: -np 3: FT class S (64x64x64) needs a process count dividing 64",
		"--np 1,1,2 -- app ep":              "mpbench: --np 1,1,2: 1 twice; give each process count once",
		"--np 1,2 -- /nonexistent/cmd {np}": "mpbench: /nonexistent/cmd: no such program (not in PATH, or not an executable file)",
	} {
		cmd, _, errb := e2eCmd(t, append([]string{"scaling"}, strings.Fields(args)...)...)
		if err := cmd.Run(); exitCode(err) != ExitUsage || !strings.HasPrefix(errb.String(), want) {
			t.Errorf("%s: exit %d, stderr %q", args, exitCode(err), errb)
		}
	}
	// The application's own --json or --csv would be overwritten by the
	// row file scaling gives every run: refused before any run.
	dir := t.TempDir()
	for _, opt := range [][]string{{"--json", "inner.json"}, {"--csv=inner.csv"}, {"-json", "inner.json"}} {
		args := append([]string{"scaling", "--np", "1", "--repeats", "1", "--", "app", "matmul", "-n", "100"}, opt...)
		cmd, out, errb := e2eCmd(t, args...)
		cmd.Dir = dir
		err := cmd.Run()
		want := "mpbench: " + opt[0] + ": scaling writes every run's row to its own --json/--csv; give them before \"--\""
		if exitCode(err) != ExitUsage || strings.Count(errb.String(), "\n") != 1 || !strings.HasPrefix(errb.String(), want) || out.Len() > 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", opt, exitCode(err), out, errb)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("refused runs wrote %v", ents)
	}
}

// TestScalingCommandAnalyzed sweeps an external command run through a
// wrapper (env) and analyses the file: its rows are named by the program
// run (true, not env), the file names the command in its metadata, and
// analyze prints the command's scaling table, not a table of benchmarks
// without a message size.
func TestScalingCommandAnalyzed(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "sc.jsonl")
	cmd, out, errb := e2eCmd(t, "scaling", "--np", "1,2", "--repeats", "1", "--json", jsonPath, "--", "env", "RANKS={np}", "true")
	if err := cmd.Run(); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", exitCode(err), err, out, errb)
	}
	run := readOneRun(t, jsonPath)
	if len(run.Rows) != 2 || run.Rows[0].Benchmark != "true" || run.Meta.Info["scaling_command"] != "env RANKS={np} true" {
		t.Fatalf("JSON: %+v", run)
	}
	code, aout, aerr := runMain(t, "analyze", jsonPath)
	if code != 0 || !strings.Contains(aout, "-- Application true: scaling") || strings.Contains(aout, "without a message size") {
		t.Errorf("analyze: exit %d, %s\n%s", code, aerr, aout)
	}
}
