/* libFuzzer harness: the runner's one-pass reader of small replies (dsr__read_small_reply)
 * against the full reader (dsr__parse_reply). Whatever the small reader reads, the full
 * reader reads to the same tree (types, numbers to the bit, strings, keys, order and cJSON's
 * links), as valid UTF-8 without a repeated key; whatever else it meets it declines. Nothing
 * may crash, leak or read out of bounds. */
#include "fuzz.h"
#include "small_reply_check.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (small_agrees((const char *)data, size) < 0) abort();
    return 0;
}
