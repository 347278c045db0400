// Package imb reads and writes the text output of the Intel MPI
// Benchmarks. The reader (Read, Parse) turns IMB output of any version
// into result.Run values; the Writer prints mpbench results in IMB-MPI1's
// layout.
package imb

import (
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/internal/textline"
)

// ErrNotIMB is returned (wrapped, with the input's name) by Read and Parse
// when the input holds nothing IMB prints: no banner, no "# Benchmarking"
// section, no column heading.
var ErrNotIMB = errors.New("not IMB output (no benchmark table found)")

// Read reads the text output of the Intel MPI Benchmarks (IMB-MPI1,
// IMB-EXT, IMB-NBC, IMB-RMA, IMB-IO, IMB-P2P, IMB-MT; versions 2.x to
// 2021.x, Pallas PMB, and mpbench's own IMB-format output) from r and
// returns one result.Run per run found. name names the input in problems
// and in Row.File.
//
// What is read:
//   - the banner (tool, version and so Meta.MByte, see VersionMByte),
//     the "# Key : value" header fields (Meta.Date, Meta.Info), the calling
//     sequence (Meta.Command, Meta.Options by IMB option name, wrapped
//     continuation lines joined), the list of benchmarks (Info["benchmarks"]);
//   - each "# Benchmarking X" or "#- Benchmarking X" section: "Multi-"
//     prefix, "# #processes = N", "( G groups of N processes ...)", Group
//     lines, "( k additional processes waiting in MPI_Barrier)"
//     (Row.Idle; Info["world_size"] = largest processes*groups+idle), IMB-EXT's
//     "MODE: AGGREGATE|NON-AGGREGATE" (Row.Extra["aggregate"] = 1 or 0);
//   - the table, whose columns are mapped by heading token, never by
//     position (see readerColTokens): rows of every IMB layout, Barrier
//     without #bytes (Row.Bytes = -1), the leading Group column of -multi 1,
//     -DCHECK's defects column, IMB-NBC/RMA columns into Row.Extra, and
//     PerfKitBenchmarker's "[ ... ]" tail-latency lines (Row.Extra
//     "tail_p50" ...).
//
// Lines outside every run that are not notable (job-scheduler mail, shell
// prompts, launcher banners, checksums) are counted in one Problem
// "skipped N line(s) ..." per run: of the run they follow, or of the first
// run for lines before it.
//
// Noise is tolerated and reported: CRLF, tag-output/timestamp prefixes,
// text glued before a '#' separator, spreadsheet pastes (tabs, appended
// line numbers), shell and launcher lines (a launcher line naming the IMB
// program fills Meta.Command when IMB's own echo is missing). Foreign lines
// inside a run become one result.Problem per block of consecutive lines,
// with the block's first line; rows around them are kept. Failed samples
// ("time-out.", "out-of-mem.", "int-overflow.") become a Problem and no row.
// Error and warning lines before or after a run become Problems too.
//
// A run without "# All processes entering MPI_Finalize" (truncated file,
// crash, hang), or whose text contains an abort message, is Aborted; the
// benchmark it stopped in is named in a Problem and in
// Info["aborted_benchmark"]. A new banner starts a new Run, so
// concatenated logs give several runs.
//
// The error is non-nil only when r fails or the input is not IMB output at
// all (ErrNotIMB): no run has an IMB banner (title, or the rule of dashes
// on a line of its own) or a table row, whatever IMB markers the text
// quotes. A run with a banner but cut before its first
// table (a crash, or a log ending right after the banner) is IMB output
// that ended early: it is returned Aborted.
func Read(r io.Reader, name string) ([]result.Run, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("imb: read %s: %w", name, err)
	}
	return Parse(data, name)
}

// Parse is Read on text already in memory. Scanner reads the same text
// while it is being written, with the same parser.
func Parse(data []byte, name string) ([]result.Run, error) {
	p := &readerParser{name: name}
	for i, l := range textline.Lines(data) {
		p.line(l, i+1)
	}
	return p.end()
}

// end ends the input and returns the runs read.
func (p *readerParser) end() ([]result.Run, error) {
	p.endInput()
	if !p.real {
		// Text quoting IMB's markers (a list of files, a report) without a
		// banner or a table row is not IMB output.
		return nil, fmt.Errorf("%s: %w", p.name, ErrNotIMB)
	}
	return p.runs, nil
}

