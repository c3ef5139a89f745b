/* Tests of ra_math_unary (src/functions/math.c) on every device the context lists: each
 * function's values are those of the mathematics, written out here (not computed through the
 * C library math.c calls, so that a function mapped to the wrong formula is caught), the
 * result is on x's device (DEV-DS-10) with x's shape, and the predicates give bool arrays
 * that see NaN, infinities and the sign of zero. */
#include "ra_test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* Each function's inputs and its values there, written out here rather than computed by
 * the functions refarray calls: the closed forms of the mathematics (sin 0.5, pi / 6 for
 * asin 0.5, ln 2 for asinh 0.75 and acosh 1.25, log2 3, ...) to 21 digits, from 50-digit
 * series and Python's decimal module, and the standard's special cases (a signed zero keeps
 * its sign; round is half to even; log1p(-0) is -0). */
static const struct {
    ra_math_fn fn;
    double in[4];
    double want[4];
} unary_values[] = {
    {RA_MATH_SIN,
     {0.0, -0.0, 0.5, 1.0},
     {0.0, -0.0, 0.479425538604203000273, 0.841470984807896506653}},
    {RA_MATH_COS,
     {0.0, 0.5, 1.0, -1.0},
     {1.0, 0.877582561890372716116, 0.540302305868139717401, 0.540302305868139717401}},
    {RA_MATH_TAN,
     {0.0, -0.0, 0.5, 1.0},
     {0.0, -0.0, 0.546302489843790513255, 1.55740772465490223051}},
    {RA_MATH_ASIN,
     {0.0, 0.5, -0.5, 1.0},
     {0.0, 0.523598775598298873077, -0.523598775598298873077, 1.57079632679489661923}},
    {RA_MATH_ACOS,
     {1.0, 0.5, -0.5, 0.0},
     {0.0, 1.04719755119659774615, 2.09439510239319549231, 1.57079632679489661923}},
    {RA_MATH_ATAN,
     {0.0, 1.0, -1.0, -0.0},
     {0.0, 0.785398163397448309616, -0.785398163397448309616, -0.0}},
    {RA_MATH_SINH,
     {0.0, 1.0, -1.0, 0.5},
     {0.0, 1.17520119364380145688, -1.17520119364380145688, 0.521095305493747361622}},
    {RA_MATH_COSH,
     {0.0, 1.0, -1.0, 0.5},
     {1.0, 1.54308063481524377848, 1.54308063481524377848, 1.12762596520638078523}},
    {RA_MATH_TANH,
     {0.0, 1.0, -1.0, 0.5},
     {0.0, 0.761594155955764888119, -0.761594155955764888119, 0.462117157260009758502}},
    {RA_MATH_ASINH,
     {0.0, 1.0, -1.0, 0.75},
     {0.0, 0.881373587019543025233, -0.881373587019543025233, 0.693147180559945309417}},
    {RA_MATH_ACOSH,
     {1.0, 2.0, 1.25, 2.125},
     {0.0, 1.31695789692481670863, 0.693147180559945309417, 1.38629436111989061883}},
    {RA_MATH_ATANH,
     {0.0, 0.5, -0.5, -0.0},
     {0.0, 0.549306144334054845698, -0.549306144334054845698, -0.0}},
    {RA_MATH_EXP,
     {0.0, 1.0, -1.0, 0.5},
     {1.0, 2.71828182845904523536, 0.367879441171442321596, 1.64872127070012814685}},
    {RA_MATH_EXPM1,
     {0.0, -0.0, 1.0, -1.0},
     {0.0, -0.0, 1.71828182845904523536, -0.632120558828557678404}},
    {RA_MATH_LOG,
     {1.0, 2.0, 0.5, 10.0},
     {0.0, 0.693147180559945309417, -0.693147180559945309417, 2.30258509299404568402}},
    {RA_MATH_LOG1P,
     {0.0, -0.0, 1.0, -0.5},
     {0.0, -0.0, 0.693147180559945309417, -0.693147180559945309417}},
    {RA_MATH_LOG2, {1.0, 8.0, 0.5, 3.0}, {0.0, 3.0, -1.0, 1.58496250072115618145}},
    {RA_MATH_LOG10,
     {1.0, 1000.0, 2.0, 0.5},
     {0.0, 3.0, 0.301029995663981195214, -0.301029995663981195214}},

    {RA_MATH_CEIL, {-2.5, -0.5, 0.5, 3.5}, {-2.0, -0.0, 1.0, 4.0}},
    {RA_MATH_FLOOR, {-2.5, -0.5, 0.5, 3.5}, {-3.0, -1.0, 0.0, 3.0}},
    {RA_MATH_TRUNC, {-2.5, -0.5, 0.5, 3.5}, {-2.0, -0.0, 0.0, 3.0}},
    {RA_MATH_ROUND, {-2.5, -0.5, 0.5, 3.5}, {-2.0, -0.0, 0.0, 4.0}},
    {RA_MATH_SQUARE, {-2.5, -0.5, 0.5, 3.5}, {6.25, 0.25, 0.25, 12.25}},
    {RA_MATH_SIGN, {-2.5, -0.5, 0.5, 3.5}, {-1.0, -1.0, 1.0, 1.0}},
    {RA_MATH_POSITIVE, {-2.5, -0.5, 0.5, 3.5}, {-2.5, -0.5, 0.5, 3.5}},
    {RA_MATH_RECIPROCAL, {-2.5, -0.5, 0.5, 4.0}, {-0.4, -2.0, 2.0, 0.25}},
};

