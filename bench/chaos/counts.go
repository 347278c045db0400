package main

import (
	"fmt"
	"io"
)

// counts are one transport's columns.
type counts struct {
	deaths, interrupts, missed           int
	starved                              int // jobs stopped by their launcher's watchdog before the fault while starved (run again)
	hangs, orphans, segments, lostRows   int
	misnamed, wrongStatus, badEnd, noisy int
	faultless                            int // jobs that failed without a fault, not starved
	maxEnd, maxEndStop                   float64
	overBound                            int     // ends beyond the bound, within it plus the load's delay
	maxLag                               float64 // the largest timer lag measured over a fault, s
	maxWait                              float64 // the largest wait for a CPU of a job's processes over a fault, s
}

func (c *counts) add(f fault, o outcome) {
	if f.kind.death() {
		c.deaths++
	} else {
		c.interrupts++
	}
	c.hangs += b2i(o.hang)
	c.orphans += o.orphans
	c.segments += o.segments
	c.lostRows += o.lostRows
	c.misnamed += b2i(o.misnamed)
	c.wrongStatus += b2i(o.wrongStatus)
	c.badEnd += b2i(o.badEnd)
	c.noisy += b2i(o.noisy)
	c.maxLag = max(c.maxLag, o.lagSec)
	c.maxWait = max(c.maxWait, o.waitSec)
	if !o.hang && o.endSec > o.boundSec {
		c.overBound++
	}
	if f.kind == stopRank {
		c.maxEndStop = max(c.maxEndStop, o.endSec)
	} else {
		c.maxEnd = max(c.maxEnd, o.endSec)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// print writes the table.
func (c *campaign) print(w io.Writer) {
	fmt.Fprintf(w, "%-9s %6s %10s %6s %7s %5s %7s %8s %9s %13s %10s %7s %6s %9s %9s %10s %10s %9s %10s\n",
		"transport", "deaths", "interrupts", "missed", "starved", "hangs", "orphans", "segments", "lost_rows",
		"misattributed", "wrong_exit", "bad_end", "noisy", "faultless", "max_end_s", "max_stop_s", "over_bound", "max_lag_s", "max_wait_s")
	for _, tr := range c.trs {
		k := c.counts[tr]
		if k == nil {
			continue
		}
		fmt.Fprintf(w, "%-9s %6d %10d %6d %7d %5d %7d %8d %9d %13d %10d %7d %6d %9d %9.2f %10.2f %10d %9.2f %10.2f\n",
			tr, k.deaths, k.interrupts, k.missed, k.starved, k.hangs, k.orphans, k.segments, k.lostRows,
			k.misnamed, k.wrongStatus, k.badEnd, k.noisy, k.faultless, k.maxEnd, k.maxEndStop, k.overBound, k.maxLag, k.maxWait)
	}
}
