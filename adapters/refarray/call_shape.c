/*
 * call_shape.c: the names of the standard's manipulation, indexing, searching, set and sorting
 * functions that refarray's generic call answers (refarray_fn_shape.h), and Array.__getitem__
 * and Array.__setitem__; a name not here, nor in call.c, is lacking. Each handler reads the
 * standard's arguments (positional, or by keyword where the standard allows), calls the
 * typed function, and turns a refarray status into the library's error.
 */
#include "adapter_call.h"
#include "refarray_fn_shape.h"

#include <stdlib.h>
#include <string.h>

/* The argument at position pos, or the keyword kw (NULL: neither). */
static const ds_value *arg(const refarray_args *a, size_t pos, const char *kw)
{
    if (pos < a->nargs) return &a->args[pos];
    return kw ? call_keyword(a->kwnames, a->kwargs, a->nkw, kw) : NULL;
}

static int check(const refarray_args *a, size_t min, size_t max, const char *const *kws)
{
    if (call_keywords(a->name, a->kwnames, a->nkw, kws) < 0) return -1;
    return call_nargs_between(a->name, a->nargs, min, max);
}

static int bool_kw(const refarray_args *a, const char *kw, bool *out)
{
    const ds_value *v = call_keyword(a->kwnames, a->kwargs, a->nkw, kw);
    if (v == NULL) return 0;
    if (v->kind != DS_VALUE_SCALAR || v->scalar.kind != DS_SCALAR_BOOL) {
        ds_error("TypeError", "%s: %s must be a bool", a->name, kw);
        return -1;
    }
    *out = v->scalar.b;
    return 0;
}

/* A tuple or list of arrays, in a new list the caller frees (call_arrays). */
static const ra_array **array_list(const refarray_args *a, const ds_value *v, size_t *n)
{
    if (v == NULL || (v->kind != DS_VALUE_TUPLE && v->kind != DS_VALUE_LIST)) {
        ds_error("TypeError", "%s takes a tuple or list of arrays", a->name);
        return NULL;
    }
    *n = v->n;
    return call_arrays(a->name, v->items, v->n);
}

/* ---- manipulation ------------------------------------------------------------------------ */

static int do_broadcast_arrays(void *lib, const refarray_args *a, ds_call_result *out)
{
    if (check(a, 0, a->nargs, NULL) < 0) return -1;
    const ra_array **xs = call_arrays(a->name, a->args, a->nargs);
    ra_array **ys = xs ? call_room(a->name, a->nargs) : NULL;
    int st = -1;
    if (ys != NULL)
        st = call_tuple(lib, out, ra_broadcast_arrays(refarray_ctx(lib), xs, a->nargs, ys), ys,
                        a->nargs);
    free(xs);
    free(ys);
    return st;
}

/* broadcast_shapes(*shapes): each a tuple of ints; a tuple of ints back (value.items, valid
 * until the next call on this thread). */
static int do_broadcast_shapes(void *lib, const refarray_args *a, ds_call_result *out)
{
    static _Thread_local ds_value items[RA_MAX_NDIM];
    int64_t r[RA_MAX_NDIM];
    size_t nd = 0, n = a->nargs ? a->nargs : 1;
    if (check(a, 0, a->nargs, NULL) < 0) return -1;
    int64_t(*shapes)[RA_MAX_NDIM] = calloc(n, sizeof *shapes);
    const int64_t **sp = calloc(n, sizeof *sp);
    size_t *nds = calloc(n, sizeof *nds);
    int st = shapes && sp && nds ? 0 : -1;
    if (st < 0) ds_error("MemoryError", "%s: out of memory", a->name);
    for (size_t i = 0; st == 0 && i < a->nargs; i++) {
        if (a->args[i].kind != DS_VALUE_TUPLE && a->args[i].kind != DS_VALUE_LIST) {
            ds_error("TypeError", "%s: each shape is a tuple of ints", a->name);
            st = -1;
        } else {
            st = call_int_list(a->name, &a->args[i], shapes[i], RA_MAX_NDIM, &nds[i], NULL);
            sp[i] = shapes[i];
        }
    }
    if (st == 0)
        st = call_status(lib, ra_broadcast_shapes(refarray_ctx(lib), sp, nds, a->nargs, r, &nd));
    free(shapes);
    free(sp);
    free(nds);
    if (st != 0) return st;
    for (size_t d = 0; d < nd; d++) {
        memset(&items[d], 0, sizeof items[d]);
        items[d].kind = DS_VALUE_SCALAR;
        items[d].scalar.kind = DS_SCALAR_INT;
        items[d].scalar.i = r[d];
    }
    out->value.kind = DS_VALUE_TUPLE;
    out->value.items = items;
    out->value.n = nd;
    out->n = 0;
    return 0;
}

