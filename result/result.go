// Package result is mpbench's data model for benchmark results, shared by
// the benchmark runner (which produces rows), the readers of IMB, OSU and
// mpbench output files, the analysis and the reports.
//
// Units are fixed throughout: message sizes in bytes, times in microseconds
// (usec), bandwidth in Mbytes/sec where one Mbyte is Run.MByte bytes (10^6
// for IMB 2018 and later, OSU and mpbench by default; 2^20 = 1048576 for IMB
// up to 2017, see IMB's src_c/IMB_output.c MEGA constant).
package result

import (
	"fmt"
	"math"
)

// MB and MiB are the two Mbyte definitions in use by benchmark suites.
const (
	MB  = 1e6     // 1 Mbyte = 10^6 bytes (IMB >= 2018, OSU, mpbench default)
	MiB = 1048576 // 1 Mbyte = 2^20 bytes (IMB <= 2017, Pallas PMB)
)

// Multi mode of an IMB run (-multi option).
const (
	MultiNone  = -1 // run without -multi: one group
	MultiWorst = 0  // -multi 0: all groups at once, one row over all groups
	MultiEach  = 1  // -multi 1: all groups at once, one row per group
)

// ExtraCallMax is the extra column (Row.Extra) of mpbench run --sync-all:
// the slowest rank's time in each repetition, averaged over the
// repetitions, in usec (bench.CallMax).
const ExtraCallMax = "t_callmax_usec"

// Row is one measured line of a benchmark table: one benchmark, one process
// count, one group and one message size.
//
// Fields that a source did not report are NaN (floats) or -1 (integers).
type Row struct {
	Benchmark   string  // IMB/OSU name without the "Multi-" prefix, e.g. "PingPong", "osu_latency"
	Processes   int     // processes taking part (# #processes, or group size in multi mode)
	Multi       int     // MultiNone, MultiWorst or MultiEach
	Groups      int     // number of simultaneous groups in multi mode, 1 otherwise
	Group       int     // group index for MultiEach rows, -1 otherwise
	Idle        int     // ranks waiting in MPI_Barrier meanwhile (IMB "( k additional processes ..."), 0 when none
	Bytes       int64   // message size in bytes; -1 when the table has no size (Barrier)
	Repetitions int64   // timed repetitions; -1 when unknown
	TMin        float64 // minimum over ranks of the per-repetition time, usec
	TMax        float64 // maximum over ranks, usec (IMB's t[usec] for single-transfer rows)
	TAvg        float64 // mean over ranks, usec
	MBps        float64 // bandwidth in Mbytes/sec (Run.MByte bytes per Mbyte) as the source defines it
	MsgRate     float64 // messages per second (IMB Msg/sec, OSU Messages/s)
	Defects     float64 // IMB -check defects column, NaN when absent
	// Extra holds further numeric columns by their header name as printed
	// (e.g. "P50 Tail Lat(us)", "t_ovrl[usec]"), nil when none.
	Extra map[string]float64
	// Algorithm names the collective algorithm used, "" when not applicable
	// or unknown.
	Algorithm string
	// Spread is the distribution of the per-repetition times behind the
	// row's time, nil when not recorded (see Spread).
	Spread *Spread
	// Headline says which time column the source quotes as the row's time
	// (see Time); set by the reader from the source's definition.
	Headline Headline
	// File and Line locate the row in the file it was read from ("" and 0
	// for rows measured in this process).
	File string
	Line int
}

// Headline names the time column a benchmark suite quotes as a row's
// time when it prints several (t_min/t_max/t_avg).
type Headline int

const (
	// HeadlineMax: t_max, else t_avg, else t_min. IMB (and mpbench, which
	// prints IMB's tables): IMB computes Mbytes/sec from t_max and its
	// single-transfer t[usec] is t_max; the study's tables use it. The
	// zero value.
	HeadlineMax Headline = iota
	// HeadlineAvg: t_avg, else t_max, else t_min. OSU: every OSU test
	// prints the average latency over the iterations (and, with -f, over
	// the ranks) as its headline "Avg Latency(us)"; Min/Max are extra
	// statistics (osu_util.c print_stats).
	HeadlineAvg
)

// String names the headline column: "t_max" or "t_avg".
func (h Headline) String() string {
	if h == HeadlineAvg {
		return "t_avg"
	}
	return "t_max"
}

// SetExtra sets the further column name of r (Row.Extra, made when
// nil) to v, as a reader found it in a table.
func (r *Row) SetExtra(name string, v float64) {
	if r.Extra == nil {
		r.Extra = map[string]float64{}
	}
	r.Extra[name] = v
}

// Time returns the headline time of the row in usec, by r.Headline: for
// IMB rows t_max when present, else t_avg, else t_min; for OSU rows t_avg
// when present, else t_max, else t_min. NaN when the row has no time.
func (r *Row) Time() float64 {
	order := []float64{r.TMax, r.TAvg, r.TMin}
	if r.Headline == HeadlineAvg {
		order = []float64{r.TAvg, r.TMax, r.TMin}
	}
	for _, t := range order {
		if !math.IsNaN(t) {
			return t
		}
	}
	return math.NaN()
}

// NewRow returns a Row with every optional field marked absent (NaN or -1).
func NewRow(benchmark string, processes int, bytes int64) Row {
	nan := math.NaN()
	return Row{
		Benchmark: benchmark, Processes: processes, Multi: MultiNone, Groups: 1, Group: -1,
		Bytes: bytes, Repetitions: -1,
		TMin: nan, TMax: nan, TAvg: nan, MBps: nan, MsgRate: nan, Defects: nan,
	}
}

// Meta describes one run: the tool that produced it and the conditions.
type Meta struct {
	Tool      string            // "IMB-MPI1", "IMB-EXT", "OSU", "mpbench"
	Version   string            // tool version as printed, e.g. "2021.3", "4.1", "5.3.2"
	MByte     float64           // bytes per Mbyte in MBps columns: MB or MiB
	Date      string            // start time as printed or RFC 3339
	Host      string            // machine / host name
	Transport string            // mpbench transport ("tcp", "shm", "mpi") or MPI library
	Options   map[string]string // options of the run by name (IMB names, e.g. "msglog")
	Info      map[string]string // further facts: "cpu", "cores", "go", "os", ...
	Command   string            // calling sequence when known
}

// Problem is a non-fatal issue met while reading or running: a line that
// could not be parsed, a truncated table, an aborted benchmark.
type Problem struct {
	File string
	Line int
	Msg  string
}

// Error formats the problem as "file:line: msg".
func (p Problem) Error() string {
	if p.File == "" && p.Line == 0 {
		return p.Msg
	}
	return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
}

// Run is one benchmark run: its metadata, its rows in output order and the
// problems met. A file may hold several runs (concatenated logs).
type Run struct {
	Meta     Meta
	Rows     []Row
	Problems []Problem
	// Aborted is true when the run ended early (abort message, truncated
	// table, interrupted run).
	Aborted bool
	// EndError is the error a failed run's end record names (mpbench's
	// JSON Lines "error", CSV "# end=failed: ..."), as written; "" for a
	// complete run or one without an end record.
	EndError string
}
