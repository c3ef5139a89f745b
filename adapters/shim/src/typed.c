/*
 * typed.c: dtypes, typed arrays and scalars as they travel in messages
 * (spec/protocol.md, "Values"), decoded and encoded here once for every shim.
 */
#include "shim_internal.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* 2^53: the largest magnitude up to which every integer is exact in a JSON number read as
 * a double. Beyond it integers travel as decimal strings. */
#define EXACT_LIMIT 9007199254740992.0

static const struct {
    const char *name;
    size_t size;
} dtypes[DS_DTYPE_COUNT] = {
    [DS_DTYPE_NONE] = {NULL, 0},       [DS_BOOL] = {"bool", 1},
    [DS_INT8] = {"int8", 1},           [DS_INT16] = {"int16", 2},
    [DS_INT32] = {"int32", 4},         [DS_INT64] = {"int64", 8},
    [DS_UINT8] = {"uint8", 1},         [DS_UINT16] = {"uint16", 2},
    [DS_UINT32] = {"uint32", 4},       [DS_UINT64] = {"uint64", 8},
    [DS_FLOAT32] = {"float32", 4},     [DS_FLOAT64] = {"float64", 8},
    [DS_COMPLEX64] = {"complex64", 8}, [DS_COMPLEX128] = {"complex128", 16},
    [DS_FLOAT16] = {"float16", 2},
};

const char *ds_dtype_name(ds_dtype dtype)
{
    if (dtype <= DS_DTYPE_NONE || dtype >= DS_DTYPE_COUNT) return NULL;
    return dtypes[dtype].name;
}

ds_dtype ds_dtype_from_name(const char *name)
{
    if (name == NULL) return DS_DTYPE_NONE;
    for (int t = DS_BOOL; t < DS_DTYPE_COUNT; t++)
        if (strcmp(dtypes[t].name, name) == 0) return (ds_dtype)t;
    return DS_DTYPE_NONE;
}

size_t ds_dtype_size(ds_dtype dtype)
{
    if (dtype <= DS_DTYPE_NONE || dtype >= DS_DTYPE_COUNT) return 0;
    return dtypes[dtype].size;
}

int ds__fail(ds__err *e, ds__origin origin, const char *kind, const char *fmt, ...)
{
    va_list ap;
    e->set = true;
    e->origin = origin;
    snprintf(e->kind, sizeof e->kind, "%s", kind);
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    return -1;
}

const char *ds__origin_name(ds__origin origin)
{
    switch (origin) {
    case DS__ORIGIN_ADAPTER:
        return "adapter";
    case DS__ORIGIN_PROTOCOL:
        return "protocol";
    case DS__ORIGIN_LIBRARY:
        break;
    }
    return "library";
}

int64_t ds__shape_count(const int64_t *shape, int ndim)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0) return -1;
        if (shape[i] != 0 && n > INT64_MAX / shape[i]) return -1;
        n *= shape[i];
    }
    return n;
}

long ds__utf8_invalid_at(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        unsigned char c = p[i];
        size_t need;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf) {
            need = 1;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            need = 2;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            need = 3;
            cp = c & 0x07;
        } else {
            return (long)i;
        }
        if (len - i <= need) return (long)i;
        for (size_t k = 1; k <= need; k++) {
            if ((p[i + k] & 0xc0) != 0x80) return (long)i;
            cp = (cp << 6) | (p[i + k] & 0x3f);
        }
        /* Overlong forms, surrogates and code points past U+10FFFF are not UTF-8. */
        if ((need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000) || cp > 0x10ffff ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return (long)i;
        i += need + 1;
    }
    return -1;
}

void ds__format_float(double d, bool single, char *buf, size_t size)
{
    /* Integral values below 1e16 print in full ("100", not "1e+02"): exact and readable.
     * Others: dsjson's shortest decimal that reads back exactly (as a float32 when SINGLE). */
    if (d == trunc(d) && fabs(d) < 1e16) {
        snprintf(buf, size, "%.0f", d);
        return;
    }
    char t[DSJ_NUMBER_MAX];
    if (single)
        dsj_format_float32((float)d, t);
    else
        dsj_format_double(d, t);
    snprintf(buf, size, "%s", t);
}

