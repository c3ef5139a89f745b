/* A run, the scheduler: through the protocol client (client.c), run each selected case step
 * by step, each reply judged by judge_step.c, apply the expectations file, and report as it
 * goes (TAP on stdout, JSON Lines), then consolidate (the JSON report, JUnit XML) and compute
 * the gate.
 *
 * Crash attribution follows the journal rule: the runner knows which case it sent last, so
 * when the worker dies the case in flight is the one that crashed; a crash in the reset
 * before a case's first step is that case's too.
 *
 * A crash that an intermittent-crash entry of the expectations file covers (the case's own,
 * or, for a crash in the reset, that of the case the worker ran before) is run once more,
 * at once, on the fresh worker the crash already started; the second result is the case's,
 * and its record keeps the first (spec/decisions.md, Runner and reports 46). */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *signal_name(int sig);

/* --max-reruns counts the reruns of all the workers of a run together (--jobs N). */
static pthread_mutex_t rerun_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct runner {
    const dsr_options *o;
    const dsr_registry *reg;
    dsr_suite *suite;
    dsr_expectations *ex;
    dsr_client cl; /* the adapter */
    bool incomplete;
    bool interrupted;
    char why_incomplete[1200];
    cJSON *bindings;
    dsr_reporter *out[4]; /* the journal, TAP, JUnit, the summary: each hears every event */
    int nout;
    dsr_result *results;
    int nresults;
    dsr_failure f;         /* the failure of the last request or step, for the result */
    dsr_judge judge;       /* the case's bindings and device.equal, for judge_step.c */
    const char *unwritten; /* an output that could not be written before the end (--trace) */
    bool dtypes_asked;     /* info.dtypes was asked of every device (on the first case that
                            * makes a dtype) */
    unsigned dtypes[DSR_MAX_DEVICES]; /* what info.dtypes lists per device; all when unknown */
    const dsr_case *last; /* the case this worker process ran before, whose state the reset
                           * clears; NULL on a fresh worker */
    char death[128];      /* how it died, kept before the restart (dsr__adapter_death) */
    int death_signal;     /* and the signal that killed it, 0 for none */
    int *reruns;          /* shared by the workers of a run (--jobs N) */
} runner;

/* A request through the client; what it says of a failure becomes the case's. */
static dsr_end request(runner *r, const char *op, cJSON *args, dsr_reply *rep,
                       bool restart_on_error)
{
    dsr_end e = dsr__client_request(&r->cl, op, args, rep, restart_on_error);
    /* how the worker died, kept for a rerun's first_run before run_case restarts it */
    if (e == DSR_END_CRASH) {
        snprintf(r->death, sizeof r->death, "%s", dsr__adapter_death(r->cl.ad));
        r->death_signal = dsr__adapter_death_signal(r->cl.ad);
    }
    if (e != DSR_END_OK) {
        r->f.msg.len = 0;
        dsr__buf_puts(&r->f.msg, r->cl.msg.data ? r->cl.msg.data : "");
    }
    if (r->cl.violation) {
        cJSON_Delete(r->f.observed);
        r->f.observed = r->cl.violation;
        r->cl.violation = NULL;
    }
    return e;
}

/* A client that could not restart its worker leaves the run incomplete. */
static void sync_client(runner *r)
{
    if (r->cl.broken && !r->incomplete) {
        r->incomplete = true;
        memcpy(r->why_incomplete, r->cl.why_broken, sizeof r->why_incomplete);
    }
}

/* ---- what the judge asks the adapter ------------------------------------------------- */

/* device.equal for the judge (judge_step.c): 1, 0, or -1 with the reason in ERR; a request
 * that failed in transport leaves its end in the judge's io. */
static int device_equal(void *ctx, const char *a, const char *b, dsr_buf *err)
{
    runner *r = ctx;
    cJSON *args = cJSON_CreateObject();
    cJSON_AddStringToObject(args, "a", a);
    cJSON_AddStringToObject(args, "b", b);
    dsr_reply rep;
    dsr_end e = request(r, "device.equal", args, &rep, true);
    if (e != DSR_END_OK) {
        r->judge.io = e;
        dsr__buf_puts(err, r->f.msg.data);
        return -1;
    }
    int result;
    if (rep.ok && cJSON_IsBool(rep.result))
        result = cJSON_IsTrue(rep.result);
    else if (rep.ok) {
        dsr__buf_puts(err, "device.equal did not answer a boolean");
        result = -1;
    } else {
        dsr__buf_printf(err, "device.equal raised %s: %s", rep.kind, rep.message);
        result = -1;
    }
    cJSON_Delete(rep.doc);
    return result;
}

/* ---- one case ------------------------------------------------------------------------ */

static dsr_status end_status(dsr_end e)
{
    switch (e) {
    case DSR_END_OK:
        return DSR_PASS;
    case DSR_END_FAIL:
        return DSR_FAIL;
    case DSR_END_ERROR:
        return DSR_ERROR;
    case DSR_END_CRASH:
        return DSR_CRASH;
    case DSR_END_TIMEOUT:
        return DSR_TIMEOUT;
    case DSR_END_LACKS:
        return DSR_LACKS;
    case DSR_END_STOP:
        break;
    }
    return DSR_ERROR;
}

/* Returns false when the run must stop (interrupted). */
/* A step the library cannot do (lacking) that uses a feature it does not claim
 * (spec/step-features.json) makes the case a skip naming the feature, not a gap of what it
 * claims (spec/decisions.md, Protocol and adapters 24): true when RES became that skip. */
static bool skipped_unclaimed(runner *r, const dsr_case *c, dsr_result *res, int s)
{
    char unclaimed[128];
    if (!dsr__step_unclaimed(r->reg, &c->steps[s], r->cl.hello, unclaimed, sizeof unclaimed))
        return false;
    res->status = DSR_SKIP;
    res->step = -1;
    res->skip_source = dsr__xstrdup("unsupported");
    dsr_buf why = {0};
    dsr__buf_printf(&why, "unsupported: %s (step %d, %s: %s)", unclaimed, s, c->steps[s].op,
                    r->f.msg.data ? r->f.msg.data : "");
    res->reason = why.data;
    return true;
}

