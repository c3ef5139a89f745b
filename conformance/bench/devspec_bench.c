/* devspec-bench: the runner's own cost per step, measured against the null adapter.
 *
 * One run measures, in this order:
 *   1. a bare pipe round trip: this program writes a request line to the null adapter
 *      program and reads its reply, blocking, N times (the floor for any out-of-process
 *      runner on this machine);
 *   2. `devspec run` over a generated suite of CASES x STEPS steps, out of process (the null
 *      adapter program) and in process (the null adapter .so), wall clock;
 *   3. `devspec validate` on the same suite, to show how much of that is loading.
 * and prints steps per second and the ratios between them. No figure here is a pass/fail
 * threshold: the benchmark reports, the note in README.md records.
 *
 *   devspec-bench [CASES [STEPS [ROUNDTRIPS]]]     (default 2000 50 100000) */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef DEVSPEC_EXE
#error "DEVSPEC_EXE must name the devspec binary"
#endif

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads up to and including a newline; returns the length or -1. */
static ssize_t read_line(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    while (n < cap) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        n += (size_t)r;
        if (memchr(buf + n - (size_t)r, '\n', (size_t)r))
            return (ssize_t)n;
    }
    return -1;
}

static double bare_round_trip(long rounds)
{
    int in[2], out[2];
    if (pipe(in) || pipe(out))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        execl(NULL_ADAPTER_EXE, NULL_ADAPTER_EXE, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    char buf[4096];
    const char *hello = "{\"id\":0,\"op\":\"hello\",\"args\":{\"protocol\":1}}\n";
    if (write_all(in[1], hello, strlen(hello)) || read_line(out[0], buf, sizeof buf) < 0)
        return -1;
    /* The same request the runner sends for a step of the generated suite. */
    char req[128];
    double t0 = now();
    for (long i = 1; i <= rounds; i++) {
        int n = snprintf(req, sizeof req, "{\"id\":%ld,\"op\":\"util.num_gpus\"}\n", i);
        if (write_all(in[1], req, (size_t)n) || read_line(out[0], buf, sizeof buf) < 0)
            return -1;
    }
    double t = now() - t0;
    close(in[1]);
    close(out[0]);
    waitpid(pid, NULL, 0);
    return t / (double)rounds;
}

static double run_devspec(char *const argv[])
{
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, 1);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    double t = now() - t0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "devspec-bench: %s %s exited with %d\n", argv[0], argv[1],
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return -1;
    }
    return t;
}

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

int main(int argc, char **argv)
{
    long cases = argc > 1 ? atol(argv[1]) : 2000;
    long steps = argc > 2 ? atol(argv[2]) : 50;
    long rounds = argc > 3 ? atol(argv[3]) : 100000;
    if (cases < 1 || steps < 1 || rounds < 1) {
        fputs("usage: devspec-bench [CASES [STEPS [ROUNDTRIPS]]]\n", stderr);
        return 2;
    }
    char dir[] = "/tmp/devspec-bench-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("devspec-bench: mkdtemp");
        return 1;
    }
    char spec[256], specf[300], stf[300], casef[300], report[300];
    snprintf(spec, sizeof spec, "%s/spec", dir);
    snprintf(specf, sizeof specf, "%s/features.json", spec);
    snprintf(stf, sizeof stf, "%s/statements.json", spec);
    snprintf(casef, sizeof casef, "%s/bench.json", dir);
    snprintf(report, sizeof report, "%s/report.json", dir);
    if (mkdir(spec, 0777) != 0 ||
        write_text(specf, "{\"features\": [{\"name\": \"device-attr\", \"statements\": [\"BENCH-1\"]}]}\n") ||
        write_text(stf, "{\"statements\": [{\"id\": \"BENCH-1\", \"level\": \"must\", \"text\": \"x\"}]}\n")) {
        perror("devspec-bench: writing the spec");
        return 1;
    }
    FILE *f = fopen(casef, "w");
    if (!f) {
        perror(casef);
        return 1;
    }
    fputs("{\"description\": \"Generated by devspec-bench.\", \"cases\": [\n", f);
    for (long c = 0; c < cases; c++) {
        fprintf(f, "%s{\"id\": \"bench.c%ld\", \"spec\": [\"BENCH-1\"], \"features\": [\"device-attr\"], "
                   "\"steps\": [",
                c ? ",\n" : "", c);
        for (long s = 0; s < steps; s++)
            fprintf(f, "%s{\"op\": \"util.num_gpus\"}", s ? ", " : "");
        fputs("]}", f);
    }
    fputs("\n]}\n", f);
    fclose(f);

    long total_steps = cases * steps;
    /* Each case also sends one reset; hello and bye are once per run. */
    long requests = total_steps + cases;
    printf("devspec-bench: %ld cases x %ld steps = %ld steps (%ld requests with the resets)\n",
           cases, steps, total_steps, requests);

    double rt = bare_round_trip(rounds);
    if (rt < 0) {
        fputs("devspec-bench: the bare round trip failed\n", stderr);
        return 1;
    }
    char *load_argv[] = {DEVSPEC_EXE, "validate", "--spec", spec, "--cases", casef, NULL};
    char *oop_argv[] = {DEVSPEC_EXE, "run", "--spec", spec, "--cases", casef, "--adapter",
                        NULL_ADAPTER_EXE, "--no-tap", "--no-progress", "--report", report, NULL};
    char *inp_argv[] = {DEVSPEC_EXE, "run", "--spec", spec, "--cases", casef, "--adapter",
                        NULL_ADAPTER_SO, "--no-tap", "--no-progress", "--report", report, NULL};
    double load = run_devspec(load_argv);
    double oop = run_devspec(oop_argv);
    double inp = run_devspec(inp_argv);
    if (load < 0 || oop < 0 || inp < 0)
        return 1;
    double oop_req = (oop - load) / (double)requests;
    double inp_req = (inp - load) / (double)requests;
    printf("bare pipe round trip            %8.2f us   (%.0f round trips/s)\n", rt * 1e6, 1 / rt);
    printf("load + validate the suite       %8.3f s\n", load);
    printf("out of process, whole run       %8.3f s    %10.0f steps/s\n", oop,
           (double)total_steps / oop);
    printf("  per request, load excluded    %8.2f us   = %.2f x the bare round trip\n",
           oop_req * 1e6, oop_req / rt);
    printf("  runner overhead per request   %8.2f us   = %.2f x the bare round trip\n",
           (oop_req - rt) * 1e6, (oop_req - rt) / rt);
    printf("in process, whole run           %8.3f s    %10.0f steps/s\n", inp,
           (double)total_steps / inp);
    printf("  per request, load excluded    %8.2f us   (%.0f requests/s)\n", inp_req * 1e6,
           1 / inp_req);

    unlink(casef);
    unlink(report);
    snprintf(report, sizeof report, "%s/report.jsonl", dir);
    unlink(report);
    unlink(specf);
    unlink(stf);
    rmdir(spec);
    rmdir(dir);
    return 0;
}
