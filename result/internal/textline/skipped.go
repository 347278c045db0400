package textline

import (
	"fmt"

	"github.com/mpbench/mpbench/result"
)

// Skipped counts the lines a reader passes over because they belong to no
// run (job-scheduler mail, shell prompts, launcher banners, checksum
// lines), so that they are reported in one problem per run instead of
// vanishing. The zero value is empty.
type Skipped struct {
	n     int
	first int    // line number of the first skipped line
	text  string // its text
}

// Add counts line ln with text t.
func (s *Skipped) Add(t string, ln int) {
	if s.n == 0 {
		s.first, s.text = ln, t
	}
	s.n++
}

// Flush appends, when lines were counted since the last Flush, one
// problem "skipped N line(s) that are not part of any run (first at
// file:line: "text")" at the first line to ps, the problems of one run,
// and empties s. file names the input.
func (s *Skipped) Flush(ps []result.Problem, file string) []result.Problem {
	if s.n == 0 {
		return ps
	}
	ps = append(ps, result.Problem{File: file, Line: s.first,
		Msg: fmt.Sprintf("skipped %d line(s) that are not part of any run (first at %s:%d: %s)", s.n, file, s.first, Quote(s.text))})
	*s = Skipped{}
	return ps
}