/* The reset before case C, whose requests have ids from BASE: C's first step goes out in the
 * same write (spec/protocol.md, "Transports"; its arguments name only devices, bound before),
 * and where the reset fails that step's reply is read and dropped. */
static dsr_end reset_before(runner *r, const dsr_case *c, long base)
{
    if (c->nsteps > 0)
        dsr__client_ahead(&r->cl, base + 1, c->steps[0].op,
                          c->steps[0].args ? dsr__resolve(r->bindings, c->steps[0].args) : NULL);
    dsr_reply rep;
    dsr_end end = request(r, "reset", NULL, &rep, true);
    if (end == DSR_END_OK && !rep.ok) {
        dsr__failure_say(&r->f, "reset before the case failed: %s: %s", rep.kind, rep.message);
        end = DSR_END_ERROR;
    }
    cJSON_Delete(rep.doc);
    if (end != DSR_END_OK) dsr__client_drop_ahead(&r->cl);
    return end;
}

/* The requests of the case at position INDEX of the selection have ids from
 * (INDEX + 1) << 20, the reset first: a report (its messages quote ids) is the same
 * whichever worker of --jobs N ran the case. */
static bool run_case(runner *r, const dsr_case *c, dsr_result *res, int index)
{
    long base = (long)(index + 1) << 20;
    r->cl.next_id = base;
    double t0 = dsr__now();
    r->cl.deadline = r->o->timeout > 0 ? t0 + r->o->timeout : 0;
    dsr__adapter_stderr_clear(r->cl.ad);
    r->f.msg.len = 0;
    dsr__failure_io(&r->f, NULL, NULL);
    cJSON_Delete(r->bindings);
    r->bindings = cJSON_CreateObject();
    r->judge = (dsr_judge){device_equal, r, r->bindings, DSR_END_OK};
    /* A case that reads elements back binds $D0, $D1, ... to the devices that hold data, in
     * the adapter's order; any other case binds every device. */
    for (int i = 0, k = 0; i < r->cl.ndevices; i++) {
        if (c->needs_data && r->cl.no_data[i]) continue;
        char name[4] = {'D', (char)('0' + k++), 0};
        cJSON_AddStringToObject(r->bindings, name, r->cl.devices[i]);
    }
    dsr_end end = DSR_END_OK;
    int failed_step = -1;
    if (r->cl.need_reset) end = reset_before(r, c, base);
    r->cl.need_reset = true;
    r->cl.next_id = base + 1;
    for (int s = 0; end == DSR_END_OK && s < c->nsteps; s++) {
        const dsr_step *st = &c->steps[s];
        /* The loader guarantees every reference is bound or a $Dn the case can have; a step
         * that went out with the reset has its arguments sent already. */
        cJSON *args =
            st->args && !(s == 0 && r->cl.ahead_sent) ? dsr__resolve(r->bindings, st->args) : NULL;
        dsr_reply rep;
        end = request(r, st->op, args, &rep, true);
        bool stop = false;
        if (end == DSR_END_OK) {
            int alt = 0;
            end = dsr__judge_step(&r->judge, st, &rep, &r->f, &alt, &stop);
            if (end == DSR_END_OK) dsr__judge_held(res, c, s, &rep, alt, stop);
            if (end == DSR_END_OK && st->as && !stop) {
                cJSON_DeleteItemFromObjectCaseSensitive(r->bindings, st->as);
                cJSON_AddItemToObject(r->bindings, st->as,
                                      rep.ok ? cJSON_Duplicate(rep.result, true)
                                             : cJSON_CreateNull());
            }
            cJSON_Delete(rep.doc);
        }
        if (end != DSR_END_OK) failed_step = s;
        if (stop) break; /* the alternative that held ends the case as a pass */
    }
    res->duration = dsr__now() - t0;
    if (end == DSR_END_STOP) {
        /* The case in flight is kept, as a skip that says so: it neither passed nor failed,
         * and the report shows where the run stopped. */
        r->interrupted = true;
        res->status = res->raw_status = DSR_SKIP;
        res->step = failed_step;
        res->skip_source = dsr__xstrdup("interrupted");
        dsr_buf why = {0};
        dsr__buf_printf(&why, "interrupted (%s)", signal_name(dsr__interrupted));
        if (failed_step >= 0)
            dsr__buf_printf(&why, " at step %d (%s)", failed_step, c->steps[failed_step].op);
        else
            dsr__buf_puts(&why, " before the case's first step");
        res->reason = why.data;
        sync_client(r);
        return false;
    }
    res->status = end_status(end);
    res->step = failed_step;
    if (end == DSR_END_LACKS && skipped_unclaimed(r, c, res, failed_step)) {
        sync_client(r);
        return !dsr__interrupted;
    }
    if (end == DSR_END_LACKS) {
        res->lacks = r->f.lacks;
        r->f.lacks = NULL;
    }
    if (end != DSR_END_OK) {
        res->reason = dsr__xstrdup(r->f.msg.data ? r->f.msg.data : "");
        res->expected = r->f.expected;
        res->observed = r->f.observed;
        r->f.expected = r->f.observed = NULL;
        dsr__bound_result(res); /* what a failed case keeps is bounded */
        const char *tail = dsr__adapter_stderr(r->cl.ad);
        if (tail[0]) res->stderr_tail = dsr__xstrdup(tail);
    }
    /* A lack is explained as a failure is: its values name devices too (test_failure_text) */
    if (end == DSR_END_FAIL || end == DSR_END_LACKS)
        dsr__explain_failure(&r->cl, c, r->bindings, res);
    if (end == DSR_END_CRASH || end == DSR_END_TIMEOUT) dsr__client_restart(&r->cl);
    sync_client(r);
    return !dsr__interrupted;
}

static void free_result(dsr_result *res);

