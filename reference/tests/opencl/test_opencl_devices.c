/*
 * test_opencl_devices.c: gpu:N as real OpenCL devices: discovery and order, placement by
 * device=, copies between devices, mixing devices, streams, float64 support, running out of
 * device memory, and the reuse of freed device memory.
 *
 * Checks that need two devices skip with the reason where only one exists; run with
 * POCL_DEVICES="pthread pthread" to get two PoCL devices (scripts/test.sh does).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "common.h"

#include <CL/cl.h>

static ra_ctx *ctx;
static ra_device gpus[16];
static size_t ngpu;

static const char *two_devices = "needs two OpenCL devices (POCL_DEVICES=\"pthread pthread\")";

static void test_listing(void)
{
    ra_device all[32];
    size_t count = 0;
    ASSERT_STATUS(ctx, ra_info_devices(ctx, all, 32, &count), RA_OK, "info_devices");
    /* cpu first, then gpu:0..gpu:N-1 in order (DEV-INFO-5). */
    bool ordered = count == ngpu + 1 && all[0].type == RA_DEVICE_CPU;
    for (size_t i = 1; ordered && i < count; i++)
        ordered = all[i].type == RA_DEVICE_GPU && all[i].index == (int32_t)(i - 1);
    CHECK(ordered, "devices are cpu, gpu:0 .. gpu:%zu in order", ngpu - 1);
    ASSERT_INT(ra_util_num_gpus(ctx), ngpu, "num_gpus counts the OpenCL devices");
    /* The same number as the ICD loader lists, less devices without a compiler or not
     * available (none such here: checked by counting with OpenCL directly). */
    cl_uint nplat = 0, total = 0;
    if (clGetPlatformIDs(0, NULL, &nplat) == CL_SUCCESS && nplat > 0) {
        cl_platform_id plats[16];
        clGetPlatformIDs(nplat < 16 ? nplat : 16, plats, NULL);
        for (cl_uint p = 0; p < nplat && p < 16; p++) {
            cl_uint n = 0;
            if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &n) == CL_SUCCESS) total += n;
        }
    }
    ASSERT_INT(ngpu, total, "every device the ICD loader lists is a gpu:N");
    for (size_t i = 0; i < ngpu; i++) {
        char ds[RA_DEVICE_STR_MAX];
        ra_device_props props = RA_DEVICE_PROPS_INIT;
        int st = ra_device_props_get(ctx, gpus[i], &props);
        CHECK(st == RA_OK && strcmp(props.backend, "opencl") == 0 && props.name[0] &&
                  props.total_memory > 0 && props.compute_units > 0,
              "%s: props (backend opencl, name '%s', %llu bytes, %d units)", dev_str(gpus[i], ds),
              st == RA_OK ? props.name : "?",
              st == RA_OK ? (unsigned long long)props.total_memory : 0ULL,
              st == RA_OK ? props.compute_units : 0);
        void *q = NULL;
        st = ra_device_default_stream(ctx, gpus[i], &q);
        cl_device_type type = 0;
        CHECK(st == RA_OK && q &&
                  clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof type, &type, NULL) ==
                      CL_SUCCESS,
              "%s: default stream is an OpenCL command queue", ds);
    }
}

