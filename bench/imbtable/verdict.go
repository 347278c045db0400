package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/mpbench/mpbench/bench/sizesteps"
)

// verdictLevel is the coverage the interval of a paired median must reach
// before it decides anything.
const verdictLevel = 0.95

// judge is what the verdict section judges: each ratio A=B (B one
// configuration) on the rows of the named benchmarks from a size up.
type judge struct {
	pairs     []ratio  // A=B, one B each
	benches   []string // benchmarks judged, e.g. Uniband and Biband
	from      int64    // smallest size judged, bytes
	tolerance float64  // e.g. 0.05: within 5%
}

// parseJudge reads -verdict (A=B pairs, one B each), -verdict-bench,
// -verdict-from and -tolerance. Errors: a pair with no or several B's, a
// tolerance outside (0, 1), a negative size, or pairs with no benchmark.
func parseJudge(pairs, benches string, from int64, tol float64) (judge, error) {
	ps, err := parseRatios(pairs)
	if err != nil {
		return judge{}, fmt.Errorf("-verdict: %w", err)
	}
	for _, p := range ps {
		if len(p.bs) != 1 || p.bs[0] == "" {
			return judge{}, fmt.Errorf("-verdict %s=%s: want one configuration after '=' (rounds are paired with one)", p.a, strings.Join(p.bs, "|"))
		}
	}
	if !(tol > 0 && tol < 1) {
		return judge{}, fmt.Errorf("-tolerance %g: want a fraction between 0 and 1, e.g. 0.05 for 5%%", tol)
	}
	if from < 0 {
		return judge{}, fmt.Errorf("-verdict-from %d: want a size in bytes, 0 or more", from)
	}
	j := judge{pairs: ps, benches: split(benches), from: from, tolerance: tol}
	if len(ps) > 0 && len(j.benches) == 0 {
		return judge{}, fmt.Errorf("-verdict-bench is empty: name the benchmarks to judge, e.g. Uniband,Biband")
	}
	return j, nil
}

// verdict is one size's judgement of A against B.
type verdict struct {
	n        int     // rounds both configurations ran
	median   float64 // median over those rounds of A's time over B's
	lo, hi   float64 // the median's interval at verdictLevel; NaN when n is too small for one
	min, max float64 // smallest and largest per-round ratio
	spread   float64 // (hi - lo) / 2 / median: the median's uncertainty, relative
	text     string  // "within 5%", "outside 5%" or "no verdict: ..."
}

// medianInterval returns the distribution-free interval of the median of
// the population the sorted samples x come from: [x(k), x(n+1-k)] with the
// largest k whose coverage 1 - 2 P(Bin(n, 1/2) <= k-1) is at least level
// (the sign-test interval; W. J. Conover, Practical Nonparametric
// Statistics, 3rd ed., 1999, section 3.2). It holds for any continuous
// distribution, so no round's outlier widens it beyond its rank. For n = 9
// it is [x(2), x(8)] at 96.1%; below 6 samples no k reaches 95% and ok is
// false.
func medianInterval(x []float64, level float64) (lo, hi float64, ok bool) {
	n := len(x)
	b := distuv.Binomial{N: float64(n), P: 0.5}
	k := 0
	for j := 1; 2*j <= n+1; j++ {
		if 1-2*b.CDF(float64(j-1)) < level {
			break
		}
		k = j
	}
	if k == 0 {
		return math.NaN(), math.NaN(), false
	}
	return x[k-1], x[n-k], true
}

// judgeRatios returns the verdict on per-round ratios rs (A's time over
// B's in the same round) against tolerance tol: "within X%" when the
// median's interval lies inside [1-tol, 1+tol], "outside X%" when it lies
// wholly outside it, else "no verdict" saying why: the interval's
// half-width relative to the median (spread) above tol, the interval
// reaching past a bound, or too few rounds for an interval.
func judgeRatios(rs []float64, tol float64) verdict {
	x := slices.Clone(rs)
	slices.Sort(x)
	v := verdict{n: len(x), median: math.NaN(), lo: math.NaN(), hi: math.NaN(), min: math.NaN(), max: math.NaN(), spread: math.NaN()}
	pct := fmtPct(tol)
	if len(x) == 0 {
		v.text = "no verdict: no round with both"
		return v
	}
	v.median, v.min, v.max = sizesteps.Median(x), x[0], x[len(x)-1]
	lo, hi, ok := medianInterval(x, verdictLevel)
	if !ok {
		v.text = fmt.Sprintf("no verdict: %d of the 6 rounds a %.0f%% interval needs", len(x), 100*verdictLevel)
		return v
	}
	v.lo, v.hi = lo, hi
	v.spread = (hi - lo) / 2 / v.median
	switch {
	case lo >= 1-tol && hi <= 1+tol:
		v.text = "within " + pct
	case hi < 1-tol || lo > 1+tol:
		v.text = "outside " + pct
	case v.spread > tol:
		v.text = fmt.Sprintf("no verdict: spread %s > %s", fmtPct(v.spread), pct)
	default:
		bound := 1 + tol
		if lo < 1-tol {
			bound = 1 - tol
		}
		v.text = fmt.Sprintf("no verdict: interval %.3f-%.3f reaches past %.2f", lo, hi, bound)
	}
	return v
}

// fmtPct is a fraction as a percentage, "5%" or "12.5%".
func fmtPct(f float64) string {
	return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", 100*f), "0"), ".") + "%"
}

