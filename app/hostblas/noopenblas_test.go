//go:build noopenblas

package hostblas

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

// A build with the noopenblas tag loads no library, whatever is
// installed: --blas openblas is refused in one line naming the tag, auto
// runs gonum and says that no OpenBLAS loaded.
func TestNoOpenBLASBuild(t *testing.T) {
	if _, err := Open(DefaultLibraries, 1); err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "-tags noopenblas") {
		t.Errorf("Open in a noopenblas build = %v; want one line naming the tag", err)
	}
	if _, err := Use(OpenBLAS, nil, 1); err == nil {
		t.Error("Use(openblas) in a noopenblas build: no error")
	}
	info, err := Use(Auto, nil, 1)
	if err != nil || info.String() != GonumName+"; no OpenBLAS library loaded" || !info.Fallback {
		t.Errorf("Use(auto) in a noopenblas build = %+v, %v; want gonum, saying no OpenBLAS loaded", info, err)
	}
	if _, ok := blas64.Implementation().(gonum.Implementation); !ok {
		t.Errorf("Use(auto) installed %T, want gonum", blas64.Implementation())
	}
}
