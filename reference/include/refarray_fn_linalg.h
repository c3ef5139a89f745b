/*
 * refarray_fn_linalg.h: the linalg extension, the main namespace's linear algebra (tensordot,
 * vecdot, matrix_transpose) and the fft extension of the array API standard, built on refarray.h.
 *
 * Conventions, beyond refarray.h's: every function here runs the staged path
 * (src/functions/staged.h): its arrays must be on one device (DEV-DS-11: RA_E_DEVICE_MISMATCH,
 * or moved to the default device under soft device mode), they are read to host memory, the
 * function computes there, and its result is a new array on that device (DEV-DS-10). On an
 * OpenCL device that is a read and a write around the host computation; no kernel exists for
 * these. Results follow the standard's signatures (spec/signatures.json) and dtype rules.
 * fftfreq and rfftfreq are refarray.h's creation functions (ra_fftfreq, ra_rfftfreq); matmul
 * is refarray.h's ra_matmul (a kernel on every backend).
 * Sources: functions/linalg*.c, functions/fft.c.
 */
#ifndef REFARRAY_FN_LINALG_H
#define REFARRAY_FN_LINALG_H

#include "refarray.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the linalg extension ----------------------------------------------------------------
 *
 * Arrays of matrices: x of shape (..., M, N) is a stack of M x N matrices over its last two
 * axes; the functions below compute on each and stack the results over the same leading
 * axes. The matrix functions take real or complex floating arrays (RA_E_DTYPE otherwise)
 * and compute in double (double complex) arithmetic whatever the dtype, rounding once to the
 * result's dtype (the precision is spec/decisions.md's: the reference's). A result has x's
 * dtype unless said otherwise; "the real dtype" of complex64 is float32, of complex128
 * float64. Errors common to all: RA_E_NULL (ctx, an array or an out pointer NULL), RA_E_ARG
 * (a sharded array), RA_E_DEVICE_MISMATCH (arrays on two devices, outside soft device mode),
 * RA_E_DTYPE, RA_E_SHAPE (fewer than two axes, a matrix that must be square and is not),
 * RA_E_NOMEM, RA_E_TOO_LARGE, RA_E_BACKEND. */

/* Cholesky factor of each Hermitian positive-definite matrix: L lower with L L^H = x, or,
 * upper, U = L^H with U^H U = x. Only the lower triangle of x is read. RA_E_ARG when a
 * matrix is not positive-definite. */
RA_API int ra_linalg_cholesky(ra_ctx *ctx, const ra_array *x, bool upper, ra_array **out);

/* Determinant of each square matrix (LU with partial pivoting): shape (...). */
RA_API int ra_linalg_det(ra_ctx *ctx, const ra_array *x, ra_array **out);

/* sign and log|det| of each square matrix: sign of x's dtype (-1, 0, 1, or a unit complex
 * number), logabsdet of the real dtype (-inf for a singular matrix, whose sign is 0). */
RA_API int ra_linalg_slogdet(ra_ctx *ctx, const ra_array *x, ra_array **sign, ra_array **logabsdet);

/* Inverse of each square matrix. RA_E_ARG for a singular one (an exactly zero pivot). */
RA_API int ra_linalg_inv(ra_ctx *ctx, const ra_array *x, ra_array **out);

/* Solution of x1 @ y = x2 for each square x1 (..., M, M): x2 of shape (..., M, K), or (M,)
 * (a vector when x2 is 1-D, the standard's rule from 2022.12); the leading axes broadcast;
 * dtype the promotion of both. RA_E_ARG for a singular x1, RA_E_SHAPE when x2's M differs,
 * RA_E_BROADCAST. */
RA_API int ra_linalg_solve(ra_ctx *ctx, const ra_array *x1, const ra_array *x2, ra_array **out);

/* x raised to the integer power n (x square): repeated squaring; n = 0 the identity, n < 0
 * the power of the inverse (RA_E_ARG when singular). */
