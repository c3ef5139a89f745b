/*
 * functions/linalg_core.h: the dense matrix algorithms of the linalg extension (linalg_core.c),
 * on one matrix at a time in double complex arithmetic, row-major, a[i * n + j]. A real
 * matrix goes through the same code with zero imaginary parts: every operation on such
 * numbers (sums, products, quotients, square roots of non-negative reals) gives the result
 * real arithmetic gives, so a real input is computed exactly as in real arithmetic.
 */
#ifndef RA_FUNCTIONS_LINALG_CORE_H
#define RA_FUNCTIONS_LINALG_CORE_H

#include "../internal.h"

#include <complex.h>
#include <stdbool.h>
#include <stddef.h>

typedef double complex ra__cplx;

/* LU factorisation with partial pivoting of the n x n matrix a, in place (L's multipliers
 * below the diagonal, U on and above it); piv[k] the row swapped into row k; *sign the
 * permutation's sign. A zero pivot column is skipped (U has a zero on its diagonal); the
 * return value is false then (the matrix is singular). */
bool ra__lu(ra__cplx *a, size_t n, size_t *piv, int *sign);

/* Solves a x = b for the k columns of b (n x k, in place) with a factorised by ra__lu. */
void ra__lu_solve(const ra__cplx *lu, const size_t *piv, size_t n, ra__cplx *b, size_t k);

/* Cholesky factor L (lower, L L^H = a) of the Hermitian positive-definite a, from a's lower
 * triangle, written to l (n x n, zero above the diagonal); false when a pivot is not
 * positive (a is not positive-definite). */
bool ra__cholesky(const ra__cplx *a, size_t n, ra__cplx *l);

/* Householder QR of the m x n matrix a: q (m x m, unitary) and r (m x n, upper triangular)
 * with q r = a. Returns false when memory runs out. */
bool ra__qr(ra_ctx *ctx, const ra__cplx *a, size_t m, size_t n, ra__cplx *q, ra__cplx *r);

/* Eigenvalues (ascending, in w) and, when v is not NULL, orthonormal eigenvectors (the
 * columns of v, n x n) of the Hermitian matrix given by a's lower triangle: cyclic Jacobi
 * rotations until the off-diagonal part is below 2^-52 of the matrix's norm. a is
 * overwritten. */
void ra__eigh(ra__cplx *a, size_t n, double *w, ra__cplx *v);

/* Singular values (descending, in s, min(m, n) of them) and, when u and vh are not NULL,
 * the singular vectors of the m x n matrix a: one-sided Jacobi (Hestenes) rotations.
 * full: u is m x m and vh n x n; otherwise u is m x k and vh k x n, k = min(m, n). Columns
 * of u for zero singular values (and beyond k when full) complete an orthonormal basis.
 * Returns false when memory runs out. */
bool ra__svd(ra_ctx *ctx, const ra__cplx *a, size_t m, size_t n, double *s, ra__cplx *u,
             ra__cplx *vh, bool full);

/* Eigenvalues (w) and, when v is not NULL, unit eigenvectors (columns of v) of the general
 * n x n matrix a: Hessenberg reduction, then the shifted QR algorithm (Wilkinson shifts)
 * to the Schur form, the eigenvectors by back substitution in it. a is overwritten. Returns
 * 0, 1 when it does not converge in 100 n iterations, -1 when memory runs out. */
int ra__eig(ra_ctx *ctx, ra__cplx *a, size_t n, ra__cplx *w, ra__cplx *v);

#endif /* RA_FUNCTIONS_LINALG_CORE_H */
