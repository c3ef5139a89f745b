/* test_global.c: global arrays over 4 MPI ranks (OF-ATTR-1, OF-PL-*, OF-SBP-*): placements,
 * sbp printing, every conversion pair on every dtype with uneven splits, 2-D placements,
 * creation from local pieces, operations, and the errors: bad arguments, calls that differ
 * between ranks, a rank that never comes.
 *
 * On devspec's one C test harness (testing/dtest.h), run by every rank. Every check is
 * collective: each rank evaluates it, and it passes only when it passed on every rank, so a
 * failure stops the test on every rank at once (no rank is left waiting in a collective). A
 * rank that fails prints its own diagnostic to stderr; only rank 0 writes the TAP output. Expected
 * values are computed here from the statements (balanced pieces, zeros for the non-first
 * partial_sum pieces), independently of the library. */
#include "dtest.h"
#include "refarray_global.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, nranks;

static int check(int ok, const char *file, int line, const char *fmt, ...)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!ok) fprintf(stderr, "# rank %d failed the check at %s:%d\n", rank, file, line);
    if (all) return 1;
    MPI_Barrier(MPI_COMM_WORLD);
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    dt_fail(file, line, "%s (failed on at least one rank)", what);
}
#define CHECK(cond, ...) check((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)

static ra_gctx *G;

/* A status check that prints the rank's message when it differs. */
static int status_is(int got, int want, const char *what)
{
    if (got != want)
        printf("# rank %d: %s: expected %s, got %s: %s\n", rank, what, ra_status_name(want),
               ra_status_name(got), ra_gctx_message(G));
    return got == want;
}

/* ---- expected values, computed independently ---- */

static void piece(int64_t n, int64_t k, int64_t i, int64_t *off, int64_t *len)
{
    int64_t q = n / k, r = n % k;
    *len = q + (i < r);
    *off = i * q + (i < r ? i : r);
}

/* The value of element i of the test arrays in dtype dt, as bytes. */
static void element(ra_dtype dt, int64_t i, unsigned char *out)
{
    int64_t v = (i * 7 + 3) % 23 - 5;
    switch (dt) {
    case RA_BOOL:
        *(bool *)out = i % 3 == 0;
        break;
    case RA_INT8:
        *(int8_t *)out = (int8_t)v;
        break;
    case RA_INT16:
        *(int16_t *)out = (int16_t)(v * 300);
        break;
    case RA_INT32:
        *(int32_t *)out = (int32_t)(v * 70000);
        break;
    case RA_INT64:
        *(int64_t *)out = v * 5000000000LL;
        break;
    case RA_UINT8:
        *(uint8_t *)out = (uint8_t)(v + 5);
        break;
    case RA_UINT16:
        *(uint16_t *)out = (uint16_t)((v + 5) * 1000);
        break;
    case RA_UINT32:
        *(uint32_t *)out = (uint32_t)((v + 5) * 100000);
        break;
    case RA_UINT64:
        *(uint64_t *)out = (uint64_t)(v + 5) * 10000000000ULL;
        break;
    case RA_FLOAT32:
        *(float *)out = (float)v * 0.5f;
        break;
    case RA_FLOAT64:
        *(double *)out = (double)v * 0.25;
        break;
    case RA_COMPLEX64:
        ((float *)out)[0] = (float)v;
        ((float *)out)[1] = (float)-i;
        break;
    case RA_COMPLEX128:
        ((double *)out)[0] = (double)v;
        ((double *)out)[1] = (double)i;
        break;
    case RA_FLOAT16: {
        /* v / 2 in binary16, built by hand: |v| <= 17, so exponent and mantissa are exact. */
        int m = (int)(v < 0 ? -v : v);
        uint16_t bits = 0;
        if (m) {
            int e = 0;
            while ((m >> e) > 1)
                e++;
            bits = (uint16_t)(((e - 1 + 15) << 10) | ((m << (10 - e)) & 0x3ff));
        }
        if (v < 0) bits |= 0x8000;
        memcpy(out, &bits, 2);
        break;
    }
    default:
        break;
    }
}

static size_t numel(const int64_t *shape, size_t ndim)
{
    size_t n = 1;
    for (size_t d = 0; d < ndim; d++)
        n *= (size_t)shape[d];
    return n;
}

static unsigned char *whole_value(ra_dtype dt, const int64_t *shape, size_t ndim)
{
    size_t n = numel(shape, ndim), es = ra_dtype_size(dt);
    unsigned char *v = calloc(n * es + 1, 1);
    for (size_t i = 0; i < n; i++)
        element(dt, (int64_t)i, v + i * es);
    return v;
}

/* The window of each dim that mesh coordinates c hold under sbp (mesh dims in order). */
static void window(const int64_t *mesh, size_t mnd, const int64_t *c, const ra_sbp *sbp,
                   const int64_t *shape, size_t ndim, int64_t *off, int64_t *len)
{
    for (size_t d = 0; d < ndim; d++) {
        off[d] = 0;
        len[d] = shape[d];
    }
    for (size_t m = 0; m < mnd; m++)
        if (sbp[m].kind == RA_SBP_SPLIT) {
            int64_t o, l;
            piece(len[sbp[m].dim], mesh[m], c[m], &o, &l);
            off[sbp[m].dim] += o;
            len[sbp[m].dim] = l;
        }
}

/* The bytes of the window [off, off+len) of a C-ordered whole value (2-D at most here). */
static unsigned char *cut(const unsigned char *v, ra_dtype dt, const int64_t *shape, size_t ndim,
                          const int64_t *off, const int64_t *len, size_t *nbytes)
{
    size_t es = ra_dtype_size(dt);
    size_t n = numel(len, ndim);
    unsigned char *out = calloc(n * es + 1, 1), *p = out;
    if (ndim == 1) {
        memcpy(p, v + (size_t)off[0] * es, (size_t)len[0] * es);
    } else {
        for (int64_t i = 0; i < len[0]; i++) {
            memcpy(p, v + ((size_t)(off[0] + i) * (size_t)shape[1] + (size_t)off[1]) * es,
                   (size_t)len[1] * es);
            p += (size_t)len[1] * es;
        }
    }
    *nbytes = n * es;
    return out;
}

