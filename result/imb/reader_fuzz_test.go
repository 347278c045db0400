package imb

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mpbench/mpbench/result/internal/textline"
)

// FuzzReader checks that Parse never panics on any input and that every
// row and problem it returns points at a line of that input.
// Run: go test ./result/imb -run '^$' -fuzz FuzzReader -fuzztime 30s
func FuzzReader(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "reader", "*.txt"))
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
		n := len(textline.Lines(data))
		for _, r := range runs {
			for _, row := range r.Rows {
				if row.File != "fuzz" || row.Line < 1 || row.Line > n {
					t.Fatalf("row at %s:%d, input has %d lines", row.File, row.Line, n)
				}
			}
			for _, p := range r.Problems {
				if p.File != "fuzz" || p.Line < 0 || p.Line > n {
					t.Fatalf("problem at %s:%d, input has %d lines: %s", p.File, p.Line, n, p.Msg)
				}
			}
		}
	})
}
