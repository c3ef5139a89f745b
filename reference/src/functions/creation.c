/*
 * functions/creation.c: the creation functions of refarray_fn_elementwise.h that refarray.h
 * does not have: meshgrid, on the staged path (staged.h).
 */
#include "staged.h"

#include <refarray_fn_elementwise.h>
#include <string.h>

int ra_meshgrid(ra_ctx *ctx, const ra_array *const *arrays, size_t n, bool ij, ra_array **outs)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "meshgrid: ctx is NULL");
    if (!outs || (!arrays && n)) return ra__ctx_error(ctx, RA_E_NULL, "meshgrid: NULL argument");
    if (n == 0) return ra__ctx_error(ctx, RA_E_ARG, "meshgrid: no array");
    if (n > RA_MAX_NDIM)
        return ra__ctx_error(ctx, RA_E_ARG, "meshgrid: %zu arrays, at most %d", n, RA_MAX_NDIM);
    for (size_t k = 0; k < n; k++) {
        outs[k] = NULL;
        if (!arrays[k]) return ra__ctx_error(ctx, RA_E_NULL, "meshgrid: array %zu is NULL", k);
        if (arrays[k]->ndim != 1)
            return ra__ctx_error(ctx, RA_E_SHAPE, "meshgrid: array %zu is %zu-D, not 1-D", k,
                                 arrays[k]->ndim);
        if (arrays[k]->dtype != arrays[0]->dtype)
            return ra__ctx_error(ctx, RA_E_DTYPE, "meshgrid: array %zu is %s, array 0 %s", k,
                                 ra_dtype_name(arrays[k]->dtype), ra_dtype_name(arrays[0]->dtype));
    }
    ra__host hs[RA_MAX_NDIM];
    ra__dev *dev = NULL;
    int status = ra__staged_read(ctx, "meshgrid", arrays, n, &dev, hs);
    if (status != RA_OK) return status;
    /* Array k varies along axis k of the result; "xy" swaps the first two. */
    size_t axis_of[RA_MAX_NDIM];
    int64_t shape[RA_MAX_NDIM];
    for (size_t k = 0; k < n; k++)
        axis_of[k] = (!ij && n >= 2 && k < 2) ? 1 - k : k;
    for (size_t k = 0; k < n; k++)
        shape[axis_of[k]] = hs[k].shape[0];
    size_t item = ra_dtype_size(hs[0].dtype), made = 0;
    for (size_t k = 0; status == RA_OK && k < n; k++) {
        ra__host y;
        status = ra__host_new(ctx, "meshgrid", hs[k].dtype, n, shape, &y);
        size_t a = axis_of[k];
        size_t inner = (size_t)ra__shape_size(shape + a + 1, n - a - 1);
        for (size_t i = 0; status == RA_OK && i < y.size; i++) {
            size_t src = (i / inner) % (size_t)shape[a];
            memcpy((char *)y.data + i * item, (const char *)hs[k].data + src * item, item);
        }
        status = ra__host_finish(ctx, status, dev, &y, &outs[k]);
        if (status == RA_OK) made++;
    }
    ra__host_free_all(ctx, hs, n);
    if (status != RA_OK)
        for (size_t k = 0; k < made; k++) {
            ra_array_release(outs[k]);
            outs[k] = NULL;
        }
    return status;
}
