/*
 * refarray_fn_shape.h: the manipulation, indexing, searching, set and sorting functions of the
 * array API standard, built on refarray.h.
 *
 * Conventions, beyond refarray.h's: every function here runs the staged path
 * (src/functions/staged.h): its arrays must be on one device (DEV-DS-11: RA_E_DEVICE_MISMATCH,
 * or moved to the default device under soft device mode), they are read to host memory, the
 * function computes there, and its result is a new array on that device (DEV-DS-10). On an
 * OpenCL device that is a read and a write around the host computation; no kernel exists for
 * these. Results follow the standard's signatures (spec/signatures.json) and dtype rules.
 * Sources: functions/manipulation*.c, functions/indexing*.c, functions/searching*.c,
 * functions/sets*.c, functions/sorting*.c.
 */
#ifndef REFARRAY_FN_SHAPE_H
#define REFARRAY_FN_SHAPE_H

#include "refarray.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The default index dtype of every device (ra_info_default_dtypes' indexing) is int64: every
 * index, position and count these functions return is int64. Axes are int64_t; a negative
 * axis counts from the end; an axis outside [-ndim, ndim) is RA_E_AXIS. Every function
 * returns RA_E_NULL (ctx, an array argument or out NULL; a list NULL with a count),
 * RA_E_ARG (a sharded array), RA_E_DEVICE_MISMATCH (arrays on two devices, DEV-DS-11),
 * RA_E_NOMEM and RA_E_BACKEND besides the statuses listed with it. */

/* ---- manipulation ------------------------------------------------------------------- */

/* The broadcast shape of n shapes (the standard's broadcast_shapes), into out[RA_MAX_NDIM]
 * and *ndim. Returns RA_E_NULL, RA_E_ARG (n 0, a shape of more than RA_MAX_NDIM
 * dimensions), RA_E_SHAPE (a negative extent), RA_E_BROADCAST naming the shapes. */
RA_API int ra_broadcast_shapes(ra_ctx *ctx, const int64_t *const *shapes, const size_t *ndims,
                               size_t n, int64_t *out, size_t *ndim);

/* x broadcast to shape (a copy). Returns RA_E_SHAPE, RA_E_BROADCAST (x's shape does not
 * broadcast to shape, or the broadcast shape is not shape). */
RA_API int ra_broadcast_to(ra_ctx *ctx, const ra_array *x, const int64_t *shape, size_t ndim,
                           ra_array **out);

/* The n arrays broadcast against each other: outs[0..n) (new arrays, on their one device).
 * Returns RA_E_BROADCAST. On error nothing is in outs. */
RA_API int ra_broadcast_arrays(ra_ctx *ctx, const ra_array *const *xs, size_t n, ra_array **outs);

/* The n arrays joined along *axis (axis NULL: each flattened, joined into one 1-D array). The
 * dtype is the arrays' promoted dtype (ra_result_type). Returns RA_E_ARG (n 0), RA_E_SHAPE
 * (ndim differs, an extent other than the axis differs, a 0-d array with an axis),
 * RA_E_AXIS, RA_E_DTYPE (no promotion). */
RA_API int ra_concat(ra_ctx *ctx, const ra_array *const *xs, size_t n, const int64_t *axis,
                     ra_array **out);

/* x with an axis of extent 1 inserted at each of axes[0..naxes) (positions in the result of
 * ndim + naxes dimensions; 2021.12's single axis is naxes 1). Returns RA_E_ARG (naxes 0, an
 * axis repeated), RA_E_AXIS, RA_E_SHAPE (more than RA_MAX_NDIM dimensions). */
RA_API int ra_expand_dims(ra_ctx *ctx, const ra_array *x, const int64_t *axes, size_t naxes,
                          ra_array **out);

/* x with the order of elements reversed along axes[0..naxes) (axes NULL: every axis).
 * Returns RA_E_AXIS, RA_E_ARG (an axis repeated). */
