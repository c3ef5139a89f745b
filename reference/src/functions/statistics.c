/*
 * functions/statistics.c: the standard's statistical and utility functions (sum, prod, mean,
 * var, std, min, max, all, any, cumulative_sum, cumulative_prod, diff) on the staged path
 * (staged.h): x is read to the host on its device, reduced there in the widest type of the
 * result's kind (int64 and uint64 wrapping as the dtype does, double, double complex), and
 * the result written to a new array on x's device (DEV-DS-10).
 */
#include "staged.h"

#include <complex.h>
#include <math.h>
#include <refarray_fn_elementwise.h>
#include <string.h>

static const char *const stat_names[] = {
    [RA_STAT_SUM] = "sum", [RA_STAT_PROD] = "prod", [RA_STAT_MEAN] = "mean",
    [RA_STAT_VAR] = "var", [RA_STAT_STD] = "std",   [RA_STAT_MIN] = "min",
    [RA_STAT_MAX] = "max", [RA_STAT_ALL] = "all",   [RA_STAT_ANY] = "any",
};

const char *ra_stat_name(ra_stat_fn fn)
{
    if ((int)fn <= 0 || (size_t)fn >= sizeof stat_names / sizeof stat_names[0]) return NULL;
    return stat_names[fn];
}

/* sum's and prod's default dtype (the standard's): int64 for bool and signed integers,
 * uint64 for unsigned ones, x's own for floating dtypes. */
static ra_dtype sum_dtype(ra_dtype x)
{
    if (x == RA_BOOL || ra__dtype_is_signed(x)) return RA_INT64;
    if (ra__dtype_is_unsigned(x)) return RA_UINT64;
    return x;
}

static bool is_numeric(ra_dtype d)
{
    return d != RA_BOOL;
}

/* The result dtype of fn for x (and the dtype argument), or RA_E_DTYPE/RA_E_ARG. */
static int stat_dtype(ra_ctx *ctx, const char *name, ra_stat_fn fn, ra_dtype x, ra_dtype dtype,
                      ra_dtype *out)
{
    bool fl = ra__dtype_is_float(x), cx = ra__dtype_is_complex(x);
    if (dtype != RA_DTYPE_DEFAULT && fn != RA_STAT_SUM && fn != RA_STAT_PROD)
        return ra__ctx_error(ctx, RA_E_ARG, "%s takes no dtype", name);
    const char *want = NULL;
    switch (fn) {
    case RA_STAT_SUM:
    case RA_STAT_PROD:
        if (dtype != RA_DTYPE_DEFAULT && !ra__dtype_valid(dtype))
            return ra__ctx_error(ctx, RA_E_ARG, "%s: invalid dtype %d", name, (int)dtype);
        if (dtype != RA_DTYPE_DEFAULT && !is_numeric(dtype)) want = "a numeric dtype argument";
        *out = dtype != RA_DTYPE_DEFAULT ? dtype : sum_dtype(x);
        break;
    case RA_STAT_MEAN:
        if (!fl && !cx) want = "floating-point dtypes";
        *out = x;
        break;
    case RA_STAT_VAR:
    case RA_STAT_STD:
        if (!fl) want = "real floating-point dtypes";
        *out = x;
        break;
    case RA_STAT_MIN:
    case RA_STAT_MAX:
        if (x == RA_BOOL || cx) want = "real numeric dtypes";
        *out = x;
        break;
    default:
        *out = RA_BOOL;
        break;
    }
    if (want)
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: defined for %s, not %s", name, want,
                             ra_dtype_name(dtype != RA_DTYPE_DEFAULT ? dtype : x));
    if (dtype != RA_DTYPE_DEFAULT && (ra__dtype_is_complex(x) && !ra__dtype_is_complex(dtype)))
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: a %s array cannot be summed as %s", name,
                             ra_dtype_name(x), ra_dtype_name(dtype));
    return RA_OK;
}

/* Per output element: the accumulators of every function. */
typedef struct acc {
    double complex c; /* sum, prod, mean, var's first pass (complex and real floating) */
    double m2;        /* var: sum of squared deviations */
    int64_t i;
    uint64_t u;
    bool b, seen;
} acc;

