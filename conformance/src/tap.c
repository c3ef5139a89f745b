/* TAP on stdout: one subtest per case file, one test point per case, the plans at the
 * end so the output streams. The stream is the same in both versions but for its first
 * line: "TAP version 13" (the default) is what TAP::Harness 3.44, Debian 12's prove, knows;
 * its parser takes the indented subtest lines as unknown lines and judges the stream by the
 * top-level test points, one per file. "TAP version 14" (--tap-version 14) declares the
 * subtests to consumers that read them.
 *
 *   pass -> ok; skip -> ok # SKIP reason; xfail -> not ok # TODO reason;
 *   xpass -> ok # TODO reason (a "TODO passed"); fail, error, crash, timeout, lacks -> not
 *   ok with a YAML block holding status, message, expected, observed and location (and, for
 *   lacks, what the library lacks: "lacks: arange").
 *
 * A file's test point is "not ok" when one of its cases is unexpected. A case run once more
 * after an intermittent crash has a comment line before its test point that says so; a not
 * ok one's YAML block holds the first run's message too (first_run). */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct dsr_tap {
    FILE *out;
    const dsr_file *file; /* the open subtest */
    int sub_n;
    bool sub_bad;
    int top_n;
};

dsr_tap *dsr__tap_open(FILE *out, int version)
{
    dsr_tap *t = dsr__xmalloc(sizeof *t);
    memset(t, 0, sizeof *t);
    t->out = out;
    fprintf(out, "TAP version %d\n", version);
    fflush(out);
    return t;
}

void dsr__tap_comment(dsr_tap *t, const char *fmt, ...)
{
    va_list ap;
    char text[1024];
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* A comment may quote the library (its name and version): shown, never acted on. */
    fputs("# ", t->out);
    unsigned cp;
    size_t h;
    for (const char *p = text; *p; p++) {
        if ((h = dsr__hidden_char(p, &cp))) {
            fprintf(t->out, "\\u%04x", cp);
            p += h - 1;
        } else if ((unsigned char)*p < 0x20 || *p == 0x7f) {
            fprintf(t->out, "\\x%02x", (unsigned char)*p);
        } else {
            fputc(*p, t->out);
        }
    }
    fputc('\n', t->out);
}

/* TAP escapes only '\' and '#' in descriptions and directives; newlines end a line, so
 * they become spaces. */
