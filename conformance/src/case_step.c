/* A step of a case file (spec/case-format.md): its op (one of spec/ops.json's that a step
 * may use) and the arguments the op defines and needs, the "$name" references (bound by an
 * earlier step or a $Dn the case can have), the name it binds, and its outcome: "expect"
 * (matchers included), "raises", "either" and its alternatives ("stop" among them),
 * "expect_ranks" and "per_rank". */
#define _POSIX_C_SOURCE 200809L
#include "case_step.h"
#include "ops_table.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

#define NOPS (sizeof OPS / sizeof OPS[0])
static dsr_strmap op_index; /* name -> index in OPS, built once */

static void index_ops(void)
{
    for (size_t i = 0; i < NOPS; i++)
        dsr__strmap_put(&op_index, OPS[i].name, (int)i);
}

/* The protocol's op called OP, or NULL: by hash (every step of every case asks). */
static const op_entry *op_find(const char *op)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, index_ops);
    int i = dsr__strmap_get(&op_index, op);
    return i >= 0 ? &OPS[i] : NULL;
}

static bool listed(const char *const *list, const char *name)
{
    for (; *list; list++)
        if (!strcmp(*list, name)) return true;
    return false;
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
static void check_refs(dsr_loader *L, const cJSON *v)
{
    if (cJSON_IsString(v) && v->valuestring[0] == '$') {
        const char *name = v->valuestring + 1;
        if (name[0] == '$') return; /* "$$..." is a literal */
        if (is_device_ref(name)) {
            if (name[1] - '0' > L->max_device) L->max_device = name[1] - '0';
            return;
        }
        if (!matches_name(name)) {
            dsr__load_problem(L,
                              "\"%s\" is not a valid reference (\"$name\" with name matching "
                              "^[a-z_][a-z0-9_]*$, \"$D0\"..\"$D9\", or \"$$...\" for a literal)",
                              v->valuestring);
            return;
        }
        for (int i = 0; i < L->nbound; i++)
            if (!strcmp(L->bound[i], name)) return;
        dsr__load_problem(
            L, "reference to undefined name \"$%s\" (no earlier step binds it with \"as\")", name);
        return;
    }
    int i = 0;
    for (const cJSON *a = v->child; a && (cJSON_IsArray(v) || cJSON_IsObject(v));
         a = a->next, i++) {
        if (cJSON_IsObject(v))
            dsr__load_push_key(L, a->string);
        else
            dsr__load_push_index(L, i);
        check_refs(L, a);
        dsr__load_pop(L);
    }
}

static void check_raises(dsr_loader *L, const cJSON *v)
{
    if (!cJSON_IsString(v))
        dsr__load_problem(
            L, "must be an error kind (a string such as \"ValueError\", or \"any\"), not %s",
            dsr__load_type_name(v));
    else if (!matches_kind(v->valuestring))
        dsr__load_problem(
            L,
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
static void check_expected(dsr_loader *L, const cJSON *v, bool in_typed);

static void check_matcher(dsr_loader *L, const cJSON *m)
{
    const char *name = m->string;
    if (!strcmp(name, "$len_min")) {
        if (!cJSON_IsNumber(m) || !isfinite(m->valuedouble) ||
            m->valuedouble != floor(m->valuedouble) || m->valuedouble < 0)
            dsr__load_problem(L, "$len_min takes an integer >= 0 (the fewest elements), not %s",
                              cJSON_IsNumber(m) ? "that number" : dsr__load_type_name(m));
    } else if (!strcmp(name, "$contains") || !strcmp(name, "$each")) {
        check_expected(L, m, false);
    } else if (!strcmp(name, "$in")) {
        bool ref = cJSON_IsString(m) && m->valuestring[0] == '$' && m->valuestring[1] != '$';
        if (!ref && (!cJSON_IsArray(m) || !m->child))
            dsr__load_problem(
                L, "$in takes a non-empty list of the values it accepts, or \"$name\" of a "
                   "bound list");
        else
            check_expected(L, m, false);
    } else if (!strcmp(name, "$range")) {
        const cJSON *lo = cJSON_GetArrayItem(m, 0), *hi = cJSON_GetArrayItem(m, 1);
        if (!cJSON_IsArray(m) || cJSON_GetArraySize(m) != 2 ||
            !(cJSON_IsNull(lo) || cJSON_IsNumber(lo)) || !(cJSON_IsNull(hi) || cJSON_IsNumber(hi)))
            dsr__load_problem(L, "$range takes [low, high], each a number or null (an open end)");
        else if (cJSON_IsNumber(lo) && cJSON_IsNumber(hi) && dsr__number_cmp(lo, hi) == 1) {
            /* Exactly: [2^53 + 1, 2^53] is empty, though one double stands for both ends. */
            dsr_buf shown = {0};
            dsr__show_value(&shown, m, DSR_SHOWN_MAX);
            dsr__load_problem(L, "$range %s is empty: the low end is above the high end",
                              shown.data ? shown.data : "?");
            dsr__buf_free(&shown);
        }
    } else if (!strcmp(name, "$array")) {
        const cJSON *dt = cJSON_GetObjectItemCaseSensitive(m, "dtype");
        const cJSON *shape = cJSON_GetObjectItemCaseSensitive(m, "shape");
        const cJSON *data = cJSON_GetObjectItemCaseSensitive(m, "data");
        bool extra = false;
        for (const cJSON *k = cJSON_IsObject(m) ? m->child : NULL; k; k = k->next)
            extra = extra || (strcmp(k->string, "dtype") && strcmp(k->string, "shape") &&
                              strcmp(k->string, "data"));
        if (!cJSON_IsObject(m) || !dt || !cJSON_IsArray(shape) || !cJSON_IsArray(data) || extra) {
            dsr__load_problem(L, "$array takes {\"dtype\": a name or a matcher, \"shape\": [...], "
                                 "\"data\": [...]} and nothing else");
        } else {
            dsr__load_push_key(L, "dtype");
            check_expected(L, dt, false);
            dsr__load_pop(L);
            dsr__load_push_key(L, "shape");
            check_expected(L, shape, true);
            dsr__load_pop(L);
            dsr__load_push_key(L, "data");
            check_expected(L, data, true);
            dsr__load_pop(L);
        }
    } else if (!strcmp(name, "$close")) {
        const cJSON *to = cJSON_GetObjectItemCaseSensitive(m, "to");
        bool ok = cJSON_IsObject(m) && to;
        for (const cJSON *k = cJSON_IsObject(m) ? m->child : NULL; ok && k; k = k->next) {
            if (!strcmp(k->string, "to")) continue;
            ok = (!strcmp(k->string, "rel_eps") || !strcmp(k->string, "abs_eps")) &&
                 cJSON_IsNumber(k) && isfinite(k->valuedouble) && k->valuedouble >= 0;
        }
        ok = ok && cJSON_GetObjectItemCaseSensitive(m, "rel_eps") &&
             cJSON_GetObjectItemCaseSensitive(m, "abs_eps");
        if (!ok) {
            dsr__load_problem(L, "$close takes {\"to\": an expected value, \"rel_eps\": R, "
                                 "\"abs_eps\": A}, R and A numbers >= 0 (multiples of the "
                                 "dtype's epsilon), and nothing else");
        } else {
            dsr__load_push_key(L, "to");
            check_expected(L, to, false);
            dsr__load_pop(L);
        }
    } else if (!strcmp(name, "$type")) {
        bool known = false;
        for (int i = 0; cJSON_IsString(m) && dsr__matcher_types[i]; i++)
            known = known || !strcmp(dsr__matcher_types[i], m->valuestring);
        if (!known) {
            dsr_buf list = {0};
            list_names(&list, dsr__matcher_types);
            dsr__load_problem(L, "$type takes one of %s", list.data);
            dsr__buf_free(&list);
        }
    }
}

/* Walks an expected value (an "expect", or an alternative's): its references, its matchers
 * and, inside a typed array (an object with a string "dtype" and lists "shape" and "data"),
 * the absence of matchers: typed arrays are matched exactly. */
static void check_expected(dsr_loader *L, const cJSON *v, bool in_typed)
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
            dsr__load_push_key(L, m->string);
            bool known = false;
            for (int i = 0; dsr__matcher_names[i]; i++)
                known = known || !strcmp(dsr__matcher_names[i], m->string);
            dsr_buf list = {0};
            list_names(&list, dsr__matcher_names);
            if (in_typed)
                dsr__load_problem_key(
                    L, 0,
                    "\"%s\" inside a typed array: a typed array (an object with dtype, "
                    "shape and data) is matched exactly and holds no matcher; write "
                    "\"$%s\" for a literal key",
                    m->string, m->string);
            else if (v->child->next)
                dsr__load_problem_key(
                    L, 0,
                    "a matcher is an object of exactly one key, and \"%s\" stands beside "
                    "others; write \"$%s\" for a literal key",
                    m->string, m->string);
            else if (!known)
                dsr__load_problem_key(
                    L, 0, "unknown matcher \"%s\" (matchers: %s); write \"$%s\" for a literal key",
                    m->string, list.data, m->string);
            else
                check_matcher(L, m);
            dsr__buf_free(&list);
            dsr__load_pop(L);
            return;
        }
        bool typed = in_typed || dsr__is_typed_array(v);
        for (const cJSON *k = v->child; k; k = k->next) {
            dsr__load_push_key(L, k->string);
            check_expected(L, k, typed);
            dsr__load_pop(L);
        }
        return;
    }
    if (cJSON_IsArray(v)) {
        int i = 0;
        for (const cJSON *a = v->child; a; a = a->next, i++) {
            dsr__load_push_index(L, i);
            check_expected(L, a, in_typed);
            dsr__load_pop(L);
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
static void check_args(dsr_loader *L, const op_entry *op, const cJSON *args)
{
    for (const cJSON *a = args ? args->child : NULL; a; a = a->next) {
        if (listed(op->args, a->string)) continue;
        dsr__load_push_key(L, "args");
        dsr__load_push_key(L, a->string);
        dsr_buf list = {0};
        for (int i = 0; op->args[i]; i++)
            dsr__buf_printf(&list, "%s%s", i ? ", " : "", op->args[i]);
        if (list.data)
            dsr__load_problem_key(L, 0, "%s has no argument \"%s\" (it takes %s)", op->name,
                                  a->string, list.data);
        else
            dsr__load_problem_key(L, 0, "%s takes no arguments, not \"%s\"", op->name, a->string);
        dsr__buf_free(&list);
        dsr__load_pop(L);
        dsr__load_pop(L);
    }
    for (int i = 0; op->required[i]; i++) {
        if (args && cJSON_GetObjectItemCaseSensitive(args, op->required[i])) continue;
        if (args) dsr__load_push_key(L, "args");
        dsr__load_problem(L, "%s needs the argument \"%s\"", op->name, op->required[i]);
        if (args) dsr__load_pop(L);
    }
}

/* A call's index into a tuple result: no tuple the protocol answers has more items
 * (spec/protocol.md, "Limits": DS_CALL_MAX_ITEMS). */
#define DSR_MAX_PICK 32767

/* A `call` step's fn and pick (spec/protocol.md, "call"): fn a function or method that
 * spec/signatures.json lists for a version the case's statements cover (checked where the
 * spec has a signature table), pick an index from 0 to DSR_MAX_PICK. What a case names
 * wrongly is refused here, before any library is asked: an adapter that looks fn up in the
 * library (Python's getattr) would call whatever it names (Array.__init__). */
static void check_call(dsr_loader *L, const cJSON *args)
{
    const cJSON *fn = cJSON_GetObjectItemCaseSensitive(args, "fn");
    const cJSON *pick = cJSON_GetObjectItemCaseSensitive(args, "pick");
    const dsr_registry *reg = L->reg;
    dsr__load_push_key(L, "args");
    if (fn) {
        dsr__load_push_key(L, "fn");
        int from = cJSON_IsString(fn) && reg->have_signatures
                       ? dsr__registry_function(reg, fn->valuestring)
                       : 0;
        if (!cJSON_IsString(fn) || !fn->valuestring[0])
            dsr__load_problem(L, "must be the name of a function or method, not %s",
                              cJSON_IsString(fn) ? "\"\"" : dsr__load_type_name(fn));
        else if (from < 0)
            dsr__load_problem(L,
                              "\"%s\" is not a function or method of spec/signatures.json "
                              "(a function as the standard names it, or Array.NAME)",
                              fn->valuestring);
        else if (reg->have_signatures && L->latest_version >= 0 && from > L->latest_version)
            dsr__load_problem(L,
                              "\"%s\" appears in %s, after every version the case's statements "
                              "cover (the latest is %s)",
                              fn->valuestring, reg->versions[from],
                              reg->versions[L->latest_version]);
        dsr__load_pop(L);
    }
    if (pick) {
        dsr__load_push_key(L, "pick");
        double d = cJSON_IsNumber(pick) ? pick->valuedouble : -1;
        if (!cJSON_IsNumber(pick) || d != floor(d) || d < 0 || d > DSR_MAX_PICK)
            dsr__load_problem(L,
                              "must be an integer from 0 to %d (the index of an item of the "
                              "result's tuple), not %s",
                              DSR_MAX_PICK,
                              cJSON_IsNumber(pick) ? "that number" : dsr__load_type_name(pick));
        dsr__load_pop(L);
    }
    dsr__load_pop(L);
}

static const char *const STEP_KEYS[] = {"op",     "args",   "as",           "expect",
                                        "raises", "either", "expect_ranks", NULL};
static const char *const ALT_KEYS[] = {"expect", "raises", "expect_ranks", "stop", NULL};

/* One expected value per rank of the case, in rank order (spec/case-format.md); L's path is
 * at the key. */
static void check_per_rank(dsr_loader *L, const cJSON *per_rank)
{
    if (!cJSON_IsArray(per_rank) || cJSON_GetArraySize(per_rank) != L->ranks) {
        dsr__load_problem(L, "must be a list of %d expected values, one per rank of the case",
                          L->ranks);
        return;
    }
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, per_rank)
    {
        dsr__load_push_index(L, i++);
        check_expected(L, e, false);
        dsr__load_pop(L);
    }
}

/* A step's "op": one of spec/ops.json's that a step may use, set in ST. Returns its entry,
 * or NULL. */
static const op_entry *load_op(dsr_loader *L, dsr_step *st, const cJSON *v)
{
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(v, "op");
    const op_entry *entry = NULL;
    dsr__load_push_key(L, "op");
    if (!op)
        dsr__load_problem_key(L, 0, "missing");
    else if (!cJSON_IsString(op))
        dsr__load_problem(L, "must be a string, not %s", dsr__load_type_name(op));
    else if (!(entry = op_find(op->valuestring)))
        dsr__load_problem(L, "unknown op \"%s\" (see spec/protocol.md)", op->valuestring);
    else if (!entry->step)
        dsr__load_problem(L, "\"%s\" is sent by the runner itself and cannot be a step",
                          op->valuestring);
    else
        st->op = op->valuestring;
    dsr__load_pop(L);
    /* a missing "op" is located at the step itself */
    return entry;
}

/* An "either": a non-empty list of alternatives, each one of "expect", "raises" or
 * "expect_ranks", with an optional "stop". */
static void check_either(dsr_loader *L, const cJSON *either)
{
    if (!cJSON_IsArray(either) || cJSON_GetArraySize(either) == 0)
        dsr__load_problem(L, "must be a non-empty list of alternatives ({\"expect\": ...} or "
                             "{\"raises\": ...}, either with an optional \"stop\": true)");
    else {
        int i = 0;
        const cJSON *alt;
        cJSON_ArrayForEach(alt, either)
        {
            dsr__load_push_index(L, i++);
            if (!cJSON_IsObject(alt)) {
                dsr__load_problem(L, "an alternative must be an object, not %s",
                                  dsr__load_type_name(alt));
            } else {
                dsr__load_only_keys(L, alt, ALT_KEYS);
                const cJSON *ae = cJSON_GetObjectItemCaseSensitive(alt, "expect");
                const cJSON *ar = cJSON_GetObjectItemCaseSensitive(alt, "raises");
                const cJSON *ak = cJSON_GetObjectItemCaseSensitive(alt, "expect_ranks");
                if ((ae && ar) || (ak && (ae || ar))) {
                    dsr__load_push_key(L, ar ? "raises" : "expect_ranks");
                    dsr__load_problem_key(
                        L, 0,
                        "an alternative has exactly one of \"expect\", \"raises\" "
                        "and \"expect_ranks\"");
                    dsr__load_pop(L);
                } else if (!ae && !ar && !ak) {
                    dsr__load_problem(L, "an alternative needs \"expect\", \"raises\" or "
                                         "\"expect_ranks\"");
                } else if (ak) {
                    dsr__load_push_key(L, "expect_ranks");
                    check_per_rank(L, ak);
                    dsr__load_pop(L);
                } else if (ae) {
                    dsr__load_push_key(L, "expect");
                    check_expected(L, ae, false);
                    dsr__load_pop(L);
                } else {
                    dsr__load_push_key(L, "raises");
                    check_raises(L, ar);
                    dsr__load_pop(L);
                }
                const cJSON *stop = cJSON_GetObjectItemCaseSensitive(alt, "stop");
                if (stop && !cJSON_IsBool(stop)) {
                    dsr__load_push_key(L, "stop");
                    dsr__load_problem(L, "must be true or false, not %s",
                                      dsr__load_type_name(stop));
                    dsr__load_pop(L);
                }
            }
            dsr__load_pop(L);
        }
    }
}

/* A step's fields in the order spec/schema/case.json lists them, each problem reported at the
 * path built so far. */
/* A step's members that dsr__load_step reads, each the first of its key as
 * cJSON_GetObjectItemCaseSensitive finds it, in one pass over the step's keys: eleven lookups
 * by name were a fifth of loading a step. */
typedef struct step_members {
    const cJSON *args, *as, *expect, *either, *expect_ranks, *raises;
} step_members;

static step_members step_members_of(const cJSON *v)
{
    step_members m = {0};
    for (const cJSON *a = v->child; a; a = a->next) {
        const char *k = a->string;
        const cJSON **slot = NULL;
        if (!strcmp(k, "args"))
            slot = &m.args;
        else if (!strcmp(k, "as"))
            slot = &m.as;
        else if (!strcmp(k, "expect"))
            slot = &m.expect;
        else if (!strcmp(k, "either"))
            slot = &m.either;
        else if (!strcmp(k, "expect_ranks"))
            slot = &m.expect_ranks;
        else if (!strcmp(k, "raises"))
            slot = &m.raises;
        if (slot && !*slot) *slot = a;
    }
    return m;
}

void dsr__load_step(dsr_loader *L, dsr_step *st, const cJSON *v)
{
    memset(st, 0, sizeof *st);
    if (!cJSON_IsObject(v)) {
        dsr__load_problem(L, "a step must be an object, not %s", dsr__load_type_name(v));
        return;
    }
    dsr__load_only_keys(L, v, STEP_KEYS);
    const op_entry *entry = load_op(L, st, v);

    step_members m = step_members_of(v);
    const cJSON *args = m.args;
    if (args) {
        dsr__load_push_key(L, "args");
        if (!cJSON_IsObject(args))
            dsr__load_problem(L, "must be an object, not %s", dsr__load_type_name(args));
        else {
            st->args = (cJSON *)args;
            check_refs(L, args);
        }
        dsr__load_pop(L);
    }
    if (st->op && (!args || cJSON_IsObject(args))) check_args(L, entry, args);
    if (st->op && !strcmp(st->op, "call") && cJSON_IsObject(args)) check_call(L, args);

    const cJSON *expect = m.expect, *raises = m.raises, *either = m.either;
    const cJSON *per_rank = m.expect_ranks;
    int outcomes = (expect != NULL) + (raises != NULL) + (either != NULL) + (per_rank != NULL);
    if (outcomes > 1) {
        dsr__load_push_key(L, raises ? "raises" : either ? "either" : "expect_ranks");
        dsr__load_problem_key(L, 0,
                              "a step has at most one of \"expect\", \"raises\", \"either\", "
                              "\"expect_ranks\"");
        dsr__load_pop(L);
    }
    if (per_rank) {
        /* One expected value per rank of the case, in rank order (spec/case-format.md). */
        dsr__load_push_key(L, "expect_ranks");
        check_per_rank(L, per_rank);
        dsr__load_pop(L);
        st->outcome = DSR_OUTCOME_EXPECT_RANKS;
        st->value = (cJSON *)per_rank;
    }
    if (expect) {
        dsr__load_push_key(L, "expect");
        check_expected(L, expect, false);
        dsr__load_pop(L);
        st->outcome = DSR_OUTCOME_EXPECT;
        st->value = (cJSON *)expect;
    } else if (raises) {
        dsr__load_push_key(L, "raises");
        check_raises(L, raises);
        dsr__load_pop(L);
        st->outcome = DSR_OUTCOME_RAISES;
        st->value = (cJSON *)raises;
    } else if (either) {
        dsr__load_push_key(L, "either");
        check_either(L, either);
        dsr__load_pop(L);
        st->outcome = DSR_OUTCOME_EITHER;
        st->value = (cJSON *)either;
    }

    /* "as" binds after the step, so its own args and expectation cannot use the name. */
    const cJSON *as = m.as;
    if (as) {
        dsr__load_push_key(L, "as");
        if (!cJSON_IsString(as))
            dsr__load_problem(L, "must be a string, not %s", dsr__load_type_name(as));
        else if (!matches_name(as->valuestring))
            dsr__load_problem(
                L, "\"%s\" is not a valid name (^[a-z_][a-z0-9_]*$; D0..D9 are reserved)",
                as->valuestring);
        else {
            /* Reported, and bound all the same, so later references add no second problem. */
            if (may_raise_on(v))
                dsr__load_problem(
                    L,
                    "a step that may raise binds nothing: after an error \"$%s\" would be "
                    "null (give each raising alternative \"stop\": true, or drop \"as\")",
                    as->valuestring);
            st->as = as->valuestring;
            L->bound = dsr__xrealloc(L->bound, sizeof(char *) * (size_t)(L->nbound + 1));
            L->bound[L->nbound++] = as->valuestring;
        }
        dsr__load_pop(L);
    }
}
