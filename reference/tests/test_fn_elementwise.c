/* Tests of refarray_fn_elementwise.h's functions and of the integer, bool and complex paths
 * of ra_math_unary and ra_math_binary (broadcasting, Python scalars, clip; the statistics,
 * cumulative sums, diff, meshgrid, the array object's T, mT and item, isdtype) on every
 * device the context lists: the values are derived by hand in the
 * comments, or computed here with libm and complex.h; each result is on its inputs' device
 * (DEV-DS-10), and arrays on two devices are refused (DEV-DS-11). */
#include "ra_test.h"

#include <complex.h>
#include <math.h>
#include <refarray_fn_elementwise.h>
#include <stdint.h>

static ra_array *make(ra_ctx *ctx, ra_device dev, ra_dtype dt, const void *data, size_t ndim,
                      const int64_t *shape)
{
    ra_array *x = NULL;
    int st = ra_asarray_buffer(ctx, data, dt, shape, ndim, &(ra_opts){.device_value = &dev}, &x);
    if (st != RA_OK) dt_fail(__FILE__, __LINE__, "asarray: %s", ra_ctx_message(ctx));
    return x;
}

/* The result of a call on dev: checked for status and device, then its values compared. */
#define EXPECT(ctx, dev, call, name, ...)                                                          \
    do {                                                                                           \
        ra_array *y_ = NULL;                                                                       \
        ASSERT_STATUS(ctx, (call), RA_OK, "%s", name);                                             \
        if (y_) ASSERT_DEV(ra_array_device(y_), dev, "DEV-DS-10 %s: on the inputs' device", name); \
        ASSERT_VALUES(ctx, y_, name, __VA_ARGS__);                                                 \
        ra_array_release(y_);                                                                      \
    } while (0)

