/* garray.c: global arrays: attributes, to_local, creation from local pieces, from the whole
 * value and from a fill value (reading the whole value is a conversion, convert.c's). */
#include "global.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rag__empty_local(ra_gctx *g, ra_dtype dtype, ra_array **out)
{
    int64_t zero[1] = {0};
    int status =
        ra_zeros(g->ctx, zero, 1, &(ra_opts){.dtype = dtype, .device_value = &RA_CPU}, out);
    return status == RA_OK ? RA_OK : rag__from_ra(g, status, "the empty piece");
}

int rag__global_make(ra_gctx *g, const ra_placement *p, ra_dtype dtype, const int64_t *shape,
                     size_t ndim, const ra_sbp *sbp, ra_array *local, ra_global **out)
{
    ra_global *x = calloc(1, sizeof *x);
    if (!x) {
        ra_array_release(local);
        return rag__error(g, RA_E_NOMEM, "global array: out of memory");
    }
    if (!local) {
        int status = rag__empty_local(g, dtype, &local);
        if (status != RA_OK) {
            free(x);
            return status;
        }
    }
    atomic_init(&x->refs, 1);
    x->g = g;
    x->p = ra_placement_retain(p);
    x->dtype = dtype;
    x->ndim = ndim;
    memcpy(x->shape, shape, ndim * sizeof *shape);
    memcpy(x->sbp, sbp, p->ndim * sizeof *sbp);
    x->local = local;
    *out = x;
    return RA_OK;
}

uint64_t rag__global_hash(uint64_t h, const ra_global *x)
{
    h = rag__hash(h, &x->p->hash, sizeof x->p->hash);
    h = rag__hash(h, &x->dtype, sizeof x->dtype);
    h = rag__hash(h, &x->ndim, sizeof x->ndim);
    h = rag__hash(h, x->shape, x->ndim * sizeof *x->shape);
    return rag__sbp_hash(h, x->sbp, x->p->ndim);
}

ra_global *ra_global_retain(const ra_global *x)
{
    if (x) atomic_fetch_add(&((ra_global *)x)->refs, 1);
    return (ra_global *)x;
}

void ra_global_release(ra_global *x)
{
    if (!x || atomic_fetch_sub(&x->refs, 1) != 1) return;
    ra_array_release(x->local);
    ra_placement_release(x->p);
    free(x);
}

ra_dtype ra_global_dtype(const ra_global *x)
{
    return x ? x->dtype : RA_DTYPE_DEFAULT;
}

size_t ra_global_ndim(const ra_global *x)
{
    return x ? x->ndim : 0;
}

const int64_t *ra_global_shape(const ra_global *x)
{
    return x && x->ndim ? x->shape : NULL;
}

const ra_placement *ra_global_placement(const ra_global *x)
{
    return x ? x->p : NULL;
}

ra_sbp ra_global_sbp(const ra_global *x, size_t i)
{
    if (!x || i >= x->p->ndim) return (ra_sbp){(ra_sbp_kind)0, 0};
    return x->sbp[i];
}

int ra_global_to_local(ra_gctx *g, const ra_global *x, ra_array **out)
{
    if (!g) return RA_E_NULL;
    if (!x || !out) return rag__error(g, RA_E_NULL, "ra_global_to_local: x or out is NULL");
    *out = ra_array_retain(x->local);
    return RA_OK;
}

/* The record each rank contributes to from_local: its signature, status, and its piece's
 * dtype, ndim and shape. */
enum { REC_SIG, REC_STATUS, REC_DTYPE, REC_NDIM, REC_SHAPE, REC_LEN = REC_SHAPE + RA_MAX_NDIM };

/* Along a broadcast mesh dimension m every rank holds the piece of the rank at coordinate 0
 * there, as OneFlow's to_global from local tensors does (ranks holding [r, r] all read
 * [0, 0]): that rank's bytes are broadcast to the others of the dimension's communicator,
 * which replace their *piece with a copy on their own device. Pieces have one shape along a
 * broadcast dimension (from_local checked it). */
