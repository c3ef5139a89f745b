/*
 * call_elementwise.c: the names of the standard's elementwise, creation, data type, statistical and
 * utility functions that refarray's generic call answers (refarray_fn_elementwise.h); a name not
 * here, nor in call.c, is lacking.
 */
#include "adapter_call.h"
#include "adapter_internal.h"

#include <refarray_fn_elementwise.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- elementwise ---- */

static int call_clip(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const allowed[] = {"min", "max", NULL};
    const ds_value *bv[2];
    ds_array x;
    if (call_keywords(a->name, a->kwnames, a->nkw, allowed) < 0 ||
        call_nargs_between(a->name, a->nargs, 1, 3) < 0 ||
        call_array(a->name, &a->args[0], &x) < 0 || arg_or_keyword(a, 1, "min", &bv[0]) < 0 ||
        arg_or_keyword(a, 2, "max", &bv[1]) < 0)
        return -1;
    ra_operand b[2];
    const ra_operand *bp[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        if (!bv[k] || bv[k]->kind == DS_VALUE_NONE) continue;
        ds_operand o;
        if (call_operand(a->name, bv[k], &o) < 0) return -1;
        b[k] = call_ra_operand(&o);
        bp[k] = &b[k];
    }
    out->value.kind = DS_VALUE_ARRAY;
    return call_status(lib,
                       ra_clip(refarray_ctx(lib), x, bp[0], bp[1], (ra_array **)&out->value.array));
}

/* ---- keyword values ---- */

/* A dtype keyword: absent or None is DS_DTYPE_NONE. */
static int kw_dtype(const refarray_args *a, const char *kw, ds_dtype *out)
{
    const ds_value *v = call_keyword(a->kwnames, a->kwargs, a->nkw, kw);
    *out = DS_DTYPE_NONE;
    if (!v || v->kind == DS_VALUE_NONE) return 0;
    if (v->kind != DS_VALUE_DTYPE) {
        ds_error("TypeError", "%s: %s must be a dtype or None", a->name, kw);
        return -1;
    }
    *out = v->dtype;
    return 0;
}

/* The device keyword: absent or None is DS_DEVICE_NONE. */
static int kw_device(const refarray_args *a, ds_device *out)
{
    const ds_value *v = call_keyword(a->kwnames, a->kwargs, a->nkw, "device");
    memset(out, 0, sizeof *out);
    if (!v || v->kind == DS_VALUE_NONE) return 0;
    if (v->kind != DS_VALUE_DEVICE) {
        ds_error("TypeError", "%s: device must be a device or None", a->name);
        return -1;
    }
    *out = v->device;
    return 0;
}

/* A bool keyword (absent: *out unchanged); with none_ok, None leaves it unchanged and sets
 * *none. */
static int kw_bool(const refarray_args *a, const char *kw, bool none_ok, bool *none, bool *out)
{
    const ds_value *v = call_keyword(a->kwnames, a->kwargs, a->nkw, kw);
    if (none) *none = v && v->kind == DS_VALUE_NONE;
    if (!v || (none_ok && v->kind == DS_VALUE_NONE)) return 0;
    if (v->kind != DS_VALUE_SCALAR || v->scalar.kind != DS_SCALAR_BOOL) {
        ds_error("TypeError", "%s: %s must be a bool", a->name, kw);
        return -1;
    }
    *out = v->scalar.b;
    return 0;
}

/* A shape: an int or a tuple of ints (each >= 0 is the library's check). */
static int shape_value(const refarray_args *a, const ds_value *v, int64_t *shape, int *ndim)
{
    if (v->kind == DS_VALUE_SCALAR) {
        *ndim = 1;
        return call_int(a->name, v, false, NULL, &shape[0]);
    }
    if ((v->kind != DS_VALUE_TUPLE && v->kind != DS_VALUE_LIST) || v->n > RA_MAX_NDIM) {
        ds_error("TypeError", "%s: shape must be an int or a tuple of at most %d ints", a->name,
                 RA_MAX_NDIM);
        return -1;
    }
    *ndim = (int)v->n;
    for (size_t i = 0; i < v->n; i++)
        if (call_int(a->name, &v->items[i], false, NULL, &shape[i]) < 0) return -1;
    return 0;
}

/* The axis keyword of a reduction: absent or None is every axis (*all); an int, or a tuple
 * of ints. */
static int kw_axes(const refarray_args *a, int64_t *axes, size_t *naxes, bool *all)
{
    const ds_value *v = call_keyword(a->kwnames, a->kwargs, a->nkw, "axis");
    *all = !v || v->kind == DS_VALUE_NONE;
    *naxes = 0;
    if (*all) return 0;
    if (v->kind == DS_VALUE_TUPLE || v->kind == DS_VALUE_LIST) {
        if (v->n > RA_MAX_NDIM) {
            ds_error("TypeError", "%s: at most %d axes", a->name, RA_MAX_NDIM);
            return -1;
        }
        for (size_t i = 0; i < v->n; i++)
            if (call_int(a->name, &v->items[i], false, NULL, &axes[i]) < 0) return -1;
        *naxes = v->n;
        return 0;
    }
    *naxes = 1;
    return call_int(a->name, v, false, NULL, &axes[0]);
}

