/*
 * test_opencl_ops.c: every operation on every OpenCL device gives the values the host path
 * gives, for every dtype, and its result stays on the inputs' device.
 *
 * For each gpu device and each dtype, the same inputs are made on cpu and moved to the
 * device (DEV-TODEV-1, DEV-TODEV-2); then each binary operation (with broadcasting, with
 * Python scalars on either side, DEV-DS-12), each unary operation, the reductions, matmul,
 * stack and astype run on both. The host result is the expected value: the host backend is
 * tested on its own by the core's tests, so any difference here is the device's. Where the
 * host refuses an operation for a dtype, the device must refuse it with the same status.
 * The inputs are chosen so that every result is exact in binary floating point (divisors
 * are powers of two, i, 1+i), so results compare bit for bit (NaN equals NaN).
 */
#include "common.h"

static ra_ctx *ctx;

/* Inputs as doubles: a is 2x3, b is 3 (broadcast along rows), col is 2x1 (along columns). */
static const double a_re[6] = {1.5, -2, 100, 0.5, -0.0, 7};
static const double a_im[6] = {2, -1, 0, 3, 1, -0.5};
static const double a_nan[6] = {1.5, NAN, 100, -INFINITY, -0.0, 7}; /* float dtypes */
static const double b_re[3] = {2, 0.5, -4};
static const double b_im[3] = {0, 1, 1};
static const double col_re[2] = {100, -2};
static const double ua_re[6] = {1, 200, 3, 0, 255, 7}; /* unsigned: no negatives */
static const double ub_re[3] = {2, 100, 4};

static ra_array *make(ra_dtype t, const double *re, const double *im, const int64_t *shape,
                      size_t ndim, size_t n)
{
    unsigned char buf[6 * 16];
    size_t es = ra_dtype_size(t);
    for (size_t i = 0; i < n; i++)
        put_elem(t, buf + i * es, re[i], im ? im[i] : 0.0);
    ra_array *x = NULL;
    int st =
        ra_asarray_buffer(ctx, buf, t, shape, ndim, &(ra_opts){.dtype = t, .device = "cpu"}, &x);
    if (st != RA_OK)
        printf("#   asarray_buffer(%s) failed: %s\n", ra_dtype_name(t), ra_ctx_message(ctx));
    return x;
}

static bool is_unsigned(ra_dtype t)
{
    return t == RA_UINT8 || t == RA_UINT16 || t == RA_UINT32 || t == RA_UINT64;
}

static ra_scalar scalar_for(ra_dtype t)
{
    if (t == RA_BOOL) return ra_scalar_bool(true);
    if (t == RA_COMPLEX64 || t == RA_COMPLEX128) return ra_scalar_complex(0.5, -1);
    if (t == RA_FLOAT32 || t == RA_FLOAT64) return ra_scalar_float(0.25);
    return ra_scalar_int(3);
}

/* Compares one computation on cpu (want_st, want) and on the device (got_st, got). Takes
 * ownership of both results. */
static void compare(ra_device dev, int want_st, ra_array *want, int got_st, ra_array *got,
                    const char *what, ra_dtype t)
{
    char ds[RA_DEVICE_STR_MAX];
    dev_str(dev, ds);
    if (want_st != RA_OK) {
        ASSERT_STATUS(ctx, got_st, want_st, "%s: %s %s refused as on cpu", ds, what,
                      ra_dtype_name(t));
    } else if (!CHECK(got_st == RA_OK, "%s: %s %s succeeds", ds, what, ra_dtype_name(t))) {
        printf("#   expected RA_OK, observed %s: %s\n", ra_status_name(got_st),
               ra_ctx_message(ctx));
    } else {
        /* DEV-DS-10: the output lives on the inputs' device. */
        CHECK(ra_device_eq(ra_array_device(got), dev), "%s: %s %s result on %s (DEV-DS-10)", ds,
              what, ra_dtype_name(t), ds);
        CHECK(same_values(ctx, want, got), "%s: %s %s values equal the host's", ds, what,
              ra_dtype_name(t));
    }
    ra_array_release(want);
    ra_array_release(got);
}

