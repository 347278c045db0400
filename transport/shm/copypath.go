package shm

// CopyPath is how a rank reads the payloads of at least Options.CMABytes
// that one peer on its host sends, decided per peer at start-up by a probe
// read (field case B35: process_vm_readv refused by the kernel's ptrace
// policy, Yama's ptrace_scope or a container's seccomp profile, for
// ranks that are siblings rather than parent and child). Every value but
// PathSingle means the payload is copied through the ring instead, which
// is slower for large messages but never fails a transfer.
type CopyPath uint8

const (
	// PathNone: the peer is this rank, or not on this host.
	PathNone CopyPath = iota
	// PathSingle: single copy, process_vm_readv from the sender's buffer.
	PathSingle
	// PathOff: single copy turned off (Options.CMABytes < 0,
	// MPBENCH_SHM_CMA=-1).
	PathOff
	// PathRefused: the kernel refused process_vm_readv of the peer with
	// EPERM (ptrace access: Yama ptrace_scope 1 or more, a seccomp profile
	// such as Docker's default one, another user without CAP_SYS_PTRACE).
	PathRefused
	// PathUnsupported: process_vm_readv failed with ENOSYS (a kernel
	// without cross-memory attach, or a seccomp profile answering so).
	PathUnsupported
	// PathFailed: the probe failed otherwise (the peer ended, or the read
	// did not return its segment's magic).
	PathFailed
)

// String names the path in a few words, as the run's header lists it.
func (p CopyPath) String() string {
	switch p {
	case PathNone:
		return "not on this host"
	case PathSingle:
		return "single copy (process_vm_readv)"
	case PathOff:
		return "single copy turned off (MPBENCH_SHM_CMA=-1)"
	case PathRefused:
		return "process_vm_readv refused by the kernel's ptrace policy (EPERM: Yama ptrace_scope, a container's seccomp profile, or no CAP_SYS_PTRACE)"
	case PathUnsupported:
		return "process_vm_readv not available (ENOSYS: a kernel without cross-memory attach, or a seccomp profile)"
	case PathFailed:
		return "single-copy probe failed"
	}
	return "unknown copy path"
}
