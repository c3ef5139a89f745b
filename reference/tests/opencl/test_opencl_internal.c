/*
 * test_opencl_internal.c: the OpenCL backend's internals that the public API cannot show:
 * the one mapping from OpenCL errors to refarray statuses, and the kernel cache (programs
 * are built once per context, device and dtype, then reused).
 *
 * Built against refarray's sources (a static copy), so that the internal functions of
 * src/opencl/opencl.h are reachable.
 */
#include "common.h"
#include "opencl.h"

#include <stdint.h>

static void test_error_mapping(ra_ctx *ctx)
{
    static const struct {
        cl_int err;
        int status;
        const char *kind;
    } table[] = {
        {CL_SUCCESS, RA_OK, NULL},
        {CL_MEM_OBJECT_ALLOCATION_FAILURE, RA_E_NOMEM, "MemoryError"},
        {CL_OUT_OF_RESOURCES, RA_E_NOMEM, "MemoryError"},
        {CL_OUT_OF_HOST_MEMORY, RA_E_NOMEM, "MemoryError"},
        {CL_INVALID_BUFFER_SIZE, RA_E_NOMEM, "MemoryError"},
        {CL_DEVICE_NOT_AVAILABLE, RA_E_DEVICE_UNAVAILABLE, "ValueError"},
        {CL_DEVICE_NOT_FOUND, RA_E_DEVICE_UNAVAILABLE, "ValueError"},
        {CL_INVALID_COMMAND_QUEUE, RA_E_STREAM, "ValueError"},
        {CL_INVALID_CONTEXT, RA_E_STREAM, "ValueError"},
        {CL_BUILD_PROGRAM_FAILURE, RA_E_BACKEND, "RuntimeError"},
        {CL_INVALID_KERNEL_ARGS, RA_E_BACKEND, "RuntimeError"},
        {-9999, RA_E_BACKEND, "RuntimeError"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        int st = ra__cl_status(table[i].err);
        ASSERT_STATUS(ctx, st, table[i].status, "%s (%d) maps to %s",
                      ra__cl_error_name(table[i].err), (int)table[i].err,
                      ra_status_name(table[i].status));
        if (table[i].kind)
            ASSERT_STR(ra_status_kind(st), table[i].kind, "%s is a %s",
                       ra__cl_error_name(table[i].err), table[i].kind);
    }
    ASSERT_STR(ra__cl_error_name(CL_MEM_OBJECT_ALLOCATION_FAILURE),
               "CL_MEM_OBJECT_ALLOCATION_FAILURE", "error names come from the code");
    ASSERT_STR(ra__cl_error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR", "the loader's own code");
    ASSERT_STR(ra__cl_error_name(-9999), "CL_UNKNOWN_ERROR", "an unknown code");
    int st = ra__cl_fail(ctx, CL_MEM_OBJECT_ALLOCATION_FAILURE, "clCreateBuffer", NULL);
    ASSERT_STATUS(ctx, st, RA_E_NOMEM, "ra__cl_fail returns the mapped status");
    CHECK(strstr(ra_ctx_message(ctx), "clCreateBuffer") &&
              strstr(ra_ctx_message(ctx), "CL_MEM_OBJECT_ALLOCATION_FAILURE"),
          "the detail names the call and the OpenCL error: \"%s\"", ra_ctx_message(ctx));
}

/* Runs op on two fresh arrays of dtype t on dev; returns the status. */
static int run_op(ra_ctx *ctx, ra_device dev, ra_dtype t, int which)
{
    const int64_t n = 16;
    ra_array *a = NULL, *r = NULL;
    int st = ra_ones(ctx, &n, 1, &(ra_opts){.dtype = t, .device_value = &dev}, &a);
    if (st == RA_OK) {
        if (which == 0)
            st = ra_binary(ctx, RA_ADD, ra_operand_array(a), ra_operand_array(a), &r);
        else if (which == 1)
            st = ra_binary(ctx, RA_SUBTRACT, ra_operand_array(a), ra_operand_array(a), &r);
        else
            st = ra_reduce(ctx, RA_SUM, a, NULL, &r);
    }
    ra_array_release(a);
    ra_array_release(r);
    return st;
}

static void test_kernel_cache(void)
{
    ra_ctx *ctx = NULL, *ctx2 = NULL;
    ra_device gpus[4];
    if (ra_ctx_create(NULL, &ctx) != RA_OK) return;
    size_t ngpu = gpu_devices(ctx, gpus, 4);
    if (ngpu == 0) {
        skip_part("no OpenCL device is available", "kernel cache");
        ra_ctx_destroy(ctx);
        return;
    }
    unsigned long b0 = ra__cl_total_builds();
    int st = run_op(ctx, gpus[0], RA_FLOAT32, 0);
    ASSERT_STATUS(ctx, st, RA_OK, "add float32 on gpu:0");
    ASSERT_INT(ra__cl_total_builds() - b0, 1, "the first add float32 builds one program");
    for (int i = 0; i < 5; i++)
        run_op(ctx, gpus[0], RA_FLOAT32, 0);
    ASSERT_INT(ra__cl_total_builds() - b0, 1, "five more adds build nothing (cache hit)");
    run_op(ctx, gpus[0], RA_FLOAT32, 1);
    ASSERT_INT(ra__cl_total_builds() - b0, 1,
               "subtract float32 shares the binary program of float32");
    run_op(ctx, gpus[0], RA_INT32, 0);
    ASSERT_INT(ra__cl_total_builds() - b0, 2, "add int32 builds the binary program of int32");
    run_op(ctx, gpus[0], RA_FLOAT32, 2);
    ASSERT_INT(ra__cl_total_builds() - b0, 3, "sum float32 builds the reduce program");
    run_op(ctx, gpus[0], RA_FLOAT32, 2);
    ASSERT_INT(ra__cl_total_builds() - b0, 3, "a second sum builds nothing");
    if (ngpu > 1) {
        run_op(ctx, gpus[1], RA_FLOAT32, 0);
        ASSERT_INT(ra__cl_total_builds() - b0, 4, "gpu:1 builds its own program");
    } else {
        skip_part("needs two OpenCL devices", "gpu:1 builds its own program");
    }
    unsigned long b1 = ra__cl_total_builds();
    if (ra_ctx_create(NULL, &ctx2) == RA_OK) {
        run_op(ctx2, gpus[0], RA_FLOAT32, 0);
        ASSERT_INT(ra__cl_total_builds() - b1, 1, "another context builds its own program");
        run_op(ctx2, gpus[0], RA_FLOAT32, 0);
        ASSERT_INT(ra__cl_total_builds() - b1, 1, "and then reuses it");
        ra_ctx_destroy(ctx2);
    }
    ra_ctx_destroy(ctx);
}

/* A real out-of-memory error from the driver, through the mapping: ask the device's own
 * OpenCL context for a buffer of twice the device's memory. PoCL refuses it
 * (CL_INVALID_BUFFER_SIZE); a driver that accepts it lazily is not made to touch it, which
 * could exhaust the machine. */
static void test_driver_out_of_memory(void)
{
    ra_ctx *ctx = NULL;
    ra_device gpus[1];
    if (ra_ctx_create(NULL, &ctx) != RA_OK) return;
    if (gpu_devices(ctx, gpus, 1) == 0) {
        skip_part("no OpenCL device is available", "driver out of memory maps to MemoryError");
        ra_ctx_destroy(ctx);
        return;
    }
    void *q = NULL;
    cl_context clctx = NULL;
    cl_device_id dev = NULL;
    cl_ulong global = 0;
    cl_int err = CL_INVALID_VALUE;
    if (ra_device_default_stream(ctx, gpus[0], &q) == RA_OK &&
        clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof clctx, &clctx, NULL) == CL_SUCCESS &&
        clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) == CL_SUCCESS &&
        clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL) ==
            CL_SUCCESS) {
        cl_mem m = clCreateBuffer(clctx, CL_MEM_READ_WRITE, (size_t)global * 2, NULL, &err);
        if (m) clReleaseMemObject(m);
    }
    if (err == CL_SUCCESS) {
        skip_part("the driver accepted the buffer lazily; it is not touched here",
                  "driver out of memory maps to MemoryError");
    } else {
        int st = ra__cl_fail(ctx, err, "clCreateBuffer", NULL);
        CHECK(st == RA_E_NOMEM && strcmp(ra_status_kind(st), "MemoryError") == 0,
              "gpu:0 refusing %llu bytes (%s) is RA_E_NOMEM, a MemoryError",
              (unsigned long long)global * 2, ra__cl_error_name(err));
    }
    ra_ctx_destroy(ctx);
}

