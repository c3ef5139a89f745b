/* dtype.c: data types, kinds and scalar conversion (promotion is promote.c). */
#include "internal.h"

#include <math.h>
#include <string.h>

static const struct {
    const char *name;
    size_t size;
    unsigned kind;
} dtypes[RA_DTYPE_COUNT + 1] = {
    {NULL, 0, 0},
    {"bool", 1, RA_KIND_BOOL},
    {"int8", 1, RA_KIND_SIGNED_INTEGER},
    {"int16", 2, RA_KIND_SIGNED_INTEGER},
    {"int32", 4, RA_KIND_SIGNED_INTEGER},
    {"int64", 8, RA_KIND_SIGNED_INTEGER},
    {"uint8", 1, RA_KIND_UNSIGNED_INTEGER},
    {"uint16", 2, RA_KIND_UNSIGNED_INTEGER},
    {"uint32", 4, RA_KIND_UNSIGNED_INTEGER},
    {"uint64", 8, RA_KIND_UNSIGNED_INTEGER},
    {"float32", 4, RA_KIND_REAL_FLOATING},
    {"float64", 8, RA_KIND_REAL_FLOATING},
    {"complex64", 8, RA_KIND_COMPLEX_FLOATING},
    {"complex128", 16, RA_KIND_COMPLEX_FLOATING},
    {"float16", 2, RA_KIND_REAL_FLOATING},
};

/* OneFlow's aliases (OF-DT-1), accepted as input only. */
static const struct {
    const char *alias;
    ra_dtype dtype;
} aliases[] = {
    {"double", RA_FLOAT64}, {"float", RA_FLOAT32}, {"half", RA_FLOAT16},
    {"int", RA_INT32},      {"long", RA_INT64},
};

bool ra__dtype_valid(ra_dtype dtype)
{
    return dtype >= RA_BOOL && dtype <= RA_FLOAT16;
}

const char *ra_dtype_name(ra_dtype dtype)
{
    return ra__dtype_valid(dtype) ? dtypes[dtype].name : NULL;
}

size_t ra_dtype_size(ra_dtype dtype)
{
    return ra__dtype_valid(dtype) ? dtypes[dtype].size : 0;
}

unsigned ra_dtype_kind(ra_dtype dtype)
{
    return ra__dtype_valid(dtype) ? dtypes[dtype].kind : 0;
}

int ra_dtype_parse(ra_ctx *ctx, const char *name, ra_dtype *out)
{
    if (!name) return ra__ctx_error(ctx, RA_E_NULL, "ra_dtype_parse: name is NULL");
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_dtype_parse: out is NULL");
    for (int d = RA_BOOL; d <= RA_FLOAT16; d++) {
        if (strcmp(dtypes[d].name, name) == 0) {
            *out = (ra_dtype)d;
            return RA_OK;
        }
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        if (strcmp(aliases[i].alias, name) == 0) {
            *out = aliases[i].dtype;
            return RA_OK;
        }
    }
    return ra__ctx_error(ctx, RA_E_ARG, "ra_dtype_parse: unknown data type '%.64s'", name);
}

bool ra__dtype_is_float(ra_dtype d)
{
    return d == RA_FLOAT32 || d == RA_FLOAT64 || d == RA_FLOAT16;
}

bool ra__dtype_is_complex(ra_dtype d)
{
    return d == RA_COMPLEX64 || d == RA_COMPLEX128;
}

bool ra__dtype_is_signed(ra_dtype d)
{
    return d >= RA_INT8 && d <= RA_INT64;
}

bool ra__dtype_is_unsigned(ra_dtype d)
{
    return d >= RA_UINT8 && d <= RA_UINT64;
}

bool ra__dtype_is_integer(ra_dtype d)
{
    return ra__dtype_is_signed(d) || ra__dtype_is_unsigned(d);
}

bool ra__dtype_on_device(const ra__dev *dev, ra_dtype dtype)
{
    if (dtype == RA_FLOAT64 || dtype == RA_COMPLEX128) return dev->info.has_float64;
    if (dtype == RA_FLOAT16) return dev->info.has_float16;
    return ra__dtype_valid(dtype);
}

