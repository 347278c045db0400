// Command cliffguard fails when mpbench's own runtime shows a cliff: a step
// between neighbouring message sizes of more than -limit (default 8x) in the
// time of Exchange, Sendrecv or Alltoall on shared memory or TCP. A single
// copy that blocked the sender, or a rendezvous that waited for a sleeping
// thread, shows up as such a step (once 98x from 8 KiB to 16 KiB), whereas
// bandwidth alone makes a 2x size step cost at most about 2x.
//
// Usage:
//
//	go run ./bench/cliffguard [-mpbench PATH] [-rounds 5] [-limit 8] [-sizes 8192,16384,65536,131072]
//
// Each round runs one short job per transport (2 ranks, `mpbench run -np 2
// --transport T -msglen FILE -iter_policy off -iter N Exchange Sendrecv
// Alltoall`), transports alternating, so both see the same load. For each
// benchmark and pair of neighbouring sizes it prints the median time of
// both sizes over the rounds, their ratio, the ratio of the minima and the
// spread (largest max/min of the two sizes' samples). A step looks like a
// cliff when the ratio of the medians and the ratio of the minima both
// exceed the limit: load on the machine lengthens some rounds and so moves
// medians, but it rarely makes every round of the larger size slow. Such a
// step is then measured again on its own, twice, with the same rounds; it
// fails only if every recheck shows it too (a cliff of the runtime is there
// in every job, a burst of load is not).
// The jobs inherit the environment: MPBENCH_SHM_CMA=-1 checks the path
// shared memory takes when the kernel refuses single copy (every payload
// copied through the rings).
// Exit status: 0 no cliff, 1 a cliff (or a job failed), 2 bad flags.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mpbench/mpbench/bench/sizesteps"
	"github.com/mpbench/mpbench/result/imb"
)

// benchmarks are the ones checked: a point-to-point pair (Sendrecv), two
// simultaneous transfers each way (Exchange) and a collective (Alltoall).
var benchmarks = []string{"Exchange", "Sendrecv", "Alltoall"}

var transports = []string{"shm", "tcp"}

func main() {
	mpbench := flag.String("mpbench", "", "path of the mpbench binary (default: build ./cmd/mpbench into a temporary directory)")
	rounds := flag.Int("rounds", 5, "rounds; each runs one job per transport")
	limit := flag.Float64("limit", 8, "largest allowed time ratio between neighbouring sizes")
	sizesFlag := flag.String("sizes", "8192,16384,65536,131072", "message sizes in bytes, comma-separated")
	iters := flag.Int("iter", 100, "repetitions per size (IMB -iter, with -iter_policy off)")
	flag.Parse()
	sizes, err := parseSizes(*sizesFlag)
	if err != nil || *rounds < 1 || *limit <= 1 || *iters < 1 {
		if err == nil {
			err = fmt.Errorf("want -rounds >= 1, -limit > 1 and -iter >= 1")
		}
		fmt.Fprintln(os.Stderr, "cliffguard:", err)
		os.Exit(2)
	}
	cliffs, err := run(*mpbench, sizes, *rounds, *iters, *limit)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cliffguard:", err)
		os.Exit(1)
	}
	if cliffs > 0 {
		fmt.Printf("FAIL: %d step(s) above %gx in the medians and the minima\n", cliffs, *limit)
		os.Exit(1)
	}
	fmt.Printf("ok: no step above %gx\n", *limit)
}

func parseSizes(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-sizes %q: want byte counts >= 1, comma-separated", s)
		}
		out = append(out, n)
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("-sizes %q: want at least two sizes", s)
	}
	return out, nil
}

