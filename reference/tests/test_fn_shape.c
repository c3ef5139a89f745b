/* Tests of refarray_fn_shape.h (src/functions/manipulation.c, indexing.c, searching.c,
 * sets.c, sorting.c) on every device the context lists: each function's values equal small
 * examples derived by hand in the comments, every result is on the inputs' device (DEV-DS-10),
 * and inputs on two devices are refused (DEV-DS-11), index arrays included. */
#include "ra_test.h"

#include "refarray_fn_shape.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static ra_device g_dev;

static ra_array *f32(ra_ctx *ctx, const float *v, size_t ndim, const int64_t *shape)
{
    ra_array *x = NULL;
    ASSERT_STATUS(
        ctx,
        ra_asarray_buffer(ctx, v, RA_FLOAT32, shape, ndim, RA_OPTS(.device_value = &g_dev), &x),
        RA_OK, "float32 input");
    return x;
}

static ra_array *typed(ra_ctx *ctx, ra_dtype dt, const void *v, size_t ndim, const int64_t *shape)
{
    ra_array *x = NULL;
    ASSERT_STATUS(ctx,
                  ra_asarray_buffer(ctx, v, dt, shape, ndim, RA_OPTS(.device_value = &g_dev), &x),
                  RA_OK, "%s input", ra_dtype_name(dt));
    return x;
}

/* y is on the device, of dtype dt and shape, and holds the bytes of want; released. */
static void expect(ra_ctx *ctx, ra_array *y, ra_dtype dt, size_t ndim, const int64_t *shape,
                   const void *want, const char *what)
{
    char ds[RA_DEVICE_STR_MAX];
    ra_device_format(g_dev, ds, sizeof ds);
    CHECK(y != NULL, "%s on %s: a result", what, ds);
    CHECK(ra_device_eq(ra_array_device(y), g_dev),
          "DEV-DS-10 %s on %s: the result is on the "
          "inputs' device",
          what, ds);
    CHECK(ra_array_dtype(y) == dt, "%s on %s: dtype %s", what, ds, ra_dtype_name(dt));
    CHECK(ra_array_ndim(y) == ndim, "%s on %s: ndim %zu", what, ds, ndim);
    CHECK(ndim == 0 || !memcmp(ra_array_shape(y), shape, ndim * sizeof *shape), "%s on %s: shape",
          what, ds);
    size_t nb = ra_array_nbytes(y);
    unsigned char buf[512];
    CHECK(nb <= sizeof buf, "%s: small", what);
    ASSERT_STATUS(ctx, ra_array_read(ctx, y, buf, nb), RA_OK, "%s: read", what);
    CHECK(!memcmp(buf, want, nb), "%s on %s: the values derived by hand", what, ds);
    ra_array_release(y);
}

/* x = [[0.5, -1.25, 2], [-0.75, 1.5, 0.5]] (2x3) throughout. */
static const float X23[6] = {0.5f, -1.25f, 2.0f, -0.75f, 1.5f, 0.5f};
static const int64_t S23[2] = {2, 3};

