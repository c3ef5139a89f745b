/*
 * TEMPLATE: a devspec adapter for "toylib", the stand-in library in this folder. Copy this
 * folder, replace toylib with your library, and fill the table below: one callback per op
 * your library can do. Every slot you leave NULL answers NotImplementedError, and the
 * runner skips the cases of features you do not claim in `features`.
 *
 * What the shim (devspec_shim) already does for you: reading and writing the JSON messages,
 * checking arguments, handles for your objects ("array#3"), typed-array encoding, error
 * replies. What you write: small functions that call your library and return 0 or a status.
 */
#include "devspec_dlpack.h" /* DLPack 1.x's structs; your own dlpack.h of 1.0 or later serves */
#include "devspec_shim.h"
#include "toylib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Claim only what your library really does; names come from spec/features.json. */
static const char *const features[] = {"device-eq", "to-device", "dlpack-device", "dlpack-export",
                                       NULL};

/* Devices are small values here, so the adapter hands out pointers to static slots and has
 * no release_device. A library with device objects would return them and release them. */
static int device_slots[TOY_NUM_DEVICES] = {0, 1};

static int open_lib(void **lib)
{
    *lib = NULL; /* toylib has no context; yours may: create it here, free it in close */
    return 0;
}

static int hello(void *lib, ds_library_info *out)
{
    (void)lib;
    out->name = "toylib";
    out->version = "0.0";
    out->features = features;
    return 0;
}

/* Turns a status of toylib into the Python exception kind the standard would raise. */
static void describe_error(void *lib, int status, const char **kind, const char **message)
{
    (void)lib;
    *kind = status == TOY_E_NOMEM ? "MemoryError" : "ValueError";
    *message = toy_last_error();
}

static void release_array(void *lib, ds_array x)
{
    (void)lib;
    toy_free(x);
}

static int device_parse(void *lib, const char *text, ds_devobj *out)
{
    (void)lib;
    int d;
    int st = toy_device_parse(text, &d);
    if (st == TOY_OK) *out = &device_slots[d];
    return st;
}

static int device_describe(void *lib, ds_devobj dev, ds_device_info *out)
{
    (void)lib;
    int d = *(int *)dev;
    out->has_str = true;
    snprintf(out->str, sizeof out->str, "toy:%d", d);
    out->has_type = true;
    snprintf(out->type, sizeof out->type, "toy");
    out->has_index = true;
    out->index = d;
    return 0;
}

static int device_equal(void *lib, ds_devobj a, ds_devobj b, bool *out)
{
    (void)lib;
    *out = *(int *)a == *(int *)b;
    return 0;
}

static int info_devices(void *lib, ds_devobj *out, size_t cap, size_t *n)
{
    (void)lib;
    *n = TOY_NUM_DEVICES;
    for (size_t i = 0; i < cap && i < TOY_NUM_DEVICES; i++)
        out[i] = &device_slots[i];
    return 0;
}

static int info_default_device(void *lib, ds_devobj *out)
{
    (void)lib;
    *out = &device_slots[0];
    return 0;
}

/* A device argument as toylib's index: a handle, a string, or None (the default). */
static int device_index(ds_device dev, int *out)
{
    if (dev.kind == DS_DEVICE_OBJECT)
        *out = *(int *)dev.object;
    else if (dev.kind == DS_DEVICE_STRING)
        return toy_device_parse(dev.str, out);
    else
        *out = 0;
    return 0;
}

static int fill(void *lib, ds_fill_fn fn, const int64_t *shape, int ndim, ds_dtype dtype,
                ds_device device, ds_array *out)
{
    (void)lib;
    int d;
    if (fn != DS_ZEROS) { /* what the library cannot do: lacking, named as the standard does */
        ds_lacks(fn == DS_ONES ? "ones" : "empty", "toylib has zeros only");
        return DS_NOT_IMPLEMENTED;
    }
    if (dtype == DS_DTYPE_NONE) dtype = DS_FLOAT64;
    int st = device_index(device, &d);
    return st ? st : toy_zeros(shape, ndim, dtype, ds_dtype_size(dtype), d, (toy_array **)out);
}

