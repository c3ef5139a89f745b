/*
 * functions/indexing.c: the standard's take and take_along_axis, and indexing (x[key],
 * x[key] = value: ra_getitem, ra_setitem), on host copies (the staged path, staged.h). Every
 * index array is read with x, so it must be on x's device (DEV-DS-11). A key is resolved to
 * the list of x's flat positions it selects, in the result's row-major order, with the
 * result's shape; getitem copies those elements into a new array on x's device, setitem
 * writes the value there and x's data back to x.
 */
#include "refarray_fn_shape.h"

#include "order.h"

#include <string.h>

/* An index value i normalised against extent n (negative from the end), else RA_E_AXIS. */
static int norm_index(ra_ctx *ctx, const char *fn, int64_t i, int64_t n, size_t axis, int64_t *out)
{
    if (i < -n || i >= n)
        return ra__ctx_error(ctx, RA_E_AXIS,
                             "%s: index %lld is out of bounds for axis %zu with size %lld", fn,
                             (long long)i, axis, (long long)n);
    *out = i < 0 ? i + n : i;
    return RA_OK;
}

/* The start take and take_along_axis share: out checked, x and indices read onto the host
 * (hs[0] and hs[1], *dev their device), indices of an integer dtype. On error nothing is
 * held and *out is untouched. */
static int read_with_indices(ra_ctx *ctx, const char *fn, const ra_array *x,
                             const ra_array *indices, ra_array **out, ra__dev **dev, ra__host *hs)
{
    const ra_array *xs[2] = {x, indices};
    int status = ra__staged_begin(ctx, fn, out, xs, 2, dev, hs);
    if (status == RA_OK && !ra__dtype_is_integer(hs[1].dtype)) {
        status = ra__ctx_error(ctx, RA_E_DTYPE, "%s: indices must be integers, not %s", fn,
                               ra_dtype_name(hs[1].dtype));
        ra__host_free_all(ctx, hs, 2);
    }
    return status;
}

int ra_take(ra_ctx *ctx, const ra_array *x, const ra_array *indices, const int64_t *axis,
            ra_array **out)
{
    const char *fn = "take";
    ra__dev *dev = NULL;
    ra__host hs[2], r = RA__HOST_INIT;
    int status = read_with_indices(ctx, fn, x, indices, out, &dev, hs);
    if (status != RA_OK) return status;
    ra__host *h = &hs[0], *ix = &hs[1];
    size_t ax = 0;
    if (ix->ndim != 1)
        status = ra__ctx_error(ctx, RA_E_SHAPE, "%s: indices must be 1-D", fn);
    else if (!axis && h->ndim != 1)
        status = ra__ctx_error(ctx, RA_E_SHAPE, "%s: axis is needed for a %zu-D x", fn, h->ndim);
    else if (axis)
        status = h->ndim ? ra__axis(ctx, fn, *axis, h->ndim, &ax)
                         : ra__ctx_error(ctx, RA_E_AXIS, "%s: x is 0-d", fn);
    int64_t shape[RA_MAX_NDIM];
    if (status == RA_OK) {
        memcpy(shape, h->shape, h->ndim * sizeof *shape);
        shape[ax] = (int64_t)ix->size;
        status = ra__host_new(ctx, fn, h->dtype, h->ndim, shape, &r);
    }
    size_t inner =
        status == RA_OK ? (size_t)ra__shape_size(h->shape + ax + 1, h->ndim - ax - 1) : 0;
    size_t outer = status == RA_OK ? (size_t)ra__shape_size(h->shape, ax) : 0, at = 0;
    size_t len = status == RA_OK ? (size_t)h->shape[ax] : 0, item = ra_dtype_size(h->dtype);
    for (size_t o = 0; status == RA_OK && o < outer; o++)
        for (size_t k = 0; status == RA_OK && k < ix->size; k++, at += inner) {
            int64_t p = 0;
            status = norm_index(ctx, fn, ra__hgeti(ix, k), (int64_t)len, ax, &p);
            if (status == RA_OK)
                memcpy(ra__hat(&r, at), ra__hat(h, (o * len + (size_t)p) * inner), inner * item);
        }
    ra__host_free_all(ctx, hs, 2);
    return ra__host_finish(ctx, status, dev, &r, out);
}

