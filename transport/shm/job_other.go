//go:build !linux

package shm

import (
	"context"
	"errors"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// ErrUnsupported is returned on systems other than Linux.
var ErrUnsupported = errors.New("shm: shared-memory transport needs Linux (futex, process_vm_readv)")

// NewJob returns ErrUnsupported: the transport needs Linux.
func NewJob(n int, o Options) ([]transport.Endpoint, error) { return nil, ErrUnsupported }

// Pending is unused on systems other than Linux.
type Pending struct{}

// Prepare returns ErrUnsupported: the transport needs Linux.
func Prepare(o Options) (*Pending, error) { return nil, ErrUnsupported }

// Path returns "".
func (p *Pending) Path() string { return "" }

// Abort does nothing.
func (p *Pending) Abort() {}

// Addr returns "".
func (p *Pending) Addr() string { return "" }

// Connect returns ErrUnsupported.
func (p *Pending) Connect(ctx context.Context, _ []string, reach []bool) (transport.Endpoint, error) {
	return nil, ErrUnsupported
}

// Attach returns ErrUnsupported.
func (p *Pending) Attach(ctx context.Context, local []bool) (transport.Endpoint, error) {
	return nil, ErrUnsupported
}

// RemoveJob does nothing and returns no paths.
func RemoveJob(dir string, secret []byte) ([]string, error) { return nil, nil }

// Endpoint is never created on systems other than Linux.
type Endpoint struct{ transport.Endpoint }

// StaleAge is unused on systems other than Linux.
const StaleAge = 0

// RemoveStale does nothing and returns no paths.
func RemoveStale(dir string, minAge time.Duration) ([]string, error) { return nil, nil }

// CopyPath returns PathNone.
func (e *Endpoint) CopyPath(src int) CopyPath { return PathNone }
