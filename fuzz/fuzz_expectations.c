/* libFuzzer harness: the runner's expectations-file parser. Each input is one expectations
 * file; every entry it keeps must have a pattern, a status it accepts and UTF-8 text, and an
 * intermittent-crash entry is a crash that the ordinary match never returns. */
#include "fuzz.h"
#include "devspec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    sink = fuzz_null_sink();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dsr_expectations e;
    dsr__expectations_parse(&e, "fuzz.txt", (const char *)data, size, sink);
    for (int i = 0; i < e.count; i++) {
        const dsr_expectation *x = &e.items[i];
        if (!x->pattern[0] || x->status == DSR_XFAIL || x->status == DSR_XPASS ||
            dsr__utf8_invalid_at(x->reason, strlen(x->reason)) >= 0 ||
            dsr__utf8_invalid_at(x->pattern, strlen(x->pattern)) >= 0 ||
            (x->intermittent && x->status != DSR_CRASH))
            abort();
    }
    const dsr_expectation *m = dsr__expectations_match(&e, "a.b.c");
    const dsr_expectation *i = dsr__expectations_intermittent(&e, "a.b.c");
    if ((m && m->intermittent) || (i && !i->intermittent)) abort();
    dsr__expectations_free(&e);
    return 0;
}
