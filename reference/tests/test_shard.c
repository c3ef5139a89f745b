/* Tests of sharded arrays (TG-SHARD-*, TG-EW-*, TG-RED-1, TG-GATHER-*) over every device
 * tuple the context can form: two and three OpenCL devices (POCL_DEVICES="pthread pthread
 * pthread" gives three), a mix of cpu and gpu:0, and cpu alone. A tuple needing more
 * devices than the context has is skipped with that reason. Expected values are computed
 * here from the statements (the element at index i of arange is i, a piece holds the
 * elements between its bounds), never read back from refarray first. */
#include "ra_test.h"

#include <stdint.h>

#define MAXV 256

static char tuple_name[128];

/* An array of the given shape on dev whose element i (C order) is base + i * step. */
static ra_array *ramp(ra_ctx *ctx, ra_device dev, ra_dtype dtype, const int64_t *shape, size_t ndim,
                      double base, double step)
{
    double v[MAXV];
    int64_t size = 1;
    for (size_t i = 0; i < ndim; i++)
        size *= shape[i];
    for (int64_t i = 0; i < size && i < MAXV; i++)
        v[i] = base + (double)i * step;
    ra_array *x = NULL;
    if (ra_asarray_buffer(ctx, v, RA_FLOAT64, shape, ndim,
                          &(ra_opts){.dtype = dtype, .device_value = &dev}, &x) != RA_OK)
        printf("# cannot create an input: %s\n", ra_ctx_message(ctx));
    return x;
}

static void expect_values(ra_ctx *ctx, const ra_array *x, const double *want, size_t n,
                          const char *file, int line, const char *name)
{
    double got[MAXV];
    long ng = x ? read_values(ctx, x, got, MAXV) : -1;
    int ok = ng == (long)n && values_equal(got, want, n);
    if (!ok) {
        printf("# %s:%d: %s %s\n", file, line, tuple_name, name);
        printf("#   expected %zu values [", n);
        for (size_t i = 0; i < n && i < 16; i++)
            printf("%s%g", i ? ", " : "", want[i]);
        printf("%s], observed ", n > 16 ? ", ..." : "");
        if (ng < 0) {
            printf("(unreadable: %s)\n", ra_ctx_message(ctx));
        } else {
            printf("%ld values [", ng);
            for (long i = 0; i < ng && i < 16; i++)
                printf("%s%g", i ? ", " : "", got[i]);
            printf("%s]\n", ng > 16 ? ", ..." : "");
        }
        dt_fail(file, line, "values differ");
    }
}
#define EXPECT_V(x, want, n, name) expect_values(ctx, (x), (want), (n), __FILE__, __LINE__, (name))

/* The pieces are on the tuple's devices in order and have the expected lengths along the
 * axis (NULL lens: replicated, each piece the whole shape). */
static void expect_layout(ra_ctx *ctx, const ra_array *x, const ra_device *tuple, size_t n,
                          int axis, const int64_t *lens, const char *name)
{
    (void)ctx;
    if (!CHECK(x && ra_array_is_sharded(x), "%s %s: TG-SHARD-1 the result is sharded", tuple_name,
               name))
        return;
    ASSERT_INT(ra_shard_count(x), n, "%s %s: TG-SHARD-8 one piece per device", tuple_name, name);
    ASSERT_INT(ra_shard_axis(x), axis, "%s %s: the split axis", tuple_name, name);
    int64_t start = 0;
    for (size_t i = 0; i < n && i < ra_shard_count(x); i++) {
        const ra_array *p = ra_shard_piece(x, i);
        ASSERT_DEV(ra_shard_device(x, i), tuple[i], "%s %s: TG-SHARD-1 piece %zu's device",
                   tuple_name, name, i);
        ASSERT_DEV(ra_array_device(p), tuple[i],
                   "%s %s: TG-SHARD-1 piece %zu lives in its device's memory", tuple_name, name, i);
        ASSERT_INT(ra_array_dtype(p), ra_array_dtype(x), "%s %s: TG-SHARD-8 piece %zu's dtype",
                   tuple_name, name, i);
        if (!lens) {
            CHECK(ra_array_ndim(p) == ra_array_ndim(x) &&
                      (ra_array_ndim(x) == 0 || memcmp(ra_array_shape(p), ra_array_shape(x),
                                                       ra_array_ndim(x) * sizeof(int64_t)) == 0),
                  "%s %s: TG-SHARD-7 piece %zu holds the whole shape", tuple_name, name, i);
            continue;
        }
        int64_t s = -1, e = -1;
        ASSERT_STATUS(ctx, ra_shard_bounds(x, i, &s, &e), RA_OK, "%s %s: bounds of piece %zu",
                      tuple_name, name, i);
        ASSERT_INT(s, start, "%s %s: TG-SHARD-6 piece %zu starts at the running sum", tuple_name,
                   name, i);
        ASSERT_INT(e, start + lens[i], "%s %s: TG-SHARD-6 piece %zu ends at start + length",
                   tuple_name, name, i);
        ASSERT_INT(ra_array_shape(p)[axis], lens[i], "%s %s: TG-SHARD-5 piece %zu's length",
                   tuple_name, name, i);
        start += lens[i];
    }
}

/* The values of piece i read on its own (they must be the slice between its bounds). */
static void expect_piece(ra_ctx *ctx, const ra_array *x, size_t i, const double *want, size_t n,
                         const char *name)
{
    const ra_array *p = ra_shard_piece(x, i);
    char buf[160];
    snprintf(buf, sizeof buf, "%s: piece %zu's values", name, i);
    EXPECT_V(p, want, n, buf);
}

