/*
 * functions/math.c: the standard's elementwise math functions of one real floating array
 * (ra_math_unary), computed on host memory with the C library's own math (libm): the array
 * is read to the host, each element goes through the libm function of its dtype (sinf for
 * float32, sin for float64, ...), and the result is written to a new array on x's device
 * (DEV-DS-10). On an OpenCL device this is the staged path (read, compute, write), as for
 * every operation without a kernel; no kernel exists for these.
 */
#include "../backend.h"
#include "../internal.h"

#include <math.h>
#include <string.h>

static const char *const names[] = {
    [RA_MATH_SIN] = "sin",           [RA_MATH_COS] = "cos",
    [RA_MATH_TAN] = "tan",           [RA_MATH_ASIN] = "asin",
    [RA_MATH_ACOS] = "acos",         [RA_MATH_ATAN] = "atan",
    [RA_MATH_SINH] = "sinh",         [RA_MATH_COSH] = "cosh",
    [RA_MATH_TANH] = "tanh",         [RA_MATH_ASINH] = "asinh",
    [RA_MATH_ACOSH] = "acosh",       [RA_MATH_ATANH] = "atanh",
    [RA_MATH_EXP] = "exp",           [RA_MATH_EXPM1] = "expm1",
    [RA_MATH_LOG] = "log",           [RA_MATH_LOG1P] = "log1p",
    [RA_MATH_LOG2] = "log2",         [RA_MATH_LOG10] = "log10",
    [RA_MATH_CEIL] = "ceil",         [RA_MATH_FLOOR] = "floor",
    [RA_MATH_TRUNC] = "trunc",       [RA_MATH_ROUND] = "round",
    [RA_MATH_SQUARE] = "square",     [RA_MATH_SIGN] = "sign",
    [RA_MATH_POSITIVE] = "positive", [RA_MATH_RECIPROCAL] = "reciprocal",
    [RA_MATH_ISNAN] = "isnan",       [RA_MATH_ISINF] = "isinf",
    [RA_MATH_ISFINITE] = "isfinite", [RA_MATH_SIGNBIT] = "signbit",
};

const char *ra_math_name(ra_math_fn fn)
{
    if ((int)fn <= 0 || (size_t)fn >= sizeof names / sizeof names[0]) return NULL;
    return names[fn];
}

static bool is_predicate(ra_math_fn fn)
{
    return fn == RA_MATH_ISNAN || fn == RA_MATH_ISINF || fn == RA_MATH_ISFINITE ||
           fn == RA_MATH_SIGNBIT;
}

/* The standard's sign: -1, 0 or 1, NaN for NaN; round: half to even (rint in the default
 * rounding mode), as the standard's round says. */
static double apply(ra_math_fn fn, double v)
{
    switch (fn) {
    case RA_MATH_SIN:
        return sin(v);
    case RA_MATH_COS:
        return cos(v);
    case RA_MATH_TAN:
        return tan(v);
    case RA_MATH_ASIN:
        return asin(v);
    case RA_MATH_ACOS:
        return acos(v);
    case RA_MATH_ATAN:
        return atan(v);
    case RA_MATH_SINH:
        return sinh(v);
    case RA_MATH_COSH:
        return cosh(v);
    case RA_MATH_TANH:
        return tanh(v);
    case RA_MATH_ASINH:
        return asinh(v);
    case RA_MATH_ACOSH:
        return acosh(v);
    case RA_MATH_ATANH:
        return atanh(v);
    case RA_MATH_EXP:
        return exp(v);
    case RA_MATH_EXPM1:
        return expm1(v);
    case RA_MATH_LOG:
        return log(v);
    case RA_MATH_LOG1P:
        return log1p(v);
    case RA_MATH_LOG2:
        return log2(v);
    case RA_MATH_LOG10:
        return log10(v);
    case RA_MATH_CEIL:
        return ceil(v);
    case RA_MATH_FLOOR:
        return floor(v);
    case RA_MATH_TRUNC:
        return trunc(v);
    case RA_MATH_ROUND:
        return rint(v);
    case RA_MATH_SQUARE:
        return v * v;
    case RA_MATH_SIGN:
        return isnan(v) ? v : (v > 0) - (v < 0);
    case RA_MATH_POSITIVE:
        return v;
    case RA_MATH_RECIPROCAL:
        return 1.0 / v;
    case RA_MATH_ISNAN:
        return isnan(v);
    case RA_MATH_ISINF:
        return isinf(v);
    case RA_MATH_ISFINITE:
        return isfinite(v);
    case RA_MATH_SIGNBIT:
        return signbit(v) != 0;
    }
    return v;
}

