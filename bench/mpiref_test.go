package bench

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMPIRef compiles bench/mpiref/mpiref.c (the C reference ping-pong of
// bench/mpicompare.sh) with each MPI library's mpicc found on PATH and runs
// it on 2 ranks in both buffer layouts: one row per size, IMB's repetition
// schedule, positive times, the best trial no slower than the mean.
func TestMPIRef(t *testing.T) {
	libs := []struct{ mpicc, flags, launcher string }{
		{"mpicc.openmpi", "", "mpirun.openmpi --allow-run-as-root --oversubscribe -np 2"},
		{"mpicc.mpich", "-Wno-stringop-overflow", "mpiexec.mpich -n 2"},
	}
	ran := 0
	for _, lib := range libs {
		launcher := strings.Fields(lib.launcher)
		if _, err := exec.LookPath(lib.mpicc); err != nil {
			continue
		}
		if _, err := exec.LookPath(launcher[0]); err != nil {
			continue
		}
		ran++
		bin := filepath.Join(t.TempDir(), "mpiref")
		args := []string{"-O2", "-I", "../mpi/internal/cref", "-o", bin, "mpiref/mpiref.c"}
		if lib.flags != "" {
			args = append([]string{lib.flags}, args...)
		}
		if out, err := exec.Command(lib.mpicc, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", lib.mpicc, err, out)
		}
		for _, layout := range [][]string{nil, {"-1", "-trials", "3"}} {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			argv := append(append(append(launcher[1:], bin), layout...), "0", "1024", "1048576")
			out, err := exec.CommandContext(ctx, launcher[0], argv...).CombinedOutput()
			cancel()
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", launcher[0], strings.Join(argv, " "), err, out)
			}
			checkMPIRefRows(t, string(out), []int64{0, 1024, 1048576}, []int64{1000, 1000, 400})
		}
	}
	if ran == 0 {
		t.Skip("no MPI library with its mpicc and launcher on PATH (Debian: libopenmpi-dev openmpi-bin, or libmpich-dev mpich)")
	}
}

// checkMPIRefRows checks mpiref's table: a header naming the layout, then
// one row per size with the expected repetitions and 0 < t_best <= t_mean.
func checkMPIRefRows(t *testing.T, out string, sizes, reps []int64) {
	t.Helper()
	var rows [][]string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 4 && !strings.HasPrefix(line, "#") {
			rows = append(rows, f)
		}
	}
	if !strings.Contains(out, "# mpiref PingPong (IMB loop in C)") || len(rows) != len(sizes) {
		t.Fatalf("want the header and %d rows, got %d:\n%s", len(sizes), len(rows), out)
	}
	for i, f := range rows {
		b, _ := strconv.ParseInt(f[0], 10, 64)
		n, _ := strconv.ParseInt(f[1], 10, 64)
		best, err1 := strconv.ParseFloat(f[2], 64)
		mean, err2 := strconv.ParseFloat(f[3], 64)
		if b != sizes[i] || n != reps[i] || err1 != nil || err2 != nil || best <= 0 || best > mean {
			t.Errorf("row %d %v: want %d bytes, %d repetitions, 0 < t_best <= t_mean", i, f, sizes[i], reps[i])
		}
	}
}
