/* Tests of can_cast and result_type (DEV-DT-2, DEV-DT-3, DEV-DT-4, DEV-DT-5) on every device
 * the context lists. The expected answers are the array API's promotion table read by hand:
 * within bool, within integers (int64 with uint64 undefined), within real and complex
 * floating; nothing across those kinds. */
#include "ra_test.h"

#define B RA_BOOL
#define I8 RA_INT8
#define I16 RA_INT16
#define I32 RA_INT32
#define I64 RA_INT64
#define U8 RA_UINT8
#define U16 RA_UINT16
#define U32 RA_UINT32
#define U64 RA_UINT64
#define F32 RA_FLOAT32
#define F64 RA_FLOAT64
#define C64 RA_COMPLEX64
#define C128 RA_COMPLEX128

static const struct {
    ra_dtype from, to;
    bool want;
} pairs[] = {
    {B, B, true},      {I8, I8, true},     {I8, I16, true},   {I16, I8, false},  {I8, I64, true},
    {U8, I16, true},   {U8, U64, true},    {U8, I8, false},   {I8, U8, false},   {U32, I64, true},
    {U64, I64, false}, {I64, U64, false},  {U16, I16, false}, {I32, I16, false}, {F32, F64, true},
    {F64, F32, false}, {F32, C64, true},   {F32, C128, true}, {F64, C64, false}, {F64, C128, true},
    {C64, C128, true}, {C128, C64, false}, {C64, F32, false}, {B, I8, false},    {B, F32, false},
    {I8, B, false},    {I8, F32, false},   {I64, F64, false}, {U8, F32, false},  {F32, I32, false},
    {I32, C64, false}, {B, C128, false},
};

static void dtype_pairs(void)
{
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        bool got = !pairs[i].want;
        ASSERT_STATUS(NULL, ra_can_cast_dtype(NULL, pairs[i].from, pairs[i].to, &got), RA_OK,
                      "can_cast(%s, %s) answers", ra_dtype_name(pairs[i].from),
                      ra_dtype_name(pairs[i].to));
        ASSERT_INT(got, pairs[i].want, "DEV-DT-2 can_cast(%s, %s) is %s",
                   ra_dtype_name(pairs[i].from), ra_dtype_name(pairs[i].to),
                   pairs[i].want ? "true" : "false");
    }
    bool b = true;
    ASSERT_STATUS(NULL, ra_can_cast_dtype(NULL, (ra_dtype)0, F32, &b), RA_E_ARG,
                  "can_cast: from_ RA_DTYPE_DEFAULT is not a dtype");
    ASSERT_MESSAGE(NULL, "from_", "the message names from_");
    ASSERT_STATUS(NULL, ra_can_cast_dtype(NULL, F32, (ra_dtype)99, &b), RA_E_ARG,
                  "can_cast: to 99 is not a dtype");
    ASSERT_MESSAGE(NULL, "to is not", "the message names to");
    ASSERT_STATUS(NULL, ra_can_cast_dtype(NULL, F32, F64, NULL), RA_E_NULL, "can_cast: out NULL");
    CHECK(b, "a failed can_cast leaves *out untouched");
}

