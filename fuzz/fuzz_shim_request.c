/* libFuzzer harness: the shim's request decoding, through devspec_adapter_call of the
 * template's toy adapter (linked in). The input is a sequence of request lines sent one by
 * one after a hello, then a reset; every reply must be one JSON object with "id" and "ok".
 * Nothing may crash, leak or read out of bounds. */
#include "fuzz.h"
#include "devspec_shim.h"
#include "dsjson.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void call(const char *req, size_t len)
{
    size_t n = 0;
    const char *reply = devspec_adapter_call(req, len, &n);
    if (!reply || strlen(reply) != n) abort();
    cJSON *r = dsj_parse(reply, n, NULL);
    if (!cJSON_IsObject(r) || !cJSON_GetObjectItemCaseSensitive(r, "id") ||
        !cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(r, "ok")))
        abort();
    cJSON_Delete(r);
    devspec_adapter_free(reply);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static const char hello[] = "{\"id\":0,\"op\":\"hello\",\"args\":{\"protocol\":1}}";
    call(hello, sizeof hello - 1);
    return 0;
}

/* Whether REQ is a hello that asks for dlpack_addresses: such a session trusts the tensor
 * addresses it is sent (spec/protocol.md, "Tensors by address"), so a made-up address would
 * crash it by design. The harness leaves such a hello out. */
static bool asks_for_addresses(const char *req, size_t len)
{
    cJSON *r = dsj_parse(req, len, NULL);
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(r, "args");
    bool asks = cJSON_IsObject(args) &&
                cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "dlpack_addresses"));
    cJSON_Delete(r);
    return asks;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (!asks_for_addresses(p, len)) call(p, len);
        p += len + (nl != NULL);
    }
    /* A hello after a bye or a failed hello: the session starts afresh each time. */
    static const char reset[] = "{\"id\":1,\"op\":\"hello\",\"args\":{\"protocol\":1}}";
    call(reset, sizeof reset - 1);
    return 0;
}
