/*
 * devspec adapter for CLBlast, an OpenCL BLAS library (Debian's libclblast-dev), written from
 * adapters/template as the vendor guide (adapters/README.md, "For vendors") tells a vendor.
 *
 * CLBlast has no arrays and no devices of its own: its routines take OpenCL buffers
 * (cl_mem) and a command queue. The adapter therefore keeps what the library leaves to its
 * caller, as a CLBlast user does:
 *   - a device is an OpenCL device that the ICD loader lists (every platform, in order), named
 *     "opencl:N" (the form the guide recommends for a library without device strings);
 *     each has a context and an in-order queue of its own. There is no host device.
 *   - an array is a buffer on one device with a dtype and a shape, reference-counted. Any
 *     dtype is stored (creation and moves are OpenCL copies); computing is CLBlast's, so only
 *     its types (float32, float64, complex64, complex128, and float16 where the device has
 *     cl_khr_fp16) compute, and every other request is answered as lacking (ds_lacks).
 *   - add and subtract are axpy over a copy, multiply is the Hadamard product (Xhad), sum is
 *     Xsum, matmul is Xgemm. No broadcasting and no mixed dtypes: BLAS has neither.
 *
 * Two gaps of CLBlast are the adapter's to close (conformance/expectations/clblast.txt and
 * adapters/clblast/repro/):
 *   - CLBlast never checks which device a buffer belongs to: a routine given buffers of two
 *     devices aborts the process in PoCL (repro/two_devices.c). The adapter checks the devices
 *     of every operand first and refuses, as the standard's mixed-device rule asks, with
 *     ValueError (DEV-MIX-*), so the library is never called with them.
 *   - Xhad with beta = 0 still reads its output buffer (repro/shad_beta_zero.c): the adapter
 *     zeroes the output before every product, so a fresh buffer's contents never leak in.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include "devspec_dlpack.h"
#include "devspec_shim.h"

#include <clblast_c.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLB_MAX_DEVICES 16
#ifndef CLB_VERSION
#define CLB_VERSION "unknown" /* the build found no pkg-config file to read it from */
#endif

/* Claim only what the library really does; names come from spec/features.json. */
static const char *const features[] = {"device-attr",
                                       "device-eq",
                                       "info-devices",
                                       "creation-device-kw",
                                       "to-device",
                                       "mixed-device-raises",
                                       "dlpack-device",
                                       "dlpack-export",
                                       "output-follows-input",
                                       "functions-elementwise",
                                       "functions-linear-algebra",
                                       "functions-statistical",
                                       NULL};

typedef struct clb_device {
    int index;
    cl_device_id id;
    cl_context context;
    cl_command_queue queue;
    bool fp16, fp64;
} clb_device;

typedef struct clb_lib {
    int ndevices;
    clb_device devices[CLB_MAX_DEVICES];
} clb_lib;

typedef struct clb_array {
    int refs;
    cl_mem mem; /* at least one byte: OpenCL has no empty buffer */
    int device;
    ds_dtype dtype;
    int ndim;
    int64_t shape[DS_MAX_NDIM];
    size_t count, nbytes;
    DLManagedTensorVersioned *owner; /* an imported tensor whose cl_mem this is, or NULL */
} clb_array;

static int cl_fail(const char *what, cl_int err)
{
    ds_error(err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
                     err == CL_OUT_OF_HOST_MEMORY
                 ? "MemoryError"
                 : "RuntimeError",
             "%s: OpenCL error %d", what, (int)err);
    return -1;
}

static int blas_fail(const char *routine, CLBlastStatusCode st)
{
    ds_error("RuntimeError", "%s: CLBlast status %d", routine, (int)st);
    return -1;
}

static bool has_extension(cl_device_id id, const char *name)
{
    char ext[8192] = "";
    clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
    return strstr(ext, name) != NULL;
}

static void close_lib(void *lib)
{
    clb_lib *L = lib;
    CLBlastClearCache(); /* the compiled programs CLBlast keeps per context */
    for (int i = 0; L && i < L->ndevices; i++) {
        if (L->devices[i].queue) clReleaseCommandQueue(L->devices[i].queue);
        if (L->devices[i].context) clReleaseContext(L->devices[i].context);
    }
    free(L);
}

static int open_lib(void **lib)
{
    cl_platform_id platforms[8];
    cl_uint nplatforms = 0;
    cl_int err = clGetPlatformIDs(8, platforms, &nplatforms);
    if (err != CL_SUCCESS || nplatforms == 0) {
        ds_error("RuntimeError", "no OpenCL platform (the ICD loader lists none: install an "
                                 "OpenCL driver, e.g. pocl-opencl-icd)");
        return -1;
    }
    clb_lib *L = calloc(1, sizeof *L);
    if (L == NULL) {
        ds_error("MemoryError", "out of memory");
        return -1;
    }
    for (cl_uint p = 0; p < nplatforms && p < 8; p++) {
        cl_device_id ids[CLB_MAX_DEVICES];
        cl_uint n = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, CLB_MAX_DEVICES, ids, &n) !=
            CL_SUCCESS)
            continue;
        for (cl_uint k = 0; k < n && L->ndevices < CLB_MAX_DEVICES; k++) {
            clb_device *d = &L->devices[L->ndevices];
            d->index = L->ndevices;
            d->id = ids[k];
            d->context = clCreateContext(NULL, 1, &ids[k], NULL, NULL, &err);
            if (err != CL_SUCCESS) break;
            d->queue = clCreateCommandQueue(d->context, ids[k], 0, &err);
            if (err != CL_SUCCESS) break;
            d->fp16 = has_extension(ids[k], "cl_khr_fp16");
            d->fp64 = has_extension(ids[k], "cl_khr_fp64");
            L->ndevices++;
        }
        if (err != CL_SUCCESS) {
            close_lib(L);
            return cl_fail("opening an OpenCL device", err);
        }
    }
    if (L->ndevices == 0) {
        close_lib(L);
        ds_error("RuntimeError", "no OpenCL device");
        return -1;
    }
    *lib = L;
    return 0;
}

static int hello(void *lib, ds_library_info *out)
{
    (void)lib;
    out->name = "CLBlast";
    out->version = CLB_VERSION;
    out->features = features;
    return 0;
}

static clb_array *retain(clb_array *a)
{
    a->refs++;
    return a;
}

static void release_array(void *lib, ds_array x)
{
    (void)lib;
    clb_array *a = x;
    if (a == NULL || --a->refs > 0) return;
    clReleaseMemObject(a->mem);
    if (a->owner && a->owner->deleter) a->owner->deleter(a->owner);
    free(a);
}

/* ---- devices: "opencl:N", the N-th device the ICD loader lists ---- */

static int parse_name(clb_lib *L, const char *text, int *out)
{
    char *end = NULL;
    if (strncmp(text, "opencl:", 7) == 0 && text[7] >= '0' && text[7] <= '9') {
        long n = strtol(text + 7, &end, 10);
        if (*end == '\0' && n >= 0 && n < L->ndevices) {
            *out = (int)n;
            return 0;
        }
    }
    ds_error("ValueError", "device '%s': not one of opencl:0 to opencl:%d", text, L->ndevices - 1);
    return -1;
}

static int device_parse(void *lib, const char *text, ds_devobj *out)
{
    clb_lib *L = lib;
    int d;
    if (parse_name(L, text, &d)) return -1;
    *out = &L->devices[d];
    return 0;
}

static int device_describe(void *lib, ds_devobj dev, ds_device_info *out)
{
    (void)lib;
    const clb_device *d = dev;
    out->has_str = true;
    snprintf(out->str, sizeof out->str, "opencl:%d", d->index);
    out->has_type = true;
    snprintf(out->type, sizeof out->type, "opencl");
    out->has_index = true;
    out->index = d->index;
    return 0;
}

static int device_equal(void *lib, ds_devobj a, ds_devobj b, bool *out)
{
    (void)lib;
    *out = a == b;
    return 0;
}

static int info_devices(void *lib, ds_devobj *out, size_t cap, size_t *n)
{
    clb_lib *L = lib;
    *n = (size_t)L->ndevices;
    for (size_t i = 0; i < cap && i < *n; i++)
        out[i] = &L->devices[i];
    return 0;
}

