/* devspec verdict: one library's verdict per profile from the reports of several runs that
 * together serve it, under the runner's own profile rules (profile.c).
 *
 * A library whose adapters split its features between runs (OneFlow: the device features in
 * one process, `oneflow`; the global arrays on 4 ranks, `oneflow-4`) has no single run whose
 * report can judge a profile that needs both. The merged run claims every feature any of the
 * reports claims; a case's result is the one of the report that ran it (not skipped), and
 * where several ran it, the worst of them, so that no report can hide another's failure. A
 * profile is then judged as a run's footer judges it. The reports must be of one library
 * (header.library.name) and every one complete for a verdict other than undetermined. */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct verdict_args {
    dsr_strlist reports, profiles, cases;
    const char *spec;
    bool json;
} verdict_args;

#define ARG(field) offsetof(verdict_args, field)
#define OPT(name, kind, field, usage, help)                                                        \
    {                                                                                              \
        name, DSR_OPT_##kind, ARG(field), usage, help, NULL, 0, 0                                  \
    }

static const dsr_option VERDICT_OPTIONS[] = {
    OPT("--profile", LIST, profiles, "--profile P",
        "only profile P (repeatable; default: every profile)"),
    OPT("--json", FLAG_ON, json, "--json", "the verdicts as JSON on stdout"),
    OPT("--cases", LIST, cases, "--cases FILE|DIR", "the case files (default: the suite's)"),
    OPT("--spec", STRING, spec, "--spec DIR", "the spec directory (default: the suite's spec/)"),
    {"--help", DSR_OPT_HELP, 0, "--help", "this help", NULL, 0, 0},
    {"-h", DSR_OPT_HELP, 0, NULL, NULL, NULL, 0, 0},
};

#undef OPT
#undef ARG

static const dsr_command VERDICT_COMMAND = {
    "verdict",
    VERDICT_OPTIONS,
    sizeof VERDICT_OPTIONS / sizeof VERDICT_OPTIONS[0],
    "REPORT.json",
    offsetof(verdict_args, reports),
    0,
    "usage: devspec verdict REPORT.json... [--profile P]... [--json]\n"
    "\n"
    "One library's verdict per profile from the reports of the runs that together serve it\n"
    "(oneflow and oneflow-4: the device features in one process, the global arrays on 4\n"
    "ranks): the features any report claims, each case's result from the report that ran\n"
    "it, the worst where several did, judged by the runner's profile rules.\n",
    "Exit status: 0; 2 for a usage error or a report that cannot be read.\n",
};

/* How bad a status is when two reports ran the same case: a failure of any kind beats a
 * known failure, which beats a pass. */
static int badness(dsr_status s)
{
    switch (s) {
    case DSR_SKIP:
        return 0;
    case DSR_PASS:
    case DSR_XPASS:
        return 1;
    case DSR_XFAIL:
        return 2;
    case DSR_LACKS:
        return 3;
    default:
        return 4;
    }
}

static bool status_of(const cJSON *v, dsr_status *out)
{
    if (!cJSON_IsString(v)) return false;
    for (int s = 0; s < DSR_STATUS_COUNT; s++)
        if (!strcmp(v->valuestring, dsr__status_name((dsr_status)s))) {
            *out = (dsr_status)s;
            return true;
        }
    return false;
}

typedef struct merged {
    cJSON *docs[64];
    int ndocs;
    cJSON *hello; /* {"features": every feature any report claims} */
    bool complete;
    char library[256];
} merged;

