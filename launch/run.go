package launch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// Spec describes a job of NP ranks on the local host.
type Spec struct {
	// NP is the number of ranks (processes), >= 1.
	NP int
	// Argv is the command each rank runs; Argv[0] is the executable's path.
	Argv []string
	// Env is added to the launcher's environment for every rank (entries
	// "KEY=value"; later entries win); the bootstrap variables are set last.
	Env []string
	// Timeout, if > 0, is the longest the job may run before all ranks are
	// killed and Run returns an error wrapping ErrTimeout.
	Timeout time.Duration
	// Stdout receives rank 0's standard output (nil: discarded). Other
	// ranks' standard output is discarded.
	Stdout io.Writer
	// Stderr receives every rank's standard error, line by line; lines of
	// ranks other than 0 are prefixed "[rank N] " (nil: discarded).
	Stderr io.Writer
	// Hosts, if not nil, is the host of each rank (len NP, e.g. from
	// MapRanks). Ranks on this host (IsLocalHost) are started directly, the
	// others through Agent (see remote.go). nil: every rank on this host.
	Hosts []string
	// Agent starts the ranks on other hosts; the zero value is
	// DefaultAgent (ssh in batch mode).
	Agent Agent
	// Version is the launcher's version; ranks on other hosts refuse to
	// run when theirs (or their build) differs.
	Version string
	// CrashDir is where a rank's crash report (a Go panic or fatal error
	// with its goroutine stacks) is written instead of the job's stderr, as
	// mpbench-crash-rankN-DATE-PID.txt; "" means the working directory.
	// When the file cannot be created there it goes to os.TempDir().
	CrashDir string
	// If selects the network of the job by interface name or CIDR
	// (InterfaceAddr): the rendezvous listens on this host's address in it
	// and every rank binds its TCP port to its own host's address in it.
	// Empty: the rendezvous listens on MPBENCH_RENDEZVOUS_BIND, or
	// 127.0.0.1 when every rank is local, or on the address this host
	// reaches the first remote host from.
	If string
	// MemoryFix is what lowers the job's memory, in the account of a rank
	// that ran out of it ("raise the limit or MemoryFix"), e.g. "lower -n"
	// for an application whose memory grows with its size, not with -np.
	// Empty: DefaultMemoryFix.
	MemoryFix string
}

// DefaultMemoryFix is Spec.MemoryFix's default: a benchmark's memory grows
// with its ranks and its largest message.
const DefaultMemoryFix = "lower -np or the largest message size"

// memoryFix is s.MemoryFix or its default.
func (s *Spec) memoryFix() string { return memoryFixOr(s.MemoryFix) }

// memoryFixOr is fix, or DefaultMemoryFix when fix is empty.
func memoryFixOr(fix string) string {
	if fix == "" {
		return DefaultMemoryFix
	}
	return fix
}

// termGrace is how long stopping ranks get between SIGTERM and SIGKILL.
const termGrace = 2 * time.Second

// stoppedLimit is how long a rank may stay stopped (process state T, after
// SIGSTOP or SIGTSTP) before Run fails the job with a *RankError naming
// it: a stopped rank stalls every other rank for ever. Stops by a tracer
// (state t, a debugger) do not count. A variable for tests.
var stoppedLimit = 10 * time.Second

// stateCheck is the period of the stopped-rank check.
const stateCheck = time.Second

// outputDrain is how long Run waits, after a rank exits, for the rest of its
// output before closing the pipes.
const outputDrain = time.Second

