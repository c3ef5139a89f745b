/* The summary a person reads at the end of a run: what was unexpected and why, the verdict
 * per profile, where the reports are, and one closing line in the form pytest and prove
 * end theirs:
 *
 *   315 passed, 0 failed, 6 skipped, 0 errors in 0.93 s
 *
 * The closing line's counts (conformance/README.md, "The summary"): passed = pass;
 * failed = fail + crash + timeout (the library did not do what the statement says);
 * errors = error (the case could not be judged: a protocol violation, a failed reset);
 * skipped = skip; lacking (lacks: the library lacks what a step needs), xfailed and xpassed
 * follow only when there are any. */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <stdlib.h>
#include <string.h>

/* At most this many unexpected results are listed; the report has them all. */
#define MAX_LISTED 40

/* The first line of S, at most 160 characters. */
static void put_reason(FILE *out, const char *s)
{
    int n = 0;
    unsigned cp;
    size_t h;
    for (; s && *s && *s != '\n' && n < 160; s++, n++) {
        if ((h = dsr__hidden_char(s, &cp))) {
            fprintf(out, "\\u%04x", cp);
            s += h - 1;
        } else {
            fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, out);
        }
    }
    if (s && *s && *s != '\n') fputs("...", out);
}

static int count_of(const cJSON *counts, dsr_status s)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(counts, dsr__status_name(s));
    return cJSON_IsNumber(n) ? (int)n->valuedouble : 0;
}

/* What makes two unexpected results one cause: the status, the step and its op, and the
 * reason with its numbers (values, ids, handles) written as '#', up to 120 characters. The
 * key only groups: what is shown is its headline (status, step, op) and a real example. */
static char *cause_of(const dsr_result *res)
{
    dsr_buf b = {0};
    dsr__buf_printf(&b, "%s", dsr__status_name(res->status));
    if (res->step >= 0)
        dsr__buf_printf(&b, " at step %d (%s)", res->step, res->c->steps[res->step].op);
    dsr__buf_puts(&b, ": ");
    const char *s = res->status == DSR_XPASS ? "passed, the expectations file says it does not"
                    : res->reason            ? res->reason
                                             : "";
    int n = 0;
    for (; *s && *s != '\n' && n < 120; s++, n++) {
        if (*s >= '0' && *s <= '9') {
            while (s[1] >= '0' && s[1] <= '9')
                s++;
            dsr__buf_puts(&b, "#");
        } else {
            dsr__buf_add(&b, (unsigned char)*s < 0x20 ? " " : s, 1);
        }
    }
    return b.data;
}

/* A cause's headline: what its key says before the masked reason. */
static void put_headline(FILE *out, const dsr_result *res)
{
    fputs(dsr__status_name(res->status), out);
    if (res->step >= 0) fprintf(out, " at step %d (%s)", res->step, res->c->steps[res->step].op);
}

typedef struct cause {
    char *key;
    int count;
    int first; /* the first result of the cause, its example */
} cause;

static int by_count(const void *x, const void *y)
{
    const cause *a = x, *b = y;
    return a->count != b->count ? b->count - a->count : a->first - b->first;
}

/* The unexpected results grouped by cause, the largest group first, each with its count and
 * one example; a cause of one case is that case's line. At most MAX_LISTED causes. */
