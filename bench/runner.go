package bench

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/result"
)

// Verdicts rank 0 distributes before each message size and at the end of a
// block (record.count of a tagVerdict message).
const (
	verdictGo    = 1  // measure the next size
	verdictDone  = 0  // block finished
	verdictStop  = -1 // context cancelled at rank 0: stop between sizes
	verdictAbort = -2 // a rank failed (-check defect, sink error): note says why
	// verdictTimeOut: the block ended early, the benchmark having run
	// past its time limit; its later process counts are skipped.
	verdictTimeOut = -3
)

// repsTimedOut in place of a repetition count (record.count of tagReps)
// says that the benchmark ran past its time limit before the size.
const repsTimedOut = -1

// errTimedOut is measure's result for a size not measured because the
// benchmark ran past its time limit; every active rank gets it.
var errTimedOut = errors.New("bench: benchmark time limit exceeded")

// CheckError reports received bytes that differ from the -check pattern.
type CheckError struct {
	Benchmark string
	Bytes     int64 // message size
	Rank      int   // world rank that received the wrong bytes
	Defects   int64 // wrong bytes summed over the row's ranks and repetitions
	Msg       string
}

// Error returns the one-line message naming benchmark, size, rank and the
// first wrong byte.
func (e *CheckError) Error() string { return e.Msg }

// Run runs the benchmarks of opts on communicator c and reports each block
// and row to sink as soon as it is measured. It is collective: every rank
// of c calls Run with the same opts; only rank 0 uses sink (others may pass
// nil). Control traffic (probe times, repetition counts, results, verdicts)
// uses point-to-point messages only.
//
// For each benchmark and process count (IMB's -npmin sweep, 2 only for
// single-transfer benchmarks) the active ranks form one group, or np/N
// groups of N under -multi, and idle ranks wait for rank 0's verdict (IMB's
// "waiting in MPI_Barrier"). For each message size every active rank:
// probes one iteration; rank 0 takes the maximum and sizes a second probe
// (SecondProbeRepetitions) that every rank runs; from it rank 0 fixes the
// repetition count (BaseRepetitions, CapRepetitions or ListRepetitions)
// for all; warm-up (WarmupRepetitions, -warm_up); two barriers (IMB's
// N_BARR; every probe and the warm-up start with them too); the timed loop;
// under -check an untimed verification pass over the same number of
// repetitions that checks every received byte against Pattern. IMB's
// time-out (unless opts.NoTimeOut): when a size's probes end later than
// Options.BenchmarkTimeLimit after the block started, by rank 0's Wtime,
// that size is not measured, the block ends with Block.TimeOut set for
// the sink's End, and the benchmark's later process counts are skipped
// on every rank, as IMB-MPI1 2021.x does. Rank 0
// gathers each rank's time per iteration (scaled by Spec.ScaleTime, usec)
// and sets t_min, t_max, t_avg over the row's ranks, then the rates of
// the benchmark's class (Class.Rates: Bandwidth's
// Mbytes/sec = ScaleBW*bytes/t_max in opts.MByte bytes per Mbyte,
// IMB_output.c, IMB_calculate_times; MessageRate's Msg/sec). For single-transfer benchmarks
// t_max is IMB's t[usec] (IMB prints timing[MAX] there too).
//
// Errors: invalid options or too few processes return before any
// communication, identically on every rank. A communication error returns
// at once, naming benchmark, size and rank. A -check defect or a sink error
// is sent to every rank, which all return it (a *CheckError for defects)
// after the rows already measured were given to the sink. Cancelling ctx
// at rank 0 stops every rank before the next size; Run then returns an
// error wrapping context.Canceled (ctx.Err() at rank 0).
func Run(ctx context.Context, c comm.Comm, opts Options, sink Sink) error {
	if err := opts.Validate(); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	plan, err := makePlan(&opts, c.Size())
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := checkLoopDataType(c, &opts, plan); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if c.Rank() != 0 {
		sink = nil
	}
	if err := settle(c, opts.Settle); err != nil {
		return err
	}
	stopped := map[string]bool{} // benchmarks that timed out
	for _, p := range plan {
		if stopped[p.block.Benchmark] {
			continue
		}
		br := &blockRun{plan: p, opts: &opts, world: c, sink: sink}
		if err := br.run(ctx); err != nil {
			return err
		}
		stopped[p.block.Benchmark] = br.timedOut
	}
	return nil
}

