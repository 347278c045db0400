// Package netnstest gives tests a small network of "hosts": Linux network
// namespaces, each with an address of its own on one bridge of the root
// namespace, reachable from the test process (which is the launcher) and
// from each other over IPv4 and IPv6. Ranks are started on a host through
// mpbench's launch agent "ip netns exec {host}" (Agent).
//
// Creating namespaces needs root and ip(8) from iproute2; New skips the
// test with a message saying so where either is missing. Everything New
// creates is removed by the test's cleanup, also when the test fails;
// namespaces left by a test process that was killed are removed by the
// next New.
package netnstest

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Agent is the --launch-agent template that starts a command on a host of
// a Net.
const Agent = "ip netns exec {host}"

// Net is a set of namespace hosts on one bridge.
type Net struct {
	// Hosts are the namespace names, usable as host names in a hostfile
	// with Agent.
	Hosts []string
	// Addrs and Addrs6 are each host's IPv4 and IPv6 address.
	Addrs, Addrs6 []string
	// CIDR and CIDR6 are the networks of all hosts and of the bridge
	// (the test process's own address in them is Gateway, Gateway6): give
	// one to --if.
	CIDR, CIDR6       string
	Gateway, Gateway6 string
	bridge            string
}

// prefix starts every namespace and link name made by this package,
// followed by the creating process's id.
const prefix = "mbt"

// New creates n hosts, or skips t when it cannot (not root, no ip).
// Names and networks are derived from the process id, so test processes
// running at the same time do not collide.
func New(t testing.TB, n int) *Net {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("netnstest: creating network namespaces needs root (CI runs this test as root)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("netnstest: creating network namespaces needs ip(8) from iproute2 (apt-get install iproute2)")
	}
	removeStale()
	pid := os.Getpid()
	id := strconv.FormatInt(int64(pid), 36)
	b := &Net{bridge: prefix + id + "b"}
	o2, o3 := 100+pid%100, (pid/100)%250
	b.CIDR = fmt.Sprintf("10.%d.%d.0/24", o2, o3)
	b.Gateway = fmt.Sprintf("10.%d.%d.1", o2, o3)
	b.CIDR6 = fmt.Sprintf("fd6d:%x::/64", pid&0xffff)
	b.Gateway6 = fmt.Sprintf("fd6d:%x::1", pid&0xffff)
	t.Cleanup(b.remove)
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("netnstest: ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	run("link", "add", b.bridge, "type", "bridge")
	run("addr", "add", b.Gateway+"/24", "dev", b.bridge)
	run("-6", "addr", "add", b.Gateway6+"/64", "dev", b.bridge, "nodad")
	run("link", "set", b.bridge, "up")
	for i := range n {
		ns := fmt.Sprintf("%s%sn%d", prefix, id, i)
		veth := fmt.Sprintf("%s%sv%d", prefix, id, i)
		addr := fmt.Sprintf("10.%d.%d.%d", o2, o3, 10+i)
		addr6 := fmt.Sprintf("fd6d:%x::%x", pid&0xffff, 0x10+i)
		run("netns", "add", ns)
		b.Hosts, b.Addrs, b.Addrs6 = append(b.Hosts, ns), append(b.Addrs, addr), append(b.Addrs6, addr6)
		run("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
		run("link", "set", veth, "master", b.bridge, "up")
		run("-n", ns, "addr", "add", addr+"/24", "dev", "eth0")
		run("-n", ns, "-6", "addr", "add", addr6+"/64", "dev", "eth0", "nodad")
		run("-n", ns, "link", "set", "eth0", "up")
		run("-n", ns, "link", "set", "lo", "up")
	}
	return b
}

// Hostfile writes an Open MPI hostfile giving each host slots slots and
// returns its path (in t's temporary directory).
func (b *Net) Hostfile(t testing.TB, slots int) string {
	t.Helper()
	var s strings.Builder
	for _, h := range b.Hosts {
		fmt.Fprintf(&s, "%s slots=%d\n", h, slots)
	}
	path := t.TempDir() + "/hostfile"
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Pids lists the processes running in host's namespace.
func (b *Net) Pids(host string) []int {
	out, _ := exec.Command("ip", "netns", "pids", host).Output()
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		if p, err := strconv.Atoi(f); err == nil {
			pids = append(pids, p)
		}
	}
	return pids
}

// remove kills what still runs in the namespaces and deletes them and the
// bridge (the veth pairs go with their namespaces).
func (b *Net) remove() {
	for _, h := range b.Hosts {
		for _, p := range b.Pids(h) {
			syscall.Kill(p, syscall.SIGKILL)
		}
		exec.Command("ip", "netns", "del", h).Run()
	}
	exec.Command("ip", "link", "del", b.bridge).Run()
}

// removeStale deletes namespaces and bridges of this package whose
// creating process is gone (a test binary killed by a timeout).
func removeStale() {
	out, _ := exec.Command("ip", "netns", "list").Output()
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], prefix) {
			continue
		}
		if owner, ok := ownerPid(f[0]); ok && !alive(owner) {
			stale := &Net{Hosts: []string{f[0]}, bridge: prefix + strconv.FormatInt(int64(owner), 36) + "b"}
			stale.remove()
		}
	}
}

// ownerPid parses the creating process id out of a namespace name.
func ownerPid(name string) (int, bool) {
	rest := strings.TrimPrefix(name, prefix)
	i := strings.LastIndex(rest, "n")
	if i <= 0 {
		return 0, false
	}
	p, err := strconv.ParseInt(rest[:i], 36, 64)
	return int(p), err == nil
}

func alive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}