/* Whether the local piece of x is exactly want (nbytes) with shape len. */
static int local_is(const ra_global *x, const unsigned char *want, size_t nbytes,
                    const int64_t *len, size_t ndim)
{
    ra_array *l = NULL;
    if (ra_global_to_local(G, x, &l) != RA_OK) return 0;
    int ok = ra_array_ndim(l) == ndim && ra_array_nbytes(l) == nbytes;
    for (size_t d = 0; ok && d < ndim; d++)
        ok = ra_array_shape(l)[d] == len[d];
    unsigned char *got = malloc(nbytes + 1);
    if (ok && nbytes)
        ok = ra_array_read(ra_gctx_local_ctx(G), l, got, nbytes) == RA_OK &&
             memcmp(got, want, nbytes) == 0;
    if (!ok) printf("# rank %d: the local piece differs (%zu bytes expected)\n", rank, nbytes);
    free(got);
    ra_array_release(l);
    return ok;
}

/* Whether reading the whole of x gives v. */
static int whole_is(const ra_global *x, const unsigned char *v, size_t nbytes)
{
    unsigned char *got = malloc(nbytes + 1);
    int ok =
        status_is(ra_global_read(G, x, got, nbytes), RA_OK, "read") && memcmp(got, v, nbytes) == 0;
    free(got);
    return ok;
}

static const char *sbp_str(ra_sbp s, char *buf)
{
    if (s.kind == RA_SBP_SPLIT)
        sprintf(buf, "S(%d)", (int)s.dim);
    else
        sprintf(buf, "%s", s.kind == RA_SBP_BROADCAST ? "B" : "P");
    return buf;
}

/* The expected local piece of a global array made by from_buffer or converted from src to
 * dst (1-D placement): dst S or B: the window; dst P: from B the first rank keeps the whole,
 * from S the piece padded with zeros, from P the source's own piece. */
static unsigned char *expected_local(const unsigned char *v, ra_dtype dt, const int64_t *shape,
                                     size_t ndim, int64_t mesh, int64_t c, ra_sbp src, ra_sbp dst,
                                     int64_t *len, size_t *nbytes)
{
    int64_t off[2], m[1] = {mesh}, cc[1] = {c};
    if (dst.kind != RA_SBP_PARTIAL_SUM) {
        window(m, 1, cc, &dst, shape, ndim, off, len);
        return cut(v, dt, shape, ndim, off, len, nbytes);
    }
    size_t es = ra_dtype_size(dt), n = numel(shape, ndim);
    for (size_t d = 0; d < ndim; d++)
        len[d] = shape[d];
    *nbytes = n * es;
    unsigned char *out = calloc(n * es + 1, 1);
    if (src.kind == RA_SBP_SPLIT) {
        /* The piece in place, zeros elsewhere. */
        int64_t o2[2], l2[2];
        window(m, 1, cc, &src, shape, ndim, o2, l2);
        for (size_t i = 0; i < n; i++) {
            int64_t idx[2] = {ndim == 2 ? (int64_t)i / shape[1] : (int64_t)i,
                              ndim == 2 ? (int64_t)i % shape[1] : 0};
            int in = 1;
            for (size_t d = 0; d < ndim; d++)
                in = in && idx[d] >= o2[d] && idx[d] < o2[d] + l2[d];
            if (in) memcpy(out + i * es, v + i * es, es);
        }
    } else if (c == 0) {
        memcpy(out, v, n * es);
    }
    return out;
}

/* ---- tests ---- */

static void test_placements(void)
{
    char buf[128];
    ra_placement *flat = NULL, *mesh = NULL, *all = NULL, *rev = NULL, *sub = NULL, *bad = NULL;
    int64_t r4[4] = {0, 1, 2, 3}, r4rev[4] = {3, 2, 1, 0}, shape22[2] = {2, 2};
    CHECK(status_is(ra_placement_create(G, "cpu", r4, 4, NULL, 1, &flat), RA_OK, "flat"),
          "OF-PL-2 placement(cpu, [0, 1, 2, 3])");
    ra_placement_format(flat, buf, sizeof buf);
    CHECK(strcmp(buf, "oneflow.placement(type=\"cpu\", ranks=[0, 1, 2, 3])") == 0,
          "OF-PL-1 a flat placement prints as the guide shows");
    CHECK(status_is(ra_placement_create(G, "cpu", r4, 4, shape22, 2, &mesh), RA_OK, "mesh"),
          "OF-PL-2 placement(cpu, [[0, 1], [2, 3]])");
    ra_placement_format(mesh, buf, sizeof buf);
    CHECK(strcmp(buf, "oneflow.placement(type=\"cpu\", ranks=[[0, 1], [2, 3]])") == 0,
          "OF-PL-2 a 2-D placement prints as nested lists");
    CHECK(ra_placement_ndim(mesh) == 2 && ra_placement_shape(mesh)[0] == 2 &&
              ra_placement_shape(mesh)[1] == 2 && ra_placement_size(mesh) == 4,
          "OF-PL-2 the nested list's shape is the mesh");
    CHECK(status_is(ra_placement_all(G, "cpu", &all), RA_OK, "all"), "OF-PL-3 placement.all(cpu)");
    CHECK(ra_placement_eq(all, flat), "OF-PL-3 placement.all is ranks 0..n-1");
    CHECK(ra_placement_type(all) == RA_DEVICE_CPU, "OF-PL-1 the placement's type");
    CHECK(!ra_placement_eq(flat, mesh), "a flat and a 2-D placement of the same ranks differ");
    ra_placement_create(G, "cpu", r4rev, 4, NULL, 1, &rev);
    CHECK(rev && ra_placement_eq(flat, rev),
          "the ranks are a set: [3, 2, 1, 0] is [0, 1, 2, 3] (OneFlow sorts them)");
    if (rev) ra_placement_format(rev, buf, sizeof buf);
    CHECK(rev && strcmp(buf, "oneflow.placement(type=\"cpu\", ranks=[0, 1, 2, 3])") == 0,
          "a placement prints its ranks sorted");
    int64_t r13[2] = {1, 3};
    CHECK(status_is(ra_placement_create(G, "cpu", r13, 2, NULL, 1, &sub), RA_OK, "sub"),
          "a placement on ranks 1 and 3");
    CHECK(ra_placement_has_me(sub) == (rank == 1 || rank == 3), "has_me on ranks 1 and 3 only");
    CHECK(ra_device_eq(ra_placement_local_device(sub), RA_CPU),
          "a cpu placement's local device is cpu on every rank");
    const int64_t row0[2] = {0, 1}, row1[1] = {2};
    const int64_t *rows[2] = {row0, row1};
    size_t lens[2] = {2, 1};
    CHECK(
        status_is(ra_placement_create_rows(G, "cpu", rows, lens, 2, &bad), RA_E_SHAPE, "ragged") &&
            strstr(ra_gctx_message(G), "ragged"),
        "ragged rows are RA_E_SHAPE");
    int64_t dup[2] = {1, 1}, big[2] = {0, 4};
    CHECK(status_is(ra_placement_create(G, "cpu", dup, 2, NULL, 1, &bad), RA_E_ARG, "dup") &&
              strstr(ra_gctx_message(G), "twice"),
          "a rank twice is RA_E_ARG");
    CHECK(status_is(ra_placement_create(G, "cpu", big, 2, NULL, 1, &bad), RA_E_ARG, "range") &&
              strstr(ra_gctx_message(G), "outside"),
          "a rank beyond the world is RA_E_ARG");
    CHECK(status_is(ra_placement_create(G, "cuda", r4, 4, NULL, 1, &bad), RA_E_DEVICE_TYPE, "type"),
          "an unknown type is RA_E_DEVICE_TYPE");
    CHECK(status_is(ra_placement_create(G, "tpu", r4, 4, NULL, 1, &bad), RA_E_DEVICE_UNAVAILABLE,
                    "tpu"),
          "tpu is unavailable");
    CHECK(status_is(ra_placement_create(G, "gpu", r4, 4, NULL, 1, &bad), RA_E_DEVICE_UNAVAILABLE,
                    "gpu") &&
              (rank != 0 || strstr(ra_gctx_message(G), "gpu")),
          "a gpu placement on ranks without a gpu is unavailable");
    CHECK(status_is(ra_placement_create(G, "cpu", r4, 0, NULL, 1, &bad), RA_E_ARG, "empty"),
          "no rank is RA_E_ARG");
    int64_t shape23[2] = {2, 3};
    CHECK(status_is(ra_placement_create(G, "cpu", r4, 4, shape23, 2, &bad), RA_E_SHAPE, "fill"),
          "a mesh that 4 ranks do not fill is RA_E_SHAPE");
    CHECK(bad == NULL, "failed creations leave out NULL");
    ra_placement_release(flat);
    ra_placement_release(mesh);
    ra_placement_release(all);
    ra_placement_release(rev);
    ra_placement_release(sub);
}

