package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// TestTuneRefusesPlacementFirst: tune passes --map-by, --hostfile, --host
// and --if on to each of its jobs; a bad one is refused once, with exit 2
// and one line, before any job runs or any file is written.
func TestTuneRefusesPlacementFirst(t *testing.T) {
	for _, c := range []struct {
		flag, value, want string
	}{
		{"--map-by", "foo", "--map-by foo"},
		{"--hostfile", "/nonexistent/hosts", "--hostfile /nonexistent/hosts: no such file"},
		{"--host", "a:x", "a:x"},
		{"--if", "nosuch0", "--if nosuch0"},
	} {
		t.Run(c.flag, func(t *testing.T) {
			dir := t.TempDir() + "/out"
			code, _, errOut := runMain(t, "tune", c.flag, c.value, "-o", dir)
			if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line naming %q", code, errOut, c.want)
			}
			if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
				t.Errorf("%s holds %d files after a refused option", dir, len(entries))
			}
		})
	}
}

// TestPlaceReach: placing ranks checks the transport's reach across the
// hosts they land on, apart from the options' own checks (hostList): a
// transport of one host is refused for ranks on two, and accepted when
// the ranks fit on one.
func TestPlaceReach(t *testing.T) {
	h := hostFlags{hosts: "a:2,b:2", mapBy: "slot"}
	list, _, err := h.hostList("")
	if err != nil || len(list) != 2 {
		t.Fatalf("hostList: %v, %v", list, err)
	}
	if hosts, err := h.place(list, 2, "shm"); err != nil || len(hosts) != 2 || hosts[0] != "a" || hosts[1] != "a" {
		t.Errorf("2 ranks on a:2 over shm: %v, %v; want both on a", hosts, err)
	}
	if _, err := h.place(list, 3, "shm"); err == nil || !isUsage(err) || !strings.Contains(err.Error(), "--transport shm: the ranks are on 2 hosts") {
		t.Errorf("3 ranks on a:2,b:2 over shm: %v; want the usage error naming the 2 hosts", err)
	}
	if hosts, err := h.place(list, 3, "tcp"); err != nil || len(hosts) != 3 || hosts[2] != "b" {
		t.Errorf("3 ranks over tcp: %v, %v; want the third on b", hosts, err)
	}
}

// TestReadTuneFile: every file of a tuning directory that is missing or
// bad is refused in one wording, naming --verify, the directory and the
// file.
func TestReadTuneFile(t *testing.T) {
	dir := t.TempDir()
	suffix := "; give the directory 'mpbench tune -o DIR' wrote"
	_, errManifest := readTuneManifest(dir)
	_, errDecisions := readDecisions(dir)
	for _, c := range []struct {
		err  error
		want string
	}{
		{errManifest, "--verify " + dir + ": tune.json: no such file or directory" + suffix},
		{errDecisions, "--verify " + dir + ": decisions.json: no such file or directory" + suffix},
	} {
		if c.err == nil || !isUsage(c.err) || c.err.Error() != c.want {
			t.Errorf("got %v, want the usage error %q", c.err, c.want)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "decisions.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readDecisions(dir); err == nil || !isUsage(err) ||
		!strings.HasPrefix(err.Error(), "--verify "+dir+": decisions.json: unexpected end of JSON input") || !strings.HasSuffix(err.Error(), suffix) {
		t.Errorf("a bad decisions.json: %v", err)
	}
}
