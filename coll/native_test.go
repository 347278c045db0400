package coll

import (
	"errors"
	"reflect"
	"testing"

	"github.com/mpbench/mpbench/comm"
)

// libComm is a communicator with "library" collectives that only record
// their name and arguments, to test which calls coll hands to Native.
type libComm struct {
	comm.Comm
	calls    []string
	args     [][]int // displacements seen by the v variants
	rsCounts []int   // counts seen by ReduceScatter
}

func (l *libComm) rec(name string, ints ...[]int) error {
	l.calls = append(l.calls, name)
	l.args = append(l.args, ints...)
	return nil
}

func (l *libComm) Bcast([]byte, int) error                           { return l.rec("Bcast") }
func (l *libComm) Reduce(_, _ []byte, _ Op, _ Datatype, _ int) error { return l.rec("Reduce") }
func (l *libComm) Allreduce(_, _ []byte, _ Op, _ Datatype) error     { return l.rec("Allreduce") }
func (l *libComm) Gather(_, _ []byte, _ int) error                   { return l.rec("Gather") }
func (l *libComm) Gatherv(_, _ []byte, _, d []int, _ int) error      { return l.rec("Gatherv", d) }
func (l *libComm) Scatter(_, _ []byte, _ int) error                  { return l.rec("Scatter") }
func (l *libComm) Scatterv(_ []byte, _, d []int, _ []byte, _ int) error {
	return l.rec("Scatterv", d)
}
func (l *libComm) Allgather(_, _ []byte) error              { return l.rec("Allgather") }
func (l *libComm) Allgatherv(_, _ []byte, _, d []int) error { return l.rec("Allgatherv", d) }
func (l *libComm) Alltoall(_, _ []byte) error               { return l.rec("Alltoall") }
func (l *libComm) Alltoallv(_ []byte, _, sd []int, _ []byte, _, rd []int) error {
	return l.rec("Alltoallv", sd, rd)
}
func (l *libComm) ReduceScatter(_, _ []byte, counts []int, _ Op, _ Datatype) error {
	l.rsCounts = counts
	return l.rec("ReduceScatter")
}
func (l *libComm) ReduceScatterBlock(_, _ []byte, _ Op, _ Datatype) error {
	return l.rec("ReduceScatterBlock")
}
func (l *libComm) NativeBarrier() error { return l.rec("Barrier") }

var (
	_ NativeBcast              = (*libComm)(nil)
	_ NativeReduce             = (*libComm)(nil)
	_ NativeAllreduce          = (*libComm)(nil)
	_ NativeGather             = (*libComm)(nil)
	_ NativeGatherv            = (*libComm)(nil)
	_ NativeScatter            = (*libComm)(nil)
	_ NativeScatterv           = (*libComm)(nil)
	_ NativeAllgather          = (*libComm)(nil)
	_ NativeAllgatherv         = (*libComm)(nil)
	_ NativeAlltoall           = (*libComm)(nil)
	_ NativeAlltoallv          = (*libComm)(nil)
	_ NativeReduceScatter      = (*libComm)(nil)
	_ NativeReduceScatterBlock = (*libComm)(nil)
	_ NativeBarrier            = (*libComm)(nil)
)

// allreduceOnly offers only Allreduce natively.
type allreduceOnly struct {
	comm.Comm
	calls int
}

func (l *allreduceOnly) Allreduce(_, _ []byte, _ Op, _ Datatype) error {
	l.calls++
	return nil
}

// TestNativeSubset: a runtime offering one collective natively gets that
// one called and coll's algorithms for the others.
func TestNativeSubset(t *testing.T) {
	runRanks(t, 1, func(c comm.Comm) error {
		l := &allreduceOnly{Comm: c}
		if err := errors.Join(Algorithms{}.Allreduce(l, make([]byte, 8), make([]byte, 8), Float64, Sum),
			Algorithms{}.Bcast(l, make([]byte, 8), 0)); err != nil {
			return err
		}
		if l.calls != 1 {
			t.Errorf("native Allreduce called %d times, want 1", l.calls)
		}
		// Barrier too: every comm.Comm has a Barrier method, which is not
		// an offer of a native barrier.
		for coll, want := range map[string]string{"allreduce": AlgNative, "bcast": "binomial", "barrier": "dissemination"} {
			if ch, err := (Algorithms{}).For(l, coll, 8); err != nil || ch.Algorithm != want {
				t.Errorf("For(%s) = %v, %v; want %s", coll, ch, err, want)
			}
		}
		return nil
	})
}