static ds_scalar scalar_arg(const refarray_args *a, size_t i, bool *ok)
{
    ds_scalar s;
    memset(&s, 0, sizeof s);
    *ok = i < a->nargs && a->args[i].kind == DS_VALUE_SCALAR;
    if (*ok) s = a->args[i].scalar;
    if (!*ok) ds_error("TypeError", "%s: argument %zu must be a Python scalar", a->name, i + 1);
    return s;
}

/* ---- creation ---- */

static int call_fill(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const allowed[] = {"dtype", "device", NULL};
    bool full = !strcmp(a->name, "full");
    ds_fill_fn fn = a->name[0] == 'z' ? DS_ZEROS : a->name[0] == 'o' ? DS_ONES : DS_EMPTY;
    int64_t shape[RA_MAX_NDIM];
    int ndim = 0;
    ds_dtype dt;
    ds_device dev;
    bool ok = true;
    if (call_keywords(a->name, a->kwnames, a->nkw, allowed) < 0 ||
        call_nargs(a->name, a->nargs, full ? 2 : 1) < 0 ||
        shape_value(a, &a->args[0], shape, &ndim) < 0 || kw_dtype(a, "dtype", &dt) < 0 ||
        kw_device(a, &dev) < 0)
        return -1;
    const ds_vendor *v = a->vendor;
    out->value.kind = DS_VALUE_ARRAY;
    if (!full) return v->fill(lib, fn, shape, ndim, dt, dev, &out->value.array);
    ds_scalar fill = scalar_arg(a, 1, &ok);
    if (!ok) return -1;
    return v->full(lib, shape, ndim, fill, dt, dev, &out->value.array);
}

static int call_like(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const allowed[] = {"dtype", "device", NULL};
    bool full = !strcmp(a->name, "full_like");
    ds_fill_fn fn = a->name[0] == 'z' ? DS_ZEROS : a->name[0] == 'o' ? DS_ONES : DS_EMPTY;
    ds_array x;
    ds_dtype dt;
    ds_device dev;
    bool ok = true;
    if (call_keywords(a->name, a->kwnames, a->nkw, allowed) < 0 ||
        call_nargs(a->name, a->nargs, full ? 2 : 1) < 0 ||
        call_array(a->name, &a->args[0], &x) < 0 || kw_dtype(a, "dtype", &dt) < 0 ||
        kw_device(a, &dev) < 0)
        return -1;
    const ds_vendor *v = a->vendor;
    out->value.kind = DS_VALUE_ARRAY;
    if (!full) return v->fill_like(lib, fn, x, dt, dev, &out->value.array);
    ds_scalar fill = scalar_arg(a, 1, &ok);
    if (!ok) return -1;
    return v->full_like(lib, x, fill, dt, dev, &out->value.array);
}

static int call_arange(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const allowed[] = {"stop", "step", "dtype", "device", NULL};
    const ds_value *sv[2];
    ds_scalar start, stop, step;
    ds_dtype dt;
    ds_device dev;
    bool ok = true;
    if (call_keywords(a->name, a->kwnames, a->nkw, allowed) < 0 ||
        call_nargs_between(a->name, a->nargs, 1, 3) < 0 ||
        arg_or_keyword(a, 1, "stop", &sv[0]) < 0 || arg_or_keyword(a, 2, "step", &sv[1]) < 0 ||
        kw_dtype(a, "dtype", &dt) < 0 || kw_device(a, &dev) < 0)
        return -1;
    start = scalar_arg(a, 0, &ok);
    if (!ok) return -1;
    const ds_scalar *p[2] = {NULL, NULL};
    ds_scalar *dst[2] = {&stop, &step};
    for (int k = 0; k < 2; k++) {
        if (!sv[k] || sv[k]->kind == DS_VALUE_NONE) continue;
        if (sv[k]->kind != DS_VALUE_SCALAR) {
            ds_error("TypeError", "arange: %s must be a Python scalar", k ? "step" : "stop");
            return -1;
        }
        *dst[k] = sv[k]->scalar;
        p[k] = dst[k];
    }
    out->value.kind = DS_VALUE_ARRAY;
    return a->vendor->arange(lib, start, p[0], p[1], dt, dev, &out->value.array);
}

