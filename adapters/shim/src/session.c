/*
 * session.c: one adapter session per vendor table. Reads a request, checks its framing, hands
 * it to the op's handler (dispatch.c) and writes the reply (spec/protocol.md). The session's
 * state (the handles, the open library) lives in state.c, below the handlers.
 */
#include "ops.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* One session per table in this process: a shared object normally holds one table. */
#define MAX_SESSIONS 8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ds__session sessions[MAX_SESSIONS];

/* The reply given when there is no memory even for an error reply. */
static const char oom_reply[] =
    "{\"id\":null,\"ok\":false,\"error\":{\"kind\":\"MemoryError\",\"message\":\"out of memory "
    "while answering\",\"origin\":\"adapter\"}}";

/* ---- replies ---- */

static char *print_reply(cJSON *reply, size_t *reply_len)
{
    char *text = dsj_print(reply, false, NULL);
    cJSON_Delete(reply);
    if (text == NULL) return NULL;
    if (reply_len) *reply_len = strlen(text);
    return text;
}

/* The id as it goes back: the request's integer, or null when it had none usable. */
static cJSON *id_value(bool has_id, uint64_t id)
{
    char buf[32];
    if (!has_id) return cJSON_CreateNull();
    snprintf(buf, sizeof buf, "%" PRIu64, id);
    return cJSON_CreateRaw(buf);
}

/* MESSAGE as valid UTF-8 in OUT (3 times its size, plus one): a message is cut at a fixed
 * length (a quoted argument with "%.60s", a library's text in a fixed buffer), and a cut
 * inside a character, or a library's own bytes, must not make the reply invalid JSON. Each
 * byte that starts no well-formed sequence becomes U+FFFD; the pair 0xC0 0x80 is kept (it is
 * how dsjson holds a NUL inside a string, printed back as \u0000). */
