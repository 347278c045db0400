//go:build mpi

package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/mpbench/mpbench/mpi"
)

func collChecks() []check {
	return []check{
		{"bcast", checkBcast},
		{"reduce-allreduce", checkReduce},
		{"gather-scatter-allgather-alltoall", checkBlocks},
		{"gatherv-scatterv-allgatherv-alltoallv", checkVectors},
		{"reduce-scatter", checkReduceScatter},
		{"coll-algorithms-vs-library", checkCollAlgorithms},
	}
}

var (
	allOps   = []mpi.Op{mpi.Sum, mpi.Prod, mpi.Min, mpi.Max}
	allTypes = []mpi.Datatype{mpi.Float32, mpi.Float64, mpi.Int32, mpi.Int64}
)

// elem is element i contributed by rank r to a reduction: a nonzero integer
// in -4..4, so that sums and products of up to 8 ranks are exact in every
// Datatype and no signed zero can appear.
func elem(r, i int) int64 {
	g := int64((r*7 + i*3) % 8)
	if g < 4 {
		return g - 4
	}
	return g - 3
}

// encode writes vals as elements of dt in the host's byte order.
func encode(dt mpi.Datatype, vals []int64) []byte {
	var b []byte
	for _, v := range vals {
		switch dt {
		case mpi.Float32:
			b = binary.NativeEndian.AppendUint32(b, math.Float32bits(float32(v)))
		case mpi.Float64:
			b = binary.NativeEndian.AppendUint64(b, math.Float64bits(float64(v)))
		case mpi.Int32:
			b = binary.NativeEndian.AppendUint32(b, uint32(int32(v)))
		case mpi.Int64:
			b = binary.NativeEndian.AppendUint64(b, uint64(v))
		}
	}
	return b
}

// contribution is rank r's n elements starting at element offset off.
func contribution(r, off, n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = elem(r, off+i)
	}
	return v
}

// reference reduces the contributions of ranks 0..size-1 with op, locally.
func reference(op mpi.Op, size, off, n int) []int64 {
	acc := contribution(0, off, n)
	for r := 1; r < size; r++ {
		for i, v := range contribution(r, off, n) {
			switch op {
			case mpi.Sum:
				acc[i] += v
			case mpi.Prod:
				acc[i] *= v
			case mpi.Min:
				acc[i] = min(acc[i], v)
			case mpi.Max:
				acc[i] = max(acc[i], v)
			}
		}
	}
	return acc
}

func checkBcast(c *mpi.Comm) error {
	for root := 0; root < c.Size(); root++ {
		for _, n := range []int{0, 1, 1000, 1 << 20} {
			buf := make([]byte, n)
			if c.Rank() == root {
				buf = pattern(n, root)
			}
			if err := c.Bcast(buf, root); err != nil {
				return err
			}
			if !bytes.Equal(buf, pattern(n, root)) {
				return fmt.Errorf("root %d, %d bytes: contents differ", root, n)
			}
		}
	}
	return nil
}

func checkReduce(c *mpi.Comm) error {
	const n = 1000
	root := c.Size() - 1
	for _, dt := range allTypes {
		for _, op := range allOps {
			send := encode(dt, contribution(c.Rank(), 0, n))
			want := encode(dt, reference(op, c.Size(), 0, n))
			recv := make([]byte, len(send))
			if err := c.Allreduce(send, recv, op, dt); err != nil {
				return err
			}
			if !bytes.Equal(recv, want) {
				return fmt.Errorf("Allreduce %v %v: result differs from the local reference", op, dt)
			}
			clear(recv)
			if err := c.Reduce(send, recv, op, dt, root); err != nil {
				return err
			}
			if c.Rank() == root && !bytes.Equal(recv, want) {
				return fmt.Errorf("Reduce %v %v at root %d: result differs from the local reference", op, dt, root)
			}
		}
	}
	if err := checkCharSum(c, root); err != nil {
		return err
	}
	if err := c.Allreduce(make([]byte, 6), make([]byte, 6), mpi.Sum, mpi.Int32); err == nil {
		return fmt.Errorf("Allreduce of 6 bytes as Int32 succeeded, want an error")
	}
	return nil
}

