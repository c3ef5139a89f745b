/* shard_ops.c: the operations on sharded arrays (TG-EW-*, TG-RED-1): elementwise, unary,
 * reductions combining per-device partials, and matmul with the result's layout decided by
 * the operands' (spec/decisions.md). Each runs the public operation on every piece on its
 * device. The layer's table is at the end: shard.c's slots and these; ra_ctx_create registers
 * it in the context, so shard.c, below this file, never names it. */
#include "shard_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- operations ---- */

/* Computing the pieces must not move them: soft device mode is switched off for the
 * calling thread while they run (a pushed `false`, popped afterwards). */
static int soft_off(ra_ctx *ctx, bool *pushed)
{
    *pushed = false;
    if (!ra_soft_get(ctx)) return RA_OK;
    int status = ra_soft_set(ctx, false);
    if (status == RA_OK) *pushed = true;
    return status;
}

static void soft_restore(ra_ctx *ctx, bool pushed)
{
    if (pushed) ra_soft_unset(ctx);
}

static bool same_tuple(const ra__shard *a, const ra__shard *b)
{
    if (a->n != b->n) return false;
    for (size_t i = 0; i < a->n; i++)
        if (a->pieces[i]->dev != b->pieces[i]->dev) return false;
    return true;
}

/* The n pieces of an operand brought to the result's shared axis `axis` (in result
 * coordinates, ondim axes; RA_SHARD_REPLICATED: no split), cut as ref's pieces are.
 * pieces[i] receives a new reference. */
static int align_operand(ra_ctx *ctx, const char *fn, const ra_array *x, size_t ondim, int axis,
                         const ra__shard *ref, ra_array **pieces)
{
    const ra__shard *s = ra__shard_of(x);
    int lead = (int)(ondim - x->ndim);
    int xaxis = s->axis == RA_SHARD_REPLICATED ? RA_SHARD_REPLICATED : s->axis + lead;
    int status = RA_OK;
    if (xaxis == axis) {
        /* Already split along the shared axis (or both replicated). */
        for (size_t i = 0; i < s->n; i++)
            pieces[i] = ra_array_retain(s->pieces[i]);
        return RA_OK;
    }
    int own = axis - lead; /* the shared axis among x's own axes */
    bool broadcast = own < 0 || x->shape[own] == 1;
    if (s->axis == RA_SHARD_REPLICATED) {
        /* TG-EW-2: a replicated operand is cut along the shared axis on each device, unless it
         * is broadcast along it (then each device uses its whole copy). */
        for (size_t i = 0; i < s->n && status == RA_OK; i++) {
            if (broadcast)
                pieces[i] = ra_array_retain(s->pieces[i]);
            else
                status =
                    ra__slice_to(ctx, s->pieces[i], own, ra__piece_start(ref, i),
                                 ref->pieces[i]->shape[axis - (int)(ondim - ref->pieces[i]->ndim)],
                                 s->pieces[i]->dev, &pieces[i]);
        }
    } else {
        /* TG-EW-2: split along another axis: gathered and split again along the shared one
         * (or copied whole to every device where it is broadcast along it). */
        ra_array *whole = NULL;
        status = ra__shard_gather(ctx, x, ctx->host, &whole);
        for (size_t i = 0; i < s->n && status == RA_OK; i++) {
            if (broadcast)
                status = ra__array_copy_to(ctx, whole, s->pieces[i]->dev, NULL, &pieces[i]);
            else
                status =
                    ra__slice_to(ctx, whole, own, ra__piece_start(ref, i),
                                 ref->pieces[i]->shape[axis - (int)(ondim - ref->pieces[i]->ndim)],
                                 s->pieces[i]->dev, &pieces[i]);
        }
        ra_array_release(whole);
    }
    (void)fn;
    return status;
}

/* TG-EW-1: every array operand of a[2] (NULL for a scalar) sharded over the same tuple; what
 * names the operation in the message. */
