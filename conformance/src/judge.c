/* Matching a step's result against its "expect" (spec/case-format.md, "Matching expect"):
 * objects match partially, lists element-wise, typed arrays exactly by dtype (NaN equals
 * NaN, -0.0 differs from 0.0, integers exact at any width), device handles through the
 * adapter's own device.equal, everything else as JSON. */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool ds__is_typed_array(const cJSON *v)
{
    return cJSON_IsObject(v) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(v, "dtype")) &&
           cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(v, "shape")) &&
           cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(v, "data"));
}

bool ds__is_device_handle(const cJSON *v)
{
    return cJSON_IsString(v) && !strncmp(v->valuestring, "device#", 7);
}

static void show(ds_buf *b, const cJSON *v)
{
    char *s = cJSON_PrintUnformatted(v);
    ds__buf_puts(b, s ? s : "?");
    cJSON_free(s);
}

static void mismatch(ds_buf *why, const char *path, const cJSON *e, const cJSON *o,
                     const char *what)
{
    ds__buf_printf(why, "at %s: %s: expected ", path[0] ? path : "(result)", what);
    show(why, e);
    ds__buf_puts(why, ", observed ");
    if (o)
        show(why, o);
    else
        ds__buf_puts(why, "nothing");
}

/* ---- typed elements ---------------------------------------------------------------- */

typedef enum { K_BOOL, K_INT, K_UINT, K_F32, K_F64, K_C64, K_C128, K_BAD } elem_kind;

static elem_kind kind_of(const char *dtype)
{
    static const struct {
        const char *name;
        elem_kind k;
    } map[] = {{"bool", K_BOOL},      {"int8", K_INT},    {"int16", K_INT},   {"int32", K_INT},
               {"int64", K_INT},      {"uint8", K_UINT},  {"uint16", K_UINT}, {"uint32", K_UINT},
               {"uint64", K_UINT},    {"float32", K_F32}, {"float64", K_F64}, {"complex64", K_C64},
               {"complex128", K_C128}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i].name, dtype)) return map[i].k;
    return K_BAD;
}

/* An integer as sign and magnitude, exact for every int64 and uint64. */
static bool decode_int(const cJSON *v, bool *neg, unsigned long long *mag)
{
    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (d != floor(d) || fabs(d) > 18446744073709551615.0) return false;
        *neg = d < 0;
        *mag = (unsigned long long)fabs(d);
        return true;
    }
    if (!cJSON_IsString(v)) return false;
    const char *s = v->valuestring;
    *neg = s[0] == '-';
    if (*s == '-' || *s == '+') s++;
    if (*s < '0' || *s > '9') return false;
    char *end;
    errno = 0;
    *mag = strtoull(s, &end, 10);
    if (*end || errno) return false;
    if (*mag == 0) *neg = false;
    return true;
}

static bool decode_float(const cJSON *v, double *out)
{
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return true;
    }
    if (!cJSON_IsString(v) || !v->valuestring[0]) return false;
    char *end;
    *out = strtod(v->valuestring, &end);
    return *end == '\0';
}

static bool float_same(double a, double b)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return a == b && signbit(a) == signbit(b);
}

/* 1 equal, 0 different, -1 E cannot be decoded, -2 O cannot be decoded. */
static int elem_equal(elem_kind k, const cJSON *e, const cJSON *o)
{
    switch (k) {
    case K_BOOL:
        if (!cJSON_IsBool(e)) return -1;
        if (!cJSON_IsBool(o)) return -2;
        return cJSON_IsTrue(e) == cJSON_IsTrue(o);
    case K_INT:
    case K_UINT: {
        bool en, on;
        unsigned long long em, om;
        if (!decode_int(e, &en, &em)) return -1;
        if (!decode_int(o, &on, &om)) return -2;
        return en == on && em == om;
    }
    case K_F32:
    case K_F64: {
        double a, b;
        if (!decode_float(e, &a)) return -1;
        if (!decode_float(o, &b)) return -2;
        if (k == K_F32) {
            /* Compare as float32: "0.1" and the double that float32 0.1 prints as agree. */
            a = (float)a;
            b = (float)b;
        }
        return float_same(a, b);
    }
    case K_C64:
    case K_C128: {
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 2) return -1;
        if (!cJSON_IsArray(o) || cJSON_GetArraySize(o) != 2) return -2;
        elem_kind part = k == K_C64 ? K_F32 : K_F64;
        int re = elem_equal(part, cJSON_GetArrayItem(e, 0), cJSON_GetArrayItem(o, 0));
        if (re < 0) return re;
        int im = elem_equal(part, cJSON_GetArrayItem(e, 1), cJSON_GetArrayItem(o, 1));
        if (im < 0) return im;
        return re && im;
    }
    case K_BAD:
        break;
    }
    return -1;
}

