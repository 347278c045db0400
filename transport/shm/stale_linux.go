package shm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// StaleAge is how old a segment file must be before RemoveStale may take
// it for a leftover: longer than a rank waits for its peers at start-up
// (launch's join timeout, 60 s), after which a live job has unlinked every
// segment it made.
const StaleAge = 2 * time.Minute

// RemoveStale removes the segment files in dir ("" means DefaultDir) that
// jobs left behind and returns their paths: those named "mpbench-..."
// older than minAge whose owner (the process id in the control block) no
// longer runs, or whose control block was never written. A rank unlinks
// its segment once every peer has mapped it, so files remain only when
// every rank was killed during start-up together (a launcher killed with
// SIGKILL takes its ranks with it, and nobody is left to run RemoveJob).
// The launcher calls it before each job with StaleAge: the age keeps it
// off the segments of a job that is still starting, whatever its process
// ids mean here (a job in another PID namespace sharing /dev/shm).
func RemoveStale(dir string, minAge time.Duration) ([]string, error) {
	if dir == "" {
		dir = DefaultDir
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "mpbench-") || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if fi, err := e.Info(); err != nil || time.Since(fi.ModTime()) < minAge {
			continue
		}
		if pid, ok := segmentOwner(path); ok && ownerRuns(pid) {
			continue
		}
		if os.Remove(path) == nil {
			removed = append(removed, path)
		}
	}
	return removed, nil
}

// segmentOwner reads the owner's process id from the control block of the
// segment at path; false when the block was never written (no magic).
func segmentOwner(path string) (int, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var b [20]byte // magic, size, rank, pid (layout.go's control)
	if _, err := f.ReadAt(b[:], 0); err != nil || string(b[:8]) != segMagic {
		return 0, false
	}
	return int(binary.NativeEndian.Uint32(b[16:20])), true
}

// ownerRuns reports whether process pid exists (a process of another user
// counts too) and has not exited: a zombie, a rank that died and waits for
// a parent to collect it, maps nothing and never uses a segment again. Its
// parent may be long gone (a launcher killed with SIGKILL), leaving it to
// an init that is slow to reap it.
func ownerRuns(pid int) bool {
	err := unix.Kill(pid, 0)
	if err != nil && !errors.Is(err, unix.EPERM) {
		return false
	}
	return !exited(pid)
}

// exited reports whether process pid is a zombie: state Z (or X) in
// /proc/PID/stat, the field after the command name in parentheses
// (proc(5)). False when the file cannot be read.
func exited(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] == 'Z' || b[i+2] == 'X'
}
