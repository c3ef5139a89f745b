/* The profile rules (spec/README.md), below the runner and its reports: which cases count
 * for a profile, which a run's options select, whether a library claims a feature, and a
 * profile's verdict over a run's results. run.c, report.c, summary.c, compare_model.c and
 * coverage.c all read them here; nothing here knows how a run is driven or written. */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

bool dsr__claimed(const cJSON *hello, const char *feature)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(hello, "features"))
    {
        if (cJSON_IsString(f) && !strcmp(f->valuestring, feature)) return true;
    }
    return false;
}

/* True when every condition of RULE (step-features.json) holds for step ST. */
static bool rule_applies(const cJSON *rule, const dsr_step *st)
{
    const cJSON *args = st->args, *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(rule, "when"))
    {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, c->string), *ok;
        bool found = false;
        cJSON_ArrayForEach(ok, c)
        {
            if (cJSON_IsString(v) && cJSON_IsString(ok) && !strcmp(v->valuestring, ok->valuestring))
                found = true;
        }
        if (!found) return false;
    }
    const cJSON *with = cJSON_GetObjectItemCaseSensitive(rule, "with");
    const cJSON *without = cJSON_GetObjectItemCaseSensitive(rule, "without");
    const cJSON *handle = cJSON_GetObjectItemCaseSensitive(rule, "handle");
    const cJSON *literal = cJSON_GetObjectItemCaseSensitive(rule, "literal");
    const cJSON *v;
    if (cJSON_IsString(with)) {
        v = cJSON_GetObjectItemCaseSensitive(args, with->valuestring);
        if (!v || cJSON_IsNull(v)) return false;
    }
    if (cJSON_IsString(without)) {
        v = cJSON_GetObjectItemCaseSensitive(args, without->valuestring);
        if (v && !cJSON_IsNull(v)) return false;
    }
    if (cJSON_IsString(handle)) {
        v = cJSON_GetObjectItemCaseSensitive(args, handle->valuestring);
        if (!cJSON_IsString(v) || v->valuestring[0] != '$') return false;
    }
    if (cJSON_IsString(literal)) {
        v = cJSON_GetObjectItemCaseSensitive(args, literal->valuestring);
        if (!cJSON_IsObject(v) || !cJSON_GetObjectItemCaseSensitive(v, "str")) return false;
    }
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rule, "raises")) &&
        st->outcome != DSR_OUTCOME_RAISES)
        return false;
    return true;
}

/* The feature of the function named by V (a string of signatures.json), or NULL. */
static const char *function_feature(const dsr_registry *reg, const cJSON *v)
{
    return cJSON_IsString(v) ? dsr__registry_function_feature(reg, v->valuestring) : NULL;
}

/* Writes into BUF the feature RULE's `pattern` names for step ST ("dlpack-exchange-{peer}"
 * with the argument's value); false when it names none. */
static bool pattern_feature(const cJSON *rule, const dsr_step *st, char *buf, size_t n)
{
    const cJSON *pat = cJSON_GetObjectItemCaseSensitive(rule, "pattern");
    if (!cJSON_IsString(pat)) return false;
    dsr_buf b = {0};
    for (const char *s = pat->valuestring; *s; s++) {
        const char *end = *s == '{' ? strchr(s, '}') : NULL;
        if (!end) {
            dsr__buf_add(&b, s, 1);
            continue;
        }
        char arg[64];
        snprintf(arg, sizeof arg, "%.*s", (int)(end - s - 1), s + 1);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(st->args, arg);
        dsr__buf_puts(&b, cJSON_IsString(v) ? v->valuestring : "");
        s = end;
    }
    snprintf(buf, n, "%s", b.data ? b.data : "");
    dsr__buf_free(&b);
    return true;
}

const char *dsr__step_unclaimed(const dsr_registry *reg, const dsr_step *st, const cJSON *hello,
                                char *buf, size_t n)
{
    const char *ops[2] = {"*", st->op};
    for (int o = 0; o < 2; o++) {
        const cJSON *rule;
        cJSON_ArrayForEach(rule, cJSON_GetObjectItemCaseSensitive(reg->step_rules, ops[o]))
        {
            if (!rule_applies(rule, st)) continue;
            const cJSON *f;
            cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(rule, "features"))
            {
                if (cJSON_IsString(f) && !dsr__claimed(hello, f->valuestring))
                    return snprintf(buf, n, "%s", f->valuestring), buf;
            }
            const cJSON *group = cJSON_GetObjectItemCaseSensitive(rule, "any_of");
            bool any = !cJSON_GetArraySize(group);
            cJSON_ArrayForEach(f, group)
            {
                if (cJSON_IsString(f) && dsr__claimed(hello, f->valuestring)) any = true;
            }
            if (!any && cJSON_IsString(group->child))
                return snprintf(buf, n, "%s", group->child->valuestring), buf;
            const cJSON *fn = cJSON_GetObjectItemCaseSensitive(rule, "function");
            const char *feat =
                cJSON_IsString(fn)
                    ? function_feature(reg,
                                       cJSON_GetObjectItemCaseSensitive(st->args, fn->valuestring))
                    : function_feature(reg,
                                       cJSON_GetObjectItemCaseSensitive(rule, "function_name"));
            if (feat && !dsr__claimed(hello, feat)) return snprintf(buf, n, "%s", feat), buf;
            if (pattern_feature(rule, st, buf, n) && dsr__registry_feature(reg, buf) &&
                !dsr__claimed(hello, buf))
                return buf;
        }
    }
    return NULL;
}

