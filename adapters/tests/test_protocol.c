/*
 * protocol_test: the shim's handling of the protocol itself, through the template's toy
 * adapter in either transport: hello first, malformed requests of every kind, argument and
 * handle errors, reset, typed arrays of all 13 dtypes (spec/protocol.md, "Values"), slots
 * the table leaves NULL, and bye.
 *
 *   protocol_test inproc devspec_adapter_toy.so
 *   protocol_test host devspec-adapter-host devspec_adapter_toy.so
 */
#include "driver.h"

#include "devspec_shim.h"

#include <stdlib.h>
#include <string.h>

/* Sends `len` raw bytes and expects an error reply with id null (or `id`), kind, origin. */
static void raw_err(drv *d, const char *name, const char *request, size_t len, const char *id,
                    const char *kind)
{
    char *reply = drv_raw(d, request, len);
    cJSON *r = reply ? cJSON_Parse(reply) : NULL;
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(r, "error");
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(err, "kind");
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(err, "origin");
    const cJSON *rid = cJSON_GetObjectItemCaseSensitive(r, "id");
    char *idtext = rid ? cJSON_PrintUnformatted(rid) : NULL;
    bool pass = r != NULL && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r, "ok")) &&
                cJSON_IsString(k) && strcmp(k->valuestring, kind) == 0 && cJSON_IsString(o) &&
                strcmp(o->valuestring, "protocol") == 0 && idtext && strcmp(idtext, id) == 0;
    if (!pass) {
        dt_diag("  expected error kind %s origin protocol id %s", kind, id);
        dt_diag("  observed: %s", reply ? reply : "(no reply)");
        dt_fail(__FILE__, __LINE__, "%s", name);
    }
    free(idtext);
    cJSON_Delete(r);
    free(reply);
}

/* A raw request given as a string literal, sent without its terminating NUL. */
#define RAW(d, name, lit, id, kind) raw_err(d, name, lit, sizeof(lit) - 1, id, kind)

static void malformed(drv *d)
{
    static const char bad_utf8[] = "{\"id\":1,\"op\":\"\xff\xfe\"}";
    static const char overlong[] = "{\"id\":1,\"op\":\"\xc0\xaf\"}";
    static const char surrogate[] = "{\"id\":1,\"op\":\"\xed\xa0\x80\"}";
    static const char with_nul[] = "{\"id\":1,\0\"op\":\"reset\"}";
    RAW(d, "malformed: not JSON", "garbage", "null", "ValueError");
    RAW(d, "malformed: empty line", "", "null", "ValueError");
    RAW(d, "malformed: truncated object", "{\"id\":1,\"op\":", "null", "ValueError");
    raw_err(d, "malformed: invalid UTF-8", bad_utf8, sizeof bad_utf8 - 1, "null", "ValueError");
    raw_err(d, "malformed: overlong UTF-8", overlong, sizeof overlong - 1, "null", "ValueError");
    raw_err(d, "malformed: UTF-8 surrogate", surrogate, sizeof surrogate - 1, "null", "ValueError");
    raw_err(d, "malformed: NUL byte inside", with_nul, sizeof with_nul - 1, "null", "ValueError");
    RAW(d, "malformed: a list, not an object", "[1,2]", "null", "TypeError");
    RAW(d, "malformed: a string, not an object", "\"hello\"", "null", "TypeError");
    RAW(d, "malformed: text after the object", "{\"id\":1,\"op\":\"reset\"} x", "null",
        "ValueError");
    RAW(d, "malformed: missing id", "{\"op\":\"reset\"}", "null", "ValueError");
    RAW(d, "malformed: negative id", "{\"id\":-1,\"op\":\"reset\"}", "null", "TypeError");
    RAW(d, "malformed: fractional id", "{\"id\":1.5,\"op\":\"reset\"}", "null", "TypeError");
    RAW(d, "malformed: string id", "{\"id\":\"1\",\"op\":\"reset\"}", "null", "TypeError");
    RAW(d, "malformed: missing op (id echoed)", "{\"id\":41}", "41", "ValueError");
    RAW(d, "malformed: op not a string", "{\"id\":42,\"op\":7}", "42", "TypeError");
    RAW(d, "malformed: args not an object", "{\"id\":43,\"op\":\"reset\",\"args\":[1]}", "43",
        "TypeError");

    /* An oversized line: refused with a message, and the session goes on. */
    size_t big = (size_t)DS_PROTOCOL_MAX_LINE + 10;
    char *line = malloc(big);
    memset(line, ' ', big);
    memcpy(line, "{\"id\":44,\"op\":\"reset\"}", 22);
    raw_err(d, "malformed: line over DS_PROTOCOL_MAX_LINE is refused", line, big, "null",
            "ValueError");
    free(line);
    OK(d, "the session goes on after an oversized line", NULL, "null", "\"op\":\"reset\"");
    char *reply = drv_raw(d, "{\"id\":9007199254740991,\"op\":\"reset\"}", 36);
    drv_check(reply && strstr(reply, "\"id\":9007199254740991") != NULL,
              "id 2^53-1 is echoed exactly");
    free(reply);
}

