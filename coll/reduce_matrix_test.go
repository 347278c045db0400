package coll

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/mpbench/mpbench/comm"
)

var (
	allTypes = []Datatype{Float32, Float64, Int32, Int64, Char}
	allOps   = []Op{Sum, Prod, Min, Max}
)

// combos are the (type, op) pairs tested at n elements: all 20 on small
// vectors, IMB's float32 sum and one integer pair on long ones, and char
// sum (IMB's -red_data_type char; odd byte counts) below 1 MiB.
func combos(n int) [][2]int {
	var c [][2]int
	for _, dt := range allTypes {
		for _, op := range allOps {
			if n <= 7 || (dt == Float32 && op == Sum) || (n < mib && (dt == Int64 && op == Max || dt == Char && op == Sum)) {
				c = append(c, [2]int{int(dt), int(op)})
			}
		}
	}
	return c
}

// elemVals are small integers: any order of sums, products (at most 3^9),
// minima and maxima over 9 ranks is exact in every type (char's products
// wrap modulo 2^8, which gives the same result in any order).
var elemVals = []float64{1, 2, -1, -2, 3}

// vecs and refs cache vectors and references (element loops are slow
// under -race); callers get copies.
var vecs, refs sync.Map

// vec is rank r's vector of n elements of type dt.
func vec(dt Datatype, r, n int) []byte {
	key := [3]int{int(dt), r, n}
	if v, ok := vecs.Load(key); ok {
		return append([]byte(nil), v.([]byte)...)
	}
	b := makeVec(dt, r, n)
	vecs.Store(key, b)
	return append([]byte(nil), b...)
}

func makeVec(dt Datatype, r, n int) []byte {
	b := make([]byte, n*dt.Size())
	for i := 0; i < n; i++ {
		v := elemVals[(r*7+i*3)%len(elemVals)]
		o := b[i*dt.Size():]
		switch dt {
		case Float32:
			float32Put(o, float32(v))
		case Float64:
			float64Put(o, v)
		case Int32:
			int32Put(o, int32(v))
		case Int64:
			int64Put(o, int64(v))
		case Char:
			o[0] = byte(int8(v))
		}
	}
	return b
}

// refReduce is the reduction of every rank's vec, computed locally.
func refReduce(dt Datatype, op Op, p, n int) []byte {
	key := [4]int{int(dt), int(op), p, n}
	if v, ok := refs.Load(key); ok {
		return v.([]byte)
	}
	acc := vec(dt, 0, n)
	for r := 1; r < p; r++ {
		if err := ReduceLocal(dt, op, acc, vec(dt, r, n)); err != nil {
			panic(err)
		}
	}
	refs.Store(key, acc)
	return acc
}

// elemCount converts a matrix size to an element count of dt: tiny sizes
// are counts already, the others are bytes.
func elemCount(n int, dt Datatype) int {
	if n <= 7 {
		return n
	}
	return n / dt.Size()
}

// forReductions runs check for every (type, op) pair at every size; check
// gets the element count.
func forReductions(t *testing.T, collective string, check func(c comm.Comm, a Algorithms, dt Datatype, op Op, n int) error) {
	forMatrix(t, collective, func(t *testing.T, a Algorithms, p, size int) {
		runRanks(t, p, func(c comm.Comm) error {
			for _, co := range combos(size) {
				dt, op := Datatype(co[0]), Op(co[1])
				if err := check(c, a, dt, op, elemCount(size, dt)); err != nil {
					return fmt.Errorf("%s %s: %w", dt, op, err)
				}
			}
			return nil
		})
	})
}

func TestReduceMatrix(t *testing.T) {
	forReductions(t, "reduce", func(c comm.Comm, a Algorithms, dt Datatype, op Op, n int) error {
		p := c.Size()
		for _, root := range roots(p) {
			var recv []byte
			if c.Rank() == root {
				recv = bytes.Repeat([]byte{0xEE}, n*dt.Size())
			}
			send := vec(dt, c.Rank(), n)
			if err := a.Reduce(c, send, recv, dt, op, root); err != nil {
				return err
			}
			if !bytes.Equal(send, vec(dt, c.Rank(), n)) {
				return fmt.Errorf("sendbuf modified")
			}
			if c.Rank() == root && !bytes.Equal(recv, refReduce(dt, op, p, n)) {
				return fmt.Errorf("root %d: wrong result", root)
			}
		}
		return nil
	})
}

func TestAllreduceMatrix(t *testing.T) {
	forReductions(t, "allreduce", func(c comm.Comm, a Algorithms, dt Datatype, op Op, n int) error {
		recv := make([]byte, n*dt.Size())
		if err := a.Allreduce(c, vec(dt, c.Rank(), n), recv, dt, op); err != nil {
			return err
		}
		if !bytes.Equal(recv, refReduce(dt, op, c.Size(), n)) {
			return fmt.Errorf("wrong result")
		}
		return nil
	})
}

// unevenCounts splits n elements over p ranks unevenly (rank i gets a share
// growing with i, rank 0 the remainder), in bytes.
func unevenCounts(n, p, elem int) []int {
	cnt := make([]int, p)
	w := p * (p + 1) / 2
	s := 0
	for i := range cnt {
		cnt[i] = n * (i + 1) / w
		s += cnt[i]
	}
	cnt[0] += n - s
	for i := range cnt {
		cnt[i] *= elem
	}
	return cnt
}

func TestReduceScatterMatrix(t *testing.T) {
	forReductions(t, "reduce_scatter", func(c comm.Comm, a Algorithms, dt Datatype, op Op, n int) error {
		p, me := c.Size(), c.Rank()
		cnt := unevenCounts(n, p, dt.Size())
		recv := make([]byte, cnt[me])
		if err := a.ReduceScatter(c, vec(dt, me, n), recv, cnt, dt, op); err != nil {
			return err
		}
		want := packedLayout(cnt).block(refReduce(dt, op, p, n), me)
		if !bytes.Equal(recv, want) {
			return fmt.Errorf("wrong block (counts %v)", cnt)
		}
		return nil
	})
}

func TestReduceScatterBlockMatrix(t *testing.T) {
	forReductions(t, "reduce_scatter_block", func(c comm.Comm, a Algorithms, dt Datatype, op Op, n int) error {
		p, me := c.Size(), c.Rank()
		b := n
		if n > 7 {
			b = n / p
		}
		recv := make([]byte, b*dt.Size())
		if err := a.ReduceScatterBlock(c, vec(dt, me, p*b), recv, dt, op); err != nil {
			return err
		}
		want := uniformLayout(p, b*dt.Size()).block(refReduce(dt, op, p, p*b), me)
		if !bytes.Equal(recv, want) {
			return fmt.Errorf("wrong block")
		}
		return nil
	})
}
