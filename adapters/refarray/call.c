/*
 * call.c: refarray's answer to the generic call (the table's `call` slot): the standard's
 * names that refarray has are mapped onto the table's own slots (binary, unary, reduce,
 * matmul, stack, tril/triu, to_device), with the argument forms the standard gives them;
 * the elementwise math of src/functions/math.c (ra_math_unary, ra_math_binary); every other
 * name, and every
 * keyword refarray does not take, is lacking (ds_lacks), so
 * the runner reports what refarray does not have yet instead of a wrong answer.
 */
#include "adapter_call.h"

#include <string.h>

typedef struct name_value {
    const char *name;
    int value;
} name_value;

static const name_value binary_names[] = {{"add", DS_ADD},
                                          {"subtract", DS_SUBTRACT},
                                          {"multiply", DS_MULTIPLY},
                                          {"divide", DS_DIVIDE},
                                          {"equal", DS_EQUAL},
                                          {"less", DS_LESS},
                                          {"maximum", DS_MAXIMUM},
                                          {"Array.__add__", DS_ADD},
                                          {"Array.__sub__", DS_SUBTRACT},
                                          {"Array.__mul__", DS_MULTIPLY},
                                          {"Array.__truediv__", DS_DIVIDE},
                                          {"Array.__eq__", DS_EQUAL},
                                          {"Array.__lt__", DS_LESS},
                                          {NULL, 0}};

static const name_value unary_names[] = {{"negative", DS_NEGATIVE}, {"abs", DS_ABS},
                                         {"sqrt", DS_SQRT},         {"Array.__neg__", DS_NEGATIVE},
                                         {"Array.__abs__", DS_ABS}, {NULL, 0}};

static const name_value reduce_names[] = {{"sum", DS_SUM}, {"max", DS_MAX}, {NULL, 0}};

static bool lookup(const name_value *table, const char *name, int *value)
{
    for (const name_value *e = table; e->name; e++) {
        if (strcmp(e->name, name) == 0) {
            *value = e->value;
            return true;
        }
    }
    return false;
}

