package study

import (
	_ "embed"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// Page is the study's report page: the findings next to the study's own
// numbers, the networks as emulated, and links to the full reports.
type Page struct {
	Title    string
	Command  string     // the command that produced it
	Networks []NetInfo  // one per emulated network
	Findings []Finding  // Findings' output
	Seed     [][]string // the study's tables 4.1-4.4 (header first)
	Links    []Link     // further pages and files
	Notes    []string   // what to know when reading (host load, ...)
}

// NetInfo describes one emulated network of the study.
type NetInfo struct {
	Name, Model string
	Transfer    string        // the file-transfer table as text
	Elapsed     time.Duration // wall time of the network: building, runs, file transfer, removing (0: not known)
	Forwarder   string        // the forwarder's counters at the end ("" when not known)
}

// Link is a named relative URL.
type Link struct{ Name, Href string }

var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"num": func(v float64) string {
		if math.IsNaN(v) {
			return "-"
		}
		return strconv.FormatFloat(v, 'f', 3, 64)
	},
	"took": func(d time.Duration) string {
		if d <= 0 {
			return "-"
		}
		return d.Round(time.Second).String()
	},
}).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font-family:sans-serif;margin:2em;max-width:80em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.3em .6em;text-align:left;vertical-align:top}
th{background:#eee}.pass{background:#dfd}.fail{background:#fdd}pre{background:#f6f6f6;padding:.6em;overflow-x:auto}
.small{font-size:85%;color:#555}
</style></head><body>
<h1>{{.Title}}</h1>
<p class="small">{{.Command}}</p>
<h2>Networks emulated</h2>
<table><tr><th>network</th><th>model</th><th>wall time</th><th>forwarder</th></tr>
{{range .Networks}}<tr><td>{{.Name}}</td><td>{{.Model}}</td><td>{{took .Elapsed}}</td><td class="small">{{.Forwarder}}</td></tr>{{end}}
</table>
<h2>Findings</h2>
<table><tr><th>network</th><th>finding</th><th>measured</th><th>states it</th><th>evidence</th><th>the study (seed 000)</th></tr>
{{range .Findings}}<tr class="{{if .Pass}}pass{{else}}fail{{end}}"><td>{{.Network}}</td><td>{{.Name}}</td><td>{{num .Value}}</td><td>{{.Want}}</td><td>{{.Detail}}</td><td class="small">{{.Seed}}</td></tr>
{{end}}</table>
<h2>The study's networks (seed 000, tables 4.1-4.4)</h2>
<table>{{range $i, $r := .Seed}}<tr>{{range $r}}{{if eq $i 0}}<th>{{.}}</th>{{else}}<td>{{.}}</td>{{end}}{{end}}</tr>{{end}}</table>
<h2>File transfer (seed 000, section 3.1 and table 4.1)</h2>
{{range .Networks}}<h3>{{.Name}}</h3><pre>{{.Transfer}}</pre>{{end}}
{{if .Notes}}<h2>Notes</h2><ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
<h2>Files</h2><ul>{{range .Links}}<li><a href="{{.Href}}">{{.Name}}</a></li>{{end}}</ul>
</body></html>
`))

// WriteHTML writes p as one self-contained HTML page.
func WriteHTML(w io.Writer, p Page) error { return pageTmpl.Execute(w, p) }

// seedTables is seed 000's tables 4.1-4.4 (10 MB file transfer, IMB
// PingPong and PingPing at 4 MiB, per network), as in
// testdata/reference/thesis-tables4.1-4.4-bandwidth.csv.
//
//go:embed seed-tables4.1-4.4.csv
var seedTables string

// SeedTables returns the study's tables 4.1-4.4 as rows of cells, header
// first (comment lines left out).
func SeedTables() [][]string {
	var out [][]string
	for _, line := range strings.Split(strings.TrimSpace(seedTables), "\n") {
		if !strings.HasPrefix(line, "#") {
			out = append(out, strings.Split(line, ","))
		}
	}
	return out
}