static float applyf(ra_math_fn fn, float v)
{
    switch (fn) {
    case RA_MATH_SIN:
        return sinf(v);
    case RA_MATH_COS:
        return cosf(v);
    case RA_MATH_TAN:
        return tanf(v);
    case RA_MATH_ASIN:
        return asinf(v);
    case RA_MATH_ACOS:
        return acosf(v);
    case RA_MATH_ATAN:
        return atanf(v);
    case RA_MATH_SINH:
        return sinhf(v);
    case RA_MATH_COSH:
        return coshf(v);
    case RA_MATH_TANH:
        return tanhf(v);
    case RA_MATH_ASINH:
        return asinhf(v);
    case RA_MATH_ACOSH:
        return acoshf(v);
    case RA_MATH_ATANH:
        return atanhf(v);
    case RA_MATH_EXP:
        return expf(v);
    case RA_MATH_EXPM1:
        return expm1f(v);
    case RA_MATH_LOG:
        return logf(v);
    case RA_MATH_LOG1P:
        return log1pf(v);
    case RA_MATH_LOG2:
        return log2f(v);
    case RA_MATH_LOG10:
        return log10f(v);
    case RA_MATH_CEIL:
        return ceilf(v);
    case RA_MATH_FLOOR:
        return floorf(v);
    case RA_MATH_TRUNC:
        return truncf(v);
    case RA_MATH_ROUND:
        return rintf(v);
    case RA_MATH_SQUARE:
        return v * v;
    case RA_MATH_RECIPROCAL:
        return 1.0f / v;
    default:
        return (float)apply(fn, (double)v);
    }
}

int ra_math_unary(ra_ctx *ctx, ra_math_fn fn, const ra_array *x, ra_array **out)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_math_unary: ctx is NULL");
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_math_unary: out is NULL");
    *out = NULL;
    const char *name = ra_math_name(fn);
    if (!name) return ra__ctx_error(ctx, RA_E_ARG, "ra_math_unary: unknown function %d", (int)fn);
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", name);
    if (x->layer)
        return ra__ctx_error(ctx, RA_E_ARG, "%s: a sharded array is not supported here", name);
    if (x->dtype != RA_FLOAT32 && x->dtype != RA_FLOAT64)
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: defined here for float32 and float64, not %s",
                             name, ra_dtype_name(x->dtype));
    ra_dtype odtype = is_predicate(fn) ? RA_BOOL : x->dtype;
    ra_array *y = NULL;
    int status = ra__array_new_like_uninit(ctx, x->dev, odtype, x, &y); /* written whole */
    if (status != RA_OK) return status;
    size_t n = (size_t)x->size;
    void *hx = ra__alloc(ctx, x->nbytes ? x->nbytes : 1);
    void *hy = ra__alloc(ctx, y->nbytes ? y->nbytes : 1);
    if (!hx || !hy) status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory for staging", name);
    if (status == RA_OK && n) status = ra_array_read(ctx, x, hx, x->nbytes);
    for (size_t i = 0; status == RA_OK && i < n; i++) {
        double r = x->dtype == RA_FLOAT32 ? (double)applyf(fn, ((const float *)hx)[i])
                                          : apply(fn, ((const double *)hx)[i]);
        if (odtype == RA_BOOL)
            ((uint8_t *)hy)[i] = r != 0;
        else if (odtype == RA_FLOAT32)
            ((float *)hy)[i] = (float)r;
        else
            ((double *)hy)[i] = r;
    }
    if (status == RA_OK && n) status = ra__array_write(ctx, y, hy);
    ra__free(ctx, hx);
    ra__free(ctx, hy);
    return ra__array_hand_out(status, y, out);
}

/* ---- two operands ---------------------------------------------------------------------- */

static const char *const names2[] = {
    [RA_MATH2_ATAN2] = "atan2",
    [RA_MATH2_HYPOT] = "hypot",
    [RA_MATH2_COPYSIGN] = "copysign",
    [RA_MATH2_LOGADDEXP] = "logaddexp",
    [RA_MATH2_POW] = "pow",
    [RA_MATH2_REMAINDER] = "remainder",
    [RA_MATH2_FLOOR_DIVIDE] = "floor_divide",
    [RA_MATH2_NEXTAFTER] = "nextafter",
    [RA_MATH2_MINIMUM] = "minimum",
    [RA_MATH2_GREATER] = "greater",
    [RA_MATH2_GREATER_EQUAL] = "greater_equal",
    [RA_MATH2_LESS_EQUAL] = "less_equal",
    [RA_MATH2_NOT_EQUAL] = "not_equal",
};