static int one_tuple(ra_ctx *ctx, const char *fn, const ra_array *const a[2], const char *what)
{
    char t1[TUPLE_STR_MAX], t2[TUPLE_STR_MAX], b[RA_DEVICE_STR_MAX];
    for (int k = 0; k < 2; k++)
        if (a[k] && !ra__shard_of(a[k]))
            return ra__ctx_error(ctx, RA_E_DEVICE_MISMATCH,
                                 "%s: x%d is sharded over %s and x%d is on the single device "
                                 "'%s'; shard x%d over the same devices (ra_shard) or gather x%d "
                                 "(ra_to_device)",
                                 fn, 2 - k, ra__shard_tuple_str(ra__shard_of(a[1 - k]), t1), k + 1,
                                 ra__device_str(a[k]->dev->device, b), k + 1, 2 - k);
    if (a[0] && a[1] && !same_tuple(ra__shard_of(a[0]), ra__shard_of(a[1])))
        return ra__ctx_error(ctx, RA_E_DEVICE_MISMATCH,
                             "%s: x1 is sharded over %s and x2 over %s; %s needs one device "
                             "tuple (move one with ra_shard_to)",
                             fn, ra__shard_tuple_str(ra__shard_of(a[0]), t1),
                             ra__shard_tuple_str(ra__shard_of(a[1]), t2), what);
    return RA_OK;
}

/* TG-EW-2: operand k (0-based) x, split along an axis the result (oshape, ondim) broadcasts;
 * RA_E_BROADCAST naming both. */
static int split_broadcast(ra_ctx *ctx, const char *fn, const ra_array *x, int k,
                           const int64_t *oshape, size_t ondim)
{
    char s1[160];
    int axis = ra__shard_of(x)->axis;
    return ra__ctx_error(ctx, RA_E_BROADCAST,
                         "%s: x%d is split along axis %d of length %lld, which the result %s "
                         "broadcasts; a split axis cannot be broadcast",
                         fn, k + 1, axis, (long long)x->shape[axis],
                         ra__shape_str(oshape, ondim, s1));
}

/* The two operands' pieces p[k][0..n) (p[k] NULL: none made) released. */
static void release_pieces(ra_ctx *ctx, ra_array **p[2], size_t n)
{
    for (int k = 0; k < 2; k++) {
        if (!p[k]) continue;
        for (size_t i = 0; i < n; i++)
            ra_array_release(p[k][i]);
        ra__free(ctx, p[k]);
    }
}

/* The end of an operation on sharded arrays: the partial results partial[0..n) released
 * (partial NULL: none), then r handed out in *out as an array of shape oshape, or freed when
 * status is not RA_OK. */
static int finish(ra_ctx *ctx, int status, ra_array **partial, size_t n, ra__shard *r,
                  const int64_t *oshape, size_t ondim, ra_array **out)
{
    if (partial)
        for (size_t i = 0; i < n; i++)
            ra_array_release(partial[i]);
    ra__free(ctx, partial);
    if (status != RA_OK) {
        ra__shard_free(ctx, r);
        return status;
    }
    return ra__shard_finish(ctx, r, r->pieces[0]->dtype, oshape, ondim, out);
}

