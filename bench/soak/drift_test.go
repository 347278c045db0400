package main

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pattern is a flat series' jitter: 100 usec within +-2%.
var pattern = []float64{100, 102, 98, 101, 99, 100}

// series repeats pattern to n times, each scaled by f(i).
func series(n int, f func(i int) float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = pattern[i%len(pattern)] * f(i)
	}
	return out
}

// TestJudge: real verdicts on synthetic series of 36 rows (windows of 12:
// sorted 98 98 99 99 100 100 100 100 101 101 102 102, median 100, Q1 99,
// Q3 101, noise 101/99).
func TestJudge(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	noisy := make([]float64, 60)
	for i := range noisy {
		noisy[i] = 100 * math.Exp(0.4*rng.NormFloat64()) // flat, spread by a factor of about 1.5 either way
	}
	for _, tc := range []struct {
		name            string
		times           []float64
		first, last     int
		drift, noise    float64 // NaN: not asserted
		judged, verdict bool
	}{
		{"flat", series(36, func(int) float64 { return 1 }), 12, 12, 1, 101.0 / 99, true, true},
		{"doubles halfway", series(36, func(i int) float64 { return 1 + float64(i/18) }), 12, 12, 2, 101.0 / 99, true, false},
		// 100 -> 200 usec over the run: the ramp widens each window
		// (Q3/Q1 of the first 1.162) but not as far as the drift, 1.6.
		{"doubles steadily", series(36, func(i int) float64 { return (1 + float64(i)/35) / (pattern[i%6] / 100) }), 12, 12, 1.6, (1 + 8.0/35) / (1 + 2.0/35), true, false},
		{"noisy flat", noisy, 20, 20, math.NaN(), math.NaN(), true, true},
		{"too few", series(8, func(int) float64 { return 1 }), 2, 2, 1, 102.0 / 100, false, false},
	} {
		d := judge("PingPong", 0, tc.times)
		near := func(got, want float64) bool { return math.IsNaN(want) || math.Abs(got-want) < 1e-9*want }
		if d.First != tc.first || d.Last != tc.last || !near(d.Drift, tc.drift) || !near(d.Noise, tc.noise) || d.Judged != tc.judged || d.Inside != tc.verdict {
			t.Errorf("%s: judge = %+v; want windows %d/%d, drift %v, noise %v, judged %v, inside %v", tc.name, d, tc.first, tc.last, tc.drift, tc.noise, tc.judged, tc.verdict)
		}
	}
	// The noisy series is judged on a wide band, which it measured itself.
	if d := judge("PingPong", 0, noisy); d.Noise < 1.3 || d.Drift < 1/d.Noise || d.Drift > d.Noise {
		t.Errorf("noisy flat: drift %.3f, noise %.3f: want a band wider than 1.3 holding the drift", d.Drift, d.Noise)
	}
}

// TestDriftFalseOutsideRate: of stationary series (times spread by a
// log-normal factor, as a loaded host spreads them), few lie outside their
// noise by chance; of series that step up by 1.5x halfway with a spread of
// 10%, few lie inside. At 36 rows (windows of 12) the rates are about 1%
// and 0; at 9 rows (windows of 3, the hour of docs/reliability.md) about
// 7% and 7%.
func TestDriftFalseOutsideRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const trials = 2000
	for _, tc := range []struct{ rows, most int }{{36, trials / 20}, {9, trials / 10}} {
		outside, inside := 0, 0
		for range trials {
			flat, step := make([]float64, tc.rows), make([]float64, tc.rows)
			for i := range flat {
				flat[i] = 100 * math.Exp(0.3*rng.NormFloat64())
				step[i] = 100 * math.Exp(0.1*rng.NormFloat64())
				if i >= tc.rows/2 {
					step[i] *= 1.5
				}
			}
			if !judge("Bcast", 1024, flat).Inside {
				outside++
			}
			if judge("Bcast", 1024, step).Inside {
				inside++
			}
		}
		t.Logf("%d rows: stationary series outside their noise %d of %d; 1.5x steps inside %d of %d", tc.rows, outside, trials, inside, trials)
		if outside > tc.most || inside > tc.most {
			t.Errorf("%d rows: stationary series outside their noise %d of %d, 1.5x steps inside %d of %d; want each at most %d", tc.rows, outside, trials, inside, trials, tc.most)
		}
	}
}

