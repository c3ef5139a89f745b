/* Tests of the linalg and fft functions (refarray_fn_linalg.h) on every device the context
 * lists: each result against a computation of its own, never against refarray's answer:
 * reconstructions (L L^H = A, Q R = A, U diag(S) Vh = A, A V = V diag(w), A inv(A) = I,
 * A x = b), small examples derived by hand in the comments, and the discrete Fourier
 * transform's definition summed here with libm's cexp. Every result on the input's device
 * (DEV-DS-10), two devices refused (DEV-DS-11), and the errors the header lists. */
#include "ra_test.h"

#include "refarray_fn_linalg.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef double complex cplx;

#define PI 3.14159265358979323846
#define SQRT1_2 0.70710678118654752440

static ra_ctx *ctx;
static ra_device dev;
static char ds[RA_DEVICE_STR_MAX];

/* An array of dtype and shape on dev from n values (im NULL: real). */
static ra_array *mk(ra_dtype dt, size_t nd, const int64_t *shape, const double *re,
                    const double *im)
{
    size_t n = 1;
    for (size_t i = 0; i < nd; i++)
        n *= (size_t)shape[i];
    unsigned char buf[8 * 2 * 64];
    for (size_t i = 0; i < n; i++) {
        double r = re[i], j = im ? im[i] : 0;
        switch (dt) {
        case RA_FLOAT32:
            ((float *)buf)[i] = (float)r;
            break;
        case RA_FLOAT64:
            ((double *)buf)[i] = r;
            break;
        case RA_COMPLEX64:
            ((float *)buf)[2 * i] = (float)r;
            ((float *)buf)[2 * i + 1] = (float)j;
            break;
        case RA_COMPLEX128:
            ((double *)buf)[2 * i] = r;
            ((double *)buf)[2 * i + 1] = j;
            break;
        case RA_INT32:
            ((int32_t *)buf)[i] = (int32_t)r;
            break;
        case RA_INT64:
            ((int64_t *)buf)[i] = (int64_t)r;
            break;
        case RA_BOOL:
            buf[i] = r != 0;
            break;
        default:
            dt_fail(__FILE__, __LINE__, "mk: dtype %s", ra_dtype_name(dt));
        }
    }
    ra_array *x = NULL;
    ASSERT_STATUS(ctx,
                  ra_asarray_buffer(ctx, buf, dt, shape, nd, RA_OPTS(.device_value = &dev), &x),
                  RA_OK, "%s: an input of %zu values", ds, n);
    return x;
}

static ra_array *mat(size_t m, size_t n, const double *v)
{
    int64_t shape[2] = {(int64_t)m, (int64_t)n};
    return mk(RA_FLOAT64, 2, shape, v, NULL);
}

/* y's values as complex numbers (at most 256), after checking its device and dtype. */
static size_t rd(ra_array *y, ra_dtype want, cplx *out)
{
    CHECK(y != NULL, "%s: a result", ds);
    CHECK(ra_device_eq(ra_array_device(y), dev),
          "DEV-DS-10 %s: the result is on the input's device", ds);
    ASSERT_STR(ra_dtype_name(ra_array_dtype(y)), ra_dtype_name(want), "%s: the result's dtype", ds);
    size_t nb = ra_array_nbytes(y), item = ra_dtype_size(want), n = nb / item;
    unsigned char buf[16 * 256];
    CHECK(nb <= sizeof buf, "%s: a small result", ds);
    ASSERT_STATUS(ctx, ra_array_read(ctx, y, buf, nb), RA_OK, "%s: read", ds);
    for (size_t i = 0; i < n; i++) {
        switch (want) {
        case RA_FLOAT32:
            out[i] = ((float *)buf)[i];
            break;
        case RA_FLOAT64:
            out[i] = ((double *)buf)[i];
            break;
        case RA_COMPLEX64:
            out[i] = CMPLX(((float *)buf)[2 * i], ((float *)buf)[2 * i + 1]);
            break;
        case RA_COMPLEX128:
            out[i] = CMPLX(((double *)buf)[2 * i], ((double *)buf)[2 * i + 1]);
            break;
        case RA_INT32:
            out[i] = ((int32_t *)buf)[i];
            break;
        case RA_INT64:
            out[i] = (double)((int64_t *)buf)[i];
            break;
        case RA_UINT64:
            out[i] = (double)((uint64_t *)buf)[i];
            break;
        case RA_BOOL:
            out[i] = buf[i];
            break;
        default:
            dt_fail(__FILE__, __LINE__, "rd: dtype %s", ra_dtype_name(want));
        }
    }
    ra_array_release(y);
    return n;
}

static void shape_is(const ra_array *y, size_t nd, const int64_t *want, const char *what)
{
    ASSERT_INT(ra_array_ndim(y), nd, "%s: %s's number of axes", ds, what);
    for (size_t i = 0; i < nd; i++)
        ASSERT_INT(ra_array_shape(y)[i], want[i], "%s: %s's axis %zu", ds, what, i);
}

#define NEAR(got, want, tol, ...)                                                                  \
    do {                                                                                           \
        cplx g_ = (got), w_ = (want);                                                              \
        RA_TEST_NAME(__VA_ARGS__);                                                                 \
        if (!(cabs(g_ - w_) <= (tol) * (1 + cabs(w_))))                                            \
            dt_fail(__FILE__, __LINE__, "%s\n#   expected %.17g%+.17gi, observed %.17g%+.17gi",    \
                    n_, creal(w_), cimag(w_), creal(g_), cimag(g_));                               \
    } while (0)

/* c = a (m x k) b (k x n), a conjugated and transposed first when ha (a then k x m). */
static void mul(const cplx *a, const cplx *b, size_t m, size_t k, size_t n, bool ha, cplx *c)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            cplx s = 0;
            for (size_t l = 0; l < k; l++)
                s += (ha ? conj(a[l * m + i]) : a[i * k + l]) * b[l * n + j];
            c[i * n + j] = s;
        }
}

/* A = 3 I + ones(3, 3): eigenvalues 3, 3, 6 (ones has 0, 0, 3); det 3 * 3 * 6 = 54. */
static const double A3[9] = {4, 1, 1, 1, 4, 1, 1, 1, 4};

/* det, slogdet, inv, solve, matrix_power and their errors: one sequence of checks on the
 * same few matrices, read top to bottom (about 100 lines; split, it would only pass them
 * around). */
