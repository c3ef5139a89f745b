/* ops.c: elementwise binary and unary operations, reductions, matmul and stack, with the
 * device rules (outputs on the inputs' device; mixed devices raise unless soft mode moves
 * them) and the fallback to host kernels for backend slots left NULL. */
#include "array_make.h"

#include <stdio.h>
#include <string.h>

const char *ra_binop_name(ra_binop op)
{
    static const char *const names[] = {NULL,     "add",   "subtract", "multiply",
                                        "divide", "equal", "less",     "maximum"};
    return op >= RA_ADD && op <= RA_MAXIMUM ? names[op] : NULL;
}

const char *ra_unop_name(ra_unop op)
{
    static const char *const names[] = {NULL, "negative", "abs", "sqrt"};
    return op >= RA_NEGATIVE && op <= RA_SQRT ? names[op] : NULL;
}

const char *ra_reduceop_name(ra_reduceop op)
{
    static const char *const names[] = {NULL, "sum", "max"};
    return op >= RA_SUM && op <= RA_MAX ? names[op] : NULL;
}

static void release_all(ra_array **xs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ra_array_release(xs[i]);
        xs[i] = NULL;
    }
}

/* internal.h */
int ra__common_device(ra_ctx *ctx, const char *fn, const ra_array *const *xs, size_t n,
                      ra__dev **dev, ra_array **owned)
{
    /* NULL on failure, as every out-parameter: a caller's dev is then never read unset, which
     * GCC 12 at -O3 cannot otherwise prove (ra__ctx_error's value is opaque to it). */
    *dev = NULL;
    ra__dev *first = xs[0]->dev;
    size_t other = 0;
    for (size_t i = 1; i < n && !other; i++)
        if (xs[i]->dev != first) other = i;
    bool soft = ra_soft_get(ctx);
    bool move_all = soft && ra_ctx_soft_policy(ctx) == RA_SOFT_MOVE_ALL;
    if (!other && !move_all) {
        for (size_t i = 0; i < n; i++)
            owned[i] = ra_array_retain(xs[i]);
        *dev = first;
        return RA_OK;
    }
    char b1[RA_DEVICE_STR_MAX], b2[RA_DEVICE_STR_MAX];
    if (!soft)
        return ra__ctx_error(ctx, RA_E_DEVICE_MISMATCH,
                             "%s: arrays on different devices ('%s' and '%s') cannot be "
                             "combined; move them with ra_to_device or turn on soft device "
                             "mode (ra_soft_set)",
                             fn, ra__device_str(first->device, b1),
                             ra__device_str(xs[other]->dev->device, b2));
    ra__dev *target;
    int status = ra__ctx_require(ctx, ra_default_device(ctx), fn, &target);
    if (status != RA_OK) return status;
    for (size_t i = 0; i < n; i++) {
        if (xs[i]->dev == target) {
            owned[i] = ra_array_retain(xs[i]);
            continue;
        }
        status = ra__dtype_require(ctx, target, xs[i]->dtype, fn);
        if (status == RA_OK) status = ra__array_copy_to(ctx, xs[i], target, NULL, &owned[i]);
        if (status != RA_OK) {
            release_all(owned, i);
            return status;
        }
    }
    *dev = target;
    return RA_OK;
}

/* Replaces *x by its conversion to dtype when it differs. */
static int cast_in_place(ra_ctx *ctx, ra_array **x, ra_dtype dtype)
{
    if ((*x)->dtype == dtype) return RA_OK;
    ra_array *y;
    int status = ra__array_cast(ctx, *x, dtype, &y);
    if (status != RA_OK) return status;
    ra_array_release(*x);
    *x = y;
    return RA_OK;
}

/* Host copy of an array's data (NULL data for an empty array). */
static int stage_in(ra_ctx *ctx, const ra_array *x, void **host)
{
    *host = ra__alloc(ctx, x->nbytes);
    if (!*host) return ra__ctx_error(ctx, RA_E_NOMEM, "out of memory for a staging buffer");
    if (!x->nbytes) return RA_OK;
    int status = x->dev->ops->read(x->dev->impl, x->buf, 0, *host, x->nbytes, NULL);
    if (status != RA_OK) {
        ra__free(ctx, *host);
        *host = NULL;
    }
    return status;
}

/* Broadcasts shapes a and b (right-aligned) into out; RA_E_BROADCAST when incompatible. */
static int broadcast(ra_ctx *ctx, const char *fn, const int64_t *a, size_t na, const int64_t *b,
                     size_t nb, int64_t *out, size_t *nout)
{
    size_t n = na > nb ? na : nb;
    for (size_t i = 0; i < n; i++) {
        int64_t da = i < n - na ? 1 : a[i - (n - na)];
        int64_t db = i < n - nb ? 1 : b[i - (n - nb)];
        if (da != db && da != 1 && db != 1) {
            char sa[160] = "", sb[160] = "";
            size_t oa = 0, ob = 0;
            for (size_t j = 0; j < na && oa < sizeof sa - 24; j++)
                oa += (size_t)snprintf(sa + oa, sizeof sa - oa, "%s%lld", j ? ", " : "",
                                       (long long)a[j]);
            for (size_t j = 0; j < nb && ob < sizeof sb - 24; j++)
                ob += (size_t)snprintf(sb + ob, sizeof sb - ob, "%s%lld", j ? ", " : "",
                                       (long long)b[j]);
            return ra__ctx_error(ctx, RA_E_BROADCAST,
                                 "%s: shapes (%s) and (%s) cannot be broadcast together", fn, sa,
                                 sb);
        }
        out[i] = da == 1 ? db : da;
    }
    *nout = n;
    return RA_OK;
}

/* Element strides of x viewed with shape out (ndim nout), 0 along broadcast axes. */
static void broadcast_strides(const ra_array *x, size_t nout, const int64_t *out, int64_t *strides)
{
    int64_t s = 1;
    for (size_t i = nout; i-- > 0;) {
        size_t lead = nout - x->ndim;
        if (i < lead) {
            strides[i] = 0;
            continue;
        }
        int64_t d = x->shape[i - lead];
        strides[i] = d == 1 && out[i] != 1 ? 0 : s;
        s *= d;
    }
}

