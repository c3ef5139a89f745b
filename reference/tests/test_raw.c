/* test_raw.c: host memory for layers built on refarray (ra_array_host_data,
 * ra_array_create_filled) on every device. */
#include "ra_test.h"

static int fill_iota(void *dst, size_t nbytes, void *user_data)
{
    int *calls = user_data;
    (*calls)++;
    for (size_t i = 0; i < nbytes / sizeof(int32_t); i++)
        ((int32_t *)dst)[i] = (int32_t)i * 3;
    return RA_OK;
}

static int fill_fail(void *dst, size_t nbytes, void *user_data)
{
    (void)dst;
    (void)nbytes;
    (void)user_data;
    return RA_E_BACKEND;
}

DT_TEST(create_filled)
{
    ra_ctx *ctx = open_ctx();
    ra_device devs[16];
    size_t n = list_devices(ctx, devs);
    int64_t shape[2] = {2, 3};
    for (size_t d = 0; d < n; d++) {
        char name[RA_DEVICE_STR_MAX];
        dev_str(devs[d], name);
        ra_array *x = NULL;
        int calls = 0;
        ASSERT_STATUS(
            ctx, ra_array_create_filled(ctx, devs[d], RA_INT32, shape, 2, fill_iota, &calls, &x),
            RA_OK, "create_filled on %s", name);
        ASSERT_INT(calls, 1, "fill is called once on %s", name);
        ASSERT_DEV(x ? ra_array_device(x) : RA_CPU, devs[d], "the array is on %s", name);
        ASSERT_VALUES(ctx, x, "create_filled writes the values", 0, 3, 6, 9, 12, 15);
        const int32_t *p = ra_array_host_data(x);
        if (devs[d].type == RA_DEVICE_CPU)
            CHECK(p && p[5] == 15, "host_data gives a cpu array's bytes");
        else
            CHECK(p == NULL, "host_data is NULL for %s", name);
        ra_array_release(x);
        x = NULL;
        ASSERT_STATUS(ctx,
                      ra_array_create_filled(ctx, devs[d], RA_INT32, shape, 2, fill_fail, NULL, &x),
                      RA_E_BACKEND, "the fill's status is returned on %s", name);
        CHECK(x == NULL, "and out stays NULL");
    }
    int calls = 0;
    ra_array *x = NULL;
    int64_t empty[1] = {0};
    ASSERT_STATUS(ctx,
                  ra_array_create_filled(ctx, RA_CPU, RA_FLOAT64, empty, 1, fill_iota, &calls, &x),
                  RA_OK, "an empty array");
    CHECK(calls == 1 && ra_array_host_data(x) == NULL, "fill called with nothing; no host data");
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_array_create_filled(ctx, RA_CPU, RA_INT32, shape, 2, NULL, NULL, &x),
                  RA_E_NULL, "fill NULL");
    ASSERT_STATUS(ctx,
                  ra_array_create_filled(ctx, RA_CPU, RA_INT32, shape, 2, fill_iota, &calls, NULL),
                  RA_E_NULL, "out NULL");
    ASSERT_STATUS(
        ctx, ra_array_create_filled(ctx, RA_CPU, (ra_dtype)99, shape, 2, fill_iota, &calls, &x),
        RA_E_ARG, "a bad dtype");
    ASSERT_STATUS(ctx,
                  ra_array_create_filled(ctx, (ra_device){RA_DEVICE_TPU, 0}, RA_INT32, shape, 2,
                                         fill_iota, &calls, &x),
                  RA_E_DEVICE_UNAVAILABLE, "an unavailable device");
    int64_t neg[1] = {-1};
    ASSERT_STATUS(ctx, ra_array_create_filled(ctx, RA_CPU, RA_INT32, neg, 1, fill_iota, &calls, &x),
                  RA_E_SHAPE, "a negative extent");
    CHECK(ra_array_host_data(NULL) == NULL, "host_data of NULL is NULL");
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(create_filled))
