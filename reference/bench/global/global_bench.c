/* global_bench.c: refarray's global conversions against the raw MPI collectives they are,
 * in the same run: split(0) -> broadcast of 64 MiB of float32 against MPI_Allgather of the
 * same bytes, partial_sum -> broadcast against MPI_Allreduce. Run under mpirun -np 4.
 * Prints ratios (raw time / refarray time: 1.0 is as fast as raw MPI). */
#include "refarray_global.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

/* The slowest rank's time of one call, after a barrier. */
static double slowest(double t)
{
    double m = 0;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int runs = 9;
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--runs") == 0) runs = atoi(argv[i + 1]);
    if (runs < 1 || runs > 99) runs = 9;
    const int64_t total = 16 * 1024 * 1024; /* float32 elements: 64 MiB */
    const int64_t per = total / size;
    ra_ctx *ctx = NULL;
    ra_gctx *g = NULL;
    ra_placement *p = NULL;
    if (ra_ctx_create(&(ra_ctx_options){.flags = RA_CTX_NO_OPENCL}, &ctx) != RA_OK ||
        ra_gctx_create(ctx, MPI_COMM_WORLD, NULL, &g) != RA_OK ||
        ra_placement_all(g, "cpu", &p) != RA_OK) {
        fprintf(stderr, "set-up failed: %s\n", ra_gctx_message(g));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    float *mine = malloc((size_t)per * sizeof(float));
    float *whole = malloc((size_t)total * sizeof(float));
    float *sum = malloc((size_t)total * sizeof(float));
    for (int64_t i = 0; i < per; i++)
        mine[i] = (float)(rank * per + i);
    for (int64_t i = 0; i < total; i++)
        whole[i] = (float)i;
    memset(sum, 0, (size_t)total * sizeof(float));
    int64_t shape_s[1] = {per}, shape_p[1] = {total};
    ra_array *ls = NULL, *lp = NULL;
    ra_asarray_buffer(ctx, mine, RA_FLOAT32, shape_s, 1, &(ra_opts){.device = "cpu"}, &ls);
    ra_asarray_buffer(ctx, whole, RA_FLOAT32, shape_p, 1, &(ra_opts){.device = "cpu"}, &lp);
    ra_sbp s0 = ra_sbp_split(0), b = ra_sbp_broadcast(), ps = ra_sbp_partial_sum();
    ra_global *xs = NULL, *xp = NULL;
    ra_global_from_local(g, ls, p, &s0, 1, &xs);
    ra_global_from_local(g, lp, p, &ps, 1, &xp);
    double ts[2][99], tr[2][99];
    for (int r = -1; r < runs; r++) { /* r = -1: one warm-up pair */
        for (int which = 0; which < 2; which++) {
            ra_global *y = NULL;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            int st = ra_global_to_sbp(g, which == 0 ? xs : xp, &b, 1, &y);
            double t_subject = slowest(MPI_Wtime() - t0);
            if (st != RA_OK) {
                fprintf(stderr, "rank %d: %s\n", rank, ra_gctx_message(g));
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            ra_global_release(y);
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            if (which == 0)
                MPI_Allgather(mine, (int)per, MPI_FLOAT, whole, (int)per, MPI_FLOAT,
                              MPI_COMM_WORLD);
            else
                MPI_Allreduce(whole, sum, (int)total, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            double t_raw = slowest(MPI_Wtime() - t0);
            if (r >= 0) {
                ts[which][r] = t_subject;
                tr[which][r] = t_raw;
            }
        }
    }
    if (rank == 0) {
        const char *names[2] = {"split(0) -> broadcast vs MPI_Allgather",
                                "partial_sum -> broadcast vs MPI_Allreduce"};
        printf("refarray global conversions, 64 MiB float32 over %d ranks, median of %d runs\n",
               size, runs);
        for (int w = 0; w < 2; w++) {
            double s = median(ts[w], runs), raw = median(tr[w], runs);
            printf("%-44s refarray %8.2f ms  raw %8.2f ms  ratio %.2f  goal >= 0.9: %s\n", names[w],
                   s * 1e3, raw * 1e3, raw / s, raw / s >= 0.9 ? "goal met" : "GOAL MISSED");
        }
    }
    ra_global_release(xs);
    ra_global_release(xp);
    ra_array_release(ls);
    ra_array_release(lp);
    ra_placement_release(p);
    ra_gctx_destroy(g);
    ra_ctx_destroy(ctx);
    free(mine);
    free(whole);
    free(sum);
    MPI_Finalize();
    return 0;
}
