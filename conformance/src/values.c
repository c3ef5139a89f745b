/* Large values, bounded where they are kept or shown. A reply may be 64 MiB (a typed array
 * of 33 million elements, held packed: common/dsjson.h); a failed case keeps what it
 * expected and observed until the report is written, and messages quote values. Kept whole,
 * four such failures would hold gigabytes and write each value into TAP, the journal, the
 * report and JUnit. So a message shows at most DSR_SHOWN_MAX bytes of a value, and a
 * result keeps a summary of every large list or string in it (its count, first and last
 * elements, size and SHA-256); the judge's message names the first element that differs. */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

_Atomic int dsr__json_out_of_memory;

/* cJSON's allocations, remembered when one fails: a parse that fails for want of memory
 * then says so instead of reporting a syntax error at the byte it had reached. */
static void *json_malloc(size_t n)
{
    void *p = malloc(n);
    if (!p) dsr__json_out_of_memory = 1;
    return p;
}

void dsr__json_watch_memory(bool on)
{
    /* Only while watched: with hooks of its own, cJSON gives up realloc when it prints (it
     * copies its buffer at each growth instead), so the hooks are not left installed. */
    cJSON_Hooks hooks = {json_malloc, free};
    dsr__json_out_of_memory = 0;
    cJSON_InitHooks(on ? &hooks : NULL);
}

void dsr__memory_setup(void)
{
#ifdef __GLIBC__
    /* glibc raises its mmap threshold to the size of each large block freed (up to 32 MiB),
     * so the next reply's buffers come from the heap, which keeps the previous reply's pages:
     * a run of 16 MiB replies then held two of them. A fixed threshold keeps every large
     * block in a mapping of its own, returned to the system when freed. */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

/* The length of the first MAX bytes of S (LEN bytes) without cutting a UTF-8 sequence. */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
    if (len <= max) return len;
    size_t n = max;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    return n;
}

void dsr__show_value(dsr_buf *b, const cJSON *v, size_t max)
{
    char *printed = NULL;
    const char *text;
    size_t len;
    if (cJSON_IsString(v) && strlen(v->valuestring) > max) {
        /* A long string is shown from its first MAX bytes, never printed whole: printing a
         * 64 MiB string reply took another copy of it (3 times the reply at the peak). */
        size_t all = strlen(v->valuestring);
        cJSON *head = dsj_create_string_len(v->valuestring, utf8_cut(v->valuestring, all, max));
        printed = dsj_print(head, false, &len);
        cJSON_Delete(head);
        if (printed && len > 0) dsr__buf_add(b, printed, len - 1); /* without its closing quote */
        dsr__buf_printf(b, "...\" (a string of %zu bytes)", all);
        cJSON_free(printed);
        return;
    }
    if (dsj_is_packed(v)) {
        text = v->valuestring;
        len = strlen(text);
    } else {
        printed = dsj_print(v, false, &len);
        text = printed ? printed : "?";
        if (!printed) len = 1;
    }
    size_t n = utf8_cut(text, len, max);
    dsr__buf_add(b, text, n);
    if (n < len) {
        dsr__buf_printf(b, "... (%zu bytes", len);
        if (dsj_is_array(v)) dsr__buf_printf(b, ", %zu elements", dsj_array_length(v));
        dsr__buf_puts(b, ")");
    }
    cJSON_free(printed);
}

/* {"$summary": {"count": N, "bytes": B, "sha256": H, "first": [...], "last": [...]}} for a
 * list; for a string, "bytes", "sha256" and "first" (its first DSR_SUMMARY_TEXT bytes). */
