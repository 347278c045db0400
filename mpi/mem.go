//go:build mpi

package mpi

// #include "shim.h"
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// AllocMem returns bytes bytes of the library's memory (MPI_Alloc_mem, no
// info), as IMB-MPI1 allocates every message buffer (IMB_mem_manager.c,
// IMB_v_alloc): benchmarks on an MPI build send from and receive into
// memory placed where IMB's is (see comm.MemAllocator). At least one byte
// is allocated, so the slice has a capacity of max(bytes, 1) and a length
// of bytes. The memory is outside the Go heap: it must be returned with
// FreeMem, and is not cleared. Errors: a negative size, or the library's
// failure (an *Error).
func (c *Comm) AllocMem(bytes int) ([]byte, error) {
	if bytes < 0 {
		return nil, fmt.Errorf("mpi: MPI_Alloc_mem: %d bytes: expected a size of at least 0", bytes)
	}
	n := max(bytes, 1)
	var rc C.int
	p := C.mpb_alloc_mem(C.long(n), &rc)
	if err := check("MPI_Alloc_mem", rc); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("mpi: MPI_Alloc_mem of %d bytes returned no memory", n)
	}
	return unsafe.Slice((*byte)(p), n)[:bytes], nil
}

// FreeMem returns memory from AllocMem to the library (MPI_Free_mem); buf
// is the slice AllocMem returned, or a reslice of it from its first byte
// with a capacity above 0. Errors: a buffer of capacity 0, or the library's
// failure.
func (c *Comm) FreeMem(buf []byte) error {
	if cap(buf) == 0 {
		return errors.New("mpi: MPI_Free_mem: a buffer of capacity 0 is none AllocMem returned")
	}
	return check("MPI_Free_mem", C.MPI_Free_mem(unsafe.Pointer(unsafe.SliceData(buf))))
}
