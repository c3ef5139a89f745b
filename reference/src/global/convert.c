/* convert.c: conversions between sbps (OF-SBP-6), one placement dimension at a time, each
 * through the MPI collective it is: split -> broadcast all-gather, partial_sum -> broadcast
 * all-reduce, partial_sum -> split reduce-scatter, split(i) -> split(j) all-to-all;
 * broadcast -> split, broadcast -> partial_sum and split -> partial_sum are local; and
 * reading a global array's whole value, a conversion to broadcast. */
#include "global.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* One conversion along one placement dimension. */
typedef struct step {
    ra_gctx *g;
    MPI_Comm comm;
    int64_t k, c; /* group size and this rank's coordinate in it */
    ra_dtype dtype;
    size_t esize, ndim;
    int64_t in_shape[RA_MAX_NDIM];
    const unsigned char *in; /* the local piece's bytes in host memory */
    ra_sbp src, dst;
    int64_t glen_src, glen_dst; /* the group's extent along the split dims */
    const char *what;
    bool timed_out; /* a collective was left pending: its memory must be kept */
} step;

/* memcpy that accepts NULL pointers with n == 0 (empty pieces have no memory). */
static void copy_bytes(void *dst, const void *src, size_t n)
{
    if (n) memcpy(dst, src, n);
}

static MPI_Datatype mpi_type(ra_dtype dtype)
{
    switch (dtype) {
    case RA_BOOL:
        return MPI_C_BOOL;
    case RA_INT8:
        return MPI_INT8_T;
    case RA_INT16:
        return MPI_INT16_T;
    case RA_INT32:
        return MPI_INT32_T;
    case RA_INT64:
        return MPI_INT64_T;
    case RA_UINT8:
        return MPI_UINT8_T;
    case RA_UINT16:
        return MPI_UINT16_T;
    case RA_UINT32:
        return MPI_UINT32_T;
    case RA_UINT64:
        return MPI_UINT64_T;
    case RA_FLOAT32:
        return MPI_FLOAT;
    case RA_FLOAT64:
        return MPI_DOUBLE;
    case RA_COMPLEX64:
        return MPI_C_FLOAT_COMPLEX;
    case RA_COMPLEX128:
        return MPI_C_DOUBLE_COMPLEX;
    case RA_FLOAT16:
        return MPI_UINT16_T; /* reduced with the context's half_sum */
    default:
        return MPI_DATATYPE_NULL;
    }
}

/* partial_sum of bool is "or": a sum of truth values read back as bool. 8- and 16-bit
 * integers add through the context's wrapping sum (gctx.c says why). */
static MPI_Op mpi_sum(const step *s)
{
    switch (s->dtype) {
    case RA_BOOL:
        return MPI_LOR;
    case RA_INT8:
    case RA_UINT8:
    case RA_INT16:
    case RA_UINT16:
        return s->g->wrap_sum;
    case RA_FLOAT16:
        return s->g->half_sum;
    default:
        return MPI_SUM;
    }
}

static int fits_int(step *s, size_t n)
{
    if (n > INT_MAX)
        return rag__error(s->g, RA_E_TOO_LARGE,
                          "%s: %zu elements or bytes in one message exceed MPI's int count",
                          s->what, n);
    return RA_OK;
}

static int run(step *s, int rc, MPI_Request *req)
{
    if (rc != MPI_SUCCESS) return rag__mpi(s->g, rc, s->what);
    return rag__wait(s->g, req, s->what);
}

/* Frees a fill's buffers, or keeps them under a pending collective. A timeout is turned into
 * RA_OK with timed_out set, so that refarray does not free the array MPI may still write;
 * convert_dim keeps that array and reports the timeout. */
static int finish(step *s, int status, void *a, void *b, void *c)
{
    if (status == RA_E_TIMEOUT) {
        rag__keep(s->g, a);
        rag__keep(s->g, b);
        rag__keep(s->g, c);
        s->timed_out = true;
        return RA_OK;
    }
    free(a);
    free(b);
    free(c);
    return status;
}

