package app

import (
	"fmt"
	"math"
	"os/exec"
	"sync/atomic"
)

// StartLoad starts k processes of argv beside the calling rank, each
// consuming a CPU until the returned stop is called (or the rank dies:
// they get SIGKILL with their parent on Linux). This is how the study
// emulated slower processors (section 4.3.3, figures 4.120-4.123): the
// kernel shares the rank's CPUs between the application and the load, so
// with k load processes on the rank's one CPU the application gets about
// 1/(k+1) of it. The processes inherit the rank's CPU binding. argv runs
// Burn (mpbench's hidden "app load" command). k = 0 starts nothing.
func StartLoad(argv []string, k int) (stop func(), err error) {
	var cmds []*exec.Cmd
	stop = func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}
	for i := 0; i < k; i++ {
		c := exec.Command(argv[0], argv[1:]...)
		dieWithParent(c)
		if err := c.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("starting CPU load process %d of %d (%s): %w", i+1, k, argv[0], err)
		}
		cmds = append(cmds, c)
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
