package testbed

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// netnsDir is where iproute2 keeps named network namespaces.
const netnsDir = "/run/netns"

// ip runs the ip command with args and returns its error with its output.
func ip(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// namespaces returns the named network namespaces of testbed name (all
// testbeds when name is empty), as ip netns names them.
func namespaces(name string) []string {
	ents, _ := os.ReadDir(netnsDir)
	prefix := Prefix
	if name != "" {
		prefix += name + "-n"
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), prefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// InNode runs f on an OS thread that is in node ns's network namespace:
// sockets f creates belong to the node and stay there when used from other
// threads. The thread returns to this process's namespace afterwards.
func InNode(ns string, f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	self, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(self)
	target, err := unix.Open(netnsDir+"/"+ns, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("node %s: %v (is the testbed up?)", ns, err)
	}
	defer unix.Close(target)
	if err := unix.Setns(target, unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("entering node %s: %v", ns, err)
	}
	ferr := f()
	if err := unix.Setns(self, unix.CLONE_NEWNET); err != nil {
		// This thread cannot go back: keep it locked so Go discards it.
		runtime.LockOSThread()
		return fmt.Errorf("leaving node %s: %v", ns, err)
	}
	return ferr
}

// ExecInNode replaces this process with argv running on node ns: in the
// node's network namespace and in a new UTS namespace whose hostname is the
// node's name, and in a new mount namespace whose /sys is the node's (so
// /sys/class/net lists the node's interfaces). It returns only on failure.
func ExecInNode(ns string, argv []string) error {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	runtime.LockOSThread() // execve keeps this thread's namespaces
	target, err := unix.Open(netnsDir+"/"+ns, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("node %s: %v (is the testbed up? mpbench testbed status)", ns, err)
	}
	if err := unix.Setns(target, unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("entering node %s: %v", ns, err)
	}
	if err := unix.Unshare(unix.CLONE_NEWUTS | unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("node %s: new UTS and mount namespaces: %v", ns, err)
	}
	// As ip netns exec does: /sys shows the node's interfaces.
	if err := unix.Mount("", "/", "", unix.MS_SLAVE|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("node %s: %v", ns, err)
	}
	unix.Unmount("/sys", unix.MNT_DETACH)
	if err := unix.Mount(ns, "/sys", "sysfs", 0, ""); err != nil {
		return fmt.Errorf("node %s: mounting /sys: %v", ns, err)
	}
	if err := unix.Sethostname([]byte(ns)); err != nil {
		return fmt.Errorf("node %s: hostname: %v", ns, err)
	}
	return syscall.Exec(path, argv, os.Environ())
}

// pidsIn returns the processes whose network namespace is ns.
func pidsIn(ns string) []int {
	var st unix.Stat_t
	if unix.Stat(netnsDir+"/"+ns, &st) != nil {
		return nil
	}
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		var ps unix.Stat_t
		if unix.Stat("/proc/"+e.Name()+"/ns/net", &ps) == nil && ps.Ino == st.Ino && ps.Dev == st.Dev {
			out = append(out, pid)
		}
	}
	return out
}

// killIn ends every process in namespace ns: SIGTERM, then SIGKILL to
// those left after grace.
func killIn(ns string, grace time.Duration) {
	pids := pidsIn(ns)
	for _, p := range pids {
		unix.Kill(p, unix.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for len(pids) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		pids = pidsIn(ns)
	}
	for _, p := range pids {
		unix.Kill(p, unix.SIGKILL)
	}
}

// processAlive reports whether pid runs a command whose arguments contain
// want (so a reused PID is not taken for the forwarder).
func processAlive(pid int, want string) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return false
	}
	return bytes.Contains(bytes.ReplaceAll(b, []byte{0}, []byte{' '}), []byte(want))
}
