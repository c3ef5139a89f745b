/*
 * functions/linalg_products.c: the products and views of the linalg extension and the main
 * namespace's linear algebra (refarray_fn_linalg.h): cross, outer, vecdot, tensordot, trace,
 * diagonal, matrix_transpose, vector_norm, on the staged path. Integer dtypes compute in
 * 64-bit unsigned arithmetic, exact modulo 2^64 and so modulo 2^bits once stored (the
 * standard leaves integer overflow unspecified); floating ones in double complex.
 */
#include "refarray_fn_linalg.h"

#include "linalg_core.h"
#include "staged.h"

#include <math.h>
#include <string.h>

/* A number of either kind: integers as uint64 (two's complement for signed ones). */
typedef struct num {
    ra__cplx c;
    uint64_t u;
} num;

static num get(const ra__host *h, size_t i, bool integer)
{
    num v = {0, 0};
    if (!integer)
        v.c = ra__hgetc(h, i);
    else if (ra__dtype_is_unsigned(h->dtype))
        v.u = ra__hgetu(h, i);
    else
        v.u = (uint64_t)ra__hgeti(h, i);
    return v;
}

static void set(ra__host *h, size_t i, num v, bool integer)
{
    if (!integer)
        ra__hsetc(h, i, v.c);
    else if (ra__dtype_is_unsigned(h->dtype))
        ra__hsetu(h, i, v.u);
    else
        ra__hseti(h, i, (int64_t)v.u);
}

/* acc += a * b (conj(a) * b when conjugate). */
static void fma_num(num *acc, num a, num b, bool integer, bool conjugate)
{
    if (integer)
        acc->u += a.u * b.u;
    else
        acc->c += (conjugate ? conj(a.c) : a.c) * b.c;
}

static num mul_sub(num a, num b, num c, num d, bool integer)
{
    num r;
    r.u = a.u * b.u - c.u * d.u;
    r.c = integer ? 0 : a.c * b.c - c.c * d.c;
    return r;
}

static bool numeric(ra_dtype d)
{
    return d != RA_BOOL && ra__dtype_valid(d);
}

/* The checks and the result dtype of the two-array products: numeric dtypes, promoted. */
static int two_arrays(ra_ctx *ctx, const char *fn, const ra_array *x1, const ra_array *x2,
                      ra_array **out, ra_dtype *dtype)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    *out = NULL;
    if (!x1 || !x2) return ra__ctx_error(ctx, RA_E_NULL, "%s: x%d is NULL", fn, x1 ? 2 : 1);
    if (!numeric(x1->dtype) || !numeric(x2->dtype))
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: x1 is %s and x2 %s; numeric dtypes are needed",
                             fn, ra_dtype_name(x1->dtype), ra_dtype_name(x2->dtype));
    return ra__promote_binary(ctx, fn, ra_operand_array(x1), ra_operand_array(x2), dtype);
}

/* Row-major strides (in elements) of a shape. */
static void strides_of(size_t ndim, const int64_t *shape, size_t *st)
{
    size_t s = 1;
    for (size_t i = ndim; i-- > 0;) {
        st[i] = s;
        s *= (size_t)shape[i];
    }
}

/* The broadcast shape of two host copies, with an axis of it normalised; the inputs' extents
 * along that axis (counted from the end) in *n1, *n2 (1 when an input lacks the axis). */
static int broadcast_axis(ra_ctx *ctx, const char *fn, const ra__host *hs, int64_t axis, size_t *nd,
                          int64_t *shape, size_t *ax, int64_t *n1, int64_t *n2)
{
    size_t ndims[2] = {hs[0].ndim, hs[1].ndim};
    const int64_t *shapes[2] = {hs[0].shape, hs[1].shape};
    int st = ra__broadcast_shapes(ctx, fn, 2, ndims, shapes, nd, shape);
    if (st == RA_OK) st = ra__axis(ctx, fn, axis, *nd, ax);
    if (st != RA_OK) return st;
    size_t back = *nd - *ax; /* the axis, counted from the end (1 is the last) */
    *n1 = hs[0].ndim >= back ? hs[0].shape[hs[0].ndim - back] : 1;
    *n2 = hs[1].ndim >= back ? hs[1].shape[hs[1].ndim - back] : 1;
    return RA_OK;
}