/* The document the array API standard's statements and profiles name. */
#define ARRAY_API_DOCUMENT "array-api"

const char *dsr__declared_version(const dsr_registry *reg, const cJSON *hello)
{
    const cJSON *lib = cJSON_GetObjectItemCaseSensitive(hello, "library");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(lib, "array_api_version");
    if (!cJSON_IsString(v)) return NULL;
    for (int i = 0; i < reg->nprofiles; i++) {
        const dsr_profile *p = &reg->profiles[i];
        if (p->document && !strcmp(p->document, ARRAY_API_DOCUMENT) && p->version &&
            !strcmp(p->version, v->valuestring))
            return p->version;
    }
    return NULL; /* a version no profile knows: nothing is skipped for it */
}

const dsr_statement *dsr__case_beyond_version(const dsr_registry *reg, const dsr_case *c,
                                              const char *version)
{
    if (!version) return NULL;
    for (int i = 0; i < c->nspec; i++) {
        const dsr_statement *s = dsr__registry_statement(reg, c->spec[i]);
        if (!s || !s->document || strcmp(s->document, ARRAY_API_DOCUMENT)) continue;
        bool has = false;
        for (int k = 0; k < s->nversions && !has; k++)
            has = !strcmp(s->versions[k], version);
        if (!has) return s;
    }
    return NULL;
}

bool dsr__case_counts(const dsr_registry *reg, const dsr_case *c, const dsr_profile *p)
{
    for (int i = 0; i < c->nfeatures; i++)
        if (!dsr__profile_has_feature(p, c->features[i], NULL)) return false;
    if (c->nfeatures == 0) return false;
    bool applies = false;
    for (int i = 0; i < c->nspec; i++) {
        const dsr_statement *s = dsr__registry_statement(reg, c->spec[i]);
        if (!s) {
            applies = applies || !reg->have_statements;
            continue;
        }
        if (dsr__statement_applies(s, p))
            /* an informative statement is checked, never counted (decisions, Runner and
             * reports 26) */
            applies = applies || strcmp(s->level, "informative") != 0;
        else if (p->document && s->document && !strcmp(s->document, p->document))
            return false; /* cites a statement of another version of the document */
    }
    return applies;
}

const char *const dsr__basis_names[] = {"must", "should", "decision"};

/* S's level at P's version: its "levels" entry for that version, else its level. */
static const char *level_at(const dsr_statement *s, const dsr_profile *p)
{
    const cJSON *l = p && p->version && s->levels
                         ? cJSON_GetObjectItemCaseSensitive(s->levels, p->version)
                         : NULL;
    return cJSON_IsString(l) ? l->valuestring : s->level;
}

/* A case checks everything it cites at once, so a failure can come from any of them: it
 * rests on the weakest. An informative statement is checked, never counted; an
 * implementation-defined one is checked through the outcomes the text allows (either). */
dsr_basis dsr__case_basis(const dsr_registry *reg, const dsr_case *c, const dsr_profile *p)
{
    if (c->decision) return DSR_BASIS_DECISION;
    dsr_basis b = DSR_BASIS_MUST;
    for (int i = 0; i < c->nspec; i++) {
        const dsr_statement *s = dsr__registry_statement(reg, c->spec[i]);
        if (!s || (p && !dsr__statement_applies(s, p))) continue;
        const char *level = level_at(s, p);
        if (!strcmp(level, "should") || !strcmp(level, "may")) b = DSR_BASIS_SHOULD;
    }
    return b;
}

