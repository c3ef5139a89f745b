/*
 * dtest.h: devspec's test harness, one for every C test of the project (libuv's task.h,
 * test-list.h and runner are the model).
 *
 * A test program is a set of named test functions and one list of them:
 *
 *     #include "dtest.h"
 *
 *     DT_TEST(parse_rejects_upper_case)
 *     {
 *         ASSERT_INT_EQ(parse("GPU:0"), -3);
 *     }
 *
 *     DT_MAIN(DT_ENTRY(parse_rejects_upper_case), ...)
 *
 * The runner (dtest.c) runs the tests in the order listed and prints TAP: the plan "1..N",
 * then one line per test, "ok N - name", "not ok N - name" or "ok N - name # SKIP reason".
 * An assertion that fails stops its test at once and prints, as TAP diagnostics before the
 * test's line, the file and line, the expression, and the expected and the observed values;
 * the next test then runs. Assertions may be used in helper functions called by a test, but
 * only in the test's own thread: a test that starts threads counts their failures and
 * asserts on the count. What a stopped test allocated is not freed.
 *
 * Command line of every test program:
 *     prog              every test
 *     prog NAME...      only the tests whose name contains one of the NAMEs
 *     prog --list       the test names, one a line
 * Exit status: 0 when no test failed, 1 otherwise, 2 for a bad command line or no test
 * selected.
 */
#ifndef DTEST_H
#define DTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dt_test {
    const char *name;
    void (*fn)(void);
} dt_test;

/* Defines a test function; name is a C identifier and the test's name in the output. */
#define DT_TEST(name) static void dt_test_##name(void)
/* One entry of the list given to DT_MAIN. */
#define DT_ENTRY(name)                                                                             \
    {                                                                                              \
#name, dt_test_##name                                                                      \
    }
/* Defines main: runs the listed tests (dt_main). */
#define DT_MAIN(...)                                                                               \
    int main(int argc, char **argv)                                                                \
    {                                                                                              \
        static const dt_test dt_tests_[] = {__VA_ARGS__};                                          \
        return dt_main(argc, argv, dt_tests_, sizeof dt_tests_ / sizeof dt_tests_[0]);             \
    }

/* Runs the tests the command line selects (see above) and returns the exit status. */
int dt_main(int argc, char **argv, const dt_test *tests, size_t n);

/* Stops the current test as failed, after printing "# file:line: " and the message. */
_Noreturn void dt_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Stops the current test as skipped with the reason (TAP's SKIP directive). */
_Noreturn void dt_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints one diagnostic line ("# " and the message) under the current test. */
void dt_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The name of the test that is running (NULL outside a test). */
const char *dt_current(void);

/* ---- Assertions: each stops the test when it fails ---- */

#define ASSERT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) dt_fail(__FILE__, __LINE__, "assertion failed: %s", #cond);                   \
    } while (0)

/* The same with a message (printf format) that says what was checked. */
#define ASSERT_MSG(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) dt__fail_msg(__FILE__, __LINE__, #cond, __VA_ARGS__);                         \
    } while (0)

#define ASSERT_INT_EQ(observed, expected)                                                          \
    do {                                                                                           \
        intmax_t o_ = (intmax_t)(observed), e_ = (intmax_t)(expected);                             \
        if (o_ != e_)                                                                              \
            dt_fail(__FILE__, __LINE__, "%s == %s: expected %jd, observed %jd", #observed,         \
                    #expected, e_, o_);                                                            \
    } while (0)

#define ASSERT_UINT_EQ(observed, expected)                                                         \
    do {                                                                                           \
        uintmax_t o_ = (uintmax_t)(observed), e_ = (uintmax_t)(expected);                          \
        if (o_ != e_)                                                                              \
            dt_fail(__FILE__, __LINE__, "%s == %s: expected %ju, observed %ju", #observed,         \
                    #expected, e_, o_);                                                            \
    } while (0)

/* Exact equality of doubles (printed with 17 significant digits). */
#define ASSERT_DBL_EQ(observed, expected)                                                          \
    do {                                                                                           \
        double o_ = (double)(observed), e_ = (double)(expected);                                   \
        if (!(o_ == e_))                                                                           \
            dt_fail(__FILE__, __LINE__, "%s == %s: expected %.17g, observed %.17g", #observed,     \
                    #expected, e_, o_);                                                            \
    } while (0)

#define ASSERT_STR_EQ(observed, expected)                                                          \
    do {                                                                                           \
        const char *o_ = (observed), *e_ = (expected);                                             \
        if (!o_ || !e_ || strcmp(o_, e_) != 0)                                                     \
            dt_fail(__FILE__, __LINE__, "%s == %s: expected \"%s\", observed \"%s\"", #observed,   \
                    #expected, e_ ? e_ : "(null)", o_ ? o_ : "(null)");                            \
    } while (0)

/* observed contains the substring sub. */
#define ASSERT_STR_CONTAINS(observed, sub)                                                         \
    do {                                                                                           \
        const char *o_ = (observed), *s_ = (sub);                                                  \
        if (!o_ || !strstr(o_, s_))                                                                \
            dt_fail(__FILE__, __LINE__,                                                            \
                    "%s contains %s: expected a string containing \"%s\", "                        \
                    "observed \"%s\"",                                                             \
                    #observed, #sub, s_, o_ ? o_ : "(null)");                                      \
    } while (0)

#define ASSERT_NULL(p)                                                                             \
    do {                                                                                           \
        const void *o_ = (p);                                                                      \
        if (o_ != NULL) dt_fail(__FILE__, __LINE__, "%s: expected NULL, observed %p", #p, o_);     \
    } while (0)

#define ASSERT_NOT_NULL(p)                                                                         \
    do {                                                                                           \
        if ((p) == NULL) dt_fail(__FILE__, __LINE__, "%s: expected non-NULL, observed NULL", #p);  \
    } while (0)

/* For ASSERT_MSG. */
_Noreturn void dt__fail_msg(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#ifdef __cplusplus
}
#endif

#endif /* DTEST_H */