static void test_sbp_print(void)
{
    char buf[64];
    ra_sbp_format(ra_sbp_split(0), buf, sizeof buf);
    CHECK(strcmp(buf, "oneflow.sbp.split(dim=0)") == 0, "OF-SBP-5 split(0) prints");
    ra_sbp_format(ra_sbp_broadcast(), buf, sizeof buf);
    CHECK(strcmp(buf, "oneflow.sbp.broadcast") == 0, "OF-SBP-5 broadcast prints");
    ra_sbp_format(ra_sbp_partial_sum(), buf, sizeof buf);
    CHECK(strcmp(buf, "oneflow.sbp.partial_sum") == 0, "OF-SBP-5 partial_sum prints");
    CHECK(ra_sbp_format(ra_sbp_split(-1), buf, sizeof buf) == RA_E_ARG,
          "a negative split dim is RA_E_ARG");
    CHECK(ra_sbp_eq(ra_sbp_split(1), ra_sbp_split(1)) &&
              !ra_sbp_eq(ra_sbp_split(0), ra_sbp_split(1)) &&
              !ra_sbp_eq(ra_sbp_broadcast(), ra_sbp_partial_sum()),
          "sbp equality");
}

/* Every pair of sbps on every dtype, 1-D placement of 4 ranks, shapes with uneven and empty
 * pieces. */
static void test_pairs(void)
{
    ra_placement *p = NULL;
    ra_placement_all(G, "cpu", &p);
    const int64_t shapes[3][2] = {{5, 6}, {3, 9}, {10, 0}};
    const size_t ndims[3] = {2, 2, 1};
    ra_sbp sbps[4] = {ra_sbp_split(0), ra_sbp_split(1), ra_sbp_broadcast(), ra_sbp_partial_sum()};
    for (int shp = 0; shp < 3; shp++) {
        const int64_t *shape = shapes[shp];
        size_t ndim = ndims[shp];
        int nsbp = ndim == 2 ? 4 : 3;
        ra_sbp *list = ndim == 2 ? sbps : sbps + 1;
        if (ndim == 1) list[0] = ra_sbp_split(0);
        for (int src = 0; src < nsbp; src++) {
            int ok_made = 1, ok_src = 1, ok_val = 1, ok_local = 1;
            for (ra_dtype dt = RA_BOOL; dt <= RA_FLOAT16; dt++) {
                unsigned char *v = whole_value(dt, shape, ndim);
                size_t vbytes = numel(shape, ndim) * ra_dtype_size(dt);
                ra_global *x = NULL;
                int st = ra_global_from_buffer(G, v, dt, shape, ndim, p, &list[src], 1, &x);
                ok_made &= status_is(st, RA_OK, "from_buffer");
                if (st != RA_OK) {
                    free(v);
                    continue;
                }
                int64_t len[2];
                size_t nb;
                unsigned char *want = expected_local(v, dt, shape, ndim, 4, rank,
                                                     ra_sbp_broadcast(), list[src], len, &nb);
                ok_src &= local_is(x, want, nb, len, ndim);
                free(want);
                for (int dst = 0; dst < nsbp; dst++) {
                    ra_global *y = NULL;
                    st = ra_global_to_sbp(G, x, &list[dst], 1, &y);
                    if (!status_is(st, RA_OK, "to_sbp")) {
                        ok_val = 0;
                        continue;
                    }
                    want =
                        expected_local(v, dt, shape, ndim, 4, rank, list[src], list[dst], len, &nb);
                    /* A partial_sum source keeps its pieces: from_buffer's (first rank whole). */
                    if (list[src].kind == RA_SBP_PARTIAL_SUM &&
                        list[dst].kind == RA_SBP_PARTIAL_SUM) {
                        free(want);
                        want = expected_local(v, dt, shape, ndim, 4, rank, ra_sbp_broadcast(),
                                              list[dst], len, &nb);
                    }
                    if (!local_is(y, want, nb, len, ndim)) {
                        char a[16], b[16];
                        printf("# rank %d: %s -> %s on %s\n", rank, sbp_str(list[src], a),
                               sbp_str(list[dst], b), ra_dtype_name(dt));
                        ok_local = 0;
                    }
                    free(want);
                    ok_val &= whole_is(y, v, vbytes);
                    ok_val &= ra_sbp_eq(ra_global_sbp(y, 0), list[dst]) &&
                              ra_global_dtype(y) == dt && ra_global_ndim(y) == ndim;
                    ra_global_release(y);
                }
                ra_global_release(x);
                free(v);
            }
            char a[16];
            CHECK(ok_made, "OF-SBP-1 from_buffer with %s, shape %lldx%lld, every dtype",
                  sbp_str(list[src], a), (long long)shape[0],
                  (long long)(ndim == 2 ? shape[1] : 1));
            CHECK(ok_src,
                  "OF-SBP-2..4 each rank holds its piece under %s (balanced; partial_sum: "
                  "the first rank the value, the others zeros)",
                  a);
            CHECK(ok_local, "OF-SBP-6 %s to every sbp: each rank's piece exactly as expected", a);
            CHECK(ok_val, "OF-SBP-6 %s to every sbp keeps the global value on every dtype", a);
        }
    }
    ra_placement_release(p);
}

