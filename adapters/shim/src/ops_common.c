/*
 * ops_common.c: what the handlers share: calling a slot, making a handle the result, listing the
 * library's devices, reading a "fn" argument.
 */
#include "ops.h"

#include <stdlib.h>
#include <string.h>

int ds__no_slot(const ds__req *r)
{
    return ds__fail(r->e, DS__ORIGIN_ADAPTER, "NotImplementedError",
                    "%s: adapter '%s' does not implement this op", r->op, r->v->adapter_name);
}

void ds__release_obj(const ds__req *r, ds__hkind kind, void *obj)
{
    if (obj == NULL) return;
    if (kind == DS__H_ARRAY && DS__SLOT(r->v, release_array))
        r->v->release_array(r->s->lib, obj);
    else if (kind == DS__H_DEVICE && DS__SLOT(r->v, release_device))
        r->v->release_device(r->s->lib, obj);
    else if (kind == DS__H_STREAM && DS__SLOT(r->v, release_stream))
        r->v->release_stream(r->s->lib, obj);
}

int ds__handle_result(const ds__req *r, ds__hkind kind, void *obj, bool permanent, cJSON **out)
{
    char name[48];
    if (obj == NULL && kind != DS__H_STREAM)
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                        "%s: the adapter's callback succeeded but returned no object", r->op);
    if (ds__handle_add(r->s, kind, obj, permanent, name, sizeof name) < 0) {
        ds__release_obj(r, kind, obj);
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "MemoryError", "%s: out of memory", r->op);
    }
    *out = cJSON_CreateString(name);
    if (*out == NULL)
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "MemoryError", "%s: out of memory", r->op);
    return 0;
}

int ds__array_result(const ds__req *r, ds_array x, cJSON **out)
{
    return ds__handle_result(r, DS__H_ARRAY, x, false, out);
}

int ds__device_result(const ds__req *r, ds_devobj d, cJSON **out)
{
    if (d == NULL) {
        *out = cJSON_CreateNull();
        return 0;
    }
    return ds__handle_result(r, DS__H_DEVICE, d, false, out);
}

int ds__oom(const ds__req *r)
{
    return ds__fail(r->e, DS__ORIGIN_ADAPTER, "MemoryError", "%s: out of memory", r->op);
}

int ds__list_devices(const ds__req *r, ds_devobj **devs, size_t *n)
{
    size_t cap = 8;
    *devs = NULL;
    *n = 0;
    for (int attempt = 0; attempt < 4; attempt++) {
        ds_devobj *buf = ds__calloc(cap, sizeof *buf);
        size_t count = 0;
        if (buf == NULL) return ds__oom(r);
        if (CALL(r, info_devices, buf, cap, &count) < 0) {
            /* Whatever the callback filled before failing is released, not leaked. */
            for (size_t i = 0; i < cap; i++)
                ds__release_obj(r, DS__H_DEVICE, buf[i]);
            ds__free(buf);
            return -1;
        }
        if (count <= cap) {
            *devs = buf;
            *n = count;
            return 0;
        }
        /* Too small: release what was filled and ask again with room for all. */
        for (size_t i = 0; i < cap; i++)
            ds__release_obj(r, DS__H_DEVICE, buf[i]);
        ds__free(buf);
        cap = count;
    }
    return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError", "%s: the device count keeps changing",
                    r->op);
}

int ds__arg_fn(const ds__req *r, const ds__fn_name *fns, int *value)
{
    const char *fn;
    if (ds__arg_string(r, "fn", &fn) < 0) return -1;
    for (; fns->name; fns++)
        if (strcmp(fn, fns->name) == 0) {
            *value = fns->value;
            return 0;
        }
    return ds__fail(r->e, PROTO, "ValueError", "%s: unknown function \"%.40s\"", r->op, fn);
}
