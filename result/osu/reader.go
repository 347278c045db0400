// Package osu reads the output of the OSU Micro-Benchmarks (OMB 3.x to
// 7.x) into result.Run values. See Read.
package osu

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/internal/textline"
)

// ErrNotOSU is returned (wrapped, with the input's name) when the input
// holds no OSU title line and no OSU column header.
var ErrNotOSU = errors.New("not OSU output (no benchmark table found)")

// Read reads OSU Micro-Benchmarks output from r and returns one
// result.Run per benchmark table (per title line, and per "# Datatype:"
// table of a multi-datatype run). name names the input in problems and in
// Row.File.
//
// Each Run has Meta.Tool "OSU", Meta.Version from the title ("5.3.2",
// "7.0-lrbison3", "" when the build printed none) and Meta.MByte =
// result.MB: OSU computes MB/s as bytes/1e6 per second (osu_bw.c:
// size / 1e6 * iterations * window / time). Rows have Benchmark set to the
// executable name derived from the title ("osu_latency", "osu_ialltoall"),
// Processes 2 for point-to-point tests, 2*pairs for osu_mbw_mr, for
// collectives (OSU prints no process count) the launcher's -np/-n when a
// launcher line precedes the title, else the ranks of a launcher's
// pinning report before it (Intel MPI's I_MPI_DEBUG table, Open MPI's
// --report-bindings), with Info["processes_inferred"] saying which; else
// -1. "# Key: value" lines around the title (Datatype, pairs
// and window size, window creation, synchronization, thread and process
// counts) go to Meta.Info; a launcher line naming an osu_ program goes to
// Meta.Command and its options (OSU names without '-': "m", "i", "x",
// "f", "z") to Meta.Options.
//
// Rows have Headline result.HeadlineAvg: OSU quotes "Avg Latency(us)" as
// a test's time, Min/Max (with -f) are further statistics.
//
// Lines outside every table that are not notable (job-scheduler mail,
// shell prompts, launcher banners, separators) are counted in one Problem
// "skipped N line(s) ..." per run: of the run they follow, or of the
// first run for lines before it.
//
// Column headers are parsed by known names (see knownCols), with or
// without the leading '#'. Lines that are not rows between rows (vendor
// warnings) become Problems; other lines after the last row of a table
// (dates, separators, shell output) are skipped unless they are errors.
// A run is Aborted when its last row is cut short, when an abort message
// follows it, or when the table stops below the largest size asked for:
// the -m maximum of the launcher line, else OMB's default maximum when
// the table started at OMB's default first size (0, 1 or 2 bytes).
//
// The error is non-nil only when r fails or the input holds no OSU
// output (ErrNotOSU).
func Read(r io.Reader, name string) ([]result.Run, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("osu: read %s: %w", name, err)
	}
	return Parse(data, name)
}

// Parse is Read on text already in memory.
func Parse(data []byte, name string) ([]result.Run, error) {
	p := &parser{name: name, info: map[string]string{}}
	for i, l := range textline.Lines(data) {
		p.line(l, i+1)
	}
	p.endRun()
	if len(p.runs) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrNotOSU)
	}
	return p.runs, nil
}

type parser struct {
	name string
	runs []result.Run
	cur  *table
	info map[string]string // "# Key: value" lines not yet given to a run
	cmd  string            // launcher line naming an osu_ program
	// skipped counts lines outside every table (before the first, after
	// each last row), reported once per run.
	skipped textline.Skipped
	// pinned is the process count a launcher's pinning report gives (the
	// highest rank + 1), pinLine its last line; 0 when none was seen.
	pinned, pinLine int
}

// table is the run being read.
type table struct {
	run       result.Run
	bench     string
	procs     int
	cols      []column
	rows      int
	first     int64
	last      int64
	lastLine  int
	notes     []result.Problem // lines after the last row, kept if rows follow
	noteText  []string         // their text
	partial   string
	partLine  int
	maxBytes  int64 // -m maximum from the command line, 0 unknown
	titleLine int
}

var (
	pairsRE = regexp.MustCompile(`\[\s*([A-Za-z ]+?)\s*:\s*(\d+)\s*\]`)
	kvRE    = regexp.MustCompile(`^#\s*([A-Za-z][A-Za-z ]*?)\s*:\s*(.+?)\.?\s*$`)
	npRE    = regexp.MustCompile(`(?:^|\s)(?:-np|--np|-n|--n|--ntasks|-c)(?:\s+|=)?(\d+)(?:\s|$)`)
)

