/*
 * dispatch.c: finds a request's op in the generated table, checks its argument names and runs
 * its handler.
 */
#include "ops.h"

#include <string.h>

/* Every op of spec/ops.json with its handler and the arguments it defines: an op added there
 * and not implemented in ops_GROUP.c does not link. */
static const struct {
    const char *name;
    int (*run)(const ds__req *r, cJSON **result);
    const char *const *args;
} ops[] = {
#define X(name, id, args) {name, ds__op_##id, args},
    DS__OPS(X)
#undef X
};

int ds__dispatch(ds__session *s, const char *op, const cJSON *args, cJSON **result, ds__err *e)
{
    ds__req r = {s, s->vendor, op, args, e};
    *result = NULL;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (strcmp(ops[i].name, op) != 0) continue;
        if (ops[i].run != ds__op_hello && !s->hello_ok)
            return ds__fail(e, PROTO, "RuntimeError",
                            "%s: no successful hello yet; hello must come first", op);
        /* Every argument must be one the op defines: a misspelt name is an error, not a
         * default (spec/protocol.md, "Messages"). */
        if (ds__args_check(&r, ops[i].args) < 0) return -1;
        return ops[i].run(&r, result);
    }
    if (!s->hello_ok)
        return ds__fail(e, PROTO, "RuntimeError",
                        "%.60s: no successful hello yet; hello must come first", op);
    return ds__fail(e, DS__ORIGIN_ADAPTER, "NotImplementedError",
                    "unknown op \"%.60s\" (this adapter speaks protocol %d)", op,
                    DS_PROTOCOL_VERSION);
}
