// loops.h: IMB-MPI1's timed loops in C, run by Comm.RunLoop (loop.go) in
// one call into the library per timed sample. Each loop makes the calls of
// its IMB 2021.x source file, in the same order, on the buffers laid out as
// mpbench lays them out (comm.Slots), so that a row measured here means
// what the same row measured by the Go loop means.
#ifndef MPBENCH_MPI_LOOPS_H
#define MPBENCH_MPI_LOOPS_H

#include "shim.h"

// The loop kinds; Go maps comm.LoopKind to these (loopKinds in loop.go).
enum {
	MPB_PINGPONG = 1,
	MPB_PINGPING,
	MPB_SENDRECV,
	MPB_EXCHANGE,
	MPB_UNIBAND,
	MPB_BIBAND,
	MPB_ALLREDUCE,
	MPB_BCAST,
	MPB_BARRIER,
	MPB_REDUCE,
	MPB_GATHER,
	MPB_SCATTER,
	MPB_ALLGATHER,
	MPB_ALLTOALL,
	MPB_REDUCE_SCATTER_BLOCK,
	MPB_ALLGATHERV,
	MPB_GATHERV,
	MPB_SCATTERV,
	MPB_ALLTOALLV,
	MPB_REDUCE_LOCAL,
	MPB_REDUCE_SCATTER,
};

// mpb_loop is one checked comm.Loop. Buffer addresses are integers (see
// addr in p2p.go); reps is the address of n doubles or 0. secs is the
// result.
typedef struct {
	int kind;
	uintptr_t sbuf, rbuf;   // slot 0 of the send and receive buffers
	long sstride, rstride;  // bytes between slots
	int sslots, rslots;     // slots, at least 1
	int size;               // message bytes
	int first, n, tag;      // slot of repetition 0, repetitions, tag
	int peer, src;          // pair loops: partner, and the receives' source (peer or MPI_ANY_SOURCE)
	int left, right;        // chain loops: neighbours
	int starts, window;     // PingPong: sends first; Uniband, Biband: receives the acknowledgement; window size
	int rank, procs;        // this rank and the communicator's size
	int root_shift, sync;   // Bcast's moving root; barrier after every timed call
	int dtype, op, count;   // mpbench's Datatype (0: MPI_BYTE where nothing is reduced) and Op enums; elements per message or block
	uintptr_t reps;
	double secs;
} mpb_loop;

// mpb_slot is the address of repetition i's slot: slot i mod slots,
// stride bytes apart from base (mpbench's -off_cache layout).
static inline char *mpb_slot(uintptr_t base, long stride, int slots, int i) {
	return (char *)base + (long)(i % slots) * stride;
}

// mpb_lap stores repetition i's time in reps[i] when reps is not NULL:
// the seconds since *last, which then becomes now. Per-repetition times
// cost one MPI_Wtime per repetition, and nothing without them.
static inline void mpb_lap(double *reps, int i, double *last) {
	if (reps == NULL) return;
	double now = MPI_Wtime();
	reps[i] = now - *last;
	*last = now;
}

// mpb_p2p_rep runs repetition i of a point-to-point loop with slots s and
// r (IMB_pingpong.c, IMB_pingping.c, IMB_sendrecv.c, IMB_exchange.c): sends
// carry the loop's tag, receives take MPI_ANY_TAG, as IMB's do (its
// select_tag is always 0), from l->src (the peer, or MPI_ANY_SOURCE) or
// the neighbour.
static inline int mpb_p2p_rep(const mpb_loop *l, char *s, char *r, MPI_Comm c) {
	MPI_Datatype t = mpb_mtype(l->dtype);
	MPI_Status st;
	MPI_Request q[2];
	int rc;
	switch (l->kind) {
	case MPB_PINGPONG:
		if (l->starts) {
			if ((rc = MPI_Send(s, l->count, t, l->peer, l->tag, c)) != MPI_SUCCESS) return rc;
			return MPI_Recv(r, l->count, t, l->src, MPI_ANY_TAG, c, &st);
		}
		if ((rc = MPI_Recv(r, l->count, t, l->src, MPI_ANY_TAG, c, &st)) != MPI_SUCCESS) return rc;
		return MPI_Send(s, l->count, t, l->peer, l->tag, c);
	case MPB_PINGPING:
		if ((rc = MPI_Isend(s, l->count, t, l->peer, l->tag, c, &q[0])) != MPI_SUCCESS) return rc;
		if ((rc = MPI_Recv(r, l->count, t, l->src, MPI_ANY_TAG, c, &st)) != MPI_SUCCESS) {
			MPI_Wait(&q[0], MPI_STATUS_IGNORE);
			return rc;
		}
		return MPI_Wait(&q[0], MPI_STATUS_IGNORE);
	case MPB_SENDRECV:
		return MPI_Sendrecv(s, l->count, t, l->right, l->tag, r, l->count, t, l->left, MPI_ANY_TAG, c, &st);
	case MPB_EXCHANGE:
		if ((rc = MPI_Isend(s, l->count, t, l->right, l->tag, c, &q[0])) != MPI_SUCCESS) return rc;
		if ((rc = MPI_Isend(s + l->size, l->count, t, l->left, l->tag, c, &q[1])) != MPI_SUCCESS) {
			MPI_Wait(&q[0], MPI_STATUS_IGNORE);
			return rc;
		}
		rc = MPI_Recv(r, l->count, t, l->left, MPI_ANY_TAG, c, &st);
		if (rc == MPI_SUCCESS) rc = MPI_Recv(r, l->count, t, l->right, MPI_ANY_TAG, c, &st);
		int wrc = MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
		return rc != MPI_SUCCESS ? rc : wrc;
	}
	return MPI_ERR_OTHER;
}

