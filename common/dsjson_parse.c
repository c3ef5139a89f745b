/* dsjson_parse.c: the reader of dsjson (see dsjson.h): JSON text to cJSON nodes that keep each
 * number's source text and each string's NUL characters, and packed arrays walked element
 * by element. */
#include "dsjson_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parsing JSON -------------------------------------------------------------------- */

/* A growable array of offsets. */
typedef struct offsets {
    size_t *v;
    size_t n, cap;
} offsets;

static bool offsets_add(offsets *o, size_t x)
{
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 16;
        size_t *v = cJSON_malloc(cap * sizeof *v);
        if (v == NULL) return false;
        if (o->n) memcpy(v, o->v, o->n * sizeof *v);
        cJSON_free(o->v);
        o->v = v;
        o->cap = cap;
    }
    o->v[o->n++] = x;
    return true;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The length of the JSON number at P (at most END), or 0 when it breaks JSON's grammar:
 * -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?, followed by a delimiter. */
static size_t number_length(const char *p, const char *end)
{
    const char *q = p;
    if (q < end && *q == '-') q++;
    if (q == end || !is_digit(*q)) return 0;
    if (*q == '0')
        q++;
    else
        while (q < end && is_digit(*q))
            q++;
    if (q < end && *q == '.') {
        q++;
        if (q == end || !is_digit(*q)) return 0;
        while (q < end && is_digit(*q))
            q++;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < end && (*q == '+' || *q == '-')) q++;
        if (q == end || !is_digit(*q)) return 0;
        while (q < end && is_digit(*q))
            q++;
    }
    if (q < end && !strchr(" \t\r\n,]}", *q)) return 0;
    return (size_t)(q - p);
}

/* Gives each number node, in document order, the source text of the next number token (its
 * start in STARTS: its length is read again, which halves what the first pass keeps). */
static bool attach_numbers(cJSON *item, const char *text, const char *end, const offsets *starts,
                           size_t *next)
{
    for (; item != NULL; item = item->next) {
        if (cJSON_IsNumber(item)) {
            if (*next >= starts->n) return false;
            const char *p = text + starts->v[*next];
            item->valuestring = dsj__copy_text(p, number_length(p, end));
            if (item->valuestring == NULL) return false;
            (*next)++;
        } else if (item->child && !attach_numbers(item->child, text, end, starts, next)) {
            return false;
        }
    }
    return true;
}

/* ---- arenas ---------------------------------------------------------------------------- */

/* A block: its size, what is used of it, and the previous block; its bytes follow. */
typedef struct block {
    struct block *prev;
    size_t size, used;
} block;

struct dsj_arena {
    block *top;
    size_t total;
    bool failed;
};

#define ARENA_FIRST ((size_t)64 << 10)
#define ARENA_LARGEST ((size_t)4 << 20)
#define ARENA_ALIGN 8

dsj_arena *dsj_arena_new(void)
{
    dsj_arena *a = malloc(sizeof *a);
    if (a) memset(a, 0, sizeof *a);
    return a;
}

void dsj_arena_free(dsj_arena *a)
{
    if (a == NULL) return;
    for (block *b = a->top, *prev; b; b = prev) {
        prev = b->prev;
        free(b);
    }
    free(a);
}

size_t dsj_arena_size(const dsj_arena *a)
{
    return a ? a->total : 0;
}

/* N bytes of A, aligned for any node; NULL (and A failed) when no block can be had. Blocks
 * double from ARENA_FIRST to ARENA_LARGEST; a larger request gets a block of its own. */
static void *arena_take(dsj_arena *a, size_t n)
{
    n = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    block *b = a->top;
    if (b == NULL || b->size - b->used < n) {
        size_t size = b ? (b->size < ARENA_LARGEST ? 2 * b->size : ARENA_LARGEST) : ARENA_FIRST;
        if (size < n) size = n;
        block *fresh = malloc(sizeof *fresh + size);
        if (fresh == NULL) {
            a->failed = true;
            return NULL;
        }
        fresh->size = size;
        fresh->used = 0;
        a->total += size;
        if (b && b->size - b->used > size - n) { /* keep filling the fuller block */
            fresh->prev = b->prev;
            b->prev = fresh;
            fresh->used = n;
            return (char *)(fresh + 1);
        }
        fresh->prev = b;
        a->top = b = fresh;
    }
    void *p = (char *)(b + 1) + b->used;
    b->used += n;
    return p;
}

