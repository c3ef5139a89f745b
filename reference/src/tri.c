/* tri.c: tril and triu (DEV-CREATE-8). The result is a new zero-filled array on x's device
 * (ra__array_new zero-initialises); the kept part of each row is copied into it with the
 * device's own copy slot. Kept segments that touch in memory (whole rows one after another)
 * are merged into one copy. A backend without a copy slot, and a non-host device where that
 * would take more than STAGE_ABOVE_SEGMENTS copies, get the same result through host
 * memory (x read once, the result written once). */
#include "internal.h"

#include <string.h>

/* Columns [*lo, *hi) of row i that are kept in an m-column matrix. */
static void kept_columns(bool upper, int64_t i, int64_t k, int64_t m, int64_t *lo, int64_t *hi)
{
    /* tril keeps j <= i + k, triu keeps j >= i + k; clamp without overflowing int64 for any
     * k (i and m are array extents, far from the limits). */
    int64_t d;
    if (k > 0 && i > INT64_MAX - k)
        d = INT64_MAX;
    else if (k < 0 && i < INT64_MIN - k)
        d = INT64_MIN;
    else
        d = i + k;
    if (upper) {
        *lo = d < 0 ? 0 : (d > m ? m : d);
        *hi = m;
    } else {
        *lo = 0;
        *hi = d < 0 ? 0 : (d >= m ? m : d + 1);
    }
}

/* Copies the byte range [from, to) of x to the same place in y on the device, or into host
 * memory `host` (the staging copy of the result) when the device has no copy slot. */
static int copy_range(const ra_array *x, ra_array *y, char *host, const char *xhost, size_t from,
                      size_t to)
{
    if (to == from) return RA_OK;
    if (host) {
        memcpy(host + from, xhost + from, to - from);
        return RA_OK;
    }
    ra__dev *d = x->dev;
    return d->ops->copy(d->impl, y->buf, from, to - from, x->buf, from, to - from, to - from, 1,
                        NULL);
}

/* Above this many copies on a device that is not the host, tril/triu stage through host
 * memory. */
#define STAGE_ABOVE_SEGMENTS 16

/* Walks the kept byte ranges of x, merging those that touch (whole rows one after another),
 * and copies each into y; with y NULL it only counts them. Returns the number of ranges;
 * *status (when not NULL) gets the first copy's failure, after which nothing more is
 * copied. */
static size_t walk(const ra_array *x, ra_array *y, bool upper, int64_t k, char *host,
                   const char *xhost, int *status)
{
    int64_t n = x->shape[x->ndim - 2], m = x->shape[x->ndim - 1];
    size_t esize = ra_dtype_size(x->dtype), row = (size_t)m * esize;
    size_t matrices = (size_t)(x->size / (n * m)), count = 0;
    int st = RA_OK;
    /* The pending byte range [from, to) grows while kept segments follow each other. */
    size_t from = 0, to = 0;
    for (size_t b = 0; b < matrices && st == RA_OK; b++) {
        for (int64_t i = 0; i < n && st == RA_OK; i++) {
            int64_t lo, hi;
            kept_columns(upper, i, k, m, &lo, &hi);
            if (lo >= hi) continue;
            size_t base = (b * (size_t)n + (size_t)i) * row;
            size_t s = base + (size_t)lo * esize, e = base + (size_t)hi * esize;
            if (s != to) {
                if (to != from) {
                    count++;
                    if (y) st = copy_range(x, y, host, xhost, from, to);
                }
                from = s;
            }
            to = e;
        }
    }
    if (to != from && st == RA_OK) {
        count++;
        if (y) st = copy_range(x, y, host, xhost, from, to);
    }
    if (status) *status = st;
    return count;
}

static int tri(ra_ctx *ctx, const char *fn, bool upper, const ra_array *x, int64_t k,
               ra_array **out)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    *out = NULL;
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", fn);
    RA__REFUSE_LAYERED(ctx, x, fn);
    if (x->ndim < 2)
        return ra__ctx_error(ctx, RA_E_SHAPE,
                             "%s: x has %zu dimensions; at least 2 are needed (a stack of "
                             "matrices over the last two axes)",
                             fn, x->ndim);
    ra_array *y = NULL;
    /* DEV-CREATE-8: the result is allocated on x's device. */
    int status = ra__array_new(ctx, x->dev, x->dtype, x->shape, x->ndim, &y);
    if (status != RA_OK) return status;
    if (!x->nbytes) {
        *out = y;
        return RA_OK;
    }
    char *host = NULL, *xhost = NULL;
    /* Every device copy is one enqueued command on an OpenCL device (tens of microseconds
     * each on PoCL), so past a few segments staging the whole matrix through host memory
     * (one read, one write) is faster; the host backend's copies are plain memcpy. */
    bool staged =
        !x->dev->ops->copy || (!RA__DEV_HOST_MEMORY(x->dev) &&
                               walk(x, NULL, upper, k, NULL, NULL, NULL) > STAGE_ABOVE_SEGMENTS);
    if (staged) {
        host = ra__calloc(ctx, 1, x->nbytes);
        xhost = ra__alloc(ctx, x->nbytes);
        if (!host || !xhost) {
            status = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory for staging buffers", fn);
            goto done;
        }
        status = x->dev->ops->read(x->dev->impl, x->buf, 0, xhost, x->nbytes, NULL);
        if (status != RA_OK) goto done;
    }
    walk(x, y, upper, k, host, xhost, &status);
    if (status == RA_OK && host) status = ra__array_write(ctx, y, host);
done:
    ra__free(ctx, host);
    ra__free(ctx, xhost);
    return ra__array_hand_out(status, y, out);
}

int ra_tril(ra_ctx *ctx, const ra_array *x, int64_t k, ra_array **out)
{
    return tri(ctx, "ra_tril", false, x, k, out);
}

int ra_triu(ra_ctx *ctx, const ra_array *x, int64_t k, ra_array **out)
{
    return tri(ctx, "ra_triu", true, x, k, out);
}
