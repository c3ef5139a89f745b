/*
 * refarray_fn_elementwise.h: the elementwise functions beyond functions/math.c, the creation
 * functions reached by name, the data type functions, the statistical and utility functions of the
 * array API standard, built on refarray.h.
 *
 * Conventions, beyond refarray.h's: every function here runs the staged path
 * (src/functions/staged.h): its arrays must be on one device (DEV-DS-11: RA_E_DEVICE_MISMATCH,
 * or moved to the default device under soft device mode), they are read to host memory, the
 * function computes there, and its result is a new array on that device (DEV-DS-10). On an
 * OpenCL device that is a read and a write around the host computation; no kernel exists for
 * these. Results follow the standard's signatures (spec/signatures.json) and dtype rules.
 * Sources: functions/math.c, elementwise.c, creation.c, statistics.c, objects.c.
 */
#ifndef REFARRAY_FN_ELEMENTWISE_H
#define REFARRAY_FN_ELEMENTWISE_H

#include "refarray.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The standard's functions beyond the ops above (src/functions/) ----------------------
 * Each computes on host memory with the C library's math and places its result on its
 * input's device (DEV-DS-10); on an OpenCL device the input is read to the host and the
 * result written back (staged), since no kernel exists for these. */

/* The standard's elementwise functions of one array, for every dtype the standard allows
 * each (the kinds spec/signatures.json lists: the trigonometric, hyperbolic, exponential and
 * logarithmic functions, sqrt's kin and reciprocal take real and complex floating arrays;
 * ceil, floor and trunc real numeric ones; round, square, sign, positive, conj, real and the
 * predicates every numeric dtype; signbit real floating; bitwise_invert integers and bool;
 * logical_not bool; imag complex). Real floating elements go through the libm function of
 * their dtype (sinf for float32, sin for float64; float16 through double), complex ones
 * through complex.h's (csin, clog, ...) in double precision, integers exactly (wrapping as
 * their dtype does). Values are appended only; a value never changes meaning. */
/* ra_math_fn and ra_math2_fn (the one below) are generated from spec/signatures.json: a
 * row's refarray entry "unary" or "binary" gives its function's value. */
#include "refarray_math_generated.h"

/* The function's name as the standard writes it ("sin", "log1p"), or NULL. */
RA_API const char *ra_math_name(ra_math_fn fn);

/* fn applied to every element of x: a new array of x's shape on x's device, of x's dtype
 * (bool for the predicates, the real counterpart for real and imag of a complex array).
 * Returns RA_E_NULL, RA_E_ARG (fn, a sharded x), RA_E_DTYPE (a dtype the function does not
 * take, naming it), RA_E_NOMEM, RA_E_BACKEND. */
RA_API int ra_math_unary(ra_ctx *ctx, ra_math_fn fn, const ra_array *x, ra_array **out);

/* The standard's elementwise functions of two operands, for every dtype the standard allows
 * each: atan2, hypot, copysign, logaddexp and nextafter real floating; pow numeric (integers
 * by repeated squaring, wrapping; a negative integer exponent gives 0 but for a base of 1 or
 * -1; complex through cpow); remainder, floor_divide, minimum and the ordering comparisons
 * real numeric (remainder takes the divisor's sign; an integer division by zero gives 0, as
 * the standard leaves it open); not_equal every dtype; the bitwise functions integers (and
 * bool for and, or, xor; a shift by the dtype's width or more, or by a negative count, gives
 * 0, or -1 for a negative value shifted right); the logical ones bool. minimum propagates
 * NaN. Values are appended only. */
/* typedef enum ra_math2_fn: in refarray_math_generated.h, included above. */

/* The function's name as the standard writes it ("atan2", "floor_divide"), or NULL. */
RA_API const char *ra_math2_name(ra_math2_fn fn);

/* fn of x1 and x2 elementwise; at least one is an array. The operands broadcast (the
 * standard's rules); their dtype is the promotion of ra_binary (a Python scalar takes the
 * array's dtype, API-PROM-3, and must be representable in it), the comparisons give bool.
 * The result is on the arrays' device; arrays on two devices are RA_E_DEVICE_MISMATCH
 * (DEV-DS-11). Returns RA_E_NULL, RA_E_ARG (fn, a sharded array), RA_E_SCALAR (no array),
 * RA_E_DTYPE (no promotion, or a dtype the function does not take), RA_E_SCALAR_RANGE,
 * RA_E_DEVICE_MISMATCH, RA_E_BROADCAST, RA_E_NOMEM, RA_E_BACKEND. */