/* The arena the calling thread reads into; cJSON's hooks have no argument to carry it. */
static _Thread_local dsj_arena *reading_into;

static void *arena_malloc(size_t n)
{
    return reading_into ? arena_take(reading_into, n) : malloc(n);
}

static void arena_release(void *p)
{
    if (!reading_into) free(p); /* another thread's; the arena's are freed with it */
}

/* Directs cJSON's allocations on this thread into A (NULL: back to cJSON's default). */
static void read_into(dsj_arena *a)
{
    static cJSON_Hooks hooks = {arena_malloc, arena_release};
    reading_into = a;
    cJSON_InitHooks(a ? &hooks : NULL);
}

/* ---- packed arrays ---------------------------------------------------------------------- */

static const char *skip_blank(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* The length of the packable scalar at P (at most END), or 0: a number in JSON's grammar,
 * true, false, null, or a string of printable ASCII without '"' and '\\', each at most
 * DSJ_PACKED_TOKEN_MAX bytes (a string's with its quotes). */
static size_t packable_scalar(const char *p, const char *end)
{
    if (p == end) return 0;
    if (*p == '"') {
        const char *q = p + 1;
        for (; q < end && *q != '"'; q++) {
            unsigned char c = (unsigned char)*q;
            if (c < 0x20 || c > 0x7e || c == '\\') return 0;
        }
        if (q == end) return 0;
        size_t n = (size_t)(q + 1 - p);
        return n <= DSJ_PACKED_TOKEN_MAX ? n : 0;
    }
    if (*p == '-' || is_digit(*p)) {
        size_t n = number_length(p, end);
        return n <= DSJ_PACKED_TOKEN_MAX && (p + n == end || p[n] != '\0') ? n : 0;
    }
    static const char *const literal[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(literal[i]);
        if ((size_t)(end - p) >= n && !memcmp(p, literal[i], n) &&
            (p + n == end || (p[n] != '\0' && strchr(" \t\r\n,]}", p[n]))))
            return n;
    }
    return 0;
}

/* Reads the array at P ('[') as a packed array: elements that are packable scalars or pairs
 * of them ("[a,b]"). Returns the end of the array, or NULL when it is not one. Writes the
 * compact text to OUT when OUT is not NULL; *SIZE gets its length and *COUNT the number of
 * elements. */
static const char *scan_packed(const char *p, const char *end, char *out, size_t *size,
                               size_t *count)
{
    size_t k = 0, n = 0;
#define EMIT(s, len)                                                                               \
    do {                                                                                           \
        if (out) memcpy(out + k, (s), (len));                                                      \
        k += (len);                                                                                \
    } while (0)
    EMIT("[", 1);
    p = skip_blank(p + 1, end);
    if (p < end && *p == ']') {
        EMIT("]", 1);
        *size = k;
        *count = 0;
        return p + 1;
    }
    for (;;) {
        if (p == end) return NULL;
        if (*p == '[') {
            const char *q = skip_blank(p + 1, end);
            size_t a = packable_scalar(q, end);
            if (!a) return NULL;
            const char *sa = q;
            q = skip_blank(q + a, end);
            if (q == end || *q != ',') return NULL;
            q = skip_blank(q + 1, end);
            size_t b = packable_scalar(q, end);
            if (!b) return NULL;
            const char *sb = q;
            q = skip_blank(q + b, end);
            if (q == end || *q != ']') return NULL;
            EMIT("[", 1);
            EMIT(sa, a);
            EMIT(",", 1);
            EMIT(sb, b);
            EMIT("]", 1);
            p = q + 1;
        } else {
            size_t a = packable_scalar(p, end);
            if (!a) return NULL;
            EMIT(p, a);
            p += a;
        }
        n++;
        p = skip_blank(p, end);
        if (p == end) return NULL;
        if (*p == ']') break;
        if (*p != ',') return NULL;
        EMIT(",", 1);
        p = skip_blank(p + 1, end);
    }
    EMIT("]", 1);
#undef EMIT
    *size = k;
    *count = n;
    return p + 1;
}

bool dsj_is_packed(const cJSON *item)
{
    return item != NULL && (item->type & 0xFF) == cJSON_Raw && (item->type & DSJ_PACKED) &&
           item->valuestring != NULL;
}

bool dsj_is_array(const cJSON *item)
{
    return cJSON_IsArray(item) || dsj_is_packed(item);
}

size_t dsj_array_length(const cJSON *item)
{
    if (dsj_is_packed(item)) return (size_t)item->valuedouble;
    size_t n = 0;
    if (cJSON_IsArray(item))
        for (const cJSON *c = item->child; c; c = c->next)
            n++;
    return n;
}

void dsj_iter_init(dsj_iter *it, const cJSON *array)
{
    memset(it, 0, sizeof *it);
    if (dsj_is_packed(array))
        it->p = array->valuestring + 1; /* after '[' */
    else if (cJSON_IsArray(array))
        it->tree = array->child;
}

/* Makes NODE the scalar of N bytes at P, its text kept in TEXT. */
static void elem_scalar(cJSON *node, char *text, const char *p, size_t n)
{
    memset(node, 0, sizeof *node);
    if (*p == '"') {
        memcpy(text, p + 1, n - 2);
        text[n - 2] = '\0';
        node->type = cJSON_String;
        node->valuestring = text;
    } else if (*p == 't') {
        node->type = cJSON_True;
    } else if (*p == 'f') {
        node->type = cJSON_False;
    } else if (*p == 'n') {
        node->type = cJSON_NULL;
    } else {
        memcpy(text, p, n);
        text[n] = '\0';
        node->type = cJSON_Number;
        node->valuedouble = strtod(text, NULL);
        double d = node->valuedouble;
        node->valueint = d >= INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN : (int)d;
        node->valuestring = text;
    }
}

/* The length of the scalar token at P in a packed array's compact text. */
static size_t token_length(const char *p)
{
    if (*p == '"') return (size_t)(strchr(p + 1, '"') + 1 - p);
    return strcspn(p, ",]");
}

const cJSON *dsj_iter_next(dsj_iter *it)
{
    if (it->tree) {
        const cJSON *c = it->tree;
        it->tree = c->next;
        return c;
    }
    if (it->p == NULL || *it->p == ']' || *it->p == '\0') return NULL;
    const char *p = it->p;
    if (*p == '[') {
        size_t a = token_length(p + 1);
        size_t b = token_length(p + 2 + a);
        elem_scalar(&it->part[0], it->text[1], p + 1, a);
        elem_scalar(&it->part[1], it->text[2], p + 2 + a, b);
        memset(&it->node, 0, sizeof it->node);
        it->node.type = cJSON_Array;
        it->node.child = &it->part[0];
        it->part[0].next = &it->part[1];
        it->part[0].prev = &it->part[1];
        it->part[1].prev = &it->part[0];
        p += a + b + 3;
    } else {
        size_t a = token_length(p);
        elem_scalar(&it->node, it->text[0], p, a);
        p += a;
    }
    if (*p == ',') p++;
    it->p = p;
    return &it->node;
}

cJSON *dsj_unpack(const cJSON *item)
{
    if (!dsj_is_packed(item)) return cJSON_Duplicate(item, true);
    return dsj_parse(item->valuestring, strlen(item->valuestring), NULL);
}

/* A place where the copy that cJSON reads differs from TEXT: FROM_LEN bytes at OFFSET are
 * written as the TO_LEN bytes of "\u0000"'s encoding or of a packed array's placeholder. */
typedef struct rewrite {
    size_t offset, from_len, to_len;
    size_t packed; /* index into the packed texts, or SIZE_MAX for a NUL escape */
} rewrite;

typedef struct rewrites {
    rewrite *v;
    size_t n, cap;
} rewrites;

static bool rewrites_add(rewrites *r, rewrite x)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        rewrite *v = cJSON_malloc(cap * sizeof *v);
        if (v == NULL) return false;
        if (r->n) memcpy(v, r->v, r->n * sizeof *v);
        cJSON_free(r->v);
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = x;
    return true;
}

/* The placeholder of packed text I in the copy: a string that TEXT cannot hold (0xC1). */
static size_t placeholder(size_t i, char out[32])
{
    return (size_t)snprintf(out, 32, "\"\xC1%zu\"", i);
}

/* Turns the placeholders in ITEM's tree into packed nodes that take over TEXTS[i]. */
static void attach_packed(cJSON *item, char **texts, const size_t *counts)
{
    for (; item != NULL; item = item->next) {
        if (cJSON_IsString(item) && item->valuestring &&
            (unsigned char)item->valuestring[0] == 0xC1) {
            size_t i = (size_t)strtoull(item->valuestring + 1, NULL, 10);
            cJSON_free(item->valuestring);
            item->valuestring = texts[i];
            texts[i] = NULL;
            item->type = cJSON_Raw | DSJ_PACKED;
            item->valuedouble = (double)counts[i];
            item->valueint = counts[i] > INT_MAX ? INT_MAX : (int)counts[i];
        } else if (item->child) {
            attach_packed(item->child, texts, counts);
        }
    }
}

/* Long: the one pass over the text (number tokens, escapes, arrays to pack) and the parse of
 * its rewritten copy share the buffers they fill, which the two exits free together; split,
 * each part would take and return all of them. */
static cJSON *parse(const char *text, size_t len, const dsj_parse_options *opt, size_t *error_at,
                    const char **why)
{
    offsets starts = {0}, counts = {0};
    rewrites rw = {0};
    char **texts = NULL;
    size_t ntexts = 0, cap_texts = 0;
    char *copy = NULL;
    cJSON *root = NULL;
    size_t fail_at = 0, values = 0, copy_len = len;
    const char *reason = NULL;
    const char *end = text + len;
    dsj_arena *arena = opt ? opt->arena : NULL;
    bool pack = opt && opt->pack_data && !arena;
    size_t max_values = opt ? opt->max_values : 0;
    /* One pass finds the number tokens, the "\u0000" escapes and the arrays to pack; strings
     * are skipped whole so that their contents are never mistaken for numbers. */
    for (const char *p = text; p < end;) {
        unsigned char c = (unsigned char)*p;
        if (c == 0xC0 || c == 0xC1 || c == 0) {
            fail_at = (size_t)(p - text);
            goto fail;
        }
        /* A value (or key) starts here; the letters of true, false and null after the
         * first are none of these. */
        bool value = c == '"' || c == '-' || is_digit((char)c) || c == '[' || c == '{' ||
                     c == 't' || c == 'f' || c == 'n';
        if (value && max_values && ++values > max_values) {
            fail_at = (size_t)(p - text);
            reason = "too many values outside the data of typed arrays";
            goto fail;
        }
        if (c == '"') {
            const char *s = p;
            for (p++; p < end && *p != '"'; p++) {
                if ((unsigned char)*p == 0xC0 || (unsigned char)*p == 0xC1 || *p == '\0') {
                    fail_at = (size_t)(p - text);
                    goto fail;
                }
                if (*p != '\\') continue;
                if (end - p >= 6 && !memcmp(p, "\\u0000", 6)) {
                    if (!rewrites_add(&rw, (rewrite){(size_t)(p - text), 6, 2, SIZE_MAX})) goto oom;
                    copy_len -= 4;
                    p += 5;
                } else {
                    p++; /* the escaped character, a quote included */
                }
            }
            if (p > end) p = end; /* a backslash as the last byte */
            if (p < end) p++;
            if (!pack || p - s != 6 || memcmp(s, "\"data\"", 6)) continue;
            const char *q = skip_blank(p, end);
            if (q == end || *q != ':') continue;
            q = skip_blank(q + 1, end);
            size_t size, count;
            const char *after;
            if (q == end || *q != '[' || !(after = scan_packed(q, end, NULL, &size, &count)))
                continue;
            if (ntexts == cap_texts) {
                size_t cap = cap_texts ? 2 * cap_texts : 8;
                char **t = cJSON_malloc(cap * sizeof *t);
                if (t == NULL) goto oom;
                if (ntexts) memcpy(t, texts, ntexts * sizeof *t);
                cJSON_free(texts);
                texts = t;
                cap_texts = cap;
            }
            char *packed = cJSON_malloc(size + 1);
            if (packed == NULL) goto oom;
            texts[ntexts] = packed;
            scan_packed(q, end, packed, &size, &count);
            packed[size] = '\0';
            char ph[32];
            size_t phn = placeholder(ntexts, ph);
            if (!offsets_add(&counts, count) ||
                !rewrites_add(&rw,
                              (rewrite){(size_t)(q - text), (size_t)(after - q), phn, ntexts})) {
                ntexts++;
                goto oom;
            }
            ntexts++;
            copy_len = copy_len - (size_t)(after - q) + phn;
            if (max_values) values++; /* the array itself */
            p = after;
        } else if (c == '-' || is_digit((char)c)) {
            size_t n = number_length(p, end);
            if (n == 0) {
                fail_at = (size_t)(p - text);
                goto fail;
            }
            if (!offsets_add(&starts, (size_t)(p - text))) goto oom;
            p += n;
        } else {
            p++;
        }
    }
    /* cJSON reads a NUL-terminated copy: a truncated document then fails at its end (the
     * NUL), not at its last byte, and the copy is where the NUL escapes and the packed arrays
     * are rewritten. */
    const char *parse_end = NULL;
    size_t k = 0, from = 0;
    if (rw.n == 0 && opt && opt->terminated && text[len] == '\0') {
        if (arena) read_into(arena);
        root = cJSON_ParseWithLengthOpts(text, len + 1, &parse_end, true);
        if (root == NULL) {
            fail_at = parse_end ? (size_t)(parse_end - text) : 0;
            goto fail;
        }
        goto parsed;
    }
    copy = cJSON_malloc(copy_len + 1);
    if (copy == NULL) goto oom;
    for (size_t i = 0; i < rw.n; i++) {
        memcpy(copy + k, text + from, rw.v[i].offset - from);
        k += rw.v[i].offset - from;
        if (rw.v[i].packed == SIZE_MAX) {
            copy[k++] = NUL0;
            copy[k++] = NUL1;
        } else {
            k += placeholder(rw.v[i].packed, copy + k);
        }
        from = rw.v[i].offset + rw.v[i].from_len;
    }
    memcpy(copy + k, text + from, len - from);
    k += len - from;
    copy[k] = '\0';
    if (arena) read_into(arena);
    root = cJSON_ParseWithLengthOpts(copy, k + 1, &parse_end, true);
    if (root == NULL) {
        /* Back to an offset in TEXT: each rewrite before the error changed the length by
         * its own amount; an error inside a rewrite is at its start. */
        size_t stop = parse_end ? (size_t)(parse_end - copy) : 0;
        long long delta = 0; /* offset in TEXT minus offset in the copy */
        fail_at = SIZE_MAX;
        for (size_t i = 0; i < rw.n; i++) {
            long long in_copy = (long long)rw.v[i].offset - delta;
            if (in_copy >= (long long)stop) break;
            if ((long long)stop < in_copy + (long long)rw.v[i].to_len) {
                fail_at = rw.v[i].offset;
                break;
            }
            delta += (long long)rw.v[i].from_len - (long long)rw.v[i].to_len;
        }
        if (fail_at == SIZE_MAX) fail_at = (size_t)((long long)stop + delta);
        goto fail;
    }
parsed:;
    size_t used = 0;
    if (!attach_numbers(root, text, end, &starts, &used) || used != starts.n) goto oom;
    attach_packed(root, texts, counts.v);
    if (arena) read_into(NULL);
    cJSON_free(copy);
    cJSON_free(starts.v);
    cJSON_free(counts.v);
    cJSON_free(rw.v);
    cJSON_free(texts);
    return root;
oom:
    fail_at = 0;
    reason = "out of memory";
fail:
    if (arena) {
        read_into(NULL);
        root = NULL; /* its nodes stay in the arena until the arena is freed */
        if (arena->failed) {
            fail_at = 0;
            reason = "out of memory";
        }
    }
    cJSON_Delete(root);
    cJSON_free(copy);
    cJSON_free(starts.v);
    cJSON_free(counts.v);
    cJSON_free(rw.v);
    for (size_t i = 0; i < ntexts; i++)
        cJSON_free(texts[i]);
    cJSON_free(texts);
    if (error_at) *error_at = fail_at;
    if (why) *why = reason;
    return NULL;
}

cJSON *dsj_parse(const char *text, size_t len, size_t *error_at)
{
    return parse(text, len, NULL, error_at, NULL);
}

cJSON *dsj_parse_with(const char *text, size_t len, const dsj_parse_options *opt, size_t *error_at,
                      const char **why)
{
    /* A packed array is one node where the plain reader nests one or two levels: a text
     * nested too deep is read unpacked, so that it fails as dsj_parse fails it. */
    if (opt && opt->pack_data && dsj_too_deep(text, len, NULL)) {
        dsj_parse_options plain = *opt;
        plain.pack_data = false;
        return parse(text, len, &plain, error_at, why);
    }
    return parse(text, len, opt, error_at, why);
}

bool dsj_too_deep(const char *text, size_t len, size_t *at)
{
    size_t depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > DSJ_MAX_DEPTH) {
                if (at) *at = i;
                return true;
            }
        } else if ((c == ']' || c == '}') && depth > 0) {
            depth--;
        }
    }
    return false;
}
