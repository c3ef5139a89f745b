/*
 * call_elementwise.c: the names of the standard's elementwise, creation, data type, statistical and
 * utility functions that refarray's generic call answers (refarray_fn_elementwise.h); a name not
 * here, nor in call.c, is lacking.
 */
#include "adapter_call.h"

const refarray_call_entry refarray_calls_elementwise[] = {
    {NULL, NULL},
};
