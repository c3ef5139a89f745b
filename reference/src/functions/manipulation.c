/*
 * functions/manipulation.c: the standard's manipulation functions (refarray_fn_shape.h) on
 * host copies of their arrays (the staged path, staged.h): each result element is copied
 * from the input element its coordinates name, and the result is written to the inputs'
 * device. ra_stack, which has a kernel path, lives in ops.c.
 */
#include "refarray_fn_shape.h"

#include "order.h"

#include <string.h>

static void unravel(size_t i, size_t ndim, const int64_t *shape, int64_t *coord)
{
    for (size_t d = ndim; d-- > 0;) {
        coord[d] = (int64_t)(i % (size_t)shape[d]);
        i /= (size_t)shape[d];
    }
}

static size_t ravel(size_t ndim, const int64_t *shape, const int64_t *coord)
{
    size_t at = 0;
    for (size_t d = 0; d < ndim; d++)
        at = at * (size_t)shape[d] + (size_t)coord[d];
    return at;
}

/* A set of axes given as a list: each normalised and marked in mask; a repeat is RA_E_ARG. */
static int axes_mask(ra_ctx *ctx, const char *fn, const int64_t *axes, size_t naxes, size_t ndim,
                     bool *mask)
{
    for (size_t d = 0; d < ndim; d++)
        mask[d] = false;
    for (size_t k = 0; k < naxes; k++) {
        size_t a;
        int status = ra__axis(ctx, fn, axes[k], ndim, &a);
        if (status != RA_OK) return status;
        if (mask[a]) return ra__ctx_error(ctx, RA_E_ARG, "%s: axis %zu is given twice", fn, a);
        mask[a] = true;
    }
    return RA_OK;
}

/* x's elements as they are in a new shape (expand_dims, reshape, squeeze). */
static int same_data(ra_ctx *ctx, int status, ra__dev *dev, ra__host *h, size_t ndim,
                     const int64_t *shape, ra_array **out)
{
    if (status == RA_OK) {
        h->ndim = ndim;
        memcpy(h->shape, shape, ndim * sizeof *shape);
    }
    return ra__host_finish(ctx, status, dev, h, out);
}

int ra_broadcast_shapes(ra_ctx *ctx, const int64_t *const *shapes, const size_t *ndims, size_t n,
                        int64_t *out, size_t *ndim)
{
    const char *fn = "broadcast_shapes";
    if (!ctx) return RA_E_NULL;
    if (!out || !ndim || (n && (!shapes || !ndims)))
        return ra__ctx_error(ctx, RA_E_NULL, "%s: an argument is NULL", fn);
    if (!n) return ra__ctx_error(ctx, RA_E_ARG, "%s: no shape given", fn);
    for (size_t k = 0; k < n; k++) {
        if (ndims[k] > RA_MAX_NDIM)
            return ra__ctx_error(ctx, RA_E_ARG, "%s: shape %zu has %zu dimensions (at most %d)", fn,
                                 k, ndims[k], RA_MAX_NDIM);
        int64_t size;
        int status = ra__shape_check(ctx, shapes[k], ndims[k], &size, fn);
        if (status != RA_OK) return status;
    }
    return ra__broadcast_shapes(ctx, fn, n, ndims, shapes, ndim, out);
}

int ra_broadcast_to(ra_ctx *ctx, const ra_array *x, const int64_t *shape, size_t ndim,
                    ra_array **out)
{
    const char *fn = "broadcast_to";
    ra__dev *dev = NULL;
    ra__host h, r = RA__HOST_INIT;
    int status = ra__staged_begin(ctx, fn, out, &x, 1, &dev, &h);
    if (status != RA_OK) return status;
    int64_t size, bshape[RA_MAX_NDIM];
    size_t bnd = 0;
    status = ra__shape_check(ctx, shape, ndim, &size, fn);
    const size_t nds[2] = {h.ndim, ndim};
    const int64_t *shs[2] = {h.shape, shape};
    if (status == RA_OK) status = ra__broadcast_shapes(ctx, fn, 2, nds, shs, &bnd, bshape);
    if (status == RA_OK && (bnd != ndim || memcmp(bshape, shape, ndim * sizeof *shape)))
        status =
            ra__ctx_error(ctx, RA_E_BROADCAST, "%s: x's shape does not broadcast to shape", fn);
    if (status == RA_OK) status = ra__host_new(ctx, fn, h.dtype, ndim, shape, &r);
    for (size_t i = 0; status == RA_OK && i < r.size; i++)
        ra__hcopy(&r, i, &h, ra__broadcast_at(i, ndim, shape, h.ndim, h.shape));
    ra__host_free(ctx, &h);
    return ra__host_finish(ctx, status, dev, &r, out);
}

