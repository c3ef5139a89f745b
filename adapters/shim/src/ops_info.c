/*
 * ops_info.c: the inspection ops (info.*).
 */
#include "ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ds__op_info_devices(const ds__req *r, cJSON **result)
{
    ds_devobj *devs;
    size_t n;
    if (ds__list_devices(r, &devs, &n) < 0) return -1;
    cJSON *list = cJSON_CreateArray();
    int rc = list ? 0 : ds__oom(r);
    for (size_t i = 0; i < n; i++) {
        cJSON *h = NULL;
        if (rc < 0) {
            ds__release_obj(r, DS__H_DEVICE, devs[i]);
            continue;
        }
        /* A device the library reports as None travels as null (spec/protocol.md). */
        if (devs[i] == NULL)
            rc = ds__push(list, cJSON_CreateNull()) ? 0 : ds__oom(r);
        else if ((rc = ds__handle_result(r, DS__H_DEVICE, devs[i], false, &h)) == 0 &&
                 !ds__push(list, h))
            rc = ds__oom(r);
    }
    ds__free(devs);
    if (rc < 0) {
        cJSON_Delete(list);
        return -1;
    }
    *result = list;
    return 0;
}

int ds__op_info_default_device(const ds__req *r, cJSON **result)
{
    ds_devobj d = NULL;
    if (CALL(r, info_default_device, &d) < 0) return -1;
    return ds__device_result(r, d, result);
}

int ds__op_info_default_dtypes(const ds__req *r, cJSON **result)
{
    ds_device dev;
    ds_default_dtypes dd = {0};
    if (ds__arg_device(r, "device", false, &dev) < 0 || CALL(r, info_default_dtypes, dev, &dd) < 0)
        return -1;
    const char *rf = ds_dtype_name(dd.real_floating), *cf = ds_dtype_name(dd.complex_floating);
    const char *in = ds_dtype_name(dd.integral), *ix = ds_dtype_name(dd.indexing);
    if (!rf || !cf || !in || !ix)
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                        "%s: the callback left a default dtype unset", r->op);
    cJSON *o = cJSON_CreateObject();
    if (o == NULL || !ds__put(o, "real floating", cJSON_CreateString(rf)) ||
        !ds__put(o, "complex floating", cJSON_CreateString(cf)) ||
        !ds__put(o, "integral", cJSON_CreateString(in)) ||
        !ds__put(o, "indexing", cJSON_CreateString(ix))) {
        cJSON_Delete(o);
        return ds__oom(r);
    }
    *result = o;
    return 0;
}

/* The standard's kind= strings for dtypes(), as dtype bit sets. */
static uint32_t kind_bits(const char *kind)
{
    const uint32_t b = 1u << DS_BOOL;
    const uint32_t si = 1u << DS_INT8 | 1u << DS_INT16 | 1u << DS_INT32 | 1u << DS_INT64;
    const uint32_t ui = 1u << DS_UINT8 | 1u << DS_UINT16 | 1u << DS_UINT32 | 1u << DS_UINT64;
    const uint32_t rf = 1u << DS_FLOAT32 | 1u << DS_FLOAT64 | 1u << DS_FLOAT16;
    const uint32_t cf = 1u << DS_COMPLEX64 | 1u << DS_COMPLEX128;
    if (strcmp(kind, "bool") == 0) return b;
    if (strcmp(kind, "signed integer") == 0) return si;
    if (strcmp(kind, "unsigned integer") == 0) return ui;
    if (strcmp(kind, "integral") == 0) return si | ui;
    if (strcmp(kind, "real floating") == 0) return rf;
    if (strcmp(kind, "complex floating") == 0) return cf;
    if (strcmp(kind, "numeric") == 0) return si | ui | rf | cf;
    return 0;
}

/* A C library has no Python list or tuple and no keyword arguments: these two ops ask what
 * only a language with them can answer, so the shim answers for every C adapter that the
 * op cannot be expressed (spec/protocol.md; spec/decisions.md, "Exact values and
 * strings"). */
int ds__op_info_devices_type(const ds__req *r, cJSON **result)
{
    (void)result;
    return ds__fail(r->e, DS__ORIGIN_ADAPTER, "NotImplementedError",
                    "%s: a C library's device list is an array, neither a list nor a tuple", r->op);
}

