/*
 * functions/searching.c: the standard's searching functions (refarray_fn_shape.h): argmax,
 * argmin, count_nonzero, nonzero, searchsorted and where, on host copies of their arrays
 * (the staged path, staged.h), the result written to the arrays' one device.
 */
#include "refarray_fn_shape.h"

#include "order.h"

#include <string.h>

/* The axes of a reduction as a mask over x's ndim: axes NULL is every axis. */
static int reduce_mask(ra_ctx *ctx, const char *fn, const int64_t *axes, size_t naxes, size_t ndim,
                       bool *mask)
{
    for (size_t d = 0; d < ndim; d++)
        mask[d] = axes == NULL;
    for (size_t k = 0; axes && k < naxes; k++) {
        size_t a;
        int status = ra__axis(ctx, fn, axes[k], ndim, &a);
        if (status != RA_OK) return status;
        if (mask[a]) return ra__ctx_error(ctx, RA_E_ARG, "%s: axis %zu is given twice", fn, a);
        mask[a] = true;
    }
    return RA_OK;
}

/* The result shape of a reduction over mask (kept axes, or extent 1 with keepdims), and
 * for element i of x the flat index of its result element. */
static size_t reduced_shape(size_t ndim, const int64_t *shape, const bool *mask, bool keepdims,
                            int64_t *out)
{
    size_t nd = 0;
    for (size_t d = 0; d < ndim; d++)
        if (!mask[d])
            out[nd++] = shape[d];
        else if (keepdims)
            out[nd++] = 1;
    return nd;
}

static size_t reduced_at(size_t i, size_t ndim, const int64_t *shape, const bool *mask)
{
    size_t at = 0, stride = 1;
    for (size_t d = ndim; d-- > 0;) {
        size_t coord = (size_t)((int64_t)i % shape[d]);
        i = (size_t)((int64_t)i / shape[d]);
        if (mask[d]) continue;
        at += coord * stride;
        stride *= (size_t)shape[d];
    }
    return at;
}

static int arg_extreme(ra_ctx *ctx, const char *fn, int sign, const ra_array *x,
                       const int64_t *axis, bool keepdims, ra_array **out)
{
    ra__dev *dev = NULL;
    ra__host h, r = RA__HOST_INIT;
    int status = ra__staged_begin(ctx, fn, out, &x, 1, &dev, &h);
    if (status != RA_OK) return status;
    bool mask[RA_MAX_NDIM];
    int64_t rshape[RA_MAX_NDIM];
    size_t rnd = 0;
    if (ra__dtype_is_complex(h.dtype))
        status = ra__ctx_error(ctx, RA_E_DTYPE, "%s: complex %s has no order", fn,
                               ra_dtype_name(h.dtype));
    if (status == RA_OK) status = reduce_mask(ctx, fn, axis, axis ? 1 : 0, h.ndim, mask);
    /* The reduced extent: along one axis, or every element. */
    size_t n = h.size;
    for (size_t d = 0; status == RA_OK && axis && d < h.ndim; d++)
        if (mask[d]) n = (size_t)h.shape[d];
    if (status == RA_OK && n == 0)
        status = ra__ctx_error(ctx, RA_E_EMPTY_REDUCTION, "%s: an empty array has no %s", fn,
                               sign > 0 ? "maximum" : "minimum");
    if (status == RA_OK) {
        rnd = reduced_shape(h.ndim, h.shape, mask, keepdims, rshape);
        status = ra__host_new(ctx, fn, RA_INT64, rnd, rshape, &r);
    }
    if (status == RA_OK) {
        /* best[j]: the flat index in x of result j's element so far; the count along the
         * axis is that index's coordinate. */
        size_t *best = ra__alloc(ctx, (r.size ? r.size : 1) * sizeof *best);
        bool *seen = ra__alloc(ctx, r.size ? r.size : 1);
        if (!best || !seen) status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
        if (status == RA_OK) memset(seen, 0, r.size ? r.size : 1);
        for (size_t i = 0; status == RA_OK && i < h.size; i++) {
            size_t j = reduced_at(i, h.ndim, h.shape, mask);
            if (!seen[j]) {
                seen[j] = true;
                best[j] = i;
                continue;
            }
            ra__val b = ra__val_at(&h, best[j]), v = ra__val_at(&h, i);
            if (ra__val_isnan(b)) continue; /* the first NaN stays */
            if (ra__val_isnan(v) || sign * ra__val_cmp(v, b) > 0) best[j] = i;
        }
        /* The position along the reduced axis (or in flattened x) of best[j]. */
        size_t inner = 1;
        if (axis)
            for (size_t d = h.ndim; d-- > 0 && !mask[d];)
                inner *= (size_t)h.shape[d];
        for (size_t j = 0; status == RA_OK && j < r.size; j++)
            ra__hseti(&r, j, (int64_t)(axis ? (best[j] / inner) % n : best[j]));
        ra__free(ctx, best);
        ra__free(ctx, seen);
    }
    ra__host_free(ctx, &h);
    return ra__host_finish(ctx, status, dev, &r, out);
}

