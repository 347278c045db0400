package launch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/hybrid"
	"github.com/mpbench/mpbench/transport/shm"
	"github.com/mpbench/mpbench/transport/tcp"
)

// A rank's address in the rendezvous table is
//
//	host=<16 hex digits>;tcp=<host:port or empty>
//
// where host identifies the host and its /dev/shm: ranks with the same host
// value reach each other through shared memory (unless
// MPBENCH_TRANSPORT=tcp) and are bound to CPUs of that host. A bare
// host:port (no host field) is a TCP-only rank on a host of its own.

// hostID identifies this host and its shared-memory file system: the
// kernel's boot id, the host name, the device and inode of /dev/shm
// (ranks in different mount namespaces do not share segments) and of the
// network namespace (ranks in different network namespaces, such as the
// "hosts" of an emulated network started with "ip netns exec", count as
// different hosts and talk over TCP), hashed.
func hostID() string {
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	name, _ := os.Hostname()
	var dev string
	for _, p := range []string{shm.DefaultDir, "/proc/self/ns/net"} {
		if fi, err := os.Stat(p); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				dev += fmt.Sprint(st.Dev, ":", st.Ino, ";")
			}
		}
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(string(boot)) + "\x00" + name + "\x00" + dev))
	return hex.EncodeToString(sum[:8])
}

// peerAddr is one entry of the rendezvous table, parsed.
type peerAddr struct {
	host string // "" when the rank uses TCP only
	tcp  string // "" when the rank listens on no TCP port
}

func formatAddr(a peerAddr) string {
	if a.host == "" {
		return a.tcp
	}
	return "host=" + a.host + ";tcp=" + a.tcp
}

func parseAddr(s string) (peerAddr, error) {
	if !strings.HasPrefix(s, "host=") {
		return peerAddr{tcp: s}, nil
	}
	var a peerAddr
	for _, f := range strings.Split(s, ";") {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "host":
			a.host = v
		case "tcp":
			a.tcp = v
		default:
			return a, fmt.Errorf("rendezvous address %q: unknown field %q", s, k)
		}
	}
	return a, nil
}

// TransportName names the transport of an endpoint made by Join: "shm",
// "tcp", or "shm+tcp" for a job spanning hosts.
func TransportName(ep transport.Endpoint) string {
	switch e := ep.(type) {
	case *hybrid.Endpoint:
		return e.Name()
	case *tcp.Endpoint:
		return "tcp"
	case *shm.Endpoint:
		return "shm"
	}
	return fmt.Sprintf("%T", ep)
}

// CopyPaths says, for an endpoint made by Join, how its rank reads large
// payloads from every rank of the job (index: source rank): the
// shared-memory part's shm.Endpoint.CopyPath, shm.PathNone for ranks it
// reaches otherwise. It returns nil when no shared memory is in use.
func CopyPaths(ep transport.Endpoint) []shm.CopyPath {
	parts := []transport.Endpoint{ep}
	if h, ok := ep.(*hybrid.Endpoint); ok {
		parts = h.Parts()
	}
	for _, p := range parts {
		if s, ok := p.(*shm.Endpoint); ok {
			paths := make([]shm.CopyPath, ep.Size())
			for r := range paths {
				paths[r] = s.CopyPath(r)
			}
			return paths
		}
	}
	return nil
}
