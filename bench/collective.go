package bench

import (
	"encoding/binary"
	"math"

	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/comm"
)

// Shared parts of the collective benchmarks (IMB-MPI1's Collective and
// Sync classes). Each benchmark's kernel calls one package coll function
// on the group communicator with e.Algorithms; coll runs the library's own
// collective instead when the communicator offers it natively
// (coll.NativeBcast, ...).

// timeCalls is the loop of IMB's collective kernels (IMB_allreduce.c and
// siblings): every call is timed on its own and the times are summed;
// under -sync (e.Sync) a barrier follows each call outside the timed
// region, so that one call's stragglers do not overlap the next call.
// It returns the summed time in seconds, and keeps each call's time as
// its repetition time when e keeps them.
func timeCalls(e *Env, n int, call func(i int) error) (float64, error) {
	c := e.Comm
	total := 0.0
	for i := 0; i < n; i++ {
		start := c.Wtime()
		if err := call(i); err != nil {
			return 0, err
		}
		dt := c.Wtime() - start
		total += dt
		if e.reps != nil {
			e.reps[i] = dt
		}
		if e.Sync {
			sc := c
			if e.syncComm != nil {
				sc = e.syncComm
			}
			if err := barrier(sc, e.IMBBarrier); err != nil {
				return 0, err
			}
		}
	}
	return total, nil
}

// collectiveLoop offers a collective kernel's loop l to a communicator
// that runs timed loops itself (see runLoop) when the collective, coll's
// name for it, runs natively there (coll.Algorithms.For chooses
// coll.AlgNative: no --coll override) and the barriers of -sync are the
// communicator's own (not -imb_barrier's, nor --sync-all's, which join
// every group). A loop without a collective name ("": Reduce_local, which
// communicates nothing) is offered whatever --coll says. It fills in Sync
// and RootShift from e. Run has refused beforehand a -data_type that such
// a kept loop could not honour (checkLoopDataType).
func (e *Env) collectiveLoop(l comm.Loop, collective string, n int) (secs float64, ran bool, err error) {
	l.Sync = e.Sync && l.Kind != comm.LoopBarrier
	opt, _, err := keptFromLibrary(e.Comm, e.Algorithms, collective, l.Sync, e.IMBBarrier, e.syncComm != nil)
	if err != nil {
		return 0, true, err
	}
	if opt != "" {
		return 0, false, nil
	}
	l.RootShift = e.RootShift
	return e.runLoop(l, n)
}

// keptFromLibrary says why a collective's timed loop cannot run in a
// runtime that runs loops itself: the option responsible and its effect
// (opt "" when the loop can run there). -sync's barriers are mpbench's
// (imbBarrier) or join every group (syncAll), or algs (--coll) choose one
// of mpbench's algorithms for collective (coll's name; "" for none). The
// error is coll's for an unknown collective.
func keptFromLibrary(c comm.Comm, algs coll.Algorithms, collective string, sync, imbBarrier, syncAll bool) (opt, effect string, err error) {
	switch {
	case sync && imbBarrier:
		return "-imb_barrier", "-sync's barriers are then mpbench's", nil
	case sync && syncAll:
		return "--sync-all", "-sync's barrier then joins every group", nil
	case collective == "":
		return "", "", nil
	}
	ch, err := algs.For(c, collective, 0)
	if err != nil || ch.Algorithm == coll.AlgNative {
		return "", "", err
	}
	return "--coll", "it chooses mpbench's " + ch.Algorithm + " algorithm", nil
}

// keptLoopError is the *OptionError for collective (coll's name) running
// its loop from Go on an MPI library under -data_type t because of opt
// (see keptFromLibrary): that loop moves MPI_BYTE.
func keptLoopError(t comm.Datatype, collective, opt, effect string) error {
	return optionErrorf("-data_type %s with %s: %s, so %s runs mpbench's loop, which moves MPI_BYTE (only the library's own timed loops take a datatype); drop -data_type or %s",
		dataTypeMPIName(t), opt, effect, collective, opt)
}

// checkLoopDataType refuses, before anything runs and alike on every
// rank, a -data_type other than MPI_BYTE on a runtime that runs timed
// loops itself (c is a comm.LoopRunner) when a planned collective that
// does not reduce would keep its loop from the runtime
// (keptFromLibrary): an *OptionError naming both options.
func checkLoopDataType(c comm.Comm, o *Options, plan []blockPlan) error {
	t := o.dataType()
	if _, lib := c.(comm.LoopRunner); !lib || t == 0 {
		return nil
	}
	for _, p := range plan {
		s := &p.spec
		if s.Collective == "" || s.Reduction || s.Collective == "barrier" {
			continue
		}
		opt, effect, err := keptFromLibrary(c, o.Algorithms, s.Collective, o.Sync, o.IMBBarrier, o.SyncAll)
		if err != nil {
			return err
		}
		if opt != "" {
			return keptLoopError(t, s.Collective, opt, effect)
		}
	}
	return nil
}