static int do_concat(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"axis", NULL};
    const ra_array **xs = NULL;
    size_t n = 0;
    int64_t axis = 0;
    bool none;
    ra_array *y = NULL;
    if (check(a, 1, 1, kws) < 0 ||
        call_int(a->name, call_keyword(a->kwnames, a->kwargs, a->nkw, "axis"), true, &none, &axis) <
            0 ||
        (xs = array_list(a, &a->args[0], &n)) == NULL)
        return -1;
    none = none && call_keyword(a->kwnames, a->kwargs, a->nkw, "axis") != NULL;
    int st =
        call_one_array(lib, out, ra_concat(refarray_ctx(lib), xs, n, none ? NULL : &axis, &y), &y);
    free(xs);
    return st;
}

static int do_expand_dims(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"axis", NULL};
    ds_array x;
    int64_t axes[RA_MAX_NDIM] = {0};
    size_t n = 1;
    bool none;
    ra_array *y = NULL;
    if (check(a, 1, 2, kws) < 0 || call_array(a->name, &a->args[0], &x) < 0 ||
        call_int_list(a->name, arg(a, 1, "axis"), axes, RA_MAX_NDIM, &n, &none) < 0)
        return -1;
    if (none) n = 1, axes[0] = 0;
    return call_one_array(lib, out, ra_expand_dims(refarray_ctx(lib), x, axes, n, &y), &y);
}

static int do_moveaxis(void *lib, const refarray_args *a, ds_call_result *out)
{
    ds_array x;
    int64_t src[RA_MAX_NDIM], dst[RA_MAX_NDIM];
    size_t ns, nd;
    ra_array *y = NULL;
    if (check(a, 3, 3, NULL) < 0 || call_array(a->name, &a->args[0], &x) < 0 ||
        call_int_list(a->name, &a->args[1], src, RA_MAX_NDIM, &ns, NULL) < 0 ||
        call_int_list(a->name, &a->args[2], dst, RA_MAX_NDIM, &nd, NULL) < 0)
        return -1;
    if (ns != nd) {
        ds_error("ValueError", "%s: source and destination differ in length", a->name);
        return -1;
    }
    return call_one_array(lib, out, ra_moveaxis(refarray_ctx(lib), x, src, dst, ns, &y), &y);
}

static int do_repeat(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"axis", NULL};
    ds_array x;
    int64_t n = 0, axis = 0;
    bool none;
    ra_array *y = NULL;
    const ra_array *reps = NULL;
    if (check(a, 2, 2, kws) < 0 || call_array(a->name, &a->args[0], &x) < 0 ||
        call_int(a->name, call_keyword(a->kwnames, a->kwargs, a->nkw, "axis"), true, &none, &axis) <
            0)
        return -1;
    if (a->args[1].kind == DS_VALUE_ARRAY)
        reps = a->args[1].array;
    else if (call_int(a->name, &a->args[1], false, NULL, &n) < 0)
        return -1;
    return call_one_array(lib, out,
                          ra_repeat(refarray_ctx(lib), x, reps, n, none ? NULL : &axis, &y), &y);
}

static int do_reshape(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"shape", "copy", NULL};
    ds_array x;
    int64_t shape[RA_MAX_NDIM];
    size_t nd;
    ra_array *y = NULL;
    const ds_value *copy = call_keyword(a->kwnames, a->kwargs, a->nkw, "copy");
    if (check(a, 1, 2, kws) < 0 || call_array(a->name, &a->args[0], &x) < 0 ||
        call_int_list(a->name, arg(a, 1, "shape"), shape, RA_MAX_NDIM, &nd, NULL) < 0)
        return -1;
    if (copy && copy->kind == DS_VALUE_SCALAR && copy->scalar.kind == DS_SCALAR_BOOL &&
        !copy->scalar.b) {
        ds_error("ValueError", "%s: refarray always copies (copy=False cannot be met)", a->name);
        return -1;
    }
    return call_one_array(lib, out, ra_reshape(refarray_ctx(lib), x, shape, nd, &y), &y);
}

