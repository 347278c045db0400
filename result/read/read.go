// Package read is the entry point for reading any benchmark result file
// mpbench understands: it detects the format from the text and hands the
// file to the reader of that format.
//
// Formats: IMB text output (result/imb, every IMB version and mpbench's own
// IMB-format output), OSU Micro-Benchmarks output (result/osu), and
// mpbench's JSON Lines and CSV result files (result/rowfile).
//
// It is a package of its own, above package result, because the readers
// import result: result cannot import them without an import cycle.
package read

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/imb"
	"github.com/mpbench/mpbench/result/internal/textline"
	"github.com/mpbench/mpbench/result/osu"
	"github.com/mpbench/mpbench/result/rowfile"
)

// ErrNotBenchmark is returned, wrapped as "<file>: not IMB or OSU output
// (no benchmark table found)", when a file is in none of the formats.
// The CLI maps it to exit status 2 (bad input).
var ErrNotBenchmark = errors.New("not IMB or OSU output (no benchmark table found)")

// Format is a result file format.
type Format int

// The formats Detect tells apart.
const (
	Unknown   Format = iota
	IMB              // IMB text output (any IMB executable and version, PMB)
	OSU              // OSU Micro-Benchmarks output
	JSONLines        // mpbench JSON Lines (first line a "meta" object)
	CSV              // mpbench CSV (first line "# format=mpbench-csv")
)

// String returns the format's name: "imb", "osu", "jsonl", "csv" or
// "unknown".
func (f Format) String() string {
	switch f {
	case IMB:
		return "imb"
	case OSU:
		return "osu"
	case JSONLines:
		return "jsonl"
	case CSV:
		return "csv"
	}
	return "unknown"
}

var (
	imbMarkRE = regexp.MustCompile(`^#-?\s*(Benchmarking\s|#processes\s*=)|^#-{40}|MPI Benchmark|#repetitions|All processes entering MPI_Finalize`)
	osuMarkRE = regexp.MustCompile(`^#?\s*OSU\s+.+\s+Test\b`)
)

// Detect returns the format of a file's contents. mpbench's own files are
// known by their first non-blank line ("# format=mpbench-csv", or a JSON
// object of type "meta" with format "mpbench-jsonl"); IMB and OSU text by
// the first line that only one of them prints (IMB: banner, separator
// rule, "# Benchmarking", "#repetitions" heading, MPI_Finalize line; OSU:
// the "OSU ... Test" title), wherever it is in the file, after any
// launcher or shell noise.
func Detect(data []byte) Format {
	first := bytes.TrimSpace(data)
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = bytes.TrimSpace(first[:i])
	}
	switch {
	case bytes.HasPrefix(first, []byte("# format=mpbench-csv")):
		return CSV
	case bytes.HasPrefix(first, []byte("{")) && bytes.Contains(first, []byte(`"`+rowfile.JSONLFormat+`"`)):
		return JSONLines
	}
	for _, l := range textline.Lines(data) {
		// A CR inside a line ends a segment, as it ends a line in a
		// file with no LF at all: a mark is never read across one, so
		// the format does not depend on whether the file has an LF.
		for _, seg := range strings.Split(l, "\r") {
			t := strings.TrimSpace(seg)
			if t == "" {
				continue
			}
			if osuMarkRE.MatchString(t) {
				return OSU
			}
			if imbMarkRE.MatchString(t) {
				return IMB
			}
		}
	}
	return Unknown
}

// Read reads all of r, detects its format and returns its runs (all runs
// of IMB and OSU text in file order, whichever tool printed them); name
// names the input in errors, problems and Row.File. The error wraps
// ErrNotBenchmark when the text is in no known format, and is non-nil
// when r fails; runs that are truncated or aborted are returned with
// Run.Aborted set, not as errors.
func Read(r io.Reader, name string) ([]result.Run, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	var runs []result.Run
	switch Detect(data) {
	case IMB, OSU:
		runs, err = parseText(data, name)
	case JSONLines:
		runs, err = rowfile.ReadJSONL(bytes.NewReader(data), name)
	case CSV:
		runs, err = rowfile.ReadCSV(bytes.NewReader(data), name)
	default:
		return nil, fmt.Errorf("%s: %w", name, ErrNotBenchmark)
	}
	if errors.Is(err, imb.ErrNotIMB) || errors.Is(err, osu.ErrNotOSU) || err == nil && len(runs) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrNotBenchmark)
	}
	return runs, err
}

// part is the text of one tool within a file: the file's lines, those of
// other tools blanked, so that line numbers stay the file's.
type part struct {
	format Format
	data   []byte
}

// splitTools cuts IMB and OSU text into the parts of each tool, in file
// order: a part ends at the last line the tool printed ('#' lines and
// table rows) before the other tool's first marker (IMB's banner, rule,
// "# Benchmarking" line; OSU's title), and the lines in between (a
// launcher line, a shell prompt) go to the part that follows. Text of one
// tool is one part.
func splitTools(data []byte) []part {
	if bytes.IndexByte(data, '\n') < 0 && bytes.IndexByte(data, '\r') >= 0 {
		data = bytes.ReplaceAll(data, []byte{'\r'}, []byte{'\n'}) // as textline.Lines
	}
	raw := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	lines := textline.Lines(data)
	type cut struct {
		format Format
		start  int
	}
	var cuts []cut
	cur, lastOwn := Unknown, -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		f := Unknown
		switch {
		case osuMarkRE.MatchString(t):
			f = OSU
		case imbMarkRE.MatchString(t):
			f = IMB
		}
		switch {
		case f != Unknown && cur == Unknown:
			cuts, cur = append(cuts, cut{f, 0}), f
		case f != Unknown && f != cur:
			cuts, cur = append(cuts, cut{f, lastOwn + 1}), f
		}
		if t[0] == '#' || t[0] >= '0' && t[0] <= '9' {
			lastOwn = i
		}
	}
	if len(cuts) < 2 {
		return []part{{cur, data}}
	}
	out := make([]part, len(cuts))
	for i, c := range cuts {
		end := len(raw)
		if i+1 < len(cuts) {
			end = cuts[i+1].start
		}
		text := strings.Repeat("\n", c.start) + strings.Join(raw[c.start:end], "\n") + "\n"
		out[i] = part{c.format, []byte(text)}
	}
	return out
}

// parseText reads IMB and OSU text, each tool's part with its reader
// (splitTools): a log of an IMB run then an OSU run, or the reverse,
// gives all of them in file order. A part its reader finds no run in
// (a quoted marker) is left out when other parts have runs.
func parseText(data []byte, name string) ([]result.Run, error) {
	var runs []result.Run
	var firstErr error
	for _, p := range splitTools(data) {
		var rs []result.Run
		var err error
		if p.format == OSU {
			rs, err = osu.Parse(p.data, name)
		} else {
			rs, err = imb.Parse(p.data, name)
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
		runs = append(runs, rs...)
	}
	if len(runs) > 0 {
		return runs, nil
	}
	return nil, firstErr
}

// File reads the result file at path (see Read); problems and rows name
// the file by path.
func File(path string) ([]result.Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}