static void manipulation(ra_ctx *ctx, ra_device dev)
{
    g_dev = dev;
    ra_array *x = f32(ctx, X23, 2, S23), *y = NULL;
    /* flip over both axes reverses the row-major order */
    const float flipped[6] = {0.5f, 1.5f, -0.75f, 2.0f, -1.25f, 0.5f};
    ASSERT_STATUS(ctx, ra_flip(ctx, x, NULL, 0, &y), RA_OK, "flip");
    expect(ctx, y, RA_FLOAT32, 2, S23, flipped, "flip");
    /* permute_dims (1, 0) is the transpose: columns become rows */
    const float t[6] = {0.5f, -0.75f, -1.25f, 1.5f, 2.0f, 0.5f};
    const int64_t s32[2] = {3, 2}, p10[2] = {1, 0};
    ASSERT_STATUS(ctx, ra_permute_dims(ctx, x, p10, 2, &y), RA_OK, "permute_dims");
    expect(ctx, y, RA_FLOAT32, 2, s32, t, "permute_dims");
    /* moveaxis 0 -> 1 of a 2-D array is the same transpose */
    const int64_t src[1] = {0}, dst[1] = {1};
    ASSERT_STATUS(ctx, ra_moveaxis(ctx, x, src, dst, 1, &y), RA_OK, "moveaxis");
    expect(ctx, y, RA_FLOAT32, 2, s32, t, "moveaxis");
    /* reshape keeps the row-major order; -1 is inferred as 6 / 3 = 2 */
    const int64_t r[2] = {-1, 2};
    ASSERT_STATUS(ctx, ra_reshape(ctx, x, r, 2, &y), RA_OK, "reshape");
    expect(ctx, y, RA_FLOAT32, 2, s32, X23, "reshape");
    const int64_t bad[1] = {4};
    ASSERT_STATUS(ctx, ra_reshape(ctx, x, bad, 1, &y), RA_E_SHAPE, "reshape 6 elements to 4");
    /* roll by 1 along axis 1: each row's last element comes first */
    const float rolled[6] = {2.0f, 0.5f, -1.25f, 0.5f, -0.75f, 1.5f};
    const int64_t one[1] = {1}, ax1[1] = {1};
    ASSERT_STATUS(ctx, ra_roll(ctx, x, one, 1, ax1, 1, &y), RA_OK, "roll");
    expect(ctx, y, RA_FLOAT32, 2, S23, rolled, "roll");
    /* roll of the flattened array by 1: the last element (0.5) first */
    const float frolled[6] = {0.5f, 0.5f, -1.25f, 2.0f, -0.75f, 1.5f};
    ASSERT_STATUS(ctx, ra_roll(ctx, x, one, 1, NULL, 0, &y), RA_OK, "roll flattened");
    expect(ctx, y, RA_FLOAT32, 2, S23, frolled, "roll flattened");
    /* expand_dims at 0, then squeeze it away */
    const int64_t s123[3] = {1, 2, 3}, zero[1] = {0};
    ASSERT_STATUS(ctx, ra_expand_dims(ctx, x, zero, 1, &y), RA_OK, "expand_dims");
    ra_array *e = y;
    ASSERT_STATUS(ctx, ra_squeeze(ctx, e, zero, 1, &y), RA_OK, "squeeze");
    expect(ctx, y, RA_FLOAT32, 2, S23, X23, "squeeze");
    expect(ctx, e, RA_FLOAT32, 3, s123, X23, "expand_dims");
    ASSERT_STATUS(ctx, ra_squeeze(ctx, x, zero, 1, &y), RA_E_SHAPE, "squeeze an axis of 2");
    /* tile (2,) on [a, b] gives [a, b, a, b]; repeat 2 gives [a, a, b, b] */
    const float ab[2] = {0.5f, -1.25f};
    const int64_t s2[1] = {2}, s4[1] = {4}, two[1] = {2};
    ra_array *v = f32(ctx, ab, 1, s2);
    const float tiled[4] = {0.5f, -1.25f, 0.5f, -1.25f}, rep[4] = {0.5f, 0.5f, -1.25f, -1.25f};
    ASSERT_STATUS(ctx, ra_tile(ctx, v, two, 1, &y), RA_OK, "tile");
    expect(ctx, y, RA_FLOAT32, 1, s4, tiled, "tile");
    ASSERT_STATUS(ctx, ra_repeat(ctx, v, NULL, 2, NULL, &y), RA_OK, "repeat");
    expect(ctx, y, RA_FLOAT32, 1, s4, rep, "repeat");
    /* concat of x's rows as (1,3) pieces along 0 gives x back; flattened: all six */
    const int64_t s13[2] = {1, 3};
    ra_array *row0 = f32(ctx, X23, 2, s13), *row1 = f32(ctx, X23 + 3, 2, s13);
    const ra_array *rows[2] = {row0, row1};
    const int64_t a0 = 0;
    ASSERT_STATUS(ctx, ra_concat(ctx, rows, 2, &a0, &y), RA_OK, "concat");
    expect(ctx, y, RA_FLOAT32, 2, S23, X23, "concat");
    const int64_t s6[1] = {6};
    ASSERT_STATUS(ctx, ra_concat(ctx, rows, 2, NULL, &y), RA_OK, "concat flattened");
    expect(ctx, y, RA_FLOAT32, 1, s6, X23, "concat flattened");
    /* unstack along 0 gives the two rows */
    ra_array *parts[4] = {NULL};
    size_t np = 0;
    ASSERT_STATUS(ctx, ra_unstack(ctx, x, 0, parts, 4, &np), RA_OK, "unstack");
    ASSERT_INT(np, 2, "unstack gives 2 arrays");
    const int64_t s3[1] = {3};
    expect(ctx, parts[0], RA_FLOAT32, 1, s3, X23, "unstack[0]");
    expect(ctx, parts[1], RA_FLOAT32, 1, s3, X23 + 3, "unstack[1]");
    /* broadcast_to (2, 2) of [a, b] repeats the row */
    const int64_t s22[2] = {2, 2};
    ASSERT_STATUS(ctx, ra_broadcast_to(ctx, v, s22, 2, &y), RA_OK, "broadcast_to");
    expect(ctx, y, RA_FLOAT32, 2, s22, tiled, "broadcast_to");
    ASSERT_STATUS(ctx, ra_broadcast_to(ctx, x, s22, 2, &y), RA_E_BROADCAST,
                  "(2,3) does not broadcast to (2,2)");
    ra_array_release(v);
    ra_array_release(row0);
    ra_array_release(row1);
    ra_array_release(x);
}