static int broadcast_piece(ra_gctx *g, const ra_placement *p, size_t m, ra_array **piece,
                           const char *fn)
{
    ra_array *x = *piece;
    size_t nbytes = ra_array_nbytes(x);
    if (nbytes == 0) return RA_OK;
    if (nbytes > INT_MAX)
        return rag__error(g, RA_E_TOO_LARGE,
                          "%s: a broadcast piece of %zu bytes (MPI counts "
                          "reach %d)",
                          fn, nbytes, INT_MAX);
    unsigned char *buf = malloc(nbytes);
    if (!buf) return rag__error(g, RA_E_NOMEM, "%s: out of memory for a piece", fn);
    bool root = p->coord[m] == 0;
    int status = RA_OK;
    if (root) {
        status = ra_array_read(g->ctx, x, buf, nbytes);
        if (status != RA_OK) status = rag__from_ra(g, status, fn);
    }
    if (status == RA_OK) {
        MPI_Request req;
        int rc = MPI_Ibcast(buf, (int)nbytes, MPI_BYTE, 0, p->dim_comm[m], &req);
        status = rc != MPI_SUCCESS ? rag__mpi(g, rc, fn) : rag__wait(g, &req, fn);
        if (status == RA_E_TIMEOUT) {
            rag__keep(g, buf);
            return status;
        }
    }
    if (status == RA_OK && !root) {
        ra_device dev = ra_array_device(x);
        ra_array *y = NULL;
        status = ra_asarray_buffer(g->ctx, buf, ra_array_dtype(x), ra_array_shape(x),
                                   ra_array_ndim(x), &(ra_opts){.device_value = &dev}, &y);
        if (status == RA_OK) {
            ra_array_release(x);
            *piece = y;
        } else {
            status = rag__from_ra(g, status, fn);
        }
    }
    free(buf);
    return status;
}

/* Long: one collective step that every rank runs through in the same order (check locally,
 * exchange one record per rank, decide alike from the records: the global shape, each
 * piece's dtype and extents; then make the array), so that a reader sees in one place that
 * no rank can take a branch the others do not. */
