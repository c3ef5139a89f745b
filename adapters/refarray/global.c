/* global.c: the refarray adapter's global-array ops (OneFlow's placements, sbp and
 * conversions) on refarray_global, for the SPMD transport: every rank of the job runs each
 * op on its own state (spec/protocol.md, "SPMD transport"). Built only with MPI. */
#include "adapter_global.h"

#include "refarray_global.h"

#include <stdio.h>
#include <string.h>

/* The global context, made at the first global op of a process. */
static ra_gctx *G;

/* How long a rank waits for the others before the op fails (below the runner's case
 * timeout, so that a missing rank costs the op, not the whole case budget). */
#define WAIT_SECONDS 10.0

bool rga_ready(void)
{
    int init = 0, done = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&done);
    return init && !done;
}

void rga_close(void)
{
    ra_gctx_destroy(G);
    G = NULL;
}

/* A failed refarray_global call: its kind, name and detail for the reply. */
static int fail(int st)
{
    ds_error(ra_status_kind(st), "%s: %s", ra_status_name(st), ra_gctx_message(G));
    return st;
}

static int gctx(ra_ctx *ctx)
{
    if (G) return 0;
    if (!rga_ready()) {
        ds_error("NotImplementedError", "refarray adapter: global arrays need MPI (run it under "
                                        "devspec-adapter-mpi-host)");
        return DS_NOT_IMPLEMENTED;
    }
    int st = ra_gctx_create(ctx, MPI_COMM_WORLD, RA_GCTX_OPTIONS(.timeout_s = WAIT_SECONDS), &G);
    if (st != RA_OK) {
        ds_error(ra_status_kind(st), "%s: %s", ra_status_name(st), ra_gctx_message(NULL));
        return st;
    }
    return 0;
}

static int placement_make(const ds_placement_arg *a, ra_placement **out)
{
    int st;
    if (a->row_len) {
        const int64_t *rows[64];
        if (a->nrows > 64) {
            ds_error("ValueError", "refarray adapter: at most 64 rows");
            return -1;
        }
        size_t k = 0;
        for (size_t i = 0; i < a->nrows; i++) {
            rows[i] = a->ranks + k;
            k += a->row_len[i];
        }
        st = ra_placement_create_rows(G, a->type, rows, a->row_len, a->nrows, out);
    } else {
        st = ra_placement_create(G, a->type, a->ranks, a->nranks, NULL, 1, out);
    }
    return st == RA_OK ? 0 : fail(st);
}

int rga_placement_describe(ra_ctx *ctx, const ds_placement_arg *a, bool all, bool env_spelling,
                           ds_placement_info *out)
{
    int st = gctx(ctx);
    if (st) return st;
    ra_placement *p = NULL;
    /* OF-PL-4: env.all_device_placement is placement.all under another name in refarray. */
    (void)env_spelling;
    if (all) {
        st = ra_placement_all(G, a->type, &p);
        if (st != RA_OK) return fail(st);
    } else if ((st = placement_make(a, &p)) != 0) {
        return st;
    }
    ra_placement_format(p, out->str, sizeof out->str);
    snprintf(out->type, sizeof out->type, "%s", ra_device_type_name(ra_placement_type(p)));
    out->ndim = (int)ra_placement_ndim(p);
    for (int i = 0; i < out->ndim; i++)
        out->shape[i] = ra_placement_shape(p)[i];
    ra_placement_release(p);
    return 0;
}

int rga_placement_equal(ra_ctx *ctx, const ds_placement_arg *a, const ds_placement_arg *b,
                        bool *out)
{
    int st = gctx(ctx);
    if (st) return st;
    ra_placement *pa = NULL, *pb = NULL;
    if ((st = placement_make(a, &pa)) != 0) return st;
    if ((st = placement_make(b, &pb)) != 0) {
        ra_placement_release(pa);
        return st;
    }
    *out = ra_placement_eq(pa, pb);
    ra_placement_release(pa);
    ra_placement_release(pb);
    return 0;
}

