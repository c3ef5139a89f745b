/* ctx.c: the context's bookkeeping, the floor of the core: the allocation hook, per-thread
 * state, the detail message every module reports through, the device list the backends add
 * to, and destroying a context. It calls no other module of the core; opening a context,
 * which knows the backends, is ctx_open.c's. */
#include "internal.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Atomic uint64_t next_thread_id = 1;

/* The calling thread's identity for per-context state. A counter rather than pthread_self,
 * because pthread_t values are reused after a thread exits and a new thread must not
 * inherit an old thread's scopes. */
static _Thread_local uint64_t tls_thread_id;
/* One-entry cache: the state of the calling thread in the context used last (internal.h,
 * ra__thread_get). The serial (never reused) rather than the pointer identifies the context,
 * since a new context may be allocated at a destroyed one's address. */
_Thread_local ra__thread_cache ra__tls_cache;
/* Messages of calls without a context, or when a thread's state cannot be allocated. */
static _Thread_local char tls_free_message[RA_MESSAGE_MAX];
/* The context whose last message had to go to the free slot (its state could not be
 * allocated), so that ra_ctx_message still finds it. */
static _Thread_local uint64_t tls_fallback_serial;

static uint64_t thread_id(void)
{
    if (tls_thread_id == 0) tls_thread_id = atomic_fetch_add(&next_thread_id, 1);
    return tls_thread_id;
}

size_t ra__ctx_max_host_bytes(const ra_ctx *ctx)
{
    return ctx->max_host_bytes;
}

size_t ra__ctx_max_device_bytes(const ra_ctx *ctx)
{
    return ctx->max_device_bytes;
}

void *ra__alloc(ra_ctx *ctx, size_t size)
{
    if (size == 0) size = 1;
    return ctx->allocator.alloc(size, ctx->allocator.user_data);
}

void *ra__calloc(ra_ctx *ctx, size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    void *p = ra__alloc(ctx, count * size);
    if (p) memset(p, 0, count * size > 0 ? count * size : 1);
    return p;
}

void ra__free(ra_ctx *ctx, void *ptr)
{
    if (ptr) ctx->allocator.release(ptr, ctx->allocator.user_data);
}

/* thread_find past its cache: kept out of line so that the cached answer, which every
 * operation asks for, costs no more than the two loads. */
ra__thread *ra__thread_lookup(ra_ctx *ctx, bool create)
{
    uint64_t id = thread_id();
    ra__listing_barrier_init();
    pthread_mutex_lock(&ctx->lock);
    ra__thread *t = ctx->threads;
    while (t && t->thread_id != id)
        t = t->next;
    if (!t && create) {
        t = ra__calloc(ctx, 1, sizeof *t);
        if (t) {
            t->thread_id = id;
            t->next = ctx->threads;
            ctx->threads = t;
        }
    }
    pthread_mutex_unlock(&ctx->lock);
    if (t) {
        ra__tls_cache.serial = ctx->serial;
        ra__tls_cache.state = t;
    }
    return t;
}

static inline ra__thread *thread_find(ra_ctx *ctx, bool create)
{
    if (ra__tls_cache.serial == ctx->serial && ra__tls_cache.state) return ra__tls_cache.state;
    return ra__thread_lookup(ctx, create);
}

int ra__ctx_error(ra_ctx *ctx, int status, const char *fmt, ...)
{
    char *buf = tls_free_message;
    if (ctx) {
        ra__thread *t = thread_find(ctx, true);
        if (t)
            buf = t->message;
        else
            tls_fallback_serial = ctx->serial;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, RA_MESSAGE_MAX, fmt, ap);
    va_end(ap);
    return status;
}

const char *ra_ctx_message(const ra_ctx *ctx)
{
    if (!ctx) return tls_free_message;
    /* Looking up never creates state: a thread without state in ctx has no message there,
     * unless its state could not be allocated, in which case the message went to the
     * context-free slot. */
    ra__thread *t = thread_find((ra_ctx *)ctx, false);
    if (t) return t->message;
    return tls_fallback_serial == ctx->serial ? tls_free_message : "";
}

void ra__ctx_keep_message(const ra_ctx *ctx, const char *what)
{
    const char *msg = ra_ctx_message(ctx);
    if (msg != tls_free_message)
        snprintf(tls_free_message, sizeof tls_free_message, "%s: %.480s", what, msg);
}