static void test_placement(void)
{
    const int64_t shape[2] = {2, 3};
    for (size_t i = 0; i < ngpu; i++) {
        char ds[RA_DEVICE_STR_MAX], name[32];
        dev_str(gpus[i], ds);
        ra_array *x = NULL, *y = NULL, *z = NULL;
        /* DEV-CREATE-1, DEV-DS-9: device= as a string places the array there. */
        snprintf(name, sizeof name, "gpu:%d", gpus[i].index);
        int st = ra_full(ctx, shape, 2, ra_scalar_float(2.5),
                         &(ra_opts){.dtype = RA_FLOAT32, .device = name}, &x);
        ASSERT_STATUS(ctx, st, RA_OK, "full(device='%s')", name);
        if (st != RA_OK) continue;
        CHECK(ra_device_eq(ra_array_device(x), gpus[i]),
              "full(device='%s').device == %s (DEV-DS-9)", name, ds);
        float v[6] = {0};
        st = ra_array_read(ctx, x, v, sizeof v);
        CHECK(st == RA_OK && v[0] == 2.5f && v[5] == 2.5f, "full on %s holds 2.5", ds);
        /* DEV-CREATE-3: *_like inherits x's device. */
        st = ra_zeros_like(ctx, x, NULL, &y);
        CHECK(st == RA_OK && ra_device_eq(ra_array_device(y), gpus[i]),
              "zeros_like(x on %s) is on %s (DEV-CREATE-3)", ds, ds);
        /* DEV-CREATE-6: astype stays on x's device. */
        st = ra_astype(ctx, x, RA_INT32, NULL, &z);
        int32_t iv[6] = {0};
        CHECK(st == RA_OK && ra_device_eq(ra_array_device(z), gpus[i]) &&
                  ra_array_read(ctx, z, iv, sizeof iv) == RA_OK && iv[0] == 2,
              "astype(x on %s, int32) is on %s with 2 (DEV-CREATE-6)", ds, ds);
        ra_array_release(y);
        ra_array_release(z);
        /* DEV-DLP-1: kDLOpenCL (4) with the gpu index. */
        int32_t dt = 0, did = -1;
        CHECK(ra_array_dlpack_device(x, &dt, &did) == RA_OK && dt == 4 && did == gpus[i].index,
              "%s: __dlpack_device__ is (4, %d) (DEV-DLP-1)", ds, gpus[i].index);
        ra_array_release(x);
    }
    /* A gpu index past the last: ValueError kind, naming the device (DEV-DS-9). */
    char name[32];
    snprintf(name, sizeof name, "gpu:%zu", ngpu);
    ra_array *x = NULL;
    int st = ra_zeros(ctx, shape, 2, &(ra_opts){.device = name}, &x);
    ASSERT_STATUS(ctx, st, RA_E_DEVICE_UNAVAILABLE, "zeros(device='%s') is refused", name);
    ASSERT_STR(ra_status_kind(st), "ValueError", "an unavailable gpu is a ValueError");
    CHECK(x == NULL && strstr(ra_ctx_message(ctx), name) != NULL, "the message names %s: \"%s\"",
          name, ra_ctx_message(ctx));
}

/* Freed device memory is reused; a reused buffer is zeroed again where zeros are promised. */
static void test_reuse_zeroes(void)
{
    const int64_t n = 1000;
    for (size_t i = 0; i < ngpu; i++) {
        char ds[RA_DEVICE_STR_MAX];
        dev_str(gpus[i], ds);
        ra_array *x = NULL, *z = NULL;
        int st = ra_full(ctx, &n, 1, ra_scalar_int(7),
                         &(ra_opts){.dtype = RA_INT32, .device_value = &gpus[i]}, &x);
        ra_array_release(x);
        if (st == RA_OK)
            st = ra_zeros(ctx, &n, 1, &(ra_opts){.dtype = RA_INT32, .device_value = &gpus[i]}, &z);
        int32_t *v = z ? read_all(ctx, z) : NULL;
        bool zero = v != NULL;
        for (int64_t k = 0; zero && k < n; k++)
            zero = v[k] == 0;
        CHECK(st == RA_OK && zero, "%s: zeros after freeing an array of 7s of the same size is 0",
              ds);
        free(v);
        ra_array_release(z);
    }
}

