/*
 * spmd_merge.c: rank 0's reply out of every rank's (spec/protocol.md, "SPMD transport"),
 * for both ways devspec-adapter-mpi-host runs its ranks.
 */
#define _GNU_SOURCE

#include "spmd.h"

#include <cjson/cJSON.h>
#include "dsjson.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A rank's outcome: its reply without the id (and without a "ranks" of its own). */
static cJSON *outcome(const char *reply)
{
    cJSON *doc = dsj_parse(reply, strlen(reply), NULL);
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
    cJSON *doc = dsj_parse(replies[0], strlen(replies[0]), NULL);
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
    char *text = dsj_print(doc, false, NULL);
    cJSON_Delete(doc);
    char *out = text ? strdup(text) : strdup(replies[0]);
    cJSON_free(text);
    return out;
}
