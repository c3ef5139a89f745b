/*
 * refarray-bench-shard: the cost of sharding, against the same work unsharded, measured in
 * the same run and printed as ratios.
 *
 *   refarray-bench-shard [--runs N]
 *
 * Needs two OpenCL devices (POCL_DEVICES="pthread pthread"). Pairs, each timed alternately
 * (subject, baseline, subject, ...) as medians of N runs (default 9) after one warm-up call:
 *  - add of two 16M-element float32 arrays split along axis 0 over gpu:0 and gpu:1, against
 *    the same add on gpu:0 alone;
 *  - gather of a 64 MiB array split over gpu:0 and gpu:1 to cpu, against memcpy of 64 MiB
 *    into a touched buffer, and against ra_to_device of the same array from gpu:0 alone;
 *  - add of two 2-element arrays split over gpu:0 and gpu:1 (one element per piece), against
 *    a 1-element add on gpu:0: what sharding adds per piece when there is nothing to compute.
 * A ratio is baseline time / sharded time (1.0: as fast as the baseline).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_util.h"
#include "refarray.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int runs = 9;

typedef struct state {
    ra_ctx *ctx;
    ra_array *sa, *sb;   /* 16M float32, split over gpu:0, gpu:1 */
    ra_array *ga, *gb;   /* the same on gpu:0 */
    ra_array *s1a, *s1b; /* 2 elements, one per piece */
    ra_array *g1a, *g1b; /* 1 element on gpu:0 */
    float *src, *dst;    /* 64 MiB, touched */
    size_t bytes;
} state;

static int add(state *s, ra_array *a, ra_array *b)
{
    ra_array *c = NULL;
    int st = ra_binary(s->ctx, RA_ADD, ra_operand_array(a), ra_operand_array(b), &c);
    ra_array_release(c);
    return st;
}

static int s_add(void *arg)
{
    state *s = arg;
    return add(s, s->sa, s->sb);
}
static int b_add(void *arg)
{
    state *s = arg;
    return add(s, s->ga, s->gb);
}
static int s_add1(void *arg)
{
    state *s = arg;
    return add(s, s->s1a, s->s1b);
}
static int b_add1(void *arg)
{
    state *s = arg;
    return add(s, s->g1a, s->g1b);
}
static int s_gather(void *arg)
{
    state *s = arg;
    ra_array *h = NULL;
    int st = ra_to_device(s->ctx, s->sa, RA_CPU, NULL, &h);
    ra_array_release(h);
    return st;
}
static int b_to_cpu(void *arg)
{
    state *s = arg;
    ra_array *h = NULL;
    int st = ra_to_device(s->ctx, s->ga, RA_CPU, NULL, &h);
    ra_array_release(h);
    return st;
}
static int b_memcpy(void *arg)
{
    state *s = arg;
    memcpy(s->dst, s->src, s->bytes);
    return 0;
}

static int measure(state *s, bench_fn subject, bench_fn baseline, bench_pair *out)
{
    return bench_measure_pair(subject, baseline, s, runs, out);
}

static int fail(ra_ctx *ctx, int st, const char *what)
{
    fprintf(stderr, "refarray-bench-shard: %s: %s: %s\n", what, ra_status_name(st),
            ra_ctx_message(ctx));
    return 1;
}

/* x with n float32 elements of value v on gpu:0, and its split over both gpus. */
static int make(ra_ctx *ctx, int64_t n, float v, const ra_device *gpus, ra_array **single,
                ra_array **sharded)
{
    int axis = 0;
    int st = ra_full(ctx, &n, 1, ra_scalar_float(v),
                     &(ra_opts){.dtype = RA_FLOAT32, .device_value = &gpus[0]}, single);
    if (st == RA_OK) st = ra_shard(ctx, *single, gpus, 2, &axis, NULL, sharded);
    return st;
}

