package shm

// longMove is the shortest copy into or out of a ring that moveBytes
// does with the CPU's string-move instruction (repMove) where the
// architecture has a fast one; shorter copies use Go's copy. Go's copy
// of 4 KiB and more into a ring line the peer's core last read, or out of
// one it just wrote, runs at half the speed of REP MOVSB on the AMD EPYC
// hosts mpbench is measured on; docs/mpi-comparison.md has the numbers.
const longMove = 4 << 10

// moveBytes copies min(len(dst), len(src)) bytes from src to dst, which do
// not overlap; it is copy with the copy-in/copy-out path's choice of
// instruction.
func moveBytes(dst, src []byte) {
	n := min(len(dst), len(src))
	if n >= longMove && fastRepMove {
		raceMove(dst[:n], src[:n])
		repMove(&dst[0], &src[0], uintptr(n))
		return
	}
	copy(dst, src)
}
