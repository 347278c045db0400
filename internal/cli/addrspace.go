package cli

import "fmt"

// minAddressSpace is the smallest limit on the address space (RLIMIT_AS,
// ulimit -v) under which mpbench runs a job, bytes: 1500000 KiB. Go's
// runtime reserves about 1.1 GiB of address space before main runs (its
// page allocator's summaries and the scavenger's index: PROT_NONE
// mappings that count against the limit though they use no memory), then
// 64 MiB heap arenas and an 8 MiB stack per thread (glibc's, in a cgo
// build); a launcher starts a thread per rank it waits for. Measured on
// Linux 6.18/x86_64 with Go 1.26 and one glibc malloc arena
// (LimitMallocArenas): jobs of 2 to 16 ranks up to 4 MiB messages ran at
// 1450000 KiB and above, at 1400000 the launcher or a rank aborted in the
// runtime (pthread_create failed), and from 100000 to 700000 and 1200000
// to 1300000 the runtime aborts before main (docs/reliability.md,
// "Resource exhaustion"): cgo builds check the limit when the program is
// loaded too (cmd/mpbench's constructor, MPBENCH_MIN_AS_KIB, the same
// value and words).
const minAddressSpace = 1500000 << 10

// addressSpaceError is the one-line refusal to run under the address-space
// limit cur (bytes, below minAddressSpace): the limit in ulimit -v's KiB,
// the minimum and the fix.
func addressSpaceError(cur uint64) error {
	return fmt.Errorf("the address-space limit (ulimit -v %d) is below the %d KiB mpbench needs: Go's runtime reserves about 1.1 GiB of address space at start, "+
		"beside what it uses; raise the limit (ulimit -v %d, or unlimited), or limit memory with a cgroup (memory.max), which counts memory used, not reserved",
		cur>>10, minAddressSpace>>10, minAddressSpace>>10)
}