static int shard_binary(ra_ctx *ctx, ra_binop op, ra_operand x1, ra_operand x2, ra_array **out)
{
    const char *fn = ra_binop_name(op);
    const ra_array *a[2] = {x1.array, x2.array};
    int status = one_tuple(ctx, fn, a, "an elementwise operation");
    if (status != RA_OK) return status;
    const ra__shard *s0 = ra__shard_of(a[0] ? a[0] : a[1]);
    size_t n = s0->n;
    /* The result's shape (broadcasting) and the shared axis in its coordinates: the last
     * distinct split axis in operand order (TG-EW-2). */
    int64_t oshape[RA_MAX_NDIM];
    size_t ondim = 0;
    for (int k = 0; k < 2; k++)
        if (a[k] && a[k]->ndim > ondim) ondim = a[k]->ndim;
    for (size_t d = 0; d < ondim; d++) {
        int64_t e = 1;
        for (int k = 0; k < 2; k++) {
            if (!a[k] || d < ondim - a[k]->ndim) continue;
            int64_t v = a[k]->shape[d - (ondim - a[k]->ndim)];
            if (v != 1 && e != 1 && v != e) {
                char s1[160], s2[160];
                return ra__ctx_error(ctx, RA_E_BROADCAST,
                                     "%s: shapes %s and %s cannot be broadcast together", fn,
                                     ra__shape_str(a[0]->shape, a[0]->ndim, s1),
                                     ra__shape_str(a[1]->shape, a[1]->ndim, s2));
            }
            if (v != 1) e = v;
        }
        oshape[d] = e;
    }
    int axis = RA_SHARD_REPLICATED;
    const ra__shard *ref = NULL;
    for (int k = 0; k < 2; k++) {
        if (!a[k] || ra__shard_of(a[k])->axis == RA_SHARD_REPLICATED) continue;
        int ax = ra__shard_of(a[k])->axis + (int)(ondim - a[k]->ndim);
        if (a[k]->shape[ra__shard_of(a[k])->axis] != oshape[ax]) {
            return split_broadcast(ctx, fn, a[k], k, oshape, ondim);
        }
        if (ax != axis) {
            axis = ax;
            ref = ra__shard_of(a[k]);
        }
    }
    if (ref && axis == RA_SHARD_REPLICATED) ref = NULL;
    ra_array **p[2] = {NULL, NULL};
    ra__shard *r = NULL;
    bool pushed = false;
    for (int k = 0; k < 2 && status == RA_OK; k++)
        if (a[k] && !(p[k] = ra__calloc(ctx, n, sizeof *p[k])))
            status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    if (status == RA_OK) r = ra__shard_alloc(ctx, n, axis, ref ? ref->uneven : s0->uneven);
    if (status == RA_OK && !r) status = RA_E_NOMEM;
    for (int k = 0; k < 2 && status == RA_OK; k++)
        if (a[k]) status = align_operand(ctx, fn, a[k], ondim, axis, ref, p[k]);
    if (status == RA_OK) status = soft_off(ctx, &pushed);
    /* TG-EW-3: piece i on device i from piece i of each operand. */
    for (size_t i = 0; i < n && status == RA_OK; i++) {
        ra_operand o1 = p[0] ? ra_operand_array(p[0][i]) : x1;
        ra_operand o2 = p[1] ? ra_operand_array(p[1][i]) : x2;
        status = ra_binary(ctx, op, o1, o2, &r->pieces[i]);
    }
    soft_restore(ctx, pushed);
    release_pieces(ctx, p, n);
    return finish(ctx, status, NULL, 0, r, oshape, ondim, out);
}

static int shard_unary(ra_ctx *ctx, ra_unop op, const ra_array *x, ra_array **out)
{
    const ra__shard *s = ra__shard_of(x);
    ra__shard *r = ra__shard_alloc(ctx, s->n, s->axis, s->uneven);
    if (!r) return RA_E_NOMEM;
    bool pushed;
    int status = soft_off(ctx, &pushed);
    for (size_t i = 0; i < s->n && status == RA_OK; i++)
        status = ra_unary(ctx, op, s->pieces[i], &r->pieces[i]);
    soft_restore(ctx, pushed);
    if (status != RA_OK) {
        ra__shard_free(ctx, r);
        return status;
    }
    return ra__shard_finish(ctx, r, r->pieces[0]->dtype, x->shape, x->ndim, out);
}

/* The partial results of a reduction over the split axis (partial[i] on piece i's device,
 * NULL for a piece that takes no part) meet on the tuple's first device and are combined there
 * with op (added for a sum, the maximum for max); the total is then copied to every other
 * device, so r's pieces hold it replicated, as after an all-reduce (TG-RED-1). */
static int combine_partials(ra_ctx *ctx, ra_binop op, ra_array **partial, const ra__shard *s,
                            ra__shard *r)
{
    ra__dev *first = s->pieces[0]->dev;
    ra_array *total = NULL;
    int status = RA_OK;
    for (size_t i = 0; i < s->n && status == RA_OK; i++) {
        if (!partial[i]) continue;
        ra_array *here = NULL, *next = NULL;
        status = ra__array_copy_to(ctx, partial[i], first, NULL, &here);
        if (status == RA_OK && !total) {
            total = here;
            continue;
        }
        if (status == RA_OK)
            status = ra_binary(ctx, op, ra_operand_array(total), ra_operand_array(here), &next);
        ra_array_release(here);
        ra_array_release(total);
        total = next;
    }
    for (size_t i = 0; i < s->n && status == RA_OK; i++)
        status = i == 0 ? (r->pieces[0] = ra_array_retain(total), RA_OK)
                        : ra__array_copy_to(ctx, total, s->pieces[i]->dev, NULL, &r->pieces[i]);
    ra_array_release(total);
    return status;
}

