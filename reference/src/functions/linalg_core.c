/*
 * functions/linalg_core.c: the dense matrix algorithms of the linalg extension
 * (linalg_core.h), in double complex arithmetic: LU with partial pivoting, Cholesky,
 * Householder QR, cyclic Jacobi for Hermitian eigenproblems, one-sided Jacobi for the SVD,
 * and the shifted QR algorithm for general eigenproblems.
 */
#include "linalg_core.h"

#include <float.h>
#include <math.h>
#include <string.h>

static double abs2(ra__cplx z)
{
    return creal(z) * creal(z) + cimag(z) * cimag(z);
}

/* ---- LU --------------------------------------------------------------------------------- */

bool ra__lu(ra__cplx *a, size_t n, size_t *piv, int *sign)
{
    bool regular = true;
    *sign = 1;
    for (size_t k = 0; k < n; k++) {
        size_t p = k;
        for (size_t i = k + 1; i < n; i++)
            if (cabs(a[i * n + k]) > cabs(a[p * n + k])) p = i;
        piv[k] = p;
        if (p != k) {
            for (size_t j = 0; j < n; j++) {
                ra__cplx t = a[k * n + j];
                a[k * n + j] = a[p * n + j];
                a[p * n + j] = t;
            }
            *sign = -*sign;
        }
        ra__cplx d = a[k * n + k];
        if (d == 0) {
            regular = false;
            continue;
        }
        for (size_t i = k + 1; i < n; i++) {
            ra__cplx f = a[i * n + k] / d;
            a[i * n + k] = f;
            for (size_t j = k + 1; j < n; j++)
                a[i * n + j] -= f * a[k * n + j];
        }
    }
    return regular;
}

void ra__lu_solve(const ra__cplx *lu, const size_t *piv, size_t n, ra__cplx *b, size_t k)
{
    for (size_t i = 0; i < n; i++)
        if (piv[i] != i)
            for (size_t c = 0; c < k; c++) {
                ra__cplx t = b[i * k + c];
                b[i * k + c] = b[piv[i] * k + c];
                b[piv[i] * k + c] = t;
            }
    for (size_t c = 0; c < k; c++) {
        for (size_t i = 0; i < n; i++) /* L y = P b, L unit lower */
            for (size_t j = 0; j < i; j++)
                b[i * k + c] -= lu[i * n + j] * b[j * k + c];
        for (size_t i = n; i-- > 0;) { /* U x = y */
            for (size_t j = i + 1; j < n; j++)
                b[i * k + c] -= lu[i * n + j] * b[j * k + c];
            b[i * k + c] /= lu[i * n + i];
        }
    }
}

/* ---- Cholesky --------------------------------------------------------------------------- */

bool ra__cholesky(const ra__cplx *a, size_t n, ra__cplx *l)
{
    memset(l, 0, n * n * sizeof *l);
    for (size_t j = 0; j < n; j++) {
        double d = creal(a[j * n + j]);
        for (size_t k = 0; k < j; k++)
            d -= abs2(l[j * n + k]);
        if (!(d > 0)) return false; /* NaN too */
        double ljj = sqrt(d);
        l[j * n + j] = ljj;
        for (size_t i = j + 1; i < n; i++) {
            ra__cplx t = a[i * n + j];
            for (size_t k = 0; k < j; k++)
                t -= l[i * n + k] * conj(l[j * n + k]);
            l[i * n + j] = t / ljj;
        }
    }
    return true;
}

/* ---- Householder reflections ------------------------------------------------------------ */

/* The reflector H = I - 2 v v^H / (v^H v) with H x = alpha e_1 for x = col[0..len) (stride
 * apart): v in v[0..len); false when x is zero (no reflection needed). */
