package shm

import (
	"fmt"
	"strings"

	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/transport"
)

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

// copyPathReport is the transport's "# Single copy" line (field case B35):
// how the ranks on one host read each other's large payloads.
var copyPathReport = &transport.PeerReport{
	Header:   "Single copy",
	Key:      "single_copy",
	Facts:    copyPathFacts,
	Describe: describeCopyFacts,
}

// copyPathFacts returns, when ep is a shared-memory endpoint, its
// CopyPath for every rank of the job as one byte each; else nil.
func copyPathFacts(ep transport.Endpoint) []byte {
	e, ok := ep.(*Endpoint)
	if !ok || e == nil {
		return nil
	}
	facts := make([]byte, e.Size())
	for r := range facts {
		facts[r] = byte(e.CopyPath(r))
	}
	return facts
}

// describeCopyFacts is describeCopyPaths of facts[reader][sender], each
// byte a CopyPath.
func describeCopyFacts(facts [][]byte) string {
	paths := make([][]CopyPath, len(facts))
	for r, row := range facts {
		paths[r] = make([]CopyPath, len(row))
		for s, b := range row {
			paths[r][s] = CopyPath(b)
		}
	}
	return describeCopyPaths(paths)
}

// maxCopyReaders bounds the ranks named per cause in the "# Single copy"
// line; the rest are counted.
const maxCopyReaders = 8

// describeCopyPaths summarises paths[reader][sender] (a nil row: no
// shared memory on that rank) in one line: "" when no two ranks share a
// host; how many reader-sender pairs on one host read large payloads by
// single copy (process_vm_readv); and for every pair that copies through
// the rings instead, why, with the ranks concerned as "rank 1 from 0,2-3"
// (the reader, then the senders it cannot read; at most maxCopyReaders
// readers per cause, the others counted).
func describeCopyPaths(paths [][]CopyPath) string {
	count := map[CopyPath]int{}
	total := 0
	for _, row := range paths {
		for _, p := range row {
			if p != PathNone {
				count[p]++
				total++
			}
		}
	}
	switch {
	case total == 0:
		return ""
	case count[PathSingle] == total:
		return fmt.Sprintf("process_vm_readv for every pair of ranks on one host (%d reader-sender pairs)", total)
	case count[PathOff] == total:
		return fmt.Sprintf("turned off (MPBENCH_SHM_CMA=-1): large payloads copied through the rings (%d reader-sender pairs)", total)
	}
	parts := []string{fmt.Sprintf("process_vm_readv for %d of %d reader-sender pairs on one host, the rings for %d", count[PathSingle], total, total-count[PathSingle])}
	for _, why := range []CopyPath{PathRefused, PathUnsupported, PathOff, PathFailed} {
		if count[why] == 0 {
			continue
		}
		var readers []string
		for reader, row := range paths {
			var from []int
			for src, p := range row {
				if p == why {
					from = append(from, src)
				}
			}
			if len(from) > 0 {
				readers = append(readers, fmt.Sprintf("rank %d from %s", reader, result.FormatRanges(from)))
			}
		}
		if len(readers) > maxCopyReaders {
			readers = append(readers[:maxCopyReaders], fmt.Sprintf("%d more ranks", len(readers)-maxCopyReaders))
		}
		parts = append(parts, fmt.Sprintf("%s for %d: %s", why, count[why], strings.Join(readers, ", ")))
	}
	return strings.Join(parts, "; ")
}
