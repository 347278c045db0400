package app

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/mpbench/mpbench/launch/supervise"
)

// StartLoad starts k processes of argv beside the calling rank, each
// consuming a CPU until the returned stop is called or ctx ends. This is
// how the study emulated slower processors (section 4.3.3, figures
// 4.120-4.123): the kernel shares the rank's CPUs between the application
// and the load, so with k load processes on the rank's one CPU the
// application gets about 1/(k+1) of it. The processes inherit the rank's
// CPU binding. argv runs Burn (mpbench's hidden "app load" command). Each
// runs as a supervise.Command, as every child of mpbench does: stopped
// with the signal of ctx's cause (SIGINT for Ctrl-C, else SIGTERM; stop
// sends SIGTERM), SIGKILL 5 s later, and killed with the rank if it dies
// (DieWithParent, Linux). k = 0 starts nothing.
func StartLoad(ctx context.Context, argv []string, k int) (stop func(), err error) {
	ctx, cancel := context.WithCancel(ctx)
	var running []*supervise.Running
	stop = func() {
		cancel()
		for _, r := range running {
			_ = r.Wait() // ended by stop: its error says so
		}
	}
	for i := 0; i < k; i++ {
		r, err := supervise.Command{Argv: argv, Name: fmt.Sprintf("CPU load process %d of %d (%s)", i+1, k, argv[0]),
			DieWithParent: true}.Start(ctx)
		if err != nil {
			stop()
			return nil, err
		}
		running = append(running, r)
	}
	return stop, nil
}

// burnSink keeps Burn's arithmetic from being optimised away.
var burnSink atomic.Uint64

// Burn consumes one CPU for ever with floating-point arithmetic (the body
// of a load process started by StartLoad); it returns only when quit is
// closed.
func Burn(quit <-chan struct{}) {
	x := 1.0
	for {
		for i := 0; i < 1<<20; i++ {
			x = x*1.0000001 + 1e-9
		}
		burnSink.Store(math.Float64bits(x))
		select {
		case <-quit:
			return
		default:
		}
	}
}
