/*
 * serve.c: the out-of-process transport. Reads one request per line, answers each with one
 * reply line (spec/protocol.md, "Transports").
 */
#include "shim_internal.h"

#include <stdlib.h>
#include <string.h>

/* Reads one line into buf (cap >= DS_PROTOCOL_MAX_LINE + 2). Returns the line's length
 * without its newline and without a '\r' before it; -1 at end of input with nothing read; -2
 * for a line longer than the limit, which is consumed up to its newline. A last line without
 * newline counts. The limit is on the request: a line of DS_PROTOCOL_MAX_LINE bytes and a
 * '\r' is within it, since the '\r' is not part of the request. */
static long read_line(FILE *in, char *buf, size_t cap, size_t *too_long_len)
{
    size_t n = 0;
    int c;
    bool any = false;
    *too_long_len = 0;
    while ((c = getc(in)) != EOF) {
        any = true;
        if (c == '\n') break;
        if (n < cap - 1) buf[n] = (char)c;
        n++;
    }
    if (!any) return -1;
    bool cr = n > 0 && n <= cap - 1 && buf[n - 1] == '\r';
    if (n - cr > (size_t)DS_PROTOCOL_MAX_LINE) {
        *too_long_len = n;
        return -2;
    }
    n -= cr;
    buf[n] = '\0';
    return (long)n;
}

/* Whether the request was `bye` and got a successful reply: the loop then ends. */
static bool said_bye(const char *request, size_t len, const char *reply)
{
    bool bye = false;
    if (strstr(request, "bye") == NULL) return false;
    cJSON *req = dsj_parse_with(request, len, &(dsj_parse_options){.pack_data = true}, NULL, NULL);
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(req, "op");
    if (cJSON_IsString(op) && strcmp(op->valuestring, "bye") == 0)
        bye = strstr(reply, "\"ok\":true") != NULL;
    cJSON_Delete(req);
    return bye;
}

int ds_shim_serve(FILE *in, FILE *out, devspec_adapter_call_fn call,
                  devspec_adapter_free_fn release)
{
    size_t cap = (size_t)DS_PROTOCOL_MAX_LINE + 2; /* the line, a CR, a NUL */
    char *buf = malloc(cap);
    int status = 0;
    if (buf == NULL) {
        fputs("devspec shim: out of memory for the line buffer\n", stderr);
        return 1;
    }
    for (;;) {
        size_t too_long;
        long n = read_line(in, buf, cap, &too_long);
        const char *reply;
        char msg[256];
        bool bye = false;
        if (n == -1) break;
        if (n == -2) {
            /* Too long to read at all: answered here, with the id unknown. */
            snprintf(msg, sizeof msg,
                     "{\"id\":null,\"ok\":false,\"error\":{\"kind\":\"ValueError\",\"message\":"
                     "\"request line is %zu bytes, longer than the limit of %d bytes\","
                     "\"origin\":\"protocol\"}}",
                     too_long, DS_PROTOCOL_MAX_LINE);
            reply = msg;
        } else {
            reply = call(buf, (size_t)n, NULL);
            bye = said_bye(buf, (size_t)n, reply);
        }
        int w = fputs(reply, out) < 0 || fputc('\n', out) == EOF || fflush(out) != 0;
        if (reply != msg) release(reply);
        if (w) {
            fputs("devspec shim: cannot write a reply; stopping\n", stderr);
            status = 1;
            break;
        }
        if (bye) break;
    }
    free(buf);
    return status;
}
