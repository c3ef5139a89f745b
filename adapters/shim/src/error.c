/*
 * error.c: errors, the bottom of the shim: ds__fail fills an error, and ds_error() (a vendor's
 * callback, or ds_buffer_alloc) fills the error of the callback now running, if any.
 */
#include "shim_internal.h"

#include <stdarg.h>
#include <stdio.h>

int ds__fail(ds__err *e, ds__origin origin, const char *kind, const char *fmt, ...)
{
    va_list ap;
    e->set = true;
    e->origin = origin;
    e->lacks[0] = '\0';
    snprintf(e->kind, sizeof e->kind, "%s", kind);
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    return -1;
}

const char *ds__origin_name(ds__origin origin)
{
    switch (origin) {
    case DS__ORIGIN_ADAPTER:
        return "adapter";
    case DS__ORIGIN_PROTOCOL:
        return "protocol";
    case DS__ORIGIN_LIBRARY:
        break;
    }
    return "library";
}

/* The error the running callback gave with ds_error(); requests are serialised by session.c's
 * lock. */
static ds__err *callback_err;

void ds_verror(const char *kind, const char *fmt, va_list ap)
{
    if (callback_err == NULL) return;
    callback_err->set = true;
    callback_err->origin = DS__ORIGIN_LIBRARY;
    callback_err->lacks[0] = '\0';
    snprintf(callback_err->kind, sizeof callback_err->kind, "%s", kind ? kind : "RuntimeError");
    /* A NULL format is an empty message (not an empty format string, which clang's
     * -Wformat-zero-length refuses under -Werror). */
    if (fmt)
        vsnprintf(callback_err->message, sizeof callback_err->message, fmt, ap);
    else
        callback_err->message[0] = '\0';
}

void ds_error(const char *kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ds_verror(kind, fmt, ap);
    va_end(ap);
}

void ds_lacks(const char *name, const char *fmt, ...)
{
    va_list ap;
    if (callback_err == NULL) return;
    callback_err->set = true;
    callback_err->origin = DS__ORIGIN_LIBRARY;
    snprintf(callback_err->kind, sizeof callback_err->kind, "NotImplementedError");
    snprintf(callback_err->lacks, sizeof callback_err->lacks, "%s", name ? name : "?");
    va_start(ap, fmt);
    vsnprintf(callback_err->message, sizeof callback_err->message, fmt, ap);
    va_end(ap);
}

void ds__error_target(ds__err *e)
{
    callback_err = e;
}
