/*
 * call_linalg.c: the names of the standard's linalg extension, the main namespace's linear
 * algebra and the fft extension that refarray's generic call answers (refarray_fn_linalg.h);
 * a name not here, nor in call.c, is lacking. Each handler takes the standard's positional
 * arguments and keywords, maps them onto one refarray function, and returns its array or,
 * for the named tuples (eigh, eig, qr, slogdet, svd), the tuple of its arrays.
 */
#include "adapter_call.h"
#include "refarray_fn_linalg.h"

#include <math.h>
#include <string.h>

#define KW(name) call_keyword(a->kwnames, a->kwargs, a->nkw, name)

/* The common start: the keywords allowed, nargs positional arguments, the first n arrays. */
static int start(const refarray_args *a, const char *const *allowed, size_t nargs, size_t narrays,
                 ds_array *xs)
{
    if (call_keywords(a->name, a->kwnames, a->nkw, allowed) < 0 ||
        call_nargs(a->name, a->nargs, nargs) < 0)
        return -1;
    for (size_t i = 0; i < narrays; i++)
        if (call_array(a->name, &a->args[i], &xs[i]) < 0) return -1;
    return 0;
}

static int kw_bool(const refarray_args *a, const char *kw, bool *out)
{
    const ds_value *v = KW(kw);
    if (!v) return 0;
    if (v->kind != DS_VALUE_SCALAR || v->scalar.kind != DS_SCALAR_BOOL) {
        ds_error("TypeError", "%s: %s must be a bool", a->name, kw);
        return -1;
    }
    *out = v->scalar.b;
    return 0;
}

/* A real number (an int or a float); *none when not given or None. */
static int kw_real(const refarray_args *a, const char *kw, bool *none, double *out)
{
    const ds_value *v = KW(kw);
    *none = !v || v->kind == DS_VALUE_NONE;
    if (*none) return 0;
    if (v->kind == DS_VALUE_ARRAY) {
        char what[96];
        snprintf(what, sizeof what, "%s(%s=array)", a->name, kw);
        ds_lacks(what, "refarray's %s takes a Python float as %s, not an array", a->name, kw);
        return -1;
    }
    if (v->kind != DS_VALUE_SCALAR ||
        (v->scalar.kind != DS_SCALAR_INT && v->scalar.kind != DS_SCALAR_FLOAT)) {
        ds_error("TypeError", "%s: %s must be an int or a float", a->name, kw);
        return -1;
    }
    *out = v->scalar.kind == DS_SCALAR_FLOAT ? v->scalar.f
           : v->scalar.u                     ? (double)(uint64_t)v->scalar.i
                                             : (double)v->scalar.i;
    return 0;
}

/* An int or a tuple/list of ints (at most RA_MAX_NDIM); *n 0 and *none when not given or
 * None; a single int is one axis (*scalar). */
static int ints(const refarray_args *a, const char *kw, const ds_value *v, bool *none, bool *scalar,
                int64_t *out, size_t *n)
{
    *none = !v || v->kind == DS_VALUE_NONE;
    *scalar = false;
    *n = 0;
    if (*none) return 0;
    if (v->kind == DS_VALUE_SCALAR) {
        *scalar = true;
        *n = 1;
        return call_int(a->name, v, false, NULL, out);
    }
    if ((v->kind != DS_VALUE_TUPLE && v->kind != DS_VALUE_LIST) || v->n > RA_MAX_NDIM) {
        ds_error("TypeError", "%s: %s must be an int or a sequence of at most %d ints", a->name, kw,
                 RA_MAX_NDIM);
        return -1;
    }
    for (size_t i = 0; i < v->n; i++)
        if (call_int(a->name, &v->items[i], false, NULL, &out[i]) < 0) return -1;
    *n = v->n;
    return 0;
}

static int kw_string(const refarray_args *a, const char *kw, const char *const *choices, int *out)
{
    const ds_value *v = KW(kw);
    if (!v) return 0;
    for (int i = 0; v->kind == DS_VALUE_STRING && choices[i]; i++)
        if (!strcmp(v->str, choices[i])) {
            *out = i;
            return 0;
        }
    ds_error("ValueError", "%s: %s is not one the standard names", a->name, kw);
    return -1;
}

