/*
 * ops.c: every op of spec/protocol.md: check its arguments, call the table's slot, build the
 * result. Argument errors are origin "protocol" and name the argument; a NULL slot answers
 * NotImplementedError (origin "adapter"); a failing callback's error is origin "library".
 */
#include "ops_table.h"
#include "session.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PROTO DS__ORIGIN_PROTOCOL

/* ---- calling and results ---- */

static int no_slot(const ds__req *r)
{
    return ds__fail(r->e, DS__ORIGIN_ADAPTER, "NotImplementedError",
                    "%s: adapter '%s' does not implement this op", r->op, r->v->adapter_name);
}

/* Calls a slot: `call` is the expression; NULL slot answers NotImplementedError. */
#define CALL(r, slot, ...)                                                                         \
    (DS__SLOT((r)->v, slot) == NULL                                                                \
         ? no_slot(r)                                                                              \
         : (ds__call_begin((r)->s),                                                                \
            ds__status((r)->s, (r)->op, (r)->v->slot((r)->s->lib, __VA_ARGS__), (r)->e)))

#define CALL0(r, slot)                                                                             \
    (DS__SLOT((r)->v, slot) == NULL                                                                \
         ? no_slot(r)                                                                              \
         : (ds__call_begin((r)->s),                                                                \
            ds__status((r)->s, (r)->op, (r)->v->slot((r)->s->lib), (r)->e)))

static void release_obj(const ds__req *r, ds__hkind kind, void *obj)
{
    if (obj == NULL) return;
    if (kind == DS__H_ARRAY && DS__SLOT(r->v, release_array))
        r->v->release_array(r->s->lib, obj);
    else if (kind == DS__H_DEVICE && DS__SLOT(r->v, release_device))
        r->v->release_device(r->s->lib, obj);
    else if (kind == DS__H_STREAM && DS__SLOT(r->v, release_stream))
        r->v->release_stream(r->s->lib, obj);
}

/* Gives obj, just returned by a callback, a handle and makes that the result. The session
 * owns obj from here, also on failure. */
static int handle_result(const ds__req *r, ds__hkind kind, void *obj, bool permanent, cJSON **out)
{
    char name[48];
    if (obj == NULL && kind != DS__H_STREAM)
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                        "%s: the adapter's callback succeeded but returned no object", r->op);
    if (ds__handle_add(r->s, kind, obj, permanent, name, sizeof name) < 0) {
        release_obj(r, kind, obj);
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "MemoryError", "%s: out of memory", r->op);
    }
    *out = cJSON_CreateString(name);
    if (*out == NULL)
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "MemoryError", "%s: out of memory", r->op);
    return 0;
}

static int array_result(const ds__req *r, ds_array x, cJSON **out)
{
    return handle_result(r, DS__H_ARRAY, x, false, out);
}

/* A device result that may be None (null). */
static int device_result(const ds__req *r, ds_devobj d, cJSON **out)
{
    if (d == NULL) {
        *out = cJSON_CreateNull();
        return 0;
    }
    return handle_result(r, DS__H_DEVICE, d, false, out);
}

static int oom(const ds__req *r)
{
    return ds__fail(r->e, DS__ORIGIN_ADAPTER, "MemoryError", "%s: out of memory", r->op);
}

/* ---- session ops ---- */

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

/* Lists the library's devices as new device objects: *devs (malloc'd), *n. */
static int list_devices(const ds__req *r, ds_devobj **devs, size_t *n)
{
    size_t cap = 8;
    *devs = NULL;
    *n = 0;
    for (int attempt = 0; attempt < 4; attempt++) {
        ds_devobj *buf = ds__calloc(cap, sizeof *buf);
        size_t count = 0;
        if (buf == NULL) return oom(r);
        if (CALL(r, info_devices, buf, cap, &count) < 0) {
            /* Whatever the callback filled before failing is released, not leaked. */
            for (size_t i = 0; i < cap; i++)
                release_obj(r, DS__H_DEVICE, buf[i]);
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
            release_obj(r, DS__H_DEVICE, buf[i]);
        ds__free(buf);
        cap = count;
    }
    return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError", "%s: the device count keeps changing",
                    r->op);
}

static int op_hello(const ds__req *r, cJSON **result)
{
    ds__session *s = r->s;
    const ds_vendor *v = r->v;
    int64_t protocol;
    ds_library_info info = {0};
    ds_devobj *devs = NULL;
    size_t ndev = 0;
    ds_devobj def = NULL;
    cJSON *res = NULL;

    if (ds__arg_int(r, "protocol", true, 0, &protocol) < 0) return -1;
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
    if (list_devices(r, &devs, &ndev) < 0) goto fail;
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
        if (handle_result(r, DS__H_DEVICE, d, true, &h) < 0) goto fail;
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
            if (handle_result(r, DS__H_DEVICE, d, true, &jdef) < 0) goto fail;
        }
    } else {
        jdef = cJSON_CreateNull();
    }
    if (!ds__put(res, "default_device", jdef) ||
        !ds__put(res, "max_line", cJSON_CreateNumber(DS_PROTOCOL_MAX_LINE)))
        goto nomem;
    release_obj(r, DS__H_DEVICE, def);
    ds__free(devs);
    s->hello_ok = true;
    *result = res;
    return 0;
nomem:
    oom(r);
fail:
    release_obj(r, DS__H_DEVICE, def);
    for (size_t i = 0; i < ndev; i++)
        release_obj(r, DS__H_DEVICE, devs ? devs[i] : NULL);
    ds__free(devs);
    cJSON_Delete(res);
    ds__session_close(s);
    return -1;
}

static int op_reset(const ds__req *r, cJSON **result)
{
    ds__handles_drop(r->s, false);
    if (DS__SLOT(r->v, reset) && CALL0(r, reset) < 0) return -1;
    *result = NULL;
    return 0;
}

static int op_bye(const ds__req *r, cJSON **result)
{
    ds__session_close(r->s);
    *result = NULL;
    return 0;
}

/* ---- device.* ---- */

static int op_device_parse(const ds__req *r, cJSON **result)
{
    const char *text;
    ds_devobj d = NULL;
    if (ds__arg_string(r, "text", &text) < 0 || ds__string_for_library(r, "text", text) < 0 ||
        CALL(r, device_parse, text, &d) < 0)
        return -1;
    return handle_result(r, DS__H_DEVICE, d, false, result);
}

/* A device argument that must be a device object: a handle, or {"str": text} turned into
 * the library's device for that text with the device_parse slot (what describing or
 * comparing a string means). *parsed is set when the object is new and must be released. */
static int get_device_object(const ds__req *r, const char *name, ds_devobj *out, bool *parsed)
{
    ds_device dev;
    *parsed = false;
    *out = NULL;
    if (ds__arg_device(r, name, true, &dev) < 0) return -1;
    if (dev.kind == DS_DEVICE_OBJECT) {
        *out = dev.object;
        return 0;
    }
    if (dev.kind == DS_DEVICE_NONE)
        return ds__fail(r->e, PROTO, "TypeError", "%s: argument '%s' must be a device, not null",
                        r->op, name);
    if (CALL(r, device_parse, dev.str, out) < 0) return -1;
    if (*out == NULL)
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                        "%s: device_parse succeeded but returned no device", r->op);
    *parsed = true;
    return 0;
}

static int op_device_describe(const ds__req *r, cJSON **result)
{
    ds_devobj d;
    bool parsed;
    ds_device_info di = {0};
    if (get_device_object(r, "device", &d, &parsed) < 0) return -1;
    int rc = CALL(r, device_describe, d, &di);
    if (parsed) release_obj(r, DS__H_DEVICE, d);
    if (rc < 0) return -1;
    cJSON *o = cJSON_CreateObject();
    bool ok = o != NULL && (!di.has_str || ds__put(o, "str", cJSON_CreateString(di.str))) &&
              (!di.has_type || ds__put(o, "type", cJSON_CreateString(di.type))) &&
              (!di.has_index || ds__put(o, "index",
                                        di.index_is_null ? cJSON_CreateNull()
                                                         : cJSON_CreateNumber((double)di.index)));
    if (!ok) {
        cJSON_Delete(o);
        return oom(r);
    }
    *result = o;
    return 0;
}

