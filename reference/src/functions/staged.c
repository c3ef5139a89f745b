/*
 * functions/staged.c: the staged path of the standard's functions (staged.h): host copies of
 * the inputs, element access for every dtype, broadcasting, and the result written back to
 * the inputs' device.
 */
#include "staged.h"

#include "../backend.h"
#include "../host_kernels.h"

#include <math.h>
#include <string.h>

static size_t host_bytes(const ra__host *h)
{
    return h->size * ra_dtype_size(h->dtype);
}

void ra__host_free(ra_ctx *ctx, ra__host *h)
{
    if (!h) return;
    ra__free(ctx, h->data);
    h->data = NULL;
    h->size = 0;
}

void ra__host_free_all(ra_ctx *ctx, ra__host *hs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ra__host_free(ctx, &hs[i]);
}

int ra__host_new(ra_ctx *ctx, const char *fn, ra_dtype dtype, size_t ndim, const int64_t *shape,
                 ra__host *h)
{
    *h = (ra__host)RA__HOST_INIT;
    int64_t size = 0;
    int status = ra__shape_check(ctx, shape, ndim, &size, fn);
    if (status != RA_OK) return status;
    size_t item = ra_dtype_size(dtype);
    if (!item) return ra__ctx_error(ctx, RA_E_DTYPE, "%s: invalid dtype %d", fn, (int)dtype);
    if ((uint64_t)size > SIZE_MAX / item)
        return ra__ctx_error(ctx, RA_E_TOO_LARGE, "%s: %lld elements of %zu bytes", fn,
                             (long long)size, item);
    /* A staging buffer is held to the context's limits as the arrays are (the larger of the
     * two, since it may be bound for either kind of device; none when either is unlimited), so
     * that one oversized request is MemoryError instead of a host allocation beyond them. */
    size_t host_max = ra__ctx_max_host_bytes(ctx), dev_max = ra__ctx_max_device_bytes(ctx);
    size_t limit = host_max && dev_max ? (host_max > dev_max ? host_max : dev_max) : 0;
    if (limit && (size_t)size * item > limit)
        return ra__ctx_error(ctx, RA_E_NOMEM,
                             "%s: a staging buffer of %zu bytes exceeds the context's limit of "
                             "%zu bytes",
                             fn, (size_t)size * item, limit);
    h->data = ra__alloc(ctx, size ? (size_t)size * item : 1);
    if (!h->data) return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory for staging", fn);
    memset(h->data, 0, size ? (size_t)size * item : 1);
    h->dtype = dtype;
    h->ndim = ndim;
    if (ndim) memcpy(h->shape, shape, ndim * sizeof *shape);
    h->size = (size_t)size;
    return RA_OK;
}

int ra__staged_read(ra_ctx *ctx, const char *fn, const ra_array *const *xs, size_t n, ra__dev **dev,
                    ra__host *hs)
{
    for (size_t i = 0; i < n; i++) {
        hs[i] = (ra__host)RA__HOST_INIT;
        if (!xs[i]) return ra__ctx_error(ctx, RA_E_NULL, "%s: array argument %zu is NULL", fn, i);
        if (xs[i]->layer)
            return ra__ctx_error(ctx, RA_E_ARG, "%s: a sharded array is not supported here", fn);
    }
    if (!n) return ra__ctx_error(ctx, RA_E_ARG, "%s: no array argument", fn);
    ra_array **owned = ra__alloc(ctx, n * sizeof *owned);
    if (!owned) return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    int status = ra__common_device(ctx, fn, xs, n, dev, owned);
    if (status != RA_OK) {
        ra__free(ctx, owned);
        return status;
    }
    size_t done = 0;
    for (; status == RA_OK && done < n; done++) {
        const ra_array *x = owned[done];
        status = ra__host_new(ctx, fn, x->dtype, x->ndim, x->shape, &hs[done]);
        if (status == RA_OK && x->nbytes) status = ra_array_read(ctx, x, hs[done].data, x->nbytes);
    }
    for (size_t i = 0; i < n; i++)
        ra_array_release(owned[i]);
    ra__free(ctx, owned);
    if (status != RA_OK) ra__host_free_all(ctx, hs, done);
    return status;
}

int ra__staged_begin(ra_ctx *ctx, const char *fn, const void *out, const ra_array *const *xs,
                     size_t n, ra__dev **dev, ra__host *hs)
{
    if (!ctx) return RA_E_NULL;
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    return ra__staged_read(ctx, fn, xs, n, dev, hs);
}