const char *ra_math2_name(ra_math2_fn fn)
{
    if ((int)fn <= 0 || (size_t)fn >= sizeof names2 / sizeof names2[0]) return NULL;
    return names2[fn];
}

static bool is_comparison(ra_math2_fn fn)
{
    return fn == RA_MATH2_GREATER || fn == RA_MATH2_GREATER_EQUAL || fn == RA_MATH2_LESS_EQUAL ||
           fn == RA_MATH2_NOT_EQUAL;
}

/* remainder takes the divisor's sign (the standard's, Python's %); floor_divide is
 * floor(a / b); minimum propagates NaN; logaddexp is log(exp(a) + exp(b)) without overflow. */
static double apply2(ra_math2_fn fn, double a, double b)
{
    switch (fn) {
    case RA_MATH2_ATAN2:
        return atan2(a, b);
    case RA_MATH2_HYPOT:
        return hypot(a, b);
    case RA_MATH2_COPYSIGN:
        return copysign(a, b);
    case RA_MATH2_LOGADDEXP: {
        double m = fmax(a, b);
        return isinf(m) ? m : m + log1p(exp(-fabs(a - b)));
    }
    case RA_MATH2_POW:
        return pow(a, b);
    case RA_MATH2_REMAINDER: {
        double r = fmod(a, b);
        if (r != 0 && (r < 0) != (b < 0)) r += b;
        return r;
    }
    case RA_MATH2_FLOOR_DIVIDE:
        return floor(a / b);
    case RA_MATH2_NEXTAFTER:
        return nextafter(a, b);
    case RA_MATH2_MINIMUM:
        return isnan(a) || isnan(b) ? NAN : fmin(a, b);
    case RA_MATH2_GREATER:
        return a > b;
    case RA_MATH2_GREATER_EQUAL:
        return a >= b;
    case RA_MATH2_LESS_EQUAL:
        return a <= b;
    case RA_MATH2_NOT_EQUAL:
        return a != b;
    }
    return NAN;
}

static float apply2f(ra_math2_fn fn, float a, float b)
{
    switch (fn) {
    case RA_MATH2_ATAN2:
        return atan2f(a, b);
    case RA_MATH2_HYPOT:
        return hypotf(a, b);
    case RA_MATH2_COPYSIGN:
        return copysignf(a, b);
    case RA_MATH2_POW:
        return powf(a, b);
    case RA_MATH2_FLOOR_DIVIDE:
        return floorf(a / b);
    case RA_MATH2_NEXTAFTER:
        return nextafterf(a, b);
    case RA_MATH2_LOGADDEXP: {
        float m = fmaxf(a, b);
        return isinf(m) ? m : m + log1pf(expf(-fabsf(a - b)));
    }
    case RA_MATH2_REMAINDER: {
        float r = fmodf(a, b);
        if (r != 0 && (r < 0) != (b < 0)) r += b;
        return r;
    }
    default:
        return (float)apply2(fn, a, b);
    }
}

/* One operand's elements as doubles on the host: an array read whole, or a scalar. */
static int operand_host(ra_ctx *ctx, const char *name, ra_operand o, ra_dtype dtype, double **out,
                        size_t *n)
{
    *out = NULL;
    *n = 1;
    if (!o.array) {
        if (o.scalar.kind != RA_SCALAR_INT && o.scalar.kind != RA_SCALAR_FLOAT)
            return ra__ctx_error(ctx, RA_E_DTYPE, "%s: a %s scalar with a real floating array",
                                 name, o.scalar.kind == RA_SCALAR_BOOL ? "bool" : "complex");
        double *v = ra__alloc(ctx, sizeof *v);
        if (!v) return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", name);
        /* A Python scalar takes the array's dtype (API-PROM-3): rounded to float32 there. */
        double s = o.scalar.kind != RA_SCALAR_INT ? o.scalar.re
                   : o.scalar.u                   ? (double)(uint64_t)o.scalar.i
                                                  : (double)o.scalar.i;
        *v = dtype == RA_FLOAT32 ? (double)(float)s : s;
        *out = v;
        return RA_OK;
    }
    const ra_array *x = o.array;
    *n = (size_t)x->size;
    double *v = ra__alloc(ctx, (*n ? *n : 1) * sizeof *v);
    void *raw = ra__alloc(ctx, x->nbytes ? x->nbytes : 1);
    int status = (!v || !raw) ? ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", name) : RA_OK;
    if (status == RA_OK && *n) status = ra_array_read(ctx, x, raw, x->nbytes);
    for (size_t i = 0; status == RA_OK && i < *n; i++)
        v[i] = x->dtype == RA_FLOAT32 ? (double)((const float *)raw)[i] : ((const double *)raw)[i];
    ra__free(ctx, raw);
    if (status != RA_OK) {
        ra__free(ctx, v);
        return status;
    }
    *out = v;
    return RA_OK;
}

