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
    /* The request was read with its "data" lists packed (session.c): dsj_array_length and
     * dsj_iter serve a packed list and a plain one alike. */
    if (!dsj_is_array(jdata))
        return ds__fail(e, DS__ORIGIN_PROTOCOL, "TypeError",
                        "argument '%s': \"data\" must be a flat list of elements", arg);
    int64_t count = ds__shape_count(out->shape, ndim);
    size_t have = dsj_array_length(jdata);
    if (count < 0)
        return ds__fail(e, DS__ORIGIN_PROTOCOL, "ValueError",
                        "argument '%s': the shape's element count overflows 64 bits", arg);
    if (count != (int64_t)have)
        return ds__fail(e, DS__ORIGIN_PROTOCOL, "ValueError",
                        "argument '%s': shape holds %" PRId64 " elements but data has %zu", arg,
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
    dsj_iter it;
    dsj_iter_init(&it, jdata);
    for (const cJSON *el; (el = dsj_iter_next(&it)) != NULL; i++) {
        if (decode_element(el, dt, (unsigned char *)out->data + i * esize, arg, i, e) < 0) {
            ds__buffer_clear(out);
            return -1;
        }
    }
    return 0;
}

/* ---- encoding: typed arrays straight to text ---- */

/* The most bytes one element's text takes with its comma: a complex pair of two of the
 * longest floats, "[-2.2250738585072014e-308,-2.2250738585072014e-308]," (spec/protocol.md,
 * "Limits", counts 55). Room for this much is made before each element is written. */
#define ELEMENT_TEXT_MAX 64

/* The text of a "data" list as it is written: one buffer that grows by doubling. */
typedef struct list_text {
    char *data;
    size_t len, cap;
    size_t limit; /* the most bytes the list may take */
    bool over;    /* it would have passed `limit` */
} list_text;

/* Makes room for ELEMENT_TEXT_MAX more bytes and a NUL. False when memory runs out, or (with
 * t->over set) when the text already passes its limit: the buffer then never grows past
 * about the limit, whatever the element count. */
static bool list_reserve(list_text *t)
{
    if (t->len > t->limit) {
        t->over = true;
        return false;
    }
    size_t need = t->len + ELEMENT_TEXT_MAX + 1;
    if (need <= t->cap) return true;
    size_t cap = t->cap ? t->cap : 4096;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
    /* limit + ELEMENT_TEXT_MAX + 1 is room enough for the last element that may be written
     * (the limit is far below SIZE_MAX / 2 wherever it is not SIZE_MAX itself). */
    if (t->limit < SIZE_MAX / 2 && cap > t->limit + ELEMENT_TEXT_MAX + 1)
        cap = t->limit + ELEMENT_TEXT_MAX + 1;
    /* cJSON's allocator, not realloc: the buffer becomes a node's text, which cJSON_Delete
     * frees with cJSON's free, whatever hooks a program gave cJSON (the shim's allocation
     * tests give it the shim's counted functions). Doubling keeps the copies linear. */
    char *d = cJSON_malloc(cap);
    if (d == NULL) return false;
    if (t->len) memcpy(d, t->data, t->len);
    cJSON_free(t->data);
    t->data = d;
    t->cap = cap;
    return true;
}

/* The decimal digits of U at P; returns their count. */
static size_t put_uint(char *p, uint64_t u)
{
    char digits[20];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    for (size_t k = 0; k < n; k++)
        p[k] = digits[n - 1 - k];
    return n;
}

static size_t put_int(char *p, int64_t s)
{
    if (s >= 0) return put_uint(p, (uint64_t)s);
    *p = '-';
    return 1 + put_uint(p + 1, 0 - (uint64_t)s);
}

static size_t put_text(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return n;
}

size_t ds__format_float(double d, bool single, char buf[DSJ_NUMBER_MAX])
{
    /* Integral values below 1e16 print in full ("100", not "1e+02"): exact and readable
     * (their digits are written here directly: |d| < 1e16 < 2^63, and -0.0 gives "0").
     * Others: dsjson's shortest decimal that reads back exactly (as a float32 when SINGLE). */
    if (d == trunc(d) && fabs(d) < 1e16) {
        size_t n = put_int(buf, (int64_t)d);
        buf[n] = '\0';
        return n;
    }
    return single ? dsj_format_float32((float)d, buf) : dsj_format_double(d, buf);
}

