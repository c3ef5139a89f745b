/* Tests of operations on every device: elementwise binary and unary, reductions, matmul and
 * stack, the device of their outputs, and mixed-device errors. */
#include "ra_test.h"

static ra_array *arr(ra_ctx *ctx, ra_device dev, ra_dtype dtype, const double *v,
                     const int64_t *shape, size_t ndim)
{
    ra_array *x = NULL;
    if (ra_asarray_buffer(ctx, v, RA_FLOAT64, shape, ndim,
                          &(ra_opts){.dtype = dtype, .device_value = &dev}, &x) != RA_OK)
        printf("# cannot create an input: %s\n", ra_ctx_message(ctx));
    return x;
}

static ra_operand A(const ra_array *x)
{
    return ra_operand_array(x);
}

static void on_device(ra_ctx *ctx, ra_device dev)
{
    char ds[RA_DEVICE_STR_MAX];
    dev_str(dev, ds);
    dt_diag("device %s", ds);
    ra_device_props props = RA_DEVICE_PROPS_INIT;
    ra_device_props_get(ctx, dev, &props);
    ra_dtype ft = props.has_float64 ? RA_FLOAT64 : RA_FLOAT32;
    int64_t s23[2] = {2, 3}, s3[1] = {3}, s21[2] = {2, 1}, s32[2] = {3, 2};
    double v6[6] = {1, 2, 3, 4, 5, 6}, v3[3] = {10, 20, 30}, v2[2] = {100, 200};
    ra_array *a = arr(ctx, dev, ft, v6, s23, 2);
    ra_array *b = arr(ctx, dev, ft, v3, s3, 1);
    ra_array *c = arr(ctx, dev, ft, v2, s21, 2);
    ra_array *y = NULL;

    /* Broadcasting (2,3) with (3,) and with (2,1); outputs on the inputs' device
     * (DEV-DS-10). */
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(a), A(b), &y), RA_OK, "%s: add (2,3)+(3,)", ds);
    ASSERT_DEV(ra_array_device(y), dev, "DEV-DS-10 %s: add's output is on the inputs' device", ds);
    ASSERT_VALUES(ctx, y, "add broadcast values", 11, 22, 33, 14, 25, 36);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_SUBTRACT, A(c), A(a), &y), RA_OK,
                  "%s: subtract (2,1)-(2,3)", ds);
    ASSERT_VALUES(ctx, y, "subtract broadcast values", 99, 98, 97, 196, 195, 194);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_MULTIPLY, A(b), A(c), &y), RA_OK,
                  "%s: multiply (3,)*(2,1) gives (2,3)", ds);
    CHECK(ra_array_ndim(y) == 2 && ra_array_shape(y)[0] == 2 && ra_array_shape(y)[1] == 3,
          "%s: the broadcast shape is (2, 3)", ds);
    ASSERT_VALUES(ctx, y, "multiply values", 1000, 2000, 3000, 2000, 4000, 6000);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_DIVIDE, A(a), ra_operand_scalar(ra_scalar_int(2)), &y),
                  RA_OK, "%s: divide by a Python int", ds);
    ASSERT_DEV(ra_array_device(y), dev, "DEV-DS-12 %s: a scalar takes the array's device", ds);
    ASSERT_INT(ra_array_dtype(y), ft, "%s: the scalar takes the array's dtype", ds);
    ASSERT_VALUES(ctx, y, "divide values", 0.5, 1, 1.5, 2, 2.5, 3);
    ra_array_release(y);
    ASSERT_STATUS(ctx,
                  ra_binary(ctx, RA_SUBTRACT, ra_operand_scalar(ra_scalar_float(10)), A(b), &y),
                  RA_OK, "%s: scalar on the left", ds);
    ASSERT_VALUES(ctx, y, "10 - [10,20,30]", 0, -10, -20);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_EQUAL, A(a), ra_operand_scalar(ra_scalar_int(3)), &y),
                  RA_OK, "%s: equal to a scalar", ds);
    ASSERT_INT(ra_array_dtype(y), RA_BOOL, "%s: equal gives bool", ds);
    ASSERT_VALUES(ctx, y, "equal values", 0, 0, 1, 0, 0, 0);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_LESS, A(a), A(b), &y), RA_OK, "%s: less", ds);
    ASSERT_VALUES(ctx, y, "less values", 1, 1, 1, 1, 1, 1);
    ra_array_release(y);
    double vn[3] = {NAN, 25, 1};
    ra_array *n = arr(ctx, dev, ft, vn, s3, 1);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_MAXIMUM, A(n), A(b), &y), RA_OK, "%s: maximum", ds);
    ASSERT_VALUES(ctx, y, "maximum propagates NaN", NAN, 25, 30);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_EQUAL, A(n), A(n), &y), RA_OK, "%s: x == x", ds);
    ASSERT_VALUES(ctx, y, "NaN != NaN", 0, 1, 1);
    ra_array_release(y);

    /* Integer arithmetic wraps; mixed integer promotion. */
    double vi[3] = {127, -128, 5};
    ra_array *i8 = arr(ctx, dev, RA_INT8, vi, s3, 1);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(i8), ra_operand_scalar(ra_scalar_int(1)), &y),
                  RA_OK, "%s: int8 + 1", ds);
    ASSERT_INT(ra_array_dtype(y), RA_INT8, "%s: int8 + Python int is int8", ds);
    ASSERT_VALUES(ctx, y, "int8 wraps", -128, -127, 6);
    ra_array_release(y);
    double vu[3] = {200, 0, 255};
    ra_array *u8 = arr(ctx, dev, RA_UINT8, vu, s3, 1);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(i8), A(u8), &y), RA_OK, "%s: int8 + uint8", ds);
    ASSERT_INT(ra_array_dtype(y), RA_INT16, "%s: int8 + uint8 promotes to int16", ds);
    ASSERT_VALUES(ctx, y, "int8 + uint8 values", 327, -128, 260);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(u8), ra_operand_scalar(ra_scalar_int(-1)), &y),
                  RA_E_SCALAR_RANGE, "%s: uint8 + (-1) is out of range", ds);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(i8), ra_operand_scalar(ra_scalar_float(0.5)), &y),
                  RA_E_DTYPE, "%s: int8 + 0.5 is a TypeError kind", ds);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(i8), A(a), &y), RA_E_DTYPE,
                  "%s: int8 + float is a TypeError kind", ds);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_DIVIDE, A(i8), A(i8), &y), RA_E_DTYPE,
                  "%s: integer divide is refused", ds);
    ra_array *i64 = NULL, *u64 = NULL;
    ra_zeros(ctx, s3, 1, &(ra_opts){.dtype = RA_INT64, .device_value = &dev}, &i64);
    ra_zeros(ctx, s3, 1, &(ra_opts){.dtype = RA_UINT64, .device_value = &dev}, &u64);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(i64), A(u64), &y), RA_E_DTYPE,
                  "%s: int64 + uint64 has no promotion", ds);
    ra_array *bl = NULL;
    ra_ones(ctx, s3, 1, &(ra_opts){.dtype = RA_BOOL, .device_value = &dev}, &bl);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(bl), A(bl), &y), RA_E_DTYPE,
                  "%s: bool + bool is refused", ds);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_EQUAL, A(bl), ra_operand_scalar(ra_scalar_bool(true)), &y),
                  RA_OK, "%s: bool == True", ds);
    ASSERT_VALUES(ctx, y, "bool equal values", 1, 1, 1);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(a), A(c), &y), RA_OK, "%s: (2,3)+(2,1)", ds);
    ra_array_release(y);
    int64_t s4[1] = {4};
    ra_array *four = NULL;
    ra_zeros(ctx, s4, 1, &(ra_opts){.dtype = ft, .device_value = &dev}, &four);
    y = NULL;
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(a), A(four), &y), RA_E_BROADCAST,
                  "%s: (2,3)+(4,) cannot broadcast", ds);
    ASSERT_MESSAGE(ctx, "(2, 3) and (4)", "the message shows both shapes");
    CHECK(y == NULL, "%s: out stays NULL", ds);
    ASSERT_STATUS(ctx,
                  ra_binary(ctx, RA_ADD, ra_operand_scalar(ra_scalar_int(1)),
                            ra_operand_scalar(ra_scalar_int(2)), &y),
                  RA_E_SCALAR, "%s: two scalars are refused", ds);
    ASSERT_STATUS(ctx, ra_binary(ctx, (ra_binop)0, A(a), A(a), &y), RA_E_ARG,
                  "%s: unknown operation", ds);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(a), A(a), NULL), RA_E_NULL, "%s: NULL out", ds);
    ra_array *cx = NULL;
    ra_full(ctx, s3, 1, ra_scalar_complex(3, 4),
            &(ra_opts){.device_value = &dev, .dtype = RA_COMPLEX64}, &cx);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_LESS, A(cx), A(cx), &y), RA_E_DTYPE,
                  "%s: less on complex is refused", ds);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_MULTIPLY, A(cx), A(cx), &y), RA_OK, "%s: complex multiply",
                  ds);
    float cv[6];
    ra_array *h = NULL;
    ra_to_device(ctx, y, RA_CPU, NULL, &h);
    ra_array_read(ctx, h, cv, sizeof cv);
    CHECK(cv[0] == -7 && cv[1] == 24, "%s: (3+4j)^2 = -7+24j", ds);
    ra_array_release(h);
    ra_array_release(y);
    /* Empty operands give empty results. */
    int64_t s0[1] = {0};
    ra_array *e = NULL;
    ra_zeros(ctx, s0, 1, &(ra_opts){.dtype = ft, .device_value = &dev}, &e);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(e), ra_operand_scalar(ra_scalar_int(1)), &y), RA_OK,
                  "%s: empty + 1", ds);
    ASSERT_INT(ra_array_size(y), 0, "%s: empty result", ds);
    ra_array_release(y);

    /* Unary. */
    ASSERT_STATUS(ctx, ra_unary(ctx, RA_NEGATIVE, a, &y), RA_OK, "%s: negative", ds);
    ASSERT_DEV(ra_array_device(y), dev, "DEV-DS-10 %s: negative stays on the device", ds);
    ASSERT_VALUES(ctx, y, "negative values", -1, -2, -3, -4, -5, -6);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_unary(ctx, RA_ABS, i8, &y), RA_OK, "%s: abs int8", ds);
    ASSERT_VALUES(ctx, y, "abs(-128) stays -128 in int8", 127, -128, 5);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_unary(ctx, RA_ABS, cx, &y), RA_OK, "%s: abs complex64", ds);
    ASSERT_INT(ra_array_dtype(y), RA_FLOAT32, "%s: abs(complex64) is float32", ds);
    ASSERT_VALUES(ctx, y, "abs(3+4j) = 5", 5, 5, 5);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_unary(ctx, RA_SQRT, b, &y), RA_OK, "%s: sqrt", ds);
    double got[3];
    read_values(ctx, y, got, 3);
    CHECK(fabs(got[1] - sqrt(20.0)) < 1e-5, "%s: sqrt(20)", ds);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_unary(ctx, RA_SQRT, i8, &y), RA_E_DTYPE, "%s: sqrt of int8", ds);
    ASSERT_STATUS(ctx, ra_unary(ctx, RA_NEGATIVE, bl, &y), RA_E_DTYPE, "%s: negative bool", ds);
    ASSERT_STATUS(ctx, ra_unary(ctx, (ra_unop)9, a, &y), RA_E_ARG, "%s: unknown unary", ds);
    ASSERT_STATUS(ctx, ra_unary(ctx, RA_ABS, NULL, &y), RA_E_NULL, "%s: unary NULL", ds);

    /* Reductions: 0-d result on the input's device (DEV-ATTR-2). */
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, a, NULL, &y), RA_OK, "%s: sum all", ds);
    CHECK(ra_array_ndim(y) == 0, "%s: sum over all axes is 0-d", ds);
    ASSERT_DEV(ra_array_device(y), dev, "DEV-ATTR-2 %s: the 0-d sum is on the device", ds);
    ASSERT_VALUES(ctx, y, "sum all", 21);
    ra_array_release(y);
    int ax0 = 0, ax1 = -1, ax2 = 2;
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, a, &ax0, &y), RA_OK, "%s: sum axis 0", ds);
    ASSERT_VALUES(ctx, y, "sum axis 0", 5, 7, 9);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_MAX, a, &ax1, &y), RA_OK, "%s: max axis -1", ds);
    ASSERT_VALUES(ctx, y, "max axis -1", 3, 6);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_MAX, n, NULL, &y), RA_OK, "%s: max with NaN", ds);
    ASSERT_VALUES(ctx, y, "max propagates NaN", NAN);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, i8, NULL, &y), RA_OK, "%s: sum int8", ds);
    ASSERT_INT(ra_array_dtype(y), RA_INT64, "%s: sum of int8 accumulates in int64", ds);
    ASSERT_VALUES(ctx, y, "sum int8 without wrapping", 4);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, u8, NULL, &y), RA_OK, "%s: sum uint8", ds);
    ASSERT_INT(ra_array_dtype(y), RA_UINT64, "%s: sum of uint8 is uint64", ds);
    ASSERT_VALUES(ctx, y, "sum uint8", 455);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, bl, NULL, &y), RA_OK, "%s: sum bool", ds);
    ASSERT_VALUES(ctx, y, "sum of three trues", 3);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, e, NULL, &y), RA_OK, "%s: sum of empty", ds);
    ASSERT_VALUES(ctx, y, "sum of empty is 0", 0);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_MAX, e, NULL, &y), RA_E_EMPTY_REDUCTION,
                  "%s: max of empty", ds);
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, a, &ax2, &y), RA_E_AXIS, "%s: axis 2 of 2-D", ds);
    ASSERT_STR(ra_status_kind(RA_E_AXIS), "IndexError", "a bad axis is an IndexError kind");
    ra_array *zd = NULL;
    ra_asarray_scalar(ctx, ra_scalar_int(3), &(ra_opts){.device_value = &dev}, &zd);
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, zd, &ax0, &y), RA_E_AXIS, "%s: axis of 0-d", ds);
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, zd, NULL, &y), RA_OK, "%s: sum of 0-d", ds);
    ASSERT_VALUES(ctx, y, "sum of 0-d 3", 3);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_MAX, bl, NULL, &y), RA_E_DTYPE, "%s: max of bool", ds);
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_MAX, cx, NULL, &y), RA_E_DTYPE, "%s: max of complex", ds);
    ASSERT_STATUS(ctx, ra_reduce(ctx, (ra_reduceop)5, a, NULL, &y), RA_E_ARG, "%s: unknown", ds);
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, NULL, NULL, &y), RA_E_NULL, "%s: NULL x", ds);

    /* matmul. */
    ra_array *m32 = arr(ctx, dev, ft, v6, s32, 2);
    ASSERT_STATUS(ctx, ra_matmul(ctx, a, m32, &y), RA_OK, "%s: (2,3)@(3,2)", ds);
    ASSERT_DEV(ra_array_device(y), dev, "DEV-DS-10 %s: matmul's output is on the device", ds);
    ASSERT_VALUES(ctx, y, "[[1,2,3],[4,5,6]]@[[1,2],[3,4],[5,6]]", 22, 28, 49, 64);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_matmul(ctx, a, b, &y), RA_OK, "%s: (2,3)@(3,)", ds);
    CHECK(ra_array_ndim(y) == 1 && ra_array_shape(y)[0] == 2, "%s: the vector axis is removed", ds);
    ASSERT_VALUES(ctx, y, "matrix-vector", 140, 320);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_matmul(ctx, b, b, &y), RA_OK, "%s: (3,)@(3,)", ds);
    CHECK(ra_array_ndim(y) == 0, "%s: a dot product is 0-d", ds);
    ASSERT_VALUES(ctx, y, "dot", 1400);
    ra_array_release(y);
    int64_t s223[3] = {2, 2, 3};
    double v12[12] = {1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0};
    ra_array *batch = arr(ctx, dev, ft, v12, s223, 3);
    ASSERT_STATUS(ctx, ra_matmul(ctx, batch, m32, &y), RA_OK, "%s: (2,2,3)@(3,2)", ds);
    CHECK(ra_array_ndim(y) == 3 && ra_array_shape(y)[0] == 2, "%s: batched shape (2,2,2)", ds);
    ASSERT_VALUES(ctx, y, "batched matmul", 22, 28, 49, 64, 1, 2, 3, 4);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_matmul(ctx, a, a, &y), RA_E_SHAPE, "%s: (2,3)@(2,3) inner sizes", ds);
    ASSERT_STATUS(ctx, ra_matmul(ctx, zd, a, &y), RA_E_SHAPE, "%s: 0-d operand", ds);
    ASSERT_STATUS(ctx, ra_matmul(ctx, bl, bl, &y), RA_E_DTYPE, "%s: bool matmul", ds);
    ASSERT_STATUS(ctx, ra_matmul(ctx, NULL, a, &y), RA_E_NULL, "%s: NULL operand", ds);

    /* stack. */
    const ra_array *pair[2] = {b, b};
    ASSERT_STATUS(ctx, ra_stack(ctx, pair, 2, 0, &y), RA_OK, "%s: stack axis 0", ds);
    ASSERT_DEV(ra_array_device(y), dev, "DEV-DS-10 %s: stack's output is on the device", ds);
    ASSERT_VALUES(ctx, y, "stack axis 0", 10, 20, 30, 10, 20, 30);
    ra_array_release(y);
    const ra_array *two[2] = {a, a};
    ASSERT_STATUS(ctx, ra_stack(ctx, two, 2, -1, &y), RA_OK, "%s: stack axis -1", ds);
    CHECK(ra_array_ndim(y) == 3 && ra_array_shape(y)[2] == 2, "%s: shape (2,3,2)", ds);
    ASSERT_VALUES(ctx, y, "stack axis -1", 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6);
    ra_array_release(y);
    const ra_array *mixed_dtype[2] = {i8, u8};
    ASSERT_STATUS(ctx, ra_stack(ctx, mixed_dtype, 2, 1, &y), RA_OK, "%s: stack int8, uint8", ds);
    ASSERT_INT(ra_array_dtype(y), RA_INT16, "%s: stack promotes", ds);
    ASSERT_VALUES(ctx, y, "stack axis 1", 127, 200, -128, 0, 5, 255);
    ra_array_release(y);
    const ra_array *bad_shape[2] = {a, b};
    ASSERT_STATUS(ctx, ra_stack(ctx, bad_shape, 2, 0, &y), RA_E_SHAPE, "%s: stack shapes", ds);
    ASSERT_STATUS(ctx, ra_stack(ctx, pair, 2, 2, &y), RA_E_AXIS, "%s: stack axis 2 of 1-D", ds);
    ASSERT_STATUS(ctx, ra_stack(ctx, pair, 0, 0, &y), RA_E_ARG, "%s: stack of none", ds);
    const ra_array *with_null[2] = {b, NULL};
    ASSERT_STATUS(ctx, ra_stack(ctx, with_null, 2, 0, &y), RA_E_NULL, "%s: stack a NULL", ds);
    const ra_array *bool_int[2] = {bl, i8};
    ASSERT_STATUS(ctx, ra_stack(ctx, bool_int, 2, 0, &y), RA_E_DTYPE, "%s: stack bool+int8", ds);

    ra_array *all[] = {a, b, c, n, i8, u8, i64, u64, bl, four, cx, e, zd, m32, batch};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ra_array_release(all[i]);
}

