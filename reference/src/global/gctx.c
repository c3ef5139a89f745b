/* gctx.c: global contexts, their errors, the agreement step and bounded waits. */
#include "global.h"

#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char create_message[RAG_MESSAGE_MAX];

int rag__error(ra_gctx *g, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g ? g->message : create_message, RAG_MESSAGE_MAX, fmt, ap);
    va_end(ap);
    return status;
}

int rag__from_ra(ra_gctx *g, int status, const char *what)
{
    char detail[RAG_MESSAGE_MAX];
    snprintf(detail, sizeof detail, "%s", ra_ctx_message(g->ctx));
    return rag__error(g, status, "%s: %s", what, detail);
}

int rag__mpi(ra_gctx *g, int rc, const char *what)
{
    if (rc == MPI_SUCCESS) return RA_OK;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "code %d", rc);
    g->broken = true;
    return rag__error(g, RA_E_COMM, "%s: MPI failed on rank %d: %s", what, g->rank, text);
}

static void *grow(void *p, size_t n, size_t size)
{
    return realloc(p, (n + 1) * size);
}

void rag__keep(ra_gctx *g, void *p)
{
    void **k = p ? grow(g->kept, g->nkept, sizeof *k) : NULL;
    if (!k) return; /* then the memory is leaked: never freed under a pending request */
    g->kept = k;
    g->kept[g->nkept++] = p;
}

void rag__keep_array(ra_gctx *g, ra_array *x)
{
    ra_array **k = x ? grow(g->kept_arrays, g->nkept_arrays, sizeof *k) : NULL;
    if (!k) return;
    g->kept_arrays = k;
    g->kept_arrays[g->nkept_arrays++] = x;
}

int rag__wait(ra_gctx *g, MPI_Request *req, const char *what)
{
    double deadline = MPI_Wtime() + g->timeout_s;
    for (;;) {
        int done = 0;
        int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return rag__mpi(g, rc, what);
        if (done) return RA_OK;
        if (MPI_Wtime() > deadline) {
            /* MPI cannot cancel a collective: the request stays pending, so the context can
             * never communicate again, and the memory it uses is kept (rag__keep). */
            g->broken = true;
            MPI_Request *pend = grow(g->pending, g->npending, sizeof *pend);
            if (pend) {
                g->pending = pend;
                g->pending[g->npending++] = *req;
            }
            return rag__error(g, RA_E_TIMEOUT,
                              "%s: rank %d waited %.1f s for the other ranks; one of them failed "
                              "or did not make the same call; this global context is broken",
                              what, g->rank, g->timeout_s);
        }
        /* Ranks may share cores (mpirun --oversubscribe): give the others the processor. */
        sched_yield();
    }
}

uint64_t rag__hash(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

size_t rag__prod(const int64_t *shape, size_t from, size_t to)
{
    size_t n = 1;
    for (size_t d = from; d < to; d++)
        n *= (size_t)shape[d];
    return n;
}

void rag__balanced(int64_t n, int64_t k, int64_t i, int64_t *off, int64_t *len)
{
    int64_t base = n / k, rem = n % k;
    *len = base + (i < rem ? 1 : 0);
    *off = i * base + (i < rem ? i : rem);
}

int rag__allgather(ra_gctx *g, MPI_Comm comm, const int64_t *mine, size_t n, int64_t *out,
                   const char *what)
{
    if (g->broken)
        return rag__error(g, RA_E_COMM, "%s: the global context is broken by an earlier failure",
                          what);
    /* Both buffers on the heap: after a timeout the pending request keeps them. */
    int size = 0;
    MPI_Comm_size(comm, &size);
    int64_t *buf = malloc(((size_t)size + 1) * n * sizeof *buf);
    if (!buf) return rag__error(g, RA_E_NOMEM, "%s: out of memory", what);
    memcpy(buf, mine, n * sizeof *buf);
    MPI_Request req;
    int rc = MPI_Iallgather(buf, (int)n, MPI_INT64_T, buf + n, (int)n, MPI_INT64_T, comm, &req);
    int status = rc == MPI_SUCCESS ? rag__wait(g, &req, what) : rag__mpi(g, rc, what);
    if (status == RA_E_TIMEOUT) {
        rag__keep(g, buf);
        return status;
    }
    if (status == RA_OK) memcpy(out, buf + n, (size_t)size * n * sizeof *buf);
    free(buf);
    return status;
}

int rag__agree(ra_gctx *g, uint64_t sig, int local_status, const char *what)
{
    int64_t mine[2] = {(int64_t)sig, local_status};
    int64_t *all = malloc((size_t)g->size * sizeof mine);
    if (!all) {
        /* Without the buffer this rank cannot take part: the others time out. */
        return rag__error(g, RA_E_NOMEM, "%s: no memory for the agreement step", what);
    }
    char keep[RAG_MESSAGE_MAX];
    snprintf(keep, sizeof keep, "%s", g->message);
    int status = rag__allgather(g, g->comm, mine, 2, all, what);
    if (status == RA_OK && local_status != RA_OK) {
        /* This rank's own error is what it reports (every rank may have the same one). */
        snprintf(g->message, RAG_MESSAGE_MAX, "%s", keep);
        status = local_status;
    }
    for (int r = 0; status == RA_OK && r < g->size; r++)
        if (all[2 * r + 1] != RA_OK)
            status = rag__error(g, RA_E_COMM, "%s: rank %d failed (%s)", what, r,
                                ra_status_name((int)all[2 * r + 1]));
    if (status == RA_OK) {
        for (int r = 1; r < g->size; r++)
            if (all[2 * r] != all[0]) {
                status = rag__error(g, RA_E_COMM,
                                    "%s: ranks 0 and %d made different calls (an argument differs "
                                    "between ranks; every rank must make the same calls)",
                                    what, r);
                break;
            }
    }
    free(all);
    return status;
}

/* Elementwise inout += in for 8- and 16-bit integers, wrapping as C's unsigned addition
 * does. OpenMPI 4.1's vectorised MPI_SUM for these types saturates (253 + 6 gives 255 in
 * uint8), which is not the dtype's addition; this operation replaces it. */
static void wrap_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int n = *len;
    if (*type == MPI_INT8_T || *type == MPI_UINT8_T) {
        const uint8_t *a = in;
        uint8_t *b = inout;
        for (int i = 0; i < n; i++)
            b[i] = (uint8_t)(a[i] + b[i]);
    } else {
        const uint16_t *a = in;
        uint16_t *b = inout;
        for (int i = 0; i < n; i++)
            b[i] = (uint16_t)(a[i] + b[i]);
    }
}

