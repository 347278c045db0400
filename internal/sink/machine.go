package sink

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Machine describes the host a run measures, for result headers and meta
// data: the uname fields IMB prints, the CPU model and the core count.
type Machine struct {
	Host    string // host name
	System  string // uname sysname, e.g. "Linux"
	Release string // uname release, e.g. "6.1.0-18-amd64"
	Version string // uname version, e.g. "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1"
	Arch    string // uname machine, e.g. "x86_64", "aarch64"
	CPU     string // CPU model name from /proc/cpuinfo, "" when unknown
	Cores   int    // logical CPUs online on the host (/sys/devices/system/cpu/online)
	// Allowed is the number of logical CPUs this process may run on (its
	// affinity, runtime.NumCPU): 1 for a rank that a launcher bound to one
	// core, as Open MPI's mpirun does.
	Allowed int
}

// LocalMachine reads the facts of the machine it runs on. On Linux the
// uname fields come from /proc/sys/kernel (ostype, osrelease, version) and
// the CPU model from /proc/cpuinfo ("model name", or "Hardware"/"CPU part"
// on ARM); elsewhere they fall back to Go's GOOS and GOARCH.
func LocalMachine() Machine {
	m := Machine{Allowed: runtime.NumCPU(), Arch: unameArch(runtime.GOARCH)}
	m.Cores = cpuCount(procLine("/sys/devices/system/cpu/online"))
	if m.Cores == 0 {
		m.Cores = m.Allowed
	}
	m.Host, _ = os.Hostname()
	m.System = procLine("/proc/sys/kernel/ostype")
	if m.System == "" {
		m.System = runtime.GOOS
	}
	m.Release = procLine("/proc/sys/kernel/osrelease")
	m.Version = procLine("/proc/sys/kernel/version")
	m.CPU = cpuModel("/proc/cpuinfo")
	return m
}

// cpuCount counts the CPUs of a Linux CPU list such as "0-3,6,8-9" (the
// format of /sys/devices/system/cpu/online); 0 when list is empty or
// malformed.
func cpuCount(list string) int {
	n := 0
	for _, part := range strings.Split(strings.TrimSpace(list), ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return 0
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return 0
			}
		}
		n += b - a + 1
	}
	return n
}

// unameArch maps GOARCH to the machine name uname prints.
func unameArch(goarch string) string {
	switch goarch {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	case "386":
		return "i686"
	}
	return goarch
}

// procLine returns the first line of a file, trimmed, or "".
func procLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}

// cpuModel returns the first "model name" (x86), else "Hardware" or
// "CPU part" (ARM) value of a cpuinfo file, or "".
func cpuModel(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	found := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		if _, seen := found[k]; !seen {
			found[k] = strings.TrimSpace(v)
		}
	}
	for _, k := range []string{"model name", "Hardware", "CPU part"} {
		if v := found[k]; v != "" {
			return v
		}
	}
	return ""
}
