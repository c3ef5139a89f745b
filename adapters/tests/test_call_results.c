/*
 * call_results_test: the shim's side of a `call` result that is a tuple of arrays, against a
 * small library written here whose arrays are counted:
 *  - any number of arrays: up to DS_CALL_MAX_RESULTS in place, more in the room
 *    ds_call_result_reserve gives, each a new handle in order, `pick` keeping one;
 *  - a slot that says n > DS_CALL_MAX_RESULTS with no room reserved is its own mistake: an
 *    error naming it, never a tuple cut short, and its arrays released;
 *  - a tuple longer than DS_CALL_MAX_ITEMS is MemoryError, origin "adapter" (spec/protocol.md,
 *    "Limits"), its arrays released;
 *  - reserved room is freed when the slot fails after reserving (AddressSanitizer checks).
 * Every array is freed by the end of the session.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "devspec_shim.h"
#include "dtest.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An array of this library: its number, in order of making. */
typedef struct obj {
    long id;
} obj;

static long made, live;
static int device_token;

static obj *make(void)
{
    obj *o = malloc(sizeof *o);
    if (o == NULL) return NULL;
    o->id = made++;
    live++;
    return o;
}

static int c_open(void **lib)
{
    made = live = 0;
    *lib = &device_token;
    return 0;
}

static int c_hello(void *lib, ds_library_info *out)
{
    static const char *const features[] = {NULL};
    (void)lib;
    out->name = "call-results";
    out->version = "1";
    out->features = features;
    return 0;
}

static void c_release(void *lib, ds_array x)
{
    (void)lib;
    free(x);
    live--;
}

static int c_equal(void *lib, ds_devobj a, ds_devobj b, bool *out)
{
    (void)lib;
    *out = a == b;
    return 0;
}

static int c_devices(void *lib, ds_devobj *out, size_t cap, size_t *n)
{
    (void)lib;
    if (cap > 0) out[0] = &device_token;
    *n = 1;
    return 0;
}

/* Each array reads as its number (int64, 0-d). */
static int c_describe(void *lib, ds_array x, ds_array_info *out)
{
    (void)lib, (void)x;
    out->device = &device_token;
    out->dtype = DS_INT64;
    out->ndim = 0;
    return 0;
}

static int c_read(void *lib, ds_array x, void *data, size_t nbytes)
{
    (void)lib;
    int64_t id = ((const obj *)x)->id;
    if (nbytes == sizeof id) memcpy(data, &id, sizeof id);
    return 0;
}

/* Fills n arrays into xs; on failure releases what it made. */
static int fill(ds_array *xs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        xs[i] = make();
        if (xs[i] == NULL) {
            while (i-- > 0)
                c_release(NULL, xs[i]);
            ds_error("MemoryError", "out of memory");
            return -1;
        }
    }
    return 0;
}

/* The names: "tuple" (args[0] arrays, reserved), "unreserved" (17 arrays said, 16 put in
 * place, no room reserved: the slot's mistake), "fail_reserved" (reserves 40, then fails),
 * "reserve_twice" (reserves 40, then 3: the three in place), "own_storage" (points `many` at
 * storage of its own: the slot's mistake, never freed by the shim). */
static ds_array own_storage[20];

static int c_call(void *lib, const char *name, const ds_value *args, size_t nargs,
                  const char *const *kwnames, const ds_value *kwargs, size_t nkw,
                  ds_call_result *out)
{
    (void)lib, (void)kwnames, (void)kwargs, (void)nkw;
    out->value.kind = DS_VALUE_TUPLE;
    if (!strcmp(name, "tuple") && nargs == 1 && args[0].kind == DS_VALUE_SCALAR) {
        size_t n = (size_t)args[0].scalar.i;
        ds_array *xs = ds_call_result_reserve(out, n);
        return xs == NULL ? -1 : fill(xs, n);
    }
    if (!strcmp(name, "unreserved")) {
        out->n = DS_CALL_MAX_RESULTS + 1;
        return fill(out->arrays, DS_CALL_MAX_RESULTS);
    }
    if (!strcmp(name, "fail_reserved")) {
        if (ds_call_result_reserve(out, 40) == NULL) return -1;
        ds_error("ValueError", "fail_reserved fails after reserving room");
        return -1;
    }
    if (!strcmp(name, "reserve_twice")) {
        if (ds_call_result_reserve(out, 40) == NULL) return -1;
        ds_array *xs = ds_call_result_reserve(out, 3);
        if (xs != out->arrays || out->many != NULL) {
            ds_error("ValueError", "three arrays are not in place");
            return -1;
        }
        return fill(xs, 3);
    }
    if (!strcmp(name, "own_storage")) {
        out->many = own_storage;
        out->n = 20;
        return fill(own_storage, 20);
    }
    ds_lacks(name, "no %s here", name);
    return -1;
}

