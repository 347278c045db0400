package analysis

import (
	"strings"
	"testing"

	"github.com/mpbench/mpbench/result"
)

// bcastRows reads table 4.24 as IMB Bcast rows on 2 and 4 ranks.
func bcastRows(t *testing.T) []result.Row {
	ref := readRef(t, "thesis-table4.24-bcast-wifi.csv")
	var rows []result.Row
	for _, col := range []struct {
		name  string
		procs int
	}{{"t_usec_2nodes", 2}, {"t_usec_4nodes", 4}} {
		for i := range ref.recs {
			r := result.NewRow("Bcast", col.procs, int64(ref.must(t, i, "bytes")))
			r.TMax = ref.must(t, i, col.name)
			rows = append(rows, r)
		}
	}
	return rows
}

// TestAnomaliesTable424 finds exactly the irregularities the thesis points
// out in table 4.24, and nothing in the regular 4-node column.
func TestAnomaliesTable424(t *testing.T) {
	flags := DetectAnomalies(bcastRows(t), AnomalyOptions{})
	type hit struct {
		kind  FlagKind
		procs int
		bytes int64
	}
	want := map[hit]bool{{FlagJump, 2, 524288}: true, {FlagTimeFalls, 2, 1048576}: true}
	if len(flags) != len(want) {
		t.Errorf("%d flags, want %d", len(flags), len(want))
	}
	for _, f := range flags {
		t.Log(f)
		if !want[hit{f.Kind, f.Processes, f.Bytes}] {
			t.Errorf("unexpected flag %v", f)
		}
		if f.Benchmark != "Bcast" || !strings.Contains(f.Msg, "2 ranks") {
			t.Errorf("flag lacks benchmark or ranks: %v", f)
		}
	}
	if len(flags) == 2 && (!strings.Contains(flags[0].Msg, "4.1x") && !strings.Contains(flags[0].Msg, "4.10x")) {
		t.Errorf("jump message lacks the ratio: %s", flags[0].Msg)
	}
}

// TestAnomaliesSeed003 flags the protocol switch of seed 003's GbE
// PingPong (573 -> 1742 us for 32 -> 64 KiB) and nothing else.
func TestAnomaliesSeed003(t *testing.T) {
	ref := readRef(t, "seed003-imb-pingpong-1gbe.csv")
	var rows []result.Row
	for _, p := range ref.points(t, "t_usec") {
		r := result.NewRow("PingPong", 2, p.Bytes)
		r.TMax = p.Usec
		rows = append(rows, r)
	}
	flags := DetectAnomalies(rows, AnomalyOptions{})
	if len(flags) != 1 || flags[0].Kind != FlagJump || flags[0].Bytes != 65536 {
		t.Errorf("flags %v, want one jump at 65536 B", flags)
	}
}

func TestAnomaliesZeroTimes(t *testing.T) {
	var rows []result.Row
	for b := int64(1); b <= 1024; b *= 4 {
		r := result.NewRow("Truly_passive_put", 2, b)
		r.TMax = 10 + float64(b)/100
		r.Extra = map[string]float64{"t_ovrl[usec]": 0, "t_pure[usec]": 10 + float64(b)/100}
		rows = append(rows, r)
	}
	z := result.NewRow("PingPong", 2, 4096)
	z.TMax = 0
	z0 := result.NewRow("PingPong", 2, 0) // 0 B may take ~0 us: not flagged
	z0.TMax = 0
	rows = append(rows, z, z0)
	flags := DetectAnomalies(rows, AnomalyOptions{})
	var col, cell int
	for _, f := range flags {
		switch {
		case f.Kind == FlagZeroColumn && f.Column == "t_ovrl[usec]" && f.Benchmark == "Truly_passive_put":
			col++
		case f.Kind == FlagZeroTime && f.Bytes == 4096 && f.Column == "t_max[usec]":
			cell++
		default:
			t.Errorf("unexpected flag %v", f)
		}
	}
	if col != 1 || cell != 1 {
		t.Errorf("column flags %d, cell flags %d; want 1 and 1: %v", col, cell, flags)
	}
}

