/* The protocol client: one adapter as the runner speaks to it (spec/protocol.md). Requests
 * and their replies with every check the protocol asks of a reply, the handshake and the
 * devices it binds, and the restart of a worker that crashed, timed out or broke the
 * protocol. It knows nothing of cases, expectations or reports: run.c drives it. */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* --max-restarts counts the restarts of all the clients of a run together (--jobs N). */
static pthread_mutex_t restart_lock = PTHREAD_MUTEX_INITIALIZER;

static void failmsg(dsr_client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failmsg(dsr_client *c, const char *fmt, ...)
{
    va_list ap;
    char tmp[2048];
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    c->msg.len = 0;
    dsr__buf_puts(&c->msg, tmp);
}

/* --trace: what each device handle of the hello is, by the library's name, so that a handle
 * in a later line can be read without the runner. */
static void note_devices(const cJSON *hello)
{
    const cJSON *strs = cJSON_GetObjectItemCaseSensitive(hello, "device_strs");
    int i = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(hello, "devices"))
    {
        const cJSON *s = cJSON_GetArrayItem(strs, i++);
        if (!cJSON_IsString(d) || !cJSON_IsString(s)) continue;
        dsr_buf note = {0};
        dsr__buf_printf(&note, "%s is the library's %s (hello)", d->valuestring, s->valuestring);
        dsr__client_trace_note(note.data);
        dsr__buf_free(&note);
    }
}

static int hello(dsr_client *c, char *err, size_t errlen);

/* --trace FILE: every request and reply line of the run, "> " and "< " before each; the
 * clients of --jobs N share it (their request ids differ). */
static FILE *trace_file;
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;

int dsr__client_trace_open(const char *path)
{
    if (dsr__mkdir_parents(path) != 0 || !(trace_file = fopen(path, "we"))) return -1;
    return 0;
}

bool dsr__client_trace_close(void)
{
    if (!trace_file) return true;
    bool ok = !dsr__flush_failed(trace_file);
    ok = fclose(trace_file) == 0 && ok;
    trace_file = NULL;
    return ok;
}

void dsr__client_trace_note(const char *text)
{
    if (!trace_file) return;
    pthread_mutex_lock(&trace_lock);
    fputs("# ", trace_file);
    for (; *text; text++)
        fputc(*text == '\n' || *text == '\r' ? ' ' : *text, trace_file);
    fputc('\n', trace_file);
    fflush(trace_file);
    pthread_mutex_unlock(&trace_lock);
}

static void trace(const char *dir, const char *line, size_t len)
{
    if (!trace_file) return;
    pthread_mutex_lock(&trace_lock);
    fputs(dir, trace_file);
    fwrite(line, 1, len, trace_file);
    fputc('\n', trace_file);
    fflush(trace_file);
    pthread_mutex_unlock(&trace_lock);
}

void dsr__client_init(dsr_client *c, dsr_adapter *ad, const dsr_options *o, int *restarts)
{
    memset(c, 0, sizeof *c);
    c->ad = ad;
    c->o = o;
    c->next_id = 1;
    c->restarts = restarts ? restarts : &c->own_restarts;
}

int dsr__client_start(dsr_client *c, char *err, size_t errlen)
{
    int rc = dsr__adapter_start(c->ad, err, errlen);
    return rc == 0 ? hello(c, err, errlen) : rc;
}

void dsr__client_bye(dsr_client *c)
{
    dsr_reply rep;
    c->deadline = dsr__now() + 2.0;
    if (dsr__client_request(c, "bye", NULL, &rep, false) == DSR_END_OK) cJSON_Delete(rep.doc);
}

void dsr__client_free(dsr_client *c)
{
    for (int i = 0; i < c->ndevices; i++)
        free(c->devices[i]);
    c->ndevices = 0;
    cJSON_Delete(c->hello);
    cJSON_Delete(c->violation);
    cJSON_Delete(c->reference);
    c->hello = c->violation = c->reference = NULL;
    dsr__buf_free(&c->msg);
    dsr__buf_free(&c->req);
    dsr__buf_free(&c->ahead);
}