static void acc_init(ra_stat_fn fn, acc *a)
{
    bool prod = fn == RA_STAT_PROD;
    a->c = prod ? 1.0 : 0.0;
    a->m2 = 0;
    a->i = prod ? 1 : 0;
    a->u = prod ? 1 : 0;
    a->b = fn == RA_STAT_ALL;
    a->seen = false;
}

/* Element j of x into accumulator a, the result's dtype rd deciding the kind. */
static void acc_add(ra_stat_fn fn, ra_dtype rd, const ra__host *x, size_t j, acc *a)
{
    switch (fn) {
    case RA_STAT_ALL:
        a->b = a->b && ra__hgetb(x, j);
        return;
    case RA_STAT_ANY:
        a->b = a->b || ra__hgetb(x, j);
        return;
    case RA_STAT_MIN:
    case RA_STAT_MAX: {
        bool mx = fn == RA_STAT_MAX;
        if (ra__dtype_is_signed(rd)) {
            int64_t v = ra__hgeti(x, j);
            if (!a->seen || (mx ? v > a->i : v < a->i)) a->i = v;
        } else if (ra__dtype_is_unsigned(rd)) {
            uint64_t v = ra__hgetu(x, j);
            if (!a->seen || (mx ? v > a->u : v < a->u)) a->u = v;
        } else {
            double v = ra__hget(x, j), cur = creal(a->c);
            if (!a->seen || isnan(v) || (!isnan(cur) && (mx ? v > cur : v < cur))) a->c = v;
        }
        a->seen = true;
        return;
    }
    default:
        break;
    }
    bool prod = fn == RA_STAT_PROD;
    if (ra__dtype_is_signed(rd) || rd == RA_BOOL) {
        uint64_t v = (uint64_t)ra__hgeti(x, j), cur = (uint64_t)a->i;
        a->i = (int64_t)(prod ? cur * v : cur + v);
    } else if (ra__dtype_is_unsigned(rd)) {
        uint64_t v = ra__hgetu(x, j);
        a->u = prod ? a->u * v : a->u + v;
    } else {
        double complex v = ra__hgetc(x, j);
        a->c = prod ? a->c * v : a->c + v;
    }
}

/* Element o of the result from its accumulator; n the number of elements reduced. */
static void acc_store(ra_stat_fn fn, double correction, size_t n, const acc *a, ra__host *y,
                      size_t o)
{
    ra_dtype rd = y->dtype;
    switch (fn) {
    case RA_STAT_ALL:
    case RA_STAT_ANY:
        ra__hsetb(y, o, a->b);
        return;
    case RA_STAT_MEAN:
        ra__hsetc(y, o, a->c / (double)n);
        return;
    case RA_STAT_VAR:
    case RA_STAT_STD: {
        double d = (double)n - correction;
        double v = d > 0 ? a->m2 / d : NAN;
        ra__hset(y, o, fn == RA_STAT_STD ? sqrt(v) : v);
        return;
    }
    default:
        break;
    }
    if (ra__dtype_is_signed(rd) || rd == RA_BOOL)
        ra__hseti(y, o, a->i);
    else if (ra__dtype_is_unsigned(rd))
        ra__hsetu(y, o, a->u);
    else
        ra__hsetc(y, o, a->c);
}

/* The output's flat index of each input element is the sum of its kept coordinates times the
 * output's strides: ostride[d] is 0 for a reduced axis. */
static void out_strides(size_t ndim, const int64_t *shape, const bool *reduced, size_t *ostride)
{
    size_t s = 1;
    for (size_t d = ndim; d-- > 0;) {
        ostride[d] = reduced[d] ? 0 : s;
        if (!reduced[d]) s *= (size_t)shape[d];
    }
}

/* The reduced axes as flags (axes NULL: all), checked; RA_E_AXIS for one out of range or
 * repeated. */
