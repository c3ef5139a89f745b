/* Tests of device values: parsing, formatting, equality, construction and availability. */
#include "ra_test.h"

#include <string.h>

/* Parses text and checks the status (and, on success, type and index). */
static void parse_case(ra_ctx *ctx, const char *text, int want, ra_device_type type, int index,
                       const char *why)
{
    ra_device d = {0, -1};
    int status = ra_device_parse(ctx, text, &d);
    if (want == RA_OK) {
        if (!CHECK(status == RA_OK && d.type == type && d.index == index, "parse '%s': %s", text,
                   why))
            printf("#   expected %s:%d, observed status %s, type %d, index %d: %s\n",
                   ra_device_type_name(type), index, ra_status_name(status), (int)d.type,
                   (int)d.index, ra_ctx_message(ctx));
    } else {
        ASSERT_STATUS(ctx, status, want, "parse '%s' is %s (%s): %s", text, ra_status_name(want),
                      ra_status_kind(want), why);
        CHECK(d.type == 0 && d.index == -1, "parse '%s' leaves the output untouched on error",
              text);
    }
}

DT_TEST(parse)
{
    ra_ctx *ctx = open_ctx();
    /* DRAFT-STR-1: 'type:index', lower-case type, ':index' optional, decimal digits. */
    parse_case(ctx, "cpu", RA_OK, RA_DEVICE_CPU, 0, "DRAFT-STR-1 plain type");
    parse_case(ctx, "cpu:0", RA_OK, RA_DEVICE_CPU, 0, "DRAFT-STR-1 cpu:0 is cpu");
    parse_case(ctx, "cpu:1", RA_OK, RA_DEVICE_CPU, 1, "cpu:1 is well formed (not available)");
    parse_case(ctx, "gpu", RA_OK, RA_DEVICE_GPU, 0, "DRAFT-STR-1 gpu means gpu:0");
    parse_case(ctx, "gpu:0", RA_OK, RA_DEVICE_GPU, 0, "DRAFT-STR-1 gpu:0");
    parse_case(ctx, "gpu:12", RA_OK, RA_DEVICE_GPU, 12, "DRAFT-STR-1 two digits");
    parse_case(ctx, "tpu", RA_OK, RA_DEVICE_TPU, 0, "tpu is valid syntax");
    parse_case(ctx, "tpu:3", RA_OK, RA_DEVICE_TPU, 3, "tpu:3 is valid syntax");
    parse_case(ctx, "gpu:2147483647", RA_OK, RA_DEVICE_GPU, 2147483647, "largest index");
    /* The edge cases of peer-behaviour section 12, each rejected with a ValueError kind. */
    parse_case(ctx, "CPU", RA_E_DEVICE_TYPE, 0, 0, "DRAFT-STR-1 upper case");
    parse_case(ctx, "GPU:0", RA_E_DEVICE_TYPE, 0, 0, "DRAFT-STR-1 upper case with index");
    parse_case(ctx, "Gpu", RA_E_DEVICE_TYPE, 0, 0, "mixed case");
    parse_case(ctx, "cuda", RA_E_DEVICE_TYPE, 0, 0, "DRAFT-STR-9 unknown type");
    parse_case(ctx, "cuda:0", RA_E_DEVICE_TYPE, 0, 0, "DRAFT-STR-9 unknown type with index");
    parse_case(ctx, "meta", RA_E_DEVICE_TYPE, 0, 0, "DRAFT-STR-9 unknown type");
    parse_case(ctx, " gpu:0", RA_E_DEVICE_SYNTAX, 0, 0, "leading space");
    parse_case(ctx, "gpu:0 ", RA_E_DEVICE_SYNTAX, 0, 0, "trailing space");
    parse_case(ctx, "gpu: 0", RA_E_DEVICE_SYNTAX, 0, 0, "space before index");
    parse_case(ctx, "gpu:-1", RA_E_DEVICE_SYNTAX, 0, 0, "negative sign");
    parse_case(ctx, "gpu:+1", RA_E_DEVICE_SYNTAX, 0, 0, "plus sign");
    parse_case(ctx, "gpu:01", RA_E_DEVICE_SYNTAX, 0, 0, "leading zero");
    parse_case(ctx, "gpu:00", RA_E_DEVICE_SYNTAX, 0, 0, "double zero");
    parse_case(ctx, "gpu:010", RA_E_DEVICE_SYNTAX, 0, 0, "leading zero (octal-looking)");
    parse_case(ctx, "gpu:0x1", RA_E_DEVICE_SYNTAX, 0, 0, "hexadecimal");
    parse_case(ctx, "gpu:1e0", RA_E_DEVICE_SYNTAX, 0, 0, "exponent");
    parse_case(ctx, "gpu:1_0", RA_E_DEVICE_SYNTAX, 0, 0, "digit separator");
    parse_case(ctx, "gpu:", RA_E_DEVICE_SYNTAX, 0, 0, "empty index");
    parse_case(ctx, ":0", RA_E_DEVICE_SYNTAX, 0, 0, "empty type");
    parse_case(ctx, "gpu:0:0", RA_E_DEVICE_SYNTAX, 0, 0, "two colons");
    parse_case(ctx, "gpuX0", RA_E_DEVICE_SYNTAX, 0, 0, "bad separator");
    parse_case(ctx, "1", RA_E_DEVICE_SYNTAX, 0, 0, "digit string");
    parse_case(ctx, "", RA_E_DEVICE_SYNTAX, 0, 0, "empty string");
    parse_case(ctx, "gpu:\xd9\xa1", RA_E_DEVICE_SYNTAX, 0, 0, "Arabic-Indic digit one (U+0661)");
    parse_case(ctx, "gpu:\xef\xbc\x91", RA_E_DEVICE_SYNTAX, 0, 0, "fullwidth digit one");
    parse_case(ctx, "gpu:2147483648", RA_E_DEVICE_SYNTAX, 0, 0, "index above INT32_MAX");
    parse_case(ctx, "gpu:99999999999", RA_E_DEVICE_SYNTAX, 0, 0, "index overflow");
    parse_case(ctx, "gpu:99999999999999999999999", RA_E_DEVICE_SYNTAX, 0, 0,
               "index beyond 64 bits");
    parse_case(ctx, "cuda+remat", RA_E_DEVICE_SYNTAX, 0, 0, "non-letter in type");
    ra_ctx_destroy(ctx);
}