static void lu_family(void)
{
    cplx v[256], w[256], p[64];
    ra_array *a = mat(3, 3, A3), *y = NULL, *s = NULL;
    ASSERT_STATUS(ctx, ra_linalg_det(ctx, a, &y), RA_OK, "%s: det", ds);
    shape_is(y, 0, NULL, "det");
    rd(y, RA_FLOAT64, v);
    NEAR(v[0], 54, 1e-14, "%s: det(3 I + ones) is 54", ds);
    ASSERT_STATUS(ctx, ra_linalg_slogdet(ctx, a, &s, &y), RA_OK, "%s: slogdet", ds);
    rd(s, RA_FLOAT64, v);
    rd(y, RA_FLOAT64, w);
    CHECK(v[0] == 1, "%s: slogdet's sign is 1", ds);
    NEAR(w[0], log(54), 1e-14, "%s: slogdet's logabsdet is log 54", ds);
    ASSERT_STATUS(ctx, ra_linalg_inv(ctx, a, &y), RA_OK, "%s: inv", ds);
    rd(y, RA_FLOAT64, v);
    for (size_t i = 0; i < 9; i++)
        w[i] = A3[i];
    mul(w, v, 3, 3, 3, false, p);
    for (size_t i = 0; i < 9; i++)
        NEAR(p[i], i % 4 == 0, 1e-14, "%s: A inv(A) = I at %zu", ds, i);
    /* solve: b (3 x 2) and a vector b (3,) */
    const double b[6] = {1, 2, -3, 0.5, 7, 1};
    ra_array *bm = mat(3, 2, b);
    ASSERT_STATUS(ctx, ra_linalg_solve(ctx, a, bm, &y), RA_OK, "%s: solve", ds);
    rd(y, RA_FLOAT64, v);
    mul(w, v, 3, 3, 2, false, p);
    for (size_t i = 0; i < 6; i++)
        NEAR(p[i], b[i], 1e-14, "%s: A solve(A, b) = b at %zu", ds, i);
    int64_t three = 3;
    ra_array *bv = mk(RA_FLOAT64, 1, &three, b, NULL);
    ASSERT_STATUS(ctx, ra_linalg_solve(ctx, a, bv, &y), RA_OK, "%s: solve with a vector", ds);
    shape_is(y, 1, &three, "solve(A, vector)");
    rd(y, RA_FLOAT64, v);
    mul(w, v, 3, 3, 1, false, p);
    for (size_t i = 0; i < 3; i++)
        NEAR(p[i], b[i], 1e-14, "%s: A solve(A, v) = v at %zu", ds, i);
    /* matrix_power: [[1, 1], [0, 1]]^k = [[1, k], [0, 1]] for every integer k */
    const double sh[4] = {1, 1, 0, 1};
    ra_array *t = mat(2, 2, sh);
    const int64_t ks[3] = {5, 0, -2};
    for (int i = 0; i < 3; i++) {
        ASSERT_STATUS(ctx, ra_linalg_matrix_power(ctx, t, ks[i], &y), RA_OK, "%s: power %lld", ds,
                      (long long)ks[i]);
        rd(y, RA_FLOAT64, v);
        NEAR(v[0], 1, 1e-15, "%s: power", ds);
        NEAR(v[1], (double)ks[i], 1e-15, "%s: [[1,1],[0,1]]^%lld's corner", ds, (long long)ks[i]);
        NEAR(v[2], 0, 1e-15, "%s: power", ds);
        NEAR(v[3], 1, 1e-15, "%s: power", ds);
    }
    /* singular: [[1, 2], [2, 4]] (row 2 = 2 row 1) */
    const double sg[4] = {1, 2, 2, 4};
    ra_array *z = mat(2, 2, sg);
    ASSERT_STATUS(ctx, ra_linalg_inv(ctx, z, &y), RA_E_ARG, "%s: inv of a singular matrix", ds);
    ASSERT_MESSAGE(ctx, "singular", "%s: the message says why", ds);
    ASSERT_STATUS(ctx, ra_linalg_slogdet(ctx, z, &s, &y), RA_OK, "%s: slogdet(singular)", ds);
    rd(s, RA_FLOAT64, v);
    rd(y, RA_FLOAT64, w);
    CHECK(v[0] == 0 && isinf(creal(w[0])) && creal(w[0]) < 0, "%s: sign 0, logabsdet -inf", ds);
    /* complex: det(diag(1 + i, 2)) = 2 + 2i; slogdet's sign (1 + i) / sqrt 2 */
    const double cre[4] = {1, 0, 0, 2}, cim[4] = {1, 0, 0, 0};
    int64_t s22[2] = {2, 2};
    ra_array *c = mk(RA_COMPLEX128, 2, s22, cre, cim);
    ASSERT_STATUS(ctx, ra_linalg_det(ctx, c, &y), RA_OK, "%s: complex det", ds);
    rd(y, RA_COMPLEX128, v);
    NEAR(v[0], CMPLX(2, 2), 1e-15, "%s: det(diag(1+i, 2))", ds);
    ASSERT_STATUS(ctx, ra_linalg_slogdet(ctx, c, &s, &y), RA_OK, "%s: complex slogdet", ds);
    rd(s, RA_COMPLEX128, v);
    rd(y, RA_FLOAT64, w);
    NEAR(v[0], CMPLX(SQRT1_2, SQRT1_2), 1e-15, "%s: sign (1+i)/sqrt 2", ds);
    NEAR(w[0], log(sqrt(8)), 1e-15, "%s: logabsdet log|2+2i|", ds);
    /* a stack of two: det [[1, 2], [3, 4]] = 4 - 6 = -2, det diag(2, 3) = 6; solve broadcasts
     * one right-hand side (2,) over both: x = (0, 1/2) and (1/2, 2/3) for b = (1, 2) */
    const double st[8] = {1, 2, 3, 4, 2, 0, 0, 3}, rhs[2] = {1, 2};
    int64_t s222[3] = {2, 2, 2}, two = 2;
    ra_array *stack = mk(RA_FLOAT32, 3, s222, st, NULL), *r2 = mk(RA_FLOAT32, 1, &two, rhs, NULL);
    ASSERT_STATUS(ctx, ra_linalg_det(ctx, stack, &y), RA_OK, "%s: det of a stack", ds);
    shape_is(y, 1, &two, "det of a stack");
    rd(y, RA_FLOAT32, v);
    NEAR(v[0], -2, 1e-6, "%s: det of the first", ds);
    NEAR(v[1], 6, 1e-6, "%s: det of the second", ds);
    ASSERT_STATUS(ctx, ra_linalg_solve(ctx, stack, r2, &y), RA_OK, "%s: solve of a stack", ds);
    int64_t s22b[2] = {2, 2};
    shape_is(y, 2, s22b, "solve(stack, vector)");
    rd(y, RA_FLOAT32, v);
    const double xs[4] = {0, 0.5, 0.5, 2.0 / 3};
    for (size_t i = 0; i < 4; i++)
        NEAR(v[i], xs[i], 1e-6, "%s: solve of a stack at %zu", ds, i);
    ra_array_release(stack);
    ra_array_release(r2);
    /* errors */
    const double r1[3] = {1, 2, 3};
    ra_array *vec = mk(RA_FLOAT64, 1, &three, r1, NULL), *rect = mat(3, 2, b);
    int64_t s2[2] = {2, 2};
    ra_array *ints = mk(RA_INT32, 2, s2, sg, NULL);
    ASSERT_STATUS(ctx, ra_linalg_det(ctx, vec, &y), RA_E_SHAPE, "%s: det of a vector", ds);
    ASSERT_STATUS(ctx, ra_linalg_det(ctx, rect, &y), RA_E_SHAPE, "%s: det of a 3 x 2 matrix", ds);
    ASSERT_STATUS(ctx, ra_linalg_inv(ctx, ints, &y), RA_E_DTYPE, "%s: inv of int32", ds);
    ASSERT_STATUS(ctx, ra_linalg_det(ctx, NULL, &y), RA_E_NULL, "%s: det(NULL)", ds);
    ASSERT_STATUS(ctx, ra_linalg_solve(ctx, a, vec, NULL), RA_E_NULL, "%s: out NULL", ds);
    ra_array *b2 = mat(2, 2, sg);
    ASSERT_STATUS(ctx, ra_linalg_solve(ctx, a, b2, &y), RA_E_SHAPE, "%s: solve 3x3 with 2 rows",
                  ds);
    ra_array *all[] = {a, bm, bv, t, z, c, vec, rect, ints, b2};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ra_array_release(all[i]);
}

static void cholesky_qr(void)
{
    cplx v[256], w[256], p[256];
    ra_array *a = mat(3, 3, A3), *y = NULL, *r = NULL;
    for (int upper = 0; upper < 2; upper++) {
        ASSERT_STATUS(ctx, ra_linalg_cholesky(ctx, a, upper, &y), RA_OK, "%s: cholesky", ds);
        rd(y, RA_FLOAT64, v);
        if (upper)
            mul(v, v, 3, 3, 3, true, p); /* U^H U */
        else {
            for (size_t i = 0; i < 3; i++)
                for (size_t j = 0; j < 3; j++)
                    w[j * 3 + i] = conj(v[i * 3 + j]);
            mul(v, w, 3, 3, 3, false, p); /* L L^H */
        }
        for (size_t i = 0; i < 9; i++)
            NEAR(p[i], A3[i], 1e-14, "%s: the factor's product (upper %d) at %zu", ds, upper, i);
        CHECK(upper ? v[3] == 0 && v[6] == 0 && v[7] == 0 : v[1] == 0 && v[2] == 0 && v[5] == 0,
              "%s: the factor is triangular (upper %d)", ds, upper);
    }
    const double nd[4] = {1, 2, 2, 1}; /* eigenvalues 3 and -1 */
    ra_array *bad = mat(2, 2, nd);
    ASSERT_STATUS(ctx, ra_linalg_cholesky(ctx, bad, false, &y), RA_E_ARG,
                  "%s: cholesky of an indefinite matrix", ds);
    /* QR of a 4 x 3 matrix, reduced and complete */
    const double m43[12] = {2, -1, 0, 1, 3, 1, 0, 1, -2, 4, 0.5, 1};
    ra_array *m = mat(4, 3, m43);
    for (int complete = 0; complete < 2; complete++) {
        ra_array *q = NULL;
        ASSERT_STATUS(ctx, ra_linalg_qr(ctx, m, complete, &q, &r), RA_OK, "%s: qr", ds);
        size_t k = complete ? 4 : 3;
        int64_t qs[2] = {4, (int64_t)k}, rs[2] = {(int64_t)k, 3};
        shape_is(q, 2, qs, "Q");
        shape_is(r, 2, rs, "R");
        rd(q, RA_FLOAT64, v);
        rd(r, RA_FLOAT64, w);
        mul(v, w, 4, k, 3, false, p);
        for (size_t i = 0; i < 12; i++)
            NEAR(p[i], m43[i], 1e-14, "%s: Q R = A at %zu (complete %d)", ds, i, complete);
        mul(v, v, k, 4, k, true, p);
        for (size_t i = 0; i < k * k; i++)
            NEAR(p[i], i % (k + 1) == 0, 1e-14, "%s: Q^H Q = I at %zu", ds, i);
        for (size_t i = 0; i < k; i++)
            for (size_t j = 0; j < i && j < 3; j++)
                CHECK(w[i * 3 + j] == 0, "%s: R is upper triangular", ds);
    }
    ra_array_release(a);
    ra_array_release(bad);
    ra_array_release(m);
}

