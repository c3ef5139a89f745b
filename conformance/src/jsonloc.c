/* Source locations for JSON values. cJSON keeps no positions, so a validation error is
 * located by walking the (already valid) text along the path of the field at fault. Errors
 * are rare; this costs nothing on the normal path. */
#include "devspec.h"

#include <string.h>

void dsr__offset_to_linecol(const char *text, size_t offset, int *line, int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < offset && text[i]; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '\n') {
            l++;
            c = 1;
        } else if ((ch & 0xC0) != 0x80) {
            c++; /* columns count characters, not UTF-8 continuation bytes */
        }
    }
    *line = l;
    *col = c;
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

static const char *skip_string(const char *p)
{
    p++; /* opening quote */
    while (*p && *p != '"') {
        if (*p == '\\' && p[1]) p++;
        p++;
    }
    return *p ? p + 1 : p;
}

static const char *skip_value(const char *p)
{
    p = skip_ws(p);
    if (*p == '"') return skip_string(p);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        while (*p) {
            if (*p == '"') {
                p = skip_string(p);
                continue;
            }
            if (*p == '{' || *p == '[')
                depth++;
            else if (*p == '}' || *p == ']') {
                if (--depth == 0) return p + 1;
            }
            p++;
        }
        return p;
    }
    while (*p && !strchr(",]} \t\r\n", *p))
        p++;
    return p;
}

static bool key_equals(const char *p, const char *key)
{
    /* P is at the opening quote. Keys with escapes compare unequal, which only makes the
     * location less precise (it stays on the enclosing object). */
    size_t n = strlen(key);
    return strncmp(p + 1, key, n) == 0 && p[1 + n] == '"';
}

size_t dsr__json_locate(const char *text, const dsr_seg *path, int depth)
{
    const char *p = skip_ws(text);
    if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        p = skip_ws(p + 3);
    for (int d = 0; d < depth; d++) {
        const dsr_seg *s = &path[d];
        if (s->key) {
            if (*p != '{') break;
            const char *q = skip_ws(p + 1);
            const char *found = NULL;
            int seen = 0;
            while (*q == '"') {
                const char *k = q;
                q = skip_ws(skip_string(q));
                if (*q == ':') q = skip_ws(q + 1);
                if (key_equals(k, s->key) && seen++ == s->nth) {
                    found = s->at_key ? k : q;
                    break;
                }
                q = skip_ws(skip_value(q));
                if (*q == ',') q = skip_ws(q + 1);
            }
            if (!found) break;
            p = found;
            if (s->at_key) break;
        } else {
            if (*p != '[') break;
            const char *q = skip_ws(p + 1);
            int i = 0;
            while (*q && *q != ']' && i < s->index) {
                q = skip_ws(skip_value(q));
                if (*q == ',') q = skip_ws(q + 1);
                i++;
            }
            if (i != s->index || *q == ']' || !*q) break;
            p = q;
        }
    }
    return (size_t)(p - text);
}

void dsr__path_format(const dsr_seg *path, int depth, dsr_buf *out)
{
    for (int d = 0; d < depth; d++) {
        if (path[d].key)
            dsr__buf_printf(out, "%s%s", d ? "." : "", path[d].key);
        else
            dsr__buf_printf(out, "[%d]", path[d].index);
    }
    if (depth == 0) dsr__buf_puts(out, "(file)");
}

/* A strict JSON syntax check (RFC 8259) that returns the offset of the first byte that
 * cannot continue a valid document, for the error message when cJSON refuses a file
 * (cJSON's own error pointer is sometimes one byte past the fault). */
typedef struct scan {
    const char *s;
    size_t i, n;
    int depth;
} scan;

static void ws(scan *c)
{
    while (c->i < c->n && strchr(" \t\r\n", c->s[c->i]) && c->s[c->i])
        c->i++;
}

static bool lit(scan *c, const char *w)
{
    size_t k = 0;
    while (w[k] && c->i < c->n && c->s[c->i] == w[k]) {
        c->i++;
        k++;
    }
    return !w[k];
}

static bool digits(scan *c)
{
    size_t start = c->i;
    while (c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9')
        c->i++;
    return c->i > start;
}

static bool value(scan *c);

static bool string(scan *c)
{
    c->i++; /* the opening quote */
    while (c->i < c->n) {
        unsigned char ch = (unsigned char)c->s[c->i];
        if (ch == '"') {
            c->i++;
            return true;
        }
        if (ch < 0x20) return false;
        if (ch == '\\') {
            c->i++;
            if (c->i >= c->n) return false;
            char e = c->s[c->i];
            if (e == 'u') {
                for (int k = 0; k < 4; k++) {
                    c->i++;
                    if (c->i >= c->n || !strchr("0123456789abcdefABCDEF", c->s[c->i]) ||
                        !c->s[c->i])
                        return false;
                }
            } else if (!strchr("\"\\/bfnrt", e) || !e) {
                return false;
            }
        }
        c->i++;
    }
    return false;
}

static bool number(scan *c)
{
    if (c->s[c->i] == '-') c->i++;
    if (c->i < c->n && c->s[c->i] == '0')
        c->i++;
    else if (!digits(c))
        return false;
    if (c->i < c->n && c->s[c->i] == '.') {
        c->i++;
        if (!digits(c)) return false;
    }
    if (c->i < c->n && (c->s[c->i] == 'e' || c->s[c->i] == 'E')) {
        c->i++;
        if (c->i < c->n && (c->s[c->i] == '+' || c->s[c->i] == '-')) c->i++;
        if (!digits(c)) return false;
    }
    return true;
}

static bool container(scan *c, char close)
{
    if (++c->depth > 1000) return false;
    c->i++;
    ws(c);
    if (c->i < c->n && c->s[c->i] == close) {
        c->i++;
        c->depth--;
        return true;
    }
    for (;;) {
        if (close == '}') {
            if (c->i >= c->n || c->s[c->i] != '"' || !string(c)) return false;
            ws(c);
            if (c->i >= c->n || c->s[c->i] != ':') return false;
            c->i++;
        }
        if (!value(c)) return false;
        ws(c);
        if (c->i < c->n && c->s[c->i] == ',') {
            c->i++;
            ws(c);
            continue;
        }
        if (c->i < c->n && c->s[c->i] == close) {
            c->i++;
            c->depth--;
            return true;
        }
        return false;
    }
}

static bool value(scan *c)
{
    ws(c);
    if (c->i >= c->n) return false;
    switch (c->s[c->i]) {
    case '{':
        return container(c, '}');
    case '[':
        return container(c, ']');
    case '"':
        return string(c);
    case 't':
        return lit(c, "true");
    case 'f':
        return lit(c, "false");
    case 'n':
        return lit(c, "null");
    default:
        return number(c);
    }
}

size_t dsr__json_error_offset(const char *text, size_t len)
{
    scan c = {text, 0, len, 0};
    if (len >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
        (unsigned char)text[2] == 0xBF)
        c.i = 3;
    if (value(&c)) {
        ws(&c);
        if (c.i >= len) return len; /* valid as far as this check goes */
    }
    return c.i;
}
