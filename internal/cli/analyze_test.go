package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/internal/testcorpus"
	"github.com/mpbench/mpbench/result"
)

func TestAnalyzeBadFiles(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("shopping list\nmilk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.txt")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"not benchmark output", []string{"analyze", notes}, notes + ": not benchmark output (no benchmark table found); accepted: " + result.FormatTitles()},
		{"missing file", []string{"analyze", missing}, missing + ": no such file; expected a result file (" + result.FormatTitles() + "), a directory of them, or - for standard input"},
		{"bad wire model", []string{"analyze", "--wire", "token-ring", notes}, "--wire"},
		{"bad format", []string{"analyze", "--format", "xml", notes}, `unknown format "xml"`},
		{"no file", []string{"analyze"}, "missing FILE: expected mpbench analyze FILE...; see 'mpbench analyze --help'"},
		{"directory without results", []string{"analyze", dir}, dir + ": no result file in this directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runMain(t, tc.args...)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d", code, ExitUsage)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "mpbench: ") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("stderr %q: want one line with %q", stderr, tc.want)
			}
		})
	}
}

func TestAnalyzeGoodAndBadFile(t *testing.T) {
	good := testcorpus.Path(t, "006-imb2019u3-pingpong.txt")
	bad := filepath.Join(t.TempDir(), "x.txt")
	if err := os.WriteFile(bad, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runMain(t, "analyze", "--wire", "ethernet-100", good, bad)
	if code != ExitUsage {
		t.Errorf("exit %d, want %d: a bad file among good ones is still bad input", code, ExitUsage)
	}
	if !strings.Contains(stdout, "latency = mean difference of the first 7 sizes") || !strings.Contains(stdout, "-- PingPong np=2") {
		t.Errorf("the good file was not analysed:\n%s", stdout)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, bad+": not benchmark output") {
		t.Errorf("stderr %q: want one line naming %s", stderr, bad)
	}
}

func TestAnalyzeDirectory(t *testing.T) {
	// A directory reads its result files in name order; other files in it
	// are skipped and named once.
	dir := t.TempDir()
	for _, name := range []string{"006-imb2019u3-pingpong.txt", "003-osu532-bibw.txt"} {
		b, err := os.ReadFile(testcorpus.Path(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runMain(t, "analyze", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	osu, imb := strings.Index(stdout, "003-osu532-bibw.txt"), strings.Index(stdout, "006-imb2019u3-pingpong.txt")
	if osu < 0 || imb < osu {
		t.Errorf("want both files analysed in name order (osu at %d, imb at %d):\n%s", osu, imb, stdout)
	}
	if want := dir + ": skipped 1 file(s) that are not benchmark output: notes.txt"; strings.TrimSpace(stderr) != "mpbench: "+want {
		t.Errorf("stderr %q, want the one line %q", stderr, want)
	}
}

func TestReportWritesPageAndPNGs(t *testing.T) {
	a := testcorpus.Path(t, "006-imb2019u3-pingpong.txt")
	b := testcorpus.Path(t, "004-osu532-latency.txt")
	dir := t.TempDir()
	page := filepath.Join(dir, "r.html")
	pngs := filepath.Join(dir, "png")
	code, _, stderr := runMain(t, "report", "--wire", "ethernet-100", a, b, "-o", page, "--png-dir", pngs)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	// PingPong and osu_latency, each time and bandwidth against size.
	want := []string{"latency-pingpong.png", "bandwidth-pingpong.png", "latency-osu-latency.png", "bandwidth-osu-latency.png"}
	for _, name := range want {
		data, err := os.ReadFile(filepath.Join(pngs, name))
		if err != nil || !strings.HasPrefix(string(data), "\x89PNG\r\n\x1a\n") {
			t.Errorf("%s: not a PNG (%v)", name, err)
		}
		id := strings.TrimSuffix(name, ".png")
		if !strings.Contains(string(html), `id="fig-`+id+`"`) {
			t.Errorf("page lacks the figure %s", id)
		}
	}
	entries, _ := os.ReadDir(pngs)
	if len(entries) != len(want) {
		t.Errorf("%d PNG files, want %d", len(entries), len(want))
	}
}

func TestReportNeedsOutput(t *testing.T) {
	code, _, stderr := runMain(t, "report", "x.txt")
	if code != ExitUsage || !strings.Contains(stderr, "-o FILE.html") {
		t.Errorf("exit %d, stderr %q: want exit 2 asking for -o", code, stderr)
	}
}

func TestCompareCommand(t *testing.T) {
	a := testcorpus.Path(t, "006-imb2019u3-pingpong.txt")
	b := testcorpus.Path(t, "005-imb2018u1-pingpong-wrapped.txt")
	code, stdout, stderr := runMain(t, "compare", "--format", "csv", a, b)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// 1024 B: 2.01 usec in the first file, 2.04 in the second.
	if !strings.Contains(stdout, "1024,1,2.01,2.04,1.015,") {
		t.Errorf("csv lacks the 1024 B comparison:\n%s", stdout)
	}
	code, _, stderr = runMain(t, "compare", a)
	if code != ExitUsage || !strings.Contains(stderr, "missing B: expected mpbench compare A B [C...]") {
		t.Errorf("one file: exit %d, stderr %q; want exit 2 asking for two files", code, stderr)
	}
	// PingPong against OSU's barrier: no point in common.
	osu := testcorpus.Path(t, "022-osu571-barrier.txt")
	code, stdout, stderr = runMain(t, "compare", a, osu)
	if code != ExitUsage || !strings.Contains(stdout, "nothing to compare") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "no point (benchmark, processes, message size) in common") {
		t.Errorf("no common point: exit %d, stdout %q, stderr %q; want the table's note, exit 2 and one line", code, stdout, stderr)
	}
}

func TestAnalyzeCombine(t *testing.T) {
	a := testcorpus.Path(t, "006-imb2019u3-pingpong.txt")
	b := testcorpus.Path(t, "005-imb2018u1-pingpong-wrapped.txt")
	code, stdout, stderr := runMain(t, "analyze", "--combine", a, b)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Count(stdout, "\n== ") != 2 || !strings.Contains(stdout, "== "+combinedName+":") {
		t.Errorf("want the two files and then %q:\n%s", combinedName, stdout)
	}
	if _, stdout, _ = runMain(t, "analyze", a, b); strings.Contains(stdout, combinedName) {
		t.Error("runs combined without --combine")
	}
}

// TestAnalyzeWirePerRunHeader: one "mpbench analyze --wire eth:100m" of
// mpbench's PingPong over TCP (IMB text) and IMB's own PingPong file
// charges the runtime's 32-byte frame header to the first only: its
// 0-byte row is 110 bytes on the wire (8.80 usec), IMB's 84 (6.72).
func TestAnalyzeWirePerRunHeader(t *testing.T) {
	tcp := testcorpus.Class(t, "mpbench-tcp-testbed-switch100-pingpong.txt")
	imb := testcorpus.Path(t, "006-imb2019u3-pingpong.txt")
	code, stdout, stderr := runMain(t, "analyze", "--wire", "eth:100m", tcp, imb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	withHeader := "Wire time under eth:100m:mtu=1500 + mpbench's 32-byte TCP frame header"
	if strings.Count(stdout, withHeader) != 1 || strings.Count(stdout, "Wire time under eth:100m:mtu=1500") != 2 {
		t.Errorf("want one wire table with the runtime's header (%s) and one without (%s):\n%s", tcp, imb, stdout)
	}
	// The first row of each wire table: bytes, frames, total bytes, wire time.
	var zero []string
	for _, line := range strings.Split(stdout, "\n") {
		if f := strings.Fields(strings.ReplaceAll(line, "│", " ")); len(f) == 7 && f[0] == "0" {
			zero = append(zero, strings.Join(f[:4], " "))
		}
	}
	if len(zero) != 2 || zero[0] != "0 1 110 8.80" || zero[1] != "0 1 84 6.72" {
		t.Errorf("0-byte wire rows %q, want [\"0 1 110 8.80\" \"0 1 84 6.72\"]:\n%s", zero, stdout)
	}
}

// TestAnalyzeAppFilesTogether: two mpbench app files, the product at
// -np 1 and at -np 2, given together make one scaling table (C1 from the
// first, T(2) and the measured communication, comm_calls_max_s, from the
// second), after each file's own report.
func TestAnalyzeAppFilesTogether(t *testing.T) {
	dir := t.TempDir()
	meta := `{"type":"meta","format":"mpbench-jsonl","schema":1,"tool":"mpbench","version":"t","mbyte":1000000,"date":"2026-01-01T00:00:00Z","host":"h","transport":"shm","command":"mpbench app matmul -n 1000 -np %d","options":{},"info":{}}` + "\n"
	row := `{"type":"row","benchmark":"matmul","processes":%d,"multi":-1,"groups":1,"group":-1,"bytes":1000,"repetitions":1,"t_max_usec":%s,"extra":{"comm_max_s":%s,"comm_calls_max_s":%s}}` + "\n"
	end := `{"type":"end","status":"ok"}` + "\n"
	var paths []string
	for _, f := range []struct{ np, t, comm, calls string }{{"1", "4000000", "0", "0"}, {"2", "2500000", "0.4", "0.5"}} {
		p := filepath.Join(dir, "a"+f.np+".jsonl")
		r := strings.NewReplacer("%d", f.np, "%s", "")
		text := r.Replace(meta) + strings.Replace(strings.Replace(strings.Replace(strings.Replace(row, "%d", f.np, 1), "%s", f.t, 1), "%s", f.comm, 1), "%s", f.calls, 1) + end
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	code, out, stderr := runMain(t, append([]string{"analyze"}, paths...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	i := strings.Index(out, appsName)
	if i < 0 {
		t.Fatalf("no combined application report:\n%s", out)
	}
	var n2 []string
	for _, l := range strings.Split(out[i:], "\n") {
		if f := strings.Fields(strings.ReplaceAll(l, "│", " ")); len(f) > 6 && f[0] == "2" {
			n2 = f
		}
	}
	// N T(N) min max C1/N T(N)-C1/N measured budget speedup efficiency
	if len(n2) != 10 || n2[1] != "2.5000" || n2[4] != "2.0000" || n2[5] != "0.5000" || n2[6] != "0.5000" || n2[8] != "1.600" {
		t.Errorf("N = 2 row %v in:\n%s", n2, out[i:])
	}
	if strings.Contains(out, "--c1") {
		t.Errorf("analyze has no --c1, its output names it:\n%s", out)
	}
}
