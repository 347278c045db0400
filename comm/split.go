package comm

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
)

// splitTag is the runtime-context tag of Split's exchange (Barrier uses
// tags 0..62 for its rounds).
const splitTag = 100

// splitEntry is one rank's contribution to a Split: 3 little-endian int64
// (color, key, the smallest communicator id unused on that rank).
const splitEntry = 24

// Split partitions c by color into new communicators (MPI_Comm_split):
// ranks passing the same color form one, ordered by (key, rank in c). It
// is collective over c. color must be >= 0 or Undefined; a rank passing
// Undefined gets a nil Comm and a nil error.
//
// Every rank sends (color, key, next free id) to every other rank on c's
// runtime context. The new communicator's id is the largest next free id
// of all ranks of c, and each rank's next free id moves past it, so the id
// is one every member agrees on and none has in use (the agreement of
// MPICH's context-id allocation, with a maximum in place of a bit mask).
// Ranks of different colors share the id; their groups are disjoint.
func (c *communicator) Split(color, key int) (Comm, error) {
	if color < 0 && color != Undefined {
		return nil, fmt.Errorf("comm: split with color %d: want a color >= 0 or Undefined", color)
	}
	e := c.e
	n := c.size
	e.mu.Lock()
	next := e.nextID
	e.mu.Unlock()

	all := make([]byte, n*splitEntry)
	mine := all[c.rank*splitEntry : (c.rank+1)*splitEntry]
	binary.LittleEndian.PutUint64(mine[0:], uint64(int64(color)))
	binary.LittleEndian.PutUint64(mine[8:], uint64(int64(key)))
	binary.LittleEndian.PutUint64(mine[16:], uint64(next))
	if err := c.allgatherRuntime(all, splitEntry, splitTag); err != nil {
		return nil, fmt.Errorf("comm: split: %w", err)
	}

	type member struct{ color, key, rank int }
	members := make([]member, n)
	id := uint64(0)
	for i := range members {
		b := all[i*splitEntry:]
		members[i] = member{
			color: int(int64(binary.LittleEndian.Uint64(b[0:]))),
			key:   int(int64(binary.LittleEndian.Uint64(b[8:]))),
			rank:  i,
		}
		id = max(id, binary.LittleEndian.Uint64(b[16:]))
	}
	if id > maxCommID {
		return nil, fmt.Errorf("comm: split: communicator ids exhausted (%d in use)", id)
	}
	e.mu.Lock()
	e.nextID = max(e.nextID, uint32(id)+1)
	e.mu.Unlock()
	if color == Undefined {
		return nil, nil
	}

	group := slices.DeleteFunc(members, func(m member) bool { return m.color != color })
	slices.SortFunc(group, func(a, b member) int {
		if a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		return cmp.Compare(a.rank, b.rank)
	})
	world := make([]int, len(group))
	for i, m := range group {
		world[i] = c.world[m.rank]
	}
	return newCommunicator(e, uint32(id), world), nil
}

// allgatherRuntime gathers every rank's block of size bytes into buf
// (rank i's block at buf[i*size:]; the caller's own block is filled in)
// by sending the own block to every other rank and receiving theirs, on
// c's runtime context with tag.
func (c *communicator) allgatherRuntime(buf []byte, size int, tag int32) error {
	e := c.e
	ctx := c.ctx(c.kinds.runtime)
	mine := buf[c.rank*size : (c.rank+1)*size]
	var recvs []*request
	for i := 0; i < c.size; i++ {
		if i == c.rank {
			continue
		}
		r := e.newRequest(c, reqRecv, buf[i*size:(i+1)*size], c.world[i], ctx, tag, false, nil)
		e.startRecv(r, false)
		recvs = append(recvs, r)
	}
	var first error
	for i := 0; i < c.size; i++ {
		if i == c.rank {
			continue
		}
		r, err := e.startSend(c, mine, c.world[i], ctx, tag, false, nil)
		if err == nil && r != nil {
			_, err = r.Wait()
		}
		if err != nil && first == nil {
			first = err
		}
	}
	for _, r := range recvs {
		if first != nil {
			e.cancel(r, first)
		}
		if _, err := r.Wait(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
