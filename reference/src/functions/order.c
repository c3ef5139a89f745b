/*
 * functions/order.c: the order of elements of the searching, sorting and set functions
 * (order.h) and a stable sort of indices.
 */
#include "order.h"

#include <math.h>
#include <string.h>

ra__val ra__val_at(const ra__host *h, size_t i)
{
    ra__val v = {0, 0, 0, 0.0, 0.0};
    if (ra__dtype_is_complex(h->dtype)) {
        double complex c = ra__hgetc(h, i);
        v.kind = 3;
        v.re = creal(c);
        v.im = cimag(c);
    } else if (ra__dtype_is_float(h->dtype)) {
        v.kind = 2;
        v.re = ra__hget(h, i);
    } else if (ra__dtype_is_unsigned(h->dtype)) {
        v.kind = 1;
        v.u = ra__hgetu(h, i);
    } else {
        v.i = ra__hgeti(h, i);
    }
    return v;
}

bool ra__val_isnan(ra__val a)
{
    return a.kind >= 2 && (isnan(a.re) || isnan(a.im));
}

static int cmp_real(double a, double b)
{
    bool na = isnan(a), nb = isnan(b);
    if (na || nb) return na == nb ? 0 : na ? 1 : -1;
    return a < b ? -1 : a > b ? 1 : 0;
}

static double as_double(ra__val a)
{
    return a.kind == 0 ? (double)a.i : a.kind == 1 ? (double)a.u : a.re;
}

int ra__val_cmp(ra__val a, ra__val b)
{
    if (a.kind <= 1 && b.kind <= 1) {
        if (a.kind == b.kind)
            return a.kind == 0 ? (a.i > b.i) - (a.i < b.i) : (a.u > b.u) - (a.u < b.u);
        /* signed against unsigned: a negative value is below every unsigned one */
        if (a.kind == 0) return a.i < 0 ? -1 : ((uint64_t)a.i > b.u) - ((uint64_t)a.i < b.u);
        return b.i < 0 ? 1 : (a.u > (uint64_t)b.i) - (a.u < (uint64_t)b.i);
    }
    if (a.kind == 3 || b.kind == 3) {
        bool na = ra__val_isnan(a), nb = ra__val_isnan(b);
        if (na || nb) return na == nb ? 0 : na ? 1 : -1;
        double ar = as_double(a), br = as_double(b);
        double ai = a.kind == 3 ? a.im : 0.0, bi = b.kind == 3 ? b.im : 0.0;
        int c = cmp_real(ar, br);
        return c ? c : cmp_real(ai, bi);
    }
    return cmp_real(as_double(a), as_double(b));
}

int ra__sort_idx(ra_ctx *ctx, const char *fn, size_t *idx, size_t n, ra__idx_cmp cmp, const void *c)
{
    if (n < 2) return RA_OK;
    size_t *tmp = ra__alloc(ctx, n * sizeof *tmp);
    if (!tmp) return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory for sorting", fn);
    /* Bottom-up merge sort: runs of width w merged into runs of 2w; a tie takes the left
     * run's element first, so equal elements keep their order (stable). */
    size_t *src = idx, *dst = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi)
                dst[k++] = cmp(c, src[b], src[a]) < 0 ? src[b++] : src[a++];
            while (a < mid)
                dst[k++] = src[a++];
            while (b < hi)
                dst[k++] = src[b++];
        }
        size_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != idx) memcpy(idx, src, n * sizeof *idx);
    ra__free(ctx, tmp);
    return RA_OK;
}

int ra__host_scalar(ra_ctx *ctx, const char *fn, ra_scalar s, ra_dtype dtype, ra__host *h)
{
    int status = ra__host_new(ctx, fn, dtype, 0, NULL, h);
    if (status == RA_OK) status = ra__promote_scalar_element(ctx, s, dtype, h->data, fn);
    if (status != RA_OK) ra__host_free(ctx, h);
    return status;
}

void ra__hcopy(ra__host *dst, size_t i, const ra__host *src, size_t j)
{
    ra_dtype dt = dst->dtype;
    if (src->dtype == dt)
        memcpy(ra__hat(dst, i), ra__hat(src, j), ra_dtype_size(dt));
    else if (ra__dtype_is_complex(dt))
        ra__hsetc(dst, i, ra__hgetc(src, j));
    else if (ra__dtype_is_float(dt))
        ra__hset(dst, i, ra__hget(src, j));
    else if (ra__dtype_is_unsigned(dt))
        ra__hsetu(dst, i, ra__hgetu(src, j));
    else if (dt == RA_BOOL)
        ra__hsetb(dst, i, ra__hgetb(src, j));
    else
        ra__hseti(dst, i, ra__hgeti(src, j));
}
