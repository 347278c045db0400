package bench

import (
	"fmt"
	"runtime"
	"time"

	"github.com/mpbench/mpbench/comm"
)

// measure runs one message size on this active rank: probe, agreement on
// the repetition count, warm-up, barriers, timed loop and, under -check,
// the verification pass. It returns this rank's record (time per
// iteration in usec after Spec.ScaleTime; defect count and first defect)
// and the repetition count; under Options.PerRepetition r.reps holds the
// timed loop's repetition times in usec after Spec.ScaleTime.
func (r *blockRun) measure(bytes int64, prev int) (res record, n int, err error) {
	spec := &r.plan.spec
	// On an MPI library the buffers are the library's (MPI_Alloc_mem), new
	// for this size and freed after it, as IMB's are; elsewhere Go memory
	// that the next size reuses.
	lib, _ := r.group.(comm.MemAllocator)
	bufs, err := newBuffers(spec, bytes, r.plan.block.Processes, r.opts, r.bufs, lib)
	if err != nil {
		return record{}, 0, r.errf(bytes, "%w", err)
	}
	if lib == nil {
		r.bufs = bufs
	} else {
		defer func() {
			if ferr := bufs.free(); ferr != nil && err == nil {
				err = r.errf(bytes, "%w", ferr)
			}
		}()
	}
	return r.measureOn(bufs, bytes, prev, lib != nil)
}

// measureOn is measure on the buffers of the size; collect asks for a
// finished garbage collection before the timed loop.
func (r *blockRun) measureOn(bufs *buffers, bytes int64, prev int, collect bool) (record, int, error) {
	spec := &r.plan.spec
	env := &Env{Comm: r.group, Bytes: bytes, IMBBarrier: r.opts.IMBBarrier, Sync: r.opts.Sync, RootShift: r.opts.RootShift,
		Algorithms: r.opts.Algorithms, Params: r.plan.block.Params, RedType: r.opts.redType(), DataType: r.opts.dataType(), bufs: bufs}

	if r.opts.SyncAll {
		env.syncComm = r.active
	}
	n, err := r.repetitions(env, bytes, prev)
	if err != nil {
		return record{}, 0, err
	}

	if r.opts.Warmup {
		if _, err := r.call(env, WarmupRepetitions(n)); err != nil {
			return record{}, 0, r.errf(bytes, "warm-up: %w", err)
		}
	}
	// On an MPI library (one process per rank), finish any garbage
	// collection the allocations so far have started, and start the loop
	// with the collector's budget fresh: a cycle in progress runs its mark
	// workers beside the timed loop, on a core the partner rank needs, and
	// on a host with as many cores as ranks it made single rows of short
	// loops twice as slow. The C loops allocate nothing, so no cycle
	// starts during them. (Where ranks share a process, one rank's
	// collection would stop every rank.) This is the one step IMB-MPI1
	// does not have; it makes no library call and ends before the
	// barriers.
	if collect {
		runtime.GC()
	}
	called := r.world.Wtime()
	if err := r.barriers(); err != nil {
		return record{}, 0, r.errf(bytes, "barrier: %w", err)
	}
	if r.opts.PerRepetition || r.opts.SyncAll {
		env.reps = make([]float64, n)
	}
	secs, err := spec.Kernel(env, n)
	reps := env.reps
	env.reps = nil
	if err != nil {
		return record{}, 0, r.errf(bytes, "%w", err)
	}
	if r.opts.MsgPause {
		time.Sleep(MsgPause(r.world.Wtime() - called))
	}
	scale := spec.ScaleTime
	if scale == 0 {
		scale = 1
	}
	res := record{value: secs / float64(n) * 1e6 * scale}
	for i := range reps {
		reps[i] *= 1e6 * scale
	}
	r.reps = reps
	if r.opts.Check && spec.Expect != nil {
		if res.count, res.note, err = r.verify(env, n); err != nil {
			return record{}, 0, r.errf(bytes, "-check pass: %w", err)
		}
	}
	return res, n, nil
}

