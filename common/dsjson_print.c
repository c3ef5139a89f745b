/* dsjson_print.c: the printer of dsjson (see dsjson.h): cJSON nodes to JSON text, each number
 * written back as its kept source text or its shortest round-trip decimal. Everything a value's
 * printing uses is here: the formatters, the reading back of a decimal (double and float32),
 * and the check that a number's kept text still reads as its value (dsj_number_text); the
 * nodes' file uses them too, never the other way. */
#include "dsjson_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- formatting ---------------------------------------------------------------------- */

/* Adds ".0" to a decimal that has neither a point nor an exponent, so it reads as a float. */
static size_t float_form(char *out, size_t n)
{
    if (strpbrk(out, ".e") == NULL) {
        memcpy(out + n, ".0", 3);
        n += 2;
    }
    return n;
}

static size_t non_finite(double d, char *out)
{
    const char *t = isnan(d) ? "nan" : d < 0 ? "-inf" : "inf";
    size_t n = strlen(t);
    memcpy(out, t, n + 1);
    return n;
}

/* D with P significant digits (P <= 17: at most 24 characters) into OUT. The compiler cannot
 * see P's bound, so the text goes through a buffer as long as %g can ever be. */
static int format_g(char out[DSJ_NUMBER_MAX], int p, double d)
{
    char wide[330];
    int n = snprintf(wide, sizeof wide, "%.*g", p, d);
    if (n < 0 || n >= DSJ_NUMBER_MAX) n = 0;
    memcpy(out, wide, (size_t)n);
    out[n] = '\0';
    return n;
}

/* Whether TEXT reads back as exactly D (as the float32 D when SINGLE). */
static bool reads_back(const char *text, double d, bool single)
{
    return single ? strtof(text, NULL) == (float)d : strtod(text, NULL) == d;
}

/* The fewest significant digits (1..MAX) whose correctly rounded decimal reads back as D;
 * OUT gets that decimal, and its length is returned. glibc's printf rounds correctly at
 * every precision.
 *
 * Where D's neighbours are equally far on both sides (every value but a power of two),
 * reading back is monotone in the digit count: a p-digit decimal is also a (p+1)-digit one,
 * so the nearest (p+1)-digit decimal is at least as close, and a closer decimal reads back
 * as well. There any search finds the least count, so the two longest counts, which most
 * values that are not short decimals need, are tried first (two or three formattings instead
 * of six), then a binary search below them. A power of two has a neighbour below twice as
 * close as the one above, and some (8 doubles, checked by the tests against the definition)
 * read back at p digits but not at p + 1: for them the binary search runs over the whole
 * range, as it always has, and gives the least count there too. */
static size_t shortest(double d, bool single, int max, char out[DSJ_NUMBER_MAX])
{
    char probe[DSJ_NUMBER_MAX];
    int lo = 1, hi = max, n = -1;
    int e;
    bool power_of_two = frexp(fabs(d), &e) == 0.5;
    if (!power_of_two) {
        int m = format_g(probe, max - 1, d);
        if (!reads_back(probe, d, single)) return (size_t)format_g(out, max, d);
        memcpy(out, probe, (size_t)m + 1);
        n = m;
        m = format_g(probe, max - 2, d);
        if (!reads_back(probe, d, single)) return (size_t)n;
        memcpy(out, probe, (size_t)m + 1);
        n = m;
        hi = max - 2;
    }
    /* OUT holds the decimal of HI digits once one has read back (n >= 0). */
    while (lo < hi) {
        int p = (lo + hi) / 2;
        int m = format_g(probe, p, d);
        if (reads_back(probe, d, single)) {
            hi = p;
            memcpy(out, probe, (size_t)m + 1);
            n = m;
        } else {
            lo = p + 1;
        }
    }
    return n >= 0 ? (size_t)n : (size_t)format_g(out, hi, d);
}

size_t dsj_format_double(double d, char out[DSJ_NUMBER_MAX])
{
    if (!isfinite(d)) return non_finite(d, out);
    return float_form(out, shortest(d, false, 17, out));
}