static int op_device_equal(const ds__req *r, cJSON **result)
{
    ds_devobj a = NULL, b = NULL;
    bool pa = false, pb = false;
    bool eq = false;
    int rc = get_device_object(r, "a", &a, &pa);
    if (rc == 0) rc = get_device_object(r, "b", &b, &pb);
    if (rc == 0) rc = CALL(r, device_equal, a, b, &eq);
    if (pa) release_obj(r, DS__H_DEVICE, a);
    if (pb) release_obj(r, DS__H_DEVICE, b);
    if (rc < 0) return -1;
    *result = cJSON_CreateBool(eq);
    return 0;
}

static int op_device_from_type_index(const ds__req *r, cJSON **result)
{
    const char *type;
    int64_t index;
    ds_devobj d = NULL;
    if (ds__arg_string(r, "type", &type) < 0 || ds__string_for_library(r, "type", type) < 0 ||
        ds__arg_int(r, "index", true, 0, &index) < 0 ||
        CALL(r, device_from_type_index, type, index, &d) < 0)
        return -1;
    return handle_result(r, DS__H_DEVICE, d, false, result);
}

static int op_device_from_ordinal(const ds__req *r, cJSON **result)
{
    int64_t ordinal;
    ds_devobj d = NULL;
    if (ds__arg_int(r, "ordinal", true, 0, &ordinal) < 0 ||
        CALL(r, device_from_ordinal, ordinal, &d) < 0)
        return -1;
    return handle_result(r, DS__H_DEVICE, d, false, result);
}

/* ---- info.* ---- */

static int op_info_devices(const ds__req *r, cJSON **result)
{
    ds_devobj *devs;
    size_t n;
    if (list_devices(r, &devs, &n) < 0) return -1;
    cJSON *list = cJSON_CreateArray();
    int rc = list ? 0 : oom(r);
    for (size_t i = 0; i < n; i++) {
        cJSON *h = NULL;
        if (rc < 0) {
            release_obj(r, DS__H_DEVICE, devs[i]);
            continue;
        }
        /* A device the library reports as None travels as null (spec/protocol.md). */
        if (devs[i] == NULL)
            rc = ds__push(list, cJSON_CreateNull()) ? 0 : oom(r);
        else if ((rc = handle_result(r, DS__H_DEVICE, devs[i], false, &h)) == 0 &&
                 !ds__push(list, h))
            rc = oom(r);
    }
    ds__free(devs);
    if (rc < 0) {
        cJSON_Delete(list);
        return -1;
    }
    *result = list;
    return 0;
}

static int op_info_default_device(const ds__req *r, cJSON **result)
{
    ds_devobj d = NULL;
    if (CALL(r, info_default_device, &d) < 0) return -1;
    return device_result(r, d, result);
}

static int op_info_default_dtypes(const ds__req *r, cJSON **result)
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
        return oom(r);
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
static int op_info_devices_type(const ds__req *r, cJSON **result)
{
    (void)result;
    return ds__fail(r->e, DS__ORIGIN_ADAPTER, "NotImplementedError",
                    "%s: a C library's device list is an array, neither a list nor a tuple", r->op);
}

static int op_info_device_param(const ds__req *r, cJSON **result)
{
    const char *fn;
    (void)result;
    if (ds__arg_string(r, "fn", &fn) < 0) return -1;
    return ds__fail(r->e, DS__ORIGIN_ADAPTER, "NotImplementedError",
                    "%s: C functions have no keyword arguments and no signature to read", r->op);
}

static int op_info_dtypes(const ds__req *r, cJSON **result)
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
    if (list == NULL) return oom(r);
    *result = list;
    return 0;
}

/* ---- array.* ---- */

static int create_fill(const ds__req *r, ds_fill_fn fn, ds_dtype dtype, ds_device dev, ds_array *x)
{
    int64_t shape[DS_MAX_NDIM];
    int ndim = 0;
    if (ds__arg_shape(r, "shape", shape, &ndim) < 0) return -1;
    return CALL(r, fill, fn, shape, ndim, dtype, dev, x);
}

static int create_like(const ds__req *r, ds_fill_fn fn, ds_dtype dtype, ds_device dev, ds_array *x)
{
    ds_array src;
    if (ds__arg_array(r, "x", &src) < 0) return -1;
    return CALL(r, fill_like, fn, src, dtype, dev, x);
}

/* array.create's functions and the arguments each takes (spec/ops.json). */
static const struct {
    const char *fn;
    const char *const *args;
} create_fns[] = {
#define X(fn, args) {fn, args},
    DS__ARRAY_CREATE_FUNCTIONS(X)
#undef X
};

/* The arguments array.create's function FN takes, or NULL for an unknown function. */
static const char *const *create_args(const char *fn)
{
    for (size_t i = 0; i < sizeof create_fns / sizeof create_fns[0]; i++)
        if (strcmp(create_fns[i].fn, fn) == 0) return create_fns[i].args;
    return NULL;
}

static int op_array_create(const ds__req *r, cJSON **result)
{
    const char *fn;
    ds_dtype dtype;
    ds_device dev;
    ds_array x = NULL;
    int rc;
    if (ds__arg_string(r, "fn", &fn) < 0 || ds__arg_dtype(r, "dtype", false, &dtype) < 0 ||
        ds__arg_device(r, "device", false, &dev) < 0)
        return -1;
    /* Each function takes only its own arguments (spec/ops.json): fill_value is an error
     * for zeros, not ignored. */
    const char *const *allowed = create_args(fn);
    if (allowed != NULL && ds__args_check(r, allowed) < 0) return -1;
    if (strcmp(fn, "zeros") == 0) {
        rc = create_fill(r, DS_ZEROS, dtype, dev, &x);
    } else if (strcmp(fn, "ones") == 0) {
        rc = create_fill(r, DS_ONES, dtype, dev, &x);
    } else if (strcmp(fn, "empty") == 0) {
        rc = create_fill(r, DS_EMPTY, dtype, dev, &x);
    } else if (strcmp(fn, "full") == 0) {
        int64_t shape[DS_MAX_NDIM];
        int ndim = 0;
        ds_scalar fill;
        rc = ds__arg_shape(r, "shape", shape, &ndim) < 0 ||
                     ds__arg_scalar(r, "fill_value", true, &fill, NULL) < 0
                 ? -1
                 : CALL(r, full, shape, ndim, fill, dtype, dev, &x);
    } else if (strcmp(fn, "arange") == 0) {
        ds_scalar start, stop, step;
        bool has_stop, has_step;
        rc = ds__arg_scalar(r, "start", true, &start, NULL) < 0 ||
                     ds__arg_scalar(r, "stop", false, &stop, &has_stop) < 0 ||
                     ds__arg_scalar(r, "step", false, &step, &has_step) < 0
                 ? -1
                 : CALL(r, arange, start, has_stop ? &stop : NULL, has_step ? &step : NULL, dtype,
                        dev, &x);
    } else if (strcmp(fn, "linspace") == 0) {
        ds_scalar start, stop;
        int64_t num;
        bool endpoint;
        rc = ds__arg_scalar(r, "start", true, &start, NULL) < 0 ||
                     ds__arg_scalar(r, "stop", true, &stop, NULL) < 0 ||
                     ds__arg_int(r, "num", true, 0, &num) < 0 ||
                     ds__arg_bool(r, "endpoint", false, true, &endpoint) < 0
                 ? -1
                 : CALL(r, linspace, start, stop, num, endpoint, dtype, dev, &x);
    } else if (strcmp(fn, "eye") == 0) {
        int64_t n_rows, n_cols, k;
        const cJSON *nc = ds__arg(r, "n_cols");
        bool has_cols = nc != NULL && !cJSON_IsNull(nc);
        rc = ds__arg_int(r, "n_rows", true, 0, &n_rows) < 0 ||
                     ds__arg_int(r, "n_cols", false, 0, &n_cols) < 0 ||
                     ds__arg_int(r, "k", false, 0, &k) < 0
                 ? -1
                 : CALL(r, eye, n_rows, has_cols ? &n_cols : NULL, k, dtype, dev, &x);
    } else if (strcmp(fn, "zeros_like") == 0) {
        rc = create_like(r, DS_ZEROS, dtype, dev, &x);
    } else if (strcmp(fn, "ones_like") == 0) {
        rc = create_like(r, DS_ONES, dtype, dev, &x);
    } else if (strcmp(fn, "empty_like") == 0) {
        rc = create_like(r, DS_EMPTY, dtype, dev, &x);
    } else if (strcmp(fn, "full_like") == 0) {
        ds_array src;
        ds_scalar fill;
        rc = ds__arg_array(r, "x", &src) < 0 ||
                     ds__arg_scalar(r, "fill_value", true, &fill, NULL) < 0
                 ? -1
                 : CALL(r, full_like, src, fill, dtype, dev, &x);
    } else if (strcmp(fn, "fftfreq") == 0 || strcmp(fn, "rfftfreq") == 0) {
        int64_t n;
        ds_scalar d = {.kind = DS_SCALAR_FLOAT, .f = 1.0};
        rc = ds__arg_int(r, "n", true, 0, &n) < 0 || ds__arg_scalar(r, "d", false, &d, NULL) < 0
                 ? -1
             : d.kind == DS_SCALAR_COMPLEX
                 ? ds__fail(r->e, PROTO, "TypeError", "%s: the spacing d must be real", r->op)
                 : CALL(r, fftfreq, fn[0] == 'r', n,
                        d.kind == DS_SCALAR_FLOAT ? d.f
                        : d.kind == DS_SCALAR_INT ? (double)d.i
                                                  : d.b,
                        dtype, dev, &x);
    } else {
        return ds__fail(r->e, PROTO, "ValueError", "%s: unknown creation function \"%.40s\"", r->op,
                        fn);
    }
    if (rc < 0) return -1;
    return array_result(r, x, result);
}

