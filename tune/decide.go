package tune

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Config is one way of running a collective: an algorithm by name, the
// library's number for it (Open MPI's coll_tuned_<coll>_algorithm value;
// 0 where the library takes names) and its segment size in bytes (0: not
// segmented, or the algorithm's own default). The zero Config is the
// library's default decision.
type Config struct {
	Algorithm string `json:"algorithm,omitempty"`
	ID        int    `json:"id,omitempty"`
	Segment   int    `json:"segment,omitempty"`
}

// IsDefault reports whether c is the library's default decision.
func (c Config) IsDefault() bool { return c.Algorithm == "" }

// String is c in mpbench's override syntax: "default", "ring" or
// "pipeline:seg=16384".
func (c Config) String() string {
	switch {
	case c.IsDefault():
		return "default"
	case c.Segment > 0:
		return c.Algorithm + ":seg=" + strconv.Itoa(c.Segment)
	}
	return c.Algorithm
}

// ParseConfig is the inverse of Config.String for configurations without a
// library number: "default", "ring", "pipeline:seg=16384".
func ParseConfig(s string) (Config, error) {
	s = strings.TrimSpace(s)
	if s == "default" || s == "auto" {
		return Config{}, nil
	}
	name, opt, hasOpt := strings.Cut(s, ":")
	c := Config{Algorithm: name}
	if name == "" {
		return Config{}, fmt.Errorf("empty algorithm in %q", s)
	}
	if hasOpt {
		v, ok := strings.CutPrefix(opt, "seg=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n <= 0 {
			return Config{}, fmt.Errorf("%q: expected algorithm:seg=BYTES with a positive BYTES", s)
		}
		c.Segment = n
	}
	return c, nil
}

// Point is one configuration measured at one collective, process count and
// message size: its time in usec in each round (NaN for a round whose
// measurement failed).
type Point struct {
	Collective string    `json:"collective"` // lower-case MPI name without MPI_, e.g. "bcast"
	Ranks      int       `json:"ranks"`
	Bytes      int       `json:"bytes"` // IMB's #bytes (see the package documentation)
	Config     Config    `json:"config"`
	Times      []float64 `json:"times_usec"`
}

// Stats summarises the rounds of one point: the median, fastest and
// slowest round in usec and the number of rounds that measured. Rounds
// that failed (NaN) are left out; with none left N is 0 and the times are
// NaN.
type Stats struct {
	Median float64 `json:"median_usec"`
	Min    float64 `json:"min_usec"`
	Max    float64 `json:"max_usec"`
	N      int     `json:"rounds"`
}

