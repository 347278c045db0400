package launch

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"
)

// A rank that crashes (a Go panic, a fatal error of the Go runtime such as
// "out of memory", a fault on a bad address) prints a crash report of
// hundreds of lines, its goroutine stacks, on stderr. The launcher keeps
// that report off the terminal: from the first line of the report on, the
// rank's stderr goes to a file, and the job's failure names the report's
// first line, the signal behind it and the file.

// crashStart matches the first line of a Go crash report: "panic: ...",
// "fatal error: ...", "runtime: out of memory: ...", "unexpected fault
// address 0x...", "SIGSEGV: segmentation violation" (a signal the runtime
// cannot turn into a panic) and "fatal: morestack on g0".
var crashStart = regexp.MustCompile(`^(panic: |fatal error: |runtime(/cgo)?: |unexpected fault address |fatal: |SIG[A-Z]+: )`)

// crashSignal finds the signal a report names: "[signal SIGSEGV: ..."
// after a panic or fatal error, or a line starting "SIGBUS: ".
var crashSignal = regexp.MustCompile(`(?m)(?:^\[signal |^)(SIG[A-Z]+):`)

// runtimeEMFILE finds the Go runtime's own start-up failure for lack of
// file descriptors, "runtime: epollcreate failed with 24" (errno 24 is
// EMFILE): the runtime dies before the rank's code runs, so its crash
// report is the only account there is.
var runtimeEMFILE = regexp.MustCompile(`\bfailed with 24\b`)

// runtimeNoMemory finds a Go runtime abort for want of memory: an
// allocation or reservation the kernel refused ("runtime: out of memory:
// cannot allocate ...", "fatal error: out of memory", "failed to reserve
// page summary memory", "cannot map pages in arena address space"). Under
// a limit on the address space (ulimit -v) that is the limit: the Go
// runtime reserves about 1.1 GiB of address space before any of the
// rank's code runs, and every heap arena, thread stack and mapping
// counts against it.
var runtimeNoMemory = regexp.MustCompile(`out of memory|failed to reserve [a-z ]*memory|cannot (?:reserve|map pages in) [a-z ]*address space`)

// runtimeNoThread finds a Go runtime abort for want of a thread: "runtime:
// failed to create new OS thread" or, with cgo, "runtime/cgo:
// pthread_create failed". Its cause is a limit on processes (ulimit -u) or
// on the address space, where each new thread's stack must fit; it counts
// as memory only when the rank had an address-space limit.
var runtimeNoThread = regexp.MustCompile(`failed to create new OS thread|pthread_create failed`)

// maxCrashHead bounds the part of a report kept in memory to find its
// signal, in bytes.
const maxCrashHead = 4 << 10

// crashReport is one rank's crash report being written to its file.
type crashReport struct {
	rank int
	dir  string // where the file goes
	fix  string // what lowers the job's memory (Spec.MemoryFix), for a rank out of it
	// asLimit is the rank's limit on its address space (RLIMIT_AS, ulimit
	// -v) in bytes as read when it exited, 0 for none or unknown
	// (exitedAddressSpaceLimit); set before summary is called.
	asLimit uint64

	mu   sync.Mutex
	path string   // "" until the report starts; then the file, or "" if it could not be created
	f    *os.File // nil when the file could not be created
	head []byte   // the report's first bytes
	on   bool
}

// begins reports whether line starts a crash report, and if so starts it.
func (c *crashReport) begins(line []byte) bool {
	if !crashStart.Match(line) {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on = true
	name := fmt.Sprintf("mpbench-crash-rank%d-%s-%d.txt", c.rank, time.Now().Format("20060102-150405"), os.Getpid())
	for _, dir := range []string{c.dir, os.TempDir()} {
		path := filepath.Join(dir, name)
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
			c.f, c.path = f, path
			break
		}
	}
	return true
}

// started reports whether the report has begun: every later line is
// part of it.
func (c *crashReport) started() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.on
}

// write adds b to the report.
func (c *crashReport) write(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.head) < maxCrashHead {
		c.head = append(c.head, b[:min(len(b), maxCrashHead-len(c.head))]...)
	}
	if c.f != nil {
		c.f.Write(b)
	}
}

// close closes the file.
func (c *crashReport) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f != nil {
		c.f.Close()
		c.f = nil
	}
}

// outOfDescriptors reports whether the rank crashed for lack of file
// descriptors (runtimeEMFILE).
func (c *crashReport) outOfDescriptors() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.on && runtimeEMFILE.Match(c.head)
}

// summary is the report in one phrase, "crashed with SIGSEGV: panic:
// runtime error: invalid memory address or nil pointer dereference; its
// goroutine stacks are in FILE", or "" when the rank did not crash. A
// runtime abort for want of memory (runtimeNoMemory, or runtimeNoThread
// under a limit) names the address-space limit when the rank had one,
// "out of memory under the address-space limit (ulimit -v KiB): runtime:
// out of memory: cannot allocate ...; raise the limit or ...", else the
// fix after the report's first line.
func (c *crashReport) summary() string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on {
		return ""
	}
	first, _, _ := bytes.Cut(c.head, []byte("\n"))
	var msg string
	switch {
	case c.asLimit > 0 && (runtimeNoMemory.Match(c.head) || runtimeNoThread.Match(c.head)):
		msg = fmt.Sprintf("out of memory under the address-space limit (ulimit -v %d): %s; raise the limit or %s",
			c.asLimit>>10, bytes.TrimSpace(first), memoryFixOr(c.fix))
	case runtimeNoMemory.Match(c.head):
		msg = "crashed: " + string(bytes.TrimSpace(first)) + " (" + memoryFixOr(c.fix) + ", or raise the memory limit: ulimit -v, the cgroup's)"
	default:
		msg = "crashed: "
		if m := crashSignal.FindSubmatch(c.head); m != nil {
			msg = "crashed with " + string(m[1]) + ": "
		}
		msg += string(bytes.TrimSpace(first))
	}
	if c.path != "" {
		msg += "; its goroutine stacks are in " + c.path
	}
	return msg
}