// checkBlocks checks the fixed-block collectives with blocks of 3 and 4096
// bytes; block j of rank r is pattern(block, r*100+j).
func checkBlocks(c *mpi.Comm) error {
	p, me := c.Size(), c.Rank()
	root := p / 2
	for _, blk := range []int{3, 4096} {
		own := pattern(blk, me*100)
		all := func(seed func(r int) int) []byte {
			var b []byte
			for r := 0; r < p; r++ {
				b = append(b, pattern(blk, seed(r))...)
			}
			return b
		}
		gathered := all(func(r int) int { return r * 100 })

		recv := make([]byte, p*blk)
		if err := c.Allgather(own, recv); err != nil {
			return err
		}
		if !bytes.Equal(recv, gathered) {
			return fmt.Errorf("Allgather, %d-byte blocks: contents differ", blk)
		}
		clear(recv)
		if err := c.Gather(own, recv, root); err != nil {
			return err
		}
		if me == root && !bytes.Equal(recv, gathered) {
			return fmt.Errorf("Gather, %d-byte blocks: contents differ", blk)
		}

		var send []byte
		if me == root {
			send = all(func(r int) int { return 1000 + r })
		}
		got := make([]byte, blk)
		if err := c.Scatter(send, got, root); err != nil {
			return err
		}
		if !bytes.Equal(got, pattern(blk, 1000+me)) {
			return fmt.Errorf("Scatter, %d-byte blocks: contents differ", blk)
		}

		// Alltoall: block j of rank r is seeded r*100+j; rank me receives
		// block me of every rank r at position r.
		send = all(func(j int) int { return me*100 + j })
		recv = make([]byte, p*blk)
		if err := c.Alltoall(send, recv); err != nil {
			return err
		}
		if !bytes.Equal(recv, all(func(r int) int { return r*100 + me })) {
			return fmt.Errorf("Alltoall, %d-byte blocks: contents differ", blk)
		}
	}
	return nil
}

// vlayout gives rank i a block of i*3 bytes (rank 0 sends nothing), laid
// out in reverse rank order with one unused byte before each block.
func vlayout(p int) (counts, displs []int, total int) {
	counts, displs = make([]int, p), make([]int, p)
	for i := p - 1; i >= 0; i-- {
		counts[i] = i * 3
		total++ // gap
		displs[i] = total
		total += counts[i]
	}
	return counts, displs, total
}

// place returns a buffer of total bytes holding pattern(counts[i], seed(i))
// at displs[i] and 0xEE in the gaps.
func place(counts, displs []int, total int, seed func(i int) int) []byte {
	b := bytes.Repeat([]byte{0xEE}, total)
	for i := range counts {
		copy(b[displs[i]:], pattern(counts[i], seed(i)))
	}
	return b
}

