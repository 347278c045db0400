package main

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// waitMeter sums how long the threads of a job's processes waited for a
// CPU: runnable, but not running, because other work had the cores. Linux
// keeps this per thread as the second field of /proc/PID/task/TID/schedstat
// (nanoseconds on a run queue; Documentation/scheduler/sched-stats.rst).
// A job that is late because it was starved accumulates it about as fast
// as the clock; a job that hangs (every thread asleep, waiting for a peer
// or a signal that never comes) accumulates none, so a bound extended by
// it still catches a hang on a loaded host. The sum over threads and
// processes is lenient (threads that wait side by side all count); what
// it could excuse is held by the campaign's -ceiling.
type waitMeter struct {
	seen    map[[2]int]uint64 // (pid, tid) -> run-queue wait at the last look, ns
	total   time.Duration     // waited since the meter started, every thread summed
	samples []waitSample      // total after each look, for waitedIn
}

// waitSample is the meter's total at one look.
type waitSample struct {
	at    time.Time
	total time.Duration
}

// newWaitMeter starts a meter on pids: what their threads waited before
// now is not counted; threads and processes seen first later count from
// their start.
func newWaitMeter(pids []int) *waitMeter {
	m := &waitMeter{seen: map[[2]int]uint64{}}
	for _, pid := range pids {
		for tid, w := range runqWaits(pid) {
			m.seen[[2]int{pid, tid}] = w
		}
	}
	m.samples = append(m.samples, waitSample{at: time.Now()})
	return m
}

// sample adds what pids' threads waited since the last look and returns
// the total.
func (m *waitMeter) sample(pids []int) time.Duration {
	for _, pid := range pids {
		for tid, w := range runqWaits(pid) {
			k := [2]int{pid, tid}
			if w > m.seen[k] {
				m.total += time.Duration(w - m.seen[k])
			}
			m.seen[k] = w
		}
	}
	m.samples = append(m.samples, waitSample{at: time.Now(), total: m.total})
	return m.total
}

// waitedIn returns the wait summed over the last window before the latest
// look (over the whole meter when it is younger) and that span.
func (m *waitMeter) waitedIn(window time.Duration) (waited, span time.Duration) {
	last := m.samples[len(m.samples)-1]
	first := m.samples[0]
	for _, s := range m.samples {
		if last.at.Sub(s.at) <= window {
			first = s
			break
		}
	}
	return last.total - first.total, last.at.Sub(first.at)
}

// starved reports whether the job waited for a CPU at least half of the
// last window before the latest look: the verdict on a job that its
// launcher stopped for silence or time before any fault.
func (m *waitMeter) starved(window time.Duration) bool {
	waited, span := m.waitedIn(window)
	return span > 0 && 2*waited >= span
}

// runqWaits returns the run-queue wait of each thread of pid, ns, by
// thread id; nothing when the process is gone.
func runqWaits(pid int) map[int]uint64 {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := make(map[int]uint64, len(ents))
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(dir + e.Name() + "/schedstat")
		if err != nil {
			continue
		}
		if w, ok := parseSchedstat(string(b)); ok {
			out[tid] = w
		}
	}
	return out
}

// parseSchedstat returns the run-queue wait (the second of the three
// fields: time on a CPU, time waiting on a run queue, timeslices; ns).
func parseSchedstat(s string) (uint64, bool) {
	f := strings.Fields(s)
	if len(f) < 2 {
		return 0, false
	}
	w, err := strconv.ParseUint(f[1], 10, 64)
	return w, err == nil
}
