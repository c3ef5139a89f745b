/* Loading and validating case files (spec/case-format.md): the suite's files and folders,
 * each file and its cases (a case's steps are case_step.c's). Every file is parsed and
 * checked before anything runs; each problem is reported with file, line, column and the
 * field at fault (case_check.c). The rules are those of spec/schema/case.json plus what a schema
 * cannot say: unknown features and statements, case IDs unique across the suite, references to
 * names no earlier step binds, duplicate object keys. */
#define _POSIX_C_SOURCE 200809L
#include "case_step.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static const char **load_string_list(dsr_loader *L, const cJSON *v, const char *what, int *n,
                                     bool (*known)(dsr_loader *, const char *))
{
    *n = 0;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0) {
        dsr__load_problem(L, "must be a non-empty list of %s", what);
        return NULL;
    }
    const char **out = dsr__xmalloc(sizeof(char *) * (size_t)cJSON_GetArraySize(v));
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, v)
    {
        dsr__load_push_index(L, i++);
        if (!cJSON_IsString(it)) {
            dsr__load_problem(L, "must be a string (one of the %s), not %s", what,
                              dsr__load_type_name(it));
        } else {
            bool dup = false;
            for (int k = 0; k < *n; k++)
                if (!strcmp(out[k], it->valuestring)) dup = true;
            /* The schema allows a name twice; it is kept once. */
            if (known(L, it->valuestring) && !dup) out[(*n)++] = it->valuestring;
        }
        dsr__load_pop(L);
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

static bool known_statement(dsr_loader *L, const char *id)
{
    if (!statement_pattern(id)) {
        dsr__load_problem(L, "\"%s\" is not a statement ID (^[A-Z]+(-[A-Z]+)*-[0-9]+[a-z]?$)", id);
        return false;
    }
    if (dsr__registry_retired(L->reg, id)) {
        dsr__load_problem(L, "statement \"%s\" is retired (spec/statements.json)", id);
        return false;
    }
    const dsr_statement *st = dsr__registry_statement(L->reg, id);
    if (L->reg->have_statements && !st) {
        dsr__load_problem(L, "unknown statement \"%s\" (not in spec/statements.json)", id);
        return false;
    }
    /* spec/README.md: unspecified statements are recorded, never checked; informative ones
     * only by a case that cites nothing else. */
    if (st && st->level[0] && strcmp(st->level, "must") && strcmp(st->level, "should") &&
        strcmp(st->level, "may") && strcmp(st->level, "implementation-defined") &&
        !(L->informative_only && !strcmp(st->level, "informative"))) {
        dsr__load_problem(L,
                          "statement \"%s\" is %s; cases check only must, should, may and "
                          "implementation-defined statements, or informative ones cited alone",
                          id, st->level);
        return false;
    }
    return true;
}

static bool known_feature(dsr_loader *L, const char *name)
{
    if (!feature_pattern(name)) {
        dsr__load_problem(L, "\"%s\" is not a feature name (^[a-z0-9]+(-[a-z0-9]+)*$)", name);
        return false;
    }
    if (!dsr__registry_feature(L->reg, name)) {
        dsr__load_problem(L, "unknown feature \"%s\" (not in spec/features.json)", name);
        return false;
    }
    return true;
}

static const char *const CASE_KEYS[] = {"id",    "description", "spec",  "features", "devices",
                                        "ranks", "decision",    "steps", NULL};

/* A case's "devices" (given: returned) and "ranks" (1 when not given). */
static const cJSON *load_devices_ranks(dsr_loader *L, dsr_case *c, const cJSON *v)
{
    const cJSON *devices = cJSON_GetObjectItemCaseSensitive(v, "devices");
    if (devices) {
        dsr__load_push_key(L, "devices");
        double d = cJSON_IsNumber(devices) ? devices->valuedouble : 0;
        if (!cJSON_IsNumber(devices) || d != floor(d) || d < 1)
            dsr__load_problem(L, "must be an integer >= 1");
        else
            c->devices = d > 1e6 ? 1000000 : (int)d; /* more than any library has: a skip */
        dsr__load_pop(L);
    }

    const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(v, "ranks");
    c->ranks = 1;
    if (ranks) {
        dsr__load_push_key(L, "ranks");
        double d = cJSON_IsNumber(ranks) ? ranks->valuedouble : 0;
        if (!cJSON_IsNumber(ranks) || d != floor(d) || d < 1 || d > 1024)
            dsr__load_problem(L, "must be an integer from 1 to 1024");
        else
            c->ranks = (int)d;
        dsr__load_pop(L);
    }
    L->ranks = c->ranks;
    return devices;
}

/* A case's "decision": where the standard is silent, the point of spec/decisions.md its
 * expectation rests on (spec/tools/check.py checks that the point exists). */
static void load_decision(dsr_loader *L, dsr_case *c, const cJSON *v)
{
    const cJSON *decision = cJSON_GetObjectItemCaseSensitive(v, "decision");
    if (!decision) return;
    dsr__load_push_key(L, "decision");
    if (!cJSON_IsString(decision) || !decision->valuestring[0])
        dsr__load_problem(L, "must be a non-empty string (a point of spec/decisions.md)");
    else
        c->decision = decision->valuestring;
    dsr__load_pop(L);
}

/* Whether C reads elements back (an array.read or array.exchange step): it then needs
 * devices that hold data, and run.c binds it so. */
static bool reads_back(const dsr_case *c)
{
    for (int i = 0; i < c->nsteps; i++)
        if (c->steps[i].op &&
            (!strcmp(c->steps[i].op, "array.read") || !strcmp(c->steps[i].op, "array.exchange")))
            return true;
    return false;
}

const char *const dsr__dtype_names[] = {"bool",    "int8",    "int16",     "int32",      "int64",
                                        "uint8",   "uint16",  "uint32",    "uint64",     "float16",
                                        "float32", "float64", "complex64", "complex128", NULL};

unsigned dsr__dtype_bit(const char *name)
{
    for (int i = 0; dsr__dtype_names[i]; i++)
        if (!strcmp(dsr__dtype_names[i], name)) return 1u << i;
    return 0;
}

/* The dtypes V names anywhere as a "dtype" (a typed array's, a dtype argument's), and the
 * devices $Dk it names, as masks. */
static void dtypes_in(const cJSON *v, unsigned *dtypes, unsigned *devices)
{
    for (const cJSON *it = v ? v->child : NULL; it; it = it->next) {
        if (it->string && !strcmp(it->string, "dtype") && cJSON_IsString(it))
            *dtypes |= dsr__dtype_bit(it->valuestring);
        if (cJSON_IsString(it) && it->valuestring[0] == '$' && it->valuestring[1] == 'D' &&
            it->valuestring[2] >= '0' && it->valuestring[2] <= '9' && !it->valuestring[3])
            *devices |= 1u << (it->valuestring[2] - '0');
        dtypes_in(it, dtypes, devices);
    }
}

/* The dtypes C makes on each device (c->dtypes_on), from the steps that must succeed: a
 * step's dtypes on the devices it names, or, naming none, on $D0 for a creation (the
 * default device) and on every device otherwise. A step allowed to raise, and a case that
 * asks info.dtypes (it reads the list and decides itself), need none (spec/decisions.md,
 * Runner and reports 44). */
static void derive_dtypes(dsr_case *c)
{
    for (int s = 0; s < c->nsteps; s++)
        if (c->steps[s].op && !strcmp(c->steps[s].op, "info.dtypes")) return;
    for (int s = 0; s < c->nsteps; s++) {
        const dsr_step *st = &c->steps[s];
        if (st->outcome == DSR_OUTCOME_RAISES || st->outcome == DSR_OUTCOME_EITHER) continue;
        unsigned dtypes = 0, devices = 0;
        dtypes_in(st->args, &dtypes, &devices);
        if (!dtypes) continue;
        if (!devices)
            devices =
                st->op && (!strcmp(st->op, "array.create") || !strcmp(st->op, "array.asarray"))
                    ? 1u
                    : (1u << DSR_MAX_DEVICES) - 1;
        for (int k = 0; k < DSR_MAX_DEVICES; k++)
            if (devices & (1u << k)) c->dtypes_on[k] |= dtypes;
    }
}

/* A case's steps (STEPS, NULL when missing), each by dsr__load_step. */
static void load_steps(dsr_loader *L, dsr_case *c, const cJSON *steps)
{
    L->nbound = 0;
    L->max_device = -1;
    if (!steps) {
        dsr__load_problem(L, "missing field \"steps\"");
        return;
    }
    dsr__load_push_key(L, "steps");
    if (!cJSON_IsArray(steps) || cJSON_GetArraySize(steps) == 0)
        dsr__load_problem(L, "must be a non-empty list of steps");
    else {
        c->steps = dsr__xmalloc(sizeof(dsr_step) * (size_t)cJSON_GetArraySize(steps));
        const cJSON *st;
        cJSON_ArrayForEach(st, steps)
        {
            dsr__load_push_index(L, c->nsteps);
            dsr__load_step(L, &c->steps[c->nsteps], st);
            c->nsteps++;
            dsr__load_pop(L);
        }
    }
    dsr__load_pop(L);
}

/* A case's fields in the order spec/schema/case.json lists them, as load_step. */
static void load_case(dsr_loader *L, dsr_case *c, const cJSON *v)
{
    memset(c, 0, sizeof *c);
    c->file = L->file;
    if (!cJSON_IsObject(v)) {
        dsr__load_problem(L, "a case must be an object, not %s", dsr__load_type_name(v));
        return;
    }
    dsr__load_only_keys(L, v, CASE_KEYS);

    const cJSON *id = cJSON_GetObjectItemCaseSensitive(v, "id");
    if (!id) dsr__load_problem(L, "missing field \"id\"");
    dsr__load_push_key(L, "id");
    if (id && !cJSON_IsString(id))
        dsr__load_problem(L, "must be a string, not %s", dsr__load_type_name(id));
    else if (id && !matches_id(id->valuestring))
        dsr__load_problem(
            L, "\"%s\" is not a valid case ID (^[a-z0-9][a-z0-9_-]*(\\.[a-z0-9][a-z0-9_-]*)*$)",
            id->valuestring);
    else if (id)
        c->id = id->valuestring;
    dsr__load_pop(L);

    /* description is optional in a case (spec/case-format.md), non-empty when present */
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(v, "description");
    if (desc) {
        dsr__load_push_key(L, "description");
        if (!cJSON_IsString(desc) || !desc->valuestring[0])
            dsr__load_problem(L, "must be a non-empty string");
        else
            c->description = desc->valuestring;
        dsr__load_pop(L);
    }

    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(v, "spec");
    L->latest_version = -1;
    if (!spec)
        dsr__load_problem(L, "missing field \"spec\"");
    else {
        dsr__load_push_key(L, "spec");
        /* Informative statements may be cited by a case that cites nothing else: it checks
         * only what they inform (spec/decisions.md, Runner and reports 26). */
        L->informative_only = cJSON_IsArray(spec) && spec->child;
        const cJSON *sid;
        cJSON_ArrayForEach(sid, spec)
        {
            const dsr_statement *st =
                cJSON_IsString(sid) ? dsr__registry_statement(L->reg, sid->valuestring) : NULL;
            L->informative_only = L->informative_only && st && !strcmp(st->level, "informative");
            for (int k = 0; st && k < st->nversions; k++) {
                int ver = dsr__registry_version(L->reg, st->versions[k]);
                if (ver > L->latest_version) L->latest_version = ver;
            }
        }
        c->spec = load_string_list(L, spec, "statement IDs", &c->nspec, known_statement);
        dsr__load_pop(L);
    }

    const cJSON *features = cJSON_GetObjectItemCaseSensitive(v, "features");
    if (!features)
        dsr__load_problem(L, "missing field \"features\"");
    else {
        dsr__load_push_key(L, "features");
        c->features = load_string_list(L, features, "feature names", &c->nfeatures, known_feature);
        dsr__load_pop(L);
    }

    const cJSON *devices = load_devices_ranks(L, c, v);
    load_decision(L, c, v);

    load_steps(L, c, cJSON_GetObjectItemCaseSensitive(v, "steps"));
    c->needs_data = reads_back(c);
    derive_dtypes(c);
    if (!devices)
        c->devices = L->max_device + 1;
    else if (c->devices && c->devices < L->max_device + 1) {
        dsr__load_push_key(L, "devices");
        dsr__load_problem(L, "says %d but the steps use $D%d", c->devices, L->max_device);
        dsr__load_pop(L);
    }
}

static const char *const FILE_KEYS[] = {"description", "cases", NULL};

/* F's text as JSON into f->root; false, said, when it is not JSON or memory ran out. */
static bool parse_text(dsr_loader *L, dsr_file *f, size_t len)
{
    int line, col;
    size_t end = len;
    const char *why = NULL;
    /* read in place (dsr__read_file's text ends in a NUL): no copy of the file at the peak;
     * into an arena: no allocator's header on each node and text (decisions, Runner and
     * reports 41) */
    f->arena = dsj_arena_new();
    dsj_parse_options in_place = {.terminated = true, .arena = f->arena};
    dsr__json_watch_memory(true);
    f->root = f->arena ? dsj_parse_with(f->text, len, &in_place, &end, &why) : NULL;
    if (!f->arena) why = "out of memory";
    bool no_memory = dsr__json_out_of_memory;
    dsr__json_watch_memory(false);
    if (!f->root && (why || no_memory)) {
        /* valid or not, it could not be read: memory ran out (decisions, Runner and reports
         * 41) */
        fprintf(L->err,
                "%s: (file): out of memory reading it (%zu bytes; the loader needs up to "
                "about 10 times a case file's size): give devspec more memory, or split the "
                "file\n",
                f->path, len);
        L->problems++;
        return false;
    }
    if (!f->root) {
        size_t deep;
        if (dsj_too_deep(f->text, len, &deep)) {
            dsr__offset_to_linecol(f->text, deep, &line, &col);
            fprintf(L->err, "%s:%d:%d: (file): nested deeper than %d arrays and objects\n", f->path,
                    line, col, DSJ_MAX_DEPTH);
            L->problems++;
            return false;
        }
        size_t off = dsr__json_error_offset(f->text, len);
        if (off >= len) /* the strict check accepts what dsj_parse refused: use its place */
            off = end;
        dsr__offset_to_linecol(f->text, off, &line, &col);
        fprintf(L->err, "%s:%d:%d: (file): invalid JSON%s\n", f->path, line, col,
                off >= len ? " (unexpected end of file)" : "");
        L->problems++;
        return false;
    }
    return true;
}

static void load_file(dsr_loader *L)
{
    dsr_file *f = L->file;
    size_t len = f->len;
    int line, col;
    /* A byte order mark names the encoding the file was saved in: said, rather than the
     * NUL byte of UTF-16 or the invalid JSON of UTF-8's mark. */
    const unsigned char *u = (const unsigned char *)f->text;
    const char *bom = len >= 4 && !memcmp(u, "\xff\xfe\0\0", 4)   ? "UTF-32LE"
                      : len >= 4 && !memcmp(u, "\0\0\xfe\xff", 4) ? "UTF-32BE"
                      : len >= 2 && u[0] == 0xFF && u[1] == 0xFE  ? "UTF-16LE"
                      : len >= 2 && u[0] == 0xFE && u[1] == 0xFF  ? "UTF-16BE"
                      : len >= 3 && !memcmp(u, "\xef\xbb\xbf", 3) ? "UTF-8"
                                                                  : NULL;
    if (bom) {
        fprintf(L->err,
                "%s:1:1: (file): a %s byte order mark: a case file is UTF-8 JSON text without "
                "one (save it as UTF-8 with no BOM)\n",
                f->path, bom);
        L->problems++;
        return;
    }
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
    if (!parse_text(L, f, len)) return;
    dsr__load_duplicates(L, f->root);
    if (!cJSON_IsObject(f->root)) {
        dsr__load_problem(
            L, "a case file must be an object with \"description\" and \"cases\", not %s",
            dsr__load_type_name(f->root));
        return;
    }
    dsr__load_only_keys(L, f->root, FILE_KEYS);
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(f->root, "description");
    if (!desc)
        dsr__load_problem(L, "missing field \"description\"");
    else if (!cJSON_IsString(desc) || !desc->valuestring[0]) {
        dsr__load_push_key(L, "description");
        dsr__load_problem(L, "must be a non-empty string");
        dsr__load_pop(L);
    }
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(f->root, "cases");
    if (!cases) {
        dsr__load_problem(L, "missing field \"cases\"");
        return;
    }
    dsr__load_push_key(L, "cases");
    if (!cJSON_IsArray(cases) || cJSON_GetArraySize(cases) == 0) {
        dsr__load_problem(L, "must be a non-empty list of cases");
        dsr__load_pop(L);
        return;
    }
    f->cases = dsr__xmalloc(sizeof(dsr_case) * (size_t)cJSON_GetArraySize(cases));
    const cJSON *c;
    cJSON_ArrayForEach(c, cases)
    {
        dsr__load_push_index(L, f->ncases);
        load_case(L, &f->cases[f->ncases], c);
        f->cases[f->ncases].index = f->ncases;
        f->ncases++;
        dsr__load_pop(L);
    }
    dsr__load_pop(L);
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
    dsr_loader L = {.reg = reg, .err = err};
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
        dsj_arena_free(f->arena); /* f->root's nodes */
        free(f->text);
        free(f->path);
        free(f->name);
    }
    free(s->files);
    memset(s, 0, sizeof *s);
}
