/*
 * internal.h: refarray's internal declarations shared by the core's modules (context,
 * devices, arrays, creation, operations, defaults, inspection). Backends see only
 * backend.h.
 */
#ifndef RA_INTERNAL_H
#define RA_INTERNAL_H

#include "backend.h"
#include "host_kernels.h"

#include <pthread.h>
#include <stdatomic.h>

#define RA_MESSAGE_MAX 512

/* The devices whose used bytes each thread counts itself (ra__used_add); a device beyond
 * them is counted in its own atomic only. */
#define RA__THREAD_DEVS 8

/* One device of a context: its value, backend and facts. */
typedef struct ra__dev {
    ra_device device;
    const ra__backend_ops *ops;
    void *impl;
    ra__device_info info;
    size_t index; /* in the context's devs */
    /* RA__BACKEND_FLAGS(ops) & RA__BACKEND_HOST_MEMORY, read once when the device is added:
     * the making of every small result asks it. */
    bool host_memory;
    /* Array data refarray holds on the device: this plus every thread's used[index] (ctx.c,
     * ra__used_add and ra__used_get). */
    _Atomic int64_t used_bytes;
} ra__dev;

/* The state of one thread in one context: the detail message, the scoped defaults and the
 * soft-mode stack. Created on first need, found through a per-thread cache. */
typedef struct ra__thread {
    struct ra__thread *next;
    uint64_t thread_id;
    char message[RA_MESSAGE_MAX];
    ra_device *scopes;        /* scoped defaults, innermost last */
    size_t *scope_soft_depth; /* soft stack depth before each scope's push */
    size_t nscopes, scopes_cap;
    bool *soft; /* soft-mode stack, top last */
    size_t nsoft, soft_cap;
    int32_t current[RA_DEVICE_TPU + 1]; /* current index per device type (current.c) */
    /* The bytes of array data this thread's calls added to each of the first
     * RA__THREAD_DEVS devices, less those they released (negative when it released arrays
     * other threads made). Written by this thread only, without a locked instruction; read
     * by ra__used_get under the context's lock and added to the device's count when the
     * state is freed. */
    _Atomic int64_t used[RA__THREAD_DEVS];
    /* The header of the array this thread released last, kept for its next array so that
     * a small operation needs no allocation: still in the list of live arrays with a count
     * of zero, which the listing skips (live.c). NULL when none. */
    struct ra_array *spare;
} ra__thread;

struct ra_ctx {
    ra_allocator allocator;
    unsigned flags;
    size_t max_host_bytes;   /* ra_ctx_options.max_host_bytes; 0: none */
    size_t max_device_bytes; /* ra_ctx_options.max_device_bytes; 0: none */
    uint64_t serial;         /* unique per context in the process, never 0 */
    ra__dev **devs;
    size_t ndevs, devs_cap;
    ra__dev *host; /* devs[0], the cpu device */
    /* Guards live_head, live_tail and every header's links (live.c). A spin lock rather
     * than lock: it is taken once for every array made, and a mutex costs two locked
     * instructions a turn where this costs one (ctx.c, ra__live_lock). */
    _Atomic bool live_lock;
    pthread_mutex_t lock; /* guards the fields below */
    ra_device global_default;
    bool global_default_set;
    ra__thread *threads;
    _Atomic int inference;
    _Atomic int promotion;   /* ra_promotion */
    _Atomic int out_casting; /* ra_out_casting */
    _Atomic int soft_policy;
    /* Every live array, oldest first, linked through live_prev/live_next (live.c), and the
     * threads' spare headers among them; guarded by live_lock, not lock. */
    struct ra_array *live_head;
    /* Written under live_lock only; read without it by ra__live_add, which revives the
     * calling thread's spare in place when it is still the last. */
    _Atomic(struct ra_array *) live_tail;
    /* The sharding layer's table (shard_ops.c), registered by ra_ctx_create (ctx_open.c):
     * shard.c makes its arrays with it without naming the file of their operations. */
    const struct ra__layer_ops *shard_layer;
    /* The listings' count, twice: ra__live_collect adds one, under live_lock, before it
     * takes references and one after, so it is odd while a listing runs. A release that finds
     * it odd, or changed between its two reads, takes the locked decrement (live.c,
     * ra__release_sole): a flag that the listing cleared again would miss a listing that ran
     * whole between the release's reading of the count and its look for a listing. */
    _Atomic unsigned long listings;
};

