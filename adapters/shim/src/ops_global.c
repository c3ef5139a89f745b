/*
 * ops_global.c: OneFlow's placements, sbp and global arrays (global.*, version 3 slots).
 */
#include "ops.h"

#include <stdlib.h>
#include <string.h>

/* A placement argument: {"type": "cpu", "ranks": [0, 1]} or ranks [[0, 1], [2, 3]]. The
 * arrays are allocated here and freed with placement_clear. */
typedef struct placement_buf {
    ds_placement_arg arg;
    int64_t *ranks;
    size_t *row_len;
} placement_buf;

static void placement_clear(placement_buf *b)
{
    ds__free(b->ranks);
    ds__free(b->row_len);
    memset(b, 0, sizeof *b);
}

static int placement_decode(const ds__req *r, const cJSON *v, const char *name, bool ranks_needed,
                            placement_buf *b)
{
    memset(b, 0, sizeof *b);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(v, "type");
    const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(v, "ranks");
    if (!cJSON_IsObject(v) || !cJSON_IsString(type))
        return ds__fail(r->e, PROTO, "TypeError",
                        "%s: argument '%s' must be {\"type\": string, \"ranks\": list}", r->op,
                        name);
    for (const cJSON *k = v->child; k; k = k->next)
        if (strcmp(k->string, "type") != 0 && strcmp(k->string, "ranks") != 0)
            return ds__fail(r->e, PROTO, "TypeError", "%s: argument '%s' has an unknown key '%s'",
                            r->op, name, k->string);
    b->arg.type = type->valuestring;
    if (ds__string_for_library(r, name, b->arg.type) < 0) return -1;
    if (!ranks && !ranks_needed) return 0;
    if (!cJSON_IsArray(ranks))
        return ds__fail(r->e, PROTO, "TypeError", "%s: %s.ranks must be a list", r->op, name);
    int n = cJSON_GetArraySize(ranks);
    bool nested = n > 0 && cJSON_IsArray(ranks->child);
    size_t total = 0;
    for (const cJSON *e = ranks->child; e; e = e->next)
        total += nested && cJSON_IsArray(e) ? (size_t)cJSON_GetArraySize(e) : 1;
    b->ranks = ds__calloc(total + 1, sizeof *b->ranks);
    b->row_len = nested ? ds__calloc((size_t)n + 1, sizeof *b->row_len) : NULL;
    if (!b->ranks || (nested && !b->row_len)) {
        placement_clear(b);
        return ds__oom(r);
    }
    size_t k = 0, row = 0;
    for (const cJSON *e = ranks->child; e; e = e->next, row++) {
        if (nested != cJSON_IsArray(e)) {
            placement_clear(b);
            return ds__fail(r->e, PROTO, "TypeError", "%s: %s.ranks mixes ranks and lists of ranks",
                            r->op, name);
        }
        const cJSON *items = nested ? e->child : e;
        for (const cJSON *x = items; x; x = nested ? x->next : NULL) {
            if (!ds__is_int(x)) {
                placement_clear(b);
                return ds__fail(r->e, PROTO, "TypeError", "%s: %s.ranks holds a non-integer", r->op,
                                name);
            }
            b->ranks[k++] = (int64_t)x->valuedouble;
            if (nested) b->row_len[row]++;
        }
    }
    b->arg.ranks = b->ranks;
    b->arg.nranks = k;
    b->arg.row_len = b->row_len;
    b->arg.nrows = nested ? (size_t)n : 0;
    return 0;
}

/* An sbp argument: {"split": dim}, "broadcast" or "partial_sum". */
static int sbp_decode(const ds__req *r, const cJSON *v, const char *name, ds_sbp_arg *out)
{
    if (cJSON_IsString(v) && strcmp(v->valuestring, "broadcast") == 0) {
        *out = (ds_sbp_arg){DS_SBP_BROADCAST, 0};
        return 0;
    }
    if (cJSON_IsString(v) && strcmp(v->valuestring, "partial_sum") == 0) {
        *out = (ds_sbp_arg){DS_SBP_PARTIAL_SUM, 0};
        return 0;
    }
    const cJSON *dim = cJSON_GetObjectItemCaseSensitive(v, "split");
    if (cJSON_IsObject(v) && cJSON_GetArraySize(v) == 1 && ds__is_int(dim)) {
        *out = (ds_sbp_arg){DS_SBP_SPLIT, (int64_t)dim->valuedouble};
        return 0;
    }
    return ds__fail(r->e, PROTO, "TypeError",
                    "%s: %s must be {\"split\": int}, \"broadcast\" or \"partial_sum\"", r->op,
                    name);
}

