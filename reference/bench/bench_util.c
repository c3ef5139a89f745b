/* bench_util.c: see bench_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int bench_measure_pair_on(double (*now)(void), bench_fn subject, bench_fn baseline, void *arg,
                          int runs, bench_pair *out)
{
    double t0 = now();
    if (subject(arg) != 0) return -1;
    out->cold = now() - t0;
    if (baseline(arg) != 0) return -1;
    double *v = malloc(sizeof(double) * (size_t)runs * 2);
    if (!v) return -1;
    for (int i = 0; i < runs; i++) {
        t0 = now();
        int a = subject(arg);
        double t1 = now();
        int b = baseline(arg);
        double t2 = now();
        if (a || b) {
            free(v);
            return -1;
        }
        v[i] = t1 - t0;
        v[runs + i] = t2 - t1;
    }
    out->subject = bench_median(v, runs);
    out->baseline = bench_median(v + runs, runs);
    free(v);
    return 0;
}

int bench_measure_pair(bench_fn subject, bench_fn baseline, void *arg, int runs, bench_pair *out)
{
    return bench_measure_pair_on(bench_now, subject, baseline, arg, runs, out);
}

int bench_parse_runs(int argc, char **argv, const char *prog, int *runs)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc && atoi(argv[i + 1]) > 0) {
            *runs = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--runs N]\n", prog);
            return 2;
        }
    }
    return 0;
}