/* The keywords of one call: each must be one of `allowed` (NULL-terminated), else lacking. */
static int keywords(const char *name, const char *const *kwnames, size_t nkw,
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

static const ds_value *keyword(const char *const *kwnames, const ds_value *kwargs, size_t nkw,
                               const char *kw)
{
    for (size_t i = 0; i < nkw; i++)
        if (strcmp(kwnames[i], kw) == 0) return &kwargs[i];
    return NULL;
}

static int operand(const char *name, const ds_value *v, ds_operand *out)
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

static int array_arg(const char *name, const ds_value *v, ds_array *out)
{
    if (v->kind != DS_VALUE_ARRAY) {
        ds_error("TypeError", "%s: an array is needed", name);
        return -1;
    }
    *out = v->array;
    return 0;
}

static int int_arg(const char *name, const ds_value *v, bool none_ok, bool *none, int64_t *out)
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

static int nargs_is(const char *name, size_t nargs, size_t want)
{
    if (nargs == want) return 0;
    ds_error("TypeError", "%s takes %zu positional argument%s (%zu given)", name, want,
             want == 1 ? "" : "s", nargs);
    return -1;
}

/* The standard's operators of the two-operand math (ra_math_binary). */
static const struct {
    const char *method;
    const char *function;
} math2_operators[] = {{"Array.__pow__", "pow"},
                       {"Array.__mod__", "remainder"},
                       {"Array.__floordiv__", "floor_divide"},
                       {"Array.__gt__", "greater"},
                       {"Array.__ge__", "greater_equal"},
                       {"Array.__le__", "less_equal"},
                       {"Array.__ne__", "not_equal"}};

static ra_operand ra_operand_of(const ds_operand *o)
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

int refarray_call(void *lib, const char *name, const ds_value *args, size_t nargs,
                  const char *const *kwnames, const ds_value *kwargs, size_t nkw,
                  ds_call_result *out)
{
    const ds_vendor *v = refarray_vendor();
    int fn;
    out->value.kind = DS_VALUE_ARRAY;
    if (lookup(binary_names, name, &fn)) {
        ds_operand x1, x2;
        if (keywords(name, kwnames, nkw, NULL) < 0 || nargs_is(name, nargs, 2) < 0 ||
            operand(name, &args[0], &x1) < 0 || operand(name, &args[1], &x2) < 0)
            return -1;
        return v->binary(lib, (ds_binary_fn)fn, x1, x2, &out->value.array);
    }
    if (lookup(unary_names, name, &fn)) {
        ds_array x;
        if (keywords(name, kwnames, nkw, NULL) < 0 || nargs_is(name, nargs, 1) < 0 ||
            array_arg(name, &args[0], &x) < 0)
            return -1;
        return v->unary(lib, (ds_unary_fn)fn, x, &out->value.array);
    }
    if (lookup(reduce_names, name, &fn)) {
        static const char *const allowed[] = {"axis", NULL};
        ds_array x;
        int64_t axis = 0;
        bool all;
        if (keywords(name, kwnames, nkw, allowed) < 0 || nargs_is(name, nargs, 1) < 0 ||
            array_arg(name, &args[0], &x) < 0 ||
            int_arg(name, keyword(kwnames, kwargs, nkw, "axis"), true, &all, &axis) < 0)
            return -1;
        return v->reduce(lib, (ds_reduce_fn)fn, x, all ? NULL : &axis, &out->value.array);
    }
    if (!strcmp(name, "matmul") || !strcmp(name, "Array.__matmul__")) {
        ds_array x1, x2;
        if (keywords(name, kwnames, nkw, NULL) < 0 || nargs_is(name, nargs, 2) < 0 ||
            array_arg(name, &args[0], &x1) < 0 || array_arg(name, &args[1], &x2) < 0)
            return -1;
        return v->matmul(lib, x1, x2, &out->value.array);
    }
    if (!strcmp(name, "tril") || !strcmp(name, "triu")) {
        static const char *const allowed[] = {"k", NULL};
        ds_array x;
        int64_t k = 0;
        if (keywords(name, kwnames, nkw, allowed) < 0 || nargs_is(name, nargs, 1) < 0 ||
            array_arg(name, &args[0], &x) < 0 ||
            int_arg(name, keyword(kwnames, kwargs, nkw, "k"), false, NULL, &k) < 0)
            return -1;
        return v->tri(lib, name[3] == 'u', x, k, &out->value.array);
    }
    if (!strcmp(name, "stack")) {
        static const char *const allowed[] = {"axis", NULL};
        ds_array xs[DS_CALL_MAX_RESULTS];
        int64_t axis = 0;
        if (keywords(name, kwnames, nkw, allowed) < 0 || nargs_is(name, nargs, 1) < 0 ||
            int_arg(name, keyword(kwnames, kwargs, nkw, "axis"), false, NULL, &axis) < 0)
            return -1;
        if ((args[0].kind != DS_VALUE_TUPLE && args[0].kind != DS_VALUE_LIST) ||
            args[0].n > DS_CALL_MAX_RESULTS) {
            ds_error("TypeError", "stack takes a tuple or list of at most %d arrays",
                     DS_CALL_MAX_RESULTS);
            return -1;
        }
        for (size_t i = 0; i < args[0].n; i++)
            if (array_arg(name, &args[0].items[i], &xs[i]) < 0) return -1;
        return v->stack(lib, xs, args[0].n, axis, &out->value.array);
    }
    if (!strcmp(name, "Array.to_device")) {
        static const char *const allowed[] = {"stream", NULL};
        ds_array x;
        const ds_value *stream = keyword(kwnames, kwargs, nkw, "stream");
        if (keywords(name, kwnames, nkw, allowed) < 0 || nargs_is(name, nargs, 2) < 0 ||
            array_arg(name, &args[0], &x) < 0)
            return -1;
        if (args[1].kind != DS_VALUE_DEVICE) {
            ds_error("TypeError", "to_device needs a device");
            return -1;
        }
        if (stream != NULL && stream->kind != DS_VALUE_NONE) {
            ds_lacks("Array.to_device(stream=)", "refarray's call takes no stream object");
            return -1;
        }
        return v->to_device(lib, x, args[1].device, NULL, &out->value.array);
    }
    for (int m = RA_MATH_SIN; m <= RA_MATH_SIGNBIT; m++) {
        if (strcmp(ra_math_name((ra_math_fn)m), name) != 0) continue;
        ds_array x;
        if (keywords(name, kwnames, nkw, NULL) < 0 || nargs_is(name, nargs, 1) < 0 ||
            array_arg(name, &args[0], &x) < 0)
            return -1;
        ra_ctx *ctx = refarray_ctx(lib);
        int st = ra_math_unary(ctx, (ra_math_fn)m, x, (ra_array **)&out->value.array);
        if (st != RA_OK) ds_error(ra_status_kind(st), "%s", ra_ctx_message(ctx));
        return st;
    }
    const char *fn2 = name;
    for (size_t i = 0; i < sizeof math2_operators / sizeof math2_operators[0]; i++)
        if (!strcmp(name, math2_operators[i].method)) fn2 = math2_operators[i].function;
    for (int m = RA_MATH2_ATAN2; m <= RA_MATH2_NOT_EQUAL; m++) {
        if (strcmp(ra_math2_name((ra_math2_fn)m), fn2) != 0) continue;
        ds_operand x1, x2;
        if (keywords(name, kwnames, nkw, NULL) < 0 || nargs_is(name, nargs, 2) < 0 ||
            operand(name, &args[0], &x1) < 0 || operand(name, &args[1], &x2) < 0)
            return -1;
        ra_ctx *ctx = refarray_ctx(lib);
        int st = ra_math_binary(ctx, (ra_math2_fn)m, ra_operand_of(&x1), ra_operand_of(&x2),
                                (ra_array **)&out->value.array);
        if (st != RA_OK) ds_error(ra_status_kind(st), "%s", ra_ctx_message(ctx));
        return st;
    }
    ds_lacks(name, "refarray has no %s through the generic call yet", name);
    return -1;
}
