/* Tests of the promotion rule sets (API-PROM-*, OF-PROM-*), out= casting (OF-OUT-*), the
 * dtype aliases and is_floating_point (OF-DT-1, OF-DT-2), on every device the context lists.
 * Expected dtypes come from the statements and the seed's worked examples, expected values
 * from arithmetic done here (3 * 2^40 wraps to 0 in int32, 3 * 100 to 44 in uint8). */
#include "ra_test.h"

#include <stdint.h>

static ra_ctx *ctx;
static ra_device devs[16];
static size_t ndevs;

static void open_all(void)
{
    ctx = open_ctx();
    ndevs = list_devices(ctx, devs);
}

/* An array of dtype on dev holding the values v (n of them; ndim 0 when n is 0: one value). */
static ra_array *make(ra_device dev, ra_dtype dtype, const double *v, size_t n)
{
    int64_t shape[1] = {(int64_t)n};
    size_t count = n ? n : 1;
    unsigned char buf[16 * 8];
    size_t es = ra_dtype_size(dtype);
    for (size_t i = 0; i < count; i++) {
        unsigned char *p = buf + i * es;
        switch (dtype) {
#define PUT(DT, T)                                                                                 \
    case DT: {                                                                                     \
        T t = (T)v[i];                                                                             \
        memcpy(p, &t, sizeof t);                                                                   \
        break;                                                                                     \
    }
            PUT(RA_BOOL, bool)
            PUT(RA_INT8, int8_t)
            PUT(RA_INT16, int16_t)
            PUT(RA_INT32, int32_t)
            PUT(RA_INT64, int64_t)
            PUT(RA_UINT8, uint8_t)
            PUT(RA_UINT16, uint16_t)
            PUT(RA_UINT32, uint32_t)
            PUT(RA_UINT64, uint64_t)
            PUT(RA_FLOAT32, float)
            PUT(RA_FLOAT64, double)
#undef PUT
        default:
            dt_fail(__FILE__, __LINE__, "make: dtype %s not handled", ra_dtype_name(dtype));
        }
    }
    ra_array *x = NULL;
    ASSERT_STATUS(
        ctx,
        ra_asarray_buffer(ctx, buf, dtype, shape, n ? 1 : 0, &(ra_opts){.device_value = &dev}, &x),
        RA_OK, "make %s", ra_dtype_name(dtype));
    return x;
}

static ra_array *ones(ra_device dev, ra_dtype dtype, size_t n)
{
    const double v[2] = {1, 1};
    return make(dev, dtype, v, n);
}

/* The result dtype of x1 + x2 (or the status when it fails). */
static int add_dtype(ra_operand x1, ra_operand x2, ra_dtype *dtype)
{
    ra_array *y = NULL;
    int status = ra_binary(ctx, RA_ADD, x1, x2, &y);
    *dtype = y ? ra_array_dtype(y) : RA_DTYPE_DEFAULT;
    ra_array_release(y);
    return status;
}

#define ASSERT_ADD(x1, x2, want, ...)                                                              \
    do {                                                                                           \
        ra_dtype d_;                                                                               \
        ASSERT_STATUS(ctx, add_dtype((x1), (x2), &d_), RA_OK, __VA_ARGS__);                        \
        ASSERT_STR(ra_dtype_name(d_), ra_dtype_name(want), __VA_ARGS__);                           \
    } while (0)

#define A(x) ra_operand_array(x)
#define S(s) ra_operand_scalar(s)

DT_TEST(rule_set_selection)
{
    open_all();
    ASSERT_INT(ra_ctx_promotion(ctx), RA_PROMOTION_ARRAY_API, "the default is the array API's");
    ASSERT_INT(ra_ctx_promotion(NULL), RA_PROMOTION_ARRAY_API, "NULL gives the default");
    ASSERT_INT(ra_ctx_out_casting(ctx), RA_OUT_CAST_STATED, "out= default: OF-OUT-1 as stated");
    ASSERT_STATUS(ctx, ra_ctx_set_promotion(ctx, (ra_promotion)7), RA_E_ARG, "unknown set");
    ASSERT_STATUS(NULL, ra_ctx_set_promotion(NULL, RA_PROMOTION_CATEGORY), RA_E_NULL, "NULL ctx");
    ASSERT_STATUS(ctx, ra_ctx_set_out_casting(ctx, (ra_out_casting)-1), RA_E_ARG, "unknown rule");
    ASSERT_STATUS(ctx, ra_ctx_set_promotion(ctx, RA_PROMOTION_CATEGORY), RA_OK, "category");
    ASSERT_INT(ra_ctx_promotion(ctx), RA_PROMOTION_CATEGORY, "set");
    ra_ctx_destroy(ctx);
}

