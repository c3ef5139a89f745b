/* Thread tests: scoped defaults, soft mode and detail messages are per thread; the global
 * default is shared; arrays and the context can be used from several threads at once. CI
 * runs this program under ThreadSanitizer (CTest label `threads`). */
#define _POSIX_C_SOURCE 200809L
#include "ra_test.h"

#include <pthread.h>

#define NTHREADS 4

static ra_ctx *ctx;
static ra_device devs[16];
static size_t ndevs;
static pthread_barrier_t barrier;
static ra_array *shared_array;

typedef struct worker {
    int id;
    ra_device scope;     /* the device this thread pushes */
    bool saw_own_scope;  /* default_device() was its own scope after everyone pushed */
    bool array_on_scope; /* zeros() landed on its scope's device */
    bool soft_own;       /* soft mode is what this thread set */
    bool message_own;    /* its detail message is its own */
    bool restored;       /* after pop, the global default is back */
    bool ops_ok;         /* many operations on the shared array gave the right sum */
    char message[256];
} worker;

static void *run(void *arg)
{
    worker *w = arg;
    /* Odd threads turn soft mode on, even ones leave it off. */
    if (w->id % 2) ra_soft_set(ctx, true);
    ra_default_push(ctx, w->scope);
    char bad[32];
    snprintf(bad, sizeof bad, "bad%d", w->id);
    ra_device d;
    ra_device_parse(ctx, bad, &d);
    pthread_barrier_wait(&barrier); /* everyone has pushed and failed once */
    w->saw_own_scope = ra_device_eq(ra_default_device(ctx), w->scope);
    ra_array *x = NULL;
    if (ra_zeros(ctx, NULL, 0, &(ra_opts){.dtype = RA_FLOAT32}, &x) == RA_OK)
        w->array_on_scope = ra_device_eq(ra_array_device(x), w->scope);
    ra_array_release(x);
    /* The scope turned soft mode on for everyone; below it each thread has its own. */
    bool in_scope_soft = ra_soft_get(ctx);
    char want[40];
    snprintf(want, sizeof want, "'%s'", bad);
    snprintf(w->message, sizeof w->message, "%s", ra_ctx_message(ctx));
    w->message_own = strstr(w->message, want) != NULL;
    pthread_barrier_wait(&barrier); /* everyone has looked */
    ra_default_pop(ctx);
    w->soft_own = in_scope_soft && ra_soft_get(ctx) == (w->id % 2 == 1);
    w->restored = ra_device_eq(ra_default_device(ctx), ra_default_global(ctx));
    /* Concurrent operations on one shared array, with retain and release from every thread. */
    w->ops_ok = true;
    for (int i = 0; i < 50 && w->ops_ok; i++) {
        ra_array *mine = ra_array_retain(shared_array), *y = NULL, *s = NULL;
        double total = 0;
        w->ops_ok = ra_binary(ctx, RA_MULTIPLY, ra_operand_array(mine),
                              ra_operand_scalar(ra_scalar_int(2)), &y) == RA_OK &&
                    ra_reduce(ctx, RA_SUM, y, NULL, &s) == RA_OK &&
                    read_values(ctx, s, &total, 1) == 1 && total == 2 * 4950;
        ra_array_release(s);
        ra_array_release(y);
        ra_array_release(mine);
    }
    if (w->id % 2) ra_soft_unset(ctx);
    if (w->id == 0) ra_ctx_thread_release(ctx); /* the others leave theirs to ra_ctx_destroy */
    return NULL;
}

static void *set_global(void *arg)
{
    ra_device *d = arg;
    ra_default_set(ctx, *d);
    return NULL;
}

