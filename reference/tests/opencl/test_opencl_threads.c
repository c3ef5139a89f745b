/*
 * test_opencl_threads.c: several threads use the same OpenCL devices of one context at
 * once (the header promises a context may be used from several threads). Each thread
 * builds kernels (the first use races on the kernel cache), allocates, computes with an
 * array shared by all threads, and checks its own results; freed buffers go through the
 * shared pool. CTest label "threads": CI also runs it under ThreadSanitizer.
 */
#include "common.h"

#include <pthread.h>

#define THREADS 4
#define ROUNDS 25

static ra_ctx *ctx;
static ra_device gpus[4];
static size_t ngpu;
static ra_array *shared[4]; /* arange(256) float32 on each gpu */

typedef struct job {
    int id;
    int failures;
    char first_error[256];
} job;

static void *worker(void *arg)
{
    job *j = arg;
    const int64_t n = 256;
    for (int r = 0; r < ROUNDS; r++) {
        size_t g = (size_t)(j->id + r) % ngpu;
        ra_dtype t = (r % 2) ? RA_FLOAT32 : RA_INT32;
        ra_array *x = NULL, *xf = NULL, *y = NULL, *s = NULL;
        int st = ra_full(ctx, &n, 1, ra_scalar_int(j->id + r),
                         &(ra_opts){.dtype = t, .device_value = &gpus[g]}, &x);
        if (st == RA_OK) st = ra_astype(ctx, x, RA_FLOAT32, NULL, &xf);
        if (st == RA_OK)
            st = ra_binary(ctx, RA_ADD, ra_operand_array(xf), ra_operand_array(shared[g]), &y);
        if (st == RA_OK) st = ra_reduce(ctx, RA_SUM, y, NULL, &s);
        float sum = 0;
        if (st == RA_OK) st = ra_array_read(ctx, s, &sum, sizeof sum);
        /* sum(k + i for i < 256) = 256 k + 255 * 256 / 2, exact in float32. */
        float want = 256.0f * (float)(j->id + r) + 32640.0f;
        if (st != RA_OK || sum != want) {
            if (j->failures++ == 0)
                snprintf(j->first_error, sizeof j->first_error,
                         "round %d on gpu:%zu: status %s (%s), sum %g, expected %g", r, g,
                         ra_status_name(st), ra_ctx_message(ctx), sum, want);
        }
        ra_array_release(x);
        ra_array_release(xf);
        ra_array_release(y);
        ra_array_release(s);
    }
    ra_ctx_thread_release(ctx);
    return NULL;
}

DT_TEST(opencl_threads)
{
    if (!CHECK(ra_ctx_create(NULL, &ctx) == RA_OK, "context created")) return;
    ngpu = gpu_devices(ctx, gpus, 4);
    if (ngpu == 0) {
        skip_part("no OpenCL device is available", "threads sharing gpu devices");
        ra_ctx_destroy(ctx);
        return;
    }
    bool made = true;
    for (size_t g = 0; g < ngpu; g++)
        made = made && ra_arange(ctx, ra_scalar_int(256), NULL, NULL,
                                 &(ra_opts){.dtype = RA_FLOAT32, .device_value = &gpus[g]},
                                 &shared[g]) == RA_OK;
    if (CHECK(made, "shared inputs on every gpu")) {
        pthread_t th[THREADS];
        job jobs[THREADS];
        for (int i = 0; i < THREADS; i++) {
            jobs[i] = (job){.id = i};
            pthread_create(&th[i], NULL, worker, &jobs[i]);
        }
        for (int i = 0; i < THREADS; i++)
            pthread_join(th[i], NULL);
        for (int i = 0; i < THREADS; i++) {
            if (!CHECK(jobs[i].failures == 0, "thread %d: %d rounds on %zu gpu devices correct", i,
                       ROUNDS, ngpu))
                printf("#   %d failures; first: %s\n", jobs[i].failures, jobs[i].first_error);
        }
    }
    for (size_t g = 0; g < ngpu; g++)
        ra_array_release(shared[g]);
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(opencl_threads))
