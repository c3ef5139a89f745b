/*
 * backend_opencl.c: the ops table of backend.h for OpenCL devices (gpu:N).
 *
 * Synchronisation: every slot is complete when it returns. Kernels, fills and copies are
 * enqueued on the device's in-order default queue and the slot waits with clFinish, so an
 * error a driver reports only at execution (out of memory on first touch) belongs to the
 * call that caused it. Reads and writes are blocking. With a caller's stream, write, read
 * and copy first finish the default queue (so the caller's queue sees every earlier
 * operation's results) and then run blocking on that stream.
 *
 * Memory: buffers are created lazily zeroed. backend.h promises zero-initialised memory from
 * alloc, but nearly every allocation is overwritten at once by the operation that made it
 * (to_device, every elementwise output); zeroing it first would double the memory traffic.
 * So a new buffer is marked needs_zero and zeroed only if something reads it, or writes
 * only part of it, before it has been written whole. Freed buffers go to a per-device pool
 * (exact size match, at most pool_limit bytes) and are handed out again by alloc, which
 * avoids the driver's allocation and the page faults of first touch on every call; the pool
 * is emptied when the device's memory would otherwise run out.
 *
 * Out of device memory: a request above CL_DEVICE_MAX_MEM_ALLOC_SIZE, or one that would take
 * the bytes refarray holds on the device (in arrays and in the pool) beyond
 * CL_DEVICE_GLOBAL_MEM_SIZE, is RA_E_NOMEM before the driver is asked. Otherwise the new
 * buffer is made resident at once (clEnqueueMigrateMemObjects with undefined content), so a
 * driver that allocates lazily reports its CL_MEM_OBJECT_ALLOCATION_FAILURE here, through
 * the one mapping in opencl_status.c. PoCL's CPU device accepts buffers beyond its reported
 * memory, which is why refarray's own accounting matters there.
 */
#include "opencl.h"

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- buffers */

/* Enqueues zeroing of b on the default queue (not waited for). Call with the lock held. */
static cl_int zero_now(ra__cl_device *dev, ra__cl_buffer *b)
{
    static const unsigned char zeros[128];
    size_t pattern = 128;
    while (pattern > 1 && b->size % pattern != 0)
        pattern /= 2;
    cl_int err = clEnqueueFillBuffer(dev->queue, b->mem, zeros, pattern, 0, b->size, 0, NULL, NULL);
    if (err == CL_SUCCESS) b->needs_zero = false;
    return err;
}

/* Before reading b: make good on the promise of zeros. The flag is read under the lock
 * because arrays (and so their buffers) may be shared between threads. */
static int prepare_input(ra__cl_device *dev, const void *buf)
{
    ra__cl_buffer *b = (ra__cl_buffer *)buf;
    if (!b) /* an empty array has no buffer */
        return RA_OK;
    pthread_mutex_lock(&dev->lock);
    cl_int err = b->needs_zero ? zero_now(dev, b) : CL_SUCCESS;
    pthread_mutex_unlock(&dev->lock);
    return err == CL_SUCCESS ? RA_OK : ra__cl_fail(dev->ctx, err, "clEnqueueFillBuffer", dev);
}

/* Before writing nbytes at offset of b: a write of the whole buffer makes the zeros moot. */
static int prepare_output(ra__cl_device *dev, void *buf, size_t offset, size_t nbytes)
{
    ra__cl_buffer *b = buf;
    cl_int err = CL_SUCCESS;
    if (!b) return RA_OK;
    pthread_mutex_lock(&dev->lock);
    if (b->needs_zero) {
        if (offset == 0 && nbytes >= b->size)
            b->needs_zero = false;
        else
            err = zero_now(dev, b);
    }
    pthread_mutex_unlock(&dev->lock);
    return err == CL_SUCCESS ? RA_OK : ra__cl_fail(dev->ctx, err, "clEnqueueFillBuffer", dev);
}

/* Releases every pooled buffer. Call with the lock held. */
static void pool_drain(ra__cl_device *dev)
{
    while (dev->pool) {
        ra__cl_buffer *b = dev->pool;
        dev->pool = b->next_free;
        dev->pool_bytes -= b->size;
        dev->live_bytes -= b->size;
        clReleaseMemObject(b->mem);
        ra__free(dev->ctx, b);
    }
}