int ra_take_along_axis(ra_ctx *ctx, const ra_array *x, const ra_array *indices, int64_t axis,
                       ra_array **out)
{
    const char *fn = "take_along_axis";
    ra__dev *dev = NULL;
    ra__host hs[2], r = RA__HOST_INIT;
    int status = read_with_indices(ctx, fn, x, indices, out, &dev, hs);
    if (status != RA_OK) return status;
    ra__host *h = &hs[0], *ix = &hs[1];
    size_t ax = 0, nd = 0;
    int64_t shape[RA_MAX_NDIM];
    if (ix->ndim != h->ndim || h->ndim == 0)
        status = ra__ctx_error(ctx, RA_E_SHAPE, "%s: indices must have x's ndim (%zu), not %zu", fn,
                               h->ndim, ix->ndim);
    if (status == RA_OK) status = ra__axis(ctx, fn, axis, h->ndim, &ax);
    if (status == RA_OK) {
        /* the other axes broadcast; the axis takes indices' extent */
        int64_t xs_[RA_MAX_NDIM], is_[RA_MAX_NDIM];
        memcpy(xs_, h->shape, h->ndim * sizeof *xs_);
        memcpy(is_, ix->shape, ix->ndim * sizeof *is_);
        xs_[ax] = is_[ax] = 1;
        const size_t nds[2] = {h->ndim, ix->ndim};
        const int64_t *shs[2] = {xs_, is_};
        status = ra__broadcast_shapes(ctx, fn, 2, nds, shs, &nd, shape);
        shape[ax] = ix->shape[ax];
    }
    if (status == RA_OK) status = ra__host_new(ctx, fn, h->dtype, nd, shape, &r);
    int64_t c[RA_MAX_NDIM];
    for (size_t i = 0; status == RA_OK && i < r.size; i++) {
        size_t rest = i;
        for (size_t d = nd; d-- > 0;) {
            c[d] = (int64_t)(rest % (size_t)shape[d]);
            rest /= (size_t)shape[d];
        }
        /* indices' element: its coordinates, 0 where its extent is 1 */
        size_t ia = 0, xa = 0;
        for (size_t d = 0; d < nd; d++)
            ia = ia * (size_t)ix->shape[d] + (size_t)(ix->shape[d] == 1 ? 0 : c[d]);
        int64_t p = 0;
        status = norm_index(ctx, fn, ra__hgeti(ix, ia), h->shape[ax], ax, &p);
        for (size_t d = 0; status == RA_OK && d < nd; d++)
            xa = xa * (size_t)h->shape[d] + (size_t)(d == ax ? p : h->shape[d] == 1 ? 0 : c[d]);
        if (status == RA_OK) ra__hcopy(&r, i, h, xa);
    }
    ra__host_free_all(ctx, hs, 2);
    return ra__host_finish(ctx, status, dev, &r, out);
}

/* ---- x[key] ------------------------------------------------------------------------------ */

/* A resolved key: the flat positions in x, in the result's order, and the result's shape. */
typedef struct selection {
    size_t *at;
    size_t n;
    size_t ndim;
    int64_t shape[RA_MAX_NDIM];
} selection;

