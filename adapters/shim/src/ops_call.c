/*
 * ops_call.c: the generic call op (call): the request's call values decoded into ds_value
 * trees (spec/protocol.md, "Call values"), the table's name-dispatched `call` slot, and its
 * result encoded back (arrays as new handles, a tuple of arrays as a list, `pick`).
 */
#include "ops.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Nesting of tuples and lists in one argument: deeper is refused (a key of __getitem__ is
 * a tuple of at most DS_MAX_NDIM items, each at most a flat value). */
#define CALL_MAX_DEPTH 8
/* Positional and keyword arguments of one call. */
#define CALL_MAX_ARGS 32

static void values_free(ds_value *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i].kind == DS_VALUE_TUPLE || v[i].kind == DS_VALUE_LIST) {
            values_free((ds_value *)v[i].items, v[i].n);
            ds__free((void *)v[i].items);
        }
    }
}

static bool is_handle_text(const char *s)
{
    static const char *const prefixes[] = {"array#", "device#", "stream#"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(s, prefixes[i], strlen(prefixes[i])) == 0) return true;
    return false;
}

static int decode(const ds__req *r, const cJSON *v, const char *label, int depth, ds_value *out);

static int decode_items(const ds__req *r, const cJSON *list, const char *label, int depth,
                        ds_value *out, ds_value_kind kind)
{
    if (!cJSON_IsArray(list))
        return ds__fail(r->e, PROTO, "TypeError", "%s: %s: a tuple or list takes a JSON list",
                        r->op, label);
    if (depth >= CALL_MAX_DEPTH)
        return ds__fail(r->e, PROTO, "ValueError", "%s: %s: tuples nested deeper than %d", r->op,
                        label, CALL_MAX_DEPTH);
    size_t n = (size_t)cJSON_GetArraySize(list);
    ds_value *items = n ? ds__calloc(n, sizeof *items) : NULL;
    if (n && items == NULL) return ds__oom(r);
    out->kind = kind;
    out->items = items;
    out->n = 0;
    for (const cJSON *it = list->child; it; it = it->next) {
        char sub[96];
        snprintf(sub, sizeof sub, "%s[%zu]", label, out->n);
        if (decode(r, it, sub, depth + 1, &items[out->n]) < 0) return -1;
        out->n++;
    }
    return 0;
}

static int decode_slice(const ds__req *r, const cJSON *v, const char *label, ds_value *out)
{
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
        return ds__fail(r->e, PROTO, "TypeError", "%s: %s: {\"slice\": [start, stop, step]}", r->op,
                        label);
    out->kind = DS_VALUE_SLICE;
    int i = 0;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        if (cJSON_IsNull(it)) continue;
        if (!ds__is_int(it))
            return ds__fail(r->e, PROTO, "TypeError", "%s: %s: a slice's bounds are ints or null",
                            r->op, label);
        out->slice[i] = (int64_t)it->valuedouble;
        out->slice_set[i] = true;
    }
    return 0;
}