/* Starts a fresh worker after a crash, a timeout or a protocol violation, and replays the
 * handshake. Past --max-restarts the run stops as incomplete. */
void dsr__client_restart(dsr_client *c)
{
    if (dsr__adapter_in_process(c->ad)) {
        c->broken = true;
        snprintf(c->why_broken, sizeof c->why_broken,
                 "the in-process adapter failed and cannot be restarted");
        return;
    }
    dsr__adapter_kill(c->ad);
    c->ahead_sent = false; /* a request written ahead went with the worker */
    c->ahead.len = 0;
    /* --max-restarts counts the restarts of all the workers together. */
    pthread_mutex_lock(&restart_lock);
    int done = *c->restarts;
    bool over = done >= c->o->max_restarts;
    if (!over) ++*c->restarts;
    pthread_mutex_unlock(&restart_lock);
    if (over) {
        c->broken = true;
        snprintf(c->why_broken, sizeof c->why_broken,
                 "the adapter failed again after %d restarts (limit --max-restarts %d)", done,
                 c->o->max_restarts);
        return;
    }
    char err[400];
    if (dsr__adapter_start(c->ad, err, sizeof err) != 0 || hello(c, err, sizeof err) != 0) {
        c->broken = true;
        snprintf(c->why_broken, sizeof c->why_broken, "the adapter could not be restarted: %s",
                 err);
        dsr__adapter_kill(c->ad);
        return;
    }
    c->need_reset = false;
}

/* Reads DOC, a reply with the right id, into REP: "ok", and the result or the error (kind,
 * message, origin, lacks). False, with the reason in c->msg, when it breaks the protocol. */
static bool read_reply(dsr_client *c, const char *op, cJSON *doc, dsr_reply *rep)
{
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(doc, "ok");
    if (!cJSON_IsBool(ok)) {
        failmsg(c, "protocol violation: the reply to %s has no boolean \"ok\"", op);
        return false;
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
        const cJSON *lacks = cJSON_GetObjectItemCaseSensitive(e, "lacks");
        if (!cJSON_IsString(kind) || (origin && !cJSON_IsString(origin))) {
            failmsg(c,
                    "protocol violation: the error reply to %s has no \"error\" with a string "
                    "\"kind\"",
                    op);
            rep->doc = NULL;
            return false;
        }
        rep->kind = kind->valuestring;
        rep->message = cJSON_IsString(message) ? message->valuestring : "";
        rep->origin = origin ? origin->valuestring : "library";
        rep->lacks = cJSON_IsString(lacks) && lacks->valuestring[0] ? lacks->valuestring : NULL;
    }
    return true;
}

/* Whether a request of LEN bytes is within the max_line the adapter's hello gave
 * (spec/protocol.md, "Limits"). */
static bool line_fits(const dsr_client *c, size_t len)
{
    return !c->hello || c->max_line < 0 || (double)len <= c->max_line;
}

/* Whether the request in c->req fits (line_fits). A longer one would be refused unread, so it
 * is not sent: the step is an error whose reason names both sizes (a case's host data too
 * large for this adapter). */
static bool fits_max_line(dsr_client *c, const char *op)
{
    if (line_fits(c, c->req.len)) return true;
    failmsg(c,
            "the request for %s is %zu bytes, more than the %.0f bytes the adapter reads "
            "(hello's max_line); not sent",
            op, c->req.len, c->max_line);
    return false;
}

/* The request line of OP with ARGS (taken over) and ID, into B. Composed by hand: cJSON
 * prints every number through sprintf and sscanf, which was a quarter of the runner's time per
 * step, and printf itself was a tenth of what remained. OP comes from the validated list of
 * ops and needs no escaping. */
