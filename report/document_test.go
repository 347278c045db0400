package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/analysis"
)

// expectedLatency is the study's latency computed here from the rows
// themselves: mean over the first k sizes of t - (bytes + 26) x 0.1 usec
// (the ethernet-100 preset, seed 001 table 4.1).
func expectedLatency(t *testing.T, s SeriesReport, k int) float64 {
	t.Helper()
	if len(s.Rows) < k {
		t.Fatalf("%d rows, want at least %d", len(s.Rows), k)
	}
	sum := 0.0
	for _, r := range s.Rows[:k] {
		sum += r.Time() - float64(r.Bytes+26)*0.1
	}
	return sum / float64(k)
}

func TestAnalyzePingPongCorpus(t *testing.T) {
	rep := analyzedPingPong(t)
	if len(rep.Series) != 1 {
		t.Fatalf("%d series, want 1 (PingPong)", len(rep.Series))
	}
	s := rep.Series[0]
	if s.Benchmark != "PingPong" || s.Processes != 2 || len(s.Wire) != 24 {
		t.Fatalf("series %s with %d wire rows, want PingPong np=2 with 24 sizes 0..4194304", s.Label(), len(s.Wire))
	}
	want := expectedLatency(t, s, 7)
	if fmt.Sprintf("%.2f", s.LatencyUsec) != fmt.Sprintf("%.2f", want) {
		t.Errorf("latency %.4f usec, want %.4f", s.LatencyUsec, want)
	}
	if s.FitErr != nil {
		t.Fatalf("fit: %v", s.FitErr)
	}
	// The sweep bends where the library leaves its eager protocol: the
	// break must lie inside the measured sizes and the rendezvous
	// bandwidth must approach the 11940 MB/s IMB printed at 4 MiB.
	if !s.Fit.Split || s.Fit.BreakBytes <= 0 || s.Fit.BreakBytes > 4194304 {
		t.Errorf("fit %v: want an eager/rendezvous break inside 1..4194304 B", s.Fit)
	}
	if bw := s.Fit.Rendezvous.BandwidthMBps; bw < 11000 || bw > 13000 {
		t.Errorf("rendezvous bandwidth %.1f MB/s, want about the 11940 MB/s measured at 4 MiB", bw)
	}
}

// row1024 is the expected wire-table row for 1024 bytes in the file, as
// cells: bytes, frames, total bytes, wire time, reported, difference, MiB/s.
func row1024(t *testing.T, s SeriesReport) []string {
	t.Helper()
	for _, r := range s.Rows {
		if r.Bytes == 1024 {
			wire := float64(1024+26) * 0.1
			return []string{"1024", "1", "1050", fmt.Sprintf("%.2f", wire), fmt.Sprintf("%.2f", r.TMax),
				fmt.Sprintf("%.2f", r.TMax-wire), fmt.Sprintf("%.2f", 1024/r.TMax/1.048576)}
		}
	}
	t.Fatal("no 1024-byte row")
	return nil
}

func TestWireTableFormats(t *testing.T) {
	rep := analyzedPingPong(t)
	s := rep.Series[0]
	want := row1024(t, s)
	view := analysis.WireTableView(*s.Model, s.Wire)

	var text bytes.Buffer
	if err := WriteTable(&text, view, Text); err != nil {
		t.Fatal(err)
	}
	if !hasRow(text.String(), "│", want) {
		t.Errorf("text table lacks the row %v:\n%s", want, text.String())
	}
	for _, h := range []string{"wire time [usec]", "reported [usec]", "difference [usec]", "bandwidth [MiB/s]", "Wire time under ethernet-100"} {
		if !strings.Contains(text.String(), h) {
			t.Errorf("text table lacks %q", h)
		}
	}

	var md bytes.Buffer
	if err := WriteTable(&md, view, Markdown); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| "+strings.Join(want, " | ")+" |") {
		t.Errorf("markdown lacks the row %v:\n%s", want, md.String())
	}

	var c bytes.Buffer
	if err := WriteTable(&c, view, CSV); err != nil {
		t.Fatal(err)
	}
	body := c.String()[strings.Index(c.String(), "\n")+1:]
	recs, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("csv: %v", err)
	}
	if len(recs) != 25 {
		t.Fatalf("csv: %d records, want heading + 24 rows", len(recs))
	}
	found := false
	for _, r := range recs {
		if strings.Join(r, ",") == strings.Join(want, ",") {
			found = true
		}
	}
	if !found {
		t.Errorf("csv lacks the row %v (negative numbers must stay numbers)", want)
	}
}