/* The order of gpu:N: GPUs, then accelerators, then CPUs; then platform name, vendor,
 * loader order, device order. Checked on made-up entries, since one machine rarely has
 * several kinds of OpenCL devices. */
static void test_device_order(void)
{
    ra__cl_candidate c[5];
    memset(c, 0, sizeof c);
    /* As a loader might list them: PoCL's CPU first, then two GPUs of a vendor platform
     * and an accelerator. */
    const struct {
        const char *name;
        int rank;
        cl_uint porder, dorder;
    } in[5] = {
        {"Portable Computing Language", 2, 0, 0},      /* 1: PoCL cpu 0 */
        {"Portable Computing Language", 2, 0, 1},      /* 2: PoCL cpu 1 */
        {"NVIDIA CUDA", 0, 1, 1},                      /* 3: NVIDIA gpu 1 */
        {"NVIDIA CUDA", 0, 1, 0},                      /* 4: NVIDIA gpu 0 */
        {"Intel(R) FPGA Emulation Platform", 1, 2, 0}, /* 5: an accelerator */
    };
    for (int i = 0; i < 5; i++) {
        snprintf(c[i].platform_name, sizeof c[i].platform_name, "%s", in[i].name);
        c[i].type_rank = in[i].rank;
        c[i].platform_order = in[i].porder;
        c[i].device_order = in[i].dorder;
        snprintf(c[i].platform_vendor, sizeof c[i].platform_vendor, "vendor");
        /* The platform field only identifies the entry here. */
        c[i].platform = (cl_platform_id)(uintptr_t)(i + 1);
    }
    qsort(c, 5, sizeof c[0], ra__cl_candidate_cmp);
    /* Expected: nvidia gpu 0 (entry 4), nvidia gpu 1 (3), fpga (5), pocl cpu 0 (1), 1 (2). */
    const uintptr_t want[5] = {4, 3, 5, 1, 2};
    bool same = true;
    for (int i = 0; i < 5; i++)
        same = same && (uintptr_t)c[i].platform == want[i];
    CHECK(same, "gpu:N order: GPUs by device order, then accelerators, then CPU devices");
    /* Two platforms of the same type rank: by platform name, whatever the loader's order. */
    ra__cl_candidate p[2];
    memset(p, 0, sizeof p);
    snprintf(p[0].platform_name, sizeof p[0].platform_name, "Zeta");
    snprintf(p[1].platform_name, sizeof p[1].platform_name, "Alpha");
    p[0].platform_order = 0;
    p[1].platform_order = 1;
    qsort(p, 2, sizeof p[0], ra__cl_candidate_cmp);
    ASSERT_STR(p[0].platform_name, "Alpha", "same device type: platforms by name, not load order");
}

DT_TEST(error_mapping)
{
    ra_ctx *ctx = NULL;
    ASSERT_STATUS(NULL, ra_ctx_create(&(ra_ctx_options){.flags = RA_CTX_NO_OPENCL}, &ctx), RA_OK,
                  "context created");
    test_error_mapping(ctx);
    ra_ctx_destroy(ctx);
}

DT_TEST(device_order)
{
    test_device_order();
}

DT_TEST(driver_out_of_memory)
{
    test_driver_out_of_memory();
}

DT_TEST(kernel_cache)
{
    test_kernel_cache();
}

DT_MAIN(DT_ENTRY(error_mapping), DT_ENTRY(device_order), DT_ENTRY(driver_out_of_memory),
        DT_ENTRY(kernel_cache))