uint64_t ra__used_get(ra_ctx *ctx, const ra__dev *dev)
{
    pthread_mutex_lock(&ctx->lock);
    int64_t n = atomic_load(&dev->used_bytes);
    if (dev->index < RA__THREAD_DEVS)
        for (ra__thread *t = ctx->threads; t; t = t->next)
            n += atomic_load_explicit(&t->used[dev->index], memory_order_relaxed);
    pthread_mutex_unlock(&ctx->lock);
    return n > 0 ? (uint64_t)n : 0;
}

void ra__live_lock(ra_ctx *ctx)
{
    while (atomic_exchange_explicit(&ctx->live_lock, true, memory_order_acquire))
        /* Held by a thread that may not be running (two busy cores): let it. */
        while (atomic_load_explicit(&ctx->live_lock, memory_order_relaxed))
            sched_yield();
}

void ra__live_unlock(ra_ctx *ctx)
{
    atomic_store_explicit(&ctx->live_lock, false, memory_order_release);
}

void ra__live_unlink(ra_ctx *ctx, ra_array *x)
{
    if (!x->linked) return;
    if (x->live_prev)
        x->live_prev->live_next = x->live_next;
    else
        ctx->live_head = x->live_next;
    if (x->live_next)
        x->live_next->live_prev = x->live_prev;
    else
        atomic_store_explicit(&ctx->live_tail, x->live_prev, memory_order_relaxed);
    x->live_prev = x->live_next = NULL;
    x->linked = false;
}

static void thread_free(ra_ctx *ctx, ra__thread *t)
{
    ra__free(ctx, t->spare);
    ra__free(ctx, t->scopes);
    ra__free(ctx, t->scope_soft_depth);
    ra__free(ctx, t->soft);
    ra__free(ctx, t);
}

void ra_ctx_thread_release(ra_ctx *ctx)
{
    if (!ctx) return;
    uint64_t id = thread_id();
    pthread_mutex_lock(&ctx->lock);
    ra__thread **link = &ctx->threads;
    while (*link && (*link)->thread_id != id)
        link = &(*link)->next;
    ra__thread *t = *link;
    if (t) {
        *link = t->next;
        /* The thread's counts join the devices' under the lock that ra__used_get sums
         * under, so no sum sees them twice or not at all. */
        for (size_t i = 0; i < ctx->ndevs && i < RA__THREAD_DEVS; i++)
            atomic_fetch_add(&ctx->devs[i]->used_bytes, atomic_load(&t->used[i]));
    }
    pthread_mutex_unlock(&ctx->lock);
    if (ra__tls_cache.serial == ctx->serial) {
        ra__tls_cache.serial = 0;
        ra__tls_cache.state = NULL;
    }
    if (!t) return;
    if (t->spare) {
        ra__live_lock(ctx);
        ra__live_unlink(ctx, t->spare);
        ra__live_unlock(ctx);
    }
    thread_free(ctx, t);
}

