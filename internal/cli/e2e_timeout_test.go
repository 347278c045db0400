package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/result/imb"
	"github.com/mpbench/mpbench/result/read"
)

// TestE2ETimeOut runs IMB's time-out end to end: with -time 1e-6 and
// -msglog 0:3 a benchmark's limit is (3 - 1) x 1 usec, which the probes
// of its first size always pass, so every benchmark prints one time-out
// row at 0 bytes and no other (IMB-MPI1 2021.11 does the same with
// -time 0.004 on a busy host), Sendrecv's 3-process table is skipped, the
// JSON and CSV files record each as a problem, and the run ends normally.
// --all-sizes measures every size instead. (The size at which a longer
// limit stops a benchmark is tested on a virtual clock in package bench.)
func TestE2ETimeOut(t *testing.T) {
	dir := t.TempDir()
	jf, cf := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "r.csv")
	args := []string{"run", "-np", "3", "-npmin", "2", "-msglog", "0:3", "-iter", "20", "-time", "1e-6",
		"--timeout", "60s", "--json", jf, "--csv", cf, "Sendrecv", "PingPong"}
	cmd, out, errb := e2eCmd(t, args...)
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	text := out.String()
	row := "            0" + imb.TimeOutText + "\n"
	for _, b := range []string{"Sendrecv", "PingPong"} {
		head := "# Benchmarking " + b + " \n# #processes = 2 \n# ( 1 additional process waiting in MPI_Barrier)\n"
		i := strings.Index(text, head)
		if i < 0 {
			t.Fatalf("no 2-process %s table:\n%s", b, text)
		}
		lines := strings.SplitAfter(text[i:], "\n")
		if len(lines) < 7 || lines[5] != row || lines[6] != "\n" {
			t.Errorf("%s: want the headings, then only IMB's time-out row at 0 bytes:\n%s", b, strings.Join(lines[:min(8, len(lines))], ""))
		}
	}
	if strings.Contains(text, "# #processes = 3") {
		t.Errorf("Sendrecv's 3-process table ran after its time-out:\n%s", text)
	}
	if !strings.HasSuffix(text, "# All processes entering MPI_Finalize\n\n") {
		t.Errorf("the run did not end normally:\n%s", text)
	}
	for _, f := range []string{jf, cf} {
		runs, err := read.File(f)
		if err != nil || len(runs) != 1 {
			t.Fatalf("%s: %d runs, %v", f, len(runs), err)
		}
		r := runs[0]
		var probs []string
		for _, p := range r.Problems {
			probs = append(probs, p.Msg)
		}
		if len(r.Rows) != 0 || r.Aborted || len(probs) != 2 ||
			!strings.HasPrefix(probs[0], "Sendrecv, 2 processes, 0 bytes: time-out at 0 bytes: the benchmark had run ") ||
			!strings.HasPrefix(probs[1], "PingPong, 2 processes, 0 bytes: time-out at 0 bytes: ") {
			t.Errorf("%s: %d rows, aborted %v, problems %q; want no row, complete, both time-outs", f, len(r.Rows), r.Aborted, probs)
		}
	}

	cmd, out, errb = e2eCmd(t, append(args[:len(args)-6:len(args)-6], "--all-sizes", "Sendrecv", "PingPong")...)
	if err := cmd.Run(); err != nil {
		t.Fatalf("--all-sizes: %v\n%s", err, errb)
	}
	for _, c := range []struct{ title, procs string }{{"Sendrecv", "2"}, {"Sendrecv", "3"}, {"PingPong", "2"}} {
		if n := tableRows(out.String(), c.title, "# #processes = "+c.procs+" \n"); n != 5 {
			t.Errorf("--all-sizes: %s at %s processes: %d rows, want 5:\n%s", c.title, c.procs, n, out)
		}
	}
	if strings.Contains(out.String(), "time-out") {
		t.Errorf("--all-sizes printed a time-out:\n%s", out)
	}
}