/* Arrays on two different devices meet (DEV-DS-11). */
static void mixed(ra_ctx *ctx, ra_device d0, ra_device d1)
{
    char s0[RA_DEVICE_STR_MAX], s1[RA_DEVICE_STR_MAX];
    dev_str(d0, s0);
    dev_str(d1, s1);
    int64_t s3[1] = {3};
    ra_array *x = NULL, *y = NULL, *z = NULL;
    ra_opts o0 = {.dtype = RA_FLOAT32, .device_value = &d0};
    ra_opts o1 = {.dtype = RA_FLOAT32, .device_value = &d1};
    ra_ones(ctx, s3, 1, &o0, &x);
    ra_ones(ctx, s3, 1, &o1, &y);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(x), A(y), &z), RA_E_DEVICE_MISMATCH,
                  "DEV-DS-11 add on %s and %s raises", s0, s1);
    ASSERT_STATUS(ctx, ra_binary_arrays(ctx, RA_ADD, x, y, &z), RA_E_DEVICE_MISMATCH,
                  "DEV-DS-11 ra_binary_arrays' add on %s and %s raises", s0, s1);
    ASSERT_STR(ra_status_kind(RA_E_DEVICE_MISMATCH), "ValueError", "a ValueError kind");
    char want[64];
    snprintf(want, sizeof want, "'%s' and '%s'", s0, s1);
    ASSERT_MESSAGE(ctx, want, "DEV-DS-11 the message names both devices");
    CHECK(z == NULL, "DEV-DS-11 no result");
    ASSERT_STATUS(ctx, ra_matmul(ctx, x, y, &z), RA_E_DEVICE_MISMATCH,
                  "DEV-DS-11 matmul on %s and %s raises", s0, s1);
    const ra_array *pair[2] = {x, y};
    ASSERT_STATUS(ctx, ra_stack(ctx, pair, 2, 0, &z), RA_E_DEVICE_MISMATCH,
                  "DEV-DS-11 stack on %s and %s raises", s0, s1);
    /* A 0-d array is an array, not a scalar: it does not follow the other operand. */
    ra_array *zd = NULL;
    ra_asarray_scalar(ctx, ra_scalar_float(1), &o1, &zd);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_MULTIPLY, A(x), A(zd), &z), RA_E_DEVICE_MISMATCH,
                  "DEV-DS-11 a 0-d array on another device also raises");
    /* Python scalars take the array's device (DEV-DS-12). */
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, A(y), ra_operand_scalar(ra_scalar_int(1)), &z), RA_OK,
                  "DEV-DS-12 a scalar with an array on %s", s1);
    ASSERT_DEV(ra_array_device(z), d1, "DEV-DS-12 the result is on %s", s1);
    ra_array_release(z);
    ra_array_release(zd);
    ra_array_release(x);
    ra_array_release(y);
}

