/* creation.c: the creation functions (zeros, ones, empty, full, arange, linspace, eye, the
 * *_like functions, asarray) and astype. */
#include "internal.h"

#include <math.h>
#include <string.h>

/* Common checks: ctx and out, then *out = NULL. */
#define CHECK_CTX_OUT(fn)                                                                          \
    do {                                                                                           \
        if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);                    \
        if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);                     \
        *out = NULL;                                                                               \
    } while (0)

/* Checks the caller's options (their size, refarray.h "Conventions") and points *opts at a
 * complete copy in *local, so that what follows reads every field whatever layout the caller
 * was compiled with. NULL options stay NULL. */
static int load_opts(ra_ctx *ctx, const ra_opts **opts, ra_opts *local, const char *fn)
{
    if (!*opts) return RA_OK;
    int status = ra__opts_load(ctx, *opts, fn, local);
    if (status != RA_OK) return status;
    *opts = local;
    return RA_OK;
}

/* load_opts, then the dtype option's value. */
static int check_dtype_opt(ra_ctx *ctx, const ra_opts **opts, ra_opts *local, const char *fn)
{
    int status = load_opts(ctx, opts, local, fn);
    if (status != RA_OK) return status;
    const ra_opts *o = *opts;
    if (o && o->dtype != RA_DTYPE_DEFAULT && !ra__dtype_valid(o->dtype))
        return ra__ctx_error(ctx, RA_E_ARG, "%s: invalid dtype value %d", fn, (int)o->dtype);
    return RA_OK;
}

static ra_dtype opt_dtype(const ra_opts *opts, ra_dtype fallback)
{
    return opts && opts->dtype != RA_DTYPE_DEFAULT ? opts->dtype : fallback;
}

static ra_copy opt_copy(const ra_opts *opts, ra_copy fallback)
{
    return opts && opts->copy != RA_COPY_DEFAULT ? opts->copy : fallback;
}

/* Creates an array of the given shape on the inferred device, filled with value (one
 * element of the dtype) or left zero when value is NULL. */
static int create_filled(ra_ctx *ctx, const char *fn, const int64_t *shape, size_t ndim,
                         const ra_opts *opts, const ra__dev *array_dev, const ra_scalar *fill,
                         ra_dtype dtype_hint, ra_array **out)
{
    ra_opts local;
    int status = check_dtype_opt(ctx, &opts, &local, fn);
    if (status != RA_OK) return status;
    int64_t size;
    status = ra__shape_check(ctx, shape, ndim, &size, fn);
    if (status != RA_OK) return status;
    ra__dev *dev;
    status = ra__infer_device(ctx, opts, array_dev, fn, &dev);
    if (status != RA_OK) return status;
    ra_dtype dtype = dtype_hint;
    if (dtype == RA_DTYPE_DEFAULT)
        dtype = fill ? ra__scalar_default_dtype(dev, *fill) : ra__default_float(dev);
    dtype = opt_dtype(opts, dtype);
    status = ra__dtype_require(ctx, dev, dtype, fn);
    if (status != RA_OK) return status;
    unsigned char elem[16];
    if (fill) {
        status = ra__scalar_to_element(ctx, *fill, dtype, elem, fn);
        if (status != RA_OK) return status;
    }
    ra_array *x;
    status = ra__array_new(ctx, dev, dtype, shape, ndim, &x);
    if (status != RA_OK) return status;
    if (fill) {
        /* Memory is zeroed at allocation; skip the fill when the value's bytes are zero.
         * (-0.0 is not all-zero bytes, so it is filled.) */
        bool zero = true;
        for (size_t i = 0; i < ra_dtype_size(dtype); i++)
            zero = zero && elem[i] == 0;
        if (!zero) status = ra__array_fill(ctx, x, elem);
    }
    return ra__array_hand_out(status, x, out);
}

int ra_zeros(ra_ctx *ctx, const int64_t *shape, size_t ndim, const ra_opts *opts, ra_array **out)
{
    CHECK_CTX_OUT("ra_zeros");
    return create_filled(ctx, "ra_zeros", shape, ndim, opts, NULL, NULL, RA_DTYPE_DEFAULT, out);
}