/* Basic indexing: integers, slices, one ellipsis, None. */
static int select_basic(ra_ctx *ctx, const char *fn, const ra__host *h, const ra_index *idx,
                        size_t n, selection *sel)
{
    size_t used = 0, ell = 0;
    for (size_t k = 0; k < n; k++) {
        if (idx[k].kind == RA_INDEX_ELLIPSIS) ell++;
        if (idx[k].kind == RA_INDEX_INT || idx[k].kind == RA_INDEX_SLICE) used++;
    }
    if (ell > 1) return ra__ctx_error(ctx, RA_E_ARG, "%s: an index has one ellipsis at most", fn);
    if (used > h->ndim)
        return ra__ctx_error(ctx, RA_E_ARG, "%s: %zu indices for %zu dimensions", fn, used,
                             h->ndim);
    /* per result axis: extent and stride in x (flat), and the base offset */
    int64_t rstride[RA_MAX_NDIM], xstride[RA_MAX_NDIM];
    size_t base = 0, nd = 0, ax = 0;
    for (size_t d = h->ndim, s = 1; d-- > 0;) {
        xstride[d] = (int64_t)s;
        s *= (size_t)h->shape[d];
    }
    for (size_t k = 0; k <= n; k++) {
        if (k == n || idx[k].kind == RA_INDEX_ELLIPSIS) {
            /* the ellipsis (or the end) takes the axes the other indices leave */
            size_t take = k == n ? h->ndim - ax : h->ndim - used;
            for (size_t t = 0; t < take; t++, ax++) {
                if (nd >= RA_MAX_NDIM) goto too_many;
                sel->shape[nd] = h->shape[ax];
                rstride[nd++] = xstride[ax];
            }
            if (k < n) used = ax; /* from here the count of axes taken is exact */
            continue;
        }
        const ra_index *e = &idx[k];
        if (e->kind == RA_INDEX_NEWAXIS) {
            if (nd >= RA_MAX_NDIM) goto too_many;
            sel->shape[nd] = 1;
            rstride[nd++] = 0;
        } else if (e->kind == RA_INDEX_INT) {
            int64_t p = 0;
            int status = norm_index(ctx, fn, e->i, h->shape[ax], ax, &p);
            if (status != RA_OK) return status;
            base += (size_t)p * (size_t)xstride[ax++];
        } else if (e->kind == RA_INDEX_SLICE) {
            int64_t len = h->shape[ax], step = e->has_step ? e->step : 1, start, stop, count;
            if (step == 0) return ra__ctx_error(ctx, RA_E_ARG, "%s: a slice step is 0", fn);
            /* Python's slice.indices */
            int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? len : len - 1;
            start = e->has_start ? e->start : (step > 0 ? lo : hi);
            stop = e->has_stop ? e->stop : (step > 0 ? hi : lo);
            if (e->has_start)
                start =
                    start < 0 ? (start + len < lo ? lo : start + len) : (start > hi ? hi : start);
            if (e->has_stop)
                stop = stop < 0 ? (stop + len < lo ? lo : stop + len) : (stop > hi ? hi : stop);
            count = step > 0 ? (stop > start ? (stop - start + step - 1) / step : 0)
                             : (start > stop ? (start - stop - step - 1) / -step : 0);
            if (nd >= RA_MAX_NDIM) goto too_many;
            if (count) base += (size_t)start * (size_t)xstride[ax];
            sel->shape[nd] = count;
            rstride[nd++] = step * xstride[ax++];
        } else {
            return ra__ctx_error(ctx, RA_E_ARG, "%s: an array index with other indices", fn);
        }
    }
    sel->ndim = nd;
    sel->n = (size_t)ra__shape_size(sel->shape, nd);
    sel->at = ra__alloc(ctx, (sel->n ? sel->n : 1) * sizeof *sel->at);
    if (!sel->at) return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    for (size_t i = 0; i < sel->n; i++) {
        size_t rest = i;
        int64_t at = (int64_t)base;
        for (size_t d = nd; d-- > 0;) {
            at += (int64_t)(rest % (size_t)sel->shape[d]) * rstride[d];
            rest /= (size_t)sel->shape[d];
        }
        sel->at[i] = (size_t)at;
    }
    return RA_OK;
too_many:
    return ra__ctx_error(ctx, RA_E_ARG, "%s: the result has more than %d dimensions", fn,
                         RA_MAX_NDIM);
}

/* A boolean mask m over x's leading m.ndim axes: the positions where it is true (row-major),
 * each followed by the trailing axes whole. */
static int select_mask(ra_ctx *ctx, const char *fn, const ra__host *h, const ra__host *m,
                       selection *sel)
{
    if (m->ndim > h->ndim || memcmp(m->shape, h->shape, m->ndim * sizeof *m->shape))
        return ra__ctx_error(ctx, RA_E_SHAPE, "%s: a mask's shape must be x's leading shape", fn);
    size_t inner = (size_t)ra__shape_size(h->shape + m->ndim, h->ndim - m->ndim), count = 0;
    for (size_t i = 0; i < m->size; i++)
        count += ra__hgetb(m, i);
    sel->ndim = 1 + h->ndim - m->ndim;
    sel->shape[0] = (int64_t)count;
    memcpy(sel->shape + 1, h->shape + m->ndim, (h->ndim - m->ndim) * sizeof *h->shape);
    sel->n = count * inner;
    sel->at = ra__alloc(ctx, (sel->n ? sel->n : 1) * sizeof *sel->at);
    if (!sel->at) return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    for (size_t i = 0, k = 0; i < m->size; i++)
        if (ra__hgetb(m, i))
            for (size_t e = 0; e < inner; e++)
                sel->at[k++] = i * inner + e;
    return RA_OK;
}

/* Integers and integer arrays, one per leading axis, broadcast together; hs[k] is idx[k]'s
 * host copy when it is an array. */