static void eigen(void)
{
    cplx v[256], w[256], p[256], av[256];
    ra_array *a = mat(3, 3, A3), *y = NULL, *e = NULL;
    ASSERT_STATUS(ctx, ra_linalg_eigh(ctx, a, &e, &y), RA_OK, "%s: eigh", ds);
    rd(e, RA_FLOAT64, w);
    rd(y, RA_FLOAT64, v);
    NEAR(w[0], 3, 1e-14, "%s: eigenvalue 3", ds);
    NEAR(w[1], 3, 1e-14, "%s: eigenvalue 3 again", ds);
    NEAR(w[2], 6, 1e-14, "%s: eigenvalue 6", ds);
    for (size_t i = 0; i < 9; i++)
        p[i] = A3[i];
    mul(p, v, 3, 3, 3, false, av);
    for (size_t i = 0; i < 9; i++)
        NEAR(av[i], v[i] * w[i % 3], 1e-14, "%s: A V = V diag(w) at %zu", ds, i);
    mul(v, v, 3, 3, 3, true, p);
    for (size_t i = 0; i < 9; i++)
        NEAR(p[i], i % 4 == 0, 1e-14, "%s: V^H V = I at %zu", ds, i);
    /* Hermitian [[2, i], [-i, 2]]: 2 +- 1 (the lower triangle, -i, is the one read) */
    const double hre[4] = {2, 99, 0, 2}, him[4] = {0, 99, -1, 0};
    int64_t s22[2] = {2, 2};
    ra_array *h = mk(RA_COMPLEX128, 2, s22, hre, him);
    ASSERT_STATUS(ctx, ra_linalg_eigh(ctx, h, &e, NULL), RA_OK, "%s: eigvalsh", ds);
    rd(e, RA_FLOAT64, w);
    NEAR(w[0], 1, 1e-15, "%s: eigvalsh 1", ds);
    NEAR(w[1], 3, 1e-15, "%s: eigvalsh 3", ds);
    /* a 3 x 3 Hermitian [[2, 1-i, 0], [1+i, 3, i], [0, -i, 1]], given by its lower triangle:
     * H V = V diag(w), V^H V = I, and the eigenvalues sum to the trace, 6 */
    const double h3re[9] = {2, 0, 0, 1, 3, 0, 0, 0, 1}, h3im[9] = {0, 0, 0, 1, 0, 0, 0, -1, 0};
    const cplx h3[9] = {2, CMPLX(1, -1), 0, CMPLX(1, 1), 3, CMPLX(0, 1), 0, CMPLX(0, -1), 1};
    int64_t s33[2] = {3, 3};
    ra_array *h33 = mk(RA_COMPLEX128, 2, s33, h3re, h3im);
    ASSERT_STATUS(ctx, ra_linalg_eigh(ctx, h33, &e, &y), RA_OK, "%s: complex eigh", ds);
    rd(e, RA_FLOAT64, w);
    rd(y, RA_COMPLEX128, v);
    NEAR(w[0] + w[1] + w[2], 6, 1e-14, "%s: the eigenvalues sum to the trace", ds);
    CHECK(creal(w[0]) <= creal(w[1]) && creal(w[1]) <= creal(w[2]), "%s: ascending", ds);
    mul(h3, v, 3, 3, 3, false, av);
    for (size_t i = 0; i < 9; i++)
        NEAR(av[i], v[i] * w[i % 3], 1e-14, "%s: H V = V diag(w) at %zu", ds, i);
    mul(v, v, 3, 3, 3, true, p);
    for (size_t i = 0; i < 9; i++)
        NEAR(p[i], i % 4 == 0, 1e-14, "%s: V^H V = I at %zu", ds, i);
    ra_array_release(h33);
    /* eig: the rotation [[0, -1], [1, 0]] has eigenvalues +-i */
    const double rot[4] = {0, -1, 1, 0};
    ra_array *r = mat(2, 2, rot);
    ASSERT_STATUS(ctx, ra_linalg_eig(ctx, r, &e, &y), RA_OK, "%s: eig", ds);
    rd(e, RA_COMPLEX128, w);
    rd(y, RA_COMPLEX128, v);
    CHECK(cabs(w[0] * w[1] - 1) < 1e-14 && cabs(w[0] + w[1]) < 1e-14 &&
              fabs(cabs(w[0]) - 1) < 1e-14,
          "%s: eig's eigenvalues are i and -i", ds);
    for (size_t i = 0; i < 4; i++)
        p[i] = rot[i];
    mul(p, v, 2, 2, 2, false, av);
    for (size_t i = 0; i < 4; i++)
        NEAR(av[i], v[i] * w[i % 2], 1e-14, "%s: A V = V diag(w) at %zu", ds, i);
    /* a non-normal 3 x 3: upper triangular, so its eigenvalues are its diagonal 1, 2, 5 */
    const double ut[9] = {1, 3, -2, 0, 2, 4, 0, 0, 5};
    ra_array *u = mat(3, 3, ut);
    ASSERT_STATUS(ctx, ra_linalg_eig(ctx, u, &e, &y), RA_OK, "%s: eig of a triangular matrix", ds);
    rd(e, RA_COMPLEX128, w);
    rd(y, RA_COMPLEX128, v);
    double found = 0;
    for (size_t i = 0; i < 3; i++)
        found += creal(w[i]) * creal(w[i]) + fabs(cimag(w[i]));
    NEAR(found, 1 + 4 + 25, 1e-13, "%s: eigenvalues 1, 2 and 5", ds);
    for (size_t i = 0; i < 9; i++)
        p[i] = ut[i];
    mul(p, v, 3, 3, 3, false, av);
    for (size_t i = 0; i < 9; i++)
        NEAR(av[i], v[i] * w[i % 3], 1e-13, "%s: A V = V diag(w) at %zu", ds, i);
    const double nanm[4] = {1, NAN, 0, 1};
    ra_array *nm = mat(2, 2, nanm);
    ASSERT_STATUS(ctx, ra_linalg_eig(ctx, nm, &e, NULL), RA_OK, "%s: eigvals with a NaN", ds);
    rd(e, RA_COMPLEX128, w);
    CHECK(isnan(creal(w[0])) && isnan(creal(w[1])), "%s: a NaN gives NaN eigenvalues", ds);
    ra_array_release(nm);
    ASSERT_STATUS(ctx, ra_linalg_eig(ctx, u, &e, NULL), RA_OK, "%s: eigvals", ds);
    CHECK(ra_array_dtype(e) == RA_COMPLEX128, "%s: eigvals are complex", ds);
    ra_array_release(e);
    ra_array_release(a);
    ra_array_release(h);
    ra_array_release(r);
    ra_array_release(u);
}

