package tune

import (
	"math"
	"testing"
)

func pt(coll string, ranks, bytes int, c Config, times ...float64) Point {
	return Point{Collective: coll, Ranks: ranks, Bytes: bytes, Config: c, Times: times}
}

var (
	binomial = Config{Algorithm: "binomial"}
	pipe16k  = Config{Algorithm: "pipeline", Segment: 16384}
)

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{5, 1, math.NaN(), 3, 2})
	if s.Median != 2.5 || s.Min != 1 || s.Max != 5 || s.N != 4 {
		t.Fatalf("Summarize = %+v, want median 2.5 min 1 max 5 n 4", s)
	}
	if got := s.Spread(); got != 4/2.5 {
		t.Errorf("Spread = %v, want %v", got, 4/2.5)
	}
	if e := Summarize([]float64{math.NaN()}); e.N != 0 || !math.IsNaN(e.Median) {
		t.Errorf("Summarize(NaN) = %+v, want no rounds", e)
	}
}

func TestDecideNoiseAware(t *testing.T) {
	points := []Point{
		// 8 bytes: binomial's rounds overlap the default's: a tie keeps the default.
		pt("bcast", 4, 8, Config{}, 10, 11, 12),
		pt("bcast", 4, 8, binomial, 9, 9.5, 10.5),
		// 1024: binomial is faster beyond the spread.
		pt("bcast", 4, 1024, Config{}, 20, 21, 22),
		pt("bcast", 4, 1024, binomial, 10, 11, 12),
		pt("bcast", 4, 1024, pipe16k, 15, 15, 15),
		// 4096: both beat the default; the lower median wins.
		pt("bcast", 4, 4096, Config{}, 40, 41, 42),
		pt("bcast", 4, 4096, binomial, 30, 31, 32),
		pt("bcast", 4, 4096, pipe16k, 20, 21, 39),
		// 65536: beyond the spread but less than the minimum gain.
		pt("bcast", 4, 65536, Config{}, 100, 100, 100),
		pt("bcast", 4, 65536, pipe16k, 99, 99, 99),
	}
	tables, err := Decide(points, Options{MinGain: 0.03})
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 1 || len(tables[0].Decisions) != 4 {
		t.Fatalf("got %d tables, want 1 with 4 decisions: %+v", len(tables), tables)
	}
	d := tables[0].Decisions
	wantWinners := []Config{{}, binomial, pipe16k, {}}
	for i, w := range wantWinners {
		if d[i].Winner != w {
			t.Errorf("%d bytes: winner %v, want %v", d[i].Bytes, d[i].Winner, w)
		}
	}
	if d[0].Best != binomial {
		t.Errorf("8 bytes: best %v, want binomial (fastest median, not beyond noise)", d[0].Best)
	}
	if d[1].Speedup != 21.0/11 {
		t.Errorf("1024 bytes: speedup %v, want %v", d[1].Speedup, 21.0/11)
	}
	if d[3].Speedup != 1 {
		t.Errorf("65536 bytes: speedup %v, want 1 for a kept default", d[3].Speedup)
	}
	wantRanges := []Range{
		{From: 8, To: 8, Winner: Config{}, MinSpeedup: 1, MaxSpeedup: 1},
		{From: 1024, To: 1024, Winner: binomial, MinSpeedup: 21.0 / 11, MaxSpeedup: 21.0 / 11},
		{From: 4096, To: 4096, Winner: pipe16k, MinSpeedup: 41.0 / 21, MaxSpeedup: 41.0 / 21},
		{From: 65536, To: 65536, Winner: Config{}, MinSpeedup: 1, MaxSpeedup: 1},
	}
	if got := tables[0].Ranges; len(got) != len(wantRanges) {
		t.Fatalf("ranges %+v, want %+v", got, wantRanges)
	}
	for i, w := range wantRanges {
		if tables[0].Ranges[i] != w {
			t.Errorf("range %d = %+v, want %+v", i, tables[0].Ranges[i], w)
		}
	}
}

