/*
 * shard_internal.h: what the two parts of the sharding layer share (shard.c: the pieces,
 * the device tuple, moving bytes, reading, gathering; shard_ops.c: the operations and matmul
 * on sharded arrays, and the layer's table, which names both files' slots), private to them.
 */
#ifndef RA_SHARD_INTERNAL_H
#define RA_SHARD_INTERNAL_H

#include "internal.h"

/* The pieces of a sharded array: the layer's data of its header (array.c). */
typedef struct ra__shard {
    size_t n;               /* pieces, >= 1 */
    int axis;               /* the split axis, or RA_SHARD_REPLICATED */
    ra_shard_uneven uneven; /* how it was cut; kept for re-splitting */
    ra_array *pieces[];     /* piece i on device i, each owned */
} ra__shard;

/* The longest device tuple a message prints. */
#define TUPLE_STR_MAX 256

/* The layer's table (shard_ops.c): every sharded array's header carries it. ra_ctx_create
 * (ctx_open.c) registers it as the context's shard_layer, which shard.c makes its arrays with;
 * its kind, RA__LAYER_SHARD, is how ra__shard_of knows them. */
extern const ra__layer_ops ra__shard_layer;

/* x's pieces, or NULL when x (may be NULL) is not sharded. */
ra__shard *ra__shard_of(const ra_array *x);

/* The tuple of a sharded array, for messages. */
const char *ra__shard_tuple_str(const ra__shard *s, char buf[TUPLE_STR_MAX]);

/* The layer's free slot: releases every piece and the ra__shard. */
void ra__shard_free(ra_ctx *ctx, void *data);

/* A ra__shard for n pieces (none set yet), or NULL (RA_E_NOMEM recorded). */
ra__shard *ra__shard_alloc(ra_ctx *ctx, size_t n, int axis, ra_shard_uneven uneven);

/* Marks each piece as one (arrays_on_device does not list them) and wraps them. */
int ra__shard_finish(ra_ctx *ctx, ra__shard *s, ra_dtype dtype, const int64_t *shape, size_t ndim,
                     ra_array **out);

/* A new array on dst holding x[..., start:start+count, ...] along axis (the whole of x when
 * axis is RA_SHARD_REPLICATED). x is unsharded. When x is on dst the device copies it;
 * otherwise the bytes go through host memory (directly from or into host buffers). */
int ra__slice_to(ra_ctx *ctx, const ra_array *x, int axis, int64_t start, int64_t count,
                 ra__dev *dst, ra_array **out);

/* Where piece i of a split array starts along its axis. */
int64_t ra__piece_start(const ra__shard *s, size_t i);

/* x's pieces assembled into one ordinary array on dst (TG-GATHER-*). */
int ra__shard_gather(ra_ctx *ctx, const ra_array *x, ra__dev *dst, ra_array **out);

/* The layer's slots that are not operations (shard.c), as ra__layer_ops describes them. */
int ra__shard_to_device(ra_ctx *ctx, const ra_array *x, ra__dev *dst, ra_device device,
                        void *stream, ra_array **out);
int ra__shard_read(ra_ctx *ctx, const ra_array *x, void *dst);
int ra__shard_refuse(ra_ctx *ctx, const ra_array *x, const char *what);

#endif /* RA_SHARD_INTERNAL_H */
