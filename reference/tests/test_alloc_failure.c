/* Allocation-failure tests: every allocation refarray makes through the hook fails once, in
 * turn, during context creation and during a scenario that uses every public function that
 * allocates, on every device. Each failure must come back as RA_E_NOMEM (MemoryError kind),
 * leave the out-parameter NULL, and leak nothing: after releasing what was made, the hook's
 * count of live blocks is back where it was. The sanitizer build checks the rest. */
#include "ra_test.h"

/* One step of a scenario: on RA_E_NOMEM the scenario stops; any other error is a bug. */
#define STEP(call, outp)                                                                           \
    do {                                                                                           \
        int st_ = (call);                                                                          \
        if (st_ == RA_E_NOMEM) {                                                                   \
            if ((outp) != NULL) *bad = "an out-parameter is not NULL after RA_E_NOMEM";            \
            return;                                                                                \
        }                                                                                          \
        if (st_ != RA_OK) {                                                                        \
            *bad = #call;                                                                          \
            snprintf(detail, 256, "%s: %s", ra_status_name(st_), ra_ctx_message(ctx));             \
            return;                                                                                \
        }                                                                                          \
    } while (0)

#define NARR 56

/* Uses every allocating function on dev; arrays land in a[], released by the caller. */
static void scenario(ra_ctx *ctx, ra_device dev, ra_device other, ra_array **a, const char **bad,
                     char *detail)
{
    int k = 0;
    ra_opts on = {.dtype = RA_FLOAT32, .device_value = &dev};
    int64_t s23[2] = {2, 3}, s3[1] = {3}, s223[3] = {2, 2, 3}, s32[2] = {3, 2};
    float host[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    ra_scalar stop = ra_scalar_int(3);
    STEP(ra_zeros(ctx, s23, 2, &on, &a[k]), a[k]);
    k++;
    STEP(ra_ones(ctx, s3, 1, &(ra_opts){.dtype = RA_INT8, .device_value = &dev}, &a[k]), a[k]);
    k++;
    STEP(ra_full(ctx, s23, 2, ra_scalar_float(2), &on, &a[k]), a[k]);
    k++;
    STEP(ra_arange(ctx, ra_scalar_int(0), &stop, NULL, &on, &a[k]), a[k]);
    k++;
    STEP(ra_linspace(ctx, ra_scalar_int(0), ra_scalar_int(1), 3, true, &on, &a[k]), a[k]);
    k++;
    STEP(ra_eye(ctx, 3, 2, 0, &on, &a[k]), a[k]);
    k++;
    STEP(ra_asarray_buffer(ctx, host, RA_FLOAT32, s223, 3, &on, &a[k]), a[k]);
    k++;
    STEP(ra_asarray_scalar(ctx, ra_scalar_int(3), &on, &a[k]), a[k]);
    k++;
    STEP(ra_zeros_like(ctx, a[0], NULL, &a[k]), a[k]);
    k++;
    STEP(ra_full_like(ctx, a[1], ra_scalar_int(4), NULL, &a[k]), a[k]);
    k++;
    STEP(ra_astype(ctx, a[1], RA_INT64, NULL, &a[k]), a[k]);
    k++;
    STEP(ra_asarray(ctx, a[2], &(ra_opts){.device_value = &other, .dtype = RA_INT16}, &a[k]), a[k]);
    k++;
    STEP(ra_to_device(ctx, a[2], other, NULL, &a[k]), a[k]);
    k++;
    STEP(ra_to_device(ctx, a[k - 1], dev, NULL, &a[k]), a[k]);
    k++;
    STEP(ra_binary(ctx, RA_ADD, ra_operand_array(a[0]), ra_operand_array(a[3]), &a[k]), a[k]);
    k++;
    STEP(ra_binary(ctx, RA_MULTIPLY, ra_operand_array(a[1]), ra_operand_array(a[10]), &a[k]), a[k]);
    k++;
    STEP(ra_binary(ctx, RA_LESS, ra_operand_scalar(ra_scalar_float(0.5)), ra_operand_array(a[2]),
                   &a[k]),
         a[k]);
    k++;
    STEP(ra_unary(ctx, RA_SQRT, a[2], &a[k]), a[k]);
    k++;
    STEP(ra_reduce(ctx, RA_SUM, a[1], NULL, &a[k]), a[k]);
    k++;
    int axis = 1;
    STEP(ra_reduce(ctx, RA_MAX, a[2], &axis, &a[k]), a[k]);
    k++;
    ra_array *m = NULL;
    STEP(ra_asarray_buffer(ctx, host, RA_FLOAT32, s32, 2, &on, &m), m);
    a[k++] = m;
    STEP(ra_matmul(ctx, a[6], m, &a[k]), a[k]);
    k++;
    const ra_array *list[3] = {a[0], a[2], a[13]};
    STEP(ra_stack(ctx, list, 3, 1, &a[k]), a[k]);
    k++;
    STEP(ra_default_push(ctx, other), (void *)NULL);
    STEP(ra_soft_set(ctx, true), (void *)NULL);
    STEP(ra_default_push(ctx, dev), (void *)NULL);
    /* Soft mode inside the scopes: mixed devices are moved to dev. */
    ra_array *o = NULL;
    STEP(ra_to_device(ctx, a[3], other, NULL, &o), o);
    a[k++] = o;
    STEP(ra_binary(ctx, RA_SUBTRACT, ra_operand_array(a[3]), ra_operand_array(o), &a[k]), a[k]);
    k++;
    ra_default_pop(ctx);
    ra_default_pop(ctx);
    ra_soft_unset(ctx);
    STEP(ra_fftfreq(ctx, 5, 1.0, &on, &a[k]), a[k]);
    k++;
    STEP(ra_rfftfreq(ctx, 5, 1.0, &on, &a[k]), a[k]);
    k++;
    STEP(ra_from_dlpack(ctx, a[0], &(ra_opts){.device_value = &other}, &a[k]), a[k]);
    k++;
    /* Sharded arrays over (dev, other), or dev alone when it is the only device: every piece
     * made before a failure is released. */
    ra_device tuple[2] = {dev, other};
    size_t nt = ra_device_eq(dev, other) ? 1 : 2;
    int ax0 = 0, ax2 = 2;
    ra_shard_opts ceil_opts = {.size = sizeof ceil_opts, .uneven = RA_SHARD_UNEVEN_CEIL};
    int sh1 = k;
    STEP(ra_shard(ctx, a[6], tuple, nt, &ax0, NULL, &a[k]), a[k]);
    k++;
    int sh2 = k;
    STEP(ra_shard(ctx, a[6], tuple, nt, NULL, NULL, &a[k]), a[k]);
    k++;
    int sh3 = k;
    STEP(ra_shard(ctx, a[6], tuple, nt, &ax2, &ceil_opts, &a[k]), a[k]);
    k++;
    STEP(ra_binary(ctx, RA_ADD, ra_operand_array(a[sh2]), ra_operand_array(a[sh1]), &a[k]), a[k]);
    k++;
    STEP(ra_binary(ctx, RA_ADD, ra_operand_array(a[sh1]), ra_operand_array(a[sh3]), &a[k]), a[k]);
    k++;
    STEP(ra_binary(ctx, RA_MULTIPLY, ra_operand_array(a[sh3]), ra_operand_scalar(ra_scalar_int(2)),
                   &a[k]),
         a[k]);
    k++;
    STEP(ra_unary(ctx, RA_NEGATIVE, a[sh1], &a[k]), a[k]);
    k++;
    STEP(ra_reduce(ctx, RA_SUM, a[sh1], NULL, &a[k]), a[k]);
    k++;
    STEP(ra_reduce(ctx, RA_MAX, a[sh3], &ax2, &a[k]), a[k]);
    k++;
    STEP(ra_reduce(ctx, RA_MAX, a[sh1], &ax2, &a[k]), a[k]);
    k++;
    STEP(ra_to_device(ctx, a[sh3], other, NULL, &a[k]), a[k]);
    k++;
    ra_device reversed[2] = {other, dev};
    STEP(ra_shard_to(ctx, a[sh3], reversed, nt, &a[k]), a[k]);
    k++;
    STEP(ra_asarray(ctx, a[6], &(ra_opts){.copy = RA_COPY_ALWAYS}, &a[k]), a[k]);
    k++;
    int st = ra_shard_inplace(ctx, a[k - 1], tuple, nt, &ax0, NULL);
    if (st == RA_E_NOMEM) {
        if (ra_array_is_sharded(a[k - 1])) *bad = "ra_shard_inplace changed x on RA_E_NOMEM";
        return;
    }
    STEP(st, (void *)NULL);
}

static void run_device(ra_ctx *ctx, failing *f, ra_device dev, ra_device other)
{
    char ds[RA_DEVICE_STR_MAX], os[RA_DEVICE_STR_MAX];
    dev_str(dev, ds);
    dev_str(other, os);
    /* A first run without failures creates what the context keeps for later calls (this
     * thread's state, kernel caches), so that it is not counted as a leak below. */
    {
        ra_array *a[NARR] = {0};
        const char *bad = NULL;
        char detail[256] = "";
        ra_device probe;
        ra_device_parse(ctx, "warm-up", &probe);
        scenario(ctx, dev, other, a, &bad, detail);
        for (int i = 0; i < NARR; i++)
            ra_array_release(a[i]);
        CHECK(bad == NULL, "%s: the scenario runs without injected failures (%s %s)", ds,
              bad ? bad : "", detail);
    }
    long base = f->live;
    long n;
    for (n = 0;; n++) {
        ra_array *a[NARR] = {0};
        const char *bad = NULL;
        char detail[256] = "";
        f->count = 0;
        f->failed = false;
        f->fail_at = n;
        scenario(ctx, dev, other, a, &bad, detail);
        f->fail_at = -1;
        /* Leave no scope behind when the scenario stopped inside one. */
        while (ra_default_pop(ctx) == RA_OK)
            ;
        while (ra_soft_get(ctx))
            ra_soft_unset(ctx);
        for (int i = 0; i < NARR; i++)
            ra_array_release(a[i]);
        CHECK(bad == NULL, "%s: allocation %ld failing: %s %s", ds, n, bad ? bad : "", detail);
        ASSERT_INT(f->live - base, 0, "%s: allocation %ld failing leaks nothing", ds, n);
        if (!f->failed) break;
    }
    dt_diag("%s (other device %s): each of its %ld allocations failed once, cleanly", ds, os, n);
}

/* Context creation, cpu only and with the OpenCL backend, with each of its allocations
 * failing in turn. */
DT_TEST(context_creation)
{
    failing f = {0, 0, -1, false};
    ra_allocator hook = {f_alloc, f_release, &f};

    /* Context creation, cpu only and with the OpenCL backend. With OpenCL this includes the
     * copy of each device's extension list: a failure there is RA_E_NOMEM, not a device that
     * silently opens without float64. */
    for (int with_cl = 0; with_cl < 2; with_cl++) {
        ra_ctx_options opts = {.allocator = &hook, .flags = with_cl ? 0 : RA_CTX_NO_OPENCL};
        long n;
        for (n = 0;; n++) {
            ra_ctx *ctx = (ra_ctx *)&f;
            f.count = 0;
            f.failed = false;
            f.fail_at = n;
            int status = ra_ctx_create(&opts, &ctx);
            f.fail_at = -1;
            CHECK(!f.failed || (status == RA_E_NOMEM && ctx == NULL),
                  "ra_ctx_create (%s) with allocation %ld failing gives RA_E_NOMEM and no "
                  "context (observed %s)",
                  with_cl ? "with OpenCL" : "cpu only", n, ra_status_name(status));
            CHECK(f.failed || status == RA_OK,
                  "ra_ctx_create succeeds without an injected failure (observed %s: %s)",
                  ra_status_name(status), ra_ctx_message(NULL));
            ra_ctx_destroy(status == RA_OK ? ctx : NULL);
            ASSERT_INT(f.live, 0, "ra_ctx_create with allocation %ld failing leaks nothing", n);
            if (!f.failed) break;
        }
        dt_diag("ra_ctx_create (%s): each of its %ld allocations failed once, cleanly",
                with_cl ? "with OpenCL" : "cpu only", n);
    }
}

/* The scenario of every operation on every device of one context, with each allocation
 * failing in turn. */
DT_TEST(operations_on_every_device)
{
    failing f = {0, 0, -1, false};
    ra_allocator hook = {f_alloc, f_release, &f};

    /* The scenario on every device of one context. */
    ra_ctx *ctx = NULL;
    ASSERT_STATUS(NULL, ra_ctx_create(&(ra_ctx_options){.allocator = &hook}, &ctx), RA_OK,
                  "create a context");
    ra_device devs[16];
    size_t n = list_devices(ctx, devs);
    for (size_t i = 0; i < n; i++)
        run_device(ctx, &f, devs[i], devs[(i + 1) % n]);
    ra_ctx_destroy(ctx);
    ASSERT_INT(f.live, 0, "nothing is left after the context is destroyed");
}

DT_MAIN(DT_ENTRY(context_creation), DT_ENTRY(operations_on_every_device))
