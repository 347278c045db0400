package imb

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mpbench/mpbench/result"
)

// readerColKind says which Row field a column of an IMB table fills.
type readerColKind int

const (
	readerColExtra   readerColKind = iota // Row.Extra[header token]
	readerColGroup                        // "Group" (-multi 1)
	readerColBytes                        // "#bytes"
	readerColReps                         // "#repetitions"
	readerColT                            // "t[usec]": Row.TMax
	readerColTMin                         // "t_min[usec]"
	readerColTMax                         // "t_max[usec]"
	readerColTAvg                         // "t_avg[usec]"
	readerColMBps                         // "Mbytes/sec"
	readerColMsgRate                      // "Msg/sec"
	readerColDefects                      // "defects" (-DCHECK builds)
)

// readerColTokens maps IMB column headings, as IMB_output.c prints them,
// to fields. Headings not listed (t_ovrl[usec], t_pure[usec], t_CPU[usec],
// overlap[%] of IMB-NBC/IMB-RMA and any other) go to Row.Extra under the
// heading as printed.
var readerColTokens = map[string]readerColKind{
	"Group":        readerColGroup,
	"#bytes":       readerColBytes,
	"#repetitions": readerColReps,
	"t[usec]":      readerColT,
	"t_min[usec]":  readerColTMin,
	"t_max[usec]":  readerColTMax,
	"t_avg[usec]":  readerColTAvg,
	"Mbytes/sec":   readerColMBps,
	"MBytes/sec":   readerColMBps,
	"Mb/sec":       readerColMBps,
	"Msg/sec":      readerColMsgRate,
	"defects":      readerColDefects,
}

// readerColumns is the parsed heading line of one table.
type readerColumns struct {
	kinds []readerColKind
	names []string
	// rowNumbers is set when the heading ends in a bare integer: a
	// spreadsheet paste appended line numbers to every line, and each row
	// then carries one extra trailing field to drop.
	rowNumbers bool
	hasGroup   bool
}

// readerIsHeading reports whether the fields of a line are an IMB column
// heading: they contain "#repetitions" (every IMB layout has it).
func readerIsHeading(fields []string) bool {
	for _, f := range fields {
		if f == "#repetitions" {
			return true
		}
	}
	return false
}

// readerParseHeading maps a heading line's tokens to columns.
func readerParseHeading(fields []string) *readerColumns {
	c := &readerColumns{}
	if n := len(fields); n > 1 && readerAllDigits(fields[n-1]) {
		fields = fields[:n-1]
		c.rowNumbers = true
	}
	for _, f := range fields {
		k, ok := readerColTokens[f]
		if !ok {
			k = readerColExtra
		}
		if k == readerColGroup {
			c.hasGroup = true
		}
		c.kinds = append(c.kinds, k)
		c.names = append(c.names, f)
	}
	return c
}

func readerAllDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// readerIsNumber reports whether s is a number as IMB prints them
// (integer, fixed-point, exponent, inf or nan).
func readerIsNumber(s string) bool {
	_, ok := readerFloat(s)
	return ok
}

// readerFloat parses a printed number; "-nan" and "nan" are NaN.
func readerFloat(s string) (float64, bool) {
	switch strings.ToLower(s) {
	case "nan", "-nan", "+nan":
		return math.NaN(), true
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// Accept a trailing '.' ("83.") as printed by a cut paste.
		return 0, false
	}
	return v, true
}

// readerFailureWords are IMB's failed-sample markers (IMB_output.c,
// IMB_display_times: SAMPLE_FAILED_MEMORY, _INT_OVERFLOW, _TIME_OUT).
var readerFailureWords = []string{"out-of-mem.", "int-overflow.", "time-out."}

// readerFailure returns the failure text of a failed-sample row
// ("1048576 out-of-mem.; needed X= ...") from the marker on, or "".
func readerFailure(t string) string {
	for _, w := range readerFailureWords {
		if i := strings.Index(t, w); i >= 0 {
			return strings.TrimSpace(t[i:])
		}
	}
	return ""
}