struct ra_array {
    /* The members the list of live arrays owns (live.c). A header released to its thread's
     * spare stays in the list while its thread fills it again, so these are never written
     * outside the list's lock once the header is linked, but for the atomics; the listing
     * reads only them. */
    _Atomic long refs;                      /* 0: released (a spare), never listed */
    struct ra_array *live_prev, *live_next; /* the context's list of live arrays */
    _Atomic(struct ra__dev *) listed_on;    /* arrays_on_device's device; NULL: never listed */
    bool linked;                            /* in the list */
    /* Set by the thread that releases the array's only reference without a locked
     * instruction, before it looks for a listing; cleared when the header is made a new
     * array. A listing takes no reference from a header where it is set (live.c). */
    _Atomic bool releasing;
    bool inline_room; /* the block has RA__INLINE_MAX bytes of data after the header (array_make.h)
                       */
    /* From here the members are the array's own, all set by array.c when it makes one. */
    ra_ctx *ctx;
    ra__dev *dev;
    ra_dtype dtype;
    size_t ndim;
    int64_t shape[RA_MAX_NDIM]; /* only [0, ndim) is set; the rest is unspecified */
    int64_t size;               /* array.c's header_init sets every member from ctx on */
    size_t nbytes;
    void *buf; /* NULL when nbytes == 0 */
    /* An array of a layer over the core (a sharded array): the layer's table and its data;
     * buf is then NULL. NULL for an ordinary array. */
    const struct ra__layer_ops *layer;
    void *layer_data;
    bool layer_piece; /* part of a layer's array (not listed by arrays_on_device) */
};

/* ---- structs that carry their size (ctx.c, refarray.h "Conventions") ---- */
/* The first layouts: the bytes of each struct up to the end of its last 0.2.0 field. A
 * struct that grows keeps these and reads a later field only when the caller's size covers
 * it. */
#define RA__OPTS_FIRST (offsetof(ra_opts, copy) + sizeof(ra_copy))
#define RA__CTX_OPTIONS_FIRST (offsetof(ra_ctx_options, flags) + sizeof(unsigned))
#define RA__DEVICE_PROPS_FIRST (offsetof(ra_device_props, compute_units) + sizeof(int))
/* Checks an input struct's size field: 0, or at least first, and any bytes beyond own (the
 * library's sizeof) zero. RA_E_ARG naming what and the size otherwise. */
int ra__size_check(ra_ctx *ctx, const void *s, size_t size, size_t first, size_t own,
                   const char *what);
/* Copies the caller's options into *out (all of this library's fields; those the caller's
 * size does not cover are zero) after ra__size_check. */
int ra__opts_load(ra_ctx *ctx, const ra_opts *in, const char *what, ra_opts *out);

/* ---- context (ctx.c) ---- */
/* The calling thread's state in ctx, made on first need; NULL when it cannot be allocated.
 * Inline: the one-entry cache of the context used last answers (two thread-local loads),
 * else ra__thread_lookup, which also finds states without making one (create false). */
/* One variable, so that one thread-local address serves both loads. */
typedef struct ra__thread_cache {
    uint64_t serial; /* the context's, never 0 */
    ra__thread *state;
} ra__thread_cache;
/* Initial-exec: read at a fixed offset from the thread pointer, where the default model of a
 * shared library calls the dynamic linker's resolver at each read (twice in a 1-element
 * operation, about an eighth of its time). A library loaded by dlopen takes its 16 bytes
 * from the static TLS block's surplus, which glibc keeps for this; were it ever exhausted,
 * dlopen would fail saying so (spec/decisions.md, Arrays and operations). */
extern _Thread_local ra__thread_cache ra__tls_cache __attribute__((tls_model("initial-exec")));
ra__thread *ra__thread_lookup(ra_ctx *ctx, bool create);
static inline ra__thread *ra__thread_get(ra_ctx *ctx)
{
    ra__thread *t = ra__tls_cache.state;
    if (ra__tls_cache.serial == ctx->serial && t) return t;
    return ra__thread_lookup(ctx, true);
}
/* Adds delta bytes to dev's used bytes: to the calling thread's own count where t (its state,
 * may be NULL) has one for dev, else to the device's atomic. */
