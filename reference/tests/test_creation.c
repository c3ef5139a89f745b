/* Tests of array creation, description, reading, conversion and movement, on every device
 * the context lists. */
#include "ra_test.h"

#include <math.h>

static bool has_f64(ra_ctx *ctx, ra_device d)
{
    ra_device_props p = RA_DEVICE_PROPS_INIT;
    return ra_device_props_get(ctx, d, &p) == RA_OK && p.has_float64;
}

static void on_device(ra_ctx *ctx, ra_device dev)
{
    char ds[RA_DEVICE_STR_MAX];
    dev_str(dev, ds);
    dt_diag("device %s", ds);
    ra_dtype ft = has_f64(ctx, dev) ? RA_FLOAT64 : RA_FLOAT32;
    ra_opts on = {.device_value = &dev};
    ra_opts on_str = {.device = ds};
    int64_t shape[2] = {2, 3};
    ra_array *x = NULL, *y = NULL, *z = NULL;

    /* zeros with a device value and with a device string (DEV-CREATE-1, DRAFT-STR-3). */
    ASSERT_STATUS(ctx, ra_zeros(ctx, shape, 2, &on, &x), RA_OK, "%s: zeros", ds);
    ASSERT_DEV(ra_array_device(x), dev, "DEV-CREATE-1 %s: zeros(device=value) is there", ds);
    ASSERT_INT(ra_array_dtype(x), ft, "%s: zeros' default dtype is the default float", ds);
    ASSERT_INT(ra_array_ndim(x), 2, "%s: zeros has 2 dimensions", ds);
    CHECK(ra_array_shape(x) && ra_array_shape(x)[0] == 2 && ra_array_shape(x)[1] == 3,
          "%s: zeros has shape (2, 3)", ds);
    ASSERT_INT(ra_array_size(x), 6, "%s: 6 elements", ds);
    ASSERT_INT(ra_array_nbytes(x), 6 * ra_dtype_size(ft), "%s: nbytes", ds);
    ASSERT_VALUES(ctx, x, "zeros values", 0, 0, 0, 0, 0, 0);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_zeros(ctx, shape, 2, &on_str, &x), RA_OK, "%s: zeros by string", ds);
    ASSERT_DEV(ra_array_device(x), dev, "DRAFT-STR-3 %s: zeros(device='%s') is there", ds, ds);
    ra_array_release(x);

    /* ones, empty, full. */
    ra_opts i32 = {.dtype = RA_INT32, .device_value = &dev};
    ASSERT_STATUS(ctx, ra_ones(ctx, shape, 2, &i32, &x), RA_OK, "%s: ones int32", ds);
    ASSERT_INT(ra_array_dtype(x), RA_INT32, "%s: ones honours dtype", ds);
    ASSERT_VALUES(ctx, x, "ones values", 1, 1, 1, 1, 1, 1);
    ra_array_release(x);
    ra_opts b8 = {.dtype = RA_BOOL, .device_value = &dev};
    ASSERT_STATUS(ctx, ra_ones(ctx, shape, 1, &b8, &x), RA_OK, "%s: ones bool", ds);
    ASSERT_VALUES(ctx, x, "ones bool are true", 1, 1);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_empty(ctx, shape, 2, &on, &x), RA_OK, "%s: empty", ds);
    ASSERT_DEV(ra_array_device(x), dev, "DEV-CREATE-1 %s: empty is there", ds);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_full(ctx, shape, 1, ra_scalar_int(-7), &on, &x), RA_OK, "%s: full int",
                  ds);
    ASSERT_INT(ra_array_dtype(x), RA_INT64, "%s: full(int) defaults to int64", ds);
    ASSERT_VALUES(ctx, x, "full -7", -7, -7);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_full(ctx, shape, 1, ra_scalar_float(2.5), &on, &x), RA_OK,
                  "%s: full float", ds);
    ASSERT_INT(ra_array_dtype(x), ft, "%s: full(float) defaults to the default float", ds);
    ASSERT_VALUES(ctx, x, "full 2.5", 2.5, 2.5);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_full(ctx, shape, 1, ra_scalar_bool(true), &on, &x), RA_OK,
                  "%s: full bool", ds);
    ASSERT_INT(ra_array_dtype(x), RA_BOOL, "%s: full(bool) is bool", ds);
    ra_array_release(x);
    ra_opts u8 = {.dtype = RA_UINT8, .device_value = &dev};
    ASSERT_STATUS(ctx, ra_full(ctx, shape, 1, ra_scalar_int(256), &u8, &x), RA_E_SCALAR_RANGE,
                  "%s: full(256, uint8) is out of range", ds);
    CHECK(x == NULL, "%s: out stays NULL on error", ds);
    ASSERT_STATUS(ctx, ra_full(ctx, shape, 1, ra_scalar_float(1.5), &i32, &x), RA_E_DTYPE,
                  "%s: full(1.5, int32) is a TypeError kind", ds);
    ASSERT_STATUS(ctx, ra_full(ctx, shape, 1, ra_scalar_int(255), &u8, &x), RA_OK,
                  "%s: full(255, uint8)", ds);
    ASSERT_VALUES(ctx, x, "full 255 uint8", 255, 255);
    ra_array_release(x);
    ra_opts c64 = {.dtype = RA_COMPLEX64, .device_value = &dev};
    ASSERT_STATUS(ctx, ra_full(ctx, shape, 1, ra_scalar_complex(1, 2), &c64, &x), RA_OK,
                  "%s: full complex64", ds);
    float cv[4] = {0};
    ra_array *xc = NULL;
    ra_to_device(ctx, x, RA_CPU, NULL, &xc);
    ra_array_read(ctx, xc, cv, sizeof cv);
    CHECK(cv[0] == 1 && cv[1] == 2 && cv[2] == 1 && cv[3] == 2, "%s: complex fill is 1+2j", ds);
    ra_array_release(xc);
    ra_array_release(x);

    /* arange, linspace, eye. */
    ra_scalar stop = ra_scalar_int(5), step = ra_scalar_int(2);
    ASSERT_STATUS(ctx, ra_arange(ctx, ra_scalar_int(0), &stop, &step, &on, &x), RA_OK,
                  "%s: arange(0, 5, 2)", ds);
    ASSERT_INT(ra_array_dtype(x), RA_INT64, "%s: integer arange is int64", ds);
    ASSERT_VALUES(ctx, x, "arange(0, 5, 2)", 0, 2, 4);
    ASSERT_DEV(ra_array_device(x), dev, "DEV-CREATE-1 %s: arange is there", ds);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_arange(ctx, ra_scalar_int(4), NULL, NULL, &on, &x), RA_OK,
                  "%s: arange(4)", ds);
    ASSERT_VALUES(ctx, x, "arange(4)", 0, 1, 2, 3);
    ra_array_release(x);
    ra_scalar down = ra_scalar_int(-1), negstep = ra_scalar_int(-1);
    ASSERT_STATUS(ctx, ra_arange(ctx, ra_scalar_int(2), &down, &negstep, &on, &x), RA_OK,
                  "%s: arange(2, -1, -1)", ds);
    ASSERT_VALUES(ctx, x, "arange(2, -1, -1)", 2, 1, 0);
    ra_array_release(x);
    ra_scalar fstop = ra_scalar_float(1.0), fstep = ra_scalar_float(0.25);
    ASSERT_STATUS(ctx, ra_arange(ctx, ra_scalar_int(0), &fstop, &fstep, &on, &x), RA_OK,
                  "%s: arange(0, 1.0, 0.25)", ds);
    ASSERT_INT(ra_array_dtype(x), ft, "%s: float arange is the default float", ds);
    ASSERT_VALUES(ctx, x, "arange(0, 1.0, 0.25)", 0, 0.25, 0.5, 0.75);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_arange(ctx, ra_scalar_int(5), &stop, NULL, &on, &x), RA_OK,
                  "%s: arange(5, 5) is empty", ds);
    ASSERT_INT(ra_array_size(x), 0, "%s: empty range", ds);
    ra_array_release(x);
    /* Extreme integer ranges: distances beyond int64 are exact. */
    ra_scalar big_stop = ra_scalar_int(INT64_C(4611686018427387904)); /* 2^62 */
    ra_scalar big_step = ra_scalar_int(INT64_C(2305843009213693952)); /* 2^61 */
    ASSERT_STATUS(
        ctx,
        ra_arange(ctx, ra_scalar_int(-INT64_C(4611686018427387904)), &big_stop, &big_step, &on, &x),
        RA_OK, "%s: arange(-2^62, 2^62, 2^61)", ds);
    int64_t got4[4] = {0};
    ra_array *h4 = NULL;
    ra_to_device(ctx, x, RA_CPU, NULL, &h4);
    ra_array_read(ctx, h4, got4, sizeof got4);
    CHECK(ra_array_size(x) == 4 && got4[0] == -INT64_C(4611686018427387904) &&
              got4[1] == -INT64_C(2305843009213693952) && got4[2] == 0 &&
              got4[3] == INT64_C(2305843009213693952),
          "%s: four exact values around a span of 2^63", ds);
    ra_array_release(h4);
    ra_array_release(x);
    ra_scalar min_stop = ra_scalar_int(INT64_MIN),
              neg_big = ra_scalar_int(-INT64_C(4611686018427387904));
    ASSERT_STATUS(ctx, ra_arange(ctx, ra_scalar_int(INT64_MAX), &min_stop, &neg_big, &on, &x),
                  RA_OK, "%s: arange(INT64_MAX, INT64_MIN, -2^62)", ds);
    ASSERT_INT(ra_array_size(x), 4, "%s: ceil((2^64 - 1) / 2^62) = 4 values", ds);
    ra_array_release(x);
    ra_scalar one_step = ra_scalar_int(1);
    ASSERT_STATUS(ctx, ra_arange(ctx, ra_scalar_int(INT64_MIN), &min_stop, &one_step, &on, &x),
                  RA_OK, "%s: arange(INT64_MIN, INT64_MIN) is empty", ds);
    ASSERT_INT(ra_array_size(x), 0, "%s: empty", ds);
    ra_array_release(x);
    ra_scalar max_stop = ra_scalar_int(INT64_MAX);
    ASSERT_STATUS(ctx, ra_arange(ctx, ra_scalar_int(0), &max_stop, NULL, &on, &x), RA_E_TOO_LARGE,
                  "%s: arange(0, INT64_MAX) is too long", ds);
    ra_scalar zero = ra_scalar_int(0);
    ASSERT_STATUS(ctx, ra_arange(ctx, ra_scalar_int(0), &stop, &zero, &on, &x), RA_E_ARG,
                  "%s: step 0", ds);
    ASSERT_STATUS(ctx, ra_arange(ctx, ra_scalar_bool(true), NULL, NULL, &on, &x), RA_E_ARG,
                  "%s: a bool start", ds);
    ra_scalar nan = ra_scalar_float(NAN);
    ASSERT_STATUS(ctx, ra_arange(ctx, ra_scalar_int(0), &nan, NULL, &on, &x), RA_E_ARG,
                  "%s: a NaN stop", ds);
    ASSERT_STATUS(ctx, ra_arange(ctx, ra_scalar_int(0), &fstop, &fstep, &i32, &x), RA_E_DTYPE,
                  "%s: a float range as int32", ds);
    ASSERT_STATUS(ctx, ra_arange(ctx, ra_scalar_int(0), &stop, NULL, &b8, &x), RA_E_DTYPE,
                  "%s: a bool range", ds);
    ASSERT_STATUS(ctx, ra_linspace(ctx, ra_scalar_int(0), ra_scalar_int(1), 5, true, &on, &x),
                  RA_OK, "%s: linspace(0, 1, 5)", ds);
    ASSERT_VALUES(ctx, x, "linspace(0, 1, 5)", 0, 0.25, 0.5, 0.75, 1);
    ASSERT_DEV(ra_array_device(x), dev, "DEV-CREATE-1 %s: linspace is there", ds);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_linspace(ctx, ra_scalar_int(0), ra_scalar_int(1), 4, false, &on, &x),
                  RA_OK, "%s: linspace(0, 1, 4, endpoint=False)", ds);
    ASSERT_VALUES(ctx, x, "linspace without endpoint", 0, 0.25, 0.5, 0.75);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_linspace(ctx, ra_scalar_int(3), ra_scalar_int(9), 1, true, &on, &x),
                  RA_OK, "%s: linspace with num 1", ds);
    ASSERT_VALUES(ctx, x, "linspace num 1 is start", 3);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_linspace(ctx, ra_scalar_int(0), ra_scalar_int(1), -1, true, &on, &x),
                  RA_E_ARG, "%s: linspace num -1", ds);
    ASSERT_STATUS(ctx, ra_linspace(ctx, ra_scalar_int(0), ra_scalar_int(1), 3, true, &i32, &x),
                  RA_E_DTYPE, "%s: linspace as int32", ds);
    ASSERT_STATUS(ctx, ra_eye(ctx, 2, 3, 1, &on, &x), RA_OK, "%s: eye(2, 3, k=1)", ds);
    ASSERT_VALUES(ctx, x, "eye(2, 3, k=1)", 0, 1, 0, 0, 0, 1);
    ASSERT_DEV(ra_array_device(x), dev, "DEV-CREATE-1 %s: eye is there", ds);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_eye(ctx, 3, -1, -1, &i32, &x), RA_OK, "%s: eye(3, k=-1) int32", ds);
    ASSERT_VALUES(ctx, x, "eye(3, k=-1)", 0, 0, 0, 1, 0, 0, 0, 1, 0);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_eye(ctx, -1, 2, 0, &on, &x), RA_E_ARG, "%s: eye(-1)", ds);

    /* fftfreq and rfftfreq. */
    ASSERT_STATUS(ctx, ra_fftfreq(ctx, 4, 1.0, &on, &x), RA_OK, "%s: fftfreq(4)", ds);
    ASSERT_DEV(ra_array_device(x), dev, "DEV-CREATE-1 %s: fftfreq is there", ds);
    ASSERT_INT(ra_array_dtype(x), ft, "%s: fftfreq's dtype is the default float", ds);
    ASSERT_VALUES(ctx, x, "fftfreq(4)", 0, 0.25, -0.5, -0.25);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_fftfreq(ctx, 5, 0.5, &on, &x), RA_OK, "%s: fftfreq(5, 0.5)", ds);
    double f5[5];
    read_values(ctx, x, f5, 5);
    CHECK(f5[0] == 0 && fabs(f5[1] - 0.4) < 1e-6 && fabs(f5[2] - 0.8) < 1e-6 &&
              fabs(f5[3] + 0.8) < 1e-6 && fabs(f5[4] + 0.4) < 1e-6,
          "%s: fftfreq(5, 0.5) is [0, 0.4, 0.8, -0.8, -0.4]", ds);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_rfftfreq(ctx, 4, 1.0, &on, &x), RA_OK, "%s: rfftfreq(4)", ds);
    ASSERT_DEV(ra_array_device(x), dev, "DEV-CREATE-1 %s: rfftfreq is there", ds);
    ASSERT_VALUES(ctx, x, "rfftfreq(4)", 0, 0.25, 0.5);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_rfftfreq(ctx, 5, 1.0, &on, &x), RA_OK, "%s: rfftfreq(5)", ds);
    ASSERT_VALUES(ctx, x, "rfftfreq(5)", 0, 0.2, 0.4);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_fftfreq(ctx, 1, 1.0, &on, &x), RA_OK, "%s: fftfreq(1)", ds);
    ASSERT_VALUES(ctx, x, "fftfreq(1)", 0);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_fftfreq(ctx, 0, 1.0, &on, &x), RA_E_ARG, "%s: fftfreq(0)", ds);
    ASSERT_STATUS(ctx, ra_rfftfreq(ctx, 4, 0.0, &on, &x), RA_E_ARG, "%s: rfftfreq d=0", ds);
    ASSERT_STATUS(ctx, ra_fftfreq(ctx, 4, NAN, &on, &x), RA_E_ARG, "%s: fftfreq d=NaN", ds);
    ASSERT_STATUS(ctx, ra_fftfreq(ctx, 4, 1.0, &i32, &x), RA_E_DTYPE, "%s: fftfreq int32", ds);
    ASSERT_STATUS(ctx, ra_fftfreq(ctx, 4, 1.0, &on, NULL), RA_E_NULL, "%s: fftfreq NULL out", ds);

    /* Shape errors. */
    int64_t negshape[1] = {-1};
    ASSERT_STATUS(ctx, ra_zeros(ctx, negshape, 1, &on, &x), RA_E_SHAPE, "%s: negative extent", ds);
    ASSERT_STATUS(ctx, ra_zeros(ctx, NULL, 1, &on, &x), RA_E_NULL, "%s: NULL shape", ds);
    ASSERT_STATUS(ctx, ra_zeros(ctx, shape, RA_MAX_NDIM + 1, &on, &x), RA_E_SHAPE,
                  "%s: too many dimensions", ds);
    int64_t huge[3] = {INT64_MAX / 4, 8, 8};
    ASSERT_STATUS(ctx, ra_zeros(ctx, huge, 3, &on, &x), RA_E_TOO_LARGE, "%s: size overflow", ds);
    /* [2^32, 2^32] holds 2^64 elements: reported as an overflow, not as a count of -1. */
    int64_t square[2] = {(int64_t)1 << 32, (int64_t)1 << 32};
    ASSERT_STATUS(ctx, ra_full(ctx, square, 2, ra_scalar_int(1), &on, &x), RA_E_TOO_LARGE,
                  "%s: [2^32, 2^32] overflows", ds);
    ASSERT_MESSAGE(ctx, "element count overflows", "%s: the message says it overflows", ds);
    int64_t zero_ext[3] = {INT64_MAX, 0, 5};
    ASSERT_STATUS(ctx, ra_zeros(ctx, zero_ext, 3, &on, &x), RA_OK,
                  "%s: a zero extent makes any shape empty", ds);
    ASSERT_INT(ra_array_size(x), 0, "%s: size 0", ds);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_zeros(ctx, NULL, 0, &on, &x), RA_OK, "%s: 0-d zeros", ds);
    CHECK(ra_array_shape(x) == NULL && ra_array_size(x) == 1, "%s: 0-d has one element", ds);
    ra_array_release(x);
    ra_opts badtype = {.dtype = (ra_dtype)99, .device_value = &dev};
    ASSERT_STATUS(ctx, ra_zeros(ctx, shape, 2, &badtype, &x), RA_E_ARG, "%s: invalid dtype", ds);
    ra_opts both = {.device = ds, .device_value = &dev};
    ASSERT_STATUS(ctx, ra_zeros(ctx, shape, 2, &both, &x), RA_E_ARG,
                  "%s: device and device_value both given", ds);

    /* *_like: shape and dtype of x, device of x unless told (DEV-CREATE-3). */
    ra_array *src = NULL;
    ASSERT_STATUS(ctx, ra_full(ctx, shape, 2, ra_scalar_int(3), &i32, &src), RA_OK,
                  "%s: source for *_like", ds);
    ASSERT_STATUS(ctx, ra_zeros_like(ctx, src, NULL, &x), RA_OK, "%s: zeros_like", ds);
    ASSERT_DEV(ra_array_device(x), dev, "DEV-CREATE-3 %s: zeros_like inherits the device", ds);
    ASSERT_INT(ra_array_dtype(x), RA_INT32, "%s: zeros_like inherits the dtype", ds);
    ASSERT_VALUES(ctx, x, "zeros_like values", 0, 0, 0, 0, 0, 0);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_ones_like(ctx, src, NULL, &x), RA_OK, "%s: ones_like", ds);
    ASSERT_DEV(ra_array_device(x), dev, "DEV-CREATE-3 %s: ones_like inherits the device", ds);
    ASSERT_VALUES(ctx, x, "ones_like values", 1, 1, 1, 1, 1, 1);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_empty_like(ctx, src, NULL, &x), RA_OK, "%s: empty_like", ds);
    ASSERT_DEV(ra_array_device(x), dev, "DEV-CREATE-3 %s: empty_like inherits the device", ds);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_full_like(ctx, src, ra_scalar_int(9), NULL, &x), RA_OK, "%s: full_like",
                  ds);
    ASSERT_DEV(ra_array_device(x), dev, "DEV-CREATE-3 %s: full_like inherits the device", ds);
    ASSERT_VALUES(ctx, x, "full_like values", 9, 9, 9, 9, 9, 9);
    ra_array_release(x);
    ra_opts as_cpu = {.device = "cpu", .dtype = RA_FLOAT32};
    ASSERT_STATUS(ctx, ra_ones_like(ctx, src, &as_cpu, &x), RA_OK, "%s: ones_like(cpu)", ds);
    ASSERT_DEV(ra_array_device(x), RA_CPU, "DEV-CREATE-3 %s: an explicit device wins", ds);
    ASSERT_INT(ra_array_dtype(x), RA_FLOAT32, "%s: an explicit dtype wins", ds);
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_full_like(ctx, src, ra_scalar_float(0.5), NULL, &x), RA_E_DTYPE,
                  "%s: full_like(int32, 0.5)", ds);
    ASSERT_STATUS(ctx, ra_zeros_like(ctx, NULL, NULL, &x), RA_E_NULL, "%s: zeros_like(NULL)", ds);
    ra_opts tpu = {.device = "tpu"};
    ASSERT_STATUS(ctx, ra_zeros_like(ctx, src, &tpu, &x), RA_E_DEVICE_UNAVAILABLE,
                  "DRAFT-STR-9 %s: zeros_like(device=tpu) is a ValueError kind", ds);

    /* asarray from host memory, from a scalar and from an array (DEV-CREATE-2). */
    double host[6] = {1.5, -2, 3, 4, 5, 6};
    ASSERT_STATUS(ctx,
                  ra_asarray_buffer(ctx, host, RA_FLOAT64, shape, 2,
                                    &(ra_opts){.dtype = ft, .device_value = &dev}, &x),
                  RA_OK, "%s: asarray from host doubles", ds);
    ASSERT_DEV(ra_array_device(x), dev, "DEV-CREATE-1 %s: asarray(device=) is there", ds);
    ASSERT_VALUES(ctx, x, "asarray values", 1.5, -2, 3, 4, 5, 6);
    ASSERT_STATUS(ctx, ra_asarray(ctx, x, NULL, &y), RA_OK, "%s: asarray(x)", ds);
    CHECK(y == x, "%s: asarray(x) with nothing to change is x itself", ds);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_asarray(ctx, x, &(ra_opts){.copy = RA_COPY_ALWAYS}, &y), RA_OK,
                  "%s: asarray(x, copy=True)", ds);
    CHECK(y != x, "%s: copy=True gives a new array", ds);
    ASSERT_DEV(ra_array_device(y), dev, "DEV-CREATE-2 %s: the copy stays on x's device", ds);
    ASSERT_VALUES(ctx, y, "asarray copy values", 1.5, -2, 3, 4, 5, 6);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_asarray(ctx, x, &(ra_opts){.dtype = RA_INT32}, &y), RA_OK,
                  "%s: asarray(x, dtype=int32)", ds);
    ASSERT_DEV(ra_array_device(y), dev, "DEV-CREATE-2 %s: a cast keeps x's device", ds);
    ASSERT_VALUES(ctx, y, "asarray int32 truncates", 1, -2, 3, 4, 5, 6);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_asarray(ctx, x, &(ra_opts){.device = "cpu"}, &y), RA_OK,
                  "%s: asarray(x, device=cpu)", ds);
    ASSERT_DEV(ra_array_device(y), RA_CPU, "DEV-CREATE-2 %s: an explicit device wins", ds);
    ASSERT_VALUES(ctx, y, "asarray to cpu values", 1.5, -2, 3, 4, 5, 6);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_asarray(ctx, x, &(ra_opts){.dtype = RA_INT8, .copy = RA_COPY_NEVER}, &y),
                  RA_E_COPY, "%s: copy=False with a dtype change is a ValueError kind", ds);
    ASSERT_STATUS(ctx, ra_asarray(ctx, x, &(ra_opts){.copy = RA_COPY_NEVER}, &y), RA_OK,
                  "%s: copy=False with nothing to change", ds);
    CHECK(y == x, "%s: ... is x itself", ds);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_asarray(ctx, x, &(ra_opts){.copy = (ra_copy)9}, &y), RA_E_ARG,
                  "%s: invalid copy value", ds);
    ASSERT_STATUS(ctx, ra_asarray_buffer(ctx, NULL, RA_FLOAT64, shape, 2, &on, &y), RA_E_NULL,
                  "%s: asarray_buffer(NULL data)", ds);
    ASSERT_STATUS(ctx,
                  ra_asarray_buffer(ctx, host, RA_FLOAT64, shape, 2,
                                    &(ra_opts){.device_value = &dev, .copy = RA_COPY_NEVER}, &y),
                  RA_E_COPY, "%s: asarray of host memory with copy=False needs a copy", ds);
    ASSERT_STATUS(ctx, ra_asarray_buffer(ctx, host, (ra_dtype)0, shape, 2, &on, &y), RA_E_ARG,
                  "%s: asarray_buffer(invalid dtype)", ds);
    float cplx[2] = {1, 2};
    ASSERT_STATUS(ctx,
                  ra_asarray_buffer(ctx, cplx, RA_COMPLEX64, NULL, 0,
                                    &(ra_opts){.dtype = RA_FLOAT32, .device_value = &dev}, &y),
                  RA_E_DTYPE, "%s: complex data to a real dtype", ds);
    ASSERT_STATUS(ctx, ra_asarray_scalar(ctx, ra_scalar_int(42), &on, &y), RA_OK, "%s: asarray(42)",
                  ds);
    CHECK(ra_array_ndim(y) == 0 && ra_array_dtype(y) == RA_INT64, "%s: a 0-d int64", ds);
    ASSERT_DEV(ra_array_device(y), dev, "%s: asarray(42, device=) is there", ds);
    ASSERT_VALUES(ctx, y, "asarray(42)", 42);
    ra_array_release(y);

    /* astype (DEV-CREATE-6). */
    ASSERT_STATUS(ctx, ra_astype(ctx, x, RA_INT16, NULL, &y), RA_OK, "%s: astype int16", ds);
    ASSERT_DEV(ra_array_device(y), dev, "DEV-CREATE-6 %s: astype keeps the device", ds);
    ASSERT_INT(ra_array_dtype(y), RA_INT16, "%s: astype gives int16", ds);
    ASSERT_VALUES(ctx, y, "astype int16 values", 1, -2, 3, 4, 5, 6);
    ASSERT_STATUS(ctx, ra_astype(ctx, y, RA_UINT8, NULL, &z), RA_OK, "%s: astype uint8", ds);
    ASSERT_VALUES(ctx, z, "int16 -2 wraps to uint8 254", 1, 254, 3, 4, 5, 6);
    ra_array_release(z);
    ASSERT_STATUS(ctx, ra_astype(ctx, y, RA_BOOL, NULL, &z), RA_OK, "%s: astype bool", ds);
    ASSERT_VALUES(ctx, z, "astype bool", 1, 1, 1, 1, 1, 1);
    ra_array_release(z);
    ASSERT_STATUS(ctx, ra_astype(ctx, y, RA_INT16, NULL, &z), RA_OK, "%s: astype same dtype", ds);
    CHECK(z != y, "%s: astype copies by default", ds);
    ra_array_release(z);
    ASSERT_STATUS(ctx, ra_astype(ctx, y, RA_INT16, &(ra_opts){.copy = RA_COPY_NEVER}, &z), RA_OK,
                  "%s: astype same dtype, copy=False", ds);
    CHECK(z == y, "%s: ... returns x itself", ds);
    ra_array_release(z);
    ASSERT_STATUS(ctx, ra_astype(ctx, y, RA_FLOAT32, &(ra_opts){.device = "cpu"}, &z), RA_OK,
                  "%s: astype(float32, device=cpu)", ds);
    ASSERT_DEV(ra_array_device(z), RA_CPU, "DEV-CREATE-6 %s: astype(device=) moves", ds);
    ASSERT_VALUES(ctx, z, "astype to cpu values", 1, -2, 3, 4, 5, 6);
    ra_array_release(z);
    ASSERT_STATUS(
        ctx, ra_astype(ctx, y, RA_INT16, &(ra_opts){.device = "cpu", .copy = RA_COPY_NEVER}, &z),
        dev.type == RA_DEVICE_CPU ? RA_OK : RA_E_COPY,
        "%s: astype(copy=False, device=cpu) needs a copy unless already there", ds);
    ra_array_release(z);
    z = NULL;
    ra_array *cx = NULL;
    ra_asarray_buffer(ctx, cplx, RA_COMPLEX64, NULL, 0, &on, &cx);
    ASSERT_STATUS(ctx, ra_astype(ctx, cx, RA_FLOAT32, NULL, &z), RA_E_DTYPE,
                  "%s: complex to real is refused", ds);
    ra_array_release(cx);
    ASSERT_STATUS(ctx, ra_astype(ctx, y, (ra_dtype)42, NULL, &z), RA_E_ARG,
                  "%s: astype invalid dtype", ds);
    ASSERT_STATUS(ctx, ra_astype(ctx, NULL, RA_INT8, NULL, &z), RA_E_NULL, "%s: astype NULL", ds);
    ra_array_release(y);

    /* Saturating float to integer casts (spec/decisions.md). */
    double specials[4] = {NAN, 1e30, -1e30, -3.9};
    int64_t four[1] = {4};
    ra_array *sp = NULL;
    ra_asarray_buffer(ctx, specials, RA_FLOAT64, four, 1, &(ra_opts){.device = "cpu"}, &sp);
    ASSERT_STATUS(ctx, ra_astype(ctx, sp, RA_INT8, &on, &y), RA_OK, "%s: float to int8", ds);
    ASSERT_VALUES(ctx, y, "NaN->0, +big->127, -big->-128, -3.9->-3", 0, 127, -128, -3);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_astype(ctx, sp, RA_UINT16, &on, &y), RA_OK, "%s: float to uint16", ds);
    ASSERT_VALUES(ctx, y, "NaN->0, +big->65535, -big->0, -3.9->0", 0, 65535, 0, 0);
    ra_array_release(y);
    ra_array_release(sp);

    /* read. */
    double buf6[6];
    if (ft == RA_FLOAT64) {
        ASSERT_STATUS(ctx, ra_array_read(ctx, x, buf6, sizeof buf6), RA_OK, "%s: read", ds);
        CHECK(buf6[0] == 1.5 && buf6[5] == 6, "%s: read gives the values", ds);
    }
    ASSERT_STATUS(ctx, ra_array_read(ctx, x, buf6, 5), RA_E_BUFFER,
                  "%s: read into a wrong-sized buffer is a BufferError kind", ds);
    ASSERT_STATUS(ctx, ra_array_read(ctx, x, NULL, ra_array_nbytes(x)), RA_E_NULL,
                  "%s: read into NULL", ds);
    ASSERT_STATUS(ctx, ra_array_read(ctx, NULL, buf6, 8), RA_E_NULL, "%s: read NULL array", ds);
    ASSERT_DEV(ra_array_device(x), dev, "%s: reading does not move the array", ds);

    /* from_dlpack (DEV-DLP-*). */
    ASSERT_STATUS(ctx, ra_from_dlpack(ctx, x, NULL, &y), RA_OK, "%s: from_dlpack(x)", ds);
    CHECK(y == x, "%s: from_dlpack without a change is x itself (no copy)", ds);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_from_dlpack(ctx, x, &(ra_opts){.copy = RA_COPY_ALWAYS}, &y), RA_OK,
                  "%s: from_dlpack(copy=True)", ds);
    CHECK(y != x, "%s: copy=True gives a new array", ds);
    ASSERT_DEV(ra_array_device(y), dev, "%s: on x's device", ds);
    ASSERT_VALUES(ctx, y, "from_dlpack copy values", 1.5, -2, 3, 4, 5, 6);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_from_dlpack(ctx, x, &(ra_opts){.device = "cpu"}, &y), RA_OK,
                  "%s: from_dlpack(device=cpu)", ds);
    ASSERT_DEV(ra_array_device(y), RA_CPU, "%s: from_dlpack(device=cpu) is on cpu", ds);
    ASSERT_VALUES(ctx, y, "from_dlpack to cpu values", 1.5, -2, 3, 4, 5, 6);
    ra_array_release(y);
    y = NULL;
    ASSERT_STATUS(ctx,
                  ra_from_dlpack(ctx, x, &(ra_opts){.device = "cpu", .copy = RA_COPY_NEVER}, &y),
                  dev.type == RA_DEVICE_CPU ? RA_OK : RA_E_BUFFER,
                  "DEV-DLP-16 %s: copy=False to another device is a BufferError kind", ds);
    ra_array_release(y);
    y = NULL;
    ASSERT_STATUS(ctx, ra_from_dlpack(ctx, x, &(ra_opts){.dtype = RA_INT8}, &y), RA_E_ARG,
                  "%s: from_dlpack with a dtype", ds);
    ASSERT_STATUS(ctx, ra_from_dlpack(ctx, NULL, NULL, &y), RA_E_NULL, "%s: from_dlpack(NULL)", ds);

    /* DLPack device (DEV-DLP-1). */
    int32_t dt = -1, did = -1;
    ASSERT_STATUS(ctx, ra_array_dlpack_device(x, &dt, &did), RA_OK, "%s: dlpack device", ds);
    ASSERT_INT(dt, dev.type == RA_DEVICE_CPU ? 1 : 4, "DEV-DLP-1 %s: kDLCPU or kDLOpenCL", ds);
    ASSERT_INT(did, dev.type == RA_DEVICE_CPU ? 0 : dev.index, "DEV-DLP-1 %s: device id", ds);
    ASSERT_STATUS(ctx, ra_array_dlpack_device(x, NULL, &did), RA_E_NULL, "%s: dlpack NULL", ds);

    /* to_device (DEV-TODEV-*). */
    ASSERT_STATUS(ctx, ra_to_device(ctx, x, dev, NULL, &y), RA_OK, "%s: to_device(same)", ds);
    CHECK(y == x, "DEV-TODEV-6 %s: to_device to its own device returns x itself", ds);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_to_device(ctx, x, RA_CPU, NULL, &y), RA_OK, "%s: to_device(cpu)", ds);
    ASSERT_DEV(ra_array_device(y), RA_CPU, "DEV-TODEV-1 %s: the result is on cpu", ds);
    ASSERT_INT(ra_array_dtype(y), ra_array_dtype(x), "DEV-TODEV-2 %s: dtype kept", ds);
    ASSERT_VALUES(ctx, y, "DEV-TODEV-2 values kept", 1.5, -2, 3, 4, 5, 6);
    ASSERT_STATUS(ctx, ra_to_device(ctx, y, dev, NULL, &z), RA_OK, "%s: back from cpu", ds);
    ASSERT_DEV(ra_array_device(z), dev, "DEV-TODEV-1 %s: back on the device", ds);
    ASSERT_VALUES(ctx, z, "round trip values", 1.5, -2, 3, 4, 5, 6);
    ra_array_release(z);
    z = NULL;
    void *stream = NULL;
    ra_device_default_stream(ctx, dev, &stream);
    ASSERT_STATUS(ctx, ra_to_device(ctx, y, dev, stream, &z), RA_OK,
                  "DEV-TODEV-3 %s: to_device with the device's default stream", ds);
    ASSERT_VALUES(ctx, z, "values through the stream", 1.5, -2, 3, 4, 5, 6);
    ra_array_release(z);
    z = NULL;
    int not_a_stream;
    ASSERT_STATUS(ctx, ra_to_device(ctx, y, RA_CPU, &not_a_stream, &z), RA_E_STREAM,
                  "%s: cpu accepts no stream", ds);
    ra_device tpu0 = {RA_DEVICE_TPU, 0};
    ASSERT_STATUS(ctx, ra_to_device(ctx, x, tpu0, NULL, &z), RA_E_DEVICE_UNAVAILABLE,
                  "DRAFT-STR-9 %s: to_device(tpu) is a ValueError kind", ds);
    CHECK(z == NULL, "%s: out stays NULL", ds);
    ASSERT_STATUS(ctx, ra_to_device(ctx, NULL, RA_CPU, NULL, &z), RA_E_NULL, "%s: to_device(NULL)",
                  ds);
    ASSERT_STATUS(ctx, ra_to_device(ctx, x, RA_CPU, NULL, NULL), RA_E_NULL,
                  "%s: to_device NULL out", ds);
    ra_array_release(y);

    /* Memory accounting (used by ra_util_used_memory). */
    uint64_t before = 0, after = 0;
    ra_util_used_memory(ctx, dev, &before);
    ASSERT_STATUS(ctx, ra_zeros(ctx, shape, 2, &i32, &y), RA_OK, "%s: 24 more bytes", ds);
    ra_util_used_memory(ctx, dev, &after);
    ASSERT_INT(after - before, 24, "%s: used memory grows by the array's bytes", ds);
    ra_array_release(y);
    ra_util_used_memory(ctx, dev, &after);
    ASSERT_INT(after, before, "%s: and shrinks when it is released", ds);

    ra_array_release(x);
    ra_array_release(src);
}

