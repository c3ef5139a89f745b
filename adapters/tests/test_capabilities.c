/*
 * capabilities_test: info.capabilities through the shim (DEV-INFO-1, DEV-INFO-2). A table
 * with the slot answers the standard's keys ("max dimensions" null for -1, left out for 0);
 * a table without it, NULL or too short to hold it (a table built before version 10), is a
 * library without capabilities(): NotImplementedError, origin library, lacks
 * "info.capabilities".
 */
#include "devspec_shim.h"
#include "dtest.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int device_token;
static int64_t max_dimensions;

static int t_open(void **lib)
{
    *lib = &device_token;
    return 0;
}

static int t_hello(void *lib, ds_library_info *out)
{
    static const char *const features[] = {NULL};
    (void)lib;
    out->name = "caps";
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

/* describe and read are required slots; no array is ever made here. */
static int t_describe(void *lib, ds_array x, ds_array_info *out)
{
    (void)lib;
    (void)x;
    (void)out;
    return -1;
}

static int t_read(void *lib, ds_array x, void *data, size_t nbytes)
{
    (void)lib;
    (void)x;
    (void)data;
    (void)nbytes;
    return -1;
}

static int t_capabilities(void *lib, ds_capabilities *out)
{
    (void)lib;
    *out = (ds_capabilities){
        .boolean_indexing = true, .data_dependent_shapes = false, .max_dimensions = max_dimensions};
    return 0;
}

#define TABLE(SIZE, CAPS)                                                                          \
    {                                                                                              \
        .version = DS_VENDOR_VERSION, .size = (SIZE), .adapter_name = "caps",                      \
        .adapter_version = "1", .open = t_open, .hello = t_hello, .release_array = t_release,      \
        .device_equal = t_equal, .info_devices = t_devices, .describe = t_describe,                \
        .read = t_read, .info_capabilities = (CAPS)                                                \
    }

static const ds_vendor with_slot = TABLE(sizeof(ds_vendor), t_capabilities),
                       null_slot = TABLE(sizeof(ds_vendor), NULL),
                       before_slot = TABLE(offsetof(ds_vendor, info_capabilities), t_capabilities);

/* hello, then info.capabilities: its reply text in TEXT. */
static void capabilities(const ds_vendor *t, char *text, size_t cap)
{
    static const char hello[] = "{\"id\":1,\"op\":\"hello\",\"args\":{\"protocol\":1}}";
    static const char ask[] = "{\"id\":2,\"op\":\"info.capabilities\"}";
    static const char bye[] = "{\"id\":3,\"op\":\"bye\"}";
    ds_shim_free(ds_shim_call(t, hello, strlen(hello), NULL));
    const char *reply = ds_shim_call(t, ask, strlen(ask), NULL);
    snprintf(text, cap, "%s", reply);
    ds_shim_free(reply);
    ds_shim_free(ds_shim_call(t, bye, strlen(bye), NULL));
}

DT_TEST(the_slot_answers_the_standards_keys)
{
    char text[1024];
    max_dimensions = 64;
    capabilities(&with_slot, text, sizeof text);
    ASSERT_MSG(strstr(text, "\"result\":{\"boolean indexing\":true,\"data-dependent shapes\":false,"
                            "\"max dimensions\":64}") != NULL,
               "the three keys, as the slot filled them (reply %s)", text);
    max_dimensions = -1;
    capabilities(&with_slot, text, sizeof text);
    ASSERT_MSG(strstr(text, "\"max dimensions\":null") != NULL,
               "max_dimensions -1 is None (reply %s)", text);
    max_dimensions = 0;
    capabilities(&with_slot, text, sizeof text);
    ASSERT_MSG(strstr(text, "\"data-dependent shapes\":false}") != NULL,
               "max_dimensions 0 leaves the key out (reply %s)", text);
}

DT_TEST(no_slot_is_a_library_that_lacks_capabilities)
{
    char text[1024];
    const ds_vendor *tables[] = {&null_slot, &before_slot};
    for (size_t i = 0; i < 2; i++) {
        capabilities(tables[i], text, sizeof text);
        ASSERT_MSG(strstr(text, "\"kind\":\"NotImplementedError\"") != NULL &&
                       strstr(text, "\"origin\":\"library\"") != NULL &&
                       strstr(text, "\"lacks\":\"info.capabilities\"") != NULL,
                   "%s: lacks info.capabilities (reply %s)",
                   i == 0 ? "a NULL slot" : "a table before the slot", text);
    }
}

DT_MAIN(DT_ENTRY(the_slot_answers_the_standards_keys),
        DT_ENTRY(no_slot_is_a_library_that_lacks_capabilities))