static bool reflector(const ra__cplx *col, size_t stride, size_t len, ra__cplx *v, double *vv)
{
    double norm = 0;
    for (size_t i = 0; i < len; i++) {
        v[i] = col[i * stride];
        norm += abs2(v[i]);
    }
    norm = sqrt(norm);
    if (norm == 0) return false;
    ra__cplx phase = v[0] == 0 ? 1.0 : v[0] / cabs(v[0]);
    v[0] += phase * norm; /* v = x - alpha e_1, alpha = -phase |x|: no cancellation */
    *vv = 0;
    for (size_t i = 0; i < len; i++)
        *vv += abs2(v[i]);
    return *vv > 0;
}

/* a (rows x cols, row stride ld) := H a on rows r0 .. r0 + len, columns c0 .. cols. */
static void reflect_left(ra__cplx *a, size_t ld, size_t r0, size_t c0, size_t cols,
                         const ra__cplx *v, size_t len, double vv)
{
    for (size_t c = c0; c < cols; c++) {
        ra__cplx dot = 0;
        for (size_t i = 0; i < len; i++)
            dot += conj(v[i]) * a[(r0 + i) * ld + c];
        dot *= 2 / vv;
        for (size_t i = 0; i < len; i++)
            a[(r0 + i) * ld + c] -= v[i] * dot;
    }
}

/* a := a H on columns c0 .. c0 + len, rows 0 .. rows. */
static void reflect_right(ra__cplx *a, size_t ld, size_t rows, size_t c0, const ra__cplx *v,
                          size_t len, double vv)
{
    for (size_t r = 0; r < rows; r++) {
        ra__cplx dot = 0;
        for (size_t i = 0; i < len; i++)
            dot += a[r * ld + c0 + i] * v[i];
        dot *= 2 / vv;
        for (size_t i = 0; i < len; i++)
            a[r * ld + c0 + i] -= dot * conj(v[i]);
    }
}

static void identity(ra__cplx *q, size_t n)
{
    memset(q, 0, n * n * sizeof *q);
    for (size_t i = 0; i < n; i++)
        q[i * n + i] = 1;
}

bool ra__qr(ra_ctx *ctx, const ra__cplx *a, size_t m, size_t n, ra__cplx *q, ra__cplx *r)
{
    ra__cplx *v = ra__alloc(ctx, (m ? m : 1) * sizeof *v);
    if (!v) return false;
    memcpy(r, a, m * n * sizeof *r);
    identity(q, m);
    size_t steps = m ? (m - 1 < n ? m - 1 : n) : 0;
    for (size_t j = 0; j < steps; j++) {
        double vv;
        if (!reflector(&r[j * n + j], n, m - j, v, &vv)) continue;
        reflect_left(r, n, j, j, n, v, m - j, vv);
        reflect_right(q, m, m, j, v, m - j, vv);
        for (size_t i = j + 1; i < m; i++)
            r[i * n + j] = 0;
    }
    ra__free(ctx, v);
    return true;
}

/* ---- Hermitian eigenproblem: cyclic Jacobi ---------------------------------------------- */

/* One rotation zeroing a[p][q] of the Hermitian a: a := J^H a J, v := v J, J the phase that
 * makes a[p][q] real followed by the real Jacobi rotation. */
static void jacobi_rotate(ra__cplx *a, size_t n, ra__cplx *v, size_t p, size_t q)
{
    double g = cabs(a[p * n + q]);
    ra__cplx e = a[p * n + q] / g;   /* a[p][q] = g e */
    for (size_t k = 0; k < n; k++) { /* column q times conj(e), row q times e */
        a[k * n + q] *= conj(e);
        a[q * n + k] *= e;
        if (v) v[k * n + q] *= conj(e);
    }
    /* now a[p][q] = g, real; the classic rotation (Rutishauser's formulas) */
    double theta = (creal(a[q * n + q]) - creal(a[p * n + p])) / (2 * g);
    double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
    double c = 1 / sqrt(t * t + 1), s = t * c;
    for (size_t k = 0; k < n; k++) {
        ra__cplx akp = a[k * n + p], akq = a[k * n + q];
        a[k * n + p] = c * akp - s * akq;
        a[k * n + q] = s * akp + c * akq;
        if (v) {
            ra__cplx vkp = v[k * n + p], vkq = v[k * n + q];
            v[k * n + p] = c * vkp - s * vkq;
            v[k * n + q] = s * vkp + c * vkq;
        }
    }
    for (size_t k = 0; k < n; k++) {
        ra__cplx apk = a[p * n + k], aqk = a[q * n + k];
        a[p * n + k] = c * apk - s * aqk;
        a[q * n + k] = s * apk + c * aqk;
    }
    a[p * n + q] = a[q * n + p] = 0;
    a[p * n + p] = creal(a[p * n + p]);
    a[q * n + q] = creal(a[q * n + q]);
}