static void searching(ra_ctx *ctx, ra_device dev)
{
    g_dev = dev;
    ra_array *x = f32(ctx, X23, 2, S23), *y = NULL;
    /* flattened, the largest is 2 at 2 and the smallest -1.25 at 1 */
    int64_t i2 = 2, i1 = 1;
    ASSERT_STATUS(ctx, ra_argmax(ctx, x, NULL, false, &y), RA_OK, "argmax");
    expect(ctx, y, RA_INT64, 0, NULL, &i2, "argmax");
    ASSERT_STATUS(ctx, ra_argmin(ctx, x, NULL, false, &y), RA_OK, "argmin");
    expect(ctx, y, RA_INT64, 0, NULL, &i1, "argmin");
    /* along axis 1: row 0's max 2 is at 2, row 1's 1.5 at 1 */
    const int64_t am[2] = {2, 1}, s2[1] = {2}, ax1 = 1;
    ASSERT_STATUS(ctx, ra_argmax(ctx, x, &ax1, false, &y), RA_OK, "argmax axis 1");
    expect(ctx, y, RA_INT64, 1, s2, am, "argmax axis 1");
    /* a NaN is the maximum and the minimum: [1, NaN, 3] gives 1 both ways */
    const float withnan[3] = {1.0f, NAN, 3.0f};
    const int64_t s3[1] = {3};
    ra_array *n = f32(ctx, withnan, 1, s3);
    ASSERT_STATUS(ctx, ra_argmax(ctx, n, NULL, false, &y), RA_OK, "argmax NaN");
    expect(ctx, y, RA_INT64, 0, NULL, &i1, "argmax NaN");
    ASSERT_STATUS(ctx, ra_argmin(ctx, n, NULL, false, &y), RA_OK, "argmin NaN");
    expect(ctx, y, RA_INT64, 0, NULL, &i1, "argmin NaN");
    /* [0, 1.5, 0, -2] has two non-zero elements, at 1 and 3 */
    const float z[4] = {0.0f, 1.5f, 0.0f, -2.0f};
    const int64_t s4[1] = {4};
    ra_array *zx = f32(ctx, z, 1, s4);
    ASSERT_STATUS(ctx, ra_count_nonzero(ctx, zx, NULL, 0, false, &y), RA_OK, "count_nonzero");
    expect(ctx, y, RA_INT64, 0, NULL, &i2, "count_nonzero");
    ra_array *nz[2] = {NULL};
    size_t nn = 0;
    const int64_t pos[2] = {1, 3};
    ASSERT_STATUS(ctx, ra_nonzero(ctx, zx, nz, 2, &nn), RA_OK, "nonzero");
    ASSERT_INT(nn, 1, "nonzero of a 1-D array gives one array");
    expect(ctx, nz[0], RA_INT64, 1, s2, pos, "nonzero");
    /* searchsorted in [-2.5, -1.25, 0, 0.5]: 0.5 goes before the 0.5 (3, left) or after it
     * (4, right); -1.25 at 1 (left); 2 at the end, 4 */
    const float sorted[4] = {-2.5f, -1.25f, 0.0f, 0.5f}, keys[3] = {0.5f, -1.25f, 2.0f};
    ra_array *sx = f32(ctx, sorted, 1, s4), *kx = f32(ctx, keys, 1, s3);
    const int64_t left[3] = {3, 1, 4}, right[3] = {4, 2, 4};
    ASSERT_STATUS(ctx, ra_searchsorted(ctx, sx, ra_operand_array(kx), false, NULL, &y), RA_OK,
                  "searchsorted");
    expect(ctx, y, RA_INT64, 1, s3, left, "searchsorted left");
    ASSERT_STATUS(ctx, ra_searchsorted(ctx, sx, ra_operand_array(kx), true, NULL, &y), RA_OK,
                  "searchsorted right");
    expect(ctx, y, RA_INT64, 1, s3, right, "searchsorted right");
    /* where([T, F, T], keys, 9.0) picks keys[0], 9, keys[2] */
    const uint8_t c[3] = {1, 0, 1};
    ra_array *cx = typed(ctx, RA_BOOL, c, 1, s3);
    const float w[3] = {0.5f, 9.0f, 2.0f};
    ASSERT_STATUS(
        ctx, ra_where(ctx, cx, ra_operand_array(kx), ra_operand_scalar(ra_scalar_float(9.0)), &y),
        RA_OK, "where");
    expect(ctx, y, RA_FLOAT32, 1, s3, w, "where");
    ra_array_release(x);
    ra_array_release(n);
    ra_array_release(zx);
    ra_array_release(sx);
    ra_array_release(kx);
    ra_array_release(cx);
}