static int tuple2(void *lib, int st, ds_array r0, ds_array r1, ds_call_result *out)
{
    if (st != RA_OK) return call_status(lib, st);
    out->value.kind = DS_VALUE_TUPLE;
    out->arrays[0] = r0;
    out->arrays[1] = r1;
    out->n = 2;
    return 0;
}

#define RES ((ra_array **)&out->value.array)
#define CTX refarray_ctx(lib)
#define X(i) ((const ra_array *)xs[i])

/* ---- linalg ---------------------------------------------------------------------------- */

static int cholesky(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"upper", NULL};
    ds_array xs[1];
    bool upper = false;
    if (start(a, kws, 1, 1, xs) < 0 || kw_bool(a, "upper", &upper) < 0) return -1;
    return call_status(lib, ra_linalg_cholesky(CTX, X(0), upper, RES));
}

/* det, inv, eigvalsh, eigvals, svdvals, matrix_transpose, outer, solve, matmul: no keywords. */
static int plain(void *lib, const refarray_args *a, ds_call_result *out)
{
    const char *n = strncmp(a->name, "linalg.", 7) ? a->name : a->name + 7;
    bool two = !strcmp(n, "outer") || !strcmp(n, "solve") || !strcmp(n, "matmul");
    ds_array xs[2];
    if (start(a, NULL, two ? 2 : 1, two ? 2 : 1, xs) < 0) return -1;
    ra_ctx *ctx = CTX;
    if (!strcmp(n, "det")) return call_status(lib, ra_linalg_det(ctx, X(0), RES));
    if (!strcmp(n, "inv")) return call_status(lib, ra_linalg_inv(ctx, X(0), RES));
    if (!strcmp(n, "eigvalsh")) return call_status(lib, ra_linalg_eigh(ctx, X(0), RES, NULL));
    if (!strcmp(n, "eigvals")) return call_status(lib, ra_linalg_eig(ctx, X(0), RES, NULL));
    if (!strcmp(n, "svdvals"))
        return call_status(lib, ra_linalg_svd(ctx, X(0), false, NULL, RES, NULL));
    if (!strcmp(n, "matrix_transpose"))
        return call_status(lib, ra_linalg_matrix_transpose(ctx, X(0), RES));
    if (!strcmp(n, "outer")) return call_status(lib, ra_linalg_outer(ctx, X(0), X(1), RES));
    if (!strcmp(n, "solve")) return call_status(lib, ra_linalg_solve(ctx, X(0), X(1), RES));
    return call_status(lib, ra_matmul(ctx, X(0), X(1), RES));
}

/* eigh, eig, slogdet: a named tuple of two. */
static int pair(void *lib, const refarray_args *a, ds_call_result *out)
{
    ds_array xs[1];
    if (start(a, NULL, 1, 1, xs) < 0) return -1;
    ra_array *r0 = NULL, *r1 = NULL;
    int st = !strcmp(a->name, "linalg.eigh")  ? ra_linalg_eigh(CTX, X(0), &r0, &r1)
             : !strcmp(a->name, "linalg.eig") ? ra_linalg_eig(CTX, X(0), &r0, &r1)
                                              : ra_linalg_slogdet(CTX, X(0), &r0, &r1);
    return tuple2(lib, st, r0, r1, out);
}

static int qr(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"mode", NULL};
    static const char *const modes[] = {"reduced", "complete", NULL};
    ds_array xs[1];
    int mode = 0;
    if (start(a, kws, 1, 1, xs) < 0 || kw_string(a, "mode", modes, &mode) < 0) return -1;
    ra_array *q = NULL, *r = NULL;
    int st = ra_linalg_qr(CTX, X(0), mode == 1, &q, &r);
    return tuple2(lib, st, q, r, out);
}

static int svd(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"full_matrices", NULL};
    ds_array xs[1];
    bool full = true;
    if (start(a, kws, 1, 1, xs) < 0 || kw_bool(a, "full_matrices", &full) < 0) return -1;
    ra_array *u = NULL, *s = NULL, *vh = NULL;
    int st = ra_linalg_svd(CTX, X(0), full, &u, &s, &vh);
    if (st != RA_OK) return call_status(lib, st);
    out->value.kind = DS_VALUE_TUPLE;
    out->arrays[0] = u;
    out->arrays[1] = s;
    out->arrays[2] = vh;
    out->n = 3;
    return 0;
}