RA_API int ra_math_binary(ra_ctx *ctx, ra_math2_fn fn, ra_operand x1, ra_operand x2,
                          ra_array **out);

/* ---- Elementwise (beyond ra_math_unary and ra_math_binary) ---- */

/* clip(x, min, max): each element of x limited to [min, max], x's dtype, the shape of x, min
 * and max broadcast together. x is real numeric (RA_E_DTYPE otherwise); min and max are each
 * absent (NULL), an array of x's kind (integer or real floating) or a Python scalar taking
 * x's dtype (API-PROM-3; RA_E_SCALAR_RANGE or RA_E_DTYPE when it cannot). NaN in x or in a
 * bound gives NaN; min > max is left open by the standard (here max wins). Arrays on two
 * devices are RA_E_DEVICE_MISMATCH (DEV-DS-11). Returns RA_E_NULL, RA_E_ARG (a sharded
 * array), RA_E_DTYPE, RA_E_SCALAR_RANGE, RA_E_BROADCAST, RA_E_DEVICE_MISMATCH, RA_E_NOMEM,
 * RA_E_BACKEND. */
RA_API int ra_clip(ra_ctx *ctx, const ra_array *x, const ra_operand *min, const ra_operand *max,
                   ra_array **out);

/* ---- Creation (beyond refarray.h's) ---- */

/* meshgrid(*arrays, indexing): n >= 1 one-dimensional arrays of one dtype, on one device,
 * give n arrays of the same shape (the lengths in order, the first two swapped under "xy"
 * indexing, ij false, when n >= 2) on that device: output k repeats array k along its axis.
 * outs has room for n arrays; on error none is left. Returns RA_E_NULL, RA_E_ARG (n 0, a
 * sharded array), RA_E_SHAPE (an array not 1-D), RA_E_DTYPE (dtypes differ),
 * RA_E_DEVICE_MISMATCH, RA_E_TOO_LARGE, RA_E_NOMEM, RA_E_BACKEND. */
RA_API int ra_meshgrid(ra_ctx *ctx, const ra_array *const *arrays, size_t n, bool ij,
                       ra_array **outs);

/* ---- Data types ---- */

/* isdtype(dtype, kind) for one kind name of the standard ("bool", "signed integer",
 * "unsigned integer", "integral", "real floating", "complex floating", "numeric"): *out
 * true when dtype is of that kind. ctx may be NULL. Returns RA_E_NULL (kind or out NULL),
 * RA_E_ARG (an unknown kind name, an invalid dtype). */
RA_API int ra_isdtype(ra_ctx *ctx, ra_dtype dtype, const char *kind, bool *out);

/* finfo(type): the standard's fields for a floating dtype (real or complex; a complex
 * dtype describes its real parts, and `dtype` is that real dtype, as the standard says). */
typedef struct ra_finfo {
    int bits;
    double eps;             /* the difference between 1.0 and the next representable value */
    double max;             /* the largest finite value */
    double min;             /* the smallest (most negative) finite value */
    double smallest_normal; /* the smallest positive normal value */
    ra_dtype dtype;
} ra_finfo;

/* iinfo(type): the standard's fields for an integer dtype (max as uint64 for uint64). */
typedef struct ra_iinfo {
    int bits;
    int64_t min;
    uint64_t max;
    ra_dtype dtype;
} ra_iinfo;

/* finfo and iinfo of a dtype; for an array, pass ra_array_dtype(x). ctx may be NULL.
 * Returns RA_E_NULL (out NULL), RA_E_DTYPE (finfo of a non-floating dtype, iinfo of a
 * non-integer one, naming it). */
RA_API int ra_finfo_of(ra_ctx *ctx, ra_dtype dtype, ra_finfo *out);
RA_API int ra_iinfo_of(ra_ctx *ctx, ra_dtype dtype, ra_iinfo *out);

/* ---- Statistics and utility ---- */

typedef enum ra_stat_fn {
    RA_STAT_SUM = 1, /* numeric; default dtype: int64 for signed integers and bool, uint64 for
                        unsigned, x's for floating */
    RA_STAT_PROD,    /* as sum */
    RA_STAT_MEAN,    /* floating (real and complex); x's dtype; NaN for no element */
    RA_STAT_VAR,     /* real floating; sum((x - mean)^2) / (N - correction) */
    RA_STAT_STD,     /* real floating; the square root of var */
    RA_STAT_MIN,     /* real numeric; x's dtype; NaN propagates; RA_E_EMPTY_REDUCTION */
    RA_STAT_MAX,     /* as min */
    RA_STAT_ALL,     /* every dtype; bool result (complex: either part nonzero) */
    RA_STAT_ANY,     /* as all */
} ra_stat_fn;