static void sets_and_sorting(ra_ctx *ctx, ra_device dev)
{
    g_dev = dev;
    ra_array *y = NULL;
    /* [2, NaN, -0, 1, 0, NaN, 2]: values -0 (first of the two zeros, at 2), 1, 2, NaN, NaN;
     * first positions 2, 3, 0, 1, 5; counts 2, 1, 2, 1, 1; inverse maps each element to its
     * value's position: 2 3 0 1 0 4 2 */
    const float v[7] = {2.0f, NAN, -0.0f, 1.0f, 0.0f, NAN, 2.0f};
    const int64_t s7[1] = {7}, s5[1] = {5};
    ra_array *x = f32(ctx, v, 1, s7), *vals = NULL, *idx = NULL, *inv = NULL, *cnt = NULL;
    ASSERT_STATUS(ctx, ra_unique(ctx, x, &vals, &idx, &inv, &cnt), RA_OK, "unique");
    const float uv[5] = {-0.0f, 1.0f, 2.0f, NAN, NAN};
    const int64_t ui[5] = {2, 3, 0, 1, 5}, uc[5] = {2, 1, 2, 1, 1}, uinv[7] = {2, 3, 0, 1, 0, 4, 2};
    expect(ctx, vals, RA_FLOAT32, 1, s5, uv, "unique values (NaN bits as float's NAN)");
    expect(ctx, idx, RA_INT64, 1, s5, ui, "unique indices");
    expect(ctx, inv, RA_INT64, 1, s7, uinv, "unique inverse");
    expect(ctx, cnt, RA_INT64, 1, s5, uc, "unique counts");
    /* sort: -0 and 0 keep their order (stable), NaNs last; descending: NaNs first */
    const float asc[7] = {-0.0f, 0.0f, 1.0f, 2.0f, 2.0f, NAN, NAN};
    ASSERT_STATUS(ctx, ra_sort(ctx, x, -1, false, true, &y), RA_OK, "sort");
    expect(ctx, y, RA_FLOAT32, 1, s7, asc, "sort");
    const int64_t order[7] = {2, 4, 3, 0, 6, 1, 5}, dorder[7] = {1, 5, 0, 6, 3, 2, 4};
    ASSERT_STATUS(ctx, ra_argsort(ctx, x, 0, false, true, &y), RA_OK, "argsort");
    expect(ctx, y, RA_INT64, 1, s7, order, "argsort");
    ASSERT_STATUS(ctx, ra_argsort(ctx, x, 0, true, true, &y), RA_OK, "argsort descending");
    expect(ctx, y, RA_INT64, 1, s7, dorder, "argsort descending");
    /* isin([3, -1, 2], [3, 2, -4]) is [T, F, T]; a NaN is in nothing */
    const int32_t a[3] = {3, -1, 2}, b[3] = {3, 2, -4};
    const int64_t s3[1] = {3};
    ra_array *ax = typed(ctx, RA_INT32, a, 1, s3), *bx = typed(ctx, RA_INT32, b, 1, s3);
    const uint8_t in[3] = {1, 0, 1}, nin[7] = {0, 0, 0, 0, 0, 0, 0};
    ASSERT_STATUS(ctx, ra_isin(ctx, ra_operand_array(ax), ra_operand_array(bx), false, &y), RA_OK,
                  "isin");
    expect(ctx, y, RA_BOOL, 1, s3, in, "isin");
    ASSERT_STATUS(
        ctx, ra_isin(ctx, ra_operand_array(x), ra_operand_scalar(ra_scalar_float(NAN)), false, &y),
        RA_OK, "isin NaN");
    expect(ctx, y, RA_BOOL, 1, s7, nin, "isin NaN scalar matches nothing");
    /* complex values order by real part, then imaginary, a NaN part last: [1+1j, 1+0j, NaN,
     * 1+1j] has values 1+0j, 1+1j, NaN with counts 1, 2, 1 */
    const float cv[8] = {1.0f, 1.0f, 1.0f, 0.0f, NAN, 0.0f, 1.0f, 1.0f};
    const int64_t s4[1] = {4};
    ra_array *cx = typed(ctx, RA_COMPLEX64, cv, 1, s4), *cc = NULL;
    ASSERT_STATUS(ctx, ra_unique(ctx, cx, &vals, NULL, NULL, &cc), RA_OK, "unique complex");
    const float cu[6] = {1.0f, 0.0f, 1.0f, 1.0f, NAN, 0.0f};
    const int64_t ccount[3] = {1, 2, 1};
    expect(ctx, vals, RA_COMPLEX64, 1, s3, cu, "unique complex values");
    expect(ctx, cc, RA_INT64, 1, s3, ccount, "unique complex counts");
    /* searchsorted through a sorter: b = [3, 2, -4] sorted by positions [2, 1, 0] is
     * [-4, 2, 3]; 2 goes before the 2 (1), 5 after everything (3) */
    const int32_t keys[2] = {2, 5}, by[3] = {2, 1, 0};
    const int64_t s2[1] = {2}, found[2] = {1, 3};
    ra_array *kx = typed(ctx, RA_INT32, keys, 1, s2), *ox = typed(ctx, RA_INT32, by, 1, s3);
    ASSERT_STATUS(ctx, ra_searchsorted(ctx, bx, ra_operand_array(kx), false, ox, &y), RA_OK,
                  "searchsorted with a sorter");
    expect(ctx, y, RA_INT64, 1, s2, found, "searchsorted with a sorter");
    ra_array_release(kx);
    ra_array_release(ox);
    ra_array_release(cx);
    ra_array_release(x);
    ra_array_release(ax);
    ra_array_release(bx);
}

