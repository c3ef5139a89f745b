/*
 * refarray-bench: refarray's transfer and kernel costs against baselines measured in the
 * same run, printed as ratios.
 *
 *   refarray-bench [--runs N]
 *
 * Baselines: memcpy of the same bytes (host <-> device transfers), a plain C loop compiled
 * -O3 over the same buffers (elementwise add), and the same OpenCL kernel enqueued raw with
 * clEnqueueNDRangeKernel + clFinish (per-call overhead, large adds). Every figure is the
 * median of N runs (default 9) after a warm-up run, so first-touch page faults and kernel
 * builds are paid before timing starts; the cold costs are printed separately.
 *
 * A ratio is baseline time / refarray time: 1.0 is as fast as the baseline, 0.5 half as
 * fast. Goals: transfers >= 0.8 of memcpy, cpu add >= 0.9 of the C loop, 1-element
 * add on cpu <= 2x a malloc + the loop + free of one element, on gpu:0 <= 1.3x the raw
 * enqueue.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_util.h"
#include "refarray.h"

#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* kernels.cl, embedded at build time exactly as the library embeds it. */
extern const char ra__opencl_source[];

/* The plain loop, and a malloc + the loop + free (bench_loop.c, built -O3). */
void bench_add_loop(const float *a, const float *b, float *c, size_t n);
void bench_add_fresh(const float *a, const float *b, size_t n);

static int runs = 9;

typedef bench_pair pair;

static int measure_pair(bench_fn subject, bench_fn baseline, void *arg, pair *out)
{
    return bench_measure_pair(subject, baseline, arg, runs, out);
}

static int fail(ra_ctx *ctx, int st, const char *what)
{
    fprintf(stderr, "refarray-bench: %s: %s: %s\n", what, ra_status_name(st), ra_ctx_message(ctx));
    return 1;
}

/* ------------------------------------------------------------------ shared state */

typedef struct state {
    ra_ctx *ctx;
    ra_device gpu;
    size_t bytes;
    float *src, *dst; /* host buffers, touched */
    ra_array *host_x, *gpu_x;
    ra_array *ha, *hb, *ga, *gb;     /* 16M float32 operands */
    ra_array *h1a, *h1b, *g1a, *g1b; /* 1-element operands */
    float *la, *lb, *lc;             /* the loop's buffers */
    size_t n;
    /* raw OpenCL */
    cl_command_queue queue;
    cl_context clctx;
    cl_device_id cldev;
    cl_kernel add;
    cl_mem ra_, rb_, rc_, r1a, r1b, r1c, staging, host_staging;
    size_t local;
} state;

static int b_memcpy(void *arg)
{
    state *s = arg;
    memcpy(s->dst, s->src, s->bytes);
    return 0;
}

/* Keeps the compiler from dropping a copy into memory that is freed unread. */
static volatile unsigned char sink;

static int b_memcpy_fresh(void *arg)
{
    state *s = arg;
    unsigned char *d = malloc(s->bytes);
    if (!d) return 1;
    memcpy(d, s->src, s->bytes);
    sink = d[s->bytes / 2];
    free(d);
    return 0;
}

static int b_h2d(void *arg)
{
    state *s = arg;
    ra_array *y = NULL;
    int st = ra_to_device(s->ctx, s->host_x, s->gpu, NULL, &y);
    ra_array_release(y);
    return st != RA_OK;
}

static int b_d2h(void *arg)
{
    state *s = arg;
    ra_array *y = NULL;
    int st = ra_to_device(s->ctx, s->gpu_x, RA_CPU, NULL, &y);
    ra_array_release(y);
    return st != RA_OK;
}

static int b_read(void *arg)
{
    state *s = arg;
    return ra_array_read(s->ctx, s->gpu_x, s->dst, s->bytes) != RA_OK;
}

static int b_raw_write(void *arg)
{
    state *s = arg;
    return clEnqueueWriteBuffer(s->queue, s->staging, CL_TRUE, 0, s->bytes, s->src, 0, NULL,
                                NULL) != CL_SUCCESS;
}