/* Takes a pooled buffer of exactly nbytes, or NULL. Call with the lock held. */
static ra__cl_buffer *pool_take(ra__cl_device *dev, size_t nbytes)
{
    for (ra__cl_buffer **p = &dev->pool; *p; p = &(*p)->next_free) {
        if ((*p)->size == nbytes) {
            ra__cl_buffer *b = *p;
            *p = b->next_free;
            b->next_free = NULL;
            dev->pool_bytes -= b->size;
            return b;
        }
    }
    return NULL;
}

static int ocl_alloc(void *impl, size_t nbytes, void **buf)
{
    ra__cl_device *dev = impl;
    cl_int err;
    int status = RA_OK;
    if (nbytes > dev->max_alloc)
        return ra__ctx_error(dev->ctx, RA_E_NOMEM,
                             "out of device memory: %zu bytes requested on OpenCL device '%s', "
                             "whose largest allocation is %llu bytes "
                             "(CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                             nbytes, dev->name, (unsigned long long)dev->max_alloc);
    pthread_mutex_lock(&dev->lock);
    ra__cl_buffer *b = pool_take(dev, nbytes);
    if (b) {
        b->needs_zero = true;
        pthread_mutex_unlock(&dev->lock);
        *buf = b;
        return RA_OK;
    }
    /* The context's limit for each device (ra_ctx_options.max_device_bytes) counts the
     * buffers it holds, pooled ones included; they are given back before a refusal, which
     * comes before any buffer is created. */
    size_t max = ra__ctx_max_device_bytes(dev->ctx);
    if (max && dev->live_bytes + nbytes > max) pool_drain(dev);
    if (max && (nbytes > max || dev->live_bytes > max - nbytes)) {
        status = ra__ctx_error(dev->ctx, RA_E_NOMEM,
                               "%zu bytes requested on OpenCL device '%s' would pass the "
                               "context's device memory limit of %zu bytes (%llu held)",
                               nbytes, dev->name, max, (unsigned long long)dev->live_bytes);
        goto unlock;
    }
    if (dev->live_bytes + nbytes > dev->global_mem) pool_drain(dev);
    if (dev->live_bytes + nbytes > dev->global_mem) {
        status = ra__ctx_error(dev->ctx, RA_E_NOMEM,
                               "out of device memory: %zu bytes requested on OpenCL device "
                               "'%s', %llu of its %llu bytes are in use",
                               nbytes, dev->name, (unsigned long long)dev->live_bytes,
                               (unsigned long long)dev->global_mem);
        goto unlock;
    }
    b = ra__calloc(dev->ctx, 1, sizeof *b);
    if (!b) {
        status = ra__ctx_error(dev->ctx, RA_E_NOMEM, "out of host memory for a buffer handle");
        goto unlock;
    }
    b->mem = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, nbytes, NULL, &err);
    if (err != CL_SUCCESS) {
        status = ra__cl_fail(dev->ctx, err, "clCreateBuffer", dev);
        goto free_handle;
    }
    err = clEnqueueMigrateMemObjects(dev->queue, 1, &b->mem,
                                     CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clFinish(dev->queue);
    if (err != CL_SUCCESS) {
        status = ra__cl_fail(dev->ctx, err, "allocating device memory", dev);
        goto release_mem;
    }
    b->size = nbytes;
    b->needs_zero = true;
    dev->live_bytes += nbytes;
    pthread_mutex_unlock(&dev->lock);
    *buf = b;
    return RA_OK;
release_mem:
    clReleaseMemObject(b->mem);
free_handle:
    ra__free(dev->ctx, b);
unlock:
    pthread_mutex_unlock(&dev->lock);
    return status;
}

static void ocl_free(void *impl, void *buf)
{
    ra__cl_device *dev = impl;
    ra__cl_buffer *b = buf;
    if (!b) return;
    pthread_mutex_lock(&dev->lock);
    if (dev->pool_bytes + b->size <= dev->pool_limit) {
        b->next_free = dev->pool;
        dev->pool = b;
        dev->pool_bytes += b->size;
    } else {
        dev->live_bytes -= b->size;
        clReleaseMemObject(b->mem);
        ra__free(dev->ctx, b);
    }
    pthread_mutex_unlock(&dev->lock);
}

/* ---------------------------------------------------------------- device, streams */

static int ocl_query(void *impl, ra__device_info *info)
{
    ra__cl_device *dev = impl;
    memset(info, 0, sizeof *info);
    memcpy(info->name, dev->name, sizeof info->name);
    info->name[sizeof info->name - 1] = '\0';
    info->total_memory = dev->global_mem;
    info->max_alloc = dev->max_alloc;
    info->has_float64 = dev->has_fp64;
    info->compute_units = (int)dev->compute_units;
    info->has_float16 = dev->has_fp16;
    return RA_OK;
}

static void ocl_close(void *impl)
{
    ra__cl_device *dev = impl;
    if (!dev) return;
    if (dev->queue) clFinish(dev->queue);
    pthread_mutex_lock(&dev->lock);
    pool_drain(dev);
    ra__cl_programs_release(dev);
    pthread_mutex_unlock(&dev->lock);
    if (dev->queue) clReleaseCommandQueue(dev->queue);
    if (dev->context) clReleaseContext(dev->context);
    pthread_mutex_destroy(&dev->lock);
    ra__free(dev->ctx, dev);
}

static int ocl_check_stream(void *impl, void *stream)
{
    ra__cl_device *dev = impl;
    cl_command_queue q = stream;
    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    if (q == dev->queue) return RA_OK;
    /* A caller's queue must be on refarray's context for this device (its buffers live
     * there): make one with clCreateCommandQueue on the context and device of the default
     * queue (ra_device_default_stream). */
    cl_int err = clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL);
    if (err != CL_SUCCESS)
        return ra__ctx_error(dev->ctx, RA_E_STREAM, "stream %p is not an OpenCL command queue (%s)",
                             stream, ra__cl_error_name(err));
    if (qctx != dev->context || qdev != dev->device)
        return ra__ctx_error(dev->ctx, RA_E_STREAM,
                             "stream %p is a command queue of another OpenCL context or device, "
                             "not of '%s' in this refarray context",
                             stream, dev->name);
    return RA_OK;
}

