package rowfile

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/mpbench/mpbench/result"
)

// CSVColumns are the CSV header names in column order (see the package doc).
var CSVColumns = []string{
	"benchmark", "processes", "multi", "groups", "group", "bytes", "repetitions",
	"t_min_usec", "t_max_usec", "t_avg_usec", "mbytes_per_sec", "msg_per_sec", "defects",
	"algorithm", "extra",
	"spread_rank", "spread_n", "spread_min_usec", "spread_p50_usec", "spread_p90_usec", "spread_p99_usec",
	"spread_max_usec", "spread_cv",
}

// CSVWriter writes a run as CSV with "# key=value" meta comment lines.
type CSVWriter struct {
	w io.Writer
}

// NewCSVWriter returns a writer to w. Each line is one Write call on w,
// followed by Flush when w has one.
func NewCSVWriter(w io.Writer) *CSVWriter { return &CSVWriter{w: w} }

// csvLine encodes one CSV record with encoding/csv (quoting as needed). A
// first field starting with '#' is quoted too, so that the line is not
// read back as a comment.
func csvLine(fields []string) []byte {
	var b strings.Builder
	rest := fields
	if len(fields) > 0 && strings.HasPrefix(fields[0], "#") {
		b.WriteString(`"` + strings.ReplaceAll(fields[0], `"`, `""`) + `"`)
		if rest = fields[1:]; len(rest) == 0 {
			b.WriteString("\n")
			return []byte(b.String())
		}
		b.WriteString(",")
	}
	cw := csv.NewWriter(&b)
	_ = cw.Write(rest) // writes to a strings.Builder cannot fail
	cw.Flush()
	return []byte(b.String())
}

// csvFloat formats v exactly (shortest round-trip form); NaN is empty.
func csvFloat(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// oneLine removes line breaks from a comment value or a text cell.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// metaKey is an option or info name as a comment line can carry it: on one
// line, with '=' (which ends the name) replaced by '_'.
func metaKey(k string) string {
	return strings.ReplaceAll(oneLine(k), "=", "_")
}

// parseMByte reads the mbyte meta value: empty or 0 (unknown), or a
// finite number of bytes > 0.
func parseMByte(v string) (float64, error) {
	if strings.TrimSpace(v) == "" {
		return 0, nil
	}
	m, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(m) || math.IsInf(m, 0) || m < 0 {
		return 0, fmt.Errorf("mbyte %q is not a number of bytes (1000000 or 1048576)", v)
	}
	return m, nil
}

// WriteMeta writes the meta comment lines and the header line.
func (w *CSVWriter) WriteMeta(m result.Meta) error {
	var b strings.Builder
	kv := func(k, v string) { fmt.Fprintf(&b, "# %s=%s\n", k, oneLine(v)) }
	kv("format", fmt.Sprintf("%s %d", CSVFormat, Schema))
	kv("tool", m.Tool)
	kv("version", m.Version)
	kv("mbyte", csvFloat(m.MByte))
	kv("date", m.Date)
	kv("host", m.Host)
	kv("transport", m.Transport)
	kv("command", m.Command)
	for _, sec := range []struct {
		prefix string
		m      map[string]string
	}{{"option.", m.Options}, {"info.", m.Info}} {
		keys := make([]string, 0, len(sec.m))
		for k := range sec.m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			kv(sec.prefix+metaKey(k), sec.m[k])
		}
	}
	b.Write(csvLine(CSVColumns))
	if err := flushWrite(w.w, []byte(b.String())); err != nil {
		return fmt.Errorf("csv: write: %w", err)
	}
	return nil
}

