// Package corpustest holds checks shared by the readers' corpus and fuzz tests.
package corpustest

import (
	"testing"

	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/internal/textline"
)

// CheckPositions fails t unless every row and problem of runs names the
// input name and a line of data: rows lines 1..n, problems lines
// minProblemLine..n (0 lets a reader report a problem of the whole input).
func CheckPositions(t testing.TB, runs []result.Run, name string, data []byte, minProblemLine int) {
	t.Helper()
	n := len(textline.Lines(data))
	for _, r := range runs {
		for _, row := range r.Rows {
			if row.File != name || row.Line < 1 || row.Line > n {
				t.Fatalf("row at %s:%d, input has %d lines", row.File, row.Line, n)
			}
		}
		for _, p := range r.Problems {
			if p.File != name || p.Line < minProblemLine || p.Line > n {
				t.Fatalf("problem at %s:%d, input has %d lines: %s", p.File, p.Line, n, p.Msg)
			}
		}
	}
}
