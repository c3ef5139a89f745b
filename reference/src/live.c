/* live.c: the context's list of live arrays, for ra_util_arrays_on_device (IVY-UTIL-6, util.c).
 *
 * Every array joins the list when it is created and leaves it when its last reference is
 * released, before it is freed. The list is guarded by the context's lock; listing takes a
 * reference to each array under that lock, and only from arrays whose count is still above
 * zero, so an array being released concurrently is never revived nor read after its free
 * (its releaser waits for the lock before unlinking and freeing it). */
#include "internal.h"

void ra__live_add(ra_array *x)
{
    ra_ctx *ctx = x->ctx;
    pthread_mutex_lock(&ctx->lock);
    x->live_next = NULL;
    x->live_prev = ctx->live_tail;
    if (ctx->live_tail)
        ctx->live_tail->live_next = x;
    else
        ctx->live_head = x;
    ctx->live_tail = x;
    pthread_mutex_unlock(&ctx->lock);
}

void ra__live_remove(ra_array *x)
{
    ra_ctx *ctx = x->ctx;
    pthread_mutex_lock(&ctx->lock);
    if (x->live_prev)
        x->live_prev->live_next = x->live_next;
    else
        ctx->live_head = x->live_next;
    if (x->live_next)
        x->live_next->live_prev = x->live_prev;
    else
        ctx->live_tail = x->live_prev;
    x->live_prev = x->live_next = NULL;
    pthread_mutex_unlock(&ctx->lock);
}

/* Adds a reference unless the count has already reached zero (the array is being freed). */
static bool retain_if_alive(ra_array *x)
{
    long n = atomic_load(&x->refs);
    while (n > 0)
        if (atomic_compare_exchange_weak(&x->refs, &n, n + 1)) return true;
    return false;
}

int ra__live_collect(ra_ctx *ctx, const ra__dev *d, ra_array **out, size_t cap, size_t *count)
{
    size_t n = 0;
    pthread_mutex_lock(&ctx->lock);
    for (ra_array *x = ctx->live_head; x; x = x->live_next) {
        /* Sharded arrays have no single device; their pieces are theirs, not the caller's. */
        if (x->dev != d || x->layer || x->layer_piece) continue;
        if (n < cap) {
            if (!retain_if_alive(x)) continue;
            out[n] = x;
        } else if (atomic_load(&x->refs) == 0) {
            continue;
        }
        n++;
    }
    pthread_mutex_unlock(&ctx->lock);
    *count = n;
    return RA_OK;
}
