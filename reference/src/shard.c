/* shard.c: sharded arrays: shard, shard in place, move to a device tuple, gather, and the
 * elementwise operations, reductions and matmul on them (TG-SHARD-*, TG-EW-*, TG-RED-1,
 * TG-GATHER-*). Sharding is a layer over the core: a sharded array is a header (array.c)
 * that carries this file's table (shard_layer, at the end) and its ra__shard, one ordinary
 * array per device. The core reaches this file only through that table; every computation
 * on a piece is an ordinary public operation on its device. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* The pieces of a sharded array: the layer's data of its header (array.c). */
typedef struct ra__shard {
    size_t n;               /* pieces, >= 1 */
    int axis;               /* the split axis, or RA_SHARD_REPLICATED */
    ra_shard_uneven uneven; /* how it was cut; kept for re-splitting */
    ra_array *pieces[];     /* piece i on device i, each owned */
} ra__shard;

/* The layer's table (at the end of the file): every sharded array's header carries it. */
static const ra__layer_ops shard_layer;

/* x's pieces, or NULL when x (may be NULL) is not sharded. */
static ra__shard *shard_of(const ra_array *x)
{
    return x && x->layer == &shard_layer ? x->layer_data : NULL;
}

#define TUPLE_STR_MAX 256

/* "(gpu:0, gpu:1)" for messages; cut with "..." when long. */
static const char *tuple_str(const ra_device *devs, size_t n, char buf[TUPLE_STR_MAX])
{
    size_t o = 0;
    buf[o++] = '(';
    for (size_t i = 0; i < n; i++) {
        char d[RA_DEVICE_STR_MAX];
        int w =
            snprintf(buf + o, TUPLE_STR_MAX - o, "%s%s", i ? ", " : "", ra__device_str(devs[i], d));
        if (w < 0 || (size_t)w >= TUPLE_STR_MAX - o - 5) {
            snprintf(buf + o, TUPLE_STR_MAX - o, ", ...)");
            return buf;
        }
        o += (size_t)w;
    }
    snprintf(buf + o, TUPLE_STR_MAX - o, ")");
    return buf;
}

/* The tuple of a sharded array, for messages. */
static const char *shard_tuple_str(const ra__shard *s, char buf[TUPLE_STR_MAX])
{
    ra_device devs[16];
    size_t n = s->n < 16 ? s->n : 16;
    for (size_t i = 0; i < n; i++)
        devs[i] = s->pieces[i]->dev->device;
    tuple_str(devs, n, buf);
    if (s->n > n) snprintf(buf + strlen(buf) - 1, 8, ", ...)");
    return buf;
}

static const char *shape_str(const int64_t *shape, size_t ndim, char buf[160])
{
    size_t o = 0;
    buf[o++] = '(';
    buf[o] = 0;
    for (size_t i = 0; i < ndim && o < 130; i++)
        o += (size_t)snprintf(buf + o, 160 - o, "%s%lld", i ? ", " : "", (long long)shape[i]);
    snprintf(buf + o, 160 - o, ndim == 1 ? ",)" : ")");
    return buf;
}

static void shard_free(ra_ctx *ctx, void *data)
{
    ra__shard *s = data;
    if (!s) return;
    for (size_t i = 0; i < s->n; i++)
        ra_array_release(s->pieces[i]);
    ra__free(ctx, s);
}

static ra__shard *shard_alloc(ra_ctx *ctx, size_t n, int axis, ra_shard_uneven uneven)
{
    ra__shard *s = ra__calloc(ctx, 1, sizeof *s + n * sizeof s->pieces[0]);
    if (!s) {
        ra__ctx_error(ctx, RA_E_NOMEM, "shard: out of memory for the list of pieces");
        return NULL;
    }
    s->n = n;
    s->axis = axis;
    s->uneven = uneven;
    return s;
}

/* Marks each piece as one (arrays_on_device does not list them) and wraps them. */
static int shard_finish(ra_ctx *ctx, ra__shard *s, ra_dtype dtype, const int64_t *shape,
                        size_t ndim, ra_array **out)
{
    for (size_t i = 0; i < s->n; i++)
        s->pieces[i]->layer_piece = true;
    return ra__array_new_layered(ctx, &shard_layer, s, s->pieces[0]->dev, dtype, shape, ndim,
                                 "shard", out);
}

static int shard_refuse(ra_ctx *ctx, const ra_array *x, const char *what)
{
    char t[TUPLE_STR_MAX];
    return ra__ctx_error(ctx, RA_E_SHARDED,
                         "%s: x is sharded over %s; gather it onto one device first "
                         "(ra_to_device)",
                         what, shard_tuple_str(shard_of(x), t));
}

/* ---- the device tuple and the cut ---- */

/* Resolves and checks a device tuple: each available, none twice, dtype supported. */
static int tuple_resolve(ra_ctx *ctx, const char *fn, const ra_device *devices, size_t n,
                         ra_dtype dtype, ra__dev **devs)
{
    char t[TUPLE_STR_MAX], b[RA_DEVICE_STR_MAX];
    for (size_t i = 0; i < n; i++) {
        int status = ra__ctx_require(ctx, devices[i], fn, &devs[i]);
        if (status != RA_OK) return status;
        for (size_t j = 0; j < i; j++)
            if (devs[j] == devs[i])
                return ra__ctx_error(ctx, RA_E_ARG,
                                     "%s: device '%s' is listed twice in %s; a sharded array has "
                                     "one piece per device",
                                     fn, ra__device_str(devices[i], b), tuple_str(devices, n, t));
        status = ra__dtype_require(ctx, devs[i], dtype, fn);
        if (status != RA_OK) return status;
    }
    return RA_OK;
}

/* The lengths of the n pieces of an axis of length len (TG-SHARD-5, TG-SHARD-9). */
static int cut(ra_ctx *ctx, const char *fn, int64_t len, int axis, size_t n, ra_shard_uneven uneven,
               int64_t *lens)
{
    if (len % (int64_t)n != 0) {
        if (uneven == RA_SHARD_UNEVEN_REFUSE)
            return ra__ctx_error(ctx, RA_E_SHARD_UNEVEN,
                                 "%s: axis %d has length %lld, which %zu devices cannot share "
                                 "evenly (refarray refuses an uneven split; "
                                 "RA_SHARD_UNEVEN_CEIL cuts pieces of ceil(length / devices))",
                                 fn, axis, (long long)len, n);
    }
    int64_t size = (len + (int64_t)n - 1) / (int64_t)n, left = len;
    for (size_t i = 0; i < n; i++) {
        lens[i] = left < size ? left : size;
        left -= lens[i];
    }
    return RA_OK;
}

