// mpiref: IMB's PingPong loop in plain C on the MPI library it is compiled
// with, as the library's own reference for bench/mpicompare.sh. It runs the
// loop of mpi/internal/cref/cref.h, with no Go in the process,
// and started with MPI_Init (MPI_THREAD_SINGLE) as NetPIPE and IMB are.
//
// Build and run (Open MPI; MPICH: mpicc.mpich, mpiexec.mpich -n 2):
//
//	mpicc.openmpi -O2 -I mpi/internal/cref -o mpiref bench/mpiref/mpiref.c
//	mpirun.openmpi --allow-run-as-root --oversubscribe -np 2 ./mpiref [-1] [-trials N] SIZE...
//
// For each SIZE (bytes) it runs an untimed warm-up of reps/10 + 1 round
// trips, then N trials (default 1) of reps round trips each, a barrier
// before each; reps is the schedule bench/mpicompare.sh gives mpbench
// (-iter 1000,400: IMB's rule with a 400 MiB volume cap instead of IMB's
// default 40 MiB): 1000, or 400 MiB / SIZE when that is smaller (at least 1). Rank 0 prints
// one line per size: bytes, reps, and the half round trip t in usec of the
// fastest trial and the mean over the trials.
//
// Buffers are page-aligned and written before timing (so that they are
// backed by real pages, not the kernel's zero page). By default rank 0
// sends from one buffer and receives into another (IMB's layout); -1 uses
// one buffer for both, as NetPIPE does without -I, so that with -trials 7
// the program measures with NetPIPE's method (one buffer, fastest of 7
// trials).
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cref.h"

static void usage(int rank) {
	if (rank == 0)
		fprintf(stderr, "usage: mpiref [-1] [-trials N] SIZE... (SIZE in bytes, 0..1073741824; N >= 1)\n");
	MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv) {
	int rank, size, single = 0, trials = 1, first = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while (first < argc && argv[first][0] == '-') {
		if (strcmp(argv[first], "-1") == 0) {
			single = 1;
			first++;
		} else if (strcmp(argv[first], "-trials") == 0 && first + 1 < argc) {
			trials = atoi(argv[first + 1]);
			first += 2;
		} else {
			usage(rank);
		}
	}
	if (first >= argc || trials < 1) usage(rank);
	if (size < 2) {
		if (rank == 0) fprintf(stderr, "mpiref: needs 2 ranks, got %d: start it with mpirun -np 2\n", size);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (rank == 0) {
		char version[MPI_MAX_LIBRARY_VERSION_STRING];
		int n = 0;
		MPI_Get_library_version(version, &n);
		version[strcspn(version, "\n")] = 0;
		printf("# mpiref PingPong (IMB loop in C), %s buffer%s, %d trial%s; %s\n",
			single ? "one" : "separate send and receive", single ? "" : "s", trials, trials > 1 ? "s" : "", version);
		printf("#%11s %12s %14s %14s\n", "bytes", "repetitions", "t_best[usec]", "t_mean[usec]");
	}
	for (int a = first; a < argc; a++) {
		char *end;
		long bytes = strtol(argv[a], &end, 10);
		if (*end != 0 || bytes < 0 || bytes > (1L << 30)) usage(rank);
		long reps = 1000;
		if (bytes > 0 && (400L << 20) / bytes < reps) reps = (400L << 20) / bytes;
		if (reps < 1) reps = 1;
		size_t len = bytes > 0 ? (size_t)bytes : 1;
		char *sbuf = NULL, *rbuf = NULL;
		if (posix_memalign((void **)&sbuf, 4096, len) != 0 || (!single && posix_memalign((void **)&rbuf, 4096, len) != 0)) {
			fprintf(stderr, "mpiref: rank %d: cannot allocate %zu bytes\n", rank, len);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		if (single) rbuf = sbuf;
		memset(sbuf, 1 + rank, len);
		if (!single) memset(rbuf, 3 + rank, len);
		double secs, best = 0, sum = 0;
		MPI_Barrier(MPI_COMM_WORLD);
		if (cref_pingpong(sbuf, rbuf, (int)bytes, (int)(reps / 10 + 1), 0, &secs) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
		for (int t = 0; t < trials; t++) {
			MPI_Barrier(MPI_COMM_WORLD);
			if (cref_pingpong(sbuf, rbuf, (int)bytes, (int)reps, 0, &secs) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
			double usec = secs / reps / 2 * 1e6;
			if (t == 0 || usec < best) best = usec;
			sum += usec;
		}
		if (rank == 0) printf("%12ld %12ld %14.3f %14.3f\n", bytes, reps, best, sum / trials);
		fflush(stdout);
		free(sbuf);
		if (!single) free(rbuf);
	}
	MPI_Finalize();
	return 0;
}