static void integers_on_device(ra_ctx *ctx, ra_device dev)
{
    int64_t s4[1] = {4};
    const int32_t a[4] = {12, -7, 5, -1}, b[4] = {10, 2, -3, 3};
    ra_array *x1 = make(ctx, dev, RA_INT32, a, 1, s4), *x2 = make(ctx, dev, RA_INT32, b, 1, s4);
    ra_operand o1 = ra_operand_array(x1), o2 = ra_operand_array(x2);
    /* 12 = 0b1100, 10 = 0b1010: and 0b1000 = 8, or 0b1110 = 14, xor 0b0110 = 6. -7 & 2: -7 is
     * ...11111001, bit 1 is 0, so 0; -7 | 2 = ...11111011 = -5; -7 ^ 2 = -5. 5 = 0b101 and -3 =
     * ...11111101: and 0b101 = 5, or -3, xor ...11111000 = -8. -1 with 3: and 3, or -1, xor
     * ...11111100 = -4. */
    EXPECT(ctx, dev, ra_math_binary(ctx, RA_MATH2_BITWISE_AND, o1, o2, &y_), "bitwise_and", 8, 0, 5,
           3);
    EXPECT(ctx, dev, ra_math_binary(ctx, RA_MATH2_BITWISE_OR, o1, o2, &y_), "bitwise_or", 14, -5,
           -3, -1);
    EXPECT(ctx, dev, ra_math_binary(ctx, RA_MATH2_BITWISE_XOR, o1, o2, &y_), "bitwise_xor", 6, -5,
           -8, -4);
    /* ~v is -v - 1 in two's complement. */
    EXPECT(ctx, dev, ra_math_unary(ctx, RA_MATH_BITWISE_INVERT, x1, &y_), "bitwise_invert", -13, 6,
           -6, 0);
    /* Python's // and %: 12 // 10 = 1 r 2; -7 // 2 = -4 r 1; 5 // -3 = -2 r -1; -1 // 3 = -1 r
     * 2 (the remainder takes the divisor's sign). */
    EXPECT(ctx, dev, ra_math_binary(ctx, RA_MATH2_FLOOR_DIVIDE, o1, o2, &y_), "floor_divide", 1, -4,
           -2, -1);
    EXPECT(ctx, dev, ra_math_binary(ctx, RA_MATH2_REMAINDER, o1, o2, &y_), "remainder", 2, 1, -1,
           2);
    EXPECT(ctx, dev, ra_math_binary(ctx, RA_MATH2_MINIMUM, o1, o2, &y_), "minimum", 10, -7, -3, -1);
    EXPECT(ctx, dev, ra_math_binary(ctx, RA_MATH2_GREATER, o1, o2, &y_), "greater", 1, 0, 1, 0);
    /* 2 ** [0, 1, 2, 5] = [1, 2, 4, 32]; shifts by a Python int 2: 12 << 2 = 48, -7 << 2 =
     * -28; 12 >> 2 = 3, -7 >> 2 = floor(-7 / 4) = -2 (arithmetic), 5 >> 2 = 1, -1 >> 2 = -1. */
    const int32_t e[4] = {0, 1, 2, 5};
    ra_array *xe = make(ctx, dev, RA_INT32, e, 1, s4);
    EXPECT(ctx, dev,
           ra_math_binary(ctx, RA_MATH2_POW, ra_operand_scalar(ra_scalar_int(2)),
                          ra_operand_array(xe), &y_),
           "pow(2, e)", 1, 2, 4, 32);
    EXPECT(ctx, dev,
           ra_math_binary(ctx, RA_MATH2_BITWISE_LEFT_SHIFT, o1, ra_operand_scalar(ra_scalar_int(2)),
                          &y_),
           "x << 2", 48, -28, 20, -4);
    EXPECT(ctx, dev,
           ra_math_binary(ctx, RA_MATH2_BITWISE_RIGHT_SHIFT, o1,
                          ra_operand_scalar(ra_scalar_int(2)), &y_),
           "x >> 2", 3, -2, 1, -1);
    /* Integer division by zero is 0 (the standard leaves it open; no trap). */
    const int32_t z[4] = {0, 0, 0, 0};
    ra_array *xz = make(ctx, dev, RA_INT32, z, 1, s4);
    EXPECT(ctx, dev, ra_math_binary(ctx, RA_MATH2_FLOOR_DIVIDE, o1, ra_operand_array(xz), &y_),
           "x // 0", 0, 0, 0, 0);
    /* int8 wraps: 100 * 100 = 10000 = 39 * 256 + 16, so square(100) is 16 in int8; sign. */
    const int8_t c[4] = {100, -3, 0, 7};
    ra_array *x8 = make(ctx, dev, RA_INT8, c, 1, s4);
    EXPECT(ctx, dev, ra_math_unary(ctx, RA_MATH_SQUARE, x8, &y_), "square(int8)", 16, 9, 0, 49);
    EXPECT(ctx, dev, ra_math_unary(ctx, RA_MATH_SIGN, x8, &y_), "sign(int8)", 1, -1, 0, 1);
    EXPECT(ctx, dev, ra_math_unary(ctx, RA_MATH_ISFINITE, x8, &y_), "isfinite(int8)", 1, 1, 1, 1);
    /* uint8 200 with int8 is int16 (the table); 200 > 100, -3 < 200. */
    const uint8_t u[4] = {200, 200, 0, 7};
    ra_array *xu = make(ctx, dev, RA_UINT8, u, 1, s4);
    EXPECT(ctx, dev,
           ra_math_binary(ctx, RA_MATH2_GREATER, ra_operand_array(xu), ra_operand_array(x8), &y_),
           "uint8 > int8", 1, 1, 0, 0);
    ra_array *y = NULL;
    ASSERT_STATUS(
        ctx, ra_math_binary(ctx, RA_MATH2_GREATER, ra_operand_array(xu), ra_operand_array(x8), &y),
        RA_OK, "uint8 > int8");
    CHECK(y && ra_array_dtype(y) == RA_BOOL, "a comparison gives bool");
    ra_array_release(y);
    /* A Python int outside int8: refused, not wrapped. */
    ASSERT_STATUS(ctx,
                  ra_math_binary(ctx, RA_MATH2_BITWISE_AND, ra_operand_array(x8),
                                 ra_operand_scalar(ra_scalar_int(300)), &y),
                  RA_E_SCALAR_RANGE, "int8 & 300");
    /* Kinds: shifts take no bool, atan2 no integer, logical_and only bool. */
    ASSERT_STATUS(ctx, ra_math_binary(ctx, RA_MATH2_ATAN2, o1, o2, &y), RA_E_DTYPE, "atan2(int32)");
    ASSERT_MESSAGE(ctx, "int32", "the message names the dtype");
    ASSERT_STATUS(ctx, ra_math_binary(ctx, RA_MATH2_LOGICAL_AND, o1, o2, &y), RA_E_DTYPE,
                  "logical_and(int32)");
    ra_array *xs[] = {x1, x2, xe, xz, x8, xu};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        ra_array_release(xs[i]);
}

