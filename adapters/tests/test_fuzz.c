/*
 * fuzz_test: thousands of damaged requests, made deterministically (fixed seed) from seed
 * requests that cover every op: flipped bytes, truncations, repeated slices, tricky values
 * put in place of others. Every one must get exactly one reply that is a JSON object with
 * "ok" and an "id" (a number, or null when the request had no readable id), and the adapter
 * must not crash (AddressSanitizer and UndefinedBehaviorSanitizer in CI). Prints TAP.
 *
 *   fuzz_test inproc ADAPTER.so [COUNT]
 *   fuzz_test host HOST ADAPTER.so [COUNT]
 */
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const seeds[] = {
    "{\"id\":1,\"op\":\"device.parse\",\"args\":{\"text\":\"cpu:0\"}}",
    "{\"id\":1,\"op\":\"device.describe\",\"args\":{\"device\":\"device#0\"}}",
    "{\"id\":1,\"op\":\"device.describe\",\"args\":{\"device\":{\"str\":\"gpu:1\"}}}",
    "{\"id\":1,\"op\":\"device.equal\",\"args\":{\"a\":\"device#0\",\"b\":{\"str\":\"cpu\"}}}",
    "{\"id\":1,\"op\":\"device.from_type_index\",\"args\":{\"type\":\"gpu\",\"index\":1}}",
    "{\"id\":1,\"op\":\"device.from_ordinal\",\"args\":{\"ordinal\":0}}",
    "{\"id\":1,\"op\":\"info.devices\"}",
    "{\"id\":1,\"op\":\"info.default_dtypes\",\"args\":{\"device\":\"device#0\"}}",
    "{\"id\":1,\"op\":\"info.dtypes\",\"args\":{\"kind\":[\"bool\",\"integral\"]}}",
    "{\"id\":1,\"op\":\"array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[2,3],\"dtype\":"
    "\"float32\"}}",
    "{\"id\":1,\"op\":\"array.create\",\"args\":{\"fn\":\"full\",\"shape\":[2],\"fill_value\":{"
    "\"scalar\":\"nan\"}}}",
    "{\"id\":1,\"op\":\"array.create\",\"args\":{\"fn\":\"arange\",\"start\":1,\"stop\":7,\"step\":"
    "2}}",
    "{\"id\":1,\"op\":\"array.create\",\"args\":{\"fn\":\"linspace\",\"start\":0,\"stop\":1,"
    "\"num\":5,\"endpoint\":false}}",
    "{\"id\":1,\"op\":\"array.create\",\"args\":{\"fn\":\"eye\",\"n_rows\":2,\"n_cols\":3,\"k\":1}"
    "}",
    "{\"id\":1,\"op\":\"array.create\",\"args\":{\"fn\":\"full_like\",\"x\":\"array#0\",\"fill_"
    "value\":3}}",
    "{\"id\":1,\"op\":\"array.asarray\",\"args\":{\"obj\":{\"dtype\":\"complex128\",\"shape\":[2],"
    "\"data\":[[1,\"-0.0\"],[\"inf\",2]]}}}",
    "{\"id\":1,\"op\":\"array.asarray\",\"args\":{\"obj\":{\"dtype\":\"uint64\",\"shape\":[1],"
    "\"data\":[\"18446744073709551615\"]}}}",
    "{\"id\":1,\"op\":\"array.asarray\",\"args\":{\"obj\":\"array#0\",\"copy\":true,\"device\":"
    "null}}",
    "{\"id\":1,\"op\":\"array.astype\",\"args\":{\"x\":\"array#0\",\"dtype\":\"int8\",\"copy\":"
    "false}}",
    "{\"id\":1,\"op\":\"array.describe\",\"args\":{\"array\":\"array#1\"}}",
    "{\"id\":1,\"op\":\"array.read\",\"args\":{\"array\":\"array#0\"}}",
    "{\"id\":1,\"op\":\"array.to_device\",\"args\":{\"array\":\"array#0\",\"device\":\"device#1\","
    "\"stream\":null}}",
    "{\"id\":1,\"op\":\"array.same\",\"args\":{\"a\":\"array#0\",\"b\":\"array#1\"}}",
    "{\"id\":1,\"op\":\"array.binary\",\"args\":{\"fn\":\"add\",\"x1\":\"array#0\",\"x2\":1.5}}",
    "{\"id\":1,\"op\":\"array.unary\",\"args\":{\"fn\":\"sqrt\",\"x\":\"array#0\"}}",
    "{\"id\":1,\"op\":\"array.reduce\",\"args\":{\"fn\":\"max\",\"x\":\"array#0\",\"axis\":-1}}",
    "{\"id\":1,\"op\":\"array.matmul\",\"args\":{\"x1\":\"array#0\",\"x2\":\"array#1\"}}",
    "{\"id\":1,\"op\":\"array.stack\",\"args\":{\"arrays\":[\"array#0\",\"array#1\"],\"axis\":0}}",
    "{\"id\":1,\"op\":\"array.dlpack_device\",\"args\":{\"array\":\"array#0\"}}",
    "{\"id\":1,\"op\":\"array.from_dlpack\",\"args\":{\"x\":\"array#0\",\"device\":\"device#1\","
    "\"copy\":false}}",
    "{\"id\":1,\"op\":\"array.create\",\"args\":{\"fn\":\"rfftfreq\",\"n\":3,\"d\":0.5}}",
    "{\"id\":1,\"op\":\"array.shard\",\"args\":{\"x\":\"array#0\",\"devices\":[\"device#0\","
    "{\"str\":\"cpu\"}],\"axis\":0}}",
    "{\"id\":1,\"op\":\"array.shard_describe\",\"args\":{\"array\":\"array#1\"}}",
    "{\"id\":1,\"op\":\"array.shard_piece\",\"args\":{\"array\":\"array#1\",\"index\":1}}",
    "{\"id\":1,\"op\":\"array.to_devices\",\"args\":{\"array\":\"array#0\",\"devices\":"
    "[\"device#1\"]}}",
    "{\"id\":1,\"op\":\"stream.default\",\"args\":{\"device\":\"device#0\"}}",
    "{\"id\":1,\"op\":\"default.push\",\"args\":{\"device\":{\"str\":\"cpu\"}}}",
    "{\"id\":1,\"op\":\"default.pop\"}",
    "{\"id\":1,\"op\":\"soft.set\",\"args\":{\"enabled\":true}}",
    "{\"id\":1,\"op\":\"util.total_memory\",\"args\":{\"device\":\"device#0\"}}",
};
#define NSEEDS (sizeof seeds / sizeof seeds[0])