// hasRow reports whether a line of a box table holds exactly the cells.
func hasRow(table, sep string, cells []string) bool {
	for _, line := range strings.Split(table, "\n") {
		var got []string
		for _, f := range strings.Split(line, sep) {
			if f = strings.TrimSpace(f); f != "" {
				got = append(got, f)
			}
		}
		if strings.Join(got, "|") == strings.Join(cells, "|") {
			return true
		}
	}
	return false
}

func TestDocumentTextAndJSON(t *testing.T) {
	rep := analyzedPingPong(t)
	lat := fmt.Sprintf("latency = mean difference of the first 7 sizes: %.2f usec", expectedLatency(t, rep.Series[0], 7))

	var text bytes.Buffer
	if err := WriteDocument(&text, []RunReport{rep}, 7, Text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{lat, "IMB-MPI1 2019 Update 3", "MB = 10^6 B", "-- PingPong np=2",
		"Hockney fit", "breaks at 128 B and 16384 B: three regimes", "-- Anomalies", "-- Problems met while reading"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q", want)
		}
	}

	var js bytes.Buffer
	if err := WriteDocument(&js, []RunReport{rep}, 7, JSON); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []struct {
			File     string
			Sections []struct {
				Title string
				Parts []struct {
					Text  string
					Table *struct {
						Title   string
						Columns []string
						Rows    [][]any
					}
				}
			}
		}
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatalf("json: %v", err)
	}
	if len(doc.Runs) != 1 || len(doc.Runs[0].Sections) == 0 || doc.Runs[0].Sections[0].Title != "PingPong np=2" {
		t.Fatalf("json runs/sections: %+v", doc.Runs)
	}
	var wireRows [][]any
	texts := ""
	for _, p := range doc.Runs[0].Sections[0].Parts {
		texts += p.Text + "\n"
		if p.Table != nil && strings.HasPrefix(p.Table.Title, "Wire time") {
			wireRows = p.Table.Rows
		}
	}
	if len(wireRows) != 24 || wireRows[11][0] != 1024.0 || wireRows[11][5] != -102.99 {
		t.Errorf("json wire table: %d rows, row 11 %v; want 24 rows, row 11 at 1024 B with difference -102.99", len(wireRows), wireRows[11])
	}
	if !strings.Contains(texts, lat) {
		t.Errorf("json section lacks %q", lat)
	}
}

func TestJSONAbsentNumbersAreNull(t *testing.T) {
	path, runs := corpusRuns(t, pingPongFile)
	// Without a wire model the fit has no line-rate percentage (NaN).
	rep := Analyze(path, 1, 1, runs[0], Options{})
	var js bytes.Buffer
	if err := WriteDocument(&js, []RunReport{rep}, 7, JSON); err != nil {
		t.Fatalf("NaN must not break JSON: %v", err)
	}
	if !strings.Contains(js.String(), "null") {
		t.Error("the absent line-rate percentage is not null")
	}
	if strings.Contains(js.String(), "Wire time") {
		t.Error("a wire table without --wire")
	}
}

func TestNegativeZeroPrintsAsZero(t *testing.T) {
	tab := analysis.Table{Title: "t", Columns: []analysis.Column{{Name: "loss", Unit: "%"}},
		Rows: [][]analysis.Cell{{{Value: -0.04, Prec: 1}}, {{Value: -0.06, Prec: 1}}}}
	var b bytes.Buffer
	if err := WriteTable(&b, tab, CSV); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "# t\nloss [%]\n0.0\n-0.1\n" {
		t.Errorf("csv %q, want -0.04 as 0.0 and -0.06 as -0.1", got)
	}
}

func TestEndedEarlyFlag(t *testing.T) {
	// Corpus 033: IMB Allreduce on 1024 ranks, the paste cut mid-row.
	path, runs := corpusRuns(t, "033-imb-allreduce-np1024-hang-truncated-issue.txt")
	rep := Analyze(path, 1, 1, runs[0], Options{})
	var last int64 = -1
	for _, r := range runs[0].Rows {
		if r.Benchmark == "Allreduce" {
			last = r.Bytes
		}
	}
	var got *analysis.Flag
	for i, f := range rep.Flags {
		if f.Kind == FlagEndedEarly {
			got = &rep.Flags[i]
		}
	}
	if got == nil || got.Benchmark != "Allreduce" || got.Processes != 1024 || got.Bytes != last {
		t.Fatalf("ended-early flag %+v, want Allreduce, 1024 ranks, last size %d", got, last)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, FlagsTableView([]analysis.Flag{*got, {Kind: FlagEndedEarly, Processes: -1, Bytes: -1, Msg: "m"}}), CSV); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), fmt.Sprintf("ended-early,Allreduce,1024,%d,", last)) || !strings.Contains(b.String(), "ended-early,-,,,m") {
		t.Errorf("flags csv:\n%s", b.String())
	}
}
