/*
 * state.c: a session's state below the handlers: the handles, the open library and where the
 * error a callback gives with ds_error() goes.
 */
#include "state.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const kind_names[] = {"device", "array", "stream"};

int ds__handle_add(ds__session *s, ds__hkind kind, void *obj, bool permanent, char *name,
                   size_t size)
{
    if (s->nh == s->caph) {
        size_t cap = s->caph ? s->caph * 2 : 64;
        ds__handle *h = ds__realloc(s->h, cap * sizeof *h);
        if (h == NULL) return -1;
        s->h = h;
        s->caph = cap;
    }
    ds__handle *h = &s->h[s->nh++];
    h->kind = kind;
    h->id = s->next_id[kind]++;
    h->obj = obj;
    h->permanent = permanent;
    snprintf(name, size, "%s#%" PRIu64, kind_names[kind], h->id);
    return 0;
}

ds__handle *ds__handle_find(ds__session *s, const char *name, int *kind_out)
{
    if (kind_out) *kind_out = -1;
    const char *hash = strchr(name, '#');
    if (hash == NULL) return NULL;
    size_t tlen = (size_t)(hash - name);
    int kind = -1;
    for (int k = 0; k < 3; k++)
        if (strlen(kind_names[k]) == tlen && strncmp(name, kind_names[k], tlen) == 0) kind = k;
    const char *digits = hash + 1;
    if (kind < 0 || *digits < '0' || *digits > '9' || (digits[0] == '0' && digits[1])) return NULL;
    uint64_t id = 0;
    for (const char *p = digits; *p; p++) {
        if (*p < '0' || *p > '9' || id > (UINT64_MAX - 9) / 10) return NULL;
        id = id * 10 + (uint64_t)(*p - '0');
    }
    if (kind_out) *kind_out = kind;
    for (size_t i = 0; i < s->nh; i++)
        if (s->h[i].kind == (ds__hkind)kind && s->h[i].id == id) return &s->h[i];
    return NULL;
}

ds__handle *ds__handle_find_obj(ds__session *s, ds__hkind kind, const void *obj)
{
    for (size_t i = 0; i < s->nh; i++)
        if (s->h[i].kind == kind && s->h[i].obj == obj) return &s->h[i];
    return NULL;
}

void ds__handle_name(const ds__handle *h, char *name, size_t size)
{
    snprintf(name, size, "%s#%" PRIu64, kind_names[h->kind], h->id);
}

static void release(ds__session *s, const ds__handle *h)
{
    const ds_vendor *v = s->vendor;
    switch (h->kind) {
    case DS__H_ARRAY:
        if (DS__SLOT(v, release_array)) v->release_array(s->lib, h->obj);
        break;
    case DS__H_DEVICE:
        if (DS__SLOT(v, release_device) && h->obj) v->release_device(s->lib, h->obj);
        break;
    case DS__H_STREAM:
        if (DS__SLOT(v, release_stream) && h->obj) v->release_stream(s->lib, h->obj);
        break;
    }
}

void ds__handles_drop(ds__session *s, bool all)
{
    /* Arrays first (newest first), then streams and devices: an array may refer to its
     * device, so the device outlives it. */
    for (int pass = 0; pass < 3; pass++) {
        ds__hkind want = pass == 0 ? DS__H_ARRAY : pass == 1 ? DS__H_STREAM : DS__H_DEVICE;
        for (size_t i = s->nh; i-- > 0;)
            if (s->h[i].kind == want && (all || !s->h[i].permanent)) release(s, &s->h[i]);
    }
    size_t keep = 0;
    for (size_t i = 0; i < s->nh; i++)
        if (!all && s->h[i].permanent) s->h[keep++] = s->h[i];
    s->nh = keep;
    if (all) {
        ds__free(s->h);
        s->h = NULL;
        s->caph = 0;
    }
}

void ds__session_close(ds__session *s)
{
    if (s->lib_open) {
        ds__handles_drop(s, true);
        if (DS__SLOT(s->vendor, close)) s->vendor->close(s->lib);
    }
    s->lib = NULL;
    s->lib_open = false;
    s->hello_ok = false;
    s->dlpack_addresses = false;
}

int ds__status(ds__session *s, const char *op, int status, ds__err *e)
{
    if (status == 0) return 0;
    /* What the callback said it lacks (ds_lacks) is the reply, whatever status it returned,
     * DS_NOT_IMPLEMENTED too: one way to say "cannot" (devspec_shim.h). */
    if (s->callback_err.set && s->callback_err.lacks[0] != '\0') {
        *e = s->callback_err;
        e->origin = DS__ORIGIN_LIBRARY;
        return -1;
    }
    /* The reason a callback gave with ds_error() before returning DS_NOT_IMPLEMENTED is
     * kept: it says what the library cannot express. */
    if (status == DS_NOT_IMPLEMENTED && s->callback_err.set)
        return ds__fail(e, DS__ORIGIN_ADAPTER, "NotImplementedError",
                        "%s: the library cannot express this request: %s", op,
                        s->callback_err.message);
    if (status == DS_NOT_IMPLEMENTED)
        return ds__fail(e, DS__ORIGIN_ADAPTER, "NotImplementedError",
                        "%s: the library cannot express this request", op);
    if (s->callback_err.set) {
        *e = s->callback_err;
        e->origin = DS__ORIGIN_LIBRARY;
        return -1;
    }
    const char *kind = NULL, *message = NULL;
    if (DS__SLOT(s->vendor, error)) s->vendor->error(s->lib, status, &kind, &message);
    return ds__fail(e, DS__ORIGIN_LIBRARY, kind ? kind : "RuntimeError", "%s",
                    message ? message : "the library failed");
}

void ds__call_begin(ds__session *s)
{
    s->callback_err.set = false;
    ds__error_target(&s->callback_err);
}

void ds__call_end(void)
{
    ds__error_target(NULL);
}
