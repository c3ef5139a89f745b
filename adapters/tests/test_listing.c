/*
 * listing_test: the shim's side of the protocol's list-taking and list-giving ops, against a
 * small library written here whose every reference is counted:
 *  - util.arrays_on_device: arrays the library holds that were never handed out get new
 *    handles, an array already handed out is answered with its handle (and the extra
 *    reference the callback gave is released), a library with more arrays than the shim's
 *    first guess is asked again, and no reference is left over when the session ends;
 *  - dtype.result_type and dtype.can_cast: each argument reaches the callback as an array or
 *    a dtype, in request order.
 */
#include "devspec_shim.h"
#include "dtest.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INTERNAL 20 /* arrays the library makes for itself at open, more than the shim's 16 */
#define MAX_OBJS 64

typedef struct obj {
    int refs;
    bool internal;
} obj;

static obj *objs[MAX_OBJS];
static int nobjs, freed, leftover_refs;
static int device_token;

static void drop(obj *o)
{
    if (--o->refs > 0) return;
    for (int i = 0; i < nobjs; i++)
        if (objs[i] == o) {
            objs[i] = objs[--nobjs];
            break;
        }
    free(o);
    freed++;
}

static obj *make(bool internal)
{
    obj *o = calloc(1, sizeof *o);
    if (o == NULL || nobjs == MAX_OBJS) {
        free(o);
        return NULL;
    }
    o->refs = 1;
    o->internal = internal;
    objs[nobjs++] = o;
    return o;
}

static int l_open(void **lib)
{
    nobjs = freed = leftover_refs = 0;
    for (int i = 0; i < INTERNAL; i++)
        if (make(true) == NULL) return -1;
    *lib = &device_token;
    return 0;
}

static void l_close(void *lib)
{
    (void)lib;
    /* Each internal array must be back to the library's own single reference. */
    while (nobjs > 0) {
        obj *o = objs[0];
        leftover_refs += o->refs - 1;
        o->refs = 1;
        drop(o);
    }
}

static int l_hello(void *lib, ds_library_info *out)
{
    static const char *const features[] = {"device-utils", NULL};
    (void)lib;
    out->name = "listing";
    out->version = "1";
    out->features = features;
    return 0;
}

static void l_release(void *lib, ds_array x)
{
    (void)lib;
    drop(x);
}

static int l_equal(void *lib, ds_devobj a, ds_devobj b, bool *out)
{
    (void)lib;
    *out = a == b;
    return 0;
}

static int l_devices(void *lib, ds_devobj *out, size_t cap, size_t *n)
{
    (void)lib;
    if (cap > 0) out[0] = &device_token;
    *n = 1;
    return 0;
}

static int l_describe(void *lib, ds_array x, ds_array_info *out)
{
    (void)lib;
    (void)x;
    out->device = &device_token;
    out->dtype = DS_INT8;
    out->ndim = 0;
    return 0;
}

static int l_read(void *lib, ds_array x, void *data, size_t nbytes)
{
    (void)lib;
    (void)x;
    memset(data, 0, nbytes);
    return 0;
}

static int l_fill(void *lib, ds_fill_fn fn, const int64_t *shape, int ndim, ds_dtype dtype,
                  ds_device device, ds_array *out)
{
    (void)lib, (void)fn, (void)shape, (void)ndim, (void)dtype, (void)device;
    *out = make(false);
    return *out ? 0 : -1;
}

static int l_arrays_on_device(void *lib, ds_device device, ds_array *out, size_t cap, size_t *n)
{
    (void)lib, (void)device;
    for (int i = 0; i < nobjs && (size_t)i < cap; i++) {
        objs[i]->refs++;
        out[i] = objs[i];
    }
    *n = (size_t)nobjs;
    return 0;
}

/* Reports the arguments as it saw them: the dtype of the last argument when it is a dtype,
 * bool when it is an array. */
static int l_result_type(void *lib, const ds_array *arrays, const ds_dtype *dtypes, size_t n,
                         ds_dtype *out)
{
    (void)lib;
    *out = arrays[n - 1] ? DS_BOOL : dtypes[n - 1];
    return 0;
}

static int l_can_cast(void *lib, ds_array from_array, ds_dtype from_dtype, ds_dtype to, bool *out)
{
    (void)lib;
    *out = from_array != NULL ? to == DS_INT8 : from_dtype == to;
    return 0;
}

static const ds_vendor table = {
    .version = DS_VENDOR_VERSION,
    .size = sizeof(ds_vendor),
    .adapter_name = "listing",
    .adapter_version = "1",
    .open = l_open,
    .close = l_close,
    .hello = l_hello,
    .release_array = l_release,
    .device_equal = l_equal,
    .info_devices = l_devices,
    .describe = l_describe,
    .read = l_read,
    .fill = l_fill,
    .arrays_on_device = l_arrays_on_device,
    .result_type = l_result_type,
    .can_cast = l_can_cast,
};

static void ok(bool pass, const char *name, const char *reply)
{
    if (!pass) dt_fail(__FILE__, __LINE__, "%s\n#   reply: %s", name, reply ? reply : "(none)");
}

