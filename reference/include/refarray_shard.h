/*
 * refarray_shard.h: sharded arrays, a part of refarray's manual (refarray.h includes it).
 */
#ifndef REFARRAY_SHARD_H
#define REFARRAY_SHARD_H

#include "refarray.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------
 * Sharded arrays (TG-SHARD-*, TG-EW-*, TG-RED-1, TG-GATHER-*; spec/decisions.md, "Sharding")
 *
 * A sharded array is one logical array (dtype, shape) spread over a tuple of devices: split
 * along an axis into one contiguous piece per device, in device order, or replicated (every
 * device holds the whole array). Each piece is an ordinary array in its device's memory (an
 * OpenCL buffer on a gpu device) and every operation on a piece runs on that device. A
 * sharded array is an ra_array: the getters above give its logical dtype, shape, size and
 * nbytes, and ra_array_device gives the first device of its tuple (ra_shard_device gives
 * each). These functions accept sharded arrays:
 *  - ra_binary and ra_unary: elementwise, piece by piece (TG-EW-1..3). Both array operands
 *    must be sharded over the same tuple (equal devices in the same order), else
 *    RA_E_DEVICE_MISMATCH naming both tuples. A sharded array with an unsharded array is
 *    RA_E_DEVICE_MISMATCH too (shard the other array first, or gather this one); a sharded
 *    array with a scalar applies the scalar to every piece. Operands are brought to one shared
 *    axis, the last distinct split axis in operand order (x1, x2; counted in the result's
 *    axes after broadcasting): a replicated operand is cut along it, an operand split along
 *    another axis is gathered and re-split along it. The result is split along the shared axis
 *    with the bounds of the operand already split there (or replicated when no operand is
 *    split); piece i is computed on device i. A split operand must not be broadcast along
 *    its split axis (RA_E_BROADCAST). Soft device mode does not move pieces.
 *  - ra_matmul: both operands sharded over the same tuple (else RA_E_DEVICE_MISMATCH, as
 *    above). It is read as tinygrad computes it, (x1[..., n, 1, k] * x2T[..., 1, m, k]).sum(-1):
 *    the operands are brought to the product's shared axis by the elementwise rule (x2's
 *    split axis when x2 is split, else x1's), and piece i is computed on device i. Shared
 *    along a batch axis, n (x1's rows) or m (x2's columns), the result is split along that
 *    axis; shared along k (x2 split along it, or x2 replicated and x1 split along it, as in
 *    a 1-D dot), each device holds a partial product and the partials are added on the
 *    first device and replicated, as ra_reduce does; neither split, the result is
 *    replicated. An operand split along another axis is gathered and cut again.
 *  - ra_reduce: each piece reduces on its own device (TG-RED-1). Over the split axis (or
 *    over every axis of a split array) the partial results are copied to the tuple's first
 *    device, combined there (added for sum, maximum for max) and the result is replicated
 *    over the tuple, as an all-reduce leaves it. Over another axis, or of a replicated
 *    array, no combining is needed: the result keeps the split (its axis renumbered when a
 *    lower axis was reduced) or stays replicated.
 *  - ra_to_device: gathers a sharded array onto one device (TG-GATHER-1): the pieces are
 *    copied there in order into one unsharded array equal to the array before sharding. A
 *    replicated array copies one piece (the one already on the target, else the first).
 *    stream must be NULL.
 *  - ra_array_read: gathers into host memory.
 * Every other function given a sharded array returns RA_E_SHARDED naming the function.
 * ra_util_arrays_on_device lists neither sharded arrays nor their pieces (the pieces'
 * bytes are counted by ra_util_used_memory).
 * ------------------------------------------------------------------------------------- */

/* How an axis whose length the device count does not divide is cut (TG-SHARD-9). */
typedef enum ra_shard_uneven {
    /* The default (tinygrad 0.14): RA_E_SHARD_UNEVEN naming the length, axis and count. */
    RA_SHARD_UNEVEN_REFUSE = 0,
    /* tinygrad up to 0.9: pieces of ceil(length / count) elements, the remainder in the last
     * non-empty piece and empty pieces after it (5 over 4 devices: 2, 2, 1, 0). */
    RA_SHARD_UNEVEN_CEIL = 1,
} ra_shard_uneven;

/* Options of ra_shard and ra_shard_inplace. NULL means all defaults; the size field works
 * as for every struct of this header (see the top). */