// readerParser holds the state of one Parse call.
type readerParser struct {
	name string
	runs []result.Run
	cur  *readerRun
	pre  []result.Problem // notable lines met before the first run
	cmd  string           // launcher line naming IMB, not yet given to a run
	// real is set once a run has an IMB banner (its title, or its rule
	// line of dashes alone) or a table row: IMB output, even when cut
	// right after the banner.
	real    bool
	skipped textline.Skipped // lines outside any run, for the next run
}

// readerRun is a run being read.
type readerRun struct {
	run       result.Run
	banner    bool
	rule      bool // started at a line of IMB's banner rule alone
	finalized bool
	callSeq   int // 0: not in the calling sequence; 1: argv line expected; 2: argv seen
	inList    bool
	listed    []string
	sec       *readerSection
	sections  int
	world     int
	noise     []readerNoise
	lastLine  int
}

// readerSection is the "# Benchmarking" section being read.
type readerSection struct {
	name        string
	line        int
	multi       bool
	processes   int
	groups      int
	idle        int
	aggregate   int // -1 unknown, 0 NON-AGGREGATE, 1 AGGREGATE
	cols        *readerColumns
	rows        int
	lastRow     int // index in run.Rows of the section's last row, -1 none
	partial     []string
	partialLine int
	algs        []readerAlg // from mpbench's "# Algorithm:" line
	spread      int         // mpbench's --percentiles block: 0 none, 1 title seen, 2 columns seen
	spreadGroup bool        // the block has a Group column (-multi 1)
}

// readerAlg is one entry of an "# Algorithm:" line: the algorithm of the
// sizes lo..hi (every size when all is set).
type readerAlg struct {
	name   string
	lo, hi int64
	all    bool
}

// readerNoise is one unrecognised line.
type readerNoise struct {
	text string
	line int
}

var (
	readerBenchRE     = regexp.MustCompile(`^#-?\s*Benchmarking\s+([A-Za-z][A-Za-z0-9_-]*)(?:\s|$)`)
	readerProcsRE     = regexp.MustCompile(`^#-?\s*#processes\s*=\s*(\d+)`)
	readerGroupsRE    = regexp.MustCompile(`^#-?\s*\(\s*(\d+)\s+groups?\s+of\s+(\d+)\s+process`)
	readerIdleRE      = regexp.MustCompile(`^#-?\s*\(\s*(\d+)\s+additional\s+process`)
	readerGroupLineRE = regexp.MustCompile(`^#\s*Group\s+\d+\s*:`)
	readerModeRE      = regexp.MustCompile(`^#\s*MODE:\s*(\S+)`)
	readerAlgRE       = regexp.MustCompile(`^#\s*Algorithm:\s*(.*\S)`)
	readerAlgSpanRE   = regexp.MustCompile(`^(\S+)\s+\((\d+)-(\d+) bytes\)$`)
)

// readerParseAlgs reads mpbench's "# Algorithm:" value: "binomial", or
// ranges "recursive_doubling (0-2048 bytes), rabenseifner (4096-4194304
// bytes)". Unrecognised entries are skipped.
func readerParseAlgs(v string) []readerAlg {
	var out []readerAlg
	for _, item := range strings.Split(v, ", ") {
		item = strings.TrimSpace(item)
		if sm := readerAlgSpanRE.FindStringSubmatch(item); sm != nil {
			lo, _ := strconv.ParseInt(sm[2], 10, 64)
			hi, _ := strconv.ParseInt(sm[3], 10, 64)
			out = append(out, readerAlg{name: sm[1], lo: lo, hi: hi})
		} else if !strings.ContainsAny(item, " ()") && item != "" {
			out = append(out, readerAlg{name: item, all: true})
		}
	}
	return out
}

// algorithm returns the section's algorithm for a row of bytes ("" when
// unknown).
func (s *readerSection) algorithm(bytes int64) string {
	for _, a := range s.algs {
		if a.all || (bytes >= a.lo && bytes <= a.hi) {
			return a.name
		}
	}
	return ""
}

// readerGlued are markers found after junk glued at the start of a line.
var readerGlued = []string{"#---", "# Benchmarking", "#- Benchmarking", "# #processes", "# All processes entering"}

