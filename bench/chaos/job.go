package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// hybridAgent starts the ranks of the second "host" of a hybrid job in a
// mount namespace of their own with a private /dev/shm: mpbench then sees
// another host (its host identity includes /dev/shm's device) and joins
// the two hosts over TCP, the ranks within each over shared memory.
const hybridAgent = `unshare -m sh -c 'mount -t tmpfs chaos /dev/shm && exec "$@"' {host}`

// runner runs the jobs of a campaign.
type runner struct {
	mpbench string
	dir     string
	bound   time.Duration // how long after the fault the job may take to end, plus the load's delay
	ceiling time.Duration // how long after the fault it may take whatever the load
	jobs    int

	mu      sync.Mutex
	cur     *job      // the job running, for stop
	stopped os.Signal // the signal that stopped the campaign, or nil
}

// job is one running mpbench launcher.
type job struct {
	f        fault
	mode     string // shm, tcp or hybrid
	cmd      *exec.Cmd
	jsonPath string
	csvPath  string
	stdout   *lineBuffer
	stderr   bytes.Buffer
	done     chan struct{}
	status   int // the launcher's exit status, after done
	ranks    []proc
	secret   string
	injected time.Time
	ended    time.Time
	meter    *waitMeter // its processes' wait for a CPU before the fault
	looked   time.Time  // the meter's last look
}

// args is the mpbench command line of f's job on transport mode.
func (r *runner) args(f fault, mode, jsonPath, csvPath string) []string {
	a := []string{"run", "-np", strconv.Itoa(f.np), "--json", jsonPath, "--csv", csvPath, "--timeout", "300s", "--all-sizes"}
	if f.kind == killLarge {
		a = append(a, "-msglog", "20:22", "-time", "0.5")
	} else {
		a = append(a, "-msglog", "0:22", "-time", "0.2")
	}
	switch mode {
	case "hybrid":
		first := (f.np + 1) / 2
		a = append(a, "--host", fmt.Sprintf("localhost:%d,chaosb:%d", first, f.np-first), "--launch-agent", hybridAgent, "--if", "127.0.0.0/8")
	default:
		a = append(a, "--transport", mode)
	}
	return append(a, f.benchmarks...)
}

// start starts f's job.
func (r *runner) start(f fault, mode string) (*job, error) {
	r.jobs++
	j := &job{f: f, mode: mode, done: make(chan struct{}), stdout: &lineBuffer{}}
	j.jsonPath = filepath.Join(r.dir, fmt.Sprintf("job%d.jsonl", r.jobs))
	j.csvPath = filepath.Join(r.dir, fmt.Sprintf("job%d.csv", r.jobs))
	j.cmd = exec.Command(r.mpbench, r.args(f, mode, j.jsonPath, j.csvPath)...)
	j.cmd.Stdout, j.cmd.Stderr = j.stdout, &j.stderr
	if err := j.cmd.Start(); err != nil {
		return nil, err
	}
	j.meter = newWaitMeter(nil)
	j.looked = time.Now()
	go func() {
		err := j.cmd.Wait()
		j.ended = time.Now()
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee):
			j.status = ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				j.status = 128 + int(ws.Signal())
			}
		default:
			j.status = -1
		}
		close(j.done)
	}()
	return j, nil
}

// exited reports whether the launcher has ended.
func (j *job) exited() bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

// findRanks waits until the launcher has started all np rank processes and
// notes them in rank order (they are started in that order; a local rank's
// MPBENCH_RANK confirms it) and the job's secret (from a local rank's
// environment). It returns false when the job ended first or limit passed.
func (j *job) findRanks(limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for !j.exited() && time.Now().Before(deadline) {
		j.look()
		kids := children(j.cmd.Process.Pid)
		if len(kids) >= j.f.np {
			j.ranks = kids[:j.f.np]
			for r, p := range j.ranks {
				if s := environ(p.pid, "MPBENCH_RANK"); s != "" && s != strconv.Itoa(r) {
					j.ranks = nil // not yet in order; look again
					break
				}
				if j.secret == "" {
					j.secret = environ(p.pid, "MPBENCH_SECRET")
				}
			}
			if j.ranks != nil {
				return true
			}
		}
		time.Sleep(20 * time.Millisecond) // each look reads every process's stat
	}
	return false
}

