package coll

import (
	"fmt"
	"strings"

	"github.com/mpbench/mpbench/comm"
)

// dispatch runs ch's algorithm of collective (a lower-case table name) on
// c through run. The algorithm is looked up in the collective's table: a
// name that is not there is an error, never another algorithm.
func dispatch(c comm.Comm, fn, collective string, ch Choice, x args) error {
	s := specOf(collective)
	alg := s.algorithm(ch.Algorithm)
	if alg == nil {
		return fmt.Errorf("coll: %s: no %s algorithm %q (valid: %s)", fn, s.name, ch.Algorithm, strings.Join(s.names(), ", "))
	}
	x.seg = ch.segment()
	return run(c, fn, ch, func(pc comm.Comm) error { return alg.run(pc, x) })
}

// run executes one collective call: it resolves the private communicator
// (see context.go) unless c has a single rank, and prefixes errors with the
// collective, the algorithm and the calling rank.
func run(c comm.Comm, fn string, ch Choice, f func(pc comm.Comm) error) error {
	pc := c
	if c.Size() > 1 {
		var err error
		if pc, err = private(c); err != nil {
			return err
		}
	}
	if err := f(pc); err != nil {
		return fmt.Errorf("coll: %s (%s) on rank %d: %w", fn, ch, c.Rank(), err)
	}
	return nil
}

func checkRoot(fn string, root, p int) error {
	if root < 0 || root >= p {
		return fmt.Errorf("coll: %s: root %d is not a rank of this communicator (0..%d)", fn, root, p-1)
	}
	return nil
}

func checkLen(fn, what string, got, want int) error {
	if got != want {
		return fmt.Errorf("coll: %s: %s has %d bytes, must have %d", fn, what, got, want)
	}
	return nil
}

// vlayout validates the counts and displacements (bytes) of a v-variant
// against a buffer of buflen bytes and p ranks. A nil displs means packed.
func vlayout(fn, what string, counts, displs []int, p, buflen int) (layout, error) {
	if len(counts) != p {
		return layout{}, fmt.Errorf("coll: %s: %s counts has %d entries, must have one per rank (%d)", fn, what, len(counts), p)
	}
	if displs == nil {
		l := packedLayout(counts)
		for i, n := range counts {
			if n < 0 {
				return layout{}, fmt.Errorf("coll: %s: %s count %d of rank %d is negative", fn, what, n, i)
			}
		}
		if t := l.total(); t > buflen {
			return layout{}, fmt.Errorf("coll: %s: %s counts total %d bytes, more than the buffer's %d", fn, what, t, buflen)
		}
		return l, nil
	}
	if len(displs) != p {
		return layout{}, fmt.Errorf("coll: %s: %s displacements has %d entries, must have one per rank (%d)", fn, what, len(displs), p)
	}
	for i := range counts {
		if counts[i] < 0 || displs[i] < 0 || displs[i]+counts[i] > buflen {
			return layout{}, fmt.Errorf("coll: %s: %s block of rank %d (displacement %d, count %d) is outside the %d-byte buffer", fn, what, i, displs[i], counts[i], buflen)
		}
	}
	return layout{cnt: counts, off: displs}, nil
}