// readerFillRow sets the fields of row from the values of one table line
// under columns c. It returns a non-empty message when a value does not
// parse.
func readerFillRow(row *result.Row, c *readerColumns, fields []string) string {
	for i, k := range c.kinds {
		f := fields[i]
		switch k {
		case readerColGroup, readerColBytes, readerColReps:
			n, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				v, ok := readerFloat(f)
				if !ok || v != math.Trunc(v) || math.IsInf(v, 0) {
					return "column " + c.names[i] + ": not an integer: " + strconv.Quote(f)
				}
				n = int64(v)
			}
			switch k {
			case readerColGroup:
				row.Group = int(n)
			case readerColBytes:
				row.Bytes = n
			default:
				row.Repetitions = n
			}
			continue
		}
		v, ok := readerFloat(f)
		if !ok {
			return "column " + c.names[i] + ": not a number: " + strconv.Quote(f)
		}
		switch k {
		case readerColT, readerColTMax:
			row.TMax = v
		case readerColTMin:
			row.TMin = v
		case readerColTAvg:
			row.TAvg = v
		case readerColMBps:
			row.MBps = v
		case readerColMsgRate:
			row.MsgRate = v
		case readerColDefects:
			row.Defects = v
		default:
			row.SetExtra(c.names[i], v)
		}
	}
	return ""
}

// readerTailNames name the 12 values of the "[ v, v, ... ]" line that
// PerfKitBenchmarker's patched IMB (-show_tail yes) prints after each row,
// in its order (PerfKitBenchmarker linux_packages/mpi.py LATENCY_HEADERS).
var readerTailNames = []string{
	"tail_min", "tail_p10", "tail_p25", "tail_p50", "tail_p75", "tail_p90",
	"tail_p95", "tail_p99", "tail_p99.5", "tail_p99.9", "tail_p99.99", "tail_max",
}

// readerParseTail parses "[ 0.83, 0.97, ... ]" into values; ok is false if
// t is not such a line.
func readerParseTail(t string) (vals []float64, ok bool) {
	if len(t) < 2 || t[0] != '[' || t[len(t)-1] != ']' {
		return nil, false
	}
	for _, p := range strings.Split(t[1:len(t)-1], ",") {
		v, ok := readerFloat(strings.TrimSpace(p))
		if !ok {
			return nil, false
		}
		vals = append(vals, v)
	}
	return vals, len(vals) > 0
}

// readerTailExtra stores tail values in row.Extra: under readerTailNames
// when there are 12 of them, else as "tail[i]".
func readerTailExtra(row *result.Row, vals []float64) {
	for i, v := range vals {
		if len(vals) == len(readerTailNames) {
			row.SetExtra(readerTailNames[i], v)
		} else {
			row.SetExtra("tail["+strconv.Itoa(i)+"]", v)
		}
	}
}

// readerSpreadTitle starts mpbench's --percentiles block after a table
// (imb.Writer.WriteSpreads).
const readerSpreadTitle = "# Repetition times [usec]"

// spreadLine reads one line of mpbench's --percentiles block: the title,
// the column line ("#bytes rank n min p50 p90 p99 max CV", with "Group"
// first under -multi 1) and one line per row, whose numbers become the
// Spread of the section's row with the same #bytes (and Group). It
// reports whether t belonged to the block.
func (p *readerParser) spreadLine(r *readerRun, t string, ln int) bool {
	s := r.sec
	switch {
	case strings.HasPrefix(t, readerSpreadTitle):
		s.spread = 1
		return true
	case s.spread == 0:
		return false
	case s.spread == 1:
		f := strings.Fields(strings.TrimPrefix(t, "#"))
		s.spreadGroup = len(f) > 0 && f[0] == "Group"
		s.spread = 2
		return true
	}
	f := strings.Fields(strings.TrimPrefix(t, "#"))
	want := 9
	if s.spreadGroup {
		want = 10
	}
	if len(f) != want {
		return false
	}
	v := make([]float64, len(f))
	for i, x := range f {
		var err error
		if v[i], err = strconv.ParseFloat(x, 64); err != nil {
			return false
		}
	}
	group := -1
	if s.spreadGroup {
		group, v = int(v[0]), v[1:]
	}
	for i := s.lastRow; i >= 0 && i > s.lastRow-s.rows; i-- {
		row := &r.run.Rows[i]
		if max(row.Bytes, 0) == int64(v[0]) && (group < 0 || row.Group == group) {
			row.Spread = &result.Spread{Rank: int(v[1]), N: int(v[2]), Min: v[3], P50: v[4], P90: v[5], P99: v[6], Max: v[7], CV: v[8]}
			return true
		}
	}
	p.problem(r, ln, fmt.Sprintf("a repetition-time line for %d bytes matches no row of %s", int64(v[0]), s.name))
	return true
}