// mpb_post starts w non-blocking receives (recv) or sends of size bytes
// with peer into q[0..w-1], message k in slot (first + k) mod slots.
static inline int mpb_post(int recv, uintptr_t buf, long stride, int slots, const mpb_loop *l, MPI_Comm c, MPI_Request *q) {
	MPI_Datatype t = mpb_mtype(l->dtype);
	int rc;
	for (int k = 0; k < l->window; k++) {
		char *b = mpb_slot(buf, stride, slots, l->first + k);
		rc = recv ? MPI_Irecv(b, l->count, t, l->peer, l->tag, c, &q[k])
			  : MPI_Isend(b, l->count, t, l->peer, l->tag, c, &q[k]);
		if (rc != MPI_SUCCESS) {
			MPI_Waitall(k, q, MPI_STATUSES_IGNORE);
			return rc;
		}
	}
	return MPI_SUCCESS;
}

// mpb_window_rep runs one iteration of IMB's Uniband or Biband loop
// (IMB_bandwidth.c): Uniband's sender posts the window of MPI_Isend, its
// partner as many MPI_Irecv; Biband's ranks both post MPI_Irecv, then
// MPI_Isend; all wait (MPI_Waitall), then the rank with starts receives a
// 1-byte acknowledgement from its partner. q and st have room for 2
// windows. As IMB does, MPI_Waitall fills a status per request and the
// acknowledgement's MPI_Recv one status (IMB_bandwidth.c's statuses and
// stat), so the library does the same work per message in both programs.
static inline int mpb_window_rep(const mpb_loop *l, MPI_Request *q, MPI_Status *st, MPI_Comm c) {
	int bidir = l->kind == MPB_BIBAND, rc, k = 0;
	char ack = 0;
	if (bidir || !l->starts) {
		if ((rc = mpb_post(1, l->rbuf, l->rstride, l->rslots, l, c, q)) != MPI_SUCCESS) return rc;
		k = l->window;
	}
	if (bidir || l->starts) {
		if ((rc = mpb_post(0, l->sbuf, l->sstride, l->sslots, l, c, q + k)) != MPI_SUCCESS) {
			MPI_Waitall(k, q, MPI_STATUSES_IGNORE);
			return rc;
		}
		k += l->window;
	}
	if ((rc = MPI_Waitall(k, q, st)) != MPI_SUCCESS) return rc;
	if (l->starts) return MPI_Recv(&ack, 1, MPI_CHAR, l->peer, l->tag, c, &st[0]);
	return MPI_Send(&ack, 1, MPI_CHAR, l->peer, l->tag, c);
}

