package cli

import (
	"fmt"
	"os"
	"runtime/pprof"
)

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