static int b_raw_read(void *arg)
{
    state *s = arg;
    return clEnqueueReadBuffer(s->queue, s->staging, CL_TRUE, 0, s->bytes, s->dst, 0, NULL, NULL) !=
           CL_SUCCESS;
}

/* Host -> device through a mapped CL_MEM_ALLOC_HOST_PTR buffer (pinned staging). */
static int b_raw_map_write(void *arg)
{
    state *s = arg;
    cl_int err;
    void *p = clEnqueueMapBuffer(s->queue, s->host_staging, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION,
                                 0, s->bytes, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS) return 1;
    memcpy(p, s->src, s->bytes);
    err = clEnqueueUnmapMemObject(s->queue, s->host_staging, p, 0, NULL, NULL);
    return (err != CL_SUCCESS || clFinish(s->queue) != CL_SUCCESS);
}

static int b_loop(void *arg)
{
    state *s = arg;
    bench_add_loop(s->la, s->lb, s->lc, s->n);
    return 0;
}

static int b_add_cpu(void *arg)
{
    state *s = arg;
    ra_array *c = NULL;
    int st = ra_binary(s->ctx, RA_ADD, ra_operand_array(s->ha), ra_operand_array(s->hb), &c);
    ra_array_release(c);
    return st != RA_OK;
}

static int b_add_gpu(void *arg)
{
    state *s = arg;
    ra_array *c = NULL;
    int st = ra_binary(s->ctx, RA_ADD, ra_operand_array(s->ga), ra_operand_array(s->gb), &c);
    ra_array_release(c);
    return st != RA_OK;
}

static size_t raw_global(state *s, size_t n)
{
    return (n + s->local - 1) / s->local * s->local;
}

static int raw_add(state *s, cl_mem a, cl_mem b, cl_mem c, size_t n)
{
    cl_ulong zero = 0, cn = n;
    /* The same launch geometry as the library (opencl_kernels.c): a fixed local size, one
     * work-item per element. */
    size_t global = raw_global(s, n);
    clSetKernelArg(s->add, 0, sizeof a, &a);
    clSetKernelArg(s->add, 1, sizeof zero, &zero);
    clSetKernelArg(s->add, 2, sizeof b, &b);
    clSetKernelArg(s->add, 3, sizeof zero, &zero);
    clSetKernelArg(s->add, 4, sizeof c, &c);
    clSetKernelArg(s->add, 5, sizeof cn, &cn);
    if (clEnqueueNDRangeKernel(s->queue, s->add, 1, NULL, &global, &s->local, 0, NULL, NULL) !=
        CL_SUCCESS)
        return 1;
    return clFinish(s->queue) != CL_SUCCESS;
}

static int b_raw_add_big(void *arg)
{
    state *s = arg;
    return raw_add(s, s->ra_, s->rb_, s->rc_, s->n);
}

/* Small ops: many calls per timing, reported per call. */
#define SMALL_CALLS 2000

static int b_small_cpu(void *arg)
{
    state *s = arg;
    for (int i = 0; i < SMALL_CALLS * 10; i++) {
        ra_array *c = NULL;
        int st = ra_binary_arrays(s->ctx, RA_ADD, s->h1a, s->h1b, &c);
        ra_array_release(c);
        if (st != RA_OK) return 1;
    }
    return 0;
}

/* The same through ra_binary, with the two operands built for each call as a caller does. */
static int b_small_cpu_operands(void *arg)
{
    state *s = arg;
    for (int i = 0; i < SMALL_CALLS * 10; i++) {
        ra_array *c = NULL;
        int st = ra_binary(s->ctx, RA_ADD, ra_operand_array(s->h1a), ra_operand_array(s->h1b), &c);
        ra_array_release(c);
        if (st != RA_OK) return 1;
    }
    return 0;
}

