package cli

import (
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/mpbench/mpbench/result"
)

// TestWtimeResolution: the smallest step of a clock that advances by a
// fixed quantum is that quantum, whatever the repeated readings between;
// a clock held at seconds since 1970 as a float64 shows its 2^-22 s step.
func TestWtimeResolution(t *testing.T) {
	ticks := 0
	quantum := func() float64 { ticks++; return float64(ticks/3) * 250e-9 }
	if got := wtimeResolution(quantum, 100); math.Abs(got-250e-9) > 1e-15 {
		t.Errorf("clock of 250 ns steps: resolution %g s, want 2.5e-07", got)
	}
	ns := 0.0
	epoch := func() float64 { ns += 20; return 1.7e9 + ns*1e-9 }
	if got := wtimeResolution(epoch, 1000); got < 2e-7 || got > 2.5e-7 {
		t.Errorf("float64 epoch seconds: resolution %g s, want the 2^-22 s (2.4e-07) step", got)
	}
	if got := wtimeResolution(func() float64 { return 1 }, 10); !math.IsInf(got, 1) {
		t.Errorf("a stopped clock: resolution %g, want +Inf", got)
	}
}

// checkTimerWarning checks a run's "# Timer warning" line against its own
// header and rows: it is there exactly when a printed time (t[usec], or
// t_min of a range) is below 100 times the "# Timer" line's resolution,
// and counts those rows. Rows within the rounding of the printed figures
// of that limit may go either way.
func checkTimerWarning(t *testing.T, text string, run result.Run) {
	t.Helper()
	sm := regexp.MustCompile(`measured resolution ([0-9.]+) usec`).FindStringSubmatch(run.Meta.Info["timer"])
	if sm == nil {
		t.Fatalf("no measured resolution in the header's timer line %q", run.Meta.Info["timer"])
	}
	res, _ := strconv.ParseFloat(sm[1], 64)
	lo, hi := 100*(res-0.0005)-0.01, 100*(res+0.0005)+0.01
	sure, maybe := 0, 0
	for _, r := range run.Rows {
		v := r.TMin
		if r.Benchmark == "PingPong" || r.Benchmark == "PingPing" {
			v = r.TMax
		}
		switch {
		case v < lo:
			sure++
		case v <= hi:
			maybe++
		}
	}
	wm := regexp.MustCompile(`(?m)^# Timer warning: .* of the time in (\d+) rows?, `).FindAllStringSubmatch(text, -1)
	if len(wm) > 1 {
		t.Fatalf("%d timer warnings, want at most one:\n%s", len(wm), text)
	}
	got := 0
	if len(wm) == 1 {
		got, _ = strconv.Atoi(wm[0][1])
	}
	if got < sure || got > sure+maybe {
		t.Errorf("timer warning counts %d rows; resolution %.3f usec puts %d rows surely and %d more maybe below 100 resolutions:\n%s",
			got, res, sure, maybe, text)
	}
}
