package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/result/imb"
)

// TestE2ERepetitionTimes runs with PerfKitBenchmarker's -show_tail and
// -dumpfile, --percentiles and --json, and checks each output: a tail line
// after every row, the dump file's "BYTES USEC" lines, the distribution
// block after each table, and the JSON spread objects.
func TestE2ERepetitionTimes(t *testing.T) {
	dir := t.TempDir()
	dump, jf := filepath.Join(dir, "dump.txt"), filepath.Join(dir, "r.jsonl")
	cmd, out, errb := e2eCmd(t, "run", "-np", "2", "-msglog", "0:2", "-iter", "20", "-iter_policy", "off",
		"-show_tail", "yes", "-dumpfile", dump, "--percentiles", "--json", jf, "PingPong", "Allreduce")
	if err := cmd.Run(); err != nil {
		t.Fatalf("run: %v\n%s", err, errb)
	}
	text := out.String()
	lines := strings.Split(text, "\n")
	tails := 0
	for i, l := range lines {
		if !strings.HasPrefix(l, "[") {
			continue
		}
		tails++
		// PerfKitBenchmarker's MpiResultParser: the line follows a row and
		// holds 12 comma-separated numbers.
		if f := strings.Fields(lines[i-1]); len(f) < 3 || strings.HasPrefix(lines[i-1], "#") {
			t.Errorf("tail line %q does not follow a row", l)
		}
		parts := strings.Split(strings.Trim(l, "[] "), ",")
		prev := 0.0
		for _, p := range parts {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || v < prev {
				t.Errorf("tail line %q: %q not an ascending number", l, p)
			}
			prev = v
		}
		if len(parts) != 12 {
			t.Errorf("tail line %q: %d values, want 12", l, len(parts))
		}
	}
	if tails != 6 { // PingPong 0, 1, 2, 4 and Allreduce 0, 4
		t.Errorf("%d tail lines, want 6:\n%s", tails, text)
	}
	if n := strings.Count(text, "\n# Repetition times [usec] of the rank measured"); n != 2 {
		t.Errorf("%d distribution blocks, want one per table:\n%s", n, text)
	}
	runs, err := imb.Read(strings.NewReader(text), "stdout")
	if err != nil || len(runs) != 1 || len(runs[0].Problems) != 0 || len(runs[0].Rows) != 6 {
		t.Fatalf("IMB reader: %v %+v", err, runs)
	}
	data, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	dl := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(dl) != 6*20 || !strings.HasPrefix(dl[0], "0 ") || !strings.HasPrefix(dl[20], "1 ") || !strings.HasPrefix(dl[119], "4 ") {
		t.Errorf("dump file: %d lines (want 120 of \"BYTES USEC\", sizes in row order):\n%s", len(dl), data)
	}
	jrun := readOneRun(t, jf)
	if len(jrun.Rows) != 6 {
		t.Fatalf("JSON: %+v", jrun)
	}
	for _, r := range jrun.Rows {
		if s := r.Spread; s == nil || s.N != 20 || !(s.Min <= s.P50 && s.P50 <= s.Max) {
			t.Errorf("JSON %s %d bytes: spread %+v", r.Benchmark, r.Bytes, s)
		}
	}
}