/* The intermittent-crash entry that covers a crash of case C, whose expectation is X: C's
 * own, or, for a crash in the reset before C's first step, that of BEFORE (NULL for another
 * crash), the case whose state the reset cleared, since an asynchronous fault of its work
 * can strike there. NULL: none; in process, where no worker is left to run it again (the
 * status has no effect there); or a case whose entry expects a crash, which its crash
 * already is (a rerun could only make it an xpass, and would spend a restart and one of the
 * run's reruns on a known crash). */
static const dsr_expectation *rerun_entry(const runner *r, const dsr_case *c,
                                          const dsr_expectation *x, const dsr_case *before)
{
    if (dsr__adapter_in_process(r->cl.ad) || (x && x->status == DSR_CRASH)) return NULL;
    const dsr_expectation *e = dsr__expectations_intermittent(r->ex, c->id);
    if (!e && before) e = dsr__expectations_intermittent(r->ex, before->id);
    return e;
}

/* Takes one rerun of the run's --max-reruns: false when none is left. */
static bool take_rerun(runner *r)
{
    pthread_mutex_lock(&rerun_lock);
    bool left = *r->reruns < r->o->max_reruns;
    if (left) ++*r->reruns;
    pthread_mutex_unlock(&rerun_lock);
    return left;
}

/* Runs C into RES (run_case), and once more when it crashed where an intermittent-crash entry
 * covers it: on the fresh worker the crash started, at once, the second result being the
 * case's and the first kept in RES->first. A second crash is a crash. Past --max-reruns the
 * crash stands, and its reason says why it was not run again. */
static bool run_covered(runner *r, const dsr_case *c, dsr_result *res, int index)
{
    const dsr_case *before = r->cl.need_reset ? r->last : NULL; /* NULL: no reset before C */
    r->last = c;
    bool go = run_case(r, c, res, index);
    if (!go || res->status != DSR_CRASH) return go;
    r->last = NULL; /* the worker was restarted */
    /* The only request before the first step is the reset. */
    bool in_reset = before && res->step < 0;
    const dsr_expectation *x = rerun_entry(r, c, res->expectation, in_reset ? before : NULL);
    if (!x || r->incomplete) return go;
    if (!take_rerun(r)) {
        dsr_buf why = {0};
        dsr__buf_printf(&why,
                        "%s (not run again: the run's %d reruns after an intermittent crash "
                        "are spent, --max-reruns)",
                        res->reason ? res->reason : "", r->o->max_reruns);
        free(res->reason);
        res->reason = why.data;
        return go;
    }
    dsr_first_run *first = dsr__xmalloc(sizeof *first);
    *first = (dsr_first_run){.reason = res->reason,
                             .death = dsr__xstrdup(r->death),
                             .signal = r->death_signal,
                             .step = res->step,
                             .after = in_reset ? before->id : NULL,
                             .stderr_tail = res->stderr_tail,
                             .duration = res->duration,
                             .entry = x};
    res->reason = res->stderr_tail = NULL;
    dsr_result fresh = {.c = c, .basis = res->basis, .expectation = res->expectation};
    free_result(res);
    *res = fresh;
    res->step = -1;
    res->stopped_at = -1;
    r->last = c;
    go = run_case(r, c, res, index);
    res->first = first;
    return go;
}

/* ---- progress and expectations ---------------------------------------------------- */

static void progress(runner *r, int done, int total, const char *id)
{
    if (!r->o->progress) return;
    int fails = 0;
    for (int i = 0; i < r->nresults; i++)
        fails += dsr__status_unexpected(r->results[i].status);
    if (r->o->color && fails)
        fprintf(stderr, "\r\033[K[%d/%d] \033[31m%d unexpected\033[0m %s", done, total, fails, id);
    else
        fprintf(stderr, "\r\033[K[%d/%d] %d unexpected %s", done, total, fails, id);
    fflush(stderr);
}

/* Asks info.dtypes(device=D) of every device once, with ids below those of the case at
 * position INDEX: a device whose answer is not a list of names (NotImplementedError, say)
 * lists every dtype, so nothing skips for it. */
static void ask_dtypes(runner *r, int index)
{
    r->dtypes_asked = true;
    r->cl.next_id = ((long)(index + 1) << 20) - 64;
    for (int i = 0; i < r->cl.ndevices; i++) {
        r->dtypes[i] = ~0u;
        cJSON *args = cJSON_CreateObject();
        cJSON_AddStringToObject(args, "device", r->cl.devices[i]);
        dsr_reply rep;
        if (request(r, "info.dtypes", args, &rep, true) != DSR_END_OK) continue;
        if (rep.ok && cJSON_IsArray(rep.result)) {
            r->dtypes[i] = 0;
            const cJSON *d;
            cJSON_ArrayForEach(d, rep.result)
            {
                if (cJSON_IsString(d)) r->dtypes[i] |= dsr__dtype_bit(d->valuestring);
            }
        }
        cJSON_Delete(rep.doc);
    }
}

/* The library's name of the device HANDLE (hello's device_strs), else HANDLE. */
static const char *device_name(const runner *r, const char *handle)
{
    const cJSON *handles = cJSON_GetObjectItemCaseSensitive(r->cl.hello, "devices");
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(r->cl.hello, "device_strs");
    int i = 0;
    const cJSON *h;
    cJSON_ArrayForEach(h, handles)
    {
        const cJSON *n = cJSON_GetArrayItem(names, i++);
        if (cJSON_IsString(h) && !strcmp(h->valuestring, handle) && cJSON_IsString(n))
            return n->valuestring;
    }
    return handle;
}

/* Says in WHY the first dtype C makes on a device whose info.dtypes leaves it out; false
 * when there is none. $Dk is bound as run_case binds it. */
