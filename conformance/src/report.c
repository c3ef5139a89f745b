/* The JSON report (spec/schema/report.json) and its JSON Lines journal: the header record
 * (suite, runner, adapter, library, devices, configuration, environment), one record per
 * case, the footer (counts, profile verdicts, the gate), and the consolidated document
 * written atomically at the end, with the JUnit XML beside it. */
#define _DEFAULT_SOURCE /* flock */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"
#include "stamp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* The suite as the build stamped it (stamp.h.in): the runner never asks git at run time. */
static cJSON *suite_json(void)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "name", "devspec");
    cJSON_AddStringToObject(s, "version", DSR_SUITE_VERSION);
    if (DSR_SUITE_COMMIT[0])
        cJSON_AddStringToObject(s, "commit", DSR_SUITE_COMMIT);
    else
        cJSON_AddNullToObject(s, "commit");
    if (DSR_SUITE_MODIFIED >= 0)
        cJSON_AddBoolToObject(s, "modified", DSR_SUITE_MODIFIED == 1);
    else
        cJSON_AddNullToObject(s, "modified");
    return s;
}

static cJSON *copy_or_null(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return v ? cJSON_Duplicate(v, true) : cJSON_CreateNull();
}

/* The header's "config": what the run was asked. */
static cJSON *config_json(const dsr_run_state *r)
{
    const dsr_options *o = r->o;
    cJSON *cfg = cJSON_CreateObject();
    cJSON_AddItemToObject(cfg, "cases",
                          dsr__json_strings((const char *const *)o->cases, o->ncases));
    cJSON_AddItemToObject(cfg, "case_globs",
                          dsr__json_strings((const char *const *)o->case_globs, o->ncase_globs));
    cJSON_AddItemToObject(cfg, "features",
                          dsr__json_strings((const char *const *)o->features, o->nfeatures));
    cJSON_AddItemToObject(
        cfg, "exclude_features",
        dsr__json_strings((const char *const *)o->exclude_features, o->nexclude_features));
    if (o->profile)
        cJSON_AddStringToObject(cfg, "profile", o->profile);
    else
        cJSON_AddNullToObject(cfg, "profile");
    cJSON_AddNumberToObject(cfg, "timeout", o->timeout);
    cJSON_AddNumberToObject(cfg, "start_timeout", o->start_timeout);
    cJSON_AddNumberToObject(cfg, "max_restarts", o->max_restarts);
    cJSON_AddNumberToObject(cfg, "max_reruns", o->max_reruns);
    cJSON_AddBoolToObject(cfg, "strict", o->strict);
    cJSON *exj = cJSON_AddObjectToObject(cfg, "expectations");
    if (r->ex && r->ex->path) {
        cJSON_AddStringToObject(exj, "path", r->ex->path);
        cJSON_AddStringToObject(exj, "sha256", r->ex->sha256);
        cJSON_AddNumberToObject(exj, "entries", r->ex->count);
    } else {
        cJSON_AddNullToObject(exj, "path");
        cJSON_AddNullToObject(exj, "sha256");
        cJSON_AddNumberToObject(exj, "entries", 0);
    }
    return cfg;
}

