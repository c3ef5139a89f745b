/*
 * ops.h: the handlers of the protocol's ops, one file per group of spec/ops.json (ops_GROUP.c),
 * and what they share (ops_common.c). A handler checks its arguments (args.c), calls the
 * table's slot and builds the result. Argument errors are origin "protocol" and name the
 * argument; a NULL slot answers NotImplementedError (origin "adapter"); a failing callback's
 * error is origin "library". Handlers call down only (args.c, state.c, typed.c).
 */
#ifndef DEVSPEC_SHIM_OPS_H
#define DEVSPEC_SHIM_OPS_H

#include "args.h"
#include "ops_generated.h"

#define PROTO DS__ORIGIN_PROTOCOL

/* Every op's handler, ds__op_ID for the op's ID in ops_generated.h: runs the op with the
 * request's arguments (already checked against the op's names) and on success sets *result
 * (NULL for null). */
#define DS__OP_DECLARE(name, id, args) int ds__op_##id(const ds__req *r, cJSON **result);
DS__OPS(DS__OP_DECLARE)
#undef DS__OP_DECLARE

/* dispatch.c: runs op `op` with `args` (an object or NULL); on success *result is the result
 * (NULL for null). */
int ds__dispatch(ds__session *s, const char *op, const cJSON *args, cJSON **result, ds__err *e);

/* ---- ops_common.c ---- */

/* The NotImplementedError of a NULL slot. */
int ds__no_slot(const ds__req *r);

/* Calls a slot: `call` is the expression; NULL slot answers NotImplementedError. */
#define CALL(r, slot, ...)                                                                         \
    (DS__SLOT((r)->v, slot) == NULL                                                                \
         ? ds__no_slot(r)                                                                          \
         : (ds__call_begin((r)->s),                                                                \
            ds__status((r)->s, (r)->op, (r)->v->slot((r)->s->lib, __VA_ARGS__), (r)->e)))

#define CALL0(r, slot)                                                                             \
    (DS__SLOT((r)->v, slot) == NULL                                                                \
         ? ds__no_slot(r)                                                                          \
         : (ds__call_begin((r)->s),                                                                \
            ds__status((r)->s, (r)->op, (r)->v->slot((r)->s->lib), (r)->e)))

/* Releases an object a callback made that no handle holds (NULL: nothing). */
void ds__release_obj(const ds__req *r, ds__hkind kind, void *obj);
/* Gives obj, just returned by a callback, a handle and makes that the result. The session
 * owns obj from here, also on failure. */
int ds__handle_result(const ds__req *r, ds__hkind kind, void *obj, bool permanent, cJSON **out);
int ds__array_result(const ds__req *r, ds_array x, cJSON **out);
/* A device result that may be None (null). */
int ds__device_result(const ds__req *r, ds_devobj d, cJSON **out);
/* The MemoryError of the op. */
int ds__oom(const ds__req *r);
/* Lists the library's devices as new device objects: *devs (malloc'd), *n. */
int ds__list_devices(const ds__req *r, ds_devobj **devs, size_t *n);

/* A function the "fn" argument may name, and its enum value (ops_generated.h's DS__FNS_OP). */
typedef struct ds__fn_name {
    const char *name;
    int value;
} ds__fn_name;
#define DS__FN_ROW(name, value) {name, value},
/* The "fn" argument, one of `fns` (ending in {NULL, 0}): *value its value. */
int ds__arg_fn(const ds__req *r, const ds__fn_name *fns, int *value);

#endif
