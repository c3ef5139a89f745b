/*
 * transport_bench: what a request costs in each transport, on the same adapter in the same
 * run. The baseline is the in-process call; the result is the ratio of out of process
 * (devspec-adapter-host on a pipe) to it, for a small op and for a typed array round trip.
 *
 *   devspec_transport_bench HOST ADAPTER.so [ITERATIONS]
 */
#define _POSIX_C_SOURCE 200809L

#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds per request of `request` sent `n` times (each a fresh id). */
static double per_request(drv *d, const char *request, int n)
{
    double t0 = now();
    for (int i = 0; i < n; i++) {
        char *reply = drv_raw(d, request, strlen(request));
        if (reply == NULL || strstr(reply, "\"ok\":true") == NULL) {
            fprintf(stderr, "bench: request failed: %s -> %s\n", request, reply ? reply : "(none)");
            exit(1);
        }
        free(reply);
    }
    return (now() - t0) / n;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s HOST ADAPTER.so [ITERATIONS]\n", argv[0]);
        return 2;
    }
    int n = argc > 3 ? atoi(argv[3]) : 2000;
    char *inproc_argv[] = {argv[0], "inproc", argv[2], NULL};
    char *host_argv[] = {argv[0], "host", argv[1], argv[2], NULL};
    drv *t[2] = {drv_open(3, inproc_argv), drv_open(4, host_argv)};
    const char *names[2] = {"in process", "out of process"};
    /* A 1000-element float64 array, its values written as the protocol writes them. */
    static char asarray[64000];
    size_t k = (size_t)snprintf(asarray, sizeof asarray,
                                "{\"id\":1,\"op\":\"array.asarray\",\"args\":{\"obj\":{\"dtype\":"
                                "\"float64\",\"shape\":[1000],\"data\":[");
    for (int i = 0; i < 1000; i++)
        k += (size_t)snprintf(asarray + k, sizeof asarray - k, "%s%.17g", i ? "," : "", i * 0.1);
    snprintf(asarray + k, sizeof asarray - k, "]}}}");
    /* Best of five rounds, the transports interleaved, so that a busy machine (other work
     * on the same cores) disturbs both alike and the minimum approaches the true cost. */
    double small[2] = {1e9, 1e9}, big[2] = {1e9, 1e9};
    for (int i = 0; i < 2; i++) {
        const char *hello = "{\"id\":1,\"op\":\"hello\",\"args\":{\"protocol\":1}}";
        free(drv_raw(t[i], hello, strlen(hello)));
    }
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 2; i++) {
            double s = per_request(t[i], "{\"id\":2,\"op\":\"soft.get\"}", n);
            double b = per_request(t[i], asarray, n / 10 > 0 ? n / 10 : 1);
            free(drv_raw(t[i], "{\"id\":3,\"op\":\"reset\"}", 21));
            small[i] = s < small[i] ? s : small[i];
            big[i] = b < big[i] ? b : big[i];
        }
    }
    for (int i = 0; i < 2; i++)
        printf("# %s: small op %.2f us/request; 1000-element asarray %.1f us/request\n", names[i],
               small[i] * 1e6, big[i] * 1e6);
    printf("# ratio out of process / in process: small op %.2f, 1000-element asarray %.2f\n",
           small[1] / small[0], big[1] / big[0]);
    drv_close(t[0]);
    drv_close(t[1]);
    return 0;
}
