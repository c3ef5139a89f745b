/*
 * call_shape.c: the names of the standard's manipulation, indexing, searching, set and sorting
 * functions that refarray's generic call answers (refarray_fn_shape.h); a name not here, nor in
 * call.c, is lacking.
 */
#include "adapter_call.h"

const refarray_call_entry refarray_calls_shape[] = {
    {NULL, NULL},
};
