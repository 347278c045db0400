package rowfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/mpbench/mpbench/result"
)

// Format names and schema version written in the meta records.
const (
	JSONLFormat = "mpbench-jsonl"
	CSVFormat   = "mpbench-csv"
	Schema      = 1
)

// jsonMeta is the meta record of a JSON Lines file.
type jsonMeta struct {
	Type      string            `json:"type"`
	Format    string            `json:"format"`
	Schema    int               `json:"schema"`
	Tool      string            `json:"tool"`
	Version   string            `json:"version"`
	MByte     float64           `json:"mbyte"`
	Date      string            `json:"date"`
	Host      string            `json:"host"`
	Transport string            `json:"transport"`
	Command   string            `json:"command,omitempty"`
	Options   map[string]string `json:"options,omitempty"`
	Info      map[string]string `json:"info,omitempty"`
}

// jsonRow is the row record; optional numbers are pointers so that absent
// values (NaN) are left out.
type jsonRow struct {
	Type        string              `json:"type"`
	Benchmark   string              `json:"benchmark"`
	Processes   int                 `json:"processes"`
	Multi       int                 `json:"multi"`
	Groups      int                 `json:"groups"`
	Group       int                 `json:"group"`
	Bytes       int64               `json:"bytes"`
	Repetitions int64               `json:"repetitions"`
	TMin        *float64            `json:"t_min_usec,omitempty"`
	TMax        *float64            `json:"t_max_usec,omitempty"`
	TAvg        *float64            `json:"t_avg_usec,omitempty"`
	MBps        *float64            `json:"mbytes_per_sec,omitempty"`
	MsgRate     *float64            `json:"msg_per_sec,omitempty"`
	Defects     *float64            `json:"defects,omitempty"`
	Algorithm   string              `json:"algorithm,omitempty"`
	Extra       map[string]*float64 `json:"extra,omitempty"`
	Spread      *jsonSpread         `json:"spread,omitempty"`
}

// jsonSpread is a row's result.Spread without its samples.
type jsonSpread struct {
	Rank int      `json:"rank"`
	N    int      `json:"n"`
	Min  *float64 `json:"min_usec"`
	P50  *float64 `json:"p50_usec"`
	P90  *float64 `json:"p90_usec"`
	P99  *float64 `json:"p99_usec"`
	Max  *float64 `json:"max_usec"`
	CV   *float64 `json:"cv"`
}

// jsonFailure is the failure record.
type jsonFailure struct {
	Type      string `json:"type"`
	Kind      string `json:"kind"`
	Benchmark string `json:"benchmark"`
	Processes int    `json:"processes"`
	Bytes     int64  `json:"bytes"`
	Message   string `json:"message"`
}