static cJSON *summary_of(const cJSON *v)
{
    cJSON *s = cJSON_CreateObject();
    cJSON *in = cJSON_AddObjectToObject(s, "$summary");
    char *printed = NULL;
    const char *text;
    size_t len;
    if (cJSON_IsString(v)) {
        text = v->valuestring;
        len = strlen(text);
    } else if (dsj_is_packed(v)) {
        text = v->valuestring;
        len = strlen(text);
    } else {
        printed = dsr__print(v, false);
        text = printed;
        len = strlen(text);
    }
    char hex[65];
    dsr__sha256_hex(text, len, hex);
    if (dsj_is_array(v)) {
        size_t count = dsj_array_length(v);
        cJSON_AddItemToObject(in, "count", dsj_create_uint64(count));
        cJSON_AddItemToObject(in, "bytes", dsj_create_uint64(len));
        cJSON_AddStringToObject(in, "sha256", hex);
        cJSON *first = cJSON_AddArrayToObject(in, "first");
        cJSON *last = cJSON_AddArrayToObject(in, "last");
        /* The last DSR_SUMMARY_ENDS elements in a ring, copied as the walk passes them. */
        cJSON *ring[DSR_SUMMARY_ENDS] = {0};
        size_t i = 0;
        dsj_iter it;
        dsj_iter_init(&it, v);
        for (const cJSON *e; (e = dsj_iter_next(&it)); i++) {
            if (i < DSR_SUMMARY_ENDS) cJSON_AddItemToArray(first, cJSON_Duplicate(e, true));
            if (i + DSR_SUMMARY_ENDS >= count) {
                cJSON_Delete(ring[i % DSR_SUMMARY_ENDS]);
                ring[i % DSR_SUMMARY_ENDS] = cJSON_Duplicate(e, true);
            }
        }
        size_t from = count > DSR_SUMMARY_ENDS ? count - DSR_SUMMARY_ENDS : 0;
        for (size_t k = from; k < count; k++) {
            cJSON_AddItemToArray(last, ring[k % DSR_SUMMARY_ENDS]);
            ring[k % DSR_SUMMARY_ENDS] = NULL;
        }
    } else {
        cJSON_AddItemToObject(in, "bytes", dsj_create_uint64(len));
        cJSON_AddStringToObject(in, "sha256", hex);
        size_t n = utf8_cut(text, len, DSR_SUMMARY_TEXT);
        cJSON_AddItemToObject(in, "first", dsj_create_string_len(text, n));
    }
    cJSON_free(printed);
    return s;
}

static bool is_large(const cJSON *v)
{
    if (dsj_is_array(v)) return dsj_array_length(v) > DSR_SUMMARY_ELEMENTS;
    if (cJSON_IsString(v)) return strlen(v->valuestring) > DSR_SUMMARY_TEXT;
    return false;
}

/* Replaces the large values under V (not V itself) by their summaries. */
static void bound_children(cJSON *v)
{
    for (cJSON *c = v->child, *next; c; c = next) {
        next = c->next;
        if (is_large(c)) {
            cJSON *s = summary_of(c);
            s->string = c->string; /* the key moves to the summary */
            s->type |= c->type & cJSON_StringIsConst;
            c->string = NULL;
            cJSON_ReplaceItemViaPointer(v, c, s);
        } else if (cJSON_IsArray(c) || cJSON_IsObject(c)) {
            bound_children(c);
        }
    }
}

cJSON *dsr__bound_value(cJSON *v)
{
    if (v == NULL) return NULL;
    if (is_large(v)) {
        cJSON *s = summary_of(v);
        cJSON_Delete(v);
        return s;
    }
    if (cJSON_IsArray(v) || cJSON_IsObject(v)) bound_children(v);
    /* Many values each under the limit: the whole as one summary of its text. */
    char *text = dsr__print(v, false);
    size_t len = strlen(text);
    if (len > DSR_SUMMARY_WHOLE) {
        cJSON *t = cJSON_CreateString(text);
        cJSON_Delete(v);
        v = summary_of(t);
        cJSON_Delete(t);
    }
    cJSON_free(text);
    return v;
}

cJSON *dsr__bounded_copy(const cJSON *v)
{
    if (v && is_large(v)) return summary_of(v); /* never copied whole first */
    return dsr__bound_value(v ? cJSON_Duplicate(v, true) : NULL);
}

void dsr__bound_result(dsr_result *res)
{
    res->expected = dsr__bound_value(res->expected);
    res->observed = dsr__bound_value(res->observed);
}

const cJSON *dsr__duplicate_key(const cJSON *v)
{
    if (!cJSON_IsObject(v) && !cJSON_IsArray(v)) return NULL; /* a packed array is raw */
    int n = 0;
    for (const cJSON *a = v->child; a; a = a->next)
        n++;
    if (cJSON_IsObject(v) && n > 1) {
        /* A few keys pairwise; more through a hash map, so that an object of 65536 keys
         * costs one pass, not 2^31 comparisons. */
        dsr_strmap seen = {0};
        for (const cJSON *a = v->child; a; a = a->next) {
            bool twice = false;
            if (n <= 8) {
                for (const cJSON *b = v->child; b != a && !twice; b = b->next)
                    twice = !strcmp(a->string, b->string);
            } else
                twice = dsr__strmap_put(&seen, a->string, 0) >= 0;
            if (twice) {
                dsr__strmap_free(&seen, false);
                return a;
            }
        }
        dsr__strmap_free(&seen, false);
    }
    for (const cJSON *a = v->child; a; a = a->next) {
        const cJSON *d = dsr__duplicate_key(a);
        if (d) return d;
    }
    return NULL;
}

