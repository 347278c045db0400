// Package rowfile reads and writes mpbench's own result files, JSON Lines
// and CSV. Both are written as the run goes, one row at a time, so that an
// interrupted or failed run keeps every row measured before it stopped, and
// a truncated file still reads (its Run is marked Aborted).
//
// Units in both formats are those of package result: sizes in bytes, times
// in microseconds, bandwidth in Mbytes/sec with the Mbyte given by the
// "mbyte" meta field (1000000 or 1048576 bytes).
//
// # JSON Lines (schema 1)
//
// One JSON object per line. The first line of a run is its meta object;
// then one object per measured row, in output order; a complete run ends
// with an end object. A new meta object starts a new run (concatenated
// files).
//
//	{"type":"meta","format":"mpbench-jsonl","schema":1,"tool":"mpbench",
//	 "version":"0.1.0","mbyte":1000000,"date":"2026-01-02T15:04:05Z",
//	 "host":"node1","transport":"tcp","command":"mpbench run -np 2 pingpong",
//	 "options":{"np":"2","msglog":"0:22",...},
//	 "info":{"cpu":"...","cores":"2","cpus_allowed":"1","go":"go1.26.8","os":"linux/amd64",...}}
//	{"type":"row","benchmark":"PingPong","processes":2,"multi":-1,"groups":1,
//	 "group":-1,"bytes":1024,"repetitions":1000,"t_max_usec":2.01,
//	 "mbytes_per_sec":509.55}
//	{"type":"end","status":"ok"}
//	{"type":"end","status":"failed","error":"rank 1: connection reset"}
//
// A message size the run did not measure, while the run went on, is a
// failure record in place of its row (IMB prints a "time-out." row there;
// see Failure):
//
//	{"type":"failure","kind":"time-out","benchmark":"Biband","processes":2,
//	 "bytes":2097152,"message":"time-out at 2097152 bytes: ..."}
//
// Row fields: benchmark (IMB/OSU name without "Multi-"), processes, multi
// (-1 none, 0 -multi 0, 1 -multi 1), groups, group (-1 unless -multi 1),
// bytes (-1 for tables without a size, Barrier), repetitions (-1 unknown),
// and the optional numbers t_min_usec, t_max_usec, t_avg_usec,
// mbytes_per_sec, msg_per_sec, defects, which are left out when the source
// did not report them (NaN in result.Row); algorithm (string, left out when
// empty); extra (object of further numeric columns by printed header);
// spread, when mpbench kept every repetition's time (always with --json and --csv):
//
//	"spread":{"rank":0,"n":1000,"min_usec":1.91,"p50_usec":1.98,
//	 "p90_usec":2.10,"p99_usec":3.40,"max_usec":12.5,"cv":0.21}
//
// the distribution of one rank's per-repetition times behind the row's
// time (result.Spread): rank is the world rank they were measured on, the
// row's first rank for point-to-point benchmarks and its slowest rank (the
// one whose mean is t_max) for collectives; n the repetitions; min, the
// 50th, 90th and 99th percentiles (the smallest time with at least that
// share of the times at or below it) and max in usec, per repetition as the
// row's time is defined (half a round trip for PingPong, one window for
// Uniband); cv the standard deviation over the mean. CSV carries the same
// numbers in the spread_* columns.
//
// # CSV
//
// Meta data come first as comment lines "# key=value" (keys: format, tool,
// version, mbyte, date, host, transport, command, option.NAME, info.NAME),
// then one header line naming every column, then one line per row. The
// columns are those of the JSON row object in this order: benchmark,
// processes, multi, groups, group, bytes, repetitions, t_min_usec,
// t_max_usec, t_avg_usec, mbytes_per_sec, msg_per_sec, defects, algorithm,
// extra, then the spread as spread_rank, spread_n, spread_min_usec,
// spread_p50_usec, spread_p90_usec, spread_p99_usec, spread_max_usec,
// spread_cv (all empty for a row without one). Absent numbers are empty
// cells; extra is a JSON object or empty. A failure is the comment line
// "# failure=Biband, 2 processes, 2097152 bytes: time-out at ..."
// (Failure.Problem) where its row would be. A
// complete run ends with the comment line "# end=ok", a failed one with
// "# end=failed: <error>". Values in comment lines, and the benchmark and
// algorithm cells, have line breaks replaced by spaces; an option or info
// name has '=' replaced by '_'. A benchmark name starting with '#' is
// quoted. A "# format=mpbench-csv" line starts a new run.
package rowfile

import (
	"fmt"

	"github.com/mpbench/mpbench/result"
)

// Writer is implemented by the JSON Lines and CSV writers: WriteMeta once
// first, WriteRow per row and WriteFailure per size not measured (each
// written through before it returns), and WriteEnd once at the end with
// the run's error (nil: complete).
type Writer interface {
	WriteMeta(m result.Meta) error
	WriteRow(r result.Row) error
	WriteFailure(f Failure) error
	WriteEnd(runErr error) error
}

// Failure is a message size of a benchmark that a run did not measure,
// and why (IMB's failed sample); the run goes on. Readers return it as a
// result.Problem whose message is Failure.Problem's.
type Failure struct {
	Benchmark string // benchmark name without "Multi-"
	Processes int    // processes per group
	Bytes     int64  // the message size not measured
	Kind      string // "time-out": the benchmark ran past IMB's time limit
	Msg       string // one line saying what happened, e.g. bench.TimeOut.String()
}

// Problem is the message readers give the failure's result.Problem:
// "Biband, 2 processes, 2097152 bytes: " followed by Msg.
func (f Failure) Problem() string {
	return oneLine(fmt.Sprintf("%s, %d processes, %d bytes: %s", f.Benchmark, f.Processes, f.Bytes, f.Msg))
}

// flushWrite writes s to w in one call and flushes w when it buffers, so
// that every row reaches the file as soon as it is measured.
func flushWrite(w interface{ Write([]byte) (int, error) }, s []byte) error {
	if _, err := w.Write(s); err != nil {
		return err
	}
	if f, ok := w.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}