/* GOT is WANT within ULPS units in the last place of a double: NaN for NaN, a zero of the
 * same sign for a zero. The C library's functions are not all correctly rounded, so the
 * values written above are met within 2 units rather than bit for bit. */
static bool near_d(double got, double want, int ulps)
{
    if (isnan(want)) return isnan(got);
    if (want == 0.0 || got == 0.0 || signbit(got) != signbit(want))
        return got == want && signbit(got) == signbit(want);
    int64_t g, w;
    memcpy(&g, &got, sizeof g);
    memcpy(&w, &want, sizeof w);
    return llabs(g - w) <= ulps;
}

static bool near_f(float got, float want, int ulps)
{
    if (isnan(want)) return isnan(got);
    if (want == 0.0f || got == 0.0f || signbit(got) != signbit(want))
        return got == want && signbit(got) == signbit(want);
    int32_t g, w;
    memcpy(&g, &got, sizeof g);
    memcpy(&w, &want, sizeof w);
    return abs(g - w) <= ulps;
}

static void values_on_device(ra_ctx *ctx, ra_device dev, ra_dtype dtype)
{
    char ds[RA_DEVICE_STR_MAX];
    dev_str(dev, ds);
    dt_diag("device %s, %s", ds, ra_dtype_name(dtype));
    int64_t shape[2] = {2, 2};
    CHECK(sizeof unary_values / sizeof unary_values[0] == RA_MATH_RECIPROCAL - RA_MATH_SIN + 1,
          "a row of values for every function from sin to reciprocal");
    for (size_t row = 0; row < sizeof unary_values / sizeof unary_values[0]; row++) {
        int fn = unary_values[row].fn;
        const double *in = unary_values[row].in, *want = unary_values[row].want;
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
            for (int i = 0; i < 4; i++)
                wrong += !near_f(got[i], (float)want[i], 2);
        } else {
            double got[4];
            ra_array_read(ctx, y, got, sizeof got);
            for (int i = 0; i < 4; i++)
                wrong += !near_d(got[i], want[i], 2);
        }
        if (!CHECK(wrong == 0, "%s: %s(%s) gives the written values within 2 units", ds, name,
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

/* The two-operand functions on a = [0.5, -1.25, 2, 3.5] and b = [1.5, 0.75, -2, 3.5]:
 * array with array, array with a Python scalar (which takes the array's dtype), and arrays
 * on two devices refused. The values are written out as above: atan2(0.5, 1.5) is
 * atan(1/3), atan2(2, -2) is 3 pi / 4, pow of a negative base to a non-integer power is NaN,
 * floor_divide rounds toward minus infinity, nextafter is one unit of 2^-53 or 2^-52. */
static const struct {
    ra_math2_fn fn;
    double want[4];
} binary_values[] = {
    {RA_MATH2_ATAN2,
     {0.321750554396642193401, -1.03037682652431246379, 2.35619449019234492885,
      0.785398163397448309616}},
    {RA_MATH2_HYPOT,
     {1.58113883008418966600, 1.45773797371132511772, 2.82842712474619009760,
      4.94974746830583267081}},
    {RA_MATH2_COPYSIGN, {0.5, 1.25, -2.0, 3.5}},
    {RA_MATH2_POW, {0.353553390593273762200, NAN, 0.25, 80.2117802289663684535}},
    {RA_MATH2_FLOOR_DIVIDE, {0.0, -2.0, -1.0, 1.0}},
    {RA_MATH2_NEXTAFTER, {0x1.0000000000001p-1, -0x1.3ffffffffffffp+0, 0x1.fffffffffffffp+0, 3.5}},
    {RA_MATH2_MINIMUM, {0.5, -1.25, -2.0, 3.5}},
    {RA_MATH2_GREATER, {0, 0, 1, 0}},
    {RA_MATH2_GREATER_EQUAL, {0, 0, 1, 1}},
    {RA_MATH2_LESS_EQUAL, {1, 1, 0, 1}},
    {RA_MATH2_NOT_EQUAL, {1, 1, 1, 0}},
};

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
    /* logaddexp and remainder are checked below. */
    for (size_t row = 0; row < sizeof binary_values / sizeof binary_values[0]; row++) {
        int fn = binary_values[row].fn;
        const double *want = binary_values[row].want;
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
                wrong += got[i] != (want[i] != 0);
        } else {
            double got[4];
            ra_array_read(ctx, y, got, sizeof got);
            for (int i = 0; i < 4; i++)
                wrong += !near_d(got[i], want[i], 2);
        }
        CHECK(wrong == 0, "%s: %s gives the written values within 2 units (%d differ)", ds, name,
              wrong);
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