int ra_empty(ra_ctx *ctx, const int64_t *shape, size_t ndim, const ra_opts *opts, ra_array **out)
{
    CHECK_CTX_OUT("ra_empty");
    return create_filled(ctx, "ra_empty", shape, ndim, opts, NULL, NULL, RA_DTYPE_DEFAULT, out);
}

/* ones: the fill is 1 of the result's kind (true for bool). */
static ra_scalar one_for(ra_dtype dtype)
{
    if (dtype == RA_BOOL) return ra_scalar_bool(true);
    if (ra__dtype_is_integer(dtype)) return ra_scalar_int(1);
    if (ra__dtype_is_complex(dtype)) return ra_scalar_complex(1.0, 0.0);
    return ra_scalar_float(1.0);
}

static int ones_impl(ra_ctx *ctx, const char *fn, const int64_t *shape, size_t ndim,
                     const ra_opts *opts, const ra__dev *array_dev, ra_dtype like_dtype,
                     ra_array **out)
{
    /* The dtype decides the fill's kind, and the dtype may depend on the device (float64 or
     * float32), so resolve the device first. */
    ra_opts local;
    int status = check_dtype_opt(ctx, &opts, &local, fn);
    if (status != RA_OK) return status;
    ra__dev *dev;
    status = ra__infer_device(ctx, opts, array_dev, fn, &dev);
    if (status != RA_OK) return status;
    ra_dtype dtype =
        opt_dtype(opts, like_dtype != RA_DTYPE_DEFAULT ? like_dtype : ra__default_float(dev));
    ra_scalar one = one_for(dtype);
    ra_opts o = {.dtype = dtype, .device_value = &dev->device};
    return create_filled(ctx, fn, shape, ndim, &o, NULL, &one, dtype, out);
}

int ra_ones(ra_ctx *ctx, const int64_t *shape, size_t ndim, const ra_opts *opts, ra_array **out)
{
    CHECK_CTX_OUT("ra_ones");
    return ones_impl(ctx, "ra_ones", shape, ndim, opts, NULL, RA_DTYPE_DEFAULT, out);
}

int ra_full(ra_ctx *ctx, const int64_t *shape, size_t ndim, ra_scalar fill_value,
            const ra_opts *opts, ra_array **out)
{
    CHECK_CTX_OUT("ra_full");
    return create_filled(ctx, "ra_full", shape, ndim, opts, NULL, &fill_value, RA_DTYPE_DEFAULT,
                         out);
}

/* ---- the *_like functions ---- */