/* The function's name as the standard writes it ("sum", "var"), or NULL. */
RA_API const char *ra_stat_name(ra_stat_fn fn);

/* fn of x over axes (naxes of them, each in [-ndim, ndim), no axis twice; axes NULL: every
 * axis), the reduced axes kept with size 1 when keepdims. dtype (sum and prod only;
 * RA_DTYPE_DEFAULT for the default) is the dtype the elements are converted to and the
 * result has. correction is var's and std's (0 for the population, 1 for the sample; another
 * function ignores it). The result is on x's device (DEV-DS-10). A sharded x is taken by sum
 * and max over every axis or one, without keepdims and dtype (ra_reduce); otherwise it is
 * RA_E_ARG. Returns RA_E_NULL, RA_E_ARG
 * (fn, a sharded x, dtype given to a function without one, a negative correction), RA_E_AXIS
 * (out of range or repeated), RA_E_DTYPE (a dtype the function does not take, a dtype of
 * another kind than x's), RA_E_EMPTY_REDUCTION (min, max of no element), RA_E_NOMEM,
 * RA_E_BACKEND. */
RA_API int ra_statistic(ra_ctx *ctx, ra_stat_fn fn, const ra_array *x, const int64_t *axes,
                        size_t naxes, bool keepdims, ra_dtype dtype, double correction,
                        ra_array **out);

/* cumulative_sum (prod false) and cumulative_prod (prod true) of numeric x along *axis (axis
 * NULL: x must be 0-d or 1-D, RA_E_AXIS otherwise), dtype as for ra_statistic's sum; with
 * include_initial the result starts with the identity (0 or 1) and is one longer along the
 * axis. Returns RA_E_NULL, RA_E_ARG (a sharded x), RA_E_AXIS, RA_E_DTYPE, RA_E_NOMEM,
 * RA_E_BACKEND. */
RA_API int ra_cumulative(ra_ctx *ctx, bool prod, const ra_array *x, const int64_t *axis,
                         ra_dtype dtype, bool include_initial, ra_array **out);

/* diff(x, axis, n, prepend, append): the n-th forward difference of numeric x along axis
 * (n >= 0; n 0 gives x's values), after prepend and append (NULL: none; each of x's shape
 * but along axis, x's kind, on x's device) are joined to x along that axis. The dtype is the
 * promotion of x's and theirs. Returns RA_E_NULL, RA_E_ARG (n < 0, a sharded array),
 * RA_E_AXIS (x 0-d, axis out of range), RA_E_SHAPE (prepend or append of another shape),
 * RA_E_DTYPE, RA_E_DEVICE_MISMATCH, RA_E_NOMEM, RA_E_BACKEND. */
RA_API int ra_diff(ra_ctx *ctx, const ra_array *x, int64_t axis, int64_t n, const ra_array *prepend,
                   const ra_array *append, ra_array **out);

/* all(x, axis, keepdims) and any(...): ra_statistic with RA_STAT_ALL and RA_STAT_ANY. */

/* ---- The array object ---- */

/* x.T (matrix false: x must be 2-D, RA_E_SHAPE otherwise) and x.mT (matrix true: the last
 * two axes swapped, x at least 2-D): a new array on x's device. Returns RA_E_NULL, RA_E_ARG
 * (a sharded x), RA_E_SHAPE, RA_E_NOMEM, RA_E_BACKEND. */
RA_API int ra_array_transpose(ra_ctx *ctx, const ra_array *x, bool matrix, ra_array **out);

/* The one element of a 0-d x as a Python scalar of its kind (bool, int, float, complex;
 * uint64 beyond int64 with `u` set), read from x's device: __bool__, __int__, __float__,
 * __complex__ and __index__ convert it. Returns RA_E_NULL, RA_E_ARG (a sharded x), RA_E_SHAPE
 * (x not 0-d), RA_E_BACKEND. */
RA_API int ra_array_item(ra_ctx *ctx, const ra_array *x, ra_scalar *out);

#ifdef __cplusplus
}
#endif

#endif /* REFARRAY_FN_ELEMENTWISE_H */
