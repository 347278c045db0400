package main

import (
	"sync"
	"time"
)

// lagTick is the period of the lag meter's timer.
const lagTick = 50 * time.Millisecond

// lagMeter measures one side of the load's delay: how much later than
// asked this process's timer fires, summed over the meter's life. The
// campaign runs at the launcher's priority (nice 19 beside other work), so
// on a loaded host the launcher's own timed steps after a fault (its 1 s
// stopped-rank check, the 2 s between SIGTERM and SIGKILL) are late by
// about as much; on an idle host the sum stays near 0 and a job's end is
// held to the bound alone. A process that sleeps between short timers is
// woken promptly even on a busy host, so this underestimates the delay of
// work that needs the CPU for longer (a rank handling its SIGTERM, the
// kernel tearing a killed process down): waitMeter measures that on the
// job's own processes.
type lagMeter struct {
	mu    sync.Mutex
	total time.Duration
	stop  chan struct{}
	done  chan struct{}
}

// startLag starts a meter.
func startLag() *lagMeter {
	l := &lagMeter{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		t := time.NewTimer(lagTick)
		defer t.Stop()
		for {
			asked := time.Now()
			select {
			case <-l.stop:
				return
			case <-t.C:
			}
			if late := time.Since(asked) - lagTick; late > 0 {
				l.mu.Lock()
				l.total += late
				l.mu.Unlock()
			}
			t.Reset(lagTick)
		}
	}()
	return l
}

// lag returns the delay summed so far.
func (l *lagMeter) lag() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// end stops the meter and returns the delay summed.
func (l *lagMeter) end() time.Duration {
	close(l.stop)
	<-l.done
	return l.lag()
}
