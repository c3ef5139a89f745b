/*
 * functions/linalg.c: the matrix functions of the linalg extension (refarray_fn_linalg.h) on
 * the staged path: x is read to host memory, each matrix of the stack goes through
 * linalg_core.c's algorithms in double complex arithmetic, and the results are written to new
 * arrays on x's device, rounded once to their dtype.
 */
#include "refarray_fn_linalg.h"

#include "linalg_core.h"
#include "staged.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A stack of matrices read to the host: batch matrices of m x n, the leading axes bshape. */
typedef struct mats {
    ra__dev *dev;
    ra__host h;
    size_t batch, m, n, bnd;
    int64_t bshape[RA_MAX_NDIM];
} mats;

static bool is_floating(ra_dtype d)
{
    return ra__dtype_is_float(d) || ra__dtype_is_complex(d);
}

static ra_dtype real_of(ra_dtype d)
{
    return d == RA_COMPLEX64 ? RA_FLOAT32 : d == RA_COMPLEX128 ? RA_FLOAT64 : d;
}

static ra_dtype complex_of(ra_dtype d)
{
    return d == RA_FLOAT64 || d == RA_COMPLEX128 ? RA_COMPLEX128 : RA_COMPLEX64;
}

static double eps_of(ra_dtype d)
{
    return d == RA_FLOAT16 ? 0x1p-10 : real_of(d) == RA_FLOAT32 ? (double)FLT_EPSILON : DBL_EPSILON;
}

static void set_batch(mats *s)
{
    const ra__host *h = &s->h;
    s->m = (size_t)h->shape[h->ndim - 2];
    s->n = (size_t)h->shape[h->ndim - 1];
    s->bnd = h->ndim - 2;
    s->batch = 1;
    for (size_t i = 0; i < s->bnd; i++) {
        s->bshape[i] = h->shape[i];
        s->batch *= (size_t)h->shape[i];
    }
}

/* Checks x: a real or complex floating stack of matrices, square when asked. */
static int check_mats(ra_ctx *ctx, const char *fn, const ra_array *x, bool square)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", fn);
    if (!is_floating(x->dtype))
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: x is %s; a floating dtype is needed", fn,
                             ra_dtype_name(x->dtype));
    if (x->ndim < 2)
        return ra__ctx_error(ctx, RA_E_SHAPE, "%s: x has %zu axes; a matrix needs 2", fn, x->ndim);
    if (square && x->shape[x->ndim - 1] != x->shape[x->ndim - 2])
        return ra__ctx_error(ctx, RA_E_SHAPE, "%s: x's matrices are %lld x %lld, not square", fn,
                             (long long)x->shape[x->ndim - 2], (long long)x->shape[x->ndim - 1]);
    return RA_OK;
}

/* Reads x after check_mats. */
static int read_mats(ra_ctx *ctx, const char *fn, const ra_array *x, bool square, mats *s)
{
    s->h = (ra__host)RA__HOST_INIT;
    int st = check_mats(ctx, fn, x, square);
    if (st == RA_OK) st = ra__staged_read(ctx, fn, &x, 1, &s->dev, &s->h);
    if (st == RA_OK) set_batch(s);
    return st;
}

/* A host result of dtype with the stack's leading axes and then the k extents in ext. */
static int new_result(ra_ctx *ctx, const char *fn, const mats *s, ra_dtype dtype, size_t k,
                      const int64_t *ext, ra__host *out)
{
    int64_t shape[RA_MAX_NDIM + 2];
    memcpy(shape, s->bshape, s->bnd * sizeof *shape);
    for (size_t i = 0; i < k; i++)
        shape[s->bnd + i] = ext[i];
    return ra__host_new(ctx, fn, dtype, s->bnd + k, shape, out);
}

static ra__cplx *work(ra_ctx *ctx, const char *fn, size_t count, int *st)
{
    if (*st != RA_OK) return NULL;
    ra__cplx *p = ra__alloc(ctx, (count ? count : 1) * sizeof *p);
    if (!p) *st = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory for %zu elements", fn, count);
    return p;
}

static void load(const ra__host *h, size_t b, size_t count, ra__cplx *a)
{
    for (size_t i = 0; i < count; i++)
        a[i] = ra__hgetc(h, b * count + i);
}

static void store(ra__host *h, size_t b, size_t count, const ra__cplx *a)
{
    for (size_t i = 0; i < count; i++)
        ra__hsetc(h, b * count + i, a[i]);
}