static int reduced_axes(ra_ctx *ctx, const char *name, size_t ndim, const int64_t *axes,
                        size_t naxes, bool *reduced)
{
    for (size_t d = 0; d < ndim; d++)
        reduced[d] = axes == NULL;
    for (size_t k = 0; axes && k < naxes; k++) {
        size_t a;
        int status = ra__axis(ctx, name, axes[k], ndim, &a);
        if (status != RA_OK) return status;
        if (reduced[a])
            return ra__ctx_error(ctx, RA_E_AXIS, "%s: axis %lld is given twice", name,
                                 (long long)axes[k]);
        reduced[a] = true;
    }
    return RA_OK;
}

int ra_statistic(ra_ctx *ctx, ra_stat_fn fn, const ra_array *x, const int64_t *axes, size_t naxes,
                 bool keepdims, ra_dtype dtype, double correction, ra_array **out)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_statistic: ctx is NULL");
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_statistic: out is NULL");
    *out = NULL;
    const char *name = ra_stat_name(fn);
    if (!name) return ra__ctx_error(ctx, RA_E_ARG, "ra_statistic: unknown function %d", (int)fn);
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", name);
    if (!axes && naxes) return ra__ctx_error(ctx, RA_E_NULL, "%s: axes is NULL", name);
    if (!(correction >= 0))
        return ra__ctx_error(ctx, RA_E_ARG, "%s: correction %g is negative", name, correction);
    /* A sharded array: sum and max over every axis or one go to ra_reduce, which reduces
     * each piece on its device (sharding-reduce); the rest is refused by the staged path. */
    if (x->layer && (fn == RA_STAT_SUM || fn == RA_STAT_MAX) && !keepdims &&
        dtype == RA_DTYPE_DEFAULT && (!axes || naxes == 1)) {
        int axis = axes ? (int)axes[0] : 0;
        if (axes && (axes[0] < INT32_MIN || axes[0] > INT32_MAX))
            return ra__ctx_error(ctx, RA_E_AXIS, "%s: axis %lld is out of range", name,
                                 (long long)axes[0]);
        return ra_reduce(ctx, fn == RA_STAT_SUM ? RA_SUM : RA_MAX, x, axes ? &axis : NULL, out);
    }
    ra_dtype rd;
    int status = stat_dtype(ctx, name, fn, x->dtype, dtype, &rd);
    bool reduced[RA_MAX_NDIM];
    if (status == RA_OK) status = reduced_axes(ctx, name, x->ndim, axes, naxes, reduced);
    if (status != RA_OK) return status;
    ra__dev *dev = NULL;
    ra__host hx, hy = RA__HOST_INIT;
    status = ra__staged_read(ctx, name, &x, 1, &dev, &hx);
    if (status != RA_OK) return status;
    int64_t oshape[RA_MAX_NDIM];
    size_t ondim = 0, n = 1, ostride[RA_MAX_NDIM];
    for (size_t d = 0; d < hx.ndim; d++) {
        if (reduced[d]) n *= (size_t)hx.shape[d];
        if (!reduced[d] || keepdims) oshape[ondim++] = reduced[d] ? 1 : hx.shape[d];
    }
    out_strides(hx.ndim, hx.shape, reduced, ostride);
    status = ra__host_new(ctx, name, rd, ondim, oshape, &hy);
    acc *accs = NULL;
    if (status == RA_OK) {
        accs = ra__alloc(ctx, (hy.size ? hy.size : 1) * sizeof *accs);
        if (!accs) status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", name);
    }
    if (status == RA_OK && n == 0 && hy.size && (fn == RA_STAT_MIN || fn == RA_STAT_MAX))
        status = ra__ctx_error(ctx, RA_E_EMPTY_REDUCTION, "%s of an empty axis has no value", name);
    ra_stat_fn first = fn == RA_STAT_VAR || fn == RA_STAT_STD ? RA_STAT_MEAN : fn;
    for (size_t o = 0; status == RA_OK && o < hy.size; o++)
        acc_init(first, &accs[o]);
    /* One pass over x, its coordinates counted to find each element's output. */
    for (int pass = 0; status == RA_OK && pass < (first != fn ? 2 : 1); pass++) {
        int64_t coord[RA_MAX_NDIM] = {0};
        size_t o = 0;
        for (size_t j = 0; j < hx.size; j++) {
            if (pass == 0) {
                acc_add(first, first == RA_STAT_MEAN ? RA_FLOAT64 : rd, &hx, j, &accs[o]);
            } else {
                double dv = ra__hget(&hx, j) - creal(accs[o].c) / (double)n;
                accs[o].m2 += dv * dv;
            }
            for (size_t d = hx.ndim; d-- > 0;) {
                o += ostride[d];
                if (++coord[d] < hx.shape[d]) break;
                o -= ostride[d] * (size_t)hx.shape[d];
                coord[d] = 0;
            }
        }
    }
    for (size_t o = 0; status == RA_OK && o < hy.size; o++)
        acc_store(fn, correction, n, &accs[o], &hy, o);
    ra__free(ctx, accs);
    ra__host_free(ctx, &hx);
    return ra__host_finish(ctx, status, dev, &hy, out);
}

