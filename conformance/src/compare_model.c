/* devspec compare's model: the reports and case files read, and the matrix built from them
 * once, as a JSON document (printed by --json), from which every view is drawn (the
 * terminal table of compare_table.c, the page of compare_html.c). Every case of every
 * report becomes one row, every report one column; a cell is what the library's run
 * recorded for the case (its status and, for a step that did not hold, what was expected
 * and what came back).
 *
 * Libraries "disagree" on a case when their observed results differ: the outcome of each
 * library that ran the case (see outcome_key) is compared, skipped cells left out. */
#define _POSIX_C_SOURCE 200809L
#include "compare_model.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define COMPARE_VERSION 1

/* ---- loading -------------------------------------------------------------------------- */

typedef struct lib {
    char *path;
    char *label;
    cJSON *doc;
    const cJSON *header;
    const cJSON *footer;
    const cJSON *cases;
} lib;

typedef struct row {
    const char *id;
    const cJSON *first;  /* the case record of the first report that has it */
    const cJSON **cells; /* per library; NULL: not in that report */
} row;

typedef struct idmap {
    const char **keys;
    int *vals;
    size_t nslots;
    size_t n;
} idmap;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int idmap_get(const idmap *m, const char *k)
{
    if (!m->nslots) return -1;
    for (size_t i = hash_str(k) & (m->nslots - 1);; i = (i + 1) & (m->nslots - 1)) {
        if (!m->keys[i]) return -1;
        if (!strcmp(m->keys[i], k)) return m->vals[i];
    }
}

static void idmap_put(idmap *m, const char *k, int v)
{
    if ((m->n + 1) * 2 > m->nslots) {
        idmap bigger = {0};
        bigger.nslots = m->nslots ? m->nslots * 2 : 64;
        bigger.keys = xcalloc(bigger.nslots, sizeof *bigger.keys);
        bigger.vals = dsr__xmalloc(bigger.nslots * sizeof *bigger.vals);
        for (size_t i = 0; i < m->nslots; i++)
            if (m->keys[i]) idmap_put(&bigger, m->keys[i], m->vals[i]);
        free(m->keys);
        free(m->vals);
        *m = bigger;
    }
    size_t i = hash_str(k) & (m->nslots - 1);
    while (m->keys[i] && strcmp(m->keys[i], k))
        i = (i + 1) & (m->nslots - 1);
    if (!m->keys[i]) m->n++;
    m->keys[i] = k;
    m->vals[i] = v;
}

static void idmap_free(idmap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

static cJSON *parse_file(const char *path, FILE *err)
{
    size_t len;
    char *text = dsr__read_file(path, &len);
    if (!text) {
        fprintf(err, "devspec: cannot read %s: %s\n", path, dsr__strerror(errno));
        return NULL;
    }
    cJSON *doc = dsj_parse(text, len, NULL);
    free(text);
    if (!doc) fprintf(err, "devspec: %s is not valid JSON\n", path);
    return doc;
}

static int cmp_strp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json files of DIR (not recursive), sorted by name. */
static char **list_json(const char *dir, int *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char **out = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 6 || e->d_name[0] == '.' || strcmp(e->d_name + l - 5, ".json")) continue;
        dsr_buf p = {0};
        dsr__buf_printf(&p, "%s/%s", dir, e->d_name);
        if (dsr__is_dir(p.data)) {
            dsr__buf_free(&p);
            continue;
        }
        out = dsr__xrealloc(out, sizeof *out * (size_t)(*n + 1));
        out[(*n)++] = p.data;
    }
    closedir(d);
    if (*n) qsort(out, (size_t)*n, sizeof *out, cmp_strp);
    return out;
}

struct dsr_compare_in {
    cJSON *schema; /* spec/schema/report.json, or NULL: reports are checked against it */
    lib *libs;
    int nlibs;
    row *rows;
    int nrows;
    idmap ids;
    cJSON **casedocs; /* case files read for descriptions and steps */
    int ncasedocs;
    idmap caseids; /* case ID -> index into casedefs */
    const cJSON **casedefs;
    int ncasedefs;
    idmap labels; /* every label given so far */
    idmap bases;  /* a label as its report gives it -> index into next_suffix */
    int *next_suffix;
    int nbases;
};

static bool is_report(const cJSON *doc)
{
    const char *t = str_of(doc, "type");
    return t && !strcmp(t, "devspec-report") &&
           cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "cases")) &&
           cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "header"));
}

/* ---- reports checked against their schema on read ------------------------------------- */

/* A report is made by devspec, but read from a file anyone may have written: each value of
 * a type its schema does not allow is named and left out, so that the table and the page
 * see either the schema's type or nothing (a number as suite.commit blanked the page). Only
 * "type" is checked, through properties, additionalProperties, items and $ref: what the
 * readers rely on. */
typedef struct schema_check {
    const cJSON *root; /* the schema, for $ref */
    const char *path;  /* the report's file */
    FILE *err;
    int said;
} schema_check;

