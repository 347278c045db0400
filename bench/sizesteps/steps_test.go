package sizesteps

import "testing"

// rounds makes one sample per round for each size of bench, times[i]
// holding the rounds' times at sizes[i].
func rounds(bench string, sizes []int64, times [][]float64) []Sample {
	var s []Sample
	for i, n := range sizes {
		for _, t := range times[i] {
			s = append(s, Sample{Bench: bench, Bytes: n, Usec: t})
		}
	}
	return s
}

func TestSteps(t *testing.T) {
	sizes := []int64{8192, 16384, 65536}
	tests := []struct {
		name   string
		times  [][]float64
		cliffs []bool // per step
		ratio0 float64
	}{
		{
			// The cliff this guard was written for: Exchange on shared
			// memory, 4.7 usec at 8 KiB, 684 usec at 16 KiB, every round.
			name:   "cliff in every round",
			times:  [][]float64{{4.7, 5.1, 4.9, 30, 4.8}, {684, 700, 650, 690, 2000}, {1000, 990, 1100, 1050, 980}},
			cliffs: []bool{true, false},
			ratio0: 690.0 / 4.9,
		},
		{
			// Load hit two of the 16 KiB rounds: the medians move, the
			// minima do not.
			name:   "load burst in some rounds",
			times:  [][]float64{{4.7, 5.1, 4.9, 5.0, 4.8}, {9, 800, 900, 10, 8.5}, {30, 31, 29, 33, 30}},
			cliffs: []bool{false, false},
			ratio0: 10.0 / 4.9,
		},
		{
			// The 8 KiB rounds were all slow (a loaded start): the ratio
			// drops, never a cliff.
			name:   "slow small size",
			times:  [][]float64{{50, 60, 55, 52, 58}, {9, 10, 9.5, 9.8, 9.1}, {30, 31, 29, 33, 30}},
			cliffs: []bool{false, false},
			ratio0: 9.5 / 55,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := Steps(rounds("Exchange", sizes, tc.times))
			if len(st) != 2 {
				t.Fatalf("%d steps, want 2", len(st))
			}
			if st[0].From != 8192 || st[0].To != 16384 || st[1].From != 16384 || st[1].To != 65536 {
				t.Errorf("steps %v->%v, %v->%v; want 8192->16384, 16384->65536", st[0].From, st[0].To, st[1].From, st[1].To)
			}
			if d := st[0].Ratio - tc.ratio0; d > 1e-9 || d < -1e-9 {
				t.Errorf("first ratio %.4f, want %.4f", st[0].Ratio, tc.ratio0)
			}
			for i, want := range tc.cliffs {
				if got := st[i].Cliff(8); got != want {
					t.Errorf("step %d (ratio %.2f, minima %.2f): cliff %v, want %v", i, st[i].Ratio, st[i].MinRatio, got, want)
				}
			}
		})
	}
}

func TestStepsSkipZeroAndGroup(t *testing.T) {
	s := []Sample{
		{"Sendrecv", 0, 0}, {"Sendrecv", 8, 2}, {"Sendrecv", 16, 3},
		{"Alltoall", 8, 4}, {"Alltoall", 16, 40},
	}
	st := Steps(s)
	if len(st) != 2 || st[0].Bench != "Sendrecv" || st[1].Bench != "Alltoall" {
		t.Fatalf("steps %+v: want one Sendrecv step then one Alltoall step", st)
	}
	if st[0].Ratio != 1.5 || st[1].Ratio != 10 || st[1].Spread != 1 {
		t.Errorf("ratios %v, %v, spread %v; want 1.5, 10, 1", st[0].Ratio, st[1].Ratio, st[1].Spread)
	}
}

func TestSizeName(t *testing.T) {
	for n, want := range map[int64]string{8192: "8K", 1 << 20: "1M", 1000: "1000", 131072: "128K"} {
		if got := SizeName(n); got != want {
			t.Errorf("SizeName(%d) = %q, want %q", n, got, want)
		}
	}
}