// blockRun is the state of one block on one rank.
type blockRun struct {
	plan   blockPlan
	opts   *Options
	world  comm.Comm
	active comm.Comm        // ranks of all groups; nil on idle ranks
	group  comm.Comm        // this rank's group
	sink   Sink             // nil except on world rank 0
	fail   error            // first failure known at rank 0
	bufs   *buffers         // the last size's buffers, reused by the next
	algs   map[int64]string // collective algorithm by message size; nil for none
	reps   []float64        // this rank's repetition times of the last size, usec (PerRepetition)
	counts []int            // repetition counts of the sizes measured so far, in order (IMB's numiters)
	start  float64          // Wtime when the block's sizes began, seconds (the time limit's origin)
	// timeOut describes the time-out at rank 0; timedOut is set on every
	// rank when the block ended by the time limit.
	timeOut  *TimeOut
	timedOut bool
}

func (r *blockRun) name() string { return r.plan.block.Benchmark }

// errf formats an error with the block's context: benchmark, process
// count, message size (left out when bytes < 0, for steps outside any
// size) and world rank.
func (r *blockRun) errf(bytes int64, format string, args ...any) error {
	size := ""
	if bytes >= 0 {
		size = fmt.Sprintf("%d bytes: ", bytes)
	}
	return fmt.Errorf("bench: %s: %d processes: %srank %d: %w", r.name(), r.plan.block.Processes,
		size, r.world.Rank(), fmt.Errorf(format, args...))
}

func (r *blockRun) run(ctx context.Context) error {
	b := r.plan.block
	me := r.world.Rank()
	nActive := len(b.Groups) * b.Processes
	// pos is this rank's place in the groups' order (group by group; world
	// rank order unless -map reorders it), -1 on idle ranks.
	pos, inOrder := -1, true
	for g, ranks := range b.Groups {
		for k, rank := range ranks {
			inOrder = inOrder && rank == g*b.Processes+k
			if rank == me {
				pos = g*b.Processes + k
			}
		}
	}
	color := comm.Undefined
	if pos >= 0 {
		color = 0
	}
	// A split that would return the same ranks in the same order is
	// skipped: on an MPI library each MPI_Comm_split agrees on a context
	// id with a non-blocking allreduce, after which Open MPI 4 polls its
	// non-blocking collective engine on every progress call (4% of the
	// profile samples of a 1 KiB PingPong).
	var err error
	r.active = r.world
	if nActive < r.world.Size() || !inOrder {
		if r.active, err = r.world.Split(color, pos); err != nil {
			return r.errf(-1, "split active ranks: %w", err)
		}
	}
	if r.active == nil {
		return r.awaitVerdict()
	}
	r.group = r.active
	if len(b.Groups) > 1 {
		if r.group, err = r.active.Split(pos/b.Processes, pos); err != nil {
			return r.errf(-1, "split groups: %w", err)
		}
	}
	if r.plan.spec.Collective != "" {
		if err := r.algorithms(); err != nil {
			return r.errf(-1, "%w", err)
		}
		b = r.plan.block
	}
	if r.sink != nil {
		r.fail = r.sink.Begin(b)
	}
	r.start = r.world.Wtime()
	verdict, err := r.sizes(ctx)
	if err == nil && me == 0 {
		// Release the idle ranks with the block's outcome.
		for _, idle := range idleRanks(b, r.world.Size()) {
			if serr := r.world.Send(verdict.encode(), idle, tagVerdict); serr != nil {
				err = r.errf(-1, "release idle rank %d: %w", idle, serr)
				break
			}
		}
	}
	if r.sink != nil {
		b.TimeOut = r.timeOut
		if eerr := r.sink.End(b); eerr != nil && err == nil && r.fail == nil {
			err = fmt.Errorf("bench: %s: %w", r.name(), eerr)
		}
	}
	if err != nil {
		return err
	}
	return r.verdictErr(verdict)
}