static void bools_and_broadcasting(ra_ctx *ctx, ra_device dev, ra_device other)
{
    /* (2, 1) with (1, 3) broadcasts to (2, 3): row r, column c is a[r] op b[c]. */
    int64_t s21[2] = {2, 1}, s13[2] = {1, 3};
    const uint8_t a[2] = {1, 0}, b[3] = {1, 0, 1};
    ra_array *x1 = make(ctx, dev, RA_BOOL, a, 2, s21), *x2 = make(ctx, dev, RA_BOOL, b, 2, s13);
    ra_operand o1 = ra_operand_array(x1), o2 = ra_operand_array(x2);
    EXPECT(ctx, dev, ra_math_binary(ctx, RA_MATH2_LOGICAL_AND, o1, o2, &y_), "logical_and", 1, 0, 1,
           0, 0, 0);
    EXPECT(ctx, dev, ra_math_binary(ctx, RA_MATH2_LOGICAL_OR, o1, o2, &y_), "logical_or", 1, 1, 1,
           1, 0, 1);
    EXPECT(ctx, dev, ra_math_binary(ctx, RA_MATH2_LOGICAL_XOR, o1, o2, &y_), "logical_xor", 0, 1, 0,
           1, 0, 1);
    EXPECT(
        ctx, dev,
        ra_math_binary(ctx, RA_MATH2_BITWISE_XOR, o1, ra_operand_scalar(ra_scalar_bool(true)), &y_),
        "bool ^ True", 0, 1);
    EXPECT(ctx, dev, ra_math_unary(ctx, RA_MATH_LOGICAL_NOT, x2, &y_), "logical_not", 0, 1, 0);
    /* (2,) with (3,) do not broadcast. */
    int64_t s2[1] = {2}, s3[1] = {3};
    ra_array *y = NULL, *p = make(ctx, dev, RA_BOOL, a, 1, s2),
             *q = make(ctx, dev, RA_BOOL, b, 1, s3);
    ASSERT_STATUS(
        ctx, ra_math_binary(ctx, RA_MATH2_LOGICAL_OR, ra_operand_array(p), ra_operand_array(q), &y),
        RA_E_BROADCAST, "(2,) with (3,)");
    if (!ra_device_eq(dev, other)) {
        ra_array *far = make(ctx, other, RA_BOOL, b, 2, s13);
        ASSERT_STATUS(ctx, ra_math_binary(ctx, RA_MATH2_LOGICAL_OR, o1, ra_operand_array(far), &y),
                      RA_E_DEVICE_MISMATCH, "DEV-DS-11: logical_or of arrays on two devices");
        ra_operand lo = ra_operand_array(far);
        ASSERT_STATUS(ctx, ra_clip(ctx, x1, &lo, NULL, &y), RA_E_DTYPE, "clip of bool");
        ra_array_release(far);
    }
    ra_array_release(p);
    ra_array_release(q);
    ra_array_release(x1);
    ra_array_release(x2);
}

static void clip_on_device(ra_ctx *ctx, ra_device dev, ra_device other)
{
    int64_t s4[1] = {4};
    const float v[4] = {-2.5f, 0.5f, 3.0f, NAN};
    const float hi[4] = {1.0f, 0.25f, 5.0f, 1.0f};
    ra_array *x = make(ctx, dev, RA_FLOAT32, v, 1, s4), *h = make(ctx, dev, RA_FLOAT32, hi, 1, s4);
    ra_operand lo = ra_operand_scalar(ra_scalar_int(-1)), ho = ra_operand_array(h);
    /* [-2.5, 0.5, 3, NaN] limited below by -1 and above by [1, 0.25, 5, 1]. */
    EXPECT(ctx, dev, ra_clip(ctx, x, &lo, &ho, &y_), "clip(x, -1, hi)", -1, 0.25, 3, NAN);
    EXPECT(ctx, dev, ra_clip(ctx, x, NULL, NULL, &y_), "clip(x)", -2.5, 0.5, 3, NAN);
    const int16_t iv[4] = {-300, 5, 40, 0};
    ra_array *xi = make(ctx, dev, RA_INT16, iv, 1, s4);
    ra_operand l2 = ra_operand_scalar(ra_scalar_int(0)), h2 = ra_operand_scalar(ra_scalar_int(10));
    EXPECT(ctx, dev, ra_clip(ctx, xi, &l2, &h2, &y_), "clip(int16, 0, 10)", 0, 5, 10, 0);
    ra_array *y = NULL;
    ra_operand big = ra_operand_scalar(ra_scalar_int(70000));
    ASSERT_STATUS(ctx, ra_clip(ctx, xi, NULL, &big, &y), RA_E_SCALAR_RANGE,
                  "clip(int16, max=70000)");
    if (!ra_device_eq(dev, other)) {
        ra_array *far = make(ctx, other, RA_FLOAT32, hi, 1, s4);
        ra_operand fo = ra_operand_array(far);
        ASSERT_STATUS(ctx, ra_clip(ctx, x, NULL, &fo, &y), RA_E_DEVICE_MISMATCH,
                      "DEV-DS-11: clip with max on another device");
        ra_array_release(far);
    }
    ra_array_release(x);
    ra_array_release(h);
    ra_array_release(xi);
}