static void typed_round_trip(drv *d, const char *name, const char *in, const char *out)
{
    char label[160];
    snprintf(label, sizeof label, "typed array %s: asarray", name);
    if (!OK(d, label, "t", NULL, "\"op\":\"array.asarray\",\"args\":{\"obj\":%s}", in)) return;
    snprintf(label, sizeof label, "typed array %s: read gives it back exactly", name);
    OK(d, label, NULL, out, "\"op\":\"array.read\",\"args\":{\"array\":$t}");
}

/* Each typed array goes in as `in` and reads back as `out` (NULL: exactly as `in`). */
static const struct {
    const char *name, *in, *out;
} round_trips[] = {
    {"bool", "{\"dtype\":\"bool\",\"shape\":[2],\"data\":[true,false]}", NULL},
    {"int8", "{\"dtype\":\"int8\",\"shape\":[2],\"data\":[-128,\"127\"]}",
     "{\"dtype\":\"int8\",\"shape\":[2],\"data\":[-128,127]}"},
    {"int16", "{\"dtype\":\"int16\",\"shape\":[2],\"data\":[-32768,32767]}", NULL},
    {"int32", "{\"dtype\":\"int32\",\"shape\":[2],\"data\":[-2147483648,2147483647]}", NULL},
    /* Beyond 2^53 integers travel as strings; up to it as numbers. */
    {"int64",
     "{\"dtype\":\"int64\",\"shape\":[2,2],\"data\":[\"-9223372036854775808\","
     "\"9223372036854775807\",9007199254740992,\"9007199254740993\"]}",
     NULL},
    /* Numbers of any width read exactly (the reader keeps their text): 2^53 + 1 and the
     * extremes arrive as numbers and go back as strings. */
    {"int64 numbers beyond 2^53",
     "{\"dtype\":\"int64\",\"shape\":[3],\"data\":[9007199254740993,"
     "-9223372036854775808,1152921504606846977]}",
     "{\"dtype\":\"int64\",\"shape\":[3],\"data\":[\"9007199254740993\","
     "\"-9223372036854775808\",\"1152921504606846977\"]}"},
    {"uint64 number UINT64_MAX",
     "{\"dtype\":\"uint64\",\"shape\":[1],\"data\":[18446744073709551615]}",
     "{\"dtype\":\"uint64\",\"shape\":[1],\"data\":[\"18446744073709551615\"]}"},
    /* 3.4028235e+38 is FLT_MAX's shortest decimal: it rounds to FLT_MAX, so it is in range,
     * as a number and as a string. */
    {"float32 FLT_MAX's shortest decimal",
     "{\"dtype\":\"float32\",\"shape\":[3],\"data\":[3.4028235e+38,"
     "\"-3.4028235e+38\",3.4028235677973366e38]}",
     "{\"dtype\":\"float32\",\"shape\":[3],\"data\":[3.4028235e+38,"
     "-3.4028235e+38,3.4028235e+38]}"},
    {"float64 hard values",
     "{\"dtype\":\"float64\",\"shape\":[5],\"data\":[1.0000000000000002,"
     "0.30000000000000004,1.7976931348623157e+308,4.9e-324,"
     "2.2250738585072014e-308]}",
     "{\"dtype\":\"float64\",\"shape\":[5],\"data\":[1.0000000000000002,"
     "0.30000000000000004,1.7976931348623157e+308,5e-324,"
     "2.2250738585072014e-308]}"},
    {"uint8", "{\"dtype\":\"uint8\",\"shape\":[2],\"data\":[0,255]}", NULL},
    {"uint16", "{\"dtype\":\"uint16\",\"shape\":[1],\"data\":[65535]}", NULL},
    {"uint32", "{\"dtype\":\"uint32\",\"shape\":[1],\"data\":[4294967295]}", NULL},
    {"uint64", "{\"dtype\":\"uint64\",\"shape\":[2],\"data\":[\"18446744073709551615\",1]}", NULL},
    /* float32: 0.1 is written as its shortest float32 decimal; 1e-45 rounds to the
     * smallest subnormal, whose shortest decimal is 1e-45; FLT_MAX prints as 3.4028235e+38. */
    {"float32",
     "{\"dtype\":\"float32\",\"shape\":[7],\"data\":[\"nan\",\"inf\",\"-inf\","
     "\"-0.0\",0.1,1e-45,3.4028234663852886e38]}",
     "{\"dtype\":\"float32\",\"shape\":[7],\"data\":[\"nan\",\"inf\",\"-inf\","
     "\"-0.0\",0.1,1e-45,3.4028235e+38]}"},
    {"float64",
     "{\"dtype\":\"float64\",\"shape\":[6],\"data\":[\"NaN\",\"-inf\",\"-0.0\","
     "0.1,5e-324,\"0.5\"]}",
     "{\"dtype\":\"float64\",\"shape\":[6],\"data\":[\"nan\",\"-inf\",\"-0.0\","
     "0.1,5e-324,0.5]}"},
    {"complex64",
     "{\"dtype\":\"complex64\",\"shape\":[2],\"data\":[[1.5,\"-0.0\"],[\"nan\","
     "\"inf\"]]}",
     NULL},
    {"complex128", "{\"dtype\":\"complex128\",\"shape\":[1],\"data\":[[0.1,-2]]}", NULL},
    {"0-d", "{\"dtype\":\"int32\",\"shape\":[],\"data\":[7]}", NULL},
    {"empty", "{\"dtype\":\"float32\",\"shape\":[0,3],\"data\":[]}", NULL},
};

