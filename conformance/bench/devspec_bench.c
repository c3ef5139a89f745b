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
 * Each figure is the median of 5 interleaved repetitions.
 *
 *   devspec-bench [CASES [STEPS [ROUNDTRIPS]]]     (default 1000 50 50000) */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <dlfcn.h>
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

/* CPU seconds (user and system) of this process, or of its children waited for. On a shared
 * machine a run waits for a core as long as it computes: the CPU time is what the runner
 * itself costs, whatever else runs. */
static double cpu_seconds(int who)
{
    struct rusage ru;
    getrusage(who, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* The CPU time of the last measurement (both processes of a round trip, or devspec's run and
 * the adapter it started), beside the wall time each returns. */
static double last_cpu;

static int write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
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
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        n += (size_t)r;
        if (memchr(buf + n - (size_t)r, '\n', (size_t)r)) return (ssize_t)n;
    }
    return -1;
}

static double bare_round_trip(long rounds)
{
    int in[2], out[2];
    if (pipe(in) || pipe(out)) return -1;
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
    if (write_all(in[1], hello, strlen(hello)) || read_line(out[0], buf, sizeof buf) < 0) return -1;
    /* The same request the runner sends for a step of the generated suite. */
    char req[128];
    double t0 = now(), c0 = cpu_seconds(RUSAGE_SELF), k0 = cpu_seconds(RUSAGE_CHILDREN);
    for (long i = 1; i <= rounds; i++) {
        int n = snprintf(req, sizeof req, "{\"id\":%ld,\"op\":\"util.num_gpus\"}\n", i);
        if (write_all(in[1], req, (size_t)n) || read_line(out[0], buf, sizeof buf) < 0) return -1;
    }
    double t = now() - t0, c = cpu_seconds(RUSAGE_SELF) - c0;
    close(in[1]);
    close(out[0]);
    waitpid(pid, NULL, 0);
    last_cpu = (c + cpu_seconds(RUSAGE_CHILDREN) - k0) / (double)rounds;
    return t / (double)rounds;
}

/* The floor for an in-process runner: the null adapter's shared object called directly with
 * the same request, ROUNDS times; seconds per call (its CPU time in last_cpu). */
static double bare_call(long rounds)
{
    void *dl = dlopen(NULL_ADAPTER_SO, RTLD_NOW | RTLD_LOCAL);
    if (!dl) return -1;
    const char *(*call)(const char *, size_t, size_t *);
    void (*release)(const char *);
    *(void **)&call = dlsym(dl, "devspec_adapter_call");
    *(void **)&release = dlsym(dl, "devspec_adapter_free");
    if (!call || !release) return -1;
    size_t len;
    const char *hello = "{\"id\":0,\"op\":\"hello\",\"args\":{\"protocol\":1}}";
    const char *r = call(hello, strlen(hello), &len);
    if (!r) return -1;
    release(r);
    char req[128];
    double t0 = now(), c0 = cpu_seconds(RUSAGE_SELF);
    for (long i = 1; i <= rounds; i++) {
        int n = snprintf(req, sizeof req, "{\"id\":%ld,\"op\":\"util.num_gpus\"}", i);
        r = call(req, (size_t)n, &len);
        if (!r) return -1;
        release(r);
    }
    double t = now() - t0;
    last_cpu = (cpu_seconds(RUSAGE_SELF) - c0) / (double)rounds;
    dlclose(dl);
    return t / (double)rounds;
}

static double run_devspec(char *const argv[])
{
    double t0 = now(), k0 = cpu_seconds(RUSAGE_CHILDREN);
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, 1);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    double t = now() - t0;
    last_cpu = cpu_seconds(RUSAGE_CHILDREN) - k0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "devspec-bench: %s %s exited with %d\n", argv[0], argv[1],
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return -1;
    }
    return t;
}

#define REPEATS 5

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double v[REPEATS])
{
    double s[REPEATS];
    memcpy(s, v, sizeof s);
    qsort(s, REPEATS, sizeof s[0], cmp_double);
    return s[REPEATS / 2];
}

