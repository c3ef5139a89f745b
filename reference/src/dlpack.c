/*
 * dlpack.c: DLPack 1.x both ways (DEV-DLP-*): ra_to_dlpack exports any ordinary array as a
 * DLManagedTensorVersioned, ra_from_dlpack_tensor imports any producer's. The structs are the
 * standard's (common/devspec_dlpack.h). For an OpenCL device the tensor's data is the cl_mem
 * of the array's buffer and byte_offset 0, as the standard's header says for OpenCL
 * (spec/decisions.md, "DLPack in C").
 */
#include "devspec_dlpack.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* What an exported tensor holds: the tensor, the array that keeps the data alive, and its
 * shape and strides. One allocation, freed by the deleter. */
typedef struct ra__dlpack_export {
    DLManagedTensorVersioned tensor;
    ra_array *array;
    int64_t shape[RA_MAX_NDIM];
    int64_t strides[RA_MAX_NDIM];
} ra__dlpack_export;

static bool dl_dtype(ra_dtype dtype, DLDataType *out)
{
    static const DLDataType map[] = {[RA_BOOL] = {kDLBool, 8, 1},
                                     [RA_INT8] = {kDLInt, 8, 1},
                                     [RA_INT16] = {kDLInt, 16, 1},
                                     [RA_INT32] = {kDLInt, 32, 1},
                                     [RA_INT64] = {kDLInt, 64, 1},
                                     [RA_UINT8] = {kDLUInt, 8, 1},
                                     [RA_UINT16] = {kDLUInt, 16, 1},
                                     [RA_UINT32] = {kDLUInt, 32, 1},
                                     [RA_UINT64] = {kDLUInt, 64, 1},
                                     [RA_FLOAT32] = {kDLFloat, 32, 1},
                                     [RA_FLOAT64] = {kDLFloat, 64, 1},
                                     [RA_COMPLEX64] = {kDLComplex, 64, 1},
                                     [RA_COMPLEX128] = {kDLComplex, 128, 1},
                                     [RA_FLOAT16] = {kDLFloat, 16, 1}};
    if (dtype < RA_BOOL || dtype > RA_FLOAT16) return false;
    *out = map[dtype];
    return true;
}

/* refarray's dtype for a DLPack type, or RA_DTYPE_DEFAULT when it has none. */
static ra_dtype ra_dtype_of(DLDataType t)
{
    if (t.lanes != 1) return RA_DTYPE_DEFAULT;
    for (int d = RA_BOOL; d <= RA_FLOAT16; d++) {
        DLDataType m = {0, 0, 0};
        if (dl_dtype((ra_dtype)d, &m) && m.code == t.code && m.bits == t.bits) return (ra_dtype)d;
    }
    return RA_DTYPE_DEFAULT;
}

static void export_deleter(DLManagedTensorVersioned *self)
{
    if (self == NULL) return;
    ra__dlpack_export *e = self->manager_ctx;
    ra_array_release(e->array);
    free(e);
}

/* The device a dl_device pair names, or NULL when refarray has none such. */
static ra__dev *target_device(ra_ctx *ctx, const int32_t *dl_device)
{
    if (dl_device[0] == kDLCPU && dl_device[1] == 0) return ctx->host;
    if (dl_device[0] == kDLOpenCL && dl_device[1] >= 0)
        return ra__ctx_find(ctx, (ra_device){RA_DEVICE_GPU, dl_device[1]});
    return NULL;
}

