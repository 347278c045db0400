package bench

import (
	"sync"

	"github.com/mpbench/mpbench/result"
)

// recordingSink records every call, for tests.
type recordingSink struct {
	mu     sync.Mutex
	calls  []string // "begin", "row", "end" in call order
	blocks []Block  // from Begin
	ends   []Block  // from End
	rows   []result.Row
	rowErr error // returned by Row when set
}

func (s *recordingSink) Begin(b Block) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, "begin")
	s.blocks = append(s.blocks, b)
	return nil
}

func (s *recordingSink) Row(b Block, r result.Row) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, "row")
	s.rows = append(s.rows, r)
	return s.rowErr
}

func (s *recordingSink) End(b Block) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, "end")
	s.ends = append(s.ends, b)
	return nil
}

// rowsOf returns the recorded rows of one benchmark at one process count.
func (s *recordingSink) rowsOf(name string, procs int) []result.Row {
	var out []result.Row
	for _, r := range s.rows {
		if r.Benchmark == name && r.Processes == procs {
			out = append(out, r)
		}
	}
	return out
}
