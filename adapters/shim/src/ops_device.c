/*
 * ops_device.c: the device ops (device.*).
 */
#include "ops.h"

#include <string.h>

int ds__op_device_parse(const ds__req *r, cJSON **result)
{
    const char *text;
    ds_devobj d = NULL;
    if (ds__arg_string(r, "text", &text) < 0 || ds__string_for_library(r, "text", text) < 0 ||
        CALL(r, device_parse, text, &d) < 0)
        return -1;
    return ds__handle_result(r, DS__H_DEVICE, d, false, result);
}

/* A device argument that must be a device object: a handle, or {"str": text} turned into
 * the library's device for that text with the device_parse slot (what describing or
 * comparing a string means). *parsed is set when the object is new and must be released. */
static int get_device_object(const ds__req *r, const char *name, ds_devobj *out, bool *parsed)
{
    ds_device dev;
    *parsed = false;
    *out = NULL;
    if (ds__arg_device(r, name, true, &dev) < 0) return -1;
    if (dev.kind == DS_DEVICE_OBJECT) {
        *out = dev.object;
        return 0;
    }
    if (dev.kind == DS_DEVICE_NONE)
        return ds__fail(r->e, PROTO, "TypeError", "%s: argument '%s' must be a device, not null",
                        r->op, name);
    if (CALL(r, device_parse, dev.str, out) < 0) return -1;
    if (*out == NULL)
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                        "%s: device_parse succeeded but returned no device", r->op);
    *parsed = true;
    return 0;
}

int ds__op_device_describe(const ds__req *r, cJSON **result)
{
    ds_devobj d;
    bool parsed;
    ds_device_info di = {0};
    if (get_device_object(r, "device", &d, &parsed) < 0) return -1;
    int rc = CALL(r, device_describe, d, &di);
    if (parsed) ds__release_obj(r, DS__H_DEVICE, d);
    if (rc < 0) return -1;
    cJSON *o = cJSON_CreateObject();
    bool ok = o != NULL && (!di.has_str || ds__put(o, "str", cJSON_CreateString(di.str))) &&
              (!di.has_type || ds__put(o, "type", cJSON_CreateString(di.type))) &&
              (!di.has_index || ds__put(o, "index",
                                        di.index_is_null ? cJSON_CreateNull()
                                                         : cJSON_CreateNumber((double)di.index)));
    if (!ok) {
        cJSON_Delete(o);
        return ds__oom(r);
    }
    *result = o;
    return 0;
}

int ds__op_device_equal(const ds__req *r, cJSON **result)
{
    ds_devobj a = NULL, b = NULL;
    bool pa = false, pb = false;
    bool eq = false;
    int rc = get_device_object(r, "a", &a, &pa);
    if (rc == 0) rc = get_device_object(r, "b", &b, &pb);
    if (rc == 0) rc = CALL(r, device_equal, a, b, &eq);
    if (pa) ds__release_obj(r, DS__H_DEVICE, a);
    if (pb) ds__release_obj(r, DS__H_DEVICE, b);
    if (rc < 0) return -1;
    *result = cJSON_CreateBool(eq);
    return 0;
}

int ds__op_device_from_type_index(const ds__req *r, cJSON **result)
{
    const char *type;
    int64_t index;
    ds_devobj d = NULL;
    if (ds__arg_string(r, "type", &type) < 0 || ds__string_for_library(r, "type", type) < 0 ||
        ds__arg_int(r, "index", true, 0, &index) < 0 ||
        CALL(r, device_from_type_index, type, index, &d) < 0)
        return -1;
    return ds__handle_result(r, DS__H_DEVICE, d, false, result);
}

int ds__op_device_from_ordinal(const ds__req *r, cJSON **result)
{
    int64_t ordinal;
    ds_devobj d = NULL;
    if (ds__arg_int(r, "ordinal", true, 0, &ordinal) < 0 ||
        CALL(r, device_from_ordinal, ordinal, &d) < 0)
        return -1;
    return ds__handle_result(r, DS__H_DEVICE, d, false, result);
}

int ds__op_device_parse_current(const ds__req *r, cJSON **result)
{
    const char *text;
    ds_devobj d = NULL;
    if (ds__arg_string(r, "text", &text) < 0 || ds__string_for_library(r, "text", text) < 0 ||
        CALL(r, device_parse_current, text, &d) < 0)
        return -1;
    return ds__handle_result(r, DS__H_DEVICE, d, false, result);
}

int ds__op_device_set_current(const ds__req *r, cJSON **result)
{
    ds_devobj d = NULL;
    bool parsed = false;
    int rc = get_device_object(r, "device", &d, &parsed);
    if (rc == 0) rc = CALL(r, device_set_current, d);
    if (parsed) ds__release_obj(r, DS__H_DEVICE, d);
    if (rc < 0) return -1;
    *result = cJSON_CreateNull();
    return *result ? 0 : ds__oom(r);
}
