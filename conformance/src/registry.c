/* The spec as data, read at run time: spec/features.json (required), spec/profiles.json
 * and spec/statements.json (used when present), and the named-adapter registry
 * adapters/adapters.json. */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static cJSON *load_json(const char *path, bool required)
{
    size_t len;
    char *text = dsr__read_file(path, &len);
    if (!text) {
        if (required || errno != ENOENT)
            fprintf(stderr, "devspec: cannot read %s: %s\n", path, dsr__strerror(errno));
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, true);
    if (!root) {
        int line, col;
        dsr__offset_to_linecol(text, end ? (size_t)(end - text) : 0, &line, &col);
        fprintf(stderr, "devspec: %s:%d:%d: invalid JSON\n", path, line, col);
    }
    free(text);
    return root;
}

static char **string_list(const cJSON *arr, int *n)
{
    *n = 0;
    if (!cJSON_IsArray(arr)) return NULL;
    char **out = dsr__xmalloc(sizeof(char *) * ((size_t)cJSON_GetArraySize(arr) + 1));
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        if (cJSON_IsString(it))
            out[(*n)++] = dsr__xstrdup(it->valuestring);
        else if (cJSON_IsObject(it) && cJSON_IsString(cJSON_GetObjectItem(it, "name")))
            out[(*n)++] = dsr__xstrdup(cJSON_GetObjectItem(it, "name")->valuestring);
    }
    out[*n] = NULL;
    return out;
}

static void free_list(char **l, int n)
{
    for (int i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

static const char *str_field(const cJSON *o, const char *k1, const char *k2)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k1);
    if (!cJSON_IsString(v) && k2) v = cJSON_GetObjectItemCaseSensitive(o, k2);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* profiles.json is a list under "profiles" (or an object keyed by name); a profile lists
 * its required features under "required" (or "features") and may list "optional" ones. */
static void load_profile(dsr_profile *p, const char *name, const cJSON *o)
{
    p->name = dsr__xstrdup(name);
    const char *d = str_field(o, "description", NULL);
    p->description = d ? dsr__xstrdup(d) : NULL;
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(o, "required");
    if (!req) req = cJSON_GetObjectItemCaseSensitive(o, "features");
    p->required = string_list(req, &p->nrequired);
    p->optional = string_list(cJSON_GetObjectItemCaseSensitive(o, "optional"), &p->noptional);
    p->feature_index = (dsr_strmap){0};
    for (int i = 0; i < p->nrequired; i++)
        dsr__strmap_put(&p->feature_index, p->required[i], 0);
    for (int i = 0; i < p->noptional; i++)
        dsr__strmap_put(&p->feature_index, p->optional[i], 1);
    const cJSON *core = cJSON_GetObjectItemCaseSensitive(o, "core");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
    const cJSON *tier = cJSON_GetObjectItemCaseSensitive(o, "tier");
    const char *doc = str_field(o, "document", NULL);
    const char *ver = str_field(o, "version", NULL);
    p->document = doc ? dsr__xstrdup(doc) : NULL;
    p->version = ver ? dsr__xstrdup(ver) : NULL;
    p->core = cJSON_IsTrue(core) || (cJSON_IsString(kind) && !strcmp(kind->valuestring, "core")) ||
              (cJSON_IsString(tier) && !strcmp(tier->valuestring, "core"));
}

/* signatures.json (optional): the versions, and each function's name and the version that
 * introduced it, which is all the case loader asks of it (the `call` steps' fn). */
static void load_signatures(dsr_registry *r, const char *path)
{
    cJSON *root = load_json(path, false);
    if (!root) return;
    r->have_signatures = true;
    r->versions = string_list(cJSON_GetObjectItemCaseSensitive(root, "versions"), &r->nversions);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "functions");
    size_t n = (size_t)cJSON_GetArraySize(list) + 1;
    r->functions = dsr__xmalloc(sizeof(char *) * n);
    r->introduced = dsr__xmalloc(sizeof(int) * n);
    r->function_features = dsr__xmalloc(sizeof(char *) * n);
    const cJSON *families = cJSON_GetObjectItemCaseSensitive(root, "families");
    const cJSON *it;
    cJSON_ArrayForEach(it, list)
    {
        const char *name = str_field(it, "name", NULL);
        if (!name) continue;
        const char *from = str_field(it, "introduced", NULL);
        int v = from ? dsr__registry_version(r, from) : -1;
        const char *family = str_field(it, "family", NULL);
        const char *feature =
            family ? str_field(cJSON_GetObjectItemCaseSensitive(families, family), "feature", NULL)
                   : NULL;
        r->functions[r->nfunctions] = dsr__xstrdup(name);
        r->function_features[r->nfunctions] = feature ? dsr__xstrdup(feature) : NULL;
        r->introduced[r->nfunctions++] = v < 0 ? 0 : v;
    }
    cJSON_Delete(root);
}

