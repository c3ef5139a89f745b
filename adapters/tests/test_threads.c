/*
 * threads_test: in-process calls from several threads at once. The shim answers them one
 * at a time (one lock per process), so each thread's requests get their own replies, with
 * their ids, and arrays made by one thread read back intact; bye then releases every array
 * the threads made (the toy library counts its live arrays). Run under ThreadSanitizer in
 * CI (CTest label "threads"). Uses the template's toy adapter, linked in.
 */
#define _POSIX_C_SOURCE 200809L

#include "devspec_shim.h"
#include "dtest.h"
#include "toylib.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define ROUNDS 300

typedef struct worker {
    int index;
    int bad;
    char first_bad[512];
} worker;

static cJSON *ask(const char *request)
{
    const char *reply = devspec_adapter_call(request, strlen(request), NULL);
    cJSON *r = cJSON_Parse(reply);
    devspec_adapter_free(reply);
    return r;
}

static void fail(worker *w, const char *what)
{
    if (w->bad++ == 0) snprintf(w->first_bad, sizeof w->first_bad, "%s", what);
}

static void *work(void *arg)
{
    worker *w = arg;
    char req[256];
    for (int i = 0; i < ROUNDS; i++) {
        long id = (long)w->index * 1000000 + i * 2;
        int value = w->index * 1000 + i;
        snprintf(req, sizeof req,
                 "{\"id\":%ld,\"op\":\"array.asarray\",\"args\":{\"obj\":{\"dtype\":\"int32\","
                 "\"shape\":[1],\"data\":[%d]}}}",
                 id, value);
        cJSON *r = ask(req);
        const cJSON *rid = cJSON_GetObjectItemCaseSensitive(r, "id");
        const cJSON *handle = cJSON_GetObjectItemCaseSensitive(r, "result");
        if (!cJSON_IsNumber(rid) || (long)rid->valuedouble != id || !cJSON_IsString(handle)) {
            fail(w, "asarray: wrong id or no handle");
            cJSON_Delete(r);
            continue;
        }
        snprintf(req, sizeof req, "{\"id\":%ld,\"op\":\"array.read\",\"args\":{\"array\":\"%s\"}}",
                 id + 1, handle->valuestring);
        cJSON_Delete(r);
        r = ask(req);
        rid = cJSON_GetObjectItemCaseSensitive(r, "id");
        const cJSON *data =
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "result"), "data");
        const cJSON *v = cJSON_GetArrayItem(data, 0);
        if (!cJSON_IsNumber(rid) || (long)rid->valuedouble != id + 1 || !cJSON_IsNumber(v) ||
            (int)v->valuedouble != value)
            fail(w, "read: wrong id or value");
        cJSON_Delete(r);
    }
    return NULL;
}

DT_TEST(threads)
{
    cJSON *hello = ask("{\"id\":1,\"op\":\"hello\",\"args\":{\"protocol\":1}}");
    bool ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hello, "ok"));
    cJSON_Delete(hello);
    ASSERT_MSG(ok, "hello succeeds");
    long before = toy_live_arrays();
    pthread_t t[THREADS];
    worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].index = i + 1;
        pthread_create(&t[i], NULL, work, &w[i]);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++)
        ASSERT_MSG(w[i].bad == 0, "thread %d: %d requests, each reply its own; first problem: %s",
                   i + 1, 2 * ROUNDS, w[i].first_bad);
    /* Every asarray made one array, and its handle keeps it until bye. */
    ASSERT_INT_EQ(toy_live_arrays() - before, THREADS * ROUNDS);
    cJSON *bye = ask("{\"id\":2,\"op\":\"bye\"}");
    ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(bye, "ok"));
    cJSON_Delete(bye);
    ASSERT_MSG(ok, "bye succeeds");
    ASSERT_INT_EQ(toy_live_arrays(), 0); /* bye released every array */
}

DT_MAIN(DT_ENTRY(threads))
