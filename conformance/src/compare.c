/* devspec compare: the differential matrix of several reports. Every case of every report
 * becomes one row, every report one column; a cell is what the library's run recorded for
 * the case (its status and, for a step that did not hold, what was expected and what came
 * back). Statements and features aggregate the cases that cite them.
 *
 * The matrix is built once, as a JSON document (the "model", printed by --json), and every
 * view is drawn from it: the terminal table here, the HTML page in compare_html.c. So the
 * page and the terminal show the same matrix.
 *
 * Libraries "disagree" on a case when their observed results differ: the outcome of each
 * library that ran the case (see outcome_key) is compared, skipped cells left out. */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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

/* Zeroed memory for N items of SIZE bytes; like dsr__xmalloc, running out ends the program. */
static void *xcalloc(size_t n, size_t size)
{
    void *p = dsr__xmalloc(n * size);
    memset(p, 0, n * size);
    return p;
}

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

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
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

typedef struct compare_in {
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
} compare_in;

static bool is_report(const cJSON *doc)
{
    const char *t = str_of(doc, "type");
    return t && !strcmp(t, "devspec-report") &&
           cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "cases")) &&
           cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "header"));
}

/* Adds the report at PATH. QUIET_SKIP: a file that is not a devspec report is passed over
 * with a note (when reading a folder) instead of being an error. Returns 0 or -1. */
static char *safe_dup(const char *s);

static int add_report(compare_in *in, const char *path, bool quiet_skip, FILE *err)
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
                char *safe = safe_dup(shown.data);
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

static void add_case_file(compare_in *in, const char *path)
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
static void add_cases_path(compare_in *in, const char *path, int depth)
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
static void build_rows(compare_in *in)
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
                char *safe = safe_dup(id);
                fprintf(stderr,
                        "devspec: compare: warning: %s lists the case %s more than once; its "
                        "first record is compared\n",
                        in->libs[li].path, safe);
                free(safe);
            }
        }
    }
}

static void compare_in_free(compare_in *in)
{
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
    static const char *const keys[] = {"reason",   "skip_source", "step",   "op",
                                       "expected", "observed",    "stderr", "lacks"};
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

typedef struct spec_files {
    cJSON *statements;
    cJSON *features;
    cJSON *profiles;
} spec_files;

static void spec_files_free(spec_files *s)
{
    cJSON_Delete(s->statements);
    cJSON_Delete(s->features);
    cJSON_Delete(s->profiles);
}

/* Statements with the names of their document and features; features and profiles as the
 * spec lists them. Only what the page shows is kept. */
static void add_spec(cJSON *m, const spec_files *sp)
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
static cJSON *build_model(const compare_in *in, const spec_files *sp, const dsr_registry *reg)
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

/* ---- the terminal table ---------------------------------------------------------------- */

typedef struct view {
    const char *by; /* "statement", "case", "feature" */
    bool color;
    bool details;
    bool disagree_only;
    unsigned status_mask; /* bit per dsr_status; 0: any */
    int width;            /* terminal columns; 0: no limit */
} view;

static const char *short_status(const char *s)
{
    static const char *const names[][2] = {
        {"pass", "pass"},   {"fail", "FAIL"},    {"error", "ERROR"},
        {"skip", "skip"},   {"xfail", "xfail"},  {"xpass", "XPASS"},
        {"crash", "CRASH"}, {"timeout", "TIME"}, {"lacks", "LACKS"}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(names[i][0], s)) return names[i][1];
    return "?";
}

static const char *status_color(const char *s)
{
    if (!strcmp(s, "pass")) return "\033[32m";
    if (!strcmp(s, "skip") || !strcmp(s, "-")) return "\033[2m";
    if (!strcmp(s, "xfail")) return "\033[33m";
    return "\033[1;31m";
}

static const char *cell_status(const cJSON *cell)
{
    if (cJSON_IsString(cell)) return cell->valuestring;
    const char *s = str_of(cell, "status");
    return s ? s : "-";
}

/* Prints S for a terminal: control characters (a library's message may hold escape
 * sequences) become \xNN, a NUL (held as the bytes C0 80, see dsjson.h) \x00, and at most
 * MAX bytes are shown (0: all). */
static void put_safe(FILE *out, const char *s, size_t max)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++, n++) {
        if (max && n >= max) {
            fputs("...", out);
            return;
        }
        unsigned cp;
        size_t h = dsr__hidden_char((const char *)p, &cp);
        if (p[0] == 0xc0 && p[1] == 0x80) {
            fputs("\\x00", out);
            p++;
        } else if (h) {
            fprintf(out, "\\u%04x", cp);
            p += h - 1;
        } else if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\x%02x", *p);
        else
            fputc(*p, out);
    }
}