/* MPI has no float16 type: float16 partial sums add through double, which holds the exact
 * sum of two binary16 values, and round back once with refarray's codec. */
static void half_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const uint16_t *a = in;
    uint16_t *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = ra_float16_from_double(ra_float16_to_double(a[i]) + ra_float16_to_double(b[i]));
}

int ra_gctx_create(ra_ctx *ctx, MPI_Comm comm, const ra_gctx_options *opts, ra_gctx **out)
{
    static const char fn[] = "ra_gctx_create";
    if (!out) return rag__error(NULL, RA_E_NULL, "%s: out is NULL", fn);
    if (!ctx) return rag__error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (opts && opts->size != 0 && opts->size != sizeof *opts)
        return rag__error(NULL, RA_E_ARG, "%s: options size %zu; this library knows %zu", fn,
                          opts->size, sizeof *opts);
    double timeout = opts && opts->timeout_s != 0 ? opts->timeout_s : 60.0;
    if (!(timeout > 0))
        return rag__error(NULL, RA_E_ARG, "%s: timeout_s %g must be positive (0: 60 s)", fn,
                          opts->timeout_s);
    int init = 0;
    MPI_Initialized(&init);
    if (!init) return rag__error(NULL, RA_E_COMM, "%s: MPI is not initialised", fn);
    ra_gctx *g = calloc(1, sizeof *g);
    if (!g) return rag__error(NULL, RA_E_NOMEM, "%s: out of memory", fn);
    g->ctx = ctx;
    g->timeout_s = timeout;
    g->comm = MPI_COMM_NULL;
    g->wrap_sum = MPI_OP_NULL;
    g->half_sum = MPI_OP_NULL;
    MPI_Comm node = MPI_COMM_NULL;
    int rc = MPI_Op_create(wrap_sum, 1, &g->wrap_sum);
    if (rc == MPI_SUCCESS) rc = MPI_Op_create(half_sum, 1, &g->half_sum);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_dup(comm, &g->comm);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(g->comm, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(g->comm, &g->rank);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_size(g->comm, &g->size);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_split_type(g->comm, MPI_COMM_TYPE_SHARED, g->rank, MPI_INFO_NULL, &node);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(node, &g->node_rank);
    if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, text, &len);
        if (g->comm != MPI_COMM_NULL) MPI_Comm_free(&g->comm);
        if (g->wrap_sum != MPI_OP_NULL) MPI_Op_free(&g->wrap_sum);
        if (g->half_sum != MPI_OP_NULL) MPI_Op_free(&g->half_sum);
        free(g);
        return rag__error(NULL, RA_E_COMM, "%s: %s", fn, text);
    }
    *out = g;
    return RA_OK;
}

void ra_gctx_destroy(ra_gctx *g)
{
    if (!g) return;
    bool done = true;
    for (size_t i = 0; i < g->npending; i++) {
        int flag = 0;
        if (MPI_Test(&g->pending[i], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || !flag)
            done = false;
    }
    /* Memory under a request that never completed is leaked on purpose: freeing it would let
     * MPI write into memory in use elsewhere. */
    if (done) {
        for (size_t i = 0; i < g->nkept; i++)
            free(g->kept[i]);
        for (size_t i = 0; i < g->nkept_arrays; i++)
            ra_array_release(g->kept_arrays[i]);
    }
    free(g->pending);
    free(g->kept);
    free(g->kept_arrays);
    MPI_Comm_free(&g->comm);
    MPI_Op_free(&g->wrap_sum);
    MPI_Op_free(&g->half_sum);
    free(g);
}

const char *ra_gctx_message(const ra_gctx *g)
{
    return g ? g->message : create_message;
}

int ra_gctx_rank(const ra_gctx *g)
{
    return g ? g->rank : -1;
}

int ra_gctx_size(const ra_gctx *g)
{
    return g ? g->size : 0;
}

ra_ctx *ra_gctx_local_ctx(const ra_gctx *g)
{
    return g ? g->ctx : NULL;
}

bool ra_gctx_broken(const ra_gctx *g)
{
    return g && g->broken;
}