static const char *json_type(const cJSON *v)
{
    if (cJSON_IsString(v)) return "string";
    if (cJSON_IsBool(v)) return "boolean";
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsArray(v)) return "array";
    if (cJSON_IsObject(v)) return "object";
    if (cJSON_IsNumber(v))
        return v->valuedouble == (double)(long long)v->valuedouble ? "integer" : "number";
    return "?";
}

static bool type_allows(const cJSON *t, const cJSON *v)
{
    if (!t) return true;
    const char *have = json_type(v);
    const cJSON *one;
    if (cJSON_IsString(t))
        return !strcmp(t->valuestring, have) ||
               (!strcmp(t->valuestring, "number") && !strcmp(have, "integer"));
    cJSON_ArrayForEach(one, t)
    {
        if (cJSON_IsString(one) &&
            (!strcmp(one->valuestring, have) ||
             (!strcmp(one->valuestring, "number") && !strcmp(have, "integer"))))
            return true;
    }
    return !cJSON_IsArray(t);
}

static const cJSON *deref(const schema_check *sc, const cJSON *s)
{
    for (int hops = 0; hops < 8; hops++) {
        const cJSON *ref = cJSON_GetObjectItemCaseSensitive(s, "$ref");
        if (!cJSON_IsString(ref) || strncmp(ref->valuestring, "#/$defs/", 8)) return s;
        s = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(sc->root, "$defs"),
                                             ref->valuestring + 8);
    }
    return s;
}

/* Checks V against S at WHERE; false when V's type is not allowed (the caller drops it). */
static bool check_value(schema_check *sc, const cJSON *s, cJSON *v, const char *where)
{
    s = deref(sc, s);
    if (!cJSON_IsObject(s)) return true;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(s, "type");
    if (!type_allows(t, v)) {
        if (sc->said++ < 10) {
            char *want = t ? cJSON_PrintUnformatted(t) : NULL;
            fprintf(sc->err,
                    "devspec: compare: %s: %s is %s, not of the type its schema allows (%s, "
                    "spec/schema/report.json); left out\n",
                    sc->path, where, json_type(v), want ? want : "?");
            free(want);
        }
        return false;
    }
    dsr_buf w = {0};
    if (cJSON_IsObject(v)) {
        const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
        const cJSON *extra = cJSON_GetObjectItemCaseSensitive(s, "additionalProperties");
        for (cJSON *c = v->child, *next; c; c = next) {
            next = c->next;
            const cJSON *cs = cJSON_GetObjectItemCaseSensitive(props, c->string);
            if (!cs && cJSON_IsObject(extra)) cs = extra;
            if (!cs) continue;
            w.len = 0;
            dsr__buf_printf(&w, "%s.%s", where, c->string);
            if (!check_value(sc, cs, c, w.data)) cJSON_Delete(cJSON_DetachItemViaPointer(v, c));
        }
    } else if (cJSON_IsArray(v)) {
        const cJSON *items = cJSON_GetObjectItemCaseSensitive(s, "items");
        int i = 0;
        for (cJSON *c = v->child, *next; c && items; c = next, i++) {
            next = c->next;
            w.len = 0;
            dsr__buf_printf(&w, "%s[%d]", where, i);
            if (!check_value(sc, items, c, w.data)) cJSON_Delete(cJSON_DetachItemViaPointer(v, c));
        }
    }
    dsr__buf_free(&w);
    return true;
}

void dsr__compare_set_schema(dsr_compare_in *in, const char *path)
{
    size_t len;
    char *text = dsr__read_file(path, &len);
    cJSON_Delete(in->schema);
    in->schema = text ? dsj_parse(text, len, NULL) : NULL;
    free(text);
}

/* Adds the report at PATH. QUIET_SKIP: a file that is not a devspec report is passed over
 * with a note (when reading a folder) instead of being an error. Returns 0 or -1. */
