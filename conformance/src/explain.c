/* What a failure says in the library's own terms: after a step failed, the runner asks the
 * adapter what each handle the failure mentions is (device.describe, array.describe) and
 * writes the failing step as the library saw it: the op and its arguments with every device
 * by the library's own name and every array by its dtype, shape and device. The reason's
 * "device#N", and the handles in the expected and observed values, become those names, so no
 * failure text shows a handle number; the report keeps
 * which handle each name was ("devices"), and --trace says it too ("# " lines). */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <stdlib.h>
#include <string.h>

/* The explanation's own requests are few and small; each gets this long. */
#define EXPLAIN_TIMEOUT 10.0

typedef struct explainer {
    dsr_client *cl;
    cJSON *names;  /* handle -> the library's name of the device */
    cJSON *arrays; /* handle -> {"dtype", "shape", "device"} */
    bool dead;     /* a request failed in transport: ask nothing more */
} explainer;

/* One request of the explanation: its result (owned by *DOC), or NULL when the adapter did
 * not answer one. A worker lost on the way is restarted; the case's result stays as judged. */
static const cJSON *ask(explainer *x, const char *op, const char *key, const char *handle,
                        cJSON **doc)
{
    *doc = NULL;
    if (x->dead || x->cl->broken) return NULL;
    cJSON *args = cJSON_CreateObject();
    cJSON_AddStringToObject(args, key, handle);
    x->cl->deadline = dsr__now() + EXPLAIN_TIMEOUT;
    dsr_reply rep;
    dsr_end e = dsr__client_request(x->cl, op, args, &rep, false);
    cJSON_Delete(x->cl->violation);
    x->cl->violation = NULL;
    if (e != DSR_END_OK) {
        x->dead = true;
        if (e == DSR_END_CRASH || e == DSR_END_TIMEOUT) dsr__client_restart(x->cl);
        return NULL;
    }
    *doc = rep.doc;
    return rep.ok ? rep.result : NULL;
}

/* The name of device handle H: the hello's device string for a device it listed, else what
 * device.describe answers ("str"); NULL when the adapter gives none. */
static const char *device_name(explainer *x, const char *h)
{
    const cJSON *known = cJSON_GetObjectItemCaseSensitive(x->names, h);
    if (known) return known->valuestring;
    const char *name = NULL;
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(x->cl->hello, "devices");
    const cJSON *strs = cJSON_GetObjectItemCaseSensitive(x->cl->hello, "device_strs");
    int i = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, devs)
    {
        const cJSON *s = cJSON_GetArrayItem(strs, i++);
        if (cJSON_IsString(d) && !strcmp(d->valuestring, h) && cJSON_IsString(s))
            name = s->valuestring;
    }
    cJSON *doc = NULL;
    if (!name) {
        const cJSON *s =
            cJSON_GetObjectItemCaseSensitive(ask(x, "device.describe", "device", h, &doc), "str");
        if (cJSON_IsString(s) && s->valuestring[0]) name = s->valuestring;
    }
    const cJSON *added = name ? cJSON_AddStringToObject(x->names, h, name) : NULL;
    cJSON_Delete(doc);
    return added ? added->valuestring : NULL;
}

/* Every "device#N" in S named, from the end of S so that positions stay valid. */
static void name_handles_in(explainer *x, const char *s)
{
    for (const char *p = s ? strstr(s, "device#") : NULL; p; p = strstr(p + 7, "device#")) {
        size_t n = 7;
        while (p[n] >= '0' && p[n] <= '9')
            n++;
        if (n == 7) continue;
        char h[32];
        if (n >= sizeof h) continue;
        memcpy(h, p, n);
        h[n] = 0;
        device_name(x, h);
    }
}