int ra_argmax(ra_ctx *ctx, const ra_array *x, const int64_t *axis, bool keepdims, ra_array **out)
{
    return arg_extreme(ctx, "argmax", 1, x, axis, keepdims, out);
}

int ra_argmin(ra_ctx *ctx, const ra_array *x, const int64_t *axis, bool keepdims, ra_array **out)
{
    return arg_extreme(ctx, "argmin", -1, x, axis, keepdims, out);
}

int ra_count_nonzero(ra_ctx *ctx, const ra_array *x, const int64_t *axes, size_t naxes,
                     bool keepdims, ra_array **out)
{
    const char *fn = "count_nonzero";
    ra__dev *dev = NULL;
    ra__host h, r = RA__HOST_INIT;
    int status = ra__staged_begin(ctx, fn, out, &x, 1, &dev, &h);
    if (status != RA_OK) return status;
    bool mask[RA_MAX_NDIM];
    int64_t rshape[RA_MAX_NDIM];
    status = reduce_mask(ctx, fn, axes, naxes, h.ndim, mask);
    if (status == RA_OK)
        status = ra__host_new(ctx, fn, RA_INT64,
                              reduced_shape(h.ndim, h.shape, mask, keepdims, rshape), rshape, &r);
    for (size_t i = 0; status == RA_OK && i < h.size; i++) {
        size_t j = reduced_at(i, h.ndim, h.shape, mask);
        if (ra__hgetb(&h, i)) ((int64_t *)r.data)[j]++;
    }
    ra__host_free(ctx, &h);
    return ra__host_finish(ctx, status, dev, &r, out);
}

int ra_nonzero(ra_ctx *ctx, const ra_array *x, ra_array **outs, size_t cap, size_t *n)
{
    const char *fn = "nonzero";
    if (!ctx) return RA_E_NULL;
    if (!outs || !n) return ra__ctx_error(ctx, RA_E_NULL, "%s: outs or n is NULL", fn);
    ra__dev *dev = NULL;
    ra__host h;
    int status = ra__staged_read(ctx, fn, &x, 1, &dev, &h);
    if (status != RA_OK) return status;
    size_t nd = h.ndim;
    *n = nd;
    if (nd == 0)
        status = ra__ctx_error(ctx, RA_E_SHAPE, "%s: a 0-d array is not allowed", fn);
    else if (cap < nd)
        status = ra__ctx_error(ctx, RA_E_BUFFER, "%s: %zu results need room for %zu, not %zu", fn,
                               nd, nd, cap);
    int64_t count = 0;
    for (size_t i = 0; status == RA_OK && i < h.size; i++)
        count += ra__hgetb(&h, i);
    size_t made = 0;
    for (; status == RA_OK && made < nd; made++) {
        ra__host r;
        status = ra__host_new(ctx, fn, RA_INT64, 1, &count, &r);
        size_t k = 0;
        for (size_t i = 0; status == RA_OK && i < h.size; i++) {
            if (!ra__hgetb(&h, i)) continue;
            /* coordinate `made` of flat index i */
            size_t rest = i;
            for (size_t d = nd; d-- > made + 1;)
                rest /= (size_t)h.shape[d];
            ((int64_t *)r.data)[k++] = (int64_t)(rest % (size_t)h.shape[made]);
        }
        status = ra__host_finish(ctx, status, dev, &r, &outs[made]);
    }
    if (status != RA_OK)
        for (size_t i = 0; i + 1 < made; i++) {
            ra_array_release(outs[i]);
            outs[i] = NULL;
        }
    ra__host_free(ctx, &h);
    return status;
}