/* One float element at P: a number, or a string for nan, inf, -inf and -0.0, which JSON
 * numbers cannot hold (spec/protocol.md, "Values"). Returns its length. */
static size_t put_float(char *p, double d, bool single)
{
    if (isnan(d)) return put_text(p, "\"nan\"");
    if (isinf(d)) return put_text(p, d > 0 ? "\"inf\"" : "\"-inf\"");
    if (d == 0 && signbit(d)) return put_text(p, "\"-0.0\"");
    char t[DSJ_NUMBER_MAX];
    size_t n = ds__format_float(d, single, t);
    memcpy(p, t, n);
    return n;
}

/* An integer element: a number up to 2^53 in magnitude, a decimal string beyond, so that no
 * JSON reader rounds it. */
static size_t put_signed(char *p, int64_t s)
{
    if (s >= -(int64_t)EXACT_LIMIT && s <= (int64_t)EXACT_LIMIT) return put_int(p, s);
    p[0] = '"';
    size_t n = put_int(p + 1, s);
    p[n + 1] = '"';
    return n + 2;
}

static size_t put_unsigned(char *p, uint64_t u)
{
    if (u <= (uint64_t)EXACT_LIMIT) return put_uint(p, u);
    p[0] = '"';
    size_t n = put_uint(p + 1, u);
    p[n + 1] = '"';
    return n + 2;
}

/* Declares X, the element of type T at `src` (which need not be aligned). */
#define LOAD(T, x)                                                                                 \
    T x;                                                                                           \
    memcpy(&x, src, sizeof x)

/* The text of the element of DT at SRC, at P (room for ELEMENT_TEXT_MAX). Returns its
 * length. */
static size_t put_element(char *p, const unsigned char *src, ds_dtype dt)
{
    switch (dt) {
    case DS_BOOL:
        return put_text(p, *src ? "true" : "false");
    case DS_INT8: {
        LOAD(int8_t, x);
        return put_signed(p, x);
    }
    case DS_INT16: {
        LOAD(int16_t, x);
        return put_signed(p, x);
    }
    case DS_INT32: {
        LOAD(int32_t, x);
        return put_signed(p, x);
    }
    case DS_INT64: {
        LOAD(int64_t, x);
        return put_signed(p, x);
    }
    case DS_UINT8: {
        LOAD(uint8_t, x);
        return put_unsigned(p, x);
    }
    case DS_UINT16: {
        LOAD(uint16_t, x);
        return put_unsigned(p, x);
    }
    case DS_UINT32: {
        LOAD(uint32_t, x);
        return put_unsigned(p, x);
    }
    case DS_UINT64: {
        LOAD(uint64_t, x);
        return put_unsigned(p, x);
    }
    case DS_FLOAT32: {
        LOAD(float, x);
        return put_float(p, x, true);
    }
    case DS_FLOAT64: {
        LOAD(double, x);
        return put_float(p, x, false);
    }
    case DS_FLOAT16: {
        LOAD(uint16_t, h);
        return put_float(p, dsj_float16_to_double(h), false);
    }
    case DS_COMPLEX64:
    case DS_COMPLEX128: {
        bool single = dt == DS_COMPLEX64;
        double re, im;
        if (single) {
            float pair[2];
            memcpy(pair, src, sizeof pair);
            re = pair[0];
            im = pair[1];
        } else {
            double pair[2];
            memcpy(pair, src, sizeof pair);
            re = pair[0];
            im = pair[1];
        }
        size_t n = 0;
        p[n++] = '[';
        n += put_float(p + n, re, single);
        p[n++] = ',';
        n += put_float(p + n, im, single);
        p[n++] = ']';
        return n;
    }
    default:
        return 0;
    }
}