/* 2-D placement [[0, 1], [2, 3]]: every pair of (sbp, sbp) to (sbp, sbp). */
static void test_mesh(void)
{
    int64_t r4[4] = {0, 1, 2, 3}, mesh[2] = {2, 2};
    ra_placement *p = NULL;
    ra_placement_create(G, "cpu", r4, 4, mesh, 2, &p);
    int64_t coord[2] = {rank / 2, rank % 2};
    ra_sbp sbps[4] = {ra_sbp_split(0), ra_sbp_split(1), ra_sbp_broadcast(), ra_sbp_partial_sum()};
    const int64_t shape[2] = {5, 7};
    const ra_dtype dts[2] = {RA_INT32, RA_FLOAT64};
    int ok_val = 1, ok_local = 1, ok_made = 1;
    for (int t = 0; t < 2; t++) {
        unsigned char *v = whole_value(dts[t], shape, 2);
        size_t vbytes = numel(shape, 2) * ra_dtype_size(dts[t]);
        for (int s = 0; s < 16; s++) {
            ra_sbp src[2] = {sbps[s / 4], sbps[s % 4]};
            ra_global *x = NULL;
            int st = ra_global_from_buffer(G, v, dts[t], shape, 2, p, src, 2, &x);
            ok_made &= status_is(st, RA_OK, "from_buffer 2-D");
            if (st != RA_OK) continue;
            for (int d = 0; d < 16; d++) {
                ra_sbp dst[2] = {sbps[d / 4], sbps[d % 4]};
                ra_global *y = NULL;
                if (!status_is(ra_global_to_sbp(G, x, dst, 2, &y), RA_OK, "to_sbp 2-D")) {
                    ok_val = 0;
                    continue;
                }
                ok_val &= whole_is(y, v, vbytes);
                if (dst[0].kind != RA_SBP_PARTIAL_SUM && dst[1].kind != RA_SBP_PARTIAL_SUM) {
                    int64_t off[2], len[2];
                    size_t nb;
                    window(mesh, 2, coord, dst, shape, 2, off, len);
                    unsigned char *want = cut(v, dts[t], shape, 2, off, len, &nb);
                    if (!local_is(y, want, nb, len, 2)) {
                        char a[16], b[16], c[16], e[16];
                        printf("# rank %d: (%s, %s) -> (%s, %s)\n", rank, sbp_str(src[0], a),
                               sbp_str(src[1], b), sbp_str(dst[0], c), sbp_str(dst[1], e));
                        ok_local = 0;
                    }
                    free(want);
                }
                ra_global_release(y);
            }
            ra_global_release(x);
        }
        free(v);
    }
    CHECK(ok_made, "OF-PL-2 global arrays on a 2-D placement with every pair of sbps");
    CHECK(ok_local, "OF-SBP-2,3 2-D: each rank holds the nested window after every conversion");
    CHECK(ok_val, "OF-SBP-6 2-D: all 256 conversions keep the global value (int32, float64)");
    ra_placement_release(p);
}

static ra_array *local_array(ra_dtype dt, const int64_t *shape, size_t ndim, int64_t first)
{
    size_t n = numel(shape, ndim), es = ra_dtype_size(dt);
    unsigned char *v = calloc(n * es + 1, 1);
    for (size_t i = 0; i < n; i++)
        element(dt, first + (int64_t)i, v + i * es);
    ra_array *a = NULL;
    ra_asarray_buffer(ra_gctx_local_ctx(G), v, dt, shape, ndim, &(ra_opts){.device = "cpu"}, &a);
    free(v);
    return a;
}