static bool dtype_missing(runner *r, const dsr_case *c, int index, dsr_buf *why)
{
    bool any = false;
    for (int k = 0; k < DSR_MAX_DEVICES; k++)
        any = any || c->dtypes_on[k];
    if (!any) return false;
    if (!r->dtypes_asked) ask_dtypes(r, index);
    for (int i = 0, k = 0; i < r->cl.ndevices && k < c->devices; i++) {
        if (c->needs_data && r->cl.no_data[i]) continue;
        unsigned lacking = c->dtypes_on[k] & ~r->dtypes[i];
        for (int b = 0; lacking && dsr__dtype_names[b]; b++)
            if (lacking & (1u << b)) {
                dsr__buf_printf(why,
                                "dtype: needs %s on $D%d (%s), which info.dtypes does not list",
                                dsr__dtype_names[b], k, device_name(r, r->cl.devices[i]));
                return true;
            }
        k++;
    }
    return false;
}

/* Runs case C (or skips it: a skip in the expectations file, a feature not claimed, too few
 * ranks or devices) into RES, and applies the expectations file. Returns false when the
 * run must stop; RES then holds nothing. */
static bool do_case(runner *r, const dsr_case *c, const dsr_expectation *x, dsr_result *res,
                    int index)
{
    memset(res, 0, sizeof *res);
    res->c = c;
    res->basis = dsr__case_basis(r->reg, c, NULL);
    res->step = -1;
    res->stopped_at = -1;
    res->expectation = x;
    const char *missing = NULL;
    for (int i = 0; i < c->nfeatures && !missing; i++)
        if (!dsr__claimed(r->cl.hello, c->features[i])) missing = c->features[i];
    const char *declared = missing ? NULL : dsr__declared_version(r->reg, r->cl.hello);
    const dsr_statement *beyond = dsr__case_beyond_version(r->reg, c, declared);
    dsr_buf why = {0};
    if (x && x->status == DSR_CRASH && r->o->skip_crashes) {
        /* An expected crash costs a restart of the adapter (of every rank, for an SPMD one):
         * left out when asked, and said (spec/decisions.md, Runner and reports 39). */
        res->status = DSR_SKIP;
        dsr__buf_printf(&why, "expected crash left out (--skip-expected-crashes): %s",
                        x->reason[0] ? x->reason : "the expectations file says it crashes");
        res->skip_source = dsr__xstrdup("expectations");
    } else if (x && x->status == DSR_SKIP) {
        res->status = DSR_SKIP;
        dsr__buf_printf(&why, "expectations file: %s", x->reason[0] ? x->reason : "skipped");
        res->skip_source = dsr__xstrdup("expectations");
    } else if (missing) {
        res->status = DSR_SKIP;
        dsr__buf_printf(&why, "unsupported: %s", missing);
        res->skip_source = dsr__xstrdup("unsupported");
    } else if (beyond) {
        /* The library declares a version of the standard that does not have what the case
         * checks (a function added later, scalars in functions before 2024.12): not run, so
         * not charged (spec/decisions.md, Runner and reports 36). */
        res->status = DSR_SKIP;
        dsr__buf_printf(&why, "version: the library declares array API %s; the case checks %s (",
                        declared, beyond->id);
        for (int i = 0; i < beyond->nversions; i++)
            dsr__buf_printf(&why, "%s%s", i ? ", " : "", beyond->versions[i]);
        dsr__buf_puts(&why, ")");
        res->skip_source = dsr__xstrdup("version");
    } else if (c->ranks > r->cl.nranks) {
        res->status = DSR_SKIP;
        dsr__buf_printf(&why, "needs %d ranks, adapter has %d", c->ranks, r->cl.nranks);
        res->skip_source = dsr__xstrdup("ranks");
    } else if (c->devices > r->cl.ndevices) {
        res->status = DSR_SKIP;
        dsr__buf_printf(&why, "needs %d devices, library has %d", c->devices, r->cl.ndevices);
        res->skip_source = dsr__xstrdup("devices");
    } else if (c->needs_data && (c->devices > r->cl.ndata || r->cl.no_data[0])) {
        res->status = DSR_SKIP;
        dsr__buf_printf(&why,
                        "needs %d devices that hold data, the default first (it reads elements "
                        "back); the library has %d of %d (hello's devices_without_data)",
                        c->devices, r->cl.no_data[0] ? 0 : r->cl.ndata, r->cl.ndevices);
        res->skip_source = dsr__xstrdup("devices");
    } else if (dtype_missing(r, c, index, &why)) {
        /* A dtype the library leaves out of info.dtypes for that device: not run, as a
         * feature it does not claim (spec/decisions.md, Runner and reports 44). */
        res->status = DSR_SKIP;
        res->skip_source = dsr__xstrdup("dtype");
    } else if (!run_covered(r, c, res, index)) {
        if (r->interrupted) return false; /* RES holds the interrupted case, as a skip */
    }
    if (why.data) res->reason = why.data;
    dsr__expectation_apply(res);
    return true;
}

/* Tells every reporter of a finished result, in suite order; flush_outputs sends it out. */
static void emit(runner *r, const dsr_result *res)
{
    r->nresults++;
    for (int i = 0; i < r->nout; i++)
        r->out[i]->case_done(r->out[i], res);
}

/* Sends out what the reporters hold of the results emitted so far (see dsr_reporter). */
static void flush_outputs(runner *r)
{
    for (int i = 0; i < r->nout; i++)
        if (r->out[i]->flush) r->out[i]->flush(r->out[i]);
}

static void free_result(dsr_result *res)
{
    if (res->first) {
        free(res->first->reason);
        free(res->first->death);
        free(res->first->stderr_tail);
        free(res->first);
    }
    free(res->reason);
    free(res->skip_source);
    free(res->stderr_tail);
    free(res->lacks);
    free(res->stop_reason);
    free(res->call);
    cJSON_Delete(res->devices);
    cJSON_Delete(res->expected);
    cJSON_Delete(res->observed);
    cJSON_Delete(res->steps);
    memset(res, 0, sizeof *res);
}

/* ---- --jobs N ------------------------------------------------------------------------ */

