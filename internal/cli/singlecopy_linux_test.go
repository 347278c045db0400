package cli

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// denyCMAEnv makes this test binary a launch agent that starts the rank's
// command under a seccomp filter failing process_vm_readv with EPERM, the
// refusal Docker's default profile (or Yama's ptrace_scope between
// siblings) gives: `env MPBENCH_TEST_DENY_CMA=1 <test binary> {host}`.
const denyCMAEnv = "MPBENCH_TEST_DENY_CMA"

func init() {
	if os.Getenv(denyCMAEnv) == "1" && len(os.Args) > 2 {
		err := execDenyingCMA(os.Args[2:]) // os.Args[1] is the host
		fmt.Fprintln(os.Stderr, "deny-CMA agent:", err)
		os.Exit(127)
	}
}

// execDenyingCMA installs the filter on this thread (no_new_privs, as an
// unprivileged process must) and executes argv with it: the filter
// survives execve, which keeps only the calling thread.
func execDenyingCMA(argv []string) error {
	runtime.LockOSThread()
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	filter := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // seccomp_data.nr
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: 0, Jf: 1, K: unix.SYS_PROCESS_VM_READV},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	return unix.Exec(path, argv, os.Environ())
}

// TestE2ESingleCopyRefusedPerPeer: ranks 2 and 3 of a 4-rank job on one
// host run under a seccomp filter that refuses process_vm_readv (EPERM),
// as a container's profile does; ranks 0 and 1 do not. The job runs to
// its end, and the header names the pairs that copy through the rings and
// why: ranks 2 and 3 reading every peer (field case B35). Ranks 0 and 1
// still read 2 and 3 by single copy, unless this host refuses it to every
// process (then all twelve pairs are named).
func TestE2ESingleCopyRefusedPerPeer(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	agent := denyCMAEnv + "=1 " + self + " {host}"
	cmd, out, errb := e2eCmd(t, "run", "--host", "localhost:2,sandboxed:2", "--launch-agent", "env "+agent, "--if", "127.0.0.0/8",
		"-msglog", "16:17", "-iter", "10", "--settle", "0", "--timeout", "60s", "PingPong", "Exchange")
	cmd.Env = append(cmd.Environ(), "MPBENCH_SHM_CMA=32768") // 64 and 128 KiB by single copy, whatever the default
	if err := cmd.Run(); err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, errb)
	}
	text := out.String()
	if tableRows(text, "Exchange", "# #processes = 4 \n#---") != 3 {
		t.Errorf("Exchange at 0, 64 and 128 KiB over 4 ranks did not complete:\n%s", text)
	}
	const refused = "process_vm_readv refused by the kernel's ptrace policy (EPERM"
	var line string
	for l := range strings.Lines(text) {
		if v, ok := strings.CutPrefix(l, "# Single copy "); ok {
			line = strings.TrimSpace(strings.TrimLeft(v, " :"))
		}
	}
	if !strings.HasPrefix(line, "process_vm_readv for 6 of 12 reader-sender pairs on one host, the rings for 6; "+refused) &&
		!strings.HasPrefix(line, "process_vm_readv for 0 of 12 reader-sender pairs on one host, the rings for 12; "+refused) {
		t.Fatalf("# Single copy line %q: want ranks 2 and 3 refused reading every peer\n%s", line, text)
	}
	if !strings.HasSuffix(line, "rank 2 from 0-1,3, rank 3 from 0-2") || !strings.Contains(text, "# Transport             : shm\n") {
		t.Errorf("# Single copy line %q: want it to end with ranks 2 and 3 refused from every peer, on shared memory\n%s", line, text)
	}
}