static void dtype_results(ra_ctx *ctx)
{
    ra_dtype r = RA_DTYPE_DEFAULT;
    ASSERT_STATUS(ctx, ra_result_type(ctx, NULL, 0, (ra_dtype[]){I8, U8}, 2, &r), RA_OK,
                  "result_type(int8, uint8)");
    ASSERT_INT(r, I16, "result_type(int8, uint8) is int16");
    ASSERT_STATUS(ctx, ra_result_type(ctx, NULL, 0, (ra_dtype[]){U8, I8, I32, U16}, 4, &r), RA_OK,
                  "result_type of four integers");
    ASSERT_INT(r, I32, "result_type(uint8, int8, int32, uint16) is int32");
    ASSERT_STATUS(ctx, ra_result_type(ctx, NULL, 0, (ra_dtype[]){F32, C64, F64}, 3, &r), RA_OK,
                  "result_type(float32, complex64, float64)");
    ASSERT_INT(r, C128, "result_type(float32, complex64, float64) is complex128");
    ASSERT_STATUS(ctx, ra_result_type(ctx, NULL, 0, (ra_dtype[]){B}, 1, &r), RA_OK,
                  "result_type(bool)");
    ASSERT_INT(r, B, "result_type of one dtype is that dtype");
    r = RA_DTYPE_DEFAULT;
    ASSERT_STATUS(ctx, ra_result_type(ctx, NULL, 0, (ra_dtype[]){I8, F32}, 2, &r), RA_E_DTYPE,
                  "result_type(int8, float32): no promotion across kinds");
    ASSERT_MESSAGE(ctx, "int8", "the message names the dtypes");
    ASSERT_STATUS(ctx, ra_result_type(ctx, NULL, 0, (ra_dtype[]){I64, U64}, 2, &r), RA_E_DTYPE,
                  "result_type(int64, uint64) is not defined");
    ASSERT_STATUS(ctx, ra_result_type(ctx, NULL, 0, (ra_dtype[]){B, I8}, 2, &r), RA_E_DTYPE,
                  "result_type(bool, int8) is not defined");
    CHECK(r == RA_DTYPE_DEFAULT, "a failed result_type leaves *out untouched");
    ASSERT_STATUS(ctx, ra_result_type(ctx, NULL, 0, NULL, 0, &r), RA_E_ARG,
                  "result_type of nothing");
    ASSERT_STATUS(ctx, ra_result_type(ctx, NULL, 1, NULL, 0, &r), RA_E_NULL,
                  "result_type: arrays NULL with a count");
    ASSERT_STATUS(ctx, ra_result_type(ctx, NULL, 0, NULL, 2, &r), RA_E_NULL,
                  "result_type: dtypes NULL with a count");
    ASSERT_STATUS(ctx, ra_result_type(ctx, NULL, 0, (ra_dtype[]){F32, (ra_dtype)42}, 2, &r),
                  RA_E_ARG, "result_type: dtypes[1] invalid");
    ASSERT_MESSAGE(ctx, "dtypes[1]", "the message names dtypes[1]");
    ASSERT_STATUS(ctx, ra_result_type(ctx, (const ra_array *[]){NULL}, 1, NULL, 0, &r), RA_E_NULL,
                  "result_type: a NULL array");
    ASSERT_STATUS(NULL, ra_result_type(NULL, NULL, 0, (ra_dtype[]){F32}, 1, &r), RA_E_NULL,
                  "result_type: ctx NULL");
    ASSERT_STATUS(ctx, ra_result_type(ctx, NULL, 0, (ra_dtype[]){F32}, 1, NULL), RA_E_NULL,
                  "result_type: out NULL");
}

static ra_array *make(ra_ctx *ctx, ra_device dev, ra_dtype dtype)
{
    ra_array *x = NULL;
    int64_t s2[1] = {2};
    if (ra_zeros(ctx, s2, 1, &(ra_opts){.dtype = dtype, .device_value = &dev}, &x) != RA_OK)
        printf("# cannot create an input: %s\n", ra_ctx_message(ctx));
    return x;
}

/* The device's graph: can_cast(x, to) is can_cast(x.dtype, to) restricted to the dtypes the
 * device supports (ra_info_dtypes says which); result_type of arrays on the device follows
 * the same graph. */
