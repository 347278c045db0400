package study

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestNetSpecs: --scale gives the study's four networks at the scaled
// rates, else one network per kind at the rate, named by its kind.
func TestNetSpecs(t *testing.T) {
	got := NetSpecs([]string{"switch", "hub"}, 20e6, 0.5)
	want := []NetSpec{{"switch100", "switch", 50e6}, {"switch10", "switch", 5e6}, {"hub10", "hub", 5e6}, {"wifi54", "wifi", 27e6}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("scaled: %v, want %v", got, want)
	}
	got = NetSpecs([]string{"switch", "hub"}, 20e6, 0)
	want = []NetSpec{{"switch", "switch", 20e6}, {"hub", "hub", 20e6}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("kinds: %v, want %v", got, want)
	}
}

// TestHostBound: a switch whose pairs carry more than SwitchAggregateBps
// in all is named (--scale 1 on 8 nodes: switch100, 400 Mbit/s), a slower
// switch and shared media are not.
func TestHostBound(t *testing.T) {
	got := HostBound(NetSpecs(nil, 0, 1), 8)
	if len(got) != 1 || !strings.HasPrefix(got[0], "switch100 at 100mbit: 4 pairs carry 400mbit in all, more than the 100mbit ") {
		t.Errorf("--scale 1, 8 nodes: %q", got)
	}
	if got := HostBound(NetSpecs([]string{"switch", "hub", "wifi"}, 20e6, 0), 8); len(got) != 0 {
		t.Errorf("20 Mbit/s, 8 nodes (the default): %q, want none", got)
	}
	if got := HostBound(NetSpecs([]string{"switch", "hub"}, 50e6, 0), 4); len(got) != 0 {
		t.Errorf("50 Mbit/s, 4 nodes (the short study): %q, want none", got)
	}
}

// TestReanalyseNoResults: a directory without NET-p2p-1pairs.jsonl is a
// *NoResultsError naming it, and nothing is written.
func TestReanalyseNoResults(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	err := (&Run{Dir: dir, Nodes: 4, Out: &out, Errw: &out}).Reanalyse("mpbench testbed study --reanalyse")
	var none *NoResultsError
	if !errors.As(err, &none) || err.Error() != "no study results (NET-p2p-1pairs.jsonl) in "+dir {
		t.Fatalf("error %v, want a *NoResultsError naming %s", err, dir)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 || out.Len() != 0 {
		t.Errorf("wrote %v and printed %q, want nothing", entries, out.String())
	}
}

// studyFile is a JSON Lines result file of one run on network model:
// PingPong and PingPing rows at 1 MiB with the given bandwidths.
func studyFile(model string, pingpong, pingping float64) string {
	meta := `{"type":"meta","format":"mpbench-jsonl","schema":1,"tool":"mpbench","version":"0.1.0","mbyte":1048576,` +
		`"date":"2026-12-02T12:00:00Z","host":"n1","transport":"tcp","command":"mpbench run","info":{"network":"` + model + `; mpbench testbed s1"}}`
	row := func(bench string, mbps float64) string {
		b, _ := json.Marshal(map[string]any{"type": "row", "benchmark": bench, "processes": 2, "multi": 0, "groups": 1, "group": -1,
			"bytes": 1 << 20, "repetitions": 4, "t_max_usec": float64(1<<20) / mbps, "mbytes_per_sec": mbps})
		return string(b)
	}
	return strings.Join([]string{meta, row("PingPong", pingpong), row("PingPing", pingping), `{"type":"end","status":"ok"}`}, "\n") + "\n"
}

// TestReanalyse reads an earlier study's files: the network is named by
// the files, its kind by the name without digits and its model by the
// runs' info.network; the findings, pages and the report of every result
// file (Report) are written, the transfer file is shown as a table and not
// reported.
func TestReanalyse(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"hub10-p2p-1pairs.jsonl": studyFile("hub 10 Mbit/s", 1.0, 0.5),
		"hub10-transfer.jsonl":   `{"bytes":1024,"repeats":1}` + "\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errw bytes.Buffer
	var reported []string
	var reportPath string
	s := &Run{Dir: dir, Nodes: 4, Out: &out, Errw: &errw, Report: func(files []string, path string) error {
		reported, reportPath = files, path
		return nil
	}}
	if err := s.Reanalyse("mpbench testbed study --reanalyse -o " + dir); err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "hub10-p2p-1pairs.jsonl")}; !reflect.DeepEqual(reported, want) || reportPath != filepath.Join(dir, "report.html") {
		t.Errorf("reported %v to %s, want %v to report.html", reported, reportPath, want)
	}
	if len(s.nets) != 1 || s.nets[0].Name != "hub10" || s.nets[0].Kind != "hub" || len(s.nets[0].Rows) != 2 {
		t.Fatalf("networks %+v, want hub10 (hub) with 2 rows", s.nets)
	}
	if len(s.infos) != 1 || s.infos[0].Model != "hub 10 Mbit/s" || !strings.Contains(s.infos[0].Transfer, "file transfer on hub10, node 2 to node 1") {
		t.Errorf("network info %+v, want the model hub 10 Mbit/s and the transfer table", s.infos)
	}
	// Of a study with one pair's rows only, every finding is written, those
	// not measured with a null value.
	b, err := os.ReadFile(filepath.Join(dir, "findings.json"))
	var fs []map[string]any
	if err != nil || json.Unmarshal(b, &fs) != nil || len(fs) != 7 {
		t.Fatalf("findings.json (%v): %s; want the 7 findings of one network", err, b)
	}
	for _, f := range fs {
		v, measured := f["value"].(float64)
		if ratio := f["finding"] == "PingPing / PingPong bandwidth, 1 MiB"; ratio != measured || (ratio && v != 0.5) || (!ratio && f["value"] != nil) {
			t.Errorf("finding %v: value %v, want 0.5 for PingPing / PingPong and null for the others", f["finding"], f["value"])
		}
	}
	var ratio string
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "hub10 ") && strings.Contains(line, "PingPing / PingPong bandwidth, 1 MiB") {
			ratio = line
		}
	}
	if f := strings.Fields(ratio); len(f) < 4 || f[len(f)-4] != "0.500" || f[len(f)-1] != "ok" {
		t.Errorf("the PingPing/PingPong finding is printed as %q, want 0.500 <= 0.6 ok", ratio)
	}
	page, err := os.ReadFile(filepath.Join(dir, "study.html"))
	if err != nil || !strings.Contains(string(page), "findings recomputed (--reanalyse)") {
		t.Errorf("study.html (%v) does not say the findings were recomputed", err)
	}
	if strings.Contains(out.String(), "# wall time") || !strings.Contains(out.String(), filepath.Join(dir, "study.html")) {
		t.Errorf("printed %q, want the findings and the page without wall times", out.String())
	}
}