static void print_unexpected(FILE *out, const dsr_run_state *r)
{
    cause *cs = dsr__xmalloc(sizeof *cs * (size_t)(r->nresults + 1));
    int ncs = 0, unexpected = 0;
    for (int i = 0; i < r->nresults; i++) {
        const dsr_result *res = &r->results[i];
        if (!dsr__status_unexpected(res->status) && res->status != DSR_XPASS) continue;
        unexpected++;
        char *key = cause_of(res);
        int k = 0;
        while (k < ncs && strcmp(cs[k].key, key))
            k++;
        if (k < ncs) {
            cs[k].count++;
            free(key);
        } else {
            cs[ncs++] = (cause){key, 1, i};
        }
    }
    qsort(cs, (size_t)ncs, sizeof *cs, by_count);
    if (ncs) fputs("\nunexpected:\n", out);
    for (int k = 0; k < ncs && k < MAX_LISTED; k++) {
        const dsr_result *res = &r->results[cs[k].first];
        if (cs[k].count > 1) {
            fprintf(out, "  %d x ", cs[k].count);
            put_headline(out, res);
            fputs("\n      e.g. ", out);
        } else {
            fprintf(out, "  %-8s ", dsr__status_name(res->status));
        }
        fprintf(out, "%s: ", res->c->id);
        if (res->status == DSR_XPASS)
            fputs("passed, the expectations file says it does not", out);
        else
            put_reason(out, res->reason);
        fputc('\n', out);
        if (res->call) {
            fputs(cs[k].count > 1 ? "        call: " : "           call: ", out);
            put_reason(out, res->call);
            fputc('\n', out);
        }
        /* The library's innermost frame, where it raised (the reason's end may be cut). */
        const cJSON *tb = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(res->observed, "error"), "traceback");
        const cJSON *frame = cJSON_GetArrayItem(tb, cJSON_GetArraySize(tb) - 1);
        if (cJSON_IsString(frame)) {
            fputs(cs[k].count > 1 ? "        raised at: " : "           raised at: ", out);
            put_reason(out, frame->valuestring);
            fputc('\n', out);
        }
    }
    if (ncs > MAX_LISTED)
        fprintf(out, "  ... and %d more causes (see the report)\n", ncs - MAX_LISTED);
    if (ncs > 1)
        fprintf(out, "  (%d unexpected results, %d causes, the largest first)\n", unexpected, ncs);
    for (int k = 0; k < ncs; k++)
        free(cs[k].key);
    free(cs);
}

/* The expectations entries that apply to no case because an earlier entry takes every case
 * they name. */
static void print_shadowed(FILE *out, const dsr_run_state *r, const cJSON *footer)
{
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(footer, "shadowed_expectations");
    if (cJSON_GetArraySize(sh) == 0) return;
    fprintf(out, "\nshadowed expectations (an earlier entry takes every case they name%s):\n",
            r->o->strict ? "; --strict fails the run" : "");
    const cJSON *s;
    cJSON_ArrayForEach(s, sh)
    {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(s, "pattern");
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(s, "line");
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(s, "shadowed_by");
        fprintf(out, "  line %d: %s (shadowed by line %d)\n",
                cJSON_IsNumber(l) ? (int)l->valuedouble : 0,
                cJSON_IsString(p) ? p->valuestring : "?",
                cJSON_IsNumber(b) ? (int)b->valuedouble : 0);
    }
}

/* A gate that fails with no unexpected result to show says its rule (--strict's stale and
 * shadowed entries are listed above it; the expectations file's share of skips is not). */
static void print_gate(FILE *out, const cJSON *footer)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(footer, "gate");
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(g, "exit_status");
    const cJSON *rule = cJSON_GetObjectItemCaseSensitive(g, "rule");
    const cJSON *unexp = cJSON_GetObjectItemCaseSensitive(footer, "unexpected");
    if (cJSON_IsNumber(code) && code->valuedouble == DSR_EXIT_UNEXPECTED &&
        cJSON_GetArraySize(unexp) == 0 && cJSON_IsString(rule))
        fprintf(out, "\nthe run fails: %s\n", rule->valuestring);
}

/* The expectations entries that name no case of the suite. */
static void print_stale(FILE *out, const dsr_run_state *r, const cJSON *footer)
{
    const cJSON *stale = cJSON_GetObjectItemCaseSensitive(footer, "stale_expectations");
    if (cJSON_GetArraySize(stale) > 0) {
        fprintf(out, "\nstale expectations (they name no case of the suite%s):\n",
                r->o->strict ? "; --strict fails the run" : "");
        const cJSON *s;
        cJSON_ArrayForEach(s, stale)
        {
            const cJSON *p = cJSON_GetObjectItemCaseSensitive(s, "pattern");
            const cJSON *l = cJSON_GetObjectItemCaseSensitive(s, "line");
            fprintf(out, "  line %d: %s\n", cJSON_IsNumber(l) ? (int)l->valuedouble : 0,
                    cJSON_IsString(p) ? p->valuestring : "?");
        }
    }
}

/* True when NAME is a profile of the array API standard whose version the library declares
 * (hello's library.array_api_version) or an earlier one: a profile the library says it
 * implements, whose verdict is shown even where the adapter did not claim one of its features
 * (a probe of the library raised), never folded into "features not claimed". */
