package launch

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// bindToCPU pins every thread of this process (and so the threads it
// starts later, which inherit the mask) to the cpu-th CPU of the process's
// allowed set, as MPI launchers bind ranks to cores by default: two
// polling ranks then never share a core while another one idles, and a
// rank's caches stay warm. It does nothing if the allowed set has fewer
// than cpu+1 CPUs. Errors are ignored: binding is an optimisation.
func bindToCPU(cpu int) {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return
	}
	target := -1
	for c, n := 0, 0; c < len(allowed)*64 && target < 0; c++ {
		if allowed.IsSet(c) {
			if n == cpu {
				target = c
			}
			n++
		}
	}
	if target < 0 {
		return
	}
	var set unix.CPUSet
	set.Set(target)
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return
	}
	for _, t := range tasks {
		if tid, err := strconv.Atoi(t.Name()); err == nil {
			unix.SchedSetaffinity(tid, &set)
		}
	}
}

// allowedCPUs is the number of CPUs this process may run on.
func allowedCPUs() int {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return 0
	}
	return allowed.Count()
}
