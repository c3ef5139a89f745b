/* Loading and validating case files (spec/case-format.md). Every file is parsed and
 * checked before anything runs; each problem is reported with file, line, column and the
 * field at fault. The rules are those of spec/schema/case.json plus what a schema cannot
 * say: unknown features and statements, case IDs unique across the suite, references to
 * names no earlier step binds, duplicate object keys. */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"
#include "ops_table.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The ops of the protocol (spec/ops.json): whether a step may use each, the arguments it
 * defines and those it needs. */
typedef struct op_entry {
    const char *name;
    bool step;
    const char *const *args;
    const char *const *required;
} op_entry;

static const op_entry OPS[] = {
#define X(name, step, args, required) {name, step, args, required},
    DSR_OPS(X)
#undef X
};

/* The protocol's op called OP, or NULL. */
static const op_entry *op_find(const char *op)
{
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (!strcmp(OPS[i].name, op)) return &OPS[i];
    return NULL;
}

static bool listed(const char *const *list, const char *name)
{
    for (; *list; list++)
        if (!strcmp(*list, name)) return true;
    return false;
}

#define MAX_DEPTH 64

typedef struct loader {
    const dsr_registry *reg;
    dsr_file *file;
    FILE *err;
    int problems;
    dsr_seg path[MAX_DEPTH];
    int depth;
    /* names bound so far in the current case */
    const char **bound;
    int nbound;
    int max_device;        /* highest $Dn mentioned, -1 for none */
    int ranks;             /* the case's ranks, for expect_ranks */
    bool informative_only; /* every statement the case cites is informative */
} loader;

static void push_key(loader *L, const char *key)
{
    if (L->depth < MAX_DEPTH) L->path[L->depth] = (dsr_seg){.key = key};
    L->depth++;
}

static void push_index(loader *L, int i)
{
    if (L->depth < MAX_DEPTH) L->path[L->depth] = (dsr_seg){.index = i};
    L->depth++;
}

static void pop(loader *L)
{
    L->depth--;
}

