/* Tests of the per-device promotion graph on a device without float64 (DEV-DT-3, DEV-DT-4)
 * and of tril/triu through the core's host path (DEV-CREATE-8). No OpenCL device here is
 * known to lack cl_khr_fp64, so the device is made up: a backend with only the required
 * slots (no copy slot) whose query says it has no float64, added to a context with the
 * core's internal ra__ctx_add_device. It compiles the core's sources itself. */
#include "../src/internal.h"
#include "ra_test.h"

#include <stdlib.h>

static int n_query(void *impl, ra__device_info *info)
{
    (void)impl;
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "no float64");
    info->total_memory = 1u << 30;
    info->has_float64 = false;
    info->compute_units = 1;
    return RA_OK;
}

static void n_close(void *impl)
{
    (void)impl;
}

static int n_alloc(void *impl, size_t n, void **buf)
{
    (void)impl;
    *buf = calloc(1, n);
    return *buf ? RA_OK : RA_E_NOMEM;
}

static void n_free(void *impl, void *buf)
{
    (void)impl;
    free(buf);
}

static int n_write(void *impl, void *buf, size_t off, const void *src, size_t n, void *stream)
{
    (void)impl;
    (void)stream;
    memcpy((char *)buf + off, src, n);
    return RA_OK;
}

static int n_read(void *impl, const void *buf, size_t off, void *dst, size_t n, void *stream)
{
    (void)impl;
    (void)stream;
    memcpy(dst, (const char *)buf + off, n);
    return RA_OK;
}

static const ra__backend_ops nofp64_ops = {
    .version = RA_BACKEND_VERSION,
    .size = sizeof(ra__backend_ops),
    .name = "nofp64",
    .query = n_query,
    .close = n_close,
    .alloc = n_alloc,
    .free = n_free,
    .write = n_write,
    .read = n_read,
};