/* Whether t has the form of a decimal integer: an optional sign and ASCII digits. */
static bool int_form(const char *t)
{
    const char *p = t + (*t == '+' || *t == '-');
    if (*p == '\0') return false;
    for (; *p; p++)
        if (*p < '0' || *p > '9') return false;
    return true;
}

/* Parses a whole decimal integer string; `neg_ok` false for unsigned. */
static bool parse_int_text(const char *t, bool neg_ok, int64_t *si, uint64_t *ui)
{
    const char *p = t;
    char *end;
    if (*p == '+' || *p == '-') p++;
    if (*p < '0' || *p > '9') return false;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9') return false;
    errno = 0;
    if (neg_ok) {
        long long v = strtoll(t, &end, 10);
        if (errno == ERANGE || *end) return false;
        *si = v;
    } else {
        if (t[0] == '-') return false;
        unsigned long long v = strtoull(t, &end, 10);
        if (errno == ERANGE || *end) return false;
        *ui = v;
    }
    return true;
}

/* Parses a whole float string: any decimal strtod accepts, nan, inf, -inf, -0.0. A float32
 * is rounded once, straight from the text. */
static bool parse_float_text(const char *t, bool single, double *out)
{
    if (!single) return dsj_parse_double(t, out);
    float f;
    if (dsj_parse_float32(t, &f) != DSJ_FLOAT_OK) return false;
    *out = f;
    return true;
}

static int float_element(const cJSON *v, bool single, double *out, const char *arg, size_t i,
                         ds__err *e)
{
    /* float32: a decimal that rounds to a finite float is in range (3.4028235e+38 is
     * FLT_MAX); one that rounds to infinity is not. */
    float f;
    int fr = !single             ? DSJ_FLOAT_OK
             : cJSON_IsNumber(v) ? dsj_get_float32(v, &f)
             : cJSON_IsString(v) ? dsj_parse_float32(v->valuestring, &f)
                                 : DSJ_FLOAT_SYNTAX;
    if (fr == DSJ_FLOAT_RANGE) {
        const char *t = cJSON_IsString(v) ? v->valuestring : dsj_number_text(v);
        return ds__fail(e, DS__ORIGIN_PROTOCOL, "ValueError",
                        "argument '%s': element %zu (%.40s) rounds to infinity: out of the "
                        "float32 range",
                        arg, i, t ? t : "?");
    }
    if (cJSON_IsNumber(v)) {
        *out = single ? (double)f : v->valuedouble;
        return 0;
    }
    if (cJSON_IsString(v) && parse_float_text(v->valuestring, single, out)) return 0;
    if (cJSON_IsString(v))
        return ds__fail(e, DS__ORIGIN_PROTOCOL, "ValueError",
                        "argument '%s': element %zu (\"%.40s\") is not a float", arg, i,
                        v->valuestring);
    return ds__fail(e, DS__ORIGIN_PROTOCOL, "TypeError",
                    "argument '%s': element %zu must be a number or a string", arg, i);
}