/* U diag(S) Vh against a (m x n), U and Vh orthonormal. */
static void check_svd(const double *a, size_t m, size_t n, bool full)
{
    cplx u[256], s[16], vh[256], us[256], p[256];
    ra_array *x = mat(m, n, a), *yu = NULL, *ys = NULL, *yv = NULL;
    ASSERT_STATUS(ctx, ra_linalg_svd(ctx, x, full, &yu, &ys, &yv), RA_OK, "%s: svd", ds);
    size_t k = m < n ? m : n, uc = full ? m : k, vr = full ? n : k;
    int64_t ue[2] = {(int64_t)m, (int64_t)uc}, ve[2] = {(int64_t)vr, (int64_t)n};
    shape_is(yu, 2, ue, "U");
    shape_is(yv, 2, ve, "Vh");
    rd(yu, RA_FLOAT64, u);
    rd(ys, RA_FLOAT64, s);
    rd(yv, RA_FLOAT64, vh);
    for (size_t i = 0; i < m; i++) /* U[:, :k] diag(S) Vh[:k, :] */
        for (size_t j = 0; j < k; j++)
            us[i * k + j] = u[i * uc + j] * s[j];
    mul(us, vh, m, k, n, false, p);
    for (size_t i = 0; i < m * n; i++)
        NEAR(p[i], a[i], 1e-14, "%s: U diag(S) Vh = A at %zu (%zu x %zu)", ds, i, m, n);
    mul(u, u, uc, m, uc, true, p);
    for (size_t i = 0; i < uc * uc; i++)
        NEAR(p[i], i % (uc + 1) == 0, 1e-14, "%s: U^H U = I at %zu", ds, i);
    for (size_t i = 0; i < vr; i++)
        for (size_t j = 0; j < vr; j++) {
            cplx d = 0;
            for (size_t l = 0; l < n; l++)
                d += vh[i * n + l] * conj(vh[j * n + l]);
            NEAR(d, i == j, 1e-14, "%s: Vh Vh^H = I at %zu, %zu", ds, i, j);
        }
    ra_array_release(x);
}

static void singular_values(void)
{
    /* [[3, 2, 2], [2, 3, -2]]: A A^T = [[17, 8], [8, 17]], eigenvalues 25 and 9: S = 5, 3 */
    const double a[6] = {3, 2, 2, 2, 3, -2}, at[6] = {3, 2, 2, 3, 2, -2};
    cplx v[64];
    ra_array *x = mat(2, 3, a), *y = NULL;
    ASSERT_STATUS(ctx, ra_linalg_svd(ctx, x, false, NULL, &y, NULL), RA_OK, "%s: svdvals", ds);
    rd(y, RA_FLOAT64, v);
    NEAR(v[0], 5, 1e-15, "%s: singular value 5", ds);
    NEAR(v[1], 3, 1e-15, "%s: singular value 3", ds);
    for (int full = 0; full < 2; full++) {
        check_svd(a, 2, 3, full);
        check_svd(at, 3, 2, full);
    }
    /* complex 3 x 2: U diag(S) Vh = A, U^H U = I; Q R = A */
    const double cre[6] = {1, -2, 0.5, 3, 0, 1}, cim[6] = {2, 0, -1, 1, 1, -0.5};
    cplx ca[6], cu[64], cs[4], cv[16], cp[64];
    for (size_t i = 0; i < 6; i++)
        ca[i] = CMPLX(cre[i], cim[i]);
    int64_t s32[2] = {3, 2};
    ra_array *cx = mk(RA_COMPLEX128, 2, s32, cre, cim), *yu = NULL, *yv = NULL;
    ASSERT_STATUS(ctx, ra_linalg_svd(ctx, cx, false, &yu, &y, &yv), RA_OK, "%s: complex svd", ds);
    rd(yu, RA_COMPLEX128, cu);
    rd(y, RA_FLOAT64, cs);
    rd(yv, RA_COMPLEX128, cv);
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 2; j++)
            cu[i * 2 + j] *= cs[j];
    mul(cu, cv, 3, 2, 2, false, cp);
    for (size_t i = 0; i < 6; i++)
        NEAR(cp[i], ca[i], 1e-14, "%s: complex U diag(S) Vh = A at %zu", ds, i);
    ASSERT_STATUS(ctx, ra_linalg_qr(ctx, cx, false, &yu, &yv), RA_OK, "%s: complex qr", ds);
    rd(yu, RA_COMPLEX128, cu);
    rd(yv, RA_COMPLEX128, cv);
    mul(cu, cv, 3, 2, 2, false, cp);
    for (size_t i = 0; i < 6; i++)
        NEAR(cp[i], ca[i], 1e-14, "%s: complex Q R = A at %zu", ds, i);
    mul(cu, cu, 2, 3, 2, true, cp);
    for (size_t i = 0; i < 4; i++)
        NEAR(cp[i], i % 3 == 0, 1e-14, "%s: complex Q^H Q = I at %zu", ds, i);
    ra_array_release(cx);
    /* rank one: [[1, 2], [2, 4]] = 5 u u^T, u = (1, 2)/sqrt 5: S = 5, 0; pinv = A^T / 25 */
    const double r1[4] = {1, 2, 2, 4};
    check_svd(r1, 2, 2, true);
    ra_array *r = mat(2, 2, r1);
    ASSERT_STATUS(ctx, ra_linalg_matrix_rank(ctx, r, NULL, &y), RA_OK, "%s: matrix_rank", ds);
    rd(y, RA_INT64, v);
    CHECK(v[0] == 1, "%s: the rank of a rank-one matrix is 1", ds);
    ASSERT_STATUS(ctx, ra_linalg_pinv(ctx, r, NULL, &y), RA_OK, "%s: pinv", ds);
    rd(y, RA_FLOAT64, v);
    for (size_t i = 0; i < 4; i++)
        NEAR(v[i], r1[i] / 25, 1e-15, "%s: pinv = A^T / 25 at %zu", ds, i);
    double big = 10;
    ASSERT_STATUS(ctx, ra_linalg_matrix_rank(ctx, x, &big, &y), RA_OK, "%s: rtol 10", ds);
    rd(y, RA_INT64, v);
    CHECK(v[0] == 0, "%s: nothing is above 10 times the largest", ds);
    double neg = -1;
    ASSERT_STATUS(ctx, ra_linalg_pinv(ctx, r, &neg, &y), RA_E_ARG, "%s: a negative rtol", ds);
    /* matrix_norm of [[1, -2], [3, 4]]: column sums 4, 6; row sums 3, 7; Frobenius sqrt 30;
     * A^T A = [[10, 10], [10, 20]], eigenvalues 15 +- 5 sqrt 5 */
    const double n4[4] = {1, -2, 3, 4};
    double s1 = sqrt(15 + 5 * sqrt(5)), s2 = sqrt(15 - 5 * sqrt(5));
    const double want[8] = {sqrt(30), s1 + s2, 6, 4, s1, s2, 7, 3};
    ra_array *nm = mat(2, 2, n4);
    for (int o = RA_NORM_FRO; o <= RA_NORM_MINUS_INF; o++) {
        ASSERT_STATUS(ctx, ra_linalg_matrix_norm(ctx, nm, o == RA_NORM_2, (ra_matrix_norm)o, &y),
                      RA_OK, "%s: matrix_norm %d", ds, o);
        int64_t ones[2] = {1, 1};
        shape_is(y, o == RA_NORM_2 ? 2 : 0, ones, "matrix_norm");
        rd(y, RA_FLOAT64, v);
        NEAR(v[0], want[o], 1e-14, "%s: matrix_norm ord %d", ds, o);
    }
    ra_array_release(x);
    ra_array_release(r);
    ra_array_release(nm);
}

/* matrix_rank and pinv with an array rtol: X0 = diag(4, 1) (singular values 4, 1) and
 * X1 = [[0, 2], [1, 0]] (X1 e2 = 2 e1, X1 e1 = e2: singular values 2, 1; its pseudo-inverse
 * keeping only 2 is e2 e1^T / 2 = [[0, 0], [0.5, 0]], keeping both X1^-1 = [[0, 1], [0.5, 0]]).
 * rtol [0.1, 0.6] cuts at 0.4 and 1.2: X0 keeps both (rank 2), X1 only 2 (rank 1). */
