package osu

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mpbench/mpbench/result/internal/textline"
)

// FuzzRead checks that Parse never panics and that every row and problem
// points at a line of the input.
// Run: go test ./result/osu -run '^$' -fuzz FuzzRead -fuzztime 30s
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txt"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := Parse(data, "fuzz")
		if err != nil {
			return
		}
		n := len(textline.Lines(data))
		for _, r := range runs {
			for _, row := range r.Rows {
				if row.File != "fuzz" || row.Line < 1 || row.Line > n {
					t.Fatalf("row at %s:%d, input has %d lines", row.File, row.Line, n)
				}
			}
			for _, p := range r.Problems {
				if p.File != "fuzz" || p.Line < 1 || p.Line > n {
					t.Fatalf("problem at %s:%d, input has %d lines: %s", p.File, p.Line, n, p.Msg)
				}
			}
		}
	})
}