int ra_searchsorted(ra_ctx *ctx, const ra_array *x1, ra_operand x2, bool right,
                    const ra_array *sorter, ra_array **out)
{
    const char *fn = "searchsorted";
    if (!ctx) return RA_E_NULL;
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    if (!x1) return ra__ctx_error(ctx, RA_E_NULL, "%s: x1 is NULL", fn);
    ra_dtype dt;
    int status = ra__promote_binary(ctx, fn, ra_operand_array(x1), x2, &dt);
    if (status != RA_OK) return status;
    const ra_array *arrays[3] = {x1, NULL, NULL};
    size_t na = 1;
    if (x2.array) arrays[na++] = x2.array;
    size_t si = na;
    if (sorter) arrays[na++] = sorter;
    ra__dev *dev = NULL;
    ra__host hs[3], sc = RA__HOST_INIT, r = RA__HOST_INIT;
    status = ra__staged_read(ctx, fn, arrays, na, &dev, hs);
    if (status != RA_OK) return status;
    if (!x2.array) status = ra__host_scalar(ctx, fn, x2.scalar, x1->dtype, &sc);
    const ra__host *a = &hs[0], *v = x2.array ? &hs[1] : &sc, *s = sorter ? &hs[si] : NULL;
    if (status == RA_OK && a->ndim != 1)
        status = ra__ctx_error(ctx, RA_E_SHAPE, "%s: x1 must be 1-D, not %zu-D", fn, a->ndim);
    if (status == RA_OK && s && (s->ndim != 1 || s->size != a->size))
        status = ra__ctx_error(ctx, RA_E_SHAPE, "%s: sorter must be 1-D of x1's length", fn);
    if (status == RA_OK && s && !ra__dtype_is_integer(s->dtype))
        status = ra__ctx_error(ctx, RA_E_DTYPE, "%s: sorter must be an integer array", fn);
    for (size_t k = 0; status == RA_OK && s && k < s->size; k++) {
        int64_t p = ra__hgeti(s, k);
        if (p < 0 || (uint64_t)p >= a->size)
            status = ra__ctx_error(ctx, RA_E_AXIS, "%s: sorter[%zu] is %lld, out of range", fn, k,
                                   (long long)p);
    }
    if (status == RA_OK) status = ra__host_new(ctx, fn, RA_INT64, v->ndim, v->shape, &r);
    for (size_t k = 0; status == RA_OK && k < v->size; k++) {
        ra__val key = ra__val_at(v, k);
        size_t lo = 0, hi = a->size;
        while (lo < hi) { /* binary search for the first position whose element is > key
                           * (right) or >= key (left) */
            size_t mid = lo + (hi - lo) / 2;
            size_t at = s ? (size_t)ra__hgeti(s, mid) : mid;
            int c = ra__val_cmp(ra__val_at(a, at), key);
            if (c < 0 || (right && c == 0))
                lo = mid + 1;
            else
                hi = mid;
        }
        ((int64_t *)r.data)[k] = (int64_t)lo;
    }
    ra__host_free(ctx, &sc);
    ra__host_free_all(ctx, hs, na);
    return ra__host_finish(ctx, status, dev, &r, out);
}

int ra_where(ra_ctx *ctx, const ra_array *condition, ra_operand x1, ra_operand x2, ra_array **out)
{
    const char *fn = "where";
    if (!ctx) return RA_E_NULL;
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    if (!condition) return ra__ctx_error(ctx, RA_E_NULL, "%s: condition is NULL", fn);
    if (!x1.array && !x2.array)
        return ra__ctx_error(ctx, RA_E_SCALAR, "%s: x1 and x2 are both Python scalars", fn);
    ra_dtype dt;
    int status = ra__promote_binary(ctx, fn, x1, x2, &dt);
    if (status != RA_OK) return status;
    const ra_array *arrays[3] = {condition, NULL, NULL};
    size_t na = 1;
    if (x1.array) arrays[na++] = x1.array;
    if (x2.array) arrays[na++] = x2.array;
    ra__dev *dev = NULL;
    ra__host hs[3], sc = RA__HOST_INIT, r = RA__HOST_INIT;
    status = ra__staged_read(ctx, fn, arrays, na, &dev, hs);
    if (status != RA_OK) return status;
    if (!x1.array || !x2.array)
        status = ra__host_scalar(ctx, fn, (x1.array ? x2 : x1).scalar, dt, &sc);
    const ra__host *c = &hs[0];
    const ra__host *a = x1.array ? &hs[1] : &sc;
    const ra__host *b = x2.array ? &hs[x1.array ? 2 : 1] : &sc;
    if (status == RA_OK && c->dtype != RA_BOOL)
        status = ra__ctx_error(ctx, RA_E_DTYPE, "%s: condition must be bool, not %s", fn,
                               ra_dtype_name(c->dtype));
    size_t nd = 0;
    int64_t shape[RA_MAX_NDIM];
    const size_t ndims[3] = {c->ndim, a->ndim, b->ndim};
    const int64_t *shapes[3] = {c->shape, a->shape, b->shape};
    if (status == RA_OK) status = ra__broadcast_shapes(ctx, fn, 3, ndims, shapes, &nd, shape);
    if (status == RA_OK) status = ra__host_new(ctx, fn, dt, nd, shape, &r);
    for (size_t i = 0; status == RA_OK && i < r.size; i++) {
        bool t = ra__hgetb(c, ra__broadcast_at(i, nd, shape, c->ndim, c->shape));
        const ra__host *src = t ? a : b;
        size_t at = ra__broadcast_at(i, nd, shape, src->ndim, src->shape);
        ra__hcopy(&r, i, src, at);
    }
    ra__host_free(ctx, &sc);
    ra__host_free_all(ctx, hs, na);
    return ra__host_finish(ctx, status, dev, &r, out);
}