cJSON *dsr__report_header(const dsr_run_state *r, const char *adapter_error)
{
    const dsr_options *o = r->o;
    cJSON *h = cJSON_CreateObject();
    cJSON_AddStringToObject(h, "type", "header");
    cJSON_AddNumberToObject(h, "report_version", DSR_REPORT_VERSION);
    cJSON_AddItemToObject(h, "suite", suite_json());
    cJSON *rj = cJSON_AddObjectToObject(h, "runner");
    cJSON_AddStringToObject(rj, "name", "devspec");
    cJSON_AddStringToObject(rj, "version", DEVSPEC_VERSION);
    cJSON_AddNumberToObject(rj, "protocol", DSR_PROTOCOL_VERSION);
    char when[32];
    dsr__utc_iso(when);
    cJSON_AddStringToObject(h, "started", when);
    cJSON *ad = cJSON_AddObjectToObject(h, "adapter");
    cJSON_AddStringToObject(ad, "label", o->adapter_label ? o->adapter_label : "adapter");
    cJSON_AddStringToObject(ad, "given", o->adapter_spec ? o->adapter_spec : "");
    cJSON_AddStringToObject(ad, "transport", o->transport);
    if (o->adapters_file) {
        cJSON_AddStringToObject(ad, "adapters_file", o->adapters_file);
        cJSON_AddBoolToObject(ad, "replaces_suite_entry", o->adapter_replaces_suite_entry);
    }
    if (adapter_error) cJSON_AddStringToObject(ad, "error", adapter_error);
    const cJSON *hl = r->hello;
    const cJSON *lib = cJSON_GetObjectItemCaseSensitive(hl, "library");
    const cJSON *adp = cJSON_GetObjectItemCaseSensitive(hl, "adapter");
    cJSON_AddItemToObject(ad, "name", copy_or_null(adp, "name"));
    cJSON_AddItemToObject(ad, "version", copy_or_null(adp, "version"));
    const cJSON *py = cJSON_GetObjectItemCaseSensitive(adp, "python");
    if (cJSON_IsString(py)) cJSON_AddStringToObject(ad, "python", py->valuestring);
    cJSON *l = cJSON_AddObjectToObject(h, "library");
    cJSON_AddItemToObject(l, "name", copy_or_null(lib, "name"));
    cJSON_AddItemToObject(l, "version", copy_or_null(lib, "version"));
    cJSON *devs = cJSON_AddArrayToObject(h, "devices");
    const cJSON *strs = cJSON_GetObjectItemCaseSensitive(hl, "device_strs");
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(hl, "devices");
    for (int i = 0; i < r->ndevices; i++) {
        cJSON *d = cJSON_CreateObject();
        char name[4] = {'D', (char)('0' + i), 0};
        cJSON_AddStringToObject(d, "binding", name);
        cJSON_AddStringToObject(d, "handle", r->devices[i]);
        int k = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, all)
        {
            if (cJSON_IsString(it) && !strcmp(it->valuestring, r->devices[i])) break;
            k++;
        }
        const cJSON *s = cJSON_GetArrayItem(strs, k);
        if (cJSON_IsString(s)) cJSON_AddStringToObject(d, "str", s->valuestring);
        cJSON_AddItemToArray(devs, d);
    }
    cJSON *feats = cJSON_AddArrayToObject(h, "features_claimed");
    cJSON *unknown = cJSON_AddArrayToObject(h, "features_unknown");
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(hl, "features"))
    {
        if (!cJSON_IsString(f)) continue;
        cJSON_AddItemToArray(dsr__registry_feature(r->reg, f->valuestring) ? feats : unknown,
                             cJSON_CreateString(f->valuestring));
    }
    /* What an adapter that finds out about its library at start-up says of it (hello's
     * library.wrapper, notes, claims, excluded_devices; spec/protocol.md, "Session"), copied
     * as it came, for the person reading the report. */
    const cJSON *wrapper = cJSON_GetObjectItemCaseSensitive(lib, "wrapper");
    if (cJSON_IsObject(wrapper))
        cJSON_AddItemToObject(l, "wrapper", cJSON_Duplicate(wrapper, true));
    const cJSON *declared = cJSON_GetObjectItemCaseSensitive(lib, "array_api_version");
    if (cJSON_IsString(declared))
        cJSON_AddStringToObject(l, "array_api_version", declared->valuestring);
    static const char *const found_keys[] = {"notes", "claims", "excluded_devices"};
    cJSON *found = NULL;
    for (size_t i = 0; i < sizeof found_keys / sizeof *found_keys; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(hl, found_keys[i]);
        if (!v) continue;
        if (!found) found = cJSON_AddObjectToObject(h, "discovery");
        cJSON_AddItemToObject(found, found_keys[i], cJSON_Duplicate(v, true));
    }
    cJSON_AddItemToObject(h, "config", config_json(r));
    cJSON *env = cJSON_AddObjectToObject(h, "environment");
    struct utsname u;
    if (uname(&u) == 0) {
        cJSON_AddStringToObject(env, "os", u.sysname);
        cJSON_AddStringToObject(env, "release", u.release);
        cJSON_AddStringToObject(env, "machine", u.machine);
        cJSON_AddStringToObject(env, "hostname", u.nodename);
    }
    cJSON_AddStringToObject(env, "compiler", __VERSION__);
    return h;
}

/* The record's parts are borrowed from the result (reference nodes, constant keys): building
 * it is a few nodes, not a copy of its steps and values, and it is printed at least once per
 * case (the journal). */
static cJSON *borrow(const cJSON *item)
{
    cJSON *ref = cJSON_CreateNull();
    *ref = *item;
    ref->next = ref->prev = NULL;
    ref->string = NULL;
    ref->type = (item->type & ~cJSON_StringIsConst) | cJSON_IsReference;
    return ref;
}

static void add(cJSON *obj, const char *key, cJSON *item)
{
    cJSON_AddItemToObjectCS(obj, key, item);
}

static void add_str(cJSON *obj, const char *key, const char *s)
{
    add(obj, key, cJSON_CreateStringReference(s));
}

static cJSON *borrowed_strings(const char *const *l, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateStringReference(l[i]));
    return a;
}

/* The crash of RES's first run, which an intermittent-crash entry covered and the runner ran
 * again (report.json, case.first_run). */