// pairedTimes returns, for the rounds that both a and b have for k with
// positive times, a's and b's times, ordered by round name.
func (t *table) pairedTimes(a, b string, k key) (xa, xb []float64) {
	rounds := make([]string, 0, len(t.byRound[a][k]))
	for round := range t.byRound[a][k] {
		rounds = append(rounds, round)
	}
	slices.Sort(rounds)
	for _, round := range rounds {
		x := t.byRound[a][k][round]
		if y, ok := t.byRound[b][k][round]; ok && y > 0 && x > 0 {
			xa, xb = append(xa, x), append(xb, y)
		}
	}
	return xa, xb
}

// pairedRatios returns, for the rounds that both a and b have for k, a's
// time over b's in the same round, ordered by round name.
func (t *table) pairedRatios(a, b string, k key) []float64 {
	xa, xb := t.pairedTimes(a, b, k)
	rs := make([]float64, len(xa))
	for i := range xa {
		rs[i] = xa[i] / xb[i]
	}
	return rs
}

// fmtMedian is the median of x with its spread (max/min), "0.40 (x 2.96)",
// or "-" without samples.
func fmtMedian(x []float64) string {
	if len(x) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f (x %.2f)", sizesteps.Median(x), slices.Max(x)/slices.Min(x))
}

// writeVerdicts prints, for each pair A=B of j and each row of j's
// benchmarks from j.from bytes, over the rounds both ran: B's and A's
// median time with its spread (max/min over those rounds), the ratio of
// the two medians, the paired ratio's median, its interval and spread, the
// per-round range and the verdict; then one count line per pair and
// benchmark: the verdicts, and at how many sizes the ratio of medians and
// the paired ratio lie inside the tolerance. It prints nothing when j
// judges nothing.
func writeVerdicts(w io.Writer, t *table, j judge) {
	if len(j.pairs) == 0 || len(j.benches) == 0 {
		return
	}
	pct := fmtPct(j.tolerance)
	lo, hi := 1-j.tolerance, 1+j.tolerance
	fmt.Fprintf(w, "\n# verdict, %s from %s bytes, over the rounds both A and B ran: B, A: each one's median time in usec (Uniband, Biband: per message,\n", strings.Join(j.benches, " and "), sizeCol(j.from))
	fmt.Fprintf(w, "# 10^6 / Msg/sec) and its spread (x max/min over the rounds); medians: A's median over B's; paired: the median over the rounds of A's time over B's in the same round;\n")
	fmt.Fprintf(w, "# interval: that median's %.0f%% interval (sign test; of 9 rounds, the 2nd and 8th smallest ratios); spread: half its width over the median;\n", 100*verdictLevel)
	fmt.Fprintf(w, "# \"within %s\": the interval lies inside %.2f-%.2f; \"outside %s\": wholly outside; otherwise no verdict\n", pct, lo, hi, pct)
	fmt.Fprintf(w, "%-28s %-8s %8s %6s %18s %18s %7s %7s %13s %7s %13s  %s\n", "A/B", "bench", "bytes", "rounds", "B", "A", "medians", "paired", "interval", "spread", "per round", "verdict")
	type count struct{ within, outside, none, medians, paired int }
	inside := func(r float64) bool { return r >= lo && r <= hi }
	counts := map[string]*count{}
	var keys []string
	for _, p := range j.pairs {
		b := p.bs[0]
		name := p.a + "/" + b
		for _, k := range t.order {
			if !slices.Contains(j.benches, k.bench) || k.bytes < j.from {
				continue
			}
			if len(t.byRound[p.a][k]) == 0 && len(t.byRound[b][k]) == 0 {
				continue
			}
			xa, xb := t.pairedTimes(p.a, b, k)
			v := judgeRatios(t.pairedRatios(p.a, b, k), j.tolerance)
			medians := math.NaN()
			if len(xa) > 0 {
				medians = sizesteps.Median(xa) / sizesteps.Median(xb)
			}
			ck := name + " " + k.bench
			c := counts[ck]
			if c == nil {
				c = &count{}
				counts[ck] = c
				keys = append(keys, ck)
			}
			switch {
			case strings.HasPrefix(v.text, "within"):
				c.within++
			case strings.HasPrefix(v.text, "outside"):
				c.outside++
			default:
				c.none++
			}
			if inside(medians) {
				c.medians++
			}
			if inside(v.median) {
				c.paired++
			}
			fmt.Fprintf(w, "%-28s %-8s %8s %6d %18s %18s %7s %7s %13s %7s %13s  %s\n", name, k.bench, sizeCol(k.bytes), v.n,
				fmtMedian(xb), fmtMedian(xa), fmtRatio(medians), fmtRatio(v.median),
				fmtRange(v.lo, v.hi), fmtSpread(v.spread), fmtRange(v.min, v.max), v.text)
		}
	}
	for _, ck := range keys {
		c := counts[ck]
		n := c.within + c.outside + c.none
		fmt.Fprintf(w, "# %s: within %s at %d sizes, outside at %d, no verdict at %d; ratio of medians inside %.2f-%.2f at %d of %d, paired ratio at %d of %d\n",
			ck, pct, c.within, c.outside, c.none, lo, hi, c.medians, n, c.paired, n)
	}
}

// fmtRange is "lo-hi" with three decimals, or "-".
func fmtRange(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "-"
	}
	return fmt.Sprintf("%.3f-%.3f", lo, hi)
}

// fmtSpread is a relative spread as a percentage, or "-".
func fmtSpread(s float64) string {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return "-"
	}
	return fmtPct(s)
}