/* A copy of S as put_safe prints it (the caller frees it). */
static char *safe_dup(const char *s)
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

static void put_cell(FILE *out, const view *v, const char *word, const char *status, int width)
{
    if (v->color) fputs(status_color(status), out);
    fprintf(out, "%-*s", width, word);
    if (v->color) fputs("\033[0m", out);
}

typedef struct agg {
    int ran;
    int passed;
    int bad; /* fail, error, crash, timeout, lacks */
    int xfail;
} agg;

static void agg_add(agg *a, const cJSON *cell)
{
    const char *s = cell_status(cell);
    if (!strcmp(s, "-") || !strcmp(s, "skip")) return;
    a->ran++;
    if (!strcmp(s, "pass") || !strcmp(s, "xpass"))
        a->passed++;
    else if (!strcmp(s, "xfail"))
        a->xfail++;
    else
        a->bad++;
}

static const char *agg_status(const agg *a)
{
    return !a->ran ? "skip" : a->bad ? "fail" : a->xfail ? "xfail" : "pass";
}

/* Whether a row is shown: --disagree, and --status (some cell has one of the statuses). */
static bool row_wanted(const view *v, bool disagree, unsigned statuses)
{
    if (v->disagree_only && !disagree) return false;
    if (v->status_mask && !(v->status_mask & statuses)) return false;
    return true;
}

static unsigned status_bit(const char *s)
{
    int k = dsr__status_parse(s);
    return k < 0 ? 0 : 1u << k;
}

static void print_value(FILE *out, const cJSON *v, size_t max)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(v, "error");
    if (cJSON_IsObject(e) && cJSON_GetArraySize(v) == 1) {
        const char *kind = str_of(e, "kind"), *msg = str_of(e, "message");
        const char *origin = str_of(e, "origin");
        fputs("raises ", out);
        put_safe(out, kind ? kind : "?", 80);
        if (origin && strcmp(origin, "library")) fprintf(out, " (origin %s)", origin);
        if (msg) {
            fputs(": ", out);
            put_safe(out, msg, max);
        }
        return;
    }
    char *s = dsr__print(v, false);
    put_safe(out, s ? s : "null", max);
    cJSON_free(s);
}

/* Under a case row: every outcome other than pass and skip, the libraries that had it, what
 * the step expected and what came back. */