static void put_escaped(FILE *out, const char *s)
{
    unsigned cp;
    size_t h;
    for (; *s; s++) {
        if (*s == '\\' || *s == '#') fputc('\\', out);
        if ((h = dsr__hidden_char(s, &cp))) {
            fprintf(out, "\\u%04x", cp); /* C1 and bidirectional controls: shown */
            s += h - 1;
        } else {
            fputc(*s == '\n' || *s == '\r' || (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s,
                  out);
        }
    }
}

void dsr__yaml_quote(dsr_buf *b, const char *s)
{
    unsigned cp;
    dsr__buf_puts(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            dsr__buf_printf(b, "\\%c", *p);
        else if (*p == '\n')
            dsr__buf_puts(b, "\\n");
        else if (*p == '\t')
            dsr__buf_puts(b, "\\t");
        else if (*p < 0x20 || *p == 0x7f)
            dsr__buf_printf(b, "\\x%02x", *p);
        else if (dsr__hidden_char((const char *)p, &cp)) {
            dsr__buf_printf(b, "\\u%04x", cp); /* YAML's escape of the same character */
            p += dsr__hidden_char((const char *)p, &cp) - 1;
        } else if (*p == 0xC0 && p[1] == 0x80) { /* a NUL kept by dsjson */
            dsr__buf_puts(b, "\\0");
            p++;
        } else
            dsr__buf_add(b, (const char *)p, 1);
    }
    dsr__buf_puts(b, "\"");
}

static void close_subtest(dsr_tap *t)
{
    if (!t->file) return;
    fprintf(t->out, "    1..%d\n", t->sub_n);
    t->top_n++;
    fprintf(t->out, "%sok %d - ", t->sub_bad ? "not " : "", t->top_n);
    put_escaped(t->out, t->file->name);
    fputc('\n', t->out);
    t->file = NULL;
    fflush(t->out);
}

static void yaml_line(dsr_buf *b, const char *key, const char *value)
{
    dsr__buf_printf(b, "      %s: ", key);
    dsr__yaml_quote(b, value);
    dsr__buf_puts(b, "\n");
}

static void yaml_json(dsr_buf *b, const char *key, const cJSON *v)
{
    char *s = dsr__print(v, false);
    yaml_line(b, key, s ? s : "");
    cJSON_free(s);
}

void dsr__tap_result(dsr_tap *t, const dsr_result *r)
{
    const dsr_case *c = r->c;
    if (t->file != c->file) {
        close_subtest(t);
        t->file = c->file;
        t->sub_n = 0;
        t->sub_bad = false;
        fputs("# Subtest: ", t->out);
        put_escaped(t->out, c->file->name);
        fputc('\n', t->out);
    }
    t->sub_n++;
    if (r->first) {
        fputs("    ", t->out);
        dsr__tap_comment(t,
                         "%s crashed (%s) and was run again on a fresh worker "
                         "(intermittent-crash, expectations line %d)",
                         c->id, r->first->death, r->first->entry->line);
    }
    bool bad = dsr__status_unexpected(r->status);
    t->sub_bad = t->sub_bad || bad;
    bool not_ok = bad || r->status == DSR_XFAIL;
    fprintf(t->out, "    %sok %d - ", not_ok ? "not " : "", t->sub_n);
    put_escaped(t->out, c->id);
    const char *why = r->expectation ? r->expectation->reason : "";
    if (r->status == DSR_SKIP) {
        fputs(" # SKIP ", t->out);
        put_escaped(t->out, r->reason ? r->reason : "");
    } else if (r->status == DSR_XFAIL) {
        fprintf(t->out, " # TODO expected %s: ", dsr__status_name(r->raw_status));
        put_escaped(t->out, why[0] ? why : "listed in the expectations file");
    } else if (r->status == DSR_XPASS) {
        fprintf(t->out,
                " # TODO unexpected pass, expected %s: ", dsr__status_name(r->expectation->status));
        put_escaped(t->out, why[0] ? why : "listed in the expectations file");
    }
    fputc('\n', t->out);
    if (not_ok) {
        dsr_buf b = {0};
        dsr__buf_puts(&b, "      ---\n");
        yaml_line(&b, "status", dsr__status_name(r->status));
        yaml_line(&b, "message", r->reason ? r->reason : "");
        if (r->lacks) yaml_line(&b, "lacks", r->lacks);
        if (r->step >= 0) {
            dsr__buf_printf(&b, "      step: %d\n", r->step);
            yaml_line(&b, "op", c->steps[r->step].op);
        }
        if (r->call) yaml_line(&b, "call", r->call);
        if (r->expected) yaml_json(&b, "expected", r->expected);
        if (r->observed) yaml_json(&b, "observed", r->observed);
        yaml_line(&b, "file", c->file->name);
        yaml_line(&b, "id", c->id);
        dsr_buf list = {0};
        for (int i = 0; i < c->nfeatures; i++)
            dsr__buf_printf(&list, "%s%s", i ? ", " : "", c->features[i]);
        yaml_line(&b, "features", list.data ? list.data : "");
        list.len = 0;
        for (int i = 0; i < c->nspec; i++)
            dsr__buf_printf(&list, "%s%s", i ? ", " : "", c->spec[i]);
        yaml_line(&b, "spec", list.data ? list.data : "");
        dsr__buf_free(&list);
        dsr__buf_printf(&b, "      duration_ms: %.3f\n", r->duration * 1e3);
        if (r->stderr_tail) yaml_line(&b, "stderr", r->stderr_tail);
        if (r->first) yaml_line(&b, "first_run", r->first->reason ? r->first->reason : "");
        dsr__buf_puts(&b, "      ...\n");
        fputs(b.data, t->out);
        dsr__buf_free(&b);
    }
}

void dsr__tap_bail(dsr_tap *t, const char *reason)
{
    close_subtest(t);
    fputs("Bail out! ", t->out);
    put_escaped(t->out, reason);
    fputc('\n', t->out);
    fflush(t->out);
}

void dsr__tap_close(dsr_tap *t)
{
    close_subtest(t);
    fprintf(t->out, "1..%d\n", t->top_n);
    fflush(t->out);
}

/* ---- TAP as a reporter ------------------------------------------------------------------ */

typedef struct tap_reporter {
    dsr_reporter base;
    dsr_tap *t;
    bool bailed;
} tap_reporter;

static bool tap_begin(dsr_reporter *self, const dsr_run_state *r, const cJSON *header,
                      const char *adapter_error)
{
    (void)header;
    tap_reporter *t = (tap_reporter *)self;
    if (adapter_error) {
        /* a run that never started must not read like an empty success */
        dsr_buf why = {0};
        dsr__buf_printf(&why, "no case ran: the adapter did not start: %s", adapter_error);
        dsr__tap_bail(t->t, why.data);
        dsr__buf_free(&why);
        t->bailed = true;
        return true;
    }
    const cJSON *lib = cJSON_GetObjectItemCaseSensitive(r->hello, "library");
    const cJSON *ln = cJSON_GetObjectItemCaseSensitive(lib, "name");
    const cJSON *lv = cJSON_GetObjectItemCaseSensitive(lib, "version");
    dsr__tap_comment(t->t, "devspec %s; library %s %s; %s adapter; %d device%s bound",
                     DEVSPEC_VERSION, cJSON_IsString(ln) ? ln->valuestring : "?",
                     cJSON_IsString(lv) ? lv->valuestring : "?", r->o->transport, r->ndevices,
                     r->ndevices == 1 ? "" : "s");
    return true;
}

static void tap_case(dsr_reporter *self, const dsr_result *res)
{
    dsr__tap_result(((tap_reporter *)self)->t, res);
}

static void tap_flush(dsr_reporter *self)
{
    fflush(((tap_reporter *)self)->t->out);
}

static bool tap_end(dsr_reporter *self, const dsr_run_state *r, const cJSON *footer, double elapsed)
{
    (void)footer;
    (void)elapsed;
    tap_reporter *t = (tap_reporter *)self;
    if (t->bailed) return true;
    if (!r->complete)
        dsr__tap_bail(t->t, r->why_incomplete);
    else
        dsr__tap_close(t->t);
    return true;
}

static void tap_destroy(dsr_reporter *self)
{
    tap_reporter *t = (tap_reporter *)self;
    free(t->t);
    free(t);
}

dsr_reporter *dsr__tap_reporter(FILE *out, int version)
{
    tap_reporter *t = dsr__xmalloc(sizeof *t);
    memset(t, 0, sizeof *t);
    t->t = dsr__tap_open(out, version);
    t->base = (dsr_reporter){tap_begin, tap_case, tap_flush, tap_end, tap_destroy};
    return &t->base;
}
