package osu

import (
	"regexp"
	"strings"
)

// colKind says which Row field an OSU column fills.
type colKind int

const (
	colExtra      colKind = iota // Row.Extra[name as printed]
	colSize                      // "Size": Row.Bytes
	colTAvg                      // "Latency (us)", "Avg Latency(us)", "Overall(us)": Row.TAvg
	colTMin                      // "Min Latency(us)"
	colTMax                      // "Max Latency(us)"
	colIters                     // "Iterations": Row.Repetitions
	colMBps                      // "Bandwidth (MB/s)", "MB/s": Row.MBps (10^6 bytes)
	colMsgRate                   // "Messages/s": Row.MsgRate
	colValidation                // "Validation": Pass/Fail text, Row.Extra["Validation"] = 1/0
)

// knownCols maps OSU column names (compared with blanks removed, lower
// case) to fields. OSU prints the point-to-point latency as one average
// over the iterations of one process pair, so it fills TAvg like the
// collectives' "Avg Latency(us)"; the non-blocking collectives' "Overall"
// time is their average latency too (the remaining columns of that layout
// go to Row.Extra).
var knownCols = map[string]colKind{
	"size":            colSize,
	"latency(us)":     colTAvg,
	"avglatency(us)":  colTAvg,
	"overall(us)":     colTAvg,
	"minlatency(us)":  colTMin,
	"maxlatency(us)":  colTMax,
	"iterations":      colIters,
	"bandwidth(mb/s)": colMBps,
	"mb/s":            colMBps,
	"mb/sec":          colMBps,
	"messages/s":      colMsgRate,
	"messages/sec":    colMsgRate,
	"validation":      colValidation,
}

// extraColRE matches the other column names OSU prints, which hold blanks:
// tail percentiles ("P50 Tail Lat(us)"), the non-blocking layout
// ("Coll. Init(us)", "Pure Comm.(us)", "Overlap(%)").
var extraColRE = regexp.MustCompile(`^(P\d+(\.\d+)? Tail Lat\(us\)|Compute\(us\)|Coll\. Init\(us\)|MPI_Test\(us\)|MPI_Wait\(us\)|Pure Comm\.\(us\)|Min Comm\.\(us\)|Max Comm\.\(us\)|Overlap\(%\))`)

// column is one parsed column.
type column struct {
	kind colKind
	name string
}

func colKey(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), "")) }

// parseColumns parses a column header (without the '#') by known names:
// OSU separates columns by runs of blanks but the names hold single
// blanks, so the line is split at runs of two or more blanks and each
// piece is then split into known names where a single blank separates
// them. ok is false when the line does not start with "Size" or a known
// latency column (it is then not a header).
func parseColumns(h string) (cols []column, ok bool) {
	for _, piece := range splitRuns(h) {
		for piece != "" {
			name := longestKnownPrefix(piece)
			if name == "" {
				name = piece
			}
			k, found := knownCols[colKey(name)]
			if !found {
				k = colExtra
			}
			cols = append(cols, column{k, name})
			piece = strings.TrimSpace(piece[len(name):])
		}
	}
	if len(cols) == 0 || (cols[0].kind != colSize && cols[0].kind != colTAvg) {
		return nil, false
	}
	return cols, true
}

// splitRuns splits s at runs of two or more blanks (spaces or tabs).
func splitRuns(s string) []string {
	s = strings.ReplaceAll(s, "\t", "  ")
	var out []string
	for _, p := range strings.Split(s, "  ") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// longestKnownPrefix returns the longest prefix of piece, ending at a
// blank or at the end, that is a known column name.
func longestKnownPrefix(piece string) string {
	best := ""
	if m := extraColRE.FindString(piece); m != "" {
		best = m
	}
	for i := len(piece); i > len(best); i-- {
		if i < len(piece) && piece[i] != ' ' {
			continue
		}
		if _, ok := knownCols[colKey(piece[:i])]; ok {
			return piece[:i]
		}
	}
	return best
}
