/*
 * refarray's devspec adapter: the shim's vendor table filled with refarray's API. Built as
 * devspec_adapter_refarray.so (in process); devspec-adapter-host serves it out of process.
 *
 * Environment (read once, at hello):
 *   DEVSPEC_REFARRAY_INFERENCE=legacy  use the 2021.12-2024.12 inference order (explicit,
 *                                      scope, array argument, global): the adapter then
 *                                      claims priority-context-first instead of
 *                                      priority-input-first.
 *   DEVSPEC_REFARRAY_NO_OPENCL=1       open refarray without its OpenCL devices (cpu only).
 *   DEVSPEC_REFARRAY_SHARD_UNEVEN=ceil an axis length the device count does not divide is cut
 *                                      into pieces of ceil(length / count) (tinygrad up to
 *                                      0.9) instead of refused (refarray's default, tinygrad
 *                                      0.14; TG-SHARD-9).
 *   DEVSPEC_REFARRAY_SOFT=P            soft device mode's policy, set on the context at open
 *                                      whether the variable is there or not: move-all (the
 *                                      default and refarray's own: every function given an
 *                                      array runs on the default device, IVY-SOFT-1 and
 *                                      IVY-CTX-1) or move-mixed (inputs sharing one device
 *                                      stay there, IVY-SOFT-2's listed priority).
 *   DEVSPEC_REFARRAY_PROMOTION=R       the promotion rule set: array-api (the default;
 *                                      claims promotion-table), category (OneFlow's rules,
 *                                      the stated reading of OF-PROM-9; claims
 *                                      promotion-category) or category-examples (the
 *                                      guide's reading, which agrees with the array API's
 *                                      table wherever that defines one: claims both).
 *   DEVSPEC_REFARRAY_OUT_CASTING=R     out= casting: stated (the default: OF-OUT-1's three
 *                                      refusals), no-narrowing (the guide's examples,
 *                                      OF-OUT-4) or oneflow (OneFlow 0.9.0's: add as
 *                                      stated, subtract, multiply and divide as
 *                                      no-narrowing).
 *
 * Scopes and soft mode (spec/decisions.md, "Default devices, scopes and soft mode"):
 * default.push is Ivy's DefaultDevice, a default device that also turns soft mode on; the
 * array API's context manager is a scope with soft mode switched off (soft.set false), and
 * then the claimed priority order (priority-input-first, or priority-context-first under
 * DEVSPEC_REFARRAY_INFERENCE=legacy) holds for every function.
 *
 * The adapter checks the loaded refarray's version number at open (ADAPTER_NEEDS_VERSION) and
 * claims a feature only when that refarray is new enough for it (the table `features` below,
 * the one place that decides what is claimed).
 */
#include "adapter_call.h"
#include "adapter_internal.h"
#include "devspec_dlpack.h"
#include "devspec_shim.h"
#include "refarray.h"
#ifdef DEVSPEC_ADAPTER_MPI
#include "adapter_global.h"
#endif

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The two dtype enums list the array API dtypes, then float16, in the same order with the
 * same values. */
_Static_assert((int)DS_BOOL == (int)RA_BOOL && (int)DS_INT64 == (int)RA_INT64 &&
                   (int)DS_UINT64 == (int)RA_UINT64 && (int)DS_FLOAT64 == (int)RA_FLOAT64 &&
                   (int)DS_COMPLEX128 == (int)RA_COMPLEX128 && (int)DS_FLOAT16 == (int)RA_FLOAT16,
               "ds_dtype and ra_dtype differ");

/* The oldest refarray this adapter works with: it calls no function and reads no struct
 * field newer than this version. It runs with a refarray of the same ABI (the same major
 * version, and for major version 0 the same minor version) at least this new, and refuses any
 * other at open with the two versions in the message. Each feature below names the version
 * that brought what it needs, and is claimed only when the loaded refarray is at least that
 * new; an op added to refarray later than ADAPTER_NEEDS_VERSION compares a->version before
 * calling it and otherwise answers NotImplementedError. */
#define ADAPTER_NEEDS_VERSION 2000 /* 0.2.0 */

/* ---- the features refarray claims, and the functions each needs ---- */

enum {
    LEGACY_ONLY = 1,
    DEFAULT_ONLY = 2,
    TABLE_ONLY = 4,
    CATEGORY_ONLY = 8,
    WITH_MPI = 16,
    WITH_QUEUE = 32
};

