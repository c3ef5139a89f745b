/*
 * functions/math.c: the standard's elementwise functions of one and two operands
 * (ra_math_unary, ra_math_binary) for every dtype the standard allows each, computed on host
 * memory through the staged path (staged.h): the arrays are read to the host on their one
 * device, each element goes through the C library's own math (libm: sinf for float32, sin
 * for float64; complex.h for complex dtypes; exact integer arithmetic for integers), and the
 * result is written to a new array on that device (DEV-DS-10). On an OpenCL device this is a
 * read and a write around the host computation; no kernel exists for these.
 */
#include "staged.h"

#include <complex.h>
#include <math.h>
#include <string.h>

/* The kinds of dtype each function takes (spec/signatures.json's latest signature). */
enum { KB = 1, KI = 2, KU = 4, KF = 8, KC = 16 };
#define KINT (KI | KU)
#define KREAL (KINT | KF)
#define KNUM (KREAL | KC)
#define KFLT (KF | KC)

/* names, kinds1, names2 and kinds2: each function's name and the kinds of dtype it takes,
 * generated from spec/signatures.json. */
#include "math_tables.h"

static unsigned kind_of(ra_dtype d)
{
    if (d == RA_BOOL) return KB;
    if (ra__dtype_is_signed(d)) return KI;
    if (ra__dtype_is_unsigned(d)) return KU;
    if (ra__dtype_is_complex(d)) return KC;
    return KF;
}

static const char *kinds_text(unsigned k)
{
    switch (k) {
    case KFLT:
        return "floating-point dtypes";
    case KREAL:
        return "real numeric dtypes";
    case KNUM:
        return "numeric dtypes";
    case KF:
        return "real floating-point dtypes";
    case KB | KINT:
        return "integer and bool dtypes";
    case KINT:
        return "integer dtypes";
    case KC:
        return "complex dtypes";
    case KB:
        return "bool";
    default:
        return "no dtype";
    }
}

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
    default: /* positive, conj, real: the value itself */
        return v;
    }
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

/* expm1 of a complex z = a + bi: exp(a)(cos b + i sin b) - 1, with the real part
 * expm1(a) cos b - 2 sin^2(b / 2) so that it keeps its precision near 0. */
static double complex cexpm1(double complex z)
{
    double a = creal(z), b = cimag(z), h = sin(b / 2);
    return CMPLX(expm1(a) * cos(b) - 2 * h * h, exp(a) * sin(b));
}

static double complex applyc(ra_math_fn fn, double complex z)
{
    switch (fn) {
    case RA_MATH_SIN:
        return csin(z);
    case RA_MATH_COS:
        return ccos(z);
    case RA_MATH_TAN:
        return ctan(z);
    case RA_MATH_ASIN:
        return casin(z);
    case RA_MATH_ACOS:
        return cacos(z);
    case RA_MATH_ATAN:
        return catan(z);
    case RA_MATH_SINH:
        return csinh(z);
    case RA_MATH_COSH:
        return ccosh(z);
    case RA_MATH_TANH:
        return ctanh(z);
    case RA_MATH_ASINH:
        return casinh(z);
    case RA_MATH_ACOSH:
        return cacosh(z);
    case RA_MATH_ATANH:
        return catanh(z);
    case RA_MATH_EXP:
        return cexp(z);
    case RA_MATH_EXPM1:
        return cexpm1(z);
    case RA_MATH_LOG:
        return clog(z);
    case RA_MATH_LOG1P:
        return clog(1.0 + z);
    case RA_MATH_LOG2:
        return clog(z) / log(2.0);
    case RA_MATH_LOG10:
        return clog(z) / log(10.0);
    case RA_MATH_ROUND:
        return CMPLX(rint(creal(z)), rint(cimag(z)));
    case RA_MATH_SQUARE:
        return z * z;
    case RA_MATH_SIGN:
        return z == 0 ? 0 : z / cabs(z);
    case RA_MATH_RECIPROCAL:
        return 1.0 / z;
    case RA_MATH_CONJ:
        return conj(z);
    case RA_MATH_REAL:
        return creal(z);
    case RA_MATH_IMAG:
        return cimag(z);
    default: /* positive */
        return z;
    }
}

