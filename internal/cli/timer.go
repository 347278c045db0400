package cli

import (
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/mpbench/mpbench/comm"
)

// clocksourcePath names the kernel clocksource behind CLOCK_MONOTONIC.
const clocksourcePath = "/sys/devices/system/clocksource/clocksource0/current_clocksource"

// timerInfo describes the clock every benchmark times with, for the
// "# Timer" header line: its source (mpbench's runtime: CLOCK_MONOTONIC
// read through Go's monotonic clock, with the kernel's clocksource; an MPI
// library: MPI_Wtime and its MPI_Wtick) and the resolution measured as
// the smallest non-zero difference between two back-to-back c.Wtime()
// readings, the differences the benchmarks take (field case: a float64
// of seconds since 1970 would step by 0.24 usec). It returns the line and
// the resolution in usec (0 when the clock never advanced).
func timerInfo(c comm.Comm, mpiLibrary bool) (string, float64) {
	src := "CLOCK_MONOTONIC via Go's monotonic clock (int64 ns since process start)"
	if mpiLibrary {
		src = fmt.Sprintf("MPI_Wtime (MPI_Wtick %.3g s)", c.Wtick())
	}
	if b, err := os.ReadFile(clocksourcePath); err == nil {
		src += ", clocksource " + strings.TrimSpace(string(b))
	}
	res := wtimeResolution(c.Wtime, 2000)
	if math.IsInf(res, 1) {
		return src + ", resolution not measurable (Wtime never advanced)", 0
	}
	return fmt.Sprintf("%s, measured resolution %.3f usec", src, res*1e6), res * 1e6
}

// wtimeResolution returns the smallest positive difference in seconds
// between two consecutive readings of wtime over n readings, +Inf if it
// never advanced.
func wtimeResolution(wtime func() float64, n int) float64 {
	best := math.Inf(1)
	prev := wtime()
	for range n {
		t := wtime()
		if d := t - prev; d > 0 && d < best {
			best = d
		}
		prev = t
	}
	return best
}
