/* dsjson: exact numbers and strings over cJSON (see dsjson.h); the reader is dsjson_parse.c,
 * the printer dsjson_print.c. */
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

/* ---- parsing text ------------------------------------------------------------------ */

bool dsj_is_integer_text(const char *t)
{
    if (*t == '-') t++;
    if (*t == '\0') return false;
    for (; *t; t++)
        if (*t < '0' || *t > '9') return false;
    return true;
}

bool dsj_parse_int64(const char *text, int64_t *out)
{
    if (!dsj_is_integer_text(text)) return false;
    errno = 0;
    char *end;
    long long v = strtoll(text, &end, 10);
    if (errno == ERANGE || *end) return false;
    *out = (int64_t)v;
    return true;
}

bool dsj_parse_uint64(const char *text, uint64_t *out)
{
    /* strtoull would accept "-1" as UINT64_MAX. "-0" is zero. */
    if (!dsj_is_integer_text(text)) return false;
    if (text[0] == '-') {
        for (const char *p = text + 1; *p; p++)
            if (*p != '0') return false;
        *out = 0;
        return true;
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno == ERANGE || *end) return false;
    *out = (uint64_t)v;
    return true;
}

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

/* ---- number and string nodes --------------------------------------------------------- */

char *dsj__copy_text(const char *s, size_t n)
{
    char *c = cJSON_malloc(n + 1);
    if (c == NULL) return NULL;
    memcpy(c, s, n);
    c[n] = '\0';
    return c;
}

/* A number node whose valuestring is TEXT (N bytes), a decimal that reads back to D. */
static cJSON *number_with_text(double d, const char *text, size_t n)
{
    cJSON *item = cJSON_CreateNumber(d);
    if (item == NULL) return NULL;
    item->valuestring = dsj__copy_text(text, n);
    if (item->valuestring == NULL) {
        cJSON_Delete(item);
        return NULL;
    }
    return item;
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

bool dsj_get_int64(const cJSON *item, int64_t *out)
{
    if (!cJSON_IsNumber(item)) return false;
    const char *t = dsj_number_text(item);
    if (t != NULL && dsj_is_integer_text(t)) return dsj_parse_int64(t, out);
    double d = item->valuedouble;
    if (d != trunc(d) || fabs(d) > EXACT_DOUBLE) return false;
    *out = (int64_t)d;
    return true;
}

bool dsj_get_uint64(const cJSON *item, uint64_t *out)
{
    if (!cJSON_IsNumber(item)) return false;
    const char *t = dsj_number_text(item);
    if (t != NULL && dsj_is_integer_text(t)) return dsj_parse_uint64(t, out);
    double d = item->valuedouble;
    if (d != trunc(d) || d < 0 || d > EXACT_DOUBLE) return false;
    *out = (uint64_t)d;
    return true;
}

int dsj_get_float32(const cJSON *item, float *out)
{
    if (!cJSON_IsNumber(item)) return DSJ_FLOAT_SYNTAX;
    const char *t = dsj_number_text(item);
    if (t != NULL) return dsj_parse_float32(t, out);
    /* Converting a double to float rounds once, to nearest; beyond the largest float's
     * rounding limit it gives infinity. */
    double d = item->valuedouble;
    float f = (float)d;
    if (isinf(f) && isfinite(d)) return DSJ_FLOAT_RANGE;
    *out = f;
    return DSJ_FLOAT_OK;
}

cJSON *dsj_create_int64(int64_t v)
{
    char t[DSJ_NUMBER_MAX];
    size_t n = dsj_format_int64(v, t);
    return number_with_text((double)v, t, n);
}

cJSON *dsj_create_uint64(uint64_t v)
{
    char t[DSJ_NUMBER_MAX];
    size_t n = dsj_format_uint64(v, t);
    return number_with_text((double)v, t, n);
}

cJSON *dsj_create_double(double d)
{
    if (!isfinite(d)) return cJSON_CreateNumber(d); /* prints as null */
    char t[DSJ_NUMBER_MAX];
    size_t n = dsj_format_double(d, t);
    return number_with_text(d, t, n);
}

cJSON *dsj_create_float32(float f)
{
    if (!isfinite(f)) return cJSON_CreateNumber(f);
    char t[DSJ_NUMBER_MAX];
    size_t n = dsj_format_float32(f, t);
    return number_with_text((double)f, t, n);
}

void dsj_set_number(cJSON *item, double d)
{
    if (!cJSON_IsNumber(item)) return;
    cJSON_free(item->valuestring);
    item->valuestring = NULL;
    cJSON_SetNumberValue(item, d);
}

cJSON *dsj_create_string_len(const char *s, size_t len)
{
    size_t nuls = 0;
    for (size_t i = 0; i < len; i++)
        nuls += s[i] == '\0';
    if (nuls == 0) {
        char *c = dsj__copy_text(s, len);
        if (c == NULL) return NULL;
        cJSON *item = cJSON_CreateString(c);
        cJSON_free(c);
        return item;
    }
    /* cJSON_CreateString copies up to the first NUL, so build the text first. */
    char *enc = cJSON_malloc(len + nuls + 1);
    if (enc == NULL) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\0') {
            enc[k++] = NUL0;
            enc[k++] = NUL1;
        } else {
            enc[k++] = s[i];
        }
    }
    enc[k] = '\0';
    cJSON *item = cJSON_CreateString(enc);
    cJSON_free(enc);
    return item;
}

bool dsj_string_has_nul(const char *s)
{
    return s != NULL && strstr(s, "\xC0\x80") != NULL;
}

size_t dsj_string_decode(const char *s, char *out)
{
    size_t k = 0;
    for (size_t i = 0; s[i]; i++) {
        if (s[i] == NUL0 && s[i + 1] == NUL1) {
            out[k++] = '\0';
            i++;
        } else {
            out[k++] = s[i];
        }
    }
    out[k] = '\0';
    return k;
}

uint16_t dsj_float16_from_double(double d)
{
    uint16_t sign = signbit(d) ? 0x8000u : 0u;
    if (isnan(d)) return (uint16_t)(sign | 0x7e00u);
    double a = fabs(d);
    /* 65520 is halfway between the largest float16 (65504, odd significand) and 2^16. */
    if (a >= 65520.0) return (uint16_t)(sign | 0x7c00u);
    int e;
    (void)frexp(a, &e);
    int exp = a == 0.0 ? -14 : e - 1;
    if (exp < -14) exp = -14;
    /* The unit in the last place at this exponent; the division by it is exact. */
    double q = ldexp(1.0, exp - 10);
    double r = nearbyint(a / q) * q;
    if (r == 0.0) return sign;
    if (r < 0x1p-14) return (uint16_t)(sign | (uint16_t)(r / 0x1p-24));
    (void)frexp(r, &e);
    exp = e - 1;
    uint16_t mant = (uint16_t)(ldexp(r, -exp) * 1024.0 - 1024.0);
    return (uint16_t)(sign | (uint16_t)((exp + 15) << 10) | mant);
}

double dsj_float16_to_double(uint16_t h)
{
    int exp = (h >> 10) & 0x1f;
    int mant = h & 0x3ff;
    double v;
    if (exp == 0)
        v = ldexp((double)mant, -24);
    else if (exp == 31)
        v = mant ? NAN : INFINITY;
    else
        v = ldexp((double)(mant + 1024), exp - 25);
    return (h & 0x8000u) ? -v : v;
}