static void test_from_local(void)
{
    ra_placement *p = NULL;
    ra_placement_all(G, "cpu", &p);
    /* Pieces of 2, 1, 1, 1 rows of 3: the balanced split of 5 rows. */
    int64_t off, len;
    piece(5, 4, rank, &off, &len);
    int64_t lshape[2] = {len, 3};
    ra_array *a = local_array(RA_INT64, lshape, 2, off * 3);
    ra_global *x = NULL;
    ra_sbp s0 = ra_sbp_split(0);
    CHECK(status_is(ra_global_from_local(G, a, p, &s0, 1, &x), RA_OK, "from_local"),
          "OF-ATTR-1 a global array from local pieces with split(0)");
    CHECK(x && ra_global_ndim(x) == 2 && ra_global_shape(x)[0] == 5 && ra_global_shape(x)[1] == 3,
          "the global shape adds the pieces' lengths: 5 x 3");
    CHECK(x && ra_global_dtype(x) == RA_INT64 && ra_placement_eq(ra_global_placement(x), p) &&
              ra_sbp_eq(ra_global_sbp(x, 0), s0),
          "OF-ATTR-1 a global array has a dtype, a placement and an sbp");
    int64_t full[2] = {5, 3};
    unsigned char *v = whole_value(RA_INT64, full, 2);
    CHECK(x && whole_is(x, v, 15 * 8), "its value is the pieces joined");
    ra_array *back = NULL;
    ra_global_to_local(G, x, &back);
    CHECK(back == a, "to_local gives the rank's own piece");
    ra_array_release(back);
    ra_global_release(x);
    ra_array_release(a);
    /* Unbalanced pieces (1, 2, 1, 1) cannot be split(0) of 5 rows. */
    int64_t l2[2] = {rank == 1 ? 2 : 1, 3};
    a = local_array(RA_INT64, l2, 2, 0);
    x = NULL;
    CHECK(status_is(ra_global_from_local(G, a, p, &s0, 1, &x), RA_E_SHAPE, "unbalanced") && !x &&
              strstr(ra_gctx_message(G), "rank 0"),
          "unbalanced pieces are RA_E_SHAPE on every rank, naming the first rank that differs");
    ra_array_release(a);
    /* Different dtypes. */
    int64_t l3[1] = {2};
    a = local_array(rank == 2 ? RA_INT32 : RA_INT64, l3, 1, 0);
    CHECK(status_is(ra_global_from_local(G, a, p, &s0, 1, &x), RA_E_DTYPE, "dtypes") &&
              strstr(ra_gctx_message(G), "rank 2"),
          "pieces of different dtypes are RA_E_DTYPE naming the rank");
    ra_array_release(a);
    /* broadcast: every piece is the whole. */
    a = local_array(RA_FLOAT32, l3, 1, 0);
    ra_sbp b = ra_sbp_broadcast();
    CHECK(status_is(ra_global_from_local(G, a, p, &b, 1, &x), RA_OK, "B") && x &&
              ra_global_shape(x)[0] == 2,
          "a broadcast global array has its pieces' shape");
    ra_global_release(x);
    /* Pieces that differ, made broadcast: rank 0's piece on every rank (OneFlow's to_global). */
    int64_t own[2] = {10 * rank, 10 * rank + 1};
    ra_array *mine = NULL, *got = NULL;
    ra_asarray_buffer(ra_gctx_local_ctx(G), own, RA_INT64, l3, 1, &(ra_opts){.device = "cpu"},
                      &mine);
    x = NULL;
    CHECK(status_is(ra_global_from_local(G, mine, p, &b, 1, &x), RA_OK, "B differing"),
          "broadcast from pieces that differ");
    int64_t first[2] = {0, 1}, held[2] = {-1, -1};
    CHECK(x && whole_is(x, (unsigned char *)first, sizeof first),
          "OF-SBP-3 the value is rank 0's piece");
    if (x) ra_global_to_local(G, x, &got);
    CHECK(got && ra_array_read(ra_gctx_local_ctx(G), got, held, sizeof held) == RA_OK &&
              held[0] == 0 && held[1] == 1,
          "every rank holds rank 0's piece, not its own");
    ra_array_release(got);
    ra_global_release(x);
    ra_array_release(mine);
    /* The same on the 2 x 2 mesh with (broadcast, broadcast), and (split(0), broadcast): along
     * the broadcast mesh dim the piece of coordinate 0 wins. */
    {
        int64_t rk[4] = {0, 1, 2, 3}, ms[2] = {2, 2};
        ra_placement *pm = NULL;
        ra_placement_create(G, "cpu", rk, 4, ms, 2, &pm);
        mine = NULL;
        ra_asarray_buffer(ra_gctx_local_ctx(G), own, RA_INT64, l3, 1, &(ra_opts){.device = "cpu"},
                          &mine);
        ra_sbp bb[2] = {b, b}, sb[2] = {s0, b};
        x = NULL;
        CHECK(status_is(ra_global_from_local(G, mine, pm, bb, 2, &x), RA_OK, "B,B") && x &&
                  whole_is(x, (unsigned char *)first, sizeof first),
              "(broadcast, broadcast): rank 0's piece");
        ra_global_release(x);
        x = NULL;
        int64_t rows[4] = {0, 1, 20, 21};
        CHECK(status_is(ra_global_from_local(G, mine, pm, sb, 2, &x), RA_OK, "S0,B") && x &&
                  whole_is(x, (unsigned char *)rows, sizeof rows),
              "(split(0), broadcast): ranks 0 and 2's pieces joined");
        ra_global_release(x);
        ra_array_release(mine);
        ra_placement_release(pm);
    }
    /* An empty global array: from empty pieces and from a whole value of no elements (data
     * NULL), converted and read. */
    {
        int64_t zero[1] = {0};
        ra_array *e = local_array(RA_FLOAT32, zero, 1, 0);
        ra_global *ge = NULL, *gb = NULL;
        CHECK(status_is(ra_global_from_local(G, e, p, &s0, 1, &ge), RA_OK, "empty") && ge &&
                  ra_global_shape(ge)[0] == 0,
              "split(0) of empty pieces: shape (0,)");
        ra_global_release(ge);
        ge = NULL;
        CHECK(status_is(ra_global_from_buffer(G, NULL, RA_FLOAT32, zero, 1, p, &s0, 1, &ge), RA_OK,
                        "empty from buffer"),
              "from_buffer accepts NULL data for no elements");
        CHECK(ge && status_is(ra_global_to_sbp(G, ge, &b, 1, &gb), RA_OK, "empty to B") && gb &&
                  status_is(ra_global_read(G, gb, NULL, 0), RA_OK, "empty read"),
              "an empty array converts to broadcast and reads into nothing");
        int64_t one[1] = {1};
        ra_global *gn = NULL;
        CHECK(status_is(ra_global_from_buffer(G, NULL, RA_FLOAT32, one, 1, p, &s0, 1, &gn),
                        RA_E_NULL, "NULL data") &&
                  !gn,
              "NULL data for one element is still RA_E_NULL");
        ra_global_release(gb);
        ra_global_release(ge);
        ra_array_release(e);
    }
    ra_sbp bad = ra_sbp_split(1);
    CHECK(status_is(ra_global_from_local(G, a, p, &bad, 1, &x), RA_E_AXIS, "axis"),
          "a split dim beyond the pieces' dims is RA_E_AXIS");
    ra_array_release(a);
    free(v);
    /* 2-D placement, (split(0), split(1)) of a 4 x 6 array: 2 x 3 pieces. */
    int64_t r4[4] = {0, 1, 2, 3}, mesh[2] = {2, 2};
    ra_placement *p2 = NULL;
    ra_placement_create(G, "cpu", r4, 4, mesh, 2, &p2);
    int64_t l4[2] = {2, 3};
    a = local_array(RA_INT16, l4, 2, rank * 6);
    ra_sbp s01[2] = {ra_sbp_split(0), ra_sbp_split(1)};
    CHECK(status_is(ra_global_from_local(G, a, p2, s01, 2, &x), RA_OK, "2-D") && x &&
              ra_global_shape(x)[0] == 4 && ra_global_shape(x)[1] == 6,
          "2-D from_local infers 4 x 6 from 2 x 3 pieces");
    ra_global_release(x);
    ra_sbp s00[2] = {ra_sbp_split(0), ra_sbp_split(0)};
    CHECK(status_is(ra_global_from_local(G, a, p2, s00, 2, &x), RA_OK, "2-D same dim") && x &&
              ra_global_shape(x)[0] == 8 && ra_global_shape(x)[1] == 3,
          "2-D (split(0), split(0)) infers 8 x 3");
    ra_global_release(x);
    CHECK(status_is(ra_global_from_local(G, a, p2, &s0, 1, &x), RA_E_ARG, "nsbp"),
          "one sbp for a 2-D placement is RA_E_ARG");
    ra_array_release(a);
    ra_placement_release(p2);
    ra_placement_release(p);
}