DT_TEST(on_every_device)
{
    /* Every creation function on every device the context lists. */
    on_each_device(on_device);
}

DT_TEST(gpu_to_gpu)
{
    ra_ctx *ctx = open_ctx();
    ra_device devs[16];
    size_t n = list_devices(ctx, devs);
    /* With the device chosen across devices: to_device between two non-cpu devices. */
    if (n < 3) {
        skip_part("fewer than two gpu devices", "DEV-TODEV-1 gpu to gpu copy");
    } else {
        ra_array *x = NULL, *y = NULL;
        int64_t shape[1] = {3};
        ra_arange(ctx, ra_scalar_int(3), NULL, NULL, &(ra_opts){.device_value = &devs[1]}, &x);
        ASSERT_STATUS(ctx, ra_to_device(ctx, x, devs[2], NULL, &y), RA_OK, "gpu to gpu");
        ASSERT_DEV(ra_array_device(y), devs[2], "DEV-TODEV-1 the copy is on the other gpu");
        ASSERT_VALUES(ctx, y, "gpu to gpu values", 0, 1, 2);
        void *other_queue = NULL;
        ra_device_default_stream(ctx, devs[2], &other_queue);
        ra_array *z = NULL;
        ASSERT_STATUS(ctx, ra_to_device(ctx, x, devs[1], other_queue, &z), RA_E_STREAM,
                      "DEV-TODEV-4 a queue of another device is refused");
        CHECK(z == NULL, "no result");
        (void)shape;
        ra_array_release(x);
        ra_array_release(y);
    }
    ra_ctx_destroy(ctx);
}