static int asarray_buffer(void *lib, const ds_buffer *obj, ds_dtype dtype, ds_device device,
                          ds_copy copy, ds_array *out)
{
    (void)lib;
    (void)copy;
    int d;
    if (dtype != DS_DTYPE_NONE && dtype != obj->dtype) {
        /* An argument value the library does not support: NAME(PARAM=VALUE). */
        char what[64];
        snprintf(what, sizeof what, "asarray(dtype=%s)", ds_dtype_name(dtype));
        ds_lacks(what, "toylib cannot convert %s data to %s", ds_dtype_name(obj->dtype),
                 ds_dtype_name(dtype));
        return DS_NOT_IMPLEMENTED;
    }
    int st = device_index(device, &d);
    return st ? st
              : toy_from_host(obj->data, obj->shape, obj->ndim, obj->dtype,
                              ds_dtype_size(obj->dtype), d, (toy_array **)out);
}

static int describe(void *lib, ds_array x, ds_array_info *out)
{
    (void)lib;
    const toy_array *a = x;
    out->device = &device_slots[a->device];
    out->dtype = (ds_dtype)a->dtype;
    out->ndim = a->ndim;
    for (int k = 0; k < a->ndim; k++)
        out->shape[k] = a->shape[k];
    return 0;
}

static int read_array(void *lib, ds_array x, void *data, size_t nbytes)
{
    (void)lib;
    const toy_array *a = x;
    if (nbytes != a->nbytes) {
        ds_error("BufferError", "read: %zu bytes asked, the array holds %zu", nbytes, a->nbytes);
        return -1;
    }
    if (nbytes > 0) memcpy(data, a->data, nbytes);
    return 0;
}

static int to_device(void *lib, ds_array x, ds_device device, ds_stream stream, ds_array *out)
{
    (void)lib;
    (void)stream;
    int d;
    if (device.kind == DS_DEVICE_NONE) {
        ds_error("TypeError", "to_device needs a device");
        return -1;
    }
    int st = device_index(device, &d);
    return st ? st : toy_to_device(x, d, (toy_array **)out);
}

/* x1 + x2 (array.binary with fn add): toylib adds two arrays of one of four dtypes. */
static int toy_element_of(ds_dtype dtype, toy_element *out)
{
    switch (dtype) {
    case DS_FLOAT32:
        *out = TOY_F32;
        return 0;
    case DS_FLOAT64:
        *out = TOY_F64;
        return 0;
    case DS_INT32:
        *out = TOY_I32;
        return 0;
    case DS_INT64:
        *out = TOY_I64;
        return 0;
    default:
        return -1;
    }
}

static int add_arrays(const char *what, ds_array x1, ds_array x2, ds_array *out)
{
    toy_element e;
    if (toy_element_of((ds_dtype)((toy_array *)x1)->dtype, &e) < 0) {
        ds_lacks(what, "toylib adds float32, float64, int32 and int64 arrays only");
        return -1;
    }
    return toy_add(x1, x2, e, (toy_array **)out);
}

static int binary(void *lib, ds_binary_fn fn, ds_operand x1, ds_operand x2, ds_array *out)
{
    (void)lib;
    if (fn != DS_ADD) { /* without ds_lacks the runner names the step's function */
        ds_error("NotImplementedError", "toylib adds two arrays, nothing else");
        return DS_NOT_IMPLEMENTED;
    }
    if (!x1.is_array || !x2.is_array) {
        ds_lacks("add(scalar)", "toylib adds two arrays, nothing else");
        return DS_NOT_IMPLEMENTED;
    }
    return add_arrays("add", x1.array, x2.array, out);
}

/* ---- DLPack (the version 7 slots): what lets you claim dlpack-export ----
 * toy:0 is host memory, DLPack's (kDLCPU, 0). toy:1 stands for an accelerator: it takes the
 * device type DLPack reserves for an extension device, (kDLExtDev, 0); the toy can read that
 * memory (it is host memory underneath), a real accelerator's import would go through its
 * own runtime. Map your library's devices onto DLPack's types here. */
static void dl_of_device(int d, int32_t dl[2])
{
    dl[0] = d == 0 ? kDLCPU : kDLExtDev;
    dl[1] = 0;
}