static int match_typed(const cJSON *e, const cJSON *o, const char *path, ds_buf *why)
{
    if (!ds__is_typed_array(o)) {
        mismatch(why, path, e, o, "expected a typed array");
        return 0;
    }
    const char *edt = cJSON_GetObjectItemCaseSensitive(e, "dtype")->valuestring;
    const char *odt = cJSON_GetObjectItemCaseSensitive(o, "dtype")->valuestring;
    if (strcmp(edt, odt)) {
        ds__buf_printf(why, "at %s.dtype: expected \"%s\", observed \"%s\"", path, edt, odt);
        return 0;
    }
    const cJSON *es = cJSON_GetObjectItemCaseSensitive(e, "shape");
    const cJSON *os = cJSON_GetObjectItemCaseSensitive(o, "shape");
    bool same_shape = cJSON_GetArraySize(es) == cJSON_GetArraySize(os);
    for (const cJSON *a = es->child, *b = os->child; same_shape && a && b; a = a->next, b = b->next)
        same_shape = cJSON_IsNumber(a) && cJSON_IsNumber(b) && a->valuedouble == b->valuedouble;
    if (!same_shape) {
        ds_buf p = {0};
        ds__buf_printf(&p, "%s.shape", path);
        mismatch(why, p.data, es, os, "shapes differ");
        ds__buf_free(&p);
        return 0;
    }
    elem_kind k = kind_of(edt);
    const cJSON *ed = cJSON_GetObjectItemCaseSensitive(e, "data");
    const cJSON *od = cJSON_GetObjectItemCaseSensitive(o, "data");
    if (cJSON_GetArraySize(ed) != cJSON_GetArraySize(od)) {
        ds__buf_printf(why, "at %s.data: expected %d elements, observed %d", path,
                       cJSON_GetArraySize(ed), cJSON_GetArraySize(od));
        return 0;
    }
    int i = 0;
    for (const cJSON *a = ed->child, *b = od->child; a && b; a = a->next, b = b->next, i++) {
        int r = elem_equal(k, a, b);
        if (r == 1) continue;
        ds_buf p = {0};
        ds__buf_printf(&p, "%s.data[%d]", path, i);
        mismatch(why, p.data, a, b,
                 r == 0 ? "elements differ"
                 : r == -1
                     ? (k == K_BAD ? "unknown dtype"
                                   : "the expected element is not a valid element of this dtype")
                     : "the observed element is not a valid element of this dtype");
        ds__buf_free(&p);
        return 0;
    }
    return 1;
}

static int match(const ds_judge *j, const cJSON *e, const cJSON *o, ds_buf *path, ds_buf *why)
{
    if (ds__is_typed_array(e)) return match_typed(e, o, path->data ? path->data : "", why);
    if (cJSON_IsObject(e)) {
        if (!cJSON_IsObject(o)) {
            mismatch(why, path->data ? path->data : "", e, o, "expected an object");
            return 0;
        }
        for (const cJSON *k = e->child; k; k = k->next) {
            size_t keep = path->len;
            ds__buf_printf(path, ".%s", k->string);
            const cJSON *ov = cJSON_GetObjectItemCaseSensitive(o, k->string);
            int r;
            if (!ov) {
                ds__buf_printf(why, "at %s: missing from the result (expected ", path->data);
                show(why, k);
                ds__buf_puts(why, ")");
                r = 0;
            } else {
                r = match(j, k, ov, path, why);
            }
            path->len = keep;
            if (path->data) path->data[keep] = '\0';
            if (r != 1) return r;
        }
        return 1;
    }
    if (cJSON_IsArray(e)) {
        if (!cJSON_IsArray(o) || cJSON_GetArraySize(o) != cJSON_GetArraySize(e)) {
            mismatch(why, path->data ? path->data : "", e, o,
                     cJSON_IsArray(o) ? "lists differ in length" : "expected a list");
            return 0;
        }
        int i = 0;
        for (const cJSON *a = e->child, *b = o->child; a; a = a->next, b = b->next, i++) {
            size_t keep = path->len;
            ds__buf_printf(path, "[%d]", i);
            int r = match(j, a, b, path, why);
            path->len = keep;
            path->data[keep] = '\0';
            if (r != 1) return r;
        }
        return 1;
    }
    const char *p = path->data ? path->data : "";
    if (ds__is_device_handle(e) && ds__is_device_handle(o)) {
        if (!strcmp(e->valuestring, o->valuestring)) return 1;
        /* Devices compare through the library's own equality, never as strings. */
        ds_buf err = {0};
        int r = j && j->device_equal ? j->device_equal(j->ctx, e->valuestring, o->valuestring, &err)
                                     : 0;
        if (r == 1) {
            ds__buf_free(&err);
            return 1;
        }
        if (r < 0) {
            ds__buf_printf(why, "at %s: comparing devices %s and %s failed: %s",
                           p[0] ? p : "(result)", e->valuestring, o->valuestring,
                           err.data ? err.data : "?");
            ds__buf_free(&err);
            return -1;
        }
        ds__buf_free(&err);
        mismatch(why, p, e, o, "different devices (device.equal is false)");
        return 0;
    }
    if (cJSON_IsNumber(e) && cJSON_IsNumber(o)) {
        if (e->valuedouble == o->valuedouble) return 1;
        mismatch(why, p, e, o, "numbers differ");
        return 0;
    }
    if (cJSON_IsString(e) && cJSON_IsString(o)) {
        if (!strcmp(e->valuestring, o->valuestring)) return 1;
        mismatch(why, p, e, o, "strings differ");
        return 0;
    }
    if ((cJSON_IsBool(e) && cJSON_IsBool(o)) || (cJSON_IsNull(e) && cJSON_IsNull(o))) {
        if (cJSON_IsTrue(e) == cJSON_IsTrue(o)) return 1;
    }
    mismatch(why, p, e, o, "values differ");
    return 0;
}

int ds__judge_match(const ds_judge *j, const cJSON *expected, const cJSON *observed, ds_buf *why)
{
    ds_buf path = {0};
    ds__buf_puts(&path, "");
    int r = match(j, expected, observed, &path, why);
    ds__buf_free(&path);
    return r;
}