/* Two results handed out together, or neither. */
static int finish2(ra_ctx *ctx, int st, ra__dev *dev, ra__host *h1, ra_array **o1, ra__host *h2,
                   ra_array **o2)
{
    st = ra__host_finish(ctx, st, dev, h1, o1);
    if (o2)
        st = ra__host_finish(ctx, st, dev, h2, o2);
    else
        ra__host_free(ctx, h2);
    if (st != RA_OK) {
        ra_array_release(*o1);
        *o1 = NULL;
    }
    return st;
}

#define OUT_CHECK(fn, o)                                                                           \
    do {                                                                                           \
        if (!(o)) return ra__ctx_error(ctx, RA_E_NULL, "%s: an out pointer is NULL", fn);          \
        *(o) = NULL;                                                                               \
    } while (0)

int ra_linalg_cholesky(ra_ctx *ctx, const ra_array *x, bool upper, ra_array **out)
{
    static const char fn[] = "linalg.cholesky";
    OUT_CHECK(fn, out);
    mats s;
    ra__host y = RA__HOST_INIT;
    int st = read_mats(ctx, fn, x, true, &s);
    if (st != RA_OK) return st;
    size_t n = s.n, nn = n * n;
    st = new_result(ctx, fn, &s, s.h.dtype, 2, &s.h.shape[s.h.ndim - 2], &y);
    ra__cplx *a = work(ctx, fn, nn, &st), *l = work(ctx, fn, nn, &st);
    for (size_t b = 0; st == RA_OK && b < s.batch; b++) {
        load(&s.h, b, nn, a);
        if (!ra__cholesky(a, n, l)) {
            st = ra__ctx_error(ctx, RA_E_ARG, "%s: matrix %zu is not positive-definite", fn, b);
            break;
        }
        for (size_t i = 0; upper && i < n; i++) /* U = L^H */
            for (size_t j = 0; j < n; j++)
                a[i * n + j] = conj(l[j * n + i]);
        store(&y, b, nn, upper ? a : l);
    }
    ra__free(ctx, a);
    ra__free(ctx, l);
    ra__host_free(ctx, &s.h);
    return ra__host_finish(ctx, st, s.dev, &y, out);
}

/* det (logabs NULL) or slogdet of each matrix. */
static int determinant(ra_ctx *ctx, const char *fn, const ra_array *x, ra_array **o1, ra_array **o2)
{
    OUT_CHECK(fn, o1);
    if (strcmp(fn, "linalg.slogdet") == 0) OUT_CHECK(fn, o2);
    mats s;
    ra__host y1 = RA__HOST_INIT, y2 = RA__HOST_INIT;
    int st = read_mats(ctx, fn, x, true, &s);
    if (st != RA_OK) return st;
    size_t n = s.n, nn = n * n;
    st = new_result(ctx, fn, &s, s.h.dtype, 0, NULL, &y1);
    if (o2 && st == RA_OK) st = new_result(ctx, fn, &s, real_of(s.h.dtype), 0, NULL, &y2);
    ra__cplx *a = work(ctx, fn, nn, &st);
    size_t *piv = st == RA_OK ? ra__alloc(ctx, (n ? n : 1) * sizeof *piv) : NULL;
    if (st == RA_OK && !piv) st = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    for (size_t b = 0; st == RA_OK && b < s.batch; b++) {
        load(&s.h, b, nn, a);
        int sign;
        ra__lu(a, n, piv, &sign);
        ra__cplx det = sign, unit = sign;
        double logabs = 0;
        for (size_t i = 0; i < n; i++) {
            ra__cplx d = a[i * n + i];
            det *= d;
            logabs += log(cabs(d));
            unit = d == 0 ? 0 : unit * (d / cabs(d));
        }
        if (unit == 0) logabs = -INFINITY;
        ra__hsetc(&y1, b, o2 ? unit : det);
        if (o2) ra__hset(&y2, b, logabs);
    }
    ra__free(ctx, a);
    ra__free(ctx, piv);
    ra__host_free(ctx, &s.h);
    return finish2(ctx, st, s.dev, &y1, o1, &y2, o2);
}

int ra_linalg_det(ra_ctx *ctx, const ra_array *x, ra_array **out)
{
    return determinant(ctx, "linalg.det", x, out, NULL);
}

int ra_linalg_slogdet(ra_ctx *ctx, const ra_array *x, ra_array **sign, ra_array **logabsdet)
{
    return determinant(ctx, "linalg.slogdet", x, sign, logabsdet);
}

