/* backend_host.c: the host backend (the cpu device): buffers in host memory through the
 * allocation hook, and the reference kernels. The core also uses these kernels on host
 * copies when another backend leaves a compute slot NULL. */
#include "internal.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Host buffers and their reuse.
 *
 * Every buffer is one block from the context's allocation hook: a header (the block's
 * capacity in bytes) and then the data, so free knows a block's size. Blocks of at least
 * CACHE_MIN bytes are not returned to the hook when their array dies but kept in a cache,
 * bucketed by size (eight buckets per power of two), and handed out again to a request of the
 * same bucket that fits. Large blocks from the C allocator are fresh pages each time (a new
 * mmap) whose first touch costs a page fault per page: as much as the operation itself for a
 * memory-bound elementwise result. A reused block is already touched.
 *
 * Bounds: the cache holds at most cache_limit bytes (an eighth of physical memory, at most
 * CACHE_MAX); a block that does not fit is returned to the hook. When the hook fails, the
 * cache is emptied and the allocation tried once more, so cached blocks never cause an
 * out-of-memory. The cache is guarded by its own mutex (blocks below CACHE_MIN never take
 * it) and emptied when the context is destroyed.
 *
 * Zeros: alloc (backend.h) promises zero-initialised memory; alloc_uninit leaves the contents
 * unspecified for results that are written whole at once. A reused block is zeroed only for
 * alloc; a new block from the hook is zeroed by memset for alloc only, so a result's pages are
 * first touched by the operation that writes them and not twice. */
#define CACHE_MIN ((size_t)256 << 10)
#define CACHE_MAX ((size_t)1 << 30)
#define CACHE_MIN_LOG2 18
#define CACHE_BUCKETS ((64 - CACHE_MIN_LOG2) * 8)

typedef struct host_block {
    union {
        size_t cap;         /* data bytes after the header */
        max_align_t align_; /* keeps the data as aligned as the hook's blocks */
    } h;
} host_block;

typedef struct cached_block {
    host_block head;
    struct cached_block *next;
} cached_block;

typedef struct host_impl {
    ra_ctx *ctx;
    pthread_mutex_t cache_lock; /* guards the fields below */
    cached_block *buckets[CACHE_BUCKETS];
    size_t cached_bytes;
    size_t cache_limit;
} host_impl;

/* Every dtype with its C type and kind: B bool, I signed, U unsigned, F real floating,
 * C complex floating (K-prefixed: <complex.h> defines I). */
#define HOST_TYPES(X)                                                                              \
    X(RA_BOOL, bool, KB)                                                                           \
    X(RA_INT8, int8_t, KI)                                                                         \
    X(RA_INT16, int16_t, KI)                                                                       \
    X(RA_INT32, int32_t, KI)                                                                       \
    X(RA_INT64, int64_t, KI)                                                                       \
    X(RA_UINT8, uint8_t, KU)                                                                       \
    X(RA_UINT16, uint16_t, KU)                                                                     \
    X(RA_UINT32, uint32_t, KU)                                                                     \
    X(RA_UINT64, uint64_t, KU)                                                                     \
    X(RA_FLOAT32, float, KF)                                                                       \
    X(RA_FLOAT64, double, KF)                                                                      \
    X(RA_COMPLEX64, float complex, KC)                                                             \
    X(RA_COMPLEX128, double complex, KC)

/* The same list with an extra argument passed through, for the nested cast switch. */
#define HOST_TYPES_WITH(X, A)                                                                      \
    X(A, RA_BOOL, bool, KB, 0, 1)                                                                  \
    X(A, RA_INT8, int8_t, KI, INT8_MIN, INT8_MAX)                                                  \
    X(A, RA_INT16, int16_t, KI, INT16_MIN, INT16_MAX)                                              \
    X(A, RA_INT32, int32_t, KI, INT32_MIN, INT32_MAX)                                              \
    X(A, RA_INT64, int64_t, KI, INT64_MIN, INT64_MAX)                                              \
    X(A, RA_UINT8, uint8_t, KU, 0, UINT8_MAX)                                                      \
    X(A, RA_UINT16, uint16_t, KU, 0, UINT16_MAX)                                                   \
    X(A, RA_UINT32, uint32_t, KU, 0, UINT32_MAX)                                                   \
    X(A, RA_UINT64, uint64_t, KU, 0, UINT64_MAX)                                                   \
    X(A, RA_FLOAT32, float, KF, 0, 0)                                                              \
    X(A, RA_FLOAT64, double, KF, 0, 0)                                                             \
    X(A, RA_COMPLEX64, float complex, KC, 0, 0)                                                    \
    X(A, RA_COMPLEX128, double complex, KC, 0, 0)

/* ---- casts ----
 * To bool: nonzero. Real floating to integer: NaN gives 0, values beyond the range
 * saturate, others truncate toward zero (C leaves the out-of-range case undefined, so
 * refarray defines it; spec/decisions.md). Complex to anything but complex takes the real
 * part; the core never asks for it. Everything else is C's conversion. */
static int64_t sat_signed(double v, int64_t lo, int64_t hi)
{
    if (isnan(v)) return 0;
    if (v <= (double)lo) return lo;
    if (v >= (double)hi) return hi;
    return (int64_t)v;
}

static uint64_t sat_unsigned(double v, uint64_t hi)
{
    if (isnan(v) || v <= 0.0) return 0;
    if (v >= (double)hi) return hi;
    return (uint64_t)v;
}

