package analysis

import (
	"math"
	"testing"

	"github.com/mpbench/mpbench/result"
)

// TestStudyTables41to44 reproduces the bandwidth conversion (table 4.2),
// the MPI overhead (table 4.3) and the PingPing loss (table 4.4).
func TestStudyTables41to44(t *testing.T) {
	ref := readRef(t, "thesis-tables4.1-4.4-bandwidth.csv")
	for i := range ref.recs {
		net := ref.str(t, i, "network")
		pp := MbpsFromMBps(ref.must(t, i, "pingpong_MBps"), result.MiB)
		// Printed Mbit/s were computed from unrounded MB/s: 0.01 apart.
		if want := ref.must(t, i, "pingpong_Mbps"); math.Abs(pp-want) > 0.011 {
			t.Errorf("%s: PingPong %.3f Mbit/s, printed %.2f", net, pp, want)
		}
		ov := BandwidthLoss(ref.must(t, i, "file_transfer_Mbps"), pp)
		if want := ref.must(t, i, "mpi_overhead_Mbps"); math.Abs(ov.Diff-want) > 0.011 {
			t.Errorf("%s: overhead %.3f Mbit/s, printed %.2f", net, ov.Diff, want)
		}
		// The study prints a negative overhead as 0 %.
		pct := math.Max(ov.Pct, 0)
		if want := ref.must(t, i, "mpi_overhead_pct"); math.Abs(pct-want) > 0.15 {
			t.Errorf("%s: overhead %.2f%%, printed %.1f%%", net, pct, want)
		}
		loss := BandwidthLoss(ref.must(t, i, "pingpong_MBps"), ref.must(t, i, "pingping_MBps"))
		if want := ref.must(t, i, "pingping_loss_pct"); math.Abs(loss.Pct-want) > 0.05 {
			t.Errorf("%s: PingPing loss %.3f%%, printed %.2f%%", net, loss.Pct, want)
		}
	}
}

func TestCompareRuns(t *testing.T) {
	mk := func(b int64, tm ...float64) []result.Row {
		var rows []result.Row
		for _, x := range tm {
			r := result.NewRow("PingPong", 2, b)
			r.TMax = x
			rows = append(rows, r)
		}
		return rows
	}
	base := append(mk(1024, 10, 10.2), mk(1<<20, 1000, 1010)...)
	base = append(base, mk(64, 5)...)
	slow := append(mk(1024, 10.1, 10.3), mk(1<<20, 1250, 1262)...)
	slow = append(slow, mk(64, 6)...)
	slow = append(slow, mk(128, 6)...) // not in the first run
	rows := compareRows([][]result.Row{base, slow})
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3: %+v", len(rows), rows)
	}
	small, mid, big := rows[0], rows[1], rows[2]
	if small.Bytes != 64 || !math.IsNaN(small.Noise) || small.Significant || math.Abs(small.Ratio-1.2) > 1e-12 {
		t.Errorf("64 B: %+v", small)
	}
	if mid.Significant || math.Abs(mid.Noise-0.02) > 1e-9 {
		t.Errorf("1024 B: a 1%% change within 2%% noise flagged: %+v", mid)
	}
	if !big.Significant || math.Abs(big.DiffUsec-251) > 1e-9 || math.Abs(big.LossPct-100*(1-1005/1256.0)) > 1e-9 ||
		math.Abs(big.BaseMBps-float64(1<<20)/1005) > 1e-9 || big.Run != 1 {
		t.Errorf("1 MiB: %+v", big)
	}
	if compareRows([][]result.Row{base}) != nil {
		t.Error("one run compared")
	}
}

// TestCompareNoiseFloor: identical repeats (a file concatenated with
// itself) give no noise; a 0.2% difference is then within the floor, a
// 5% one is not, and at 0.50 usec the print resolution (0.01 usec = 2%)
// is the floor.
func TestCompareNoiseFloor(t *testing.T) {
	mk := func(b int64, tm ...float64) []result.Row {
		var rows []result.Row
		for _, x := range tm {
			r := result.NewRow("PingPong", 2, b)
			r.TMax = x
			rows = append(rows, r)
		}
		return rows
	}
	base := append(mk(1024, 10, 10), mk(0, 0.50, 0.50)...)
	base = append(base, mk(1<<20, 1000, 1000)...)
	other := append(mk(1024, 10.02), mk(0, 0.51)...)
	other = append(other, mk(1<<20, 1050)...)
	rows := compareRows([][]result.Row{base, other})
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	zero, small, big := rows[0], rows[1], rows[2]
	if small.Significant || math.Abs(small.Noise-MinNoise) > 1e-12 {
		t.Errorf("1024 B: 0.2%% difference over identical repeats: noise %g significant %v; want %g, no", small.Noise, small.Significant, MinNoise)
	}
	if zero.Significant || math.Abs(zero.Noise-0.02) > 1e-12 {
		t.Errorf("0 B: 0.50 vs 0.51 usec: noise %g significant %v; want 0.02 (print resolution), no", zero.Noise, zero.Significant)
	}
	if !big.Significant {
		t.Errorf("1 MiB: 5%% difference not significant: %+v", big)
	}
}

