package bench

import (
	"errors"

	"github.com/mpbench/mpbench/comm"
)

// runLoop offers the kernel's timed loop l to a communicator that runs
// timed loops itself (comm.LoopRunner: package mpi, in C), after filling in
// what e and n hold: the send and receive slots, the message size and
// datatype (Env.DataType, for the kinds that do not reduce), the first
// repetition's index, n repetitions and the per-repetition times.
// ran is false when the communicator runs no loops or declines this one
// with comm.ErrSkip; the kernel then runs its own loop, which makes the
// same calls on the same slots. Otherwise secs and err are the runner's.
func (e *Env) runLoop(l comm.Loop, n int) (secs float64, ran bool, err error) {
	r, ok := e.Comm.(comm.LoopRunner)
	if !ok {
		return 0, false, nil
	}
	if !l.Kind.Reduces() {
		l.Datatype = e.DataType
	}
	l.Send, l.Recv = e.bufs.send.commSlots(), e.bufs.recv.commSlots()
	l.Bytes, l.First, l.Reps, l.Times = int(e.Bytes), e.first, n, e.reps
	secs, err = r.RunLoop(l)
	if errors.Is(err, comm.ErrSkip) {
		return 0, false, nil
	}
	return secs, true, err
}

// commSlots is a as comm's description of a buffer cut into slots.
func (a *area) commSlots() comm.Slots {
	return comm.Slots{Buf: a.buf, Stride: a.stride, Count: a.slots}
}