/* Complex elements: every function against complex.h's, computed here in double and rounded
 * to complex64 as the result is stored. */
static void complex_on_device(ra_ctx *ctx, ra_device dev)
{
    int64_t s2[1] = {2};
    const float zv[4] = {0.5f, -0.25f, -1.5f, 2.0f}; /* 0.5 - 0.25i, -1.5 + 2i */
    ra_array *x = make(ctx, dev, RA_COMPLEX64, zv, 1, s2);
    const double complex z[2] = {CMPLX(0.5, -0.25), CMPLX(-1.5, 2.0)};
    static double complex (*const funcs[])(double complex) = {csin,  ccos,  ctan,  cexp,  clog,
                                                              csinh, ctanh, casin, catanh};
    static const ra_math_fn fns[] = {RA_MATH_SIN,  RA_MATH_COS,  RA_MATH_TAN,
                                     RA_MATH_EXP,  RA_MATH_LOG,  RA_MATH_SINH,
                                     RA_MATH_TANH, RA_MATH_ASIN, RA_MATH_ATANH};
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
        ra_array *y = NULL, *h = NULL;
        ASSERT_STATUS(ctx, ra_math_unary(ctx, fns[f], x, &y), RA_OK, "%s(complex64)",
                      ra_math_name(fns[f]));
        if (!y) continue;
        ASSERT_DEV(ra_array_device(y), dev, "DEV-DS-10 %s: on x's device", ra_math_name(fns[f]));
        float got[4] = {0};
        ra_to_device(ctx, y, RA_CPU, NULL, &h);
        if (h) ra_array_read(ctx, h, got, sizeof got);
        int wrong = 0;
        for (int i = 0; i < 2; i++) {
            double complex w = funcs[f](z[i]);
            wrong += got[2 * i] != (float)creal(w) || got[2 * i + 1] != (float)cimag(w);
        }
        CHECK(wrong == 0, "%s(complex64) is complex.h's, rounded to float (%d differ)",
              ra_math_name(fns[f]), wrong);
        ra_array_release(h);
        ra_array_release(y);
    }
    /* real, imag and |.|'s kin: 0.5 - 0.25i has real 0.5, imag -0.25; conj flips the sign. */
    EXPECT(ctx, dev, ra_math_unary(ctx, RA_MATH_REAL, x, &y_), "real", 0.5, -1.5);
    EXPECT(ctx, dev, ra_math_unary(ctx, RA_MATH_IMAG, x, &y_), "imag", -0.25, 2.0);
    ra_array *y = NULL;
    ASSERT_STATUS(ctx, ra_math_unary(ctx, RA_MATH_REAL, x, &y), RA_OK, "real");
    CHECK(y && ra_array_dtype(y) == RA_FLOAT32, "real of complex64 is float32");
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_math_unary(ctx, RA_MATH_CONJ, x, &y), RA_OK, "conj");
    ra_array *im = NULL;
    if (y) ra_math_unary(ctx, RA_MATH_IMAG, y, &im);
    ASSERT_VALUES(ctx, im, "imag(conj(x)) is -imag(x)", 0.25, -2.0);
    ra_array_release(im);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_math_unary(ctx, RA_MATH_FLOOR, x, &y), RA_E_DTYPE, "floor(complex64)");
    ra_array_release(x);
}