static int check_opts(ra_ctx *ctx, const char *fn, const ra_shard_opts *opts,
                      ra_shard_uneven *uneven)
{
    *uneven = RA_SHARD_UNEVEN_REFUSE;
    if (!opts) return RA_OK;
    int status =
        ra__size_check(ctx, opts, opts->size, offsetof(ra_shard_opts, uneven) + sizeof opts->uneven,
                       sizeof *opts, fn);
    if (status != RA_OK) return status;
    if (opts->uneven != RA_SHARD_UNEVEN_REFUSE && opts->uneven != RA_SHARD_UNEVEN_CEIL)
        return ra__ctx_error(ctx, RA_E_ARG, "%s: opts->uneven is %d, not a ra_shard_uneven", fn,
                             (int)opts->uneven);
    *uneven = opts->uneven;
    return RA_OK;
}

/* ---- moving bytes ---- */

/* x's bytes in host memory: x's own buffer on the host device (*owned NULL), else a staging
 * copy the caller frees (*owned). */
static int host_bytes(ra_ctx *ctx, const ra_array *x, const char **bytes, void **owned)
{
    *owned = NULL;
    *bytes = NULL;
    if (!x->nbytes) return RA_OK;
    if (RA__DEV_HOST_MEMORY(x->dev)) {
        *bytes = x->buf;
        return RA_OK;
    }
    void *h = ra__alloc(ctx, x->nbytes);
    if (!h) return ra__ctx_error(ctx, RA_E_NOMEM, "shard: out of memory for a staging buffer");
    int status = x->dev->ops->read(x->dev->impl, x->buf, 0, h, x->nbytes, NULL);
    if (status != RA_OK) {
        ra__free(ctx, h);
        return status;
    }
    *owned = h;
    *bytes = h;
    return RA_OK;
}

/* rows blocks of row bytes from src (pitch spitch) to dst (pitch dpitch), host memory. */
static void copy_rows(char *dst, size_t dpitch, const char *src, size_t spitch, size_t row,
                      size_t rows)
{
    if (dpitch == row && spitch == row) {
        memcpy(dst, src, row * rows);
        return;
    }
    for (size_t r = 0; r < rows; r++)
        memcpy(dst + r * dpitch, src + r * spitch, row);
}

/* A new array on dst holding x[..., start:start+count, ...] along axis (the whole of x when
 * axis is RA_SHARD_REPLICATED). x is unsharded. When x is on dst the device copies it;
 * otherwise the bytes go through host memory (directly from or into host buffers). */
static int slice_to(ra_ctx *ctx, const ra_array *x, int axis, int64_t start, int64_t count,
                    ra__dev *dst, ra_array **out)
{
    *out = NULL;
    if (axis == RA_SHARD_REPLICATED) return ra__array_copy_to(ctx, x, dst, NULL, out);
    int64_t shape[RA_MAX_NDIM];
    memcpy(shape, x->shape, x->ndim * sizeof *shape);
    shape[axis] = count;
    ra_array *y;
    int status = ra__array_new_uninit(ctx, dst, x->dtype, shape, x->ndim, &y);
    if (status != RA_OK) return status;
    if (!y->nbytes) {
        *out = y;
        return RA_OK;
    }
    size_t es = ra_dtype_size(x->dtype);
    size_t outer = (size_t)ra__shape_size(x->shape, (size_t)axis);
    size_t inner = (size_t)ra__shape_size(x->shape + axis + 1, x->ndim - (size_t)axis - 1) * es;
    size_t row = (size_t)count * inner, pitch = (size_t)x->shape[axis] * inner;
    size_t off = (size_t)start * inner;
    if (x->dev == dst && dst->ops->copy) {
        status = dst->ops->copy(dst->impl, y->buf, 0, row, x->buf, off, pitch, row, outer, NULL);
    } else if (outer == 1 && RA__DEV_HOST_MEMORY(x->dev)) {
        status = dst->ops->write(dst->impl, y->buf, 0, (const char *)x->buf + off, row, NULL);
    } else if (outer == 1 && RA__DEV_HOST_MEMORY(dst)) {
        status = x->dev->ops->read(x->dev->impl, x->buf, off, y->buf, row, NULL);
    } else {
        const char *src;
        void *owned, *stage = NULL;
        status = host_bytes(ctx, x, &src, &owned);
        if (status == RA_OK && RA__DEV_HOST_MEMORY(dst)) {
            copy_rows(y->buf, row, src + off, pitch, row, outer);
        } else if (status == RA_OK) {
            stage = ra__alloc(ctx, y->nbytes);
            if (!stage) {
                status = ra__ctx_error(ctx, RA_E_NOMEM, "shard: out of memory for staging");
            } else {
                copy_rows(stage, row, src + off, pitch, row, outer);
                status = dst->ops->write(dst->impl, y->buf, 0, stage, y->nbytes, NULL);
            }
        }
        ra__free(ctx, stage);
        ra__free(ctx, owned);
    }
    return ra__array_hand_out(status, y, out);
}

/* Where piece i of a split array starts along its axis. */
static int64_t piece_start(const ra__shard *s, size_t i)
{
    int64_t start = 0;
    for (size_t j = 0; j < i; j++)
        start += s->pieces[j]->shape[s->axis];
    return start;
}

/* Assembles sharded x into host memory dst (x->nbytes bytes). */
static int gather_host(ra_ctx *ctx, const ra_array *x, char *dst)
{
    const ra__shard *s = shard_of(x);
    if (s->axis == RA_SHARD_REPLICATED) {
        const ra_array *p = s->pieces[0];
        return p->nbytes ? p->dev->ops->read(p->dev->impl, p->buf, 0, dst, p->nbytes, NULL) : RA_OK;
    }
    size_t es = ra_dtype_size(x->dtype);
    size_t outer = (size_t)ra__shape_size(x->shape, (size_t)s->axis);
    size_t inner =
        (size_t)ra__shape_size(x->shape + s->axis + 1, x->ndim - (size_t)s->axis - 1) * es;
    size_t pitch = (size_t)x->shape[s->axis] * inner;
    int status = RA_OK;
    for (size_t i = 0, off = 0; i < s->n && status == RA_OK; i++) {
        const ra_array *p = s->pieces[i];
        size_t row = (size_t)p->shape[s->axis] * inner;
        if (p->nbytes && outer == 1) {
            status = p->dev->ops->read(p->dev->impl, p->buf, 0, dst + off, p->nbytes, NULL);
        } else if (p->nbytes) {
            const char *src;
            void *owned;
            status = host_bytes(ctx, p, &src, &owned);
            if (status == RA_OK) copy_rows(dst + off, pitch, src, row, row, outer);
            ra__free(ctx, owned);
        }
        off += row;
    }
    return status;
}