/* Flat index in host copy h (broadcast to shape) of the element at multi-index idx. */
static size_t at(const ra__host *h, size_t nd, const int64_t *shape, const int64_t *idx)
{
    size_t flat = 0, off = nd - h->ndim;
    (void)shape;
    for (size_t i = 0; i < h->ndim; i++)
        flat = flat * (size_t)h->shape[i] + (h->shape[i] == 1 ? 0 : (size_t)idx[off + i]);
    return flat;
}

static void unflatten(size_t i, size_t nd, const int64_t *shape, int64_t *idx)
{
    for (size_t k = nd; k-- > 0;) {
        idx[k] = shape[k] ? (int64_t)(i % (size_t)shape[k]) : 0;
        i = shape[k] ? i / (size_t)shape[k] : 0;
    }
}

/* cross (true) or vecdot along an axis of the broadcast shape. */
static int along_axis(ra_ctx *ctx, const char *fn, bool cross, const ra_array *x1,
                      const ra_array *x2, int64_t axis, ra_array **out)
{
    ra_dtype dtype;
    int st = two_arrays(ctx, fn, x1, x2, out, &dtype);
    if (st != RA_OK) return st;
    ra__host hs[2], y = RA__HOST_INIT;
    ra__dev *dev;
    const ra_array *xs[2] = {x1, x2};
    st = ra__staged_read(ctx, fn, xs, 2, &dev, hs);
    if (st != RA_OK) return st;
    size_t nd = 0, ax = 0;
    int64_t shape[RA_MAX_NDIM], n1 = 0, n2 = 0;
    st = broadcast_axis(ctx, fn, hs, axis, &nd, shape, &ax, &n1, &n2);
    if (st == RA_OK && (cross ? (n1 != 3 || n2 != 3) : n1 != n2))
        st = ra__ctx_error(ctx, RA_E_SHAPE,
                           "%s: x1 has %lld elements along axis %lld and x2 %lld; %s", fn,
                           (long long)n1, (long long)axis, (long long)n2,
                           cross ? "3 each are needed" : "they must be equal");
    int64_t oshape[RA_MAX_NDIM], len = shape[ax];
    size_t ond = 0;
    for (size_t i = 0; i < nd; i++)
        if (cross || i != ax) oshape[ond++] = shape[i];
    if (st == RA_OK) st = ra__host_new(ctx, fn, dtype, ond, oshape, &y);
    bool integer = ra__dtype_is_integer(dtype);
    int64_t idx[RA_MAX_NDIM];
    for (size_t o = 0; st == RA_OK && o < y.size; o++) {
        unflatten(o, ond, oshape, idx);
        if (cross) {
            int64_t c = idx[ax];
            num a[3], b[3];
            for (int64_t k = 0; k < 3; k++) {
                idx[ax] = k;
                a[k] = get(&hs[0], at(&hs[0], nd, shape, idx), integer);
                b[k] = get(&hs[1], at(&hs[1], nd, shape, idx), integer);
            }
            int64_t i1 = (c + 1) % 3, i2 = (c + 2) % 3; /* (a x b)_c = a_c+1 b_c+2 - a_c+2 b_c+1 */
            set(&y, o, mul_sub(a[i1], b[i2], a[i2], b[i1], integer), integer);
            continue;
        }
        memmove(&idx[ax + 1], &idx[ax], (ond - ax) * sizeof *idx); /* back to nd axes */
        num acc = {0, 0};
        for (int64_t k = 0; k < len; k++) {
            idx[ax] = k;
            num a = get(&hs[0], at(&hs[0], nd, shape, idx), integer);
            fma_num(&acc, a, get(&hs[1], at(&hs[1], nd, shape, idx), integer), integer, true);
        }
        set(&y, o, acc, integer);
    }
    ra__host_free_all(ctx, hs, 2);
    return ra__host_finish(ctx, st, dev, &y, out);
}

int ra_linalg_cross(ra_ctx *ctx, const ra_array *x1, const ra_array *x2, int64_t axis,
                    ra_array **out)
{
    return along_axis(ctx, "linalg.cross", true, x1, x2, axis, out);
}