func TestAnomaliesInversionRepeatsDefects(t *testing.T) {
	mk := func(bench string, procs int, b int64, tm float64) result.Row {
		r := result.NewRow(bench, procs, b)
		r.TMax = tm
		return r
	}
	rows := []result.Row{
		// B18: osu_bcast at 1 B, 512 ranks 2.55 us, 1024 ranks 1.70 us.
		mk("osu_bcast", 512, 1, 2.55), mk("osu_bcast", 1024, 1, 1.70),
		mk("osu_bcast", 512, 2, 2.60), mk("osu_bcast", 1024, 2, 2.70),
		// Reduce_scatter's per-rank share shrinks: exempt.
		mk("Reduce_scatter", 4, 1024, 10), mk("Reduce_scatter", 8, 1024, 6),
		// Two runs of a point that disagree by 30 %, one that agrees.
		mk("Sendrecv", 4, 64, 10), mk("Sendrecv", 4, 64, 13), mk("Sendrecv", 4, 128, 11), mk("Sendrecv", 4, 128, 11.2),
	}
	d := mk("Reduce", 16, 4, 1.5)
	d.Defects = 2
	rows = append(rows, d)
	flags := DetectAnomalies(rows, AnomalyOptions{})
	got := map[FlagKind]int{}
	for _, f := range flags {
		got[f.Kind]++
		t.Log(f)
		if f.Kind == FlagInversion && (f.Processes != 1024 || f.Bytes != 1 || !strings.Contains(f.Msg, "512 ranks")) {
			t.Errorf("inversion flag %v", f)
		}
		if f.Kind == FlagRepeats && f.Bytes != 64 {
			t.Errorf("repeats flag %v", f)
		}
	}
	if got[FlagInversion] != 1 || got[FlagRepeats] != 1 || got[FlagDefects] != 1 || len(flags) != 3 {
		t.Errorf("flags %v", got)
	}
}

// TestAnomaliesCleanSweep: a noisy but regular Hockney sweep raises nothing.
func TestAnomaliesCleanSweep(t *testing.T) {
	var rows []result.Row
	for _, p := range sweep(30, 110, 22, 0.04, 11) {
		r := result.NewRow("PingPong", 2, p.Bytes)
		r.TMax = p.Usec
		rows = append(rows, r)
	}
	if flags := DetectAnomalies(rows, AnomalyOptions{}); len(flags) != 0 {
		t.Errorf("clean sweep flagged: %v", flags)
	}
}

// TestAnomalyWording: an unknown process count is named, not -1; times
// are printed with two decimals as IMB prints them, never in %g's
// exponent form; a Barrier whose time falls as ranks are added is
// flagged.
func TestAnomalyWording(t *testing.T) {
	var rows []result.Row
	for i, tm := range []float64{100, 200, 400, 2082160.5, 1600} {
		r := result.NewRow("osu_allreduce", -1, int64(1024)<<i)
		r.TAvg = tm
		rows = append(rows, r)
	}
	for _, c := range []struct {
		n int
		t float64
	}{{2, 151}, {4, 177}, {8, 90}} {
		r := result.NewRow("Barrier", c.n, -1)
		r.TMax = c.t
		rows = append(rows, r)
	}
	flags := DetectAnomalies(rows, AnomalyOptions{})
	var jump, inv bool
	for _, f := range flags {
		if strings.Contains(f.Msg, "-1 ranks") || strings.Contains(f.Msg, "e+") {
			t.Errorf("flag wording: %s", f.Msg)
		}
		if f.Kind == FlagJump && strings.Contains(f.Msg, "osu_allreduce (np unknown)") && strings.Contains(f.Msg, "(2082160.50 us)") {
			jump = true
		}
		if f.Kind == FlagInversion && f.Benchmark == "Barrier" && f.Processes == 8 && strings.Contains(f.Msg, "the call takes 90.00 us") {
			inv = true
		}
	}
	if !jump || !inv {
		t.Errorf("want the jump to 2082160.50 us (np unknown) and the Barrier inversion at 8 ranks; got %v", flags)
	}
}