static int int_element(const cJSON *v, ds_dtype dt, void *dst, const char *arg, size_t i,
                       ds__err *e)
{
    static const int64_t lo[] = {[DS_INT8] = INT8_MIN,
                                 [DS_INT16] = INT16_MIN,
                                 [DS_INT32] = INT32_MIN,
                                 [DS_INT64] = INT64_MIN};
    static const int64_t hi[] = {[DS_INT8] = INT8_MAX,
                                 [DS_INT16] = INT16_MAX,
                                 [DS_INT32] = INT32_MAX,
                                 [DS_INT64] = INT64_MAX};
    static const uint64_t uhi[] = {[DS_UINT8] = UINT8_MAX,
                                   [DS_UINT16] = UINT16_MAX,
                                   [DS_UINT32] = UINT32_MAX,
                                   [DS_UINT64] = UINT64_MAX};
    bool is_signed = dt <= DS_INT64;
    int64_t s = 0;
    uint64_t u = 0;
    if (cJSON_IsNumber(v)) {
        /* Exact at any width: dsjson keeps the number's text. */
        double d = v->valuedouble;
        if (d != trunc(d))
            return ds__fail(e, DS__ORIGIN_PROTOCOL, "ValueError",
                            "argument '%s': element %zu (%.17g) is not an integer", arg, i, d);
        if (is_signed ? !dsj_get_int64(v, &s) : !dsj_get_uint64(v, &u))
            return ds__fail(e, DS__ORIGIN_PROTOCOL, "ValueError",
                            "argument '%s': element %zu (%.17g) is out of the %s range", arg, i, d,
                            ds_dtype_name(dt));
    } else if (cJSON_IsString(v)) {
        if (!parse_int_text(v->valuestring, is_signed, &s, &u))
            return ds__fail(e, DS__ORIGIN_PROTOCOL, "ValueError",
                            "argument '%s': element %zu (\"%.40s\") is not a %s", arg, i,
                            v->valuestring, ds_dtype_name(dt));
    } else {
        return ds__fail(e, DS__ORIGIN_PROTOCOL, "TypeError",
                        "argument '%s': element %zu must be an integer or a decimal string", arg,
                        i);
    }
    if ((is_signed && (s < lo[dt] || s > hi[dt])) || (!is_signed && u > uhi[dt]))
        return ds__fail(e, DS__ORIGIN_PROTOCOL, "ValueError",
                        "argument '%s': element %zu is out of the %s range", arg, i,
                        ds_dtype_name(dt));
    switch (dt) {
    case DS_INT8:
        *(int8_t *)dst = (int8_t)s;
        break;
    case DS_INT16:
        *(int16_t *)dst = (int16_t)s;
        break;
    case DS_INT32:
        *(int32_t *)dst = (int32_t)s;
        break;
    case DS_INT64:
        *(int64_t *)dst = s;
        break;
    case DS_UINT8:
        *(uint8_t *)dst = (uint8_t)u;
        break;
    case DS_UINT16:
        *(uint16_t *)dst = (uint16_t)u;
        break;
    case DS_UINT32:
        *(uint32_t *)dst = (uint32_t)u;
        break;
    default:
        *(uint64_t *)dst = u;
        break;
    }
    return 0;
}

static int decode_element(const cJSON *v, ds_dtype dt, unsigned char *dst, const char *arg,
                          size_t i, ds__err *e)
{
    double re, im;
    switch (dt) {
    case DS_BOOL:
        if (!cJSON_IsBool(v))
            return ds__fail(e, DS__ORIGIN_PROTOCOL, "TypeError",
                            "argument '%s': element %zu of a bool array must be true or false", arg,
                            i);
        *dst = cJSON_IsTrue(v) ? 1 : 0;
        return 0;
    case DS_FLOAT32:
        if (float_element(v, true, &re, arg, i, e) < 0) return -1;
        *(float *)(void *)dst = (float)re;
        return 0;
    case DS_FLOAT64:
        if (float_element(v, false, &re, arg, i, e) < 0) return -1;
        *(double *)(void *)dst = re;
        return 0;
    case DS_FLOAT16: {
        if (float_element(v, false, &re, arg, i, e) < 0) return -1;
        /* As for float32: a finite element beyond the range is refused, not made infinite. */
        if (isfinite(re) && fabs(re) >= 65520.0)
            return ds__fail(e, DS__ORIGIN_PROTOCOL, "ValueError",
                            "argument '%s': element %zu rounds to infinity: out of the float16 "
                            "range",
                            arg, i);
        uint16_t h = dsj_float16_from_double(re);
        memcpy(dst, &h, sizeof h);
        return 0;
    }
    case DS_COMPLEX64:
    case DS_COMPLEX128: {
        bool single = dt == DS_COMPLEX64;
        if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
            return ds__fail(e, DS__ORIGIN_PROTOCOL, "TypeError",
                            "argument '%s': element %zu of a complex array must be [re, im]", arg,
                            i);
        if (float_element(v->child, single, &re, arg, i, e) < 0 ||
            float_element(v->child->next, single, &im, arg, i, e) < 0)
            return -1;
        if (single) {
            float pair[2] = {(float)re, (float)im};
            memcpy(dst, pair, sizeof pair);
        } else {
            double pair[2] = {re, im};
            memcpy(dst, pair, sizeof pair);
        }
        return 0;
    }
    default:
        return int_element(v, dt, dst, arg, i, e);
    }
}