static void statistics_on_device(ra_ctx *ctx, ra_device dev, ra_device other)
{
    /* m = [[1, 2, 3], [4, 5, 6]]: column sums 5, 7, 9; row sums 6, 15; all 21; the product
     * 1 * 2 * ... * 6 = 720; row means 2 and 5. */
    int64_t s23[2] = {2, 3}, s4[1] = {4};
    const int32_t mv[6] = {1, 2, 3, 4, 5, 6};
    const double fv[6] = {1, 2, 3, 4, 5, 6};
    ra_array *m = make(ctx, dev, RA_INT32, mv, 2, s23), *f = make(ctx, dev, RA_FLOAT64, fv, 2, s23);
    const int64_t ax0[1] = {0}, ax1[1] = {-1}, both[2] = {1, 0};
    EXPECT(ctx, dev, ra_statistic(ctx, RA_STAT_SUM, m, ax0, 1, false, 0, 0, &y_), "sum axis 0", 5,
           7, 9);
    EXPECT(ctx, dev, ra_statistic(ctx, RA_STAT_SUM, m, ax1, 1, false, 0, 0, &y_), "sum axis -1", 6,
           15);
    EXPECT(ctx, dev, ra_statistic(ctx, RA_STAT_SUM, m, both, 2, false, 0, 0, &y_),
           "sum axes (1, 0)", 21);
    EXPECT(ctx, dev, ra_statistic(ctx, RA_STAT_PROD, m, NULL, 0, false, 0, 0, &y_), "prod", 720);
    EXPECT(ctx, dev, ra_statistic(ctx, RA_STAT_MEAN, f, ax1, 1, false, 0, 0, &y_), "mean axis -1",
           2, 5);
    EXPECT(ctx, dev, ra_statistic(ctx, RA_STAT_MAX, m, ax0, 1, false, 0, 0, &y_), "max axis 0", 4,
           5, 6);
    EXPECT(ctx, dev, ra_statistic(ctx, RA_STAT_ANY, m, ax1, 1, false, 0, 0, &y_), "any", 1, 1);
    ra_array *y = NULL;
    ASSERT_STATUS(ctx, ra_statistic(ctx, RA_STAT_SUM, m, ax0, 1, true, 0, 0, &y), RA_OK,
                  "sum keepdims");
    CHECK(y && ra_array_ndim(y) == 2 && ra_array_shape(y)[0] == 1 && ra_array_shape(y)[1] == 3,
          "keepdims keeps the reduced axis with size 1");
    CHECK(y && ra_array_dtype(y) == RA_INT64, "sum of int32 is int64 (the default integer dtype)");
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_statistic(ctx, RA_STAT_SUM, m, NULL, 0, false, RA_FLOAT32, 0, &y), RA_OK,
                  "sum dtype=float32");
    CHECK(y && ra_array_dtype(y) == RA_FLOAT32, "sum(dtype=float32) is float32");
    ra_array_release(y);
    /* var of [1, 2, 3, 4]: mean 2.5, squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5; 5 / 4
     * with correction 0, 5 / 3 with 1; std is its square root. */
    const double v4[4] = {1, 2, 3, 4};
    ra_array *x4 = make(ctx, dev, RA_FLOAT64, v4, 1, s4);
    EXPECT(ctx, dev, ra_statistic(ctx, RA_STAT_VAR, x4, NULL, 0, false, 0, 0, &y_), "var", 1.25);
    EXPECT(ctx, dev, ra_statistic(ctx, RA_STAT_VAR, x4, NULL, 0, false, 0, 1, &y_),
           "var correction 1", 5.0 / 3.0);
    EXPECT(ctx, dev, ra_statistic(ctx, RA_STAT_STD, x4, NULL, 0, false, 0, 0, &y_), "std",
           sqrt(1.25));
    /* Cumulative sums: 1, 1 + 2, 1 + 2 + 3, ...; with the initial 0 first; the running
     * product of each row of m: 1, 2, 6 and 4, 20, 120. */
    EXPECT(ctx, dev, ra_cumulative(ctx, false, x4, NULL, 0, false, &y_), "cumulative_sum", 1, 3, 6,
           10);
    EXPECT(ctx, dev, ra_cumulative(ctx, false, x4, NULL, 0, true, &y_),
           "cumulative_sum include_initial", 0, 1, 3, 6, 10);
    const int64_t one = 1;
    EXPECT(ctx, dev, ra_cumulative(ctx, true, m, &one, 0, false, &y_), "cumulative_prod axis 1", 1,
           2, 6, 4, 20, 120);
    ASSERT_STATUS(ctx, ra_cumulative(ctx, false, m, NULL, 0, false, &y), RA_E_AXIS,
                  "cumulative_sum of a 2-D array without axis");
    /* diff of the squares [1, 4, 9, 16]: 3, 5, 7; again: 2, 2; with 0 prepended: 1, 3, 5, 7. */
    const double sq[4] = {1, 4, 9, 16}, zero[1] = {0};
    int64_t s1[1] = {1};
    ra_array *xs = make(ctx, dev, RA_FLOAT64, sq, 1, s4),
             *z = make(ctx, dev, RA_FLOAT64, zero, 1, s1);
    EXPECT(ctx, dev, ra_diff(ctx, xs, -1, 1, NULL, NULL, &y_), "diff", 3, 5, 7);
    EXPECT(ctx, dev, ra_diff(ctx, xs, 0, 2, NULL, NULL, &y_), "diff n=2", 2, 2);
    EXPECT(ctx, dev, ra_diff(ctx, xs, 0, 1, z, NULL, &y_), "diff prepend [0]", 1, 3, 5, 7);
    /* min of an empty axis has no value; a NaN propagates. */
    const double nanv[3] = {1, NAN, -2};
    int64_t s3[1] = {3}, s0[1] = {0};
    ra_array *xn = make(ctx, dev, RA_FLOAT64, nanv, 1, s3),
             *e = make(ctx, dev, RA_FLOAT64, nanv, 1, s0);
    EXPECT(ctx, dev, ra_statistic(ctx, RA_STAT_MIN, xn, NULL, 0, false, 0, 0, &y_), "min with NaN",
           NAN);
    ASSERT_STATUS(ctx, ra_statistic(ctx, RA_STAT_MIN, e, NULL, 0, false, 0, 0, &y),
                  RA_E_EMPTY_REDUCTION, "min of no element");
    EXPECT(ctx, dev, ra_statistic(ctx, RA_STAT_SUM, e, NULL, 0, false, 0, 0, &y_),
           "sum of no element", 0);
    ASSERT_STATUS(ctx, ra_statistic(ctx, RA_STAT_MEAN, m, NULL, 0, false, 0, 0, &y), RA_E_DTYPE,
                  "mean of int32");
    ASSERT_STATUS(ctx, ra_statistic(ctx, RA_STAT_SUM, m, both, 1, false, 0, 0, &y), RA_OK,
                  "sum axis 1");
    ra_array_release(y);
    const int64_t twice[2] = {0, -2};
    ASSERT_STATUS(ctx, ra_statistic(ctx, RA_STAT_SUM, m, twice, 2, false, 0, 0, &y), RA_E_AXIS,
                  "axis 0 given twice (0 and -2)");
    if (!ra_device_eq(dev, other)) {
        ra_array *far = make(ctx, other, RA_FLOAT64, zero, 1, s1);
        ASSERT_STATUS(ctx, ra_diff(ctx, xs, 0, 1, far, NULL, &y), RA_E_DEVICE_MISMATCH,
                      "DEV-DS-11: diff with prepend on another device");
        ra_array_release(far);
    }
    ra_array *all[] = {m, f, x4, xs, z, xn, e};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ra_array_release(all[i]);
}