static bool within_declared(const dsr_run_state *r, const char *name)
{
    const char *declared = dsr__declared_version(r->reg, r->hello);
    if (!declared) return false;
    for (int i = 0; i < r->reg->nprofiles; i++) {
        const dsr_profile *p = &r->reg->profiles[i];
        if (!strcmp(p->name, name))
            return p->document && !strcmp(p->document, "array-api") && p->version &&
                   strcmp(p->version, "draft") != 0 && strcmp(p->version, declared) <= 0;
    }
    return false;
}

/* The features the adapter did not claim because a probe of the library raised (hello's
 * claims.FEATURE.why) and the probes' own notes ("could not determine ..."), named under the
 * verdicts they cost a feature of. */
static void print_probe_notes(FILE *out, const dsr_run_state *r, int shown)
{
    if (!shown) return;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(r->hello, "claims"))
    {
        const cJSON *why = cJSON_GetObjectItemCaseSensitive(c, "why");
        if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(c, "claimed")) && cJSON_IsString(why) &&
            strstr(why->valuestring, " raised"))
            fprintf(out, "  %s not claimed: %s\n", c->string, why->valuestring);
    }
    const cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(r->hello, "notes"))
    {
        if (cJSON_IsString(n) && !strncmp(n->valuestring, "could not determine ", 20))
            fprintf(out, "  probe that raised: %s\n", n->valuestring + 20);
    }
}

static void print_profiles(FILE *out, const dsr_run_state *r, const cJSON *footer)
{
    const bool color = r->o->color;
    /* Profile verdicts: the one asked for, else every profile the library claims all the
     * required features of; the others are counted in one line. */
    const cJSON *profiles = cJSON_GetObjectItemCaseSensitive(footer, "profiles");
    int unclaimed = 0, shown = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, profiles)
    {
        const cJSON *missing = cJSON_GetObjectItemCaseSensitive(p, "missing_features");
        bool asked = r->o->profile && !strcmp(r->o->profile, p->string);
        if (r->o->profile && !asked) continue;
        if (!asked && cJSON_GetArraySize(missing) > 0 && !within_declared(r, p->string)) {
            unclaimed++;
            continue;
        }
        if (shown++ == 0) fputs("\nprofiles:\n", out);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(p, "verdict");
        const char *verdict = cJSON_IsString(v) ? v->valuestring : "?";
        const char *on = "", *off = "";
        if (color) {
            on = !strcmp(verdict, "conforms")           ? "\033[32m"
                 : !strcmp(verdict, "does-not-conform") ? "\033[31m"
                                                        : "\033[33m";
            off = "\033[0m";
        }
        int n = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p, "cases"));
        int passed = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p, "passed"));
        fprintf(out, "  %-28s %s%s%s", p->string, on, verdict, off);
        const cJSON *lacks = cJSON_GetObjectItemCaseSensitive(p, "lacks");
        const cJSON *l;
        int k = 0;
        cJSON_ArrayForEach(l, lacks) fprintf(out, "%s%s", k++ ? ", " : ": lacks ", l->valuestring);
        fprintf(out, " (%d of %d cases passed", passed, n);
        /* Failures that rest on a should or on a devspec decision never decide the verdict:
         * they are shown apart (decisions, Runner and reports 35). */
        int should =
            (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p, "should_failed"));
        int differs =
            (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p, "differs_from_reading"));
        if (should > 0) fprintf(out, "; short of a should: %d", should);
        if (differs > 0) fprintf(out, "; differs from the reference reading: %d", differs);
        if (cJSON_GetArraySize(missing) > 0) {
            fputs("; not claimed:", out);
            const cJSON *m;
            cJSON_ArrayForEach(m, missing) fprintf(out, " %s", m->valuestring);
        }
        fputs(")\n", out);
    }
    print_probe_notes(out, r, shown);
    if (unclaimed)
        fprintf(out, "%s  %d other profile%s: features not claimed by the library\n",
                shown ? "" : "\nprofiles:\n", unclaimed, unclaimed == 1 ? "" : "s");
}