static void name_handles_json(explainer *x, const cJSON *v)
{
    if (dsr__is_device_handle(v)) {
        device_name(x, v->valuestring);
        return;
    }
    if (cJSON_IsString(v) && !strncmp(v->valuestring, "array#", 6) &&
        !cJSON_GetObjectItemCaseSensitive(x->arrays, v->valuestring)) {
        cJSON *doc = NULL;
        const cJSON *r = ask(x, "array.describe", "array", v->valuestring, &doc);
        if (cJSON_IsObject(r)) {
            cJSON *a = cJSON_Duplicate(r, true);
            cJSON_AddItemToObject(x->arrays, v->valuestring, a);
            const cJSON *d = cJSON_GetObjectItemCaseSensitive(a, "device");
            if (dsr__is_device_handle(d)) device_name(x, d->valuestring);
        }
        cJSON_Delete(doc);
        return;
    }
    const cJSON *c;
    cJSON_ArrayForEach(c, v) name_handles_json(x, c);
}

/* S with every named device handle replaced by its name (a new string). */
static char *renamed(const explainer *x, const char *s)
{
    dsr_buf b = {0};
    dsr__buf_puts(&b, "");
    while (*s) {
        const char *p = strstr(s, "device#");
        if (!p) {
            dsr__buf_puts(&b, s);
            break;
        }
        size_t n = 7;
        while (p[n] >= '0' && p[n] <= '9')
            n++;
        char h[32];
        const cJSON *name = NULL;
        if (n > 7 && n < sizeof h) {
            memcpy(h, p, n);
            h[n] = 0;
            name = cJSON_GetObjectItemCaseSensitive(x->names, h);
        }
        dsr__buf_add(&b, s, (size_t)(p - s));
        if (name)
            dsr__buf_puts(&b, name->valuestring);
        else
            dsr__buf_add(&b, p, n);
        s = p + n;
    }
    return b.data;
}

/* V as the call's text: devices by name, arrays as "float32[3] on cpu:1" (one the library
 * could not describe as "<array>"), strings quoted,
 * everything else as JSON (cut as messages are). */
static void put_value(dsr_buf *b, const explainer *x, const cJSON *v)
{
    const cJSON *name = dsr__is_device_handle(v)
                            ? cJSON_GetObjectItemCaseSensitive(x->names, v->valuestring)
                            : NULL;
    const cJSON *arr = cJSON_IsString(v) && !strncmp(v->valuestring, "array#", 6)
                           ? cJSON_GetObjectItemCaseSensitive(x->arrays, v->valuestring)
                           : NULL;
    if (name) {
        dsr__buf_puts(b, name->valuestring);
    } else if (arr) {
        const cJSON *dt = cJSON_GetObjectItemCaseSensitive(arr, "dtype");
        const cJSON *shape = cJSON_GetObjectItemCaseSensitive(arr, "shape");
        const cJSON *dev = cJSON_GetObjectItemCaseSensitive(arr, "device");
        dsr__buf_printf(b, "%s[", cJSON_IsString(dt) ? dt->valuestring : "?");
        int k = 0;
        const cJSON *n;
        cJSON_ArrayForEach(n, shape) dsr__buf_printf(b, "%s%.0f", k++ ? "," : "", n->valuedouble);
        dsr__buf_puts(b, "] on ");
        const cJSON *dn = dsr__is_device_handle(dev)
                              ? cJSON_GetObjectItemCaseSensitive(x->names, dev->valuestring)
                              : NULL;
        dsr__buf_puts(b, dn ? dn->valuestring : cJSON_IsNull(dev) ? "None" : "?");
    } else if (cJSON_IsString(v) && !strncmp(v->valuestring, "array#", 6)) {
        dsr__buf_puts(b, "<array>"); /* one the library could not describe: no handle number */
    } else if (cJSON_IsArray(v)) {
        dsr__buf_puts(b, "[");
        int k = 0;
        const cJSON *c;
        cJSON_ArrayForEach(c, v)
        {
            if (k++) dsr__buf_puts(b, ", ");
            put_value(b, x, c);
        }
        dsr__buf_puts(b, "]");
    } else if (cJSON_IsObject(v) && !dsr__is_typed_array(v)) {
        dsr__buf_puts(b, "{");
        int k = 0;
        const cJSON *c;
        cJSON_ArrayForEach(c, v)
        {
            dsr__buf_printf(b, "%s%s: ", k++ ? ", " : "", c->string);
            put_value(b, x, c);
        }
        dsr__buf_puts(b, "}");
    } else {
        dsr__show_value(b, v, 200);
    }
}

