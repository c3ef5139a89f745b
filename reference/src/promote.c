/* promote.c: type promotion as rule sets (spec/promotion/: the array API's table and
 * OneFlow's category rules), the out= casting rule, and can_cast and result_type answered
 * from the promotion graph of a device (DEV-DT-2, DEV-DT-3, DEV-DT-4): a device's graph is
 * the context's table restricted to the dtypes the device supports (ra__dtype_on_device).
 * The tables are generated from spec/promotion/ into promote_tables.h; the rules that read
 * them (tiers, readings) are here. */
#include "internal.h"

#include "promote_tables.h"

static int category_of(ra_dtype d)
{
    return ra__dtype_category[d];
}

static int table_of(ra_promotion rules)
{
    return rules == RA_PROMOTION_ARRAY_API ? 0 : 1;
}

ra_dtype ra__dtype_promote(ra_dtype a, ra_dtype b)
{
    if (!ra__dtype_valid(a) || !ra__dtype_valid(b)) return RA_DTYPE_DEFAULT;
    return ra__promote_table[0][a][b];
}

ra_dtype ra__promote_join(const ra_ctx *ctx, ra_dtype a, ra_dtype b)
{
    if (!ra__dtype_valid(a) || !ra__dtype_valid(b)) return RA_DTYPE_DEFAULT;
    return ra__promote_table[table_of(ra_ctx_promotion(ctx))][a][b];
}

int ra_ctx_set_promotion(ra_ctx *ctx, ra_promotion rules)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_ctx_set_promotion: ctx is NULL");
    if (rules != RA_PROMOTION_ARRAY_API && rules != RA_PROMOTION_CATEGORY &&
        rules != RA_PROMOTION_CATEGORY_EXAMPLES)
        return ra__ctx_error(ctx, RA_E_ARG, "ra_ctx_set_promotion: unknown rule set %d",
                             (int)rules);
    atomic_store(&ctx->promotion, (int)rules);
    return RA_OK;
}

ra_promotion ra_ctx_promotion(const ra_ctx *ctx)
{
    return ctx ? (ra_promotion)atomic_load(&((ra_ctx *)ctx)->promotion) : RA_PROMOTION_ARRAY_API;
}

int ra_ctx_set_out_casting(ra_ctx *ctx, ra_out_casting rule)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_ctx_set_out_casting: ctx is NULL");
    if (rule != RA_OUT_CAST_STATED && rule != RA_OUT_CAST_NO_NARROWING &&
        rule != RA_OUT_CAST_ONEFLOW)
        return ra__ctx_error(ctx, RA_E_ARG, "ra_ctx_set_out_casting: unknown rule %d", (int)rule);
    atomic_store(&ctx->out_casting, (int)rule);
    return RA_OK;
}

ra_out_casting ra_ctx_out_casting(const ra_ctx *ctx)
{
    return ctx ? (ra_out_casting)atomic_load(&((ra_ctx *)ctx)->out_casting) : RA_OUT_CAST_STATED;
}

bool ra_dtype_is_floating_point(ra_dtype dtype)
{
    return ra__dtype_valid(dtype) && category_of(dtype) == RA__CAT_FLOATING;
}

bool ra_can_cast_out(const ra_ctx *ctx, ra_dtype result, ra_dtype out)
{
    if (!ra__dtype_valid(result) || !ra__dtype_valid(out)) return false;
    /* OF-OUT-1: the three refusals, by category. */
    if (ra__out_refused[category_of(out)][category_of(result)]) return false;
    /* OF-OUT-4, the guide's examples: no narrowing either. The category table decides, since
     * out= is OneFlow's; a result that promotes to out's dtype fits it. */
    ra_out_casting rule = ra_ctx_out_casting(ctx);
    if (rule == RA_OUT_CAST_NO_NARROWING || rule == RA_OUT_CAST_ONEFLOW)
        return ra__promote_table[1][result][out] == out;
    return true;
}

bool ra__can_cast_out_op(const ra_ctx *ctx, ra_binop op, ra_dtype result, ra_dtype out)
{
    /* OneFlow's `+=` checks no narrowing; its other in-place operators refuse it. */
    if (op == RA_ADD && ra_ctx_out_casting(ctx) == RA_OUT_CAST_ONEFLOW)
        return ra__dtype_valid(result) && ra__dtype_valid(out) &&
               !ra__out_refused[category_of(out)][category_of(result)];
    return ra_can_cast_out(ctx, result, out);
}

/* The dtype an operand counts as, and its tier for the category rules. */
enum { TIER_SCALAR, TIER_ZERO_DIM, TIER_DIMENSIONED };