/* The toy device of a DLPack device, or -1. Host memory of any producer counts as toy:0. */
static int device_of_dl(int32_t type, int32_t id)
{
    if ((type == kDLCPU || type == kDLCUDAHost || type == kDLROCMHost) && id == 0) return 0;
    if (type == kDLExtDev && id == 0) return 1;
    return -1;
}

static int dlpack_device(void *lib, ds_array x, int32_t *device_type, int32_t *device_id)
{
    (void)lib;
    int32_t dl[2];
    dl_of_device(((toy_array *)x)->device, dl);
    *device_type = dl[0];
    *device_id = dl[1];
    return 0;
}

/* DLPack's element type of a protocol dtype (DLPack 1.x: bool is kDLBool, 8 bits). */
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

/* An exported tensor: the standard's struct, then what it points to (C-order strides; DLPack
 * 1.2 and later want strides even for a compact tensor). manager_ctx is the toy array. */
typedef struct toy_dl {
    DLManagedTensorVersioned t;
    int64_t strides[TOY_MAX_NDIM];
} toy_dl;

static void toy_dl_delete(DLManagedTensorVersioned *t)
{
    toy_free(t->manager_ctx);
    free(t);
}

static int dlpack_export(void *lib, ds_array x, const int32_t *dl_device, ds_copy copy,
                         const int64_t *stream, DLManagedTensorVersioned **out)
{
    (void)lib;
    toy_array *a = x, *src = NULL;
    int target = a->device;
    if (dl_device != NULL && (target = device_of_dl(dl_device[0], dl_device[1])) < 0) {
        ds_error("BufferError", "toylib cannot export to DLPack device (%d, %d)", (int)dl_device[0],
                 (int)dl_device[1]);
        return -1;
    }
    if (stream != NULL) { /* DLPack: None for kDLCPU; the toy has no streams at all */
        ds_error("ValueError", "toylib has no streams: stream must be None, not %lld",
                 (long long)*stream);
        return -1;
    }
    bool copied = copy == DS_COPY_ALWAYS || target != a->device;
    if (copied && copy == DS_COPY_NEVER) {
        ds_error("BufferError", "exporting toy:%d's array on toy:%d needs a copy and copy=False",
                 a->device, target);
        return -1;
    }
    toy_dl *d = calloc(1, sizeof *d);
    if (d == NULL) {
        ds_error("MemoryError", "out of memory");
        return -1;
    }
    if (copied) {
        int st = toy_to_device(a, target, &src);
        if (st != TOY_OK) {
            free(d);
            return st;
        }
    } else {
        src = toy_retain(a); /* the tensor shares x's buffer: x lives until the deleter */
    }
    DLManagedTensorVersioned *t = &d->t;
    t->version.major = DLPACK_MAJOR_VERSION;
    t->version.minor = DLPACK_MINOR_VERSION;
    t->manager_ctx = src;
    t->deleter = toy_dl_delete;
    /* A copy is the consumer's alone; a shared buffer is read-only (no toy op writes one). */
    t->flags = copied ? DLPACK_FLAG_BITMASK_IS_COPIED : DLPACK_FLAG_BITMASK_READ_ONLY;
    t->dl_tensor.data = src->data;
    int32_t dl[2];
    dl_of_device(src->device, dl);
    t->dl_tensor.device.device_type = (DLDeviceType)dl[0];
    t->dl_tensor.device.device_id = dl[1];
    t->dl_tensor.ndim = src->ndim;
    t->dl_tensor.dtype = dl_dtype((ds_dtype)src->dtype);
    t->dl_tensor.shape = src->shape;
    t->dl_tensor.strides = d->strides;
    for (int k = src->ndim - 1, step = 1; k >= 0; step *= (int)src->shape[k], k--)
        d->strides[k] = step;
    t->dl_tensor.byte_offset = 0;
    *out = t;
    return 0;
}

/* The producer's tensor released once its memory is no longer read (toy_wrap's owner). */
static void release_tensor(void *owner)
{
    DLManagedTensorVersioned *t = owner;
    if (t->deleter) t->deleter(t);
}

