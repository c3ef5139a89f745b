/* Tests of the core's fallback paths: a backend that fills only the required slots of the
 * table (alloc, free, write, read, query, close) keeps its data in host memory it allocates
 * itself, so every copy, fill, cast and computation on it must go through the core's
 * staging to host and back. The test compiles the core's sources (not the shared library)
 * to register this backend as gpu:0 in a cpu-only context, and checks the same results as on
 * cpu. */
#include "../src/internal.h"
#include "ra_test.h"

#include <stdlib.h>

typedef struct minimal {
    ra_ctx *ctx;
    long live; /* buffers allocated and not freed */
} minimal;

static int m_query(void *impl, ra__device_info *info)
{
    (void)impl;
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "required slots only");
    info->total_memory = 1u << 30;
    info->max_alloc = 1u << 20;
    info->has_float64 = false; /* also exercises the float32 defaults */
    info->compute_units = 1;
    return RA_OK;
}

static void m_close(void *impl)
{
    minimal *m = impl;
    ra__free(m->ctx, m);
}

static int m_alloc(void *impl, size_t n, void **buf)
{
    minimal *m = impl;
    /* Device memory of this backend is plain calloc, outside the hook, as an OpenCL buffer
     * would be. */
    *buf = calloc(1, n);
    if (!*buf) return ra__ctx_error(m->ctx, RA_E_NOMEM, "minimal: out of memory");
    m->live++;
    return RA_OK;
}

static void m_free(void *impl, void *buf)
{
    minimal *m = impl;
    if (buf) m->live--;
    free(buf);
}

static int m_write(void *impl, void *buf, size_t off, const void *src, size_t n, void *stream)
{
    (void)impl;
    (void)stream;
    memcpy((char *)buf + off, src, n);
    return RA_OK;
}

static int m_read(void *impl, const void *buf, size_t off, void *dst, size_t n, void *stream)
{
    (void)impl;
    (void)stream;
    memcpy(dst, (const char *)buf + off, n);
    return RA_OK;
}

static const ra__backend_ops minimal_ops = {
    .version = RA_BACKEND_VERSION,
    .size = sizeof(ra__backend_ops),
    .name = "minimal",
    .query = m_query,
    .close = m_close,
    .alloc = m_alloc,
    .free = m_free,
    .write = m_write,
    .read = m_read,
};

