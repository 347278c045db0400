package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/result"
)

// Section is one titled part of a run's report: sentences and tables in
// reading order.
type Section struct {
	Title string
	Parts []Part
}

// Part is a sentence (Table nil) or a table.
type Part struct {
	Text  string
	Table *analysis.Table
}

// line appends a sentence.
func (s *Section) line(format string, args ...any) {
	s.Parts = append(s.Parts, Part{Text: fmt.Sprintf(format, args...)})
}

// table appends a table.
func (s *Section) table(t analysis.Table) { s.Parts = append(s.Parts, Part{Table: &t}) }

// Tables returns the section's tables in order.
func (s Section) Tables() []analysis.Table {
	var out []analysis.Table
	for _, p := range s.Parts {
		if p.Table != nil {
			out = append(out, *p.Table)
		}
	}
	return out
}

// Heading is the run's one-line description: tool, version, the Mbyte
// of its bandwidth columns (the one its numbers check against when that is
// not the one its version implies), host and date as far as known.
func (r RunReport) Heading() string {
	parts := []string{r.Label() + ":"}
	tool := strings.TrimSpace(r.Meta.Tool + " " + r.Meta.Version)
	if tool != "" {
		parts = append(parts, tool)
	}
	if r.CheckedMByte != 0 && r.CheckedMByte != r.Meta.MByte {
		parts = append(parts, "(Mbytes/sec in "+MByteName(r.CheckedMByte)+" as its numbers check, not the "+MByteName(r.Meta.MByte)+" its version implies)")
	} else {
		parts = append(parts, "(Mbytes/sec in "+MByteName(r.Meta.MByte)+")")
	}
	if r.Meta.Host != "" {
		parts = append(parts, "host "+r.Meta.Host)
	}
	if r.Meta.Date != "" {
		parts = append(parts, r.Meta.Date)
	}
	if r.Aborted {
		parts = append(parts, "[run ended early]")
	}
	return strings.Join(parts, " ")
}

// MByteName names an Mbyte: "MB = 10^6 B" or "MiB = 2^20 B".
func MByteName(mbyte float64) string {
	if mbyte == result.MiB {
		return "MiB = 2^20 B"
	}
	return "MB = 10^6 B"
}

// Sections lays out the run's report: one section per size sweep (wire
// table and latency, Hockney fit), then aggregate bandwidth, anomalies and
// problems.
func (r RunReport) Sections(k int) []Section {
	if k <= 0 {
		k = analysis.DefaultLatencySizes
	}
	var out []Section
	for _, s := range r.Series {
		out = append(out, s.section(k))
	}
	if len(r.Sizeless) > 0 {
		out = append(out, r.sizelessSection())
	}
	for _, a := range r.Apps {
		out = append(out, a.section())
	}
	out = append(out, r.abgSection(), r.flagsSection(), r.problemsSection())
	return out
}

// section is one sweep's part of the report.
func (s SeriesReport) section(k int) Section {
	sec := Section{Title: s.Label()}
	if s.Placement != nil {
		sec.line("%s", s.Placement)
	}
	if len(s.Wire) > 0 {
		sec.table(analysis.WireTableView(*s.Model, s.Wire))
		if !math.IsNaN(s.LatencyUsec) {
			sec.line("latency = mean difference of the first %d sizes: %.2f usec", k, s.LatencyUsec)
		}
	}
	if s.FitErr == nil {
		sec.table(analysis.FitTableView(s.Fit))
		for _, l := range s.fitLines() {
			sec.line("%s", l)
		}
		for _, seg := range s.invalidSegments() {
			sec.line("%s segment: the fitted time per byte is %.4g usec/B, not positive (time does not grow with size over %d-%d B): "+
				"no bandwidth or n1/2, and the fit is not drawn", seg.name, seg.fit.BetaInv, seg.fit.MinBytes, seg.fit.MaxBytes)
		}
	}
	if t, ok := SpreadTableView(s.Rows); ok {
		sec.table(t)
		sec.line("the distribution of the per-repetition times as the file prints it; p99/p50 shows how far the slowest repetitions lie from the median")
	}
	if n := directionFor(s.Benchmark).note; n != "" {
		sec.line("%s", n)
	}
	for _, n := range s.Notes {
		sec.line("%s", n)
	}
	return sec
}

