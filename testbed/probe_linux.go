package testbed

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrUnsupported wraps every error saying that this host cannot build a
// testbed (a missing capability, kernel feature or tool); the command line
// maps it to exit status 2.
var ErrUnsupported = errors.New("testbed unsupported here")

// Capabilities a testbed needs (linux/capability.h).
const (
	capNetAdmin = 12
	capSysAdmin = 21
)

// Probe checks that this process can build a testbed: CAP_NET_ADMIN and
// CAP_SYS_ADMIN (namespaces and their bind mounts), network namespaces,
// TUN/TAP (/dev/net/tun opens) and the ip tool of iproute2. The error
// names the first thing missing and what to do; it wraps ErrUnsupported.
func Probe() error {
	eff, err := effectiveCaps()
	if err != nil {
		return refuse(ErrUnsupported, "cannot read this process's capabilities: %v", err)
	}
	for _, c := range []struct {
		bit  uint
		name string
	}{{capNetAdmin, "CAP_NET_ADMIN"}, {capSysAdmin, "CAP_SYS_ADMIN"}} {
		if eff&(1<<c.bit) == 0 {
			return refuse(ErrUnsupported, "the testbed needs %s (network namespaces and TAP devices); run it as root, e.g. sudo mpbench testbed ...", c.name)
		}
	}
	if _, err := os.Stat("/proc/self/ns/net"); err != nil {
		return refuse(ErrUnsupported, "the kernel has no network namespaces (CONFIG_NET_NS); use a kernel built with them")
	}
	fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return refuse(ErrUnsupported, "/dev/net/tun: %v; load the tun module (modprobe tun) or create the device (mknod /dev/net/tun c 10 200)", err)
	}
	unix.Close(fd)
	if _, err := exec.LookPath("ip"); err != nil {
		return refuse(ErrUnsupported, "the ip command is missing; install iproute2 (apt-get install iproute2)")
	}
	return nil
}

// effectiveCaps returns CapEff of /proc/self/status.
func effectiveCaps() (uint64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CapEff:"); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
	}
	return 0, errors.New("no CapEff line")
}