static bool same_shape(const ra_array *a, const ra_array *b)
{
    if (a->ndim != b->ndim) return false;
    for (size_t i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i]) return false;
    return true;
}

static bool binop_allowed(ra_binop op, ra_dtype t)
{
    /* ra__dtype_is_integer and ra__dtype_is_complex, written out: every operation asks. */
    if (t == RA_BOOL) return op == RA_EQUAL;
    if (t >= RA_INT8 && t <= RA_UINT64) return op != RA_DIVIDE;
    if (t == RA_COMPLEX64 || t == RA_COMPLEX128) return op != RA_LESS && op != RA_MAXIMUM;
    return true;
}

/* Under the category rule sets (OneFlow's reading), arithmetic the array API leaves
 * undefined is computed as OneFlow 0.9.0 computes it: divide of an integral promoted dtype is
 * true division in the default floating dtype (float32), divide of bool is bool (the
 * dividend: see bool_quotient), and add, subtract and multiply of bool give bool (or,
 * exclusive or, and). What dtype the operation computes in (`via`) and what its result is
 * cast to (`then`); false when it is not one of these. */
static bool category_arith(const ra_ctx *ctx, ra_binop op, ra_dtype promoted, ra_dtype *via,
                           ra_dtype *then)
{
    if (ra_ctx_promotion(ctx) == RA_PROMOTION_ARRAY_API) return false;
    if (op == RA_DIVIDE && promoted == RA_BOOL) {
        *via = *then = RA_BOOL;
        return true;
    }
    if (op == RA_DIVIDE && ra__dtype_is_integer(promoted)) {
        *via = *then = RA_FLOAT32;
        return true;
    }
    if (promoted == RA_BOOL && (op == RA_ADD || op == RA_SUBTRACT || op == RA_MULTIPLY)) {
        /* In int8, then nonzero is true: 1 + 1, 1 - 0 and 0 - 1 are true, 1 - 1 false. */
        *via = RA_INT8;
        *then = RA_BOOL;
        return true;
    }
    return false;
}

/* The dtype x1 op x2 gives when promoted is the operands' promoted dtype. */
static ra_dtype result_dtype(const ra_ctx *ctx, ra_binop op, ra_dtype promoted)
{
    ra_dtype via, then;
    if (op == RA_EQUAL || op == RA_LESS) return RA_BOOL;
    return category_arith(ctx, op, promoted, &via, &then) ? then : promoted;
}

/* x1 / x2 of bool under the category rules, as OneFlow 0.9.0 computes it: bool, the dividend
 * broadcast to the result's shape whatever the divisor (true / true is true, false / true
 * false; dividing by false gives the dividend too: true / false is true, false / false
 * false). Computed as x1 == t, t all true in x2's shape (x2 == x2), or the scalar true. */
static int bool_quotient(ra_ctx *ctx, ra_operand x1, ra_operand x2, ra_array **out)
{
    ra_array *t = NULL;
    ra_operand truth = ra_operand_scalar(ra_scalar_bool(true));
    if (x2.array) {
        int status = ra_binary(ctx, RA_EQUAL, x2, x2, &t);
        if (status != RA_OK) return status;
        truth = ra_operand_array(t);
    }
    int status = ra_binary(ctx, RA_EQUAL, x1, truth, out);
    ra_array_release(t);
    return status;
}

/* x1 op x2 computed with the array operands cast to via, the result cast to then. */
static int binary_via(ra_ctx *ctx, ra_binop op, ra_operand x1, ra_operand x2, ra_dtype via,
                      ra_dtype then, ra_array **out)
{
    ra_operand w[2] = {x1, x2};
    ra_array *wide[2] = {NULL, NULL}, *y = NULL;
    int status = RA_OK;
    for (int i = 0; i < 2 && status == RA_OK; i++)
        if (w[i].array) {
            status = ra__array_cast(ctx, w[i].array, via, &wide[i]);
            if (status == RA_OK) w[i] = ra_operand_array(wide[i]);
        }
    if (status == RA_OK) status = ra_binary(ctx, op, w[0], w[1], &y);
    ra_array_release(wide[0]);
    ra_array_release(wide[1]);
    if (status == RA_OK && then != via) {
        ra_array *c = NULL;
        status = ra__array_cast(ctx, y, then, &c);
        ra_array_release(y);
        y = c;
    }
    return ra__array_hand_out(status, y, out);
}

/* ---- kernels: the one place the operations meet a backend ----
 * Each runs its operation on the result's device through the backend's slot, or, where the
 * backend leaves the slot NULL, with the host kernels on host copies of the inputs and the
 * result written back (staged). */

/* a op b into y, with the views va, vb and vo over their buffers. */
static int kernel_binary(ra_ctx *ctx, const char *fn, ra_binop op, const ra_array *a,
                         const ra_array *b, ra_array *y, ra__view va, ra__view vb, ra__view vo)
{
    ra__dev *dev = y->dev;
    if (dev->ops->binary) return dev->ops->binary(dev->impl, op, &va, &vb, &vo);
    void *ha = NULL, *hb = NULL, *ho = NULL;
    int status = stage_in(ctx, a, &ha);
    if (status == RA_OK) status = stage_in(ctx, b, &hb);
    if (status == RA_OK && !(ho = ra__alloc(ctx, y->nbytes)))
        status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory for staging", fn);
    if (status == RA_OK) {
        va.buf = ha;
        vb.buf = hb;
        vo.buf = ho;
        status = ra__host_binary(op, &va, &vb, &vo);
    }
    if (status == RA_OK) status = ra__array_write(ctx, y, ho);
    ra__free(ctx, ha);
    ra__free(ctx, hb);
    ra__free(ctx, ho);
    return status;
}