// SpreadTableView lays out the per-repetition distribution of the rows
// that record one (analysis.SpreadOf): size, headline time, min, p50,
// p90, p99, max in usec, p99/p50 and the coefficient of variation in %
// (mpbench's own files); ok false when no row has one.
func SpreadTableView(rows []result.Row) (analysis.Table, bool) {
	t := analysis.Table{Columns: []analysis.Column{{Name: "bytes", Unit: "B"}, {Name: "t", Unit: "usec"},
		{Name: "min", Unit: "usec"}, {Name: "p50", Unit: "usec"}, {Name: "p90", Unit: "usec"}, {Name: "p99", Unit: "usec"},
		{Name: "max", Unit: "usec"}, {Name: "p99/p50"}, {Name: "CV", Unit: "%"}}}
	for i := range rows {
		sp, ok := analysis.SpreadOf(&rows[i])
		if !ok {
			continue
		}
		t.Title = "Spread of the repetitions (" + sp.Source + ")"
		t.Rows = append(t.Rows, []analysis.Cell{sizeCell(rows[i].Bytes), num(rows[i].Time(), 2), num(sp.MinUsec, 2), num(sp.P50Usec, 2),
			num(sp.P90Usec, 2), num(sp.P99Usec, 2), num(sp.MaxUsec, 2), num(sp.TailRatio(), 2), num(100*sp.CV, 1)})
	}
	return t, len(t.Rows) > 0
}

// namedFit is a fit segment with its name in the fit table.
type namedFit struct {
	name string
	fit  analysis.Fit
}

// invalidSegments returns the segments of the series' fit whose time
// does not grow with size (no positive bandwidth).
func (s SeriesReport) invalidSegments() []namedFit {
	var out []namedFit
	for i, name := range s.Fit.SegmentNames() {
		if f := s.Fit.Segments[i]; !validFit(f) {
			out = append(out, namedFit{name, f})
		}
	}
	return out
}

// fitLines are the sentences under a fit table: the breaks and why, the
// sizes the robust fit left out, a poor fit, % of line rate.
func (s SeriesReport) fitLines() []string {
	var out []string
	p := s.Fit
	switch {
	case len(p.Breaks) == 2:
		out = append(out, fmt.Sprintf("breaks at %d B and %d B: three regimes (short, eager, rendezvous messages, or algorithm switches); "+
			"three segments fit clearly better than two and than one line: BIC %.1f < %.1f (one line)", p.Breaks[0], p.Breaks[1], p.BICSplit, p.BICSingle))
	case p.Split && oneMessage(s.Benchmark):
		out = append(out, fmt.Sprintf("eager/rendezvous break at %d B (two segments fit better than one line: BIC %.1f < %.1f)",
			p.BreakBytes, p.BICSplit, p.BICSingle))
	case p.Split:
		out = append(out, fmt.Sprintf("break at %d B between a small- and a large-message regime (protocol or algorithm switch; "+
			"two segments fit better than one line: BIC %.1f < %.1f)", p.BreakBytes, p.BICSplit, p.BICSingle))
	default:
		out = append(out, "no eager/rendezvous break: one line fits best")
	}
	if left := p.Outliers(); len(left) > 0 {
		var parts []string
		for _, o := range left {
			parts = append(parts, fmt.Sprintf("%d B (%.2f usec, %.2fx the fit)", o.Bytes, o.Usec, o.Usec/p.Best(o.Bytes).Predict(o.Bytes)))
		}
		out = append(out, fmt.Sprintf("left out of the fit, as they disagree with the other sizes (robust fit: Tukey bisquare weights, cut-off %.0f%% of the time): %s",
			100*analysis.BisquareC*analysis.MinRelativeScale, strings.Join(parts, ", ")))
	}
	for i, name := range p.SegmentNames() {
		f := p.Segments[i]
		switch {
		case f.Flat():
			out = append(out, fmt.Sprintf("%s segment: R^2 %.4f is below %.2f because the times hardly vary over %d-%d B "+
				"(residuals %.1f%% of the times): the line fits, R^2 says little here", name, f.R2, analysis.PoorR2, f.MinBytes, f.MaxBytes,
				100*f.RMSRelative()))
		case f.Poor():
			out = append(out, fmt.Sprintf("%s segment: poor fit, R^2 %.4f < %.2f: the Hockney line does not describe %d-%d B "+
				"(curvature, noise or a break not found); its alpha and bandwidth are not to be trusted", name, f.R2, analysis.PoorR2, f.MinBytes, f.MaxBytes))
		}
	}
	if s.Model != nil {
		out = append(out, fmt.Sprintf("%% of line rate against %s (payload rate %.2f MB/s)", s.Model.Name, s.Model.PayloadMBps()))
	}
	return out
}

