//go:build mpi

// Command mpicheck exercises every operation of package mpi on a
// real MPI library, with value checks, and optionally measures a ping-pong.
// It must be started by the library's launcher, e.g.
//
//	mpirun --allow-run-as-root --oversubscribe -np 4 ./mpicheck
//	mpiexec.mpich -n 2 ./mpicheck -pingpong
//	mpirun --allow-run-as-root --oversubscribe -np 2 ./mpicheck -sidebyside -rounds 9
//
// -pingpong prints a Go ping-pong's times; -sidebyside alternates IMB's
// ping-pong in C with mpbench's PingPong kernel within the job and prints
// their time ratios (see sideBySide).
// On success rank 0 prints "mpicheck: ok: N checks on np=P (library)" and
// every rank exits 0. The first failing check prints "mpicheck: rank R:
// check NAME: error" on stderr and aborts the job (MPI_Abort, exit code 1).
// It needs at least 2 ranks.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mpbench/mpbench/mpi"
)

// check is one named test run collectively by every rank.
type check struct {
	name string
	run  func(c *mpi.Comm) error
}

func main() {
	pingpong := flag.Bool("pingpong", false, "measure a ping-pong between ranks 0 and 1 instead of running the checks")
	sidebyside := flag.Bool("sidebyside", false, "alternate the ping-pong in C with mpbench's PingPong kernel and print their time ratios instead of running the checks")
	rounds := flag.Int("rounds", 9, "rounds of one C and one Go sample per size for -sidebyside")
	threadLevel := flag.String("thread_level", "funneled", "thread level asked of MPI_Init_thread: single, funneled, serialized or multiple")
	flag.Parse()
	level, err := mpi.ParseThread(*threadLevel)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mpicheck:", err)
		os.Exit(2)
	}
	if *pingpong && *sidebyside {
		fmt.Fprintln(os.Stderr, "mpicheck: -pingpong and -sidebyside exclude each other; give one of them, or neither to run the checks")
		os.Exit(2)
	}
	if *rounds < 1 {
		fmt.Fprintf(os.Stderr, "mpicheck: -rounds %d: want a whole number of rounds, 1 or more\n", *rounds)
		os.Exit(2)
	}
	c, err := mpi.InitThread(level)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mpicheck:", err)
		os.Exit(1)
	}
	if c.Size() < 2 {
		fmt.Fprintf(os.Stderr, "mpicheck: needs at least 2 ranks, got %d; start it with mpirun -np 2 (or more)\n", c.Size())
		mpi.Abort(2)
	}
	switch {
	case *pingpong:
		if err := pingPong(c, os.Stdout); err != nil {
			fail(c, "pingpong", err)
		}
	case *sidebyside:
		if err := sideBySide(c, os.Stdout, *rounds); err != nil {
			fail(c, "sidebyside", err)
		}
	default:
		checks := append(p2pChecks(), collChecks()...)
		for _, k := range checks {
			if err := k.run(c); err != nil {
				fail(c, k.name, err)
			}
			if err := c.Barrier(); err != nil {
				fail(c, k.name+" (barrier after)", err)
			}
		}
		if c.Rank() == 0 {
			fmt.Printf("mpicheck: ok: %d checks on np=%d (%s)\n", len(checks), c.Size(), mpi.Flavor)
		}
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "mpicheck:", err)
		os.Exit(1)
	}
}

// fail reports a failed check and aborts the whole job.
func fail(c *mpi.Comm, name string, err error) {
	fmt.Fprintf(os.Stderr, "mpicheck: rank %d: check %s: %v\n", c.Rank(), name, err)
	mpi.Abort(1)
}
