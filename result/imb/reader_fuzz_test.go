package imb

import (
	"testing"

	"github.com/mpbench/mpbench/internal/testcorpus"
	"github.com/mpbench/mpbench/result/internal/corpustest"
)

// FuzzReader checks that Parse never panics on any input and that every
// row and problem it returns points at a line of that input.
// Run: go test ./result/imb -run '^$' -fuzz FuzzReader -fuzztime 30s
func FuzzReader(f *testing.F) {
	for _, data := range testcorpus.Matching(f, "*-imb*.txt") {
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
