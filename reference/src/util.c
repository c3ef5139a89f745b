/* util.c: the device utilities (Ivy's device utilities, IVY-UTIL-*): counts of devices and
 * cores, memory, utilisation and the arrays alive on a device. Every ra_util_* function is
 * here; the host's own figures come from sysinfo.c, the list of live arrays from live.c. */
#include "internal.h"

int ra_util_num_cpu_cores(void)
{
    return ra__host_cpu_cores();
}

int ra_util_num_gpus(const ra_ctx *ctx)
{
    if (!ctx) return 0;
    int n = 0;
    for (size_t i = 0; i < ctx->ndevs; i++)
        if (ctx->devs[i]->device.type == RA_DEVICE_GPU) n++;
    return n;
}

int ra_util_total_memory(ra_ctx *ctx, ra_device dev, uint64_t *out)
{
    static const char fn[] = "ra_util_total_memory";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    ra__dev *d;
    int status = ra__ctx_require(ctx, dev, fn, &d);
    if (status != RA_OK) return status;
    if (d->info.total_memory == 0)
        return ra__ctx_error(ctx, RA_E_NOT_MEASURABLE, "%s: the backend does not report it", fn);
    *out = d->info.total_memory;
    return RA_OK;
}

int ra_util_used_memory(ra_ctx *ctx, ra_device dev, uint64_t *out)
{
    static const char fn[] = "ra_util_used_memory";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    ra__dev *d;
    int status = ra__ctx_require(ctx, dev, fn, &d);
    if (status != RA_OK) return status;
    *out = ra__used_get(ctx, d);
    return RA_OK;
}

int ra_util_utilisation(ra_ctx *ctx, ra_device dev, double *out)
{
    static const char fn[] = "ra_util_utilisation";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    ra__dev *d;
    int status = ra__ctx_require(ctx, dev, fn, &d);
    if (status != RA_OK) return status;
    if (!d->ops->utilisation) {
        char buf[RA_DEVICE_STR_MAX];
        return ra__ctx_error(ctx, RA_E_NOT_MEASURABLE,
                             "%s: the %s backend of '%s' has no way to measure utilisation", fn,
                             d->ops->name, ra__device_str(dev, buf));
    }
    double p;
    status = d->ops->utilisation(d->impl, &p);
    if (status != RA_OK) return status;
    *out = p;
    return RA_OK;
}

int ra_util_arrays_on_device(ra_ctx *ctx, ra_device dev, ra_array **out, size_t cap, size_t *count)
{
    static const char fn[] = "ra_util_arrays_on_device";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!count) return ra__ctx_error(ctx, RA_E_NULL, "%s: count is NULL", fn);
    if (!out && cap > 0)
        return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL with cap %zu", fn, cap);
    ra__dev *d;
    int status = ra__ctx_require(ctx, dev, fn, &d);
    if (status != RA_OK) return status;
    return ra__live_collect(ctx, d, out, cap, count);
}