static void test_shard_basic(ra_ctx *ctx, const ra_device *tuple, size_t n)
{
    /* TG-SHARD-5: 4n elements over n devices along axis 0: piece i holds 4i .. 4i+3. */
    int64_t shape[1] = {4 * (int64_t)n};
    ra_array *x = ramp(ctx, RA_CPU, RA_FLOAT32, shape, 1, 0, 1);
    ra_array *s = NULL;
    int axis = 0;
    ASSERT_STATUS(ctx, ra_shard(ctx, x, tuple, n, &axis, NULL, &s), RA_OK, "%s ra_shard axis 0",
                  tuple_name);
    int64_t lens[8];
    for (size_t i = 0; i < n; i++)
        lens[i] = 4;
    expect_layout(ctx, s, tuple, n, 0, lens, "shard axis 0");
    double want[MAXV];
    for (size_t i = 0; s && i < n; i++) {
        for (int j = 0; j < 4; j++)
            want[j] = (double)(4 * i + (size_t)j);
        expect_piece(ctx, s, i, want, 4, "TG-SHARD-5 shard axis 0");
    }
    for (int64_t i = 0; i < shape[0]; i++)
        want[i] = (double)i;
    EXPECT_V(s, want, (size_t)shape[0], "TG-GATHER-1 the gathered values are the unsharded ones");
    ASSERT_DEV(ra_array_device(s), tuple[0], "%s ra_array_device is the tuple's first device",
               tuple_name);
    ASSERT_INT(ra_array_size(s), shape[0], "%s the logical size", tuple_name);
    ASSERT_INT(ra_array_nbytes(s), shape[0] * 4, "%s the logical nbytes", tuple_name);
    /* ra_array_read gathers into host memory. */
    float host[MAXV] = {0};
    ASSERT_STATUS(ctx, ra_array_read(ctx, s, host, (size_t)shape[0] * 4), RA_OK,
                  "%s ra_array_read of a sharded array", tuple_name);
    int same = 1;
    for (int64_t i = 0; i < shape[0]; i++)
        same &= host[i] == (float)i;
    CHECK(same, "%s TG-GATHER-1 ra_array_read assembles the pieces in order", tuple_name);

    /* TG-SHARD-4: sharding a sharded array is an error naming the tuple. */
    ra_array *again = NULL;
    ASSERT_STATUS(ctx, ra_shard(ctx, s, tuple, n, &axis, NULL, &again), RA_E_SHARDED,
                  "%s TG-SHARD-4 sharding a sharded array", tuple_name);
    char d0[RA_DEVICE_STR_MAX];
    dev_str(tuple[0], d0);
    ASSERT_MESSAGE(ctx, d0, "%s TG-SHARD-4 the message names the devices", tuple_name);
    CHECK(again == NULL, "%s TG-SHARD-4 out stays NULL", tuple_name);
    ASSERT_STATUS(ctx, ra_shard_inplace(ctx, s, tuple, n, NULL, NULL), RA_E_SHARDED,
                  "%s TG-SHARD-4 sharding a sharded array in place", tuple_name);

    /* The pieces are not listed as arrays of their devices; sharded arrays have none. */
    size_t listed = 99;
    ra_array *lst[64];
    ASSERT_STATUS(ctx, ra_util_arrays_on_device(ctx, tuple[n - 1], lst, 64, &listed), RA_OK,
                  "%s arrays_on_device", tuple_name);
    int found = 0;
    for (size_t i = 0; i < listed && i < 64; i++) {
        found |= lst[i] == s || lst[i] == ra_shard_piece(s, n - 1);
        ra_array_release(lst[i]);
    }
    CHECK(!found, "%s arrays_on_device lists neither the sharded array nor its pieces", tuple_name);
    ra_array_release(s);
    ra_array_release(x);

    /* TG-SHARD-2: axis -1 of a (2, 2n) array is axis 1: piece i holds columns 2i, 2i+1. */
    int64_t s2[2] = {2, 2 * (int64_t)n};
    x = ramp(ctx, tuple[0], RA_INT32, s2, 2, 0, 1);
    axis = -1;
    s = NULL;
    ASSERT_STATUS(ctx, ra_shard(ctx, x, tuple, n, &axis, NULL, &s), RA_OK, "%s ra_shard axis -1",
                  tuple_name);
    for (size_t i = 0; i < n; i++)
        lens[i] = 2;
    expect_layout(ctx, s, tuple, n, 1, lens, "TG-SHARD-2 axis -1 counts from the end");
    for (size_t i = 0; s && i < n; i++) {
        double w[4] = {(double)(2 * i), (double)(2 * i + 1), (double)(2 * n + 2 * i),
                       (double)(2 * n + 2 * i + 1)};
        expect_piece(ctx, s, i, w, 4, "TG-SHARD-2 axis -1");
    }
    for (int64_t i = 0; i < 4 * (int64_t)n; i++)
        want[i] = (double)i;
    EXPECT_V(s, want, 4 * n, "TG-GATHER-1 gathering a split along the last axis");
    ra_array_release(s);

    /* TG-SHARD-7: without an axis every device holds the whole array. */
    s = NULL;
    ASSERT_STATUS(ctx, ra_shard(ctx, x, tuple, n, NULL, NULL, &s), RA_OK, "%s replicate",
                  tuple_name);
    expect_layout(ctx, s, tuple, n, RA_SHARD_REPLICATED, NULL, "TG-SHARD-7 replicated");
    for (size_t i = 0; s && i < n; i++)
        expect_piece(ctx, s, i, want, 4 * n, "TG-SHARD-7 replicated");
    int64_t b0, b1;
    ASSERT_STATUS(ctx, ra_shard_bounds(s, 0, &b0, &b1), RA_E_ARG,
                  "%s a replicated array has no bounds", tuple_name);
    ra_array_release(s);
    ra_array_release(x);

    /* 0-d: replicated only. */
    x = ramp(ctx, RA_CPU, RA_FLOAT64, NULL, 0, 7, 0);
    s = NULL;
    ASSERT_STATUS(ctx, ra_shard(ctx, x, tuple, n, NULL, NULL, &s), RA_OK,
                  "%s a 0-d array replicates", tuple_name);
    expect_layout(ctx, s, tuple, n, RA_SHARD_REPLICATED, NULL, "0-d replicated");
    double seven = 7;
    EXPECT_V(s, &seven, 1, "0-d replicated gathers to its value");
    ra_array_release(s);
    axis = 0;
    s = NULL;
    ASSERT_STATUS(ctx, ra_shard(ctx, x, tuple, n, &axis, NULL, &s), RA_E_AXIS,
                  "%s a 0-d array has no axis to split", tuple_name);
    ASSERT_MESSAGE(ctx, "0-d", "%s the message says why", tuple_name);
    ra_array_release(x);

    /* Empty: (0, 3) split along axis 0 gives n empty pieces. */
    int64_t se[2] = {0, 3};
    x = ramp(ctx, RA_CPU, RA_FLOAT32, se, 2, 0, 1);
    s = NULL;
    ASSERT_STATUS(ctx, ra_shard(ctx, x, tuple, n, &axis, NULL, &s), RA_OK,
                  "%s an empty array splits", tuple_name);
    for (size_t i = 0; i < n; i++)
        lens[i] = 0;
    expect_layout(ctx, s, tuple, n, 0, lens, "empty split");
    EXPECT_V(s, want, 0, "an empty sharded array gathers to no values");
    ra_array_release(s);
    ra_array_release(x);
}

