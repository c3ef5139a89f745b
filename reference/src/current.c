/* current.c: the current device of each type per thread (OF-DEV-2), device values that
 * stand for it, and an array's ordinal (OF-DEV-8). */
#include "internal.h"

#include <string.h>

static bool type_valid(ra_device_type type)
{
    return type >= RA_DEVICE_CPU && type <= RA_DEVICE_TPU;
}

ra_device ra_device_current(ra_ctx *ctx, ra_device_type type)
{
    ra_device dev = {type, 0};
    /* The host has one device, so cpu's current device is always cpu:0. */
    if (!ctx || !type_valid(type) || type == RA_DEVICE_CPU) return dev;
    ra__thread *t = ra__thread_get(ctx);
    if (t) dev.index = t->current[type];
    return dev;
}

ra_device ra__device_resolve(ra_ctx *ctx, ra_device dev)
{
    if (dev.index == RA_DEVICE_INDEX_CURRENT && type_valid(dev.type))
        return ra_device_current(ctx, dev.type);
    return dev;
}

int ra_device_resolve(ra_ctx *ctx, ra_device dev, ra_device *out)
{
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_device_resolve: out is NULL");
    if (!ra__device_valid(dev))
        return ra__ctx_error(ctx, RA_E_ARG,
                             "ra_device_resolve: not a valid device value (type %d, index %d)",
                             (int)dev.type, (int)dev.index);
    *out = ra__device_resolve(ctx, dev);
    return RA_OK;
}

int ra_device_set_current(ra_ctx *ctx, ra_device dev)
{
    static const char fn[] = "ra_device_set_current";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (dev.index == RA_DEVICE_INDEX_CURRENT && type_valid(dev.type)) return RA_OK;
    ra__dev *d;
    int status = ra__ctx_require(ctx, dev, fn, &d);
    if (status != RA_OK) return status;
    ra__thread *t = ra__thread_get(ctx);
    if (!t) return ra__ctx_error(ctx, RA_E_NOMEM, "%s: no memory for the thread's state", fn);
    t->current[dev.type] = dev.index;
    return RA_OK;
}

int ra_device_parse_current(ra_ctx *ctx, const char *text, ra_device *out)
{
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_device_parse_current: out is NULL");
    ra_device dev;
    int status = ra_device_parse(ctx, text, &dev);
    if (status != RA_OK) return status;
    /* OF-DEV-1: OneFlow's device types are cpu and cuda (refarray's gpu); tpu is Ivy's. */
    if (dev.type == RA_DEVICE_TPU)
        return ra__ctx_error(ctx, RA_E_DEVICE_TYPE,
                             "ra_device_parse_current: device string '%s': OneFlow's device "
                             "types are cpu and gpu (its cuda), not tpu",
                             text);
    /* The draft reads a bare type as index 0; OneFlow reads it as the current device. */
    if (!strchr(text, ':')) dev.index = RA_DEVICE_INDEX_CURRENT;
    *out = dev;
    return RA_OK;
}

int ra_array_get_device(ra_ctx *ctx, const ra_array *x, int32_t *out)
{
    char buf[RA_DEVICE_STR_MAX];
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "ra_array_get_device: x is NULL");
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_array_get_device: out is NULL");
    ra_device dev = ra_array_device(x);
    if (dev.type == RA_DEVICE_CPU)
        return ra__ctx_error(ctx, RA_E_DEVICE_KIND,
                             "ra_array_get_device: the array is on '%s'; only accelerator "
                             "arrays (gpu) have an ordinal",
                             ra__device_str(dev, buf));
    *out = dev.index;
    return RA_OK;
}