// direction is how a benchmark moves its bytes when it is not one
// message one way: short for titles, note for the analysis.
type direction struct{ short, note string }

// directionOf holds the benchmarks whose bandwidth is not one message one
// way, by normalised name (lower case, no '_' or '-'); IMB src_c:
// scale_bw 2 for Sendrecv and Biband, 4 for Exchange (field case B01);
// IMB Uniband/Biband and OSU osu_bw/osu_bibw/osu_mbw_mr keep a window of
// messages in flight.
var directionOf = map[string]direction{
	"sendrecv": {"", "bandwidth counts both directions: IMB prints 2 x bytes / t (half of it compares with PingPing)"},
	"exchange": {"", "bandwidth counts four messages: IMB prints 4 x bytes / t"},
	"uniband":  {"unidirectional, pairs of ranks, a window of messages in flight", ""},
	"biband":   {"bidirectional, pairs of ranks, a window of messages in flight each way", bidirectional},
	"osubw":    {"unidirectional, a window of messages in flight", ""},
	"osubibw":  {"bidirectional, a window of messages in flight each way", bidirectional},
	"osumbwmr": {"unidirectional, several pairs, a window of messages in flight", ""},
}

const bidirectional = "bidirectional: the bandwidth adds both directions"

// directionFor returns the direction of a benchmark, zero when it moves
// one message one way.
func directionFor(bench string) direction {
	return directionOf[strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(bench))]
}

// sizelessSection is the time of the benchmarks without a message size
// (Barrier) per process count.
func (r RunReport) sizelessSection() Section {
	sec := Section{Title: "Barrier and other benchmarks without a message size"}
	sec.table(analysis.CountTimeTableView(r.Sizeless))
	sec.line("t is the headline time (IMB t_max, OSU average); growth = t over t at the previous process count " +
		"(a barrier over a switch grows about with log2 of the processes; much faster growth points at a shared medium or contention)")
	return sec
}

// abgSection is the aggregate bandwidth and its classification.
func (r RunReport) abgSection() Section {
	sec := Section{Title: "Aggregate bandwidth across process counts"}
	if len(r.ABG) == 0 {
		sec.line("no benchmark was run at two or more process counts: no ABG scaling")
		return sec
	}
	sec.table(analysis.ABGTableView(r.ABG))
	if r.ABGNote != "" {
		sec.line("%s", r.ABGNote)
	}
	sec.table(ScalingTableView(r.Scaling))
	return sec
}

// flagsSection lists the anomaly flags.
func (r RunReport) flagsSection() Section {
	sec := Section{Title: "Anomalies"}
	if len(r.Flags) == 0 {
		sec.line("none")
		return sec
	}
	sec.table(FlagsTableView(r.Flags))
	return sec
}

