package transport

import (
	"errors"
	"syscall"
)

// LocalPortHint returns the fix to append to err, a failed listen on port 0
// or outgoing connection, when the host ran out of local (ephemeral)
// ports: the kernel then reports EADDRINUSE for the listen and
// EADDRNOTAVAIL ("cannot assign requested address") for the connection,
// which read as if an address were taken or wrong. Otherwise "".
func LocalPortHint(err error) string {
	if errors.Is(err, syscall.EADDRINUSE) || errors.Is(err, syscall.EADDRNOTAVAIL) {
		return " (no free local port: widen the host's ephemeral port range, sysctl net.ipv4.ip_local_port_range, or wait for ports held in TIME_WAIT)"
	}
	return ""
}
