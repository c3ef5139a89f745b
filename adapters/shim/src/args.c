/*
 * args.c: decoding an op's arguments from its request. Each decoder names the op and the
 * argument in its error (origin "protocol"): TypeError for a value of the wrong type or a
 * missing or unexpected argument, ValueError for a value of the right type that is not
 * acceptable (an unknown dtype, a handle that does not exist).
 */
#include "args.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PROTO DS__ORIGIN_PROTOCOL

const cJSON *ds__arg(const ds__req *r, const char *name)
{
    return r->args ? cJSON_GetObjectItemCaseSensitive(r->args, name) : NULL;
}

/* Every argument must be one the op knows: a misspelt name is an error, not a default. */
int ds__args_check(const ds__req *r, const char *const *allowed)
{
    if (r->args == NULL) return 0;
    for (const cJSON *a = r->args->child; a; a = a->next) {
        bool known = false;
        for (const char *const *n = allowed; *n; n++)
            if (strcmp(a->string, *n) == 0) known = true;
        if (!known)
            return ds__fail(r->e, PROTO, "TypeError", "%s: unexpected argument '%s'", r->op,
                            a->string);
    }
    return 0;
}

int ds__arg_missing(const ds__req *r, const char *name)
{
    return ds__fail(r->e, PROTO, "TypeError", "%s: missing argument '%s'", r->op, name);
}

bool ds__is_int(const cJSON *v)
{
    int64_t i;
    return dsj_get_int64(v, &i);
}

/* An integer argument; `required` false leaves *out = dflt when absent or null. */
int ds__arg_int(const ds__req *r, const char *name, bool required, int64_t dflt, int64_t *out)
{
    const cJSON *v = ds__arg(r, name);
    *out = dflt;
    if (v == NULL || (!required && cJSON_IsNull(v))) return required ? ds__arg_missing(r, name) : 0;
    if (!dsj_get_int64(v, out))
        return ds__fail(r->e, PROTO, "TypeError", "%s: argument '%s' must be an int64 integer",
                        r->op, name);
    return 0;
}

int ds__arg_bool(const ds__req *r, const char *name, bool required, bool dflt, bool *out)
{
    const cJSON *v = ds__arg(r, name);
    *out = dflt;
    if (v == NULL || (!required && cJSON_IsNull(v))) return required ? ds__arg_missing(r, name) : 0;
    if (!cJSON_IsBool(v))
        return ds__fail(r->e, PROTO, "TypeError", "%s: argument '%s' must be true or false", r->op,
                        name);
    *out = cJSON_IsTrue(v);
    return 0;
}

int ds__arg_string(const ds__req *r, const char *name, const char **out)
{
    const cJSON *v = ds__arg(r, name);
    if (v == NULL) return ds__arg_missing(r, name);
    if (!cJSON_IsString(v))
        return ds__fail(r->e, PROTO, "TypeError", "%s: argument '%s' must be a string", r->op,
                        name);
    *out = v->valuestring;
    return 0;
}

int ds__string_for_library(const ds__req *r, const char *name, const char *s)
{
    if (!dsj_string_has_nul(s)) return 0;
    char raw[64];
    size_t n = strlen(s) < sizeof raw ? dsj_string_decode(s, raw) : 0;
    size_t at = n ? (size_t)((const char *)memchr(raw, '\0', n) - raw) : 0;
    return ds__fail(r->e, DS__ORIGIN_LIBRARY, "ValueError",
                    "%s: argument '%s' holds a NUL character (at byte %zu): a C string cannot "
                    "carry it, so the library was not called (spec/decisions.md, strings with "
                    "NUL)",
                    r->op, name, at);
}

int ds__arg_dtype(const ds__req *r, const char *name, bool required, ds_dtype *out)
{
    const cJSON *v = ds__arg(r, name);
    *out = DS_DTYPE_NONE;
    if (v == NULL || (!required && cJSON_IsNull(v))) return required ? ds__arg_missing(r, name) : 0;
    if (!cJSON_IsString(v))
        return ds__fail(r->e, PROTO, "TypeError", "%s: argument '%s' must be a dtype name", r->op,
                        name);
    *out = ds_dtype_from_name(v->valuestring);
    if (*out == DS_DTYPE_NONE)
        return ds__fail(r->e, PROTO, "ValueError", "%s: argument '%s': unknown dtype \"%.40s\"",
                        r->op, name, v->valuestring);
    return 0;
}

