/*
 * opencl_discover.c: which OpenCL devices become gpu:0, gpu:1, ... and in what order.
 *
 * refarray asks the ICD loader for every platform and every device of each (device type
 * ALL), keeps the devices that are available and have a compiler (refarray builds its
 * kernels from source), and numbers them in this order:
 *   1. devices of type GPU, then ACCELERATOR, then all others (CPU, CUSTOM);
 *   2. within that, by platform name, then platform vendor (byte order), then the order
 *      in which the loader listed the platforms;
 *   3. within one platform, in the platform's own device order.
 * The loaders order platforms differently (ocl-icd sorts them by device types, the Khronos
 * loader by directory order), so refarray sorts itself: the same installed drivers always
 * give the same numbering, and a real GPU comes before PoCL's CPU device when both are
 * installed. No platform at all (the loader's CL_PLATFORM_NOT_FOUND_KHR) and no device are
 * not errors: the context then has cpu only.
 *
 * REFARRAY_OPENCL_NO_FLOAT64 (a comma-separated list of gpu:N) makes the devices it names
 * look as a device without cl_khr_fp64 does: no float64 or complex128, float32 defaults,
 * kernels built without double precision. It lets the per-device dtype rules be exercised on
 * machines whose devices all have float64 (spec/decisions.md, "Devices without float64").
 */
#include "opencl.h"

#include <stdlib.h>
#include <string.h>

static int type_rank(cl_device_type type)
{
    if (type & CL_DEVICE_TYPE_GPU) return 0;
    if (type & CL_DEVICE_TYPE_ACCELERATOR) return 1;
    return 2;
}

int ra__cl_candidate_cmp(const void *pa, const void *pb)
{
    const ra__cl_candidate *a = pa, *b = pb;
    int c;
    if (a->type_rank != b->type_rank) return a->type_rank < b->type_rank ? -1 : 1;
    if ((c = strcmp(a->platform_name, b->platform_name)) != 0) return c;
    if ((c = strcmp(a->platform_vendor, b->platform_vendor)) != 0) return c;
    if (a->platform_order != b->platform_order)
        return a->platform_order < b->platform_order ? -1 : 1;
    if (a->device_order != b->device_order) return a->device_order < b->device_order ? -1 : 1;
    return 0;
}

static void platform_string(cl_platform_id p, cl_platform_info what, char *buf, size_t cap)
{
    if (clGetPlatformInfo(p, what, cap, buf, NULL) != CL_SUCCESS) buf[0] = '\0';
    buf[cap - 1] = '\0';
}

static bool device_flag(cl_device_id d, cl_device_info what)
{
    cl_bool v = CL_FALSE;
    return clGetDeviceInfo(d, what, sizeof v, &v, NULL) == CL_SUCCESS && v;
}

/* Whether the device lists extension name; *found false when it lists none. RA_E_NOMEM when
 * the list cannot be copied (an out-of-memory must not pass for an absent extension: the
 * device would open without float64). */
static int has_extension(ra_ctx *ctx, cl_device_id d, const char *name, bool *found)
{
    size_t len = 0;
    *found = false;
    if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &len) != CL_SUCCESS || len == 0)
        return RA_OK;
    char *ext = ra__alloc(ctx, len + 1);
    if (!ext)
        return ra__ctx_error(ctx, RA_E_NOMEM,
                             "out of memory reading an OpenCL device's extensions (%zu bytes)",
                             len + 1);
    if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, len, ext, NULL) == CL_SUCCESS) {
        ext[len] = '\0';
        size_t n = strlen(name);
        for (char *p = strstr(ext, name); p; p = strstr(p + 1, name)) {
            if ((p == ext || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) {
                *found = true;
                break;
            }
        }
    }
    ra__free(ctx, ext);
    return RA_OK;
}

