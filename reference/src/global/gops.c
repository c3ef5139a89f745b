/* gops.c: elementwise operations and sum on global arrays, with OneFlow's SBP signatures
 * per placement dimension. */
#include "global.h"

#include <stdio.h>
#include <string.h>

static bool linear_in_both(ra_binop op)
{
    return op == RA_ADD || op == RA_SUBTRACT;
}

/* The sbp pair both operands take along one placement dimension, and the result's. */
static void signature(ra_binop op, ra_sbp a, ra_sbp b, ra_sbp *ta, ra_sbp *tb, ra_sbp *res)
{
    bool ap = a.kind == RA_SBP_PARTIAL_SUM, bp = b.kind == RA_SBP_PARTIAL_SUM;
    *ta = a;
    *tb = b;
    if (ra_sbp_eq(a, b) && (!ap || linear_in_both(op))) {
        *res = a;
        return;
    }
    /* x * y is linear in each operand: a partial sum times a broadcast value is a partial
     * sum; x / y only in x. */
    if ((op == RA_MULTIPLY &&
         ((ap && b.kind == RA_SBP_BROADCAST) || (bp && a.kind == RA_SBP_BROADCAST))) ||
        (op == RA_DIVIDE && ap && b.kind == RA_SBP_BROADCAST)) {
        *res = ra_sbp_partial_sum();
        return;
    }
    /* add/subtract of a partial sum and a broadcast value: the broadcast one becomes a
     * partial sum locally (the first rank keeps it, the others zeros). */
    if (linear_in_both(op) &&
        ((ap && b.kind == RA_SBP_BROADCAST) || (bp && a.kind == RA_SBP_BROADCAST))) {
        *ta = *tb = *res = ra_sbp_partial_sum();
        return;
    }
    if (a.kind == RA_SBP_SPLIT)
        *ta = *tb = *res = a;
    else if (b.kind == RA_SBP_SPLIT)
        *ta = *tb = *res = b;
    else
        *ta = *tb = *res = ra_sbp_broadcast();
}

static ra_dtype binary_dtype(ra_ctx *ctx, ra_binop op, ra_dtype a, ra_dtype b, int *status)
{
    ra_dtype dt[2] = {a, b}, out = RA_DTYPE_DEFAULT;
    *status = ra_result_type(ctx, NULL, 0, dt, 2, &out);
    if (op == RA_EQUAL || op == RA_LESS) out = RA_BOOL;
    return out;
}

int ra_global_binary(ra_gctx *g, ra_binop op, const ra_global *x1, const ra_global *x2,
                     ra_global **out)
{
    static const char fn[] = "ra_global_binary";
    if (!g) return RA_E_NULL;
    int status = RA_OK;
    char a[256], b[256];
    if (!x1 || !x2 || !out) {
        status = rag__error(g, RA_E_NULL, "%s: x1, x2 or out is NULL", fn);
    } else if (!ra_placement_eq(x1->p, x2->p)) {
        ra_placement_format(x1->p, a, sizeof a);
        ra_placement_format(x2->p, b, sizeof b);
        status = rag__error(g, RA_E_DEVICE_MISMATCH,
                            "%s: the operands are on different placements, %s and %s", fn, a, b);
    } else if (x1->ndim != x2->ndim ||
               memcmp(x1->shape, x2->shape, x1->ndim * sizeof *x1->shape) != 0) {
        status = rag__error(g, RA_E_BROADCAST,
                            "%s: global arrays of different shapes (%zu and %zu dimensions); "
                            "global operations need one shape",
                            fn, x1->ndim, x2->ndim);
    }
    ra_dtype dtype = RA_DTYPE_DEFAULT;
    if (status == RA_OK) {
        dtype = binary_dtype(g->ctx, op, x1->dtype, x2->dtype, &status);
        if (status != RA_OK) status = rag__from_ra(g, status, fn);
    }
    uint64_t sig = 0;
    if (status == RA_OK) {
        sig = rag__global_hash(rag__global_hash(RAG_HASH_INIT, x1), x2);
        sig = rag__hash(sig, &op, sizeof op);
    }
    status = rag__agree(g, sig, status, fn);
    if (status != RA_OK) return status;
    size_t nd = x1->p->ndim;
    ra_sbp t1[RA_PLACEMENT_MAX_NDIM], t2[RA_PLACEMENT_MAX_NDIM], res[RA_PLACEMENT_MAX_NDIM];
    for (size_t m = 0; m < nd; m++)
        signature(op, x1->sbp[m], x2->sbp[m], &t1[m], &t2[m], &res[m]);
    ra_global *c1 = NULL, *c2 = NULL;
    status = rag__convert(g, x1, t1, &c1);
    if (status == RA_OK) status = rag__convert(g, x2, t2, &c2);
    ra_array *local = NULL;
    if (status == RA_OK && x1->p->me >= 0) {
        status =
            ra_binary(g->ctx, op, ra_operand_array(c1->local), ra_operand_array(c2->local), &local);
        if (status != RA_OK) status = rag__from_ra(g, status, fn);
    }
    ra_global_release(c1);
    ra_global_release(c2);
    if (status != RA_OK) return status;
    return rag__global_make(g, x1->p, dtype, x1->shape, x1->ndim, res, local, out);
}