// problemsSection lists the problems met while reading.
func (r RunReport) problemsSection() Section {
	sec := Section{Title: "Problems met while reading"}
	if r.Aborted {
		sec.line("the run ended early (truncated file, crash, hang or abort): its last table may be incomplete")
	}
	for _, n := range r.Notes {
		sec.line("%s", n)
	}
	if len(r.Problems) == 0 && !r.Aborted {
		sec.line("none")
		return sec
	}
	if len(r.Problems) > 0 {
		sec.table(ProblemsTableView(r.Problems))
	}
	return sec
}

// ScalingTableView lays out the ABG classifications: one row per
// benchmark and size with the class, the log-log slope and the evidence.
func ScalingTableView(rows []analysis.Scaling) analysis.Table {
	t := analysis.Table{Title: "Switch or shared medium (ABG against simultaneous transfers)", Columns: []analysis.Column{
		{Name: "benchmark"}, {Name: "bytes", Unit: "B"}, {Name: "class"}, {Name: "slope"},
		{Name: "ABG growth"}, {Name: "transfer growth"}, {Name: "evidence"}}}
	for _, s := range rows {
		t.Rows = append(t.Rows, []analysis.Cell{txt(s.Benchmark), num(float64(s.Bytes), 0), txt(s.Class.String()),
			num(s.Slope, 2), num(s.ABGGrowth, 2), num(s.TransferGrowth, 2), txt(s.Evidence)})
	}
	return t
}

// FlagsTableView lists anomaly flags: kind, benchmark, ranks, size and
// why; a rank count or size that does not apply (-1) is left empty.
func FlagsTableView(flags []analysis.Flag) analysis.Table {
	t := analysis.Table{Title: "Anomalies", Columns: []analysis.Column{{Name: "kind"}, {Name: "benchmark"},
		{Name: "ranks"}, {Name: "bytes", Unit: "B"}, {Name: "why"}}}
	known := func(v int64) analysis.Cell {
		if v < 0 {
			return num(math.NaN(), 0)
		}
		return num(float64(v), 0)
	}
	for _, f := range flags {
		t.Rows = append(t.Rows, []analysis.Cell{txt(string(f.Kind)), txt(f.Benchmark), known(int64(f.Processes)),
			known(f.Bytes), txt(f.Msg)})
	}
	return t
}

// ProblemsTableView lists reading problems as file:line and message.
func ProblemsTableView(ps []result.Problem) analysis.Table {
	t := analysis.Table{Title: "Problems", Columns: []analysis.Column{{Name: "where"}, {Name: "problem"}}}
	for _, p := range ps {
		where := p.File
		if p.Line > 0 {
			where = fmt.Sprintf("%s:%d", p.File, p.Line)
		}
		t.Rows = append(t.Rows, []analysis.Cell{txt(where), txt(p.Msg)})
	}
	return t
}

func num(v float64, prec int) analysis.Cell { return analysis.Cell{Value: v, Prec: prec} }
func txt(s string) analysis.Cell {
	if s == "" {
		s = "-"
	}
	return analysis.Cell{Text: s}
}

// WriteDocument writes the reports of several runs in format f: Text and
// Markdown as headed sections with their tables, CSV as one titled block
// per table, JSON as one document {"runs": [{"file", "run", "meta",
// "aborted", "series": [{"benchmark", "processes", ..., "latency_usec",
// "k", "break_bytes", "fit": [{"segment", "alpha_usec", "bandwidth_mbps",
// "n_half_bytes", "r2", "line_rate_percent", ...}]}], "scaling": [...],
// "sizeless": [...], "sections": [{"title", "parts": [{"text"} or
// {"table": {"title", "columns", "units", "rows"}}]}]}]} in which absent
// numbers are null. k is the latency's number of sizes, for the
// sentences.
func WriteDocument(w io.Writer, reps []RunReport, k int, f Format) error {
	if f == JSON {
		return writeJSON(w, reps, k)
	}
	for _, r := range reps {
		if err := writeRun(w, r, k, f); err != nil {
			return err
		}
	}
	return nil
}