RA_API int ra_linalg_matrix_power(ra_ctx *ctx, const ra_array *x, int64_t n, ra_array **out);

/* Eigenvalues (ascending, the real dtype, shape (..., M)) and, when eigenvectors is not NULL,
 * orthonormal eigenvectors (the columns of (..., M, M), x's dtype) of each Hermitian matrix
 * given by its lower triangle: cyclic Jacobi. eigvalsh is eigenvectors NULL. */
RA_API int ra_linalg_eigh(ra_ctx *ctx, const ra_array *x, ra_array **eigenvalues,
                          ra_array **eigenvectors);

/* Eigenvalues and, when eigenvectors is not NULL, unit eigenvectors (columns) of each
 * general square matrix (the standard's 2025.12 eig and eigvals): Hessenberg reduction and
 * the shifted QR algorithm; both results complex (complex64 for float32 and complex64, else
 * complex128), in the order of the Schur form's diagonal; a matrix with a NaN or an infinity
 * gives NaN (as eigh and svd do). RA_E_ARG when the iteration does not converge. */
RA_API int ra_linalg_eig(ra_ctx *ctx, const ra_array *x, ra_array **eigenvalues,
                         ra_array **eigenvectors);

/* QR factorisation of each M x N matrix (Householder): complete, q (..., M, M) and r
 * (..., M, N); reduced, with K = min(M, N), q (..., M, K) and r (..., K, N). */
RA_API int ra_linalg_qr(ra_ctx *ctx, const ra_array *x, bool complete, ra_array **q, ra_array **r);

/* Singular value decomposition of each M x N matrix (one-sided Jacobi): x = u diag(s) vh,
 * s descending of the real dtype (..., K), K = min(M, N); full_matrices: u (..., M, M), vh
 * (..., N, N); otherwise u (..., M, K) and vh (..., K, N). svdvals is u and vh NULL (both or
 * neither). */
RA_API int ra_linalg_svd(ra_ctx *ctx, const ra_array *x, bool full_matrices, ra_array **u,
                         ra_array **s, ra_array **vh);

/* The matrix norms of the standard's matrix_norm: Frobenius, nuclear (sum of singular
 * values), 1 and -1 (largest and smallest column sum of |x|), 2 and -2 (largest and smallest
 * singular value), inf and -inf (largest and smallest row sum). */
typedef enum ra_matrix_norm {
    RA_NORM_FRO = 0,
    RA_NORM_NUC,
    RA_NORM_1,
    RA_NORM_MINUS_1,
    RA_NORM_2,
    RA_NORM_MINUS_2,
    RA_NORM_INF,
    RA_NORM_MINUS_INF,
} ra_matrix_norm;

/* The norm ord of each matrix, of the real dtype: shape (...), or (..., 1, 1) with keepdims.
 * RA_E_ARG for an unknown ord. */
RA_API int ra_linalg_matrix_norm(ra_ctx *ctx, const ra_array *x, bool keepdims, ra_matrix_norm ord,
                                 ra_array **out);

/* The number of singular values of each matrix above rtol times the largest (rtol NULL:
 * max(M, N) times the machine epsilon of x's dtype, float32's for float32 and complex64):
 * int64, shape (...). RA_E_ARG for a negative or NaN rtol. */
RA_API int ra_linalg_matrix_rank(ra_ctx *ctx, const ra_array *x, const double *rtol,
                                 ra_array **out);

/* The Moore-Penrose pseudo-inverse of each M x N matrix, (..., N, M): v diag(1/s) u^H over
 * the singular values above rtol times the largest (rtol NULL as for matrix_rank). */
RA_API int ra_linalg_pinv(ra_ctx *ctx, const ra_array *x, const double *rtol, ra_array **out);

