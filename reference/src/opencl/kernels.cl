/* refarray's OpenCL kernels (OpenCL C 1.2).
 *
 * One source, built many times: the host code picks a kernel family and the element types
 * with -D options (see kernel_options in opencl_kernels.c), so each program holds only what
 * one (device, family, dtype) needs. Nothing here relies on a vendor extension except
 * cl_khr_fp64, which is enabled only for float64 and complex128 and only after the host has
 * checked that the device reports it.
 *
 * Options given by the host:
 *   RA_FAMILY    3 binary and cast, 4 unary, 5 reduce, 6 matmul (fills and copies use
 *                clEnqueueFillBuffer and clEnqueueCopyBuffer[Rect] instead)
 *   RA_TI        the input element type (OpenCL C type name)
 *   RA_KI        its kind: 0 bool, 1 signed integer, 2 unsigned integer, 3 real float,
 *                4 complex (a float2/double2 of real, imaginary)
 *   RA_UI        the unsigned type of the same width (integers; arithmetic wraps through it)
 *   RA_RI        the real component type (complex; the result type of abs)
 *   RA_C64       1 when the input is complex64
 *   RA_TO, RA_KO the output element type and kind, where it differs (reduce)
 *   RA_FP64      1 when double is used (float64, complex128, and complex64 division on a
 *                device with cl_khr_fp64, which is computed in double as the host does)
 *
 * Every kernel walks its index space with a grid-stride loop, so any global size is correct
 * and the host may cap it; booleans are stored as one byte holding 0 or 1.
 */
#if RA_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
/* No fused multiply-add contraction: a*b + c rounds twice, as the host's C does (ISO C mode,
 * -ffp-contract=off), so results agree bit for bit with the cpu device. */
#pragma OPENCL FP_CONTRACT OFF

#define KIND_BOOL 0
#define KIND_INT 1
#define KIND_UINT 2
#define KIND_FLOAT 3
#define KIND_COMPLEX 4

typedef RA_TI TI;
#ifdef RA_TO
typedef RA_TO TO;
#endif

#define GRID_LOOP(i, n) for (ulong i = get_global_id(0); i < (n); i += get_global_size(0))

/* Broadcasting index: the output's shape and, per operand, the element stride of each output
 * dimension (0 where the operand is broadcast). RA_CL_MAXDIM must equal the host's
 * RA_OPENCL_MAXDIM; the host collapses dimensions before it fills this in. */
#ifndef RA_CL_MAXDIM
#define RA_CL_MAXDIM 8
#endif
typedef struct {
    long ndim;
    long shape[RA_CL_MAXDIM];
    long sa[RA_CL_MAXDIM];
    long sb[RA_CL_MAXDIM];
} ra_index;

/* ---------------------------------------------------------------- element operations */

#if RA_KI == KIND_COMPLEX
#if RA_C64
#define RA_RI_MIN FLT_MIN
#else
#define RA_RI_MIN DBL_MIN
#endif
#define CMUL(a, b) ((TI)((a).x * (b).x - (a).y * (b).y, (a).x * (b).y + (a).y * (b).x))
/* Complex division as the host's C library does it (GCC's libgcc, __divsc3/__divdc3), so
 * that gpu and cpu agree bit for bit for ordinary values: complex64 is computed in double
 * with the textbook formula where the device has double; otherwise (and for complex128)
 * Smith's method with the ratio-underflow branch. The extra rescaling libgcc does near the
 * overflow and underflow thresholds is left out. Then C99 Annex G's recovery of infinities
 * and zeros from a NaN + NaN j result. */