int ra__host_finish(ra_ctx *ctx, int status, ra__dev *dev, ra__host *h, ra_array **out)
{
    ra_array *y = NULL;
    if (status == RA_OK) status = ra__array_new_uninit(ctx, dev, h->dtype, h->shape, h->ndim, &y);
    if (status == RA_OK && host_bytes(h)) status = ra__array_write(ctx, y, h->data);
    ra__host_free(ctx, h);
    if (status != RA_OK) {
        ra_array_release(y);
        return status;
    }
    return ra__array_hand_out(status, y, out);
}

/* ---- element access ------------------------------------------------------------------ */

double complex ra__hgetc(const ra__host *h, size_t i)
{
    const void *p = h->data;
    switch (h->dtype) {
    case RA_COMPLEX64: {
        const float *c = (const float *)p + 2 * i;
        return CMPLX((double)c[0], (double)c[1]);
    }
    case RA_COMPLEX128: {
        const double *c = (const double *)p + 2 * i;
        return CMPLX(c[0], c[1]);
    }
    default:
        return CMPLX(ra__hget(h, i), 0.0);
    }
}

double ra__hget(const ra__host *h, size_t i)
{
    const void *p = h->data;
    switch (h->dtype) {
    case RA_BOOL:
        return ((const uint8_t *)p)[i] ? 1.0 : 0.0;
    case RA_INT8:
        return ((const int8_t *)p)[i];
    case RA_INT16:
        return ((const int16_t *)p)[i];
    case RA_INT32:
        return ((const int32_t *)p)[i];
    case RA_INT64:
        return (double)((const int64_t *)p)[i];
    case RA_UINT8:
        return ((const uint8_t *)p)[i];
    case RA_UINT16:
        return ((const uint16_t *)p)[i];
    case RA_UINT32:
        return ((const uint32_t *)p)[i];
    case RA_UINT64:
        return (double)((const uint64_t *)p)[i];
    case RA_FLOAT16:
        return ra__half_to_double(((const uint16_t *)p)[i]);
    case RA_FLOAT32:
        return ((const float *)p)[i];
    case RA_FLOAT64:
        return ((const double *)p)[i];
    case RA_COMPLEX64:
        return ((const float *)p)[2 * i];
    case RA_COMPLEX128:
        return ((const double *)p)[2 * i];
    default:
        return 0.0;
    }
}

/* A double to int64 as described in staged.h: toward zero, NaN 0, saturating. */
static int64_t f_to_i(double v)
{
    if (isnan(v)) return 0;
    if (v >= 9223372036854775807.0) return INT64_MAX;
    if (v <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)v;
}

static uint64_t f_to_u(double v)
{
    if (isnan(v) || v <= 0) return 0;
    if (v >= 18446744073709551615.0) return UINT64_MAX;
    return (uint64_t)v;
}

int64_t ra__hgeti(const ra__host *h, size_t i)
{
    if (h->dtype == RA_UINT64) return (int64_t)((const uint64_t *)h->data)[i];
    if (h->dtype == RA_INT64) return ((const int64_t *)h->data)[i];
    if (ra__dtype_is_integer(h->dtype) || h->dtype == RA_BOOL) return (int64_t)ra__hget(h, i);
    return f_to_i(ra__hget(h, i));
}

uint64_t ra__hgetu(const ra__host *h, size_t i)
{
    if (h->dtype == RA_UINT64) return ((const uint64_t *)h->data)[i];
    if (ra__dtype_is_signed(h->dtype)) return (uint64_t)ra__hgeti(h, i);
    if (ra__dtype_is_unsigned(h->dtype) || h->dtype == RA_BOOL) return (uint64_t)ra__hget(h, i);
    return f_to_u(ra__hget(h, i));
}

bool ra__hgetb(const ra__host *h, size_t i)
{
    if (ra__dtype_is_complex(h->dtype)) {
        double complex c = ra__hgetc(h, i);
        return creal(c) != 0 || cimag(c) != 0;
    }
    if (h->dtype == RA_INT64 || h->dtype == RA_UINT64) return ra__hgetu(h, i) != 0;
    return ra__hget(h, i) != 0;
}

/* Stores an integer value given as int64 (signed) or uint64 (unsigned) into an integer or
 * bool slot: C's conversion (wrapping modulo 2^N through the unsigned type). */