DT_TEST(array_api_table)
{
    open_all();
    for (size_t d = 0; d < ndevs; d++) {
        ra_device dev = devs[d];
        ra_array *i8 = ones(dev, RA_INT8, 2), *u8 = ones(dev, RA_UINT8, 2);
        ra_array *i32 = ones(dev, RA_INT32, 2), *i64z = ones(dev, RA_INT64, 0);
        ra_array *f32 = ones(dev, RA_FLOAT32, 2), *b = ones(dev, RA_BOOL, 2);
        ra_array *u64 = ones(dev, RA_UINT64, 2), *i64 = ones(dev, RA_INT64, 2);
        ASSERT_ADD(A(i8), A(u8), RA_INT16, "API-PROM-1 int8 + uint8");
        ASSERT_ADD(A(i32), A(i64z), RA_INT64, "API-PROM-4 int32 + 0-d int64");
        ASSERT_ADD(A(f32), S(ra_scalar_int(2)), RA_FLOAT32, "API-PROM-3 float32 + int");
        ASSERT_ADD(A(i8), S(ra_scalar_int(2)), RA_INT8, "API-PROM-3 int8 + int");
        ra_dtype r;
        ASSERT_STATUS(ctx, add_dtype(A(i32), A(f32), &r), RA_E_DTYPE, "API-PROM-2 int32 + float32");
        ASSERT_MESSAGE(ctx, "int32", "the message names the dtypes");
        ASSERT_STATUS(ctx, add_dtype(A(u64), A(i64), &r), RA_E_DTYPE, "API-PROM-2 uint64 + int64");
        ASSERT_STATUS(ctx, add_dtype(A(b), A(i8), &r), RA_E_DTYPE, "API-PROM-2 bool + int8");
        ASSERT_STATUS(ctx, add_dtype(A(i32), S(ra_scalar_float(0.5)), &r), RA_E_DTYPE,
                      "int32 + float scalar has no array API promotion");
        ra_array *xs[] = {i8, u8, i32, i64z, f32, b, u64, i64};
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
            ra_array_release(xs[i]);
    }
    ra_ctx_destroy(ctx);
}

/* The seed's worked examples (OF-PROM-8) and the rules they illustrate. */
DT_TEST(category_rules)
{
    open_all();
    ASSERT_STATUS(ctx, ra_ctx_set_promotion(ctx, RA_PROMOTION_CATEGORY), RA_OK, "category");
    for (size_t d = 0; d < ndevs; d++) {
        ra_device dev = devs[d];
        ra_array *f32 = ones(dev, RA_FLOAT32, 1), *f64 = ones(dev, RA_FLOAT64, 1);
        ra_array *i32 = ones(dev, RA_INT32, 1), *i64 = ones(dev, RA_INT64, 1);
        ra_array *u8 = ones(dev, RA_UINT8, 1), *b = ones(dev, RA_BOOL, 1);
        ra_array *i64z = ones(dev, RA_INT64, 0), *i64z2 = ones(dev, RA_INT64, 0);
        ra_array *f64z = ones(dev, RA_FLOAT64, 0);
        ASSERT_ADD(A(i64z), A(i64z2), RA_INT64, "OF-PROM-8 two 0-d int64");
        ASSERT_ADD(A(i32), S(ra_scalar_int(5)), RA_INT32, "OF-PROM-8 int32 + 5");
        ASSERT_ADD(A(i64), A(i32), RA_INT64, "OF-PROM-8 int64 + int32");
        ASSERT_ADD(A(b), A(i64), RA_INT64, "OF-PROM-8 bool + int64");
        ASSERT_ADD(A(b), A(u8), RA_UINT8, "OF-PROM-8 bool + uint8");
        ASSERT_ADD(A(f32), A(f64), RA_FLOAT64, "OF-PROM-8 float32 + float64");
        ASSERT_ADD(A(b), A(i32), RA_INT32, "OF-PROM-8 bool + int32");
        ASSERT_ADD(A(i64), A(f32), RA_FLOAT32, "OF-PROM-8 int64 + float32");
        ASSERT_ADD(A(i32), A(i64z), RA_INT32, "OF-PROM-9 (rules) int32 + 0-d int64");
        ASSERT_ADD(A(i32), A(f64z), RA_FLOAT64, "OF-PROM-4 int32 + 0-d float64");
        ASSERT_ADD(A(f32), A(f64z), RA_FLOAT32, "OF-PROM-4 float32 + 0-d float64");
        ASSERT_ADD(A(i32), S(ra_scalar_float(2.5)), RA_FLOAT32, "OF-PROM-3, -6 int32 + 2.5");
        ASSERT_ADD(A(b), S(ra_scalar_int(5)), RA_INT64, "OF-PROM-3, -6 bool + 5");
        ASSERT_ADD(A(f64), S(ra_scalar_float(0.5)), RA_FLOAT64, "float64 + 0.5");
        ASSERT_ADD(A(i32), S(ra_scalar_bool(true)), RA_INT32, "int32 + True");
        /* Values: the scalar converted into the result, then the arithmetic of that dtype. */
        ra_array *y = NULL;
        ASSERT_STATUS(ctx, ra_binary(ctx, RA_MULTIPLY, A(i32), S(ra_scalar_float(2.5)), &y), RA_OK,
                      "int32 * 2.5");
        ASSERT_VALUES(ctx, y, "1 * 2.5 in float32", 2.5);
        ra_array_release(y);
        ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(b), S(ra_scalar_int(5)), &y), RA_OK,
                      "True + 5");
        ASSERT_VALUES(ctx, y, "True + 5 is 6", 6);
        ra_array_release(y);
        /* OF-PROM-7 does not waive the range: a Python int must fit the result. */
        ra_dtype r;
        ASSERT_STATUS(ctx, add_dtype(A(u8), S(ra_scalar_int(300)), &r), RA_E_SCALAR_RANGE,
                      "uint8 + 300");
        ASSERT_STATUS(ctx, ra_ctx_set_promotion(ctx, RA_PROMOTION_CATEGORY_EXAMPLES), RA_OK, "ex");
        ASSERT_ADD(A(i32), A(i64z), RA_INT64, "OF-PROM-9 (the guide's example) int32 + 0-d int64");
        ASSERT_ADD(A(i32), S(ra_scalar_int(5)), RA_INT32, "the example reading keeps int32 + 5");
        ASSERT_STATUS(ctx, ra_ctx_set_promotion(ctx, RA_PROMOTION_CATEGORY), RA_OK, "rules");
        ra_array *xs[] = {f32, f64, i32, i64, u8, b, i64z, i64z2, f64z};
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
            ra_array_release(xs[i]);
    }
    ra_ctx_destroy(ctx);
}