static void test_full_and_ops(void)
{
    ra_placement *p = NULL;
    ra_placement_all(G, "cpu", &p);
    int64_t shape[1] = {6};
    ra_sbp s0 = ra_sbp_split(0), b = ra_sbp_broadcast(), ps = ra_sbp_partial_sum();
    ra_global *ones = NULL, *pz = NULL;
    CHECK(status_is(ra_global_full(G, shape, 1, ra_scalar_float(1.0), RA_FLOAT64, p, &s0, 1, &ones),
                    RA_OK, "full"),
          "global ones with split(0)");
    double want[6] = {1, 1, 1, 1, 1, 1};
    CHECK(ones && whole_is(ones, (unsigned char *)want, sizeof want), "ones read back as ones");
    ra_global_full(G, shape, 1, ra_scalar_float(1.0), RA_FLOAT64, p, &ps, 1, &pz);
    CHECK(
        pz && whole_is(pz, (unsigned char *)want, sizeof want),
        "OF-SBP-4 ones as partial_sum: the first rank holds ones, the others zeros, the sum ones");
    /* Elementwise with the signatures. */
    unsigned char *v = whole_value(RA_FLOAT64, shape, 1);
    const double *vd = (const double *)v;
    ra_global *xs = NULL, *xb = NULL, *xp = NULL, *r = NULL;
    ra_global_from_buffer(G, v, RA_FLOAT64, shape, 1, p, &s0, 1, &xs);
    ra_global_from_buffer(G, v, RA_FLOAT64, shape, 1, p, &b, 1, &xb);
    ra_global_from_buffer(G, v, RA_FLOAT64, shape, 1, p, &ps, 1, &xp);
    double e[6];
    struct {
        ra_binop op;
        ra_global *a, *c;
        ra_sbp res;
        const char *name;
    } cases[] = {
        {RA_ADD, xs, xs, s0, "(S(0), S(0)) -> S(0) for add"},
        {RA_ADD, xp, xp, ps, "(P, P) -> P for add"},
        {RA_MULTIPLY, xp, xb, ps, "(P, B) -> P for multiply"},
        {RA_MULTIPLY, xb, xp, ps, "(B, P) -> P for multiply"},
        {RA_MULTIPLY, xp, xp, b, "(P, P) multiply: both made B"},
        {RA_ADD, xp, xb, ps, "(P, B) add: B made P"},
        {RA_SUBTRACT, xs, xb, s0, "(S(0), B) subtract: B sliced to S(0)"},
        {RA_MAXIMUM, xp, xs, s0, "(P, S(0)) maximum: P reduce-scattered to S(0)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        r = NULL;
        int st = ra_global_binary(G, cases[i].op, cases[i].a, cases[i].c, &r);
        for (int k = 0; k < 6; k++)
            e[k] = cases[i].op == RA_ADD        ? vd[k] + vd[k]
                   : cases[i].op == RA_SUBTRACT ? 0.0
                   : cases[i].op == RA_MULTIPLY ? vd[k] * vd[k]
                                                : vd[k];
        CHECK(status_is(st, RA_OK, cases[i].name) && r &&
                  ra_sbp_eq(ra_global_sbp(r, 0), cases[i].res) &&
                  whole_is(r, (unsigned char *)e, sizeof e),
              "global %s, values exact", cases[i].name);
        ra_global_release(r);
    }
    r = NULL;
    CHECK(status_is(ra_global_binary(G, RA_EQUAL, xs, xb, &r), RA_OK, "equal") && r &&
              ra_global_dtype(r) == RA_BOOL,
          "global equal gives bool");
    bool allt[6] = {1, 1, 1, 1, 1, 1};
    CHECK(r && whole_is(r, (unsigned char *)allt, sizeof allt), "x == x everywhere");
    ra_global_release(r);
    /* Sum. */
    double total = 0;
    for (int k = 0; k < 6; k++)
        total += vd[k];
    ra_global *s = NULL;
    CHECK(status_is(ra_global_sum(G, xs, NULL, &s), RA_OK, "sum") && s &&
              ra_global_sbp(s, 0).kind == RA_SBP_PARTIAL_SUM && ra_global_ndim(s) == 0,
          "sum of a split(0) array is a partial_sum 0-d array");
    CHECK(s && whole_is(s, (unsigned char *)&total, sizeof total), "its value is the total");
    ra_global_release(s);
    CHECK(status_is(ra_global_sum(G, xp, NULL, &s), RA_OK, "sum P") && s &&
              whole_is(s, (unsigned char *)&total, sizeof total),
          "sum of a partial_sum array");
    ra_global_release(s);
    int64_t shape2[2] = {5, 4};
    unsigned char *w = whole_value(RA_INT32, shape2, 2);
    ra_global *m = NULL;
    ra_sbp s1 = ra_sbp_split(1);
    ra_global_from_buffer(G, w, RA_INT32, shape2, 2, p, &s1, 1, &m);
    int ax = 0;
    CHECK(status_is(ra_global_sum(G, m, &ax, &s), RA_OK, "sum axis") && s &&
              ra_sbp_eq(ra_global_sbp(s, 0), ra_sbp_split(0)) && ra_global_dtype(s) == RA_INT64,
          "sum over axis 0 of a split(1) array is split(0) of the result, int64");
    int64_t cols[4] = {0};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++)
            cols[j] += ((int32_t *)w)[i * 4 + j];
    CHECK(s && whole_is(s, (unsigned char *)cols, sizeof cols), "its values are the column sums");
    ra_global_release(s);
    ra_global_release(m);
    free(w);
    /* partial_sum adds as the dtype does: uint8 and int16 pieces wrap (253 + 1 + 1 + 1 is 0;
     * OpenMPI's own MPI_SUM saturates these types). */
    {
        int64_t one[1] = {1};
        uint8_t u = rank == 0 ? 253 : 1;
        int16_t h = rank == 0 ? 32767 : 1;
        ra_array *lu = NULL, *lh = NULL;
        ra_asarray_buffer(ra_gctx_local_ctx(G), &u, RA_UINT8, one, 1, &(ra_opts){.device = "cpu"},
                          &lu);
        ra_asarray_buffer(ra_gctx_local_ctx(G), &h, RA_INT16, one, 1, &(ra_opts){.device = "cpu"},
                          &lh);
        ra_global *gu = NULL, *gh = NULL;
        ra_global_from_local(G, lu, p, &ps, 1, &gu);
        ra_global_from_local(G, lh, p, &ps, 1, &gh);
        uint8_t wu = 0;
        int16_t wh = -32766;
        CHECK(gu && whole_is(gu, &wu, 1), "OF-SBP-4 uint8 partial sums wrap: 253 + 1 + 1 + 1 is 0");
        CHECK(gh && whole_is(gh, (unsigned char *)&wh, 2),
              "OF-SBP-4 int16 partial sums wrap: 32767 + 3 is -32766");
        /* float16 partial sums add in binary16: 1.5 on each of 4 ranks is 6.0. */
        uint16_t f = 0x3e00, want6 = 0x4600;
        ra_array *lf = NULL;
        ra_global *gf = NULL;
        ra_asarray_buffer(ra_gctx_local_ctx(G), &f, RA_FLOAT16, one, 1, &(ra_opts){.device = "cpu"},
                          &lf);
        ra_global_from_local(G, lf, p, &ps, 1, &gf);
        CHECK(gf && whole_is(gf, (unsigned char *)&want6, 2),
              "OF-SBP-4 float16 partial sums: 4 x 1.5 is 6.0");
        ra_global_release(gf);
        ra_array_release(lf);
        ra_global_release(gu);
        ra_global_release(gh);
        ra_array_release(lu);
        ra_array_release(lh);
    }
    /* Mixed placements. */
    int64_t r2[2] = {0, 1};
    ra_placement *q = NULL;
    ra_placement_create(G, "cpu", r2, 2, NULL, 1, &q);
    ra_global *y = NULL;
    ra_global_from_buffer(G, v, RA_FLOAT64, shape, 1, q, &b, 1, &y);
    r = NULL;
    CHECK(status_is(ra_global_binary(G, RA_ADD, xb, y, &r), RA_E_DEVICE_MISMATCH, "mixed") && !r &&
              strstr(ra_gctx_message(G), "ranks=[0, 1, 2, 3]") &&
              strstr(ra_gctx_message(G), "ranks=[0, 1])"),
          "mixing placements is an error naming both");
    ra_array *l = NULL;
    ra_global_to_local(G, y, &l);
    CHECK(l && (rank < 2 ? ra_array_size(l) == 6 : ra_array_ndim(l) == 1 && ra_array_size(l) == 0),
          "a rank outside the placement holds an empty piece");
    ra_array_release(l);
    CHECK(y && whole_is(y, v, 6 * sizeof(double)), "every rank reads a value placed on ranks 0, 1");
    ra_global_release(y);
    ra_placement_release(q);
    ra_global_release(xs);
    ra_global_release(xb);
    ra_global_release(xp);
    ra_global_release(ones);
    ra_global_release(pz);
    free(v);
    ra_placement_release(p);
}

