package launch

import (
	"fmt"
)

// Capacity is what this host lets the ranks of a job that start on it use,
// read by HostCapacity before any rank starts. A field below 0 is unknown
// or unlimited and bounds nothing.
type Capacity struct {
	// Tasks is how many more processes and threads the launcher's user may
	// start: the smaller of RLIMIT_NPROC (ulimit -u; not enforced for root)
	// less the tasks the user runs now, and the pids cgroup's pids.max less
	// pids.current.
	Tasks int64
	// TasksLimit names the limit Tasks comes from and how to raise it.
	TasksLimit string
	// Files is the limit on open files of each process (RLIMIT_NOFILE,
	// ulimit -n), which the ranks inherit.
	Files int64
	// Memory is the memory available to the job in bytes: the host's
	// MemAvailable, or the memory cgroup's limit less its usage when that
	// is smaller.
	Memory int64
	// MemoryLimit names where Memory comes from and how to raise it.
	MemoryLimit string
	// Shm is the free space of the shared-memory file system (/dev/shm) in
	// bytes, where the ranks' rings are created.
	Shm int64
}

// What a rank and the launcher need per rank, measured on Linux 6.18/x86_64
// with Go 1.26 at -np 2 to 16 on shm and tcp (docs/reliability.md, "How
// many ranks a host holds"). They are floors: a job below them cannot
// start, a job above them may still need more for large messages.
const (
	// rankTasks is the threads of one rank (Go's runtime: the main thread,
	// sysmon, garbage collector workers, the network poller) plus the
	// launcher's thread waiting for it.
	rankTasks = 6
	// launcherFiles is the launcher's descriptors beside those per rank
	// (standard streams, rendezvous listener, epoll, its result files).
	launcherFiles = 8
	// launcherFilesPerRank is the launcher's descriptors per rank: the read
	// ends of its stdout and stderr pipes and its rendezvous connection.
	launcherFilesPerRank = 3
	// rankFiles is a rank's descriptors beside one per peer (a socket per
	// peer over TCP, a pidfd per peer over shared memory).
	rankFiles = 10
	// rankMemory is a rank's resident memory with small messages, bytes,
	// below the least VmHWM measured (19.3 MiB).
	rankMemory = 16 << 20
)

// CapacityError is the refusal of a job with more ranks on this host than
// it can hold: one limit is too low for its Local ranks here.
type CapacityError struct {
	NP    int    // ranks of the job
	Local int    // ranks of the job on this host
	Max   int    // the largest NP whose ranks here fit under every limit
	Why   string // the limit that is too low, what Local ranks need of it, and how to raise it
}

func (e *CapacityError) Error() string {
	return fmt.Sprintf("-np %d: this host cannot hold %d ranks: %s; the largest -np that fits is %d (or place ranks on more hosts with --hostfile)", e.NP, e.Local, e.Why, e.Max)
}

// limit is one of Capacity's bounds: fits reports whether n ranks are
// within it, why says what n ranks need of it and how to raise it.
type limit struct {
	fits func(n int) bool
	why  func(n int) string
}

// limits returns the bounds of c on local ranks of a job of np ranks that
// runs on transport mode (TransportAuto, "" for auto, or a transport's
// name); the shared-memory file system bounds the job when a transport of
// the mode takes space there (transport.Properties.HostShmBytes).
func (c Capacity) limits(np int, mode string) []limit {
	var ls []limit
	if c.Tasks >= 0 {
		ls = append(ls, limit{
			fits: func(n int) bool { return int64(n)*rankTasks <= c.Tasks },
			why: func(n int) string {
				return fmt.Sprintf("%d ranks need about %d processes and threads, and %s lets %d more start", n, n*rankTasks, c.TasksLimit, c.Tasks)
			},
		})
	}
	if c.Files >= 0 {
		ls = append(ls, limit{
			fits: func(n int) bool {
				return int64(launcherFiles+launcherFilesPerRank*n) <= c.Files && int64(rankFiles+np-1) <= c.Files
			},
			why: func(n int) string {
				need := max(launcherFiles+launcherFilesPerRank*n, rankFiles+np-1)
				return fmt.Sprintf("%d ranks need about %d open files per process, and the limit is %d; raise it (ulimit -n %d)", n, need, c.Files, need)
			},
		})
	}
	shmBytes := hostShmBytes(mode)
	shm := shmBytes != nil
	if c.Memory >= 0 {
		ls = append(ls, limit{
			fits: func(n int) bool { return memoryNeed(n, shmBytes) <= c.Memory },
			why: func(n int) string {
				return fmt.Sprintf("%d ranks need at least %s of memory (%s per rank%s), and %s", n, mib(memoryNeed(n, shmBytes)), mib(rankMemory), ringsNote(shm), c.MemoryLimit)
			},
		})
	}
	if shm && c.Shm >= 0 {
		ls = append(ls, limit{
			fits: func(n int) bool { return shmBytes(n) <= c.Shm },
			why: func(n int) string {
				return fmt.Sprintf("%d ranks' shared-memory rings need %s in /dev/shm, which has %s free; free space there or mount it larger (mount -o remount,size=%dm /dev/shm), or run with --transport tcp", n, mib(shmBytes(n)), mib(c.Shm), (shmBytes(n)>>20)+1)
			},
		})
	}
	return ls
}