/* x *= y through ra_binary_into; returns the status and leaves x's values to the caller. */
static int imul(ra_array *x, ra_array *y)
{
    return ra_binary_into(ctx, RA_MULTIPLY, A(x), A(y), x);
}

DT_TEST(out_casting_examples)
{
    open_all();
    ASSERT_STATUS(ctx, ra_ctx_set_promotion(ctx, RA_PROMOTION_CATEGORY), RA_OK, "category");
    for (size_t d = 0; d < ndevs; d++) {
        ra_device dev = devs[d];
        const double v15[1] = {1.5}, v3[1] = {3}, v2_40[1] = {1099511627776.0}, v100[1] = {100};
        ra_array *f32 = make(dev, RA_FLOAT32, v15, 1), *f64 = make(dev, RA_FLOAT64, v3, 1);
        ra_array *i32 = make(dev, RA_INT32, v3, 1), *i64 = make(dev, RA_INT64, v2_40, 1);
        ra_array *u8 = make(dev, RA_UINT8, v3, 1), *i32b = make(dev, RA_INT32, v100, 1);
        ra_array *b = ones(dev, RA_BOOL, 1);
        /* OF-OUT-3, allowed. */
        ASSERT_STATUS(ctx, imul(f32, f32), RA_OK, "OF-OUT-3 float32 *= float32");
        ASSERT_VALUES(ctx, f32, "1.5 * 1.5", 2.25);
        ASSERT_STATUS(ctx, imul(f32, i32), RA_OK, "OF-OUT-3 float32 *= int32");
        ASSERT_VALUES(ctx, f32, "2.25 * 3", 6.75);
        ASSERT_STATUS(ctx, imul(f32, u8), RA_OK, "OF-OUT-3 float32 *= uint8");
        ASSERT_STATUS(ctx, imul(f32, b), RA_OK, "OF-OUT-3 float32 *= bool");
        ASSERT_VALUES(ctx, f32, "6.75 * 3 * 1", 20.25);
        ASSERT_STATUS(ctx, imul(i32, u8), RA_OK, "OF-OUT-3 int32 *= uint8");
        ASSERT_VALUES(ctx, i32, "3 * 3", 9);
        /* OF-OUT-3, refused (OF-OUT-2: RuntimeError naming both dtypes), out unchanged. */
        ASSERT_STATUS(ctx, imul(i32, f32), RA_E_OUT_CAST, "OF-OUT-3 int32 *= float32");
        ASSERT_STR(ra_status_kind(RA_E_OUT_CAST), "RuntimeError", "OF-OUT-2 kind");
        ASSERT_MESSAGE(ctx, "float32", "names the result dtype");
        ASSERT_MESSAGE(ctx, "int32", "names the output dtype");
        ASSERT_VALUES(ctx, i32, "a refused cast leaves out unchanged", 9);
        ASSERT_STATUS(ctx, imul(b, i32), RA_E_OUT_CAST, "OF-OUT-3 bool *= int32");
        ASSERT_STATUS(ctx, imul(b, u8), RA_E_OUT_CAST, "OF-OUT-3 bool *= uint8");
        /* OF-OUT-4, the stated exceptions: narrowing within a category casts. */
        ASSERT_STATUS(ctx, imul(f32, f64), RA_OK, "OF-OUT-4 float32 *= float64 (stated)");
        ASSERT_VALUES(ctx, f32, "20.25 * 3", 60.75);
        ASSERT_STATUS(ctx, imul(i32b, i64), RA_OK, "OF-OUT-4 int32 *= int64 (stated)");
        ASSERT_VALUES(ctx, i32b, "100 * 2^40 wraps to 0 in int32", 0);
        ra_array *u8b = make(dev, RA_UINT8, v3, 1);
        ASSERT_STATUS(ctx, imul(u8b, i32), RA_OK, "OF-OUT-4 uint8 *= int32 (stated)");
        ASSERT_VALUES(ctx, u8b, "3 * 9 = 27", 27);
        ra_array *i100 = make(dev, RA_INT32, v100, 1);
        ASSERT_STATUS(ctx, imul(u8b, i100), RA_OK, "uint8 *= int32 100");
        ASSERT_VALUES(ctx, u8b, "27 * 100 = 2700 wraps to 140 in uint8", 140);
        /* OF-OUT-4, the guide's examples: refused. */
        ASSERT_STATUS(ctx, ra_ctx_set_out_casting(ctx, RA_OUT_CAST_NO_NARROWING), RA_OK, "ex");
        ASSERT_STATUS(ctx, imul(f32, f64), RA_E_OUT_CAST, "OF-OUT-4 float32 *= float64 (examples)");
        ASSERT_MESSAGE(ctx, "float64", "names the result dtype");
        ASSERT_STATUS(ctx, imul(i32, i64), RA_E_OUT_CAST, "OF-OUT-4 int32 *= int64 (examples)");
        ASSERT_STATUS(ctx, imul(u8b, i32), RA_E_OUT_CAST, "OF-OUT-4 uint8 *= int32 (examples)");
        ASSERT_STATUS(ctx, imul(f32, i32), RA_OK, "float32 *= int32 still allowed (examples)");
        ASSERT_STATUS(ctx, imul(i32, u8), RA_OK, "int32 *= uint8 still allowed (examples)");
        ASSERT_STATUS(ctx, ra_ctx_set_out_casting(ctx, RA_OUT_CAST_STATED), RA_OK, "stated");
        ra_array *xs[] = {f32, f64, i32, i64, u8, i32b, b, u8b, i100};
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
            ra_array_release(xs[i]);
    }
    ASSERT_INT(ra_can_cast_out(ctx, RA_COMPLEX64, RA_FLOAT64), 0, "complex into real refused");
    ASSERT_INT(ra_can_cast_out(ctx, RA_FLOAT64, RA_COMPLEX64), 1, "real into complex allowed");
    ASSERT_INT(ra_can_cast_out(ctx, RA_DTYPE_DEFAULT, RA_FLOAT64), 0, "invalid result");
    ASSERT_INT(ra_can_cast_out(NULL, RA_INT64, RA_INT8), 1, "NULL ctx: the stated rule");
    ra_ctx_destroy(ctx);
}