static int select_ints(ra_ctx *ctx, const char *fn, const ra__host *h, const ra_index *idx,
                       size_t n, const ra__host *const *ih, selection *sel)
{
    if (n > h->ndim)
        return ra__ctx_error(ctx, RA_E_ARG, "%s: %zu indices for %zu dimensions", fn, n, h->ndim);
    size_t nds[RA_MAX_NDIM];
    const int64_t *shs[RA_MAX_NDIM];
    for (size_t k = 0; k < n; k++) {
        nds[k] = ih[k] ? ih[k]->ndim : 0;
        shs[k] = ih[k] ? ih[k]->shape : NULL;
        if (ih[k] && !ra__dtype_is_integer(ih[k]->dtype))
            return ra__ctx_error(ctx, RA_E_DTYPE, "%s: an index array of %s", fn,
                                 ra_dtype_name(ih[k]->dtype));
    }
    size_t bnd = 0;
    int64_t bshape[RA_MAX_NDIM];
    int status = ra__broadcast_shapes(ctx, fn, n, nds, shs, &bnd, bshape);
    if (status != RA_OK) return status;
    if (bnd + h->ndim - n > RA_MAX_NDIM)
        return ra__ctx_error(ctx, RA_E_ARG, "%s: too many dimensions", fn);
    size_t inner = (size_t)ra__shape_size(h->shape + n, h->ndim - n);
    size_t count = (size_t)ra__shape_size(bshape, bnd);
    sel->ndim = bnd + h->ndim - n;
    memcpy(sel->shape, bshape, bnd * sizeof *bshape);
    memcpy(sel->shape + bnd, h->shape + n, (h->ndim - n) * sizeof *h->shape);
    sel->n = count * inner;
    sel->at = ra__alloc(ctx, (sel->n ? sel->n : 1) * sizeof *sel->at);
    if (!sel->at) return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    for (size_t i = 0; i < count; i++) {
        size_t lead = 0;
        for (size_t k = 0; k < n; k++) {
            int64_t v = ih[k] ? ra__hgeti(ih[k], ra__broadcast_at(i, bnd, bshape, nds[k], shs[k]))
                              : idx[k].i;
            int64_t p = 0;
            status = norm_index(ctx, fn, v, h->shape[k], k, &p);
            if (status != RA_OK) return status;
            lead = lead * (size_t)h->shape[k] + (size_t)p;
        }
        for (size_t e = 0; e < inner; e++)
            sel->at[i * inner + e] = lead * inner + e;
    }
    return RA_OK;
}

/* Reads x (and every index array, and value when it is an array) and resolves the key. */
static int resolve(ra_ctx *ctx, const char *fn, const ra_array *x, const ra_index *idx, size_t n,
                   const ra_array *value, ra__dev **dev, ra__host *hs, size_t *nh, selection *sel)
{
    const ra_array *arrays[RA_MAX_NDIM + 2];
    size_t pos[RA_MAX_NDIM + 2]; /* hs position of idx[k]'s array */
    size_t na = 0, narr = 0, nbool = 0, nother = 0;
    if (n && !idx) return ra__ctx_error(ctx, RA_E_NULL, "%s: the key is NULL", fn);
    if (n > RA_MAX_NDIM) return ra__ctx_error(ctx, RA_E_ARG, "%s: %zu indices", fn, n);
    arrays[na++] = x;
    for (size_t k = 0; k < n; k++) {
        if (idx[k].kind < RA_INDEX_INT || idx[k].kind > RA_INDEX_ARRAY)
            return ra__ctx_error(ctx, RA_E_ARG, "%s: index %zu has kind %d", fn, k,
                                 (int)idx[k].kind);
        if (idx[k].kind != RA_INDEX_ARRAY) continue;
        if (!idx[k].array) return ra__ctx_error(ctx, RA_E_NULL, "%s: index %zu is NULL", fn, k);
        pos[k] = na;
        arrays[na++] = idx[k].array;
        narr++;
    }
    if (value) arrays[na++] = value;
    int status = ra__staged_read(ctx, fn, arrays, na, dev, hs);
    if (status != RA_OK) return status;
    *nh = na;
    *sel = (selection){NULL, 0, 0, {0}};
    if (narr == 0) return select_basic(ctx, fn, &hs[0], idx, n, sel);
    for (size_t k = 0; k < n; k++) {
        if (idx[k].kind == RA_INDEX_ARRAY && hs[pos[k]].dtype == RA_BOOL) nbool++;
        if (idx[k].kind != RA_INDEX_ARRAY && idx[k].kind != RA_INDEX_INT) nother++;
    }
    if (nbool) {
        /* the mask, alone or with an ellipsis and full slices after it */
        size_t m = SIZE_MAX;
        bool ok = nbool == 1;
        for (size_t k = 0; ok && k < n; k++) {
            if (idx[k].kind == RA_INDEX_ARRAY)
                m = k;
            else
                ok = m != SIZE_MAX && (idx[k].kind == RA_INDEX_ELLIPSIS ||
                                       (idx[k].kind == RA_INDEX_SLICE && !idx[k].has_start &&
                                        !idx[k].has_stop && !idx[k].has_step));
        }
        if (ok && m == 0) return select_mask(ctx, fn, &hs[0], &hs[pos[m]], sel);
        return ra__ctx_error(ctx, RA_E_ARG,
                             "%s: a boolean index must be the only index (refarray takes it "
                             "first, followed only by an ellipsis or full slices)",
                             fn);
    }
    if (nother)
        return ra__ctx_error(ctx, RA_E_ARG,
                             "%s: integer array indices mix only with integers (the standard's "
                             "integer array indexing)",
                             fn);
    const ra__host *ih[RA_MAX_NDIM];
    for (size_t k = 0; k < n; k++)
        ih[k] = idx[k].kind == RA_INDEX_ARRAY ? &hs[pos[k]] : NULL;
    return select_ints(ctx, fn, &hs[0], idx, n, ih, sel);
}