static int add_report(dsr_compare_in *in, const char *path, bool quiet_skip, FILE *err)
{
    cJSON *doc = parse_file(path, err);
    if (!doc) return -1;
    if (!is_report(doc)) {
        cJSON_Delete(doc);
        if (quiet_skip) {
            fprintf(err, "devspec: compare: %s is not a devspec report; left out\n", path);
            return 0;
        }
        fprintf(err, "devspec: %s is not a devspec JSON report (\"type\": \"devspec-report\")\n",
                path);
        return -1;
    }
    if (in->schema) {
        schema_check sc = {in->schema, path, err, 0};
        cJSON *top = doc->child;
        for (cJSON *c = top, *next; c; c = next) {
            next = c->next;
            const cJSON *cs = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(in->schema, "properties"), c->string);
            if (cs && !check_value(&sc, cs, c, c->string))
                cJSON_Delete(cJSON_DetachItemViaPointer(doc, c));
        }
        if (sc.said > 10)
            fprintf(err, "devspec: compare: %s: and %d more values of the wrong type\n", path,
                    sc.said - 10);
        if (!is_report(doc)) {
            fprintf(err, "devspec: %s: its header or cases are not of their schema's type\n", path);
            cJSON_Delete(doc);
            return -1;
        }
    }
    in->libs = dsr__xrealloc(in->libs, sizeof *in->libs * (size_t)(in->nlibs + 1));
    lib *l = &in->libs[in->nlibs++];
    memset(l, 0, sizeof *l);
    l->path = dsr__xstrdup(path);
    l->doc = doc;
    l->header = cJSON_GetObjectItemCaseSensitive(doc, "header");
    l->footer = cJSON_GetObjectItemCaseSensitive(doc, "footer");
    l->cases = cJSON_GetObjectItemCaseSensitive(doc, "cases");
    const char *label = str_of(cJSON_GetObjectItemCaseSensitive(l->header, "adapter"), "label");
    if (!label) label = str_of(cJSON_GetObjectItemCaseSensitive(l->header, "library"), "name");
    if (!label) label = "?";
    /* Two reports of one adapter (say, two runs) stay apart: the second is "NAME (2)". Each
     * label's next number is kept, so that many reports of one label stay linear (3000 took
     * 22 s when every new label was compared with every earlier one). */
    int bi = idmap_get(&in->bases, label);
    if (bi < 0) {
        in->next_suffix =
            dsr__xrealloc(in->next_suffix, sizeof *in->next_suffix * (size_t)(in->nbases + 1));
        in->next_suffix[in->nbases] = 2;
        bi = in->nbases++;
        idmap_put(&in->bases, label, bi);
    }
    dsr_buf b = {0};
    dsr__buf_puts(&b, label);
    while (idmap_get(&in->labels, b.data) >= 0) {
        b.len = 0;
        dsr__buf_printf(&b, "%s (%d)", label, in->next_suffix[bi]++);
    }
    l->label = b.data;
    idmap_put(&in->labels, l->label, in->nlibs - 1);
    /* Reports of another suite or report version are compared all the same, with a word. */
    if (in->nlibs > 1) {
        const lib *first = &in->libs[0];
        static const char *const what[][2] = {
            {"report_version", NULL}, {"suite", "name"}, {"suite", "version"}};
        for (size_t w = 0; w < sizeof what / sizeof what[0]; w++) {
            const cJSON *a = cJSON_GetObjectItemCaseSensitive(first->header, what[w][0]);
            const cJSON *x = cJSON_GetObjectItemCaseSensitive(l->header, what[w][0]);
            if (what[w][1]) {
                a = cJSON_GetObjectItemCaseSensitive(a, what[w][1]);
                x = cJSON_GetObjectItemCaseSensitive(x, what[w][1]);
            }
            char *ta = a ? dsr__print(a, false) : NULL, *tx = x ? dsr__print(x, false) : NULL;
            if (!(ta && tx && !strcmp(ta, tx)) && (ta || tx)) {
                dsr_buf shown = {0};
                dsr__buf_printf(&shown,
                                "devspec: compare: warning: %s has %s%s%s %s, the first report "
                                "(%s) %s",
                                path, what[w][0], what[w][1] ? "." : "",
                                what[w][1] ? what[w][1] : "", tx ? tx : "(none)", first->path,
                                ta ? ta : "(none)");
                char *safe = dsr__compare_safe_dup(shown.data);
                fprintf(err, "%s\n", safe);
                free(safe);
                dsr__buf_free(&shown);
            }
            cJSON_free(ta);
            cJSON_free(tx);
        }
    }
    return 0;
}

static void add_case_file(dsr_compare_in *in, const char *path)
{
    size_t len;
    char *text = dsr__read_file(path, &len);
    if (!text) return;
    cJSON *doc = dsj_parse(text, len, NULL);
    free(text);
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(doc, "cases");
    if (!cJSON_IsArray(cases)) {
        cJSON_Delete(doc);
        return;
    }
    in->casedocs = dsr__xrealloc(in->casedocs, sizeof *in->casedocs * (size_t)(in->ncasedocs + 1));
    in->casedocs[in->ncasedocs++] = doc;
    const cJSON *c;
    cJSON_ArrayForEach(c, cases)
    {
        const char *id = str_of(c, "id");
        if (!id || idmap_get(&in->caseids, id) >= 0) continue;
        in->casedefs =
            dsr__xrealloc(in->casedefs, sizeof *in->casedefs * (size_t)(in->ncasedefs + 1));
        in->casedefs[in->ncasedefs] = c;
        idmap_put(&in->caseids, id, in->ncasedefs++);
    }
}

/* Case files give each row its description and steps; they are read as they are (the
 * reports, not the files, are what is compared), and a file that does not parse is left
 * out. */