/* Sends one request; returns the parsed reply (the caller deletes it) and its text. */
static cJSON *ask(const char *request, char *text, size_t cap)
{
    const char *reply = ds_shim_call(&table, request, strlen(request), NULL);
    snprintf(text, cap, "%s", reply);
    cJSON *r = cJSON_Parse(reply);
    ds_shim_free(reply);
    return r;
}

static const cJSON *result(const cJSON *r)
{
    return cJSON_GetObjectItemCaseSensitive(r, "result");
}

/* One session: the listing's handles, then the dtype ops' arguments, then bye. */
DT_TEST(listing_session)
{
    char text[4096];
    cJSON *r = ask("{\"id\":1,\"op\":\"hello\",\"args\":{\"protocol\":1}}", text, sizeof text);
    ok(cJSON_IsObject(result(r)), "hello", text);
    cJSON_Delete(r);

    r = ask("{\"id\":2,\"op\":\"util.arrays_on_device\",\"args\":{\"device\":\"device#0\"}}", text,
            sizeof text);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(result(r), "arrays");
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(result(r), "count");
    ok(cJSON_IsNumber(count) && count->valuedouble == INTERNAL &&
           cJSON_GetArraySize(list) == INTERNAL,
       "IVY-UTIL-6: the 20 arrays the library holds are listed (the shim asked again past 16)",
       text);
    bool fresh = true;
    int k = 0;
    for (const cJSON *h = list ? list->child : NULL; h; h = h->next, k++) {
        char want[32];
        snprintf(want, sizeof want, "array#%d", k);
        fresh = fresh && cJSON_IsString(h) && strcmp(h->valuestring, want) == 0;
    }
    ok(fresh, "arrays never handed out get new handles array#0..array#19", text);
    cJSON_Delete(r);

    r = ask("{\"id\":3,\"op\":\"array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[1]}}", text,
            sizeof text);
    ok(cJSON_IsString(result(r)) && strcmp(result(r)->valuestring, "array#20") == 0,
       "a created array is array#20", text);
    cJSON_Delete(r);

    r = ask("{\"id\":4,\"op\":\"util.arrays_on_device\",\"args\":{\"device\":\"device#0\"}}", text,
            sizeof text);
    list = cJSON_GetObjectItemCaseSensitive(result(r), "arrays");
    count = cJSON_GetObjectItemCaseSensitive(result(r), "count");
    bool known = cJSON_GetArraySize(list) == INTERNAL + 1;
    for (const cJSON *h = list ? list->child : NULL; h; h = h->next) {
        int id = -1;
        known = known && cJSON_IsString(h) && sscanf(h->valuestring, "array#%d", &id) == 1 &&
                id >= 0 && id <= INTERNAL;
    }
    ok(cJSON_IsNumber(count) && count->valuedouble == INTERNAL + 1 && known,
       "listed again: 21 arrays, each with the handle it already has (no new handle)", text);
    cJSON_Delete(r);
    int refs = 0;
    for (int i = 0; i < nobjs; i++)
        refs += objs[i]->refs;
    ok(refs == 2 * INTERNAL + 1,
       "the extra references of arrays that had handles were released (library 20, handles 21)",
       NULL);

    r = ask(
        "{\"id\":5,\"op\":\"dtype.result_type\",\"args\":{\"args\":[\"array#20\",\"float32\"]}}",
        text, sizeof text);
    ok(cJSON_IsString(result(r)) && strcmp(result(r)->valuestring, "float32") == 0,
       "result_type: a dtype name after an array reaches the callback as a dtype", text);
    cJSON_Delete(r);
    r = ask(
        "{\"id\":6,\"op\":\"dtype.result_type\",\"args\":{\"args\":[\"float32\",\"array#20\"]}}",
        text, sizeof text);
    ok(cJSON_IsString(result(r)) && strcmp(result(r)->valuestring, "bool") == 0,
       "result_type: a handle last reaches the callback as an array", text);
    cJSON_Delete(r);
    r = ask("{\"id\":7,\"op\":\"dtype.can_cast\",\"args\":{\"from_\":\"array#3\",\"to\":\"int8\"}}",
            text, sizeof text);
    ok(cJSON_IsTrue(result(r)), "can_cast: a handle as from_ reaches the callback as an array",
       text);
    cJSON_Delete(r);
    r = ask(
        "{\"id\":8,\"op\":\"dtype.can_cast\",\"args\":{\"from_\":\"uint16\",\"to\":\"uint16\"}}",
        text, sizeof text);
    ok(cJSON_IsTrue(result(r)), "can_cast: a dtype name as from_ reaches the callback as a dtype",
       text);
    cJSON_Delete(r);
    r = ask(
        "{\"id\":9,\"op\":\"dtype.can_cast\",\"args\":{\"from_\":\"array#99\",\"to\":\"int8\"}}",
        text, sizeof text);
    ok(strstr(text, "\"origin\":\"protocol\"") && strstr(text, "unknown handle"),
       "can_cast: an unknown handle is a protocol error", text);
    cJSON_Delete(r);

    r = ask("{\"id\":10,\"op\":\"bye\"}", text, sizeof text);
    cJSON_Delete(r);
    ok(nobjs == 0 && freed == INTERNAL + 1 && leftover_refs == 0,
       "after bye every array is freed and no reference was left over", NULL);
}

DT_MAIN(DT_ENTRY(listing_session))
