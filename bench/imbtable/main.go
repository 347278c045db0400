// Command imbtable prints the side-by-side table of bench/compare-imb.sh:
// IMB-format outputs of several configurations (mpbench's own runtime, IMB-MPI1
// on MPI libraries, mpbench built against them), each run over interleaved
// rounds, summarised as medians, spreads and ratios.
//
// Usage:
//
//	go run ./bench/imbtable -dir DIR -configs mpbench-shm,imb-ompi-shm,... -ratios 'mpbench-shm=imb-ompi-shm|imb-mpich-shm,...' [-step 3]
//	    [-paired] [-verdict mpi-ompi-shm=imb-ompi-shm,... [-verdict-bench Uniband,Biband] [-verdict-from 1024] [-tolerance 0.05]]
//
// DIR holds one file per configuration and round, CONFIG.ROUND.txt, each the
// IMB-format output of one job (mpbench's or IMB-MPI1's; result/imb reads
// both). For each benchmark and size it prints each configuration's median
// time in usec over the rounds with its spread (max/min over the rounds),
// then each ratio A=B: A's median over the smallest median of the B
// configurations (> 1: A is slower than the best of them); a row that some
// configuration has in fewer of its rounds ends with "# fewer rounds:
// CONFIG n/N". With -paired each ratio is followed by its paired ratio,
// "(p R)": the median over the rounds both configurations ran of A's time
// in round i over B's in round i (rounds are interleaved, so round i of
// every configuration ran within minutes of each other and a drift of the
// host's speed cancels; B is the best of the B configurations by median).
// Last, every step
// between neighbouring sizes whose median time grows more than -step times,
// per configuration, from 1 byte on. With -verdict A=B,... a last section
// judges each pair on the rows of -verdict-bench (Uniband and Biband) from
// -verdict-from bytes (1024), over the rounds both ran: per size B's and
// A's median with its spread (max/min over the rounds), the ratio of the
// medians, the paired ratio, the 95% interval of that median (sign test
// over the rounds), its spread (half the interval's width over the
// median), the range of the per-round ratios, and "within 5%" (the
// interval inside 0.95-1.05, -tolerance 0.05), "outside 5%" (wholly
// outside) or "no verdict: spread X% > 5%" (or why else the rounds decide
// nothing); then a count per pair and benchmark of the verdicts and of the
// sizes whose ratio of medians and paired ratio lie inside the tolerance.
// Times are IMB's headline times (t_max for
// multi-rank rows, t for PingPong/PingPing); a 0-byte row's time is a time.
// Uniband and Biband print no time: their time is the time per message,
// 10^6 / Msg/sec usec, so their ratios are inverse bandwidth ratios too.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mpbench/mpbench/bench/sizesteps"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/imb"
)

// ratio is one A=B1|B2 column.
type ratio struct {
	a  string
	bs []string
}

func main() {
	dir := flag.String("dir", "", "directory of CONFIG.ROUND.txt files")
	configs := flag.String("configs", "", "configurations to print, comma-separated, in column order")
	ratios := flag.String("ratios", "", "ratio columns A=B1|B2, comma-separated: A's median over the best of the B's")
	stepLimit := flag.Float64("step", 3, "print neighbouring-size steps above this factor")
	paired := flag.Bool("paired", false, "follow each ratio with the median of the per-round ratios")
	verdicts := flag.String("verdict", "", "judge A=B (one B each), comma-separated: paired ratio, its interval and a verdict per size")
	verdictBench := flag.String("verdict-bench", "Uniband,Biband", "benchmarks -verdict judges, comma-separated")
	verdictFrom := flag.Int64("verdict-from", 1024, "smallest message size -verdict judges, bytes")
	tolerance := flag.Float64("tolerance", 0.05, "-verdict's tolerance: 0.05 judges \"within 5%\"")
	flag.Parse()
	cfgs := split(*configs)
	rs, err := parseRatios(*ratios)
	var j judge
	if err == nil {
		j, err = parseJudge(*verdicts, *verdictBench, *verdictFrom, *tolerance)
	}
	if err != nil || *dir == "" || len(cfgs) == 0 {
		if err == nil {
			err = fmt.Errorf("want -dir and -configs")
		}
		fmt.Fprintln(os.Stderr, "imbtable:", err)
		os.Exit(2)
	}
	data, err := load(*dir, cfgs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "imbtable:", err)
		os.Exit(1)
	}
	data.paired = *paired
	write(os.Stdout, data, cfgs, rs, *stepLimit)
	writeVerdicts(os.Stdout, data, j)
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func parseRatios(s string) ([]ratio, error) {
	var out []ratio
	for _, f := range split(s) {
		a, b, ok := strings.Cut(f, "=")
		if !ok || a == "" || b == "" {
			return nil, fmt.Errorf("-ratios %q: want A=B or A=B1|B2", f)
		}
		out = append(out, ratio{a: a, bs: strings.Split(b, "|")})
	}
	return out, nil
}