static int do_roll(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"shift", "axis", NULL};
    ds_array x;
    int64_t shifts[RA_MAX_NDIM], axes[RA_MAX_NDIM];
    size_t ns, na;
    bool none;
    ra_array *y = NULL;
    if (check(a, 1, 2, kws) < 0 || call_array(a->name, &a->args[0], &x) < 0 ||
        call_int_list(a->name, arg(a, 1, "shift"), shifts, RA_MAX_NDIM, &ns, NULL) < 0 ||
        call_int_list(a->name, call_keyword(a->kwnames, a->kwargs, a->nkw, "axis"), axes,
                      RA_MAX_NDIM, &na, &none) < 0)
        return -1;
    return call_one_array(
        lib, out, ra_roll(refarray_ctx(lib), x, shifts, ns, none ? NULL : axes, na, &y), &y);
}

/* unstack(x, axis): x.shape[axis] arrays, any number (call_tuple). */
static int do_unstack(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"axis", NULL};
    ds_array x;
    int64_t axis = 0;
    if (check(a, 1, 1, kws) < 0 || call_array(a->name, &a->args[0], &x) < 0 ||
        call_int(a->name, call_keyword(a->kwnames, a->kwargs, a->nkw, "axis"), false, NULL, &axis) <
            0)
        return -1;
    /* Room for the length along axis when axis is valid; otherwise ra_unstack says why. */
    int64_t nd = (int64_t)ra_array_ndim(x), ax = axis < 0 ? axis + nd : axis;
    size_t cap = ax >= 0 && ax < nd ? (size_t)ra_array_shape(x)[ax] : 0, n = 0;
    ra_array **ys = call_room(a->name, cap);
    if (ys == NULL) return -1;
    int st = ra_unstack(refarray_ctx(lib), x, axis, ys, cap, &n);
    st = call_tuple(lib, out, st, ys, n);
    free(ys);
    return st;
}

/* ---- indexing ---------------------------------------------------------------------------- */

static int do_take(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"axis", NULL};
    ds_array x, ix;
    int64_t axis = 0;
    bool none;
    ra_array *y = NULL;
    if (check(a, 2, 2, kws) < 0 || call_array(a->name, &a->args[0], &x) < 0 ||
        call_array(a->name, &a->args[1], &ix) < 0 ||
        call_int(a->name, call_keyword(a->kwnames, a->kwargs, a->nkw, "axis"), true, &none, &axis) <
            0)
        return -1;
    return call_one_array(lib, out, ra_take(refarray_ctx(lib), x, ix, none ? NULL : &axis, &y), &y);
}

static int do_take_along_axis(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"axis", NULL};
    ds_array x, ix;
    int64_t axis = -1;
    ra_array *y = NULL;
    if (check(a, 2, 2, kws) < 0 || call_array(a->name, &a->args[0], &x) < 0 ||
        call_array(a->name, &a->args[1], &ix) < 0 ||
        call_int(a->name, call_keyword(a->kwnames, a->kwargs, a->nkw, "axis"), false, NULL, &axis) <
            0)
        return -1;
    return call_one_array(lib, out, ra_take_along_axis(refarray_ctx(lib), x, ix, axis, &y), &y);
}

/* A key: one index or a tuple of them. */
static int key_of(const refarray_args *a, const ds_value *k, ra_index *idx, size_t *n)
{
    const ds_value *items = k;
    size_t count = 1;
    if (k->kind == DS_VALUE_TUPLE) {
        items = k->items;
        count = k->n;
    }
    if (count > RA_MAX_NDIM) {
        ds_error("IndexError", "%s: %zu indices", a->name, count);
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        const ds_value *v = &items[i];
        ra_index *e = &idx[i];
        memset(e, 0, sizeof *e);
        switch (v->kind) {
        case DS_VALUE_SCALAR:
            if (v->scalar.kind != DS_SCALAR_INT) break;
            e->kind = RA_INDEX_INT;
            if (call_int(a->name, v, false, NULL, &e->i) < 0) return -1;
            continue;
        case DS_VALUE_SLICE:
            e->kind = RA_INDEX_SLICE;
            e->start = v->slice[0], e->stop = v->slice[1], e->step = v->slice[2];
            e->has_start = v->slice_set[0], e->has_stop = v->slice_set[1];
            e->has_step = v->slice_set[2];
            continue;
        case DS_VALUE_ELLIPSIS:
            e->kind = RA_INDEX_ELLIPSIS;
            continue;
        case DS_VALUE_NONE:
            e->kind = RA_INDEX_NEWAXIS;
            continue;
        case DS_VALUE_ARRAY:
            e->kind = RA_INDEX_ARRAY;
            e->array = v->array;
            continue;
        default:
            break;
        }
        ds_error("IndexError", "%s: index %zu is not an int, slice, ellipsis, None or array",
                 a->name, i);
        return -1;
    }
    *n = count;
    return 0;
}