static cJSON *first_run_record(const dsr_result *res)
{
    const dsr_first_run *f = res->first;
    cJSON *j = cJSON_CreateObject();
    add_str(j, "status", dsr__status_name(DSR_CRASH));
    add_str(j, "reason", f->reason ? f->reason : "");
    add_str(j, "death", f->death ? f->death : "");
    if (f->signal > 0) add(j, "signal", cJSON_CreateNumber(f->signal));
    if (f->step >= 0) {
        add(j, "step", cJSON_CreateNumber(f->step));
        add_str(j, "op", res->c->steps[f->step].op);
    } else {
        add_str(j, "op", "reset");
    }
    if (f->after) add_str(j, "after", f->after);
    if (f->stderr_tail) add_str(j, "stderr", f->stderr_tail);
    cJSON *e = cJSON_CreateObject();
    add(j, "expectation", e);
    add_str(e, "status", dsr__expectation_status_name(f->entry));
    add_str(e, "reason", f->entry->reason);
    add_str(e, "pattern", f->entry->pattern);
    add(e, "line", cJSON_CreateNumber(f->entry->line));
    add(j, "duration", cJSON_CreateNumber(f->duration));
    return j;
}

/* The record of RES; TYPED: with "type": "case" first, as the journal has it. */
static cJSON *case_record(const dsr_result *res, bool typed)
{
    const dsr_case *c = res->c;
    cJSON *j = cJSON_CreateObject();
    if (typed) add_str(j, "type", "case");
    add_str(j, "id", c->id);
    add_str(j, "file", c->file->name);
    add(j, "features", borrowed_strings(c->features, c->nfeatures));
    add(j, "spec", borrowed_strings(c->spec, c->nspec));
    add_str(j, "status", dsr__status_name(res->status));
    add_str(j, "observed_status", dsr__status_name(res->raw_status));
    add_str(j, "rests_on", dsr__basis_names[res->basis]);
    if (c->decision) add_str(j, "decision", c->decision);
    if (res->expectation) {
        cJSON *e = cJSON_CreateObject();
        add(j, "expectation", e);
        add_str(e, "status", dsr__status_name(res->expectation->status));
        add_str(e, "reason", res->expectation->reason);
        add_str(e, "pattern", res->expectation->pattern);
        add(e, "line", cJSON_CreateNumber(res->expectation->line));
    }
    if (res->reason) add_str(j, "reason", res->reason);
    if (res->skip_source) add_str(j, "skip_source", res->skip_source);
    if (res->step >= 0) {
        add(j, "step", cJSON_CreateNumber(res->step));
        add_str(j, "op", c->steps[res->step].op);
    }
    if (res->call) add_str(j, "call", res->call);
    if (res->devices) add(j, "devices", borrow(res->devices));
    if (res->expected) add(j, "expected", borrow(res->expected));
    if (res->observed) add(j, "observed", borrow(res->observed));
    if (res->stderr_tail) add_str(j, "stderr", res->stderr_tail);
    if (res->lacks) add(j, "lacks", borrowed_strings((const char *const[]){res->lacks}, 1));
    if (res->steps) add(j, "steps", borrow(res->steps));
    if (res->stopped_at >= 0) {
        add(j, "stopped_at", cJSON_CreateNumber(res->stopped_at));
        add_str(j, "stop_reason", res->stop_reason ? res->stop_reason : "");
    }
    if (res->first) add(j, "first_run", first_run_record(res));
    add(j, "duration", cJSON_CreateNumber(res->duration));
    return j;
}

cJSON *dsr__report_case(const dsr_result *res)
{
    return case_record(res, true);
}

/* A map of counts per status by key (a feature, a statement), in the order the keys come:
 * the JSON object, and where each key's counts are (found by hash, not by a walk of the
 * object for every case: about a thousand statements). */
typedef struct counts_map {
    cJSON *json;
    dsr_strmap index; /* key (borrowed from the suite) -> place in COUNTS */
    cJSON *(*counts)[DSR_STATUS_COUNT];
    int n, cap;
} counts_map;

static void counts_add(counts_map *m, const char *key, dsr_status st)
{
    int at = dsr__strmap_get(&m->index, key);
    if (at < 0) {
        if (m->n == m->cap) {
            m->cap = m->cap ? 2 * m->cap : 64;
            m->counts = dsr__xrealloc(m->counts, sizeof *m->counts * (size_t)m->cap);
        }
        at = m->n++;
        dsr__strmap_put(&m->index, key, at);
        cJSON *c = cJSON_AddObjectToObject(m->json, key);
        for (int i = 0; i < DSR_STATUS_COUNT; i++)
            m->counts[at][i] = cJSON_AddNumberToObject(c, dsr__status_name((dsr_status)i), 0);
    }
    cJSON *n = m->counts[at][st];
    dsj_set_number(n, n->valuedouble + 1);
}

/* The footer's counts per status of each feature and each statement the results cite, into
 * FEATURES and STATEMENTS. */
static void count_keys(const dsr_run_state *r, cJSON *features, cJSON *statements)
{
    counts_map by_feature = {.json = features}, by_statement = {.json = statements};
    for (int i = 0; i < r->nresults; i++) {
        const dsr_result *res = &r->results[i];
        for (int k = 0; k < res->c->nfeatures; k++)
            counts_add(&by_feature, res->c->features[k], res->status);
        for (int k = 0; k < res->c->nspec; k++)
            counts_add(&by_statement, res->c->spec[k], res->status);
    }
    dsr__strmap_free(&by_feature.index, false);
    free(by_feature.counts);
    dsr__strmap_free(&by_statement.index, false);
    free(by_statement.counts);
}