// key is a benchmark and size.
type key struct {
	bench string
	bytes int64
}

// table holds every configuration's samples by benchmark and size (also
// by round), and the benchmarks and sizes in the order met.
type table struct {
	samples map[string]map[key][]float64          // by config
	byRound map[string]map[key]map[string]float64 // by config, key and round
	order   []key
	rounds  map[string]int
	paired  bool // print paired ratios
}

// load reads DIR/CONFIG.*.txt for every configuration.
func load(dir string, cfgs []string) (*table, error) {
	t := &table{samples: map[string]map[key][]float64{}, byRound: map[string]map[key]map[string]float64{}, rounds: map[string]int{}}
	seen := map[key]bool{}
	for _, c := range cfgs {
		files, err := filepath.Glob(filepath.Join(dir, c+".*.txt"))
		if err != nil {
			return nil, err
		}
		t.samples[c] = map[key][]float64{}
		t.byRound[c] = map[key]map[string]float64{}
		for _, f := range files {
			round := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), c+"."), ".txt")
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			runs, err := imb.Parse(b, f)
			if err != nil {
				fmt.Fprintf(os.Stderr, "imbtable: %s: %v (left out)\n", f, err)
				continue
			}
			t.rounds[c]++
			for _, run := range runs {
				for i := range run.Rows {
					r := &run.Rows[i]
					k := key{r.Benchmark, r.Bytes}
					t.samples[c][k] = append(t.samples[c][k], rowTime(r))
					if t.byRound[c][k] == nil {
						t.byRound[c][k] = map[string]float64{}
					}
					t.byRound[c][k][round] = rowTime(r)
					if !seen[k] {
						seen[k] = true
						t.order = append(t.order, k)
					}
				}
			}
		}
	}
	// Benchmarks in the order met, sizes ascending within each.
	first := map[string]int{}
	for i, k := range t.order {
		if _, ok := first[k.bench]; !ok {
			first[k.bench] = i
		}
	}
	slices.SortStableFunc(t.order, func(x, y key) int {
		if x.bench != y.bench {
			return first[x.bench] - first[y.bench]
		}
		return int(x.bytes - y.bytes)
	})
	return t, nil
}

// rowTime is a row's headline time in usec, or for a row with Msg/sec and
// no time (Uniband, Biband) the time per message, 10^6 / Msg/sec.
func rowTime(r *result.Row) float64 {
	if t := r.Time(); !math.IsNaN(t) || !(r.MsgRate > 0) {
		return t
	}
	return 1e6 / r.MsgRate
}

// median returns the median of the samples, NaN if there are none.
func (t *table) median(c string, k key) float64 {
	v := t.samples[c][k]
	if len(v) == 0 {
		return math.NaN()
	}
	return sizesteps.Median(v)
}

// pairedRatio returns the median over the rounds that both a and b have
// for k of a's time over b's in the same round, NaN when they share none.
func (t *table) pairedRatio(a, b string, k key) float64 {
	rs := t.pairedRatios(a, b, k)
	if len(rs) == 0 {
		return math.NaN()
	}
	return sizesteps.Median(rs)
}