static void test_shard_errors(ra_ctx *ctx, const ra_device *tuple, size_t n)
{
    int64_t shape[1] = {4 * (int64_t)n};
    ra_array *x = ramp(ctx, RA_CPU, RA_FLOAT32, shape, 1, 0, 1);
    ra_array *s = NULL;
    int axis = 1;
    ASSERT_STATUS(ctx, ra_shard(ctx, x, tuple, n, &axis, NULL, &s), RA_E_AXIS,
                  "%s axis 1 of a 1-d array", tuple_name);
    ASSERT_MESSAGE(ctx, "axis 1", "%s the message names the axis", tuple_name);
    axis = -2;
    ASSERT_STATUS(ctx, ra_shard(ctx, x, tuple, n, &axis, NULL, &s), RA_E_AXIS,
                  "%s axis -2 of a 1-d array", tuple_name);
    axis = 0;
    ASSERT_STATUS(ctx, ra_shard(ctx, x, tuple, 0, &axis, NULL, &s), RA_E_ARG, "%s an empty tuple",
                  tuple_name);
    ASSERT_STATUS(ctx, ra_shard(ctx, x, NULL, n, &axis, NULL, &s), RA_E_NULL, "%s devices NULL",
                  tuple_name);
    ASSERT_STATUS(ctx, ra_shard(ctx, NULL, tuple, n, &axis, NULL, &s), RA_E_NULL, "%s x NULL",
                  tuple_name);
    ASSERT_STATUS(ctx, ra_shard(ctx, x, tuple, n, &axis, NULL, NULL), RA_E_NULL, "%s out NULL",
                  tuple_name);
    ra_device twice[2] = {tuple[0], tuple[0]};
    ASSERT_STATUS(ctx, ra_shard(ctx, x, twice, 2, &axis, NULL, &s), RA_E_ARG,
                  "%s a device listed twice", tuple_name);
    ASSERT_MESSAGE(ctx, "twice", "%s the message says the device is listed twice", tuple_name);
    ra_device absent[2] = {tuple[0], {RA_DEVICE_GPU, 99}};
    ASSERT_STATUS(ctx, ra_shard(ctx, x, absent, 2, &axis, NULL, &s), RA_E_DEVICE_UNAVAILABLE,
                  "%s gpu:99 is not available", tuple_name);
    ASSERT_MESSAGE(ctx, "gpu:99", "%s the message names gpu:99", tuple_name);
    ASSERT_STATUS(ctx, ra_shard(ctx, x, tuple, n, &axis, &(ra_shard_opts){.size = 1}, &s), RA_E_ARG,
                  "%s opts->size too small", tuple_name);
    ASSERT_STATUS(ctx, ra_shard(ctx, x, tuple, n, &axis, RA_SHARD_OPTS(.uneven = 7), &s), RA_E_ARG,
                  "%s an unknown uneven value", tuple_name);
    ASSERT_STATUS(ctx, ra_shard(ctx, x, tuple, n, &axis, &(ra_shard_opts){.size = 0}, &s), RA_OK,
                  "%s opts->size 0 is the first layout", tuple_name);
    ra_array_release(s);
    s = NULL;
    CHECK(s == NULL, "%s out stays NULL on every error", tuple_name);
    ra_array_release(x);

    if (n < 2) {
        skip_part("one device divides every length", "%s TG-SHARD-9 uneven lengths", tuple_name);
        return;
    }
    /* TG-SHARD-9: n + 1 elements. refarray refuses by default ... */
    int64_t su[1] = {(int64_t)n + 1};
    x = ramp(ctx, RA_CPU, RA_INT64, su, 1, 0, 1);
    ASSERT_STATUS(ctx, ra_shard(ctx, x, tuple, n, &axis, NULL, &s), RA_E_SHARD_UNEVEN,
                  "%s TG-SHARD-9 an uneven split is refused by default", tuple_name);
    char len[32];
    snprintf(len, sizeof len, "length %zu", n + 1);
    ASSERT_MESSAGE(ctx, len, "%s TG-SHARD-9 the message names the length", tuple_name);
    ASSERT_MESSAGE(ctx, "axis 0", "%s TG-SHARD-9 the message names the axis", tuple_name);
    /* ... and with RA_SHARD_UNEVEN_CEIL cuts pieces of ceil((n+1)/n) = 2, the rest last. */
    ra_shard_opts ceil_opts = {.size = sizeof ceil_opts, .uneven = RA_SHARD_UNEVEN_CEIL};
    ASSERT_STATUS(ctx, ra_shard(ctx, x, tuple, n, &axis, &ceil_opts, &s), RA_OK,
                  "%s TG-SHARD-9 RA_SHARD_UNEVEN_CEIL", tuple_name);
    int64_t lens[8], left = (int64_t)n + 1;
    for (size_t i = 0; i < n; i++) {
        lens[i] = left < 2 ? left : 2;
        left -= lens[i];
    }
    expect_layout(ctx, s, tuple, n, 0, lens, "TG-SHARD-9 ceil split");
    double want[MAXV];
    for (size_t i = 0; i <= n; i++)
        want[i] = (double)i;
    EXPECT_V(s, want, n + 1, "TG-GATHER-1 an uneven split gathers to the original");
    /* Elementwise on uneven pieces keeps the bounds. */
    ra_array *y = NULL;
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(s), ra_operand_array(s), &y), RA_OK,
                  "%s add of two uneven splits", tuple_name);
    expect_layout(ctx, y, tuple, n, 0, lens, "TG-EW-3 uneven add keeps the bounds");
    for (size_t i = 0; i <= n; i++)
        want[i] = 2.0 * (double)i;
    EXPECT_V(y, want, n + 1, "TG-EW-3 uneven add's values");
    ra_array_release(y);
    /* A reduction over the uneven split axis, with an empty piece when n >= 3. */
    y = NULL;
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_MAX, s, NULL, &y), RA_OK, "%s max of an uneven split",
                  tuple_name);
    double mx = (double)n;
    EXPECT_V(y, &mx, 1, "TG-RED-1 max over uneven pieces (empty pieces take no part)");
    ra_array_release(y);
    ra_array_release(s);
    ra_array_release(x);
}

static void test_inplace(ra_ctx *ctx, const ra_device *tuple, size_t n)
{
    int64_t shape[2] = {2 * (int64_t)n, 3};
    ra_array *x = ramp(ctx, tuple[n - 1], RA_FLOAT32, shape, 2, 1, 1);
    ra_array *alias = ra_array_retain(x);
    int axis = 0;
    ra_device absent[1] = {{RA_DEVICE_GPU, 99}};
    ASSERT_STATUS(ctx, ra_shard_inplace(ctx, x, absent, 1, &axis, NULL), RA_E_DEVICE_UNAVAILABLE,
                  "%s in place onto an absent device", tuple_name);
    CHECK(!ra_array_is_sharded(x), "%s on error x is unchanged", tuple_name);
    double want[MAXV];
    for (int i = 0; i < 6 * (int)n; i++)
        want[i] = i + 1;
    EXPECT_V(x, want, 6 * n, "on error x keeps its values");
    ASSERT_STATUS(ctx, ra_shard_inplace(ctx, x, tuple, n, &axis, NULL), RA_OK,
                  "%s ra_shard_inplace", tuple_name);
    /* TG-SHARD-3: the same array (every reference sees it) is now sharded. */
    CHECK(ra_array_is_sharded(alias), "%s TG-SHARD-3 the same array is now sharded", tuple_name);
    int64_t lens[8];
    for (size_t i = 0; i < n; i++)
        lens[i] = 2;
    expect_layout(ctx, x, tuple, n, 0, lens, "TG-SHARD-3 in place");
    EXPECT_V(alias, want, 6 * n, "TG-SHARD-3 in place keeps the values");
    ra_array_release(alias);
    ra_array_release(x);
}

