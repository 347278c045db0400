//go:build !(linux && (amd64 || arm64)) || noopenblas

package hostblas

import (
	"errors"
	"fmt"
	"runtime"
)

// noLoad says why this build loads no OpenBLAS: built with the noopenblas
// tag (gonum only: without purego, CGO_ENABLED=0 gives a static binary),
// or a system where purego cannot pass the floating-point arguments.
func noLoad() string {
	if runtime.GOOS == "linux" && (runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64") {
		return "this mpbench was built with -tags noopenblas (gonum only, for a static binary): build it without the tag to load OpenBLAS, or use gonum's BLAS"
	}
	return fmt.Sprintf("loading OpenBLAS at run time is supported on linux/amd64 and linux/arm64, not %s/%s: use gonum's BLAS", runtime.GOOS, runtime.GOARCH)
}

// open refuses (Open does not call it when noLoad says why).
func open(string) (*Library, error) { return nil, errors.New(noLoad()) }
