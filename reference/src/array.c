/* array.c: array headers, reference counting, data movement (read, write, fill, cast,
 * copies between devices) and to_device. */
#include "array_make.h"

#include <stdio.h>
#include <string.h>

int64_t ra__shape_size(const int64_t *shape, size_t ndim)
{
    int64_t n = 1;
    for (size_t i = 0; i < ndim; i++)
        n *= shape[i];
    return n;
}

const char *ra__shape_str(const int64_t *shape, size_t ndim, char buf[RA__SHAPE_STR_MAX])
{
    size_t o = 0;
    buf[o++] = '(';
    buf[o] = 0;
    for (size_t i = 0; i < ndim && o < RA__SHAPE_STR_MAX - 30; i++)
        o += (size_t)snprintf(buf + o, RA__SHAPE_STR_MAX - o, "%s%lld", i ? ", " : "",
                              (long long)shape[i]);
    snprintf(buf + o, RA__SHAPE_STR_MAX - o, ndim == 1 ? ",)" : ")");
    return buf;
}

int ra__broadcast_shapes(ra_ctx *ctx, const char *fn, size_t n, const size_t *ndims,
                         const int64_t *const *shapes, size_t *ndim, int64_t *shape)
{
    size_t nd = 0;
    for (size_t k = 0; k < n; k++)
        if (ndims[k] > nd) nd = ndims[k];
    for (size_t d = 0; d < nd; d++)
        shape[d] = 1;
    for (size_t k = 0; k < n; k++) {
        size_t off = nd - ndims[k];
        for (size_t d = 0; d < ndims[k]; d++) {
            int64_t e = shapes[k][d];
            int64_t *r = &shape[off + d];
            if (e == *r || e == 1) continue;
            if (*r == 1) {
                *r = e;
                continue;
            }
            char a[RA__SHAPE_STR_MAX], b[RA__SHAPE_STR_MAX];
            return ra__ctx_error(
                ctx, RA_E_BROADCAST, "%s: shapes %s and %s cannot be broadcast together", fn,
                ra__shape_str(shapes[0], ndims[0], a), ra__shape_str(shapes[k], ndims[k], b));
        }
    }
    *ndim = nd;
    return RA_OK;
}

int ra__shape_check(ra_ctx *ctx, const int64_t *shape, size_t ndim, int64_t *size, const char *what)
{
    if (ndim > RA_MAX_NDIM)
        return ra__ctx_error(ctx, RA_E_SHAPE, "%s: %zu dimensions; refarray supports at most %d",
                             what, ndim, RA_MAX_NDIM);
    if (ndim > 0 && !shape)
        return ra__ctx_error(ctx, RA_E_NULL, "%s: shape is NULL with ndim %zu", what, ndim);
    int64_t n = 1;
    bool overflow = false;
    for (size_t i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return ra__ctx_error(ctx, RA_E_SHAPE, "%s: shape[%zu] is %lld; extents must be >= 0",
                                 what, i, (long long)shape[i]);
        if (shape[i] != 0 && n > INT64_MAX / 16 / shape[i])
            overflow = true;
        else
            n *= shape[i];
    }
    /* A zero extent makes the array empty whatever the others are. */
    for (size_t i = 0; i < ndim; i++)
        if (shape[i] == 0) {
            n = 0;
            overflow = false;
        }
    if (overflow)
        return ra__ctx_error(ctx, RA_E_TOO_LARGE, "%s: the shape's element count overflows", what);
    *size = n;
    return RA_OK;
}

static int array_new(ra_ctx *ctx, ra__dev *dev, ra_dtype dtype, const int64_t *shape, size_t ndim,
                     bool zeroed, ra_array **out)
{
    int64_t size;
    int status = ra__shape_check(ctx, shape, ndim, &size, "array");
    if (status != RA_OK) return status;
    return ra__array_make(ctx, ra__thread_get(ctx), dev, dtype, shape, ndim, size, NULL, zeroed,
                          out);
}

int ra__array_new(ra_ctx *ctx, ra__dev *dev, ra_dtype dtype, const int64_t *shape, size_t ndim,
                  ra_array **out)
{
    return array_new(ctx, dev, dtype, shape, ndim, true, out);
}

int ra__array_new_uninit(ra_ctx *ctx, ra__dev *dev, ra_dtype dtype, const int64_t *shape,
                         size_t ndim, ra_array **out)
{
    return array_new(ctx, dev, dtype, shape, ndim, false, out);
}

int ra__array_new_like_uninit(ra_ctx *ctx, ra__dev *dev, ra_dtype dtype, const ra_array *like,
                              ra_array **out)
{
    return ra__array_new_like_uninit_on(ctx, ra__thread_get(ctx), dev, dtype, like, out);
}

int ra__array_hand_out(int status, ra_array *x, ra_array **out)
{
    if (status != RA_OK) {
        ra_array_release(x);
        return status;
    }
    *out = x;
    return RA_OK;
}

