/* Tests of ra_math_unary (src/functions/math.c) on every device the context lists: each
 * function's values equal the C library's own (sinf for float32, sin for float64, computed
 * here), the result is on x's device (DEV-DS-10) with x's shape, and the predicates give bool
 * arrays that see NaN, infinities and the sign of zero. */
#include "ra_test.h"

#include <math.h>
#include <stdint.h>

/* Inputs inside every function's domain: acosh needs >= 1, acos/asin/atanh |x| < 1, the logs
 * > 0; each function gets the values of its domain. */
static const double unit[4] = {0.5, -0.25, 0.75, 0.0};
static const double pos[4] = {0.5, 1.25, 2.0, 3.5};
static const double ge1[4] = {1.5, 2.0, 1.0, 6.0};
static const double any[4] = {-2.5, -0.5, 0.5, 3.5};

static const double *domain(ra_math_fn fn)
{
    switch (fn) {
    case RA_MATH_ASIN:
    case RA_MATH_ACOS:
    case RA_MATH_ATANH:
        return unit;
    case RA_MATH_ACOSH:
        return ge1;
    case RA_MATH_LOG:
    case RA_MATH_LOG1P:
    case RA_MATH_LOG2:
    case RA_MATH_LOG10:
        return pos;
    default:
        return any;
    }
}

/* The expected value, from libm directly. */
static double expect_d(ra_math_fn fn, double v)
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
        return (v > 0) - (v < 0);
    case RA_MATH_POSITIVE:
        return v;
    case RA_MATH_RECIPROCAL:
        return 1.0 / v;
    default:
        return NAN;
    }
}

static float expect_f(ra_math_fn fn, float v)
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
        return (float)expect_d(fn, v);
    }
}

static void values_on_device(ra_ctx *ctx, ra_device dev, ra_dtype dtype)
{
    char ds[RA_DEVICE_STR_MAX];
    dev_str(dev, ds);
    dt_diag("device %s, %s", ds, ra_dtype_name(dtype));
    int64_t shape[2] = {2, 2};
    for (int fn = RA_MATH_SIN; fn <= RA_MATH_RECIPROCAL; fn++) {
        const double *in = domain((ra_math_fn)fn);
        ra_array *x = NULL, *y = NULL;
        ra_asarray_buffer(ctx, in, RA_FLOAT64, shape, 2,
                          &(ra_opts){.dtype = dtype, .device_value = &dev}, &x);
        const char *name = ra_math_name((ra_math_fn)fn);
        ASSERT_STATUS(ctx, ra_math_unary(ctx, (ra_math_fn)fn, x, &y), RA_OK, "%s: %s(%s)", ds, name,
                      ra_dtype_name(dtype));
        if (!y) {
            ra_array_release(x);
            continue;
        }
        ASSERT_DEV(ra_array_device(y), dev, "DEV-DS-10 %s: %s's result is on x's device", ds, name);
        ASSERT_INT(ra_array_dtype(y), dtype, "%s: %s keeps the dtype", ds, name);
        CHECK(ra_array_ndim(y) == 2 && ra_array_shape(y)[0] == 2 && ra_array_shape(y)[1] == 2,
              "%s: %s keeps the shape", ds, name);
        int wrong = 0;
        if (dtype == RA_FLOAT32) {
            float got[4];
            ra_array_read(ctx, y, got, sizeof got);
            for (int i = 0; i < 4; i++) {
                float want = expect_f((ra_math_fn)fn, (float)in[i]);
                wrong += memcmp(&got[i], &want, sizeof want) != 0;
            }
        } else {
            double got[4];
            ra_array_read(ctx, y, got, sizeof got);
            for (int i = 0; i < 4; i++) {
                double want = expect_d((ra_math_fn)fn, in[i]);
                wrong += memcmp(&got[i], &want, sizeof want) != 0;
            }
        }
        if (!CHECK(wrong == 0, "%s: %s(%s) equals libm's, bit for bit", ds, name,
                   ra_dtype_name(dtype)))
            printf("#   %d of 4 elements differ\n", wrong);
        ra_array_release(y);
        ra_array_release(x);
    }
}

