/* Judging a step: a reply against the step's outcome (spec/case-format.md): "expect" (an
 * "either" of one alternative), "either" (the first alternative that holds decides, a "stop"
 * alternative ends the case as a pass), "raises", "expect_ranks" (one value per rank of an
 * SPMD adapter), and the replies that never hold: a protocol error (error), an op the
 * adapter cannot express and what the library lacks (lacks). Values are matched by
 * judge.c; the scheduler (run.c) sends the requests, among them device.equal through J. */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void dsr__failure_say(dsr_failure *f, const char *fmt, ...)
{
    va_list ap;
    char tmp[2048];
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    f->msg.len = 0;
    dsr__buf_puts(&f->msg, tmp);
}

void dsr__failure_io(dsr_failure *f, cJSON *expected, cJSON *observed)
{
    cJSON_Delete(f->expected);
    cJSON_Delete(f->observed);
    f->expected = expected;
    f->observed = observed;
}

void dsr__failure_free(dsr_failure *f)
{
    dsr__buf_free(&f->msg);
    dsr__failure_io(f, NULL, NULL);
    free(f->lacks);
    f->lacks = NULL;
}

static cJSON *error_json(const dsr_reply *rep)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "kind", rep->kind);
    cJSON_AddStringToObject(e, "message", rep->message);
    cJSON_AddStringToObject(e, "origin", rep->origin);
    if (rep->lacks) cJSON_AddStringToObject(e, "lacks", rep->lacks);
    const cJSON *tb = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(rep->doc, "error"), "traceback");
    if (cJSON_IsArray(tb)) cJSON_AddItemToObject(e, "traceback", cJSON_Duplicate(tb, true));
    cJSON *w = cJSON_CreateObject();
    cJSON_AddItemToObject(w, "error", e);
    return w;
}

static bool kind_matches(const char *want, const char *got)
{
    return !strcmp(want, "any") || !strcmp(want, got);
}

/* Matches a successful reply against EXPS, one expected value per rank: DSR_END_OK, or the
 * first rank that differs in WHY (DSR_END_FAIL; DSR_END_ERROR or the transport's end when a
 * device comparison could not be made). OBSERVED (may be NULL) receives each rank's outcome. */
static dsr_end match_ranks(const dsr_judge *j, const cJSON *exps, const dsr_reply *rep,
                           dsr_buf *why, cJSON *observed)
{
    const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(rep->doc, "ranks");
    dsr_end end = DSR_END_OK;
    int i = 0;
    const cJSON *exp;
    cJSON_ArrayForEach(exp, exps)
    {
        const cJSON *entry = ranks ? cJSON_GetArrayItem(ranks, i) : NULL;
        const cJSON *res = rep->result;
        if (ranks) {
            const cJSON *ok = cJSON_GetObjectItemCaseSensitive(entry, "ok");
            res = cJSON_GetObjectItemCaseSensitive(entry, "result");
            if (!cJSON_IsTrue(ok) || !res) {
                if (observed)
                    cJSON_AddItemToArray(observed,
                                         entry ? cJSON_Duplicate(entry, true) : cJSON_CreateNull());
                if (end == DSR_END_OK) {
                    dsr__buf_printf(why, "rank %d: %s", i,
                                    entry ? "raised an error" : "has no reply (fewer ranks)");
                    end = DSR_END_FAIL;
                }
                i++;
                continue;
            }
        }
        if (observed) cJSON_AddItemToArray(observed, dsr__bounded_copy(res));
        if (end == DSR_END_OK) {
            dsr_buf one = {0};
            int m = dsr__judge_match(j, exp, res, &one);
            if (m != 1) {
                dsr__buf_printf(why, "rank %d: %s", i, one.data ? one.data : "");
                end = m < 0 ? (j->io != DSR_END_OK ? j->io : DSR_END_ERROR) : DSR_END_FAIL;
            }
            dsr__buf_free(&one);
        }
        i++;
    }
    return end;
}

/* Judges a reply against one expected value per rank. An SPMD adapter's reply carries every
 * rank's outcome in "ranks" when they differ; without it every rank answered as rank 0. */
static dsr_end judge_ranks(const dsr_judge *j, const dsr_step *st, const dsr_reply *rep,
                           dsr_failure *f)
{
    if (!rep->ok) {
        dsr__failure_say(f, "%s raised %s on rank 0: %s", st->op, rep->kind, rep->message);
        dsr__failure_io(f, dsr__resolve(j->bindings, st->value), error_json(rep));
        return DSR_END_FAIL;
    }
    cJSON *observed = cJSON_CreateArray();
    dsr_buf why = {0};
    dsr_end end = match_ranks(j, st->value, rep, &why, observed);
    if (end != DSR_END_OK) {
        dsr__failure_say(f, "%s: %s", st->op, why.data ? why.data : "");
        dsr__failure_io(f, dsr__resolve(j->bindings, st->value), observed);
    } else {
        cJSON_Delete(observed);
    }
    dsr__buf_free(&why);
    return end;
}