static inline void ra__used_add(ra__thread *t, ra__dev *dev, int64_t delta)
{
    if (t && dev->index < RA__THREAD_DEVS) {
        /* Only this thread writes its count: a load and a store, no locked instruction. */
        _Atomic int64_t *own = &t->used[dev->index];
        atomic_store_explicit(own, atomic_load_explicit(own, memory_order_relaxed) + delta,
                              memory_order_relaxed);
    } else {
        atomic_fetch_add(&dev->used_bytes, delta);
    }
}
/* dev's used bytes: the device's count plus every thread's, under the context's lock; never
 * below zero (while other threads make and release arrays the sum is a moment's figure). */
uint64_t ra__used_get(ra_ctx *ctx, const ra__dev *dev);
/* The lock of the list of live arrays (live_lock), and taking x out of the list under it (a
 * header not in it is left alone). */
void ra__live_lock(ra_ctx *ctx);
void ra__live_unlock(ra_ctx *ctx);
void ra__live_unlink(ra_ctx *ctx, struct ra_array *x);
/* Copies ctx's message, prefixed by what, to the calling thread's slot for calls without a
 * context, so that it outlives ctx (ra_ctx_create's failure, ctx_open.c). */
void ra__ctx_keep_message(const ra_ctx *ctx, const char *what);

/* ---- devices (device.c) ---- */
ra__dev *ra__ctx_find(const ra_ctx *ctx, ra_device dev);
/* Like ra__ctx_find, but records RA_E_DEVICE_UNAVAILABLE (or RA_E_ARG for an invalid
 * value) naming the device and what is available; what says where ("zeros: device"). *out
 * is NULL on error. */
int ra__ctx_require(ra_ctx *ctx, ra_device dev, const char *what, ra__dev **out);
/* The built-in default: gpu:0 when available, else cpu. */
ra_device ra__builtin_default(const ra_ctx *ctx);
bool ra__device_valid(ra_device dev);
/* Canonical string into a buffer that is always large enough; for messages. */
const char *ra__device_str(ra_device dev, char buf[RA_DEVICE_STR_MAX]);
/* Resolves an explicit device from options: *given false when none is given. */
int ra__opts_device(ra_ctx *ctx, const ra_opts *opts, const char *what, bool *given,
                    ra_device *out);

/* dev with RA_DEVICE_INDEX_CURRENT replaced by the calling thread's current index; other
 * values unchanged. */
ra_device ra__device_resolve(ra_ctx *ctx, ra_device dev);

/* ---- dtypes (dtype.c) ---- */
bool ra__dtype_valid(ra_dtype dtype);
bool ra__dtype_is_float(ra_dtype dtype);   /* float16, float32, float64 */
bool ra__dtype_is_complex(ra_dtype dtype); /* complex64, complex128 */
bool ra__dtype_is_signed(ra_dtype dtype);
bool ra__dtype_is_unsigned(ra_dtype dtype);
bool ra__dtype_is_integer(ra_dtype dtype);
/* IEEE 754 binary16 from and to double: rounding to nearest, ties to even; subnormals,
 * infinities and NaN kept (a NaN becomes the quiet NaN 0x7e00 with its sign). The one
 * float16 codec of refarray (refarray.h's ra_float16_* are these). */
uint16_t ra__half_from_double(double d);
double ra__half_to_double(uint16_t h);
/* ---- promotion (promote.c) ---- */
/* The array API's promotion of two dtypes; RA_DTYPE_DEFAULT when not defined. */
ra_dtype ra__dtype_promote(ra_dtype a, ra_dtype b);
/* The join of two dtypes in the context's rule set's table; RA_DTYPE_DEFAULT when none. */
ra_dtype ra__promote_join(const ra_ctx *ctx, ra_dtype a, ra_dtype b);
/* The result dtype of a binary operation under the context's rule set (tiers and readings
 * included); RA_E_DTYPE naming both dtypes when there is none. */
int ra__promote_binary(ra_ctx *ctx, const char *fn, ra_operand x1, ra_operand x2, ra_dtype *out);
/* ra_can_cast_out for operation op (RA_OUT_CAST_ONEFLOW decides per operator). */
bool ra__can_cast_out_op(const ra_ctx *ctx, ra_binop op, ra_dtype result, ra_dtype out);
/* ra__scalar_to_element for a scalar operand whose result dtype is dtype, under the
 * context's rule set (the category rules convert a bool scalar into a number). */
