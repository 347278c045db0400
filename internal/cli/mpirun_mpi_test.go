//go:build mpi

package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/internal/proctest"
	"github.com/mpbench/mpbench/mpi"
	"github.com/mpbench/mpbench/result/imb"
)

var (
	mpiBinOnce sync.Once
	mpiBin     string
	mpiBinErr  string
)

// mpiBinary builds mpbench once with the same build tags as this test (so
// against the same MPI library) and skips t when the library's launcher is
// not installed.
func mpiBinary(t *testing.T) string {
	t.Helper()
	launcher := mpi.LauncherCommand(2)
	if _, err := exec.LookPath(launcher[0]); err != nil {
		t.Skipf("%s not found on PATH: install the %s launcher (Debian: %s) to run this test", launcher[0], mpi.Flavor, launcherPackage())
	}
	mpiBinOnce.Do(func() {
		tags := "mpi"
		if mpi.Flavor == "mpich" {
			tags = "mpi,mpich"
		}
		dir, err := os.MkdirTemp("", "mpbench-mpi")
		if err != nil {
			mpiBinErr = err.Error()
			return
		}
		bin := filepath.Join(dir, "mpbench-mpi")
		if out, err := exec.Command("go", "build", "-tags", tags, "-o", bin, "github.com/mpbench/mpbench/cmd/mpbench").CombinedOutput(); err != nil {
			mpiBinErr = "go build -tags " + tags + ": " + err.Error() + "\n" + string(out)
			return
		}
		mpiBin = bin
	})
	if mpiBin == "" {
		t.Fatal(mpiBinErr)
	}
	return mpiBin
}

// mpiJob runs argv (launcher or mpbench first) and returns stdout, stderr
// and the exit status.
func mpiJob(t *testing.T, argv []string) (string, string, int) {
	t.Helper()
	return jobWithin(t, argv, 2*time.Minute)
}

// jobWithin runs argv, failing t when it still runs after limit, and
// returns stdout, stderr and the exit status.
func jobWithin(t *testing.T, argv []string, limit time.Duration) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	proctest.Bind(t, cmd)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s: still running after %v\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), limit, &out, &errb)
	}
	return out.String(), errb.String(), exitCode(err)
}

// registered keeps the names bench knows, so that benchmarks not yet
// registered are left out instead of failing the run.
func registered(names ...string) []string {
	var out []string
	for _, n := range names {
		if _, ok := bench.Lookup(n); ok {
			out = append(out, n)
		}
	}
	return out
}

// checkMPIText checks rank 0's IMB text of a job on the MPI library: each
// benchmark's block printed once with rows for 0, 1, 2, 4 and 8 bytes (4
// and 8 bytes for reductions, whose sizes are whole floats), the library as
// transport and its thread level, and the IMB reader reading it cleanly.
func checkMPIText(t *testing.T, text string, np int, names []string) {
	t.Helper()
	procs := "# #processes = " + strconv.Itoa(np) + " "
	for _, b := range names {
		want := 5
		if strings.Contains(b, "reduce") {
			want = 3 // 0, 4, 8
		}
		if n := tableRows(text, b, procs); n != want {
			t.Errorf("%s at np=%d: %d rows, want %d\n%s", b, np, n, want, text)
		}
	}
	if c := strings.Count(text, "# Benchmarking "); c != len(names) {
		t.Errorf("%d blocks, want %d (printed once, by rank 0):\n%s", c, len(names), text)
	}
	for _, line := range []string{"# Transport             : mpi (", "# MPI Thread Environment: MPI_THREAD_"} {
		if !strings.Contains(text, line) {
			t.Errorf("header lacks %q:\n%s", line, text)
		}
	}
	runs, err := imb.Read(strings.NewReader(text), "stdout")
	if err != nil || len(runs) != 1 || runs[0].Aborted || len(runs[0].Problems) != 0 {
		t.Errorf("IMB reader: %v, %+v", err, runs)
	}
}