static int do_getitem(void *lib, const refarray_args *a, ds_call_result *out)
{
    ds_array x;
    ra_index idx[RA_MAX_NDIM];
    size_t n;
    ra_array *y = NULL;
    if (check(a, 2, 2, NULL) < 0 || call_array(a->name, &a->args[0], &x) < 0 ||
        key_of(a, &a->args[1], idx, &n) < 0)
        return -1;
    return call_one_array(lib, out, ra_getitem(refarray_ctx(lib), x, idx, n, &y), &y);
}

static int do_setitem(void *lib, const refarray_args *a, ds_call_result *out)
{
    ds_array x;
    ra_index idx[RA_MAX_NDIM];
    size_t n;
    ds_operand v;
    if (check(a, 3, 3, NULL) < 0 || call_array(a->name, &a->args[0], &x) < 0 ||
        key_of(a, &a->args[1], idx, &n) < 0 || call_operand(a->name, &a->args[2], &v) < 0)
        return -1;
    int st = ra_setitem(refarray_ctx(lib), x, idx, n, call_ra_operand(&v));
    if (call_status(lib, st) != RA_OK) return st;
    out->value.kind = DS_VALUE_NONE;
    return 0;
}

/* ---- searching --------------------------------------------------------------------------- */

static int do_arg_extreme(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"axis", "keepdims", NULL};
    ds_array x;
    int64_t axis = 0;
    bool none, keep = false;
    ra_array *y = NULL;
    if (check(a, 1, 1, kws) < 0 || call_array(a->name, &a->args[0], &x) < 0 ||
        call_int(a->name, call_keyword(a->kwnames, a->kwargs, a->nkw, "axis"), true, &none, &axis) <
            0 ||
        bool_kw(a, "keepdims", &keep) < 0)
        return -1;
    ra_ctx *ctx = refarray_ctx(lib);
    const int64_t *ax = none ? NULL : &axis;
    int st = !strcmp(a->name, "argmax") ? ra_argmax(ctx, x, ax, keep, &y)
                                        : ra_argmin(ctx, x, ax, keep, &y);
    return call_one_array(lib, out, st, &y);
}

static int do_count_nonzero(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"axis", "keepdims", NULL};
    ds_array x;
    int64_t axes[RA_MAX_NDIM];
    size_t n;
    bool none, keep = false;
    ra_array *y = NULL;
    if (check(a, 1, 1, kws) < 0 || call_array(a->name, &a->args[0], &x) < 0 ||
        call_int_list(a->name, call_keyword(a->kwnames, a->kwargs, a->nkw, "axis"), axes,
                      RA_MAX_NDIM, &n, &none) < 0 ||
        bool_kw(a, "keepdims", &keep) < 0)
        return -1;
    return call_one_array(
        lib, out, ra_count_nonzero(refarray_ctx(lib), x, none ? NULL : axes, n, keep, &y), &y);
}

static int do_nonzero(void *lib, const refarray_args *a, ds_call_result *out)
{
    ds_array x;
    ra_array *ys[RA_MAX_NDIM];
    size_t n = 0;
    if (check(a, 1, 1, NULL) < 0 || call_array(a->name, &a->args[0], &x) < 0) return -1;
    int st = ra_nonzero(refarray_ctx(lib), x, ys, RA_MAX_NDIM, &n);
    return call_tuple(lib, out, st, ys, n);
}

