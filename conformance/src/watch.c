/* An in-process run, watched: the run is a child process and the runner waits for it.
 *
 * An in-process adapter is the runner's own code, so a library that aborts or faults takes
 * the run with it. The run therefore goes on in a child forked before the adapter starts
 * (everything it needs is loaded by then) and says, in a page shared with the parent, which
 * selected case it is running and where its journal is. A child that ends by a signal leaves
 * the journal without a footer: the parent reads it back, adds the running case as a crash
 * that names the signal, and writes the footer and the consolidated report, exit 3. One
 * fork per run; the cost is measured in spec/decisions.md, Runner and reports 42.
 *
 * The child has its own process group (a terminal's ^C reaches the parent alone, which hands
 * every SIGINT, SIGTERM and SIGHUP on, so the run's own first-and-second-signal rule holds),
 * and dies with the parent (Linux's parent-death signal). DEVSPEC_NO_WATCH=1 runs in the
 * runner's own process, for a debugger that does not follow forks. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "devspec.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

dsr_watch *dsr__watch;

static pid_t child = -1;

static void hand_on(int sig)
{
    if (child > 0) kill(child, sig);
}

static const char *sig_name(int sig)
{
    switch (sig) {
    case SIGABRT:
        return "SIGABRT";
    case SIGSEGV:
        return "SIGSEGV";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGILL:
        return "SIGILL";
    case SIGKILL:
        return "SIGKILL";
    case SIGTRAP:
        return "SIGTRAP";
    case SIGSYS:
        return "SIGSYS";
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    case SIGHUP:
        return "SIGHUP";
    default:
        return "a signal";
    }
}

int dsr__watch_begin(void)
{
    if (getenv("DEVSPEC_NO_WATCH") && !strcmp(getenv("DEVSPEC_NO_WATCH"), "1")) return -1;
    dsr_watch *w = mmap(NULL, sizeof *w, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (w == MAP_FAILED) return -1;
    memset(w, 0, sizeof *w);
    w->index = -1;
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        munmap(w, sizeof *w);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
        if (getppid() != parent) _exit(DSR_EXIT_INCOMPLETE);
        dsr__watch = w;
        return 0;
    }
    child = pid;
    dsr__watch = w;
    struct sigaction sa = {.sa_handler = hand_on};
    sigemptyset(&sa.sa_mask);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
    }
    return 1;
}

int dsr__watch_wait(int *sig)
{
    int st = 0;
    while (waitpid(child, &st, 0) < 0)
        if (errno != EINTR) return DSR_EXIT_INCOMPLETE;
    *sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : DSR_EXIT_INCOMPLETE;
}

/* The journal's lines, parsed; NULL entries for lines that do not parse (a line cut short). */
static cJSON **read_journal(const char *path, int *n)
{
    size_t len = 0;
    char *text = dsr__read_file(path, &len);
    *n = 0;
    if (!text) return NULL;
    cJSON **recs = NULL;
    for (char *p = text; p < text + len;) {
        char *nl = memchr(p, '\n', (size_t)(text + len - p));
        if (!nl) break; /* a line without its newline was cut short */
        *nl = '\0';
        recs = dsr__xrealloc(recs, sizeof *recs * (size_t)(*n + 1));
        recs[(*n)++] = cJSON_Parse(p);
        p = nl + 1;
    }
    free(text);
    return recs;
}

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The results the journal's records RECS[1..N) hold, in the order of the selection (one
 * worker), into RESULTS; each record, without its type, into CASES. Returns their number. */
static int journal_results(const dsr_watch_run *run, cJSON **recs, int n, dsr_result *results,
                           cJSON *cases)
{
    int nres = 0;
    for (int i = 1; i < n; i++) {
        const char *type = str_of(recs[i], "type");
        if (!type || strcmp(type, "case") || nres >= run->total) continue;
        dsr_result *res = &results[nres];
        memset(res, 0, sizeof *res);
        res->c = run->sel[nres];
        res->expectation = run->sel_exp[nres];
        res->basis = dsr__case_basis(run->reg, res->c, NULL);
        const char *st_name = str_of(recs[i], "status"),
                   *raw_name = str_of(recs[i], "observed_status");
        int st = dsr__status_parse(st_name ? st_name : "");
        int raw = dsr__status_parse(raw_name ? raw_name : "");
        res->status = st < 0 ? DSR_ERROR : (dsr_status)st;
        res->raw_status = raw < 0 ? res->status : (dsr_status)raw;
        const char *src = str_of(recs[i], "skip_source");
        res->skip_source = src ? dsr__xstrdup(src) : NULL;
        res->step = res->stopped_at = -1;
        nres++;
        cJSON *c = cJSON_Duplicate(recs[i], true);
        cJSON_DeleteItemFromObject(c, "type");
        cJSON_AddItemToArray(cases, c);
    }
    return nres;
}

/* The journal at W gets CRASH (may be NULL) and FOOTER; the consolidated report, HEADER,
 * CASES (taken) and FOOTER, is written atomically. False when either could not be. */