/* a op b into y, a and b of one dtype broadcast to y's shape. */
static int binary_broadcast(ra_ctx *ctx, const char *fn, ra_binop op, const ra_array *a,
                            const ra_array *b, ra_array *y)
{
    int64_t sa[RA_MAX_NDIM], sb[RA_MAX_NDIM], so[RA_MAX_NDIM];
    ra__view va = {a->buf, a->dtype, y->ndim, y->shape, sa, 0};
    ra__view vb = {b->buf, a->dtype, y->ndim, y->shape, sb, 0};
    ra__view vo = {y->buf, y->dtype, y->ndim, y->shape, so, 0};
    /* Operands of the result's shape, or of one element (a scalar, a 0-d array), need no
     * broadcast strides: the views are one flat axis, stepped or repeated. */
    int64_t flat = y->size;
    if ((same_shape(a, y) || a->size == 1) && (same_shape(b, y) || b->size == 1)) {
        sa[0] = same_shape(a, y) ? 1 : 0;
        sb[0] = same_shape(b, y) ? 1 : 0;
        so[0] = 1;
        va.ndim = vb.ndim = vo.ndim = 1;
        va.shape = vb.shape = vo.shape = &flat;
    } else {
        broadcast_strides(a, y->ndim, y->shape, sa);
        broadcast_strides(b, y->ndim, y->shape, sb);
        broadcast_strides(y, y->ndim, y->shape, so);
    }
    return kernel_binary(ctx, fn, op, a, b, y, va, vb, vo);
}

/* op of each element of x into y (x's size, y's dtype). */
static int kernel_unary(ra_ctx *ctx, const char *fn, ra_unop op, const ra_array *x, ra_array *y)
{
    ra__dev *dev = y->dev;
    if (dev->ops->unary)
        return dev->ops->unary(dev->impl, op, x->buf, x->dtype, y->buf, y->dtype, (size_t)x->size);
    void *hx = NULL, *hy = NULL;
    int status = stage_in(ctx, x, &hx);
    if (status == RA_OK && !(hy = ra__alloc(ctx, y->nbytes)))
        status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory for staging", fn);
    if (status == RA_OK) status = ra__host_unary(op, hx, x->dtype, hy, y->dtype, (size_t)x->size);
    if (status == RA_OK) status = ra__array_write(ctx, y, hy);
    ra__free(ctx, hx);
    ra__free(ctx, hy);
    return status;
}

/* op over the middle axis of x viewed as (outer, len, inner) into y (x's dtype). */
static int kernel_reduce(ra_ctx *ctx, const char *fn, ra_reduceop op, const ra_array *x,
                         size_t outer, size_t len, size_t inner, ra_array *y)
{
    ra__dev *dev = y->dev;
    if (dev->ops->reduce)
        return dev->ops->reduce(dev->impl, op, x->buf, y->dtype, outer, len, inner, y->buf);
    void *hx = NULL, *hy = NULL;
    int status = stage_in(ctx, x, &hx);
    if (status == RA_OK && !(hy = ra__calloc(ctx, 1, y->nbytes)))
        status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory for staging", fn);
    if (status == RA_OK) status = ra__host_reduce(op, hx, y->dtype, outer, len, inner, hy);
    if (status == RA_OK) status = ra__array_write(ctx, y, hy);
    ra__free(ctx, hx);
    ra__free(ctx, hy);
    return status;
}

/* A batched matmul's geometry: y's batch shape bshape (nb axes; a's and b's own batch axes
 * are the last nb1 and nb2 of it, broadcast), each matrix n x k times k x m. */
typedef struct {
    const int64_t *bshape;
    size_t nb, nb1, nb2;
    int64_t n, k, m;
} matmul_geom;

/* y = a @ b for every batch of g (a, b and y of one dtype, y not empty). */
static int kernel_matmul(ra_ctx *ctx, const char *fn, const ra_array *a, const ra_array *b,
                         ra_array *y, const matmul_geom *g)
{
    ra__dev *dev = y->dev;
    ra_dtype dtype = y->dtype;
    size_t nb = g->nb, nb1 = g->nb1, nb2 = g->nb2;
    int64_t n = g->n, k = g->k, m = g->m;
    void *ha = NULL, *hb = NULL, *hy = NULL;
    int status = RA_OK;
    bool staged = !dev->ops->matmul;
    if (staged) {
        status = stage_in(ctx, a, &ha);
        if (status == RA_OK) status = stage_in(ctx, b, &hb);
        if (status == RA_OK && !(hy = ra__calloc(ctx, 1, y->nbytes)))
            status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory for staging", fn);
        if (status != RA_OK) goto done;
    }
    /* Batch strides (in matrices) of each operand along the broadcast batch shape. */
    int64_t s1[RA_MAX_NDIM], s2[RA_MAX_NDIM];
    {
        int64_t acc1 = 1, acc2 = 1;
        for (size_t i = nb; i-- > 0;) {
            size_t l1 = nb - nb1, l2 = nb - nb2;
            int64_t d1 = i < l1 ? 1 : a->shape[i - l1];
            int64_t d2 = i < l2 ? 1 : b->shape[i - l2];
            s1[i] = d1 == 1 ? 0 : acc1;
            s2[i] = d2 == 1 ? 0 : acc2;
            acc1 *= d1;
            acc2 *= d2;
        }
    }
    int64_t batches = ra__shape_size(g->bshape, nb);
    int64_t idx[RA_MAX_NDIM] = {0};
    for (int64_t bi = 0; bi < batches && status == RA_OK; bi++) {
        int64_t o1 = 0, o2 = 0;
        for (size_t d = 0; d < nb; d++) {
            o1 += idx[d] * s1[d];
            o2 += idx[d] * s2[d];
        }
        size_t a_off = (size_t)(o1 * n * k), b_off = (size_t)(o2 * k * m),
               y_off = (size_t)(bi * n * m);
        if (staged)
            status = ra__host_matmul(dtype, ha, a_off, hb, b_off, hy, y_off, (size_t)n, (size_t)k,
                                     (size_t)m);
        else
            status = dev->ops->matmul(dev->impl, dtype, a->buf, a_off, b->buf, b_off, y->buf, y_off,
                                      (size_t)n, (size_t)k, (size_t)m);
        for (size_t d = nb; d-- > 0;) {
            if (++idx[d] < g->bshape[d]) break;
            idx[d] = 0;
        }
    }
    if (status == RA_OK && staged) status = ra__array_write(ctx, y, hy);
done:
    ra__free(ctx, ha);
    ra__free(ctx, hb);
    ra__free(ctx, hy);
    return status;
}