static int shard_read(ra_ctx *ctx, const ra_array *x, void *dst)
{
    return gather_host(ctx, x, dst);
}

static int shard_gather(ra_ctx *ctx, const ra_array *x, ra__dev *dst, ra_array **out)
{
    const ra__shard *s = shard_of(x);
    if (s->axis == RA_SHARD_REPLICATED) {
        /* TG-GATHER-1 for a replicated array: every piece is the whole; the one already on
         * the target saves a transfer. */
        const ra_array *p = s->pieces[0];
        for (size_t i = 0; i < s->n; i++)
            if (s->pieces[i]->dev == dst) p = s->pieces[i];
        return ra__array_copy_to(ctx, p, dst, NULL, out);
    }
    ra_array *y;
    int status = ra__array_new_uninit(ctx, dst, x->dtype, x->shape, x->ndim, &y);
    if (status != RA_OK) return status;
    if (!y->nbytes) {
        *out = y;
        return RA_OK;
    }
    size_t es = ra_dtype_size(x->dtype);
    size_t outer = (size_t)ra__shape_size(x->shape, (size_t)s->axis);
    size_t inner =
        (size_t)ra__shape_size(x->shape + s->axis + 1, x->ndim - (size_t)s->axis - 1) * es;
    size_t pitch = (size_t)x->shape[s->axis] * inner;
    if (RA__DEV_HOST_MEMORY(dst)) {
        status = gather_host(ctx, x, y->buf);
    } else if (outer == 1 || dst->ops->copy) {
        /* Each piece lands as one block (outer == 1) or as rows the device copies: pieces on
         * dst are copied there, the others written from host memory. */
        for (size_t i = 0, off = 0; i < s->n && status == RA_OK; i++) {
            const ra_array *p = s->pieces[i];
            size_t row = (size_t)p->shape[s->axis] * inner;
            if (!p->nbytes) continue;
            if (p->dev == dst && dst->ops->copy) {
                status =
                    dst->ops->copy(dst->impl, y->buf, off, pitch, p->buf, 0, row, row, outer, NULL);
            } else if (outer == 1) {
                const char *src;
                void *owned;
                status = host_bytes(ctx, p, &src, &owned);
                if (status == RA_OK)
                    status = dst->ops->write(dst->impl, y->buf, off, src, p->nbytes, NULL);
                ra__free(ctx, owned);
            } else {
                /* Rows of a piece from another device: onto dst first, then copied there. */
                ra_array *moved;
                status = ra__array_copy_to(ctx, p, dst, NULL, &moved);
                if (status == RA_OK) {
                    status = dst->ops->copy(dst->impl, y->buf, off, pitch, moved->buf, 0, row, row,
                                            outer, NULL);
                    ra_array_release(moved);
                }
            }
            off += row;
        }
    } else {
        char *stage = ra__alloc(ctx, y->nbytes);
        if (!stage) {
            status = ra__ctx_error(ctx, RA_E_NOMEM, "gather: out of memory for staging");
        } else {
            status = gather_host(ctx, x, stage);
            if (status == RA_OK) status = ra__array_write(ctx, y, stage);
        }
        ra__free(ctx, stage);
    }
    return ra__array_hand_out(status, y, out);
}

/* ra_to_device of a sharded array: gathered onto dst (TG-GATHER-1). */
static int shard_to_device(ra_ctx *ctx, const ra_array *x, ra__dev *dst, ra_device device,
                           void *stream, ra_array **out)
{
    static const char fn[] = "ra_to_device";
    char buf[RA_DEVICE_STR_MAX];
    if (stream)
        return ra__ctx_error(ctx, RA_E_STREAM,
                             "%s: gathering a sharded array onto '%s' uses the devices' "
                             "default queues; pass NULL as the stream",
                             fn, ra__device_str(device, buf));
    int status = ra__dtype_require(ctx, dst, x->dtype, fn);
    if (status != RA_OK) return status;
    return shard_gather(ctx, x, dst, out);
}

/* ---- shard, shard in place, to a tuple ---- */

/* The pieces of unsharded x over devs: cut along axis (RA_SHARD_REPLICATED: copies). */
static int make_pieces(ra_ctx *ctx, const char *fn, const ra_array *x, ra__dev **devs, size_t n,
                       int axis, ra_shard_uneven uneven, ra__shard **out)
{
    int64_t *lens = ra__calloc(ctx, n, sizeof *lens);
    if (!lens) return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    int status =
        axis == RA_SHARD_REPLICATED ? RA_OK : cut(ctx, fn, x->shape[axis], axis, n, uneven, lens);
    ra__shard *s = status == RA_OK ? shard_alloc(ctx, n, axis, uneven) : NULL;
    if (status == RA_OK && !s) status = RA_E_NOMEM;
    for (size_t i = 0, start = 0; status == RA_OK && i < n; i++) {
        status = slice_to(ctx, x, axis, (int64_t)start, lens[i], devs[i], &s->pieces[i]);
        start += (size_t)lens[i];
    }
    ra__free(ctx, lens);
    if (status != RA_OK) {
        shard_free(ctx, s);
        return status;
    }
    *out = s;
    return RA_OK;
}