int ra_broadcast_arrays(ra_ctx *ctx, const ra_array *const *xs, size_t n, ra_array **outs)
{
    const char *fn = "broadcast_arrays";
    if (!ctx) return RA_E_NULL;
    if (!outs || (n && !xs)) return ra__ctx_error(ctx, RA_E_NULL, "%s: an argument is NULL", fn);
    if (!n) return RA_OK;
    ra__dev *dev = NULL;
    ra__host *hs = ra__alloc(ctx, n * sizeof *hs);
    size_t *nds = ra__alloc(ctx, n * sizeof *nds);
    const int64_t **shs = ra__alloc(ctx, n * sizeof *shs);
    int status = hs && nds && shs ? RA_OK : ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    if (status == RA_OK) status = ra__staged_read(ctx, fn, xs, n, &dev, hs);
    bool read = status == RA_OK;
    int64_t shape[RA_MAX_NDIM];
    size_t nd = 0, made = 0;
    for (size_t k = 0; read && k < n; k++) {
        nds[k] = hs[k].ndim;
        shs[k] = hs[k].shape;
    }
    if (status == RA_OK) status = ra__broadcast_shapes(ctx, fn, n, nds, shs, &nd, shape);
    for (; status == RA_OK && made < n; made++) {
        ra__host r;
        status = ra__host_new(ctx, fn, hs[made].dtype, nd, shape, &r);
        for (size_t i = 0; status == RA_OK && i < r.size; i++)
            ra__hcopy(&r, i, &hs[made],
                      ra__broadcast_at(i, nd, shape, hs[made].ndim, hs[made].shape));
        status = ra__host_finish(ctx, status, dev, &r, &outs[made]);
    }
    if (status != RA_OK)
        for (size_t k = 0; k + 1 < made; k++)
            ra_array_release(outs[k]);
    if (read) ra__host_free_all(ctx, hs, n);
    ra__free(ctx, hs);
    ra__free(ctx, nds);
    ra__free(ctx, shs);
    return status;
}