static void test_elementwise(ra_ctx *ctx, const ra_device *tuple, size_t n)
{
    int64_t shape[2] = {(int64_t)n, 2 * (int64_t)n};
    size_t size = 2 * n * n;
    int a0 = 0, a1 = 1;
    ra_array *ha = ramp(ctx, RA_CPU, RA_FLOAT32, shape, 2, 0, 1);
    ra_array *hb = ramp(ctx, RA_CPU, RA_FLOAT32, shape, 2, 100, 1);
    ra_array *a = NULL, *b = NULL, *b1 = NULL, *r = NULL, *y = NULL;
    ra_shard(ctx, ha, tuple, n, &a0, NULL, &a);
    ra_shard(ctx, hb, tuple, n, &a0, NULL, &b);
    ra_shard(ctx, hb, tuple, n, &a1, NULL, &b1);
    ra_shard(ctx, hb, tuple, n, NULL, NULL, &r);
    double want[MAXV];
    for (size_t i = 0; i < size; i++)
        want[i] = (double)i + 100 + (double)i;
    int64_t rows[8], cols[8];
    for (size_t i = 0; i < n; i++) {
        rows[i] = 1;
        cols[i] = 2;
    }

    /* TG-EW-3: same axis: piece i of the result on device i. */
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(a), ra_operand_array(b), &y), RA_OK,
                  "%s add, both split along axis 0", tuple_name);
    expect_layout(ctx, y, tuple, n, 0, rows, "TG-EW-3 add along axis 0");
    EXPECT_V(y, want, size, "TG-EW-3 add along axis 0: values");
    for (size_t i = 0; y && i < n; i++) {
        double w[16];
        for (size_t j = 0; j < 2 * n; j++)
            w[j] = want[i * 2 * n + j];
        expect_piece(ctx, y, i, w, 2 * n, "TG-EW-3 piece i from piece i of each operand");
    }
    ra_array_release(y);

    /* TG-EW-2: axes 0 and 1: the last distinct one (x2's, 1) is shared; x1 is re-split. */
    y = NULL;
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(a), ra_operand_array(b1), &y), RA_OK,
                  "%s add, axes 0 and 1", tuple_name);
    expect_layout(ctx, y, tuple, n, 1, cols, "TG-EW-2 axes 0 then 1 share axis 1");
    EXPECT_V(y, want, size, "TG-EW-2 axes 0 then 1: values");
    ra_array_release(y);
    y = NULL;
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(b1), ra_operand_array(a), &y), RA_OK,
                  "%s add, axes 1 and 0", tuple_name);
    expect_layout(ctx, y, tuple, n, 0, rows, "TG-EW-2 axes 1 then 0 share axis 0");
    EXPECT_V(y, want, size, "TG-EW-2 axes 1 then 0: values");
    ra_array_release(y);

    /* TG-EW-2: a replicated operand is cut along the shared axis. */
    y = NULL;
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(r), ra_operand_array(a), &y), RA_OK,
                  "%s add, replicated and split", tuple_name);
    expect_layout(ctx, y, tuple, n, 0, rows, "TG-EW-2 replicated is cut along axis 0");
    EXPECT_V(y, want, size, "TG-EW-2 replicated and split: values");
    ra_array_release(y);

    /* Both replicated: the result is replicated. */
    y = NULL;
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_SUBTRACT, ra_operand_array(r), ra_operand_array(r), &y),
                  RA_OK, "%s subtract, both replicated", tuple_name);
    expect_layout(ctx, y, tuple, n, RA_SHARD_REPLICATED, NULL, "both replicated");
    double zeros[MAXV] = {0};
    EXPECT_V(y, zeros, size, "both replicated: values");
    ra_array_release(y);

    /* A replicated row (2n,) broadcast against a split (n, 2n): each device uses it whole. */
    int64_t srow[1] = {2 * (int64_t)n};
    ra_array *hrow = ramp(ctx, RA_CPU, RA_FLOAT32, srow, 1, 0, 10);
    ra_array *row = NULL;
    ra_shard(ctx, hrow, tuple, n, NULL, NULL, &row);
    y = NULL;
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_MULTIPLY, ra_operand_array(a), ra_operand_array(row), &y),
                  RA_OK, "%s multiply by a broadcast replicated row", tuple_name);
    expect_layout(ctx, y, tuple, n, 0, rows, "broadcast row keeps the split");
    for (size_t i = 0; i < size; i++)
        want[i] = (double)i * (double)(10 * (i % (2 * n)));
    EXPECT_V(y, want, size, "broadcast replicated row: values");
    ra_array_release(y);

    /* Scalars apply to every piece. */
    y = NULL;
    ASSERT_STATUS(
        ctx,
        ra_binary(ctx, RA_MULTIPLY, ra_operand_scalar(ra_scalar_int(3)), ra_operand_array(b1), &y),
        RA_OK, "%s scalar * sharded", tuple_name);
    expect_layout(ctx, y, tuple, n, 1, cols, "scalar * sharded keeps the split");
    for (size_t i = 0; i < size; i++)
        want[i] = 3.0 * (100 + (double)i);
    EXPECT_V(y, want, size, "scalar * sharded: values");
    ra_array_release(y);
    y = NULL;
    ASSERT_STATUS(ctx,
                  ra_binary(ctx, RA_LESS, ra_operand_array(a),
                            ra_operand_scalar(ra_scalar_float((double)n)), &y),
                  RA_OK, "%s sharded < scalar", tuple_name);
    for (size_t i = 0; i < size; i++)
        want[i] = (double)i < (double)n ? 1 : 0;
    EXPECT_V(y, want, size, "sharded < scalar: bool values");
    if (y) ASSERT_INT(ra_array_dtype(y), RA_BOOL, "%s comparison gives bool", tuple_name);
    ra_array_release(y);

    /* Unary piece by piece. */
    y = NULL;
    ASSERT_STATUS(ctx, ra_unary(ctx, RA_NEGATIVE, b1, &y), RA_OK, "%s negative of a sharded",
                  tuple_name);
    expect_layout(ctx, y, tuple, n, 1, cols, "negative keeps the split");
    for (size_t i = 0; i < size; i++)
        want[i] = -(100 + (double)i);
    EXPECT_V(y, want, size, "negative: values");
    ra_array_release(y);

    /* TG-EW-1: a sharded array with an unsharded one, and different tuples, are errors. */
    y = NULL;
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(a), ra_operand_array(hb), &y),
                  RA_E_DEVICE_MISMATCH, "%s TG-EW-1 sharded + unsharded", tuple_name);
    ASSERT_MESSAGE(ctx, "single device 'cpu'", "%s TG-EW-1 the message names the single device",
                   tuple_name);
    if (n >= 2) {
        ra_device rev[8];
        for (size_t i = 0; i < n; i++)
            rev[i] = tuple[n - 1 - i];
        ra_array *c = NULL;
        ra_shard(ctx, hb, rev, n, &a0, NULL, &c);
        ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(a), ra_operand_array(c), &y),
                      RA_E_DEVICE_MISMATCH, "%s TG-EW-1 tuples in another order", tuple_name);
        char d0[RA_DEVICE_STR_MAX], d1[RA_DEVICE_STR_MAX], t[64];
        snprintf(t, sizeof t, "(%s, %s", dev_str(rev[0], d0), dev_str(rev[1], d1));
        ASSERT_MESSAGE(ctx, t, "%s TG-EW-1 the message names both tuples", tuple_name);
        ra_array *c2 = NULL;
        ra_shard(ctx, hb, tuple, n - 1, &a0, RA_SHARD_OPTS(.uneven = RA_SHARD_UNEVEN_CEIL), &c2);
        ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(a), ra_operand_array(c2), &y),
                      RA_E_DEVICE_MISMATCH, "%s TG-EW-1 a shorter tuple", tuple_name);
        ra_array_release(c);
        ra_array_release(c2);
    } else {
        skip_part("one device has one order", "%s TG-EW-1 tuples in another order", tuple_name);
        skip_part("one device has one order", "%s TG-EW-1 the message names both tuples",
                  tuple_name);
        skip_part("one device has no shorter tuple", "%s TG-EW-1 a shorter tuple", tuple_name);
    }
    CHECK(y == NULL, "%s out stays NULL on errors", tuple_name);
    /* Shapes that do not broadcast. */
    int64_t s3[1] = {3};
    ra_array *h3 = ramp(ctx, RA_CPU, RA_FLOAT32, s3, 1, 0, 1), *t3 = NULL;
    ra_shard(ctx, h3, tuple, n, NULL, NULL, &t3);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(a), ra_operand_array(t3), &y),
                  RA_E_BROADCAST, "%s shapes that do not broadcast", tuple_name);
    ra_array_release(h3);
    ra_array_release(t3);

    /* Soft device mode does not move the pieces. */
    ra_soft_set(ctx, true);
    y = NULL;
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(a), ra_operand_array(b), &y), RA_OK,
                  "%s add with soft mode on", tuple_name);
    expect_layout(ctx, y, tuple, n, 0, rows, "TG-EW-3 soft mode leaves the pieces in place");
    CHECK(ra_soft_get(ctx), "%s soft mode is still on afterwards", tuple_name);
    ra_soft_unset(ctx);
    ra_array_release(y);

    ra_array_release(hrow);
    ra_array_release(row);
    ra_array_release(ha);
    ra_array_release(hb);
    ra_array_release(a);
    ra_array_release(b);
    ra_array_release(b1);
    ra_array_release(r);
}