/* b := a^-1 b (a n x n, b n x k) through LU; false when a is singular. a is overwritten. */
static bool solve_into(ra__cplx *a, size_t n, size_t *piv, ra__cplx *b, size_t k)
{
    int sign;
    if (!ra__lu(a, n, piv, &sign)) return false;
    ra__lu_solve(a, piv, n, b, k);
    return true;
}

static void set_identity(ra__cplx *a, size_t n)
{
    for (size_t i = 0; i < n * n; i++)
        a[i] = i % (n + 1) == 0;
}

int ra_linalg_inv(ra_ctx *ctx, const ra_array *x, ra_array **out)
{
    return ra_linalg_matrix_power(ctx, x, -1, out);
}

/* r := a^p (p >= 0) by repeated squaring; t and u are work of n x n. */
static void power(const ra__cplx *a, size_t n, uint64_t p, ra__cplx *r, ra__cplx *sq, ra__cplx *t)
{
    size_t nn = n * n;
    set_identity(r, n);
    memcpy(sq, a, nn * sizeof *sq);
    while (p) {
        if (p & 1) {
            memset(t, 0, nn * sizeof *t);
            for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < n; k++)
                    for (size_t j = 0; j < n; j++)
                        t[i * n + j] += r[i * n + k] * sq[k * n + j];
            memcpy(r, t, nn * sizeof *t);
        }
        p >>= 1;
        if (!p) break;
        memset(t, 0, nn * sizeof *t);
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < n; k++)
                for (size_t j = 0; j < n; j++)
                    t[i * n + j] += sq[i * n + k] * sq[k * n + j];
        memcpy(sq, t, nn * sizeof *t);
    }
}

int ra_linalg_matrix_power(ra_ctx *ctx, const ra_array *x, int64_t p, ra_array **out)
{
    const char *fn = p == -1 ? "linalg.inv" : "linalg.matrix_power";
    OUT_CHECK(fn, out);
    mats s;
    ra__host y = RA__HOST_INIT;
    int st = read_mats(ctx, fn, x, true, &s);
    if (st != RA_OK) return st;
    size_t n = s.n, nn = n * n;
    st = new_result(ctx, fn, &s, s.h.dtype, 2, &s.h.shape[s.h.ndim - 2], &y);
    ra__cplx *a = work(ctx, fn, nn, &st), *r = work(ctx, fn, nn, &st);
    ra__cplx *sq = work(ctx, fn, nn, &st), *t = work(ctx, fn, nn, &st);
    size_t *piv = st == RA_OK ? ra__alloc(ctx, (n ? n : 1) * sizeof *piv) : NULL;
    if (st == RA_OK && !piv) st = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    for (size_t b = 0; st == RA_OK && b < s.batch; b++) {
        load(&s.h, b, nn, a);
        if (p < 0) {
            set_identity(t, n);
            if (!solve_into(a, n, piv, t, n)) {
                st = ra__ctx_error(ctx, RA_E_ARG, "%s: matrix %zu is singular", fn, b);
                break;
            }
            memcpy(a, t, nn * sizeof *a);
        }
        power(a, n, p < 0 ? (uint64_t)0 - (uint64_t)p : (uint64_t)p, r, sq, t);
        store(&y, b, nn, r);
    }
    ra__free(ctx, a);
    ra__free(ctx, r);
    ra__free(ctx, sq);
    ra__free(ctx, t);
    ra__free(ctx, piv);
    ra__host_free(ctx, &s.h);
    return ra__host_finish(ctx, st, s.dev, &y, out);
}

/* The leading axes of a result of solve: x1's and x2's broadcast (x2 a vector: x1's). */
static int solve_shape(ra_ctx *ctx, const char *fn, const mats *s1, const ra__host *h2, bool vector,
                       size_t *nd, int64_t *shape)
{
    size_t ndims[2] = {s1->bnd, vector ? 0 : h2->ndim - 2};
    const int64_t *shapes[2] = {s1->bshape, h2->shape};
    return ra__broadcast_shapes(ctx, fn, 2, ndims, shapes, nd, shape);
}