static void array_rtol(void)
{
    const double xv[8] = {4, 0, 0, 1, 0, 2, 1, 0}, per[2] = {0.1, 0.6};
    const double col[3] = {0.1, 0.3, 0.6}, negv[2] = {0.1, -1}, nanv[2] = {0.1, NAN};
    int64_t s222[3] = {2, 2, 2}, two = 2, three = 3, s31[2] = {3, 1}, s32[2] = {3, 2};
    cplx v[64];
    ra_array *x = mk(RA_FLOAT64, 3, s222, xv, NULL), *r = mk(RA_FLOAT64, 1, &two, per, NULL);
    ra_array *y = NULL;
    ASSERT_STATUS(ctx, ra_linalg_matrix_rank_rtols(ctx, x, r, &y), RA_OK,
                  "%s: matrix_rank, rtol [0.1, 0.6]", ds);
    shape_is(y, 1, &two, "matrix_rank");
    rd(y, RA_INT64, v);
    CHECK(v[0] == 2 && v[1] == 1, "%s: rtol per matrix gives ranks 2 and 1 (observed %g, %g)", ds,
          creal(v[0]), creal(v[1]));
    ASSERT_STATUS(ctx, ra_linalg_pinv_rtols(ctx, x, r, &y), RA_OK, "%s: pinv, rtol [0.1, 0.6]", ds);
    shape_is(y, 3, s222, "pinv");
    rd(y, RA_FLOAT64, v);
    const double pw[8] = {0.25, 0, 0, 1, 0, 0, 0.5, 0};
    for (size_t i = 0; i < 8; i++)
        NEAR(v[i], pw[i], 1e-15, "%s: pinv with rtol per matrix at %zu", ds, i);
    /* rtol (3, 1) against the batch (2,): the result is (3, 2); cuts 0.4, 1.2, 2.4 for X0
     * (ranks 2, 1, 1) and 0.2, 0.6, 1.2 for X1 (ranks 2, 2, 1) */
    ra_array *rc = mk(RA_FLOAT32, 2, s31, col, NULL);
    ASSERT_STATUS(ctx, ra_linalg_matrix_rank_rtols(ctx, x, rc, &y), RA_OK,
                  "%s: matrix_rank, float32 rtol (3, 1)", ds);
    shape_is(y, 2, s32, "broadcast matrix_rank");
    rd(y, RA_INT64, v);
    const double rw[6] = {2, 2, 1, 2, 1, 1};
    for (size_t i = 0; i < 6; i++)
        CHECK(v[i] == rw[i], "%s: rank %zu of the broadcast batch is %g (observed %g)", ds, i,
              rw[i], creal(v[i]));
    ra_array_release(rc);
    rc = mk(RA_FLOAT64, 1, &three, col, NULL);
    ASSERT_STATUS(ctx, ra_linalg_pinv_rtols(ctx, x, rc, &y), RA_E_BROADCAST,
                  "%s: rtol (3,) against the batch (2,)", ds);
    ra_array_release(rc);
    rc = mk(RA_FLOAT64, 1, &two, negv, NULL);
    ASSERT_STATUS(ctx, ra_linalg_matrix_rank_rtols(ctx, x, rc, &y), RA_E_ARG,
                  "%s: a negative element of rtol", ds);
    ra_array_release(rc);
    rc = mk(RA_FLOAT64, 1, &two, nanv, NULL);
    ASSERT_STATUS(ctx, ra_linalg_pinv_rtols(ctx, x, rc, &y), RA_E_ARG, "%s: a NaN in rtol", ds);
    ra_array_release(rc);
    rc = mk(RA_INT64, 1, &two, col, NULL);
    ASSERT_STATUS(ctx, ra_linalg_matrix_rank_rtols(ctx, x, rc, &y), RA_E_DTYPE, "%s: an int64 rtol",
                  ds);
    ra_array_release(rc);
    ASSERT_STATUS(ctx, ra_linalg_pinv_rtols(ctx, x, NULL, &y), RA_E_NULL, "%s: rtol NULL", ds);
    CHECK(y == NULL, "%s: no result after an error", ds);
    ra_array_release(x);
    ra_array_release(r);
}

/* cross, vecdot, outer, tensordot, trace, diagonal, matrix_transpose and vector_norm on a
 * few small arrays, one sequence of checks (about 100 lines, for the same reason). */