static void print_details(FILE *out, const view *v, const cJSON *m, const cJSON *c)
{
    const cJSON *libs = cJSON_GetObjectItemCaseSensitive(m, "libraries");
    const cJSON *cells = cJSON_GetObjectItemCaseSensitive(c, "cells");
    int n = cJSON_GetArraySize(cells);
    bool *done = xcalloc((size_t)(n ? n : 1), sizeof *done);
    const char *desc = str_of(c, "description");
    if (desc) {
        fputs("      ", out);
        put_safe(out, desc, 400);
        fputc('\n', out);
    }
    for (int i = 0; i < n; i++) {
        const cJSON *ci = cJSON_GetArrayItem(cells, i);
        const char *key = str_of(ci, "outcome");
        if (done[i] || !cJSON_IsObject(ci)) continue;
        const char *st = cell_status(ci);
        if (!key && !strcmp(st, "skip")) {
            done[i] = true;
            continue;
        }
        fputs("    ", out);
        for (int k = i; k < n; k++) {
            const cJSON *ck = cJSON_GetArrayItem(cells, k);
            const char *kk = str_of(ck, "outcome");
            if (done[k] || !cJSON_IsObject(ck)) continue;
            if (k != i && !(key && kk && !strcmp(key, kk))) continue;
            done[k] = true;
            fputs(k == i ? "" : ", ", out);
            const char *label = str_of(cJSON_GetArrayItem(libs, k), "label");
            put_safe(out, label ? label : "?", 60);
            fputc(' ', out);
            put_cell(out, v, cell_status(ck), cell_status(ck), 0);
        }
        fputc('\n', out);
        const cJSON *step = cJSON_GetObjectItemCaseSensitive(ci, "step");
        const char *op = str_of(ci, "op");
        const cJSON *exp = cJSON_GetObjectItemCaseSensitive(ci, "expected");
        const cJSON *obs = cJSON_GetObjectItemCaseSensitive(ci, "observed");
        if (cJSON_IsNumber(step))
            fprintf(out, "      step %d%s%s%s\n", step->valueint, op ? " (" : "", op ? op : "",
                    op ? ")" : "");
        if (exp) {
            fputs("      expected  ", out);
            print_value(out, exp, 300);
            fputc('\n', out);
        }
        if (obs) {
            fputs("      observed  ", out);
            print_value(out, obs, 300);
            fputc('\n', out);
        }
        const char *reason = str_of(ci, "reason");
        if (reason && !obs) {
            fputs("      reason    ", out);
            put_safe(out, reason, 300);
            fputc('\n', out);
        }
    }
    /* The libraries that did not run the case, and why. */
    bool first = true;
    for (int i = 0; i < n; i++) {
        const cJSON *ci = cJSON_GetArrayItem(cells, i);
        if (strcmp(cell_status(ci), "skip")) continue;
        const cJSON *li = cJSON_GetArrayItem(libs, i);
        fputs(first ? "    skip: " : "; ", out);
        first = false;
        put_safe(out, str_of(li, "label") ? str_of(li, "label") : "?", 60);
        const char *reason = str_of(ci, "reason");
        if (reason) {
            fputs(" (", out);
            put_safe(out, reason, 200);
            fputc(')', out);
        } else {
            /* an unsupported skip: the case's features the library does not claim */
            const cJSON *claimed = cJSON_GetObjectItemCaseSensitive(li, "features_claimed");
            const cJSON *f;
            bool any = false;
            cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(c, "features"))
            {
                bool has = false;
                const cJSON *x;
                cJSON_ArrayForEach(x, claimed)
                {
                    has = has || (cJSON_IsString(x) && cJSON_IsString(f) &&
                                  !strcmp(x->valuestring, f->valuestring));
                }
                if (has || !cJSON_IsString(f)) continue;
                fputs(any ? ", " : " (lacks ", out);
                put_safe(out, f->valuestring, 80);
                any = true;
            }
            if (any) fputc(')', out);
        }
    }
    if (!first) fputc('\n', out);
    free(done);
}

/* Under a statement row: its level, text and source (spec/statements.json). */
static void print_statement(FILE *out, const cJSON *statements, const char *id)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, statements)
    {
        const char *sid = str_of(s, "id");
        if (!sid || strcmp(sid, id)) continue;
        const char *level = str_of(s, "level"), *text = str_of(s, "text");
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(s, "source");
        const char *title = str_of(src, "title"), *doc = str_of(src, "document");
        const char *section = str_of(src, "section");
        fputs("      ", out);
        put_safe(out, level ? level : "?", 40);
        fputs(": ", out);
        put_safe(out, text ? text : "", 0);
        fputs("\n      source: ", out);
        put_safe(out, title ? title : doc ? doc : "?", 200);
        if (section) {
            fputs(", ", out);
            put_safe(out, section, 200);
        }
        fputc('\n', out);
        return;
    }
}

/* Long: one table, three row kinds (statement, feature, case) sharing the column widths
 * computed over every row first; split by row kind it would pass the widths and aggregates
 * around. */