/* The n arrays in (each outer rows of row bytes) interleaved into y along a new axis. */
static int kernel_stack(ra_ctx *ctx, const char *fn, ra_array *const *in, size_t n, size_t outer,
                        size_t row, ra_array *y)
{
    ra__dev *dev = y->dev;
    int status = RA_OK;
    if (dev->ops->copy) {
        for (size_t i = 0; i < n && status == RA_OK; i++)
            status = dev->ops->copy(dev->impl, y->buf, i * row, n * row, in[i]->buf, 0, row, row,
                                    outer, NULL);
        return status;
    }
    void *hy = NULL, *hx = NULL;
    if (!(hy = ra__alloc(ctx, y->nbytes)))
        status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory for staging", fn);
    for (size_t i = 0; i < n && status == RA_OK; i++) {
        status = stage_in(ctx, in[i], &hx);
        if (status == RA_OK) ra__host_copy_rows(hy, i * row, n * row, hx, 0, row, row, outer);
        ra__free(ctx, hx);
        hx = NULL;
    }
    if (status == RA_OK) status = ra__array_write(ctx, y, hy);
    ra__free(ctx, hy);
    return status;
}

/* binary_same's kernel on a device whose memory is not the host's: over one flat axis. */
static __attribute__((noinline)) int binary_same_device(ra_ctx *ctx, ra_binop op,
                                                        const ra_array *x1, const ra_array *x2,
                                                        ra_array *y, ra_array **out)
{
    int64_t n = y->size, step = 1;
    ra__view va = {x1->buf, x1->dtype, 1, &n, &step, 0};
    ra__view vb = {x2->buf, x1->dtype, 1, &n, &step, 0};
    ra__view vo = {y->buf, y->dtype, 1, &n, &step, 0};
    int status = kernel_binary(ctx, ra_binop_name(op), op, x1, x2, y, va, vb, vo);
    return ra__array_hand_out(status, y, out);
}

/* x1 op x2 for two arrays of one dtype, shape and device whose backend has the binary slot,
 * and nothing to move (soft mode off): what ra_binary's general path would decide is already
 * decided (no promotion, broadcasting, cast or move), so it only makes the result and runs
 * the kernel over one flat axis, on host memory as one call of the element's function for a
 * 1-element array. Small operations are mostly this overhead, so the device's path, with its
 * views, is a function of its own that leaves this one's frame small. t is the calling
 * thread's state (may be NULL), looked up once by binary_arrays. */
static inline __attribute__((always_inline)) int binary_same(ra_ctx *ctx, ra__thread *t,
                                                             ra_binop op, const ra_array *x1,
                                                             const ra_array *x2, ra_array **out)
{
    ra__dev *dev = x1->dev;
    ra_dtype odtype = op == RA_EQUAL || op == RA_LESS ? RA_BOOL : x1->dtype;
    ra_array *y = NULL;
    int status = ra__array_new_like_uninit_on(ctx, t, dev, odtype, x1, &y); /* written whole */
    if (status != RA_OK) return status;
    if (!RA__DEV_HOST_MEMORY(dev)) return binary_same_device(ctx, op, x1, x2, y, out);
    ra__host_binary_flat(op, x1->dtype, (size_t)y->size, x1->buf, x2->buf, y->buf);
    *out = y;
    return RA_OK;
}

/* float16 arithmetic (spec/decisions.md, "Data types and promotion"): float16 operands are
 * widened to float32, the operation runs there (on any device), and a result whose dtype is
 * float16 is rounded into it once. For add, subtract, multiply, divide and sqrt that is the
 * correctly rounded float16 result, since float32 carries more than twice float16's
 * precision; sums and products of several terms accumulate in float32. */
static int narrow_half(ra_ctx *ctx, ra_array **y)
{
    if ((*y)->dtype != RA_FLOAT32) return RA_OK;
    ra_array *h = NULL;
    int status = ra__array_cast(ctx, *y, RA_FLOAT16, &h);
    ra_array_release(*y);
    *y = h;
    return status;
}

static int binary_half(ra_ctx *ctx, ra_binop op, ra_operand x1, ra_operand x2, ra_array **out)
{
    const char *fn = ra_binop_name(op);
    ra_dtype r;
    int status = ra__promote_binary(ctx, fn, x1, x2, &r);
    if (status != RA_OK) return status;
    if (!binop_allowed(op, r))
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: not defined for %s", fn, ra_dtype_name(r));
    ra_operand w[2] = {x1, x2};
    ra_array *wide[2] = {NULL, NULL};
    for (int i = 0; i < 2 && status == RA_OK; i++) {
        if (w[i].array && w[i].array->dtype == RA_FLOAT16) {
            status = ra__array_cast(ctx, w[i].array, RA_FLOAT32, &wide[i]);
            if (status == RA_OK) w[i] = ra_operand_array(wide[i]);
        } else if (!w[i].array && r == RA_FLOAT16) {
            /* The scalar becomes a float16 first (with the checks of its kind and range), then
             * that value takes part in float32. */
            uint16_t h;
            status = ra__promote_scalar_element(ctx, w[i].scalar, RA_FLOAT16, &h, fn);
            if (status == RA_OK) w[i] = ra_operand_scalar(ra_scalar_float(ra__half_to_double(h)));
        }
    }
    ra_array *y = NULL;
    if (status == RA_OK) status = ra_binary(ctx, op, w[0], w[1], &y);
    ra_array_release(wide[0]);
    ra_array_release(wide[1]);
    if (status == RA_OK && r == RA_FLOAT16 && op != RA_EQUAL && op != RA_LESS)
        status = narrow_half(ctx, &y);
    return ra__array_hand_out(status, y, out);
}

static int binary_general(ra_ctx *ctx, ra_binop op, ra_operand x1, ra_operand x2, ra_array **out);

/* The general path for two arrays, a function of its own: its two operands would double
 * binary_arrays' frame. */