// TestAnomaliesBandwidthOnly: benchmarks printing only a bandwidth
// (IMB Uniband, osu_bw) are checked on bytes / bandwidth: 030's Uniband on
// 2 ranks falls from 10711.57 MB/s at 2 MiB to 5288.73 at 4 MiB (time x4.05
// for a doubling), and an 11x bandwidth collapse at 2 MiB is a jump; their
// aggregate over more pairs is not a scaling inversion.
func TestAnomaliesBandwidthOnly(t *testing.T) {
	mk := func(bench string, procs int, bw map[int64]float64) []result.Row {
		var rows []result.Row
		for b := int64(1 << 16); b <= 1<<22; b *= 2 {
			r := result.NewRow(bench, procs, b)
			r.MBps = bw[b]
			rows = append(rows, r)
		}
		return rows
	}
	uni := mk("Uniband", 2, map[int64]float64{1 << 16: 6000, 1 << 17: 7500, 1 << 18: 8800, 1 << 19: 9600, 1 << 20: 10200, 1 << 21: 10711.57, 1 << 22: 5288.73})
	uni4 := mk("Uniband", 4, map[int64]float64{1 << 16: 12000, 1 << 17: 15000, 1 << 18: 17600, 1 << 19: 19200, 1 << 20: 20400, 1 << 21: 21400, 1 << 22: 21900})
	bw := mk("osu_bw", 2, map[int64]float64{1 << 16: 3000, 1 << 17: 3100, 1 << 18: 3200, 1 << 19: 3250, 1 << 20: 3296.05, 1 << 21: 300, 1 << 22: 3396.41})
	flags := DetectAnomalies(append(append(uni, uni4...), bw...), AnomalyOptions{})
	var uniJump, bwJump bool
	for _, f := range flags {
		switch {
		case f.Kind == FlagJump && f.Benchmark == "Uniband" && f.Processes == 2 && f.Bytes == 1<<22:
			uniJump = strings.Contains(f.Msg, "bytes / reported bandwidth") && strings.Contains(f.Msg, "10711.57 to 5288.73 MB/s")
		case f.Kind == FlagJump && f.Benchmark == "osu_bw" && f.Bytes == 1<<21:
			bwJump = true
		case f.Kind == FlagInversion:
			t.Errorf("aggregate bandwidth over more pairs flagged: %s", f.Msg)
		}
	}
	if !uniJump || !bwJump {
		t.Errorf("Uniband 4 MiB jump %v, osu_bw 2 MiB jump %v; flags %v", uniJump, bwJump, flags)
	}
}

// TestReduceScatterInversionByVersion: a Reduce_scatter whose time falls
// from 4 to 8 ranks at 1024 B is an inversion where #bytes is each rank's
// block (mpbench, IMB 2019 Update 1 and later) and exempt where it is the
// whole vector split among the ranks (IMB 2018, 2019 Update 0, 2017, 4.1).
func TestReduceScatterInversionByVersion(t *testing.T) {
	rows := []result.Row{result.NewRow("Reduce_scatter", 4, 1024), result.NewRow("Reduce_scatter", 8, 1024)}
	rows[0].TMax, rows[1].TMax = 10, 6
	for _, tc := range []struct {
		tool, version string
		perRank       bool
	}{
		{"IMB-MPI1", "2021.11", true}, {"IMB-MPI1", "2021.3", true}, {"IMB-MPI1", "2019 Update 6", true},
		{"IMB-MPI1", "2019 Update 1", true}, {"IMB-MPI1", "2019.1", true}, {"mpbench", "0.1.0", true},
		{"IMB-MPI1", "2019", false}, {"IMB-MPI1", "2018 Update 1", false}, {"IMB-MPI1", "2018", false},
		{"IMB-MPI1", "2017", false}, {"IMB-MPI1", "4.1", false}, {"IMB-MPI1", "", false}, {"OSU", "7.2", false},
	} {
		if got := ReduceScatterPerRank(tc.tool, tc.version); got != tc.perRank {
			t.Errorf("ReduceScatterPerRank(%q, %q) = %v, want %v", tc.tool, tc.version, got, tc.perRank)
		}
		flags := DetectAnomalies(rows, AnomalyOptions{ReduceScatterPerRank: ReduceScatterPerRank(tc.tool, tc.version)})
		if inverted := len(flags) == 1 && flags[0].Kind == FlagInversion && flags[0].Processes == 8; inverted != tc.perRank || len(flags) > 1 {
			t.Errorf("%s %s: flags %v; want an inversion at 8 ranks: %v", tc.tool, tc.version, flags, tc.perRank)
		}
	}
}