typedef struct ra_shard_opts {
    size_t size;            /* sizeof(ra_shard_opts) as the caller compiled it, or 0 */
    ra_shard_uneven uneven; /* RA_SHARD_UNEVEN_REFUSE unless set */
} ra_shard_opts;

/* Shard options with their size set: ra_shard(..., RA_SHARD_OPTS(.uneven = ...), &out). */
#define RA_SHARD_OPTS(...) (&(ra_shard_opts){.size = sizeof(ra_shard_opts), __VA_ARGS__})

/* What ra_shard_axis answers for a replicated array and for an unsharded one. */
#define RA_SHARD_REPLICATED (-1)

/* shard(devices, axis) (TG-SHARD-1, -2, -5..-9): a new sharded array over the n >= 1
 * devices, with x's dtype, shape and values. axis NULL replicates x on every device
 * (TG-SHARD-7); otherwise x is split along *axis (negative counts from the end, TG-SHARD-2)
 * into n contiguous pieces in device order whose bounds are the running sums of their
 * lengths from 0 (TG-SHARD-5, -6). The pieces are copies: x is unchanged. The uneven
 * option decides a length that n does not divide. Returns RA_E_NULL (ctx, x, devices or
 * out NULL), RA_E_ARG (n == 0, a device listed twice, a bad opts size or uneven value),
 * RA_E_DEVICE_UNAVAILABLE, RA_E_DTYPE_DEVICE (x's dtype on a device that lacks it),
 * RA_E_AXIS (axis out of range, or any axis of a 0-d array), RA_E_SHARDED (x already
 * sharded, TG-SHARD-4), RA_E_SHARD_UNEVEN, RA_E_NOMEM (every piece made so far is
 * released), RA_E_BACKEND. */
RA_API int ra_shard(ra_ctx *ctx, const ra_array *x, const ra_device *devices, size_t n,
                    const int *axis, const ra_shard_opts *opts, ra_array **out);

/* shard_(devices, axis) (TG-SHARD-3): shards x in place. x keeps its identity (the same
 * pointer, the same references) and becomes the sharded array ra_shard would return; its
 * own data is freed. This is the one call that changes an array after its creation: no
 * other thread may use x during it. The same statuses as ra_shard; on error x is
 * unchanged. */
RA_API int ra_shard_inplace(ra_ctx *ctx, ra_array *x, const ra_device *devices, size_t n,
                            const int *axis, const ra_shard_opts *opts);

/* to(devices) (TG-GATHER-2): x moved to the tuple of n devices. When x is sharded over
 * exactly that tuple the result is x itself (a new reference, no copy); a sharded x over
 * another tuple (other devices, another order or another count) is gathered and replicated
 * over the new tuple, split or not, as tinygrad 0.14's Tensor.to does; an unsharded x is
 * replicated over the tuple. Returns the statuses of ra_shard (never RA_E_SHARD_UNEVEN),
 * except that a sharded x is accepted. */
RA_API int ra_shard_to(ra_ctx *ctx, const ra_array *x, const ra_device *devices, size_t n,
                       ra_array **out);

/* Whether x is sharded (false for NULL). */
RA_API bool ra_array_is_sharded(const ra_array *x);
/* The number of pieces (the length of the device tuple); 0 for an unsharded array or NULL. */
RA_API size_t ra_shard_count(const ra_array *x);
/* The split axis (>= 0), or RA_SHARD_REPLICATED for a replicated or unsharded array. */
RA_API int ra_shard_axis(const ra_array *x);
/* The device of piece i; RA_NO_DEVICE when x is not sharded (or NULL) or i is out of
 * range. */
RA_API ra_device ra_shard_device(const ra_array *x, size_t i);
/* Piece i, borrowed (valid while x is; do not release it): an ordinary array on
 * ra_shard_device(x, i) whose shape is the piece's. NULL when x is not sharded or i is out
 * of range. */
RA_API const ra_array *ra_shard_piece(const ra_array *x, size_t i);
/* The half-open range [start, end) of piece i along the split axis (TG-SHARD-6). Returns
 * RA_E_NULL, RA_E_ARG (x not sharded, replicated (it has no bounds), or i out of range). */
RA_API int ra_shard_bounds(const ra_array *x, size_t i, int64_t *start, int64_t *end);

#ifdef __cplusplus
}
#endif

#endif /* REFARRAY_SHARD_H */