inline TI cdiv(TI p, TI q)
{
    RA_RI a = p.x, b = p.y, c = q.x, d = q.y, x, y;
#if RA_FP64 && RA_C64
    double aa = a, bb = b, cc = c, dd = d;
    double den = cc * cc + dd * dd;
    x = (RA_RI)((aa * cc + bb * dd) / den);
    y = (RA_RI)((bb * cc - aa * dd) / den);
#else
    RA_RI ratio, den;
    if (fabs(c) < fabs(d)) {
        ratio = c / d;
        den = c * ratio + d;
        if (fabs(ratio) > RA_RI_MIN) {
            x = (a * ratio + b) / den;
            y = (b * ratio - a) / den;
        } else {
            x = (c * (a / d) + b) / den;
            y = (c * (b / d) - a) / den;
        }
    } else {
        ratio = d / c;
        den = d * ratio + c;
        if (fabs(ratio) > RA_RI_MIN) {
            x = (b * ratio + a) / den;
            y = (b - a * ratio) / den;
        } else {
            x = (a + d * (b / c)) / den;
            y = (b - d * (a / c)) / den;
        }
    }
#endif
    if (isnan(x) && isnan(y)) {
        if (c == 0 && d == 0 && (!isnan(a) || !isnan(b))) {
            x = copysign((RA_RI)INFINITY, c) * a;
            y = copysign((RA_RI)INFINITY, c) * b;
        } else if ((isinf(a) || isinf(b)) && isfinite(c) && isfinite(d)) {
            a = copysign(isinf(a) ? (RA_RI)1 : (RA_RI)0, a);
            b = copysign(isinf(b) ? (RA_RI)1 : (RA_RI)0, b);
            x = (RA_RI)INFINITY * (a * c + b * d);
            y = (RA_RI)INFINITY * (b * c - a * d);
        } else if ((isinf(c) || isinf(d)) && isfinite(a) && isfinite(b)) {
            c = copysign(isinf(c) ? (RA_RI)1 : (RA_RI)0, c);
            d = copysign(isinf(d) ? (RA_RI)1 : (RA_RI)0, d);
            x = (RA_RI)0 * (a * c + b * d);
            y = (RA_RI)0 * (b * c - a * d);
        }
    }
    return (TI)(x, y);
}

/* Principal square root as the host's C library (glibc's csqrt) computes it for ordinary
 * values, with its special cases for infinities, NaN and zero parts; glibc's rescaling of
 * huge and tiny inputs is left out. */
inline TI csqrt_(TI z)
{
    RA_RI re = z.x, im = z.y, r, s;
    if (isinf(im))
        return (TI)(INFINITY, im);
    if (isinf(re)) {
        if (re < 0)
            return (TI)(isnan(im) ? NAN : 0, copysign((RA_RI)INFINITY, im));
        return (TI)(re, isnan(im) ? NAN : copysign((RA_RI)0, im));
    }
    if (isnan(re) || isnan(im))
        return (TI)(NAN, NAN);
    if (im == 0) {
        if (re < 0)
            return (TI)(0, copysign(sqrt(-re), im));
        return (TI)(fabs(sqrt(re)), copysign((RA_RI)0, im));
    }
    if (re == 0) {
        r = sqrt((RA_RI)0.5 * fabs(im));
        return (TI)(r, copysign(r, im));
    }
    RA_RI d = hypot(re, im);
    if (re > 0) {
        r = sqrt((RA_RI)0.5 * (d + re));
        s = (RA_RI)0.5 * (im / r);
    } else {
        s = sqrt((RA_RI)0.5 * (d - re));
        r = fabs((RA_RI)0.5 * (im / s));
    }
    return (TI)(r, copysign(s, im));
}
#endif

#if RA_KI == KIND_BOOL
#define OP_ADD(a, b) ((TI)((a) | (b)))
#define OP_MUL(a, b) ((TI)((a) & (b)))
#elif RA_KI == KIND_INT || RA_KI == KIND_UINT
/* Integer arithmetic wraps modulo 2^bits (as C's unsigned arithmetic); going through the
 * unsigned type keeps signed overflow defined. */
#define OP_ADD(a, b) ((TI)((RA_UI)(a) + (RA_UI)(b)))
#define OP_SUB(a, b) ((TI)((RA_UI)(a) - (RA_UI)(b)))
#define OP_MUL(a, b) ((TI)((RA_UI)(a) * (RA_UI)(b)))
/* Integer division truncates; a zero divisor gives 0 and MIN / -1 wraps to MIN, so that no
 * device traps (x86 raises SIGFPE for both). */