static void test_dtype(ra_device dev, ra_dtype t)
{
    char ds[RA_DEVICE_STR_MAX];
    dev_str(dev, ds);
    bool fl = is_float_kind(t), un = is_unsigned(t);
    const int64_t s23[2] = {2, 3}, s3[1] = {3}, s21[2] = {2, 1}, s32[2] = {3, 2};
    ra_array *ha = make(t, un ? ua_re : a_re, a_im, s23, 2, 6);
    ra_array *hn = make(t, fl ? a_nan : (un ? ua_re : a_re), a_im, s23, 2, 6);
    ra_array *hb = make(t, un ? ub_re : b_re, b_im, s3, 1, 3);
    ra_array *hc = make(t, col_re, NULL, s21, 2, 2);
    ra_array *hm = make(t, un ? ua_re : a_re, a_im, s32, 2, 6);
    ra_array *da = NULL, *dn = NULL, *db = NULL, *dc = NULL, *dm = NULL;
    if (!ha || !hn || !hb || !hc || !hm) {
        CHECK(0, "%s: inputs of %s made on cpu", ds, ra_dtype_name(t));
        goto done;
    }
    int st = ra_to_device(ctx, ha, dev, NULL, &da);
    if (st == RA_OK) st = ra_to_device(ctx, hn, dev, NULL, &dn);
    if (st == RA_OK) st = ra_to_device(ctx, hb, dev, NULL, &db);
    if (st == RA_OK) st = ra_to_device(ctx, hc, dev, NULL, &dc);
    if (st == RA_OK) st = ra_to_device(ctx, hm, dev, NULL, &dm);
    ra_device_props props = RA_DEVICE_PROPS_INIT;
    if (st == RA_E_DTYPE_DEVICE && ra_device_props_get(ctx, dev, &props) == RA_OK &&
        !props.has_float64 && (t == RA_FLOAT64 || t == RA_COMPLEX128)) {
        /* DEV-DS-17: a device without float64 refuses the dtype instead of changing it. */
        dt_diag("%s: %s refused with RA_E_DTYPE_DEVICE (no cl_khr_fp64, DEV-DS-17)", ds,
                ra_dtype_name(t));
        goto done;
    }
    if (!CHECK(st == RA_OK, "%s: %s inputs moved from cpu (DEV-TODEV-1)", ds, ra_dtype_name(t))) {
        printf("#   %s: %s\n", ra_status_name(st), ra_ctx_message(ctx));
        goto done;
    }
    CHECK(ra_device_eq(ra_array_device(da), dev) && same_values(ctx, ha, da),
          "%s: %s to_device keeps dtype, shape and values (DEV-TODEV-2)", ds, ra_dtype_name(t));

    static const ra_binop binops[] = {RA_ADD,   RA_SUBTRACT, RA_MULTIPLY, RA_DIVIDE,
                                      RA_EQUAL, RA_LESS,     RA_MAXIMUM};
    ra_scalar sc = scalar_for(t);
    for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++) {
        ra_binop op = binops[i];
        char what[64];
        ra_array *w = NULL, *g = NULL;
        int ws, gs;
        const char *name = ra_binop_name(op);
        /* Same shape (the contiguous kernel), with NaN/inf/-0 for the float kinds. */
        snprintf(what, sizeof what, "%s(a, a')", name);
        ws = ra_binary(ctx, op, ra_operand_array(ha), ra_operand_array(hn), &w);
        gs = ra_binary(ctx, op, ra_operand_array(da), ra_operand_array(dn), &g);
        compare(dev, ws, w, gs, g, what, t);
        /* Broadcasting a row vector. */
        snprintf(what, sizeof what, "%s(a[2,3], b[3])", name);
        ws = ra_binary(ctx, op, ra_operand_array(ha), ra_operand_array(hb), &w);
        gs = ra_binary(ctx, op, ra_operand_array(da), ra_operand_array(db), &g);
        compare(dev, ws, w, gs, g, what, t);
        /* Broadcasting a column, first operand broadcast (the general kernel). */
        snprintf(what, sizeof what, "%s(col[2,1], b[3])", name);
        ws = ra_binary(ctx, op, ra_operand_array(hc), ra_operand_array(hb), &w);
        gs = ra_binary(ctx, op, ra_operand_array(dc), ra_operand_array(db), &g);
        compare(dev, ws, w, gs, g, what, t);
        /* Python scalars on either side (DEV-DS-12: they take the array's device). */
        snprintf(what, sizeof what, "%s(a, scalar)", name);
        ws = ra_binary(ctx, op, ra_operand_array(ha), ra_operand_scalar(sc), &w);
        gs = ra_binary(ctx, op, ra_operand_array(da), ra_operand_scalar(sc), &g);
        compare(dev, ws, w, gs, g, what, t);
        snprintf(what, sizeof what, "%s(scalar, a)", name);
        ws = ra_binary(ctx, op, ra_operand_scalar(sc), ra_operand_array(ha), &w);
        gs = ra_binary(ctx, op, ra_operand_scalar(sc), ra_operand_array(da), &g);
        compare(dev, ws, w, gs, g, what, t);
    }

    static const ra_unop unops[] = {RA_NEGATIVE, RA_ABS, RA_SQRT};
    for (size_t i = 0; i < sizeof unops / sizeof unops[0]; i++) {
        ra_array *w = NULL, *g = NULL;
        int ws = ra_unary(ctx, unops[i], hn, &w);
        int gs = ra_unary(ctx, unops[i], dn, &g);
        compare(dev, ws, w, gs, g, ra_unop_name(unops[i]), t);
    }

    /* Reductions: over everything (a 0-d array on the device, DEV-ATTR-2), per axis. */
    static const ra_reduceop reds[] = {RA_SUM, RA_MAX};
    static const int axes[] = {0, 1, -1};
    for (size_t i = 0; i < 2; i++) {
        char what[64];
        ra_array *w = NULL, *g = NULL;
        int ws = ra_reduce(ctx, reds[i], hn, NULL, &w);
        int gs = ra_reduce(ctx, reds[i], dn, NULL, &g);
        snprintf(what, sizeof what, "%s(all axes)", ra_reduceop_name(reds[i]));
        compare(dev, ws, w, gs, g, what, t);
        for (size_t k = 0; k < 3; k++) {
            ws = ra_reduce(ctx, reds[i], hn, &axes[k], &w);
            gs = ra_reduce(ctx, reds[i], dn, &axes[k], &g);
            snprintf(what, sizeof what, "%s(axis=%d)", ra_reduceop_name(reds[i]), axes[k]);
            compare(dev, ws, w, gs, g, what, t);
        }
    }

    {
        ra_array *w = NULL, *g = NULL;
        int ws = ra_matmul(ctx, ha, hm, &w);
        int gs = ra_matmul(ctx, da, dm, &g);
        compare(dev, ws, w, gs, g, "matmul([2,3], [3,2])", t);
        ws = ra_matmul(ctx, hb, hm, &w);
        gs = ra_matmul(ctx, db, dm, &g);
        compare(dev, ws, w, gs, g, "matmul([3], [3,2])", t);
    }
    {
        const ra_array *hs[2] = {ha, hn}, *gs2[2] = {da, dn};
        for (int axis = 0; axis <= 2; axis++) {
            char what[64];
            ra_array *w = NULL, *g = NULL;
            int ws = ra_stack(ctx, hs, 2, axis, &w);
            int gs = ra_stack(ctx, gs2, 2, axis, &g);
            snprintf(what, sizeof what, "stack(axis=%d)", axis);
            compare(dev, ws, w, gs, g, what, t);
        }
    }
    {
        /* astype to and from float32 (DEV-CREATE-6: on x's device). */
        ra_array *w = NULL, *g = NULL, *hf = NULL, *df = NULL;
        int ws = ra_astype(ctx, hn, RA_FLOAT32, NULL, &w);
        int gs = ra_astype(ctx, dn, RA_FLOAT32, NULL, &g);
        compare(dev, ws, w, gs, g, "astype(float32)", t);
        const double f_re[6] = {1.5, -2, 100, 0.5, 0, 7};
        hf = make(RA_FLOAT32, un ? ua_re : f_re, NULL, s23, 2, 6);
        if (hf && ra_to_device(ctx, hf, dev, NULL, &df) == RA_OK) {
            ws = ra_astype(ctx, hf, t, NULL, &w);
            gs = ra_astype(ctx, df, t, NULL, &g);
            compare(dev, ws, w, gs, g, "astype from float32 to", t);
        }
        ra_array_release(hf);
        ra_array_release(df);
        hf = df = NULL;
        /* Out of range and NaN: integers clamp, NaN gives 0 (the host's rule). */
        const double x_re[6] = {NAN, 1e10, -1e10, 3.75, -3.75, 300};
        hf = make(RA_FLOAT32, x_re, NULL, s23, 2, 6);
        if (hf && ra_to_device(ctx, hf, dev, NULL, &df) == RA_OK) {
            ws = ra_astype(ctx, hf, t, NULL, &w);
            gs = ra_astype(ctx, df, t, NULL, &g);
            compare(dev, ws, w, gs, g, "astype(NaN, +-1e10, +-3.75, 300) from float32 to", t);
            ra_array *h64 = NULL, *d64 = NULL;
            if (ra_astype(ctx, hf, RA_FLOAT64, NULL, &h64) == RA_OK &&
                ra_astype(ctx, df, RA_FLOAT64, NULL, &d64) == RA_OK) {
                ws = ra_astype(ctx, h64, t, NULL, &w);
                gs = ra_astype(ctx, d64, t, NULL, &g);
                compare(dev, ws, w, gs, g, "astype(NaN, +-1e10, +-3.75, 300) from float64 to", t);
            }
            ra_array_release(h64);
            ra_array_release(d64);
        }
        ra_array_release(hf);
        ra_array_release(df);
    }
