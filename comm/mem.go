package comm

// MemAllocator is implemented by a runtime whose library allocates the
// memory that benchmarks send from and receive into, as IMB-MPI1 takes its
// message buffers from MPI_Alloc_mem (IMB_mem_manager.c, IMB_v_alloc).
// Package mpi does: where a buffer starts decides how a library's copies
// line up with its own shared-memory cells (glibc places a large block 16
// bytes past a page boundary, where Go's heap gives a page-aligned one), so
// a benchmark measures what IMB measures on the same library only from
// buffers the library handed out. Benchmarks find it by type assertion and
// fall back to Go memory on runtimes without it.
type MemAllocator interface {
	// AllocMem returns bytes bytes (at least 1 is allocated) of the
	// library's memory, outside the Go heap, or an error naming the
	// library's failure. The memory stays valid until FreeMem.
	AllocMem(bytes int) ([]byte, error)
	// FreeMem returns memory from AllocMem (MPI_Free_mem); buf must be
	// the slice AllocMem returned, or one starting at the same address.
	FreeMem(buf []byte) error
}
