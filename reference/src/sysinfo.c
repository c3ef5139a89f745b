/* sysinfo.c: what the host system says about itself: its physical memory, its online CPU
 * cores and its CPU utilisation. The host backend's device facts and ra_util_* read it, and so
 * does a backend whose device runs on the host's processors. */
#include "backend.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

uint64_t ra__host_physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES);
    long page_size = sysconf(_SC_PAGESIZE);
    return pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size : 0;
}

int ra__host_cpu_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Reads the aggregate "cpu" line of /proc/stat: busy and total jiffies. */
static bool read_cpu_times(uint64_t *busy, uint64_t *total)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return false;
    unsigned long long v[8] = {0};
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (n < 4) return false;
    uint64_t t = 0;
    for (int i = 0; i < 8; i++)
        t += v[i];
    /* idle and iowait are not busy. */
    *busy = t - v[3] - v[4];
    *total = t;
    return true;
}

/* Host utilisation: the share of non-idle CPU time over a 100 ms window, from the kernel's
 * counters. Where /proc/stat is missing it cannot be measured. */
int ra__host_utilisation(ra_ctx *ctx, double *percent)
{
    uint64_t b0, t0, b1, t1;
    if (!read_cpu_times(&b0, &t0))
        return ra__ctx_error(ctx, RA_E_NOT_MEASURABLE,
                             "cpu: utilisation cannot be measured (no /proc/stat)");
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
    if (!read_cpu_times(&b1, &t1) || t1 <= t0)
        return ra__ctx_error(ctx, RA_E_NOT_MEASURABLE,
                             "cpu: utilisation cannot be measured (no progress in /proc/stat)");
    double p = 100.0 * (double)(b1 - b0) / (double)(t1 - t0);
    *percent = p < 0.0 ? 0.0 : p > 100.0 ? 100.0 : p;
    return RA_OK;
}