static int operand_tier(ra_operand x, bool examples)
{
    if (!x.array) return TIER_SCALAR;
    /* The guide's reading of OF-PROM-9 joins 0-d arrays with the dimensioned ones. */
    return x.array->ndim == 0 && !examples ? TIER_ZERO_DIM : TIER_DIMENSIONED;
}

int ra__promote_binary(ra_ctx *ctx, const char *fn, ra_operand x1, ra_operand x2, ra_dtype *out)
{
    ra_promotion rules = ra_ctx_promotion(ctx);
    if (rules == RA_PROMOTION_ARRAY_API) {
        /* API-PROM-1, API-PROM-4: two arrays (0-d or not) join by the table; API-PROM-3: a
         * Python scalar takes the array's dtype (its kind is checked when it is converted). */
        if (x1.array && x2.array) {
            ra_dtype r = ra__promote_table[0][x1.array->dtype][x2.array->dtype];
            if (r == RA_DTYPE_DEFAULT)
                return ra__ctx_error(ctx, RA_E_DTYPE,
                                     "%s: no promotion between %s and %s (the array API's "
                                     "table has none)",
                                     fn, ra_dtype_name(x1.array->dtype),
                                     ra_dtype_name(x2.array->dtype));
            *out = r;
        } else {
            *out = (x1.array ? x1.array : x2.array)->dtype;
        }
        return RA_OK;
    }
    /* OF-PROM-3..7: join each tier, then let a higher category of the 0-d tier, and then of
     * the scalar tier, decide. */
    bool examples = rules == RA_PROMOTION_CATEGORY_EXAMPLES;
    ra_dtype tier[3] = {RA_DTYPE_DEFAULT, RA_DTYPE_DEFAULT, RA_DTYPE_DEFAULT};
    const ra_operand xs[2] = {x1, x2};
    for (int i = 0; i < 2; i++) {
        int t = operand_tier(xs[i], examples);
        ra_dtype d;
        if (xs[i].array) {
            d = xs[i].array->dtype;
        } else {
            ra_scalar_kind k = xs[i].scalar.kind;
            if (k < RA_SCALAR_BOOL || k > RA_SCALAR_COMPLEX)
                return ra__ctx_error(ctx, RA_E_ARG, "%s: scalar of invalid kind %d", fn, (int)k);
            d = ra__category_scalar_dtype[k];
        }
        if (tier[t] == RA_DTYPE_DEFAULT) {
            tier[t] = d;
            continue;
        }
        ra_dtype j = ra__promote_table[1][tier[t]][d];
        if (j == RA_DTYPE_DEFAULT)
            return ra__ctx_error(ctx, RA_E_DTYPE,
                                 "%s: no promotion between %s and %s (no dtype holds both)", fn,
                                 ra_dtype_name(tier[t]), ra_dtype_name(d));
        tier[t] = j;
    }
    ra_dtype r = tier[TIER_DIMENSIONED];
    if (tier[TIER_ZERO_DIM] != RA_DTYPE_DEFAULT &&
        (r == RA_DTYPE_DEFAULT || category_of(tier[TIER_ZERO_DIM]) > category_of(r)))
        r = tier[TIER_ZERO_DIM];
    if (tier[TIER_SCALAR] != RA_DTYPE_DEFAULT &&
        (r == RA_DTYPE_DEFAULT || category_of(tier[TIER_SCALAR]) > category_of(r)))
        r = tier[TIER_SCALAR];
    *out = r;
    return RA_OK;
}

int ra__promote_scalar_element(ra_ctx *ctx, ra_scalar s, ra_dtype dtype, void *elem, const char *fn)
{
    /* Under the category rules a scalar of a lower category is converted into the result
     * (a Python bool into a number is 0 or 1); ra__scalar_to_element checks the rest. */
    if (ra_ctx_promotion(ctx) != RA_PROMOTION_ARRAY_API && s.kind == RA_SCALAR_BOOL &&
        dtype != RA_BOOL)
        s = ra_scalar_int(s.b ? 1 : 0);
    return ra__scalar_to_element(ctx, s, dtype, elem, fn);
}

/* The context's table: from_ casts to `to` when promoting the two gives `to`. */
static bool promotes_to(const ra_ctx *ctx, ra_dtype from_, ra_dtype to)
{
    return from_ == to || ra__promote_join(ctx, from_, to) == to;
}

