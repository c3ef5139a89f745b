/*
 * adapter_devices.c: refarray's adapter for devices (device values, parsing, equality, the
 * current device), the info namespace, the default device, scopes and soft mode, reset, and
 * the utilities (GPU count, cores, memory, utilisation).
 */
#include "adapter_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- devices ---- */

int refarray_new_device(ra_device d, ds_devobj *out)
{
    ra_device *p = malloc(sizeof *p);
    if (p == NULL) {
        ds_error("MemoryError", "refarray adapter: out of memory");
        return -1;
    }
    *p = d;
    *out = p;
    return 0;
}

void refarray_release_device(void *lib, ds_devobj d)
{
    free(d);
}

/* A device value for functions that take one: a handle's device, or a parsed string. None
 * is not a device in refarray's API. */
int refarray_device_value(adapter *a, ds_device d, const char *what, ra_device *out)
{
    switch (d.kind) {
    case DS_DEVICE_OBJECT:
        *out = *(const ra_device *)d.object;
        return 0;
    case DS_DEVICE_STRING: {
        /* A bare type is the current device of its type, as for a creation function's
         * device string (refarray's options; index 0 until device.set_current). */
        int st = ra_device_parse(a->ctx, d.str, out);
        if (st == RA_OK && !strchr(d.str, ':')) out->index = RA_DEVICE_INDEX_CURRENT;
        return st;
    }
    case DS_DEVICE_NONE:
        break;
    }
    ds_error("TypeError", "refarray: %s needs a device; None is not one", what);
    return -1;
}

/* The device option of a creation function: nothing, a value, or a string. */
ra_opts refarray_make_opts(ds_dtype dtype, ds_device d)
{
    ra_opts o = {.size = sizeof o};
    o.dtype = (ra_dtype)dtype;
    if (d.kind == DS_DEVICE_OBJECT)
        o.device_value = (const ra_device *)d.object;
    else if (d.kind == DS_DEVICE_STRING)
        o.device = d.str;
    return o;
}

int refarray_device_parse(void *lib, const char *text, ds_devobj *out)
{
    adapter *a = lib;
    ra_device d;
    int st = ra_device_parse(a->ctx, text, &d);
    return st != RA_OK ? st : refarray_new_device(d, out);
}

int refarray_device_describe(void *lib, ds_devobj obj, ds_device_info *out)
{
    const ra_device *d = obj;
    /* A device without an ordinal is described as the device it names now, the current
     * device of its type (OF-DEV-3: OneFlow prints device('cuda') as index 0). */
    ra_device r = *d;
    ra_device_resolve(((adapter *)lib)->ctx, *d, &r);
    int st = ra_device_format(r, out->str, sizeof out->str);
    if (st != RA_OK) return st;
    const char *type = ra_device_type_name(d->type);
    out->has_str = true;
    out->has_type = type != NULL;
    snprintf(out->type, sizeof out->type, "%s", type ? type : "");
    out->has_index = true;
    out->index = r.index;
    return 0;
}

int refarray_device_equal(void *lib, ds_devobj x, ds_devobj y, bool *out)
{
    /* Equal when they name the same device now: device('cpu') == device('cpu', 0), and
     * device('gpu') == gpu:N for the current N (OneFlow 0.9.0's equality). */
    adapter *a = lib;
    ra_device rx = *(const ra_device *)x, ry = *(const ra_device *)y;
    ra_device_resolve(a->ctx, rx, &rx);
    ra_device_resolve(a->ctx, ry, &ry);
    *out = ra_device_eq(rx, ry);
    return 0;
}

int refarray_device_from_type_index(void *lib, const char *type, int64_t index, ds_devobj *out)
{
    adapter *a = lib;
    ra_device d;
    int st = ra_device_from_type_index(a->ctx, type, index, &d);
    return st != RA_OK ? st : refarray_new_device(d, out);
}

int refarray_device_from_ordinal(void *lib, int64_t ordinal, ds_devobj *out)
{
    adapter *a = lib;
    ra_device d;
    int st = ra_device_from_ordinal(a->ctx, ordinal, &d);
    return st != RA_OK ? st : refarray_new_device(d, out);
}

int refarray_device_parse_current(void *lib, const char *text, ds_devobj *out)
{
    adapter *a = lib;
    ra_device d;
    int st = ra_device_parse_current(a->ctx, text, &d);
    return st != RA_OK ? st : refarray_new_device(d, out);
}

int refarray_device_set_current(void *lib, ds_devobj d)
{
    adapter *a = lib;
    return ra_device_set_current(a->ctx, *(const ra_device *)d);
}

int refarray_array_get_device(void *lib, ds_array x, int64_t *out)
{
    adapter *a = lib;
    int32_t ordinal = 0;
    int st = ra_array_get_device(a->ctx, x, &ordinal);
    if (st == RA_OK) *out = ordinal;
    return st;
}

/* ---- info ---- */

int refarray_info_devices(void *lib, ds_devobj *out, size_t cap, size_t *n)
{
    adapter *a = lib;
    ra_device devs[64];
    size_t count = 0;
    int st = ra_info_devices(a->ctx, devs, sizeof devs / sizeof devs[0], &count);
    if (st != RA_OK) return st;
    if (count > sizeof devs / sizeof devs[0]) {
        ds_error("RuntimeError", "refarray lists %zu devices; the adapter handles at most %zu",
                 count, sizeof devs / sizeof devs[0]);
        return -1;
    }
    *n = count;
    for (size_t i = 0; i < count && i < cap; i++)
        if (refarray_new_device(devs[i], &out[i]) < 0) return -1;
    return 0;
}