/* split(d) -> broadcast: all-gather of the pieces along d. */
static int fill_gather(void *dst, size_t nbytes, void *user_data)
{
    step *s = user_data;
    size_t d = (size_t)s->src.dim;
    size_t outer = rag__prod(s->in_shape, 0, d),
           inner = rag__prod(s->in_shape, d + 1, s->ndim) * s->esize;
    int *counts = malloc(2 * (size_t)s->k * sizeof *counts);
    if (!counts) return rag__error(s->g, RA_E_NOMEM, "%s: out of memory", s->what);
    int *displs = counts + s->k;
    int status = RA_OK;
    size_t pos = 0;
    for (int64_t r = 0; r < s->k && status == RA_OK; r++) {
        int64_t off, len;
        rag__balanced(s->glen_src, s->k, r, &off, &len);
        status = fits_int(s, outer * (size_t)len * inner);
        if (status == RA_OK) status = fits_int(s, pos);
        counts[r] = (int)(outer * (size_t)len * inner);
        displs[r] = (int)pos;
        pos += (size_t)counts[r];
    }
    unsigned char *tmp = NULL;
    /* With nothing before d the pieces are contiguous blocks of the result: gather in place. */
    unsigned char *recv = outer == 1 ? dst : (tmp = malloc(nbytes + 1));
    /* dst is NULL for a result of no bytes (an empty array): every count is then 0. */
    if (status == RA_OK && !recv && nbytes)
        status = rag__error(s->g, RA_E_NOMEM, "%s: out of memory", s->what);
    if (status == RA_OK) {
        MPI_Request req;
        status = run(s,
                     MPI_Iallgatherv(s->in, counts[s->c], MPI_BYTE, recv, counts, displs, MPI_BYTE,
                                     s->comm, &req),
                     &req);
    }
    if (status == RA_OK && tmp) {
        for (int64_t r = 0; r < s->k; r++) {
            int64_t off, len;
            rag__balanced(s->glen_src, s->k, r, &off, &len);
            size_t run_bytes = (size_t)len * inner;
            for (size_t o = 0; o < outer; o++)
                copy_bytes((unsigned char *)dst + (o * (size_t)s->glen_src + (size_t)off) * inner,
                           tmp + (size_t)displs[r] + o * run_bytes, run_bytes);
        }
    }
    return finish(s, status, tmp, counts, NULL);
}

/* partial_sum -> broadcast: all-reduce. */
static int fill_allreduce(void *dst, size_t nbytes, void *user_data)
{
    step *s = user_data;
    size_t n = nbytes / s->esize;
    int status = fits_int(s, n);
    if (status != RA_OK || n == 0) return status;
    MPI_Request req;
    status = run(
        s, MPI_Iallreduce(s->in, dst, (int)n, mpi_type(s->dtype), mpi_sum(s), s->comm, &req), &req);
    return finish(s, status, NULL, NULL, NULL);
}

/* partial_sum -> split(d): reduce-scatter of the blocks along d. */
static int fill_reduce_scatter(void *dst, size_t nbytes, void *user_data)
{
    step *s = user_data;
    (void)nbytes;
    size_t d = (size_t)s->dst.dim;
    size_t outer = rag__prod(s->in_shape, 0, d), inner_n = rag__prod(s->in_shape, d + 1, s->ndim);
    size_t inner = inner_n * s->esize;
    int *counts = malloc((size_t)s->k * sizeof *counts);
    if (!counts) return rag__error(s->g, RA_E_NOMEM, "%s: out of memory", s->what);
    int status = fits_int(s, rag__prod(s->in_shape, 0, s->ndim));
    for (int64_t r = 0; r < s->k; r++) {
        int64_t off, len;
        rag__balanced(s->glen_dst, s->k, r, &off, &len);
        counts[r] = (int)(outer * (size_t)len * inner_n);
    }
    unsigned char *tmp = NULL;
    const unsigned char *send = s->in;
    size_t total = rag__prod(s->in_shape, 0, s->ndim) * s->esize;
    if (status == RA_OK && outer > 1) {
        /* Pack each rank's block together: rank r's rows of every outer index. */
        tmp = malloc(total + 1);
        if (!tmp) status = rag__error(s->g, RA_E_NOMEM, "%s: out of memory", s->what);
        size_t pos = 0;
        for (int64_t r = 0; tmp && r < s->k; r++) {
            int64_t off, len;
            rag__balanced(s->glen_dst, s->k, r, &off, &len);
            for (size_t o = 0; o < outer; o++) {
                copy_bytes(tmp + pos, s->in + (o * (size_t)s->glen_dst + (size_t)off) * inner,
                           (size_t)len * inner);
                pos += (size_t)len * inner;
            }
        }
        send = tmp;
    }
    if (status == RA_OK && total) {
        MPI_Request req;
        status = run(
            s,
            MPI_Ireduce_scatter(send, dst, counts, mpi_type(s->dtype), mpi_sum(s), s->comm, &req),
            &req);
    }
    return finish(s, status, tmp, counts, NULL);
}