// TestCompareBarrier: rows without a size (Barrier) compare per rank
// count.
func TestCompareBarrier(t *testing.T) {
	mk := func(procs int, tm float64) result.Row {
		r := result.NewRow("Barrier", procs, -1)
		r.TMax = tm
		return r
	}
	rows := compareRows([][]result.Row{{mk(2, 151), mk(4, 177)}, {mk(2, 160), mk(4, 177), mk(8, 670)}})
	if len(rows) != 2 || rows[0].Processes != 2 || rows[0].Bytes != -1 || math.Abs(rows[0].Ratio-160.0/151) > 1e-12 ||
		!math.IsNaN(rows[0].MBps) || rows[1].Processes != 4 || rows[1].Ratio != 1 {
		t.Errorf("Barrier compared: %+v", rows)
	}
}

// TestCompareOutlierRepeat: on a shared machine one repeat of five may be
// disturbed; the point is the median of the repeats and the noise leaves
// the extreme repeats out, so a doubling is still significant, and a
// difference inside the central spread is not.
func TestCompareOutlierRepeat(t *testing.T) {
	mk := func(b int64, tm ...float64) []result.Row {
		var rows []result.Row
		for _, x := range tm {
			r := result.NewRow("PingPong", 2, b)
			r.TMax = x
			rows = append(rows, r)
		}
		return rows
	}
	base := append(mk(1024, 30, 30, 31, 30, 30), mk(8, 10, 11, 12, 13, 14)...)
	other := append(mk(1024, 60, 61, 60, 60, 600), mk(8, 12.5)...)
	rows := compareRows([][]result.Row{base, other})
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	eight, kib := rows[0], rows[1]
	if kib.Usec != 60 || kib.BaseUsec != 30 || math.Abs(kib.Noise-(61.0/60-1)) > 1e-12 || !kib.Significant {
		t.Errorf("1024 B with one 600 usec repeat: %+v; want t 60 vs 30 usec, noise 61/60-1, significant", kib)
	}
	if eight.BaseUsec != 12 || math.Abs(eight.Noise-(13.0/11-1)) > 1e-12 || eight.Significant {
		t.Errorf("8 B: %+v; want base median 12, noise 13/11-1, not significant", eight)
	}
}

// TestCompareChangeSymmetric: significance compares the change with the
// noise in the same terms (larger time over smaller minus 1), so a run
// that is faster by a factor weighs as one slower by it. Base repeats
// 100 and 150 usec (median 125, noise 50%); a run at 80 usec is 125/80 - 1
// = 56.25% faster, beyond the noise, although 1 - 80/125 is only 36%.
func TestCompareChangeSymmetric(t *testing.T) {
	mk := func(tm ...float64) []result.Row {
		var rows []result.Row
		for _, x := range tm {
			r := result.NewRow("PingPong", 2, 4096)
			r.TMax = x
			rows = append(rows, r)
		}
		return rows
	}
	fast := compareRows([][]result.Row{mk(100, 150), mk(80)})
	slow := compareRows([][]result.Row{mk(80), mk(100, 150)})
	if len(fast) != 1 || len(slow) != 1 {
		t.Fatalf("%d and %d rows, want 1 each", len(fast), len(slow))
	}
	f, s := fast[0], slow[0]
	if math.Abs(f.Change-(-0.5625)) > 1e-12 || math.Abs(f.Noise-0.5) > 1e-12 || !f.Significant {
		t.Errorf("80 vs 125 usec: change %g noise %g significant %v; want -0.5625, 0.5, yes", f.Change, f.Noise, f.Significant)
	}
	if math.Abs(s.Change-0.5625) > 1e-12 || math.Abs(s.Ratio-1.5625) > 1e-12 || !s.Significant {
		t.Errorf("125 vs 80 usec: change %g ratio %g significant %v; want 0.5625, 1.5625, yes", s.Change, s.Ratio, s.Significant)
	}
	// Just inside the noise either way: 125 vs 84 usec is 48.8%.
	in := compareRows([][]result.Row{mk(100, 150), mk(84)})
	if len(in) != 1 || in[0].Significant || math.Abs(in[0].Change-(-(125.0/84-1))) > 1e-12 {
		t.Errorf("84 vs 125 usec: %+v; want change -(125/84-1), not significant", in)
	}
}

// compareRows compares rows given as one run per source (MByte 10^6).
func compareRows(sources [][]result.Row) []CompareRow {
	runs := make([][]result.Run, len(sources))
	for i, rows := range sources {
		runs[i] = []result.Run{{Meta: result.Meta{MByte: result.MB}, Rows: rows}}
	}
	out, _ := CompareRuns(runs)
	return out
}