/* Judges a reply against an "expect" (an either of one alternative) or an "either": the first
 * alternative that holds decides (*ALT_HELD, *STOP as judge says). */
static dsr_end judge_alternatives(const dsr_judge *j, const dsr_step *st, const dsr_reply *rep,
                                  dsr_failure *f, int *alt_held, bool *stop)
{
    /* An "expect" is an "either" of one alternative. The judge reads the case's own
     * value (references, matchers, escapes); the report shows it resolved. */
    bool single = st->outcome == DSR_OUTCOME_EXPECT;
    dsr_buf why = {0};
    dsr_end end = DSR_END_FAIL;
    const cJSON *alt = single ? NULL : st->value->child;
    for (int n = 0; single ? n < 1 : alt != NULL; n++, alt = alt ? alt->next : NULL) {
        const cJSON *exp = single ? st->value : cJSON_GetObjectItemCaseSensitive(alt, "expect");
        const cJSON *rai = single ? NULL : cJSON_GetObjectItemCaseSensitive(alt, "raises");
        const cJSON *erk = single ? NULL : cJSON_GetObjectItemCaseSensitive(alt, "expect_ranks");
        bool stops = !single && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(alt, "stop"));
        if (n) dsr__buf_puts(&why, "; ");
        if (!single) dsr__buf_printf(&why, "alternative %d: ", n + 1);
        if (exp && rep->ok) {
            int m = dsr__judge_match(j, exp, rep->result, &why);
            if (m == 1) {
                end = DSR_END_OK;
                *stop = stops;
                *alt_held = single ? 0 : n + 1;
                break;
            }
            if (m < 0) {
                end = j->io != DSR_END_OK ? j->io : DSR_END_ERROR;
                break;
            }
        } else if (erk && rep->ok) {
            dsr_end m = match_ranks(j, erk, rep, &why, NULL);
            if (m == DSR_END_OK) {
                end = DSR_END_OK;
                *stop = stops;
                *alt_held = n + 1;
                break;
            }
            if (m != DSR_END_FAIL) {
                end = m;
                break;
            }
        } else if (exp || erk) {
            dsr__buf_printf(&why, "expected a value, %s raised %s: %s", st->op, rep->kind,
                            rep->message);
        } else if (rai && !rep->ok) {
            if (kind_matches(rai->valuestring, rep->kind)) {
                end = DSR_END_OK;
                *stop = stops;
                *alt_held = n + 1;
                break;
            }
            dsr__buf_printf(&why, "expected %s, raised %s: %s", rai->valuestring, rep->kind,
                            rep->message);
        } else if (rai) {
            dsr__buf_printf(&why, "expected %s, returned a value", rai->valuestring);
        }
    }
    if (end == DSR_END_FAIL || end == DSR_END_ERROR) {
        if (end == DSR_END_ERROR || why.len)
            dsr__failure_say(f, "%s: %s", st->op, why.data ? why.data : "");
        dsr__failure_io(f, dsr__resolve(j->bindings, st->value),
                        rep->ok ? dsr__bounded_copy(rep->result) : error_json(rep));
    }
    dsr__buf_free(&why);
    return end;
}

