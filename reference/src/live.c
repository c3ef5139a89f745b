/* live.c: the context's list of live arrays, for ra_util_arrays_on_device (IVY-UTIL-6, util.c).
 *
 * Every array joins the list when it is made (at the end: the list is in the order of
 * creation) and its header leaves it only under the list's lock. When an array's last
 * reference is released, its data is freed at once but its header may stay in the list, with
 * a count of zero, as its thread's spare: that thread's next array takes the header over and
 * moves it to the end, so a small operation on one thread allocates nothing for its result
 * and takes the lock once. The listing holds the lock, reads only the members the list owns
 * (the count and listed_on, both atomics, which a thread filling its spare may store to), and
 * takes a reference only from a count still above zero, so an array being released is never
 * revived, and a spare is never listed. A header is freed only once it is out of the list.
 *
 * The release of an array's only reference takes no locked instruction (ra__release_sole):
 * the thread that holds it is the only one that may change the count, but for a listing,
 * which takes references from a count above zero. The two meet as in Dekker's algorithm,
 * with the fence on the listing's side only: the releasing thread reads the context's count
 * of listings (odd while one runs), reads the array's count, marks the header (releasing)
 * and reads the listings' count again, with no fence between; the listing makes the count
 * odd and then has every thread of the process execute a full memory barrier (Linux's
 * membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED) before it reads the marks, and makes the
 * count even again when done. So either the releasing thread sees the listing (the count
 * odd, or changed between its two reads) and takes the locked decrement, or the listing sees
 * the mark and takes no reference. The count, not a flag set and cleared: a listing that
 * took a reference to the array and ended between the release's reading of the array's
 * count and its second look would leave a flag as it found it, and the release, sure of
 * holding the only reference, would have made the header its spare under the listing's
 * caller (ThreadSanitizer found it in test_live_threads). Where the kernel has no such
 * barrier every release takes the locked decrement. */
#include "internal.h"

ra_array *ra__live_header_new(ra_ctx *ctx, size_t block, bool room)
{
    ra_array *x = ra__alloc(ctx, block);
    if (!x) return NULL;
    atomic_init(&x->refs, 0);
    x->live_prev = x->live_next = NULL;
    atomic_init(&x->listed_on, NULL);
    atomic_init(&x->releasing, false);
    x->linked = false;
    x->inline_room = room;
    return x;
}

void ra__live_append(ra_ctx *ctx, ra_array *x)
{
    /* ra__live_add revives a spare that is still the last header in place, without the lock:
     * only another thread's array made meanwhile can come before it in the list, and the
     * order of arrays made at once by two threads is not defined; one made before this call
     * (happening before it) is seen as the last, and the header moves behind it, here. */
    ra__live_lock(ctx);
    if (x->linked) ra__live_unlink(ctx, x);
    ra_array *tail = atomic_load_explicit(&ctx->live_tail, memory_order_relaxed);
    x->live_next = NULL;
    x->live_prev = tail;
    if (tail)
        tail->live_next = x;
    else
        ctx->live_head = x;
    atomic_store_explicit(&ctx->live_tail, x, memory_order_relaxed);
    x->linked = true;
    /* Under the lock: a listing that finds the count above zero finds the header whole. */
    atomic_store_explicit(&x->refs, 1, memory_order_relaxed);
    ra__live_unlock(ctx);
}

void ra__live_free(ra_ctx *ctx, ra_array *x)
{
    ra__live_lock(ctx);
    ra__live_unlink(ctx, x);
    ra__live_unlock(ctx);
    ra__free(ctx, x);
}

/* Adds a reference unless the count has already reached zero (released, or a spare) or its
 * only holder is releasing it without a locked instruction (seen after ra__listing_fence). */
static bool retain_if_alive(ra_array *x)
{
    if (atomic_load_explicit(&x->releasing, memory_order_relaxed)) return false;
    long n = atomic_load(&x->refs);
    while (n > 0)
        if (atomic_compare_exchange_weak(&x->refs, &n, n + 1)) return true;
    return false;
}

int ra__live_collect(ra_ctx *ctx, const ra__dev *d, ra_array **out, size_t cap, size_t *count)
{
    size_t n = 0;
    ra__listing_barrier_init();
    bool barrier = atomic_load_explicit(&ra__listing_barrier, memory_order_relaxed);
    ra__live_lock(ctx);
    unsigned long listings = atomic_load_explicit(&ctx->listings, memory_order_relaxed);
    if (barrier) {
        /* From here every release sees the listing (the count odd, or changed since it read
         * it) or has its mark seen (the file's comment). */
        atomic_store_explicit(&ctx->listings, listings + 1, memory_order_relaxed);
        ra__listing_fence();
    }
    for (ra_array *x = ctx->live_head; x; x = x->live_next) {
        /* Sharded arrays have no single device, and their pieces are theirs, not the
         * caller's: their listed_on is NULL. */
        if (atomic_load_explicit(&x->listed_on, memory_order_relaxed) != d) continue;
        if (n < cap) {
            if (!retain_if_alive(x)) continue;
            out[n] = x;
        } else if (atomic_load(&x->refs) == 0 ||
                   atomic_load_explicit(&x->releasing, memory_order_relaxed)) {
            continue;
        }
        n++;
    }
    if (barrier) atomic_store_explicit(&ctx->listings, listings + 2, memory_order_release);
    ra__live_unlock(ctx);
    *count = n;
    return RA_OK;
}