int ra__promote_scalar_element(ra_ctx *ctx, ra_scalar s, ra_dtype dtype, void *elem,
                               const char *fn);
/* Whether the device supports the dtype (float64/complex128 need has_float64). */
bool ra__dtype_on_device(const ra__dev *dev, ra_dtype dtype);
/* RA_E_DTYPE_DEVICE with a message when not. */
int ra__dtype_require(ra_ctx *ctx, const ra__dev *dev, ra_dtype dtype, const char *what);
/* Writes the scalar as one element of dtype into out (ra_dtype_size bytes). Checks the
 * kind and the range: RA_E_DTYPE, RA_E_SCALAR_RANGE. */
int ra__scalar_to_element(ra_ctx *ctx, ra_scalar s, ra_dtype dtype, void *out, const char *what);
/* The default dtype for a scalar's kind on a device. */
ra_dtype ra__scalar_default_dtype(const ra__dev *dev, ra_scalar s);
ra_dtype ra__default_float(const ra__dev *dev);

/* ---- arrays (array.c) ---- */
/* Validates a shape and computes its size: RA_E_NULL, RA_E_SHAPE, RA_E_TOO_LARGE. */
/* The product of ndim extents (1 for none): the element count of a checked shape, or of a
 * run of its axes (the outer and inner counts around an axis). */
int64_t ra__shape_size(const int64_t *shape, size_t ndim);
/* A shape as the standard prints it, "(2, 3)", "(4,)", "()", into buf (cut with "..." when
 * long), for messages; returns buf. */
#define RA__SHAPE_STR_MAX 160
const char *ra__shape_str(const int64_t *shape, size_t ndim, char buf[RA__SHAPE_STR_MAX]);
/* The standard's broadcasting of n shapes (n >= 1): the result's ndim and shape, or
 * RA_E_BROADCAST naming fn and the two shapes that disagree. */
int ra__broadcast_shapes(ra_ctx *ctx, const char *fn, size_t n, const size_t *ndims,
                         const int64_t *const *shapes, size_t *ndim, int64_t *shape);
int ra__shape_check(ra_ctx *ctx, const int64_t *shape, size_t ndim, int64_t *size,
                    const char *what);
/* A new array (data zero-initialised) on dev. */
int ra__array_new(ra_ctx *ctx, ra__dev *dev, ra_dtype dtype, const int64_t *shape, size_t ndim,
                  ra_array **out);
/* The same with the data unspecified, for an array the caller writes whole before anything
 * reads it (the backend's alloc_uninit slot, where it has one). */
int ra__array_new_uninit(ra_ctx *ctx, ra__dev *dev, ra_dtype dtype, const int64_t *shape,
                         size_t ndim, ra_array **out);
/* The same with like's shape (already checked) and the data unspecified. */
int ra__array_new_like_uninit(ra_ctx *ctx, ra__dev *dev, ra_dtype dtype, const ra_array *like,
                              ra_array **out);
/* ra__array_new_like_uninit_on, the same for a caller that has the calling thread's state
 * already, is inline in array_make.h. */
/* The last step of a function that made x: on RA_OK x goes to *out and RA_OK is returned,
 * otherwise x is released and status returned. */
int ra__array_hand_out(int status, ra_array *x, ra_array **out);
/* Copies x to device dst (dtype unchanged), through host memory across backends. */
int ra__array_copy_to(ra_ctx *ctx, const ra_array *x, ra__dev *dst, void *stream, ra_array **out);
/* Converts x to dtype on its device (a new array). */
int ra__array_cast(ra_ctx *ctx, const ra_array *x, ra_dtype dtype, ra_array **out);
/* The device every input of an op is on (ops.c). When they differ: with soft device mode on,
 * each input is moved to the default device (the innermost scope, else the global default)
 * and that is the device; otherwise RA_E_DEVICE_MISMATCH naming the devices (DEV-DS-11,
 * IVY-SOFT-3). Under the RA_SOFT_MOVE_ALL policy soft mode moves every input, shared device
 * or not (IVY-SOFT-1). owned[i] receives a new reference to the array to use for input i
 * (nothing on error); *dev is NULL on error. n at least 1. */
