/* A run: handshake, bind devices, run each selected case step by step, judge, apply the
 * expectations file, and report as it goes (TAP on stdout, JSON Lines), then consolidate
 * (the JSON report, JUnit XML) and compute the gate.
 *
 * Crash attribution follows the journal rule: the runner knows which case it sent last, so
 * when the worker dies the case in flight is the one that crashed. */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef DEVSPEC_VERSION
#define DEVSPEC_VERSION "0.0.0"
#endif

typedef enum { STEP_OK, STEP_FAIL, STEP_ERROR, STEP_CRASH, STEP_TIMEOUT, STEP_STOP } step_end;

typedef struct runner {
    const ds_options *o;
    const ds_registry *reg;
    ds_suite *suite;
    ds_expectations *ex;
    ds_adapter *ad;
    long next_id;
    cJSON *hello; /* the hello result */
    char *devices[DS_MAX_DEVICES];
    int ndevices;
    int restarts;
    bool incomplete;
    bool interrupted;
    char why_incomplete[1200];
    bool need_reset;
    double deadline;
    cJSON *bindings;
    ds_tap *tap;
    FILE *jsonl;
    char *jsonl_path;
    char *report_path;
    cJSON *header;
    ds_result *results;
    int nresults;
    ds_buf req; /* the request being sent */
    /* the failure of the last request, for the result */
    ds_buf msg;
    cJSON *expected;
    cJSON *observed;
} runner;

/* ---- requests ------------------------------------------------------------------------ */

typedef struct reply {
    bool ok;
    cJSON *doc;          /* the whole reply (owned) */
    const cJSON *result; /* when ok */
    const char *kind, *message, *origin;
} reply;

static void failmsg(runner *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failmsg(runner *r, const char *fmt, ...)
{
    va_list ap;
    char tmp[2048];
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    r->msg.len = 0;
    ds__buf_puts(&r->msg, tmp);
}

static int hello(runner *r, char *err, size_t errlen);

/* Starts a fresh worker after a crash, a timeout or a protocol violation, and replays the
 * handshake. Past --max-restarts the run stops as incomplete. */
static void restart(runner *r)
{
    if (ds__adapter_in_process(r->ad)) {
        r->incomplete = true;
        snprintf(r->why_incomplete, sizeof r->why_incomplete,
                 "the in-process adapter failed and cannot be restarted");
        return;
    }
    ds__adapter_kill(r->ad);
    if (r->restarts >= r->o->max_restarts) {
        r->incomplete = true;
        snprintf(r->why_incomplete, sizeof r->why_incomplete,
                 "the adapter failed again after %d restarts (limit --max-restarts %d)",
                 r->restarts, r->o->max_restarts);
        return;
    }
    r->restarts++;
    char err[400];
    if (ds__adapter_start(r->ad, err, sizeof err) != 0 || hello(r, err, sizeof err) != 0) {
        r->incomplete = true;
        snprintf(r->why_incomplete, sizeof r->why_incomplete,
                 "the adapter could not be restarted: %s", err);
        ds__adapter_kill(r->ad);
        return;
    }
    r->need_reset = false;
}

/* Sends OP with ARGS (taken over) and reads the reply. On STEP_OK *rep is filled; any other
 * result has set r->msg. */
static step_end request(runner *r, const char *op, cJSON *args, reply *rep, bool restart_on_error)
{
    memset(rep, 0, sizeof *rep);
    long id = r->next_id++;
    /* Composed by hand: cJSON prints every number through sprintf and sscanf, which was a
     * quarter of the runner's time per step. OP comes from the validated list of ops and
     * needs no escaping. */
    r->req.len = 0;
    ds__buf_printf(&r->req, "{\"id\":%ld,\"op\":\"%s\"", id, op);
    if (args) {
        char *a = cJSON_PrintUnformatted(args);
        ds__buf_puts(&r->req, ",\"args\":");
        ds__buf_puts(&r->req, a);
        cJSON_free(a);
        cJSON_Delete(args);
    }
    ds__buf_puts(&r->req, "}");
    char *line = NULL;
    size_t len = 0;
    ds_io io = ds__adapter_call(r->ad, r->req.data, r->req.len, r->deadline, &line, &len);
    switch (io) {
    case DS_IO_OK:
        break;
    case DS_IO_DEAD:
        failmsg(r, "the adapter died during %s: %s", op, ds__adapter_death(r->ad));
        return STEP_CRASH;
    case DS_IO_TIMEOUT:
        failmsg(r,
                "no reply to %s within the case's %.3g s (--timeout); the adapter's process "
                "group was killed",
                op, r->o->timeout);
        ds__adapter_kill(r->ad);
        return STEP_TIMEOUT;
    case DS_IO_INTERRUPTED:
        failmsg(r, "interrupted");
        return STEP_STOP;
    case DS_IO_TOO_LONG:
        failmsg(r,
                "protocol violation: the reply to %s is not a line (over %u bytes without a "
                "newline)",
                op, 16u << 20);
        if (restart_on_error) restart(r);
        return STEP_ERROR;
    }
    step_end bad = STEP_ERROR;
    const char *what = NULL;
    cJSON *doc = NULL;
    if (ds__utf8_invalid_at(line, len) >= 0)
        what = "the reply is not valid UTF-8";
    else if (!(doc = cJSON_ParseWithLengthOpts(line, len + 1, NULL, true)) || !cJSON_IsObject(doc))
        what = "the reply is not a JSON object";
    if (what) {
        char shown[201];
        snprintf(shown, sizeof shown, "%s", line);
        for (char *p = shown; *p; p++)
            if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f) *p = '?';
        failmsg(r, "protocol violation: %s (to %s): %s%s", what, op, shown, len > 200 ? "..." : "");
        goto violation;
    }
    const cJSON *rid = cJSON_GetObjectItemCaseSensitive(doc, "id");
    if (!cJSON_IsNumber(rid) || rid->valuedouble != (double)id) {
        char *shown = rid ? cJSON_PrintUnformatted(rid) : NULL;
        failmsg(r, "protocol violation: the reply to %s (id %ld) has id %s", op, id,
                shown ? shown : "(none)");
        cJSON_free(shown);
        goto violation;
    }
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(doc, "ok");
    if (!cJSON_IsBool(ok)) {
        failmsg(r, "protocol violation: the reply to %s has no boolean \"ok\"", op);
        goto violation;
    }
    rep->doc = doc;
    rep->ok = cJSON_IsTrue(ok);
    if (rep->ok) {
        rep->result = cJSON_GetObjectItemCaseSensitive(doc, "result");
        if (!rep->result) {
            /* a missing result is null */
            rep->result = cJSON_AddNullToObject(doc, "result");
        }
    } else {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(doc, "error");
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(e, "kind");
        const cJSON *message = cJSON_GetObjectItemCaseSensitive(e, "message");
        const cJSON *origin = cJSON_GetObjectItemCaseSensitive(e, "origin");
        if (!cJSON_IsString(kind) || (origin && !cJSON_IsString(origin))) {
            failmsg(r,
                    "protocol violation: the error reply to %s has no \"error\" with a string "
                    "\"kind\"",
                    op);
            rep->doc = NULL;
            goto violation;
        }
        rep->kind = kind->valuestring;
        rep->message = cJSON_IsString(message) ? message->valuestring : "";
        rep->origin = origin ? origin->valuestring : "library";
    }
    free(line);
    return STEP_OK;
violation:
    cJSON_Delete(r->observed);
    r->observed = doc ? doc : cJSON_CreateString(line);
    doc = NULL;
    free(line);
    /* After a malformed reply the stream cannot be trusted: start a fresh worker. */
    if (restart_on_error && !ds__adapter_in_process(r->ad)) restart(r);
    return bad;
}

