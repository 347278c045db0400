//go:build mpi

package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/mpi"
)

// checkedCollectives are the collectives runBoth can run; every algorithm
// coll lists for them is checked.
var checkedCollectives = []string{"bcast", "reduce", "allreduce", "reduce_scatter_block", "allgather", "alltoall", "barrier"}

// collAlgorithms lists package coll's algorithms checked over the library's
// point-to-point calls (coll.ParseAlgorithms syntax, one override each;
// the segmented algorithms in segments of 4096 bytes), taken from coll's
// own tables.
func collAlgorithms() ([]string, error) {
	var specs []string
	for _, name := range checkedCollectives {
		algs, err := coll.Listed(name)
		if err != nil {
			return nil, err
		}
		for _, alg := range algs {
			spec := name + "=" + alg.Name
			if alg.Segmented {
				spec += ":seg=4096"
			}
			specs = append(specs, spec)
		}
	}
	return specs, nil
}

// checkCollAlgorithms runs each of coll's algorithms (forced by an
// override, so they run on *mpi.Comm's Send/Recv/Isend/Irecv) and compares
// the result with the same collective run by the library (coll's default on
// a communicator offering every collective natively) on the same data: both runtimes' collectives must
// agree byte for byte. Reductions use Int64 Sum and Float64 Max, exact in
// any order.
func checkCollAlgorithms(c *mpi.Comm) error {
	p, me := c.Size(), c.Rank()
	const blk = 3000 // bytes per rank: several 4096-byte segments in total
	root := p - 1
	specs, err := collAlgorithms()
	if err != nil {
		return err
	}
	for _, spec := range specs {
		a, err := coll.ParseAlgorithms(spec)
		if err != nil {
			return err
		}
		for _, r := range []struct {
			dt coll.Datatype
			op coll.Op
		}{{coll.Int64, coll.Sum}, {coll.Float64, coll.Max}} {
			got, want, err := runBoth(c, a, spec, r.dt, r.op, blk, root)
			if err != nil {
				return fmt.Errorf("%s: %w", spec, err)
			}
			if !bytes.Equal(got, want) {
				return fmt.Errorf("%s (%v %v) on rank %d of %d: result differs from the library's", spec, r.dt, r.op, me, p)
			}
		}
	}
	return nil
}

// runBoth runs the collective named by spec once with algorithms a and once
// with coll's defaults (the library's collective) and returns both results.
func runBoth(c *mpi.Comm, a coll.Algorithms, spec string, dt coll.Datatype, op coll.Op, blk, root int) (got, want []byte, err error) {
	p, me := c.Size(), c.Rank()
	n := p * blk / dt.Size() * dt.Size() // whole vector, a multiple of the element size
	vec := encode(dt, contribution(me, 0, n/dt.Size()))
	name := strings.SplitN(spec, "=", 2)[0]
	run := func(alg coll.Algorithms) ([]byte, error) {
		switch name {
		case "bcast":
			buf := make([]byte, n)
			if me == root {
				buf = pattern(n, root)
			}
			return buf, alg.Bcast(c, buf, root)
		case "reduce":
			out := make([]byte, n)
			return out, alg.Reduce(c, vec, out, dt, op, root)
		case "allreduce":
			out := make([]byte, n)
			return out, alg.Allreduce(c, vec, out, dt, op)
		case "reduce_scatter_block":
			per := n / p / dt.Size() * dt.Size()
			out := make([]byte, per)
			return out, alg.ReduceScatterBlock(c, vec[:per*p], out, dt, op)
		case "allgather":
			out := make([]byte, p*blk)
			return out, alg.Allgather(c, pattern(blk, me), out)
		case "alltoall":
			out := make([]byte, p*blk)
			return out, alg.Alltoall(c, pattern(p*blk, 7*me), out)
		case "barrier":
			return nil, alg.Barrier(c)
		default:
			return nil, fmt.Errorf("no check for collective %q", name)
		}
	}
	if ch, err := a.For(c, name, n); err != nil || ch.Algorithm == coll.AlgNative {
		return nil, nil, fmt.Errorf("override does not select coll's algorithm (For: %v, %v)", ch, err)
	}
	if ch, err := (coll.Algorithms{}).For(c, name, n); err != nil || ch.Algorithm != coll.AlgNative {
		return nil, nil, fmt.Errorf("default does not select the library's collective (For: %v, %v)", ch, err)
	}
	if got, err = run(a); err != nil {
		return nil, nil, err
	}
	want, err = run(coll.Algorithms{})
	return got, want, err
}