static void objects_on_device(ra_ctx *ctx, ra_device dev)
{
    /* meshgrid([1, 2, 3], [10, 20]) with "xy" indexing: both (2, 3); X repeats the first array
     * along rows, Y the second along columns. */
    int64_t s3[1] = {3}, s2[1] = {2};
    const int16_t xv[3] = {1, 2, 3}, yv[2] = {10, 20};
    ra_array *x = make(ctx, dev, RA_INT16, xv, 1, s3), *y = make(ctx, dev, RA_INT16, yv, 1, s2);
    const ra_array *in[2] = {x, y};
    ra_array *g[2] = {NULL, NULL};
    ASSERT_STATUS(ctx, ra_meshgrid(ctx, in, 2, false, g), RA_OK, "meshgrid xy");
    ASSERT_VALUES(ctx, g[0], "meshgrid X", 1, 2, 3, 1, 2, 3);
    ASSERT_VALUES(ctx, g[1], "meshgrid Y", 10, 10, 10, 20, 20, 20);
    if (g[0])
        ASSERT_DEV(ra_array_device(g[0]), dev,
                   "DEV-DS-10: meshgrid's outputs on the inputs' device");
    for (int k = 0; k < 2; k++)
        ra_array_release(g[k]);
    ASSERT_STATUS(ctx, ra_meshgrid(ctx, in, 2, true, g), RA_OK, "meshgrid ij");
    ASSERT_VALUES(ctx, g[0], "meshgrid ij X: (3, 2)", 1, 1, 2, 2, 3, 3);
    for (int k = 0; k < 2; k++)
        ra_array_release(g[k]);
    /* The transpose of [[1, 2, 3], [4, 5, 6]] is [[1, 4], [2, 5], [3, 6]]. */
    int64_t s23[2] = {2, 3};
    const float mv[6] = {1, 2, 3, 4, 5, 6};
    ra_array *m = make(ctx, dev, RA_FLOAT32, mv, 2, s23);
    EXPECT(ctx, dev, ra_array_transpose(ctx, m, false, &y_), "T", 1, 4, 2, 5, 3, 6);
    EXPECT(ctx, dev, ra_array_transpose(ctx, m, true, &y_), "mT", 1, 4, 2, 5, 3, 6);
    ra_array *t = NULL;
    ASSERT_STATUS(ctx, ra_array_transpose(ctx, x, false, &t), RA_E_SHAPE, "T of a 1-D array");
    /* The one value of a 0-d array. */
    const int32_t seven = -7;
    ra_array *s = make(ctx, dev, RA_INT32, &seven, 0, NULL);
    ra_scalar v = ra_scalar_bool(false);
    ASSERT_STATUS(ctx, ra_array_item(ctx, s, &v), RA_OK, "item");
    CHECK(v.kind == RA_SCALAR_INT && v.i == -7, "the item of int32 -7 is the int -7");
    ASSERT_STATUS(ctx, ra_array_item(ctx, x, &v), RA_E_SHAPE, "item of a 1-D array");
    ra_array_release(s);
    ra_array_release(m);
    ra_array_release(x);
    ra_array_release(y);
}