size_t dsj_format_float32(float f, char out[DSJ_NUMBER_MAX])
{
    if (!isfinite(f)) return non_finite(f, out);
    return float_form(out, shortest((double)f, true, 9, out));
}

size_t dsj_format_int64(int64_t v, char out[DSJ_NUMBER_MAX])
{
    return (size_t)snprintf(out, DSJ_NUMBER_MAX, "%" PRId64, v);
}

size_t dsj_format_uint64(uint64_t v, char out[DSJ_NUMBER_MAX])
{
    return (size_t)snprintf(out, DSJ_NUMBER_MAX, "%" PRIu64, v);
}

/* ---- reading a number's text back ------------------------------------------------ */

static bool starts_blank(const char *t)
{
    return *t == '\0' || *t == ' ' || *t == '\t' || *t == '\n' || *t == '\r' || *t == '\f' ||
           *t == '\v';
}

/* Whether TEXT spells an infinity ("inf", "-Infinity", ...) rather than overflowing to one. */
static bool names_infinity(const char *t)
{
    for (; *t; t++)
        if (*t == 'i' || *t == 'I') return true;
    return false;
}

int dsj_parse_float32(const char *text, float *out)
{
    if (starts_blank(text)) return DSJ_FLOAT_SYNTAX;
    char *end;
    errno = 0;
    float f = strtof(text, &end);
    if (*end) return DSJ_FLOAT_SYNTAX;
    if (isinf(f) && !names_infinity(text)) return DSJ_FLOAT_RANGE;
    *out = f;
    return DSJ_FLOAT_OK;
}

bool dsj_parse_double(const char *text, double *out)
{
    if (starts_blank(text)) return false;
    char *end;
    double d = strtod(text, &end);
    if (*end) return false;
    *out = d;
    return true;
}

const char *dsj_number_text(const cJSON *item)
{
    if (!cJSON_IsNumber(item) || item->valuestring == NULL) return NULL;
    const char *t = item->valuestring;
    double d = item->valuedouble;
    double back;
    if (!dsj_parse_double(t, &back)) return NULL;
    /* Same bits (NaN never occurs: JSON has no such number). A float32's shortest text reads
     * back as the float, not as the double it widens to. */
    if (back == d && signbit(back) == signbit(d)) return t;
    float f;
    if ((double)(float)d == d && dsj_parse_float32(t, &f) == DSJ_FLOAT_OK && (double)f == d &&
        signbit(f) == signbit(d))
        return t;
    return NULL;
}

/* ---- printing ------------------------------------------------------------------------ */

typedef struct out {
    char *data;
    size_t len, cap;
    bool failed;
} out;

static void put(out *o, const char *s, size_t n)
{
    if (o->failed) return;
    if (o->len + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap : 256;
        while (cap < o->len + n + 1)
            cap *= 2;
        char *d = cJSON_malloc(cap);
        if (d == NULL) {
            o->failed = true;
            return;
        }
        if (o->len) memcpy(d, o->data, o->len);
        cJSON_free(o->data);
        o->data = d;
        o->cap = cap;
    }
    memcpy(o->data + o->len, s, n);
    o->len += n;
    o->data[o->len] = '\0';
}

static void puts_(out *o, const char *s)
{
    put(o, s, strlen(s));
}

static void tabs(out *o, int n)
{
    for (int i = 0; i < n; i++)
        put(o, "\t", 1);
}

/* The bytes print_string looks at (dsjson.h): every other byte is copied as it is, with one
 * table lookup. */
