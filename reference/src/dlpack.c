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

/* ---- import: a tensor checked for everything a consumer can check, then copied ---------- */

/* DLPack 1.3's name of a device type, or NULL for a value the standard has not. */
static const char *dl_device_name(int32_t type)
{
    static const char *const names[] = {[kDLCPU] = "kDLCPU",
                                        [kDLCUDA] = "kDLCUDA",
                                        [kDLCUDAHost] = "kDLCUDAHost",
                                        [kDLOpenCL] = "kDLOpenCL",
                                        [kDLVulkan] = "kDLVulkan",
                                        [kDLMetal] = "kDLMetal",
                                        [kDLVPI] = "kDLVPI",
                                        [kDLROCM] = "kDLROCM",
                                        [kDLROCMHost] = "kDLROCMHost",
                                        [kDLExtDev] = "kDLExtDev",
                                        [kDLCUDAManaged] = "kDLCUDAManaged",
                                        [kDLOneAPI] = "kDLOneAPI",
                                        [kDLWebGPU] = "kDLWebGPU",
                                        [kDLHexagon] = "kDLHexagon",
                                        [kDLMAIA] = "kDLMAIA",
                                        [kDLTrn] = "kDLTrn"};
    if (type < 0 || (size_t)type >= sizeof names / sizeof names[0]) return NULL;
    return names[type];
}

/* DLPack 1.3's name of a type code, or NULL for a value the standard has not. */
static const char *dl_code_name(uint8_t code)
{
    static const char *const names[] = {"kDLInt",
                                        "kDLUInt",
                                        "kDLFloat",
                                        "kDLOpaqueHandle",
                                        "kDLBfloat",
                                        "kDLComplex",
                                        "kDLBool",
                                        "kDLFloat8_e3m4",
                                        "kDLFloat8_e4m3",
                                        "kDLFloat8_e4m3b11fnuz",
                                        "kDLFloat8_e4m3fn",
                                        "kDLFloat8_e4m3fnuz",
                                        "kDLFloat8_e5m2",
                                        "kDLFloat8_e5m2fnuz",
                                        "kDLFloat8_e8m0fnu",
                                        "kDLFloat6_e2m3fn",
                                        "kDLFloat6_e3m2fn",
                                        "kDLFloat4_e2m1fn"};
    return code < sizeof names / sizeof names[0] ? names[code] : NULL;
}

/* A tensor as the import reads it: each field of the producer's tensor read once, here, then
 * checked; the copy reads only these and the data. A producer that changes its tensor during
 * the call changes nothing that was checked. */
typedef struct import_view {
    const char *data; /* the tensor's data + byte_offset; NULL without elements */
    int32_t ndim;
    int64_t shape[RA_MAX_NDIM];
    int64_t strides[RA_MAX_NDIM]; /* in elements; C order where the tensor gives none */
    int64_t size;                 /* elements */
    size_t elem;                  /* bytes an element */
    ra_dtype dtype;
} import_view;

/* dtype: a DLPack code, one lane, and a type refarray has. */
static int check_dtype(ra_ctx *ctx, const char *fn, DLDataType t, import_view *v)
{
    const char *code = dl_code_name(t.code);
    if (code == NULL)
        return ra__ctx_error(ctx, RA_E_BUFFER,
                             "%s: dtype.code %u is no DLPack type code (DLPack %d.%d has 0 to %d)",
                             fn, (unsigned)t.code, DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION,
                             (int)kDLFloat4_e2m1fn);
    if (t.lanes != 1)
        return ra__ctx_error(ctx, RA_E_BUFFER,
                             "%s: dtype.lanes is %u; refarray reads scalar types only (lanes 1)",
                             fn, (unsigned)t.lanes);
    v->dtype = ra_dtype_of(t);
    if (v->dtype == RA_DTYPE_DEFAULT)
        return ra__ctx_error(ctx, RA_E_BUFFER, "%s: dtype (%s, bits %u) is no refarray dtype", fn,
                             code, (unsigned)t.bits);
    v->elem = ra_dtype_size(v->dtype);
    return RA_OK;
}