int ra_can_cast_dtype(ra_ctx *ctx, ra_dtype from_, ra_dtype to, bool *out)
{
    static const char fn[] = "ra_can_cast_dtype";
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    if (!ra__dtype_valid(from_))
        return ra__ctx_error(ctx, RA_E_ARG, "%s: from_ is not a data type (value %d)", fn,
                             (int)from_);
    if (!ra__dtype_valid(to))
        return ra__ctx_error(ctx, RA_E_ARG, "%s: to is not a data type (value %d)", fn, (int)to);
    /* DEV-DT-2: a dtype has no device, so the devices of ctx play no part. */
    *out = promotes_to(ctx, from_, to);
    return RA_OK;
}

int ra_can_cast_array(ra_ctx *ctx, const ra_array *x, ra_dtype to, bool *out)
{
    static const char fn[] = "ra_can_cast_array";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    RA__REFUSE_LAYERED(ctx, x, fn);
    if (!ra__dtype_valid(to))
        return ra__ctx_error(ctx, RA_E_ARG, "%s: to is not a data type (value %d)", fn, (int)to);
    /* DEV-DT-3: the graph of x's device has no node for a dtype the device lacks. x's own
     * dtype is always a node (the array exists there), and the promotion of two nodes is a
     * node (it is one of them, or a wider integer, which every device has). */
    *out = ra__dtype_on_device(x->dev, to) && promotes_to(ctx, x->dtype, to);
    return RA_OK;
}

int ra_result_type(ra_ctx *ctx, const ra_array *const *arrays, size_t narrays,
                   const ra_dtype *dtypes, size_t ndtypes, ra_dtype *out)
{
    static const char fn[] = "ra_result_type";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    if (!arrays && narrays > 0)
        return ra__ctx_error(ctx, RA_E_NULL, "%s: arrays is NULL with narrays %zu", fn, narrays);
    if (!dtypes && ndtypes > 0)
        return ra__ctx_error(ctx, RA_E_NULL, "%s: dtypes is NULL with ndtypes %zu", fn, ndtypes);
    if (narrays + ndtypes == 0)
        return ra__ctx_error(ctx, RA_E_ARG, "%s: at least one array or dtype is required", fn);
    const ra__dev *dev = NULL;
    for (size_t i = 0; i < narrays; i++) {
        if (!arrays[i]) return ra__ctx_error(ctx, RA_E_NULL, "%s: arrays[%zu] is NULL", fn, i);
        RA__REFUSE_LAYERED(ctx, arrays[i], fn);
        if (!dev) {
            dev = arrays[i]->dev;
        } else if (arrays[i]->dev != dev) {
            /* DEV-DT-5 leaves this open; refarray refuses, as its operations do. */
            char a[RA_DEVICE_STR_MAX], b[RA_DEVICE_STR_MAX];
            return ra__ctx_error(ctx, RA_E_DEVICE_MISMATCH,
                                 "%s: arrays[0] is on device '%s' and arrays[%zu] on '%s'; the "
                                 "promotion graph of one device is needed",
                                 fn, ra__device_str(dev->device, a), i,
                                 ra__device_str(arrays[i]->dev->device, b));
        }
    }
    for (size_t i = 0; i < ndtypes; i++) {
        if (!ra__dtype_valid(dtypes[i]))
            return ra__ctx_error(ctx, RA_E_ARG, "%s: dtypes[%zu] is not a data type (value %d)", fn,
                                 i, (int)dtypes[i]);
        /* DEV-DT-4: with arrays, a dtype their device lacks is not in its graph. */
        if (dev && !ra__dtype_on_device(dev, dtypes[i])) {
            char buf[RA_DEVICE_STR_MAX];
            return ra__ctx_error(ctx, RA_E_DTYPE_DEVICE,
                                 "%s: dtypes[%zu] is %s, which device '%s' of the array "
                                 "arguments does not support (no float64)",
                                 fn, i, ra_dtype_name(dtypes[i]), ra__device_str(dev->device, buf));
        }
    }
    ra_dtype r = narrays ? arrays[0]->dtype : dtypes[0];
    const char *first = narrays ? "arrays[0]" : "dtypes[0]";
    for (size_t i = 0; i < narrays + ndtypes; i++) {
        ra_dtype d = i < narrays ? arrays[i]->dtype : dtypes[i - narrays];
        ra_dtype p = ra__promote_join(ctx, r, d);
        if (p == RA_DTYPE_DEFAULT)
            return ra__ctx_error(ctx, RA_E_DTYPE,
                                 "%s: no promotion between %s (from %s onwards) and %s (%s[%zu])",
                                 fn, ra_dtype_name(r), first, ra_dtype_name(d),
                                 i < narrays ? "arrays" : "dtypes", i < narrays ? i : i - narrays);
        r = p;
    }
    *out = r;
    return RA_OK;
}