// WriteRow writes one row line.
func (w *CSVWriter) WriteRow(r result.Row) error {
	extra := ""
	if len(r.Extra) > 0 {
		m := make(map[string]*float64, len(r.Extra))
		for k, v := range r.Extra {
			m[k] = optional(v)
		}
		b, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("csv: extra: %w", err)
		}
		extra = string(b)
	}
	i := strconv.Itoa
	d := func(v int64) string { return strconv.FormatInt(v, 10) }
	spread := make([]string, 8)
	if s := r.Spread; s != nil {
		spread = []string{i(s.Rank), i(s.N), csvFloat(s.Min), csvFloat(s.P50), csvFloat(s.P90), csvFloat(s.P99),
			csvFloat(s.Max), csvFloat(s.CV)}
	}
	line := csvLine(append([]string{
		oneLine(r.Benchmark), i(r.Processes), i(r.Multi), i(r.Groups), i(r.Group), d(r.Bytes), d(r.Repetitions),
		csvFloat(r.TMin), csvFloat(r.TMax), csvFloat(r.TAvg), csvFloat(r.MBps), csvFloat(r.MsgRate),
		csvFloat(r.Defects), oneLine(r.Algorithm), extra,
	}, spread...))
	if err := flushWrite(w.w, line); err != nil {
		return fmt.Errorf("csv: write: %w", err)
	}
	return nil
}

// WriteFailure writes the comment line "# failure=" + f.Problem().
func (w *CSVWriter) WriteFailure(f Failure) error {
	if err := flushWrite(w.w, []byte("# failure="+f.Problem()+"\n")); err != nil {
		return fmt.Errorf("csv: write: %w", err)
	}
	return nil
}

// WriteEnd writes "# end=ok", or "# end=failed: <error>" when runErr is
// not nil.
func (w *CSVWriter) WriteEnd(runErr error) error {
	s := "# end=ok\n"
	if runErr != nil {
		s = "# end=failed: " + oneLine(runErr.Error()) + "\n"
	}
	if err := flushWrite(w.w, []byte(s)); err != nil {
		return fmt.Errorf("csv: write: %w", err)
	}
	return nil
}

// csvRow parses the fields of one row line (header order cols).
func csvRow(cols map[string]int, f []string) (result.Row, error) {
	r := result.NewRow("", -1, -1)
	get := func(name string) string {
		if i, ok := cols[name]; ok && i < len(f) {
			return f[i]
		}
		return ""
	}
	var err error
	integer := func(name string, def int64) int64 {
		s := get(name)
		if s == "" || err != nil {
			return def
		}
		v, e := strconv.ParseInt(s, 10, 64)
		if e != nil {
			err = fmt.Errorf("column %s: %q is not an integer", name, s)
		}
		return v
	}
	float := func(name string) float64 {
		s := get(name)
		if s == "" || err != nil {
			return math.NaN()
		}
		v, e := strconv.ParseFloat(s, 64)
		if e != nil || math.IsInf(v, 0) {
			err = fmt.Errorf("column %s: %q is not a finite number", name, s)
		}
		return v
	}
	r.Benchmark = get("benchmark")
	r.Processes = int(integer("processes", -1))
	r.Multi = int(integer("multi", result.MultiNone))
	r.Groups = int(integer("groups", 1))
	r.Group = int(integer("group", -1))
	r.Bytes = integer("bytes", -1)
	r.Repetitions = integer("repetitions", -1)
	r.TMin, r.TMax, r.TAvg = float("t_min_usec"), float("t_max_usec"), float("t_avg_usec")
	r.MBps, r.MsgRate, r.Defects = float("mbytes_per_sec"), float("msg_per_sec"), float("defects")
	r.Algorithm = get("algorithm")
	if s := get("extra"); s != "" && err == nil {
		var m map[string]*float64
		if e := json.Unmarshal([]byte(s), &m); e != nil {
			err = fmt.Errorf("column extra: %v", e)
		}
		r.Extra = make(map[string]float64, len(m))
		for k, v := range m {
			r.Extra[k] = value(v)
		}
	}
	if get("spread_n") != "" {
		r.Spread = &result.Spread{Rank: int(integer("spread_rank", -1)), N: int(integer("spread_n", 0)),
			Min: float("spread_min_usec"), P50: float("spread_p50_usec"), P90: float("spread_p90_usec"),
			P99: float("spread_p99_usec"), Max: float("spread_max_usec"), CV: float("spread_cv")}
	}
	if r.Benchmark == "" && err == nil {
		err = fmt.Errorf("row without a benchmark name")
	}
	return r, err
}

