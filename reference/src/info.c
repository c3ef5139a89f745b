/* info.c: the inspection namespace (devices, default dtypes, dtypes per device). */
#include "internal.h"

int ra_info_devices(const ra_ctx *ctx, ra_device *out, size_t cap, size_t *count)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_info_devices: ctx is NULL");
    if (!count) return ra__ctx_error((ra_ctx *)ctx, RA_E_NULL, "ra_info_devices: count is NULL");
    if (!out && cap > 0)
        return ra__ctx_error((ra_ctx *)ctx, RA_E_NULL, "ra_info_devices: out is NULL, cap %zu",
                             cap);
    for (size_t i = 0; i < ctx->ndevs && i < cap; i++)
        out[i] = ctx->devs[i]->device;
    *count = ctx->ndevs;
    return RA_OK;
}

/* dev NULL: the current default device (DEV-INFO-8). */
static int info_device(ra_ctx *ctx, const ra_device *dev, const char *fn, ra__dev **out)
{
    return ra__ctx_require(ctx, dev ? *dev : ra_default_device(ctx), fn, out);
}

int ra_info_default_dtypes(ra_ctx *ctx, const ra_device *dev, ra_default_dtypes *out)
{
    static const char fn[] = "ra_info_default_dtypes";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    ra__dev *d;
    int status = info_device(ctx, dev, fn, &d);
    if (status != RA_OK) return status;
    out->real_floating = ra__default_float(d);
    out->complex_floating = d->info.has_float64 ? RA_COMPLEX128 : RA_COMPLEX64;
    out->integral = RA_INT64;
    out->indexing = RA_INT64;
    return RA_OK;
}

int ra_info_dtypes(ra_ctx *ctx, const ra_device *dev, unsigned kind_mask, uint32_t *out)
{
    static const char fn[] = "ra_info_dtypes";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    if (kind_mask & ~(unsigned)RA_KIND_ALL)
        return ra__ctx_error(ctx, RA_E_ARG, "%s: unknown kind bits 0x%x", fn,
                             kind_mask & ~(unsigned)RA_KIND_ALL);
    ra__dev *d;
    int status = info_device(ctx, dev, fn, &d);
    if (status != RA_OK) return status;
    if (kind_mask == 0) kind_mask = RA_KIND_ALL;
    uint32_t set = 0;
    for (int t = RA_BOOL; t <= RA_COMPLEX128; t++)
        if ((ra_dtype_kind((ra_dtype)t) & kind_mask) && ra__dtype_on_device(d, (ra_dtype)t))
            set |= UINT32_C(1) << t;
    *out = set;
    return RA_OK;
}