static void bind_devices(runner *r)
{
    for (int i = 0; i < r->ndevices; i++)
        free(r->devices[i]);
    r->ndevices = 0;
    const cJSON *def = cJSON_GetObjectItemCaseSensitive(r->hello, "default_device");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(r->hello, "devices");
    const cJSON *d;
    if (cJSON_IsString(def)) r->devices[r->ndevices++] = ds__xstrdup(def->valuestring);
    cJSON_ArrayForEach(d, list)
    {
        if (!cJSON_IsString(d) || r->ndevices >= DS_MAX_DEVICES) continue;
        bool dup = false;
        for (int i = 0; i < r->ndevices; i++)
            if (!strcmp(r->devices[i], d->valuestring)) dup = true;
        if (!dup) r->devices[r->ndevices++] = ds__xstrdup(d->valuestring);
    }
}

static int hello(runner *r, char *err, size_t errlen)
{
    cJSON *args = cJSON_CreateObject();
    cJSON_AddNumberToObject(args, "protocol", DS_PROTOCOL_VERSION);
    double saved = r->deadline;
    r->deadline = r->o->start_timeout > 0 ? ds__now() + r->o->start_timeout : 0;
    reply rep;
    step_end e = request(r, "hello", args, &rep, false);
    r->deadline = saved;
    if (e == STEP_TIMEOUT)
        failmsg(r, "no reply to hello within %.3g s (--start-timeout)", r->o->start_timeout);
    if (e != STEP_OK) {
        const char *tail = ds__adapter_stderr(r->ad);
        snprintf(err, errlen, "hello failed: %s%s%s", r->msg.data, tail[0] ? "; stderr: " : "",
                 tail);
        return -1;
    }
    if (!rep.ok) {
        snprintf(err, errlen, "hello was refused: %s: %s", rep.kind, rep.message);
        cJSON_Delete(rep.doc);
        return -1;
    }
    const cJSON *res = rep.result;
    const cJSON *proto = cJSON_GetObjectItemCaseSensitive(res, "protocol");
    const char *problem = NULL;
    if (!cJSON_IsObject(res))
        problem = "the hello result is not an object";
    else if (!cJSON_IsNumber(proto) || proto->valuedouble != DS_PROTOCOL_VERSION)
        problem = "the adapter speaks another protocol version (this runner speaks 1)";
    else if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(res, "devices")))
        problem = "hello has no \"devices\" list";
    else if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(res, "features")))
        problem = "hello has no \"features\" list";
    if (problem) {
        char *shown = cJSON_PrintUnformatted(res);
        snprintf(err, errlen, "%s: %.300s", problem, shown ? shown : "");
        cJSON_free(shown);
        cJSON_Delete(rep.doc);
        return -1;
    }
    cJSON_Delete(r->hello);
    r->hello = cJSON_DetachItemFromObjectCaseSensitive(rep.doc, "result");
    cJSON_Delete(rep.doc);
    bind_devices(r);
    return 0;
}

static bool claimed(const runner *r, const char *feature)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(r->hello, "features"))
    {
        if (cJSON_IsString(f) && !strcmp(f->valuestring, feature)) return true;
    }
    return false;
}

/* ---- substitution and judging --------------------------------------------------------- */

static cJSON *substitute(runner *r, const cJSON *v)
{
    /* The loader guarantees every reference is bound or a $Dn the case can have. */
    return ds__resolve(r->bindings, v);
}

typedef struct eq_ctx {
    runner *r;
    step_end io; /* a transport failure during device.equal */
} eq_ctx;

static int device_equal(void *ctx, const char *a, const char *b, ds_buf *err)
{
    eq_ctx *c = ctx;
    cJSON *args = cJSON_CreateObject();
    cJSON_AddStringToObject(args, "a", a);
    cJSON_AddStringToObject(args, "b", b);
    reply rep;
    step_end e = request(c->r, "device.equal", args, &rep, true);
    if (e != STEP_OK) {
        c->io = e;
        ds__buf_puts(err, c->r->msg.data);
        return -1;
    }
    int result;
    if (rep.ok && cJSON_IsBool(rep.result))
        result = cJSON_IsTrue(rep.result);
    else if (rep.ok) {
        ds__buf_puts(err, "device.equal did not answer a boolean");
        result = -1;
    } else {
        ds__buf_printf(err, "device.equal raised %s: %s", rep.kind, rep.message);
        result = -1;
    }
    cJSON_Delete(rep.doc);
    return result;
}

static cJSON *error_json(const reply *rep)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "kind", rep->kind);
    cJSON_AddStringToObject(e, "message", rep->message);
    cJSON_AddStringToObject(e, "origin", rep->origin);
    cJSON *w = cJSON_CreateObject();
    cJSON_AddItemToObject(w, "error", e);
    return w;
}

static void set_io(runner *r, cJSON *expected, cJSON *observed)
{
    cJSON_Delete(r->expected);
    cJSON_Delete(r->observed);
    r->expected = expected;
    r->observed = observed;
}