func write(w io.Writer, t *table, cfgs []string, rs []ratio, stepLimit float64) {
	fmt.Fprintf(w, "# rounds per configuration:")
	for _, c := range cfgs {
		fmt.Fprintf(w, " %s %d", c, t.rounds[c])
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "# t[usec]: median over the rounds (x spread = max/min over the rounds); ratio A/B: A's median over the best B median")
	if t.paired {
		fmt.Fprint(w, " (p: median over the rounds of A's time over that B's in the same round)")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-10s %8s", "bench", "bytes")
	for _, c := range cfgs {
		fmt.Fprintf(w, " %20s", c)
	}
	for _, r := range rs {
		fmt.Fprintf(w, " %14s", r.a+"/"+strings.Join(r.bs, "|"))
	}
	fmt.Fprintln(w)
	for _, k := range t.order {
		fmt.Fprintf(w, "%-10s %8s", k.bench, sizeCol(k.bytes))
		for _, c := range cfgs {
			v := t.samples[c][k]
			if len(v) == 0 {
				fmt.Fprintf(w, " %20s", "-")
				continue
			}
			fmt.Fprintf(w, " %11.2f (x%5.2f)", sizesteps.Median(v), slices.Max(v)/slices.Min(v))
		}
		for _, r := range rs {
			best, bestCfg := math.NaN(), ""
			for _, b := range r.bs {
				if m := t.median(b, k); !math.IsNaN(m) && (math.IsNaN(best) || m < best) {
					best, bestCfg = m, b
				}
			}
			col := fmtRatio(t.median(r.a, k) / best)
			if t.paired {
				col += " (p " + fmtRatio(t.pairedRatio(r.a, bestCfg, k)) + ")"
			}
			fmt.Fprintf(w, " %14s", col)
		}
		fmt.Fprintln(w, short(t, cfgs, k))
	}
	fmt.Fprintf(w, "\n# neighbouring-size steps above %gx (median time ratio; minima ratio; spread)\n", stepLimit)
	n := 0
	for _, c := range cfgs {
		var s []sizesteps.Sample
		for k, v := range t.samples[c] {
			if k.bytes <= 0 {
				continue // 0 bytes moves nothing: no step from it says anything
			}
			for _, x := range v {
				s = append(s, sizesteps.Sample{Bench: k.bench, Bytes: k.bytes, Usec: x})
			}
		}
		slices.SortStableFunc(s, func(x, y sizesteps.Sample) int { return strings.Compare(x.Bench, y.Bench) })
		for _, st := range sizesteps.Steps(s) {
			if st.Ratio > stepLimit {
				n++
				fmt.Fprintf(w, "%-16s %-10s %6s -> %6s %8.2fx  minima %6.2fx  spread %6.2f\n", c, st.Bench,
					sizesteps.SizeName(st.From), sizesteps.SizeName(st.To), st.Ratio, st.MinRatio, st.Spread)
			}
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "none")
	}
}

// short returns, for the row of k, "  # fewer rounds: CONFIG n/N ..." naming
// each configuration whose median is over fewer rounds than it ran (IMB-MPI1
// abandons the sizes left of a benchmark once its time limit is over, so a
// loaded round can lack the largest rows), or "" when every configuration
// has the row in all its rounds.
func short(t *table, cfgs []string, k key) string {
	var b strings.Builder
	for _, c := range cfgs {
		if n := len(t.samples[c][k]); n > 0 && n < t.rounds[c] {
			if b.Len() == 0 {
				b.WriteString("  # fewer rounds:")
			}
			fmt.Fprintf(&b, " %s %d/%d", c, n, t.rounds[c])
		}
	}
	return b.String()
}

func sizeCol(n int64) string {
	if n < 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}

func fmtRatio(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "-"
	}
	return fmt.Sprintf("%.2f", r)
}