// TestAnalyzeDir: the kept files of each transport are read calibration
// first, then the jobs by number (job 10 after job 2), and each benchmark
// size is judged over them all.
func TestAnalyzeDir(t *testing.T) {
	dir := t.TempDir()
	rows := func(n int, bytes int64, t float64) []timedRow {
		var out []timedRow
		for range n {
			out = append(out, timedRow{bytes, t})
		}
		return out
	}
	// 0 B: 100 usec in the calibration and job 2, 200 in job 10: drift 2.
	// 1 KiB: 50 usec throughout: drift 1 within a noise of 1.
	writeRows(t, filepath.Join(dir, "shm-calibrate.jsonl"), append(rows(1, 0, 100), rows(1, 1024, 50)...))
	writeRows(t, filepath.Join(dir, "shm-2.jsonl"), append(rows(8, 0, 100), rows(8, 1024, 50)...))
	writeRows(t, filepath.Join(dir, "shm-10.jsonl"), append(rows(9, 0, 200), rows(9, 1024, 50)...))
	writeRows(t, filepath.Join(dir, "tcp-1.jsonl"), rows(5, 0, 30))
	// A copy taken while the job wrote ends in the middle of a line.
	f, err := os.OpenFile(filepath.Join(dir, "tcp-1.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"row","benchmark":"PingPong","processes":2,"by`)
	f.Close()

	var out bytes.Buffer
	judged, inside, err := analyzeDir(&out, dir)
	if err != nil || judged != 2 || inside != 1 {
		t.Fatalf("analyzeDir = %d judged, %d inside, %v; want 2, 1, nil\n%s", judged, inside, err, out.String())
	}
	want := map[string]string{
		"shm PingPong 0":    "shm PingPong 0 6 6 100 200 2.000 1.000-1.000 OUTSIDE",
		"shm PingPong 1024": "shm PingPong 1024 6 6 50 50 1.000 1.000-1.000 inside",
		"tcp PingPong 0":    "tcp PingPong 0 1 1 30 30 1.000 1.000-1.000 few rows",
	}
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		key := strings.Join(f[:3], " ")
		if w, ok := want[key]; ok {
			if got := strings.Join(f, " "); got != w {
				t.Errorf("line %q, want %q", got, w)
			}
			delete(want, key)
		}
	}
	if len(want) > 0 {
		t.Errorf("lines missing: %v\n%s", want, out.String())
	}
	for _, sum := range []string{
		"# shm: 36 rows in 3 files; 1 of 2 benchmark sizes inside their noise (0 with fewer than 3 rows per window)",
		"# tcp: 5 rows in 1 files; 0 of 0 benchmark sizes inside their noise (1 with fewer than 3 rows per window)",
		"# all: 1 of 2 benchmark sizes inside their noise",
	} {
		if !strings.Contains(out.String(), sum+"\n") {
			t.Errorf("output lacks %q:\n%s", sum, out.String())
		}
	}

	if _, _, err := analyzeDir(&out, filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("analyzeDir(missing) = %v, want not a directory", err)
	}
	if _, _, err := analyzeDir(&out, t.TempDir()); err == nil || !strings.Contains(err.Error(), "no result file") {
		t.Errorf("analyzeDir(empty) = %v, want no result file", err)
	}
}

// TestKeepDir: -keep makes a missing directory and refuses one that holds
// an earlier soak's result files.
func TestKeepDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := keepDir(dir); err != nil {
		t.Fatalf("keepDir(new) = %v", err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("keepDir did not make %s: %v", dir, err)
	}
	os.WriteFile(filepath.Join(dir, "shm-1.jsonl"), nil, 0o644)
	if err := keepDir(dir); err == nil || !strings.Contains(err.Error(), "already holds result files (shm-1.jsonl)") {
		t.Errorf("keepDir(used) = %v, want a refusal naming shm-1.jsonl", err)
	}
}