/* OneFlow 0.9.0's arithmetic where the array API defines none, under the category rules:
 * integer division in float32, bool arithmetic as logic, bool / bool the dividend; refused
 * under the array API's. */
DT_TEST(oneflow_arithmetic)
{
    open_all();
    for (size_t d = 0; d < ndevs; d++) {
        ra_device dev = devs[d];
        const double v7[2] = {7, -7}, v2[2] = {2, 2}, tf[2] = {1, 0}, tt[2] = {1, 1},
                     ff[2] = {0, 0}, i8[2] = {100, -1};
        ra_array *a = make(dev, RA_INT32, v7, 2), *b = make(dev, RA_INT32, v2, 2);
        ra_array *l = make(dev, RA_INT64, v7, 2), *p = make(dev, RA_BOOL, tf, 2);
        ra_array *q = make(dev, RA_BOOL, tt, 2), *c = make(dev, RA_INT8, i8, 2), *y = NULL;
        ra_array *f = make(dev, RA_BOOL, ff, 2);
        ASSERT_STATUS(ctx, ra_ctx_set_promotion(ctx, RA_PROMOTION_ARRAY_API), RA_OK, "api");
        ASSERT_STATUS(ctx, ra_binary(ctx, RA_DIVIDE, A(p), A(q), &y), RA_E_DTYPE,
                      "bool / bool under the array API's table");
        ASSERT_STATUS(ctx, ra_binary(ctx, RA_DIVIDE, A(a), A(b), &y), RA_E_DTYPE,
                      "int32 / int32 under the array API's table");
        ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(p), A(q), &y), RA_E_DTYPE,
                      "bool + bool under the array API's table");
        for (int rules = RA_PROMOTION_CATEGORY; rules <= RA_PROMOTION_CATEGORY_EXAMPLES; rules++) {
            ASSERT_STATUS(ctx, ra_ctx_set_promotion(ctx, (ra_promotion)rules), RA_OK, "category");
            ASSERT_STATUS(ctx, ra_binary(ctx, RA_DIVIDE, A(a), A(b), &y), RA_OK, "int32 / int32");
            if (y) ASSERT_INT(ra_array_dtype(y), RA_FLOAT32, "int / int is float32");
            ASSERT_VALUES(ctx, y, "true division", 3.5, -3.5);
            ra_array_release(y);
            ASSERT_STATUS(ctx, ra_binary(ctx, RA_DIVIDE, A(l), S(ra_scalar_int(2)), &y), RA_OK,
                          "int64 / 2");
            if (y) ASSERT_INT(ra_array_dtype(y), RA_FLOAT32, "int64 / int is float32 too");
            ASSERT_VALUES(ctx, y, "int64 / 2", 3.5, -3.5);
            ra_array_release(y);
            ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(p), A(q), &y), RA_OK, "bool + bool");
            if (y) ASSERT_INT(ra_array_dtype(y), RA_BOOL, "bool + bool is bool");
            ASSERT_VALUES(ctx, y, "or", 1, 1);
            ra_array_release(y);
            ASSERT_STATUS(ctx, ra_binary(ctx, RA_SUBTRACT, A(p), A(q), &y), RA_OK, "bool - bool");
            ASSERT_VALUES(ctx, y, "exclusive or", 0, 1);
            ra_array_release(y);
            ASSERT_STATUS(ctx, ra_binary(ctx, RA_MULTIPLY, A(p), A(q), &y), RA_OK, "bool * bool");
            ASSERT_VALUES(ctx, y, "and", 1, 0);
            ra_array_release(y);
            ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(p), A(c), &y), RA_OK, "bool + int8");
            if (y) ASSERT_INT(ra_array_dtype(y), RA_INT8, "bool + int8 is int8 by category");
            ASSERT_VALUES(ctx, y, "bool + int8", 101, -1);
            ra_array_release(y);
            /* bool / bool is bool, the dividend, also where the divisor is false. */
            ASSERT_STATUS(ctx, ra_binary(ctx, RA_DIVIDE, A(p), A(q), &y), RA_OK, "bool / bool");
            if (y) ASSERT_INT(ra_array_dtype(y), RA_BOOL, "bool / bool is bool");
            ASSERT_VALUES(ctx, y, "[T, F] / [T, T]", 1, 0);
            ra_array_release(y);
            ASSERT_STATUS(ctx, ra_binary(ctx, RA_DIVIDE, A(p), A(f), &y), RA_OK, "bool / false");
            if (y) ASSERT_INT(ra_array_dtype(y), RA_BOOL, "bool / false is bool");
            ASSERT_VALUES(ctx, y, "[T, F] / [F, F]", 1, 0);
            ra_array_release(y);
            ASSERT_STATUS(ctx, ra_binary(ctx, RA_DIVIDE, A(p), S(ra_scalar_bool(true)), &y), RA_OK,
                          "bool / true");
            ASSERT_VALUES(ctx, y, "[T, F] / true", 1, 0);
            ra_array_release(y);
            ASSERT_STATUS(ctx, ra_binary(ctx, RA_DIVIDE, S(ra_scalar_bool(true)), A(f), &y), RA_OK,
                          "true / bool");
            if (y) ASSERT_INT(ra_array_dtype(y), RA_BOOL, "true / bool is bool");
            ASSERT_VALUES(ctx, y, "true / [F, F], the dividend broadcast", 1, 1);
            ra_array_release(y);
            ASSERT_STATUS(ctx, ra_binary(ctx, RA_DIVIDE, A(p), A(c), &y), RA_OK, "bool / int8");
            if (y) ASSERT_INT(ra_array_dtype(y), RA_FLOAT32, "bool / int8 is float32");
            ASSERT_VALUES(ctx, y, "[T, F] / [100, -1]", 0.01f, -0.0);
            ra_array_release(y);
            /* In place: int32 /= int32 gives float32, which an integral out refuses. */
            ASSERT_STATUS(ctx, ra_binary_into(ctx, RA_DIVIDE, A(a), A(b), a), RA_E_OUT_CAST,
                          "int32 /= int32");
            ra_array *r = make(dev, RA_BOOL, tf, 2);
            ASSERT_STATUS(ctx, ra_binary_into(ctx, RA_ADD, A(r), A(q), r), RA_OK, "bool += bool");
            ASSERT_VALUES(ctx, r, "bool += bool is or", 1, 1);
            ra_array_release(r);
        }
        ra_array *xs[] = {a, b, l, p, q, c, f};
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
            ra_array_release(xs[i]);
    }
    ra_ctx_destroy(ctx);
}

