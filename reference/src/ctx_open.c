/* ctx_open.c: opening a context, the top of the core: it knows the backends (host, and
 * OpenCL where built) and asks each to add its devices through the context's bookkeeping
 * (ctx.c), and registers the sharding layer's table (shard_ops.c) for shard.c. Nothing below
 * calls up into it. */
#include "internal.h"
#include "shard_internal.h"

#include <stdlib.h>
#include <string.h>

static _Atomic uint64_t next_ctx_serial = 1;

static void *default_alloc(size_t size, void *user_data)
{
    (void)user_data;
    return malloc(size);
}

static void default_release(void *ptr, void *user_data)
{
    (void)user_data;
    free(ptr);
}

int ra_ctx_create(const ra_ctx_options *in, ra_ctx **out)
{
    if (!out) return ra__ctx_error(NULL, RA_E_NULL, "ra_ctx_create: out is NULL");
    *out = NULL;
    ra_ctx_options local = {0};
    const ra_ctx_options *opts = NULL;
    if (in) {
        int status = ra__size_check(NULL, in, in->size, RA__CTX_OPTIONS_FIRST, sizeof *in,
                                    "ra_ctx_create: options");
        if (status != RA_OK) return status;
        size_t n = in->size == 0 ? RA__CTX_OPTIONS_FIRST : in->size;
        memcpy(&local, in, n < sizeof local ? n : sizeof local);
        opts = &local;
        if (opts->flags & ~(unsigned)RA_CTX_NO_OPENCL)
            return ra__ctx_error(NULL, RA_E_ARG, "ra_ctx_create: unknown flags 0x%x",
                                 opts->flags & ~(unsigned)RA_CTX_NO_OPENCL);
    }
    ra_allocator allocator = {default_alloc, default_release, NULL};
    if (opts && opts->allocator) {
        if (!opts->allocator->alloc || !opts->allocator->release)
            return ra__ctx_error(NULL, RA_E_NULL,
                                 "ra_ctx_create: allocator with a NULL alloc or release");
        allocator = *opts->allocator;
    }
    ra_ctx *ctx = allocator.alloc(sizeof *ctx, allocator.user_data);
    if (!ctx) return ra__ctx_error(NULL, RA_E_NOMEM, "ra_ctx_create: out of memory");
    memset(ctx, 0, sizeof *ctx);
    ctx->allocator = allocator;
    ctx->flags = opts ? opts->flags : 0;
    /* local holds zeros past what an older caller's options had */
    ctx->max_host_bytes = opts ? opts->max_host_bytes : 0;
    ctx->max_device_bytes = opts ? opts->max_device_bytes : 0;
    ctx->serial = atomic_fetch_add(&next_ctx_serial, 1);
    ctx->shard_layer = &ra__shard_layer;
    atomic_init(&ctx->inference, RA_INFER_2025);
    atomic_init(&ctx->promotion, RA_PROMOTION_ARRAY_API);
    atomic_init(&ctx->out_casting, RA_OUT_CAST_STATED);
    atomic_init(&ctx->soft_policy, RA_SOFT_MOVE_ALL);
    if (pthread_mutex_init(&ctx->lock, NULL) != 0) {
        allocator.release(ctx, allocator.user_data);
        return ra__ctx_error(NULL, RA_E_BACKEND, "ra_ctx_create: cannot create a mutex");
    }
    int status = ra__host_open(ctx);
    if (status != RA_OK) goto fail;
    ctx->host = ctx->devs[0];
#ifdef RA_HAVE_OPENCL
    if (!(ctx->flags & RA_CTX_NO_OPENCL)) {
        status = ra__opencl_backend_open(ctx);
        if (status != RA_OK) goto fail;
    }
#endif
    ctx->global_default = ra__builtin_default(ctx);
    *out = ctx;
    return RA_OK;

fail:
    /* Keep the detail: the context's message dies with it, so copy it to the free slot. */
    ra__ctx_keep_message(ctx, "ra_ctx_create");
    ra_ctx_destroy(ctx);
    return status;
}