/* N workers take the cases in the order of dsr__schedule (schedule.c: the cases of one
 * group together), in runs that end where a group's piece ends, and at the end from each
 * other's runs (take_run); the main thread
 * writes each result when it and every one before it in the suite's order is done, so TAP,
 * the journal and the report are those of --jobs 1. Each worker is a runner of its own (its
 * adapter process, handles, bindings); they share the restart count.
 *
 * The main thread waits for one case, the next in suite order (p->want), and a worker wakes
 * it only when it has finished that case, when the run stops, or when a worker ends: the
 * workers finish cases in the schedule's order, far from the suite's, and a wake-up per case
 * found the awaited case not done most times. Woken, it writes every result done from there
 * on in one batch, and flushes TAP and the journal once per batch rather than per case. That
 * is as safe as per case here: --jobs N is out of process only, so a library's crash kills a
 * worker, never the runner, and what the batch wrote goes out before the next wait. With one
 * worker each case is flushed as it is written (run_cases): in process, what TAP and the
 * journal said so far must survive the library (watch.c reads the journal back). */
typedef struct pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const dsr_case **sel;
    const dsr_expectation **sel_exp;
    dsr_result *results;
    char *state;    /* per case: 0 waiting or running, 1 done, 2 abandoned */
    int *order;     /* the cases in the order they are taken (indexes into sel) */
    int *group_end; /* per place in order: where its group's piece ends */
    int *run_at;    /* per worker: the next place of the run it has taken */
    int *run_end;   /* per worker: where that run ends */
    int total, next, live, nworkers;
    int want; /* the case the main thread waits for: the next to write in suite order */
    bool stop;
} pool;

typedef struct worker {
    runner r;
    pool *p;
    int index;
    pthread_t thread;
    bool started;
    _Atomic int starting; /* its hello is in flight */
    _Atomic int given_up; /* the run gave its start up: every case was done */
} worker;

/* Gives worker SELF the next run of places in P's order, in p->run_at[SELF] and
 * p->run_end[SELF], under P's lock: an eighth of what is left per worker, so that the runs
 * shrink towards the end and no worker is left with a long tail while the others wait (guided
 * self-scheduling), and at most 64; then on to the end of the group's piece it stops in, so
 * that a library that compiles or caches per process (JAX's programs, tinygrad's kernels)
 * meets each group's programs in one worker. A piece can be a worker's share of the cases
 * (schedule.c), so when none are left the worker takes the back half of the places not yet
 * begun of the run that has most of them. An empty run: nothing is left to take. */
static void take_run(pool *p, int self)
{
    int left = p->total - p->next;
    int n = left / (8 * (p->live > 0 ? p->live : 1));
    if (n < 1) n = 1;
    if (n > 64) n = 64;
    if (n > left) n = left;
    if (n > 0) {
        p->run_at[self] = p->next;
        p->run_end[self] = p->group_end[p->next + n - 1];
        p->next = p->run_end[self];
        return;
    }
    int victim = -1, most = 1;
    for (int v = 0; v < p->nworkers; v++)
        if (p->run_end[v] - p->run_at[v] > most) {
            most = p->run_end[v] - p->run_at[v];
            victim = v;
        }
    if (victim < 0) return;
    p->run_at[self] = p->run_at[victim] + most / 2;
    p->run_end[self] = p->run_end[victim];
    p->run_end[victim] = p->run_at[self];
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    runner *r = &w->r;
    pool *p = w->p;
    if (!w->started) {
        char err[1024] = "";
        r->cl.deadline = 0;
        w->starting = 1;
        pthread_mutex_lock(&p->mu);
        bool done = p->stop; /* the cases may all be done before this worker begins */
        pthread_mutex_unlock(&p->mu);
        int rc = done ? -1 : dsr__client_start(&r->cl, err, sizeof err);
        w->starting = 0;
        if (rc != 0) {
            /* A start given up because every case was done is not worth a word. */
            if (!done && !w->given_up)
                fprintf(stderr, "devspec: worker %d could not start, the others go on: %s\n",
                        w->index + 1, err);
            dsr__adapter_kill(r->cl.ad);
            pthread_mutex_lock(&p->mu);
            p->live--;
            pthread_cond_broadcast(&p->cv);
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
    }
    /* The run of places this worker has taken: [p->run_at[self], p->run_end[self]), which
     * another worker may shorten from its end (take_run). */
    int self = w->index;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        if (p->run_at[self] >= p->run_end[self]) take_run(p, self);
        if (p->stop || p->run_at[self] >= p->run_end[self] || dsr__interrupted) {
            pthread_mutex_unlock(&p->mu);
            break;
        }
        int c = p->order[p->run_at[self]++];
        pthread_mutex_unlock(&p->mu);
        bool go = do_case(r, p->sel[c], p->sel_exp[c], &p->results[c], c);
        pthread_mutex_lock(&p->mu);
        p->state[c] = go ? 1 : r->interrupted ? 3 : 2;
        if (!go || r->incomplete) p->stop = true;
        if (c == p->want || p->stop) pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (!go || r->incomplete) break;
    }
    if (!r->interrupted && !dsr__interrupted) dsr__client_bye(&r->cl);
    dsr__adapter_stop(r->cl.ad, 2.0);
    pthread_mutex_lock(&p->mu);
    p->live--;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void free_worker_state(runner *w)
{
    dsr__client_free(&w->cl);
    cJSON_Delete(w->bindings);
    dsr__failure_free(&w->f);
}

/* JOBS workers of pool P: the first is R's own, already started (its state moves into the
 * thread and back), the others clients of R's adapter that must answer hello as R's did. */
static worker *make_workers(runner *r, pool *p, int jobs)
{
    worker *ws = dsr__xmalloc(sizeof(worker) * (size_t)jobs);
    memset(ws, 0, sizeof(worker) * (size_t)jobs);
    for (int k = 0; k < jobs; k++) {
        ws[k].p = p;
        ws[k].index = k;
        if (k == 0) {
            ws[k].r = *r;
            ws[k].started = true;
        } else {
            ws[k].r = (runner){
                .o = r->o, .reg = r->reg, .suite = r->suite, .ex = r->ex, .reruns = r->reruns};
            dsr__client_init(&ws[k].r.cl, dsr__adapter_clone(r->cl.ad), r->o, r->cl.restarts);
            ws[k].r.cl.reference = cJSON_Duplicate(r->cl.hello, true);
        }
    }
    return ws;
}

/* The main thread's part of run_parallel: each result of P, in suite order, once it and all
 * before it are done, in batches (see pool). */
static void write_results(runner *r, pool *p)
{
    int total = p->total;
    for (int i = 0; i < total;) {
        pthread_mutex_lock(&p->mu);
        p->want = i;
        while (p->state[i] == 0 && p->live > 0) {
            if (dsr__interrupted) p->stop = true;
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 100 * 1000 * 1000;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&p->cv, &p->mu, &ts);
        }
        /* The batch: every case done from I on; the interrupted case is the last one
         * reported. A case done stays so, and its result is the worker's no more. */
        int end = i, st = 0;
        while (end < total && st != 3 && ((st = p->state[end]) == 1 || st == 3))
            end++;
        pthread_mutex_unlock(&p->mu);
        if (end == i) break;
        for (; i < end; i++) {
            emit(r, &r->results[i]);
            if (i + 1 < end || st != 3)
                progress(r, i + 1, total, i + 1 < total ? p->sel[i + 1]->id : "");
        }
        flush_outputs(r);
        if (st == 3) break;
    }
}