/* Whether TEXT holds the six bytes "data" with their quotes. */
static bool names_data(const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    while (end - p >= 6 && (p = memchr(p, '"', (size_t)(end - p - 5))) != NULL) {
        if (!memcmp(p, "\"data\"", 6)) return true;
        p++;
    }
    return false;
}

cJSON *dsr__parse_reply(const char *line, size_t len, const char **why)
{
    /* LINE is NUL-terminated (adapter.c): read in place where nothing is rewritten. */
    static const dsj_parse_options reply_options = {
        .pack_data = true, .max_values = DSR_PROTOCOL_MAX_REPLY_VALUES, .terminated = true};
    /* Only a "data" key's array is ever packed: a reply without one is read as it would be
     * with packing asked, without the scans packing needs (nesting, "data" keys), which were a
     * sixth of the read of a small reply. */
    static const dsj_parse_options plain_options = {.max_values = DSR_PROTOCOL_MAX_REPLY_VALUES,
                                                    .terminated = true};
    bool has_data = names_data(line, len);
    const char *reason = NULL;
    cJSON *doc =
        dsj_parse_with(line, len, has_data ? &reply_options : &plain_options, NULL, &reason);
    *why = NULL;
    if (doc == NULL && reason != NULL && strstr(reason, "too many values"))
        *why = "the reply holds more than " DSR_STR(
            DSR_PROTOCOL_MAX_REPLY_VALUES) " values outside the data of typed arrays "
                                           "(spec/protocol.md, \"Limits\")";
    else if (doc == NULL && reason != NULL)
        *why = "the reply could not be read: out of memory";
    return doc;
}

/* ---- small replies ---------------------------------------------------------------------- */

/* Most replies are a few keys of integers, literals and plain strings
 * ({"id":7,"ok":true,"result":null}). dsr__parse_reply reads them in three passes (the number
 * tokens found, cJSON's parse, each number's text attached) at about 4,000 instructions for
 * such a line, more than the runner's own work for the step; this reader builds the same tree
 * in one pass. It is a subset that declines, never a second grammar: each thing it does not
 * know sends the line to the full reader, so the full reader stays the only judge of what is
 * malformed. */
enum { SMALL_MAX_LINE = 4096, SMALL_MAX_DEPTH = 8, SMALL_MAX_KEYS = 16, SMALL_MAX_DIGITS = 15 };

typedef struct small_reader {
    const char *p, *end;
} small_reader;

/* JSON's four blanks (cJSON skips every byte up to a space; the others are declined). */
static void small_blank(small_reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t'))
        r->p++;
}

/* The string at r->p (its opening quote): its bytes and, in *N, their number; NULL unless it
 * is closed and holds printable ASCII only, no backslash. */
static const char *small_string(small_reader *r, size_t *n)
{
    const char *start = ++r->p;
    for (; r->p < r->end; r->p++) {
        unsigned char c = (unsigned char)*r->p;
        if (c == '"') {
            *n = (size_t)(r->p++ - start);
            return start;
        }
        if (c < 0x20 || c > 0x7e || c == '\\') return NULL;
    }
    return NULL;
}

/* N bytes of T as a string cJSON frees (cJSON_malloc: the hooks in force free it). */
static char *small_copy(const char *t, size_t n)
{
    char *c = cJSON_malloc(n + 1);
    if (c == NULL) return NULL;
    memcpy(c, t, n);
    c[n] = '\0';
    return c;
}

/* A node of TYPE whose valuestring is a copy of N bytes of T (a string, or a number's text);
 * NULL when memory runs out. */
static cJSON *small_node(int type, double number, const char *t, size_t n)
{
    cJSON *v = type == cJSON_Number ? cJSON_CreateNumber(number) : cJSON_CreateNull();
    if (v == NULL) return NULL;
    v->type = type;
    if (t != NULL && (v->valuestring = small_copy(t, n)) == NULL) {
        cJSON_Delete(v);
        return NULL;
    }
    return v;
}

