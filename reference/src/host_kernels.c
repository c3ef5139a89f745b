/* host_kernels.c: the reference kernels on host memory (casts, elementwise operations,
 * reductions, matrix products, strided copies). The host backend's compute slots are these
 * kernels, and the core runs them on host copies for a backend that leaves a compute slot
 * NULL (host_kernels.h). They see plain memory only: no context, no device. */
#include "host_kernels.h"
#include "internal.h"

#include <complex.h>
#include <math.h>
#include <string.h>

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

/* Casts from and to float16 go element by element through double, which holds every
 * float16 and rounds once into it (ra__half_from_double); float16 to complex has a zero
 * imaginary part. */
static void cast_half(unsigned char *dst, ra_dtype dst_dtype, const unsigned char *src,
                      ra_dtype src_dtype, size_t count)
{
    size_t ds = ra_dtype_size(dst_dtype), ss = ra_dtype_size(src_dtype);
    for (size_t i = 0; i < count; i++) {
        double v;
        if (src_dtype == RA_FLOAT16) {
            uint16_t h;
            memcpy(&h, src + i * ss, sizeof h);
            v = ra__half_to_double(h);
        } else {
            ra__host_cast(&v, RA_FLOAT64, src + i * ss, src_dtype, 1);
        }
        if (dst_dtype == RA_FLOAT16) {
            uint16_t h = ra__half_from_double(v);
            memcpy(dst + i * ds, &h, sizeof h);
        } else {
            ra__host_cast(dst + i * ds, dst_dtype, &v, RA_FLOAT64, 1);
        }
    }
}

void ra__host_cast(void *dst, ra_dtype dst_dtype, const void *src, ra_dtype src_dtype, size_t count)
{
    if (src_dtype == RA_FLOAT16 || dst_dtype == RA_FLOAT16) {
        cast_half(dst, dst_dtype, src, src_dtype, count);
        return;
    }
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

/* ---- elementwise binary ----
 * Each operation a dtype defines is written once, in the list of its kind: X(E, S, OP, NAME,
 * T, OT, EXPR) for each, where E is the dtype, S its suffix, T its C type, OT the result's
 * (T, or bool for equal and less) and EXPR the result of the elements x and y. The strided
 * kernels, the flat loops and the 1-element functions are the same lists expanded three
 * ways, so the three compute every element with the same expression (bit for bit: no
 * reassociation, each element is one operation on two values). The core allows only equal on
 * bool; an operation a dtype does not define has no entry (the core never asks for it). */
/* clang-format off */
#define OPS_BOOL(X, E, S, T, UT)                                                                   \
    X(E, S, RA_EQUAL, eq, T, bool, x == y)
#define OPS_INTEGER(X, E, S, T, UT)                                                                \
    X(E, S, RA_ADD, add, T, T, WRAP_ADD(T, UT, x, y))                                              \
    X(E, S, RA_SUBTRACT, sub, T, T, WRAP_SUB(T, UT, x, y))                                         \
    X(E, S, RA_MULTIPLY, mul, T, T, WRAP_MUL(T, UT, x, y))                                         \
    X(E, S, RA_EQUAL, eq, T, bool, x == y)                                                         \
    X(E, S, RA_LESS, lt, T, bool, x < y)                                                           \
    X(E, S, RA_MAXIMUM, max, T, T, x > y ? x : y)
/* The operations that are the C operators on T (floating and complex types). */
#define OPS_NATURAL(X, E, S, T, UT)                                                                \
    X(E, S, RA_ADD, add, T, T, x + y)                                                              \
    X(E, S, RA_SUBTRACT, sub, T, T, x - y)                                                         \
    X(E, S, RA_MULTIPLY, mul, T, T, x * y)                                                         \
    X(E, S, RA_DIVIDE, div, T, T, x / y)                                                           \
    X(E, S, RA_EQUAL, eq, T, bool, x == y)
#define OPS_FLOAT(X, E, S, T, UT)                                                                  \
    OPS_NATURAL(X, E, S, T, UT)                                                                    \
    X(E, S, RA_LESS, lt, T, bool, x < y)                                                           \
    X(E, S, RA_MAXIMUM, max, T, T, isnan(x) ? x : isnan(y) ? y : (x > y ? x : y))
#define OPS_COMPLEX OPS_NATURAL

/* Every dtype of the host kernels with its kind's list: K(OPS, E, S, T, UT), UT the unsigned
 * type of an integer (T otherwise, unused). */
#define BINARY_TYPES(K)                                                                            \
    K(OPS_BOOL, RA_BOOL, b, bool, bool)                                                            \
    K(OPS_INTEGER, RA_INT8, i8, int8_t, uint8_t)                                                   \
    K(OPS_INTEGER, RA_INT16, i16, int16_t, uint16_t)                                               \
    K(OPS_INTEGER, RA_INT32, i32, int32_t, uint32_t)                                               \
    K(OPS_INTEGER, RA_INT64, i64, int64_t, uint64_t)                                               \
    K(OPS_INTEGER, RA_UINT8, u8, uint8_t, uint8_t)                                                 \
    K(OPS_INTEGER, RA_UINT16, u16, uint16_t, uint16_t)                                             \
    K(OPS_INTEGER, RA_UINT32, u32, uint32_t, uint32_t)                                             \
    K(OPS_INTEGER, RA_UINT64, u64, uint64_t, uint64_t)                                             \
    K(OPS_FLOAT, RA_FLOAT32, f32, float, float)                                                    \
    K(OPS_FLOAT, RA_FLOAT64, f64, double, double)                                                  \
    K(OPS_COMPLEX, RA_COMPLEX64, c64, float complex, float complex)                                \
    K(OPS_COMPLEX, RA_COMPLEX128, c128, double complex, double complex)

/* The strided kernel of a dtype, bin_S: the operands' elements at their strides. */
#define BIN_CASE(E, S, OP, NAME, T, OT, EXPR)                                                      \
    case OP:                                                                                       \
        ((OT *)po)[i] = (EXPR);                                                                    \
        break;
#define BIN_KERNEL(OPS, E, S, T, UT)                                                               \
    static void bin_##S(ra_binop op, const ra__view *a, const ra__view *b, const ra__view *o)      \
    {                                                                                              \
        const T *pa = a->buf;                                                                      \
        const T *pb = b->buf;                                                                      \
        void *po = o->buf;                                                                         \
        STRIDED_FOR(a, b, o, {                                                                     \
            T x = pa[ia], y = pb[ib];                                                              \
            switch (op) {                                                                          \
            OPS(BIN_CASE, E, S, T, UT)                                                             \
            default:                                                                               \
                break;                                                                             \
            }                                                                                      \
        });                                                                                        \
    }
/* clang-format on */
BINARY_TYPES(BIN_KERNEL)

/* ---- elementwise binary, contiguous fast path ----
 * When neither operand needs broadcasting (each is either laid out like out, or one element
 * repeated: a scalar or 0-d operand), the operation is one flat loop over count elements.
 * Each (dtype, op, layout) gets its own plain loop over restrict pointers so the compiler
 * vectorises it. */

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

/* The flat loops of a dtype, fast_S. */
/* clang-format off */
#define FAST_CASE(E, S, OP, NAME, T, OT, EXPR)                                                     \
    case OP:                                                                                       \
        FAST_LOOP(T, OT, EXPR);                                                                    \
        break;
#define FAST_KERNEL(OPS, E, S, T, UT)                                                              \
    static void fast_##S(ra_binop op, size_t n, const T *restrict pa, bool fa,                     \
                         const T *restrict pb, bool fb, void *restrict out)                        \
    {                                                                                              \
        switch (op) {                                                                              \
        OPS(FAST_CASE, E, S, T, UT)                                                                \
        default:                                                                                   \
            break;                                                                                 \
        }                                                                                          \
    }
