/* Python int scalars over the whole range some dtype holds: int64 and [2^63, 2^64)
 * (ra_scalar's u). A value in [2^63, 2^64) goes with uint64 exactly and with floating dtypes
 * rounded once; with any other integer dtype it is out of range (API-PROM-3). Expected
 * values are computed here in uint64 and double arithmetic. */
#include "ra_test.h"

#include <math.h>
#include <stddef.h>

static const uint64_t TWO63 = UINT64_C(1) << 63;

static ra_operand S(uint64_t v)
{
    return ra_operand_scalar(ra_scalar_uint(v));
}

/* x + scalar and scalar - x on a uint64 array, read back exactly. */
static void with_uint64(ra_ctx *ctx, ra_device dev, const char *ds)
{
    int64_t s2[1] = {2};
    uint64_t v[2] = {2, 3}, got[2] = {0, 0};
    ra_array *x = NULL, *y = NULL;
    ASSERT_STATUS(ctx,
                  ra_asarray_buffer(ctx, v, RA_UINT64, s2, 1, &(ra_opts){.device_value = &dev}, &x),
                  RA_OK, "%s: a uint64 array", ds);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(x), S(TWO63), &y), RA_OK,
                  "API-PROM-3 %s: uint64 + 2^63", ds);
    ASSERT_INT(ra_array_dtype(y), RA_UINT64, "%s: uint64 + 2^63 is uint64", ds);
    ASSERT_STATUS(ctx, ra_array_read(ctx, y, got, sizeof got), RA_OK, "%s: read", ds);
    CHECK(got[0] == TWO63 + v[0] && got[1] == TWO63 + v[1],
          "%s: uint64 [2, 3] + 2^63 is [2^63 + 2, 2^63 + 3] exactly (observed %llu, %llu)", ds,
          (unsigned long long)got[0], (unsigned long long)got[1]);
    ra_array_release(y);
    y = NULL;
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_SUBTRACT, S(TWO63), ra_operand_array(x), &y), RA_OK,
                  "%s: 2^63 - uint64", ds);
    ASSERT_STATUS(ctx, ra_array_read(ctx, y, got, sizeof got), RA_OK, "%s: read", ds);
    CHECK(got[0] == TWO63 - v[0] && got[1] == TWO63 - v[1],
          "%s: 2^63 - [2, 3] is [2^63 - 2, 2^63 - 3] (observed %llu, %llu)", ds,
          (unsigned long long)got[0], (unsigned long long)got[1]);
    ra_array_release(y);
    y = NULL;
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_EQUAL, ra_operand_array(x), S(UINT64_MAX), &y), RA_OK,
                  "%s: uint64 == 2^64 - 1", ds);
    bool eq[2] = {true, true};
    ASSERT_STATUS(ctx, ra_array_read(ctx, y, eq, sizeof eq), RA_OK, "%s: read", ds);
    CHECK(!eq[0] && !eq[1], "%s: [2, 3] == 2^64 - 1 is [false, false]", ds);
    ra_array_release(y);
    y = NULL;
    ra_array_release(x);

    /* full with 2^64 - 1 as a uint64 fill value; refused for int64 and by default (int64). */
    ASSERT_STATUS(ctx,
                  ra_full(ctx, s2, 1, ra_scalar_uint(UINT64_MAX),
                          &(ra_opts){.dtype = RA_UINT64, .device_value = &dev}, &y),
                  RA_OK, "%s: full(2^64 - 1, uint64)", ds);
    ASSERT_STATUS(ctx, ra_array_read(ctx, y, got, sizeof got), RA_OK, "%s: read", ds);
    CHECK(got[0] == UINT64_MAX && got[1] == UINT64_MAX, "%s: full holds 2^64 - 1 (observed %llu)",
          ds, (unsigned long long)got[0]);
    ra_array_release(y);
    y = NULL;
    ASSERT_STATUS(
        ctx, ra_full(ctx, s2, 1, ra_scalar_uint(TWO63), &(ra_opts){.device_value = &dev}, &y),
        RA_E_SCALAR_RANGE, "%s: full(2^63) by default is int64, which cannot hold it", ds);
}

