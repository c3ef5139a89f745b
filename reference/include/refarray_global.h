/*
 * refarray_global.h: global arrays over MPI ranks, built on refarray.h.
 *
 * This header is the manual of refarray's global layer, a reading of OneFlow's global
 * tensors (OF-ATTR-1, OF-PL-*, OF-SBP-*; spec/statements.json). A global array has a dtype,
 * a global shape, a placement (a device type and a 1-D or 2-D mesh of ranks) and one SBP per
 * placement dimension (split(dim), broadcast, partial_sum). Every rank of the placement
 * holds its local piece, a refarray array on its own device. Conversions between SBPs go
 * through the MPI collective each one is (all-gather, all-reduce, reduce-scatter,
 * all-to-all) or are local (slicing, zeroing). The choices are recorded in
 * spec/decisions.md, "OneFlow devices and global arrays".
 *
 * Conventions, beyond refarray.h's:
 *  - The program is SPMD: every rank of the global context's communicator makes the same
 *    calls with the same arguments in the same order, ranks outside a placement included.
 *    Functions marked "collective" communicate; a call whose arguments differ between
 *    ranks is detected by an agreement step (a small all-gather) and returns RA_E_COMM on
 *    every rank, except where a function says it does not communicate.
 *  - Waits are bounded: every wait for other ranks ends after the context's timeout with
 *    RA_E_TIMEOUT (a rank that failed or did not make the call); the context is then
 *    broken and every later collective returns RA_E_COMM at once.
 *  - The detail message of the last error is ra_gctx_message(). A global context is used
 *    by one thread at a time.
 *  - Rank r's local device: cpu for a cpu placement; for a gpu placement gpu:k with k the
 *    rank's index among the ranks of its node (MPI_COMM_TYPE_SHARED) modulo the number of
 *    gpu devices of its context.
 *  - A rank outside a placement holds an empty local piece: a cpu array of shape (0,).
 */
#ifndef REFARRAY_GLOBAL_H
#define REFARRAY_GLOBAL_H

#include "refarray.h"

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------
 * Global contexts
 * ------------------------------------------------------------------------------------- */

typedef struct ra_gctx ra_gctx;

/* Options of ra_gctx_create; like refarray.h's structs it carries its size first (0 means
 * this first layout). */
typedef struct ra_gctx_options {
    size_t size; /* sizeof(ra_gctx_options) as the caller compiled it, or 0 */
    /* The longest wait for other ranks in seconds; 0 means 60. */
    double timeout_s;
} ra_gctx_options;

#define RA_GCTX_OPTIONS(...) (&(ra_gctx_options){.size = sizeof(ra_gctx_options), __VA_ARGS__})

/* Creates a global context over comm (duplicated; errors on it return instead of
 * aborting) for ctx, which must outlive it. MPI must be initialised. opts NULL: defaults.
 * Collective over comm. Returns RA_E_NULL, RA_E_ARG (negative timeout, a size that is
 * neither 0 nor this header's), RA_E_NOMEM,
 * RA_E_COMM (the detail is in ra_gctx_message(NULL)). */
RA_API int ra_gctx_create(ra_ctx *ctx, MPI_Comm comm, const ra_gctx_options *opts, ra_gctx **out);
/* Frees the context (its communicators too). Every placement and global array made with it
 * must have been released. NULL is a no-op. */
RA_API void ra_gctx_destroy(ra_gctx *g);
/* The detail message of the last error with g ("" if none); g NULL: of the last failed
 * ra_gctx_create. Valid until the next call with g. */
RA_API const char *ra_gctx_message(const ra_gctx *g);
/* This process's rank and the number of ranks in the context's communicator. */
RA_API int ra_gctx_rank(const ra_gctx *g);
RA_API int ra_gctx_size(const ra_gctx *g);
/* The refarray context the global arrays' local pieces live in. */
RA_API ra_ctx *ra_gctx_local_ctx(const ra_gctx *g);
/* Whether a timeout or a communication failure has broken the context. */
RA_API bool ra_gctx_broken(const ra_gctx *g);

