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
// rewrites them; review the diff before committing). Corpus files are
// named by their path relative to this package.
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
	for _, c := range []struct {
		name string
		args []string
	}{
		{"show-algorithms", []string{"run", "--show-algorithms"}},
		{"show-algorithms-override", []string{"run", "--coll", "bcast=pipeline:seg=65536,alltoall=bruck,barrier=tree", "--show-algorithms"}},
		{"analyze-imb-pingpong", []string{"analyze", in("006-imb2019u3-pingpong.txt")}},
		{"compare-imb-pingpong", []string{"compare", in("006-imb2019u3-pingpong.txt"), in("005-imb2018u1-pingpong-wrapped.txt")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runMain(t, c.args...)
			if code != ExitOK {
				t.Fatalf("mpbench %s: exit %d, stderr %q", strings.Join(c.args, " "), code, errs)
			}
			golden := filepath.Join("testdata", c.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -run TestGolden -update writes it)", err)
			}
			if out != string(want) {
				t.Errorf("mpbench %s: output differs from %s (go test -run TestGolden -update rewrites it):\n%s",
					strings.Join(c.args, " "), golden, firstDiff(out, string(want)))
			}
		})
	}
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
