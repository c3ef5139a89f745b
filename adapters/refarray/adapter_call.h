/*
 * adapter_call.h: the generic call of refarray's adapter (call.c), private to the adapter.
 */
#ifndef DEVSPEC_ADAPTER_CALL_H
#define DEVSPEC_ADAPTER_CALL_H

#include "devspec_shim.h"
#include "refarray.h"

/* The adapter's vendor table (adapter.c): call.c answers through its slots. */
const ds_vendor *refarray_vendor(void);

/* refarray's context behind the adapter's `lib` (adapter.c). */
ra_ctx *refarray_ctx(void *lib);

/* The table's `call` slot (spec/protocol.md, "call"). */
int refarray_call(void *lib, const char *name, const ds_value *args, size_t nargs,
                  const char *const *kwnames, const ds_value *kwargs, size_t nkw,
                  ds_call_result *out);

#endif