/* split(i) -> split(j): all-to-all. Rank q receives from each rank the rows of q's piece
 * along j of that rank's piece along i. */
static int fill_alltoall(void *dst, size_t nbytes, void *user_data)
{
    step *s = user_data;
    size_t i = (size_t)s->src.dim, j = (size_t)s->dst.dim;
    int64_t *oshape = malloc(s->ndim * sizeof *oshape + 1);
    int *v = malloc(4 * (size_t)s->k * sizeof *v);
    if (!oshape || !v) {
        free(oshape);
        free(v);
        return rag__error(s->g, RA_E_NOMEM, "%s: out of memory", s->what);
    }
    int *scount = v, *sdispl = v + s->k, *rcount = v + 2 * s->k, *rdispl = v + 3 * s->k;
    copy_bytes(oshape, s->in_shape, s->ndim * sizeof *oshape);
    int64_t my_off_j, my_len_j, my_off_i, my_len_i;
    rag__balanced(s->glen_dst, s->k, s->c, &my_off_j, &my_len_j);
    rag__balanced(s->glen_src, s->k, s->c, &my_off_i, &my_len_i);
    oshape[i] = s->glen_src;
    oshape[j] = my_len_j;
    size_t in_outer_j = rag__prod(s->in_shape, 0, j),
           in_inner_j = rag__prod(s->in_shape, j + 1, s->ndim) * s->esize;
    size_t out_outer_i = rag__prod(oshape, 0, i),
           out_inner_i = rag__prod(oshape, i + 1, s->ndim) * s->esize;
    size_t in_total = rag__prod(s->in_shape, 0, s->ndim) * s->esize;
    int status = fits_int(s, in_total);
    if (status == RA_OK) status = fits_int(s, nbytes);
    size_t spos = 0, rpos = 0;
    for (int64_t q = 0; q < s->k; q++) {
        int64_t oj, lj, oi, li;
        rag__balanced(s->glen_dst, s->k, q, &oj, &lj);
        rag__balanced(s->glen_src, s->k, q, &oi, &li);
        scount[q] = (int)(in_outer_j * (size_t)lj * in_inner_j);
        sdispl[q] = in_outer_j == 1 ? (int)((size_t)oj * in_inner_j) : (int)spos;
        spos += (size_t)scount[q];
        /* q's piece along i, restricted to my rows along j: the output's shape with li rows
         * along i. */
        rcount[q] = (int)(out_outer_i * (size_t)li * out_inner_i);
        rdispl[q] = out_outer_i == 1 ? (int)((size_t)oi * out_inner_i) : (int)rpos;
        rpos += (size_t)rcount[q];
    }
    unsigned char *stmp = NULL, *rtmp = NULL;
    const unsigned char *send = s->in;
    unsigned char *recv = dst;
    if (status == RA_OK && in_outer_j > 1) {
        stmp = malloc(in_total + 1);
        if (!stmp) status = rag__error(s->g, RA_E_NOMEM, "%s: out of memory", s->what);
        for (int64_t q = 0; stmp && q < s->k; q++) {
            int64_t oj, lj;
            rag__balanced(s->glen_dst, s->k, q, &oj, &lj);
            size_t run_bytes = (size_t)lj * in_inner_j;
            for (size_t o = 0; o < in_outer_j; o++)
                copy_bytes(stmp + (size_t)sdispl[q] + o * run_bytes,
                           s->in + (o * (size_t)s->glen_dst + (size_t)oj) * in_inner_j, run_bytes);
        }
        send = stmp;
    }
    if (status == RA_OK && out_outer_i > 1) {
        rtmp = malloc(nbytes + 1);
        if (!rtmp) status = rag__error(s->g, RA_E_NOMEM, "%s: out of memory", s->what);
        recv = rtmp;
    }
    if (status == RA_OK) {
        MPI_Request req;
        status = run(s,
                     MPI_Ialltoallv(send, scount, sdispl, MPI_BYTE, recv, rcount, rdispl, MPI_BYTE,
                                    s->comm, &req),
                     &req);
    }
    if (status == RA_OK && rtmp) {
        for (int64_t q = 0; q < s->k; q++) {
            int64_t oi, li;
            rag__balanced(s->glen_src, s->k, q, &oi, &li);
            size_t run_bytes = (size_t)li * out_inner_i;
            for (size_t o = 0; o < out_outer_i; o++)
                copy_bytes((unsigned char *)dst +
                               (o * (size_t)s->glen_src + (size_t)oi) * out_inner_i,
                           rtmp + (size_t)rdispl[q] + o * run_bytes, run_bytes);
        }
    }
    free(oshape);
    return finish(s, status, stmp, rtmp, v);
}

