/* libFuzzer harness: the shim's typed-array decoding. The input is parsed as JSON (dsjson)
 * and decoded as a typed array; what decodes is encoded, decoded and encoded again, and the
 * two encodings must be the same text (a NaN's payload is not carried, so the bytes of the
 * first decoding may differ from the second's only there). Nothing may crash, leak or read out of
 * bounds. */
#include "fuzz.h"
#include "shim_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *v = dsj_parse((const char *)data, size, NULL);
    if (!v) return 0;
    ds_buffer buf;
    ds__err e = {0};
    if (ds__buffer_decode(v, "obj", &buf, &e) == 0) {
        /* An encoding is a tree for printing (exact numbers are raw text): it goes through
         * its text, as a reply does. */
        char *t1 = NULL, *t2 = NULL;
        cJSON *again = NULL;
        ds__err e1 = {0};
        if (ds__buffer_encode(&buf, SIZE_MAX, &again, &e1) < 0 && !e1.set) abort();
        if (again) t1 = dsj_print(again, false, NULL);
        cJSON *parsed = t1 ? dsj_parse(t1, strlen(t1), NULL) : NULL;
        if (t1 && !parsed) abort();
        if (parsed) {
            ds_buffer back;
            ds__err e2 = {0};
            if (ds__buffer_decode(parsed, "obj", &back, &e2) != 0) abort();
            if (back.dtype != buf.dtype || back.ndim != buf.ndim || back.nbytes != buf.nbytes)
                abort();
            cJSON *third = NULL;
            if (ds__buffer_encode(&back, SIZE_MAX, &third, &e2) < 0 && !e2.set) abort();
            t2 = third ? dsj_print(third, false, NULL) : NULL;
            if (t2 && strcmp(t1, t2) != 0) abort();
            cJSON_Delete(third);
            ds__buffer_clear(&back);
        }
        cJSON_free(t1);
        cJSON_free(t2);
        cJSON_Delete(parsed);
        cJSON_Delete(again);
        ds__buffer_clear(&buf);
    } else if (!e.set || e.message[0] == '\0') {
        abort(); /* every refusal says why */
    }
    ds_scalar sc;
    ds__err e3 = {0};
    (void)ds__scalar_decode(v, "x", true, &sc, &e3);
    cJSON_Delete(v);
    return 0;
}