#define CHECK_X(fn)                                                                                \
    do {                                                                                           \
        if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", fn);                         \
        RA__REFUSE_LAYERED(ctx, x, fn);                                                            \
    } while (0)

int ra_zeros_like(ra_ctx *ctx, const ra_array *x, const ra_opts *opts, ra_array **out)
{
    CHECK_CTX_OUT("ra_zeros_like");
    CHECK_X("ra_zeros_like");
    return create_filled(ctx, "ra_zeros_like", x->shape, x->ndim, opts, x->dev, NULL, x->dtype,
                         out);
}

int ra_empty_like(ra_ctx *ctx, const ra_array *x, const ra_opts *opts, ra_array **out)
{
    CHECK_CTX_OUT("ra_empty_like");
    CHECK_X("ra_empty_like");
    return create_filled(ctx, "ra_empty_like", x->shape, x->ndim, opts, x->dev, NULL, x->dtype,
                         out);
}

int ra_ones_like(ra_ctx *ctx, const ra_array *x, const ra_opts *opts, ra_array **out)
{
    CHECK_CTX_OUT("ra_ones_like");
    CHECK_X("ra_ones_like");
    return ones_impl(ctx, "ra_ones_like", x->shape, x->ndim, opts, x->dev, x->dtype, out);
}

int ra_full_like(ra_ctx *ctx, const ra_array *x, ra_scalar fill_value, const ra_opts *opts,
                 ra_array **out)
{
    CHECK_CTX_OUT("ra_full_like");
    CHECK_X("ra_full_like");
    return create_filled(ctx, "ra_full_like", x->shape, x->ndim, opts, x->dev, &fill_value,
                         x->dtype, out);
}

/* ---- arrays computed on the host and written to the device ---- */

/* Creates a 1-D or 2-D array from host values in double (or int64 for integer dtypes)
 * converted to dtype. */
static int create_from_host(ra_ctx *ctx, const char *fn, ra__dev *dev, ra_dtype dtype,
                            const int64_t *shape, size_t ndim, const void *host,
                            ra_dtype host_dtype, ra_array **out)
{
    ra_array *x;
    int status = ra__array_new(ctx, dev, dtype, shape, ndim, &x);
    if (status != RA_OK) return status;
    if (x->nbytes) {
        void *conv = ra__alloc(ctx, x->nbytes);
        if (!conv) {
            ra_array_release(x);
            return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory for a staging buffer", fn);
        }
        ra__host_cast(conv, dtype, host, host_dtype, (size_t)x->size);
        status = ra__array_write(ctx, x, conv);
        ra__free(ctx, conv);
    }
    return ra__array_hand_out(status, x, out);
}

static bool scalar_real(ra_scalar s, double *v, bool *is_int)
{
    if (s.kind == RA_SCALAR_INT) {
        *v = s.u ? (double)(uint64_t)s.i : (double)s.i;
        *is_int = true;
        return true;
    }
    if (s.kind == RA_SCALAR_FLOAT) {
        *v = s.re;
        *is_int = false;
        return true;
    }
    return false;
}

int ra_arange(ra_ctx *ctx, ra_scalar start, const ra_scalar *stop, const ra_scalar *step,
              const ra_opts *opts, ra_array **out)
{
    static const char fn[] = "ra_arange";
    CHECK_CTX_OUT(fn);
    ra_opts local;
    int status = check_dtype_opt(ctx, &opts, &local, fn);
    if (status != RA_OK) return status;
    ra_scalar s0 = stop ? start : ra_scalar_int(0);
    ra_scalar s1 = stop ? *stop : start;
    ra_scalar st = step ? *step : ra_scalar_int(1);
    double a, b, c;
    bool ia, ib, ic;
    if (!scalar_real(s0, &a, &ia) || !scalar_real(s1, &b, &ib) || !scalar_real(st, &c, &ic))
        return ra__ctx_error(ctx, RA_E_ARG, "%s: start, stop and step must be int or float", fn);
    if (!isfinite(a) || !isfinite(b) || !isfinite(c))
        return ra__ctx_error(ctx, RA_E_ARG, "%s: start, stop and step must be finite", fn);
    if (c == 0.0) return ra__ctx_error(ctx, RA_E_ARG, "%s: step must not be zero", fn);
    /* Integer ranges are computed in int64: an int at or above 2^63 is out of their range. */
    const ra_scalar *big = s0.kind == RA_SCALAR_INT && s0.u   ? &s0
                           : s1.kind == RA_SCALAR_INT && s1.u ? &s1
                           : st.kind == RA_SCALAR_INT && st.u ? &st
                                                              : NULL;
    if (big != NULL)
        return ra__ctx_error(ctx, RA_E_SCALAR_RANGE,
                             "%s: the Python int %llu is beyond int64, where ranges are computed",
                             fn, (unsigned long long)(uint64_t)big->i);
    bool all_int = ia && ib && ic;
    ra__dev *dev;
    status = ra__infer_device(ctx, opts, NULL, fn, &dev);
    if (status != RA_OK) return status;
    ra_dtype dtype = opt_dtype(opts, all_int ? RA_INT64 : ra__default_float(dev));
    if (dtype == RA_BOOL || ra__dtype_is_complex(dtype))
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: dtype %s is not a real numeric type", fn,
                             ra_dtype_name(dtype));
    if (!all_int && ra__dtype_is_integer(dtype))
        return ra__ctx_error(ctx, RA_E_DTYPE,
                             "%s: float arguments cannot make an integer range (%s)", fn,
                             ra_dtype_name(dtype));
    status = ra__dtype_require(ctx, dev, dtype, fn);
    if (status != RA_OK) return status;
    /* Length ceil((stop - start) / step), at least 0; integers exactly. */
    int64_t n;
    if (all_int) {
        int64_t i0 = s0.i, i1 = s1.i, is = st.i;
        bool up = is > 0;
        if (up ? i1 <= i0 : i1 >= i0) {
            n = 0;
        } else {
            /* The distance and the step's magnitude in unsigned arithmetic, where both are
             * exact (the distance of two int64 values is below 2^64). */
            uint64_t dist = up ? (uint64_t)i1 - (uint64_t)i0 : (uint64_t)i0 - (uint64_t)i1;
            uint64_t mag = up ? (uint64_t)is : 0 - (uint64_t)is;
            uint64_t count = dist / mag + (dist % mag != 0);
            if (count > (uint64_t)9e15)
                return ra__ctx_error(ctx, RA_E_TOO_LARGE, "%s: the range is too long", fn);
            n = (int64_t)count;
        }
    } else {
        double span = ceil((b - a) / c);
        if (!(span > 0))
            n = 0;
        else if (span > 9.0e15)
            return ra__ctx_error(ctx, RA_E_TOO_LARGE, "%s: the range is too long", fn);
        else
            n = (int64_t)span;
    }
    int64_t shape[1] = {n};
    size_t cap = n ? (size_t)n : 1;
    if ((uint64_t)cap > SIZE_MAX / 8)
        return ra__ctx_error(ctx, RA_E_TOO_LARGE, "%s: the range is too long", fn);
    void *host = ra__alloc(ctx, cap * 8);
    if (!host)
        return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory for %lld values", fn,
                             (long long)n);
    if (all_int) {
        int64_t *v = host;
        /* Wrapping unsigned arithmetic: every value lies between start and stop, so the
         * result is exact even where i * step alone would overflow. */
        for (int64_t i = 0; i < n; i++)
            v[i] = (int64_t)((uint64_t)s0.i + (uint64_t)i * (uint64_t)st.i);
    } else {
        double *v = host;
        for (int64_t i = 0; i < n; i++)
            v[i] = a + (double)i * c;
    }
    status =
        create_from_host(ctx, fn, dev, dtype, shape, 1, host, all_int ? RA_INT64 : RA_FLOAT64, out);
    ra__free(ctx, host);
    return status;
}