/* Looks up a handle of `kind` given as the string `v` (argument `name`). */
int ds__arg_handle(const ds__req *r, const cJSON *v, const char *name, ds__hkind kind, void **out)
{
    static const char *const kinds[] = {"device", "array", "stream"};
    int said;
    if (!cJSON_IsString(v))
        return ds__fail(r->e, PROTO, "TypeError", "%s: argument '%s' must be a %s handle", r->op,
                        name, kinds[kind]);
    ds__handle *h = ds__handle_find(r->s, v->valuestring, &said);
    if (said < 0)
        return ds__fail(r->e, PROTO, "ValueError",
                        "%s: argument '%s': \"%.60s\" is not a handle (type#number)", r->op, name,
                        v->valuestring);
    if (said != (int)kind)
        return ds__fail(r->e, PROTO, "TypeError",
                        "%s: argument '%s': \"%.60s\" is a %s handle, a %s handle is needed", r->op,
                        name, v->valuestring, kinds[said], kinds[kind]);
    if (h == NULL)
        return ds__fail(r->e, PROTO, "ValueError",
                        "%s: argument '%s': unknown handle \"%.60s\" (never made, or dropped by "
                        "reset)",
                        r->op, name, v->valuestring);
    *out = h->obj;
    return 0;
}

int ds__arg_array(const ds__req *r, const char *name, ds_array *out)
{
    const cJSON *v = ds__arg(r, name);
    if (v == NULL) return ds__arg_missing(r, name);
    return ds__arg_handle(r, v, name, DS__H_ARRAY, out);
}

/* A device argument: null/absent, a device handle, or {"str": text}. `required` means the
 * key must be present (null is still a value). */
/* One device value v (null, a handle or {"str": text}) named `name` in messages. */
static int device_value(const ds__req *r, const cJSON *v, const char *name, ds_device *out)
{
    memset(out, 0, sizeof *out);
    if (cJSON_IsNull(v)) return 0;
    if (cJSON_IsString(v)) {
        out->kind = DS_DEVICE_OBJECT;
        return ds__arg_handle(r, v, name, DS__H_DEVICE, &out->object);
    }
    const cJSON *str = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, "str") : NULL;
    if (str != NULL && cJSON_IsString(str) && cJSON_GetArraySize(v) == 1) {
        out->kind = DS_DEVICE_STRING;
        out->str = str->valuestring;
        return ds__string_for_library(r, name, out->str);
    }
    return ds__fail(r->e, PROTO, "TypeError",
                    "%s: argument '%s' must be null, a device handle or {\"str\": text}", r->op,
                    name);
}

int ds__arg_device(const ds__req *r, const char *name, bool required, ds_device *out)
{
    const cJSON *v = ds__arg(r, name);
    memset(out, 0, sizeof *out);
    if (v == NULL) return required ? ds__arg_missing(r, name) : 0;
    return device_value(r, v, name, out);
}

int ds__arg_devices(const ds__req *r, const char *name, ds_device *out, size_t cap, size_t *n)
{
    const cJSON *list = ds__arg(r, name);
    if (list == NULL) return ds__arg_missing(r, name);
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) < 1)
        return ds__fail(r->e, PROTO, "TypeError",
                        "%s: argument '%s' must be a non-empty list of devices", r->op, name);
    if ((size_t)cJSON_GetArraySize(list) > cap)
        return ds__fail(r->e, PROTO, "ValueError",
                        "%s: argument '%s' lists %d devices; at most %zu", r->op, name,
                        cJSON_GetArraySize(list), cap);
    size_t i = 0;
    for (const cJSON *v = list->child; v; v = v->next, i++) {
        char label[64];
        snprintf(label, sizeof label, "%s[%zu]", name, i);
        if (device_value(r, v, label, &out[i]) < 0) return -1;
        if (out[i].kind == DS_DEVICE_NONE)
            return ds__fail(r->e, PROTO, "TypeError",
                            "%s: argument '%s' must be a device, not null", r->op, label);
    }
    *n = i;
    return 0;
}