static void with_others(ra_ctx *ctx, ra_device dev, const char *ds)
{
    ra_device_props props = RA_DEVICE_PROPS_INIT;
    ra_device_props_get(ctx, dev, &props);
    int64_t s2[1] = {2};
    double v[2] = {2, 3};
    ra_array *x = NULL, *y = NULL;
    /* Every integer dtype but uint64 is out of range for 2^63 and for 2^64 - 1. */
    const ra_dtype narrow[] = {RA_INT8,  RA_INT16,  RA_INT32, RA_INT64,
                               RA_UINT8, RA_UINT16, RA_UINT32};
    for (size_t k = 0; k < sizeof narrow / sizeof narrow[0]; k++) {
        ASSERT_STATUS(ctx,
                      ra_asarray_buffer(ctx, v, RA_FLOAT64, s2, 1,
                                        &(ra_opts){.dtype = narrow[k], .device_value = &dev}, &x),
                      RA_OK, "%s: a %s array", ds, ra_dtype_name(narrow[k]));
        ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(x), S(TWO63), &y),
                      RA_E_SCALAR_RANGE, "%s: %s + 2^63 is out of range", ds,
                      ra_dtype_name(narrow[k]));
        ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, S(UINT64_MAX), ra_operand_array(x), &y),
                      RA_E_SCALAR_RANGE, "%s: 2^64 - 1 + %s is out of range", ds,
                      ra_dtype_name(narrow[k]));
        CHECK(strstr(ra_ctx_message(ctx), "18446744073709551615") != NULL,
              "%s: the message names the value (observed: %s)", ds, ra_ctx_message(ctx));
        ra_array_release(x);
        x = NULL;
    }
    /* Floating dtypes: the int rounded once to the dtype, then the sum rounded. */
    const ra_dtype floats[] = {RA_FLOAT32, RA_FLOAT64};
    for (size_t k = 0; k < 2; k++) {
        if (floats[k] == RA_FLOAT64 && !props.has_float64) continue;
        ASSERT_STATUS(ctx,
                      ra_asarray_buffer(ctx, v, RA_FLOAT64, s2, 1,
                                        &(ra_opts){.dtype = floats[k], .device_value = &dev}, &x),
                      RA_OK, "%s: a %s array", ds, ra_dtype_name(floats[k]));
        ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(x), S(TWO63 + 3), &y), RA_OK,
                      "API-PROM-3 %s: %s + (2^63 + 3)", ds, ra_dtype_name(floats[k]));
        ASSERT_INT(ra_array_dtype(y), floats[k], "%s: the scalar takes the array's dtype", ds);
        if (floats[k] == RA_FLOAT64) {
            double got[2], big = (double)(TWO63 + 3); /* 2^63: the spacing there is 2048 */
            ASSERT_STATUS(ctx, ra_array_read(ctx, y, got, sizeof got), RA_OK, "%s: read", ds);
            CHECK(got[0] == big + v[0] && got[1] == big + v[1],
                  "%s: float64 [2, 3] + (2^63 + 3) is [%.17g, %.17g] (observed %.17g, %.17g)", ds,
                  big + v[0], big + v[1], got[0], got[1]);
        } else {
            float got[2], big = (float)(TWO63 + 3);
            ASSERT_STATUS(ctx, ra_array_read(ctx, y, got, sizeof got), RA_OK, "%s: read", ds);
            CHECK(got[0] == big + (float)v[0] && got[1] == big + (float)v[1],
                  "%s: float32 [2, 3] + (2^63 + 3) is 2^63 (observed %.9g, %.9g)", ds,
                  (double)got[0], (double)got[1]);
        }
        ra_array_release(y);
        y = NULL;
        ra_array_release(x);
        x = NULL;
    }
}

static void on_device(ra_ctx *ctx, ra_device dev)
{
    char ds[RA_DEVICE_STR_MAX];
    dev_str(dev, ds);
    dt_diag("device %s", ds);
    with_uint64(ctx, dev, ds);
    with_others(ctx, dev, ds);
}

DT_TEST(on_every_device)
{
    on_each_device(on_device);
}

