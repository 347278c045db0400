package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/tune"
)

// TestE2ECollRules runs Bcast with a rules file that changes the
// algorithm at 1024 bytes, and checks every row's algorithm.
func TestE2ECollRules(t *testing.T) {
	dir := t.TempDir()
	rules := filepath.Join(dir, "r.rules")
	text := "# test rules\nbcast 2 0 linear\nbcast 2 1024 pipeline:seg=512\nbcast 3 0 default\n"
	if err := os.WriteFile(rules, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	jf := filepath.Join(dir, "b.jsonl")
	cmd, _, errb := e2eCmd(t, "run", "-np", "2", "-msglog", "9:11", "-iter", "20", "-time", "0.2", "--all-sizes", "-check",
		"Bcast", "--coll-rules", rules, "--json", jf, "--timeout", "60s")
	if err := cmd.Run(); err != nil {
		t.Fatalf("run --coll-rules: %v\n%s", err, errb)
	}
	run := readOneRun(t, jf)
	want := map[int64]string{0: "linear", 512: "linear", 1024: "pipeline:seg=512", 2048: "pipeline:seg=512"}
	for _, r := range run.Rows {
		if w, ok := want[r.Bytes]; !ok || r.Algorithm != w {
			t.Errorf("%d bytes: algorithm %q, want %q", r.Bytes, r.Algorithm, w)
		}
		if r.Defects != 0 {
			t.Errorf("%d bytes: %v defects under -check", r.Bytes, r.Defects)
		}
	}
	if len(run.Rows) != len(want) {
		t.Errorf("%d rows, want %d", len(run.Rows), len(want))
	}
}

// TestE2ETuneBadInput: unknown collectives and algorithms, a missing
// library, a missing rules file: one line, exit 2.
func TestE2ETuneBadInput(t *testing.T) {
	dir := t.TempDir()
	badRules := filepath.Join(dir, "bad.rules")
	if err := os.WriteFile(badRules, []byte("bcast 2 0 quantum\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tune", "--colls", "bcast,frobnicate", "-o", dir}, `unknown collective "frobnicate"`},
		{[]string{"tune", "-o", dir, "-npmin", "1"}, "-npmin 1 -np 4"},
		{[]string{"tune", "--rounds", "1", "-o", dir}, "--rounds 1"},
		{[]string{"tune", "-np", "99999", "-o", dir}, "99998 process counts to measure, at most 64"},
		{[]string{"tune", "-iter", "abc", "-o", dir}, "-iter abc"},
		{[]string{"tune", "-time", "NaN", "-o", dir}, "-time NaN: expected -time seconds with a finite number"},
		{[]string{"tune", "-msglog", "3:x", "-o", dir}, "-msglog 3:x: expected -msglog a:b"},
		{[]string{"tune", "--colls", "bcast"}, "tune needs -o DIR"},
		{[]string{"tune", "--transport", "mpi", "-o", dir}, "needs a binary built with -tags mpi"},
		{[]string{"tune", "--verify", filepath.Join(dir, "nothing")}, "tune.json"},
		{[]string{"run", "Bcast", "--coll-rules", filepath.Join(dir, "missing.rules")}, "--coll-rules"},
		{[]string{"run", "Bcast", "--coll-rules", badRules}, `unknown bcast algorithm "quantum"`},
	} {
		cmd, out, errb := e2eCmd(t, c.args...)
		err := cmd.Run()
		if code := exitCode(err); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d; stderr %s", c.args, code, ExitUsage, errb)
		}
		msg := errb.String()
		if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, c.want) || out.Len() != 0 {
			t.Errorf("%v: stderr %q, stdout %q; want one line containing %q", c.args, msg, out, c.want)
		}
	}
}

