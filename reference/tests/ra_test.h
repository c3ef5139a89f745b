/*
 * ra_test.h: refarray's assertions on devspec's test harness (testing/dtest.h), header-only.
 *
 * Every assertion stops the test when it fails and prints file:line, what was checked (the
 * printf-style name the assertion is given; names of checks that verify a spec statement
 * start with its ID) and the expected and observed values. CHECK is an expression (1 when it
 * holds), so `if (CHECK(...))` reads naturally; the others are statements.
 */
#ifndef RA_TEST_H
#define RA_TEST_H

#include "dtest.h"
#include "refarray.h"

#include <complex.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* C11's CMPLX, which glibc defines only for GCC: clang has the same builtin. A complex built
 * this way keeps an infinite or NaN part as given (x + I * y would not). */
#if !defined(CMPLX) && defined(__clang__)
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#endif

/* Formats an assertion's name (its printf-style arguments) into a local buffer n_. Always,
 * before the check: the arguments are evaluated whether the check passes or not, as a
 * function's would be (a test may fill a buffer there that it reads afterwards). */
#define RA_TEST_NAME(...)                                                                          \
    char n_[512];                                                                                  \
    snprintf(n_, sizeof n_, __VA_ARGS__)

/* Stops the test unless cond holds; an expression of value 1 otherwise. */
#define CHECK(cond, ...) ra_check_((cond) ? 1 : 0, __FILE__, __LINE__, #cond, __VA_ARGS__)
static inline int ra_check_(int ok, const char *file, int line, const char *cond, const char *fmt,
                            ...) __attribute__((format(printf, 5, 6)));