DT_TEST(parse_messages)
{
    ra_ctx *ctx = open_ctx();
    ra_device d;
    /* The message quotes the input and says what is wrong. */
    ra_device_parse(ctx, "GPU:0", &d);
    ASSERT_MESSAGE(ctx, "'GPU:0'", "the message quotes the input");
    ASSERT_MESSAGE(ctx, "lower-case", "the message says types are lower-case");
    ra_device_parse(ctx, "gpu:01", &d);
    ASSERT_MESSAGE(ctx, "leading zero", "the message names the leading zero");
    ra_device_parse(ctx, "gpu:\xd9\xa1", &d);
    ASSERT_MESSAGE(ctx, "\\xd9\\xa1", "non-ASCII bytes are escaped in the message");
    ASSERT_STATUS(ctx, ra_device_parse(ctx, NULL, &d), RA_E_NULL, "parse NULL text is RA_E_NULL");
    ASSERT_STR(ra_status_kind(RA_E_NULL), "TypeError", "NULL text is a TypeError kind");
    ASSERT_STATUS(ctx, ra_device_parse(ctx, "cpu", NULL), RA_E_NULL, "parse NULL out");
    /* Without a context the detail goes to the context-free slot. */
    ASSERT_STATUS(NULL, ra_device_parse(NULL, "tpu:x", &d), RA_E_DEVICE_SYNTAX,
                  "parse without a context");
    ASSERT_MESSAGE(NULL, "'tpu:x'", "the context-free message quotes the input");
    ra_ctx_destroy(ctx);
}