int ra_concat(ra_ctx *ctx, const ra_array *const *xs, size_t n, const int64_t *axis, ra_array **out)
{
    const char *fn = "concat";
    if (!ctx) return RA_E_NULL;
    if (!out || (n && !xs)) return ra__ctx_error(ctx, RA_E_NULL, "%s: an argument is NULL", fn);
    if (!n) return ra__ctx_error(ctx, RA_E_ARG, "%s: no array given", fn);
    for (size_t k = 0; k < n; k++)
        if (!xs[k]) return ra__ctx_error(ctx, RA_E_NULL, "%s: array %zu is NULL", fn, k);
    ra__dev *dev = NULL;
    ra__host *hs = ra__alloc(ctx, n * sizeof *hs), r = RA__HOST_INIT;
    if (!hs) return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    int status = ra__staged_read(ctx, fn, xs, n, &dev, hs);
    if (status != RA_OK) {
        ra__free(ctx, hs);
        return status;
    }
    ra_dtype dt = hs[0].dtype;
    for (size_t k = 1; status == RA_OK && k < n; k++) {
        ra_dtype j = ra__promote_join(ctx, dt, hs[k].dtype);
        if (j == RA_DTYPE_DEFAULT)
            status = ra__ctx_error(ctx, RA_E_DTYPE, "%s: no promotion between %s and %s", fn,
                                   ra_dtype_name(dt), ra_dtype_name(hs[k].dtype));
        dt = j;
    }
    size_t ax = 0, nd = axis ? hs[0].ndim : 1;
    int64_t shape[RA_MAX_NDIM];
    if (status == RA_OK && axis) {
        if (nd == 0)
            status =
                ra__ctx_error(ctx, RA_E_SHAPE, "%s: 0-d arrays cannot be joined on an axis", fn);
        else
            status = ra__axis(ctx, fn, *axis, nd, &ax);
    }
    if (status == RA_OK) {
        memcpy(shape, hs[0].shape, nd * sizeof *shape);
        if (!axis) shape[0] = 0;
        if (axis) shape[ax] = 0;
        for (size_t k = 0; status == RA_OK && k < n; k++) {
            if (!axis) {
                shape[0] += (int64_t)hs[k].size;
                continue;
            }
            bool same = hs[k].ndim == nd;
            for (size_t d = 0; same && d < nd; d++)
                same = d == ax || hs[k].shape[d] == hs[0].shape[d];
            if (!same)
                status = ra__ctx_error(ctx, RA_E_SHAPE,
                                       "%s: array %zu's shape differs from array 0's off the axis",
                                       fn, k);
            else
                shape[ax] += hs[k].shape[ax];
        }
    }
    if (status == RA_OK) status = ra__host_new(ctx, fn, dt, nd, shape, &r);
    /* outer blocks before the axis; each array gives shape[axis] * inner elements a block */
    size_t outer = axis ? (size_t)ra__shape_size(shape, ax) : 1, at = 0;
    for (size_t o = 0; status == RA_OK && o < outer; o++)
        for (size_t k = 0; k < n; k++) {
            size_t block = outer ? hs[k].size / (outer ? outer : 1) : 0;
            for (size_t e = 0; e < block; e++)
                ra__hcopy(&r, at++, &hs[k], o * block + e);
        }
    ra__host_free_all(ctx, hs, n);
    ra__free(ctx, hs);
    return ra__host_finish(ctx, status, dev, &r, out);
}

int ra_expand_dims(ra_ctx *ctx, const ra_array *x, const int64_t *axes, size_t naxes,
                   ra_array **out)
{
    const char *fn = "expand_dims";
    ra__dev *dev = NULL;
    ra__host h;
    int status = ra__staged_begin(ctx, fn, out, &x, 1, &dev, &h);
    if (status != RA_OK) return status;
    size_t nd = h.ndim + naxes;
    bool mask[RA_MAX_NDIM];
    int64_t shape[RA_MAX_NDIM];
    if (!naxes || (naxes && !axes))
        status = ra__ctx_error(ctx, RA_E_ARG, "%s: no axis given", fn);
    else if (nd > RA_MAX_NDIM)
        status =
            ra__ctx_error(ctx, RA_E_SHAPE, "%s: %zu dimensions (at most %d)", fn, nd, RA_MAX_NDIM);
    if (status == RA_OK) status = axes_mask(ctx, fn, axes, naxes, nd, mask);
    for (size_t d = 0, k = 0; status == RA_OK && d < nd; d++)
        shape[d] = mask[d] ? 1 : h.shape[k++];
    return same_data(ctx, status, dev, &h, nd, shape, out);
}

