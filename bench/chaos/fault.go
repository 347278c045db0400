package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"time"
)

// kind is a kind of fault.
type kind int

const (
	// killRank: SIGKILL of a random rank, at a random row of a run over
	// every message size (or during start-up).
	killRank kind = iota
	// killLarge: SIGKILL of a random rank while 1 to 4 MiB messages move
	// (rendezvous transfers: on TCP the peer's socket closes in the middle
	// of a message, on shared memory a single copy or ring transfer stops
	// half-way).
	killLarge
	// stopRank: SIGSTOP of a random rank; the launcher fails the job after
	// its stopped-rank limit (10 s).
	stopRank
	// interrupt: SIGINT to the launcher, as Ctrl-C does.
	interrupt
	// terminate: SIGTERM to the launcher, as a batch system does.
	terminate
	// killLauncher: SIGKILL to the launcher (the OOM killer, kill -9): the
	// ranks must die with it and leave nothing behind; nobody is left to
	// print a line or write an end record.
	killLauncher
)

func (k kind) String() string {
	return [...]string{"kill", "kill-large", "stop", "sigint", "sigterm", "kill-launcher"}[k]
}

// death reports whether k ends a rank (rather than interrupting the
// launcher).
func (k kind) death() bool { return k == killRank || k == killLarge || k == stopRank }

// signal is what k sends.
func (k kind) signal() syscall.Signal {
	switch k {
	case stopRank:
		return syscall.SIGSTOP
	case interrupt:
		return syscall.SIGINT
	case terminate:
		return syscall.SIGTERM
	}
	return syscall.SIGKILL
}

// stoppedLimit is the launcher's limit for a stopped rank (launch
// package, documented in README.md): a stop fault ends the job this much
// later than a kill.
const stoppedLimit = 10 * time.Second

// fault is one planned injection.
type fault struct {
	kind       kind
	np         int
	rank       int      // the rank hit (deaths)
	benchmarks []string // the job's benchmarks
	startup    bool     // inject during start-up, before the first row
	afterRows  int      // else: after this many rows of output
	extra      time.Duration
}

// expectedStatus is the exit status README.md documents for the fault.
func (f fault) expectedStatus() int {
	switch f.kind {
	case interrupt:
		return 130
	case terminate:
		return 143
	case killLauncher:
		return 128 + 9
	}
	return 1
}

// cause is what the launcher's line and the end record must say.
func (f fault) cause() string {
	switch f.kind {
	case stopRank:
		return "stopped (process state T"
	case interrupt:
		return "interrupted by SIGINT"
	case terminate:
		return "interrupted by SIGTERM"
	}
	return "killed by signal SIGKILL"
}

func (f fault) String() string {
	when := fmt.Sprintf("after %d rows+%v", f.afterRows, f.extra.Round(time.Millisecond))
	if f.startup {
		when = fmt.Sprintf("at start-up+%v", f.extra.Round(time.Millisecond))
	}
	who := "launcher"
	if f.kind.death() {
		who = fmt.Sprintf("rank %d", f.rank)
	}
	return fmt.Sprintf("%s of %s, np %d, %s, %s", f.kind, who, f.np, strings.Join(f.benchmarks, " "), when)
}

// everyMessage are the benchmarks rotated through by kill, stop and
// interrupt faults: every IMB-MPI1 benchmark that runs without a name
// list of its own.
var everyMessage = []string{
	"PingPong", "PingPing", "Sendrecv", "Exchange", "Uniband", "Biband",
	"Allreduce", "Reduce", "Reduce_local", "Reduce_scatter", "Reduce_scatter_block",
	"Allgather", "Allgatherv", "Gather", "Gatherv", "Scatter", "Scatterv",
	"Alltoall", "Alltoallv", "Bcast", "Barrier",
}

// largeMessage are the benchmarks of killLarge faults: each moves 1-4 MiB
// messages between ranks.
var largeMessage = []string{"PingPong", "PingPing", "Sendrecv", "Exchange", "Bcast", "Alltoall", "Allgather", "Reduce", "Allreduce", "Gather", "Scatter"}

// plan returns deaths rank faults (one in ten a stop, at least one when
// deaths >= 3; a quarter during large transfers) and interrupts launcher
// faults (one in five a SIGKILL, the others SIGINT and SIGTERM in turn),
// shuffled, each on a job of np ranks
// (np 0: 2 to 4 at random) running a rotating pair of benchmarks, hit at
// a random point.
func plan(rng *rand.Rand, deaths, interrupts, np int, turn *int) []fault {
	var kinds []kind
	stops := deaths / 10
	if stops == 0 && deaths >= 3 {
		stops = 1
	}
	large := deaths / 4
	for i := range deaths {
		switch {
		case i < stops:
			kinds = append(kinds, stopRank)
		case i < stops+large:
			kinds = append(kinds, killLarge)
		default:
			kinds = append(kinds, killRank)
		}
	}
	for i := range interrupts {
		k := [2]kind{interrupt, terminate}[i%2]
		if i%5 == 4 {
			k = killLauncher
		}
		kinds = append(kinds, k)
	}
	rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	out := make([]fault, len(kinds))
	for i, k := range kinds {
		f := fault{kind: k, np: np}
		if f.np == 0 {
			f.np = 2 + rng.IntN(3)
		}
		f.rank = rng.IntN(f.np)
		list := everyMessage
		if k == killLarge {
			list = largeMessage
		}
		f.benchmarks = []string{list[*turn%len(list)], list[(*turn+1)%len(list)]}
		*turn++
		switch {
		case k == killLarge:
			f.afterRows = rng.IntN(3)
			f.extra = time.Duration(rng.IntN(500)) * time.Millisecond
		case rng.IntN(6) == 0: // during start-up and wire-up
			f.startup = true
			f.extra = time.Duration(rng.IntN(400)) * time.Millisecond
		default:
			f.afterRows = rng.IntN(25)
			f.extra = time.Duration(rng.IntN(300)) * time.Millisecond
		}
		out[i] = f
	}
	return out
}