static void test_two_devices(void)
{
    if (ngpu < 2) {
        skip_part(two_devices, "copies gpu:0 -> gpu:1 -> cpu (DEV-TODEV-1, DEV-TODEV-2)");
        skip_part(two_devices, "gpu:0 op gpu:1 is RA_E_DEVICE_MISMATCH naming both (DEV-DS-11)");
        skip_part(two_devices, "a stream of gpu:1 is refused for gpu:0");
        return;
    }
    const double data[5] = {1, -2, 3.5, 1e300, -0.0};
    ra_array *h = NULL, *a = NULL, *b = NULL, *back = NULL, *sum = NULL;
    const int64_t n = 5;
    int st = ra_asarray_buffer(ctx, data, RA_FLOAT64, &n, 1, &(ra_opts){.device = "cpu"}, &h);
    if (st == RA_OK) st = ra_to_device(ctx, h, gpus[0], NULL, &a);
    if (st == RA_OK) st = ra_to_device(ctx, a, gpus[1], NULL, &b);
    if (st == RA_OK) st = ra_to_device(ctx, b, RA_CPU, NULL, &back);
    CHECK(st == RA_OK && ra_device_eq(ra_array_device(b), gpus[1]) &&
              ra_device_eq(ra_array_device(back), RA_CPU) && same_values(ctx, h, back),
          "cpu -> gpu:0 -> gpu:1 -> cpu keeps every value and bit (DEV-TODEV-1, DEV-TODEV-2)");
    if (st != RA_OK) {
        printf("#   %s: %s\n", ra_status_name(st), ra_ctx_message(ctx));
        goto done;
    }
    /* DEV-DS-11: arrays on different devices raise, the message naming both. */
    st = ra_binary(ctx, RA_ADD, ra_operand_array(a), ra_operand_array(b), &sum);
    ASSERT_STATUS(ctx, st, RA_E_DEVICE_MISMATCH, "gpu:0 + gpu:1 is refused (DEV-DS-11)");
    CHECK(sum == NULL && strstr(ra_ctx_message(ctx), "gpu:0") &&
              strstr(ra_ctx_message(ctx), "gpu:1"),
          "the message names gpu:0 and gpu:1: \"%s\"", ra_ctx_message(ctx));
    st = ra_binary(ctx, RA_ADD, ra_operand_array(h), ra_operand_array(b), &sum);
    ASSERT_STATUS(ctx, st, RA_E_DEVICE_MISMATCH, "cpu + gpu:1 is refused (DEV-DS-11)");
    const ra_array *pair[2] = {a, b};
    st = ra_stack(ctx, pair, 2, 0, &sum);
    ASSERT_STATUS(ctx, st, RA_E_DEVICE_MISMATCH, "stack([gpu:0, gpu:1]) is refused (DEV-DS-11)");
    st = ra_matmul(ctx, a, b, &sum);
    ASSERT_STATUS(ctx, st, RA_E_DEVICE_MISMATCH, "matmul(gpu:0, gpu:1) is refused (DEV-DS-11)");
    /* A queue of gpu:1 is not a stream of gpu:0. */
    void *q1 = NULL;
    ra_device_default_stream(ctx, gpus[1], &q1);
    ra_array *c = NULL;
    st = ra_to_device(ctx, h, gpus[0], q1, &c);
    ASSERT_STATUS(ctx, st, RA_E_STREAM, "to_device(gpu:0, stream of gpu:1) is refused");
    ra_array_release(c);
done:
    ra_array_release(h);
    ra_array_release(a);
    ra_array_release(b);
    ra_array_release(back);
    ra_array_release(sum);
}

/* DEV-TODEV-4, DEV-TODEV-5: with a stream the copy runs on it and is complete on return. */
static void test_streams(void)
{
    ra_device g = gpus[0];
    const int64_t n = 4096;
    ra_array *h = NULL, *d = NULL, *d2 = NULL;
    int st = ra_arange(ctx, ra_scalar_int(n), NULL, NULL,
                       &(ra_opts){.dtype = RA_INT32, .device = "cpu"}, &h);
    void *q = NULL;
    if (st == RA_OK) st = ra_device_default_stream(ctx, g, &q);
    if (st == RA_OK) st = ra_to_device(ctx, h, g, q, &d);
    CHECK(st == RA_OK && same_values(ctx, h, d), "to_device(gpu:0, its default queue)");
    ra_array_release(d);
    /* A queue the caller makes on the same context and device. */
    cl_context clctx = NULL;
    cl_device_id cldev = NULL;
    cl_int err = clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof clctx, &clctx, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof cldev, &cldev, NULL);
    cl_command_queue mine = err == CL_SUCCESS ? clCreateCommandQueue(clctx, cldev, 0, &err) : NULL;
    if (!CHECK(err == CL_SUCCESS, "a caller's queue on gpu:0's context")) {
        ra_array_release(h);
        return;
    }
    st = ra_to_device(ctx, h, g, mine, &d2);
    /* Complete on return: read it back with nothing in between. */
    CHECK(st == RA_OK && same_values(ctx, h, d2),
          "to_device(gpu:0, caller's queue) is complete on return (DEV-TODEV-4, DEV-TODEV-5)");
    ra_array_release(d2);
    d2 = NULL;
    clReleaseCommandQueue(mine);
    /* Another context's queue is refused. */
    cl_context other = clCreateContext(NULL, 1, &cldev, NULL, NULL, &err);
    cl_command_queue foreign =
        err == CL_SUCCESS ? clCreateCommandQueue(other, cldev, 0, &err) : NULL;
    if (foreign) {
        st = ra_to_device(ctx, h, g, foreign, &d2);
        ASSERT_STATUS(ctx, st, RA_E_STREAM, "a queue of another OpenCL context is refused");
        ra_array_release(d2);
        clReleaseCommandQueue(foreign);
    }
    if (other) clReleaseContext(other);
    /* cpu has no streams. */
    ra_array *hc = NULL;
    ra_array *dd = NULL;
    st = ra_to_device(ctx, h, g, NULL, &dd);
    if (st == RA_OK) st = ra_to_device(ctx, dd, RA_CPU, q, &hc);
    ASSERT_STATUS(ctx, st, RA_E_STREAM, "to_device(cpu, a gpu queue) is refused");
    ra_array_release(hc);
    ra_array_release(dd);
    ra_array_release(h);
}

