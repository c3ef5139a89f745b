/* Tests of refarray's elementwise functions beyond the float-only ones of test_math.c (the
 * integer, bool and complex paths of ra_math_unary and ra_math_binary, broadcasting, Python
 * scalars, clip) on every device the context lists: the values are derived by hand in the
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
    }
    if (n < 2) skip_part("only one device (cpu): no OpenCL device here", "elementwise on OpenCL");
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(on_every_device))