int ra_linalg_vecdot(ra_ctx *ctx, const ra_array *x1, const ra_array *x2, int64_t axis,
                     ra_array **out)
{
    return along_axis(ctx, "vecdot", false, x1, x2, axis, out);
}

int ra_linalg_outer(ra_ctx *ctx, const ra_array *x1, const ra_array *x2, ra_array **out)
{
    static const char fn[] = "linalg.outer";
    ra_dtype dtype;
    int st = two_arrays(ctx, fn, x1, x2, out, &dtype);
    if (st != RA_OK) return st;
    if (x1->ndim != 1 || x2->ndim != 1)
        return ra__ctx_error(ctx, RA_E_SHAPE, "%s: x1 has %zu axes and x2 %zu; 1 each is needed",
                             fn, x1->ndim, x2->ndim);
    ra__host hs[2], y = RA__HOST_INIT;
    ra__dev *dev;
    const ra_array *xs[2] = {x1, x2};
    st = ra__staged_read(ctx, fn, xs, 2, &dev, hs);
    if (st != RA_OK) return st;
    int64_t shape[2] = {hs[0].shape[0], hs[1].shape[0]};
    st = ra__host_new(ctx, fn, dtype, 2, shape, &y);
    bool integer = ra__dtype_is_integer(dtype);
    for (size_t i = 0; st == RA_OK && i < hs[0].size; i++)
        for (size_t j = 0; j < hs[1].size; j++) {
            num acc = {0, 0};
            fma_num(&acc, get(&hs[0], i, integer), get(&hs[1], j, integer), integer, false);
            set(&y, i * hs[1].size + j, acc, integer);
        }
    ra__host_free_all(ctx, hs, 2);
    return ra__host_finish(ctx, st, dev, &y, out);
}

/* The axes of one operand of tensordot normalised, each once: contracted[axis] true. */
static int contracted_axes(ra_ctx *ctx, const char *fn, const char *which, const int64_t *axes,
                           size_t naxes, size_t ndim, size_t *out, bool *contracted)
{
    memset(contracted, 0, RA_MAX_NDIM * sizeof *contracted);
    for (size_t k = 0; k < naxes; k++) {
        int st = ra__axis(ctx, fn, axes[k], ndim, &out[k]);
        if (st != RA_OK) return st;
        if (contracted[out[k]])
            return ra__ctx_error(ctx, RA_E_AXIS, "%s: axis %lld of %s is repeated", fn,
                                 (long long)axes[k], which);
        contracted[out[k]] = true;
    }
    return RA_OK;
}