void ra__eigh(ra__cplx *a, size_t n, double *w, ra__cplx *v)
{
    double norm = 0;
    for (size_t i = 0; i < n; i++) { /* the Hermitian matrix of the lower triangle */
        a[i * n + i] = creal(a[i * n + i]);
        for (size_t j = i + 1; j < n; j++)
            a[i * n + j] = conj(a[j * n + i]);
    }
    for (size_t i = 0; i < n * n; i++)
        norm += abs2(a[i]);
    if (v) identity(v, n);
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                if (i != j) off += abs2(a[i * n + j]);
        if (off <= norm * 0x1p-104 || !(off == off)) break;
        for (size_t p = 0; p < n; p++)
            for (size_t q = p + 1; q < n; q++)
                if (a[p * n + q] != 0) jacobi_rotate(a, n, v, p, q);
    }
    for (size_t i = 0; i < n; i++)
        w[i] = creal(a[i * n + i]);
    for (size_t i = 1; i < n; i++) /* insertion sort, ascending, the vectors with them */
        for (size_t j = i; j > 0 && w[j - 1] > w[j]; j--) {
            double t = w[j];
            w[j] = w[j - 1];
            w[j - 1] = t;
            for (size_t k = 0; v && k < n; k++) {
                ra__cplx x = v[k * n + j];
                v[k * n + j] = v[k * n + j - 1];
                v[k * n + j - 1] = x;
            }
        }
}

/* ---- SVD: one-sided Jacobi -------------------------------------------------------------- */

/* Orthogonalises the columns of b (m x n, m >= n) by rotations, applying them to v (n x n)
 * too: b = (b's start) v, columns of b mutually orthogonal at the end. */
static void hestenes(ra__cplx *b, size_t m, size_t n, ra__cplx *v)
{
    identity(v, n);
    for (int sweep = 0; sweep < 100; sweep++) {
        bool rotated = false;
        for (size_t p = 0; p < n; p++)
            for (size_t q = p + 1; q < n; q++) {
                double alpha = 0, beta = 0;
                ra__cplx gamma = 0;
                for (size_t i = 0; i < m; i++) {
                    alpha += abs2(b[i * n + p]);
                    beta += abs2(b[i * n + q]);
                    gamma += conj(b[i * n + p]) * b[i * n + q];
                }
                double g = cabs(gamma);
                if (g == 0 || !(g > DBL_EPSILON * sqrt(alpha * beta))) continue;
                rotated = true;
                ra__cplx e = gamma / g;
                double zeta = (beta - alpha) / (2 * g);
                double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1 + zeta * zeta));
                double c = 1 / sqrt(1 + t * t), s = c * t;
                for (size_t i = 0; i < m; i++) {
                    ra__cplx bp = b[i * n + p], bq = b[i * n + q] * conj(e);
                    b[i * n + p] = c * bp - s * bq;
                    b[i * n + q] = s * bp + c * bq;
                }
                for (size_t i = 0; i < n; i++) {
                    ra__cplx vp = v[i * n + p], vq = v[i * n + q] * conj(e);
                    v[i * n + p] = c * vp - s * vq;
                    v[i * n + q] = s * vp + c * vq;
                }
            }
        if (!rotated) break;
    }
}