static int shard_reduce(ra_ctx *ctx, ra_reduceop op, const ra_array *x, const int *axis,
                        ra_array **out)
{
    const char *fn = ra_reduceop_name(op);
    const ra__shard *s = ra__shard_of(x);
    int nd = (int)x->ndim, a = 0;
    if (axis) {
        if (nd == 0 || *axis < -nd || *axis >= nd)
            return ra__ctx_error(ctx, RA_E_AXIS, "%s: axis %d is out of range for %d dimensions",
                                 fn, *axis, nd);
        a = *axis < 0 ? *axis + nd : *axis;
    }
    int64_t oshape[RA_MAX_NDIM];
    size_t ondim = 0;
    if (axis)
        for (int i = 0; i < nd; i++)
            if (i != a) oshape[ondim++] = x->shape[i];
    bool split = s->axis != RA_SHARD_REPLICATED;
    /* TG-RED-1: a reduction over the split axis needs the partial results combined. */
    bool combine = split && (!axis || a == s->axis);
    if (op == RA_MAX && combine) {
        /* max has no identity: an empty whole is the unsharded error, and empty pieces take
         * no part in the combination. */
        int64_t len = axis ? x->shape[a] : x->size;
        if (len == 0)
            return ra__ctx_error(ctx, RA_E_EMPTY_REDUCTION,
                                 "%s: the reduced axis is empty and max has no identity", fn);
    }
    int raxis = !split    ? RA_SHARD_REPLICATED
                : combine ? RA_SHARD_REPLICATED
                          : s->axis - (axis && a < s->axis ? 1 : 0);
    ra__shard *r = ra__shard_alloc(ctx, s->n, raxis, s->uneven);
    if (!r) return RA_E_NOMEM;
    ra_array **partial = ra__calloc(ctx, s->n, sizeof *partial);
    bool pushed = false;
    int status = partial ? RA_OK : ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    if (status == RA_OK) status = soft_off(ctx, &pushed);
    /* Each piece reduces on its own device. */
    for (size_t i = 0; i < s->n && status == RA_OK; i++) {
        const ra_array *p = s->pieces[i];
        if (op == RA_MAX && combine && p->size == 0) continue;
        status = ra_reduce(ctx, op, p, axis, &partial[i]);
    }
    if (status == RA_OK && !combine) {
        for (size_t i = 0; i < s->n; i++) {
            r->pieces[i] = partial[i];
            partial[i] = NULL;
        }
    } else if (status == RA_OK) {
        status = combine_partials(ctx, op == RA_SUM ? RA_ADD : RA_MAXIMUM, partial, s, r);
    }
    soft_restore(ctx, pushed);
    return finish(ctx, status, partial, s->n, r, oshape, ondim, out);
}

/* ---- matmul ---- */

/* matmul of sharded operands is read as tinygrad computes it: x1 @ x2 is the elementwise
 * product of x1 viewed as (..., n, 1, k) and x2 transposed, viewed as (..., 1, m, k), summed
 * over k. The operands' split axes are placed in that product's axes (the batch axes, n, m,
 * then k) and the elementwise rule chooses the shared one, the last distinct split axis in
 * operand order (TG-EW-2); the sum over k then follows TG-RED-1. So piece i is
 * x1's piece i @ x2's piece i on device i, the operands cut along the shared axis: split
 * along a batch axis, n or m, the result keeps that split; split along k, each device holds
 * a partial product and the partials are added and replicated, as an all-reduce leaves
 * them. Neither split: every device multiplies its whole copies and the result is
 * replicated. */

enum { ROLE_NONE = -1 };

/* The product axis of operand k's split axis: a batch axis (0 .. nb-1, result batch
 * coordinates), nb for n, nb + 1 for m, nb + 2 for k; ROLE_NONE when replicated. */
