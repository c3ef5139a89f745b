/* test_current.c: OneFlow's devices (OF-DEV-1..8): (type, index), the legacy ordinal, the
 * current device of a type per thread, and an array's ordinal. */
#include "ra_test.h"

#include <pthread.h>

static ra_ctx *g_ctx;

static void *other_thread(void *arg)
{
    ra_device *seen = arg;
    ra_device cur;
    ra_device_parse_current(g_ctx, "gpu", &cur);
    ra_device_resolve(g_ctx, cur, seen);
    ra_ctx_thread_release(g_ctx);
    return NULL;
}

static void test_values(ra_ctx *ctx)
{
    char buf[RA_DEVICE_STR_MAX];
    ra_device d = {0, 0}, r = {0, 0};
    /* OF-DEV-1, OF-DEV-3: a type string gives the current device of the type. */
    ASSERT_STATUS(ctx, ra_device_parse_current(ctx, "gpu", &d), RA_OK, "OF-DEV-3 parse 'gpu'");
    ASSERT_INT(d.index, RA_DEVICE_INDEX_CURRENT, "OF-DEV-2 'gpu' carries no ordinal");
    ASSERT_STR(dev_str(d, buf), "gpu", "OF-DEV-2 the current gpu prints as 'gpu'");
    ASSERT_STATUS(ctx, ra_device_resolve(ctx, d, &r), RA_OK, "OF-DEV-3 resolve 'gpu'");
    ASSERT_DEV(r, ((ra_device){RA_DEVICE_GPU, 0}), "OF-DEV-3 'gpu' is gpu:0 before any change");
    ASSERT_STATUS(ctx, ra_device_parse_current(ctx, "cpu", &d), RA_OK, "OF-DEV-3 parse 'cpu'");
    ASSERT_STATUS(ctx, ra_device_resolve(ctx, d, &r), RA_OK, "OF-DEV-3 resolve 'cpu'");
    ASSERT_DEV(r, RA_CPU, "OF-DEV-3 device('cpu') reports index 0");
    ASSERT_STR(dev_str(d, buf), "cpu", "OF-DEV-3 the current cpu prints as 'cpu'");
    ASSERT_STATUS(ctx, ra_device_parse_current(ctx, "gpu:3", &d), RA_OK, "parse 'gpu:3'");
    ASSERT_DEV(d, ((ra_device){RA_DEVICE_GPU, 3}), "OF-DEV-3 'gpu:3' keeps its ordinal");
    d = (ra_device){0, 7};
    ASSERT_STATUS(ctx, ra_device_parse_current(ctx, "gpu:x", &d), RA_E_DEVICE_SYNTAX,
                  "a malformed string is RA_E_DEVICE_SYNTAX");
    CHECK(d.type == 0 && d.index == 7, "a failed parse leaves the output untouched");
    ASSERT_STATUS(ctx, ra_device_parse_current(ctx, "cuda", &d), RA_E_DEVICE_TYPE,
                  "an unknown type is RA_E_DEVICE_TYPE");
    ASSERT_STATUS(ctx, ra_device_parse_current(ctx, "tpu", &d), RA_E_DEVICE_TYPE,
                  "OF-DEV-1 tpu is no OneFlow device type");
    ASSERT_STATUS(ctx, ra_device_from_type_index(ctx, "tpu", 0, &d), RA_E_DEVICE_TYPE,
                  "OF-DEV-1 device('tpu', 0) is refused too");
    ASSERT_STATUS(ctx, ra_device_parse(ctx, "tpu", &d), RA_OK, "Ivy's tpu still parses");
    ASSERT_STATUS(ctx, ra_device_parse_current(ctx, NULL, &d), RA_E_NULL, "NULL text");
    ASSERT_STATUS(ctx, ra_device_parse_current(ctx, "gpu", NULL), RA_E_NULL, "NULL out");
    /* The draft's reading stays: a bare 'gpu' is gpu:0 for ra_device_parse. */
    ASSERT_STATUS(ctx, ra_device_parse(ctx, "gpu", &d), RA_OK, "draft parse 'gpu'");
    ASSERT_DEV(d, ((ra_device){RA_DEVICE_GPU, 0}), "DRAFT-STR-1 'gpu' is still gpu:0");
    /* OF-DEV-4: (type, index). */
    ASSERT_STATUS(ctx, ra_device_from_type_index(ctx, "gpu", 0, &d), RA_OK, "device('gpu', 0)");
    ASSERT_DEV(d, ((ra_device){RA_DEVICE_GPU, 0}), "OF-DEV-4 device('gpu', 0) is gpu:0");
    ASSERT_STATUS(ctx, ra_device_from_type_index(ctx, "cpu", 0, &d), RA_OK, "device('cpu', 0)");
    ASSERT_DEV(d, RA_CPU, "OF-DEV-4 device('cpu', 0) is cpu");
    ASSERT_STATUS(ctx, ra_device_from_type_index(ctx, "gpu", -1, &d), RA_E_ARG,
                  "OF-DEV-4 a negative index is RA_E_ARG");
    /* OF-DEV-5: the legacy ordinal. */
    ASSERT_STATUS(ctx, ra_device_from_ordinal(ctx, 1, &d), RA_OK, "device(1)");
    ASSERT_DEV(d, ((ra_device){RA_DEVICE_GPU, 1}), "OF-DEV-5 device(1) is gpu:1");
    ASSERT_STATUS(ctx, ra_device_resolve(ctx, (ra_device){RA_DEVICE_GPU, -2}, &r), RA_E_ARG,
                  "resolve of an invalid value is RA_E_ARG");
    ASSERT_STATUS(ctx, ra_device_resolve(ctx, d, NULL), RA_E_NULL, "resolve with out NULL");
    ASSERT_DEV(ra_device_current(NULL, RA_DEVICE_GPU), ((ra_device){RA_DEVICE_GPU, 0}),
               "the current gpu without a context is gpu:0");
}