const bool dsj_string_escaped[256] = {
    [0x00] = true, [0x01] = true, [0x02] = true, [0x03] = true, [0x04] = true, [0x05] = true,
    [0x06] = true, [0x07] = true, [0x08] = true, [0x09] = true, [0x0A] = true, [0x0B] = true,
    [0x0C] = true, [0x0D] = true, [0x0E] = true, [0x0F] = true, [0x10] = true, [0x11] = true,
    [0x12] = true, [0x13] = true, [0x14] = true, [0x15] = true, [0x16] = true, [0x17] = true,
    [0x18] = true, [0x19] = true, [0x1A] = true, [0x1B] = true, [0x1C] = true, [0x1D] = true,
    [0x1E] = true, [0x1F] = true, ['"'] = true,  ['\\'] = true, [0xC0] = true,
};

static void print_string(out *o, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    put(o, "\"", 1);
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (!dsj_string_escaped[c]) continue;
        const char *esc = NULL;
        char u[7];
        if (c == '"')
            esc = "\\\"";
        else if (c == '\\')
            esc = "\\\\";
        else if (c == '\n')
            esc = "\\n";
        else if (c == '\t')
            esc = "\\t";
        else if (c == '\r')
            esc = "\\r";
        else if (c == '\b')
            esc = "\\b";
        else if (c == '\f')
            esc = "\\f";
        else if (c == 0xC0 && (unsigned char)s[1] == 0x80)
            esc = "\\u0000";
        else if (c < 0x20) {
            memcpy(u, "\\u00", 4);
            u[4] = hex[c >> 4];
            u[5] = hex[c & 15];
            u[6] = '\0';
            esc = u;
        }
        if (esc == NULL) continue;
        put(o, run, (size_t)(s - run));
        puts_(o, esc);
        if (c == 0xC0) s++;
        run = s + 1;
    }
    put(o, run, (size_t)(s - run));
    put(o, "\"", 1);
}

static void print_number(out *o, const cJSON *item)
{
    const char *t = dsj_number_text(item);
    if (t != NULL) {
        puts_(o, t);
        return;
    }
    char buf[DSJ_NUMBER_MAX];
    double d = item->valuedouble;
    if (!isfinite(d))
        puts_(o, "null");
    else if (d == trunc(d) && fabs(d) <= EXACT_DOUBLE && !(d == 0 && signbit(d)))
        put(o, buf, dsj_format_int64((int64_t)d, buf));
    else
        put(o, buf, dsj_format_double(d, buf));
}

static void print_value(out *o, const cJSON *item, bool fmt, int depth)
{
    switch (item->type & 0xFF) {
    case cJSON_NULL:
        puts_(o, "null");
        return;
    case cJSON_False:
        puts_(o, "false");
        return;
    case cJSON_True:
        puts_(o, "true");
        return;
    case cJSON_Number:
        print_number(o, item);
        return;
    case cJSON_String:
        if (item->valuestring == NULL) break;
        print_string(o, item->valuestring);
        return;
    case cJSON_Raw:
        if (item->valuestring == NULL) break;
        puts_(o, item->valuestring);
        return;
    case cJSON_Array:
        put(o, "[", 1);
        for (const cJSON *c = item->child; c; c = c->next) {
            print_value(o, c, fmt, depth + 1);
            if (c->next) puts_(o, fmt ? ", " : ",");
        }
        put(o, "]", 1);
        return;
    case cJSON_Object:
        put(o, "{", 1);
        if (fmt) put(o, "\n", 1);
        for (const cJSON *c = item->child; c; c = c->next) {
            if (c->string == NULL) {
                o->failed = true;
                return;
            }
            if (fmt) tabs(o, depth + 1);
            print_string(o, c->string);
            puts_(o, fmt ? ":\t" : ":");
            print_value(o, c, fmt, depth + 1);
            if (c->next) put(o, ",", 1);
            if (fmt) put(o, "\n", 1);
        }
        if (fmt) tabs(o, depth);
        put(o, "}", 1);
        return;
    }
    o->failed = true;
}

char *dsj_print(const cJSON *item, bool formatted, size_t *len)
{
    if (item == NULL) return NULL;
    out o = {0};
    print_value(&o, item, formatted, 0);
    if (o.failed || o.data == NULL) {
        cJSON_free(o.data);
        return NULL;
    }
    if (len) *len = o.len;
    return o.data;
}
