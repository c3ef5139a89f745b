/* libFuzzer harness: refarray's device strings. Every input is read by ra_device_parse and
 * ra_device_parse_current, with a context and without one; a string either parses to a
 * device that formats and parses back to itself, or is refused with a message. */
#include "fuzz.h"
#include "refarray.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static ra_ctx *ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (ra_ctx_create(RA_CTX_OPTIONS(.flags = RA_CTX_NO_OPENCL), &ctx) != RA_OK) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    ra_device d;
    ra_ctx *ctxs[2] = {NULL, ctx};
    for (int i = 0; i < 2; i++) {
        if (ra_device_parse(ctxs[i], text, &d) == RA_OK) {
            /* What parsed formats to a string that parses to the same device. */
            char buf[RA_DEVICE_STR_MAX];
            ra_device back;
            if (ra_device_format(d, buf, sizeof buf) != RA_OK ||
                ra_device_parse(ctxs[i], buf, &back) != RA_OK || !ra_device_eq(d, back))
                abort();
        } else if (ra_ctx_message(ctxs[i])[0] == '\0') {
            abort(); /* every refusal says why */
        }
        (void)ra_device_parse_current(ctxs[i], text, &d);
    }
    free(text);
    return 0;
}
