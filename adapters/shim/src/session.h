/*
 * session.h: the state of one adapter session, the pieces ops.c needs from session.c, and the
 * argument decoders of args.c.
 */
#ifndef DEVSPEC_SHIM_SESSION_H
#define DEVSPEC_SHIM_SESSION_H

#include "shim_internal.h"

#include <stddef.h>

/* A slot of the table, or NULL when the table is too old (too small) to have it. */
#define DS__SLOT(v, field)                                                                         \
    ((offsetof(ds_vendor, field) + sizeof((v)->field) <= (v)->size) ? (v)->field : NULL)

typedef enum ds__hkind { DS__H_DEVICE = 0, DS__H_ARRAY, DS__H_STREAM } ds__hkind;

typedef struct ds__handle {
    ds__hkind kind;
    uint64_t id;
    void *obj;
    bool permanent; /* listed by hello: survives reset */
} ds__handle;

typedef struct ds__session {
    const ds_vendor *vendor;
    void *lib;
    bool lib_open;
    bool hello_ok;
    ds__handle *h;
    size_t nh, caph;
    uint64_t next_id[3]; /* per handle kind; never reused within a process */
    ds__err callback_err;
} ds__session;

/* Adds a handle for `obj` and writes its name ("array#3") into `name`. -1 when out of
 * memory (the caller still owns obj). */
int ds__handle_add(ds__session *s, ds__hkind kind, void *obj, bool permanent, char *name,
                   size_t size);
/* The live handle called `name`, or NULL. *kind_out gets the kind its name says, or -1 when
 * the name is not a handle, so that a caller can tell "unknown" from "wrong type". */
ds__handle *ds__handle_find(ds__session *s, const char *name, int *kind_out);
/* The oldest live handle of `kind` for the object `obj`, or NULL (util.arrays_on_device
 * answers an array already handed out with its handle). */
ds__handle *ds__handle_find_obj(ds__session *s, ds__hkind kind, const void *obj);
/* Writes a handle's name ("array#3") into `name`. */
void ds__handle_name(const ds__handle *h, char *name, size_t size);
/* Releases every handle (all) or every handle made after hello (!all). */
void ds__handles_drop(ds__session *s, bool all);
/* Releases everything and closes the library; the session needs hello again. */
void ds__session_close(ds__session *s);
/* Before each callback: forget the previous callback's ds_error(). */
void ds__call_begin(ds__session *s);
/* Turns a callback's status into *e (0 stays 0). */
int ds__status(ds__session *s, const char *op, int status, ds__err *e);

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

/* ops.c: runs op `op` with `args` (an object or NULL); on success *result is the result
 * (NULL for null). */
int ds__dispatch(ds__session *s, const char *op, const cJSON *args, cJSON **result, ds__err *e);

#endif
