package analysis

import (
	"math"
	"sort"

	"github.com/mpbench/mpbench/result"
)

// Point is one measurement of a size sweep: message size in bytes and the
// time in usec.
type Point struct {
	Bytes int64
	Usec  float64
}

// Points returns the (bytes, headline time) pairs of rows in ascending
// size order, using result.Row.Time (t_max, else t_avg, else t_min). Rows
// without a size (Bytes < 0, e.g. Barrier) or without a time are left out;
// zero and negative times are kept (the fits and the anomaly detector
// decide what to do with them).
func Points(rows []result.Row) []Point {
	pts := make([]Point, 0, len(rows))
	for i := range rows {
		t := rows[i].Time()
		if rows[i].Bytes < 0 || math.IsNaN(t) {
			continue
		}
		pts = append(pts, Point{rows[i].Bytes, t})
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].Bytes < pts[j].Bytes })
	return pts
}