int ra_reshape(ra_ctx *ctx, const ra_array *x, const int64_t *shape, size_t ndim, ra_array **out)
{
    const char *fn = "reshape";
    ra__dev *dev = NULL;
    ra__host h;
    int status = ra__staged_begin(ctx, fn, out, &x, 1, &dev, &h);
    if (status != RA_OK) return status;
    int64_t s[RA_MAX_NDIM], known = 1;
    size_t infer = SIZE_MAX;
    if (ndim > RA_MAX_NDIM || (ndim && !shape))
        status = ra__ctx_error(ctx, RA_E_SHAPE, "%s: a shape of %zu dimensions", fn, ndim);
    for (size_t d = 0; status == RA_OK && d < ndim; d++) {
        s[d] = shape[d];
        if (shape[d] == -1 && infer == SIZE_MAX)
            infer = d;
        else if (shape[d] < 0)
            status = ra__ctx_error(ctx, RA_E_SHAPE, "%s: extent %lld at %zu (one -1 at most)", fn,
                                   (long long)shape[d], d);
        else if (shape[d] && known > INT64_MAX / shape[d])
            status = ra__ctx_error(ctx, RA_E_SHAPE, "%s: the shape is too large", fn);
        else
            known *= shape[d];
    }
    if (status == RA_OK && infer != SIZE_MAX) {
        if (known == 0 || (int64_t)h.size % known)
            status = ra__ctx_error(ctx, RA_E_SHAPE, "%s: %zu elements do not fill the shape", fn,
                                   h.size);
        else
            s[infer] = (int64_t)h.size / known, known = (int64_t)h.size;
    }
    if (status == RA_OK && known != (int64_t)h.size)
        status = ra__ctx_error(ctx, RA_E_SHAPE, "%s: %zu elements cannot take a shape of %lld", fn,
                               h.size, (long long)known);
    return same_data(ctx, status, dev, &h, ndim, s, out);
}

int ra_squeeze(ra_ctx *ctx, const ra_array *x, const int64_t *axes, size_t naxes, ra_array **out)
{
    const char *fn = "squeeze";
    ra__dev *dev = NULL;
    ra__host h;
    int status = ra__staged_begin(ctx, fn, out, &x, 1, &dev, &h);
    if (status != RA_OK) return status;
    bool mask[RA_MAX_NDIM];
    int64_t shape[RA_MAX_NDIM];
    size_t nd = 0;
    if (naxes && !axes) status = ra__ctx_error(ctx, RA_E_NULL, "%s: axes is NULL", fn);
    if (status == RA_OK) status = axes_mask(ctx, fn, axes, naxes, h.ndim, mask);
    for (size_t d = 0; status == RA_OK && d < h.ndim; d++) {
        if (!mask[d])
            shape[nd++] = h.shape[d];
        else if (h.shape[d] != 1)
            status = ra__ctx_error(ctx, RA_E_SHAPE, "%s: axis %zu has extent %lld, not 1", fn, d,
                                   (long long)h.shape[d]);
    }
    return same_data(ctx, status, dev, &h, nd, shape, out);
}

/* The result of a copy whose element i comes from x's element at the coordinates `map`
 * gives (flip, permute_dims, roll, tile, unstack). */
typedef struct coord_map {
    int what; /* 0 flip, 1 permute, 2 roll, 3 tile, 4 pick (unstack) */
    const bool *mask;
    const size_t *perm;
    const int64_t *shift;
    size_t axis;
    int64_t at;
} coord_map;

static int remap(ra_ctx *ctx, const char *fn, const ra__host *h, size_t nd, const int64_t *shape,
                 const coord_map *m, ra__host *r)
{
    int status = ra__host_new(ctx, fn, h->dtype, nd, shape, r);
    int64_t c[RA_MAX_NDIM], s[RA_MAX_NDIM];
    for (size_t i = 0; status == RA_OK && i < r->size; i++) {
        unravel(i, nd, shape, c);
        for (size_t d = 0; d < h->ndim; d++) {
            int64_t e = h->shape[d];
            switch (m->what) {
            case 0:
                s[d] = m->mask[d] ? e - 1 - c[d] : c[d];
                break;
            case 1:
                s[m->perm[d]] = c[d];
                break;
            case 2:
                s[d] = e ? (((c[d] - m->shift[d]) % e) + e) % e : 0;
                break;
            case 3:
                s[d] = c[nd - h->ndim + d] % e;
                break;
            default:
                s[d] = d == m->axis ? m->at : c[d < m->axis ? d : d - 1];
                break;
            }
        }
        memcpy(ra__hat(r, i), ra__hat(h, ravel(h->ndim, h->shape, s)), ra_dtype_size(h->dtype));
    }
    return status;
}

