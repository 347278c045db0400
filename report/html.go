package report

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strings"

	"github.com/mpbench/mpbench/analysis"
)

//go:embed templates/page.html
var templates embed.FS

// page is the HTML page template (html/template escapes every text).
var page = template.Must(template.ParseFS(templates, "templates/page.html"))

// HTMLOptions describes the page.
type HTMLOptions struct {
	Title string // page title; "mpbench report" when empty
	Files int    // number of files the runs came from
	Wire  string // wire model spec given, "" for none
	K     int    // sizes the latency averages (default 7)
}

// WriteHTML writes one self-contained HTML page for the runs: a summary of
// the runs, every figure of Figures inlined as SVG (runs sharing a
// benchmark overlaid), then each run's tables, sentences, anomaly flags and
// reading problems. The page loads nothing: no scripts, no external style
// sheets, fonts or images, so it reads offline and can be mailed. Errors:
// a plot that fails to render, or w's error.
func WriteHTML(w io.Writer, reps []RunReport, opt HTMLOptions) error {
	if opt.Title == "" {
		opt.Title = "mpbench report"
	}
	if opt.K <= 0 {
		opt.K = analysis.DefaultLatencySizes
	}
	type htmlPart struct {
		Text  string
		Table template.HTML
	}
	type htmlSection struct {
		Title string
		Parts []htmlPart
	}
	type htmlRun struct {
		ID, Label, Heading, Command, Warn string
		Sections                          []htmlSection
	}
	type htmlFigure struct {
		ID, Title, Caption string
		SVG                template.HTML
	}
	data := struct {
		HTMLOptions
		Summary template.HTML
		Figures []htmlFigure
		Runs    []htmlRun
	}{HTMLOptions: opt}

	summary, err := tableHTML(SummaryTableView(reps))
	if err != nil {
		return err
	}
	data.Summary = summary
	for _, f := range Figures(reps) {
		svg, err := InlineSVG(f)
		if err != nil {
			return err
		}
		data.Figures = append(data.Figures, htmlFigure{ID: f.ID, Title: f.Title, Caption: f.Caption, SVG: svg})
	}
	for i, r := range reps {
		hr := htmlRun{ID: fmt.Sprintf("run-%d", i+1), Label: r.Label(), Heading: r.Heading(), Command: r.Meta.Command, Warn: r.warning()}
		for _, sec := range r.Sections(opt.K) {
			hs := htmlSection{Title: sec.Title}
			for _, p := range sec.Parts {
				if p.Table == nil {
					hs.Parts = append(hs.Parts, htmlPart{Text: p.Text})
					continue
				}
				t, err := tableHTML(*p.Table)
				if err != nil {
					return err
				}
				hs.Parts = append(hs.Parts, htmlPart{Table: t})
			}
			hr.Sections = append(hr.Sections, hs)
		}
		data.Runs = append(data.Runs, hr)
	}
	return page.Execute(w, data)
}

// warning summarises what needs a look in a run: flags, problems, an
// early end; "" when nothing does.
func (r RunReport) warning() string {
	var w []string
	if r.Aborted {
		w = append(w, "ended early")
	}
	if n := len(r.Flags); n > 0 {
		w = append(w, fmt.Sprintf("%d flag(s)", n))
	}
	if n := len(r.Problems); n > 0 {
		w = append(w, fmt.Sprintf("%d problem(s)", n))
	}
	return strings.Join(w, ", ")
}

// tableHTML renders a table with go-pretty, which escapes every cell.
func tableHTML(t analysis.Table) (template.HTML, error) {
	var b bytes.Buffer
	if err := WriteTable(&b, t, HTML); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil // #nosec: go-pretty escaped the cells and title
}

// svgOpen matches the SVG root element's opening tag.
var svgOpen = regexp.MustCompile(`<svg\s[^>]*>`)

// svgSize matches the fixed width and height attributes of the root.
var svgSize = regexp.MustCompile(`\s(width|height)="[^"]*"`)

// InlineSVG renders a figure as an <svg> element to place inside HTML:
// without the XML prolog and comment, without a fixed size (the viewBox
// keeps the aspect, CSS sets the width), labelled for screen readers.
func InlineSVG(f Figure) (template.HTML, error) {
	var b bytes.Buffer
	if err := WritePlot(&b, f.Plot, "svg", PlotWidth, PlotHeight); err != nil {
		return "", err
	}
	s := b.String()
	i := strings.Index(s, "<svg")
	if i < 0 {
		return "", fmt.Errorf("report: plot %s: no <svg> element in the SVG output", f.ID)
	}
	s = s[i:]
	open := svgOpen.FindString(s)
	if open == "" {
		return "", fmt.Errorf("report: plot %s: malformed <svg> tag", f.ID)
	}
	tag := svgSize.ReplaceAllString(open, "")
	tag = strings.Replace(tag, "<svg", fmt.Sprintf(`<svg role="img" aria-label="%s" data-curves="%d"`, template.HTMLEscapeString(f.Title), f.Curves), 1)
	return template.HTML(tag + s[len(open):]), nil // #nosec: gonum/plot's SVG escapes its texts
}

// SummaryTableView lists the runs: file, run, tool and version, Mbyte,
// benchmarks, rows, flags and problems, and whether the run ended early.
func SummaryTableView(reps []RunReport) analysis.Table {
	t := analysis.Table{Title: "Runs", Columns: []analysis.Column{{Name: "run"}, {Name: "tool"}, {Name: "Mbyte"},
		{Name: "benchmarks"}, {Name: "sweeps"}, {Name: "flags"}, {Name: "problems"}, {Name: "complete"}}}
	for _, r := range reps {
		seen := map[string]bool{}
		var names []string
		for _, s := range r.Series {
			if !seen[s.Benchmark] {
				seen[s.Benchmark] = true
				names = append(names, s.Benchmark)
			}
		}
		for _, c := range r.Sizeless {
			if !seen[c.Benchmark] {
				seen[c.Benchmark] = true
				names = append(names, c.Benchmark)
			}
		}
		complete := "yes"
		if r.Aborted {
			complete = "no: ended early"
		}
		t.Rows = append(t.Rows, []analysis.Cell{txt(r.Label()), txt(strings.TrimSpace(r.Meta.Tool + " " + r.Meta.Version)),
			txt(MByteName(r.Meta.MByte)), txt(strings.Join(names, ", ")), num(float64(len(r.Series)), 0),
			num(float64(len(r.Flags)), 0), num(float64(len(r.Problems)), 0), txt(complete)})
	}
	return t
}