int ra_linspace(ra_ctx *ctx, ra_scalar start, ra_scalar stop, int64_t num, bool endpoint,
                const ra_opts *opts, ra_array **out)
{
    static const char fn[] = "ra_linspace";
    CHECK_CTX_OUT(fn);
    ra_opts local;
    int status = check_dtype_opt(ctx, &opts, &local, fn);
    if (status != RA_OK) return status;
    /* Complex bounds (2022.12): each part spaced on its own, the default dtype complex. */
    double a[2] = {0, 0}, b[2] = {0, 0};
    bool ia, ib, cx = start.kind == RA_SCALAR_COMPLEX || stop.kind == RA_SCALAR_COMPLEX;
    if (start.kind == RA_SCALAR_COMPLEX) a[0] = start.re, a[1] = start.im;
    if (stop.kind == RA_SCALAR_COMPLEX) b[0] = stop.re, b[1] = stop.im;
    if ((start.kind != RA_SCALAR_COMPLEX && !scalar_real(start, &a[0], &ia)) ||
        (stop.kind != RA_SCALAR_COMPLEX && !scalar_real(stop, &b[0], &ib)))
        return ra__ctx_error(ctx, RA_E_ARG, "%s: start and stop must be int, float or complex", fn);
    if (num < 0)
        return ra__ctx_error(ctx, RA_E_ARG, "%s: num is %lld; it must be >= 0", fn, (long long)num);
    ra__dev *dev;
    status = ra__infer_device(ctx, opts, NULL, fn, &dev);
    if (status != RA_OK) return status;
    ra_dtype real_default = ra__default_float(dev);
    ra_dtype dtype = opt_dtype(
        opts, cx ? (real_default == RA_FLOAT64 ? RA_COMPLEX128 : RA_COMPLEX64) : real_default);
    if (!ra__dtype_is_float(dtype) && !ra__dtype_is_complex(dtype))
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: dtype %s is not floating", fn,
                             ra_dtype_name(dtype));
    if (cx && !ra__dtype_is_complex(dtype))
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: complex bounds need a complex dtype, not %s", fn,
                             ra_dtype_name(dtype));
    status = ra__dtype_require(ctx, dev, dtype, fn);
    if (status != RA_OK) return status;
    int64_t shape[1] = {num};
    int64_t size;
    status = ra__shape_check(ctx, shape, 1, &size, fn);
    if (status != RA_OK) return status;
    if ((uint64_t)num > SIZE_MAX / 16)
        return ra__ctx_error(ctx, RA_E_TOO_LARGE, "%s: num is too large", fn);
    size_t parts = cx ? 2 : 1;
    double *host = ra__alloc(ctx, (num ? (size_t)num : 1) * parts * sizeof(double));
    if (!host)
        return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory for %lld values", fn,
                             (long long)num);
    int64_t div = endpoint ? num - 1 : num;
    for (size_t p = 0; p < parts; p++) {
        double step = div > 0 ? (b[p] - a[p]) / (double)div : 0.0;
        for (int64_t i = 0; i < num; i++)
            host[(size_t)i * parts + p] = a[p] + (double)i * step;
        /* exactly stop, not start + (num-1)*step */
        if (endpoint && num > 1) host[(size_t)(num - 1) * parts + p] = b[p];
    }
    status =
        create_from_host(ctx, fn, dev, dtype, shape, 1, host, cx ? RA_COMPLEX128 : RA_FLOAT64, out);
    ra__free(ctx, host);
    return status;
}