int ra_cumulative(ra_ctx *ctx, bool prod, const ra_array *x, const int64_t *axis, ra_dtype dtype,
                  bool include_initial, ra_array **out)
{
    const char *name = prod ? "cumulative_prod" : "cumulative_sum";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", name);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", name);
    *out = NULL;
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", name);
    ra_stat_fn fn = prod ? RA_STAT_PROD : RA_STAT_SUM;
    ra_dtype rd;
    int status = stat_dtype(ctx, name, fn, x->dtype, dtype, &rd);
    if (status != RA_OK) return status;
    size_t ax = 0;
    if (!axis && x->ndim != 1)
        return ra__ctx_error(ctx, RA_E_AXIS,
                             "%s: axis is needed for a %zu-dimensional array (only a 1-D "
                             "one may leave it out)",
                             name, x->ndim);
    if (axis && (status = ra__axis(ctx, name, *axis, x->ndim, &ax)) != RA_OK) return status;
    ra__dev *dev = NULL;
    ra__host hx, hy = RA__HOST_INIT;
    status = ra__staged_read(ctx, name, &x, 1, &dev, &hx);
    if (status != RA_OK) return status;
    int64_t shape[RA_MAX_NDIM];
    memcpy(shape, hx.shape, hx.ndim * sizeof *shape);
    shape[ax] += include_initial ? 1 : 0;
    status = ra__host_new(ctx, name, rd, hx.ndim, shape, &hy);
    size_t len = (size_t)hx.shape[ax], olen = (size_t)shape[ax];
    size_t inner = (size_t)ra__shape_size(hx.shape + ax + 1, hx.ndim - ax - 1);
    size_t outer = (size_t)ra__shape_size(hx.shape, ax);
    for (size_t p = 0; status == RA_OK && p < outer; p++) {
        for (size_t q = 0; q < inner; q++) {
            acc a;
            acc_init(fn, &a);
            size_t o = p * olen * inner + q;
            if (include_initial) {
                acc_store(fn, 0, 0, &a, &hy, o);
                o += inner;
            }
            for (size_t k = 0; k < len; k++, o += inner) {
                acc_add(fn, rd, &hx, p * len * inner + k * inner + q, &a);
                acc_store(fn, 0, 0, &a, &hy, o);
            }
        }
    }
    ra__host_free(ctx, &hx);
    return ra__host_finish(ctx, status, dev, &hy, out);
}