int dsr__registry_version(const dsr_registry *r, const char *version)
{
    for (int i = 0; i < r->nversions; i++)
        if (!strcmp(r->versions[i], version)) return i;
    return -1;
}

const char *dsr__registry_function_feature(const dsr_registry *r, const char *fn)
{
    for (int i = 0; i < r->nfunctions; i++)
        if (!strcmp(r->functions[i], fn)) return r->function_features[i];
    return NULL;
}

int dsr__registry_function(const dsr_registry *r, const char *fn)
{
    for (int i = 0; i < r->nfunctions; i++)
        if (!strcmp(r->functions[i], fn)) return r->introduced[i];
    return -1;
}

int dsr__registry_load(dsr_registry *r, const char *spec_dir)
{
    memset(r, 0, sizeof *r);
    r->spec_dir = dsr__xstrdup(spec_dir);
    dsr_buf path = {0};

    dsr__buf_printf(&path, "%s/features.json", spec_dir);
    cJSON *root = load_json(path.data, true);
    if (!root) {
        dsr__buf_free(&path);
        return -1;
    }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "features");
    if (!cJSON_IsArray(list)) {
        fprintf(stderr, "devspec: %s: \"features\" is not a list\n", path.data);
        cJSON_Delete(root);
        dsr__buf_free(&path);
        return -1;
    }
    r->features = dsr__xmalloc(sizeof(dsr_feature) * ((size_t)cJSON_GetArraySize(list) + 1));
    const cJSON *it;
    cJSON_ArrayForEach(it, list)
    {
        const char *name = str_field(it, "name", NULL);
        if (!name) continue;
        dsr_feature *f = &r->features[r->nfeatures++];
        f->name = dsr__xstrdup(name);
        f->statements =
            string_list(cJSON_GetObjectItemCaseSensitive(it, "statements"), &f->nstatements);
        f->optional = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "optional"));
    }
    cJSON_Delete(root);

    path.len = 0;
    dsr__buf_printf(&path, "%s/profiles.json", spec_dir);
    root = load_json(path.data, false);
    if (root) {
        r->have_profiles = true;
        list = cJSON_GetObjectItemCaseSensitive(root, "profiles");
        if (!list) list = root;
        r->profiles = dsr__xmalloc(sizeof(dsr_profile) * ((size_t)cJSON_GetArraySize(list) + 1));
        cJSON_ArrayForEach(it, list)
        {
            const char *name = cJSON_IsArray(list) ? str_field(it, "name", "id") : it->string;
            if (!name || !cJSON_IsObject(it)) continue;
            load_profile(&r->profiles[r->nprofiles++], name, it);
        }
        cJSON_Delete(root);
    }

    path.len = 0;
    dsr__buf_printf(&path, "%s/statements.json", spec_dir);
    root = load_json(path.data, false);
    if (root) {
        r->have_statements = true;
        list = cJSON_GetObjectItemCaseSensitive(root, "statements");
        r->statements =
            dsr__xmalloc(sizeof(dsr_statement) * ((size_t)cJSON_GetArraySize(list) + 1));
        cJSON_ArrayForEach(it, list)
        {
            const char *id = str_field(it, "id", NULL);
            if (!id) continue;
            dsr_statement *s = &r->statements[r->nstatements++];
            s->id = dsr__xstrdup(id);
            const char *level = str_field(it, "level", NULL);
            s->level = dsr__xstrdup(level ? level : "");
            const char *text = str_field(it, "text", "paraphrase");
            s->text = dsr__xstrdup(text ? text : "");
            const char *doc =
                str_field(cJSON_GetObjectItemCaseSensitive(it, "source"), "document", NULL);
            s->document = doc ? dsr__xstrdup(doc) : NULL;
            s->versions =
                string_list(cJSON_GetObjectItemCaseSensitive(it, "versions"), &s->nversions);
            s->testable = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(it, "testable"));
            const cJSON *levels = cJSON_GetObjectItemCaseSensitive(it, "levels");
            s->levels = cJSON_IsObject(levels) ? cJSON_Duplicate(levels, true) : NULL;
        }
        /* each case looks up the statements it cites: by hash, not through 1,185 strcmps */
        for (int i = 0; i < r->nstatements; i++)
            dsr__strmap_put(&r->statement_index, r->statements[i].id, i);
        r->retired = string_list(cJSON_GetObjectItemCaseSensitive(root, "retired"), &r->nretired);
        cJSON_Delete(root);
    }
    path.len = 0;
    dsr__buf_printf(&path, "%s/signatures.json", spec_dir);
    load_signatures(r, path.data);
    /* step-features.json (optional): which features each op of a step uses. */
    path.len = 0;
    dsr__buf_printf(&path, "%s/step-features.json", spec_dir);
    root = load_json(path.data, false);
    if (root) {
        r->step_rules = cJSON_DetachItemFromObjectCaseSensitive(root, "ops");
        cJSON_Delete(root);
    }
    dsr__buf_free(&path);
    return 0;
}