static int sbp_value(ds_sbp_arg s, ra_sbp *out)
{
    if (s.kind == DS_SBP_SPLIT && (s.dim < 0 || s.dim > INT32_MAX)) {
        ds_error("ValueError", "split(dim=%lld): the split dim must be in 0..2147483647",
                 (long long)s.dim);
        return RA_E_AXIS;
    }
    *out = s.kind == DS_SBP_SPLIT       ? ra_sbp_split((int32_t)s.dim)
           : s.kind == DS_SBP_BROADCAST ? ra_sbp_broadcast()
                                        : ra_sbp_partial_sum();
    return 0;
}

int rga_sbp_describe(ds_sbp_arg s, char *out, size_t cap)
{
    ra_sbp v;
    int st = sbp_value(s, &v);
    if (st) return st;
    st = ra_sbp_format(v, out, cap);
    if (st != RA_OK) ds_error(ra_status_kind(st), "ra_sbp_format: %s", ra_status_name(st));
    return st;
}

/* Reads a local array into a buffer the shim frees. */
static int to_buffer(ra_ctx *ctx, const ra_array *x, ds_buffer *b)
{
    b->dtype = (ds_dtype)ra_array_dtype(x);
    b->ndim = (int)ra_array_ndim(x);
    for (int i = 0; i < b->ndim; i++)
        b->shape[i] = ra_array_shape(x)[i];
    if (ds_buffer_alloc(b) != 0) return -1;
    int st = b->nbytes ? ra_array_read(ctx, x, b->data, b->nbytes) : RA_OK;
    if (st != RA_OK) ds_error(ra_status_kind(st), "ra_array_read: %s", ra_ctx_message(ctx));
    return st;
}

/* A global array from the whole value (every rank passes it) or from each rank's piece;
 * *p is its placement, released by the caller. */
static int make(ra_ctx *ctx, const ds_buffer *pieces, size_t npieces, bool from_local,
                const ds_placement_arg *pa, const ds_sbp_arg *sbp, size_t nsbp, ra_placement **p,
                ra_global **x)
{
    ra_sbp s[RA_PLACEMENT_MAX_NDIM];
    int st;
    *p = NULL;
    *x = NULL;
    if (nsbp > RA_PLACEMENT_MAX_NDIM) {
        ds_error("ValueError", "refarray adapter: at most %d sbp values", RA_PLACEMENT_MAX_NDIM);
        return RA_E_ARG;
    }
    for (size_t i = 0; i < nsbp; i++)
        if ((st = sbp_value(sbp[i], &s[i])) != 0) return st;
    if ((st = placement_make(pa, p)) != 0) return st;
    ra_array *local = NULL;
    int rank = ra_gctx_rank(G);
    if (from_local) {
        /* Each rank takes its own piece; a rank past the list, or outside the placement,
         * passes none. */
        if (ra_placement_has_me(*p) && (size_t)rank < npieces) {
            const ds_buffer *b = &pieces[rank];
            ra_device dev = ra_placement_local_device(*p);
            st = ra_asarray_buffer(ctx, b->data, (ra_dtype)b->dtype, b->shape, (size_t)b->ndim,
                                   &(ra_opts){.size = sizeof(ra_opts), .device_value = &dev},
                                   &local);
            if (st != RA_OK) {
                ds_error(ra_status_kind(st), "%s: %s", ra_status_name(st), ra_ctx_message(ctx));
                return st;
            }
        }
        st = ra_global_from_local(G, local, *p, s, nsbp, x);
    } else {
        st = ra_global_from_buffer(G, pieces[0].data, (ra_dtype)pieces[0].dtype, pieces[0].shape,
                                   (size_t)pieces[0].ndim, *p, s, nsbp, x);
    }
    ra_array_release(local);
    return st == RA_OK ? 0 : fail(st);
}

