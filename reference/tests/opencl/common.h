/*
 * common.h: helpers shared by the OpenCL backend's tests (header-only): typed test data for
 * every dtype, byte-exact comparison that treats NaN as equal to NaN, and device lookup.
 */
#ifndef RA_OPENCL_TEST_COMMON_H
#define RA_OPENCL_TEST_COMMON_H

#include "refarray.h"
#include "../ra_test.h"

#include <complex.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const ra_dtype all_dtypes[] = {RA_BOOL,    RA_INT8,      RA_INT16,     RA_INT32,  RA_INT64,
                                      RA_UINT8,   RA_UINT16,    RA_UINT32,    RA_UINT64, RA_FLOAT32,
                                      RA_FLOAT64, RA_COMPLEX64, RA_COMPLEX128};
#define N_DTYPES (sizeof all_dtypes / sizeof all_dtypes[0])

static inline bool is_float_kind(ra_dtype t)
{
    return t == RA_FLOAT32 || t == RA_FLOAT64 || t == RA_COMPLEX64 || t == RA_COMPLEX128;
}

/* Stores value re (+ im j) as one element of dtype t at p, with C's conversions. */
static inline void put_elem(ra_dtype t, void *p, double re, double im)
{
    switch (t) {
    case RA_BOOL:
        *(bool *)p = re != 0;
        break;
    case RA_INT8:
        *(int8_t *)p = (int8_t)re;
        break;
    case RA_INT16:
        *(int16_t *)p = (int16_t)re;
        break;
    case RA_INT32:
        *(int32_t *)p = (int32_t)re;
        break;
    case RA_INT64:
        *(int64_t *)p = (int64_t)re;
        break;
    case RA_UINT8:
        *(uint8_t *)p = (uint8_t)re;
        break;
    case RA_UINT16:
        *(uint16_t *)p = (uint16_t)re;
        break;
    case RA_UINT32:
        *(uint32_t *)p = (uint32_t)re;
        break;
    case RA_UINT64:
        *(uint64_t *)p = (uint64_t)re;
        break;
    case RA_FLOAT32:
        *(float *)p = (float)re;
        break;
    case RA_FLOAT64:
        *(double *)p = re;
        break;
    case RA_COMPLEX64:
        ((float *)p)[0] = (float)re;
        ((float *)p)[1] = (float)im;
        break;
    case RA_COMPLEX128:
        ((double *)p)[0] = re;
        ((double *)p)[1] = im;
        break;
    default:
        break;
    }
}

/* Equality of two elements: bytes, except that any NaN equals any NaN (the payload of a NaN
 * is not specified by any standard refarray follows). -0.0 and 0.0 differ. */
static inline bool elem_eq(ra_dtype t, const void *a, const void *b)
{
    if (t == RA_FLOAT32 || t == RA_COMPLEX64) {
        int n = t == RA_FLOAT32 ? 1 : 2;
        for (int i = 0; i < n; i++) {
            float x, y;
            memcpy(&x, (const float *)a + i, sizeof x);
            memcpy(&y, (const float *)b + i, sizeof y);
            if (!(isnan(x) && isnan(y)) && memcmp(&x, &y, sizeof x) != 0) return false;
        }
        return true;
    }
    if (t == RA_FLOAT64 || t == RA_COMPLEX128) {
        int n = t == RA_FLOAT64 ? 1 : 2;
        for (int i = 0; i < n; i++) {
            double x, y;
            memcpy(&x, (const double *)a + i, sizeof x);
            memcpy(&y, (const double *)b + i, sizeof y);
            if (!(isnan(x) && isnan(y)) && memcmp(&x, &y, sizeof x) != 0) return false;
        }
        return true;
    }
    return memcmp(a, b, ra_dtype_size(t)) == 0;
}

