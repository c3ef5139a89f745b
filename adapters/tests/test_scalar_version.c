/*
 * scalar_version_test: which Python ints the shim hands a library, by the vendor table's
 * version. A table of version 9 or later takes [2^63, 2^64) as ds_scalar's `u`; an older
 * table, which would read such a value as a negative int64, is never called with it: the
 * reply is the library's OverflowError naming the argument and int64. Both tables answer
 * `full` by recording the fill value they were given.
 */
#include "devspec_shim.h"
#include "dtest.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int device_token, array_token;
static int full_calls;
static ds_scalar seen;

static int t_open(void **lib)
{
    *lib = &device_token;
    return 0;
}

static int t_hello(void *lib, ds_library_info *out)
{
    static const char *const features[] = {NULL};
    (void)lib;
    out->name = "scalars";
    out->version = "1";
    out->features = features;
    return 0;
}

static void t_release(void *lib, ds_array x)
{
    (void)lib;
    (void)x;
}

static int t_equal(void *lib, ds_devobj a, ds_devobj b, bool *out)
{
    (void)lib;
    *out = a == b;
    return 0;
}

static int t_devices(void *lib, ds_devobj *out, size_t cap, size_t *n)
{
    (void)lib;
    if (cap > 0) out[0] = &device_token;
    *n = 1;
    return 0;
}

static int t_describe(void *lib, ds_array x, ds_array_info *out)
{
    (void)lib;
    (void)x;
    out->device = &device_token;
    out->dtype = DS_UINT64;
    out->ndim = 0;
    return 0;
}

static int t_read(void *lib, ds_array x, void *data, size_t nbytes)
{
    (void)lib;
    (void)x;
    memset(data, 0, nbytes);
    return 0;
}

static int t_full(void *lib, const int64_t *shape, int ndim, ds_scalar fill_value, ds_dtype dtype,
                  ds_device device, ds_array *out)
{
    (void)lib;
    (void)shape;
    (void)ndim;
    (void)dtype;
    (void)device;
    full_calls++;
    seen = fill_value;
    *out = &array_token;
    return 0;
}

#define TABLE(VERSION)                                                                             \
    {                                                                                              \
        .version = (VERSION), .size = sizeof(ds_vendor), .adapter_name = "scalars",                \
        .adapter_version = "1", .open = t_open, .hello = t_hello, .release_array = t_release,      \
        .device_equal = t_equal, .info_devices = t_devices, .describe = t_describe,                \
        .read = t_read, .full = t_full                                                             \
    }

static const ds_vendor v9 = TABLE(9), v8 = TABLE(8);

static cJSON *ask(const ds_vendor *t, const char *request, char *text, size_t cap)
{
    const char *reply = ds_shim_call(t, request, strlen(request), NULL);
    snprintf(text, cap, "%s", reply);
    cJSON *r = cJSON_Parse(reply);
    ds_shim_free(reply);
    return r;
}

/* hello, then full([1], fill) with `fill` the JSON text of the fill value; the reply. */
static cJSON *full_with(const ds_vendor *t, const char *fill, char *text, size_t cap)
{
    cJSON *r = ask(t, "{\"id\":1,\"op\":\"hello\",\"args\":{\"protocol\":1}}", text, cap);
    cJSON_Delete(r);
    char request[256];
    snprintf(request, sizeof request,
             "{\"id\":2,\"op\":\"array.create\",\"args\":{\"fn\":\"full\",\"shape\":[1],"
             "\"fill_value\":%s,\"dtype\":\"uint64\"}}",
             fill);
    full_calls = 0;
    memset(&seen, 0, sizeof seen);
    return ask(t, request, text, cap);
}

static void bye(const ds_vendor *t)
{
    char text[256];
    cJSON_Delete(ask(t, "{\"id\":3,\"op\":\"bye\"}", text, sizeof text));
}

static bool overflow(const cJSON *r)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "error");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(e, "kind");
    const cJSON *origin = cJSON_GetObjectItemCaseSensitive(e, "origin");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(e, "message");
    return cJSON_IsString(kind) && !strcmp(kind->valuestring, "OverflowError") &&
           cJSON_IsString(origin) && !strcmp(origin->valuestring, "library") &&
           cJSON_IsString(msg) && strstr(msg->valuestring, "fill_value") != NULL;
}

DT_TEST(version_9_takes_uint64_ints)
{
    char text[1024];
    const uint64_t two63 = UINT64_C(1) << 63;
    cJSON *r = full_with(&v9, "{\"scalar\":\"9223372036854775808\"}", text, sizeof text);
    ASSERT_MSG(full_calls == 1 && seen.kind == DS_SCALAR_INT && seen.u && (uint64_t)seen.i == two63,
               "a version 9 table gets 2^63 with u set (reply %s)", text);
    cJSON_Delete(r);
    r = full_with(&v9, "{\"scalar\":\"18446744073709551615\"}", text, sizeof text);
    ASSERT_MSG(full_calls == 1 && seen.u && (uint64_t)seen.i == UINT64_MAX,
               "a version 9 table gets 2^64 - 1 with u set (reply %s)", text);
    cJSON_Delete(r);
    r = full_with(&v9, "{\"scalar\":\"9223372036854775807\"}", text, sizeof text);
    ASSERT_MSG(full_calls == 1 && !seen.u && seen.i == INT64_MAX,
               "2^63 - 1 is an int64, u clear (reply %s)", text);
    cJSON_Delete(r);
    r = full_with(&v9, "{\"scalar\":\"18446744073709551616\"}", text, sizeof text);
    ASSERT_MSG(full_calls == 0 && overflow(r),
               "2^64 is OverflowError naming fill_value, the library not called (reply %s)", text);
    cJSON_Delete(r);
    bye(&v9);
}

DT_TEST(version_8_gets_int64_only)
{
    char text[1024];
    cJSON *r = full_with(&v8, "{\"scalar\":\"9223372036854775808\"}", text, sizeof text);
    ASSERT_MSG(full_calls == 0 && overflow(r) && strstr(text, "int64") != NULL,
               "a version 8 table is not called with 2^63: OverflowError naming fill_value and "
               "int64 (reply %s)",
               text);
    cJSON_Delete(r);
    r = full_with(&v8, "{\"scalar\":\"-9223372036854775808\"}", text, sizeof text);
    ASSERT_MSG(full_calls == 1 && !seen.u && seen.i == INT64_MIN,
               "a version 8 table still gets -2^63 (reply %s)", text);
    cJSON_Delete(r);
    bye(&v8);
}

DT_MAIN(DT_ENTRY(version_9_takes_uint64_ints), DT_ENTRY(version_8_gets_int64_only))