int ra__array_new_layered(ra_ctx *ctx, const ra__layer_ops *layer, void *data, ra__dev *dev,
                          ra_dtype dtype, const int64_t *shape, size_t ndim, const char *fn,
                          ra_array **out)
{
    int64_t size;
    int status = ra__shape_check(ctx, shape, ndim, &size, fn);
    if (status != RA_OK) {
        layer->free(ctx, data);
        return status;
    }
    ra__thread *t = ra__thread_get(ctx);
    ra_array *x = ra__live_header(ctx, t, RA__INLINE_OFFSET, false);
    if (!x) {
        layer->free(ctx, data);
        return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory for the array header", fn);
    }
    /* nbytes is the logical size: what a gather or a read of the whole array needs. */
    ra__header_init(x, ctx, dev, dtype, ndim, size, (size_t)size * ra_dtype_size(dtype));
    x->layer = layer;
    x->layer_data = data;
    for (size_t i = 0; i < ndim; i++)
        x->shape[i] = shape[i];
    /* A layer's array is never listed: listed_on stays NULL. */
    atomic_store_explicit(&x->listed_on, NULL, memory_order_relaxed);
    ra__live_add(ctx, x);
    *out = x;
    return RA_OK;
}

ra_array *ra_array_retain(const ra_array *cx)
{
    ra_array *x = (ra_array *)cx;
    if (x) atomic_fetch_add(&x->refs, 1);
    return x;
}

void ra_array_release(ra_array *x)
{
    if (!x) return;
    if (!ra__release_sole(x) && atomic_fetch_sub(&x->refs, 1) != 1) return;
    /* Nothing else holds x now, and a listing no longer takes it (its count is zero). */
    ra_ctx *ctx = x->ctx;
    ra__thread *t = ra__thread_get(ctx);
    if (x->layer) {
        /* The layer's parts hold the data and its accounting. */
        x->layer->free(ctx, x->layer_data);
    } else {
        if (x->buf && x->buf != ra__inline_buf(x)) x->dev->ops->free(x->dev->impl, x->buf);
        ra__used_add(t, x->dev, -(int64_t)x->nbytes);
    }
    ra__live_retire(ctx, t, x);
}

ra_device ra_array_device(const ra_array *x)
{
    return x ? x->dev->device : RA_NO_DEVICE;
}

ra_dtype ra_array_dtype(const ra_array *x)
{
    return x ? x->dtype : RA_DTYPE_DEFAULT;
}

size_t ra_array_ndim(const ra_array *x)
{
    return x ? x->ndim : 0;
}

const int64_t *ra_array_shape(const ra_array *x)
{
    return x && x->ndim ? x->shape : NULL;
}

int64_t ra_array_size(const ra_array *x)
{
    return x ? x->size : 0;
}

size_t ra_array_nbytes(const ra_array *x)
{
    return x ? x->nbytes : 0;
}

int ra_array_read(ra_ctx *ctx, const ra_array *x, void *dst, size_t dst_bytes)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_array_read: ctx is NULL");
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "ra_array_read: x is NULL");
    if (!dst && x->nbytes) return ra__ctx_error(ctx, RA_E_NULL, "ra_array_read: dst is NULL");
    if (dst_bytes != x->nbytes)
        return ra__ctx_error(ctx, RA_E_BUFFER,
                             "ra_array_read: the buffer has %zu bytes; the array needs %zu",
                             dst_bytes, x->nbytes);
    if (!x->nbytes) return RA_OK;
    if (x->layer) return x->layer->read(ctx, x, dst);
    return x->dev->ops->read(x->dev->impl, x->buf, 0, dst, x->nbytes, NULL);
}

void ra__array_unshare(ra_array *x)
{
    /* The data goes, the header stays (a layer takes x over). */
    if (x->buf && x->buf != ra__inline_buf(x)) x->dev->ops->free(x->dev->impl, x->buf);
    ra__used_add(ra__thread_get(x->ctx), x->dev, -(int64_t)x->nbytes);
    x->buf = NULL;
}

int ra_array_dlpack_device(const ra_array *x, int32_t *device_type, int32_t *device_id)
{
    if (!x || !device_type || !device_id)
        return ra__ctx_error(x ? x->ctx : NULL, RA_E_NULL,
                             "ra_array_dlpack_device: x, device_type or device_id is NULL");
    RA__REFUSE_LAYERED(x->ctx, x, "ra_array_dlpack_device");
    /* DLPack's DLDeviceType: kDLCPU = 1, kDLOpenCL = 4. */
    if (x->dev->device.type == RA_DEVICE_CPU) {
        *device_type = 1;
        *device_id = 0;
    } else {
        *device_type = 4;
        *device_id = x->dev->device.index;
    }
    return RA_OK;
}

int ra__array_write(ra_ctx *ctx, ra_array *x, const void *src)
{
    (void)ctx;
    if (!x->nbytes) return RA_OK;
    return x->dev->ops->write(x->dev->impl, x->buf, 0, src, x->nbytes, NULL);
}

