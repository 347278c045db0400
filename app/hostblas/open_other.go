//go:build !(linux && (amd64 || arm64))

package hostblas

import (
	"fmt"
	"runtime"
)

// open refuses: OpenBLAS is loaded at run time on linux/amd64 and
// linux/arm64 only (where purego passes floating-point arguments).
func open(name string) (*Library, error) {
	return nil, fmt.Errorf("%s: loading OpenBLAS at run time is supported on linux/amd64 and linux/arm64, not %s/%s", name, runtime.GOOS, runtime.GOARCH)
}