static int op_array_asarray(const ds__req *r, cJSON **result)
{
    const cJSON *obj = ds__arg(r, "obj");
    ds_dtype dtype;
    ds_device dev;
    ds_copy copy;
    ds_array x = NULL;
    int rc;
    if (ds__arg_dtype(r, "dtype", false, &dtype) < 0 ||
        ds__arg_device(r, "device", false, &dev) < 0 || ds__arg_copy(r, "copy", &copy) < 0)
        return -1;
    if (obj == NULL) return ds__arg_missing(r, "obj");
    if (cJSON_IsString(obj)) {
        ds_array src;
        rc = ds__arg_handle(r, obj, "obj", DS__H_ARRAY, &src) < 0
                 ? -1
                 : CALL(r, asarray_array, src, dtype, dev, copy, &x);
    } else if (ds__is_scalar(obj)) {
        ds_scalar sc;
        rc = ds__arg_scalar(r, "obj", true, &sc, NULL) < 0
                 ? -1
                 : CALL(r, asarray_scalar, sc, dtype, dev, copy, &x);
    } else if (cJSON_IsObject(obj)) {
        ds_buffer buf;
        if (ds__buffer_decode(obj, "obj", &buf, r->e) < 0) return -1;
        rc = CALL(r, asarray_buffer, &buf, dtype, dev, copy, &x);
        ds__buffer_clear(&buf);
    } else {
        return ds__fail(r->e, PROTO, "TypeError",
                        "%s: argument 'obj' must be a typed array, a scalar or an array handle",
                        r->op);
    }
    if (rc < 0) return -1;
    return array_result(r, x, result);
}

static int op_array_astype(const ds__req *r, cJSON **result)
{
    ds_array src, x = NULL;
    ds_dtype dtype;
    bool copy;
    ds_device dev;
    if (ds__arg_array(r, "x", &src) < 0 || ds__arg_dtype(r, "dtype", true, &dtype) < 0 ||
        ds__arg_bool(r, "copy", false, true, &copy) < 0 ||
        ds__arg_device(r, "device", false, &dev) < 0 ||
        CALL(r, astype, src, dtype, copy, dev, &x) < 0)
        return -1;
    return array_result(r, x, result);
}

static int describe_array(const ds__req *r, ds_array x, ds_array_info *info)
{
    memset(info, 0, sizeof *info);
    if (CALL(r, describe, x, info) < 0) return -1;
    if (info->ndim < 0 || info->ndim > DS_MAX_NDIM || ds_dtype_name(info->dtype) == NULL ||
        ds__shape_count(info->shape, info->ndim) < 0) {
        release_obj(r, DS__H_DEVICE, info->device);
        info->device = NULL;
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                        "%s: the describe callback returned an invalid dtype or shape", r->op);
    }
    return 0;
}

static int op_array_describe(const ds__req *r, cJSON **result)
{
    ds_array x;
    ds_array_info info;
    cJSON *dev = NULL;
    if (ds__arg_array(r, "array", &x) < 0 || describe_array(r, x, &info) < 0 ||
        device_result(r, info.device, &dev) < 0)
        return -1;
    cJSON *o = cJSON_CreateObject(), *shape = NULL;
    bool ok = o != NULL && ds__put(o, "device", dev) &&
              ds__put(o, "dtype", cJSON_CreateString(ds_dtype_name(info.dtype))) &&
              ds__put(o, "shape", (shape = cJSON_CreateArray()));
    if (o == NULL) cJSON_Delete(dev);
    for (int k = 0; ok && k < info.ndim; k++)
        ok = ds__push(shape, dsj_create_int64(info.shape[k])); /* exact beyond 2^53 */
    if (!ok) {
        cJSON_Delete(o);
        return oom(r);
    }
    *result = o;
    return 0;
}

/* The longest text one element of DTYPE takes in a typed array, with its comma:
 * "-9223372036854775808", "\"18446744073709551615\"", "-2.2250738585072014e-308", a complex
 * pair of two of those in brackets. */
static unsigned element_text_max(ds_dtype dtype)
{
    switch (dtype) {
    case DS_BOOL:
        return 6;
    case DS_COMPLEX64:
    case DS_COMPLEX128:
        return 2 * 26 + 3;
    default:
        return 26;
    }
}

static int op_array_read(const ds__req *r, cJSON **result)
{
    ds_array x;
    ds_array_info info;
    ds_buffer buf = {0};
    if (ds__arg_array(r, "array", &x) < 0 || describe_array(r, x, &info) < 0) return -1;
    /* describe's device is not needed here. */
    release_obj(r, DS__H_DEVICE, info.device);
    buf.dtype = info.dtype;
    buf.ndim = info.ndim;
    memcpy(buf.shape, info.shape, sizeof buf.shape);
    int64_t count = ds__shape_count(info.shape, info.ndim);
    /* A reply of more elements would be hundreds of megabytes of JSON: refused, by name. */
    if (count > DS_MAX_READ_ELEMENTS)
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "MemoryError",
                        "%s: the array has %" PRId64 " elements, more than the %d a reply carries",
                        r->op, count, DS_MAX_READ_ELEMENTS);
    /* Refused before anything is allocated when the longest text its elements could take
     * passes the reply limit: memory stays bounded by the limit, whatever the values. */
    if (count > 0 && (uint64_t)count > (uint64_t)DS_PROTOCOL_MAX_REPLY / element_text_max(info.dtype))
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "MemoryError",
                        "%s: %" PRId64 " elements of %s may take more than the %d bytes a reply "
                        "line may hold",
                        r->op, count, ds_dtype_name(info.dtype), DS_PROTOCOL_MAX_REPLY);
    buf.nbytes = (size_t)count * ds_dtype_size(info.dtype);
    if (buf.nbytes > 0 && (buf.data = ds__malloc(buf.nbytes)) == NULL) return oom(r);
    int rc = CALL(r, read, x, buf.data, buf.nbytes);
    if (rc == 0) rc = ds__buffer_encode(&buf, DS_PROTOCOL_MAX_REPLY, result, r->e);
    ds__buffer_clear(&buf);
    return rc;
}

static int op_array_to_device(const ds__req *r, cJSON **result)
{
    ds_array src, x = NULL;
    ds_device dev;
    ds_stream stream;
    if (ds__arg_array(r, "array", &src) < 0 || ds__arg_device(r, "device", true, &dev) < 0 ||
        ds__arg_stream(r, "stream", &stream) < 0 || CALL(r, to_device, src, dev, stream, &x) < 0)
        return -1;
    return array_result(r, x, result);
}

static int op_array_same(const ds__req *r, cJSON **result)
{
    ds_array a, b;
    if (ds__arg_array(r, "a", &a) < 0 || ds__arg_array(r, "b", &b) < 0) return -1;
    *result = cJSON_CreateBool(a == b);
    return 0;
}

/* The "fn" argument of the binary ops: a function DS_ADD..LAST named as in spec/protocol.md
 * (array.binary takes them all, array.binary_into and global.binary the arithmetic ones). */