void dsr__registry_free(dsr_registry *r)
{
    for (int i = 0; i < r->nfeatures; i++) {
        free(r->features[i].name);
        free_list(r->features[i].statements, r->features[i].nstatements);
    }
    free(r->features);
    for (int i = 0; i < r->nprofiles; i++) {
        free(r->profiles[i].name);
        free(r->profiles[i].description);
        free(r->profiles[i].document);
        free(r->profiles[i].version);
        free_list(r->profiles[i].required, r->profiles[i].nrequired);
        free_list(r->profiles[i].optional, r->profiles[i].noptional);
        dsr__strmap_free(&r->profiles[i].feature_index, false);
    }
    free(r->profiles);
    dsr__strmap_free(&r->statement_index, false);
    for (int i = 0; i < r->nstatements; i++) {
        free(r->statements[i].id);
        free(r->statements[i].level);
        free(r->statements[i].text);
        free(r->statements[i].document);
        free_list(r->statements[i].versions, r->statements[i].nversions);
        cJSON_Delete(r->statements[i].levels);
    }
    free(r->statements);
    free_list(r->retired, r->nretired);
    free_list(r->versions, r->nversions);
    free_list(r->functions, r->nfunctions);
    free_list(r->function_features, r->nfunctions);
    free(r->introduced);
    cJSON_Delete(r->step_rules);
    free(r->spec_dir);
    memset(r, 0, sizeof *r);
}

const dsr_feature *dsr__registry_feature(const dsr_registry *r, const char *name)
{
    for (int i = 0; i < r->nfeatures; i++)
        if (!strcmp(r->features[i].name, name)) return &r->features[i];
    return NULL;
}

const dsr_profile *dsr__registry_profile(const dsr_registry *r, const char *name)
{
    for (int i = 0; i < r->nprofiles; i++)
        if (!strcmp(r->profiles[i].name, name)) return &r->profiles[i];
    return NULL;
}

