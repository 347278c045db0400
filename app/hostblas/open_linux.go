//go:build linux && (amd64 || arm64) && !noopenblas

package hostblas

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/ebitengine/purego"
)

// noLoad is "": this build loads OpenBLAS with dlopen (purego).
func noLoad() string { return "" }

// open loads one shared library with dlopen and takes its OpenBLAS
// routines; a library that lacks one is closed again and refused.
func open(name string) (*Library, error) {
	// dlerror's message is per thread: dlopen and dlerror must run on
	// the same one, or the message read is another thread's (often none).
	runtime.LockOSThread()
	h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
	runtime.UnlockOSThread()
	if err != nil {
		if err.Error() == "" {
			return nil, fmt.Errorf("%s: cannot be loaded", name)
		}
		return nil, err
	}
	syms := map[string]uintptr{}
	for _, s := range []string{"cblas_dgemm", "openblas_set_num_threads", "openblas_get_num_threads", "openblas_get_config"} {
		addr, err := purego.Dlsym(h, s)
		if err != nil || addr == 0 {
			purego.Dlclose(h)
			return nil, fmt.Errorf("%s: not an OpenBLAS (no %s)", name, s)
		}
		syms[s] = addr
	}
	lib := &Library{Path: name}
	var config func() string
	purego.RegisterFunc(&lib.dgemm, syms["cblas_dgemm"])
	purego.RegisterFunc(&lib.setThreads, syms["openblas_set_num_threads"])
	purego.RegisterFunc(&lib.getThreads, syms["openblas_get_num_threads"])
	purego.RegisterFunc(&config, syms["openblas_get_config"])
	lib.Config = strings.TrimSpace(config())
	lib.Version = version(lib.Config)
	if p := mappedFile(syms["cblas_dgemm"]); p != "" {
		lib.Path = p
	}
	return lib, nil
}

// mappedFile returns the file whose mapping holds addr, from
// /proc/self/maps ("start-end perms offset dev inode path"), or "".
func mappedFile(addr uintptr) string {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 == nil && err2 == nil && uint64(addr) >= start && uint64(addr) < end {
			return strings.Join(fields[5:], " ")
		}
	}
	return ""
}
