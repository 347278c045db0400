package cli

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/internal/testcorpus"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with the commands' current output")

// TestGolden runs commands whose output is deterministic and compares
// stdout with testdata/NAME.golden (go test -run TestGolden -update
// rewrites them; review the diff before committing). A command that exits
// with another status than 0, or writes to stderr, has both after its
// stdout in the golden file (goldenText). Corpus files are named by their
// path relative to this package.
func TestGolden(t *testing.T) {
	// A path relative to this package's directory, so that the output
	// (whose tables size their columns to it) is the same in any checkout.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := filepath.Rel(wd, testcorpus.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	in := func(name string) string { return filepath.Join(corpus, name) }
	predictBench := filepath.Join("testdata", "predict", "bench.jsonl")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"show-algorithms", []string{"run", "--show-algorithms"}},
		{"show-algorithms-override", []string{"run", "--coll", "bcast=pipeline:seg=65536,alltoall=bruck,barrier=tree", "--show-algorithms"}},
		{"analyze-imb-pingpong", []string{"analyze", in("006-imb2019u3-pingpong.txt")}},
		{"compare-imb-pingpong", []string{"compare", in("006-imb2019u3-pingpong.txt"), in("005-imb2018u1-pingpong-wrapped.txt")}},
		{"help", []string{"--help"}},
		{"run-help", []string{"run", "--help"}},
		{"run-list", []string{"run", "-list"}},
		{"tune-help", []string{"tune", "--help"}},
		{"predict-matmul", []string{"predict", "matmul", "--bench", predictBench, "-n", "1024", "--np", "2,4,8,64", "--net", "switch"}},
		{"predict-matmul-auto", []string{"predict", "matmul", "--bench", predictBench, "-n", "1024", "--np", "2,4"}},
		// Bad input: one line on stderr and exit status 2.
		{"bad-app-unknown", []string{"app", "nosuchapp"}},
		{"bad-testbed-unknown", []string{"testbed", "nosuch"}},
		{"bad-transfer-unknown", []string{"transfer", "nosuch"}},
		{"bad-predict-file", []string{"predict", "/nonexistent"}},
		{"bad-command-unknown", []string{"runn"}},
		{"bad-transfer-send-no-host", []string{"transfer", "send"}},
		{"bad-testbed-exec-no-command", []string{"testbed", "exec"}},
		{"bad-predict-matmul-file-argument", []string{"predict", "matmul", predictBench}},
		{"bad-scaling-np", []string{"scaling", "-np", "x", "--", "app", "ep"}},
		{"bad-run-coll-rules", []string{"run", "--coll-rules", "/nonexistent"}},
		{"bad-testbed-run-net", []string{"testbed", "run", "--net", "foo"}},
		{"bad-transfer-serve-listen", []string{"transfer", "serve", "--listen", "bad"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runMain(t, c.args...)
			got := goldenText(out, errs, code)
			golden := filepath.Join("testdata", c.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -run TestGolden -update writes it)", err)
			}
			if got != string(want) {
				t.Errorf("mpbench %s: output differs from %s (go test -run TestGolden -update rewrites it):\n%s",
					strings.Join(c.args, " "), golden, firstDiff(got, string(want)))
			}
		})
	}
}

// goldenText is what a golden file holds of a command's outcome: its
// stdout, followed, when stderr has text or the exit status is not 0, by
// "[stderr]" and stderr's text, then "[exit status N]".
func goldenText(stdout, stderr string, code int) string {
	if stderr == "" && code == ExitOK {
		return stdout
	}
	return stdout + "[stderr]\n" + stderr + "[exit status " + strconv.Itoa(code) + "]\n"
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl
		}
	}
	return "(same lines)"
}
