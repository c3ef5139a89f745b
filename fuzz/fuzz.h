/* fuzz.h: what the libFuzzer harnesses share: libFuzzer's entry points, declared (the
 * harnesses are built with -Wmissing-prototypes), and a sink for the diagnostics of the code
 * under test. */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* /dev/null opened for writing; the harness aborts when it cannot be opened. */
static inline FILE *fuzz_null_sink(void)
{
    FILE *f = fopen("/dev/null", "w");
    if (!f) abort();
    return f;
}

#endif
