/* libFuzzer harness: the runner's case loader. Each input is one case file, loaded and
 * checked against the spec's registries (features, profiles, statements of the source tree
 * compiled in) as `devspec validate` would; its problems go to /dev/null. */
#include "fuzz.h"
#include "devspec.h"

#include <stdint.h>
#include <stdlib.h>

static dsr_registry reg;
static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    sink = fuzz_null_sink();
    if (dsr__registry_load(&reg, DEVSPEC_SOURCE_DIR "/spec") != 0) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dsr_suite s;
    dsr__suite_load_text(&s, &reg, "fuzz.json", (const char *)data, size, sink);
    dsr__suite_free(&s);
    return 0;
}
