/*
 * call_args.c: the argument checks every name of refarray's generic call uses (call.c and
 * the families' call_*.c): keywords, arity, arrays, operands and integers, each failing with
 * the error the library would raise (TypeError) or a lacks verdict (a keyword refarray does
 * not take); and the two conversions every family shares, an operand into refarray's and a
 * refarray status into the slot's answer.
 */
#include "adapter_call.h"

#include <stdlib.h>
#include <string.h>

/* The keywords of one call: each must be one of `allowed` (NULL-terminated), else lacking. */
int call_keywords(const char *name, const char *const *kwnames, size_t nkw,
                  const char *const *allowed)
{
    for (size_t i = 0; i < nkw; i++) {
        bool ok = false;
        for (const char *const *a = allowed; a && *a; a++)
            ok = ok || strcmp(*a, kwnames[i]) == 0;
        if (!ok) {
            char what[160];
            snprintf(what, sizeof what, "%s(%s=)", name, kwnames[i]);
            ds_lacks(what, "refarray's %s takes no keyword %s", name, kwnames[i]);
            return -1;
        }
    }
    return 0;
}

const ds_value *call_keyword(const char *const *kwnames, const ds_value *kwargs, size_t nkw,
                             const char *kw)
{
    for (size_t i = 0; i < nkw; i++)
        if (strcmp(kwnames[i], kw) == 0) return &kwargs[i];
    return NULL;
}

int call_operand(const char *name, const ds_value *v, ds_operand *out)
{
    memset(out, 0, sizeof *out);
    if (v->kind == DS_VALUE_ARRAY) {
        out->is_array = true;
        out->array = v->array;
        return 0;
    }
    if (v->kind == DS_VALUE_SCALAR) {
        out->scalar = v->scalar;
        return 0;
    }
    ds_error("TypeError", "%s: an operand is an array or a Python scalar", name);
    return -1;
}

int call_array(const char *name, const ds_value *v, ds_array *out)
{
    if (v->kind != DS_VALUE_ARRAY) {
        ds_error("TypeError", "%s: an array is needed", name);
        return -1;
    }
    *out = v->array;
    return 0;
}

int call_int(const char *name, const ds_value *v, bool none_ok, bool *none, int64_t *out)
{
    if (none) *none = v == NULL || v->kind == DS_VALUE_NONE;
    if (v == NULL || (none_ok && v->kind == DS_VALUE_NONE)) return 0;
    if (v->kind != DS_VALUE_SCALAR || v->scalar.kind != DS_SCALAR_INT) {
        ds_error("TypeError", "%s: an int is needed", name);
        return -1;
    }
    if (v->scalar.u) {
        ds_error("OverflowError", "%s: the int %llu is beyond int64", name,
                 (unsigned long long)(uint64_t)v->scalar.i);
        return -1;
    }
    *out = v->scalar.i;
    return 0;
}

int call_nargs(const char *name, size_t nargs, size_t want)
{
    if (nargs == want) return 0;
    ds_error("TypeError", "%s takes %zu positional argument%s (%zu given)", name, want,
             want == 1 ? "" : "s", nargs);
    return -1;
}

int call_nargs_between(const char *name, size_t nargs, size_t least, size_t most)
{
    if (nargs >= least && nargs <= most) return 0;
    ds_error("TypeError", "%s takes %zu to %zu positional arguments (%zu given)", name, least, most,
             nargs);
    return -1;
}

ra_operand call_ra_operand(const ds_operand *o)
{
    if (o->is_array) return ra_operand_array(o->array);
    switch (o->scalar.kind) {
    case DS_SCALAR_BOOL:
        return ra_operand_scalar(ra_scalar_bool(o->scalar.b));
    case DS_SCALAR_INT:
        return ra_operand_scalar(o->scalar.u ? ra_scalar_uint((uint64_t)o->scalar.i)
                                             : ra_scalar_int(o->scalar.i));
    case DS_SCALAR_COMPLEX:
        return ra_operand_scalar(ra_scalar_complex(o->scalar.f, o->scalar.im));
    case DS_SCALAR_FLOAT:
        break;
    }
    return ra_operand_scalar(ra_scalar_float(o->scalar.f));
}

int call_status(void *lib, int st)
{
    if (st != RA_OK) ds_error(ra_status_kind(st), "%s", ra_ctx_message(refarray_ctx(lib)));
    return st;
}

const ra_array **call_arrays(const char *name, const ds_value *items, size_t n)
{
    const ra_array **xs = calloc(n ? n : 1, sizeof *xs);
    if (xs == NULL) {
        ds_error("MemoryError", "%s: out of memory for a list of %zu arrays", name, n);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (items[i].kind != DS_VALUE_ARRAY) {
            ds_error("TypeError", "%s: item %zu is not an array", name, i);
            free(xs);
            return NULL;
        }
        xs[i] = items[i].array;
    }
    return xs;
}

ra_array **call_room(const char *name, size_t n)
{
    ra_array **ys = calloc(n ? n : 1, sizeof *ys);
    if (ys == NULL) ds_error("MemoryError", "%s: out of memory for %zu results", name, n);
    return ys;
}

int call_tuple(void *lib, ds_call_result *out, int st, ra_array *const *ys, size_t n)
{
    if (call_status(lib, st) != RA_OK) return st;
    ds_array *room = ds_call_result_reserve(out, n);
    if (room == NULL) {
        for (size_t i = 0; i < n; i++)
            ra_array_release(ys[i]);
        return -1;
    }
    out->value.kind = DS_VALUE_TUPLE;
    for (size_t i = 0; i < n; i++)
        room[i] = ys[i];
    return 0;
}
