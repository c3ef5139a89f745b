/*
 * alloc_test: out of memory at every allocation of every request. For each request of a
 * script that touches every part of the shim (hello, typed arrays both ways, handles,
 * errors, reset), the n-th allocation the shim or cJSON makes while answering it fails, for
 * every n up to the number that request makes. Each time the reply must still be one JSON
 * object with the request's id (or the static out-of-memory reply), the session must go on
 * working afterwards, and nothing may leak (run under AddressSanitizer in CI).
 * Uses the template's toy adapter, linked in; built with DS_ALLOC_TEST_REFARRAY, refarray's
 * adapter and another script.
 */
#include "shim_internal.h"
#include "dtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DS_ALLOC_TEST_REFARRAY
/* With refarray's adapter linked in instead: the ops whose results the shim assembles from
 * lists (dtype.result_type, util.arrays_on_device with its handle look-up), the other ops
 * of protocol version 1's later additions, fftfreq, from_dlpack, the sharding ops, and a
 * `call` whose tuple of 17 arrays takes room from ds_call_result_reserve. */
static const char *const script[] = {
    "{\"id\":1,\"op\":\"hello\",\"args\":{\"protocol\":1}}",
    "{\"id\":2,\"op\":\"array.asarray\",\"args\":{\"obj\":{\"dtype\":\"int32\",\"shape\":[2,2],"
    "\"data\":[1,2,3,4]},\"device\":{\"str\":\"cpu\"}}}",
    "{\"id\":3,\"op\":\"array.tril\",\"args\":{\"x\":\"array#0\",\"k\":0}}",
    "{\"id\":4,\"op\":\"dtype.result_type\",\"args\":{\"args\":[\"array#0\",\"int8\",\"uint8\"]}}",
    "{\"id\":5,\"op\":\"dtype.can_cast\",\"args\":{\"from_\":\"array#1\",\"to\":\"int64\"}}",
    "{\"id\":6,\"op\":\"util.arrays_on_device\",\"args\":{\"device\":{\"str\":\"cpu\"}}}",
    "{\"id\":7,\"op\":\"dtype.result_type\",\"args\":{\"args\":[\"int8\",\"array#7\"]}}",
    "{\"id\":8,\"op\":\"array.create\",\"args\":{\"fn\":\"rfftfreq\",\"n\":5,\"d\":0.2,"
    "\"device\":{\"str\":\"cpu\"}}}",
    "{\"id\":9,\"op\":\"array.from_dlpack\",\"args\":{\"x\":\"array#0\",\"device\":{\"str\":"
    "\"cpu\"},\"copy\":true}}",
    "{\"id\":10,\"op\":\"array.dlpack_device\",\"args\":{\"array\":\"array#0\"}}",
    "{\"id\":11,\"op\":\"array.shard_inplace\",\"args\":{\"x\":\"array#1\",\"devices\":"
    "[{\"str\":\"cpu\"}],\"axis\":-1}}",
    "{\"id\":12,\"op\":\"array.shard_describe\",\"args\":{\"array\":\"array#1\"}}",
    "{\"id\":13,\"op\":\"array.shard_piece\",\"args\":{\"array\":\"array#1\",\"index\":0}}",
    "{\"id\":14,\"op\":\"array.to_devices\",\"args\":{\"array\":\"array#1\",\"devices\":"
    "[{\"str\":\"cpu\"}]}}",
    "{\"id\":15,\"op\":\"array.shard\",\"args\":{\"x\":\"array#0\",\"devices\":[{\"str\":"
    "\"cpu\"}]}}",
    "{\"id\":16,\"op\":\"call\",\"args\":{\"fn\":\"broadcast_arrays\",\"args\":["
    "\"array#0\",\"array#0\",\"array#0\",\"array#0\",\"array#0\","
    "\"array#0\",\"array#0\",\"array#0\",\"array#0\",\"array#0\","
    "\"array#0\",\"array#0\",\"array#0\",\"array#0\",\"array#0\","
    "\"array#0\",\"array#0\""
    "]}}",
    "{\"id\":17,\"op\":\"reset\"}",
    "{\"id\":18,\"op\":\"bye\"}",
};
#else
static const char *const script[] = {
    "{\"id\":1,\"op\":\"hello\",\"args\":{\"protocol\":1}}",
    "{\"id\":2,\"op\":\"array.asarray\",\"args\":{\"obj\":{\"dtype\":\"complex64\",\"shape\":[2],"
    "\"data\":[[1.5,\"-0.0\"],[\"nan\",2]]}}}",
    "{\"id\":3,\"op\":\"array.read\",\"args\":{\"array\":\"array#0\"}}",
    "{\"id\":4,\"op\":\"array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[3,2],\"dtype\":"
    "\"int64\"}}",
    "{\"id\":5,\"op\":\"array.to_device\",\"args\":{\"array\":\"array#0\",\"device\":{\"str\":"
    "\"toy:1\"}}}",
    "{\"id\":6,\"op\":\"array.describe\",\"args\":{\"array\":\"array#0\"}}",
    "{\"id\":7,\"op\":\"device.describe\",\"args\":{\"device\":{\"str\":\"toy:1\"}}}",
    "{\"id\":8,\"op\":\"info.devices\"}",
    "{\"id\":9,\"op\":\"device.parse\",\"args\":{\"text\":\"gpu\"}}",
    "{\"id\":10,\"op\":\"array.describe\",\"args\":{\"array\":\"array#99\"}}",
    "{\"id\":11,\"op\":\"array.asarray\",\"args\":{\"obj\":{\"dtype\":\"int8\",\"shape\":[1],"
    "\"data\":[300]}}}",
    "{\"id\":12,\"op\":\"array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[2],\"devcie\":null}}",
    "not json",
    "{\"id\":14,\"op\":\"reset\"}",
    "{\"id\":15,\"op\":\"bye\"}",
};
#endif
#define NSCRIPT (sizeof script / sizeof script[0])