static void compose(dsr_buf *b, long id, const char *op, cJSON *args)
{
    b->len = 0;
    char digits[24];
    int nd = 0;
    unsigned long u = id < 0 ? 0UL - (unsigned long)id : (unsigned long)id;
    do
        digits[sizeof digits - 1 - nd++] = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (id < 0) digits[sizeof digits - 1 - nd++] = '-';
    dsr__buf_add(b, "{\"id\":", 6);
    dsr__buf_add(b, digits + sizeof digits - nd, (size_t)nd);
    dsr__buf_add(b, ",\"op\":\"", 7);
    dsr__buf_puts(b, op);
    dsr__buf_add(b, "\"", 1);
    if (args) {
        dsr__buf_puts(b, ",\"args\":");
        dsr__print_compact(b, args); /* in place: no text of its own to copy */
        cJSON_Delete(args);
    }
    dsr__buf_puts(b, "}");
}

bool dsr__client_ahead(dsr_client *c, long id, const char *op, cJSON *args)
{
    c->ahead.len = 0;
    if (dsr__adapter_in_process(c->ad) || !c->hello) {
        cJSON_Delete(args);
        return false;
    }
    compose(&c->ahead, id, op, args);
    c->ahead_id = id;
    if (!line_fits(c, c->ahead.len)) c->ahead.len = 0;
    return c->ahead.len > 0;
}

void dsr__client_drop_ahead(dsr_client *c)
{
    c->ahead.len = 0;
    if (!c->ahead_sent) return;
    dsr_reply rep; /* send_and_wait reads it under the id it went out with */
    dsr_end e = dsr__client_request(c, "(a request written ahead)", NULL, &rep, true);
    if (e == DSR_END_OK)
        cJSON_Delete(rep.doc);
    else if (e == DSR_END_CRASH || e == DSR_END_TIMEOUT)
        dsr__client_restart(c);
}

/* Writes the request OP with ARGS (taken over) as *ID, with the request composed ahead where
 * it goes next, and waits for its reply line; where OP went out ahead with the request before
 * it, writes nothing and waits for that reply. False, nothing written: the request is longer
 * than hello's max_line (c->msg says so). */
static bool send_and_wait(dsr_client *c, const char *op, cJSON *args, long *id, dsr_io *io,
                          char **line, size_t *len)
{
    if (c->ahead_sent) {
        cJSON_Delete(args);
        *id = c->ahead_id;
        c->next_id = *id + 1;
        c->ahead_sent = false;
        *io = dsr__adapter_call(c->ad, NULL, 0, c->deadline, line, len);
        return true;
    }
    compose(&c->req, *id, op, args);
    if (!fits_max_line(c, op)) {
        c->ahead.len = 0;
        return false;
    }
    trace("> ", c->req.data, c->req.len);
    if (c->ahead.len && c->ahead_id == c->next_id &&
        dsr__adapter_ahead_fits(c->ad, c->req.len, c->ahead.len)) {
        trace("> ", c->ahead.data, c->ahead.len);
        *io = dsr__adapter_call_ahead(c->ad, c->req.data, c->req.len, c->ahead.data, c->ahead.len,
                                      c->deadline, line, len);
        /* its reply is read only while the worker lives: a failed exchange restarts it */
        c->ahead_sent = *io == DSR_IO_OK;
    } else
        *io = dsr__adapter_call(c->ad, c->req.data, c->req.len, c->deadline, line, len);
    c->ahead.len = 0;
    if (c->ahead.cap > 65536) dsr__buf_free(&c->ahead);
    return true;
}

/* Sends OP with ARGS (taken over) and reads the reply. On DSR_END_OK *rep is filled; any other
 * result has set c->msg. */