// Root returns the root of the kernel's iteration i: 0, or under
// -root_shift the repetition index modulo the group size, so that the
// root visits every rank in turn (IMB_bcast.c, IMB_reduce.c, ...:
// root = (root + root_shift) % num_procs after each call).
func (e *Env) Root(i int) int { return e.rootAt(e.first + i) }

// rootAt is the root of repetition rep.
func (e *Env) rootAt(rep int) int {
	if !e.RootShift {
		return 0
	}
	return rep % e.Comm.Size()
}

// reductionOp is IMB's reduction operation, MPI_SUM.
const reductionOp = coll.Sum

// FillReduction fills send with the -check values of a reduction of
// elements of dt for group rank rank, message size bytes and repetition
// rep: small integers (-128..127, taken from Pattern) stored as dt, so that
// the sum over any number of ranks up to 2^17 is exact in any type and
// whatever order an algorithm adds in, and a result can be compared bit for
// bit with a local reference. Char elements are Pattern's bytes themselves;
// their sums wrap modulo 2^8, which gives the same bits in any order, and a
// changed byte of any rank's contribution changes the sum.
func FillReduction(send []byte, dt coll.Datatype, rank int, bytes int64, rep int) {
	Pattern(send, rank, bytes, rep, 0)
	size := dt.Size()
	n := len(send) / max(size, 1) * size
	switch dt { // one loop per type: -check fills large vectors per repetition
	case coll.Float32:
		for k := 0; k < n; k += 4 {
			binary.NativeEndian.PutUint32(send[k:], math.Float32bits(float32(int8(send[k]))))
		}
	case coll.Float64:
		for k := 0; k < n; k += 8 {
			binary.NativeEndian.PutUint64(send[k:], math.Float64bits(float64(int8(send[k]))))
		}
	case coll.Int32:
		for k := 0; k < n; k += 4 {
			binary.NativeEndian.PutUint32(send[k:], uint32(int32(int8(send[k]))))
		}
	case coll.Int64:
		for k := 0; k < n; k += 8 {
			binary.NativeEndian.PutUint64(send[k:], uint64(int64(int8(send[k]))))
		}
	case coll.Char: // Pattern's bytes are the elements
	}
}

// fillReduction is FillReduction as a Spec.Fill.
func fillReduction(e *Env, rep int, send []byte) {
	FillReduction(send, e.RedType, e.Comm.Rank(), e.Bytes, rep)
}

// reference returns the element-wise sum of every group rank's
// FillReduction vector of n bytes in repetition rep: what a reduction of
// the whole group must produce.
func reference(e *Env, rep int, n int64) []byte {
	sum := make([]byte, n)
	tmp := make([]byte, n)
	for r := 0; r < e.Comm.Size(); r++ {
		FillReduction(tmp, e.RedType, r, e.Bytes, rep)
		if r == 0 {
			copy(sum, tmp)
			continue
		}
		// Lengths are whole elements by construction; ReduceLocal cannot fail.
		_ = coll.ReduceLocal(e.RedType, reductionOp, sum, tmp)
	}
	return sum
}

// everyRank lists the group ranks 0..procs-1: the sources of the blocks of
// Allgather(v), in rank order.
func everyRank(_, procs int) []int {
	out := make([]int, procs)
	for i := range out {
		out[i] = i
	}
	return out
}

// atRoot is a Spec.Received for collectives whose result lands at the
// root only (Reduce, Gather, Gatherv): the whole area there, nothing
// elsewhere.
func atRoot(e *Env, rep int) int64 {
	if e.Comm.Rank() == e.rootAt(rep) {
		return int64(len(e.Recv(0)))
	}
	return 0
}

// blockCounts returns p counts of b bytes and their packed displacements:
// the v variants' arguments in IMB, which gives every rank the same count.
func blockCounts(p int, b int64) (counts, displs []int) {
	counts, displs = make([]int, p), make([]int, p)
	for i := range counts {
		counts[i], displs[i] = int(b), i*int(b)
	}
	return counts, displs
}

// alignSizes rounds a run's sizes up to whole elements of elem bytes, as
// IMB-MPI1 does: its size loop rounds every length up, len =
// (len+unit-1)/unit*unit, with unit the size of -red_data_type for a
// reduction and of -data_type's datatype for the other benchmarks (IMB
// 2021.11, src_cpp/helpers/helper_IMB_functions.h, helper_init_scope and
// helper_sync_globals_1; src_c/IMB_2018.c before it). A -msglen list (list true) keeps every entry in its order,
// repeats included, as IMB runs each line of the file: 1, 2, 3 give 4, 4,
// 4 for float, and a soak's list that repeats its sizes measures each
// again. The -msglog sweep (list false) is IMB's: 0, then 2^a rounded up,
// doubling, so a size that rounds to the one before it is dropped
// (-msglog 0:4 gives 0, 4, 8, 16 for float).
func alignSizes(sizes []int64, elem int, list bool) []int64 {
	var out []int64
	e := int64(elem)
	for _, s := range sizes {
		s = (s + e - 1) / e * e
		if !list && len(out) > 0 && out[len(out)-1] == s {
			continue
		}
		out = append(out, s)
	}
	return out
}