func (p *readerParser) problem(r *readerRun, line int, msg string) {
	r.run.Problems = append(r.run.Problems, result.Problem{File: p.name, Line: line, Msg: msg})
}

// line handles one cleaned input line.
func (p *readerParser) line(raw string, ln int) {
	t := strings.TrimSpace(raw)
	if t == "" {
		if p.cur != nil {
			p.flushNoise(p.cur)
		}
		return
	}
	if p.cur != nil && !p.cur.finalized {
		p.cur.lastLine = ln
	}
	if j := readerGluedAt(t); j > 0 {
		// IMB-IO 2021 prints "MPI-IO partn" (missing backslash), gluing the
		// banner to the separator; a paste may keep only "partn".
		if head := strings.TrimSpace(t[:j]); head != "partn" {
			p.line(head, ln)
		}
		t = t[j:]
	}
	fields := strings.Fields(t)
	if readerIsHeading(fields) {
		p.heading(fields, ln)
		return
	}
	if t[0] == '#' {
		p.hashLine(t, ln)
		return
	}
	if r := p.cur; r != nil && !r.finalized && r.sec != nil && r.sec.cols != nil {
		if readerIsNumber(fields[0]) {
			p.row(r, t, fields, ln)
			return
		}
		if vals, ok := readerParseTail(t); ok && r.sec.lastRow >= 0 && r.sec.partial == nil {
			p.flushNoise(r)
			readerTailExtra(&r.run.Rows[r.sec.lastRow], vals)
			return
		}
	}
	p.foreign(t, ln)
}

// readerGluedAt returns the index > 0 of a marker glued after junk at the
// start of t, or 0.
func readerGluedAt(t string) int {
	best := 0
	for _, m := range readerGlued {
		if j := strings.Index(t, m); j > 0 && (best == 0 || j < best) {
			best = j
		}
	}
	if best > 0 && t[0] == '#' && !strings.HasPrefix(t[best:], "#---") {
		return 0 // "# ... # Benchmarking" inside a comment: leave it
	}
	return best
}

// ensureRun returns the run that a structural IMB line at ln belongs to,
// starting one when none is open.
func (p *readerParser) ensureRun(ln int) *readerRun {
	if p.cur != nil && !p.cur.finalized {
		return p.cur
	}
	p.pushRun()
	r := &readerRun{lastLine: ln}
	r.run.Problems = append(r.run.Problems, p.pre...)
	p.pre = nil
	if p.cmd != "" {
		readerSetCommand(&r.run.Meta, p.cmd)
		p.cmd = ""
	}
	p.cur = r
	return r
}

// foreign handles a line that is not IMB text.
func (p *readerParser) foreign(t string, ln int) {
	r := p.cur
	if r == nil || r.finalized {
		if _, _, _, ok := textline.Command(t, readerIsIMBProgram); ok {
			p.cmd = t
			return
		}
		if !textline.IsNotable(t) {
			p.skipped.Add(t, ln)
			return
		}
		if r == nil {
			p.pre = append(p.pre, result.Problem{File: p.name, Line: ln, Msg: "before the IMB output: " + textline.Quote(t)})
			return
		}
		p.problem(r, ln, "after MPI_Finalize: "+textline.Quote(t))
		return
	}
	if r.sections == 0 && r.run.Meta.Command == "" && readerSetCommand(&r.run.Meta, t) {
		return
	}
	r.noise = append(r.noise, readerNoise{t, ln})
}

// flushNoise turns the pending block of foreign lines into one Problem.
func (p *readerParser) flushNoise(r *readerRun) {
	if len(r.noise) == 0 {
		return
	}
	block := r.noise
	r.noise = nil
	at := block[0]
	msg := "unexpected text: "
	for _, n := range block {
		if textline.IsAbort(n.text) {
			at = n
			msg = "abort: "
			r.run.Aborted = true
			if r.sec != nil {
				readerSetInfo(&r.run.Meta, "aborted_benchmark", r.sec.name)
			}
			break
		}
	}
	msg += textline.Quote(at.text)
	if len(block) > 1 {
		msg += fmt.Sprintf(" (%d lines, %d to %d)", len(block), block[0].line, block[len(block)-1].line)
	}
	if s := r.sec; s != nil {
		where := "in section"
		if s.rows > 0 {
			where = "between rows"
		}
		msg = s.name + ": " + where + ": " + msg
	}
	p.problem(r, at.line, msg)
}

