package main

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/mpbench/mpbench/transport/shm"
)

// attempt is what came of running a fault on a job.
type attempt int

const (
	// injected: the fault hit the job; its outcome counts.
	injected attempt = iota
	// ranOut: the job ended by itself (status 0) before the fault: run
	// the fault earlier in a new job.
	ranOut
	// starvedJob: before the fault, the job's launcher stopped it for
	// silence or time (--stall, --timeout), or its ranks had not started
	// within the ceiling, while its processes waited for a CPU at least
	// half of the time: run the fault again on a new job.
	starvedJob
	// faultless: the job failed without a fault and was not starved: a
	// defect of mpbench.
	faultless
)

// stallWindow is the launcher's --stall for the campaign's jobs (its
// default, 10 x -time but at least 2 minutes): a job stopped for silence
// is judged on how long it waited for a CPU over this window.
const stallWindow = 2 * time.Minute

// stoppedError is a campaign stopped by a signal.
type stoppedError struct{ sig os.Signal }

// Error names the signal: "stopped by SIGINT".
func (e *stoppedError) Error() string { return "stopped by " + e.name() }

// name is the signal's name as kill(1) takes it.
func (e *stoppedError) name() string {
	switch e.sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return e.sig.String()
}

// stop stops the campaign on sig: the job running is killed (its ranks
// die with their launcher) and cleaned up by the fault's own goroutine,
// which then returns a *stoppedError.
func (r *runner) stop(sig os.Signal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = sig
	if r.cur != nil {
		r.cur.cmd.Process.Kill()
	}
}

// stopErr returns a *stoppedError once the campaign was stopped.
func (r *runner) stopErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped != nil {
		return &stoppedError{r.stopped}
	}
	return nil
}

// one runs f on a new job over transport mode: the outcome when the fault
// was injected, else what came of the job instead and why.
func (r *runner) one(f fault, mode string) (outcome, attempt, string, error) {
	var o outcome
	if err := r.stopErr(); err != nil {
		return o, 0, "", err
	}
	j, err := r.start(f, mode)
	if err != nil {
		return o, 0, "", err
	}
	r.mu.Lock()
	r.cur = j
	if r.stopped != nil {
		j.cmd.Process.Kill()
	}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.cur = nil
		r.mu.Unlock()
		j.cleanDir()
	}()
	if !j.findRanks(r.ceiling) {
		a, why := r.missed(j)
		return o, a, why, r.stopErr()
	}
	if !f.startup && !j.waitRows(f.afterRows) {
		a, why := r.missed(j)
		return o, a, why, r.stopErr()
	}
	time.Sleep(f.extra)
	before := j.stdout.snapshot()
	if !j.inject() {
		a, why := r.missed(j)
		return o, a, why, r.stopErr()
	}
	r.awaitEnd(j, &o)
	if err := r.stopErr(); err != nil {
		r.clean(j)
		return o, 0, "", err
	}
	checkProcesses(r, j, &o)
	checkSegments(r, j, &o)
	rows, err := printedRows(before)
	if err != nil {
		o.notef("reading the rows printed before the fault: %v", err)
	}
	checkFiles(j, rows, &o)
	if !o.hang {
		checkReport(j, &o)
	}
	return o, injected, "", nil
}

// awaitEnd waits for the job to end after its fault: within the bound
// (+10 s for a stop) plus the load's delay, the larger of this process's
// timer lag and the job's processes' wait for a CPU since the fault, and
// within the ceiling whatever the load. A job still running then is a
// hang, and killed.
func (r *runner) awaitEnd(j *job, o *outcome) {
	bound := r.bound
	if j.f.kind == stopRank {
		bound += stoppedLimit
	}
	lag := startLag()
	pids := j.pids()
	cpu := newWaitMeter(pids)
	check := time.NewTicker(100 * time.Millisecond)
	defer check.Stop()
wait:
	for {
		select {
		case <-j.done:
			break wait
		case <-check.C:
			since := time.Since(j.injected)
			lagged, waited := lag.lag(), cpu.sample(pids)
			if allowed := bound + max(lagged, waited); since > min(allowed, r.ceiling) {
				o.hang = true
				o.notef("still running %v after the fault (bound %v + load delay: timer lag %v, wait for a CPU %v; ceiling %v)",
					since.Round(10*time.Millisecond), bound, lagged.Round(10*time.Millisecond), waited.Round(10*time.Millisecond), r.ceiling)
				j.kill()
				break wait
			}
		}
	}
	o.lagSec, o.waitSec, o.boundSec = lag.end().Seconds(), cpu.total.Seconds(), bound.Seconds()
	o.endSec = j.ended.Sub(j.injected).Seconds()
	if o.endSec > o.boundSec && !o.hang {
		o.notef("ended %.2fs after the fault: beyond the bound %v, within it plus the load delay (timer lag %.2fs, wait for a CPU %.2fs)", o.endSec, bound, o.lagSec, o.waitSec)
	}
}

// missed ends a job whose fault could not be injected and says what came
// of it: it ended by itself first (ranOut), it was starved (starvedJob) or
// it failed without a fault (faultless).
func (r *runner) missed(j *job) (attempt, string) {
	if !j.exited() && j.ranks == nil {
		j.meter.sample(j.pids())
		waited, span := j.meter.waitedIn(r.ceiling)
		r.clean(j)
		why := fmt.Sprintf("its %d ranks had not all started %v after the launcher (its processes waited for a CPU %v of it)", j.f.np, span.Round(time.Second), waited.Round(time.Second))
		if j.meter.starved(r.ceiling) {
			return starvedJob, why
		}
		return faultless, why
	}
	select {
	case <-j.done:
	case <-time.After(r.bound):
		// The rank hit had ended, as the job did, before the fault.
		r.clean(j)
		return ranOut, ""
	}
	if j.status == 0 {
		return ranOut, ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(j.stderr.String()), "\n")
	waited, span := j.meter.waitedIn(stallWindow)
	why := fmt.Sprintf("exit status %d before the fault: %q; its processes waited for a CPU %v of its last %v", j.status, line, waited.Round(time.Second), span.Round(time.Second))
	r.clean(j)
	if j.watchdogStop() && j.meter.starved(stallWindow) {
		return starvedJob, why
	}
	return faultless, why
}

// clean kills what is left of a job the campaign gives up on (stopped,
// starved, failed without a fault) and removes its segments, counting
// nothing.
func (r *runner) clean(j *job) {
	j.kill()
	if j.secret == "" {
		return
	}
	for _, p := range withEnv("MPBENCH_SECRET", j.secret) {
		killProc(p)
	}
	for _, s := range segments(shm.DefaultDir, shm.JobPrefix([]byte(j.secret))) {
		os.Remove(s)
	}
}
