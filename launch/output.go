package launch

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
)

// output serialises writes of all ranks to the job's stdout and stderr, so
// that lines of different ranks never mix.
type output struct {
	mu             sync.Mutex
	stdout, stderr io.Writer // nil: discard
}

func (o *output) write(w io.Writer, parts ...[]byte) {
	if w == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, p := range parts {
		w.Write(p)
	}
}

// copyStdout copies r to the job's stdout in chunks as they arrive.
func (o *output) copyStdout(r io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			o.write(o.stdout, buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// maxLastLine bounds the remembered last stderr line in bytes.
const maxLastLine = 300

// stderrCopier copies one rank's stderr line by line, each line prefixed,
// and remembers the last non-empty line.
type stderrCopier struct {
	out    *output
	prefix []byte

	// held keeps lines out of the job's stderr (only remembered) until
	// the line startedMarker: what a launch agent prints before the rank
	// runs (ssh's warnings and errors) reaches the job's stderr only as
	// the cause of a failed start.
	held bool

	// crash, when not nil, takes the rank's Go crash report (panic or
	// fatal error and goroutine stacks) off the terminal into a file.
	crash *crashReport

	mu       sync.Mutex
	last     string
	reported rankReport // the rank's ReportError account
}

func (s *stderrCopier) copy(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	atStart := true
	for {
		line, err := br.ReadSlice('\n')
		if s.crash != nil && (s.crash.started() || atStart && s.crash.begins(line)) {
			s.crash.write(line)
			line = nil
		}
		if rep, ok := reportedError(line); ok && atStart {
			s.mu.Lock()
			s.reported = rep
			s.mu.Unlock()
			line = nil // kept out of the job's stderr
		}
		if s.held && len(line) > 0 && atStart {
			if string(bytes.TrimSpace(line)) == startedMarker {
				s.held = false
			} else {
				s.remember(line)
			}
			line = nil
		}
		if len(line) > 0 {
			var parts [][]byte
			if atStart {
				parts = append(parts, s.prefix)
			}
			parts = append(parts, line)
			atStart = line[len(line)-1] == '\n'
			if !atStart && err != nil && !errors.Is(err, bufio.ErrBufferFull) {
				parts = append(parts, []byte{'\n'}) // unterminated last line
			}
			s.out.write(s.out.stderr, parts...)
			s.remember(line)
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

func (s *stderrCopier) remember(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if len(line) > maxLastLine {
		line = append(line[:maxLastLine:maxLastLine], "..."...)
	}
	s.mu.Lock()
	s.last = string(line)
	s.mu.Unlock()
}

// report is the rank's ReportError account (an empty message if none).
func (s *stderrCopier) report() rankReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reported
}

// lastLine is the last non-empty line seen so far.
func (s *stderrCopier) lastLine() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}