/* Copies t's elements, read by its strides, into dst in C order. */
static void gather(const DLTensor *t, size_t itemsize, unsigned char *dst)
{
    int64_t index[TOY_MAX_NDIM] = {0}, count = 1;
    for (int k = 0; k < t->ndim; k++)
        count *= t->shape[k];
    const unsigned char *base = (const unsigned char *)t->data + t->byte_offset;
    for (int64_t n = 0; n < count; n++) {
        int64_t offset = 0;
        for (int k = 0; k < t->ndim; k++)
            offset += index[k] * t->strides[k];
        memcpy(dst + (size_t)n * itemsize, base + offset * (int64_t)itemsize, itemsize);
        for (int k = t->ndim - 1; k >= 0 && ++index[k] == t->shape[k]; k--)
            index[k] = 0;
    }
}

/* Whether t's strides (NULL: C order) are C order: then its memory can be used as it is. */
static bool c_order(const DLTensor *t)
{
    int64_t step = 1;
    for (int k = t->ndim - 1; t->strides && k >= 0; k--) {
        if (t->shape[k] != 1 && t->strides[k] != step) return false;
        step *= t->shape[k];
    }
    return true;
}

/* from_dlpack of any producer's tensor: host memory (and toy:1's) is read where it is, zero
 * copy when nothing has to change, else copied; the deleter runs exactly once, when the
 * array made over it goes or before returning. */
static int dlpack_import(void *lib, DLManagedTensorVersioned *tensor, ds_device device,
                         ds_copy copy, ds_array *out)
{
    (void)lib;
    DLTensor *t = &tensor->dl_tensor;
    const char *why = NULL;
    int from = -1, to = 0;
    ds_dtype dtype = DS_DTYPE_NONE;
    if (tensor->version.major != DLPACK_MAJOR_VERSION)
        why = "a DLPack major version toylib does not read";
    else if ((dtype = dtype_of_dl(t->dtype)) == DS_DTYPE_NONE)
        why = "an element type toylib has not";
    else if (t->ndim < 0 || t->ndim > TOY_MAX_NDIM)
        why = "more dimensions than toylib holds";
    else if ((from = device_of_dl(t->device.device_type, t->device.device_id)) < 0)
        why = "memory of a device toylib cannot read";
    if (why != NULL) {
        ds_error("BufferError", "from_dlpack: the tensor is in %s (DLPack device (%d, %d))", why,
                 (int)t->device.device_type, (int)t->device.device_id);
        release_tensor(tensor);
        return -1;
    }
    int st = 0;
    if (device.kind == DS_DEVICE_NONE)
        to = from; /* device=None: where the producer has it (DEV-DLP-14) */
    else
        st = device_index(device, &to);
    bool same = to == from && c_order(t);
    if (st == 0 && !same && copy == DS_COPY_NEVER) {
        ds_error("BufferError", "from_dlpack: the tensor needs a copy onto toy:%d and copy=False",
                 to);
        st = -1;
    }
    if (st != 0) {
        release_tensor(tensor);
        return st;
    }
    size_t itemsize = ds_dtype_size(dtype);
    if (same && copy != DS_COPY_ALWAYS) /* the producer's memory, released with the array */
        return toy_wrap((unsigned char *)t->data + t->byte_offset, t->shape, t->ndim, dtype,
                        itemsize, to, release_tensor, tensor, (toy_array **)out);
    st = toy_zeros(t->shape, t->ndim, dtype, itemsize, to, (toy_array **)out);
    if (st == TOY_OK && (*(toy_array **)out)->nbytes > 0) {
        if (t->strides == NULL)
            memcpy((*(toy_array **)out)->data, (unsigned char *)t->data + t->byte_offset,
                   (*(toy_array **)out)->nbytes);
        else
            gather(t, itemsize, (*(toy_array **)out)->data);
    }
    release_tensor(tensor);
    return st;
}

/* ---- the generic call (version 8): a few of the standard's functions by name ----
 * Answer the names your library has; everything else is ds_lacks, which the runner reports
 * as lacking (never as a wrong answer). A tuple of n arrays goes where
 * ds_call_result_reserve(out, n) says, for any n (devspec_shim.h, ds_call_result). */