// TestE2EMPIRun starts mpbench with the library's launcher as IMB-MPI1 is
// run: the point-to-point benchmarks on 2 ranks and the collectives on 4
// (those registered in bench), and checks rank 0's report.
func TestE2EMPIRun(t *testing.T) {
	bin := mpiBinary(t)
	short := []string{"-msglog", "0:3", "-time", "1", "-iter", "50", "--all-sizes"}
	for _, tc := range []struct {
		np    int
		names []string
	}{
		{2, []string{"PingPong", "PingPing", "Sendrecv"}},
		{4, registered("Bcast", "Allreduce", "Alltoall")},
	} {
		if len(tc.names) == 0 {
			continue
		}
		argv := append(mpi.LauncherCommand(tc.np), bin, "run", "-npmin", strconv.Itoa(tc.np))
		argv = append(append(argv, short...), tc.names...)
		out, errs, code := mpiJob(t, argv)
		if code != 0 {
			t.Fatalf("%s: exit status %d\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), code, out, errs)
		}
		checkMPIText(t, out, tc.np, tc.names)
	}
}

// TestE2EMPITimeOut checks IMB's time-out on the MPI build: with -time
// 1e-6 and -msglog 0:3 each benchmark's limit, 2 usec, is over when the
// probes of its first size end, so each prints IMB's time-out row at 0
// bytes and no other, and the run ends normally (as TestE2ETimeOut on
// mpbench's own runtime).
func TestE2EMPITimeOut(t *testing.T) {
	bin := mpiBinary(t)
	argv := append(mpi.LauncherCommand(2), bin, "run", "-msglog", "0:3", "-iter", "20", "-time", "1e-6", "PingPong", "Uniband")
	out, errs, code := mpiJob(t, argv)
	if code != 0 {
		t.Fatalf("%s: exit status %d\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), code, out, errs)
	}
	for _, b := range []string{"PingPong", "Uniband"} {
		i := strings.Index(out, "# Benchmarking "+b+" \n# #processes = 2 \n")
		if i < 0 {
			t.Fatalf("no %s table:\n%s", b, out)
		}
		lines := strings.SplitAfter(out[i:], "\n")
		if len(lines) < 6 || lines[4] != "            0"+imb.TimeOutText+"\n" || lines[5] != "\n" {
			t.Errorf("%s: want the headings, then only IMB's time-out row at 0 bytes:\n%s", b, strings.Join(lines[:min(7, len(lines))], ""))
		}
	}
	if !strings.HasSuffix(out, "# All processes entering MPI_Finalize\n\n") {
		t.Errorf("the run did not end normally:\n%s", out)
	}
}

// TestE2EMPILaunch runs "mpbench run --transport mpi -np 2", which starts
// the library's launcher itself, and checks the report and the JSON file.
func TestE2EMPILaunch(t *testing.T) {
	bin := mpiBinary(t)
	jf := filepath.Join(t.TempDir(), "pp.jsonl")
	argv := []string{bin, "run", "--transport", "mpi", "-np", "2", "-msglog", "0:3", "-time", "1", "-iter", "50", "--all-sizes", "--json", jf, "PingPong"}
	out, errs, code := mpiJob(t, argv)
	if code != 0 {
		t.Fatalf("%s: exit status %d\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), code, out, errs)
	}
	checkMPIText(t, out, 2, []string{"PingPong"})
	run := readOneRun(t, jf)
	if len(run.Rows) != 5 {
		t.Fatalf("--json: %+v", run)
	}
	m := run.Meta
	if !strings.HasPrefix(m.Transport, "mpi (") || !strings.HasPrefix(m.Info["mpi_thread_environment"], "MPI_THREAD_") || m.Info["np"] != "2" {
		t.Errorf("--json meta: transport %q, info %v; want the MPI library, its thread level and np 2", m.Transport, m.Info)
	}
}

// TestE2EMPIBadOptionOnce checks that every rank refuses a bad option with
// exit status 2 and that the message is printed once, by rank 0, also when
// the options ask for another transport than the MPI library.
func TestE2EMPIBadOptionOnce(t *testing.T) {
	bin := mpiBinary(t)
	for _, bad := range [][]string{{"-msglog", "abc"}, {"--transport", "tcp"}} {
		argv := append(append(mpi.LauncherCommand(2), bin, "run"), bad...)
		argv = append(argv, "PingPong")
		out, errs, code := mpiJob(t, argv)
		if code == 0 || strings.Count(errs, "mpbench: ") != 1 || !strings.Contains(errs, "mpbench: "+bad[0]+" "+bad[1]+": ") || out != "" {
			t.Errorf("%s: exit status %d, want non-zero and one line naming %s %s\nstdout:\n%s\nstderr:\n%s",
				strings.Join(argv, " "), code, bad[0], bad[1], out, errs)
		}
	}
}

// TestE2EMPIThreadLevel checks that -thread_level reaches MPI_Init_thread:
// the header names the level the library then provides (both Debian
// libraries provide exactly the level asked for), and that a bad level is
// refused once with exit status 2.
func TestE2EMPIThreadLevel(t *testing.T) {
	bin := mpiBinary(t)
	for _, lvl := range []string{"single", "multiple"} {
		argv := append(mpi.LauncherCommand(2), bin, "run", "-thread_level", lvl, "-msglog", "0:1", "-iter", "20", "PingPong")
		out, errs, code := mpiJob(t, argv)
		want := "# MPI Thread Environment: MPI_THREAD_" + strings.ToUpper(lvl) + "\n"
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%s: exit status %d, want 0 and the line %q\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), code, want, out, errs)
		}
	}
	argv := append(mpi.LauncherCommand(2), bin, "run", "-thread_level", "bogus", "PingPong")
	out, errs, code := mpiJob(t, argv)
	if code == 0 || strings.Count(errs, "mpbench: ") != 1 || !strings.Contains(errs, `-thread_level "bogus": expected -thread_level single, funneled, serialized or multiple`) || out != "" {
		t.Errorf("%s: exit status %d, want non-zero and one line naming the level\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), code, out, errs)
	}
}

// TestE2EMPIOtherLauncher starts this build under the other Debian
// library's launcher. Each process then initialises a world of one rank;
// mpbench must notice that the launcher started more and refuse once,
// instead of running N one-rank jobs that all succeed.
func TestE2EMPIOtherLauncher(t *testing.T) {
	bin := mpiBinary(t)
	other := []string{"mpiexec.mpich", "-n", "2"}
	if mpi.Flavor == "mpich" {
		other = []string{"mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-np", "2"}
	}
	if _, err := exec.LookPath(other[0]); err != nil {
		t.Skipf("%s not found on PATH: install the other MPI library's launcher to run this check", other[0])
	}
	argv := append(other, bin, "run", "-msglog", "0:1", "PingPong")
	out, errs, code := mpiJob(t, argv)
	if code == 0 || strings.Count(errs, "mpbench: ") != 1 || !strings.Contains(errs, "the launcher started 2 ranks") ||
		!strings.Contains(errs, "built for "+mpi.Flavor) || strings.Contains(out, "PingPong") {
		t.Errorf("%s: exit status %d, want non-zero, one line naming the mismatch and no results\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), code, out, errs)
	}
}

// TestE2EMPIRefusesBeforeRunning checks inputs refused on every rank under
// the launcher, or by "--transport mpi" before it starts the launcher: one
// line naming the problem, exit status 2, no results.
func TestE2EMPIRefusesBeforeRunning(t *testing.T) {
	bin := mpiBinary(t)
	jf := filepath.Join(t.TempDir(), "x.out")
	under := append(mpi.LauncherCommand(2), bin, "run")
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{append(append([]string{}, under...), "--json", jf, "--csv", jf, "PingPong"), "name the same file"},
		{append(append([]string{}, under...), "--json", "-", "PingPong"), "--json -: standard output carries the IMB text"},
		{append(append([]string{}, under...), "-np", "4", "PingPong"), "-np 4: the launcher started 2 ranks"},
		{append(append([]string{}, under...), "--timeout", "3s", "PingPong"), "--timeout: under a launcher started by hand"},
		{[]string{bin, "run", "--transport", "mpi", "-np", "2", "-thread_level", "bogus", "PingPong"}, `-thread_level "bogus": expected`},
		{[]string{bin, "run", "--transport", "mpi", "-np", "2", "--json", jf, "--csv", jf, "PingPong"}, "name the same file"},
	} {
		out, errs, code := mpiJob(t, tc.argv)
		if code != 2 || strings.Count(errs, "mpbench: ") != 1 || !strings.Contains(errs, tc.want) || strings.Contains(out, "Benchmarking") {
			t.Errorf("%s: exit status %d, want 2 with one line containing %q and no results\nstdout:\n%s\nstderr:\n%s", strings.Join(tc.argv, " "), code, tc.want, out, errs)
		}
		if _, err := os.Stat(jf); err == nil {
			t.Errorf("%s: wrote %s", strings.Join(tc.argv, " "), jf)
		}
	}
}

// TestE2EMPIKilledRankKeepsRows kills rank 1 of a job under the launcher
// once rank 0 has written a row: the job must fail, and rank 0 (which the
// launcher then ends with SIGTERM while it waits in MPI_Recv) must leave
// the JSON Lines file with its rows and a failed end record.
func TestE2EMPIKilledRankKeepsRows(t *testing.T) {
	bin := mpiBinary(t)
	if mpi.Flavor == "mpich" {
		t.Skip("MPICH's mpiexec ends the other ranks with SIGKILL, which no rank can answer; 'mpbench run --transport mpi' completes the file there (TestE2EMPILaunchKilledRank)")
	}
	jf := filepath.Join(t.TempDir(), "k.jsonl")
	argv := append(mpi.LauncherCommand(2), bin, "run", "--json", jf, "-msglog", "20:22", "-iter", "3000", "-iter_policy", "off", "PingPong")
	killRankOnceRowsAppear(t, argv, bin, jf, "interrupted by SIGTERM")
}

// TestE2EMPILaunchKilledRank is TestE2EMPIKilledRankKeepsRows through
// "mpbench run --transport mpi", on every library: mpbench, which started
// the launcher, completes the file and names where the job was.
func TestE2EMPILaunchKilledRank(t *testing.T) {
	bin := mpiBinary(t)
	jf := filepath.Join(t.TempDir(), "k.jsonl")
	argv := []string{bin, "run", "--transport", "mpi", "-np", "2", "--json", jf, "-msglog", "20:22", "-iter", "3000", "-iter_policy", "off", "PingPong"}
	killRankOnceRowsAppear(t, argv, bin, jf, `"status":"failed"`)
}

// killRankOnceRowsAppear starts argv, waits until its JSON Lines file jf
// holds a row, kills the process running bin started last (a rank: they
// start after the launcher) with SIGKILL, and
// checks that the job fails and jf ends with a failed end record
// containing want.
func killRankOnceRowsAppear(t *testing.T, argv []string, bin, jf, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	proctest.Bind(t, cmd)
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		b, _ := os.ReadFile(jf)
		if strings.Contains(string(b), `"type":"row"`) {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("%s: no row in %s after a minute\nstderr:\n%s", strings.Join(argv, " "), jf, &errb)
		}
		time.Sleep(50 * time.Millisecond)
	}
	out, err := exec.Command("pgrep", "-f", "--", bin+" run").Output()
	pids := strings.Fields(string(out))
	if err != nil || len(pids) == 0 {
		t.Fatalf("pgrep found no rank: %v", err)
	}
	victim, newest := "", uint64(0)
	for _, p := range pids {
		if started := startTime(p); started >= newest {
			victim, newest = p, started
		}
	}
	_ = exec.Command("kill", "-9", victim).Run()
	err = cmd.Wait()
	if err == nil {
		t.Errorf("%s: exit 0 after a rank was killed; want a failure", strings.Join(argv, " "))
	}
	b, _ := os.ReadFile(jf)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(string(b), `"type":"row"`) || !strings.Contains(last, `"type":"end"`) || !strings.Contains(last, want) {
		t.Errorf("%s: file ends with %q; want the rows and a failed end record containing %q\nstderr:\n%s", strings.Join(argv, " "), last, want, &errb)
	}
}