/* Runs the TOTAL cases SEL on JOBS workers; the first is R's own, already started. Leaves
 * R's adapter stopped (the goodbye is said by each worker). */
static void run_parallel(runner *r, int jobs, const dsr_case **sel, const dsr_expectation **sel_exp,
                         int total)
{
    pool p = {.sel = sel, .sel_exp = sel_exp, .results = r->results, .total = total, .live = jobs};
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    p.state = dsr__xmalloc((size_t)total + 1);
    memset(p.state, 0, (size_t)total + 1);
    p.order = dsr__schedule(sel, total, jobs, &p.group_end);
    p.nworkers = jobs;
    p.run_at = dsr__xmalloc(sizeof(int) * (size_t)jobs);
    p.run_end = dsr__xmalloc(sizeof(int) * (size_t)jobs);
    memset(p.run_at, 0, sizeof(int) * (size_t)jobs);
    memset(p.run_end, 0, sizeof(int) * (size_t)jobs);
    worker *ws = make_workers(r, &p, jobs);
    /* SIGINT, SIGTERM and SIGHUP go to this thread, which watches dsr__interrupted for
     * all. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int created = 0;
    for (int k = 0; k < jobs; k++) {
        if (pthread_create(&ws[k].thread, NULL, worker_main, &ws[k]) != 0) {
            pthread_mutex_lock(&p.mu);
            p.live -= jobs - k;
            pthread_mutex_unlock(&p.mu);
            break;
        }
        created++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (created == 0) worker_main(&ws[0]); /* no thread at all: run here */

    write_results(r, &p);
    pthread_mutex_lock(&p.mu);
    p.stop = true;
    pthread_mutex_unlock(&p.mu);
    /* A worker still starting (its hello may take the whole --start-timeout) is not waited
     * for once the cases are done: its start is given up. */
    for (int k = 1; k < created; k++)
        if (ws[k].starting) {
            ws[k].given_up = 1;
            dsr__adapter_cancel(ws[k].r.cl.ad);
        }
    for (int k = 0; k < created; k++)
        pthread_join(ws[k].thread, NULL);
    /* Results past the first gap (a case abandoned or never run) are not reported. */
    for (int i = r->nresults; i < total; i++)
        if (p.state[i] == 1 || p.state[i] == 3) free_result(&r->results[i]);
    /* The first worker's state comes back to R; the others' is folded in and freed. */
    int nresults = r->nresults, restarts = *r->cl.restarts;
    *r = ws[0].r;
    *r->cl.restarts = restarts;
    r->nresults = nresults;
    for (int k = 1; k < jobs; k++) {
        runner *w = &ws[k].r;
        if (w->interrupted) r->interrupted = true;
        if (w->incomplete && !r->incomplete) {
            r->incomplete = true;
            memcpy(r->why_incomplete, w->why_incomplete, sizeof r->why_incomplete);
        }
        dsr__adapter_destroy(w->cl.ad);
        free_worker_state(w);
    }
    if (r->nresults < total && !r->incomplete && !r->interrupted && !dsr__interrupted) {
        r->incomplete = true;
        snprintf(r->why_incomplete, sizeof r->why_incomplete,
                 "no worker was left to run the remaining cases");
    }
    free(p.state);
    free(p.order);
    free(p.group_end);
    free(p.run_at);
    free(p.run_end);
    free(ws);
    pthread_cond_destroy(&p.cv);
    pthread_mutex_destroy(&p.mu);
}

/* What the report needs to know of the run. */
static dsr_run_state state(const runner *r)
{
    return (dsr_run_state){.o = r->o,
                           .reg = r->reg,
                           .suite = r->suite,
                           .ex = r->ex,
                           .hello = r->cl.hello,
                           .devices = r->cl.devices,
                           .ndevices = r->cl.ndevices,
                           .results = r->results,
                           .nresults = r->nresults,
                           .restarts = *r->cl.restarts,
                           .interrupted = r->interrupted,
                           .complete = !r->incomplete,
                           .why_incomplete = r->why_incomplete};
}

static const char *signal_name(int sig)
{
    return sig == SIGTERM  ? "SIGTERM"
           : sig == SIGINT ? "SIGINT"
           : sig == SIGHUP ? "SIGHUP"
                           : "a signal";
}

/* The run's outputs, in the order each event reaches them: the journal first (it may find
 * its report taken by another run), the summary last. TAP writes its version line now. */
static void open_reporters(runner *r)
{
    const dsr_options *o = r->o;
    dsr_reporter *journal = dsr__journal_reporter();
    r->out[r->nout++] = journal;
    if (o->tap) r->out[r->nout++] = dsr__tap_reporter(stdout, o->tap_version == 14 ? 14 : 13);
    if (o->junit) r->out[r->nout++] = dsr__junit_reporter(o->junit, o->strict);
    r->out[r->nout++] = dsr__summary_reporter(o->tap ? stderr : stdout, journal);
}