static bool cl_has_fp64(ra_device g)
{
    void *q = NULL;
    cl_device_id d = NULL;
    char ext[8192] = "";
    if (ra_device_default_stream(ctx, g, &q) != RA_OK ||
        clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof d, &d, NULL) != CL_SUCCESS ||
        clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL) != CL_SUCCESS)
        return false;
    return strstr(ext, "cl_khr_fp64") != NULL;
}

/* IVY-UTIL-5: an OpenCL device of type CL_DEVICE_TYPE_CPU runs on the host's processors and
 * reports the host's utilisation, a percentage; any other type cannot be measured and says so
 * (NotImplementedError kind, out untouched). */
static void test_utilisation(void)
{
    for (size_t i = 0; i < ngpu; i++) {
        char ds[RA_DEVICE_STR_MAX];
        dev_str(gpus[i], ds);
        void *q = NULL;
        cl_device_id d = NULL;
        cl_device_type type = 0;
        if (ra_device_default_stream(ctx, gpus[i], &q) != RA_OK ||
            clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof d, &d, NULL) != CL_SUCCESS ||
            clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL) != CL_SUCCESS) {
            CHECK(0, "%s: the device's OpenCL type can be read", ds);
            continue;
        }
        double pct = -1;
        int st = ra_util_utilisation(ctx, gpus[i], &pct);
        if (type & CL_DEVICE_TYPE_CPU) {
            ASSERT_STATUS(ctx, st, RA_OK, "IVY-UTIL-5 %s (an OpenCL CPU device): utilisation", ds);
            CHECK(pct >= 0 && pct <= 100, "IVY-UTIL-5 %s: %.1f%% is in [0, 100]", ds, pct);
        } else {
            ASSERT_STATUS(ctx, st, RA_E_NOT_MEASURABLE,
                          "IVY-UTIL-5 %s (not a CPU device): utilisation not measurable", ds);
            CHECK(pct == -1, "IVY-UTIL-5 %s: out untouched", ds);
        }
    }
}

/* DEV-DS-17: float64 where the device has cl_khr_fp64, a clear error where it has not. */
static void test_float64(void)
{
    for (size_t i = 0; i < ngpu; i++) {
        char ds[RA_DEVICE_STR_MAX];
        dev_str(gpus[i], ds);
        ra_device_props props = RA_DEVICE_PROPS_INIT;
        bool fp64 = cl_has_fp64(gpus[i]);
        CHECK(ra_device_props_get(ctx, gpus[i], &props) == RA_OK && props.has_float64 == fp64,
              "%s: has_float64 is %d as cl_khr_fp64 says", ds, fp64);
        ra_array *x = NULL;
        const int64_t n = 3;
        int st = ra_ones(ctx, &n, 1, &(ra_opts){.dtype = RA_FLOAT64, .device_value = &gpus[i]}, &x);
        if (fp64) {
            double v[3] = {0};
            CHECK(st == RA_OK && ra_array_dtype(x) == RA_FLOAT64 &&
                      ra_array_read(ctx, x, v, sizeof v) == RA_OK && v[2] == 1.0,
                  "%s: ones(float64) is float64 ones", ds);
            skip_part("every OpenCL device here has cl_khr_fp64",
                      "%s: float64 refused with RA_E_DTYPE_DEVICE (DEV-DS-17)", ds);
        } else {
            ASSERT_STATUS(ctx, st, RA_E_DTYPE_DEVICE,
                          "%s: float64 refused, never silently changed (DEV-DS-17)", ds);
        }
        ra_array_release(x);
    }
}