// Run starts s.NP ranks of s.Argv and waits for all of them. Each rank gets
// MPBENCH_RENDEZVOUS, MPBENCH_SECRET, MPBENCH_RANK and MPBENCH_SIZE in its
// environment (see the package doc). The variables the ranks read besides
// these (MPBENCH_BIND, the transports' settings such as MPBENCH_SOCKBUF),
// in this process's environment and s.Env, are checked first (CheckEnv):
// a bad one is an *EnvError and no rank is started. So is a job with more
// ranks on this host than its limits hold (CheckCapacity): a
// *CapacityError.
//
// Run returns nil only if every rank exits with status 0. If a rank fails
// (non-zero status, killed by a signal, cannot be started, or stopped for
// longer than 10 s), the others are sent SIGTERM, then SIGKILL after 2 s,
// and Run returns a *RankError for the first failing rank, with the rank's
// own account of the failure when it gave one (ReportError); a rank killed
// by a signal the launcher did not send (kill -9, a crash) counts as first
// before ranks that exited with an error status meanwhile, which may be
// reporting its loss. If s.Timeout passes first, it returns an error
// wrapping ErrTimeout naming the ranks still running and those that cannot
// progress (stopped, state T; uninterruptible sleep, state D); if ctx ends
// first, it stops all ranks the same way and returns ctx.Err(), except that
// when ctx's cause is an Interrupt the ranks get its signal (SIGINT after
// Ctrl-C) instead of SIGTERM. Ranks on other hosts are asked to stop
// through their bootstrap pipe (remote.go) and get the same 2 s before
// their agent is killed. In every case all ranks have been reaped when Run
// returns.
func Run(ctx context.Context, s Spec) error {
	if err := s.validate(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.If != "" {
		s.Env = append(s.Env[:len(s.Env):len(s.Env)], EnvIf+"="+s.If)
	}
	env := append(os.Environ(), s.Env...)
	if err := CheckEnv(lookupEnv(env)); err != nil {
		return err // before any rank starts: every rank would refuse it
	}
	if err := CheckCapacity(s.NP, s.Hosts, lookupEnv(env)(EnvTransport)); err != nil {
		return err // before any rank starts: they would not all run
	}
	secret, err := newSecret()
	if err != nil {
		return err
	}
	defer removeJob(secret) // after every rank is reaped
	removeStale()           // left by jobs killed with their launcher
	bind, err := s.rendezvousBind()
	if err != nil {
		return err
	}
	out := &output{stdout: s.Stdout, stderr: s.Stderr}
	refuse := &refusals{report: func(msg string) { out.write(out.stderr, []byte(msg+"\n")) }}
	rv, err := startRendezvous(bind, s.NP, secret, s.rankHosts(), refuse)
	if err != nil {
		return err
	}
	defer rv.Close()

	j := &job{spec: s, out: out, exits: make(chan exitEvent, s.NP), rv: rv, oom: newOOMWatch()}
	startErr := j.spawn(env, rv.Addr(), secret)
	defer close(j.release)
	return j.supervise(ctx, startErr)
}

func (s *Spec) validate() error {
	if s.NP < 1 {
		return fmt.Errorf("launch: %d ranks: want NP >= 1", s.NP)
	}
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return errors.New("launch: empty command: want Argv[0] = path of the executable")
	}
	return s.validateHosts()
}

func newSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("launch: job secret: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// job is one Run's set of rank processes.
type job struct {
	spec    Spec
	out     *output
	procs   []*rankProc // started ranks
	exits   chan exitEvent
	release chan struct{} // closed when every rank is reaped
	rv      *rendezvous
	oom     *oomWatch // the memory cgroup's OOM kills since the job began
}

type rankProc struct {
	rank    int
	cmd     *exec.Cmd
	pid     int
	stderr  *stderrCopier
	pipes   []*os.File // launcher's read ends
	stdinMu sync.Mutex // guards stdin (closed by reap, written by stopRunning)
	stdin   *os.File   // launcher's write end of a remote rank's bootstrap pipe, or nil
	copiers sync.WaitGroup
	exited  bool        // its exit event has been handled (supervise's)
	ended   atomic.Bool // its process has ended (set by reap before draining its output)
	stopped time.Time   // when the rank was first seen stopped (state T); zero if not
}

type exitEvent struct {
	rank int
	err  error          // nil: exit status 0
	at   time.Time      // when the process ended (before its output was drained)
	sig  syscall.Signal // the signal that killed it, 0 if it exited
	// external: killed by a signal the launcher did not send (set by
	// supervise when the event arrives).
	external bool
}

// outranks reports whether failure ev explains the job's failure better
// than cur, the failure chosen so far: a rank killed by a signal the
// launcher did not send (kill -9, the OOM killer, a crash) is a cause,
// whereas a rank that exits with an error status may be reporting that
// peer's loss, and the reaper may see the consequence first on a busy
// host; then a rank that exited with its own error over one whose report
// is another rank's failure relayed to it (a sink error at rank 0 that
// every rank stops with: the relaying ranks end first, rank 0 still
// closing its files); otherwise the rank that ended first.
func (ev exitEvent) outranks(cur exitEvent) bool {
	if ev.external != cur.external {
		return ev.external
	}
	if evR, curR := relayed(ev.err), relayed(cur.err); evR != curR {
		return !evR && ev.sig == 0
	}
	return ev.at.Before(cur.at)
}

// spawn starts every rank from one goroutine locked to its OS thread, and
// keeps that thread alive until release is closed: Linux sends the
// parent-death signal when the thread that forked a child exits, not only
// when the whole launcher does.
func (j *job) spawn(env []string, rendezvous, secret string) error {
	started := make(chan error)
	j.release = make(chan struct{})
	go func() {
		runtime.LockOSThread()
		var err error
		for r := range j.spec.NP {
			if err = j.start(r, env, rendezvous, secret); err != nil {
				break
			}
		}
		started <- err
		<-j.release
		runtime.UnlockOSThread()
	}()
	return <-started
}

// start starts rank r with its output pipes and a goroutine that reaps it.
func (j *job) start(r int, env []string, rendezvous, secret string) error {
	s := &j.spec
	var childEnds []*os.File
	cmd := exec.Command(s.Argv[0], s.Argv[1:]...)
	cmd.Env = append(env[:len(env):len(env)], rankEnv(rendezvous, secret, r, s.NP)...)
	var stdin *os.File // write end of a remote rank's bootstrap pipe
	if s.remote(r) {
		var err error
		if cmd, stdin, err = s.remoteCommand(r, env, rendezvous, secret); err != nil {
			return &RankError{Rank: r, Host: s.host(r), Err: err}
		}
		childEnds = append(childEnds, cmd.Stdin.(*os.File))
	}
	cmd.SysProcAttr = sysProcAttr()
	prefix := ""
	if r != 0 {
		prefix = "[rank " + strconv.Itoa(r) + "] "
	}
	crash := &crashReport{rank: r, dir: s.CrashDir, fix: s.memoryFix()}
	if crash.dir == "" {
		crash.dir, _ = os.Getwd()
	}
	p := &rankProc{rank: r, cmd: cmd, stderr: &stderrCopier{out: j.out, prefix: []byte(prefix), held: stdin != nil, crash: crash}}
	p.stdin = stdin
	closeAll := func() {
		for _, f := range childEnds {
			f.Close()
		}
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		closeAll()
		p.closeStdin()
		return &RankError{Rank: r, Host: s.host(r), Err: fmt.Errorf("stderr pipe: %w", err)}
	}
	cmd.Stderr, p.pipes, childEnds = pw, append(p.pipes, pr), append(childEnds, pw)
	if r == 0 && s.Stdout != nil {
		or, ow, err := os.Pipe()
		if err != nil {
			pr.Close()
			closeAll()
			p.closeStdin()
			return &RankError{Rank: r, Host: s.host(r), Err: fmt.Errorf("stdout pipe: %w", err)}
		}
		cmd.Stdout, p.pipes, childEnds = ow, append(p.pipes, or), append(childEnds, ow)
	}
	if err := cmd.Start(); err != nil {
		closeAll()
		for _, f := range p.pipes {
			f.Close()
		}
		p.closeStdin()
		return &RankError{Rank: r, Host: s.host(r), Err: fmt.Errorf("starting %s: %w", cmd.Path, err)}
	}
	closeAll()
	p.pid = cmd.Process.Pid
	p.copiers.Add(1)
	go func() { defer p.copiers.Done(); p.stderr.copy(pr) }()
	if len(p.pipes) > 1 {
		p.copiers.Add(1)
		go func() { defer p.copiers.Done(); j.out.copyStdout(p.pipes[1]) }()
	}
	j.procs = append(j.procs, p)
	go j.reap(p)
	return nil
}

// reap waits for p, kills anything left in its process group, collects the
// rest of its output and reports its exit.
func (j *job) reap(p *rankProc) {
	name := "" // the rank's own process: its limit is the rank's
	if j.spec.remote(p.rank) {
		name = filepath.Base(j.spec.Argv[0])
	}
	p.stderr.crash.asLimit = exitedAddressSpaceLimit(p.pid, name)
	err := p.cmd.Wait()
	at := time.Now()
	p.ended.Store(true)
	p.closeStdin()
	syscall.Kill(-p.pid, syscall.SIGKILL)
	done := make(chan struct{})
	go func() { p.copiers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(outputDrain):
		for _, f := range p.pipes {
			f.Close()
		}
		<-done
	}
	for _, f := range p.pipes {
		f.Close()
	}
	p.stderr.crash.close()
	var sig syscall.Signal
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		sig = ws.Signal()
	}
	if err != nil {
		err = &RankError{Rank: p.rank, Host: j.spec.host(p.rank), Err: newExitError(err, p.stderr)}
	}
	j.exits <- exitEvent{rank: p.rank, err: err, at: at, sig: sig}
}

