/* Host backend (cpu) tests: the cache of large blocks and the contiguous elementwise path.
 *
 * The cache: a large block freed with its array is handed to the next array of its size
 * without a new allocation through the hook; zeros are still zeros when the block held other
 * values; results written whole are right; used memory counts array data only; a failing
 * allocation first gives the cached blocks back; the context's destruction returns every
 * block to the hook.
 *
 * The contiguous path: operands that need no broadcasting (the same shape, or one element
 * repeated: a scalar or a 0-d array) run a flat loop per dtype; operands that do take the
 * strided loop. Both must give the documented results bit for bit: each element computed
 * here from the same inputs with C's own arithmetic (integers wrap through the unsigned
 * type, maximum propagates NaN, -0 and NaN kept as they are). The arrays have 1037 elements,
 * so vectorised loops run both their vector body and their scalar tail. */
#include "ra_test.h"

#include <pthread.h>
#include <stdint.h>

typedef struct counting {
    long live;    /* blocks handed out and not yet released */
    long allocs;  /* allocations since the counter was reset */
    long fail_at; /* the allocation (counted from the reset) that fails; -1: none */
} counting;

static void *c_alloc(size_t size, void *ud)
{
    counting *c = ud;
    if (c->allocs++ == c->fail_at) return NULL;
    void *p = malloc(size);
    if (p) c->live++;
    return p;
}

static void c_release(void *p, void *ud)
{
    counting *c = ud;
    if (p) c->live--;
    free(p);
}

#define BIG ((int64_t)1 << 18) /* float32 elements: 1 MiB, above the cache's 256 KiB minimum */

static bool all_equal_f32(ra_ctx *ctx, const ra_array *x, float want)
{
    size_t n = (size_t)ra_array_size(x);
    float *v = malloc(n * sizeof *v);
    bool ok = v && ra_array_read(ctx, x, v, n * sizeof *v) == RA_OK;
    for (size_t i = 0; ok && i < n; i++)
        ok = memcmp(&v[i], &want, sizeof want) == 0;
    free(v);
    return ok;
}