static void test_reduce(ra_ctx *ctx, const ra_device *tuple, size_t n)
{
    /* x = 1 .. 6n as (2n, 3), split along axis 0 (two rows per device). */
    int64_t shape[2] = {2 * (int64_t)n, 3};
    size_t size = 6 * n;
    ra_array *h = ramp(ctx, RA_CPU, RA_INT32, shape, 2, 1, 1), *x = NULL, *y = NULL;
    int a0 = 0, a1 = 1, am1 = -1;
    ra_shard(ctx, h, tuple, n, &a0, NULL, &x);

    /* TG-RED-1: over everything: partial sums per device, added: 6n(6n+1)/2. */
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, x, NULL, &y), RA_OK, "%s sum of a split array",
                  tuple_name);
    expect_layout(ctx, y, tuple, n, RA_SHARD_REPLICATED, NULL,
                  "TG-RED-1 the combined sum is replicated");
    double total = (double)size * (double)(size + 1) / 2;
    for (size_t i = 0; y && i < n; i++)
        expect_piece(ctx, y, i, &total, 1, "TG-RED-1 every device holds the full sum");
    if (y)
        ASSERT_INT(ra_array_dtype(y), RA_INT64, "%s sum of int32 accumulates in int64", tuple_name);
    ra_array_release(y);

    /* Over the split axis: column sums. Column j holds j+1, j+4, ...: sum 3n(2n-1) + 2n(j+1). */
    y = NULL;
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, x, &a0, &y), RA_OK, "%s sum over the split axis",
                  tuple_name);
    expect_layout(ctx, y, tuple, n, RA_SHARD_REPLICATED, NULL,
                  "TG-RED-1 sum over the split axis is replicated");
    double cs[3];
    for (int j = 0; j < 3; j++)
        cs[j] = 3.0 * (double)n * (2.0 * (double)n - 1) + 2.0 * (double)n * (j + 1);
    EXPECT_V(y, cs, 3, "TG-RED-1 column sums");
    ra_array_release(y);

    /* Over the split axis with max. */
    y = NULL;
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_MAX, x, &a0, &y), RA_OK, "%s max over the split axis",
                  tuple_name);
    double cm[3] = {(double)size - 2, (double)size - 1, (double)size};
    EXPECT_V(y, cm, 3, "TG-RED-1 column maxima");
    ra_array_release(y);

    /* Over another axis: the split stays (rows sum to 3r+6 for row r = 0 ..). */
    y = NULL;
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, x, &am1, &y), RA_OK, "%s sum over axis -1",
                  tuple_name);
    int64_t two[8];
    for (size_t i = 0; i < n; i++)
        two[i] = 2;
    expect_layout(ctx, y, tuple, n, 0, two, "sum over another axis keeps the split");
    double rs[MAXV];
    for (size_t r = 0; r < 2 * n; r++)
        rs[r] = 9.0 * (double)r + 6;
    EXPECT_V(y, rs, 2 * n, "row sums");
    ra_array_release(y);

    /* Split along axis 1 and reduced over axis 0: the split axis becomes axis 0. */
    ra_array *x1 = NULL, *h1 = NULL;
    int64_t s1[2] = {3, 2 * (int64_t)n};
    h1 = ramp(ctx, RA_CPU, RA_FLOAT64, s1, 2, 0, 1);
    ra_shard(ctx, h1, tuple, n, &a1, NULL, &x1);
    y = NULL;
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, x1, &a0, &y), RA_OK,
                  "%s sum over axis 0 of a split along axis 1", tuple_name);
    expect_layout(ctx, y, tuple, n, 0, two, "the split axis is renumbered");
    for (size_t c = 0; c < 2 * n; c++)
        rs[c] = 3.0 * (double)c + 3.0 * 2.0 * (double)n;
    EXPECT_V(y, rs, 2 * n, "sums over axis 0");
    ra_array_release(y);

    /* Replicated: reduced on every device, no combining. */
    ra_array *rep = NULL;
    ra_shard(ctx, h, tuple, n, NULL, NULL, &rep);
    y = NULL;
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, rep, NULL, &y), RA_OK, "%s sum of a replicated",
                  tuple_name);
    expect_layout(ctx, y, tuple, n, RA_SHARD_REPLICATED, NULL, "sum of a replicated");
    EXPECT_V(y, &total, 1, "sum of a replicated: value");
    ra_array_release(y);

    /* Errors. */
    int a5 = 5;
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, x, &a5, &y), RA_E_AXIS, "%s axis 5", tuple_name);
    int64_t se[1] = {0};
    ra_array *he = ramp(ctx, RA_CPU, RA_FLOAT32, se, 1, 0, 1), *e = NULL;
    ra_shard(ctx, he, tuple, n, &a0, NULL, &e);
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_MAX, e, NULL, &y), RA_E_EMPTY_REDUCTION,
                  "%s max of an empty sharded array", tuple_name);
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, e, NULL, &y), RA_OK, "%s sum of an empty sharded",
                  tuple_name);
    double zero = 0;
    EXPECT_V(y, &zero, 1, "sum of an empty sharded array is 0");
    ra_array_release(y);
    ra_array_release(he);
    ra_array_release(e);
    ra_array_release(h);
    ra_array_release(h1);
    ra_array_release(x);
    ra_array_release(x1);
    ra_array_release(rep);
}

