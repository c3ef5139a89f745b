/* current.c: OneFlow's device strings without an ordinal, which stand for the current
 * device of their type (OF-DEV-2; the current device and its resolution are device.c's),
 * and an array's ordinal (OF-DEV-8). */
#include "internal.h"

#include <string.h>

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