static const struct feature {
    const char *name;
    int when;    /* 0: always; LEGACY_ONLY / DEFAULT_ONLY: by inference order; TABLE_ONLY /
                  * CATEGORY_ONLY: by promotion rule set; WITH_QUEUE: when the default
                  * device has an OpenCL queue; WITH_MPI: when MPI runs in the
                  * process (served by devspec-adapter-mpi-host) */
    int version; /* the refarray version (RA_VERSION_NUMBER) whose API it needs */
} features[] = {
    {"device-attr", 0, 2000},
    {"device-eq", 0, 2000},
    {"creation-device-kw", 0, 2000},
    {"like-inherits-device", 0, 2000},
    {"asarray-inherits-device", 0, 2000},
    {"astype-device", 0, 2000},
    {"to-device", 0, 2000},
    {"to-device-stream", 0, 2000},
    {"output-follows-input", 0, 2000},
    {"mixed-device-raises", 0, 2000},
    {"scalar-follows-array", 0, 2000},
    {"default-device-consistent", 0, 2000},
    {"info-devices", 0, 2000},
    {"info-dtypes", 0, 2000},
    {"dtype-device-support", 0, 2000},
    {"priority-context-first", LEGACY_ONLY, 2000},
    {"priority-input-first", DEFAULT_ONLY, 2000},
    {"device-string", 0, 2000},
    {"device-string-kw", 0, 2000},
    {"device-names", 0, 2000},
    {"default-device-global", 0, 2000},
    {"default-device-scoped", 0, 2000},
    {"soft-device-mode", 0, 2000},
    /* Ivy's order puts an array argument before the default device, a scope's included
     * (IVY-INFER-1); the legacy order puts the scope first, so it is not claimed there. */
    {"device-inference-order", DEFAULT_ONLY, 2000},
    {"device-utils", 0, 2000},
    {"device-ordinal", 0, 2000},
    {"promotion-per-device", 0, 2000},
    {"promotion-table", TABLE_ONLY, 2000},
    {"promotion-category", CATEGORY_ONLY, 2000},
    {"out-casting", 0, 2000},
    {"dtype-names", 0, 2000},
    {"promotion-scalars", 0, 2000},
    {"fft-freq-device", 0, 2000},
    {"dlpack-device", 0, 2000},
    {"dlpack-export", 0, 2000},
    {"dlpack-stream", WITH_QUEUE, 2000},
    {"device-current-of-type", 0, 2000},
    {"placement", WITH_MPI, 2000},
    {"sbp", WITH_MPI, 2000},
    {"sbp-convert", WITH_MPI, 2000},
    {"sharding", 0, 2000},
    {"sharding-elementwise", 0, 2000},
    {"sharding-reduce", 0, 2000},
    {"sharding-gather", 0, 2000},
    /* float16 on the cpu device; OpenCL devices have it only with cl_khr_fp16. */
    {"float16", 0, 2000},
    {"functions-elementwise", 0, 2000},
    /* the standard's functions of refarray_fn_shape.h, through the generic call (call_shape.c);
     * an index array on another device than the indexed array is refused (DEV-DS-11) */
    {"functions-manipulation", 0, 2000},
    {"functions-indexing", 0, 2000},
    {"functions-searching", 0, 2000},
    {"functions-set", 0, 2000},
    {"functions-sorting", 0, 2000},
    {"cross-device-indexing", 0, 2000},
    {"functions-linalg", 0, 2000},
    {"functions-linear-algebra", 0, 2000},
    {"functions-fft", 0, 2000},
    {"functions-creation", 0, 2000},
    {"functions-data-type", 0, 2000},
    {"functions-statistical", 0, 2000},
    {"functions-utility", 0, 2000},
    {"array-methods", 0, 2000},
};

#define NFEATURES (sizeof features / sizeof features[0])
_Static_assert(NFEATURES <= ADAPTER_MAX_FEATURES, "adapter_internal.h: raise ADAPTER_MAX_FEATURES");

/* ---- the adapter's state ---- */

/* The default memory limit of the cpu device and of each OpenCL device in the adapter: 4 GiB,
 * far above what any case needs and below what brings a CI machine down. */
#define DEFAULT_MAX_BYTES ((size_t)4 << 30)

/* The value of the environment variable NAME as the index of one of CHOICES (NULL-ended),
 * DEFLT when it is unset; -1 with ds_error naming the variable and every choice when it is
 * something else. */
static int env_choice(const char *name, const char *const *choices, int deflt)
{
    const char *v = getenv(name);
    if (v == NULL) return deflt;
    int n = 0;
    for (; choices[n] != NULL; n++)
        if (strcmp(v, choices[n]) == 0) return n;
    char list[160] = "";
    size_t used = 0;
    for (int k = 0; k < n && used < sizeof list; k++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s\"%s\"",
                                 k == 0       ? ""
                                 : k == n - 1 ? " or "
                                              : ", ",
                                 choices[k]);
    ds_error("ValueError", "%s is \"%.40s\"; it must be %s", name, v, list);
    return -1;
}

/* The adapter's settings from its environment (DEVSPEC_REFARRAY_*), all read before a
 * context exists: 0, or -1 with ds_error set. */
struct settings {
    size_t max_bytes;
    int legacy, uneven, soft, promotion, out_casting;
};

