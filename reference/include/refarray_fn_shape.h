/*
 * refarray_fn_shape.h: the manipulation, indexing, searching, set and sorting functions of the
 * array API standard, built on refarray.h.
 *
 * Conventions, beyond refarray.h's: every function here runs the staged path
 * (src/functions/staged.h): its arrays must be on one device (DEV-DS-11: RA_E_DEVICE_MISMATCH,
 * or moved to the default device under soft device mode), they are read to host memory, the
 * function computes there, and its result is a new array on that device (DEV-DS-10). On an
 * OpenCL device that is a read and a write around the host computation; no kernel exists for
 * these. Results follow the standard's signatures (spec/signatures.json) and dtype rules.
 * Sources: functions/manipulation*.c, functions/indexing*.c, functions/searching*.c,
 * functions/sets*.c, functions/sorting*.c.
 */
#ifndef REFARRAY_FN_SHAPE_H
#define REFARRAY_FN_SHAPE_H

#include "refarray.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* REFARRAY_FN_SHAPE_H */