DT_TEST(isdtype)
{
    bool b = false;
    ASSERT_STATUS(NULL, ra_isdtype(NULL, RA_UINT8, "integral", &b), RA_OK, "isdtype");
    CHECK(b, "uint8 is integral");
    ASSERT_STATUS(NULL, ra_isdtype(NULL, RA_COMPLEX64, "real floating", &b), RA_OK, "isdtype");
    CHECK(!b, "complex64 is not real floating");
    ASSERT_STATUS(NULL, ra_isdtype(NULL, RA_BOOL, "numeric", &b), RA_OK, "isdtype");
    CHECK(!b, "bool is not numeric");
    ASSERT_STATUS(NULL, ra_isdtype(NULL, RA_FLOAT32, "floating", &b), RA_E_ARG,
                  "an unknown kind name");
    CHECK(ra_stat_name(RA_STAT_VAR) && !strcmp(ra_stat_name(RA_STAT_VAR), "var"), "ra_stat_name");
}

DT_TEST(finfo_iinfo)
{
    /* float32: 24-bit significand, so eps is 2^-23; its largest value (2 - 2^-23) * 2^127; the
     * smallest normal 2^-126 (IEEE 754 binary32). complex64 describes its float32 parts. */
    ra_finfo f;
    ASSERT_STATUS(NULL, ra_finfo_of(NULL, RA_COMPLEX64, &f), RA_OK, "finfo(complex64)");
    CHECK(f.bits == 32 && f.eps == 0x1p-23 && f.max == 0x1.fffffep127 && f.min == -f.max &&
              f.smallest_normal == 0x1p-126 && f.dtype == RA_FLOAT32,
          "finfo(complex64) is float32's: bits 32, eps 2^-23, max (2 - 2^-23) 2^127");
    ASSERT_STATUS(NULL, ra_finfo_of(NULL, RA_FLOAT64, &f), RA_OK, "finfo(float64)");
    CHECK(f.bits == 64 && f.eps == 0x1p-52 && f.smallest_normal == 0x1p-1022, "finfo(float64)");
    ASSERT_STATUS(NULL, ra_finfo_of(NULL, RA_INT8, &f), RA_E_DTYPE, "finfo(int8)");
    /* int16: -2^15 .. 2^15 - 1; uint64: 0 .. 2^64 - 1. */
    ra_iinfo i;
    ASSERT_STATUS(NULL, ra_iinfo_of(NULL, RA_INT16, &i), RA_OK, "iinfo(int16)");
    CHECK(i.bits == 16 && i.min == -32768 && i.max == 32767, "iinfo(int16)");
    ASSERT_STATUS(NULL, ra_iinfo_of(NULL, RA_UINT64, &i), RA_OK, "iinfo(uint64)");
    CHECK(i.bits == 64 && i.min == 0 && i.max == UINT64_MAX, "iinfo(uint64)");
    ASSERT_STATUS(NULL, ra_iinfo_of(NULL, RA_FLOAT32, &i), RA_E_DTYPE, "iinfo(float32)");
}

/* A sharded array: sum and max over every axis go to ra_reduce (each piece on its device);
 * the other statistics refuse it. [1, 2, 3, 4] split over two devices sums to 10. */
static void sharded_statistics(ra_ctx *ctx, const ra_device *devs, size_t n)
{
    if (n < 2) {
        skip_part("only one device", "statistics of a sharded array");
        return;
    }
    int64_t s4[1] = {4};
    const double v[4] = {1, 2, 3, 4};
    ra_array *x = make(ctx, devs[0], RA_FLOAT64, v, 1, s4), *sh = NULL, *y = NULL;
    int axis = 0;
    ASSERT_STATUS(ctx, ra_shard(ctx, x, devs, 2, &axis, NULL, &sh), RA_OK, "shard over 2 devices");
    if (sh) {
        ASSERT_STATUS(ctx, ra_statistic(ctx, RA_STAT_SUM, sh, NULL, 0, false, 0, 0, &y), RA_OK,
                      "sum of a sharded array");
        ASSERT_VALUES(ctx, y, "sum of sharded [1, 2, 3, 4]", 10);
        ra_array_release(y);
        y = NULL;
        ASSERT_STATUS(ctx, ra_statistic(ctx, RA_STAT_MEAN, sh, NULL, 0, false, 0, 0, &y), RA_E_ARG,
                      "mean of a sharded array is refused");
    }
    ra_array_release(sh);
    ra_array_release(x);
}