static int read_settings(struct settings *st)
{
    /* A case cannot take the machine down: the cpu device's arrays, and each OpenCL
     * device's, hold at most this much (DEVSPEC_REFARRAY_MAX_BYTES overrides it; 0 is no
     * limit). Beyond it a creation is MemoryError. */
    st->max_bytes = DEFAULT_MAX_BYTES;
    const char *max_bytes = getenv("DEVSPEC_REFARRAY_MAX_BYTES");
    if (max_bytes != NULL) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(max_bytes, &end, 10);
        if (!max_bytes[0] || *end || errno || max_bytes[0] == '-') {
            ds_error("ValueError",
                     "DEVSPEC_REFARRAY_MAX_BYTES is \"%.40s\"; it must be a number of bytes",
                     max_bytes);
            return -1;
        }
        st->max_bytes = (size_t)v;
    }
    static const char *const inference[] = {"legacy", "2025", NULL};
    static const char *const uneven[] = {"refuse", "ceil", NULL};
    static const char *const soft[] = {"move-all", "move-mixed", NULL};
    static const char *const promotion[] = {"array-api", "category", "category-examples", NULL};
    static const char *const out_casting[] = {"stated", "no-narrowing", "oneflow", NULL};
    int legacy = env_choice("DEVSPEC_REFARRAY_INFERENCE", inference, 1);
    st->legacy = legacy == 0;
    st->uneven = env_choice("DEVSPEC_REFARRAY_SHARD_UNEVEN", uneven, 0);
    st->soft = env_choice("DEVSPEC_REFARRAY_SOFT", soft, 0);
    st->promotion = env_choice("DEVSPEC_REFARRAY_PROMOTION", promotion, 0);
    st->out_casting = env_choice("DEVSPEC_REFARRAY_OUT_CASTING", out_casting, 0);
    return legacy < 0 || st->uneven < 0 || st->soft < 0 || st->promotion < 0 || st->out_casting < 0
               ? -1
               : 0;
}

/* The features A claims: those of its reading (legacy or not, table or category) and of the
 * loaded refarray's version. */
static void claim_features(adapter *a)
{
    /* The guide's reading of OF-PROM-9 agrees with the array API's table on every pair the
     * standard defines; the stated reading does not (a same-category 0-d operand). */
    bool table = a->promotion != RA_PROMOTION_CATEGORY;
    bool category = a->promotion != RA_PROMOTION_ARRAY_API;
    /* dlpack-stream's cases pass the default device's stream: cpu has none (DEV-DLP-2). */
    void *queue = NULL;
    bool has_queue =
        ra_device_default_stream(a->ctx, ra_default_device(a->ctx), &queue) == 0 && queue != NULL;
    size_t n = 0;
    for (size_t i = 0; i < NFEATURES; i++) {
        const struct feature *f = &features[i];
        bool ok =
            !(f->when == LEGACY_ONLY && !a->legacy) && !(f->when == DEFAULT_ONLY && a->legacy);
        ok = ok && !(f->when == TABLE_ONLY && !table) && !(f->when == CATEGORY_ONLY && !category);
        ok = ok && a->version >= f->version && !(f->when == WITH_QUEUE && !has_queue);
#ifdef DEVSPEC_ADAPTER_MPI
        ok = ok && (!(f->when & WITH_MPI) || rga_ready());
#else
        ok = ok && !(f->when & WITH_MPI);
#endif
        if (ok) a->claimed[n++] = f->name;
    }
    a->claimed[n] = NULL;
}

static int open_lib(void **lib)
{
    int version = ra_version_number();
    bool same_abi = version / 1000000 == ADAPTER_NEEDS_VERSION / 1000000 &&
                    (version >= 1000000 || version / 1000 == ADAPTER_NEEDS_VERSION / 1000);
    if (!same_abi || version < ADAPTER_NEEDS_VERSION) {
        ds_error("RuntimeError",
                 "refarray adapter: the loaded refarray is %s (%d); this adapter needs the ABI "
                 "of %d.%d.%d or a later release of it",
                 ra_version(), version, ADAPTER_NEEDS_VERSION / 1000000,
                 ADAPTER_NEEDS_VERSION / 1000 % 1000, ADAPTER_NEEDS_VERSION % 1000);
        return -1;
    }
    struct settings st;
    if (read_settings(&st) != 0) return -1;
    adapter *a = calloc(1, sizeof *a);
    if (a == NULL) {
        ds_error("MemoryError", "refarray adapter: out of memory");
        return -1;
    }
    a->version = version;
    a->legacy = st.legacy;
    ra_ctx_options opts = {
        .size = sizeof opts, .max_host_bytes = st.max_bytes, .max_device_bytes = st.max_bytes};
    const char *no_opencl = getenv("DEVSPEC_REFARRAY_NO_OPENCL");
    if (no_opencl != NULL && strcmp(no_opencl, "1") == 0) opts.flags |= RA_CTX_NO_OPENCL;
    int rc = ra_ctx_create(&opts, &a->ctx);
    if (rc != RA_OK) {
        ds_error(ra_status_kind(rc), "ra_ctx_create failed: %s", ra_ctx_message(NULL));
        free(a);
        return -1;
    }
    a->shard_uneven = st.uneven == 1 ? RA_SHARD_UNEVEN_CEIL : RA_SHARD_UNEVEN_REFUSE;
    /* Set even without the variable, so the policy the adapter presents is this line's,
     * not whatever refarray's built-in default may become. */
    ra_ctx_set_soft_policy(a->ctx, st.soft == 1 ? RA_SOFT_MOVE_MIXED : RA_SOFT_MOVE_ALL);
    if (a->legacy) ra_ctx_set_inference(a->ctx, RA_INFER_LEGACY);
    a->promotion = st.promotion == 1   ? RA_PROMOTION_CATEGORY
                   : st.promotion == 2 ? RA_PROMOTION_CATEGORY_EXAMPLES
                                       : RA_PROMOTION_ARRAY_API;
    ra_ctx_set_promotion(a->ctx, a->promotion);
    if (st.out_casting == 1) ra_ctx_set_out_casting(a->ctx, RA_OUT_CAST_NO_NARROWING);
    if (st.out_casting == 2) ra_ctx_set_out_casting(a->ctx, RA_OUT_CAST_ONEFLOW);
    claim_features(a);
    *lib = a;
    return 0;
}