const dsr_statement *dsr__registry_statement(const dsr_registry *r, const char *id)
{
    if (r->statement_index.n) {
        int i = dsr__strmap_get(&r->statement_index, id);
        return i >= 0 ? &r->statements[i] : NULL;
    }
    for (int i = 0; i < r->nstatements; i++)
        if (!strcmp(r->statements[i].id, id)) return &r->statements[i];
    return NULL;
}

bool dsr__registry_retired(const dsr_registry *r, const char *id)
{
    for (int i = 0; i < r->nretired; i++)
        if (!strcmp(r->retired[i], id)) return true;
    return false;
}

bool dsr__profile_has_feature(const dsr_profile *p, const char *feature, bool *optional)
{
    int v = dsr__strmap_get(&p->feature_index, feature);
    if (v >= 0 && optional) *optional = v == 1;
    return v >= 0;
}

bool dsr__statement_applies(const dsr_statement *s, const dsr_profile *p)
{
    if (!p->document || !s->document) return true;
    if (strcmp(p->document, s->document)) return false;
    if (!p->version) return true;
    for (int i = 0; i < s->nversions; i++)
        if (!strcmp(s->versions[i], p->version)) return true;
    return false;
}

/* ---- adapters/adapters.json ------------------------------------------------------ */

static char *substitute(const char *s, const char *source, const char *build)
{
    dsr_buf b = {0};
    while (*s) {
        if (!strncmp(s, "${SOURCE}", 9)) {
            dsr__buf_puts(&b, source);
            s += 9;
        } else if (!strncmp(s, "${BUILD}", 8)) {
            dsr__buf_puts(&b, build);
            s += 8;
        } else {
            dsr__buf_add(&b, s, 1);
            s++;
        }
    }
    if (!b.data) dsr__buf_puts(&b, "");
    return b.data;
}

/* One problem of adapters.json, located: "PATH:LINE:COL: adapters[3].env.X: reason". */
__attribute__((format(printf, 5, 6))) static void adapters_problem(const char *path,
                                                                   const char *text,
                                                                   const dsr_seg *seg, int depth,
                                                                   const char *fmt, ...)
{
    int line, col;
    dsr__offset_to_linecol(text, dsr__json_locate(text, seg, depth), &line, &col);
    dsr_buf field = {0};
    dsr__path_format(seg, depth, &field);
    fprintf(stderr, "devspec: %s:%d:%d: %s: ", path, line, col, depth ? field.data : "(file)");
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    dsr__buf_free(&field);
}

/* A string the runner passes on as a C string (a program's argument, a variable): no NUL. */
static bool plain_string(const cJSON *v)
{
    return cJSON_IsString(v) && !dsj_string_has_nul(v->valuestring);
}

static bool adapter_name_ok(const char *s)
{
    if (!*s) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' ||
              *s == '.'))
            return false;
    return true;
}

/* Problems for each key given twice in the object O, at SEG[DEPTH - 1] (the key's own
 * place): JSON readers resolve duplicates differently, and the runner would silently take the
 * last. */
static int duplicate_keys(const char *path, const char *text, dsr_seg *seg, int depth,
                          const cJSON *o)
{
    int problems = 0;
    dsr_strmap keys = {0};
    for (const cJSON *k = o->child; k; k = k->next) {
        if (dsr__strmap_put(&keys, k->string, 0) < 0) continue;
        int nth = 0;
        for (const cJSON *j = o->child; j != k; j = j->next)
            if (!strcmp(j->string, k->string)) nth++;
        seg[depth - 1] = (dsr_seg){.key = k->string, .nth = nth, .at_key = true};
        adapters_problem(path, text, seg, depth, "the key \"%s\" is given twice", k->string);
        problems++;
    }
    dsr__strmap_free(&keys, false);
    return problems;
}

