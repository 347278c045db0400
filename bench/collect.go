package bench

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/mpbench/mpbench/comm"
)

// The runner's control traffic uses point-to-point messages only, so that
// benchmarking a collective algorithm never depends on it (IMB gathers with
// MPI_Gather and MPI_Bcast; a broken collective would then hide its own
// failure). Root is always rank 0 of the communicator; distribution is
// linear, which is cheap next to a benchmark sample.

// Tags of the runner's control messages, above any tag a kernel uses.
const (
	tagVerdict = comm.MaxTag - iota
	tagProbe
	tagReps
	tagResult
	tagBarrier
	tagSamples
)

// maxNote is the longest note (error text) carried in a control message.
const maxNote = 400

// record is the fixed part of a control message: a number and a count.
type record struct {
	value float64 // a time in usec or seconds
	count int64   // a code or a defect count
	note  string  // an error description, "" when none
}

func (r record) encode() []byte {
	note := r.note
	if len(note) > maxNote {
		note = note[:maxNote]
	}
	b := make([]byte, 16, 16+len(note))
	binary.LittleEndian.PutUint64(b[0:], math.Float64bits(r.value))
	binary.LittleEndian.PutUint64(b[8:], uint64(r.count))
	return append(b, note...)
}

func decode(b []byte) (record, error) {
	if len(b) < 16 {
		return record{}, fmt.Errorf("control message of %d bytes, want at least 16", len(b))
	}
	return record{
		value: math.Float64frombits(binary.LittleEndian.Uint64(b[0:])),
		count: int64(binary.LittleEndian.Uint64(b[8:])),
		note:  string(b[16:]),
	}, nil
}

// gather sends r from every rank of c to rank 0, which returns all records
// by rank (others return nil).
func gather(c comm.Comm, r record, tag int) ([]record, error) {
	if c.Rank() != 0 {
		return nil, c.Send(r.encode(), 0, tag)
	}
	out := make([]record, c.Size())
	out[0] = r
	buf := make([]byte, 16+maxNote)
	for src := 1; src < c.Size(); src++ {
		st, err := c.Recv(buf, src, tag)
		if err != nil {
			return nil, err
		}
		if out[src], err = decode(buf[:st.Count]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// bcast sends rank 0's r to every rank of c and returns it everywhere.
func bcast(c comm.Comm, r record, tag int) (record, error) {
	if c.Rank() != 0 {
		buf := make([]byte, 16+maxNote)
		st, err := c.Recv(buf, 0, tag)
		if err != nil {
			return record{}, err
		}
		return decode(buf[:st.Count])
	}
	msg := r.encode()
	for dst := 1; dst < c.Size(); dst++ {
		if err := c.Send(msg, dst, tag); err != nil {
			return record{}, err
		}
	}
	return r, nil
}

// barrier is the runner's barrier on c: c.Barrier, or under -imb_barrier
// (p2p true) a dissemination barrier of point-to-point messages (Hensgen,
// Finkel and Manber, "Two algorithms for barrier synchronization", 1988):
// in round k every rank sends an empty message to rank+2^k and receives
// one from rank-2^k, ceil(log2 p) rounds, so no rank leaves before every
// rank has entered. It stands in for IMB's MPI-independent barrier
// (-imb_barrier on).
func barrier(c comm.Comm, p2p bool) error {
	if !p2p {
		return c.Barrier()
	}
	p, me := c.Size(), c.Rank()
	var none [0]byte
	for dist := 1; dist < p; dist *= 2 {
		if _, err := c.Sendrecv(none[:], (me+dist)%p, tagBarrier, none[:], (me-dist+p)%p, tagBarrier); err != nil {
			return err
		}
	}
	return nil
}

// gatherSamples sends every rank's repetition times (usec) to rank 0 of c,
// which returns them by rank (others return nil). It runs after the timed
// loop, outside any timing.
func gatherSamples(c comm.Comm, reps []float64) ([][]float64, error) {
	encode := func(v []float64) []byte {
		b := make([]byte, 8*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
		return b
	}
	if c.Rank() != 0 {
		return nil, c.Send(encode(reps), 0, tagSamples)
	}
	out := make([][]float64, c.Size())
	out[0] = reps
	buf := make([]byte, 8*len(reps)) // every rank runs the same count
	for src := 1; src < c.Size(); src++ {
		st, err := c.Recv(buf, src, tagSamples)
		if err != nil {
			return nil, err
		}
		v := make([]float64, st.Count/8)
		for i := range v {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*i:]))
		}
		out[src] = v
	}
	return out, nil
}
