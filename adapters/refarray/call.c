/*
 * call.c: refarray's answer to the generic call (the table's `call` slot): the standard's
 * names that refarray has are mapped onto the table's own slots (binary, unary, matmul,
 * stack, tril/triu, to_device), with the argument forms the standard gives them; the
 * elementwise math of src/functions/math.c (ra_math_unary, ra_math_binary); then the
 * families' tables (call_*.c). Every other name, and every keyword refarray does not take,
 * is lacking (ds_lacks), so the runner reports what refarray does not have yet instead of a
 * wrong answer.
 */
#include "adapter_call.h"

#include <stdlib.h>
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

static int call_stack(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const allowed[] = {"axis", NULL};
    int64_t axis = 0;
    if (call_keywords(a->name, a->kwnames, a->nkw, allowed) < 0 ||
        call_nargs(a->name, a->nargs, 1) < 0 ||
        call_int(a->name, call_keyword(a->kwnames, a->kwargs, a->nkw, "axis"), false, NULL, &axis) <
            0)
        return -1;
    const ds_value *seq = &a->args[0];
    if (seq->kind != DS_VALUE_TUPLE && seq->kind != DS_VALUE_LIST) {
        ds_error("TypeError", "stack takes a tuple or list of arrays");
        return -1;
    }
    ds_array *xs = calloc(seq->n ? seq->n : 1, sizeof *xs);
    if (xs == NULL) {
        ds_error("MemoryError", "stack: out of memory for a list of %zu arrays", seq->n);
        return -1;
    }
    int st = 0;
    for (size_t i = 0; st == 0 && i < seq->n; i++)
        st = call_array(a->name, &seq->items[i], &xs[i]);
    if (st == 0) st = a->vendor->stack(lib, xs, seq->n, axis, &out->value.array);
    free(xs);
    return st;
}

static int call_to_device(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const allowed[] = {"stream", NULL};
    ds_array x;
    const ds_value *stream = call_keyword(a->kwnames, a->kwargs, a->nkw, "stream");
    if (call_keywords(a->name, a->kwnames, a->nkw, allowed) < 0 ||
        call_nargs(a->name, a->nargs, 2) < 0 || call_array(a->name, &a->args[0], &x) < 0)
        return -1;
    if (a->args[1].kind != DS_VALUE_DEVICE) {
        ds_error("TypeError", "to_device needs a device");
        return -1;
    }
    if (stream != NULL && stream->kind != DS_VALUE_NONE) {
        ds_lacks("Array.to_device(stream=)", "refarray's call takes no stream object");
        return -1;
    }
    return a->vendor->to_device(lib, x, a->args[1].device, NULL, &out->value.array);
}

/* The names call.c answers through a table, as the families do (the rows of
 * spec/signatures.json whose refarray entry names a handler of this file). */
static const refarray_call_entry refarray_calls_own[] = {REFARRAY_CALLS_OWN{NULL, NULL}};

/* The tables of names (this file's, the families' in call_*.c, then the generated handlers'
 * of call_generated.c), searched after the names above and the math functions. */
static const refarray_call_entry *const refarray_call_tables[] = {
    refarray_calls_own,    refarray_calls_elementwise, refarray_calls_shape,
    refarray_calls_linalg, refarray_calls_generated,   NULL};

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

/* The standard's operators of the math of one and two operands (ra_math_unary,
 * ra_math_binary). */
static const struct {
    const char *method;
    const char *function;
} math2_operators[] = {{"Array.__pow__", "pow"},
                       {"Array.__mod__", "remainder"},
                       {"Array.__floordiv__", "floor_divide"},
                       {"Array.__gt__", "greater"},
                       {"Array.__ge__", "greater_equal"},
                       {"Array.__le__", "less_equal"},
                       {"Array.__ne__", "not_equal"},
                       {"Array.__and__", "bitwise_and"},
                       {"Array.__or__", "bitwise_or"},
                       {"Array.__xor__", "bitwise_xor"},
                       {"Array.__lshift__", "bitwise_left_shift"},
                       {"Array.__rshift__", "bitwise_right_shift"},
                       {"Array.__invert__", "bitwise_invert"},
                       {"Array.__pos__", "positive"}};