static int arg_binary_fn(const ds__req *r, int last, ds_binary_fn *which)
{
    static const char *const fns[] = {
        [DS_ADD] = "add",        [DS_SUBTRACT] = "subtract", [DS_MULTIPLY] = "multiply",
        [DS_DIVIDE] = "divide",  [DS_EQUAL] = "equal",       [DS_LESS] = "less",
        [DS_MAXIMUM] = "maximum"};
    const char *fn;
    if (ds__arg_string(r, "fn", &fn) < 0) return -1;
    for (int i = DS_ADD; i <= last; i++)
        if (strcmp(fn, fns[i]) == 0) {
            *which = (ds_binary_fn)i;
            return 0;
        }
    return ds__fail(r->e, PROTO, "ValueError", "%s: unknown function \"%.40s\"", r->op, fn);
}

static int op_array_binary(const ds__req *r, cJSON **result)
{
    ds_operand x1, x2;
    ds_array x = NULL;
    ds_binary_fn which;
    if (arg_binary_fn(r, DS_MAXIMUM, &which) < 0) return -1;
    if (ds__arg_operand(r, "x1", &x1) < 0 || ds__arg_operand(r, "x2", &x2) < 0 ||
        CALL(r, binary, which, x1, x2, &x) < 0)
        return -1;
    return array_result(r, x, result);
}

static int op_array_unary(const ds__req *r, cJSON **result)
{
    static const char *const fns[] = {
        [DS_NEGATIVE] = "negative", [DS_ABS] = "abs", [DS_SQRT] = "sqrt"};
    const char *fn;
    ds_array src, x = NULL;
    int which = 0;
    if (ds__arg_string(r, "fn", &fn) < 0) return -1;
    for (int i = DS_NEGATIVE; i <= DS_SQRT; i++)
        if (strcmp(fn, fns[i]) == 0) which = i;
    if (which == 0)
        return ds__fail(r->e, PROTO, "ValueError", "%s: unknown function \"%.40s\"", r->op, fn);
    if (ds__arg_array(r, "x", &src) < 0 || CALL(r, unary, (ds_unary_fn)which, src, &x) < 0)
        return -1;
    return array_result(r, x, result);
}

static int op_array_reduce(const ds__req *r, cJSON **result)
{
    const char *fn;
    ds_array src, x = NULL;
    int64_t axis;
    const cJSON *jaxis = ds__arg(r, "axis");
    bool has_axis = jaxis != NULL && !cJSON_IsNull(jaxis);
    ds_reduce_fn which;
    if (ds__arg_string(r, "fn", &fn) < 0) return -1;
    if (strcmp(fn, "sum") == 0)
        which = DS_SUM;
    else if (strcmp(fn, "max") == 0)
        which = DS_MAX;
    else
        return ds__fail(r->e, PROTO, "ValueError", "%s: unknown function \"%.40s\"", r->op, fn);
    if (ds__arg_array(r, "x", &src) < 0 || ds__arg_int(r, "axis", false, 0, &axis) < 0 ||
        CALL(r, reduce, which, src, has_axis ? &axis : NULL, &x) < 0)
        return -1;
    return array_result(r, x, result);
}

static int op_array_matmul(const ds__req *r, cJSON **result)
{
    ds_array a, b, x = NULL;
    if (ds__arg_array(r, "x1", &a) < 0 || ds__arg_array(r, "x2", &b) < 0 ||
        CALL(r, matmul, a, b, &x) < 0)
        return -1;
    return array_result(r, x, result);
}

static int op_array_stack(const ds__req *r, cJSON **result)
{
    const cJSON *list = ds__arg(r, "arrays");
    int64_t axis;
    ds_array x = NULL;
    if (ds__arg_int(r, "axis", false, 0, &axis) < 0) return -1;
    if (list == NULL) return ds__arg_missing(r, "arrays");
    if (!cJSON_IsArray(list))
        return ds__fail(r->e, PROTO, "TypeError",
                        "%s: argument 'arrays' must be a list of array handles", r->op);
    int n = cJSON_GetArraySize(list);
    ds_array *xs = ds__calloc(n > 0 ? (size_t)n : 1, sizeof *xs);
    if (xs == NULL) return oom(r);
    int i = 0, rc = 0;
    for (const cJSON *h = list->child; h && rc == 0; h = h->next, i++) {
        char name[32];
        snprintf(name, sizeof name, "arrays[%d]", i);
        rc = ds__arg_handle(r, h, name, DS__H_ARRAY, &xs[i]);
    }
    if (rc == 0) rc = CALL(r, stack, xs, (size_t)n, axis, &x);
    ds__free(xs);
    if (rc < 0) return -1;
    return array_result(r, x, result);
}

/* ---- sharding ---- */

static int shard_common(const ds__req *r, bool inplace, cJSON **result)
{
    ds_array src, x = NULL;
    ds_device devs[DS_MAX_SHARDS];
    size_t n = 0;
    int64_t axis;
    const cJSON *jaxis = ds__arg(r, "axis");
    bool has_axis = jaxis != NULL && !cJSON_IsNull(jaxis);
    if (ds__arg_array(r, "x", &src) < 0 ||
        ds__arg_devices(r, "devices", devs, DS_MAX_SHARDS, &n) < 0 ||
        ds__arg_int(r, "axis", false, 0, &axis) < 0 ||
        CALL(r, shard, src, devs, n, has_axis ? &axis : NULL, inplace, &x) < 0)
        return -1;
    return array_result(r, x, result);
}

static int op_array_shard(const ds__req *r, cJSON **result)
{
    return shard_common(r, false, result);
}

static int op_array_shard_inplace(const ds__req *r, cJSON **result)
{
    return shard_common(r, true, result);
}

static int op_array_shard_describe(const ds__req *r, cJSON **result)
{
    ds_array x;
    ds_devobj devices[DS_MAX_SHARDS] = {0};
    int64_t bounds[2 * DS_MAX_SHARDS];
    ds_shard_layout l = {.devices = devices, .bounds = bounds};
    if (ds__arg_array(r, "array", &x) < 0) return -1;
    int rc = CALL(r, shard_describe, x, &l);
    /* Every device object the callback made is the session's, also on failure. */
    size_t made = l.n <= DS_MAX_SHARDS ? l.n : DS_MAX_SHARDS;
    if (rc == 0 && (l.n < 1 || l.n > DS_MAX_SHARDS || (l.split && l.axis < 0)))
        rc = ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                      "%s: the shard_describe callback returned %zu pieces or a negative axis",
                      r->op, l.n);
    cJSON *o = rc == 0 ? cJSON_CreateObject() : NULL, *devs = NULL, *jb = NULL;
    bool ok =
        o != NULL && ds__put(o, "sharded", cJSON_CreateBool(l.sharded)) &&
        ds__put(o, "devices", (devs = cJSON_CreateArray())) &&
        ds__put(o, "axis", l.split ? cJSON_CreateNumber((double)l.axis) : cJSON_CreateNull()) &&
        ds__put(o, "bounds", l.split ? (jb = cJSON_CreateArray()) : cJSON_CreateNull());
    for (size_t i = 0; i < made; i++) {
        cJSON *h = NULL;
        if (!ok || rc != 0) {
            release_obj(r, DS__H_DEVICE, devices[i]);
            continue;
        }
        if (device_result(r, devices[i], &h) < 0) {
            rc = -1;
            continue;
        }
        ok = ds__push(devs, h);
        if (ok && l.split) {
            cJSON *pair = cJSON_CreateArray();
            ok = ds__push(jb, pair) && ds__push(pair, cJSON_CreateNumber((double)bounds[2 * i])) &&
                 ds__push(pair, cJSON_CreateNumber((double)bounds[2 * i + 1]));
        }
    }
    if (rc != 0 || !ok) {
        cJSON_Delete(o);
        return rc != 0 ? -1 : oom(r);
    }
    *result = o;
    return 0;
}

static int op_array_shard_piece(const ds__req *r, cJSON **result)
{
    ds_array src, x = NULL;
    int64_t index;
    if (ds__arg_array(r, "array", &src) < 0 || ds__arg_int(r, "index", true, 0, &index) < 0)
        return -1;
    if (index < 0)
        return ds__fail(r->e, PROTO, "ValueError", "%s: index must be >= 0, got %" PRId64, r->op,
                        index);
    if (CALL(r, shard_piece, src, (size_t)index, &x) < 0) return -1;
    return array_result(r, x, result);
}