static int do_searchsorted(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"side", "sorter", NULL};
    ds_array x1;
    ds_operand x2;
    ra_array *y = NULL;
    const ra_array *sorter = NULL;
    const ds_value *side = call_keyword(a->kwnames, a->kwargs, a->nkw, "side");
    const ds_value *sv = call_keyword(a->kwnames, a->kwargs, a->nkw, "sorter");
    if (check(a, 2, 2, kws) < 0 || call_array(a->name, &a->args[0], &x1) < 0 ||
        call_operand(a->name, &a->args[1], &x2) < 0)
        return -1;
    bool right = false;
    if (side) {
        if (side->kind != DS_VALUE_STRING ||
            (strcmp(side->str, "left") != 0 && strcmp(side->str, "right") != 0)) {
            ds_error("ValueError", "%s: side must be 'left' or 'right'", a->name);
            return -1;
        }
        right = side->str[0] == 'r';
    }
    if (sv && sv->kind != DS_VALUE_NONE) {
        ds_array s;
        if (call_array(a->name, sv, &s) < 0) return -1;
        sorter = s;
    }
    return call_one_array(
        lib, out, ra_searchsorted(refarray_ctx(lib), x1, call_ra_operand(&x2), right, sorter, &y),
        &y);
}

static int do_where(void *lib, const refarray_args *a, ds_call_result *out)
{
    ds_array c;
    ds_operand x1, x2;
    ra_array *y = NULL;
    if (check(a, 3, 3, NULL) < 0 || call_array(a->name, &a->args[0], &c) < 0 ||
        call_operand(a->name, &a->args[1], &x1) < 0 || call_operand(a->name, &a->args[2], &x2) < 0)
        return -1;
    return call_one_array(
        lib, out, ra_where(refarray_ctx(lib), c, call_ra_operand(&x1), call_ra_operand(&x2), &y),
        &y);
}

/* ---- sets -------------------------------------------------------------------------------- */

static int do_unique(void *lib, const refarray_args *a, ds_call_result *out)
{
    ds_array x;
    if (check(a, 1, 1, NULL) < 0 || call_array(a->name, &a->args[0], &x) < 0) return -1;
    ra_array *v = NULL, *ix = NULL, *inv = NULL, *cnt = NULL;
    const char *which = a->name + strlen("unique_");
    bool all = !strcmp(which, "all"), counts = all || !strcmp(which, "counts"),
         inverse = all || !strcmp(which, "inverse");
    int st = ra_unique(refarray_ctx(lib), x, &v, all ? &ix : NULL, inverse ? &inv : NULL,
                       counts ? &cnt : NULL);
    if (!strcmp(which, "values")) return call_one_array(lib, out, st, &v);
    ra_array *ys[4] = {v};
    size_t n = 1;
    if (all) ys[n++] = ix;
    if (inverse) ys[n++] = inv;
    if (counts) ys[n++] = cnt;
    return call_tuple(lib, out, st, ys, n);
}

static int do_isin(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"invert", NULL};
    ds_operand x1, x2;
    bool invert = false;
    ra_array *y = NULL;
    if (check(a, 2, 2, kws) < 0 || call_operand(a->name, &a->args[0], &x1) < 0 ||
        call_operand(a->name, &a->args[1], &x2) < 0 || bool_kw(a, "invert", &invert) < 0)
        return -1;
    return call_one_array(
        lib, out,
        ra_isin(refarray_ctx(lib), call_ra_operand(&x1), call_ra_operand(&x2), invert, &y), &y);
}

/* ---- sorting ----------------------------------------------------------------------------- */

static int do_sort(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"axis", "descending", "stable", NULL};
    ds_array x;
    int64_t axis = -1;
    bool descending = false, stable = true;
    ra_array *y = NULL;
    if (check(a, 1, 1, kws) < 0 || call_array(a->name, &a->args[0], &x) < 0 ||
        call_int(a->name, call_keyword(a->kwnames, a->kwargs, a->nkw, "axis"), false, NULL, &axis) <
            0 ||
        bool_kw(a, "descending", &descending) < 0 || bool_kw(a, "stable", &stable) < 0)
        return -1;
    ra_ctx *ctx = refarray_ctx(lib);
    int st = !strcmp(a->name, "sort") ? ra_sort(ctx, x, axis, descending, stable, &y)
                                      : ra_argsort(ctx, x, axis, descending, stable, &y);
    return call_one_array(lib, out, st, &y);
}

/* The names this file answers: the rows of spec/signatures.json whose refarray entry names
 * one of its handlers (call_tables_generated.h). */
const refarray_call_entry refarray_calls_shape[] = {REFARRAY_CALLS_SHAPE{NULL, NULL}};
