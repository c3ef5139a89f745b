/*
 * functions/objects.c: the array object's attributes that compute (x.T, x.mT, the Python
 * scalar of a 0-d array) and the data type functions isdtype, finfo and iinfo
 * (refarray_fn_elementwise.h).
 */
#include "staged.h"

#include <complex.h>
#include <float.h>
#include <refarray_fn_elementwise.h>
#include <string.h>

int ra_array_transpose(ra_ctx *ctx, const ra_array *x, bool matrix, ra_array **out)
{
    const char *name = matrix ? "mT" : "T";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", name);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", name);
    *out = NULL;
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", name);
    if (matrix ? x->ndim < 2 : x->ndim != 2)
        return ra__ctx_error(ctx, RA_E_SHAPE, "%s: x is %zu-D; %s", name, x->ndim,
                             matrix ? "at least 2 dimensions are needed" : "T needs a 2-D array");
    ra__dev *dev = NULL;
    ra__host hx, hy = RA__HOST_INIT;
    int status = ra__staged_read(ctx, name, &x, 1, &dev, &hx);
    if (status != RA_OK) return status;
    size_t nd = hx.ndim;
    int64_t shape[RA_MAX_NDIM];
    memcpy(shape, hx.shape, nd * sizeof *shape);
    shape[nd - 2] = hx.shape[nd - 1];
    shape[nd - 1] = hx.shape[nd - 2];
    status = ra__host_new(ctx, name, hx.dtype, nd, shape, &hy);
    size_t r = (size_t)hx.shape[nd - 2], c = (size_t)hx.shape[nd - 1],
           item = ra_dtype_size(hx.dtype);
    size_t stacks = (r && c) ? hx.size / (r * c) : 0;
    for (size_t s = 0; status == RA_OK && s < stacks; s++)
        for (size_t i = 0; i < r; i++)
            for (size_t j = 0; j < c; j++)
                memcpy((char *)hy.data + (s * r * c + j * r + i) * item,
                       (const char *)hx.data + (s * r * c + i * c + j) * item, item);
    ra__host_free(ctx, &hx);
    return ra__host_finish(ctx, status, dev, &hy, out);
}

int ra_array_item(ra_ctx *ctx, const ra_array *x, ra_scalar *out)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "item: ctx is NULL");
    if (!x || !out) return ra__ctx_error(ctx, RA_E_NULL, "item: NULL argument");
    if (x->ndim != 0)
        return ra__ctx_error(ctx, RA_E_SHAPE,
                             "a %zu-D array has no single value (only a 0-d array converts to "
                             "a Python scalar)",
                             x->ndim);
    ra__dev *dev = NULL;
    ra__host h;
    int status = ra__staged_read(ctx, "item", &x, 1, &dev, &h);
    if (status != RA_OK) return status;
    if (h.dtype == RA_BOOL)
        *out = ra_scalar_bool(ra__hgetb(&h, 0));
    else if (ra__dtype_is_unsigned(h.dtype))
        *out = ra_scalar_uint(ra__hgetu(&h, 0));
    else if (ra__dtype_is_signed(h.dtype))
        *out = ra_scalar_int(ra__hgeti(&h, 0));
    else if (ra__dtype_is_complex(h.dtype))
        *out = ra_scalar_complex(creal(ra__hgetc(&h, 0)), cimag(ra__hgetc(&h, 0)));
    else
        *out = ra_scalar_float(ra__hget(&h, 0));
    ra__host_free(ctx, &h);
    return RA_OK;
}

int ra_isdtype(ra_ctx *ctx, ra_dtype dtype, const char *kind, bool *out)
{
    static const struct {
        const char *name;
        unsigned kinds;
    } names[] = {{"bool", RA_KIND_BOOL},
                 {"signed integer", RA_KIND_SIGNED_INTEGER},
                 {"unsigned integer", RA_KIND_UNSIGNED_INTEGER},
                 {"integral", RA_KIND_INTEGRAL},
                 {"real floating", RA_KIND_REAL_FLOATING},
                 {"complex floating", RA_KIND_COMPLEX_FLOATING},
                 {"numeric", RA_KIND_NUMERIC}};
    if (!kind || !out) return ra__ctx_error(ctx, RA_E_NULL, "isdtype: kind or out is NULL");
    if (!ra__dtype_valid(dtype))
        return ra__ctx_error(ctx, RA_E_ARG, "isdtype: invalid dtype %d", (int)dtype);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(names[i].name, kind)) {
            *out = (ra_dtype_kind(dtype) & names[i].kinds) != 0;
            return RA_OK;
        }
    return ra__ctx_error(ctx, RA_E_ARG,
                         "isdtype: unknown kind '%s' (bool, signed integer, unsigned integer, "
                         "integral, real floating, complex floating, numeric)",
                         kind);
}

int ra_finfo_of(ra_ctx *ctx, ra_dtype dtype, ra_finfo *out)
{
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "finfo: out is NULL");
    ra_dtype real = dtype == RA_COMPLEX64    ? RA_FLOAT32
                    : dtype == RA_COMPLEX128 ? RA_FLOAT64
                                             : dtype;
    switch (real) {
    case RA_FLOAT16: /* binary16: 10 fraction bits, exponents -14..15 */
        *out = (ra_finfo){16, 0x1p-10, 65504.0, -65504.0, 0x1p-14, real};
        return RA_OK;
    case RA_FLOAT32:
        *out = (ra_finfo){32, FLT_EPSILON, FLT_MAX, -FLT_MAX, FLT_MIN, real};
        return RA_OK;
    case RA_FLOAT64:
        *out = (ra_finfo){64, DBL_EPSILON, DBL_MAX, -DBL_MAX, DBL_MIN, real};
        return RA_OK;
    default:
        return ra__ctx_error(ctx, RA_E_DTYPE, "finfo: %s is not a floating-point dtype",
                             ra_dtype_name(dtype) ? ra_dtype_name(dtype) : "(invalid)");
    }
}

int ra_iinfo_of(ra_ctx *ctx, ra_dtype dtype, ra_iinfo *out)
{
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "iinfo: out is NULL");
    if (!ra__dtype_valid(dtype) || !ra__dtype_is_integer(dtype))
        return ra__ctx_error(ctx, RA_E_DTYPE, "iinfo: %s is not an integer dtype",
                             ra_dtype_name(dtype) ? ra_dtype_name(dtype) : "(invalid)");
    int bits = (int)ra_dtype_size(dtype) * 8;
    out->bits = bits;
    out->dtype = dtype;
    if (ra__dtype_is_signed(dtype)) {
        out->max = (UINT64_C(1) << (bits - 1)) - 1;
        out->min = -(int64_t)out->max - 1;
    } else {
        out->min = 0;
        out->max = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    }
    return RA_OK;
}
