/* backend_host.c: the host backend (the cpu device): its table of slots, buffers in host
 * memory through the allocation hook with a cache of large blocks for reuse, and the device's
 * facts. Its compute slots are the host kernels (host_kernels.c); the host's system
 * information comes from sysinfo.c. Like every backend it sees only backend.h. */
#include "backend.h"
#include "host_kernels.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* Host buffers and their reuse.
 *
 * Every buffer is one block from the context's allocation hook: a header (the block's
 * capacity in bytes) and then the data, so free knows a block's size. Blocks of at least
 * CACHE_MIN bytes are not returned to the hook when their array dies but kept in a cache,
 * bucketed by size (eight buckets per power of two), and handed out again to a request of the
 * same bucket that fits. Large blocks from the C allocator are fresh pages each time (a new
 * mmap) whose first touch costs a page fault per page: as much as the operation itself for a
 * memory-bound elementwise result. A reused block is already touched.
 *
 * Bounds: the cache holds at most cache_limit bytes (an eighth of physical memory, at most
 * CACHE_MAX); a block that does not fit is returned to the hook. When the hook fails, the
 * cache is emptied and the allocation tried once more, so cached blocks never cause an
 * out-of-memory. The cache is guarded by its own mutex (blocks below CACHE_MIN never take
 * it) and emptied when the context is destroyed.
 *
 * Zeros: alloc (backend.h) promises zero-initialised memory; alloc_uninit leaves the contents
 * unspecified for results that are written whole at once. A reused block is zeroed only for
 * alloc; a new block from the hook is zeroed by memset for alloc only, so a result's pages are
 * first touched by the operation that writes them and not twice. */
#define CACHE_MIN ((size_t)256 << 10)
#define CACHE_MAX ((size_t)1 << 30)
#define CACHE_MIN_LOG2 18
#define CACHE_BUCKETS ((64 - CACHE_MIN_LOG2) * 8)
typedef struct host_block {
    union {
        size_t cap;         /* data bytes after the header */
        max_align_t align_; /* keeps the data as aligned as the hook's blocks */
    } h;
} host_block;

typedef struct cached_block {
    host_block head;
    struct cached_block *next;
} cached_block;

typedef struct host_impl {
    ra_ctx *ctx;
    pthread_mutex_t cache_lock; /* guards the fields below */
    cached_block *buckets[CACHE_BUCKETS];
    size_t cached_bytes;
    size_t cache_limit;
    _Atomic size_t held; /* bytes of the blocks arrays hold now, for max_host_bytes */
} host_impl;

/* ---- memory ---- */

/* The bucket of a size >= CACHE_MIN: its power of two and which eighth of it. */
static size_t cache_bucket(size_t nbytes)
{
    unsigned k = 63u - (unsigned)__builtin_clzll((unsigned long long)nbytes);
    size_t eighth = (nbytes >> (k - 3)) & 7u;
    return (size_t)(k - CACHE_MIN_LOG2) * 8u + eighth;
}

/* Takes a cached block that holds nbytes (>= CACHE_MIN) from its bucket, or NULL. */
static host_block *cache_take(host_impl *h, size_t nbytes)
{
    size_t b = cache_bucket(nbytes);
    host_block *found = NULL;
    pthread_mutex_lock(&h->cache_lock);
    for (cached_block **p = &h->buckets[b]; *p; p = &(*p)->next) {
        if ((*p)->head.h.cap >= nbytes) {
            cached_block *c = *p;
            *p = c->next;
            h->cached_bytes -= c->head.h.cap;
            found = &c->head;
            break;
        }
    }
    pthread_mutex_unlock(&h->cache_lock);
    return found;
}

/* Keeps a block for reuse; false when the cache is full (the caller frees it). */
static bool cache_put(host_impl *h, host_block *blk)
{
    bool kept = false;
    pthread_mutex_lock(&h->cache_lock);
    if (h->cached_bytes + blk->h.cap <= h->cache_limit) {
        cached_block *c = (cached_block *)blk;
        size_t b = cache_bucket(blk->h.cap);
        c->next = h->buckets[b];
        h->buckets[b] = c;
        h->cached_bytes += blk->h.cap;
        kept = true;
    }
    pthread_mutex_unlock(&h->cache_lock);
    return kept;
}

