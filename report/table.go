package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/mpbench/mpbench/analysis"
)

// Format is an output form of the analysis tables.
type Format string

// The table formats of WriteTable and WriteDocument.
const (
	Text     Format = "text" // box-drawn tables for a terminal
	Markdown Format = "md"   // GitHub-flavoured Markdown tables
	CSV      Format = "csv"  // RFC 4180 CSV, one block per table, titled by a "# title" line
	JSON     Format = "json" // one JSON document (WriteDocument only)
	HTML     Format = "html" // an HTML <table> (WriteTable only; pages use WriteHTML)
)

// FormatNames lists the formats a command line accepts for tables.
const FormatNames = "text, md, csv, json"

// ParseFormat returns the Format named s (text, md, csv, json). Error: one
// line naming the bad value and the accepted ones.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case Text, Markdown, CSV, JSON:
		return f, nil
	}
	return "", fmt.Errorf("unknown format %q; accepted: %s", s, FormatNames)
}

// heading returns a column's heading with its unit: "wire time [usec]".
func heading(c analysis.Column) string {
	if c.Unit == "" {
		return c.Name
	}
	return c.Name + " [" + c.Unit + "]"
}

// isNumeric reports whether column i holds numbers (its cells have no
// text), so that it is right-aligned.
func isNumeric(t analysis.Table, i int) bool {
	for _, r := range t.Rows {
		if i < len(r) && r[i].Text != "" {
			return false
		}
	}
	return true
}

// prettyTable builds the go-pretty form of t.
func prettyTable(t analysis.Table) table.Writer {
	w := table.NewWriter()
	w.SetStyle(table.StyleLight)
	w.Style().Format.Header = text.FormatDefault
	w.Style().HTML.CSSClass = "data"
	head := make(table.Row, len(t.Columns))
	var cfg []table.ColumnConfig
	for i, c := range t.Columns {
		head[i] = heading(c)
		if isNumeric(t, i) {
			cfg = append(cfg, table.ColumnConfig{Number: i + 1, Align: text.AlignRight, AlignHeader: text.AlignRight})
		}
	}
	w.AppendHeader(head)
	w.SetColumnConfigs(cfg)
	for _, r := range t.Rows {
		row := make(table.Row, len(r))
		for i, c := range r {
			row[i] = cellText(c)
		}
		w.AppendRow(row)
	}
	return w
}

// cellText is the cell as printed, with a negative zero ("-0.0", from a
// tiny negative value rounded) printed as zero.
func cellText(c analysis.Cell) string {
	s := c.String()
	if c.Text == "" && strings.HasPrefix(s, "-") && strings.Trim(s, "-0.") == "" {
		return s[1:]
	}
	return s
}

// WriteTable renders one table in format f (Text, Markdown, CSV or HTML).
// Numbers are printed with the precision the table's cells carry; absent
// values (NaN) are empty cells. Errors: an unsupported format or w's error.
func WriteTable(w io.Writer, t analysis.Table, f Format) error {
	var s string
	switch f {
	case Text:
		p := prettyTable(t)
		p.SetTitle("%s", t.Title)
		s = p.Render()
	case Markdown:
		s = "**" + t.Title + "**\n\n" + prettyTable(t).RenderMarkdown()
	case HTML:
		p := prettyTable(t)
		p.SetTitle("%s", t.Title)
		s = p.RenderHTML()
	case CSV:
		return writeCSV(w, t)
	default:
		return fmt.Errorf("report: table format %q not supported; accepted: text, md, csv, html", f)
	}
	_, err := io.WriteString(w, s+"\n")
	return err
}

// writeCSV writes "# title", a heading line and the rows.
func writeCSV(w io.Writer, t analysis.Table) error {
	if _, err := fmt.Fprintf(w, "# %s\n", t.Title); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	head := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = heading(c)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range t.Rows {
		rec := make([]string, len(r))
		for i, c := range r {
			rec[i] = cellText(c)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// jsonTable is the JSON form of a table: numbers stay numbers (null when
// absent), texts stay texts.
type jsonTable struct {
	Title   string   `json:"title"`
	Columns []string `json:"columns"`
	Units   []string `json:"units"`
	Rows    [][]any  `json:"rows"`
}

// toJSON converts t; numbers are rounded to the cells' precision, NaN and
// infinite values become null (JSON has no NaN).
func toJSON(t analysis.Table) jsonTable {
	j := jsonTable{Title: t.Title, Rows: make([][]any, 0, len(t.Rows))}
	for _, c := range t.Columns {
		j.Columns = append(j.Columns, c.Name)
		j.Units = append(j.Units, c.Unit)
	}
	for _, r := range t.Rows {
		row := make([]any, len(r))
		for i, c := range r {
			switch {
			case c.Text != "":
				row[i] = c.Text
			case math.IsNaN(c.Value) || math.IsInf(c.Value, 0):
				row[i] = nil
			default:
				// The cell's precision, as the text forms print it.
				v, _ := strconv.ParseFloat(cellText(c), 64)
				row[i] = v
			}
		}
		j.Rows = append(j.Rows, row)
	}
	return j
}