/* One call value (spec/protocol.md, "Call values") into *out (zeroed here). */
static int decode(const ds__req *r, const cJSON *v, const char *label, int depth, ds_value *out)
{
    memset(out, 0, sizeof *out);
    if (cJSON_IsNull(v)) return 0;
    if (cJSON_IsBool(v) || cJSON_IsNumber(v)) {
        out->kind = DS_VALUE_SCALAR;
        return ds__scalar_decode(v, label, ds__wide_ints(r), &out->scalar, r->e);
    }
    if (cJSON_IsString(v)) {
        if (!is_handle_text(v->valuestring)) {
            out->kind = DS_VALUE_STRING;
            out->str = v->valuestring;
            return ds__string_for_library(r, label, out->str);
        }
        if (strncmp(v->valuestring, "array#", 6) == 0) {
            out->kind = DS_VALUE_ARRAY;
            return ds__arg_handle(r, v, label, DS__H_ARRAY, &out->array);
        }
        if (strncmp(v->valuestring, "device#", 7) == 0) {
            out->kind = DS_VALUE_DEVICE;
            out->device.kind = DS_DEVICE_OBJECT;
            return ds__arg_handle(r, v, label, DS__H_DEVICE, &out->device.object);
        }
        return ds__fail(r->e, PROTO, "TypeError", "%s: %s: a stream is no call value", r->op,
                        label);
    }
    if (cJSON_IsArray(v))
        return ds__fail(r->e, PROTO, "TypeError",
                        "%s: %s: a list is written {\"list\": [...]} or {\"tuple\": [...]}", r->op,
                        label);
    if (!cJSON_IsObject(v) || cJSON_GetArraySize(v) != 1)
        return ds__fail(r->e, PROTO, "TypeError", "%s: %s: not a call value", r->op, label);
    const cJSON *inner = v->child;
    const char *key = inner->string;
    if (!strcmp(key, "scalar") || !strcmp(key, "complex")) {
        out->kind = DS_VALUE_SCALAR;
        return ds__scalar_decode(v, label, ds__wide_ints(r), &out->scalar, r->e);
    }
    if (!strcmp(key, "dtype")) {
        out->kind = DS_VALUE_DTYPE;
        out->dtype = cJSON_IsString(inner) ? ds_dtype_from_name(inner->valuestring) : DS_DTYPE_NONE;
        if (out->dtype == DS_DTYPE_NONE)
            return ds__fail(r->e, PROTO, "ValueError", "%s: %s: unknown dtype", r->op, label);
        return 0;
    }
    if (!strcmp(key, "str")) {
        if (!cJSON_IsString(inner))
            return ds__fail(r->e, PROTO, "TypeError", "%s: %s: a device string is {\"str\": text}",
                            r->op, label);
        out->kind = DS_VALUE_DEVICE;
        out->device.kind = DS_DEVICE_STRING;
        out->device.str = inner->valuestring;
        return ds__string_for_library(r, label, out->device.str);
    }
    if (!strcmp(key, "tuple")) return decode_items(r, inner, label, depth, out, DS_VALUE_TUPLE);
    if (!strcmp(key, "list")) return decode_items(r, inner, label, depth, out, DS_VALUE_LIST);
    if (!strcmp(key, "slice")) return decode_slice(r, inner, label, out);
    if (!strcmp(key, "ellipsis")) {
        if (!cJSON_IsTrue(inner))
            return ds__fail(r->e, PROTO, "TypeError",
                            "%s: %s: the ellipsis is {\"ellipsis\": true}", r->op, label);
        out->kind = DS_VALUE_ELLIPSIS;
        return 0;
    }
    return ds__fail(r->e, PROTO, "TypeError", "%s: %s: unknown call value {\"%.40s\": ...}", r->op,
                    label, key);
}

/* A scalar result as JSON: a float without a JSON number is {"scalar": "nan"}. */
static cJSON *encode_float(double f)
{
    if (isfinite(f)) return cJSON_CreateNumber(f);
    cJSON *o = cJSON_CreateObject();
    if (o == NULL) return NULL;
    const char *text = isnan(f) ? "nan" : (f > 0 ? "inf" : "-inf");
    if (!ds__put(o, "scalar", cJSON_CreateString(text))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *encode_scalar(const ds_scalar *s)
{
    switch (s->kind) {
    case DS_SCALAR_BOOL:
        return cJSON_CreateBool(s->b);
    case DS_SCALAR_INT: {
        if (!s->u && s->i > -(INT64_C(1) << 53) && s->i < (INT64_C(1) << 53))
            return cJSON_CreateNumber((double)s->i);
        char text[32];
        if (s->u)
            snprintf(text, sizeof text, "%llu", (unsigned long long)(uint64_t)s->i);
        else
            snprintf(text, sizeof text, "%lld", (long long)s->i);
        cJSON *o = cJSON_CreateObject();
        if (o != NULL && !ds__put(o, "scalar", cJSON_CreateString(text))) {
            cJSON_Delete(o);
            return NULL;
        }
        return o;
    }
    case DS_SCALAR_FLOAT:
        return encode_float(s->f);
    case DS_SCALAR_COMPLEX: {
        cJSON *o = cJSON_CreateObject(), *pair = cJSON_CreateArray();
        if (o == NULL || pair == NULL || !ds__put(o, "complex", pair)) {
            cJSON_Delete(o);
            return NULL;
        }
        cJSON *re = encode_float(s->f), *im = encode_float(s->im);
        if (re == NULL || im == NULL) {
            cJSON_Delete(re);
            cJSON_Delete(im);
            cJSON_Delete(o);
            return NULL;
        }
        cJSON_AddItemToArray(pair, re);
        cJSON_AddItemToArray(pair, im);
        return o;
    }
    }
    return NULL;
}

/* The room ds_call_result_reserve last gave on this thread: after the slot, `many` must be it
 * (or NULL), so that the shim never frees storage a slot pointed `many` at itself. */
static _Thread_local ds_array *reserved_many;

ds_array *ds_call_result_reserve(ds_call_result *out, size_t n)
{
    if (out->many == reserved_many) ds__free(out->many);
    out->many = NULL;
    reserved_many = NULL;
    out->n = 0;
    if (n <= DS_CALL_MAX_RESULTS) {
        out->n = n;
        return out->arrays;
    }
    out->many = ds__calloc(n, sizeof *out->many);
    if (out->many == NULL) {
        ds_error("MemoryError", "ds_call_result_reserve: out of memory for %zu arrays", n);
        return NULL;
    }
    out->n = n;
    reserved_many = out->many;
    return out->many;
}

/* The arrays of a tuple result: many when the slot reserved room, else the inline ones. */
static ds_array *result_arrays(ds_call_result *res)
{
    return res->many ? res->many : res->arrays;
}

static void release_results(const ds__req *r, ds_call_result *res, size_t from)
{
    ds_array *xs = result_arrays(res);
    for (size_t i = from; i < res->n; i++)
        if (xs[i] != NULL) ds__release_obj(r, DS__H_ARRAY, xs[i]);
}

/* A tuple result the reply can carry: n within the room the slot had (else the slot's
 * mistake, never cut short) and within DS_CALL_MAX_ITEMS (spec/protocol.md, "Limits").
 * Releases its arrays when it cannot be carried. */
static int check_tuple(const ds__req *r, ds_call_result *res)
{
    if (res->n > DS_CALL_MAX_RESULTS && res->many == NULL) {
        size_t n = res->n;
        res->n = DS_CALL_MAX_RESULTS;
        release_results(r, res, 0);
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                        "%s: the call slot returned %zu arrays in a result that holds %d "
                        "(ds_call_result.arrays); a longer tuple needs ds_call_result_reserve",
                        r->op, n, DS_CALL_MAX_RESULTS);
    }
    size_t items = res->n ? res->n : res->value.n;
    if (items > DS_CALL_MAX_ITEMS) {
        release_results(r, res, 0);
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "MemoryError",
                        "%s: the result is a tuple of %zu items; a reply carries at most %d "
                        "(DS_CALL_MAX_ITEMS)",
                        r->op, items, DS_CALL_MAX_ITEMS);
    }
    return 0;
}

