//go:build !noopenblas

package hostblas

import (
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

// openblasOrSkip loads the host's OpenBLAS, or skips the test where none
// is installed; MPBENCH_REQUIRE_OPENBLAS=1 (set by CI, which installs
// libopenblas0) makes a missing library a failure.
func openblasOrSkip(t *testing.T) *Library {
	t.Helper()
	lib, err := Open(DefaultLibraries, 1)
	if err != nil {
		if os.Getenv("MPBENCH_REQUIRE_OPENBLAS") == "1" {
			t.Fatalf("MPBENCH_REQUIRE_OPENBLAS=1 but %v", err)
		}
		t.Skipf("no OpenBLAS on this host (%v); Debian: apt-get install libopenblas0", err)
	}
	return lib
}

// naive is C = alpha op(A) op(B) + beta C by the textbook triple loop.
func naive(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	at := func(i, l int) float64 {
		if tA == blas.NoTrans {
			return a[i*lda+l]
		}
		return a[l*lda+i]
	}
	bt := func(l, j int) float64 {
		if tB == blas.NoTrans {
			return b[l*ldb+j]
		}
		return b[j*ldb+l]
	}
	for i := range m {
		for j := range n {
			s := 0.0
			for l := range k {
				s += at(i, l) * bt(l, j)
			}
			c[i*ldc+j] = alpha*s + beta*c[i*ldc+j]
		}
	}
}

func random(r *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 2*r.Float64() - 1
	}
	return s
}

// checkDgemm compares impl's Dgemm with the triple loop on shapes that
// cover both transposes, leading dimensions wider than the rows, empty
// and one-element dimensions and a beta that scales C.
func checkDgemm(t *testing.T, impl blas.Float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	type shape struct{ m, n, k, pad int }
	for _, s := range []shape{{1, 1, 1, 0}, {7, 5, 3, 2}, {64, 33, 129, 0}, {130, 70, 5, 3}, {3, 4, 0, 1}, {0, 4, 3, 0}} {
		for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				ra, ca := s.m, s.k
				if tA == blas.Trans {
					ra, ca = s.k, s.m
				}
				rb, cb := s.k, s.n
				if tB == blas.Trans {
					rb, cb = s.n, s.k
				}
				lda, ldb, ldc := max(1, ca+s.pad), max(1, cb+s.pad), max(1, s.n+s.pad)
				a, b, c := random(r, ra*lda), random(r, rb*ldb), random(r, s.m*ldc)
				if _, lib := impl.(withDgemm); lib && !(fits(ra, ca, a, lda) && fits(rb, cb, b, ldb) && fits(s.m, s.n, c, ldc)) {
					t.Fatalf("m,n,k=%d,%d,%d pad %d: valid operands sent to gonum instead of the library", s.m, s.n, s.k, s.pad)
				}
				want := append([]float64(nil), c...)
				naive(tA, tB, s.m, s.n, s.k, 1.5, a, lda, b, ldb, -0.5, want, ldc)
				impl.Dgemm(tA, tB, s.m, s.n, s.k, 1.5, a, lda, b, ldb, -0.5, c, ldc)
				for i := range c {
					if math.Abs(c[i]-want[i]) > 1e-12*float64(max(s.k, 1)) {
						t.Fatalf("m,n,k=%d,%d,%d pad %d tA=%c tB=%c: C[%d] = %g, want %g", s.m, s.n, s.k, s.pad, tA, tB, i, c[i], want[i])
					}
				}
			}
		}
	}
}

func TestGonumDgemm(t *testing.T) {
	info, err := Use(Gonum, nil, 1)
	if err != nil || info.String() != GonumName || info.Name != "gonum" || info.Threads != runtime.GOMAXPROCS(0) || info.Fallback {
		t.Fatalf("Use(gonum) = %+v (%q), %v; want gonum on GOMAXPROCS threads, %q", info, info, err, GonumName)
	}
	if f := info.Fields(); len(f) != 2 || f["blas"] != "gonum" || f["blas_threads"] != strconv.Itoa(runtime.GOMAXPROCS(0)) {
		t.Errorf("Fields() = %v; want blas and blas_threads only", f)
	}
	checkDgemm(t, blas64.Implementation())
}