/* Typed arrays the adapter refuses, with the error kind (origin protocol). */
static const struct {
    const char *name, *obj, *kind;
} bad_arrays[] = {
    {"int8 element 128 is out of range", "{\"dtype\":\"int8\",\"shape\":[1],\"data\":[128]}",
     "ValueError"},
    {"uint64 element \"-1\" is refused", "{\"dtype\":\"uint64\",\"shape\":[1],\"data\":[\"-1\"]}",
     "ValueError"},
    {"int64 element 2^63 as a number is out of range",
     "{\"dtype\":\"int64\",\"shape\":[1],\"data\":[9223372036854775808]}", "ValueError"},
    {"uint64 element 2^64 as a number is out of range",
     "{\"dtype\":\"uint64\",\"shape\":[1],\"data\":[18446744073709551616]}", "ValueError"},
    {"float32 element at FLT_MAX's rounding limit rounds to infinity: out of range",
     "{\"dtype\":\"float32\",\"shape\":[1],\"data\":[3.4028235677973367e38]}", "ValueError"},
    {"float32 string \"1e39\" is out of range",
     "{\"dtype\":\"float32\",\"shape\":[1],\"data\":[\"1e39\"]}", "ValueError"},
    {"int32 element 1.5 is refused", "{\"dtype\":\"int32\",\"shape\":[1],\"data\":[1.5]}",
     "ValueError"},
    {"bool element 1 is refused", "{\"dtype\":\"bool\",\"shape\":[1],\"data\":[1]}", "TypeError"},
    {"float string \"abc\" is refused", "{\"dtype\":\"float64\",\"shape\":[1],\"data\":[\"abc\"]}",
     "ValueError"},
    {"float32 element 1e39 is out of range",
     "{\"dtype\":\"float32\",\"shape\":[1],\"data\":[1e39]}", "ValueError"},
    {"complex element that is not a pair", "{\"dtype\":\"complex64\",\"shape\":[1],\"data\":[[1]]}",
     "TypeError"},
    {"shape and data disagree", "{\"dtype\":\"int32\",\"shape\":[2,2],\"data\":[1,2,3]}",
     "ValueError"},
    {"negative shape", "{\"dtype\":\"int32\",\"shape\":[-1],\"data\":[]}", "ValueError"},
    {"unknown dtype", "{\"dtype\":\"float128\",\"shape\":[1],\"data\":[1]}", "ValueError"},
    {"missing data", "{\"dtype\":\"int32\",\"shape\":[1]}", "TypeError"},
    {"a nested list is not a typed array", "[[1,2],[3,4]]", "TypeError"},
};