/* Collects every usable device of every platform into *out (malloc'd; the caller frees). */
static int collect(ra_ctx *ctx, ra__cl_candidate **out, size_t *count)
{
    cl_uint nplat = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &nplat);
    *out = NULL;
    *count = 0;
    /* -1001 is CL_PLATFORM_NOT_FOUND_KHR: the loader found no driver. */
    if (err == -1001 || (err == CL_SUCCESS && nplat == 0)) return RA_OK;
    if (err != CL_SUCCESS) return ra__cl_fail(ctx, err, "clGetPlatformIDs", NULL);
    cl_platform_id *plats = ra__calloc(ctx, nplat, sizeof *plats);
    if (!plats) return ra__ctx_error(ctx, RA_E_NOMEM, "out of memory listing OpenCL platforms");
    int status = RA_OK;
    err = clGetPlatformIDs(nplat, plats, NULL);
    if (err != CL_SUCCESS) {
        status = ra__cl_fail(ctx, err, "clGetPlatformIDs", NULL);
        goto free_plats;
    }
    size_t total = 0, cap = 0;
    ra__cl_candidate *list = NULL;
    for (cl_uint p = 0; p < nplat; p++) {
        cl_uint ndev = 0;
        err = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &ndev);
        if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && ndev == 0)) continue;
        if (err != CL_SUCCESS) {
            status = ra__cl_fail(ctx, err, "clGetDeviceIDs", NULL);
            goto free_list;
        }
        cl_device_id *devs = ra__calloc(ctx, ndev, sizeof *devs);
        if (!devs) {
            status = ra__ctx_error(ctx, RA_E_NOMEM, "out of memory listing OpenCL devices");
            goto free_list;
        }
        err = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, ndev, devs, NULL);
        if (err != CL_SUCCESS) {
            ra__free(ctx, devs);
            status = ra__cl_fail(ctx, err, "clGetDeviceIDs", NULL);
            goto free_list;
        }
        for (cl_uint d = 0; d < ndev; d++) {
            if (!device_flag(devs[d], CL_DEVICE_AVAILABLE) ||
                !device_flag(devs[d], CL_DEVICE_COMPILER_AVAILABLE))
                continue;
            if (total == cap) {
                size_t ncap = cap ? cap * 2 : 8;
                ra__cl_candidate *grown = ra__calloc(ctx, ncap, sizeof *grown);
                if (!grown) {
                    ra__free(ctx, devs);
                    status = ra__ctx_error(ctx, RA_E_NOMEM, "out of memory listing devices");
                    goto free_list;
                }
                if (list) memcpy(grown, list, total * sizeof *list);
                ra__free(ctx, list);
                list = grown;
                cap = ncap;
            }
            ra__cl_candidate *c = &list[total++];
            cl_device_type type = 0;
            if (clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof type, &type, NULL) != CL_SUCCESS)
                type = CL_DEVICE_TYPE_DEFAULT;
            c->platform = plats[p];
            c->device = devs[d];
            c->platform_order = p;
            c->device_order = d;
            c->type_rank = type_rank(type);
            platform_string(plats[p], CL_PLATFORM_NAME, c->platform_name, sizeof c->platform_name);
            platform_string(plats[p], CL_PLATFORM_VENDOR, c->platform_vendor,
                            sizeof c->platform_vendor);
        }
        ra__free(ctx, devs);
    }
    if (total > 1) qsort(list, total, sizeof *list, ra__cl_candidate_cmp);
    *out = list;
    *count = total;
    goto free_plats;
free_list:
    ra__free(ctx, list);
free_plats:
    ra__free(ctx, plats);
    return status;
}

/* Fills the device facts refarray uses; the strings are informational. RA_E_NOMEM when a
 * fact cannot be read for want of memory. */