int ra_linalg_tensordot(ra_ctx *ctx, const ra_array *x1, const ra_array *x2, size_t naxes,
                        const int64_t *axes1, const int64_t *axes2, ra_array **out)
{
    static const char fn[] = "tensordot";
    ra_dtype dtype;
    int st = two_arrays(ctx, fn, x1, x2, out, &dtype);
    if (st != RA_OK) return st;
    if (naxes && (!axes1 || !axes2)) return ra__ctx_error(ctx, RA_E_NULL, "%s: axes are NULL", fn);
    size_t a1[RA_MAX_NDIM], a2[RA_MAX_NDIM];
    bool c1[RA_MAX_NDIM], c2[RA_MAX_NDIM];
    if (naxes > x1->ndim || naxes > x2->ndim)
        return ra__ctx_error(ctx, RA_E_AXIS, "%s: %zu axes to contract; x1 has %zu and x2 %zu", fn,
                             naxes, x1->ndim, x2->ndim);
    st = contracted_axes(ctx, fn, "x1", axes1, naxes, x1->ndim, a1, c1);
    if (st == RA_OK) st = contracted_axes(ctx, fn, "x2", axes2, naxes, x2->ndim, a2, c2);
    for (size_t k = 0; st == RA_OK && k < naxes; k++)
        if (x1->shape[a1[k]] != x2->shape[a2[k]])
            st = ra__ctx_error(
                ctx, RA_E_SHAPE, "%s: axis %zu of x1 has %lld elements, axis %zu of x2 %lld", fn,
                a1[k], (long long)x1->shape[a1[k]], a2[k], (long long)x2->shape[a2[k]]);
    if (st != RA_OK) return st;
    ra__host hs[2], y = RA__HOST_INIT;
    ra__dev *dev;
    const ra_array *xs[2] = {x1, x2};
    st = ra__staged_read(ctx, fn, xs, 2, &dev, hs);
    if (st != RA_OK) return st;
    /* free axes: x1's then x2's; the contracted multi-index runs over csh */
    int64_t shape[2 * RA_MAX_NDIM], csh[RA_MAX_NDIM];
    size_t nd = 0, s1[RA_MAX_NDIM], s2[RA_MAX_NDIM], f1[RA_MAX_NDIM], f2[RA_MAX_NDIM], n1 = 0,
           n2 = 0;
    size_t csize = 1;
    strides_of(hs[0].ndim, hs[0].shape, s1);
    strides_of(hs[1].ndim, hs[1].shape, s2);
    for (size_t i = 0; i < hs[0].ndim; i++)
        if (!c1[i]) shape[nd++] = hs[0].shape[f1[n1++] = i];
    for (size_t i = 0; i < hs[1].ndim; i++)
        if (!c2[i]) shape[nd++] = hs[1].shape[f2[n2++] = i];
    for (size_t k = 0; k < naxes; k++)
        csize *= (size_t)(csh[k] = hs[0].shape[a1[k]]);
    if (nd > RA_MAX_NDIM)
        st = ra__ctx_error(ctx, RA_E_SHAPE, "%s: the result would have %zu axes", fn, nd);
    if (st == RA_OK) st = ra__host_new(ctx, fn, dtype, nd, shape, &y);
    bool integer = ra__dtype_is_integer(dtype);
    int64_t idx[2 * RA_MAX_NDIM], cidx[RA_MAX_NDIM];
    for (size_t o = 0; st == RA_OK && o < y.size; o++) {
        unflatten(o, nd, shape, idx);
        size_t base1 = 0, base2 = 0;
        for (size_t i = 0; i < n1; i++)
            base1 += (size_t)idx[i] * s1[f1[i]];
        for (size_t i = 0; i < n2; i++)
            base2 += (size_t)idx[n1 + i] * s2[f2[i]];
        num acc = {0, 0};
        for (size_t c = 0; c < csize; c++) {
            unflatten(c, naxes, csh, cidx);
            size_t p1 = base1, p2 = base2;
            for (size_t k = 0; k < naxes; k++) {
                p1 += (size_t)cidx[k] * s1[a1[k]];
                p2 += (size_t)cidx[k] * s2[a2[k]];
            }
            fma_num(&acc, get(&hs[0], p1, integer), get(&hs[1], p2, integer), integer, false);
        }
        set(&y, o, acc, integer);
    }
    ra__host_free_all(ctx, hs, 2);
    return ra__host_finish(ctx, st, dev, &y, out);
}

/* The leading axes and the diagonal's length of a stack of matrices (ndim >= 2). */
static int diagonal_setup(ra_ctx *ctx, const char *fn, const ra_array *x, ra_array **out,
                          int64_t offset, int64_t *len)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    *out = NULL;
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", fn);
    if (x->ndim < 2)
        return ra__ctx_error(ctx, RA_E_SHAPE, "%s: x has %zu axes; a matrix needs 2", fn, x->ndim);
    int64_t m = x->shape[x->ndim - 2], n = x->shape[x->ndim - 1];
    /* element (i, i + offset): from row max(0, -offset) and column max(0, offset) */
    int64_t rows = offset < 0 ? m + offset : m, cols = offset > 0 ? n - offset : n;
    *len = rows < cols ? rows : cols;
    if (*len < 0) *len = 0;
    return RA_OK;
}