/* REFARRAY_OPENCL_NO_FLOAT64 hides float64 on the devices it names, as a device without
 * cl_khr_fp64 looks (spec/decisions.md, "Devices without float64"); a bad value is a clear
 * error of ra_ctx_create. */
static void test_no_float64_setting(void)
{
    if (ngpu < 2) {
        skip_part(two_devices, "gpu:1 without float64, gpu:0 as it was");
        return;
    }
    ASSERT_INT(setenv("REFARRAY_OPENCL_NO_FLOAT64", "gpu:1", 1), 0, "setenv");
    ra_ctx *lc = NULL;
    ASSERT_STATUS(NULL, ra_ctx_create(NULL, &lc), RA_OK, "context with gpu:1 without float64");
    ra_device_props p0 = RA_DEVICE_PROPS_INIT, p1 = RA_DEVICE_PROPS_INIT;
    CHECK(ra_device_props_get(lc, gpus[1], &p1) == RA_OK && !p1.has_float64,
          "gpu:1: has_float64 false");
    CHECK(ra_device_props_get(lc, gpus[0], &p0) == RA_OK && p0.has_float64 == cl_has_fp64(gpus[0]),
          "gpu:0: has_float64 as cl_khr_fp64 says");
    ra_array *x = NULL;
    const int64_t n = 3;
    ASSERT_STATUS(lc,
                  ra_ones(lc, &n, 1, &(ra_opts){.dtype = RA_FLOAT64, .device_value = &gpus[1]}, &x),
                  RA_E_DTYPE_DEVICE, "gpu:1: float64 refused (DEV-DS-17)");
    ASSERT_STATUS(lc, ra_ones(lc, &n, 1, &(ra_opts){.device_value = &gpus[1]}, &x), RA_OK,
                  "gpu:1: ones without dtype");
    ASSERT_INT(ra_array_dtype(x), RA_FLOAT32, "gpu:1: the default floating dtype is float32");
    float v[3] = {0};
    CHECK(ra_array_read(lc, x, v, sizeof v) == RA_OK && v[2] == 1.0f, "gpu:1: float32 ones");
    ra_array_release(x);
    ra_ctx_destroy(lc);
    static const char *const bad[] = {"gpu1", "cpu", "gpu:1 ", "gpu:", "gpu:1,,gpu:0", "gpu:-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ASSERT_INT(setenv("REFARRAY_OPENCL_NO_FLOAT64", bad[i], 1), 0, "setenv");
        lc = NULL;
        int st = ra_ctx_create(NULL, &lc);
        CHECK(st == RA_E_ARG && lc == NULL &&
                  strstr(ra_ctx_message(NULL), "REFARRAY_OPENCL_NO_FLOAT64") != NULL,
              "\"%s\" refused with RA_E_ARG naming the variable (status %d: %s)", bad[i], st,
              ra_ctx_message(NULL));
        ra_ctx_destroy(lc);
    }
    char beyond[32];
    snprintf(beyond, sizeof beyond, "gpu:%zu", ngpu);
    ASSERT_INT(setenv("REFARRAY_OPENCL_NO_FLOAT64", beyond, 1), 0, "setenv");
    lc = NULL;
    ASSERT_STATUS(NULL, ra_ctx_create(NULL, &lc), RA_E_DEVICE_UNAVAILABLE,
                  "an index without a device refused");
    ra_ctx_destroy(lc);
    unsetenv("REFARRAY_OPENCL_NO_FLOAT64");
}

/* Out of device memory is a MemoryError-kind status, never a crash, and the device works
 * afterwards. Buffers are not touched, so the machine's memory is not used up. */