static int device_describe(ra__cl_device *dev)
{
    cl_ulong u = 0;
    cl_uint n = 0;
    cl_device_fp_config fp = 0;
    if (clGetDeviceInfo(dev->device, CL_DEVICE_NAME, sizeof dev->name, dev->name, NULL) !=
        CL_SUCCESS)
        strcpy(dev->name, "OpenCL device");
    dev->name[sizeof dev->name - 1] = '\0';
    if (clGetDeviceInfo(dev->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof u, &u, NULL) == CL_SUCCESS)
        dev->global_mem = u;
    if (clGetDeviceInfo(dev->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof u, &u, NULL) ==
        CL_SUCCESS)
        dev->max_alloc = u;
    if (clGetDeviceInfo(dev->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof n, &n, NULL) == CL_SUCCESS)
        dev->compute_units = n;
    /* float64 needs the extension and a non-empty double configuration (OpenCL 1.2 lists
     * cl_khr_fp64; some drivers report only the configuration). */
    if (clGetDeviceInfo(dev->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL) !=
        CL_SUCCESS)
        fp = 0;
    bool fp64_ext;
    int status = has_extension(dev->ctx, dev->device, "cl_khr_fp64", &fp64_ext);
    if (status != RA_OK) return status;
    dev->has_fp64 = fp64_ext && fp != 0;
    status = has_extension(dev->ctx, dev->device, "cl_khr_fp16", &dev->has_fp16);
    if (status != RA_OK) return status;
    cl_device_type type = 0;
    if (clGetDeviceInfo(dev->device, CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS)
        dev->type = type;
    if (clGetDeviceInfo(dev->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL) !=
        CL_SUCCESS)
        fp = 0;
    dev->fp32_correct_div_sqrt = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
    if (dev->global_mem == 0) dev->global_mem = dev->max_alloc;
    if (dev->max_alloc == 0 || dev->max_alloc > dev->global_mem) dev->max_alloc = dev->global_mem;
    /* The pool keeps at most a quarter of the device's memory, and at most 512 MiB. */
    dev->pool_limit = (size_t)(dev->global_mem / 4);
    if (dev->pool_limit > ((size_t)512 << 20)) dev->pool_limit = (size_t)512 << 20;
    return RA_OK;
}

static int device_open(ra_ctx *ctx, const ra__cl_candidate *c, ra__cl_device **out)
{
    cl_int err;
    int status;
    ra__cl_device *dev = ra__calloc(ctx, 1, sizeof *dev);
    if (!dev) return ra__ctx_error(ctx, RA_E_NOMEM, "out of memory opening an OpenCL device");
    dev->ctx = ctx;
    dev->platform = c->platform;
    dev->device = c->device;
    if (pthread_mutex_init(&dev->lock, NULL) != 0) {
        ra__free(ctx, dev);
        return ra__ctx_error(ctx, RA_E_BACKEND, "cannot create a mutex for an OpenCL device");
    }
    status = device_describe(dev);
    if (status != RA_OK) goto fail;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)c->platform, 0};
    dev->context = clCreateContext(props, 1, &c->device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        status = ra__cl_fail(ctx, err, "clCreateContext", dev);
        goto fail;
    }
    dev->queue = clCreateCommandQueue(dev->context, c->device, 0, &err);
    if (err != CL_SUCCESS) {
        status = ra__cl_fail(ctx, err, "clCreateCommandQueue", dev);
        goto fail;
    }
    *out = dev;
    return RA_OK;
fail:
    if (dev->context) clReleaseContext(dev->context);
    pthread_mutex_destroy(&dev->lock);
    ra__free(ctx, dev);
    return status;
}

#define NO_FP64_ENV "REFARRAY_OPENCL_NO_FLOAT64"

/* Reads NO_FP64_ENV into hide[0..count): true for each gpu:N it names. RA_E_ARG for an entry
 * that is not gpu:N, RA_E_DEVICE_UNAVAILABLE for an index without a device (a setting that
 * hides nothing would pass for one that works). */
static int no_fp64_list(ra_ctx *ctx, size_t count, bool *hide)
{
    const char *v = getenv(NO_FP64_ENV);
    if (v == NULL) return RA_OK;
    const char *p = v;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        size_t k = 4;
        unsigned long long index = 0;
        bool ok = len > 4 && strncmp(p, "gpu:", 4) == 0;
        for (; ok && k < len; k++) {
            ok = p[k] >= '0' && p[k] <= '9' && index < 1000000;
            index = index * 10 + (unsigned long long)(p[k] - '0');
        }
        if (!ok)
            return ra__ctx_error(ctx, RA_E_ARG,
                                 "%s is \"%.60s\": entry \"%.*s\" is not an OpenCL device "
                                 "gpu:N (the list is comma-separated, without spaces)",
                                 NO_FP64_ENV, v, (int)(len > 40 ? 40 : len), p);
        if (index >= count)
            return ra__ctx_error(ctx, RA_E_DEVICE_UNAVAILABLE,
                                 "%s names gpu:%llu, but there %s %zu OpenCL device%s", NO_FP64_ENV,
                                 index, count == 1 ? "is" : "are", count, count == 1 ? "" : "s");
        hide[index] = true;
        p += len + (end ? 1 : 0);
    }
    return RA_OK;
}

int ra__opencl_backend_open(ra_ctx *ctx)
{
    ra__cl_candidate *list = NULL;
    size_t count = 0;
    int status = collect(ctx, &list, &count);
    if (status != RA_OK) return status;
    bool *hide = ra__calloc(ctx, count ? count : 1, sizeof *hide);
    status = hide ? no_fp64_list(ctx, count, hide)
                  : ra__ctx_error(ctx, RA_E_NOMEM, "out of memory opening the OpenCL devices");
    for (size_t i = 0; i < count && status == RA_OK; i++) {
        ra__cl_device *dev = NULL;
        status = device_open(ctx, &list[i], &dev);
        if (status != RA_OK) break;
        if (hide[i]) dev->has_fp64 = false;
        /* The context owns dev from here on, also when adding fails. */
        status = ra__ctx_add_device(ctx, RA_DEVICE_GPU, &ra__opencl_ops, dev);
        if (status != RA_OK) break;
    }
    ra__free(ctx, hide);
    ra__free(ctx, list);
    return status;
}
