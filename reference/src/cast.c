/* cast.c: can_cast and result_type, answered from the promotion graph of a device
 * (DEV-DT-2, DEV-DT-3, DEV-DT-4). The promotion itself is dtype.c's ra__dtype_promote (the
 * complete table); a device's graph is that table restricted to the dtypes the device
 * supports (ra__dtype_on_device). */
#include "internal.h"

/* The complete table: from_ casts to `to` when promoting the two gives `to`. */
static bool promotes_to(ra_dtype from_, ra_dtype to)
{
    return from_ == to || ra__dtype_promote(from_, to) == to;
}

int ra_can_cast_dtype(ra_ctx *ctx, ra_dtype from_, ra_dtype to, bool *out)
{
    static const char fn[] = "ra_can_cast_dtype";
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    if (!ra__dtype_valid(from_))
        return ra__ctx_error(ctx, RA_E_ARG, "%s: from_ is not a data type (value %d)", fn,
                             (int)from_);
    if (!ra__dtype_valid(to))
        return ra__ctx_error(ctx, RA_E_ARG, "%s: to is not a data type (value %d)", fn, (int)to);
    /* DEV-DT-2: a dtype has no device, so the devices of ctx play no part. */
    *out = promotes_to(from_, to);
    return RA_OK;
}

int ra_can_cast_array(ra_ctx *ctx, const ra_array *x, ra_dtype to, bool *out)
{
    static const char fn[] = "ra_can_cast_array";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    RA__REFUSE_SHARDED(ctx, x, fn);
    if (!ra__dtype_valid(to))
        return ra__ctx_error(ctx, RA_E_ARG, "%s: to is not a data type (value %d)", fn, (int)to);
    /* DEV-DT-3: the graph of x's device has no node for a dtype the device lacks. x's own
     * dtype is always a node (the array exists there), and the promotion of two nodes is a
     * node (it is one of them, or a wider integer, which every device has). */
    *out = ra__dtype_on_device(x->dev, to) && promotes_to(x->dtype, to);
    return RA_OK;
}

int ra_result_type(ra_ctx *ctx, const ra_array *const *arrays, size_t narrays,
                   const ra_dtype *dtypes, size_t ndtypes, ra_dtype *out)
{
    static const char fn[] = "ra_result_type";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    if (!arrays && narrays > 0)
        return ra__ctx_error(ctx, RA_E_NULL, "%s: arrays is NULL with narrays %zu", fn, narrays);
    if (!dtypes && ndtypes > 0)
        return ra__ctx_error(ctx, RA_E_NULL, "%s: dtypes is NULL with ndtypes %zu", fn, ndtypes);
    if (narrays + ndtypes == 0)
        return ra__ctx_error(ctx, RA_E_ARG, "%s: at least one array or dtype is required", fn);
    const ra__dev *dev = NULL;
    for (size_t i = 0; i < narrays; i++) {
        if (!arrays[i]) return ra__ctx_error(ctx, RA_E_NULL, "%s: arrays[%zu] is NULL", fn, i);
        RA__REFUSE_SHARDED(ctx, arrays[i], fn);
        if (!dev) {
            dev = arrays[i]->dev;
        } else if (arrays[i]->dev != dev) {
            /* DEV-DT-5 leaves this open; refarray refuses, as its operations do. */
            char a[RA_DEVICE_STR_MAX], b[RA_DEVICE_STR_MAX];
            return ra__ctx_error(ctx, RA_E_DEVICE_MISMATCH,
                                 "%s: arrays[0] is on device '%s' and arrays[%zu] on '%s'; the "
                                 "promotion graph of one device is needed",
                                 fn, ra__device_str(dev->device, a), i,
                                 ra__device_str(arrays[i]->dev->device, b));
        }
    }
    for (size_t i = 0; i < ndtypes; i++) {
        if (!ra__dtype_valid(dtypes[i]))
            return ra__ctx_error(ctx, RA_E_ARG, "%s: dtypes[%zu] is not a data type (value %d)", fn,
                                 i, (int)dtypes[i]);
        /* DEV-DT-4: with arrays, a dtype their device lacks is not in its graph. */
        if (dev && !ra__dtype_on_device(dev, dtypes[i])) {
            char buf[RA_DEVICE_STR_MAX];
            return ra__ctx_error(ctx, RA_E_DTYPE_DEVICE,
                                 "%s: dtypes[%zu] is %s, which device '%s' of the array "
                                 "arguments does not support (no float64)",
                                 fn, i, ra_dtype_name(dtypes[i]), ra__device_str(dev->device, buf));
        }
    }
    ra_dtype r = narrays ? arrays[0]->dtype : dtypes[0];
    const char *first = narrays ? "arrays[0]" : "dtypes[0]";
    for (size_t i = 0; i < narrays + ndtypes; i++) {
        ra_dtype d = i < narrays ? arrays[i]->dtype : dtypes[i - narrays];
        ra_dtype p = ra__dtype_promote(r, d);
        if (p == RA_DTYPE_DEFAULT)
            return ra__ctx_error(ctx, RA_E_DTYPE,
                                 "%s: no promotion between %s (from %s onwards) and %s (%s[%zu])",
                                 fn, ra_dtype_name(r), first, ra_dtype_name(d),
                                 i < narrays ? "arrays" : "dtypes", i < narrays ? i : i - narrays);
        r = p;
    }
    *out = r;
    return RA_OK;
}