int ra_linalg_solve(ra_ctx *ctx, const ra_array *x1, const ra_array *x2, ra_array **out)
{
    static const char fn[] = "linalg.solve";
    OUT_CHECK(fn, out);
    if (!x2) return ra__ctx_error(ctx, RA_E_NULL, "%s: x2 is NULL", fn);
    if (!is_floating(x2->dtype))
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: x2 is %s; a floating dtype is needed", fn,
                             ra_dtype_name(x2->dtype));
    if (x2->ndim < 1) return ra__ctx_error(ctx, RA_E_SHAPE, "%s: x2 is 0-d", fn);
    mats s;
    int st = check_mats(ctx, fn, x1, true);
    if (st != RA_OK) return st;
    ra_dtype dtype;
    st = ra__promote_binary(ctx, fn, ra_operand_array(x1), ra_operand_array(x2), &dtype);
    if (st != RA_OK) return st;
    ra__host hs[2], y = RA__HOST_INIT;
    const ra_array *xs[2] = {x1, x2};
    st = ra__staged_read(ctx, fn, xs, 2, &s.dev, hs);
    if (st != RA_OK) return st;
    s.h = hs[0];
    set_batch(&s);
    ra__host h2 = hs[1];
    bool vector = h2.ndim == 1;
    size_t n = s.n, k = vector ? 1 : (size_t)h2.shape[h2.ndim - 1], nd = 0;
    if (st == RA_OK && h2.shape[vector ? 0 : h2.ndim - 2] != (int64_t)n)
        st = ra__ctx_error(ctx, RA_E_SHAPE, "%s: x1's matrices are %zu x %zu, x2 has %lld rows", fn,
                           n, n, (long long)h2.shape[vector ? 0 : h2.ndim - 2]);
    int64_t shape[RA_MAX_NDIM + 2];
    if (st == RA_OK) st = solve_shape(ctx, fn, &s, &h2, vector, &nd, shape);
    size_t batch = 1;
    for (size_t i = 0; i < nd; i++)
        batch *= (size_t)shape[i];
    shape[nd] = (int64_t)n;
    shape[nd + 1] = (int64_t)k;
    if (st == RA_OK) st = ra__host_new(ctx, fn, dtype, nd + (vector ? 1 : 2), shape, &y);
    ra__cplx *a = work(ctx, fn, n * n, &st), *bm = work(ctx, fn, n * k, &st);
    size_t *piv = st == RA_OK ? ra__alloc(ctx, (n ? n : 1) * sizeof *piv) : NULL;
    if (st == RA_OK && !piv) st = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    for (size_t b = 0; st == RA_OK && b < batch; b++) {
        size_t b1 = ra__broadcast_at(b, nd, shape, s.bnd, s.bshape);
        size_t b2 = vector ? 0 : ra__broadcast_at(b, nd, shape, h2.ndim - 2, h2.shape);
        load(&s.h, b1, n * n, a);
        load(&h2, b2, n * k, bm);
        if (!solve_into(a, n, piv, bm, k)) {
            st = ra__ctx_error(ctx, RA_E_ARG, "%s: matrix %zu of x1 is singular", fn, b1);
            break;
        }
        store(&y, b, n * k, bm);
    }
    ra__free(ctx, a);
    ra__free(ctx, bm);
    ra__free(ctx, piv);
    ra__host_free(ctx, &s.h);
    ra__host_free(ctx, &h2);
    return ra__host_finish(ctx, st, s.dev, &y, out);
}

int ra_linalg_eigh(ra_ctx *ctx, const ra_array *x, ra_array **eigenvalues, ra_array **eigenvectors)
{
    const char *fn = eigenvectors ? "linalg.eigh" : "linalg.eigvalsh";
    OUT_CHECK(fn, eigenvalues);
    if (eigenvectors) *eigenvectors = NULL;
    mats s;
    ra__host w = RA__HOST_INIT, v = RA__HOST_INIT;
    int st = read_mats(ctx, fn, x, true, &s);
    if (st != RA_OK) return st;
    size_t n = s.n, nn = n * n;
    st = new_result(ctx, fn, &s, real_of(s.h.dtype), 1, &s.h.shape[s.h.ndim - 1], &w);
    if (eigenvectors && st == RA_OK)
        st = new_result(ctx, fn, &s, s.h.dtype, 2, &s.h.shape[s.h.ndim - 2], &v);
    ra__cplx *a = work(ctx, fn, nn, &st), *vec = work(ctx, fn, nn, &st);
    double *wd = st == RA_OK ? ra__alloc(ctx, (n ? n : 1) * sizeof *wd) : NULL;
    if (st == RA_OK && !wd) st = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    for (size_t b = 0; st == RA_OK && b < s.batch; b++) {
        load(&s.h, b, nn, a);
        ra__eigh(a, n, wd, eigenvectors ? vec : NULL);
        for (size_t i = 0; i < n; i++)
            ra__hset(&w, b * n + i, wd[i]);
        if (eigenvectors) store(&v, b, nn, vec);
    }
    ra__free(ctx, a);
    ra__free(ctx, vec);
    ra__free(ctx, wd);
    ra__host_free(ctx, &s.h);
    return finish2(ctx, st, s.dev, &w, eigenvalues, &v, eigenvectors);
}

