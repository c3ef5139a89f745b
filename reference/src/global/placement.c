/* placement.c: placements (OF-PL-*), their communicators and printing; sbp values and their
 * printing (OF-SBP-5); the window of an array a rank holds. */
#include "global.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int type_from_name(ra_gctx *g, const char *type, const char *fn, ra_device_type *out)
{
    if (strcmp(type, "cpu") == 0) {
        *out = RA_DEVICE_CPU;
        return RA_OK;
    }
    if (strcmp(type, "gpu") == 0) {
        *out = RA_DEVICE_GPU;
        return RA_OK;
    }
    if (strcmp(type, "tpu") == 0)
        return rag__error(g, RA_E_DEVICE_UNAVAILABLE,
                          "%s: type 'tpu': refarray has no tpu devices to place arrays on", fn);
    return rag__error(g, RA_E_DEVICE_TYPE,
                      "%s: unknown device type '%.40s'; a placement's type is cpu or gpu", fn,
                      type);
}

/* Checks the arguments on this rank alone. */
static int check_args(ra_gctx *g, const char *fn, const int64_t *ranks, size_t nranks,
                      const int64_t *shape, size_t ndim)
{
    if (ndim < 1 || ndim > RA_PLACEMENT_MAX_NDIM)
        return rag__error(g, RA_E_SHAPE, "%s: a placement has 1 or 2 dimensions, not %zu", fn,
                          ndim);
    if (nranks == 0) return rag__error(g, RA_E_ARG, "%s: ranks is empty", fn);
    int64_t prod = 1;
    for (size_t i = 0; i < ndim; i++) {
        if (shape[i] < 1)
            return rag__error(g, RA_E_SHAPE, "%s: mesh dimension %zu has extent %lld (>= 1 needed)",
                              fn, i, (long long)shape[i]);
        prod *= shape[i];
    }
    if ((size_t)prod != nranks)
        return rag__error(g, RA_E_SHAPE, "%s: %zu ranks do not fill the mesh of %lld ranks", fn,
                          nranks, (long long)prod);
    for (size_t i = 0; i < nranks; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size)
            return rag__error(g, RA_E_ARG, "%s: rank %lld is outside the world of %d ranks (0..%d)",
                              fn, (long long)ranks[i], g->size, g->size - 1);
        for (size_t j = 0; j < i; j++)
            if (ranks[j] == ranks[i])
                return rag__error(g, RA_E_ARG, "%s: rank %lld appears twice", fn,
                                  (long long)ranks[i]);
    }
    return RA_OK;
}

void rag__coord(const ra_placement *p, int64_t i, int64_t *coord)
{
    for (size_t m = p->ndim; m-- > 0;) {
        coord[m] = i % p->shape[m];
        i /= p->shape[m];
    }
}

static void placement_free(ra_placement *p)
{
    if (p->ndim == 2)
        for (size_t m = 0; m < 2; m++)
            if (p->dim_comm[m] != MPI_COMM_NULL) MPI_Comm_free(&p->dim_comm[m]);
    if (p->comm != MPI_COMM_NULL) MPI_Comm_free(&p->comm);
    free(p->ranks);
    free(p);
}