static int b_small_fresh(void *arg)
{
    state *s = arg;
    for (int i = 0; i < SMALL_CALLS * 10; i++)
        bench_add_fresh(s->la, s->lb, 1);
    return 0;
}

static int b_small_gpu(void *arg)
{
    state *s = arg;
    for (int i = 0; i < SMALL_CALLS; i++) {
        ra_array *c = NULL;
        int st = ra_binary(s->ctx, RA_ADD, ra_operand_array(s->g1a), ra_operand_array(s->g1b), &c);
        ra_array_release(c);
        if (st != RA_OK) return 1;
    }
    return 0;
}

static int b_small_raw(void *arg)
{
    state *s = arg;
    for (int i = 0; i < SMALL_CALLS; i++)
        if (raw_add(s, s->r1a, s->r1b, s->r1c, 1)) return 1;
    return 0;
}

/* ------------------------------------------------------------------ set-up */

static int raw_setup(state *s)
{
    void *q = NULL;
    cl_int err;
    if (ra_device_default_stream(s->ctx, s->gpu, &q) != RA_OK) return 1;
    /* A context and queue of our own on the same device: the raw baselines share nothing
     * with refarray's. */
    if (clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof s->cldev, &s->cldev, NULL) != CL_SUCCESS)
        return 1;
    s->clctx = clCreateContext(NULL, 1, &s->cldev, NULL, NULL, &err);
    if (err != CL_SUCCESS) return 1;
    s->queue = clCreateCommandQueue(s->clctx, s->cldev, 0, &err);
    if (err != CL_SUCCESS) return 1;
    /* The library's float32 binary program: the same source and options as
     * src/opencl/opencl_kernels.c builds (keep in step with it). */
    const char *src = ra__opencl_source;
    cl_program prog = clCreateProgramWithSource(s->clctx, 1, &src, NULL, &err);
    if (err != CL_SUCCESS) return 1;
    cl_device_fp_config fp = 0;
    clGetDeviceInfo(s->cldev, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL);
    char options[512];
    snprintf(options, sizeof options,
             "-D RA_FAMILY=3 -D RA_TI=float -D RA_KI=3 -D RA_UI=uint -D RA_RI=float -D RA_TO=float "
             "-D RA_KO=3 -D RA_UO=uint -D RA_FP64=0 -D RA_C64=0 -D RA_CL_MAXDIM=32%s",
             (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) ? " -cl-fp32-correctly-rounded-divide-sqrt"
                                                        : "");
    if (clBuildProgram(prog, 1, &s->cldev, options, NULL, NULL) != CL_SUCCESS) return 1;
    s->add = clCreateKernel(prog, "ra_add_vv", &err);
    clReleaseProgram(prog);
    if (err != CL_SUCCESS) return 1;
    size_t wg = 1;
    clGetKernelWorkGroupInfo(s->add, s->cldev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    s->local = wg < 1024 ? wg : 1024;
    size_t big = s->n * sizeof(float);
    s->ra_ = clCreateBuffer(s->clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, big, s->la, &err);
    s->rb_ = clCreateBuffer(s->clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, big, s->lb, &err);
    s->rc_ = clCreateBuffer(s->clctx, CL_MEM_READ_WRITE, big, NULL, &err);
    float one = 1;
    s->r1a = clCreateBuffer(s->clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4, &one, &err);
    s->r1b = clCreateBuffer(s->clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4, &one, &err);
    s->r1c = clCreateBuffer(s->clctx, CL_MEM_READ_WRITE, 4, NULL, &err);
    s->staging = clCreateBuffer(s->clctx, CL_MEM_READ_WRITE, s->bytes, NULL, &err);
    s->host_staging =
        clCreateBuffer(s->clctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, s->bytes, NULL, &err);
    return !(s->ra_ && s->rb_ && s->rc_ && s->r1a && s->r1b && s->r1c && s->staging &&
             s->host_staging);
}

