/*
 * encode_bench: what writing a typed array as protocol text costs (the shim's
 * ds__buffer_encode and dsj_print, as a reply to array.read), against two baselines measured
 * in the same run: memcpy of as many bytes as the text, and a plain snprintf("%.17g") loop over
 * the same elements (digits that read back, without the search for the shortest ones).
 * For 2^21 and 2^24 float64 elements, integral values (as arange gives) and fractions (as
 * linspace gives), it prints elements per second, the ratios to the baselines and the peak
 * memory the encoding added (ru_maxrss, each measurement in a process of its own).
 *
 * With HOST and ADAPTER.so it also reads 2^21 float64 out of process (array.create, then
 * array.read through devspec-adapter-host) and prints the time of the read and the host's
 * peak resident memory, beside the host's after reading one element.
 *
 *   devspec_encode_bench [HOST ADAPTER.so]
 */
#define _POSIX_C_SOURCE 200809L

#include "driver.h"
#include "shim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The peak resident memory of this process so far, in MiB. */
static double peak_mib(int who)
{
    struct rusage ru;
    getrusage(who, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

static void fill(double *v, size_t n, bool fractions)
{
    for (size_t i = 0; i < n; i++)
        v[i] = fractions ? (double)i / (double)(n - 1) : (double)i;
}

/* One measurement, in the calling (child) process: encoding first, so that its peak is not
 * hidden by the baselines' buffers. */
static void measure(size_t n, bool fractions)
{
    double *v = malloc(n * sizeof *v);
    if (v == NULL) exit(1);
    fill(v, n, fractions);
    double before = peak_mib(RUSAGE_SELF);
    ds_buffer b = {
        .dtype = DS_FLOAT64, .ndim = 1, .shape = {(int64_t)n}, .nbytes = n * 8, .data = v};
    ds__err e = {0};
    cJSON *enc = NULL;
    double t0 = now();
    size_t len = 0;
    char *text =
        ds__buffer_encode(&b, SIZE_MAX, &enc, &e) == 0 ? dsj_print(enc, false, &len) : NULL;
    double t_enc = now() - t0;
    cJSON_Delete(enc);
    cJSON_free(text);
    double added = peak_mib(RUSAGE_SELF) - before;
    if (text == NULL) {
        fprintf(stderr, "encode_bench: encoding failed: %s\n", e.message);
        exit(1);
    }
    char *buf = malloc(n * 26 + 1);
    char *copy = malloc(len);
    if (buf == NULL || copy == NULL) exit(1);
    t0 = now();
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, 26, "%.17g,", v[i]);
    double t_snprintf = now() - t0;
    memset(copy, 1, len); /* the pages exist before the copy is timed */
    t0 = now();
    memcpy(copy, buf, len < k ? len : k);
    if (len > k) memcpy(copy + k, buf, len - k);
    double t_memcpy = now() - t0;
    /* The copy is read, so that the compiler keeps it. */
    unsigned sum = 0;
    for (size_t i = 0; i < len; i += 4096)
        sum += (unsigned char)copy[i];
    if (sum == 1) puts("#");
    printf("# 2^%d float64 %-9s: %zu bytes of text; encode %.3f s (%.3g elements/s), snprintf "
           "loop %.3f s, memcpy %.4f s; ratio encode/snprintf %.2f, encode/memcpy %.0f; peak "
           "memory added %.0f MiB (%.2f times the text)\n",
           __builtin_ctzll(n), fractions ? "fractions" : "integers", len, t_enc, (double)n / t_enc,
           t_snprintf, t_memcpy, t_enc / t_snprintf, t_enc / t_memcpy, added,
           added * 1048576.0 / (double)len);
    free(buf);
    free(copy);
    free(v);
}

/* Reads N float64 (integral or fractions) through the host; prints the read's time and the
 * host's peak memory. Runs in a child process, so that the host is its only child. */
static void measure_host(char *host, char *adapter, size_t n, bool fractions)
{
    char *argv[] = {"encode_bench", "host", host, adapter, NULL};
    drv *d = drv_open(4, argv);
    char req[512];
    const char *hello = "{\"id\":1,\"op\":\"hello\",\"args\":{\"protocol\":1}}";
    free(drv_raw(d, hello, strlen(hello)));
    if (fractions)
        snprintf(req, sizeof req,
                 "{\"id\":2,\"op\":\"array.create\",\"args\":{\"fn\":\"linspace\",\"start\":0,"
                 "\"stop\":1,\"num\":%zu,\"dtype\":\"float64\"}}",
                 n);
    else
        snprintf(req, sizeof req,
                 "{\"id\":2,\"op\":\"array.create\",\"args\":{\"fn\":\"arange\",\"start\":%zu,"
                 "\"dtype\":\"float64\"}}",
                 n);
    char *created = drv_raw(d, req, strlen(req));
    const char *h = created ? strstr(created, "array#") : NULL;
    if (h == NULL) {
        fprintf(stderr, "encode_bench: %s -> %s\n", req, created ? created : "(none)");
        exit(1);
    }
    snprintf(req, sizeof req, "{\"id\":3,\"op\":\"array.read\",\"args\":{\"array\":\"%.*s\"}}",
             (int)strcspn(h, "\""), h);
    free(created);
    double t0 = now();
    char *reply = drv_raw(d, req, strlen(req));
    double t = now() - t0;
    if (reply == NULL || strstr(reply, "\"ok\":true") == NULL) {
        fprintf(stderr, "encode_bench: array.read failed: %.300s\n", reply ? reply : "(none)");
        exit(1);
    }
    size_t len = strlen(reply);
    free(reply);
    drv_close(d);
    printf("# out of process, read of %zu float64 %-9s: %zu bytes in %.3f s (%.3g elements/s); "
           "host's peak resident memory %.0f MiB\n",
           n, fractions ? "fractions" : "integers", len, t, (double)n / t,
           peak_mib(RUSAGE_CHILDREN));
}

/* Runs FN in a child process (its own peak memory) and waits for it. */
#define IN_CHILD(call)                                                                             \
    do {                                                                                           \
        fflush(stdout);                                                                            \
        pid_t pid_ = fork();                                                                       \
        if (pid_ == 0) {                                                                           \
            call;                                                                                  \
            fflush(stdout);                                                                        \
            _exit(0);                                                                              \
        }                                                                                          \
        int status_ = 0;                                                                           \
        waitpid(pid_, &status_, 0);                                                                \
        if (!WIFEXITED(status_) || WEXITSTATUS(status_) != 0) exit(1);                             \
    } while (0)

int main(int argc, char **argv)
{
    if (argc != 1 && argc != 3) {
        fprintf(stderr, "usage: %s [HOST ADAPTER.so]\n", argv[0]);
        return 2;
    }
    for (int log2n = 21; log2n <= 24; log2n += 3)
        for (int fractions = 0; fractions < 2; fractions++)
            IN_CHILD(measure((size_t)1 << log2n, fractions));
    if (argc == 3) {
        IN_CHILD(measure_host(argv[1], argv[2], 1, false));
        for (int fractions = 0; fractions < 2; fractions++)
            IN_CHILD(measure_host(argv[1], argv[2], (size_t)1 << 21, fractions));
    }
    return 0;
}
