/* raw.c: direct access to host array memory for layers built on refarray (the global arrays
 * of refarray_global.h), so that they move bytes once, not through extra copies. */
#include "internal.h"

/* Buffers of a backend with host memory are host pointers (RA__BACKEND_HOST_MEMORY). */
const void *ra_array_host_data(const ra_array *x)
{
    if (!x || ra__layer_of(x, NULL) || x->nbytes == 0 || !RA__DEV_HOST_MEMORY(x->dev)) return NULL;
    return x->buf;
}

int ra_array_create_filled(ra_ctx *ctx, ra_device dev, ra_dtype dtype, const int64_t *shape,
                           size_t ndim, ra_fill_fn fill, void *user_data, ra_array **out)
{
    static const char fn[] = "ra_array_create_filled";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!fill) return ra__ctx_error(ctx, RA_E_NULL, "%s: fill is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    if (!ra__dtype_valid(dtype))
        return ra__ctx_error(ctx, RA_E_ARG, "%s: dtype %d is not a dtype", fn, (int)dtype);
    ra__dev *d;
    int status = ra__ctx_require(ctx, dev, fn, &d);
    if (status != RA_OK) return status;
    status = ra__dtype_require(ctx, d, dtype, fn);
    if (status != RA_OK) return status;
    ra_array *x = NULL;
    status = ra__array_new_uninit(ctx, d, dtype, shape, ndim, &x);
    if (status != RA_OK) return status;
    if (x->nbytes == 0) {
        status = fill(NULL, 0, user_data);
        goto done;
    }
    if (RA__DEV_HOST_MEMORY(d)) {
        status = fill(x->buf, x->nbytes, user_data);
        goto done;
    }
    /* Another device: fill a host staging buffer and write it. */
    void *staging = ra__alloc(ctx, x->nbytes);
    if (!staging) {
        status =
            ra__ctx_error(ctx, RA_E_NOMEM, "%s: no memory for %zu staging bytes", fn, x->nbytes);
        goto done;
    }
    status = fill(staging, x->nbytes, user_data);
    if (status == RA_OK) status = ra__array_write(ctx, x, staging);
    ra__free(ctx, staging);
done:
    return ra__array_hand_out(status, x, out);
}