int ds__op_info_device_param(const ds__req *r, cJSON **result)
{
    const char *fn;
    (void)result;
    if (ds__arg_string(r, "fn", &fn) < 0) return -1;
    return ds__fail(r->e, DS__ORIGIN_ADAPTER, "NotImplementedError",
                    "%s: C functions have no keyword arguments and no signature to read", r->op);
}

int ds__op_info_dtypes(const ds__req *r, cJSON **result)
{
    ds_device dev;
    uint32_t have = 0, want = 0;
    const cJSON *kind = ds__arg(r, "kind");
    if (ds__arg_device(r, "device", false, &dev) < 0) return -1;
    if (kind == NULL || cJSON_IsNull(kind)) {
        want = ~0u;
    } else if (cJSON_IsString(kind) || cJSON_IsArray(kind)) {
        const cJSON *k = cJSON_IsString(kind) ? kind : kind->child;
        for (; k; k = cJSON_IsString(kind) ? NULL : k->next) {
            if (!cJSON_IsString(k))
                return ds__fail(r->e, PROTO, "TypeError",
                                "%s: argument 'kind' must be a string or a list of strings", r->op);
            uint32_t bits = kind_bits(k->valuestring);
            /* An unknown kind is the library's ValueError (the standard's dtypes() raises
             * it); the shim applies the kind filter on the library's behalf. */
            if (bits == 0)
                return ds__fail(r->e, DS__ORIGIN_LIBRARY, "ValueError",
                                "%s: unknown dtype kind \"%.40s\"", r->op, k->valuestring);
            want |= bits;
        }
    } else {
        return ds__fail(r->e, PROTO, "TypeError",
                        "%s: argument 'kind' must be a string or a list of strings", r->op);
    }
    if (CALL(r, info_dtypes, dev, &have) < 0) return -1;
    /* Sorted by name, as the protocol says. */
    const char *sorted[DS_DTYPE_COUNT];
    int n = 0;
    for (int t = DS_BOOL; t < DS_DTYPE_COUNT; t++)
        if (have & want & (1u << t)) {
            int j = n++;
            while (j > 0 && strcmp(sorted[j - 1], ds_dtype_name((ds_dtype)t)) > 0) {
                sorted[j] = sorted[j - 1];
                j--;
            }
            sorted[j] = ds_dtype_name((ds_dtype)t);
        }
    cJSON *list = cJSON_CreateStringArray(sorted, n);
    if (list == NULL) return ds__oom(r);
    *result = list;
    return 0;
}

/* capabilities() as an object with the standard's keys (DEV-INFO-1, DEV-INFO-2). A table
 * without the slot is a library without capabilities(): lacked, as any function the library
 * does not provide (spec/protocol.md, "Messages"). */
int ds__op_info_capabilities(const ds__req *r, cJSON **result)
{
    ds_capabilities caps = {.max_dimensions = 0};
    if (DS__SLOT(r->v, info_capabilities) == NULL) {
        ds__fail(r->e, DS__ORIGIN_LIBRARY, "NotImplementedError",
                 "%s: the library has no capabilities() (the vendor table leaves "
                 "info_capabilities NULL)",
                 r->op);
        snprintf(r->e->lacks, sizeof r->e->lacks, "info.capabilities");
        return -1;
    }
    if (CALL(r, info_capabilities, &caps) < 0) return -1;
    cJSON *o = cJSON_CreateObject();
    bool ok = o != NULL &&
              ds__put(o, "boolean indexing", cJSON_CreateBool(caps.boolean_indexing)) &&
              ds__put(o, "data-dependent shapes", cJSON_CreateBool(caps.data_dependent_shapes));
    if (ok && caps.max_dimensions != 0)
        ok = ds__put(o, "max dimensions",
                     caps.max_dimensions < 0 ? cJSON_CreateNull()
                                             : cJSON_CreateNumber((double)caps.max_dimensions));
    if (!ok) {
        cJSON_Delete(o);
        return ds__oom(r);
    }
    *result = o;
    return 0;
}