static void on_device(ra_ctx *ctx, ra_device dev)
{
    char ds[RA_DEVICE_STR_MAX];
    dev_str(dev, ds);
    uint32_t supported = 0;
    ra_info_dtypes(ctx, &dev, 0, &supported);
    bool fp64 = (supported >> RA_FLOAT64) & 1u;
    dt_diag("device %s (float64 %s)", ds, fp64 ? "supported" : "not supported");
    ra_array *xf = make(ctx, dev, F32), *xi = make(ctx, dev, I8), *xu = make(ctx, dev, U8);
    for (int to = RA_BOOL; to <= RA_COMPLEX128; to++) {
        bool want = false, got = !want;
        ra_can_cast_dtype(ctx, F32, (ra_dtype)to, &want);
        want = want && ((supported >> to) & 1u);
        got = !want;
        ASSERT_STATUS(ctx, ra_can_cast_array(ctx, xf, (ra_dtype)to, &got), RA_OK,
                      "%s: can_cast(float32 array, %s) answers", ds, ra_dtype_name((ra_dtype)to));
        ASSERT_INT(got, want, "DEV-DT-3 %s: can_cast(float32 array, %s) follows the device's graph",
                   ds, ra_dtype_name((ra_dtype)to));
    }
    bool got = false;
    ra_can_cast_array(ctx, xi, I16, &got);
    CHECK(got, "DEV-DT-3 %s: can_cast(int8 array, int16) is true", ds);
    ra_can_cast_array(ctx, xi, F32, &got);
    CHECK(!got, "DEV-DT-3 %s: can_cast(int8 array, float32) is false (across kinds)", ds);
    ra_can_cast_array(ctx, xf, F64, &got);
    ASSERT_INT(got, fp64,
               "DEV-DT-3 %s: can_cast(float32 array, float64) is the device's float64 "
               "support",
               ds);

    ra_dtype r = RA_DTYPE_DEFAULT;
    ASSERT_STATUS(ctx, ra_result_type(ctx, (const ra_array *[]){xi, xu}, 2, NULL, 0, &r), RA_OK,
                  "%s: result_type(int8 array, uint8 array)", ds);
    ASSERT_INT(r, I16, "DEV-DT-4 %s: result_type(int8 array, uint8 array) is int16", ds);
    ASSERT_STATUS(ctx, ra_result_type(ctx, (const ra_array *[]){xf}, 1, (ra_dtype[]){C64}, 1, &r),
                  RA_OK, "%s: result_type(float32 array, complex64)", ds);
    ASSERT_INT(r, C64, "DEV-DT-4 %s: result_type(float32 array, complex64) is complex64", ds);
    r = RA_DTYPE_DEFAULT;
    int status = ra_result_type(ctx, (const ra_array *[]){xf}, 1, (ra_dtype[]){F64}, 1, &r);
    if (fp64) {
        ASSERT_STATUS(ctx, status, RA_OK, "%s: result_type(float32 array, float64)", ds);
        ASSERT_INT(r, F64, "DEV-DT-4 %s: result_type(float32 array, float64) is float64", ds);
    } else {
        ASSERT_STATUS(ctx, status, RA_E_DTYPE_DEVICE,
                      "DEV-DT-4 %s: float64 is not in the graph of a device without it", ds);
    }
    ASSERT_STATUS(ctx, ra_result_type(ctx, (const ra_array *[]){xi, xf}, 2, NULL, 0, &r),
                  RA_E_DTYPE, "%s: result_type(int8 array, float32 array) is not defined", ds);
    ASSERT_STATUS(ctx, ra_can_cast_array(ctx, xf, (ra_dtype)0, &got), RA_E_ARG,
                  "%s: can_cast(array, invalid dtype)", ds);
    ASSERT_STATUS(ctx, ra_can_cast_array(ctx, NULL, F32, &got), RA_E_NULL, "can_cast: x NULL");
    ASSERT_STATUS(ctx, ra_can_cast_array(ctx, xf, F32, NULL), RA_E_NULL, "can_cast: out NULL");
    ASSERT_STATUS(NULL, ra_can_cast_array(NULL, xf, F32, &got), RA_E_NULL, "can_cast: ctx NULL");
    ra_array_release(xf);
    ra_array_release(xi);
    ra_array_release(xu);
}

/* DEV-DT-5 leaves arrays on two devices open; refarray refuses them as operations do. */
static void two_devices(ra_ctx *ctx, ra_device a, ra_device b)
{
    char as[RA_DEVICE_STR_MAX], bs[RA_DEVICE_STR_MAX];
    /* Formatted first: an assertion formats its name only when it fails. */
    dev_str(a, as);
    dev_str(b, bs);
    ra_array *x = make(ctx, a, F32), *y = make(ctx, b, F32);
    ra_dtype r = RA_DTYPE_DEFAULT;
    ASSERT_STATUS(ctx, ra_result_type(ctx, (const ra_array *[]){x, y}, 2, NULL, 0, &r),
                  RA_E_DEVICE_MISMATCH, "DEV-DT-5 %s and %s: result_type refuses two devices",
                  dev_str(a, as), dev_str(b, bs));
    ASSERT_MESSAGE(ctx, as, "the message names the first device");
    ra_array_release(x);
    ra_array_release(y);
}

DT_TEST(dtype_pairs)
{
    /* can_cast between dtypes (DEV-DT-2). */
    dtype_pairs();
}

DT_TEST(dtype_results)
{
    ra_ctx *ctx = open_ctx();
    /* result_type of dtypes. */
    dtype_results(ctx);
    ra_ctx_destroy(ctx);
}

DT_TEST(on_every_device)
{
    /* Each device's promotion graph (DEV-DT-3, DEV-DT-4). */
    on_each_device(on_device);
}

DT_TEST(two_devices)
{
    ra_ctx *ctx = open_ctx();
    ra_device devs[16];
    size_t n = list_devices(ctx, devs);
    /* DEV-DT-5: arrays on two devices. */
    if (n < 2)
        skip_part("only one device (cpu): no OpenCL device here", "DEV-DT-5 two devices");
    else
        two_devices(ctx, devs[0], devs[1]);
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(dtype_pairs), DT_ENTRY(dtype_results), DT_ENTRY(on_every_device),
        DT_ENTRY(two_devices))