// ReadCSV reads mpbench CSV from r; name is used in problems and Row.File.
// It returns one Run per "# format=" line. Columns are found by their
// header names, so reordered or missing columns read. A run without a
// "# end=ok" line is Aborted. A "# failure=" line becomes a Problem with
// its text. Bad lines become Problems and the read goes
// on. The error is non-nil only when reading r fails.
func ReadCSV(r io.Reader, name string) ([]result.Run, error) {
	var runs []result.Run
	var cur *result.Run
	var cols map[string]int
	ended := false
	start := func() {
		if cur != nil {
			if !ended {
				cur.Aborted = true
			}
			runs = append(runs, *cur)
		}
		cur = &result.Run{Meta: result.Meta{Options: map[string]string{}, Info: map[string]string{}}}
		cols, ended = nil, false
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		if strings.HasPrefix(text, "# format=") || cur == nil {
			start()
		}
		problem := func(msg string) {
			// One line, whatever the file held: a stray carriage return
			// (a file edited on Windows) stays inside a line that
			// bufio's split at '\n' returns.
			msg = strings.NewReplacer("\r", " ", "\n", " ").Replace(msg)
			cur.Problems = append(cur.Problems, result.Problem{File: name, Line: line, Msg: msg})
		}
		if strings.HasPrefix(text, "#") {
			k, v, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(text, "#")), "=")
			if !ok {
				continue // a plain comment
			}
			m := &cur.Meta
			switch {
			case k == "format":
			case k == "tool":
				m.Tool = v
			case k == "version":
				m.Version = v
			case k == "mbyte":
				var err error
				if m.MByte, err = parseMByte(v); err != nil {
					problem(err.Error())
				}
			case k == "date":
				m.Date = v
			case k == "host":
				m.Host = v
			case k == "transport":
				m.Transport = v
			case k == "command":
				m.Command = v
			case strings.HasPrefix(k, "option."):
				m.Options[strings.TrimPrefix(k, "option.")] = v
			case strings.HasPrefix(k, "info."):
				m.Info[strings.TrimPrefix(k, "info.")] = v
			case k == "failure":
				problem(v)
			case k == "end":
				ended = true
				if v != "ok" {
					_, cur.EndError, _ = strings.Cut(v, ": ") // "failed: <error>"
					cur.Aborted = true
					problem("run " + v)
				}
			}
			continue
		}
		fields, err := csv.NewReader(strings.NewReader(text)).Read()
		if err != nil {
			problem("bad CSV line: " + err.Error())
			continue
		}
		if cols == nil {
			cols = make(map[string]int, len(fields))
			for i, h := range fields {
				cols[strings.TrimSpace(h)] = i
			}
			if _, ok := cols["benchmark"]; !ok {
				problem("header line has no benchmark column")
				cols = nil
			}
			continue
		}
		if len(fields) != len(cols) {
			problem(fmt.Sprintf("line has %d fields, the header %d (truncated line?)", len(fields), len(cols)))
			continue
		}
		row, err := csvRow(cols, fields)
		if err != nil {
			problem(err.Error())
			continue
		}
		row.File, row.Line = name, line
		cur.Rows = append(cur.Rows, row)
	}
	if cur != nil {
		if !ended {
			cur.Aborted = true
		}
		runs = append(runs, *cur)
	}
	if err := sc.Err(); err != nil {
		return runs, fmt.Errorf("csv: read %s: %w", name, err)
	}
	return runs, nil
}