#if RA_KI == KIND_INT
#define OP_DIV(a, b) ((b) == 0 ? (TI)0 : (b) == (TI)-1 ? OP_SUB((TI)0, a) : (TI)((a) / (b)))
#else
#define OP_DIV(a, b) ((b) == 0 ? (TI)0 : (TI)((a) / (b)))
#endif
#elif RA_KI == KIND_FLOAT
#define OP_ADD(a, b) ((a) + (b))
#define OP_SUB(a, b) ((a) - (b))
#define OP_MUL(a, b) ((a) * (b))
#define OP_DIV(a, b) ((a) / (b))
#else
#define OP_ADD(a, b) ((a) + (b))
#define OP_SUB(a, b) ((a) - (b))
#define OP_MUL(a, b) CMUL(a, b)
#define OP_DIV(a, b) cdiv(a, b)
#endif

#if RA_KI == KIND_COMPLEX
#define OP_EQ(a, b) ((uchar)((a).x == (b).x && (a).y == (b).y))
#else
#define OP_EQ(a, b) ((uchar)((a) == (b)))
#define OP_LT(a, b) ((uchar)((a) < (b)))
#endif

/* maximum: a NaN in either operand gives NaN (the array API's special case), unlike fmax. */
#if RA_KI == KIND_FLOAT
#define OP_MAX(a, b) (isnan(a) ? (a) : isnan(b) ? (b) : (a) > (b) ? (a) : (b))
#elif RA_KI != KIND_COMPLEX
#define OP_MAX(a, b) ((a) > (b) ? (a) : (b))
#endif

/* ---------------------------------------------------------------- casts (in the binary family) */
#if RA_FAMILY == 3
/* The binary program of an input dtype also holds the casts from it to every output dtype,
 * ra_cast_<output dtype name>: a program build costs about the same for one kernel as for
 * forty (tens of milliseconds even from PoCL's disk cache), and a binary operation on mixed
 * dtypes needs a cast and a binary kernel, so casting and computing between n dtypes costs
 * n builds, not n * n + n.
 *
 * Converts element by element (astype), as the host does: anything to bool is "not equal
 * to zero" (NaN is true); real floating to an integer truncates toward zero, clamps values
 * beyond the target's range and gives 0 for NaN (convert_<type>_sat); integers convert modulo
 * 2^bits; real to complex sets the imaginary part to 0. Complex to real never comes here. */
#if RA_KI == KIND_COMPLEX
#define CV_BOOL(T, v) ((T)((v).x != 0 || (v).y != 0))
#define CV_INT(T, v) ((T)(v).x)
#define CV_REAL(T, v) ((T)(v).x)
#define CV_COMPLEX(T, v) ((T)((v).x, (v).y))
#else
#define CV_BOOL(T, v) ((T)((v) != 0))
#if RA_KI == KIND_FLOAT
#define CV_INT(T, v) convert_##T##_sat(v)
#else
#define CV_INT(T, v) ((T)(v))
#endif
#define CV_REAL(T, v) ((T)(v))
#define CV_COMPLEX(T, v) ((T)((v), 0))
#endif

#define CAST_KERNEL(name, T, CV)                                                                   \
    __kernel void ra_cast_##name(__global T *dst, __global const TI *src, ulong n)               \
    {                                                                                              \
        GRID_LOOP(i, n) dst[i] = CV(T, src[i]);                                                    \
    }

CAST_KERNEL(bool, uchar, CV_BOOL)
CAST_KERNEL(int8, char, CV_INT)
CAST_KERNEL(int16, short, CV_INT)
CAST_KERNEL(int32, int, CV_INT)
CAST_KERNEL(int64, long, CV_INT)
CAST_KERNEL(uint8, uchar, CV_INT)
CAST_KERNEL(uint16, ushort, CV_INT)
CAST_KERNEL(uint32, uint, CV_INT)
CAST_KERNEL(uint64, ulong, CV_INT)
CAST_KERNEL(float32, float, CV_REAL)
CAST_KERNEL(complex64, float2, CV_COMPLEX)
#if RA_FP64
CAST_KERNEL(float64, double, CV_REAL)
CAST_KERNEL(complex128, double2, CV_COMPLEX)
#endif
#endif

/* ---------------------------------------------------------------- 3: binary */
#if RA_FAMILY == 3
/* Four variants per operation: vv both operands have the output's shape; v1 the second is
 * one element broadcast to all; 1v the first is; bc general broadcasting through ra_index. */