static inline int ra_check_(int ok, const char *file, int line, const char *cond, const char *fmt,
                            ...)
{
    if (ok) return 1;
    char name[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    dt_fail(file, line, "%s\n#   assertion failed: %s", name, cond);
}

#define ASSERT_STATUS(ctx, got, want, ...)                                                         \
    do {                                                                                           \
        int got_ = (got), want_ = (want);                                                          \
        RA_TEST_NAME(__VA_ARGS__);                                                                 \
        if (got_ != want_) {                                                                       \
            dt_fail(__FILE__, __LINE__, "%s\n#   expected %s, observed %s: %s", n_,                \
                    ra_status_name(want_), ra_status_name(got_), ra_ctx_message(ctx));             \
        }                                                                                          \
    } while (0)

#define ASSERT_INT(got, want, ...)                                                                 \
    do {                                                                                           \
        long long got_ = (long long)(got), want_ = (long long)(want);                              \
        RA_TEST_NAME(__VA_ARGS__);                                                                 \
        if (got_ != want_) {                                                                       \
            dt_fail(__FILE__, __LINE__, "%s\n#   expected %lld, observed %lld", n_, want_, got_);  \
        }                                                                                          \
    } while (0)

#define ASSERT_STR(got, want, ...)                                                                 \
    do {                                                                                           \
        const char *got_ = (got), *want_ = (want);                                                 \
        RA_TEST_NAME(__VA_ARGS__);                                                                 \
        if (!(got_ && want_ && strcmp(got_, want_) == 0)) {                                        \
            dt_fail(__FILE__, __LINE__, "%s\n#   expected \"%s\", observed \"%s\"", n_,            \
                    want_ ? want_ : "(null)", got_ ? got_ : "(null)");                             \
        }                                                                                          \
    } while (0)

/* The detail message contains a substring. */
#define ASSERT_MESSAGE(ctx, sub, ...)                                                              \
    do {                                                                                           \
        const char *m_ = ra_ctx_message(ctx);                                                      \
        RA_TEST_NAME(__VA_ARGS__);                                                                 \
        if (strstr(m_, (sub)) == NULL) {                                                           \
            dt_fail(__FILE__, __LINE__,                                                            \
                    "%s\n#   expected the message to contain \"%s\", observed \"%s\"", n_, (sub),  \
                    m_);                                                                           \
        }                                                                                          \
    } while (0)

static inline const char *dev_str(ra_device d, char buf[RA_DEVICE_STR_MAX])
{
    if (ra_device_format(d, buf, RA_DEVICE_STR_MAX) != RA_OK)
        snprintf(buf, RA_DEVICE_STR_MAX, "<invalid>");
    return buf;
}

#define ASSERT_DEV(got, want, ...)                                                                 \
    do {                                                                                           \
        ra_device got_ = (got), want_ = (want);                                                    \
        RA_TEST_NAME(__VA_ARGS__);                                                                 \
        if (!ra_device_eq(got_, want_)) {                                                          \
            char g_[RA_DEVICE_STR_MAX], w_[RA_DEVICE_STR_MAX];                                     \
            dt_fail(__FILE__, __LINE__, "%s\n#   expected device %s, observed %s", n_,             \
                    dev_str(want_, w_), dev_str(got_, g_));                                        \
        }                                                                                          \
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

#define ASSERT_VALUES(ctx, x, name, ...)                                                           \
    do {                                                                                           \
        const double want_[] = {__VA_ARGS__};                                                      \
        size_t nw_ = sizeof want_ / sizeof want_[0];                                               \
        double got_[64];                                                                           \
        long ng_ = (x) ? read_values((ctx), (x), got_, 64) : -1;                                   \
        int ok_ = ng_ == (long)nw_ && values_equal(got_, want_, nw_);                              \
        if (!ok_) {                                                                                \
            printf("# %s:%d: %s\n", __FILE__, __LINE__, (name));                                   \
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
            dt_fail(__FILE__, __LINE__, "values differ");                                          \
        }                                                                                          \
    } while (0)

/* A part of a test that cannot run here (no second device, no OpenCL device): a diagnostic
 * line "# part skipped (REASON): NAME", and the test goes on. A test that cannot run at all
 * calls dt_skip instead. */
static inline void skip_part(const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void skip_part(const char *reason, const char *fmt, ...)
{
    char name[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    dt_diag("part skipped (%s): %s", reason, name);
}

/* Opens a context (all defaults); a failure stops the test. */
static inline ra_ctx *open_ctx(void)
{
    ra_ctx *ctx = NULL;
    int status = ra_ctx_create(NULL, &ctx);
    if (status != RA_OK)
        dt_fail(__FILE__, __LINE__, "ra_ctx_create: %s: %s", ra_status_name(status),
                ra_ctx_message(NULL));
    return ctx;
}

/* The context's devices (at most 16). */
static inline size_t list_devices(ra_ctx *ctx, ra_device *devs)
{
    size_t n = 0;
    ra_info_devices(ctx, devs, 16, &n);
    return n < 16 ? n : 16;
}

/* Calls fn on each device that a new context lists, then closes the context. */
static inline void on_each_device(void (*fn)(ra_ctx *ctx, ra_device dev))
{
    ra_ctx *ctx = open_ctx();
    ra_device devs[16];
    size_t n = list_devices(ctx, devs);
    for (size_t i = 0; i < n; i++)
        fn(ctx, devs[i]);
    ra_ctx_destroy(ctx);
}

/* An allocator hook (ra_allocator) whose allocation number fail_at (0-based, counted from
 * arming: count 0) fails once; live counts the blocks handed out and not yet released, so a
 * test sees that a failure leaks nothing. {0, 0, -1, false}: nothing fails. */
typedef struct failing {
    long live;    /* blocks handed out and not yet released */
    long count;   /* allocations since arming */
    long fail_at; /* the allocation (0-based) that fails; -1: none */
    bool failed;  /* the armed failure happened */
} failing;

static inline void *f_alloc(size_t size, void *ud)
{
    failing *f = ud;
    if (f->fail_at >= 0 && f->count++ == f->fail_at) {
        f->failed = true;
        return NULL;
    }
    void *p = malloc(size);
    if (p) f->live++;
    return p;
}

static inline void f_release(void *p, void *ud)
{
    failing *f = ud;
    if (p) f->live--;
    free(p);
}

#endif /* RA_TEST_H */