static void tally_json(cJSON *j, const dsr_tally *t)
{
    cJSON_AddNumberToObject(j, "cases", t->cases);
    cJSON_AddNumberToObject(j, "passed", t->passed);
    cJSON_AddNumberToObject(j, "failed", t->failed);
    cJSON_AddNumberToObject(j, "skipped", t->skipped);
    cJSON_AddNumberToObject(j, "not_run", t->not_run);
    cJSON_AddNumberToObject(j, "should_failed", t->should_failed);
    cJSON_AddNumberToObject(j, "differs_from_reading", t->differs);
}

cJSON *dsr__verdict_json(const dsr_verdict *v)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddItemToObject(j, "missing_features", dsr__json_strings(v->missing, v->nmissing));
    cJSON_AddItemToObject(j, "lacks", dsr__json_strings(v->lacks, v->nlacks));
    tally_json(j, &v->required);
    cJSON_AddStringToObject(j, "verdict", dsr__verdict_names[v->verdict]);
    tally_json(cJSON_AddObjectToObject(j, "optional"), &v->optional);
    return j;
}

/* A profile's verdict as profile.c computes it, written down. */
static cJSON *profile_json(const dsr_run_state *r, const dsr_profile *p, bool complete)
{
    dsr_verdict v;
    dsr__profile_verdict(r->reg, r->suite, r->hello, r->results, r->nresults, p, complete, &v);
    cJSON *j = dsr__verdict_json(&v);
    dsr__verdict_free(&v);
    return j;
}

/* The ids of the cases that crashed where an intermittent-crash entry covers them and were
 * run again (their results are the second runs'), in suite order. */
static cJSON *rerun_ids(const dsr_run_state *r)
{
    cJSON *ids = cJSON_CreateArray();
    for (int i = 0; i < r->nresults; i++)
        if (r->results[i].first) cJSON_AddItemToArray(ids, cJSON_CreateString(r->results[i].c->id));
    return ids;
}

cJSON *dsr__report_footer(const dsr_run_state *r, bool complete, double elapsed, int *gate)
{
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "type", "footer");
    char when[32];
    dsr__utc_iso(when);
    cJSON_AddStringToObject(f, "finished", when);
    cJSON_AddNumberToObject(f, "elapsed", elapsed);
    /* Loading and validating the suite, before the first case: not part of "elapsed". */
    if (r->suite) cJSON_AddNumberToObject(f, "load_elapsed", r->suite->load_seconds);
    cJSON_AddBoolToObject(f, "complete", complete);
    if (!complete) cJSON_AddStringToObject(f, "incomplete_reason", r->why_incomplete);
    cJSON_AddBoolToObject(f, "interrupted", r->interrupted);
    cJSON_AddNumberToObject(f, "restarts", r->restarts);
    int counts[DSR_STATUS_COUNT] = {0};
    int n_unexpected = 0;
    cJSON *features = cJSON_CreateObject();
    cJSON *statements = cJSON_CreateObject();
    count_keys(r, features, statements);
    cJSON *unexp = cJSON_CreateArray();
    cJSON *xpass = cJSON_CreateArray();
    int expectation_skips = 0;
    for (int i = 0; i < r->nresults; i++) {
        const dsr_result *res = &r->results[i];
        counts[res->status]++;
        expectation_skips += res->skip_source && !strcmp(res->skip_source, "expectations");
        if (dsr__status_unexpected(res->status)) {
            n_unexpected++;
            cJSON_AddItemToArray(unexp, cJSON_CreateString(res->c->id));
        }
        if (res->status == DSR_XPASS) cJSON_AddItemToArray(xpass, cJSON_CreateString(res->c->id));
    }
    cJSON *cj = cJSON_AddObjectToObject(f, "counts");
    for (int i = 0; i < DSR_STATUS_COUNT; i++)
        cJSON_AddNumberToObject(cj, dsr__status_name((dsr_status)i), counts[i]);
    cJSON_AddNumberToObject(f, "total", r->nresults);
    int filtered = r->suite->ncases - r->nresults;
    cJSON_AddNumberToObject(f, "not_run", filtered);
    cJSON_AddItemToObject(f, "unexpected", unexp);
    cJSON_AddItemToObject(f, "xpass", xpass);
    cJSON *rerun = rerun_ids(r);
    cJSON_AddNumberToObject(f, "reruns", cJSON_GetArraySize(rerun));
    cJSON_AddItemToObject(f, "rerun", rerun);
    /* An entry that matches no case is stale; one whose every case an earlier entry took
     * first is shadowed by it (a duplicate, or a glob after a wider one). */
    cJSON *stale = cJSON_AddArrayToObject(f, "stale_expectations");
    cJSON *shadowed = cJSON_AddArrayToObject(f, "shadowed_expectations");
    int nstale = 0, nshadowed = 0;
    for (int i = 0; r->ex && i < r->ex->count; i++) {
        const dsr_expectation *x = &r->ex->items[i];
        if (x->matches) continue;
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "pattern", x->pattern);
        cJSON_AddStringToObject(s, "status", dsr__expectation_status_name(x));
        cJSON_AddNumberToObject(s, "line", x->line);
        if (x->shadowed_by) {
            cJSON_AddNumberToObject(s, "shadowed_by", x->shadowed_by);
            cJSON_AddItemToArray(shadowed, s);
            nshadowed++;
        } else {
            cJSON_AddItemToArray(stale, s);
            nstale++;
        }
    }
    cJSON_AddItemToObject(f, "features", features);
    cJSON *profiles = cJSON_AddObjectToObject(f, "profiles");
    for (int i = 0; i < r->reg->nprofiles; i++)
        cJSON_AddItemToObject(profiles, r->reg->profiles[i].name,
                              profile_json(r, &r->reg->profiles[i], complete));
    cJSON_AddItemToObject(f, "statements", statements);
    dsr_exit code = DSR_EXIT_OK;
    const char *rule = "nothing unexpected";
    if (!complete) {
        code = DSR_EXIT_INCOMPLETE;
        rule = "the run is incomplete";
    } else if (n_unexpected) {
        code = DSR_EXIT_UNEXPECTED;
        rule = "unexpected fail, error, crash, timeout or lacks";
    } else if (r->nresults > 0 && expectation_skips == r->nresults) {
        /* A gate is never passed by the expectations file alone (decisions, Runner and
         * reports 37): a run whose every selected case it skips judged nothing. */
        code = DSR_EXIT_UNEXPECTED;
        rule = "the expectations file skips every selected case: nothing was judged";
    } else if (r->o->strict && (cJSON_GetArraySize(xpass) || nstale || nshadowed)) {
        code = DSR_EXIT_UNEXPECTED;
        rule = "--strict: unexpected pass, stale or shadowed expectation";
    } else if (r->o->strict && 2 * expectation_skips > r->nresults) {
        code = DSR_EXIT_UNEXPECTED;
        rule = "--strict: the expectations file skips more than half of the selected cases";
    }
    cJSON *g = cJSON_AddObjectToObject(f, "gate");
    cJSON_AddNumberToObject(g, "exit_status", code);
    cJSON_AddStringToObject(g, "rule", rule);
    *gate = code;
    return f;
}

