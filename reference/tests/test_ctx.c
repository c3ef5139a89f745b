/* Tests of contexts: creation options, the allocation hook, the detail message, per-thread
 * state release, and the context-wide settings. */
#include "ra_test.h"

typedef struct counting {
    long live;
    long total;
} counting;

static void *count_alloc(size_t size, void *ud)
{
    counting *c = ud;
    void *p = malloc(size);
    if (p) {
        c->live++;
        c->total++;
    }
    return p;
}

static void count_release(void *p, void *ud)
{
    counting *c = ud;
    if (p) c->live--;
    free(p);
}

DT_TEST(create_refusals)
{
    ra_ctx *ctx = NULL;
    ASSERT_STATUS(NULL, ra_ctx_create(NULL, NULL), RA_E_NULL, "create with NULL out");
    ASSERT_MESSAGE(NULL, "out is NULL", "the context-free message says why");
    ra_allocator half = {count_alloc, NULL, NULL};
    ra_ctx_options bad = {.allocator = &half};
    ctx = (ra_ctx *)1;
    ASSERT_STATUS(NULL, ra_ctx_create(&bad, &ctx), RA_E_NULL,
                  "an allocator without release is refused");
    CHECK(ctx == NULL, "out is NULL after a failed create");
}

DT_TEST(options_size_and_flags)
{
    ra_ctx *ctx = NULL;
    /* The options' size field and flags (refarray.h, "Conventions"). */
    ASSERT_STATUS(NULL, ra_ctx_create(&(ra_ctx_options){.size = 3}, &ctx), RA_E_ARG,
                  "options with a size below the first layout");
    ASSERT_MESSAGE(NULL, "size is 3", "the message names the size");
    struct {
        ra_ctx_options o;
        unsigned char later[8];
    } newer = {.o = {.size = sizeof newer, .flags = RA_CTX_NO_OPENCL}, .later = {0, 1}};
    ASSERT_STATUS(NULL, ra_ctx_create(&newer.o, &ctx), RA_E_ARG,
                  "options from a newer header with a field this library does not know set");
    ASSERT_MESSAGE(NULL, "does not know", "the message says why");
    ASSERT_STATUS(NULL, ra_ctx_create(RA_CTX_OPTIONS(.flags = 1u << 7), &ctx), RA_E_ARG,
                  "unknown flags are refused");
    newer.later[1] = 0;
    ASSERT_STATUS(NULL, ra_ctx_create(&newer.o, &ctx), RA_OK,
                  "options from a newer header with its new fields zero");
    ra_ctx_destroy(ctx);
}

DT_TEST(allocation_hook_and_messages)
{
    ra_ctx *ctx = NULL;
    ra_device d;
    /* Everything goes through the hook, and everything is given back. */
    counting c = {0, 0};
    ra_allocator hook = {count_alloc, count_release, &c};
    ra_ctx_options opts = {.allocator = &hook, .flags = RA_CTX_NO_OPENCL};
    ASSERT_STATUS(NULL, ra_ctx_create(&opts, &ctx), RA_OK, "create with a counting allocator");
    CHECK(c.total > 0, "the context allocates through the hook (%ld allocations)", c.total);
    size_t n = 0;
    ra_info_devices(ctx, NULL, 0, &n);
    ASSERT_INT(n, 1, "RA_CTX_NO_OPENCL: only cpu");
    ra_array *x = NULL;
    int64_t shape[2] = {3, 4};
    long before = c.total;
    ASSERT_STATUS(ctx, ra_zeros(ctx, shape, 2, NULL, &x), RA_OK, "zeros in the hooked context");
    CHECK(c.total >= before + 2, "array header and host data come from the hook");
    ra_array_release(x);
    /* An error creates this thread's state for the message, also through the hook. */
    ra_device_parse(ctx, "bogus", &d);
    ASSERT_MESSAGE(ctx, "'bogus'", "the message is kept per context and thread");
    CHECK(strstr(ra_ctx_message(NULL), "bogus") == NULL, "the context-free slot was not touched");
    ra_ctx_thread_release(ctx);
    ASSERT_STR(ra_ctx_message(ctx), "", "after release this thread has no message in ctx");
    ra_ctx_thread_release(ctx); /* twice is harmless */
    ra_ctx_thread_release(NULL);
    ra_ctx_destroy(ctx);
    ASSERT_INT(c.live, 0, "every allocation was released after destroy");
    char message[512];
    snprintf(message, sizeof message, "%s", ra_ctx_message(NULL));
    ra_ctx_destroy(NULL);
    ASSERT_STR(ra_ctx_message(NULL), message,
               "destroy(NULL) is a no-op: not even the context-free message changes");
}