static void *ocl_default_stream(void *impl)
{
    ra__cl_device *dev = impl;
    return dev->queue;
}

/* The queue for a transfer; a caller's queue first sees the default queue's work done. */
static int transfer_queue(ra__cl_device *dev, void *stream, cl_command_queue *q)
{
    *q = dev->queue;
    if (!stream || stream == dev->queue) return RA_OK;
    cl_int err = clFinish(dev->queue);
    if (err != CL_SUCCESS) return ra__cl_fail(dev->ctx, err, "clFinish", dev);
    *q = stream;
    return RA_OK;
}

static int finish(ra__cl_device *dev, cl_command_queue q)
{
    cl_int err = clFinish(q);
    return err == CL_SUCCESS ? RA_OK : ra__cl_fail(dev->ctx, err, "clFinish", dev);
}

/* ---------------------------------------------------------------- transfers */

static int ocl_write(void *impl, void *buf, size_t dst_offset, const void *src, size_t nbytes,
                     void *stream)
{
    ra__cl_device *dev = impl;
    cl_command_queue q;
    int status = prepare_output(dev, buf, dst_offset, nbytes);
    if (status == RA_OK) status = transfer_queue(dev, stream, &q);
    if (status != RA_OK || nbytes == 0) return status;
    cl_int err = clEnqueueWriteBuffer(q, ((ra__cl_buffer *)buf)->mem, CL_TRUE, dst_offset, nbytes,
                                      src, 0, NULL, NULL);
    return err == CL_SUCCESS ? RA_OK : ra__cl_fail(dev->ctx, err, "clEnqueueWriteBuffer", dev);
}

static int ocl_read(void *impl, const void *buf, size_t src_offset, void *dst, size_t nbytes,
                    void *stream)
{
    ra__cl_device *dev = impl;
    cl_command_queue q;
    int status = prepare_input(dev, buf);
    if (status == RA_OK) status = transfer_queue(dev, stream, &q);
    if (status != RA_OK || nbytes == 0) return status;
    cl_int err = clEnqueueReadBuffer(q, ((const ra__cl_buffer *)buf)->mem, CL_TRUE, src_offset,
                                     nbytes, dst, 0, NULL, NULL);
    return err == CL_SUCCESS ? RA_OK : ra__cl_fail(dev->ctx, err, "clEnqueueReadBuffer", dev);
}