dsr_end dsr__client_request(dsr_client *c, const char *op, cJSON *args, dsr_reply *rep,
                            bool restart_on_error)
{
    memset(rep, 0, sizeof *rep);
    long id = c->next_id++;
    char *line = NULL;
    size_t len = 0;
    dsr_io io;
    if (!send_and_wait(c, op, args, &id, &io, &line, &len)) return DSR_END_ERROR;
    if (io == DSR_IO_OK) trace("< ", line, len);
    switch (io) {
    case DSR_IO_OK:
        break;
    case DSR_IO_DEAD: {
        /* The line where the library said why, when it did (a failed check, an error). */
        const char *why = dsr__adapter_why(c->ad);
        failmsg(c, "the adapter died during %s: %s%s%.400s", op, dsr__adapter_death(c->ad),
                why ? "; it said: " : "", why ? why : "");
        return DSR_END_CRASH;
    }
    case DSR_IO_TIMEOUT:
        failmsg(c,
                "no reply to %s within the case's %.3g s (--timeout); the adapter's process "
                "group was killed",
                op, c->o->timeout);
        dsr__adapter_kill(c->ad);
        return DSR_END_TIMEOUT;
    case DSR_IO_INTERRUPTED:
        failmsg(c, "interrupted");
        return DSR_END_STOP;
    case DSR_IO_TOO_LONG:
        failmsg(c,
                "protocol violation: the reply to %s is longer than the protocol's limit of %u "
                "bytes",
                op, DSR_PROTOCOL_MAX_REPLY);
        if (restart_on_error) dsr__client_restart(c);
        return DSR_END_ERROR;
    }
    dsr_end bad = DSR_END_ERROR;
    const char *what = NULL;
    cJSON *doc = NULL;
    const cJSON *twice;
    char dup[200];
    if ((doc = dsr__read_small_reply(line, len)) != NULL)
        ; /* printable ASCII, no key twice: the checks below hold; read in one pass */
    else if (dsr__utf8_invalid_at(line, len) >= 0)
        what = "the reply is not valid UTF-8";
    else if (!(doc = dsr__parse_reply(line, len, &what)) || !cJSON_IsObject(doc))
        what = what ? what : "the reply is not a JSON object";
    else if ((twice = dsr__duplicate_key(doc))) {
        snprintf(dup, sizeof dup, "the reply gives the key \"%.80s\" twice", twice->string);
        for (char *p = dup; *p; p++)
            if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f) *p = '?';
        what = dup;
    }
    if (what) {
        char shown[201];
        snprintf(shown, sizeof shown, "%s", line);
        for (char *p = shown; *p; p++)
            if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f) *p = '?';
        failmsg(c, "protocol violation: %s (to %s): %s%s", what, op, shown, len > 200 ? "..." : "");
        goto violation;
    }
    const cJSON *rid = cJSON_GetObjectItemCaseSensitive(doc, "id");
    if (!cJSON_IsNumber(rid) || rid->valuedouble != (double)id) {
        char *shown = rid ? dsr__print(rid, false) : NULL;
        failmsg(c, "protocol violation: the reply to %s (id %ld) has id %s", op, id,
                shown ? shown : "(none)");
        cJSON_free(shown);
        goto violation;
    }
    if (!read_reply(c, op, doc, rep)) goto violation;
    free(line);
    return DSR_END_OK;
violation:
    cJSON_Delete(c->violation);
    c->violation = doc ? doc : cJSON_CreateString(line);
    doc = NULL;
    free(line);
    /* After a malformed reply the stream cannot be trusted: start a fresh worker. */
    if (restart_on_error && !dsr__adapter_in_process(c->ad)) dsr__client_restart(c);
    return bad;
}

static void bind_devices(dsr_client *c)
{
    for (int i = 0; i < c->ndevices; i++)
        free(c->devices[i]);
    c->ndevices = 0;
    const cJSON *def = cJSON_GetObjectItemCaseSensitive(c->hello, "default_device");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(c->hello, "devices");
    const cJSON *d;
    if (cJSON_IsString(def)) c->devices[c->ndevices++] = dsr__xstrdup(def->valuestring);
    cJSON_ArrayForEach(d, list)
    {
        if (!cJSON_IsString(d) || c->ndevices >= DSR_MAX_DEVICES) continue;
        bool dup = false;
        for (int i = 0; i < c->ndevices; i++)
            if (!strcmp(c->devices[i], d->valuestring)) dup = true;
        if (!dup) c->devices[c->ndevices++] = dsr__xstrdup(d->valuestring);
    }
    /* Devices whose arrays hold no data (torch's meta): bound only by cases that never read
     * elements back (spec/protocol.md, hello). */
    const cJSON *none = cJSON_GetObjectItemCaseSensitive(c->hello, "devices_without_data");
    c->ndata = 0;
    for (int i = 0; i < c->ndevices; i++) {
        c->no_data[i] = false;
        cJSON_ArrayForEach(d, none)
        {
            if (cJSON_IsString(d) && !strcmp(d->valuestring, c->devices[i])) c->no_data[i] = true;
        }
        c->ndata += !c->no_data[i];
    }
}

