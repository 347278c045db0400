package analysis

import (
	"encoding/csv"
	"github.com/mpbench/mpbench/internal/testcorpus"
	"os"
	"strconv"
	"strings"
	"testing"
)

// refTable is a reference CSV: header names and records, '#' comment
// lines dropped.
type refTable struct {
	name string
	cols map[string]int
	recs [][]string
}

func readRef(t *testing.T, name string) refTable {
	t.Helper()
	b, err := os.ReadFile(testcorpus.Reference(t, name))
	if err != nil {
		t.Fatalf("reference table: %v", err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "#") && strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	recs, err := csv.NewReader(strings.NewReader(strings.Join(lines, "\n"))).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(recs) < 2 {
		t.Fatalf("reference table %s: %d lines, want a header and at least one row", name, len(recs))
	}
	tab := refTable{name: name, cols: map[string]int{}, recs: recs[1:]}
	for i, h := range recs[0] {
		tab.cols[h] = i
	}
	return tab
}

// str returns column col of record i.
func (r refTable) str(t *testing.T, i int, col string) string {
	t.Helper()
	c, ok := r.cols[col]
	if !ok {
		t.Fatalf("%s: no column %q", r.name, col)
	}
	return r.recs[i][c]
}

// num returns column col of record i as a number; ok is false for an
// empty cell.
func (r refTable) num(t *testing.T, i int, col string) (float64, bool) {
	t.Helper()
	s := r.str(t, i, col)
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%s row %d column %s: %v", r.name, i+2, col, err)
	}
	return v, true
}

// must returns column col of record i as a number, failing on an empty cell.
func (r refTable) must(t *testing.T, i int, col string) float64 {
	t.Helper()
	v, ok := r.num(t, i, col)
	if !ok {
		t.Fatalf("%s row %d column %s: empty", r.name, i+2, col)
	}
	return v
}

// points returns the (bytes, time) columns of a reference table.
func (r refTable) points(t *testing.T, timeCol string) []Point {
	t.Helper()
	pts := make([]Point, len(r.recs))
	for i := range r.recs {
		pts[i] = Point{int64(r.must(t, i, "bytes")), r.must(t, i, timeCol)}
	}
	return pts
}

// round returns v rounded to d decimals.
func round(v float64, d int) float64 {
	p := 1.0
	for ; d > 0; d-- {
		p *= 10
	}
	return float64(int64(v*p+0.5*sign(v))) / p
}

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}
