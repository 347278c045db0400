//go:build openblas && cgo

package matmul

/*
#cgo LDFLAGS: -lopenblas
#include <cblas.h>
*/
import "C"

import (
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

// In a build with the openblas tag (go build -tags openblas; Debian:
// apt-get install libopenblas-dev) the local block products call
// OpenBLAS's cblas_dgemm; every other BLAS routine stays gonum's.
func init() {
	blas64.Use(openBLAS{})
	BLAS = "OpenBLAS cblas_dgemm (cgo)"
}

// openBLAS is gonum's BLAS with Dgemm from OpenBLAS.
type openBLAS struct{ gonum.Implementation }

// Dgemm computes C = alpha op(A) op(B) + beta C on row-major operands
// with cblas_dgemm; arguments as gonum's (blas.Float64).
func (openBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	tr := func(t blas.Transpose) C.enum_CBLAS_TRANSPOSE {
		if t == blas.NoTrans {
			return C.CblasNoTrans
		}
		return C.CblasTrans
	}
	ptr := func(v []float64) *C.double {
		if len(v) == 0 {
			return nil
		}
		return (*C.double)(unsafe.Pointer(&v[0]))
	}
	C.cblas_dgemm(C.CblasRowMajor, tr(tA), tr(tB), C.blasint(m), C.blasint(n), C.blasint(k), C.double(alpha),
		ptr(a), C.blasint(lda), ptr(b), C.blasint(ldb), C.double(beta), ptr(c), C.blasint(ldc))
}