static void indexing(ra_ctx *ctx, ra_device dev)
{
    g_dev = dev;
    ra_array *x = f32(ctx, X23, 2, S23), *y = NULL;
    /* take [2, 0] along axis 1: each row's third then first element */
    const int32_t ti[2] = {2, 0};
    const int64_t s2[1] = {2}, s22[2] = {2, 2};
    ra_array *ix = typed(ctx, RA_INT32, ti, 1, s2);
    const int64_t ax1 = 1;
    const float taken[4] = {2.0f, 0.5f, 0.5f, -0.75f};
    ASSERT_STATUS(ctx, ra_take(ctx, x, ix, &ax1, &y), RA_OK, "take");
    expect(ctx, y, RA_FLOAT32, 2, s22, taken, "take");
    /* take_along_axis with [[2], [0]] on axis 1: row 0's x[0,2] = 2, row 1's x[1,0] = -0.75 */
    const int64_t s21[2] = {2, 1};
    ra_array *ia = typed(ctx, RA_INT32, ti, 2, s21);
    const float along[2] = {2.0f, -0.75f};
    ASSERT_STATUS(ctx, ra_take_along_axis(ctx, x, ia, 1, &y), RA_OK, "take_along_axis");
    expect(ctx, y, RA_FLOAT32, 2, s21, along, "take_along_axis");
    /* x[1, ::-2] is row 1's elements 2 and 0: 0.5, -0.75 */
    ra_index key[2] = {{.kind = RA_INDEX_INT, .i = 1},
                       {.kind = RA_INDEX_SLICE, .step = -2, .has_step = true}};
    const float back2[2] = {0.5f, -0.75f};
    ASSERT_STATUS(ctx, ra_getitem(ctx, x, key, 2, &y), RA_OK, "getitem");
    expect(ctx, y, RA_FLOAT32, 1, s2, back2, "x[1, ::-2]");
    /* x[None, ..., 0] is the first column with a leading axis: [[0.5, -0.75]] */
    ra_index k2[3] = {
        {.kind = RA_INDEX_NEWAXIS}, {.kind = RA_INDEX_ELLIPSIS}, {.kind = RA_INDEX_INT, .i = 0}};
    const int64_t s12[2] = {1, 2};
    ASSERT_STATUS(ctx, ra_getitem(ctx, x, k2, 3, &y), RA_OK, "getitem None ...");
    const float col0[2] = {0.5f, -0.75f};
    expect(ctx, y, RA_FLOAT32, 2, s12, col0, "x[None, ..., 0]");
    /* x[x > 0]-like mask [[T, F, T], [F, T, T]] picks 0.5, 2, 1.5, 0.5 */
    const uint8_t m[6] = {1, 0, 1, 0, 1, 1};
    ra_array *mx = typed(ctx, RA_BOOL, m, 2, S23);
    ra_index km = {.kind = RA_INDEX_ARRAY, .array = mx};
    const float masked[4] = {0.5f, 2.0f, 1.5f, 0.5f};
    const int64_t s4[1] = {4};
    ASSERT_STATUS(ctx, ra_getitem(ctx, x, &km, 1, &y), RA_OK, "getitem mask");
    expect(ctx, y, RA_FLOAT32, 1, s4, masked, "x[mask]");
    /* x[[1, 0], [2, 0]] is x[1,2], x[0,0]: 0.5, 0.5; x[[1,0]] swaps the rows */
    ra_index kk[2] = {{.kind = RA_INDEX_ARRAY, .array = ix}, {.kind = RA_INDEX_INT, .i = 0}};
    ASSERT_STATUS(ctx, ra_getitem(ctx, x, kk, 2, &y), RA_E_AXIS, "x[[2, 0], 0]: 2 is out of range");
    const int32_t rows[2] = {1, 0};
    ra_array *rx = typed(ctx, RA_INT32, rows, 1, s2);
    ra_index kr = {.kind = RA_INDEX_ARRAY, .array = rx};
    const float swapped[6] = {-0.75f, 1.5f, 0.5f, 0.5f, -1.25f, 2.0f};
    ASSERT_STATUS(ctx, ra_getitem(ctx, x, &kr, 1, &y), RA_OK, "getitem rows");
    expect(ctx, y, RA_FLOAT32, 2, S23, swapped, "x[[1, 0]]");
    /* x[mask] = 0 leaves only the masked-out -1.25 and -0.75 */
    ASSERT_STATUS(ctx, ra_setitem(ctx, x, &km, 1, ra_operand_scalar(ra_scalar_float(0.0))), RA_OK,
                  "setitem mask");
    const float zeroed[6] = {0.0f, -1.25f, 0.0f, -0.75f, 0.0f, 0.0f};
    float now[6];
    ASSERT_STATUS(ctx, ra_array_read(ctx, x, now, sizeof now), RA_OK, "read x");
    CHECK(!memcmp(now, zeroed, sizeof now), "x[mask] = 0 wrote x in place");
    CHECK(ra_device_eq(ra_array_device(x), dev), "x stays on its device");
    /* x[0, :2] = [a, b] from an array */
    const float ab[2] = {7.0f, 8.0f};
    ra_array *vx = f32(ctx, ab, 1, s2);
    ra_index ks[2] = {{.kind = RA_INDEX_INT, .i = 0},
                      {.kind = RA_INDEX_SLICE, .stop = 2, .has_stop = true}};
    ASSERT_STATUS(ctx, ra_setitem(ctx, x, ks, 2, ra_operand_array(vx)), RA_OK, "setitem slice");
    ASSERT_STATUS(ctx, ra_array_read(ctx, x, now, sizeof now), RA_OK, "read x");
    CHECK(now[0] == 7.0f && now[1] == 8.0f && now[2] == 0.0f, "x[0, :2] = [7, 8]");
    ra_array_release(vx);
    ra_array_release(rx);
    ra_array_release(mx);
    ra_array_release(ia);
    ra_array_release(ix);
    ra_array_release(x);
}