// ringsNote is the part of the memory account that counts the rings.
func ringsNote(shm bool) string {
	if shm {
		return ", plus the shared-memory rings"
	}
	return ""
}

// memoryNeed is the least memory n ranks need, bytes: rankMemory each, and
// their space in /dev/shm (memory too: tmpfs) when shmBytes is not nil.
func memoryNeed(n int, shmBytes func(n int) int64) int64 {
	m := int64(n) * rankMemory
	if shmBytes != nil {
		m += shmBytes(n)
	}
	return m
}

// hostShmBytes returns the space n ranks of one host take in /dev/shm on
// transport mode: the sum of HostShmBytes over the mode's transports
// (modeDrivers), nil when none of them takes any.
func hostShmBytes(mode string) func(n int) int64 {
	var fs []func(int) int64
	for _, d := range modeDrivers(mode) {
		if f := d.Properties().HostShmBytes; f != nil {
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		return nil
	}
	return func(n int) int64 {
		var b int64
		for _, f := range fs {
			b += f(n)
		}
		return b
	}
}

// mib formats bytes in KiB, MiB, GiB or TiB.
func mib(b int64) string {
	if b < 1<<20 {
		return fmt.Sprintf("%d KiB", b>>10)
	}
	if b >= 10<<40 {
		return fmt.Sprintf("%.1f TiB", float64(b)/(1<<40))
	}
	if b >= 10<<30 {
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%d MiB", b>>20)
}

// Check returns a *CapacityError when local ranks of a job of np ranks
// (all of them on this host when local == np) on transport mode do not fit
// within c, nil when they do.
func (c Capacity) Check(np, local int, mode string) error {
	if local < 1 {
		return nil
	}
	// most is the largest n below local such that 1 to n ranks all fit:
	// the rings do not grow steadily with n (they shrink at 10, 18 and 34
	// ranks), so n counts up to the first that does not fit. A rank's
	// descriptors depend on the job's size too (a smaller job has fewer
	// peers). The refusal names the tightest bound.
	most := func(fits func(n int) bool) int {
		n := 0
		for n < local && fits(n+1) {
			n++
		}
		return n
	}
	ls := c.limits(np, mode)
	bad, tightest := -1, local
	for i, l := range ls {
		if l.fits(local) {
			continue
		}
		m := most(func(n int) bool { return c.limits(n+np-local, mode)[i].fits(n) })
		if bad < 0 || m < tightest {
			bad, tightest = i, m
		}
	}
	if bad < 0 {
		return nil
	}
	fit := most(func(n int) bool {
		for _, l := range c.limits(n+np-local, mode) {
			if !l.fits(n) {
				return false
			}
		}
		return true
	})
	return &CapacityError{NP: np, Local: local, Max: fit + np - local, Why: ls[bad].why(local)}
}

// hostCapacity reads the host's limits; a variable for tests.
var hostCapacity = HostCapacity

// CheckCapacity returns a *CapacityError when the ranks of a job of np
// ranks placed on hosts (nil: all on this host) that run on this host do
// not fit within its limits (HostCapacity) on transport mode, nil when
// they do. Run calls it before starting any rank; commands call it first
// to refuse such a job before they create anything.
func CheckCapacity(np int, hosts []string, mode string) error {
	local := np
	if hosts != nil {
		local = 0
		for _, h := range hosts {
			if IsLocalHost(h) {
				local++
			}
		}
	}
	return hostCapacity().Check(np, local, mode)
}