DT_TEST(cache)
{
    counting c = {0, 0, -1};
    ra_allocator hook = {c_alloc, c_release, &c};
    ra_ctx *ctx = NULL;
    if (!CHECK(ra_ctx_create(&(ra_ctx_options){.allocator = &hook, .flags = RA_CTX_NO_OPENCL},
                             &ctx) == RA_OK,
               "context with a counting allocator"))
        return;
    ra_device cpu = RA_CPU;
    ra_opts f32 = {.dtype = RA_FLOAT32, .device_value = &cpu};
    int64_t shape[1] = {BIG};
    ra_array *a = NULL, *b = NULL, *y = NULL;

    /* A block with sevens in it goes to the cache; zeros made from it are zeros. */
    ra_full(ctx, shape, 1, ra_scalar_float(7), &f32, &a);
    CHECK(a && all_equal_f32(ctx, a, 7.0f), "full: 2^18 sevens");
    ra_array_release(a);
    a = NULL;
    uint64_t used = 1;
    ra_util_used_memory(ctx, cpu, &used);
    ASSERT_INT(used, 0, "IVY-UTIL-4 used memory counts array data only, not cached blocks");
    c.allocs = 0;
    ASSERT_STATUS(ctx, ra_zeros(ctx, shape, 1, &f32, &a), RA_OK, "zeros of the same size");
    /* The header is the released array's, kept by this thread for its next one (live.c). */
    ASSERT_INT(c.allocs, 0, "nothing is allocated: the data block is reused, and the header");
    CHECK(a && all_equal_f32(ctx, a, 0.0f), "the reused block reads as zeros");
    ra_util_used_memory(ctx, cpu, &used);
    ASSERT_INT(used, BIG * 4, "used memory counts the new array");

    /* Results written whole reuse blocks as they are and are still right. */
    ra_full(ctx, shape, 1, ra_scalar_float(2), &f32, &b);
    ra_binary(ctx, RA_ADD, ra_operand_array(a), ra_operand_array(b), &y);
    CHECK(y && all_equal_f32(ctx, y, 2.0f), "0 + 2 on reused memory");
    ra_array_release(y);
    y = NULL;
    c.allocs = 0;
    ra_binary(ctx, RA_MULTIPLY, ra_operand_array(b), ra_operand_scalar(ra_scalar_float(3)), &y);
    CHECK(y && all_equal_f32(ctx, y, 6.0f), "2 * 3 on the previous result's block");
    /* Only the scalar operand's 0-d array (a header with its element inline): the result's
     * header is the released y's. */
    ASSERT_INT(c.allocs, 1, "the result's data block came from the cache");
    ra_array_release(y);
    y = NULL;

    /* A failing allocation gives the cached blocks back and is tried once more. */
    long live_before = c.live;
    int64_t shape2[1] = {BIG * 4}; /* 4 MiB: another bucket, so nothing cached fits */
    c.allocs = 0;
    /* Allocation 0 is the data block: the header is the released y's, which this thread
     * kept (live.c). */
    c.fail_at = 0;
    int st = ra_zeros(ctx, shape2, 1, &f32, &y);
    c.fail_at = -1;
    ASSERT_STATUS(ctx, st, RA_OK,
                  "an allocation failing with blocks cached: they are freed, retried");
    ASSERT_INT(c.live, live_before - 1 + 1, "the cached 1 MiB block went back to the hook");
    ra_array_release(y);
    y = NULL;

    ASSERT_INT(c.allocs, 2, "the failed try, the retry");

    /* A block of another bucket is not handed out for a request it cannot hold. */
    c.allocs = 0;
    int64_t shape3[1] = {BIG * 8};
    ASSERT_STATUS(ctx, ra_zeros(ctx, shape3, 1, &f32, &y), RA_OK, "zeros of 8 MiB");
    ASSERT_INT(c.allocs, 1,
               "8 MiB: a new block (the cached 4 MiB cannot hold it; the header is "
               "the released y's)");
    ra_array_release(y);
    y = NULL;

    ra_array_release(a);
    ra_array_release(b);
    ra_ctx_destroy(ctx);
    ASSERT_INT(c.live, 0, "destroying the context returns every cached block to the hook");

    /* With nothing cached, a failing large allocation is the caller's MemoryError. */
    c = (counting){0, 0, -1};
    if (!CHECK(ra_ctx_create(&(ra_ctx_options){.allocator = &hook, .flags = RA_CTX_NO_OPENCL},
                             &ctx) == RA_OK,
               "a second context"))
        return;
    c.allocs = 0;
    c.fail_at = 1;
    y = NULL;
    ASSERT_STATUS(ctx, ra_zeros(ctx, shape, 1, &f32, &y), RA_E_NOMEM,
                  "a failing 1 MiB allocation with an empty cache: MemoryError");
    c.fail_at = -1;
    CHECK(y == NULL, "out is NULL after the failure");
    ra_ctx_destroy(ctx);
    ASSERT_INT(c.live, 0, "nothing leaks");
}

/* Two threads make and release large arrays of one context at once: the cache is shared and
 * guarded, every result is right, and nothing is left when the context is destroyed. */
typedef struct worker {
    ra_ctx *ctx;
    float value;
    int bad;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    ra_device cpu = RA_CPU;
    ra_opts f32 = {.dtype = RA_FLOAT32, .device_value = &cpu};
    int64_t shape[1] = {BIG};
    for (int i = 0; i < 20; i++) {
        ra_array *x = NULL, *y = NULL;
        if (ra_full(w->ctx, shape, 1, ra_scalar_float(w->value), &f32, &x) != RA_OK ||
            ra_binary(w->ctx, RA_ADD, ra_operand_array(x), ra_operand_array(x), &y) != RA_OK ||
            !all_equal_f32(w->ctx, y, 2 * w->value))
            w->bad++;
        ra_array_release(x);
        ra_array_release(y);
    }
    ra_ctx_thread_release(w->ctx);
    return NULL;
}