static __attribute__((noinline)) int binary_arrays_general(ra_ctx *ctx, ra_binop op,
                                                           const ra_array *a, const ra_array *b,
                                                           ra_array **out)
{
    return binary_general(ctx, op, ra_operand_array(a), ra_operand_array(b), out);
}

/* x1 op x2 for two arrays, out already checked and cleared. Two arrays of one dtype (not
 * float16, of no layer), device and shape, with an operation defined for the dtype: the
 * checks of the general path would all pass and it would decide nothing, so unless soft mode
 * moves them, binary_same does the work. The thread's state is looked up once, here, for
 * soft mode and the result. */
static int binary_arrays(ra_ctx *ctx, ra_binop op, const ra_array *a, const ra_array *b,
                         ra_array **out)
{
    if (op >= RA_ADD && op <= RA_MAXIMUM && !a->layer && !b->layer && a->dtype == b->dtype &&
        a->dtype != RA_FLOAT16 && a->dev == b->dev && a->size > 0 && a->dev->ops->binary &&
        same_shape(a, b) && binop_allowed(op, a->dtype)) {
        ra__thread *t = ra__thread_get(ctx);
        if (!(t && t->nsoft && t->soft[t->nsoft - 1])) return binary_same(ctx, t, op, a, b, out);
    }
    return binary_arrays_general(ctx, op, a, b, out);
}

int ra_binary(ra_ctx *ctx, ra_binop op, ra_operand x1, ra_operand x2, ra_array **out)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_binary: ctx is NULL");
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_binary: out is NULL");
    *out = NULL;
    if (x1.array && x2.array) return binary_arrays(ctx, op, x1.array, x2.array, out);
    return binary_general(ctx, op, x1, x2, out);
}

int ra_binary_arrays(ra_ctx *ctx, ra_binop op, const ra_array *x1, const ra_array *x2,
                     ra_array **out)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_binary_arrays: ctx is NULL");
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_binary_arrays: out is NULL");
    *out = NULL;
    if (!x1 || !x2)
        return ra__ctx_error(ctx, RA_E_NULL, "ra_binary_arrays: %s is NULL", x1 ? "x2" : "x1");
    return binary_arrays(ctx, op, x1, x2, out);
}

/* ra_binary past its same-dtype, same-shape path: every check, promotion, broadcasting, the
 * common device, casts. Out of line, so that the path before it saves few registers. */
static __attribute__((noinline)) int binary_general(ra_ctx *ctx, ra_binop op, ra_operand x1,
                                                    ra_operand x2, ra_array **out)
{
    const char *fn = ra_binop_name(op);
    if (!fn) return ra__ctx_error(ctx, RA_E_ARG, "ra_binary: unknown operation %d", (int)op);
    if (!x1.array && !x2.array)
        return ra__ctx_error(ctx, RA_E_SCALAR, "%s: at least one operand must be an array", fn);
    const ra__layer_ops *layer = ra__layer_of(x1.array, x2.array);
    if (layer) return layer->binary(ctx, op, x1, x2, out);
    if ((x1.array && x1.array->dtype == RA_FLOAT16) || (x2.array && x2.array->dtype == RA_FLOAT16))
        return binary_half(ctx, op, x1, x2, out);

    /* Dtype: the context's promotion rule set (promote.c); under the array API's a scalar
     * takes the array's dtype (DEV-DS-12: and its device). */
    ra_dtype dtype;
    int pstatus = ra__promote_binary(ctx, fn, x1, x2, &dtype);
    if (pstatus != RA_OK) return pstatus;
    ra_dtype via, then;
    if (!binop_allowed(op, dtype) && category_arith(ctx, op, dtype, &via, &then))
        return op == RA_DIVIDE && via == RA_BOOL ? bool_quotient(ctx, x1, x2, out)
                                                 : binary_via(ctx, op, x1, x2, via, then, out);
    if (!binop_allowed(op, dtype))
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: not defined for %s", fn, ra_dtype_name(dtype));
    unsigned char scalar_elem[16];
    if (!x1.array || !x2.array) {
        int status = ra__promote_scalar_element(ctx, x1.array ? x2.scalar : x1.scalar, dtype,
                                                scalar_elem, fn);
        if (status != RA_OK) return status;
    }
    int64_t oshape[RA_MAX_NDIM];
    size_t ondim;
    const ra_array *arr1 = x1.array ? x1.array : x2.array;
    const ra_array *arr2 = x1.array && x2.array ? x2.array : NULL;
    /* The same shape (the common case) needs no broadcasting. */
    int status = RA_OK;
    if (arr2 && !same_shape(arr1, arr2)) {
        status =
            broadcast(ctx, fn, arr1->shape, arr1->ndim, arr2->shape, arr2->ndim, oshape, &ondim);
        if (status != RA_OK) return status;
    } else {
        ondim = arr1->ndim;
        memcpy(oshape, arr1->shape, ondim * sizeof *oshape);
    }

    /* Devices, then dtypes. in[0], in[1] are x1 and x2 (the scalar as a 0-d array). */
    ra_array *in[2] = {NULL, NULL};
    ra__dev *dev;
    const ra_array *arrays[2] = {arr1, arr2};
    ra_array *owned[2] = {NULL, NULL};
    status = ra__common_device(ctx, fn, arrays, arr2 ? 2 : 1, &dev, owned);
    if (status != RA_OK) return status;
    ra_array *scalar_arr = NULL;
    ra_array *result = NULL;
    if (!arr2) {
        status = ra__array_new(ctx, dev, dtype, NULL, 0, &scalar_arr);
        if (status == RA_OK) status = ra__array_write(ctx, scalar_arr, scalar_elem);
        if (status != RA_OK) goto done;
        in[0] = x1.array ? owned[0] : scalar_arr;
        in[1] = x1.array ? scalar_arr : owned[0];
    } else {
        in[0] = owned[0];
        in[1] = owned[1];
    }
    for (int i = 0; i < 2; i++) {
        ra_array **slot = in[i] == owned[0]   ? &owned[0]
                          : in[i] == owned[1] ? &owned[1]
                                              : &scalar_arr;
        status = cast_in_place(ctx, slot, dtype);
        if (status != RA_OK) goto done;
        in[i] = *slot;
    }
    ra_dtype odtype = op == RA_EQUAL || op == RA_LESS ? RA_BOOL : dtype;
    /* Written whole by the kernel below (or by the write of the staged result). */
    status = ra__array_new_uninit(ctx, dev, odtype, oshape, ondim, &result);
    if (status != RA_OK) goto done;
    if (result->size > 0) status = binary_broadcast(ctx, fn, op, in[0], in[1], result);
done:
    ra_array_release(scalar_arr);
    release_all(owned, 2);
    return ra__array_hand_out(status, result, out);
}