// jsonEnd is the end record.
type jsonEnd struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// optional returns nil for NaN or ±Inf (not representable in JSON), else &v.
func optional(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// value returns *p or NaN for nil.
func value(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// JSONLWriter writes a run as JSON Lines (schema in the package doc).
type JSONLWriter struct {
	w io.Writer
}

// NewJSONLWriter returns a writer to w. Each record is one Write call on w,
// followed by Flush when w has one.
func NewJSONLWriter(w io.Writer) *JSONLWriter { return &JSONLWriter{w: w} }

func (w *JSONLWriter) put(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	if err := flushWrite(w.w, append(b, '\n')); err != nil {
		return fmt.Errorf("jsonl: write: %w", err)
	}
	return nil
}

// WriteMeta writes the meta record of a run.
func (w *JSONLWriter) WriteMeta(m result.Meta) error {
	return w.put(jsonMeta{
		Type: "meta", Format: JSONLFormat, Schema: Schema,
		Tool: m.Tool, Version: m.Version, MByte: m.MByte, Date: m.Date, Host: m.Host,
		Transport: m.Transport, Command: m.Command, Options: m.Options, Info: m.Info,
	})
}

// WriteRow writes one row record.
func (w *JSONLWriter) WriteRow(r result.Row) error {
	j := jsonRow{
		Type: "row", Benchmark: r.Benchmark, Processes: r.Processes, Multi: r.Multi,
		Groups: r.Groups, Group: r.Group, Bytes: r.Bytes, Repetitions: r.Repetitions,
		TMin: optional(r.TMin), TMax: optional(r.TMax), TAvg: optional(r.TAvg),
		MBps: optional(r.MBps), MsgRate: optional(r.MsgRate), Defects: optional(r.Defects),
		Algorithm: r.Algorithm,
	}
	if len(r.Extra) > 0 {
		j.Extra = make(map[string]*float64, len(r.Extra))
		for k, v := range r.Extra {
			j.Extra[k] = optional(v)
		}
	}
	if s := r.Spread; s != nil {
		j.Spread = &jsonSpread{Rank: s.Rank, N: s.N, Min: optional(s.Min), P50: optional(s.P50), P90: optional(s.P90),
			P99: optional(s.P99), Max: optional(s.Max), CV: optional(s.CV)}
	}
	return w.put(j)
}

// WriteFailure writes a failure record.
func (w *JSONLWriter) WriteFailure(f Failure) error {
	return w.put(jsonFailure{Type: "failure", Kind: f.Kind, Benchmark: f.Benchmark, Processes: f.Processes,
		Bytes: f.Bytes, Message: f.Msg})
}

// WriteEnd writes the end record: status "ok" when runErr is nil, else
// "failed" with the error text.
func (w *JSONLWriter) WriteEnd(runErr error) error {
	if runErr == nil {
		return w.put(jsonEnd{Type: "end", Status: "ok"})
	}
	return w.put(jsonEnd{Type: "end", Status: "failed", Error: runErr.Error()})
}

// rowFromJSON converts a row record.
func rowFromJSON(j jsonRow) result.Row {
	r := result.Row{
		Benchmark: j.Benchmark, Processes: j.Processes, Multi: j.Multi, Groups: j.Groups,
		Group: j.Group, Bytes: j.Bytes, Repetitions: j.Repetitions,
		TMin: value(j.TMin), TMax: value(j.TMax), TAvg: value(j.TAvg),
		MBps: value(j.MBps), MsgRate: value(j.MsgRate), Defects: value(j.Defects),
		Algorithm: j.Algorithm,
	}
	if len(j.Extra) > 0 {
		r.Extra = make(map[string]float64, len(j.Extra))
		for k, v := range j.Extra {
			r.Extra[k] = value(v)
		}
	}
	if s := j.Spread; s != nil {
		r.Spread = &result.Spread{Rank: s.Rank, N: s.N, Min: value(s.Min), P50: value(s.P50), P90: value(s.P90),
			P99: value(s.P99), Max: value(s.Max), CV: value(s.CV)}
	}
	return r
}

// ReadJSONL reads mpbench JSON Lines from r; name is used in problems and
// in Row.File. It returns one Run per meta record. A run without an end
// record, or whose end status is not "ok", is Aborted (the end error is
// added as a Problem). A failure record becomes a Problem with the
// message of Failure.Problem. Lines that do not parse, and rows before any meta
// record, become Problems and the read goes on. The error is non-nil only
// when reading r fails.
func ReadJSONL(r io.Reader, name string) ([]result.Run, error) {
	var runs []result.Run
	var cur *result.Run
	var pending []result.Problem // problems met before the first meta record
	ended := false
	finish := func() {
		if cur != nil {
			if !ended {
				cur.Aborted = true
			}
			runs = append(runs, *cur)
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		problem := func(msg string) {
			p := result.Problem{File: name, Line: line, Msg: msg}
			if cur == nil {
				pending = append(pending, p)
				return
			}
			cur.Problems = append(cur.Problems, p)
		}
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			problem("not a JSON object: " + err.Error())
			continue
		}
		switch head.Type {
		case "meta":
			var m jsonMeta
			if err := json.Unmarshal(b, &m); err != nil {
				problem("bad meta record: " + err.Error())
				continue
			}
			finish()
			cur = &result.Run{Meta: result.Meta{
				Tool: m.Tool, Version: m.Version, MByte: m.MByte, Date: m.Date, Host: m.Host,
				Transport: m.Transport, Options: m.Options, Info: m.Info, Command: m.Command,
			}, Problems: pending}
			pending = nil
			ended = false
			if m.MByte < 0 {
				cur.Meta.MByte = 0
				problem(fmt.Sprintf("mbyte %v is not a number of bytes (1000000 or 1048576)", m.MByte))
			}
		case "row":
			var j jsonRow
			if err := json.Unmarshal(b, &j); err != nil {
				problem("bad row record: " + err.Error())
				continue
			}
			if cur == nil {
				problem("row before the meta record")
				continue
			}
			if j.Benchmark == "" {
				problem("row without a benchmark name")
				continue
			}
			row := rowFromJSON(j)
			row.File, row.Line = name, line
			cur.Rows = append(cur.Rows, row)
		case "failure":
			var j jsonFailure
			if err := json.Unmarshal(b, &j); err != nil {
				problem("bad failure record: " + err.Error())
				continue
			}
			problem(Failure{Benchmark: j.Benchmark, Processes: j.Processes, Bytes: j.Bytes, Kind: j.Kind, Msg: j.Message}.Problem())
		case "end":
			var e jsonEnd
			if err := json.Unmarshal(b, &e); err != nil || cur == nil {
				problem("bad end record")
				continue
			}
			ended = true
			if e.Status != "ok" {
				cur.Aborted, cur.EndError = true, e.Error
				problem(oneLine(fmt.Sprintf("run %s: %s", e.Status, e.Error)))
			}
		default:
			problem(fmt.Sprintf("unknown record type %q", head.Type))
		}
	}
	finish()
	if len(pending) > 0 {
		runs = append(runs, result.Run{Problems: pending, Aborted: true})
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
		return runs, fmt.Errorf("jsonl: read %s: %w", name, err)
	}
	return runs, nil
}
