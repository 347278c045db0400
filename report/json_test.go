package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/result"
)

// TestJSONNumericFigures: the JSON document carries the latency, k, the
// break and each segment's fit and % of line rate as numbers, equal to
// the analysis', not only inside sentences.
func TestJSONNumericFigures(t *testing.T) {
	rep := analyzedPingPong(t)
	s := rep.Series[0]
	var js bytes.Buffer
	if err := WriteDocument(&js, []RunReport{rep}, 7, JSON); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []struct {
			Series []struct {
				Benchmark   string   `json:"benchmark"`
				Processes   *int     `json:"processes"`
				K           int      `json:"k"`
				LatencyUsec *float64 `json:"latency_usec"`
				BreakBytes  *int64   `json:"break_bytes"`
				TimeColumn  string   `json:"time_column"`
				Fit         []struct {
					Segment         string   `json:"segment"`
					BandwidthMBps   *float64 `json:"bandwidth_mbps"`
					LineRatePercent *float64 `json:"line_rate_percent"`
				} `json:"fit"`
			} `json:"series"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != 1 || len(doc.Runs[0].Series) != 1 {
		t.Fatalf("runs/series: %+v", doc.Runs)
	}
	j := doc.Runs[0].Series[0]
	if j.Benchmark != "PingPong" || j.Processes == nil || *j.Processes != 2 || j.K != 7 || j.TimeColumn != "t_max" {
		t.Errorf("series %+v", j)
	}
	if j.LatencyUsec == nil || math.Abs(*j.LatencyUsec-s.LatencyUsec) > 1e-9 {
		t.Errorf("latency_usec %v, want %g", j.LatencyUsec, s.LatencyUsec)
	}
	// IMB 2019 PingPong over InfiniBand: short (1-64 B), eager (128 B-8 KiB)
	// and rendezvous (from 16 KiB) messages.
	if !s.Fit.Split || j.BreakBytes == nil || *j.BreakBytes != 16384 || len(j.Fit) != 3 || j.Fit[0].Segment != "short" {
		t.Fatalf("break %v, %d segments; want 16384 and 3", j.BreakBytes, len(j.Fit))
	}
	rdv := j.Fit[2]
	if rdv.Segment != "rendezvous" || rdv.BandwidthMBps == nil || math.Abs(*rdv.BandwidthMBps-s.Fit.Rendezvous.BandwidthMBps) > 1e-9 ||
		rdv.LineRatePercent == nil || math.Abs(*rdv.LineRatePercent-s.Fit.Rendezvous.LineRatePct) > 1e-9 {
		t.Errorf("rendezvous %+v, want bandwidth %g and %g%% of line rate", rdv, s.Fit.Rendezvous.BandwidthMBps, s.Fit.Rendezvous.LineRatePct)
	}
}

// TestBandwidthColumnMismatchReported: IMB 2019's PingPong (Mbytes/sec in
// 10^6 B) read as if its Mbyte were 2^20 (a wrong guess for an unknown
// version) is reported as a problem naming the Mbyte that matches.
func TestBandwidthColumnMismatchReported(t *testing.T) {
	p, runs := corpusRuns(t, pingPongFile)
	// The file's only problem: the script's "Nodes:" and "Results:" lines.
	if rep := Analyze(p, 1, 1, runs[0], Options{}); len(rep.Problems) != 1 || !strings.HasPrefix(rep.Problems[0].Msg, "skipped 2 line(s)") {
		t.Fatalf("consistent file: problems %v", rep.Problems)
	}
	run := runs[0]
	run.Meta.MByte = 1 << 20
	rep := Analyze(p, 1, 1, run, Options{})
	if len(rep.Problems) != 2 || !strings.Contains(rep.Problems[1].Msg, "PingPong np=2: Mbytes/sec column does not match bytes/t_max under MB=2^20") ||
		!strings.Contains(rep.Problems[1].Msg, "matches under MB=10^6") || rep.Problems[1].Line == 0 {
		t.Errorf("problems %v", rep.Problems)
	}
	// The heading states the Mbyte the numbers check against, once.
	if h := rep.Heading(); !strings.Contains(h, "(Mbytes/sec in MB = 10^6 B as its numbers check, not the MiB = 2^20 B its version implies)") {
		t.Errorf("heading %q", h)
	}
	if h := Analyze(p, 1, 1, runs[0], Options{}).Heading(); !strings.Contains(h, "(Mbytes/sec in MB = 10^6 B)") {
		t.Errorf("consistent heading %q", h)
	}
}

// TestEndedEarlyNpUnknown: an OSU collective cut short names its
// unknown process count, not -1.
func TestEndedEarlyNpUnknown(t *testing.T) {
	p, runs := corpusRuns(t, "036-osu532-alltoall-full-two-runs-issue.txt")
	rep := Analyze(p, 1, 2, runs[0], Options{})
	found := false
	for _, f := range rep.Flags {
		if f.Kind == FlagEndedEarly {
			found = strings.Contains(f.Msg, "after 128 B (np unknown)")
		}
		if strings.Contains(f.Msg, "-1 ranks") {
			t.Errorf("flag %q", f.Msg)
		}
	}
	if !found {
		t.Errorf("no ended-early flag naming np unknown: %v", rep.Flags)
	}
}

// TestPlacementReported: a run that records its rank-to-host map says, per
// series, where its ranks ran, in the text (a line of the series' section)
// and in the JSON (placement, between_hosts); a run without one says
// nothing.
func TestPlacementReported(t *testing.T) {
	run := result.Run{Meta: result.Meta{Tool: "mpbench", MByte: result.MB, Info: map[string]string{"rank_hosts": "n0,n1"}}}
	for _, b := range []int64{1, 2, 4, 8, 16} {
		run.Rows = append(run.Rows, result.Row{Benchmark: "PingPong", Processes: 2, Multi: result.MultiNone, Groups: 1, Group: -1,
			Bytes: b, Repetitions: 1000, TMax: 10 + float64(b)/100, TMin: 10, TAvg: 10})
	}
	rep := Analyze("pp.jsonl", 1, 1, run, Options{})
	want := "between hosts: ranks on n0: 0; n1: 1"
	var text bytes.Buffer
	if err := WriteDocument(&text, []RunReport{rep}, 7, Text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), want+"\n") {
		t.Errorf("text lacks %q:\n%s", want, text.String())
	}
	var js bytes.Buffer
	if err := WriteDocument(&js, []RunReport{rep}, 7, JSON); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []struct {
			Series []struct {
				Placement string `json:"placement"`
				Between   *bool  `json:"between_hosts"`
			} `json:"series"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || len(doc.Runs) != 1 || len(doc.Runs[0].Series) != 1 {
		t.Fatalf("%v %+v", err, doc)
	}
	if s := doc.Runs[0].Series[0]; s.Placement != want || s.Between == nil || !*s.Between {
		t.Errorf("JSON series %+v", s)
	}
	delete(run.Meta.Info, "rank_hosts")
	if rep := Analyze("pp.jsonl", 1, 1, run, Options{}); rep.Series[0].Placement != nil {
		t.Errorf("placement without a map: %v", rep.Series[0].Placement)
	}
}
