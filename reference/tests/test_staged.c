/* Tests of the staged path of the standard's functions (src/functions/staged.h): element
 * access converts as the header says for every dtype, broadcasting follows the standard's
 * rule, and a staged read and finish keep values and device on every device the context
 * lists, refusing arrays on two devices (DEV-DS-11). Links refarray's objects: the staged
 * interface is internal. */
#include "ra_test.h"

#include "functions/staged.h"

#include <complex.h>
#include <stdint.h>

DT_TEST(element_access)
{
    ra_ctx *ctx = open_ctx();
    int64_t shape[1] = {4};
    ra__host h;
    ASSERT_STATUS(ctx, ra__host_new(ctx, "t", RA_INT8, 1, shape, &h), RA_OK, "int8 host copy");
    ra__hset(&h, 0, 1e300); /* beyond the range: saturates through int64, then wraps */
    ra__hset(&h, 1, NAN);   /* NaN: 0 */
    ra__hset(&h, 2, -2.75); /* toward zero */
    ra__hseti(&h, 3, 300);  /* an integer into int8 wraps modulo 256 */
    ASSERT_INT(ra__hgeti(&h, 0), -1, "INT64_MAX stored into int8 keeps the low byte");
    ASSERT_INT(ra__hgeti(&h, 1), 0, "NaN into int8 is 0");
    ASSERT_INT(ra__hgeti(&h, 2), -2, "-2.75 into int8 is -2");
    ASSERT_INT(ra__hgeti(&h, 3), 44, "300 into int8 is 44");
    ra__host_free(ctx, &h);

    ASSERT_STATUS(ctx, ra__host_new(ctx, "t", RA_UINT64, 1, shape, &h), RA_OK, "uint64");
    ra__hsetu(&h, 0, UINT64_MAX);
    ra__hset(&h, 1, -5.0);
    CHECK(ra__hgetu(&h, 0) == UINT64_MAX, "uint64 keeps 2^64-1 exactly");
    CHECK(ra__hgetu(&h, 1) == 0, "a negative float into uint64 is 0");
    CHECK(ra__hgetb(&h, 0) && !ra__hgetb(&h, 1), "bool view of uint64");
    ra__host_free(ctx, &h);

    ASSERT_STATUS(ctx, ra__host_new(ctx, "t", RA_FLOAT16, 1, shape, &h), RA_OK, "float16");
    ra__hset(&h, 0, 1.0 / 3.0);
    ra__hset(&h, 1, 65520.0); /* rounds to infinity in binary16 */
    CHECK(ra__hget(&h, 0) == 0.333251953125, "1/3 in binary16 is 0x3555");
    CHECK(isinf(ra__hget(&h, 1)), "65520 overflows binary16 to infinity");
    ra__host_free(ctx, &h);

    ASSERT_STATUS(ctx, ra__host_new(ctx, "t", RA_COMPLEX64, 1, shape, &h), RA_OK, "complex64");
    ra__hsetc(&h, 0, CMPLX(1.5, -2.0));
    ra__hset(&h, 1, 3.0);
    CHECK(ra__hgetc(&h, 0) == CMPLX(1.5, -2.0), "complex64 keeps both parts");
    CHECK(ra__hget(&h, 0) == 1.5, "a complex read as real gives its real part");
    CHECK(cimag(ra__hgetc(&h, 1)) == 0.0, "a real stored into complex has imaginary part 0");
    CHECK(ra__hgetb(&h, 0) && !ra__hgetb(&h, 2), "bool view of complex");
    ra__host_free(ctx, &h);
    ra_ctx_destroy(ctx);
}