int ra_to_dlpack(ra_ctx *ctx, const ra_array *x, const int32_t *dl_device, ra_copy copy,
                 DLManagedTensorVersioned **out)
{
    static const char fn[] = "ra_to_dlpack";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!x || !out) return ra__ctx_error(ctx, RA_E_NULL, "%s: x or out is NULL", fn);
    *out = NULL;
    if (ra__layer_of(x, NULL))
        return ra__ctx_error(ctx, RA_E_BUFFER,
                             "%s: a sharded array is on several devices; DLPack describes one "
                             "buffer on one device",
                             fn);
    ra__dev *dst = x->dev;
    if (dl_device) {
        dst = target_device(ctx, dl_device);
        if (dst == NULL)
            return ra__ctx_error(ctx, RA_E_BUFFER,
                                 "%s: dl_device (%d, %d) is no device of this context (kDLCPU 0 "
                                 "is cpu, kDLOpenCL N is gpu:N)",
                                 fn, (int)dl_device[0], (int)dl_device[1]);
    }
    bool need_copy = dst != x->dev;
    if (need_copy && copy == RA_COPY_NEVER) {
        char b1[RA_DEVICE_STR_MAX], b2[RA_DEVICE_STR_MAX];
        return ra__ctx_error(ctx, RA_E_BUFFER,
                             "%s: copy=False, but exporting '%s' to '%s' needs a copy", fn,
                             ra__device_str(x->dev->device, b1), ra__device_str(dst->device, b2));
    }
    bool copied = need_copy || copy == RA_COPY_ALWAYS;
    ra__dlpack_export *e = calloc(1, sizeof *e);
    if (e == NULL) return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    if (copied) {
        int status = ra__array_copy_to(ctx, x, dst, NULL, &e->array);
        if (status != RA_OK) {
            free(e);
            return status;
        }
    } else {
        e->array = ra_array_retain(x);
    }
    const ra_array *a = e->array;
    DLTensor *t = &e->tensor.dl_tensor;
    (void)dl_dtype(a->dtype, &t->dtype);
    t->ndim = (int32_t)a->ndim;
    int64_t stride = 1;
    for (size_t i = a->ndim; i-- > 0;) {
        e->shape[i] = a->shape[i];
        e->strides[i] = stride;
        stride *= a->shape[i] > 0 ? a->shape[i] : 1;
    }
    t->shape = a->ndim ? e->shape : NULL;
    t->strides = a->ndim ? e->strides : NULL;
    t->byte_offset = 0;
    if (a->dev->device.type == RA_DEVICE_CPU) {
        t->device = (DLDevice){kDLCPU, 0};
        t->data = a->nbytes ? (void *)ra_array_host_data(a) : NULL;
    } else {
        t->device = (DLDevice){kDLOpenCL, a->dev->device.index};
        t->data = a->nbytes && RA__BACKEND_HAS(a->dev->ops, native)
                      ? a->dev->ops->native(a->dev->impl, a->buf)
                      : NULL;
    }
    e->tensor.version = (DLPackVersion){DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    e->tensor.manager_ctx = e;
    e->tensor.deleter = export_deleter;
    /* refarray's arrays are immutable: a shared buffer is read-only to the consumer, a copy
     * is the consumer's alone. */
    e->tensor.flags = copied ? DLPACK_FLAG_BITMASK_IS_COPIED : DLPACK_FLAG_BITMASK_READ_ONLY;
    *out = &e->tensor;
    return RA_OK;
}

/* Gathers a host tensor's elements, by its strides, into C order. */
typedef struct gather {
    const DLTensor *t;
    size_t elem;
} gather;

static int gather_fill(void *dst, size_t nbytes, void *user_data)
{
    const gather *g = user_data;
    const DLTensor *t = g->t;
    if (nbytes == 0) return RA_OK;
    const char *base = (const char *)t->data + t->byte_offset;
    int32_t nd = t->ndim;
    int64_t idx[RA_MAX_NDIM] = {0};
    size_t n = nbytes / g->elem;
    char *out = dst;
    for (size_t k = 0; k < n; k++) {
        int64_t off = 0, c_stride = 1;
        for (int32_t d = nd; d-- > 0;) {
            off += idx[d] * (t->strides ? t->strides[d] : c_stride);
            c_stride *= t->shape[d];
        }
        memcpy(out + k * g->elem, base + off * (int64_t)g->elem, g->elem);
        for (int32_t d = nd; d-- > 0;) {
            if (++idx[d] < t->shape[d]) break;
            idx[d] = 0;
        }
    }
    return RA_OK;
}