int ra_linalg_eig(ra_ctx *ctx, const ra_array *x, ra_array **eigenvalues, ra_array **eigenvectors)
{
    const char *fn = eigenvectors ? "linalg.eig" : "linalg.eigvals";
    OUT_CHECK(fn, eigenvalues);
    if (eigenvectors) *eigenvectors = NULL;
    mats s;
    ra__host w = RA__HOST_INIT, v = RA__HOST_INIT;
    int st = read_mats(ctx, fn, x, true, &s);
    if (st != RA_OK) return st;
    size_t n = s.n, nn = n * n;
    ra_dtype ct = complex_of(s.h.dtype);
    st = new_result(ctx, fn, &s, ct, 1, &s.h.shape[s.h.ndim - 1], &w);
    if (eigenvectors && st == RA_OK)
        st = new_result(ctx, fn, &s, ct, 2, &s.h.shape[s.h.ndim - 2], &v);
    ra__cplx *a = work(ctx, fn, nn, &st), *vec = work(ctx, fn, nn, &st);
    ra__cplx *wc = work(ctx, fn, n, &st);
    for (size_t b = 0; st == RA_OK && b < s.batch; b++) {
        load(&s.h, b, nn, a);
        int r = ra__eig(ctx, a, n, wc, eigenvectors ? vec : NULL);
        if (r) {
            st = r < 0
                     ? ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn)
                     : ra__ctx_error(ctx, RA_E_ARG,
                                     "%s: the QR iteration did not converge on matrix %zu", fn, b);
            break;
        }
        store(&w, b, n, wc);
        if (eigenvectors) store(&v, b, nn, vec);
    }
    ra__free(ctx, a);
    ra__free(ctx, vec);
    ra__free(ctx, wc);
    ra__host_free(ctx, &s.h);
    return finish2(ctx, st, s.dev, &w, eigenvalues, &v, eigenvectors);
}

int ra_linalg_qr(ra_ctx *ctx, const ra_array *x, bool complete, ra_array **q, ra_array **r)
{
    static const char fn[] = "linalg.qr";
    OUT_CHECK(fn, q);
    OUT_CHECK(fn, r);
    mats s;
    ra__host hq = RA__HOST_INIT, hr = RA__HOST_INIT;
    int st = read_mats(ctx, fn, x, false, &s);
    if (st != RA_OK) return st;
    size_t m = s.m, n = s.n, k = complete || m < n ? m : n;
    int64_t qe[2] = {(int64_t)m, (int64_t)k}, re[2] = {(int64_t)k, (int64_t)n};
    st = new_result(ctx, fn, &s, s.h.dtype, 2, qe, &hq);
    if (st == RA_OK) st = new_result(ctx, fn, &s, s.h.dtype, 2, re, &hr);
    ra__cplx *a = work(ctx, fn, m * n, &st), *qm = work(ctx, fn, m * m, &st);
    ra__cplx *rm = work(ctx, fn, m * n, &st);
    for (size_t b = 0; st == RA_OK && b < s.batch; b++) {
        load(&s.h, b, m * n, a);
        if (!ra__qr(ctx, a, m, n, qm, rm)) {
            st = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
            break;
        }
        for (size_t i = 0; i < m; i++) /* the first k columns of q, rows of r */
            for (size_t j = 0; j < k; j++)
                ra__hsetc(&hq, (b * m + i) * k + j, qm[i * m + j]);
        store(&hr, b, k * n, rm);
    }
    ra__free(ctx, a);
    ra__free(ctx, qm);
    ra__free(ctx, rm);
    ra__host_free(ctx, &s.h);
    return finish2(ctx, st, s.dev, &hq, q, &hr, r);
}

