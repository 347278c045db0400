//go:build !linux

package launch

// HostCapacity returns every limit unknown: they are read from Linux's
// /proc, /sys/fs/cgroup and getrlimit(2).
func HostCapacity() Capacity { return Capacity{Tasks: -1, Files: -1, Memory: -1, Shm: -1} }

// MemAvailable returns -1, unknown: it is read from Linux's /proc/meminfo.
func MemAvailable() int64 { return -1 }
