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
#include "devspec_shim.h"
#include "toylib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Claim only what your library really does; names come from spec/features.json. */
static const char *const features[] = {"device-eq", "to-device", NULL};

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
    if (fn != DS_ZEROS) { /* the reason is kept in the reply's message */
        ds_error("NotImplementedError", "toylib has zeros only");
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
        /* The reason is kept in the reply (the kind is ignored with DS_NOT_IMPLEMENTED). */
        ds_error("NotImplementedError", "toylib cannot convert %s data to %s",
                 ds_dtype_name(obj->dtype), ds_dtype_name(dtype));
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
};

/* Exports devspec_adapter_call and devspec_adapter_free for this table. */
DEVSPEC_SHIM_EXPORT(&table)