static void close_lib(void *lib)
{
    adapter *a = lib;
#ifdef DEVSPEC_ADAPTER_MPI
    rga_close();
#endif
    ra_ctx_destroy(a->ctx);
    free(a);
}

static int hello(void *lib, ds_library_info *out)
{
    adapter *a = lib;
    out->name = "refarray";
    out->version = ra_version();
    out->features = a->claimed;
    return 0;
}

static void describe_error(void *lib, int status, const char **kind, const char **message)
{
    adapter *a = lib;
    const char *detail = ra_ctx_message(a->ctx);
    const char *name = ra_status_name(status);
    if (detail == NULL || detail[0] == '\0') detail = ra_status_message(status);
    snprintf(a->message, sizeof a->message, "%s: %s", name, detail);
    *kind = ra_status_kind(status);
    *message = a->message;
}

/* ---- global arrays (served under devspec-adapter-mpi-host) ---- */
#ifdef DEVSPEC_ADAPTER_MPI
static int placement_describe(void *lib, const ds_placement_arg *p, bool all, bool env_spelling,
                              ds_placement_info *out)
{
    return rga_placement_describe(((adapter *)lib)->ctx, p, all, env_spelling, out);
}

static int placement_equal(void *lib, const ds_placement_arg *a, const ds_placement_arg *b,
                           bool *out)
{
    return rga_placement_equal(((adapter *)lib)->ctx, a, b, out);
}

static int sbp_describe(void *lib, ds_sbp_arg s, char *out, size_t cap)
{
    return rga_sbp_describe(s, out, cap);
}

static int global_make(void *lib, const ds_buffer *pieces, size_t npieces, bool from_local,
                       const ds_placement_arg *p, const ds_sbp_arg *sbp, size_t nsbp,
                       const ds_sbp_arg *to, size_t nto, ds_global_info *out)
{
    return rga_global_make(((adapter *)lib)->ctx, pieces, npieces, from_local, p, sbp, nsbp, to,
                           nto, out);
}

static int global_binary(void *lib, ds_binary_fn fn, const ds_global_arg *x1,
                         const ds_global_arg *x2, ds_global_info *out)
{
    return rga_global_binary(((adapter *)lib)->ctx, fn, x1, x2, out);
}

static int global_sum(void *lib, const ds_global_arg *x, const int64_t *axis, ds_global_info *out)
{
    return rga_global_sum(((adapter *)lib)->ctx, x, axis, out);
}
#endif

/* ---- creation ---- */

static ra_scalar scalar(ds_scalar s)
{
    switch (s.kind) {
    case DS_SCALAR_BOOL:
        return ra_scalar_bool(s.b);
    case DS_SCALAR_INT:
        return s.u ? ra_scalar_uint((uint64_t)s.i) : ra_scalar_int(s.i);
    case DS_SCALAR_COMPLEX:
        return ra_scalar_complex(s.f, s.im);
    case DS_SCALAR_FLOAT:
        break;
    }
    return ra_scalar_float(s.f);
}

static int fill(void *lib, ds_fill_fn fn, const int64_t *shape, int ndim, ds_dtype dtype,
                ds_device device, ds_array *out)
{
    adapter *a = lib;
    ra_opts o = refarray_make_opts(dtype, device);
    int (*f)(ra_ctx *, const int64_t *, size_t, const ra_opts *, ra_array **) =
        fn == DS_ZEROS  ? ra_zeros
        : fn == DS_ONES ? ra_ones
                        : ra_empty;
    return f(a->ctx, shape, (size_t)ndim, &o, (ra_array **)out);
}

