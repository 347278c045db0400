package main

import "testing"

// rounds makes one sample per round for each size of bench, times[i]
// holding the rounds' times at sizes[i].
func rounds(bench string, sizes []int64, times [][]float64) []sample {
	var s []sample
	for i, n := range sizes {
		for _, t := range times[i] {
			s = append(s, sample{bench: bench, bytes: n, usec: t})
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
			st := steps(rounds("Exchange", sizes, tc.times))
			if len(st) != 2 {
				t.Fatalf("%d steps, want 2", len(st))
			}
			if st[0].from != 8192 || st[0].to != 16384 || st[1].from != 16384 || st[1].to != 65536 {
				t.Errorf("steps %v->%v, %v->%v; want 8192->16384, 16384->65536", st[0].from, st[0].to, st[1].from, st[1].to)
			}
			if d := st[0].ratio - tc.ratio0; d > 1e-9 || d < -1e-9 {
				t.Errorf("first ratio %.4f, want %.4f", st[0].ratio, tc.ratio0)
			}
			for i, want := range tc.cliffs {
				if got := st[i].cliff(8); got != want {
					t.Errorf("step %d (ratio %.2f, minima %.2f): cliff %v, want %v", i, st[i].ratio, st[i].minRatio, got, want)
				}
			}
		})
	}
}

func TestStepsSkipZeroAndGroup(t *testing.T) {
	s := []sample{
		{"Sendrecv", 0, 0}, {"Sendrecv", 8, 2}, {"Sendrecv", 16, 3},
		{"Alltoall", 8, 4}, {"Alltoall", 16, 40},
	}
	st := steps(s)
	if len(st) != 2 || st[0].bench != "Sendrecv" || st[1].bench != "Alltoall" {
		t.Fatalf("steps %+v: want one Sendrecv step then one Alltoall step", st)
	}
	if st[0].ratio != 1.5 || st[1].ratio != 10 || st[1].spread != 1 {
		t.Errorf("ratios %v, %v, spread %v; want 1.5, 10, 1", st[0].ratio, st[1].ratio, st[1].spread)
	}
}

func TestParseSizes(t *testing.T) {
	if got, err := parseSizes("8192, 16384"); err != nil || len(got) != 2 || got[1] != 16384 {
		t.Errorf("parseSizes: %v, %v", got, err)
	}
	for _, bad := range []string{"8192", "8k,16k", "0,8"} {
		if _, err := parseSizes(bad); err == nil {
			t.Errorf("parseSizes(%q): no error", bad)
		}
	}
}

func TestSizeName(t *testing.T) {
	for n, want := range map[int64]string{8192: "8K", 1 << 20: "1M", 1000: "1000", 131072: "128K"} {
		if got := sizeName(n); got != want {
			t.Errorf("sizeName(%d) = %q, want %q", n, got, want)
		}
	}
}