/* The first field of hello in which B differs from A (compared as printed), or NULL. */
static const char *hello_difference(const cJSON *a, const cJSON *b)
{
    static const char *const fields[] = {"protocol",    "library",        "features",
                                         "device_strs", "default_device", "ranks"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, fields[i]);
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, fields[i]);
        char *tx = x ? dsr__print(x, false) : NULL, *ty = y ? dsr__print(y, false) : NULL;
        bool same = (!tx && !ty) || (tx && ty && !strcmp(tx, ty));
        cJSON_free(tx);
        cJSON_free(ty);
        if (!same) return fields[i];
    }
    return NULL;
}

static int hello(dsr_client *c, char *err, size_t errlen)
{
    cJSON *args = cJSON_CreateObject();
    cJSON_AddNumberToObject(args, "protocol", DSR_PROTOCOL_VERSION);
    double saved = c->deadline;
    c->deadline = c->o->start_timeout > 0 ? dsr__now() + c->o->start_timeout : 0;
    dsr_reply rep;
    dsr_end e = dsr__client_request(c, "hello", args, &rep, false);
    c->deadline = saved;
    if (e == DSR_END_TIMEOUT)
        failmsg(c, "no reply to hello within %.3g s (--start-timeout)", c->o->start_timeout);
    if (e != DSR_END_OK) {
        const char *tail = dsr__adapter_stderr(c->ad);
        snprintf(err, errlen, "hello failed: %s%s%s", c->msg.data, tail[0] ? "; stderr: " : "",
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
    else if (!cJSON_IsNumber(proto) || proto->valuedouble != DSR_PROTOCOL_VERSION)
        problem = "the adapter speaks another protocol version (this runner speaks 1)";
    else if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(res, "devices")))
        problem = "hello has no \"devices\" list";
    else if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(res, "features")))
        problem = "hello has no \"features\" list";
    if (problem) {
        char *shown = dsr__print(res, false);
        snprintf(err, errlen, "%s: %.300s", problem, shown ? shown : "");
        cJSON_free(shown);
        cJSON_Delete(rep.doc);
        return -1;
    }
    /* Every worker of a run, and every worker after a restart, must be the library the run
     * began with: another worker claiming fewer features, or seeing other devices (a GPU in
     * exclusive-process mode shows only the CPU to a second process), would turn cases into
     * skips or run them elsewhere under the first worker's header. */
    const cJSON *want = c->reference ? c->reference : c->hello;
    const char *differs = want ? hello_difference(want, res) : NULL;
    if (differs) {
        char *a = dsr__print(cJSON_GetObjectItemCaseSensitive(res, differs), false);
        char *b = dsr__print(cJSON_GetObjectItemCaseSensitive(want, differs), false);
        snprintf(err, errlen,
                 "this worker's hello differs from the run's first in \"%s\": %.200s, not "
                 "%.200s",
                 differs, a ? a : "(none)", b ? b : "(none)");
        cJSON_free(a);
        cJSON_free(b);
        cJSON_Delete(rep.doc);
        return -1;
    }
    cJSON_Delete(c->hello);
    c->hello = cJSON_DetachItemFromObjectCaseSensitive(rep.doc, "result");
    /* Read here, not at every request: a lookup among hello's keys was a tenth of the
     * client's own work per request. */
    const cJSON *max = cJSON_GetObjectItemCaseSensitive(c->hello, "max_line");
    c->max_line = cJSON_IsNumber(max) && max->valuedouble >= 0 ? max->valuedouble : -1;
    cJSON_Delete(rep.doc);
    bind_devices(c);
    note_devices(c->hello);
    const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(c->hello, "ranks");
    c->nranks = cJSON_IsNumber(ranks) && ranks->valuedouble >= 1 ? (int)ranks->valuedouble : 1;
    return 0;
}
