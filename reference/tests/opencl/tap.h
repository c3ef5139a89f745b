/*
 * tap.h: the few TAP helpers the OpenCL backend's tests share (header-only).
 *
 * Each test program prints a plan at the end ("1..N"), one "ok N - name" or "not ok N - name"
 * per check, failures with expected/observed and file:line as TAP diagnostics ("# ..."),
 * and "ok N - name # SKIP reason" for checks that cannot run here. The exit status is 1 when
 * any check failed.
 */
#ifndef RA_OPENCL_TAP_H
#define RA_OPENCL_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_count;
static int tap_failed;

/* Reports one check; returns cond so callers can stop early. */
static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%sok %d - ", cond ? "" : "not ", ++tap_count);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (!cond) {
        tap_failed++;
        printf("#   at %s:%d\n", file, line);
    }
    fflush(stdout);
    return cond;
}

static inline void tap_skip(const char *reason, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("ok %d - ", ++tap_count);
    vprintf(fmt, ap);
    printf(" # SKIP %s\n", reason);
    va_end(ap);
    fflush(stdout);
}

static inline int tap_done(void)
{
    printf("1..%d\n", tap_count);
    return tap_failed ? 1 : 0;
}

/* A check with a free-form name. */
#define OK(cond, ...) tap_ok((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)

/* Status checks: print the expected and observed status names (and the detail message). */
#define EXPECT_STATUS(ctx, got, want, ...)                                                         \
    do {                                                                                           \
        int got_ = (got), want_ = (want);                                                          \
        if (!OK(got_ == want_, __VA_ARGS__))                                                       \
            printf("#   expected %s, observed %s: %s\n", ra_status_name(want_),                    \
                   ra_status_name(got_), ra_ctx_message(ctx));                                     \
    } while (0)

#define EXPECT_INT(got, want, ...)                                                                 \
    do {                                                                                           \
        long long got_ = (long long)(got), want_ = (long long)(want);                              \
        if (!OK(got_ == want_, __VA_ARGS__))                                                       \
            printf("#   expected %lld, observed %lld\n", want_, got_);                             \
    } while (0)

#define EXPECT_STR(got, want, ...)                                                                 \
    do {                                                                                           \
        const char *got_ = (got), *want_ = (want);                                                 \
        if (!OK(got_ && want_ && strcmp(got_, want_) == 0, __VA_ARGS__))                           \
            printf("#   expected \"%s\", observed \"%s\"\n", want_ ? want_ : "(null)",             \
                   got_ ? got_ : "(null)");                                                        \
    } while (0)

#endif /* RA_OPENCL_TAP_H */