int ra__dtype_require(ra_ctx *ctx, const ra__dev *dev, ra_dtype dtype, const char *what)
{
    if (ra__dtype_on_device(dev, dtype)) return RA_OK;
    char buf[RA_DEVICE_STR_MAX];
    return ra__ctx_error(ctx, RA_E_DTYPE_DEVICE,
                         "%s: data type %s is not supported on device '%s' (%s)", what,
                         ra_dtype_name(dtype), ra__device_str(dev->device, buf),
                         dtype == RA_FLOAT16 ? "no cl_khr_fp16" : "no float64");
}

ra_dtype ra__default_float(const ra__dev *dev)
{
    return dev->info.has_float64 ? RA_FLOAT64 : RA_FLOAT32;
}

ra_dtype ra__scalar_default_dtype(const ra__dev *dev, ra_scalar s)
{
    switch (s.kind) {
    case RA_SCALAR_BOOL:
        return RA_BOOL;
    case RA_SCALAR_INT:
        return RA_INT64;
    case RA_SCALAR_FLOAT:
        return ra__default_float(dev);
    case RA_SCALAR_COMPLEX:
        return dev->info.has_float64 ? RA_COMPLEX128 : RA_COMPLEX64;
    }
    return RA_DTYPE_DEFAULT;
}

static const char *scalar_kind_name(ra_scalar_kind k)
{
    switch (k) {
    case RA_SCALAR_BOOL:
        return "bool";
    case RA_SCALAR_INT:
        return "int";
    case RA_SCALAR_FLOAT:
        return "float";
    case RA_SCALAR_COMPLEX:
        return "complex";
    }
    return "invalid";
}

/* Whether a Python scalar of kind K goes with an array of DTYPE: bool with bool; int with
 * integers (in range, checked apart) and floating; float with floating; complex with
 * complex. */
static bool scalar_goes_with(ra_scalar_kind k, ra_dtype dtype)
{
    switch (k) {
    case RA_SCALAR_BOOL:
        return dtype == RA_BOOL;
    case RA_SCALAR_INT:
        return dtype != RA_BOOL;
    case RA_SCALAR_FLOAT:
        return ra__dtype_is_float(dtype) || ra__dtype_is_complex(dtype);
    default:
        return ra__dtype_is_complex(dtype);
    }
}

/* RA_E_SCALAR_RANGE when the int scalar S is outside the integer DTYPE's range. */
static int int_in_range(ra_ctx *ctx, ra_scalar s, ra_dtype dtype, const char *what)
{
    int64_t lo = 0;
    uint64_t hi = 0;
    switch (dtype) {
    case RA_INT8:
        lo = INT8_MIN, hi = INT8_MAX;
        break;
    case RA_INT16:
        lo = INT16_MIN, hi = INT16_MAX;
        break;
    case RA_INT32:
        lo = INT32_MIN, hi = INT32_MAX;
        break;
    case RA_INT64:
        lo = INT64_MIN, hi = INT64_MAX;
        break;
    case RA_UINT8:
        hi = UINT8_MAX;
        break;
    case RA_UINT16:
        hi = UINT16_MAX;
        break;
    case RA_UINT32:
        hi = UINT32_MAX;
        break;
    default:
        hi = UINT64_MAX;
        break;
    }
    /* A value in [2^63, 2^64) (u) fits uint64 only. */
    if (s.u ? hi != UINT64_MAX : s.i < lo || (s.i > 0 && (uint64_t)s.i > hi)) {
        if (s.u)
            return ra__ctx_error(ctx, RA_E_SCALAR_RANGE,
                                 "%s: the Python int %llu is out of range for %s", what,
                                 (unsigned long long)(uint64_t)s.i, ra_dtype_name(dtype));
        return ra__ctx_error(ctx, RA_E_SCALAR_RANGE,
                             "%s: the Python int %lld is out of range for %s", what, (long long)s.i,
                             ra_dtype_name(dtype));
    }
    return RA_OK;
}

/* Writes S, already checked against DTYPE, as one element of DTYPE at OUT. An int goes to a
 * floating dtype rounded once, to nearest, from its exact value. */