static const char *const values[] = {"null",
                                     "true",
                                     "-1",
                                     "0",
                                     "1e400",
                                     "-1e400",
                                     "1.5",
                                     "9223372036854775808",
                                     "\"\"",
                                     "\"array#0\"",
                                     "\"device#0\"",
                                     "\"stream#0\"",
                                     "\"array#99999999999999999999\"",
                                     "[]",
                                     "{}",
                                     "[[[[[[",
                                     "\"\\u0000\"",
                                     "\"\\ud800\"",
                                     "{\"str\":null}",
                                     "{\"scalar\":\"1e999\"}",
                                     "[1,[2,[3]]]",
                                     "\"float16\"",
                                     "{\"dtype\":\"int8\",\"shape\":[3],\"data\":[1]}"};
#define NVALUES (sizeof values / sizeof values[0])

static unsigned long long state = 0x9e3779b97f4a7c15ull;

static unsigned rnd(unsigned n)
{
    /* xorshift64*: reproducible everywhere. */
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return (unsigned)((state * 0x2545f4914f6cdd1dull) >> 33) % n;
}

/* The live arrays the seeds' "array#0" and "array#1" stand for (remade after each reset,
 * since handle numbers are never reused). */
static char live[2][32] = {"array#0", "array#1"};

/* Copies seed into buf with array#0 and array#1 replaced by the live handles. */
static size_t instantiate(const char *seed, char *buf, size_t cap)
{
    size_t len = 0;
    for (const char *p = seed; *p && len + 32 < cap;) {
        if (strncmp(p, "array#0", 7) == 0 || strncmp(p, "array#1", 7) == 0) {
            const char *h = live[p[6] - '0'];
            memcpy(buf + len, h, strlen(h));
            len += strlen(h);
            p += 7;
        } else {
            buf[len++] = *p++;
        }
    }
    return len;
}