// TestE2ETune tunes Bcast and Barrier on 2 and 3 ranks with a few sizes,
// reads the rules file back, runs with it and verifies it.
func TestE2ETune(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tuned")
	cmd, out, errb := e2eCmd(t, "tune", "-np", "3", "--colls", "bcast,barrier", "-msglog", "0:12", "--msgstep", "6",
		"--rounds", "2", "-iter", "20", "-time", "0.05", "--segments", "1024", "-o", dir)
	if err := cmd.Run(); err != nil {
		t.Fatalf("tune: %v\nstderr:\n%s", err, errb)
	}
	// 2 rounds x 2 process counts x (2 x default + one job per
	// configuration index: bcast's algorithms, pipeline once with
	// seg=1024 (linear, binomial, pipeline:seg=1024, scatter_allgather);
	// barrier's ride along in the first ones).
	perPoint := 0
	for _, c := range []string{"bcast", "barrier"} {
		cs, err := mpbenchRuntime{}.configs(c, 3, []int{1024})
		if err != nil {
			t.Fatal(err)
		}
		perPoint = max(perPoint, len(cs))
	}
	if perPoint < 4 {
		t.Fatalf("%d configurations per point, want at least bcast's linear, binomial, pipeline:seg=1024, scatter_allgather", perPoint)
	}
	jobs := 2 * 2 * (2 + perPoint)
	if last := fmt.Sprintf("tune: [%d/%d] round 2/2, 3 procs", jobs, jobs); !strings.Contains(errb.String(), last) {
		t.Errorf("progress does not end with %q:\n%s", last, errb)
	}
	if !strings.Contains(out.String(), "collective   procs  bytes") {
		t.Errorf("no summary table on stdout:\n%s", out)
	}
	f, err := os.Open(filepath.Join(dir, "mpbench.rules"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules, err := tune.ParseRules(f, "mpbench.rules")
	if err != nil {
		t.Fatal(err)
	}
	for _, coll := range []string{"bcast", "barrier"} {
		for _, np := range []int{2, 3} {
			if _, ok := rules.Lookup(coll, np, 0); !ok {
				t.Errorf("no rule for %s on %d ranks", coll, np)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "points.json"))
	if err != nil {
		t.Fatal(err)
	}
	// bcast: 4 sizes (0, 1, 64, 4096) x 2 process counts x 5 (default + 4
	// algorithms); barrier: 2 x 4 (default + 3).
	if n := strings.Count(string(b), `"collective":`); n != 4*2*5+2*4 {
		t.Errorf("points.json has %d points, want %d", n, 4*2*5+2*4)
	}
	cmd, out, errb = e2eCmd(t, "tune", "--verify", dir, "--rounds", "2")
	err = cmd.Run()
	if code := exitCode(err); code != 0 && code != ExitFailed {
		t.Fatalf("tune --verify: exit %d\n%s", code, errb)
	}
	if !strings.Contains(out.String(), "10 points: tuned faster beyond noise at") {
		t.Errorf("verification table does not cover the 10 points:\n%s", out)
	}
	if exitCode(err) == ExitFailed && !strings.Contains(errb.String(), "slower than the default beyond noise") {
		t.Errorf("verify failed for another reason: %s", errb)
	}
	cmd, _, errb = e2eCmd(t, "tune", "--verify", dir, "--rounds", "1")
	if code := exitCode(cmd.Run()); code != ExitUsage || !strings.Contains(errb.String(), "--rounds 1") {
		t.Errorf("tune --verify --rounds 1: exit %d, stderr %q; want exit %d naming --rounds 1", code, errb, ExitUsage)
	}
	page := filepath.Join(t.TempDir(), "tuning.html")
	cmd, _, errb = e2eCmd(t, "report", dir, "-o", page)
	if err := cmd.Run(); err != nil {
		t.Fatalf("report of the tuning: %v\n%s", err, errb)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<h3>bcast</h3>", "<h3>barrier</h3>", "<th>2 processes</th><th>3 processes</th>", `<td class="bytes">4096</td>`} {
		if !strings.Contains(string(html), want) {
			t.Errorf("tuning page lacks %q", want)
		}
	}
}
