/* JUnit XML, the view CI systems show: <testsuites> for the run, one <testsuite> per case
 * file, one <testcase> per case with classname "devspec.<file>" and name the case ID
 * (unique, since case IDs are unique across the suite). The JSON report stays canonical.
 *
 *   fail -> <failure type="fail">; error, crash, timeout -> <error type="...">;
 *   skip -> <skipped>; xfail -> <skipped type="xfail">; xpass -> a pass with a
 *   <system-out> note, or <failure type="xpass"> with --strict. */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <stdlib.h>
#include <string.h>

void ds__xml_escape(ds_buf *b, const char *s)
{
    size_t len = strlen(s);
    size_t i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '&':
            ds__buf_puts(b, "&amp;");
            i++;
            continue;
        case '<':
            ds__buf_puts(b, "&lt;");
            i++;
            continue;
        case '>':
            ds__buf_puts(b, "&gt;");
            i++;
            continue;
        case '"':
            ds__buf_puts(b, "&quot;");
            i++;
            continue;
        case '\'':
            ds__buf_puts(b, "&apos;");
            i++;
            continue;
        case '\n':
            ds__buf_puts(b, "&#10;");
            i++;
            continue;
        case '\t':
            ds__buf_puts(b, "&#9;");
            i++;
            continue;
        default:
            break;
        }
        if (c < 0x20 || c == 0x7f) {
            /* XML 1.0 cannot hold these at all, not even as character references. */
            ds__buf_puts(b, "?");
            i++;
            continue;
        }
        if (c < 0x80) {
            ds__buf_add(b, s + i, 1);
            i++;
            continue;
        }
        size_t n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
        if (n == 1 || i + n > len || ds__utf8_invalid_at(s + i, n) >= 0) {
            ds__buf_puts(b, "?");
            i++;
            continue;
        }
        /* U+FFFE and U+FFFF are not XML characters either. */
        if (n == 3 && c == 0xEF && (unsigned char)s[i + 1] == 0xBF &&
            (unsigned char)s[i + 2] >= 0xBE) {
            ds__buf_puts(b, "?");
            i += 3;
            continue;
        }
        ds__buf_add(b, s + i, n);
        i += n;
    }
}

static void attr(ds_buf *b, const char *name, const char *value)
{
    ds__buf_printf(b, " %s=\"", name);
    ds__xml_escape(b, value ? value : "");
    ds__buf_puts(b, "\"");
}

static void file_class(ds_buf *b, const char *file)
{
    /* "devspec.creation" for "creation.json"; sub/dir.json -> devspec.sub.dir */
    ds__buf_puts(b, "devspec.");
    size_t n = strlen(file);
    if (n > 5 && !strcmp(file + n - 5, ".json")) n -= 5;
    for (size_t i = 0; i < n; i++)
        ds__buf_add(b, file[i] == '/' ? "." : file + i, 1);
}

static void details(ds_buf *b, const ds_result *r)
{
    ds_buf t = {0};
    ds__buf_printf(&t, "%s\n", r->reason ? r->reason : "");
    if (r->step >= 0) ds__buf_printf(&t, "step %d: %s\n", r->step, r->c->steps[r->step].op);
    if (r->expected) {
        char *s = cJSON_PrintUnformatted(r->expected);
        ds__buf_printf(&t, "expected: %s\n", s ? s : "");
        cJSON_free(s);
    }
    if (r->observed) {
        char *s = cJSON_PrintUnformatted(r->observed);
        ds__buf_printf(&t, "observed: %s\n", s ? s : "");
        cJSON_free(s);
    }
    ds__xml_escape(b, t.data);
    ds__buf_free(&t);
}