// startTime is when process pid started, in clock ticks since boot
// (field 22 of /proc/PID/stat), 0 if it is gone: the newest process is the
// one started last even when process IDs have wrapped around.
func startTime(pid string) uint64 {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	_, after, _ := strings.Cut(string(b), ") ") // the command name may hold blanks
	f := strings.Fields(after)                  // from field 3 (state) on
	if len(f) < 20 {
		return 0
	}
	t, _ := strconv.ParseUint(f[19], 10, 64)
	return t
}

// TestE2EMPIEveryBenchmark runs every benchmark "run -list" names at np 2
// and 4 under the library's launcher, as IMB-MPI1 is run.
func TestE2EMPIEveryBenchmark(t *testing.T) {
	bin := mpiBinary(t)
	names := listedBenchmarks(t)
	for _, np := range []int{2, 4} {
		argv := append(append(mpi.LauncherCommand(np), bin, "run"), everyBenchmarkArgs(np)...)
		out, errs, code := mpiJob(t, append(argv, names...))
		if code != 0 {
			t.Fatalf("%s: exit status %d\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), code, out, errs)
		}
		checkEveryBenchmark(t, out, np, names)
	}
}

// TestE2EMPIRedDataTypeChar runs the reductions with -red_data_type char
// and -check under the library's launcher: the library reduces MPI_CHAR
// with MPI_SUM (sums wrapping modulo 2^8, as -check's reference does), the
// header names MPI_CHAR, and every size from 0 to 32 bytes runs without a
// defect. Open MPI 4.1's op/avx component adds 8-bit integers with
// saturating instructions (_mm*_adds_epi8) from 16 bytes on, which -check
// reports as defects; the test turns that component off (OMPI_MCA_op=^avx)
// so that the library's own wrapping sum runs.
func TestE2EMPIRedDataTypeChar(t *testing.T) {
	bin := mpiBinary(t)
	if mpi.Flavor == "openmpi" {
		t.Setenv("OMPI_MCA_op", "^avx")
	}
	names := []string{"Allreduce", "Reduce", "Reduce_scatter", "Reduce_scatter_block"}
	for _, np := range []int{2, 4} {
		argv := append(append(mpi.LauncherCommand(np), bin, "run", "-npmin", strconv.Itoa(np), "-msglog", "0:5", "-iter", "20",
			"-iter_policy", "off", "-time", "1", "--all-sizes", "-check", "-red_data_type", "char"), names...)
		out, errs, code := mpiJob(t, argv)
		if code != 0 {
			t.Fatalf("%s: exit status %d\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), code, out, errs)
		}
		if !strings.Contains(out, "# MPI_Datatype for reductions    :   MPI_CHAR \n") {
			t.Errorf("np %d: header does not name MPI_CHAR for reductions:\n%s", np, out)
		}
		runs, err := imb.Read(strings.NewReader(out), "stdout")
		if err != nil || len(runs) != 1 || len(runs[0].Rows) != 7*len(names) {
			t.Fatalf("np %d: IMB reader: %v; want one run of %d rows:\n%s", np, err, 7*len(names), out)
		}
		for _, r := range runs[0].Rows {
			if r.Processes != np || r.Defects != 0 {
				t.Errorf("np %d: %s %d bytes: %d processes, %v defects", np, r.Benchmark, r.Bytes, r.Processes, r.Defects)
			}
		}
	}
}

// repetitionCounts maps "benchmark processes bytes" to the #repetitions
// of every row of an IMB text.
func repetitionCounts(text string) map[string]string {
	counts := map[string]string{}
	var name, procs string
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 3 && f[1] == "Benchmarking":
			name = f[2]
		case len(f) == 4 && f[1] == "#processes":
			procs = f[3]
		case len(f) >= 3 && line[0] == ' ':
			if _, err := strconv.Atoi(f[1]); err == nil {
				counts[name+" "+procs+" "+f[0]] = f[1]
			}
		}
	}
	return counts
}