static void typed_arrays(drv *d)
{
    for (size_t i = 0; i < sizeof round_trips / sizeof round_trips[0]; i++)
        typed_round_trip(d, round_trips[i].name, round_trips[i].in,
                         round_trips[i].out ? round_trips[i].out : round_trips[i].in);

    for (size_t i = 0; i < sizeof bad_arrays / sizeof bad_arrays[0]; i++) {
        char label[160];
        snprintf(label, sizeof label, "typed array: %s", bad_arrays[i].name);
        ERR(d, label, bad_arrays[i].kind, "protocol",
            "\"op\":\"array.asarray\",\"args\":{\"obj\":%s}", bad_arrays[i].obj);
    }
}

/* Arguments the adapter refuses: missing, misspelt, of the wrong type or out of range. */
static void arguments(drv *d)
{
    ERR(d, "array.create without fn", "TypeError", "protocol",
        "\"op\":\"array.create\",\"args\":{\"shape\":[2]}");
    ERR(d, "array.create with an unknown fn", "ValueError", "protocol",
        "\"op\":\"array.create\",\"args\":{\"fn\":\"zeroes\",\"shape\":[2]}");
    ERR(d, "zeros with a string shape", "TypeError", "protocol",
        "\"op\":\"array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":\"abc\"}");
    ERR(d, "zeros with an unknown dtype", "ValueError", "protocol",
        "\"op\":\"array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[2],\"dtype\":\"float128\"}");
    ERR(d, "zeros with a misspelt argument", "TypeError", "protocol",
        "\"op\":\"array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[2],\"devcie\":null}");
    ERR(d, "zeros with a number as device", "TypeError", "protocol",
        "\"op\":\"array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[2],\"device\":0}");
    ERR(d, "zeros with 33 dimensions", "ValueError", "protocol",
        "\"op\":\"array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[1,1,1,1,1,1,1,1,1,1,1,1,1,"
        "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}");
    ERR(d, "device.parse without text", "TypeError", "protocol", "\"op\":\"device.parse\"");
    ERR(d, "device.parse with a number", "TypeError", "protocol",
        "\"op\":\"device.parse\",\"args\":{\"text\":0}");
    /* What only a language with lists, tuples and keyword arguments can answer. */
    ERR(d, "info.devices_type: a C library has no list or tuple", "NotImplementedError", "adapter",
        "\"op\":\"info.devices_type\"");
    ERR(d, "info.device_param: C functions have no signature to read", "NotImplementedError",
        "adapter", "\"op\":\"info.device_param\",\"args\":{\"fn\":\"zeros\"}");
    ERR(d, "info.device_param without fn", "TypeError", "protocol", "\"op\":\"info.device_param\"");
    ERR(d, "array.dlpack of an unknown handle", "ValueError", "protocol",
        "\"op\":\"array.dlpack\",\"args\":{\"array\":\"array#999999\"}");
    /* A string with a NUL cannot reach a C library: it is refused, never cut to "cpu". */
    ERR(d, "device.parse of \"cpu\\u0000\" is a ValueError, not cpu", "ValueError", "library",
        "\"op\":\"device.parse\",\"args\":{\"text\":\"cpu\\u0000\"}");
    ERR(d, "device.from_type_index with type \"cpu\\u0000\" is a ValueError", "ValueError",
        "library",
        "\"op\":\"device.from_type_index\",\"args\":{\"type\":\"cpu\\u0000\",\"index\":0}");
    ERR(d, "a device {\"str\": \"cpu\\u0000x\"} is a ValueError", "ValueError", "library",
        "\"op\":\"array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[1],"
        "\"device\":{\"str\":\"cpu\\u0000x\"}}");
}