static bool kind_matches(const char *want, const char *got)
{
    return !strcmp(want, "any") || !strcmp(want, got);
}

/* Judges one step's reply against its outcome. *STOP is set when the alternative that
 * held carries "stop": true (spec/case-format.md): the case ends there as a pass. */
static step_end judge(runner *r, const ds_step *st, const reply *rep, bool *stop)
{
    *stop = false;
    if (!rep->ok && !strcmp(rep->origin, "protocol")) {
        failmsg(r, "the adapter reports a protocol error for %s: %s: %s", st->op, rep->kind,
                rep->message);
        set_io(r, st->value ? substitute(r, st->value) : NULL, error_json(rep));
        return STEP_ERROR;
    }
    if (!rep->ok && strcmp(rep->origin, "library")) {
        /* origin "adapter": the adapter cannot express the op although the case's features
         * are all claimed (spec/protocol.md): a failure, never a skip. */
        failmsg(r, "the adapter cannot express %s: %s: %s (origin %s)", st->op, rep->kind,
                rep->message, rep->origin);
        set_io(r, st->value ? substitute(r, st->value) : NULL, error_json(rep));
        return STEP_FAIL;
    }
    switch (st->outcome) {
    case DS_OUTCOME_NONE:
        if (rep->ok) return STEP_OK;
        failmsg(r, "%s raised %s: %s", st->op, rep->kind, rep->message);
        set_io(r, cJSON_CreateString("success"), error_json(rep));
        return STEP_FAIL;
    case DS_OUTCOME_RAISES: {
        const char *want = st->value->valuestring;
        if (rep->ok) {
            failmsg(r, "%s returned a value where %s was expected", st->op,
                    !strcmp(want, "any") ? "an error" : want);
            set_io(r, cJSON_CreateString(want), cJSON_Duplicate(rep->result, true));
            return STEP_FAIL;
        }
        if (kind_matches(want, rep->kind)) return STEP_OK;
        failmsg(r, "%s raised %s where %s was expected: %s", st->op, rep->kind, want, rep->message);
        set_io(r, cJSON_CreateString(want), error_json(rep));
        return STEP_FAIL;
    }
    case DS_OUTCOME_EXPECT:
    case DS_OUTCOME_EITHER: {
        /* An "expect" is an "either" of one alternative. The judge reads the case's own
         * value (references, matchers, escapes); the report shows it resolved. */
        bool single = st->outcome == DS_OUTCOME_EXPECT;
        ds_buf why = {0};
        eq_ctx ctx = {r, STEP_OK};
        ds_judge j = {device_equal, &ctx, r->bindings};
        step_end end = STEP_FAIL;
        const cJSON *alt = single ? NULL : st->value->child;
        for (int n = 0; single ? n < 1 : alt != NULL; n++, alt = alt ? alt->next : NULL) {
            const cJSON *exp = single ? st->value : cJSON_GetObjectItemCaseSensitive(alt, "expect");
            const cJSON *rai = single ? NULL : cJSON_GetObjectItemCaseSensitive(alt, "raises");
            bool stops = !single && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(alt, "stop"));
            if (n) ds__buf_puts(&why, "; ");
            if (!single) ds__buf_printf(&why, "alternative %d: ", n + 1);
            if (exp && rep->ok) {
                int m = ds__judge_match(&j, exp, rep->result, &why);
                if (m == 1) {
                    end = STEP_OK;
                    *stop = stops;
                    break;
                }
                if (m < 0) {
                    end = ctx.io != STEP_OK ? ctx.io : STEP_ERROR;
                    break;
                }
            } else if (exp) {
                ds__buf_printf(&why, "expected a value, %s raised %s: %s", st->op, rep->kind,
                               rep->message);
            } else if (rai && !rep->ok) {
                if (kind_matches(rai->valuestring, rep->kind)) {
                    end = STEP_OK;
                    *stop = stops;
                    break;
                }
                ds__buf_printf(&why, "expected %s, raised %s: %s", rai->valuestring, rep->kind,
                               rep->message);
            } else if (rai) {
                ds__buf_printf(&why, "expected %s, returned a value", rai->valuestring);
            }
        }
        if (end == STEP_FAIL || end == STEP_ERROR) {
            if (end == STEP_ERROR || why.len)
                failmsg(r, "%s: %s", st->op, why.data ? why.data : "");
            set_io(r, substitute(r, st->value),
                   rep->ok ? cJSON_Duplicate(rep->result, true) : error_json(rep));
        }
        ds__buf_free(&why);
        return end;
    }
    }
    return STEP_ERROR;
}

/* ---- one case ------------------------------------------------------------------------ */

static ds_status end_status(step_end e)
{
    switch (e) {
    case STEP_OK:
        return DS_PASS;
    case STEP_FAIL:
        return DS_FAIL;
    case STEP_ERROR:
        return DS_ERROR;
    case STEP_CRASH:
        return DS_CRASH;
    case STEP_TIMEOUT:
        return DS_TIMEOUT;
    case STEP_STOP:
        break;
    }
    return DS_ERROR;
}