int ds__buffer_encode(const ds_buffer *buf, size_t limit, cJSON **out, ds__err *e)
{
    *out = NULL;
    size_t esize = ds_dtype_size(buf->dtype);
    const char *name = ds_dtype_name(buf->dtype);
    int64_t count = ds__shape_count(buf->shape, buf->ndim);
    if (name == NULL || count < 0 || buf->nbytes != (size_t)count * esize)
        return ds__fail(e, DS__ORIGIN_ADAPTER, "ValueError",
                        "a typed array to encode has no dtype, or a shape that does not match "
                        "its %zu bytes",
                        buf->nbytes);
    /* The list is text from the start: one buffer, doubled as it fills (linear time), never
     * more than about `limit` bytes. It goes into the tree as one raw node, which dsj_print
     * copies into the reply once; a node per element would cost about 100 bytes and an
     * allocation each (2 million float64 took 350 MB). */
    list_text t = {.limit = limit};
    const unsigned char *src = buf->data;
    bool ok = list_reserve(&t);
    if (ok) t.data[t.len++] = '[';
    for (int64_t i = 0; ok && i < count; i++) {
        if (!list_reserve(&t)) {
            ok = false;
            break;
        }
        if (i > 0) t.data[t.len++] = ',';
        t.len += put_element(t.data + t.len, src + (size_t)i * esize, buf->dtype);
    }
    if (ok && (ok = list_reserve(&t))) {
        t.data[t.len++] = ']';
        t.data[t.len] = '\0';
        ok = t.len <= t.limit;
        t.over = !ok;
    }
    cJSON *obj = NULL, *shape = NULL, *data = NULL;
    if (ok) {
        /* The raw node takes the buffer: cJSON_Delete frees it with cJSON's free, which is
         * the free that matches ds__realloc (the shim leaves cJSON's hooks at malloc and
         * free; its allocation tests set both to the shim's counted functions). */
        data = cJSON_CreateRaw("");
        if (data != NULL) {
            cJSON_free(data->valuestring);
            data->valuestring = t.data;
            t.data = NULL;
        }
        obj = cJSON_CreateObject();
        ok = obj != NULL && ds__put(obj, "dtype", cJSON_CreateString(name)) &&
             ds__put(obj, "shape", (shape = cJSON_CreateArray()));
        for (int k = 0; ok && k < buf->ndim; k++)
            ok = ds__push(shape, dsj_create_int64(buf->shape[k])); /* exact beyond 2^53 */
        if (ok)
            ok = ds__put(obj, "data", data); /* takes it, or deletes it */
        else
            cJSON_Delete(data);
        data = NULL;
        if (!ok) {
            cJSON_Delete(obj);
            obj = NULL;
        }
    }
    cJSON_free(t.data);
    if (t.over)
        return ds__fail(e, DS__ORIGIN_ADAPTER, "MemoryError",
                        "a typed array of %" PRId64 " elements of %s takes more than the %zu "
                        "bytes a reply line may hold",
                        count, name, limit);
    if (obj == NULL)
        return ds__fail(e, DS__ORIGIN_ADAPTER, "MemoryError",
                        "out of memory encoding a typed array of %" PRId64 " elements", count);
    *out = obj;
    return 0;
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

int ds__scalar_decode(const cJSON *v, const char *arg, bool wide, ds_scalar *out, ds__err *e)
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
            /* The protocol carries any integer; a C library's integer scalar holds what some
             * dtype can, int64 and [2^63, 2^64) (ds_scalar's u; int64 alone before version
             * 9), so one beyond it is the library's OverflowError, as NumPy's for an integer
             * beyond its dtypes, never a protocol error (spec/decisions.md, "Exact values
             * and strings" 8). */
            out->kind = DS_SCALAR_INT;
            if (parse_int_text(t->valuestring, true, &s, &u)) {
                out->i = s;
                return 0;
            }
            if (wide && parse_int_text(t->valuestring, false, &s, &u)) {
                out->u = true; /* above INT64_MAX, since it is not an int64 */
                out->i = (int64_t)u;
                return 0;
            }
            return ds__fail(e, DS__ORIGIN_LIBRARY, "OverflowError",
                            "argument '%s': the integer %.60s is outside %s, the range of the "
                            "C API's integer scalars",
                            arg, t->valuestring, wide ? "[-2^63, 2^64)" : "int64");
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