static int call_linspace(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const allowed[] = {"num", "dtype", "device", "endpoint", NULL};
    const ds_value *nv;
    int64_t num = 0;
    bool endpoint = true, ok1 = true, ok2 = true;
    ds_dtype dt;
    ds_device dev;
    if (call_keywords(a->name, a->kwnames, a->nkw, allowed) < 0 ||
        call_nargs_between(a->name, a->nargs, 2, 3) < 0 || arg_or_keyword(a, 2, "num", &nv) < 0 ||
        kw_dtype(a, "dtype", &dt) < 0 || kw_device(a, &dev) < 0 ||
        kw_bool(a, "endpoint", false, NULL, &endpoint) < 0)
        return -1;
    if (!nv) {
        ds_error("TypeError", "linspace: num is required");
        return -1;
    }
    ds_scalar start = scalar_arg(a, 0, &ok1), stop = scalar_arg(a, 1, &ok2);
    if (!ok1 || !ok2 || call_int(a->name, nv, false, NULL, &num) < 0) return -1;
    out->value.kind = DS_VALUE_ARRAY;
    return a->vendor->linspace(lib, start, stop, num, endpoint, dt, dev, &out->value.array);
}

static int call_eye(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const allowed[] = {"k", "dtype", "device", NULL};
    int64_t rows = 0, cols = 0, k = 0;
    bool none = true;
    ds_dtype dt;
    ds_device dev;
    if (call_keywords(a->name, a->kwnames, a->nkw, allowed) < 0 ||
        call_nargs_between(a->name, a->nargs, 1, 2) < 0 ||
        call_int(a->name, &a->args[0], false, NULL, &rows) < 0 ||
        call_int(a->name, a->nargs > 1 ? &a->args[1] : NULL, true, &none, &cols) < 0 ||
        call_int(a->name, call_keyword(a->kwnames, a->kwargs, a->nkw, "k"), false, NULL, &k) < 0 ||
        kw_dtype(a, "dtype", &dt) < 0 || kw_device(a, &dev) < 0)
        return -1;
    out->value.kind = DS_VALUE_ARRAY;
    return a->vendor->eye(lib, rows, none ? NULL : &cols, k, dt, dev, &out->value.array);
}

/* copy=: absent or None is if-needed, True always, False never. */
static int kw_copy(const refarray_args *a, ds_copy *out)
{
    bool none = false, copy = false;
    const ds_value *v = call_keyword(a->kwnames, a->kwargs, a->nkw, "copy");
    *out = DS_COPY_IF_NEEDED;
    if (kw_bool(a, "copy", true, &none, &copy) < 0) return -1;
    if (v && !none) *out = copy ? DS_COPY_ALWAYS : DS_COPY_NEVER;
    return 0;
}

/* A nested sequence of Python scalars (asarray's `object`): its shape (every level's items
 * all sequences of one length, or all scalars) and the widest kind of its scalars (0 bool,
 * 1 int, 2 float, 3 complex; bool mixed with numbers is refused, as the standard's
 * promotion has no such pair). */
typedef struct seq_info {
    int ndim; /* -1 until the first scalar is met */
    int64_t shape[DS_MAX_NDIM];
    int kind; /* -1 before any scalar */
    bool has_bool, has_number, has_u, has_negative;
    size_t count;
} seq_info;

static int seq_walk(const char *name, const ds_value *v, int depth, seq_info *s)
{
    if (v->kind == DS_VALUE_LIST || v->kind == DS_VALUE_TUPLE) {
        if (depth >= DS_MAX_NDIM || (s->ndim >= 0 && depth >= s->ndim)) {
            ds_error("ValueError", "%s: the nested sequence is ragged or too deep", name);
            return -1;
        }
        if (s->ndim < 0 && s->shape[depth] < 0) s->shape[depth] = (int64_t)v->n;
        if (s->shape[depth] != (int64_t)v->n) {
            ds_error("ValueError", "%s: the nested sequence is ragged (lengths %lld and %zu)", name,
                     (long long)s->shape[depth], v->n);
            return -1;
        }
        for (size_t i = 0; i < v->n; i++)
            if (seq_walk(name, &v->items[i], depth + 1, s) < 0) return -1;
        if (v->n == 0 && s->ndim < 0) s->ndim = depth + 1;
        return 0;
    }
    if (v->kind != DS_VALUE_SCALAR) {
        ds_error("TypeError", "%s: a nested sequence holds Python scalars only", name);
        return -1;
    }
    if (s->ndim < 0) s->ndim = depth;
    if (depth != s->ndim) {
        ds_error("ValueError", "%s: the nested sequence is ragged", name);
        return -1;
    }
    int k = v->scalar.kind == DS_SCALAR_BOOL    ? 0
            : v->scalar.kind == DS_SCALAR_INT   ? 1
            : v->scalar.kind == DS_SCALAR_FLOAT ? 2
                                                : 3;
    s->has_bool = s->has_bool || k == 0;
    s->has_number = s->has_number || k > 0;
    s->has_u = s->has_u || (k == 1 && v->scalar.u);
    s->has_negative = s->has_negative || (k == 1 && !v->scalar.u && v->scalar.i < 0);
    if (k > s->kind) s->kind = k;
    s->count++;
    return 0;
}

