/* dsjson_print.c: the printer of dsjson (see dsjson.h): cJSON nodes to JSON text, each number
 * written back as its kept source text or its shortest round-trip decimal. */
#include "dsjson_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void print_string(out *o, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    put(o, "\"", 1);
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
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
