//go:build mpi

package mpi_test

import (
	"context"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sideBySizes are the message sizes, in bytes, mpicheck -sidebyside must
// report, in order.
var sideBySizes = []int{0, 8, 1024, 65536, 1 << 20, 4 << 20}

// TestSideBySide runs internal/mpicheck (see withMPICheck)
// with its C-versus-Go ping-pong (-sidebyside -rounds 3) on 2 ranks. It
// checks the table's shape and values, not the speed: a header naming the
// library, one row per size in order, positive repetitions, positive finite
// times (usec) and ratios, a finite Go-C difference (usec; it may be
// negative), and a per-round ratio range lo..hi with 0 < lo <= hi.
func TestSideBySide(t *testing.T) {
	withMPICheck(t, func(t *testing.T, f flavor, bin string) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		args := append(append([]string{}, f.launcher[1:]...), f.npFlag, "2", bin, "-sidebyside", "-rounds", "3")
		out, err := exec.CommandContext(ctx, f.launcher[0], args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", f.launcher[0], strings.Join(args, " "), err, out)
		}
		checkSideBySide(t, string(out), map[string]string{"openmpi": "Open MPI", "mpich": "MPICH"}[f.name])
	})
}

// checkSideBySide checks mpicheck -sidebyside's output: a first header line
// naming lib and one row "bytes reps Ct Got Go-C med min lo..hi" per size.
func checkSideBySide(t *testing.T, out, lib string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "# mpicheck side-by-side ping-pong, "+lib) {
		t.Fatalf("first line %q does not name the library %q; output:\n%s", lines[0], lib, out)
	}
	if !strings.Contains(out, "usec") {
		t.Errorf("header does not give the time unit (usec); output:\n%s", out)
	}
	var rows [][]string
	for _, l := range lines {
		if !strings.HasPrefix(l, "#") {
			rows = append(rows, strings.Fields(l))
		}
	}
	if len(rows) != len(sideBySizes) {
		t.Fatalf("%d rows, want one per size %v; output:\n%s", len(rows), sideBySizes, out)
	}
	positive := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			t.Errorf("value %q is not a positive finite number; output:\n%s", s, out)
		}
		return v
	}
	for i, r := range rows {
		if len(r) != 8 {
			t.Fatalf("row %q has %d fields, want 8 (bytes, repetitions, C t, Go t, Go-C, Go/C med, Go/C min, lo..hi)", strings.Join(r, " "), len(r))
		}
		if n, err := strconv.Atoi(r[0]); err != nil || n != sideBySizes[i] {
			t.Errorf("row %d is for %q bytes, want %d", i, r[0], sideBySizes[i])
		}
		if reps, err := strconv.Atoi(r[1]); err != nil || reps <= 0 {
			t.Errorf("row %d: repetitions %q, want a positive count", i, r[1])
		}
		positive(r[2])
		positive(r[3])
		if d, err := strconv.ParseFloat(r[4], 64); err != nil || math.IsInf(d, 0) || math.IsNaN(d) {
			t.Errorf("row %d: Go-C %q is not a finite number", i, r[4])
		}
		positive(r[5])
		positive(r[6])
		lo, hi, ok := strings.Cut(r[7], "..")
		if !ok {
			t.Errorf("row %d: per-round range %q, want lo..hi", i, r[7])
			continue
		}
		if a, b := positive(lo), positive(hi); a > b {
			t.Errorf("row %d: per-round range %q has lo > hi", i, r[7])
		}
	}
}