#define RA_BINARY(name, R, OP)                                                                 \
    __kernel void ra_##name##_vv(__global const TI *a, ulong oa, __global const TI *b,         \
                                 ulong ob, __global R *c, ulong n)                             \
    {                                                                                          \
        GRID_LOOP(i, n)                                                                        \
        c[i] = OP(a[oa + i], b[ob + i]);                                                       \
    }                                                                                          \
    __kernel void ra_##name##_v1(__global const TI *a, ulong oa, __global const TI *b,         \
                                 ulong ob, __global R *c, ulong n)                             \
    {                                                                                          \
        TI s = b[ob];                                                                          \
        GRID_LOOP(i, n)                                                                        \
        c[i] = OP(a[oa + i], s);                                                               \
    }                                                                                          \
    __kernel void ra_##name##_1v(__global const TI *a, ulong oa, __global const TI *b,         \
                                 ulong ob, __global R *c, ulong n)                             \
    {                                                                                          \
        TI s = a[oa];                                                                          \
        GRID_LOOP(i, n)                                                                        \
        c[i] = OP(s, b[ob + i]);                                                               \
    }                                                                                          \
    __kernel void ra_##name##_bc(__global const TI *a, ulong oa, __global const TI *b,         \
                                 ulong ob, __global R *c, ulong n, ra_index idx)               \
    {                                                                                          \
        GRID_LOOP(i, n)                                                                        \
        {                                                                                      \
            ulong rest = i, ia = oa, ib = ob;                                                  \
            for (long d = idx.ndim - 1; d >= 0; d--) {                                         \
                ulong k = rest % (ulong)idx.shape[d];                                          \
                rest /= (ulong)idx.shape[d];                                                   \
                ia += k * (ulong)idx.sa[d];                                                    \
                ib += k * (ulong)idx.sb[d];                                                    \
            }                                                                                  \
            c[i] = OP(a[ia], b[ib]);                                                           \
        }                                                                                      \
    }

RA_BINARY(add, TI, OP_ADD)
RA_BINARY(multiply, TI, OP_MUL)
RA_BINARY(equal, uchar, OP_EQ)
#if RA_KI != KIND_BOOL
RA_BINARY(subtract, TI, OP_SUB)
RA_BINARY(divide, TI, OP_DIV)
#endif
#if RA_KI != KIND_COMPLEX
RA_BINARY(less, uchar, OP_LT)
RA_BINARY(maximum, TI, OP_MAX)
#endif
#endif

/* ---------------------------------------------------------------- 4: unary */
#if RA_FAMILY == 4
__kernel void ra_negative(__global const TI *a, __global TI *c, ulong n)
{
    GRID_LOOP(i, n)
    {
#if RA_KI == KIND_BOOL
        c[i] = (TI)(!a[i]);
#elif RA_KI == KIND_INT || RA_KI == KIND_UINT
        c[i] = (TI)((RA_UI)0 - (RA_UI)a[i]);
#else
        c[i] = -a[i];
#endif
    }
}

#if RA_KI == KIND_COMPLEX
__kernel void ra_abs(__global const TI *a, __global RA_RI *c, ulong n)
{
    GRID_LOOP(i, n)
    c[i] = hypot(a[i].x, a[i].y);
}
#else
__kernel void ra_abs(__global const TI *a, __global TI *c, ulong n)
{
    GRID_LOOP(i, n)
    {
#if RA_KI == KIND_INT
        /* abs(MIN) wraps to MIN, as two's complement negation does. */
        c[i] = a[i] < 0 ? (TI)((RA_UI)0 - (RA_UI)a[i]) : a[i];
#elif RA_KI == KIND_FLOAT
        c[i] = fabs(a[i]);
#else
        c[i] = a[i];
#endif
    }
}
#endif

#if RA_KI == KIND_FLOAT
__kernel void ra_sqrt(__global const TI *a, __global TI *c, ulong n)
{
    GRID_LOOP(i, n)
    c[i] = sqrt(a[i]);
}
#elif RA_KI == KIND_COMPLEX
__kernel void ra_sqrt(__global const TI *a, __global TI *c, ulong n)
{
    GRID_LOOP(i, n)
    c[i] = csqrt_(a[i]);
}
#endif
#endif

