/* JUnit XML, the view CI systems show: <testsuites> for the run, one <testsuite> per case
 * file, one <testcase> per case with classname "devspec.<file>" and name the case ID
 * (unique, since case IDs are unique across the suite). The JSON report stays canonical.
 *
 *   fail -> <failure type="fail">; lacks -> <failure type="lacks">; error, crash, timeout -> <error
 * type="...">; skip -> <skipped>; xfail -> <skipped type="xfail">; xpass -> a pass with a
 *   <system-out> note, or <failure type="xpass"> with --strict. */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void dsr__xml_escape(dsr_buf *b, const char *s)
{
    size_t len = strlen(s);
    size_t i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '&':
            dsr__buf_puts(b, "&amp;");
            i++;
            continue;
        case '<':
            dsr__buf_puts(b, "&lt;");
            i++;
            continue;
        case '>':
            dsr__buf_puts(b, "&gt;");
            i++;
            continue;
        case '"':
            dsr__buf_puts(b, "&quot;");
            i++;
            continue;
        case '\'':
            dsr__buf_puts(b, "&apos;");
            i++;
            continue;
        case '\n':
            dsr__buf_puts(b, "&#10;");
            i++;
            continue;
        case '\t':
            dsr__buf_puts(b, "&#9;");
            i++;
            continue;
        default:
            break;
        }
        if (c < 0x20 || c == 0x7f) {
            /* XML 1.0 cannot hold these at all, not even as character references. */
            dsr__buf_puts(b, "?");
            i++;
            continue;
        }
        if (c == 0xC0 && (unsigned char)s[i + 1] == 0x80) {
            /* A NUL kept by dsjson: XML cannot hold it; the escape shows it was there. */
            dsr__buf_puts(b, "\\u0000");
            i += 2;
            continue;
        }
        if (c < 0x80) {
            dsr__buf_add(b, s + i, 1);
            i++;
            continue;
        }
        size_t n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
        if (n == 1 || i + n > len || dsr__utf8_invalid_at(s + i, n) >= 0) {
            dsr__buf_puts(b, "?");
            i++;
            continue;
        }
        /* U+FFFE and U+FFFF are not XML characters either. */
        if (n == 3 && c == 0xEF && (unsigned char)s[i + 1] == 0xBF &&
            (unsigned char)s[i + 2] >= 0xBE) {
            dsr__buf_puts(b, "?");
            i += 3;
            continue;
        }
        dsr__buf_add(b, s + i, n);
        i += n;
    }
}

static void attr(dsr_buf *b, const char *name, const char *value)
{
    dsr__buf_printf(b, " %s=\"", name);
    dsr__xml_escape(b, value ? value : "");
    dsr__buf_puts(b, "\"");
}

static void file_class(dsr_buf *b, const char *file)
{
    /* "devspec.creation" for "creation.json"; sub/dir.json -> devspec.sub.dir */
    dsr__buf_puts(b, "devspec.");
    size_t n = strlen(file);
    if (n > 5 && !strcmp(file + n - 5, ".json")) n -= 5;
    for (size_t i = 0; i < n; i++)
        dsr__buf_add(b, file[i] == '/' ? "." : file + i, 1);
}

static void details(dsr_buf *b, const dsr_result *r)
{
    dsr_buf t = {0};
    dsr__buf_printf(&t, "%s\n", r->reason ? r->reason : "");
    if (r->step >= 0) dsr__buf_printf(&t, "step %d: %s\n", r->step, r->c->steps[r->step].op);
    if (r->expected) {
        char *s = dsr__print(r->expected, false);
        dsr__buf_printf(&t, "expected: %s\n", s ? s : "");
        cJSON_free(s);
    }
    if (r->observed) {
        char *s = dsr__print(r->observed, false);
        dsr__buf_printf(&t, "observed: %s\n", s ? s : "");
        cJSON_free(s);
    }
    dsr__xml_escape(b, t.data);
    dsr__buf_free(&t);
}

/* Ends <testcase>'s start tag; a case run once more after an intermittent crash gets
 * <properties> first (the schema's order) with the first run's crash: first_run (its
 * message), first_run.death, first_run.expectation (the entry's line) and first_run.stderr. */
static void open_body(dsr_buf *b, const dsr_result *r)
{
    dsr__buf_puts(b, ">\n");
    if (!r->first) return;
    char line[16];
    snprintf(line, sizeof line, "%d", r->first->entry->line);
    const char *names[] = {"first_run", "first_run.death", "first_run.expectation",
                           "first_run.stderr"};
    const char *values[] = {r->first->reason ? r->first->reason : "", r->first->death, line,
                            r->first->stderr_tail};
    dsr__buf_puts(b, "      <properties>\n");
    for (int i = 0; i < 4; i++) {
        if (!values[i]) continue;
        dsr__buf_puts(b, "        <property");
        attr(b, "name", names[i]);
        attr(b, "value", values[i]);
        dsr__buf_puts(b, "/>\n");
    }
    dsr__buf_puts(b, "      </properties>\n");
}