// idleRanks lists the world ranks of np that are in none of b's groups.
func idleRanks(b Block, np int) []int {
	busy := make([]bool, np)
	for _, ranks := range b.Groups {
		for _, rank := range ranks {
			busy[rank] = true
		}
	}
	var idle []int
	for rank, isBusy := range busy {
		if !isBusy {
			idle = append(idle, rank)
		}
	}
	return idle
}

// awaitVerdict is an idle rank's part of a block.
func (r *blockRun) awaitVerdict() error {
	buf := make([]byte, 16+maxNote)
	st, err := r.world.Recv(buf, 0, tagVerdict)
	if err != nil {
		return r.errf(-1, "idle rank waiting for the block's end: %w", err)
	}
	v, err := decode(buf[:st.Count])
	if err != nil {
		return r.errf(-1, "%w", err)
	}
	return r.verdictErr(v)
}

// verdictErr turns a final verdict into Run's result on this rank.
func (r *blockRun) verdictErr(v record) error {
	switch v.count {
	case verdictDone:
		return nil
	case verdictTimeOut:
		r.timedOut = true
		return nil
	case verdictStop:
		if r.world.Rank() == 0 && r.fail != nil {
			return r.fail
		}
		return fmt.Errorf("bench: %s: stopped by rank 0 (%s): %w", r.name(), v.note, context.Canceled)
	}
	if r.world.Rank() == 0 && r.fail != nil {
		return r.fail
	}
	return &RelayedError{Note: v.note}
}

// RelayedError is what a rank other than 0 returns from Run when rank 0
// ended the block for a failure of its own (a sink error such as a full
// disk, a -check defect): Note is rank 0's account, word for word. Its
// Relayed method tells the launcher (launch.ReportError) that the failure
// began elsewhere, so that the job's summary names rank 0, not the rank
// that happened to exit first.
type RelayedError struct {
	Note string // rank 0's error message
}

// Error returns rank 0's account.
func (e *RelayedError) Error() string { return e.Note }

// Relayed reports true: the failure is rank 0's.
func (e *RelayedError) Relayed() bool { return true }

// sizes measures every message size of the block; it returns the final
// verdict (done, stop or abort) or a communication error.
func (r *blockRun) sizes(ctx context.Context) (record, error) {
	sizes := r.plan.sizes
	prev := 0
	for i := 0; ; i++ {
		v := record{count: verdictGo}
		if i == len(sizes) {
			v.count = verdictDone
			if r.timeOut != nil {
				v.count = verdictTimeOut
			}
		}
		if r.world.Rank() == 0 {
			if r.fail != nil {
				v = record{count: verdictAbort, note: r.fail.Error()}
			} else if err := ctx.Err(); err != nil && i < len(sizes) {
				v = record{count: verdictStop, note: err.Error()}
				r.fail = fmt.Errorf("bench: %s: stopped: %w", r.name(), err)
			}
		}
		var err error
		if v, err = bcast(r.active, v, tagVerdict); err != nil {
			return v, r.errf(-1, "verdict: %w", err)
		}
		if v.count != verdictGo {
			return v, nil
		}
		res, n, err := r.measure(sizes[i], prev)
		if errors.Is(err, errTimedOut) {
			sizes = sizes[:i+1] // the next turn ends the block
			continue
		}
		if err != nil {
			return v, err
		}
		prev = n
		r.counts = append(r.counts, n)
		recs, err := gather(r.active, res, tagResult)
		if err != nil {
			return v, r.errf(sizes[i], "gather results: %w", err)
		}
		var samples [][]float64
		if r.opts.PerRepetition || r.opts.SyncAll {
			if samples, err = gatherSamples(r.active, r.reps); err != nil {
				return v, r.errf(sizes[i], "gather repetition times: %w", err)
			}
		}
		if r.world.Rank() == 0 {
			r.report(sizes[i], n, recs, samples)
		}
	}
}