/* The checks shared by ra_shard and ra_shard_inplace; *canon receives the axis. */
static int shard_check(ra_ctx *ctx, const char *fn, const ra_array *x, const ra_device *devices,
                       size_t n, const int *axis, const ra_shard_opts *opts,
                       ra_shard_uneven *uneven, int *canon)
{
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", fn);
    if (!devices) return ra__ctx_error(ctx, RA_E_NULL, "%s: devices is NULL", fn);
    if (n == 0) return ra__ctx_error(ctx, RA_E_ARG, "%s: the device tuple is empty", fn);
    if (shard_of(x)) {
        char t[TUPLE_STR_MAX];
        /* TG-SHARD-4. */
        return ra__ctx_error(ctx, RA_E_SHARDED,
                             "%s: x is already sharded over %s; a sharded array cannot be "
                             "sharded again (gather it with ra_to_device, or move it to "
                             "another tuple with ra_shard_to)",
                             fn, shard_tuple_str(shard_of(x), t));
    }
    if (x->layer_piece)
        return ra__ctx_error(ctx, RA_E_SHARDED, "%s: x is a piece of a sharded array", fn);
    int status = check_opts(ctx, fn, opts, uneven);
    if (status != RA_OK) return status;
    *canon = RA_SHARD_REPLICATED;
    if (axis) {
        int nd = (int)x->ndim;
        if (nd == 0)
            return ra__ctx_error(ctx, RA_E_AXIS,
                                 "%s: axis %d given for a 0-d array, which has no axis to split; "
                                 "shard it without an axis to replicate it",
                                 fn, *axis);
        if (*axis < -nd || *axis >= nd)
            return ra__ctx_error(ctx, RA_E_AXIS,
                                 "%s: axis %d is out of range for %d dimensions (valid: %d to %d)",
                                 fn, *axis, nd, -nd, nd - 1);
        *canon = *axis < 0 ? *axis + nd : *axis; /* TG-SHARD-2 */
    }
    return RA_OK;
}

/* The pieces of x split over devices (what ra_shard and ra_shard_inplace share): checks the
 * arguments, resolves the devices and copies the pieces; *s is set only on RA_OK. */
static int shard_pieces(ra_ctx *ctx, const char *fn, const ra_array *x, const ra_device *devices,
                        size_t n, const int *axis, const ra_shard_opts *opts, ra__shard **s)
{
    ra_shard_uneven uneven;
    int canon;
    int status = shard_check(ctx, fn, x, devices, n, axis, opts, &uneven, &canon);
    if (status != RA_OK) return status;
    ra__dev **devs = ra__calloc(ctx, n, sizeof *devs);
    if (!devs) return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    status = tuple_resolve(ctx, fn, devices, n, x->dtype, devs);
    if (status == RA_OK) status = make_pieces(ctx, fn, x, devs, n, canon, uneven, s);
    ra__free(ctx, devs);
    return status;
}

int ra_shard(ra_ctx *ctx, const ra_array *x, const ra_device *devices, size_t n, const int *axis,
             const ra_shard_opts *opts, ra_array **out)
{
    static const char fn[] = "ra_shard";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    *out = NULL;
    ra__shard *s = NULL;
    int status = shard_pieces(ctx, fn, x, devices, n, axis, opts, &s);
    if (status != RA_OK) return status;
    return shard_finish(ctx, s, x->dtype, x->shape, x->ndim, out);
}

int ra_shard_inplace(ra_ctx *ctx, ra_array *x, const ra_device *devices, size_t n, const int *axis,
                     const ra_shard_opts *opts)
{
    static const char fn[] = "ra_shard_inplace";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    ra__shard *s = NULL;
    int status = shard_pieces(ctx, fn, x, devices, n, axis, opts, &s);
    if (status != RA_OK) return status;
    /* Everything that can fail is done: x now becomes the sharded array (TG-SHARD-3). The
     * lock keeps arrays_on_device from seeing a half-changed header. */
    for (size_t i = 0; i < s->n; i++)
        s->pieces[i]->layer_piece = true;
    pthread_mutex_lock(&ctx->lock);
    ra__array_unshare(x);
    x->layer = &shard_layer;
    x->layer_data = s;
    x->dev = s->pieces[0]->dev;
    pthread_mutex_unlock(&ctx->lock);
    return RA_OK;
}

int ra_shard_to(ra_ctx *ctx, const ra_array *x, const ra_device *devices, size_t n, ra_array **out)
{
    static const char fn[] = "ra_shard_to";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    *out = NULL;
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", fn);
    if (!devices) return ra__ctx_error(ctx, RA_E_NULL, "%s: devices is NULL", fn);
    if (n == 0) return ra__ctx_error(ctx, RA_E_ARG, "%s: the device tuple is empty", fn);
    if (!shard_of(x)) return ra_shard(ctx, x, devices, n, NULL, NULL, out);
    const ra__shard *s = shard_of(x);
    ra__dev **devs = ra__calloc(ctx, n, sizeof *devs);
    if (!devs) return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    int status = tuple_resolve(ctx, fn, devices, n, x->dtype, devs);
    bool same = status == RA_OK && n == s->n;
    for (size_t i = 0; same && i < n; i++)
        same = devs[i] == s->pieces[i]->dev;
    if (status != RA_OK || same) {
        ra__free(ctx, devs);
        /* TG-GATHER-2: the target is the current tuple: the data is kept, no copy. */
        if (status == RA_OK) *out = ra_array_retain(x);
        return status;
    }
    /* Another tuple: gathered once on the host, then copied whole to every device of the new
     * tuple (replicated), as tinygrad 0.14's Tensor.to does with a multi-device tensor: the
     * split is not carried over, so no length is ever too short for the new tuple. */
    ra_array *whole = NULL;
    ra__shard *ns = NULL;
    status = shard_gather(ctx, x, ctx->host, &whole);
    if (status == RA_OK)
        status = make_pieces(ctx, fn, whole, devs, n, RA_SHARD_REPLICATED, s->uneven, &ns);
    ra_array_release(whole);
    ra__free(ctx, devs);
    if (status != RA_OK) return status;
    return shard_finish(ctx, ns, x->dtype, x->shape, x->ndim, out);
}

/* ---- getters ---- */

bool ra_array_is_sharded(const ra_array *x)
{
    return shard_of(x) != NULL;
}

size_t ra_shard_count(const ra_array *x)
{
    const ra__shard *s = shard_of(x);
    return s ? s->n : 0;
}

int ra_shard_axis(const ra_array *x)
{
    const ra__shard *s = shard_of(x);
    return s ? s->axis : RA_SHARD_REPLICATED;
}

ra_device ra_shard_device(const ra_array *x, size_t i)
{
    const ra__shard *s = shard_of(x);
    return s && i < s->n ? s->pieces[i]->dev->device : RA_NO_DEVICE;
}