static int ocl_copy(void *impl, void *dst, size_t dst_offset, size_t dst_pitch, const void *src,
                    size_t src_offset, size_t src_pitch, size_t row_bytes, size_t rows,
                    void *stream)
{
    ra__cl_device *dev = impl;
    cl_command_queue q;
    cl_int err;
    bool whole = dst_offset == 0 && (rows == 1 || dst_pitch == row_bytes);
    int status = prepare_output(dev, dst, 0, whole ? row_bytes * rows : 0);
    if (status == RA_OK) status = prepare_input(dev, src);
    if (status == RA_OK) status = transfer_queue(dev, stream, &q);
    if (status != RA_OK || rows == 0 || row_bytes == 0) return status;
    cl_mem dmem = ((ra__cl_buffer *)dst)->mem, smem = ((const ra__cl_buffer *)src)->mem;
    if (rows == 1) {
        err = clEnqueueCopyBuffer(q, smem, dmem, src_offset, dst_offset, row_bytes, 0, NULL, NULL);
    } else {
        size_t so[3] = {src_offset % src_pitch, src_offset / src_pitch, 0};
        size_t dso[3] = {dst_offset % dst_pitch, dst_offset / dst_pitch, 0};
        size_t region[3] = {row_bytes, rows, 1};
        err = clEnqueueCopyBufferRect(q, smem, dmem, so, dso, region, src_pitch, 0, dst_pitch, 0, 0,
                                      NULL, NULL);
    }
    if (err != CL_SUCCESS)
        return ra__cl_fail(dev->ctx, err,
                           rows == 1 ? "clEnqueueCopyBuffer" : "clEnqueueCopyBufferRect", dev);
    return finish(dev, q);
}

static int ocl_fill(void *impl, void *dst, size_t dst_offset, const void *value, size_t elem_size,
                    size_t count)
{
    ra__cl_device *dev = impl;
    unsigned char pattern[128];
    size_t nbytes = elem_size * count;
    int status = prepare_output(dev, dst, dst_offset, nbytes);
    if (status != RA_OK || count == 0) return status;
    if (elem_size == 0 || elem_size > sizeof pattern)
        return ra__ctx_error(dev->ctx, RA_E_ARG, "OpenCL fill: element size %zu", elem_size);
    /* The widest repetition of the element (at most 128 bytes, a power of two dividing
     * offset and size), so that the driver copies few, large patterns. */
    size_t psize = elem_size;
    while (psize * 2 <= sizeof pattern && dst_offset % (psize * 2) == 0 &&
           nbytes % (psize * 2) == 0)
        psize *= 2;
    for (size_t i = 0; i < psize; i += elem_size)
        memcpy(pattern + i, value, elem_size);
    cl_int err = clEnqueueFillBuffer(dev->queue, ((ra__cl_buffer *)dst)->mem, pattern, psize,
                                     dst_offset, nbytes, 0, NULL, NULL);
    if (err != CL_SUCCESS) return ra__cl_fail(dev->ctx, err, "clEnqueueFillBuffer", dev);
    return finish(dev, dev->queue);
}

/* ---------------------------------------------------------------- kernels */

/* Sets argument i of k; the caller holds the lock. */
#define ARG(k, i, v)                                                                               \
    do {                                                                                           \
        cl_int e_ = clSetKernelArg(k, i, sizeof(v), &(v));                                         \
        if (e_ != CL_SUCCESS) {                                                                    \
            status = ra__cl_fail(dev->ctx, e_, "clSetKernelArg", dev);                             \
            goto unlock;                                                                           \
        }                                                                                          \
    } while (0)

static int ocl_cast(void *impl, void *dst, ra_dtype dst_dtype, const void *src, ra_dtype src_dtype,
                    size_t count)
{
    ra__cl_device *dev = impl;
    cl_kernel k;
    int status = prepare_input(dev, src);
    if (status == RA_OK) status = prepare_output(dev, dst, 0, count * ra_dtype_size(dst_dtype));
    if (status != RA_OK || count == 0) return status;
    cl_ulong n = count;
    pthread_mutex_lock(&dev->lock);
    status = ra__cl_kernel(dev, RA_CL_CAST, src_dtype, dst_dtype, "ra_cast", &k);
    if (status != RA_OK) goto unlock;
    ARG(k, 0, ((ra__cl_buffer *)dst)->mem);
    ARG(k, 1, ((const ra__cl_buffer *)src)->mem);
    ARG(k, 2, n);
    status = ra__cl_launch(dev, k, count);
unlock:
    pthread_mutex_unlock(&dev->lock);
    return status == RA_OK ? finish(dev, dev->queue) : status;
}