static void print_table(FILE *out, const cJSON *m, const view *v)
{
    const cJSON *libs = cJSON_GetObjectItemCaseSensitive(m, "libraries");
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(m, "cases");
    int nl = cJSON_GetArraySize(libs);
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(m, "summary");
    fprintf(out,
            "devspec compare: %d libraries, %d cases, %d where the libraries disagree, %d where "
            "they pass through different alternatives\n",
            nl, cJSON_GetObjectItemCaseSensitive(sum, "cases")->valueint,
            cJSON_GetObjectItemCaseSensitive(sum, "disagree")->valueint,
            (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(sum, "paths_differ")));
    int li = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, libs)
    {
        const char *ver = str_of(l, "version");
        const char *name = str_of(l, "library");
        const char *err = str_of(l, "error");
        const char *why = str_of(l, "incomplete_reason");
        fprintf(out, "  [%d] ", ++li);
        put_safe(out, str_of(l, "label"), 60);
        fputs(": ", out);
        put_safe(out, name ? name : "?", 60);
        fputc(' ', out);
        put_safe(out, ver ? ver : "?", 40);
        if (err || why) {
            fputs(" (incomplete: ", out);
            put_safe(out, err ? err : why, 200);
            fputc(')', out);
        }
        fputc('\n', out);
    }

    /* Rows: label, disagreement mark, one cell per library. */
    int nrows = 0;
    char **labels = NULL;
    char *dis = NULL;  /* per row: '*' the outcomes differ, '~' only the alternatives passed */
    agg *cells = NULL; /* nrows * nl */
    const cJSON **caserow = NULL;
    const cJSON *statements = cJSON_GetObjectItemCaseSensitive(m, "statements");
    const cJSON *features = cJSON_GetObjectItemCaseSensitive(m, "features");
    bool by_case = !strcmp(v->by, "case");
    bool by_feature = !strcmp(v->by, "feature");
    const cJSON *groups = by_feature ? features : statements;
    int ngroups = by_case ? cJSON_GetArraySize(cases) : cJSON_GetArraySize(groups);
    labels = dsr__xmalloc(sizeof *labels * (size_t)(ngroups + 1));
    dis = dsr__xmalloc(sizeof *dis * (size_t)(ngroups + 1));
    caserow = dsr__xmalloc(sizeof *caserow * (size_t)(ngroups + 1));
    cells = xcalloc((size_t)(ngroups + 1) * (size_t)(nl ? nl : 1), sizeof *cells);
    const cJSON *gi = by_case ? (cases ? cases->child : NULL) : (groups ? groups->child : NULL);
    for (int g = 0; g < ngroups && gi; g++, gi = gi->next) {
        const char *name = str_of(gi, by_case ? "id" : by_feature ? "name" : "id");
        if (!name) continue;
        agg *a = &cells[(size_t)nrows * (size_t)nl];
        bool d = false, pd = false;
        unsigned statuses = 0;
        int ncases = 0;
        /* A case row is its own case; a statement or feature row, the cases citing it. */
        for (const cJSON *c = by_case ? gi : cases->child; c; c = by_case ? NULL : c->next) {
            if (!by_case) {
                bool cites = false;
                const cJSON *x;
                cJSON_ArrayForEach(
                    x, cJSON_GetObjectItemCaseSensitive(c, by_feature ? "features" : "spec"))
                {
                    cites = cites || (cJSON_IsString(x) && !strcmp(x->valuestring, name));
                }
                if (!cites) continue;
            }
            ncases++;
            d = d || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "disagree"));
            pd = pd || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "paths_differ"));
            const cJSON *cell = cJSON_GetObjectItemCaseSensitive(c, "cells")->child;
            for (int k = 0; k < nl && cell; k++, cell = cell->next) {
                agg_add(&a[k], cell);
                statuses |= status_bit(cell_status(cell));
            }
        }
        if (!ncases || !row_wanted(v, d, statuses)) {
            memset(a, 0, sizeof *a * (size_t)nl);
            continue;
        }
        labels[nrows] = (char *)name;
        dis[nrows] = d ? '*' : pd ? '~' : ' ';
        caserow[nrows] = by_case ? gi : NULL;
        nrows++;
    }

    /* Column widths: the labels when the table fits, else the library numbers. */
    int lw = 10;
    for (int r = 0; r < nrows; r++) {
        char *safe = safe_dup(labels[r]);
        int n = (int)strlen(safe);
        free(safe);
        if (n > lw) lw = n;
    }
    if (lw > 48) lw = 48;
    int *cw = dsr__xmalloc(sizeof *cw * (size_t)(nl ? nl : 1));
    int total = lw + 3;
    for (int k = 0; k < nl; k++) {
        const char *label = str_of(cJSON_GetArrayItem(libs, k), "label");
        cw[k] = (int)strlen(label);
        if (cw[k] < 7) cw[k] = 7;
        total += cw[k] + 1;
    }
    /* Too wide for the terminal: columns by number (the legend above names them), as narrow
     * as their words, and the row labels cut to what is left (at least 16). */
    bool numbered = v->width && total > v->width;
    if (numbered) {
        int narrow = by_case ? 5 : 7; /* "CRASH" / "120/130" */
        total = lw + 3;
        for (int k = 0; k < nl; k++) {
            cw[k] = narrow;
            total += narrow + 1;
        }
        if (total > v->width) lw = lw - (total - v->width) > 16 ? lw - (total - v->width) : 16;
    }
    fputc('\n', out);
    fprintf(out, "%-*s   ", lw, by_case ? "case" : by_feature ? "feature" : "statement");
    for (int k = 0; k < nl; k++) {
        if (numbered) {
            fprintf(out, "[%d]%-*s", k + 1, cw[k] - 2 - (k + 1 >= 10), "");
        } else {
            const char *label = str_of(cJSON_GetArrayItem(libs, k), "label");
            put_safe(out, label, 0);
            fprintf(out, "%*s", cw[k] + 1 - (int)strlen(label), "");
        }
    }
    fputc('\n', out);
    for (int r = 0; r < nrows; r++) {
        char *safe = safe_dup(labels[r]);
        if ((int)strlen(safe) > lw)
            fprintf(out, "%.*s...", lw - 3, safe);
        else
            fprintf(out, "%-*s", lw, safe);
        free(safe);
        fprintf(out, " %c ", dis[r]);
        const agg *a = &cells[(size_t)r * (size_t)nl];
        for (int k = 0; k < nl; k++) {
            char word[32];
            const char *st;
            if (by_case) {
                const cJSON *cell =
                    cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(caserow[r], "cells"), k);
                st = cell_status(cell);
                snprintf(word, sizeof word, "%s", !strcmp(st, "-") ? "-" : short_status(st));
            } else {
                st = agg_status(&a[k]);
                if (a[k].ran)
                    snprintf(word, sizeof word, "%d/%d", a[k].passed, a[k].ran);
                else
                    snprintf(word, sizeof word, "-");
                if (!a[k].ran) st = "-";
            }
            put_cell(out, v, word, st, cw[k]);
            fputc(' ', out);
        }
        fputc('\n', out);
        if (by_case && v->details) print_details(out, v, m, caserow[r]);
        if (!by_case && !by_feature && v->details) print_statement(out, statements, labels[r]);
    }
    if (!nrows) fputs("(no row matches the filters)\n", out);
    fputc('\n', out);
    fprintf(out,
            "%d row%s. * the libraries disagree: their observed results differ. ~ they all pass, "
            "through different either alternatives.\n",
            nrows, nrows == 1 ? "" : "s");
    if (!by_case)
        fputs("A cell is passed/ran of the cases that cite it (skipped cases left out); - none "
              "ran.\n",
              out);
    free(cw);
    free(labels);
    free(dis);
    free(cells);
    free((void *)caserow);
}