int ds_buffer_alloc(ds_buffer *buf)
{
    int64_t count = ds__shape_count(buf->shape, buf->ndim);
    size_t size = ds_dtype_size(buf->dtype);
    if (count < 0 || size == 0) {
        ds_error("ValueError", "ds_buffer_alloc: invalid dtype or shape");
        return -1;
    }
    buf->nbytes = (size_t)count * size;
    buf->data = buf->nbytes ? ds__malloc(buf->nbytes) : NULL;
    if (buf->nbytes && !buf->data) {
        ds_error("MemoryError", "ds_buffer_alloc: out of memory for %zu bytes", buf->nbytes);
        return -1;
    }
    return 0;
}

void ds__buffer_clear(ds_buffer *buf)
{
    ds__free(buf->data);
    memset(buf, 0, sizeof *buf);
}

int ds__buffer_decode(const cJSON *v, const char *arg, ds_buffer *out, ds__err *e)
{
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(v))
        return ds__fail(e, DS__ORIGIN_PROTOCOL, "TypeError",
                        "argument '%s' must be a typed array {dtype, shape, data}", arg);
    const cJSON *jdt = cJSON_GetObjectItemCaseSensitive(v, "dtype");
    const cJSON *jshape = cJSON_GetObjectItemCaseSensitive(v, "shape");
    const cJSON *jdata = cJSON_GetObjectItemCaseSensitive(v, "data");
    if (!cJSON_IsString(jdt))
        return ds__fail(e, DS__ORIGIN_PROTOCOL, "TypeError",
                        "argument '%s': \"dtype\" must be a dtype name", arg);
    ds_dtype dt = ds_dtype_from_name(jdt->valuestring);
    if (dt == DS_DTYPE_NONE)
        return ds__fail(e, DS__ORIGIN_PROTOCOL, "ValueError",
                        "argument '%s': unknown dtype \"%.40s\"", arg, jdt->valuestring);
    if (!cJSON_IsArray(jshape))
        return ds__fail(e, DS__ORIGIN_PROTOCOL, "TypeError",
                        "argument '%s': \"shape\" must be a list of integers", arg);
    int ndim = cJSON_GetArraySize(jshape);
    if (ndim > DS_MAX_NDIM)
        return ds__fail(e, DS__ORIGIN_PROTOCOL, "ValueError",
                        "argument '%s': %d dimensions, more than the %d a message may carry", arg,
                        ndim, DS_MAX_NDIM);
    int k = 0;
    for (const cJSON *d = jshape->child; d; d = d->next, k++) {
        if (!dsj_get_int64(d, &out->shape[k]) || out->shape[k] < 0)
            return ds__fail(e, DS__ORIGIN_PROTOCOL, "ValueError",
                            "argument '%s': shape[%d] must be a non-negative integer", arg, k);
    }
    if (!cJSON_IsArray(jdata))
        return ds__fail(e, DS__ORIGIN_PROTOCOL, "TypeError",
                        "argument '%s': \"data\" must be a flat list of elements", arg);
    int64_t count = ds__shape_count(out->shape, ndim);
    int have = cJSON_GetArraySize(jdata);
    if (count < 0)
        return ds__fail(e, DS__ORIGIN_PROTOCOL, "ValueError",
                        "argument '%s': the shape's element count overflows 64 bits", arg);
    if (count != (int64_t)have)
        return ds__fail(e, DS__ORIGIN_PROTOCOL, "ValueError",
                        "argument '%s': shape holds %" PRId64 " elements but data has %d", arg,
                        count, have);
    size_t esize = ds_dtype_size(dt);
    out->dtype = dt;
    out->ndim = ndim;
    out->nbytes = (size_t)count * esize;
    if (out->nbytes > 0) {
        out->data = ds__calloc((size_t)count, esize);
        if (out->data == NULL) {
            ds__buffer_clear(out);
            return ds__fail(e, DS__ORIGIN_PROTOCOL, "MemoryError",
                            "argument '%s': out of memory for %" PRId64 " elements", arg, count);
        }
    }
    size_t i = 0;
    for (const cJSON *el = jdata->child; el; el = el->next, i++) {
        if (decode_element(el, dt, (unsigned char *)out->data + i * esize, arg, i, e) < 0) {
            ds__buffer_clear(out);
            return -1;
        }
    }
    return 0;
}