// MsgPause is the pause of IMB's -msg_pause after a message size whose
// timed call (its two barriers and the timed loop) took secs seconds: a
// tenth of it, at least 0.1 s (original_benchmark.h, SLEEP(t) after the
// benchmark function).
func MsgPause(secs float64) time.Duration {
	return max(time.Duration(secs/10*float64(time.Second)), 100*time.Millisecond)
}

// call runs n iterations of the size's kernel, untimed by the runner, as
// IMB calls its benchmark function for a probe or the warm-up: every IMB
// kernel starts with N_BARR (2) barriers of its communicator, so each call
// starts from ranks that left a barrier together (IMB_bandwidth.c,
// IMB_pingpong.c, IMB_allreduce.c, ...). With n = 0 only the barriers run,
// as in IMB's warm-up of a 1-repetition size. It returns the kernel's
// seconds on this rank.
func (r *blockRun) call(env *Env, n int) (float64, error) {
	if err := r.barriers(); err != nil {
		return 0, fmt.Errorf("barrier: %w", err)
	}
	if n == 0 {
		return 0, nil
	}
	return r.plan.spec.Kernel(env, n)
}

// barriers are the two barriers (IMB's N_BARR) before each call of a
// kernel: the communicator's barrier, or under -imb_barrier mpbench's
// point-to-point one unless the benchmark keeps the communicator's
// (Spec.LibraryBarrier, IMB's point-to-point kernels).
func (r *blockRun) barriers() error {
	p2p := r.opts.IMBBarrier && !r.plan.spec.LibraryBarrier
	for range 2 {
		if err := barrier(r.active, p2p); err != nil {
			return err
		}
	}
	return nil
}

// repetitions fixes the repetition count of message size bytes on every
// active rank by IMB-MPI1 2021.x's policy (IMB_init_buffers_iter): where
// the counts come from probes (Options.Probes: the dynamic policy, and
// auto's unrooted benchmarks) every rank probes one iteration; rank 0
// takes the slowest and sizes a second probe (SecondProbeRepetitions),
// which every rank runs when it is longer than one iteration; from the
// slowest second probe (or the first, without one) rank 0 caps the base
// count (CapRepetitions, or ListRepetitions when the sizes come from
// -msglen or -msgsize). Otherwise (off, multiple_np, auto's rooted
// collectives) the count is Options.SampleRepetitions, and every rank runs
// it once untimed where the probes would be, as IMB does. Each probe is a
// call (two barriers, then the kernel). After the probes rank 0 applies
// the time limit (limitReps); errTimedOut is then returned on every
// active rank.
func (r *blockRun) repetitions(env *Env, bytes int64, prev int) (int, error) {
	spec := &r.plan.spec
	rank0 := r.active.Rank() == 0
	var agreed record // count: the repetitions or repsTimedOut; value: the second probe's iterations
	if !r.opts.Probes(spec) {
		n := r.opts.SampleRepetitions(spec, bytes, r.plan.block.Processes)
		if _, err := r.call(env, n); err != nil {
			return 0, r.errf(bytes, "untimed run: %w", err)
		}
		if r.opts.NoTimeOut {
			return n, nil
		}
		if rank0 {
			agreed.count = r.limitReps(bytes, n)
		}
		return r.agree(bytes, agreed)
	}
	base := r.opts.BaseRepetitions(bytes)
	probe := func(k int) (float64, error) {
		secs, err := r.call(env, k)
		if err != nil {
			return 0, r.errf(bytes, "probe: %w", err)
		}
		probes, err := gather(r.active, record{value: secs / float64(k)}, tagProbe)
		if err != nil {
			return 0, r.errf(bytes, "gather probe: %w", err)
		}
		slowest := 0.0
		for _, p := range probes {
			slowest = max(slowest, p.value)
		}
		return slowest, nil // meaningful at rank 0 only
	}
	t, err := probe(1)
	if err != nil {
		return 0, err
	}
	if rank0 {
		agreed.value = float64(SecondProbeRepetitions(base, t))
	}
	if agreed, err = bcast(r.active, agreed, tagReps); err != nil {
		return 0, r.errf(bytes, "repetitions: %w", err)
	}
	if k := int(agreed.value); k > 1 {
		if t, err = probe(k); err != nil {
			return 0, err
		}
	}
	if rank0 {
		n := CapRepetitions(base, prev, t, r.opts.TimeLimit)
		if r.opts.MsgLens != nil && !r.plan.block.Class.Sizeless {
			n = ListRepetitions(base, t, r.opts.TimeLimit, bytes, r.plan.sizes[:len(r.counts)], r.counts)
		}
		agreed = record{count: r.limitReps(bytes, n)}
	}
	return r.agree(bytes, agreed)
}