int ra_linalg_trace(ra_ctx *ctx, const ra_array *x, int64_t offset, ra_dtype dtype, ra_array **out)
{
    static const char fn[] = "linalg.trace";
    int64_t len;
    int st = diagonal_setup(ctx, fn, x, out, offset, &len);
    if (st != RA_OK) return st;
    if (!numeric(x->dtype))
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: x is %s; a numeric dtype is needed", fn,
                             ra_dtype_name(x->dtype));
    ra_dtype xd = x->dtype;
    if (dtype == RA_DTYPE_DEFAULT)
        dtype = ra__dtype_is_signed(xd) ? RA_INT64 : ra__dtype_is_unsigned(xd) ? RA_UINT64 : xd;
    bool fits = ra__dtype_is_complex(dtype) ||
                (ra__dtype_is_float(dtype) && !ra__dtype_is_complex(xd)) ||
                (ra__dtype_is_integer(dtype) && ra__dtype_is_integer(xd));
    if (!numeric(dtype) || !fits)
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: x is %s; its trace cannot be %s", fn,
                             ra_dtype_name(xd), ra_dtype_name(dtype));
    ra__host h, y = RA__HOST_INIT;
    ra__dev *dev;
    st = ra__staged_read(ctx, fn, &x, 1, &dev, &h);
    if (st != RA_OK) return st;
    size_t m = (size_t)h.shape[h.ndim - 2], n = (size_t)h.shape[h.ndim - 1], batch = 1;
    for (size_t i = 0; i + 2 < h.ndim; i++)
        batch *= (size_t)h.shape[i];
    st = ra__host_new(ctx, fn, dtype, h.ndim - 2, h.shape, &y);
    size_t r0 = offset < 0 ? (size_t)0 - (size_t)offset : 0, c0 = offset > 0 ? (size_t)offset : 0;
    bool integer = ra__dtype_is_integer(dtype);
    for (size_t b = 0; st == RA_OK && b < batch; b++) {
        num acc = {0, 0};
        for (int64_t i = 0; i < len; i++) {
            num v = get(&h, (b * m + r0 + (size_t)i) * n + c0 + (size_t)i, integer);
            acc.u += v.u;
            acc.c += v.c;
        }
        set(&y, b, acc, integer);
    }
    ra__host_free(ctx, &h);
    return ra__host_finish(ctx, st, dev, &y, out);
}

/* diagonal (offset) or matrix_transpose: element copies, any dtype. */
static int rearrange(ra_ctx *ctx, const char *fn, bool transpose, const ra_array *x, int64_t offset,
                     ra_array **out)
{
    int64_t len;
    int st = diagonal_setup(ctx, fn, x, out, offset, &len);
    if (st != RA_OK) return st;
    ra__host h, y = RA__HOST_INIT;
    ra__dev *dev;
    st = ra__staged_read(ctx, fn, &x, 1, &dev, &h);
    if (st != RA_OK) return st;
    size_t m = (size_t)h.shape[h.ndim - 2], n = (size_t)h.shape[h.ndim - 1], batch = 1;
    for (size_t i = 0; i + 2 < h.ndim; i++)
        batch *= (size_t)h.shape[i];
    int64_t shape[RA_MAX_NDIM];
    memcpy(shape, h.shape, h.ndim * sizeof *shape);
    if (transpose) {
        shape[h.ndim - 2] = (int64_t)n;
        shape[h.ndim - 1] = (int64_t)m;
    } else {
        shape[h.ndim - 2] = len;
    }
    st = ra__host_new(ctx, fn, h.dtype, transpose ? h.ndim : h.ndim - 1, shape, &y);
    size_t item = ra_dtype_size(h.dtype), r0 = offset < 0 ? (size_t)0 - (size_t)offset : 0;
    size_t c0 = offset > 0 ? (size_t)offset : 0;
    const char *src = h.data;
    char *dst = y.data;
    for (size_t b = 0; st == RA_OK && b < batch; b++) {
        const char *sm = src + b * m * n * item;
        if (transpose) {
            for (size_t i = 0; i < m; i++)
                for (size_t j = 0; j < n; j++)
                    memcpy(dst + ((b * n + j) * m + i) * item, sm + (i * n + j) * item, item);
        } else {
            for (size_t i = 0; i < (size_t)len; i++)
                memcpy(dst + (b * (size_t)len + i) * item, sm + ((r0 + i) * n + c0 + i) * item,
                       item);
        }
    }
    ra__host_free(ctx, &h);
    return ra__host_finish(ctx, st, dev, &y, out);
}

int ra_linalg_diagonal(ra_ctx *ctx, const ra_array *x, int64_t offset, ra_array **out)
{
    return rearrange(ctx, "linalg.diagonal", false, x, offset, out);
}

int ra_linalg_matrix_transpose(ra_ctx *ctx, const ra_array *x, ra_array **out)
{
    return rearrange(ctx, "matrix_transpose", true, x, 0, out);
}