static int op_array_to_devices(const ds__req *r, cJSON **result)
{
    ds_array src, x = NULL;
    ds_device devs[DS_MAX_SHARDS];
    size_t n = 0;
    if (ds__arg_array(r, "array", &src) < 0 ||
        ds__arg_devices(r, "devices", devs, DS_MAX_SHARDS, &n) < 0 ||
        CALL(r, to_devices, src, devs, n, &x) < 0)
        return -1;
    return array_result(r, x, result);
}

static int op_array_dlpack_device(const ds__req *r, cJSON **result)
{
    ds_array x;
    int32_t type = 0, id = 0;
    if (ds__arg_array(r, "array", &x) < 0 || CALL(r, dlpack_device, x, &type, &id) < 0) return -1;
    cJSON *pair = cJSON_CreateArray();
    if (pair == NULL || !ds__push(pair, cJSON_CreateNumber(type)) ||
        !ds__push(pair, cJSON_CreateNumber(id))) {
        cJSON_Delete(pair);
        return oom(r);
    }
    *result = pair;
    return 0;
}

/* The vendor table has no DLPack export slot: a C library's __dlpack__(dl_device=, copy=) is
 * not reachable through the shim yet. */
static int op_array_dlpack(const ds__req *r, cJSON **result)
{
    ds_array x;
    (void)result;
    if (ds__arg_array(r, "array", &x) < 0) return -1;
    return no_slot(r);
}

static int op_array_from_dlpack(const ds__req *r, cJSON **result)
{
    ds_array src, x = NULL;
    ds_device dev;
    ds_copy copy;
    if (ds__arg_array(r, "x", &src) < 0 || ds__arg_device(r, "device", false, &dev) < 0 ||
        ds__arg_copy(r, "copy", &copy) < 0 || CALL(r, from_dlpack, src, dev, copy, &x) < 0)
        return -1;
    return array_result(r, x, result);
}

static int op_stream_default(const ds__req *r, cJSON **result)
{
    ds_device dev;
    ds_stream st = NULL;
    if (ds__arg_device(r, "device", true, &dev) < 0 || CALL(r, stream_default, dev, &st) < 0)
        return -1;
    return handle_result(r, DS__H_STREAM, st, false, result);
}

/* ---- default.* and soft.* ---- */

static int op_default_get(const ds__req *r, cJSON **result)
{
    ds_devobj d = NULL;
    if (CALL(r, default_get, &d) < 0) return -1;
    return device_result(r, d, result);
}

static int op_default_set(const ds__req *r, cJSON **result)
{
    ds_device dev;
    *result = NULL;
    if (ds__arg_device(r, "device", true, &dev) < 0) return -1;
    return CALL(r, default_set, dev);
}

static int op_default_unset(const ds__req *r, cJSON **result)
{
    *result = NULL;
    return CALL0(r, default_unset);
}

static int op_default_push(const ds__req *r, cJSON **result)
{
    ds_device dev;
    *result = NULL;
    if (ds__arg_device(r, "device", true, &dev) < 0) return -1;
    return CALL(r, default_push, dev);
}

static int op_default_pop(const ds__req *r, cJSON **result)
{
    *result = NULL;
    return CALL0(r, default_pop);
}

static int op_soft_get(const ds__req *r, cJSON **result)
{
    bool on = false;
    if (CALL(r, soft_get, &on) < 0) return -1;
    *result = cJSON_CreateBool(on);
    return 0;
}

static int op_soft_set(const ds__req *r, cJSON **result)
{
    bool on;
    *result = NULL;
    if (ds__arg_bool(r, "enabled", true, false, &on) < 0) return -1;
    return CALL(r, soft_set, on);
}

static int op_soft_unset(const ds__req *r, cJSON **result)
{
    *result = NULL;
    return CALL0(r, soft_unset);
}

/* ---- util.* ---- */

static int int_result(const ds__req *r, int64_t v, cJSON **result)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    *result = cJSON_CreateRaw(buf);
    return *result ? 0 : oom(r);
}

static int op_util_num_gpus(const ds__req *r, cJSON **result)
{
    int64_t n = 0;
    if (CALL(r, num_gpus, &n) < 0) return -1;
    return int_result(r, n, result);
}

static int op_util_num_cpu_cores(const ds__req *r, cJSON **result)
{
    int64_t n = 0;
    if (CALL(r, num_cpu_cores, &n) < 0) return -1;
    return int_result(r, n, result);
}

static int op_util_total_memory(const ds__req *r, cJSON **result)
{
    ds_device dev;
    int64_t n = 0;
    if (ds__arg_device(r, "device", true, &dev) < 0 || CALL(r, total_memory, dev, &n) < 0)
        return -1;
    return int_result(r, n, result);
}

static int op_util_used_memory(const ds__req *r, cJSON **result)
{
    ds_device dev;
    int64_t n = 0;
    if (ds__arg_device(r, "device", true, &dev) < 0 || CALL(r, used_memory, dev, &n) < 0) return -1;
    return int_result(r, n, result);
}

static int op_util_utilisation(const ds__req *r, cJSON **result)
{
    ds_device dev;
    double pct = 0;
    if (ds__arg_device(r, "device", true, &dev) < 0 || CALL(r, utilisation, dev, &pct) < 0)
        return -1;
    *result = cJSON_CreateNumber(pct);
    return *result ? 0 : oom(r);
}

/* ---- dtype.* ---- */

static int op_dtype_can_cast(const ds__req *r, cJSON **result)
{
    const cJSON *from = ds__arg(r, "from_");
    ds_array x;
    ds_dtype from_dtype, to;
    bool yes = false;
    if (from == NULL) return ds__arg_missing(r, "from_");
    if (ds__arg_array_or_dtype(r, from, "from_", &x, &from_dtype) < 0 ||
        ds__arg_dtype(r, "to", true, &to) < 0 || CALL(r, can_cast, x, from_dtype, to, &yes) < 0)
        return -1;
    *result = cJSON_CreateBool(yes);
    return *result ? 0 : oom(r);
}

static int op_dtype_result_type(const ds__req *r, cJSON **result)
{
    const cJSON *list = ds__arg(r, "args");
    ds_dtype out = DS_DTYPE_NONE;
    if (list == NULL) return ds__arg_missing(r, "args");
    if (!cJSON_IsArray(list))
        return ds__fail(r->e, PROTO, "TypeError",
                        "%s: argument 'args' must be a list of array handles and dtype names",
                        r->op);
    int n = cJSON_GetArraySize(list);
    if (n == 0)
        return ds__fail(r->e, PROTO, "ValueError",
                        "%s: argument 'args' is empty; result_type needs at least one", r->op);
    ds_array *xs = ds__calloc((size_t)n, sizeof *xs);
    ds_dtype *dts = ds__calloc((size_t)n, sizeof *dts);
    int rc = xs && dts ? 0 : oom(r), i = 0;
    for (const cJSON *v = list->child; v && rc == 0; v = v->next, i++) {
        char name[32];
        snprintf(name, sizeof name, "args[%d]", i);
        rc = ds__arg_array_or_dtype(r, v, name, &xs[i], &dts[i]);
    }
    if (rc == 0) rc = CALL(r, result_type, xs, dts, (size_t)n, &out);
    ds__free(xs);
    ds__free(dts);
    if (rc < 0) return -1;
    if (ds_dtype_name(out) == NULL)
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                        "%s: the adapter's callback succeeded but returned no dtype", r->op);
    *result = cJSON_CreateString(ds_dtype_name(out));
    return *result ? 0 : oom(r);
}

/* ---- array.tril, array.triu ---- */

static int tri(const ds__req *r, bool upper, cJSON **result)
{
    ds_array src, x = NULL;
    int64_t k;
    if (ds__arg_array(r, "x", &src) < 0 || ds__arg_int(r, "k", false, 0, &k) < 0 ||
        CALL(r, tri, upper, src, k, &x) < 0)
        return -1;
    return array_result(r, x, result);
}

static int op_array_tril(const ds__req *r, cJSON **result)
{
    return tri(r, false, result);
}

static int op_array_triu(const ds__req *r, cJSON **result)
{
    return tri(r, true, result);
}

/* ---- util.arrays_on_device ---- */

/* Asks the library for the arrays alive on dev: *xs (ds__calloc'd) and *n of them, each a
 * new reference the caller owns. */