/* Handles: an array made, described, read, and the handle forms refused. */
static void handles(drv *d)
{
    OK(d, "zeros on the default device", "x", "\"*\"",
       "\"op\":\"array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[2,3],\"dtype\":\"int16\"}");
    OK(d, "describe it", NULL, "{\"device\":\"*\",\"dtype\":\"int16\",\"shape\":[2,3]}",
       "\"op\":\"array.describe\",\"args\":{\"array\":$x}");
    OK(d, "read it", NULL, "{\"dtype\":\"int16\",\"shape\":[2,3],\"data\":[0,0,0,0,0,0]}",
       "\"op\":\"array.read\",\"args\":{\"array\":$x}");
    ERR(d, "handle: unknown array handle", "ValueError", "protocol",
        "\"op\":\"array.describe\",\"args\":{\"array\":\"array#999999\"}");
    ERR(d, "handle: a device handle where an array is needed", "TypeError", "protocol",
        "\"op\":\"array.describe\",\"args\":{\"array\":$dev0}");
    ERR(d, "handle: an array handle where a device is needed", "TypeError", "protocol",
        "\"op\":\"device.describe\",\"args\":{\"device\":$x}");
    ERR(d, "handle: not a handle at all", "ValueError", "protocol",
        "\"op\":\"array.describe\",\"args\":{\"array\":\"bogus\"}");
    ERR(d, "handle: leading zero is not a handle", "ValueError", "protocol",
        "\"op\":\"array.describe\",\"args\":{\"array\":\"array#01\"}");
    ERR(d, "handle: a number is not a handle", "TypeError", "protocol",
        "\"op\":\"array.describe\",\"args\":{\"array\":0}");
    ERR(d, "handle: unknown stream handle", "ValueError", "protocol",
        "\"op\":\"array.to_device\",\"args\":{\"array\":$x,\"device\":$dev1,\"stream\":\"stream#"
        "5\"}");

    /* The template's capabilities() (info.capabilities, version 10). */
    OK(d, "info.capabilities: the template's answer", NULL,
       "{\"boolean indexing\":false,\"data-dependent shapes\":false}",
       "\"op\":\"info.capabilities\"");
    /* Slots the toy table leaves NULL, and a callback that says it cannot. */
    ERR(d, "a NULL slot answers NotImplementedError (matmul)", "NotImplementedError", "adapter",
        "\"op\":\"array.matmul\",\"args\":{\"x1\":$x,\"x2\":$x}");
    ERR(d, "a NULL slot answers NotImplementedError (default.get)", "NotImplementedError",
        "adapter", "\"op\":\"default.get\"");
    ERR(d, "ds_lacks and DS_NOT_IMPLEMENTED from a callback (ones): lacking", "NotImplementedError",
        "library", "\"op\":\"array.create\",\"args\":{\"fn\":\"ones\",\"shape\":[2]}");
    ERR(d, "DS_NOT_IMPLEMENTED alone from a callback (multiply)", "NotImplementedError", "adapter",
        "\"op\":\"array.binary\",\"args\":{\"fn\":\"multiply\",\"x1\":$x,\"x2\":$x}");
    ERR(d, "an unknown op answers NotImplementedError", "NotImplementedError", "adapter",
        "\"op\":\"shard.split\"");
    /* Errors the library reports: kind from the table's error slot, origin library. */
    ERR(d, "library error: unknown device string", "ValueError", "library",
        "\"op\":\"device.parse\",\"args\":{\"text\":\"gpu\"}");
    ERR(d, "library error: ds_error() kind and message", "TypeError", "library",
        "\"op\":\"array.to_device\",\"args\":{\"array\":$x,\"device\":null}");
    ERR(d, "to_device needs its device argument", "TypeError", "protocol",
        "\"op\":\"array.to_device\",\"args\":{\"array\":$x}");

    OK(d, "device.describe of a device string describes the library's device for it", NULL,
       "{\"str\":\"toy:1\",\"type\":\"toy\",\"index\":1}",
       "\"op\":\"device.describe\",\"args\":{\"device\":{\"str\":\"toy:1\"}}");
    OK(d, "device.equal of a string and a handle", NULL, "true",
       "\"op\":\"device.equal\",\"args\":{\"a\":{\"str\":\"toy\"},\"b\":$dev0}");
    ERR(d, "device.describe of a string the library refuses", "ValueError", "library",
        "\"op\":\"device.describe\",\"args\":{\"device\":{\"str\":\"gpu\"}}");
    ERR(d, "device.describe of null", "TypeError", "protocol",
        "\"op\":\"device.describe\",\"args\":{\"device\":null}");
    OK(d, "to_device to the second device", "y", "\"*\"",
       "\"op\":\"array.to_device\",\"args\":{\"array\":$x,\"device\":$dev1}");
    OK(d, "describe the copy", "ydesc", "{\"dtype\":\"int16\",\"shape\":[2,3]}",
       "\"op\":\"array.describe\",\"args\":{\"array\":$y}");
    cJSON *desc = cJSON_Parse(drv_bound(d, "ydesc"));
    drv_bind(d, "ydev", cJSON_GetObjectItemCaseSensitive(desc, "device"));
    cJSON_Delete(desc);
    OK(d, "the copy is on the second device (device.equal)", NULL, "true",
       "\"op\":\"device.equal\",\"args\":{\"a\":$ydev,\"b\":$dev1}");
    OK(d, "device strings travel as {\"str\": ...}", "z", "\"*\"",
       "\"op\":\"array.to_device\",\"args\":{\"array\":$x,\"device\":{\"str\":\"toy:1\"}}");
    OK(d, "array.same: a handle is itself", NULL, "true",
       "\"op\":\"array.same\",\"args\":{\"a\":$x,\"b\":$x}");
    OK(d, "array.same: a copy is not", NULL, "false",
       "\"op\":\"array.same\",\"args\":{\"a\":$x,\"b\":$y}");

    OK(d, "reset", NULL, "null", "\"op\":\"reset\"");
    ERR(d, "reset drops array handles", "ValueError", "protocol",
        "\"op\":\"array.describe\",\"args\":{\"array\":$x}");
    ERR(d, "reset drops device handles made after hello", "ValueError", "protocol",
        "\"op\":\"device.describe\",\"args\":{\"device\":$ydev}");
    OK(d, "device handles listed by hello survive reset", NULL,
       "{\"str\":\"toy:0\",\"type\":\"toy\",\"index\":0}",
       "\"op\":\"device.describe\",\"args\":{\"device\":$dev0}");
    OK(d, "handle numbers are not reused after reset", "x2", "\"*\"",
       "\"op\":\"array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[1]}");
    drv_check(strcmp(drv_bound(d, "x2"), drv_bound(d, "x")) != 0, "new handle %s differs from %s",
              drv_bound(d, "x2"), drv_bound(d, "x"));
}