/* Completes the columns from..cols of u (rows x cols, the first `from` orthonormal; a
 * column j in [from, cols) with keep[j] true is kept) to an orthonormal set: each missing
 * column is the first unit vector e_k whose part orthogonal to the columns so far is not
 * small (Gram-Schmidt, twice), normalised. */
static void complete(ra__cplx *u, size_t rows, size_t cols, const bool *keep)
{
    size_t k = 0;
    for (size_t j = 0; j < cols; j++) {
        if (keep[j]) continue;
        for (; k < rows; k++) {
            for (size_t i = 0; i < rows; i++)
                u[i * cols + j] = i == k;
            for (int pass = 0; pass < 2; pass++)
                for (size_t c = 0; c < cols; c++) {
                    if (c == j || (!keep[c] && c > j)) continue;
                    ra__cplx dot = 0;
                    for (size_t i = 0; i < rows; i++)
                        dot += conj(u[i * cols + c]) * u[i * cols + j];
                    for (size_t i = 0; i < rows; i++)
                        u[i * cols + j] -= dot * u[i * cols + c];
                }
            double norm = 0;
            for (size_t i = 0; i < rows; i++)
                norm += abs2(u[i * cols + j]);
            if (norm > 0.25) {
                norm = sqrt(norm);
                for (size_t i = 0; i < rows; i++)
                    u[i * cols + j] /= norm;
                k++;
                break;
            }
        }
    }
}

/* The SVD of a tall (m >= n) matrix: s (n), u (m x ucols, ucols n or m), v (n x n) with
 * a = u diag(s) v^H. b is a's copy, m x n, overwritten. */