static int cmp_rank(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int ra_placement_create(ra_gctx *g, const char *type, const int64_t *ranks, size_t nranks,
                        const int64_t *shape, size_t ndim, ra_placement **out)
{
    static const char fn[] = "ra_placement_create";
    if (!g) return RA_E_NULL;
    if (!out) return rag__error(g, RA_E_NULL, "%s: out is NULL", fn);
    if (!type) return rag__error(g, RA_E_NULL, "%s: type is NULL", fn);
    if (!ranks && nranks) return rag__error(g, RA_E_NULL, "%s: ranks is NULL", fn);
    int64_t flat[1] = {(int64_t)nranks};
    if (!shape) {
        if (ndim != 1) return rag__error(g, RA_E_NULL, "%s: shape is NULL with ndim %zu", fn, ndim);
        shape = flat;
    }
    ra_device_type t = RA_DEVICE_CPU;
    int status = type_from_name(g, type, fn, &t);
    if (status == RA_OK) status = check_args(g, fn, ranks, nranks, shape, ndim);
    ra_placement *p = NULL;
    if (status == RA_OK) {
        p = calloc(1, sizeof *p);
        if (p) p->ranks = malloc(nranks * sizeof *p->ranks);
        if (!p || !p->ranks) {
            free(p);
            p = NULL;
            status = rag__error(g, RA_E_NOMEM, "%s: out of memory", fn);
        }
    }
    if (p) {
        atomic_init(&p->refs, 1);
        p->g = g;
        p->type = t;
        p->ndim = ndim;
        p->n = nranks;
        p->me = -1;
        p->comm = MPI_COMM_NULL;
        p->dim_comm[0] = p->dim_comm[1] = MPI_COMM_NULL;
        memcpy(p->shape, shape, ndim * sizeof *shape);
        /* OneFlow keeps a placement's ranks as a set: [3, 2, 1, 0] is [0, 1, 2, 3], printed
         * sorted and equal to it (OneFlow 0.9.0), so the ranks are sorted here and the mesh
         * shape laid over them in that order. */
        memcpy(p->ranks, ranks, nranks * sizeof *ranks);
        qsort(p->ranks, nranks, sizeof *p->ranks, cmp_rank);
        ranks = p->ranks;
        for (size_t i = 0; i < nranks; i++)
            if (ranks[i] == g->rank) p->me = (int64_t)i;
        if (p->me >= 0) rag__coord(p, p->me, p->coord);
        p->local_dev = RA_CPU;
        /* A gpu placement needs a gpu on each of its ranks (the rank's device mapping). */
        if (t == RA_DEVICE_GPU && p->me >= 0) {
            int ngpus = ra_util_num_gpus(g->ctx);
            if (ngpus < 1)
                status = rag__error(g, RA_E_DEVICE_UNAVAILABLE,
                                    "%s: can't place on type gpu: rank %d has no gpu device", fn,
                                    g->rank);
            else
                p->local_dev = (ra_device){RA_DEVICE_GPU, g->node_rank % ngpus};
        }
        uint64_t h = rag__hash(RAG_HASH_INIT, &t, sizeof t);
        h = rag__hash(h, &ndim, sizeof ndim);
        h = rag__hash(h, shape, ndim * sizeof *shape);
        p->hash = rag__hash(h, ranks, nranks * sizeof *ranks);
    }
    /* Every rank learns whether all could make the placement and made the same call. */
    status = rag__agree(g, p ? p->hash : 0, status, fn);
    if (status == RA_OK) {
        int rc = MPI_Comm_split(g->comm, p->me >= 0 ? 0 : MPI_UNDEFINED, (int)p->me, &p->comm);
        if (rc == MPI_SUCCESS && p->comm != MPI_COMM_NULL) {
            if (ndim == 1) {
                p->dim_comm[0] = p->comm;
            } else {
                /* Mesh dim 0 groups the ranks of one column, mesh dim 1 those of one row. */
                rc = MPI_Comm_split(p->comm, (int)p->coord[1], (int)p->coord[0], &p->dim_comm[0]);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Comm_split(p->comm, (int)p->coord[0], (int)p->coord[1],
                                        &p->dim_comm[1]);
            }
        }
        if (rc != MPI_SUCCESS) status = rag__mpi(g, rc, fn);
    }
    if (status != RA_OK) {
        if (p) placement_free(p);
        return status;
    }
    *out = p;
    return RA_OK;
}

int ra_placement_create_rows(ra_gctx *g, const char *type, const int64_t *const *rows,
                             const size_t *row_len, size_t nrows, ra_placement **out)
{
    static const char fn[] = "ra_placement_create_rows";
    if (!g) return RA_E_NULL;
    if (!out) return rag__error(g, RA_E_NULL, "%s: out is NULL", fn);
    if (nrows && (!rows || !row_len)) return rag__error(g, RA_E_NULL, "%s: rows is NULL", fn);
    int status = RA_OK;
    int64_t *flat = NULL;
    size_t n = 0;
    for (size_t i = 0; i < nrows && status == RA_OK; i++) {
        if (row_len[i] != row_len[0])
            status =
                rag__error(g, RA_E_SHAPE, "%s: ragged rows: row 0 has %zu ranks, row %zu has %zu",
                           fn, row_len[0], i, row_len[i]);
        else if (!rows[i] && row_len[i])
            status = rag__error(g, RA_E_NULL, "%s: row %zu is NULL", fn, i);
    }
    if (status == RA_OK && nrows) {
        flat = malloc(nrows * row_len[0] * sizeof *flat + 1);
        if (!flat) status = rag__error(g, RA_E_NOMEM, "%s: out of memory", fn);
        for (size_t i = 0; flat && i < nrows; i++)
            for (size_t j = 0; j < row_len[0]; j++)
                flat[n++] = rows[i][j];
    }
    if (status != RA_OK) {
        /* The others may have made a valid call: they must not wait for this rank. */
        rag__agree(g, 0, status, fn);
        free(flat);
        return status;
    }
    int64_t shape[2] = {(int64_t)nrows, nrows ? (int64_t)row_len[0] : 0};
    status = ra_placement_create(g, type, flat, n, shape, 2, out);
    free(flat);
    return status;
}

int ra_placement_all(ra_gctx *g, const char *type, ra_placement **out)
{
    if (!g) return RA_E_NULL;
    int64_t *ranks = malloc((size_t)g->size * sizeof *ranks);
    if (!ranks) {
        int status = rag__error(g, RA_E_NOMEM, "ra_placement_all: out of memory");
        rag__agree(g, 0, status, "ra_placement_all");
        return status;
    }
    for (int r = 0; r < g->size; r++)
        ranks[r] = r;
    int status = ra_placement_create(g, type, ranks, (size_t)g->size, NULL, 1, out);
    free(ranks);
    return status;
}

ra_placement *ra_placement_retain(const ra_placement *p)
{
    if (p) atomic_fetch_add(&((ra_placement *)p)->refs, 1);
    return (ra_placement *)p;
}

void ra_placement_release(ra_placement *p)
{
    if (p && atomic_fetch_sub(&p->refs, 1) == 1) placement_free(p);
}

bool ra_placement_eq(const ra_placement *a, const ra_placement *b)
{
    if (!a || !b) return false;
    if (a->g != b->g || a->type != b->type || a->ndim != b->ndim || a->n != b->n) return false;
    return memcmp(a->shape, b->shape, a->ndim * sizeof *a->shape) == 0 &&
           memcmp(a->ranks, b->ranks, a->n * sizeof *a->ranks) == 0;
}

/* Appends to buf (cap bytes) at *used, counting what it would need past the end. */
static void put(char *buf, size_t cap, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t cap, size_t *used, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(*used < cap ? buf + *used : NULL, *used < cap ? cap - *used : 0, fmt, ap);
    va_end(ap);
    if (n > 0) *used += (size_t)n;
}

int ra_placement_format(const ra_placement *p, char *buf, size_t cap)
{
    if (!p || !buf) return RA_E_NULL;
    size_t used = 0;
    put(buf, cap, &used, "oneflow.placement(type=\"%s\", ranks=[", ra_device_type_name(p->type));
    int64_t cols = p->ndim == 2 ? p->shape[1] : (int64_t)p->n;
    for (size_t i = 0; i < p->n; i++) {
        int64_t j = (int64_t)i % cols;
        if (p->ndim == 2 && j == 0) put(buf, cap, &used, "%s[", i ? ", " : "");
        put(buf, cap, &used, "%s%lld", j ? ", " : "", (long long)p->ranks[i]);
        if (p->ndim == 2 && j == cols - 1) put(buf, cap, &used, "]");
    }
    put(buf, cap, &used, "])");
    if (used + 1 > cap) {
        if (cap) buf[0] = '\0';
        return rag__error(p->g, RA_E_BUFFER, "ra_placement_format: needs %zu bytes, has %zu",
                          used + 1, cap);
    }
    return RA_OK;
}

ra_device_type ra_placement_type(const ra_placement *p)
{
    return p ? p->type : (ra_device_type)0;
}

size_t ra_placement_ndim(const ra_placement *p)
{
    return p ? p->ndim : 0;
}

const int64_t *ra_placement_shape(const ra_placement *p)
{
    return p ? p->shape : NULL;
}

const int64_t *ra_placement_ranks(const ra_placement *p)
{
    return p ? p->ranks : NULL;
}

size_t ra_placement_size(const ra_placement *p)
{
    return p ? p->n : 0;
}

bool ra_placement_has_me(const ra_placement *p)
{
    return p && p->me >= 0;
}

ra_device ra_placement_local_device(const ra_placement *p)
{
    return p && p->me >= 0 ? p->local_dev : RA_CPU;
}

/* ---- sbp ---- */

bool ra_sbp_eq(ra_sbp a, ra_sbp b)
{
    return a.kind == b.kind && (a.kind != RA_SBP_SPLIT || a.dim == b.dim);
}

int ra_sbp_format(ra_sbp s, char *buf, size_t cap)
{
    if (!buf) return RA_E_NULL;
    char tmp[48];
    switch (s.kind) {
    case RA_SBP_SPLIT:
        if (s.dim < 0) return RA_E_ARG;
        snprintf(tmp, sizeof tmp, "oneflow.sbp.split(dim=%d)", (int)s.dim);
        break;
    case RA_SBP_BROADCAST:
        snprintf(tmp, sizeof tmp, "oneflow.sbp.broadcast");
        break;
    case RA_SBP_PARTIAL_SUM:
        snprintf(tmp, sizeof tmp, "oneflow.sbp.partial_sum");
        break;
    default:
        return RA_E_ARG;
    }
    if (strlen(tmp) + 1 > cap) {
        if (cap) buf[0] = '\0';
        return RA_E_BUFFER;
    }
    memcpy(buf, tmp, strlen(tmp) + 1);
    return RA_OK;
}

int rag__sbp_check(ra_gctx *g, const ra_placement *p, const ra_sbp *sbp, size_t nsbp, size_t ndim,
                   const char *what)
{
    if (!sbp && nsbp) return rag__error(g, RA_E_NULL, "%s: sbp is NULL", what);
    if (nsbp != p->ndim)
        return rag__error(g, RA_E_ARG,
                          "%s: %zu sbp values for a placement of %zu dimensions (one per "
                          "dimension)",
                          what, nsbp, p->ndim);
    for (size_t m = 0; m < nsbp; m++) {
        if (sbp[m].kind == RA_SBP_SPLIT) {
            if (sbp[m].dim < 0)
                return rag__error(g, RA_E_AXIS,
                                  "%s: sbp %zu: split axis must not be negative, got %d", what, m,
                                  (int)sbp[m].dim);
            if ((size_t)sbp[m].dim >= ndim)
                return rag__error(g, RA_E_AXIS,
                                  "%s: sbp %zu: split(dim=%d) of an array of %zu dimensions", what,
                                  m, (int)sbp[m].dim, ndim);
        } else if (sbp[m].kind != RA_SBP_BROADCAST && sbp[m].kind != RA_SBP_PARTIAL_SUM) {
            return rag__error(g, RA_E_ARG, "%s: sbp %zu: unknown kind %d", what, m,
                              (int)sbp[m].kind);
        }
    }
    return RA_OK;
}

void rag__window(const ra_placement *p, const int64_t *coord, const ra_sbp *sbp,
                 const int64_t *shape, size_t ndim, size_t upto, int64_t *off, int64_t *len)
{
    for (size_t d = 0; d < ndim; d++) {
        off[d] = 0;
        len[d] = shape[d];
    }
    for (size_t m = 0; m < upto && m < p->ndim; m++) {
        if (sbp[m].kind != RA_SBP_SPLIT) continue;
        size_t d = (size_t)sbp[m].dim;
        int64_t o, l;
        rag__balanced(len[d], p->shape[m], coord[m], &o, &l);
        off[d] += o;
        len[d] = l;
    }
}

uint64_t rag__sbp_hash(uint64_t h, const ra_sbp *sbp, size_t nsbp)
{
    for (size_t m = 0; m < nsbp; m++) {
        int32_t v[2] = {(int32_t)sbp[m].kind, sbp[m].kind == RA_SBP_SPLIT ? sbp[m].dim : 0};
        h = rag__hash(h, v, sizeof v);
    }
    return h;
}