/* The scalars of v into data (dtype dt: bool, int64, uint64, float64 or complex128), in C
 * order. */
static void seq_fill(const ds_value *v, ds_dtype dt, unsigned char *data, size_t *at)
{
    if (v->kind == DS_VALUE_LIST || v->kind == DS_VALUE_TUPLE) {
        for (size_t i = 0; i < v->n; i++)
            seq_fill(&v->items[i], dt, data, at);
        return;
    }
    const ds_scalar *x = &v->scalar;
    double re = x->kind == DS_SCALAR_INT    ? (x->u ? (double)(uint64_t)x->i : (double)x->i)
                : x->kind == DS_SCALAR_BOOL ? (double)x->b
                                            : x->f;
    switch (dt) {
    case DS_BOOL:
        data[(*at)++] = x->b;
        return;
    case DS_INT64:
    case DS_UINT64:
        memcpy(data + 8 * (*at)++, &x->i, 8);
        return;
    case DS_FLOAT64:
        memcpy(data + 8 * (*at)++, &re, 8);
        return;
    default: {
        double c[2] = {re, x->kind == DS_SCALAR_COMPLEX ? x->im : 0.0};
        memcpy(data + 16 * (*at)++, c, 16);
        return;
    }
    }
}

/* asarray of a nested sequence: the scalars in the widest kind's default dtype (bool, int64,
 * float64, complex128; uint64 for ints beyond int64), then refarray's asarray from host
 * memory with the dtype and device asked for. */
static int asarray_sequence(void *lib, const refarray_args *a, ds_dtype dt, ds_device dev,
                            ds_copy copy, ds_array *out)
{
    seq_info s;
    memset(&s, 0, sizeof s);
    s.ndim = -1;
    s.kind = -1;
    for (int d = 0; d < DS_MAX_NDIM; d++)
        s.shape[d] = -1;
    if (seq_walk(a->name, &a->args[0], 0, &s) < 0) return -1;
    if (s.has_bool && s.has_number) {
        ds_error("TypeError", "asarray: a sequence mixing bool and numbers has no dtype here");
        return -1;
    }
    if (s.has_u && s.has_negative) {
        ds_error("OverflowError", "asarray: ints beyond int64 beside negative ones");
        return -1;
    }
    ds_buffer b;
    memset(&b, 0, sizeof b);
    b.dtype = s.kind <= 0   ? DS_BOOL
              : s.kind == 1 ? (s.has_u ? DS_UINT64 : DS_INT64)
              : s.kind == 2 ? DS_FLOAT64
                            : DS_COMPLEX128;
    if (s.kind < 0 && dt == DS_DTYPE_NONE) b.dtype = DS_FLOAT64; /* asarray([]): float */
    b.ndim = s.ndim;
    memcpy(b.shape, s.shape, sizeof b.shape);
    b.nbytes = s.count * ds_dtype_size(b.dtype);
    b.data = calloc(s.count ? s.count : 1, ds_dtype_size(b.dtype));
    if (!b.data) {
        ds_error("MemoryError", "asarray: out of memory");
        return -1;
    }
    size_t at = 0;
    seq_fill(&a->args[0], b.dtype, b.data, &at);
    int st = a->vendor->asarray_buffer(lib, &b, dt, dev, copy, out);
    free(b.data);
    return st;
}

static int call_asarray(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const allowed[] = {"dtype", "device", "copy", NULL};
    ds_dtype dt;
    ds_device dev;
    ds_copy copy;
    if (call_keywords(a->name, a->kwnames, a->nkw, allowed) < 0 ||
        call_nargs(a->name, a->nargs, 1) < 0 || kw_dtype(a, "dtype", &dt) < 0 ||
        kw_device(a, &dev) < 0 || kw_copy(a, &copy) < 0)
        return -1;
    const ds_vendor *v = a->vendor;
    out->value.kind = DS_VALUE_ARRAY;
    if (a->args[0].kind == DS_VALUE_ARRAY)
        return v->asarray_array(lib, a->args[0].array, dt, dev, copy, &out->value.array);
    if (a->args[0].kind == DS_VALUE_SCALAR)
        return v->asarray_scalar(lib, a->args[0].scalar, dt, dev, copy, &out->value.array);
    if (a->args[0].kind == DS_VALUE_LIST || a->args[0].kind == DS_VALUE_TUPLE)
        return asarray_sequence(lib, a, dt, dev, copy, &out->value.array);
    ds_error("TypeError", "asarray: obj is an array, a Python scalar or a nested sequence of them");
    return -1;
}