RA_API int ra_flip(ra_ctx *ctx, const ra_array *x, const int64_t *axes, size_t naxes,
                   ra_array **out);

/* x with the axes src[k] moved to positions dst[k], the others in their order. Returns
 * RA_E_AXIS, RA_E_ARG (an axis repeated in src or in dst). */
RA_API int ra_moveaxis(ra_ctx *ctx, const ra_array *x, const int64_t *src, const int64_t *dst,
                       size_t n, ra_array **out);

/* x with its axes permuted: axis k of the result is axis axes[k] of x; n must be x's ndim.
 * Returns RA_E_ARG (n is not ndim, an axis repeated), RA_E_AXIS. */
RA_API int ra_permute_dims(ra_ctx *ctx, const ra_array *x, const int64_t *axes, size_t n,
                           ra_array **out);

/* Each element of x repeated along *axis (axis NULL: x flattened first): repeats NULL
 * repeats each nrep times; otherwise repeats is a 1-D integer array (on x's device) of one
 * count per element along the axis, or of one count for all. Returns RA_E_ARG (a negative
 * count), RA_E_SHAPE (repeats of the wrong length or not 1-D), RA_E_DTYPE (repeats not an
 * integer array), RA_E_AXIS. */
RA_API int ra_repeat(ra_ctx *ctx, const ra_array *x, const ra_array *repeats, int64_t nrep,
                     const int64_t *axis, ra_array **out);

/* x's elements (row-major) in shape; one extent may be -1 (inferred). Always a copy.
 * Returns RA_E_SHAPE (sizes differ, more than one -1, an extent below -1). */
RA_API int ra_reshape(ra_ctx *ctx, const ra_array *x, const int64_t *shape, size_t ndim,
                      ra_array **out);

/* x rolled: elements shifted by shifts[k] along axes[k] (wrapping around); axes NULL: x
 * flattened, rolled by shifts[0] (nshifts 1), and given x's shape back. With axes, nshifts
 * is naxes, or 1 (one shift for every axis). Returns RA_E_ARG (the counts disagree),
 * RA_E_AXIS. */
RA_API int ra_roll(ra_ctx *ctx, const ra_array *x, const int64_t *shifts, size_t nshifts,
                   const int64_t *axes, size_t naxes, ra_array **out);

/* x without the axes axes[0..naxes), each of extent 1. Returns RA_E_AXIS, RA_E_ARG (an axis
 * repeated), RA_E_SHAPE (an axis of extent other than 1). */
RA_API int ra_squeeze(ra_ctx *ctx, const ra_array *x, const int64_t *axes, size_t naxes,
                      ra_array **out);

/* x tiled reps[k] times along each axis (the shorter of reps and x's shape padded with
 * leading 1s). Returns RA_E_ARG (a negative repetition), RA_E_SHAPE. */
RA_API int ra_tile(ra_ctx *ctx, const ra_array *x, const int64_t *reps, size_t nreps,
                   ra_array **out);

/* x split along axis into x.shape[axis] arrays of ndim - 1 dimensions, outs[0..*n) (cap at
 * least that). Returns RA_E_SHAPE (x 0-d), RA_E_AXIS, RA_E_BUFFER (cap too small; *n says
 * how many). On error nothing is in outs. */
RA_API int ra_unstack(ra_ctx *ctx, const ra_array *x, int64_t axis, ra_array **outs, size_t cap,
                      size_t *n);

/* ---- indexing ------------------------------------------------------------------------- */

/* The elements of x at indices (a 1-D integer array, negative counting from the end) along
 * *axis (axis NULL: x must be 1-D). Returns RA_E_DTYPE (indices not integer), RA_E_SHAPE
 * (indices not 1-D, x not 1-D without an axis), RA_E_AXIS (an axis or an index out of
 * range: the standard's IndexError). */
RA_API int ra_take(ra_ctx *ctx, const ra_array *x, const ra_array *indices, const int64_t *axis,
                   ra_array **out);