/* The checks of an imported tensor; RA_OK or a recorded error. */
static int check_import(ra_ctx *ctx, const char *fn, const DLManagedTensorVersioned *m,
                        ra_dtype *dtype)
{
    if (m->version.major != DLPACK_MAJOR_VERSION)
        return ra__ctx_error(
            ctx, RA_E_BUFFER, "%s: the tensor is DLPack %u.%u; refarray reads %d.x", fn,
            (unsigned)m->version.major, (unsigned)m->version.minor, DLPACK_MAJOR_VERSION);
    const DLTensor *t = &m->dl_tensor;
    *dtype = ra_dtype_of(t->dtype);
    if (*dtype == RA_DTYPE_DEFAULT)
        return ra__ctx_error(
            ctx, RA_E_BUFFER, "%s: DLPack type (code %u, bits %u, lanes %u) is no refarray dtype",
            fn, (unsigned)t->dtype.code, (unsigned)t->dtype.bits, (unsigned)t->dtype.lanes);
    if (t->device.device_type != kDLCPU && t->device.device_type != kDLCUDAHost &&
        t->device.device_type != kDLROCMHost)
        return ra__ctx_error(ctx, RA_E_BUFFER,
                             "%s: the tensor is on DLPack device (%d, %d); refarray reads another "
                             "producer's tensors from host memory only (ask the producer for "
                             "dl_device=(kDLCPU, 0))",
                             fn, (int)t->device.device_type, (int)t->device.device_id);
    if (t->ndim < 0 || t->ndim > RA_MAX_NDIM || (t->ndim > 0 && t->shape == NULL))
        return ra__ctx_error(ctx, RA_E_BUFFER, "%s: ndim %d (or its shape) cannot be read", fn,
                             (int)t->ndim);
    for (int32_t d = 0; d < t->ndim; d++)
        if (t->shape[d] < 0)
            return ra__ctx_error(ctx, RA_E_BUFFER, "%s: shape[%d] is %lld", fn, (int)d,
                                 (long long)t->shape[d]);
    return RA_OK;
}

int ra_from_dlpack_tensor(ra_ctx *ctx, DLManagedTensorVersioned *m, const ra_opts *opts,
                          ra_array **out)
{
    static const char fn[] = "ra_from_dlpack_tensor";
    int status;
    ra_opts local;
    if (out) *out = NULL;
    if (!ctx) {
        status = ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
        goto done;
    }
    if (!m || !out) {
        status = ra__ctx_error(ctx, RA_E_NULL, "%s: tensor or out is NULL", fn);
        goto done;
    }
    ra_dtype dtype = RA_DTYPE_DEFAULT;
    status = check_import(ctx, fn, m, &dtype);
    if (status != RA_OK) goto done;
    memset(&local, 0, sizeof local);
    if (opts) {
        status = ra__opts_load(ctx, opts, fn, &local);
        if (status != RA_OK) goto done;
    }
    if (local.dtype != RA_DTYPE_DEFAULT) {
        status =
            ra__ctx_error(ctx, RA_E_ARG, "%s: DLPack keeps the dtype; dtype must not be given", fn);
        goto done;
    }
    if (local.copy == RA_COPY_NEVER) {
        status = ra__ctx_error(ctx, RA_E_BUFFER,
                               "%s: copy=False, but refarray holds only memory it allocated: "
                               "another producer's tensor is always copied",
                               fn);
        goto done;
    }
    bool given = false;
    ra_device dev = RA_CPU;
    status = ra__opts_device(ctx, &local, fn, &given, &dev);
    if (status != RA_OK) goto done;
    const DLTensor *t = &m->dl_tensor;
    int64_t shape[RA_MAX_NDIM];
    for (int32_t d = 0; d < t->ndim; d++)
        shape[d] = t->shape[d];
    DLDataType dt = {0, 0, 0};
    (void)dl_dtype(dtype, &dt);
    gather g = {t, dt.bits / 8u};
    status = ra_array_create_filled(ctx, dev, dtype, shape, (size_t)t->ndim, gather_fill, &g, out);
done:
    /* The tensor is the consumer's from the call on: released exactly once, also on error. */
    if (m && m->deleter) m->deleter(m);
    return status;
}

static void unversioned_deleter(DLManagedTensor *self)
{
    if (self == NULL) return;
    DLManagedTensorVersioned *v = self->manager_ctx;
    v->deleter(v);
    free(self);
}

int ra_to_dlpack_unversioned(ra_ctx *ctx, const ra_array *x, const int32_t *dl_device, ra_copy copy,
                             DLManagedTensor **out)
{
    static const char fn[] = "ra_to_dlpack_unversioned";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!x || !out) return ra__ctx_error(ctx, RA_E_NULL, "%s: x or out is NULL", fn);
    *out = NULL;
    if (copy == RA_COPY_NEVER)
        return ra__ctx_error(ctx, RA_E_BUFFER,
                             "%s: copy=False, but an unversioned tensor cannot say read-only, "
                             "so refarray hands out only copies that way",
                             fn);
    DLManagedTensor *u = calloc(1, sizeof *u);
    if (u == NULL) return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    DLManagedTensorVersioned *v = NULL;
    int status = ra_to_dlpack(ctx, x, dl_device, RA_COPY_ALWAYS, &v);
    if (status != RA_OK) {
        free(u);
        return status;
    }
    u->dl_tensor = v->dl_tensor;
    u->manager_ctx = v;
    u->deleter = unversioned_deleter;
    *out = u;
    return RA_OK;
}