/* A tuple of plain values (broadcast_shapes' ints: value.items) into list. */
static int encode_plain_items(const ds__req *r, const ds_value *v, cJSON *list)
{
    for (size_t k = 0; v->items && k < v->n; k++) {
        const ds_value *it = &v->items[k];
        if (it->kind != DS_VALUE_SCALAR && it->kind != DS_VALUE_NONE)
            return ds__fail(r->e, DS__ORIGIN_ADAPTER, "NotImplementedError",
                            "%s: a tuple item of this kind cannot be carried", r->op);
        cJSON *item = it->kind == DS_VALUE_SCALAR ? encode_scalar(&it->scalar) : cJSON_CreateNull();
        if (item == NULL) return ds__oom(r);
        cJSON_AddItemToArray(list, item);
    }
    return 0;
}

/* A tuple result as a list: its arrays as new handles (each released from the first that
 * fails on), or its plain values. */
static int encode_tuple(const ds__req *r, ds_call_result *res, cJSON **out)
{
    ds_array *xs = result_arrays(res);
    cJSON *list = cJSON_CreateArray();
    size_t i = 0;
    int rc = list == NULL ? ds__oom(r) : 0;
    if (rc == 0 && res->n == 0) rc = encode_plain_items(r, &res->value, list);
    for (; rc == 0 && i < res->n; i++) {
        cJSON *h = NULL;
        rc = ds__array_result(r, xs[i], &h);
        if (rc == 0) cJSON_AddItemToArray(list, h);
    }
    release_results(r, res, rc == 0 ? res->n : i);
    if (rc < 0) {
        cJSON_Delete(list);
        return -1;
    }
    *out = list;
    return 0;
}

/* `pick`: item pick of a tuple result; every other array is released. */
static int encode_pick(const ds__req *r, ds_call_result *res, const cJSON *pickv, cJSON **out)
{
    ds_value *v = &res->value;
    bool tuple = v->kind == DS_VALUE_TUPLE;
    int64_t pick = (int64_t)pickv->valuedouble;
    size_t n = tuple ? res->n : 0;
    if (!tuple || pick >= (int64_t)n) {
        if (tuple) release_results(r, res, 0);
        if (v->kind == DS_VALUE_ARRAY) ds__release_obj(r, DS__H_ARRAY, v->array);
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "IndexError",
                        tuple ? "%s: pick %lld: the result has %zu items"
                              : "%s: pick %lld: the result is not a tuple",
                        r->op, (long long)pick, n);
    }
    ds_array *xs = result_arrays(res), picked = xs[pick];
    xs[pick] = NULL;
    release_results(r, res, 0);
    return ds__array_result(r, picked, out);
}