/* A copy of V (expected or observed) with every device handle the explanation named replaced
 * by the library's name and every array handle it described by its text ("float32[3] on
 * cpu:1"), so that TAP, the report and the reproducers show no handle number. */
static cJSON *named_value(const explainer *x, const cJSON *v)
{
    bool array = cJSON_IsString(v) && !strncmp(v->valuestring, "array#", 6);
    bool device =
        dsr__is_device_handle(v) && cJSON_GetObjectItemCaseSensitive(x->names, v->valuestring);
    if (array || device) {
        dsr_buf b = {0};
        put_value(&b, x, v);
        cJSON *s = cJSON_CreateString(b.data);
        dsr__buf_free(&b);
        return s;
    }
    if (cJSON_IsString(v)) {
        char *text = renamed(x, v->valuestring);
        cJSON *s = cJSON_CreateString(text);
        free(text);
        return s;
    }
    if (!cJSON_IsArray(v) && !cJSON_IsObject(v)) return cJSON_Duplicate(v, true);
    cJSON *out = cJSON_IsArray(v) ? cJSON_CreateArray() : cJSON_CreateObject();
    const cJSON *c;
    cJSON_ArrayForEach(c, v)
    {
        if (cJSON_IsArray(v))
            cJSON_AddItemToArray(out, named_value(x, c));
        else
            cJSON_AddItemToObject(out, c->string, named_value(x, c));
    }
    return out;
}

/* The step as a call: OP(key=value, ...). */
static char *call_text(const explainer *x, const char *op, const cJSON *args)
{
    dsr_buf b = {0};
    dsr__buf_printf(&b, "%s(", op);
    int k = 0;
    const cJSON *a;
    cJSON_ArrayForEach(a, args)
    {
        dsr__buf_printf(&b, "%s%s=", k++ ? ", " : "", a->string);
        put_value(&b, x, a);
    }
    dsr__buf_puts(&b, ")");
    return b.data;
}

/* The innermost frame of the library's traceback in an observed error, or NULL. */
static const char *last_frame(const cJSON *observed)
{
    const cJSON *tb = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(observed, "error"), "traceback");
    const cJSON *last = cJSON_GetArrayItem(tb, cJSON_GetArraySize(tb) - 1);
    return cJSON_IsString(last) ? last->valuestring : NULL;
}

void dsr__explain_failure(dsr_client *cl, const dsr_case *c, const cJSON *bindings, dsr_result *res)
{
    if (res->step < 0 || res->step >= c->nsteps || cl->broken) return;
    const dsr_step *st = &c->steps[res->step];
    explainer x = {cl, cJSON_CreateObject(), cJSON_CreateObject(), false};
    cJSON *args = st->args ? dsr__resolve(bindings, st->args) : cJSON_CreateObject();
    name_handles_json(&x, args);
    name_handles_in(&x, res->reason);
    name_handles_json(&x, res->expected);
    name_handles_json(&x, res->observed);

    res->call = call_text(&x, st->op, args);
    dsr_buf why = {0};
    char *reason = renamed(&x, res->reason ? res->reason : "");
    dsr__buf_puts(&why, reason);
    free(reason);
    const char *frame = last_frame(res->observed);
    if (frame) dsr__buf_printf(&why, " (raised at %s)", frame);
    free(res->reason);
    res->reason = why.data;
    cJSON *named[2] = {res->expected ? named_value(&x, res->expected) : NULL,
                       res->observed ? named_value(&x, res->observed) : NULL};
    cJSON_Delete(res->expected);
    cJSON_Delete(res->observed);
    res->expected = named[0];
    res->observed = named[1];

    if (cJSON_GetArraySize(x.names) > 0) {
        res->devices = x.names;
        x.names = NULL;
        const cJSON *n;
        cJSON_ArrayForEach(n, res->devices)
        {
            dsr_buf note = {0};
            dsr__buf_printf(&note, "%s is the library's %s (case %s)", n->string, n->valuestring,
                            c->id);
            dsr__client_trace_note(note.data);
            dsr__buf_free(&note);
        }
    }
    cJSON_Delete(x.names);
    cJSON_Delete(x.arrays);
    cJSON_Delete(args);
}
