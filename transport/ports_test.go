package transport

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestLocalPortHint: the fix follows a listen or connection that failed
// for want of a local port, wrapped as the net package wraps it, and
// nothing else.
func TestLocalPortHint(t *testing.T) {
	listen := &net.OpError{Op: "listen", Net: "tcp", Err: os.NewSyscallError("bind", syscall.EADDRINUSE)}
	dial := fmt.Errorf("connecting: %w", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.EADDRNOTAVAIL)})
	for _, err := range []error{listen, dial} {
		if h := LocalPortHint(err); !strings.Contains(h, "net.ipv4.ip_local_port_range") {
			t.Errorf("LocalPortHint(%v) = %q, want the ephemeral port range named", err, h)
		}
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, err := range []error{refused, errors.New("address already in use")} {
		if h := LocalPortHint(err); h != "" {
			t.Errorf("LocalPortHint(%v) = %q, want none", err, h)
		}
	}
}
