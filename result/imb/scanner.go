package imb

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/internal/textline"
)

// Scanner reads IMB text while it is being written, with the reader's own
// parser: Write takes the text in pieces of any size, each complete line
// is read at once (textline.Clean, then what Parse does with it), and
// Position says at any moment which benchmark table the text is in and its
// last row. End ends the input and returns what Parse returns for the same
// text. A job's supervisor writes rank 0's output through one to say where
// a failed or stalled job was. Safe for one writer and concurrent readers.
type Scanner struct {
	mu      sync.Mutex
	p       readerParser
	partial []byte   // the unfinished last line
	ln      int      // lines read
	pos     Position // the last table met
}

// Position is where IMB text is: the "# Benchmarking" table last met
// (zero before the first) and its last complete row.
type Position struct {
	// Benchmark is the table's benchmark, without "Multi-"; "" before the
	// first table.
	Benchmark string
	// Multi is set for IMB's -multi tables ("# Benchmarking Multi-X").
	Multi bool
	// Processes is the table's process count (per group under -multi);
	// 0 when not printed yet.
	Processes int
	// Groups is the number of groups of a -multi table, 0 otherwise.
	Groups int
	// Rows is the number of rows the table has so far.
	Rows int
	// Last is the table's last row when Rows > 0: its Bytes (-1 for a
	// table without #bytes, e.g. Barrier) and Repetitions.
	Last result.Row
}

// String says where the text is, as a job's supervisor reports it:
// "PingPong on 2 processes, last row #bytes 1024", "Multi-Sendrecv in 2
// groups of 2 processes each running simultaneous, before its first row",
// "Barrier on 4 processes, last row #repetitions 1000"; "" before the first
// table.
func (p Position) String() string {
	if p.Benchmark == "" {
		return ""
	}
	s := p.Benchmark
	if p.Multi {
		s = "Multi-" + s
	}
	switch {
	case p.Groups > 0:
		s += fmt.Sprintf(" in %d groups of %d processes each running simultaneous", p.Groups, p.Processes)
	case p.Processes > 0:
		s += fmt.Sprintf(" on %d processes", p.Processes)
	}
	switch {
	case p.Rows == 0:
		return s + ", before its first row"
	case p.Last.Bytes >= 0:
		return s + fmt.Sprintf(", last row #bytes %d", p.Last.Bytes)
	}
	return s + fmt.Sprintf(", last row #repetitions %d", p.Last.Repetitions)
}

// NewScanner returns a Scanner of the text named name (in problems and in
// Row.File, as for Read).
func NewScanner(name string) *Scanner {
	return &Scanner{p: readerParser{name: name}}
}

// Write reads the complete lines of b (ended by '\n'; a line's CR is
// dropped) and keeps the unfinished last one for the next Write. It never
// fails.
func (s *Scanner) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, b...)
	rest := s.partial
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		s.line(string(rest[:i]))
		rest = rest[i+1:]
	}
	s.partial = append(s.partial[:0:0], rest...) // do not pin old pieces
	return len(b), nil
}

// line reads one line and notes the position.
func (s *Scanner) line(l string) {
	s.ln++
	s.p.line(textline.Clean(l), s.ln)
	r := s.p.cur
	if r == nil || r.sec == nil {
		return // between tables the last one is where the text is
	}
	sec := r.sec
	s.pos = Position{Benchmark: sec.name, Multi: sec.multi, Processes: sec.processes, Groups: sec.groups, Rows: sec.rows}
	if sec.rows > 0 && sec.lastRow >= 0 {
		s.pos.Last = r.run.Rows[sec.lastRow]
	}
}

// Position returns where the text read so far is.
func (s *Scanner) Position() Position {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pos
}

// End reads the unfinished last line, ends the input and returns the runs
// read, as Parse does; the Scanner must not be written to afterwards.
func (s *Scanner) End() ([]result.Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.partial) > 0 {
		s.line(string(s.partial))
		s.partial = nil
	}
	return s.p.end()
}