static int call_from_dlpack(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const allowed[] = {"device", "copy", NULL};
    ds_array x;
    ds_device dev;
    ds_copy copy;
    if (call_keywords(a->name, a->kwnames, a->nkw, allowed) < 0 ||
        call_nargs(a->name, a->nargs, 1) < 0 || call_array(a->name, &a->args[0], &x) < 0 ||
        kw_device(a, &dev) < 0 || kw_copy(a, &copy) < 0)
        return -1;
    out->value.kind = DS_VALUE_ARRAY;
    return a->vendor->from_dlpack(lib, x, dev, copy, &out->value.array);
}

static int call_meshgrid(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const allowed[] = {"indexing", NULL};
    const ds_value *iv = call_keyword(a->kwnames, a->kwargs, a->nkw, "indexing");
    if (call_keywords(a->name, a->kwnames, a->nkw, allowed) < 0) return -1;
    bool ij = false;
    if (iv && (iv->kind != DS_VALUE_STRING || (strcmp(iv->str, "xy") && strcmp(iv->str, "ij")))) {
        ds_error("ValueError", "meshgrid: indexing must be 'xy' or 'ij'");
        return -1;
    }
    if (iv) ij = !strcmp(iv->str, "ij");
    out->value.kind = DS_VALUE_TUPLE;
    if (a->nargs == 0) return 0;
    const ra_array **xs = call_arrays(a->name, a->args, a->nargs);
    ra_array **ys = xs ? call_room(a->name, a->nargs) : NULL;
    int st = -1;
    if (ys != NULL)
        st = call_tuple(lib, out, ra_meshgrid(refarray_ctx(lib), xs, a->nargs, ij, ys), ys,
                        a->nargs);
    free(xs);
    free(ys);
    return st;
}

/* ---- data types ---- */

static int call_astype(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const allowed[] = {"copy", "device", NULL};
    ds_array x;
    ds_device dev;
    bool copy = true;
    if (call_keywords(a->name, a->kwnames, a->nkw, allowed) < 0 ||
        call_nargs(a->name, a->nargs, 2) < 0 || call_array(a->name, &a->args[0], &x) < 0 ||
        kw_device(a, &dev) < 0 || kw_bool(a, "copy", false, NULL, &copy) < 0)
        return -1;
    if (a->args[1].kind != DS_VALUE_DTYPE) {
        ds_error("TypeError", "astype: dtype must be a dtype");
        return -1;
    }
    out->value.kind = DS_VALUE_ARRAY;
    return a->vendor->astype(lib, x, a->args[1].dtype, copy, dev, &out->value.array);
}

static int call_can_cast(void *lib, const refarray_args *a, ds_call_result *out)
{
    if (call_keywords(a->name, a->kwnames, a->nkw, NULL) < 0 ||
        call_nargs(a->name, a->nargs, 2) < 0)
        return -1;
    const ds_value *f = &a->args[0], *t = &a->args[1];
    if ((f->kind != DS_VALUE_ARRAY && f->kind != DS_VALUE_DTYPE) || t->kind != DS_VALUE_DTYPE) {
        ds_error("TypeError", "can_cast: from_ is an array or a dtype, to a dtype");
        return -1;
    }
    bool b = false;
    int st = a->vendor->can_cast(lib, f->kind == DS_VALUE_ARRAY ? f->array : NULL, f->dtype,
                                 t->dtype, &b);
    if (st != 0) return st;
    out->value.kind = DS_VALUE_SCALAR;
    out->value.scalar.kind = DS_SCALAR_BOOL;
    out->value.scalar.b = b;
    return 0;
}

/* result_type(*arrays_and_dtypes): arrays and dtypes decide; a Python scalar (2024.12) takes
 * their result and must be of a kind it can hold (API-PROM-3), else TypeError. */