static const char *binop_kernel(ra_binop op)
{
    switch (op) {
    case RA_ADD:
        return "add";
    case RA_SUBTRACT:
        return "subtract";
    case RA_MULTIPLY:
        return "multiply";
    case RA_DIVIDE:
        return "divide";
    case RA_EQUAL:
        return "equal";
    case RA_LESS:
        return "less";
    case RA_MAXIMUM:
        return "maximum";
    }
    return NULL;
}

/* Drops extents of 1 and merges neighbouring axes that both operands walk contiguously, so
 * that most broadcasts need few index steps. */
static void collapse(const ra__view *a, const ra__view *b, const ra__view *out, ra__cl_index *idx)
{
    long nd = 0;
    for (size_t d = 0; d < out->ndim; d++) {
        int64_t ext = out->shape[d];
        if (ext == 1) continue;
        if (nd > 0 && idx->sa[nd - 1] == a->strides[d] * ext &&
            idx->sb[nd - 1] == b->strides[d] * ext) {
            idx->shape[nd - 1] *= ext;
            idx->sa[nd - 1] = a->strides[d];
            idx->sb[nd - 1] = b->strides[d];
            continue;
        }
        idx->shape[nd] = ext;
        idx->sa[nd] = a->strides[d];
        idx->sb[nd] = b->strides[d];
        nd++;
    }
    idx->ndim = nd;
}

static int ocl_binary(void *impl, ra_binop op, const ra__view *a, const ra__view *b,
                      const ra__view *out)
{
    ra__cl_device *dev = impl;
    ra__cl_index idx;
    char name[32];
    cl_kernel k;
    const char *opname = binop_kernel(op);
    if (!opname)
        return ra__ctx_error(dev->ctx, RA_E_ARG, "OpenCL binary: unknown operation %d", (int)op);
    if (out->ndim > RA_CL_MAXDIM)
        return ra__ctx_error(dev->ctx, RA_E_SHAPE, "OpenCL binary: %zu dimensions (at most %d)",
                             out->ndim, RA_CL_MAXDIM);
    size_t count = 1;
    for (size_t d = 0; d < out->ndim; d++)
        count *= (size_t)out->shape[d];
    int status = prepare_input(dev, a->buf);
    if (status == RA_OK) status = prepare_input(dev, b->buf);
    if (status == RA_OK)
        status = prepare_output(dev, out->buf, 0, count * ra_dtype_size(out->dtype));
    if (status != RA_OK || count == 0) return status;

    memset(&idx, 0, sizeof idx);
    collapse(a, b, out, &idx);
    bool a_flat = idx.ndim == 0 || (idx.ndim == 1 && idx.sa[0] == 1);
    bool b_flat = idx.ndim == 0 || (idx.ndim == 1 && idx.sb[0] == 1);
    bool a_one = true, b_one = true;
    for (long d = 0; d < idx.ndim; d++) {
        a_one = a_one && idx.sa[d] == 0;
        b_one = b_one && idx.sb[d] == 0;
    }
    const char *variant = a_flat && b_flat  ? "vv"
                          : a_flat && b_one ? "v1"
                          : a_one && b_flat ? "1v"
                                            : "bc";
    snprintf(name, sizeof name, "ra_%s_%s", opname, variant);

    cl_ulong oa = (cl_ulong)a->offset, ob = (cl_ulong)b->offset, n = count;
    pthread_mutex_lock(&dev->lock);
    status = ra__cl_kernel(dev, RA_CL_BINARY, a->dtype, a->dtype, name, &k);
    if (status != RA_OK) goto unlock;
    ARG(k, 0, ((ra__cl_buffer *)a->buf)->mem);
    ARG(k, 1, oa);
    ARG(k, 2, ((ra__cl_buffer *)b->buf)->mem);
    ARG(k, 3, ob);
    ARG(k, 4, ((ra__cl_buffer *)out->buf)->mem);
    ARG(k, 5, n);
    if (variant[0] == 'b') ARG(k, 6, idx);
    status = ra__cl_launch(dev, k, count);
unlock:
    pthread_mutex_unlock(&dev->lock);
    return status == RA_OK ? finish(dev, dev->queue) : status;
}

