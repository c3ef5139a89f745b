/* Where the case loader is in a file and what it says there: the path of keys and indexes
 * it walks, each problem reported with file, line, column and the field at fault, and the
 * checks every object of a case file gets (duplicate keys, fields it does not allow). */
#define _POSIX_C_SOURCE 200809L
#include "case_check.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void dsr__load_push_key(dsr_loader *L, const char *key)
{
    if (L->depth < DSR_LOAD_MAX_DEPTH) L->path[L->depth] = (dsr_seg){.key = key};
    L->depth++;
}

void dsr__load_push_index(dsr_loader *L, int i)
{
    if (L->depth < DSR_LOAD_MAX_DEPTH) L->path[L->depth] = (dsr_seg){.index = i};
    L->depth++;
}

void dsr__load_pop(dsr_loader *L)
{
    L->depth--;
}

static void vproblem_at(dsr_loader *L, bool at_key, int nth, const char *fmt, va_list ap)
{
    int depth = L->depth < DSR_LOAD_MAX_DEPTH ? L->depth : DSR_LOAD_MAX_DEPTH;
    dsr_seg saved = {0};
    if (depth > 0) {
        saved = L->path[depth - 1];
        L->path[depth - 1].at_key = at_key;
        L->path[depth - 1].nth = nth;
    }
    size_t off = dsr__json_locate(L->file->text, L->path, depth);
    if (depth > 0) L->path[depth - 1] = saved;
    int line, col;
    dsr__offset_to_linecol(L->file->text, off, &line, &col);
    dsr_buf field = {0};
    dsr__path_format(L->path, depth, &field);
    fprintf(L->err, "%s:%d:%d: %s: ", L->file->path, line, col, field.data);
    vfprintf(L->err, fmt, ap);
    fputc('\n', L->err);
    dsr__buf_free(&field);
    L->problems++;
}

void dsr__load_problem(dsr_loader *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vproblem_at(L, false, 0, fmt, ap);
    va_end(ap);
}

void dsr__load_problem_key(dsr_loader *L, int nth, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vproblem_at(L, true, nth, fmt, ap);
    va_end(ap);
}

const char *dsr__load_type_name(const cJSON *v)
{
    if (cJSON_IsObject(v)) return "an object";
    if (cJSON_IsArray(v)) return "a list";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsBool(v)) return "a boolean";
    return "null";
}

/* Duplicate keys are legal JSON, but a case file with two "expect"s is a mistake that
 * JSON readers resolve differently (cJSON keeps the first, Python the last). Linear: an
 * object's keys go into a hash map (key -> how many times seen), so an object of 200k keys
 * costs no more than 200k lookups. */
/* Whether A, a member of the object whose members start at FIRST, repeats an earlier key for
 * the first time. For small objects: the comparisons a map would save cost less than the map
 * itself in the objects of a case (a step has two to six keys). */
static bool first_repeat(const cJSON *first, const cJSON *a)
{
    const cJSON *same = NULL;
    for (const cJSON *b = first; b != a; b = b->next)
        if (!strcmp(b->string, a->string)) {
            if (same) return false; /* said at the earlier repeat */
            same = b;
        }
    return same != NULL;
}

#define SMALL_OBJECT 8

/* Whether V is an object or an array, the only values that may hold a duplicate key: tested
 * inline (cJSON's own tests are calls into the library), and the walk does not descend into a
 * scalar, which was most of its cost on a suite of small steps. */
static bool is_container(const cJSON *v)
{
    int t = v->type & 0xFF;
    return t == cJSON_Object || t == cJSON_Array;
}

void dsr__load_duplicates(dsr_loader *L, const cJSON *v)
{
    if ((v->type & 0xFF) == cJSON_Object) {
        dsr_strmap seen = {0};
        int *count = NULL;
        int n = 0;
        for (const cJSON *a = v->child; a; a = a->next)
            n++;
        bool small = n <= SMALL_OBJECT;
        if (!small) count = dsr__xmalloc(sizeof(int) * (size_t)n);
        int k = 0;
        for (const cJSON *a = v->child; a; a = a->next, k++) {
            bool repeat;
            if (small) {
                repeat = first_repeat(v->child, a);
            } else {
                count[k] = 0;
                int first = dsr__strmap_put(&seen, a->string, k);
                repeat = first >= 0 && ++count[first] == 1;
            }
            if (repeat) {
                /* the second occurrence of a key is the one reported, once */
                dsr__load_push_key(L, a->string);
                dsr__load_problem_key(L, 1, "duplicate key \"%s\"", a->string);
                dsr__load_pop(L);
            }
            if (!is_container(a)) continue;
            dsr__load_push_key(L, a->string);
            dsr__load_duplicates(L, a);
            dsr__load_pop(L);
        }
        if (!small) {
            free(count);
            dsr__strmap_free(&seen, false);
        }
    } else if ((v->type & 0xFF) == cJSON_Array) {
        int i = 0;
        for (const cJSON *a = v->child; a; a = a->next, i++) {
            if (!is_container(a)) continue;
            dsr__load_push_index(L, i);
            dsr__load_duplicates(L, a);
            dsr__load_pop(L);
        }
    }
}

bool dsr__load_only_keys(dsr_loader *L, const cJSON *obj, const char *const *allowed)
{
    bool ok = true;
    for (const cJSON *a = obj->child; a; a = a->next) {
        bool found = false;
        for (int i = 0; allowed[i] && !found; i++)
            found = !strcmp(allowed[i], a->string);
        if (!found) {
            dsr__load_push_key(L, a->string);
            dsr_buf list = {0};
            for (int i = 0; allowed[i]; i++)
                dsr__buf_printf(&list, "%s%s", i ? ", " : "", allowed[i]);
            dsr__load_problem_key(L, 0, "unknown field \"%s\" (allowed: %s)", a->string, list.data);
            dsr__buf_free(&list);
            dsr__load_pop(L);
            ok = false;
        }
    }
    return ok;
}
