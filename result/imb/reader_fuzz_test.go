package imb

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mpbench/mpbench/internal/testcorpus"
	"github.com/mpbench/mpbench/result/internal/corpustest"
)

// FuzzReader checks that Parse never panics on any input and that every
// row and problem it returns points at a line of that input.
// Run: go test ./result/imb -run '^$' -fuzz FuzzReader -fuzztime 30s
func FuzzReader(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(testcorpus.Dir(f), "*-imb*.txt"))
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
	f.Add([]byte("# Benchmarking Multi-PingPong\n# ( 2 groups of 2 processes each running simultaneous )\n Group #bytes #repetitions t[usec] Mbytes/sec\n 0 0 1000 1.0 0.0\n 1 0\n"))
	f.Add([]byte("partn#-----\r\n#- Benchmarking X\r\n #repetitions t_min[usec]\r\n 5 time-out.\r\n[ 1, 2 ]\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := Parse(data, "fuzz")
		if err != nil {
			return
		}
		corpustest.CheckPositions(t, runs, "fuzz", data, 0)
	})
}