static int arrays_alive(const ds__req *r, ds_device dev, ds_array **xs, size_t *n)
{
    size_t cap = 16;
    *xs = NULL;
    *n = 0;
    /* A library whose arrays change between two calls is asked again, a few times. */
    for (int tries = 0; tries < 4; tries++) {
        ds_array *got = ds__calloc(cap, sizeof *got);
        size_t have = 0;
        if (got == NULL) return oom(r);
        if (CALL(r, arrays_on_device, dev, got, cap, &have) < 0) {
            ds__free(got);
            return -1;
        }
        if (have <= cap) {
            *xs = got;
            *n = have;
            return 0;
        }
        for (size_t i = 0; i < cap; i++)
            release_obj(r, DS__H_ARRAY, got[i]);
        ds__free(got);
        cap = have;
    }
    return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                    "%s: the number of arrays alive kept growing between calls", r->op);
}

static int op_util_arrays_on_device(const ds__req *r, cJSON **result)
{
    ds_device dev;
    ds_array *xs;
    size_t n;
    if (ds__arg_device(r, "device", true, &dev) < 0 || arrays_alive(r, dev, &xs, &n) < 0) return -1;
    char count[32];
    snprintf(count, sizeof count, "%zu", n);
    cJSON *obj = cJSON_CreateObject(), *list = cJSON_CreateArray();
    int rc = 0;
    if (obj == NULL || list == NULL || !ds__put(obj, "count", cJSON_CreateRaw(count))) rc = oom(r);
    for (size_t i = 0; i < n; i++) {
        if (rc < 0) {
            release_obj(r, DS__H_ARRAY, xs[i]);
            continue;
        }
        if (xs[i] == NULL) {
            rc = ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                          "%s: the adapter's callback listed no object at %zu", r->op, i);
            continue;
        }
        /* An array already handed out keeps its handle (spec/protocol.md). */
        ds__handle *h = ds__handle_find_obj(r->s, DS__H_ARRAY, xs[i]);
        cJSON *name = NULL;
        if (h != NULL) {
            char buf[48];
            ds__handle_name(h, buf, sizeof buf);
            release_obj(r, DS__H_ARRAY, xs[i]);
            name = cJSON_CreateString(buf);
            rc = name ? 0 : oom(r);
        } else {
            rc = handle_result(r, DS__H_ARRAY, xs[i], false, &name);
        }
        if (rc == 0 && !ds__push(list, name)) rc = oom(r);
    }
    ds__free(xs);
    if (rc == 0) {
        rc = ds__put(obj, "arrays", list) ? 0 : oom(r);
        list = NULL; /* owned by obj now, or deleted by ds__put */
    }
    cJSON_Delete(list);
    if (rc < 0) {
        cJSON_Delete(obj);
        return -1;
    }
    *result = obj;
    return 0;
}

/* ---- dispatch ---- */

/* ---- OneFlow's dtype names and out= (version 4 slots) ---- */

static int op_dtype_describe(const ds__req *r, cJSON **result)
{
    const char *name;
    ds_dtype dt = DS_DTYPE_NONE;
    bool fp = false;
    if (ds__arg_string(r, "name", &name) < 0 || ds__string_for_library(r, "name", name) < 0 ||
        CALL(r, dtype_describe, name, &dt, &fp) < 0)
        return -1;
    if (ds_dtype_name(dt) == NULL)
        return ds__fail(r->e, DS__ORIGIN_LIBRARY, "TypeError",
                        "%s: the library's dtype for \"%.40s\" is none of the protocol's dtypes",
                        r->op, name);
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "name", ds_dtype_name(dt)) ||
        !cJSON_AddBoolToObject(o, "is_floating_point", fp)) {
        cJSON_Delete(o);
        return oom(r);
    }
    *result = o;
    return 0;
}

static int op_array_binary_into(const ds__req *r, cJSON **result)
{
    ds_operand x1, x2;
    ds_array out;
    ds_binary_fn which;
    if (arg_binary_fn(r, DS_DIVIDE, &which) < 0) return -1;
    if (ds__arg_operand(r, "x1", &x1) < 0 || ds__arg_operand(r, "x2", &x2) < 0 ||
        ds__arg_array(r, "out", &out) < 0 ||
        CALL(r, binary_into, which, x1, x2, out) < 0)
        return -1;
    *result = cJSON_CreateNull();
    return *result ? 0 : oom(r);
}

/* ---- OneFlow's devices and global arrays (version 3 slots) ---- */

static int op_device_parse_current(const ds__req *r, cJSON **result)
{
    const char *text;
    ds_devobj d = NULL;
    if (ds__arg_string(r, "text", &text) < 0 || ds__string_for_library(r, "text", text) < 0 ||
        CALL(r, device_parse_current, text, &d) < 0)
        return -1;
    return handle_result(r, DS__H_DEVICE, d, false, result);
}

static int op_device_set_current(const ds__req *r, cJSON **result)
{
    ds_devobj d = NULL;
    bool parsed = false;
    int rc = get_device_object(r, "device", &d, &parsed);
    if (rc == 0) rc = CALL(r, device_set_current, d);
    if (parsed) release_obj(r, DS__H_DEVICE, d);
    if (rc < 0) return -1;
    *result = cJSON_CreateNull();
    return *result ? 0 : oom(r);
}

static int op_array_get_device(const ds__req *r, cJSON **result)
{
    ds_array x;
    int64_t ordinal = 0;
    if (ds__arg_array(r, "array", &x) < 0 || CALL(r, array_get_device, x, &ordinal) < 0) return -1;
    *result = cJSON_CreateNumber((double)ordinal);
    return *result ? 0 : oom(r);
}

/* A placement argument: {"type": "cpu", "ranks": [0, 1]} or ranks [[0, 1], [2, 3]]. The
 * arrays are allocated here and freed with placement_clear. */
typedef struct placement_buf {
    ds_placement_arg arg;
    int64_t *ranks;
    size_t *row_len;
} placement_buf;

static void placement_clear(placement_buf *b)
{
    ds__free(b->ranks);
    ds__free(b->row_len);
    memset(b, 0, sizeof *b);
}

static int placement_decode(const ds__req *r, const cJSON *v, const char *name, bool ranks_needed,
                            placement_buf *b)
{
    memset(b, 0, sizeof *b);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(v, "type");
    const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(v, "ranks");
    if (!cJSON_IsObject(v) || !cJSON_IsString(type))
        return ds__fail(r->e, PROTO, "TypeError",
                        "%s: argument '%s' must be {\"type\": string, \"ranks\": list}", r->op,
                        name);
    for (const cJSON *k = v->child; k; k = k->next)
        if (strcmp(k->string, "type") != 0 && strcmp(k->string, "ranks") != 0)
            return ds__fail(r->e, PROTO, "TypeError", "%s: argument '%s' has an unknown key '%s'",
                            r->op, name, k->string);
    b->arg.type = type->valuestring;
    if (ds__string_for_library(r, name, b->arg.type) < 0) return -1;
    if (!ranks && !ranks_needed) return 0;
    if (!cJSON_IsArray(ranks))
        return ds__fail(r->e, PROTO, "TypeError", "%s: %s.ranks must be a list", r->op, name);
    int n = cJSON_GetArraySize(ranks);
    bool nested = n > 0 && cJSON_IsArray(ranks->child);
    size_t total = 0;
    for (const cJSON *e = ranks->child; e; e = e->next)
        total += nested && cJSON_IsArray(e) ? (size_t)cJSON_GetArraySize(e) : 1;
    b->ranks = ds__calloc(total + 1, sizeof *b->ranks);
    b->row_len = nested ? ds__calloc((size_t)n + 1, sizeof *b->row_len) : NULL;
    if (!b->ranks || (nested && !b->row_len)) {
        placement_clear(b);
        return oom(r);
    }
    size_t k = 0, row = 0;
    for (const cJSON *e = ranks->child; e; e = e->next, row++) {
        if (nested != cJSON_IsArray(e)) {
            placement_clear(b);
            return ds__fail(r->e, PROTO, "TypeError", "%s: %s.ranks mixes ranks and lists of ranks",
                            r->op, name);
        }
        const cJSON *items = nested ? e->child : e;
        for (const cJSON *x = items; x; x = nested ? x->next : NULL) {
            if (!ds__is_int(x)) {
                placement_clear(b);
                return ds__fail(r->e, PROTO, "TypeError", "%s: %s.ranks holds a non-integer", r->op,
                                name);
            }
            b->ranks[k++] = (int64_t)x->valuedouble;
            if (nested) b->row_len[row]++;
        }
    }
    b->arg.ranks = b->ranks;
    b->arg.nranks = k;
    b->arg.row_len = b->row_len;
    b->arg.nrows = nested ? (size_t)n : 0;
    return 0;
}