// hashLine handles a line starting with '#'.
func (p *readerParser) hashLine(t string, ln int) {
	if strings.HasPrefix(t, "#---") {
		if (p.cur == nil || p.cur.finalized) && strings.HasPrefix(t, "#"+strings.Repeat("-", 40)) {
			// An IMB banner rule (51 to 77 dashes): output starts here.
			p.ensureRun(ln).rule = strings.Trim(t, "#-") == ""
		}
		if r := p.cur; r != nil && !r.finalized {
			p.flushNoise(r)
			r.callSeq, r.inList = 0, false
		}
		return
	}
	if sm := readerBannerRE.FindStringSubmatch(t); sm != nil {
		p.bannerLine(sm, ln)
		return
	}
	if sm := readerMpbenchBannerRE.FindStringSubmatch(t); sm != nil {
		p.bannerLine(sm, ln)
		return
	}
	if sm := readerBenchRE.FindStringSubmatch(t); sm != nil {
		p.section(sm[1], ln)
		return
	}
	if sm := readerProcsRE.FindStringSubmatch(t); sm != nil {
		s := p.sectionFor(ln)
		s.processes, _ = strconv.Atoi(sm[1])
		return
	}
	if sm := readerGroupsRE.FindStringSubmatch(t); sm != nil {
		s := p.sectionFor(ln)
		s.groups, _ = strconv.Atoi(sm[1])
		s.processes, _ = strconv.Atoi(sm[2])
		s.multi = true
		return
	}
	if sm := readerIdleRE.FindStringSubmatch(t); sm != nil {
		s := p.sectionFor(ln)
		s.idle, _ = strconv.Atoi(sm[1])
		return
	}
	if strings.Contains(t, "All processes entering MPI_Finalize") {
		p.finalize(ln)
		return
	}
	if strings.Contains(t, "Calling sequence was") {
		r := p.ensureRun(ln)
		p.flushNoise(r)
		r.callSeq = 1
		return
	}
	if strings.Contains(t, "List of Benchmarks to run") {
		r := p.ensureRun(ln)
		p.flushNoise(r)
		r.callSeq, r.inList = 0, true
		return
	}
	r := p.cur
	if r == nil || r.finalized {
		if strings.Contains(t, "message length in bytes") || strings.Contains(t, "lengths were user defined") {
			r = p.ensureRun(ln)
		} else if _, _, _, ok := textline.Command(t, readerIsIMBProgram); ok {
			r = p.ensureRun(ln)
		} else {
			p.skipped.Add(t, ln)
			return
		}
	}
	p.flushNoise(r)
	if r.sec != nil || r.sections > 0 {
		if r.sec != nil {
			if readerGroupLineRE.MatchString(t) {
				return
			}
			if sm := readerAlgRE.FindStringSubmatch(t); sm != nil {
				r.sec.algs = readerParseAlgs(sm[1])
				return
			}
			if p.spreadLine(r, t, ln) {
				return
			}
			if sm := readerModeRE.FindStringSubmatch(t); sm != nil {
				r.sec.aggregate = 0
				if strings.EqualFold(sm[1], "AGGREGATE") {
					r.sec.aggregate = 1
				}
			}
		}
		return // other comments inside sections
	}
	p.headerLine(r, t)
}

// headerLine handles a '#' line of the header block (before the first
// section).
func (p *readerParser) headerLine(r *readerRun, t string) {
	body := strings.TrimSpace(strings.TrimLeft(t, "#"))
	m := &r.run.Meta
	switch {
	case r.callSeq == 1:
		if body == "" {
			return
		}
		if !readerSetCommand(m, body) {
			m.Command = body
		}
		r.callSeq = 2
		return
	case r.callSeq == 2 && strings.HasPrefix(t, "#     ") && body != "":
		readerSetCommand(m, m.Command+" "+body)
		return
	}
	r.callSeq = 0
	switch {
	case body == "":
	case strings.Contains(body, "lengths were user defined"):
		readerSetInfo(m, "msglen", "user defined")
	case r.inList && len(strings.Fields(body)) == 1 && !strings.Contains(body, ":"):
		r.listed = append(r.listed, strings.TrimPrefix(body, "(Multi-)"))
	case readerHeaderKV(m, t):
	case m.Command == "":
		readerSetCommand(m, body)
	}
}

