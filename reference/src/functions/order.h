/*
 * functions/order.h: the order of elements the searching, sorting and set functions share
 * (order.c), private to refarray.
 *
 * refarray orders the elements of every real dtype by value, with NaN after every number
 * (+infinity included) and all NaNs equal to each other, and -0 equal to +0; complex values
 * by real part, then imaginary part, a value with a NaN part after every value without one
 * (spec/decisions.md, "Reference", NaN ordering). Values of two dtypes compare by value
 * (int64 and uint64 exactly, an integer and a float as doubles).
 */
#ifndef RA_FUNCTIONS_ORDER_H
#define RA_FUNCTIONS_ORDER_H

#include "staged.h"

/* One element as a value of its kind. */
typedef struct ra__val {
    int kind; /* 0 signed integer or bool (i), 1 unsigned (u), 2 real float (re), 3 complex */
    int64_t i;
    uint64_t u;
    double re, im;
} ra__val;

ra__val ra__val_at(const ra__host *h, size_t i);
/* -1, 0 or 1 by the order above. */
int ra__val_cmp(ra__val a, ra__val b);
/* Whether a holds a NaN (either part). */
bool ra__val_isnan(ra__val a);

/* Sorts idx[0..n) stably by cmp(c, idx[a], idx[b]) (a merge sort; RA_E_NOMEM naming fn). */
typedef int (*ra__idx_cmp)(const void *c, size_t a, size_t b);
int ra__sort_idx(ra_ctx *ctx, const char *fn, size_t *idx, size_t n, ra__idx_cmp cmp,
                 const void *c);

/* A host copy of a Python scalar as a 0-d array of dtype (the scalar converted by the
 * context's promotion rules: RA_E_DTYPE, RA_E_SCALAR_RANGE naming fn). */
int ra__host_scalar(ra_ctx *ctx, const char *fn, ra_scalar s, ra_dtype dtype, ra__host *h);

/* The element bytes of a host copy. */
static inline void *ra__hat(const ra__host *h, size_t i)
{
    return (char *)h->data + i * ra_dtype_size(h->dtype);
}

/* dst's element i set to src's element j, converted to dst's dtype (bytes copied when the
 * dtypes are one). */
void ra__hcopy(ra__host *dst, size_t i, const ra__host *src, size_t j);

#endif /* RA_FUNCTIONS_ORDER_H */