static void store_int(ra__host *h, size_t i, uint64_t bits)
{
    void *p = h->data;
    switch (h->dtype) {
    case RA_BOOL:
        ((uint8_t *)p)[i] = bits != 0;
        break;
    case RA_INT8:
        ((int8_t *)p)[i] = (int8_t)(uint8_t)bits;
        break;
    case RA_INT16:
        ((int16_t *)p)[i] = (int16_t)(uint16_t)bits;
        break;
    case RA_INT32:
        ((int32_t *)p)[i] = (int32_t)(uint32_t)bits;
        break;
    case RA_INT64:
        ((int64_t *)p)[i] = (int64_t)bits;
        break;
    case RA_UINT8:
        ((uint8_t *)p)[i] = (uint8_t)bits;
        break;
    case RA_UINT16:
        ((uint16_t *)p)[i] = (uint16_t)bits;
        break;
    case RA_UINT32:
        ((uint32_t *)p)[i] = (uint32_t)bits;
        break;
    case RA_UINT64:
        ((uint64_t *)p)[i] = bits;
        break;
    default:
        break;
    }
}

void ra__hsetc(ra__host *h, size_t i, double complex v)
{
    void *p = h->data;
    switch (h->dtype) {
    case RA_COMPLEX64:
        ((float *)p)[2 * i] = (float)creal(v);
        ((float *)p)[2 * i + 1] = (float)cimag(v);
        break;
    case RA_COMPLEX128:
        ((double *)p)[2 * i] = creal(v);
        ((double *)p)[2 * i + 1] = cimag(v);
        break;
    case RA_BOOL:
        ((uint8_t *)p)[i] = creal(v) != 0 || cimag(v) != 0;
        break;
    default:
        ra__hset(h, i, creal(v));
        break;
    }
}

void ra__hset(ra__host *h, size_t i, double v)
{
    void *p = h->data;
    switch (h->dtype) {
    case RA_BOOL:
        ((uint8_t *)p)[i] = v != 0;
        break;
    case RA_FLOAT16:
        ((uint16_t *)p)[i] = ra__half_from_double(v);
        break;
    case RA_FLOAT32:
        ((float *)p)[i] = (float)v;
        break;
    case RA_FLOAT64:
        ((double *)p)[i] = v;
        break;
    case RA_COMPLEX64:
    case RA_COMPLEX128:
        ra__hsetc(h, i, CMPLX(v, 0.0));
        break;
    default:
        if (ra__dtype_is_unsigned(h->dtype))
            store_int(h, i, f_to_u(v));
        else
            store_int(h, i, (uint64_t)f_to_i(v));
        break;
    }
}

void ra__hseti(ra__host *h, size_t i, int64_t v)
{
    if (ra__dtype_is_integer(h->dtype) || h->dtype == RA_BOOL)
        store_int(h, i, (uint64_t)v);
    else
        ra__hset(h, i, (double)v);
}

void ra__hsetu(ra__host *h, size_t i, uint64_t v)
{
    if (ra__dtype_is_integer(h->dtype) || h->dtype == RA_BOOL)
        store_int(h, i, v);
    else
        ra__hset(h, i, (double)v);
}

void ra__hsetb(ra__host *h, size_t i, bool v)
{
    ra__hseti(h, i, v ? 1 : 0);
}

/* ---- shapes ---------------------------------------------------------------------------- */

size_t ra__broadcast_at(size_t i, size_t ndim, const int64_t *shape, size_t xndim,
                        const int64_t *xshape)
{
    size_t at = 0, stride = 1;
    for (size_t d = ndim; d-- > 0;) {
        size_t coord = (size_t)((int64_t)i % shape[d]);
        i = (size_t)((int64_t)i / shape[d]);
        size_t off = ndim - xndim;
        if (d < off) continue;
        int64_t e = xshape[d - off];
        if (e != 1) at += coord * stride;
        stride *= (size_t)e;
    }
    return at;
}

int ra__axis(ra_ctx *ctx, const char *fn, int64_t axis, size_t ndim, size_t *out)
{
    int64_t n = (int64_t)ndim;
    if (axis < -n || axis >= n)
        return ra__ctx_error(ctx, RA_E_AXIS, "%s: axis %lld is out of range for %zu dimension%s",
                             fn, (long long)axis, ndim, ndim == 1 ? "" : "s");
    *out = (size_t)(axis < 0 ? axis + n : axis);
    return RA_OK;
}
