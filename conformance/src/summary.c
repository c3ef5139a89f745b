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

/* The unexpected results, with their reasons (at most MAX_LISTED). */
/* What makes two unexpected results one cause: the status, the step and its op, and the
 * reason with its numbers (values, ids, handles) written as '#', up to 120 characters. */
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
            fprintf(out, "  %d x %s\n      e.g. ", cs[k].count, cs[k].key);
        } else {
            fprintf(out, "  %-8s ", dsr__status_name(res->status));
        }
        fprintf(out, "%s: ", res->c->id);
        if (res->status == DSR_XPASS)
            fputs("passed, the expectations file says it does not", out);
        else
            put_reason(out, res->reason);
        fputc('\n', out);
    }
    if (ncs > MAX_LISTED)
        fprintf(out, "  ... and %d more causes (see the report)\n", ncs - MAX_LISTED);
    if (ncs > 1)
        fprintf(out, "  (%d unexpected results, %d causes, the largest first)\n", unexpected, ncs);
    for (int k = 0; k < ncs; k++)
        free(cs[k].key);
    free(cs);
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
        if (!asked && cJSON_GetArraySize(missing) > 0) {
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
        if (cJSON_GetArraySize(missing) > 0) {
            fputs("; not claimed:", out);
            const cJSON *m;
            cJSON_ArrayForEach(m, missing) fprintf(out, " %s", m->valuestring);
        }
        fputs(")\n", out);
    }
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
    fprintf(out, " in %.2f s%s\n", elapsed, off);
    fflush(out);
}

void dsr__summary(FILE *out, const dsr_run_state *r, const cJSON *footer, const char *report,
                  const char *jsonl, double elapsed)
{
    /* A run whose adapter did not start has no verdict and no counts to show: its last line
     * (the reporter's) says that no case ran and why. */
    bool started = r->hello || r->interrupted;
    print_unexpected(out, r);
    print_stale(out, r, footer);
    if (started) print_profiles(out, r, footer);
    fputs("\nreport: ", out);
    fputs(report ? report : "(none)", out);
    if (jsonl) fprintf(out, " (streamed as %s)", jsonl);
    if (r->o->junit) fprintf(out, "; JUnit: %s", r->o->junit);
    fputc('\n', out);

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
    dsr__journal_paths(s->journal, &report, &jsonl);
    if (s->started && !r->complete)
        fprintf(stderr, "devspec: the run is incomplete: %s\n", r->why_incomplete);
    dsr__summary(s->out, r, footer, report, jsonl, elapsed);
    if (!s->started) {
        /* the last line says it: never "0 passed, 0 failed" for a run that did not start */
        if (!r->interrupted) fprintf(s->out, "%s\n", r->why_incomplete);
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
    s->base = (dsr_reporter){summary_begin, summary_case, summary_end, summary_destroy};
    return &s->base;
}