static void vproblem_at(loader *L, bool at_key, int nth, const char *fmt, va_list ap)
{
    int depth = L->depth < MAX_DEPTH ? L->depth : MAX_DEPTH;
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

__attribute__((format(printf, 2, 3))) static void problem(loader *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vproblem_at(L, false, 0, fmt, ap);
    va_end(ap);
}

__attribute__((format(printf, 3, 4))) static void problem_key(loader *L, int nth, const char *fmt,
                                                              ...)
{
    va_list ap;
    va_start(ap, fmt);
    vproblem_at(L, true, nth, fmt, ap);
    va_end(ap);
}

static const char *type_name(const cJSON *v)
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
static void check_duplicates(loader *L, const cJSON *v)
{
    if (cJSON_IsObject(v)) {
        dsr_strmap seen = {0};
        int *count = NULL;
        int n = 0;
        for (const cJSON *a = v->child; a; a = a->next)
            n++;
        count = dsr__xmalloc(sizeof(int) * (size_t)(n ? n : 1));
        int k = 0;
        for (const cJSON *a = v->child; a; a = a->next, k++) {
            count[k] = 0;
            int first = dsr__strmap_put(&seen, a->string, k);
            if (first >= 0 && ++count[first] == 1) {
                /* the second occurrence of a key is the one reported, once */
                push_key(L, a->string);
                problem_key(L, 1, "duplicate key \"%s\"", a->string);
                pop(L);
            }
            push_key(L, a->string);
            check_duplicates(L, a);
            pop(L);
        }
        free(count);
        dsr__strmap_free(&seen, false);
    } else if (cJSON_IsArray(v)) {
        int i = 0;
        for (const cJSON *a = v->child; a; a = a->next, i++) {
            push_index(L, i);
            check_duplicates(L, a);
            pop(L);
        }
    }
}

static bool only_keys(loader *L, const cJSON *obj, const char *const *allowed)
{
    bool ok = true;
    for (const cJSON *a = obj->child; a; a = a->next) {
        bool found = false;
        for (int i = 0; allowed[i]; i++)
            if (!strcmp(allowed[i], a->string)) found = true;
        if (!found) {
            push_key(L, a->string);
            dsr_buf list = {0};
            for (int i = 0; allowed[i]; i++)
                dsr__buf_printf(&list, "%s%s", i ? ", " : "", allowed[i]);
            problem_key(L, 0, "unknown field \"%s\" (allowed: %s)", a->string, list.data);
            dsr__buf_free(&list);
            pop(L);
            ok = false;
        }
    }
    return ok;
}

static bool matches_id(const char *s)
{
    /* ^[a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)*$ */
    bool start = true;
    if (!*s) return false;
    for (; *s; s++) {
        char c = *s;
        bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (start) {
            if (!alnum) return false;
            start = false;
        } else if (c == '.') {
            start = true;
        } else if (!alnum && c != '_' && c != '-') {
            return false;
        }
    }
    return !start;
}

static bool matches_name(const char *s)
{
    /* ^[a-z_][a-z0-9_]*$ */
    if (!((*s >= 'a' && *s <= 'z') || *s == '_')) return false;
    for (s++; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')) return false;
    return true;
}

static bool matches_kind(const char *s)
{
    /* ^(any|[A-Z][A-Za-z0-9_]*)$ */
    if (!strcmp(s, "any")) return true;
    if (!(*s >= 'A' && *s <= 'Z')) return false;
    for (s++; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    return true;
}

static bool is_device_ref(const char *name)
{
    return name[0] == 'D' && name[1] >= '0' && name[1] <= '9' && !name[2];
}

/* Walks a value (args or an expectation) checking every "$name" reference. */
static void check_refs(loader *L, const cJSON *v)
{
    if (cJSON_IsString(v) && v->valuestring[0] == '$') {
        const char *name = v->valuestring + 1;
        if (name[0] == '$') return; /* "$$..." is a literal */
        if (is_device_ref(name)) {
            if (name[1] - '0' > L->max_device) L->max_device = name[1] - '0';
            return;
        }
        if (!matches_name(name)) {
            problem(L,
                    "\"%s\" is not a valid reference (\"$name\" with name matching "
                    "^[a-z_][a-z0-9_]*$, \"$D0\"..\"$D9\", or \"$$...\" for a literal)",
                    v->valuestring);
            return;
        }
        for (int i = 0; i < L->nbound; i++)
            if (!strcmp(L->bound[i], name)) return;
        problem(L, "reference to undefined name \"$%s\" (no earlier step binds it with \"as\")",
                name);
        return;
    }
    int i = 0;
    for (const cJSON *a = v->child; a && (cJSON_IsArray(v) || cJSON_IsObject(v));
         a = a->next, i++) {
        if (cJSON_IsObject(v))
            push_key(L, a->string);
        else
            push_index(L, i);
        check_refs(L, a);
        pop(L);
    }
}

static void check_raises(loader *L, const cJSON *v)
{
    if (!cJSON_IsString(v))
        problem(L, "must be an error kind (a string such as \"ValueError\", or \"any\"), not %s",
                type_name(v));
    else if (!matches_kind(v->valuestring))
        problem(L,
                "\"%s\" is not an error kind (an exception name such as \"ValueError\", or "
                "\"any\": ^(any|[A-Z][A-Za-z0-9_]*)$)",
                v->valuestring);
}

static void list_names(dsr_buf *b, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        dsr__buf_printf(b, "%s%s", i ? ", " : "", names[i]);
}

/* Checks a matcher's operand (spec/case-format.md, "Matchers"). L's path is at the key. */
static void check_expected(loader *L, const cJSON *v, bool in_typed);

static void check_matcher(loader *L, const cJSON *m)
{
    const char *name = m->string;
    if (!strcmp(name, "$len_min")) {
        if (!cJSON_IsNumber(m) || !isfinite(m->valuedouble) ||
            m->valuedouble != floor(m->valuedouble) || m->valuedouble < 0)
            problem(L, "$len_min takes an integer >= 0 (the fewest elements), not %s",
                    cJSON_IsNumber(m) ? "that number" : type_name(m));
    } else if (!strcmp(name, "$contains") || !strcmp(name, "$each")) {
        check_expected(L, m, false);
    } else if (!strcmp(name, "$in")) {
        bool ref = cJSON_IsString(m) && m->valuestring[0] == '$' && m->valuestring[1] != '$';
        if (!ref && (!cJSON_IsArray(m) || !m->child))
            problem(L, "$in takes a non-empty list of the values it accepts, or \"$name\" of a "
                       "bound list");
        else
            check_expected(L, m, false);
    } else if (!strcmp(name, "$range")) {
        const cJSON *lo = cJSON_GetArrayItem(m, 0), *hi = cJSON_GetArrayItem(m, 1);
        if (!cJSON_IsArray(m) || cJSON_GetArraySize(m) != 2 ||
            !(cJSON_IsNull(lo) || cJSON_IsNumber(lo)) || !(cJSON_IsNull(hi) || cJSON_IsNumber(hi)))
            problem(L, "$range takes [low, high], each a number or null (an open end)");
        else if (cJSON_IsNumber(lo) && cJSON_IsNumber(hi) && lo->valuedouble > hi->valuedouble)
            problem(L, "$range [%.17g, %.17g] is empty: the low end is above the high end",
                    lo->valuedouble, hi->valuedouble);
    } else if (!strcmp(name, "$array")) {
        const cJSON *dt = cJSON_GetObjectItemCaseSensitive(m, "dtype");
        const cJSON *shape = cJSON_GetObjectItemCaseSensitive(m, "shape");
        const cJSON *data = cJSON_GetObjectItemCaseSensitive(m, "data");
        bool extra = false;
        for (const cJSON *k = cJSON_IsObject(m) ? m->child : NULL; k; k = k->next)
            extra = extra || (strcmp(k->string, "dtype") && strcmp(k->string, "shape") &&
                              strcmp(k->string, "data"));
        if (!cJSON_IsObject(m) || !dt || !cJSON_IsArray(shape) || !cJSON_IsArray(data) || extra) {
            problem(L, "$array takes {\"dtype\": a name or a matcher, \"shape\": [...], "
                       "\"data\": [...]} and nothing else");
        } else {
            push_key(L, "dtype");
            check_expected(L, dt, false);
            pop(L);
            push_key(L, "shape");
            check_expected(L, shape, true);
            pop(L);
            push_key(L, "data");
            check_expected(L, data, true);
            pop(L);
        }
    } else if (!strcmp(name, "$type")) {
        bool known = false;
        for (int i = 0; cJSON_IsString(m) && dsr__matcher_types[i]; i++)
            known = known || !strcmp(dsr__matcher_types[i], m->valuestring);
        if (!known) {
            dsr_buf list = {0};
            list_names(&list, dsr__matcher_types);
            problem(L, "$type takes one of %s", list.data);
            dsr__buf_free(&list);
        }
    }
}

/* Walks an expected value (an "expect", or an alternative's): its references, its matchers
 * and, inside a typed array (an object with a string "dtype" and lists "shape" and "data"),
 * the absence of matchers: typed arrays are matched exactly. */
static void check_expected(loader *L, const cJSON *v, bool in_typed)
{
    if (cJSON_IsString(v)) {
        check_refs(L, v);
        return;
    }
    if (cJSON_IsObject(v)) {
        const cJSON *m = NULL;
        for (const cJSON *k = v->child; k && !m; k = k->next)
            if (dsr__is_matcher_key(k->string)) m = k;
        if (m) {
            push_key(L, m->string);
            bool known = false;
            for (int i = 0; dsr__matcher_names[i]; i++)
                known = known || !strcmp(dsr__matcher_names[i], m->string);
            dsr_buf list = {0};
            list_names(&list, dsr__matcher_names);
            if (in_typed)
                problem_key(L, 0,
                            "\"%s\" inside a typed array: a typed array (an object with dtype, "
                            "shape and data) is matched exactly and holds no matcher; write "
                            "\"$%s\" for a literal key",
                            m->string, m->string);
            else if (v->child->next)
                problem_key(L, 0,
                            "a matcher is an object of exactly one key, and \"%s\" stands beside "
                            "others; write \"$%s\" for a literal key",
                            m->string, m->string);
            else if (!known)
                problem_key(
                    L, 0, "unknown matcher \"%s\" (matchers: %s); write \"$%s\" for a literal key",
                    m->string, list.data, m->string);
            else
                check_matcher(L, m);
            dsr__buf_free(&list);
            pop(L);
            return;
        }
        bool typed = in_typed || dsr__is_typed_array(v);
        for (const cJSON *k = v->child; k; k = k->next) {
            push_key(L, k->string);
            check_expected(L, k, typed);
            pop(L);
        }
        return;
    }
    if (cJSON_IsArray(v)) {
        int i = 0;
        for (const cJSON *a = v->child; a; a = a->next, i++) {
            push_index(L, i);
            check_expected(L, a, in_typed);
            pop(L);
        }
    }
}

/* True when the step STEP may end in an error and the case go on: a "raises", or an
 * "either" with a raising alternative that does not stop the case. Such a step binds
 * nothing with "as" (spec/case-format.md): after an error there is no result. This is
 * spec/schema/case.json's $defs/step_may_raise; the runner's tests (the schema and
 * validators groups) check that the loader and the schema agree. */
static bool may_raise_on(const cJSON *step)
{
    if (cJSON_GetObjectItemCaseSensitive(step, "raises")) return true;
    const cJSON *alt;
    cJSON_ArrayForEach(alt, cJSON_GetObjectItemCaseSensitive(step, "either"))
    {
        if (cJSON_GetObjectItemCaseSensitive(alt, "raises") &&
            !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(alt, "stop")))
            return true;
    }
    return false;
}

/* A step's args name only arguments its op defines, and every one it needs (spec/ops.json,
 * as case.json's $defs/step_args says); ARGS may be NULL. */
static void check_args(loader *L, const op_entry *op, const cJSON *args)
{
    for (const cJSON *a = args ? args->child : NULL; a; a = a->next) {
        if (listed(op->args, a->string)) continue;
        push_key(L, "args");
        push_key(L, a->string);
        dsr_buf list = {0};
        for (int i = 0; op->args[i]; i++)
            dsr__buf_printf(&list, "%s%s", i ? ", " : "", op->args[i]);
        if (list.data)
            problem_key(L, 0, "%s has no argument \"%s\" (it takes %s)", op->name, a->string,
                        list.data);
        else
            problem_key(L, 0, "%s takes no arguments, not \"%s\"", op->name, a->string);
        dsr__buf_free(&list);
        pop(L);
        pop(L);
    }
    for (int i = 0; op->required[i]; i++) {
        if (args && cJSON_GetObjectItemCaseSensitive(args, op->required[i])) continue;
        if (args) push_key(L, "args");
        problem(L, "%s needs the argument \"%s\"", op->name, op->required[i]);
        if (args) pop(L);
    }
}

static const char *const STEP_KEYS[] = {"op",     "args",   "as",           "expect",
                                        "raises", "either", "expect_ranks", NULL};
static const char *const ALT_KEYS[] = {"expect", "raises", "expect_ranks", "stop", NULL};

/* One expected value per rank of the case, in rank order (spec/case-format.md); L's path is
 * at the key. */
static void check_per_rank(loader *L, const cJSON *per_rank)
{
    if (!cJSON_IsArray(per_rank) || cJSON_GetArraySize(per_rank) != L->ranks) {
        problem(L, "must be a list of %d expected values, one per rank of the case", L->ranks);
        return;
    }
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, per_rank)
    {
        push_index(L, i++);
        check_expected(L, e, false);
        pop(L);
    }
}

/* Long: a step's fields in the order spec/schema/case.json lists them, each problem reported at
 * the path built so far; a function per field would pass the loader's path around for one check
 * each. */
static void load_step(loader *L, dsr_step *st, const cJSON *v)
{
    memset(st, 0, sizeof *st);
    if (!cJSON_IsObject(v)) {
        problem(L, "a step must be an object, not %s", type_name(v));
        return;
    }
    only_keys(L, v, STEP_KEYS);
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(v, "op");
    const op_entry *entry = NULL;
    push_key(L, "op");
    if (!op)
        problem_key(L, 0, "missing");
    else if (!cJSON_IsString(op))
        problem(L, "must be a string, not %s", type_name(op));
    else if (!(entry = op_find(op->valuestring)))
        problem(L, "unknown op \"%s\" (see spec/protocol.md)", op->valuestring);
    else if (!entry->step)
        problem(L, "\"%s\" is sent by the runner itself and cannot be a step", op->valuestring);
    else
        st->op = op->valuestring;
    pop(L);
    if (!op) {
        /* "missing" was located at the step itself */
    }

    const cJSON *args = cJSON_GetObjectItemCaseSensitive(v, "args");
    if (args) {
        push_key(L, "args");
        if (!cJSON_IsObject(args))
            problem(L, "must be an object, not %s", type_name(args));
        else {
            st->args = (cJSON *)args;
            check_refs(L, args);
        }
        pop(L);
    }
    if (st->op && (!args || cJSON_IsObject(args))) check_args(L, entry, args);

    int outcomes = 0;
    const char *names[] = {"expect", "raises", "either", "expect_ranks"};
    for (int k = 0; k < 4; k++)
        if (cJSON_GetObjectItemCaseSensitive(v, names[k])) outcomes++;
    if (outcomes > 1) {
        push_key(L, cJSON_GetObjectItemCaseSensitive(v, "raises")   ? "raises"
                    : cJSON_GetObjectItemCaseSensitive(v, "either") ? "either"
                                                                    : "expect_ranks");
        problem_key(L, 0,
                    "a step has at most one of \"expect\", \"raises\", \"either\", "
                    "\"expect_ranks\"");
        pop(L);
    }
    const cJSON *per_rank = cJSON_GetObjectItemCaseSensitive(v, "expect_ranks");
    if (per_rank) {
        /* One expected value per rank of the case, in rank order (spec/case-format.md). */
        push_key(L, "expect_ranks");
        check_per_rank(L, per_rank);
        pop(L);
        st->outcome = DSR_OUTCOME_EXPECT_RANKS;
        st->value = (cJSON *)per_rank;
    }
    const cJSON *expect = cJSON_GetObjectItemCaseSensitive(v, "expect");
    const cJSON *raises = cJSON_GetObjectItemCaseSensitive(v, "raises");
    const cJSON *either = cJSON_GetObjectItemCaseSensitive(v, "either");
    if (expect) {
        push_key(L, "expect");
        check_expected(L, expect, false);
        pop(L);
        st->outcome = DSR_OUTCOME_EXPECT;
        st->value = (cJSON *)expect;
    } else if (raises) {
        push_key(L, "raises");
        check_raises(L, raises);
        pop(L);
        st->outcome = DSR_OUTCOME_RAISES;
        st->value = (cJSON *)raises;
    } else if (either) {
        push_key(L, "either");
        if (!cJSON_IsArray(either) || cJSON_GetArraySize(either) == 0)
            problem(L, "must be a non-empty list of alternatives ({\"expect\": ...} or "
                       "{\"raises\": ...}, either with an optional \"stop\": true)");
        else {
            int i = 0;
            const cJSON *alt;
            cJSON_ArrayForEach(alt, either)
            {
                push_index(L, i++);
                if (!cJSON_IsObject(alt)) {
                    problem(L, "an alternative must be an object, not %s", type_name(alt));
                } else {
                    only_keys(L, alt, ALT_KEYS);
                    const cJSON *ae = cJSON_GetObjectItemCaseSensitive(alt, "expect");
                    const cJSON *ar = cJSON_GetObjectItemCaseSensitive(alt, "raises");
                    const cJSON *ak = cJSON_GetObjectItemCaseSensitive(alt, "expect_ranks");
                    if ((ae && ar) || (ak && (ae || ar))) {
                        push_key(L, ar ? "raises" : "expect_ranks");
                        problem_key(L, 0,
                                    "an alternative has exactly one of \"expect\", \"raises\" "
                                    "and \"expect_ranks\"");
                        pop(L);
                    } else if (!ae && !ar && !ak) {
                        problem(L, "an alternative needs \"expect\", \"raises\" or "
                                   "\"expect_ranks\"");
                    } else if (ak) {
                        push_key(L, "expect_ranks");
                        check_per_rank(L, ak);
                        pop(L);
                    } else if (ae) {
                        push_key(L, "expect");
                        check_expected(L, ae, false);
                        pop(L);
                    } else {
                        push_key(L, "raises");
                        check_raises(L, ar);
                        pop(L);
                    }
                    const cJSON *stop = cJSON_GetObjectItemCaseSensitive(alt, "stop");
                    if (stop && !cJSON_IsBool(stop)) {
                        push_key(L, "stop");
                        problem(L, "must be true or false, not %s", type_name(stop));
                        pop(L);
                    }
                }
                pop(L);
            }
        }
        pop(L);
        st->outcome = DSR_OUTCOME_EITHER;
        st->value = (cJSON *)either;
    }

    /* "as" binds after the step, so its own args and expectation cannot use the name. */
    const cJSON *as = cJSON_GetObjectItemCaseSensitive(v, "as");
    if (as) {
        push_key(L, "as");
        if (!cJSON_IsString(as))
            problem(L, "must be a string, not %s", type_name(as));
        else if (!matches_name(as->valuestring))
            problem(L, "\"%s\" is not a valid name (^[a-z_][a-z0-9_]*$; D0..D9 are reserved)",
                    as->valuestring);
        else {
            /* Reported, and bound all the same, so later references add no second problem. */
            if (may_raise_on(v))
                problem(L,
                        "a step that may raise binds nothing: after an error \"$%s\" would be "
                        "null (give each raising alternative \"stop\": true, or drop \"as\")",
                        as->valuestring);
            st->as = as->valuestring;
            L->bound = dsr__xrealloc(L->bound, sizeof(char *) * (size_t)(L->nbound + 1));
            L->bound[L->nbound++] = as->valuestring;
        }
        pop(L);
    }
}

static const char **load_string_list(loader *L, const cJSON *v, const char *what, int *n,
                                     bool (*known)(loader *, const char *))
{
    *n = 0;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0) {
        problem(L, "must be a non-empty list of %s", what);
        return NULL;
    }
    const char **out = dsr__xmalloc(sizeof(char *) * (size_t)cJSON_GetArraySize(v));
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, v)
    {
        push_index(L, i++);
        if (!cJSON_IsString(it)) {
            problem(L, "must be a string (one of the %s), not %s", what, type_name(it));
        } else {
            bool dup = false;
            for (int k = 0; k < *n; k++)
                if (!strcmp(out[k], it->valuestring)) dup = true;
            /* The schema allows a name twice; it is kept once. */
            if (known(L, it->valuestring) && !dup) out[(*n)++] = it->valuestring;
        }
        pop(L);
    }
    return out;
}