static void add_cases_path(dsr_compare_in *in, const char *path, int depth)
{
    if (!dsr__is_dir(path)) {
        add_case_file(in, path);
        return;
    }
    if (depth > 8) return;
    DIR *d = opendir(path);
    if (!d) return;
    char **names = NULL;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        names = dsr__xrealloc(names, sizeof *names * (size_t)(n + 1));
        names[n++] = dsr__xstrdup(e->d_name);
    }
    closedir(d);
    if (n) qsort(names, (size_t)n, sizeof *names, cmp_strp);
    for (int i = 0; i < n; i++) {
        dsr_buf p = {0};
        dsr__buf_printf(&p, "%s/%s", path, names[i]);
        size_t l = strlen(names[i]);
        if (dsr__is_dir(p.data))
            add_cases_path(in, p.data, depth + 1);
        else if (l > 5 && !strcmp(names[i] + l - 5, ".json"))
            add_case_file(in, p.data);
        dsr__buf_free(&p);
        free(names[i]);
    }
    free(names);
}

/* Rows: every case ID of every report, in the order of the first report that has it (the
 * reports of one suite list their cases in the same order). */
static void build_rows(dsr_compare_in *in)
{
    for (int li = 0; li < in->nlibs; li++) {
        const cJSON *c;
        cJSON_ArrayForEach(c, in->libs[li].cases)
        {
            const char *id = str_of(c, "id");
            if (!id) continue;
            int r = idmap_get(&in->ids, id);
            if (r < 0) {
                in->rows = dsr__xrealloc(in->rows, sizeof *in->rows * (size_t)(in->nrows + 1));
                row *nr = &in->rows[in->nrows];
                nr->id = id;
                nr->first = c;
                nr->cells = xcalloc((size_t)in->nlibs, sizeof *nr->cells);
                r = in->nrows++;
                idmap_put(&in->ids, id, r);
            }
            if (!in->rows[r].cells[li])
                in->rows[r].cells[li] = c;
            else {
                char *safe = dsr__compare_safe_dup(id);
                fprintf(stderr,
                        "devspec: compare: warning: %s lists the case %s more than once; its "
                        "first record is compared\n",
                        in->libs[li].path, safe);
                free(safe);
            }
        }
    }
}

void dsr__compare_in_free(dsr_compare_in *in)
{
    cJSON_Delete(in->schema);
    for (int i = 0; i < in->nlibs; i++) {
        free(in->libs[i].path);
        free(in->libs[i].label);
        cJSON_Delete(in->libs[i].doc);
    }
    free(in->libs);
    for (int i = 0; i < in->nrows; i++)
        free((void *)in->rows[i].cells);
    free(in->rows);
    idmap_free(&in->ids);
    idmap_free(&in->labels);
    idmap_free(&in->bases);
    free(in->next_suffix);
    for (int i = 0; i < in->ncasedocs; i++)
        cJSON_Delete(in->casedocs[i]);
    free(in->casedocs);
    free((void *)in->casedefs);
    idmap_free(&in->caseids);
    free(in);
}

/* ---- outcomes ------------------------------------------------------------------------- */

/* "device#12" and "array#3" are a library's opaque handles: their numbers differ between
 * libraries for the same behaviour, so they are compared as "device#" and "array#". */
static bool is_handle(const char *s)
{
    const char *p = !strncmp(s, "device#", 7) ? s + 7 : !strncmp(s, "array#", 6) ? s + 6 : NULL;
    if (!p || !*p) return false;
    for (; *p; p++)
        if (*p < '0' || *p > '9') return false;
    return true;
}

