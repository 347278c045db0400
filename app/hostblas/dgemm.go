package hostblas

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// CBLAS's enumerations (cblas.h).
const (
	cblasRowMajor = 101
	cblasNoTrans  = 111
	cblasTrans    = 112
)

// withDgemm is gonum's BLAS with Dgemm from a loaded library.
type withDgemm struct {
	gonum.Implementation
	lib *Library
}

// Dgemm computes C = alpha op(A) op(B) + beta C on row-major operands, op
// the transpose or not as tA and tB say, with the library's cblas_dgemm;
// shapes and errors as gonum's (blas.Float64): A is m x k after op, B k x n,
// C m x n. Calls that cblas_dgemm cannot take as given (a dimension or
// leading dimension above the 32-bit BLAS integer, a slice too short for
// its shape, an invalid argument) go to gonum's Dgemm, which computes them
// or panics with its message, so that the library never reads or writes
// outside the slices.
func (w withDgemm) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	ra, ca := m, k
	if tA != blas.NoTrans {
		ra, ca = k, m
	}
	rb, cb := k, n
	if tB != blas.NoTrans {
		rb, cb = n, k
	}
	if !validTrans(tA) || !validTrans(tB) || !fits(ra, ca, a, lda) || !fits(rb, cb, b, ldb) || !fits(m, n, c, ldc) {
		w.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if m == 0 || n == 0 {
		return
	}
	w.lib.dgemm(cblasRowMajor, cblasOp(tA), cblasOp(tB), int32(m), int32(n), int32(k), alpha,
		first(a), int32(lda), first(b), int32(ldb), beta, first(c), int32(ldc))
}

func validTrans(t blas.Transpose) bool {
	return t == blas.NoTrans || t == blas.Trans || t == blas.ConjTrans
}

// cblasOp maps a gonum transpose to CBLAS's (for real matrices the
// conjugate transpose is the transpose).
func cblasOp(t blas.Transpose) int32 {
	if t == blas.NoTrans {
		return cblasNoTrans
	}
	return cblasTrans
}

// fits reports whether a rows x cols row-major matrix with leading
// dimension ld is a valid operand held in s, with every integer within
// the 32-bit BLAS interface.
func fits(rows, cols int, s []float64, ld int) bool {
	if rows < 0 || cols < 0 || rows > math.MaxInt32 || cols > math.MaxInt32 || ld < max(1, cols) || ld > math.MaxInt32 {
		return false
	}
	return rows == 0 || cols == 0 || len(s) >= (rows-1)*ld+cols
}

// first is the address of s's first element, nil for an empty slice.
func first(s []float64) *float64 {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}