// callAll calls every collective once on c with a's selection: 8 bytes
// per rank, nil displacements for the v variants.
func callAll(a Algorithms, c comm.Comm) error {
	p := c.Size()
	b := make([]byte, 8)
	all := make([]byte, 8*p)
	cnt := make([]int, p)
	for i := range cnt {
		cnt[i] = 8
	}
	return errors.Join(
		a.Bcast(c, b, 0),
		a.Reduce(c, b, make([]byte, 8), Float32, Sum, 0),
		a.Allreduce(c, b, make([]byte, 8), Float32, Sum),
		a.Gather(c, b, all, 0),
		a.Gatherv(c, b, all, cnt, nil, 0),
		a.Scatter(c, all, b, 0),
		a.Scatterv(c, all, cnt, nil, b, 0),
		a.Allgather(c, b, all),
		a.Allgatherv(c, b, all, cnt, nil),
		a.Alltoall(c, all, make([]byte, 8*p)),
		a.Alltoallv(c, all, cnt, nil, make([]byte, 8*p), cnt, nil),
		a.ReduceScatter(c, all, b, cnt, Float32, Sum),
		a.ReduceScatterBlock(c, all, b, Float32, Sum),
		a.Barrier(c),
	)
}

func TestNativeUsedByDefault(t *testing.T) {
	runRanks(t, 1, func(c comm.Comm) error {
		l := &libComm{Comm: c}
		if err := callAll(Algorithms{}, l); err != nil {
			return err
		}
		want := []string{"Bcast", "Reduce", "Allreduce", "Gather", "Gatherv", "Scatter", "Scatterv",
			"Allgather", "Allgatherv", "Alltoall", "Alltoallv", "ReduceScatter", "ReduceScatterBlock", "Barrier"}
		if !reflect.DeepEqual(l.calls, want) {
			t.Errorf("library calls %v, want %v", l.calls, want)
		}
		for i, d := range l.args {
			if !reflect.DeepEqual(d, []int{0}) {
				t.Errorf("displacements %d passed to the library: %v, want packed [0]", i, d)
			}
		}
		if !reflect.DeepEqual(l.rsCounts, []int{2}) {
			t.Errorf("Reduce_scatter counts passed to the library: %v, want [2] (elements of 8 bytes of float32)", l.rsCounts)
		}
		ch, err := Algorithms{}.For(l, "Bcast", 8)
		if err != nil || ch.Algorithm != AlgNative {
			t.Errorf("For(native comm, Bcast) = %v, %v; want %s", ch, err, AlgNative)
		}
		return nil
	})
}

func TestNativeOverriddenPerCollective(t *testing.T) {
	a, err := ParseAlgorithms("bcast=binomial,barrier=tree")
	if err != nil {
		t.Fatal(err)
	}
	runRanks(t, 1, func(c comm.Comm) error {
		l := &libComm{Comm: c}
		buf := []byte{1, 2, 3}
		if err := errors.Join(a.Bcast(l, buf, 0), a.Barrier(l), a.Allreduce(l, make([]byte, 4), make([]byte, 4), Int32, Max)); err != nil {
			return err
		}
		if !reflect.DeepEqual(l.calls, []string{"Allreduce"}) {
			t.Errorf("library calls %v, want only Allreduce (bcast and barrier are overridden)", l.calls)
		}
		for coll, want := range map[string]string{"bcast": "binomial", "allreduce": AlgNative} {
			if ch, err := a.For(l, coll, 8); err != nil || ch.Algorithm != want {
				t.Errorf("For(%s) = %v, %v; want %s", coll, ch, err, want)
			}
		}
		if ch, err := a.For(c, "allreduce", 1<<20); err != nil || ch.Algorithm != "rabenseifner" {
			t.Errorf("For(runtime comm, allreduce, 1 MiB) = %v, %v; want the table's rabenseifner", ch, err)
		}
		return nil
	})
}
