package analysis

import (
	"fmt"
	"strings"
	"unicode"
)

// Transfer is the number m of messages of the benchmark's size x that one
// iteration of a benchmark moves across the network, the multiplier of the
// aggregate bandwidth ABG = m x / t (thesis section 4.2.14: "m the total
// number of sends, x the message size, t_x the time").
type Transfer struct {
	M      float64 // messages of x bytes per iteration
	Rule   string  // the rule in terms of N, e.g. "N(N-1)"
	Source string  // where the rule comes from
}

type transferRule struct {
	rule, source string
	m            func(n float64) float64
}

// transferRules is the one table of ABG multipliers, keyed by normalised
// benchmark name (lower case, letters and digits only, "multi" prefix
// removed: Multi-PingPong runs PingPong in N/2 pairs at once). N is the
// total number of ranks.
var transferRules = map[string]transferRule{
	"pingpong": {"N/2 pairs", "thesis 4.2.3, tables 4.5-4.8 (ABG = n x 4 MiB / t, n pairs)", func(n float64) float64 { return n / 2 }},
	"pingping": {"2 x N/2 pairs", "thesis 4.2.4, tables 4.9-4.12 (ABG = n x 2 x x / t: both ranks of a pair send)", func(n float64) float64 { return n }},
	"sendrecv": {"N", "thesis 4.2.5, tables 4.13-4.16 (N sends of x in t_N)", func(n float64) float64 { return n }},
	// The study ran Exchange but did not tabulate its ABG; by its rule
	// (m = total sends of x) every rank sends x to both neighbours.
	"exchange": {"2N", "study's rule m = total sends of x (thesis 4.2.14) applied to IMB Exchange: each rank sends x left and right", func(n float64) float64 { return 2 * n }},
	"gather":   {"N-1", "thesis 4.2.7: N-1 sends to the root", func(n float64) float64 { return n - 1 }},
	"gatherv":  {"N-1", "as Gather (thesis 4.2.7)", func(n float64) float64 { return n - 1 }},
	"scatter":  {"N-1", "thesis 4.2.8: N-1 sends from the root", func(n float64) float64 { return n - 1 }},
	"scatterv": {"N-1", "as Scatter (thesis 4.2.8)", func(n float64) float64 { return n - 1 }},
	"bcast":    {"N-1", "thesis 4.2.9, table 4.17: x reaches each of N-1 ranks", func(n float64) float64 { return n - 1 }},
	"reduce":   {"N-1", "thesis 4.2.10, table 4.17: N-1 contributions of x reach the root", func(n float64) float64 { return n - 1 }},
	// Reduce of x followed by Scatter of x/N (thesis 4.2.11); the Reduce's
	// N-1 messages of x dominate.
	"reducescatter":      {"N-1", "thesis 4.2.11, table 4.17: Reduce of x then Scatter of x/N", func(n float64) float64 { return n - 1 }},
	"reducescatterblock": {"N-1", "as Reduce_scatter (thesis 4.2.11)", func(n float64) float64 { return n - 1 }},
	"alltoall":           {"N(N-1)", "thesis 4.2.12, table 4.17: every rank sends x to each other rank", func(n float64) float64 { return n * (n - 1) }},
	"alltoallv":          {"N(N-1)", "as Alltoall (thesis 4.2.12)", func(n float64) float64 { return n * (n - 1) }},
	"allgather":          {"N(N-1)", "thesis 4.2.13, table 4.17: same messages as Alltoall", func(n float64) float64 { return n * (n - 1) }},
	"allgatherv":         {"N(N-1)", "as Allgather (thesis 4.2.13)", func(n float64) float64 { return n * (n - 1) }},
	// Not analysed in the study: Reduce then Bcast, the textbook algorithm.
	"allreduce":  {"2(N-1)", "mpbench: Reduce (N-1) + Bcast (N-1), not in the study", func(n float64) float64 { return 2 * (n - 1) }},
	"uniband":    {"N/2 pairs", "IMB Uniband: N/2 pairs, one direction", func(n float64) float64 { return n / 2 }},
	"biband":     {"N", "IMB Biband: N/2 pairs, both directions", func(n float64) float64 { return n }},
	"osulatency": {"1", "OSU osu_latency: one message each way in turn", func(float64) float64 { return 1 }},
	"osubw":      {"1", "OSU osu_bw: one sender", func(float64) float64 { return 1 }},
	"osubibw":    {"2", "OSU osu_bibw: both directions", func(float64) float64 { return 2 }},
	"osumbwmr":   {"N/2 pairs", "OSU osu_mbw_mr: N/2 sending pairs", func(n float64) float64 { return n / 2 }},
}

// normBenchmark lower-cases a benchmark name, drops a "Multi" prefix and
// keeps letters and digits only: "Multi-PingPong" -> "pingpong",
// "Reduce_scatter" -> "reducescatter", "osu_bw" -> "osubw".
func normBenchmark(name string) string {
	s := strings.ToLower(name)
	s = strings.TrimPrefix(s, "multi")
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Transfers returns the ABG multiplier of a benchmark run on nprocs ranks
// in total (for IMB -multi, group size x number of groups). Error for an
// unknown benchmark (Barrier has no size) or nprocs < 2.
func Transfers(benchmark string, nprocs int) (Transfer, error) {
	r, ok := transferRules[normBenchmark(benchmark)]
	if !ok {
		return Transfer{}, fmt.Errorf("no aggregate-bandwidth rule for benchmark %q", benchmark)
	}
	if nprocs < 2 {
		return Transfer{}, fmt.Errorf("%s on %d ranks: aggregate bandwidth needs at least 2 ranks", benchmark, nprocs)
	}
	return Transfer{M: r.m(float64(nprocs)), Rule: r.rule, Source: r.source}, nil
}
