/*
 * global.h: the global layer's internal declarations (contexts, placements, global arrays,
 * agreement and bounded waits). Built only with MPI.
 */
#ifndef RA_GLOBAL_INTERNAL_H
#define RA_GLOBAL_INTERNAL_H

#include "refarray_global.h"

#include <stdatomic.h>

#define RAG_MESSAGE_MAX 512

struct ra_gctx {
    ra_ctx *ctx;
    MPI_Comm comm; /* a duplicate of the caller's, with MPI_ERRORS_RETURN */
    int rank, size;
    int node_rank; /* index among the ranks of this node */
    double timeout_s;
    MPI_Op wrap_sum; /* sum of 8- and 16-bit integers that wraps (gctx.c) */
    MPI_Op half_sum; /* sum of float16 elements, carried as MPI_UINT16_T (gctx.c) */
    bool broken;
    char message[RAG_MESSAGE_MAX];
    /* After a timeout: the requests left pending and the memory they may still read or
     * write, kept until they complete (ra_gctx_destroy frees it if they have). */
    MPI_Request *pending;
    size_t npending;
    void **kept;
    size_t nkept;
    ra_array **kept_arrays;
    size_t nkept_arrays;
};

struct ra_placement {
    _Atomic long refs;
    ra_gctx *g;
    ra_device_type type;
    size_t ndim;
    int64_t shape[RA_PLACEMENT_MAX_NDIM];
    int64_t *ranks; /* n ranks in C order */
    size_t n;
    int64_t me;                               /* the calling rank's flat index, -1 outside */
    int64_t coord[RA_PLACEMENT_MAX_NDIM];     /* the calling rank's mesh coordinates */
    MPI_Comm comm;                            /* the placement's ranks in flat order */
    MPI_Comm dim_comm[RA_PLACEMENT_MAX_NDIM]; /* ranks that differ only along mesh dim m */
    ra_device local_dev;
    uint64_t hash; /* of type, shape and ranks: for the agreement step */
};

struct ra_global {
    _Atomic long refs;
    ra_gctx *g;
    ra_placement *p;
    ra_dtype dtype;
    size_t ndim;
    int64_t shape[RA_MAX_NDIM];
    ra_sbp sbp[RA_PLACEMENT_MAX_NDIM];
    ra_array *local;
};

/* ---- contexts, errors, agreement, waits (gctx.c) ---- */
int rag__error(ra_gctx *g, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Records a refarray failure: "what: <refarray's message>". */
int rag__from_ra(ra_gctx *g, int status, const char *what);
/* Waits for req at most the context's timeout; RA_E_TIMEOUT or RA_E_COMM breaks g. */
int rag__wait(ra_gctx *g, MPI_Request *req, const char *what);
/* Keeps memory a pending request may still use (after RA_E_TIMEOUT) instead of freeing it. */
void rag__keep(ra_gctx *g, void *p);
void rag__keep_array(ra_gctx *g, ra_array *x);
/* An MPI return code as a status (RA_E_COMM with MPI's text). */
int rag__mpi(ra_gctx *g, int rc, const char *what);
/* The agreement step of a collective call: every rank of g's communicator contributes its
 * signature of the call and its local status; all return RA_OK only when every signature is
 * the same and every local status is RA_OK. A rank with a failing local status returns it
 * (its message kept); the others return RA_E_COMM naming it. */
int rag__agree(ra_gctx *g, uint64_t sig, int local_status, const char *what);
/* All-gathers n int64 of every rank (out: size * n) with a bounded wait. */
int rag__allgather(ra_gctx *g, MPI_Comm comm, const int64_t *mine, size_t n, int64_t *out,
                   const char *what);

/* FNV-1a over bytes, chained. */
uint64_t rag__hash(uint64_t h, const void *data, size_t n);
#define RAG_HASH_INIT 1469598103934665603ull

/* The product of shape[from..to) (1 for none), as a byte or element count. */
size_t rag__prod(const int64_t *shape, size_t from, size_t to);

/* The piece of length n that rank i of k holds: the first n % k pieces one longer. */
void rag__balanced(int64_t n, int64_t k, int64_t i, int64_t *off, int64_t *len);

/* ---- placements and sbp (placement.c) ---- */
/* Checks nsbp values against a placement and an array's ndim. */
int rag__sbp_check(ra_gctx *g, const ra_placement *p, const ra_sbp *sbp, size_t nsbp, size_t ndim,
                   const char *what);
/* The window [off, off + len) of each array dim that mesh coordinates coord hold of shape
 * under sbp, applying mesh dims 0..upto-1 in order. */
void rag__window(const ra_placement *p, const int64_t *coord, const ra_sbp *sbp,
                 const int64_t *shape, size_t ndim, size_t upto, int64_t *off, int64_t *len);
/* Mesh coordinates of flat index i. */
void rag__coord(const ra_placement *p, int64_t i, int64_t *coord);
uint64_t rag__sbp_hash(uint64_t h, const ra_sbp *sbp, size_t nsbp);

/* ---- global arrays (garray.c) ---- */
/* A new global array owning a reference to local (NULL: the empty piece of a rank outside
 * the placement is made). */
int rag__global_make(ra_gctx *g, const ra_placement *p, ra_dtype dtype, const int64_t *shape,
                     size_t ndim, const ra_sbp *sbp, ra_array *local, ra_global **out);
/* The empty piece of a rank outside a placement. */
int rag__empty_local(ra_gctx *g, ra_dtype dtype, ra_array **out);
/* The signature of an array's metadata for the agreement step. */
uint64_t rag__global_hash(uint64_t h, const ra_global *x);

/* ---- conversions (convert.c) ---- */
/* Converts x's local piece to sbp without the agreement step (the caller made it). */
int rag__convert(ra_gctx *g, const ra_global *x, const ra_sbp *sbp, ra_global **out);

#endif /* RA_GLOBAL_INTERNAL_H */