/* linspace with complex bounds (2022.12): each part spaced on its own; 0 to 1 + 2i in three
 * steps is 0, 0.5 + 1i, 1 + 2i, complex128 by default. */
static void complex_linspace(ra_ctx *ctx, ra_device dev)
{
    ra_array *y = NULL, *h = NULL;
    ASSERT_STATUS(ctx,
                  ra_linspace(ctx, ra_scalar_complex(0, 0), ra_scalar_complex(1, 2), 3, true,
                              &(ra_opts){.device_value = &dev}, &y),
                  RA_OK, "linspace(0, 1+2j, 3)");
    if (!y) return;
    ASSERT_DEV(ra_array_device(y), dev, "linspace's result on the device asked for");
    CHECK(ra_array_dtype(y) == RA_COMPLEX128, "complex bounds give complex128");
    double got[6] = {0};
    ra_to_device(ctx, y, RA_CPU, NULL, &h);
    if (h) ra_array_read(ctx, h, got, sizeof got);
    CHECK(got[0] == 0 && got[1] == 0 && got[2] == 0.5 && got[3] == 1 && got[4] == 1 && got[5] == 2,
          "linspace(0, 1+2j, 3) is [0, 0.5+1j, 1+2j]");
    ra_array_release(h);
    ra_array_release(y);
    y = NULL;
    ASSERT_STATUS(ctx,
                  ra_linspace(ctx, ra_scalar_float(0), ra_scalar_complex(1, 2), 3, true,
                              &(ra_opts){.dtype = RA_FLOAT64, .device_value = &dev}, &y),
                  RA_E_DTYPE, "a complex bound with a real dtype");
}

/* float16 on cpu, where it always lives: exp(1) = 2.71828... rounds to the binary16 grid of
 * step 2^-9 in [2, 4): 1392 * 2^-9 = 2.71875; floor_divide and remainder of [7, -7] by 2 are
 * [3, -4] and [1, 1]. */
static void float16_on_cpu(ra_ctx *ctx)
{
    int64_t s2[1] = {2};
    const uint16_t one = 0x3C00, v[2] = {0x4700, 0xC700}; /* 1.0; 7.0, -7.0 */
    ra_array *x = make(ctx, RA_CPU, RA_FLOAT16, &one, 0, NULL),
             *w = make(ctx, RA_CPU, RA_FLOAT16, v, 1, s2);
    EXPECT(ctx, RA_CPU, ra_math_unary(ctx, RA_MATH_EXP, x, &y_), "exp(float16 1)", 2.71875);
    ra_operand two = ra_operand_scalar(ra_scalar_int(2));
    EXPECT(ctx, RA_CPU, ra_math_binary(ctx, RA_MATH2_FLOOR_DIVIDE, ra_operand_array(w), two, &y_),
           "float16 [7, -7] // 2", 3, -4);
    EXPECT(ctx, RA_CPU, ra_math_binary(ctx, RA_MATH2_REMAINDER, ra_operand_array(w), two, &y_),
           "float16 [7, -7] % 2", 1, 1);
    ra_array *y = NULL;
    ASSERT_STATUS(ctx, ra_math_unary(ctx, RA_MATH_EXP, x, &y), RA_OK, "exp(float16)");
    CHECK(y && ra_array_dtype(y) == RA_FLOAT16, "exp of float16 is float16");
    ra_array_release(y);
    ra_array_release(x);
    ra_array_release(w);
}

DT_TEST(on_every_device)
{
    ra_ctx *ctx = open_ctx();
    ra_device devs[16];
    size_t n = list_devices(ctx, devs);
    for (size_t i = 0; i < n; i++) {
        integers_on_device(ctx, devs[i]);
        bools_and_broadcasting(ctx, devs[i], devs[(i + 1) % n]);
        clip_on_device(ctx, devs[i], devs[(i + 1) % n]);
        complex_on_device(ctx, devs[i]);
        statistics_on_device(ctx, devs[i], devs[(i + 1) % n]);
        objects_on_device(ctx, devs[i]);
        complex_linspace(ctx, devs[i]);
    }
    sharded_statistics(ctx, devs, n);
    float16_on_cpu(ctx);
    if (n < 2) skip_part("only one device (cpu): no OpenCL device here", "elementwise on OpenCL");
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(on_every_device), DT_ENTRY(isdtype), DT_ENTRY(finfo_iinfo))