static int ocl_unary(void *impl, ra_unop op, const void *x, ra_dtype dtype, void *out,
                     ra_dtype out_dtype, size_t count)
{
    ra__cl_device *dev = impl;
    cl_kernel k;
    const char *name = op == RA_NEGATIVE ? "ra_negative"
                       : op == RA_ABS    ? "ra_abs"
                       : op == RA_SQRT   ? "ra_sqrt"
                                         : NULL;
    if (!name)
        return ra__ctx_error(dev->ctx, RA_E_ARG, "OpenCL unary: unknown operation %d", (int)op);
    int status = prepare_input(dev, x);
    if (status == RA_OK) status = prepare_output(dev, out, 0, count * ra_dtype_size(out_dtype));
    if (status != RA_OK || count == 0) return status;
    cl_ulong n = count;
    pthread_mutex_lock(&dev->lock);
    status = ra__cl_kernel(dev, RA_CL_UNARY, dtype, dtype, name, &k);
    if (status != RA_OK) goto unlock;
    ARG(k, 0, ((const ra__cl_buffer *)x)->mem);
    ARG(k, 1, ((ra__cl_buffer *)out)->mem);
    ARG(k, 2, n);
    status = ra__cl_launch(dev, k, count);
unlock:
    pthread_mutex_unlock(&dev->lock);
    return status == RA_OK ? finish(dev, dev->queue) : status;
}

/* Reductions over everything use passes of contiguous runs of CHUNK elements above this
 * many elements, each pass shrinking the data CHUNK-fold, and one work-item for the rest. */
#define MULTI_PASS_MIN 4096
#define CHUNK 64

/* One pass: partial[g] = op over src[g*CHUNK ..) for g < ceil(n / CHUNK). */
static int reduce_pass(ra__cl_device *dev, ra_reduceop op, ra_dtype dtype, cl_mem src, size_t n,
                       void *partial)
{
    cl_kernel k;
    cl_ulong nn = n, chunk = CHUNK;
    int status;
    pthread_mutex_lock(&dev->lock);
    status = ra__cl_kernel(dev, RA_CL_REDUCE, dtype, dtype,
                           op == RA_SUM ? "ra_sum_chunks" : "ra_max_chunks", &k);
    if (status != RA_OK) goto unlock;
    ARG(k, 0, src);
    ARG(k, 1, ((ra__cl_buffer *)partial)->mem);
    ARG(k, 2, nn);
    ARG(k, 3, chunk);
    status = ra__cl_launch(dev, k, (n + CHUNK - 1) / CHUNK);
unlock:
    pthread_mutex_unlock(&dev->lock);
    return status;
}

static int ocl_reduce(void *impl, ra_reduceop op, const void *x, ra_dtype dtype, size_t outer,
                      size_t len, size_t inner, void *out)
{
    ra__cl_device *dev = impl;
    size_t esize = ra_dtype_size(dtype);
    size_t nout = outer * inner;
    cl_kernel k;
    void *partial = NULL;
    if (op != RA_SUM && op != RA_MAX)
        return ra__ctx_error(dev->ctx, RA_E_ARG, "OpenCL reduce: unknown operation %d", (int)op);
    if (nout == 0) return RA_OK;
    if (len == 0) {
        /* sum over an empty axis: zeros (the core never asks for max here). */
        static const unsigned char zero[16];
        return ocl_fill(impl, out, 0, zero, esize, nout);
    }
    int status = prepare_input(dev, x);
    if (status == RA_OK) status = prepare_output(dev, out, 0, nout * esize);
    if (status != RA_OK) return status;

    cl_mem src = ((const ra__cl_buffer *)x)->mem;
    cl_ulong o = outer, l = len, in = inner;
    if (nout == 1 && len >= MULTI_PASS_MIN) {
        size_t count = len;
        while (count > CHUNK) {
            size_t groups = (count + CHUNK - 1) / CHUNK;
            void *next = NULL;
            status = ocl_alloc(impl, groups * esize, &next);
            if (status != RA_OK) goto done;
            ((ra__cl_buffer *)next)->needs_zero = false;
            status = reduce_pass(dev, op, dtype, src, count, next);
            ocl_free(impl, partial);
            partial = next;
            if (status != RA_OK) goto done;
            src = ((ra__cl_buffer *)partial)->mem;
            count = groups;
        }
        l = count;
    }
    pthread_mutex_lock(&dev->lock);
    status = ra__cl_kernel(dev, RA_CL_REDUCE, dtype, dtype,
                           op == RA_SUM ? "ra_sum_axis" : "ra_max_axis", &k);
    if (status != RA_OK) goto unlock;
    ARG(k, 0, src);
    ARG(k, 1, ((ra__cl_buffer *)out)->mem);
    ARG(k, 2, o);
    ARG(k, 3, l);
    ARG(k, 4, in);
    status = ra__cl_launch(dev, k, nout);
unlock:
    pthread_mutex_unlock(&dev->lock);
    if (status == RA_OK) status = finish(dev, dev->queue);
done:
    ocl_free(impl, partial);
    return status;
}