/* broadcast -> split(d): this rank's rows along d. */
static int fill_slice(void *dst, size_t nbytes, void *user_data)
{
    step *s = user_data;
    (void)nbytes;
    size_t d = (size_t)s->dst.dim;
    size_t outer = rag__prod(s->in_shape, 0, d),
           inner = rag__prod(s->in_shape, d + 1, s->ndim) * s->esize;
    int64_t off, len;
    rag__balanced(s->glen_dst, s->k, s->c, &off, &len);
    for (size_t o = 0; o < outer; o++)
        copy_bytes((unsigned char *)dst + o * (size_t)len * inner,
                   s->in + (o * (size_t)s->glen_dst + (size_t)off) * inner, (size_t)len * inner);
    return RA_OK;
}

/* split(d) -> partial_sum: this rank's rows in place, zeros elsewhere. */
static int fill_pad(void *dst, size_t nbytes, void *user_data)
{
    step *s = user_data;
    size_t d = (size_t)s->src.dim;
    size_t outer = rag__prod(s->in_shape, 0, d),
           inner = rag__prod(s->in_shape, d + 1, s->ndim) * s->esize;
    int64_t off, len;
    rag__balanced(s->glen_src, s->k, s->c, &off, &len);
    memset(dst, 0, nbytes);
    for (size_t o = 0; o < outer; o++)
        copy_bytes((unsigned char *)dst + (o * (size_t)s->glen_src + (size_t)off) * inner,
                   s->in + o * (size_t)len * inner, (size_t)len * inner);
    return RA_OK;
}

static int fill_zero(void *dst, size_t nbytes, void *user_data)
{
    (void)user_data;
    if (nbytes) memset(dst, 0, nbytes);
    return RA_OK;
}

/* The group's extent along dim d for mesh dim m: what mesh dims before m leave of it (no
 * later mesh dim splits d when this is called). */
static int64_t group_len(const ra_global *x, const ra_sbp *cur, size_t m, size_t d)
{
    int64_t off[RA_MAX_NDIM], len[RA_MAX_NDIM];
    rag__window(x->p, x->p->coord, cur, x->shape, x->ndim, m, off, len);
    return len[d];
}

