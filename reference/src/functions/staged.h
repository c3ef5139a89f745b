/*
 * functions/staged.h: the staged path of the standard's functions (the files of functions/).
 *
 * Most of the standard's functions have no kernel on any backend. Each of them runs the same
 * way: its arrays are checked (not NULL, not sharded), their one device is found (DEV-DS-11:
 * arrays on two devices are refused, or moved under soft device mode, as for every op), each
 * is read to host memory, the function computes on the host copies, and the result is written
 * to a new array on that device (DEV-DS-10). On cpu the staging is a copy; on an OpenCL device
 * it is a read and a write. A function with a kernel does not come here.
 *
 * A host copy (ra__host) is contiguous, row-major, of one dtype. Its elements are read and
 * written through the widest type of a kind (double, int64_t, uint64_t, double complex), so
 * one loop serves every dtype; float16 goes through the core's binary16 codec.
 */
#ifndef RA_FUNCTIONS_STAGED_H
#define RA_FUNCTIONS_STAGED_H

#include "../internal.h"

#include <complex.h>
#include <stdbool.h>
#include <stdint.h>

/* C11's CMPLX, which glibc defines only for GCC: clang has the same builtin. A complex built
 * this way keeps an infinite or NaN part as given (x + I * y would not). */
#if !defined(CMPLX) && defined(__clang__)
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#endif

typedef struct ra__host {
    ra_dtype dtype;
    size_t ndim;
    int64_t shape[RA_MAX_NDIM];
    size_t size; /* elements: the product of shape */
    void *data;  /* size * ra_dtype_size(dtype) bytes (at least one allocated); owned */
} ra__host;

#define RA__HOST_INIT                                                                              \
    {                                                                                              \
        RA_DTYPE_DEFAULT, 0, {0}, 0, NULL                                                          \
    }

/* The inputs of one call. xs[0..n) must be non-NULL ordinary arrays (RA_E_NULL, RA_E_ARG for
 * a sharded one, naming fn); their device is found as every op finds it (one device; soft
 * mode's move; otherwise RA_E_DEVICE_MISMATCH naming both devices) and each is read into
 * hs[i] (n host copies the caller frees with ra__host_free_all). On error nothing is left to
 * free. */
int ra__staged_read(ra_ctx *ctx, const char *fn, const ra_array *const *xs, size_t n, ra__dev **dev,
                    ra__host *hs);

/* The start most functions share: ctx NULL is RA_E_NULL (no message: there is no context to
 * hold one), out (the caller's out-parameter) NULL is RA_E_NULL naming fn, then
 * ra__staged_read of xs[0..n). *out is not touched. */
int ra__staged_begin(ra_ctx *ctx, const char *fn, const void *out, const ra_array *const *xs,
                     size_t n, ra__dev **dev, ra__host *hs);

/* A new zeroed host result of dtype and shape (checked: RA_E_SHAPE, RA_E_TOO_LARGE, RA_E_NOMEM
 * naming fn; RA_E_NOMEM too beyond the context's max_host_bytes and max_device_bytes, the
 * larger of the two, when both are set). */
int ra__host_new(ra_ctx *ctx, const char *fn, ra_dtype dtype, size_t ndim, const int64_t *shape,
                 ra__host *h);

/* The last step: a new array on dev holding h's elements, in *out; h is freed whatever
 * happens. status is the caller's status so far: when it is not RA_OK nothing is made and it
 * is returned (the ra__array_hand_out idiom). */
int ra__host_finish(ra_ctx *ctx, int status, ra__dev *dev, ra__host *h, ra_array **out);

void ra__host_free(ra_ctx *ctx, ra__host *h);
void ra__host_free_all(ra_ctx *ctx, ra__host *hs, size_t n);

/* Element i (flat, row-major) as the widest type of a kind. A complex element read as real
 * gives its real part; a real read as complex has imaginary part 0; bool is 0 or 1. Reading a
 * float as an integer truncates toward zero (NaN gives 0, beyond the range saturates). */
double ra__hget(const ra__host *h, size_t i);
double complex ra__hgetc(const ra__host *h, size_t i);
int64_t ra__hgeti(const ra__host *h, size_t i);
uint64_t ra__hgetu(const ra__host *h, size_t i);
bool ra__hgetb(const ra__host *h, size_t i); /* nonzero (either part, for complex) */

/* Element i set from the widest type of a kind, converted to h's dtype as C converts (a
 * float stored into an integer dtype truncates toward zero, NaN gives 0, beyond the range
 * saturates; an integer stored into a narrower integer wraps, as the standard's astype leaves
 * unspecified and C's conversion to an unsigned type defines). */
void ra__hset(ra__host *h, size_t i, double v);
void ra__hsetc(ra__host *h, size_t i, double complex v);
void ra__hseti(ra__host *h, size_t i, int64_t v);
void ra__hsetu(ra__host *h, size_t i, uint64_t v);
void ra__hsetb(ra__host *h, size_t i, bool v);

/* The kind of a dtype: ra__dtype_is_float, _complex, _signed, _unsigned, _integer
 * (internal.h). */

/* The standard's broadcasting of n shapes is ra__broadcast_shapes (internal.h). */

/* The flat index in a host copy of shape (xndim, xshape) of the element that broadcasts to
 * flat index i of a result of shape (ndim, shape); xndim <= ndim, the shapes broadcast. */
size_t ra__broadcast_at(size_t i, size_t ndim, const int64_t *shape, size_t xndim,
                        const int64_t *xshape);

/* A normalised axis: axis in [-ndim, ndim) gives [0, ndim); otherwise RA_E_AXIS naming fn. */
int ra__axis(ra_ctx *ctx, const char *fn, int64_t axis, size_t ndim, size_t *out);

#endif /* RA_FUNCTIONS_STAGED_H */