int ra__common_device(ra_ctx *ctx, const char *fn, const ra_array *const *xs, size_t n,
                      ra__dev **dev, ra_array **owned);
/* Writes host data (x->nbytes bytes) into x. */
int ra__array_write(ra_ctx *ctx, ra_array *x, const void *src);
/* Fills x with one element value (already in x's dtype). */
int ra__array_fill(ra_ctx *ctx, ra_array *x, const void *value);

/* ---- defaults (defaults.c) ---- */
/* The device a function uses: explicit option, else array argument (array_dev NULL when
 * none), else scope, else global, in the context's inference order. */
int ra__infer_device(ra_ctx *ctx, const ra_opts *opts, const ra__dev *array_dev, const char *what,
                     ra__dev **out);
/* Scoped default of the calling thread, if any. */
bool ra__scope_top(ra_ctx *ctx, ra_device *out);

/* Whether a device's buffers are host memory the core may use directly. */
#define RA__DEV_HOST_MEMORY(dev) ((dev)->host_memory)

/* ---- layers over the core ----
 * A layer (sharding, shard.c) makes arrays whose data it holds itself. Such an array carries
 * the layer's table, and the core reaches the layer only through it, as it reaches a backend
 * through its ra__backend_ops: every public function that takes arrays asks ra__layer_of once,
 * at its top, and hands a layer's arrays to the table's entry for it or to refuse. The core
 * knows nothing else of a layer; the layer calls the core's public operations on its parts. */
/* Which layer a table is: a layer knows its own arrays by their table's kind (ra__shard_of). */
typedef enum ra__layer_kind { RA__LAYER_SHARD = 1 } ra__layer_kind;
typedef struct ra__layer_ops {
    ra__layer_kind kind;
    /* The operations that accept the layer's arrays, with the caller's arguments. */
    int (*binary)(ra_ctx *ctx, ra_binop op, ra_operand x1, ra_operand x2, ra_array **out);
    int (*unary)(ra_ctx *ctx, ra_unop op, const ra_array *x, ra_array **out);
    int (*reduce)(ra_ctx *ctx, ra_reduceop op, const ra_array *x, const int *axis, ra_array **out);
    int (*matmul)(ra_ctx *ctx, const ra_array *x1, const ra_array *x2, ra_array **out);
    /* ra_to_device of x onto dst (device is dst's, stream the caller's). */
    int (*to_device)(ra_ctx *ctx, const ra_array *x, ra__dev *dst, ra_device device, void *stream,
                     ra_array **out);
    /* ra_array_read of the whole of x (x->nbytes > 0) into dst. */
    int (*read)(ra_ctx *ctx, const ra_array *x, void *dst);
    /* The error of a function that does not accept the layer's arrays; what names it. */
    int (*refuse)(ra_ctx *ctx, const ra_array *x, const char *what);
    /* Releases the layer's data of an array (with its parts and their accounting). */
    void (*free)(ra_ctx *ctx, void *data);
} ra__layer_ops;
/* The layer of the first of x1 and x2 (either may be NULL) that belongs to one, else NULL:
 * the one test of the core for a layer's arrays. */
static inline const ra__layer_ops *ra__layer_of(const ra_array *x1, const ra_array *x2)
{
    return x1 && x1->layer ? x1->layer : x2 ? x2->layer : NULL;
}
/* An array of layer with logical dtype and shape, on dev (the first part's device), that takes
 * ownership of data (array.c); on failure data is freed too. fn names the caller. */
int ra__array_new_layered(ra_ctx *ctx, const ra__layer_ops *layer, void *data, ra__dev *dev,
                          ra_dtype dtype, const int64_t *shape, size_t ndim, const char *fn,
                          ra_array **out);
/* Frees an ordinary array's data and its accounting, leaving the header (array.c; for a layer
 * that takes an array over in place). */
void ra__array_unshare(ra_array *x);
/* Returns the layer's refusal when x (may be NULL) belongs to a layer. */
#define RA__REFUSE_LAYERED(ctx, x, what)                                                           \
    do {                                                                                           \
        const ra__layer_ops *ra__l = ra__layer_of((x), NULL);                                      \
        if (ra__l) return ra__l->refuse((ctx), (x), (what));                                       \
    } while (0)