// writeRun writes one run's sections in a text format.
func writeRun(w io.Writer, r RunReport, k int, f Format) error {
	var b strings.Builder
	switch f {
	case Markdown:
		fmt.Fprintf(&b, "## %s\n\n", r.Heading())
	case CSV:
		fmt.Fprintf(&b, "# == %s\n", r.Heading())
	default:
		fmt.Fprintf(&b, "== %s\n", r.Heading())
	}
	if r.Meta.Command != "" && f != CSV {
		fmt.Fprintf(&b, "command: %s\n\n", r.Meta.Command)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	for _, sec := range r.Sections(k) {
		if err := writeSection(w, sec, f); err != nil {
			return err
		}
	}
	return nil
}

// writeSection writes a section's title, sentences and tables.
func writeSection(w io.Writer, sec Section, f Format) error {
	var title string
	switch f {
	case Markdown:
		title = "### " + sec.Title + "\n\n"
	case CSV:
		title = "# -- " + sec.Title + "\n"
	default:
		title = "-- " + sec.Title + "\n"
	}
	if _, err := io.WriteString(w, title); err != nil {
		return err
	}
	for i, p := range sec.Parts {
		var err error
		switch {
		case p.Table != nil:
			err = WriteTable(w, *p.Table, f)
			if err == nil && f != CSV {
				_, err = io.WriteString(w, "\n")
			}
		case f == Markdown:
			end := "\n"
			if i+1 == len(sec.Parts) || sec.Parts[i+1].Table != nil {
				end = "\n\n"
			}
			_, err = io.WriteString(w, "- "+p.Text+end)
		case f == CSV:
			_, err = io.WriteString(w, "# "+p.Text+"\n")
		default:
			_, err = io.WriteString(w, "   "+p.Text+"\n")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// jsonPart and jsonSection are the JSON forms of Part and Section.
type jsonPart struct {
	Text  string     `json:"text,omitempty"`
	Table *jsonTable `json:"table,omitempty"`
}

type jsonSection struct {
	Title string     `json:"title"`
	Parts []jsonPart `json:"parts"`
}

// jsonSections converts sections to their JSON form.
func jsonSections(secs []Section) []jsonSection {
	out := []jsonSection{}
	for _, sec := range secs {
		js := jsonSection{Title: sec.Title, Parts: []jsonPart{}}
		for _, p := range sec.Parts {
			jp := jsonPart{Text: p.Text}
			if p.Table != nil {
				t := toJSON(*p.Table)
				jp.Table = &t
			}
			js.Parts = append(js.Parts, jp)
		}
		out = append(out, js)
	}
	return out
}

// writeJSON writes every run as one JSON document.
func writeJSON(w io.Writer, reps []RunReport, k int) error {
	type jsonRun struct {
		File     string          `json:"file"`
		Run      int             `json:"run"`
		Meta     result.Meta     `json:"meta"`
		Aborted  bool            `json:"aborted"`
		Series   []jsonSeries    `json:"series"`
		Scaling  []jsonScaling   `json:"scaling"`
		Sizeless []jsonCountTime `json:"sizeless"`
		Sections []jsonSection   `json:"sections"`
	}
	doc := struct {
		Runs []jsonRun `json:"runs"`
	}{Runs: []jsonRun{}}
	for _, r := range reps {
		jr := jsonRun{File: r.File, Run: r.Index, Meta: r.Meta, Aborted: r.Aborted, Sections: jsonSections(r.Sections(k))}
		jr.Series, jr.Scaling, jr.Sizeless = r.jsonFigures(k)
		doc.Runs = append(doc.Runs, jr)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(doc)
}