int ra_global_from_local(ra_gctx *g, const ra_array *local, const ra_placement *p,
                         const ra_sbp *sbp, size_t nsbp, ra_global **out)
{
    static const char fn[] = "ra_global_from_local";
    if (!g) return RA_E_NULL;
    int status = RA_OK;
    if (!out || !p)
        status = rag__error(g, RA_E_NULL, "%s: %s is NULL", fn, out ? "placement" : "out");
    else if (p->me >= 0 && !local)
        status =
            rag__error(g, RA_E_NULL, "%s: local is NULL on rank %d of the placement", fn, g->rank);
    int64_t rec[REC_LEN] = {0};
    if (status == RA_OK && p->me >= 0) {
        ra_device dev = ra_array_device(local);
        if (!ra_device_eq(dev, p->local_dev)) {
            char a[RA_DEVICE_STR_MAX], b[RA_DEVICE_STR_MAX];
            ra_device_format(dev, a, sizeof a);
            ra_device_format(p->local_dev, b, sizeof b);
            status = rag__error(g, RA_E_DEVICE_MISMATCH,
                                "%s: rank %d's local array is on %s; its device in the placement "
                                "is %s",
                                fn, g->rank, a, b);
        } else {
            status = rag__sbp_check(g, p, sbp, nsbp, ra_array_ndim(local), fn);
        }
        if (status == RA_OK) {
            rec[REC_DTYPE] = ra_array_dtype(local);
            rec[REC_NDIM] = (int64_t)ra_array_ndim(local);
            memcpy(rec + REC_SHAPE, ra_array_shape(local), ra_array_ndim(local) * sizeof(int64_t));
        }
    } else if (status == RA_OK) {
        status = rag__sbp_check(g, p, sbp, nsbp, RA_MAX_NDIM, fn);
    }
    rec[REC_SIG] = (int64_t)(p ? rag__sbp_hash(p->hash, sbp, status == RA_OK ? nsbp : 0) : 0);
    rec[REC_STATUS] = status;
    int64_t *all = malloc((size_t)g->size * sizeof rec);
    if (!all) return rag__error(g, RA_E_NOMEM, "%s: out of memory", fn);
    char keep[RAG_MESSAGE_MAX];
    snprintf(keep, sizeof keep, "%s", g->message);
    int cstatus = rag__allgather(g, g->comm, rec, REC_LEN, all, fn);
    if (cstatus != RA_OK) {
        free(all);
        return cstatus;
    }
    /* From here every rank decides alike from the same records; a rank with an error of
     * its own reports it. */
    if (rec[REC_STATUS] != RA_OK) snprintf(g->message, RAG_MESSAGE_MAX, "%s", keep);
    for (int r = 0; r < g->size && status == RA_OK; r++) {
        const int64_t *o = all + (size_t)r * REC_LEN;
        if (o[REC_STATUS] != RA_OK)
            status = rag__error(g, RA_E_COMM, "%s: rank %d failed (%s)", fn, r,
                                ra_status_name((int)o[REC_STATUS]));
        else if (o[REC_SIG] != rec[REC_SIG])
            status = rag__error(g, RA_E_COMM, "%s: ranks %d and %d made different calls", fn,
                                g->rank, r);
    }
    if (status != RA_OK) {
        free(all);
        return status;
    }
    /* Infer the global shape: along a split dim, the lengths of the ranks whose coordinates
     * on the other mesh dims are 0 add up; every other extent is the first rank's. */
    const int64_t *first = all + (size_t)p->ranks[0] * REC_LEN;
    ra_dtype dtype = (ra_dtype)first[REC_DTYPE];
    size_t ndim = (size_t)first[REC_NDIM];
    int64_t shape[RA_MAX_NDIM];
    memcpy(shape, first + REC_SHAPE, ndim * sizeof *shape);
    for (size_t m = 0; m < p->ndim; m++) {
        if (sbp[m].kind != RA_SBP_SPLIT) continue;
        size_t d = (size_t)sbp[m].dim;
        /* A dim split on both mesh dims is summed once, over the whole mesh. */
        bool both = p->ndim == 2 && sbp[1 - m].kind == RA_SBP_SPLIT && (size_t)sbp[1 - m].dim == d;
        if (both && m == 1) continue;
        int64_t total = 0;
        for (size_t i = 0; i < p->n; i++) {
            int64_t c[RA_PLACEMENT_MAX_NDIM];
            rag__coord(p, (int64_t)i, c);
            if (!both && p->ndim == 2 && c[1 - m] != 0) continue;
            total += all[(size_t)p->ranks[i] * REC_LEN + REC_SHAPE + d];
        }
        shape[d] = total;
    }
    /* Each piece must be what the sbp makes of that shape. */
    for (size_t i = 0; i < p->n && status == RA_OK; i++) {
        const int64_t *o = all + (size_t)p->ranks[i] * REC_LEN;
        int64_t c[RA_PLACEMENT_MAX_NDIM], off[RA_MAX_NDIM], len[RA_MAX_NDIM];
        rag__coord(p, (int64_t)i, c);
        if (o[REC_DTYPE] != dtype) {
            status = rag__error(g, RA_E_DTYPE, "%s: rank %lld's piece is %s, rank %lld's is %s", fn,
                                (long long)p->ranks[i], ra_dtype_name((ra_dtype)o[REC_DTYPE]),
                                (long long)p->ranks[0], ra_dtype_name(dtype));
            break;
        }
        if ((size_t)o[REC_NDIM] != ndim) {
            status = rag__error(
                g, RA_E_SHAPE, "%s: rank %lld's piece has %lld dimensions, rank %lld's %zu", fn,
                (long long)p->ranks[i], (long long)o[REC_NDIM], (long long)p->ranks[0], ndim);
            break;
        }
        rag__window(p, c, sbp, shape, ndim, p->ndim, off, len);
        for (size_t d = 0; d < ndim; d++)
            if (len[d] != o[REC_SHAPE + d]) {
                status = rag__error(g, RA_E_SHAPE,
                                    "%s: rank %lld's piece has extent %lld along dim %zu; the "
                                    "global shape the pieces give needs %lld there (split "
                                    "pieces are balanced: the first n %% k one longer)",
                                    fn, (long long)p->ranks[i], (long long)o[REC_SHAPE + d], d,
                                    (long long)len[d]);
                break;
            }
    }
    free(all);
    if (status != RA_OK) return status;
    ra_array *piece = p->me >= 0 ? ra_array_retain(local) : NULL;
    for (size_t m = 0; m < p->ndim && status == RA_OK; m++)
        if (sbp[m].kind == RA_SBP_BROADCAST && piece) status = broadcast_piece(g, p, m, &piece, fn);
    if (status != RA_OK) {
        ra_array_release(piece);
        return status;
    }
    return rag__global_make(g, p, dtype, shape, ndim, sbp, piece, out);
}