/* ---------------------------------------------------------------------------------------
 * Placements (OF-PL-1..5)
 * ------------------------------------------------------------------------------------- */

typedef struct ra_placement ra_placement;

#define RA_PLACEMENT_MAX_NDIM 2

/* placement(type, ranks) (OF-PL-1, OF-PL-2): type "cpu" or "gpu"; nranks ranks of the
 * context over a mesh of shape[0..ndim) (ndim 1 or 2; ndim 1 with shape NULL means shape
 * {nranks}). The ranks are a set, as in OneFlow: they are sorted and the mesh is laid over
 * them in C order, so {3, 2, 1, 0} makes the placement of {0, 1, 2, 3}. Validated: the type is
 * known and has a device on every rank of the placement, each rank is in [0, size), no rank twice,
 * the mesh has at least one rank and its shape holds exactly nranks ranks. Collective (it makes the
 * placement's communicators). *out is a new reference. Returns RA_E_NULL, RA_E_DEVICE_TYPE (unknown
 * type), RA_E_DEVICE_UNAVAILABLE (tpu; a gpu placement with a rank without a gpu),
 * RA_E_ARG (rank out of range, duplicate rank, no rank), RA_E_SHAPE (ndim, shape),
 * RA_E_NOMEM, RA_E_COMM, RA_E_TIMEOUT. */
RA_API int ra_placement_create(ra_gctx *g, const char *type, const int64_t *ranks, size_t nranks,
                               const int64_t *shape, size_t ndim, ra_placement **out);
/* The nested-list form of a 2-D placement: nrows rows, row i with row_len[i] ranks. Rows of
 * different lengths are RA_E_SHAPE ("ragged"); otherwise as ra_placement_create. */
RA_API int ra_placement_create_rows(ra_gctx *g, const char *type, const int64_t *const *rows,
                                    const size_t *row_len, size_t nrows, ra_placement **out);
/* placement.all(type) (OF-PL-3, OF-PL-4): every rank of the context, 0..size-1, 1-D.
 * Collective. Errors as ra_placement_create. */
RA_API int ra_placement_all(ra_gctx *g, const char *type, ra_placement **out);
RA_API ra_placement *ra_placement_retain(const ra_placement *p);
RA_API void ra_placement_release(ra_placement *p);
/* Equal when made in the same context with the same type, mesh shape and set of ranks. */
RA_API bool ra_placement_eq(const ra_placement *a, const ra_placement *b);
/* The printed form (the seed's): oneflow.placement(type="cpu", ranks=[0, 1, 2, 3]) or
 * ranks=[[0, 1], [2, 3]]. Returns RA_E_NULL, RA_E_BUFFER (the message says how many bytes
 * it needs). */
RA_API int ra_placement_format(const ra_placement *p, char *buf, size_t cap);
RA_API ra_device_type ra_placement_type(const ra_placement *p);
RA_API size_t ra_placement_ndim(const ra_placement *p);
/* The mesh shape (ndim entries) and the ranks in C order (ra_placement_size entries), owned
 * by the placement. */
RA_API const int64_t *ra_placement_shape(const ra_placement *p);
RA_API const int64_t *ra_placement_ranks(const ra_placement *p);
RA_API size_t ra_placement_size(const ra_placement *p);
/* Whether the calling rank is in the placement. */
RA_API bool ra_placement_has_me(const ra_placement *p);
/* The calling rank's local device for this placement (the mapping in the header's
 * conventions): where a local array given to ra_global_from_local must be. cpu for a rank
 * outside the placement and for p NULL. */
RA_API ra_device ra_placement_local_device(const ra_placement *p);

/* ---------------------------------------------------------------------------------------
 * SBP (OF-SBP-1..5)
 * ------------------------------------------------------------------------------------- */

typedef enum ra_sbp_kind {
    RA_SBP_SPLIT = 1,       /* cut along dim, balanced: the first n % k pieces one longer */
    RA_SBP_BROADCAST = 2,   /* every rank holds the whole value */
    RA_SBP_PARTIAL_SUM = 3, /* the value is the elementwise sum of the pieces (bool: or) */
} ra_sbp_kind;