/* A write to the journal failed (BAD), or its flush does (FLUSH): a full disk, said once, and
 * the run's exit status says it too. */
static void journal_check(dsr_report *rep, bool bad, bool flush)
{
    if ((bad || (flush && dsr__flush_failed(rep->jsonl))) && !rep->failed) {
        fprintf(stderr, "devspec: cannot write %s: %s\n", rep->jsonl_path, dsr__strerror(errno));
        rep->failed = true;
    }
}

/* A line of the journal: HEAD (may be NULL), then TEXT; flushed when FLUSH (a case's line is
 * flushed by journal_flush, once per case or batch of cases: see dsr_reporter). */
static void journal_line(dsr_report *rep, const char *head, const char *text, bool flush)
{
    if (!rep->jsonl) return;
    bool bad = (head && fputs(head, rep->jsonl) < 0) || fputs(text, rep->jsonl) < 0 ||
               fputc('\n', rep->jsonl) == EOF;
    journal_check(rep, bad, flush);
}

void dsr__report_record(dsr_report *rep, const cJSON *record)
{
    if (!rep->jsonl) return;
    char *s = dsr__print(record, false);
    journal_line(rep, NULL, s, true);
    cJSON_free(s);
}

static bool holds_raw(const cJSON *v)
{
    if ((v->type & 0xFF) == cJSON_Raw) return true;
    for (const cJSON *c = v->child; c; c = c->next)
        if (holds_raw(c)) return true;
    return false;
}

/* The journal's record of RES: printed once, written with its "type" first, and kept for the
 * consolidated report (see dsr_report). */
static void report_case(dsr_report *rep, const dsr_result *res)
{
    cJSON *rec = case_record(res, false);
    dsr_buf printed = {0};
    dsr__print_compact(&printed, rec);
    const char *text = printed.data;
    size_t len = printed.len;
    /* "{" and the record's members after the type: the record is never empty (it has an id) */
    journal_line(rep, "{\"type\":\"case\",", text + 1, false);
    if (rep->nkept == rep->cap_kept) {
        rep->cap_kept = rep->cap_kept ? 2 * rep->cap_kept : 256;
        rep->kept_res = dsr__xrealloc(rep->kept_res, sizeof *rep->kept_res * (size_t)rep->cap_kept);
        rep->kept_at = dsr__xrealloc(rep->kept_at, sizeof *rep->kept_at * (size_t)rep->cap_kept);
    }
    rep->kept_res[rep->nkept] = res;
    rep->kept_at[rep->nkept++] = SIZE_MAX;
    if (!holds_raw(rec) && !dsr__repro_wanted(dsr__status_name(res->raw_status))) {
        rep->kept_at[rep->nkept - 1] = rep->kept.len;
        dsr__buf_add(&rep->kept, text, len + 1); /* with its NUL */
    }
    dsr__buf_free(&printed);
    cJSON_Delete(rec);
}