/* The standard's promotion table between two arrays (checked through add on cpu). */
static void promotion(ra_ctx *ctx)
{
    static const struct {
        ra_dtype a, b, want; /* want RA_DTYPE_DEFAULT: no promotion (TypeError kind) */
    } table[] = {
        {RA_INT8, RA_INT16, RA_INT16},
        {RA_INT32, RA_INT64, RA_INT64},
        {RA_UINT8, RA_UINT16, RA_UINT16},
        {RA_UINT32, RA_UINT64, RA_UINT64},
        {RA_UINT8, RA_INT8, RA_INT16},
        {RA_UINT16, RA_INT8, RA_INT32},
        {RA_UINT32, RA_INT32, RA_INT64},
        {RA_INT64, RA_UINT32, RA_INT64},
        {RA_UINT8, RA_INT64, RA_INT64},
        {RA_INT64, RA_UINT64, RA_DTYPE_DEFAULT},
        {RA_FLOAT32, RA_FLOAT64, RA_FLOAT64},
        {RA_FLOAT32, RA_COMPLEX64, RA_COMPLEX64},
        {RA_FLOAT64, RA_COMPLEX64, RA_COMPLEX128},
        {RA_COMPLEX64, RA_COMPLEX128, RA_COMPLEX128},
        {RA_FLOAT32, RA_COMPLEX128, RA_COMPLEX128},
        {RA_BOOL, RA_BOOL, RA_BOOL},
        {RA_BOOL, RA_INT8, RA_DTYPE_DEFAULT},
        {RA_INT32, RA_FLOAT32, RA_DTYPE_DEFAULT},
        {RA_UINT8, RA_COMPLEX64, RA_DTYPE_DEFAULT},
        {RA_BOOL, RA_FLOAT64, RA_DTYPE_DEFAULT},
    };
    int64_t s1[1] = {1};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        ra_array *a = NULL, *b = NULL, *y = NULL;
        ra_zeros(ctx, s1, 1, &(ra_opts){.dtype = table[i].a, .device = "cpu"}, &a);
        ra_zeros(ctx, s1, 1, &(ra_opts){.dtype = table[i].b, .device = "cpu"}, &b);
        /* equal is defined on every dtype, so only the promotion decides. */
        int st = ra_binary(ctx, RA_EQUAL, ra_operand_array(b), ra_operand_array(a), &y);
        if (table[i].want == RA_DTYPE_DEFAULT) {
            ASSERT_STATUS(ctx, st, RA_E_DTYPE, "%s with %s has no promotion",
                          ra_dtype_name(table[i].a), ra_dtype_name(table[i].b));
        } else {
            ra_array *sum = NULL;
            if (table[i].want != RA_BOOL)
                ra_binary(ctx, RA_ADD, ra_operand_array(a), ra_operand_array(b), &sum);
            CHECK(st == RA_OK && (table[i].want == RA_BOOL || ra_array_dtype(sum) == table[i].want),
                  "%s with %s promotes to %s", ra_dtype_name(table[i].a), ra_dtype_name(table[i].b),
                  ra_dtype_name(table[i].want));
            ra_array_release(sum);
        }
        ra_array_release(y);
        ra_array_release(a);
        ra_array_release(b);
    }
}