/* matrix_rank and pinv with rtol an array (the standard's other form of rtol): a real
 * floating array whose shape broadcasts against x's batch shape (x.shape[:-2]); matrix b of
 * the broadcast batch keeps the singular values above its own rtol times its largest, and the
 * result's batch shape is the broadcast one (int64 (...) for matrix_rank, (..., N, M) for
 * pinv). x and rtol are on one device, where the result is (DEV-DS-10); on two,
 * RA_E_DEVICE_MISMATCH (DEV-DS-11), or soft mode's move. Returns RA_E_NULL (rtol NULL),
 * RA_E_DTYPE (rtol not real floating), RA_E_BROADCAST (the shapes do not broadcast), RA_E_ARG
 * (an element of rtol negative or NaN, named by its flat index; a sharded array), and
 * matrix_rank's and pinv's errors. */
RA_API int ra_linalg_matrix_rank_rtols(ra_ctx *ctx, const ra_array *x, const ra_array *rtol,
                                       ra_array **out);
RA_API int ra_linalg_pinv_rtols(ra_ctx *ctx, const ra_array *x, const ra_array *rtol,
                                ra_array **out);

/* ---- products and views of matrices: numeric dtypes (integers exact, modulo 2^bits) ------ */

/* The cross product of 3-element vectors along axis (of the broadcast shape; both inputs
 * must have 3 elements there, RA_E_SHAPE otherwise); shape the broadcast shape, dtype the
 * promotion of both. RA_E_AXIS, RA_E_BROADCAST. */
RA_API int ra_linalg_cross(ra_ctx *ctx, const ra_array *x1, const ra_array *x2, int64_t axis,
                           ra_array **out);

/* The outer product of two 1-D arrays (N) and (M): (N, M), the promotion of both dtypes.
 * RA_E_SHAPE when one is not 1-D. */
RA_API int ra_linalg_outer(ra_ctx *ctx, const ra_array *x1, const ra_array *x2, ra_array **out);

/* The sum over axis (of the broadcast shape) of conj(x1) * x2 (the standard's vecdot);
 * shape the broadcast shape without axis. RA_E_SHAPE when the sizes along axis differ,
 * RA_E_AXIS, RA_E_BROADCAST. */
RA_API int ra_linalg_vecdot(ra_ctx *ctx, const ra_array *x1, const ra_array *x2, int64_t axis,
                            ra_array **out);

/* The sum of products over naxes pairs of axes (axes1[k] of x1 with axes2[k] of x2, negative
 * counting from the end, each of equal size: RA_E_SHAPE otherwise, RA_E_AXIS out of range or
 * repeated); shape x1's other axes then x2's. The standard's axes=N is axes1 the last N of
 * x1 and axes2 the first N of x2. */
RA_API int ra_linalg_tensordot(ra_ctx *ctx, const ra_array *x1, const ra_array *x2, size_t naxes,
                               const int64_t *axes1, const int64_t *axes2, ra_array **out);

/* The sum of each matrix's offset-th diagonal (offset > 0 above the main one): shape (...).
 * dtype RA_DTYPE_DEFAULT: x's, but int64 for a signed integer x and uint64 for an unsigned
 * one (the standard's default); otherwise that dtype (RA_E_DTYPE when x's kind does not fit
 * it: complex into real, float into integer). */
RA_API int ra_linalg_trace(ra_ctx *ctx, const ra_array *x, int64_t offset, ra_dtype dtype,
                           ra_array **out);

/* The offset-th diagonal of each matrix, (..., L), any dtype (bool too). */
RA_API int ra_linalg_diagonal(ra_ctx *ctx, const ra_array *x, int64_t offset, ra_array **out);

/* Each matrix transposed, (..., N, M), any dtype. */
RA_API int ra_linalg_matrix_transpose(ra_ctx *ctx, const ra_array *x, ra_array **out);

/* The vector ord-norm over naxes axes of x (axes NULL: all of them): ord inf max|x|, -inf
 * min|x|, 0 the count of non-zero elements, otherwise (sum |x|^ord)^(1/ord); real or complex
 * floating x, result of the real dtype; the reduced axes dropped or, keepdims, of size 1.
 * RA_E_AXIS for an axis out of range or repeated. */
