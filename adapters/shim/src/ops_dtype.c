/*
 * ops_dtype.c: the dtype ops (dtype.*).
 */
#include "ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ds__op_dtype_can_cast(const ds__req *r, cJSON **result)
{
    const cJSON *from = ds__arg(r, "from_");
    ds_array x;
    ds_dtype from_dtype, to;
    bool yes = false;
    if (from == NULL) return ds__arg_missing(r, "from_");
    if (ds__arg_array_or_dtype(r, from, "from_", &x, &from_dtype) < 0 ||
        ds__arg_dtype(r, "to", true, &to) < 0 || CALL(r, can_cast, x, from_dtype, to, &yes) < 0)
        return -1;
    *result = cJSON_CreateBool(yes);
    return *result ? 0 : ds__oom(r);
}

int ds__op_dtype_result_type(const ds__req *r, cJSON **result)
{
    const cJSON *list = ds__arg(r, "args");
    ds_dtype out = DS_DTYPE_NONE;
    if (list == NULL) return ds__arg_missing(r, "args");
    if (!cJSON_IsArray(list))
        return ds__fail(r->e, PROTO, "TypeError",
                        "%s: argument 'args' must be a list of array handles and dtype names",
                        r->op);
    int n = cJSON_GetArraySize(list);
    if (n == 0)
        return ds__fail(r->e, PROTO, "ValueError",
                        "%s: argument 'args' is empty; result_type needs at least one", r->op);
    ds_array *xs = ds__calloc((size_t)n, sizeof *xs);
    ds_dtype *dts = ds__calloc((size_t)n, sizeof *dts);
    int rc = xs && dts ? 0 : ds__oom(r), i = 0;
    for (const cJSON *v = list->child; v && rc == 0; v = v->next, i++) {
        char name[32];
        snprintf(name, sizeof name, "args[%d]", i);
        rc = ds__arg_array_or_dtype(r, v, name, &xs[i], &dts[i]);
    }
    if (rc == 0) rc = CALL(r, result_type, xs, dts, (size_t)n, &out);
    ds__free(xs);
    ds__free(dts);
    if (rc < 0) return -1;
    if (ds_dtype_name(out) == NULL)
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                        "%s: the adapter's callback succeeded but returned no dtype", r->op);
    *result = cJSON_CreateString(ds_dtype_name(out));
    return *result ? 0 : ds__oom(r);
}

int ds__op_dtype_describe(const ds__req *r, cJSON **result)
{
    const char *name;
    ds_dtype dt = DS_DTYPE_NONE;
    bool fp = false;
    if (ds__arg_string(r, "name", &name) < 0 || ds__string_for_library(r, "name", name) < 0 ||
        CALL(r, dtype_describe, name, &dt, &fp) < 0)
        return -1;
    if (ds_dtype_name(dt) == NULL)
        return ds__fail(r->e, DS__ORIGIN_LIBRARY, "TypeError",
                        "%s: the library's dtype for \"%.40s\" is none of the protocol's dtypes",
                        r->op, name);
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "name", ds_dtype_name(dt)) ||
        !cJSON_AddBoolToObject(o, "is_floating_point", fp)) {
        cJSON_Delete(o);
        return ds__oom(r);
    }
    *result = o;
    return 0;
}