static void test_errors(ra_ctx *ctx)
{
    ra_placement *p = NULL;
    ra_placement_all(G, "cpu", &p);
    int64_t shape[1] = {8};
    unsigned char *v = whole_value(RA_INT32, shape, 1);
    ra_sbp s0 = ra_sbp_split(0), b = ra_sbp_broadcast();
    ra_global *x = NULL, *y = NULL;
    ra_global_from_buffer(G, v, RA_INT32, shape, 1, p, &s0, 1, &x);
    /* Rank 0 asks for broadcast, the others for split(0). */
    int st = ra_global_to_sbp(G, x, rank == 0 ? &b : &s0, 1, &y);
    CHECK(status_is(st, RA_E_COMM, "differ") && !y && strstr(ra_gctx_message(G), "different calls"),
          "calls that differ between ranks are RA_E_COMM on every rank");
    /* Rank 2 gives a bad sbp: it reports its own error, the others name it. */
    ra_sbp bad = ra_sbp_split(3);
    st = ra_global_to_sbp(G, x, rank == 2 ? &bad : &b, 1, &y);
    CHECK(rank == 2 ? status_is(st, RA_E_AXIS, "own")
                    : status_is(st, RA_E_COMM, "other") && strstr(ra_gctx_message(G), "rank 2"),
          "a rank's own error is its status; the others get RA_E_COMM naming it");
    ra_global_release(y);
    y = NULL;
    CHECK(status_is(ra_global_to_sbp(G, x, &b, 0, &y), RA_E_ARG, "nsbp"),
          "no sbp for a 1-D placement is RA_E_ARG");
    CHECK(status_is(ra_global_to_sbp(G, NULL, &b, 1, &y), RA_E_NULL, "null"),
          "x NULL is RA_E_NULL");
    ra_global_release(x);
    ra_placement_release(p);
    free(v);

    /* A rank that never comes: rank 3 skips the call; the others time out and say so. */
    ra_gctx *h = NULL;
    ra_gctx_create(ctx, MPI_COMM_WORLD, RA_GCTX_OPTIONS(.timeout_s = 0.5), &h);
    ra_placement *q = NULL;
    ra_placement_all(h, "cpu", &q);
    ra_global *z = NULL;
    int64_t eight[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    ra_global_from_buffer(h, eight, RA_INT64, shape, 1, q, &b, 1, &z);
    ra_global *w = NULL;
    double t0 = MPI_Wtime();
    st = rank == 3 ? RA_E_TIMEOUT : ra_global_to_sbp(h, z, &s0, 1, &w);
    double waited = MPI_Wtime() - t0;
    if (rank != 3 && st != RA_E_TIMEOUT)
        printf("# rank %d: %s: %s\n", rank, ra_status_name(st), ra_gctx_message(h));
    /* waited's bound is a liveness bound (STYLE.md, Tests), 240 times the 0.5 s asked for:
     * a wait past it is a hang, not slowness. */
    if (waited >= 120)
        printf("# rank %d: did not stop within 120 s (hang): waited %.1f s\n", rank, waited);
    CHECK(st == RA_E_TIMEOUT && waited < 120 && (rank == 3 || strstr(ra_gctx_message(h), "waited")),
          "a rank that does not come makes the others time out (bounded wait), not hang");
    CHECK(rank == 3 || ra_gctx_broken(h), "the timed-out context is broken");
    if (rank != 3) {
        st = ra_global_to_sbp(h, z, &s0, 1, &w);
        if (!(st == RA_E_COMM && strstr(ra_gctx_message(h), "broken")))
            printf("# rank %d: %s: %s\n", rank, ra_status_name(st), ra_gctx_message(h));
    } else {
        /* Late, rank 3 makes the call: it completes the agreement the others left pending
         * (their requests finish in the background), so nothing stays pending at the end. */
        st = ra_global_to_sbp(h, z, &s0, 1, &w);
        st = st == RA_OK ? RA_E_COMM : st;
        ra_global_release(w);
    }
    CHECK(st == RA_E_COMM, "a broken context refuses collectives at once");
    ra_global_release(z);
    ra_placement_release(q);
    ra_gctx_destroy(h);
}

/* A gpu placement: each rank's piece on gpu:k, k its index on the node modulo the gpu count
 * (refarray_global.h's mapping); conversions stage the pieces through host memory. */
static void test_gpu(void)
{
    ra_ctx *ctx = NULL;
    int have = ra_ctx_create(NULL, &ctx) == RA_OK ? ra_util_num_gpus(ctx) : 0, all_have = 0;
    MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_have < 1) {
        ra_ctx_destroy(ctx);
        dt_skip("no gpu device on some rank");
    }
    ra_gctx *g = NULL, *saved = G;
    ra_gctx_create(ctx, MPI_COMM_WORLD, NULL, &g);
    G = g;
    ra_placement *p = NULL;
    CHECK(status_is(ra_placement_all(g, "gpu", &p), RA_OK, "gpu all"), "placement.all(gpu)");
    ra_device want = {RA_DEVICE_GPU, rank % all_have};
    CHECK(p && ra_device_eq(ra_placement_local_device(p), want),
          "rank r's local device is gpu:(r mod the gpu count) (one node)");
    int64_t shape[1] = {8};
    unsigned char *v = whole_value(RA_INT32, shape, 1);
    ra_sbp s0 = ra_sbp_split(0), b = ra_sbp_broadcast(), ps = ra_sbp_partial_sum();
    ra_global *x = NULL, *y = NULL, *z = NULL;
    ra_global_from_buffer(g, v, RA_INT32, shape, 1, p, &s0, 1, &x);
    ra_array *l = NULL;
    if (x) ra_global_to_local(g, x, &l);
    CHECK(l && ra_device_eq(ra_array_device(l), want), "the local piece lives on the rank's gpu");
    ra_array_release(l);
    CHECK(x && status_is(ra_global_to_sbp(g, x, &b, 1, &y), RA_OK, "S->B") && whole_is(y, v, 32),
          "OF-SBP-6 split(0) -> broadcast on gpu pieces keeps the value");
    CHECK(y && status_is(ra_global_to_sbp(g, y, &ps, 1, &z), RA_OK, "B->P") && whole_is(z, v, 32),
          "OF-SBP-6 broadcast -> partial_sum -> broadcast on gpu pieces keeps the value");
    ra_global_release(x);
    ra_global_release(y);
    ra_global_release(z);
    ra_placement_release(p);
    free(v);
    G = saved;
    ra_gctx_destroy(g);
    ra_ctx_destroy(ctx);
}

