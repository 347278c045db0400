// cref.h: IMB's PingPong loop in C, shared by package cref (called from Go
// in the same job as mpbench's loop, mpicheck -sidebyside) and by the
// stand-alone C program bench/mpiref/mpiref.c (no Go in the process), so
// that both measure exactly one loop.
#ifndef MPBENCH_CREF_H
#define MPBENCH_CREF_H

#include <mpi.h>

// cref_pingpong is IMB's PingPong loop (IMB_pingpong.c, IMB 2021.x, with a
// specific source and tag): on MPI_COMM_WORLD rank 0 sends n bytes from
// sbuf to rank 1 and receives n bytes into rbuf from it, rank 1 receives
// into rbuf and sends from sbuf; other ranks do nothing. reps round trips
// are timed with MPI_Wtime into *secs. Returns the first MPI error code, or
// MPI_SUCCESS.
static int cref_pingpong(char *sbuf, char *rbuf, int n, int reps, int tag, double *secs) {
	int rank, rc, i;
	MPI_Status stat;
	rc = MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rc != MPI_SUCCESS) return rc;
	double t0 = MPI_Wtime();
	if (rank == 0) {
		for (i = 0; i < reps; i++) {
			rc = MPI_Send(sbuf, n, MPI_BYTE, 1, tag, MPI_COMM_WORLD);
			if (rc != MPI_SUCCESS) return rc;
			rc = MPI_Recv(rbuf, n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &stat);
			if (rc != MPI_SUCCESS) return rc;
		}
	} else if (rank == 1) {
		for (i = 0; i < reps; i++) {
			rc = MPI_Recv(rbuf, n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &stat);
			if (rc != MPI_SUCCESS) return rc;
			rc = MPI_Send(sbuf, n, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
			if (rc != MPI_SUCCESS) return rc;
		}
	}
	*secs = MPI_Wtime() - t0;
	return MPI_SUCCESS;
}

#endif