char *dsr__report_default_path(const char *label)
{
    char *s = dsr__xstrdup(label ? label : "adapter");
    for (char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '_' || *p == '.'))
            *p = '_';
    dsr_buf path = {0};
    dsr__buf_printf(&path, "reports/runs/%s.json", s);
    free(s);
    return path.data;
}

int dsr__check_run_outputs(const char *report, const char *report_what, const char *junit,
                           const char *trace, const dsr_inputs *inputs)
{
    dsr_buf journal = {0};
    if (report) {
        size_t n = strlen(report);
        if (n > 5 && !strcmp(report + n - 5, ".json")) n -= 5;
        dsr__buf_printf(&journal, "%.*s.jsonl", (int)n, report);
    }
    const char *outs[] = {report, journal.data, junit, trace};
    const char *what[] = {report_what, "the report's journal", "--junit", "--trace"};
    int rc = 0;
    for (int i = 0; i < 4 && !rc; i++) {
        rc = dsr__check_output(NULL, outs[i], what[i], inputs);
        char *target = NULL;
        int fd;
        if (rc || !outs[i] || dsr__output_kind(outs[i], &target, &fd) != DSR_OUT_FILE) continue;
        free(target);
        for (int k = 0; k < i && !rc; k++)
            if (outs[k] && dsr__same_file(outs[i], outs[k])) {
                fprintf(stderr, "devspec: %s %s is also %s\n", what[i], outs[i], what[k]);
                rc = DSR_EXIT_USAGE;
            }
    }
    dsr__buf_free(&journal);
    return rc;
}

/* The report's path (malloc'd): --report, else the default named by the adapter's label,
 * else by the library's name from hello, which was not known when the outputs were checked
 * before the run (dsr__check_run_outputs): that one is checked here; false when refused. */
static bool report_path(const dsr_run_state *r, char **path)
{
    if (r->o->report) {
        *path = dsr__xstrdup(r->o->report);
        return true;
    }
    const char *l = r->o->adapter_label;
    const cJSON *lib = cJSON_GetObjectItemCaseSensitive(r->hello, "library");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(lib, "name");
    if (l || !cJSON_IsString(n)) {
        *path = dsr__report_default_path(l);
        return true;
    }
    *path = dsr__report_default_path(n->valuestring);
    return dsr__check_run_outputs(*path, "the default report (no --report)", r->o->junit,
                                  r->o->trace, r->o->inputs) == 0;
}

void dsr__report_open(dsr_report *rep, const dsr_run_state *r, const cJSON *header)
{
    dsr_buf path = {0};
    char *chosen = NULL;
    bool allowed = report_path(r, &chosen);
    dsr__buf_puts(&path, chosen);
    free(chosen);
    if (!allowed) {
        /* Refused as an explicit --report would have been: nothing is touched, and the run
         * stops. */
        rep->report_path = path.data;
        rep->jsonl_path = NULL;
        rep->header = cJSON_Duplicate(header, true);
        rep->lock_fd = -1;
        rep->busy = true;
        return;
    }
    /* A link to a regular file: the journal goes beside the file it names, and that file is
     * what a stale report is removed from. Anything written in place (/dev/stdout, a FIFO, a
     * device, whatever is under /dev or /proc) gets no journal and is never unlinked. */
    char *target = NULL;
    int ofd;
    if (dsr__output_kind(path.data, &target, &ofd) != DSR_OUT_FILE) {
        rep->report_path = dsr__xstrdup(path.data);
        rep->jsonl_path = NULL;
        rep->header = cJSON_Duplicate(header, true);
        rep->lock_fd = -1;
        dsr__buf_free(&path);
        return;
    }
    path.len = 0;
    dsr__buf_puts(&path, target);
    free(target);
    rep->report_path = dsr__xstrdup(path.data);
    /* reports/NAME.json while running is reports/NAME.jsonl; the consolidated document
     * replaces NAME.json only at the end, so a stale NAME.json from an earlier run is
     * removed first: never a complete-looking file for a run that did not complete. */
    if (path.len > 5 && !strcmp(path.data + path.len - 5, ".json")) {
        path.len -= 5;
        path.data[path.len] = '\0';
    }
    dsr__buf_puts(&path, ".jsonl");
    rep->jsonl_path = path.data;
    rep->header = cJSON_Duplicate(header, true);
    rep->lock_fd = -1;
    /* Something at the report path that is not a regular file is written in place at the
     * end (dsr__write_file_atomic); it gets no journal beside it (no /dev/null.jsonl). */
    struct stat st;
    if (dsr__mkdir_parents(rep->report_path) != 0)
        fprintf(stderr, "devspec: cannot create the directory of %s: %s\n", rep->report_path,
                dsr__strerror(errno));
    /* The journal is opened without truncating and locked first: a second run given the
     * same report path finds the lock taken and stops before touching either file, rather
     * than interleaving its records with the first run's. O_NONBLOCK: a FIFO there must not
     * block the open. */
    int fd = open(rep->jsonl_path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0666);
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
        errno = DSR_ENOTREG;
    }
    if (fd < 0) {
        /* A report that cannot be written (a read-only folder, a full disk) stops the run
         * before its first case, rather than running it all for nothing. */
        fprintf(stderr, "devspec: cannot write %s: %s; no case was run\n", rep->jsonl_path,
                dsr__strerror(errno));
        rep->busy = true;
        return;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        long pid = dsr__lock_holder(rep->jsonl_path);
        char by[40] = "";
        if (pid > 0) snprintf(by, sizeof by, " (process %ld)", pid);
        fprintf(stderr,
                "devspec: another run%s is writing the report %s (its journal %s is locked); "
                "give this run another --report\n",
                by, rep->report_path, rep->jsonl_path);
        close(fd);
        rep->busy = true;
        return;
    }
    rep->lock_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0); /* the lock outlives the journal's stream */
    if (ftruncate(fd, 0) != 0 || !(rep->jsonl = fdopen(fd, "w"))) {
        fprintf(stderr, "devspec: cannot write %s: %s; no case was run\n", rep->jsonl_path,
                dsr__strerror(errno));
        close(fd);
        rep->busy = true;
        return;
    }
    /* reports/NAME.json while running is reports/NAME.jsonl; the consolidated document
     * replaces NAME.json only at the end, so a stale NAME.json from an earlier run is
     * removed first: never a complete-looking file for a run that did not complete. */
    unlink(rep->report_path);
    dsr__report_record(rep, rep->header);
}

