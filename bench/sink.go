package bench

import (
	"fmt"
	"strings"

	"github.com/mpbench/mpbench/result"
)

// Block describes one "# Benchmarking X" block of output: one benchmark at
// one process count.
type Block struct {
	Benchmark string  // benchmark name without "Multi-", e.g. "PingPong"
	Class     *Class  // IMB group: the table layout, the rates
	Processes int     // active processes per group
	Multi     int     // result.MultiNone, result.MultiWorst or result.MultiEach
	Groups    [][]int // world ranks of each group; one group without -multi
	Idle      int     // ranks not in any group, waiting for the block to end (IMB: "waiting in MPI_Barrier")
	MByte     float64 // bytes per Mbyte in the rows' MBps (result.MB or result.MiB)
	// ScaleBW is the number of message sizes counted per iteration in
	// Mbytes/sec (1 PingPong/PingPing, 2 Sendrecv, 4 Exchange; 0 when the
	// block has no bandwidth column; for Uniband 1 and Biband 2 per message
	// of the window and pair), which the class's Rates use. Writers may print it to state the
	// byte-counting rule.
	ScaleBW float64
	// Params are the values of the class's parameters (Class.Params) by
	// name, e.g. Uniband's "window_size"; nil for a class without.
	Params map[string]int
	// Check is true when rows carry a Defects value (-check).
	Check bool
	// Algorithms lists the collective algorithm of the block's message
	// sizes as consecutive ranges, in size order (one span when it does
	// not change with size); nil for benchmarks that call no collective.
	// Each row carries its own in result.Row.Algorithm.
	Algorithms []AlgorithmSpan
	// TimeOut is set on the block given to Sink.End when the benchmark
	// ran past its time limit (IMB's time-out, Options.BenchmarkTimeLimit):
	// the rows before TimeOut.Bytes were measured, that size and the
	// rest were not, nor the benchmark's later process counts. nil for a
	// block that measured every size.
	TimeOut *TimeOut
}

// TimeOut describes where and why a benchmark stopped: IMB-MPI1's
// SAMPLE_FAILED_TIME_OUT (src_cpp/helpers/helper_IMB_functions.h
// helper_time_check, src_c/IMB_output.c).
type TimeOut struct {
	// Bytes is the message size not measured, which IMB prints in its
	// time-out row: the row's size, or for a table without sizes
	// (Barrier) IMB's largest size 2^b of -msglog a:b.
	Bytes int64
	// Elapsed is how long the benchmark had run at this process count
	// when the probes of that size ended, and Limit its time limit
	// (Options.BenchmarkTimeLimit), both in seconds by rank 0's clock.
	Elapsed, Limit float64
}

// String describes the time-out in one line, e.g. "time-out at 2097152
// bytes: the benchmark had run 22.31 s, above its limit of 22 s
// (IMB-MPI1's max(max(sizes listed, b - a) - 1, 1) x -time for -msglog
// a:b); its remaining sizes and process counts were not measured".
func (t *TimeOut) String() string {
	return fmt.Sprintf("time-out at %d bytes: the benchmark had run %.3g s, above its limit of %.3g s (IMB-MPI1's max(max(sizes listed, b - a) - 1, 1) x -time for -msglog a:b); its remaining sizes and process counts were not measured",
		t.Bytes, t.Elapsed, t.Limit)
}

// AlgorithmSpan is the algorithm of a range of message sizes of a block.
type AlgorithmSpan struct {
	MinBytes, MaxBytes int64  // first and last message size of the range, bytes
	Algorithm          string // coll.Choice syntax, e.g. "binomial" or "pipeline:seg=16384"
}

// AlgorithmText describes spans for an output header: "binomial" when one
// algorithm covers every size, else "recursive_doubling (0-2048 bytes),
// rabenseifner (4096-4194304 bytes)". It is "" for no spans.
func AlgorithmText(spans []AlgorithmSpan) string {
	if len(spans) == 1 {
		return spans[0].Algorithm
	}
	parts := make([]string, len(spans))
	for i, sp := range spans {
		parts[i] = fmt.Sprintf("%s (%d-%d bytes)", sp.Algorithm, sp.MinBytes, sp.MaxBytes)
	}
	return strings.Join(parts, ", ")
}

// Sink receives results as they are measured. Only world rank 0 calls it.
// For each block the runner calls Begin once, Row once per row in output
// order (per size; per size and group under -multi 1), and End once, also
// when the block ends early with an error (End is then called before Run
// returns the error). An error from a Sink method aborts the run on every
// rank with that error.
type Sink interface {
	Begin(b Block) error
	Row(b Block, r result.Row) error
	End(b Block) error
}
