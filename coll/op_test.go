package coll

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestReduceLocalScalar(t *testing.T) {
	a, b := []float64{1.5, -2, 7, math.Inf(1)}, []float64{2, 3, -7, 1}
	want := map[Op][]float64{
		Sum:  {3.5, 1, 0, math.Inf(1)},
		Prod: {3, -6, -49, math.Inf(1)},
		Min:  {1.5, -2, -7, 1},
		Max:  {2, 3, 7, math.Inf(1)},
	}
	for op, w := range want {
		for _, dt := range []Datatype{Float32, Float64} {
			inout, in := encode(dt, a), encode(dt, b)
			if err := ReduceLocal(dt, op, inout, in); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(inout, encode(dt, w)) {
				t.Errorf("%s %s: got %v, want %v", dt, op, inout, encode(dt, w))
			}
		}
	}
	ia, ib := []float64{5, -3, 0, 100}, []float64{-2, -4, 9, 100}
	iwant := map[Op][]float64{Sum: {3, -7, 9, 200}, Prod: {-10, 12, 0, 10000}, Min: {-2, -4, 0, 100}, Max: {5, -3, 9, 100}}
	for op, w := range iwant {
		for _, dt := range []Datatype{Int32, Int64} {
			inout := encode(dt, ia)
			if err := ReduceLocal(dt, op, inout, encode(dt, ib)); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(inout, encode(dt, w)) {
				t.Errorf("%s %s: got %v", dt, op, inout)
			}
		}
	}
}

// TestReduceMisaligned: the byte-order path for unaligned buffers gives the
// same result as the typed path.
func TestReduceMisaligned(t *testing.T) {
	for _, dt := range allTypes {
		for _, op := range allOps {
			x, y := vec(dt, 1, 9), vec(dt, 4, 9)
			want := append([]byte(nil), x...)
			reduce(dt, op, want, y)
			bx := append(make([]byte, 1, len(x)+1), x...)[1:]
			by := append(make([]byte, 3, len(y)+3), y...)[3:]
			reduce(dt, op, bx, by)
			if !bytes.Equal(bx, want) {
				t.Errorf("%s %s: misaligned result differs", dt, op)
			}
		}
	}
}

// TestCombine: combine into a separate destination gives what a copy and
// an in-place reduce give, for every type and operation, aligned and
// misaligned, against a reference computed element by element here, and
// leaves both operands unchanged.
func TestCombine(t *testing.T) {
	for _, dt := range allTypes {
		for _, op := range allOps {
			for _, n := range []int{1, 7, 8, 9, 64, 67} {
				x, y := vec(dt, 2, n), vec(dt, 5, n)
				want := make([]float64, n) // small integers: exact in every type
				for i := range want {
					want[i] = applyRef(op, decode(dt, x, i), decode(dt, y, i))
				}
				wantb := encode(dt, want)
				for _, off := range []int{0, 1} {
					dst := make([]byte, len(x)+off)[off:]
					combine(dt, op, dst, x, y)
					if !bytes.Equal(dst, wantb) {
						t.Errorf("%s %s n=%d offset %d: combine gives % x, want % x", dt, op, n, off, dst, wantb)
					}
					inplace := append([]byte(nil), x...)
					reduce(dt, op, inplace, y)
					if !bytes.Equal(inplace, wantb) {
						t.Errorf("%s %s n=%d: in-place reduce gives % x, want % x", dt, op, n, inplace, wantb)
					}
				}
				if !bytes.Equal(x, vec(dt, 2, n)) || !bytes.Equal(y, vec(dt, 5, n)) {
					t.Errorf("%s %s n=%d: combine modified an operand", dt, op, n)
				}
			}
		}
	}
}

// decode is element i of a vector of dt as a float64.
func decode(dt Datatype, b []byte, i int) float64 {
	o := b[i*dt.Size():]
	switch dt {
	case Float32:
		return float64(float32From(o))
	case Float64:
		return float64From(o)
	case Int32:
		return float64(int32From(o))
	case Int64:
		return float64(int64From(o))
	}
	return float64(int8(o[0]))
}

// applyRef is op on two values, written independently of the kernels.
func applyRef(op Op, a, b float64) float64 {
	switch op {
	case Sum:
		return a + b
	case Prod:
		return a * b
	case Min:
		return math.Min(a, b)
	}
	return math.Max(a, b)
}

func TestReduceLocalErrors(t *testing.T) {
	cases := []struct {
		dt   Datatype
		op   Op
		a, b int
		msg  string
	}{
		{Float64, Sum, 7, 7, "not a whole number of float64"},
		{Int32, Sum, 8, 4, "must be equal"},
		{Datatype(9), Sum, 8, 8, "unknown datatype"},
		{Int32, Op(0), 8, 8, "unknown reduction op"},
	}
	for _, c := range cases {
		err := ReduceLocal(c.dt, c.op, make([]byte, c.a), make([]byte, c.b))
		if err == nil || !strings.Contains(err.Error(), c.msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ReduceLocal(%v, %v, %d, %d) = %v, want one line containing %q", c.dt, c.op, c.a, c.b, err, c.msg)
		}
	}
}

func encode(dt Datatype, v []float64) []byte {
	b := make([]byte, len(v)*dt.Size())
	for i, x := range v {
		o := b[i*dt.Size():]
		switch dt {
		case Float32:
			float32Put(o, float32(x))
		case Float64:
			float64Put(o, x)
		case Int32:
			int32Put(o, int32(x))
		case Int64:
			int64Put(o, int64(x))
		case Char:
			o[0] = byte(int8(x))
		}
	}
	return b
}

// TestReduceLocalChar: char elements wrap modulo 2^8 as C's char
// arithmetic does (MPI_CHAR with MPI_SUM in IMB's -red_data_type char), and
// Min and Max compare signed values.
func TestReduceLocalChar(t *testing.T) {
	a, b := []byte{100, 0x80, 0xFF, 7, 0x7F}, []byte{100, 0x80, 0x01, 0xF9, 0x80}
	want := map[Op][]byte{
		Sum:  {200, 0x00, 0x00, 0x00, 0xFF},  // 100+100 = 200 (-56); -128-128 = 0; -1+1; 7-7; 127-128 = -1
		Prod: {0x10, 0x00, 0xFF, 0xCF, 0x80}, // 10000 mod 256 = 16; 2^14 mod 256 = 0; -1*1; 7*-7 = -49; 127*-128 mod 256 = 128
		Min:  {100, 0x80, 0xFF, 0xF9, 0x80},
		Max:  {100, 0x80, 0x01, 7, 0x7F},
	}
	for op, w := range want {
		inout := append([]byte(nil), a...)
		if err := ReduceLocal(Char, op, inout, b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(inout, w) {
			t.Errorf("char %s: got % x, want % x", op, inout, w)
		}
	}
	if Char.Size() != 1 || Char.String() != "char" {
		t.Errorf("Char: size %d, name %q; want 1, \"char\"", Char.Size(), Char.String())
	}
}