int ra_linalg_svd(ra_ctx *ctx, const ra_array *x, bool full_matrices, ra_array **u, ra_array **s,
                  ra_array **vh)
{
    const char *fn = u ? "linalg.svd" : "linalg.svdvals";
    OUT_CHECK(fn, s);
    if (u) OUT_CHECK(fn, u);
    if (u) OUT_CHECK(fn, vh);
    mats ms;
    ra__host hu = RA__HOST_INIT, hs = RA__HOST_INIT, hv = RA__HOST_INIT;
    int st = read_mats(ctx, fn, x, false, &ms);
    if (st != RA_OK) return st;
    size_t m = ms.m, n = ms.n, k = m < n ? m : n;
    size_t uc = full_matrices ? m : k, vr = full_matrices ? n : k;
    int64_t ue[2] = {(int64_t)m, (int64_t)uc}, se[1] = {(int64_t)k},
            ve[2] = {(int64_t)vr, (int64_t)n};
    st = new_result(ctx, fn, &ms, real_of(ms.h.dtype), 1, se, &hs);
    if (u && st == RA_OK) st = new_result(ctx, fn, &ms, ms.h.dtype, 2, ue, &hu);
    if (u && st == RA_OK) st = new_result(ctx, fn, &ms, ms.h.dtype, 2, ve, &hv);
    ra__cplx *a = work(ctx, fn, m * n, &st), *um = work(ctx, fn, m * uc, &st);
    ra__cplx *vm = work(ctx, fn, vr * n, &st);
    double *sv = st == RA_OK ? ra__alloc(ctx, (k ? k : 1) * sizeof *sv) : NULL;
    if (st == RA_OK && !sv) st = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    for (size_t b = 0; st == RA_OK && b < ms.batch; b++) {
        load(&ms.h, b, m * n, a);
        if (!ra__svd(ctx, a, m, n, sv, u ? um : NULL, u ? vm : NULL, full_matrices)) {
            st = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
            break;
        }
        for (size_t i = 0; i < k; i++)
            ra__hset(&hs, b * k + i, sv[i]);
        if (u) store(&hu, b, m * uc, um);
        if (u) store(&hv, b, vr * n, vm);
    }
    ra__free(ctx, a);
    ra__free(ctx, um);
    ra__free(ctx, vm);
    ra__free(ctx, sv);
    ra__host_free(ctx, &ms.h);
    if (!u) return finish2(ctx, st, ms.dev, &hs, s, &hu, NULL);
    st = finish2(ctx, st, ms.dev, &hu, u, &hs, s);
    st = ra__host_finish(ctx, st, ms.dev, &hv, vh);
    if (st != RA_OK && *u) {
        ra_array_release(*u);
        ra_array_release(*s);
        *u = *s = NULL;
    }
    return st;
}

/* The functions of each matrix's singular values: matrix_norm, matrix_rank, pinv. */
typedef enum sv_fn { SV_NORM, SV_RANK, SV_PINV } sv_fn;

static double norm_of(ra_matrix_norm ord, const ra__cplx *a, size_t m, size_t n, const double *sv,
                      size_t k)
{
    double r = 0;
    switch (ord) {
    case RA_NORM_FRO:
        for (size_t i = 0; i < m * n; i++)
            r += creal(a[i]) * creal(a[i]) + cimag(a[i]) * cimag(a[i]);
        return sqrt(r);
    case RA_NORM_NUC:
        for (size_t i = 0; i < k; i++)
            r += sv[i];
        return r;
    case RA_NORM_2:
        return k ? sv[0] : 0;
    case RA_NORM_MINUS_2:
        return k ? sv[k - 1] : 0;
    default:
        break;
    }
    bool cols = ord == RA_NORM_1 || ord == RA_NORM_MINUS_1,
         largest = ord == RA_NORM_1 || ord == RA_NORM_INF;
    size_t outer = cols ? n : m, inner = cols ? m : n;
    r = largest ? 0 : INFINITY;
    for (size_t o = 0; o < outer; o++) {
        double sum = 0;
        for (size_t i = 0; i < inner; i++)
            sum += cabs(cols ? a[i * n + o] : a[o * n + i]);
        r = largest ? fmax(r, sum) : fmin(r, sum);
    }
    return outer ? r : 0;
}

/* One matrix's pseudo-inverse into p (n x m) from its svd (u m x k, vh k x n). */
static void pinv_of(const ra__cplx *u, const double *sv, const ra__cplx *vh, size_t m, size_t n,
                    size_t k, double cut, ra__cplx *p)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++) {
            ra__cplx sum = 0;
            for (size_t l = 0; l < k; l++)
                if (sv[l] > cut) sum += conj(vh[l * n + i]) * conj(u[j * k + l]) / sv[l];
            p[i * m + j] = sum;
        }
}