static void raw_teardown(state *s)
{
    cl_mem mems[] = {s->ra_, s->rb_, s->rc_, s->r1a, s->r1b, s->r1c, s->staging, s->host_staging};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (mems[i]) clReleaseMemObject(mems[i]);
    if (s->add) clReleaseKernel(s->add);
    if (s->queue) clReleaseCommandQueue(s->queue);
    if (s->clctx) clReleaseContext(s->clctx);
}

static void row(const char *what, double t, double base, const char *base_name, double bytes,
                const char *goal)
{
    if (bytes > 0)
        printf("%-44s %9.3f ms %7.2f GB/s   vs %-22s %9.3f ms   ratio %5.2f  %s\n", what, t * 1e3,
               bytes / t / 1e9, base_name, base * 1e3, base / t, goal);
    else
        printf("%-44s %9.3f ms              vs %-22s %9.3f ms   ratio %5.2f  %s\n", what, t * 1e3,
               base_name, base * 1e3, base / t, goal);
}

int main(int argc, char **argv)
{
    if (bench_parse_runs(argc, argv, "refarray-bench", &runs)) return 2;
    state s;
    memset(&s, 0, sizeof s);
    int st = ra_ctx_create(NULL, &s.ctx);
    if (st != RA_OK) return fail(NULL, st, "ra_ctx_create");
    if (ra_util_num_gpus(s.ctx) < 1) {
        fprintf(stderr, "refarray-bench: no OpenCL device (gpu:0) is available\n");
        ra_ctx_destroy(s.ctx);
        return 1;
    }
    s.gpu = (ra_device){RA_DEVICE_GPU, 0};
    ra_device_props props = RA_DEVICE_PROPS_INIT;
    ra_device_props_get(s.ctx, s.gpu, &props);
    s.bytes = (size_t)64 << 20;
    s.n = (size_t)16 << 20;
    s.src = malloc(s.bytes);
    s.dst = malloc(s.bytes);
    s.la = malloc(s.n * sizeof(float));
    s.lb = malloc(s.n * sizeof(float));
    s.lc = malloc(s.n * sizeof(float));
    if (!s.src || !s.dst || !s.la || !s.lb || !s.lc) {
        fprintf(stderr, "refarray-bench: out of host memory\n");
        return 1;
    }
    for (size_t i = 0; i < s.n; i++) {
        s.src[i] = (float)(i % 1000);
        s.dst[i] = 0;
        s.la[i] = (float)(i % 977);
        s.lb[i] = (float)(i % 13) * 0.5f;
        s.lc[i] = 0;
    }
    const int64_t n64 = (int64_t)s.n, one = 1;
    float onev = 1;
    int rc = 1;
    if ((st = ra_asarray_buffer(s.ctx, s.src, RA_FLOAT32, &n64, 1, &(ra_opts){.device = "cpu"},
                                &s.host_x)) != RA_OK ||
        (st = ra_to_device(s.ctx, s.host_x, s.gpu, NULL, &s.gpu_x)) != RA_OK ||
        (st = ra_asarray_buffer(s.ctx, s.la, RA_FLOAT32, &n64, 1, &(ra_opts){.device = "cpu"},
                                &s.ha)) != RA_OK ||
        (st = ra_asarray_buffer(s.ctx, s.lb, RA_FLOAT32, &n64, 1, &(ra_opts){.device = "cpu"},
                                &s.hb)) != RA_OK ||
        (st = ra_to_device(s.ctx, s.ha, s.gpu, NULL, &s.ga)) != RA_OK ||
        (st = ra_to_device(s.ctx, s.hb, s.gpu, NULL, &s.gb)) != RA_OK ||
        (st = ra_asarray_buffer(s.ctx, &onev, RA_FLOAT32, &one, 1, &(ra_opts){.device = "cpu"},
                                &s.h1a)) != RA_OK ||
        (st = ra_asarray_buffer(s.ctx, &onev, RA_FLOAT32, &one, 1, &(ra_opts){.device = "cpu"},
                                &s.h1b)) != RA_OK ||
        (st = ra_to_device(s.ctx, s.h1a, s.gpu, NULL, &s.g1a)) != RA_OK ||
        (st = ra_to_device(s.ctx, s.h1b, s.gpu, NULL, &s.g1b)) != RA_OK) {
        fail(s.ctx, st, "set-up");
        goto done;
    }
    if (raw_setup(&s)) {
        fprintf(stderr, "refarray-bench: raw OpenCL set-up failed\n");
        goto done;
    }

    printf("# refarray-bench: gpu:0 is '%s' (%d compute units); cpu has %d cores\n", props.name,
           props.compute_units, ra_util_num_cpu_cores());
    printf("# median of %d runs after one warm-up run; ratio = baseline time / refarray time\n",
           runs);

    double mb = (double)s.bytes, abytes = 3.0 * (double)s.n * sizeof(float);
    pair fresh, h2d, raw_w, raw_mw, d2h, d2h_fresh, rd, raw_r, cpu, gpu, gpu_raw, small_cpu,
        small_operands, small_gpu;
    if (measure_pair(b_memcpy_fresh, b_memcpy, &s, &fresh) ||
        measure_pair(b_h2d, b_memcpy, &s, &h2d) ||
        measure_pair(b_raw_write, b_memcpy, &s, &raw_w) ||
        measure_pair(b_raw_map_write, b_memcpy, &s, &raw_mw) ||
        measure_pair(b_d2h, b_memcpy, &s, &d2h) ||
        measure_pair(b_d2h, b_memcpy_fresh, &s, &d2h_fresh) ||
        measure_pair(b_read, b_memcpy, &s, &rd) || measure_pair(b_raw_read, b_memcpy, &s, &raw_r)) {
        fprintf(stderr, "refarray-bench: a transfer failed: %s\n", ra_ctx_message(s.ctx));
        goto done;
    }
    printf("\n## transfers, 64 MiB float32 (goal: >= 0.8 of memcpy)\n");
    row("memcpy into a fresh malloc (page faults)", fresh.subject, fresh.baseline,
        "memcpy (warm dst)", mb, "(for reference)");
    row("to_device host -> gpu:0", h2d.subject, h2d.baseline, "memcpy (warm dst)", mb,
        h2d.baseline / h2d.subject >= 0.8 ? "goal met" : "GOAL MISSED");
    row("  raw clEnqueueWriteBuffer (blocking)", raw_w.subject, raw_w.baseline, "memcpy (warm dst)",
        mb, "");
    row("  raw map ALLOC_HOST_PTR + memcpy + unmap", raw_mw.subject, raw_mw.baseline,
        "memcpy (warm dst)", mb, "");
    row("to_device gpu:0 -> host (new cpu array)", d2h.subject, d2h.baseline, "memcpy (warm dst)",
        mb, d2h.baseline / d2h.subject >= 0.8 ? "goal met" : "GOAL MISSED");
    row("  the same against a fresh-malloc memcpy", d2h_fresh.subject, d2h_fresh.baseline,
        "memcpy (fresh dst)", mb,
        d2h_fresh.baseline / d2h_fresh.subject >= 0.8 ? "goal met" : "GOAL MISSED");
    row("array_read gpu:0 -> caller's host buffer", rd.subject, rd.baseline, "memcpy (warm dst)",
        mb, rd.baseline / rd.subject >= 0.8 ? "goal met" : "GOAL MISSED");
    row("  raw clEnqueueReadBuffer (blocking)", raw_r.subject, raw_r.baseline, "memcpy (warm dst)",
        mb, "");
    printf("first (cold) call: to_device host->gpu:0 %.3f ms, gpu:0->host %.3f ms\n",
           h2d.cold * 1e3, d2h.cold * 1e3);

    if (measure_pair(b_add_cpu, b_loop, &s, &cpu) || measure_pair(b_add_gpu, b_loop, &s, &gpu) ||
        measure_pair(b_add_gpu, b_raw_add_big, &s, &gpu_raw)) {
        fprintf(stderr, "refarray-bench: an add failed: %s\n", ra_ctx_message(s.ctx));
        goto done;
    }
    printf("\n## add of two 16M-element float32 arrays (goal: cpu >= 0.9 of the C loop)\n");
    row("add on cpu (new result array per call)", cpu.subject, cpu.baseline,
        "C loop -O3 (warm dst)", abytes,
        cpu.baseline / cpu.subject >= 0.9 ? "goal met" : "GOAL MISSED");
    row("add on gpu:0 (new result array per call)", gpu.subject, gpu.baseline,
        "C loop -O3 (warm dst)", abytes, "(reported)");
    row("  against the same kernel enqueued raw", gpu_raw.subject, gpu_raw.baseline,
        "raw enqueue+clFinish", abytes, "");
    printf("first (cold) call: add on cpu %.3f ms, on gpu:0 %.3f ms (kernel build included)\n",
           cpu.cold * 1e3, gpu.cold * 1e3);

    /* The cpu add runs on this thread alone: its CPU time, which a busy machine does not
     * stretch as it does the wall time (one preemption is many calls' worth). */
    if (bench_measure_pair_on(bench_cpu_now, b_small_cpu, b_small_fresh, &s, runs, &small_cpu) ||
        bench_measure_pair_on(bench_cpu_now, b_small_cpu_operands, b_small_fresh, &s, runs,
                              &small_operands) ||
        measure_pair(b_small_gpu, b_small_raw, &s, &small_gpu)) {
        fprintf(stderr, "refarray-bench: a small add failed: %s\n", ra_ctx_message(s.ctx));
        goto done;
    }
    double ns_cpu = small_cpu.subject / (SMALL_CALLS * 10) * 1e9;
    double ns_fresh = small_cpu.baseline / (SMALL_CALLS * 10) * 1e9;
    double ns_operands = small_operands.subject / (SMALL_CALLS * 10) * 1e9;
    double ns_fresh_operands = small_operands.baseline / (SMALL_CALLS * 10) * 1e9;
    double ns_gpu = small_gpu.subject / SMALL_CALLS * 1e9;
    double ns_raw = small_gpu.baseline / SMALL_CALLS * 1e9;
    printf("\n## add of two 1-element float32 arrays, per call (%d calls per run)\n", SMALL_CALLS);
    printf("%-44s %9.1f ns   vs malloc + loop + free %9.1f ns   %.2fx   goal <= 2x: %s\n",
           "add on cpu, ra_binary_arrays (thread CPU)", ns_cpu, ns_fresh, ns_cpu / ns_fresh,
           ns_cpu / ns_fresh <= 2 ? "goal met" : "GOAL MISSED");
    printf("%-44s %9.1f ns   vs malloc + loop + free %9.1f ns   %.2fx   (reported)\n",
           "  ra_binary, two operands built per call", ns_operands, ns_fresh_operands,
           ns_operands / ns_fresh_operands);
    printf("%-44s %9.1f ns   vs raw clEnqueueNDRangeKernel+clFinish %9.1f ns   %.2fx   goal <= "
           "1.3x: %s\n",
           "add on gpu:0", ns_gpu, ns_raw, ns_gpu / ns_raw,
           ns_gpu / ns_raw <= 1.3 ? "goal met" : "GOAL MISSED");
    rc = 0;
done:
    raw_teardown(&s);
    ra_array_release(s.host_x);
    ra_array_release(s.gpu_x);
    ra_array_release(s.ha);
    ra_array_release(s.hb);
    ra_array_release(s.ga);
    ra_array_release(s.gb);
    ra_array_release(s.h1a);
    ra_array_release(s.h1b);
    ra_array_release(s.g1a);
    ra_array_release(s.g1b);
    ra_ctx_destroy(s.ctx);
    free(s.src);
    free(s.dst);
    free(s.la);
    free(s.lb);
    free(s.lc);
    return rc;
}
