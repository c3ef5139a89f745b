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

int call_int_list(const char *name, const ds_value *v, int64_t *out, size_t cap, size_t *n,
                  bool *none)
{
    *n = 0;
    if (none) *none = v == NULL || v->kind == DS_VALUE_NONE;
    if (v == NULL || v->kind == DS_VALUE_NONE) {
        if (none) return 0;
        ds_error("TypeError", "%s: an int or a tuple of ints is needed", name);
        return -1;
    }
    if (v->kind == DS_VALUE_SCALAR) {
        *n = 1;
        return call_int(name, v, false, NULL, &out[0]);
    }
    if ((v->kind != DS_VALUE_TUPLE && v->kind != DS_VALUE_LIST) || v->n > cap) {
        ds_error("TypeError", "%s: an int or a tuple of at most %zu ints is needed", name, cap);
        return -1;
    }
    for (size_t i = 0; i < v->n; i++)
        if (call_int(name, &v->items[i], false, NULL, &out[i]) < 0) return -1;
    *n = v->n;
    return 0;
}

int call_one_array(void *lib, ds_call_result *out, int st, ra_array *const *y)
{
    if (call_status(lib, st) != RA_OK) return st;
    out->value.kind = DS_VALUE_ARRAY;
    out->value.array = *y;
    return 0;
}

/* One argument of a generated handler converted by its parameter's type into b. */
static int bind_one(const char *name, const call_param *p, const ds_value *v, call_bound *b)
{
    b->none = v->kind == DS_VALUE_NONE;
    switch (p->type) {
    case CALL_ARRAY_OR_NONE:
        if (b->none) return 0;
        /* fall through */
    case CALL_ARRAY: {
        ds_array x;
        if (call_array(name, v, &x) < 0) return -1;
        b->array = x;
        return 0;
    }
    case CALL_OPERAND: {
        ds_operand o;
        if (call_operand(name, v, &o) < 0) return -1;
        b->operand = call_ra_operand(&o);
        return 0;
    }
    case CALL_INT:
    case CALL_INT_OR_NONE:
        return call_int(name, v, p->type == CALL_INT_OR_NONE, NULL, &b->i);
    case CALL_BOOL:
        if (v->kind != DS_VALUE_SCALAR || v->scalar.kind != DS_SCALAR_BOOL) {
            ds_error("TypeError", "%s: %s must be a bool", name, p->name);
            return -1;
        }
        b->b = v->scalar.b;
        return 0;
    case CALL_FLOAT:
        if (v->kind != DS_VALUE_SCALAR ||
            (v->scalar.kind != DS_SCALAR_INT && v->scalar.kind != DS_SCALAR_FLOAT)) {
            ds_error("TypeError", "%s: %s must be a real number", name, p->name);
            return -1;
        }
        b->f = v->scalar.kind == DS_SCALAR_FLOAT ? v->scalar.f
               : v->scalar.u                     ? (double)(uint64_t)v->scalar.i
                                                 : (double)v->scalar.i;
        return 0;
    case CALL_INTS:
    case CALL_INTS_OR_NONE:
        return call_int_list(name, v, b->ints, RA_MAX_NDIM, &b->n,
                             p->type == CALL_INTS_OR_NONE ? &b->none : NULL);
    }
    return 0;
}

int call_bind(const refarray_args *a, const call_param *params, size_t n, call_bound *out)
{
    const char *allowed[CALL_MAX_PARAMS + 1];
    size_t nallowed = 0, least = 0, most = 0, pos = 0;
    if (n > CALL_MAX_PARAMS) {
        ds_error("RuntimeError", "%s: %zu parameters, more than %d", a->name, n, CALL_MAX_PARAMS);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (params[i].pass != CALL_POSITIONAL) allowed[nallowed++] = params[i].name;
        if (params[i].pass != CALL_KEYWORD) most++;
        if (params[i].pass == CALL_POSITIONAL && params[i].required) least++;
    }
    allowed[nallowed] = NULL;
    if (call_keywords(a->name, a->kwnames, a->nkw, allowed) < 0 ||
        call_nargs_between(a->name, a->nargs, least, most) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const call_param *p = &params[i];
        call_bound *b = &out[i];
        memset(b, 0, sizeof *b);
        const ds_value *kw = p->pass != CALL_POSITIONAL
                                 ? call_keyword(a->kwnames, a->kwargs, a->nkw, p->name)
                                 : NULL;
        const ds_value *v = kw;
        if (p->pass != CALL_KEYWORD && pos < a->nargs) {
            if (kw != NULL) {
                ds_error("TypeError", "%s got multiple values for argument '%s'", a->name, p->name);
                return -1;
            }
            v = &a->args[pos++];
        }
        if (v != NULL) {
            if (bind_one(a->name, p, v, b) < 0) return -1;
        } else if (p->required) {
            ds_error("TypeError", "%s missing required argument '%s'", a->name, p->name);
            return -1;
        } else {
            /* The default: the signature's, or None for the types that take it. */
            b->none = p->type == CALL_ARRAY_OR_NONE || p->type == CALL_INT_OR_NONE ||
                      p->type == CALL_INTS_OR_NONE;
            b->i = p->i;
            b->f = p->f;
            b->b = p->b;
        }
    }
    return 0;
}