static int ocl_matmul(void *impl, ra_dtype dtype, const void *a, size_t a_offset, const void *b,
                      size_t b_offset, void *out, size_t out_offset, size_t n, size_t k_, size_t m)
{
    ra__cl_device *dev = impl;
    cl_kernel k;
    size_t count = n * m;
    int status = prepare_input(dev, a);
    if (status == RA_OK) status = prepare_input(dev, b);
    if (status == RA_OK)
        status = prepare_output(dev, out, out_offset * ra_dtype_size(dtype),
                                count * ra_dtype_size(dtype));
    if (status != RA_OK || count == 0) return status;
    if (k_ == 0) {
        /* An empty inner dimension: the operands are empty arrays without buffers, and
         * every sum is 0. */
        static const unsigned char zero[16];
        return ocl_fill(impl, out, out_offset * ra_dtype_size(dtype), zero, ra_dtype_size(dtype),
                        count);
    }
    cl_ulong oa = a_offset, ob = b_offset, oc = out_offset, rows = n, kk = k_, cols = m;
    pthread_mutex_lock(&dev->lock);
    status = ra__cl_kernel(dev, RA_CL_MATMUL, dtype, dtype, "ra_matmul", &k);
    if (status != RA_OK) goto unlock;
    ARG(k, 0, ((const ra__cl_buffer *)a)->mem);
    ARG(k, 1, oa);
    ARG(k, 2, ((const ra__cl_buffer *)b)->mem);
    ARG(k, 3, ob);
    ARG(k, 4, ((ra__cl_buffer *)out)->mem);
    ARG(k, 5, oc);
    ARG(k, 6, rows);
    ARG(k, 7, kk);
    ARG(k, 8, cols);
    status = ra__cl_launch(dev, k, count);
unlock:
    pthread_mutex_unlock(&dev->lock);
    return status == RA_OK ? finish(dev, dev->queue) : status;
}

/* OpenCL has no utilisation query. A device of type CL_DEVICE_TYPE_CPU (PoCL's CPU driver)
 * runs its kernels on the host's processors, so the host's measure is that device's measure
 * too; any other device cannot be measured, and refarray does not invent a number. */
static int ocl_utilisation(void *impl, double *percent)
{
    ra__cl_device *dev = impl;
    if (dev->type & CL_DEVICE_TYPE_CPU) return ra__host_utilisation(dev->ctx, percent);
    return ra__ctx_error(dev->ctx, RA_E_NOT_MEASURABLE,
                         "ra_util_utilisation: OpenCL device '%s' is not the host's CPU, and "
                         "OpenCL has no utilisation query",
                         dev->name);
}

/* DLPack's data for an OpenCL tensor: the cl_mem (dlpack.c). */
static void *ocl_native(void *impl, void *buf)
{
    (void)impl;
    return buf ? (void *)((ra__cl_buffer *)buf)->mem : NULL;
}

const ra__backend_ops ra__opencl_ops = {
    .version = RA_BACKEND_VERSION,
    .size = sizeof(ra__backend_ops),
    .name = "opencl",
    .query = ocl_query,
    .close = ocl_close,
    .alloc = ocl_alloc,
    .free = ocl_free,
    .write = ocl_write,
    .read = ocl_read,
    .check_stream = ocl_check_stream,
    .default_stream = ocl_default_stream,
    .copy = ocl_copy,
    .fill = ocl_fill,
    .cast = ocl_cast,
    .binary = ocl_binary,
    .unary = ocl_unary,
    .reduce = ocl_reduce,
    .matmul = ocl_matmul,
    .utilisation = ocl_utilisation,
    .native = ocl_native,
};
