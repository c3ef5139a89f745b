/*
 * driver.h: a small protocol driver for the adapter tests. It talks to an adapter in one of
 * the two transports (in process through devspec_adapter_call, or out of process through
 * devspec-adapter-host on a pipe) and checks replies against expected JSON; a reply that
 * differs stops the test (devspec's harness, testing/dtest.h).
 */
#ifndef DEVSPEC_ADAPTER_TEST_DRIVER_H
#define DEVSPEC_ADAPTER_TEST_DRIVER_H

#include "dtest.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct drv drv;

/* Opens a transport: mode "inproc" (argv: ADAPTER.so) or "host" (argv: HOST ADAPTER.so).
 * Reads argc/argv of main: PROGRAM MODE ARGS... Exits with a usage message on error. */
drv *drv_open(int argc, char **argv);
void drv_close(drv *d);
bool drv_is_host(const drv *d);

/* Sends one request line (exactly `len` bytes, no newline) and returns the reply text
 * (malloc'd), or NULL when the adapter died or the pipe broke. */
char *drv_raw(drv *d, const char *request, size_t len);

/* Binds $name (letters, digits, _) to a JSON value's text for later requests and
 * expectations. */
void drv_bind(drv *d, const char *name, const cJSON *value);
/* Binds `name` to field `field` of the object bound to `from` (nothing when absent). */
void drv_bind_field(drv *d, const char *name, const char *from, const char *field);
/* The bound value of `name` as a string, or NULL. */
const char *drv_bound(drv *d, const char *name);

/* One request with $name substitution and an automatic id. Checks that the reply echoes the
 * id (otherwise the test stops). Returns the parsed reply (caller deletes), or NULL when a
 * $name it needs is unbound. file/line name the test's source position. */
cJSON *drv_send(drv *d, const char *file, int line, const char *request_fmt, ...);

/* Expects success; `expect` (JSON text with $names; "*" matches anything; objects match
 * partially) is compared with the result. When `bind` is not NULL, the result is bound to
 * that name. A failure stops the test, naming `name`. Returns true on pass, false when the
 * check could not run (see drv_skip_unimplemented). */
bool drv_ok(drv *d, const char *file, int line, const char *name, const char *bind,
            const char *expect, const char *request_fmt, ...);
/* Expects an error of `kind` and `origin` (NULL: any). */
bool drv_err(drv *d, const char *file, int line, const char *name, const char *kind,
             const char *origin, const char *request_fmt, ...);

/* When on, a reply NotImplementedError with origin "adapter" (the library lacks the
 * function) makes drv_ok/drv_err print a "part skipped" line and go on. */
void drv_skip_unimplemented(drv *d, bool on);

/* Stops the current test (dtest.h) unless pass holds; the name says what was checked. */
#define drv_check(pass, ...) drv_check_at(__FILE__, __LINE__, (pass), __VA_ARGS__)
void drv_check_at(const char *file, int line, bool pass, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A check that cannot run (the library lacks the op, an earlier step failed): a diagnostic
 * line, and the test goes on. */
void drv_skip_part(const char *name, const char *why);

/* The transport every test of a program shares: DRV_MAIN opens it from the command line
 * (PROGRAM MODE ARGS... [TEST NAME...]) before the first test and closes it after the last. */
extern drv *drv_shared;
int drv_main(int argc, char **argv, const dt_test *tests, size_t n);
#define DRV_MAIN(...)                                                                              \
    int main(int argc, char **argv)                                                                \
    {                                                                                              \
        static const dt_test tests_[] = {__VA_ARGS__};                                             \
        return drv_main(argc, argv, tests_, sizeof tests_ / sizeof tests_[0]);                     \
    }

#define OK(d, name, bind, expect, ...)                                                             \
    drv_ok(d, __FILE__, __LINE__, name, bind, expect, __VA_ARGS__)
#define ERR(d, name, kind, origin, ...)                                                            \
    drv_err(d, __FILE__, __LINE__, name, kind, origin, __VA_ARGS__)

#endif