const ra_array *ra_shard_piece(const ra_array *x, size_t i)
{
    const ra__shard *s = shard_of(x);
    return s && i < s->n ? s->pieces[i] : NULL;
}

int ra_shard_bounds(const ra_array *x, size_t i, int64_t *start, int64_t *end)
{
    static const char fn[] = "ra_shard_bounds";
    if (!x || !start || !end)
        return ra__ctx_error(x ? x->ctx : NULL, RA_E_NULL, "%s: x, start or end is NULL", fn);
    const ra__shard *s = shard_of(x);
    if (!s) return ra__ctx_error(x->ctx, RA_E_ARG, "%s: x is not sharded", fn);
    if (s->axis == RA_SHARD_REPLICATED)
        return ra__ctx_error(x->ctx, RA_E_ARG,
                             "%s: x is replicated (no axis), so its pieces have no bounds", fn);
    if (i >= s->n) return ra__ctx_error(x->ctx, RA_E_ARG, "%s: piece %zu of %zu", fn, i, s->n);
    /* TG-SHARD-6: running sums of the piece lengths from 0. */
    *start = piece_start(s, i);
    *end = *start + s->pieces[i]->shape[s->axis];
    return RA_OK;
}

/* ---- operations ---- */

/* Computing the pieces must not move them: soft device mode is switched off for the
 * calling thread while they run (a pushed `false`, popped afterwards). */
static int soft_off(ra_ctx *ctx, bool *pushed)
{
    *pushed = false;
    if (!ra_soft_get(ctx)) return RA_OK;
    int status = ra_soft_set(ctx, false);
    if (status == RA_OK) *pushed = true;
    return status;
}

static void soft_restore(ra_ctx *ctx, bool pushed)
{
    if (pushed) ra_soft_unset(ctx);
}

static bool same_tuple(const ra__shard *a, const ra__shard *b)
{
    if (a->n != b->n) return false;
    for (size_t i = 0; i < a->n; i++)
        if (a->pieces[i]->dev != b->pieces[i]->dev) return false;
    return true;
}

/* The n pieces of an operand brought to the result's shared axis `axis` (in result
 * coordinates, ondim axes; RA_SHARD_REPLICATED: no split), cut as ref's pieces are.
 * pieces[i] receives a new reference. */
static int align_operand(ra_ctx *ctx, const char *fn, const ra_array *x, size_t ondim, int axis,
                         const ra__shard *ref, ra_array **pieces)
{
    const ra__shard *s = shard_of(x);
    int lead = (int)(ondim - x->ndim);
    int xaxis = s->axis == RA_SHARD_REPLICATED ? RA_SHARD_REPLICATED : s->axis + lead;
    int status = RA_OK;
    if (xaxis == axis) {
        /* Already split along the shared axis (or both replicated). */
        for (size_t i = 0; i < s->n; i++)
            pieces[i] = ra_array_retain(s->pieces[i]);
        return RA_OK;
    }
    int own = axis - lead; /* the shared axis among x's own axes */
    bool broadcast = own < 0 || x->shape[own] == 1;
    if (s->axis == RA_SHARD_REPLICATED) {
        /* TG-EW-2: a replicated operand is cut along the shared axis on each device, unless it
         * is broadcast along it (then each device uses its whole copy). */
        for (size_t i = 0; i < s->n && status == RA_OK; i++) {
            if (broadcast)
                pieces[i] = ra_array_retain(s->pieces[i]);
            else
                status = slice_to(ctx, s->pieces[i], own, piece_start(ref, i),
                                  ref->pieces[i]->shape[axis - (int)(ondim - ref->pieces[i]->ndim)],
                                  s->pieces[i]->dev, &pieces[i]);
        }
    } else {
        /* TG-EW-2: split along another axis: gathered and split again along the shared one
         * (or copied whole to every device where it is broadcast along it). */
        ra_array *whole = NULL;
        status = shard_gather(ctx, x, ctx->host, &whole);
        for (size_t i = 0; i < s->n && status == RA_OK; i++) {
            if (broadcast)
                status = ra__array_copy_to(ctx, whole, s->pieces[i]->dev, NULL, &pieces[i]);
            else
                status = slice_to(ctx, whole, own, piece_start(ref, i),
                                  ref->pieces[i]->shape[axis - (int)(ondim - ref->pieces[i]->ndim)],
                                  s->pieces[i]->dev, &pieces[i]);
        }
        ra_array_release(whole);
    }
    (void)fn;
    return status;
}

/* TG-EW-1: every array operand of a[2] (NULL for a scalar) sharded over the same tuple; what
 * names the operation in the message. */
static int one_tuple(ra_ctx *ctx, const char *fn, const ra_array *const a[2], const char *what)
{
    char t1[TUPLE_STR_MAX], t2[TUPLE_STR_MAX], b[RA_DEVICE_STR_MAX];
    for (int k = 0; k < 2; k++)
        if (a[k] && !shard_of(a[k]))
            return ra__ctx_error(ctx, RA_E_DEVICE_MISMATCH,
                                 "%s: x%d is sharded over %s and x%d is on the single device "
                                 "'%s'; shard x%d over the same devices (ra_shard) or gather x%d "
                                 "(ra_to_device)",
                                 fn, 2 - k, shard_tuple_str(shard_of(a[1 - k]), t1), k + 1,
                                 ra__device_str(a[k]->dev->device, b), k + 1, 2 - k);
    if (a[0] && a[1] && !same_tuple(shard_of(a[0]), shard_of(a[1])))
        return ra__ctx_error(ctx, RA_E_DEVICE_MISMATCH,
                             "%s: x1 is sharded over %s and x2 over %s; %s needs one device "
                             "tuple (move one with ra_shard_to)",
                             fn, shard_tuple_str(shard_of(a[0]), t1),
                             shard_tuple_str(shard_of(a[1]), t2), what);
    return RA_OK;
}