DT_TEST(broadcasting)
{
    ra_ctx *ctx = open_ctx();
    const int64_t a[3] = {2, 1, 3}, b[2] = {4, 1}, c[1] = {2};
    const int64_t *shapes[2] = {a, b};
    size_t ndims[2] = {3, 2}, nd = 0;
    int64_t out[RA_MAX_NDIM];
    ASSERT_STATUS(ctx, ra__broadcast_shapes(ctx, "t", 2, ndims, shapes, &nd, out), RA_OK,
                  "(2,1,3) and (4,1) broadcast");
    ASSERT_INT(nd, 3, "to three dimensions");
    CHECK(out[0] == 2 && out[1] == 4 && out[2] == 3, "to (2, 4, 3)");
    /* Element (1, 2, 0) of the result is flat 1*12 + 2*3 + 0 = 18; it reads a's (1, 0, 0)
     * (flat 3) and b's (2, 0) (flat 2). */
    ASSERT_INT(ra__broadcast_at(18, 3, out, 3, a), 3, "a's element under (1,2,0)");
    ASSERT_INT(ra__broadcast_at(18, 3, out, 2, b), 2, "b's element under (1,2,0)");
    ASSERT_INT(ra__broadcast_at(18, 3, out, 0, NULL), 0, "a 0-d operand's only element");
    const int64_t *bad[2] = {a, c};
    size_t badn[2] = {3, 1};
    ASSERT_STATUS(ctx, ra__broadcast_shapes(ctx, "t", 2, badn, bad, &nd, out), RA_E_BROADCAST,
                  "(2,1,3) and (2,) do not broadcast");
    ASSERT_MESSAGE(ctx, "(2, 1, 3) and (2,)", "the message names both shapes");
    size_t ax = 9;
    ASSERT_STATUS(ctx, ra__axis(ctx, "t", -1, 3, &ax), RA_OK, "axis -1 of 3");
    ASSERT_INT(ax, 2, "axis -1 of 3 is 2");
    ASSERT_STATUS(ctx, ra__axis(ctx, "t", 3, 3, &ax), RA_E_AXIS, "axis 3 of 3");
    ra_ctx_destroy(ctx);
}

DT_TEST(staged_on_every_device)
{
    ra_ctx *ctx = open_ctx();
    ra_device devs[16];
    size_t n = list_devices(ctx, devs);
    const int32_t v[3] = {7, -8, 9};
    int64_t shape[1] = {3};
    for (size_t i = 0; i < n; i++) {
        char ds[RA_DEVICE_STR_MAX];
        ra_device_format(devs[i], ds, sizeof ds);
        ra_array *x = NULL, *y = NULL, *other = NULL;
        ASSERT_STATUS(
            ctx,
            ra_asarray_buffer(ctx, v, RA_INT32, shape, 1, RA_OPTS(.device_value = &devs[i]), &x),
            RA_OK, "%s: x", ds);
        const ra_array *xs[1] = {x};
        ra__dev *dev = NULL;
        ra__host h;
        ASSERT_STATUS(ctx, ra__staged_read(ctx, "t", xs, 1, &dev, &h), RA_OK, "%s: read", ds);
        CHECK(h.size == 3 && ra__hgeti(&h, 1) == -8, "%s: the host copy holds x", ds);
        ra__hseti(&h, 1, 42);
        ASSERT_STATUS(ctx, ra__host_finish(ctx, RA_OK, dev, &h, &y), RA_OK, "%s: finish", ds);
        CHECK(ra_device_eq(ra_array_device(y), devs[i]),
              "DEV-DS-10 %s: the result is on x's device", ds);
        int32_t back[3] = {0};
        ASSERT_STATUS(ctx, ra_array_read(ctx, y, back, sizeof back), RA_OK, "%s: read y", ds);
        CHECK(back[0] == 7 && back[1] == 42 && back[2] == 9, "%s: y holds the host result", ds);
        if (n > 1) {
            ra_device od = devs[(i + 1) % n];
            ASSERT_STATUS(
                ctx,
                ra_asarray_buffer(ctx, v, RA_INT32, shape, 1, RA_OPTS(.device_value = &od), &other),
                RA_OK, "%s: other", ds);
            const ra_array *two[2] = {x, other};
            ra__host hs[2];
            ASSERT_STATUS(ctx, ra__staged_read(ctx, "t", two, 2, &dev, hs), RA_E_DEVICE_MISMATCH,
                          "DEV-DS-11 %s: arrays on two devices", ds);
        }
        ra_array_release(x);
        ra_array_release(y);
        ra_array_release(other);
    }
    if (n < 2) skip_part("only one device (cpu): no OpenCL device here", "DEV-DS-11 two devices");
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(element_access), DT_ENTRY(broadcasting), DT_ENTRY(staged_on_every_device))
