/*
 * call_elementwise.c: the names of the standard's elementwise, creation, data type, statistical and
 * utility functions that refarray's generic call answers (refarray_fn_elementwise.h); a name not
 * here, nor in call.c, is lacking.
 */
#include "adapter_call.h"

#include <refarray_fn_elementwise.h>
#include <string.h>

/* The call's status: RA_OK, or the library's error recorded for the shim. */
static int answer(void *lib, int status)
{
    if (status != RA_OK) ds_error(ra_status_kind(status), "%s", ra_ctx_message(refarray_ctx(lib)));
    return status;
}

/* Argument `pos` when given positionally, else keyword kw, else NULL (a parameter that is
 * positional or keyword). Given both ways: TypeError. */
static int arg_or_keyword(const refarray_args *a, size_t pos, const char *kw, const ds_value **out)
{
    const ds_value *k = call_keyword(a->kwnames, a->kwargs, a->nkw, kw);
    if (pos < a->nargs && k) {
        ds_error("TypeError", "%s got multiple values for argument '%s'", a->name, kw);
        return -1;
    }
    *out = pos < a->nargs ? &a->args[pos] : k;
    return 0;
}

/* At most `most` positional arguments and at least `least`, else TypeError. */
static int nargs_between(const refarray_args *a, size_t least, size_t most)
{
    if (a->nargs >= least && a->nargs <= most) return 0;
    ds_error("TypeError", "%s takes %zu to %zu positional arguments (%zu given)", a->name, least,
             most, a->nargs);
    return -1;
}

static ra_operand operand_of(const ds_operand *o)
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

/* ---- elementwise ---- */

static int call_clip(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const allowed[] = {"min", "max", NULL};
    const ds_value *bv[2];
    ds_array x;
    if (call_keywords(a->name, a->kwnames, a->nkw, allowed) < 0 || nargs_between(a, 1, 3) < 0 ||
        call_array(a->name, &a->args[0], &x) < 0 || arg_or_keyword(a, 1, "min", &bv[0]) < 0 ||
        arg_or_keyword(a, 2, "max", &bv[1]) < 0)
        return -1;
    ra_operand b[2];
    const ra_operand *bp[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        if (!bv[k] || bv[k]->kind == DS_VALUE_NONE) continue;
        ds_operand o;
        if (call_operand(a->name, bv[k], &o) < 0) return -1;
        b[k] = operand_of(&o);
        bp[k] = &b[k];
    }
    out->value.kind = DS_VALUE_ARRAY;
    return answer(lib, ra_clip(refarray_ctx(lib), x, bp[0], bp[1], (ra_array **)&out->value.array));
}

const refarray_call_entry refarray_calls_elementwise[] = {
    {"clip", call_clip},
    {NULL, NULL},
};
