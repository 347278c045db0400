//go:build !linux

package shm

import (
	"errors"

	"github.com/mpbench/mpbench/transport"
)

// ErrUnsupported is returned on systems other than Linux.
var ErrUnsupported = errors.New("shm: shared-memory transport needs Linux (futex, process_vm_readv)")

// NewJob returns ErrUnsupported: the transport needs Linux.
func NewJob(n int, o Options) ([]transport.Endpoint, error) { return nil, ErrUnsupported }
