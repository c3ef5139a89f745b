/* devspec compare --html: one self-contained page. The page (compare_page.html, compiled in
 * as dsr__compare_page) holds its own CSS and JavaScript and asks for nothing over the
 * network; the matrix goes into it as one JSON document that the script renders lazily.
 *
 * Escaping: the JSON sits inside <script type="application/json">, so '<', '>' and '&' in
 * it are written as \u003c, \u003e and \u0026 (they can only occur inside JSON strings,
 * where the escapes mean the same characters): no text from a library or a case can close
 * the element or open another. The script puts every string into the page as text
 * (textContent, never innerHTML). */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char MARKER[] = "<!--DEVSPEC-DATA-->";

void dsr__compare_json_for_html(dsr_buf *b, const char *json)
{
    unsigned cp;
    size_t h;
    for (const char *p = json; *p; p++) {
        switch (*p) {
        case '<':
            dsr__buf_puts(b, "\\u003c");
            break;
        case '>':
            dsr__buf_puts(b, "\\u003e");
            break;
        case '&':
            dsr__buf_puts(b, "\\u0026");
            break;
        default:
            /* U+2028 and U+2029 are valid in JSON strings but end a line in older
             * JavaScript; escaped they are the same characters. */
            if ((unsigned char)p[0] == 0xe2 && (unsigned char)p[1] == 0x80 &&
                ((unsigned char)p[2] == 0xa8 || (unsigned char)p[2] == 0xa9)) {
                dsr__buf_puts(b, (unsigned char)p[2] == 0xa8 ? "\\u2028" : "\\u2029");
                p += 2;
            } else if ((h = dsr__hidden_char(p, &cp))) {
                /* C1 and bidirectional controls: the same characters once parsed, but never
                 * raw in the page's source. */
                dsr__buf_printf(b, "\\u%04x", cp);
                p += h - 1;
            } else
                dsr__buf_add(b, p, 1);
        }
    }
}

int dsr__compare_html_write(const char *path, const cJSON *model)
{
    const char *at = strstr(dsr__compare_page, MARKER);
    if (!at) {
        errno = EINVAL;
        return -1;
    }
    char *json = dsr__print(model, false);
    if (!json) {
        errno = ENOMEM;
        return -1;
    }
    dsr_buf b = {0};
    dsr__buf_add(&b, dsr__compare_page, (size_t)(at - dsr__compare_page));
    dsr__compare_json_for_html(&b, json);
    dsr__buf_puts(&b, at + sizeof MARKER - 1);
    cJSON_free(json);
    int rc = dsr__mkdir_parents(path);
    if (rc == 0) rc = dsr__write_file_atomic(path, b.data, b.len);
    dsr__buf_free(&b);
    return rc;
}