/* OneFlow 0.9.0's in-place casting (RA_OUT_CAST_ONEFLOW): += narrows as OF-OUT-1 states, -=,
 * *= and /= refuse narrowing; OF-OUT-1's refusals hold for every operator. */
DT_TEST(out_casting_oneflow)
{
    open_all();
    ASSERT_STATUS(ctx, ra_ctx_set_promotion(ctx, RA_PROMOTION_CATEGORY), RA_OK, "category");
    ASSERT_STATUS(ctx, ra_ctx_set_out_casting(ctx, RA_OUT_CAST_ONEFLOW), RA_OK, "oneflow");
    ASSERT_INT(ra_ctx_out_casting(ctx), RA_OUT_CAST_ONEFLOW, "the rule reads back");
    for (size_t d = 0; d < ndevs; d++) {
        ra_device dev = devs[d];
        const double v3[1] = {3}, v2[1] = {2};
        ra_array *f32 = make(dev, RA_FLOAT32, v3, 1), *f64 = make(dev, RA_FLOAT64, v2, 1);
        ra_array *i32 = make(dev, RA_INT32, v3, 1), *i64 = make(dev, RA_INT64, v2, 1);
        ASSERT_STATUS(ctx, ra_binary_into(ctx, RA_ADD, A(f32), A(f64), f32), RA_OK,
                      "float32 += float64 narrows");
        ASSERT_VALUES(ctx, f32, "3 + 2", 5);
        ASSERT_STATUS(ctx, ra_binary_into(ctx, RA_ADD, A(i32), A(i64), i32), RA_OK,
                      "int32 += int64 narrows");
        ASSERT_VALUES(ctx, i32, "3 + 2", 5);
        const ra_binop checked[3] = {RA_SUBTRACT, RA_MULTIPLY, RA_DIVIDE};
        for (int k = 0; k < 3; k++) {
            ASSERT_STATUS(ctx, ra_binary_into(ctx, checked[k], A(f32), A(f64), f32), RA_E_OUT_CAST,
                          "float32 %s= float64 refused", ra_binop_name(checked[k]));
            ASSERT_STATUS(ctx, ra_binary_into(ctx, checked[k], A(i32), A(i64), i32), RA_E_OUT_CAST,
                          "int32 %s= int64 refused", ra_binop_name(checked[k]));
        }
        ASSERT_VALUES(ctx, f32, "refusals leave x1 unchanged", 5);
        ASSERT_STATUS(ctx, ra_binary_into(ctx, RA_ADD, A(i32), A(f32), i32), RA_E_OUT_CAST,
                      "int32 += float32 is still refused (OF-OUT-1)");
        ASSERT_STATUS(ctx, ra_binary_into(ctx, RA_MULTIPLY, A(f32), A(i32), f32), RA_OK,
                      "float32 *= int32 allowed");
        ra_array *xs[] = {f32, f64, i32, i64};
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
            ra_array_release(xs[i]);
    }
    ASSERT_INT(ra_can_cast_out(ctx, RA_FLOAT64, RA_FLOAT32), 0,
               "ra_can_cast_out answers the checked operators' rule");
    ASSERT_STATUS(ctx, ra_ctx_set_out_casting(ctx, (ra_out_casting)3), RA_E_ARG, "unknown rule");
    ra_ctx_destroy(ctx);
}