static void products(void)
{
    cplx v[256];
    int64_t three = 3, two = 2, s23[2] = {2, 3}, s32[2] = {3, 2};
    const double e1[3] = {1, 0, 0}, e2[3] = {0, 1, 0}, p[3] = {2, 3, 4}, q[3] = {5, 6, 7};
    ra_array *a = mk(RA_FLOAT64, 1, &three, e1, NULL), *b = mk(RA_FLOAT64, 1, &three, e2, NULL);
    ra_array *y = NULL;
    ASSERT_STATUS(ctx, ra_linalg_cross(ctx, a, b, -1, &y), RA_OK, "%s: cross", ds);
    rd(y, RA_FLOAT64, v);
    CHECK(v[0] == 0 && v[1] == 0 && v[2] == 1, "%s: e1 x e2 = e3", ds);
    /* (2, 3, 4) x (5, 6, 7) = (3*7 - 4*6, 4*5 - 2*7, 2*6 - 3*5) = (-3, 6, -3), in int32 */
    ra_array *pi = mk(RA_INT32, 1, &three, p, NULL), *qi = mk(RA_INT32, 1, &three, q, NULL);
    ASSERT_STATUS(ctx, ra_linalg_cross(ctx, pi, qi, 0, &y), RA_OK, "%s: int32 cross", ds);
    rd(y, RA_INT32, v);
    CHECK(v[0] == -3 && v[1] == 6 && v[2] == -3, "%s: (2,3,4) x (5,6,7)", ds);
    /* vecdot: 2*5 + 3*6 + 4*7 = 56; outer's (i, j) = p_i q_j; in int32 */
    ASSERT_STATUS(ctx, ra_linalg_vecdot(ctx, pi, qi, -1, &y), RA_OK, "%s: vecdot", ds);
    rd(y, RA_INT32, v);
    CHECK(v[0] == 56, "%s: vecdot is 56", ds);
    ASSERT_STATUS(ctx, ra_linalg_outer(ctx, pi, qi, &y), RA_OK, "%s: outer", ds);
    rd(y, RA_INT32, v);
    for (size_t i = 0; i < 9; i++)
        CHECK(v[i] == p[i / 3] * q[i % 3], "%s: outer at %zu", ds, i);
    /* vecdot conjugates x1: vecdot(i, i) = conj(i) i = 1 */
    const double one[1] = {1}, zero[1] = {0};
    int64_t s1 = 1;
    ra_array *ci = mk(RA_COMPLEX128, 1, &s1, zero, one);
    ASSERT_STATUS(ctx, ra_linalg_vecdot(ctx, ci, ci, 0, &y), RA_OK, "%s: complex vecdot", ds);
    rd(y, RA_COMPLEX128, v);
    CHECK(v[0] == 1, "%s: vecdot(i, i) = 1", ds);
    /* tensordot with one axis is the matrix product: [[1,2,3],[4,5,6]] [[1,0],[0,1],[1,1]] =
     * [[4, 5], [10, 11]] */
    const double m23[6] = {1, 2, 3, 4, 5, 6}, m32[6] = {1, 0, 0, 1, 1, 1};
    ra_array *x1 = mk(RA_FLOAT64, 2, s23, m23, NULL), *x2 = mk(RA_FLOAT64, 2, s32, m32, NULL);
    const int64_t ax1[1] = {1}, ax2[1] = {0};
    ASSERT_STATUS(ctx, ra_linalg_tensordot(ctx, x1, x2, 1, ax1, ax2, &y), RA_OK, "%s: tensordot",
                  ds);
    rd(y, RA_FLOAT64, v);
    CHECK(v[0] == 4 && v[1] == 5 && v[2] == 10 && v[3] == 11, "%s: tensordot = matmul", ds);
    /* tensordot over no axes is the outer product: shape (2, 3, 3, 2) */
    ASSERT_STATUS(ctx, ra_linalg_tensordot(ctx, x1, x2, 0, NULL, NULL, &y), RA_OK,
                  "%s: tensordot axes=0", ds);
    int64_t s2332[4] = {2, 3, 3, 2};
    shape_is(y, 4, s2332, "tensordot(axes=0)");
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_linalg_tensordot(ctx, x1, x1, 1, ax1, ax2, &y), RA_E_SHAPE,
                  "%s: tensordot of sizes 3 and 2", ds);
    /* trace and diagonal of [[1,2,3],[4,5,6]]: offset 0: 1 + 5; offset 1: 2 + 6; -1: 4 */
    ra_array *i23 = mk(RA_INT32, 2, s23, m23, NULL);
    const int64_t offs[3] = {0, 1, -1};
    const double tr[3] = {6, 8, 4};
    for (int i = 0; i < 3; i++) {
        ASSERT_STATUS(ctx, ra_linalg_trace(ctx, i23, offs[i], RA_DTYPE_DEFAULT, &y), RA_OK,
                      "%s: trace", ds);
        rd(y, RA_INT64, v); /* int32's trace is the default integer dtype */
        CHECK(v[0] == tr[i], "%s: trace offset %lld", ds, (long long)offs[i]);
    }
    ASSERT_STATUS(ctx, ra_linalg_trace(ctx, x1, 0, RA_COMPLEX128, &y), RA_OK, "%s: trace dtype",
                  ds);
    rd(y, RA_COMPLEX128, v);
    CHECK(v[0] == 6, "%s: trace as complex128", ds);
    ASSERT_STATUS(ctx, ra_linalg_trace(ctx, x1, 0, RA_INT32, &y), RA_E_DTYPE,
                  "%s: a float trace as int32", ds);
    ASSERT_STATUS(ctx, ra_linalg_diagonal(ctx, i23, 1, &y), RA_OK, "%s: diagonal", ds);
    shape_is(y, 1, &two, "diagonal(offset=1)");
    rd(y, RA_INT32, v);
    CHECK(v[0] == 2 && v[1] == 6, "%s: diagonal offset 1 is (2, 6)", ds);
    ASSERT_STATUS(ctx, ra_linalg_diagonal(ctx, i23, 5, &y), RA_OK, "%s: diagonal", ds);
    int64_t zero_len = 0;
    shape_is(y, 1, &zero_len, "diagonal(offset=5)");
    ra_array_release(y);
    /* matrix_transpose of a bool matrix */
    const double bits[6] = {1, 0, 0, 1, 1, 0};
    ra_array *bm = mk(RA_BOOL, 2, s23, bits, NULL);
    ASSERT_STATUS(ctx, ra_linalg_matrix_transpose(ctx, bm, &y), RA_OK, "%s: transpose", ds);
    shape_is(y, 2, s32, "matrix_transpose");
    rd(y, RA_BOOL, v);
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 2; j++)
            CHECK(v[i * 2 + j] == bits[j * 3 + i], "%s: transpose at %zu, %zu", ds, i, j);
    /* vector_norm of (3, -4): 5, 7, 4, 3, 2 non-zero; of [[1,2,3],[4,5,6]] along axis 0:
     * sqrt(17), sqrt(29), sqrt(45) */
    const double v34[2] = {3, -4};
    ra_array *w = mk(RA_FLOAT32, 1, &two, v34, NULL);
    const double ords[5] = {2, 1, INFINITY, -INFINITY, 0}, norms[5] = {5, 7, 4, 3, 2};
    for (int i = 0; i < 5; i++) {
        ASSERT_STATUS(ctx, ra_linalg_vector_norm(ctx, w, NULL, 0, false, ords[i], &y), RA_OK,
                      "%s: vector_norm", ds);
        rd(y, RA_FLOAT32, v);
        CHECK(v[0] == norms[i], "%s: vector_norm ord %g of (3, -4)", ds, ords[i]);
    }
    const int64_t axis0[1] = {0};
    ASSERT_STATUS(ctx, ra_linalg_vector_norm(ctx, x1, axis0, 1, true, 2, &y), RA_OK,
                  "%s: vector_norm along axis 0", ds);
    int64_t s13[2] = {1, 3};
    shape_is(y, 2, s13, "vector_norm keepdims");
    rd(y, RA_FLOAT64, v);
    NEAR(v[0], sqrt(17), 1e-15, "%s: column norm", ds);
    NEAR(v[2], sqrt(45), 1e-15, "%s: column norm", ds);
    ra_array *all[] = {a, b, pi, qi, ci, x1, x2, i23, bm, w};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ra_array_release(all[i]);
}

/* The definition: X[k] = sum_t x[t] exp(sign 2 pi i k t / n), with libm's cexp. */
static void dft(const cplx *x, size_t n, int sign, cplx *out)
{
    for (size_t k = 0; k < n; k++) {
        out[k] = 0;
        for (size_t t = 0; t < n; t++)
            out[k] += x[t] * cexp(CMPLX(0, sign * 2 * PI * (double)(k * t) / (double)n));
    }
}

static void fourier(void)
{
    cplx v[256], want[256], xs[16];
    const double re[7] = {1, -2, 0.5, 3, 0, 2.5, -1}, im[7] = {0, 1, -1, 0.25, 2, 0, 1};
    for (size_t i = 0; i < 7; i++)
        xs[i] = CMPLX(re[i], im[i]);
    for (size_t n = 4; n <= 7; n += 3) {
        int64_t len = (int64_t)n;
        ra_array *x = mk(RA_COMPLEX128, 1, &len, re, im), *r = mk(RA_FLOAT64, 1, &len, re, NULL);
        ra_array *y = NULL;
        ASSERT_STATUS(ctx, ra_fft(ctx, RA_FFT_FFT, x, -1, -1, RA_FFT_BACKWARD, &y), RA_OK,
                      "%s: fft", ds);
        rd(y, RA_COMPLEX128, v);
        dft(xs, n, -1, want);
        for (size_t k = 0; k < n; k++)
            NEAR(v[k], want[k], 1e-14, "%s: fft of %zu at %zu", ds, n, k);
        ASSERT_STATUS(ctx, ra_fft(ctx, RA_FFT_IFFT, x, -1, 0, RA_FFT_ORTHO, &y), RA_OK, "%s: ifft",
                      ds);
        rd(y, RA_COMPLEX128, v);
        dft(xs, n, 1, want);
        for (size_t k = 0; k < n; k++)
            NEAR(v[k], want[k] / sqrt((double)n), 1e-14, "%s: ortho ifft at %zu", ds, k);
        /* rfft: the first n/2 + 1 of the real input's transform; irfft inverts it */
        cplx rx[16];
        for (size_t i = 0; i < n; i++)
            rx[i] = re[i];
        dft(rx, n, -1, want);
        ASSERT_STATUS(ctx, ra_fft(ctx, RA_FFT_RFFT, r, -1, -1, RA_FFT_FORWARD, &y), RA_OK,
                      "%s: rfft", ds);
        ra_array *half = y;
        int64_t hl = len / 2 + 1;
        shape_is(half, 1, &hl, "rfft");
        ra_array_retain(half);
        rd(y, RA_COMPLEX128, v);
        for (size_t k = 0; k < n / 2 + 1; k++)
            NEAR(v[k], want[k] / (double)n, 1e-14, "%s: forward-scaled rfft at %zu", ds, k);
        ASSERT_STATUS(ctx, ra_fft(ctx, RA_FFT_IRFFT, half, len, -1, RA_FFT_FORWARD, &y), RA_OK,
                      "%s: irfft", ds);
        rd(y, RA_FLOAT64, v);
        for (size_t k = 0; k < n; k++)
            NEAR(v[k], re[k], 1e-14, "%s: irfft(rfft(x), n) = x at %zu", ds, k);
        /* hfft of the half spectrum h of a Hermitian sequence is the forward transform of the
         * whole sequence: (n/2+1 values of rfft(x)/n, conj'd) gives x back; ihfft inverts */
        ASSERT_STATUS(ctx, ra_fft(ctx, RA_FFT_IHFFT, r, -1, -1, RA_FFT_BACKWARD, &y), RA_OK,
                      "%s: ihfft", ds);
        ra_array *ih = y;
        ra_array_retain(ih);
        rd(y, RA_COMPLEX128, v);
        for (size_t k = 0; k < n / 2 + 1; k++)
            NEAR(v[k], conj(want[k]) / (double)n, 1e-14, "%s: ihfft = conj(rfft)/n at %zu", ds, k);
        ASSERT_STATUS(ctx, ra_fft(ctx, RA_FFT_HFFT, ih, len, -1, RA_FFT_BACKWARD, &y), RA_OK,
                      "%s: hfft", ds);
        rd(y, RA_FLOAT64, v);
        for (size_t k = 0; k < n; k++)
            NEAR(v[k], re[k], 1e-14, "%s: hfft(ihfft(x), n) = x at %zu", ds, k);
        ra_array_release(half);
        ra_array_release(ih);
        ra_array_release(x);
        ra_array_release(r);
    }
}