func readerSetInfo(m *result.Meta, k, v string) {
	if m.Info == nil {
		m.Info = map[string]string{}
	}
	m.Info[k] = v
}

// bannerLine starts a run at an IMB banner title.
func (p *readerParser) bannerLine(sm []string, ln int) {
	if r := p.cur; r != nil && !r.finalized && (r.banner || r.sections > 0) {
		p.endRun(r, ln, fmt.Sprintf("run ends without \"# All processes entering MPI_Finalize\"; a new run starts at line %d", ln))
	}
	r := p.ensureRun(ln)
	p.flushNoise(r)
	r.banner = true
	readerApplyBanner(&r.run.Meta, sm)
}

// sectionFor returns the current section, starting an unnamed one if a
// section line comes without "# Benchmarking".
func (p *readerParser) sectionFor(ln int) *readerSection {
	r := p.ensureRun(ln)
	if r.sec == nil {
		p.section("", ln)
		p.problem(r, ln, "table without a \"# Benchmarking\" line")
	}
	return r.sec
}

// section starts a "# Benchmarking" section.
func (p *readerParser) section(name string, ln int) {
	r := p.ensureRun(ln)
	p.flushNoise(r)
	p.closeSection(r, false)
	s := &readerSection{name: name, line: ln, aggregate: -1, lastRow: -1}
	if strings.HasPrefix(name, "Multi-") {
		s.name = strings.TrimPrefix(name, "Multi-")
		s.multi = true
	}
	r.sec = s
	r.sections++
	r.callSeq, r.inList = 0, false
}

// heading handles a column heading line.
func (p *readerParser) heading(fields []string, ln int) {
	s := p.sectionFor(ln)
	r := p.cur
	p.flushNoise(r)
	p.closePartial(r, s, false)
	s.cols = readerParseHeading(fields)
}

// closePartial reports a row left incomplete.
func (p *readerParser) closePartial(r *readerRun, s *readerSection, eof bool) {
	if s.partial == nil {
		return
	}
	msg := fmt.Sprintf("%s: incomplete row %s (%d of %d values)", s.name,
		textline.Quote(strings.Join(s.partial, " ")), len(s.partial), len(s.cols.kinds))
	if eof {
		msg = fmt.Sprintf("%s: row cut short %s (%d of %d values): output ends inside the table", s.name,
			textline.Quote(strings.Join(s.partial, " ")), len(s.partial), len(s.cols.kinds))
		r.run.Aborted = true
		readerSetInfo(&r.run.Meta, "aborted_benchmark", s.name)
	}
	p.problem(r, s.partialLine, msg)
	s.partial = nil
}

// closeSection ends the current section.
func (p *readerParser) closeSection(r *readerRun, eof bool) {
	s := r.sec
	if s == nil {
		return
	}
	p.closePartial(r, s, eof)
	if s.rows == 0 && !eof {
		p.problem(r, s.line, s.name+": section has no rows")
	}
	g := max(s.groups, 1)
	r.world = max(r.world, s.processes*g+s.idle)
	r.sec = nil
}

