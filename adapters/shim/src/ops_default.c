/*
 * ops_default.c: the default-device and soft-device ops (default.*, soft.*).
 */
#include "ops.h"

int ds__op_default_get(const ds__req *r, cJSON **result)
{
    ds_devobj d = NULL;
    if (CALL(r, default_get, &d) < 0) return -1;
    return ds__device_result(r, d, result);
}

int ds__op_default_set(const ds__req *r, cJSON **result)
{
    ds_device dev;
    *result = NULL;
    if (ds__arg_device(r, "device", true, &dev) < 0) return -1;
    return CALL(r, default_set, dev);
}

int ds__op_default_unset(const ds__req *r, cJSON **result)
{
    *result = NULL;
    return CALL0(r, default_unset);
}

int ds__op_default_push(const ds__req *r, cJSON **result)
{
    ds_device dev;
    *result = NULL;
    if (ds__arg_device(r, "device", true, &dev) < 0) return -1;
    return CALL(r, default_push, dev);
}

int ds__op_default_pop(const ds__req *r, cJSON **result)
{
    *result = NULL;
    return CALL0(r, default_pop);
}

int ds__op_soft_get(const ds__req *r, cJSON **result)
{
    bool on = false;
    if (CALL(r, soft_get, &on) < 0) return -1;
    *result = cJSON_CreateBool(on);
    return 0;
}

int ds__op_soft_set(const ds__req *r, cJSON **result)
{
    bool on;
    *result = NULL;
    if (ds__arg_bool(r, "enabled", true, false, &on) < 0) return -1;
    return CALL(r, soft_set, on);
}

int ds__op_soft_unset(const ds__req *r, cJSON **result)
{
    *result = NULL;
    return CALL0(r, soft_unset);
}