func (p *parser) line(raw string, ln int) {
	t := strings.TrimSpace(raw)
	if t == "" {
		return
	}
	if rank, ok := textline.PinnedRank(t); ok {
		if ln > p.pinLine+1 {
			p.pinned = 0 // a new report
		}
		p.pinned, p.pinLine = max(p.pinned, rank+1), ln
	}
	if sm := titleRE.FindStringSubmatch(t); sm != nil {
		p.title(sm, ln)
		return
	}
	body := strings.TrimSpace(strings.TrimPrefix(t, "#"))
	c := p.cur
	if cols, ok := parseColumns(body); ok {
		if c == nil || c.cols != nil && c.rows > 0 {
			p.endRun()
			c = p.newRun(ln, "", "")
			p.problem(c, ln, "column header without an OSU title line")
		}
		c.cols = cols
		return
	}
	if t[0] == '#' {
		p.hashLine(body, ln)
		return
	}
	if c != nil && c.cols != nil {
		if f := strings.Fields(t); isNumber(f[0]) || c.partial != "" {
			p.row(c, t, ln)
			return
		}
	}
	p.foreign(t, ln)
}

// hashLine handles '#' lines other than titles and headers.
func (p *parser) hashLine(body string, ln int) {
	c := p.cur
	if strings.HasPrefix(strings.ToLower(body), "datatype:") && c != nil && c.rows > 0 {
		// OMB 7 with several datatypes (-T): one table per datatype.
		meta, bench, procs := c.run.Meta, c.bench, c.procs
		p.endRun()
		c = p.newRun(ln, "", "")
		c.run.Meta, c.bench, c.procs = meta, bench, procs
		c.run.Meta.Info = copyMap(meta.Info)
	}
	info := p.info
	if c != nil && c.rows == 0 {
		info = c.run.Meta.Info
	}
	if ms := pairsRE.FindAllStringSubmatch(body, -1); ms != nil {
		for _, m := range ms {
			info[infoKey(m[1])] = m[2]
		}
		if c != nil && c.rows == 0 && c.bench == "osu_mbw_mr" {
			if n, err := strconv.Atoi(info["pairs"]); err == nil {
				c.procs = 2 * n
			}
		}
		return
	}
	if m := kvRE.FindStringSubmatch("# " + body); m != nil {
		info[infoKey(m[1])] = m[2]
	}
}