static int matmul_role(const ra_array *x, int operand, size_t nb)
{
    int a = ra__shard_of(x)->axis, nd = (int)x->ndim;
    if (a == RA_SHARD_REPLICATED) return ROLE_NONE;
    if (nd == 1) return (int)nb + 2;
    if (operand == 0) {
        if (a == nd - 1) return (int)nb + 2;
        if (a == nd - 2) return (int)nb;
    } else {
        if (a == nd - 2) return (int)nb + 2;
        if (a == nd - 1) return (int)nb + 1;
    }
    return a + (int)nb - (nd - 2);
}

/* Operand k's own axis for the product axis role; -1 where the operand has none (a batch
 * axis it lacks, or m for x1 and n for x2). */
static int matmul_own_axis(const ra_array *x, int operand, size_t nb, int role)
{
    int nd = (int)x->ndim;
    if (role == (int)nb + 2) return nd == 1 ? 0 : operand == 0 ? nd - 1 : nd - 2;
    if (nd == 1) return -1;
    if (role == (int)nb) return operand == 0 ? nd - 2 : -1;
    if (role == (int)nb + 1) return operand == 1 ? nd - 1 : -1;
    int own = role - ((int)nb - (nd - 2));
    return own >= 0 && own < nd - 2 ? own : -1;
}

/* The n pieces of operand x for device i, cut along its own axis `own` as ref's pieces are
 * cut along theirs, or whole on every device when own is -1 or x is broadcast there (its
 * length is not the product axis's length len). pieces[i] receives a new reference. */
static int matmul_operand(ra_ctx *ctx, const ra_array *x, int own, int64_t len,
                          const ra__shard *ref, ra_array **pieces)
{
    const ra__shard *s = ra__shard_of(x);
    bool whole = own < 0 || x->shape[own] != len;
    if (!whole && s->axis == own) {
        for (size_t i = 0; i < s->n; i++)
            pieces[i] = ra_array_retain(s->pieces[i]);
        return RA_OK;
    }
    if (whole && s->axis == RA_SHARD_REPLICATED) {
        for (size_t i = 0; i < s->n; i++)
            pieces[i] = ra_array_retain(s->pieces[i]);
        return RA_OK;
    }
    /* A replicated operand is cut on each device from its own copy; a split one is gathered
     * once and then copied (whole) or cut for each device. */
    ra_array *gathered = NULL;
    int status = RA_OK;
    if (s->axis != RA_SHARD_REPLICATED) status = ra__shard_gather(ctx, x, ctx->host, &gathered);
    for (size_t i = 0; i < s->n && status == RA_OK; i++) {
        const ra_array *src = gathered ? gathered : s->pieces[i];
        if (whole)
            status = ra__array_copy_to(ctx, src, s->pieces[i]->dev, NULL, &pieces[i]);
        else
            status = ra__slice_to(ctx, src, own, ra__piece_start(ref, i),
                                  ref->pieces[i]->shape[ref->axis], s->pieces[i]->dev, &pieces[i]);
    }
    ra_array_release(gathered);
    return status;
}

/* matmul's logical shapes, checked as the unsharded matmul checks them: the inner size k, the
 * batch axes nb and the result's shape. */
static int matmul_shape(ra_ctx *ctx, const char *fn, const ra_array *x1, const ra_array *x2,
                        int64_t *k, size_t *nbatch, int64_t *oshape, size_t *ondim)
{
    int64_t k1 = x1->shape[x1->ndim - 1];
    int64_t k2 = x2->ndim == 1 ? x2->shape[0] : x2->shape[x2->ndim - 2];
    if (k1 != k2)
        return ra__ctx_error(ctx, RA_E_SHAPE, "%s: the inner sizes differ (%lld and %lld)", fn,
                             (long long)k1, (long long)k2);
    size_t nb1 = x1->ndim > 2 ? x1->ndim - 2 : 0, nb2 = x2->ndim > 2 ? x2->ndim - 2 : 0;
    size_t nb = nb1 > nb2 ? nb1 : nb2;
    size_t nd = 0;
    for (size_t d = 0; d < nb; d++) {
        int64_t e1 = d < nb - nb1 ? 1 : x1->shape[d - (nb - nb1)];
        int64_t e2 = d < nb - nb2 ? 1 : x2->shape[d - (nb - nb2)];
        if (e1 != e2 && e1 != 1 && e2 != 1) {
            char s1[160], s2[160];
            return ra__ctx_error(ctx, RA_E_BROADCAST,
                                 "%s: the batch shapes of %s and %s cannot be broadcast together",
                                 fn, ra__shape_str(x1->shape, x1->ndim, s1),
                                 ra__shape_str(x2->shape, x2->ndim, s2));
        }
        oshape[nd++] = e1 == 1 ? e2 : e1;
    }
    if (x1->ndim > 1) oshape[nd++] = x1->shape[x1->ndim - 2];
    if (x2->ndim > 1) oshape[nd++] = x2->shape[x2->ndim - 1];
    *k = k1;
    *nbatch = nb;
    *ondim = nd;
    return RA_OK;
}