/* cross and vecdot (axis), diagonal and trace (offset). */
static int with_int(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const axis_kw[] = {"axis", NULL}, *const offset_kw[] = {"offset", NULL},
                             *const trace_kw[] = {"offset", "dtype", NULL};
    const char *n = strncmp(a->name, "linalg.", 7) ? a->name : a->name + 7;
    bool two = !strcmp(n, "cross") || !strcmp(n, "vecdot"), trace = !strcmp(n, "trace");
    const char *kw = two ? "axis" : "offset";
    ds_array xs[2];
    int64_t v = two ? -1 : 0;
    if (start(a,
              two     ? axis_kw
              : trace ? trace_kw
                      : offset_kw,
              two ? 2 : 1, two ? 2 : 1, xs) < 0 ||
        call_int(a->name, KW(kw), false, NULL, &v) < 0)
        return -1;
    ra_ctx *ctx = CTX;
    if (!strcmp(n, "cross")) return call_status(lib, ra_linalg_cross(ctx, X(0), X(1), v, RES));
    if (two) return call_status(lib, ra_linalg_vecdot(ctx, X(0), X(1), v, RES));
    if (!trace) return call_status(lib, ra_linalg_diagonal(ctx, X(0), v, RES));
    const ds_value *dt = KW("dtype");
    if (dt && dt->kind != DS_VALUE_NONE && dt->kind != DS_VALUE_DTYPE) {
        ds_error("TypeError", "%s: dtype must be a dtype or None", a->name);
        return -1;
    }
    ra_dtype dtype = dt && dt->kind == DS_VALUE_DTYPE ? (ra_dtype)dt->dtype : RA_DTYPE_DEFAULT;
    return call_status(lib, ra_linalg_trace(ctx, X(0), v, dtype, RES));
}

static int matrix_power(void *lib, const refarray_args *a, ds_call_result *out)
{
    ds_array xs[1];
    int64_t n = 0;
    if (start(a, NULL, 2, 1, xs) < 0 || call_int(a->name, &a->args[1], false, NULL, &n) < 0)
        return -1;
    return call_status(lib, ra_linalg_matrix_power(CTX, X(0), n, RES));
}

/* matrix_rank and pinv (rtol: a Python float, or an array broadcast against the batch). */
static int with_rtol(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"rtol", NULL};
    ds_array xs[1];
    bool none;
    double rtol = 0;
    bool pinv = !strcmp(a->name, "linalg.pinv");
    if (start(a, kws, 1, 1, xs) < 0) return -1;
    const ds_value *rv = KW("rtol");
    if (rv && rv->kind == DS_VALUE_ARRAY)
        return call_status(lib, pinv ? ra_linalg_pinv_rtols(CTX, X(0), rv->array, RES)
                                     : ra_linalg_matrix_rank_rtols(CTX, X(0), rv->array, RES));
    if (kw_real(a, "rtol", &none, &rtol) < 0) return -1;
    if (pinv) return call_status(lib, ra_linalg_pinv(CTX, X(0), none ? NULL : &rtol, RES));
    return call_status(lib, ra_linalg_matrix_rank(CTX, X(0), none ? NULL : &rtol, RES));
}

static int matrix_norm(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"keepdims", "ord", NULL};
    ds_array xs[1];
    bool keepdims = false;
    if (start(a, kws, 1, 1, xs) < 0 || kw_bool(a, "keepdims", &keepdims) < 0) return -1;
    const ds_value *v = KW("ord");
    ra_matrix_norm ord = RA_NORM_FRO;
    if (v && v->kind == DS_VALUE_STRING && !strcmp(v->str, "nuc"))
        ord = RA_NORM_NUC;
    else if (v && !(v->kind == DS_VALUE_STRING && !strcmp(v->str, "fro"))) {
        bool none;
        double o = 0;
        if (kw_real(a, "ord", &none, &o) < 0) return -1;
        ord = o == 1           ? RA_NORM_1
              : o == -1        ? RA_NORM_MINUS_1
              : o == 2         ? RA_NORM_2
              : o == -2        ? RA_NORM_MINUS_2
              : o == INFINITY  ? RA_NORM_INF
              : o == -INFINITY ? RA_NORM_MINUS_INF
                               : (ra_matrix_norm)-1;
        if ((int)ord < 0 || none) {
            ds_error("ValueError", "%s: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf",
                     a->name);
            return -1;
        }
    }
    return call_status(lib, ra_linalg_matrix_norm(CTX, X(0), keepdims, ord, RES));
}