/* Empty arrays and refusals: each error names its status, nothing is made. */
static void edges(ra_ctx *ctx, ra_device dev)
{
    g_dev = dev;
    const float none[1] = {0.0f};
    const int64_t s0[1] = {0};
    ra_array *e = f32(ctx, none, 1, s0), *y = NULL, *vals = NULL, *cnt = NULL;
    /* unique and sort of nothing are empty; argmax of nothing has no answer */
    ASSERT_STATUS(ctx, ra_unique(ctx, e, &vals, NULL, NULL, &cnt), RA_OK, "unique of empty");
    expect(ctx, vals, RA_FLOAT32, 1, s0, none, "unique values of empty");
    expect(ctx, cnt, RA_INT64, 1, s0, none, "unique counts of empty");
    ASSERT_STATUS(ctx, ra_sort(ctx, e, -1, false, true, &y), RA_OK, "sort of empty");
    expect(ctx, y, RA_FLOAT32, 1, s0, none, "sort of empty");
    y = NULL;
    ASSERT_STATUS(ctx, ra_argmax(ctx, e, NULL, false, &y), RA_E_EMPTY_REDUCTION, "argmax of empty");
    CHECK(y == NULL, "nothing is made on error");
    ra_array *x = f32(ctx, X23, 2, S23);
    /* x[:, 5:1] selects no column: shape (2, 0) */
    ra_index k[2] = {
        {.kind = RA_INDEX_SLICE},
        {.kind = RA_INDEX_SLICE, .start = 5, .stop = 1, .has_start = true, .has_stop = true}};
    const int64_t s20[2] = {2, 0};
    ASSERT_STATUS(ctx, ra_getitem(ctx, x, k, 2, &y), RA_OK, "x[:, 5:1]");
    expect(ctx, y, RA_FLOAT32, 2, s20, none, "x[:, 5:1]");
    ra_index three[3] = {{.kind = RA_INDEX_INT}, {.kind = RA_INDEX_INT}, {.kind = RA_INDEX_INT}};
    ASSERT_STATUS(ctx, ra_getitem(ctx, x, three, 3, &y), RA_E_ARG, "three indices for 2-D x");
    ra_index step0 = {.kind = RA_INDEX_SLICE, .step = 0, .has_step = true};
    ASSERT_STATUS(ctx, ra_getitem(ctx, x, &step0, 1, &y), RA_E_ARG, "a zero step");
    const int64_t ax5 = 5;
    ASSERT_STATUS(ctx, ra_argmax(ctx, x, &ax5, false, &y), RA_E_AXIS, "argmax axis 5 of 2-D");
    ASSERT_STATUS(ctx, ra_searchsorted(ctx, x, ra_operand_array(x), false, NULL, &y), RA_E_SHAPE,
                  "searchsorted in a 2-D x1");
    ASSERT_STATUS(ctx, ra_where(ctx, x, ra_operand_array(x), ra_operand_array(x), &y), RA_E_DTYPE,
                  "where with a float32 condition");
    const double d2[2] = {1.0, 2.0};
    const int64_t s2[1] = {2};
    ra_array *f64 = NULL;
    int st = ra_asarray_buffer(ctx, d2, RA_FLOAT64, s2, 1, RA_OPTS(.device_value = &g_dev), &f64);
    if (st == RA_OK) {
        ra_index row = {.kind = RA_INDEX_INT, .i = 0};
        ra_index kk[2] = {row, {.kind = RA_INDEX_SLICE, .stop = 2, .has_stop = true}};
        ASSERT_STATUS(ctx, ra_setitem(ctx, x, kk, 2, ra_operand_array(f64)), RA_E_DTYPE,
                      "a float64 value into float32 x");
        ra_array_release(f64);
    }
    const ra_array *pair[2] = {x, e};
    const int64_t a0 = 0;
    ASSERT_STATUS(ctx, ra_concat(ctx, pair, 2, &a0, &y), RA_E_SHAPE, "concat of 2-D and 1-D");
    const int32_t far[1] = {7};
    const int64_t s1[1] = {1};
    ra_array *fx = typed(ctx, RA_INT32, far, 1, s1);
    const int64_t ax1 = 1;
    ASSERT_STATUS(ctx, ra_take(ctx, x, fx, &ax1, &y), RA_E_AXIS, "take index 7 of 3");
    ASSERT_STATUS(ctx, ra_nonzero(ctx, x, NULL, 0, NULL), RA_E_NULL, "nonzero without outs");
    ASSERT_STATUS(ctx, ra_sort(ctx, NULL, -1, false, true, &y), RA_E_NULL, "sort of NULL");
    CHECK(ra_sort(NULL, x, -1, false, true, &y) == RA_E_NULL, "sort without a context");
    ra_array_release(fx);
    ra_array_release(x);
    ra_array_release(e);
}