static int cmp_child_keys(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* A canonical text of V: compact JSON, object keys sorted, handles without their number. */
static void canon(const cJSON *v, dsr_buf *b)
{
    if (cJSON_IsString(v) && is_handle(v->valuestring)) {
        dsr__buf_add(b, "\"", 1);
        dsr__buf_add(b, v->valuestring, (size_t)(strchr(v->valuestring, '#') - v->valuestring + 1));
        dsr__buf_add(b, "\"", 1);
    } else if (cJSON_IsArray(v)) {
        dsr__buf_add(b, "[", 1);
        for (const cJSON *c = v->child; c; c = c->next) {
            canon(c, b);
            if (c->next) dsr__buf_add(b, ",", 1);
        }
        dsr__buf_add(b, "]", 1);
    } else if (cJSON_IsObject(v)) {
        int n = cJSON_GetArraySize(v), i = 0;
        const cJSON **kids = dsr__xmalloc(sizeof *kids * (size_t)(n ? n : 1));
        for (const cJSON *c = v->child; c; c = c->next)
            kids[i++] = c;
        qsort(kids, (size_t)n, sizeof *kids, cmp_child_keys);
        dsr__buf_add(b, "{", 1);
        for (i = 0; i < n; i++) {
            cJSON *k = cJSON_CreateString(kids[i]->string);
            char *ks = dsr__print(k, false);
            dsr__buf_printf(b, "%s%s:", i ? "," : "", ks);
            cJSON_free(ks);
            cJSON_Delete(k);
            canon(kids[i], b);
        }
        dsr__buf_add(b, "}", 1);
        free(kids);
    } else {
        char *s = dsr__print(v, false);
        dsr__buf_puts(b, s ? s : "null");
        cJSON_free(s);
    }
}

/* What a library did in a case, as a text that is equal for two libraries exactly when
 * they behaved the same: "pass"; "crash", "timeout", "error" (the adapter broke the
 * protocol); or, for a step that did not hold, the step, its op and what came back (an
 * error by its kind and origin, since messages are worded differently by every library; a
 * value in canonical form). NULL for a case the library did not run (skip). */
static char *outcome_key(const cJSON *cell)
{
    const char *raw = str_of(cell, "observed_status");
    if (!raw) raw = str_of(cell, "status");
    if (!raw || !strcmp(raw, "skip")) return NULL;
    if (!strcmp(raw, "pass") || !strcmp(raw, "xpass")) return dsr__xstrdup("pass");
    if (!strcmp(raw, "lacks")) {
        /* a cell kind of its own: what the library lacks, not how a step failed */
        dsr_buf b = {0};
        dsr__buf_puts(&b, "lacks");
        const cJSON *n;
        cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(cell, "lacks"))
        {
            if (cJSON_IsString(n)) dsr__buf_printf(&b, " %s", n->valuestring);
        }
        return b.data;
    }
    if (strcmp(raw, "fail")) return dsr__xstrdup(raw);
    dsr_buf b = {0};
    const cJSON *step = cJSON_GetObjectItemCaseSensitive(cell, "step");
    const char *op = str_of(cell, "op");
    dsr__buf_printf(&b, "fail at step %d", cJSON_IsNumber(step) ? step->valueint : -1);
    if (op) dsr__buf_printf(&b, " (%s)", op);
    const cJSON *obs = cJSON_GetObjectItemCaseSensitive(cell, "observed");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(obs, "error");
    if (cJSON_IsObject(e) && cJSON_GetArraySize(obs) == 1) {
        const char *kind = str_of(e, "kind");
        const char *origin = str_of(e, "origin");
        dsr__buf_printf(&b, ": raises %s", kind ? kind : "?");
        if (origin && strcmp(origin, "library")) dsr__buf_printf(&b, " (origin %s)", origin);
    } else if (obs) {
        dsr__buf_puts(&b, ": returns ");
        canon(obs, &b);
    }
    return b.data;
}

/* How a library passed a case: the either alternatives that held, in order ("step 2:
 * alternative 1, stop"); "" when no step had alternatives. NULL when the cell is not a pass
 * or its report does not say (no "steps"). Two libraries that both pass a case can pass it
 * through different alternatives: a disagreement of its own kind. */
static char *path_key(const cJSON *cell)
{
    const char *raw = str_of(cell, "observed_status");
    if (!raw) raw = str_of(cell, "status");
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(cell, "steps");
    if (!raw || strcmp(raw, "pass") || !cJSON_IsArray(steps)) return NULL;
    dsr_buf b = {0};
    dsr__buf_puts(&b, "");
    int i = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, steps)
    {
        const cJSON *alt = cJSON_GetObjectItemCaseSensitive(s, "alternative");
        if (cJSON_IsNumber(alt))
            dsr__buf_printf(&b, "%sstep %d: alternative %d%s", b.len ? "; " : "", i, alt->valueint,
                            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "stop")) ? ", stop"
                                                                                      : "");
        i++;
    }
    return b.data;
}

/* ---- the model ------------------------------------------------------------------------ */

static cJSON *dup_or_null(const cJSON *v)
{
    return v ? cJSON_Duplicate(v, true) : cJSON_CreateNull();
}

static void copy_field(cJSON *to, const cJSON *from, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, key);
    if (v) cJSON_AddItemToObject(to, key, cJSON_Duplicate(v, true));
}

/* copy_field for each of KEYS (NULL-terminated). */
static void copy_fields(cJSON *to, const cJSON *from, const char *const *keys)
{
    for (; *keys; keys++)
        copy_field(to, from, *keys);
}