/* Checks adapters.json against spec/schema/adapters.json (and what the schema cannot say:
 * names unique, no NUL in any string the runner passes on). Prints every problem; returns
 * their number. */
static int check_adapters(const char *path, const char *text, const cJSON *root)
{
    int problems = 0;
    dsr_seg seg[4] = {{0}};
#define PROBLEM(depth, ...) (adapters_problem(path, text, seg, depth, __VA_ARGS__), problems++)
    if (!cJSON_IsObject(root)) return PROBLEM(0, "must be an object with \"adapters\""), problems;
    problems += duplicate_keys(path, text, seg, 1, root);
    for (const cJSON *k = root->child; k; k = k->next)
        if (strcmp(k->string, "description") && strcmp(k->string, "adapters")) {
            seg[0] = (dsr_seg){.key = k->string, .at_key = true};
            PROBLEM(1, "unknown field (allowed: description, adapters)");
        }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "adapters");
    seg[0] = (dsr_seg){.key = "adapters"};
    if (!cJSON_IsArray(list)) return PROBLEM(list ? 1 : 0, "\"adapters\" must be a list"), problems;
    dsr_strmap names = {0};
    int i = 0;
    for (const cJSON *it = list->child; it; it = it->next, i++) {
        seg[1] = (dsr_seg){.index = i};
        if (!cJSON_IsObject(it)) {
            PROBLEM(2, "an adapter must be an object");
            continue;
        }
        problems += duplicate_keys(path, text, seg, 3, it);
        for (const cJSON *k = it->child; k; k = k->next) {
            seg[2] = (dsr_seg){.key = k->string};
            if (!strcmp(k->string, "name")) {
                if (!plain_string(k) || !adapter_name_ok(k->valuestring))
                    PROBLEM(3, "must be a name of a-z, 0-9, '-', '_', '.'");
                else if (dsr__strmap_put(&names, k->valuestring, i) >= 0)
                    PROBLEM(3, "the name \"%s\" is given twice", k->valuestring);
            } else if (!strcmp(k->string, "description")) {
                if (!cJSON_IsString(k)) PROBLEM(3, "must be a string");
            } else if (!strcmp(k->string, "command")) {
                if (!cJSON_IsArray(k) || !k->child)
                    PROBLEM(3,
                            "must be a non-empty list of strings (the program and its arguments)");
                int j = 0;
                for (const cJSON *a = cJSON_IsArray(k) ? k->child : NULL; a; a = a->next, j++) {
                    seg[3] = (dsr_seg){.index = j};
                    if (!plain_string(a)) PROBLEM(4, "must be a string without NUL");
                }
            } else if (!strcmp(k->string, "shared_object")) {
                if (!plain_string(k)) PROBLEM(3, "must be a path (a string without NUL)");
            } else if (!strcmp(k->string, "env")) {
                if (!cJSON_IsObject(k))
                    PROBLEM(3, "must be an object of variable names to string values");
                else
                    problems += duplicate_keys(path, text, seg, 4, k);
                seg[2] = (dsr_seg){.key = k->string};
                for (const cJSON *e = cJSON_IsObject(k) ? k->child : NULL; e; e = e->next) {
                    seg[3] = (dsr_seg){.key = e->string};
                    if (!plain_string(e))
                        PROBLEM(4, "must be a string without NUL");
                    else if (!e->string[0] || strchr(e->string, '=') ||
                             dsj_string_has_nul(e->string))
                        PROBLEM(4, "is not a variable name");
                }
            } else if (!strcmp(k->string, "expectations")) {
                if (!plain_string(k) && !cJSON_IsNull(k)) PROBLEM(3, "must be a path or null");
            } else if (!strcmp(k->string, "timeout")) {
                if (!cJSON_IsNumber(k) || !(k->valuedouble > 0) || k->valuedouble > 3600)
                    PROBLEM(3, "must be a number of seconds above 0, at most 3600");
            } else if (!strcmp(k->string, "jobs")) {
                /* The range first: converting a number beyond int's to int is undefined. */
                if (!cJSON_IsNumber(k) || !(k->valuedouble >= 1 && k->valuedouble <= 64) ||
                    k->valuedouble != (double)(int)k->valuedouble)
                    PROBLEM(3, "must be a whole number of workers from 1 to 64");
            } else {
                seg[2].at_key = true;
                PROBLEM(3, "unknown field (allowed: name, description, command, shared_object, "
                           "env, expectations, jobs, timeout)");
            }
        }
        seg[2] = (dsr_seg){0};
        if (!cJSON_GetObjectItemCaseSensitive(it, "name")) PROBLEM(2, "missing field \"name\"");
        if (!cJSON_GetObjectItemCaseSensitive(it, "command"))
            PROBLEM(2, "missing field \"command\"");
    }
    dsr__strmap_free(&names, false);