static bool statement_pattern(const char *s)
{
    /* ^[A-Z]+(-[A-Z]+)*-[0-9]+[a-z]?$ : upper-case words joined by '-', then a number */
    const char *dash = strrchr(s, '-');
    if (!dash || dash == s) return false;
    for (const char *p = s; p < dash; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p == '-' && p > s && p[-1] != '-' && p + 1 < dash)))
            return false;
    const char *p = dash + 1;
    if (!(*p >= '0' && *p <= '9')) return false;
    while (*p >= '0' && *p <= '9')
        p++;
    if (*p >= 'a' && *p <= 'z') p++;
    return *p == '\0';
}

static bool feature_pattern(const char *s)
{
    /* ^[a-z0-9]+(-[a-z0-9]+)*$ */
    bool start = true;
    for (; *s; s++) {
        bool alnum = (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9');
        if (alnum)
            start = false;
        else if (*s == '-' && !start)
            start = true;
        else
            return false;
    }
    return !start;
}

static bool known_statement(loader *L, const char *id)
{
    if (!statement_pattern(id)) {
        problem(L, "\"%s\" is not a statement ID (^[A-Z]+(-[A-Z]+)*-[0-9]+[a-z]?$)", id);
        return false;
    }
    if (dsr__registry_retired(L->reg, id)) {
        problem(L, "statement \"%s\" is retired (spec/statements.json)", id);
        return false;
    }
    const dsr_statement *st = dsr__registry_statement(L->reg, id);
    if (L->reg->have_statements && !st) {
        problem(L, "unknown statement \"%s\" (not in spec/statements.json)", id);
        return false;
    }
    /* spec/README.md: unspecified statements are recorded, never checked; informative ones
     * only by a case that cites nothing else. */
    if (st && st->level[0] && strcmp(st->level, "must") && strcmp(st->level, "should") &&
        strcmp(st->level, "may") && strcmp(st->level, "implementation-defined") &&
        !(L->informative_only && !strcmp(st->level, "informative"))) {
        problem(L,
                "statement \"%s\" is %s; cases check only must, should, may and "
                "implementation-defined statements, or informative ones cited alone",
                id, st->level);
        return false;
    }
    return true;
}

static bool known_feature(loader *L, const char *name)
{
    if (!feature_pattern(name)) {
        problem(L, "\"%s\" is not a feature name (^[a-z0-9]+(-[a-z0-9]+)*$)", name);
        return false;
    }
    if (!dsr__registry_feature(L->reg, name)) {
        problem(L, "unknown feature \"%s\" (not in spec/features.json)", name);
        return false;
    }
    return true;
}

static const char *const CASE_KEYS[] = {"id",      "description", "spec",  "features",
                                        "devices", "ranks",       "steps", NULL};

/* Long: a case's fields in the order spec/schema/case.json lists them, as load_step. */
static void load_case(loader *L, dsr_case *c, const cJSON *v)
{
    memset(c, 0, sizeof *c);
    c->file = L->file;
    if (!cJSON_IsObject(v)) {
        problem(L, "a case must be an object, not %s", type_name(v));
        return;
    }
    only_keys(L, v, CASE_KEYS);

    const cJSON *id = cJSON_GetObjectItemCaseSensitive(v, "id");
    if (!id) problem(L, "missing field \"id\"");
    push_key(L, "id");
    if (id && !cJSON_IsString(id))
        problem(L, "must be a string, not %s", type_name(id));
    else if (id && !matches_id(id->valuestring))
        problem(L, "\"%s\" is not a valid case ID (^[a-z0-9][a-z0-9_-]*(\\.[a-z0-9][a-z0-9_-]*)*$)",
                id->valuestring);
    else if (id)
        c->id = id->valuestring;
    pop(L);

    /* description is optional in a case (spec/case-format.md), non-empty when present */
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(v, "description");
    if (desc) {
        push_key(L, "description");
        if (!cJSON_IsString(desc) || !desc->valuestring[0])
            problem(L, "must be a non-empty string");
        else
            c->description = desc->valuestring;
        pop(L);
    }

    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(v, "spec");
    if (!spec)
        problem(L, "missing field \"spec\"");
    else {
        push_key(L, "spec");
        /* Informative statements may be cited by a case that cites nothing else: it checks
         * only what they inform (spec/decisions.md, Runner and reports 26). */
        L->informative_only = cJSON_IsArray(spec) && spec->child;
        const cJSON *sid;
        cJSON_ArrayForEach(sid, spec)
        {
            const dsr_statement *st =
                cJSON_IsString(sid) ? dsr__registry_statement(L->reg, sid->valuestring) : NULL;
            L->informative_only = L->informative_only && st && !strcmp(st->level, "informative");
        }
        c->spec = load_string_list(L, spec, "statement IDs", &c->nspec, known_statement);
        pop(L);
    }

    const cJSON *features = cJSON_GetObjectItemCaseSensitive(v, "features");
    if (!features)
        problem(L, "missing field \"features\"");
    else {
        push_key(L, "features");
        c->features = load_string_list(L, features, "feature names", &c->nfeatures, known_feature);
        pop(L);
    }

    const cJSON *devices = cJSON_GetObjectItemCaseSensitive(v, "devices");
    if (devices) {
        push_key(L, "devices");
        double d = cJSON_IsNumber(devices) ? devices->valuedouble : 0;
        if (!cJSON_IsNumber(devices) || d != floor(d) || d < 1)
            problem(L, "must be an integer >= 1");
        else
            c->devices = d > 1e6 ? 1000000 : (int)d; /* more than any library has: a skip */
        pop(L);
    }

    const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(v, "ranks");
    c->ranks = 1;
    if (ranks) {
        push_key(L, "ranks");
        double d = cJSON_IsNumber(ranks) ? ranks->valuedouble : 0;
        if (!cJSON_IsNumber(ranks) || d != floor(d) || d < 1 || d > 1024)
            problem(L, "must be an integer from 1 to 1024");
        else
            c->ranks = (int)d;
        pop(L);
    }
    L->ranks = c->ranks;

    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(v, "steps");
    L->nbound = 0;
    L->max_device = -1;
    if (!steps)
        problem(L, "missing field \"steps\"");
    else {
        push_key(L, "steps");
        if (!cJSON_IsArray(steps) || cJSON_GetArraySize(steps) == 0)
            problem(L, "must be a non-empty list of steps");
        else {
            c->steps = dsr__xmalloc(sizeof(dsr_step) * (size_t)cJSON_GetArraySize(steps));
            const cJSON *st;
            cJSON_ArrayForEach(st, steps)
            {
                push_index(L, c->nsteps);
                load_step(L, &c->steps[c->nsteps], st);
                c->nsteps++;
                pop(L);
            }
        }
        pop(L);
    }
    if (!devices)
        c->devices = L->max_device + 1;
    else if (c->devices && c->devices < L->max_device + 1) {
        push_key(L, "devices");
        problem(L, "says %d but the steps use $D%d", c->devices, L->max_device);
        pop(L);
    }
}

static const char *const FILE_KEYS[] = {"description", "cases", NULL};

static void load_file(loader *L)
{
    dsr_file *f = L->file;
    size_t len = f->len;
    int line, col;
    /* A NUL byte is never part of a JSON text; one after a valid document must not hide
     * what follows it. */
    const char *nul = memchr(f->text, '\0', len);
    if (nul) {
        dsr__offset_to_linecol(f->text, (size_t)(nul - f->text), &line, &col);
        fprintf(L->err, "%s:%d:%d: (file): NUL byte (a case file is UTF-8 JSON text)\n", f->path,
                line, col);
        L->problems++;
        return;
    }
    long bad = dsr__utf8_invalid_at(f->text, len);
    if (bad >= 0) {
        dsr__offset_to_linecol(f->text, (size_t)bad, &line, &col);
        fprintf(L->err, "%s:%d:%d: (file): invalid UTF-8\n", f->path, line, col);
        L->problems++;
        return;
    }
    size_t end = len;
    f->root = dsj_parse(f->text, len, &end);
    if (!f->root) {
        size_t deep;
        if (dsj_too_deep(f->text, len, &deep)) {
            dsr__offset_to_linecol(f->text, deep, &line, &col);
            fprintf(L->err, "%s:%d:%d: (file): nested deeper than %d arrays and objects\n", f->path,
                    line, col, DSJ_MAX_DEPTH);
            L->problems++;
            return;
        }
        size_t off = dsr__json_error_offset(f->text, len);
        if (off >= len) /* the strict check accepts what dsj_parse refused: use its place */
            off = end;
        dsr__offset_to_linecol(f->text, off, &line, &col);
        fprintf(L->err, "%s:%d:%d: (file): invalid JSON%s\n", f->path, line, col,
                off >= len ? " (unexpected end of file)" : "");
        L->problems++;
        return;
    }
    check_duplicates(L, f->root);
    if (!cJSON_IsObject(f->root)) {
        problem(L, "a case file must be an object with \"description\" and \"cases\", not %s",
                type_name(f->root));
        return;
    }
    only_keys(L, f->root, FILE_KEYS);
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(f->root, "description");
    if (!desc)
        problem(L, "missing field \"description\"");
    else if (!cJSON_IsString(desc) || !desc->valuestring[0]) {
        push_key(L, "description");
        problem(L, "must be a non-empty string");
        pop(L);
    }
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(f->root, "cases");
    if (!cases) {
        problem(L, "missing field \"cases\"");
        return;
    }
    push_key(L, "cases");
    if (!cJSON_IsArray(cases) || cJSON_GetArraySize(cases) == 0) {
        problem(L, "must be a non-empty list of cases");
        pop(L);
        return;
    }
    f->cases = dsr__xmalloc(sizeof(dsr_case) * (size_t)cJSON_GetArraySize(cases));
    const cJSON *c;
    cJSON_ArrayForEach(c, cases)
    {
        push_index(L, f->ncases);
        load_case(L, &f->cases[f->ncases], c);
        f->cases[f->ncases].index = f->ncases;
        f->ncases++;
        pop(L);
    }
    pop(L);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void add_file(dsr_suite *s, const char *path, const char *name)
{
    s->files = dsr__xrealloc(s->files, sizeof(dsr_file) * (size_t)(s->nfiles + 1));
    dsr_file *f = &s->files[s->nfiles++];
    memset(f, 0, sizeof *f);
    f->path = dsr__xstrdup(path);
    f->name = dsr__xstrdup(name);
}

/* Identifies a file or directory by device and inode: a directory reached again through a
 * symbolic link (a loop, or two links to one place) is not searched twice, and a file is
 * never read twice. Returns true when ST was seen before. */
static bool seen_before(dsr_strmap *visited, const struct stat *st)
{
    char key[64];
    snprintf(key, sizeof key, "%llx:%llx", (unsigned long long)st->st_dev,
             (unsigned long long)st->st_ino);
    char *copy = dsr__xstrdup(key); /* the map owns its keys */
    if (dsr__strmap_put(visited, copy, 0) < 0) return false;
    free(copy);
    return true;
}

/* Searches DIR, a folder at or under the folder given, ROOT (resolved), for case files. A
 * symbolic link to a directory outside ROOT is not followed (a link to / would walk the whole
 * file system): it is named on ERR, and not counted as a problem. */
static int collect(dsr_suite *s, const char *dir, const char *prefix, dsr_strmap *visited,
                   const char *root, FILE *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(err, "%s: cannot open directory: %s\n", dir, dsr__strerror(errno));
        return 1;
    }
    char **names = NULL;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        names = dsr__xrealloc(names, sizeof(char *) * (size_t)(n + 1));
        names[n++] = dsr__xstrdup(e->d_name);
    }
    closedir(d);
    if (n) qsort(names, (size_t)n, sizeof(char *), cmp_str);
    int problems = 0;
    for (int i = 0; i < n && !dsr__interrupted; i++) {
        dsr_buf path = {0}, name = {0};
        dsr__buf_printf(&path, "%s/%s", dir, names[i]);
        dsr__buf_printf(&name, "%s%s", prefix, names[i]);
        size_t len = strlen(names[i]);
        struct stat st;
        bool is_json = len > 5 && !strcmp(names[i] + len - 5, ".json");
        if (stat(path.data, &st) != 0) {
            /* a dangling link or a file gone meanwhile: an error only where a case file
             * was meant */
            if (is_json) {
                fprintf(err, "%s: cannot read: %s\n", path.data, dsr__strerror(errno));
                problems++;
            }
        } else if (S_ISDIR(st.st_mode)) {
            struct stat lst;
            bool link = lstat(path.data, &lst) == 0 && S_ISLNK(lst.st_mode);
            char *target = link ? dsr__resolve_path(path.data) : NULL;
            size_t rn = strlen(root);
            bool outside =
                target &&
                !(strncmp(target, root, rn) == 0 &&
                  (target[rn] == '/' || target[rn] == '\0' || (rn == 1 && root[0] == '/')));
            if (outside) {
                fprintf(err,
                        "%s: not searched: a symbolic link to %s, outside the folder given "
                        "(%s)\n",
                        path.data, target, root);
            } else if (!seen_before(visited, &st)) {
                dsr__buf_puts(&name, "/");
                problems += collect(s, path.data, name.data, visited, root, err);
            }
            free(target);
        } else if (is_json) {
            if (!S_ISREG(st.st_mode)) {
                fprintf(err, "%s: not a regular file; only regular files are case files\n",
                        path.data);
                problems++;
            } else if (!seen_before(visited, &st)) {
                add_file(s, path.data, name.data);
            }
        }
        dsr__buf_free(&path);
        dsr__buf_free(&name);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return problems;
}

/* Parses and checks every file of S whose text is not yet read, then the case IDs of the
 * whole suite. */
static int load_all(dsr_suite *s, const dsr_registry *reg, FILE *err)
{
    int problems = 0;
    loader L = {.reg = reg, .err = err};
    for (int i = 0; i < s->nfiles && !dsr__interrupted; i++) {
        dsr_file *f = &s->files[i];
        if (!f->text) f->text = dsr__read_file(f->path, &f->len);
        if (!f->text) {
            fprintf(err, "%s: cannot read: %s\n", f->path, dsr__strerror(errno));
            problems++;
            continue;
        }
        L.file = f;
        L.depth = 0;
        load_file(&L);
        s->ncases += f->ncases;
    }
    free(L.bound);
    problems += L.problems;

    /* Case IDs are unique across the whole suite (spec/case-format.md): a hash map from ID
     * to the first case that has it keeps this linear in the number of cases. */
    dsr_strmap ids = {0};
    int ncases = 0;
    for (int i = 0; i < s->nfiles; i++)
        ncases += s->files[i].ncases;
    int(*where)[2] = dsr__xmalloc(sizeof *where * (size_t)(ncases ? ncases : 1));
    int k = 0;
    for (int i = 0; i < s->nfiles; i++) {
        for (int j = 0; j < s->files[i].ncases; j++) {
            const dsr_case *c = &s->files[i].cases[j];
            if (!c->id) continue;
            where[k][0] = i;
            where[k][1] = j;
            int first = dsr__strmap_put(&ids, c->id, k);
            k++;
            if (first < 0) continue;
            int i2 = where[first][0], j2 = where[first][1];
            dsr_seg here[3] = {{.key = "cases"}, {.index = j}, {.key = "id"}};
            dsr_seg there[3] = {{.key = "cases"}, {.index = j2}, {.key = "id"}};
            int l1, c1, l2, c2;
            dsr__offset_to_linecol(s->files[i].text, dsr__json_locate(s->files[i].text, here, 3),
                                   &l1, &c1);
            dsr__offset_to_linecol(s->files[i2].text, dsr__json_locate(s->files[i2].text, there, 3),
                                   &l2, &c2);
            fprintf(err, "%s:%d:%d: cases[%d].id: duplicate case ID \"%s\" (first at %s:%d:%d)\n",
                    s->files[i].path, l1, c1, j, c->id, s->files[i2].path, l2, c2);
            problems++;
        }
    }
    free(where);
    dsr__strmap_free(&ids, false);
    if (dsr__interrupted) {
        fprintf(err, "devspec: interrupted while loading the case files\n");
        problems++;
    }
    return problems;
}

int dsr__suite_load(dsr_suite *s, const dsr_registry *reg, char *const *paths, int npaths,
                    FILE *err)
{
    memset(s, 0, sizeof *s);
    int problems = 0;
    dsr_strmap visited = {0};
    for (int i = 0; i < npaths && !dsr__interrupted; i++) {
        struct stat st;
        if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            int before = s->nfiles;
            if (seen_before(&visited, &st)) continue; /* named twice */
            char *root = dsr__resolve_path(paths[i]);
            problems += collect(s, paths[i], "", &visited, root ? root : "/", err);
            free(root);
            if (s->nfiles == before && !dsr__interrupted) {
                fprintf(err, "%s: no case files (*.json) in this directory\n", paths[i]);
                problems++;
            }
        } else if (stat(paths[i], &st) == 0 && seen_before(&visited, &st)) {
            continue; /* named twice, or also found in a directory given before */
        } else {
            const char *slash = strrchr(paths[i], '/');
            add_file(s, paths[i], slash ? slash + 1 : paths[i]);
        }
    }
    dsr__strmap_free(&visited, true);
    return problems + load_all(s, reg, err);
}

int dsr__suite_load_text(dsr_suite *s, const dsr_registry *reg, const char *name, const char *text,
                         size_t len, FILE *err)
{
    memset(s, 0, sizeof *s);
    add_file(s, name, name);
    s->files[0].text = dsr__xmalloc(len + 1);
    memcpy(s->files[0].text, text, len);
    s->files[0].text[len] = '\0';
    s->files[0].len = len;
    return load_all(s, reg, err);
}

void dsr__suite_free(dsr_suite *s)
{
    for (int i = 0; i < s->nfiles; i++) {
        dsr_file *f = &s->files[i];
        for (int j = 0; j < f->ncases; j++) {
            free(f->cases[j].spec);
            free(f->cases[j].features);
            free(f->cases[j].steps);
        }
        free(f->cases);
        cJSON_Delete(f->root);
        free(f->text);
        free(f->path);
        free(f->name);
    }
    free(s->files);
    memset(s, 0, sizeof *s);
}
