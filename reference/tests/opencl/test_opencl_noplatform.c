/*
 * test_opencl_noplatform.c: with no OpenCL platform at all, refarray still works on cpu,
 * lists no gpu, and gpu:0 is a ValueError-kind error saying that no such device is
 * available.
 *
 * CTest runs this with OCL_ICD_VENDORS pointing at an empty folder, so the ICD loader finds
 * no driver; the first check makes sure that really is the situation.
 */
#include "common.h"

#include <CL/cl.h>

DT_TEST(opencl_noplatform)
{
    cl_uint nplat = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &nplat);
    /* -1001 is CL_PLATFORM_NOT_FOUND_KHR. */
    if (!CHECK(err == -1001 || (err == CL_SUCCESS && nplat == 0),
               "the ICD loader lists no platform (OCL_ICD_VENDORS is an empty folder)")) {
        printf("#   clGetPlatformIDs returned %d with %u platforms\n", (int)err, nplat);
        return;
    }
    ra_ctx *ctx = NULL;
    int st = ra_ctx_create(NULL, &ctx);
    ASSERT_STATUS(NULL, st, RA_OK, "a context opens without any OpenCL platform");
    if (st != RA_OK) return;
    ra_device all[8];
    size_t count = 0;
    st = ra_info_devices(ctx, all, 8, &count);
    CHECK(st == RA_OK && count == 1 && all[0].type == RA_DEVICE_CPU,
          "devices() lists cpu only (observed %zu devices)", count);
    ASSERT_INT(ra_util_num_gpus(ctx), 0, "num_gpus is 0");
    ra_device def = ra_default_device(ctx);
    CHECK(ra_device_eq(def, RA_CPU), "the default device is cpu");

    const int64_t shape[1] = {3};
    ra_array *x = NULL;
    st = ra_zeros(ctx, shape, 1, &(ra_opts){.device = "gpu:0"}, &x);
    ASSERT_STATUS(ctx, st, RA_E_DEVICE_UNAVAILABLE, "zeros(device='gpu:0') is refused");
    ASSERT_STR(ra_status_kind(st), "ValueError", "and it is a ValueError");
    CHECK(x == NULL && strstr(ra_ctx_message(ctx), "gpu:0") &&
              strstr(ra_ctx_message(ctx), "not available"),
          "the message says gpu:0 is not available: \"%s\"", ra_ctx_message(ctx));

    /* cpu works: ones + ones == 2, and to_device to gpu:0 is refused the same way. */
    ra_array *a = NULL, *b = NULL, *g = NULL;
    st = ra_ones(ctx, shape, 1, &(ra_opts){.dtype = RA_FLOAT32}, &a);
    if (st == RA_OK) st = ra_binary(ctx, RA_ADD, ra_operand_array(a), ra_operand_array(a), &b);
    float v[3] = {0};
    if (st == RA_OK) st = ra_array_read(ctx, b, v, sizeof v);
    CHECK(st == RA_OK && v[0] == 2 && v[2] == 2 && ra_device_eq(ra_array_device(b), RA_CPU),
          "operations on cpu work");
    ra_device gpu0 = {RA_DEVICE_GPU, 0};
    st = a ? ra_to_device(ctx, a, gpu0, NULL, &g) : RA_E_NULL;
    ASSERT_STATUS(ctx, st, RA_E_DEVICE_UNAVAILABLE, "to_device(gpu:0) is refused");
    ra_array_release(a);
    ra_array_release(b);
    ra_array_release(g);
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(opencl_noplatform))
