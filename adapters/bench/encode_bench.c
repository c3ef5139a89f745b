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
 * peak resident memory, beside the host's after reading one element. With the runner too
 * (DEVSPEC, build/conformance/devspec) it runs a one-case file that reads 2^20 and 2^21
 * float64 through the same host and prints the run's time and the runner's own peak resident
 * memory (VmHWM, read from /proc while it runs), the other side of the same reply.
 *
 *   devspec_encode_bench [HOST ADAPTER.so [DEVSPEC]]
 */
#define _POSIX_C_SOURCE 200809L

#include "driver.h"
#include "shim_internal.h"

#include <fcntl.h>
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

/* The peak resident memory of process PID so far (VmHWM), in kB; 0 once it is gone. */
static long vm_hwm(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kb = 0;
    if (f == NULL) return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) kb = strtol(line + 6, NULL, 10);
    fclose(f);
    return kb;
}

/* Runs the runner on a one-case file that creates N float64 (integral or fractions) and
 * reads them (the expectation names dtype and shape only), the adapter being HOST ADAPTER.so;
 * prints the run's time and the runner's peak memory, sampled every 10 ms. */
static void measure_runner(char *devspec, char *host, char *adapter, size_t n, bool fractions)
{
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char dir[512], cases[600], report[600], cmd[2048];
    snprintf(dir, sizeof dir, "%s/encode_bench.XXXXXX", tmp);
    if (mkdtemp(dir) == NULL) exit(1);
    snprintf(cases, sizeof cases, "%s/read.json", dir);
    snprintf(report, sizeof report, "%s/report.json", dir);
    snprintf(cmd, sizeof cmd, "'%s' '%s'", host, adapter);
    char args[256];
    if (fractions)
        snprintf(args, sizeof args,
                 "{\"fn\": \"linspace\", \"start\": 0, \"stop\": 1, \"num\": %zu, "
                 "\"dtype\": \"float64\"}",
                 n);
    else
        snprintf(args, sizeof args, "{\"fn\": \"arange\", \"start\": %zu, \"dtype\": \"float64\"}",
                 n);
    FILE *f = fopen(cases, "w");
    if (f == NULL) exit(1);
    fprintf(f,
            "{\"description\": \"one large read\", \"cases\": [{\"id\": \"bench.read\", "
            "\"description\": \"reads %zu float64 elements.\", \"spec\": [\"DEV-CREATE-1\"], "
            "\"features\": [\"creation-device-kw\"], \"steps\": [{\"op\": \"array.create\", "
            "\"args\": %s, \"as\": \"x\"}, {\"op\": \"array.read\", \"args\": {\"array\": "
            "\"$x\"}, \"expect\": {\"dtype\": \"float64\", \"shape\": [%zu]}}]}]}\n",
            n, args, n);
    fclose(f);
    char *argv[] = {devspec, "run",      "--adapter-cmd", cmd, "--cases",
                    cases,   "--report", report,          NULL};
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execv(devspec, argv);
        _exit(127);
    }
    long peak = 0;
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        long kb = vm_hwm(pid);
        if (kb > peak) peak = kb;
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    double t = now() - t0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "encode_bench: the runner on %s exited with status %d\n", cases, status);
        exit(1);
    }
    /* The case must have passed (a skip would measure nothing). */
    static char text[1 << 16];
    f = fopen(report, "r");
    size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) fclose(f);
    text[got] = '\0';
    if (strstr(text, "\"pass\"") == NULL) {
        fprintf(stderr, "encode_bench: the case in %s did not pass (report %s)\n", cases, report);
        exit(1);
    }
    printf("# runner, a case reading %zu float64 %-9s: the run %.3f s; the runner's peak "
           "resident memory %.0f MiB\n",
           n, fractions ? "fractions" : "integers", t, (double)peak / 1024.0);
    unlink(cases);
    char jsonl[620];
    snprintf(jsonl, sizeof jsonl, "%s/report.jsonl", dir);
    unlink(report);
    unlink(jsonl);
    rmdir(dir);
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
    if (argc != 1 && argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s [HOST ADAPTER.so [DEVSPEC]]\n", argv[0]);
        return 2;
    }
    for (int log2n = 21; log2n <= 24; log2n += 3)
        for (int fractions = 0; fractions < 2; fractions++)
            IN_CHILD(measure((size_t)1 << log2n, fractions));
    if (argc >= 3) {
        IN_CHILD(measure_host(argv[1], argv[2], 1, false));
        for (int fractions = 0; fractions < 2; fractions++)
            IN_CHILD(measure_host(argv[1], argv[2], (size_t)1 << 21, fractions));
    }
    if (argc == 4)
        for (int log2n = 20; log2n <= 21; log2n++)
            for (int fractions = 0; fractions < 2; fractions++)
                measure_runner(argv[3], argv[1], argv[2], (size_t)1 << log2n, fractions);
    return 0;
}
