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
	case 5: return MPI_CHAR;
	}
	return MPI_DATATYPE_NULL;
}

// mpb_mtype maps the Datatype of messages that are not reduced (IMB's
// -data_type) to the library's datatype: 0 is MPI_BYTE, Int32 MPI_INT as
// IMB's -data_type int names it, the others as mpb_dtype.
static inline MPI_Datatype mpb_mtype(int d) {
	switch (d) {
	case 0: return MPI_BYTE;
	case 3: return MPI_INT;
	}
	return mpb_dtype(d);
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

// mpb_alloc_mem is MPI_Alloc_mem of size bytes without info, the way
// IMB-MPI1 allocates its message buffers (IMB_v_alloc); *rc gets the
// return code, and the result is NULL on failure.
static inline void *mpb_alloc_mem(long size, int *rc) {
	void *p = NULL;
	*rc = MPI_Alloc_mem((MPI_Aint)size, MPI_INFO_NULL, &p);
	return *rc == MPI_SUCCESS ? p : NULL;
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