static int shard_binary(ra_ctx *ctx, ra_binop op, ra_operand x1, ra_operand x2, ra_array **out)
{
    const char *fn = ra_binop_name(op);
    const ra_array *a[2] = {x1.array, x2.array};
    int status = one_tuple(ctx, fn, a, "an elementwise operation");
    if (status != RA_OK) return status;
    const ra__shard *s0 = shard_of(a[0] ? a[0] : a[1]);
    size_t n = s0->n;
    /* The result's shape (broadcasting) and the shared axis in its coordinates: the last
     * distinct split axis in operand order (TG-EW-2). */
    int64_t oshape[RA_MAX_NDIM];
    size_t ondim = 0;
    for (int k = 0; k < 2; k++)
        if (a[k] && a[k]->ndim > ondim) ondim = a[k]->ndim;
    for (size_t d = 0; d < ondim; d++) {
        int64_t e = 1;
        for (int k = 0; k < 2; k++) {
            if (!a[k] || d < ondim - a[k]->ndim) continue;
            int64_t v = a[k]->shape[d - (ondim - a[k]->ndim)];
            if (v != 1 && e != 1 && v != e) {
                char s1[160], s2[160];
                return ra__ctx_error(
                    ctx, RA_E_BROADCAST, "%s: shapes %s and %s cannot be broadcast together", fn,
                    shape_str(a[0]->shape, a[0]->ndim, s1), shape_str(a[1]->shape, a[1]->ndim, s2));
            }
            if (v != 1) e = v;
        }
        oshape[d] = e;
    }
    int axis = RA_SHARD_REPLICATED;
    const ra__shard *ref = NULL;
    for (int k = 0; k < 2; k++) {
        if (!a[k] || shard_of(a[k])->axis == RA_SHARD_REPLICATED) continue;
        int ax = shard_of(a[k])->axis + (int)(ondim - a[k]->ndim);
        if (a[k]->shape[shard_of(a[k])->axis] != oshape[ax]) {
            char s1[160];
            return ra__ctx_error(ctx, RA_E_BROADCAST,
                                 "%s: x%d is split along axis %d of length %lld, which the "
                                 "result %s broadcasts; a split axis cannot be broadcast",
                                 fn, k + 1, shard_of(a[k])->axis,
                                 (long long)a[k]->shape[shard_of(a[k])->axis],
                                 shape_str(oshape, ondim, s1));
        }
        if (ax != axis) {
            axis = ax;
            ref = shard_of(a[k]);
        }
    }
    if (ref && axis == RA_SHARD_REPLICATED) ref = NULL;
    ra_array **p[2] = {NULL, NULL};
    ra__shard *r = NULL;
    bool pushed = false;
    for (int k = 0; k < 2 && status == RA_OK; k++)
        if (a[k] && !(p[k] = ra__calloc(ctx, n, sizeof *p[k])))
            status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    if (status == RA_OK) r = shard_alloc(ctx, n, axis, ref ? ref->uneven : s0->uneven);
    if (status == RA_OK && !r) status = RA_E_NOMEM;
    for (int k = 0; k < 2 && status == RA_OK; k++)
        if (a[k]) status = align_operand(ctx, fn, a[k], ondim, axis, ref, p[k]);
    if (status == RA_OK) status = soft_off(ctx, &pushed);
    /* TG-EW-3: piece i on device i from piece i of each operand. */
    for (size_t i = 0; i < n && status == RA_OK; i++) {
        ra_operand o1 = p[0] ? ra_operand_array(p[0][i]) : x1;
        ra_operand o2 = p[1] ? ra_operand_array(p[1][i]) : x2;
        status = ra_binary(ctx, op, o1, o2, &r->pieces[i]);
    }
    soft_restore(ctx, pushed);
    for (int k = 0; k < 2; k++) {
        if (!p[k]) continue;
        for (size_t i = 0; i < n; i++)
            ra_array_release(p[k][i]);
        ra__free(ctx, p[k]);
    }
    if (status != RA_OK) {
        shard_free(ctx, r);
        return status;
    }
    return shard_finish(ctx, r, r->pieces[0]->dtype, oshape, ondim, out);
}

static int shard_unary(ra_ctx *ctx, ra_unop op, const ra_array *x, ra_array **out)
{
    const ra__shard *s = shard_of(x);
    ra__shard *r = shard_alloc(ctx, s->n, s->axis, s->uneven);
    if (!r) return RA_E_NOMEM;
    bool pushed;
    int status = soft_off(ctx, &pushed);
    for (size_t i = 0; i < s->n && status == RA_OK; i++)
        status = ra_unary(ctx, op, s->pieces[i], &r->pieces[i]);
    soft_restore(ctx, pushed);
    if (status != RA_OK) {
        shard_free(ctx, r);
        return status;
    }
    return shard_finish(ctx, r, r->pieces[0]->dtype, x->shape, x->ndim, out);
}

/* The partial results of a reduction over the split axis (partial[i] on piece i's device,
 * NULL for a piece that takes no part) meet on the tuple's first device and are combined there
 * with op (added for a sum, the maximum for max); the total is then copied to every other
 * device, so r's pieces hold it replicated, as after an all-reduce (TG-RED-1). */
static int combine_partials(ra_ctx *ctx, ra_binop op, ra_array **partial, const ra__shard *s,
                            ra__shard *r)
{
    ra__dev *first = s->pieces[0]->dev;
    ra_array *total = NULL;
    int status = RA_OK;
    for (size_t i = 0; i < s->n && status == RA_OK; i++) {
        if (!partial[i]) continue;
        ra_array *here = NULL, *next = NULL;
        status = ra__array_copy_to(ctx, partial[i], first, NULL, &here);
        if (status == RA_OK && !total) {
            total = here;
            continue;
        }
        if (status == RA_OK)
            status = ra_binary(ctx, op, ra_operand_array(total), ra_operand_array(here), &next);
        ra_array_release(here);
        ra_array_release(total);
        total = next;
    }
    for (size_t i = 0; i < s->n && status == RA_OK; i++)
        status = i == 0 ? (r->pieces[0] = ra_array_retain(total), RA_OK)
                        : ra__array_copy_to(ctx, total, s->pieces[i]->dev, NULL, &r->pieces[i]);
    ra_array_release(total);
    return status;
}