/* One <testcase> and what it holds. */
static void testcase(dsr_buf *b, const dsr_result *r, bool strict)
{
    dsr__buf_puts(b, "    <testcase");
    dsr_buf cls = {0};
    file_class(&cls, r->c->file->name);
    attr(b, "classname", cls.data);
    dsr__buf_free(&cls);
    attr(b, "name", r->c->id);
    dsr__buf_printf(b, " time=\"%.6f\"", r->duration);
    const char *reason = r->reason ? r->reason : "";
    switch (r->status) {
    case DSR_PASS:
        if (!r->first) {
            dsr__buf_puts(b, "/>\n");
            return;
        }
        open_body(b, r);
        dsr__buf_puts(b, "    </testcase>\n");
        return;
    case DSR_XPASS:
        if (strict) {
            open_body(b, r);
            dsr__buf_puts(b, "      <failure type=\"xpass\"");
            attr(b, "message", "unexpected pass (--strict)");
            dsr__buf_puts(b, "/>\n    </testcase>\n");
            return;
        }
        open_body(b, r);
        dsr__buf_puts(b, "      <system-out>");
        dsr__xml_escape(b, "unexpected pass: the expectations file lists this case as ");
        dsr__xml_escape(b, dsr__status_name(r->expectation->status));
        dsr__buf_puts(b, "</system-out>\n    </testcase>\n");
        return;
    case DSR_SKIP:
        open_body(b, r);
        dsr__buf_puts(b, "      <skipped");
        attr(b, "message", reason);
        dsr__buf_puts(b, "/>\n");
        break;
    case DSR_XFAIL:
        open_body(b, r);
        dsr__buf_puts(b, "      <skipped type=\"xfail\"");
        attr(b, "message", r->expectation->reason);
        dsr__buf_puts(b, ">");
        details(b, r);
        dsr__buf_puts(b, "</skipped>\n");
        break;
    case DSR_FAIL:
    case DSR_LACKS:
        open_body(b, r);
        dsr__buf_printf(b, "      <failure type=\"%s\"", dsr__status_name(r->status));
        attr(b, "message", reason);
        dsr__buf_puts(b, ">");
        details(b, r);
        dsr__buf_puts(b, "</failure>\n");
        break;
    default:
        open_body(b, r);
        dsr__buf_puts(b, "      <error");
        attr(b, "type", dsr__status_name(r->status));
        attr(b, "message", reason);
        dsr__buf_puts(b, ">");
        details(b, r);
        dsr__buf_puts(b, "</error>\n");
        break;
    }
    if (r->stderr_tail) {
        dsr__buf_puts(b, "      <system-err>");
        dsr__xml_escape(b, r->stderr_tail);
        dsr__buf_puts(b, "</system-err>\n");
    }
    dsr__buf_puts(b, "    </testcase>\n");
}

int dsr__junit_write(const char *path, const dsr_result *results, int n, const cJSON *header,
                     double total_time, bool strict, char *err, size_t errlen)
{
    dsr_buf b = {0};
    int counts[DSR_STATUS_COUNT] = {0};
    for (int i = 0; i < n; i++)
        counts[results[i].status]++;
    dsr__buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
    attr(&b, "name", "devspec");
    dsr__buf_printf(&b,
                    " tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n",
                    n, counts[DSR_FAIL] + counts[DSR_LACKS],
                    counts[DSR_ERROR] + counts[DSR_CRASH] + counts[DSR_TIMEOUT],
                    counts[DSR_SKIP] + counts[DSR_XFAIL], total_time);
    const cJSON *lib = cJSON_GetObjectItemCaseSensitive(header, "library");
    const cJSON *ln = cJSON_GetObjectItemCaseSensitive(lib, "name");
    const cJSON *lv = cJSON_GetObjectItemCaseSensitive(lib, "version");
    const cJSON *ad = cJSON_GetObjectItemCaseSensitive(header, "adapter");
    const cJSON *al = cJSON_GetObjectItemCaseSensitive(ad, "label");
    const cJSON *suite = cJSON_GetObjectItemCaseSensitive(header, "suite");
    const cJSON *commit = cJSON_GetObjectItemCaseSensitive(suite, "commit");
    const cJSON *started = cJSON_GetObjectItemCaseSensitive(header, "started");
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(header, "environment");
    const cJSON *host = cJSON_GetObjectItemCaseSensitive(env, "hostname");

    for (int i = 0; i < n;) {
        const dsr_file *f = results[i].c->file;
        int j = i;
        int fc[DSR_STATUS_COUNT] = {0};
        double t = 0;
        while (j < n && results[j].c->file == f) {
            fc[results[j].status]++;
            t += results[j].duration;
            j++;
        }
        dsr__buf_puts(&b, "  <testsuite");
        attr(&b, "name", f->name);
        attr(&b, "file", f->name);
        dsr__buf_printf(
            &b, " tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\"", j - i,
            fc[DSR_FAIL] + fc[DSR_LACKS], fc[DSR_ERROR] + fc[DSR_CRASH] + fc[DSR_TIMEOUT],
            fc[DSR_SKIP] + fc[DSR_XFAIL], t);
        attr(&b, "timestamp", cJSON_IsString(started) ? started->valuestring : "");
        attr(&b, "hostname", cJSON_IsString(host) ? host->valuestring : "localhost");
        dsr__buf_puts(&b, ">\n    <properties>\n");
        const struct {
            const char *k;
            const cJSON *v;
        } props[] = {
            {"library", ln}, {"library.version", lv}, {"adapter", al}, {"suite.commit", commit}};
        for (size_t p = 0; p < sizeof props / sizeof props[0]; p++) {
            dsr__buf_puts(&b, "      <property");
            attr(&b, "name", props[p].k);
            attr(&b, "value", cJSON_IsString(props[p].v) ? props[p].v->valuestring : "");
            dsr__buf_puts(&b, "/>\n");
        }
        dsr__buf_puts(&b, "    </properties>\n");
        for (; i < j; i++)
            testcase(&b, &results[i], strict);
        dsr__buf_puts(&b, "  </testsuite>\n");
    }
    dsr__buf_puts(&b, "</testsuites>\n");
    int rc = dsr__write_file_atomic(path, b.data, b.len);
    if (rc != 0) snprintf(err, errlen, "write failed");
    dsr__buf_free(&b);
    return rc;
}