/* The cut-off of each matrix of singular_run: rtol times its largest singular value, rtol one
 * for every matrix (`one`; NULL: the default), or, for an array rtol, tols[b] for result
 * matrix b, which reads x's matrix xat[b] (the batch broadcast against rtol's shape). */
typedef struct cutoff {
    const double *one;
    const double *tols;
    const size_t *xat;
} cutoff;

/* matrix_norm, matrix_rank or pinv of each matrix of s (read, its batch the result's), then
 * s's host copy freed. */
static int singular_run(ra_ctx *ctx, const char *fn, sv_fn what, mats *s, bool keepdims,
                        ra_matrix_norm ord, const cutoff *c, ra_array **out)
{
    ra__host y = RA__HOST_INIT;
    size_t m = s->m, n = s->n, k = m < n ? m : n;
    bool vectors = what == SV_PINV;
    int64_t ones[2] = {1, 1}, pe[2] = {(int64_t)n, (int64_t)m};
    ra_dtype dt = what == SV_RANK ? RA_INT64 : what == SV_NORM ? real_of(s->h.dtype) : s->h.dtype;
    int st = new_result(ctx, fn, s, dt, vectors ? 2 : keepdims ? 2 : 0, vectors ? pe : ones, &y);
    ra__cplx *a = work(ctx, fn, m * n, &st), *um = work(ctx, fn, m * k, &st);
    ra__cplx *vm = work(ctx, fn, k * n, &st), *p = work(ctx, fn, m * n, &st);
    double *sv = st == RA_OK ? ra__alloc(ctx, (k ? k : 1) * sizeof *sv) : NULL;
    if (st == RA_OK && !sv) st = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    double tol = c->one ? *c->one : (double)(m > n ? m : n) * eps_of(s->h.dtype);
    bool need_sv =
        what != SV_NORM || ord == RA_NORM_NUC || ord == RA_NORM_2 || ord == RA_NORM_MINUS_2;
    for (size_t b = 0; st == RA_OK && b < s->batch; b++) {
        load(&s->h, c->xat ? c->xat[b] : b, m * n, a);
        if (need_sv &&
            !ra__svd(ctx, a, m, n, sv, vectors ? um : NULL, vectors ? vm : NULL, false)) {
            st = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
            break;
        }
        double cut = k ? (c->tols ? c->tols[b] : tol) * sv[0] : 0;
        if (what == SV_NORM) ra__hset(&y, b, norm_of(ord, a, m, n, sv, k));
        if (what == SV_RANK) {
            int64_t rank = 0;
            for (size_t i = 0; i < k; i++)
                rank += sv[i] > cut;
            ra__hseti(&y, b, rank);
        }
        if (what == SV_PINV) {
            pinv_of(um, sv, vm, m, n, k, cut, p);
            store(&y, b, m * n, p);
        }
    }
    ra__free(ctx, a);
    ra__free(ctx, um);
    ra__free(ctx, vm);
    ra__free(ctx, p);
    ra__free(ctx, sv);
    ra__host_free(ctx, &s->h);
    return ra__host_finish(ctx, st, s->dev, &y, out);
}

static int singular(ra_ctx *ctx, const char *fn, sv_fn what, const ra_array *x, bool keepdims,
                    ra_matrix_norm ord, const double *rtol, ra_array **out)
{
    OUT_CHECK(fn, out);
    if (rtol && !(*rtol >= 0))
        return ra__ctx_error(ctx, RA_E_ARG, "%s: rtol is %g; it must be >= 0", fn, *rtol);
    if (what == SV_NORM && ((int)ord < RA_NORM_FRO || ord > RA_NORM_MINUS_INF))
        return ra__ctx_error(ctx, RA_E_ARG, "%s: unknown ord %d", fn, (int)ord);
    mats s;
    int st = read_mats(ctx, fn, x, false, &s);
    if (st != RA_OK) return st;
    const cutoff c = {rtol, NULL, NULL};
    return singular_run(ctx, fn, what, &s, keepdims, ord, &c, out);
}

/* Checks an array rtol before anything is read: not NULL, of a real floating dtype. */
static int check_rtol(ra_ctx *ctx, const char *fn, const ra_array *rtol)
{
    if (!rtol) return ra__ctx_error(ctx, RA_E_NULL, "%s: rtol is NULL", fn);
    if (!ra__dtype_is_float(rtol->dtype))
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: rtol is %s; a real floating dtype is needed", fn,
                             ra_dtype_name(rtol->dtype));
    return RA_OK;
}

/* The result's batch: s's batch shape broadcast against rtol's shape (r), and for each result
 * matrix its rtol (checked >= 0, naming the first element that is not) and x's matrix. */
