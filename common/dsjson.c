/* dsjson: exact numbers and strings over cJSON (see dsjson.h): integers read from their text,
 * number and string nodes made in C, float16. The reader is dsjson_parse.c; the printer, with
 * the number formatting and the check of a number's kept text that it uses, dsjson_print.c. */
#include "dsjson_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading integers from text ----------------------------------------------------- */

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
