package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/analysis"
)

// predictRow returns the fields of the table row for N = np.
func predictRow(t *testing.T, out, np string) []string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == np {
			return f
		}
	}
	t.Fatalf("no row for N = %s in:\n%s", np, out)
	return nil
}

// TestPredictMatmul predicts from testdata/predict/bench.jsonl, whose
// times follow t = 50 + 0.001 x bytes usec per message (Bcast on 4 ranks:
// two messages). n = 1024 makes the blocks 8 MiB / N: on 2 ranks (1 x 2)
// two Bcast_2 of 4194304 B = 2 x 4244.304 us; on 8 ranks (2 x 4) four
// Bcast_4 and two Bcast_2 of 1048576 B: 4 x 2197.152 + 2 x 1098.576 us,
// p = 2 times each on a shared network.
func TestPredictMatmul(t *testing.T) {
	bench := filepath.Join("testdata", "predict", "bench.jsonl")
	scaling := filepath.Join(t.TempDir(), "mm.jsonl")
	row := `{"type":"row","benchmark":"matmul","processes":2,"multi":-1,"groups":1,"group":-1,"bytes":1024,"repetitions":1,"t_max_usec":900000,"extra":{"comm_max_s":%s}}` + "\n"
	meta := `{"type":"meta","format":"mpbench-jsonl","schema":1,"tool":"mpbench","version":"t","mbyte":1000000,"date":"2026-01-01T00:00:00Z","host":"h","transport":"shm","command":"c","options":{},"info":{}}` + "\n"
	data := meta + strings.ReplaceAll(row, "%s", "0.0106108") + strings.ReplaceAll(row, "%s", "0.5") + strings.ReplaceAll(row, "%s", "0.001") + `{"type":"end","status":"ok"}` + "\n"
	if err := os.WriteFile(scaling, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, net := range []string{"switch", "shared"} {
		var out, errb bytes.Buffer
		code := Main([]string{"predict", "matmul", "--bench", bench, "-n", "1024", "--np", "2,8,64", "--net", net, "--scaling", scaling}, &out, &errb)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		r2 := predictRow(t, out.String(), "2")
		// N grid block Bcast_q source Bcast_p "none (1 rank)" predicted measured ratio
		if r2[1] != "1x2" || r2[2] != "4194304" || r2[3] != "4244" || r2[4] != "measured" || r2[9] != "0.008489" || r2[10] != "0.01061" || r2[11] != "0.8" {
			t.Errorf("%s, N = 2: %v", net, r2)
		}
		r8 := predictRow(t, out.String(), "8")
		want := "0.01099"
		if net == "shared" {
			want = "0.02637"
		}
		if r8[1] != "2x4" || r8[3] != "2197" || r8[5] != "1099" || r8[7] != want || r8[8] != "-" {
			t.Errorf("%s, N = 8: %v, want predicted %s", net, r8, want)
		}
		if r64 := predictRow(t, out.String(), "64"); !strings.HasPrefix(r64[4], "model") {
			t.Errorf("%s, N = 64 (8 ranks never measured): source %v", net, r64)
		}
	}
	// auto: the file's Bcast ABG grows 1.5x for 3x the transfers from 2
	// to 4 ranks (slope 0.37): shared-medium-like.
	var out, errb bytes.Buffer
	if code := Main([]string{"predict", "matmul", "--bench", bench, "--net", "auto", "--np", "2"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "# Network: shared, from the files' ABG") {
		t.Errorf("--net auto: exit %d, %s%s", code, out.String(), errb.String())
	}
	if code := Main([]string{"predict", "matmul"}, &out, &errb); code != ExitUsage {
		t.Errorf("no --bench: exit %d", code)
	}
}

// TestPredictMatmulMeasuredByCall checks which measured communication the
// table compares with: the sum over the Bcasts of the slowest rank's time
// (comm_calls_max_s) where a row has it, the largest sum over one rank
// (comm_max_s) in rows without it, and the header says which. Two rows
// with both (their comm_max_s far lower) and one with comm_max_s only:
// the median is the per-call figure, 0.0106108 s, and the ratio 0.8.
func TestPredictMatmulMeasuredByCall(t *testing.T) {
	bench := filepath.Join("testdata", "predict", "bench.jsonl")
	scaling := filepath.Join(t.TempDir(), "mm.jsonl")
	row := `{"type":"row","benchmark":"matmul","processes":2,"multi":-1,"groups":1,"group":-1,"bytes":1024,"repetitions":1,"t_max_usec":900000,"extra":{%s}}` + "\n"
	meta := `{"type":"meta","format":"mpbench-jsonl","schema":1,"tool":"mpbench","version":"t","mbyte":1000000,"date":"2026-01-01T00:00:00Z","host":"h","transport":"shm","command":"c","options":{},"info":{}}` + "\n"
	data := meta + strings.ReplaceAll(row, "%s", `"comm_max_s":0.001,"comm_calls_max_s":0.0106108`) +
		strings.ReplaceAll(row, "%s", `"comm_max_s":0.002,"comm_calls_max_s":0.0106108`) +
		strings.ReplaceAll(row, "%s", `"comm_max_s":0.5`) + `{"type":"end","status":"ok"}` + "\n"
	if err := os.WriteFile(scaling, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"predict", "matmul", "--bench", bench, "-n", "1024", "--np", "2", "--net", "switch", "--scaling", scaling}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if r2 := predictRow(t, out.String(), "2"); r2[9] != "0.008489" || r2[10] != "0.01061" || r2[11] != "0.8" {
		t.Errorf("N = 2: %v, want measured 0.01061 (per-call maxima) and ratio 0.8", r2)
	}
	if want := "# Measured communication: median over runs of the slowest rank's time in each Bcast, summed (comm_calls_max_s) in 2 runs, the largest sum over one rank (comm_max_s) in 1 older ones\n"; !strings.Contains(out.String(), want) {
		t.Errorf("header lacks %q:\n%s", want, out.String())
	}
}

// TestPredictMatmulMulti predicts with --net multi from bench.jsonl and
// the Multi-Bcast table multi.jsonl (2 groups of 2 ranks: 2000 usec at
// 1 MiB, 8000 usec at 4 MiB). n = 1024 on 4 ranks (2 x 2) makes 2 MiB
// blocks: 2 x multi_2 Bcast_2 + 2 x multi_2 Bcast_2 = 4 x 4000 usec
// (interpolated on a log scale). On 2 ranks (1 x 2, one group) the plain
// Bcast_2 of bench.jsonl counts. On 8 ranks (2 x 4) the 2 groups of 4 were
// never measured: a usage error naming the run that measures them.
func TestPredictMatmulMulti(t *testing.T) {
	files := filepath.Join("testdata", "predict", "bench.jsonl") + "," + filepath.Join("testdata", "predict", "multi.jsonl")
	var out, errb bytes.Buffer
	if code := Main([]string{"predict", "matmul", "--bench", files, "-n", "1024", "--np", "2,4", "--net", "multi"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "# Network: measured Multi-Bcast, given (--net multi") {
		t.Errorf("network line missing:\n%s", out.String())
	}
	if r2 := predictRow(t, out.String(), "2"); r2[3] != "4244" || r2[4] != "measured" || r2[9] != "0.008489" {
		t.Errorf("N = 2: %v", r2)
	}
	// N grid block Bcast_q source (3 words) Bcast_p source (3 words) predicted
	if r4 := predictRow(t, out.String(), "4"); r4[1] != "2x2" || r4[3] != "4000" || r4[4] != "multi" || r4[5] != "x2" || r4[7] != "4000" || r4[11] != "0.016" {
		t.Errorf("N = 4: %v", r4)
	}
	out.Reset()
	errb.Reset()
	code := Main([]string{"predict", "matmul", "--bench", files, "-n", "1024", "--np", "8", "--net", "multi"}, &out, &errb)
	if code != ExitUsage || !strings.Contains(errb.String(), "no Multi-Bcast of 2 groups of 4 ranks") || !strings.Contains(errb.String(), "-np 8 -npmin 4 -multi 0 Bcast") {
		t.Errorf("N = 8 without its Multi-Bcast: exit %d, %s", code, errb.String())
	}
}

// TestBcastCostIsCollsTable: predict's model takes the algorithm from
// coll's decision table (MPICH's choice: binomial for short messages,
// scatter + allgather for long ones on 8 ranks) and its formula from
// coll's table.
func TestBcastCostIsCollsTable(t *testing.T) {
	m := analysis.BcastModel{Fit: analysis.Fit{AlphaUsec: 10, BetaInv: 0.01}, Cost: bcastCost}
	if u, alg, err := m.Usec(8, 100); alg != "binomial" || u != 3*(10+1) || err != nil {
		t.Errorf("8 ranks, 100 B: %g by %s, %v; want 33 by binomial", u, alg, err)
	}
	if _, alg, err := m.Usec(8, 1<<20); alg != "scatter_allgather" || err != nil {
		t.Errorf("8 ranks, 1 MiB: %s, %v; want scatter_allgather", alg, err)
	}
}

// TestPredictMatmulAutoUndecided: --net auto on files whose ABG cannot
// classify the network (here bench.jsonl's PingPong alone: no benchmark at
// several process counts) is one usage line naming the --net values to
// give in its place.
func TestPredictMatmulAutoUndecided(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "predict", "bench.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if !strings.Contains(l, `"Bcast"`) {
			keep = append(keep, l)
		}
	}
	pp := filepath.Join(t.TempDir(), "pp.jsonl")
	if err := os.WriteFile(pp, []byte(strings.Join(keep, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Main([]string{"predict", "matmul", "--bench", pp, "-n", "1024", "--np", "2"}, &out, &errb)
	msg := errb.String()
	if code != ExitUsage || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "--net auto: no benchmark with ABG") ||
		!strings.Contains(msg, "--net switch (a switch, or ranks on one host)") || !strings.Contains(msg, "--net shared") {
		t.Errorf("exit %d, stderr %q", code, msg)
	}
	out.Reset()
	if code := Main([]string{"predict", "matmul", "--bench", pp, "-n", "1024", "--np", "2", "--net", "switch"}, &out, &errb); code != 0 {
		t.Errorf("the --net the message names: exit %d, %s", code, errb.String())
	}
}

// TestPredictMatmulRefusals: an order below a process count (the product
// refuses it: every rank needs a block) and --scaling files without a run
// of the order predicted are one usage line each; the latter names the
// orders the files have.
func TestPredictMatmulRefusals(t *testing.T) {
	bench := filepath.Join("testdata", "predict", "bench.jsonl")
	scaling := filepath.Join(t.TempDir(), "mm.jsonl")
	data := `{"type":"meta","format":"mpbench-jsonl","schema":1,"tool":"mpbench","version":"t","mbyte":1000000,"date":"2026-01-01T00:00:00Z","host":"h","transport":"shm","command":"c","options":{},"info":{}}` + "\n" +
		`{"type":"row","benchmark":"matmul","processes":2,"multi":-1,"groups":1,"group":-1,"bytes":1024,"repetitions":1,"t_max_usec":900000,"extra":{"comm_max_s":0.01,"comm_calls_max_s":0.011}}` + "\n" +
		`{"type":"end","status":"ok"}` + "\n"
	if err := os.WriteFile(scaling, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "1", "--np", "2"}, "mpbench: -n 1 on 2 ranks: the product gives every rank a block, so it needs n >= N"},
		{[]string{"-n", "2000", "--np", "2", "--scaling", scaling}, "mpbench: --scaling " + scaling + ": no mpbench app matmul run of -n 2000 (the files have -n 1024); give -n of the runs"},
	} {
		var out, errb bytes.Buffer
		code := Main(append([]string{"predict", "matmul", "--bench", bench, "--net", "switch"}, tc.args...), &out, &errb)
		if code != ExitUsage || strings.Count(errb.String(), "\n") != 1 || !strings.HasPrefix(errb.String(), tc.want) || out.Len() > 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.args, code, out.String(), errb.String())
		}
	}
}

