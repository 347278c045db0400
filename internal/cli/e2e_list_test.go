package cli

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/internal/proctest"
	"github.com/mpbench/mpbench/result/imb"
)

// listedBenchmarks runs "mpbench run -list" and returns the names it
// lists, checking IMB-MPI1's layout and the non-default marks.
func listedBenchmarks(t *testing.T) []string {
	t.Helper()
	cmd, out, errb := e2eCmd(t, "run", "-list")
	if err := cmd.Run(); err != nil {
		t.Fatalf("run -list: %v\n%s", err, errb)
	}
	lines := strings.Split(out.String(), "\n")
	if len(lines) < 3 || lines[1] != "List of benchmarks:" || lines[2] != "IMB-MPI1:" {
		t.Fatalf("run -list heading:\n%s", out)
	}
	var names []string
	nonDefault := map[string]bool{}
	for _, l := range lines[3:] {
		if strings.HasPrefix(l, "    ") && !strings.HasPrefix(l, "     ") {
			name, nd := strings.CutSuffix(strings.TrimSpace(l), " (non-default)")
			names = append(names, name)
			nonDefault[name] = nd
		}
	}
	want := "PingPong PingPongSpecificSource PingPongAnySource PingPing PingPingSpecificSource PingPingAnySource " +
		"Sendrecv Exchange Uniband Biband Allreduce Reduce Reduce_local Reduce_scatter Reduce_scatter_block " +
		"Allgather Allgatherv Gather Gatherv Scatter Scatterv Alltoall Alltoallv Bcast Barrier"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("run -list names:\n%s\nwant IMB-MPI1's:\n%s", got, want)
	}
	for _, n := range []string{"PingPongSpecificSource", "PingPongAnySource", "PingPingSpecificSource", "PingPingAnySource", "Uniband", "Biband"} {
		if !nonDefault[n] || nonDefault["PingPong"] || nonDefault["Barrier"] {
			t.Errorf("run -list: %s not marked (non-default), or a default one marked:\n%s", n, out)
		}
	}
	return names
}

// everyBenchmarkArgs are the options of the every-benchmark jobs: one
// block per benchmark (-npmin np), sizes 0..4 bytes, few repetitions.
func everyBenchmarkArgs(np int) []string {
	return []string{"-npmin", strconv.Itoa(np), "-msglog", "0:2", "-iter", "20", "-time", "0.5", "-window_size", "8", "--all-sizes"}
}

// checkEveryBenchmark checks that text holds one complete table per
// benchmark of names at np processes (2 for the single transfers) and
// that mpbench's IMB reader reads every row with no problem.
func checkEveryBenchmark(t *testing.T, text string, np int, names []string) {
	t.Helper()
	rows := 0
	for _, name := range names {
		procs, want := np, 4 // sizes 0, 1, 2, 4
		switch {
		case strings.HasPrefix(name, "PingP"):
			procs = 2
		case strings.HasPrefix(name, "Reduce") || name == "Allreduce":
			want = 2 // 0, 4
		case name == "Barrier":
			want = 1
		}
		procLine := fmt.Sprintf("# #processes = %d \n", procs)
		if got := tableRows(text, name, procLine); got != want {
			t.Errorf("%s at np %d: %d rows, want %d", name, np, got, want)
		}
		rows += want
	}
	runs, err := imb.Read(strings.NewReader(text), "stdout")
	if err != nil || len(runs) != 1 || runs[0].Aborted || len(runs[0].Problems) != 0 || len(runs[0].Rows) != rows {
		t.Fatalf("IMB reader: %v; want one complete run of %d rows, got %+v\n%s", err, rows, runs, text)
	}
	for _, r := range runs[0].Rows {
		if r.Benchmark != "Uniband" && r.Benchmark != "Biband" {
			continue
		}
		// Both columns are printed rounded: Msg/sec to 1, Mbytes/sec to 0.01.
		want := r.MsgRate * float64(r.Bytes) / 1e6
		if !(r.MsgRate > 0) || math.Abs(r.MBps-want) > 0.005+float64(r.Bytes)/1e6 {
			t.Errorf("%s %d bytes: Msg/sec %v Mbytes/sec %v, want Msg/sec > 0 and Mbytes/sec = Msg/sec x bytes / 10^6", r.Benchmark, r.Bytes, r.MsgRate, r.MBps)
		}
	}
}

// TestE2EEveryBenchmark runs every benchmark "run -list" names at np 2
// and 4 on shared memory and TCP.
func TestE2EEveryBenchmark(t *testing.T) {
	names := listedBenchmarks(t)
	for _, tr := range e2eTransports {
		for _, np := range []int{2, 4} {
			t.Run(fmt.Sprintf("%s/np%d", tr.name, np), func(t *testing.T) {
				args := append([]string{"run", "-np", strconv.Itoa(np), "--timeout", "5m"}, everyBenchmarkArgs(np)...)
				args = append(append(args, tr.args...), names...)
				cmd, out, errb := e2eCmd(t, args...)
				if err := cmd.Run(); err != nil {
					t.Fatalf("%s: %v\nstderr:\n%s", strings.Join(args, " "), err, errb)
				}
				checkEveryBenchmark(t, out.String(), np, names)
			})
		}
	}
}

// TestE2EAsIMBProgram runs the mpbench executable under the name IMB-MPI1,
// as a tool that starts IMB-MPI1 would: the arguments are run's.
func TestE2EAsIMBProgram(t *testing.T) {
	if mpbenchBin == "" {
		t.Fatal("mpbench binary was not built (see TestMain output)")
	}
	link := filepath.Join(t.TempDir(), "IMB-MPI1")
	if err := os.Symlink(mpbenchBin, link); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd := proctest.Command(t, link, "-msglog", "0:1", "-iter", "10", "pingpong")
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("IMB-MPI1 -msglog 0:1 -iter 10 pingpong: %v\n%s", err, errb.String())
	}
	if got := tableRows(out.String(), "PingPong", "# #processes = 2 \n"); got != 3 {
		t.Errorf("PingPong rows %d, want 3:\n%s", got, out.String())
	}
}
