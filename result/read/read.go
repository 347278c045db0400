// Package read is the entry point for reading any benchmark result file
// mpbench understands: it detects the format from the text among the
// formats registered with result.RegisterFormat and hands the file to that
// format's reader.
//
// Formats: IMB text output (result/imb, every IMB version and mpbench's own
// IMB-format output), OSU Micro-Benchmarks output (result/osu), and
// mpbench's JSON Lines and CSV result files (result/rowfile). A format's
// package registers it from init; this package imports each for that.
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
	"strings"

	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/internal/textline"

	// The formats, registered by their packages' init.
	_ "github.com/mpbench/mpbench/result/imb"
	_ "github.com/mpbench/mpbench/result/osu"
	_ "github.com/mpbench/mpbench/result/rowfile"
)

// ErrNotBenchmark is returned, wrapped as "<file>: not benchmark output
// (no benchmark table found)", when a file is in none of the registered
// formats (result.FormatTitles names them). The CLI maps it to exit
// status 2 (bad input).
var ErrNotBenchmark = errors.New("not benchmark output (no benchmark table found)")

// Detect returns the name of the registered format of a file's contents
// (result.Format.Name: "imb", "osu", "jsonl", "csv"), or "" when it is in
// none. A format with a Signature is known by the file's first non-blank
// line (mpbench's own files); a tool's text by the first line that only
// that tool prints (its Mark: IMB's banner, separator rule, "#
// Benchmarking", "#repetitions" heading, MPI_Finalize line; OSU's "OSU
// ... Test" title), wherever it is in the file, after any launcher or
// shell noise. Formats are asked in result.Formats' order.
func Detect(data []byte) string {
	first := bytes.TrimSpace(data)
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = bytes.TrimSpace(first[:i])
	}
	for _, f := range result.Formats() {
		if f.Signature != nil && f.Signature(first) {
			return f.Name
		}
	}
	for _, l := range textline.Lines(data) {
		// A CR inside a line ends a segment, as it ends a line in a
		// file with no LF at all: a mark is never read across one, so
		// the format does not depend on whether the file has an LF.
		for _, seg := range strings.Split(l, "\r") {
			if t := strings.TrimSpace(seg); t != "" {
				if name := markOf(t); name != "" {
					return name
				}
			}
		}
	}
	return ""
}

// markOf returns the name of the first registered format whose Mark line
// is, or "".
func markOf(line string) string {
	for _, f := range result.Formats() {
		if f.Mark != nil && f.Mark(line) {
			return f.Name
		}
	}
	return ""
}

// ErrTooLarge is returned, wrapped as "<file>: more than 256 MiB ...", for
// input longer than any benchmark output (a device such as /dev/zero, or a
// stream that does not end), instead of reading it until memory runs out.
// The CLI maps it to exit status 2 (bad input).
var ErrTooLarge = errors.New("more than 256 MiB, longer than any benchmark output: not a result file (a device or a stream that does not end?)")

// maxInput is the most bytes Read takes: 256 MiB, hundreds of times the
// output of a full IMB-MPI1 run (a few hundred KiB) and some 10^6 rows of
// a JSON Lines file. A variable so that tests can lower it.
var maxInput int64 = 256 << 20

// Read reads all of r, detects its format and returns its runs (all runs
// of IMB and OSU text in file order, whichever tool printed them); name
// names the input in errors, problems and Row.File. The error wraps
// ErrNotBenchmark when the text is in no known format, ErrTooLarge when r
// has more than 256 MiB, and is non-nil when r fails; runs that are
// truncated or aborted are returned with Run.Aborted set, not as errors.
func Read(r io.Reader, name string) ([]result.Run, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(data)) > maxInput {
		return nil, fmt.Errorf("%s: %w", name, ErrTooLarge)
	}
	f, ok := result.LookupFormat(Detect(data))
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, ErrNotBenchmark)
	}
	var runs []result.Run
	if f.Mark != nil {
		runs, err = parseText(data, name, f)
	} else {
		runs, err = f.Parse(data, name)
	}
	if err == nil && len(runs) == 0 || notFormat(err) {
		return nil, fmt.Errorf("%s: %w", name, ErrNotBenchmark)
	}
	return runs, err
}

// notFormat reports whether err says that a format's reader found no run
// of its format (result.Format.NotFormat).
func notFormat(err error) bool {
	for _, f := range result.Formats() {
		if f.NotFormat != nil && errors.Is(err, f.NotFormat) {
			return true
		}
	}
	return false
}

// part is the text of one tool within a file: the file's lines, those of
// other tools blanked, so that line numbers stay the file's. format is the
// tool's format name, "" when no line without a CR carries a mark.
type part struct {
	format string
	data   []byte
}

// splitTools cuts the text of tools (formats with a Mark: IMB, OSU) into
// the parts of each tool, in file order: a part ends at the last line the
// tool printed ('#' lines and table rows) before another tool's first
// marker (IMB's banner, rule, "# Benchmarking" line; OSU's title), and the
// lines in between (a launcher line, a shell prompt) go to the part that
// follows. Text of one tool is one part.
func splitTools(data []byte) []part {
	if bytes.IndexByte(data, '\n') < 0 && bytes.IndexByte(data, '\r') >= 0 {
		data = bytes.ReplaceAll(data, []byte{'\r'}, []byte{'\n'}) // as textline.Lines
	}
	raw := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	lines := textline.Lines(data)
	type cut struct {
		format string
		start  int
	}
	var cuts []cut
	cur, lastOwn := "", -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		f := markOf(t)
		switch {
		case f != "" && cur == "":
			cuts, cur = append(cuts, cut{f, 0}), f
		case f != "" && f != cur:
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

// parseText reads the text of tools, each tool's part with its format's
// Parse (splitTools): a log of an IMB run then an OSU run, or the
// reverse, gives all of them in file order. A part of no tool's mark
// (one found by Detect only after a CR) is read as detected, the format
// Detect found. A part its reader finds no run in (a quoted marker) is
// left out when other parts have runs.
func parseText(data []byte, name string, detected result.Format) ([]result.Run, error) {
	var runs []result.Run
	var firstErr error
	for _, p := range splitTools(data) {
		f, ok := result.LookupFormat(p.format)
		if !ok {
			f = detected
		}
		rs, err := f.Parse(p.data, name)
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
// the file by path. A regular file over 256 MiB is refused (ErrTooLarge)
// without being read.
func File(path string) ([]result.Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > maxInput {
		return nil, fmt.Errorf("%s: %w", path, ErrTooLarge) // without reading it
	}
	return Read(f, path)
}