/* The context every test uses, and the global context over the four ranks. */
static ra_ctx *host_ctx;

/* Runs one group of checks; every rank skips it when there are not four ranks. */
static void on_four_ranks(void (*group)(void))
{
    if (nranks != 4) dt_skip("needs 4 ranks (mpirun -np 4), has %d", nranks);
    group();
}

DT_TEST(global_context)
{
    if (nranks != 4) dt_skip("needs 4 ranks (mpirun -np 4), has %d", nranks);
    CHECK(G != NULL, "a global context over 4 ranks");
    CHECK(ra_gctx_rank(G) == rank && ra_gctx_size(G) == 4, "its rank and size");
    ra_gctx *bad = NULL;
    CHECK(ra_gctx_create(host_ctx, MPI_COMM_WORLD, RA_GCTX_OPTIONS(.timeout_s = -1), &bad) ==
                  RA_E_ARG &&
              !bad && strstr(ra_gctx_message(NULL), "timeout"),
          "a negative timeout is RA_E_ARG");
    CHECK(ra_gctx_create(host_ctx, MPI_COMM_WORLD, &(ra_gctx_options){.size = 3}, &bad) == RA_E_ARG,
          "an unknown options size is RA_E_ARG");
    CHECK(ra_gctx_create(NULL, MPI_COMM_WORLD, NULL, &bad) == RA_E_NULL, "ctx NULL is RA_E_NULL");
}

static void errors(void)
{
    test_errors(host_ctx);
}

DT_TEST(placements)
{
    on_four_ranks(test_placements);
}

DT_TEST(sbp_print)
{
    on_four_ranks(test_sbp_print);
}

DT_TEST(pairs)
{
    on_four_ranks(test_pairs);
}

DT_TEST(mesh)
{
    on_four_ranks(test_mesh);
}

DT_TEST(from_local)
{
    on_four_ranks(test_from_local);
}

DT_TEST(full_and_ops)
{
    on_four_ranks(test_full_and_ops);
}

DT_TEST(errors)
{
    on_four_ranks(errors);
}

DT_TEST(gpu)
{
    on_four_ranks(test_gpu);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    /* One TAP stream: rank 0's. The other ranks' diagnostics go to stderr (check). */
    if (rank != 0 && freopen("/dev/null", "w", stdout) == NULL) return 1;
    ra_ctx_create(&(ra_ctx_options){.flags = RA_CTX_NO_OPENCL}, &host_ctx);
    if (nranks == 4 &&
        !status_is(ra_gctx_create(host_ctx, MPI_COMM_WORLD, NULL, &G), RA_OK, "gctx"))
        G = NULL;
    static const dt_test tests[] = {
        DT_ENTRY(global_context), DT_ENTRY(placements), DT_ENTRY(sbp_print),
        DT_ENTRY(pairs),          DT_ENTRY(mesh),       DT_ENTRY(from_local),
        DT_ENTRY(full_and_ops),   DT_ENTRY(errors),     DT_ENTRY(gpu)};
    int status = dt_main(argc, argv, tests, sizeof tests / sizeof tests[0]);
    ra_gctx_destroy(G);
    ra_ctx_destroy(host_ctx);
    MPI_Finalize();
    return status;
}
