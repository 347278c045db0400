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