static int rtol_batch(ra_ctx *ctx, const char *fn, mats *s, const ra__host *r, double **tols,
                      size_t **xat)
{
    for (size_t i = 0; i < r->size; i++)
        if (!(ra__hget(r, i) >= 0))
            return ra__ctx_error(ctx, RA_E_ARG, "%s: rtol's element %zu is %g; it must be >= 0", fn,
                                 i, ra__hget(r, i));
    char what[96];
    snprintf(what, sizeof what, "%s: x's batch shape and rtol's shape", fn);
    const size_t nds[2] = {s->bnd, r->ndim};
    const int64_t *shapes[2] = {s->bshape, r->shape};
    int64_t shape[RA_MAX_NDIM];
    size_t nd = 0, batch = 1;
    int st = ra__broadcast_shapes(ctx, what, 2, nds, shapes, &nd, shape);
    for (size_t d = 0; st == RA_OK && d < nd; d++)
        batch *= (size_t)shape[d];
    *tols = st == RA_OK ? ra__alloc(ctx, (batch ? batch : 1) * sizeof **tols) : NULL;
    *xat = *tols ? ra__alloc(ctx, (batch ? batch : 1) * sizeof **xat) : NULL;
    if (st == RA_OK && !*xat) return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    for (size_t b = 0; st == RA_OK && b < batch; b++) {
        (*tols)[b] = ra__hget(r, ra__broadcast_at(b, nd, shape, r->ndim, r->shape));
        (*xat)[b] = ra__broadcast_at(b, nd, shape, s->bnd, s->bshape);
    }
    if (st == RA_OK) {
        memcpy(s->bshape, shape, nd * sizeof *shape);
        s->bnd = nd;
        s->batch = batch;
    }
    return st;
}

/* matrix_rank or pinv with an array rtol: x and rtol read together (one device, DEV-DS-11),
 * the batch broadcast against rtol's shape. */
static int singular_rtols(ra_ctx *ctx, const char *fn, sv_fn what, const ra_array *x,
                          const ra_array *rtol, ra_array **out)
{
    OUT_CHECK(fn, out);
    int st = check_mats(ctx, fn, x, false);
    if (st == RA_OK) st = check_rtol(ctx, fn, rtol);
    if (st != RA_OK) return st;
    mats s;
    ra__host hs[2] = {RA__HOST_INIT, RA__HOST_INIT};
    const ra_array *xs[2] = {x, rtol};
    st = ra__staged_read(ctx, fn, xs, 2, &s.dev, hs);
    if (st != RA_OK) return st;
    s.h = hs[0];
    set_batch(&s);
    double *tols = NULL;
    size_t *xat = NULL;
    st = rtol_batch(ctx, fn, &s, &hs[1], &tols, &xat);
    ra__host_free(ctx, &hs[1]);
    if (st == RA_OK) {
        const cutoff c = {NULL, tols, xat};
        st = singular_run(ctx, fn, what, &s, false, RA_NORM_FRO, &c, out);
    } else {
        ra__host_free(ctx, &s.h);
    }
    ra__free(ctx, tols);
    ra__free(ctx, xat);
    return st;
}

int ra_linalg_matrix_norm(ra_ctx *ctx, const ra_array *x, bool keepdims, ra_matrix_norm ord,
                          ra_array **out)
{
    return singular(ctx, "linalg.matrix_norm", SV_NORM, x, keepdims, ord, NULL, out);
}

int ra_linalg_matrix_rank(ra_ctx *ctx, const ra_array *x, const double *rtol, ra_array **out)
{
    return singular(ctx, "linalg.matrix_rank", SV_RANK, x, false, RA_NORM_FRO, rtol, out);
}

int ra_linalg_pinv(ra_ctx *ctx, const ra_array *x, const double *rtol, ra_array **out)
{
    return singular(ctx, "linalg.pinv", SV_PINV, x, false, RA_NORM_FRO, rtol, out);
}

int ra_linalg_matrix_rank_rtols(ra_ctx *ctx, const ra_array *x, const ra_array *rtol,
                                ra_array **out)
{
    return singular_rtols(ctx, "linalg.matrix_rank", SV_RANK, x, rtol, out);
}

int ra_linalg_pinv_rtols(ra_ctx *ctx, const ra_array *x, const ra_array *rtol, ra_array **out)
{
    return singular_rtols(ctx, "linalg.pinv", SV_PINV, x, rtol, out);
}