#define CONV_KB(DT, LO, HI, SK, v) CONV_KB_##SK(v)
#define CONV_KB_KB(v) (v)
#define CONV_KB_KI(v) ((v) != 0)
#define CONV_KB_KU(v) ((v) != 0)
#define CONV_KB_KF(v) ((v) != 0)
#define CONV_KB_KC(v) ((v) != 0)
#define CONV_KI(DT, LO, HI, SK, v) CONV_KI_##SK(DT, LO, HI, v)
#define CONV_KI_KB(DT, LO, HI, v) (DT)(v)
#define CONV_KI_KI(DT, LO, HI, v) (DT)(v)
#define CONV_KI_KU(DT, LO, HI, v) (DT)(v)
#define CONV_KI_KF(DT, LO, HI, v) (DT) sat_signed((double)(v), LO, HI)
#define CONV_KI_KC(DT, LO, HI, v) (DT) sat_signed((double)creal(v), LO, HI)
#define CONV_KU(DT, LO, HI, SK, v) CONV_KU_##SK(DT, HI, v)
#define CONV_KU_KB(DT, HI, v) (DT)(v)
#define CONV_KU_KI(DT, HI, v) (DT)(v)
#define CONV_KU_KU(DT, HI, v) (DT)(v)
#define CONV_KU_KF(DT, HI, v) (DT) sat_unsigned((double)(v), HI)
#define CONV_KU_KC(DT, HI, v) (DT) sat_unsigned((double)creal(v), HI)
#define CONV_KF(DT, LO, HI, SK, v) CONV_KF_##SK(DT, v)
#define CONV_KF_KB(DT, v) (DT)(v)
#define CONV_KF_KI(DT, v) (DT)(v)
#define CONV_KF_KU(DT, v) (DT)(v)
#define CONV_KF_KF(DT, v) (DT)(v)
#define CONV_KF_KC(DT, v) (DT) creal(v)
#define CONV_KC(DT, LO, HI, SK, v) (DT)(v)

/* Inner case: source (SE, ST, SK) given in A as a parenthesised triple. */
#define CAST_SRC_ST(SE, ST, SK) ST
#define CAST_SRC_SK(SE, ST, SK) SK
#define CAST_INNER(A, DE, DT, DK, LO, HI)                                                          \
    case DE: {                                                                                     \
        DT *d = dst;                                                                               \
        const CAST_SRC_ST A *s = src;                                                              \
        for (size_t i = 0; i < count; i++)                                                         \
            d[i] = CAST_APPLY(DK, DT, LO, HI, CAST_SRC_SK A, s[i]);                                \
        return;                                                                                    \
    }
#define CAST_APPLY(DK, DT, LO, HI, SK, v) CAST_APPLY2(DK, DT, LO, HI, SK, v)
#define CAST_APPLY2(DK, DT, LO, HI, SK, v) CONV_##DK(DT, LO, HI, SK, v)
#define CAST_OUTER(SE, ST, SK)                                                                     \
    case SE:                                                                                       \
        switch (dst_dtype) {                                                                       \
            HOST_TYPES_WITH(CAST_INNER, (SE, ST, SK))                                              \
        default:                                                                                   \
            return;                                                                                \
        }

void ra__host_cast(void *dst, ra_dtype dst_dtype, const void *src, ra_dtype src_dtype, size_t count)
{
    switch (src_dtype) {
        HOST_TYPES(CAST_OUTER)
    default:
        return;
    }
}

/* ---- elementwise binary over strided views ---- */

/* Runs BODY for every element i of out (contiguous), with ia and ib the element indices
 * into a and b, stepping a multi-index. */