/* ra_binary_arrays gives what ra_binary gives with the same two arrays as operands: the status,
 * the message, and the result's dtype, shape, device and bytes. The pairs take each path:
 * the same dtype and shape (one element and six; float16 and bool), broadcasting,
 * promotion, and the errors of a dtype and of an operation the dtype lacks. */
static void arrays_as_operands(ra_ctx *ctx, ra_device dev)
{
    char ds[RA_DEVICE_STR_MAX];
    dev_str(dev, ds);
    int64_t s1[1] = {1}, s23[2] = {2, 3}, s3[1] = {3};
    double v6[6] = {1.5, -2, 3, 4, 5.25, 6}, w6[6] = {10, -20, 3, -4, 0.5, 7};
    static const struct {
        ra_binop op;
        ra_dtype a, b;
        int sa, sb; /* 1: (1,), 2: (2, 3), 3: (3,) */
    } pairs[] = {
        {RA_ADD, RA_FLOAT32, RA_FLOAT32, 1, 1},  {RA_MAXIMUM, RA_INT16, RA_INT16, 1, 1},
        {RA_LESS, RA_FLOAT32, RA_FLOAT32, 2, 2}, {RA_MULTIPLY, RA_UINT8, RA_UINT8, 2, 2},
        {RA_EQUAL, RA_BOOL, RA_BOOL, 2, 2},      {RA_SUBTRACT, RA_FLOAT16, RA_FLOAT16, 2, 2},
        {RA_ADD, RA_FLOAT32, RA_FLOAT32, 2, 3},  {RA_ADD, RA_INT8, RA_INT32, 2, 2},
        {RA_ADD, RA_BOOL, RA_INT8, 1, 1},        {RA_DIVIDE, RA_INT32, RA_INT32, 1, 1},
        {RA_ADD, RA_FLOAT32, RA_FLOAT32, 2, 1},  {RA_MAXIMUM, RA_COMPLEX64, RA_COMPLEX64, 1, 1},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        const int64_t *sh[4] = {NULL, s1, s23, s3};
        size_t nd[4] = {0, 1, 2, 1};
        ra_array *a = arr(ctx, dev, pairs[i].a, v6, sh[pairs[i].sa], nd[pairs[i].sa]);
        ra_array *b = arr(ctx, dev, pairs[i].b, w6, sh[pairs[i].sb], nd[pairs[i].sb]);
        if (!a || !b) { /* a dtype the device lacks */
            ra_array_release(a);
            ra_array_release(b);
            continue;
        }
        ra_array *y = NULL, *z = NULL;
        int sy = ra_binary(ctx, pairs[i].op, A(a), A(b), &y);
        char my[512] = "";
        if (sy != RA_OK) snprintf(my, sizeof my, "%s", ra_ctx_message(ctx));
        int sz = ra_binary_arrays(ctx, pairs[i].op, a, b, &z);
        ASSERT_INT(sz, sy, "%s: pair %zu (%s %s %s): the status of ra_binary", ds, i,
                   ra_binop_name(pairs[i].op), ra_dtype_name(pairs[i].a),
                   ra_dtype_name(pairs[i].b));
        if (sy != RA_OK) {
            ASSERT_STR(ra_ctx_message(ctx), my, "%s: pair %zu: ra_binary's message", ds, i);
            CHECK(z == NULL, "%s: pair %zu: no result", ds, i);
        } else if (z) {
            unsigned char by[64] = {0}, bz[64] = {0};
            size_t n = ra_array_nbytes(y);
            CHECK(ra_array_dtype(z) == ra_array_dtype(y) && ra_array_ndim(z) == ra_array_ndim(y) &&
                      ra_array_size(z) == ra_array_size(y) && n <= sizeof by &&
                      ra_device_eq(ra_array_device(z), ra_array_device(y)) &&
                      ra_array_read(ctx, y, by, n) == RA_OK &&
                      ra_array_read(ctx, z, bz, n) == RA_OK && memcmp(by, bz, n) == 0,
                  "%s: pair %zu: the same dtype, shape, device and bytes as ra_binary's", ds, i);
        }
        ra_array_release(y);
        ra_array_release(z);
        ra_array_release(a);
        ra_array_release(b);
    }
}

