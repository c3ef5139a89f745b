/* libFuzzer harness: dsjson's packed reader (dsj_parse_with packing the data of typed
 * arrays, as the runner reads replies) against its plain reader (dsj_parse). For any input
 * both accept or both refuse, at the same offset; what they accept prints to the same text;
 * every packed array walks (dsj_iter) through exactly its count of elements, each a scalar or
 * a pair, and reads back (dsj_unpack) to the plain reader's array. With a limit on values,
 * a refusal that the plain reader accepts gives the reason. Nothing may crash, leak or read
 * out of bounds. */
#include "dsjson.h"
#include "fuzz.h"

#include <string.h>

/* Walks the packed nodes of V's tree. */
static void walk(const cJSON *v)
{
    for (; v; v = v->next) {
        if (dsj_is_packed(v)) {
            size_t n = 0;
            dsj_iter it;
            dsj_iter_init(&it, v);
            for (const cJSON *e; (e = dsj_iter_next(&it)); n++) {
                if (cJSON_IsArray(e)) {
                    if (cJSON_GetArraySize(e) != 2) abort();
                } else if (!(cJSON_IsNumber(e) || cJSON_IsString(e) || cJSON_IsBool(e) ||
                             cJSON_IsNull(e))) {
                    abort();
                }
                if (cJSON_IsNumber(e) && dsj_number_text(e) == NULL) abort();
            }
            if (n != dsj_array_length(v)) abort();
            cJSON *plain = dsj_unpack(v);
            if (!plain || !cJSON_IsArray(plain) || (size_t)cJSON_GetArraySize(plain) != n) abort();
            char *a = dsj_print(plain, false, NULL);
            if (!a || strcmp(a, v->valuestring) != 0) abort();
            cJSON_free(a);
            cJSON_Delete(plain);
        } else if (v->child) {
            walk(v->child);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t at_plain = 0, at_packed = 0;
    const char *why = NULL;
    static const dsj_parse_options pack = {.pack_data = true};
    cJSON *plain = dsj_parse(text, size, &at_plain);
    cJSON *packed = dsj_parse_with(text, size, &pack, &at_packed, &why);
    if ((plain == NULL) != (packed == NULL)) abort();
    if (plain == NULL && (at_plain != at_packed || why != NULL)) abort();
    if (plain) {
        char *a = dsj_print(plain, false, NULL), *b = dsj_print(packed, false, NULL);
        if (!a || !b || strcmp(a, b) != 0) abort();
        cJSON_free(a);
        cJSON_free(b);
        walk(packed);
        static const dsj_parse_options few = {.pack_data = true, .max_values = 16};
        cJSON *limited = dsj_parse_with(text, size, &few, NULL, &why);
        if (limited == NULL && why == NULL) abort();
        cJSON_Delete(limited);
    }
    cJSON_Delete(plain);
    cJSON_Delete(packed);
    return 0;
}