/* Why ra_can_cast_out refuses: the rule of OF-OUT-1 (or OF-OUT-4's reading) that applies. */
static const char *out_cast_reason(ra_dtype result, ra_dtype out)
{
    if (out == RA_BOOL) return "a bool output refuses a non-bool result";
    if (ra__dtype_is_complex(result) && !ra__dtype_is_complex(out))
        return "a non-complex output refuses a complex result";
    if (ra__dtype_is_integer(out) && !ra__dtype_is_integer(result) && result != RA_BOOL)
        return "an integral output refuses a floating result";
    return "the result does not promote to the output's dtype (no narrowing)";
}

/* Copies src's data into dst (same device, dtype and size). */
static int copy_into(ra_ctx *ctx, ra_array *dst, const ra_array *src)
{
    if (!src->nbytes) return RA_OK;
    ra__dev *dev = dst->dev;
    if (dev->ops->copy)
        return dev->ops->copy(dev->impl, dst->buf, 0, src->nbytes, src->buf, 0, src->nbytes,
                              src->nbytes, 1, NULL);
    void *host = NULL;
    int status = stage_in(ctx, src, &host);
    if (status == RA_OK) status = ra__array_write(ctx, dst, host);
    ra__free(ctx, host);
    return status;
}

int ra_binary_into(ra_ctx *ctx, ra_binop op, ra_operand x1, ra_operand x2, ra_array *out)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_binary_into: ctx is NULL");
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_binary_into: out is NULL");
    const char *fn = ra_binop_name(op);
    if (!fn) return ra__ctx_error(ctx, RA_E_ARG, "ra_binary_into: unknown operation %d", (int)op);
    if (!x1.array && !x2.array)
        return ra__ctx_error(ctx, RA_E_SCALAR, "%s: at least one operand must be an array", fn);
    RA__REFUSE_LAYERED(ctx, out, fn);
    /* An output is never moved: every array operand must be on out's device. */
    const ra_operand xs[2] = {x1, x2};
    for (int i = 0; i < 2; i++) {
        if (xs[i].array && xs[i].array->dev != out->dev) {
            char a[RA_DEVICE_STR_MAX], b[RA_DEVICE_STR_MAX];
            return ra__ctx_error(ctx, RA_E_DEVICE_MISMATCH,
                                 "%s: out is on device '%s' and x%d on '%s'; an output must be "
                                 "on its inputs' device",
                                 fn, ra__device_str(out->dev->device, a), i + 1,
                                 ra__device_str(xs[i].array->dev->device, b));
        }
    }
    /* OF-OUT-1, OF-OUT-2: the result's dtype (out's own does not take part) must be castable
     * into out's; checked before anything is computed, so a refusal changes nothing. */
    ra_dtype r;
    int status = ra__promote_binary(ctx, fn, x1, x2, &r);
    if (status != RA_OK) return status;
    ra_dtype via, then;
    bool defined = binop_allowed(op, r) || category_arith(ctx, op, r, &via, &then);
    r = result_dtype(ctx, op, r);
    if (defined && !ra__can_cast_out_op(ctx, op, r, out->dtype))
        return ra__ctx_error(
            ctx, RA_E_OUT_CAST, "%s: result type %s cannot be cast to the output's dtype %s (%s)",
            fn, ra_dtype_name(r), ra_dtype_name(out->dtype), out_cast_reason(r, out->dtype));
    /* The result in full first, so that out may be one of the operands. */
    ra_array *res = NULL, *cast = NULL;
    status = ra_binary(ctx, op, x1, x2, &res);
    if (status != RA_OK) return status;
    if (!same_shape(res, out)) {
        char so[160] = "", sr[160] = "";
        size_t oo = 0, orr = 0;
        for (size_t j = 0; j < out->ndim && oo < sizeof so - 24; j++)
            oo += (size_t)snprintf(so + oo, sizeof so - oo, "%s%lld", j ? ", " : "",
                                   (long long)out->shape[j]);
        for (size_t j = 0; j < res->ndim && orr < sizeof sr - 24; j++)
            orr += (size_t)snprintf(sr + orr, sizeof sr - orr, "%s%lld", j ? ", " : "",
                                    (long long)res->shape[j]);
        ra_array_release(res);
        return ra__ctx_error(ctx, RA_E_SHAPE,
                             "%s: out has shape (%s) but the result has shape (%s); out is "
                             "never resized",
                             fn, so, sr);
    }
    if (res->dtype != out->dtype) {
        status = ra__array_cast(ctx, res, out->dtype, &cast);
        if (status != RA_OK) {
            ra_array_release(res);
            return status;
        }
    }
    status = copy_into(ctx, out, cast ? cast : res);
    ra_array_release(cast);
    ra_array_release(res);
    return status;
}