typedef struct ra_sbp {
    ra_sbp_kind kind;
    int32_t dim; /* split only */
} ra_sbp;

static inline ra_sbp ra_sbp_split(int32_t dim)
{
    ra_sbp s = {RA_SBP_SPLIT, dim};
    return s;
}
static inline ra_sbp ra_sbp_broadcast(void)
{
    ra_sbp s = {RA_SBP_BROADCAST, 0};
    return s;
}
static inline ra_sbp ra_sbp_partial_sum(void)
{
    ra_sbp s = {RA_SBP_PARTIAL_SUM, 0};
    return s;
}

/* Equal kinds, and equal dims for split. */
RA_API bool ra_sbp_eq(ra_sbp a, ra_sbp b);
/* The printed form (OF-SBP-5): oneflow.sbp.split(dim=0), oneflow.sbp.broadcast,
 * oneflow.sbp.partial_sum. Returns RA_E_NULL, RA_E_ARG (not an sbp value, a negative split
 * dim), RA_E_BUFFER. */
RA_API int ra_sbp_format(ra_sbp s, char *buf, size_t cap);

/* ---------------------------------------------------------------------------------------
 * Global arrays (OF-ATTR-1, OF-SBP-6)
 *
 * The sbp arguments below are nsbp values, one per placement dimension (nsbp must equal
 * ra_placement_ndim). A split dim must be in [0, ndim) of the global array.
 * ------------------------------------------------------------------------------------- */

typedef struct ra_global ra_global;

RA_API ra_global *ra_global_retain(const ra_global *x);
RA_API void ra_global_release(ra_global *x);
RA_API ra_dtype ra_global_dtype(const ra_global *x);
RA_API size_t ra_global_ndim(const ra_global *x);
/* The global shape, ndim entries, owned by the array. */
RA_API const int64_t *ra_global_shape(const ra_global *x);
/* The placement, borrowed. */
RA_API const ra_placement *ra_global_placement(const ra_global *x);
/* The sbp of placement dimension i (0 <= i < placement ndim). */
RA_API ra_sbp ra_global_sbp(const ra_global *x, size_t i);

/* to_local: the calling rank's local piece as a new reference (an empty cpu array of shape
 * (0,) on a rank outside the placement). Does not communicate. Returns RA_E_NULL. */
RA_API int ra_global_to_local(ra_gctx *g, const ra_global *x, ra_array **out);

/* A global array from each rank's local array (OneFlow's to_global on a local tensor): the
 * global shape is inferred from the pieces: along a split dim the pieces' lengths add up,
 * every other extent is the pieces' own. The pieces must be what the sbp makes of that
 * global shape (balanced lengths, equal other extents, one dtype): otherwise RA_E_SHAPE or
 * RA_E_DTYPE naming the first rank that differs, on every rank. Each local array must be
 * on the rank's local device (RA_E_DEVICE_MISMATCH); ranks outside the placement pass
 * NULL or any array (ignored). The pieces are kept, not copied, except along a broadcast
 * placement dimension: there every rank holds the piece of the rank at coordinate 0 (its
 * bytes broadcast, as OneFlow's to_global does), so pieces that differ give one value.
 * Collective. Returns
 * RA_E_NULL, RA_E_ARG (nsbp, an sbp), RA_E_AXIS (split dim), RA_E_SHAPE, RA_E_DTYPE,
 * RA_E_DEVICE_MISMATCH, RA_E_NOMEM, RA_E_COMM, RA_E_TIMEOUT. */
RA_API int ra_global_from_local(ra_gctx *g, const ra_array *local, const ra_placement *p,
                                const ra_sbp *sbp, size_t nsbp, ra_global **out);