DT_TEST(out_operand_rules)
{
    open_all();
    for (size_t d = 0; d < ndevs; d++) {
        ra_device dev = devs[d];
        const double v[2] = {2, 3}, w[2] = {4, 5};
        ra_array *x = make(dev, RA_FLOAT32, v, 2), *y = make(dev, RA_FLOAT32, w, 2);
        /* An out that is an operand: the result is computed first. */
        ASSERT_STATUS(ctx, ra_binary_into(ctx, RA_MULTIPLY, A(x), A(x), x), RA_OK, "x *= x");
        ASSERT_VALUES(ctx, x, "x *= x squares", 4, 9);
        ASSERT_STATUS(ctx, ra_binary_into(ctx, RA_SUBTRACT, A(x), A(y), y), RA_OK, "y = x - y");
        ASSERT_VALUES(ctx, y, "out aliasing x2", 0, 4);
        ASSERT_STATUS(ctx, ra_binary_into(ctx, RA_ADD, S(ra_scalar_int(1)), A(x), x), RA_OK,
                      "x = 1 + x");
        ASSERT_VALUES(ctx, x, "scalar first", 5, 10);
        /* Shapes: out is never resized. */
        ra_array *s = ones(dev, RA_FLOAT32, 1);
        ASSERT_STATUS(ctx, ra_binary_into(ctx, RA_ADD, A(x), A(y), s), RA_E_SHAPE, "out (1,)");
        ASSERT_MESSAGE(ctx, "out has shape (1)", "names out's shape");
        ASSERT_VALUES(ctx, s, "out unchanged after a refusal", 1);
        ASSERT_STATUS(ctx, ra_binary_into(ctx, RA_ADD, A(x), A(y), NULL), RA_E_NULL, "out NULL");
        ASSERT_STATUS(ctx, ra_binary_into(ctx, (ra_binop)99, A(x), A(y), x), RA_E_ARG, "op");
        ASSERT_STATUS(ctx, ra_binary_into(ctx, RA_ADD, S(ra_scalar_int(1)), S(ra_scalar_int(1)), x),
                      RA_E_SCALAR, "two scalars");
        /* An out on another device than the inputs. */
        for (size_t e = 0; e < ndevs; e++) {
            if (e == d) continue;
            ra_array *o = ones(devs[e], RA_FLOAT32, 2);
            ASSERT_STATUS(ctx, ra_binary_into(ctx, RA_ADD, A(x), A(y), o), RA_E_DEVICE_MISMATCH,
                          "out on another device");
            ASSERT_MESSAGE(ctx, "out is on device", "names out's device");
            ASSERT_VALUES(ctx, o, "out unchanged", 1, 1);
            ra_array_release(o);
        }
        ra_array_release(s);
        ra_array_release(x);
        ra_array_release(y);
    }
    if (ndevs < 2) skip_part("one device", "out on another device");
    ra_ctx_destroy(ctx);
}