static const ds_vendor table = {
    .version = DS_VENDOR_VERSION,
    .size = sizeof(ds_vendor),
    .adapter_name = "call-results",
    .adapter_version = "1",
    .open = c_open,
    .hello = c_hello,
    .release_array = c_release,
    .device_equal = c_equal,
    .info_devices = c_devices,
    .describe = c_describe,
    .read = c_read,
    .call = c_call,
};

static void ok(bool pass, const char *name, const char *reply)
{
    if (!pass) dt_fail(__FILE__, __LINE__, "%s\n#   reply: %.600s", name, reply ? reply : "(none)");
}

static int next_id = 1;

/* Sends one request (op and args); returns the parsed reply (the caller deletes it) and, in
 * *text, its text (the caller frees it). */
static cJSON *ask(const char *op, const char *args, char **text)
{
    char request[512];
    snprintf(request, sizeof request, "{\"id\":%d,\"op\":\"%s\",\"args\":%s}", next_id++, op, args);
    const char *reply = ds_shim_call(&table, request, strlen(request), NULL);
    *text = strdup(reply);
    cJSON *r = cJSON_Parse(reply);
    ds_shim_free(reply);
    return r;
}

static const cJSON *result(const cJSON *r)
{
    return cJSON_GetObjectItemCaseSensitive(r, "result");
}

/* The reply is an error of kind and origin whose message holds `says`. */
static bool is_error(const cJSON *r, const char *kind, const char *origin, const char *says)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "error");
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(e, "kind");
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(e, "origin");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
    return cJSON_IsString(k) && !strcmp(k->valuestring, kind) && cJSON_IsString(o) &&
           !strcmp(o->valuestring, origin) && cJSON_IsString(m) && strstr(m->valuestring, says);
}

/* A call of "tuple" with n arrays: a list of n handles, array#first.. in order. */
static void tuple_of(size_t n, int first, const char *name)
{
    char args[128], *text;
    snprintf(args, sizeof args, "{\"fn\":\"tuple\",\"args\":[%zu]}", n);
    cJSON *r = ask("call", args, &text);
    bool pass = cJSON_IsArray(result(r)) && (size_t)cJSON_GetArraySize(result(r)) == n;
    int k = first;
    for (const cJSON *h = pass ? result(r)->child : NULL; h; h = h->next, k++) {
        char want[32];
        snprintf(want, sizeof want, "array#%d", k);
        pass = pass && cJSON_IsString(h) && !strcmp(h->valuestring, want);
    }
    ok(pass, name, text);
    cJSON_Delete(r);
    free(text);
}