/* An sbp argument: {"split": dim}, "broadcast" or "partial_sum". */
static int sbp_decode(const ds__req *r, const cJSON *v, const char *name, ds_sbp_arg *out)
{
    if (cJSON_IsString(v) && strcmp(v->valuestring, "broadcast") == 0) {
        *out = (ds_sbp_arg){DS_SBP_BROADCAST, 0};
        return 0;
    }
    if (cJSON_IsString(v) && strcmp(v->valuestring, "partial_sum") == 0) {
        *out = (ds_sbp_arg){DS_SBP_PARTIAL_SUM, 0};
        return 0;
    }
    const cJSON *dim = cJSON_GetObjectItemCaseSensitive(v, "split");
    if (cJSON_IsObject(v) && cJSON_GetArraySize(v) == 1 && ds__is_int(dim)) {
        *out = (ds_sbp_arg){DS_SBP_SPLIT, (int64_t)dim->valuedouble};
        return 0;
    }
    return ds__fail(r->e, PROTO, "TypeError",
                    "%s: %s must be {\"split\": int}, \"broadcast\" or \"partial_sum\"", r->op,
                    name);
}

static int sbp_list_value(const ds__req *r, const cJSON *v, const char *name, ds_sbp_arg *out,
                          size_t *n)
{
    *n = 0;
    if (!v || cJSON_IsNull(v)) return 0;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1 || cJSON_GetArraySize(v) > DS_MAX_SBP)
        return ds__fail(r->e, PROTO, "TypeError", "%s: %s must be a list of 1 or %d sbp values",
                        r->op, name, DS_MAX_SBP);
    for (const cJSON *e = v->child; e; e = e->next)
        if (sbp_decode(r, e, name, &out[(*n)++]) < 0) return -1;
    return 0;
}

static int sbp_list_decode(const ds__req *r, const char *name, ds_sbp_arg *out, size_t *n)
{
    return sbp_list_value(r, ds__arg(r, name), name, out, n);
}