static int full(void *lib, const int64_t *shape, int ndim, ds_scalar fill_value, ds_dtype dtype,
                ds_device device, ds_array *out)
{
    adapter *a = lib;
    ra_opts o = refarray_make_opts(dtype, device);
    return ra_full(a->ctx, shape, (size_t)ndim, scalar(fill_value), &o, (ra_array **)out);
}

static int arange(void *lib, ds_scalar start, const ds_scalar *stop, const ds_scalar *step,
                  ds_dtype dtype, ds_device device, ds_array *out)
{
    adapter *a = lib;
    ra_opts o = refarray_make_opts(dtype, device);
    ra_scalar s1, s2;
    if (stop) s1 = scalar(*stop);
    if (step) s2 = scalar(*step);
    return ra_arange(a->ctx, scalar(start), stop ? &s1 : NULL, step ? &s2 : NULL, &o,
                     (ra_array **)out);
}

static int linspace(void *lib, ds_scalar start, ds_scalar stop, int64_t num, bool endpoint,
                    ds_dtype dtype, ds_device device, ds_array *out)
{
    adapter *a = lib;
    ra_opts o = refarray_make_opts(dtype, device);
    return ra_linspace(a->ctx, scalar(start), scalar(stop), num, endpoint, &o, (ra_array **)out);
}

static int eye(void *lib, int64_t n_rows, const int64_t *n_cols, int64_t k, ds_dtype dtype,
               ds_device device, ds_array *out)
{
    adapter *a = lib;
    ra_opts o = refarray_make_opts(dtype, device);
    /* refarray's API reads a negative n_cols as "absent", so an explicit negative one
     * cannot be passed through; it is a negative dimension, refused as ValueError. */
    if (n_cols && *n_cols < 0) {
        ds_error("ValueError", "eye: n_cols must be >= 0, got %lld", (long long)*n_cols);
        return -1;
    }
    return ra_eye(a->ctx, n_rows, n_cols ? *n_cols : -1, k, &o, (ra_array **)out);
}

static int fill_like(void *lib, ds_fill_fn fn, ds_array x, ds_dtype dtype, ds_device device,
                     ds_array *out)
{
    adapter *a = lib;
    ra_opts o = refarray_make_opts(dtype, device);
    int (*f)(ra_ctx *, const ra_array *, const ra_opts *, ra_array **) =
        fn == DS_ZEROS  ? ra_zeros_like
        : fn == DS_ONES ? ra_ones_like
                        : ra_empty_like;
    return f(a->ctx, x, &o, (ra_array **)out);
}

static int full_like(void *lib, ds_array x, ds_scalar fill_value, ds_dtype dtype, ds_device device,
                     ds_array *out)
{
    adapter *a = lib;
    ra_opts o = refarray_make_opts(dtype, device);
    return ra_full_like(a->ctx, x, scalar(fill_value), &o, (ra_array **)out);
}

static int fftfreq(void *lib, bool real, int64_t n, double d, ds_dtype dtype, ds_device device,
                   ds_array *out)
{
    adapter *a = lib;
    ra_opts o = refarray_make_opts(dtype, device);
    int (*f)(ra_ctx *, int64_t, double, const ra_opts *, ra_array **) =
        real ? ra_rfftfreq : ra_fftfreq;
    return f(a->ctx, n, d, &o, (ra_array **)out);
}

static ra_copy copy_mode(ds_copy c)
{
    return c == DS_COPY_ALWAYS  ? RA_COPY_ALWAYS
           : c == DS_COPY_NEVER ? RA_COPY_NEVER
                                : RA_COPY_IF_NEEDED;
}

static int asarray_buffer(void *lib, const ds_buffer *obj, ds_dtype dtype, ds_device device,
                          ds_copy copy, ds_array *out)
{
    adapter *a = lib;
    ra_opts o = refarray_make_opts(dtype, device);
    o.copy = copy_mode(copy);
    return ra_asarray_buffer(a->ctx, obj->data, (ra_dtype)obj->dtype, obj->shape, (size_t)obj->ndim,
                             &o, (ra_array **)out);
}

static int asarray_scalar(void *lib, ds_scalar obj, ds_dtype dtype, ds_device device, ds_copy copy,
                          ds_array *out)
{
    adapter *a = lib;
    ra_opts o = refarray_make_opts(dtype, device);
    o.copy = copy_mode(copy);
    return ra_asarray_scalar(a->ctx, scalar(obj), &o, (ra_array **)out);
}

static int asarray_array(void *lib, ds_array obj, ds_dtype dtype, ds_device device, ds_copy copy,
                         ds_array *out)
{
    adapter *a = lib;
    ra_opts o = refarray_make_opts(dtype, device);
    o.copy = copy_mode(copy);
    return ra_asarray(a->ctx, obj, &o, (ra_array **)out);
}