#define STRIDED_FOR(a, b, out, ...)                                                                \
    do {                                                                                           \
        size_t nd_ = (out)->ndim;                                                                  \
        int64_t idx_[RA_MAX_NDIM] = {0};                                                           \
        int64_t n_ = 1;                                                                            \
        for (size_t d_ = 0; d_ < nd_; d_++)                                                        \
            n_ *= (out)->shape[d_];                                                                \
        int64_t ia = (a)->offset, ib = (b)->offset;                                                \
        for (int64_t i = 0; i < n_; i++) {                                                         \
            __VA_ARGS__;                                                                           \
            for (size_t d_ = nd_; d_-- > 0;) {                                                     \
                idx_[d_]++;                                                                        \
                ia += (a)->strides[d_];                                                            \
                ib += (b)->strides[d_];                                                            \
                if (idx_[d_] < (out)->shape[d_]) break;                                            \
                ia -= (a)->strides[d_] * (out)->shape[d_];                                         \
                ib -= (b)->strides[d_] * (out)->shape[d_];                                         \
                idx_[d_] = 0;                                                                      \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* Arithmetic on signed integers wraps (two's complement), through the unsigned type, since
 * signed overflow is undefined in C. Products go through at least unsigned int: a 16-bit
 * unsigned type is promoted to int, and 65535 * 65535 would overflow it. */
#define WRAP_ADD(T, UT, x, y) (T)((UT)(x) + (UT)(y))
#define WRAP_SUB(T, UT, x, y) (T)((UT)(x) - (UT)(y))
#define WRAP_MUL(T, UT, x, y) (T)(1u * (UT)(x) * (UT)(y))

#define BIN_INTEGER(NAME, T, UT)                                                                   \
    static void NAME(ra_binop op, const ra__view *a, const ra__view *b, const ra__view *o)         \
    {                                                                                              \
        const T *pa = a->buf;                                                                      \
        const T *pb = b->buf;                                                                      \
        T *po = o->buf;                                                                            \
        bool *pq = o->buf;                                                                         \
        STRIDED_FOR(a, b, o, {                                                                     \
            T x = pa[ia], y = pb[ib];                                                              \
            switch (op) {                                                                          \
            case RA_ADD:                                                                           \
                po[i] = WRAP_ADD(T, UT, x, y);                                                     \
                break;                                                                             \
            case RA_SUBTRACT:                                                                      \
                po[i] = WRAP_SUB(T, UT, x, y);                                                     \
                break;                                                                             \
            case RA_MULTIPLY:                                                                      \
                po[i] = WRAP_MUL(T, UT, x, y);                                                     \
                break;                                                                             \
            case RA_EQUAL:                                                                         \
                pq[i] = x == y;                                                                    \
                break;                                                                             \
            case RA_LESS:                                                                          \
                pq[i] = x < y;                                                                     \
                break;                                                                             \
            case RA_MAXIMUM:                                                                       \
                po[i] = x > y ? x : y;                                                             \
                break;                                                                             \
            default:                                                                               \
                break;                                                                             \
            }                                                                                      \
        });                                                                                        \
    }

#define BIN_FLOAT(NAME, T)                                                                         \
    static void NAME(ra_binop op, const ra__view *a, const ra__view *b, const ra__view *o)         \
    {                                                                                              \
        const T *pa = a->buf;                                                                      \
        const T *pb = b->buf;                                                                      \
        T *po = o->buf;                                                                            \
        bool *pq = o->buf;                                                                         \
        STRIDED_FOR(a, b, o, {                                                                     \
            T x = pa[ia], y = pb[ib];                                                              \
            switch (op) {                                                                          \
            case RA_ADD:                                                                           \
                po[i] = x + y;                                                                     \
                break;                                                                             \
            case RA_SUBTRACT:                                                                      \
                po[i] = x - y;                                                                     \
                break;                                                                             \
            case RA_MULTIPLY:                                                                      \
                po[i] = x * y;                                                                     \
                break;                                                                             \
            case RA_DIVIDE:                                                                        \
                po[i] = x / y;                                                                     \
                break;                                                                             \
            case RA_EQUAL:                                                                         \
                pq[i] = x == y;                                                                    \
                break;                                                                             \
            case RA_LESS:                                                                          \
                pq[i] = x < y;                                                                     \
                break;                                                                             \
            case RA_MAXIMUM:                                                                       \
                po[i] = isnan(x) ? x : isnan(y) ? y : (x > y ? x : y);                             \
                break;                                                                             \
            }                                                                                      \
        });                                                                                        \
    }

#define BIN_COMPLEX(NAME, T)                                                                       \
    static void NAME(ra_binop op, const ra__view *a, const ra__view *b, const ra__view *o)         \
    {                                                                                              \
        const T *pa = a->buf;                                                                      \
        const T *pb = b->buf;                                                                      \
        T *po = o->buf;                                                                            \
        bool *pq = o->buf;                                                                         \
        STRIDED_FOR(a, b, o, {                                                                     \
            T x = pa[ia], y = pb[ib];                                                              \
            switch (op) {                                                                          \
            case RA_ADD:                                                                           \
                po[i] = x + y;                                                                     \
                break;                                                                             \
            case RA_SUBTRACT:                                                                      \
                po[i] = x - y;                                                                     \
                break;                                                                             \
            case RA_MULTIPLY:                                                                      \
                po[i] = x * y;                                                                     \
                break;                                                                             \
            case RA_DIVIDE:                                                                        \
                po[i] = x / y;                                                                     \
                break;                                                                             \
            case RA_EQUAL:                                                                         \
                pq[i] = x == y;                                                                    \
                break;                                                                             \
            default:                                                                               \
                break;                                                                             \
            }                                                                                      \
        });                                                                                        \
    }

static void bin_bool(ra_binop op, const ra__view *a, const ra__view *b, const ra__view *o)
{
    const bool *pa = a->buf;
    const bool *pb = b->buf;
    bool *pq = o->buf;
    /* The core allows only equal on bool. */
    if (op == RA_EQUAL) STRIDED_FOR(a, b, o, { pq[i] = pa[ia] == pb[ib]; });
}

BIN_INTEGER(bin_i8, int8_t, uint8_t)
BIN_INTEGER(bin_i16, int16_t, uint16_t)
BIN_INTEGER(bin_i32, int32_t, uint32_t)
BIN_INTEGER(bin_i64, int64_t, uint64_t)
BIN_INTEGER(bin_u8, uint8_t, uint8_t)
BIN_INTEGER(bin_u16, uint16_t, uint16_t)
BIN_INTEGER(bin_u32, uint32_t, uint32_t)
BIN_INTEGER(bin_u64, uint64_t, uint64_t)
BIN_FLOAT(bin_f32, float)
BIN_FLOAT(bin_f64, double)
BIN_COMPLEX(bin_c64, float complex)
BIN_COMPLEX(bin_c128, double complex)

/* ---- elementwise binary, contiguous fast path ----
 * When neither operand needs broadcasting (each is either laid out like out, or one element
 * repeated: a scalar or 0-d operand), the operation is one flat loop over count elements.
 * Each (dtype, op, layout) gets its own plain loop over restrict pointers so the compiler
 * vectorises it; the expressions are the strided kernels' own, so results are identical
 * bit for bit (no reassociation: every element is one operation on two values). */

/* How a view walks out's elements. */
enum { LAYOUT_OTHER, LAYOUT_FLAT, LAYOUT_REPEAT };

static int view_layout(const ra__view *v, const ra__view *out)
{
    bool flat = v->offset == 0, repeat = true;
    int64_t expect = 1;
    for (size_t d = out->ndim; d-- > 0;) {
        int64_t n = out->shape[d];
        if (n != 1) {
            if (v->strides[d] != expect) flat = false;
            if (v->strides[d] != 0) repeat = false;
        }
        expect *= n;
    }
    return flat ? LAYOUT_FLAT : repeat ? LAYOUT_REPEAT : LAYOUT_OTHER;
}

/* o[i] = EXPR for i < n with x, y the operands' elements: flat operands step, repeated ones
 * stay on their one element (both repeated only when n <= 1). */
#define FAST_LOOP(T, OT, EXPR)                                                                     \
    do {                                                                                           \
        OT *restrict o_ = out;                                                                     \
        if (fa && fb) {                                                                            \
            for (size_t i = 0; i < n; i++) {                                                       \
                T x = pa[i], y = pb[i];                                                            \
                o_[i] = (EXPR);                                                                    \
            }                                                                                      \
        } else if (fa) {                                                                           \
            const T y = pb[0];                                                                     \
            for (size_t i = 0; i < n; i++) {                                                       \
                T x = pa[i];                                                                       \
                o_[i] = (EXPR);                                                                    \
            }                                                                                      \
        } else if (fb) {                                                                           \
            const T x = pa[0];                                                                     \
            for (size_t i = 0; i < n; i++) {                                                       \
                T y = pb[i];                                                                       \
                o_[i] = (EXPR);                                                                    \
            }                                                                                      \
        } else {                                                                                   \
            const T x = pa[0], y = pb[0];                                                          \
            for (size_t i = 0; i < n; i++)                                                         \
                o_[i] = (EXPR);                                                                    \
        }                                                                                          \
    } while (0)

#define FAST_SIGNATURE(NAME, T)                                                                    \
    static void NAME(ra_binop op, size_t n, const T *restrict pa, bool fa, const T *restrict pb,   \
                     bool fb, void *restrict out)

#define FAST_INTEGER(NAME, T, UT)                                                                  \
    FAST_SIGNATURE(NAME, T)                                                                        \
    {                                                                                              \
        switch (op) {                                                                              \
        case RA_ADD:                                                                               \
            FAST_LOOP(T, T, WRAP_ADD(T, UT, x, y));                                                \
            break;                                                                                 \
        case RA_SUBTRACT:                                                                          \
            FAST_LOOP(T, T, WRAP_SUB(T, UT, x, y));                                                \
            break;                                                                                 \
        case RA_MULTIPLY:                                                                          \
            FAST_LOOP(T, T, WRAP_MUL(T, UT, x, y));                                                \
            break;                                                                                 \
        case RA_EQUAL:                                                                             \
            FAST_LOOP(T, bool, x == y);                                                            \
            break;                                                                                 \
        case RA_LESS:                                                                              \
            FAST_LOOP(T, bool, x < y);                                                             \
            break;                                                                                 \
        case RA_MAXIMUM:                                                                           \
            FAST_LOOP(T, T, x > y ? x : y);                                                        \
            break;                                                                                 \
        default:                                                                                   \
            break;                                                                                 \
        }                                                                                          \
    }

#define FAST_FLOAT(NAME, T)                                                                        \
    FAST_SIGNATURE(NAME, T)                                                                        \
    {                                                                                              \
        switch (op) {                                                                              \
        case RA_ADD:                                                                               \
            FAST_LOOP(T, T, x + y);                                                                \
            break;                                                                                 \
        case RA_SUBTRACT:                                                                          \
            FAST_LOOP(T, T, x - y);                                                                \
            break;                                                                                 \
        case RA_MULTIPLY:                                                                          \
            FAST_LOOP(T, T, x *y);                                                                 \
            break;                                                                                 \
        case RA_DIVIDE:                                                                            \
            FAST_LOOP(T, T, x / y);                                                                \
            break;                                                                                 \
        case RA_EQUAL:                                                                             \
            FAST_LOOP(T, bool, x == y);                                                            \
            break;                                                                                 \
        case RA_LESS:                                                                              \
            FAST_LOOP(T, bool, x < y);                                                             \
            break;                                                                                 \
        case RA_MAXIMUM:                                                                           \
            FAST_LOOP(T, T, isnan(x) ? x : isnan(y) ? y : (x > y ? x : y));                        \
            break;                                                                                 \
        }                                                                                          \
    }

#define FAST_COMPLEX(NAME, T)                                                                      \
    FAST_SIGNATURE(NAME, T)                                                                        \
    {                                                                                              \
        switch (op) {                                                                              \
        case RA_ADD:                                                                               \
            FAST_LOOP(T, T, x + y);                                                                \
            break;                                                                                 \
        case RA_SUBTRACT:                                                                          \
            FAST_LOOP(T, T, x - y);                                                                \
            break;                                                                                 \
        case RA_MULTIPLY:                                                                          \
            FAST_LOOP(T, T, x *y);                                                                 \
            break;                                                                                 \
        case RA_DIVIDE:                                                                            \
            FAST_LOOP(T, T, x / y);                                                                \
            break;                                                                                 \
        case RA_EQUAL:                                                                             \
            FAST_LOOP(T, bool, x == y);                                                            \
            break;                                                                                 \
        default:                                                                                   \
            break;                                                                                 \
        }                                                                                          \
    }

FAST_SIGNATURE(fast_bool, bool)
{
    /* The core allows only equal on bool. */
    if (op == RA_EQUAL) FAST_LOOP(bool, bool, x == y);
}

FAST_INTEGER(fast_i8, int8_t, uint8_t)
FAST_INTEGER(fast_i16, int16_t, uint16_t)
FAST_INTEGER(fast_i32, int32_t, uint32_t)
FAST_INTEGER(fast_i64, int64_t, uint64_t)
FAST_INTEGER(fast_u8, uint8_t, uint8_t)
FAST_INTEGER(fast_u16, uint16_t, uint16_t)
FAST_INTEGER(fast_u32, uint32_t, uint32_t)
FAST_INTEGER(fast_u64, uint64_t, uint64_t)
FAST_FLOAT(fast_f32, float)
FAST_FLOAT(fast_f64, double)
FAST_COMPLEX(fast_c64, float complex)
FAST_COMPLEX(fast_c128, double complex)

/* The element size of a dtype (ra_dtype_size without the call and the validity check: the
 * core passes valid dtypes only). */
static size_t host_elem_size(ra_dtype dtype)
{
    switch (dtype) {
#define HOST_SIZE(E, T, K)                                                                         \
    case E:                                                                                        \
        return sizeof(T);
        HOST_TYPES(HOST_SIZE)
#undef HOST_SIZE
    default:
        return 0;
    }
}

/* Runs the flat loop of dtype over n elements: operands flat (fa, fb) or repeated. */
static bool fast_dispatch(ra_binop op, ra_dtype dtype, size_t n, const void *pa, bool fa,
                          const void *pb, bool fb, void *po)
{
    switch (dtype) {
    case RA_BOOL:
        fast_bool(op, n, pa, fa, pb, fb, po);
        break;
    case RA_INT8:
        fast_i8(op, n, pa, fa, pb, fb, po);
        break;
    case RA_INT16:
        fast_i16(op, n, pa, fa, pb, fb, po);
        break;
    case RA_INT32:
        fast_i32(op, n, pa, fa, pb, fb, po);
        break;
    case RA_INT64:
        fast_i64(op, n, pa, fa, pb, fb, po);
        break;
    case RA_UINT8:
        fast_u8(op, n, pa, fa, pb, fb, po);
        break;
    case RA_UINT16:
        fast_u16(op, n, pa, fa, pb, fb, po);
        break;
    case RA_UINT32:
        fast_u32(op, n, pa, fa, pb, fb, po);
        break;
    case RA_UINT64:
        fast_u64(op, n, pa, fa, pb, fb, po);
        break;
    case RA_FLOAT32:
        fast_f32(op, n, pa, fa, pb, fb, po);
        break;
    case RA_FLOAT64:
        fast_f64(op, n, pa, fa, pb, fb, po);
        break;
    case RA_COMPLEX64:
        fast_c64(op, n, pa, fa, pb, fb, po);
        break;
    case RA_COMPLEX128:
        fast_c128(op, n, pa, fa, pb, fb, po);
        break;
    default:
        return false;
    }
    return true;
}

void ra__host_binary_flat(ra_binop op, ra_dtype dtype, size_t n, const void *a, const void *b,
                          void *out)
{
    fast_dispatch(op, dtype, n, a, true, b, true, out);
}

/* Runs the fast path when both operands allow it; false when one needs broadcasting. */
static bool host_binary_fast(ra_binop op, const ra__view *a, const ra__view *b, const ra__view *out)
{
    int la = view_layout(a, out), lb = view_layout(b, out);
    if (la == LAYOUT_OTHER || lb == LAYOUT_OTHER) return false;
    size_t n = 1;
    for (size_t d = 0; d < out->ndim; d++)
        n *= (size_t)out->shape[d];
    size_t es = host_elem_size(a->dtype);
    const void *pa = (const char *)a->buf + (size_t)a->offset * es;
    const void *pb = (const char *)b->buf + (size_t)b->offset * es;
    return fast_dispatch(op, a->dtype, n, pa, la == LAYOUT_FLAT, pb, lb == LAYOUT_FLAT, out->buf);
}

static int host_binary(void *impl, ra_binop op, const ra__view *a, const ra__view *b,
                       const ra__view *out)
{
    (void)impl;
    if (host_binary_fast(op, a, b, out)) return RA_OK;
    switch (a->dtype) {
    case RA_BOOL:
        bin_bool(op, a, b, out);
        break;
    case RA_INT8:
        bin_i8(op, a, b, out);
        break;
    case RA_INT16:
        bin_i16(op, a, b, out);
        break;
    case RA_INT32:
        bin_i32(op, a, b, out);
        break;
    case RA_INT64:
        bin_i64(op, a, b, out);
        break;
    case RA_UINT8:
        bin_u8(op, a, b, out);
        break;
    case RA_UINT16:
        bin_u16(op, a, b, out);
        break;
    case RA_UINT32:
        bin_u32(op, a, b, out);
        break;
    case RA_UINT64:
        bin_u64(op, a, b, out);
        break;
    case RA_FLOAT32:
        bin_f32(op, a, b, out);
        break;
    case RA_FLOAT64:
        bin_f64(op, a, b, out);
        break;
    case RA_COMPLEX64:
        bin_c64(op, a, b, out);
        break;
    case RA_COMPLEX128:
        bin_c128(op, a, b, out);
        break;
    default:
        return RA_E_DTYPE;
    }
    return RA_OK;
}

/* ---- elementwise unary ---- */

#define UN_SIGNED(T, UT)                                                                           \
    {                                                                                              \
        const T *s = x;                                                                            \
        T *d = out;                                                                                \
        for (size_t i = 0; i < count; i++) {                                                       \
            T v = s[i];                                                                            \
            T neg = (T)((UT)0 - (UT)v);                                                            \
            d[i] = op == RA_NEGATIVE ? neg : (v < 0 ? neg : v);                                    \
        }                                                                                          \
        break;                                                                                     \
    }
#define UN_UNSIGNED(T)                                                                             \
    {                                                                                              \
        const T *s = x;                                                                            \
        T *d = out;                                                                                \
        for (size_t i = 0; i < count; i++)                                                         \
            d[i] = op == RA_NEGATIVE ? (T)(0u - s[i]) : s[i];                                      \
        break;                                                                                     \
    }

static int host_unary(void *impl, ra_unop op, const void *x, ra_dtype dtype, void *out,
                      ra_dtype out_dtype, size_t count)
{
    (void)impl;
    (void)out_dtype;
    switch (dtype) {
    case RA_INT8:
        UN_SIGNED(int8_t, uint8_t)
    case RA_INT16:
        UN_SIGNED(int16_t, uint16_t)
    case RA_INT32:
        UN_SIGNED(int32_t, uint32_t)
    case RA_INT64:
        UN_SIGNED(int64_t, uint64_t)
    case RA_UINT8:
        UN_UNSIGNED(uint8_t)
    case RA_UINT16:
        UN_UNSIGNED(uint16_t)
    case RA_UINT32:
        UN_UNSIGNED(uint32_t)
    case RA_UINT64:
        UN_UNSIGNED(uint64_t)
    case RA_FLOAT32: {
        const float *s = x;
        float *d = out;
        for (size_t i = 0; i < count; i++)
            d[i] = op == RA_NEGATIVE ? -s[i] : op == RA_ABS ? fabsf(s[i]) : sqrtf(s[i]);
        break;
    }
    case RA_FLOAT64: {
        const double *s = x;
        double *d = out;
        for (size_t i = 0; i < count; i++)
            d[i] = op == RA_NEGATIVE ? -s[i] : op == RA_ABS ? fabs(s[i]) : sqrt(s[i]);
        break;
    }
    case RA_COMPLEX64: {
        const float complex *s = x;
        for (size_t i = 0; i < count; i++) {
            if (op == RA_ABS)
                ((float *)out)[i] = cabsf(s[i]);
            else
                ((float complex *)out)[i] = op == RA_NEGATIVE ? -s[i] : csqrtf(s[i]);
        }
        break;
    }
    case RA_COMPLEX128: {
        const double complex *s = x;
        for (size_t i = 0; i < count; i++) {
            if (op == RA_ABS)
                ((double *)out)[i] = cabs(s[i]);
            else
                ((double complex *)out)[i] = op == RA_NEGATIVE ? -s[i] : csqrt(s[i]);
        }
        break;
    }
    default:
        return RA_E_DTYPE;
    }
    return RA_OK;
}

/* ---- reductions over the middle axis of (outer, len, inner) ---- */

#define RED_LOOP(T, ACC_INIT, ...)                                                                 \
    {                                                                                              \
        const T *s = x;                                                                            \
        T *d = out;                                                                                \
        for (size_t o = 0; o < outer; o++)                                                         \
            for (size_t j = 0; j < inner; j++) {                                                   \
                const T *p = s + o * len * inner + j;                                              \
                T acc = ACC_INIT;                                                                  \
                for (size_t r = (op == RA_MAX ? 1 : 0); r < len; r++) {                            \
                    T v = p[r * inner];                                                            \
                    __VA_ARGS__;                                                                   \
                }                                                                                  \
                d[o * inner + j] = acc;                                                            \
            }                                                                                      \
        break;                                                                                     \
    }
#define RED_INT(T, UT)                                                                             \
    RED_LOOP(T, (op == RA_MAX ? p[0] : (T)0),                                                      \
             acc = op == RA_MAX ? (v > acc ? v : acc) : WRAP_ADD(T, UT, acc, v))
#define RED_FLOAT(T)                                                                               \
    RED_LOOP(T, (op == RA_MAX ? p[0] : (T)0),                                                      \
             acc = op == RA_MAX ? (isnan(acc) ? acc                                                \
                                   : isnan(v) ? v                                                  \
                                              : (v > acc ? v : acc))                               \
                                : acc + v)

static int host_reduce(void *impl, ra_reduceop op, const void *x, ra_dtype dtype, size_t outer,
                       size_t len, size_t inner, void *out)
{
    (void)impl;
    switch (dtype) {
    case RA_BOOL: {
        /* Only reachable through a backend contract violation; sum of bool is done in int64. */
        return RA_E_DTYPE;
    }
    case RA_INT8:
        RED_INT(int8_t, uint8_t)
    case RA_INT16:
        RED_INT(int16_t, uint16_t)
    case RA_INT32:
        RED_INT(int32_t, uint32_t)
    case RA_INT64:
        RED_INT(int64_t, uint64_t)
    case RA_UINT8:
        RED_INT(uint8_t, uint8_t)
    case RA_UINT16:
        RED_INT(uint16_t, uint16_t)
    case RA_UINT32:
        RED_INT(uint32_t, uint32_t)
    case RA_UINT64:
        RED_INT(uint64_t, uint64_t)
    case RA_FLOAT32:
        RED_FLOAT(float)
    case RA_FLOAT64:
        RED_FLOAT(double)
    case RA_COMPLEX64:
        RED_LOOP(float complex, (float complex)0, acc = acc + v)
    case RA_COMPLEX128:
        RED_LOOP(double complex, (double complex)0, acc = acc + v)
    default:
        return RA_E_DTYPE;
    }
    return RA_OK;
}

/* ---- matrix product ---- */

#define MM_LOOP(T, ...)                                                                            \
    {                                                                                              \
        const T *pa = (const T *)a + a_offset;                                                     \
        const T *pb = (const T *)b + b_offset;                                                     \
        T *po = (T *)out + out_offset;                                                             \
        for (size_t i = 0; i < n; i++)                                                             \
            for (size_t j = 0; j < m; j++) {                                                       \
                T acc = 0;                                                                         \
                for (size_t q = 0; q < k; q++) {                                                   \
                    T x = pa[i * k + q], y = pb[q * m + j];                                        \
                    __VA_ARGS__;                                                                   \
                }                                                                                  \
                po[i * m + j] = acc;                                                               \
            }                                                                                      \
        break;                                                                                     \
    }
#define MM_INT(T, UT) MM_LOOP(T, acc = WRAP_ADD(T, UT, acc, WRAP_MUL(T, UT, x, y)))
#define MM_PLAIN(T) MM_LOOP(T, acc += x * y)

static int host_matmul(void *impl, ra_dtype dtype, const void *a, size_t a_offset, const void *b,
                       size_t b_offset, void *out, size_t out_offset, size_t n, size_t k, size_t m)
{
    (void)impl;
    switch (dtype) {
    case RA_INT8:
        MM_INT(int8_t, uint8_t)
    case RA_INT16:
        MM_INT(int16_t, uint16_t)
    case RA_INT32:
        MM_INT(int32_t, uint32_t)
    case RA_INT64:
        MM_INT(int64_t, uint64_t)
    case RA_UINT8:
        MM_INT(uint8_t, uint8_t)
    case RA_UINT16:
        MM_INT(uint16_t, uint16_t)
    case RA_UINT32:
        MM_INT(uint32_t, uint32_t)
    case RA_UINT64:
        MM_INT(uint64_t, uint64_t)
    case RA_FLOAT32:
        MM_PLAIN(float)
    case RA_FLOAT64:
        MM_PLAIN(double)
    case RA_COMPLEX64:
        MM_PLAIN(float complex)
    case RA_COMPLEX128:
        MM_PLAIN(double complex)
    default:
        return RA_E_DTYPE;
    }
    return RA_OK;
}

/* ---- memory ---- */

/* The bucket of a size >= CACHE_MIN: its power of two and which eighth of it. */
static size_t cache_bucket(size_t nbytes)
{
    unsigned k = 63u - (unsigned)__builtin_clzll((unsigned long long)nbytes);
    size_t eighth = (nbytes >> (k - 3)) & 7u;
    return (size_t)(k - CACHE_MIN_LOG2) * 8u + eighth;
}

/* Takes a cached block that holds nbytes (>= CACHE_MIN) from its bucket, or NULL. */
static host_block *cache_take(host_impl *h, size_t nbytes)
{
    size_t b = cache_bucket(nbytes);
    host_block *found = NULL;
    pthread_mutex_lock(&h->cache_lock);
    for (cached_block **p = &h->buckets[b]; *p; p = &(*p)->next) {
        if ((*p)->head.h.cap >= nbytes) {
            cached_block *c = *p;
            *p = c->next;
            h->cached_bytes -= c->head.h.cap;
            found = &c->head;
            break;
        }
    }
    pthread_mutex_unlock(&h->cache_lock);
    return found;
}

/* Keeps a block for reuse; false when the cache is full (the caller frees it). */
static bool cache_put(host_impl *h, host_block *blk)
{
    bool kept = false;
    pthread_mutex_lock(&h->cache_lock);
    if (h->cached_bytes + blk->h.cap <= h->cache_limit) {
        cached_block *c = (cached_block *)blk;
        size_t b = cache_bucket(blk->h.cap);
        c->next = h->buckets[b];
        h->buckets[b] = c;
        h->cached_bytes += blk->h.cap;
        kept = true;
    }
    pthread_mutex_unlock(&h->cache_lock);
    return kept;
}

/* Returns every cached block to the hook; the bytes it gave back. */
static size_t cache_drain(host_impl *h)
{
    size_t freed = 0;
    pthread_mutex_lock(&h->cache_lock);
    for (size_t b = 0; b < CACHE_BUCKETS; b++) {
        while (h->buckets[b]) {
            cached_block *c = h->buckets[b];
            h->buckets[b] = c->next;
            h->cached_bytes -= c->head.h.cap;
            freed += c->head.h.cap;
            ra__free(h->ctx, c);
        }
    }
    pthread_mutex_unlock(&h->cache_lock);
    return freed;
}

static int host_alloc_block(host_impl *h, size_t nbytes, bool zeroed, void **buf)
{
    host_block *blk = nbytes >= CACHE_MIN ? cache_take(h, nbytes) : NULL;
    if (!blk) {
        if (nbytes > SIZE_MAX - sizeof *blk)
            return ra__ctx_error(h->ctx, RA_E_NOMEM, "cpu: cannot allocate %zu bytes", nbytes);
        blk = ra__alloc(h->ctx, sizeof *blk + nbytes);
        /* Memory held for reuse must not cause an out-of-memory: give it back, retry. */
        if (!blk && cache_drain(h) > 0) blk = ra__alloc(h->ctx, sizeof *blk + nbytes);
        if (!blk)
            return ra__ctx_error(h->ctx, RA_E_NOMEM, "cpu: cannot allocate %zu bytes", nbytes);
        blk->h.cap = nbytes;
    }
    void *data = blk + 1;
    if (zeroed) memset(data, 0, nbytes);
    *buf = data;
    return RA_OK;
}

static int host_alloc(void *impl, size_t nbytes, void **buf)
{
    return host_alloc_block(impl, nbytes, true, buf);
}

static int host_alloc_uninit(void *impl, size_t nbytes, void **buf)
{
    return host_alloc_block(impl, nbytes, false, buf);
}

static void host_free(void *impl, void *buf)
{
    host_impl *h = impl;
    if (!buf) return;
    host_block *blk = (host_block *)buf - 1;
    if (blk->h.cap >= CACHE_MIN && cache_put(h, blk)) return;
    ra__free(h->ctx, blk);
}

static int host_write(void *impl, void *buf, size_t dst_offset, const void *src, size_t nbytes,
                      void *stream)
{
    (void)impl;
    (void)stream;
    if (nbytes) memcpy((char *)buf + dst_offset, src, nbytes);
    return RA_OK;
}

static int host_read(void *impl, const void *buf, size_t src_offset, void *dst, size_t nbytes,
                     void *stream)
{
    (void)impl;
    (void)stream;
    if (nbytes) memcpy(dst, (const char *)buf + src_offset, nbytes);
    return RA_OK;
}

static int host_copy(void *impl, void *dst, size_t dst_offset, size_t dst_pitch, const void *src,
                     size_t src_offset, size_t src_pitch, size_t row_bytes, size_t rows,
                     void *stream)
{
    (void)impl;
    (void)stream;
    for (size_t r = 0; r < rows; r++)
        memcpy((char *)dst + dst_offset + r * dst_pitch,
               (const char *)src + src_offset + r * src_pitch, row_bytes);
    return RA_OK;
}

static int host_fill(void *impl, void *dst, size_t dst_offset, const void *value, size_t elem_size,
                     size_t count)
{
    (void)impl;
    char *p = (char *)dst + dst_offset;
    for (size_t i = 0; i < count; i++)
        memcpy(p + i * elem_size, value, elem_size);
    return RA_OK;
}

static int host_cast(void *impl, void *dst, ra_dtype dst_dtype, const void *src, ra_dtype src_dtype,
                     size_t count)
{
    (void)impl;
    ra__host_cast(dst, dst_dtype, src, src_dtype, count);
    return RA_OK;
}

/* ---- device facts ---- */

static int host_query(void *impl, ra__device_info *info)
{
    (void)impl;
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "host");
    long pages = sysconf(_SC_PHYS_PAGES);
    long page_size = sysconf(_SC_PAGESIZE);
    info->total_memory = pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size : 0;
    info->max_alloc = 0;
    info->has_float64 = true;
    info->compute_units = ra_util_num_cpu_cores();
    return RA_OK;
}

/* Reads the aggregate "cpu" line of /proc/stat: busy and total jiffies. */
static bool read_cpu_times(uint64_t *busy, uint64_t *total)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return false;
    unsigned long long v[8] = {0};
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (n < 4) return false;
    uint64_t t = 0;
    for (int i = 0; i < 8; i++)
        t += v[i];
    /* idle and iowait are not busy. */
    *busy = t - v[3] - v[4];
    *total = t;
    return true;
}

/* Host utilisation: the share of non-idle CPU time over a 100 ms window, from the kernel's
 * counters. Where /proc/stat is missing it cannot be measured. */
int ra__host_utilisation(ra_ctx *ctx, double *percent)
{
    uint64_t b0, t0, b1, t1;
    if (!read_cpu_times(&b0, &t0))
        return ra__ctx_error(ctx, RA_E_NOT_MEASURABLE,
                             "cpu: utilisation cannot be measured (no /proc/stat)");
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
    if (!read_cpu_times(&b1, &t1) || t1 <= t0)
        return ra__ctx_error(ctx, RA_E_NOT_MEASURABLE,
                             "cpu: utilisation cannot be measured (no progress in /proc/stat)");
    double p = 100.0 * (double)(b1 - b0) / (double)(t1 - t0);
    *percent = p < 0.0 ? 0.0 : p > 100.0 ? 100.0 : p;
    return RA_OK;
}

static int host_utilisation(void *impl, double *percent)
{
    host_impl *h = impl;
    return ra__host_utilisation(h->ctx, percent);
}

static void host_close(void *impl)
{
    host_impl *h = impl;
    cache_drain(h);
    pthread_mutex_destroy(&h->cache_lock);
    ra__free(h->ctx, h);
}

const ra__backend_ops ra__host_ops = {
    .version = RA_BACKEND_VERSION,
    .size = sizeof(ra__backend_ops),
    .name = "host",
    .query = host_query,
    .close = host_close,
    .alloc = host_alloc,
    .free = host_free,
    .write = host_write,
    .read = host_read,
    .check_stream = NULL,
    .default_stream = NULL,
    .copy = host_copy,
    .fill = host_fill,
    .cast = host_cast,
    .binary = host_binary,
    .unary = host_unary,
    .reduce = host_reduce,
    .matmul = host_matmul,
    .utilisation = host_utilisation,
    .alloc_uninit = host_alloc_uninit,
};

int ra__host_open(ra_ctx *ctx)
{
    host_impl *h = ra__calloc(ctx, 1, sizeof *h);
    if (!h) return ra__ctx_error(ctx, RA_E_NOMEM, "cpu: out of memory opening the host backend");
    h->ctx = ctx;
    if (pthread_mutex_init(&h->cache_lock, NULL) != 0) {
        ra__free(ctx, h);
        return ra__ctx_error(ctx, RA_E_BACKEND, "cpu: cannot create the buffer cache's mutex");
    }
    long pages = sysconf(_SC_PHYS_PAGES);
    long page_size = sysconf(_SC_PAGESIZE);
    uint64_t phys = pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size : 0;
    h->cache_limit = phys / 8 < CACHE_MAX ? (size_t)(phys / 8) : CACHE_MAX;
    return ra__ctx_add_device(ctx, RA_DEVICE_CPU, &ra__host_ops, h);
}

int ra_util_num_cpu_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}
