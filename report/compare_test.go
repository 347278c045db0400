package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/result"
)

func TestCompareCorpusPingPong(t *testing.T) {
	pa, a := corpusRuns(t, pingPongFile)
	pb, b := corpusRuns(t, "005-imb2018u1-pingpong-wrapped.txt")
	c := Compare([]Source{{pa, a}, {pb, b}})
	if len(c.Rows) != 24 {
		t.Fatalf("%d compared points, want the 24 PingPong sizes both files measured", len(c.Rows))
	}
	var ta, tb float64
	for _, r := range a[0].Rows {
		if r.Bytes == 1024 {
			ta = r.TMax
		}
	}
	for _, r := range b[0].Rows {
		if r.Bytes == 1024 {
			tb = r.TMax
		}
	}
	var out bytes.Buffer
	if err := WriteComparison(&out, c, Markdown); err != nil {
		t.Fatal(err)
	}
	// bytes, run, t0, t, ratio, bw0, bw, difference, loss, noise, significant
	bw0, bw := 1024/ta, 1024/tb
	want := fmt.Sprintf("| 1024 | 1 | %.2f | %.2f | %.3f | %.2f | %.2f | %.2f | %.1f |  | - |",
		ta, tb, tb/ta, bw0, bw, bw0-bw, 100*(1-ta/tb))
	if !strings.Contains(out.String(), want) {
		t.Errorf("comparison lacks the row\n%s\nin\n%s", want, out.String())
	}
	if !strings.Contains(out.String(), "no repeated measurements") {
		t.Error("one run per file: the noise must be said to be unknown")
	}
}

// pingRun is a PingPong run at 1 KiB and 1 MiB with the given times.
func pingRun(small, large float64) result.Run {
	r1 := result.NewRow("PingPong", 2, 1024)
	r1.TMax = small
	r2 := result.NewRow("PingPong", 2, 1048576)
	r2.TMax = large
	return result.Run{Meta: result.Meta{Tool: "IMB-MPI1", Version: "2021.3", MByte: result.MB}, Rows: []result.Row{r1, r2}}
}

func TestCompareNoiseFromRepeats(t *testing.T) {
	// Each file holds three repeats: 1 KiB varies by 10%, 1 MiB by 1%.
	base := Source{"base", []result.Run{pingRun(2.0, 100), pingRun(2.1, 100.5), pingRun(2.2, 101)}}
	// The new run is 5% slower at 1 KiB (within the 10% noise) and 20%
	// slower at 1 MiB (beyond the 1% noise).
	slow := Source{"slow", []result.Run{pingRun(2.205, 120.6), pingRun(2.205, 120.6)}}
	c := Compare([]Source{base, slow})
	if len(c.Rows) != 2 {
		t.Fatalf("%d rows, want 2", len(c.Rows))
	}
	for _, r := range c.Rows {
		wantSig := r.Bytes == 1048576
		if r.Significant != wantSig {
			t.Errorf("%d B: ratio %.3f noise %.3f significant %v, want %v", r.Bytes, r.Ratio, r.Noise, r.Significant, wantSig)
		}
	}
	var out bytes.Buffer
	if err := WriteComparison(&out, c, Text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "1 of 2 points with repeats differ by more than the runs' noise") {
		t.Errorf("summary line missing:\n%s", out.String())
	}
	bw0, bw := 1048576/100.5, 1048576/120.6
	row := []string{"1048576", "1", "100.50", "120.60", "1.200", fmt.Sprintf("%.2f", bw0), fmt.Sprintf("%.2f", bw),
		fmt.Sprintf("%.2f", bw0-bw), fmt.Sprintf("%.1f", 100*(1-100.5/120.6)), "1.0", "YES"}
	if !hasRow(out.String(), "│", row) {
		t.Errorf("1 MiB row missing or wrong:\n%s", out.String())
	}
}

func TestCompareNothingInCommon(t *testing.T) {
	a := pingRun(2, 100)
	b := pingRun(2, 100)
	for i := range b.Rows {
		b.Rows[i].Benchmark = "PingPing"
	}
	var out bytes.Buffer
	if err := WriteComparison(&out, Compare([]Source{{"a", []result.Run{a}}, {"b", []result.Run{b}}}), Text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "nothing to compare") {
		t.Errorf("no common point must be said:\n%s", out.String())
	}
}

func TestCompareWarnsOfDifferentTools(t *testing.T) {
	imb := pingRun(2, 100)
	osu := pingRun(2, 100)
	osu.Meta.Tool = "OSU"
	var out bytes.Buffer
	if err := WriteComparison(&out, Compare([]Source{{"a", []result.Run{imb}}, {"b", []result.Run{osu}}}), Text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "different tools (IMB-MPI1, OSU)") {
		t.Errorf("no warning about mixed tools:\n%s", out.String())
	}
	out.Reset()
	if err := WriteComparison(&out, Compare([]Source{{"a", []result.Run{imb}}, {"b", []result.Run{imb}}}), Text); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "different tools") {
		t.Error("warning about mixed tools for one tool")
	}
}

// TestCompareBarrierCorpus: osu_barrier (one row, no size) and IMB
// Barrier compare; OSU's unknown process count is named, not -1.
func TestCompareBarrierCorpus(t *testing.T) {
	for _, f := range []string{"022-osu571-barrier.txt", "011-imb2019u6-multi-barrier.txt"} {
		p, runs := corpusRuns(t, f)
		c := Compare([]Source{{p, runs}, {p, runs}})
		if len(c.Rows) == 0 {
			t.Fatalf("%s: nothing compared", f)
		}
		var out bytes.Buffer
		if err := WriteComparison(&out, c, Text); err != nil {
			t.Fatal(err)
		}
		if s := out.String(); strings.Contains(s, "nothing to compare") || strings.Contains(s, "-1") {
			t.Errorf("%s:\n%s", f, s)
		}
		if f[:3] == "011" && (len(c.Sections()) != 3 || c.Sections()[1].Title != "Barrier np=4" || c.Sections()[2].Title != "Multi-Barrier np=4") {
			t.Errorf("011: Barrier and Multi-Barrier not apart: %d sections", len(c.Sections()))
		}
	}
}

// TestCompareNamesTransports: mpbench on its own runtime and on an MPI
// library differ only in the transport, which the list of runs must name.
func TestCompareNamesTransports(t *testing.T) {
	shm, lib := pingRun(2.0, 100), pingRun(1.5, 90)
	shm.Meta = result.Meta{Tool: "mpbench", Version: "0.1.0", Transport: "shm", MByte: result.MB}
	lib.Meta = result.Meta{Tool: "mpbench", Version: "0.1.0", Transport: "mpi (Open MPI v4.1.4)", MByte: result.MB}
	var out bytes.Buffer
	if err := WriteComparison(&out, Compare([]Source{{"shm.jsonl", []result.Run{shm}}, {"ompi.jsonl", []result.Run{lib}}}), Text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"run 0: shm.jsonl (mpbench 0.1.0 over shm;", "run 1: ompi.jsonl (mpbench 0.1.0 over mpi (Open MPI v4.1.4);"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("lacks %q:\n%s", want, out.String())
		}
	}
}
