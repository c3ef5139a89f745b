/* defaults.c: the global default device, scoped defaults, soft device mode and the
 * inference order of functions with a device option. */
#include "internal.h"

#include <string.h>

ra_device ra_default_global(ra_ctx *ctx)
{
    if (!ctx) return RA_NO_DEVICE;
    pthread_mutex_lock(&ctx->lock);
    ra_device d = ctx->global_default;
    pthread_mutex_unlock(&ctx->lock);
    return d;
}

bool ra__scope_top(ra_ctx *ctx, ra_device *out)
{
    ra__thread *t = ra__thread_get(ctx);
    if (!t || t->nscopes == 0) return false;
    *out = t->scopes[t->nscopes - 1];
    return true;
}

ra_device ra_default_device(ra_ctx *ctx)
{
    if (!ctx) return RA_NO_DEVICE;
    ra_device d;
    if (ra__scope_top(ctx, &d)) return d;
    return ra_default_global(ctx);
}

int ra_default_set(ra_ctx *ctx, ra_device dev)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_default_set: ctx is NULL");
    ra__dev *d;
    int status = ra__ctx_require(ctx, dev, "ra_default_set", &d);
    if (status != RA_OK) return status;
    pthread_mutex_lock(&ctx->lock);
    ctx->global_default = dev;
    ctx->global_default_set = true;
    pthread_mutex_unlock(&ctx->lock);
    return RA_OK;
}

int ra_default_unset(ra_ctx *ctx)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_default_unset: ctx is NULL");
    pthread_mutex_lock(&ctx->lock);
    ctx->global_default = ra__builtin_default(ctx);
    ctx->global_default_set = false;
    pthread_mutex_unlock(&ctx->lock);
    return RA_OK;
}

/* Grows a per-thread stack to hold one more element. */
static bool grow(ra_ctx *ctx, void **items, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap) return true;
    size_t new_cap = *cap ? *cap * 2 : 8;
    void *p = ra__calloc(ctx, new_cap, elem);
    if (!p) return false;
    if (n) memcpy(p, *items, n * elem);
    ra__free(ctx, *items);
    *items = p;
    *cap = new_cap;
    return true;
}

static int soft_push(ra_ctx *ctx, ra__thread *t, bool enabled)
{
    void *items = t->soft;
    if (!grow(ctx, &items, &t->soft_cap, t->nsoft, sizeof *t->soft))
        return ra__ctx_error(ctx, RA_E_NOMEM, "soft mode: out of memory");
    t->soft = items;
    t->soft[t->nsoft++] = enabled;
    return RA_OK;
}

int ra_default_push(ra_ctx *ctx, ra_device dev)
{
    static const char fn[] = "ra_default_push";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    ra__dev *d;
    int status = ra__ctx_require(ctx, dev, fn, &d);
    if (status != RA_OK) return status;
    ra__thread *t = ra__thread_get(ctx);
    if (!t) return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory for thread state", fn);
    /* Both stacks grow first, so a failure changes nothing. */
    size_t scopes_cap = t->scopes_cap;
    void *scopes = t->scopes;
    if (!grow(ctx, &scopes, &scopes_cap, t->nscopes, sizeof *t->scopes))
        return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    t->scopes = scopes;
    void *depths = t->scope_soft_depth;
    size_t depth_cap = t->scopes_cap;
    if (!grow(ctx, &depths, &depth_cap, t->nscopes, sizeof *t->scope_soft_depth))
        return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    t->scope_soft_depth = depths;
    t->scopes_cap = scopes_cap < depth_cap ? scopes_cap : depth_cap;
    size_t soft_depth = t->nsoft;
    status = soft_push(ctx, t, true);
    if (status != RA_OK) return status;
    t->scopes[t->nscopes] = dev;
    t->scope_soft_depth[t->nscopes] = soft_depth;
    t->nscopes++;
    return RA_OK;
}

int ra_default_pop(ra_ctx *ctx)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_default_pop: ctx is NULL");
    ra__thread *t = ra__thread_get(ctx);
    if (!t || t->nscopes == 0)
        return ra__ctx_error(ctx, RA_E_SCOPE_EMPTY,
                             "ra_default_pop: this thread has no scoped default to pop "
                             "(every pop needs an earlier ra_default_push in the same thread)");
    t->nscopes--;
    /* Soft mode returns to exactly its state before the push: the scope's own entry and
     * anything set inside the scope and not unset are dropped. */
    t->nsoft = t->scope_soft_depth[t->nscopes];
    return RA_OK;
}

size_t ra_default_depth(ra_ctx *ctx)
{
    if (!ctx) return 0;
    ra__thread *t = ra__thread_get(ctx);
    return t ? t->nscopes : 0;
}

int ra_soft_set(ra_ctx *ctx, bool enabled)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_soft_set: ctx is NULL");
    ra__thread *t = ra__thread_get(ctx);
    if (!t) return ra__ctx_error(ctx, RA_E_NOMEM, "ra_soft_set: out of memory for thread state");
    return soft_push(ctx, t, enabled);
}

int ra_soft_unset(ra_ctx *ctx)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_soft_unset: ctx is NULL");
    ra__thread *t = ra__thread_get(ctx);
    if (!t) return RA_OK;
    /* A scope's own entry is not popped by unset: it belongs to the scope and goes with
     * ra_default_pop. On an empty stack (or at a scope's floor) unset is a no-op, as Ivy's
     * unset_soft_device_mode on an empty stack. */
    size_t floor = t->nscopes ? t->scope_soft_depth[t->nscopes - 1] + 1 : 0;
    if (t->nsoft > floor) t->nsoft--;
    return RA_OK;
}

bool ra_soft_get(ra_ctx *ctx)
{
    if (!ctx) return false;
    ra__thread *t = ra__thread_get(ctx);
    return t && t->nsoft ? t->soft[t->nsoft - 1] : false;
}

int ra__infer_device(ra_ctx *ctx, const ra_opts *opts, const ra__dev *array_dev, const char *what,
                     ra__dev **out)
{
    bool given;
    ra_device dev;
    int status = ra__opts_device(ctx, opts, what, &given, &dev);
    if (status != RA_OK) return status;
    if (!given) {
        ra_device scoped;
        bool has_scope = ra__scope_top(ctx, &scoped);
        bool legacy = ra_ctx_inference(ctx) == RA_INFER_LEGACY;
        /* Soft mode under the move-all policy runs every function that takes an array on the
         * default device, as it does operations (IVY-SOFT-1, IVY-SOFT-5; inside a scope
         * IVY-CTX-1): the array argument is moved there. */
        bool soft_moves =
            array_dev && ra_soft_get(ctx) && ra_ctx_soft_policy(ctx) == RA_SOFT_MOVE_ALL;
        if (soft_moves)
            dev = ra_default_device(ctx);
        else if (has_scope && (legacy || !array_dev))
            dev = scoped; /* DEV-DS-14a (legacy: the scope beats the array) / 14b (3) */
        else if (array_dev)
            dev = array_dev->device; /* DEV-DS-14b (2), DEV-CREATE-2/3/6 */
        else
            dev = ra_default_global(ctx); /* DEV-DS-14a/b: the global default */
    }
    return ra__ctx_require(ctx, dev, what, out);
}