/* One step of a vector norm's accumulation over |v|: a (and, for ord 2, the scale s of
 * LAPACK's dnrm2: the sum is s^2 a, no overflow). */
static void norm_add(double ord, double v, double *a, double *s)
{
    if (ord == INFINITY)
        *a = fmax(*a, v);
    else if (ord == -INFINITY)
        *a = fmin(*a, v);
    else if (ord == 0)
        *a += v != 0;
    else if (ord == 1)
        *a += v;
    else if (ord == 2) {
        if (v == 0) return;
        if (*s < v) {
            *a = 1 + *a * (*s / v) * (*s / v);
            *s = v;
        } else {
            *a += (v / *s) * (v / *s);
        }
    } else {
        *a += pow(v, ord);
    }
}

static double norm_end(double ord, double a, double s)
{
    if (ord == 2) return s * sqrt(a);
    if (ord == INFINITY || ord == -INFINITY || ord == 0 || ord == 1) return a;
    return pow(a, 1 / ord);
}

int ra_linalg_vector_norm(ra_ctx *ctx, const ra_array *x, const int64_t *axes, size_t naxes,
                          bool keepdims, double ord, ra_array **out)
{
    static const char fn[] = "linalg.vector_norm";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    *out = NULL;
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", fn);
    if (!ra__dtype_is_float(x->dtype) && !ra__dtype_is_complex(x->dtype))
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: x is %s; a floating dtype is needed", fn,
                             ra_dtype_name(x->dtype));
    if (ord != ord) return ra__ctx_error(ctx, RA_E_ARG, "%s: ord is NaN", fn);
    bool reduced[RA_MAX_NDIM] = {false};
    size_t ax[RA_MAX_NDIM];
    if (axes && naxes > x->ndim)
        return ra__ctx_error(ctx, RA_E_AXIS, "%s: %zu axes for %zu", fn, naxes, x->ndim);
    int st = RA_OK;
    if (axes) st = contracted_axes(ctx, fn, "x", axes, naxes, x->ndim, ax, reduced);
    for (size_t i = 0; !axes && i < x->ndim; i++)
        reduced[i] = true;
    if (st != RA_OK) return st;
    ra__host h, y = RA__HOST_INIT;
    ra__dev *dev;
    st = ra__staged_read(ctx, fn, &x, 1, &dev, &h);
    if (st != RA_OK) return st;
    int64_t shape[RA_MAX_NDIM], kshape[RA_MAX_NDIM], idx[RA_MAX_NDIM];
    size_t nd = 0;
    for (size_t i = 0; i < h.ndim; i++) {
        kshape[i] = reduced[i] ? 1 : h.shape[i];
        if (!reduced[i] || keepdims) shape[nd++] = kshape[i];
    }
    ra_dtype rd = h.dtype == RA_COMPLEX64    ? RA_FLOAT32
                  : h.dtype == RA_COMPLEX128 ? RA_FLOAT64
                                             : h.dtype;
    st = ra__host_new(ctx, fn, rd, nd, shape, &y);
    size_t count = y.size ? y.size : 1;
    double *acc = st == RA_OK ? ra__alloc(ctx, 2 * count * sizeof *acc) : NULL;
    if (st == RA_OK && !acc) st = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    for (size_t o = 0; st == RA_OK && o < y.size; o++) {
        acc[2 * o] = ord == -INFINITY ? INFINITY : 0;
        acc[2 * o + 1] = 0;
    }
    for (size_t i = 0; st == RA_OK && i < h.size; i++) {
        unflatten(i, h.ndim, h.shape, idx);
        size_t o = 0;
        for (size_t k = 0; k < h.ndim; k++)
            o = o * (size_t)kshape[k] + (reduced[k] ? 0 : (size_t)idx[k]);
        norm_add(ord, cabs(ra__hgetc(&h, i)), &acc[2 * o], &acc[2 * o + 1]);
    }
    for (size_t o = 0; st == RA_OK && o < y.size; o++)
        ra__hset(&y, o, norm_end(ord, acc[2 * o], acc[2 * o + 1]));
    ra__free(ctx, acc);
    ra__host_free(ctx, &h);
    return ra__host_finish(ctx, st, dev, &y, out);
}
