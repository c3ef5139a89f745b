/*
 * serve_test: the out-of-process loop (ds_shim_serve) on its own, with the template's toy
 * adapter linked in: CRLF line ends, a last line without a newline, an oversized line in
 * the middle, end of input, and bye ending the loop before the lines after it.
 */
#define _POSIX_C_SOURCE 200809L

#include "devspec_shim.h"
#include "dtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(bool pass, const char *what, const char *got)
{
    if (!pass) dt_fail(__FILE__, __LINE__, "%s\n#   observed: %s", what, got ? got : "(nothing)");
}

/* Serves `input` and returns the replies (malloc'd); *status gets the loop's result. Not
 * inlined: GCC 12 at -O3 then takes a pointer into the returned text for one into the local
 * `out` whose address open_memstream holds (-Wdangling-pointer, a false positive). */
__attribute__((noinline)) static char *serve(const char *input, size_t len, int *status)
{
    FILE *in = fmemopen((void *)input, len, "r");
    char *out = NULL;
    size_t out_len = 0;
    FILE *o = open_memstream(&out, &out_len);
    *status = ds_shim_serve(in, o, devspec_adapter_call, devspec_adapter_free);
    fclose(in);
    fclose(o);
    return out;
}

static int count_lines(const char *s)
{
    int k = 0;
    for (; *s; s++)
        k += *s == '\n';
    return k;
}

DT_TEST(serve)
{
    int status;
    static const char crlf[] = "{\"id\":1,\"op\":\"hello\",\"args\":{\"protocol\":1}}\r\n"
                               "{\"id\":2,\"op\":\"info.devices\"}\r\n"
                               "{\"id\":3,\"op\":\"reset\"}";
    char *out = serve(crlf, sizeof crlf - 1, &status);
    check(status == 0, "end of input ends the loop with 0", out);
    check(count_lines(out) == 3, "three requests, three reply lines", out);
    check(strstr(out, "{\"id\":1,\"ok\":true") != NULL, "a CRLF line is a request", out);
    check(strstr(out, "{\"id\":3,\"ok\":true,\"result\":null}\n") != NULL,
          "a last line without newline is answered, with a newline", out);
    free(out);

    size_t big = (size_t)DS_PROTOCOL_MAX_LINE + 100;
    char *input = malloc(big + 200);
    size_t len = 0;
    len += (size_t)sprintf(input, "{\"id\":4,\"op\":\"reset\"}\n");
    memset(input + len, 'x', big);
    len += big;
    input[len++] = '\n';
    len += (size_t)sprintf(input + len, "{\"id\":5,\"op\":\"reset\"}\n{\"id\":6,\"op\":\"bye\"}\n"
                                        "{\"id\":7,\"op\":\"reset\"}\n");
    out = serve(input, len, &status);
    check(strstr(out, "\"id\":null,\"ok\":false") != NULL &&
              strstr(out, "longer than the limit") != NULL,
          "an oversized line is refused with a message", out);
    check(strstr(out, "{\"id\":5,\"ok\":true") != NULL, "the line after it is answered", out);
    check(strstr(out, "{\"id\":6,\"ok\":true") != NULL && strstr(out, "\"id\":7") == NULL,
          "bye ends the loop: the line after it is not read", out);
    check(count_lines(out) == 4 && status == 0, "four replies, status 0", out);
    free(out);
    free(input);

    out = serve("", 0, &status);
    check(status == 0 && out[0] == '\0', "empty input: no reply, status 0", out);
    free(out);
}

/* A request of exactly DS_PROTOCOL_MAX_LINE bytes is within the limit with a CRLF end as
 * with a LF end: the CR is not part of the request (spec/protocol.md, "Transports"). One
 * byte more is too long either way. */
DT_TEST(longest_line_with_cr)
{
    size_t pad = DS_PROTOCOL_MAX_LINE - strlen("{\"id\":5,\"op\":\"reset\",\"x\":\"\"}");
    const char *hello = "{\"id\":1,\"op\":\"hello\",\"args\":{\"protocol\":1}}\n";
    size_t cap = strlen(hello) + 2 * DS_PROTOCOL_MAX_LINE + 16;
    char *in = malloc(cap);
    for (int extra = 0; extra < 2; extra++) {
        size_t n = (size_t)sprintf(in, "%s{\"id\":5,\"op\":\"reset\",\"x\":\"", hello);
        memset(in + n, 'a', pad + (size_t)extra);
        n += pad + (size_t)extra;
        memcpy(in + n, "\"}\r\n", 4);
        n += 4;
        int status;
        char *out = serve(in, n, &status);
        bool long_err = strstr(out, "longer than the limit") != NULL;
        if (extra == 0)
            /* read whole: the shim answers it (the unknown "x" is its own protocol error) */
            check(!long_err && strstr(out, "{\"id\":5,") != NULL,
                  "a 1 MiB request with CRLF is read", out);
        else
            check(long_err, "a request one byte over 1 MiB with CRLF is too long", out);
        free(out);
    }
    free(in);
}

/* Duplicate keys anywhere in a request are a protocol error, and a request nested deeper
 * than the JSON reader's limit says so. */