bool dsr__case_selected(const dsr_options *o, const dsr_registry *reg, const dsr_case *c)
{
    if (o->ncase_globs) {
        bool any = false;
        for (int i = 0; i < o->ncase_globs; i++)
            any = any || fnmatch(o->case_globs[i], c->id, 0) == 0;
        if (!any) return false;
    }
    if (o->nfeatures) {
        bool any = false;
        for (int i = 0; i < o->nfeatures; i++)
            for (int k = 0; k < c->nfeatures; k++)
                any = any || !strcmp(o->features[i], c->features[k]);
        if (!any) return false;
    }
    if (o->profile) {
        const dsr_profile *p = dsr__registry_profile(reg, o->profile);
        if (!p || !dsr__case_counts(reg, c, p)) return false;
    }
    /* Exclusion is applied last. */
    for (int i = 0; i < o->nexclude_features; i++)
        for (int k = 0; k < c->nfeatures; k++)
            if (!strcmp(o->exclude_features[i], c->features[k])) return false;
    return true;
}

/* C's result, or NULL when it has none. *AT is where the search starts and, after a find, the
 * place after it: results come in the suite's order, so a walk over the suite finds each at
 * once (a search from the start for every case was most of a report's footer: 4,544 cases
 * and 11 profiles, 167 million instructions). */
static const dsr_result *find_result(const dsr_result *results, int n, const dsr_case *c, int *at)
{
    for (int k = 0; k < n; k++) {
        int i = (*at + k) % n;
        if (results[i].c == c) {
            *at = i + 1;
            return &results[i];
        }
    }
    return NULL;
}

/* Adds what RES lacks to V's list, once each. */
static void add_lacks(dsr_verdict *v, const dsr_result *res, int cap)
{
    if (!res || res->raw_status != DSR_LACKS || !res->lacks) return;
    for (int i = 0; i < v->nlacks; i++)
        if (!strcmp(v->lacks[i], res->lacks)) return;
    if (v->nlacks < cap) v->lacks[v->nlacks++] = res->lacks;
}

/* A failure counts against the verdict only where the case rests on a must (BASIS); one
 * resting on a should or on a devspec decision is counted apart (decisions, Runner and
 * reports 35). A lack is a lack whatever the basis: the library has no such function. */
static void tally(dsr_tally *t, const dsr_result *res, dsr_basis basis)
{
    t->cases++;
    if (!res)
        t->not_run++;
    else if (res->status == DSR_PASS || res->status == DSR_XPASS)
        t->passed++;
    else if (res->status == DSR_SKIP)
        t->skipped++;
    else if (basis == DSR_BASIS_DECISION && res->raw_status != DSR_LACKS)
        t->differs++;
    else if (basis == DSR_BASIS_SHOULD && res->raw_status != DSR_LACKS)
        t->should_failed++;
    else
        t->failed++;
}

const char *const dsr__verdict_names[] = {"conforms", "does-not-conform", "undetermined"};

/* A library conforms when it claims every required feature and every case that counts for
 * the profile and claims only required features passes. Cases of optional features are
 * counted beside the verdict. */
void dsr__profile_verdict(const dsr_registry *reg, const dsr_suite *suite, const cJSON *hello,
                          const dsr_result *results, int nresults, const dsr_profile *p,
                          bool complete, dsr_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->missing = dsr__xmalloc(sizeof *v->missing * (size_t)(p->nrequired + 1));
    for (int i = 0; i < p->nrequired; i++)
        if (!hello || !dsr__claimed(hello, p->required[i]))
            v->missing[v->nmissing++] = p->required[i];
    v->lacks = dsr__xmalloc(sizeof *v->lacks * (size_t)(nresults + 1));
    int at = 0;
    for (int f = 0; f < suite->nfiles; f++) {
        for (int k = 0; k < suite->files[f].ncases; k++) {
            const dsr_case *c = &suite->files[f].cases[k];
            if (!dsr__case_counts(reg, c, p)) continue;
            bool optional = false;
            for (int i = 0; i < c->nfeatures; i++) {
                bool opt = false;
                dsr__profile_has_feature(p, c->features[i], &opt);
                optional = optional || opt;
            }
            const dsr_result *res = find_result(results, nresults, c, &at);
            tally(optional ? &v->optional : &v->required, res, dsr__case_basis(reg, c, p));
            if (!optional) add_lacks(v, res, nresults);
        }
    }
    const dsr_tally *t = &v->required;
    if (v->nmissing > 0 || t->failed > 0)
        v->verdict = DSR_DOES_NOT_CONFORM;
    else if (t->skipped > 0 || t->not_run > 0 || t->cases == 0 || !complete)
        v->verdict = DSR_UNDETERMINED;
    else
        v->verdict = DSR_CONFORMS;
}

void dsr__verdict_free(dsr_verdict *v)
{
    free((void *)v->missing);
    free((void *)v->lacks);
    memset(v, 0, sizeof *v);
}
