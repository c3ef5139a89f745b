/*
 * functions/sets.c: the standard's set functions (refarray_fn_shape.h): the four unique_*
 * in one (ra_unique) and isin, on host copies (the staged path), the results written to the
 * arrays' one device.
 */
#include "refarray_fn_shape.h"

#include "order.h"

#include <string.h>

static int cmp_flat(const void *c, size_t a, size_t b)
{
    return ra__val_cmp(ra__val_at(c, a), ra__val_at(c, b));
}

int ra_unique(ra_ctx *ctx, const ra_array *x, ra_array **values, ra_array **indices,
              ra_array **inverse, ra_array **counts)
{
    const char *fn = "unique";
    if (!ctx) return RA_E_NULL;
    if (!values) return ra__ctx_error(ctx, RA_E_NULL, "%s: values is NULL", fn);
    ra__dev *dev = NULL;
    ra__host h;
    int status = ra__staged_read(ctx, fn, &x, 1, &dev, &h);
    if (status != RA_OK) return status;
    size_t n = h.size;
    size_t *idx = ra__alloc(ctx, (n ? n : 1) * sizeof *idx);
    size_t *first = ra__alloc(ctx, (n ? n : 1) * sizeof *first); /* per unique value */
    int64_t *cnt = ra__alloc(ctx, (n ? n : 1) * sizeof *cnt);
    int64_t *inv = ra__alloc(ctx, (n ? n : 1) * sizeof *inv);
    if (!idx || !first || !cnt || !inv)
        status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    for (size_t i = 0; status == RA_OK && i < n; i++)
        idx[i] = i;
    /* Sorted stably, equal values lie together with the first occurrence first; NaNs last,
     * in the order they occur, each its own value. */
    if (status == RA_OK) status = ra__sort_idx(ctx, fn, idx, n, cmp_flat, &h);
    int64_t nu = 0;
    for (size_t k = 0; status == RA_OK && k < n; k++) {
        ra__val v = ra__val_at(&h, idx[k]);
        bool same = k > 0 && !ra__val_isnan(v) && ra__val_cmp(ra__val_at(&h, idx[k - 1]), v) == 0;
        if (!same) {
            first[nu] = idx[k];
            cnt[nu] = 0;
            nu++;
        }
        cnt[nu - 1]++;
        inv[idx[k]] = nu - 1;
    }
    ra_array *made[4] = {NULL, NULL, NULL, NULL};
    ra_array **want[4] = {values, indices, inverse, counts};
    for (int part = 0; part < 4; part++) {
        if (!want[part] || status != RA_OK) continue;
        ra__host r;
        if (part == 2)
            status = ra__host_new(ctx, fn, RA_INT64, h.ndim, h.shape, &r);
        else
            status = ra__host_new(ctx, fn, part == 0 ? h.dtype : RA_INT64, 1, &nu, &r);
        for (size_t k = 0; status == RA_OK && k < (part == 2 ? n : (size_t)nu); k++) {
            if (part == 0)
                ra__hcopy(&r, k, &h, first[k]);
            else
                ((int64_t *)r.data)[k] = part == 1   ? (int64_t)first[k]
                                         : part == 2 ? inv[k]
                                                     : cnt[k];
        }
        status = ra__host_finish(ctx, status, dev, &r, &made[part]);
    }
    for (int part = 0; part < 4; part++) {
        if (status != RA_OK)
            ra_array_release(made[part]);
        else if (want[part])
            *want[part] = made[part];
    }
    ra__free(ctx, idx);
    ra__free(ctx, first);
    ra__free(ctx, cnt);
    ra__free(ctx, inv);
    ra__host_free(ctx, &h);
    return status;
}

int ra_isin(ra_ctx *ctx, ra_operand x1, ra_operand x2, bool invert, ra_array **out)
{
    const char *fn = "isin";
    if (!ctx) return RA_E_NULL;
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    if (!x1.array && !x2.array)
        return ra__ctx_error(ctx, RA_E_SCALAR, "%s: x1 and x2 are both Python scalars", fn);
    ra_dtype dt;
    int status = ra__promote_binary(ctx, fn, x1, x2, &dt);
    if (status != RA_OK) return status;
    const ra_array *arrays[2] = {NULL, NULL};
    size_t na = 0;
    if (x1.array) arrays[na++] = x1.array;
    if (x2.array) arrays[na++] = x2.array;
    ra__dev *dev = NULL;
    ra__host hs[2], sc = RA__HOST_INIT, r = RA__HOST_INIT;
    status = ra__staged_read(ctx, fn, arrays, na, &dev, hs);
    if (status != RA_OK) return status;
    if (na == 1) status = ra__host_scalar(ctx, fn, (x1.array ? x2 : x1).scalar, dt, &sc);
    const ra__host *a = x1.array ? &hs[0] : &sc, *b = x2.array ? &hs[na - 1] : &sc;
    /* x2's elements sorted once; each of x1's is found by binary search. */
    size_t *idx = status == RA_OK ? ra__alloc(ctx, (b->size ? b->size : 1) * sizeof *idx) : NULL;
    if (status == RA_OK && !idx) status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    for (size_t k = 0; status == RA_OK && k < b->size; k++)
        idx[k] = k;
    if (status == RA_OK) status = ra__sort_idx(ctx, fn, idx, b->size, cmp_flat, b);
    if (status == RA_OK) status = ra__host_new(ctx, fn, RA_BOOL, a->ndim, a->shape, &r);
    for (size_t i = 0; status == RA_OK && i < a->size; i++) {
        ra__val v = ra__val_at(a, i);
        size_t lo = 0, hi = b->size;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (ra__val_cmp(ra__val_at(b, idx[mid]), v) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        bool found =
            !ra__val_isnan(v) && lo < b->size && ra__val_cmp(ra__val_at(b, idx[lo]), v) == 0;
        ra__hsetb(&r, i, found != invert);
    }
    ra__free(ctx, idx);
    ra__host_free(ctx, &sc);
    ra__host_free_all(ctx, hs, na);
    return ra__host_finish(ctx, status, dev, &r, out);
}