static ra_dtype sum_dtype(ra_dtype d)
{
    if (d == RA_BOOL || d == RA_INT8 || d == RA_INT16 || d == RA_INT32 || d == RA_INT64)
        return RA_INT64;
    if (d == RA_UINT8 || d == RA_UINT16 || d == RA_UINT32 || d == RA_UINT64) return RA_UINT64;
    return d;
}

int ra_global_sum(ra_gctx *g, const ra_global *x, const int *axis, ra_global **out)
{
    static const char fn[] = "ra_global_sum";
    if (!g) return RA_E_NULL;
    int status = RA_OK;
    int ax = 0;
    if (!x || !out) {
        status = rag__error(g, RA_E_NULL, "%s: x or out is NULL", fn);
    } else if (axis) {
        ax = *axis < 0 ? *axis + (int)x->ndim : *axis;
        if (ax < 0 || ax >= (int)x->ndim)
            status = rag__error(g, RA_E_AXIS, "%s: axis %d of an array of %zu dimensions", fn,
                                *axis, x->ndim);
    }
    uint64_t sig = 0;
    if (status == RA_OK) {
        sig = rag__global_hash(RAG_HASH_INIT, x);
        int a = axis ? ax : -1;
        sig = rag__hash(sig, &a, sizeof a);
    }
    status = rag__agree(g, sig, status, fn);
    if (status != RA_OK) return status;
    size_t nd = x->p->ndim;
    ra_sbp in[RA_PLACEMENT_MAX_NDIM], res[RA_PLACEMENT_MAX_NDIM];
    for (size_t m = 0; m < nd; m++) {
        in[m] = x->sbp[m];
        res[m] = x->sbp[m];
        if (in[m].kind == RA_SBP_PARTIAL_SUM && x->dtype == RA_BOOL) {
            /* A bool partial_sum is an or, which a sum of the pieces would miscount. */
            in[m] = res[m] = ra_sbp_broadcast();
        } else if (in[m].kind == RA_SBP_SPLIT) {
            if (!axis || in[m].dim == ax)
                res[m] = ra_sbp_partial_sum();
            else if (in[m].dim > ax)
                res[m].dim = in[m].dim - 1;
        }
    }
    ra_global *c = NULL;
    status = rag__convert(g, x, in, &c);
    ra_array *local = NULL;
    if (status == RA_OK && x->p->me >= 0) {
        status = ra_reduce(g->ctx, RA_SUM, c->local, axis ? &ax : NULL, &local);
        if (status != RA_OK) status = rag__from_ra(g, status, fn);
    }
    ra_global_release(c);
    if (status != RA_OK) return status;
    int64_t shape[RA_MAX_NDIM];
    size_t ndim = 0;
    for (size_t d = 0; axis && d < x->ndim; d++)
        if ((int)d != ax) shape[ndim++] = x->shape[d];
    return rag__global_make(g, x->p, sum_dtype(x->dtype), shape, ndim, res, local, out);
}