static void utf8_repair(const char *message, char *out)
{
    size_t n = strlen(message), o = 0;
    for (size_t i = 0; i < n;) {
        long bad = ds__utf8_invalid_at(message + i, n - i);
        size_t good = bad < 0 ? n - i : (size_t)bad;
        memcpy(out + o, message + i, good);
        o += good;
        i += good;
        if (i == n) break;
        if ((unsigned char)message[i] == 0xC0 && (unsigned char)message[i + 1] == 0x80) {
            memcpy(out + o, message + i, 2);
            o += 2;
            i += 2;
        } else {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    out[o] = '\0';
}

static char *error_reply(bool has_id, uint64_t id, const ds__err *e, size_t *reply_len)
{
    char message[3 * sizeof e->message + 1];
    utf8_repair(e->message, message);
    cJSON *reply = cJSON_CreateObject(), *err = NULL;
    bool ok = reply != NULL && ds__put(reply, "id", id_value(has_id, id)) &&
              ds__put(reply, "ok", cJSON_CreateFalse()) &&
              ds__put(reply, "error", (err = cJSON_CreateObject())) &&
              ds__put(err, "kind", cJSON_CreateString(e->kind)) &&
              ds__put(err, "message", cJSON_CreateString(message)) &&
              ds__put(err, "origin", cJSON_CreateString(ds__origin_name(e->origin)));
    /* What the library lacks (ds_lacks): a name of the standard, never cut inside UTF-8
     * since names are ASCII; a non-ASCII byte is repaired as the message is. */
    if (ok && e->lacks[0] != '\0') {
        char lacks[3 * sizeof e->lacks + 1];
        utf8_repair(e->lacks, lacks);
        ok = ds__put(err, "lacks", cJSON_CreateString(lacks));
    }
    if (!ok) {
        cJSON_Delete(reply);
        return NULL;
    }
    return print_reply(reply, reply_len);
}

/* Takes `result` (NULL: JSON null) in every case. */
static char *ok_reply(uint64_t id, cJSON *result, size_t *reply_len)
{
    cJSON *reply = cJSON_CreateObject();
    bool ok = reply != NULL && ds__put(reply, "id", id_value(true, id)) &&
              ds__put(reply, "ok", cJSON_CreateTrue());
    if (!ok) {
        cJSON_Delete(result);
        cJSON_Delete(reply);
        return NULL;
    }
    if (!ds__put(reply, "result", result ? result : cJSON_CreateNull())) {
        cJSON_Delete(reply);
        return NULL;
    }
    size_t n = 0;
    char *text = print_reply(reply, &n);
    if (text != NULL && n > (size_t)DS_PROTOCOL_MAX_REPLY) {
        /* The protocol's reply limit holds for every op (spec/protocol.md, "Limits"). */
        ds__err e;
        ds__fail(&e, DS__ORIGIN_ADAPTER, "MemoryError",
                 "the reply is %zu bytes, more than the %d a reply line may hold", n,
                 DS_PROTOCOL_MAX_REPLY);
        cJSON_free(text);
        return error_reply(true, id, &e, reply_len);
    }
    if (reply_len) *reply_len = n;
    return text;
}

/* ---- one request ---- */

static ds__session *session_for(const ds_vendor *vendor)
{
    for (int i = 0; i < MAX_SESSIONS; i++)
        if (sessions[i].vendor == vendor) return &sessions[i];
    for (int i = 0; i < MAX_SESSIONS; i++)
        if (sessions[i].vendor == NULL) {
            memset(&sessions[i], 0, sizeof sessions[i]);
            sessions[i].vendor = vendor;
            return &sessions[i];
        }
    return NULL;
}

static const char *json_type_name(const cJSON *v)
{
    if (cJSON_IsArray(v)) return "a list";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsNull(v)) return "null";
    return "an object";
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A key that some object in V holds twice, or NULL. JSON readers resolve duplicates
 * differently (cJSON keeps the first, Python the last), so a request with one is a protocol
 * error, as a case file with one is a load error. Small objects are compared pairwise; a
 * large one's keys are sorted, so a request of 100k keys costs n log n, not n^2. *OOM is set
 * when memory runs out. */
static const char *duplicate_key(const cJSON *v, bool *oom)
{
    if (v == NULL || !(cJSON_IsObject(v) || cJSON_IsArray(v))) return NULL;
    size_t n = 0;
    for (const cJSON *c = v->child; c; c = c->next)
        n++;
    if (cJSON_IsObject(v) && n > 1) {
        if (n <= 16) {
            for (const cJSON *a = v->child; a; a = a->next)
                for (const cJSON *b = a->next; b; b = b->next)
                    if (strcmp(a->string, b->string) == 0) return a->string;
        } else {
            const char **keys = ds__malloc(n * sizeof *keys);
            if (keys == NULL) {
                *oom = true;
                return NULL;
            }
            size_t k = 0;
            for (const cJSON *c = v->child; c; c = c->next)
                keys[k++] = c->string;
            qsort(keys, n, sizeof *keys, cmp_key);
            const char *dup = NULL;
            for (k = 1; k < n && dup == NULL; k++)
                if (strcmp(keys[k - 1], keys[k]) == 0) dup = keys[k];
            ds__free(keys);
            if (dup) return dup;
        }
    }
    for (const cJSON *c = v->child; c; c = c->next) {
        const char *d = duplicate_key(c, oom);
        if (d || *oom) return d;
    }
    return NULL;
}

/* The request's tree, or NULL with *e set. dsj_parse keeps every number's text (int64
 * exact) and every string's NULs. The data of typed arrays are held packed
 * (common/dsjson.h): host data of millions of elements then cost their text once, not a node
 * of about 64 bytes each (spec/protocol.md, "Limits"). */
static cJSON *parse_request(const char *request, size_t len, ds__err *e)
{
    size_t off = 0, deep;
    const char *why = NULL;
    cJSON *req = dsj_parse_with(request, len, &(dsj_parse_options){.pack_data = true}, &off, &why);
    if (req != NULL) return req;
    if (why != NULL)
        ds__fail(e, DS__ORIGIN_PROTOCOL, "MemoryError", "request of %zu bytes: %s", len, why);
    else if (dsj_too_deep(request, len, &deep))
        ds__fail(e, DS__ORIGIN_PROTOCOL, "ValueError",
                 "request is nested deeper than %d arrays and objects (at byte %zu)", DSJ_MAX_DEPTH,
                 deep);
    else
        ds__fail(e, DS__ORIGIN_PROTOCOL, "ValueError",
                 "request is not valid JSON (error near byte %zu)", off);
    return NULL;
}

static char *answer(ds__session *s, const char *request, size_t len, size_t *reply_len)
{
    ds__err e = {0};
    bool has_id = false;
    uint64_t id = 0;
    cJSON *req = NULL;
    cJSON *result = NULL;
    char *reply;

    if (request == NULL) {
        ds__fail(&e, DS__ORIGIN_PROTOCOL, "ValueError", "request is NULL");
        goto error;
    }
    if (len > DS_PROTOCOL_MAX_LINE) {
        ds__fail(&e, DS__ORIGIN_PROTOCOL, "ValueError",
                 "request is %zu bytes, longer than the limit of %d bytes", len,
                 DS_PROTOCOL_MAX_LINE);
        goto error;
    }
    if (memchr(request, '\0', len) != NULL) {
        ds__fail(&e, DS__ORIGIN_PROTOCOL, "ValueError", "request contains a NUL byte at %zu",
                 (size_t)((const char *)memchr(request, '\0', len) - request));
        goto error;
    }
    long bad = ds__utf8_invalid_at(request, len);
    if (bad >= 0) {
        ds__fail(&e, DS__ORIGIN_PROTOCOL, "ValueError", "request is not valid UTF-8 (byte %ld)",
                 bad);
        goto error;
    }
    if ((req = parse_request(request, len, &e)) == NULL) goto error;
    if (!cJSON_IsObject(req)) {
        ds__fail(&e, DS__ORIGIN_PROTOCOL, "TypeError", "request must be a JSON object, not %s",
                 json_type_name(req));
        goto error;
    }
    const cJSON *jid = cJSON_GetObjectItemCaseSensitive(req, "id");
    if (jid == NULL) {
        ds__fail(&e, DS__ORIGIN_PROTOCOL, "ValueError", "request has no \"id\"");
        goto error;
    }
    if (!cJSON_IsNumber(jid) || jid->valuedouble < 0 || jid->valuedouble > 9007199254740991.0 ||
        jid->valuedouble != (double)(uint64_t)jid->valuedouble) {
        ds__fail(&e, DS__ORIGIN_PROTOCOL, "TypeError",
                 "request \"id\" must be a non-negative integer below 2^53");
        goto error;
    }
    has_id = true;
    id = (uint64_t)jid->valuedouble;
    bool oom = false;
    const char *dup = duplicate_key(req, &oom);
    if (oom) {
        ds__fail(&e, DS__ORIGIN_ADAPTER, "MemoryError", "out of memory checking the request");
        goto error;
    }
    if (dup) {
        ds__fail(&e, DS__ORIGIN_PROTOCOL, "ValueError", "request has the key \"%.100s\" twice",
                 dup);
        goto error;
    }
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(req, "op");
    if (op == NULL) {
        ds__fail(&e, DS__ORIGIN_PROTOCOL, "ValueError", "request has no \"op\"");
        goto error;
    }
    if (!cJSON_IsString(op)) {
        ds__fail(&e, DS__ORIGIN_PROTOCOL, "TypeError", "request \"op\" must be a string, not %s",
                 json_type_name(op));
        goto error;
    }
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(req, "args");
    if (args != NULL && !cJSON_IsNull(args) && !cJSON_IsObject(args)) {
        ds__fail(&e, DS__ORIGIN_PROTOCOL, "TypeError", "request \"args\" must be an object, not %s",
                 json_type_name(args));
        goto error;
    }
    if (args != NULL && cJSON_IsNull(args)) args = NULL;
    if (ds__dispatch(s, op->valuestring, args, &result, &e) < 0) goto error;
    cJSON_Delete(req);
    reply = ok_reply(id, result, reply_len);
    return reply;
error:
    cJSON_Delete(req);
    cJSON_Delete(result);
    return error_reply(has_id, id, &e, reply_len);
}

const char *ds_shim_call(const ds_vendor *vendor, const char *request, size_t len,
                         size_t *reply_len)
{
    char *reply;
    pthread_mutex_lock(&lock);
    ds__session *s = vendor ? session_for(vendor) : NULL;
    if (s == NULL) {
        ds__err e;
        ds__fail(&e, DS__ORIGIN_ADAPTER, "RuntimeError",
                 vendor ? "too many vendor tables in one process" : "no vendor table");
        reply = error_reply(false, 0, &e, reply_len);
    } else {
        reply = answer(s, request, len, reply_len);
    }
    ds__call_end();
    pthread_mutex_unlock(&lock);
    if (reply == NULL) {
        if (reply_len) *reply_len = sizeof oom_reply - 1;
        return oom_reply;
    }
    return reply;
}

void ds_shim_free(const char *reply)
{
    if (reply == NULL || reply == oom_reply) return;
    cJSON_free((void *)reply);
}

void ds_shim_shutdown(const ds_vendor *vendor)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MAX_SESSIONS; i++)
        if (vendor != NULL && sessions[i].vendor == vendor) {
            ds__session_close(&sessions[i]);
            sessions[i].vendor = NULL;
        }
    pthread_mutex_unlock(&lock);
}