int ra__array_fill(ra_ctx *ctx, ra_array *x, const void *value)
{
    if (!x->nbytes) return RA_OK;
    size_t esize = ra_dtype_size(x->dtype);
    if (x->dev->ops->fill)
        return x->dev->ops->fill(x->dev->impl, x->buf, 0, value, esize, (size_t)x->size);
    char *host = ra__alloc(ctx, x->nbytes);
    if (!host) return ra__ctx_error(ctx, RA_E_NOMEM, "fill: out of memory for a staging buffer");
    for (int64_t i = 0; i < x->size; i++)
        memcpy(host + (size_t)i * esize, value, esize);
    int status = ra__array_write(ctx, x, host);
    ra__free(ctx, host);
    return status;
}

int ra__array_cast(ra_ctx *ctx, const ra_array *x, ra_dtype dtype, ra_array **out)
{
    ra_array *y = NULL;
    int status = ra__array_new_like_uninit(ctx, x->dev, dtype, x, &y);
    if (status != RA_OK) return status;
    if (!x->nbytes) {
        *out = y;
        return RA_OK;
    }
    /* float16 conversions are the host's on every device (OpenCL C has no half arithmetic
     * without cl_khr_fp16, and refarray does none on the device). */
    if (x->dev->ops->cast && x->dtype != RA_FLOAT16 && dtype != RA_FLOAT16) {
        status = x->dev->ops->cast(x->dev->impl, y->buf, dtype, x->buf, x->dtype, (size_t)x->size);
    } else {
        char *src = ra__alloc(ctx, x->nbytes);
        char *dst = ra__alloc(ctx, y->nbytes);
        if (!src || !dst) {
            status = ra__ctx_error(ctx, RA_E_NOMEM, "astype: out of memory for staging buffers");
        } else {
            status = x->dev->ops->read(x->dev->impl, x->buf, 0, src, x->nbytes, NULL);
            if (status == RA_OK) {
                ra__host_cast(dst, dtype, src, x->dtype, (size_t)x->size);
                status = ra__array_write(ctx, y, dst);
            }
        }
        ra__free(ctx, src);
        ra__free(ctx, dst);
    }
    return ra__array_hand_out(status, y, out);
}

int ra__array_copy_to(ra_ctx *ctx, const ra_array *x, ra__dev *dst, void *stream, ra_array **out)
{
    ra_array *y = NULL;
    int status = ra__array_new_like_uninit(ctx, dst, x->dtype, x, &y);
    if (status != RA_OK) return status;
    if (x->nbytes) {
        if (dst == x->dev && dst->ops->copy) {
            status = dst->ops->copy(dst->impl, y->buf, 0, x->nbytes, x->buf, 0, x->nbytes,
                                    x->nbytes, 1, stream);
        } else if (RA__DEV_HOST_MEMORY(x->dev)) {
            /* From host memory the source bytes are directly readable. */
            status = dst->ops->write(dst->impl, y->buf, 0, x->buf, x->nbytes, stream);
        } else if (RA__DEV_HOST_MEMORY(dst)) {
            status = x->dev->ops->read(x->dev->impl, x->buf, 0, y->buf, x->nbytes, NULL);
        } else {
            /* Between two non-host devices: staged through host memory. */
            void *host = ra__alloc(ctx, x->nbytes);
            if (!host) {
                status = ra__ctx_error(ctx, RA_E_NOMEM, "to_device: out of memory for staging");
            } else {
                status = x->dev->ops->read(x->dev->impl, x->buf, 0, host, x->nbytes, NULL);
                if (status == RA_OK)
                    status = dst->ops->write(dst->impl, y->buf, 0, host, x->nbytes, stream);
                ra__free(ctx, host);
            }
        }
    }
    return ra__array_hand_out(status, y, out);
}

int ra_to_device(ra_ctx *ctx, const ra_array *x, ra_device device, void *stream, ra_array **out)
{
    static const char fn[] = "ra_to_device";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    *out = NULL;
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", fn);
    ra__dev *dst;
    int status = ra__ctx_require(ctx, device, fn, &dst);
    if (status != RA_OK) return status;
    if (x->layer) return x->layer->to_device(ctx, x, dst, device, stream, out);
    if (stream) {
        char buf[RA_DEVICE_STR_MAX];
        if (!dst->ops->check_stream)
            return ra__ctx_error(ctx, RA_E_STREAM,
                                 "%s: device '%s' has no streams; pass NULL for its default", fn,
                                 ra__device_str(device, buf));
        status = dst->ops->check_stream(dst->impl, stream);
        if (status != RA_OK)
            return ra__ctx_error(ctx, RA_E_STREAM, "%s: the stream is not one of device '%s'", fn,
                                 ra__device_str(device, buf));
    }
    status = ra__dtype_require(ctx, dst, x->dtype, fn);
    if (status != RA_OK) return status;
    /* Same device: the array itself (DEV-TODEV-6 allows either; arrays are immutable, so
     * sharing is unobservable except through identity). */
    if (dst == x->dev) {
        *out = ra_array_retain(x);
        return RA_OK;
    }
    return ra__array_copy_to(ctx, x, dst, stream, out);
}