DT_TEST(graph)
{
    ra_ctx *ctx = NULL;
    ASSERT_STATUS(NULL, ra_ctx_create(&(ra_ctx_options){.flags = RA_CTX_NO_OPENCL}, &ctx), RA_OK,
                  "create a context");
    ASSERT_STATUS(ctx, ra__ctx_add_device(ctx, RA_DEVICE_GPU, &nofp64_ops, NULL), RA_OK,
                  "a device without float64 is added as gpu:0");
    ra_device g = {RA_DEVICE_GPU, 0};
    int64_t s2[1] = {2}, s23[2] = {2, 3};
    ra_array *xf = NULL, *xh = NULL, *xi = NULL, *y = NULL;
    ra_zeros(ctx, s2, 1, &(ra_opts){.dtype = RA_FLOAT32, .device_value = &g}, &xf);
    ra_zeros(ctx, s2, 1, &(ra_opts){.dtype = RA_FLOAT32}, &xh);
    ra_zeros(ctx, s2, 1, &(ra_opts){.dtype = RA_INT16, .device_value = &g}, &xi);
    CHECK(xf && xh && xi, "inputs created");

    bool b = false;
    ASSERT_STATUS(ctx, ra_can_cast_dtype(ctx, RA_FLOAT32, RA_FLOAT64, &b), RA_OK, "can_cast");
    CHECK(b, "DEV-DT-2 can_cast(float32, float64) is true although gpu:0 lacks float64");
    b = true;
    ASSERT_STATUS(ctx, ra_can_cast_array(ctx, xf, RA_FLOAT64, &b), RA_OK, "can_cast(array)");
    CHECK(!b, "DEV-DT-3 can_cast(float32 array on gpu:0, float64) is false: not in its graph");
    ra_can_cast_array(ctx, xf, RA_COMPLEX128, &b);
    CHECK(!b, "DEV-DT-3 can_cast(float32 array on gpu:0, complex128) is false");
    ra_can_cast_array(ctx, xf, RA_COMPLEX64, &b);
    CHECK(b, "DEV-DT-3 can_cast(float32 array on gpu:0, complex64) is true");
    ra_can_cast_array(ctx, xh, RA_FLOAT64, &b);
    CHECK(b, "DEV-DT-3 can_cast(float32 array on cpu, float64) is true: cpu has it");
    ra_can_cast_array(ctx, xi, RA_INT64, &b);
    CHECK(b, "DEV-DT-3 can_cast(int16 array on gpu:0, int64) is true");

    ra_dtype r = RA_DTYPE_DEFAULT;
    ASSERT_STATUS(ctx,
                  ra_result_type(ctx, (const ra_array *[]){xf}, 1, (ra_dtype[]){RA_FLOAT64}, 1, &r),
                  RA_E_DTYPE_DEVICE, "DEV-DT-4 result_type(float32 array on gpu:0, float64)");
    ASSERT_MESSAGE(ctx, "float64", "the message names float64");
    CHECK(r == RA_DTYPE_DEFAULT, "*out untouched");
    ASSERT_STATUS(ctx, ra_result_type(ctx, NULL, 0, (ra_dtype[]){RA_FLOAT32, RA_FLOAT64}, 2, &r),
                  RA_OK, "result_type(float32, float64) without arrays");
    ASSERT_INT(r, RA_FLOAT64, "DEV-DT-2 the complete table without arrays: float64");
    ASSERT_STATUS(
        ctx, ra_result_type(ctx, (const ra_array *[]){xf}, 1, (ra_dtype[]){RA_COMPLEX64}, 1, &r),
        RA_OK, "result_type(float32 array on gpu:0, complex64)");
    ASSERT_INT(r, RA_COMPLEX64, "DEV-DT-4 complex64 is in gpu:0's graph");
    ASSERT_STATUS(ctx,
                  ra_result_type(ctx, (const ra_array *[]){xh}, 1, (ra_dtype[]){RA_FLOAT64}, 1, &r),
                  RA_OK, "result_type(float32 array on cpu, float64)");
    ASSERT_INT(r, RA_FLOAT64, "DEV-DT-4 cpu's graph has float64");
    ASSERT_STATUS(ctx, ra_result_type(ctx, (const ra_array *[]){xf, xh}, 2, NULL, 0, &r),
                  RA_E_DEVICE_MISMATCH, "DEV-DT-5 arrays on gpu:0 and cpu are refused");

    /* tril/triu on a backend without a copy slot: through host memory, result on gpu:0. */
    double v[6] = {1, 2, 3, 4, 5, 6};
    ra_array *m = NULL;
    ra_asarray_buffer(ctx, v, RA_FLOAT64, s23, 2,
                      &(ra_opts){.dtype = RA_FLOAT32, .device_value = &g}, &m);
    ASSERT_STATUS(ctx, ra_tril(ctx, m, 0, &y), RA_OK, "tril on gpu:0 (host path)");
    if (y) ASSERT_DEV(ra_array_device(y), g, "DEV-CREATE-8 tril's result is on gpu:0");
    ASSERT_VALUES(ctx, y, "tril(2x3) values", 1, 0, 0, 4, 5, 0);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_triu(ctx, m, 1, &y), RA_OK, "triu(k=1) on gpu:0 (host path)");
    if (y) ASSERT_DEV(ra_array_device(y), g, "DEV-CREATE-8 triu's result is on gpu:0");
    ASSERT_VALUES(ctx, y, "triu(2x3, k=1) values", 0, 2, 3, 0, 0, 6);
    ra_array_release(y);

    size_t n = 0;
    ASSERT_STATUS(ctx, ra_util_arrays_on_device(ctx, g, NULL, 0, &n), RA_OK, "count on gpu:0");
    ASSERT_INT(n, 3, "IVY-UTIL-6 gpu:0 holds xf, xi and m");
    ra_array_release(m);
    ra_array_release(xf);
    ra_array_release(xh);
    ra_array_release(xi);
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(graph))
