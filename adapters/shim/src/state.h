/*
 * state.h: the state of one adapter session (the vendor table, the open library, the handles,
 * a callback's error) and what may be done to it. Below the handlers: the session (session.c)
 * owns this state, the handlers (ops_*.c) and the decoders (args.c) use it, and nothing here
 * calls up into them.
 */
#ifndef DEVSPEC_SHIM_STATE_H
#define DEVSPEC_SHIM_STATE_H

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
    bool dlpack_addresses; /* hello's dlpack_addresses: an in-process peer may pass tensors */
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
/* Before each callback: forget the previous callback's ds_error(), and take this session's
 * as the one ds_error() writes. */
void ds__call_begin(ds__session *s);
/* After a request: ds_error() writes nowhere until the next ds__call_begin. */
void ds__call_end(void);
/* Turns a callback's status into *e (0 stays 0). */
int ds__status(ds__session *s, const char *op, int status, ds__err *e);

#endif
