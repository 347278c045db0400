package report

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/mpbench/mpbench/tune"
)

// Tuning is one tuning result as "mpbench tune" writes it to
// decisions.json: where it was measured (Header, the tuning file's
// comment lines; Runtime) and the decision per collective and process
// count.
type Tuning struct {
	Name    string // where it was read from, e.g. the directory
	Runtime string
	Header  []string
	Tables  []tune.Table
}

// heatCell is one cell of a heat map: the winner at one size and process
// count.
type heatCell struct {
	Text, Title, Colour string
}

// heatMap is one collective's decisions: rows are sizes, columns process
// counts.
type heatMap struct {
	Collective string
	Procs      []int
	Rows       []heatRow
}

type heatRow struct {
	Bytes int
	Cells []heatCell
}

// legendEntry names an algorithm's colour.
type legendEntry struct{ Name, Colour string }

// palette holds distinguishable fill colours (Okabe-Ito, lightened for
// text on top); the default is grey.
var palette = []string{"#9fd3f5", "#f7c873", "#8fdcc2", "#f5a8c8", "#b7b0ee", "#f3e58a", "#f2b58f", "#a9d18e", "#c9c9f2", "#e7b6e0"}

const defaultColour = "#e4e4e4"

// heatMaps builds the heat maps of t, colouring each winning algorithm
// (with its segment size) consistently through colours.
func heatMaps(t Tuning, colours map[string]string) []heatMap {
	var maps []heatMap
	byColl := map[string][]tune.Table{}
	var order []string
	for _, tb := range t.Tables {
		if _, ok := byColl[tb.Collective]; !ok {
			order = append(order, tb.Collective)
		}
		byColl[tb.Collective] = append(byColl[tb.Collective], tb)
	}
	for _, c := range order {
		tables := byColl[c]
		slices.SortFunc(tables, func(a, b tune.Table) int { return a.Ranks - b.Ranks })
		hm := heatMap{Collective: c}
		sizes := map[int]bool{}
		for _, tb := range tables {
			hm.Procs = append(hm.Procs, tb.Ranks)
			for _, d := range tb.Decisions {
				sizes[d.Bytes] = true
			}
		}
		var sorted []int
		for s := range sizes {
			sorted = append(sorted, s)
		}
		slices.Sort(sorted)
		for _, s := range sorted {
			row := heatRow{Bytes: s}
			for _, tb := range tables {
				row.Cells = append(row.Cells, cellFor(tb, s, colours))
			}
			hm.Rows = append(hm.Rows, row)
		}
		maps = append(maps, hm)
	}
	return maps
}

// cellFor is the cell of size bytes in tb: the winner and its speedup, or
// "default"; an empty cell where the size was not measured.
func cellFor(tb tune.Table, bytes int, colours map[string]string) heatCell {
	for _, d := range tb.Decisions {
		if d.Bytes != bytes {
			continue
		}
		title := fmt.Sprintf("default %s usec; fastest %s at %s usec", statText(d.Default), d.Best, statText(d.BestStats))
		if d.Winner.IsDefault() {
			return heatCell{Text: "default", Title: title, Colour: defaultColour}
		}
		name := d.Winner.String()
		col, ok := colours[name]
		if !ok {
			col = palette[len(colours)%len(palette)]
			colours[name] = col
		}
		return heatCell{Text: fmt.Sprintf("%s %.2fx", name, d.Speedup), Title: title, Colour: col}
	}
	return heatCell{}
}

// statText is "12.3 [11.0..13.1]" (median, fastest and slowest round).
func statText(s tune.Stats) string {
	if s.N == 0 {
		return "(no rounds)"
	}
	return fmt.Sprintf("%.4g [%.4g..%.4g]", s.Median, s.Min, s.Max)
}

var tuningPage = template.Must(template.New("tuning").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font-family:sans-serif;margin:1.5em;color:#222}
table.heat{border-collapse:collapse;margin:0.5em 0 1.5em 0;font-size:0.85em}
table.heat th,table.heat td{border:1px solid #fff;padding:0.25em 0.6em;text-align:left}
table.heat th{background:#f4f4f4}
td.bytes{text-align:right;font-variant-numeric:tabular-nums;background:#f4f4f4}
.meta{color:#555;font-size:0.9em}
.legend span{display:inline-block;padding:0.1em 0.5em;margin:0.1em;border-radius:3px;font-size:0.85em}
</style></head><body>
<h1>{{.Title}}</h1>
<p class="meta">Heat maps of the winning collective algorithm per message size (IMB's #bytes) and process count;
the colour names the algorithm, the number is its speedup over the runtime's default (default median / winner median).
"default" marks sizes where no algorithm was faster beyond the spread of the rounds. Hover a cell for the times (usec, median [fastest..slowest round]).</p>
{{range .Tunings}}
<section><h2>{{.Name}}: {{.Runtime}}</h2>
<p class="meta">{{range .Header}}{{.}} {{end}}</p>
<p class="legend">{{range $.Legend}}<span style="background:{{.Colour}}">{{.Name}}</span>{{end}}<span style="background:#e4e4e4">default</span></p>
{{range .Maps}}<h3>{{.Collective}}</h3>
<table class="heat"><tr><th>bytes</th>{{range .Procs}}<th>{{.}} processes</th>{{end}}</tr>
{{range .Rows}}<tr><td class="bytes">{{.Bytes}}</td>{{range .Cells}}{{if .Text}}<td style="background:{{.Colour}}" title="{{.Title}}">{{.Text}}</td>{{else}}<td></td>{{end}}{{end}}</tr>
{{end}}</table>
{{end}}</section>
{{end}}
</body></html>
`))

// WriteTuningHTML writes one self-contained HTML page with a heat map per
// collective of each tuning: rows are message sizes, columns process
// counts, a cell's colour names the winning algorithm (one colour per
// algorithm across the page, grey for the default) and its text the
// speedup over the default. title "" gives "mpbench tuning".
func WriteTuningHTML(w io.Writer, tunings []Tuning, title string) error {
	if title == "" {
		title = "mpbench tuning"
	}
	type section struct {
		Name, Runtime string
		Header        []string
		Maps          []heatMap
	}
	colours := map[string]string{}
	data := struct {
		Title   string
		Tunings []section
		Legend  []legendEntry
	}{Title: title}
	for _, t := range tunings {
		data.Tunings = append(data.Tunings, section{Name: t.Name, Runtime: t.Runtime, Header: t.Header, Maps: heatMaps(t, colours)})
	}
	names := make([]string, 0, len(colours))
	for n := range colours {
		names = append(names, n)
	}
	slices.SortFunc(names, strings.Compare)
	for _, n := range names {
		data.Legend = append(data.Legend, legendEntry{Name: n, Colour: colours[n]})
	}
	return tuningPage.Execute(w, data)
}