int ra_eye(ra_ctx *ctx, int64_t n_rows, int64_t n_cols, int64_t k, const ra_opts *opts,
           ra_array **out)
{
    static const char fn[] = "ra_eye";
    CHECK_CTX_OUT(fn);
    if (n_rows < 0)
        return ra__ctx_error(ctx, RA_E_ARG, "%s: n_rows is %lld; it must be >= 0", fn,
                             (long long)n_rows);
    if (n_cols < 0) n_cols = n_rows;
    int64_t shape[2] = {n_rows, n_cols};
    ra_array *x;
    int status = create_filled(ctx, fn, shape, 2, opts, NULL, NULL, RA_DTYPE_DEFAULT, &x);
    if (status != RA_OK) return status;
    if (x->nbytes) {
        /* Build on the host in the array's dtype, then write. */
        unsigned char one[16];
        status = ra__scalar_to_element(ctx, one_for(x->dtype), x->dtype, one, fn);
        unsigned char *host = status == RA_OK ? ra__calloc(ctx, 1, x->nbytes) : NULL;
        if (status == RA_OK && !host)
            status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory for a staging buffer", fn);
        if (status == RA_OK) {
            size_t es = ra_dtype_size(x->dtype);
            for (int64_t r = 0; r < n_rows; r++) {
                int64_t c = r + k;
                if (c >= 0 && c < n_cols) memcpy(host + (size_t)(r * n_cols + c) * es, one, es);
            }
            status = ra__array_write(ctx, x, host);
        }
        ra__free(ctx, host);
    }
    return ra__array_hand_out(status, x, out);
}

/* ---- asarray and astype ---- */

int ra_asarray_buffer(ra_ctx *ctx, const void *data, ra_dtype dtype, const int64_t *shape,
                      size_t ndim, const ra_opts *opts, ra_array **out)
{
    static const char fn[] = "ra_asarray_buffer";
    CHECK_CTX_OUT(fn);
    if (!ra__dtype_valid(dtype))
        return ra__ctx_error(ctx, RA_E_ARG, "%s: invalid dtype value %d", fn, (int)dtype);
    ra_opts local;
    int status = check_dtype_opt(ctx, &opts, &local, fn);
    if (status != RA_OK) return status;
    int64_t size;
    status = ra__shape_check(ctx, shape, ndim, &size, fn);
    if (status != RA_OK) return status;
    if (!data && size > 0)
        return ra__ctx_error(ctx, RA_E_NULL, "%s: data is NULL for %lld elements", fn,
                             (long long)size);
    if (opts && opts->copy == RA_COPY_NEVER)
        return ra__ctx_error(ctx, RA_E_COPY,
                             "%s: copy=False, but refarray always copies host memory", fn);
    ra_dtype target = opt_dtype(opts, dtype);
    if (ra__dtype_is_complex(dtype) && !ra__dtype_is_complex(target))
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: complex data cannot become %s", fn,
                             ra_dtype_name(target));
    ra__dev *dev;
    status = ra__infer_device(ctx, opts, NULL, fn, &dev);
    if (status != RA_OK) return status;
    status = ra__dtype_require(ctx, dev, target, fn);
    if (status != RA_OK) return status;
    return create_from_host(ctx, fn, dev, target, shape, ndim, data, dtype, out);
}

