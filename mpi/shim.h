// shim.h wraps the MPI handles and constants that cgo cannot use directly.
// Under Open MPI, MPI_COMM_WORLD, MPI_BYTE, MPI_SUM and friends are macros
// expanding to addresses of library globals; under MPICH they are integer
// constants with implementation-specific values (MPI_ANY_SOURCE is -2 there).
// Small static functions give Go one spelling for both libraries.
#ifndef MPBENCH_MPI_SHIM_H
#define MPBENCH_MPI_SHIM_H

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

static inline MPI_Comm mpb_world(void) { return MPI_COMM_WORLD; }
static inline MPI_Comm mpb_comm_null(void) { return MPI_COMM_NULL; }
static inline int mpb_is_comm_null(MPI_Comm c) { return c == MPI_COMM_NULL; }
static inline MPI_Datatype mpb_byte(void) { return MPI_BYTE; }
static inline MPI_Request mpb_request_null(void) { return MPI_REQUEST_NULL; }

static inline int mpb_any_source(void) { return MPI_ANY_SOURCE; }
static inline int mpb_any_tag(void) { return MPI_ANY_TAG; }
static inline int mpb_undefined(void) { return MPI_UNDEFINED; }


// mpb_thread_name names a thread level as MPI-3.1 §12.4.3 spells it, or
// returns NULL for a value that is none of the four.
static inline const char *mpb_thread_name(int level) {
	if (level == MPI_THREAD_SINGLE) return "MPI_THREAD_SINGLE";
	if (level == MPI_THREAD_FUNNELED) return "MPI_THREAD_FUNNELED";
	if (level == MPI_THREAD_SERIALIZED) return "MPI_THREAD_SERIALIZED";
	if (level == MPI_THREAD_MULTIPLE) return "MPI_THREAD_MULTIPLE";
	return NULL;
}
static inline int mpb_success(void) { return MPI_SUCCESS; }
static inline int mpb_err_truncate(void) { return MPI_ERR_TRUNCATE; }
static inline int mpb_err_rank(void) { return MPI_ERR_RANK; }
static inline int mpb_err_tag(void) { return MPI_ERR_TAG; }
static inline int mpb_err_count(void) { return MPI_ERR_COUNT; }
static inline int mpb_err_root(void) { return MPI_ERR_ROOT; }
static inline int mpb_max_error_string(void) { return MPI_MAX_ERROR_STRING; }
static inline int mpb_max_library_version_string(void) { return MPI_MAX_LIBRARY_VERSION_STRING; }

// mpb_dtype maps mpbench's Datatype enum (values fixed in types.go) to the
// library's predefined datatypes.
static inline MPI_Datatype mpb_dtype(int d) {
	switch (d) {
	case 1: return MPI_FLOAT;
	case 2: return MPI_DOUBLE;
	case 3: return MPI_INT32_T;
	case 4: return MPI_INT64_T;
	}
	return MPI_DATATYPE_NULL;
}

// mpb_op maps mpbench's Op enum (values fixed in types.go) to the library's
// predefined reduction operations.
static inline MPI_Op mpb_op(int o) {
	switch (o) {
	case 1: return MPI_SUM;
	case 2: return MPI_PROD;
	case 3: return MPI_MIN;
	case 4: return MPI_MAX;
	}
	return MPI_OP_NULL;
}

// mpb_thread_level maps mpbench's thread-level enum (0 single, 1 funneled,
// 2 serialized, 3 multiple; values fixed in world.go) to the library's.
static inline int mpb_thread_level(int t) {
	switch (t) {
	case 0: return MPI_THREAD_SINGLE;
	case 2: return MPI_THREAD_SERIALIZED;
	case 3: return MPI_THREAD_MULTIPLE;
	}
	return MPI_THREAD_FUNNELED;
}

