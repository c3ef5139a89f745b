/*
 * functions/elementwise.c: the elementwise functions of refarray_fn_elementwise.h that are not
 * one of ra_math_unary's or ra_math_binary's (functions/math.c): clip. Staged (staged.h).
 */
#include "staged.h"

#include <math.h>
#include <refarray_fn_elementwise.h>

/* A bound of clip: absent (NULL or kind NONE), an array, or a Python scalar converted to x's
 * dtype (API-PROM-3, checked for kind and range). */
static int bound_host(ra_ctx *ctx, const ra_operand *o, ra_dtype dt, ra__host *h)
{
    int status = ra__host_new(ctx, "clip", dt, 0, NULL, h);
    if (status == RA_OK) status = ra__promote_scalar_element(ctx, o->scalar, dt, h->data, "clip");
    if (status != RA_OK) ra__host_free(ctx, h);
    return status;
}

/* One element of x clipped to [lo, hi] (either bound may be absent), in x's kind. NaN in x or
 * in a bound gives NaN (the standard's special cases). */
static void clip_at(const ra__host *x, size_t ix, const ra__host *lo, size_t il, const ra__host *hi,
                    size_t ih, ra__host *y, size_t i)
{
    if (ra__dtype_is_float(x->dtype)) {
        double v = ra__hget(x, ix);
        double l = lo ? ra__hget(lo, il) : -INFINITY, h = hi ? ra__hget(hi, ih) : INFINITY;
        if (isnan(l) || isnan(h)) v = NAN;
        if (v < l) v = l;
        if (v > h) v = h;
        ra__hset(y, i, v);
    } else if (ra__dtype_is_unsigned(x->dtype)) {
        uint64_t v = ra__hgetu(x, ix);
        if (lo && ra__dtype_is_signed(lo->dtype) && ra__hgeti(lo, il) < 0) lo = NULL;
        if (lo && v < ra__hgetu(lo, il)) v = ra__hgetu(lo, il);
        if (hi && ra__dtype_is_signed(hi->dtype) && ra__hgeti(hi, ih) < 0)
            v = 0; /* below every unsigned value: the standard leaves it open */
        else if (hi && v > ra__hgetu(hi, ih))
            v = ra__hgetu(hi, ih);
        ra__hsetu(y, i, v);
    } else {
        int64_t v = ra__hgeti(x, ix);
        if (lo && v < ra__hgeti(lo, il)) v = ra__hgeti(lo, il);
        if (hi && v > ra__hgeti(hi, ih)) v = ra__hgeti(hi, ih);
        ra__hseti(y, i, v);
    }
}

int ra_clip(ra_ctx *ctx, const ra_array *x, const ra_operand *min, const ra_operand *max,
            ra_array **out)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "clip: ctx is NULL");
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "clip: out is NULL");
    *out = NULL;
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "clip: x is NULL");
    if (x->dtype == RA_BOOL || ra__dtype_is_complex(x->dtype))
        return ra__ctx_error(ctx, RA_E_DTYPE, "clip: defined for real numeric dtypes, not %s",
                             ra_dtype_name(x->dtype));
    const ra_operand *bounds[2] = {min, max};
    const ra_array *xs[3] = {x, NULL, NULL};
    size_t n = 1;
    for (int k = 0; k < 2; k++) {
        const ra_operand *b = bounds[k];
        if (!b) continue;
        if (b->array) {
            ra_dtype d = b->array->dtype;
            bool same_kind = ra__dtype_is_float(d) == ra__dtype_is_float(x->dtype) &&
                             d != RA_BOOL && !ra__dtype_is_complex(d);
            if (!same_kind)
                return ra__ctx_error(ctx, RA_E_DTYPE, "clip: %s is %s, of another kind than x (%s)",
                                     k ? "max" : "min", ra_dtype_name(d), ra_dtype_name(x->dtype));
            xs[n++] = b->array;
        }
    }
    ra__dev *dev = NULL;
    ra__host read[3], h[3] = {RA__HOST_INIT, RA__HOST_INIT, RA__HOST_INIT}, hy = RA__HOST_INIT;
    int status = ra__staged_read(ctx, "clip", xs, n, &dev, read);
    if (status != RA_OK) return status;
    h[0] = read[0];
    size_t r = 1;
    bool have[2] = {false, false};
    for (int k = 0; k < 2; k++) {
        const ra_operand *b = bounds[k];
        if (!b) continue;
        have[k] = true;
        if (b->array)
            h[k + 1] = read[r++];
        else if (status == RA_OK)
            status = bound_host(ctx, b, x->dtype, &h[k + 1]);
    }
    size_t ndim = 0;
    int64_t shape[RA_MAX_NDIM];
    if (status == RA_OK) {
        size_t ndims[3];
        const int64_t *shapes[3];
        size_t m = 0;
        for (int k = 0; k < 3; k++)
            if (k == 0 || have[k - 1]) ndims[m] = h[k].ndim, shapes[m++] = h[k].shape;
        status = ra__broadcast_shapes(ctx, "clip", m, ndims, shapes, &ndim, shape);
    }
    if (status == RA_OK) status = ra__host_new(ctx, "clip", x->dtype, ndim, shape, &hy);
    for (size_t i = 0; status == RA_OK && i < hy.size; i++) {
        size_t at[3];
        for (int k = 0; k < 3; k++)
            at[k] = (k == 0 || have[k - 1])
                        ? ra__broadcast_at(i, ndim, shape, h[k].ndim, h[k].shape)
                        : 0;
        clip_at(&h[0], at[0], have[0] ? &h[1] : NULL, at[1], have[1] ? &h[2] : NULL, at[2], &hy, i);
    }
    ra__host_free_all(ctx, h, 3);
    return ra__host_finish(ctx, status, dev, &hy, out);
}