int ra_unary(ra_ctx *ctx, ra_unop op, const ra_array *x, ra_array **out)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_unary: ctx is NULL");
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_unary: out is NULL");
    *out = NULL;
    const char *fn = ra_unop_name(op);
    if (!fn) return ra__ctx_error(ctx, RA_E_ARG, "ra_unary: unknown operation %d", (int)op);
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", fn);
    const ra__layer_ops *layer = ra__layer_of(x, NULL);
    if (layer) return layer->unary(ctx, op, x, out);
    if (x->dtype == RA_FLOAT16) {
        ra_array *w = NULL, *y = NULL;
        int status = ra__array_cast(ctx, x, RA_FLOAT32, &w);
        if (status == RA_OK) status = ra_unary(ctx, op, w, &y);
        if (status == RA_OK) status = narrow_half(ctx, &y);
        ra_array_release(w);
        return ra__array_hand_out(status, y, out);
    }
    bool ok = op == RA_SQRT ? ra__dtype_is_float(x->dtype) || ra__dtype_is_complex(x->dtype)
                            : x->dtype != RA_BOOL;
    if (!ok)
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: not defined for %s", fn,
                             ra_dtype_name(x->dtype));
    ra_dtype odtype = x->dtype;
    if (op == RA_ABS && x->dtype == RA_COMPLEX64) odtype = RA_FLOAT32;
    if (op == RA_ABS && x->dtype == RA_COMPLEX128) odtype = RA_FLOAT64;
    /* One input has no device to disagree with, but soft mode's move-all policy still moves
     * it to the default device (IVY-SOFT-1). */
    ra__dev *target;
    ra_array *moved = NULL;
    int status = ra__common_device(ctx, fn, &x, 1, &target, &moved);
    if (status != RA_OK) return status;
    x = moved;
    ra_array *y;
    status = ra__array_new_like_uninit(ctx, x->dev, odtype, x, &y); /* written whole */
    if (status != RA_OK) {
        ra_array_release(moved);
        return status;
    }
    if (x->size > 0) status = kernel_unary(ctx, fn, op, x, y);
    ra_array_release(moved);
    return ra__array_hand_out(status, y, out);
}

int ra_reduce(ra_ctx *ctx, ra_reduceop op, const ra_array *x, const int *axis, ra_array **out)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_reduce: ctx is NULL");
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_reduce: out is NULL");
    *out = NULL;
    const char *fn = ra_reduceop_name(op);
    if (!fn) return ra__ctx_error(ctx, RA_E_ARG, "ra_reduce: unknown operation %d", (int)op);
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", fn);
    const ra__layer_ops *layer = ra__layer_of(x, NULL);
    if (layer) return layer->reduce(ctx, op, x, axis, out);
    if (x->dtype == RA_FLOAT16) {
        ra_array *w = NULL, *y = NULL;
        int status = ra__array_cast(ctx, x, RA_FLOAT32, &w);
        if (status == RA_OK) status = ra_reduce(ctx, op, w, axis, &y);
        if (status == RA_OK) status = narrow_half(ctx, &y);
        ra_array_release(w);
        return ra__array_hand_out(status, y, out);
    }
    ra_dtype dtype = x->dtype;
    if (op == RA_MAX) {
        if (dtype == RA_BOOL || ra__dtype_is_complex(dtype))
            return ra__ctx_error(ctx, RA_E_DTYPE, "%s: not defined for %s", fn,
                                 ra_dtype_name(dtype));
    } else if (dtype == RA_BOOL || ra__dtype_is_signed(dtype)) {
        dtype = RA_INT64; /* the standard's default accumulation dtype */
    } else if (ra__dtype_is_unsigned(dtype)) {
        dtype = RA_UINT64;
    }
    size_t outer = 1, len = (size_t)x->size, inner = 1;
    int64_t oshape[RA_MAX_NDIM];
    size_t ondim = 0;
    if (axis) {
        int a = *axis;
        int nd = (int)x->ndim;
        if (nd == 0 || a < -nd || a >= nd)
            return ra__ctx_error(ctx, RA_E_AXIS, "%s: axis %d is out of range for %d dimensions",
                                 fn, a, nd);
        if (a < 0) a += nd;
        outer = (size_t)ra__shape_size(x->shape, (size_t)a);
        len = (size_t)x->shape[a];
        inner = (size_t)ra__shape_size(x->shape + a + 1, x->ndim - (size_t)a - 1);
        for (int i = 0; i < nd; i++)
            if (i != a) oshape[ondim++] = x->shape[i];
    }
    if (op == RA_MAX && len == 0)
        return ra__ctx_error(ctx, RA_E_EMPTY_REDUCTION,
                             "%s: the reduced axis is empty and max has no identity", fn);
    ra__dev *target;
    ra_array *src = NULL;
    int status = ra__common_device(ctx, fn, &x, 1, &target, &src); /* soft mode, as in unary */
    if (status != RA_OK) return status;
    status = cast_in_place(ctx, &src, dtype);
    if (status != RA_OK) {
        ra_array_release(src);
        return status;
    }
    ra_array *y;
    status = ra__array_new(ctx, target, dtype, oshape, ondim, &y);
    if (status != RA_OK) {
        ra_array_release(src);
        return status;
    }
    if (y->size > 0 && len > 0) status = kernel_reduce(ctx, fn, op, src, outer, len, inner, y);
    ra_array_release(src);
    return ra__array_hand_out(status, y, out);
}