static bool svd_tall(ra_ctx *ctx, ra__cplx *b, size_t m, size_t n, double *s, ra__cplx *u,
                     size_t ucols, ra__cplx *v)
{
    bool *keep = ra__alloc(ctx, (ucols ? ucols : 1) * sizeof *keep);
    size_t *order = ra__alloc(ctx, (n ? n : 1) * sizeof *order);
    ra__cplx *vt = ra__alloc(ctx, (n ? n * n : 1) * sizeof *vt);
    bool ok = keep && order && vt;
    if (ok) {
        hestenes(b, m, n, vt);
        for (size_t j = 0; j < n; j++) {
            double norm = 0;
            for (size_t i = 0; i < m; i++)
                norm += abs2(b[i * n + j]);
            s[j] = sqrt(norm);
            order[j] = j;
        }
        for (size_t i = 1; i < n; i++) /* descending by s, stable */
            for (size_t j = i; j > 0 && s[order[j - 1]] < s[order[j]]; j--) {
                size_t t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        double sorted[n ? n : 1];
        for (size_t j = 0; j < n; j++)
            sorted[j] = s[order[j]];
        for (size_t j = 0; u && j < ucols; j++) {
            keep[j] = j < n && sorted[j] > 0;
            for (size_t i = 0; i < m; i++)
                u[i * ucols + j] = keep[j] ? b[i * n + order[j]] / sorted[j] : 0;
            if (v && j < n)
                for (size_t i = 0; i < n; i++)
                    v[i * n + j] = vt[i * n + order[j]];
        }
        memcpy(s, sorted, n * sizeof *s);
        if (u) complete(u, m, ucols, keep);
    }
    ra__free(ctx, keep);
    ra__free(ctx, order);
    ra__free(ctx, vt);
    return ok;
}

bool ra__svd(ra_ctx *ctx, const ra__cplx *a, size_t m, size_t n, double *s, ra__cplx *u,
             ra__cplx *vh, bool full)
{
    bool tall = m >= n;
    size_t rows = tall ? m : n, cols = tall ? n : m, k = cols;
    size_t ucols = full ? rows : k;
    ra__cplx *b = ra__alloc(ctx, (rows * cols + 1) * sizeof *b);
    ra__cplx *uu = ra__alloc(ctx, (rows * ucols + 1) * sizeof *uu);
    ra__cplx *vv = ra__alloc(ctx, (cols * cols + 1) * sizeof *vv);
    bool ok = b && uu && vv;
    for (size_t i = 0; ok && i < rows; i++) /* b = a, or a^H for a wide a */
        for (size_t j = 0; j < cols; j++)
            b[i * cols + j] = tall ? a[i * n + j] : conj(a[j * n + i]);
    if (ok) ok = svd_tall(ctx, b, rows, cols, s, u ? uu : NULL, ucols, vv);
    if (ok && u) {
        /* tall: a = uu S vv^H; u = uu (m x ucols), vh = vv^H (k x n, or n x n when full,
         * vv being n x n then). wide: a^H = uu S vv^H, so a = vv S uu^H: u = vv (m x m),
         * vh = uu^H (ucols x n). */
        size_t um = m, uc = full ? m : k, vr = full ? n : k;
        for (size_t i = 0; i < um; i++)
            for (size_t j = 0; j < uc; j++)
                u[i * uc + j] = tall ? uu[i * ucols + j] : vv[i * cols + j];
        for (size_t i = 0; i < vr; i++)
            for (size_t j = 0; j < n; j++)
                vh[i * n + j] = tall ? conj(vv[j * cols + i]) : conj(uu[j * ucols + i]);
    }
    ra__free(ctx, b);
    ra__free(ctx, uu);
    ra__free(ctx, vv);
    return ok;
}

/* ---- general eigenproblem: Hessenberg and shifted QR ------------------------------------ */

/* The eigenvalue of the trailing 2 x 2 block [a b; c d] nearer d (Wilkinson's shift). */
static ra__cplx wilkinson(ra__cplx a, ra__cplx b, ra__cplx c, ra__cplx d)
{
    ra__cplx half = (a + d) / 2, disc = csqrt((a - d) * (a - d) / 4 + b * c);
    ra__cplx m1 = half + disc, m2 = half - disc;
    return cabs(m1 - d) <= cabs(m2 - d) ? m1 : m2;
}

/* One shifted QR step on the leading block h[0..hi][0..hi] of the n x n h, as a similarity
 * of all of h (so that h stays a Schur form of a): h := Q^H h Q, z := z Q, Q from the QR of
 * the shifted block. */
static bool qr_step(ra_ctx *ctx, ra__cplx *h, size_t n, size_t hi, ra__cplx mu, ra__cplx *z,
                    ra__cplx *blk, ra__cplx *q, ra__cplx *r)
{
    size_t b = hi + 1;
    for (size_t i = 0; i < b; i++)
        for (size_t j = 0; j < b; j++)
            blk[i * b + j] = h[i * n + j] - (i == j ? mu : 0);
    if (!ra__qr(ctx, blk, b, b, q, r)) return false;
    for (size_t j = 0; j < n; j++) { /* rows 0..b of h: Q^H h */
        ra__cplx col[b];
        for (size_t i = 0; i < b; i++) {
            col[i] = 0;
            for (size_t k = 0; k < b; k++)
                col[i] += conj(q[k * b + i]) * h[k * n + j];
        }
        for (size_t i = 0; i < b; i++)
            h[i * n + j] = col[i];
    }
    for (size_t i = 0; i < n; i++) { /* columns 0..b of h and z: times Q */
        ra__cplx row[b], zrow[b];
        for (size_t j = 0; j < b; j++) {
            row[j] = zrow[j] = 0;
            for (size_t k = 0; k < b; k++) {
                row[j] += h[i * n + k] * q[k * b + j];
                zrow[j] += z[i * n + k] * q[k * b + j];
            }
        }
        for (size_t j = 0; j < b; j++) {
            h[i * n + j] = row[j];
            z[i * n + j] = zrow[j];
        }
    }
    return true;
}

/* The eigenvectors of the upper triangular t (n x n) by back substitution, times z: the
 * columns of v, each of unit norm. */
static void schur_vectors(const ra__cplx *t, const ra__cplx *z, size_t n, double small, ra__cplx *v)
{
    ra__cplx y[n ? n : 1];
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < n; i++)
            y[i] = i == k;
        for (size_t i = k; i-- > 0;) {
            ra__cplx sum = 0;
            for (size_t j = i + 1; j <= k; j++)
                sum += t[i * n + j] * y[j];
            ra__cplx d = t[i * n + i] - t[k * n + k];
            if (cabs(d) < small) d = small;
            y[i] = -sum / d;
        }
        double norm = 0;
        for (size_t i = 0; i < n; i++) {
            ra__cplx s = 0;
            for (size_t j = 0; j <= k; j++)
                s += z[i * n + j] * y[j];
            v[i * n + k] = s;
            norm += abs2(s);
        }
        norm = sqrt(norm);
        for (size_t i = 0; norm > 0 && i < n; i++)
            v[i * n + k] /= norm;
    }
}