int refarray_info_default_device(void *lib, ds_devobj *out)
{
    adapter *a = lib;
    return refarray_new_device(ra_default_device(a->ctx), out);
}

int refarray_info_default_dtypes(void *lib, ds_device device, ds_default_dtypes *out)
{
    adapter *a = lib;
    ra_device d;
    ra_default_dtypes dd;
    if (device.kind != DS_DEVICE_NONE) {
        int st = refarray_device_value(a, device, "default_dtypes", &d);
        if (st != 0) return st;
    }
    int st = ra_info_default_dtypes(a->ctx, device.kind == DS_DEVICE_NONE ? NULL : &d, &dd);
    if (st != RA_OK) return st;
    out->real_floating = (ds_dtype)dd.real_floating;
    out->complex_floating = (ds_dtype)dd.complex_floating;
    out->integral = (ds_dtype)dd.integral;
    out->indexing = (ds_dtype)dd.indexing;
    return 0;
}

int refarray_info_dtypes(void *lib, ds_device device, uint32_t *out)
{
    adapter *a = lib;
    ra_device d;
    if (device.kind != DS_DEVICE_NONE) {
        int st = refarray_device_value(a, device, "dtypes", &d);
        if (st != 0) return st;
    }
    return ra_info_dtypes(a->ctx, device.kind == DS_DEVICE_NONE ? NULL : &d, 0, out);
}

/* ---- default device and soft mode ---- */

int refarray_default_get(void *lib, ds_devobj *out)
{
    adapter *a = lib;
    return refarray_new_device(ra_default_device(a->ctx), out);
}

int refarray_default_set(void *lib, ds_device device)
{
    adapter *a = lib;
    ra_device d;
    int st = refarray_device_value(a, device, "default.set", &d);
    return st != 0 ? st : ra_default_set(a->ctx, d);
}

int refarray_default_unset(void *lib)
{
    adapter *a = lib;
    return ra_default_unset(a->ctx);
}

int refarray_default_push(void *lib, ds_device device)
{
    adapter *a = lib;
    ra_device d;
    int st = refarray_device_value(a, device, "default.push", &d);
    return st != 0 ? st : ra_default_push(a->ctx, d);
}

int refarray_default_pop(void *lib)
{
    adapter *a = lib;
    return ra_default_pop(a->ctx);
}

int refarray_soft_get(void *lib, bool *out)
{
    adapter *a = lib;
    *out = ra_soft_get(a->ctx);
    return 0;
}

int refarray_soft_set(void *lib, bool enabled)
{
    adapter *a = lib;
    int st = ra_soft_set(a->ctx, enabled);
    if (st == RA_OK) a->soft_depth++;
    return st;
}

int refarray_soft_unset(void *lib)
{
    adapter *a = lib;
    int st = ra_soft_unset(a->ctx);
    if (st == RA_OK && a->soft_depth > 0) a->soft_depth--;
    return st;
}

/* Between cases: leave every scope, undo every soft.set, restore the global default. */
int refarray_reset(void *lib)
{
    adapter *a = lib;
    while (ra_default_depth(a->ctx) > 0)
        if (ra_default_pop(a->ctx) != RA_OK) break;
    /* With every scope popped, the soft-mode stack holds at most the session's own soft.set
     * entries (a pop drops what was set inside its scope, refarray.h), and unset on an empty
     * stack does nothing. */
    for (; a->soft_depth > 0; a->soft_depth--)
        ra_soft_unset(a->ctx);
    /* The current gpu back to gpu:0 (the start of a session), where there is one. */
    ra_device gpu0 = {RA_DEVICE_GPU, 0};
    if (ra_device_is_available(a->ctx, gpu0)) ra_device_set_current(a->ctx, gpu0);
    return ra_default_unset(a->ctx);
}

/* ---- utilities ---- */

int refarray_num_gpus(void *lib, int64_t *out)
{
    adapter *a = lib;
    *out = ra_util_num_gpus(a->ctx);
    return 0;
}

int refarray_num_cpu_cores(void *lib, int64_t *out)
{
    *out = ra_util_num_cpu_cores();
    return 0;
}

static int memory(adapter *a, ds_device device, bool total, int64_t *out)
{
    ra_device d;
    uint64_t bytes = 0;
    int st = refarray_device_value(a, device, total ? "total_memory" : "used_memory", &d);
    if (st != 0) return st;
    st = total ? ra_util_total_memory(a->ctx, d, &bytes) : ra_util_used_memory(a->ctx, d, &bytes);
    if (st != RA_OK) return st;
    *out = bytes > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)bytes;
    return 0;
}

int refarray_total_memory(void *lib, ds_device device, int64_t *out)
{
    return memory(lib, device, true, out);
}

int refarray_used_memory(void *lib, ds_device device, int64_t *out)
{
    return memory(lib, device, false, out);
}

int refarray_utilisation(void *lib, ds_device device, double *out)
{
    adapter *a = lib;
    ra_device d;
    int st = refarray_device_value(a, device, "utilisation", &d);
    return st != 0 ? st : ra_util_utilisation(a->ctx, d, out);
}
