/*
 * transports_test: `devspec run --adapter refarray` out of process and in process must give
 * identical results (spec/protocol.md: "a run gives identical results in both"). Runs the
 * whole suite both ways and compares every case's status and reason. Prints TAP.
 *
 *   transports_test DEVSPEC WORK_DIR
 */
#define _POSIX_C_SOURCE 200809L

#include "dtest.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A check of one case goes on to the next case, so that every case that differs is listed;
 * the test then fails on the count. The other checks stop the test. */
static int differing;

static void tap(bool pass, const char *what, const char *detail)
{
    if (pass) return;
    dt_fail(__FILE__, __LINE__, "%s%s%s", what, detail ? "\n#   " : "", detail ? detail : "");
}

static void tap_case(bool pass, const char *what)
{
    if (pass) return;
    differing++;
    dt_diag("%s", what);
}

static char *devspec_program, *work_dir;

/* Runs devspec with its stdout and stderr in `log`; returns its exit status or -1. */
static int run(char *const argv[], const char *log)
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        /* Leak checking is left to the adapter tests: the runner unloads an in-process
         * adapter at exit, and with it the OpenCL loader, so LeakSanitizer could no longer
         * tell OpenCL's process-lifetime state (suppressed by name in .ci/lsan.supp) from
         * a leak. Memory errors are still reported. */
        const char *asan = getenv("ASAN_OPTIONS");
        char opts[1024];
        snprintf(opts, sizeof opts, "%s%sdetect_leaks=0", asan ? asan : "",
                 asan && *asan ? ":" : "");
        setenv("ASAN_OPTIONS", opts, 1);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

static cJSON *load(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    size_t got = text ? fread(text, 1, (size_t)size, f) : 0;
    fclose(f);
    cJSON *j = NULL;
    if (text) {
        text[got] = '\0';
        j = cJSON_Parse(text);
    }
    free(text);
    return j;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

DT_TEST(suite_in_both_transports)
{
    char *argv[] = {NULL, devspec_program, work_dir};
    char host_report[4096], inproc_report[4096], host_log[4096], inproc_log[4096];
    snprintf(host_report, sizeof host_report, "%s/out-of-process.json", argv[2]);
    snprintf(inproc_report, sizeof inproc_report, "%s/in-process.json", argv[2]);
    snprintf(host_log, sizeof host_log, "%s/out-of-process.log", argv[2]);
    snprintf(inproc_log, sizeof inproc_log, "%s/in-process.log", argv[2]);
    char *host_argv[] = {argv[1],         "run",      "--adapter", "refarray",
                         "--no-progress", "--report", host_report, NULL};
    char *inproc_argv[] = {argv[1],         "run",      "--adapter",   "refarray", "--in-process",
                           "--no-progress", "--report", inproc_report, NULL};
    /* 0: all as expected; 1: some cases did not pass. Both are complete runs. */
    int rc_host = run(host_argv, host_log);
    tap(rc_host == 0 || rc_host == 1, "devspec run --adapter refarray completes out of process",
        host_log);
    int rc_inproc = run(inproc_argv, inproc_log);
    tap(rc_inproc == 0 || rc_inproc == 1, "devspec run --adapter refarray --in-process completes",
        inproc_log);
    tap(rc_host == rc_inproc, "both runs exit with the same status", NULL);

    cJSON *a = load(host_report), *b = load(inproc_report);
    const cJSON *ca = cJSON_GetObjectItemCaseSensitive(a, "cases");
    const cJSON *cb = cJSON_GetObjectItemCaseSensitive(b, "cases");
    const cJSON *fa = cJSON_GetObjectItemCaseSensitive(a, "footer");
    const cJSON *fb = cJSON_GetObjectItemCaseSensitive(b, "footer");
    tap(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fa, "complete")) &&
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fb, "complete")),
        "both reports are complete", "a report is missing or has complete: false");
    int na = cJSON_GetArraySize(ca), nb = cJSON_GetArraySize(cb);
    char detail[256];
    snprintf(detail, sizeof detail, "%d cases out of process, %d in process", na, nb);
    tap(na > 0 && na == nb, "both ran the same number of cases", detail);

    int same = 0, pass = 0;
    for (const cJSON *x = ca ? ca->child : NULL; x; x = x->next) {
        const cJSON *y = NULL;
        for (const cJSON *z = cb ? cb->child : NULL; z && !y; z = z->next)
            if (strcmp(str(x, "id"), str(z, "id")) == 0) y = z;
        bool eq = y && strcmp(str(x, "status"), str(y, "status")) == 0 &&
                  strcmp(str(x, "reason"), str(y, "reason")) == 0;
        if (eq) {
            same++;
            pass += strcmp(str(x, "status"), "pass") == 0;
            continue;
        }
        char what[512];
        snprintf(what, sizeof what, "case %s: out of process %s (%.120s), in process %s (%.120s)",
                 str(x, "id"), str(x, "status"), str(x, "reason"), y ? str(y, "status") : "absent",
                 y ? str(y, "reason") : "");
        tap_case(false, what);
    }
    dt_diag("%d cases, %d pass, identical in both transports: %s", na, pass,
            same == na ? "yes" : "no");
    cJSON_Delete(a);
    cJSON_Delete(b);
    snprintf(detail, sizeof detail, "%d of %d cases agree (%d differ)", same, na, differing);
    tap(na > 0 && same == na, "every case has the same status and reason in both transports",
        detail);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: transports_test DEVSPEC WORK_DIR [TEST NAME...]\n");
        return 2;
    }
    devspec_program = argv[1];
    work_dir = argv[2];
    static const dt_test tests[] = {DT_ENTRY(suite_in_both_transports)};
    argv[2] = argv[0];
    return dt_main(argc - 2, argv + 2, tests, 1);
}