func TestDecideMergesAndOrders(t *testing.T) {
	var points []Point
	for _, n := range []int{0, 1, 2, 4} {
		points = append(points, pt("allreduce", 2, n, Config{}, 10, 10, 10), pt("allreduce", 2, n, Config{Algorithm: "ring"}, 5, 5, 5))
	}
	points = append(points, pt("bcast", 3, 0, Config{}, 1), pt("bcast", 2, 0, Config{}, 1))
	tables, err := Decide(points, Options{MinGain: 0.03})
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 3 || tables[0].Collective != "allreduce" || tables[1].Ranks != 2 || tables[2].Ranks != 3 {
		t.Fatalf("tables not in order of collective, then ranks: %+v", tables)
	}
	r := tables[0].Ranges
	if len(r) != 1 || r[0].From != 0 || r[0].To != 4 || r[0].Winner.Algorithm != "ring" || r[0].MinSpeedup != 2 {
		t.Errorf("allreduce ranges = %+v, want one ring range 0..4 with speedup 2", r)
	}
}

func TestDecideFailedRoundsAndMissingDefault(t *testing.T) {
	nan := math.NaN()
	tables, err := Decide([]Point{
		pt("barrier", 2, 0, Config{}, 10, 10),
		pt("barrier", 2, 0, Config{Algorithm: "tree"}, nan, nan),
	}, Options{MinGain: 0.03})
	if err != nil {
		t.Fatal(err)
	}
	if d := tables[0].Decisions[0]; !d.Winner.IsDefault() || !d.Best.IsDefault() {
		t.Errorf("a configuration without rounds won: %+v", d)
	}
	if _, err := Decide([]Point{pt("barrier", 2, 0, Config{Algorithm: "tree"}, 1)}, Options{MinGain: 0.03}); err == nil {
		t.Error("Decide without a default measurement succeeded")
	}
}

func TestParseConfig(t *testing.T) {
	for in, want := range map[string]Config{"default": {}, "auto": {}, "ring": {Algorithm: "ring"}, "pipeline:seg=16384": pipe16k} {
		got, err := ParseConfig(in)
		if err != nil || got != want {
			t.Errorf("ParseConfig(%q) = %v, %v; want %v", in, got, err, want)
		}
		if in != "auto" && got.String() != in {
			t.Errorf("String() = %q, want %q", got.String(), in)
		}
	}
	for _, bad := range []string{"", "pipeline:seg=0", "pipeline:fan=2", ":seg=1"} {
		if _, err := ParseConfig(bad); err == nil {
			t.Errorf("ParseConfig(%q) succeeded", bad)
		}
	}
}

func TestDecideSkipsTheDefaultsOwnAlgorithm(t *testing.T) {
	points := []Point{
		pt("barrier", 2, 0, Config{}, 10, 10, 10),
		pt("barrier", 2, 0, Config{Algorithm: "dissemination"}, 5, 5, 5),
		pt("barrier", 2, 0, Config{Algorithm: "tree"}, 8, 8, 8),
		pt("barrier", 3, 0, Config{}, 10, 10, 10),
		pt("barrier", 3, 0, Config{Algorithm: "dissemination"}, 5, 5, 5),
		pt("barrier", 3, 0, Config{Algorithm: "tree"}, 4, 4, 4),
	}
	own := func(string, int, int) (Config, bool) { return Config{Algorithm: "dissemination"}, true }
	tables, err := Decide(points, Options{MinGain: 0.03, Default: own})
	if err != nil {
		t.Fatal(err)
	}
	// 2 ranks: tree (8) is not faster than the pooled default rounds (5..10).
	if d := tables[0].Decisions[0]; !d.Winner.IsDefault() || d.Default.Min != 5 || d.Default.N != 6 {
		t.Errorf("2 ranks: winner %v, default %+v; want the default, pooled over 6 rounds from 5", d.Winner, d.Default)
	}
	// 3 ranks: tree (4) beats every default round.
	if d := tables[1].Decisions[0]; d.Winner.Algorithm != "tree" || d.Speedup != 7.5/4 {
		t.Errorf("3 ranks: winner %v speedup %v; want tree at %v", d.Winner, d.Speedup, 7.5/4)
	}
}