/* Returns every cached block to the hook; the bytes it gave back. */
static size_t cache_drain(host_impl *h)
{
    size_t freed = 0;
    pthread_mutex_lock(&h->cache_lock);
    for (size_t b = 0; b < CACHE_BUCKETS; b++) {
        while (h->buckets[b]) {
            cached_block *c = h->buckets[b];
            h->buckets[b] = c->next;
            h->cached_bytes -= c->head.h.cap;
            freed += c->head.h.cap;
            ra__free(h->ctx, c);
        }
    }
    pthread_mutex_unlock(&h->cache_lock);
    return freed;
}

static int host_alloc_counted(host_impl *h, size_t nbytes, bool zeroed, void **buf)
{
    host_block *blk = nbytes >= CACHE_MIN ? cache_take(h, nbytes) : NULL;
    if (!blk) {
        if (nbytes > SIZE_MAX - sizeof *blk)
            return ra__ctx_error(h->ctx, RA_E_NOMEM, "cpu: cannot allocate %zu bytes", nbytes);
        blk = ra__alloc(h->ctx, sizeof *blk + nbytes);
        /* Memory held for reuse must not cause an out-of-memory: give it back, retry. */
        if (!blk && cache_drain(h) > 0) blk = ra__alloc(h->ctx, sizeof *blk + nbytes);
        if (!blk)
            return ra__ctx_error(h->ctx, RA_E_NOMEM, "cpu: cannot allocate %zu bytes", nbytes);
        blk->h.cap = nbytes;
    }
    void *data = blk + 1;
    if (zeroed) memset(data, 0, nbytes);
    *buf = data;
    return RA_OK;
}

static int host_alloc_block(host_impl *h, size_t nbytes, bool zeroed, void **buf)
{
    /* The context's limit counts what arrays hold; a request past it is refused before any
     * memory is touched (ra_ctx_options.max_host_bytes). */
    size_t max = ra__ctx_max_host_bytes(h->ctx);
    size_t before = atomic_fetch_add(&h->held, nbytes);
    if (max && (before + nbytes < before || before + nbytes > max)) {
        atomic_fetch_sub(&h->held, nbytes);
        return ra__ctx_error(h->ctx, RA_E_NOMEM,
                             "cpu: %zu bytes would pass the context's memory limit of %zu bytes "
                             "(%zu held)",
                             nbytes, max, before);
    }
    int st = host_alloc_counted(h, nbytes, zeroed, buf);
    if (st != RA_OK)
        atomic_fetch_sub(&h->held, nbytes);
    else /* a block reused from the cache may be larger: held counts what host_free gives back */
        atomic_fetch_add(&h->held, ((host_block *)*buf - 1)->h.cap - nbytes);
    return st;
}

static int host_alloc(void *impl, size_t nbytes, void **buf)
{
    return host_alloc_block(impl, nbytes, true, buf);
}

static int host_alloc_uninit(void *impl, size_t nbytes, void **buf)
{
    return host_alloc_block(impl, nbytes, false, buf);
}

static void host_free(void *impl, void *buf)
{
    host_impl *h = impl;
    if (!buf) return;
    host_block *blk = (host_block *)buf - 1;
    atomic_fetch_sub(&h->held, blk->h.cap);
    if (blk->h.cap >= CACHE_MIN && cache_put(h, blk)) return;
    ra__free(h->ctx, blk);
}

static int host_write(void *impl, void *buf, size_t dst_offset, const void *src, size_t nbytes,
                      void *stream)
{
    (void)impl;
    (void)stream;
    if (nbytes) memcpy((char *)buf + dst_offset, src, nbytes);
    return RA_OK;
}

static int host_read(void *impl, const void *buf, size_t src_offset, void *dst, size_t nbytes,
                     void *stream)
{
    (void)impl;
    (void)stream;
    if (nbytes) memcpy(dst, (const char *)buf + src_offset, nbytes);
    return RA_OK;
}

