/* shard.c: sharded arrays: shard, shard in place, move to a device tuple, gather (TG-SHARD-*,
 * TG-GATHER-*); the elementwise operations, reductions and matmul on them are shard_ops.c.
 * Sharding is a layer over the core: a sharded array is a header (array.c) that carries this
 * layer's table (ra__shard_layer, shard_ops.c, which the context holds from its creation) and
 * its ra__shard, one ordinary array per device. The core reaches the layer only through that
 * table; every computation on a piece is an ordinary public operation on its device. This
 * file names nothing of shard_ops.c: it knows its arrays by the table's kind and makes them
 * with the context's table. */
#include "shard_internal.h"

#include <stdio.h>
#include <string.h>

/* x's pieces, or NULL when x (may be NULL) is not sharded. */
ra__shard *ra__shard_of(const ra_array *x)
{
    return x && x->layer && x->layer->kind == RA__LAYER_SHARD ? x->layer_data : NULL;
}

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
const char *ra__shard_tuple_str(const ra__shard *s, char buf[TUPLE_STR_MAX])
{
    ra_device devs[16];
    size_t n = s->n < 16 ? s->n : 16;
    for (size_t i = 0; i < n; i++)
        devs[i] = s->pieces[i]->dev->device;
    tuple_str(devs, n, buf);
    if (s->n > n) snprintf(buf + strlen(buf) - 1, 8, ", ...)");
    return buf;
}

void ra__shard_free(ra_ctx *ctx, void *data)
{
    ra__shard *s = data;
    if (!s) return;
    for (size_t i = 0; i < s->n; i++)
        ra_array_release(s->pieces[i]);
    ra__free(ctx, s);
}

ra__shard *ra__shard_alloc(ra_ctx *ctx, size_t n, int axis, ra_shard_uneven uneven)
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

/* Marks x as a piece, which arrays_on_device no longer lists (live.c). */
static void piece_unlist(ra_array *x)
{
    atomic_store_explicit(&x->listed_on, NULL, memory_order_relaxed);
    x->layer_piece = true;
}

/* Marks each piece as one (arrays_on_device does not list them) and wraps them. */
int ra__shard_finish(ra_ctx *ctx, ra__shard *s, ra_dtype dtype, const int64_t *shape, size_t ndim,
                     ra_array **out)
{
    for (size_t i = 0; i < s->n; i++)
        piece_unlist(s->pieces[i]);
    return ra__array_new_layered(ctx, ctx->shard_layer, s, s->pieces[0]->dev, dtype, shape, ndim,
                                 "shard", out);
}

