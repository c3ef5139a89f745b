/*
 * args.h: what an op's handler gets (ds__req) and the argument decoders of args.c.
 */
#ifndef DEVSPEC_SHIM_ARGS_H
#define DEVSPEC_SHIM_ARGS_H

#include "state.h"

/* What an op's handler gets: the session, its table, the op's name (for messages), the
 * arguments (an object, or NULL when the request had none) and where an error goes. */
typedef struct ds__req {
    ds__session *s;
    const ds_vendor *v;
    const char *op;
    const cJSON *args; /* may be NULL */
    ds__err *e;
} ds__req;

/* args.c: the argument decoders. Each returns 0, or -1 with r->e set (origin protocol,
 * naming the op and the argument). `required` false means an absent or null argument
 * leaves the default. */

/* Whether the table takes int scalars in [2^63, 2^64) (version 9 on). */
static inline bool ds__wide_ints(const ds__req *r)
{
    return r->v->version >= 9;
}

/* The argument called `name`, or NULL when absent. */
const cJSON *ds__arg(const ds__req *r, const char *name);
/* Every argument must be one of `allowed` (NULL-terminated): a misspelt name is an error. */
int ds__args_check(const ds__req *r, const char *const *allowed);
/* The TypeError for a missing required argument. */
int ds__arg_missing(const ds__req *r, const char *name);
/* A JSON number that is an integer JSON can carry exactly (|v| <= 2^53). */
bool ds__is_int(const cJSON *v);
int ds__arg_int(const ds__req *r, const char *name, bool required, int64_t dflt, int64_t *out);
int ds__arg_bool(const ds__req *r, const char *name, bool required, bool dflt, bool *out);
/* A required string; *out borrows from the request. */
int ds__arg_string(const ds__req *r, const char *name, const char **out);
/* Every string the shim hands to the library passes this check first: a string holding a
 * NUL character (kept by dsjson) cannot be a C string, so the library is not called and the
 * reply is a ValueError (spec/decisions.md, "Strings with NUL"). Returns 0 or -1 with r->e
 * set. */
int ds__string_for_library(const ds__req *r, const char *name, const char *s);
/* A dtype name; DS_DTYPE_NONE when absent and not required. */
int ds__arg_dtype(const ds__req *r, const char *name, bool required, ds_dtype *out);
/* The object of the handle of `kind` named by the string `v` (argument `name`): TypeError
 * for a handle of another kind, ValueError for a malformed or unknown one. */
int ds__arg_handle(const ds__req *r, const cJSON *v, const char *name, ds__hkind kind, void **out);
int ds__arg_array(const ds__req *r, const char *name, ds_array *out);
/* A device argument: null/absent, a device handle, or {"str": text}. `required` means the
 * key must be present (null is still a value). */
int ds__arg_device(const ds__req *r, const char *name, bool required, ds_device *out);
/* A non-empty list of devices (each a handle or {"str": text}, never null), at most cap. */
int ds__arg_devices(const ds__req *r, const char *name, ds_device *out, size_t cap, size_t *n);
/* A stream handle; NULL when absent or null. */
int ds__arg_stream(const ds__req *r, const char *name, ds_stream *out);
/* A scalar operand; *present (may be NULL) says whether one was given. */
int ds__arg_scalar(const ds__req *r, const char *name, bool required, ds_scalar *out,
                   bool *present);
/* A shape: a list of at most DS_MAX_NDIM integers, or one integer (a 1-D shape). */
int ds__arg_shape(const ds__req *r, const char *name, int64_t *shape, int *ndim);
/* copy: true, false, or null/absent (if needed). */
int ds__arg_copy(const ds__req *r, const char *name, ds_copy *out);
/* An operand: an array handle or a scalar. */
int ds__arg_operand(const ds__req *r, const char *name, ds_operand *out);
/* The value `v` (labelled `name`), an array handle or a dtype name: *x the array (NULL for
 * a dtype), *dtype the dtype. */
int ds__arg_array_or_dtype(const ds__req *r, const cJSON *v, const char *name, ds_array *x,
                           ds_dtype *dtype);

#endif