static void predicates_on_device(ra_ctx *ctx, ra_device dev)
{
    char ds[RA_DEVICE_STR_MAX];
    dev_str(dev, ds);
    const double in[4] = {NAN, INFINITY, -0.0, 1.5};
    int64_t shape[1] = {4};
    ra_array *x = NULL;
    ra_asarray_buffer(ctx, in, RA_FLOAT64, shape, 1,
                      &(ra_opts){.dtype = RA_FLOAT32, .device_value = &dev}, &x);
    static const struct {
        ra_math_fn fn;
        uint8_t want[4];
    } cases[] = {{RA_MATH_ISNAN, {1, 0, 0, 0}},
                 {RA_MATH_ISINF, {0, 1, 0, 0}},
                 {RA_MATH_ISFINITE, {0, 0, 1, 1}},
                 {RA_MATH_SIGNBIT, {0, 0, 1, 0}}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ra_array *y = NULL;
        const char *name = ra_math_name(cases[c].fn);
        ASSERT_STATUS(ctx, ra_math_unary(ctx, cases[c].fn, x, &y), RA_OK, "%s: %s", ds, name);
        if (!y) continue;
        ASSERT_DEV(ra_array_device(y), dev, "DEV-DS-10 %s: %s's result is on x's device", ds, name);
        ASSERT_INT(ra_array_dtype(y), RA_BOOL, "%s: %s gives bool", ds, name);
        uint8_t got[4] = {9, 9, 9, 9};
        ra_array_read(ctx, y, got, sizeof got);
        CHECK(memcmp(got, cases[c].want, 4) == 0, "%s: %s of [nan, inf, -0.0, 1.5]", ds, name);
        ra_array_release(y);
    }
    ra_array *y = NULL;
    ASSERT_STATUS(ctx, ra_math_unary(ctx, RA_MATH_SIGN, x, &y), RA_OK, "%s: sign", ds);
    float got[4];
    if (y && ra_array_read(ctx, y, got, sizeof got) == RA_OK)
        CHECK(isnan(got[0]) && got[1] == 1 && got[2] == 0 && got[3] == 1,
              "%s: sign of [nan, inf, -0.0, 1.5] is [nan, 1, 0, 1]", ds);
    ra_array_release(y);
    ra_array_release(x);
}

/* The two-operand functions against libm, computed here: array with array, array with a
 * Python scalar (which takes the array's dtype), and arrays on two devices refused. */
