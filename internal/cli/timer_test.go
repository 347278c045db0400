package cli

import (
	"math"
	"testing"
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
