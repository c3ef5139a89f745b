/*
 * ops_call.c: the generic call op (call).
 */
#include "ops.h"

/* call (spec/protocol.md, "call"): the vendor table has no name-dispatched slot yet, so the
 * shim cannot express the op for any library. */
int ds__op_call(const ds__req *r, cJSON **result)
{
    (void)result;
    return ds__fail(r->e, DS__ORIGIN_ADAPTER, "NotImplementedError",
                    "%s: this shim has no slot for the generic call yet", r->op);
}