static cJSON *library_json(const lib *l)
{
    cJSON *j = cJSON_CreateObject();
    const cJSON *h = l->header;
    const cJSON *ad = cJSON_GetObjectItemCaseSensitive(h, "adapter");
    const cJSON *lb = cJSON_GetObjectItemCaseSensitive(h, "library");
    const cJSON *suite = cJSON_GetObjectItemCaseSensitive(h, "suite");
    cJSON_AddStringToObject(j, "label", l->label);
    const char *base = strrchr(l->path, '/');
    cJSON_AddStringToObject(j, "report", base ? base + 1 : l->path);
    cJSON_AddItemToObject(j, "library", dup_or_null(cJSON_GetObjectItemCaseSensitive(lb, "name")));
    cJSON_AddItemToObject(j, "version",
                          dup_or_null(cJSON_GetObjectItemCaseSensitive(lb, "version")));
    cJSON_AddItemToObject(j, "transport",
                          dup_or_null(cJSON_GetObjectItemCaseSensitive(ad, "transport")));
    copy_field(j, ad, "error");
    cJSON_AddItemToObject(j, "suite_commit",
                          dup_or_null(cJSON_GetObjectItemCaseSensitive(suite, "commit")));
    cJSON_AddItemToObject(j, "started",
                          dup_or_null(cJSON_GetObjectItemCaseSensitive(h, "started")));
    cJSON_AddItemToObject(j, "devices",
                          dup_or_null(cJSON_GetObjectItemCaseSensitive(h, "devices")));
    cJSON_AddItemToObject(j, "features_claimed",
                          dup_or_null(cJSON_GetObjectItemCaseSensitive(h, "features_claimed")));
    const cJSON *f = l->footer;
    const cJSON *complete = cJSON_GetObjectItemCaseSensitive(f, "complete");
    cJSON_AddBoolToObject(j, "complete", cJSON_IsTrue(complete));
    copy_field(j, f, "incomplete_reason");
    cJSON_AddItemToObject(j, "counts", dup_or_null(cJSON_GetObjectItemCaseSensitive(f, "counts")));
    /* Per profile: the verdict and its counts, without the lists. */
    cJSON *prof = cJSON_AddObjectToObject(j, "profiles");
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(f, "profiles"))
    {
        cJSON *pj = cJSON_AddObjectToObject(prof, p->string);
        copy_fields(pj, p,
                    (const char *const[]){"verdict", "cases", "passed", "failed", "skipped",
                                          "should_failed", "differs_from_reading",
                                          "missing_features", NULL});
    }
    return j;
}

/* A cell: null (not in the report), "pass" or "skip" (a feature the library does not
 * claim: the page names it from the claimed features), or an object with what the report
 * says about the case and its outcome. */
static cJSON *cell_json(const cJSON *c, const char *key, const char *path)
{
    if (!c) return cJSON_CreateNull();
    const char *st = str_of(c, "status");
    const char *raw = str_of(c, "observed_status");
    const char *src = str_of(c, "skip_source");
    if (!st) st = "?";
    if (!raw) raw = st;
    bool same = !strcmp(st, raw);
    if (same && !strcmp(st, "pass") && !path) return cJSON_CreateString("pass");
    if (same && !strcmp(st, "skip") && src && !strcmp(src, "unsupported"))
        return cJSON_CreateString("skip");
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "status", st);
    if (!same) cJSON_AddStringToObject(j, "observed_status", raw);
    if (path) cJSON_AddStringToObject(j, "path", path);
    static const char *const keys[] = {"reason", "skip_source", "step",     "op",
                                       "call",   "expected",    "observed", "stderr",
                                       "lacks",  "rests_on",    "decision"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        copy_field(j, c, keys[i]);
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(c, "expectation");
    if (ex) {
        cJSON *ej = cJSON_AddObjectToObject(j, "expectation");
        copy_field(ej, ex, "status");
        copy_field(ej, ex, "reason");
    }
    if (key) cJSON_AddStringToObject(j, "outcome", key);
    return j;
}

void dsr__compare_spec_free(dsr_compare_spec *s)
{
    cJSON_Delete(s->statements);
    cJSON_Delete(s->features);
    cJSON_Delete(s->profiles);
}

/* Statements with the names of their document and features; features and profiles as the
 * spec lists them. Only what the page shows is kept. */
static void add_spec(cJSON *m, const dsr_compare_spec *sp)
{
    const cJSON *docs = cJSON_GetObjectItemCaseSensitive(sp->statements, "documents");
    const cJSON *feats = cJSON_GetObjectItemCaseSensitive(sp->features, "features");
    cJSON *out = cJSON_AddArrayToObject(m, "statements");
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(sp->statements, "statements"))
    {
        const char *id = str_of(s, "id");
        if (!id) continue;
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "id", id);
        copy_fields(
            j, s,
            (const char *const[]){"level", "topic", "text", "note", "versions", "testable", NULL});
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(s, "source");
        const char *doc = str_of(src, "document");
        if (src) {
            cJSON *sj = cJSON_Duplicate(src, true);
            const cJSON *d;
            cJSON_ArrayForEach(d, docs)
            {
                const char *did = str_of(d, "id");
                const char *title = str_of(d, "title");
                if (doc && did && title && !strcmp(did, doc))
                    cJSON_AddStringToObject(sj, "title", title);
            }
            cJSON_AddItemToObject(j, "source", sj);
        }
        cJSON *fl = cJSON_AddArrayToObject(j, "features");
        const cJSON *f;
        cJSON_ArrayForEach(f, feats)
        {
            const cJSON *x;
            cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(f, "statements"))
            {
                if (cJSON_IsString(x) && !strcmp(x->valuestring, id) && str_of(f, "name"))
                    cJSON_AddItemToArray(fl, cJSON_CreateString(str_of(f, "name")));
            }
        }
        cJSON_AddItemToArray(out, j);
    }
    cJSON *fo = cJSON_AddArrayToObject(m, "features");
    const cJSON *f;
    cJSON_ArrayForEach(f, feats)
    {
        cJSON *j = cJSON_CreateObject();
        copy_fields(j, f,
                    (const char *const[]){"name", "description", "optional", "statements", NULL});
        cJSON_AddItemToArray(fo, j);
    }
    cJSON *po = cJSON_AddArrayToObject(m, "profiles");
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(sp->profiles, "profiles"))
    {
        cJSON *j = cJSON_CreateObject();
        copy_fields(j, p,
                    (const char *const[]){"name", "description", "core", "document", "version",
                                          "required", "optional", NULL});
        cJSON_AddItemToArray(po, j);
    }
}