/* Element i of x through fn into element i of y (x's dtype kind already checked). */
static void unary_at(ra_math_fn fn, const ra__host *x, ra__host *y, size_t i)
{
    unsigned k = kind_of(x->dtype);
    if (k == KB) {
        ra__hsetb(y, i, !ra__hgetb(x, i)); /* bitwise_invert and logical_not */
    } else if (k == KC) {
        double complex z = ra__hgetc(x, i);
        double re = creal(z), im = cimag(z);
        if (fn == RA_MATH_ISNAN)
            ra__hsetb(y, i, isnan(re) || isnan(im));
        else if (fn == RA_MATH_ISINF)
            ra__hsetb(y, i, isinf(re) || isinf(im));
        else if (fn == RA_MATH_ISFINITE)
            ra__hsetb(y, i, isfinite(re) && isfinite(im));
        else
            ra__hsetc(y, i, applyc(fn, z));
    } else if (k == KF) {
        double v = ra__hget(x, i);
        ra__hset(y, i, x->dtype == RA_FLOAT32 ? (double)applyf(fn, (float)v) : apply(fn, v));
    } else if (is_predicate(fn)) {
        ra__hsetb(y, i, fn == RA_MATH_ISFINITE); /* an integer is finite, never NaN or inf */
    } else if (k == KI) {
        int64_t v = ra__hgeti(x, i);
        uint64_t u = (uint64_t)v;
        if (fn == RA_MATH_BITWISE_INVERT)
            u = ~u;
        else if (fn == RA_MATH_SQUARE)
            u = u * u; /* wraps as the dtype does once stored */
        else if (fn == RA_MATH_SIGN)
            u = (uint64_t)(int64_t)((v > 0) - (v < 0));
        ra__hseti(y, i, (int64_t)u);
    } else {
        uint64_t v = ra__hgetu(x, i);
        if (fn == RA_MATH_BITWISE_INVERT)
            v = ~v;
        else if (fn == RA_MATH_SQUARE)
            v = v * v;
        else if (fn == RA_MATH_SIGN)
            v = v != 0;
        ra__hsetu(y, i, v);
    }
}

static ra_dtype real_of(ra_dtype d)
{
    return d == RA_COMPLEX64 ? RA_FLOAT32 : d == RA_COMPLEX128 ? RA_FLOAT64 : d;
}

int ra_math_unary(ra_ctx *ctx, ra_math_fn fn, const ra_array *x, ra_array **out)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_math_unary: ctx is NULL");
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_math_unary: out is NULL");
    *out = NULL;
    const char *name = ra_math_name(fn);
    if (!name) return ra__ctx_error(ctx, RA_E_ARG, "ra_math_unary: unknown function %d", (int)fn);
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", name);
    if (!(kind_of(x->dtype) & kinds1[fn]))
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: defined for %s, not %s", name,
                             kinds_text(kinds1[fn]), ra_dtype_name(x->dtype));
    ra_dtype odtype = is_predicate(fn)                           ? RA_BOOL
                      : fn == RA_MATH_REAL || fn == RA_MATH_IMAG ? real_of(x->dtype)
                                                                 : x->dtype;
    ra__dev *dev = NULL;
    ra__host hx, hy;
    int status = ra__staged_read(ctx, name, &x, 1, &dev, &hx);
    if (status != RA_OK) return status;
    status = ra__host_new(ctx, name, odtype, hx.ndim, hx.shape, &hy);
    for (size_t i = 0; status == RA_OK && i < hx.size; i++)
        unary_at(fn, &hx, &hy, i);
    ra__host_free(ctx, &hx);
    return ra__host_finish(ctx, status, dev, &hy, out);
}

/* ---- two operands ---------------------------------------------------------------------- */

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
    default:
        return NAN;
    }
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