/* Returns false when the run must stop (interrupted). */
static bool run_case(runner *r, const ds_case *c, ds_result *res)
{
    double t0 = ds__now();
    r->deadline = r->o->timeout > 0 ? t0 + r->o->timeout : 0;
    ds__adapter_stderr_clear(r->ad);
    r->msg.len = 0;
    set_io(r, NULL, NULL);
    cJSON_Delete(r->bindings);
    r->bindings = cJSON_CreateObject();
    for (int i = 0; i < r->ndevices; i++) {
        char name[4] = {'D', (char)('0' + i), 0};
        cJSON_AddStringToObject(r->bindings, name, r->devices[i]);
    }
    step_end end = STEP_OK;
    int failed_step = -1;
    if (r->need_reset) {
        reply rep;
        end = request(r, "reset", NULL, &rep, true);
        if (end == STEP_OK && !rep.ok) {
            failmsg(r, "reset before the case failed: %s: %s", rep.kind, rep.message);
            end = STEP_ERROR;
        }
        cJSON_Delete(rep.doc);
    }
    r->need_reset = true;
    for (int s = 0; end == STEP_OK && s < c->nsteps; s++) {
        const ds_step *st = &c->steps[s];
        cJSON *args = st->args ? substitute(r, st->args) : NULL;
        reply rep;
        end = request(r, st->op, args, &rep, true);
        bool stop = false;
        if (end == STEP_OK) {
            end = judge(r, st, &rep, &stop);
            if (end == STEP_OK && st->as && !stop) {
                cJSON_DeleteItemFromObjectCaseSensitive(r->bindings, st->as);
                cJSON_AddItemToObject(r->bindings, st->as,
                                      rep.ok ? cJSON_Duplicate(rep.result, true)
                                             : cJSON_CreateNull());
            }
            cJSON_Delete(rep.doc);
        }
        if (end != STEP_OK) failed_step = s;
        if (stop) break; /* the alternative that held ends the case as a pass */
    }
    res->duration = ds__now() - t0;
    if (end == STEP_STOP) {
        r->interrupted = true;
        return false;
    }
    res->status = end_status(end);
    res->step = failed_step;
    if (end != STEP_OK) {
        res->reason = ds__xstrdup(r->msg.data ? r->msg.data : "");
        res->expected = r->expected;
        res->observed = r->observed;
        r->expected = r->observed = NULL;
        const char *tail = ds__adapter_stderr(r->ad);
        if (tail[0]) res->stderr_tail = ds__xstrdup(tail);
    }
    if (end == STEP_CRASH || end == STEP_TIMEOUT) restart(r);
    return !ds__interrupted;
}

/* ---- selection ----------------------------------------------------------------------- */

bool ds__case_counts(const ds_registry *reg, const ds_case *c, const ds_profile *p)
{
    for (int i = 0; i < c->nfeatures; i++)
        if (!ds__profile_has_feature(p, c->features[i], NULL)) return false;
    if (c->nfeatures == 0) return false;
    bool applies = false;
    for (int i = 0; i < c->nspec; i++) {
        const ds_statement *s = ds__registry_statement(reg, c->spec[i]);
        if (!s) {
            applies = applies || !reg->have_statements;
            continue;
        }
        if (ds__statement_applies(s, p))
            applies = true;
        else if (p->document && s->document && !strcmp(s->document, p->document))
            return false; /* cites a statement of another version of the document */
    }
    return applies;
}

bool ds__case_selected(const ds_options *o, const ds_registry *reg, const ds_case *c)
{
    if (o->ncase_globs) {
        bool any = false;
        for (int i = 0; i < o->ncase_globs; i++)
            any = any || fnmatch(o->case_globs[i], c->id, 0) == 0;
        if (!any) return false;
    }
    if (o->nfeatures) {
        bool any = false;
        for (int i = 0; i < o->nfeatures; i++)
            for (int k = 0; k < c->nfeatures; k++)
                any = any || !strcmp(o->features[i], c->features[k]);
        if (!any) return false;
    }
    if (o->profile) {
        const ds_profile *p = ds__registry_profile(reg, o->profile);
        if (!p || !ds__case_counts(reg, c, p)) return false;
    }
    /* Exclusion is applied last. */
    for (int i = 0; i < o->nexclude_features; i++)
        for (int k = 0; k < c->nfeatures; k++)
            if (!strcmp(o->exclude_features[i], c->features[k])) return false;
    return true;
}

/* ---- reports ------------------------------------------------------------------------- */

static char *capture(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    if (!p) return NULL;
    char buf[256] = {0};
    char *ok = fgets(buf, sizeof buf, p);
    int rc = pclose(p);
    if (!ok || rc != 0) return NULL;
    buf[strcspn(buf, "\r\n")] = '\0';
    return buf[0] ? ds__xstrdup(buf) : NULL;
}

static cJSON *suite_json(const ds_options *o)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "name", "devspec");
    cJSON_AddStringToObject(s, "version", DEVSPEC_VERSION);
    char *commit = NULL;
    bool modified = false;
    bool have_git = false;
    ds_buf gitdir = {0};
    ds__buf_printf(&gitdir, "%s/.git", o->source);
    if (access(gitdir.data, F_OK) == 0) {
        ds_buf cmd = {0};
        ds__buf_printf(&cmd, "git -C '%s' rev-parse HEAD 2>/dev/null", o->source);
        commit = capture(cmd.data);
        cmd.len = 0;
        ds__buf_printf(&cmd, "git -C '%s' status --porcelain --untracked-files=no 2>/dev/null",
                       o->source);
        char *st = commit ? capture(cmd.data) : NULL;
        have_git = commit != NULL;
        modified = st != NULL;
        free(st);
        ds__buf_free(&cmd);
    }
    ds__buf_free(&gitdir);
    if (commit)
        cJSON_AddStringToObject(s, "commit", commit);
    else
        cJSON_AddNullToObject(s, "commit");
    if (have_git)
        cJSON_AddBoolToObject(s, "modified", modified);
    else
        cJSON_AddNullToObject(s, "modified");
    free(commit);
    return s;
}

static cJSON *copy_or_null(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return v ? cJSON_Duplicate(v, true) : cJSON_CreateNull();
}