static int shard_reduce(ra_ctx *ctx, ra_reduceop op, const ra_array *x, const int *axis,
                        ra_array **out)
{
    const char *fn = ra_reduceop_name(op);
    const ra__shard *s = shard_of(x);
    int nd = (int)x->ndim, a = 0;
    if (axis) {
        if (nd == 0 || *axis < -nd || *axis >= nd)
            return ra__ctx_error(ctx, RA_E_AXIS, "%s: axis %d is out of range for %d dimensions",
                                 fn, *axis, nd);
        a = *axis < 0 ? *axis + nd : *axis;
    }
    int64_t oshape[RA_MAX_NDIM];
    size_t ondim = 0;
    if (axis)
        for (int i = 0; i < nd; i++)
            if (i != a) oshape[ondim++] = x->shape[i];
    bool split = s->axis != RA_SHARD_REPLICATED;
    /* TG-RED-1: a reduction over the split axis needs the partial results combined. */
    bool combine = split && (!axis || a == s->axis);
    if (op == RA_MAX && combine) {
        /* max has no identity: an empty whole is the unsharded error, and empty pieces take
         * no part in the combination. */
        int64_t len = axis ? x->shape[a] : x->size;
        if (len == 0)
            return ra__ctx_error(ctx, RA_E_EMPTY_REDUCTION,
                                 "%s: the reduced axis is empty and max has no identity", fn);
    }
    int raxis = !split    ? RA_SHARD_REPLICATED
                : combine ? RA_SHARD_REPLICATED
                          : s->axis - (axis && a < s->axis ? 1 : 0);
    ra__shard *r = shard_alloc(ctx, s->n, raxis, s->uneven);
    if (!r) return RA_E_NOMEM;
    ra_array **partial = ra__calloc(ctx, s->n, sizeof *partial);
    bool pushed = false;
    int status = partial ? RA_OK : ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    if (status == RA_OK) status = soft_off(ctx, &pushed);
    /* Each piece reduces on its own device. */
    for (size_t i = 0; i < s->n && status == RA_OK; i++) {
        const ra_array *p = s->pieces[i];
        if (op == RA_MAX && combine && p->size == 0) continue;
        status = ra_reduce(ctx, op, p, axis, &partial[i]);
    }
    if (status == RA_OK && !combine) {
        for (size_t i = 0; i < s->n; i++) {
            r->pieces[i] = partial[i];
            partial[i] = NULL;
        }
    } else if (status == RA_OK) {
        status = combine_partials(ctx, op == RA_SUM ? RA_ADD : RA_MAXIMUM, partial, s, r);
    }
    soft_restore(ctx, pushed);
    if (partial)
        for (size_t i = 0; i < s->n; i++)
            ra_array_release(partial[i]);
    ra__free(ctx, partial);
    if (status != RA_OK) {
        shard_free(ctx, r);
        return status;
    }
    return shard_finish(ctx, r, r->pieces[0]->dtype, oshape, ondim, out);
}

/* ---- matmul ---- */

/* matmul of sharded operands is read as tinygrad computes it: x1 @ x2 is the elementwise
 * product of x1 viewed as (..., n, 1, k) and x2 transposed, viewed as (..., 1, m, k), summed
 * over k. The operands' split axes are placed in that product's axes (the batch axes, n, m,
 * then k) and the elementwise rule chooses the shared one, the last distinct split axis in
 * operand order (TG-EW-2); the sum over k then follows TG-RED-1. So piece i is
 * x1's piece i @ x2's piece i on device i, the operands cut along the shared axis: split
 * along a batch axis, n or m, the result keeps that split; split along k, each device holds
 * a partial product and the partials are added and replicated, as an all-reduce leaves
 * them. Neither split: every device multiplies its whole copies and the result is
 * replicated. */

enum { ROLE_NONE = -1 };

/* The product axis of operand k's split axis: a batch axis (0 .. nb-1, result batch
 * coordinates), nb for n, nb + 1 for m, nb + 2 for k; ROLE_NONE when replicated. */
static int matmul_role(const ra_array *x, int operand, size_t nb)
{
    int a = shard_of(x)->axis, nd = (int)x->ndim;
    if (a == RA_SHARD_REPLICATED) return ROLE_NONE;
    if (nd == 1) return (int)nb + 2;
    if (operand == 0) {
        if (a == nd - 1) return (int)nb + 2;
        if (a == nd - 2) return (int)nb;
    } else {
        if (a == nd - 2) return (int)nb + 2;
        if (a == nd - 1) return (int)nb + 1;
    }
    return a + (int)nb - (nd - 2);
}

/* Operand k's own axis for the product axis role; -1 where the operand has none (a batch
 * axis it lacks, or m for x1 and n for x2). */
static int matmul_own_axis(const ra_array *x, int operand, size_t nb, int role)
{
    int nd = (int)x->ndim;
    if (role == (int)nb + 2) return nd == 1 ? 0 : operand == 0 ? nd - 1 : nd - 2;
    if (nd == 1) return -1;
    if (role == (int)nb) return operand == 0 ? nd - 2 : -1;
    if (role == (int)nb + 1) return operand == 1 ? nd - 1 : -1;
    int own = role - ((int)nb - (nd - 2));
    return own >= 0 && own < nd - 2 ? own : -1;
}

/* The n pieces of operand x for device i, cut along its own axis `own` as ref's pieces are
 * cut along theirs, or whole on every device when own is -1 or x is broadcast there (its
 * length is not the product axis's length len). pieces[i] receives a new reference. */
static int matmul_operand(ra_ctx *ctx, const ra_array *x, int own, int64_t len,
                          const ra__shard *ref, ra_array **pieces)
{
    const ra__shard *s = shard_of(x);
    bool whole = own < 0 || x->shape[own] != len;
    if (!whole && s->axis == own) {
        for (size_t i = 0; i < s->n; i++)
            pieces[i] = ra_array_retain(s->pieces[i]);
        return RA_OK;
    }
    if (whole && s->axis == RA_SHARD_REPLICATED) {
        for (size_t i = 0; i < s->n; i++)
            pieces[i] = ra_array_retain(s->pieces[i]);
        return RA_OK;
    }
    /* A replicated operand is cut on each device from its own copy; a split one is gathered
     * once and then copied (whole) or cut for each device. */
    ra_array *gathered = NULL;
    int status = RA_OK;
    if (s->axis != RA_SHARD_REPLICATED) status = shard_gather(ctx, x, ctx->host, &gathered);
    for (size_t i = 0; i < s->n && status == RA_OK; i++) {
        const ra_array *src = gathered ? gathered : s->pieces[i];
        if (whole)
            status = ra__array_copy_to(ctx, src, s->pieces[i]->dev, NULL, &pieces[i]);
        else
            status = slice_to(ctx, src, own, piece_start(ref, i), ref->pieces[i]->shape[ref->axis],
                              s->pieces[i]->dev, &pieces[i]);
    }
    ra_array_release(gathered);
    return status;
}