int main(int argc, char **argv)
{
    if (bench_parse_runs(argc, argv, "refarray-bench-shard", &runs)) return 2;
    state s = {0};
    int st = ra_ctx_create(NULL, &s.ctx);
    if (st != RA_OK) return fail(NULL, st, "ra_ctx_create");
    if (ra_util_num_gpus(s.ctx) < 2) {
        printf("refarray-bench-shard: needs two OpenCL devices (POCL_DEVICES=\"pthread "
               "pthread\"); skipped\n");
        ra_ctx_destroy(s.ctx);
        return 0;
    }
    ra_device gpus[2] = {{RA_DEVICE_GPU, 0}, {RA_DEVICE_GPU, 1}};
    const int64_t n = 16 * 1024 * 1024;
    s.bytes = (size_t)n * sizeof(float);
    if ((st = make(s.ctx, n, 1.5f, gpus, &s.ga, &s.sa)) ||
        (st = make(s.ctx, n, 2.5f, gpus, &s.gb, &s.sb)) ||
        (st = make(s.ctx, 2, 1.0f, gpus, &s.g1a, &s.s1a)) ||
        (st = make(s.ctx, 2, 2.0f, gpus, &s.g1b, &s.s1b)))
        return fail(s.ctx, st, "creating the operands");
    /* The single-device 1-element operands: the first element of the 2-element ones. */
    ra_array_release(s.g1a);
    ra_array_release(s.g1b);
    int64_t one = 1;
    ra_opts on0 = {.dtype = RA_FLOAT32, .device_value = &gpus[0]};
    if ((st = ra_full(s.ctx, &one, 1, ra_scalar_float(1), &on0, &s.g1a)) ||
        (st = ra_full(s.ctx, &one, 1, ra_scalar_float(2), &on0, &s.g1b)))
        return fail(s.ctx, st, "creating the 1-element operands");
    s.src = malloc(s.bytes);
    s.dst = malloc(s.bytes);
    if (!s.src || !s.dst) return fail(s.ctx, RA_E_NOMEM, "host buffers");
    memset(s.src, 1, s.bytes);
    memset(s.dst, 0, s.bytes);

    printf("refarray-bench-shard: %d runs per figure (medians), gpu:0 + gpu:1; ratio = baseline "
           "time / sharded time, reported (no goal is set for sharding)\n",
           runs);
    bench_pair p;
    if (measure(&s, s_add, b_add, &p)) return fail(s.ctx, st, "16M add");
    printf("add 16M float32   sharded %8.3f ms   gpu:0 alone %8.3f ms   ratio %.2f\n",
           p.subject * 1e3, p.baseline * 1e3, p.baseline / p.subject);
    if (measure(&s, s_gather, b_memcpy, &p)) return fail(s.ctx, st, "gather");
    printf("gather 64 MiB     to cpu  %8.3f ms   memcpy      %8.3f ms   ratio %.2f\n",
           p.subject * 1e3, p.baseline * 1e3, p.baseline / p.subject);
    if (measure(&s, s_gather, b_to_cpu, &p)) return fail(s.ctx, st, "gather");
    printf("gather 64 MiB     to cpu  %8.3f ms   from gpu:0  %8.3f ms   ratio %.2f\n",
           p.subject * 1e3, p.baseline * 1e3, p.baseline / p.subject);
    if (measure(&s, s_add1, b_add1, &p)) return fail(s.ctx, st, "1-element add");
    printf("add 1 per piece   sharded %8.1f us   gpu:0 alone %8.1f us   ratio %.2f   "
           "overhead per piece %.1f us\n",
           p.subject * 1e6, p.baseline * 1e6, p.baseline / p.subject,
           (p.subject / 2 - p.baseline) * 1e6);
    ra_array *all[] = {s.sa, s.sb, s.ga, s.gb, s.s1a, s.s1b, s.g1a, s.g1b};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ra_array_release(all[i]);
    free(s.src);
    free(s.dst);
    ra_ctx_destroy(s.ctx);
    return 0;
}
