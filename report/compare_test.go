package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/rowfile"
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
	// bytes, run, t0, t, ratio, bw0, bw, difference, loss, change, noise, significant
	bw0, bw := 1024/ta, 1024/tb
	want := fmt.Sprintf("| 1024 | 1 | %.2f | %.2f | %.3f | %.2f | %.2f | %.2f | %.1f | %.1f |  | - |",
		ta, tb, tb/ta, bw0, bw, bw0-bw, 100*(1-ta/tb), 100*(tb/ta-1))
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
		fmt.Sprintf("%.2f", bw0-bw), fmt.Sprintf("%.1f", 100*(1-100.5/120.6)), fmt.Sprintf("%.1f", 100*(120.6/100.5-1)), "1.0", "YES"}
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
		if f[:3] == "011" && (len(c.Sections()) != 3 || c.Sections()[1].Title != "Barrier np=4" || c.Sections()[2].Title != "Multi-Barrier 2x2") {
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

// TestCompareVerdictFromPrintedColumns: the significance verdict follows
// from the printed change and noise columns. Base PingPong repeats at
// 32 KiB are 100 and 123.7 usec (median 111.85, noise 23.7%), at 16 KiB
// 100 and 171.4 usec (noise 71.4%), at 4 KiB 100 and 110 usec (10%). Run 1
// is 25.8% slower at 32 KiB (loss 20.5%, less than the noise, yet beyond
// it in the noise's own terms), 71.8% slower at 16 KiB; run 2 is 30%
// faster at 32 KiB (1 - t/t0 = 23.1% would hide it); at 4 KiB run 1 is
// 10.04% slower, printed with two decimals against a noise of 10.00%.
func TestCompareVerdictFromPrintedColumns(t *testing.T) {
	row := func(b int64, usec float64) result.Row {
		r := result.NewRow("PingPong", 2, b)
		r.TMax = usec
		return r
	}
	run := func(rows ...result.Row) result.Run {
		return result.Run{Meta: result.Meta{Tool: "IMB-MPI1", Version: "2021.3", MByte: result.MB}, Rows: rows}
	}
	base := Source{"base", []result.Run{run(row(32768, 100), row(16384, 100), row(4096, 100)),
		run(row(32768, 123.7), row(16384, 171.4), row(4096, 110))}}
	slow := Source{"slow", []result.Run{run(row(32768, 111.85*1.258), row(16384, 135.7*1.718), row(4096, 105*1.1004))}}
	fast := Source{"fast", []result.Run{run(row(32768, 111.85/1.3))}}
	var out bytes.Buffer
	if err := WriteComparison(&out, Compare([]Source{base, slow, fast}), CSV); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	// loss, change, noise, significant of each point.
	for _, want := range []struct {
		bytes, run string
		cells      []string
	}{
		{"32768", "1", []string{"20.5", "25.8", "23.7", "YES"}},
		{"32768", "2", []string{"-30.0", "-30.0", "23.7", "YES"}},
		{"16384", "1", []string{"41.8", "71.8", "71.4", "YES"}},
		{"4096", "1", []string{"9.1", "10.04", "10.00", "YES"}},
	} {
		found := false
		for _, line := range strings.Split(s, "\n") {
			f := strings.Split(line, ",")
			if len(f) == 12 && f[0] == want.bytes && f[1] == want.run {
				found = true
				if got := f[8:]; strings.Join(got, " ") != strings.Join(want.cells, " ") {
					t.Errorf("%s B run %s: loss, change, noise, significant %v, want %v", want.bytes, want.run, got, want.cells)
				}
			}
		}
		if !found {
			t.Errorf("no row for %s B run %s in\n%s", want.bytes, want.run, s)
		}
	}
	if !strings.Contains(s, "a point is significant (YES) when the change, without its sign, exceeds the noise") {
		t.Errorf("the header does not say how the verdict is reached:\n%s", s)
	}
}

// jsonlRun is an mpbench JSON Lines run of PingPong at 0 to 8 B with the
// given end record ("" for none, as a run cut short writes).
func jsonlRun(end string) string {
	var b strings.Builder
	b.WriteString(`{"type":"meta","format":"mpbench-jsonl","schema":1,"tool":"mpbench","version":"0.1.0","mbyte":1000000,"transport":"tcp"}` + "\n")
	for i, t := range []float64{18.91, 20.12, 22.60, 19.90, 26.49} {
		fmt.Fprintf(&b, `{"type":"row","benchmark":"PingPong","processes":2,"multi":-1,"groups":1,"group":-1,"bytes":%d,"repetitions":1000,"t_max_usec":%g}`+"\n",
			[]int{0, 1, 2, 4, 8}[i], t)
	}
	if end != "" {
		b.WriteString(end + "\n")
	}
	return b.String()
}

// TestCompareMarksEndedEarly: runs without an end record, with a failed
// end, or whose meta line is cut off are marked in the list of runs in
// every format; a complete run is not.
func TestCompareMarksEndedEarly(t *testing.T) {
	full := jsonlRun(`{"type":"end","status":"ok"}`)
	files := []struct{ name, text string }{
		{"full.jsonl", full},
		{"cut.jsonl", jsonlRun("")},
		{"failed.jsonl", jsonlRun(`{"type":"end","status":"failed","error":"rank 1: connection reset"}`)},
		{"nometa.jsonl", full[60:]}, // the meta line cut off at its start
	}
	var sources []Source
	for _, f := range files {
		runs, err := rowfile.ReadJSONL(strings.NewReader(f.text), f.name)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, Source{f.name, runs})
	}
	c := Compare(sources)
	if len(c.Rows) != 10 {
		t.Errorf("%d compared points, want 5 sizes for each of the two runs with rows", len(c.Rows))
	}
	want := []string{
		"run 0: full.jsonl (mpbench 0.1.0 over tcp; 1 run(s) in the file), the base",
		"run 1: cut.jsonl (mpbench 0.1.0 over tcp; 1 run(s) in the file) [ended early], compared with run 0",
		"run 2: failed.jsonl (mpbench 0.1.0 over tcp; 1 run(s) in the file) [ended early], compared with run 0",
		"run 3: nometa.jsonl (metadata missing: tool and conditions unknown; 1 run(s) in the file) [ended early] [no measured rows], compared with run 0",
		"a run that ended early",
	}
	for _, f := range []Format{Text, Markdown, CSV, JSON} {
		var out bytes.Buffer
		if err := WriteComparison(&out, c, f); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s: lacks %q:\n%s", f, w, out.String())
			}
		}
		if f != JSON {
			continue
		}
		var doc struct {
			Sources []struct {
				File            string `json:"file"`
				Runs            int    `json:"runs"`
				EndedEarly      int    `json:"ended_early"`
				MetadataMissing bool   `json:"metadata_missing"`
			} `json:"sources"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprintf("%+v", doc.Sources)
		if w := "[{File:full.jsonl Runs:1 EndedEarly:0 MetadataMissing:false} {File:cut.jsonl Runs:1 EndedEarly:1 MetadataMissing:false} " +
			"{File:failed.jsonl Runs:1 EndedEarly:1 MetadataMissing:false} {File:nometa.jsonl Runs:1 EndedEarly:1 MetadataMissing:true}]"; got != w {
			t.Errorf("json sources %s, want %s", got, w)
		}
	}
	// Two runs in a file, one ended early, and the corpus file whose two
	// OSU runs both did.
	two := Source{"two", []result.Run{pingRun(2, 100), pingRun(2.1, 101)}}
	two.Runs[1].Aborted = true
	p, osu := corpusRuns(t, "036-osu532-alltoall-full-two-runs-issue.txt")
	for src, w := range map[*Source]string{&two: "two (IMB-MPI1 2021.3; 2 run(s) in the file) [1 of 2 ended early]",
		{p, osu}: p + " (OSU 5.3.2; 2 run(s) in the file) [all 2 ended early]"} {
		if got := src.label(); got != w {
			t.Errorf("label %q, want %q", got, w)
		}
	}
}