/* Writes a damaged copy of a seed into buf; returns its length. */
static size_t mutate(char *buf, size_t cap, bool host)
{
    size_t len = instantiate(seeds[rnd(NSEEDS)], buf, cap);
    int rounds = 1 + (int)rnd(3);
    for (int k = 0; k < rounds && len > 0; k++) {
        switch (rnd(7)) { /* value replacement, the default, is the most likely */
        case 0:           /* flip a byte */
            buf[rnd((unsigned)len)] = (char)rnd(256);
            break;
        case 1: /* truncate */
            len = rnd((unsigned)len);
            break;
        case 2: { /* repeat a slice */
            size_t a = rnd((unsigned)len), b = a + rnd((unsigned)(len - a) + 1);
            if (len + (b - a) < cap) {
                memmove(buf + b + (b - a), buf + b, len - b);
                memcpy(buf + b, buf + a, b - a);
                len += b - a;
            }
            break;
        }
        default: { /* a value after a ':' replaced by a tricky one */
            char *colon = memchr(buf + rnd((unsigned)len), ':', len / 2);
            if (colon == NULL || colon >= buf + len) break;
            size_t at = (size_t)(colon - buf) + 1, end = at;
            while (end < len && buf[end] != ',' && buf[end] != '}')
                end++;
            const char *v = values[rnd(NVALUES)];
            size_t vl = strlen(v);
            if (len - (end - at) + vl < cap) {
                memmove(buf + at + vl, buf + end, len - end);
                memcpy(buf + at, v, vl);
                len = len - (end - at) + vl;
            }
        }
        }
    }
    /* Out of process a newline would end the request early: the line is what is tested. */
    for (size_t i = 0; host && i < len; i++)
        if (buf[i] == '\n') buf[i] = ' ';
    return len;
}

static void make_live(drv *d)
{
    static const char *const make[2] = {
        "{\"id\":2,\"op\":\"array.asarray\",\"args\":{\"obj\":{\"dtype\":\"float64\","
        "\"shape\":[2,2],\"data\":[1,2,3,4]}}}",
        "{\"id\":2,\"op\":\"array.create\",\"args\":{\"fn\":\"ones\",\"shape\":[2,2]}}"};
    const char *reset = "{\"id\":2,\"op\":\"reset\"}";
    free(drv_raw(d, reset, strlen(reset)));
    for (int k = 0; k < 2; k++) {
        char *reply = drv_raw(d, make[k], strlen(make[k]));
        cJSON *r = reply ? cJSON_Parse(reply) : NULL;
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(r, "result");
        /* An adapter without the op keeps a name that is no handle: also worth sending. */
        snprintf(live[k], sizeof live[k], "%s", cJSON_IsString(h) ? h->valuestring : "array#0");
        cJSON_Delete(r);
        free(reply);
    }
}

/* How many damaged requests: DEVSPEC_FUZZ_REQUESTS, 4000 by default. */
static int request_count(void)
{
    const char *text = getenv("DEVSPEC_FUZZ_REQUESTS");
    int n = text ? atoi(text) : 0;
    return n > 0 ? n : 4000;
}

DT_TEST(damaged_requests)
{
    drv *d = drv_shared;
    int count = request_count();
    bool host = drv_is_host(d);
    const char *hello = "{\"id\":1,\"op\":\"hello\",\"args\":{\"protocol\":1}}";
    char *reply = drv_raw(d, hello, strlen(hello));
    drv_check(reply && strstr(reply, "\"ok\":true"), "hello");
    free(reply);
    int bad = 0, ok_replies = 0, errors = 0;
    static char buf[8192];
    for (int i = 0; i < count; i++) {
        size_t len = mutate(buf, sizeof buf, host);
        reply = drv_raw(d, buf, len);
        cJSON *r = reply ? cJSON_Parse(reply) : NULL;
        const cJSON *okv = cJSON_GetObjectItemCaseSensitive(r, "ok");
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(r, "id");
        bool good =
            cJSON_IsObject(r) && cJSON_IsBool(okv) && (cJSON_IsNumber(id) || cJSON_IsNull(id));
        if (!good) {
            if (bad++ < 5)
                dt_diag("request %d (%.*s) got %s", i, (int)(len < 200 ? len : 200), buf,
                        reply ? reply : "no reply");
            if (reply == NULL) break; /* the adapter died */
        } else if (cJSON_IsTrue(okv)) {
            ok_replies++;
        } else {
            errors++;
        }
        cJSON_Delete(r);
        free(reply);
        /* Keep the session small: reset, and make two live arrays again. */
        if (i % 50 == 0) make_live(d);
    }
    drv_check(bad == 0,
              "%d damaged requests: one well-formed reply each (%d ok, %d errors, %d bad)", count,
              ok_replies, errors, bad);
    const char *bye = "{\"id\":3,\"op\":\"bye\"}";
    reply = drv_raw(d, bye, strlen(bye));
    drv_check(reply && strstr(reply, "\"ok\":true"), "bye after the storm");
    free(reply);
}

DRV_MAIN(DT_ENTRY(damaged_requests))