/* Examples derived by hand, fftn and rfftn against the transforms along each axis, the shifts,
 * and the errors. */
static void fourier_examples(void)
{
    cplx v[256];
    /* hand examples: fft(1, 0, 0, 0) = (1, 1, 1, 1); fft of 4 ones = (4, 0, 0, 0); n pads */
    const double d[4] = {1, 0, 0, 0}, ones[4] = {1, 1, 1, 1};
    int64_t four = 4, one = 1;
    ra_array *dx = mk(RA_COMPLEX64, 1, &four, d, NULL), *ox = mk(RA_FLOAT32, 1, &one, ones, NULL);
    ra_array *y = NULL;
    ASSERT_STATUS(ctx, ra_fft(ctx, RA_FFT_FFT, dx, -1, -1, RA_FFT_BACKWARD, &y), RA_OK, "%s: fft",
                  ds);
    rd(y, RA_COMPLEX64, v);
    for (size_t k = 0; k < 4; k++)
        CHECK(v[k] == 1, "%s: the impulse's transform is flat", ds);
    ASSERT_STATUS(ctx, ra_fft(ctx, RA_FFT_FFT, ox, 4, -1, RA_FFT_BACKWARD, &y), RA_OK,
                  "%s: fft n=4 of one value", ds);
    rd(y, RA_COMPLEX64, v); /* (1, 0, 0, 0) padded: flat again */
    for (size_t k = 0; k < 4; k++)
        NEAR(v[k], 1, 1e-7, "%s: padded impulse", ds);
    /* fftn of a 2 x 4: the transform along axis 1 then axis 0, each by the definition */
    const double g[8] = {1, 2, 0, -1, 3, 0.5, 2, 1};
    int64_t s24[2] = {2, 4};
    ra_array *gx = mk(RA_FLOAT64, 2, s24, g, NULL);
    ASSERT_STATUS(ctx, ra_fftn(ctx, RA_FFT_FFT, gx, 0, NULL, NULL, RA_FFT_BACKWARD, &y), RA_OK,
                  "%s: fftn", ds);
    rd(y, RA_COMPLEX128, v);
    cplx rows[8], cols[8], t2[2], o2[2];
    for (size_t i = 0; i < 2; i++) {
        cplx line[4] = {g[i * 4], g[i * 4 + 1], g[i * 4 + 2], g[i * 4 + 3]};
        dft(line, 4, -1, &rows[i * 4]);
    }
    for (size_t j = 0; j < 4; j++) {
        t2[0] = rows[j];
        t2[1] = rows[4 + j];
        dft(t2, 2, -1, o2);
        cols[j] = o2[0];
        cols[4 + j] = o2[1];
    }
    for (size_t i = 0; i < 8; i++)
        NEAR(v[i], cols[i], 1e-14, "%s: fftn at %zu", ds, i);
    ASSERT_STATUS(ctx, ra_fftn(ctx, RA_FFT_RFFT, gx, 0, NULL, NULL, RA_FFT_BACKWARD, &y), RA_OK,
                  "%s: rfftn", ds);
    int64_t s23[2] = {2, 3};
    shape_is(y, 2, s23, "rfftn");
    rd(y, RA_COMPLEX128, v);
    for (size_t i = 0; i < 2; i++)
        for (size_t j = 0; j < 3; j++)
            NEAR(v[i * 3 + j], cols[i * 4 + j], 1e-14, "%s: rfftn at %zu, %zu", ds, i, j);
    /* fftshift(0, 1, 2, 3, 4) = (3, 4, 0, 1, 2); ifftshift undoes it */
    const double f5[5] = {0, 1, 2, 3, 4};
    int64_t five = 5;
    ra_array *fx = mk(RA_INT32, 1, &five, f5, NULL), *sh = NULL;
    ASSERT_STATUS(ctx, ra_fft_shift(ctx, fx, 0, NULL, false, &sh), RA_OK, "%s: fftshift", ds);
    ASSERT_STATUS(ctx, ra_fft_shift(ctx, sh, 0, NULL, true, &y), RA_OK, "%s: ifftshift", ds);
    rd(sh, RA_INT32, v);
    CHECK(v[0] == 3 && v[1] == 4 && v[2] == 0 && v[3] == 1 && v[4] == 2, "%s: fftshift", ds);
    rd(y, RA_INT32, v);
    for (size_t i = 0; i < 5; i++)
        CHECK(v[i] == f5[i], "%s: ifftshift(fftshift(x)) = x", ds);
    /* errors */
    ASSERT_STATUS(ctx, ra_fft(ctx, RA_FFT_RFFT, dx, -1, -1, RA_FFT_BACKWARD, &y), RA_E_DTYPE,
                  "%s: rfft of a complex array", ds);
    ASSERT_STATUS(ctx, ra_fft(ctx, RA_FFT_FFT, fx, -1, -1, RA_FFT_BACKWARD, &y), RA_E_DTYPE,
                  "%s: fft of int32", ds);
    ASSERT_STATUS(ctx, ra_fft(ctx, RA_FFT_FFT, dx, -1, 1, RA_FFT_BACKWARD, &y), RA_E_AXIS,
                  "%s: axis 1 of a vector", ds);
    ASSERT_STATUS(ctx, ra_fft(ctx, RA_FFT_IRFFT, ox, -1, -1, RA_FFT_BACKWARD, &y), RA_E_ARG,
                  "%s: irfft of one value (n would be 0)", ds);
    ASSERT_STATUS(ctx, ra_fft(ctx, RA_FFT_FFT, dx, -1, -1, (ra_fft_norm)7, &y), RA_E_ARG,
                  "%s: an unknown norm", ds);
    ra_array_release(dx);
    ra_array_release(ox);
    ra_array_release(gx);
    ra_array_release(fx);
}

/* Arrays on two devices are refused by every function of two arrays (DEV-DS-11). */
static void two_devices(ra_device other)
{
    const double v[9] = {1, 2, 3, 4, 5, 6, 7, 8, 10};
    int64_t s33[2] = {3, 3}, three = 3;
    ra_array *a = mat(3, 3, v), *b = NULL, *y = NULL;
    ASSERT_STATUS(
        ctx, ra_asarray_buffer(ctx, v, RA_FLOAT64, s33, 2, RA_OPTS(.device_value = &other), &b),
        RA_OK, "%s: b on another device", ds);
    ASSERT_STATUS(ctx, ra_linalg_solve(ctx, a, b, &y), RA_E_DEVICE_MISMATCH, "DEV-DS-11 %s: solve",
                  ds);
    ASSERT_STATUS(ctx, ra_linalg_tensordot(ctx, a, b, 0, NULL, NULL, &y), RA_E_DEVICE_MISMATCH,
                  "DEV-DS-11 %s: tensordot", ds);
    ASSERT_STATUS(ctx, ra_linalg_vecdot(ctx, a, b, -1, &y), RA_E_DEVICE_MISMATCH,
                  "DEV-DS-11 %s: vecdot", ds);
    ra_array *c = NULL;
    ASSERT_STATUS(
        ctx, ra_asarray_buffer(ctx, v, RA_FLOAT64, &three, 1, RA_OPTS(.device_value = &other), &c),
        RA_OK, "%s: c on another device", ds);
    ASSERT_STATUS(ctx, ra_linalg_matrix_rank_rtols(ctx, a, c, &y), RA_E_DEVICE_MISMATCH,
                  "DEV-DS-11 %s: matrix_rank with rtol on another device", ds);
    ASSERT_STATUS(ctx, ra_linalg_pinv_rtols(ctx, a, c, &y), RA_E_DEVICE_MISMATCH,
                  "DEV-DS-11 %s: pinv with rtol on another device", ds);
    CHECK(y == NULL, "%s: no result after the device error", ds);
    ASSERT_STATUS(ctx, ra_linalg_cross(ctx, b, c, -1, &y), RA_OK, "%s: cross on one device", ds);
    ra_array_release(y);
    ra_array_release(a);
    ra_array_release(b);
    ra_array_release(c);
}

