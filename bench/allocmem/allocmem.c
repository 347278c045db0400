// allocmem.c: an LD_PRELOAD library that wraps MPI_Alloc_mem and
// MPI_Free_mem, to see and to set where a benchmark's message buffers lie
// in their pages. IMB-MPI1 and mpbench's MPI build both take every buffer
// of at least 256 KiB from MPI_Alloc_mem, which on Open MPI and MPICH is
// glibc's malloc: a fresh mapping 16 or 32 bytes past a page boundary, or,
// after a benchmark that freed larger buffers (glibc then raises its mmap
// threshold), heap memory at an offset set by everything allocated before.
// The offset decides how fast the library's and the kernel's copies run.
//
// Environment:
//   ALLOCMEM_LOG=1    print "allocmem: pid P size S addr A page-offset O" on
//                     stderr for each buffer of at least ALLOCMEM_MIN bytes
//   ALLOCMEM_SHIFT=K  return each such buffer K bytes past a page boundary
//                     (0 <= K < 4096), from a mapping of its own;
//                     ALLOCMEM_SHIFT=K1,K2 gives the buffers K1, K2, K1, ...
//                     in the order they are taken: both IMB-MPI1 and
//                     mpbench take a size's send buffer, then its receive
//                     buffer, so 0,16 puts every receive buffer 16 bytes
//                     off its sender's alignment
//   ALLOCMEM_MIN=B    the smallest buffer logged and placed, bytes (default
//                     262144: the sizes glibc maps on its own; 1024 places
//                     every message buffer from 1 KiB)
//
// Build and use (Open MPI; with mpicc.mpich for MPICH):
//   mpicc.openmpi -shared -fPIC -O2 -o allocmem.so bench/allocmem/allocmem.c -ldl
//   mpirun.openmpi -np 2 -x LD_PRELOAD=$PWD/allocmem.so -x ALLOCMEM_SHIFT=0 IMB-MPI1 -msglog 19:22 Biband
// See docs/mpi-comparison.md, "Buffers and the collector".
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <mpi.h>

#define MIN_BYTES (256 * 1024)
#define PAGE 4096

// min_bytes is ALLOCMEM_MIN, or MIN_BYTES when it is unset or not a
// positive number.
static MPI_Aint min_bytes(void) {
	const char *s = getenv("ALLOCMEM_MIN");
	long b = (s == NULL || *s == '\0') ? 0 : strtol(s, NULL, 10);
	return b > 0 ? (MPI_Aint)b : MIN_BYTES;
}

#define SLOTS 64

// shifted maps a buffer returned shifted to its mapping.
static struct {
	void *buf, *map;
	size_t len;
} shifted[SLOTS];

// shift returns the offset past a page for the next buffer placed: the
// next of ALLOCMEM_SHIFT's comma-separated offsets, cycling, or -1 when it
// is unset or one of them is outside 0..PAGE-1.
static long shift(void) {
	static long placed;
	long ks[8];
	int n = 0;
	const char *s = getenv("ALLOCMEM_SHIFT");
	if (s == NULL || *s == '\0') return -1;
	while (n < 8) {
		char *end;
		long k = strtol(s, &end, 10);
		if (end == s || k < 0 || k >= PAGE) return -1;
		ks[n++] = k;
		if (*end != ',') break;
		s = end + 1;
	}
	return ks[placed++ % n];
}

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr) {
	static int (*real)(MPI_Aint, MPI_Info, void *);
	if (real == NULL) real = (int (*)(MPI_Aint, MPI_Info, void *))dlsym(RTLD_NEXT, "MPI_Alloc_mem");
	MPI_Aint least = min_bytes();
	long k = size >= least ? shift() : -1;
	int rc = MPI_SUCCESS;
	if (k >= 0) {
		size_t len = (size_t)size + PAGE + (size_t)k;
		void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int i = 0;
		while (i < SLOTS && shifted[i].buf != NULL) i++;
		if (map == MAP_FAILED || i == SLOTS) {
			if (map != MAP_FAILED) munmap(map, len);
			return MPI_ERR_NO_MEM;
		}
		shifted[i].buf = (char *)map + k;
		shifted[i].map = map;
		shifted[i].len = len;
		*(void **)baseptr = shifted[i].buf;
	} else {
		rc = real(size, info, baseptr);
	}
	if (rc == MPI_SUCCESS && size >= least && getenv("ALLOCMEM_LOG") != NULL) {
		uintptr_t p = (uintptr_t) * (void **)baseptr;
		fprintf(stderr, "allocmem: pid %d size %ld addr %#lx page-offset %lu\n", (int)getpid(), (long)size,
			(unsigned long)p, (unsigned long)(p % PAGE));
	}
	return rc;
}

int MPI_Free_mem(void *base) {
	static int (*real)(void *);
	if (real == NULL) real = (int (*)(void *))dlsym(RTLD_NEXT, "MPI_Free_mem");
	for (int i = 0; i < SLOTS; i++) {
		if (shifted[i].buf == base && base != NULL) {
			munmap(shifted[i].map, shifted[i].len);
			shifted[i].buf = NULL;
			return MPI_SUCCESS;
		}
	}
	return real(base);
}