DT_TEST(fallback)
{
    ra_ctx *ctx = NULL;
    ASSERT_STATUS(NULL, ra_ctx_create(&(ra_ctx_options){.flags = RA_CTX_NO_OPENCL}, &ctx), RA_OK,
                  "create a context");
    minimal *m = ra__calloc(ctx, 1, sizeof *m);
    m->ctx = ctx;
    ASSERT_STATUS(ctx, ra__ctx_add_device(ctx, RA_DEVICE_GPU, &minimal_ops, m), RA_OK,
                  "a backend with the required slots only is accepted");
    ra_device g = {RA_DEVICE_GPU, 0};
    CHECK(ra_device_is_available(ctx, g), "it is gpu:0");
    ra_opts on = {.device_value = &g};
    int64_t s23[2] = {2, 3}, s3[1] = {3}, s32[2] = {3, 2};
    ra_array *x = NULL, *y = NULL, *z = NULL;

    /* Creation: fill and host writes. */
    ASSERT_STATUS(ctx, ra_full(ctx, s23, 2, ra_scalar_float(1.5), &on, &x), RA_OK, "full");
    ASSERT_INT(ra_array_dtype(x), RA_FLOAT32, "without float64 the default float is float32");
    ASSERT_VALUES(ctx, x, "full through the fill fallback", 1.5, 1.5, 1.5, 1.5, 1.5, 1.5);
    ASSERT_STATUS(ctx,
                  ra_zeros(ctx, s3, 1, &(ra_opts){.dtype = RA_FLOAT64, .device_value = &g}, &y),
                  RA_E_DTYPE_DEVICE, "DEV-DS-17 float64 on a device without it is refused");
    ra_default_dtypes dd;
    ra_info_default_dtypes(ctx, &g, &dd);
    CHECK(dd.real_floating == RA_FLOAT32 && dd.complex_floating == RA_COMPLEX64,
          "DEV-INFO-7 the defaults of a device without float64");
    ra_array *e = NULL;
    ASSERT_STATUS(ctx, ra_eye(ctx, 3, 2, 0, &on, &e), RA_OK, "eye");
    ASSERT_VALUES(ctx, e, "eye(3, 2)", 1, 0, 0, 1, 0, 0);
    int64_t big[1] = {(1 << 20) / 4 + 1};
    ASSERT_STATUS(ctx, ra_zeros(ctx, big, 1, &(ra_opts){.dtype = RA_INT32, .device_value = &g}, &y),
                  RA_E_NOMEM, "an array beyond the device's largest allocation is refused");
    ASSERT_MESSAGE(ctx, "largest allocation", "the message says why");

    /* Casts through the host. */
    ASSERT_STATUS(ctx, ra_astype(ctx, x, RA_INT16, NULL, &y), RA_OK, "astype on the device");
    ASSERT_VALUES(ctx, y, "astype int16 via host", 1, 1, 1, 1, 1, 1);
    ASSERT_DEV(ra_array_device(y), g, "the cast stays on gpu:0");
    ra_array_release(y);
    double d6[6] = {1, 2, 3, 4, 5, 6};
    ra_array *h64 = NULL;
    ra_asarray_buffer(ctx, d6, RA_FLOAT64, s23, 2, &(ra_opts){.device = "cpu"}, &h64);
    ASSERT_STATUS(ctx, ra_astype(ctx, h64, RA_FLOAT32, &on, &y), RA_OK,
                  "astype float64 on cpu to float32 on a device without float64");
    ASSERT_VALUES(ctx, y, "cast on cpu first, then moved", 1, 2, 3, 4, 5, 6);
    ASSERT_STATUS(ctx, ra_to_device(ctx, h64, g, NULL, &z), RA_E_DTYPE_DEVICE,
                  "DEV-DS-17 to_device of float64 to a device without it");

    /* Operations through the host kernels. */
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(x), ra_operand_array(y), &z), RA_OK,
                  "add");
    ASSERT_VALUES(ctx, z, "add via host", 2.5, 3.5, 4.5, 5.5, 6.5, 7.5);
    ASSERT_DEV(ra_array_device(z), g, "DEV-DS-10 the result is on gpu:0");
    ra_array_release(z);
    ASSERT_STATUS(ctx, ra_unary(ctx, RA_NEGATIVE, y, &z), RA_OK, "negative");
    ASSERT_VALUES(ctx, z, "negative via host", -1, -2, -3, -4, -5, -6);
    ra_array_release(z);
    int axis = 0;
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, y, &axis, &z), RA_OK, "sum axis 0");
    ASSERT_VALUES(ctx, z, "sum via host", 5, 7, 9);
    ra_array_release(z);
    ra_array *m32 = NULL;
    ra_asarray_buffer(ctx, d6, RA_FLOAT64, s32, 2,
                      &(ra_opts){.dtype = RA_FLOAT32, .device_value = &g}, &m32);
    ASSERT_STATUS(ctx, ra_matmul(ctx, y, m32, &z), RA_OK, "matmul");
    ASSERT_VALUES(ctx, z, "matmul via host", 22, 28, 49, 64);
    ra_array_release(z);
    const ra_array *pair[2] = {y, y};
    ASSERT_STATUS(ctx, ra_stack(ctx, pair, 2, 1, &z), RA_OK, "stack");
    ASSERT_VALUES(ctx, z, "stack via host", 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6);
    ra_array_release(z);
    ASSERT_STATUS(ctx, ra_asarray(ctx, y, &(ra_opts){.copy = RA_COPY_ALWAYS}, &z), RA_OK,
                  "a copy on the device");
    ASSERT_VALUES(ctx, z, "copy via host", 1, 2, 3, 4, 5, 6);
    ra_array_release(z);
    int stream_token;
    ASSERT_STATUS(ctx, ra_to_device(ctx, h64, g, &stream_token, &z), RA_E_STREAM,
                  "a backend without streams refuses a stream");
    void *ds = (void *)1;
    ra_device_default_stream(ctx, g, &ds);
    CHECK(ds == NULL, "a backend without streams has a NULL default stream");
    double pct;
    ASSERT_STATUS(ctx, ra_util_utilisation(ctx, g, &pct), RA_E_NOT_MEASURABLE,
                  "IVY-UTIL-5 no utilisation slot: not measurable");

    /* Soft mode towards a default device that cannot hold an input's dtype is an error,
     * not a silent change of dtype (DEV-DS-17). */
    ra_default_set(ctx, g);
    ra_soft_set(ctx, true);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(h64), ra_operand_array(y), &z),
                  RA_E_DTYPE_DEVICE, "soft mode cannot move float64 to a device without it");
    CHECK(z == NULL, "no result");
    ra_soft_unset(ctx);
    ra_default_unset(ctx);

    ra_array *all[] = {x, y, e, h64, m32};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ra_array_release(all[i]);
    ASSERT_INT(m->live, 0, "every device buffer was freed");

    /* A table with a missing required slot or a newer version is refused, and closed. */
    static ra__backend_ops broken;
    broken = minimal_ops;
    broken.read = NULL;
    minimal *m2 = ra__calloc(ctx, 1, sizeof *m2);
    m2->ctx = ctx;
    ASSERT_STATUS(ctx, ra__ctx_add_device(ctx, RA_DEVICE_GPU, &broken, m2), RA_E_BACKEND,
                  "a table without read is refused");
    static ra__backend_ops newer;
    newer = minimal_ops;
    newer.version = RA_BACKEND_VERSION + 1;
    minimal *m3 = ra__calloc(ctx, 1, sizeof *m3);
    m3->ctx = ctx;
    ASSERT_STATUS(ctx, ra__ctx_add_device(ctx, RA_DEVICE_GPU, &newer, m3), RA_E_BACKEND,
                  "a table of another version is refused");
    ASSERT_INT(ra_util_num_gpus(ctx), 1, "neither was added");
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(fallback))