static int call_result_type(void *lib, const refarray_args *a, ds_call_result *out)
{
    if (call_keywords(a->name, a->kwnames, a->nkw, NULL) < 0) return -1;
    ds_array arrays[32];
    ds_dtype dtypes[32];
    size_t n = 0;
    if (a->nargs > 32) {
        ds_error("ValueError", "result_type: at most 32 arguments here");
        return -1;
    }
    for (size_t i = 0; i < a->nargs; i++) {
        const ds_value *v = &a->args[i];
        if (v->kind == DS_VALUE_SCALAR) continue;
        if (v->kind != DS_VALUE_ARRAY && v->kind != DS_VALUE_DTYPE) {
            ds_error("TypeError", "result_type: arguments are arrays, dtypes or Python scalars");
            return -1;
        }
        arrays[n] = v->kind == DS_VALUE_ARRAY ? v->array : NULL;
        dtypes[n++] = v->kind == DS_VALUE_DTYPE ? v->dtype : DS_DTYPE_NONE;
    }
    if (n == 0) {
        ds_error("ValueError", "result_type: at least one array or dtype is needed");
        return -1;
    }
    ds_dtype r = DS_DTYPE_NONE;
    int st = a->vendor->result_type(lib, arrays, dtypes, n, &r);
    if (st != 0) return st;
    unsigned k = ra_dtype_kind((ra_dtype)r);
    for (size_t i = 0; i < a->nargs; i++) {
        const ds_value *v = &a->args[i];
        if (v->kind != DS_VALUE_SCALAR) continue;
        bool fits = v->scalar.kind == DS_SCALAR_BOOL  ? k == RA_KIND_BOOL
                    : v->scalar.kind == DS_SCALAR_INT ? (k & RA_KIND_NUMERIC) != 0
                    : v->scalar.kind == DS_SCALAR_FLOAT
                        ? (k & (RA_KIND_REAL_FLOATING | RA_KIND_COMPLEX_FLOATING)) != 0
                        : k == RA_KIND_COMPLEX_FLOATING;
        if (!fits) {
            ds_error("TypeError", "result_type: a Python scalar of argument %zu cannot take %s",
                     i + 1, ds_dtype_name(r));
            return -1;
        }
    }
    out->value.kind = DS_VALUE_DTYPE;
    out->value.dtype = r;
    return 0;
}

static int call_isdtype(void *lib, const refarray_args *a, ds_call_result *out)
{
    if (call_keywords(a->name, a->kwnames, a->nkw, NULL) < 0 ||
        call_nargs(a->name, a->nargs, 2) < 0)
        return -1;
    if (a->args[0].kind != DS_VALUE_DTYPE) {
        ds_error("TypeError", "isdtype: dtype must be a dtype");
        return -1;
    }
    const ds_value *k = &a->args[1];
    size_t nk = k->kind == DS_VALUE_TUPLE ? k->n : 1;
    bool any = false;
    for (size_t i = 0; i < nk; i++) {
        const ds_value *e = k->kind == DS_VALUE_TUPLE ? &k->items[i] : k;
        bool b = false;
        if (e->kind == DS_VALUE_DTYPE) {
            b = e->dtype == a->args[0].dtype;
        } else if (e->kind == DS_VALUE_STRING) {
            int st = ra_isdtype(refarray_ctx(lib), (ra_dtype)a->args[0].dtype, e->str, &b);
            if (st != RA_OK) {
                ds_error("ValueError", "%s", ra_ctx_message(refarray_ctx(lib)));
                return st;
            }
        } else {
            ds_error("TypeError", "isdtype: kind is a dtype, a kind name or a tuple of them");
            return -1;
        }
        any = any || b;
    }
    out->value.kind = DS_VALUE_SCALAR;
    out->value.scalar.kind = DS_SCALAR_BOOL;
    out->value.scalar.b = any;
    return 0;
}

/* ---- statistics and utility ---- */

static const struct {
    const char *name;
    ra_stat_fn fn;
} stat_fns[] = {{"sum", RA_STAT_SUM}, {"prod", RA_STAT_PROD}, {"mean", RA_STAT_MEAN},
                {"var", RA_STAT_VAR}, {"std", RA_STAT_STD},   {"min", RA_STAT_MIN},
                {"max", RA_STAT_MAX}, {"all", RA_STAT_ALL},   {"any", RA_STAT_ANY}};

static int call_statistic(void *lib, const refarray_args *a, ds_call_result *out)
{
    ra_stat_fn fn = RA_STAT_SUM;
    for (size_t i = 0; i < sizeof stat_fns / sizeof stat_fns[0]; i++)
        if (!strcmp(stat_fns[i].name, a->name)) fn = stat_fns[i].fn;
    static const char *const with_dtype[] = {"axis", "dtype", "keepdims", NULL};
    static const char *const with_correction[] = {"axis", "correction", "keepdims", NULL};
    static const char *const plain[] = {"axis", "keepdims", NULL};
    const char *const *allowed = fn == RA_STAT_SUM || fn == RA_STAT_PROD  ? with_dtype
                                 : fn == RA_STAT_VAR || fn == RA_STAT_STD ? with_correction
                                                                          : plain;
    ds_array x;
    int64_t axes[RA_MAX_NDIM];
    size_t naxes = 0;
    bool all = true, keepdims = false;
    ds_dtype dt = DS_DTYPE_NONE;
    double correction = 0;
    if (call_keywords(a->name, a->kwnames, a->nkw, allowed) < 0 ||
        call_nargs(a->name, a->nargs, 1) < 0 || call_array(a->name, &a->args[0], &x) < 0 ||
        kw_axes(a, axes, &naxes, &all) < 0 || kw_bool(a, "keepdims", false, NULL, &keepdims) < 0 ||
        kw_dtype(a, "dtype", &dt) < 0)
        return -1;
    const ds_value *c = call_keyword(a->kwnames, a->kwargs, a->nkw, "correction");
    if (c) {
        if (c->kind != DS_VALUE_SCALAR ||
            (c->scalar.kind != DS_SCALAR_INT && c->scalar.kind != DS_SCALAR_FLOAT)) {
            ds_error("TypeError", "%s: correction must be an int or a float", a->name);
            return -1;
        }
        correction = c->scalar.kind == DS_SCALAR_INT ? (double)c->scalar.i : c->scalar.f;
    }
    out->value.kind = DS_VALUE_ARRAY;
    return call_status(lib,
                       ra_statistic(refarray_ctx(lib), fn, x, all ? NULL : axes, naxes, keepdims,
                                    (ra_dtype)dt, correction, (ra_array **)&out->value.array));
}