/* Reads the reports into M; 0, or 2 with the reason on stderr. */
static int read_reports(merged *m, const dsr_strlist *paths)
{
    m->hello = cJSON_CreateObject();
    cJSON *features = cJSON_AddArrayToObject(m->hello, "features");
    m->complete = true;
    for (int i = 0; i < paths->n; i++) {
        if (m->ndocs == (int)(sizeof m->docs / sizeof *m->docs)) {
            fprintf(stderr, "devspec verdict: at most %zu reports\n",
                    sizeof m->docs / sizeof *m->docs);
            return 2;
        }
        size_t len;
        char *text = dsr__read_file(paths->items[i], &len);
        cJSON *doc = text ? dsj_parse(text, len, NULL) : NULL;
        free(text);
        const cJSON *header = cJSON_GetObjectItemCaseSensitive(doc, "header");
        const cJSON *lib = cJSON_GetObjectItemCaseSensitive(header, "library");
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(lib, "name");
        if (!cJSON_IsString(name) ||
            !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "cases"))) {
            fprintf(stderr, "devspec verdict: %s: not a devspec report (%s)\n", paths->items[i],
                    doc ? "no header.library.name or cases" : "cannot be read as JSON");
            cJSON_Delete(doc);
            return 2;
        }
        if (!m->library[0])
            snprintf(m->library, sizeof m->library, "%s", name->valuestring);
        else if (strcmp(m->library, name->valuestring)) {
            fprintf(stderr,
                    "devspec verdict: %s is a report of %s, the others of %s: one library's "
                    "reports only\n",
                    paths->items[i], name->valuestring, m->library);
            cJSON_Delete(doc);
            return 2;
        }
        m->docs[m->ndocs++] = doc;
        const cJSON *footer = cJSON_GetObjectItemCaseSensitive(doc, "footer");
        m->complete =
            m->complete && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(footer, "complete"));
        const cJSON *f;
        cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(header, "features_claimed"))
        {
            if (cJSON_IsString(f) && !dsr__claimed(m->hello, f->valuestring))
                cJSON_AddItemToArray(features, cJSON_CreateString(f->valuestring));
        }
    }
    return 0;
}

/* Merges report case IT into RES, the worse of the two; false when IT's status cannot be
 * read (the case is left out). */
static bool merge_case(dsr_result *res, const cJSON *it)
{
    dsr_status st, raw;
    if (!status_of(cJSON_GetObjectItemCaseSensitive(it, "status"), &st)) return false;
    if (!status_of(cJSON_GetObjectItemCaseSensitive(it, "observed_status"), &raw)) raw = st;
    if (badness(st) > badness(res->status) ||
        (badness(st) == badness(res->status) && badness(raw) > badness(res->raw_status))) {
        res->status = st;
        res->raw_status = raw;
        const cJSON *lacks = cJSON_GetObjectItemCaseSensitive(it, "lacks");
        res->lacks = cJSON_IsString(lacks) ? lacks->valuestring : NULL;
    }
    return true;
}

/* Every case of SUITE that some report has, with its merged result, into RESULTS (room for
 * every case); returns how many. One pass over each report, the suite's IDs in a hash map. */
static int merge_reports(const merged *m, const dsr_suite *suite, dsr_result *results)
{
    dsr_strmap ids = {0};
    int total = 0;
    for (int f = 0; f < suite->nfiles; f++)
        total += suite->files[f].ncases;
    bool *found = dsr__xmalloc(sizeof *found * (size_t)(total + 1));
    total = 0;
    for (int f = 0; f < suite->nfiles; f++)
        for (int k = 0; k < suite->files[f].ncases; k++) {
            dsr_result *res = &results[total];
            memset(res, 0, sizeof *res);
            res->c = &suite->files[f].cases[k];
            res->status = res->raw_status = DSR_SKIP;
            found[total] = false;
            dsr__strmap_put(&ids, res->c->id, total++);
        }
    for (int d = 0; d < m->ndocs; d++) {
        const cJSON *it;
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(m->docs[d], "cases"))
        {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, "id");
            /* An ID the suite does not have is stored past its cases, and left out. */
            int at = cJSON_IsString(id) ? dsr__strmap_put(&ids, id->valuestring, total) : -1;
            if (at >= 0 && at < total && merge_case(&results[at], it)) found[at] = true;
        }
    }
    dsr__strmap_free(&ids, false);
    int n = 0;
    for (int i = 0; i < total; i++)
        if (found[i]) results[n++] = results[i];
    free(found);
    return n;
}

static void print_verdict(cJSON *out, const dsr_profile *p, const dsr_verdict *v, bool json)
{
    const dsr_tally *t = &v->required;
    if (json) {
        cJSON_AddItemToObject(out, p->name, dsr__verdict_json(v));
        return;
    }
    printf("  %-28s %s (%d of %d cases passed", p->name, dsr__verdict_names[v->verdict], t->passed,
           t->cases);
    if (t->failed) printf(", %d failing", t->failed);
    if (t->skipped + t->not_run) printf(", %d skipped", t->skipped + t->not_run);
    if (t->should_failed) printf(", short of a should: %d", t->should_failed);
    if (t->differs) printf(", differs from the reference reading: %d", t->differs);
    printf(")");
    for (int i = 0; i < v->nmissing; i++)
        printf("%s%s", i ? ", " : "; lacks features ", v->missing[i]);
    for (int i = 0; i < v->nlacks; i++)
        printf("%s%s", i ? ", " : "; lacks ", v->lacks[i]);
    printf("\n");
}

