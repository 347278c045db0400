package shm

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// cmaRead copies len(dst) bytes at addr in process pid's address space
// into dst with process_vm_readv (cross-memory attach: one copy, done by
// the kernel). It needs ptrace access to pid (same user, and Yama's
// ptrace_scope permitting).
func cmaRead(pid int, dst []byte, addr uint64) error {
	for len(dst) > 0 {
		local := []unix.Iovec{{Base: &dst[0]}}
		local[0].SetLen(len(dst))
		remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: len(dst)}}
		n, err := unix.ProcessVMReadv(pid, local, remote, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("shm: process_vm_readv of %d bytes from pid %d: %w", len(dst), pid, err)
		}
		if n == 0 {
			return fmt.Errorf("shm: process_vm_readv from pid %d read nothing", pid)
		}
		dst, addr = dst[n:], addr+uint64(n)
	}
	return nil
}

// cmaProbe reads the magic at the start of peer pid's own mapping of its
// segment (control.selfAddr), which only a working process_vm_readv
// returns, and says which copy path reading that peer takes.
func cmaProbe(pid int, c *control) CopyPath {
	var b [len(segMagic)]byte
	return probePath(cmaRead(pid, b[:], c.selfAddr), string(b[:]) == segMagic)
}

// probePath is the copy path a probe read's error (and whether it returned
// the segment's magic) gives.
func probePath(err error, magic bool) CopyPath {
	switch {
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return PathRefused
	case errors.Is(err, unix.ENOSYS):
		return PathUnsupported
	case err != nil || !magic:
		return PathFailed
	}
	return PathSingle
}

// addrOf is the address of b's first byte in this process.
func addrOf(b []byte) uint64 { return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b)))) }