/* ---- live arrays (live.c) ---- */
/* A header for a new array made by the calling thread (t its state, may be NULL), with room
 * for array.c's inline data after it when room: t's spare when it fits, else a new block of
 * block bytes through the allocation hook (ra__live_header_new). NULL when none can be
 * allocated. The header's own members (from ctx on) are the caller's to set; it is not
 * listed until ra__live_add. Inline, as are the next two: their common case is a few loads
 * and stores of a small operation's few hundred instructions. */
ra_array *ra__live_header_new(ra_ctx *ctx, size_t block, bool room);
static inline ra_array *ra__live_header(ra_ctx *ctx, ra__thread *t, size_t block, bool room)
{
    ra_array *x = t ? t->spare : NULL;
    if (x && (x->inline_room || !room)) {
        t->spare = NULL;
        return x;
    }
    return ra__live_header_new(ctx, block, room);
}
/* Puts a header from ra__live_header at the end of the list with one reference: from then
 * ra_util_arrays_on_device may list it (x->listed_on must be set). A spare that is still the
 * last header comes back to life where it is, without the lock (live.c's comment), else
 * ra__live_append moves it under the lock. */
void ra__live_append(ra_ctx *ctx, ra_array *x);
static inline void ra__live_add(ra_ctx *ctx, ra_array *x)
{
    atomic_store_explicit(&x->releasing, false, memory_order_relaxed);
    if (x->linked && atomic_load_explicit(&ctx->live_tail, memory_order_relaxed) == x) {
        /* The release store publishes the members to a listing that then takes a reference
         * (the count's compare-and-swap reads it). */
        atomic_store_explicit(&x->refs, 1, memory_order_release);
        return;
    }
    ra__live_append(ctx, x);
}
/* Gives back the header of an array whose last reference went (its data already freed): it
 * becomes t's spare (t may be NULL), and the spare it replaces, or x when t is NULL, leaves
 * the list and is freed (ra__live_free). The last one is kept: it is of the kind the thread
 * makes now (a spare without room for inline data kept instead would leave every small
 * result to allocate). */
void ra__live_free(ra_ctx *ctx, ra_array *x);
static inline void ra__live_retire(ra_ctx *ctx, ra__thread *t, ra_array *x)
{
    if (t) {
        ra_array *old = t->spare;
        t->spare = x;
        x = old;
        if (!x) return;
    }
    ra__live_free(ctx, x);
}
/* Writes up to cap of the arrays alive on d to out as new references and the number alive to
 * *count (ra_util_arrays_on_device's rules). */
int ra__live_collect(ra_ctx *ctx, const ra__dev *d, ra_array **out, size_t cap, size_t *count);

/* Whether the process has the listing's barrier (membarrier.c), and setting it up (once; every
 * thread state's creation and every listing call it first); the listing's fence, a full
 * memory barrier on every running thread of the process. */
extern _Atomic bool ra__listing_barrier;
void ra__listing_barrier_init(void);
void ra__listing_fence(void);
/* Releases x's count when the caller holds its only reference, without a locked instruction
 * (live.c's comment): true when the count went from 1 to 0 so, false when the caller must
 * take the locked decrement (other references, no listing barrier in this process, or a
 * listing running or run since the count was read). */
static inline bool ra__release_sole(ra_array *x)
{
    if (!atomic_load_explicit(&ra__listing_barrier, memory_order_relaxed)) return false;
    _Atomic unsigned long *listings = &x->ctx->listings;
    /* Acquire: a listing that ended before this read took its references before it, and the
     * count read next sees them. */
    unsigned long seen = atomic_load_explicit(listings, memory_order_acquire);
    if ((seen & 1) || atomic_load_explicit(&x->refs, memory_order_acquire) != 1) return false;
    atomic_store_explicit(&x->releasing, true, memory_order_relaxed);
    atomic_signal_fence(memory_order_seq_cst); /* the listing's barrier is the other half */
    if (atomic_load_explicit(listings, memory_order_relaxed) != seen) {
        atomic_store_explicit(&x->releasing, false, memory_order_relaxed);
        return false;
    }
    atomic_store_explicit(&x->refs, 0, memory_order_relaxed);
    return true;
}

#endif /* RA_INTERNAL_H */