/* device: host memory, the only memory refarray can read of another producer's. */
static int check_device(ra_ctx *ctx, const char *fn, DLDevice dev)
{
    int32_t type = (int32_t)dev.device_type, id = dev.device_id;
    const char *name = dl_device_name(type);
    if (name == NULL)
        return ra__ctx_error(ctx, RA_E_BUFFER, "%s: device.device_type %d is no DLPack device type",
                             fn, (int)type);
    if (id < 0)
        return ra__ctx_error(ctx, RA_E_BUFFER, "%s: device (%s, %d): device_id is negative", fn,
                             name, (int)id);
    if (type == kDLCPU && id != 0)
        return ra__ctx_error(ctx, RA_E_BUFFER,
                             "%s: device (kDLCPU, %d): DLPack's host memory is device 0", fn,
                             (int)id);
    if (type == kDLCPU || type == kDLCUDAHost || type == kDLROCMHost) return RA_OK;
    if (type == kDLOpenCL && ra__ctx_find(ctx, (ra_device){RA_DEVICE_GPU, id}) != NULL)
        return ra__ctx_error(ctx, RA_E_BUFFER,
                             "%s: device (kDLOpenCL, %d) is refarray's gpu:%d, but a producer's "
                             "cl_mem belongs to the producer's OpenCL context, which refarray has "
                             "not; ask the producer for dl_device=(kDLCPU, 0)",
                             fn, (int)id, (int)id);
    return ra__ctx_error(ctx, RA_E_BUFFER,
                         "%s: device (%s, %d) is no device refarray can read: it reads another "
                         "producer's tensors from host memory only (kDLCPU, kDLCUDAHost, "
                         "kDLROCMHost); ask the producer for dl_device=(kDLCPU, 0)",
                         fn, name, (int)id);
}

/* ndim and shape: within refarray's dimensions, no negative extent, and a number of bytes
 * that an allocation can hold. */
static int check_shape(ra_ctx *ctx, const char *fn, const DLTensor *t, import_view *v)
{
    if (t->ndim < 0)
        return ra__ctx_error(ctx, RA_E_BUFFER, "%s: ndim is %d; a tensor has ndim >= 0", fn,
                             (int)t->ndim);
    if (t->ndim > RA_MAX_NDIM)
        return ra__ctx_error(ctx, RA_E_BUFFER,
                             "%s: ndim is %d; refarray's arrays have at most %d dimensions", fn,
                             (int)t->ndim, RA_MAX_NDIM);
    if (t->ndim > 0 && t->shape == NULL)
        return ra__ctx_error(ctx, RA_E_BUFFER, "%s: shape is NULL with ndim %d", fn, (int)t->ndim);
    v->ndim = t->ndim;
    int64_t n = 1;
    bool empty = false, overflow = false;
    for (int32_t d = 0; d < v->ndim; d++) {
        int64_t e = v->shape[d] = t->shape[d];
        if (e < 0)
            return ra__ctx_error(ctx, RA_E_BUFFER, "%s: shape[%d] is %lld; extents are >= 0", fn,
                                 (int)d, (long long)e);
        if (e == 0)
            empty = true;
        else if (__builtin_mul_overflow(n, e, &n))
            overflow = true;
    }
    /* A zero extent makes the tensor empty whatever the others are. */
    v->size = empty ? 0 : n;
    if (!empty && (overflow || (uint64_t)n > (uint64_t)PTRDIFF_MAX / v->elem))
        return ra__ctx_error(ctx, RA_E_TOO_LARGE,
                             "%s: the shape's elements of %zu bytes exceed the address space", fn,
                             v->elem);
    return RA_OK;
}

/* data, strides and byte_offset: data given for elements, and every element's address
 * (data + byte_offset + offset * itemsize, offset the sum of index times stride) within the
 * address space. Whether that memory is the producer's is what no consumer can check. */