static bool write_reports(const dsr_watch *w, const cJSON *header, cJSON *cases, cJSON *crash,
                          const cJSON *footer)
{
    bool ok = true;
    FILE *j = fopen(w->jsonl, "a");
    if (j) {
        char *a = crash ? dsr__print(crash, false) : NULL;
        char *b = dsr__print(footer, false);
        if (a) fprintf(j, "%s\n", a);
        fprintf(j, "%s\n", b);
        cJSON_free(a);
        cJSON_free(b);
        ok = fclose(j) == 0;
    } else {
        ok = false;
    }
    if (crash) {
        cJSON *c = cJSON_Duplicate(crash, true);
        cJSON_DeleteItemFromObject(c, "type");
        cJSON_AddItemToArray(cases, c);
    }
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "type", "devspec-report");
    cJSON_AddNumberToObject(doc, "report_version", DSR_REPORT_VERSION);
    cJSON *h = cJSON_Duplicate(header, true);
    cJSON_DeleteItemFromObject(h, "type");
    cJSON_AddItemToObject(doc, "header", h);
    cJSON_AddItemToObject(doc, "cases", cases);
    dsr__repro_annotate(cases, h, w->report);
    cJSON *f = cJSON_Duplicate(footer, true);
    cJSON_DeleteItemFromObject(f, "type");
    cJSON_AddItemToObject(doc, "footer", f);
    char *text = dsr__print(doc, true);
    dsr_buf out = {0};
    dsr__buf_printf(&out, "%s\n", text);
    cJSON_free(text);
    if (w->report[0] && dsr__write_file_atomic(w->report, out.data, out.len) != 0) ok = false;
    dsr__buf_free(&out);
    cJSON_Delete(doc);
    return ok;
}

int dsr__watch_recover(const dsr_watch_run *run, int sig, double elapsed)
{
    const char *name = sig_name(sig);
    dsr_watch *w = dsr__watch;
    if (!w->jsonl[0]) {
        fprintf(stderr,
                "devspec: the library ended the process (%s) before any case ran (in process, "
                "while the adapter started); no report was written\n",
                name);
        return DSR_EXIT_INCOMPLETE;
    }
    int n = 0;
    cJSON **recs = read_journal(w->jsonl, &n);
    const cJSON *header = n > 0 ? recs[0] : NULL;
    if (!header || strcmp(str_of(header, "type") ? str_of(header, "type") : "", "header")) {
        fprintf(stderr,
                "devspec: the library ended the process (%s); its journal %s cannot be "
                "read back, so no report was written\n",
                name, w->jsonl);
        for (int i = 0; i < n; i++)
            cJSON_Delete(recs[i]);
        free(recs);
        return DSR_EXIT_INCOMPLETE;
    }
    dsr_result *results = dsr__xmalloc(sizeof *results * (size_t)(n + 1));
    cJSON *cases = cJSON_CreateArray();
    int nres = journal_results(run, recs, n, results, cases);
    int at = w->index;
    dsr_buf why = {0}, reason = {0};
    cJSON *crash_rec = NULL;
    if (at >= 0 && at == nres && at < run->total) {
        dsr_result *res = &results[nres++];
        memset(res, 0, sizeof *res);
        res->c = run->sel[at];
        res->expectation = run->sel_exp[at];
        res->basis = dsr__case_basis(run->reg, res->c, NULL);
        res->status = res->raw_status = DSR_CRASH;
        res->step = res->stopped_at = -1;
        dsr__buf_printf(&reason,
                        "the library ended the process (%s) during this case; in process the run "
                        "cannot go on past it",
                        name);
        res->reason = reason.data;
        dsr__expectation_apply(res);
        crash_rec = dsr__report_case(res);
        dsr__buf_printf(&why, "the library ended the process (%s) during case %s (in process)",
                        name, res->c->id);
    } else {
        dsr__buf_printf(&why, "the library ended the process (%s) between cases (in process)",
                        name);
    }
    cJSON *hello = cJSON_CreateObject();
    const cJSON *fc = cJSON_GetObjectItemCaseSensitive(header, "features_claimed");
    cJSON_AddItemToObject(hello, "features", fc ? cJSON_Duplicate(fc, true) : cJSON_CreateArray());
    const cJSON *lib = cJSON_GetObjectItemCaseSensitive(header, "library");
    if (lib) cJSON_AddItemToObject(hello, "library", cJSON_Duplicate(lib, true));
    dsr_run_state s = {.o = run->o,
                       .reg = run->reg,
                       .suite = run->suite,
                       .ex = run->ex,
                       .hello = hello,
                       .results = results,
                       .nresults = nres,
                       .complete = false,
                       .why_incomplete = why.data};
    int gate = 0;
    cJSON *footer = dsr__report_footer(&s, false, elapsed, &gate);

    bool ok = write_reports(w, header, cases, crash_rec, footer);
    fprintf(stderr, "devspec: %s; the run ends there (exit 3). %s%s%s%s\n", why.data,
            ok ? "report: " : "the report could not be written: ", w->report,
            ok ? " (the case is recorded as a crash)" : "",
            run->o->junit ? "; --junit was not written" : "");
    cJSON_Delete(crash_rec);
    cJSON_Delete(footer);
    cJSON_Delete(hello);
    for (int i = 0; i < nres; i++)
        free(results[i].skip_source);
    free(results);
    dsr__buf_free(&why);
    dsr__buf_free(&reason);
    for (int i = 0; i < n; i++)
        cJSON_Delete(recs[i]);
    free(recs);
    return DSR_EXIT_INCOMPLETE;
}