dsr_end dsr__judge_step(dsr_judge *j, const dsr_step *st, const dsr_reply *rep, dsr_failure *f,
                        int *alt_held, bool *stop)
{
    j->io = DSR_END_OK;
    *stop = false;
    *alt_held = 0;
    if (!rep->ok && !strcmp(rep->origin, "protocol")) {
        dsr__failure_say(f, "the adapter reports a protocol error for %s: %s: %s", st->op,
                         rep->kind, rep->message);
        dsr__failure_io(f, st->value ? dsr__resolve(j->bindings, st->value) : NULL,
                        error_json(rep));
        return DSR_END_ERROR;
    }
    if (!rep->ok && strcmp(rep->origin, "library") && !strcmp(rep->kind, "NotImplementedError")) {
        /* origin "adapter": the adapter cannot express the op (a NULL slot, DS_NOT_IMPLEMENTED)
         * although the case's features are all claimed: the library lacks what the step needs,
         * named by the function the step calls or else its op; under a feature it did not
         * claim the runner makes it a skip (run.c; spec/decisions.md, Protocol and adapters
         * 26). */
        const cJSON *fn = cJSON_GetObjectItemCaseSensitive(st->args, "fn");
        const char *what = cJSON_IsString(fn) ? fn->valuestring : st->op;
        dsr__failure_say(f, "the adapter cannot express %s: %s: %s (origin %s)", st->op, rep->kind,
                         rep->message, rep->origin);
        dsr__failure_io(f, st->value ? dsr__resolve(j->bindings, st->value) : NULL,
                        error_json(rep));
        free(f->lacks);
        f->lacks = dsr__xstrdup(what);
        return DSR_END_LACKS;
    }
    if (!rep->ok && strcmp(rep->origin, "library")) {
        /* Any other error of the adapter's own (its slot's mistake, a limit): a failure. */
        dsr__failure_say(f, "the adapter failed %s: %s: %s (origin %s)", st->op, rep->kind,
                         rep->message, rep->origin);
        dsr__failure_io(f, st->value ? dsr__resolve(j->bindings, st->value) : NULL,
                        error_json(rep));
        return DSR_END_FAIL;
    }
    if (!rep->ok && rep->lacks) {
        /* The library lacks what the step needs: this never satisfies "raises" nor an either
         * alternative, whatever the kind (spec/decisions.md, Runner and reports 23). */
        dsr__failure_say(f, "the library lacks %s: %s raised %s: %s", rep->lacks, st->op, rep->kind,
                         rep->message);
        dsr__failure_io(f, st->value ? dsr__resolve(j->bindings, st->value) : NULL,
                        error_json(rep));
        free(f->lacks);
        f->lacks = dsr__xstrdup(rep->lacks);
        return DSR_END_LACKS;
    }
    switch (st->outcome) {
    case DSR_OUTCOME_EXPECT_RANKS:
        return judge_ranks(j, st, rep, f);
    case DSR_OUTCOME_NONE:
        if (rep->ok) return DSR_END_OK;
        dsr__failure_say(f, "%s raised %s: %s", st->op, rep->kind, rep->message);
        dsr__failure_io(f, cJSON_CreateString("success"), error_json(rep));
        return DSR_END_FAIL;
    case DSR_OUTCOME_RAISES: {
        const char *want = st->value->valuestring;
        if (rep->ok) {
            dsr__failure_say(f, "%s returned a value where %s was expected", st->op,
                             !strcmp(want, "any") ? "an error" : want);
            dsr__failure_io(f, cJSON_CreateString(want), dsr__bounded_copy(rep->result));
            return DSR_END_FAIL;
        }
        if (kind_matches(want, rep->kind)) return DSR_END_OK;
        dsr__failure_say(f, "%s raised %s where %s was expected: %s", st->op, rep->kind, want,
                         rep->message);
        dsr__failure_io(f, cJSON_CreateString(want), error_json(rep));
        return DSR_END_FAIL;
    }
    case DSR_OUTCOME_EXPECT:
    case DSR_OUTCOME_EITHER:
        return judge_alternatives(j, st, rep, f, alt_held, stop);
    }
    return DSR_END_ERROR;
}

void dsr__judge_held(dsr_result *res, const dsr_case *c, int s, const dsr_reply *rep, int alt,
                     bool stop)
{
    const dsr_step *st = &c->steps[s];
    if (!res->steps) res->steps = cJSON_CreateArray();
    /* One record per step of every case: constant keys, and the op and the outcome borrowed
     * (the case outlives its result; the kind is the reply's, so it is copied). */
    cJSON *h = cJSON_CreateObject();
    cJSON_AddItemToObjectCS(h, "op", cJSON_CreateStringReference(st->op));
    cJSON_AddItemToObjectCS(h, "outcome",
                            cJSON_CreateStringReference(rep->ok ? "returned" : "raised"));
    if (!rep->ok) cJSON_AddItemToObjectCS(h, "kind", cJSON_CreateString(rep->kind));
    if (alt) cJSON_AddNumberToObject(h, "alternative", alt);
    if (stop) cJSON_AddTrueToObject(h, "stop");
    cJSON_AddItemToArray(res->steps, h);
    if (!stop) return;
    const cJSON *a = cJSON_GetArrayItem(st->value, alt - 1);
    const cJSON *rai = cJSON_GetObjectItemCaseSensitive(a, "raises");
    dsr_buf why = {0};
    if (rep->ok)
        dsr__buf_puts(&why, "returned a value");
    else
        dsr__buf_printf(&why, "raised %s", rep->kind);
    dsr__buf_printf(&why, ": alternative %d of %d (%s%s, stop)", alt, cJSON_GetArraySize(st->value),
                    cJSON_IsString(rai) ? "raises " : "expect",
                    cJSON_IsString(rai) ? rai->valuestring : "");
    res->stopped_at = s;
    res->stop_reason = why.data;
}