DT_TEST(cache_threads)
{
    ra_ctx *ctx = NULL;
    if (!CHECK(ra_ctx_create(&(ra_ctx_options){.flags = RA_CTX_NO_OPENCL}, &ctx) == RA_OK,
               "context for two threads"))
        return;
    worker w[2] = {{ctx, 1.5f, 0}, {ctx, -3.0f, 0}};
    pthread_t t[2];
    int started = 0;
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, work, &w[i]) == 0) started++;
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    CHECK(started == 2, "two threads started");
    ASSERT_INT(w[0].bad + w[1].bad, 0, "two threads sharing the cache: every result is right");
    ra_ctx_destroy(ctx);
}

/* ---- the contiguous path against C's arithmetic ---- */

#define N 1037

enum { L_SAME, L_SCALAR_RIGHT, L_SCALAR_LEFT, L_ZERO_D_RIGHT, L_BROADCAST, L_ONE };
static const char *const layout_names[] = {"same shape",
                                           "array op scalar",
                                           "scalar op array",
                                           "array op 0-d array",
                                           "broadcast (strided path)",
                                           "1-element arrays, one operation per element"};

/* Test inputs: include -0, NaN, infinities and values that wrap. */
static double input_value(int which, size_t i)
{
    static const double specials[] = {0.0,   -0.0,  1.0,     -1.0, 127.0,    -128.0,
                                      255.0, 1e30,  -1e-30,  NAN,  INFINITY, -INFINITY,
                                      3.5,   -2.25, 65535.0, 1e10};
    size_t k = (i * (which ? 7u : 3u) + (size_t)which) % (sizeof specials / sizeof specials[0]);
    double v = specials[k];
    if (i % 5 == 4) v = (double)((int64_t)(i * 2654435761u) % 100000) * (which ? -1.5 : 0.75);
    return v;
}

/* Integer inputs: wrap-around material. */
static int64_t int_input(int which, size_t i)
{
    static const int64_t specials[] = {0,         1,         -1,        127,    -128,
                                       255,       65535,     32767,     -32768, INT32_MAX,
                                       INT32_MIN, INT64_MAX, INT64_MIN, 100,    -7};
    size_t k = (i * (which ? 5u : 3u) + (size_t)which) % (sizeof specials / sizeof specials[0]);
    /* Added through uint64_t: the sum wraps rather than overflow. */
    return (int64_t)((uint64_t)specials[k] + (uint64_t)((int64_t)(i % 11) * (which ? 3 : -2)));
}