int ra__eig(ra_ctx *ctx, ra__cplx *a, size_t n, ra__cplx *w, ra__cplx *v)
{
    bool converged = true;
    size_t nn = n ? n * n : 1;
    ra__cplx *z = ra__alloc(ctx, nn * sizeof *z), *blk = ra__alloc(ctx, nn * sizeof *blk);
    ra__cplx *q = ra__alloc(ctx, nn * sizeof *q), *r = ra__alloc(ctx, nn * sizeof *r);
    ra__cplx *hv = ra__alloc(ctx, (n ? n : 1) * sizeof *hv);
    bool ok = z && blk && q && r && hv;
    double norm = 0;
    for (size_t i = 0; i < n * n; i++)
        norm += abs2(a[i]);
    norm = sqrt(norm);
    if (ok) identity(z, n);
    for (size_t j = 0; ok && j + 2 < n; j++) { /* Hessenberg: a := H a H, z := z H */
        double vv;
        if (!reflector(&a[(j + 1) * n + j], n, n - j - 1, hv, &vv)) continue;
        reflect_left(a, n, j + 1, 0, n, hv, n - j - 1, vv);
        reflect_right(a, n, n, j + 1, hv, n - j - 1, vv);
        reflect_right(z, n, n, j + 1, hv, n - j - 1, vv);
        for (size_t i = j + 2; i < n; i++)
            a[i * n + j] = 0;
    }
    size_t hi = n ? n - 1 : 0, iter = 0, total = 0;
    if (!isfinite(norm)) { /* a NaN or an infinity: NaN eigenvalues and vectors, as eigh's */
        for (size_t i = 0; ok && i < n * n; i++)
            a[i] = z[i] = NAN;
        hi = 0;
    }
    while (ok && hi > 0) {
        ra__cplx sub = a[hi * n + hi - 1];
        if (cabs(sub) <= DBL_EPSILON * (cabs(a[hi * n + hi]) + cabs(a[(hi - 1) * n + hi - 1])) ||
            cabs(sub) <= DBL_MIN * norm) {
            a[hi * n + hi - 1] = 0;
            hi--;
            iter = 0;
            continue;
        }
        if (++total > 100 * n) {
            converged = false;
            break;
        }
        ra__cplx mu = ++iter % 11 == 0 ? a[hi * n + hi] + cabs(sub)
                                       : wilkinson(a[(hi - 1) * n + hi - 1], a[(hi - 1) * n + hi],
                                                   sub, a[hi * n + hi]);
        ok = qr_step(ctx, a, n, hi, mu, z, blk, q, r);
        for (size_t i = 2; ok && i <= hi; i++) /* keep h exactly Hessenberg */
            for (size_t j = 0; j + 1 < i; j++)
                a[i * n + j] = 0;
    }
    ok = ok && converged;
    for (size_t i = 0; ok && i < n; i++)
        w[i] = a[i * n + i];
    if (ok && v) schur_vectors(a, z, n, DBL_EPSILON * (norm > 0 ? norm : 1), v);
    ra__free(ctx, z);
    ra__free(ctx, blk);
    ra__free(ctx, q);
    ra__free(ctx, r);
    ra__free(ctx, hv);
    return ok ? 0 : converged ? -1 : 1;
}