// row handles a table line under the current section's heading.
func (p *readerParser) row(r *readerRun, t string, fields []string, ln int) {
	s := r.sec
	p.flushNoise(r)
	if f := readerFailure(t); f != "" {
		p.closePartial(r, s, false)
		p.problem(r, ln, fmt.Sprintf("%s: failed sample %s: %s", s.name, textline.Quote(strings.Join(strings.Fields(t[:strings.Index(t, f)]), " ")), f))
		return
	}
	want := len(s.cols.kinds)
	if s.partial != nil {
		if len(s.partial)+len(fields) == want {
			fields = append(s.partial, fields...)
			ln = s.partialLine
			s.partial = nil
		} else {
			p.closePartial(r, s, false)
		}
	}
	n := len(fields)
	if s.cols.rowNumbers && n == want+1 && readerAllDigits(fields[n-1]) {
		fields, n = fields[:want], want
	}
	if n < want {
		s.partial, s.partialLine = fields, ln
		return
	}
	if n > want {
		p.problem(r, ln, fmt.Sprintf("%s: row has %d values, the heading %d: %s", s.name, n, want, textline.Quote(t)))
		return
	}
	procs := s.processes
	if procs == 0 {
		procs = -1
	}
	row := result.NewRow(s.name, procs, -1)
	if s.multi {
		row.Multi = result.MultiWorst
		if s.cols.hasGroup {
			row.Multi = result.MultiEach
		}
		if s.groups > 0 {
			row.Groups = s.groups
		}
	}
	row.Idle = s.idle
	if msg := readerFillRow(&row, s.cols, fields); msg != "" {
		p.problem(r, ln, s.name+": "+msg)
		return
	}
	if s.aggregate >= 0 {
		row.SetExtra("aggregate", float64(s.aggregate))
	}
	row.Algorithm = s.algorithm(row.Bytes)
	row.File, row.Line = p.name, ln
	r.run.Rows = append(r.run.Rows, row)
	s.rows++
	s.lastRow = len(r.run.Rows) - 1
}

// finalize handles "# All processes entering MPI_Finalize".
func (p *readerParser) finalize(ln int) {
	r := p.ensureRun(ln)
	p.flushNoise(r)
	p.closeSection(r, false)
	r.finalized = true
	r.lastLine = ln
}

// endInput ends the last run at the end of the input.
func (p *readerParser) endInput() {
	if r := p.cur; r != nil && !r.finalized {
		p.endRun(r, r.lastLine, "output ends without \"# All processes entering MPI_Finalize\" (cut, crashed or hung run)")
	}
	p.pushRun()
}

// endRun ends run r, which lacks its MPI_Finalize line, as aborted.
func (p *readerParser) endRun(r *readerRun, ln int, why string) {
	p.flushNoise(r)
	r.run.Aborted = true
	switch {
	case r.sec != nil:
		s := r.sec
		readerSetInfo(&r.run.Meta, "aborted_benchmark", s.name)
		why = fmt.Sprintf("%s: %s, after %d rows of its table", s.name, why, s.rows)
		p.closeSection(r, true)
	case r.sections == 0:
		why = "no benchmark table: " + why
		if len(r.listed) > 0 {
			why += " before " + strings.Join(r.listed, ", ")
			readerSetInfo(&r.run.Meta, "aborted_benchmark", r.listed[0])
		}
	}
	p.problem(r, ln, why)
	r.finalized = true
}

// pushRun completes the current run's metadata and adds it to the result.
func (p *readerParser) pushRun() {
	r := p.cur
	if r == nil {
		return
	}
	p.cur = nil
	r.run.Problems = p.skipped.Flush(r.run.Problems, p.name)
	p.real = p.real || r.banner || r.rule || len(r.run.Rows) > 0
	m := &r.run.Meta
	if len(r.listed) > 0 {
		readerSetInfo(m, "benchmarks", strings.Join(r.listed, ","))
	}
	if r.world > 0 {
		readerSetInfo(m, "world_size", strconv.Itoa(r.world))
	}
	if v := m.Info["mpbench_version"]; v != "" {
		// mpbench's IMB-format output (result/imb Writer): its own tool,
		// version, transport and Mbyte definition.
		readerSetInfo(m, "imb_version", m.Version)
		m.Tool, m.Version, m.Transport = "mpbench", v, m.Info["transport"]
		if f := strings.Fields(m.Info["mbyte"]); len(f) > 0 {
			if b, err := strconv.ParseFloat(f[0], 64); err == nil && b > 0 {
				m.MByte = b
			}
		}
	}
	if m.Tool == "" {
		m.Tool = "IMB"
	}
	if m.MByte == 0 {
		mb, known := VersionMByte(m.Version)
		m.MByte = mb
		if !known {
			for _, row := range r.run.Rows {
				if !math.IsNaN(row.MBps) {
					p.problem(r, row.Line, "IMB version unknown (no banner): Mbytes/sec read as 10^6 bytes/s (IMB 2018 and later); IMB 2017 and older used 2^20")
					break
				}
			}
		}
	}
	sort.SliceStable(r.run.Problems, func(i, j int) bool { return r.run.Problems[i].Line < r.run.Problems[j].Line })
	p.runs = append(p.runs, r.run)
}