/* Appends one float element: a number, or a string for nan, inf, -inf and -0.0. */
static cJSON *encode_float(double d, bool single)
{
    char buf[40];
    if (isnan(d)) return cJSON_CreateString("nan");
    if (isinf(d)) return cJSON_CreateString(d > 0 ? "inf" : "-inf");
    if (d == 0 && signbit(d)) return cJSON_CreateString("-0.0");
    ds__format_float(d, single, buf, sizeof buf);
    return cJSON_CreateRaw(buf);
}

/* Reads one element of type T at `src`, which need not be aligned, into DST. */
#define LOAD(T, dst)                                                                               \
    do {                                                                                           \
        T x_;                                                                                      \
        memcpy(&x_, src, sizeof x_);                                                               \
        (dst) = x_;                                                                                \
    } while (0)

static cJSON *encode_element(const unsigned char *src, ds_dtype dt)
{
    char buf[32];
    int64_t s = 0;
    uint64_t u = 0;
    bool is_unsigned = false;
    switch (dt) {
    case DS_BOOL:
        return cJSON_CreateBool(*src != 0);
    case DS_INT8:
        LOAD(int8_t, s);
        break;
    case DS_INT16:
        LOAD(int16_t, s);
        break;
    case DS_INT32:
        LOAD(int32_t, s);
        break;
    case DS_INT64:
        LOAD(int64_t, s);
        break;
    case DS_UINT8:
        LOAD(uint8_t, u);
        is_unsigned = true;
        break;
    case DS_UINT16:
        LOAD(uint16_t, u);
        is_unsigned = true;
        break;
    case DS_UINT32:
        LOAD(uint32_t, u);
        is_unsigned = true;
        break;
    case DS_UINT64:
        LOAD(uint64_t, u);
        is_unsigned = true;
        break;
    case DS_FLOAT32: {
        float x;
        memcpy(&x, src, sizeof x);
        return encode_float(x, true);
    }
    case DS_FLOAT64: {
        double x;
        memcpy(&x, src, sizeof x);
        return encode_float(x, false);
    }
    case DS_FLOAT16: {
        uint16_t h;
        memcpy(&h, src, sizeof h);
        return encode_float(dsj_float16_to_double(h), false);
    }
    case DS_COMPLEX64:
    case DS_COMPLEX128: {
        bool single = dt == DS_COMPLEX64;
        double re, im;
        if (single) {
            float p[2];
            memcpy(p, src, sizeof p);
            re = p[0];
            im = p[1];
        } else {
            double p[2];
            memcpy(p, src, sizeof p);
            re = p[0];
            im = p[1];
        }
        cJSON *pair = cJSON_CreateArray();
        if (pair == NULL || !ds__push(pair, encode_float(re, single)) ||
            !ds__push(pair, encode_float(im, single))) {
            cJSON_Delete(pair);
            return NULL;
        }
        return pair;
    }
    default:
        return NULL;
    }
    /* Integers beyond 2^53 become strings, so that no JSON reader rounds them. */
    if (is_unsigned) {
        snprintf(buf, sizeof buf, "%" PRIu64, u);
        return u > (uint64_t)EXACT_LIMIT ? cJSON_CreateString(buf) : cJSON_CreateRaw(buf);
    }
    snprintf(buf, sizeof buf, "%" PRId64, s);
    return (s > (int64_t)EXACT_LIMIT || s < -(int64_t)EXACT_LIMIT) ? cJSON_CreateString(buf)
                                                                   : cJSON_CreateRaw(buf);
}

cJSON *ds__buffer_encode(const ds_buffer *buf)
{
    size_t esize = ds_dtype_size(buf->dtype);
    const char *name = ds_dtype_name(buf->dtype);
    int64_t count = ds__shape_count(buf->shape, buf->ndim);
    if (name == NULL || count < 0 || buf->nbytes != (size_t)count * esize) return NULL;
    cJSON *obj = cJSON_CreateObject(), *shape = NULL, *data = NULL;
    bool ok = obj != NULL && ds__put(obj, "dtype", cJSON_CreateString(name)) &&
              ds__put(obj, "shape", (shape = cJSON_CreateArray())) &&
              ds__put(obj, "data", (data = cJSON_CreateArray()));
    for (int k = 0; ok && k < buf->ndim; k++)
        ok = ds__push(shape, dsj_create_int64(buf->shape[k])); /* exact beyond 2^53 */
    /* Appending through a tail pointer keeps encoding linear in the element count. */
    cJSON *tail = NULL;
    for (int64_t i = 0; ok && i < count; i++) {
        cJSON *el =
            encode_element((const unsigned char *)buf->data + (size_t)i * esize, buf->dtype);
        if (el == NULL) {
            ok = false;
            break;
        }
        if (tail == NULL) {
            data->child = el;
        } else {
            tail->next = el;
            el->prev = tail;
        }
        tail = el;
        data->child->prev = tail;
    }
    if (!ok) {
        cJSON_Delete(obj);
        return NULL;
    }
    return obj;
}

