/*
 * array_make.h: the making of an array's header and data (array.c), inline for the callers on
 * the path of a small operation: its result is mostly this, and a call with its saved
 * registers was a sixth of a 1-element add. Only array.c and ops.c include it.
 */
#ifndef RA_ARRAY_MAKE_H
#define RA_ARRAY_MAKE_H

#include "internal.h"

#include <string.h>

/* cpu arrays of at most RA__INLINE_MAX bytes hold their data right after the header, at
 * RA__INLINE_OFFSET (the header's size rounded up so the data is aligned for any dtype). */
#define RA__INLINE_MAX ((size_t)64)
#define RA__INLINE_OFFSET                                                                          \
    ((sizeof(ra_array) + _Alignof(max_align_t) - 1) / _Alignof(max_align_t) * _Alignof(max_align_t))

static inline void *ra__inline_buf(ra_array *x)
{
    return (char *)x + RA__INLINE_OFFSET;
}

/* Sets the array's own members of a header from ra__live_header, each once: those given, the
 * rest zero, but the shape's unused tail (RA_MAX_NDIM extents: zeroing them would be most of
 * the work for a small array; only shape[0..ndim) is ever read). The members the list owns
 * are left alone: a reused header is still in the list. */
static inline void ra__header_init(ra_array *x, ra_ctx *ctx, ra__dev *dev, ra_dtype dtype,
                                   size_t ndim, int64_t size, size_t nbytes)
{
    x->ctx = ctx;
    x->dev = dev;
    x->dtype = dtype;
    x->ndim = ndim;
    x->size = size;
    x->nbytes = nbytes;
    x->buf = NULL;
    x->layer = NULL;
    x->layer_data = NULL;
    x->layer_piece = false;
}
/* layer_piece is the last member: one added after it must be set in ra__header_init. The
 * assertion sees a member added beyond layer_piece's padding, not one as small as a bool
 * within it. */
_Static_assert(sizeof(ra_array) <= offsetof(ra_array, layer_piece) + _Alignof(ra_array),
               "ra__header_init sets every member of ra_array after the list's own");

/* A new array on dev of a checked shape with size elements; its data zero-initialised when
 * zeroed, else unspecified (the caller writes it whole before anything reads it). t is the
 * calling thread's state (may be NULL). twin, when not NULL, is an ordinary array of the same
 * dtype and shape on dev: its byte count passed these checks when it was made, so it is taken
 * as it is (a result like its operand skips the size's multiplication and the device's
 * limit). Inlined into every caller: the result of a small operation is mostly this. */
static inline __attribute__((always_inline)) int
ra__array_make(ra_ctx *ctx, ra__thread *t, ra__dev *dev, ra_dtype dtype, const int64_t *shape,
               size_t ndim, int64_t size, const ra_array *twin, bool zeroed, ra_array **out)
{
    int status;
    size_t nbytes;
    if (twin) {
        nbytes = twin->nbytes;
    } else {
        size_t esize = ra_dtype_size(dtype);
        /* The multiplication's own overflow flag rather than a division, which costs more
         * than the rest of a small array's making. */
        if ((uint64_t)size > SIZE_MAX || __builtin_mul_overflow((size_t)size, esize, &nbytes))
            return ra__ctx_error(ctx, RA_E_TOO_LARGE, "array: %lld elements of %zu bytes overflow",
                                 (long long)size, esize);
        if (dev->info.max_alloc && nbytes > dev->info.max_alloc) {
            char buf[RA_DEVICE_STR_MAX];
            return ra__ctx_error(ctx, RA_E_NOMEM,
                                 "array: %zu bytes exceed the largest allocation of device "
                                 "'%s' (%llu bytes)",
                                 nbytes, ra__device_str(dev->device, buf),
                                 (unsigned long long)dev->info.max_alloc);
        }
    }
    /* Small cpu arrays keep their bytes in the header's own block: one allocation instead of
     * two, which is most of what a small operation costs (and none when the thread's spare
     * header is reused, live.c). */
    bool inline_data = nbytes && nbytes <= RA__INLINE_MAX && RA__DEV_HOST_MEMORY(dev);
    ra_array *x = ra__live_header(ctx, t, RA__INLINE_OFFSET + (inline_data ? RA__INLINE_MAX : 0),
                                  inline_data);
    if (!x) return ra__ctx_error(ctx, RA_E_NOMEM, "array: out of memory for the array header");
    ra__header_init(x, ctx, dev, dtype, ndim, size, nbytes);
    if (inline_data) {
        x->buf = ra__inline_buf(x);
        if (zeroed) memset(x->buf, 0, nbytes);
    } else if (nbytes) {
        status = !zeroed && RA__BACKEND_HAS(dev->ops, alloc_uninit)
                     ? dev->ops->alloc_uninit(dev->impl, nbytes, &x->buf)
                     : dev->ops->alloc(dev->impl, nbytes, &x->buf);
        if (status != RA_OK) {
            ra__live_retire(ctx, t, x);
            return status;
        }
    }
    for (size_t i = 0; i < ndim; i++)
        x->shape[i] = shape[i];
    atomic_store_explicit(&x->listed_on, dev, memory_order_relaxed);
    ra__used_add(t, dev, (int64_t)nbytes);
    ra__live_add(ctx, x);
    *out = x;
    return RA_OK;
}

/* A new array like like (its shape, already checked) of dtype on dev, its data unspecified
 * (ra__array_new_like_uninit), for a caller that has the calling thread's state t already
 * (may be NULL). */
static inline __attribute__((always_inline)) int
ra__array_new_like_uninit_on(ra_ctx *ctx, ra__thread *t, ra__dev *dev, ra_dtype dtype,
                             const ra_array *like, ra_array **out)
{
    /* like's shape was checked when it was made, and so was its byte count on its device when
     * it is an ordinary array of the same dtype on dev (a layer's array counts logical bytes). */
    const ra_array *twin = dtype == like->dtype && dev == like->dev && !like->layer ? like : NULL;
    return ra__array_make(ctx, t, dev, dtype, like->shape, like->ndim, like->size, twin, false,
                          out);
}

#endif /* RA_ARRAY_MAKE_H */
