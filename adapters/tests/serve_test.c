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

/* Serves `input` and returns the replies (malloc'd); *status gets the loop's result. */
static char *serve(const char *input, size_t len, int *status)
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

DT_MAIN(DT_ENTRY(serve))
