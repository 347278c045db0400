package osu

import (
	"testing"

	"github.com/mpbench/mpbench/internal/testcorpus"
	"github.com/mpbench/mpbench/result/internal/corpustest"
)

// FuzzRead checks that Parse never panics and that every row and problem
// points at a line of the input.
// Run: go test ./result/osu -run '^$' -fuzz FuzzRead -fuzztime 30s
func FuzzRead(f *testing.F) {
	for _, data := range testcorpus.Matching(f, "*-osu*.txt") {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := Parse(data, "fuzz")
		if err != nil {
			return
		}
		corpustest.CheckPositions(t, runs, "fuzz", data, 1)
	})
}