static void test_out_of_memory(void)
{
    ra_device g = gpus[0];
    ra_device_props props = RA_DEVICE_PROPS_INIT;
    if (ra_device_props_get(ctx, g, &props) != RA_OK) return;
    /* 1. One array larger than the device's memory. */
    int64_t huge = (int64_t)(props.total_memory / 8) * 2; /* float64: twice the bytes */
    ra_array *x = NULL;
    int st = ra_empty(ctx, &huge, 1, &(ra_opts){.dtype = RA_FLOAT64, .device_value = &g}, &x);
    ASSERT_STATUS(ctx, st, RA_E_NOMEM, "gpu:0: an array of twice the device's memory");
    ASSERT_STR(ra_status_kind(st), "MemoryError", "out of device memory is a MemoryError");
    ra_array_release(x);
    /* 2. Arrays that each fit but together exceed the device's memory. */
    uint64_t max_alloc = 0;
    {
        void *q = NULL;
        cl_device_id d = NULL;
        cl_ulong m = 0;
        if (ra_device_default_stream(ctx, g, &q) == RA_OK &&
            clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof d, &d, NULL) == CL_SUCCESS &&
            clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof m, &m, NULL) == CL_SUCCESS)
            max_alloc = m;
    }
    if (max_alloc == 0 || max_alloc > props.total_memory) max_alloc = props.total_memory;
    int64_t each = (int64_t)(max_alloc / 8);
    ra_array *held[64] = {0};
    size_t k = 0;
    size_t limit = (size_t)(props.total_memory / (each * 8)) + 2;
    st = RA_OK;
    for (k = 0; k < limit && k < 64; k++) {
        st = ra_empty(ctx, &each, 1, &(ra_opts){.dtype = RA_FLOAT64, .device_value = &g}, &held[k]);
        if (st != RA_OK) break;
    }
    ASSERT_STATUS(ctx, st, RA_E_NOMEM,
                  "gpu:0: arrays of %lld bytes until the device's %llu bytes are used up",
                  (long long)each * 8, (unsigned long long)props.total_memory);
    CHECK(k >= 1 && (uint64_t)k * (uint64_t)each * 8 <= props.total_memory,
          "gpu:0: %zu arrays fitted before the refusal", k);
    for (size_t i = 0; i < 64; i++)
        ra_array_release(held[i]);
    /* The device works afterwards, also for an array as large as one of those (left
     * untouched, as above). */
    ra_array *y = NULL, *s = NULL;
    st = ra_empty(ctx, &each, 1, &(ra_opts){.dtype = RA_FLOAT64, .device_value = &g}, &y);
    ASSERT_STATUS(ctx, st, RA_OK, "gpu:0: the memory is available again after release");
    ra_array_release(y);
    const int64_t three = 3;
    y = NULL;
    if (st == RA_OK)
        st = ra_ones(ctx, &three, 1, &(ra_opts){.dtype = RA_FLOAT32, .device_value = &g}, &y);
    if (st == RA_OK) st = ra_reduce(ctx, RA_SUM, y, NULL, &s);
    float v = 0;
    if (st == RA_OK) st = ra_array_read(ctx, s, &v, sizeof v);
    CHECK(st == RA_OK && v == 3.0f, "gpu:0 works after running out of memory");
    ra_array_release(y);
    ra_array_release(s);
}

/* The context's limit for each device's buffers (ra_ctx_options.max_device_bytes): on a
 * context with 1 MiB a buffer past it is RA_E_NOMEM naming the limit, before any buffer is
 * created; freeing gives the bytes back (also those the device keeps for reuse); gpu:1
 * counts its own buffers; the cpu device is not counted. */