static int astype(void *lib, ds_array x, ds_dtype dtype, bool copy, ds_device device, ds_array *out)
{
    adapter *a = lib;
    ra_opts o = refarray_make_opts(DS_DTYPE_NONE, device);
    /* astype(copy=False) returns x when nothing changes and never refuses (DEV-CREATE-6's
     * signature); refarray's if-needed mode is exactly that. */
    o.copy = copy ? RA_COPY_ALWAYS : RA_COPY_IF_NEEDED;
    return ra_astype(a->ctx, x, (ra_dtype)dtype, &o, (ra_array **)out);
}

/* ---- arrays ---- */

static void release_array(void *lib, ds_array x)
{
    ra_array_release(x);
}

static int describe(void *lib, ds_array x, ds_array_info *out)
{
    size_t ndim = ra_array_ndim(x);
    if (ndim > DS_MAX_NDIM) {
        ds_error("ValueError", "the array has %zu dimensions; messages carry at most %d", ndim,
                 DS_MAX_NDIM);
        return -1;
    }
    const int64_t *shape = ra_array_shape(x);
    out->dtype = (ds_dtype)ra_array_dtype(x);
    out->ndim = (int)ndim;
    for (size_t k = 0; k < ndim; k++)
        out->shape[k] = shape[k];
    return refarray_new_device(ra_array_device(x), &out->device);
}

static int read_array(void *lib, ds_array x, void *data, size_t nbytes)
{
    adapter *a = lib;
    return ra_array_read(a->ctx, x, data, nbytes);
}

static int to_device(void *lib, ds_array x, ds_device device, ds_stream stream, ds_array *out)
{
    adapter *a = lib;
    ra_device d;
    int st = refarray_device_value(a, device, "to_device", &d);
    if (st != 0) return st;
    return ra_to_device(a->ctx, x, d, stream, (ra_array **)out);
}

static ra_operand operand(ds_operand o)
{
    return o.is_array ? ra_operand_array(o.array) : ra_operand_scalar(scalar(o.scalar));
}

static int binary(void *lib, ds_binary_fn fn, ds_operand x1, ds_operand x2, ds_array *out)
{
    static const ra_binop ops[] = {
        [DS_ADD] = RA_ADD,        [DS_SUBTRACT] = RA_SUBTRACT, [DS_MULTIPLY] = RA_MULTIPLY,
        [DS_DIVIDE] = RA_DIVIDE,  [DS_EQUAL] = RA_EQUAL,       [DS_LESS] = RA_LESS,
        [DS_MAXIMUM] = RA_MAXIMUM};
    adapter *a = lib;
    return ra_binary(a->ctx, ops[fn], operand(x1), operand(x2), (ra_array **)out);
}

static int binary_into(void *lib, ds_binary_fn fn, ds_operand x1, ds_operand x2, ds_array out)
{
    static const ra_binop ops[] = {[DS_ADD] = RA_ADD,
                                   [DS_SUBTRACT] = RA_SUBTRACT,
                                   [DS_MULTIPLY] = RA_MULTIPLY,
                                   [DS_DIVIDE] = RA_DIVIDE};
    adapter *a = lib;
    return ra_binary_into(a->ctx, ops[fn], operand(x1), operand(x2), out);
}

static int dtype_describe(void *lib, const char *name, ds_dtype *dtype, bool *is_floating_point)
{
    adapter *a = lib;
    ra_dtype d;
    int st = ra_dtype_parse(a->ctx, name, &d);
    if (st != RA_OK) return st;
    *dtype = (ds_dtype)d; /* the enums agree (the assertion above) */
    *is_floating_point = ra_dtype_is_floating_point(d);
    return 0;
}

static int unary(void *lib, ds_unary_fn fn, ds_array x, ds_array *out)
{
    static const ra_unop ops[] = {
        [DS_NEGATIVE] = RA_NEGATIVE, [DS_ABS] = RA_ABS, [DS_SQRT] = RA_SQRT};
    adapter *a = lib;
    return ra_unary(a->ctx, ops[fn], x, (ra_array **)out);
}

/* An axis argument as refarray's int; beyond int it is out of range for any array. */
static int axis_int(int64_t axis, int *out)
{
    if (axis < INT_MIN || axis > INT_MAX) {
        ds_error("IndexError", "axis %lld is out of range", (long long)axis);
        return -1;
    }
    *out = (int)axis;
    return 0;
}

static int reduce(void *lib, ds_reduce_fn fn, ds_array x, const int64_t *axis, ds_array *out)
{
    adapter *a = lib;
    int ax;
    if (axis && axis_int(*axis, &ax) < 0) return -1;
    return ra_reduce(a->ctx, fn == DS_SUM ? RA_SUM : RA_MAX, x, axis ? &ax : NULL,
                     (ra_array **)out);
}

static int matmul(void *lib, ds_array x1, ds_array x2, ds_array *out)
{
    adapter *a = lib;
    return ra_matmul(a->ctx, x1, x2, (ra_array **)out);
}