/* ---- the command ---------------------------------------------------------------------- */

/* What the command line asks of compare. */
typedef struct compare_args {
    dsr_strlist paths, cases, only, statuses;
    const char *spec, *html, *by;
    bool json, plain, color, quiet, disagree, details;
} compare_args;

static const char *check_by(const char *v)
{
    return strcmp(v, "statement") && strcmp(v, "case") && strcmp(v, "feature")
               ? "--by takes statement, case or feature, not '%s'"
               : NULL;
}

static const char *check_status(const char *v)
{
    return status_bit(v) ? NULL
                         : "unknown status '%s' (pass fail error skip xfail xpass crash timeout "
                           "lacks)";
}

#define ARG(field) offsetof(compare_args, field)
#define OPT(name, kind, field, usage, help)                                                        \
    {                                                                                              \
        name, DSR_OPT_##kind, ARG(field), usage, help, NULL, 0, 0                                  \
    }

static const dsr_option COMPARE_OPTIONS[] = {
    OPT("--html", STRING, html, "--html PATH",
        "also write the matrix as one self-contained HTML page"),
    OPT("--json", FLAG_ON, json, "--json", "print the matrix model as JSON instead of the table"),
    {"--by", DSR_OPT_STRING, ARG(by), "--by statement|case|feature",
     "the table's rows (default statement)", check_by, 0, 0},
    OPT("--details", FLAG_ON, details, "--details",
        "under each case row, what each library returned where a\n"
        "step did not hold, beside what the case expected; under\n"
        "each statement row, its level, text and source"),
    OPT("--library", LIST, only, "--library LABEL",
        "only this library (repeatable, in the order given)"),
    {"--status", DSR_OPT_LIST, ARG(statuses), "--status S",
     "only rows where some library has status S (repeatable)", check_status, 0, 0},
    OPT("--disagree", FLAG_ON, disagree, "--disagree",
        "only rows where the libraries' observed results differ"),
    OPT("--cases", LIST, cases, "--cases PATH",
        "case files for descriptions and steps (default the suite's)"),
    OPT("--plain", FLAG_ON, plain, "--plain / --color",
        "no colour (the default when stdout is not a terminal) / colour"),
    OPT("--color", FLAG_ON, color, NULL, NULL),
    OPT("--quiet", FLAG_ON, quiet, "--quiet", "no table (with --html)"),
    OPT("--spec", STRING, spec, "--spec DIR", "the spec directory (default: the suite's spec/)"),
    OPT("--help", HELP, paths, "--help", "this help"),
    OPT("-h", HELP, paths, NULL, NULL),
};