func TestOpenBLASDgemm(t *testing.T) {
	lib := openblasOrSkip(t)
	if lib.Threads() != 1 {
		t.Errorf("Open(..., 1) left %d threads, want 1", lib.Threads())
	}
	if !filepath.IsAbs(lib.Path) {
		t.Errorf("Path %q: want the mapped file's absolute path", lib.Path)
	} else if _, err := os.Stat(lib.Path); err != nil {
		t.Errorf("Path %q: %v", lib.Path, err)
	}
	if !strings.HasPrefix(lib.Version, "OpenBLAS ") {
		t.Errorf("Version %q (config %q): want OpenBLAS and its version", lib.Version, lib.Config)
	}
	checkDgemm(t, lib.Implementation())

	info, err := Use(OpenBLAS, nil, 1)
	if desc := info.String(); err != nil || !strings.HasPrefix(desc, lib.Version+" cblas_dgemm, 1 thread, /") {
		t.Fatalf("Use(openblas) = %q, %v; want the version, 1 thread and the path", desc, err)
	}
	want := map[string]string{"blas": lib.Version, "blas_threads": "1", "blas_library": lib.Path, "blas_config": lib.Config}
	if f := info.Fields(); !maps.Equal(f, want) {
		t.Errorf("Fields() = %v, want %v", f, want)
	}
	defer blas64.Use(gonum.Implementation{})
	if _, ok := blas64.Implementation().(withDgemm); !ok {
		t.Errorf("Use(openblas) installed %T, want OpenBLAS's Dgemm", blas64.Implementation())
	}
	info, err = Use(Auto, nil, 1)
	if err != nil || info.String() != lib.String() {
		t.Errorf("Use(auto) on a host with OpenBLAS = %q, %v; want %q", info, err, lib.String())
	}
}

// Ranks run as goroutines in one process in tests, and OpenBLAS is then
// called from several threads at once.
func TestOpenBLASConcurrent(t *testing.T) {
	impl := openblasOrSkip(t).Implementation()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { checkDgemm(t, impl) })
	}
	wg.Wait()
}

// An operand too short for its shape must not reach the library: gonum's
// Dgemm panics on it instead, with its message.
func TestOpenBLASShortSlicePanics(t *testing.T) {
	impl := openblasOrSkip(t).Implementation()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "insufficient length") {
			t.Errorf("a 3x3 product from a slice of 8 elements: recovered %v, want gonum's short-slice panic", r)
		}
	}()
	c := make([]float64, 9)
	impl.Dgemm(blas.NoTrans, blas.NoTrans, 3, 3, 3, 1, make([]float64, 8), 3, make([]float64, 9), 3, 0, c, 3)
}

func TestMissingLibrary(t *testing.T) {
	missing := []string{"libmpbench-no-such-blas.so.0"}
	_, err := Use(OpenBLAS, missing, 1)
	if err == nil {
		t.Fatal("Use(openblas) with a missing library: no error")
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, missing[0]) || !strings.Contains(msg, "libopenblas0") {
		t.Errorf("error %q: want one line naming the library and the package to install", msg)
	}
	info, err := Use(Auto, missing, 1)
	if err != nil || info.String() != GonumName+"; no OpenBLAS library loaded" || info.Fields()["blas_fallback"] != "no OpenBLAS library loaded" {
		t.Errorf("Use(auto) with a missing library = %+v (%q), %v; want gonum, saying no OpenBLAS loaded", info, info, err)
	}
	if _, ok := blas64.Implementation().(gonum.Implementation); !ok {
		t.Errorf("Use(auto) with a missing library installed %T, want gonum", blas64.Implementation())
	}
}

// A shared library that loads but is not OpenBLAS (the C math library)
// is refused by name.
func TestNotOpenBLAS(t *testing.T) {
	_, err := Open([]string{"libm.so.6"}, 1)
	if err == nil || !strings.Contains(err.Error(), "libm.so.6: not an OpenBLAS (no cblas_dgemm)") {
		t.Errorf("Open(libm.so.6) = %v; want it refused as not an OpenBLAS", err)
	}
}

func TestParseChoice(t *testing.T) {
	for _, s := range []string{"auto", "gonum", "openblas"} {
		if c, err := ParseChoice(s); err != nil || string(c) != s {
			t.Errorf("ParseChoice(%q) = %q, %v", s, c, err)
		}
	}
	if _, err := ParseChoice("mkl"); err == nil || !strings.Contains(err.Error(), "auto, gonum or openblas") {
		t.Errorf("ParseChoice(mkl) = %v; want an error listing the choices", err)
	}
	if _, err := Use(Auto, nil, -1); err == nil {
		t.Error("Use with -1 threads: no error")
	}
}