/* ---- allocation failures: each allocation of every function here fails once, in turn ---- */

/* One call: RA_OK, or RA_E_NOMEM with every out-parameter NULL; anything else is a bug. */
#define FSTEP(call, ...)                                                                           \
    do {                                                                                           \
        int st_ = (call);                                                                          \
        ra_array *outs_[] = {__VA_ARGS__};                                                         \
        for (size_t i_ = 0; i_ < sizeof outs_ / sizeof outs_[0]; i_++) {                           \
            if (st_ != RA_OK && outs_[i_]) *bad = "an out-parameter is set after an error";        \
            a[k++] = outs_[i_];                                                                    \
        }                                                                                          \
        if (st_ == RA_E_NOMEM) return;                                                             \
        if (st_ != RA_OK) {                                                                        \
            *bad = #call;                                                                          \
            return;                                                                                \
        }                                                                                          \
    } while (0)

#define FARR 48

/* Every function of refarray_fn_linalg.h once on dev; the arrays made land in a[]. */
static void failing_scenario(ra_ctx *c, ra_device d, ra_array **a, const char **bad)
{
    int k = 0;
    int64_t s33[2] = {3, 3}, s3 = 3;
    ra_array *m = NULL, *v = NULL, *cm = NULL, *o1 = NULL, *o2 = NULL, *o3 = NULL;
    FSTEP(ra_asarray_buffer(c, A3, RA_FLOAT64, s33, 2, RA_OPTS(.device_value = &d), &m), m);
    FSTEP(ra_asarray_buffer(c, A3, RA_FLOAT64, &s3, 1, RA_OPTS(.device_value = &d), &v), v);
    FSTEP(ra_astype(c, m, RA_COMPLEX128, NULL, &cm), cm);
    const int64_t ax1[1] = {1}, ax0[1] = {0};
    double rtol = 1e-3;
    FSTEP(ra_linalg_cholesky(c, m, true, &o1), o1);
    FSTEP(ra_linalg_det(c, m, &o1), o1);
    FSTEP(ra_linalg_slogdet(c, cm, &o1, &o2), o1, o2);
    FSTEP(ra_linalg_inv(c, m, &o1), o1);
    FSTEP(ra_linalg_solve(c, m, v, &o1), o1);
    FSTEP(ra_linalg_matrix_power(c, m, 3, &o1), o1);
    FSTEP(ra_linalg_eigh(c, cm, &o1, &o2), o1, o2);
    FSTEP(ra_linalg_eig(c, m, &o1, &o2), o1, o2);
    FSTEP(ra_linalg_qr(c, m, true, &o1, &o2), o1, o2);
    FSTEP(ra_linalg_svd(c, cm, false, &o1, &o2, &o3), o1, o2, o3);
    FSTEP(ra_linalg_matrix_norm(c, m, false, RA_NORM_NUC, &o1), o1);
    FSTEP(ra_linalg_matrix_rank(c, m, &rtol, &o1), o1);
    FSTEP(ra_linalg_pinv(c, m, NULL, &o1), o1);
    FSTEP(ra_linalg_matrix_rank_rtols(c, m, v, &o1), o1);
    FSTEP(ra_linalg_pinv_rtols(c, cm, v, &o1), o1);
    FSTEP(ra_linalg_cross(c, v, v, -1, &o1), o1);
    FSTEP(ra_linalg_outer(c, v, v, &o1), o1);
    FSTEP(ra_linalg_vecdot(c, m, v, -1, &o1), o1);
    FSTEP(ra_linalg_tensordot(c, m, m, 1, ax1, ax0, &o1), o1);
    FSTEP(ra_linalg_trace(c, m, 1, RA_DTYPE_DEFAULT, &o1), o1);
    FSTEP(ra_linalg_diagonal(c, m, -1, &o1), o1);
    FSTEP(ra_linalg_matrix_transpose(c, m, &o1), o1);
    FSTEP(ra_linalg_vector_norm(c, m, ax0, 1, true, 2, &o1), o1);
    FSTEP(ra_fft(c, RA_FFT_IRFFT, cm, 4, -1, RA_FFT_ORTHO, &o1), o1);
    FSTEP(ra_fftn(c, RA_FFT_RFFT, m, 0, NULL, NULL, RA_FFT_BACKWARD, &o1), o1);
    FSTEP(ra_fft_shift(c, m, 0, NULL, false, &o1), o1);
}

static void failing_on(ra_ctx *c, failing *f, ra_device d)
{
    ctx = c;
    dev = d;
    ra_device_format(d, ds, sizeof ds);
    {
        ra_array *a[FARR] = {0};
        const char *bad = NULL;
        failing_scenario(c, d, a, &bad); /* first without failures: the context's caches */
        for (int i = 0; i < FARR; i++)
            ra_array_release(a[i]);
        CHECK(bad == NULL, "%s: the scenario runs without injected failures (%s: %s)", ds,
              bad ? bad : "", ra_ctx_message(c));
    }
    long base = f->live, n;
    for (n = 0;; n++) {
        ra_array *a[FARR] = {0};
        const char *bad = NULL;
        f->count = 0;
        f->failed = false;
        f->fail_at = n;
        failing_scenario(c, d, a, &bad);
        f->fail_at = -1;
        for (int i = 0; i < FARR; i++)
            ra_array_release(a[i]);
        CHECK(bad == NULL, "%s: allocation %ld failing: %s (%s)", ds, n, bad ? bad : "",
              ra_ctx_message(c));
        ASSERT_INT(f->live - base, 0, "%s: allocation %ld failing leaks nothing", ds, n);
        if (!f->failed) break;
    }
    dt_diag("%s: each of its %ld allocations failed once, cleanly", ds, n);
}

DT_TEST(allocation_failures)
{
    failing f = {0, 0, -1, false};
    ra_allocator hook = {f_alloc, f_release, &f};
    ra_ctx_options opts = {.allocator = &hook};
    ra_ctx *c = NULL;
    ASSERT_STATUS(NULL, ra_ctx_create(&opts, &c), RA_OK, "a context with a failing allocator");
    ra_device devs[16];
    size_t n = list_devices(c, devs);
    for (size_t i = 0; i < n; i++)
        failing_on(c, &f, devs[i]);
    ra_ctx_destroy(c);
    ASSERT_INT(f.live, 0, "nothing is left once the context is gone");
}

static void set_device(ra_ctx *c, ra_device d)
{
    ctx = c;
    dev = d;
    ra_device_format(d, ds, sizeof ds);
}

#define ON_EVERY_DEVICE(name)                                                                      \
    static void name##_on(ra_ctx *c, ra_device d)                                                  \
    {                                                                                              \
        set_device(c, d);                                                                          \
        name();                                                                                    \
    }                                                                                              \
    DT_TEST(name)                                                                                  \
    {                                                                                              \
        on_each_device(name##_on);                                                                 \
    }

ON_EVERY_DEVICE(lu_family)
ON_EVERY_DEVICE(cholesky_qr)
ON_EVERY_DEVICE(eigen)
ON_EVERY_DEVICE(singular_values)
ON_EVERY_DEVICE(array_rtol)
ON_EVERY_DEVICE(products)
ON_EVERY_DEVICE(fourier)
ON_EVERY_DEVICE(fourier_examples)

static void mixed_on(ra_ctx *c, ra_device d)
{
    set_device(c, d);
    ra_device devs[16];
    size_t n = list_devices(ctx, devs);
    if (n < 2) skip_part("one device", "%s: arrays on two devices", ds);
    for (size_t i = 0; i < n; i++)
        if (!ra_device_eq(devs[i], d)) {
            two_devices(devs[i]);
            break;
        }
}

DT_TEST(mixed_devices)
{
    on_each_device(mixed_on);
}

DT_MAIN(DT_ENTRY(lu_family), DT_ENTRY(cholesky_qr), DT_ENTRY(eigen), DT_ENTRY(singular_values),
        DT_ENTRY(array_rtol), DT_ENTRY(products), DT_ENTRY(fourier), DT_ENTRY(fourier_examples),
        DT_ENTRY(mixed_devices), DT_ENTRY(allocation_failures))