static void test_device_limit(void)
{
    ra_ctx *lc = NULL;
    ASSERT_STATUS(NULL, ra_ctx_create(RA_CTX_OPTIONS(.max_device_bytes = 1 << 20), &lc), RA_OK,
                  "a context with a 1 MiB limit on each device");
    ra_device g[2];
    size_t n = gpu_devices(lc, g, 2);
    ra_array *a = NULL, *b = NULL, *c = NULL, *d = NULL, *other = NULL, *host = NULL;
    const int64_t half = (1 << 19) / 8, quarter = (1 << 18) / 8, whole = (1 << 20) / 8;
    ra_opts f64 = {.size = sizeof f64, .dtype = RA_FLOAT64, .device_value = &g[0]};
    ASSERT_STATUS(lc, ra_zeros(lc, &half, 1, &f64, &a), RA_OK, "gpu:0: 512 KiB within the limit");
    ASSERT_STATUS(lc, ra_zeros(lc, &half, 1, &f64, &b), RA_OK,
                  "gpu:0: another 512 KiB, exactly the limit");
    ASSERT_STATUS(lc, ra_zeros(lc, &quarter, 1, &f64, &c), RA_E_NOMEM,
                  "gpu:0: 256 KiB more passes the limit");
    ASSERT_MESSAGE(lc, "device memory limit of 1048576 bytes", "the message names the limit");
    ASSERT_STR(ra_status_kind(RA_E_NOMEM), "MemoryError", "the refusal is a MemoryError");
    const int64_t huge = (int64_t)1 << 33;
    ra_opts i8 = {.size = sizeof i8, .dtype = RA_INT8, .device_value = &g[0]};
    ASSERT_STATUS(lc, ra_empty(lc, &huge, 1, &i8, &d), RA_E_NOMEM,
                  "gpu:0: 2^33 int8 is refused at once");
    /* b goes back (to the device's pool of reusable buffers, then to the driver when the
     * bytes are needed): 256 KiB fits again, and b's 512 KiB again after that is released. */
    ra_array_release(b);
    ASSERT_STATUS(lc, ra_zeros(lc, &quarter, 1, &f64, &c), RA_OK,
                  "gpu:0: memory given back counts again");
    ra_array_release(c);
    c = NULL;
    ASSERT_STATUS(lc, ra_zeros(lc, &half, 1, &f64, &c), RA_OK,
                  "gpu:0: 512 KiB again once the 256 KiB is released");
    ra_device cpu;
    ASSERT_STATUS(lc, ra_device_parse(lc, "cpu", &cpu), RA_OK, "the cpu device");
    ra_opts host_f64 = {.size = sizeof host_f64, .dtype = RA_FLOAT64, .device_value = &cpu};
    ASSERT_STATUS(lc, ra_zeros(lc, &whole, 1, &host_f64, &host), RA_OK,
                  "cpu: 1 MiB, not counted against the devices' limit");
    if (n >= 2) {
        ra_opts on1 = {.size = sizeof on1, .dtype = RA_FLOAT64, .device_value = &g[1]};
        ASSERT_STATUS(lc, ra_zeros(lc, &whole, 1, &on1, &other), RA_OK,
                      "gpu:1: a full 1 MiB of its own while gpu:0 holds 1 MiB");
    } else {
        skip_part(two_devices, "gpu:1 counts its own buffers");
    }
    ra_array_release(a);
    ra_array_release(c);
    ra_array_release(other);
    ra_array_release(host);
    ra_ctx_destroy(lc);
}

/* Runs one group on a fresh context; skips it where no OpenCL device is available. */
static void on_gpus(void (*group)(void))
{
    ASSERT_STATUS(NULL, ra_ctx_create(NULL, &ctx), RA_OK, "context created");
    ngpu = gpu_devices(ctx, gpus, 16);
    if (ngpu == 0) {
        ra_ctx_destroy(ctx);
        dt_skip("no OpenCL device is available");
    }
    group();
    ra_ctx_destroy(ctx);
}

DT_TEST(listing)
{
    on_gpus(test_listing);
}

DT_TEST(placement)
{
    on_gpus(test_placement);
}

DT_TEST(reuse_zeroes)
{
    on_gpus(test_reuse_zeroes);
}

DT_TEST(two_devices)
{
    on_gpus(test_two_devices);
}

DT_TEST(streams)
{
    on_gpus(test_streams);
}

DT_TEST(float64)
{
    on_gpus(test_float64);
}

DT_TEST(no_float64_setting)
{
    on_gpus(test_no_float64_setting);
}

DT_TEST(utilisation)
{
    on_gpus(test_utilisation);
}

DT_TEST(out_of_memory)
{
    on_gpus(test_out_of_memory);
}

DT_TEST(device_limit)
{
    on_gpus(test_device_limit);
}

DT_MAIN(DT_ENTRY(listing), DT_ENTRY(placement), DT_ENTRY(reuse_zeroes), DT_ENTRY(two_devices),
        DT_ENTRY(streams), DT_ENTRY(float64), DT_ENTRY(no_float64_setting), DT_ENTRY(utilisation),
        DT_ENTRY(out_of_memory), DT_ENTRY(device_limit))