// supervise waits until every started rank has exited, stopping all of them
// at the first failure, at the timeout or when ctx ends, and returns the
// job's result.
func (j *job) supervise(ctx context.Context, startErr error) error {
	result := startErr
	var first *exitEvent // the failing rank's exit, when it is the result
	var (
		stopping bool
		killed   bool // the launcher has sent SIGKILL
		killC    <-chan time.Time
		timeoutC <-chan time.Time
		doneC    = ctx.Done()
		rvFailC  <-chan struct{}
	)
	if j.rv != nil {
		rvFailC = j.rv.failC
	}
	stop := func() {
		if !stopping {
			stopping = true
			j.stopRunning(StopSignal(ctx))
			j.signalRunning(syscall.SIGCONT) // a stopped rank handles its SIGTERM too
			killC = time.After(termGrace)
		}
	}
	check := time.NewTicker(stateCheck)
	defer check.Stop()
	if startErr != nil {
		stop()
	}
	if j.spec.Timeout > 0 {
		t := time.NewTimer(j.spec.Timeout)
		defer t.Stop()
		timeoutC = t.C
	}
	for running := len(j.procs); running > 0; {
		select {
		case ev := <-j.exits:
			running--
			j.procs[ev.rank].exited = true
			ev.external = ev.sig != 0 && !(stopping && ev.sig == syscall.SIGTERM) && !(killed && ev.sig == syscall.SIGKILL)
			if ev.external && ev.sig == syscall.SIGKILL {
				j.noteOOM(ev.err)
			}
			// The cause's exit event may arrive after those of ranks that
			// failed because of it (draining its output takes longer).
			if ev.err != nil && (result == nil || (first != nil && ev.outranks(*first))) {
				result, first = ev.err, &ev
				stop()
			}
		case <-timeoutC:
			// A rank's exit event comes after its output is drained, so a
			// job whose ranks have all ended may still have events on the
			// way: it finished in time, and is not stopped.
			timeoutC = nil
			if running := j.running(); len(running) > 0 {
				if result == nil {
					result = fmt.Errorf("%w (%v); ranks still running: %v%s", ErrTimeout, j.spec.Timeout, running, j.stuck())
				}
				stop()
			}
		case <-doneC:
			doneC = nil
			if result == nil {
				result = ctx.Err()
			}
			stop()
		case <-rvFailC:
			// Ranks not yet registered would wait for the table until their
			// join timeout, and then only say so.
			rvFailC = nil
			if result == nil {
				result = fmt.Errorf("launch: the launcher stopped accepting ranks (%v); with many ranks raise the open-file limit (ulimit -n) or lower -np", j.rv.acceptErr())
			}
			stop()
		case <-killC:
			killC, killed = nil, true
			j.signalRunning(syscall.SIGKILL)
		case now := <-check.C:
			if err := j.checkStopped(now); err != nil && result == nil {
				result = err
				stop()
			}
		}
	}
	return result
}