/* ---------------------------------------------------------------- 5: reduce */
#if RA_FAMILY == 5
/* sum accumulates in the output type TO (the host chooses it: e.g. int64 for int32 input);
 * max keeps the input type and propagates NaN. */
#if RA_KO == KIND_BOOL
#define ACC_ADD(s, v) ((TO)((s) | ((v) != 0)))
#elif RA_KO == KIND_INT || RA_KO == KIND_UINT
#define ACC_ADD(s, v) ((TO)((RA_UO)(s) + (RA_UO)(TO)(v)))
#elif RA_KO == KIND_COMPLEX && RA_KI == KIND_COMPLEX
#define ACC_ADD(s, v) ((s) + (TO)((v).x, (v).y))
#elif RA_KO == KIND_COMPLEX
#define ACC_ADD(s, v) ((s) + (TO)((v), 0))
#else
#define ACC_ADD(s, v) ((s) + (TO)(v))
#endif

/* The input is viewed as [outer, len, inner]; output element (o, j) reduces over the middle
 * axis, in index order. */
__kernel void ra_sum_axis(__global const TI *a, __global TO *c, ulong outer, ulong len,
                          ulong inner)
{
    GRID_LOOP(i, outer * inner)
    {
        ulong o = i / inner, j = i % inner;
        __global const TI *p = a + o * len * inner + j;
        TO s = (TO)0;
        for (ulong k = 0; k < len; k++)
            s = ACC_ADD(s, p[k * inner]);
        c[i] = s;
    }
}

/* A pass of a reduction over everything: partial g reduces the contiguous run
 * a[g*k .. g*k + k) (the last run may be shorter). Contiguous runs suit CPU devices, where a
 * work-item's loads then stream through the cache, and cost GPUs little for short runs. */
__kernel void ra_sum_chunks(__global const TI *a, __global TO *partial, ulong n, ulong k)
{
    GRID_LOOP(g, (n + k - 1) / k)
    {
        ulong end = min(n, g * k + k);
        TO s = (TO)0;
        for (ulong i = g * k; i < end; i++)
            s = ACC_ADD(s, a[i]);
        partial[g] = s;
    }
}

#if RA_KI != KIND_COMPLEX
/* Same shapes for max; the host never calls it with len == 0 (max of nothing is an error). */
__kernel void ra_max_axis(__global const TI *a, __global TI *c, ulong outer, ulong len,
                          ulong inner)
{
    GRID_LOOP(i, outer * inner)
    {
        ulong o = i / inner, j = i % inner;
        __global const TI *p = a + o * len * inner + j;
        TI m = p[0];
        for (ulong k = 1; k < len; k++)
            m = OP_MAX(m, p[k * inner]);
        c[i] = m;
    }
}

__kernel void ra_max_chunks(__global const TI *a, __global TI *partial, ulong n, ulong k)
{
    GRID_LOOP(g, (n + k - 1) / k)
    {
        ulong end = min(n, g * k + k);
        TI m = a[g * k];
        for (ulong i = g * k + 1; i < end; i++)
            m = OP_MAX(m, a[i]);
        partial[g] = m;
    }
}
#endif
#endif

/* ---------------------------------------------------------------- 6: matmul */
#if RA_FAMILY == 6
/* One matrix product c(rows, cols) = a(rows, kk) @ x(kk, cols), row-major, at element offsets
 * oa, ox, oc; accumulates in TI (integers wrap). kk == 0 gives zeros. */
__kernel void ra_matmul(__global const TI *a, ulong oa, __global const TI *x, ulong ox,
                        __global TI *c, ulong oc, ulong rows, ulong kk, ulong cols)
{
    GRID_LOOP(t, rows * cols)
    {
        ulong i = t / cols, j = t % cols;
        __global const TI *pa = a + oa + i * kk;
        __global const TI *px = x + ox + j;
        TI s = (TI)0;
        for (ulong k = 0; k < kk; k++) {
#if RA_KI == KIND_BOOL
            s = (TI)(s | (pa[k] & px[k * cols]));
#else
            s = OP_ADD(s, OP_MUL(pa[k], px[k * cols]));
#endif
        }
        c[oc + t] = s;
    }
}
#endif