int ra__ctx_add_device(ra_ctx *ctx, ra_device_type type, const ra__backend_ops *ops, void *impl)
{
    int status = RA_OK;
    ra__dev *dev = NULL;
    if (!ops || !ops->query || !ops->close || !ops->alloc || !ops->free || !ops->write ||
        !ops->read) {
        status = ra__ctx_error(ctx, RA_E_BACKEND, "backend '%s' lacks a required slot",
                               ops && ops->name ? ops->name : "?");
        goto fail;
    }
    if (ops->version != RA_BACKEND_VERSION || ops->size > sizeof(ra__backend_ops)) {
        status = ra__ctx_error(ctx, RA_E_BACKEND,
                               "backend '%s' has table version %u size %u; this library "
                               "speaks version %u size %zu",
                               ops->name ? ops->name : "?", (unsigned)ops->version,
                               (unsigned)ops->size, RA_BACKEND_VERSION, sizeof(ra__backend_ops));
        goto fail;
    }
    int32_t index = 0;
    for (size_t i = 0; i < ctx->ndevs; i++)
        if (ctx->devs[i]->device.type == type) index++;
    if (ctx->ndevs == ctx->devs_cap) {
        size_t cap = ctx->devs_cap ? ctx->devs_cap * 2 : 4;
        ra__dev **devs = ra__calloc(ctx, cap, sizeof *devs);
        if (!devs) {
            status = ra__ctx_error(ctx, RA_E_NOMEM, "out of memory adding a device");
            goto fail;
        }
        if (ctx->ndevs) memcpy(devs, ctx->devs, ctx->ndevs * sizeof *devs);
        ra__free(ctx, ctx->devs);
        ctx->devs = devs;
        ctx->devs_cap = cap;
    }
    dev = ra__calloc(ctx, 1, sizeof *dev);
    if (!dev) {
        status = ra__ctx_error(ctx, RA_E_NOMEM, "out of memory adding a device");
        goto fail;
    }
    dev->device = (ra_device){type, index};
    dev->ops = ops;
    dev->impl = impl;
    dev->index = ctx->ndevs;
    dev->host_memory = (RA__BACKEND_FLAGS(ops) & RA__BACKEND_HOST_MEMORY) != 0;
    atomic_init(&dev->used_bytes, 0);
    status = ops->query(impl, &dev->info);
    if (status != RA_OK) goto fail;
    ctx->devs[ctx->ndevs++] = dev;
    return RA_OK;

fail:
    ra__free(ctx, dev);
    if (ops && ops->close) ops->close(impl);
    return status;
}

int ra__size_check(ra_ctx *ctx, const void *s, size_t size, size_t first, size_t own,
                   const char *what)
{
    if (size == 0) return RA_OK;
    if (size < first)
        return ra__ctx_error(ctx, RA_E_ARG,
                             "%s: size is %zu, less than the struct's first layout (%zu bytes); "
                             "set it to sizeof the struct, or 0",
                             what, size, first);
    const unsigned char *bytes = s;
    for (size_t i = own; i < size; i++)
        if (bytes[i] != 0)
            return ra__ctx_error(ctx, RA_E_ARG,
                                 "%s: size is %zu and byte %zu is set, a field this refarray "
                                 "(%s, %zu bytes) does not know",
                                 what, size, i, ra_version(), own);
    return RA_OK;
}

void ra_ctx_destroy(ra_ctx *ctx)
{
    if (!ctx) return;
    for (size_t i = ctx->ndevs; i-- > 0;) {
        ctx->devs[i]->ops->close(ctx->devs[i]->impl);
        ra__free(ctx, ctx->devs[i]);
    }
    ra__free(ctx, ctx->devs);
    ra__thread *t = ctx->threads;
    while (t) {
        ra__thread *next = t->next;
        thread_free(ctx, t);
        t = next;
    }
    if (ra__tls_cache.serial == ctx->serial) {
        ra__tls_cache.serial = 0;
        ra__tls_cache.state = NULL;
    }
    pthread_mutex_destroy(&ctx->lock);
    ra_allocator a = ctx->allocator;
    a.release(ctx, a.user_data);
}

int ra_ctx_set_inference(ra_ctx *ctx, ra_inference rule)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_ctx_set_inference: ctx is NULL");
    if (rule != RA_INFER_2025 && rule != RA_INFER_LEGACY)
        return ra__ctx_error(ctx, RA_E_ARG, "ra_ctx_set_inference: unknown rule %d", (int)rule);
    atomic_store(&ctx->inference, (int)rule);
    return RA_OK;
}

ra_inference ra_ctx_inference(const ra_ctx *ctx)
{
    return ctx ? (ra_inference)atomic_load(&((ra_ctx *)ctx)->inference) : RA_INFER_2025;
}

int ra_ctx_set_soft_policy(ra_ctx *ctx, ra_soft_policy policy)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_ctx_set_soft_policy: ctx is NULL");
    if (policy != RA_SOFT_MOVE_MIXED && policy != RA_SOFT_MOVE_ALL)
        return ra__ctx_error(ctx, RA_E_ARG, "ra_ctx_set_soft_policy: unknown policy %d",
                             (int)policy);
    atomic_store(&ctx->soft_policy, (int)policy);
    return RA_OK;
}

ra_soft_policy ra_ctx_soft_policy(const ra_ctx *ctx)
{
    return ctx ? (ra_soft_policy)atomic_load(&((ra_ctx *)ctx)->soft_policy) : RA_SOFT_MOVE_ALL;
}
