/* Tests of tril and triu (DEV-CREATE-8) and of the list of arrays alive on a device
 * (IVY-UTIL-6), on every device the context lists. Expected values are worked out by hand
 * from the definitions: tril keeps (i, j) with j <= i + k, triu keeps j >= i + k. */
#include "ra_test.h"

#include <stdint.h>

static ra_array *matrix(ra_ctx *ctx, ra_device dev, ra_dtype dtype, const int64_t *shape,
                        size_t ndim)
{
    double v[64];
    int64_t size = 1;
    for (size_t i = 0; i < ndim; i++)
        size *= shape[i];
    for (int64_t i = 0; i < size && i < 64; i++)
        v[i] = (double)(i + 1);
    ra_array *x = NULL;
    if (ra_asarray_buffer(ctx, v, RA_FLOAT64, shape, ndim,
                          &(ra_opts){.dtype = dtype, .device_value = &dev}, &x) != RA_OK)
        printf("# cannot create an input: %s\n", ra_ctx_message(ctx));
    return x;
}

#define TRI(fn, x, k, name, ...)                                                                   \
    do {                                                                                           \
        ra_array *y_ = NULL;                                                                       \
        ASSERT_STATUS(ctx, fn(ctx, (x), (k), &y_), RA_OK, "%s: %s", ds, (name));                   \
        if (y_) {                                                                                  \
            ASSERT_DEV(ra_array_device(y_), dev, "DEV-CREATE-8 %s: %s is on x's device", ds,       \
                       (name));                                                                    \
            ASSERT_INT(ra_array_dtype(y_), ra_array_dtype(x), "%s: %s keeps the dtype", ds,        \
                       (name));                                                                    \
            CHECK(ra_array_ndim(y_) == ra_array_ndim(x) &&                                         \
                      memcmp(ra_array_shape(y_), ra_array_shape(x),                                \
                             ra_array_ndim(x) * sizeof(int64_t)) == 0,                             \
                  "%s: %s keeps the shape", ds, (name));                                           \
            ASSERT_VALUES(ctx, y_, (name), __VA_ARGS__);                                           \
            ra_array_release(y_);                                                                  \
        }                                                                                          \
    } while (0)