DT_TEST(on_every_device)
{
    /* Every operation and dtype on every device the context lists. */
    on_each_device(on_device);
}

DT_TEST(binary_arrays)
{
    /* ra_binary_arrays against ra_binary on every device. */
    on_each_device(arrays_as_operands);
}

DT_TEST(mixed_devices)
{
    ra_ctx *ctx = open_ctx();
    ra_device devs[16];
    size_t n = list_devices(ctx, devs);
    /* DEV-DS-11: inputs on different devices. */
    if (n < 2)
        skip_part("only one device (cpu): no OpenCL device here", "DEV-DS-11 mixed devices");
    else
        for (size_t i = 1; i < n; i++) {
            mixed(ctx, devs[0], devs[i]);
            if (i + 1 < n) mixed(ctx, devs[i], devs[i + 1]);
        }
    ra_ctx_destroy(ctx);
}

DT_TEST(promotion)
{
    ra_ctx *ctx = open_ctx();
    /* Promotion between arrays and with scalars. */
    promotion(ctx);
    ra_ctx_destroy(ctx);
}

DT_TEST(null_arguments_and_names)
{
    ra_ctx *ctx = open_ctx();
    /* NULL arguments and the operations' names. */
    ASSERT_STATUS(NULL, ra_binary(NULL, RA_ADD, A(NULL), A(NULL), NULL), RA_E_NULL, "NULL ctx");
    ASSERT_STATUS(NULL, ra_binary_arrays(NULL, RA_ADD, NULL, NULL, NULL), RA_E_NULL,
                  "ra_binary_arrays NULL ctx");
    ASSERT_STATUS(NULL, ra_unary(NULL, RA_ABS, NULL, NULL), RA_E_NULL, "unary NULL ctx");
    ASSERT_STATUS(NULL, ra_reduce(NULL, RA_SUM, NULL, NULL, NULL), RA_E_NULL, "reduce NULL ctx");
    ASSERT_STATUS(NULL, ra_matmul(NULL, NULL, NULL, NULL), RA_E_NULL, "matmul NULL ctx");
    ASSERT_STATUS(NULL, ra_stack(NULL, NULL, 0, 0, NULL), RA_E_NULL, "stack NULL ctx");
    ra_array *y;
    ASSERT_STATUS(ctx, ra_stack(ctx, NULL, 1, 0, &y), RA_E_NULL, "stack NULL list");
    ra_array *one = NULL;
    ra_ones(ctx, (int64_t[]){1}, 1, &(ra_opts){.device = "cpu"}, &one);
    y = one; /* must be cleared */
    ASSERT_STATUS(ctx, ra_binary_arrays(ctx, RA_ADD, one, NULL, &y), RA_E_NULL,
                  "ra_binary_arrays with x2 NULL");
    ASSERT_MESSAGE(ctx, "ra_binary_arrays: x2 is NULL", "the message names x2");
    CHECK(y == NULL, "no result for a NULL operand");
    ASSERT_STATUS(ctx, ra_binary_arrays(ctx, RA_ADD, NULL, one, &y), RA_E_NULL,
                  "ra_binary_arrays with x1 NULL");
    ASSERT_MESSAGE(ctx, "ra_binary_arrays: x1 is NULL", "the message names x1");
    ASSERT_STATUS(ctx, ra_binary_arrays(ctx, RA_ADD, one, one, NULL), RA_E_NULL,
                  "ra_binary_arrays with out NULL");
    ra_array_release(one);
    ASSERT_STR(ra_binop_name(RA_MAXIMUM), "maximum", "binop name");
    ASSERT_STR(ra_unop_name(RA_SQRT), "sqrt", "unop name");
    ASSERT_STR(ra_reduceop_name(RA_MAX), "max", "reduceop name");
    CHECK(!ra_binop_name((ra_binop)0) && !ra_unop_name((ra_unop)4) &&
              !ra_reduceop_name((ra_reduceop)3),
          "no names for unknown operations");
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(on_every_device), DT_ENTRY(binary_arrays), DT_ENTRY(mixed_devices),
        DT_ENTRY(promotion), DT_ENTRY(null_arguments_and_names))