/* Converts local (the piece under cur) along mesh dim m to dst; *out a new reference. */
static int convert_dim(ra_gctx *g, const ra_global *x, const ra_sbp *cur, size_t m, ra_sbp dst,
                       ra_array *local, ra_array **out)
{
    static const char what[] = "ra_global_to_sbp";
    ra_sbp src = cur[m];
    if (ra_sbp_eq(src, dst)) {
        *out = ra_array_retain(local);
        return RA_OK;
    }
    step s = {.g = g,
              .comm = x->p->dim_comm[m],
              .k = x->p->shape[m],
              .c = x->p->coord[m],
              .dtype = x->dtype,
              .esize = ra_dtype_size(x->dtype),
              .ndim = x->ndim,
              .src = src,
              .dst = dst,
              .what = what};
    copy_bytes(s.in_shape, ra_array_shape(local), x->ndim * sizeof(int64_t));
    if (src.kind == RA_SBP_SPLIT) s.glen_src = group_len(x, cur, m, (size_t)src.dim);
    if (dst.kind == RA_SBP_SPLIT) s.glen_dst = group_len(x, cur, m, (size_t)dst.dim);
    int64_t oshape[RA_MAX_NDIM];
    copy_bytes(oshape, s.in_shape, x->ndim * sizeof(int64_t));
    ra_fill_fn fill = NULL;
    if (dst.kind == RA_SBP_PARTIAL_SUM && src.kind == RA_SBP_BROADCAST) {
        /* The first rank along m keeps the value, the others hold zeros. */
        if (s.c == 0) {
            *out = ra_array_retain(local);
            return RA_OK;
        }
        fill = fill_zero;
    } else if (dst.kind == RA_SBP_PARTIAL_SUM) {
        oshape[src.dim] = s.glen_src;
        fill = fill_pad;
    } else if (dst.kind == RA_SBP_BROADCAST && src.kind == RA_SBP_SPLIT) {
        oshape[src.dim] = s.glen_src;
        fill = fill_gather;
    } else if (dst.kind == RA_SBP_BROADCAST) {
        fill = fill_allreduce;
    } else {
        int64_t off, len;
        rag__balanced(s.glen_dst, s.k, s.c, &off, &len);
        if (src.kind == RA_SBP_SPLIT) oshape[src.dim] = s.glen_src;
        oshape[dst.dim] = len;
        fill = src.kind == RA_SBP_BROADCAST     ? fill_slice
               : src.kind == RA_SBP_PARTIAL_SUM ? fill_reduce_scatter
                                                : fill_alltoall;
    }
    /* The piece's bytes in host memory: in place for cpu, read for another device. */
    unsigned char *staged = NULL;
    s.in = ra_array_host_data(local);
    size_t nbytes = ra_array_nbytes(local);
    if (!s.in && nbytes) {
        staged = malloc(nbytes);
        if (!staged) return rag__error(g, RA_E_NOMEM, "%s: out of memory", what);
        int status = ra_array_read(g->ctx, local, staged, nbytes);
        if (status != RA_OK) {
            free(staged);
            return rag__from_ra(g, status, what);
        }
        s.in = staged;
    }
    g->message[0] = '\0';
    int status =
        ra_array_create_filled(g->ctx, x->p->local_dev, x->dtype, oshape, x->ndim, fill, &s, out);
    /* A failure of refarray's own (not of the fill, which set g's message) is reported with
     * refarray's detail. */
    if (status != RA_OK && g->message[0] == '\0') rag__from_ra(g, status, what);
    if (s.timed_out) {
        /* The pending collective may still read the input and write the output. */
        rag__keep_array(g, *out);
        rag__keep_array(g, ra_array_retain(local));
        rag__keep(g, staged);
        *out = NULL;
        return RA_E_TIMEOUT;
    }
    free(staged);
    return status;
}

/* Whether converting mesh dim m from a to b may run on m's group while mesh dim k holds c:
 * not when c splits a dim that a or b splits (the group's pieces would not be contiguous). */
static bool conflicts(ra_sbp a, ra_sbp b, ra_sbp c)
{
    if (c.kind != RA_SBP_SPLIT) return false;
    return (a.kind == RA_SBP_SPLIT && a.dim == c.dim) || (b.kind == RA_SBP_SPLIT && b.dim == c.dim);
}

int rag__convert(ra_gctx *g, const ra_global *x, const ra_sbp *sbp, ra_global **out)
{
    if (x->p->me < 0) return rag__global_make(g, x->p, x->dtype, x->shape, x->ndim, sbp, NULL, out);
    ra_sbp cur[RA_PLACEMENT_MAX_NDIM];
    copy_bytes(cur, x->sbp, x->p->ndim * sizeof *cur);
    ra_array *local = ra_array_retain(x->local);
    int status = RA_OK;
    /* Outer mesh dims first; an inner dim that splits the same array dim is made broadcast
     * first and converted to its target last. */
    for (size_t pass = 0; pass < 2 && status == RA_OK; pass++) {
        for (size_t m = 0; m < x->p->ndim && status == RA_OK; m++) {
            if (ra_sbp_eq(cur[m], sbp[m])) continue;
            for (size_t k = m + 1; k < x->p->ndim && status == RA_OK; k++) {
                if (!conflicts(cur[m], sbp[m], cur[k])) continue;
                ra_array *next = NULL;
                status = convert_dim(g, x, cur, k, ra_sbp_broadcast(), local, &next);
                if (status != RA_OK) break;
                ra_array_release(local);
                local = next;
                cur[k] = ra_sbp_broadcast();
            }
            if (status != RA_OK) break;
            ra_array *next = NULL;
            status = convert_dim(g, x, cur, m, sbp[m], local, &next);
            if (status != RA_OK) break;
            ra_array_release(local);
            local = next;
            cur[m] = sbp[m];
        }
    }
    if (status != RA_OK) {
        ra_array_release(local);
        return status;
    }
    return rag__global_make(g, x->p, x->dtype, x->shape, x->ndim, sbp, local, out);
}

