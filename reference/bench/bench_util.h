/* bench_util.h: what refarray's benchmarks share: a monotonic clock, the median of a sample,
 * a subject timed alternately with its baseline, and the --runs option. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

/* One timed call: 0 on success. */
typedef int (*bench_fn)(void *arg);

/* A subject and its baseline, timed alternately (subject, baseline, subject, ...) so that
 * both see the same load on a shared machine; the medians of each, and the subject's first
 * (cold) call. */
typedef struct bench_pair {
    double subject, baseline, cold;
} bench_pair;

/* Seconds on a monotonic clock. */
double bench_now(void);
/* CPU seconds of the calling thread: for work done on that thread alone, what a busy machine's
 * waiting for a core does not change. */
double bench_cpu_now(void);

/* The median of v[0..n); sorts v. */
double bench_median(double *v, int n);

/* One warm-up call of each (the subject's is timed as out->cold), then runs timed pairs.
 * -1 when a call fails or memory runs out. */
int bench_measure_pair(bench_fn subject, bench_fn baseline, void *arg, int runs, bench_pair *out);
/* The same on the clock NOW (bench_now or bench_cpu_now). */
int bench_measure_pair_on(double (*now)(void), bench_fn subject, bench_fn baseline, void *arg,
                          int runs, bench_pair *out);

/* Reads "[--runs N]" (N > 0) into *runs; 0, or 2 after printing the usage of prog. */
int bench_parse_runs(int argc, char **argv, const char *prog, int *runs);

#endif
