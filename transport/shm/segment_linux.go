package shm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// segmentPath is rank's segment file in dir.
func segmentPath(dir string, secret []byte, rank int) string {
	return filepath.Join(dir, JobPrefix(secret)+strconv.Itoa(rank))
}

// RemoveJob removes every segment file of the job with this secret from
// dir ("" means DefaultDir) and returns the paths it removed. Ranks unlink
// their segments as soon as all peers have mapped them, so this finds
// files only when a rank died during start-up.
func RemoveJob(dir string, secret []byte) ([]string, error) {
	if dir == "" {
		dir = DefaultDir
	}
	matches, err := filepath.Glob(filepath.Join(dir, JobPrefix(secret)+"*"))
	if err != nil {
		return nil, err
	}
	var removed []string
	var first error
	for _, m := range matches {
		if err := os.Remove(m); err == nil {
			removed = append(removed, m)
		} else if !os.IsNotExist(err) && first == nil {
			first = err
		}
	}
	return removed, first
}

// createSegment creates (exclusively, mode 0600) and maps rank's segment,
// and fills in its control block.
func createSegment(path string, g geometry, rank int) (view, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return view{}, fmt.Errorf("shm: creating segment %s: %w", path, err)
	}
	defer unix.Close(fd)
	if err := reserve(fd, int64(g.total())); err != nil {
		unix.Unlink(path)
		if errors.Is(err, unix.ENOSPC) {
			return view{}, fmt.Errorf("shm: %s has no room for rank %d's segment of %d bytes (%v): free space there or mount it larger (mount -o remount,size=1g %s), or run with --transport tcp", filepath.Dir(path), rank, g.total(), err, filepath.Dir(path))
		}
		return view{}, fmt.Errorf("shm: sizing segment %s to %d bytes: %w", path, g.total(), err)
	}
	mem, err := unix.Mmap(fd, 0, g.total(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		unix.Unlink(path)
		return view{}, fmt.Errorf("shm: mapping segment %s: %w", path, err)
	}
	v := view{mem: mem, g: g}
	c := v.ctl()
	c.size, c.rank, c.pid, c.ringBytes = uint32(g.size), uint32(rank), uint32(os.Getpid()), uint32(g.ringBytes)
	c.selfAddr = uint64(uintptr(unsafe.Pointer(c)))
	copy(c.magic[:], segMagic) // last: a peer checks the magic first
	return v, nil
}

// reserve gives the segment file its size with every page allocated
// (fallocate(2)), so that a full /dev/shm fails here with ENOSPC: a
// segment merely truncated to size would map, and the rank would die of
// SIGBUS at its first write to a page tmpfs has no room for. File systems
// without fallocate get ftruncate(2).
func reserve(fd int, size int64) error {
	err := unix.Fallocate(fd, 0, 0, size)
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		return unix.Ftruncate(fd, size)
	}
	return err
}

// openSegment maps peer's segment and checks that it belongs to this job
// layout.
func openSegment(path string, g geometry, peer int) (view, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return view{}, fmt.Errorf("shm: opening rank %d's segment %s: %w", peer, path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Size != int64(g.total()) {
		return view{}, fmt.Errorf("shm: rank %d's segment %s has %d bytes, want %d (same job, same ring size?)", peer, path, st.Size, g.total())
	}
	mem, err := unix.Mmap(fd, 0, g.total(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return view{}, fmt.Errorf("shm: mapping rank %d's segment %s: %w", peer, path, err)
	}
	v := view{mem: mem, g: g}
	c := v.ctl()
	if string(c.magic[:]) != segMagic || int(c.size) != g.size || int(c.rank) != peer || int(c.ringBytes) != g.ringBytes {
		unix.Munmap(mem)
		return view{}, fmt.Errorf("shm: %s is not rank %d's segment of this job (magic %q, size %d, rank %d, ring %d bytes)", path, peer, c.magic[:], c.size, c.rank, c.ringBytes)
	}
	return v, nil
}