DT_TEST(dtype_names)
{
    const struct {
        const char *name;
        ra_dtype dtype;
    } names[] = {{"double", RA_FLOAT64}, {"float", RA_FLOAT32}, {"half", RA_FLOAT16},
                 {"int", RA_INT32},      {"long", RA_INT64},    {"float16", RA_FLOAT16}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        ra_dtype d = RA_DTYPE_DEFAULT;
        ASSERT_STATUS(NULL, ra_dtype_parse(NULL, names[i].name, &d), RA_OK, "OF-DT-1 parse %s",
                      names[i].name);
        ASSERT_INT(d, names[i].dtype, "OF-DT-1 %s", names[i].name);
    }
    ASSERT_STR(ra_dtype_name(RA_FLOAT16), "float16", "the canonical name is printed");
    ra_dtype d;
    ASSERT_STATUS(NULL, ra_dtype_parse(NULL, "Float", &d), RA_E_ARG, "names are lower-case");
    ASSERT_STATUS(NULL, ra_dtype_parse(NULL, "short", &d), RA_E_ARG, "no other aliases");
    /* OF-DT-2. */
    for (int t = RA_BOOL; t <= RA_FLOAT16; t++) {
        bool want = t == RA_FLOAT16 || t == RA_FLOAT32 || t == RA_FLOAT64;
        ASSERT_INT(ra_dtype_is_floating_point((ra_dtype)t), want, "OF-DT-2 %s",
                   ra_dtype_name((ra_dtype)t));
    }
    ASSERT_INT(ra_dtype_is_floating_point(RA_DTYPE_DEFAULT), 0, "not a dtype");
}