done:
    ra_array_release(ha);
    ra_array_release(hn);
    ra_array_release(hb);
    ra_array_release(hc);
    ra_array_release(hm);
    ra_array_release(da);
    ra_array_release(dn);
    ra_array_release(db);
    ra_array_release(dc);
    ra_array_release(dm);
}

/* A large reduction takes the two-pass path: integers make the expected sum exact. */
static void test_large_reduction(ra_device dev)
{
    char ds[RA_DEVICE_STR_MAX];
    dev_str(dev, ds);
    const int64_t n = 1 << 20;
    ra_array *x = NULL, *y = NULL, *s = NULL, *m = NULL;
    int st = ra_arange(ctx, ra_scalar_int(n), NULL, NULL,
                       &(ra_opts){.dtype = RA_INT64, .device_value = &dev}, &x);
    if (st == RA_OK) st = ra_reduce(ctx, RA_SUM, x, NULL, &s);
    int64_t sum = -1, max = -1;
    if (st == RA_OK) st = ra_array_read(ctx, s, &sum, sizeof sum);
    ASSERT_INT(sum, n * (n - 1) / 2, "%s: sum(arange(2^20)) over all axes", ds);
    if (st == RA_OK) st = ra_reduce(ctx, RA_MAX, x, NULL, &m);
    if (st == RA_OK) st = ra_array_read(ctx, m, &max, sizeof max);
    ASSERT_INT(max, n - 1, "%s: max(arange(2^20)) over all axes", ds);
    /* float32: 2^20 ones sum exactly to 2^20 in any order. */
    if (st == RA_OK)
        st = ra_ones(ctx, &n, 1, &(ra_opts){.dtype = RA_FLOAT32, .device_value = &dev}, &y);
    ra_array_release(s);
    s = NULL;
    float fs = -1;
    if (st == RA_OK) st = ra_reduce(ctx, RA_SUM, y, NULL, &s);
    if (st == RA_OK) st = ra_array_read(ctx, s, &fs, sizeof fs);
    CHECK(st == RA_OK && fs == (float)n, "%s: sum(ones(2^20, float32)) == 2^20 (observed %g)", ds,
          fs);
    if (st != RA_OK) printf("#   %s: %s\n", ra_status_name(st), ra_ctx_message(ctx));
    ra_array_release(x);
    ra_array_release(y);
    ra_array_release(s);
    ra_array_release(m);
}

