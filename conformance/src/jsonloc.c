/* Source locations for JSON values. cJSON keeps no positions, so a validation error is
 * located by walking the (already valid) text along the path of the field at fault. Errors
 * are rare; this costs nothing on the normal path. */
#include "devspec.h"

#include <string.h>

void ds__offset_to_linecol(const char *text, size_t offset, int *line, int *col)
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
        if (*p == '\\' && p[1])
            p++;
        p++;
    }
    return *p ? p + 1 : p;
}

static const char *skip_value(const char *p)
{
    p = skip_ws(p);
    if (*p == '"')
        return skip_string(p);
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
                if (--depth == 0)
                    return p + 1;
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

size_t ds__json_locate(const char *text, const ds_seg *path, int depth)
{
    const char *p = skip_ws(text);
    if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        p = skip_ws(p + 3);
    for (int d = 0; d < depth; d++) {
        const ds_seg *s = &path[d];
        if (s->key) {
            if (*p != '{')
                break;
            const char *q = skip_ws(p + 1);
            const char *found = NULL;
            int seen = 0;
            while (*q == '"') {
                const char *k = q;
                q = skip_ws(skip_string(q));
                if (*q == ':')
                    q = skip_ws(q + 1);
                if (key_equals(k, s->key) && seen++ == s->nth) {
                    found = s->at_key ? k : q;
                    break;
                }
                q = skip_ws(skip_value(q));
                if (*q == ',')
                    q = skip_ws(q + 1);
            }
            if (!found)
                break;
            p = found;
            if (s->at_key)
                break;
        } else {
            if (*p != '[')
                break;
            const char *q = skip_ws(p + 1);
            int i = 0;
            while (*q && *q != ']' && i < s->index) {
                q = skip_ws(skip_value(q));
                if (*q == ',')
                    q = skip_ws(q + 1);
                i++;
            }
            if (i != s->index || *q == ']' || !*q)
                break;
            p = q;
        }
    }
    return (size_t)(p - text);
}

void ds__path_format(const ds_seg *path, int depth, ds_buf *out)
{
    for (int d = 0; d < depth; d++) {
        if (path[d].key)
            ds__buf_printf(out, "%s%s", d ? "." : "", path[d].key);
        else
            ds__buf_printf(out, "[%d]", path[d].index);
    }
    if (depth == 0)
        ds__buf_puts(out, "(file)");
}