static cJSON *placement_json(const ds_placement_info *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *shape = cJSON_CreateArray();
    bool ok = o && ds__put(o, "str", cJSON_CreateString(p->str)) &&
              ds__put(o, "type", cJSON_CreateString(p->type)) && ds__put(o, "shape", shape);
    for (int i = 0; ok && i < p->ndim && i < DS_MAX_SBP; i++)
        ok = ds__push(shape, cJSON_CreateNumber((double)p->shape[i]));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static int op_global_placement(const ds__req *r, cJSON **result)
{
    const char *type, *all = NULL;
    if (ds__arg_string(r, "type", &type) < 0) return -1;
    const cJSON *allv = ds__arg(r, "all");
    if (allv && !cJSON_IsNull(allv)) {
        if (!cJSON_IsString(allv) || (strcmp(allv->valuestring, "placement.all") != 0 &&
                                      strcmp(allv->valuestring, "env.all_device_placement") != 0))
            return ds__fail(r->e, PROTO, "TypeError",
                            "%s: all must be \"placement.all\" or \"env.all_device_placement\"",
                            r->op);
        all = allv->valuestring;
    }
    cJSON *spec = cJSON_CreateObject();
    if (!spec || !ds__put(spec, "type", cJSON_CreateString(type))) {
        cJSON_Delete(spec);
        return oom(r);
    }
    const cJSON *ranks = ds__arg(r, "ranks");
    if (ranks && !ds__put(spec, "ranks", cJSON_Duplicate(ranks, true))) {
        cJSON_Delete(spec);
        return oom(r);
    }
    placement_buf b;
    int rc = placement_decode(r, spec, "ranks", all == NULL, &b);
    if (rc < 0) {
        cJSON_Delete(spec);
        return -1;
    }
    ds_placement_info info;
    memset(&info, 0, sizeof info);
    /* b.arg.type points into spec, which lives until after the call. */
    rc = CALL(r, placement_describe, &b.arg, all != NULL,
              all != NULL && strcmp(all, "env.all_device_placement") == 0, &info);
    placement_clear(&b);
    cJSON_Delete(spec);
    if (rc < 0) return -1;
    *result = placement_json(&info);
    return *result ? 0 : oom(r);
}

static int op_global_placement_equal(const ds__req *r, cJSON **result)
{
    placement_buf a, b;
    bool eq = false;
    if (!ds__arg(r, "a")) return ds__arg_missing(r, "a");
    if (!ds__arg(r, "b")) return ds__arg_missing(r, "b");
    if (placement_decode(r, ds__arg(r, "a"), "a", true, &a) < 0) return -1;
    if (placement_decode(r, ds__arg(r, "b"), "b", true, &b) < 0) {
        placement_clear(&a);
        return -1;
    }
    int rc = CALL(r, placement_equal, &a.arg, &b.arg, &eq);
    placement_clear(&a);
    placement_clear(&b);
    if (rc < 0) return -1;
    *result = cJSON_CreateBool(eq);
    return *result ? 0 : oom(r);
}

static int op_global_sbp(const ds__req *r, cJSON **result)
{
    ds_sbp_arg s;
    char text[128] = "";
    if (!ds__arg(r, "sbp")) return ds__arg_missing(r, "sbp");
    if (sbp_decode(r, ds__arg(r, "sbp"), "sbp", &s) < 0 ||
        CALL(r, sbp_describe, s, text, sizeof text) < 0)
        return -1;
    *result = cJSON_CreateString(text);
    return *result ? 0 : oom(r);
}

/* global.make's result (also global.binary's and global.sum's). */
static int global_json(const ds__req *r, const ds_global_info *info, cJSON **out)
{
    cJSON *local = NULL, *value = NULL;
    if (ds__buffer_encode(&info->local, DS_PROTOCOL_MAX_REPLY, &local, r->e) < 0 ||
        ds__buffer_encode(&info->value, DS_PROTOCOL_MAX_REPLY, &value, r->e) < 0) {
        cJSON_Delete(local);
        return -1;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON *shape = cJSON_CreateArray(), *sbps = cJSON_CreateArray();
    if (!o) {
        cJSON_Delete(shape);
        cJSON_Delete(sbps);
        cJSON_Delete(local);
        cJSON_Delete(value);
        return oom(r);
    }
    /* ds__put attaches an item or frees it, so each is put whatever came before. */
    bool ok = ds__put(o, "shape", shape);
    ok = ds__put(o, "sbp", sbps) && ok;
    ok = ds__put(o, "dtype", cJSON_CreateString(ds_dtype_name(info->dtype))) && ok;
    ok = ds__put(o, "placement", cJSON_CreateString(info->placement)) && ok;
    ok = ds__put(o, "local", local) && ok;
    ok = ds__put(o, "value", value) && ok;
    for (int i = 0; ok && i < info->ndim; i++)
        ok = ds__push(shape, cJSON_CreateNumber((double)info->shape[i]));
    for (size_t i = 0; ok && i < info->nsbp && i < DS_MAX_SBP; i++)
        ok = ds__push(sbps, cJSON_CreateString(info->sbp[i]));
    if (!ok) {
        cJSON_Delete(o);
        return oom(r);
    }
    *out = o;
    return 0;
}

static int op_global_make(const ds__req *r, cJSON **result)
{
    ds_sbp_arg sbp[DS_MAX_SBP], to[DS_MAX_SBP];
    size_t nsbp = 0, nto = 0, npieces = 0;
    placement_buf pb;
    ds_buffer *pieces = NULL;
    ds_global_info info;
    memset(&info, 0, sizeof info);
    const cJSON *value = ds__arg(r, "value"), *locals = ds__arg(r, "locals");
    if (!ds__arg(r, "placement")) return ds__arg_missing(r, "placement");
    if (!ds__arg(r, "sbp")) return ds__arg_missing(r, "sbp");
    if ((value != NULL) == (locals != NULL))
        return ds__fail(r->e, PROTO, "TypeError", "%s: give exactly one of value and locals",
                        r->op);
    if (locals && (!cJSON_IsArray(locals) || cJSON_GetArraySize(locals) < 1))
        return ds__fail(r->e, PROTO, "TypeError", "%s: locals must be a non-empty list", r->op);
    if (sbp_list_decode(r, "sbp", sbp, &nsbp) < 0 || sbp_list_decode(r, "to", to, &nto) < 0)
        return -1;
    if (placement_decode(r, ds__arg(r, "placement"), "placement", true, &pb) < 0) return -1;
    size_t want = locals ? (size_t)cJSON_GetArraySize(locals) : 1;
    pieces = ds__calloc(want, sizeof *pieces);
    int rc = pieces ? 0 : oom(r);
    for (const cJSON *e = locals ? locals->child : value; rc == 0 && e;
         e = locals ? e->next : NULL) {
        rc = ds__buffer_decode(e, locals ? "locals" : "value", &pieces[npieces], r->e);
        if (rc == 0) npieces++;
    }
    if (rc == 0)
        rc = CALL(r, global_make, pieces, npieces, locals != NULL, &pb.arg, sbp, nsbp, to, nto,
                  &info);
    cJSON *o = NULL;
    if (rc == 0) rc = global_json(r, &info, &o);
    for (size_t i = 0; i < npieces; i++)
        ds__buffer_clear(&pieces[i]);
    ds__free(pieces);
    ds__buffer_clear(&info.local);
    ds__buffer_clear(&info.value);
    placement_clear(&pb);
    if (rc < 0) return -1;
    *result = o;
    return 0;
}

/* A global array argument of global.binary and global.sum: {"value" or "locals",
 * "placement", "sbp"}, decoded as global.make decodes its arguments; freed with
 * global_clear. */
typedef struct global_buf {
    ds_global_arg arg;
    placement_buf pb;
    ds_buffer *pieces;
    size_t npieces;
    ds_sbp_arg sbp[DS_MAX_SBP];
} global_buf;

static void global_clear(global_buf *g)
{
    for (size_t i = 0; i < g->npieces; i++)
        ds__buffer_clear(&g->pieces[i]);
    ds__free(g->pieces);
    placement_clear(&g->pb);
    memset(g, 0, sizeof *g);
}

static int global_decode(const ds__req *r, const char *name, global_buf *g)
{
    memset(g, 0, sizeof *g);
    const cJSON *v = ds__arg(r, name);
    if (!v) return ds__arg_missing(r, name);
    if (!cJSON_IsObject(v))
        return ds__fail(r->e, PROTO, "TypeError",
                        "%s: %s must be {\"value\" or \"locals\", \"placement\", \"sbp\"}", r->op,
                        name);
    for (const cJSON *k = v->child; k; k = k->next)
        if (strcmp(k->string, "value") != 0 && strcmp(k->string, "locals") != 0 &&
            strcmp(k->string, "placement") != 0 && strcmp(k->string, "sbp") != 0)
            return ds__fail(r->e, PROTO, "TypeError", "%s: %s has an unknown key '%s'", r->op, name,
                            k->string);
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(v, "value");
    const cJSON *locals = cJSON_GetObjectItemCaseSensitive(v, "locals");
    const cJSON *placement = cJSON_GetObjectItemCaseSensitive(v, "placement");
    const cJSON *sbp = cJSON_GetObjectItemCaseSensitive(v, "sbp");
    if ((value != NULL) == (locals != NULL))
        return ds__fail(r->e, PROTO, "TypeError",
                        "%s: %s must give exactly one of value and locals", r->op, name);
    if (locals && (!cJSON_IsArray(locals) || cJSON_GetArraySize(locals) < 1))
        return ds__fail(r->e, PROTO, "TypeError", "%s: %s.locals must be a non-empty list", r->op,
                        name);
    if (!placement || !sbp)
        return ds__fail(r->e, PROTO, "TypeError", "%s: %s needs placement and sbp", r->op, name);
    if (sbp_list_value(r, sbp, name, g->sbp, &g->arg.nsbp) < 0) return -1;
    if (placement_decode(r, placement, name, true, &g->pb) < 0) return -1;
    size_t want = locals ? (size_t)cJSON_GetArraySize(locals) : 1;
    g->pieces = ds__calloc(want, sizeof *g->pieces);
    if (!g->pieces) {
        global_clear(g);
        return oom(r);
    }
    for (const cJSON *e = locals ? locals->child : value; e; e = locals ? e->next : NULL) {
        if (ds__buffer_decode(e, name, &g->pieces[g->npieces], r->e) < 0) {
            global_clear(g);
            return -1;
        }
        g->npieces++;
    }
    g->arg.pieces = g->pieces;
    g->arg.npieces = g->npieces;
    g->arg.from_local = locals != NULL;
    g->arg.placement = &g->pb.arg;
    g->arg.sbp = g->sbp;
    return 0;
}

/* Finishes global.binary and global.sum: the result, and every buffer freed. */
static int global_finish(const ds__req *r, int rc, ds_global_info *info, cJSON **result)
{
    cJSON *o = NULL;
    if (rc == 0) rc = global_json(r, info, &o);
    ds__buffer_clear(&info->local);
    ds__buffer_clear(&info->value);
    if (rc < 0) return -1;
    *result = o;
    return 0;
}

static int op_global_binary(const ds__req *r, cJSON **result)
{
    ds_binary_fn which;
    if (arg_binary_fn(r, DS_DIVIDE, &which) < 0) return -1;
    global_buf a, b;
    if (global_decode(r, "x1", &a) < 0) return -1;
    if (global_decode(r, "x2", &b) < 0) {
        global_clear(&a);
        return -1;
    }
    ds_global_info info;
    memset(&info, 0, sizeof info);
    int rc = CALL(r, global_binary, which, &a.arg, &b.arg, &info);
    global_clear(&a);
    global_clear(&b);
    return global_finish(r, rc, &info, result);
}

static int op_global_sum(const ds__req *r, cJSON **result)
{
    global_buf x;
    int64_t axis = 0;
    const cJSON *av = ds__arg(r, "axis");
    bool has_axis = av && !cJSON_IsNull(av);
    if (has_axis && !ds__is_int(av))
        return ds__fail(r->e, PROTO, "TypeError", "%s: axis must be an integer", r->op);
    if (has_axis) axis = (int64_t)av->valuedouble;
    if (global_decode(r, "x", &x) < 0) return -1;
    ds_global_info info;
    memset(&info, 0, sizeof info);
    int rc = CALL(r, global_sum, &x.arg, has_axis ? &axis : NULL, &info);
    global_clear(&x);
    return global_finish(r, rc, &info, result);
}

/* call (spec/protocol.md, "call"): the vendor table has no name-dispatched slot yet, so the
 * shim cannot express the op for any library. */
static int op_call(const ds__req *r, cJSON **result)
{
    (void)result;
    return ds__fail(r->e, DS__ORIGIN_ADAPTER, "NotImplementedError",
                    "%s: this shim has no slot for the generic call yet", r->op);
}

/* Every op of spec/ops.json with its handler and the arguments it defines: an op added there
 * and not implemented here does not compile. */
static const struct {
    const char *name;
    int (*run)(const ds__req *r, cJSON **result);
    const char *const *args;
} ops[] = {
#define X(name, id, args) {name, op_##id, args},
    DS__OPS(X)
#undef X
};

int ds__dispatch(ds__session *s, const char *op, const cJSON *args, cJSON **result, ds__err *e)
{
    ds__req r = {s, s->vendor, op, args, e};
    *result = NULL;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (strcmp(ops[i].name, op) != 0) continue;
        if (ops[i].run != op_hello && !s->hello_ok)
            return ds__fail(e, PROTO, "RuntimeError",
                            "%s: no successful hello yet; hello must come first", op);
        /* Every argument must be one the op defines: a misspelt name is an error, not a
         * default (spec/protocol.md, "Messages"). */
        if (ds__args_check(&r, ops[i].args) < 0) return -1;
        return ops[i].run(&r, result);
    }
    if (!s->hello_ok)
        return ds__fail(e, PROTO, "RuntimeError",
                        "%.60s: no successful hello yet; hello must come first", op);
    return ds__fail(e, DS__ORIGIN_ADAPTER, "NotImplementedError",
                    "unknown op \"%.60s\" (this adapter speaks protocol %d)", op,
                    DS_PROTOCOL_VERSION);
}