RA_API int ra_linalg_vector_norm(ra_ctx *ctx, const ra_array *x, const int64_t *axes, size_t naxes,
                                 bool keepdims, double ord, ra_array **out);

/* ---- the fft extension --------------------------------------------------------------------
 *
 * Discrete Fourier transforms along axes, computed from their definition, X[k] = sum_t
 * x[t] exp(-2 pi i k t / n), in double complex arithmetic with the twiddle factors
 * exp(-2 pi i m / n) of m = k t mod n from the C library's cos and sin of the angle less its
 * quarter turns, which are exact (a direct O(n^2) transform per line; spec/decisions.md). norm
 * scales the forward transform by 1 (backward), 1/sqrt(n) (ortho) or 1/n (forward) and the inverse
 * by 1/n, 1/sqrt(n), 1. */
typedef enum ra_fft_norm {
    RA_FFT_BACKWARD = 0,
    RA_FFT_ORTHO,
    RA_FFT_FORWARD,
} ra_fft_norm;

/* The transforms: fft and ifft (complex to complex; a real floating x is taken as complex),
 * rfft (real to the n/2 + 1 non-negative frequencies), irfft (those to n real values: the
 * input is the first half of a Hermitian spectrum, imaginary parts that cannot be there
 * ignored), hfft (a Hermitian half spectrum to its n real values, forward), ihfft (real to a
 * half spectrum, inverse). Complex results are complex64 for float32 and complex64 inputs,
 * else complex128; real results the matching real dtype. */
typedef enum ra_fft_fn {
    RA_FFT_FFT = 1,
    RA_FFT_IFFT,
    RA_FFT_RFFT,
    RA_FFT_IRFFT,
    RA_FFT_HFFT,
    RA_FFT_IHFFT,
} ra_fft_fn;

/* The standard's name of fn ("fft", "irfft"), NULL for a value not in the enum. */
RA_API const char *ra_fft_name(ra_fft_fn fn);

/* The transform fn of length n along axis (n < 0: the input's length there, or 2 (m - 1)
 * for irfft and hfft whose input has m); the input is cut or padded with zeros to n (to
 * n/2 + 1 for irfft and hfft). Errors: RA_E_NULL, RA_E_ARG (fn or norm unknown, n == 0 or
 * an output of no elements, a sharded array), RA_E_DTYPE (not floating; a complex x for
 * rfft or ihfft), RA_E_AXIS, RA_E_NOMEM, RA_E_TOO_LARGE, RA_E_BACKEND. */
RA_API int ra_fft(ra_ctx *ctx, ra_fft_fn fn, const ra_array *x, int64_t n, int64_t axis,
                  ra_fft_norm norm, ra_array **out);

/* The n-dimensional transform fn (fft, ifft, rfft or irfft: fftn, ifftn, rfftn, irfftn)
 * over naxes axes with lengths s: axes NULL is the last naxes axes (all of x when s is NULL
 * too); s NULL the input's lengths (for irfftn the last 2 (m - 1)). One-dimensional
 * transforms along each axis, the real one (rfft, irfft) along the last of axes. Errors as
 * ra_fft's, RA_E_AXIS also for a repeated axis, RA_E_ARG for hfft or ihfft. */
RA_API int ra_fftn(ra_ctx *ctx, ra_fft_fn fn, const ra_array *x, size_t naxes, const int64_t *s,
                   const int64_t *axes, ra_fft_norm norm, ra_array **out);

/* x rolled by floor(n/2) along each of naxes axes (axes NULL: every axis), n the axis'
 * length, so that the zero frequency moves to the middle (fftshift); inverse rolls back
 * (ifftshift). Any dtype. RA_E_AXIS. */
RA_API int ra_fft_shift(ra_ctx *ctx, const ra_array *x, size_t naxes, const int64_t *axes,
                        bool inverse, ra_array **out);

#ifdef __cplusplus
}
#endif

#endif /* REFARRAY_FN_LINALG_H */
