package tune

import (
	"math"

	"github.com/mpbench/mpbench/result"
)

// pointKey identifies a point across rounds.
type pointKey struct {
	coll         string
	ranks, bytes int
	config       Config
}

// PointSet collects the time of every point in every measuring job that
// measured it: one round per job, the points in the order first measured.
type PointSet struct {
	bench map[string]string // collective -> IMB benchmark name
	order []pointKey
	times map[pointKey][]float64
}

// NewPointSet returns an empty set whose jobs measure each collective c
// with the IMB benchmark bench[c] (e.g. "bcast" -> "Bcast").
func NewPointSet(bench map[string]string) *PointSet {
	return &PointSet{bench: bench, times: map[pointKey][]float64{}}
}

// Add records the rows of one job on np ranks that measured the
// collectives colls, each with its configuration in configs (absent: the
// default): a row of such a collective's benchmark on np ranks is one
// more round of its point (collective, np, bytes, configuration), its time
// result.Row.Time in usec. Rows of other benchmarks or process counts are
// left out.
func (s *PointSet) Add(np int, colls []string, configs map[string]Config, rows []result.Row) {
	byBench := map[string]string{}
	for _, c := range colls {
		byBench[s.bench[c]] = c
	}
	for _, row := range rows {
		c, ok := byBench[row.Benchmark]
		if !ok || row.Processes != np {
			continue
		}
		k := pointKey{coll: c, ranks: row.Processes, bytes: int(max(row.Bytes, 0)), config: configs[c]}
		if _, ok := s.times[k]; !ok {
			s.order = append(s.order, k)
		}
		s.times[k] = append(s.times[k], row.Time())
	}
}

// Points returns the collected points in the order first measured.
func (s *PointSet) Points() []Point {
	ps := make([]Point, 0, len(s.order))
	for _, k := range s.order {
		ps = append(ps, Point{Collective: k.coll, Ranks: k.ranks, Bytes: k.bytes, Config: k.config, Times: s.times[k]})
	}
	return ps
}

// JSONPoint is a Point as mpbench tune writes it to points.json: its
// configuration's label (Config.String) beside it, a failed round's time
// (NaN, or infinite) as null, and its Stats (NaN as null).
type JSONPoint struct {
	Collective string     `json:"collective"`
	Ranks      int        `json:"ranks"`
	Bytes      int        `json:"bytes"`
	Config     Config     `json:"config"`
	Label      string     `json:"label"`
	Times      []*float64 `json:"times_usec"`
	Stats      Stats      `json:"stats"` // NaN as null (Stats.MarshalJSON)
}

// JSONPoints returns ps as points.json holds them (JSONPoint).
func JSONPoints(ps []Point) []JSONPoint {
	out := make([]JSONPoint, len(ps))
	for i, p := range ps {
		t := make([]*float64, len(p.Times))
		for j, v := range p.Times {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				t[j] = &v
			}
		}
		out[i] = JSONPoint{Collective: p.Collective, Ranks: p.Ranks, Bytes: p.Bytes, Config: p.Config,
			Label: p.Config.String(), Times: t, Stats: Summarize(p.Times)}
	}
	return out
}
