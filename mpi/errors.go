//go:build mpi

package mpi

// #include "shim.h"
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/mpbench/mpbench/comm"
)

// Error is an error code returned by the MPI library (MPI-3.1 §8.3-8.4).
type Error struct {
	Op    string // MPI function that failed, e.g. "MPI_Recv"
	Code  int    // error code as returned
	Class int    // error class (MPI_Error_class)
	Msg   string // library's text for Code (MPI_Error_string)
}

// Error formats the failing function, the class number and the library text.
func (e *Error) Error() string {
	return fmt.Sprintf("mpi: %s failed: %s (error class %d)", e.Op, e.Msg, e.Class)
}

// Unwrap maps the error class to comm's sentinel errors: MPI_ERR_TRUNCATE to
// comm.ErrTruncate, MPI_ERR_RANK to comm.ErrRank, MPI_ERR_TAG to comm.ErrTag;
// other classes unwrap to nil.
func (e *Error) Unwrap() error {
	switch C.int(e.Class) {
	case C.mpb_err_truncate():
		return comm.ErrTruncate
	case C.mpb_err_rank():
		return comm.ErrRank
	case C.mpb_err_tag():
		return comm.ErrTag
	}
	return nil
}

// success is MPI_SUCCESS, read once: calling the shim for it on every
// return code would double the cgo calls of a message.
var success = C.mpb_success()

// check turns an MPI return code into nil or an *Error for function op. As
// it runs after every MPI call, it also paces the goroutine (see pace).
func check(op string, rc C.int) error {
	pace()
	if rc == success {
		return nil
	}
	e := &Error{Op: op, Code: int(rc), Class: int(rc)}
	var class C.int
	if C.MPI_Error_class(rc, &class) == success {
		e.Class = int(class)
	}
	buf := make([]byte, int(C.mpb_max_error_string()))
	var n C.int
	if C.MPI_Error_string(rc, (*C.char)(unsafe.Pointer(&buf[0])), &n) == success {
		e.Msg = string(buf[:n])
	} else {
		e.Msg = fmt.Sprintf("error code %d", int(rc))
	}
	return e
}