static int store_element(ra_ctx *ctx, ra_scalar s, ra_dtype dtype, void *out, const char *what)
{
    double re = s.kind != RA_SCALAR_INT ? s.re : s.u ? (double)(uint64_t)s.i : (double)s.i;
    double im = s.kind == RA_SCALAR_COMPLEX ? s.im : 0.0;
    switch (dtype) {
    case RA_BOOL: {
        bool v = s.b;
        memcpy(out, &v, 1);
        break;
    }
#define INT_CASE(DT, T)                                                                            \
    case DT: {                                                                                     \
        T v = (T)s.i;                                                                              \
        memcpy(out, &v, sizeof v);                                                                 \
        break;                                                                                     \
    }
        INT_CASE(RA_INT8, int8_t)
        INT_CASE(RA_INT16, int16_t)
        INT_CASE(RA_INT32, int32_t)
        INT_CASE(RA_INT64, int64_t)
        INT_CASE(RA_UINT8, uint8_t)
        INT_CASE(RA_UINT16, uint16_t)
        INT_CASE(RA_UINT32, uint32_t)
        INT_CASE(RA_UINT64, uint64_t)
#undef INT_CASE
    case RA_FLOAT32: {
        float v = (float)re;
        memcpy(out, &v, sizeof v);
        break;
    }
    case RA_FLOAT64:
        memcpy(out, &re, sizeof re);
        break;
    case RA_FLOAT16: {
        uint16_t v = ra__half_from_double(re);
        memcpy(out, &v, sizeof v);
        break;
    }
    case RA_COMPLEX64: {
        float v[2] = {(float)re, (float)im};
        memcpy(out, v, sizeof v);
        break;
    }
    case RA_COMPLEX128: {
        double v[2] = {re, im};
        memcpy(out, v, sizeof v);
        break;
    }
    default:
        return ra__ctx_error(ctx, RA_E_ARG, "%s: invalid data type %d", what, (int)dtype);
    }
    return RA_OK;
}

int ra__scalar_to_element(ra_ctx *ctx, ra_scalar s, ra_dtype dtype, void *out, const char *what)
{
    if (s.kind < RA_SCALAR_BOOL || s.kind > RA_SCALAR_COMPLEX)
        return ra__ctx_error(ctx, RA_E_ARG, "%s: scalar of invalid kind %d", what, (int)s.kind);
    if (s.kind == RA_SCALAR_INT && s.u && s.i >= 0)
        return ra__ctx_error(ctx, RA_E_ARG, "%s: an int scalar marked u must be at least 2^63",
                             what);
    if (!scalar_goes_with(s.kind, dtype))
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: a Python %s scalar cannot be used with %s", what,
                             scalar_kind_name(s.kind), ra_dtype_name(dtype));
    if (s.kind == RA_SCALAR_INT && ra__dtype_is_integer(dtype)) {
        int rc = int_in_range(ctx, s, dtype, what);
        if (rc != RA_OK) return rc;
    }
    return store_element(ctx, s, dtype, out, what);
}

uint16_t ra__half_from_double(double d)
{
    uint16_t sign = signbit(d) ? 0x8000u : 0u;
    if (isnan(d)) return (uint16_t)(sign | 0x7e00u);
    double a = fabs(d);
    /* 65520 is halfway between the largest half (65504, an odd significand) and 2^16: ties
     * go to even, which is infinity. */
    if (a >= 65520.0) return (uint16_t)(sign | 0x7c00u);
    int e;
    (void)frexp(a, &e); /* a = m * 2^e, m in [0.5, 1), or a == 0 */
    int exp = a == 0.0 ? -14 : e - 1;
    if (exp < -14) exp = -14; /* subnormals share the smallest exponent */
    /* Round to the nearest multiple of the unit in the last place (ties to even, the
     * default rounding mode); the division by a power of two is exact. */
    double q = ldexp(1.0, exp - 10);
    double r = nearbyint(a / q) * q;
    if (r == 0.0) return sign;
    if (r < 0x1p-14) return (uint16_t)(sign | (uint16_t)(r / 0x1p-24));
    (void)frexp(r, &e);
    exp = e - 1;
    uint16_t mant = (uint16_t)(ldexp(r, -exp) * 1024.0 - 1024.0);
    return (uint16_t)(sign | (uint16_t)((exp + 15) << 10) | mant);
}

double ra__half_to_double(uint16_t h)
{
    int exp = (h >> 10) & 0x1f;
    int mant = h & 0x3ff;
    double v;
    if (exp == 0)
        v = ldexp((double)mant, -24);
    else if (exp == 31)
        v = mant ? NAN : INFINITY;
    else
        v = ldexp((double)(mant + 1024), exp - 25);
    return (h & 0x8000u) ? -v : v;
}

uint16_t ra_float16_from_double(double d)
{
    return ra__half_from_double(d);
}

double ra_float16_to_double(uint16_t h)
{
    return ra__half_to_double(h);
}