static int stack(void *lib, const ds_array *xs, size_t n, int64_t axis, ds_array *out)
{
    adapter *a = lib;
    int ax;
    if (axis_int(axis, &ax) < 0) return -1;
    return ra_stack(a->ctx, (const ra_array *const *)xs, n, ax, (ra_array **)out);
}

static int dlpack_device(void *lib, ds_array x, int32_t *type, int32_t *id)
{
    return ra_array_dlpack_device(x, type, id);
}

/* from_dlpack's copy=None is refarray's if-needed (x itself when nothing changes); the
 * dtype is DLPack's to keep, so none is passed. */
static int from_dlpack(void *lib, ds_array x, ds_device device, ds_copy copy, ds_array *out)
{
    adapter *a = lib;
    ra_opts o = refarray_make_opts(DS_DTYPE_NONE, device);
    o.copy = copy_mode(copy);
    return ra_from_dlpack(a->ctx, x, &o, (ra_array **)out);
}

/* A consumer's stream for __dlpack__ (DEV-DLP-11). DLPack numbers no OpenCL stream, so
 * refarray and its consumers share a convention (DEV-DLP-3): the stream is the address of
 * the cl_command_queue that ra_device_default_stream gives (stream.default's object) for the
 * device the export lands on (dl_device, else x's own device). That is the device's one
 * in-order queue, on which refarray enqueues every copy onto the device, so a copy made for
 * the consumer is made on the consumer's stream. Any other stream, and any stream for host
 * memory (DEV-DLP-2: None only), is BufferError. */
static int export_stream_fits(adapter *a, ds_array x, const int32_t *dl_device, int64_t stream)
{
    ra_device d = ra_array_device(x);
    void *queue = NULL;
    if (dl_device != NULL)
        d = (ra_device){dl_device[0] == kDLOpenCL ? RA_DEVICE_GPU : RA_DEVICE_CPU, dl_device[1]};
    bool fits = d.type == RA_DEVICE_GPU && ra_device_default_stream(a->ctx, d, &queue) == 0 &&
                queue != NULL && (int64_t)(intptr_t)queue == stream;
    if (fits) return 0;
    ds_error("BufferError",
             "__dlpack__: stream=%lld is not the OpenCL queue of the device the tensor would "
             "be on (refarray takes the queue stream.default gives for that device, and None)",
             (long long)stream);
    return -1;
}

/* __dlpack__ (ra_to_dlpack), with a stream only as export_stream_fits says. */
static int dlpack_export(void *lib, ds_array x, const int32_t *dl_device, ds_copy copy,
                         const int64_t *stream, struct DLManagedTensorVersioned **out)
{
    adapter *a = lib;
    if (stream != NULL && export_stream_fits(a, x, dl_device, *stream) != 0) return -1;
    return ra_to_dlpack(a->ctx, x, dl_device, copy_mode(copy), out);
}

/* from_dlpack of any producer's tensor (ra_from_dlpack_tensor, which deletes it). */
static int dlpack_import(void *lib, struct DLManagedTensorVersioned *tensor, ds_device device,
                         ds_copy copy, ds_array *out)
{
    adapter *a = lib;
    ra_opts o = refarray_make_opts(DS_DTYPE_NONE, device);
    o.copy = copy_mode(copy);
    return ra_from_dlpack_tensor(a->ctx, tensor, &o, (ra_array **)out);
}

/* capabilities() (DEV-INFO-2): refarray indexes with boolean masks (Array.__getitem__) and
 * has the functions whose output shape depends on the data (nonzero, unique_*); an array has at
 * most RA_MAX_NDIM dimensions. */
static int info_capabilities(void *lib, ds_capabilities *out)
{
    (void)lib;
    *out = (ds_capabilities){
        .boolean_indexing = true, .data_dependent_shapes = true, .max_dimensions = RA_MAX_NDIM};
    return 0;
}

static int stream_default(void *lib, ds_device device, ds_stream *out)
{
    adapter *a = lib;
    ra_device d;
    int st = refarray_device_value(a, device, "stream.default", &d);
    if (st != 0) return st;
    /* Borrowed: the context owns its queues, so the table has no release_stream. */
    return ra_device_default_stream(a->ctx, d, out);
}

/* ---- promotion per device, tril/triu, arrays alive on a device ---- */

static int can_cast(void *lib, ds_array from_array, ds_dtype from_dtype, ds_dtype to, bool *out)
{
    adapter *a = lib;
    if (from_array) {
        return ra_can_cast_array(a->ctx, from_array, (ra_dtype)to, out);
    }
    return ra_can_cast_dtype(a->ctx, (ra_dtype)from_dtype, (ra_dtype)to, out);
}

/* refarray takes the arrays and the dtypes as two lists; the order of the arguments does not
 * change a promotion. */