static int info_default_device(void *lib, ds_devobj *out)
{
    *out = &((clb_lib *)lib)->devices[0];
    return 0;
}

/* The dtypes CLBlast computes in on the device (its routines' S, D, C, Z and H forms). */
static int info_dtypes(void *lib, ds_device device, uint32_t *out)
{
    clb_lib *L = lib;
    int d = 0;
    if (device.kind == DS_DEVICE_OBJECT)
        d = ((clb_device *)device.object)->index;
    else if (device.kind == DS_DEVICE_STRING && parse_name(L, device.str, &d))
        return -1;
    *out = 1u << DS_FLOAT32 | 1u << DS_COMPLEX64;
    if (L->devices[d].fp64) *out |= 1u << DS_FLOAT64 | 1u << DS_COMPLEX128;
    if (L->devices[d].fp16) *out |= 1u << DS_FLOAT16;
    return 0;
}

/* A device argument as an index: a handle, a string, or None (opencl:0, the default). */
static int device_index(clb_lib *L, ds_device dev, int *out)
{
    if (dev.kind == DS_DEVICE_OBJECT) {
        *out = ((clb_device *)dev.object)->index;
        return 0;
    }
    if (dev.kind == DS_DEVICE_STRING) return parse_name(L, dev.str, out);
    *out = 0;
    return 0;
}

/* ---- arrays: a buffer on one device ---- */

/* A new array of dtype and shape on device d; data (nbytes of it) is written in when not
 * NULL, else the buffer is zero-filled. */
static int array_new(clb_lib *L, int d, ds_dtype dtype, const int64_t *shape, int ndim,
                     const void *data, clb_array **out)
{
    clb_array *a = calloc(1, sizeof *a);
    if (a == NULL) {
        ds_error("MemoryError", "out of memory");
        return -1;
    }
    a->refs = 1;
    a->device = d;
    a->dtype = dtype;
    a->ndim = ndim;
    a->count = 1;
    for (int k = 0; k < ndim; k++) {
        a->shape[k] = shape[k];
        a->count *= (size_t)shape[k];
    }
    a->nbytes = a->count * ds_dtype_size(dtype);
    cl_int err;
    a->mem = clCreateBuffer(L->devices[d].context, CL_MEM_READ_WRITE, a->nbytes ? a->nbytes : 1,
                            NULL, &err);
    if (err != CL_SUCCESS) {
        free(a);
        return cl_fail("clCreateBuffer", err);
    }
    cl_command_queue q = L->devices[d].queue;
    if (a->nbytes > 0) {
        static const unsigned char zero = 0;
        err = data ? clEnqueueWriteBuffer(q, a->mem, CL_TRUE, 0, a->nbytes, data, 0, NULL, NULL)
                   : clEnqueueFillBuffer(q, a->mem, &zero, 1, 0, a->nbytes, 0, NULL, NULL);
        if (err == CL_SUCCESS && data == NULL) err = clFinish(q);
    }
    if (err != CL_SUCCESS) {
        clReleaseMemObject(a->mem);
        free(a);
        return cl_fail("writing a buffer", err);
    }
    *out = a;
    return 0;
}

/* One element of value v in dtype t, at dst (ones and full). */
static void put_scalar(ds_dtype t, double v, unsigned char *dst)
{
    switch (t) {
    case DS_BOOL:
        *dst = v != 0;
        break;
    case DS_INT8:
        *(int8_t *)dst = (int8_t)v;
        break;
    case DS_INT16:
        *(int16_t *)dst = (int16_t)v;
        break;
    case DS_INT32:
        *(int32_t *)dst = (int32_t)v;
        break;
    case DS_INT64:
        *(int64_t *)dst = (int64_t)v;
        break;
    case DS_UINT8:
        *(uint8_t *)dst = (uint8_t)v;
        break;
    case DS_UINT16:
        *(uint16_t *)dst = (uint16_t)v;
        break;
    case DS_UINT32:
        *(uint32_t *)dst = (uint32_t)v;
        break;
    case DS_UINT64:
        *(uint64_t *)dst = (uint64_t)v;
        break;
    case DS_FLOAT32:
        *(float *)dst = (float)v;
        break;
    case DS_FLOAT64:
        *(double *)dst = v;
        break;
    case DS_COMPLEX64:
        ((float *)dst)[0] = (float)v;
        ((float *)dst)[1] = 0;
        break;
    case DS_COMPLEX128:
        ((double *)dst)[0] = v;
        ((double *)dst)[1] = 0;
        break;
    case DS_FLOAT16:
        *(uint16_t *)dst = v == 1 ? 0x3C00 : 0;
        break; /* ones and zeros only */
    default:
        break;
    }
}

