/* dtest.c: the runner of devspec's C tests (dtest.h). Each test runs in the process, in the
 * order listed; a failed or skipped test returns here through longjmp. */
#include "dtest.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

enum { RESULT_PASS, RESULT_FAIL, RESULT_SKIP };

static jmp_buf stop;
static const char *current;
static char skip_reason[256];

const char *dt_current(void)
{
    return current;
}

static void vdiag(const char *prefix, const char *fmt, va_list ap)
{
    printf("# %s", prefix);
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
}

void dt_diag(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag("", fmt, ap);
    va_end(ap);
}

static _Noreturn void stop_test(int result)
{
    if (!current) {
        /* An assertion outside a test (in main or a static initialiser): nothing to return
         * to, so the program fails. */
        fflush(stdout);
        exit(1);
    }
    longjmp(stop, result);
}

void dt_fail(const char *file, int line, const char *fmt, ...)
{
    char where[512];
    snprintf(where, sizeof where, "%s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    vdiag(where, fmt, ap);
    va_end(ap);
    stop_test(RESULT_FAIL);
}

void dt__fail_msg(const char *file, int line, const char *cond, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    printf("# %s:%d: %s\n#   assertion failed: %s\n", file, line, what, cond);
    fflush(stdout);
    stop_test(RESULT_FAIL);
}

void dt_skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(skip_reason, sizeof skip_reason, fmt, ap);
    va_end(ap);
    stop_test(RESULT_SKIP);
}

static bool selected(const char *name, int argc, char **argv)
{
    if (argc < 2) return true;
    for (int i = 1; i < argc; i++)
        if (strstr(name, argv[i])) return true;
    return false;
}

/* Runs one test; volatile keeps the result across the longjmp. */
static int run_one(const dt_test *t)
{
    volatile int result = RESULT_PASS;
    current = t->name;
    int jumped = setjmp(stop);
    if (jumped == 0)
        t->fn();
    else
        result = jumped;
    current = NULL;
    return result;
}

int dt_main(int argc, char **argv, const dt_test *tests, size_t n)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--list") == 0) {
            for (size_t k = 0; k < n; k++)
                printf("%s\n", tests[k].name);
            return 0;
        }
        if (argv[i][0] == '-') {
            fprintf(stderr, "%s: unknown option '%s' (usage: %s [--list] [NAME...])\n", argv[0],
                    argv[i], argv[0]);
            return 2;
        }
    }
    size_t planned = 0;
    for (size_t k = 0; k < n; k++)
        planned += selected(tests[k].name, argc, argv);
    if (planned == 0) {
        fprintf(stderr, "%s: no test name contains what was given (--list lists them)\n", argv[0]);
        return 2;
    }
    /* Every line the harness writes is flushed at once, so the tests' own output and the TAP
     * lines keep their order whatever the buffering of stdout. */
    printf("1..%zu\n", planned);
    fflush(stdout);
    size_t number = 0, failed = 0;
    for (size_t k = 0; k < n; k++) {
        if (!selected(tests[k].name, argc, argv)) continue;
        int result = run_one(&tests[k]);
        number++;
        if (result == RESULT_FAIL) {
            failed++;
            printf("not ok %zu - %s\n", number, tests[k].name);
        } else if (result == RESULT_SKIP) {
            printf("ok %zu - %s # SKIP %s\n", number, tests[k].name, skip_reason);
        } else {
            printf("ok %zu - %s\n", number, tests[k].name);
        }
        fflush(stdout);
    }
    if (failed) printf("# %zu of %zu tests failed\n", failed, planned);
    return failed ? 1 : 0;
}