#undef PROBLEM
    return problems;
}

/* Adapters files registered from outside the suite (--adapters FILE, DEVSPEC_ADAPTERS),
 * searched before the suite's own, in the order given. */
static char *const *extra_files;
static int nextra_files;

void dsr__named_adapter_files(char *const *files, int n)
{
    extra_files = files;
    nextra_files = n;
}

static cJSON *load_adapters_file(const char *file);

/* adapters/adapters.json, checked; NULL (the problems printed) when it cannot be used. */
static cJSON *load_adapters(const char *source)
{
    dsr_buf path = {0};
    dsr__buf_printf(&path, "%s/adapters/adapters.json", source);
    cJSON *root = load_adapters_file(path.data);
    dsr__buf_free(&path);
    return root;
}

/* In an adapters file of one's own, a relative path is relative to that file's folder: the
 * shared object and the expectations file always; a command word (WORD_ONLY) only when it is
 * the path of a file there (DIR/WORD exists): any other word, such as the script of
 * `sh -c "exec /x"` or a bare program name looked up on PATH, is passed as written. DIR is
 * NULL for the suite's own file, whose paths use ${SOURCE} and ${BUILD}. */
static char *relative_to(const char *dir, char *v, bool word_only)
{
    if (!dir || !v[0] || v[0] == '/' || v[0] == '-' || !strchr(v, '/')) return v;
    if (word_only) {
        dsr_buf t = {0};
        dsr__buf_printf(&t, "%s/%s", dir, v);
        struct stat st;
        bool file = stat(t.data, &st) == 0 && !S_ISDIR(st.st_mode);
        dsr__buf_free(&t);
        if (!file) return v;
    }
    dsr_buf b = {0};
    dsr__buf_printf(&b, "%s/%s", dir, v);
    free(v);
    return b.data;
}

static cJSON *load_adapters_file(const char *file)
{
    dsr_buf path = {0};
    dsr__buf_puts(&path, file);
    size_t len;
    char *text = dsr__read_file(path.data, &len);
    cJSON *root = NULL;
    if (!text) {
        fprintf(stderr, "devspec: cannot read %s: %s\n", path.data, dsr__strerror(errno));
    } else {
        size_t at = 0;
        root = dsj_parse(text, len, &at);
        if (!root) {
            int line, col;
            dsr__offset_to_linecol(text, at, &line, &col);
            fprintf(stderr, "devspec: %s:%d:%d: invalid JSON\n", path.data, line, col);
        } else if (check_adapters(path.data, text, root) != 0) {
            cJSON_Delete(root);
            root = NULL;
        }
    }
    free(text);
    dsr__buf_free(&path);
    return root;
}

static int find_in(cJSON *root, const char *dir, const char *source, const char *build,
                   const char *name, dsr_named_adapter *out);