static int result_type(void *lib, const ds_array *arrays, const ds_dtype *dtypes, size_t n,
                       ds_dtype *out)
{
    adapter *a = lib;
    const ra_array **xs = calloc(n, sizeof *xs);
    ra_dtype *ds = calloc(n, sizeof *ds);
    size_t nx = 0, nd = 0;
    int st = -1;
    if (xs == NULL || ds == NULL) {
        ds_error("MemoryError", "refarray adapter: out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        if (arrays[i])
            xs[nx++] = arrays[i];
        else
            ds[nd++] = (ra_dtype)dtypes[i];
    }
    ra_dtype r = RA_DTYPE_DEFAULT;
    st = ra_result_type(a->ctx, xs, nx, ds, nd, &r);
    if (st == RA_OK) *out = (ds_dtype)r;
done:
    free(xs);
    free(ds);
    return st;
}

static int tri(void *lib, bool upper, ds_array x, int64_t k, ds_array *out)
{
    adapter *a = lib;
    if (upper) {
        return ra_triu(a->ctx, x, k, (ra_array **)out);
    }
    return ra_tril(a->ctx, x, k, (ra_array **)out);
}

static int arrays_on_device(void *lib, ds_device device, ds_array *out, size_t cap, size_t *n)
{
    adapter *a = lib;
    ra_device d;
    int st = refarray_device_value(a, device, "arrays_on_device", &d);
    return st != 0 ? st : ra_util_arrays_on_device(a->ctx, d, (ra_array **)out, cap, n);
}

/* The call slot: call.c answers it, with this table passed in for the names another slot
 * answers (call_slot, after the table). */
static int call_slot(void *lib, const char *name, const ds_value *args, size_t nargs,
                     const char *const *kwnames, const ds_value *kwargs, size_t nkw,
                     ds_call_result *out);

static const ds_vendor table = {
    .version = DS_VENDOR_VERSION,
    .size = sizeof(ds_vendor),
    .adapter_name = "refarray",
    .adapter_version = DEVSPEC_VERSION,
    .open = open_lib,
    .close = close_lib,
    .hello = hello,
    .reset = refarray_reset,
    .release_array = release_array,
    .release_device = refarray_release_device,
    .error = describe_error,
    .device_parse = refarray_device_parse,
    .device_describe = refarray_device_describe,
    .device_equal = refarray_device_equal,
    .device_from_type_index = refarray_device_from_type_index,
    .device_from_ordinal = refarray_device_from_ordinal,
    .info_devices = refarray_info_devices,
    .info_default_device = refarray_info_default_device,
    .info_default_dtypes = refarray_info_default_dtypes,
    .info_dtypes = refarray_info_dtypes,
    .fill = fill,
    .full = full,
    .arange = arange,
    .linspace = linspace,
    .eye = eye,
    .fill_like = fill_like,
    .full_like = full_like,
    .fftfreq = fftfreq,
    .asarray_buffer = asarray_buffer,
    .asarray_scalar = asarray_scalar,
    .asarray_array = asarray_array,
    .astype = astype,
    .describe = describe,
    .read = read_array,
    .to_device = to_device,
    .binary = binary,
    .unary = unary,
    .reduce = reduce,
    .matmul = matmul,
    .stack = stack,
    .dlpack_device = dlpack_device,
    .from_dlpack = from_dlpack,
    .stream_default = stream_default,
    .default_get = refarray_default_get,
    .default_set = refarray_default_set,
    .default_unset = refarray_default_unset,
    .default_push = refarray_default_push,
    .default_pop = refarray_default_pop,
    .soft_get = refarray_soft_get,
    .soft_set = refarray_soft_set,
    .soft_unset = refarray_soft_unset,
    .num_gpus = refarray_num_gpus,
    .num_cpu_cores = refarray_num_cpu_cores,
    .total_memory = refarray_total_memory,
    .used_memory = refarray_used_memory,
    .utilisation = refarray_utilisation,
    .can_cast = can_cast,
    .result_type = result_type,
    .tri = tri,
    .arrays_on_device = arrays_on_device,
    .device_parse_current = refarray_device_parse_current,
    .device_set_current = refarray_device_set_current,
    .array_get_device = refarray_array_get_device,
    .dtype_describe = dtype_describe,
    .binary_into = binary_into,
#ifdef DEVSPEC_ADAPTER_MPI
    .placement_describe = placement_describe,
    .placement_equal = placement_equal,
    .sbp_describe = sbp_describe,
    .global_make = global_make,
    .global_binary = global_binary,
    .global_sum = global_sum,
#endif
    .shard = refarray_shard,
    .shard_describe = refarray_shard_describe,
    .shard_piece = refarray_shard_piece,
    .to_devices = refarray_to_devices,
    .dlpack_export = dlpack_export,
    .dlpack_import = dlpack_import,
    .call = call_slot,
    .info_capabilities = info_capabilities,
};

static int call_slot(void *lib, const char *name, const ds_value *args, size_t nargs,
                     const char *const *kwnames, const ds_value *kwargs, size_t nkw,
                     ds_call_result *out)
{
    return refarray_call(&table, lib, name, args, nargs, kwnames, kwargs, nkw, out);
}

DEVSPEC_SHIM_EXPORT(&table)
