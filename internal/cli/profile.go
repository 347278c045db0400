package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
)

// checkProfilePath checks --cpuprofile before the ranks start, when they
// all run on this host: the files path.<rank> need an existing directory.
// A missing one is a usage error in cannotCreate's words, rather than
// every rank failing as it starts.
func checkProfilePath(path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err == nil && !st.IsDir() {
		err = fmt.Errorf("%s is not a directory", dir)
	}
	if err != nil {
		return cannotCreate("--cpuprofile", path+".RANK", err)
	}
	return nil
}

// startCPUProfile writes rank's CPU profile to path.<rank> until the
// returned function is called (--cpuprofile).
func startCPUProfile(path string, rank int) (func(), error) {
	name := fmt.Sprintf("%s.%d", path, rank)
	f, err := os.Create(name)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile %s: %w", path, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile %s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