int dsr__named_adapter_find(const char *source, const char *build, const char *name,
                            dsr_named_adapter *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < nextra_files; i++) {
        cJSON *root = load_adapters_file(extra_files[i]);
        if (!root) {
            out->file = dsr__xstrdup(extra_files[i]);
            return -2;
        }
        char *dir = dsr__xstrdup(extra_files[i]);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        else
            snprintf(dir, strlen(dir) + 1, ".");
        int rc = find_in(root, dir, source, build, name, out);
        free(dir);
        if (rc == 0) {
            out->file = dsr__xstrdup(extra_files[i]);
            /* A name of the suite's own taken over: said, and recorded in the report. */
            cJSON *suite = load_adapters(source);
            const cJSON *it;
            cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(suite, "adapters"))
            {
                const char *n = str_field(it, "name", NULL);
                if (n && !strcmp(n, name)) out->replaces_suite_entry = true;
            }
            cJSON_Delete(suite);
            if (out->replaces_suite_entry)
                fprintf(stderr,
                        "devspec: the adapter '%s' is the one of %s, which replaces the suite's "
                        "adapter of that name (adapters/adapters.json)\n",
                        name, extra_files[i]);
            return 0;
        }
    }
    cJSON *root = load_adapters(source);
    if (!root) {
        dsr_buf p = {0};
        dsr__buf_printf(&p, "%s/adapters/adapters.json", source);
        out->file = p.data;
        return -2;
    }
    int rc = find_in(root, NULL, source, build, name, out);
    if (rc != 0)
        fprintf(stderr,
                "devspec: no adapter named '%s' in adapters/adapters.json%s (give a path to a "
                ".so, or --adapter-cmd)\n",
                name, nextra_files ? " or the --adapters/DEVSPEC_ADAPTERS files" : "");
    return rc;
}

/* Fills OUT from the entry NAME of ROOT (which it deletes). Returns 0 or -1. */
static int find_in(cJSON *root, const char *dir, const char *source, const char *build,
                   const char *name, dsr_named_adapter *out)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(root, "adapters"))
    {
        const char *n = str_field(it, "name", NULL);
        if (!n || strcmp(n, name)) continue;
        out->name = dsr__xstrdup(n);
        const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(it, "command");
        int ncmd = cJSON_GetArraySize(cmd);
        out->command = dsr__xmalloc(sizeof(char *) * ((size_t)ncmd + 1));
        int k = 0;
        const cJSON *a;
        cJSON_ArrayForEach(a, cmd)
        {
            out->command[k++] = relative_to(dir, substitute(a->valuestring, source, build), true);
        }
        out->command[k] = NULL;
        const char *so = str_field(it, "shared_object", NULL);
        out->shared_object = so ? relative_to(dir, substitute(so, source, build), false) : NULL;
        const cJSON *env = cJSON_GetObjectItemCaseSensitive(it, "env");
        out->env = dsr__xmalloc(sizeof(char *) * ((size_t)cJSON_GetArraySize(env) + 1));
        k = 0;
        cJSON_ArrayForEach(a, env)
        {
            char *v = substitute(a->valuestring, source, build);
            dsr_buf kv = {0};
            dsr__buf_printf(&kv, "%s=%s", a->string, v);
            free(v);
            out->env[k++] = kv.data;
        }
        out->env[k] = NULL;
        const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(it, "jobs");
        out->jobs = cJSON_IsNumber(jobs) ? (int)jobs->valuedouble : 0;
        const cJSON *timeout = cJSON_GetObjectItemCaseSensitive(it, "timeout");
        out->timeout = cJSON_IsNumber(timeout) ? timeout->valuedouble : 0;
        const char *ex = str_field(it, "expectations", NULL);
        if (ex) {
            dsr_buf p = {0};
            char *rel = substitute(ex, source, build);
            if (rel[0] == '/')
                dsr__buf_puts(&p, rel);
            else
                dsr__buf_printf(&p, "%s/%s", dir ? dir : source, rel);
            free(rel);
            out->expectations = p.data;
        }
        cJSON_Delete(root);
        return 0;
    }
    cJSON_Delete(root);
    return -1;
}

