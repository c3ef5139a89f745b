/*
 * ops_util.c: the device utilities (util.*).
 */
#include "ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static int int_result(const ds__req *r, int64_t v, cJSON **result)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    *result = cJSON_CreateRaw(buf);
    return *result ? 0 : ds__oom(r);
}

int ds__op_util_num_gpus(const ds__req *r, cJSON **result)
{
    int64_t n = 0;
    if (CALL(r, num_gpus, &n) < 0) return -1;
    return int_result(r, n, result);
}

int ds__op_util_num_cpu_cores(const ds__req *r, cJSON **result)
{
    int64_t n = 0;
    if (CALL(r, num_cpu_cores, &n) < 0) return -1;
    return int_result(r, n, result);
}

int ds__op_util_total_memory(const ds__req *r, cJSON **result)
{
    ds_device dev;
    int64_t n = 0;
    if (ds__arg_device(r, "device", true, &dev) < 0 || CALL(r, total_memory, dev, &n) < 0)
        return -1;
    return int_result(r, n, result);
}

int ds__op_util_used_memory(const ds__req *r, cJSON **result)
{
    ds_device dev;
    int64_t n = 0;
    if (ds__arg_device(r, "device", true, &dev) < 0 || CALL(r, used_memory, dev, &n) < 0) return -1;
    return int_result(r, n, result);
}

int ds__op_util_utilisation(const ds__req *r, cJSON **result)
{
    ds_device dev;
    double pct = 0;
    if (ds__arg_device(r, "device", true, &dev) < 0 || CALL(r, utilisation, dev, &pct) < 0)
        return -1;
    *result = cJSON_CreateNumber(pct);
    return *result ? 0 : ds__oom(r);
}

/* Asks the library for the arrays alive on dev: *xs (ds__calloc'd) and *n of them, each a
 * new reference the caller owns. */
static int arrays_alive(const ds__req *r, ds_device dev, ds_array **xs, size_t *n)
{
    size_t cap = 16;
    *xs = NULL;
    *n = 0;
    /* A library whose arrays change between two calls is asked again, a few times. */
    for (int tries = 0; tries < 4; tries++) {
        ds_array *got = ds__calloc(cap, sizeof *got);
        size_t have = 0;
        if (got == NULL) return ds__oom(r);
        if (CALL(r, arrays_on_device, dev, got, cap, &have) < 0) {
            ds__free(got);
            return -1;
        }
        if (have <= cap) {
            *xs = got;
            *n = have;
            return 0;
        }
        for (size_t i = 0; i < cap; i++)
            ds__release_obj(r, DS__H_ARRAY, got[i]);
        ds__free(got);
        cap = have;
    }
    return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                    "%s: the number of arrays alive kept growing between calls", r->op);
}

int ds__op_util_arrays_on_device(const ds__req *r, cJSON **result)
{
    ds_device dev;
    ds_array *xs;
    size_t n;
    if (ds__arg_device(r, "device", true, &dev) < 0 || arrays_alive(r, dev, &xs, &n) < 0) return -1;
    char count[32];
    snprintf(count, sizeof count, "%zu", n);
    cJSON *obj = cJSON_CreateObject(), *list = cJSON_CreateArray();
    int rc = 0;
    if (obj == NULL || list == NULL || !ds__put(obj, "count", cJSON_CreateRaw(count)))
        rc = ds__oom(r);
    for (size_t i = 0; i < n; i++) {
        if (rc < 0) {
            ds__release_obj(r, DS__H_ARRAY, xs[i]);
            continue;
        }
        if (xs[i] == NULL) {
            rc = ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                          "%s: the adapter's callback listed no object at %zu", r->op, i);
            continue;
        }
        /* An array already handed out keeps its handle (spec/protocol.md). */
        ds__handle *h = ds__handle_find_obj(r->s, DS__H_ARRAY, xs[i]);
        cJSON *name = NULL;
        if (h != NULL) {
            char buf[48];
            ds__handle_name(h, buf, sizeof buf);
            ds__release_obj(r, DS__H_ARRAY, xs[i]);
            name = cJSON_CreateString(buf);
            rc = name ? 0 : ds__oom(r);
        } else {
            rc = ds__handle_result(r, DS__H_ARRAY, xs[i], false, &name);
        }
        if (rc == 0 && !ds__push(list, name)) rc = ds__oom(r);
    }
    ds__free(xs);
    if (rc == 0) {
        rc = ds__put(obj, "arrays", list) ? 0 : ds__oom(r);
        list = NULL; /* owned by obj now, or deleted by ds__put */
    }
    cJSON_Delete(list);
    if (rc < 0) {
        cJSON_Delete(obj);
        return -1;
    }
    *result = obj;
    return 0;
}