int ra__shard_refuse(ra_ctx *ctx, const ra_array *x, const char *what)
{
    char t[TUPLE_STR_MAX];
    return ra__ctx_error(ctx, RA_E_SHARDED,
                         "%s: x is sharded over %s; gather it onto one device first "
                         "(ra_to_device)",
                         what, ra__shard_tuple_str(ra__shard_of(x), t));
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
int ra__slice_to(ra_ctx *ctx, const ra_array *x, int axis, int64_t start, int64_t count,
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
int64_t ra__piece_start(const ra__shard *s, size_t i)
{
    int64_t start = 0;
    for (size_t j = 0; j < i; j++)
        start += s->pieces[j]->shape[s->axis];
    return start;
}

/* Assembles sharded x into host memory dst (x->nbytes bytes). */
static int gather_host(ra_ctx *ctx, const ra_array *x, char *dst)
{
    const ra__shard *s = ra__shard_of(x);
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

int ra__shard_read(ra_ctx *ctx, const ra_array *x, void *dst)
{
    return gather_host(ctx, x, dst);
}

int ra__shard_gather(ra_ctx *ctx, const ra_array *x, ra__dev *dst, ra_array **out)
{
    const ra__shard *s = ra__shard_of(x);
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
int ra__shard_to_device(ra_ctx *ctx, const ra_array *x, ra__dev *dst, ra_device device,
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
    return ra__shard_gather(ctx, x, dst, out);
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
    ra__shard *s = status == RA_OK ? ra__shard_alloc(ctx, n, axis, uneven) : NULL;
    if (status == RA_OK && !s) status = RA_E_NOMEM;
    for (size_t i = 0, start = 0; status == RA_OK && i < n; i++) {
        status = ra__slice_to(ctx, x, axis, (int64_t)start, lens[i], devs[i], &s->pieces[i]);
        start += (size_t)lens[i];
    }
    ra__free(ctx, lens);
    if (status != RA_OK) {
        ra__shard_free(ctx, s);
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
    if (ra__shard_of(x)) {
        char t[TUPLE_STR_MAX];
        /* TG-SHARD-4. */
        return ra__ctx_error(ctx, RA_E_SHARDED,
                             "%s: x is already sharded over %s; a sharded array cannot be "
                             "sharded again (gather it with ra_to_device, or move it to "
                             "another tuple with ra_shard_to)",
                             fn, ra__shard_tuple_str(ra__shard_of(x), t));
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
    return ra__shard_finish(ctx, s, x->dtype, x->shape, x->ndim, out);
}

int ra_shard_inplace(ra_ctx *ctx, ra_array *x, const ra_device *devices, size_t n, const int *axis,
                     const ra_shard_opts *opts)
{
    static const char fn[] = "ra_shard_inplace";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    ra__shard *s = NULL;
    int status = shard_pieces(ctx, fn, x, devices, n, axis, opts, &s);
    if (status != RA_OK) return status;
    /* Everything that can fail is done: x now becomes the sharded array (TG-SHARD-3). It
     * leaves arrays_on_device's answers first; the listing reads no other member (live.c). */
    for (size_t i = 0; i < s->n; i++)
        piece_unlist(s->pieces[i]);
    atomic_store_explicit(&x->listed_on, NULL, memory_order_relaxed);
    ra__array_unshare(x);
    x->layer = ctx->shard_layer;
    x->layer_data = s;
    x->dev = s->pieces[0]->dev;
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
    if (!ra__shard_of(x)) return ra_shard(ctx, x, devices, n, NULL, NULL, out);
    const ra__shard *s = ra__shard_of(x);
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
    status = ra__shard_gather(ctx, x, ctx->host, &whole);
    if (status == RA_OK)
        status = make_pieces(ctx, fn, whole, devs, n, RA_SHARD_REPLICATED, s->uneven, &ns);
    ra_array_release(whole);
    ra__free(ctx, devs);
    if (status != RA_OK) return status;
    return ra__shard_finish(ctx, ns, x->dtype, x->shape, x->ndim, out);
}

/* ---- getters ---- */

bool ra_array_is_sharded(const ra_array *x)
{
    return ra__shard_of(x) != NULL;
}

size_t ra_shard_count(const ra_array *x)
{
    const ra__shard *s = ra__shard_of(x);
    return s ? s->n : 0;
}

int ra_shard_axis(const ra_array *x)
{
    const ra__shard *s = ra__shard_of(x);
    return s ? s->axis : RA_SHARD_REPLICATED;
}

ra_device ra_shard_device(const ra_array *x, size_t i)
{
    const ra__shard *s = ra__shard_of(x);
    return s && i < s->n ? s->pieces[i]->dev->device : RA_NO_DEVICE;
}

const ra_array *ra_shard_piece(const ra_array *x, size_t i)
{
    const ra__shard *s = ra__shard_of(x);
    return s && i < s->n ? s->pieces[i] : NULL;
}

int ra_shard_bounds(const ra_array *x, size_t i, int64_t *start, int64_t *end)
{
    static const char fn[] = "ra_shard_bounds";
    if (!x || !start || !end)
        return ra__ctx_error(x ? x->ctx : NULL, RA_E_NULL, "%s: x, start or end is NULL", fn);
    const ra__shard *s = ra__shard_of(x);
    if (!s) return ra__ctx_error(x->ctx, RA_E_ARG, "%s: x is not sharded", fn);
    if (s->axis == RA_SHARD_REPLICATED)
        return ra__ctx_error(x->ctx, RA_E_ARG,
                             "%s: x is replicated (no axis), so its pieces have no bounds", fn);
    if (i >= s->n) return ra__ctx_error(x->ctx, RA_E_ARG, "%s: piece %zu of %zu", fn, i, s->n);
    /* TG-SHARD-6: running sums of the piece lengths from 0. */
    *start = ra__piece_start(s, i);
    *end = *start + s->pieces[i]->shape[s->axis];
    return RA_OK;
}