DT_TEST(threads)
{
    ctx = open_ctx();
    ndevs = list_devices(ctx, devs);
    /* The shared array is on cpu: this test is about the core's own concurrency (reference
     * counts, per-thread state, the context's lock); concurrent kernels on OpenCL devices
     * are tested by tests/opencl. */
    ra_arange(ctx, ra_scalar_int(100), NULL, NULL, &(ra_opts){.dtype = RA_INT32, .device = "cpu"},
              &shared_array);
    pthread_barrier_init(&barrier, NULL, NTHREADS);
    pthread_t threads[NTHREADS];
    worker w[NTHREADS];
    memset(w, 0, sizeof w);
    for (int i = 0; i < NTHREADS; i++) {
        w[i].id = i;
        w[i].scope = devs[(size_t)i % ndevs];
        pthread_create(&threads[i], NULL, run, &w[i]);
    }
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&barrier);
    if (ndevs < 2)
        dt_diag("only cpu here: every thread's scope is cpu, so scopes are told apart by "
                "soft mode and messages only");
    for (int i = 0; i < NTHREADS; i++) {
        char ds[RA_DEVICE_STR_MAX];
        dev_str(w[i].scope, ds);
        CHECK(w[i].saw_own_scope, "thread %d sees its own scoped default %s, not the others'", i,
              ds);
        CHECK(w[i].array_on_scope, "thread %d creates arrays on its scope's device %s", i, ds);
        CHECK(w[i].soft_own, "thread %d: soft mode is per thread (%s below the scope)", i,
              i % 2 ? "on" : "off");
        if (!CHECK(w[i].message_own, "thread %d keeps its own detail message", i))
            printf("#   observed \"%s\"\n", w[i].message);
        CHECK(w[i].restored, "thread %d: after pop the global default is back", i);
        CHECK(w[i].ops_ok, "thread %d: 50 concurrent multiply+sum on a shared array", i);
    }
    ASSERT_INT(ra_default_depth(ctx), 0, "the main thread never had a scope");
    CHECK(!ra_soft_get(ctx), "the main thread's soft mode is off");
    /* The global default is shared: set in one thread, seen in another. */
    ra_device last = devs[ndevs - 1];
    pthread_t t;
    pthread_create(&t, NULL, set_global, &last);
    pthread_join(t, NULL);
    ASSERT_DEV(ra_default_global(ctx), last, "a global default set in another thread is seen");
    ra_default_unset(ctx);
    ra_array_release(shared_array);
    ra_ctx_destroy(ctx);
}

/* Used memory and the arrays alive, with arrays made and released on other threads: each
 * thread counts its own bytes (ctx.c), and a thread that frees its state hands its count to
 * the device's. */
static ra_array *handed;

/* Makes handed (4096 bytes on cpu); frees the thread's state after when arg is non-NULL. */
static void *make_handed(void *arg)
{
    int64_t s[1] = {1024};
    ra_zeros(ctx, s, 1, &(ra_opts){.dtype = RA_FLOAT32, .device = "cpu"}, &handed);
    if (arg) ra_ctx_thread_release(ctx);
    return NULL;
}

static void *release_handed(void *arg)
{
    (void)arg;
    ra_array_release(handed);
    return NULL;
}

DT_TEST(used_across_threads)
{
    ctx = open_ctx();
    uint64_t used0 = 1, used = 1;
    size_t n = 99;
    ASSERT_STATUS(ctx, ra_util_used_memory(ctx, RA_CPU, &used0), RA_OK, "used on cpu");
    pthread_t t;
    static int leave = 1;
    pthread_create(&t, NULL, make_handed, &leave);
    pthread_join(t, NULL);
    ASSERT_STATUS(ctx, ra_util_used_memory(ctx, RA_CPU, &used), RA_OK, "used on cpu");
    ASSERT_INT((long long)(used - used0), 4096,
               "IVY-UTIL-4 an array made by a thread that freed its state is counted");
    ra_util_arrays_on_device(ctx, RA_CPU, NULL, 0, &n);
    ASSERT_INT(n, 1, "IVY-UTIL-6 it is alive");
    pthread_create(&t, NULL, release_handed, NULL);
    pthread_join(t, NULL);
    ASSERT_STATUS(ctx, ra_util_used_memory(ctx, RA_CPU, &used), RA_OK, "used on cpu");
    ASSERT_INT((long long)(used - used0), 0,
               "IVY-UTIL-4 released by another thread, whose state stays: no longer counted");
    ra_util_arrays_on_device(ctx, RA_CPU, NULL, 0, &n);
    ASSERT_INT(n, 0, "IVY-UTIL-6 nothing is alive");
    /* The other way: made by a thread that keeps its state, released here. */
    pthread_create(&t, NULL, make_handed, NULL);
    pthread_join(t, NULL);
    ASSERT_STATUS(ctx, ra_util_used_memory(ctx, RA_CPU, &used), RA_OK, "used on cpu");
    ASSERT_INT((long long)(used - used0), 4096, "IVY-UTIL-4 made by a thread that keeps its state");
    ra_array_release(handed);
    ASSERT_STATUS(ctx, ra_util_used_memory(ctx, RA_CPU, &used), RA_OK, "used on cpu");
    ASSERT_INT((long long)(used - used0), 0, "IVY-UTIL-4 released here: no longer counted");
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(threads), DT_ENTRY(used_across_threads))