static double expect2(ra_math2_fn fn, double a, double b)
{
    switch (fn) {
    case RA_MATH2_ATAN2:
        return atan2(a, b);
    case RA_MATH2_HYPOT:
        return hypot(a, b);
    case RA_MATH2_COPYSIGN:
        return copysign(a, b);
    case RA_MATH2_POW:
        return pow(a, b);
    case RA_MATH2_FLOOR_DIVIDE:
        return floor(a / b);
    case RA_MATH2_NEXTAFTER:
        return nextafter(a, b);
    case RA_MATH2_MINIMUM:
        return fmin(a, b);
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

static void binary_on_device(ra_ctx *ctx, ra_device dev, ra_device other)
{
    char ds[RA_DEVICE_STR_MAX];
    dev_str(dev, ds);
    const double a[4] = {0.5, -1.25, 2.0, 3.5}, b[4] = {1.5, 0.75, -2.0, 3.5};
    int64_t shape[1] = {4};
    ra_array *x1 = NULL, *x2 = NULL, *far = NULL;
    ra_asarray_buffer(ctx, a, RA_FLOAT64, shape, 1, &(ra_opts){.device_value = &dev}, &x1);
    ra_asarray_buffer(ctx, b, RA_FLOAT64, shape, 1, &(ra_opts){.device_value = &dev}, &x2);
    ra_asarray_buffer(ctx, b, RA_FLOAT64, shape, 1, &(ra_opts){.device_value = &other}, &far);
    for (int fn = RA_MATH2_ATAN2; fn <= RA_MATH2_NOT_EQUAL; fn++) {
        if (fn == RA_MATH2_LOGADDEXP || fn == RA_MATH2_REMAINDER) continue; /* below */
        const char *name = ra_math2_name((ra_math2_fn)fn);
        ra_array *y = NULL;
        ASSERT_STATUS(
            ctx,
            ra_math_binary(ctx, (ra_math2_fn)fn, ra_operand_array(x1), ra_operand_array(x2), &y),
            RA_OK, "%s: %s", ds, name);
        if (!y) continue;
        ASSERT_DEV(ra_array_device(y), dev, "DEV-DS-10 %s: %s's result is on the inputs' device",
                   ds, name);
        int wrong = 0;
        if (ra_array_dtype(y) == RA_BOOL) {
            uint8_t got[4];
            ra_array_read(ctx, y, got, sizeof got);
            for (int i = 0; i < 4; i++)
                wrong += got[i] != (expect2((ra_math2_fn)fn, a[i], b[i]) != 0);
        } else {
            double got[4];
            ra_array_read(ctx, y, got, sizeof got);
            for (int i = 0; i < 4; i++) {
                double want = expect2((ra_math2_fn)fn, a[i], b[i]);
                wrong += memcmp(&got[i], &want, sizeof want) != 0;
            }
        }
        CHECK(wrong == 0, "%s: %s equals libm's, bit for bit (%d differ)", ds, name, wrong);
        ra_array_release(y);
        if (ra_device_eq(dev, other)) continue;
        y = (ra_array *)&y;
        ASSERT_STATUS(
            ctx,
            ra_math_binary(ctx, (ra_math2_fn)fn, ra_operand_array(x1), ra_operand_array(far), &y),
            RA_E_DEVICE_MISMATCH, "DEV-DS-11 %s: %s of arrays on two devices", ds, name);
        CHECK(y == NULL, "%s: a refused %s sets *out to NULL", ds, name);
    }
    /* remainder takes the divisor's sign; logaddexp of equal large values does not overflow;
     * a Python scalar with a float64 array. */
    ra_array *y = NULL;
    ASSERT_STATUS(ctx,
                  ra_math_binary(ctx, RA_MATH2_REMAINDER, ra_operand_array(x1),
                                 ra_operand_scalar(ra_scalar_float(-0.75)), &y),
                  RA_OK, "%s: remainder(x1, -0.75)", ds);
    ASSERT_VALUES(ctx, y, "remainder takes the divisor's sign", -0.25, -0.5, -0.25, -0.25);
    ra_array_release(y);
    double big[1] = {1000.0};
    int64_t one[1] = {1};
    ra_array *z = NULL;
    ra_asarray_buffer(ctx, big, RA_FLOAT64, one, 1, &(ra_opts){.device_value = &dev}, &z);
    y = NULL;
    ASSERT_STATUS(
        ctx, ra_math_binary(ctx, RA_MATH2_LOGADDEXP, ra_operand_array(z), ra_operand_array(z), &y),
        RA_OK, "%s: logaddexp(1000, 1000)", ds);
    ASSERT_VALUES(ctx, y, "logaddexp(1000, 1000) is 1000 + log(2)", 1000.0 + log(2.0));
    ra_array_release(y);
    ra_array_release(z);
    ra_array_release(x1);
    ra_array_release(x2);
    ra_array_release(far);
}

DT_TEST(on_every_device)
{
    ra_ctx *ctx = open_ctx();
    ra_device devs[16];
    size_t n = list_devices(ctx, devs);
    for (size_t i = 0; i < n; i++) {
        uint32_t supported = 0;
        ra_info_dtypes(ctx, &devs[i], 0, &supported);
        values_on_device(ctx, devs[i], RA_FLOAT32);
        if ((supported >> RA_FLOAT64) & 1u) values_on_device(ctx, devs[i], RA_FLOAT64);
        predicates_on_device(ctx, devs[i]);
        binary_on_device(ctx, devs[i], devs[(i + 1) % n]);
    }
    if (n < 2) skip_part("only one device (cpu): no OpenCL device here", "math on OpenCL");
    ra_ctx_destroy(ctx);
}

DT_TEST(bad_arguments)
{
    ra_ctx *ctx = open_ctx();
    ra_array *y = NULL, *x = NULL;
    int64_t shape[1] = {2};
    const int32_t v[2] = {1, 2};
    ra_asarray_buffer(ctx, v, RA_INT32, shape, 1, NULL, &x);
    ASSERT_STATUS(NULL, ra_math_unary(NULL, RA_MATH_SIN, x, &y), RA_E_NULL, "ctx NULL");
    ASSERT_STATUS(ctx, ra_math_unary(ctx, RA_MATH_SIN, NULL, &y), RA_E_NULL, "x NULL");
    ASSERT_STATUS(ctx, ra_math_unary(ctx, RA_MATH_SIN, x, NULL), RA_E_NULL, "out NULL");
    ASSERT_STATUS(ctx, ra_math_unary(ctx, (ra_math_fn)0, x, &y), RA_E_ARG, "unknown function");
    y = (ra_array *)&y;
    ASSERT_STATUS(ctx, ra_math_unary(ctx, RA_MATH_SIN, x, &y), RA_E_DTYPE, "sin of int32");
    ASSERT_MESSAGE(ctx, "int32", "the message names the dtype");
    CHECK(y == NULL, "a failed call sets *out to NULL");
    CHECK(ra_math_name(RA_MATH_LOG1P) && !strcmp(ra_math_name(RA_MATH_LOG1P), "log1p"),
          "ra_math_name gives the standard's name");
    CHECK(ra_math_name((ra_math_fn)999) == NULL, "ra_math_name of an unknown function is NULL");
    ra_array_release(x);
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(on_every_device), DT_ENTRY(bad_arguments))