static bool bool2(ra_math2_fn fn, bool a, bool b)
{
    switch (fn) {
    case RA_MATH2_BITWISE_AND:
    case RA_MATH2_LOGICAL_AND:
        return a && b;
    case RA_MATH2_BITWISE_OR:
    case RA_MATH2_LOGICAL_OR:
        return a || b;
    default: /* xor, not_equal */
        return a != b;
    }
}

/* base ** e in 64-bit wrapping arithmetic, e >= 0 (repeated squaring). */
static uint64_t upow(uint64_t base, uint64_t e)
{
    uint64_t r = 1;
    for (; e; e >>= 1, base *= base)
        if (e & 1) r *= base;
    return r;
}

/* Two signed integers (the promoted dtype's values as int64); comparisons give 0 or 1. */
static int64_t int2(ra_math2_fn fn, int64_t a, int64_t b)
{
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (fn) {
    case RA_MATH2_POW:
        if (b >= 0) return (int64_t)upow(ua, ub);
        return a == 1 ? 1 : a == -1 ? (b % 2 ? -1 : 1) : 0;
    case RA_MATH2_REMAINDER:
    case RA_MATH2_FLOOR_DIVIDE: {
        if (b == 0) return 0;
        if (b == -1) return fn == RA_MATH2_REMAINDER ? 0 : (int64_t)(0 - ua);
        int64_t q = a / b, r = a % b;
        if (r != 0 && (r < 0) != (b < 0)) {
            q -= 1;
            r += b;
        }
        return fn == RA_MATH2_REMAINDER ? r : q;
    }
    case RA_MATH2_MINIMUM:
        return a < b ? a : b;
    case RA_MATH2_GREATER:
        return a > b;
    case RA_MATH2_GREATER_EQUAL:
        return a >= b;
    case RA_MATH2_LESS_EQUAL:
        return a <= b;
    case RA_MATH2_NOT_EQUAL:
        return a != b;
    case RA_MATH2_BITWISE_AND:
        return (int64_t)(ua & ub);
    case RA_MATH2_BITWISE_OR:
        return (int64_t)(ua | ub);
    case RA_MATH2_BITWISE_XOR:
        return (int64_t)(ua ^ ub);
    case RA_MATH2_BITWISE_LEFT_SHIFT:
        return b < 0 || b >= 64 ? 0 : (int64_t)(ua << b);
    case RA_MATH2_BITWISE_RIGHT_SHIFT:
        if (b < 0) return 0;
        return b >= 64 ? (a < 0 ? -1 : 0) : a >> b; /* arithmetic: the sign is kept */
    default:
        return 0;
    }
}

static uint64_t uint2(ra_math2_fn fn, uint64_t a, uint64_t b)
{
    switch (fn) {
    case RA_MATH2_POW:
        return upow(a, b);
    case RA_MATH2_REMAINDER:
        return b ? a % b : 0;
    case RA_MATH2_FLOOR_DIVIDE:
        return b ? a / b : 0;
    case RA_MATH2_MINIMUM:
        return a < b ? a : b;
    case RA_MATH2_GREATER:
        return a > b;
    case RA_MATH2_GREATER_EQUAL:
        return a >= b;
    case RA_MATH2_LESS_EQUAL:
        return a <= b;
    case RA_MATH2_NOT_EQUAL:
        return a != b;
    case RA_MATH2_BITWISE_AND:
        return a & b;
    case RA_MATH2_BITWISE_OR:
        return a | b;
    case RA_MATH2_BITWISE_XOR:
        return a ^ b;
    case RA_MATH2_BITWISE_LEFT_SHIFT:
        return b >= 64 ? 0 : a << b;
    case RA_MATH2_BITWISE_RIGHT_SHIFT:
        return b >= 64 ? 0 : a >> b;
    default:
        return 0;
    }
}

/* Element i of the result from elements ia of a and ib of b, computed in dtype dt (the
 * promoted dtype, whose kind the function takes). */