int ra_asarray_scalar(ra_ctx *ctx, ra_scalar value, const ra_opts *opts, ra_array **out)
{
    CHECK_CTX_OUT("ra_asarray_scalar");
    return create_filled(ctx, "ra_asarray_scalar", NULL, 0, opts, NULL, &value, RA_DTYPE_DEFAULT,
                         out);
}

/* The device for asarray(x)/astype(x): explicit, else x's own (or the scope first under
 * the legacy inference order). */
static int convert(ra_ctx *ctx, const char *fn, const ra_array *x, ra_dtype dtype,
                   const ra_opts *opts, ra_copy copy, ra_array **out)
{
    if (!ra__dtype_valid(dtype))
        return ra__ctx_error(ctx, RA_E_ARG, "%s: invalid dtype value %d", fn, (int)dtype);
    if (copy < RA_COPY_IF_NEEDED || copy > RA_COPY_NEVER)
        return ra__ctx_error(ctx, RA_E_ARG, "%s: invalid copy value %d", fn, (int)copy);
    if (ra__dtype_is_complex(x->dtype) && !ra__dtype_is_complex(dtype))
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: cannot convert %s to %s", fn,
                             ra_dtype_name(x->dtype), ra_dtype_name(dtype));
    ra__dev *dev;
    int status = ra__infer_device(ctx, opts, x->dev, fn, &dev);
    if (status != RA_OK) return status;
    status = ra__dtype_require(ctx, dev, dtype, fn);
    if (status != RA_OK) return status;
    bool same = dev == x->dev && dtype == x->dtype;
    if (same && copy != RA_COPY_ALWAYS) {
        *out = ra_array_retain(x);
        return RA_OK;
    }
    if (!same && copy == RA_COPY_NEVER) {
        char b1[RA_DEVICE_STR_MAX], b2[RA_DEVICE_STR_MAX];
        return ra__ctx_error(ctx, RA_E_COPY,
                             "%s: copy=False, but %s on '%s' to %s on '%s' needs a copy", fn,
                             ra_dtype_name(x->dtype), ra__device_str(x->dev->device, b1),
                             ra_dtype_name(dtype), ra__device_str(dev->device, b2));
    }
    /* Cast first where the destination cannot hold x's dtype (float64 to a device without
     * it); otherwise move first and cast on the destination. */
    if (dev != x->dev && dtype != x->dtype && !ra__dtype_on_device(dev, x->dtype)) {
        ra_array *cast = NULL;
        status = ra__array_cast(ctx, x, dtype, &cast);
        if (status != RA_OK) return status;
        status = ra__array_copy_to(ctx, cast, dev, NULL, out);
        ra_array_release(cast);
        return status;
    }
    ra_array *moved = NULL;
    if (dev != x->dev || dtype == x->dtype) {
        status = ra__array_copy_to(ctx, x, dev, NULL, &moved);
        if (status != RA_OK) return status;
    } else {
        moved = ra_array_retain(x);
    }
    if (dtype == moved->dtype) {
        *out = moved;
        return RA_OK;
    }
    ra_array *cast = NULL;
    status = ra__array_cast(ctx, moved, dtype, &cast);
    ra_array_release(moved);
    if (status != RA_OK) return status;
    *out = cast;
    return RA_OK;
}

int ra_asarray(ra_ctx *ctx, const ra_array *x, const ra_opts *opts, ra_array **out)
{
    static const char fn[] = "ra_asarray";
    CHECK_CTX_OUT(fn);
    CHECK_X(fn);
    ra_opts local;
    int status = check_dtype_opt(ctx, &opts, &local, fn);
    if (status != RA_OK) return status;
    ra_copy copy = opt_copy(opts, RA_COPY_IF_NEEDED);
    return convert(ctx, fn, x, opt_dtype(opts, x->dtype), opts, copy, out);
}

int ra_astype(ra_ctx *ctx, const ra_array *x, ra_dtype dtype, const ra_opts *opts, ra_array **out)
{
    static const char fn[] = "ra_astype";
    CHECK_CTX_OUT(fn);
    CHECK_X(fn);
    ra_opts o;
    int status = load_opts(ctx, &opts, &o, fn);
    if (status != RA_OK) return status;
    ra_copy copy = opt_copy(opts, RA_COPY_ALWAYS);
    /* astype's dtype argument is the dtype; a dtype in the options is not used. */
    if (!opts) memset(&o, 0, sizeof o);
    o.dtype = RA_DTYPE_DEFAULT;
    return convert(ctx, fn, x, dtype, &o, copy, out);
}

