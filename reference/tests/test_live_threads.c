/* The list of arrays alive on a device under concurrent use (IVY-UTIL-6): four threads
 * create and release arrays on cpu (some kept a while, some released at once) while the main
 * thread lists them and gives its listed references back. Every listed array must still be intact
 * (not freed under the lister), nothing may be listed twice in one answer, and when the threads are
 * done nothing is alive. Each thread also holds one anchor array from before the first listing
 * until after the last, so every listing must find at least the four anchors, however the threads
 * are scheduled. Run under ThreadSanitizer with the label `threads`. */
#define _POSIX_C_SOURCE 200809L /* pthread barriers */
#include "ra_test.h"

#include <pthread.h>
#include <stdatomic.h>

#define THREADS 4
#define ROUNDS 3000
#define RING 8

static ra_ctx *ctx;
static atomic_int failures, finished;
/* start: every anchor exists; stop: the main thread has made its last listing. */
static pthread_barrier_t start, stop;

static void *churn(void *arg)
{
    (void)arg;
    int64_t s4[1] = {4};
    /* Each thread keeps its last RING arrays alive, so that listings find some. */
    ra_array *ring[RING] = {NULL};
    ra_array *anchor = NULL;
    if (ra_ones(ctx, s4, 1, &(ra_opts){.dtype = RA_INT32, .device_value = &RA_CPU}, &anchor) !=
        RA_OK)
        atomic_fetch_add(&failures, 1);
    pthread_barrier_wait(&start);
    for (int i = 0; i < ROUNDS; i++) {
        ra_array_release(ring[i % RING]);
        ring[i % RING] = NULL;
        if (ra_ones(ctx, s4, 1, &(ra_opts){.dtype = RA_INT32, .device_value = &RA_CPU},
                    &ring[i % RING]) != RA_OK)
            atomic_fetch_add(&failures, 1);
        /* Arrays made and released at once, as results of small operations are: each is made
         * from the header the one before left, revived in place, without the list's lock, when
         * no other thread made one in between (live.c). */
        for (int k = 0; k < 2; k++) {
            ra_array *q = NULL;
            if (ra_full(ctx, s4, 1, ra_scalar_float(k),
                        &(ra_opts){.dtype = RA_FLOAT32, .device_value = &RA_CPU}, &q) != RA_OK)
                atomic_fetch_add(&failures, 1);
            ra_array_release(q);
        }
    }
    for (int i = 0; i < RING; i++)
        ra_array_release(ring[i]);
    atomic_fetch_add(&finished, 1);
    pthread_barrier_wait(&stop);
    ra_array_release(anchor);
    return NULL;
}

DT_TEST(live_threads)
{
    ctx = open_ctx();
    pthread_barrier_init(&start, NULL, THREADS + 1);
    pthread_barrier_init(&stop, NULL, THREADS + 1);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, churn, NULL);
    int bad_reads = 0, duplicates = 0, calls = 0, errors = 0, short_lists = 0;
    size_t listed = 0;
    pthread_barrier_wait(&start);
    /* List until every thread is done, and at least 200 times. */
    for (int round = 0; round < 200 || atomic_load(&finished) < THREADS; round++) {
        ra_array *list[16];
        size_t n = 0;
        if (ra_util_arrays_on_device(ctx, RA_CPU, list, 16, &n) != RA_OK) {
            errors++;
            continue;
        }
        calls++;
        if (n < THREADS) short_lists++;
        size_t got = n < 16 ? n : 16;
        listed += got;
        for (size_t i = 0; i < got; i++) {
            /* The data of an array another thread is still creating may not be written yet
             * (refarray.h), so the check reads what is set before an array is listed. */
            ra_dtype dt = ra_array_dtype(list[i]);
            if ((dt != RA_INT32 && dt != RA_FLOAT32) || ra_array_size(list[i]) != 4 ||
                !ra_device_eq(ra_array_device(list[i]), RA_CPU))
                bad_reads++;
            for (size_t j = 0; j < i; j++)
                duplicates += list[j] == list[i];
        }
        for (size_t i = 0; i < got; i++)
            ra_array_release(list[i]);
    }
    pthread_barrier_wait(&stop);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    pthread_barrier_destroy(&stop);
    dt_diag("%zu arrays listed over %d calls while the threads ran", listed, calls);
    ASSERT_INT(short_lists, 0,
               "IVY-UTIL-6 every listing found at least the %d anchors alive throughout", THREADS);
    ASSERT_INT(atomic_load(&failures), 0, "the threads created all their arrays");
    ASSERT_INT(errors, 0, "every listing succeeded (%d calls)", calls);
    ASSERT_INT(bad_reads, 0,
               "IVY-UTIL-6 every listed array was alive (its device, dtype and shape intact)");
    ASSERT_INT(duplicates, 0, "no array listed twice in one answer");
    size_t n = 99;
    ASSERT_STATUS(ctx, ra_util_arrays_on_device(ctx, RA_CPU, NULL, 0, &n), RA_OK, "final count");
    ASSERT_INT(n, 0, "IVY-UTIL-6 nothing is alive once every thread has released its arrays");
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(live_threads))