static void binary_at(ra_math2_fn fn, ra_dtype dt, const ra__host *a, size_t ia, const ra__host *b,
                      size_t ib, ra__host *y, size_t i)
{
    unsigned k = kind_of(dt);
    if (k == KB) {
        ra__hsetb(y, i, bool2(fn, ra__hgetb(a, ia), ra__hgetb(b, ib)));
    } else if (k == KI) {
        ra__hseti(y, i, int2(fn, ra__hgeti(a, ia), ra__hgeti(b, ib)));
    } else if (k == KU) {
        ra__hsetu(y, i, uint2(fn, ra__hgetu(a, ia), ra__hgetu(b, ib)));
    } else if (k == KC) {
        double complex u = ra__hgetc(a, ia), v = ra__hgetc(b, ib);
        if (fn == RA_MATH2_NOT_EQUAL)
            ra__hsetb(y, i, u != v);
        else /* pow */
            ra__hsetc(y, i, v == 0 ? 1.0 : cpow(u, v));
    } else {
        double u = ra__hget(a, ia), v = ra__hget(b, ib);
        if (is_comparison(fn))
            ra__hsetb(y, i, apply2(fn, u, v) != 0);
        else if (dt == RA_FLOAT32)
            ra__hset(y, i, (double)apply2f(fn, (float)u, (float)v));
        else
            ra__hset(y, i, apply2(fn, u, v));
    }
}

/* A Python scalar operand as a 0-d host copy of dtype dt (API-PROM-3: checked for kind and
 * range by the promotion's conversion). */
static int scalar_host(ra_ctx *ctx, const char *name, ra_scalar s, ra_dtype dt, ra__host *h)
{
    int status = ra__host_new(ctx, name, dt, 0, NULL, h);
    if (status == RA_OK) status = ra__promote_scalar_element(ctx, s, dt, h->data, name);
    if (status != RA_OK) ra__host_free(ctx, h);
    return status;
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
    for (int k = 0; k < 2; k++) {
        const ra_array *x = k ? x2.array : x1.array;
        if (x && x->layer)
            return ra__ctx_error(ctx, RA_E_ARG, "%s: a sharded array is not supported here", name);
    }
    ra_dtype dt;
    int status = ra__promote_binary(ctx, name, x1, x2, &dt);
    if (status != RA_OK) return status;
    if (!(kind_of(dt) & kinds2[fn]))
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: defined for %s, not %s", name,
                             kinds_text(kinds2[fn]), ra_dtype_name(dt));
    /* The arrays on their one device (DEV-DS-11), then each scalar as a 0-d host copy. */
    const ra_array *xs[2];
    size_t n = 0;
    if (x1.array) xs[n++] = x1.array;
    if (x2.array) xs[n++] = x2.array;
    ra__dev *dev = NULL;
    ra__host read[2], h[2] = {RA__HOST_INIT, RA__HOST_INIT}, hy = RA__HOST_INIT;
    status = ra__staged_read(ctx, name, xs, n, &dev, read);
    if (status != RA_OK) return status;
    size_t r = 0;
    if (x1.array)
        h[0] = read[r++];
    else
        status = scalar_host(ctx, name, x1.scalar, dt, &h[0]);
    if (x2.array)
        h[1] = read[r++];
    else if (status == RA_OK)
        status = scalar_host(ctx, name, x2.scalar, dt, &h[1]);
    size_t ndim = 0;
    int64_t shape[RA_MAX_NDIM];
    if (status == RA_OK) {
        const size_t ndims[2] = {h[0].ndim, h[1].ndim};
        const int64_t *const shapes[2] = {h[0].shape, h[1].shape};
        status = ra__broadcast_shapes(ctx, name, 2, ndims, shapes, &ndim, shape);
    }
    if (status == RA_OK)
        status = ra__host_new(ctx, name, is_comparison(fn) ? RA_BOOL : dt, ndim, shape, &hy);
    for (size_t i = 0; status == RA_OK && i < hy.size; i++)
        binary_at(fn, dt, &h[0], ra__broadcast_at(i, ndim, shape, h[0].ndim, h[0].shape), &h[1],
                  ra__broadcast_at(i, ndim, shape, h[1].ndim, h[1].shape), &hy, i);
    ra__host_free_all(ctx, h, 2);
    return ra__host_finish(ctx, status, dev, &hy, out);
}