/* clang-format on */
BINARY_TYPES(FAST_KERNEL)

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
#define FAST_DISPATCH(OPS, E, S, T, UT)                                                            \
    case E:                                                                                        \
        fast_##S(op, n, pa, fa, pb, fb, po);                                                       \
        break;
        BINARY_TYPES(FAST_DISPATCH)
#undef FAST_DISPATCH
    default:
        return false;
    }
    return true;
}

/* One element of x op y, one function per operation and dtype, elem_NAME_S: a 1-element
 * operation, most of whose kernel time was the two switches and the vector loop's set-up,
 * takes one indirect call through ra__host_elem. */
/* clang-format off */
#define ELEM_FUNCTION(E, S, OP, NAME, T, OT, EXPR)                                                 \
    static void elem_##NAME##_##S(const void *restrict a, const void *restrict b,                  \
                                  void *restrict out)                                              \
    {                                                                                              \
        T x = *(const T *)a, y = *(const T *)b;                                                    \
        *(OT *)out = (EXPR);                                                                       \
    }
#define ELEM_FUNCTIONS(OPS, E, S, T, UT) OPS(ELEM_FUNCTION, E, S, T, UT)
BINARY_TYPES(ELEM_FUNCTIONS)

#define ELEM_ENTRY(E, S, OP, NAME, T, OT, EXPR) [OP][E] = elem_##NAME##_##S,
#define ELEM_ENTRIES(OPS, E, S, T, UT) OPS(ELEM_ENTRY, E, S, T, UT)
const ra__elem_fn ra__host_elem[RA_MAXIMUM + 1][RA_COMPLEX128 + 1] = {BINARY_TYPES(ELEM_ENTRIES)};
/* clang-format on */

void ra__host_binary_loops(ra_binop op, ra_dtype dtype, size_t n, const void *a, const void *b,
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

int ra__host_binary(ra_binop op, const ra__view *a, const ra__view *b, const ra__view *out)
{
    if (host_binary_fast(op, a, b, out)) return RA_OK;
    switch (a->dtype) {
#define BIN_DISPATCH(OPS, E, S, T, UT)                                                             \
    case E:                                                                                        \
        bin_##S(op, a, b, out);                                                                    \
        break;
        BINARY_TYPES(BIN_DISPATCH)
#undef BIN_DISPATCH
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

int ra__host_unary(ra_unop op, const void *x, ra_dtype dtype, void *out, ra_dtype out_dtype,
                   size_t count)
{
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

int ra__host_reduce(ra_reduceop op, const void *x, ra_dtype dtype, size_t outer, size_t len,
                    size_t inner, void *out)
{
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

int ra__host_matmul(ra_dtype dtype, const void *a, size_t a_offset, const void *b, size_t b_offset,
                    void *out, size_t out_offset, size_t n, size_t k, size_t m)
{
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

/* ---- strided copies ---- */

void ra__host_copy_rows(void *dst, size_t dst_offset, size_t dst_pitch, const void *src,
                        size_t src_offset, size_t src_pitch, size_t row_bytes, size_t rows)
{
    for (size_t r = 0; r < rows; r++)
        memcpy((char *)dst + dst_offset + r * dst_pitch,
               (const char *)src + src_offset + r * src_pitch, row_bytes);
}