/* Fills a local piece from the whole value: the window [off, off + len) of each dim. */
typedef struct window_fill {
    const unsigned char *src;
    const int64_t *shape, *off, *len;
    size_t ndim, esize;
    bool zero; /* a partial_sum piece that is not the first: zeros */
} window_fill;

static void copy_window(const window_fill *w, size_t d, size_t src_base, unsigned char **dst)
{
    if (d == w->ndim) {
        memcpy(*dst, w->src + src_base * w->esize, w->esize);
        *dst += w->esize;
        return;
    }
    /* The innermost dims that are whole are one contiguous run. */
    bool rest_whole = true;
    for (size_t e = d + 1; e < w->ndim; e++)
        if (w->off[e] != 0 || w->len[e] != w->shape[e]) rest_whole = false;
    size_t inner = 1;
    for (size_t e = d + 1; e < w->ndim; e++)
        inner *= (size_t)w->shape[e];
    if (rest_whole) {
        size_t n = (size_t)w->len[d] * inner * w->esize;
        if (n)
            memcpy(*dst,
                   w->src + (src_base * (size_t)w->shape[d] + (size_t)w->off[d]) * inner * w->esize,
                   n);
        *dst += n;
        return;
    }
    for (int64_t i = 0; i < w->len[d]; i++)
        copy_window(w, d + 1, src_base * (size_t)w->shape[d] + (size_t)(w->off[d] + i), dst);
}

static int fill_window(void *dst, size_t nbytes, void *user_data)
{
    const window_fill *w = user_data;
    if (!nbytes) return RA_OK;
    if (w->zero) {
        memset(dst, 0, nbytes);
        return RA_OK;
    }
    unsigned char *p = dst;
    if (w->ndim == 0)
        memcpy(p, w->src, w->esize);
    else
        copy_window(w, 0, 0, &p);
    return RA_OK;
}

