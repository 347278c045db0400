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
	rows := CompareRuns([][]result.Row{base, slow})
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
	if CompareRuns([][]result.Row{base}) != nil {
		t.Error("one run compared")
	}
}