static void tri_on_device(ra_ctx *ctx, ra_device dev, ra_dtype dtype)
{
    char ds[RA_DEVICE_STR_MAX];
    dev_str(dev, ds);
    dt_diag("device %s, %s", ds, ra_dtype_name(dtype));
    int64_t s34[2] = {3, 4}, s222[3] = {2, 2, 2}, s3[1] = {3}, s03[2] = {0, 3};
    ra_array *x = matrix(ctx, dev, dtype, s34, 2);
    TRI(ra_tril, x, 0, "tril(3x4)", 1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0);
    TRI(ra_triu, x, 0, "triu(3x4)", 1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12);
    TRI(ra_tril, x, 1, "tril(3x4, k=1)", 1, 2, 0, 0, 5, 6, 7, 0, 9, 10, 11, 12);
    TRI(ra_tril, x, -1, "tril(3x4, k=-1)", 0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0);
    TRI(ra_triu, x, 1, "triu(3x4, k=1)", 0, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12);
    TRI(ra_triu, x, -1, "triu(3x4, k=-1)", 1, 2, 3, 4, 5, 6, 7, 8, 0, 10, 11, 12);
    TRI(ra_tril, x, 3, "tril(3x4, k=3) keeps all", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
    TRI(ra_tril, x, -3, "tril(3x4, k=-3) keeps nothing", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    TRI(ra_triu, x, -2, "triu(3x4, k=-2) keeps all", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
    TRI(ra_triu, x, 4, "triu(3x4, k=4) keeps nothing", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    TRI(ra_tril, x, INT64_MAX, "tril(k=INT64_MAX)", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
    TRI(ra_tril, x, INT64_MIN, "tril(k=INT64_MIN)", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    TRI(ra_triu, x, INT64_MIN, "triu(k=INT64_MIN)", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
    ra_array_release(x);
    x = matrix(ctx, dev, dtype, s222, 3);
    TRI(ra_tril, x, 0, "tril of a stack of two 2x2", 1, 0, 3, 4, 5, 0, 7, 8);
    TRI(ra_triu, x, 0, "triu of a stack of two 2x2", 1, 2, 0, 4, 5, 6, 0, 8);
    ra_array_release(x);
    ra_array *y = NULL;
    x = matrix(ctx, dev, dtype, s03, 2);
    ASSERT_STATUS(ctx, ra_tril(ctx, x, 0, &y), RA_OK, "%s: tril of an empty 0x3 matrix", ds);
    ASSERT_INT(ra_array_size(y), 0, "%s: the result is empty", ds);
    if (y) ASSERT_DEV(ra_array_device(y), dev, "DEV-CREATE-8 %s: empty tril on x's device", ds);
    ra_array_release(y);
    ra_array_release(x);
    x = matrix(ctx, dev, dtype, s3, 1);
    y = (ra_array *)&y;
    ASSERT_STATUS(ctx, ra_triu(ctx, x, 0, &y), RA_E_SHAPE, "%s: triu of a 1-D array", ds);
    ASSERT_MESSAGE(ctx, "1 dimensions", "the message gives x's dimensions");
    CHECK(y == NULL, "a failed triu sets *out to NULL");
    ra_array_release(x);
}

/* A 20x20 matrix: more row segments than the OpenCL path copies one by one, so a non-host
 * device stages it through host memory; the expected values follow the definition. */
static void tri_large(ra_ctx *ctx, ra_device dev)
{
    char ds[RA_DEVICE_STR_MAX];
    dev_str(dev, ds);
    enum { N = 20 };
    int32_t v[N * N], got[N * N];
    for (int i = 0; i < N * N; i++)
        v[i] = i + 1;
    int64_t shape[2] = {N, N};
    ra_array *x = NULL;
    ra_asarray_buffer(ctx, v, RA_INT32, shape, 2, &(ra_opts){.device_value = &dev}, &x);
    for (int upper = 0; upper < 2; upper++) {
        for (int64_t k = -3; k <= 3; k += 3) {
            ra_array *y = NULL;
            int st = upper ? ra_triu(ctx, x, k, &y) : ra_tril(ctx, x, k, &y);
            int wrong = -1;
            if (st == RA_OK && ra_array_read(ctx, y, got, sizeof got) == RA_OK) {
                wrong = 0;
                for (int i = 0; i < N; i++)
                    for (int j = 0; j < N; j++) {
                        bool keep = upper ? j >= i + k : j <= i + k;
                        wrong += got[i * N + j] != (keep ? v[i * N + j] : 0);
                    }
            }
            if (!CHECK(wrong == 0, "%s: %s(20x20, k=%lld) values", ds, upper ? "triu" : "tril",
                       (long long)k))
                printf("#   expected 0 wrong elements, observed %d (-1: the call failed: %s)\n",
                       wrong, ra_ctx_message(ctx));
            if (y)
                ASSERT_DEV(ra_array_device(y), dev,
                           "DEV-CREATE-8 %s: the 20x20 result is on x's "
                           "device",
                           ds);
            ra_array_release(y);
        }
    }
    ra_array_release(x);
}

/* IVY-UTIL-6: the arrays alive on dev are exactly those created there and not released. */
static void live_on_device(ra_ctx *ctx, ra_device dev, ra_device other)
{
    char ds[RA_DEVICE_STR_MAX];
    dev_str(dev, ds);
    size_t before = 99, n = 99;
    ASSERT_STATUS(ctx, ra_util_arrays_on_device(ctx, dev, NULL, 0, &before), RA_OK,
                  "%s: count the arrays alive", ds);
    ASSERT_INT(before, 0, "IVY-UTIL-6 %s: no array is alive at the start", ds);
    int64_t s2[1] = {2};
    ra_array *a = NULL, *b = NULL, *c = NULL;
    ra_zeros(ctx, s2, 1, &(ra_opts){.device_value = &dev}, &a);
    ra_ones(ctx, s2, 1, &(ra_opts){.dtype = RA_INT32, .device_value = &dev}, &b);
    bool two = !ra_device_eq(dev, other);
    if (two) ra_zeros(ctx, s2, 1, &(ra_opts){.device_value = &other}, &c);
    ra_array *list[4] = {NULL, NULL, NULL, NULL};
    ASSERT_STATUS(ctx, ra_util_arrays_on_device(ctx, dev, list, 4, &n), RA_OK, "%s: list", ds);
    ASSERT_INT(n, 2, "IVY-UTIL-6 %s: the two arrays created there are alive%s", ds,
               two ? " (not the one on the other device)" : "");
    CHECK(list[0] == a && list[1] == b && list[2] == NULL,
          "IVY-UTIL-6 %s: the list holds them, oldest first", ds);
    /* The listed entries are new references: giving them back leaves a and b alive. */
    ra_array_release(list[0]);
    ra_array_release(list[1]);
    ASSERT_VALUES(ctx, b, "the listed array is still alive after its listed reference", 1, 1);
    list[0] = list[1] = NULL;
    ASSERT_STATUS(ctx, ra_util_arrays_on_device(ctx, dev, list, 1, &n), RA_OK,
                  "%s: list with room for one", ds);
    ASSERT_INT(n, 2, "%s: the count is all of them", ds);
    CHECK(list[0] == a && list[1] == NULL, "%s: only the first is written", ds);
    ra_array_release(list[0]);
    ra_array_release(a);
    ASSERT_STATUS(ctx, ra_util_arrays_on_device(ctx, dev, NULL, 0, &n), RA_OK, "%s: count", ds);
    ASSERT_INT(n, 1, "IVY-UTIL-6 %s: a released array is no longer alive", ds);
    if (two) {
        ASSERT_STATUS(ctx, ra_util_arrays_on_device(ctx, other, NULL, 0, &n), RA_OK,
                      "%s: count on the other device", ds);
        ASSERT_INT(n, 1, "IVY-UTIL-6 %s: the other device has its one array", ds);
    }
    /* a's header is kept for this thread's next array (live.c), in the list but never listed:
     * the array made with it comes after b, which is older, and one made with it again when
     * nothing was made in between stays last. */
    for (int round = 0; round < 2; round++) {
        ra_array *d = NULL;
        ra_zeros(ctx, s2, 1, &(ra_opts){.device_value = &dev}, &d);
        list[0] = list[1] = NULL;
        ASSERT_STATUS(ctx, ra_util_arrays_on_device(ctx, dev, list, 4, &n), RA_OK, "%s: list", ds);
        ASSERT_INT(n, 2, "IVY-UTIL-6 %s: b and the array made after a's release (round %d)", ds,
                   round);
        CHECK(list[0] == b && list[1] == d && d,
              "IVY-UTIL-6 %s: an array made after a release is listed after the older b (round %d)",
              ds, round);
        ra_array_release(list[0]);
        ra_array_release(list[1]);
        ra_array_release(d);
    }
    ra_array_release(b);
    ra_array_release(c);
    ASSERT_STATUS(ctx, ra_util_arrays_on_device(ctx, dev, NULL, 0, &n), RA_OK, "%s: count", ds);
    ASSERT_INT(n, 0, "IVY-UTIL-6 %s: none alive after releasing all", ds);
}

DT_TEST(on_every_device)
{
    ra_ctx *ctx = open_ctx();
    ra_device devs[16];
    size_t n = list_devices(ctx, devs);
    /* tril, triu and the live arrays on every device the context lists. */
    for (size_t i = 0; i < n; i++) {
        uint32_t supported = 0;
        ra_info_dtypes(ctx, &devs[i], 0, &supported);
        tri_on_device(ctx, devs[i], RA_INT32);
        tri_on_device(ctx, devs[i], RA_UINT8);
        tri_on_device(ctx, devs[i], (supported >> RA_FLOAT64) & 1u ? RA_FLOAT64 : RA_FLOAT32);
        tri_large(ctx, devs[i]);
        live_on_device(ctx, devs[i], devs[(i + 1) % n]);
    }
    if (n < 2) skip_part("only one device (cpu): no OpenCL device here", "IVY-UTIL-6 two devices");
    ra_ctx_destroy(ctx);
}

DT_TEST(bad_arguments)
{
    ra_ctx *ctx = open_ctx();
    /* NULL arguments and a device that is not available. */
    ra_array *y = NULL;
    size_t count;
    ASSERT_STATUS(NULL, ra_tril(NULL, NULL, 0, &y), RA_E_NULL, "tril: ctx NULL");
    ASSERT_STATUS(ctx, ra_tril(ctx, NULL, 0, &y), RA_E_NULL, "tril: x NULL");
    ASSERT_STATUS(ctx, ra_triu(ctx, NULL, 0, NULL), RA_E_NULL, "triu: out NULL");
    ASSERT_STATUS(NULL, ra_util_arrays_on_device(NULL, RA_CPU, NULL, 0, &count), RA_E_NULL,
                  "arrays_on_device: ctx NULL");
    ASSERT_STATUS(ctx, ra_util_arrays_on_device(ctx, RA_CPU, NULL, 0, NULL), RA_E_NULL,
                  "arrays_on_device: count NULL");
    ASSERT_STATUS(ctx, ra_util_arrays_on_device(ctx, RA_CPU, NULL, 3, &count), RA_E_NULL,
                  "arrays_on_device: out NULL with cap 3");
    ASSERT_STATUS(ctx,
                  ra_util_arrays_on_device(ctx, (ra_device){RA_DEVICE_TPU, 0}, NULL, 0, &count),
                  RA_E_DEVICE_UNAVAILABLE, "arrays_on_device: tpu:0 is not available");
    ASSERT_MESSAGE(ctx, "tpu:0", "the message names the device");
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(on_every_device), DT_ENTRY(bad_arguments))