static bool profile_wanted(const verdict_args *a, const dsr_profile *p)
{
    if (!a->profiles.n) return true;
    for (int i = 0; i < a->profiles.n; i++)
        if (!strcmp(a->profiles.items[i], p->name)) return true;
    return false;
}

/* The verdicts of every wanted profile over the merged results. */
static int judge(const verdict_args *a, const merged *m, const dsr_registry *reg,
                 const dsr_suite *suite)
{
    int total = 0;
    for (int f = 0; f < suite->nfiles; f++)
        total += suite->files[f].ncases;
    dsr_result *results = dsr__xmalloc(sizeof *results * (size_t)(total + 1));
    int n = merge_reports(m, suite, results);
    cJSON *out = a->json ? cJSON_CreateObject() : NULL;
    if (out) {
        cJSON_AddStringToObject(out, "library", m->library);
        cJSON_AddNumberToObject(out, "reports", m->ndocs);
    } else
        printf("%s, %d reports merged (%d cases):\n", m->library, m->ndocs, n);
    cJSON *profiles = out ? cJSON_AddObjectToObject(out, "profiles") : NULL;
    for (int i = 0; i < reg->nprofiles; i++) {
        const dsr_profile *p = &reg->profiles[i];
        if (!profile_wanted(a, p)) continue;
        dsr_verdict v;
        dsr__profile_verdict(reg, suite, m->hello, results, n, p, m->complete, &v);
        print_verdict(profiles, p, &v, a->json);
        dsr__verdict_free(&v);
    }
    if (out) {
        char *text = cJSON_Print(out);
        printf("%s\n", text ? text : "{}");
        cJSON_free(text);
        cJSON_Delete(out);
    }
    free(results);
    return 0;
}

int dsr__verdict_main(int argc, char **argv, const char *source)
{
    verdict_args a;
    memset(&a, 0, sizeof a);
    int rc = dsr__options_parse(&VERDICT_COMMAND, argc, argv, 1, &a);
    if (rc == DSR_OPT_HELP_SHOWN) return 0;
    if (rc == 0 && !a.reports.n) {
        fprintf(stderr, "devspec: verdict: give at least one REPORT.json\n");
        rc = 2;
    }
    merged m;
    memset(&m, 0, sizeof m);
    if (rc == 0) rc = read_reports(&m, &a.reports);
    dsr_registry reg;
    dsr_suite suite;
    memset(&reg, 0, sizeof reg);
    memset(&suite, 0, sizeof suite);
    dsr_buf spec = {0}, cases = {0};
    dsr__buf_printf(&spec, "%s/spec", source);
    dsr__buf_printf(&cases, "%s/conformance/cases", source);
    if (rc == 0 && dsr__registry_load(&reg, a.spec ? a.spec : spec.data)) rc = 2;
    if (rc == 0) {
        char *defaults[] = {cases.data};
        if (dsr__suite_load(&suite, &reg, a.cases.n ? a.cases.items : defaults,
                            a.cases.n ? a.cases.n : 1, stderr))
            rc = 2;
    }
    for (int i = 0; rc == 0 && i < a.profiles.n; i++)
        if (!dsr__registry_profile(&reg, a.profiles.items[i])) {
            fprintf(stderr, "devspec: verdict: unknown profile '%s'\n", a.profiles.items[i]);
            rc = 2;
        }
    if (rc == 0) rc = judge(&a, &m, &reg, &suite);
    for (int i = 0; i < m.ndocs; i++)
        cJSON_Delete(m.docs[i]);
    cJSON_Delete(m.hello);
    if (reg.spec_dir) dsr__registry_free(&reg);
    dsr__suite_free(&suite);
    dsr__buf_free(&spec);
    dsr__buf_free(&cases);
    dsr__strlist_free(&a.reports);
    dsr__strlist_free(&a.profiles);
    dsr__strlist_free(&a.cases);
    return rc;
}