// TestE2EMPIIterPolicyIMBCounts runs IMB-MPI1 2021.11's command lines of
// bench/testdata/imb-2021.11-ompi-{multiple_np,auto}-np{2,4}.txt (`mpirun
// -np P IMB-MPI1 -msglog 0:16 -npmin P -iter_policy POLICY PingPong
// Allreduce Alltoall Bcast`) with the MPI build and compares every row's
// #repetitions with IMB's. Under auto the unrooted benchmarks' counts come
// from probes, which IMB's run left at their base counts: -time 10000 keeps
// a loaded host's probes from capping them here; --all-sizes keeps IMB's
// time-out from ending a block there.
func TestE2EMPIIterPolicyIMBCounts(t *testing.T) {
	bin := mpiBinary(t)
	// The counts are the runner's, the same on every library; np 4 runs
	// on Open MPI only: MPICH's ranks poll without yielding, so on a
	// 2-CPU host every step of a 4-rank collective waits for a time
	// slice and the 1000-repetition rows take longer than the test's
	// limit, without changing a count.
	nps := []int{2, 4}
	if mpi.Flavor == "mpich" {
		nps = []int{2}
	}
	for _, policy := range []string{bench.IterMultipleNP, bench.IterAuto} {
		for _, np := range nps {
			file := filepath.Join("..", "..", "bench", "testdata", "imb-2021.11-ompi-"+policy+"-np"+strconv.Itoa(np)+".txt")
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want := repetitionCounts(string(data))
			argv := append(mpi.LauncherCommand(np), bin, "run", "-msglog", "0:16", "-npmin", strconv.Itoa(np), "-iter_policy", policy,
				"-time", "10000", "--all-sizes", "PingPong", "Allreduce", "Alltoall", "Bcast")
			out, errs, code := jobWithin(t, argv, 8*time.Minute)
			if code != 0 {
				t.Fatalf("%s: exit status %d\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), code, out, errs)
			}
			got := repetitionCounts(out)
			if len(got) != len(want) || len(want) != 70 {
				t.Errorf("%s: %d rows, IMB-MPI1 %d (want 70)", strings.Join(argv, " "), len(got), len(want))
			}
			for row, n := range want {
				if got[row] != n {
					t.Errorf("-iter_policy %s np %d: %s bytes: %q repetitions, IMB-MPI1 %s", policy, np, row, got[row], n)
				}
			}
		}
	}
}