static cJSON *make_header(runner *r, const char *adapter_error)
{
    const ds_options *o = r->o;
    cJSON *h = cJSON_CreateObject();
    cJSON_AddStringToObject(h, "type", "header");
    cJSON_AddNumberToObject(h, "report_version", DS_REPORT_VERSION);
    cJSON_AddItemToObject(h, "suite", suite_json(o));
    cJSON *rj = cJSON_AddObjectToObject(h, "runner");
    cJSON_AddStringToObject(rj, "name", "devspec");
    cJSON_AddStringToObject(rj, "version", DEVSPEC_VERSION);
    cJSON_AddNumberToObject(rj, "protocol", DS_PROTOCOL_VERSION);
    char when[32];
    ds__utc_iso(when);
    cJSON_AddStringToObject(h, "started", when);
    cJSON *ad = cJSON_AddObjectToObject(h, "adapter");
    cJSON_AddStringToObject(ad, "label", o->adapter_label ? o->adapter_label : "adapter");
    cJSON_AddStringToObject(ad, "given", o->adapter_spec ? o->adapter_spec : "");
    cJSON_AddStringToObject(ad, "transport", o->transport);
    if (adapter_error) cJSON_AddStringToObject(ad, "error", adapter_error);
    const cJSON *hl = r->hello;
    const cJSON *lib = cJSON_GetObjectItemCaseSensitive(hl, "library");
    const cJSON *adp = cJSON_GetObjectItemCaseSensitive(hl, "adapter");
    cJSON_AddItemToObject(ad, "name", copy_or_null(adp, "name"));
    cJSON_AddItemToObject(ad, "version", copy_or_null(adp, "version"));
    cJSON *l = cJSON_AddObjectToObject(h, "library");
    cJSON_AddItemToObject(l, "name", copy_or_null(lib, "name"));
    cJSON_AddItemToObject(l, "version", copy_or_null(lib, "version"));
    cJSON *devs = cJSON_AddArrayToObject(h, "devices");
    const cJSON *strs = cJSON_GetObjectItemCaseSensitive(hl, "device_strs");
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(hl, "devices");
    for (int i = 0; i < r->ndevices; i++) {
        cJSON *d = cJSON_CreateObject();
        char name[4] = {'D', (char)('0' + i), 0};
        cJSON_AddStringToObject(d, "binding", name);
        cJSON_AddStringToObject(d, "handle", r->devices[i]);
        int k = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, all)
        {
            if (cJSON_IsString(it) && !strcmp(it->valuestring, r->devices[i])) break;
            k++;
        }
        const cJSON *s = cJSON_GetArrayItem(strs, k);
        if (cJSON_IsString(s)) cJSON_AddStringToObject(d, "str", s->valuestring);
        cJSON_AddItemToArray(devs, d);
    }
    cJSON *feats = cJSON_AddArrayToObject(h, "features_claimed");
    cJSON *unknown = cJSON_AddArrayToObject(h, "features_unknown");
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(hl, "features"))
    {
        if (!cJSON_IsString(f)) continue;
        cJSON_AddItemToArray(ds__registry_feature(r->reg, f->valuestring) ? feats : unknown,
                             cJSON_CreateString(f->valuestring));
    }
    cJSON *cfg = cJSON_AddObjectToObject(h, "config");
    cJSON_AddItemToObject(cfg, "cases", ds__json_strings((const char *const *)o->cases, o->ncases));
    cJSON_AddItemToObject(cfg, "case_globs",
                          ds__json_strings((const char *const *)o->case_globs, o->ncase_globs));
    cJSON_AddItemToObject(cfg, "features",
                          ds__json_strings((const char *const *)o->features, o->nfeatures));
    cJSON_AddItemToObject(
        cfg, "exclude_features",
        ds__json_strings((const char *const *)o->exclude_features, o->nexclude_features));
    if (o->profile)
        cJSON_AddStringToObject(cfg, "profile", o->profile);
    else
        cJSON_AddNullToObject(cfg, "profile");
    cJSON_AddNumberToObject(cfg, "timeout", o->timeout);
    cJSON_AddNumberToObject(cfg, "start_timeout", o->start_timeout);
    cJSON_AddNumberToObject(cfg, "max_restarts", o->max_restarts);
    cJSON_AddBoolToObject(cfg, "strict", o->strict);
    cJSON *exj = cJSON_AddObjectToObject(cfg, "expectations");
    if (r->ex && r->ex->path) {
        cJSON_AddStringToObject(exj, "path", r->ex->path);
        cJSON_AddStringToObject(exj, "sha256", r->ex->sha256);
        cJSON_AddNumberToObject(exj, "entries", r->ex->count);
    } else {
        cJSON_AddNullToObject(exj, "path");
        cJSON_AddNullToObject(exj, "sha256");
        cJSON_AddNumberToObject(exj, "entries", 0);
    }
    cJSON *env = cJSON_AddObjectToObject(h, "environment");
    struct utsname u;
    if (uname(&u) == 0) {
        cJSON_AddStringToObject(env, "os", u.sysname);
        cJSON_AddStringToObject(env, "release", u.release);
        cJSON_AddStringToObject(env, "machine", u.machine);
        cJSON_AddStringToObject(env, "hostname", u.nodename);
    }
    cJSON_AddStringToObject(env, "compiler", __VERSION__);
    return h;
}

static cJSON *case_json(const ds_result *res)
{
    const ds_case *c = res->c;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "type", "case");
    cJSON_AddStringToObject(j, "id", c->id);
    cJSON_AddStringToObject(j, "file", c->file->name);
    cJSON_AddItemToObject(j, "features", ds__json_strings(c->features, c->nfeatures));
    cJSON_AddItemToObject(j, "spec", ds__json_strings(c->spec, c->nspec));
    cJSON_AddStringToObject(j, "status", ds__status_name(res->status));
    cJSON_AddStringToObject(j, "observed_status", ds__status_name(res->raw_status));
    if (res->expectation) {
        cJSON *e = cJSON_AddObjectToObject(j, "expectation");
        cJSON_AddStringToObject(e, "status", ds__status_name(res->expectation->status));
        cJSON_AddStringToObject(e, "reason", res->expectation->reason);
        cJSON_AddStringToObject(e, "pattern", res->expectation->pattern);
        cJSON_AddNumberToObject(e, "line", res->expectation->line);
    }
    if (res->reason) cJSON_AddStringToObject(j, "reason", res->reason);
    if (res->skip_source) cJSON_AddStringToObject(j, "skip_source", res->skip_source);
    if (res->step >= 0) {
        cJSON_AddNumberToObject(j, "step", res->step);
        cJSON_AddStringToObject(j, "op", c->steps[res->step].op);
    }
    if (res->expected) cJSON_AddItemToObject(j, "expected", cJSON_Duplicate(res->expected, true));
    if (res->observed) cJSON_AddItemToObject(j, "observed", cJSON_Duplicate(res->observed, true));
    if (res->stderr_tail) cJSON_AddStringToObject(j, "stderr", res->stderr_tail);
    cJSON_AddNumberToObject(j, "duration", res->duration);
    return j;
}

static void counts_add(cJSON *map, const char *key, ds_status st)
{
    cJSON *c = cJSON_GetObjectItemCaseSensitive(map, key);
    if (!c) {
        c = cJSON_AddObjectToObject(map, key);
        for (int i = 0; i < DS_STATUS_COUNT; i++)
            cJSON_AddNumberToObject(c, ds__status_name((ds_status)i), 0);
    }
    cJSON *n = cJSON_GetObjectItemCaseSensitive(c, ds__status_name(st));
    cJSON_SetNumberValue(n, n->valuedouble + 1);
}