// waitRows waits until stdout has shown n table rows; false when the job
// ended first (its launcher's --stall and --timeout bound the wait).
func (j *job) waitRows(n int) bool {
	for !j.exited() {
		if j.stdout.rows() >= n {
			return true
		}
		j.look()
		time.Sleep(5 * time.Millisecond)
	}
	return false
}

// pids are the job's processes: the launcher and its ranks (its children
// until the ranks are known).
func (j *job) pids() []int {
	pids := []int{j.cmd.Process.Pid}
	ranks := j.ranks
	if ranks == nil {
		ranks = children(j.cmd.Process.Pid)
	}
	for _, p := range ranks {
		pids = append(pids, p.pid)
	}
	return pids
}

// look samples the job's wait for a CPU, once a second.
func (j *job) look() {
	if time.Since(j.looked) >= time.Second {
		j.meter.sample(j.pids())
		j.looked = time.Now()
	}
}

// watchdogStop reports whether the launcher stopped the job itself for
// silence (--stall) or time (--timeout), by its line on stderr.
func (j *job) watchdogStop() bool {
	s := j.stderr.String()
	return strings.Contains(s, "(--stall)") || strings.Contains(s, "--timeout") || strings.Contains(s, "exceeded its timeout")
}

// inject sends the fault's signal; false when its target was gone (the
// job ended before the fault).
func (j *job) inject() bool {
	if j.exited() {
		return false
	}
	var err error
	if j.f.kind.death() {
		p := j.ranks[j.f.rank]
		if !p.alive() {
			return false
		}
		err = syscall.Kill(p.pid, j.f.kind.signal())
	} else {
		err = j.cmd.Process.Signal(j.f.kind.signal())
	}
	j.injected = time.Now()
	return err == nil
}

// kill ends a job that hangs: the launcher and every rank, by SIGKILL
// (SIGCONT first for a stopped one).
func (j *job) kill() {
	for _, p := range j.ranks {
		if p.alive() {
			syscall.Kill(p.pid, syscall.SIGKILL)
		}
	}
	j.cmd.Process.Kill()
	<-j.done
}

// lineBuffer keeps what a job printed and counts its table rows.
type lineBuffer struct {
	mu      sync.Mutex
	b       []byte
	scanned int // bytes of b already counted
	nrows   int
}

// Write appends p.
func (l *lineBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b = append(l.b, p...)
	for {
		i := bytes.IndexByte(l.b[l.scanned:], '\n')
		if i < 0 {
			break
		}
		if isRow(string(l.b[l.scanned : l.scanned+i])) {
			l.nrows++
		}
		l.scanned += i + 1
	}
	return len(p), nil
}

// rows is the number of complete table rows so far.
func (l *lineBuffer) rows() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.nrows
}

// snapshot returns the complete lines so far.
func (l *lineBuffer) snapshot() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]byte(nil), l.b[:l.scanned]...)
}

// isRow reports whether line is a row of an IMB table: it starts with a
// number (comment and header lines start with '#').
func isRow(line string) bool {
	f := strings.Fields(line)
	if len(f) < 2 {
		return false
	}
	_, err := strconv.ParseInt(f[0], 10, 64)
	return err == nil
}

// sweep runs a short job, whose launcher removes stale segments; it
// returns its error, if any.
func (r *runner) sweep() error {
	out, err := exec.Command(r.mpbench, "run", "-np", "2", "-msglog", "0:0", "-iter", "1", "-iter_policy", "off", "--settle", "0", "PingPong").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

// cleanDir removes the job's files.
func (j *job) cleanDir() {
	os.Remove(j.jsonPath)
	os.Remove(j.csvPath)
}
