package launch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/mpbench/mpbench/transport"
)

// A rank's address in the rendezvous table is
//
//	host=<16 hex digits>;<transport>=<address>;...
//
// with one field per transport the rank prepared (e.g.
// "host=0123456789abcdef;shm=;tcp=10.0.0.2:40123"), in the order the rank
// prefers them. host identifies the host and its /dev/shm: a transport that
// reaches only the ranks of one host (transport.SameHost) is used between
// ranks with the same host value, which are also bound to CPUs of that
// host.

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
	for _, p := range []string{"/dev/shm", "/proc/self/ns/net"} {
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
	host  string
	addrs map[string]string // by transport name: transport.Prepared.Addr
}

// formatAddr writes a, its transports in the order of
// transport.ProcessDrivers.
func formatAddr(a peerAddr) string {
	s := "host=" + a.host
	for _, d := range transport.ProcessDrivers() {
		name := d.Properties().Name
		if v, ok := a.addrs[name]; ok {
			s += ";" + name + "=" + v
		}
	}
	return s
}

// parseAddr reads a rank's address; a field that is neither host nor a
// registered transport is an error.
func parseAddr(s string) (peerAddr, error) {
	if !strings.HasPrefix(s, "host=") {
		return peerAddr{}, fmt.Errorf("rendezvous address %q: want host=<id>;<transport>=<address>...", s)
	}
	a := peerAddr{addrs: map[string]string{}}
	for _, f := range strings.Split(s, ";") {
		k, v, _ := strings.Cut(f, "=")
		if k == "host" {
			a.host = v
			continue
		}
		if _, ok := transport.Lookup(k); !ok {
			return a, fmt.Errorf("rendezvous address %q: unknown field %q", s, k)
		}
		a.addrs[k] = v
	}
	return a, nil
}