static int call(void *lib, const char *name, const ds_value *args, size_t nargs,
                const char *const *kwnames, const ds_value *kwargs, size_t nkw, ds_call_result *out)
{
    out->value.kind = DS_VALUE_ARRAY;
    if (!strcmp(name, "add") || !strcmp(name, "Array.__add__")) {
        if (nkw > 0) {
            char what[96];
            snprintf(what, sizeof what, "%s(%s=)", name, kwnames[0]);
            ds_lacks(what, "toylib's add takes no keyword %s", kwnames[0]);
            return -1;
        }
        if (nargs != 2 || args[0].kind != DS_VALUE_ARRAY || args[1].kind != DS_VALUE_ARRAY) {
            ds_lacks("add(scalar)", "toylib's add takes two arrays");
            return -1;
        }
        return add_arrays(name, args[0].array, args[1].array, &out->value.array);
    }
    if (!strcmp(name, "zeros")) {
        int64_t shape[TOY_MAX_NDIM];
        int ndim = 0;
        ds_dtype dtype = DS_DTYPE_NONE;
        ds_device device = {DS_DEVICE_NONE, NULL, NULL};
        const ds_value *s = nargs == 1 ? &args[0] : NULL;
        if (s != NULL && s->kind == DS_VALUE_SCALAR && s->scalar.kind == DS_SCALAR_INT) {
            shape[ndim++] = s->scalar.i;
        } else if (s != NULL && s->kind == DS_VALUE_TUPLE && s->n <= TOY_MAX_NDIM) {
            for (size_t k = 0; k < s->n; k++) {
                if (s->items[k].kind != DS_VALUE_SCALAR || s->items[k].scalar.kind != DS_SCALAR_INT)
                    break;
                shape[ndim++] = s->items[k].scalar.i;
            }
            if ((size_t)ndim != s->n) s = NULL;
        } else {
            s = NULL;
        }
        if (s == NULL) {
            ds_error("TypeError", "zeros takes one shape: an int or a tuple of at most %d ints",
                     TOY_MAX_NDIM);
            return -1;
        }
        for (size_t i = 0; i < nkw; i++) {
            if (!strcmp(kwnames[i], "dtype") && kwargs[i].kind == DS_VALUE_DTYPE)
                dtype = kwargs[i].dtype;
            else if (!strcmp(kwnames[i], "device") && kwargs[i].kind == DS_VALUE_DEVICE)
                device = kwargs[i].device;
            else if (kwargs[i].kind != DS_VALUE_NONE ||
                     (strcmp(kwnames[i], "dtype") && strcmp(kwnames[i], "device"))) {
                char what[96];
                snprintf(what, sizeof what, "zeros(%s=)", kwnames[i]);
                ds_lacks(what, "toylib's zeros takes dtype= and device= only");
                return -1;
            }
        }
        return fill(lib, DS_ZEROS, shape, ndim, dtype, device, &out->value.array);
    }
    ds_lacks(name, "toylib has no %s", name);
    return -1;
}

/* capabilities() of the inspection namespace (info.capabilities): what the library can do,
 * not what the adapter could add. toylib has no boolean indexing and no function whose
 * output shape depends on the data; it states no limit on dimensions (max_dimensions 0
 * leaves the key out, -1 answers None). */
static int info_capabilities(void *lib, ds_capabilities *out)
{
    (void)lib;
    *out = (ds_capabilities){.boolean_indexing = false, .data_dependent_shapes = false};
    return 0;
}

/* The table. version and size first; slots by name, so the order does not matter. */
static const ds_vendor table = {
    .version = DS_VENDOR_VERSION,
    .size = sizeof(ds_vendor),
    .adapter_name = "toylib-template",
    .adapter_version = "0.1",
    .open = open_lib,
    .hello = hello,
    .error = describe_error,
    .release_array = release_array,
    .device_parse = device_parse,
    .device_describe = device_describe,
    .device_equal = device_equal,
    .info_devices = info_devices,
    .info_default_device = info_default_device,
    .fill = fill,
    .asarray_buffer = asarray_buffer,
    .describe = describe,
    .read = read_array,
    .to_device = to_device,
    .binary = binary,
    .dlpack_device = dlpack_device,
    .dlpack_export = dlpack_export,
    .dlpack_import = dlpack_import,
    .call = call,
    .info_capabilities = info_capabilities,
};

/* Exports devspec_adapter_call and devspec_adapter_free for this table. */
DEVSPEC_SHIM_EXPORT(&table)
