package analysis

import (
	"math"
	"testing"

	"github.com/mpbench/mpbench/result"
)

func TestTableViews(t *testing.T) {
	ref := readRef(t, "seed001-table4.2-fc1g.csv")
	m, _ := StudyModel(PresetFC1G)
	pts := ref.points(t, "reported_us")
	wt := WireTableView(m, WireTable(m, pts))
	if len(wt.Rows) != len(pts) || len(wt.Rows[0]) != len(wt.Columns) {
		t.Fatalf("%d rows of %d cells for %d columns", len(wt.Rows), len(wt.Rows[0]), len(wt.Columns))
	}
	// Row 262144 B renders as the seed prints it.
	r := wt.Rows[19]
	if r[0].String() != "262144" || r[1].String() != "128" || r[2].String() != "263704" || r[6].String() != "87.72" || wt.Columns[6].Unit != "MiB/s" {
		t.Errorf("row %v", r)
	}
	if (Cell{Value: math.NaN()}).String() != "" {
		t.Error("NaN cell not blank")
	}
	p, err := FitPiecewise(readRef(t, "seed003-imb-pingpong-1gbe.csv").points(t, "t_usec"), FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ft := FitTableView(p)
	// Seed 003: short messages (1-32 B, ~109 us), eager (64 B-32 KiB), and
	// rendezvous from 64 KiB, whose first point (1742 us, the slow foot of
	// the cliff) disagrees with both sides and is left out.
	if len(ft.Rows) != 3 || ft.Rows[0][1].String() != "1-32" || ft.Rows[1][1].String() != "64-32768" ||
		ft.Rows[2][0].String() != "rendezvous" || ft.Rows[2][1].String() != "65536-536870912" || ft.Rows[2][8].String() != "65536" {
		t.Errorf("fit table %v", ft.Rows)
	}
	multi := SeriesKey{Benchmark: "PingPong", Processes: 2, Multi: result.MultiWorst, Groups: 8, Group: -1}
	at := ABGTableView([]ABGRow{{Series: multi, Benchmark: "PingPong", Multi: true, Processes: 16, Transfers: 8, Rule: "N/2 pairs", Bytes: 4 << 20, Usec: 356600, Mbps: ABG(8, 4<<20, 356600)}})
	if at.Rows[0][0].String() != "Multi-PingPong 8x2" || at.Rows[0][6].String() != "752.76" {
		t.Errorf("ABG table %v", at.Rows)
	}
	flags := DetectAnomalies(bcastRows(t), AnomalyOptions{})
	if len(flags) != 2 || flags[0].Bytes != 524288 {
		t.Errorf("flags %v", flags)
	}
}