static inline int mpb_init(int required, int *provided) {
	int rc = MPI_Init_thread(NULL, NULL, required, provided);
	if (rc != MPI_SUCCESS) return rc;
	return MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

static inline int mpb_tag_ub(int *ub) {
	int *v = NULL, flag = 0;
	int rc = MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
	if (rc != MPI_SUCCESS) return rc;
	*ub = flag ? *v : 32767;
	return MPI_SUCCESS;
}

// The blocking point-to-point calls take buffer addresses as integers
// (uintptr_t): cgo checks every Go pointer argument for Go pointers inside,
// which costs about 10-30 ns a pointer here, and the caller keeps the memory
// alive across the call (see addr in p2p.go).

static inline int mpb_send(uintptr_t buf, int n, int dest, int tag, MPI_Comm c) {
	return MPI_Send((void *)buf, n, MPI_BYTE, dest, tag, c);
}

// mpb_status stores a completed receive's source, tag and byte count
// (MPI_Get_count on MPI_BYTE) in out[0..2], so that Go reads a status with
// no further call.
static inline int mpb_status(MPI_Status *st, int *out) {
	out[0] = st->MPI_SOURCE;
	out[1] = st->MPI_TAG;
	return MPI_Get_count(st, MPI_BYTE, &out[2]);
}

// mpb_recv is MPI_Recv on MPI_BYTE with the status stored by mpb_status
// in the 3 ints at out.
static inline int mpb_recv(uintptr_t buf, int n, int src, int tag, MPI_Comm c, uintptr_t out) {
	MPI_Status st;
	int rc = MPI_Recv((void *)buf, n, MPI_BYTE, src, tag, c, &st);
	if (rc != MPI_SUCCESS) return rc;
	return mpb_status(&st, (int *)out);
}

// mpb_slot is the address of repetition i's slot: slot i mod slots,
// stride bytes apart from base (mpbench's -off_cache layout).
static inline char *mpb_slot(uintptr_t base, long stride, int slots, int i) {
	return (char *)base + (long)(i % slots) * stride;
}

// mpb_lap stores repetition i's time in reps[i] when reps is not NULL:
// the seconds since *last, which then becomes now. The loops below call it
// at the end of every repetition, so per-repetition times cost one
// MPI_Wtime per repetition, and nothing without them.
static inline void mpb_lap(double *reps, int i, double *last) {
	if (reps == NULL) return;
	double now = MPI_Wtime();
	reps[i] = now - *last;
	*last = now;
}

// mpb_pingpong runs n repetitions of IMB's PingPong loop (IMB_pingpong.c)
// with peer on c: a rank that starts sends, then receives; the other
// receives, then sends; size bytes of MPI_BYTE with tag. Receives name src
// (peer, or MPI_ANY_SOURCE for PingPongAnySource). Repetition i uses the
// send and receive slots (first + i) mod slots, stride bytes apart from
// sbuf and rbuf (mpbench's -off_cache layout; one slot otherwise). The loop
// is timed with MPI_Wtime into *secs, and each repetition into reps (see
// mpb_lap). Returns the first error code.
static inline int mpb_pingpong(uintptr_t sbuf, long sstride, int sslots, uintptr_t rbuf, long rstride, int rslots,
		int size, int first, int n, int peer, int src, int tag, int starts, MPI_Comm c, double *secs, double *reps) {
	MPI_Status st;
	int rc;
	double t0 = MPI_Wtime(), last = t0;
	for (int i = 0; i < n; i++) {
		char *s = mpb_slot(sbuf, sstride, sslots, first + i), *r = mpb_slot(rbuf, rstride, rslots, first + i);
		if (starts) {
			if ((rc = MPI_Send(s, size, MPI_BYTE, peer, tag, c)) != MPI_SUCCESS) return rc;
			if ((rc = MPI_Recv(r, size, MPI_BYTE, src, tag, c, &st)) != MPI_SUCCESS) return rc;
		} else {
			if ((rc = MPI_Recv(r, size, MPI_BYTE, src, tag, c, &st)) != MPI_SUCCESS) return rc;
			if ((rc = MPI_Send(s, size, MPI_BYTE, peer, tag, c)) != MPI_SUCCESS) return rc;
		}
		mpb_lap(reps, i, &last);
	}
	*secs = MPI_Wtime() - t0;
	return MPI_SUCCESS;
}

// mpb_pingping runs n repetitions of IMB's PingPing loop (IMB_pingping.c)
// with peer on c: MPI_Isend to peer, MPI_Recv from src, MPI_Wait for the
// send, with buffers, slots and timing as in mpb_pingpong.
static inline int mpb_pingping(uintptr_t sbuf, long sstride, int sslots, uintptr_t rbuf, long rstride, int rslots,
		int size, int first, int n, int peer, int src, int tag, MPI_Comm c, double *secs, double *reps) {
	MPI_Status st;
	MPI_Request q;
	int rc;
	double t0 = MPI_Wtime(), last = t0;
	for (int i = 0; i < n; i++) {
		char *s = mpb_slot(sbuf, sstride, sslots, first + i), *r = mpb_slot(rbuf, rstride, rslots, first + i);
		if ((rc = MPI_Isend(s, size, MPI_BYTE, peer, tag, c, &q)) != MPI_SUCCESS) return rc;
		if ((rc = MPI_Recv(r, size, MPI_BYTE, src, tag, c, &st)) != MPI_SUCCESS) {
			MPI_Wait(&q, MPI_STATUS_IGNORE);
			return rc;
		}
		if ((rc = MPI_Wait(&q, MPI_STATUS_IGNORE)) != MPI_SUCCESS) return rc;
		mpb_lap(reps, i, &last);
	}
	*secs = MPI_Wtime() - t0;
	return MPI_SUCCESS;
}

// mpb_post starts w non-blocking receives (recv) or sends of size bytes
// with peer into q[0..w-1], message k in slot (first + k) mod slots.
static inline int mpb_post(int recv, uintptr_t buf, long stride, int slots, int size, int first, int w,
		int peer, int tag, MPI_Comm c, MPI_Request *q) {
	int rc;
	for (int k = 0; k < w; k++) {
		char *b = mpb_slot(buf, stride, slots, first + k);
		rc = recv ? MPI_Irecv(b, size, MPI_BYTE, peer, tag, c, &q[k]) : MPI_Isend(b, size, MPI_BYTE, peer, tag, c, &q[k]);
		if (rc != MPI_SUCCESS) {
			MPI_Waitall(k, q, MPI_STATUSES_IGNORE);
			return rc;
		}
	}
	return MPI_SUCCESS;
}

// mpb_window runs n iterations of IMB's Uniband (bidir 0) or Biband
// (bidir 1) loop (IMB_bandwidth.c) with peer on c: Uniband's sender posts w
// MPI_Isend, its partner w MPI_Irecv; Biband's ranks both post w MPI_Irecv,
// then w MPI_Isend; all wait (MPI_Waitall), then the sender receives a
// 1-byte acknowledgement from its partner. Message k of the window uses
// slot (first + k) mod slots; q has room for 2w requests. Timing as in
// mpb_pingpong.
static inline int mpb_window(uintptr_t sbuf, long sstride, int sslots, uintptr_t rbuf, long rstride, int rslots,
		int size, int first, int n, int w, int peer, int tag, int sender, int bidir, MPI_Request *q,
		MPI_Comm c, double *secs, double *reps) {
	char ack = 0;
	int rc;
	double t0 = MPI_Wtime(), last = t0;
	for (int i = 0; i < n; i++) {
		int k = 0;
		if (bidir || !sender) {
			if ((rc = mpb_post(1, rbuf, rstride, rslots, size, first, w, peer, tag, c, q)) != MPI_SUCCESS) return rc;
			k = w;
		}
		if (bidir || sender) {
			if ((rc = mpb_post(0, sbuf, sstride, sslots, size, first, w, peer, tag, c, q + k)) != MPI_SUCCESS) {
				MPI_Waitall(k, q, MPI_STATUSES_IGNORE);
				return rc;
			}
			k += w;
		}
		if ((rc = MPI_Waitall(k, q, MPI_STATUSES_IGNORE)) != MPI_SUCCESS) return rc;
		if (sender) {
			rc = MPI_Recv(&ack, 1, MPI_CHAR, peer, tag, c, MPI_STATUS_IGNORE);
		} else {
			rc = MPI_Send(&ack, 1, MPI_CHAR, peer, tag, c);
		}
		if (rc != MPI_SUCCESS) return rc;
		mpb_lap(reps, i, &last);
	}
	*secs = MPI_Wtime() - t0;
	return MPI_SUCCESS;
}

// mpb_wait is MPI_Wait with a receive's status stored by mpb_status (recv
// non-zero).
static inline int mpb_wait(MPI_Request *r, int recv, int *out) {
	MPI_Status st;
	int rc = MPI_Wait(r, &st);
	if (rc != MPI_SUCCESS || !recv) return rc;
	return mpb_status(&st, out);
}

// mpb_test is MPI_Test with a completed receive's status stored by
// mpb_status (recv non-zero).
static inline int mpb_test(MPI_Request *r, int recv, int *flag, int *out) {
	MPI_Status st;
	int rc = MPI_Test(r, flag, &st);
	if (rc != MPI_SUCCESS || !*flag || !recv) return rc;
	return mpb_status(&st, out);
}

static inline int mpb_isend(void *buf, int n, int dest, int tag, MPI_Comm c, MPI_Request *r) {
	return MPI_Isend(buf, n, MPI_BYTE, dest, tag, c, r);
}

static inline int mpb_irecv(void *buf, int n, int src, int tag, MPI_Comm c, MPI_Request *r) {
	return MPI_Irecv(buf, n, MPI_BYTE, src, tag, c, r);
}

static inline int mpb_sendrecv(uintptr_t sbuf, int sn, int dest, int stag,
		uintptr_t rbuf, int rn, int src, int rtag, MPI_Comm c, uintptr_t out) {
	MPI_Status st;
	int rc = MPI_Sendrecv((void *)sbuf, sn, MPI_BYTE, dest, stag, (void *)rbuf, rn, MPI_BYTE, src, rtag, c, &st);
	if (rc != MPI_SUCCESS) return rc;
	return mpb_status(&st, (int *)out);
}

#endif