static int vector_norm(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"axis", "keepdims", "ord", NULL};
    ds_array xs[1];
    bool keepdims = false, none, scalar, ord_none;
    double ord = 2;
    int64_t axes[RA_MAX_NDIM];
    size_t n;
    if (start(a, kws, 1, 1, xs) < 0 || kw_bool(a, "keepdims", &keepdims) < 0 ||
        ints(a, "axis", KW("axis"), &none, &scalar, axes, &n) < 0 ||
        kw_real(a, "ord", &ord_none, &ord) < 0)
        return -1;
    if (ord_none) ord = 2;
    return call_status(lib,
                       ra_linalg_vector_norm(CTX, X(0), none ? NULL : axes, n, keepdims, ord, RES));
}

static int tensordot(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"axes", NULL};
    ds_array xs[2];
    if (start(a, kws, 2, 2, xs) < 0) return -1;
    const ds_value *v = KW("axes");
    int64_t a1[RA_MAX_NDIM], a2[RA_MAX_NDIM], n = 2;
    size_t n1 = 0, n2 = 0;
    bool none, scalar;
    if (v && (v->kind == DS_VALUE_TUPLE || v->kind == DS_VALUE_LIST)) {
        if (v->n != 2) {
            ds_error("ValueError", "%s: axes must be an int or two sequences", a->name);
            return -1;
        }
        if (ints(a, "axes", &v->items[0], &none, &scalar, a1, &n1) < 0 ||
            ints(a, "axes", &v->items[1], &none, &scalar, a2, &n2) < 0)
            return -1;
        if (n1 != n2) {
            ds_error("ValueError", "%s: the two sequences of axes differ in length", a->name);
            return -1;
        }
        return call_status(lib, ra_linalg_tensordot(CTX, X(0), X(1), n1, a1, a2, RES));
    }
    if (call_int(a->name, v, false, NULL, &n) < 0) return -1;
    size_t nd1 = ra_array_ndim(X(0));
    if (n < 0 || (uint64_t)n > nd1 || (uint64_t)n > ra_array_ndim(X(1))) {
        ds_error("ValueError", "%s: axes=%lld; each array needs that many axes and it is >= 0",
                 a->name, (long long)n);
        return -1;
    }
    for (int64_t k = 0; k < n; k++) {
        a1[k] = (int64_t)nd1 - n + k;
        a2[k] = k;
    }
    return call_status(lib, ra_linalg_tensordot(CTX, X(0), X(1), (size_t)n, a1, a2, RES));
}

/* ---- fft ------------------------------------------------------------------------------- */

static const char *const norms[] = {"backward", "ortho", "forward", NULL};

static ra_fft_fn fft_kind(const char *name)
{
    static const char *const bases[] = {"fft", "ifft", "rfft", "irfft", "hfft", "ihfft"};
    size_t len = strlen(name);
    if (name[len - 1] == 'n') len--; /* fftn and the like */
    for (int i = 0; i < 6; i++)
        if (strlen(bases[i]) == len - 4 && !strncmp(name + 4, bases[i], len - 4))
            return (ra_fft_fn)(RA_FFT_FFT + i);
    return RA_FFT_FFT;
}

static int fft1(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"n", "axis", "norm", NULL};
    ds_array xs[1];
    int64_t n = -1, axis = -1;
    bool none;
    int norm = 0;
    if (start(a, kws, 1, 1, xs) < 0 || call_int(a->name, KW("n"), true, &none, &n) < 0 ||
        call_int(a->name, KW("axis"), false, NULL, &axis) < 0 ||
        kw_string(a, "norm", norms, &norm) < 0)
        return -1;
    if (none)
        n = -1;
    else if (n < 1) {
        ds_error("ValueError", "%s: n is %lld; it must be >= 1", a->name, (long long)n);
        return -1;
    }
    return call_status(lib, ra_fft(CTX, fft_kind(a->name), X(0), n, axis, (ra_fft_norm)norm, RES));
}

