package cli

import (
	"github.com/mpbench/mpbench/internal/testcorpus"
	"os"
	"strings"
	"testing"
)

// withStdin runs f with os.Stdin reading the file at path.
func withStdin(t *testing.T, path string, f func()) {
	t.Helper()
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	old := os.Stdin
	os.Stdin = in
	defer func() { os.Stdin = old }()
	f()
}

// TestStdinDash: "-" reads standard input in analyze, report and compare.
func TestStdinDash(t *testing.T) {
	good := testcorpus.Path(t, "006-imb2019u3-pingpong.txt")
	withStdin(t, good, func() {
		code, stdout, stderr := runMain(t, "analyze", "-")
		if code != 0 || !strings.Contains(stdout, "== stdin: IMB-MPI1 2019 Update 3") || !strings.Contains(stdout, "-- PingPong np=2") {
			t.Errorf("analyze -: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
		}
	})
	withStdin(t, good, func() {
		code, stdout, stderr := runMain(t, "compare", "-", good)
		if code != 0 || !strings.Contains(stdout, "run 0: stdin") || !strings.Contains(stdout, "-- PingPong np=2") {
			t.Errorf("compare - FILE: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
		}
	})
}

// TestKWithoutWire: --k without --wire has no latency to average: one
// warning line, and the analysis still runs.
func TestKWithoutWire(t *testing.T) {
	good := testcorpus.Path(t, "006-imb2019u3-pingpong.txt")
	code, stdout, stderr := runMain(t, "analyze", "--k", "5", good)
	if code != 0 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--k has no effect without --wire") ||
		!strings.Contains(stdout, "-- PingPong np=2") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runMain(t, "analyze", "--k", "5", "--wire", "eth:1g", good)
	if code != 0 || stderr != "" {
		t.Errorf("--k with --wire: exit %d, stderr %q", code, stderr)
	}
}
