package osu

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mpbench/mpbench/internal/testcorpus"
	"github.com/mpbench/mpbench/result/internal/corpustest"
)

// FuzzRead checks that Parse never panics and that every row and problem
// points at a line of the input.
// Run: go test ./result/osu -run '^$' -fuzz FuzzRead -fuzztime 30s
func FuzzRead(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(testcorpus.Dir(f), "*-osu*.txt"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed files in the corpus: %v", err)
	}
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
		corpustest.CheckPositions(t, runs, "fuzz", data, 1)
	})
}