/* x1 @ x2 of C-order matrices in plain arithmetic: (r, k) @ (k, c) into out (r * c). */
static void plain_matmul(const double *a, const double *b, size_t r, size_t k, size_t c,
                         double *out)
{
    for (size_t i = 0; i < r; i++)
        for (size_t j = 0; j < c; j++) {
            double t = 0;
            for (size_t q = 0; q < k; q++)
                t += a[i * k + q] * b[q * c + j];
            out[i * c + j] = t;
        }
}

/* One sharded matmul: x1 = 1, 2, ... of shape s1 split along ax1 (NULL: replicated), x2 =
 * 100, 101, ... of shape s2 split along ax2; the result's layout (axis, piece lengths) and
 * values against plain_matmul of the same numbers. A replicated result is checked on every
 * device. */
static void check_matmul(ra_ctx *ctx, const ra_device *tuple, size_t n, const int64_t *s1,
                         size_t nd1, const int *ax1, const int64_t *s2, size_t nd2, const int *ax2,
                         int raxis, int64_t rlen, const char *name)
{
    ra_array *h1 = ramp(ctx, RA_CPU, RA_FLOAT32, s1, nd1, 1, 1);
    ra_array *h2 = ramp(ctx, RA_CPU, RA_FLOAT32, s2, nd2, 100, 1);
    ra_array *x1 = NULL, *x2 = NULL, *y = NULL;
    ra_shard(ctx, h1, tuple, n, ax1, NULL, &x1);
    ra_shard(ctx, h2, tuple, n, ax2, NULL, &x2);
    size_t r = nd1 == 1 ? 1 : (size_t)s1[0], k = (size_t)s1[nd1 - 1];
    size_t c = nd2 == 1 ? 1 : (size_t)s2[1];
    double a[MAXV], b[MAXV], want[MAXV];
    for (size_t i = 0; i < r * k; i++)
        a[i] = 1 + (double)i;
    for (size_t i = 0; i < k * c; i++)
        b[i] = 100 + (double)i;
    plain_matmul(a, b, r, k, c, want);
    ASSERT_STATUS(ctx, ra_matmul(ctx, x1, x2, &y), RA_OK, "%s matmul %s", tuple_name, name);
    int64_t lens[8];
    for (size_t i = 0; i < n; i++)
        lens[i] = rlen;
    expect_layout(ctx, y, tuple, n, raxis, raxis == RA_SHARD_REPLICATED ? NULL : lens, name);
    EXPECT_V(y, want, r * c, name);
    for (size_t i = 0; y && raxis == RA_SHARD_REPLICATED && i < n; i++)
        expect_piece(ctx, y, i, want, r * c, name);
    ra_array_release(y);
    ra_array_release(x1);
    ra_array_release(x2);
    ra_array_release(h1);
    ra_array_release(h2);
}

/* matmul of sharded arrays read as tinygrad's (x1[..., n, 1, k] * x2T[..., 1, m, k]).sum(-1):
 * TG-EW-2's shared axis in that product, TG-RED-1 where it is the contracted one. */