static int call_cumulative(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const allowed[] = {"axis", "dtype", "include_initial", NULL};
    ds_array x;
    int64_t axis = 0;
    bool none = true, initial = false;
    ds_dtype dt;
    if (call_keywords(a->name, a->kwnames, a->nkw, allowed) < 0 ||
        call_nargs(a->name, a->nargs, 1) < 0 || call_array(a->name, &a->args[0], &x) < 0 ||
        call_int(a->name, call_keyword(a->kwnames, a->kwargs, a->nkw, "axis"), true, &none, &axis) <
            0 ||
        kw_dtype(a, "dtype", &dt) < 0 || kw_bool(a, "include_initial", false, NULL, &initial) < 0)
        return -1;
    out->value.kind = DS_VALUE_ARRAY;
    return call_status(lib, ra_cumulative(refarray_ctx(lib), !strcmp(a->name, "cumulative_prod"), x,
                                          none ? NULL : &axis, (ra_dtype)dt, initial,
                                          (ra_array **)&out->value.array));
}

static int call_diff(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const allowed[] = {"axis", "n", "prepend", "append", NULL};
    ds_array x, ex[2] = {NULL, NULL};
    int64_t axis = -1, n = 1;
    if (call_keywords(a->name, a->kwnames, a->nkw, allowed) < 0 ||
        call_nargs(a->name, a->nargs, 1) < 0 || call_array(a->name, &a->args[0], &x) < 0 ||
        call_int(a->name, call_keyword(a->kwnames, a->kwargs, a->nkw, "axis"), false, NULL, &axis) <
            0 ||
        call_int(a->name, call_keyword(a->kwnames, a->kwargs, a->nkw, "n"), false, NULL, &n) < 0)
        return -1;
    static const char *const names[2] = {"prepend", "append"};
    for (int k = 0; k < 2; k++) {
        const ds_value *v = call_keyword(a->kwnames, a->kwargs, a->nkw, names[k]);
        if (v && v->kind != DS_VALUE_NONE && call_array(a->name, v, &ex[k]) < 0) return -1;
    }
    out->value.kind = DS_VALUE_ARRAY;
    return call_status(
        lib, ra_diff(refarray_ctx(lib), x, axis, n, ex[0], ex[1], (ra_array **)&out->value.array));
}

/* ---- the array object ---- */

static int call_transpose(void *lib, const refarray_args *a, ds_call_result *out)
{
    ds_array x;
    if (call_keywords(a->name, a->kwnames, a->nkw, NULL) < 0 ||
        call_nargs(a->name, a->nargs, 1) < 0 || call_array(a->name, &a->args[0], &x) < 0)
        return -1;
    out->value.kind = DS_VALUE_ARRAY;
    return call_status(lib, ra_array_transpose(refarray_ctx(lib), x, !strcmp(a->name, "Array.mT"),
                                               (ra_array **)&out->value.array));
}