int ra_matmul(ra_ctx *ctx, const ra_array *x1, const ra_array *x2, ra_array **out)
{
    static const char fn[] = "matmul";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_matmul: ctx is NULL");
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_matmul: out is NULL");
    *out = NULL;
    if (!x1 || !x2) return ra__ctx_error(ctx, RA_E_NULL, "%s: x1 or x2 is NULL", fn);
    if (x1->ndim == 0 || x2->ndim == 0)
        return ra__ctx_error(ctx, RA_E_SHAPE, "%s: operands must have at least one dimension", fn);
    ra_dtype dtype = ra__dtype_promote(x1->dtype, x2->dtype);
    if (dtype == RA_DTYPE_DEFAULT || dtype == RA_BOOL)
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: not defined for %s and %s", fn,
                             ra_dtype_name(x1->dtype), ra_dtype_name(x2->dtype));
    const ra__layer_ops *layer = ra__layer_of(x1, x2);
    if (layer) return layer->matmul(ctx, x1, x2, out);
    if (x1->dtype == RA_FLOAT16 || x2->dtype == RA_FLOAT16) {
        /* In float32, like every float16 arithmetic (binary_half). */
        ra_array *w1 = NULL, *w2 = NULL, *y = NULL;
        int status = ra__array_cast(ctx, x1, x1->dtype == RA_FLOAT16 ? RA_FLOAT32 : x1->dtype, &w1);
        if (status == RA_OK)
            status = ra__array_cast(ctx, x2, x2->dtype == RA_FLOAT16 ? RA_FLOAT32 : x2->dtype, &w2);
        if (status == RA_OK) status = ra_matmul(ctx, w1, w2, &y);
        if (status == RA_OK && dtype == RA_FLOAT16) status = narrow_half(ctx, &y);
        ra_array_release(w1);
        ra_array_release(w2);
        return ra__array_hand_out(status, y, out);
    }
    /* Matrix views: 1-D x1 is a row (1, k), 1-D x2 a column (k, 1). */
    int64_t n = x1->ndim == 1 ? 1 : x1->shape[x1->ndim - 2];
    int64_t k = x1->shape[x1->ndim - 1];
    int64_t k2 = x2->ndim == 1 ? x2->shape[0] : x2->shape[x2->ndim - 2];
    int64_t m = x2->ndim == 1 ? 1 : x2->shape[x2->ndim - 1];
    if (k != k2)
        return ra__ctx_error(ctx, RA_E_SHAPE, "%s: the inner sizes differ (%lld and %lld)", fn,
                             (long long)k, (long long)k2);
    size_t nb1 = x1->ndim > 2 ? x1->ndim - 2 : 0;
    size_t nb2 = x2->ndim > 2 ? x2->ndim - 2 : 0;
    int64_t bshape[RA_MAX_NDIM];
    size_t nb;
    int status = broadcast(ctx, fn, x1->shape, nb1, x2->shape, nb2, bshape, &nb);
    if (status != RA_OK) return status;
    int64_t oshape[RA_MAX_NDIM];
    size_t ondim = nb;
    memcpy(oshape, bshape, nb * sizeof *bshape);
    if (x1->ndim > 1) oshape[ondim++] = n;
    if (x2->ndim > 1) oshape[ondim++] = m;

    const ra_array *arrays[2] = {x1, x2};
    ra_array *in[2] = {NULL, NULL};
    ra__dev *dev;
    status = ra__common_device(ctx, fn, arrays, 2, &dev, in);
    if (status != RA_OK) return status;
    ra_array *y = NULL;
    status = cast_in_place(ctx, &in[0], dtype);
    if (status == RA_OK) status = cast_in_place(ctx, &in[1], dtype);
    if (status == RA_OK) status = ra__array_new(ctx, dev, dtype, oshape, ondim, &y);
    if (status == RA_OK && y->size > 0) {
        matmul_geom g = {bshape, nb, nb1, nb2, n, k, m};
        status = kernel_matmul(ctx, fn, in[0], in[1], y, &g);
    }
    release_all(in, 2);
    return ra__array_hand_out(status, y, out);
}

int ra_stack(ra_ctx *ctx, const ra_array *const *arrays, size_t n, int axis, ra_array **out)
{
    static const char fn[] = "stack";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_stack: ctx is NULL");
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_stack: out is NULL");
    *out = NULL;
    if (!arrays) return ra__ctx_error(ctx, RA_E_NULL, "%s: arrays is NULL", fn);
    if (n == 0) return ra__ctx_error(ctx, RA_E_ARG, "%s: needs at least one array", fn);
    for (size_t i = 0; i < n; i++)
        if (!arrays[i]) return ra__ctx_error(ctx, RA_E_NULL, "%s: arrays[%zu] is NULL", fn, i);
    for (size_t i = 0; i < n; i++)
        RA__REFUSE_LAYERED(ctx, arrays[i], fn);
    const ra_array *x0 = arrays[0];
    if (x0->ndim + 1 > RA_MAX_NDIM)
        return ra__ctx_error(ctx, RA_E_SHAPE, "%s: the result would exceed %d dimensions", fn,
                             RA_MAX_NDIM);
    ra_dtype dtype = x0->dtype;
    for (size_t i = 1; i < n; i++) {
        const ra_array *xi = arrays[i];
        if (xi->ndim != x0->ndim || memcmp(xi->shape, x0->shape, x0->ndim * sizeof *x0->shape) != 0)
            return ra__ctx_error(ctx, RA_E_SHAPE, "%s: arrays[%zu] has a different shape", fn, i);
        ra_dtype p = ra__dtype_promote(dtype, xi->dtype);
        if (p == RA_DTYPE_DEFAULT)
            return ra__ctx_error(ctx, RA_E_DTYPE, "%s: no promotion between %s and %s", fn,
                                 ra_dtype_name(dtype), ra_dtype_name(xi->dtype));
        dtype = p;
    }
    int nd = (int)x0->ndim;
    if (axis < -nd - 1 || axis > nd)
        return ra__ctx_error(ctx, RA_E_AXIS, "%s: axis %d is out of range for %d dimensions", fn,
                             axis, nd + 1);
    if (axis < 0) axis += nd + 1;
    if (n > (size_t)INT64_MAX / 2)
        return ra__ctx_error(ctx, RA_E_TOO_LARGE, "%s: too many arrays", fn);
    int64_t oshape[RA_MAX_NDIM];
    for (int i = 0, j = 0; i <= nd; i++)
        oshape[i] = i == axis ? (int64_t)n : x0->shape[j++];

    ra_array **in = ra__calloc(ctx, n, sizeof *in);
    if (!in) return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    ra__dev *dev;
    ra_array *y = NULL;
    int status = ra__common_device(ctx, fn, arrays, n, &dev, in);
    if (status != RA_OK) {
        ra__free(ctx, in);
        return status;
    }
    for (size_t i = 0; i < n && status == RA_OK; i++)
        status = cast_in_place(ctx, &in[i], dtype);
    if (status == RA_OK) status = ra__array_new(ctx, dev, dtype, oshape, (size_t)nd + 1, &y);
    if (status != RA_OK || y->size == 0) goto done;
    size_t es = ra_dtype_size(dtype);
    size_t outer = (size_t)ra__shape_size(x0->shape, (size_t)axis);
    size_t row = (size_t)ra__shape_size(x0->shape + axis, (size_t)nd - (size_t)axis) * es;
    status = kernel_stack(ctx, fn, in, n, outer, row, y);
done:
    release_all(in, n);
    ra__free(ctx, in);
    return ra__array_hand_out(status, y, out);
}