static bool unexpected(ds_status s)
{
    return s == DS_FAIL || s == DS_ERROR || s == DS_CRASH || s == DS_TIMEOUT;
}

static const ds_result *find_result(const runner *r, const ds_case *c)
{
    for (int i = 0; i < r->nresults; i++)
        if (r->results[i].c == c) return &r->results[i];
    return NULL;
}

/* A profile's verdict (spec/README.md): a library conforms when it claims every required
 * feature and every case that counts for the profile and claims only required features
 * passes. Cases of optional features are reported beside the verdict. */
static cJSON *profile_json(const runner *r, const ds_profile *p, bool complete)
{
    cJSON *j = cJSON_CreateObject();
    cJSON *missing = cJSON_AddArrayToObject(j, "missing_features");
    for (int i = 0; i < p->nrequired; i++)
        if (!r->hello || !claimed(r, p->required[i]))
            cJSON_AddItemToArray(missing, cJSON_CreateString(p->required[i]));
    /* [0]: cases of required features only (the verdict); [1]: cases of optional ones */
    int total[2] = {0}, passed[2] = {0}, failed[2] = {0}, skipped[2] = {0}, not_run[2] = {0};
    for (int f = 0; f < r->suite->nfiles; f++) {
        for (int k = 0; k < r->suite->files[f].ncases; k++) {
            const ds_case *c = &r->suite->files[f].cases[k];
            if (!ds__case_counts(r->reg, c, p)) continue;
            int g = 0;
            for (int i = 0; i < c->nfeatures; i++) {
                bool opt = false;
                ds__profile_has_feature(p, c->features[i], &opt);
                if (opt) g = 1;
            }
            total[g]++;
            const ds_result *res = find_result(r, c);
            if (!res)
                not_run[g]++;
            else if (res->status == DS_PASS || res->status == DS_XPASS)
                passed[g]++;
            else if (res->status == DS_SKIP)
                skipped[g]++;
            else
                failed[g]++;
        }
    }
    cJSON_AddNumberToObject(j, "cases", total[0]);
    cJSON_AddNumberToObject(j, "passed", passed[0]);
    cJSON_AddNumberToObject(j, "failed", failed[0]);
    cJSON_AddNumberToObject(j, "skipped", skipped[0]);
    cJSON_AddNumberToObject(j, "not_run", not_run[0]);
    const char *verdict;
    if (cJSON_GetArraySize(missing) > 0 || failed[0] > 0)
        verdict = "does-not-conform";
    else if (skipped[0] > 0 || not_run[0] > 0 || total[0] == 0 || !complete)
        verdict = "undetermined";
    else
        verdict = "conforms";
    cJSON_AddStringToObject(j, "verdict", verdict);
    cJSON *opt = cJSON_AddObjectToObject(j, "optional");
    cJSON_AddNumberToObject(opt, "cases", total[1]);
    cJSON_AddNumberToObject(opt, "passed", passed[1]);
    cJSON_AddNumberToObject(opt, "failed", failed[1]);
    cJSON_AddNumberToObject(opt, "skipped", skipped[1]);
    cJSON_AddNumberToObject(opt, "not_run", not_run[1]);
    return j;
}

static cJSON *make_footer(runner *r, bool complete, int *gate, double elapsed)
{
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "type", "footer");
    char when[32];
    ds__utc_iso(when);
    cJSON_AddStringToObject(f, "finished", when);
    cJSON_AddNumberToObject(f, "elapsed", elapsed);
    cJSON_AddBoolToObject(f, "complete", complete);
    if (!complete) cJSON_AddStringToObject(f, "incomplete_reason", r->why_incomplete);
    cJSON_AddBoolToObject(f, "interrupted", r->interrupted);
    cJSON_AddNumberToObject(f, "restarts", r->restarts);
    int counts[DS_STATUS_COUNT] = {0};
    int n_unexpected = 0;
    cJSON *features = cJSON_CreateObject();
    cJSON *statements = cJSON_CreateObject();
    cJSON *unexp = cJSON_CreateArray();
    cJSON *xpass = cJSON_CreateArray();
    for (int i = 0; i < r->nresults; i++) {
        const ds_result *res = &r->results[i];
        counts[res->status]++;
        if (unexpected(res->status)) {
            n_unexpected++;
            cJSON_AddItemToArray(unexp, cJSON_CreateString(res->c->id));
        }
        if (res->status == DS_XPASS) cJSON_AddItemToArray(xpass, cJSON_CreateString(res->c->id));
        for (int k = 0; k < res->c->nfeatures; k++)
            counts_add(features, res->c->features[k], res->status);
        for (int k = 0; k < res->c->nspec; k++)
            counts_add(statements, res->c->spec[k], res->status);
    }
    cJSON *cj = cJSON_AddObjectToObject(f, "counts");
    for (int i = 0; i < DS_STATUS_COUNT; i++)
        cJSON_AddNumberToObject(cj, ds__status_name((ds_status)i), counts[i]);
    cJSON_AddNumberToObject(f, "total", r->nresults);
    int filtered = r->suite->ncases - r->nresults;
    cJSON_AddNumberToObject(f, "not_run", filtered);
    cJSON_AddItemToObject(f, "unexpected", unexp);
    cJSON_AddItemToObject(f, "xpass", xpass);
    cJSON *stale = cJSON_AddArrayToObject(f, "stale_expectations");
    int nstale = 0;
    for (int i = 0; r->ex && i < r->ex->count; i++) {
        if (r->ex->items[i].matches) continue;
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "pattern", r->ex->items[i].pattern);
        cJSON_AddStringToObject(s, "status", ds__status_name(r->ex->items[i].status));
        cJSON_AddNumberToObject(s, "line", r->ex->items[i].line);
        cJSON_AddItemToArray(stale, s);
        nstale++;
    }
    cJSON_AddItemToObject(f, "features", features);
    cJSON *profiles = cJSON_AddObjectToObject(f, "profiles");
    for (int i = 0; i < r->reg->nprofiles; i++)
        cJSON_AddItemToObject(profiles, r->reg->profiles[i].name,
                              profile_json(r, &r->reg->profiles[i], complete));
    cJSON_AddItemToObject(f, "statements", statements);
    int code = 0;
    const char *rule = "nothing unexpected";
    if (!complete) {
        code = 3;
        rule = "the run is incomplete";
    } else if (n_unexpected) {
        code = 1;
        rule = "unexpected fail, error, crash or timeout";
    } else if (r->o->strict && (cJSON_GetArraySize(xpass) || nstale)) {
        code = 1;
        rule = "--strict: unexpected pass or stale expectation";
    }
    cJSON *g = cJSON_AddObjectToObject(f, "gate");
    cJSON_AddNumberToObject(g, "exit_status", code);
    cJSON_AddStringToObject(g, "rule", rule);
    *gate = code;
    return f;
}