int ra_from_dlpack(ra_ctx *ctx, const ra_array *x, const ra_opts *opts, ra_array **out)
{
    static const char fn[] = "ra_from_dlpack";
    CHECK_CTX_OUT(fn);
    CHECK_X(fn);
    ra_opts local;
    int status = load_opts(ctx, &opts, &local, fn);
    if (status != RA_OK) return status;
    if (opts && opts->dtype != RA_DTYPE_DEFAULT)
        return ra__ctx_error(ctx, RA_E_ARG, "%s: DLPack keeps the dtype; dtype must not be given",
                             fn);
    ra_copy copy = opt_copy(opts, RA_COPY_IF_NEEDED);
    if (copy == RA_COPY_NEVER) {
        /* DLPack's own error for an impossible zero-copy import is BufferError
         * (DEV-DLP-16); asarray's is ValueError. */
        ra__dev *dev;
        status = ra__infer_device(ctx, opts, x->dev, fn, &dev);
        if (status != RA_OK) return status;
        if (dev != x->dev) {
            char b1[RA_DEVICE_STR_MAX], b2[RA_DEVICE_STR_MAX];
            return ra__ctx_error(
                ctx, RA_E_BUFFER, "%s: copy=False, but moving from '%s' to '%s' needs a copy", fn,
                ra__device_str(x->dev->device, b1), ra__device_str(dev->device, b2));
        }
    }
    return convert(ctx, fn, x, x->dtype, opts, copy, out);
}

/* fftfreq and rfftfreq share everything but the values. */
static int fft_freq(ra_ctx *ctx, const char *fn, bool real, int64_t n, double d,
                    const ra_opts *opts, ra_array **out)
{
    CHECK_CTX_OUT(fn);
    ra_opts local;
    int status = check_dtype_opt(ctx, &opts, &local, fn);
    if (status != RA_OK) return status;
    if (n < 1)
        return ra__ctx_error(ctx, RA_E_ARG, "%s: n is %lld; it must be >= 1", fn, (long long)n);
    if (!(d != 0.0) || !isfinite(d))
        return ra__ctx_error(ctx, RA_E_ARG, "%s: d is %g; it must be finite and nonzero", fn, d);
    if ((uint64_t)n > SIZE_MAX / sizeof(double) / 2)
        return ra__ctx_error(ctx, RA_E_TOO_LARGE, "%s: n is too large", fn);
    ra__dev *dev;
    status = ra__infer_device(ctx, opts, NULL, fn, &dev);
    if (status != RA_OK) return status;
    ra_dtype dtype = opt_dtype(opts, ra__default_float(dev));
    if (!ra__dtype_is_float(dtype))
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: dtype %s is not real floating", fn,
                             ra_dtype_name(dtype));
    status = ra__dtype_require(ctx, dev, dtype, fn);
    if (status != RA_OK) return status;
    int64_t len = real ? n / 2 + 1 : n;
    double *host = ra__alloc(ctx, (size_t)len * sizeof(double));
    if (!host)
        return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory for %lld values", fn,
                             (long long)len);
    double scale = 1.0 / (d * (double)n);
    int64_t positive = real ? len : (n + 1) / 2; /* 0 .. ceil(n/2)-1, or all of rfftfreq */
    for (int64_t i = 0; i < len; i++)
        host[i] = (double)(i < positive ? i : i - n) * scale;
    int64_t shape[1] = {len};
    status = create_from_host(ctx, fn, dev, dtype, shape, 1, host, RA_FLOAT64, out);
    ra__free(ctx, host);
    return status;
}

int ra_fftfreq(ra_ctx *ctx, int64_t n, double d, const ra_opts *opts, ra_array **out)
{
    return fft_freq(ctx, "ra_fftfreq", false, n, d, opts, out);
}

int ra_rfftfreq(ra_ctx *ctx, int64_t n, double d, const ra_opts *opts, ra_array **out)
{
    return fft_freq(ctx, "ra_rfftfreq", true, n, d, opts, out);
}