DT_TEST(tuples_of_any_length)
{
    char *text;
    cJSON *r = ask("hello", "{\"protocol\":1}", &text);
    ok(cJSON_IsObject(result(r)), "hello", text);
    cJSON_Delete(r);
    free(text);

    tuple_of(3, 0, "a tuple of 3 arrays (in place) is 3 handles in order");
    tuple_of(DS_CALL_MAX_RESULTS, 3, "a tuple of 16 arrays (in place) is 16 handles");
    tuple_of(DS_CALL_MAX_RESULTS + 1, 19,
             "a tuple of 17 arrays (reserved) is 17 handles, none cut");
    tuple_of(40, 36, "a tuple of 40 arrays (reserved) is 40 handles in order");
    tuple_of(0, 0, "a tuple of no arrays is an empty list");
    ok(live == 76 && made == 76, "every array of the tuples has its handle", NULL);

    /* pick 37 of 40: the 38th array made here (made 76..115), the others released */
    r = ask("call", "{\"fn\":\"tuple\",\"args\":[40],\"pick\":37}", &text);
    ok(cJSON_IsString(result(r)) && !strcmp(result(r)->valuestring, "array#76"),
       "pick 37 of a reserved tuple of 40 is one new handle", text);
    cJSON_Delete(r);
    free(text);
    ok(live == 77, "pick: the 39 arrays not picked are released", NULL);
    r = ask("array.read", "{\"array\":\"array#76\"}", &text);
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(result(r), "data");
    ok(cJSON_GetArraySize(data) == 1 && cJSON_GetArrayItem(data, 0)->valuedouble == 76 + 37,
       "the picked handle is item 37 (the library's array 113)", text);
    cJSON_Delete(r);
    free(text);
    r = ask("call", "{\"fn\":\"tuple\",\"args\":[40],\"pick\":40}", &text);
    ok(is_error(r, "IndexError", "adapter", "has 40 items") && live == 77,
       "pick 40 of 40 is IndexError, every array released", text);
    cJSON_Delete(r);
    free(text);
}

DT_TEST(slot_mistakes_and_limits)
{
    char *text;
    long before = live;
    cJSON *r = ask("call", "{\"fn\":\"unreserved\"}", &text);
    ok(is_error(r, "RuntimeError", "adapter", "ds_call_result_reserve") &&
           strstr(text, "17 arrays"),
       "n 17 with no room reserved is the slot's mistake, named, not a tuple of 16", text);
    cJSON_Delete(r);
    free(text);
    ok(live == before, "the slot's 16 arrays in place are released", NULL);

    char args[96];
    snprintf(args, sizeof args, "{\"fn\":\"tuple\",\"args\":[%d]}", DS_CALL_MAX_ITEMS + 1);
    r = ask("call", args, &text);
    ok(is_error(r, "MemoryError", "adapter", "DS_CALL_MAX_ITEMS"),
       "a tuple of DS_CALL_MAX_ITEMS + 1 arrays is MemoryError (adapter)", text);
    cJSON_Delete(r);
    free(text);
    ok(live == before, "the 32769 arrays are released", NULL);
    snprintf(args, sizeof args, "{\"fn\":\"tuple\",\"args\":[%d],\"pick\":0}",
             DS_CALL_MAX_ITEMS + 1);
    r = ask("call", args, &text);
    ok(is_error(r, "MemoryError", "adapter", "DS_CALL_MAX_ITEMS") && live == before,
       "the limit holds with pick too (the library made the whole tuple)", text);
    cJSON_Delete(r);
    free(text);

    r = ask("call", "{\"fn\":\"fail_reserved\"}", &text);
    ok(is_error(r, "ValueError", "library", "after reserving"),
       "a slot that fails after reserving answers its own error (its room freed)", text);
    cJSON_Delete(r);
    free(text);
    r = ask("call", "{\"fn\":\"reserve_twice\"}", &text);
    ok(cJSON_IsArray(result(r)) && cJSON_GetArraySize(result(r)) == 3,
       "reserving 40, then 3: three handles, in place (the first room freed)", text);
    cJSON_Delete(r);
    free(text);

    r = ask("call", "{\"fn\":\"own_storage\"}", &text);
    ok(is_error(r, "RuntimeError", "adapter", "ds_call_result.many itself"),
       "a slot that points many at its own storage is named, and the shim frees nothing of it",
       text);
    cJSON_Delete(r);
    free(text);
    for (int i = 0; i < 20; i++) /* the slot's own arrays stay the slot's */
        c_release(NULL, own_storage[i]);

    r = ask("bye", "{}", &text);
    cJSON_Delete(r);
    free(text);
    ok(live == 0, "after bye every array is freed", NULL);
}

DT_MAIN(DT_ENTRY(tuples_of_any_length), DT_ENTRY(slot_mistakes_and_limits))
