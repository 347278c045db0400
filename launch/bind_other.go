//go:build !linux

package launch

// bindToCPU does nothing on systems other than Linux.
func bindToCPU(cpu int) {}

// allowedCPUs returns 0: unknown.
func allowedCPUs() int { return 0 }