// agree broadcasts rank 0's agreed record to the active ranks and returns
// its repetition count (agreedCount).
func (r *blockRun) agree(bytes int64, agreed record) (int, error) {
	agreed, err := bcast(r.active, agreed, tagReps)
	if err != nil {
		return 0, r.errf(bytes, "repetitions: %w", err)
	}
	return agreedCount(agreed)
}

// agreedCount is the repetition count of an agreed record, or errTimedOut.
func agreedCount(agreed record) (int, error) {
	if agreed.count == repsTimedOut {
		return 0, errTimedOut
	}
	return int(agreed.count), nil
}

// limitReps is IMB's time check after the probes of a size
// (helper_time_check), at rank 0: n, or repsTimedOut when the block has
// run longer than Options.BenchmarkTimeLimit, which it then records in
// r.timeOut. IMB checks on every rank and stops when any rank is past the
// limit; here rank 0's clock decides, whose block started with the
// others'.
func (r *blockRun) limitReps(bytes int64, n int) int64 {
	if r.opts.NoTimeOut {
		return int64(n)
	}
	elapsed, limit := r.world.Wtime()-r.start, r.opts.BenchmarkTimeLimit()
	if !(elapsed > limit) {
		return int64(n)
	}
	if r.plan.block.Class.Sizeless {
		bytes = int64(1) << r.opts.MsgLogMax // IMB's Sync benchmarks run at its largest size
	}
	r.timeOut = &TimeOut{Bytes: bytes, Elapsed: elapsed, Limit: limit}
	return repsTimedOut
}

// verify is the -check pass: for each of the n repetitions, untimed, every
// rank fills its send area with Pattern(group rank, bytes, rep), overwrites
// its receive area with the complement of what it expects, runs one
// iteration and compares every byte. Checking outside the timed loop keeps
// times undistorted; IMB instead checks the last receive buffer of a
// sample. It returns the number of wrong bytes and a description of the
// first.
func (r *blockRun) verify(env *Env, n int) (defects int64, note string, err error) {
	spec := &r.plan.spec
	defer func() {
		env.first = 0
		if checkDone != nil {
			checkDone(env)
		}
	}()
	var want []byte
	for rep := 0; rep < n; rep++ {
		env.first = rep
		send := env.Send(0)
		if spec.Fill != nil {
			spec.Fill(env, rep, send)
		} else {
			Pattern(send, env.Comm.Rank(), env.Bytes, rep, 0)
		}
		if corruptSend != nil {
			corruptSend(env, rep, send)
		}
		got := env.Recv(0)
		if want == nil {
			want = make([]byte, len(got))
		}
		spec.Expect(env, rep, want)
		poison(got, want)
		if _, err := spec.Kernel(env, 1); err != nil {
			return defects, note, err
		}
		if spec.Received != nil {
			k := spec.Received(env, rep)
			got, want = got[:k], want[:k]
		}
		count, off := firstDefect(got, want)
		if count > 0 && note == "" {
			note = fmt.Sprintf("bench: %s: %d bytes: rank %d: -check: byte offset %d of the receive area in repetition %d is 0x%02x, want 0x%02x (%d wrong bytes in that repetition)",
				r.name(), env.Bytes, r.world.Rank(), off, rep, got[off], want[off], count)
		}
		defects += count
		want = want[:cap(want)]
	}
	return defects, note, nil
}

// corruptSend, when set (by tests only), alters a rank's send area after
// the -check fill, to prove that a wrong contribution is detected; tests
// that corrupt data in transit use it to learn the repetition. checkDone,
// when set (by tests only), is called on each rank as its -check pass ends.
var (
	corruptSend func(e *Env, rep int, send []byte)
	checkDone   func(e *Env)
)