int ra_math_binary(ra_ctx *ctx, ra_math2_fn fn, ra_operand x1, ra_operand x2, ra_array **out)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_math_binary: ctx is NULL");
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_math_binary: out is NULL");
    *out = NULL;
    const char *name = ra_math2_name(fn);
    if (!name) return ra__ctx_error(ctx, RA_E_ARG, "ra_math_binary: unknown function %d", (int)fn);
    if (!x1.array && !x2.array)
        return ra__ctx_error(ctx, RA_E_SCALAR, "%s: at least one operand must be an array", name);
    const ra_array *xs[2] = {x1.array, x2.array};
    const ra_array *like = xs[0] ? xs[0] : xs[1];
    for (int k = 0; k < 2; k++) {
        if (!xs[k]) continue;
        if (xs[k]->layer)
            return ra__ctx_error(ctx, RA_E_ARG, "%s: a sharded array is not supported here", name);
        if (xs[k]->dtype != RA_FLOAT32 && xs[k]->dtype != RA_FLOAT64)
            return ra__ctx_error(ctx, RA_E_DTYPE,
                                 "%s: defined here for float32 and float64, "
                                 "not %s",
                                 name, ra_dtype_name(xs[k]->dtype));
    }
    if (xs[0] && xs[1]) {
        /* DEV-DS-11: arrays on two devices are refused, never moved. */
        if (xs[0]->dev != xs[1]->dev)
            return ra__ctx_error(ctx, RA_E_DEVICE_MISMATCH,
                                 "%s: x1 and x2 are on different "
                                 "devices",
                                 name);
        if (xs[0]->dtype != xs[1]->dtype)
            return ra__ctx_error(ctx, RA_E_DTYPE,
                                 "%s: x1 is %s and x2 %s; one dtype is needed "
                                 "here",
                                 name, ra_dtype_name(xs[0]->dtype), ra_dtype_name(xs[1]->dtype));
        /* Equal shapes, or a 0-d operand: the broadcasting these functions get here. */
        bool same = xs[0]->ndim == xs[1]->ndim &&
                    !memcmp(xs[0]->shape, xs[1]->shape, xs[0]->ndim * sizeof(int64_t));
        if (!same && xs[0]->ndim && xs[1]->ndim)
            return ra__ctx_error(ctx, RA_E_BROADCAST,
                                 "%s: equal shapes or a 0-d operand are "
                                 "needed here",
                                 name);
        if (!same && !xs[0]->ndim) like = xs[1];
    }
    ra_dtype dtype = like->dtype;
    ra_array *y = NULL;
    int status = ra__array_new_like_uninit(ctx, like->dev, is_comparison(fn) ? RA_BOOL : dtype,
                                           like, &y); /* written whole */
    if (status != RA_OK) return status;
    double *a = NULL, *b = NULL;
    size_t na = 0, nb = 0, n = (size_t)like->size;
    status = operand_host(ctx, name, x1, dtype, &a, &na);
    if (status == RA_OK) status = operand_host(ctx, name, x2, dtype, &b, &nb);
    void *hy = status == RA_OK ? ra__alloc(ctx, y->nbytes ? y->nbytes : 1) : NULL;
    if (status == RA_OK && !hy) status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", name);
    for (size_t i = 0; status == RA_OK && i < n; i++) {
        double va = a[na == 1 ? 0 : i], vb = b[nb == 1 ? 0 : i];
        if (y->dtype == RA_BOOL)
            ((uint8_t *)hy)[i] = apply2(fn, va, vb) != 0;
        else if (dtype == RA_FLOAT32)
            ((float *)hy)[i] = apply2f(fn, (float)va, (float)vb);
        else
            ((double *)hy)[i] = apply2(fn, va, vb);
    }
    if (status == RA_OK && n) status = ra__array_write(ctx, y, hy);
    ra__free(ctx, a);
    ra__free(ctx, b);
    ra__free(ctx, hy);
    return ra__array_hand_out(status, y, out);
}