static void jsonl_write(runner *r, const cJSON *record)
{
    if (!r->jsonl) return;
    char *s = cJSON_PrintUnformatted(record);
    fputs(s, r->jsonl);
    fputc('\n', r->jsonl);
    fflush(r->jsonl);
    cJSON_free(s);
}

static void progress(runner *r, int done, int total, const char *id)
{
    if (!r->o->progress) return;
    int fails = 0;
    for (int i = 0; i < r->nresults; i++)
        fails += unexpected(r->results[i].status);
    if (r->o->color && fails)
        fprintf(stderr, "\r\033[K[%d/%d] \033[31m%d unexpected\033[0m %s", done, total, fails, id);
    else
        fprintf(stderr, "\r\033[K[%d/%d] %d unexpected %s", done, total, fails, id);
    fflush(stderr);
}

/* Applies the expectations file to a result that ran (or was skipped for a reason other
 * than the file). An expectation matches only the same outcome class: an expected fail
 * that becomes a crash is a new failure. */
static void apply_expectation(ds_result *res)
{
    res->raw_status = res->status;
    const ds_expectation *x = res->expectation;
    if (!x || x->status == DS_PASS || x->status == DS_SKIP) return;
    if (res->status == DS_PASS)
        res->status = DS_XPASS;
    else if (res->status == x->status)
        res->status = DS_XFAIL;
}

static char *report_label(const runner *r)
{
    const char *l = r->o->adapter_label;
    const cJSON *lib = cJSON_GetObjectItemCaseSensitive(r->hello, "library");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(lib, "name");
    if (!l && cJSON_IsString(n)) l = n->valuestring;
    char *s = ds__xstrdup(l ? l : "adapter");
    for (char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '_' || *p == '.'))
            *p = '_';
    return s;
}

static void open_reports(runner *r)
{
    ds_buf path = {0};
    if (r->o->report)
        ds__buf_puts(&path, r->o->report);
    else {
        char *label = report_label(r);
        ds__buf_printf(&path, "reports/runs/%s.json", label);
        free(label);
    }
    r->report_path = ds__xstrdup(path.data);
    /* reports/NAME.json while running is reports/NAME.jsonl; the consolidated document
     * replaces NAME.json only at the end, so a stale NAME.json from an earlier run is
     * removed first: never a complete-looking file for a run that did not complete. */
    if (path.len > 5 && !strcmp(path.data + path.len - 5, ".json")) {
        path.len -= 5;
        path.data[path.len] = '\0';
    }
    ds__buf_puts(&path, ".jsonl");
    r->jsonl_path = path.data;
    if (ds__mkdir_parents(r->report_path) != 0)
        fprintf(stderr, "devspec: cannot create the directory of %s: %s\n", r->report_path,
                strerror(errno));
    unlink(r->report_path);
    r->jsonl = fopen(r->jsonl_path, "we") /* not inherited by the worker */;
    if (!r->jsonl)
        fprintf(stderr, "devspec: cannot write %s: %s\n", r->jsonl_path, strerror(errno));
}

static void finish_reports(runner *r, const cJSON *footer, double elapsed, bool *write_failed)
{
    jsonl_write(r, footer);
    if (r->jsonl) {
        if (fclose(r->jsonl) != 0) *write_failed = true;
        r->jsonl = NULL;
    }
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "type", "devspec-report");
    cJSON_AddNumberToObject(doc, "report_version", DS_REPORT_VERSION);
    cJSON *h = cJSON_Duplicate(r->header, true);
    cJSON_DeleteItemFromObject(h, "type");
    cJSON_AddItemToObject(doc, "header", h);
    cJSON *cases = cJSON_AddArrayToObject(doc, "cases");
    for (int i = 0; i < r->nresults; i++) {
        cJSON *c = case_json(&r->results[i]);
        cJSON_DeleteItemFromObject(c, "type");
        cJSON_AddItemToArray(cases, c);
    }
    cJSON *f = cJSON_Duplicate(footer, true);
    cJSON_DeleteItemFromObject(f, "type");
    cJSON_AddItemToObject(doc, "footer", f);
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    ds_buf b = {0};
    ds__buf_puts(&b, text);
    ds__buf_puts(&b, "\n");
    cJSON_free(text);
    if (ds__write_file_atomic(r->report_path, b.data, b.len) != 0) {
        fprintf(stderr, "devspec: cannot write %s: %s\n", r->report_path, strerror(errno));
        *write_failed = true;
    }
    ds__buf_free(&b);
    if (r->o->junit) {
        char err[512];
        if (ds__mkdir_parents(r->o->junit) != 0 ||
            ds__junit_write(r->o->junit, r->results, r->nresults, r->header, elapsed, r->o->strict,
                            err, sizeof err) != 0) {
            fprintf(stderr, "devspec: cannot write %s: %s\n", r->o->junit,
                    errno ? strerror(errno) : err);
            *write_failed = true;
        }
    }
}