int refarray_call(const ds_vendor *v, void *lib, const char *name, const ds_value *args,
                  size_t nargs, const char *const *kwnames, const ds_value *kwargs, size_t nkw,
                  ds_call_result *out)
{
    int fn;
    out->value.kind = DS_VALUE_ARRAY;
    if (lookup(binary_names, name, &fn)) {
        ds_operand x1, x2;
        if (call_keywords(name, kwnames, nkw, NULL) < 0 || call_nargs(name, nargs, 2) < 0 ||
            call_operand(name, &args[0], &x1) < 0 || call_operand(name, &args[1], &x2) < 0)
            return -1;
        return v->binary(lib, (ds_binary_fn)fn, x1, x2, &out->value.array);
    }
    if (lookup(unary_names, name, &fn)) {
        ds_array x;
        if (call_keywords(name, kwnames, nkw, NULL) < 0 || call_nargs(name, nargs, 1) < 0 ||
            call_array(name, &args[0], &x) < 0)
            return -1;
        return v->unary(lib, (ds_unary_fn)fn, x, &out->value.array);
    }
    if (!strcmp(name, "matmul") || !strcmp(name, "Array.__matmul__")) {
        ds_array x1, x2;
        if (call_keywords(name, kwnames, nkw, NULL) < 0 || call_nargs(name, nargs, 2) < 0 ||
            call_array(name, &args[0], &x1) < 0 || call_array(name, &args[1], &x2) < 0)
            return -1;
        return v->matmul(lib, x1, x2, &out->value.array);
    }
    if (!strcmp(name, "tril") || !strcmp(name, "triu")) {
        static const char *const allowed[] = {"k", NULL};
        ds_array x;
        int64_t k = 0;
        if (call_keywords(name, kwnames, nkw, allowed) < 0 || call_nargs(name, nargs, 1) < 0 ||
            call_array(name, &args[0], &x) < 0 ||
            call_int(name, call_keyword(kwnames, kwargs, nkw, "k"), false, NULL, &k) < 0)
            return -1;
        return v->tri(lib, name[3] == 'u', x, k, &out->value.array);
    }
    const char *fn2 = name;
    for (size_t i = 0; i < sizeof math2_operators / sizeof math2_operators[0]; i++)
        if (!strcmp(name, math2_operators[i].method)) fn2 = math2_operators[i].function;
    for (int m = RA_MATH_SIN; ra_math_name((ra_math_fn)m); m++) {
        if (strcmp(ra_math_name((ra_math_fn)m), fn2) != 0) continue;
        ds_array x;
        if (call_keywords(name, kwnames, nkw, NULL) < 0 || call_nargs(name, nargs, 1) < 0 ||
            call_array(name, &args[0], &x) < 0)
            return -1;
        return call_status(lib, ra_math_unary(refarray_ctx(lib), (ra_math_fn)m, x,
                                              (ra_array **)&out->value.array));
    }
    for (int m = RA_MATH2_ATAN2; ra_math2_name((ra_math2_fn)m); m++) {
        if (strcmp(ra_math2_name((ra_math2_fn)m), fn2) != 0) continue;
        ds_operand x1, x2;
        if (call_keywords(name, kwnames, nkw, NULL) < 0 || call_nargs(name, nargs, 2) < 0 ||
            call_operand(name, &args[0], &x1) < 0 || call_operand(name, &args[1], &x2) < 0)
            return -1;
        return call_status(lib,
                           ra_math_binary(refarray_ctx(lib), (ra_math2_fn)m, call_ra_operand(&x1),
                                          call_ra_operand(&x2), (ra_array **)&out->value.array));
    }
    for (const refarray_call_entry *const *t = refarray_call_tables; *t; t++)
        for (const refarray_call_entry *e = *t; e->name; e++)
            if (!strcmp(e->name, name)) {
                const refarray_args a = {v, name, args, nargs, kwnames, kwargs, nkw};
                return e->fn(lib, &a, out);
            }
    ds_lacks(name, "refarray has no %s through the generic call yet", name);
    return -1;
}