/* Fills out with g's attributes, this rank's piece and the whole value. Collective. */
static int report(ra_ctx *ctx, const ra_global *g, ds_global_info *out)
{
    out->dtype = (ds_dtype)ra_global_dtype(g);
    out->ndim = (int)ra_global_ndim(g);
    for (int i = 0; i < out->ndim; i++)
        out->shape[i] = ra_global_shape(g)[i];
    const ra_placement *p = ra_global_placement(g);
    ra_placement_format(p, out->placement, sizeof out->placement);
    out->nsbp = ra_placement_ndim(p);
    for (size_t i = 0; i < out->nsbp; i++)
        ra_sbp_format(ra_global_sbp(g, i), out->sbp[i], sizeof out->sbp[i]);
    ra_array *local = NULL;
    int st = ra_global_to_local(G, g, &local);
    if (st == RA_OK)
        st = to_buffer(ctx, local, &out->local);
    else
        fail(st);
    ra_array_release(local);
    if (st == RA_OK) {
        out->value.dtype = out->dtype;
        out->value.ndim = out->ndim;
        memcpy(out->value.shape, out->shape, sizeof out->shape);
        if (ds_buffer_alloc(&out->value) != 0)
            st = -1;
        else if ((st = ra_global_read(G, g, out->value.data, out->value.nbytes)) != RA_OK)
            fail(st);
    }
    return st;
}

int rga_global_make(ra_ctx *ctx, const ds_buffer *pieces, size_t npieces, bool from_local,
                    const ds_placement_arg *pa, const ds_sbp_arg *sbp, size_t nsbp,
                    const ds_sbp_arg *to, size_t nto, ds_global_info *out)
{
    int st = gctx(ctx);
    if (st) return st;
    ra_sbp t[RA_PLACEMENT_MAX_NDIM];
    if (nto > RA_PLACEMENT_MAX_NDIM) {
        ds_error("ValueError", "refarray adapter: at most %d sbp values", RA_PLACEMENT_MAX_NDIM);
        return RA_E_ARG;
    }
    for (size_t i = 0; i < nto; i++)
        if ((st = sbp_value(to[i], &t[i])) != 0) return st;
    ra_placement *p = NULL;
    ra_global *x = NULL, *y = NULL;
    st = make(ctx, pieces, npieces, from_local, pa, sbp, nsbp, &p, &x);
    if (st == 0 && nto && (st = ra_global_to_sbp(G, x, t, nto, &y)) != RA_OK) fail(st);
    if (st == 0) st = report(ctx, y ? y : x, out);
    ra_global_release(x);
    ra_global_release(y);
    ra_placement_release(p);
    return st;
}

int rga_global_binary(ra_ctx *ctx, ds_binary_fn fn, const ds_global_arg *a1,
                      const ds_global_arg *a2, ds_global_info *out)
{
    int st = gctx(ctx);
    if (st) return st;
    ra_placement *p1 = NULL, *p2 = NULL;
    ra_global *x1 = NULL, *x2 = NULL, *y = NULL;
    st = make(ctx, a1->pieces, a1->npieces, a1->from_local, a1->placement, a1->sbp, a1->nsbp, &p1,
              &x1);
    if (st == 0)
        st = make(ctx, a2->pieces, a2->npieces, a2->from_local, a2->placement, a2->sbp, a2->nsbp,
                  &p2, &x2);
    /* ds_binary_fn and ra_binop number add, subtract, multiply and divide alike. */
    if (st == 0 && (st = ra_global_binary(G, (ra_binop)fn, x1, x2, &y)) != RA_OK) fail(st);
    if (st == 0) st = report(ctx, y, out);
    ra_global_release(x1);
    ra_global_release(x2);
    ra_global_release(y);
    ra_placement_release(p1);
    ra_placement_release(p2);
    return st;
}

int rga_global_sum(ra_ctx *ctx, const ds_global_arg *a, const int64_t *axis, ds_global_info *out)
{
    int st = gctx(ctx);
    if (st) return st;
    if (axis && (*axis < INT32_MIN || *axis > INT32_MAX)) {
        ds_error("ValueError", "sum: axis %lld is out of range", (long long)*axis);
        return RA_E_AXIS;
    }
    int ax = axis ? (int)*axis : 0;
    ra_placement *p = NULL;
    ra_global *x = NULL, *y = NULL;
    st = make(ctx, a->pieces, a->npieces, a->from_local, a->placement, a->sbp, a->nsbp, &p, &x);
    if (st == 0 && (st = ra_global_sum(G, x, axis ? &ax : NULL, &y)) != RA_OK) fail(st);
    if (st == 0) st = report(ctx, y, out);
    ra_global_release(x);
    ra_global_release(y);
    ra_placement_release(p);
    return st;
}
