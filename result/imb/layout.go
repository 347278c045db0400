package imb

import (
	"math"

	"github.com/mpbench/mpbench/result"
)

// Column is one column of an IMB benchmark table: its heading, the unit of
// its values and how a row's value prints in it. The Writer prints every
// column right-aligned in 13 characters.
type Column struct {
	// Heading is the column's heading as printed, e.g. "t_min[usec]".
	// The reader (result/imb) fills the Row field its heading names, and
	// keeps any other heading in Row.Extra.
	Heading string
	// Unit is the unit of the values: "bytes", "usec", "Mbytes/sec",
	// "Msg/sec", or "" for counts. The text sink's timer warning looks at
	// the first "usec" column of a table.
	Unit string
	// Decimals is the number of digits printed after the point
	// (%13.<Decimals>f): 2 for times and Mbytes/sec, 0 for counts and
	// Msg/sec (IMB's %13d prints a whole number as %13.0f does).
	Decimals int
	// Value is the row's value in this column.
	Value func(r *result.Row) float64
}

// ExtraColumn is a column of a quantity that result.Row has no field for:
// its value is r.Extra[heading] (NaN when absent), which the JSON Lines and
// CSV writers keep under the same name and the IMB reader reads back.
func ExtraColumn(heading, unit string, decimals int) Column {
	return Column{Heading: heading, Unit: unit, Decimals: decimals, Value: func(r *result.Row) float64 {
		if v, ok := r.Extra[heading]; ok {
			return v
		}
		return math.NaN()
	}}
}

// The columns of IMB-MPI1's tables (IMB_output.c, IMB_display_times).
var (
	ColBytes       = Column{"#bytes", "bytes", 0, func(r *result.Row) float64 { return float64(r.Bytes) }}
	ColRepetitions = Column{"#repetitions", "", 0, func(r *result.Row) float64 { return float64(r.Repetitions) }}
	// ColT is single transfers' t[usec]: the maximum over the ranks, as
	// IMB prints it.
	ColT       = Column{"t[usec]", "usec", 2, func(r *result.Row) float64 { return r.TMax }}
	ColTMin    = Column{"t_min[usec]", "usec", 2, func(r *result.Row) float64 { return r.TMin }}
	ColTMax    = Column{"t_max[usec]", "usec", 2, func(r *result.Row) float64 { return r.TMax }}
	ColTAvg    = Column{"t_avg[usec]", "usec", 2, func(r *result.Row) float64 { return r.TAvg }}
	ColMBps    = Column{"Mbytes/sec", "Mbytes/sec", 2, func(r *result.Row) float64 { return r.MBps }}
	ColMsgRate = Column{"Msg/sec", "Msg/sec", 0, func(r *result.Row) float64 { return r.MsgRate }}
	// ColDefects is -check's column, which the Writer appends to a table
	// whose TableSpec.Check is set.
	ColDefects = Column{"defects", "", 2, func(r *result.Row) float64 { return r.Defects }}
)

// Layout is one of IMB's table layouts (the enum output_format in IMB's
// src_c/IMB_output.c): the columns of a benchmark table after the Group
// column (printed under -multi 1) and before the defects column (printed
// under -check).
type Layout struct {
	// Name describes the layout in messages, e.g. "time and bandwidth".
	Name    string
	Columns []Column
	// NoDefects leaves the defects column out even under -check (IMB's
	// Barrier table).
	NoDefects bool
}

// String returns the layout's name.
func (l *Layout) String() string { return l.Name }

// The layouts IMB-MPI1 prints.
var (
	// OutTimeBW: #bytes #repetitions t[usec] Mbytes/sec. Single-transfer
	// benchmarks (PingPong, PingPing) without -multi or under -multi 1.
	OutTimeBW = &Layout{Name: "time and bandwidth", Columns: []Column{ColBytes, ColRepetitions, ColT, ColMBps}}
	// OutBWMsgRate: #bytes #repetitions Mbytes/sec Msg/sec (Uniband,
	// Biband; Msg/sec printed without decimals).
	OutBWMsgRate = &Layout{Name: "bandwidth and message rate", Columns: []Column{ColBytes, ColRepetitions, ColMBps, ColMsgRate}}
	// OutTimeRangeBW: #bytes #repetitions t_min[usec] t_max[usec]
	// t_avg[usec] Mbytes/sec. Parallel transfer (Sendrecv, Exchange) and
	// single transfer under -multi 0.
	OutTimeRangeBW = &Layout{Name: "time range and bandwidth", Columns: []Column{ColBytes, ColRepetitions, ColTMin, ColTMax, ColTAvg, ColMBps}}
	// OutTimeRange: #bytes #repetitions t_min[usec] t_max[usec]
	// t_avg[usec]. Collectives.
	OutTimeRange = &Layout{Name: "time range", Columns: []Column{ColBytes, ColRepetitions, ColTMin, ColTMax, ColTAvg}}
	// OutSync: #repetitions t_min[usec] t_max[usec] t_avg[usec] (no
	// #bytes column, no defects column). Barrier.
	OutSync = &Layout{Name: "sync", Columns: []Column{ColRepetitions, ColTMin, ColTMax, ColTAvg}, NoDefects: true}
)