/* float16 (OF-DT-1): IEEE binary16 storage, values rounded to nearest even. */
DT_TEST(float16)
{
    open_all();
    for (size_t d = 0; d < ndevs; d++) {
        ra_device dev = devs[d];
        char ds[RA_DEVICE_STR_MAX];
        dev_str(dev, ds);
        const double v[6] = {0.1, 65519.0, 65520.0, 0x1p-24, 0x1p-25, 3 * 0x1p-25};
        int64_t shape[1] = {6};
        ra_array *x = NULL;
        int status = ra_asarray_buffer(ctx, v, RA_FLOAT64, shape, 1,
                                       &(ra_opts){.dtype = RA_FLOAT16, .device_value = &dev}, &x);
        if (status == RA_E_DTYPE_DEVICE) {
            /* A device without cl_khr_fp16: a clear refusal naming the dtype and the device. */
            ASSERT_MESSAGE(ctx, "float16", "%s: names the dtype", ds);
            ASSERT_MESSAGE(ctx, "cl_khr_fp16", "%s: says why", ds);
            skip_part("no cl_khr_fp16", "float16 values on %s", ds);
            continue;
        }
        ASSERT_STATUS(ctx, status, RA_OK, "%s: float16 array", ds);
        ASSERT_INT(ra_array_dtype(x), RA_FLOAT16, "%s: dtype", ds);
        ASSERT_VALUES(ctx, x, "rounded to nearest even", 0.0999755859375, 65504.0, INFINITY,
                      0x1p-24, 0.0, 0x1p-23);
        uint16_t bits[6];
        ASSERT_STATUS(ctx, ra_array_read(ctx, x, bits, sizeof bits), RA_OK, "%s: read", ds);
        ASSERT_INT(bits[0], 0x2e66, "%s: 0.1 is 0x2e66 in binary16", ds);
        ASSERT_INT(bits[2], 0x7c00, "%s: infinity", ds);
        ASSERT_INT(bits[3], 0x0001, "%s: the smallest subnormal", ds);
        /* Arithmetic rounds once into float16: 2048 + 1 is a tie, which goes to even. */
        const double big[1] = {2048}, three[1] = {3};
        int64_t one[1] = {1};
        ra_array *h = NULL, *y = NULL;
        ASSERT_STATUS(ctx,
                      ra_asarray_buffer(ctx, big, RA_FLOAT64, one, 1,
                                        &(ra_opts){.dtype = RA_FLOAT16, .device_value = &dev}, &h),
                      RA_OK, "%s: 2048", ds);
        ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(h), S(ra_scalar_int(1)), &y), RA_OK, "add");
        ASSERT_INT(ra_array_dtype(y), RA_FLOAT16, "%s: float16 + int stays float16", ds);
        ASSERT_VALUES(ctx, y, "2048 + 1 in float16", 2048);
        ra_array_release(y);
        ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(h), S(ra_scalar_int(3)), &y), RA_OK, "add");
        ASSERT_VALUES(ctx, y, "2048 + 3 in float16 (a tie, to even)", 2052);
        ra_array_release(y);
        ra_array *t = make(dev, RA_FLOAT32, three, 1);
        ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(h), A(t), &y), RA_OK, "add");
        ASSERT_INT(ra_array_dtype(y), RA_FLOAT32, "%s: float16 + float32 is float32", ds);
        ASSERT_VALUES(ctx, y, "2048 + 3 in float32", 2051);
        ra_array_release(y);
        ASSERT_STATUS(ctx, ra_unary(ctx, RA_SQRT, h, &y), RA_OK, "sqrt");
        ASSERT_INT(ra_array_dtype(y), RA_FLOAT16, "%s: sqrt keeps float16", ds);
        ASSERT_VALUES(ctx, y, "sqrt(2048) rounded to float16", 45.25);
        ra_array_release(y);
        /* out= into float16 (OF-OUT-1: a floating result casts into a floating output). */
        ASSERT_STATUS(ctx, ra_binary_into(ctx, RA_MULTIPLY, A(t), S(ra_scalar_float(0.1)), h),
                      RA_OK, "into float16");
        ASSERT_VALUES(ctx, h, "3 * 0.1 in float32, then float16", 0.300048828125);
        ra_array_release(t);
        ra_array_release(h);
        ra_array_release(x);
    }
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(rule_set_selection), DT_ENTRY(array_api_table), DT_ENTRY(category_rules),
        DT_ENTRY(out_casting_examples), DT_ENTRY(oneflow_arithmetic), DT_ENTRY(out_casting_oneflow),
        DT_ENTRY(out_operand_rules), DT_ENTRY(dtype_names), DT_ENTRY(float16))