int ra_getitem(ra_ctx *ctx, const ra_array *x, const ra_index *idx, size_t n, ra_array **out)
{
    const char *fn = "__getitem__";
    if (!ctx) return RA_E_NULL;
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    ra__dev *dev = NULL;
    ra__host hs[RA_MAX_NDIM + 2], r = RA__HOST_INIT;
    size_t nh = 0;
    selection sel = {NULL, 0, 0, {0}};
    int status = resolve(ctx, fn, x, idx, n, NULL, &dev, hs, &nh, &sel);
    if (status == RA_OK) status = ra__host_new(ctx, fn, hs[0].dtype, sel.ndim, sel.shape, &r);
    size_t item = nh ? ra_dtype_size(hs[0].dtype) : 0;
    for (size_t i = 0; status == RA_OK && i < sel.n; i++)
        memcpy(ra__hat(&r, i), (char *)hs[0].data + sel.at[i] * item, item);
    ra__free(ctx, sel.at);
    ra__host_free_all(ctx, hs, nh);
    if (status != RA_OK && !dev) return status;
    return ra__host_finish(ctx, status, dev, &r, out);
}

int ra_setitem(ra_ctx *ctx, ra_array *x, const ra_index *idx, size_t n, ra_operand value)
{
    const char *fn = "__setitem__";
    if (!ctx) return RA_E_NULL;
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", fn);
    ra__dev *dev = NULL;
    ra__host hs[RA_MAX_NDIM + 2], sc = RA__HOST_INIT;
    size_t nh = 0;
    selection sel = {NULL, 0, 0, {0}};
    int status = RA_OK;
    if (value.array) {
        ra_dtype j = ra__promote_join(ctx, x->dtype, value.array->dtype);
        if (j != x->dtype)
            status = ra__ctx_error(ctx, RA_E_DTYPE,
                                   "%s: a %s value cannot be stored in a %s array without "
                                   "changing its dtype",
                                   fn, ra_dtype_name(value.array->dtype), ra_dtype_name(x->dtype));
    } else {
        status = ra__host_scalar(ctx, fn, value.scalar, x->dtype, &sc);
    }
    if (status == RA_OK) status = resolve(ctx, fn, x, idx, n, value.array, &dev, hs, &nh, &sel);
    const ra__host *v = value.array && nh ? &hs[nh - 1] : &sc;
    if (status == RA_OK) {
        const size_t nds[2] = {sel.ndim, v->ndim};
        const int64_t *shs[2] = {sel.shape, v->shape};
        size_t bnd;
        int64_t bshape[RA_MAX_NDIM];
        status = ra__broadcast_shapes(ctx, fn, 2, nds, shs, &bnd, bshape);
        if (status == RA_OK && (bnd != sel.ndim || memcmp(bshape, sel.shape, bnd * sizeof *bshape)))
            status = ra__ctx_error(ctx, RA_E_BROADCAST,
                                   "%s: the value does not broadcast to the selection's shape", fn);
    }
    for (size_t i = 0; status == RA_OK && i < sel.n; i++)
        ra__hcopy(&hs[0], sel.at[i], v,
                  ra__broadcast_at(i, sel.ndim, sel.shape, v->ndim, v->shape));
    if (status == RA_OK && x->nbytes) status = ra__array_write(ctx, x, hs[0].data);
    ra__free(ctx, sel.at);
    ra__host_free(ctx, &sc);
    ra__host_free_all(ctx, hs, nh);
    return status;
}