/* A global array from the whole value, which every rank passes (OneFlow's
 * tensor(data, placement=, sbp=)): data holds size(shape) elements of dtype in C order
 * (NULL when that size is 0);
 * each rank keeps the piece its sbp gives it (partial_sum: the first rank along that
 * placement dimension keeps the value, the others zeros). Collective (the agreement step
 * only; data equal on all ranks is the caller's duty and not checked). Returns RA_E_NULL,
 * RA_E_ARG, RA_E_AXIS, RA_E_SHAPE, RA_E_TOO_LARGE, RA_E_DTYPE_DEVICE, RA_E_NOMEM,
 * RA_E_COMM, RA_E_TIMEOUT. */
RA_API int ra_global_from_buffer(ra_gctx *g, const void *data, ra_dtype dtype, const int64_t *shape,
                                 size_t ndim, const ra_placement *p, const ra_sbp *sbp, size_t nsbp,
                                 ra_global **out);

/* Global creation: every element fill_value (dtype as for ra_full: RA_DTYPE_DEFAULT follows
 * the fill's kind). zeros and ones are full with 0 and 1. Errors as ra_global_from_buffer,
 * plus RA_E_DTYPE and RA_E_SCALAR_RANGE for a fill the dtype cannot hold. */
RA_API int ra_global_full(ra_gctx *g, const int64_t *shape, size_t ndim, ra_scalar fill_value,
                          ra_dtype dtype, const ra_placement *p, const ra_sbp *sbp, size_t nsbp,
                          ra_global **out);

/* to_global with a new sbp on the same placement: the same global value (OF-SBP-6), held as
 * sbp says. Per placement dimension: split to broadcast is an all-gather, partial_sum to
 * broadcast an all-reduce, partial_sum to split a reduce-scatter, split(i) to split(j) an
 * all-to-all, broadcast to split a local slice, broadcast to partial_sum and split to
 * partial_sum local zero-filling; the same sbp keeps the pieces. Collective. Returns
 * RA_E_NULL, RA_E_ARG, RA_E_AXIS, RA_E_NOMEM, RA_E_TOO_LARGE, RA_E_COMM, RA_E_TIMEOUT. */
RA_API int ra_global_to_sbp(ra_gctx *g, const ra_global *x, const ra_sbp *sbp, size_t nsbp,
                            ra_global **out);

/* The whole global value into dst on every rank (dst_bytes = size * dtype size; dst may be
 * NULL when that is 0), as broadcast would hold it. Collective. Returns RA_E_NULL, RA_E_BUFFER, and
 * the errors of ra_global_to_sbp. */
RA_API int ra_global_read(ra_gctx *g, const ra_global *x, void *dst, size_t dst_bytes);

/* Elementwise x1 op x2 of two global arrays of one global shape and one placement (else
 * RA_E_BROADCAST, or RA_E_DEVICE_MISMATCH naming both placements), with OneFlow's SBP
 * signatures per placement dimension: (S(i), S(i)) -> S(i), (B, B) -> B, (P, P) -> P for add
 * and subtract, (P, B) -> P for multiply and divide and (B, P) -> P for multiply; any other
 * pair is first converted: both to S(i) when one is S(i), otherwise both to B (a B operand
 * of add or subtract with a P one becomes P, locally). Collective. Returns the errors of
 * ra_binary and of ra_global_to_sbp. */
RA_API int ra_global_binary(ra_gctx *g, ra_binop op, const ra_global *x1, const ra_global *x2,
                            ra_global **out);

/* sum over every axis (axis NULL: a 0-d result) or one axis, with OneFlow's signature per
 * placement dimension: a split of a reduced dim gives partial_sum, a split of another dim
 * stays a split (of the same dim of the result), broadcast stays broadcast, partial_sum
 * stays partial_sum (a bool partial_sum is made broadcast first: or is not a sum). The
 * result dtype is ra_reduce's. Collective. Returns the errors of ra_reduce and of
 * ra_global_to_sbp. */
RA_API int ra_global_sum(ra_gctx *g, const ra_global *x, const int *axis, ra_global **out);

#ifdef __cplusplus
}
#endif

#endif /* REFARRAY_GLOBAL_H */