/* An integer -?(0|[1-9][0-9]*) of at most SMALL_MAX_DIGITS digits, so that its double is exact
 * and strtod's (cJSON's) reading of it; a fraction or an exponent is declined. */
static cJSON *small_integer(small_reader *r)
{
    const char *start = r->p;
    if (*r->p == '-') r->p++;
    const char *digits = r->p;
    uint64_t u = 0;
    for (; r->p < r->end && *r->p >= '0' && *r->p <= '9'; r->p++)
        u = u * 10 + (uint64_t)(*r->p - '0');
    size_t nd = (size_t)(r->p - digits);
    if (nd == 0 || nd > SMALL_MAX_DIGITS || (digits[0] == '0' && nd > 1)) return NULL;
    if (r->p < r->end && (*r->p == '.' || *r->p == 'e' || *r->p == 'E')) return NULL;
    double d = *start == '-' ? -(double)u : (double)u; /* "-0" is -0.0, as strtod reads it */
    return small_node(cJSON_Number, d, start, (size_t)(r->p - start));
}

static cJSON *small_container(small_reader *r, int depth);

static cJSON *small_value(small_reader *r, int depth)
{
    if (r->p == r->end) return NULL;
    char c = *r->p;
    size_t left = (size_t)(r->end - r->p), n;
    if (c == '{' || c == '[') return depth < SMALL_MAX_DEPTH ? small_container(r, depth + 1) : NULL;
    if (c == '"') {
        const char *t = small_string(r, &n);
        return t ? small_node(cJSON_String, 0, t, n) : NULL;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return small_integer(r);
    cJSON *v = NULL;
    if (left >= 4 && !memcmp(r->p, "true", 4)) {
        if ((v = small_node(cJSON_True, 0, NULL, 0)) != NULL) v->valueint = 1; /* as cJSON */
        r->p += 4;
    } else if (left >= 5 && !memcmp(r->p, "false", 5)) {
        v = small_node(cJSON_False, 0, NULL, 0);
        r->p += 5;
    } else if (left >= 4 && !memcmp(r->p, "null", 4)) {
        v = small_node(cJSON_NULL, 0, NULL, 0);
        r->p += 4;
    }
    return v;
}

/* The key at r->p of an object whose members so far are FIRST...: a copy, or NULL when it is
 * declined (not a plain string, "data", which the full reader may pack, or a key given
 * before). */
static char *small_key(small_reader *r, const cJSON *first)
{
    size_t n;
    const char *k = r->p < r->end && *r->p == '"' ? small_string(r, &n) : NULL;
    if (k == NULL || (n == 4 && !memcmp(k, "data", 4))) return NULL;
    for (const cJSON *e = first; e != NULL; e = e->next)
        if (!strncmp(e->string, k, n) && e->string[n] == '\0') return NULL;
    small_blank(r);
    if (r->p == r->end || *r->p != ':') return NULL;
    r->p++;
    small_blank(r);
    return small_copy(k, n);
}

/* The object or array at r->p, linked as cJSON links one (the first child's prev is the last
 * child). */
static cJSON *small_container(small_reader *r, int depth)
{
    bool object = *r->p == '{';
    char close = object ? '}' : ']';
    cJSON *c = object ? cJSON_CreateObject() : cJSON_CreateArray();
    if (c == NULL) return NULL;
    r->p++;
    small_blank(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        return c;
    }
    cJSON *last = NULL;
    for (int keys = 0;; keys++) {
        char *key = NULL;
        if (object && (keys == SMALL_MAX_KEYS || (key = small_key(r, c->child)) == NULL)) break;
        cJSON *v = small_value(r, depth);
        if (v == NULL) {
            cJSON_free(key);
            break;
        }
        v->string = key;
        if (last == NULL) {
            c->child = v;
        } else {
            last->next = v;
            v->prev = last;
        }
        last = v;
        small_blank(r);
        if (r->p == r->end) break;
        if (*r->p == close) {
            r->p++;
            c->child->prev = last;
            return c;
        }
        if (*r->p != ',') break;
        r->p++;
        small_blank(r);
    }
    cJSON_Delete(c);
    return NULL;
}

cJSON *dsr__read_small_reply(const char *line, size_t len)
{
    if (len > SMALL_MAX_LINE) return NULL;
    small_reader r = {line, line + len};
    small_blank(&r);
    if (r.p == r.end || *r.p != '{') return NULL;
    cJSON *doc = small_container(&r, 1);
    small_blank(&r);
    if (doc != NULL && r.p != r.end) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}
