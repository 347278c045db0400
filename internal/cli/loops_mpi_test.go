//go:build mpi

package cli

import (
	"strconv"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/mpi"
	"github.com/mpbench/mpbench/result/imb"
)

// loopBenchmarks are the benchmarks whose timed loops package mpi runs in
// C (comm.LoopRunner), the collectives when the library's own runs, in
// three jobs (each job of an oversubscribed np 4 on a loaded 2-CPU host must
// end within mpiJob's limit).
var loopBenchmarks = [][]string{
	{"PingPong", "PingPongAnySource", "PingPing", "PingPingAnySource", "Sendrecv", "Exchange", "Uniband", "Biband"},
	{"Allreduce", "Bcast", "Barrier", "Reduce", "Gather", "Scatter", "Allgather", "Alltoall", "Reduce_scatter_block"},
	{"Allgatherv", "Gatherv", "Scatterv", "Alltoallv", "Reduce_local", "Reduce_scatter"},
}

// TestE2EMPILoopsCheck runs the benchmarks whose loops run in C under
// -check, -off_cache and -root_shift at np 2 and 4 under the library's
// launcher. The -check pass runs each repetition through the same C loop
// on the repetition's own slot, so a loop that receives from the wrong
// neighbour or into the wrong part of its slot, or keeps the root in
// place, reports defects; every row must report none.
func TestE2EMPILoopsCheck(t *testing.T) {
	bin := mpiBinary(t)
	for _, np := range []int{2, 4} {
		for _, benchmarks := range loopBenchmarks {
			loopsCheck(t, bin, np, benchmarks)
		}
	}
}

// loopsCheck runs benchmarks at np under -check and checks every row.
func loopsCheck(t *testing.T, bin string, np int, benchmarks []string) {
	t.Helper()
	args := []string{"run", "-npmin", strconv.Itoa(np), "-msglog", "0:4", "-iter", "10", "-time", "0.2", "--all-sizes", "-window_size", "4",
		"-check", "-off_cache", "-1", "-root_shift", "1"}
	argv := append(append(append(mpi.LauncherCommand(np), bin), args...), benchmarks...)
	out, errs, code := mpiJob(t, argv)
	if code != 0 {
		t.Fatalf("%s: exit status %d\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), code, out, errs)
	}
	runs, err := imb.Read(strings.NewReader(out), "stdout")
	if err != nil || len(runs) != 1 || len(runs[0].Problems) != 0 {
		t.Fatalf("np %d: IMB reader: %v, %d runs; want one run without problems\n%s", np, err, len(runs), out)
	}
	seen := map[string]int{}
	for _, r := range runs[0].Rows {
		seen[r.Benchmark]++
		if r.Benchmark != "Barrier" && r.Benchmark != "Reduce_local" && r.Defects != 0 { // neither has a defects column
			t.Errorf("np %d: %s %d bytes on %d processes: %v defects, want 0", np, r.Benchmark, r.Bytes, r.Processes, r.Defects)
		}
	}
	for _, name := range benchmarks {
		if seen[name] == 0 {
			t.Errorf("np %d: no %s row\n%s", np, name, out)
		}
	}
}