/* x's elements picked along axis by indices (an integer array of x's ndim whose other
 * extents broadcast with x's). Returns RA_E_DTYPE, RA_E_SHAPE, RA_E_BROADCAST, RA_E_AXIS. */
RA_API int ra_take_along_axis(ra_ctx *ctx, const ra_array *x, const ra_array *indices, int64_t axis,
                              ra_array **out);

/* One index of x[key] (the standard's "Indexing"). */
typedef enum ra_index_kind {
    RA_INDEX_INT = 1,  /* i: one position, negative from the end; the axis goes away */
    RA_INDEX_SLICE,    /* start:stop:step, each optional (has_*) */
    RA_INDEX_ELLIPSIS, /* ...: as many full slices as the other indices leave */
    RA_INDEX_NEWAXIS,  /* None: a new axis of extent 1 */
    RA_INDEX_ARRAY,    /* array: a boolean mask, or an integer array (2024.12) */
} ra_index_kind;

typedef struct ra_index {
    ra_index_kind kind;
    int64_t i;
    int64_t start, stop, step;
    bool has_start, has_stop, has_step;
    const ra_array *array;
} ra_index;

/* x[key] with key = idx[0..n) (a tuple; one index is n 1). The forms the standard defines:
 * integers, slices, an ellipsis and None in any mix (basic indexing); a boolean array as the
 * only index besides one ellipsis and slices of every axis, which selects the leading axes'
 * positions where it is true; integers and integer arrays only, broadcast together, one for
 * each leading axis (2024.12's integer array indexing). The result is a new array (refarray
 * makes no views) on x's device; index arrays must be on x's device (DEV-DS-11,
 * RA_E_DEVICE_MISMATCH). Returns RA_E_ARG (an unsupported mix, two ellipses, more indices
 * than axes, a zero step), RA_E_AXIS (an integer out of range: IndexError), RA_E_DTYPE (an
 * index array neither bool nor integer), RA_E_SHAPE (a mask of the wrong shape),
 * RA_E_BROADCAST. */
RA_API int ra_getitem(ra_ctx *ctx, const ra_array *x, const ra_index *idx, size_t n,
                      ra_array **out);

/* x[key] = value, in place (one of the two calls that write an existing array: no other
 * thread may use x during it, and every holder of x, such as the result of to_device to x's
 * own device, sees the change): value (an array on x's device, or a Python scalar) is broadcast
 * to the shape of x[key] and written there, converted to x's dtype; x keeps its dtype, so an
 * array value's dtype must promote to x's (RA_E_DTYPE otherwise). Where an integer array
 * index names one element twice, the last write wins. Returns what ra_getitem returns, and
 * RA_E_BROADCAST, RA_E_SCALAR_RANGE. */
RA_API int ra_setitem(ra_ctx *ctx, ra_array *x, const ra_index *idx, size_t n, ra_operand value);

/* ---- searching ------------------------------------------------------------------------ */

/* The position of the largest (argmax) or smallest (argmin) element of x along *axis (axis
 * NULL: of x flattened), the first where several are equal; a NaN counts as larger and
 * smaller than every number, so the first NaN is found (spec/decisions.md). keepdims keeps
 * the reduced axes with extent 1. int64. Returns RA_E_AXIS, RA_E_DTYPE (complex),
 * RA_E_EMPTY_REDUCTION (an empty axis). */
RA_API int ra_argmax(ra_ctx *ctx, const ra_array *x, const int64_t *axis, bool keepdims,
                     ra_array **out);
RA_API int ra_argmin(ra_ctx *ctx, const ra_array *x, const int64_t *axis, bool keepdims,
                     ra_array **out);

/* The number of non-zero elements of x over axes[0..naxes) (axes NULL: every axis); int64.
 * Returns RA_E_AXIS, RA_E_ARG (an axis repeated). */
RA_API int ra_count_nonzero(ra_ctx *ctx, const ra_array *x, const int64_t *axes, size_t naxes,
                            bool keepdims, ra_array **out);