/* Prints one element for a diagnostic. */
static inline void print_elem(ra_dtype t, const void *p)
{
    switch (t) {
    case RA_BOOL:
        printf("%d", *(const bool *)p);
        break;
    case RA_INT8:
        printf("%d", *(const int8_t *)p);
        break;
    case RA_INT16:
        printf("%d", *(const int16_t *)p);
        break;
    case RA_INT32:
        printf("%d", *(const int32_t *)p);
        break;
    case RA_INT64:
        printf("%lld", (long long)*(const int64_t *)p);
        break;
    case RA_UINT8:
        printf("%u", *(const uint8_t *)p);
        break;
    case RA_UINT16:
        printf("%u", *(const uint16_t *)p);
        break;
    case RA_UINT32:
        printf("%u", *(const uint32_t *)p);
        break;
    case RA_UINT64:
        printf("%llu", (unsigned long long)*(const uint64_t *)p);
        break;
    case RA_FLOAT32:
        printf("%.9g", *(const float *)p);
        break;
    case RA_FLOAT64:
        printf("%.17g", *(const double *)p);
        break;
    case RA_COMPLEX64:
        printf("%.9g%+.9gj", ((const float *)p)[0], ((const float *)p)[1]);
        break;
    case RA_COMPLEX128:
        printf("%.17g%+.17gj", ((const double *)p)[0], ((const double *)p)[1]);
        break;
    default:
        printf("?");
        break;
    }
}

/* Reads x to a fresh malloc'd host buffer (NULL on failure; empty arrays give a 1-byte
 * buffer). */
static inline void *read_all(ra_ctx *ctx, const ra_array *x)
{
    size_t n = ra_array_nbytes(x);
    void *buf = malloc(n ? n : 1);
    if (buf && ra_array_read(ctx, x, buf, n) != RA_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Whether two arrays have the same dtype, shape and element values (NaN == NaN). On a
 * difference, prints the first one as a TAP diagnostic. */
static inline bool same_values(ra_ctx *ctx, const ra_array *want, const ra_array *got)
{
    if (ra_array_dtype(want) != ra_array_dtype(got)) {
        printf("#   dtype: expected %s, observed %s\n", ra_dtype_name(ra_array_dtype(want)),
               ra_dtype_name(ra_array_dtype(got)));
        return false;
    }
    if (ra_array_ndim(want) != ra_array_ndim(got) ||
        (ra_array_ndim(want) && memcmp(ra_array_shape(want), ra_array_shape(got),
                                       ra_array_ndim(want) * sizeof(int64_t)) != 0)) {
        printf("#   shapes differ (ndim %zu vs %zu)\n", ra_array_ndim(want), ra_array_ndim(got));
        return false;
    }
    ra_dtype t = ra_array_dtype(want);
    size_t es = ra_dtype_size(t);
    unsigned char *a = read_all(ctx, want), *b = read_all(ctx, got);
    bool ok = a && b;
    if (!ok) printf("#   reading the arrays failed: %s\n", ra_ctx_message(ctx));
    for (int64_t i = 0; ok && i < ra_array_size(want); i++) {
        if (!elem_eq(t, a + i * es, b + i * es)) {
            printf("#   element %lld: expected ", (long long)i);
            print_elem(t, a + i * es);
            printf(", observed ");
            print_elem(t, b + i * es);
            printf("\n");
            ok = false;
        }
    }
    free(a);
    free(b);
    return ok;
}

/* The gpu devices of ctx, in order; returns how many (at most cap). */
static inline size_t gpu_devices(ra_ctx *ctx, ra_device *out, size_t cap)
{
    ra_device all[64];
    size_t count = 0, n = 0;
    if (ra_info_devices(ctx, all, 64, &count) != RA_OK) return 0;
    for (size_t i = 0; i < count && i < 64; i++)
        if (all[i].type == RA_DEVICE_GPU && n < cap) out[n++] = all[i];
    return n;
}

#endif /* RA_OPENCL_TEST_COMMON_H */
