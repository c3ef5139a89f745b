/*
 * driver.h: a small protocol driver for the adapter tests. It talks to an adapter in one of
 * the two transports (in process through devspec_adapter_call, or out of process through
 * devspec-adapter-host on a pipe), checks replies against expected JSON and prints TAP.
 */
#ifndef DEVSPEC_ADAPTER_TEST_DRIVER_H
#define DEVSPEC_ADAPTER_TEST_DRIVER_H

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
 * id. Returns the parsed reply (caller deletes) or NULL with a failed TAP line written.
 * file/line name the test's source position. */
cJSON *drv_send(drv *d, const char *file, int line, const char *request_fmt, ...);

/* Expects success; `expect` (JSON text with $names; "*" matches anything; objects match
 * partially) is compared with the result. When `bind` is not NULL, the result is bound to
 * that name. Prints one TAP line named `name`. Returns true on pass. */
bool drv_ok(drv *d, const char *file, int line, const char *name, const char *bind,
            const char *expect, const char *request_fmt, ...);
/* Expects an error of `kind` and `origin` (NULL: any). */
bool drv_err(drv *d, const char *file, int line, const char *name, const char *kind,
             const char *origin, const char *request_fmt, ...);

/* When on, a reply NotImplementedError with origin "adapter" (the library lacks the
 * function) makes drv_ok/drv_err print a SKIP line instead of a failure. */
void drv_skip_unimplemented(drv *d, bool on);

/* TAP bookkeeping. */
void tap_ok(bool pass, const char *fmt, ...);
void tap_skip(const char *name, const char *why);
void tap_diag(const char *fmt, ...);
int tap_done(void); /* prints the plan, returns the exit status */

#define OK(d, name, bind, expect, ...)                                                             \
    drv_ok(d, __FILE__, __LINE__, name, bind, expect, __VA_ARGS__)
#define ERR(d, name, kind, origin, ...)                                                            \
    drv_err(d, __FILE__, __LINE__, name, kind, origin, __VA_ARGS__)

#endif