static int from_whole(ra_gctx *g, const char *fn, const void *data, ra_dtype dtype,
                      const int64_t *shape, size_t ndim, const ra_placement *p, const ra_sbp *sbp,
                      size_t nsbp, ra_global **out)
{
    int status = RA_OK;
    if (!out || !p || (!shape && ndim))
        status = rag__error(g, RA_E_NULL, "%s: out, placement or shape is NULL", fn);
    else if (ndim > RA_MAX_NDIM)
        status =
            rag__error(g, RA_E_SHAPE, "%s: %zu dimensions (at most %d)", fn, ndim, RA_MAX_NDIM);
    else if (ra_dtype_size(dtype) == 0)
        status = rag__error(g, RA_E_ARG, "%s: dtype %d is not a dtype", fn, (int)dtype);
    else
        status = rag__sbp_check(g, p, sbp, nsbp, ndim, fn);
    for (size_t d = 0; status == RA_OK && d < ndim; d++)
        if (shape[d] < 0)
            status =
                rag__error(g, RA_E_SHAPE, "%s: shape[%zu] is %lld", fn, d, (long long)shape[d]);
    uint64_t sig = 0;
    if (status == RA_OK) {
        sig = rag__sbp_hash(p->hash, sbp, nsbp);
        sig = rag__hash(sig, &dtype, sizeof dtype);
        sig = rag__hash(sig, shape, ndim * sizeof *shape);
    }
    status = rag__agree(g, sig, status, fn);
    if (status != RA_OK) return status;
    ra_array *local = NULL;
    if (p->me >= 0) {
        int64_t off[RA_MAX_NDIM], len[RA_MAX_NDIM];
        rag__window(p, p->coord, sbp, shape, ndim, p->ndim, off, len);
        window_fill w = {data, shape, off, len, ndim, ra_dtype_size(dtype), false};
        for (size_t m = 0; m < p->ndim; m++)
            if (sbp[m].kind == RA_SBP_PARTIAL_SUM && p->coord[m] != 0) w.zero = true;
        status =
            ra_array_create_filled(g->ctx, p->local_dev, dtype, len, ndim, fill_window, &w, &local);
        if (status != RA_OK) return rag__from_ra(g, status, fn);
    }
    return rag__global_make(g, p, dtype, shape, ndim, sbp, local, out);
}

int ra_global_from_buffer(ra_gctx *g, const void *data, ra_dtype dtype, const int64_t *shape,
                          size_t ndim, const ra_placement *p, const ra_sbp *sbp, size_t nsbp,
                          ra_global **out)
{
    if (!g) return RA_E_NULL;
    /* data may be NULL for a shape of no elements, as for ra_asarray_buffer. */
    int64_t size = 1;
    for (size_t d = 0; shape && d < ndim && d < RA_MAX_NDIM; d++)
        size = shape[d] > 0 ? size : 0;
    if (!data && (size != 0 || !shape || ndim == 0)) {
        int status = rag__error(g, RA_E_NULL, "ra_global_from_buffer: data is NULL");
        return rag__agree(g, 0, status, "ra_global_from_buffer");
    }
    return from_whole(g, "ra_global_from_buffer", data, dtype, shape, ndim, p, sbp, nsbp, out);
}

int ra_global_full(ra_gctx *g, const int64_t *shape, size_t ndim, ra_scalar fill_value,
                   ra_dtype dtype, const ra_placement *p, const ra_sbp *sbp, size_t nsbp,
                   ra_global **out)
{
    static const char fn[] = "ra_global_full";
    if (!g) return RA_E_NULL;
    /* The fill's dtype and bytes come from refarray's own full on one element. */
    ra_array *one = NULL;
    int status = ra_full(g->ctx, NULL, 0, fill_value,
                         &(ra_opts){.dtype = dtype, .device_value = &RA_CPU}, &one);
    if (status != RA_OK) {
        status = rag__from_ra(g, status, fn);
        return rag__agree(g, 0, status, fn);
    }
    dtype = ra_array_dtype(one);
    size_t esize = ra_dtype_size(dtype);
    int64_t size = 1;
    for (size_t d = 0; shape && d < ndim; d++)
        size *= shape[d] > 0 ? shape[d] : 0;
    unsigned char *whole = malloc((size_t)size * esize + 1);
    if (!whole) {
        ra_array_release(one);
        status = rag__error(g, RA_E_NOMEM, "%s: out of memory", fn);
        return rag__agree(g, 0, status, fn);
    }
    const void *value = ra_array_host_data(one);
    for (int64_t i = 0; i < size; i++)
        memcpy(whole + (size_t)i * esize, value, esize);
    ra_array_release(one);
    status = from_whole(g, fn, whole, dtype, shape, ndim, p, sbp, nsbp, out);
    free(whole);
    return status;
}
