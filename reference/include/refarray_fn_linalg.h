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
 * Sources: functions/linalg*.c, functions/fft*.c.
 */
#ifndef REFARRAY_FN_LINALG_H
#define REFARRAY_FN_LINALG_H

#include "refarray.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* REFARRAY_FN_LINALG_H */