/* DEV-DS-11: every function of two arrays refuses them on two devices, an index array too. */
static void two_devices(void)
{
    ra_ctx *ctx = open_ctx();
    ra_device devs[16];
    size_t n = list_devices(ctx, devs);
    if (n < 2) {
        skip_part("only one device (cpu): no OpenCL device here", "DEV-DS-11 two devices");
        ra_ctx_destroy(ctx);
        return;
    }
    g_dev = devs[0];
    const int64_t s2[1] = {2};
    const int32_t i2[2] = {1, 0};
    ra_array *x = f32(ctx, X23, 1, s2), *y = NULL;
    g_dev = devs[1];
    ra_array *ix = typed(ctx, RA_INT32, i2, 1, s2), *v = f32(ctx, X23, 1, s2);
    ra_index k = {.kind = RA_INDEX_ARRAY, .array = ix};
    ASSERT_STATUS(ctx, ra_take(ctx, x, ix, NULL, &y), RA_E_DEVICE_MISMATCH, "take");
    ASSERT_STATUS(ctx, ra_getitem(ctx, x, &k, 1, &y), RA_E_DEVICE_MISMATCH, "x[index on D1]");
    ra_index all = {.kind = RA_INDEX_SLICE};
    ASSERT_STATUS(ctx, ra_setitem(ctx, x, &all, 1, ra_operand_array(v)), RA_E_DEVICE_MISMATCH,
                  "x[:] = value on D1");
    const ra_array *both[2] = {x, v};
    const int64_t a0 = 0;
    ASSERT_STATUS(ctx, ra_concat(ctx, both, 2, &a0, &y), RA_E_DEVICE_MISMATCH, "concat");
    ASSERT_STATUS(ctx, ra_searchsorted(ctx, x, ra_operand_array(v), false, NULL, &y),
                  RA_E_DEVICE_MISMATCH, "searchsorted");
    ASSERT_STATUS(ctx, ra_isin(ctx, ra_operand_array(x), ra_operand_array(v), false, &y),
                  RA_E_DEVICE_MISMATCH, "isin");
    ra_array_release(x);
    ra_array_release(ix);
    ra_array_release(v);
    ra_ctx_destroy(ctx);
}