DT_TEST(bad_arguments)
{
    ra_ctx *ctx = open_ctx();
    ra_array *x = NULL;
    /* NULL arguments, and device strings that are malformed or name no available device. */
    ASSERT_STATUS(NULL, ra_zeros(NULL, NULL, 0, NULL, NULL), RA_E_NULL, "zeros with NULL ctx");
    ASSERT_STATUS(ctx, ra_zeros(ctx, NULL, 0, NULL, NULL), RA_E_NULL, "zeros with NULL out");
    ASSERT_STATUS(ctx, ra_zeros(ctx, NULL, 0, &(ra_opts){.device = "gpu:0:0"}, &x),
                  RA_E_DEVICE_SYNTAX, "DRAFT-STR-9 zeros(device='gpu:0:0') is a ValueError kind");
    ASSERT_MESSAGE(ctx, "ra_zeros", "the message names the function");
    ASSERT_MESSAGE(ctx, "'gpu:0:0'", "the message quotes the device string");
    ASSERT_STATUS(ctx, ra_zeros(ctx, NULL, 0, &(ra_opts){.device = "tpu:0"}, &x),
                  RA_E_DEVICE_UNAVAILABLE, "DRAFT-STR-9 zeros(device='tpu:0')");
    ASSERT_STATUS(ctx, ra_zeros(ctx, NULL, 0, &(ra_opts){.device = "cpu:1"}, &x),
                  RA_E_DEVICE_UNAVAILABLE, "DRAFT-STR-9 zeros(device='cpu:1')");
    ra_ctx_destroy(ctx);
}