static int call_attribute(void *lib, const refarray_args *a, ds_call_result *out)
{
    ds_array x;
    if (call_keywords(a->name, a->kwnames, a->nkw, NULL) < 0 ||
        call_nargs(a->name, a->nargs, 1) < 0 || call_array(a->name, &a->args[0], &x) < 0)
        return -1;
    const char *attr = a->name + strlen("Array.");
    ds_value *v = &out->value;
    if (!strcmp(attr, "dtype")) {
        v->kind = DS_VALUE_DTYPE;
        v->dtype = (ds_dtype)ra_array_dtype(x);
    } else if (!strcmp(attr, "device")) {
        v->kind = DS_VALUE_DEVICE;
        v->device.kind = DS_DEVICE_OBJECT;
        return refarray_new_device(ra_array_device(x), &v->device.object);
    } else if (!strcmp(attr, "ndim") || !strcmp(attr, "size")) {
        v->kind = DS_VALUE_SCALAR;
        v->scalar.kind = DS_SCALAR_INT;
        v->scalar.i = attr[0] == 'n' ? (int64_t)ra_array_ndim(x) : ra_array_size(x);
    } else if (!strcmp(attr, "__dlpack_device__")) { /* (device type, device id) */
        static _Thread_local ds_value pair[2];
        int32_t type = 0, id = 0;
        int st = call_status(lib, ra_array_dlpack_device(x, &type, &id));
        if (st != RA_OK) return st;
        memset(pair, 0, sizeof pair);
        pair[0].kind = pair[1].kind = DS_VALUE_SCALAR;
        pair[0].scalar.kind = pair[1].scalar.kind = DS_SCALAR_INT;
        pair[0].scalar.i = type;
        pair[1].scalar.i = id;
        v->kind = DS_VALUE_TUPLE;
        v->items = pair;
        v->n = 2;
        out->n = 0;
    } else { /* shape: a tuple of ints */
        /* The items live until the shim has encoded the result, after this call returns. */
        static _Thread_local ds_value items[RA_MAX_NDIM];
        size_t nd = ra_array_ndim(x);
        const int64_t *shape = ra_array_shape(x);
        for (size_t d = 0; d < nd; d++) {
            memset(&items[d], 0, sizeof items[d]);
            items[d].kind = DS_VALUE_SCALAR;
            items[d].scalar.kind = DS_SCALAR_INT;
            items[d].scalar.i = shape[d];
        }
        v->kind = DS_VALUE_TUPLE;
        v->items = items;
        v->n = nd;
        out->n = 0;
    }
    return 0;
}

/* __bool__, __int__, __float__, __complex__, __index__ of a 0-d array: Python's conversions
 * of its one value (int of a float truncates; of NaN ValueError, of an infinity
 * OverflowError; a complex value converts only to complex and bool; __index__ takes integer
 * dtypes only). */
static int call_convert(void *lib, const refarray_args *a, ds_call_result *out)
{
    ds_array x;
    if (call_keywords(a->name, a->kwnames, a->nkw, NULL) < 0 ||
        call_nargs(a->name, a->nargs, 1) < 0 || call_array(a->name, &a->args[0], &x) < 0)
        return -1;
    char to = a->name[strlen("Array.__")]; /* b, i (int or index), f, c */
    bool index = !strcmp(a->name, "Array.__index__");
    ra_dtype dt = ra_array_dtype(x);
    unsigned kind = ra_dtype_kind(dt);
    if (index && !(kind & RA_KIND_INTEGRAL)) {
        ds_error("TypeError", "__index__: %s is not an integer dtype", ra_dtype_name(dt));
        return -1;
    }
    if ((to == 'i' || to == 'f') && kind == RA_KIND_COMPLEX_FLOATING) {
        ds_error("TypeError", "%s: a complex value has no %s", a->name + 6,
                 to == 'i' ? "int" : "float");
        return -1;
    }
    ra_scalar s;
    int st = call_status(lib, ra_array_item(refarray_ctx(lib), x, &s));
    if (st != RA_OK) return st;
    ds_scalar *r = &out->value.scalar;
    out->value.kind = DS_VALUE_SCALAR;
    double re = s.kind == RA_SCALAR_INT    ? (s.u ? (double)(uint64_t)s.i : (double)s.i)
                : s.kind == RA_SCALAR_BOOL ? (double)s.b
                                           : s.re;
    switch (to) {
    case 'b':
        r->kind = DS_SCALAR_BOOL;
        r->b = s.kind == RA_SCALAR_INT    ? s.i != 0
               : s.kind == RA_SCALAR_BOOL ? s.b
                                          : (s.re != 0 || s.im != 0);
        break;
    case 'i':
        r->kind = DS_SCALAR_INT;
        if (s.kind == RA_SCALAR_INT) {
            r->i = s.i;
            r->u = s.u;
        } else if (isnan(re)) {
            ds_error("ValueError", "cannot convert float NaN to integer");
            return -1;
        } else if (isinf(re)) {
            ds_error("OverflowError", "cannot convert float infinity to integer");
            return -1;
        } else if (re >= 9223372036854775808.0 || re < -9223372036854775808.0) {
            ds_error("OverflowError", "%s: %g is beyond the int64 that refarray's call carries",
                     a->name + 6, re);
            return -1;
        } else {
            r->i = (int64_t)re;
        }
        break;
    case 'f':
        r->kind = DS_SCALAR_FLOAT;
        r->f = re;
        break;
    default:
        r->kind = DS_SCALAR_COMPLEX;
        r->f = re;
        r->im = s.kind == RA_SCALAR_COMPLEX ? s.im : 0.0;
        break;
    }
    return 0;
}

/* The names this file answers: the rows of spec/signatures.json whose refarray entry names
 * one of its handlers (call_tables_generated.h). */
const refarray_call_entry refarray_calls_elementwise[] = {REFARRAY_CALLS_ELEMENTWISE{NULL, NULL}};