/* ---- JUnit as a reporter: the file is written at the end, from every result ------------- */

typedef struct junit_reporter {
    dsr_reporter base;
    const char *path;
    bool strict;
    cJSON *header;
    char *adapter_error; /* the adapter did not start: one testcase in error says so */
} junit_reporter;

/* A run that never started: one testcase in error, so that CI shows it as a failure rather
 * than an empty success. */
static int write_not_started(const char *path, const char *adapter_error, double elapsed)
{
    dsr_buf b = {0};
    dsr__buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
    attr(&b, "name", "devspec");
    dsr__buf_printf(&b, " tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"%.3f\">\n",
                    elapsed);
    dsr__buf_puts(&b,
                  "  <testsuite name=\"devspec\" tests=\"1\" failures=\"0\" errors=\"1\" "
                  "skipped=\"0\">\n    <testcase classname=\"devspec\" name=\"adapter start\">\n"
                  "      <error type=\"startup\"");
    dsr_buf why = {0};
    dsr__buf_printf(&why, "no case ran: the adapter did not start: %s", adapter_error);
    attr(&b, "message", why.data);
    dsr__buf_puts(&b, "/>\n    </testcase>\n  </testsuite>\n</testsuites>\n");
    int rc = dsr__write_file_atomic(path, b.data, b.len);
    dsr__buf_free(&why);
    dsr__buf_free(&b);
    return rc;
}

static bool junit_begin(dsr_reporter *self, const dsr_run_state *r, const cJSON *header,
                        const char *adapter_error)
{
    (void)r;
    (void)adapter_error;
    junit_reporter *j = (junit_reporter *)self;
    j->header = cJSON_Duplicate(header, true);
    if (adapter_error) j->adapter_error = dsr__xstrdup(adapter_error);
    return true;
}

static void junit_case(dsr_reporter *self, const dsr_result *res)
{
    (void)self;
    (void)res;
}

static bool junit_end(dsr_reporter *self, const dsr_run_state *r, const cJSON *footer,
                      double elapsed)
{
    (void)footer;
    junit_reporter *j = (junit_reporter *)self;
    char err[512];
    errno = 0;
    int rc = dsr__mkdir_parents(j->path);
    if (rc == 0 && j->adapter_error)
        rc = write_not_started(j->path, j->adapter_error, elapsed);
    else if (rc == 0)
        rc = dsr__junit_write(j->path, r->results, r->nresults, j->header, elapsed, j->strict, err,
                              sizeof err);
    if (rc != 0) {
        fprintf(stderr, "devspec: cannot write %s: %s\n", j->path,
                errno ? dsr__strerror(errno) : err);
        return false;
    }
    return true;
}

static void junit_destroy(dsr_reporter *self)
{
    junit_reporter *j = (junit_reporter *)self;
    cJSON_Delete(j->header);
    free(j->adapter_error);
    free(j);
}

dsr_reporter *dsr__junit_reporter(const char *path, bool strict)
{
    junit_reporter *j = dsr__xmalloc(sizeof *j);
    memset(j, 0, sizeof *j);
    j->path = path;
    j->strict = strict;
    j->base = (dsr_reporter){junit_begin, junit_case, NULL, junit_end, junit_destroy};
    return &j->base;
}