DT_TEST(options_size)
{
    ra_ctx *ctx = open_ctx();
    ra_array *x = NULL;
    /* The options' size field (refarray.h, "Conventions"). */
    ASSERT_STATUS(ctx, ra_zeros(ctx, NULL, 0, &(ra_opts){.size = 1, .device = "cpu"}, &x), RA_E_ARG,
                  "options with a size below the first layout");
    ASSERT_MESSAGE(ctx, "ra_zeros: options: size is 1", "the message names the function and size");
    CHECK(x == NULL, "out stays NULL");
    struct {
        ra_opts o;
        unsigned char later[8];
    } newer = {.o = {.size = sizeof newer}, .later = {1}};
    ASSERT_STATUS(ctx, ra_astype(ctx, NULL, RA_INT8, &newer.o, &x), RA_E_NULL,
                  "astype checks x before the options");
    ASSERT_STATUS(ctx, ra_ones(ctx, NULL, 0, &newer.o, &x), RA_E_ARG,
                  "options with a field this library does not know set");
    newer.later[0] = 0;
    newer.o.dtype = RA_INT16;
    ASSERT_STATUS(ctx, ra_ones(ctx, NULL, 0, &newer.o, &x), RA_OK, "options from a newer header");
    CHECK(ra_array_dtype(x) == RA_INT16, "are read");
    ra_array_release(x);
    x = NULL;
    ASSERT_STATUS(ctx, ra_ones(ctx, NULL, 0, RA_OPTS(.dtype = RA_UINT8), &x), RA_OK, "RA_OPTS");
    CHECK(ra_array_dtype(x) == RA_UINT8, "RA_OPTS sets the size and the fields");
    ra_array_release(x);
    x = NULL;
    ra_ctx_destroy(ctx);
}