int ds__junit_write(const char *path, const ds_result *results, int n, const cJSON *header,
                    double total_time, bool strict, char *err, size_t errlen)
{
    ds_buf b = {0};
    int counts[DS_STATUS_COUNT] = {0};
    for (int i = 0; i < n; i++)
        counts[results[i].status]++;
    ds__buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
    attr(&b, "name", "devspec");
    ds__buf_printf(&b,
                   " tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n", n,
                   counts[DS_FAIL], counts[DS_ERROR] + counts[DS_CRASH] + counts[DS_TIMEOUT],
                   counts[DS_SKIP] + counts[DS_XFAIL], total_time);
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
        const ds_file *f = results[i].c->file;
        int j = i;
        int fc[DS_STATUS_COUNT] = {0};
        double t = 0;
        while (j < n && results[j].c->file == f) {
            fc[results[j].status]++;
            t += results[j].duration;
            j++;
        }
        ds__buf_puts(&b, "  <testsuite");
        attr(&b, "name", f->name);
        attr(&b, "file", f->name);
        ds__buf_printf(&b,
                       " tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\"",
                       j - i, fc[DS_FAIL], fc[DS_ERROR] + fc[DS_CRASH] + fc[DS_TIMEOUT],
                       fc[DS_SKIP] + fc[DS_XFAIL], t);
        attr(&b, "timestamp", cJSON_IsString(started) ? started->valuestring : "");
        attr(&b, "hostname", cJSON_IsString(host) ? host->valuestring : "localhost");
        ds__buf_puts(&b, ">\n    <properties>\n");
        const struct {
            const char *k;
            const cJSON *v;
        } props[] = {
            {"library", ln}, {"library.version", lv}, {"adapter", al}, {"suite.commit", commit}};
        for (size_t p = 0; p < sizeof props / sizeof props[0]; p++) {
            ds__buf_puts(&b, "      <property");
            attr(&b, "name", props[p].k);
            attr(&b, "value", cJSON_IsString(props[p].v) ? props[p].v->valuestring : "");
            ds__buf_puts(&b, "/>\n");
        }
        ds__buf_puts(&b, "    </properties>\n");
        for (; i < j; i++) {
            const ds_result *r = &results[i];
            ds__buf_puts(&b, "    <testcase");
            ds_buf cls = {0};
            file_class(&cls, f->name);
            attr(&b, "classname", cls.data);
            ds__buf_free(&cls);
            attr(&b, "name", r->c->id);
            ds__buf_printf(&b, " time=\"%.6f\"", r->duration);
            const char *reason = r->reason ? r->reason : "";
            switch (r->status) {
            case DS_PASS:
                ds__buf_puts(&b, "/>\n");
                continue;
            case DS_XPASS:
                if (strict) {
                    ds__buf_puts(&b, ">\n      <failure type=\"xpass\"");
                    attr(&b, "message", "unexpected pass (--strict)");
                    ds__buf_puts(&b, "/>\n    </testcase>\n");
                    continue;
                }
                ds__buf_puts(&b, ">\n      <system-out>");
                ds__xml_escape(&b, "unexpected pass: the expectations file lists this case as ");
                ds__xml_escape(&b, ds__status_name(r->expectation->status));
                ds__buf_puts(&b, "</system-out>\n    </testcase>\n");
                continue;
            case DS_SKIP:
                ds__buf_puts(&b, ">\n      <skipped");
                attr(&b, "message", reason);
                ds__buf_puts(&b, "/>\n");
                break;
            case DS_XFAIL:
                ds__buf_puts(&b, ">\n      <skipped type=\"xfail\"");
                attr(&b, "message", r->expectation->reason);
                ds__buf_puts(&b, ">");
                details(&b, r);
                ds__buf_puts(&b, "</skipped>\n");
                break;
            case DS_FAIL:
                ds__buf_puts(&b, ">\n      <failure type=\"fail\"");
                attr(&b, "message", reason);
                ds__buf_puts(&b, ">");
                details(&b, r);
                ds__buf_puts(&b, "</failure>\n");
                break;
            default:
                ds__buf_puts(&b, ">\n      <error");
                attr(&b, "type", ds__status_name(r->status));
                attr(&b, "message", reason);
                ds__buf_puts(&b, ">");
                details(&b, r);
                ds__buf_puts(&b, "</error>\n");
                break;
            }
            if (r->stderr_tail) {
                ds__buf_puts(&b, "      <system-err>");
                ds__xml_escape(&b, r->stderr_tail);
                ds__buf_puts(&b, "</system-err>\n");
            }
            ds__buf_puts(&b, "    </testcase>\n");
        }
        ds__buf_puts(&b, "  </testsuite>\n");
    }
    ds__buf_puts(&b, "</testsuites>\n");
    int rc = ds__write_file_atomic(path, b.data, b.len);
    if (rc != 0) snprintf(err, errlen, "write failed");
    ds__buf_free(&b);
    return rc;
}