#define CHECK_TYPE(T, UT, IS_FLOAT, DT)                                                            \
    static int check_##T(ra_ctx *ctx, ra_binop op, int layout)                                     \
    {                                                                                              \
        T a[N], b[N];                                                                              \
        for (size_t i = 0; i < N; i++) {                                                           \
            a[i] = IS_FLOAT ? (T)input_value(0, i) : (T)(UT)int_input(0, i);                       \
            b[i] = IS_FLOAT ? (T)input_value(1, i) : (T)(UT)int_input(1, i);                       \
        }                                                                                          \
        ra_device cpu = RA_CPU;                                                                    \
        ra_opts o = {.dtype = DT, .device_value = &cpu};                                           \
        int64_t sn[1] = {N}, s1[1] = {1}, scol[2] = {N, 1}, srow[2] = {1, 3};                      \
        ra_array *xa = NULL, *xb = NULL, *y = NULL;                                                \
        ra_operand oa, ob;                                                                         \
        if (layout == L_BROADCAST) {                                                               \
            /* (N, 1) op (1, 3): each a[i] against b[0..2]. */                                     \
            ra_asarray_buffer(ctx, a, DT, scol, 2, &o, &xa);                                       \
            ra_asarray_buffer(ctx, b, DT, srow, 2, &o, &xb);                                       \
        } else {                                                                                   \
            ra_asarray_buffer(ctx, a, DT, sn, 1, &o, &xa);                                         \
            ra_asarray_buffer(ctx, b, DT, layout == L_SAME ? sn : s1,                              \
                              layout == L_ZERO_D_RIGHT ? 0 : 1, &o, &xb);                          \
        }                                                                                          \
        oa = ra_operand_array(xa);                                                                 \
        ob = ra_operand_array(xb);                                                                 \
        if (layout == L_SCALAR_RIGHT || layout == L_SCALAR_LEFT) {                                 \
            ra_scalar sc =                                                                         \
                IS_FLOAT ? ra_scalar_float((double)b[0]) : ra_scalar_int((int64_t)b[0]);           \
            if (layout == L_SCALAR_RIGHT)                                                          \
                ob = ra_operand_scalar(sc);                                                        \
            else {                                                                                 \
                ob = oa;                                                                           \
                oa = ra_operand_scalar(sc);                                                        \
            }                                                                                      \
        }                                                                                          \
        int st = layout == L_ONE ? RA_OK : ra_binary(ctx, op, oa, ob, &y);                         \
        int bad = 0;                                                                               \
        if (st != RA_OK || (!y && layout != L_ONE)) {                                              \
            printf("#   ra_binary: %s: %s\n", ra_status_name(st), ra_ctx_message(ctx));            \
            bad = 1;                                                                               \
        } else {                                                                                   \
            size_t cols = layout == L_BROADCAST ? 3 : 1;                                           \
            size_t count = N * cols;                                                               \
            bool boolean = op == RA_EQUAL || op == RA_LESS;                                        \
            size_t es = boolean ? sizeof(bool) : sizeof(T);                                        \
            unsigned char *got = malloc(count * es);                                               \
            if (layout != L_ONE) ra_array_read(ctx, y, got, count *es);                            \
            /* 1-element arrays (host_kernels.c's entry for one element): one operation each. */   \
            for (size_t k = 0; layout == L_ONE && k < N && !bad; k++) {                            \
                ra_array *ea = NULL, *eb = NULL, *ey = NULL;                                       \
                ra_asarray_buffer(ctx, &a[k], DT, s1, 1, &o, &ea);                                 \
                ra_asarray_buffer(ctx, &b[k], DT, s1, 1, &o, &eb);                                 \
                st = ra_binary(ctx, op, ra_operand_array(ea), ra_operand_array(eb), &ey);          \
                if (st != RA_OK) {                                                                 \
                    printf("#   ra_binary, element %zu: %s\n", k, ra_ctx_message(ctx));            \
                    bad = 1;                                                                       \
                } else {                                                                           \
                    ra_array_read(ctx, ey, got + k * es, es);                                      \
                }                                                                                  \
                ra_array_release(ea);                                                              \
                ra_array_release(eb);                                                              \
                ra_array_release(ey);                                                              \
            }                                                                                      \
            for (size_t k = 0; k < count && bad < 3; k++) {                                        \
                size_t i = k / cols, j = k % cols;                                                 \
                T x = a[i];                                                                        \
                T v =                                                                              \
                    layout == L_BROADCAST ? b[j] : b[layout == L_SAME || layout == L_ONE ? i : 0]; \
                if (layout == L_SCALAR_LEFT) {                                                     \
                    v = a[i];                                                                      \
                    x = b[0];                                                                      \
                }                                                                                  \
                T want = 0;                                                                        \
                bool wantb = false;                                                                \
                switch (op) {                                                                      \
                case RA_ADD:                                                                       \
                    want = IS_FLOAT ? (T)(x + v) : (T)((UT)x + (UT)v);                             \
                    break;                                                                         \
                case RA_SUBTRACT:                                                                  \
                    want = IS_FLOAT ? (T)(x - v) : (T)((UT)x - (UT)v);                             \
                    break;                                                                         \
                case RA_MULTIPLY:                                                                  \
                    want = IS_FLOAT ? (T)(x * v) : (T)((UT)x * 1u * (UT)v);                        \
                    break;                                                                         \
                case RA_DIVIDE:                                                                    \
                    want = (T)(x / v);                                                             \
                    break;                                                                         \
                case RA_MAXIMUM:                                                                   \
                    want = x != x ? x : v != v ? v : (x > v ? x : v);                              \
                    break;                                                                         \
                case RA_EQUAL:                                                                     \
                    wantb = x == v;                                                                \
                    break;                                                                         \
                case RA_LESS:                                                                      \
                    wantb = x < v;                                                                 \
                    break;                                                                         \
                }                                                                                  \
                bool same = boolean ? memcmp(got + k * es, &wantb, es) == 0                        \
                                    : memcmp(got + k * es, &want, es) == 0;                        \
                if (!same) {                                                                       \
                    printf("#   element %zu: %s %s: expected bits of %.17g, observed %.17g\n", k,  \
                           #T, ra_binop_name(op), boolean ? (double)wantb : (double)want,          \
                           boolean ? (double)*(bool *)(got + k * es)                               \
                                   : (double)*(T *)(got + k * es));                                \
                    bad++;                                                                         \
                }                                                                                  \
            }                                                                                      \
            free(got);                                                                             \
        }                                                                                          \
        ra_array_release(xa);                                                                      \
        ra_array_release(xb);                                                                      \
        ra_array_release(y);                                                                       \
        return bad;                                                                                \
    }