DT_TEST(null_getters)
{
    ra_ctx *ctx = open_ctx();
    /* NULL given to the array getters (refarray.h, "Conventions"). */
    ra_array_retain(NULL);
    ra_array_release(NULL);
    ASSERT_DEV(ra_array_device(NULL), RA_NO_DEVICE, "ra_array_device(NULL) is no device");
    CHECK(!ra_device_eq(ra_array_device(NULL), RA_CPU), "ra_array_device(NULL) is not cpu");
    CHECK(ra_array_ndim(NULL) == 0 && ra_array_size(NULL) == 0 && ra_array_nbytes(NULL) == 0 &&
              ra_array_shape(NULL) == NULL && ra_array_dtype(NULL) == RA_DTYPE_DEFAULT,
          "getters on NULL give neutral values");
    ra_ctx_destroy(ctx);
}

DT_TEST(dtype_names)
{
    ra_ctx *ctx = open_ctx();
    /* dtype names. */
    ra_dtype t;
    ASSERT_STATUS(ctx, ra_dtype_parse(ctx, "complex128", &t), RA_OK, "parse complex128");
    ASSERT_INT(t, RA_COMPLEX128, "complex128 value");
    ASSERT_STATUS(ctx, ra_dtype_parse(ctx, "float128", &t), RA_E_ARG,
                  "parse 'float128' is unknown");
    ASSERT_STATUS(ctx, ra_dtype_parse(ctx, NULL, &t), RA_E_NULL, "parse NULL name");
    ASSERT_STATUS(ctx, ra_dtype_parse(ctx, "int8", NULL), RA_E_NULL, "parse NULL out");
    for (int d = RA_BOOL; d <= RA_FLOAT16; d++) {
        ra_dtype back = RA_DTYPE_DEFAULT;
        ra_dtype_parse(ctx, ra_dtype_name((ra_dtype)d), &back);
        CHECK((int)back == d && ra_dtype_size((ra_dtype)d) > 0 && ra_dtype_kind((ra_dtype)d) != 0,
              "dtype %s round-trips, size %zu", ra_dtype_name((ra_dtype)d),
              ra_dtype_size((ra_dtype)d));
    }
    CHECK(ra_dtype_name((ra_dtype)0) == NULL && ra_dtype_size((ra_dtype)(RA_FLOAT16 + 1)) == 0 &&
              ra_dtype_kind((ra_dtype)-1) == 0,
          "invalid dtypes have no name, size or kind");
    ra_ctx_destroy(ctx);
}