func infoKey(k string) string {
	k = strings.ToLower(strings.Join(strings.Fields(k), "_"))
	return strings.TrimPrefix(k, "number_of_")
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// title starts a run at an OSU title line.
func (p *parser) title(sm []string, ln int) {
	p.endRun()
	p.newRun(ln, sm[1], sm[2])
}

func (p *parser) newRun(ln int, desc, version string) *table {
	c := &table{procs: -1, titleLine: ln, lastLine: ln}
	m := &c.run.Meta
	m.Tool, m.Version, m.MByte = "OSU", version, result.MB
	m.Info = p.info
	p.info = map[string]string{}
	if desc != "" {
		var known bool
		c.bench, known = benchName(desc)
		m.Info["title"] = desc
		if !known {
			p.problem(c, ln, "unknown OSU benchmark title "+textline.Quote(desc)+", named "+c.bench)
		}
	}
	if pointToPoint[c.bench] {
		c.procs = 2
	}
	if p.cmd != "" {
		p.setCommand(c, p.cmd)
		p.cmd = ""
	}
	if c.procs < 0 && p.pinned > 0 {
		c.procs = p.pinned
		m.Info["processes_inferred"] = fmt.Sprintf("%d, the ranks of the launcher's pinning report ending at line %d", p.pinned, p.pinLine)
	}
	p.cur = c
	return c
}

// isOSUProgram reports whether base is an OMB executable name.
func isOSUProgram(base string) bool { return strings.HasPrefix(base, "osu_") }

// setCommand records a launcher line naming an osu_ program.
func (p *parser) setCommand(c *table, line string) {
	_, before, args, ok := textline.Command(line, isOSUProgram)
	if !ok {
		return
	}
	c.run.Meta.Command = line
	opts, _ := textline.Options(args)
	if len(opts) > 0 {
		c.run.Meta.Options = opts
	}
	if m := opts["m"]; m != "" {
		hi := m[strings.IndexByte(m, ':')+1:]
		if n, err := strconv.ParseInt(hi, 10, 64); err == nil {
			c.maxBytes = n
		}
	}
	if c.procs < 0 {
		if sm := npRE.FindStringSubmatch(" " + strings.Join(before, " ") + " "); sm != nil {
			c.procs, _ = strconv.Atoi(sm[1])
			c.run.Meta.Info["processes_inferred"] = sm[1] + ", the launcher's " + strings.TrimSpace(sm[0])
		}
	}
}

func (p *parser) problem(c *table, ln int, msg string) {
	c.run.Problems = append(c.run.Problems, result.Problem{File: p.name, Line: ln, Msg: msg})
}

// foreign handles a line that is neither title, header, '#' line nor row.
func (p *parser) foreign(t string, ln int) {
	if _, _, _, ok := textline.Command(t, isOSUProgram); ok && (p.cur == nil || p.cur.rows > 0) {
		p.cmd = t
		return
	}
	c := p.cur
	if c == nil {
		p.skipped.Add(t, ln)
		return
	}
	if textline.IsAbort(t) {
		c.run.Aborted = true
		p.problem(c, ln, c.bench+": abort: "+textline.Quote(t))
		return
	}
	msg := c.bench + ": unexpected text: " + textline.Quote(t)
	if c.rows > 0 {
		if textline.IsNotable(t) {
			p.problem(c, ln, msg)
			return
		}
		c.notes = append(c.notes, result.Problem{File: p.name, Line: ln, Msg: c.bench + ": unexpected text between rows: " + textline.Quote(t)})
		c.noteText = append(c.noteText, t)
		return
	}
	p.problem(c, ln, msg)
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// row parses a table line.
func (p *parser) row(c *table, t string, ln int) {
	c.run.Problems = append(c.run.Problems, c.notes...)
	c.notes, c.noteText = nil, nil
	if c.partial != "" {
		joined := c.partial + " " + t
		if len(strings.Fields(joined)) == len(c.cols) {
			t, ln = joined, c.partLine
		} else {
			p.problem(c, c.partLine, c.bench+": incomplete row "+textline.Quote(c.partial))
		}
		c.partial = ""
	}
	f := strings.Fields(t)
	if len(f) < len(c.cols) {
		c.partial, c.partLine = t, ln
		return
	}
	if len(f) > len(c.cols) {
		p.problem(c, ln, fmt.Sprintf("%s: row has %d values, the header %d: %s", c.bench, len(f), len(c.cols), textline.Quote(t)))
		return
	}
	row := result.NewRow(c.bench, c.procs, -1)
	row.Headline = result.HeadlineAvg // OSU's headline is the average latency
	for i, col := range c.cols {
		if col.kind == colValidation {
			pass := strings.EqualFold(f[i], "pass")
			if !pass {
				p.problem(c, ln, c.bench+": validation "+textline.Quote(f[i])+" at "+f[0]+" bytes")
			}
			row.SetExtra("Validation", b2f(pass))
			continue
		}
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			p.problem(c, ln, fmt.Sprintf("%s: column %s: not a number: %q", c.bench, col.name, f[i]))
			return
		}
		switch col.kind {
		case colSize:
			row.Bytes = int64(v)
		case colIters:
			row.Repetitions = int64(v)
		case colTAvg:
			row.TAvg = v
		case colTMin:
			row.TMin = v
		case colTMax:
			row.TMax = v
		case colMBps:
			row.MBps = v
		case colMsgRate:
			row.MsgRate = v
		default:
			row.SetExtra(col.name, v)
		}
	}
	row.File, row.Line = p.name, ln
	if c.rows == 0 {
		c.first = row.Bytes
	}
	c.last = row.Bytes
	c.rows++
	c.lastLine = ln
	c.run.Rows = append(c.run.Rows, row)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// endRun completes the current run: a cut last row, a table stopping
// below the expected largest size, an empty table.
func (p *parser) endRun() {
	c := p.cur
	if c == nil {
		return
	}
	p.cur = nil
	for i, n := range c.notes {
		if textline.IsNotable(c.noteText[i]) {
			c.run.Problems = append(c.run.Problems, n)
		} else {
			p.skipped.Add(c.noteText[i], n.Line)
		}
	}
	c.run.Problems = p.skipped.Flush(c.run.Problems, p.name)
	switch {
	case c.partial != "":
		c.run.Aborted = true
		p.problem(c, c.partLine, fmt.Sprintf("%s: row cut short %s (%d of %d values): output ends inside the table",
			c.bench, textline.Quote(c.partial), len(strings.Fields(c.partial)), len(c.cols)))
	case c.rows == 0:
		c.run.Aborted = true
		p.problem(c, c.lastLine, c.bench+": no rows after the title (cut or failed run)")
	case c.cols[0].kind == colSize:
		want, why := c.maxBytes, "the -m maximum"
		if want == 0 && c.first <= 2 {
			want, why = defaultMaxBytes(c.bench), "OSU's default maximum"
		}
		if c.last < want {
			c.run.Aborted = true
			p.problem(c, c.lastLine, fmt.Sprintf("%s: table ends at %d bytes, below %s %d (cut, crashed or hung run)", c.bench, c.last, why, want))
		}
	}
	if c.run.Aborted {
		c.run.Meta.Info["aborted_benchmark"] = c.bench
	}
	if len(c.run.Meta.Info) == 0 {
		c.run.Meta.Info = nil
	}
	sort.SliceStable(c.run.Problems, func(i, j int) bool { return c.run.Problems[i].Line < c.run.Problems[j].Line })
	p.runs = append(p.runs, c.run)
}