/* How the passes passed, then the closing counts line. */
static void print_closing(FILE *out, const dsr_run_state *r, const cJSON *footer, double elapsed)
{
    const bool color = r->o->color;
    /* How the passes passed: those that ended at a stop alternative are counted apart, those
     * where the library refused (raised) and those where it answered a value. */
    int refused = 0, stopped = 0, passes = 0;
    for (int i = 0; i < r->nresults; i++) {
        const dsr_result *res = &r->results[i];
        if (res->status != DSR_PASS) continue;
        passes++;
        if (res->stopped_at < 0) continue;
        stopped++;
        const cJSON *last = cJSON_GetArrayItem(res->steps, cJSON_GetArraySize(res->steps) - 1);
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(last, "outcome");
        refused += cJSON_IsString(o) && !strcmp(o->valuestring, "raised");
    }
    if (stopped) {
        fprintf(out, "%d passed, %d of them by refusing at a stop step", passes, refused);
        if (stopped > refused) fprintf(out, " and %d by a value at one", stopped - refused);
        fputs(" (the report's steps say which alternative)\n", out);
    }
    /* What the run left out that a reader could otherwise take for checked: expected crashes
     * (--skip-expected-crashes), and cases that need more devices than the library lists. */
    int left_out = 0, want_devices = 0, most = 0;
    for (int i = 0; i < r->nresults; i++) {
        const dsr_result *res = &r->results[i];
        if (res->status != DSR_SKIP || !res->skip_source) continue;
        if (!strcmp(res->skip_source, "expectations") && res->reason &&
            !strncmp(res->reason, "expected crash left out", 23))
            left_out++;
        if (!strcmp(res->skip_source, "devices")) {
            want_devices++;
            if (res->c->devices > most) most = res->c->devices;
        }
    }
    if (left_out)
        fprintf(out,
                "%d case%s expected to crash left out (--skip-expected-crashes): a run without "
                "the option checks that they still do\n",
                left_out, left_out == 1 ? "" : "s");
    /* The cases run once more after an intermittent crash (the footer's rerun): their
     * results are the second runs', and the report keeps each first crash (case.first_run). */
    const cJSON *reruns = cJSON_GetObjectItemCaseSensitive(footer, "rerun");
    int rerun = cJSON_GetArraySize(reruns);
    if (rerun) {
        fprintf(out,
                "%d case%s crashed and %s run again on a fresh worker (intermittent-crash):", rerun,
                rerun == 1 ? "" : "s", rerun == 1 ? "was" : "were");
        int shown = 0;
        for (const cJSON *id = reruns->child; id && shown < 5; id = id->next)
            fprintf(out, "%s %s", shown++ ? "," : "", id->valuestring);
        fputs(rerun > 5 ? ", ... (the report's first_run says how each crashed)\n"
                        : " (the report's first_run says how)\n",
              out);
    }
    if (want_devices)
        fprintf(out,
                "%d case%s need more devices (up to %d) than the library gave (%d): give it more "
                "where it can have them (JAX: XLA_FLAGS=--xla_force_host_platform_device_count=N; "
                "python:SPEC: a devices list in [tool.devspec] or devspec.toml)\n",
                want_devices, want_devices == 1 ? "" : "s", most, r->ndevices);
    const cJSON *counts = cJSON_GetObjectItemCaseSensitive(footer, "counts");
    int failed =
        count_of(counts, DSR_FAIL) + count_of(counts, DSR_CRASH) + count_of(counts, DSR_TIMEOUT);
    int errors = count_of(counts, DSR_ERROR);
    int xfail = count_of(counts, DSR_XFAIL), xpass = count_of(counts, DSR_XPASS);
    const char *on = "", *off = "";
    if (color) {
        on = failed || errors || count_of(counts, DSR_LACKS) ? "\033[31m" : "\033[32m";
        off = "\033[0m";
    }
    fprintf(out, "%s%d passed, %d failed", on, count_of(counts, DSR_PASS), failed);
    /* Crashes and timeouts are failures, named apart: they say the library died or hung,
     * not that it answered wrongly. */
    int crashed = count_of(counts, DSR_CRASH), timed_out = count_of(counts, DSR_TIMEOUT);
    if (crashed || timed_out) {
        fputs(" (", out);
        if (crashed) fprintf(out, "%d crashed%s", crashed, timed_out ? ", " : "");
        if (timed_out) fprintf(out, "%d timed out", timed_out);
        fputc(')', out);
    }
    fprintf(out, ", %d skipped, %d error%s", count_of(counts, DSR_SKIP), errors,
            errors == 1 ? "" : "s");
    int lacking = count_of(counts, DSR_LACKS);
    if (lacking) fprintf(out, ", %d lacking", lacking);
    if (xfail) fprintf(out, ", %d xfailed", xfail);
    if (xpass) fprintf(out, ", %d xpassed", xpass);
    /* The run's time, and beside it the loading of the suite before it, which for a fast
     * library can take longer than the run itself. */
    fprintf(out, " in %.2f s (and %.2f s loading the suite)%s\n", elapsed,
            r->suite ? r->suite->load_seconds : 0.0, off);
    fflush(out);
}