CHECK_TYPE(float, float, 1, RA_FLOAT32)
CHECK_TYPE(double, double, 1, RA_FLOAT64)
CHECK_TYPE(int8_t, uint8_t, 0, RA_INT8)
CHECK_TYPE(int32_t, uint32_t, 0, RA_INT32)
CHECK_TYPE(int64_t, uint64_t, 0, RA_INT64)
CHECK_TYPE(uint8_t, uint8_t, 0, RA_UINT8)
CHECK_TYPE(uint16_t, uint16_t, 0, RA_UINT16)

DT_TEST(elementwise)
{
    ra_ctx *ctx = NULL;
    if (!CHECK(ra_ctx_create(&(ra_ctx_options){.flags = RA_CTX_NO_OPENCL}, &ctx) == RA_OK,
               "context (cpu)"))
        return;
    static const ra_binop float_ops[] = {RA_ADD,   RA_SUBTRACT, RA_MULTIPLY, RA_DIVIDE,
                                         RA_EQUAL, RA_LESS,     RA_MAXIMUM};
    static const ra_binop int_ops[] = {RA_ADD,   RA_SUBTRACT, RA_MULTIPLY,
                                       RA_EQUAL, RA_LESS,     RA_MAXIMUM};
    for (int layout = L_SAME; layout <= L_ONE; layout++) {
        for (size_t k = 0; k < sizeof float_ops / sizeof float_ops[0]; k++) {
            ra_binop op = float_ops[k];
            CHECK(check_float(ctx, op, layout) == 0, "float32 %s, %s: bit for bit",
                  ra_binop_name(op), layout_names[layout]);
            CHECK(check_double(ctx, op, layout) == 0, "float64 %s, %s: bit for bit",
                  ra_binop_name(op), layout_names[layout]);
        }
        for (size_t k = 0; k < sizeof int_ops / sizeof int_ops[0]; k++) {
            ra_binop op = int_ops[k];
            CHECK(check_int8_t(ctx, op, layout) == 0, "int8 %s, %s: wraps, exact",
                  ra_binop_name(op), layout_names[layout]);
            CHECK(check_int32_t(ctx, op, layout) == 0, "int32 %s, %s: wraps, exact",
                  ra_binop_name(op), layout_names[layout]);
            CHECK(check_int64_t(ctx, op, layout) == 0, "int64 %s, %s: wraps, exact",
                  ra_binop_name(op), layout_names[layout]);
            CHECK(check_uint8_t(ctx, op, layout) == 0, "uint8 %s, %s: wraps, exact",
                  ra_binop_name(op), layout_names[layout]);
            CHECK(check_uint16_t(ctx, op, layout) == 0, "uint16 %s, %s: wraps, exact",
                  ra_binop_name(op), layout_names[layout]);
        }
    }
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(cache), DT_ENTRY(cache_threads), DT_ENTRY(elementwise))