// mpb_coll_rep runs repetition i's call of a collective loop with slots s
// and r (IMB_allreduce.c, IMB_bcast.c, IMB_barrier.c, IMB_reduce.c,
// IMB_gather.c, IMB_scatter.c, IMB_allgather.c, IMB_alltoall.c,
// IMB_reduce_scatter_block.c, the v variants' files, IMB_reduce_local.c,
// IMB_reduce_scatter.c).
// Rooted calls take the root of repetition i: 0, or (first + i) mod procs
// under root_shift. The v variants take counts and displs, procs ints each
// (IMB's: every count l->count elements, displacements packed, in
// elements); Reduce_scatter takes counts, every rank's count l->count.
// Messages that are not reduced are l->count elements of mpb_mtype(l->dtype)
// (IMB's -data_type, MPI_BYTE by default).
static inline int mpb_coll_rep(const mpb_loop *l, int i, char *s, char *r, const int *counts, const int *displs, MPI_Comm c) {
	int root = l->root_shift ? (l->first + i) % l->procs : 0;
	MPI_Datatype t = mpb_mtype(l->dtype);
	switch (l->kind) {
	case MPB_ALLREDUCE:
		return MPI_Allreduce(s, r, l->count, mpb_dtype(l->dtype), mpb_op(l->op), c);
	case MPB_BCAST:
		return MPI_Bcast(l->rank == root ? s : r, l->count, t, root, c);
	case MPB_REDUCE:
		return MPI_Reduce(s, r, l->count, mpb_dtype(l->dtype), mpb_op(l->op), root, c);
	case MPB_GATHER:
		return MPI_Gather(s, l->count, t, r, l->count, t, root, c);
	case MPB_SCATTER:
		return MPI_Scatter(s, l->count, t, r, l->count, t, root, c);
	case MPB_ALLGATHER:
		return MPI_Allgather(s, l->count, t, r, l->count, t, c);
	case MPB_ALLTOALL:
		return MPI_Alltoall(s, l->count, t, r, l->count, t, c);
	case MPB_REDUCE_SCATTER_BLOCK:
		return MPI_Reduce_scatter_block(s, r, l->count, mpb_dtype(l->dtype), mpb_op(l->op), c);
	case MPB_ALLGATHERV:
		return MPI_Allgatherv(s, l->count, t, r, counts, displs, t, c);
	case MPB_GATHERV:
		return MPI_Gatherv(s, l->count, t, r, counts, displs, t, root, c);
	case MPB_SCATTERV:
		return MPI_Scatterv(s, counts, displs, t, r, l->count, t, root, c);
	case MPB_ALLTOALLV:
		return MPI_Alltoallv(s, counts, displs, t, r, counts, displs, t, c);
	case MPB_REDUCE_LOCAL:
		return MPI_Reduce_local(s, r, l->count, mpb_dtype(l->dtype), mpb_op(l->op));
	case MPB_REDUCE_SCATTER:
		return MPI_Reduce_scatter(s, r, counts, mpb_dtype(l->dtype), mpb_op(l->op), c);
	}
	return MPI_Barrier(c);
}

// mpb_run_loop runs l on c and stores its seconds by MPI_Wtime in l->secs:
// the whole loop's for point-to-point loops; for collectives the sum of
// the calls, each timed on its own, with a barrier after each outside the
// timed region under l->sync (IMB's t_comp and IMB_do_n_barriers).
// Returns the first error code.
static inline int mpb_run_loop(mpb_loop *l, MPI_Comm c) {
	double *reps = (double *)l->reps;
	int rc = MPI_SUCCESS;
	if (l->kind >= MPB_ALLREDUCE) {
		int *counts = NULL, *displs = NULL;
		if ((l->kind >= MPB_ALLGATHERV && l->kind <= MPB_ALLTOALLV) || l->kind == MPB_REDUCE_SCATTER) {
			counts = malloc(2 * (size_t)l->procs * sizeof(int));
			if (counts == NULL) return MPI_ERR_NO_MEM;
			displs = counts + l->procs;
			for (int j = 0; j < l->procs; j++) {
				counts[j] = l->count;
				displs[j] = j * l->count;
			}
		}
		double total = 0;
		for (int i = 0; i < l->n && rc == MPI_SUCCESS; i++) {
			char *s = mpb_slot(l->sbuf, l->sstride, l->sslots, l->first + i);
			char *r = mpb_slot(l->rbuf, l->rstride, l->rslots, l->first + i);
			double t0 = MPI_Wtime();
			if ((rc = mpb_coll_rep(l, i, s, r, counts, displs, c)) != MPI_SUCCESS) break;
			double dt = MPI_Wtime() - t0;
			total += dt;
			if (reps != NULL) reps[i] = dt;
			if (l->sync) rc = MPI_Barrier(c);
		}
		free(counts);
		l->secs = total;
		return rc;
	}
	MPI_Request *q = NULL;
	MPI_Status *st = NULL;
	if (l->kind == MPB_UNIBAND || l->kind == MPB_BIBAND) {
		q = malloc(2 * (size_t)l->window * sizeof(MPI_Request));
		st = malloc(2 * (size_t)l->window * sizeof(MPI_Status));
		if (q == NULL || st == NULL) {
			free(q);
			free(st);
			return MPI_ERR_NO_MEM;
		}
	}
	double t0 = MPI_Wtime(), last = t0;
	for (int i = 0; i < l->n && rc == MPI_SUCCESS; i++) {
		if (q != NULL) {
			rc = mpb_window_rep(l, q, st, c);
		} else {
			char *s = mpb_slot(l->sbuf, l->sstride, l->sslots, l->first + i);
			char *r = mpb_slot(l->rbuf, l->rstride, l->rslots, l->first + i);
			rc = mpb_p2p_rep(l, s, r, c);
		}
		if (rc == MPI_SUCCESS) mpb_lap(reps, i, &last);
	}
	l->secs = MPI_Wtime() - t0;
	free(q);
	free(st);
	return rc;
}

#endif