void dsr__report_free(dsr_report *rep)
{
    cJSON_Delete(rep->header);
    free(rep->report_path);
    free(rep->jsonl_path);
    if (rep->jsonl) fclose(rep->jsonl);
    if (rep->report_path && rep->lock_fd >= 0) close(rep->lock_fd);
    dsr__buf_free(&rep->kept);
    free(rep->kept_res);
    free(rep->kept_at);
    memset(rep, 0, sizeof *rep);
    rep->lock_fd = -1;
}

void dsr__footer_write_failed(cJSON *footer, const char *path)
{
    cJSON *g = cJSON_GetObjectItemCaseSensitive(footer, "gate");
    cJSON *code = cJSON_GetObjectItemCaseSensitive(g, "exit_status");
    if (!cJSON_IsNumber(code) || code->valuedouble != DSR_EXIT_OK) return;
    dsj_set_number(code, DSR_EXIT_INCOMPLETE);
    dsr_buf why = {0};
    dsr__buf_printf(&why, "an output could not be written (%s)", path);
    cJSON_ReplaceItemInObjectCaseSensitive(g, "rule", cJSON_CreateString(why.data));
    dsr__buf_free(&why);
}

/* Appends TEXT, a value dsr__print formatted at depth 0, as it is formatted SHIFT levels
 * deeper: each line after the first starts with SHIFT more tabs (a string or a raw text never
 * holds a newline of its own: strings escape theirs, a raw text is from one reply line). */
static void add_shifted(dsr_buf *out, const char *text, int shift)
{
    const char *nl;
    while ((nl = strchr(text, '\n')) != NULL) {
        dsr__buf_add(out, text, (size_t)(nl - text) + 1);
        dsr__buf_add(out, "\t\t\t\t", (size_t)shift);
        text = nl + 1;
    }
    dsr__buf_puts(out, text);
}

static void add_formatted(dsr_buf *out, const cJSON *v, int depth)
{
    char *text = dsr__print(v, true);
    add_shifted(out, text, depth);
    cJSON_free(text);
}

/* Long: the consolidated report of R with FOOTER, written atomically; false when it could not
 * be (said on stderr). Laid out as dsr__print lays out the document {"type", "report_version",
 * "header", "cases", "footer"}, written piece by piece into one buffer: a case record the
 * journal kept is laid out again from its text (dsr__json_reindent), any other is built again,
 * and those of failures get their reproducer (dsr__repro_annotate). */