void dsr__named_adapter_free(dsr_named_adapter *a)
{
    free(a->name);
    if (a->command)
        for (char **p = a->command; *p; p++)
            free(*p);
    free(a->command);
    free(a->shared_object);
    if (a->env)
        for (char **p = a->env; *p; p++)
            free(*p);
    free(a->env);
    free(a->expectations);
    free(a->file);
    memset(a, 0, sizeof *a);
}

void dsr__named_adapter_inputs(const dsr_named_adapter *a, dsr_inputs *in)
{
    for (char **p = a->command; p && *p; p++) {
        struct stat st;
        if (p == a->command)
            dsr__inputs_add_program(in, *p, "adapter program");
        else if (strchr(*p, '/') && stat(*p, &st) == 0 && S_ISREG(st.st_mode))
            dsr__inputs_add(in, *p, "adapter program");
    }
    dsr__inputs_add(in, a->shared_object, "in-process adapter");
    dsr__inputs_add(in, a->expectations, "expectations");
}

/* Why the entry IT cannot run here, or NULL: its program is a path (after substitution) that
 * does not exist or cannot be run, as the project's .venv in an installation that has none. */
static char *unavailable(const cJSON *it, const char *dir, const char *source, const char *build)
{
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(it, "command");
    const cJSON *first = cJSON_IsArray(cmd) ? cmd->child : NULL;
    if (!cJSON_IsString(first)) return NULL;
    char *prog = relative_to(dir, substitute(first->valuestring, source, build), true);
    char *why = NULL;
    if (strchr(prog, '/') && access(prog, X_OK) != 0) {
        dsr_buf b = {0};
        dsr__buf_printf(&b, "unavailable: %s %s", prog,
                        errno == ENOENT ? "does not exist" : "cannot be run");
        why = b.data;
    }
    free(prog);
    return why;
}

char *dsr__named_adapter_unavailable(const dsr_named_adapter *a)
{
    if (!a->command || !a->command[0] || !strchr(a->command[0], '/') ||
        access(a->command[0], X_OK) == 0)
        return NULL;
    dsr_buf b = {0};
    dsr__buf_printf(&b,
                    "the adapter '%s' is not available here: its program %s %s (an installed "
                    "devspec has no project .venv: use --adapter python:MODULE --python PATH)",
                    a->name, a->command[0], errno == ENOENT ? "does not exist" : "cannot be run");
    return b.data;
}

int dsr__named_adapter_list(const char *source, const char *build, FILE *out)
{
    for (int i = 0; i < nextra_files; i++) {
        cJSON *root = load_adapters_file(extra_files[i]);
        if (!root) return -1;
        const cJSON *it;
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(root, "adapters"))
        {
            const char *n = str_field(it, "name", NULL);
            const char *d = str_field(it, "description", NULL);
            char *dir = dsr__xstrdup(extra_files[i]);
            char *slash = strrchr(dir, '/');
            if (slash)
                *slash = '\0';
            else
                snprintf(dir, strlen(dir) + 1, ".");
            char *why = unavailable(it, dir, source, build);
            free(dir);
            if (n)
                fprintf(out, "%-20s %s (%s)%s%s%s\n", n, d ? d : "", extra_files[i],
                        why ? " [" : "", why ? why : "", why ? "]" : "");
            free(why);
        }
        cJSON_Delete(root);
    }
    cJSON *root = load_adapters(source);
    if (!root) return -1;
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(root, "adapters"))
    {
        const char *n = str_field(it, "name", NULL);
        const char *d = str_field(it, "description", NULL);
        char *why = unavailable(it, NULL, source, build);
        if (n)
            fprintf(out, "%-20s %s%s%s%s\n", n, d ? d : "", why ? " [" : "", why ? why : "",
                    why ? "]" : "");
        free(why);
    }
    cJSON_Delete(root);
    return 0;
}