int ds__run(const ds_options *o, const ds_registry *reg, ds_suite *suite, ds_expectations *ex,
            ds_adapter *ad)
{
    runner R = {.o = o, .reg = reg, .suite = suite, .ex = ex, .ad = ad};
    int gate = 0;
    runner *r = &R;
    double t0 = ds__now();
    r->tap = o->tap ? ds__tap_open(stdout) : NULL;
    r->results = ds__xmalloc(sizeof(ds_result) * (size_t)(suite->ncases + 1));

    /* Expectations are matched against every loaded case, so an entry is stale only when
     * it names nothing in the suite, not when a filter left its case out. */
    const ds_expectation **exp_of = ds__xmalloc(sizeof(void *) * (size_t)(suite->ncases + 1));
    int ci = 0;
    for (int f = 0; f < suite->nfiles; f++)
        for (int k = 0; k < suite->files[f].ncases; k++)
            exp_of[ci++] = ds__expectations_match(ex, suite->files[f].cases[k].id);

    char err[1024] = "";
    int started = ds__adapter_start(ad, err, sizeof err);
    if (started == 0) started = hello(r, err, sizeof err);
    if (started != 0) {
        fprintf(stderr, "devspec: the adapter could not start: %s\n", err);
        r->header = make_header(r, err);
        open_reports(r);
        jsonl_write(r, r->header);
        if (r->tap) ds__tap_bail(r->tap, "the adapter could not start");
        r->incomplete = true;
        snprintf(r->why_incomplete, sizeof r->why_incomplete, "the adapter could not start: %s",
                 err);
        cJSON *footer = make_footer(r, false, &gate, ds__now() - t0);
        bool wf = false;
        finish_reports(r, footer, ds__now() - t0, &wf);
        cJSON_Delete(footer);
        ds__adapter_kill(ad);
        goto done;
    }

    r->header = make_header(r, NULL);
    open_reports(r);
    jsonl_write(r, r->header);
    if (r->tap) {
        const cJSON *lib = cJSON_GetObjectItemCaseSensitive(r->hello, "library");
        const cJSON *ln = cJSON_GetObjectItemCaseSensitive(lib, "name");
        const cJSON *lv = cJSON_GetObjectItemCaseSensitive(lib, "version");
        ds__tap_comment(r->tap, "devspec %s; library %s %s; %s adapter; %d device%s bound",
                        DEVSPEC_VERSION, cJSON_IsString(ln) ? ln->valuestring : "?",
                        cJSON_IsString(lv) ? lv->valuestring : "?", o->transport, r->ndevices,
                        r->ndevices == 1 ? "" : "s");
    }

    int total = 0;
    for (int f = 0; f < suite->nfiles; f++)
        for (int k = 0; k < suite->files[f].ncases; k++)
            total += ds__case_selected(o, reg, &suite->files[f].cases[k]);

    ci = 0;
    int done = 0;
    for (int f = 0; f < suite->nfiles && !r->incomplete && !r->interrupted; f++) {
        for (int k = 0; k < suite->files[f].ncases; k++, ci++) {
            if (r->incomplete || r->interrupted || ds__interrupted) break;
            const ds_case *c = &suite->files[f].cases[k];
            if (!ds__case_selected(o, reg, c)) continue;
            progress(r, done, total, c->id);
            ds_result *res = &r->results[r->nresults];
            memset(res, 0, sizeof *res);
            res->c = c;
            res->step = -1;
            res->expectation = exp_of[ci];
            const char *missing = NULL;
            for (int i = 0; i < c->nfeatures && !missing; i++)
                if (!claimed(r, c->features[i])) missing = c->features[i];
            ds_buf why = {0};
            if (res->expectation && res->expectation->status == DS_SKIP) {
                res->status = DS_SKIP;
                ds__buf_printf(&why, "expectations file: %s",
                               res->expectation->reason[0] ? res->expectation->reason : "skipped");
                res->skip_source = ds__xstrdup("expectations");
            } else if (missing) {
                res->status = DS_SKIP;
                ds__buf_printf(&why, "unsupported: %s", missing);
                res->skip_source = ds__xstrdup("unsupported");
            } else if (c->devices > r->ndevices) {
                res->status = DS_SKIP;
                ds__buf_printf(&why, "needs %d devices, library has %d", c->devices, r->ndevices);
                res->skip_source = ds__xstrdup("devices");
            } else if (!run_case(r, c, res)) {
                if (r->interrupted) break;
            }
            if (why.data) res->reason = why.data;
            apply_expectation(res);
            r->nresults++;
            done++;
            if (r->tap) ds__tap_result(r->tap, res);
            cJSON *rec = case_json(res);
            jsonl_write(r, rec);
            cJSON_Delete(rec);
        }
    }
    if (ds__interrupted && !r->interrupted) r->interrupted = true;
    if (r->interrupted) {
        r->incomplete = true;
        snprintf(r->why_incomplete, sizeof r->why_incomplete, "interrupted (SIGINT)");
    }
    if (o->progress) fputs("\r\033[K", stderr);

    /* A polite goodbye, in both transports: an in-process adapter releases its library
     * here; a worker that does not leave is killed. */
    if (!r->interrupted) {
        reply rep;
        r->deadline = ds__now() + 2.0;
        if (request(r, "bye", NULL, &rep, false) == STEP_OK) cJSON_Delete(rep.doc);
    }
    ds__adapter_stop(ad, 2.0);

    bool write_failed = false;
    cJSON *footer = make_footer(r, !r->incomplete, &gate, ds__now() - t0);
    if (r->tap) {
        if (r->incomplete)
            ds__tap_bail(r->tap, r->why_incomplete);
        else
            ds__tap_close(r->tap);
    }
    finish_reports(r, footer, ds__now() - t0, &write_failed);
    cJSON_Delete(footer);
    if (r->incomplete) fprintf(stderr, "devspec: the run is incomplete: %s\n", r->why_incomplete);
    int ran = 0;
    for (int i = 0; i < r->nresults; i++)
        ran += r->results[i].status != DS_SKIP;
    /* A run where nothing ran proves nothing, though nothing in it was unexpected. */
    if (ran == 0)
        fprintf(stderr, "devspec: warning: no case ran (%d selected, all skipped)\n", r->nresults);
    if (write_failed && gate == 0) gate = 3;

done:;
    int code = r->incomplete ? 3 : gate;
    for (int i = 0; i < r->nresults; i++) {
        free(r->results[i].reason);
        free(r->results[i].skip_source);
        free(r->results[i].stderr_tail);
        cJSON_Delete(r->results[i].expected);
        cJSON_Delete(r->results[i].observed);
    }
    free(r->results);
    free(exp_of);
    for (int i = 0; i < r->ndevices; i++)
        free(r->devices[i]);
    cJSON_Delete(r->hello);
    cJSON_Delete(r->header);
    cJSON_Delete(r->bindings);
    cJSON_Delete(r->expected);
    cJSON_Delete(r->observed);
    ds__buf_free(&r->msg);
    ds__buf_free(&r->req);
    free(r->report_path);
    free(r->jsonl_path);
    if (r->jsonl) fclose(r->jsonl);
    free(r->tap);
    return code;
}