static int check_extent(ra_ctx *ctx, const char *fn, const DLTensor *t, import_view *v)
{
    if (v->size == 0) return RA_OK; /* nothing is read: data may be NULL, strides anything */
    if (t->data == NULL)
        return ra__ctx_error(ctx, RA_E_BUFFER,
                             "%s: data is NULL, but the tensor has %lld elements (DLPack's data "
                             "is NULL only without elements)",
                             fn, (long long)v->size);
    /* The least and greatest element offsets reached, lo <= 0 <= hi. */
    int64_t lo = 0, hi = 0, c_stride = 1;
    for (int32_t d = v->ndim; d-- > 0;) {
        int64_t s = v->strides[d] = t->strides ? t->strides[d] : c_stride;
        int64_t reach;
        if (__builtin_mul_overflow(s, v->shape[d] - 1, &reach) ||
            __builtin_add_overflow(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi))
            return ra__ctx_error(ctx, RA_E_BUFFER,
                                 "%s: strides[%d] is %lld with shape[%d] %lld: the offset of an "
                                 "element overflows int64",
                                 fn, (int)d, (long long)s, (int)d, (long long)v->shape[d]);
        c_stride *= v->shape[d]; /* at most size: no overflow */
    }
    uintptr_t base = (uintptr_t)t->data;
    if (t->byte_offset > UINTPTR_MAX - base)
        return ra__ctx_error(ctx, RA_E_BUFFER,
                             "%s: byte_offset %llu from data %p runs past the end of the address "
                             "space",
                             fn, (unsigned long long)t->byte_offset, t->data);
    base += (uintptr_t)t->byte_offset;
    int64_t lo_bytes, hi_bytes, esize = (int64_t)v->elem;
    if (__builtin_mul_overflow(lo, esize, &lo_bytes) ||
        __builtin_mul_overflow(hi, esize, &hi_bytes) ||
        __builtin_add_overflow(hi_bytes, esize, &hi_bytes) ||
        (uint64_t)0 - (uint64_t)lo_bytes > base || (uint64_t)hi_bytes > UINTPTR_MAX - base)
        return ra__ctx_error(ctx, RA_E_BUFFER,
                             "%s: the elements reach from %lld to %lld elements of %zu bytes "
                             "around data %p + byte_offset %llu: outside the address space",
                             fn, (long long)lo, (long long)hi, v->elem, t->data,
                             (unsigned long long)t->byte_offset);
    v->data = (const char *)t->data + t->byte_offset;
    return RA_OK;
}

/* The checks of an imported tensor, which they copy into V; RA_OK or a recorded error. */
static int check_import(ra_ctx *ctx, const char *fn, const DLManagedTensorVersioned *m,
                        import_view *v)
{
    /* Another major version may lay the tensor out otherwise: nothing else is read. */
    if (m->version.major != DLPACK_MAJOR_VERSION)
        return ra__ctx_error(
            ctx, RA_E_BUFFER, "%s: the tensor is DLPack %u.%u; refarray reads %d.x", fn,
            (unsigned)m->version.major, (unsigned)m->version.minor, DLPACK_MAJOR_VERSION);
    const DLTensor t = m->dl_tensor;
    memset(v, 0, sizeof *v);
    int status = check_dtype(ctx, fn, t.dtype, v);
    if (status == RA_OK) status = check_device(ctx, fn, t.device);
    if (status == RA_OK) status = check_shape(ctx, fn, &t, v);
    if (status == RA_OK) status = check_extent(ctx, fn, &t, v);
    return status;
}

/* Gathers a checked tensor's elements, by its strides, into C order: the offset steps from
 * one element to the next, so that every value it takes is an element's (checked). */
static int gather_fill(void *dst, size_t nbytes, void *user_data)
{
    const import_view *v = user_data;
    int64_t idx[RA_MAX_NDIM] = {0};
    int64_t off = 0;
    size_t n = nbytes / v->elem;
    char *out = dst;
    for (size_t k = 0; k < n; k++) {
        memcpy(out + k * v->elem, v->data + off * (int64_t)v->elem, v->elem);
        for (int32_t d = v->ndim; d-- > 0;) {
            if (++idx[d] < v->shape[d]) {
                off += v->strides[d];
                break;
            }
            off -= v->strides[d] * (v->shape[d] - 1);
            idx[d] = 0;
        }
    }
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
    import_view v;
    status = check_import(ctx, fn, m, &v);
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
    status =
        ra_array_create_filled(ctx, dev, v.dtype, v.shape, (size_t)v.ndim, gather_fill, &v, out);
done:
    /* The tensor is the consumer's from the call on: released exactly once, also on error. A
     * NULL deleter is DLPack's way of saying the producer has no destructor to give
     * (dlpack.h): the tensor stays the producer's. */
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