static int fftn(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"s", "axes", "norm", NULL};
    ds_array xs[1];
    int64_t s[RA_MAX_NDIM], axes[RA_MAX_NDIM];
    size_t ns, na;
    bool snone, anone, scalar;
    int norm = 0;
    if (start(a, kws, 1, 1, xs) < 0 || ints(a, "s", KW("s"), &snone, &scalar, s, &ns) < 0 ||
        ints(a, "axes", KW("axes"), &anone, &scalar, axes, &na) < 0 ||
        kw_string(a, "norm", norms, &norm) < 0)
        return -1;
    if (!snone && !anone && ns != na) {
        ds_error("ValueError", "%s: s and axes have different lengths", a->name);
        return -1;
    }
    for (size_t i = 0; !snone && i < ns; i++)
        if (s[i] < 1 && s[i] != -1) {
            ds_error("ValueError", "%s: s[%zu] is %lld; it must be >= 1", a->name, i,
                     (long long)s[i]);
            return -1;
        }
    /* s = -1 along an axis: that axis' default length */
    const int64_t *shape = ra_array_shape(X(0));
    size_t nd = ra_array_ndim(X(0)), n = snone ? na : ns;
    ra_fft_fn kind = fft_kind(a->name);
    for (size_t i = 0; !snone && i < ns; i++)
        if (s[i] == -1) {
            int64_t ax = anone         ? (int64_t)(nd - ns + i)
                         : axes[i] < 0 ? axes[i] + (int64_t)nd
                                       : axes[i];
            int64_t m = ax >= 0 && (size_t)ax < nd ? shape[ax] : 1;
            s[i] = kind == RA_FFT_IRFFT && i == ns - 1 ? 2 * (m - 1) : m;
        }
    return call_status(lib, ra_fftn(CTX, kind, X(0), n, snone ? NULL : s, anone ? NULL : axes,
                                    (ra_fft_norm)norm, RES));
}

static int fftshift(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"axes", NULL};
    ds_array xs[1];
    int64_t axes[RA_MAX_NDIM];
    size_t n;
    bool none, scalar;
    if (start(a, kws, 1, 1, xs) < 0 || ints(a, "axes", KW("axes"), &none, &scalar, axes, &n) < 0)
        return -1;
    bool inverse = !strcmp(a->name, "fft.ifftshift");
    return call_status(lib, ra_fft_shift(CTX, X(0), n, none ? NULL : axes, inverse, RES));
}

static int fftfreq(void *lib, const refarray_args *a, ds_call_result *out)
{
    static const char *const kws[] = {"d", "dtype", "device", NULL};
    int64_t n = 0;
    bool none;
    double d = 1.0;
    if (call_keywords(a->name, a->kwnames, a->nkw, kws) < 0 ||
        call_nargs(a->name, a->nargs, 1) < 0 ||
        call_int(a->name, &a->args[0], false, NULL, &n) < 0 || kw_real(a, "d", &none, &d) < 0)
        return -1;
    if (none) d = 1.0;
    ra_opts o = {.size = sizeof o};
    const ds_value *dt = KW("dtype"), *dev = KW("device");
    if (dt && dt->kind == DS_VALUE_DTYPE)
        o.dtype = (ra_dtype)dt->dtype;
    else if (dt && dt->kind != DS_VALUE_NONE) {
        ds_error("TypeError", "%s: dtype must be a dtype or None", a->name);
        return -1;
    }
    if (dev && dev->kind == DS_VALUE_DEVICE && dev->device.kind == DS_DEVICE_OBJECT)
        o.device_value = (const ra_device *)dev->device.object;
    else if (dev && dev->kind == DS_VALUE_DEVICE && dev->device.kind == DS_DEVICE_STRING)
        o.device = dev->device.str;
    else if (dev && dev->kind != DS_VALUE_NONE) {
        ds_error("TypeError", "%s: device must be a device or None", a->name);
        return -1;
    }
    bool real = !strcmp(a->name, "fft.rfftfreq");
    return call_status(lib, (real ? ra_rfftfreq : ra_fftfreq)(CTX, n, d, &o, RES));
}

/* The names this file answers: the rows of spec/signatures.json whose refarray entry names
 * one of its handlers (call_tables_generated.h). */
const refarray_call_entry refarray_calls_linalg[] = {REFARRAY_CALLS_LINALG{NULL, NULL}};