void dsr__summary(FILE *out, const dsr_run_state *r, const cJSON *footer, const char *report,
                  const char *jsonl, double elapsed)
{
    /* A run whose adapter did not start (it failed, or a signal came while it started) has
     * no verdict and no counts to show: its last line (the reporter's) says that no case ran
     * and why, never "0 passed, 0 failed". */
    bool started = r->hello != NULL;
    print_unexpected(out, r);
    print_stale(out, r, footer);
    print_shadowed(out, r, footer);
    if (started) print_gate(out, footer);
    if (started) print_profiles(out, r, footer);
    fputs("\nreport: ", out);
    fputs(report ? report : "(none)", out);
    if (jsonl) fprintf(out, " (streamed as %s)", jsonl);
    if (r->o->junit) fprintf(out, "; JUnit: %s", r->o->junit);
    fputc('\n', out);
    dsr__repro_summary(out, r, report);

    if (started) print_closing(out, r, footer, elapsed);
}

/* ---- the summary as a reporter: it speaks at the end ---------------------------------- */

typedef struct summary_reporter {
    dsr_reporter base;
    FILE *out;
    const dsr_reporter *journal;
    bool started; /* the adapter started */
} summary_reporter;

static bool summary_begin(dsr_reporter *self, const dsr_run_state *r, const cJSON *header,
                          const char *adapter_error)
{
    (void)r;
    (void)header;
    ((summary_reporter *)self)->started = adapter_error == NULL;
    return true;
}

static void summary_case(dsr_reporter *self, const dsr_result *res)
{
    (void)self;
    (void)res;
}

static bool summary_end(dsr_reporter *self, const dsr_run_state *r, const cJSON *footer,
                        double elapsed)
{
    summary_reporter *s = (summary_reporter *)self;
    const char *report = NULL, *jsonl = NULL;
    bool written;
    dsr__journal_paths(s->journal, &report, &jsonl, &written);
    if (s->started && !r->complete)
        fprintf(stderr, "devspec: the run is incomplete: %s\n", r->why_incomplete);
    /* Never a report named as if it were there when its writing failed (said above). */
    dsr_buf shown = {0};
    if (report && !written) dsr__buf_printf(&shown, "%s (not written: see above)", report);
    dsr__summary(s->out, r, footer, shown.data ? shown.data : report, written ? jsonl : NULL,
                 elapsed);
    dsr__buf_free(&shown);
    if (!s->started) {
        /* the last line says it: never "0 passed, 0 failed" for a run that did not start,
         * "interrupted (SIGINT) while the adapter was starting" for one stopped then */
        fprintf(s->out, "%s\n", r->why_incomplete);
        return true;
    }
    int ran = 0;
    for (int i = 0; i < r->nresults; i++)
        ran += r->results[i].status != DSR_SKIP;
    /* A run where nothing ran proves nothing, though nothing in it was unexpected. */
    if (ran == 0 && !r->interrupted)
        fprintf(stderr, "devspec: warning: no case ran (%d selected, all skipped)\n", r->nresults);
    return true;
}

static void summary_destroy(dsr_reporter *self)
{
    free(self);
}

dsr_reporter *dsr__summary_reporter(FILE *out, const dsr_reporter *journal)
{
    summary_reporter *s = dsr__xmalloc(sizeof *s);
    memset(s, 0, sizeof *s);
    s->out = out;
    s->journal = journal;
    s->base = (dsr_reporter){summary_begin, summary_case, NULL, summary_end, summary_destroy};
    return &s->base;
}