int ra_flip(ra_ctx *ctx, const ra_array *x, const int64_t *axes, size_t naxes, ra_array **out)
{
    const char *fn = "flip";
    ra__dev *dev = NULL;
    ra__host h, r = RA__HOST_INIT;
    int status = ra__staged_begin(ctx, fn, out, &x, 1, &dev, &h);
    if (status != RA_OK) return status;
    bool mask[RA_MAX_NDIM];
    status = axes_mask(ctx, fn, axes, axes ? naxes : 0, h.ndim, mask);
    for (size_t d = 0; !axes && d < h.ndim; d++)
        mask[d] = true;
    coord_map m = {0, mask, NULL, NULL, 0, 0};
    if (status == RA_OK) status = remap(ctx, fn, &h, h.ndim, h.shape, &m, &r);
    ra__host_free(ctx, &h);
    return ra__host_finish(ctx, status, dev, &r, out);
}

static int permute(ra_ctx *ctx, const char *fn, const ra_array *x, const int64_t *axes, size_t n,
                   const int64_t *dst, ra_array **out)
{
    ra__dev *dev = NULL;
    ra__host h, r = RA__HOST_INIT;
    int status = ra__staged_begin(ctx, fn, out, &x, 1, &dev, &h);
    if (status != RA_OK) return status;
    size_t perm[RA_MAX_NDIM];
    int64_t shape[RA_MAX_NDIM];
    bool used[RA_MAX_NDIM] = {false}, placed[RA_MAX_NDIM] = {false};
    if (n && !axes) status = ra__ctx_error(ctx, RA_E_NULL, "%s: axes is NULL", fn);
    if (status == RA_OK && !dst && n != h.ndim)
        status = ra__ctx_error(ctx, RA_E_ARG, "%s: %zu axes for %zu dimensions", fn, n, h.ndim);
    for (size_t k = 0; status == RA_OK && k < n; k++) {
        size_t a, p = k;
        status = ra__axis(ctx, fn, axes[k], h.ndim, &a);
        if (status == RA_OK && dst) status = ra__axis(ctx, fn, dst[k], h.ndim, &p);
        if (status == RA_OK && (used[a] || placed[p]))
            status = ra__ctx_error(ctx, RA_E_ARG, "%s: an axis is given twice", fn);
        if (status == RA_OK) {
            used[a] = placed[p] = true;
            perm[p] = a;
        }
    }
    /* moveaxis: the other axes fill the other places in order */
    for (size_t d = 0, p = 0; status == RA_OK && dst && d < h.ndim; d++) {
        if (used[d]) continue;
        while (placed[p])
            p++;
        perm[p] = d;
        placed[p] = true;
    }
    for (size_t d = 0; status == RA_OK && d < h.ndim; d++)
        shape[d] = h.shape[perm[d]];
    coord_map m = {1, NULL, perm, NULL, 0, 0};
    if (status == RA_OK) status = remap(ctx, fn, &h, h.ndim, shape, &m, &r);
    ra__host_free(ctx, &h);
    return ra__host_finish(ctx, status, dev, &r, out);
}

int ra_permute_dims(ra_ctx *ctx, const ra_array *x, const int64_t *axes, size_t n, ra_array **out)
{
    return permute(ctx, "permute_dims", x, axes, n, NULL, out);
}

int ra_moveaxis(ra_ctx *ctx, const ra_array *x, const int64_t *src, const int64_t *dst, size_t n,
                ra_array **out)
{
    if (ctx && n && !dst) return ra__ctx_error(ctx, RA_E_NULL, "moveaxis: destination is NULL");
    static const int64_t none[1] = {0};
    return permute(ctx, "moveaxis", x, src, n, dst ? dst : none, out);
}

