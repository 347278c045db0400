package result

import (
	"sort"
	"strconv"
	"strings"
)

// RankHosts is a run's rank-to-host map: the host of each world rank, in
// rank order. mpbench records it in its files' metadata as
// Meta.Info["rank_hosts"], the hosts joined by commas.
type RankHosts []string

// InfoRankHosts is the Meta.Info key of the rank-to-host map.
const InfoRankHosts = "rank_hosts"

// RankHostsOf returns the rank-to-host map m records, or nil when it
// records none (IMB and OSU files, one-host runs of older mpbench
// versions).
func RankHostsOf(m Meta) RankHosts {
	v := m.Info[InfoRankHosts]
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

// Format describes the hosts of ranks (every rank when ranks is nil) in
// one line, hosts in order of their first rank, each host's ranks in
// ascending order as ranges: "node1: 0-1; node2: 2-3" or, mapped by node,
// "node1: 0,2; node2: 1,3". Ranks outside the map are left out.
func (h RankHosts) Format(ranks []int) string {
	if ranks == nil {
		ranks = make([]int, len(h))
		for r := range ranks {
			ranks[r] = r
		}
	}
	var order []string
	of := map[string][]int{}
	for _, r := range ranks {
		if r < 0 || r >= len(h) {
			continue
		}
		if _, ok := of[h[r]]; !ok {
			order = append(order, h[r])
		}
		of[h[r]] = append(of[h[r]], r)
	}
	parts := make([]string, len(order))
	for i, host := range order {
		rs := of[host]
		sort.Ints(rs)
		parts[i] = host + ": " + FormatRanges(rs)
	}
	return strings.Join(parts, "; ")
}

// Distinct counts the different hosts of ranks; ranks outside the map
// count as none.
func (h RankHosts) Distinct(ranks []int) int {
	seen := map[string]bool{}
	for _, r := range ranks {
		if r >= 0 && r < len(h) {
			seen[h[r]] = true
		}
	}
	return len(seen)
}

// FormatRanges writes ascending ranks as "0-3,6,8-9".
func FormatRanges(rs []int) string {
	var b strings.Builder
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(rs[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(rs[j]))
		}
		i = j + 1
	}
	return b.String()
}

// GroupOrder returns the world ranks 0..np-1 in the order IMB's groups
// take them: group g of p processes is GroupOrder(...)[g*p : (g+1)*p]
// (without -multi the one group is the first p). That is rank order, or
// under -map PxQ (px, py > 1) the order of IMB's key (Q * rank) mod
// (P*Q - 1), with key 0 replaced by the rank itself, ties by rank
// (IMB_init_communicator in src_c/IMB_init.c; the ranks are then ordered
// as MPI_Comm_split orders them by key). Rank 0 always comes first.
func GroupOrder(np, px, py int) []int {
	order := make([]int, np)
	key := make([]int, np)
	for r := range order {
		order[r], key[r] = r, r
		if px > 1 && py > 1 {
			if key[r] = (py * r) % (px*py - 1); key[r] == 0 {
				key[r] = r
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return key[order[i]] < key[order[j]] })
	return order
}