// osuBcast4 is osu_bcast's output on 4 ranks as OSU 7.3 prints it (times
// of a published run, sizes 1 B to 1 MiB); OSU prints no process count.
const osuBcast4 = `# OSU MPI Broadcast Latency Test v7.3
# Datatype: MPI_CHAR.
# Size       Avg Latency(us)
1                       0.46
2                       0.48
4                       0.49
8                       0.48
16                      0.48
32                      0.63
64                      0.60
128                     1.16
256                     1.13
512                     1.13
1024                    1.50
2048                    2.10
4096                   15.08
8192                    4.84
16384                  13.38
32768                  18.13
65536                  27.00
131072                 39.86
262144                 69.12
524288                142.41
1048576               627.75
`

// TestPredictMatmulOSUBcast predicts from an osu_bcast file: with the
// launcher line above its title the table is on 4 ranks, and n = 400 on
// 16 ranks (4 x 4, blocks of 80000 B) interpolates between 65536 and
// 131072 B: exp(log 27 + w log(39.86/27)), w = log2(80000/65536), 30.2
// us, 8 Bcasts; a block beyond its largest size, with no PingPong to fit
// a model on, is refused naming the measured range and the fix; without
// the launcher line the file is named as one without a process count.
func TestPredictMatmulOSUBcast(t *testing.T) {
	dir := t.TempDir()
	with, without := filepath.Join(dir, "osu-launcher.txt"), filepath.Join(dir, "osu.txt")
	if err := os.WriteFile(with, []byte("mpirun -np 4 ./osu_bcast\n"+osuBcast4), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(without, []byte(osuBcast4), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"predict", "matmul", "--bench", with, "-n", "400", "--np", "16", "--net", "switch"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if r := predictRow(t, out.String(), "16"); r[1] != "4x4" || r[2] != "80000" || r[3] != "30.2" || r[4] != "interpolated" || r[7] != "0.0002416" {
		t.Errorf("N = 16 from osu_bcast on 4 ranks: %v", r)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--bench", with, "-n", "2000", "--np", "16"}, "mpbench: matrix product on 16 = 4x4 nodes: Bcast on 4 ranks measured from 1 to 1048576 bytes only, not around 2000000 bytes, and no PingPong to fit a model on; give files with a Bcast on 4 ranks up to 2000000 bytes, or a PingPong (IMB PingPong, osu_latency) for the model\n"},
		{[]string{"--bench", without, "-n", "400", "--np", "16"}, "mpbench: the Bcast table of " + without + " has no process count (osu_bcast prints none), so it is left out: keep the launcher line that ran it (mpirun -np 4 osu_bcast) above its title\n"},
	} {
		out.Reset()
		errb.Reset()
		code := Main(append([]string{"predict", "matmul", "--net", "switch"}, tc.args...), &out, &errb)
		if code != ExitUsage || errb.String() != tc.want || out.Len() > 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", tc.args, code, out.String(), errb.String(), tc.want)
		}
	}
}