// report builds the rows of one size at rank 0 and hands them to the sink.
// samples, when not nil, are every active rank's repetition times.
func (r *blockRun) report(bytes int64, n int, recs []record, samples [][]float64) {
	b := r.plan.block
	before := r.fail                  // rows measured after a failure are not reported
	spans := [][2]int{{0, len(recs)}} // active ranks per row
	if b.Multi == result.MultiEach {
		spans = spans[:0]
		for g := range b.Groups {
			spans = append(spans, [2]int{g * b.Processes, (g + 1) * b.Processes})
		}
	}
	for g, span := range spans {
		row := r.row(bytes, n, recs[span[0]:span[1]])
		if b.Multi == result.MultiEach {
			row.Group = g
		}
		if samples != nil && b.Class.SlowestSpread && r.opts != nil && r.opts.SyncAll { // collectives and Barrier
			if t := CallMax(samples[span[0]:span[1]]); !math.IsNaN(t) {
				row.SetExtra(result.ExtraCallMax, t)
			}
		}
		if samples != nil {
			k := r.spreadRank(recs, span)
			row.Spread = result.NewSpread(r.worldRank(k), samples[k])
		}
		if row.Defects > 0 && r.fail == nil {
			for k, rec := range recs[span[0]:span[1]] {
				if rec.count > 0 {
					r.fail = &CheckError{Benchmark: b.Benchmark, Bytes: bytes, Rank: span[0] + k,
						Defects: int64(row.Defects), Msg: rec.note}
					break
				}
			}
		}
		if r.sink != nil && before == nil {
			if err := r.sink.Row(b, row); err != nil && r.fail == nil {
				r.fail = fmt.Errorf("bench: %s: %d bytes: %w", b.Benchmark, bytes, err)
			}
		}
	}
}

// spreadRank is the active rank whose repetition times stand for the row
// of active ranks span: the first, or under Class.SlowestSpread
// (collectives, Barrier) the slowest, whose mean time is the row's t_max.
func (r *blockRun) spreadRank(recs []record, span [2]int) int {
	k := span[0]
	if r.plan.block.Class.SlowestSpread {
		for i := span[0]; i < span[1]; i++ {
			if recs[i].value > recs[k].value {
				k = i
			}
		}
	}
	return k
}

// worldRank is the world rank of active rank k (groups in order).
func (r *blockRun) worldRank(k int) int {
	b := r.plan.block
	return b.Groups[k/b.Processes][k%b.Processes]
}

// row aggregates the records of one row's ranks (IMB_calculate_times),
// then sets its rates by its class (Class.Rates).
func (r *blockRun) row(bytes int64, n int, recs []record) result.Row {
	b := r.plan.block
	rowBytes := bytes
	if b.Class.Sizeless {
		rowBytes = -1
	}
	row := result.NewRow(b.Benchmark, b.Processes, rowBytes)
	row.Multi = b.Multi
	row.Groups = len(b.Groups)
	row.Repetitions = int64(n)
	row.TMin, row.TMax, row.TAvg = math.Inf(1), math.Inf(-1), 0
	var defects int64
	for _, rec := range recs {
		row.TMin = math.Min(row.TMin, rec.value)
		row.TMax = math.Max(row.TMax, rec.value)
		row.TAvg += rec.value / float64(len(recs))
		defects += rec.count
	}
	if rates := b.Class.Rates; rates != nil {
		rates(b, &row)
	}
	if b.Check {
		row.Defects = float64(defects)
	}
	row.Algorithm = r.algs[bytes]
	return row
}

// algorithms records which collective algorithm each message size of the
// block runs on this rank's group (coll's Algorithms.For: the override,
// the decision table, or the library's own where the communicator offers
// the collective natively),
// for the rows and, as size ranges, for the block header.
func (r *blockRun) algorithms() error {
	r.algs = map[int64]string{}
	var spans []AlgorithmSpan
	for _, bytes := range r.plan.sizes {
		ch, err := r.opts.Algorithms.For(r.group, r.plan.spec.Collective, int(bytes))
		if err != nil {
			return err
		}
		alg := ch.String()
		r.algs[bytes] = alg
		if n := len(spans); n > 0 && spans[n-1].Algorithm == alg {
			spans[n-1].MaxBytes = bytes
			continue
		}
		spans = append(spans, AlgorithmSpan{MinBytes: bytes, MaxBytes: bytes, Algorithm: alg})
	}
	r.plan.block.Algorithms = spans
	return nil
}
