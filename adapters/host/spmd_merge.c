/*
 * spmd_merge.c: rank 0's reply out of every rank's (spec/protocol.md, "SPMD transport"),
 * for both ways devspec-adapter-mpi-host runs its ranks.
 */
#define _GNU_SOURCE

#include "spmd.h"

#include <cjson/cJSON.h>
#include "devspec_shim.h"
#include "dsjson.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Replies are read with the data of typed arrays packed (common/dsjson.h): N ranks' replies of
 * up to 64 MiB each would otherwise take a cJSON node per element. */
static cJSON *parse_reply(const char *reply)
{
    static const dsj_parse_options pack = {.pack_data = true};
    return dsj_parse_with(reply, strlen(reply), &pack, NULL, NULL);
}

/* A rank's outcome: its reply without the id (and without a "ranks" of its own). */
static cJSON *outcome(const char *reply)
{
    cJSON *doc = parse_reply(reply);
    if (!doc) {
        doc = cJSON_CreateObject();
        cJSON_AddFalseToObject(doc, "ok");
        cJSON *e = cJSON_AddObjectToObject(doc, "error");
        cJSON_AddStringToObject(e, "kind", "RuntimeError");
        cJSON_AddStringToObject(e, "message", "the rank's reply is not JSON");
        cJSON_AddStringToObject(e, "origin", "adapter");
        return doc;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "id");
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "ranks");
    return doc;
}

/* Whether two outcomes are the same JSON, compared as dsjson prints them: exact numbers
 * (cJSON_Compare compares doubles, so two int64 values past 2^53 could look equal). */
static bool same_outcome(const cJSON *a, const cJSON *b)
{
    char *ta = dsj_print(a, false, NULL), *tb = dsj_print(b, false, NULL);
    bool same = ta && tb && strcmp(ta, tb) == 0;
    cJSON_free(ta);
    cJSON_free(tb);
    return same;
}

char *spmd_merge(const char *request, size_t request_len, char *const *replies, int nranks)
{
    cJSON *doc = parse_reply(replies[0]);
    if (!doc) return strdup(replies[0]);
    bool differ = false;
    cJSON *first = outcome(replies[0]);
    cJSON *list = cJSON_CreateArray();
    cJSON_AddItemToArray(list, first);
    for (int r = 1; r < nranks; r++) {
        cJSON *o = outcome(replies[r]);
        if (!same_outcome(o, first)) differ = true;
        cJSON_AddItemToArray(list, o);
    }
    if (differ)
        cJSON_AddItemToObject(doc, "ranks", list);
    else
        cJSON_Delete(list);
    /* hello: say how many ranks serve the session. */
    cJSON *req = dsj_parse(request, request_len, NULL);
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(req, "op");
    cJSON *result = cJSON_GetObjectItemCaseSensitive(doc, "result");
    if (cJSON_IsString(op) && strcmp(op->valuestring, "hello") == 0 && cJSON_IsObject(result)) {
        cJSON_DeleteItemFromObjectCaseSensitive(result, "ranks");
        cJSON_AddNumberToObject(result, "ranks", nranks);
    }
    cJSON_Delete(req);
    size_t len = 0;
    char *text = dsj_print(doc, false, &len);
    if (text && len > DS_PROTOCOL_MAX_REPLY) {
        /* Every rank's outcome together is over the reply limit: the adapter's MemoryError,
         * as one rank's reply over the limit is (spec/protocol.md, "Limits"). */
        cJSON *big = cJSON_CreateObject();
        cJSON *id = cJSON_GetObjectItemCaseSensitive(doc, "id");
        cJSON_AddItemToObject(big, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
        cJSON_AddFalseToObject(big, "ok");
        cJSON *e = cJSON_AddObjectToObject(big, "error");
        char msg[200];
        snprintf(msg, sizeof msg,
                 "the reply of %d ranks, whose outcomes differ, would be %zu bytes, over the "
                 "protocol's limit of %u",
                 nranks, len, (unsigned)DS_PROTOCOL_MAX_REPLY);
        cJSON_AddStringToObject(e, "kind", "MemoryError");
        cJSON_AddStringToObject(e, "message", msg);
        cJSON_AddStringToObject(e, "origin", "adapter");
        cJSON_free(text);
        text = dsj_print(big, false, NULL);
        cJSON_Delete(big);
    }
    cJSON_Delete(doc);
    char *out = text ? strdup(text) : NULL;
    cJSON_free(text);
    return out;
}
