//go:build mpi

// Package cref holds reference kernels written in C against the MPI library
// that package mpi links, so that the cost of mpbench's Go/cgo
// layer can be measured next to the same loop without it, in one job. It is
// built only with the tag mpi ("-tags mpi": Open MPI, "-tags mpi,mpich":
// MPICH) and its functions need MPI initialised (package mpi's Init) and
// must be called from the goroutine that called Init.
package cref

/*
#include <stddef.h>
#include "cref.h"

// cref_error_string writes the library's text for code into buf
// (MPI_Error_string) and returns its length, or 0 if the code is unknown.
static int cref_error_string(int code, char *buf) {
	int n = 0;
	if (MPI_Error_string(code, buf, &n) != MPI_SUCCESS) return 0;
	return n;
}

static int cref_max_error_string(void) { return MPI_MAX_ERROR_STRING; }
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"unsafe"
)

// Tag is the message tag PingPong uses, 0 like mpbench's PingPong kernel
// (bench/pingpong.go).
const Tag = 0

// PingPong runs reps round trips of IMB's PingPong between ranks 0 and 1 of
// MPI_COMM_WORLD, in C (loop of IMB_pingpong.c: blocking MPI_Send and
// MPI_Recv on MPI_BYTE with a specific source and tag Tag). Rank 0 sends
// len(send) bytes from send and receives as many into recv; rank 1
// receives into recv and sends from send. send and recv must have the same
// length, the same on both ranks. Other ranks return at once (seconds
// about 0).
// seconds is the calling rank's elapsed wall-clock time of the whole loop
// by MPI_Wtime, in seconds (the half round-trip time t of IMB is
// seconds/reps/2). Both buffers are passed to the library for the duration
// of the call only; they hold no Go pointers, as cgo requires. Errors: reps
// < 0, buffers of different lengths or over 2^31-1 bytes are refused before
// calling MPI; an MPI
// failure (with MPI_ERRORS_RETURN on MPI_COMM_WORLD, as package mpi's
// Init sets) comes back with the library's error text.
func PingPong(send, recv []byte, reps int) (seconds float64, err error) {
	if reps < 0 {
		return 0, fmt.Errorf("cref: PingPong: %d repetitions, want 0 or more", reps)
	}
	if len(send) > math.MaxInt32 || len(recv) > math.MaxInt32 {
		return 0, fmt.Errorf("cref: PingPong: buffers of %d and %d bytes, want at most %d bytes each", len(send), len(recv), math.MaxInt32)
	}
	if len(send) != len(recv) {
		return 0, fmt.Errorf("cref: PingPong: send buffer of %d bytes and receive buffer of %d, want equal lengths", len(send), len(recv))
	}
	var secs C.double
	rc := C.cref_pingpong(ptr(send), ptr(recv), C.int(len(send)), C.int(reps), Tag, &secs)
	if rc != C.MPI_SUCCESS {
		return 0, mpiError("MPI_Send/MPI_Recv", int(rc))
	}
	return float64(secs), nil
}

// ptr is the address of b's first byte, or nil for an empty slice (MPI
// accepts any address with a count of 0).
func ptr(b []byte) *C.char {
	if len(b) == 0 {
		return nil
	}
	return (*C.char)(unsafe.Pointer(&b[0]))
}

// mpiError describes MPI error code rc returned by op.
func mpiError(op string, rc int) error {
	buf := make([]byte, int(C.cref_max_error_string()))
	n := int(C.cref_error_string(C.int(rc), (*C.char)(unsafe.Pointer(&buf[0]))))
	if n == 0 {
		return fmt.Errorf("cref: %s: MPI error code %d", op, rc)
	}
	return errors.New("cref: " + op + ": " + string(buf[:n]))
}