#undef OPT
#undef ARG

static const dsr_command COMPARE_COMMAND = {
    "compare",
    COMPARE_OPTIONS,
    sizeof COMPARE_OPTIONS / sizeof COMPARE_OPTIONS[0],
    "REPORT.json|DIR",
    offsetof(compare_args, paths),
    0,
    "usage: devspec compare [OPTIONS] REPORT.json... | DIR\n"
    "\n"
    "The reports side by side, one column per library: statements, features or cases x\n"
    "libraries in the terminal, and one self-contained HTML page with --html. A DIR gives\n"
    "its *.json reports. devspec probe runs case files and compares their reports so\n"
    "(devspec probe --help).\n"
    "\n"
    "compare options:\n",
    "\n"
    "Exit status: 0; 2 a usage error or a report that cannot be read; 3 the page could not be\n"
    "written.\n"};

static void compare_args_free(compare_args *a)
{
    dsr__strlist_free(&a->paths);
    dsr__strlist_free(&a->cases);
    dsr__strlist_free(&a->only);
    dsr__strlist_free(&a->statuses);
}

static int usage(const char *fmt, const char *arg)
{
    return dsr__usage_error("compare", fmt, arg);
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

/* Long: loading the reports (files and folders, --library's choice and order), the checks
 * that the page replaces no input, the spec and case files, then the views; each step is a
 * few lines that share the command's state, and the cleanup is one place at the end. */
int dsr__compare_main(int argc, char **argv, const char *source)
{
    compare_args a = {.by = "statement"};
    int rc = dsr__options_parse(&COMPARE_COMMAND, argc, argv, 1, &a);
    if (rc == DSR_OPT_HELP_SHOWN)
        rc = 0;
    else if (!rc && a.paths.n == 0)
        rc = usage("%s", "needs reports: devspec compare REPORT.json... | DIR");
    if (rc || a.paths.n == 0) {
        compare_args_free(&a);
        return rc;
    }
    const char *spec = a.spec, *html = a.html;
    bool json = a.json, plain = a.plain, force_color = a.color, quiet = a.quiet;
    view v = {.by = a.by, .details = a.details, .disagree_only = a.disagree};
    for (int i = 0; i < a.statuses.n; i++)
        v.status_mask |= status_bit(a.statuses.items[i]);
    char **paths = a.paths.items, **cases = a.cases.items, **only = a.only.items;
    int npaths = a.paths.n, ncases = a.cases.n, nonly = a.only.n;

    compare_in in;
    memset(&in, 0, sizeof in);
    for (int i = 0; i < npaths && !rc; i++) {
        if (dsr__is_dir(paths[i])) {
            int n;
            char **files = list_json(paths[i], &n);
            for (int k = 0; k < n; k++) {
                if (!rc && add_report(&in, files[k], true, stderr)) rc = DSR_EXIT_USAGE;
                free(files[k]);
            }
            free(files);
        } else if (add_report(&in, paths[i], false, stderr))
            rc = DSR_EXIT_USAGE;
    }
    /* --library keeps the named libraries, in the order given. */
    if (!rc && nonly) {
        lib *kept = dsr__xmalloc(sizeof *kept * (size_t)nonly);
        int nk = 0;
        for (int k = 0; k < nonly && !rc; k++) {
            int found = -1;
            for (int i = 0; i < in.nlibs; i++)
                if (in.libs[i].doc && !strcmp(in.libs[i].label, only[k])) found = i;
            if (found < 0) {
                rc = usage("no report of a library labelled '%s'", only[k]);
                break;
            }
            kept[nk++] = in.libs[found];
            memset(&in.libs[found], 0, sizeof in.libs[found]); /* moved */
        }
        for (int i = 0; i < in.nlibs; i++) {
            free(in.libs[i].path);
            free(in.libs[i].label);
            cJSON_Delete(in.libs[i].doc);
        }
        free(in.libs);
        in.libs = kept;
        in.nlibs = nk;
    }
    if (!rc && in.nlibs == 0) {
        fprintf(stderr, "devspec: compare: no reports found in the paths given\n");
        rc = DSR_EXIT_USAGE;
    }
    /* The page never replaces a report it was made from, nor a case file. */
    for (int i = 0; html && !rc && i < in.nlibs; i++)
        if (dsr__same_file(html, in.libs[i].path)) {
            fprintf(stderr, "devspec: compare: --html %s is the report %s\n", html,
                    in.libs[i].path);
            rc = DSR_EXIT_USAGE;
        }
    for (int i = 0; html && !rc && i < ncases; i++)
        if (dsr__is_dir(cases[i]) ? dsr__path_inside(html, cases[i])
                                  : dsr__same_file(html, cases[i])) {
            fprintf(stderr, "devspec: compare: --html %s would replace a case file (%s)\n", html,
                    cases[i]);
            rc = DSR_EXIT_USAGE;
        }
    dsr_buf specdir = {0};
    spec_files sp = {0};
    dsr_registry reg;
    bool have_reg = false;
    if (!rc) {
        if (spec)
            dsr__buf_puts(&specdir, spec);
        else
            dsr__buf_printf(&specdir, "%s/spec", source);
        sp.statements = read_spec_file(specdir.data, "statements.json", false);
        sp.features = read_spec_file(specdir.data, "features.json", true);
        sp.profiles = read_spec_file(specdir.data, "profiles.json", false);
        if (!sp.features || dsr__registry_load(&reg, specdir.data) != 0)
            rc = DSR_EXIT_USAGE;
        else
            have_reg = true;
    }
    if (!rc) {
        if (ncases == 0) {
            dsr_buf def = {0};
            dsr__buf_printf(&def, "%s/conformance/cases", source);
            if (dsr__is_dir(def.data)) add_cases_path(&in, def.data, 0);
            dsr__buf_free(&def);
        }
        for (int i = 0; i < ncases; i++)
            add_cases_path(&in, cases[i], 0);
        build_rows(&in);
        cJSON *m = build_model(&in, &sp, have_reg ? &reg : NULL);
        if (html && dsr__compare_html_write(html, m) != 0) {
            fprintf(stderr, "devspec: compare: cannot write %s: %s\n", html, dsr__strerror(errno));
            rc = DSR_EXIT_INCOMPLETE;
        }
        if (json) {
            char *s = dsr__print(m, true);
            puts(s);
            cJSON_free(s);
        } else if (!quiet) {
            bool tty = isatty(1);
            const char *nc = getenv("NO_COLOR");
            v.color = force_color || (tty && !plain && !(nc && nc[0]));
            if (tty && !plain) {
                struct winsize ws;
                if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) v.width = ws.ws_col;
            }
            print_table(stdout, m, &v);
        }
        if (html && !rc) fprintf(stderr, "devspec: compare: wrote %s\n", html);
        cJSON_Delete(m);
    }
    if (have_reg) dsr__registry_free(&reg);
    spec_files_free(&sp);
    dsr__buf_free(&specdir);
    compare_in_free(&in);
    compare_args_free(&a);
    return rc;
}