/* matmul's logical shapes, checked as the unsharded matmul checks them: the inner size k, the
 * batch axes nb and the result's shape. */
static int matmul_shape(ra_ctx *ctx, const char *fn, const ra_array *x1, const ra_array *x2,
                        int64_t *k, size_t *nbatch, int64_t *oshape, size_t *ondim)
{
    int64_t k1 = x1->shape[x1->ndim - 1];
    int64_t k2 = x2->ndim == 1 ? x2->shape[0] : x2->shape[x2->ndim - 2];
    if (k1 != k2)
        return ra__ctx_error(ctx, RA_E_SHAPE, "%s: the inner sizes differ (%lld and %lld)", fn,
                             (long long)k1, (long long)k2);
    size_t nb1 = x1->ndim > 2 ? x1->ndim - 2 : 0, nb2 = x2->ndim > 2 ? x2->ndim - 2 : 0;
    size_t nb = nb1 > nb2 ? nb1 : nb2;
    size_t nd = 0;
    for (size_t d = 0; d < nb; d++) {
        int64_t e1 = d < nb - nb1 ? 1 : x1->shape[d - (nb - nb1)];
        int64_t e2 = d < nb - nb2 ? 1 : x2->shape[d - (nb - nb2)];
        if (e1 != e2 && e1 != 1 && e2 != 1) {
            char s1[160], s2[160];
            return ra__ctx_error(ctx, RA_E_BROADCAST,
                                 "%s: the batch shapes of %s and %s cannot be broadcast together",
                                 fn, shape_str(x1->shape, x1->ndim, s1),
                                 shape_str(x2->shape, x2->ndim, s2));
        }
        oshape[nd++] = e1 == 1 ? e2 : e1;
    }
    if (x1->ndim > 1) oshape[nd++] = x1->shape[x1->ndim - 2];
    if (x2->ndim > 1) oshape[nd++] = x2->shape[x2->ndim - 1];
    *k = k1;
    *nbatch = nb;
    *ondim = nd;
    return RA_OK;
}

static int shard_matmul(ra_ctx *ctx, const ra_array *x1, const ra_array *x2, ra_array **out)
{
    static const char fn[] = "matmul";
    const ra_array *a[2] = {x1, x2};
    int64_t k1 = 0, oshape[RA_MAX_NDIM];
    size_t nb = 0, ondim = 0;
    int status = one_tuple(ctx, fn, a, "matmul");
    if (status == RA_OK) status = matmul_shape(ctx, fn, x1, x2, &k1, &nb, oshape, &ondim);
    if (status != RA_OK) return status;
    /* The shared product axis: the last distinct split axis in operand order (TG-EW-2). */
    int role = ROLE_NONE;
    const ra__shard *ref = NULL;
    for (int k = 0; k < 2; k++) {
        int r = matmul_role(a[k], k, nb);
        if (r == ROLE_NONE) continue;
        if (r < (int)nb && a[k]->shape[shard_of(a[k])->axis] != oshape[r]) {
            char s1[160];
            return ra__ctx_error(ctx, RA_E_BROADCAST,
                                 "%s: x%d is split along axis %d of length %lld, which the "
                                 "result %s broadcasts; a split axis cannot be broadcast",
                                 fn, k + 1, shard_of(a[k])->axis,
                                 (long long)a[k]->shape[shard_of(a[k])->axis],
                                 shape_str(oshape, ondim, s1));
        }
        role = r;
        ref = shard_of(a[k]);
    }
    bool contract = role == (int)nb + 2;
    int raxis = role == ROLE_NONE || contract ? RA_SHARD_REPLICATED
                : role < (int)nb              ? role
                : role == (int)nb             ? (int)nb
                                              : (int)nb + (x1->ndim > 1 ? 1 : 0);
    size_t n = shard_of(x1)->n;
    ra_array **p[2] = {NULL, NULL}, **partial = NULL;
    ra__shard *r = shard_alloc(ctx, n, raxis, ref ? ref->uneven : shard_of(x1)->uneven);
    bool pushed = false;
    status = r ? RA_OK : RA_E_NOMEM;
    for (int k = 0; k < 2 && status == RA_OK; k++)
        if (!(p[k] = ra__calloc(ctx, n, sizeof *p[k])))
            status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    if (status == RA_OK && !(partial = ra__calloc(ctx, n, sizeof *partial)))
        status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    int64_t len = role == ROLE_NONE ? 0 : contract ? k1 : oshape[raxis];
    for (int k = 0; k < 2 && status == RA_OK; k++)
        status = matmul_operand(
            ctx, a[k], role == ROLE_NONE ? -1 : matmul_own_axis(a[k], k, nb, role), len, ref, p[k]);
    if (status == RA_OK) status = soft_off(ctx, &pushed);
    /* Piece i on device i. */
    for (size_t i = 0; i < n && status == RA_OK; i++)
        status = ra_matmul(ctx, p[0][i], p[1][i], &partial[i]);
    if (status == RA_OK && contract) {
        status = combine_partials(ctx, RA_ADD, partial, shard_of(x1), r);
    } else if (status == RA_OK) {
        for (size_t i = 0; i < n; i++) {
            r->pieces[i] = partial[i];
            partial[i] = NULL;
        }
    }
    soft_restore(ctx, pushed);
    for (int k = 0; k < 2; k++) {
        if (!p[k]) continue;
        for (size_t i = 0; i < n; i++)
            ra_array_release(p[k][i]);
        ra__free(ctx, p[k]);
    }
    if (partial)
        for (size_t i = 0; i < n; i++)
            ra_array_release(partial[i]);
    ra__free(ctx, partial);
    if (status != RA_OK) {
        shard_free(ctx, r);
        return status;
    }
    return shard_finish(ctx, r, r->pieces[0]->dtype, oshape, ondim, out);
}

/* ---- the layer ---- */

static const ra__layer_ops shard_layer = {
    .binary = shard_binary,
    .unary = shard_unary,
    .reduce = shard_reduce,
    .matmul = shard_matmul,
    .to_device = shard_to_device,
    .read = shard_read,
    .refuse = shard_refuse,
    .free = shard_free,
};