DT_TEST(two_contexts)
{
    ra_device d;
    /* Two contexts keep separate messages and settings. */
    ra_ctx *a = open_ctx(), *b = open_ctx();
    ra_device_parse(a, "GPU", &d);
    ra_device_parse(b, "gpu:", &d);
    ASSERT_MESSAGE(a, "'GPU'", "context a keeps its own message");
    ASSERT_MESSAGE(b, "'gpu:'", "context b keeps its own message");

    /* Inference order and soft policy settings. */
    ASSERT_INT(ra_ctx_inference(a), RA_INFER_2025, "the default inference order is 2025.12");
    ASSERT_STATUS(a, ra_ctx_set_inference(a, RA_INFER_LEGACY), RA_OK, "set the legacy order");
    ASSERT_INT(ra_ctx_inference(a), RA_INFER_LEGACY, "the order is legacy now");
    ASSERT_INT(ra_ctx_inference(b), RA_INFER_2025, "another context is unaffected");
    ASSERT_STATUS(a, ra_ctx_set_inference(a, (ra_inference)7), RA_E_ARG, "unknown order");
    ASSERT_INT(ra_ctx_inference(a), RA_INFER_LEGACY, "an invalid set changes nothing");
    ASSERT_STATUS(NULL, ra_ctx_set_inference(NULL, RA_INFER_2025), RA_E_NULL, "NULL ctx");
    ASSERT_INT(ra_ctx_inference(NULL), RA_INFER_2025, "NULL ctx reads the default order");
    ASSERT_INT(ra_ctx_soft_policy(a), RA_SOFT_MOVE_ALL, "the default soft policy is move-all");
    ASSERT_STATUS(a, ra_ctx_set_soft_policy(a, RA_SOFT_MOVE_MIXED), RA_OK, "set move-mixed");
    ASSERT_INT(ra_ctx_soft_policy(a), RA_SOFT_MOVE_MIXED, "the policy is move-mixed now");
    ASSERT_INT(ra_ctx_soft_policy(b), RA_SOFT_MOVE_ALL, "another context is unaffected");
    ASSERT_STATUS(a, ra_ctx_set_soft_policy(a, (ra_soft_policy)-1), RA_E_ARG, "unknown policy");
    ASSERT_STATUS(NULL, ra_ctx_set_soft_policy(NULL, RA_SOFT_MOVE_ALL), RA_E_NULL, "NULL ctx");
    ASSERT_INT(ra_ctx_soft_policy(NULL), RA_SOFT_MOVE_ALL, "NULL ctx reads the default");
    ra_ctx_destroy(a);
    ra_ctx_destroy(b);
}

DT_TEST(fresh_context_state)
{
    ra_device d;
    /* A context created after one was destroyed does not see the old thread state, even at
     * the same address. */
    for (int i = 0; i < 3; i++) {
        ra_ctx *t = open_ctx();
        CHECK(strcmp(ra_ctx_message(t), "") == 0, "a new context (%d) starts without a message", i);
        ASSERT_INT(ra_default_depth(t), 0, "a new context (%d) starts without scopes", i);
        ra_default_push(t, RA_CPU);
        ra_device_parse(t, "x", &d);
        ra_ctx_destroy(t);
    }
}

/* The context's memory limit (ra_ctx_options.max_host_bytes): an allocation past it is
 * RA_E_NOMEM naming the limit, before any memory is taken; memory given back counts again;
 * a shape of 2^33 int8 (8 GiB) is refused at once. */
DT_TEST(memory_limit)
{
    ra_ctx *ctx = NULL;
    ASSERT_STATUS(
        NULL,
        ra_ctx_create(RA_CTX_OPTIONS(.flags = RA_CTX_NO_OPENCL, .max_host_bytes = 1 << 20), &ctx),
        RA_OK, "a context with a 1 MiB limit");
    ra_array *a = NULL, *b = NULL, *c = NULL;
    int64_t half[1] = {(1 << 19) / 8}; /* 512 KiB of float64 */
    ra_opts f64 = {.size = sizeof f64, .dtype = RA_FLOAT64};
    ASSERT_STATUS(ctx, ra_zeros(ctx, half, 1, &f64, &a), RA_OK, "512 KiB within the limit");
    ASSERT_STATUS(ctx, ra_zeros(ctx, half, 1, &f64, &b), RA_OK,
                  "another 512 KiB: exactly the limit");
    ASSERT_STATUS(ctx, ra_zeros(ctx, half, 1, &f64, &c), RA_E_NOMEM, "a third passes the limit");
    ASSERT_MESSAGE(ctx, "memory limit of 1048576 bytes", "the message names the limit");
    ra_array_release(b);
    ASSERT_STATUS(ctx, ra_zeros(ctx, half, 1, &f64, &c), RA_OK, "memory given back counts again");
    ra_array *big = NULL;
    int64_t huge[1] = {(int64_t)1 << 33};
    ra_opts i8 = {.size = sizeof i8, .dtype = RA_INT8};
    ASSERT_STATUS(ctx, ra_zeros(ctx, huge, 1, &i8, &big), RA_E_NOMEM,
                  "2^33 int8 is refused at once");
    ra_array_release(a);
    ra_array_release(c);
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(memory_limit), DT_ENTRY(create_refusals), DT_ENTRY(options_size_and_flags),
        DT_ENTRY(allocation_hook_and_messages), DT_ENTRY(two_contexts),
        DT_ENTRY(fresh_context_state))