int ra_roll(ra_ctx *ctx, const ra_array *x, const int64_t *shifts, size_t nshifts,
            const int64_t *axes, size_t naxes, ra_array **out)
{
    const char *fn = "roll";
    ra__dev *dev = NULL;
    ra__host h, r = RA__HOST_INIT;
    int status = ra__staged_begin(ctx, fn, out, &x, 1, &dev, &h);
    if (status != RA_OK) return status;
    int64_t shift[RA_MAX_NDIM] = {0};
    if (!shifts || !nshifts || (axes ? nshifts != naxes && nshifts != 1 : nshifts != 1))
        status = ra__ctx_error(ctx, RA_E_ARG, "%s: %zu shifts for %zu axes", fn, nshifts,
                               axes ? naxes : 1);
    size_t nd = h.ndim;
    int64_t shape[RA_MAX_NDIM];
    memcpy(shape, h.shape, nd * sizeof *shape);
    if (!axes) { /* flattened: one axis of every element */
        h.ndim = 1;
        h.shape[0] = (int64_t)h.size;
        if (status == RA_OK) shift[0] = shifts[0];
    }
    for (size_t k = 0; status == RA_OK && axes && k < naxes; k++) {
        size_t a;
        status = ra__axis(ctx, fn, axes[k], nd, &a);
        if (status == RA_OK)
            shift[a] += shifts[nshifts == 1 ? 0 : k] % (h.shape[a] ? h.shape[a] : 1);
    }
    coord_map m = {2, NULL, NULL, shift, 0, 0};
    if (status == RA_OK) status = remap(ctx, fn, &h, h.ndim, h.shape, &m, &r);
    if (status == RA_OK) {
        r.ndim = nd;
        memcpy(r.shape, shape, nd * sizeof *shape);
    }
    ra__host_free(ctx, &h);
    return ra__host_finish(ctx, status, dev, &r, out);
}

int ra_tile(ra_ctx *ctx, const ra_array *x, const int64_t *reps, size_t nreps, ra_array **out)
{
    const char *fn = "tile";
    ra__dev *dev = NULL;
    ra__host h, r = RA__HOST_INIT;
    int status = ra__staged_begin(ctx, fn, out, &x, 1, &dev, &h);
    if (status != RA_OK) return status;
    size_t nd = h.ndim > nreps ? h.ndim : nreps;
    int64_t shape[RA_MAX_NDIM], size;
    if (nreps && !reps) status = ra__ctx_error(ctx, RA_E_NULL, "%s: reps is NULL", fn);
    if (status == RA_OK && nd > RA_MAX_NDIM)
        status = ra__ctx_error(ctx, RA_E_SHAPE, "%s: %zu dimensions", fn, nd);
    for (size_t d = 0; status == RA_OK && d < nd; d++) {
        int64_t rep = d + nreps >= nd ? reps[d + nreps - nd] : 1;
        int64_t e = d + h.ndim >= nd ? h.shape[d + h.ndim - nd] : 1;
        if (rep < 0)
            status =
                ra__ctx_error(ctx, RA_E_ARG, "%s: repetition %lld is negative", fn, (long long)rep);
        else if (e && rep > INT64_MAX / e)
            status = ra__ctx_error(ctx, RA_E_SHAPE, "%s: the result is too large", fn);
        else
            shape[d] = e * rep;
    }
    if (status == RA_OK) status = ra__shape_check(ctx, shape, nd, &size, fn);
    coord_map m = {3, NULL, NULL, NULL, 0, 0};
    if (status == RA_OK) status = remap(ctx, fn, &h, nd, shape, &m, &r);
    ra__host_free(ctx, &h);
    return ra__host_finish(ctx, status, dev, &r, out);
}

int ra_unstack(ra_ctx *ctx, const ra_array *x, int64_t axis, ra_array **outs, size_t cap, size_t *n)
{
    const char *fn = "unstack";
    if (ctx && !n) return ra__ctx_error(ctx, RA_E_NULL, "%s: n is NULL", fn);
    ra__dev *dev = NULL;
    ra__host h;
    int status = ra__staged_begin(ctx, fn, outs, &x, 1, &dev, &h);
    if (status != RA_OK) return status;
    size_t ax = 0, made = 0, count = 0;
    if (h.ndim == 0) status = ra__ctx_error(ctx, RA_E_SHAPE, "%s: x is 0-d", fn);
    if (status == RA_OK) status = ra__axis(ctx, fn, axis, h.ndim, &ax);
    if (status == RA_OK) {
        count = (size_t)h.shape[ax];
        *n = count;
        if (cap < count)
            status =
                ra__ctx_error(ctx, RA_E_BUFFER, "%s: %zu results, room for %zu", fn, count, cap);
    }
    int64_t shape[RA_MAX_NDIM];
    for (size_t d = 0, k = 0; status == RA_OK && d < h.ndim; d++)
        if (d != ax) shape[k++] = h.shape[d];
    for (; status == RA_OK && made < count; made++) {
        ra__host r = RA__HOST_INIT;
        coord_map m = {4, NULL, NULL, NULL, ax, (int64_t)made};
        status = remap(ctx, fn, &h, h.ndim - 1, shape, &m, &r);
        status = ra__host_finish(ctx, status, dev, &r, &outs[made]);
    }
    if (status != RA_OK)
        for (size_t k = 0; k + 1 < made; k++)
            ra_array_release(outs[k]);
    ra__host_free(ctx, &h);
    return status;
}