int ds__arg_stream(const ds__req *r, const char *name, ds_stream *out)
{
    const cJSON *v = ds__arg(r, name);
    *out = NULL;
    if (v == NULL || cJSON_IsNull(v)) return 0;
    return ds__arg_handle(r, v, name, DS__H_STREAM, out);
}

int ds__arg_scalar(const ds__req *r, const char *name, bool required, ds_scalar *out, bool *present)
{
    const cJSON *v = ds__arg(r, name);
    char label[96];
    if (present) *present = false;
    if (v == NULL || (!required && cJSON_IsNull(v))) return required ? ds__arg_missing(r, name) : 0;
    snprintf(label, sizeof label, "%s: %s", r->op, name);
    if (ds__scalar_decode(v, label, ds__wide_ints(r), out, r->e) < 0) return -1;
    if (present) *present = true;
    return 0;
}

int ds__arg_shape(const ds__req *r, const char *name, int64_t *shape, int *ndim)
{
    const cJSON *v = ds__arg(r, name);
    if (v == NULL) return ds__arg_missing(r, name);
    /* A single integer is a 1-D shape, as in Python's zeros(3). */
    if (dsj_get_int64(v, &shape[0])) {
        *ndim = 1;
        return 0;
    }
    if (!cJSON_IsArray(v))
        return ds__fail(r->e, PROTO, "TypeError", "%s: argument '%s' must be a list of integers",
                        r->op, name);
    int n = cJSON_GetArraySize(v);
    if (n > DS_MAX_NDIM)
        return ds__fail(r->e, PROTO, "ValueError",
                        "%s: argument '%s' has %d dimensions, more than %d", r->op, name, n,
                        DS_MAX_NDIM);
    int k = 0;
    for (const cJSON *d = v->child; d; d = d->next, k++) {
        if (!dsj_get_int64(d, &shape[k]))
            return ds__fail(r->e, PROTO, "TypeError", "%s: argument '%s'[%d] must be an integer",
                            r->op, name, k);
    }
    *ndim = n;
    return 0;
}

int ds__arg_copy(const ds__req *r, const char *name, ds_copy *out)
{
    const cJSON *v = ds__arg(r, name);
    *out = DS_COPY_IF_NEEDED;
    if (v == NULL || cJSON_IsNull(v)) return 0;
    if (!cJSON_IsBool(v))
        return ds__fail(r->e, PROTO, "TypeError", "%s: argument '%s' must be true, false or null",
                        r->op, name);
    *out = cJSON_IsTrue(v) ? DS_COPY_ALWAYS : DS_COPY_NEVER;
    return 0;
}

int ds__arg_operand(const ds__req *r, const char *name, ds_operand *out)
{
    const cJSON *v = ds__arg(r, name);
    memset(out, 0, sizeof *out);
    if (v == NULL) return ds__arg_missing(r, name);
    if (cJSON_IsString(v)) {
        out->is_array = true;
        return ds__arg_handle(r, v, name, DS__H_ARRAY, &out->array);
    }
    return ds__arg_scalar(r, name, true, &out->scalar, NULL);
}

/* One argument that is an array handle or a dtype name: *x the array (NULL for a dtype),
 * *dtype the dtype. `name` labels it in messages ("from_", "args[2]"). */
int ds__arg_array_or_dtype(const ds__req *r, const cJSON *v, const char *name, ds_array *x,
                           ds_dtype *dtype)
{
    *x = NULL;
    *dtype = DS_DTYPE_NONE;
    if (!cJSON_IsString(v))
        return ds__fail(r->e, PROTO, "TypeError",
                        "%s: argument '%s' must be an array handle or a dtype name", r->op, name);
    *dtype = ds_dtype_from_name(v->valuestring);
    if (*dtype != DS_DTYPE_NONE) return 0;
    if (strchr(v->valuestring, '#') == NULL)
        return ds__fail(r->e, PROTO, "ValueError",
                        "%s: argument '%s': \"%.40s\" is neither a dtype name nor an array handle",
                        r->op, name, v->valuestring);
    return ds__arg_handle(r, v, name, DS__H_ARRAY, x);
}