/* A result beyond the context's limits is MemoryError before any host buffer is taken, and a
 * repeated axis longer than int64 is refused instead of wrapping. */
DT_TEST(limits)
{
    ra_ctx *ctx = NULL;
    ra_ctx_options o = {.size = sizeof o, .max_host_bytes = 4096, .max_device_bytes = 4096};
    ASSERT_STATUS(ctx, ra_ctx_create(&o, &ctx), RA_OK, "a context of 4096 bytes");
    ra_device devs[16];
    size_t n = list_devices(ctx, devs);
    for (size_t i = 0; i < n; i++) {
        g_dev = devs[i];
        const int64_t s2[1] = {2}, s4[1] = {4};
        ra_array *x = f32(ctx, X23, 1, s2), *y = NULL;
        /* 2 float32 tiled 2^20 times: 8 MiB, beyond 4096 bytes */
        const int64_t reps[1] = {INT64_C(1) << 20};
        ASSERT_STATUS(ctx, ra_tile(ctx, x, reps, 1, &y), RA_E_NOMEM, "tile beyond the limit");
        ASSERT_MESSAGE(ctx, "4096", "the message names the limit");
        /* counts 2^62 each: their sum passes int64 at the second */
        const int64_t big[4] = {INT64_C(1) << 62, INT64_C(1) << 62, INT64_C(1) << 62,
                                INT64_C(1) << 62};
        ra_array *x4 = f32(ctx, X23, 1, s4), *c = typed(ctx, RA_INT64, big, 1, s4);
        const int64_t a0 = 0;
        ASSERT_STATUS(ctx, ra_repeat(ctx, x4, c, 0, &a0, &y), RA_E_SHAPE, "repeat 2^64 times");
        ra_array_release(c);
        ra_array_release(x4);
        ra_array_release(x);
    }
    ra_ctx_destroy(ctx);
}

DT_TEST(manipulation_every_device)
{
    on_each_device(manipulation);
}
DT_TEST(searching_every_device)
{
    on_each_device(searching);
}
DT_TEST(sets_sorting_every_device)
{
    on_each_device(sets_and_sorting);
}
DT_TEST(indexing_every_device)
{
    on_each_device(indexing);
}
DT_TEST(edges_every_device)
{
    on_each_device(edges);
}
DT_TEST(mixed_devices)
{
    two_devices();
}

DT_MAIN(DT_ENTRY(manipulation_every_device), DT_ENTRY(searching_every_device),
        DT_ENTRY(sets_sorting_every_device), DT_ENTRY(indexing_every_device),
        DT_ENTRY(edges_every_device), DT_ENTRY(mixed_devices), DT_ENTRY(limits))
