package cli

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/rowfile"
)

// TestJobFailure: a failed measuring job's reason is its end record's
// error, else the line the child mpbench reported its error in (not an
// earlier line of someone else's that happens to say "error"), else how it
// ended with its last stderr line.
func TestJobFailure(t *testing.T) {
	dir := t.TempDir()
	ended := errors.New("mpbench run exited with status 1")
	withEnd := filepath.Join(dir, "end.jsonl")
	files, err := rowfile.Files{JSON: withEnd}.Create(result.Meta{Tool: "mpbench", Version: Version})
	if err != nil {
		t.Fatal(err)
	}
	row := result.NewRow("Bcast", 2, 0)
	row.Repetitions, row.TMax = 10, 1.5
	if err := files.WriteRow(row); err != nil {
		t.Fatal(err)
	}
	if err := files.WriteEnd(errors.New("rank 1: MPI_ERR_TRUNCATE: message truncated")); err != nil {
		t.Fatal(err)
	}
	files.Close()
	none := filepath.Join(dir, "none.jsonl")
	for _, c := range []struct {
		name, json, stderr string
		err                error
		want               string
	}{
		{"end record", withEnd, "Fatal error in PMPI_Bcast\nmpbench: run failed\n", ended, "rank 1: MPI_ERR_TRUNCATE: message truncated"},
		{"child's error line", none, "[node1:77] Error: an MPI library's line\nmpbench: -np 0: expected a process count N >= 1, e.g. -np 4\n", ended,
			"-np 0: expected a process count N >= 1, e.g. -np 4"},
		{"crash", none, "Segmentation fault (core dumped)\n", errors.New("mpbench run killed by signal SIGSEGV"),
			`mpbench run killed by signal SIGSEGV; last stderr line: "Segmentation fault (core dumped)"`},
		{"nothing printed", none, "", ended, "mpbench run exited with status 1"},
	} {
		if got := jobFailure(c.json, c.stderr, c.err); got != c.want {
			t.Errorf("%s: jobFailure = %q, want %q", c.name, got, c.want)
		}
	}
}