static void test_matmul(ra_ctx *ctx, const ra_device *tuple, size_t n)
{
    int a0 = 0, a1 = 1;
    int64_t two_n = 2 * (int64_t)n;
    int64_t v[1] = {two_n}, rows[2] = {two_n, 2}, m23[2] = {2, 3}, m3k[2] = {3, two_n},
            mk2[2] = {two_n, 2}, m2k[2] = {2, two_n}, mkk[2] = {two_n, two_n};
    /* The guide's dot: partial sums added, a replicated 0-d result. */
    check_matmul(ctx, tuple, n, v, 1, &a0, v, 1, &a0, RA_SHARD_REPLICATED, 0, "1-D dot");
    /* Rows split, x2 replicated: the result keeps the rows' split. */
    check_matmul(ctx, tuple, n, rows, 2, &a0, m23, 2, NULL, 0, 2, "rows split @ replicated");
    /* The contracted axis split in x1: partials added, replicated. */
    check_matmul(ctx, tuple, n, m3k, 2, &a1, mk2, 2, NULL, RA_SHARD_REPLICATED, 0,
                 "contracted axis split @ replicated");
    /* Columns of x2 split: the result's columns are split. */
    check_matmul(ctx, tuple, n, m23, 2, NULL, m3k, 2, &a1, 1, 2, "replicated @ columns split");
    check_matmul(ctx, tuple, n, m2k, 2, &a1, mk2, 2, &a0, RA_SHARD_REPLICATED, 0,
                 "both split along the contracted axis");
    /* TG-EW-2's last distinct axis is x2's, the contracted one: x1 is re-split. */
    check_matmul(ctx, tuple, n, mkk, 2, &a0, mk2, 2, &a0, RA_SHARD_REPLICATED, 0,
                 "rows split @ contracted axis split");
    check_matmul(ctx, tuple, n, mkk, 2, &a1, mkk, 2, &a1, 1, 2, "columns split @ columns split");
    check_matmul(ctx, tuple, n, v, 1, &a0, mk2, 2, NULL, RA_SHARD_REPLICATED, 0,
                 "1-D split @ replicated matrix");
    check_matmul(ctx, tuple, n, rows, 2, &a0, m23, 2, NULL, 0, 2, "rows split again");

    /* A batch axis: (n, 2, 3) split along it @ (3, 2) replicated keeps the batch split. */
    int64_t b3[3] = {(int64_t)n, 2, 3}, m32[2] = {3, 2};
    ra_array *hb = ramp(ctx, RA_CPU, RA_INT32, b3, 3, 1, 1),
             *hm = ramp(ctx, RA_CPU, RA_INT32, m32, 2, 1, 1);
    ra_array *xb = NULL, *xm = NULL, *y = NULL;
    ra_shard(ctx, hb, tuple, n, &a0, NULL, &xb);
    ra_shard(ctx, hm, tuple, n, NULL, NULL, &xm);
    ASSERT_STATUS(ctx, ra_matmul(ctx, xb, xm, &y), RA_OK, "%s batched matmul", tuple_name);
    int64_t ones[8];
    for (size_t i = 0; i < n; i++)
        ones[i] = 1;
    expect_layout(ctx, y, tuple, n, 0, ones, "a split batch axis stays split");
    double want[MAXV], a[MAXV], b[6];
    for (size_t i = 0; i < 6 * n; i++)
        a[i] = 1 + (double)i;
    for (size_t i = 0; i < 6; i++)
        b[i] = 1 + (double)i;
    for (size_t i = 0; i < n; i++)
        plain_matmul(a + 6 * i, b, 2, 3, 2, want + 4 * i);
    EXPECT_V(y, want, 4 * n, "batched matmul values");
    if (y) ASSERT_INT(ra_array_dtype(y), RA_INT32, "%s int32 @ int32 stays int32", tuple_name);
    ra_array_release(y);

    /* Promotion is the unsharded operation's, piece by piece: int32 + float32 is refused
     * under the array API's table and float32 under the category rules, sharded or not. */
    {
        int64_t s6[1] = {2 * (int64_t)n};
        ra_array *hi = ramp(ctx, RA_CPU, RA_INT32, s6, 1, 1, 1),
                 *hf = ramp(ctx, RA_CPU, RA_FLOAT32, s6, 1, 0.5, 1), *si = NULL, *sf = NULL;
        ra_shard(ctx, hi, tuple, n, &a0, NULL, &si);
        ra_shard(ctx, hf, tuple, n, &a0, NULL, &sf);
        ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(si), ra_operand_array(sf), &y),
                      RA_E_DTYPE, "%s int32 + float32 sharded under the array API", tuple_name);
        ra_ctx_set_promotion(ctx, RA_PROMOTION_CATEGORY);
        ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(si), ra_operand_array(sf), &y),
                      RA_OK, "%s int32 + float32 sharded under the category rules", tuple_name);
        double sum[MAXV];
        for (size_t i = 0; i < 2 * n; i++)
            sum[i] = 1.5 + 2.0 * (double)i;
        if (y) ASSERT_INT(ra_array_dtype(y), RA_FLOAT32, "%s float32, as unsharded", tuple_name);
        EXPECT_V(y, sum, 2 * n, "mixed-kind sharded sum");
        ra_array_release(y);
        y = NULL;
        ASSERT_STATUS(ctx,
                      ra_binary(ctx, RA_ADD, ra_operand_array(si),
                                ra_operand_scalar(ra_scalar_float(0.5)), &y),
                      RA_OK, "%s int32 sharded + 0.5 under the category rules", tuple_name);
        if (y)
            ASSERT_INT(ra_array_dtype(y), RA_FLOAT32, "%s a float scalar lifts to float32",
                       tuple_name);
        ra_array_release(y);
        y = NULL;
        ra_ctx_set_promotion(ctx, RA_PROMOTION_ARRAY_API);
        ra_array_release(si);
        ra_array_release(sf);
        ra_array_release(hi);
        ra_array_release(hf);
    }

    /* A sharded array with an unsharded one, another tuple, and the logical shapes. */
    y = NULL;
    ASSERT_STATUS(ctx, ra_matmul(ctx, xm, hm, &y), RA_E_DEVICE_MISMATCH,
                  "%s sharded @ unsharded is a device mismatch", tuple_name);
    ASSERT_STATUS(ctx, ra_matmul(ctx, hm, xm, &y), RA_E_DEVICE_MISMATCH,
                  "%s unsharded @ sharded is a device mismatch", tuple_name);
    ASSERT_STATUS(ctx, ra_matmul(ctx, xm, xm, &y), RA_E_SHAPE,
                  "%s (3, 2) @ (3, 2) is a shape error as unsharded", tuple_name);
    if (n > 1) {
        ra_array *one = NULL;
        ra_shard(ctx, hm, tuple, 1, NULL, NULL, &one);
        ASSERT_STATUS(ctx, ra_matmul(ctx, xm, one, &y), RA_E_DEVICE_MISMATCH,
                      "%s operands over different tuples", tuple_name);
        ra_array_release(one);
    }
    CHECK(y == NULL, "%s out stays NULL after the refusals", tuple_name);
    ra_array_release(xb);
    ra_array_release(xm);
    ra_array_release(hb);
    ra_array_release(hm);
}

static void test_gather(ra_ctx *ctx, const ra_device *tuple, size_t n, const ra_device *all,
                        size_t nall)
{
    int64_t shape[2] = {3, 2 * (int64_t)n};
    size_t size = 6 * n;
    ra_array *h = ramp(ctx, RA_CPU, RA_UINT8, shape, 2, 0, 1), *x = NULL, *y = NULL;
    int a1 = 1;
    ra_shard(ctx, h, tuple, n, &a1, NULL, &x);
    double want[MAXV];
    for (size_t i = 0; i < size; i++)
        want[i] = (double)i;
    /* TG-GATHER-1 onto every device of the context. */
    for (size_t d = 0; d < nall; d++) {
        char b[RA_DEVICE_STR_MAX], name[64];
        y = NULL;
        ASSERT_STATUS(ctx, ra_to_device(ctx, x, all[d], NULL, &y), RA_OK, "%s gather onto %s",
                      tuple_name, dev_str(all[d], b));
        if (!y) continue;
        CHECK(!ra_array_is_sharded(y), "%s TG-GATHER-1 the gathered array is unsharded",
              tuple_name);
        ASSERT_DEV(ra_array_device(y), all[d], "%s TG-GATHER-1 onto %s", tuple_name, b);
        snprintf(name, sizeof name, "TG-GATHER-1 gathered onto %s", b);
        EXPECT_V(y, want, size, name);
        ra_array_release(y);
    }
    /* TG-GATHER-2: the same tuple keeps the data. */
    y = NULL;
    ASSERT_STATUS(ctx, ra_shard_to(ctx, x, tuple, n, &y), RA_OK, "%s to the same tuple",
                  tuple_name);
    CHECK(y == x, "%s TG-GATHER-2 the same tuple gives the array itself, no copy", tuple_name);
    ra_array_release(y);
    /* Another tuple replicates the array there, as tinygrad 0.14's Tensor.to does. */
    ra_device rev[8];
    for (size_t i = 0; i < n; i++)
        rev[i] = tuple[n - 1 - i];
    y = NULL;
    ASSERT_STATUS(ctx, ra_shard_to(ctx, x, rev, n, &y), RA_OK, "%s to the reversed tuple",
                  tuple_name);
    expect_layout(ctx, y, rev, n, n > 1 ? RA_SHARD_REPLICATED : 1, n > 1 ? NULL : (int64_t[]){2},
                  "TG-GATHER-2 another tuple replicates (one device: the same tuple)");
    EXPECT_V(y, want, size, "TG-GATHER-2 another tuple keeps the values");
    for (size_t i = 0; y && n > 1 && i < n; i++)
        expect_piece(ctx, y, i, want, size, "every device of the new tuple holds the whole");
    ra_array_release(y);
    /* A tuple longer than the split axis (n rows onto every device of the context): the
     * split could not survive, the replicated array can. */
    if (nall > n) {
        int64_t rs[2] = {(int64_t)n, 2};
        ra_array *hr = ramp(ctx, RA_CPU, RA_INT16, rs, 2, 0, 1), *xr = NULL;
        int a0 = 0;
        ra_shard(ctx, hr, tuple, n, &a0, NULL, &xr);
        y = NULL;
        ASSERT_STATUS(ctx, ra_shard_to(ctx, xr, all, nall, &y), RA_OK,
                      "%s %zu rows onto %zu devices", tuple_name, n, nall);
        expect_layout(ctx, y, all, nall, RA_SHARD_REPLICATED, NULL, "to a longer tuple replicates");
        EXPECT_V(y, want, 2 * n, "to a longer tuple keeps the values");
        ra_array_release(y);
        ra_array_release(xr);
        ra_array_release(hr);
    }
    /* An unsharded array to a tuple is replicated. */
    y = NULL;
    ASSERT_STATUS(ctx, ra_shard_to(ctx, h, tuple, n, &y), RA_OK, "%s unsharded to a tuple",
                  tuple_name);
    expect_layout(ctx, y, tuple, n, RA_SHARD_REPLICATED, NULL, "unsharded to a tuple replicates");
    ra_array_release(y);
    /* A stream is refused for a gather; other functions refuse sharded arrays. */
    int dummy;
    y = NULL;
    ASSERT_STATUS(ctx, ra_to_device(ctx, x, RA_CPU, &dummy, &y), RA_E_STREAM,
                  "%s a gather with a stream", tuple_name);
    ASSERT_STATUS(ctx, ra_astype(ctx, x, RA_INT32, NULL, &y), RA_E_SHARDED,
                  "%s astype refuses a sharded array", tuple_name);
    ASSERT_MESSAGE(ctx, "ra_astype", "%s the message names the function", tuple_name);
    ASSERT_STATUS(ctx, ra_stack(ctx, (const ra_array *[]){x}, 1, 0, &y), RA_E_SHARDED,
                  "%s stack refuses it", tuple_name);
    ASSERT_STATUS(ctx, ra_zeros_like(ctx, x, NULL, &y), RA_E_SHARDED, "%s zeros_like refuses it",
                  tuple_name);
    int32_t dt, di;
    ASSERT_STATUS(ctx, ra_array_dlpack_device(x, &dt, &di), RA_E_SHARDED,
                  "%s dlpack_device refuses it", tuple_name);
    CHECK(y == NULL, "%s out stays NULL", tuple_name);
    ra_array_release(x);
    ra_array_release(h);
}

