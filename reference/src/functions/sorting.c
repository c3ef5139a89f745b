/*
 * functions/sorting.c: the standard's sort and argsort (refarray_fn_shape.h): each line
 * along the axis is sorted stably (order.c's merge sort) in refarray's order (order.h), on a
 * host copy of x (the staged path), the result written to x's device.
 */
#include "refarray_fn_shape.h"

#include "order.h"

typedef struct line_cmp {
    const ra__host *h;
    int sign; /* 1 ascending, -1 descending */
} line_cmp;

static int cmp_elems(const void *c, size_t a, size_t b)
{
    const line_cmp *l = c;
    return l->sign * ra__val_cmp(ra__val_at(l->h, a), ra__val_at(l->h, b));
}

static int sort_any(ra_ctx *ctx, const char *fn, bool positions, const ra_array *x, int64_t axis,
                    bool descending, ra_array **out)
{
    ra__dev *dev = NULL;
    ra__host h, r = RA__HOST_INIT;
    int status = ra__staged_begin(ctx, fn, out, &x, 1, &dev, &h);
    if (status != RA_OK) return status;
    size_t ax = 0;
    if (ra__dtype_is_complex(h.dtype))
        status = ra__ctx_error(ctx, RA_E_DTYPE, "%s: complex %s has no order", fn,
                               ra_dtype_name(h.dtype));
    if (status == RA_OK && h.ndim) status = ra__axis(ctx, fn, axis, h.ndim, &ax);
    if (status == RA_OK)
        status = ra__host_new(ctx, fn, positions ? RA_INT64 : h.dtype, h.ndim, h.shape, &r);
    size_t n = h.ndim ? (size_t)h.shape[ax] : 1;
    size_t inner = h.ndim ? (size_t)ra__shape_size(h.shape + ax + 1, h.ndim - ax - 1) : 1;
    size_t outer = n && inner ? h.size / n / inner : 0;
    size_t *idx = status == RA_OK ? ra__alloc(ctx, (n ? n : 1) * sizeof *idx) : NULL;
    if (status == RA_OK && !idx) status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    line_cmp lc = {&h, descending ? -1 : 1};
    for (size_t o = 0; status == RA_OK && o < outer; o++)
        for (size_t in = 0; status == RA_OK && in < inner; in++) {
            size_t base = o * n * inner + in;
            for (size_t k = 0; k < n; k++)
                idx[k] = base + k * inner;
            status = ra__sort_idx(ctx, fn, idx, n, cmp_elems, &lc);
            for (size_t k = 0; status == RA_OK && k < n; k++) {
                if (positions)
                    ra__hseti(&r, base + k * inner, (int64_t)((idx[k] - base) / inner));
                else
                    ra__hcopy(&r, base + k * inner, &h, idx[k]);
            }
        }
    ra__free(ctx, idx);
    ra__host_free(ctx, &h);
    return ra__host_finish(ctx, status, dev, &r, out);
}

int ra_sort(ra_ctx *ctx, const ra_array *x, int64_t axis, bool descending, bool stable,
            ra_array **out)
{
    (void)stable; /* always stable */
    return sort_any(ctx, "sort", false, x, axis, descending, out);
}

int ra_argsort(ra_ctx *ctx, const ra_array *x, int64_t axis, bool descending, bool stable,
               ra_array **out)
{
    (void)stable;
    return sort_any(ctx, "argsort", true, x, axis, descending, out);
}