// noteOOM adds to err, the account of a rank killed by a SIGKILL the
// launcher did not send, that the kernel's OOM killer most likely sent
// it, when the memory cgroup's OOM-kill count rose during the job.
func (j *job) noteOOM(err error) {
	var ee *exitError
	if note := j.oom.note(j.spec.memoryFix()); note != "" && errors.As(err, &ee) {
		ee.oom = note
	}
}

// checkStopped notes which running ranks are stopped (state T) at now and
// returns a *RankError for the first one stopped for stoppedLimit or more.
func (j *job) checkStopped(now time.Time) error {
	for _, p := range j.procs {
		if p.exited {
			continue
		}
		if procState(p.pid) != 'T' {
			p.stopped = time.Time{}
			continue
		}
		if p.stopped.IsZero() {
			p.stopped = now
		}
		if now.Sub(p.stopped) >= stoppedLimit {
			return &RankError{Rank: p.rank, Host: j.spec.host(p.rank), Err: fmt.Errorf("stopped (process state T, e.g. by SIGSTOP) for more than %v; the other ranks cannot progress without it", stoppedLimit)}
		}
	}
	return nil
}

// stuck describes the running ranks that cannot progress, as
// "; rank 1 is stopped (state T)", or "" when none is.
func (j *job) stuck() string {
	var parts []string
	for _, p := range j.procs {
		if p.exited {
			continue
		}
		switch procState(p.pid) {
		case 'T':
			parts = append(parts, fmt.Sprintf("rank %d is stopped (state T)", p.rank))
		case 't':
			parts = append(parts, fmt.Sprintf("rank %d is stopped by a tracer (state t)", p.rank))
		case 'D':
			parts = append(parts, fmt.Sprintf("rank %d is in uninterruptible sleep (state D)", p.rank))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, ", ")
}

// running lists the ranks whose process has not ended.
func (j *job) running() []int {
	var rs []int
	for _, p := range j.procs {
		if !p.ended.Load() {
			rs = append(rs, p.rank)
		}
	}
	return rs
}

// stopRunning asks every rank not yet reaped to stop with sig: a rank on
// this host gets sig in its process group, a rank started through the
// launch agent gets a stop line on its bootstrap pipe (remote.go), since a
// signal would end only the agent (ssh) and cut the rank off before it
// could end its run in order.
func (j *job) stopRunning(sig syscall.Signal) {
	for _, p := range j.procs {
		if !p.exited && !p.sendStop(sig) {
			syscall.Kill(-p.pid, sig)
		}
	}
}

// Interrupt is implemented by a context cause that names the signal which
// stopped the job (e.g. the Ctrl-C the launcher received): Run passes that
// signal on to the ranks instead of SIGTERM.
type Interrupt interface {
	error
	Signal() syscall.Signal
}

// StopSignal is the signal ranks, and any child process a command
// supervises (launch/supervise.Command), are stopped with: the one named
// by ctx's cause when it is an Interrupt (SIGINT or SIGTERM), SIGTERM
// otherwise (a failed rank, the timeout, a cancelled ctx).
func StopSignal(ctx context.Context) syscall.Signal {
	var in Interrupt
	if ctx.Err() != nil && errors.As(context.Cause(ctx), &in) && stopSignals[in.Signal()] {
		return in.Signal()
	}
	return syscall.SIGTERM
}

// stopSignals are the signals ranks may be stopped with.
var stopSignals = map[syscall.Signal]bool{syscall.SIGINT: true, syscall.SIGTERM: true}

// signalRunning sends sig to the process group of every rank not yet reaped.
func (j *job) signalRunning(sig syscall.Signal) {
	for _, p := range j.procs {
		if !p.exited {
			syscall.Kill(-p.pid, sig)
		}
	}
}

// removeJob removes what the ranks of the job with this secret left on
// this host (transport.JobCleaner: shared-memory segments of ranks that
// died during start-up).
func removeJob(secret string) {
	for _, d := range transport.ProcessDrivers() {
		if c, ok := d.(transport.JobCleaner); ok {
			c.RemoveJob([]byte(secret))
		}
	}
}

// removeStale removes what jobs whose launcher died left on this host.
func removeStale() {
	for _, d := range transport.ProcessDrivers() {
		if c, ok := d.(transport.JobCleaner); ok {
			c.RemoveStale()
		}
	}
}