/* The session before and at hello: errors before it, then hello itself, with the bindings
 * the later tests use ($dev0, $dev1). The later tests need it, so a filter that leaves it
 * out runs it anyway. */
static bool said_hello;

static void session_start(void)
{
    drv *d = drv_shared;
    if (said_hello) return;
    said_hello = true;
    dt_diag("transport: %s", drv_is_host(d) ? "out of process (devspec-adapter-host)"
                                            : "in process (devspec_adapter_call)");
    ERR(d, "an op before hello is a protocol error", "RuntimeError", "protocol",
        "\"op\":\"info.devices\"");
    ERR(d, "reset before hello is a protocol error", "RuntimeError", "protocol",
        "\"op\":\"reset\"");
    ERR(d, "hello without protocol", "TypeError", "protocol", "\"op\":\"hello\"");
    ERR(d, "hello with protocol 2 is refused", "ValueError", "protocol",
        "\"op\":\"hello\",\"args\":{\"protocol\":2}");
    ERR(d, "an op after a failed hello is a protocol error", "RuntimeError", "protocol",
        "\"op\":\"info.devices\"");
    ERR(d, "hello with an unknown argument", "TypeError", "protocol",
        "\"op\":\"hello\",\"args\":{\"protocol\":1,\"x\":1}");
    OK(d, "hello", "hello",
       "{\"protocol\":1,\"library\":{\"name\":\"toylib\",\"version\":\"0.0\"},"
       "\"adapter\":{\"name\":\"toylib-template\",\"version\":\"0.1\"},"
       "\"features\":[\"device-eq\",\"to-device\",\"dlpack-device\",\"dlpack-export\"],\"devices\":"
       "[\"*\",\"*\"],"
       "\"device_strs\":[\"toy:0\",\"toy:1\"],\"default_device\":\"*\",\"max_line\":67108864}",
       "\"op\":\"hello\",\"args\":{\"protocol\":1}");
    cJSON *hello = cJSON_Parse(drv_bound(d, "hello"));
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(hello, "devices");
    drv_bind(d, "dev0", cJSON_GetArrayItem(devs, 0));
    drv_bind(d, "dev1", cJSON_GetArrayItem(devs, 1));
    bool same = cJSON_Compare(cJSON_GetObjectItemCaseSensitive(hello, "default_device"),
                              cJSON_GetArrayItem(devs, 0), true);
    cJSON_Delete(hello);
    drv_check(same, "hello's default_device is one of its devices' handles");
    OK(d, "info.default_device gives a device handle", "def", "\"*\"",
       "\"op\":\"info.default_device\"");
    OK(d, "it equals the first listed device", NULL, "true",
       "\"op\":\"device.equal\",\"args\":{\"a\":$def,\"b\":$dev0}");
}

DT_TEST(hello)
{
    session_start();
}

DT_TEST(malformed_requests)
{
    session_start();
    malformed(drv_shared);
}

DT_TEST(typed_arrays)
{
    session_start();
    typed_arrays(drv_shared);
}

DT_TEST(arguments_and_handles)
{
    session_start();
    arguments(drv_shared);
    handles(drv_shared);
}

DT_TEST(bye)
{
    drv *d = drv_shared;
    session_start();
    OK(d, "bye", NULL, "null", "\"op\":\"bye\"");
    if (!drv_is_host(d))
        ERR(d, "after bye, hello is needed again", "RuntimeError", "protocol",
            "\"op\":\"info.devices\"");
}

DRV_MAIN(DT_ENTRY(hello), DT_ENTRY(malformed_requests), DT_ENTRY(typed_arrays),
         DT_ENTRY(arguments_and_handles), DT_ENTRY(bye))