static void check(bool pass, const char *what, int step, long at, const char *reply)
{
    if (pass) return;
    dt_fail(__FILE__, __LINE__, "%s (request %d, allocation %ld)\n#   reply: %s", what, step + 1,
            at, reply ? reply : "(NULL)");
}

static const char *call(const char *req)
{
    return devspec_adapter_call(req, strlen(req), NULL);
}

/* Runs requests [0, upto) with no failure; the session must answer each. */
static void replay(size_t upto)
{
    for (size_t i = 0; i < upto; i++)
        devspec_adapter_free(call(script[i]));
}

/* Every allocation of every request of the script fails in turn: each time the request gets
 * a well-formed reply and the session goes on. */
DT_TEST(every_allocation_fails_in_turn)
{
    cJSON_Hooks hooks = {ds__malloc, ds__free};
    cJSON_InitHooks(&hooks);
    long total = 0;
    for (size_t k = 0; k < NSCRIPT; k++) {
        /* How many allocations request k makes when none fails. */
        replay(k);
        ds__alloc_fail_at(0);
        devspec_adapter_free(call(script[k]));
        long count = ds__alloc_count();
        devspec_adapter_free(call("{\"id\":0,\"op\":\"bye\"}"));
        for (long at = 1; at <= count; at++) {
            replay(k);
            ds__alloc_fail_at(at);
            const char *reply = call(script[k]);
            ds__alloc_fail_at(0);
            cJSON *r = cJSON_Parse(reply);
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(r, "id");
            const cJSON *ok = cJSON_GetObjectItemCaseSensitive(r, "ok");
            check(r != NULL && cJSON_IsBool(ok) && (cJSON_IsNumber(id) || cJSON_IsNull(id)),
                  "the reply is a JSON reply", (int)k, at, reply);
            cJSON_Delete(r);
            devspec_adapter_free(reply);
            /* The session goes on: the rest of the script is answered, then bye. */
            for (size_t i = k + 1; i < NSCRIPT; i++)
                devspec_adapter_free(call(script[i]));
            devspec_adapter_free(call("{\"id\":0,\"op\":\"bye\"}"));
            total++;
        }
        dt_diag("request %zu: each of its %ld allocations failing gives a reply", k + 1, count);
    }
    /* After all that, a clean session still works. */
    replay(1);
    const char *reply = call(script[1]);
    bool fine = strstr(reply, "\"ok\":true") != NULL;
    devspec_adapter_free(reply);
    devspec_adapter_free(call("{\"id\":0,\"op\":\"bye\"}"));
    ASSERT_MSG(fine, "a fresh session works after %ld injected failures", total);
}

DT_MAIN(DT_ENTRY(every_allocation_fails_in_turn))
