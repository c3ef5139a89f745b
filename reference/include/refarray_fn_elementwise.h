/*
 * refarray_fn_elementwise.h: the elementwise functions beyond functions/math.c, the creation
 * functions reached by name, the data type functions, the statistical and utility functions of the
 * array API standard, built on refarray.h.
 *
 * Conventions, beyond refarray.h's: every function here runs the staged path
 * (src/functions/staged.h): its arrays must be on one device (DEV-DS-11: RA_E_DEVICE_MISMATCH,
 * or moved to the default device under soft device mode), they are read to host memory, the
 * function computes there, and its result is a new array on that device (DEV-DS-10). On an
 * OpenCL device that is a read and a write around the host computation; no kernel exists for
 * these. Results follow the standard's signatures (spec/signatures.json) and dtype rules.
 * Sources: functions/elementwise*.c, functions/creation*.c, functions/statistics*.c.
 */
#ifndef REFARRAY_FN_ELEMENTWISE_H
#define REFARRAY_FN_ELEMENTWISE_H

#include "refarray.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Elementwise (beyond ra_math_unary and ra_math_binary) ---- */

/* clip(x, min, max): each element of x limited to [min, max], x's dtype, the shape of x, min
 * and max broadcast together. x is real numeric (RA_E_DTYPE otherwise); min and max are each
 * absent (NULL), an array of x's kind (integer or real floating) or a Python scalar taking
 * x's dtype (API-PROM-3; RA_E_SCALAR_RANGE or RA_E_DTYPE when it cannot). NaN in x or in a
 * bound gives NaN; min > max is left open by the standard (here max wins). Arrays on two
 * devices are RA_E_DEVICE_MISMATCH (DEV-DS-11). Returns RA_E_NULL, RA_E_ARG (a sharded
 * array), RA_E_DTYPE, RA_E_SCALAR_RANGE, RA_E_BROADCAST, RA_E_DEVICE_MISMATCH, RA_E_NOMEM,
 * RA_E_BACKEND. */
RA_API int ra_clip(ra_ctx *ctx, const ra_array *x, const ra_operand *min, const ra_operand *max,
                   ra_array **out);

#ifdef __cplusplus
}
#endif

#endif /* REFARRAY_FN_ELEMENTWISE_H */