DT_TEST(duplicate_keys_and_depth)
{
    int status;
    static const char dup[] = "{\"id\":1,\"op\":\"hello\",\"args\":{\"protocol\":1}}\n"
                              "{\"id\":2,\"op\":\"device.parse\",\"args\":{\"text\":\"toy:0\","
                              "\"text\":\"toy:1\"}}\n"
                              "{\"id\":3,\"op\":\"reset\",\"op\":\"bye\"}\n";
    char *out = serve(dup, sizeof dup - 1, &status);
    check(strstr(out, "{\"id\":2,\"ok\":false") && strstr(out, "key \\\"text\\\" twice") &&
              strstr(out, "{\"id\":3,\"ok\":false") && strstr(out, "key \\\"op\\\" twice"),
          "duplicate keys, in args and at the top, are refused naming the key", out);
    check(strstr(out, "\"origin\":\"protocol\"") != NULL, "of origin protocol", out);
    free(out);
    /* 90k distinct keys (within the 1 MiB line): answered (as an unknown argument), not
     * refused as duplicates */
    size_t cap = 2000000, n = 0;
    char *big = malloc(cap);
    n += (size_t)sprintf(big + n, "{\"id\":1,\"op\":\"hello\",\"args\":{\"protocol\":1}}\n");
    n += (size_t)sprintf(big + n, "{\"id\":4,\"op\":\"reset\",\"args\":{");
    for (int k = 0; k < 90000; k++)
        n += (size_t)sprintf(big + n, "%s\"%x\":0", k ? "," : "", k);
    n += (size_t)sprintf(big + n, "}}\n");
    out = serve(big, n, &status);
    check(strstr(out, "{\"id\":4,\"ok\":false") && !strstr(out, "twice"),
          "90k distinct keys are not duplicates", out);
    free(out);
    n = (size_t)sprintf(big, "{\"id\":1,\"op\":\"hello\",\"args\":{\"protocol\":1}}\n{\"id\":6,"
                             "\"op\":\"reset\",\"args\":{\"x\":");
    for (int k = 0; k < 1200; k++)
        big[n++] = '[';
    big[n++] = '\n';
    out = serve(big, n, &status);
    check(strstr(out, "nested deeper than 1000") != NULL, "deep nesting is named as such", out);
    free(out);
    free(big);
}

/* array.read of an array whose text could pass the 64 MiB reply limit is refused before
 * anything is allocated, with the id kept (spec/protocol.md, "Limits"); a small one reads. */
DT_TEST(read_limit)
{
    int status;
    static const char reqs[] =
        "{\"id\":1,\"op\":\"hello\",\"args\":{\"protocol\":1}}\n"
        "{\"id\":2,\"op\":\"array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[3000000],"
        "\"dtype\":\"float64\"}}\n"
        "{\"id\":3,\"op\":\"array.read\",\"args\":{\"array\":\"array#0\"}}\n"
        "{\"id\":4,\"op\":\"array.create\",\"args\":{\"fn\":\"zeros\",\"shape\":[3],"
        "\"dtype\":\"float64\"}}\n"
        "{\"id\":5,\"op\":\"array.read\",\"args\":{\"array\":\"array#1\"}}\n";
    char *out = serve(reqs, sizeof reqs - 1, &status);
    check(strstr(out, "{\"id\":3,\"ok\":false") && strstr(out, "MemoryError") &&
              strstr(out, "reply line"),
          "reading 3M float64 is refused with MemoryError naming the reply limit", out);
    check(strstr(out, "{\"id\":5,\"ok\":true") != NULL, "a small array still reads", out);
    free(out);
}

/* An unknown op whose name holds NULs is quoted in the error cut at 60 bytes, inside the
 * two-byte form of a NUL (the input the request fuzzer found): the reply stays UTF-8, the cut
 * character shown as U+FFFD. */
DT_TEST(error_message_cut_inside_a_character)
{
    int status;
    static const char reqs[] =
        "{\"id\":1,\"op\":\"hello\",\"args\":{\"protocol\":1}}\n"
        "{\"id\":4,\"op\":\"\030eaatroK\\u0000oK\\u0000u0000oK\\u0000r00oK\\u0000ratroK"
        "\\u0000oK\\u0000e2E3}2E\\u0000troK\\u0000oK\\u0000rat\"}\n";
    char *out = serve(reqs, sizeof reqs - 1, &status);
    const char *r4 = strstr(out, "{\"id\":4,\"ok\":false");
    check(r4 && strstr(r4, "unknown op") && strstr(r4, "oK\xEF\xBF\xBD\\\""),
          "the cut NUL is U+FFFD, not a lone 0xC0 byte", out);
    for (const unsigned char *p = (const unsigned char *)out; *p; p++)
        check(*p != 0xC0 && *p != 0xC1, "no 0xC0/0xC1 byte in the replies", out);
    free(out);
}

DT_MAIN(DT_ENTRY(serve), DT_ENTRY(longest_line_with_cr), DT_ENTRY(duplicate_keys_and_depth),
        DT_ENTRY(read_limit), DT_ENTRY(error_message_cut_inside_a_character))