DT_TEST(format)
{
    ra_ctx *ctx = open_ctx();
    ra_device d;
    char buf[RA_DEVICE_STR_MAX];
    /* Formatting: the canonical string. */
    ASSERT_INT(ra_device_format(RA_CPU, buf, sizeof buf), RA_OK, "format cpu");
    ASSERT_STR(buf, "cpu", "DRAFT-STR-2 cpu's canonical string has no index");
    ra_device g3 = {RA_DEVICE_GPU, 3};
    ra_device_format(g3, buf, sizeof buf);
    ASSERT_STR(buf, "gpu:3", "DRAFT-STR-2 gpu:3 prints with its index");
    ra_device_parse(ctx, "gpu", &d);
    ra_device_format(d, buf, sizeof buf);
    ASSERT_STR(buf, "gpu:0", "gpu prints as gpu:0");
    ra_device c1 = {RA_DEVICE_CPU, 1};
    ra_device_format(c1, buf, sizeof buf);
    ASSERT_STR(buf, "cpu:1", "cpu:1 prints with its index");
    ra_device tmax = {RA_DEVICE_TPU, INT32_MAX};
    ASSERT_INT(ra_device_format(tmax, buf, sizeof buf), RA_OK, "RA_DEVICE_STR_MAX suffices");
    ASSERT_STR(buf, "tpu:2147483647", "the longest string");
    char small[4];
    ASSERT_INT(ra_device_format(g3, small, sizeof small), RA_E_BUFFER, "too small a buffer");
    ASSERT_STR(small, "", "a too small buffer is left empty");
    ASSERT_INT(ra_device_format(g3, NULL, 8), RA_E_NULL, "format into NULL");
    ra_device bad = {(ra_device_type)9, 0};
    ASSERT_INT(ra_device_format(bad, buf, sizeof buf), RA_E_ARG, "format an invalid type");
    /* -1 is RA_DEVICE_INDEX_CURRENT (test_current.c); other negative indices are invalid. */
    ra_device neg = {RA_DEVICE_GPU, -2};
    ASSERT_INT(ra_device_format(neg, buf, sizeof buf), RA_E_ARG, "format a negative index");
    /* Round trip: parse(format(d)) == d. */
    const char *texts[] = {"cpu", "gpu:0", "gpu:7", "tpu:0", "cpu:5"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        ra_device a, b;
        ra_device_parse(ctx, texts[i], &a);
        ra_device_format(a, buf, sizeof buf);
        ra_device_parse(ctx, buf, &b);
        CHECK(ra_device_eq(a, b) && strcmp(buf, texts[i]) == 0,
              "DRAFT-STR-2 '%s' round-trips through the canonical string", texts[i]);
    }
    ASSERT_STR(ra_device_type_name(RA_DEVICE_GPU), "gpu", "type name gpu");
    CHECK(ra_device_type_name((ra_device_type)0) == NULL, "no name for an invalid type");
    ra_ctx_destroy(ctx);
}