func checkVectors(c *mpi.Comm) error {
	p, me := c.Size(), c.Rank()
	root := p - 1
	counts, displs, total := vlayout(p)
	own := pattern(counts[me], me)
	gathered := place(counts, displs, total, func(i int) int { return i })

	recv := bytes.Repeat([]byte{0xEE}, total)
	if err := c.Allgatherv(own, recv, counts, displs); err != nil {
		return err
	}
	if !bytes.Equal(recv, gathered) {
		return fmt.Errorf("Allgatherv: contents differ")
	}
	recv = bytes.Repeat([]byte{0xEE}, total)
	if err := c.Gatherv(own, recv, counts, displs, root); err != nil {
		return err
	}
	if me == root && !bytes.Equal(recv, gathered) {
		return fmt.Errorf("Gatherv: contents differ")
	}

	send := place(counts, displs, total, func(i int) int { return 500 + i })
	got := make([]byte, counts[me])
	if err := c.Scatterv(send, counts, displs, got, root); err != nil {
		return err
	}
	if !bytes.Equal(got, pattern(counts[me], 500+me)) {
		return fmt.Errorf("Scatterv: contents differ")
	}

	// Alltoallv: rank i sends (i+j)%3+j bytes to rank j, seeded i*100+j,
	// laid out with vlayout-style gaps in rank order on both sides.
	sz := func(i, j int) int { return (i+j)%3 + j }
	layout := func(n func(k int) int) (cnt, dsp []int, tot int) {
		cnt, dsp = make([]int, p), make([]int, p)
		for k := 0; k < p; k++ {
			tot++
			cnt[k], dsp[k] = n(k), tot
			tot += cnt[k]
		}
		return cnt, dsp, tot
	}
	sc, sd, st := layout(func(j int) int { return sz(me, j) })
	rc, rd, rt := layout(func(i int) int { return sz(i, me) })
	send = place(sc, sd, st, func(j int) int { return me*100 + j })
	recv = bytes.Repeat([]byte{0xEE}, rt)
	if err := c.Alltoallv(send, sc, sd, recv, rc, rd); err != nil {
		return err
	}
	if want := place(rc, rd, rt, func(i int) int { return i*100 + me }); !bytes.Equal(recv, want) {
		return fmt.Errorf("Alltoallv: contents differ")
	}
	if err := c.Gatherv(own, make([]byte, 2), counts, displs, me); err == nil && p > 1 {
		return fmt.Errorf("Gatherv with a 2-byte receive buffer at the root succeeded, want a layout error")
	}
	return nil
}

func checkReduceScatter(c *mpi.Comm) error {
	p, me := c.Size(), c.Rank()
	counts := make([]int, p)
	total, off := 0, 0
	for i := range counts {
		counts[i] = i + 1
		if i < me {
			off += counts[i]
		}
		total += counts[i]
	}
	const blk = 5
	for _, dt := range allTypes {
		for _, op := range allOps {
			send := encode(dt, contribution(me, 0, total))
			recv := make([]byte, counts[me]*dt.Size())
			if err := c.ReduceScatter(send, recv, counts, op, dt); err != nil {
				return err
			}
			if want := encode(dt, reference(op, p, off, counts[me])); !bytes.Equal(recv, want) {
				return fmt.Errorf("ReduceScatter %v %v: block of rank %d differs from the local reference", op, dt, me)
			}
			send = encode(dt, contribution(me, 0, p*blk))
			recv = make([]byte, blk*dt.Size())
			if err := c.ReduceScatterBlock(send, recv, op, dt); err != nil {
				return err
			}
			if want := encode(dt, reference(op, p, me*blk, blk)); !bytes.Equal(recv, want) {
				return fmt.Errorf("ReduceScatterBlock %v %v: block of rank %d differs from the local reference", op, dt, me)
			}
		}
	}
	return nil
}

// checkCharSum checks MPI_SUM on MPI_CHAR (IMB's -red_data_type char) over
// 1001 elements of -15..15, whose sums over up to 8 ranks fit a char. Sums
// that overflow are checked by internal/cli's TestE2EMPIRedDataTypeChar:
// Open MPI 4.1's op/avx component saturates them instead of wrapping.
func checkCharSum(c *mpi.Comm, root int) error {
	const n = 1001
	val := func(r, i int) byte { return byte(int8((r*7+i*3)%31 - 15)) }
	send, want := make([]byte, n), make([]byte, n)
	for i := range send {
		send[i] = val(c.Rank(), i)
		for r := 0; r < c.Size(); r++ {
			want[i] += val(r, i)
		}
	}
	recv := make([]byte, n)
	if err := c.Allreduce(send, recv, mpi.Sum, mpi.Char); err != nil {
		return err
	}
	if !bytes.Equal(recv, want) {
		return fmt.Errorf("Allreduce sum char: result differs from the local reference")
	}
	clear(recv)
	if err := c.Reduce(send, recv, mpi.Sum, mpi.Char, root); err != nil {
		return err
	}
	if c.Rank() == root && !bytes.Equal(recv, want) {
		return fmt.Errorf("Reduce sum char at root %d: result differs from the local reference", root)
	}
	return nil
}