static double minimum(const double v[REPEATS])
{
    double m = v[0];
    for (int i = 1; i < REPEATS; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

int main(int argc, char **argv)
{
    long cases = argc > 1 ? atol(argv[1]) : 1000;
    long steps = argc > 2 ? atol(argv[2]) : 50;
    long rounds = argc > 3 ? atol(argv[3]) : 50000;
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
        write_text(
            specf,
            "{\"features\": [{\"name\": \"device-attr\", \"statements\": [\"BENCH-1\"]}]}\n") ||
        write_text(
            stf,
            "{\"statements\": [{\"id\": \"BENCH-1\", \"level\": \"must\", \"text\": \"x\"}]}\n")) {
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
        fprintf(
            f,
            "%s{\"id\": \"bench.c%ld\", \"spec\": [\"BENCH-1\"], \"features\": [\"device-attr\"], "
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

    char *load_argv[] = {DEVSPEC_EXE, "validate", "--spec", spec, "--cases", casef, NULL};
    /* One worker, so that the run is compared with one pipe's round trip; the runner's
     * default (a worker per core) is measured apart, as a throughput. */
    char *oop_argv[] = {DEVSPEC_EXE, "run",           "--spec",         spec,     "--cases",
                        casef,       "--adapter",     NULL_ADAPTER_EXE, "--jobs", "1",
                        "--no-tap",  "--no-progress", "--report",       report,   NULL};
    char *par_argv[] = {
        DEVSPEC_EXE,      "run",      "--spec",        spec,       "--cases", casef, "--adapter",
        NULL_ADAPTER_EXE, "--no-tap", "--no-progress", "--report", report,    NULL};
    char *inp_argv[] = {
        DEVSPEC_EXE,     "run",      "--spec",        spec,       "--cases", casef, "--adapter",
        NULL_ADAPTER_SO, "--no-tap", "--no-progress", "--report", report,    NULL};
    /* The machine may be busy: each figure is taken REPEATS times, interleaved, and the
     * median is reported (the minimum beside it, the least disturbed run). */
    double rt[REPEATS], load[REPEATS], oop[REPEATS], inp[REPEATS], par[REPEATS], ratio[REPEATS];
    double call[REPEATS], cpu_rt[REPEATS], cpu_call[REPEATS], cpu_load[REPEATS], cpu_oop[REPEATS],
        cpu_inp[REPEATS];
    for (int k = 0; k < REPEATS; k++) {
        rt[k] = bare_round_trip(rounds);
        cpu_rt[k] = last_cpu;
        call[k] = bare_call(rounds);
        cpu_call[k] = last_cpu;
        load[k] = run_devspec(load_argv);
        cpu_load[k] = last_cpu;
        oop[k] = run_devspec(oop_argv);
        cpu_oop[k] = last_cpu;
        inp[k] = run_devspec(inp_argv);
        cpu_inp[k] = last_cpu;
        par[k] = run_devspec(par_argv);
        if (rt[k] < 0 || call[k] < 0 || load[k] < 0 || oop[k] < 0 || inp[k] < 0 || par[k] < 0) {
            fputs("devspec-bench: a measurement failed\n", stderr);
            return 1;
        }
        /* per request, loading the suite excluded, against this repetition's round trip */
        ratio[k] = (oop[k] - load[k]) / (double)requests / rt[k];
    }
    double rt_m = median(rt), load_m = median(load), oop_m = median(oop), inp_m = median(inp);
    double oop_req = (oop_m - load_m) / (double)requests;
    double inp_req = (inp_m - load_m) / (double)requests;
    printf("medians of %d interleaved repetitions (minimum in brackets)\n", REPEATS);
    printf("bare pipe round trip            %8.2f us   [%.2f]\n", rt_m * 1e6, minimum(rt) * 1e6);
    printf("load + validate the suite       %8.3f s    [%.3f]\n", load_m, minimum(load));
    printf("out of process, one worker      %8.3f s    [%.3f]  %8.0f steps/s\n", oop_m,
           minimum(oop), (double)total_steps / oop_m);
    printf("  per request, load excluded    %8.2f us   = %.2f x the bare round trip "
           "(median of the per-repetition ratios %.2f; goal <= 1.5)\n",
           oop_req * 1e6, oop_req / rt_m, median(ratio));
    /* A difference of two medians taken in turns: on a busy machine the bare round trips
     * can be the ones slowed, and a negative overhead is no figure. */
    if (oop_req >= rt_m)
        printf("  runner overhead per request   %8.2f us   = %.2f x the bare round trip\n",
               (oop_req - rt_m) * 1e6, (oop_req - rt_m) / rt_m);
    else
        printf("  runner overhead per request   not measured: a request took less than the bare "
               "round trip, which the machine's load slowed more in this run\n");
    double par_m = median(par);
    printf("out of process, default --jobs  %8.3f s    [%.3f]  %8.0f steps/s (a worker per core; "
           "throughput, not compared with one pipe)\n",
           par_m, minimum(par), (double)total_steps / par_m);
    printf("in process, whole run           %8.3f s    [%.3f]  %8.0f steps/s (goal >= 400000)\n",
           inp_m, minimum(inp), (double)total_steps / inp_m);
    double call_m = median(call);
    printf("  per request, load excluded    %8.2f us   = %.1f x the bare call of the adapter's "
           "entry point (%.3f us; %.0f requests/s)\n",
           inp_req * 1e6, inp_req / call_m, call_m * 1e6, 1 / inp_req);
    /* The same figures in CPU time: on a busy machine a run also waits for a core, which the
     * wall times above hold and these do not. */
    double crt = median(cpu_rt), coop = median(cpu_oop), cload = median(cpu_load);
    double cinp = median(cpu_inp), ccall = median(cpu_call);
    double coop_req = (coop - cload) / (double)requests;
    printf("CPU time (runner and adapter; medians):\n");
    printf("  bare pipe round trip          %8.2f us   (both processes)\n", crt * 1e6);
    printf("  out of process, per request   %8.2f us   = %.2f x the bare round trip "
           "(load excluded; goal <= 1.5)\n",
           coop_req * 1e6, coop_req / crt);
    printf("  in process, whole run         %8.3f s    %8.0f steps/s of CPU (goal >= 400000; "
           "loading the suite %.3f s of it)\n",
           cinp, (double)total_steps / cinp, cload);
    printf("  in process, per request       %8.2f us   = %.1f x the bare call (%.3f us)\n",
           (cinp - cload) / (double)requests * 1e6, (cinp - cload) / (double)requests / ccall,
           ccall * 1e6);

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