DT_TEST(equality_and_constructors)
{
    ra_ctx *ctx = open_ctx();
    ra_device d;
    /* Equality (DEV-DS-4). */
    ra_device a, b;
    ra_device_parse(ctx, "cpu", &a);
    ra_device_parse(ctx, "cpu:0", &b);
    CHECK(ra_device_eq(a, b), "DEV-DS-4 cpu == cpu:0");
    ra_device_parse(ctx, "gpu:1", &b);
    CHECK(!ra_device_eq(a, b), "DEV-DS-4 cpu != gpu:1");
    ra_device_parse(ctx, "gpu:0", &a);
    CHECK(!ra_device_eq(a, b), "DEV-DS-4 gpu:0 != gpu:1");

    /* (type, index) and the legacy ordinal. */
    ASSERT_STATUS(ctx, ra_device_from_type_index(ctx, "gpu", 1, &d), RA_OK, "from (gpu, 1)");
    ASSERT_DEV(d, b, "(gpu, 1) is gpu:1");
    ASSERT_STATUS(ctx, ra_device_from_type_index(ctx, "cpu", 0, &d), RA_OK, "from (cpu, 0)");
    ASSERT_DEV(d, RA_CPU, "(cpu, 0) is cpu");
    ASSERT_STATUS(ctx, ra_device_from_type_index(ctx, "gpu", -1, &d), RA_E_ARG,
                  "(gpu, -1) is rejected");
    ASSERT_STATUS(ctx, ra_device_from_type_index(ctx, "gpu", (int64_t)INT32_MAX + 1, &d), RA_E_ARG,
                  "(gpu, 2^31) is rejected");
    ASSERT_STATUS(ctx, ra_device_from_type_index(ctx, "gpu:0", 1, &d), RA_E_DEVICE_SYNTAX,
                  "a type with an index is rejected");
    ASSERT_STATUS(ctx, ra_device_from_type_index(ctx, "cuda", 0, &d), RA_E_DEVICE_TYPE,
                  "an unknown type is rejected");
    ASSERT_STATUS(ctx, ra_device_from_type_index(ctx, NULL, 0, &d), RA_E_NULL, "NULL type");
    ASSERT_STATUS(ctx, ra_device_from_type_index(ctx, "cpu", 0, NULL), RA_E_NULL, "NULL out");
    ASSERT_STATUS(ctx, ra_device_from_ordinal(ctx, 1, &d), RA_OK, "from ordinal 1");
    ASSERT_DEV(d, b, "ordinal 1 is gpu:1");
    ASSERT_STATUS(ctx, ra_device_from_ordinal(ctx, -1, &d), RA_E_ARG, "ordinal -1 rejected");
    ASSERT_STATUS(ctx, ra_device_from_ordinal(ctx, (int64_t)1 << 40, &d), RA_E_ARG,
                  "ordinal 2^40 rejected");
    ASSERT_STATUS(ctx, ra_device_from_ordinal(ctx, 0, NULL), RA_E_NULL, "ordinal NULL out");
    ra_ctx_destroy(ctx);
}

DT_TEST(availability)
{
    ra_device c1 = {RA_DEVICE_CPU, 1};
    ra_device bad = {(ra_device_type)9, 0};
    ra_ctx *ctx = open_ctx();
    ra_device tpu = {RA_DEVICE_TPU, 0};
    /* Availability: cpu always; tpu and cpu:1 never; gpu:N only with OpenCL devices. */
    CHECK(ra_device_is_available(ctx, RA_CPU), "cpu is available");
    ASSERT_STATUS(ctx, ra_device_check(ctx, RA_CPU), RA_OK, "check cpu");
    CHECK(!ra_device_is_available(ctx, tpu), "tpu is never available");
    ASSERT_STATUS(ctx, ra_device_check(ctx, tpu), RA_E_DEVICE_UNAVAILABLE,
                  "DRAFT-STR-9 check tpu:0 is a ValueError kind");
    ASSERT_MESSAGE(ctx, "'tpu:0'", "the message names the device");
    ASSERT_MESSAGE(ctx, "available: cpu", "the message lists the available devices");
    CHECK(!ra_device_is_available(ctx, c1), "cpu:1 is not available");
    ASSERT_STATUS(ctx, ra_device_check(ctx, c1), RA_E_DEVICE_UNAVAILABLE, "check cpu:1");
    ra_device g_absent = {RA_DEVICE_GPU, ra_util_num_gpus(ctx)};
    ASSERT_STATUS(ctx, ra_device_check(ctx, g_absent), RA_E_DEVICE_UNAVAILABLE,
                  "the gpu after the last is not available");
    ASSERT_STATUS(ctx, ra_device_check(ctx, bad), RA_E_ARG, "check an invalid value");
    ASSERT_STATUS(NULL, ra_device_check(NULL, RA_CPU), RA_E_NULL, "check with NULL ctx");
    CHECK(!ra_device_is_available(NULL, RA_CPU), "nothing is available without a context");
    ra_ctx_destroy(ctx);
}