/* The positions of x's non-zero elements, one int64 1-D array per axis of x in outs[0..ndim)
 * (cap at least ndim), row-major order. Returns RA_E_SHAPE (x 0-d, as the standard requires),
 * RA_E_BUFFER (cap too small). On error nothing is in outs. */
RA_API int ra_nonzero(ra_ctx *ctx, const ra_array *x, ra_array **outs, size_t cap, size_t *n);

/* For each element of x2, the position in the 1-D x1 (sorted ascending, or sorted through
 * sorter, a 1-D integer array of positions, NULL for none) where it would be inserted to
 * keep the order: the first such position (right false) or the last (right true); int64 of
 * x2's shape. x2 may be a Python scalar (2025.12). Comparison by value in refarray's order
 * (NaN last). Returns RA_E_SHAPE (x1 or sorter not 1-D, lengths differ), RA_E_DTYPE (no
 * promotion between x1 and x2, sorter not integer), RA_E_AXIS (a sorter position out of
 * range), RA_E_SCALAR_RANGE. */
RA_API int ra_searchsorted(ra_ctx *ctx, const ra_array *x1, ra_operand x2, bool right,
                           const ra_array *sorter, ra_array **out);

/* x1 where condition is true, else x2, broadcast together; the dtype is x1's and x2's
 * promoted (a Python scalar takes the other's dtype, 2024.12; both scalars is
 * RA_E_SCALAR). condition must be bool. Returns RA_E_DTYPE, RA_E_SCALAR, RA_E_SCALAR_RANGE,
 * RA_E_BROADCAST. */
RA_API int ra_where(ra_ctx *ctx, const ra_array *condition, ra_operand x1, ra_operand x2,
                    ra_array **out);

/* ---- sets ----------------------------------------------------------------------------- */

/* The standard's unique_all, unique_counts, unique_inverse and unique_values of x (flattened),
 * in one function: values (x's dtype, sorted ascending in refarray's order), and, where the
 * pointer is not NULL, indices (the first occurrence of each value in flattened x), inverse
 * (x's shape: the position in values of each element) and counts; the index arrays int64.
 * Equal values are one value (-0 and +0 too: the first occurring is kept); every NaN is a
 * value of its own with count 1 (the standard's note), after every number, in the order they
 * occur. Every result is on x's device. Returns only the common statuses; on error no result
 * is made. */
RA_API int ra_unique(ra_ctx *ctx, const ra_array *x, ra_array **values, ra_array **indices,
                     ra_array **inverse, ra_array **counts);

/* For each element of x1, whether it equals some element of x2 (invert: whether none); bool
 * of x1's shape. Either may be a Python scalar (2025.12), not both. Equality by value (NaN
 * equals nothing). Returns RA_E_SCALAR (two scalars), RA_E_DTYPE, RA_E_SCALAR_RANGE. */
RA_API int ra_isin(ra_ctx *ctx, ra_operand x1, ra_operand x2, bool invert, ra_array **out);

/* ---- sorting -------------------------------------------------------------------------- */

/* x sorted along axis (ra_sort) or the positions that sort it (ra_argsort, int64), in
 * refarray's order (NaN after every number, -0 equal to +0); descending reverses the order
 * (NaN first); the sort is always stable (equal elements keep their order, in both
 * directions), so stable false is allowed and changes nothing. Returns RA_E_AXIS,
 * RA_E_DTYPE (complex, which the standard leaves out). A 0-d x is returned as it is. */
RA_API int ra_sort(ra_ctx *ctx, const ra_array *x, int64_t axis, bool descending, bool stable,
                   ra_array **out);
RA_API int ra_argsort(ra_ctx *ctx, const ra_array *x, int64_t axis, bool descending, bool stable,
                      ra_array **out);

#ifdef __cplusplus
}
#endif

#endif /* REFARRAY_FN_SHAPE_H */
