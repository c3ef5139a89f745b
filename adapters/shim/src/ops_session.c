/*
 * ops_session.c: the session ops (hello, reset, bye): hello checks the vendor table, opens the
 * library and lists its devices.
 */
#include "ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const required_slots[] = {
    "open", "hello", "release_array", "device_equal", "info_devices", "describe", "read", NULL};

static int check_table(const ds__req *r)
{
    const ds_vendor *v = r->v;
    const void *have[] = {(const void *)(uintptr_t)DS__SLOT(v, open),
                          (const void *)(uintptr_t)DS__SLOT(v, hello),
                          (const void *)(uintptr_t)DS__SLOT(v, release_array),
                          (const void *)(uintptr_t)DS__SLOT(v, device_equal),
                          (const void *)(uintptr_t)DS__SLOT(v, info_devices),
                          (const void *)(uintptr_t)DS__SLOT(v, describe),
                          (const void *)(uintptr_t)DS__SLOT(v, read)};
    if (v->version < 1 || v->size < offsetof(ds_vendor, open))
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                        "hello: the vendor table has version %u and size %u, not a ds_vendor",
                        (unsigned)v->version, (unsigned)v->size);
    if (v->adapter_name == NULL || v->adapter_version == NULL)
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                        "hello: the vendor table has no adapter_name or adapter_version");
    for (int i = 0; required_slots[i]; i++)
        if (have[i] == NULL)
            return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                            "hello: the vendor table lacks the required slot '%s'",
                            required_slots[i]);
    return 0;
}

/* hello's arguments: the protocol version, and whether the caller shares the process and
 * passes DLPack tensors by address (array.dlpack_export_address, _import_address). */
static int hello_args(const ds__req *r, int64_t *protocol, bool *addresses)
{
    if (ds__arg_int(r, "protocol", true, 0, protocol) < 0) return -1;
    return ds__arg_bool(r, "dlpack_addresses", false, false, addresses);
}

int ds__op_hello(const ds__req *r, cJSON **result)
{
    ds__session *s = r->s;
    const ds_vendor *v = r->v;
    int64_t protocol;
    ds_library_info info = {0};
    ds_devobj *devs = NULL;
    size_t ndev = 0;
    ds_devobj def = NULL;
    cJSON *res = NULL;

    bool addresses;
    if (hello_args(r, &protocol, &addresses) < 0) return -1;
    /* A second hello starts the session afresh. */
    ds__session_close(s);
    if (protocol != DS_PROTOCOL_VERSION)
        return ds__fail(r->e, PROTO, "ValueError",
                        "hello: protocol version %" PRId64 " requested; this adapter speaks %d",
                        protocol, DS_PROTOCOL_VERSION);
    if (check_table(r) < 0) return -1;
    ds__call_begin(s);
    if (ds__status(s, "hello (open)", v->open(&s->lib), r->e) < 0) return -1;
    s->lib_open = true;
    if (CALL(r, hello, &info) < 0) goto fail;
    if (ds__list_devices(r, &devs, &ndev) < 0) goto fail;
    cJSON *lib = NULL, *adapter = NULL, *features = NULL, *jdevs = NULL, *strs = NULL;
    res = cJSON_CreateObject();
    bool ok =
        res != NULL && ds__put(res, "protocol", cJSON_CreateNumber(DS_PROTOCOL_VERSION)) &&
        ds__put(res, "library", (lib = cJSON_CreateObject())) &&
        ds__put(lib, "name", cJSON_CreateString(info.name ? info.name : v->adapter_name)) &&
        ds__put(lib, "version", cJSON_CreateString(info.version ? info.version : "unknown")) &&
        ds__put(res, "adapter", (adapter = cJSON_CreateObject())) &&
        ds__put(adapter, "name", cJSON_CreateString(v->adapter_name)) &&
        ds__put(adapter, "version", cJSON_CreateString(v->adapter_version)) &&
        ds__put(res, "features", (features = cJSON_CreateArray())) &&
        ds__put(res, "devices", (jdevs = cJSON_CreateArray())) &&
        ds__put(res, "device_strs", (strs = cJSON_CreateArray()));
    for (const char *const *f = info.features; ok && f && *f; f++)
        ok = ds__push(features, cJSON_CreateString(*f));
    if (!ok) goto nomem;
    for (size_t i = 0; i < ndev; i++) {
        cJSON *h = NULL;
        ds_devobj d = devs[i];
        devs[i] = NULL;
        /* A None device cannot be bound to $Dn: hello lists only real ones. */
        if (d == NULL) continue;
        if (ds__handle_result(r, DS__H_DEVICE, d, true, &h) < 0) goto fail;
        if (!ds__push(jdevs, h)) goto nomem;
        ds_device_info di = {0};
        bool has_str = DS__SLOT(v, device_describe) &&
                       (ds__call_begin(s), v->device_describe(s->lib, d, &di)) == 0 && di.has_str;
        if (!ds__push(strs, has_str ? cJSON_CreateString(di.str) : cJSON_CreateNull())) goto nomem;
    }
    /* default_device: the listed handle it equals, so that $D0 is one of `devices`. */
    cJSON *jdef = NULL;
    if (DS__SLOT(v, info_default_device)) {
        if (CALL(r, info_default_device, &def) < 0) goto fail;
    }
    if (def != NULL) {
        bool found = false;
        for (size_t i = 0; i < s->nh && !found; i++) {
            bool eq = false;
            if (s->h[i].kind != DS__H_DEVICE) continue;
            if (CALL(r, device_equal, def, s->h[i].obj, &eq) < 0) goto fail;
            if (eq) {
                char name[48];
                snprintf(name, sizeof name, "device#%" PRIu64, s->h[i].id);
                jdef = cJSON_CreateString(name);
                found = true;
            }
        }
        if (!found) {
            ds_devobj d = def;
            def = NULL;
            if (ds__handle_result(r, DS__H_DEVICE, d, true, &jdef) < 0) goto fail;
        }
    } else {
        jdef = cJSON_CreateNull();
    }
    if (!ds__put(res, "default_device", jdef) ||
        !ds__put(res, "max_line", cJSON_CreateNumber(DS_PROTOCOL_MAX_LINE)))
        goto nomem;
    ds__release_obj(r, DS__H_DEVICE, def);
    ds__free(devs);
    s->hello_ok = true;
    s->dlpack_addresses = addresses;
    *result = res;
    return 0;
nomem:
    ds__oom(r);
fail:
    ds__release_obj(r, DS__H_DEVICE, def);
    for (size_t i = 0; i < ndev; i++)
        ds__release_obj(r, DS__H_DEVICE, devs ? devs[i] : NULL);
    ds__free(devs);
    cJSON_Delete(res);
    ds__session_close(s);
    return -1;
}

int ds__op_reset(const ds__req *r, cJSON **result)
{
    ds__handles_drop(r->s, false);
    if (DS__SLOT(r->v, reset) && CALL0(r, reset) < 0) return -1;
    *result = NULL;
    return 0;
}

int ds__op_bye(const ds__req *r, cJSON **result)
{
    ds__session_close(r->s);
    *result = NULL;
    return 0;
}
