/*
 * host_kernels.h: the host kernels, refarray's reference computations on plain host memory.
 *
 * The host backend's compute slots call them, and the core calls them itself on host copies
 * when a backend leaves a compute slot NULL (backend.h). They take no context and no device,
 * only pointers to host memory, so the core never reaches into the host backend's table to
 * compute. Arguments are as for the backend slots of the same name, already checked.
 */
#ifndef RA_HOST_KERNELS_H
#define RA_HOST_KERNELS_H

#include "backend.h"

/* Converts count contiguous elements (the cast slot's rules). */
void ra__host_cast(void *dst, ra_dtype dst_dtype, const void *src, ra_dtype src_dtype,
                   size_t count);
/* out = a op b over out's shape, a and b broadcast views (the binary slot). RA_E_DTYPE for a
 * dtype outside the table. */
int ra__host_binary(ra_binop op, const ra__view *a, const ra__view *b, const ra__view *out);
/* One element of x op y (the flat loops' expression for n = 1), one function per operation
 * and dtype: ra__host_elem[op][dtype], NULL where the dtype does not define the operation. */
typedef void (*ra__elem_fn)(const void *restrict a, const void *restrict b, void *restrict out);
extern const ra__elem_fn ra__host_elem[RA_MAXIMUM + 1][RA_COMPLEX128 + 1];
/* The flat loops of ra__host_binary_flat, for any n. */
void ra__host_binary_loops(ra_binop op, ra_dtype dtype, size_t n, const void *a, const void *b,
                           void *out);
/* out[i] = a[i] op b[i] for n contiguous elements of dtype (out bool for equal and less): the
 * kernel without views, for operands that need no broadcasting. Inline: one element is one
 * call of its function, without the loops' two dispatches (a 1-element operation is mostly
 * its overhead). */
static inline void ra__host_binary_flat(ra_binop op, ra_dtype dtype, size_t n, const void *a,
                                        const void *b, void *out)
{
    ra__elem_fn f = n == 1 && (unsigned)op <= RA_MAXIMUM && (unsigned)dtype <= RA_COMPLEX128
                        ? ra__host_elem[op][dtype]
                        : NULL;
    if (f)
        f(a, b, out);
    else
        ra__host_binary_loops(op, dtype, n, a, b, out);
}
/* out[i] = op x[i] (the unary slot). */
int ra__host_unary(ra_unop op, const void *x, ra_dtype dtype, void *out, ra_dtype out_dtype,
                   size_t count);
/* Reduction of (outer, len, inner) over its middle axis (the reduce slot). */
int ra__host_reduce(ra_reduceop op, const void *x, ra_dtype dtype, size_t outer, size_t len,
                    size_t inner, void *out);
/* One matrix product out(n, m) = a(n, k) @ b(k, m) (the matmul slot). */
int ra__host_matmul(ra_dtype dtype, const void *a, size_t a_offset, const void *b, size_t b_offset,
                    void *out, size_t out_offset, size_t n, size_t k, size_t m);
/* rows blocks of row_bytes from src to dst, each side with its offset and pitch in bytes
 * (the copy slot). */
void ra__host_copy_rows(void *dst, size_t dst_offset, size_t dst_pitch, const void *src,
                        size_t src_offset, size_t src_pitch, size_t row_bytes, size_t rows);

#endif /* RA_HOST_KERNELS_H */
