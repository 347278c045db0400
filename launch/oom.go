package launch

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// oomWatch counts the kernel OOM killer's kills in the launcher's memory
// cgroup, which the ranks it starts on its own host inherit: the
// "oom_kill" line of cgroup v2's memory.events, or of cgroup v1's
// memory.oom_control (Linux 4.13 and later), both counting processes of
// the cgroup killed by any OOM killer. A rank killed by a SIGKILL the
// launcher did not send while that count rose was most likely killed for
// memory, and the launcher's line says so (field of the reliability
// campaign: a job under a cgroup memory limit otherwise reads "killed by
// signal SIGKILL", the same as a kill -9).
type oomWatch struct {
	dir     string // the memory cgroup's directory, "" if none was found
	counter string // the file with the oom_kill line
	limit   string // the file with the limit in bytes ("max" or a huge number: none)
	start   int64  // the count when the job started, -1 if unreadable
}

// newOOMWatch finds this process's memory cgroup under /sys/fs/cgroup and
// notes its OOM-kill count.
func newOOMWatch() *oomWatch { return oomWatchAt("/proc/self/cgroup", "/sys/fs/cgroup") }

// oomWatchAt is newOOMWatch reading the process's cgroup list from
// procFile ("hierarchy-ID:controllers:path" lines) and the hierarchies
// under root: cgroup v1's memory controller where it is mounted
// (root/memory), else the v2 unified hierarchy (root itself) when it has
// the memory controller.
func oomWatchAt(procFile, root string) *oomWatch {
	w := &oomWatch{start: -1}
	switch dir, v1 := cgroupDir(procFile, root, "memory"); {
	case v1:
		w.dir = dir
		w.counter, w.limit = filepath.Join(dir, "memory.oom_control"), filepath.Join(dir, "memory.limit_in_bytes")
	case dir != "":
		if _, err := os.Stat(filepath.Join(dir, "memory.events")); err == nil {
			w.dir = dir
			w.counter, w.limit = filepath.Join(dir, "memory.events"), filepath.Join(dir, "memory.max")
		}
	}
	w.start = w.kills()
	return w
}

// kills returns the cgroup's OOM-kill count now, -1 if it cannot be read.
func (w *oomWatch) kills() int64 {
	if w.counter == "" {
		return -1
	}
	b, err := os.ReadFile(w.counter)
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "oom_kill "); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}

// note returns, when the cgroup's OOM-kill count rose since the watch
// began, the phrase the launcher adds to a rank's "killed by signal
// SIGKILL": the cgroup and its limit, or the host's memory when the
// cgroup has none, and fix, what lowers the job's memory
// (Spec.MemoryFix); "" otherwise.
func (w *oomWatch) note(fix string) string {
	if w == nil || w.start < 0 {
		return ""
	}
	if n := w.kills(); n <= w.start {
		return ""
	}
	b, _ := os.ReadFile(w.limit)
	limit, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || limit >= 1<<62 { // "max" (v2), or v1's page-rounded 2^63-1
		return "by the kernel's OOM killer: the host ran out of memory; " + fix
	}
	return fmt.Sprintf("by the kernel's OOM killer: memory cgroup %s reached its limit of %d MiB; raise the limit or %s",
		w.dir, limit>>20, fix)
}