// Summarize computes the Stats of times (usec).
func Summarize(times []float64) Stats {
	var v []float64
	for _, t := range times {
		if !math.IsNaN(t) && !math.IsInf(t, 0) {
			v = append(v, t)
		}
	}
	if len(v) == 0 {
		return Stats{Median: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	}
	sort.Float64s(v)
	m := v[len(v)/2]
	if len(v)%2 == 0 {
		m = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return Stats{Median: m, Min: v[0], Max: v[len(v)-1], N: len(v)}
}

// Spread is the relative spread of the rounds, (Max-Min)/Median; 0 for
// fewer than two rounds.
func (s Stats) Spread() float64 {
	if s.N < 2 || s.Median <= 0 {
		return 0
	}
	return (s.Max - s.Min) / s.Median
}

// Beats reports whether s is faster than d beyond noise: s's slowest round
// is faster than d's fastest, and s's median is at least minGain (a
// fraction, e.g. 0.03) below d's. Both need at least one round.
func (s Stats) Beats(d Stats, minGain float64) bool {
	if s.N == 0 || d.N == 0 {
		return false
	}
	return s.Max < d.Min && s.Median <= (1-minGain)*d.Median
}

// Decision is the outcome at one collective, process count and size.
type Decision struct {
	Collective string `json:"collective"`
	Ranks      int    `json:"ranks"`
	Bytes      int    `json:"bytes"`
	// Winner is the configuration chosen; the zero Config keeps the
	// default.
	Winner      Config `json:"winner"`
	WinnerStats Stats  `json:"winner_stats"`
	Default     Stats  `json:"default_stats"`
	// Best is the configuration with the lowest median, whether or not it
	// beat the default beyond noise.
	Best      Config `json:"best"`
	BestStats Stats  `json:"best_stats"`
	// Speedup is the default's median over the winner's (1 when the
	// default is kept).
	Speedup float64 `json:"speedup"`
}

// Range is a run of adjacent measured sizes with the same winner: From and
// To are the first and last measured sizes (bytes, inclusive).
type Range struct {
	From   int    `json:"from_bytes"`
	To     int    `json:"to_bytes"`
	Winner Config `json:"winner"`
	// MinSpeedup and MaxSpeedup bound the speedups of the range's sizes.
	MinSpeedup float64 `json:"min_speedup"`
	MaxSpeedup float64 `json:"max_speedup"`
}

// Table is the decision for one collective at one process count: the
// per-size decisions in increasing size and the merged ranges.
type Table struct {
	Collective string     `json:"collective"`
	Ranks      int        `json:"ranks"`
	Decisions  []Decision `json:"decisions"`
	Ranges     []Range    `json:"ranges"`
}

// Options are the parameters of Decide.
type Options struct {
	// MinGain is the smallest relative gain of the median that counts
	// (0.03 = 3%).
	MinGain float64
	// Default, when set, names the configuration the default decision
	// itself runs at a point (known for mpbench's own table): that
	// configuration never replaces the default, and its rounds count as
	// the default's (both measure the same algorithm).
	Default func(collective string, ranks, bytes int) (Config, bool)
}

// Decide applies the winner rule (package documentation) to points and
// returns one Table per collective and process count, sorted by collective
// (in order of first appearance) and process count. Every (collective,
// ranks, bytes) must have a default point (Config{}); a missing one is an
// error naming it.
func Decide(points []Point, o Options) ([]Table, error) {
	type key struct {
		coll         string
		ranks, bytes int
	}
	groups := map[key][]Point{}
	var collOrder []string
	seenColl := map[string]bool{}
	for _, p := range points {
		k := key{p.Collective, p.Ranks, p.Bytes}
		groups[k] = append(groups[k], p)
		if !seenColl[p.Collective] {
			seenColl[p.Collective] = true
			collOrder = append(collOrder, p.Collective)
		}
	}
	keys := make([]key, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	rank := map[string]int{}
	for i, c := range collOrder {
		rank[c] = i
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.coll != b.coll {
			return rank[a.coll] < rank[b.coll]
		}
		if a.ranks != b.ranks {
			return a.ranks < b.ranks
		}
		return a.bytes < b.bytes
	})
	var tables []Table
	for _, k := range keys {
		d, err := decide(groups[k], o)
		if err != nil {
			return nil, err
		}
		n := len(tables)
		if n == 0 || tables[n-1].Collective != k.coll || tables[n-1].Ranks != k.ranks {
			tables = append(tables, Table{Collective: k.coll, Ranks: k.ranks})
			n++
		}
		tables[n-1].Decisions = append(tables[n-1].Decisions, d)
	}
	for i := range tables {
		tables[i].Ranges = merge(tables[i].Decisions)
	}
	return tables, nil
}

// decide applies the winner rule to the points of one collective, process
// count and size.
func decide(ps []Point, o Options) (Decision, error) {
	first := ps[0]
	d := Decision{Collective: first.Collective, Ranks: first.Ranks, Bytes: first.Bytes, Speedup: 1}
	var same Config
	if o.Default != nil {
		same, _ = o.Default(first.Collective, first.Ranks, first.Bytes)
	}
	isDefault := func(c Config) bool { return c.IsDefault() || (!same.IsDefault() && c == same) }
	// The default's rounds, pooled with those of the configuration the
	// default itself runs: both measure the same thing.
	var def []float64
	found := false
	for _, p := range ps {
		if isDefault(p.Config) {
			def = append(def, p.Times...)
			found = found || p.Config.IsDefault()
		}
	}
	if !found {
		return Decision{}, fmt.Errorf("tune: %s on %d ranks at %d bytes has no measurement of the default", first.Collective, first.Ranks, first.Bytes)
	}
	d.Default = Summarize(def)
	d.Best, d.BestStats = Config{}, d.Default
	d.WinnerStats = d.Default
	for _, p := range ps {
		if isDefault(p.Config) {
			continue
		}
		s := Summarize(p.Times)
		if s.N == 0 {
			continue
		}
		if d.BestStats.N == 0 || s.Median < d.BestStats.Median {
			d.Best, d.BestStats = p.Config, s
		}
		if s.Beats(d.Default, o.MinGain) && (d.Winner.IsDefault() || s.Median < d.WinnerStats.Median) {
			d.Winner, d.WinnerStats = p.Config, s
		}
	}
	if !d.Winner.IsDefault() {
		d.Speedup = d.Default.Median / d.WinnerStats.Median
	}
	return d, nil
}

// merge joins adjacent decisions with the same winner into ranges.
func merge(ds []Decision) []Range {
	var rs []Range
	for _, d := range ds {
		n := len(rs)
		if n > 0 && rs[n-1].Winner == d.Winner {
			r := &rs[n-1]
			r.To = d.Bytes
			r.MinSpeedup = math.Min(r.MinSpeedup, d.Speedup)
			r.MaxSpeedup = math.Max(r.MaxSpeedup, d.Speedup)
			continue
		}
		rs = append(rs, Range{From: d.Bytes, To: d.Bytes, Winner: d.Winner, MinSpeedup: d.Speedup, MaxSpeedup: d.Speedup})
	}
	return rs
}

// statsJSON is Stats with NaN (no rounds) as null.
type statsJSON struct {
	Median *float64 `json:"median_usec"`
	Min    *float64 `json:"min_usec"`
	Max    *float64 `json:"max_usec"`
	N      int      `json:"rounds"`
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// MarshalJSON writes s with null for the times of a point without rounds.
func (s Stats) MarshalJSON() ([]byte, error) {
	return json.Marshal(statsJSON{Median: finite(s.Median), Min: finite(s.Min), Max: finite(s.Max), N: s.N})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Stats) UnmarshalJSON(b []byte) error {
	var j statsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Stats{Median: orNaN(j.Median), Min: orNaN(j.Min), Max: orNaN(j.Max), N: j.N}
	return nil
}
