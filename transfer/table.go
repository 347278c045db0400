package transfer

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"

	"github.com/mpbench/mpbench/analysis"
)

// Row is the summary of the repeats of one size.
type Row struct {
	Bytes   int64     `json:"bytes"`
	Repeats int       `json:"repeats"`
	TimesMs []float64 `json:"times_ms"` // every repeat, in order
	MinMs   float64   `json:"t_min_ms"`
	MedMs   float64   `json:"t_median_ms"`
	MaxMs   float64   `json:"t_max_ms"`
	// Mbps is bytes x 8 / median time, in Mbit/s (10^6 bit/s), as the
	// study computes it (size / time).
	Mbps float64 `json:"mbit_per_sec"`
	// LinePct is Mbps as a percentage of the wire model's line rate, and
	// ModelPct as a percentage of the payload rate the wire model gives for
	// this size (bytes x 8 / wire time); both 0 without a model.
	LinePct  float64 `json:"pct_of_line_rate,omitempty"`
	ModelPct float64 `json:"pct_of_wire_model,omitempty"`
}

// Summarise returns the row of one size from its repeat times; m may be
// nil (no percentages).
func Summarise(bytes int64, times []time.Duration, m *analysis.WireModel) Row {
	r := Row{Bytes: bytes, Repeats: len(times)}
	ms := make([]float64, len(times))
	for i, t := range times {
		ms[i] = float64(t) / 1e6
	}
	r.TimesMs = append([]float64(nil), ms...)
	if len(ms) == 0 {
		return r
	}
	sort.Float64s(ms)
	r.MinMs, r.MaxMs = ms[0], ms[len(ms)-1]
	r.MedMs = ms[len(ms)/2]
	if len(ms)%2 == 0 {
		r.MedMs = (ms[len(ms)/2-1] + ms[len(ms)/2]) / 2
	}
	if r.MedMs > 0 {
		r.Mbps = float64(bytes) * 8 / (r.MedMs * 1e3)
	}
	if m != nil && bytes > 0 {
		r.LinePct = 100 * r.Mbps / m.LineRateMbps()
		r.ModelPct = 100 * r.Mbps / (float64(bytes) * 8 / m.WireUsec(bytes))
	}
	return r
}

// WriteTable prints rows as the study's table 4.1 does, one line per size:
// size, repeats, median/min/max time in ms, Mbit/s, and with a wire model
// the percentages of line rate and of the model.
func WriteTable(w io.Writer, title string, rows []Row, m *analysis.WireModel) {
	fmt.Fprintf(w, "# %s\n", title)
	if m != nil {
		fmt.Fprintf(w, "# wire model: %s (line rate %.4g Mbit/s; %s)\n", m.Name, m.LineRateMbps(), m.Source)
	}
	fmt.Fprintf(w, "%12s %8s %12s %12s %12s %10s", "bytes", "repeats", "t_med[ms]", "t_min[ms]", "t_max[ms]", "Mbit/s")
	if m != nil {
		fmt.Fprintf(w, " %10s %10s", "%line", "%model")
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "%12d %8d %12.3f %12.3f %12.3f %10.2f", r.Bytes, r.Repeats, r.MedMs, r.MinMs, r.MaxMs, r.Mbps)
		if m != nil {
			fmt.Fprintf(w, " %10.1f %10.1f", r.LinePct, r.ModelPct)
		}
		fmt.Fprintln(w)
	}
}

// WriteJSON writes one JSON object per row (JSON Lines).
func WriteJSON(w io.Writer, r Row) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// CSVHeader are the CSV columns of WriteCSV.
var CSVHeader = []string{"bytes", "repeats", "t_median_ms", "t_min_ms", "t_max_ms", "mbit_per_sec", "pct_of_line_rate", "pct_of_wire_model"}

// WriteCSV writes one CSV record per row (write CSVHeader first).
func WriteCSV(w io.Writer, r Row) error {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	cw := csv.NewWriter(w)
	cw.Write([]string{strconv.FormatInt(r.Bytes, 10), strconv.Itoa(r.Repeats), f(r.MedMs), f(r.MinMs), f(r.MaxMs), f(r.Mbps), f(r.LinePct), f(r.ModelPct)})
	cw.Flush()
	return cw.Error()
}