/* Memory: shard and release leaves every device's count where it was. */
static void test_memory(ra_ctx *ctx, const ra_device *tuple, size_t n)
{
    uint64_t before[8], after[8], during = 0;
    for (size_t i = 0; i < n; i++)
        ra_util_used_memory(ctx, tuple[i], &before[i]);
    int64_t shape[1] = {64 * (int64_t)n};
    ra_array *h = ramp(ctx, RA_CPU, RA_FLOAT32, shape, 1, 0, 1), *x = NULL;
    int a0 = 0;
    ra_shard(ctx, h, tuple, n, &a0, NULL, &x);
    ra_util_used_memory(ctx, tuple[n - 1], &during);
    uint64_t extra = ra_device_eq(tuple[n - 1], RA_CPU) ? 256 * n : 0;
    ASSERT_INT(during - before[n - 1], 256 + extra,
               "%s the last device holds its piece's 256 bytes", tuple_name);
    ra_array_release(x);
    ra_array_release(h);
    for (size_t i = 0; i < n; i++) {
        ra_util_used_memory(ctx, tuple[i], &after[i]);
        ASSERT_INT(after[i], before[i], "%s piece %zu's memory is given back", tuple_name, i);
    }
}

static void run_tuple(ra_ctx *ctx, const char *name, const ra_device *tuple, size_t n,
                      const ra_device *all, size_t nall)
{
    char b[RA_DEVICE_STR_MAX];
    size_t o = (size_t)snprintf(tuple_name, sizeof tuple_name, "%s (", name);
    for (size_t i = 0; i < n; i++)
        o += (size_t)snprintf(tuple_name + o, sizeof tuple_name - o, "%s%s", i ? ", " : "",
                              dev_str(tuple[i], b));
    snprintf(tuple_name + o, sizeof tuple_name - o, "):");
    test_shard_basic(ctx, tuple, n);
    test_shard_errors(ctx, tuple, n);
    test_inplace(ctx, tuple, n);
    test_elementwise(ctx, tuple, n);
    test_reduce(ctx, tuple, n);
    test_matmul(ctx, tuple, n);
    test_gather(ctx, tuple, n, all, nall);
    test_memory(ctx, tuple, n);
}

DT_TEST(shard)
{
    ra_ctx *ctx = open_ctx();
    ra_device all[16];
    size_t nall = list_devices(ctx, all);
    size_t ngpu = nall - 1; /* cpu first, then gpu:0 .. */
    const ra_device *gpus = all + 1;

    /* Checks that need no tuple. */
    ASSERT_STR(ra_status_name(RA_E_SHARDED), "RA_E_SHARDED", "RA_E_SHARDED is in the table");
    ASSERT_STR(ra_status_kind(RA_E_SHARD_UNEVEN), "RuntimeError",
               "RA_E_SHARD_UNEVEN has tinygrad's exception kind");
    CHECK(!ra_array_is_sharded(NULL) && ra_shard_count(NULL) == 0 &&
              ra_shard_axis(NULL) == RA_SHARD_REPLICATED && ra_shard_piece(NULL, 0) == NULL,
          "the getters accept NULL");
    int64_t s0, s1;
    ASSERT_STATUS(NULL, ra_shard_bounds(NULL, 0, &s0, &s1), RA_E_NULL, "bounds of NULL");
    ASSERT_STATUS(NULL, ra_shard(NULL, NULL, NULL, 0, NULL, NULL, NULL), RA_E_NULL,
                  "ra_shard without a context");

    run_tuple(ctx, "cpu alone", all, 1, all, nall);
    if (ngpu >= 1)
        run_tuple(ctx, "cpu and a gpu", all, 2, all, nall);
    else
        skip_part("no OpenCL device (set POCL_DEVICES=\"pthread pthread\")",
                  "cpu and a gpu: sharding tests");
    if (ngpu >= 2)
        run_tuple(ctx, "two gpus", gpus, 2, all, nall);
    else
        skip_part("fewer than two OpenCL devices (POCL_DEVICES=\"pthread pthread\" gives two)",
                  "two gpus: sharding tests");
    if (ngpu >= 3)
        run_tuple(ctx, "three gpus", gpus, 3, all, nall);
    else
        skip_part("fewer than three OpenCL devices (POCL_DEVICES=\"pthread pthread pthread\")",
                  "three gpus: sharding tests");
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(shard))