static int shard_matmul(ra_ctx *ctx, const ra_array *x1, const ra_array *x2, ra_array **out)
{
    static const char fn[] = "matmul";
    const ra_array *a[2] = {x1, x2};
    int64_t k1 = 0, oshape[RA_MAX_NDIM];
    size_t nb = 0, ondim = 0;
    int status = one_tuple(ctx, fn, a, "matmul");
    if (status == RA_OK) status = matmul_shape(ctx, fn, x1, x2, &k1, &nb, oshape, &ondim);
    if (status != RA_OK) return status;
    /* The shared product axis: the last distinct split axis in operand order (TG-EW-2). */
    int role = ROLE_NONE;
    const ra__shard *ref = NULL;
    for (int k = 0; k < 2; k++) {
        int r = matmul_role(a[k], k, nb);
        if (r == ROLE_NONE) continue;
        if (r < (int)nb && a[k]->shape[ra__shard_of(a[k])->axis] != oshape[r]) {
            return split_broadcast(ctx, fn, a[k], k, oshape, ondim);
        }
        role = r;
        ref = ra__shard_of(a[k]);
    }
    bool contract = role == (int)nb + 2;
    int raxis = role == ROLE_NONE || contract ? RA_SHARD_REPLICATED
                : role < (int)nb              ? role
                : role == (int)nb             ? (int)nb
                                              : (int)nb + (x1->ndim > 1 ? 1 : 0);
    size_t n = ra__shard_of(x1)->n;
    ra_array **p[2] = {NULL, NULL}, **partial = NULL;
    ra__shard *r = ra__shard_alloc(ctx, n, raxis, ref ? ref->uneven : ra__shard_of(x1)->uneven);
    bool pushed = false;
    status = r ? RA_OK : RA_E_NOMEM;
    for (int k = 0; k < 2 && status == RA_OK; k++)
        if (!(p[k] = ra__calloc(ctx, n, sizeof *p[k])))
            status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    if (status == RA_OK && !(partial = ra__calloc(ctx, n, sizeof *partial)))
        status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    int64_t len = role == ROLE_NONE ? 0 : contract ? k1 : oshape[raxis];
    for (int k = 0; k < 2 && status == RA_OK; k++)
        status = matmul_operand(
            ctx, a[k], role == ROLE_NONE ? -1 : matmul_own_axis(a[k], k, nb, role), len, ref, p[k]);
    if (status == RA_OK) status = soft_off(ctx, &pushed);
    /* Piece i on device i. */
    for (size_t i = 0; i < n && status == RA_OK; i++)
        status = ra_matmul(ctx, p[0][i], p[1][i], &partial[i]);
    if (status == RA_OK && contract) {
        status = combine_partials(ctx, RA_ADD, partial, ra__shard_of(x1), r);
    } else if (status == RA_OK) {
        for (size_t i = 0; i < n; i++) {
            r->pieces[i] = partial[i];
            partial[i] = NULL;
        }
    }
    soft_restore(ctx, pushed);
    release_pieces(ctx, p, n);
    return finish(ctx, status, partial, n, r, oshape, ondim, out);
}

/* ---- the layer ---- */

const ra__layer_ops ra__shard_layer = {
    .kind = RA__LAYER_SHARD,
    .binary = shard_binary,
    .unary = shard_unary,
    .reduce = shard_reduce,
    .matmul = shard_matmul,
    .to_device = ra__shard_to_device,
    .read = ra__shard_read,
    .refuse = ra__shard_refuse,
    .free = ra__shard_free,
};
