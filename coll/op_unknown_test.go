package coll

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/comm"
)

// TestUnknownOpOrDatatypeRefused: an op or datatype that has no kernel is
// an error of every reducing call, on every rank, before anything is sent.
func TestUnknownOpOrDatatypeRefused(t *testing.T) {
	for _, c := range []struct {
		dt   Datatype
		op   Op
		want string
	}{
		{Float64, Op(0), "unknown reduction op 0"},
		{Float64, Max + 1, fmt.Sprintf("unknown reduction op %d", int(Max+1))},
		{Datatype(0), Sum, "unknown datatype 0"},
		{Char + 1, Sum, fmt.Sprintf("unknown datatype %d", int(Char+1))},
	} {
		if err := ReduceLocal(c.dt, c.op, make([]byte, 16), make([]byte, 16)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReduceLocal %v %v: %v, want %q", c.dt, c.op, err, c.want)
		}
		runFake(t, 3, func(cm comm.Comm) error {
			var a Algorithms
			for name, call := range map[string]func() error{
				"Allreduce": func() error { return a.Allreduce(cm, make([]byte, 48), make([]byte, 48), c.dt, c.op) },
				"Reduce":    func() error { return a.Reduce(cm, make([]byte, 48), make([]byte, 48), c.dt, c.op, 0) },
				"ReduceScatterBlock": func() error {
					return a.ReduceScatterBlock(cm, make([]byte, 48), make([]byte, 16), c.dt, c.op)
				},
			} {
				if err := call(); err == nil || !strings.Contains(err.Error(), c.want) {
					return fmt.Errorf("%s %v %v on rank %d: %v, want %q", name, c.dt, c.op, cm.Rank(), err, c.want)
				}
			}
			return nil
		})
	}
}

// TestKernelsPanicOnUnknown: the kernels behind check panic on a datatype
// or op it refuses (unreachable through coll's functions), rather than
// leave the result as it was or apply another op.
func TestKernelsPanicOnUnknown(t *testing.T) {
	mustPanic := func(what string, f func()) {
		t.Helper()
		defer func() {
			r := recover()
			if msg, _ := r.(string); !strings.Contains(msg, "coll: no reduction kernel for") {
				t.Errorf("%s: recovered %v, want the kernel panic", what, r)
			}
		}()
		f()
	}
	buf := make([]byte, 17) // 16 bytes after an odd start: unaligned for every type but Char
	mustPanic("combine, unknown datatype", func() { combine(Datatype(0), Sum, buf[:8], buf[:8], buf[8:16]) })
	for _, dt := range []Datatype{Float32, Float64, Int32, Int64, Char} {
		mustPanic("combine "+dt.String()+", unknown op, aligned", func() { combine(dt, Max+1, buf[:8], buf[:8], buf[8:16]) })
		mustPanic("combine "+dt.String()+", unknown op, unaligned", func() { combine(dt, Op(0), buf[1:9], buf[1:9], buf[9:17]) })
	}
}