/* spec/README.md: a case counts for a profile when all its features are in the profile, at
 * least one statement it cites applies, and none it cites from the profile's document is
 * outside the profile's version. The same rule as the runner's, on the registry. */
static cJSON *case_profiles(const dsr_registry *reg, const cJSON *rec)
{
    cJSON *out = cJSON_CreateArray();
    if (!reg) return out;
    const cJSON *fs = cJSON_GetObjectItemCaseSensitive(rec, "features");
    const cJSON *ss = cJSON_GetObjectItemCaseSensitive(rec, "spec");
    int nf = cJSON_GetArraySize(fs), ns = cJSON_GetArraySize(ss);
    const char **f = dsr__xmalloc(sizeof *f * (size_t)(nf + 1));
    const char **s = dsr__xmalloc(sizeof *s * (size_t)(ns + 1));
    int k = 0;
    for (const cJSON *x = fs ? fs->child : NULL; x; x = x->next)
        if (cJSON_IsString(x)) f[k++] = x->valuestring;
    nf = k;
    k = 0;
    for (const cJSON *x = ss ? ss->child : NULL; x; x = x->next)
        if (cJSON_IsString(x)) s[k++] = x->valuestring;
    ns = k;
    dsr_case c;
    memset(&c, 0, sizeof c);
    c.features = f;
    c.nfeatures = nf;
    c.spec = s;
    c.nspec = ns;
    for (int i = 0; i < reg->nprofiles; i++)
        if (dsr__case_counts(reg, &c, &reg->profiles[i]))
            cJSON_AddItemToArray(out, cJSON_CreateNumber(i));
    free((void *)f);
    free((void *)s);
    return out;
}

/* The model: libraries, the spec's statements, features and profiles, and one entry per
 * case with a cell per library, how many different outcomes the libraries had and whether
 * they disagree. Deterministic: the same reports, in the same order, give the same bytes. */
static cJSON *build_model(const dsr_compare_in *in, const dsr_compare_spec *sp,
                          const dsr_registry *reg)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddNumberToObject(m, "compare_version", COMPARE_VERSION);
    cJSON_AddStringToObject(m, "runner", "devspec " DEVSPEC_VERSION);
    cJSON *libs = cJSON_AddArrayToObject(m, "libraries");
    for (int i = 0; i < in->nlibs; i++)
        cJSON_AddItemToArray(libs, library_json(&in->libs[i]));
    add_spec(m, sp);
    cJSON *cases = cJSON_AddArrayToObject(m, "cases");
    int disagree = 0, paths_differ = 0;
    char **keys = dsr__xmalloc(sizeof *keys * (size_t)(in->nlibs ? in->nlibs : 1));
    char **paths = dsr__xmalloc(sizeof *paths * (size_t)(in->nlibs ? in->nlibs : 1));
    for (int r = 0; r < in->nrows; r++) {
        const row *rw = &in->rows[r];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "id", rw->id);
        copy_field(j, rw->first, "file");
        int def = idmap_get(&in->caseids, rw->id);
        if (def >= 0) {
            copy_field(j, in->casedefs[def], "description");
            copy_field(j, in->casedefs[def], "steps");
        }
        copy_field(j, rw->first, "features");
        copy_field(j, rw->first, "spec");
        cJSON_AddItemToObject(j, "profiles", case_profiles(reg, rw->first));
        cJSON *cells = cJSON_AddArrayToObject(j, "cells");
        int distinct = 0, npaths = 0;
        for (int li = 0; li < in->nlibs; li++) {
            keys[li] = rw->cells[li] ? outcome_key(rw->cells[li]) : NULL;
            bool seen = keys[li] == NULL;
            for (int k = 0; k < li && !seen; k++)
                seen = keys[k] && !strcmp(keys[k], keys[li]);
            distinct += !seen;
            paths[li] = rw->cells[li] ? path_key(rw->cells[li]) : NULL;
            seen = paths[li] == NULL;
            for (int k = 0; k < li && !seen; k++)
                seen = paths[k] && !strcmp(paths[k], paths[li]);
            npaths += !seen;
        }
        for (int li = 0; li < in->nlibs; li++) {
            cJSON_AddItemToArray(cells,
                                 cell_json(rw->cells[li], keys[li], npaths > 1 ? paths[li] : NULL));
            free(keys[li]);
            free(paths[li]);
        }
        cJSON_AddNumberToObject(j, "outcomes", distinct);
        cJSON_AddBoolToObject(j, "disagree", distinct > 1);
        /* Passes through different alternatives: counted and marked apart from outcomes. */
        cJSON_AddBoolToObject(j, "paths_differ", npaths > 1);
        disagree += distinct > 1;
        paths_differ += npaths > 1;
        cJSON_AddItemToArray(cases, j);
    }
    free(keys);
    free(paths);
    cJSON *sum = cJSON_AddObjectToObject(m, "summary");
    cJSON_AddNumberToObject(sum, "libraries", in->nlibs);
    cJSON_AddNumberToObject(sum, "cases", in->nrows);
    cJSON_AddNumberToObject(sum, "disagree", disagree);
    cJSON_AddNumberToObject(sum, "paths_differ", paths_differ);
    return m;
}