/* The run begins (ADAPTER_ERROR: the adapter did not start). False when a reporter refuses:
 * another run writes this report, and nothing of this one may touch it. */
static bool begin(runner *r, const char *adapter_error)
{
    dsr_run_state s = state(r);
    cJSON *header = dsr__report_header(&s, adapter_error);
    bool go = true;
    for (int i = 0; i < r->nout && go; i++)
        go = r->out[i]->begin(r->out[i], &s, header, adapter_error);
    cJSON_Delete(header);
    if (!go) r->incomplete = true;
    return go;
}

/* The run is over: the footer to every reporter. Returns the exit status: the gate, or 3
 * when a file could not be written. */
static int end(runner *r, double t0)
{
    dsr_run_state s = state(r);
    double elapsed = dsr__now() - t0;
    int gate = 0;
    cJSON *footer = dsr__report_footer(&s, s.complete, elapsed, &gate);
    /* The journal (out[0]) and the summary (the last) hear the end after the others: a
     * JUnit file that could not be written turns the gate the journal records into the
     * exit status the process gives (3), never a footer saying 0. */
    bool written = !r->unwritten;
    if (r->unwritten) dsr__footer_write_failed(footer, r->unwritten);
    for (int i = 1; i < r->nout - 1; i++)
        if (!r->out[i]->end(r->out[i], &s, footer, elapsed)) {
            written = false;
            dsr__footer_write_failed(footer, r->o->junit ? r->o->junit : "an output");
        }
    written = r->out[0]->end(r->out[0], &s, footer, elapsed) && written;
    if (r->nout > 1)
        written = r->out[r->nout - 1]->end(r->out[r->nout - 1], &s, footer, elapsed) && written;
    cJSON_Delete(footer);
    return !written && gate == DSR_EXIT_OK ? DSR_EXIT_INCOMPLETE : gate;
}

/* The selected cases in suite order, each with the expectations entry that names it. */
static int select_cases(runner *r, const dsr_expectation **exp_of, const dsr_case **sel,
                        const dsr_expectation **sel_exp)
{
    int total = 0, ci = 0;
    for (int f = 0; f < r->suite->nfiles; f++)
        for (int k = 0; k < r->suite->files[f].ncases; k++, ci++)
            if (dsr__case_selected(r->o, r->reg, &r->suite->files[f].cases[k])) {
                sel[total] = &r->suite->files[f].cases[k];
                sel_exp[total++] = exp_of[ci];
            }
    return total;
}

/* Runs the selected cases: one worker in order, or --jobs N (out of process only, and one
 * worker for an SPMD adapter, whose ranks are already processes of their own). */
static void run_cases(runner *r, const dsr_expectation **exp_of)
{
    size_t n = (size_t)r->suite->ncases + 1;
    const dsr_case **sel = dsr__xmalloc(sizeof(void *) * n);
    const dsr_expectation **sel_exp = dsr__xmalloc(sizeof(void *) * n);
    int total = select_cases(r, exp_of, sel, sel_exp);
    const dsr_options *o = r->o;
    int reruns = 0;
    r->reruns = &reruns;
    int jobs = o->jobs > 1 && !dsr__adapter_in_process(r->cl.ad) && r->cl.nranks == 1 ? o->jobs : 1;
    if (jobs > total) jobs = total > 0 ? total : 1;
    if (jobs == 1) {
        for (int i = 0; i < total && !r->incomplete && !r->interrupted && !dsr__interrupted; i++) {
            progress(r, i, total, sel[i]->id);
            if (dsr__watch) {
                fflush(stdout); /* what TAP said so far survives the library */
                dsr__watch->index = i;
            }
            bool go = do_case(r, sel[i], sel_exp[i], &r->results[i], i);
            if (dsr__watch) dsr__watch->index = -1;
            if (go || r->interrupted) { /* the interrupted case too */
                emit(r, &r->results[i]);
                flush_outputs(r);
            }
            if (!go) break;
        }
    } else {
        run_parallel(r, jobs, sel, sel_exp, total);
    }
    free(sel);
    free(sel_exp);
    if (dsr__interrupted && !r->interrupted) r->interrupted = true;
    if (r->interrupted) {
        r->incomplete = true;
        snprintf(r->why_incomplete, sizeof r->why_incomplete, "interrupted (%s)",
                 signal_name(dsr__interrupted));
    }
    if (o->progress) fputs("\r\033[K", stderr);
    /* A polite goodbye, in both transports: an in-process adapter releases its library
     * here; a worker that does not leave is killed. */
    if (!r->interrupted && jobs == 1) dsr__client_bye(&r->cl);
    dsr__adapter_stop(r->cl.ad, 2.0);
}

/* The adapter did not start (ERR says why): the reports say so, and the run is incomplete. */
static void startup_failed(runner *r, const char *err, double t0)
{
    if (!r->interrupted) fprintf(stderr, "devspec: the adapter could not start: %s\n", err);
    r->incomplete = true;
    if (!begin(r, err)) return;
    if (r->interrupted)
        snprintf(r->why_incomplete, sizeof r->why_incomplete, "%s", err);
    else
        snprintf(r->why_incomplete, sizeof r->why_incomplete,
                 "no case ran: the adapter did not start: %s", err);
    end(r, t0);
    dsr__adapter_kill(r->cl.ad);
}

/* --junit and --trace are locked as the report's journal is (decisions, Runner and reports
 * 8): a second run given one of them while this one writes it is refused, exit 3, before it
 * starts its adapter or touches the file. LOCKS get the descriptors that hold the locks. */
static int lock_outputs(const dsr_options *o, int locks[2])
{
    const char *paths[] = {o->junit, o->trace};
    const char *what[] = {"--junit", "--trace"};
    for (int i = 0; i < 2; i++) {
        int rc = dsr__output_lock(paths[i], &locks[i]);
        long pid = rc == 1 ? dsr__lock_holder(paths[i]) : 0;
        char by[40] = "";
        if (pid > 0) snprintf(by, sizeof by, " (process %ld)", pid);
        if (rc == 1)
            fprintf(stderr,
                    "devspec: another run%s is writing %s %s (the file is locked); give this "
                    "run another %s\n",
                    by, what[i], paths[i], what[i]);
        else if (rc < 0)
            fprintf(stderr, "devspec: cannot write %s: %s\n", paths[i], dsr__strerror(errno));
        if (rc) {
            if (i && locks[0] >= 0) close(locks[0]);
            return DSR_EXIT_INCOMPLETE;
        }
    }
    return 0;
}

