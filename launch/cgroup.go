package launch

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// cgroupDir returns the directory of this process's cgroup for controller
// ("memory", "pids"), read from procFile (/proc/self/cgroup's
// "hierarchy-ID:controllers:path" lines) with the hierarchies mounted
// under root (/sys/fs/cgroup): cgroup v1's hierarchy of that controller
// (root/controller/path) when one is listed, v1 true; otherwise the v2
// unified hierarchy's directory (root/path, from the "0::path" line), v1
// false, whether or not the controller is enabled there (the caller probes
// the controller's files). dir is "" when procFile cannot be read or
// lists neither (cgroups(7)).
func cgroupDir(procFile, root, controller string) (dir string, v1 bool) {
	b, err := os.ReadFile(procFile)
	if err != nil {
		return "", false
	}
	var unified string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		switch {
		case slices.Contains(strings.Split(f[1], ","), controller):
			return filepath.Join(root, controller, f[2]), true
		case f[0] == "0" && f[1] == "":
			unified = filepath.Join(root, f[2])
		}
	}
	return unified, false
}
