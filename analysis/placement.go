package analysis

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mpbench/mpbench/result"
)

// Placement says on which hosts the ranks of one series ran, from the
// run's rank-to-host map (result.RankHostsOf), so that a table measured
// between hosts can be told from one measured within a host.
type Placement struct {
	// Groups are the world ranks of each group the series' rows cover,
	// in group order: one group without -multi (world ranks in IMB's
	// group order, the first Processes), every group under -multi 0, the
	// row's own group under -multi 1.
	Groups [][]int
	// Hosts is the run's rank-to-host map.
	Hosts result.RankHosts
}

// PlacementOf returns the placement of series k in a run with metadata m,
// and false when m records no rank-to-host map, the map does not cover
// the series' ranks, or the series does not say how many processes it
// ran on. The groups are laid out as mpbench lays them out
// (result.GroupOrder, with the run's -map option from m.Options["map"]).
func PlacementOf(k SeriesKey, m result.Meta) (Placement, bool) {
	hosts := result.RankHostsOf(m)
	np := len(hosts)
	if hosts == nil || k.Processes <= 0 || k.TotalRanks() > np {
		return Placement{}, false
	}
	px, py := parseMap(m.Options["map"])
	order := result.GroupOrder(np, px, py)
	p := Placement{Hosts: hosts}
	switch {
	case k.Multi == result.MultiNone:
		p.Groups = [][]int{order[:k.Processes]}
	case k.Multi == result.MultiEach && k.Group >= 0:
		if (k.Group+1)*k.Processes > np {
			return Placement{}, false
		}
		p.Groups = [][]int{order[k.Group*k.Processes : (k.Group+1)*k.Processes]}
	default:
		for g := range max(k.Groups, 1) {
			p.Groups = append(p.Groups, order[g*k.Processes:(g+1)*k.Processes])
		}
	}
	return p, true
}

// parseMap reads IMB's -map "PxQ"; 0, 0 when absent or malformed.
func parseMap(s string) (px, py int) {
	a, b, ok := strings.Cut(s, "x")
	if !ok {
		return 0, 0
	}
	px, err1 := strconv.Atoi(a)
	py, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil {
		return 0, 0
	}
	return px, py
}

// Crossing counts the groups whose ranks are on more than one host.
func (p Placement) Crossing() int {
	n := 0
	for _, g := range p.Groups {
		if p.Hosts.Distinct(g) > 1 {
			n++
		}
	}
	return n
}

// String describes the placement in one sentence: "between hosts: ranks
// 0-1 on node1: 0; node2: 1" for one group, "within one host: ..." when
// its ranks share a host; for several groups how many span hosts, and the
// hosts of the first group that does.
func (p Placement) String() string {
	if len(p.Groups) == 1 {
		g := p.Groups[0]
		if p.Hosts.Distinct(g) > 1 {
			return fmt.Sprintf("between hosts: ranks on %s", p.Hosts.Format(g))
		}
		return fmt.Sprintf("within one host: ranks on %s", p.Hosts.Format(g))
	}
	c := p.Crossing()
	s := fmt.Sprintf("%d of %d groups between hosts, %d within one host", c, len(p.Groups), len(p.Groups)-c)
	for i, g := range p.Groups {
		if p.Hosts.Distinct(g) > 1 {
			return s + fmt.Sprintf(" (group %d: %s)", i, p.Hosts.Format(g))
		}
	}
	return s
}
