package result

import (
	"slices"
	"testing"
)

func TestRankHosts(t *testing.T) {
	m := Meta{Info: map[string]string{InfoRankHosts: "n1,n2,n1,n2,n3"}}
	h := RankHostsOf(m)
	if !slices.Equal(h, RankHosts{"n1", "n2", "n1", "n2", "n3"}) {
		t.Fatalf("RankHostsOf = %q", h)
	}
	for _, tc := range []struct {
		ranks    []int
		format   string
		distinct int
	}{
		{nil, "n1: 0,2; n2: 1,3; n3: 4", 3},
		{[]int{0, 2}, "n1: 0,2", 1},
		{[]int{3, 1, 0}, "n2: 1,3; n1: 0", 2},
		{[]int{4, 7}, "n3: 4", 1}, // 7 is outside the map
	} {
		if got := h.Format(tc.ranks); got != tc.format {
			t.Errorf("Format(%v) = %q, want %q", tc.ranks, got, tc.format)
		}
		if tc.ranks != nil {
			if got := h.Distinct(tc.ranks); got != tc.distinct {
				t.Errorf("Distinct(%v) = %d, want %d", tc.ranks, got, tc.distinct)
			}
		}
	}
	if got := RankHosts([]string{"a", "a", "a", "b"}).Format(nil); got != "a: 0-2; b: 3" {
		t.Errorf("ranges: %q", got)
	}
	if RankHostsOf(Meta{}) != nil {
		t.Error("a run without rank_hosts has a map")
	}
}

// TestGroupOrder: rank order without -map; IMB's key order under -map
// 2x2 (key 2r mod 3: ranks 0 and 3 keep their rank as key), which pairs
// ranks of two hosts placed host by host.
func TestGroupOrder(t *testing.T) {
	if got := GroupOrder(4, 0, 0); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Errorf("no map: %v", got)
	}
	if got := GroupOrder(4, 2, 2); !slices.Equal(got, []int{0, 2, 1, 3}) {
		t.Errorf("-map 2x2: %v, want [0 2 1 3]", got)
	}
}