static int sbp_list_value(const ds__req *r, const cJSON *v, const char *name, ds_sbp_arg *out,
                          size_t *n)
{
    *n = 0;
    if (!v || cJSON_IsNull(v)) return 0;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1 || cJSON_GetArraySize(v) > DS_MAX_SBP)
        return ds__fail(r->e, PROTO, "TypeError", "%s: %s must be a list of 1 or %d sbp values",
                        r->op, name, DS_MAX_SBP);
    for (const cJSON *e = v->child; e; e = e->next)
        if (sbp_decode(r, e, name, &out[(*n)++]) < 0) return -1;
    return 0;
}

static int sbp_list_decode(const ds__req *r, const char *name, ds_sbp_arg *out, size_t *n)
{
    return sbp_list_value(r, ds__arg(r, name), name, out, n);
}

static cJSON *placement_json(const ds_placement_info *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *shape = cJSON_CreateArray();
    bool ok = o && ds__put(o, "str", cJSON_CreateString(p->str)) &&
              ds__put(o, "type", cJSON_CreateString(p->type)) && ds__put(o, "shape", shape);
    for (int i = 0; ok && i < p->ndim && i < DS_MAX_SBP; i++)
        ok = ds__push(shape, cJSON_CreateNumber((double)p->shape[i]));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int ds__op_global_placement(const ds__req *r, cJSON **result)
{
    const char *type, *all = NULL;
    if (ds__arg_string(r, "type", &type) < 0) return -1;
    const cJSON *allv = ds__arg(r, "all");
    if (allv && !cJSON_IsNull(allv)) {
        if (!cJSON_IsString(allv) || (strcmp(allv->valuestring, "placement.all") != 0 &&
                                      strcmp(allv->valuestring, "env.all_device_placement") != 0))
            return ds__fail(r->e, PROTO, "TypeError",
                            "%s: all must be \"placement.all\" or \"env.all_device_placement\"",
                            r->op);
        all = allv->valuestring;
    }
    cJSON *spec = cJSON_CreateObject();
    if (!spec || !ds__put(spec, "type", cJSON_CreateString(type))) {
        cJSON_Delete(spec);
        return ds__oom(r);
    }
    const cJSON *ranks = ds__arg(r, "ranks");
    if (ranks && !ds__put(spec, "ranks", cJSON_Duplicate(ranks, true))) {
        cJSON_Delete(spec);
        return ds__oom(r);
    }
    placement_buf b;
    int rc = placement_decode(r, spec, "ranks", all == NULL, &b);
    if (rc < 0) {
        cJSON_Delete(spec);
        return -1;
    }
    ds_placement_info info;
    memset(&info, 0, sizeof info);
    /* b.arg.type points into spec, which lives until after the call. */
    rc = CALL(r, placement_describe, &b.arg, all != NULL,
              all != NULL && strcmp(all, "env.all_device_placement") == 0, &info);
    placement_clear(&b);
    cJSON_Delete(spec);
    if (rc < 0) return -1;
    *result = placement_json(&info);
    return *result ? 0 : ds__oom(r);
}

int ds__op_global_placement_equal(const ds__req *r, cJSON **result)
{
    placement_buf a, b;
    bool eq = false;
    if (!ds__arg(r, "a")) return ds__arg_missing(r, "a");
    if (!ds__arg(r, "b")) return ds__arg_missing(r, "b");
    if (placement_decode(r, ds__arg(r, "a"), "a", true, &a) < 0) return -1;
    if (placement_decode(r, ds__arg(r, "b"), "b", true, &b) < 0) {
        placement_clear(&a);
        return -1;
    }
    int rc = CALL(r, placement_equal, &a.arg, &b.arg, &eq);
    placement_clear(&a);
    placement_clear(&b);
    if (rc < 0) return -1;
    *result = cJSON_CreateBool(eq);
    return *result ? 0 : ds__oom(r);
}

int ds__op_global_sbp(const ds__req *r, cJSON **result)
{
    ds_sbp_arg s;
    char text[128] = "";
    if (!ds__arg(r, "sbp")) return ds__arg_missing(r, "sbp");
    if (sbp_decode(r, ds__arg(r, "sbp"), "sbp", &s) < 0 ||
        CALL(r, sbp_describe, s, text, sizeof text) < 0)
        return -1;
    *result = cJSON_CreateString(text);
    return *result ? 0 : ds__oom(r);
}

/* global.make's result (also global.binary's and global.sum's). */
static int global_json(const ds__req *r, const ds_global_info *info, cJSON **out)
{
    cJSON *local = NULL, *value = NULL;
    if (ds__buffer_encode(&info->local, DS_PROTOCOL_MAX_REPLY, &local, r->e) < 0 ||
        ds__buffer_encode(&info->value, DS_PROTOCOL_MAX_REPLY, &value, r->e) < 0) {
        cJSON_Delete(local);
        return -1;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON *shape = cJSON_CreateArray(), *sbps = cJSON_CreateArray();
    if (!o) {
        cJSON_Delete(shape);
        cJSON_Delete(sbps);
        cJSON_Delete(local);
        cJSON_Delete(value);
        return ds__oom(r);
    }
    /* ds__put attaches an item or frees it, so each is put whatever came before. */
    bool ok = ds__put(o, "shape", shape);
    ok = ds__put(o, "sbp", sbps) && ok;
    ok = ds__put(o, "dtype", cJSON_CreateString(ds_dtype_name(info->dtype))) && ok;
    ok = ds__put(o, "placement", cJSON_CreateString(info->placement)) && ok;
    ok = ds__put(o, "local", local) && ok;
    ok = ds__put(o, "value", value) && ok;
    for (int i = 0; ok && i < info->ndim; i++)
        ok = ds__push(shape, cJSON_CreateNumber((double)info->shape[i]));
    for (size_t i = 0; ok && i < info->nsbp && i < DS_MAX_SBP; i++)
        ok = ds__push(sbps, cJSON_CreateString(info->sbp[i]));
    if (!ok) {
        cJSON_Delete(o);
        return ds__oom(r);
    }
    *out = o;
    return 0;
}

int ds__op_global_make(const ds__req *r, cJSON **result)
{
    ds_sbp_arg sbp[DS_MAX_SBP], to[DS_MAX_SBP];
    size_t nsbp = 0, nto = 0, npieces = 0;
    placement_buf pb;
    ds_buffer *pieces = NULL;
    ds_global_info info;
    memset(&info, 0, sizeof info);
    const cJSON *value = ds__arg(r, "value"), *locals = ds__arg(r, "locals");
    if (!ds__arg(r, "placement")) return ds__arg_missing(r, "placement");
    if (!ds__arg(r, "sbp")) return ds__arg_missing(r, "sbp");
    if ((value != NULL) == (locals != NULL))
        return ds__fail(r->e, PROTO, "TypeError", "%s: give exactly one of value and locals",
                        r->op);
    if (locals && (!cJSON_IsArray(locals) || cJSON_GetArraySize(locals) < 1))
        return ds__fail(r->e, PROTO, "TypeError", "%s: locals must be a non-empty list", r->op);
    if (sbp_list_decode(r, "sbp", sbp, &nsbp) < 0 || sbp_list_decode(r, "to", to, &nto) < 0)
        return -1;
    if (placement_decode(r, ds__arg(r, "placement"), "placement", true, &pb) < 0) return -1;
    size_t want = locals ? (size_t)cJSON_GetArraySize(locals) : 1;
    pieces = ds__calloc(want, sizeof *pieces);
    int rc = pieces ? 0 : ds__oom(r);
    for (const cJSON *e = locals ? locals->child : value; rc == 0 && e;
         e = locals ? e->next : NULL) {
        rc = ds__buffer_decode(e, locals ? "locals" : "value", &pieces[npieces], r->e);
        if (rc == 0) npieces++;
    }
    if (rc == 0)
        rc = CALL(r, global_make, pieces, npieces, locals != NULL, &pb.arg, sbp, nsbp, to, nto,
                  &info);
    cJSON *o = NULL;
    if (rc == 0) rc = global_json(r, &info, &o);
    for (size_t i = 0; i < npieces; i++)
        ds__buffer_clear(&pieces[i]);
    ds__free(pieces);
    ds__buffer_clear(&info.local);
    ds__buffer_clear(&info.value);
    placement_clear(&pb);
    if (rc < 0) return -1;
    *result = o;
    return 0;
}

/* A global array argument of global.binary and global.sum: {"value" or "locals",
 * "placement", "sbp"}, decoded as global.make decodes its arguments; freed with
 * global_clear. */
typedef struct global_buf {
    ds_global_arg arg;
    placement_buf pb;
    ds_buffer *pieces;
    size_t npieces;
    ds_sbp_arg sbp[DS_MAX_SBP];
} global_buf;

static void global_clear(global_buf *g)
{
    for (size_t i = 0; i < g->npieces; i++)
        ds__buffer_clear(&g->pieces[i]);
    ds__free(g->pieces);
    placement_clear(&g->pb);
    memset(g, 0, sizeof *g);
}

static int global_decode(const ds__req *r, const char *name, global_buf *g)
{
    memset(g, 0, sizeof *g);
    const cJSON *v = ds__arg(r, name);
    if (!v) return ds__arg_missing(r, name);
    if (!cJSON_IsObject(v))
        return ds__fail(r->e, PROTO, "TypeError",
                        "%s: %s must be {\"value\" or \"locals\", \"placement\", \"sbp\"}", r->op,
                        name);
    for (const cJSON *k = v->child; k; k = k->next)
        if (strcmp(k->string, "value") != 0 && strcmp(k->string, "locals") != 0 &&
            strcmp(k->string, "placement") != 0 && strcmp(k->string, "sbp") != 0)
            return ds__fail(r->e, PROTO, "TypeError", "%s: %s has an unknown key '%s'", r->op, name,
                            k->string);
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(v, "value");
    const cJSON *locals = cJSON_GetObjectItemCaseSensitive(v, "locals");
    const cJSON *placement = cJSON_GetObjectItemCaseSensitive(v, "placement");
    const cJSON *sbp = cJSON_GetObjectItemCaseSensitive(v, "sbp");
    if ((value != NULL) == (locals != NULL))
        return ds__fail(r->e, PROTO, "TypeError",
                        "%s: %s must give exactly one of value and locals", r->op, name);
    if (locals && (!cJSON_IsArray(locals) || cJSON_GetArraySize(locals) < 1))
        return ds__fail(r->e, PROTO, "TypeError", "%s: %s.locals must be a non-empty list", r->op,
                        name);
    if (!placement || !sbp)
        return ds__fail(r->e, PROTO, "TypeError", "%s: %s needs placement and sbp", r->op, name);
    if (sbp_list_value(r, sbp, name, g->sbp, &g->arg.nsbp) < 0) return -1;
    if (placement_decode(r, placement, name, true, &g->pb) < 0) return -1;
    size_t want = locals ? (size_t)cJSON_GetArraySize(locals) : 1;
    g->pieces = ds__calloc(want, sizeof *g->pieces);
    if (!g->pieces) {
        global_clear(g);
        return ds__oom(r);
    }
    for (const cJSON *e = locals ? locals->child : value; e; e = locals ? e->next : NULL) {
        if (ds__buffer_decode(e, name, &g->pieces[g->npieces], r->e) < 0) {
            global_clear(g);
            return -1;
        }
        g->npieces++;
    }
    g->arg.pieces = g->pieces;
    g->arg.npieces = g->npieces;
    g->arg.from_local = locals != NULL;
    g->arg.placement = &g->pb.arg;
    g->arg.sbp = g->sbp;
    return 0;
}

/* Finishes global.binary and global.sum: the result, and every buffer freed. */
static int global_finish(const ds__req *r, int rc, ds_global_info *info, cJSON **result)
{
    cJSON *o = NULL;
    if (rc == 0) rc = global_json(r, info, &o);
    ds__buffer_clear(&info->local);
    ds__buffer_clear(&info->value);
    if (rc < 0) return -1;
    *result = o;
    return 0;
}

int ds__op_global_binary(const ds__req *r, cJSON **result)
{
    static const ds__fn_name fns[] = {DS__FNS_GLOBAL_BINARY(DS__FN_ROW){NULL, 0}};
    int which;
    if (ds__arg_fn(r, fns, &which) < 0) return -1;
    global_buf a, b;
    if (global_decode(r, "x1", &a) < 0) return -1;
    if (global_decode(r, "x2", &b) < 0) {
        global_clear(&a);
        return -1;
    }
    ds_global_info info;
    memset(&info, 0, sizeof info);
    int rc = CALL(r, global_binary, (ds_binary_fn)which, &a.arg, &b.arg, &info);
    global_clear(&a);
    global_clear(&b);
    return global_finish(r, rc, &info, result);
}

int ds__op_global_sum(const ds__req *r, cJSON **result)
{
    global_buf x;
    int64_t axis = 0;
    const cJSON *av = ds__arg(r, "axis");
    bool has_axis = av && !cJSON_IsNull(av);
    if (has_axis && !ds__is_int(av))
        return ds__fail(r->e, PROTO, "TypeError", "%s: axis must be an integer", r->op);
    if (has_axis) axis = (int64_t)av->valuedouble;
    if (global_decode(r, "x", &x) < 0) return -1;
    ds_global_info info;
    memset(&info, 0, sizeof info);
    int rc = CALL(r, global_sum, &x.arg, has_axis ? &axis : NULL, &info);
    global_clear(&x);
    return global_finish(r, rc, &info, result);
}