int ra_repeat(ra_ctx *ctx, const ra_array *x, const ra_array *repeats, int64_t nrep,
              const int64_t *axis, ra_array **out)
{
    const char *fn = "repeat";
    if (!ctx) return RA_E_NULL;
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    const ra_array *xs[2] = {x, repeats};
    ra__dev *dev = NULL;
    ra__host hs[2], r = RA__HOST_INIT;
    size_t na = repeats ? 2 : 1;
    int status = ra__staged_read(ctx, fn, xs, na, &dev, hs);
    if (status != RA_OK) return status;
    ra__host *h = &hs[0];
    size_t ax = 0;
    if (!axis) { /* flattened first */
        h->ndim = 1;
        h->shape[0] = (int64_t)h->size;
    } else {
        status = h->ndim ? ra__axis(ctx, fn, *axis, h->ndim, &ax)
                         : ra__ctx_error(ctx, RA_E_AXIS, "%s: x is 0-d", fn);
    }
    size_t len = status == RA_OK ? (size_t)h->shape[ax] : 0;
    if (status == RA_OK && repeats) {
        if (!ra__dtype_is_integer(hs[1].dtype))
            status = ra__ctx_error(ctx, RA_E_DTYPE, "%s: repeats must be an integer array", fn);
        else if (hs[1].ndim != 1 || (hs[1].size != len && hs[1].size != 1))
            status = ra__ctx_error(ctx, RA_E_SHAPE, "%s: repeats must be 1-D of length 1 or %zu",
                                   fn, len);
    }
    int64_t total = 0;
    for (size_t k = 0; status == RA_OK && k < len; k++) {
        int64_t c = repeats ? ra__hgeti(&hs[1], hs[1].size == 1 ? 0 : k) : nrep;
        if (c < 0)
            status =
                ra__ctx_error(ctx, RA_E_ARG, "%s: repeat count %lld is negative", fn, (long long)c);
        else if (c > INT64_MAX - total)
            status = ra__ctx_error(ctx, RA_E_SHAPE, "%s: the repeated axis is too long", fn);
        else
            total += c;
    }
    int64_t shape[RA_MAX_NDIM];
    if (status == RA_OK) {
        memcpy(shape, h->shape, h->ndim * sizeof *shape);
        shape[ax] = total;
        status = ra__host_new(ctx, fn, h->dtype, h->ndim, shape, &r);
    }
    size_t inner =
        status == RA_OK ? (size_t)ra__shape_size(h->shape + ax + 1, h->ndim - ax - 1) : 0;
    size_t outer = status == RA_OK ? (size_t)ra__shape_size(h->shape, ax) : 0, at = 0;
    size_t item = ra_dtype_size(h->dtype);
    for (size_t o = 0; status == RA_OK && o < outer; o++)
        for (size_t k = 0; k < len; k++) {
            int64_t c = repeats ? ra__hgeti(&hs[1], hs[1].size == 1 ? 0 : k) : nrep;
            for (int64_t t = 0; t < c; t++, at += inner)
                memcpy(ra__hat(&r, at), ra__hat(h, (o * len + k) * inner), inner * item);
        }
    ra__host_free_all(ctx, hs, na);
    return ra__host_finish(ctx, status, dev, &r, out);
}