static void test_current(ra_ctx *ctx)
{
    ra_device cur, r;
    ASSERT_STATUS(ctx, ra_device_set_current(ctx, (ra_device){RA_DEVICE_GPU, 999}),
                  RA_E_DEVICE_UNAVAILABLE, "set_current to a missing gpu is unavailable");
    ASSERT_MESSAGE(ctx, "gpu:999", "the message names the device");
    ASSERT_STATUS(ctx, ra_device_set_current(ctx, (ra_device){RA_DEVICE_GPU, -3}), RA_E_ARG,
                  "set_current to an invalid value is RA_E_ARG");
    ASSERT_STATUS(NULL, ra_device_set_current(NULL, RA_CPU), RA_E_NULL, "set_current ctx NULL");
    ASSERT_STATUS(ctx, ra_device_set_current(ctx, RA_CPU), RA_OK, "set_current cpu");
    ASSERT_DEV(ra_device_current(ctx, RA_DEVICE_CPU), RA_CPU, "the current cpu is cpu:0");
    /* A cpu array has no ordinal (OF-DEV-8). */
    ra_array *x = NULL;
    int64_t shape[1] = {2};
    ASSERT_STATUS(ctx, ra_zeros(ctx, shape, 1, &(ra_opts){.device = "cpu"}, &x), RA_OK,
                  "zeros on cpu");
    int32_t ord = 42;
    ASSERT_STATUS(ctx, ra_array_get_device(ctx, x, &ord), RA_E_DEVICE_KIND,
                  "OF-DEV-8 get_device of a cpu array is an error");
    ASSERT_STR(ra_status_kind(RA_E_DEVICE_KIND), "RuntimeError", "OF-DEV-8 of kind RuntimeError");
    ASSERT_MESSAGE(ctx, "cpu", "the message names the array's device");
    ASSERT_INT(ord, 42, "the output is untouched");
    ASSERT_STATUS(ctx, ra_array_get_device(ctx, NULL, &ord), RA_E_NULL, "get_device x NULL");
    ASSERT_STATUS(ctx, ra_array_get_device(ctx, x, NULL), RA_E_NULL, "get_device out NULL");
    ra_array_release(x);

    if (ra_util_num_gpus(ctx) < 2) {
        skip_part("fewer than two gpu devices", "OF-DEV-2 the current gpu follows set_current");
        return;
    }
    ra_device_parse_current(ctx, "gpu", &cur);
    ra_device gpu1 = {RA_DEVICE_GPU, 1};
    ASSERT_STATUS(ctx, ra_device_set_current(ctx, gpu1), RA_OK, "set_current gpu:1");
    ra_device_resolve(ctx, cur, &r);
    ASSERT_DEV(r, gpu1, "OF-DEV-2 a kept 'gpu' value now means gpu:1");
    CHECK(ra_device_is_available(ctx, cur), "the current gpu is available");
    /* OF-DEV-2, OF-DEV-6, OF-DEV-7: an array made on 'gpu' lands on the current gpu. */
    ASSERT_STATUS(ctx, ra_zeros(ctx, shape, 1, &(ra_opts){.device_value = &cur}, &x), RA_OK,
                  "zeros on the current gpu");
    ASSERT_DEV(ra_array_device(x), gpu1, "OF-DEV-2 'gpu' is gpu:X, X the current index");
    ASSERT_STATUS(ctx, ra_array_get_device(ctx, x, &ord), RA_OK, "get_device of a gpu array");
    ASSERT_INT(ord, 1, "OF-DEV-8 get_device gives the ordinal");
    ra_array_release(x);
    /* A bare type in ra_opts.device is the current device of its type too. */
    x = NULL;
    ASSERT_STATUS(ctx, ra_zeros(ctx, shape, 1, &(ra_opts){.device = "gpu"}, &x), RA_OK,
                  "zeros(device='gpu') after set_current(gpu:1)");
    ASSERT_DEV(ra_array_device(x), gpu1, "OF-DEV-6 the string 'gpu' lands on the current gpu");
    ra_array_release(x);
    ra_device legacy;
    ra_device_from_ordinal(ctx, 1, &legacy);
    ra_array *a = NULL, *b = NULL;
    ra_zeros(ctx, shape, 1, &(ra_opts){.device_value = &legacy}, &a);
    ra_zeros(ctx, shape, 1, &(ra_opts){.device = "gpu:1"}, &b);
    CHECK(a && b && ra_device_eq(ra_array_device(a), ra_array_device(b)),
          "OF-DEV-6 an ordinal and a string name the same device");
    ra_array_release(a);
    ra_array_release(b);
    /* The current device is per thread. */
    ra_device seen = {0, 0};
    pthread_t th;
    g_ctx = ctx;
    pthread_create(&th, NULL, other_thread, &seen);
    pthread_join(th, NULL);
    ASSERT_DEV(seen, ((ra_device){RA_DEVICE_GPU, 0}),
               "OF-DEV-2 another thread's current gpu is gpu:0");
    ra_device_set_current(ctx, (ra_device){RA_DEVICE_GPU, 0});
    ra_device_resolve(ctx, cur, &r);
    ASSERT_DEV(r, ((ra_device){RA_DEVICE_GPU, 0}), "OF-DEV-2 and back to gpu:0");
}

DT_TEST(values)
{
    ra_ctx *ctx = open_ctx();
    test_values(ctx);
    ra_ctx_destroy(ctx);
}

DT_TEST(current)
{
    ra_ctx *ctx = open_ctx();
    test_current(ctx);
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(values), DT_ENTRY(current))