int ra_diff(ra_ctx *ctx, const ra_array *x, int64_t axis, int64_t n, const ra_array *prepend,
            const ra_array *append, ra_array **out)
{
    const char *name = "diff";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "diff: ctx is NULL");
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "diff: out is NULL");
    *out = NULL;
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "diff: x is NULL");
    if (n < 0) return ra__ctx_error(ctx, RA_E_ARG, "diff: n is %lld, not >= 0", (long long)n);
    const ra_array *xs[3] = {x, NULL, NULL};
    size_t m = 1;
    ra_dtype dt = x->dtype;
    const ra_array *extra[2] = {prepend, append};
    for (int k = 0; k < 2; k++) {
        if (!extra[k]) continue;
        ra_dtype j = ra__dtype_promote(dt, extra[k]->dtype);
        if (j == RA_DTYPE_DEFAULT)
            return ra__ctx_error(ctx, RA_E_DTYPE, "diff: no promotion between %s and %s (%s)",
                                 ra_dtype_name(dt), ra_dtype_name(extra[k]->dtype),
                                 k ? "append" : "prepend");
        dt = j;
        xs[m++] = extra[k];
    }
    if (dt == RA_BOOL)
        return ra__ctx_error(ctx, RA_E_DTYPE, "diff: defined for numeric dtypes, not bool");
    size_t ax = 0;
    int status = x->ndim == 0 ? ra__ctx_error(ctx, RA_E_AXIS, "diff: x is 0-d, it has no axis")
                              : ra__axis(ctx, name, axis, x->ndim, &ax);
    for (size_t k = 1; status == RA_OK && k < m; k++) {
        bool ok = xs[k]->ndim == x->ndim;
        for (size_t d = 0; ok && d < x->ndim; d++)
            ok = d == ax || xs[k]->shape[d] == x->shape[d];
        if (!ok)
            status =
                ra__ctx_error(ctx, RA_E_SHAPE, "diff: %s must have x's shape but along axis %zu",
                              xs[k] == prepend ? "prepend" : "append", ax);
    }
    if (status != RA_OK) return status;
    ra__dev *dev = NULL;
    ra__host hs[3], cur = RA__HOST_INIT, next = RA__HOST_INIT;
    status = ra__staged_read(ctx, name, xs, m, &dev, hs);
    if (status != RA_OK) return status;
    /* The joined array: prepend, x, append along the axis. */
    int64_t shape[RA_MAX_NDIM];
    memcpy(shape, x->shape, x->ndim * sizeof *shape);
    shape[ax] = 0;
    for (size_t k = 0; k < m; k++)
        shape[ax] += hs[k].shape[ax];
    size_t inner = (size_t)ra__shape_size(shape + ax + 1, x->ndim - ax - 1);
    size_t outer = (size_t)ra__shape_size(shape, ax);
    status = ra__host_new(ctx, name, dt, x->ndim, shape, &cur);
    const ra__host *order[3];
    size_t no = 0;
    if (prepend) order[no++] = &hs[1];
    order[no++] = &hs[0];
    if (append) order[no++] = &hs[m - 1];
    bool cx = ra__dtype_is_complex(dt), fl = ra__dtype_is_float(dt);
    size_t len = (size_t)shape[ax];
    for (size_t p = 0; status == RA_OK && p < outer; p++) {
        size_t at = 0;
        for (size_t k = 0; k < no; k++) {
            size_t l = (size_t)order[k]->shape[ax];
            for (size_t r = 0; r < l * inner; r++, at++) {
                size_t src = p * l * inner + r, dst = p * len * inner + at;
                if (cx)
                    ra__hsetc(&cur, dst, ra__hgetc(order[k], src));
                else if (fl)
                    ra__hset(&cur, dst, ra__hget(order[k], src));
                else if (ra__dtype_is_unsigned(dt))
                    ra__hsetu(&cur, dst, ra__hgetu(order[k], src));
                else
                    ra__hseti(&cur, dst, ra__hgeti(order[k], src));
            }
        }
    }
    ra__host_free_all(ctx, hs, m);
    /* n differences, each one shorter along the axis (none left: length 0). */
    for (int64_t step = 0; status == RA_OK && step < n && shape[ax] > 0; step++) {
        size_t l = (size_t)shape[ax];
        shape[ax] -= 1;
        status = ra__host_new(ctx, name, dt, x->ndim, shape, &next);
        for (size_t p = 0; status == RA_OK && p < outer; p++)
            for (size_t r = 0; r < (l - 1) * inner; r++) {
                size_t a = p * l * inner + r, b = a + inner, dst = p * (l - 1) * inner + r;
                if (cx)
                    ra__hsetc(&next, dst, ra__hgetc(&cur, b) - ra__hgetc(&cur, a));
                else if (fl)
                    ra__hset(&next, dst, ra__hget(&cur, b) - ra__hget(&cur, a));
                else
                    ra__hsetu(&next, dst, ra__hgetu(&cur, b) - ra__hgetu(&cur, a));
            }
        ra__host_free(ctx, &cur);
        cur = next;
        next = (ra__host)RA__HOST_INIT;
    }
    return ra__host_finish(ctx, status, dev, &cur, out);
}
