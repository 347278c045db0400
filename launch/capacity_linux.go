package launch

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// HostCapacity reads this host's limits on the ranks the launcher starts
// (Capacity): RLIMIT_NPROC and the user's tasks, the pids cgroup,
// RLIMIT_NOFILE, MemAvailable and the memory cgroup, and the free space of
// /dev/shm. A limit that cannot be read is left unknown (-1).
func HostCapacity() Capacity {
	c := Capacity{Tasks: -1, Files: -1, Memory: -1, Shm: -1}
	var r unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NPROC, &r) == nil && r.Cur != unix.RLIM_INFINITY && os.Getuid() != 0 {
		// The kernel counts the tasks of the real user and does not hold
		// root to the limit.
		c.Tasks = max(int64(r.Cur)-userTasks(os.Getuid()), 0)
		c.TasksLimit = fmt.Sprintf("the limit on your processes (ulimit -u %d; raise it with ulimit -u)", r.Cur)
	}
	if free, dir := pidsFree("/proc/self/cgroup", "/sys/fs/cgroup"); free >= 0 && (c.Tasks < 0 || free < c.Tasks) {
		c.Tasks = free
		c.TasksLimit = fmt.Sprintf("the pids cgroup %s (raise its pids.max)", dir)
	}
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &r) == nil && r.Cur != unix.RLIM_INFINITY {
		c.Files = int64(r.Cur)
	}
	if m := MemAvailable(); m >= 0 {
		c.Memory = m
		c.MemoryLimit = fmt.Sprintf("the host has %s available (MemAvailable)", mib(m))
	}
	w := newOOMWatch()
	if free := w.free(); free >= 0 && (c.Memory < 0 || free < c.Memory) {
		c.Memory = free
		c.MemoryLimit = fmt.Sprintf("memory cgroup %s has %s left under its limit (raise it)", w.dir, mib(free))
	}
	var st unix.Statfs_t
	if unix.Statfs("/dev/shm", &st) == nil {
		c.Shm = int64(st.Bavail) * int64(st.Bsize)
	}
	return c
}

// userTasks counts the tasks (threads) of the processes whose real user is
// uid, as RLIMIT_NPROC does, from /proc/PID/status.
func userTasks(uid int) int64 {
	ents, _ := os.ReadDir("/proc")
	var n int64
	want := strconv.Itoa(uid)
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		var real string
		var threads int64
		for _, line := range bytes.Split(b, []byte("\n")) {
			if v, ok := bytes.CutPrefix(line, []byte("Uid:")); ok {
				if f := bytes.Fields(v); len(f) > 0 {
					real = string(f[0])
				}
			} else if v, ok := bytes.CutPrefix(line, []byte("Threads:")); ok {
				threads, _ = strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			}
		}
		if real == want {
			n += threads
		}
	}
	return n
}

// pidsFree returns how many more tasks the pids cgroups of this process
// (listed in procFile, hierarchies under root: cgroup v1's pids controller
// at root/pids, or the v2 hierarchy at root) and their ancestors let
// start: the least pids.max less pids.current, and the directory of the
// cgroup that sets it; -1 when no cgroup limits tasks.
func pidsFree(procFile, root string) (int64, string) {
	dir, _ := cgroupDir(procFile, root, "pids")
	if dir == "" {
		return -1, ""
	}
	free, at := int64(-1), ""
	for d := dir; strings.HasPrefix(d, root); d = filepath.Dir(d) {
		lim, err1 := readInt(filepath.Join(d, "pids.max"))
		cur, err2 := readInt(filepath.Join(d, "pids.current"))
		if err1 == nil && err2 == nil && (free < 0 || lim-cur < free) {
			free, at = max(lim-cur, 0), d
		}
		if d == root {
			break
		}
	}
	return free, at
}

// readInt reads a file holding one integer ("max" is an error: no limit).
func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}

// MemAvailable is the host's available memory in bytes, MemAvailable of
// /proc/meminfo (the one place mpbench reads it: HostCapacity, and the
// applications' checks of their problem size), -1 when it cannot be read.
func MemAvailable() int64 { return memAvailable("/proc/meminfo") }

// memAvailable returns MemAvailable of the meminfo file at path in bytes,
// -1 when it cannot be read.
func memAvailable(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return kb << 10
				}
			}
		}
	}
	return -1
}

// free returns what the memory cgroup lets its processes use beyond what
// they use now, bytes: its limit less its usage (v1's
// memory.usage_in_bytes, v2's memory.current); -1 without a cgroup or a
// limit.
func (w *oomWatch) free() int64 {
	if w == nil || w.dir == "" {
		return -1
	}
	lim, err := readInt(w.limit)
	if err != nil || lim >= 1<<62 {
		return -1
	}
	usage := filepath.Join(w.dir, "memory.current")
	if filepath.Base(w.limit) == "memory.limit_in_bytes" {
		usage = filepath.Join(w.dir, "memory.usage_in_bytes")
	}
	cur, err := readInt(usage)
	if err != nil {
		return -1
	}
	return max(lim-cur, 0)
}