int ra_global_to_sbp(ra_gctx *g, const ra_global *x, const ra_sbp *sbp, size_t nsbp,
                     ra_global **out)
{
    static const char fn[] = "ra_global_to_sbp";
    if (!g) return RA_E_NULL;
    int status = RA_OK;
    if (!x || !out) status = rag__error(g, RA_E_NULL, "%s: x or out is NULL", fn);
    if (status == RA_OK) status = rag__sbp_check(g, x->p, sbp, nsbp, x->ndim, fn);
    uint64_t sig = 0;
    if (status == RA_OK) sig = rag__sbp_hash(rag__global_hash(RAG_HASH_INIT, x), sbp, nsbp);
    status = rag__agree(g, sig, status, fn);
    if (status != RA_OK) return status;
    return rag__convert(g, x, sbp, out);
}

int ra_global_read(ra_gctx *g, const ra_global *x, void *dst, size_t dst_bytes)
{
    static const char fn[] = "ra_global_read";
    if (!g) return RA_E_NULL;
    int status = RA_OK;
    /* dst may be NULL for an array of no elements (dst_bytes 0). */
    if (!x || (!dst && dst_bytes)) status = rag__error(g, RA_E_NULL, "%s: x or dst is NULL", fn);
    size_t need = 0;
    if (status == RA_OK) {
        need = ra_dtype_size(x->dtype) * rag__prod(x->shape, 0, x->ndim);
        if (need != dst_bytes)
            status = rag__error(g, RA_E_BUFFER, "%s: the array has %zu bytes, dst %zu", fn, need,
                                dst_bytes);
    }
    ra_sbp b[RA_PLACEMENT_MAX_NDIM] = {ra_sbp_broadcast(), ra_sbp_broadcast()};
    ra_global *all = NULL;
    status = rag__agree(g, status == RA_OK ? rag__global_hash(RAG_HASH_INIT, x) : 0, status, fn);
    if (status == RA_OK) status = rag__convert(g, x, b, &all);
    if (status != RA_OK) return status;
    /* A rank outside the placement has no piece: the first rank of the placement sends. */
    if (x->p->n < (size_t)g->size) {
        void *src = NULL;
        if (x->p->me >= 0) src = (void *)ra_array_host_data(all->local);
        unsigned char *tmp = NULL;
        if (x->p->me >= 0 && !src && need) {
            tmp = malloc(need);
            if (tmp) ra_array_read(g->ctx, all->local, tmp, need);
            src = tmp;
        }
        /* Through a buffer of its own, which a timed-out request keeps. */
        unsigned char *bc = malloc(need + 1);
        if (!bc) {
            free(tmp);
            ra_global_release(all);
            return rag__error(g, RA_E_NOMEM, "%s: out of memory", fn);
        }
        if (g->rank == x->p->ranks[0] && src && need) memcpy(bc, src, need);
        MPI_Request req;
        int rc = MPI_Ibcast(bc, (int)need, MPI_BYTE, (int)x->p->ranks[0], g->comm, &req);
        status = rc == MPI_SUCCESS ? rag__wait(g, &req, fn) : rag__mpi(g, rc, fn);
        if (status == RA_OK && need) memcpy(dst, bc, need);
        if (status == RA_E_TIMEOUT) {
            rag__keep(g, bc);
        } else {
            free(bc);
        }
        free(tmp);
    } else if (need) {
        status = ra_array_read(g->ctx, all->local, dst, need);
        if (status != RA_OK) status = rag__from_ra(g, status, fn);
    }
    ra_global_release(all);
    return status;
}