/* ra_float16_from_double and ra_float16_to_double against IEEE 754-2008's binary16 encoding
 * (table 3.5: 1 sign bit, 5 exponent bits biased by 15, 10 significand bits), written out
 * bit by bit here rather than computed by another codec. */
DT_TEST(float16_codec)
{
    static const struct {
        double value;
        uint16_t bits;
    } exact[] = {
        {0.0, 0x0000},          {1.0, 0x3c00},
        {-2.0, 0xc000},         {0.5, 0x3800},
        {65504.0, 0x7bff},      {0x1p-14, 0x0400},
        {0x1p-24, 0x0001},      {0x3ffp-24, 0x03ff},
        {1.0009765625, 0x3c01}, {-0.333251953125, 0xb555},
        {HUGE_VAL, 0x7c00},     {-HUGE_VAL, 0xfc00},
    };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
        ASSERT_INT(ra_float16_from_double(exact[i].value), exact[i].bits, "from %a",
                   exact[i].value);
        CHECK(ra_float16_to_double(exact[i].bits) == exact[i].value, "0x%04x to %a",
              (unsigned)exact[i].bits, exact[i].value);
    }
    /* Rounding to nearest, ties to even: 1 + 2^-11 lies halfway between 1 (even) and
     * 1 + 2^-10; 1 + 3 * 2^-11 halfway between 1 + 2^-10 (odd) and 1 + 2^-9. */
    ASSERT_INT(ra_float16_from_double(1.0 + 0x1p-11), 0x3c00, "tie to even, down");
    ASSERT_INT(ra_float16_from_double(1.0 + 0x3p-11), 0x3c02, "tie to even, up");
    ASSERT_INT(ra_float16_from_double(65519.0), 0x7bff, "below the halfway point to 2^16");
    ASSERT_INT(ra_float16_from_double(65520.0), 0x7c00, "halfway to 2^16 rounds to infinity");
    ASSERT_INT(ra_float16_from_double(0x1p-25), 0x0000, "half the smallest subnormal ties to 0");
    ASSERT_INT(ra_float16_from_double(-0.0), 0x8000, "negative zero keeps its sign");
    ASSERT_INT(ra_float16_from_double(NAN), 0x7e00, "NaN becomes the quiet NaN");
    CHECK(isnan(ra_float16_to_double(0x7e01)), "0x7e01 is a NaN");
    CHECK(signbit(ra_float16_to_double(0x8000)), "0x8000 is negative zero");
}

DT_MAIN(DT_ENTRY(float16_codec), DT_ENTRY(on_every_device), DT_ENTRY(gpu_to_gpu),
        DT_ENTRY(bad_arguments), DT_ENTRY(options_size), DT_ENTRY(null_getters),
        DT_ENTRY(dtype_names))
