/*
 * tap.h: TAP output and checks for refarray's tests (header-only).
 *
 * Each check prints "ok N - name" or "not ok N - name"; a failure adds the expected and the
 * observed value and file:line as "#" diagnostics. tap_skip prints "ok N - name # SKIP why".
 * tap_done prints the plan "1..N" and returns the exit status (1 when a check failed).
 * Names of checks that verify a spec statement start with its ID.
 */
#ifndef RA_TEST_TAP_H
#define RA_TEST_TAP_H

#include "refarray.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count;
static int tap_failed;

static inline int tap_vok(int cond, const char *file, int line, const char *fmt, va_list ap)
{
    printf("%sok %d - ", cond ? "" : "not ", ++tap_count);
    vprintf(fmt, ap);
    printf("\n");
    if (!cond) {
        tap_failed++;
        printf("#   at %s:%d\n", file, line);
    }
    fflush(stdout);
    return cond;
}

static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = tap_vok(cond, file, line, fmt, ap);
    va_end(ap);
    return r;
}

/* A check of a known, reported bug: "not ok N - name # TODO reason" does not fail the run
 * (TAP's TODO directive); once it passes it prints "ok N - name # TODO reason". */
static inline int tap_todo(int cond, const char *reason, const char *file, int line,
                           const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%sok %d - ", cond ? "" : "not ", ++tap_count);
    vprintf(fmt, ap);
    printf(" # TODO %s\n", reason);
    va_end(ap);
    if (!cond) printf("#   at %s:%d\n", file, line);
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

static inline void tap_diag(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("# ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

static inline int tap_done(void)
{
    printf("1..%d\n", tap_count);
    return tap_failed ? 1 : 0;
}

#define OK(cond, ...) tap_ok((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)

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

/* The detail message contains a substring. */
#define EXPECT_MSG(ctx, sub, ...)                                                                  \
    do {                                                                                           \
        const char *m_ = ra_ctx_message(ctx);                                                      \
        if (!OK(strstr(m_, (sub)) != NULL, __VA_ARGS__))                                           \
            printf("#   expected the message to contain \"%s\", observed \"%s\"\n", (sub), m_);    \
    } while (0)

static inline const char *dev_str(ra_device d, char buf[RA_DEVICE_STR_MAX])
{
    if (ra_device_format(d, buf, RA_DEVICE_STR_MAX) != RA_OK)
        snprintf(buf, RA_DEVICE_STR_MAX, "<invalid>");
    return buf;
}

#define EXPECT_DEV(got, want, ...)                                                                 \
    do {                                                                                           \
        ra_device got_ = (got), want_ = (want);                                                    \
        char g_[RA_DEVICE_STR_MAX], w_[RA_DEVICE_STR_MAX];                                         \
        if (!OK(ra_device_eq(got_, want_), __VA_ARGS__))                                           \
            printf("#   expected device %s, observed %s\n", dev_str(want_, w_),                    \
                   dev_str(got_, g_));                                                             \
    } while (0)

/* Reads any real array's values as doubles (through a float64 copy on cpu). Returns the
 * number of values read, or -1 on error. */
static inline long read_values(ra_ctx *ctx, const ra_array *x, double *out, size_t cap)
{
    ra_array *h = NULL, *d = NULL;
    long n = -1;
    if (ra_to_device(ctx, x, RA_CPU, NULL, &h) != RA_OK) return -1;
    if (ra_astype(ctx, h, RA_FLOAT64, NULL, &d) == RA_OK) {
        size_t size = (size_t)ra_array_size(d);
        if (size <= cap && ra_array_read(ctx, d, out, size * sizeof(double)) == RA_OK)
            n = (long)size;
    }
    ra_array_release(h);
    ra_array_release(d);
    return n;
}

/* Compares an array's values with expected ones (NaN equals NaN; -0.0 equals 0.0 unless the
 * test checks signs itself). */
static inline int values_equal(const double *got, const double *want, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (isnan(want[i]) ? !isnan(got[i]) : got[i] != want[i]) return 0;
    }
    return 1;
}

#define EXPECT_VALUES(ctx, x, name, ...)                                                           \
    do {                                                                                           \
        const double want_[] = {__VA_ARGS__};                                                      \
        size_t nw_ = sizeof want_ / sizeof want_[0];                                               \
        double got_[64];                                                                           \
        long ng_ = (x) ? read_values((ctx), (x), got_, 64) : -1;                                   \
        int ok_ = ng_ == (long)nw_ && values_equal(got_, want_, nw_);                              \
        if (!tap_ok(ok_, __FILE__, __LINE__, "%s", (name))) {                                      \
            printf("#   expected [");                                                              \
            for (size_t i_ = 0; i_ < nw_; i_++)                                                    \
                printf("%s%g", i_ ? ", " : "", want_[i_]);                                         \
            printf("], observed ");                                                                \
            if (ng_ < 0)                                                                           \
                printf("(unreadable: %s)\n", ra_ctx_message(ctx));                                 \
            else {                                                                                 \
                printf("[");                                                                       \
                for (long i_ = 0; i_ < ng_; i_++)                                                  \
                    printf("%s%g", i_ ? ", " : "", got_[i_]);                                      \
                printf("]\n");                                                                     \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* Opens a context or exits with a TAP bail-out. */
static inline ra_ctx *open_ctx(void)
{
    ra_ctx *ctx = NULL;
    int status = ra_ctx_create(NULL, &ctx);
    if (status != RA_OK) {
        printf("Bail out! ra_ctx_create: %s: %s\n", ra_status_name(status), ra_ctx_message(NULL));
        exit(1);
    }
    return ctx;
}

/* The context's devices (at most 16). */
static inline size_t list_devices(ra_ctx *ctx, ra_device *devs)
{
    size_t n = 0;
    ra_info_devices(ctx, devs, 16, &n);
    return n < 16 ? n : 16;
}

#endif /* RA_TEST_TAP_H */