// run measures and prints every step; it returns the number of cliffs.
func run(mpbench string, sizes []int64, rounds, iters int, limit float64) (int, error) {
	dir, err := os.MkdirTemp("", "cliffguard")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	if mpbench == "" {
		mpbench = filepath.Join(dir, "mpbench")
		if out, err := exec.Command("go", "build", "-o", mpbench, "./cmd/mpbench").CombinedOutput(); err != nil {
			return 0, fmt.Errorf("building mpbench (run from the repository root or pass -mpbench): %v\n%s", err, out)
		}
	}
	m := &measurer{mpbench: mpbench, dir: dir, rounds: rounds, iters: iters}
	samples, err := m.measure(transports, benchmarks, sizes)
	if err != nil {
		return 0, err
	}
	fmt.Printf("# %d rounds, %d repetitions per size, 2 ranks; t = IMB's t_max in usec, median over the rounds;\n", rounds, iters)
	fmt.Printf("# minratio = ratio of the minima; spread = largest max/min of the two sizes' samples\n")
	fmt.Printf("%-4s %-9s %6s %6s %10s %10s %8s %8s %7s\n", "tr", "bench", "from", "to", "t_from", "t_to", "ratio", "minratio", "spread")
	cliffs := 0
	for _, tr := range transports {
		for _, s := range sizesteps.Steps(samples[tr]) {
			verdict := ""
			if s.Cliff(limit) {
				if verdict, err = m.confirm(tr, s, limit); err != nil {
					return 0, err
				}
				if verdict == "" {
					verdict = "CLIFF (in every recheck)"
					cliffs++
				}
				verdict = "  " + verdict
			}
			fmt.Printf("%-4s %-9s %6s %6s %10.2f %10.2f %8.2f %8.2f %7.2f%s\n", tr, s.Bench, sizesteps.SizeName(s.From), sizesteps.SizeName(s.To), s.FromMedian, s.ToMedian, s.Ratio, s.MinRatio, s.Spread, verdict)
		}
	}
	return cliffs, nil
}

// rechecks is how many times a step that looks like a cliff is measured
// again, on its own; it is a cliff only if every recheck shows it.
const rechecks = 2

// measurer runs mpbench jobs.
type measurer struct {
	mpbench string
	dir     string
	rounds  int
	iters   int
	files   int
}

// measure runs rounds of one job per transport of benches at sizes,
// transports alternating, and returns the samples of each transport.
func (m *measurer) measure(trs, benches []string, sizes []int64) (map[string][]sizesteps.Sample, error) {
	m.files++
	lens := filepath.Join(m.dir, fmt.Sprintf("msglen%d", m.files))
	var b strings.Builder
	for _, n := range sizes {
		fmt.Fprintln(&b, n)
	}
	if err := os.WriteFile(lens, []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	samples := map[string][]sizesteps.Sample{}
	for r := 0; r < m.rounds; r++ {
		for _, tr := range trs {
			s, err := m.job(tr, lens, benches)
			if err != nil {
				return nil, fmt.Errorf("round %d, %s: %w", r+1, tr, err)
			}
			samples[tr] = append(samples[tr], s...)
		}
	}
	return samples, nil
}

// confirm measures step s of transport tr again, its two sizes alone,
// rechecks times; it returns "" if every recheck shows the cliff, else a
// note saying which recheck did not (the first measurement was noise).
func (m *measurer) confirm(tr string, s sizesteps.Step, limit float64) (string, error) {
	for i := 1; i <= rechecks; i++ {
		samples, err := m.measure([]string{tr}, []string{s.Bench}, []int64{s.From, s.To})
		if err != nil {
			return "", err
		}
		st := sizesteps.Steps(samples[tr])
		if len(st) != 1 {
			return "", fmt.Errorf("recheck of %s %s: %d steps measured, want 1", tr, s.Bench, len(st))
		}
		if !st[0].Cliff(limit) {
			return fmt.Sprintf("noise: recheck %d measured %.2fx (minima %.2fx)", i, st[0].Ratio, st[0].MinRatio), nil
		}
	}
	return "", nil
}

// job runs one mpbench job of benches over transport tr and returns its
// rows.
func (m *measurer) job(tr, lens string, benches []string) ([]sizesteps.Sample, error) {
	args := []string{"run", "-np", "2", "--transport", tr, "-msglen", lens, "-iter_policy", "off", "-iter", strconv.Itoa(m.iters), "--timeout", "120s"}
	cmd := exec.Command(m.mpbench, append(args, benches...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("mpbench %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	runs, err := imb.Parse(out.Bytes(), "mpbench "+tr)
	if err != nil {
		return nil, err
	}
	var s []sizesteps.Sample
	for _, run := range runs {
		for i := range run.Rows {
			row := &run.Rows[i]
			s = append(s, sizesteps.Sample{Bench: row.Benchmark, Bytes: row.Bytes, Usec: row.Time()})
		}
	}
	if len(s) == 0 {
		return nil, fmt.Errorf("mpbench printed no rows:\n%s", out.String())
	}
	return s, nil
}
