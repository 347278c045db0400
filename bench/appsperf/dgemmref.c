/*
 * dgemmref: the C reference for mpbench's local block product. Times one
 * n x n double-precision product C = A B with the CBLAS dgemm of the BLAS it
 * is linked with (Debian's OpenBLAS: cc -O2 dgemmref.c -l:libopenblas.so.0,
 * which needs only the runtime package libopenblas0, or -lopenblas with
 * libopenblas-dev) twice and prints
 *
 *   dgemm n=2000 seconds=0.512 GFLOP/s=31.25 first_seconds=0.6 first_GFLOP/s=26.7
 *
 * (2 n^3 floating-point operations): seconds and GFLOP/s for the second,
 * warm product, first_ for the first one, which also pays the library's
 * first-use costs and the first touch of C's pages, as an application's
 * single product does. Usage: dgemmref [n] (default 2000).
 * Matrix elements are in [-1, 1); the result's checksum is printed so that
 * the product cannot be skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/*
 * The CBLAS interface, declared here so that no BLAS headers are needed:
 * the enumerations' values are those of the reference cblas.h (netlib's
 * CBLAS, which OpenBLAS's follows).
 */
enum { CblasRowMajor = 101 };
enum { CblasNoTrans = 111 };
void cblas_dgemm(int order, int transa, int transb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc);

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	if (n < 1) {
		fprintf(stderr, "dgemmref: n must be >= 1\n");
		return 2;
	}
	size_t nn = (size_t)n * n;
	double *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b), *c = malloc(nn * sizeof *c);
	if (!a || !b || !c) {
		fprintf(stderr, "dgemmref: out of memory\n");
		return 1;
	}
	unsigned long long x = 88172645463325252ULL;
	for (size_t i = 0; i < nn; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		a[i] = (double)(x >> 11) / 4503599627370496.0 - 1;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		b[i] = (double)(x >> 11) / 4503599627370496.0 - 1;
	}
	double t1 = now();
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
	double first = now() - t1;
	double t0 = now();
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
	double t = now() - t0;
	double sum = 0;
	for (size_t i = 0; i < nn; i++)
		sum += c[i];
	printf("dgemm n=%d seconds=%.6f GFLOP/s=%.3f first_seconds=%.6f first_GFLOP/s=%.3f checksum=%.6e\n", n, t,
	       2.0 * n * n * n / t / 1e9, first, 2.0 * n * n * n / first / 1e9, sum);
	return 0;
}