char *dsr__compare_safe_dup(const char *s)
{
    dsr_buf b = {0};
    unsigned cp;
    size_t h;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (p[0] == 0xc0 && p[1] == 0x80) {
            dsr__buf_puts(&b, "\\x00");
            p++;
        } else if ((h = dsr__hidden_char((const char *)p, &cp))) {
            dsr__buf_printf(&b, "\\u%04x", cp);
            p += h - 1;
        } else if (*p < 0x20 || *p == 0x7f)
            dsr__buf_printf(&b, "\\x%02x", *p);
        else
            dsr__buf_add(&b, (const char *)p, 1);
    if (!b.data) dsr__buf_puts(&b, "");
    return b.data;
}

/* ---- reading: what the command asks of the model ------------------------------------ */

dsr_compare_in *dsr__compare_in_new(void)
{
    return xcalloc(1, sizeof(dsr_compare_in));
}

int dsr__compare_read_reports(dsr_compare_in *in, char *const *paths, int npaths, char *const *only,
                              int nonly)
{
    int rc = 0;
    for (int i = 0; i < npaths && !rc; i++) {
        if (dsr__is_dir(paths[i])) {
            int n;
            char **files = list_json(paths[i], &n);
            for (int k = 0; k < n; k++) {
                if (!rc && add_report(in, files[k], true, stderr)) rc = DSR_EXIT_USAGE;
                free(files[k]);
            }
            free(files);
        } else if (add_report(in, paths[i], false, stderr))
            rc = DSR_EXIT_USAGE;
    }
    /* --library keeps the named libraries, in the order given. */
    if (!rc && nonly) {
        lib *kept = dsr__xmalloc(sizeof *kept * (size_t)nonly);
        int nk = 0;
        for (int k = 0; k < nonly && !rc; k++) {
            int found = -1;
            for (int i = 0; i < in->nlibs; i++)
                if (in->libs[i].doc && !strcmp(in->libs[i].label, only[k])) found = i;
            if (found < 0) {
                rc = dsr__usage_error("compare", "no report of a library labelled '%s'", only[k]);
                break;
            }
            kept[nk++] = in->libs[found];
            memset(&in->libs[found], 0, sizeof in->libs[found]); /* moved */
        }
        for (int i = 0; i < in->nlibs; i++) {
            free(in->libs[i].path);
            free(in->libs[i].label);
            cJSON_Delete(in->libs[i].doc);
        }
        free(in->libs);
        in->libs = kept;
        in->nlibs = nk;
    }
    if (!rc && in->nlibs == 0) {
        fprintf(stderr, "devspec: compare: no reports found in the paths given\n");
        rc = DSR_EXIT_USAGE;
    }
    return rc;
}

const char *dsr__compare_report_file(const dsr_compare_in *in, const char *path)
{
    for (int i = 0; i < in->nlibs; i++)
        if (dsr__same_file(path, in->libs[i].path)) return in->libs[i].path;
    return NULL;
}

void dsr__compare_add_cases(dsr_compare_in *in, const char *path)
{
    add_cases_path(in, path, 0);
}

static cJSON *read_spec_file(const char *dir, const char *name, bool required)
{
    dsr_buf p = {0};
    dsr__buf_printf(&p, "%s/%s", dir, name);
    cJSON *doc = NULL;
    if (required || access(p.data, F_OK) == 0) doc = parse_file(p.data, stderr);
    dsr__buf_free(&p);
    return doc;
}

int dsr__compare_spec_read(dsr_compare_spec *sp, const char *dir)
{
    sp->statements = read_spec_file(dir, "statements.json", false);
    sp->features = read_spec_file(dir, "features.json", true);
    sp->profiles = read_spec_file(dir, "profiles.json", false);
    return sp->features ? 0 : -1;
}

cJSON *dsr__compare_model(dsr_compare_in *in, const dsr_compare_spec *sp, const dsr_registry *reg)
{
    build_rows(in);
    return build_model(in, sp, reg);
}
