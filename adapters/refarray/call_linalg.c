/*
 * call_linalg.c: the names of the standard's linalg extension, the main namespace's linear algebra
 * and the fft extension that refarray's generic call answers (refarray_fn_linalg.h); a name not
 * here, nor in call.c, is lacking.
 */
#include "adapter_call.h"

const refarray_call_entry refarray_calls_linalg[] = {
    {NULL, NULL},
};