bool ds__put(cJSON *obj, const char *key, cJSON *item)
{
    if (item == NULL) return false;
    /* A constant key is not copied, so adding cannot fail for want of memory. */
    if (!cJSON_AddItemToObjectCS(obj, key, item)) {
        cJSON_Delete(item);
        return false;
    }
    return true;
}

bool ds__push(cJSON *arr, cJSON *item)
{
    if (item == NULL) return false;
    if (!cJSON_AddItemToArray(arr, item)) {
        cJSON_Delete(item);
        return false;
    }
    return true;
}

bool ds__is_scalar(const cJSON *v)
{
    return cJSON_IsBool(v) || cJSON_IsNumber(v) ||
           (cJSON_IsObject(v) && cJSON_GetArraySize(v) == 1 &&
            (cJSON_GetObjectItemCaseSensitive(v, "scalar") != NULL ||
             cJSON_GetObjectItemCaseSensitive(v, "complex") != NULL));
}

int ds__scalar_decode(const cJSON *v, const char *arg, ds_scalar *out, ds__err *e)
{
    memset(out, 0, sizeof *out);
    if (cJSON_IsBool(v)) {
        out->kind = DS_SCALAR_BOOL;
        out->b = cJSON_IsTrue(v);
        return 0;
    }
    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        /* An integer text within int64 is an int, exact at any width. Otherwise the value
         * decides: -2^63 <= d < 2^63, integral: an int. */
        const char *text = dsj_number_text(v);
        if (text != NULL && dsj_is_integer_text(text) && dsj_parse_int64(text, &out->i)) {
            out->kind = DS_SCALAR_INT;
            return 0;
        }
        if (d == trunc(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
            out->kind = DS_SCALAR_INT;
            out->i = (int64_t)d;
        } else {
            out->kind = DS_SCALAR_FLOAT;
            out->f = d;
        }
        return 0;
    }
    const cJSON *c = cJSON_IsObject(v) && cJSON_GetArraySize(v) == 1
                         ? cJSON_GetObjectItemCaseSensitive(v, "complex")
                         : NULL;
    if (c != NULL) {
        if (!cJSON_IsArray(c) || cJSON_GetArraySize(c) != 2)
            return ds__fail(e, DS__ORIGIN_PROTOCOL, "TypeError",
                            "argument '%s': {\"complex\": ...} takes a [re, im] pair", arg);
        if (float_element(c->child, false, &out->f, arg, 0, e) < 0 ||
            float_element(c->child->next, false, &out->im, arg, 1, e) < 0)
            return -1;
        out->kind = DS_SCALAR_COMPLEX;
        return 0;
    }
    const cJSON *t = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, "scalar") : NULL;
    if (t != NULL && cJSON_IsString(t)) {
        int64_t s;
        uint64_t u;
        if (int_form(t->valuestring)) {
            if (!parse_int_text(t->valuestring, true, &s, &u))
                return ds__fail(e, DS__ORIGIN_PROTOCOL, "ValueError",
                                "argument '%s': integer \"%.40s\" is outside the int64 range", arg,
                                t->valuestring);
            out->kind = DS_SCALAR_INT;
            out->i = s;
            return 0;
        }
        if (parse_float_text(t->valuestring, false, &out->f)) {
            out->kind = DS_SCALAR_FLOAT;
            return 0;
        }
        return ds__fail(e, DS__ORIGIN_PROTOCOL, "ValueError",
                        "argument '%s': {\"scalar\": \"%.40s\"} is neither an integer nor a float",
                        arg, t->valuestring);
    }
    return ds__fail(e, DS__ORIGIN_PROTOCOL, "TypeError",
                    "argument '%s' must be a scalar (a boolean, a number, {\"scalar\": text} or "
                    "{\"complex\": [re, im]})",
                    arg);
}