/* Empty arrays have no device buffer: every operation on them must still work as on cpu
 * (sums of nothing are 0, max of nothing is refused, a product over an empty inner
 * dimension is zeros). */
static void test_empty(ra_device dev)
{
    const int64_t s03[2] = {0, 3}, s3[1] = {3}, s20[2] = {2, 0}, s02[2] = {0, 2};
    const double v3[3] = {1, 2, 3};
    ra_array *he = NULL, *hb = make(RA_FLOAT32, v3, NULL, s3, 1, 3), *hl = NULL, *hr = NULL;
    ra_array *de = NULL, *db = NULL, *dl = NULL, *dr = NULL;
    int st = ra_zeros(ctx, s03, 2, &(ra_opts){.dtype = RA_FLOAT32, .device = "cpu"}, &he);
    if (st == RA_OK)
        st = ra_zeros(ctx, s20, 2, &(ra_opts){.dtype = RA_FLOAT32, .device = "cpu"}, &hl);
    if (st == RA_OK)
        st = ra_zeros(ctx, s02, 2, &(ra_opts){.dtype = RA_FLOAT32, .device = "cpu"}, &hr);
    if (st == RA_OK && hb) st = ra_to_device(ctx, he, dev, NULL, &de);
    if (st == RA_OK) st = ra_to_device(ctx, hb, dev, NULL, &db);
    if (st == RA_OK) st = ra_to_device(ctx, hl, dev, NULL, &dl);
    if (st == RA_OK) st = ra_to_device(ctx, hr, dev, NULL, &dr);
    if (CHECK(st == RA_OK && hb, "empty arrays made and moved")) {
        ra_array *w = NULL, *g = NULL;
        int ws = ra_binary(ctx, RA_ADD, ra_operand_array(he), ra_operand_array(hb), &w);
        int gs = ra_binary(ctx, RA_ADD, ra_operand_array(de), ra_operand_array(db), &g);
        compare(dev, ws, w, gs, g, "add(empty[0,3], b[3])", RA_FLOAT32);
        ws = ra_unary(ctx, RA_SQRT, he, &w);
        gs = ra_unary(ctx, RA_SQRT, de, &g);
        compare(dev, ws, w, gs, g, "sqrt(empty)", RA_FLOAT32);
        ws = ra_reduce(ctx, RA_SUM, he, NULL, &w);
        gs = ra_reduce(ctx, RA_SUM, de, NULL, &g);
        compare(dev, ws, w, gs, g, "sum(empty[0,3])", RA_FLOAT32);
        const int axis0 = 0;
        ws = ra_reduce(ctx, RA_SUM, he, &axis0, &w);
        gs = ra_reduce(ctx, RA_SUM, de, &axis0, &g);
        compare(dev, ws, w, gs, g, "sum(empty[0,3], axis=0)", RA_FLOAT32);
        ws = ra_reduce(ctx, RA_MAX, he, &axis0, &w);
        gs = ra_reduce(ctx, RA_MAX, de, &axis0, &g);
        compare(dev, ws, w, gs, g, "max(empty[0,3], axis=0)", RA_FLOAT32);
        ws = ra_matmul(ctx, hl, hr, &w);
        gs = ra_matmul(ctx, dl, dr, &g);
        compare(dev, ws, w, gs, g, "matmul([2,0], [0,2])", RA_FLOAT32);
        ws = ra_astype(ctx, he, RA_INT8, NULL, &w);
        gs = ra_astype(ctx, de, RA_INT8, NULL, &g);
        compare(dev, ws, w, gs, g, "astype(empty)", RA_FLOAT32);
        const ra_array *hs[2] = {he, he}, *gs2[2] = {de, de};
        ws = ra_stack(ctx, hs, 2, 1, &w);
        gs = ra_stack(ctx, gs2, 2, 1, &g);
        compare(dev, ws, w, gs, g, "stack(empty, empty)", RA_FLOAT32);
    }
    ra_array *all[] = {he, hb, hl, hr, de, db, dl, dr};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ra_array_release(all[i]);
}

DT_TEST(opencl_ops)
{
    int st = ra_ctx_create(NULL, &ctx);
    if (!CHECK(st == RA_OK, "context created")) {
        printf("#   %s: %s\n", ra_status_name(st), ra_ctx_message(NULL));
        return;
    }
    ra_device gpus[16];
    size_t ngpu = gpu_devices(ctx, gpus, 16);
    if (ngpu == 0)
        skip_part("no OpenCL device is available (no platform or no device)",
                  "operations on gpu devices");
    for (size_t g = 0; g < ngpu; g++) {
        for (size_t i = 0; i < N_DTYPES; i++)
            test_dtype(gpus[g], all_dtypes[i]);
        test_large_reduction(gpus[g]);
        test_empty(gpus[g]);
    }
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(opencl_ops))