DT_TEST(constructor_and_layout)
{
    ra_scalar s = ra_scalar_uint(5);
    CHECK(s.kind == RA_SCALAR_INT && !s.u && s.i == 5, "ra_scalar_uint(5) is the int64 5");
    s = ra_scalar_uint((uint64_t)INT64_MAX);
    CHECK(!s.u && s.i == INT64_MAX, "ra_scalar_uint(2^63 - 1) is an int64");
    s = ra_scalar_uint(TWO63);
    CHECK(s.u && (uint64_t)s.i == TWO63, "ra_scalar_uint(2^63) sets u");
    CHECK(!ra_scalar_int(-1).u, "ra_scalar_int never sets u");
    /* u sits in b's padding: the struct is the size it was, its members where they were. */
    CHECK(sizeof(ra_scalar) == 32 && offsetof(ra_scalar, i) == 8 && offsetof(ra_scalar, re) == 16 &&
              offsetof(ra_scalar, im) == 24,
          "ra_scalar keeps its size (observed %zu) and offsets", sizeof(ra_scalar));
}

DT_TEST(refused)
{
    ra_ctx *ctx = open_ctx();
    int64_t s2[1] = {2};
    ra_array *x = NULL, *y = NULL;
    ASSERT_STATUS(ctx, ra_zeros(ctx, s2, 1, &(ra_opts){.dtype = RA_UINT64}, &x), RA_OK, "zeros");
    /* u set on a value below 2^63 is no Python int the struct can mean. */
    ra_scalar bad = ra_scalar_int(7);
    bad.u = true;
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(x), ra_operand_scalar(bad), &y),
                  RA_E_ARG, "u with a value below 2^63 is refused");
    /* Ranges are computed in int64. */
    ASSERT_STATUS(ctx, ra_arange(ctx, ra_scalar_uint(TWO63), NULL, NULL, NULL, &y),
                  RA_E_SCALAR_RANGE, "arange(2^63) is out of int64");
    ra_scalar stop = ra_scalar_uint(TWO63 + 10);
    ASSERT_STATUS(
        ctx, ra_arange(ctx, ra_scalar_uint(TWO63), &stop, NULL, &(ra_opts){.dtype = RA_UINT64}, &y),
        RA_E_SCALAR_RANGE, "arange(2^63, 2^63 + 10, dtype=uint64) is out of int64");
    /* asarray of 2^63: the default dtype is int64. */
    ASSERT_STATUS(ctx, ra_asarray_scalar(ctx, ra_scalar_uint(TWO63), NULL, &y), RA_E_SCALAR_RANGE,
                  "asarray(2^63) by default is int64, which cannot hold it");
    ASSERT_STATUS(ctx,
                  ra_asarray_scalar(ctx, ra_scalar_uint(TWO63), &(ra_opts){.dtype = RA_UINT64}, &y),
                  RA_OK, "asarray(2^63, dtype=uint64)");
    uint64_t got = 0;
    ASSERT_STATUS(ctx, ra_array_read(ctx, y, &got, sizeof got), RA_OK, "read");
    CHECK(got == TWO63, "asarray(2^63, dtype=uint64) holds 2^63 (observed %llu)",
          (unsigned long long)got);
    ra_array_release(y);
    ra_array_release(x);
    /* The functions of two floating operands: copysign(f, 2^63) is |f| (2^63 read as an
     * int64 would be -2^63, giving -|f|). */
    double fv[2] = {1, -2}, fgot[2] = {0, 0};
    ASSERT_STATUS(ctx, ra_asarray_buffer(ctx, fv, RA_FLOAT64, s2, 1, NULL, &x), RA_OK, "f");
    ASSERT_STATUS(ctx, ra_math_binary(ctx, RA_MATH2_COPYSIGN, ra_operand_array(x), S(TWO63), &y),
                  RA_OK, "copysign(f, 2^63)");
    ASSERT_STATUS(ctx, ra_array_read(ctx, y, fgot, sizeof fgot), RA_OK, "read");
    CHECK(fgot[0] == fabs(fv[0]) && fgot[1] == fabs(fv[1]),
          "copysign([1, -2], 2^63) is [1, 2] (observed %g, %g)", fgot[0], fgot[1]);
    ra_array_release(y);
    ra_array_release(x);
    ra_ctx_destroy(ctx);
}
DT_MAIN(DT_ENTRY(on_every_device), DT_ENTRY(constructor_and_layout), DT_ENTRY(refused))