static bool write_consolidated(const dsr_report *rep, const dsr_run_state *r, const cJSON *footer)
{
    cJSON *h = cJSON_Duplicate(rep->header, true);
    cJSON_DeleteItemFromObject(h, "type");
    bool reuse = rep->nkept == r->nresults;
    const char **kept = dsr__xmalloc(sizeof *kept * (size_t)(r->nresults + 1));
    cJSON *built = cJSON_CreateArray();
    for (int i = 0; i < r->nresults; i++) {
        kept[i] = NULL;
        if (reuse && rep->kept_res[i] == &r->results[i] && rep->kept_at[i] != SIZE_MAX)
            kept[i] = rep->kept.data + rep->kept_at[i];
        else
            cJSON_AddItemToArray(built, case_record(&r->results[i], false));
    }
    dsr__repro_annotate(built, h, rep->report_path);
    /* About the laid-out size: the pages of a buffer doubled as it grows are touched twice */
    dsr_buf doc = {0};
    doc.cap = 2 * rep->kept.len + 65536;
    doc.data = dsr__xmalloc(doc.cap);
    dsr__buf_printf(&doc,
                    "{\n\t\"type\":\t\"devspec-report\",\n\t\"report_version\":\t%d,\n\t"
                    "\"header\":\t",
                    DSR_REPORT_VERSION);
    add_formatted(&doc, h, 1);
    dsr__buf_puts(&doc, ",\n\t\"cases\":\t[");
    const cJSON *next = built->child;
    for (int i = 0; i < r->nresults; i++) {
        if (i) dsr__buf_add(&doc, ", ", 2);
        if (kept[i]) {
            dsr__json_reindent(kept[i], strlen(kept[i]), 2, &doc);
        } else {
            add_formatted(&doc, next, 2);
            next = next->next;
        }
    }
    dsr__buf_puts(&doc, "],\n\t\"footer\":\t");
    cJSON *f = cJSON_Duplicate(footer, true);
    cJSON_DeleteItemFromObject(f, "type");
    add_formatted(&doc, f, 1);
    dsr__buf_puts(&doc, "\n}\n");
    cJSON_Delete(f);
    cJSON_Delete(h);
    cJSON_Delete(built);
    free(kept);
    bool ok = dsr__write_file_atomic(rep->report_path, doc.data, doc.len) == 0;
    if (!ok)
        fprintf(stderr, "devspec: cannot write %s: %s\n", rep->report_path, dsr__strerror(errno));
    dsr__buf_free(&doc);
    return ok;
}

void dsr__report_finish(dsr_report *rep, const dsr_run_state *r, const cJSON *footer,
                        bool *write_failed)
{
    /* The consolidated report is written before the journal's footer, so that a report
     * that cannot be written turns the footer's gate into the exit status the process
     * gives (3), never a footer saying 0 (decisions, Runner and reports 16). */
    cJSON *f = cJSON_Duplicate(footer, true);
    bool written = write_consolidated(rep, r, f);
    if (!written) dsr__footer_write_failed(f, rep->report_path);
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(f, "gate"), "exit_status");
    bool said_ok = written && cJSON_IsNumber(code) && code->valuedouble == DSR_EXIT_OK;
    dsr__report_record(rep, f);
    if (rep->jsonl) {
        if (fclose(rep->jsonl) != 0 && !rep->failed) {
            fprintf(stderr, "devspec: cannot write %s: %s\n", rep->jsonl_path,
                    dsr__strerror(errno));
            rep->failed = true;
        }
        rep->jsonl = NULL;
    }
    /* The journal failed after the report said 0: the report is written again with the
     * gate the process will give. */
    if (rep->failed && said_ok) {
        dsr__footer_write_failed(f, rep->jsonl_path);
        written = write_consolidated(rep, r, f);
    }
    if (rep->failed || !written) *write_failed = true;
    cJSON_Delete(f);
}

/* ---- the journal as a reporter ------------------------------------------------------- */

typedef struct journal {
    dsr_reporter base;
    dsr_report rep;
    bool started; /* the adapter started: the summary names the journal */
    bool failed;  /* a write to the journal or the report failed */
} journal;

static bool journal_begin(dsr_reporter *self, const dsr_run_state *r, const cJSON *header,
                          const char *adapter_error)
{
    journal *j = (journal *)self;
    j->started = adapter_error == NULL;
    dsr__report_open(&j->rep, r, header);
    return !j->rep.busy;
}

static void journal_case(dsr_reporter *self, const dsr_result *res)
{
    journal *j = (journal *)self;
    report_case(&j->rep, res);
}

static void journal_flush(dsr_reporter *self)
{
    journal *j = (journal *)self;
    if (j->rep.jsonl) journal_check(&j->rep, false, true);
}

static bool journal_end(dsr_reporter *self, const dsr_run_state *r, const cJSON *footer,
                        double elapsed)
{
    (void)elapsed;
    journal *j = (journal *)self;
    bool failed = false;
    dsr__report_finish(&j->rep, r, footer, &failed);
    j->failed = failed;
    return !failed;
}

static void journal_destroy(dsr_reporter *self)
{
    journal *j = (journal *)self;
    dsr__report_free(&j->rep);
    free(j);
}

dsr_reporter *dsr__journal_reporter(void)
{
    journal *j = dsr__xmalloc(sizeof *j);
    memset(j, 0, sizeof *j);
    j->rep.lock_fd = -1;
    j->base =
        (dsr_reporter){journal_begin, journal_case, journal_flush, journal_end, journal_destroy};
    return &j->base;
}

void dsr__journal_paths(const dsr_reporter *self, const char **report, const char **jsonl,
                        bool *written)
{
    const journal *j = (const journal *)self;
    *written = !j->failed && !j->rep.failed;
    *report = j->rep.report_path;
    *jsonl = j->started ? j->rep.jsonl_path : NULL;
}