static int host_copy(void *impl, void *dst, size_t dst_offset, size_t dst_pitch, const void *src,
                     size_t src_offset, size_t src_pitch, size_t row_bytes, size_t rows,
                     void *stream)
{
    (void)impl;
    (void)stream;
    ra__host_copy_rows(dst, dst_offset, dst_pitch, src, src_offset, src_pitch, row_bytes, rows);
    return RA_OK;
}

static int host_fill(void *impl, void *dst, size_t dst_offset, const void *value, size_t elem_size,
                     size_t count)
{
    (void)impl;
    char *p = (char *)dst + dst_offset;
    for (size_t i = 0; i < count; i++)
        memcpy(p + i * elem_size, value, elem_size);
    return RA_OK;
}

static int host_cast(void *impl, void *dst, ra_dtype dst_dtype, const void *src, ra_dtype src_dtype,
                     size_t count)
{
    (void)impl;
    ra__host_cast(dst, dst_dtype, src, src_dtype, count);
    return RA_OK;
}

/* ---- compute: the host kernels ---- */

static int host_binary(void *impl, ra_binop op, const ra__view *a, const ra__view *b,
                       const ra__view *out)
{
    (void)impl;
    return ra__host_binary(op, a, b, out);
}

static int host_unary(void *impl, ra_unop op, const void *x, ra_dtype dtype, void *out,
                      ra_dtype out_dtype, size_t count)
{
    (void)impl;
    return ra__host_unary(op, x, dtype, out, out_dtype, count);
}

static int host_reduce(void *impl, ra_reduceop op, const void *x, ra_dtype dtype, size_t outer,
                       size_t len, size_t inner, void *out)
{
    (void)impl;
    return ra__host_reduce(op, x, dtype, outer, len, inner, out);
}

static int host_matmul(void *impl, ra_dtype dtype, const void *a, size_t a_offset, const void *b,
                       size_t b_offset, void *out, size_t out_offset, size_t n, size_t k, size_t m)
{
    (void)impl;
    return ra__host_matmul(dtype, a, a_offset, b, b_offset, out, out_offset, n, k, m);
}

/* ---- device facts ---- */

static int host_query(void *impl, ra__device_info *info)
{
    (void)impl;
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "host");
    info->total_memory = ra__host_physical_memory();
    info->max_alloc = 0;
    info->has_float64 = true;
    info->compute_units = ra__host_cpu_cores();
    info->has_float16 = true;
    return RA_OK;
}

static int host_utilisation(void *impl, double *percent)
{
    host_impl *h = impl;
    return ra__host_utilisation(h->ctx, percent);
}

static void host_close(void *impl)
{
    host_impl *h = impl;
    cache_drain(h);
    pthread_mutex_destroy(&h->cache_lock);
    ra__free(h->ctx, h);
}

static const ra__backend_ops host_ops = {
    .version = RA_BACKEND_VERSION,
    .size = sizeof(ra__backend_ops),
    .name = "host",
    .query = host_query,
    .close = host_close,
    .alloc = host_alloc,
    .free = host_free,
    .write = host_write,
    .read = host_read,
    .check_stream = NULL,
    .default_stream = NULL,
    .copy = host_copy,
    .fill = host_fill,
    .cast = host_cast,
    .binary = host_binary,
    .unary = host_unary,
    .reduce = host_reduce,
    .matmul = host_matmul,
    .utilisation = host_utilisation,
    .alloc_uninit = host_alloc_uninit,
    .flags = RA__BACKEND_HOST_MEMORY,
};

int ra__host_open(ra_ctx *ctx)
{
    host_impl *h = ra__calloc(ctx, 1, sizeof *h);
    if (!h) return ra__ctx_error(ctx, RA_E_NOMEM, "cpu: out of memory opening the host backend");
    h->ctx = ctx;
    if (pthread_mutex_init(&h->cache_lock, NULL) != 0) {
        ra__free(ctx, h);
        return ra__ctx_error(ctx, RA_E_BACKEND, "cpu: cannot create the buffer cache's mutex");
    }
    uint64_t phys = ra__host_physical_memory();
    h->cache_limit = phys / 8 < CACHE_MAX ? (size_t)(phys / 8) : CACHE_MAX;
    return ra__ctx_add_device(ctx, RA_DEVICE_CPU, &host_ops, h);
}