DT_TEST(props_and_streams)
{
    ra_ctx *ctx = open_ctx();
    char buf[RA_DEVICE_STR_MAX];
    ra_device tpu = {RA_DEVICE_TPU, 0};
    /* Properties and default streams of every device. */
    ra_device devs[16];
    size_t n = list_devices(ctx, devs);
    for (size_t i = 0; i < n; i++) {
        ra_device_props p = RA_DEVICE_PROPS_INIT;
        ASSERT_STATUS(ctx, ra_device_props_get(ctx, devs[i], &p), RA_OK, "props of %s",
                      dev_str(devs[i], buf));
        CHECK(p.total_memory > 0 && p.name[0] && p.backend[0],
              "%s: backend %s, name '%s', %llu bytes", buf, p.backend, p.name,
              (unsigned long long)p.total_memory);
        void *stream = (void *)1;
        ASSERT_STATUS(ctx, ra_device_default_stream(ctx, devs[i], &stream), RA_OK,
                      "default stream of %s", buf);
        if (devs[i].type == RA_DEVICE_CPU)
            CHECK(stream == NULL, "cpu has no stream: its default is NULL");
        else
            CHECK(stream != NULL, "%s has a default queue", buf);
    }
    ra_device_props p = RA_DEVICE_PROPS_INIT;
    ASSERT_STATUS(ctx, ra_device_props_get(ctx, tpu, &p), RA_E_DEVICE_UNAVAILABLE, "props of tpu");

    /* The size field (refarray.h, "Conventions"). */
    ra_device_props zero = {0};
    ASSERT_STATUS(ctx, ra_device_props_get(ctx, RA_CPU, &zero), RA_OK, "props with size 0");
    ASSERT_STR(zero.backend, "host", "size 0 fills the first layout");
    ra_device_props tiny = {.size = 4};
    ASSERT_STATUS(ctx, ra_device_props_get(ctx, RA_CPU, &tiny), RA_E_ARG,
                  "props with a size below the first layout");
    ASSERT_MESSAGE(ctx, "size is 4", "the message names the size");
    /* A caller compiled with a larger struct: its extra bytes come back zero. */
    struct {
        ra_device_props p;
        unsigned char later[8];
    } big;
    memset(&big, 0xAB, sizeof big);
    big.p.size = sizeof big;
    ASSERT_STATUS(ctx, ra_device_props_get(ctx, RA_CPU, &big.p), RA_OK, "props with a larger size");
    CHECK(big.later[0] == 0 && big.later[7] == 0 && big.p.size == sizeof big,
          "bytes beyond this library's struct are zeroed, the size kept");
    ASSERT_STR(big.p.backend, "host", "a larger size fills every field");
    ASSERT_STATUS(ctx, ra_device_props_get(ctx, RA_CPU, NULL), RA_E_NULL, "props NULL out");
    ASSERT_STATUS(NULL, ra_device_props_get(NULL, RA_CPU, &p), RA_E_NULL, "props NULL ctx");
    void *s;
    ASSERT_STATUS(ctx, ra_device_default_stream(ctx, tpu, &s), RA_E_DEVICE_UNAVAILABLE,
                  "stream of tpu");
    ASSERT_STATUS(ctx, ra_device_default_stream(ctx, RA_CPU, NULL), RA_E_NULL, "stream NULL out");
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(parse), DT_ENTRY(parse_messages), DT_ENTRY(format),
        DT_ENTRY(equality_and_constructors), DT_ENTRY(availability), DT_ENTRY(props_and_streams))