/* The watcher's part of an in-process run: waits for the run, and makes its report when the
 * library ended it. */
static int watch_run(const dsr_options *o, const dsr_registry *reg, dsr_suite *suite,
                     dsr_expectations *ex)
{
    double t0 = dsr__now();
    int sig = 0;
    int code = dsr__watch_wait(&sig);
    if (!sig) return code;
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
        /* the second signal that ends a run at once, handed on: this process ends too */
        signal(sig, SIG_DFL);
        raise(sig);
        return DSR_EXIT_INCOMPLETE;
    }
    runner R = {.o = o, .reg = reg, .suite = suite, .ex = ex};
    size_t n = (size_t)suite->ncases + 1;
    const dsr_expectation **exp_of = dsr__xmalloc(sizeof(void *) * n);
    const dsr_case **sel = dsr__xmalloc(sizeof(void *) * n);
    const dsr_expectation **sel_exp = dsr__xmalloc(sizeof(void *) * n);
    int ci = 0;
    for (int f = 0; f < suite->nfiles; f++)
        for (int k = 0; k < suite->files[f].ncases; k++)
            exp_of[ci++] = dsr__expectations_match(ex, suite->files[f].cases[k].id);
    int total = select_cases(&R, exp_of, sel, sel_exp);
    dsr_watch_run run = {o, reg, suite, ex, sel, sel_exp, total};
    code = dsr__watch_recover(&run, sig, dsr__now() - t0);
    free(exp_of);
    free(sel);
    free(sel_exp);
    return code;
}

int dsr__run(const dsr_options *o, const dsr_registry *reg, dsr_suite *suite, dsr_expectations *ex,
             dsr_adapter *ad)
{
    int locks[2] = {-1, -1};
    if (lock_outputs(o, locks) != 0) return DSR_EXIT_INCOMPLETE;
    /* In process, the run is a child the runner watches (watch.c; decisions, Runner and
     * reports 40): a library that aborts still leaves a report. */
    if (dsr__adapter_in_process(ad) && dsr__watch_begin() == 1) {
        int code = watch_run(o, reg, suite, ex);
        for (int i = 0; i < 2; i++)
            if (locks[i] >= 0) close(locks[i]);
        return code;
    }
    if (o->trace && dsr__client_trace_open(o->trace) != 0) {
        fprintf(stderr, "devspec: cannot write %s: %s\n", o->trace, dsr__strerror(errno));
        for (int i = 0; i < 2; i++)
            if (locks[i] >= 0) close(locks[i]);
        return DSR_EXIT_INCOMPLETE;
    }
    runner R = {.o = o, .reg = reg, .suite = suite, .ex = ex};
    runner *r = &R;
    dsr__client_init(&r->cl, ad, o, NULL);
    double t0 = dsr__now();
    open_reporters(r);
    r->results = dsr__xmalloc(sizeof(dsr_result) * (size_t)(suite->ncases + 1));

    /* Expectations are matched against every loaded case, so an entry is stale only when
     * it names nothing in the suite, not when a filter left its case out. */
    const dsr_expectation **exp_of = dsr__xmalloc(sizeof(void *) * (size_t)(suite->ncases + 1));
    int ci = 0;
    for (int f = 0; f < suite->nfiles; f++)
        for (int k = 0; k < suite->files[f].ncases; k++)
            exp_of[ci++] = dsr__expectations_match(ex, suite->files[f].cases[k].id);

    int code = DSR_EXIT_INCOMPLETE;
    char err[1024] = "";
    if (dsr__client_start(&r->cl, err, sizeof err) != 0) {
        if (dsr__interrupted) {
            /* a signal while the adapter starts is an interruption, not a failure to start */
            r->interrupted = true;
            snprintf(err, sizeof err, "interrupted (%s) while the adapter was starting",
                     signal_name(dsr__interrupted));
        }
        startup_failed(r, err, t0);
    } else if (!begin(r, NULL)) {
        dsr__adapter_kill(ad);
    } else {
        if (dsr__watch) {
            const char *report = NULL, *jsonl = NULL;
            bool written = false;
            dsr__journal_paths(r->out[0], &report, &jsonl, &written);
            snprintf(dsr__watch->report, sizeof dsr__watch->report, "%s", report ? report : "");
            snprintf(dsr__watch->jsonl, sizeof dsr__watch->jsonl, "%s", jsonl ? jsonl : "");
        }
        run_cases(r, exp_of);
        /* The adapter has stopped: the trace is whole, and is closed before the footer is
         * made, so that a trace that could not be written is in the gate it records. */
        if (!dsr__client_trace_close()) {
            fprintf(stderr, "devspec: cannot write %s: %s\n", o->trace, dsr__strerror(errno));
            r->unwritten = o->trace;
        }
        code = end(r, t0);
        if (r->incomplete) code = DSR_EXIT_INCOMPLETE;
    }

    if (!dsr__client_trace_close()) {
        fprintf(stderr, "devspec: cannot write %s: %s\n", o->trace, dsr__strerror(errno));
        if (code == DSR_EXIT_OK) code = DSR_EXIT_INCOMPLETE;
    }
    for (int i = 0; i < r->nresults; i++)
        free_result(&r->results[i]);
    free(r->results);
    free(exp_of);
    dsr__client_free(&r->cl);
    cJSON_Delete(r->bindings);
    dsr__failure_free(&r->f);
    for (int i = 0; i < r->nout; i++)
        r->out[i]->destroy(r->out[i]);
    for (int i = 0; i < 2; i++)
        if (locks[i] >= 0) close(locks[i]);
    return code;
}