/* A new array on device D with every element V (in DTYPE), written from the host. */
static int filled(clb_lib *L, int d, ds_dtype dtype, const int64_t *shape, int ndim, double v,
                  ds_array *out)
{
    size_t n = 1, size = ds_dtype_size(dtype);
    for (int k = 0; k < ndim; k++)
        n *= (size_t)shape[k];
    unsigned char *host = malloc(n * size + 1);
    if (host == NULL) {
        ds_error("MemoryError", "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        put_scalar(dtype, v, host + i * size);
    int st = array_new(L, d, dtype, shape, ndim, n ? host : NULL, (clb_array **)out);
    free(host);
    return st;
}

static int fill(void *lib, ds_fill_fn fn, const int64_t *shape, int ndim, ds_dtype dtype,
                ds_device device, ds_array *out)
{
    clb_lib *L = lib;
    int d;
    if (dtype == DS_DTYPE_NONE) dtype = DS_FLOAT32; /* the type every OpenCL device computes in */
    if (device_index(L, device, &d)) return -1;
    if (fn != DS_ONES) return array_new(L, d, dtype, shape, ndim, NULL, (clb_array **)out);
    return filled(L, d, dtype, shape, ndim, 1, out);
}

/* full(shape, value): the value in dtype (the value's kind's default where dtype is None). */
static int full(void *lib, const int64_t *shape, int ndim, ds_scalar value, ds_dtype dtype,
                ds_device device, ds_array *out)
{
    clb_lib *L = lib;
    int d;
    if (value.kind == DS_SCALAR_COMPLEX || (value.kind == DS_SCALAR_INT && value.u)) {
        ds_lacks("full(complex or uint64 fill_value)", "the adapter fills real values only");
        return -1;
    }
    double v = value.kind == DS_SCALAR_BOOL  ? value.b
               : value.kind == DS_SCALAR_INT ? (double)value.i
                                             : value.f;
    if (dtype == DS_DTYPE_NONE)
        dtype = value.kind == DS_SCALAR_BOOL  ? DS_BOOL
                : value.kind == DS_SCALAR_INT ? DS_INT64
                                              : DS_FLOAT32;
    if (dtype == DS_FLOAT16 && v != 0 && v != 1) {
        ds_lacks("full(float16)", "the adapter fills float16 with 0 or 1 only");
        return -1;
    }
    if (device_index(L, device, &d)) return -1;
    return filled(L, d, dtype, shape, ndim, v, out);
}

/* asarray(scalar): a 0-d array, as full with no dimensions. */
static int asarray_scalar(void *lib, ds_scalar obj, ds_dtype dtype, ds_device device, ds_copy copy,
                          ds_array *out)
{
    (void)copy;
    return full(lib, NULL, 0, obj, dtype, device, out);
}

/* arange, linspace, eye: no BLAS or OpenCL routine makes them; lacking. */
static int arange(void *lib, ds_scalar start, const ds_scalar *stop, const ds_scalar *step,
                  ds_dtype dtype, ds_device device, ds_array *out)
{
    (void)lib, (void)start, (void)stop, (void)step, (void)dtype, (void)device, (void)out;
    ds_lacks("arange", "CLBlast has no routine that makes a range");
    return -1;
}

static int linspace(void *lib, ds_scalar start, ds_scalar stop, int64_t num, bool endpoint,
                    ds_dtype dtype, ds_device device, ds_array *out)
{
    (void)lib, (void)start, (void)stop, (void)num, (void)endpoint, (void)dtype, (void)device;
    (void)out;
    ds_lacks("linspace", "CLBlast has no routine that makes a range");
    return -1;
}

static int eye(void *lib, int64_t n_rows, const int64_t *n_cols, int64_t k, ds_dtype dtype,
               ds_device device, ds_array *out)
{
    (void)lib, (void)n_rows, (void)n_cols, (void)k, (void)dtype, (void)device, (void)out;
    ds_lacks("eye", "CLBlast has no routine that makes an identity matrix");
    return -1;
}

/* tril, triu: no BLAS routine zeroes a triangle; lacking. */
static int tri(void *lib, bool upper, ds_array x, int64_t k, ds_array *out)
{
    (void)lib, (void)x, (void)k, (void)out;
    ds_lacks(upper ? "triu" : "tril", "CLBlast has no routine that takes a matrix's triangle");
    return -1;
}

/* stack: no BLAS routine; lacking (the mixed-device cases that stack say so). */
static int stack(void *lib, const ds_array *xs, size_t n, int64_t axis, ds_array *out)
{
    (void)lib, (void)xs, (void)n, (void)axis, (void)out;
    ds_lacks("stack", "CLBlast has no routine that stacks arrays");
    return -1;
}

static int asarray_buffer(void *lib, const ds_buffer *obj, ds_dtype dtype, ds_device device,
                          ds_copy copy, ds_array *out)
{
    clb_lib *L = lib;
    int d;
    if (dtype != DS_DTYPE_NONE && dtype != obj->dtype) {
        ds_lacks("asarray(dtype=)", "CLBlast has no conversion of %s data to %s",
                 ds_dtype_name(obj->dtype), ds_dtype_name(dtype));
        return -1;
    }
    if (copy == DS_COPY_NEVER) { /* host data always crosses into a device buffer */
        ds_error("ValueError", "asarray: host data onto an OpenCL device needs a copy");
        return -1;
    }
    if (device_index(L, device, &d)) return -1;
    return array_new(L, d, obj->dtype, obj->shape, obj->ndim, obj->data, (clb_array **)out);
}

static int describe(void *lib, ds_array x, ds_array_info *out)
{
    clb_lib *L = lib;
    const clb_array *a = x;
    out->device = &L->devices[a->device];
    out->dtype = a->dtype;
    out->ndim = a->ndim;
    for (int k = 0; k < a->ndim; k++)
        out->shape[k] = a->shape[k];
    return 0;
}

static int read_array(void *lib, ds_array x, void *data, size_t nbytes)
{
    clb_lib *L = lib;
    const clb_array *a = x;
    if (nbytes != a->nbytes) {
        ds_error("BufferError", "read: %zu bytes asked, the array holds %zu", nbytes, a->nbytes);
        return -1;
    }
    if (nbytes == 0) return 0;
    cl_int err = clEnqueueReadBuffer(L->devices[a->device].queue, a->mem, CL_TRUE, 0, nbytes, data,
                                     0, NULL, NULL);
    return err == CL_SUCCESS ? 0 : cl_fail("clEnqueueReadBuffer", err);
}

/* A copy of a on device d. Each device has a context of its own, so the bytes cross through
 * the host (a buffer of one context is not valid in another's queue). */
static int copy_to(clb_lib *L, const clb_array *a, int d, clb_array **out)
{
    void *host = malloc(a->nbytes + 1);
    if (host == NULL) {
        ds_error("MemoryError", "out of memory");
        return -1;
    }
    int st = read_array(L, (ds_array)a, host, a->nbytes);
    if (st == 0) st = array_new(L, d, a->dtype, a->shape, a->ndim, a->nbytes ? host : NULL, out);
    free(host);
    return st;
}

static int to_device(void *lib, ds_array x, ds_device device, ds_stream stream, ds_array *out)
{
    clb_lib *L = lib;
    clb_array *a = x;
    int d;
    (void)stream;
    if (device.kind == DS_DEVICE_NONE) {
        ds_error("TypeError", "to_device needs a device");
        return -1;
    }
    if (device_index(L, device, &d)) return -1;
    if (d == a->device) { /* the same device: x itself (spec/decisions.md, to_device) */
        *out = retain(a);
        return 0;
    }
    return copy_to(L, a, d, (clb_array **)out);
}

/* ---- computing: CLBlast's routines ---- */

/* The standard's rule for arrays on different devices (DEV-MIX-1): raise. CLBlast would be
 * called with buffers of two contexts and abort the process (repro/two_devices.c), so the
 * check is the adapter's, before any routine runs. */
static int same_device(const char *what, const clb_array *x1, const clb_array *x2)
{
    if (x1->device == x2->device) return 0;
    ds_error("ValueError",
             "%s: arrays on opencl:%d and opencl:%d (CLBlast computes on one "
             "device's buffers; move one with to_device)",
             what, x1->device, x2->device);
    return -1;
}

/* CLBlast's element type of a dtype on device d, or lacking (its S, D, C, Z and H forms). */
static int blas_type(clb_lib *L, const char *what, const clb_array *a)
{
    const clb_device *dev = &L->devices[a->device];
    bool ok = a->dtype == DS_FLOAT32 || a->dtype == DS_COMPLEX64 ||
              ((a->dtype == DS_FLOAT64 || a->dtype == DS_COMPLEX128) && dev->fp64) ||
              (a->dtype == DS_FLOAT16 && dev->fp16);
    if (ok) return 0;
    ds_lacks(what, "CLBlast has no %s routines%s", ds_dtype_name(a->dtype),
             a->dtype == DS_FLOAT16 || a->dtype == DS_FLOAT64 || a->dtype == DS_COMPLEX128
                 ? " on this device"
                 : "");
    return -1;
}

static int same_shape(const char *what, const clb_array *x1, const clb_array *x2)
{
    bool same = x1->ndim == x2->ndim && x1->dtype == x2->dtype;
    for (int k = 0; same && k < x1->ndim; k++)
        same = x1->shape[k] == x2->shape[k];
    if (same) return 0;
    char name[64];
    snprintf(name, sizeof name, "%s(%s)", what,
             x1->dtype != x2->dtype ? "mixed dtypes" : "broadcasting");
    ds_lacks(name, "BLAS takes two vectors of one type and one length");
    return -1;
}

/* y += alpha * x, alpha 1 or -1, in x's type. */
static CLBlastStatusCode axpy(const clb_array *x, cl_mem y, int sign, cl_command_queue *q)
{
    switch (x->dtype) {
    case DS_FLOAT32:
        return CLBlastSaxpy(x->count, (float)sign, x->mem, 0, 1, y, 0, 1, q, NULL);
    case DS_FLOAT64:
        return CLBlastDaxpy(x->count, sign, x->mem, 0, 1, y, 0, 1, q, NULL);
    case DS_COMPLEX64:
        return CLBlastCaxpy(x->count, (cl_float2){{(float)sign, 0}}, x->mem, 0, 1, y, 0, 1, q,
                            NULL);
    case DS_COMPLEX128:
        return CLBlastZaxpy(x->count, (cl_double2){{sign, 0}}, x->mem, 0, 1, y, 0, 1, q, NULL);
    default:
        return CLBlastHaxpy(x->count, sign > 0 ? 0x3C00 : 0xBC00, x->mem, 0, 1, y, 0, 1, q, NULL);
    }
}

/* z = x .* y (+ 0 * z: CLBlast reads z even so, so z is zeroed first). */
static CLBlastStatusCode hadamard(const clb_array *x, const clb_array *y, cl_mem z,
                                  cl_command_queue *q)
{
    size_t n = x->count;
    switch (x->dtype) {
    case DS_FLOAT32:
        return CLBlastShad(n, 1, x->mem, 0, 1, y->mem, 0, 1, 0, z, 0, 1, q, NULL);
    case DS_FLOAT64:
        return CLBlastDhad(n, 1, x->mem, 0, 1, y->mem, 0, 1, 0, z, 0, 1, q, NULL);
    case DS_COMPLEX64:
        return CLBlastChad(n, (cl_float2){{1, 0}}, x->mem, 0, 1, y->mem, 0, 1, (cl_float2){{0, 0}},
                           z, 0, 1, q, NULL);
    case DS_COMPLEX128:
        return CLBlastZhad(n, (cl_double2){{1, 0}}, x->mem, 0, 1, y->mem, 0, 1,
                           (cl_double2){{0, 0}}, z, 0, 1, q, NULL);
    default:
        return CLBlastHhad(n, 0x3C00, x->mem, 0, 1, y->mem, 0, 1, 0, z, 0, 1, q, NULL);
    }
}

static int binary(void *lib, ds_binary_fn fn, ds_operand x1, ds_operand x2, ds_array *out)
{
    clb_lib *L = lib;
    const char *what = fn == DS_ADD ? "add" : fn == DS_SUBTRACT ? "subtract" : "multiply";
    if (fn != DS_ADD && fn != DS_SUBTRACT && fn != DS_MULTIPLY) {
        static const char *const names[] = {[DS_DIVIDE] = "divide",
                                            [DS_EQUAL] = "equal",
                                            [DS_LESS] = "less",
                                            [DS_MAXIMUM] = "maximum"};
        const char *name = fn >= DS_DIVIDE && fn <= DS_MAXIMUM ? names[fn] : "binary";
        ds_lacks(name,
                 "CLBlast's elementwise routines are axpy, scal, copy and had (the "
                 "Hadamard product): none computes %s",
                 name);
        return -1;
    }
    if (!x1.is_array || !x2.is_array) {
        char name[64];
        snprintf(name, sizeof name, "%s(scalar)", what);
        ds_lacks(name, "BLAS routines take two vectors");
        return -1;
    }
    const clb_array *a = x1.array, *b = x2.array;
    if (same_device(what, a, b) || blas_type(L, what, a) || same_shape(what, a, b)) return -1;
    clb_device *dev = &L->devices[a->device];
    clb_array *r;
    int st = array_new(L, a->device, a->dtype, a->shape, a->ndim, NULL, &r);
    if (st) return st;
    CLBlastStatusCode bs = CLBlastSuccess;
    cl_int err = CL_SUCCESS;
    if (r->count > 0 && fn == DS_MULTIPLY) {
        bs = hadamard(a, b, r->mem, &dev->queue);
    } else if (r->count > 0) { /* r = x2 + x1 (add) or x1 - x2 (subtract) */
        const clb_array *base = fn == DS_ADD ? b : a, *term = fn == DS_ADD ? a : b;
        err = clEnqueueCopyBuffer(dev->queue, base->mem, r->mem, 0, 0, r->nbytes, 0, NULL, NULL);
        if (err == CL_SUCCESS) bs = axpy(term, r->mem, fn == DS_ADD ? 1 : -1, &dev->queue);
    }
    if (err == CL_SUCCESS && bs == CLBlastSuccess) err = clFinish(dev->queue);
    if (err != CL_SUCCESS || bs != CLBlastSuccess) {
        release_array(L, r);
        return err != CL_SUCCESS ? cl_fail(what, err) : blas_fail(what, bs);
    }
    *out = r;
    return 0;
}

static int extremum(clb_lib *L, bool is_max, const clb_array *a, ds_array *out); /* below */

/* sum (Xsum) and max (iXmax) over every axis, CLBlast's extras; other axes lack. */
static int reduce(void *lib, ds_reduce_fn fn, ds_array x, const int64_t *axis, ds_array *out)
{
    clb_lib *L = lib;
    const clb_array *a = x;
    if (fn == DS_MAX && axis == NULL) return extremum(L, true, a, out);
    if (fn != DS_SUM || axis != NULL) {
        ds_lacks(fn != DS_SUM ? "max(axis=)" : "sum(axis=)",
                 "CLBlast reduces a whole vector (Xsum, iXmax), never along an axis");
        return -1;
    }
    if (blas_type(L, "sum", a)) return -1;
    clb_device *dev = &L->devices[a->device];
    clb_array *r;
    int st = array_new(L, a->device, a->dtype, NULL, 0, NULL, &r);
    if (st || a->count == 0) return st ? st : (*out = r, 0);
    CLBlastStatusCode bs;
    size_t n = a->count;
    switch (a->dtype) {
    case DS_FLOAT32:
        bs = CLBlastSsum(n, r->mem, 0, a->mem, 0, 1, &dev->queue, NULL);
        break;
    case DS_FLOAT64:
        bs = CLBlastDsum(n, r->mem, 0, a->mem, 0, 1, &dev->queue, NULL);
        break;
    case DS_COMPLEX64:
        bs = CLBlastScsum(n, r->mem, 0, a->mem, 0, 1, &dev->queue, NULL);
        break;
    case DS_COMPLEX128:
        bs = CLBlastDzsum(n, r->mem, 0, a->mem, 0, 1, &dev->queue, NULL);
        break;
    default:
        bs = CLBlastHsum(n, r->mem, 0, a->mem, 0, 1, &dev->queue, NULL);
        break;
    }
    cl_int err = bs == CLBlastSuccess ? clFinish(dev->queue) : CL_SUCCESS;
    if (a->dtype == DS_COMPLEX64 || a->dtype == DS_COMPLEX128) {
        /* Scsum/Dzsum add the real and the imaginary parts' absolute values: not sum. */
        release_array(L, r);
        ds_lacks("sum(complex)", "CLBlast's complex sums (Scsum, Dzsum) add absolute values");
        return -1;
    }
    if (bs != CLBlastSuccess || err != CL_SUCCESS) {
        release_array(L, r);
        return bs != CLBlastSuccess ? blas_fail("sum", bs) : cl_fail("sum", err);
    }
    *out = r;
    return 0;
}

/* x1 @ x2 for two matrices (Xgemm, row-major). */
static int matmul(void *lib, ds_array x1, ds_array x2, ds_array *out)
{
    clb_lib *L = lib;
    const clb_array *a = x1, *b = x2;
    if (same_device("matmul", a, b) || blas_type(L, "matmul", a)) return -1;
    if (a->ndim != 2 || b->ndim != 2 || a->dtype != b->dtype) {
        ds_lacks(a->dtype != b->dtype ? "matmul(mixed dtypes)" : "matmul(ndim != 2)",
                 "CLBlast's gemm multiplies two matrices of one type");
        return -1;
    }
    if (a->shape[1] != b->shape[0]) {
        ds_error("ValueError", "matmul: shapes (%lld, %lld) and (%lld, %lld) do not align",
                 (long long)a->shape[0], (long long)a->shape[1], (long long)b->shape[0],
                 (long long)b->shape[1]);
        return -1;
    }
    size_t m = (size_t)a->shape[0], k = (size_t)a->shape[1], n = (size_t)b->shape[1];
    int64_t shape[2] = {a->shape[0], b->shape[1]};
    clb_array *r;
    int st = array_new(L, a->device, a->dtype, shape, 2, NULL, &r);
    if (st || r->count == 0 || k == 0) return st ? st : (*out = r, 0);
    clb_device *dev = &L->devices[a->device];
    cl_command_queue *q = &dev->queue;
    CLBlastStatusCode bs;
    const CLBlastLayout R = CLBlastLayoutRowMajor;
    const CLBlastTranspose N = CLBlastTransposeNo;
    switch (a->dtype) {
    case DS_FLOAT32:
        bs =
            CLBlastSgemm(R, N, N, m, n, k, 1, a->mem, 0, k, b->mem, 0, n, 0, r->mem, 0, n, q, NULL);
        break;
    case DS_FLOAT64:
        bs =
            CLBlastDgemm(R, N, N, m, n, k, 1, a->mem, 0, k, b->mem, 0, n, 0, r->mem, 0, n, q, NULL);
        break;
    case DS_COMPLEX64:
        bs = CLBlastCgemm(R, N, N, m, n, k, (cl_float2){{1, 0}}, a->mem, 0, k, b->mem, 0, n,
                          (cl_float2){{0, 0}}, r->mem, 0, n, q, NULL);
        break;
    case DS_COMPLEX128:
        bs = CLBlastZgemm(R, N, N, m, n, k, (cl_double2){{1, 0}}, a->mem, 0, k, b->mem, 0, n,
                          (cl_double2){{0, 0}}, r->mem, 0, n, q, NULL);
        break;
    default:
        bs = CLBlastHgemm(R, N, N, m, n, k, 0x3C00, a->mem, 0, k, b->mem, 0, n, 0, r->mem, 0, n, q,
                          NULL);
        break;
    }
    cl_int err = bs == CLBlastSuccess ? clFinish(*q) : CL_SUCCESS;
    if (bs != CLBlastSuccess || err != CL_SUCCESS) {
        release_array(L, r);
        return bs != CLBlastSuccess ? blas_fail("matmul", bs) : cl_fail("matmul", err);
    }
    *out = r;
    return 0;
}

/* Finishes a routine that wrote r on dev's queue: waits for it, or releases r on failure. */
static int finish(clb_lib *L, clb_device *dev, const char *what, CLBlastStatusCode bs, clb_array *r,
                  ds_array *out)
{
    cl_int err = bs == CLBlastSuccess ? clFinish(dev->queue) : CL_SUCCESS;
    if (bs != CLBlastSuccess || err != CL_SUCCESS) {
        release_array(L, r);
        return bs != CLBlastSuccess ? blas_fail(what, bs) : cl_fail(what, err);
    }
    *out = r;
    return 0;
}

/* Lacking: what for a dtype outside float32/float64 (the routines below have S and D forms
 * in CLBlast, and the adapter maps those only). */
static int real_only(const char *what, const clb_array *a)
{
    if (a->dtype == DS_FLOAT32 || a->dtype == DS_FLOAT64) return 0;
    char name[64];
    snprintf(name, sizeof name, "%s(%s)", what, ds_dtype_name(a->dtype));
    ds_lacks(name, "the adapter maps CLBlast's float32 and float64 forms of %s only", what);
    return -1;
}

/* -x: a copy scaled by -1 (Xscal). abs and sqrt have no routine. */
static int unary(void *lib, ds_unary_fn fn, ds_array x, ds_array *out)
{
    clb_lib *L = lib;
    const clb_array *a = x;
    if (fn != DS_NEGATIVE) {
        ds_lacks(fn == DS_ABS ? "abs" : "sqrt", "CLBlast has no elementwise %s",
                 fn == DS_ABS ? "absolute value" : "square root");
        return -1;
    }
    if (blas_type(L, "negative", a) || real_only("negative", a)) return -1;
    clb_device *dev = &L->devices[a->device];
    clb_array *r;
    int st = array_new(L, a->device, a->dtype, a->shape, a->ndim, NULL, &r);
    if (st || r->count == 0) return st ? st : (*out = r, 0);
    cl_int err = clEnqueueCopyBuffer(dev->queue, a->mem, r->mem, 0, 0, r->nbytes, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        release_array(L, r);
        return cl_fail("negative", err);
    }
    CLBlastStatusCode bs = a->dtype == DS_FLOAT32
                               ? CLBlastSscal(r->count, -1.0f, r->mem, 0, 1, &dev->queue, NULL)
                               : CLBlastDscal(r->count, -1.0, r->mem, 0, 1, &dev->queue, NULL);
    return finish(L, dev, "negative", bs, r, out);
}

/* max or min of a whole array: the element at the index iXmax/iXmin finds (CLBlast's
 * non-BLAS extras), copied on the device into a 0-d array. An empty array has none. */
static int extremum(clb_lib *L, bool is_max, const clb_array *a, ds_array *out)
{
    const char *what = is_max ? "max" : "min";
    if (blas_type(L, what, a) || real_only(what, a)) return -1;
    if (a->count == 0) {
        ds_error("ValueError", "%s of an empty array", what);
        return -1;
    }
    clb_device *dev = &L->devices[a->device];
    cl_int err;
    cl_mem index = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, sizeof(cl_uint), NULL, &err);
    if (err != CL_SUCCESS) return cl_fail(what, err);
    size_t n = a->count;
    cl_command_queue *q = &dev->queue;
    CLBlastStatusCode bs;
    if (a->dtype == DS_FLOAT32)
        bs = is_max ? CLBlastiSmax(n, index, 0, a->mem, 0, 1, q, NULL)
                    : CLBlastiSmin(n, index, 0, a->mem, 0, 1, q, NULL);
    else
        bs = is_max ? CLBlastiDmax(n, index, 0, a->mem, 0, 1, q, NULL)
                    : CLBlastiDmin(n, index, 0, a->mem, 0, 1, q, NULL);
    cl_uint i = 0;
    if (bs == CLBlastSuccess)
        err = clEnqueueReadBuffer(*q, index, CL_TRUE, 0, sizeof i, &i, 0, NULL, NULL);
    clReleaseMemObject(index);
    if (bs != CLBlastSuccess) return blas_fail(what, bs);
    if (err != CL_SUCCESS) return cl_fail(what, err);
    clb_array *r;
    int st = array_new(L, a->device, a->dtype, NULL, 0, NULL, &r);
    if (st) return st;
    size_t size = ds_dtype_size(a->dtype);
    err = clEnqueueCopyBuffer(*q, a->mem, r->mem, (size_t)i * size, 0, size, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        release_array(L, r);
        return cl_fail(what, err);
    }
    return finish(L, dev, what, CLBlastSuccess, r, out);
}

/* positive, and real and conj of a real array: a copy (Xcopy). */
static int copy_routine(clb_lib *L, const char *what, const clb_array *a, ds_array *out)
{
    if (blas_type(L, what, a) || real_only(what, a)) return -1;
    clb_device *dev = &L->devices[a->device];
    clb_array *r;
    int st = array_new(L, a->device, a->dtype, a->shape, a->ndim, NULL, &r);
    if (st || r->count == 0) return st ? st : (*out = r, 0);
    CLBlastStatusCode bs =
        a->dtype == DS_FLOAT32
            ? CLBlastScopy(a->count, a->mem, 0, 1, r->mem, 0, 1, &dev->queue, NULL)
            : CLBlastDcopy(a->count, a->mem, 0, 1, r->mem, 0, 1, &dev->queue, NULL);
    return finish(L, dev, what, bs, r, out);
}

/* vecdot of two vectors (Xdot): a 0-d result. */
static int vecdot(clb_lib *L, const clb_array *a, const clb_array *b, ds_array *out)
{
    if (same_device("vecdot", a, b) || blas_type(L, "vecdot", a) || real_only("vecdot", a) ||
        same_shape("vecdot", a, b))
        return -1;
    if (a->ndim != 1) {
        ds_lacks("vecdot(ndim != 1)", "CLBlast's dot takes two vectors");
        return -1;
    }
    clb_device *dev = &L->devices[a->device];
    clb_array *r;
    int st = array_new(L, a->device, a->dtype, NULL, 0, NULL, &r);
    if (st || a->count == 0) return st ? st : (*out = r, 0);
    size_t n = a->count;
    CLBlastStatusCode bs =
        a->dtype == DS_FLOAT32
            ? CLBlastSdot(n, r->mem, 0, a->mem, 0, 1, b->mem, 0, 1, &dev->queue, NULL)
            : CLBlastDdot(n, r->mem, 0, a->mem, 0, 1, b->mem, 0, 1, &dev->queue, NULL);
    return finish(L, dev, "vecdot", bs, r, out);
}

/* matrix_transpose of a matrix (Xomatcopy with a transpose). */
static int transpose(clb_lib *L, const clb_array *a, ds_array *out)
{
    if (blas_type(L, "matrix_transpose", a) || real_only("matrix_transpose", a)) return -1;
    if (a->ndim != 2) {
        ds_lacks("matrix_transpose(ndim != 2)", "CLBlast's omatcopy takes one matrix");
        return -1;
    }
    size_t m = (size_t)a->shape[0], n = (size_t)a->shape[1];
    int64_t shape[2] = {a->shape[1], a->shape[0]};
    clb_device *dev = &L->devices[a->device];
    clb_array *r;
    int st = array_new(L, a->device, a->dtype, shape, 2, NULL, &r);
    if (st || r->count == 0) return st ? st : (*out = r, 0);
    const CLBlastLayout R = CLBlastLayoutRowMajor;
    const CLBlastTranspose T = CLBlastTransposeYes;
    CLBlastStatusCode bs =
        a->dtype == DS_FLOAT32
            ? CLBlastSomatcopy(R, T, m, n, 1.0f, a->mem, 0, n, r->mem, 0, m, &dev->queue, NULL)
            : CLBlastDomatcopy(R, T, m, n, 1.0, a->mem, 0, n, r->mem, 0, m, &dev->queue, NULL);
    return finish(L, dev, "matrix_transpose", bs, r, out);
}

/* linalg.vector_norm with its defaults (the 2-norm of the whole array: Xnrm2). */
static int vector_norm(clb_lib *L, const clb_array *a, ds_array *out)
{
    if (blas_type(L, "linalg.vector_norm", a) || real_only("linalg.vector_norm", a)) return -1;
    clb_device *dev = &L->devices[a->device];
    clb_array *r;
    int st = array_new(L, a->device, a->dtype, NULL, 0, NULL, &r);
    if (st || a->count == 0) return st ? st : (*out = r, 0);
    CLBlastStatusCode bs = a->dtype == DS_FLOAT32
                               ? CLBlastSnrm2(a->count, r->mem, 0, a->mem, 0, 1, &dev->queue, NULL)
                               : CLBlastDnrm2(a->count, r->mem, 0, a->mem, 0, 1, &dev->queue, NULL);
    return finish(L, dev, "linalg.vector_norm", bs, r, out);
}

/* outer of two vectors: a zeroed matrix plus the rank-1 update x y^T (Xger). */
static int outer(clb_lib *L, const clb_array *a, const clb_array *b, ds_array *out)
{
    if (same_device("outer", a, b) || blas_type(L, "outer", a) || real_only("outer", a)) return -1;
    if (a->ndim != 1 || b->ndim != 1 || a->dtype != b->dtype) {
        ds_lacks(a->dtype != b->dtype ? "outer(mixed dtypes)" : "outer(ndim != 1)",
                 "CLBlast's ger takes two vectors of one type");
        return -1;
    }
    size_t m = a->count, n = b->count;
    int64_t shape[2] = {a->shape[0], b->shape[0]};
    clb_device *dev = &L->devices[a->device];
    clb_array *r;
    int st = array_new(L, a->device, a->dtype, shape, 2, NULL, &r);
    if (st || r->count == 0) return st ? st : (*out = r, 0);
    const CLBlastLayout R = CLBlastLayoutRowMajor;
    CLBlastStatusCode bs = a->dtype == DS_FLOAT32
                               ? CLBlastSger(R, m, n, 1.0f, a->mem, 0, 1, b->mem, 0, 1, r->mem, 0,
                                             n, &dev->queue, NULL)
                               : CLBlastDger(R, m, n, 1.0, a->mem, 0, 1, b->mem, 0, 1, r->mem, 0, n,
                                             &dev->queue, NULL);
    return finish(L, dev, "outer", bs, r, out);
}

/* ---- DLPack: opencl:N is (kDLOpenCL, N); a tensor's data is the buffer's cl_mem ---- */

static int dlpack_device(void *lib, ds_array x, int32_t *device_type, int32_t *device_id)
{
    (void)lib;
    *device_type = kDLOpenCL;
    *device_id = ((clb_array *)x)->device;
    return 0;
}

static DLDataType dl_dtype(ds_dtype d)
{
    static const DLDataType map[DS_DTYPE_COUNT] = {[DS_BOOL] = {kDLBool, 8, 1},
                                                   [DS_INT8] = {kDLInt, 8, 1},
                                                   [DS_INT16] = {kDLInt, 16, 1},
                                                   [DS_INT32] = {kDLInt, 32, 1},
                                                   [DS_INT64] = {kDLInt, 64, 1},
                                                   [DS_UINT8] = {kDLUInt, 8, 1},
                                                   [DS_UINT16] = {kDLUInt, 16, 1},
                                                   [DS_UINT32] = {kDLUInt, 32, 1},
                                                   [DS_UINT64] = {kDLUInt, 64, 1},
                                                   [DS_FLOAT32] = {kDLFloat, 32, 1},
                                                   [DS_FLOAT64] = {kDLFloat, 64, 1},
                                                   [DS_COMPLEX64] = {kDLComplex, 64, 1},
                                                   [DS_COMPLEX128] = {kDLComplex, 128, 1},
                                                   [DS_FLOAT16] = {kDLFloat, 16, 1}};
    return d > DS_DTYPE_NONE && d < DS_DTYPE_COUNT ? map[d] : (DLDataType){0, 0, 0};
}

static ds_dtype dtype_of_dl(DLDataType t)
{
    for (int d = DS_DTYPE_NONE + 1; d < DS_DTYPE_COUNT; d++) {
        DLDataType m = dl_dtype((ds_dtype)d);
        if (t.lanes == 1 && m.code == t.code && m.bits == t.bits) return (ds_dtype)d;
    }
    return DS_DTYPE_NONE;
}

/* An exported tensor: the standard's struct and its C-order strides. manager_ctx is the array
 * whose buffer data names; a copy to the host keeps its bytes in host[]. */
typedef struct clb_dl {
    DLManagedTensorVersioned t;
    int64_t strides[DS_MAX_NDIM];
    clb_lib *lib;
    unsigned char host[];
} clb_dl;

static void clb_dl_delete(DLManagedTensorVersioned *t)
{
    clb_dl *d = (clb_dl *)t;
    release_array(d->lib, t->manager_ctx);
    free(d);
}

static int dlpack_export(void *lib, ds_array x, const int32_t *dl_device, ds_copy copy,
                         const int64_t *stream, DLManagedTensorVersioned **out)
{
    clb_lib *L = lib;
    clb_array *a = x, *src = NULL;
    int target = a->device; /* an OpenCL device index, or -1 for the host */
    if (dl_device != NULL) {
        if (dl_device[0] == kDLCPU && dl_device[1] == 0)
            target = -1;
        else if (dl_device[0] == kDLOpenCL && dl_device[1] >= 0 && dl_device[1] < L->ndevices)
            target = dl_device[1];
        else {
            ds_error("BufferError", "CLBlast's arrays cannot go to DLPack device (%d, %d)",
                     (int)dl_device[0], (int)dl_device[1]);
            return -1;
        }
    }
    if (stream != NULL) { /* the adapter's queues are not exposed as streams */
        ds_error("ValueError", "the CLBlast adapter has no streams: stream must be None, not %lld",
                 (long long)*stream);
        return -1;
    }
    bool copied = copy == DS_COPY_ALWAYS || target != a->device;
    if (copied && copy == DS_COPY_NEVER) {
        ds_error("BufferError",
                 "exporting opencl:%d's array to another device needs a copy and "
                 "copy=False",
                 a->device);
        return -1;
    }
    clb_dl *d = calloc(1, sizeof *d + (target < 0 ? a->nbytes + 1 : 0));
    if (d == NULL) {
        ds_error("MemoryError", "out of memory");
        return -1;
    }
    int st = 0;
    if (target < 0)
        st = read_array(L, a, d->host, a->nbytes);
    else if (copied)
        st = copy_to(L, a, target, &src);
    if (st) {
        free(d);
        return st;
    }
    if (src == NULL) src = retain(a); /* the tensor names x's buffer, or keeps x for its shape */
    d->lib = L;
    DLManagedTensorVersioned *t = &d->t;
    t->version.major = DLPACK_MAJOR_VERSION;
    t->version.minor = DLPACK_MINOR_VERSION;
    t->manager_ctx = src;
    t->deleter = clb_dl_delete;
    t->flags = copied ? DLPACK_FLAG_BITMASK_IS_COPIED : DLPACK_FLAG_BITMASK_READ_ONLY;
    /* For (kDLOpenCL, N), data is the cl_mem itself (DLPack: "an opaque handle"), in
     * opencl:N's context; byte_offset is where the tensor starts in it. */
    t->dl_tensor.data = target < 0 ? (void *)d->host : (void *)src->mem;
    t->dl_tensor.device.device_type = target < 0 ? kDLCPU : kDLOpenCL;
    t->dl_tensor.device.device_id = target < 0 ? 0 : target;
    t->dl_tensor.ndim = src->ndim;
    t->dl_tensor.dtype = dl_dtype(src->dtype);
    t->dl_tensor.shape = src->shape;
    t->dl_tensor.strides = d->strides;
    for (int k = src->ndim - 1, step = 1; k >= 0; step *= (int)src->shape[k], k--)
        d->strides[k] = step;
    t->dl_tensor.byte_offset = 0;
    *out = t;
    return 0;
}

static void release_tensor(DLManagedTensorVersioned *t)
{
    if (t->deleter) t->deleter(t);
}

/* Whether t's strides (NULL: C order) are C order. */
static bool c_order(const DLTensor *t)
{
    int64_t step = 1;
    for (int k = t->ndim - 1; t->strides && k >= 0; k--) {
        if (t->shape[k] != 1 && t->strides[k] != step) return false;
        step *= t->shape[k];
    }
    return true;
}

/* from_dlpack: host memory ((kDLCPU, 0)) is copied onto a device; (kDLOpenCL, N)'s data is a
 * cl_mem, accepted only when the buffer's own context (clGetMemObjectInfo CL_MEM_CONTEXT) is
 * opencl:N's, so that a handle of another context or another process's pointer is refused,
 * never dereferenced. The producer's deleter runs once: when the array over its buffer goes,
 * or before returning. */
static int dlpack_import(void *lib, DLManagedTensorVersioned *tensor, ds_device device,
                         ds_copy copy, ds_array *out)
{
    clb_lib *L = lib;
    DLTensor *t = &tensor->dl_tensor;
    const char *why = NULL;
    int from = -2, to = 0;
    ds_dtype dtype = DS_DTYPE_NONE;
    cl_context ctx = NULL;
    if (tensor->version.major != DLPACK_MAJOR_VERSION)
        why = "a DLPack major version the adapter does not read";
    else if ((dtype = dtype_of_dl(t->dtype)) == DS_DTYPE_NONE)
        why = "an element type with no dtype";
    else if (t->ndim < 0 || t->ndim > DS_MAX_NDIM)
        why = "more dimensions than the protocol holds";
    else if (!c_order(t))
        why = "strides that are not C order (BLAS vectors here are contiguous)";
    else if (t->device.device_type == kDLCPU && t->device.device_id == 0)
        from = -1;
    else if (t->device.device_type == kDLOpenCL && t->device.device_id >= 0 &&
             t->device.device_id < L->ndevices)
        from = t->device.device_id;
    else
        why = "memory of a device that is not one of the adapter's";
    if (why == NULL && from >= 0 &&
        (clGetMemObjectInfo((cl_mem)t->data, CL_MEM_CONTEXT, sizeof ctx, &ctx, NULL) !=
             CL_SUCCESS ||
         ctx != L->devices[from].context))
        why = "a cl_mem that is not of the context of the device it names";
    if (why != NULL) {
        ds_error("BufferError", "from_dlpack: the tensor has %s (DLPack device (%d, %d))", why,
                 (int)t->device.device_type, (int)t->device.device_id);
        release_tensor(tensor);
        return -1;
    }
    int st = 0;
    if (device.kind == DS_DEVICE_NONE)
        to = from < 0 ? 0 : from; /* device=None: where the producer has it (DEV-DLP-14) */
    else
        st = device_index(L, device, &to);
    bool same = to == from && t->byte_offset == 0;
    if (st == 0 && !same && copy == DS_COPY_NEVER) {
        ds_error("BufferError",
                 "from_dlpack: the tensor needs a copy onto opencl:%d and "
                 "copy=False",
                 to);
        st = -1;
    }
    if (st != 0) {
        release_tensor(tensor);
        return st;
    }
    clb_array *r = NULL;
    if (same && copy != DS_COPY_ALWAYS) { /* the producer's buffer, released with the array */
        st = array_new(L, to, dtype, t->shape, t->ndim, NULL, &r);
        if (st == 0) {
            clReleaseMemObject(r->mem);
            r->mem = (cl_mem)t->data;
            clRetainMemObject(r->mem);
            r->owner = tensor;
            *out = r;
            return 0;
        }
        release_tensor(tensor);
        return st;
    }
    if (from < 0) {
        st = array_new(L, to, dtype, t->shape, t->ndim, (unsigned char *)t->data + t->byte_offset,
                       &r);
    } else { /* a producer's buffer on opencl:from, read at byte_offset, then written on `to` */
        st = array_new(L, to, dtype, t->shape, t->ndim, NULL, &r);
        void *host = st == 0 ? malloc(r->nbytes + 1) : NULL;
        cl_int err = CL_SUCCESS;
        if (st == 0 && host == NULL) {
            ds_error("MemoryError", "out of memory");
            st = -1;
        }
        if (st == 0 && r->nbytes > 0) {
            err = clEnqueueReadBuffer(L->devices[from].queue, (cl_mem)t->data, CL_TRUE,
                                      t->byte_offset, r->nbytes, host, 0, NULL, NULL);
            if (err == CL_SUCCESS)
                err = clEnqueueWriteBuffer(L->devices[to].queue, r->mem, CL_TRUE, 0, r->nbytes,
                                           host, 0, NULL, NULL);
        }
        if (err != CL_SUCCESS) st = cl_fail("from_dlpack", err);
        free(host);
        if (st && r) {
            release_array(L, r);
            r = NULL;
        }
    }
    release_tensor(tensor);
    if (st == 0) *out = r;
    return st;
}

/* ---- the generic call (version 8): the standard's functions that CLBlast computes ----
 * add, subtract, multiply and their operators, matmul and @, sum over the whole array, and
 * the creation functions the adapter's buffers make (zeros, ones, empty, full). Every other
 * name, and every keyword not taken, is lacking (ds_lacks). */

/* A shape argument: an int or a tuple of ints. */
static bool shape_of(const ds_value *v, int64_t *shape, int *ndim)
{
    *ndim = 0;
    if (v->kind == DS_VALUE_SCALAR && v->scalar.kind == DS_SCALAR_INT) {
        shape[(*ndim)++] = v->scalar.i;
        return v->scalar.i >= 0;
    }
    if (v->kind != DS_VALUE_TUPLE || v->n > DS_MAX_NDIM) return false;
    for (size_t k = 0; k < v->n; k++) {
        if (v->items[k].kind != DS_VALUE_SCALAR || v->items[k].scalar.kind != DS_SCALAR_INT ||
            v->items[k].scalar.i < 0)
            return false;
        shape[(*ndim)++] = v->items[k].scalar.i;
    }
    return true;
}

/* Lacking: name with a keyword CLBlast's routine has no counterpart for. */
static int lacks_keyword(const char *name, const char *kw)
{
    char what[96];
    snprintf(what, sizeof what, "%s(%s=)", name, kw);
    ds_lacks(what, "the adapter's %s takes no keyword %s", name, kw);
    return -1;
}

static int call_create(void *lib, const char *name, const ds_value *args, size_t nargs,
                       const char *const *kwnames, const ds_value *kwargs, size_t nkw,
                       ds_array *out)
{
    int64_t shape[DS_MAX_NDIM];
    int ndim;
    bool is_full = !strcmp(name, "full");
    ds_dtype dtype = DS_DTYPE_NONE;
    ds_device device = {DS_DEVICE_NONE, NULL, NULL};
    if (nargs != (is_full ? 2u : 1u) || !shape_of(&args[0], shape, &ndim) ||
        (is_full && args[1].kind != DS_VALUE_SCALAR)) {
        ds_error("TypeError", "%s takes a shape (an int or a tuple of ints)%s", name,
                 is_full ? " and a scalar fill_value" : "");
        return -1;
    }
    for (size_t i = 0; i < nkw; i++) {
        if (!strcmp(kwnames[i], "dtype") && kwargs[i].kind == DS_VALUE_DTYPE)
            dtype = kwargs[i].dtype;
        else if (!strcmp(kwnames[i], "device") && kwargs[i].kind == DS_VALUE_DEVICE)
            device = kwargs[i].device;
        else if (kwargs[i].kind != DS_VALUE_NONE ||
                 (strcmp(kwnames[i], "dtype") && strcmp(kwnames[i], "device")))
            return lacks_keyword(name, kwnames[i]);
    }
    if (is_full) return full(lib, shape, ndim, args[1].scalar, dtype, device, out);
    ds_fill_fn fn = !strcmp(name, "ones") ? DS_ONES : !strcmp(name, "empty") ? DS_EMPTY : DS_ZEROS;
    return fill(lib, fn, shape, ndim, dtype, device, out);
}

/* Long: the call slot is this adapter's one list of the standard functions it answers, a
 * branch per function in the order a vendor reads them; the template's call has the same
 * shape, so a vendor copying it finds each function where the template puts it. */
static int call(void *lib, const char *name, const ds_value *args, size_t nargs,
                const char *const *kwnames, const ds_value *kwargs, size_t nkw, ds_call_result *out)
{
    static const struct {
        const char *name;
        ds_binary_fn fn;
    } binaries[] = {{"add", DS_ADD},           {"Array.__add__", DS_ADD},
                    {"subtract", DS_SUBTRACT}, {"Array.__sub__", DS_SUBTRACT},
                    {"multiply", DS_MULTIPLY}, {"Array.__mul__", DS_MULTIPLY}};
    out->value.kind = DS_VALUE_ARRAY;
    if (!strcmp(name, "zeros") || !strcmp(name, "ones") || !strcmp(name, "empty") ||
        !strcmp(name, "full"))
        return call_create(lib, name, args, nargs, kwnames, kwargs, nkw, &out->value.array);
    bool two_arrays =
        nargs == 2 && args[0].kind == DS_VALUE_ARRAY && args[1].kind == DS_VALUE_ARRAY;
    for (size_t i = 0; i < sizeof binaries / sizeof binaries[0]; i++) {
        if (strcmp(name, binaries[i].name)) continue;
        if (nkw > 0) return lacks_keyword(name, kwnames[0]);
        if (!two_arrays) {
            char what[96];
            snprintf(what, sizeof what, "%s(scalar)", name);
            ds_lacks(what, "BLAS routines take two vectors");
            return -1;
        }
        ds_operand x1 = {true, args[0].array, {0}}, x2 = {true, args[1].array, {0}};
        return binary(lib, binaries[i].fn, x1, x2, &out->value.array);
    }
    if (!strcmp(name, "matmul") || !strcmp(name, "Array.__matmul__") ||
        !strcmp(name, "linalg.matmul")) {
        if (nkw > 0) return lacks_keyword(name, kwnames[0]);
        if (!two_arrays) {
            ds_error("TypeError", "%s takes two arrays", name);
            return -1;
        }
        return matmul(lib, args[0].array, args[1].array, &out->value.array);
    }
    if (!strcmp(name, "negative") || !strcmp(name, "Array.__neg__")) {
        if (nkw > 0) return lacks_keyword(name, kwnames[0]);
        if (nargs != 1 || args[0].kind != DS_VALUE_ARRAY) {
            ds_error("TypeError", "%s takes one array", name);
            return -1;
        }
        return unary(lib, DS_NEGATIVE, args[0].array, &out->value.array);
    }
    if (!strcmp(name, "positive") || !strcmp(name, "Array.__pos__") || !strcmp(name, "real") ||
        !strcmp(name, "conj")) {
        if (nkw > 0) return lacks_keyword(name, kwnames[0]);
        if (nargs != 1 || args[0].kind != DS_VALUE_ARRAY) {
            ds_error("TypeError", "%s takes one array", name);
            return -1;
        }
        return copy_routine(lib, name, args[0].array, &out->value.array);
    }
    if (!strcmp(name, "matrix_transpose") || !strcmp(name, "Array.mT") ||
        !strcmp(name, "linalg.matrix_transpose") || !strcmp(name, "linalg.vector_norm")) {
        for (size_t i = 0; i < nkw; i++)
            if (kwargs[i].kind != DS_VALUE_NONE) return lacks_keyword(name, kwnames[i]);
        if (nargs != 1 || args[0].kind != DS_VALUE_ARRAY) {
            ds_error("TypeError", "%s takes one array", name);
            return -1;
        }
        return strcmp(name, "linalg.vector_norm")
                   ? transpose(lib, args[0].array, &out->value.array)
                   : vector_norm(lib, args[0].array, &out->value.array);
    }
    if (!strcmp(name, "vecdot") || !strcmp(name, "linalg.vecdot") || !strcmp(name, "outer") ||
        !strcmp(name, "linalg.outer")) {
        for (size_t i = 0; i < nkw; i++)
            if (kwargs[i].kind != DS_VALUE_NONE &&
                !(!strcmp(kwnames[i], "axis") && kwargs[i].kind == DS_VALUE_SCALAR &&
                  kwargs[i].scalar.kind == DS_SCALAR_INT && kwargs[i].scalar.i == -1))
                return lacks_keyword(name, kwnames[i]);
        if (!two_arrays) {
            ds_error("TypeError", "%s takes two arrays", name);
            return -1;
        }
        return strstr(name, "outer") ? outer(lib, args[0].array, args[1].array, &out->value.array)
                                     : vecdot(lib, args[0].array, args[1].array, &out->value.array);
    }
    if (!strcmp(name, "max") || !strcmp(name, "min")) {
        for (size_t i = 0; i < nkw; i++)
            if (kwargs[i].kind != DS_VALUE_NONE &&
                !(!strcmp(kwnames[i], "keepdims") && kwargs[i].kind == DS_VALUE_SCALAR &&
                  kwargs[i].scalar.kind == DS_SCALAR_BOOL && !kwargs[i].scalar.b))
                return lacks_keyword(name, kwnames[i]);
        if (nargs != 1 || args[0].kind != DS_VALUE_ARRAY) {
            ds_error("TypeError", "%s takes one array", name);
            return -1;
        }
        return extremum(lib, name[1] == 'a', args[0].array, &out->value.array);
    }
    if (!strcmp(name, "sum")) {
        for (size_t i = 0; i < nkw; i++)
            if (kwargs[i].kind != DS_VALUE_NONE &&
                !(!strcmp(kwnames[i], "keepdims") && kwargs[i].kind == DS_VALUE_SCALAR &&
                  kwargs[i].scalar.kind == DS_SCALAR_BOOL && !kwargs[i].scalar.b))
                return lacks_keyword(name, kwnames[i]);
        if (nargs != 1 || args[0].kind != DS_VALUE_ARRAY) {
            ds_error("TypeError", "sum takes one array");
            return -1;
        }
        return reduce(lib, DS_SUM, args[0].array, NULL, &out->value.array);
    }
    ds_lacks(name, "CLBlast has no routine for %s", name);
    return -1;
}

/* The table. version and size first; slots by name, so the order does not matter. */
/* capabilities() (info.capabilities): CLBlast has no indexing and no function whose output
 * shape depends on the data; its routines state no limit on dimensions. */
static int info_capabilities(void *lib, ds_capabilities *out)
{
    (void)lib;
    *out = (ds_capabilities){.boolean_indexing = false, .data_dependent_shapes = false};
    return 0;
}

static const ds_vendor table = {
    .version = DS_VENDOR_VERSION,
    .size = sizeof(ds_vendor),
    .adapter_name = "clblast",
    .adapter_version = "0.1",
    .open = open_lib,
    .close = close_lib,
    .hello = hello,
    .release_array = release_array,
    .device_parse = device_parse,
    .device_describe = device_describe,
    .device_equal = device_equal,
    .info_devices = info_devices,
    .info_default_device = info_default_device,
    .info_dtypes = info_dtypes,
    .fill = fill,
    .full = full,
    .arange = arange,
    .linspace = linspace,
    .eye = eye,
    .asarray_buffer = asarray_buffer,
    .asarray_scalar = asarray_scalar,
    .describe = describe,
    .read = read_array,
    .to_device = to_device,
    .binary = binary,
    .unary = unary,
    .reduce = reduce,
    .matmul = matmul,
    .stack = stack,
    .tri = tri,
    .dlpack_device = dlpack_device,
    .dlpack_export = dlpack_export,
    .dlpack_import = dlpack_import,
    .call = call,
    .info_capabilities = info_capabilities,
};

/* Exports devspec_adapter_call and devspec_adapter_free for this table. */
DEVSPEC_SHIM_EXPORT(&table)