/* The result of the slot as a call value; takes every array of res (each becomes a handle,
 * or is released when the op fails). */
static int encode_result(const ds__req *r, ds_call_result *res, const cJSON *pickv, cJSON **out)
{
    ds_value *v = &res->value;
    if (v->kind == DS_VALUE_TUPLE && check_tuple(r, res) < 0) return -1;
    if (pickv != NULL) return encode_pick(r, res, pickv, out);
    switch (v->kind) {
    case DS_VALUE_NONE:
        *out = cJSON_CreateNull();
        break;
    case DS_VALUE_SCALAR:
        *out = encode_scalar(&v->scalar);
        break;
    case DS_VALUE_STRING:
        *out = cJSON_CreateString(v->str ? v->str : "");
        break;
    case DS_VALUE_DTYPE: {
        const char *name = ds_dtype_name(v->dtype);
        *out = cJSON_CreateObject();
        if (*out != NULL && !ds__put(*out, "dtype", cJSON_CreateString(name ? name : "?"))) {
            cJSON_Delete(*out);
            *out = NULL;
        }
        break;
    }
    case DS_VALUE_DEVICE:
        return ds__device_result(r, v->device.object, out);
    case DS_VALUE_ARRAY:
        return ds__array_result(r, v->array, out);
    case DS_VALUE_TUPLE:
        return encode_tuple(r, res, out);
    default:
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "NotImplementedError",
                        "%s: a result of this kind cannot be carried", r->op);
    }
    return *out == NULL ? ds__oom(r) : 0;
}

int ds__op_call(const ds__req *r, cJSON **result)
{
    const char *fn = NULL;
    if (ds__arg_string(r, "fn", &fn) < 0) return -1;
    const cJSON *args = ds__arg(r, "args"), *kwargs = ds__arg(r, "kwargs");
    const cJSON *pickv = ds__arg(r, "pick");
    if (args != NULL && !cJSON_IsArray(args))
        return ds__fail(r->e, PROTO, "TypeError", "%s: argument 'args' must be a list", r->op);
    if (kwargs != NULL && !cJSON_IsObject(kwargs))
        return ds__fail(r->e, PROTO, "TypeError", "%s: argument 'kwargs' must be an object", r->op);
    if (pickv != NULL && (!ds__is_int(pickv) || pickv->valuedouble < 0))
        return ds__fail(r->e, PROTO, "TypeError", "%s: argument 'pick' must be an int >= 0", r->op);
    size_t nargs = args ? (size_t)cJSON_GetArraySize(args) : 0;
    size_t nkw = kwargs ? (size_t)cJSON_GetArraySize(kwargs) : 0;
    if (nargs > CALL_MAX_ARGS || nkw > CALL_MAX_ARGS)
        return ds__fail(r->e, PROTO, "ValueError",
                        "%s: at most %d positional and %d keyword "
                        "arguments",
                        r->op, CALL_MAX_ARGS, CALL_MAX_ARGS);
    ds_value pos[CALL_MAX_ARGS], kw[CALL_MAX_ARGS];
    const char *kwnames[CALL_MAX_ARGS];
    size_t npos = 0, nk = 0;
    int rc = 0;
    for (const cJSON *it = args ? args->child : NULL; rc == 0 && it; it = it->next) {
        char label[32];
        snprintf(label, sizeof label, "args[%zu]", npos);
        rc = decode(r, it, label, 0, &pos[npos]);
        npos++;
    }
    for (const cJSON *it = kwargs ? kwargs->child : NULL; rc == 0 && it; it = it->next) {
        char label[96];
        snprintf(label, sizeof label, "kwargs.%.60s", it->string);
        kwnames[nk] = it->string;
        rc = decode(r, it, label, 0, &kw[nk]);
        nk++;
    }
    if (rc == 0) {
        ds_call_result res;
        memset(&res, 0, sizeof res);
        reserved_many = NULL;
        rc = CALL(r, call, fn, pos, npos, kwnames, kw, nk, &res);
        if (res.many != NULL && res.many != reserved_many) {
            /* Not the shim's: neither read nor freed (what it holds is the slot's). */
            ds__free(reserved_many);
            res.many = NULL;
            res.n = 0;
            if (rc == 0)
                rc = ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                              "%s: the call slot set ds_call_result.many itself; only "
                              "ds_call_result_reserve gives that room",
                              r->op);
        }
        if (rc == 0) rc = encode_result(r, &res, pickv, result);
        ds__free(res.many);
        reserved_many = NULL;
    }
    values_free(pos, npos);
    values_free(kw, nk);
    return rc;
}
