/* devspec probe: a spec author's loop in one command. The case files given are checked
 * once, run against every adapter of adapters/adapters.json (or those named) as separate
 * `devspec run` processes, a few at a time, and the reports compared side by side, with what
 * each library returned for every step that did not hold.
 *
 * Each run is this same binary (/proc/self/exe) with `run --adapter NAME`, so a probe
 * behaves exactly as the runs a user would type: the adapter's expectations file applies
 * (its skip entries keep a hanging case away), isolation, timeouts and reports are the
 * usual ones. */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/wait.h>
#include <unistd.h>

static int usage(const char *fmt, const char *arg)
{
    return dsr__usage_error("probe", fmt, arg);
}

/* Runs ARGV with stdout and stderr to LOG (NULL: stdout to stderr, which stays, so that
 * stdout holds only the comparison); returns the child's pid or -1. */
static pid_t spawn(const char *self, char **argv, const char *log)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) return pid;
#ifdef __linux__
    /* A probe killed outright stops its runs as an interrupt would: each finishes its
     * report as interrupted and takes its workers with it. */
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(127);
#endif
    if (!log) dup2(2, 1);
    if (log) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
    }
    execv(self, argv);
    fprintf(stderr, "devspec: probe: cannot run %s: %s\n", self, dsr__strerror(errno));
    _exit(127);
}

/* The file name of an adapter's report: its name, or for a path the base name without its
 * extension (the label `devspec run` gives it). */
static char *report_name(const char *adapter)
{
    const char *base = strrchr(adapter, '/') ? strrchr(adapter, '/') + 1 : adapter;
    char *n = dsr__xstrdup(base);
    char *dot = strrchr(n, '.');
    if (dot && dot != n && strchr(adapter, '/')) *dot = '\0';
    return n;
}

/* Each adapter's file name: report_name, and for a name met before "-2", "-3", ... so that
 * two adapters of one base name (a/x.py, b/x.py) never share a report. */
static char **unique_names(const dsr_strlist *adapters)
{
    char **names = dsr__xmalloc(sizeof *names * (size_t)(adapters->n + 1));
    dsr_strmap seen = {0};
    for (int i = 0; i < adapters->n; i++) {
        char *base = report_name(adapters->items[i]);
        char *name = dsr__xstrdup(base);
        for (int k = 2; dsr__strmap_put(&seen, name, i) >= 0; k++) {
            dsr_buf b = {0};
            dsr__buf_printf(&b, "%s-%d", base, k);
            free(name);
            name = b.data;
        }
        free(base);
        names[i] = name;
    }
    dsr__strmap_free(&seen, false);
    return names;
}

/* What the probe and its runs read, none of which an output may replace: the case files and
 * folders, the spec folder, the adapters files (the suite's and DEVSPEC_ADAPTERS's), and what
 * each adapter named is made of (as devspec run counts it). */
static void probe_inputs(const dsr_strlist *files, const char *spec, const dsr_strlist *adapters,
                         const char *source, const char *build, dsr_inputs *in)
{
    for (int k = 0; k < files->n; k++)
        dsr__inputs_add_tree(in, files->items[k], "case");
    dsr_buf b = {0};
    if (spec)
        dsr__buf_puts(&b, spec);
    else
        dsr__buf_printf(&b, "%s/spec", source);
    dsr__inputs_add_tree(in, b.data, "spec");
    b.len = 0;
    dsr__buf_printf(&b, "%s/adapters/adapters.json", source);
    dsr__inputs_add(in, b.data, "adapters");
    dsr_strlist own = {0};
    const char *env = getenv("DEVSPEC_ADAPTERS");
    for (const char *p = env; p && *p;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        b.len = 0;
        dsr__buf_printf(&b, "%.*s", (int)len, p);
        if (len) {
            dsr__inputs_add(in, b.data, "adapters");
            dsr__strlist_add(&own, b.data);
        }
        p += len + (colon ? 1 : 0);
    }
    dsr__named_adapter_files(own.items, own.n);
    for (int i = 0; i < adapters->n; i++) {
        const char *x = adapters->items[i];
        size_t n = strlen(x);
        dsr_named_adapter named = {0};
        if (!strncmp(x, "python:", 7)) {
            b.len = 0;
            dsr__buf_printf(&b, "%s/adapters/python", source);
            dsr__inputs_add_tree(in, b.data, "Python adapter");
        } else if (n > 3 && !strcmp(x + n - 3, ".so"))
            dsr__inputs_add(in, x, "in-process adapter");
        else if (strchr(x, '/'))
            dsr__inputs_add(in, x, "adapter program");
        else if (dsr__named_adapter_find(source, build, x, &named) == 0)
            dsr__named_adapter_inputs(&named, in);
        dsr__named_adapter_free(&named);
    }
    dsr__named_adapter_files(NULL, 0);
    dsr__strlist_free(&own);
    dsr__buf_free(&b);
}

/* Refuses outputs that are inputs (probe_inputs), or another output. Returns 0 or
 * DSR_EXIT_USAGE (said on stderr). */
static int check_outputs(const dsr_inputs *in, const dsr_strlist *outputs)
{
    for (int i = 0; i < outputs->n; i++) {
        const char *o = outputs->items[i];
        if (dsr__check_output("probe", o, "the output", in) != 0) {
            fprintf(stderr, "devspec: probe: choose another --out or --html\n");
            return DSR_EXIT_USAGE;
        }
        for (int k = 0; k < i; k++)
            if (dsr__same_file(o, outputs->items[k])) {
                fprintf(stderr, "devspec: probe: two outputs are one file: %s and %s\n",
                        outputs->items[k], o);
                return DSR_EXIT_USAGE;
            }
    }
    return 0;
}

static int wait_status(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return 127;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* "--spec SPEC" (when given) and "--cases FILE" for each case file, onto a child's argv. */
static void add_spec_and_cases(dsr_strlist *v, const char *spec, const dsr_strlist *files)
{
    if (spec) {
        dsr__strlist_add(v, "--spec");
        dsr__strlist_add(v, spec);
    }
    for (int i = 0; i < files->n; i++) {
        dsr__strlist_add(v, "--cases");
        dsr__strlist_add(v, files->items[i]);
    }
}

/* The names of adapters/adapters.json, in its order. */
static int adapter_names(const char *source, dsr_strlist *out)
{
    dsr_buf p = {0};
    dsr__buf_printf(&p, "%s/adapters/adapters.json", source);
    size_t len;
    char *text = dsr__read_file(p.data, &len);
    if (!text) {
        fprintf(stderr, "devspec: probe: cannot read %s: %s\n", p.data, dsr__strerror(errno));
        dsr__buf_free(&p);
        return -1;
    }
    cJSON *doc = dsj_parse(text, len, NULL);
    free(text);
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(doc, "adapters"))
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(a, "name");
        if (cJSON_IsString(n)) dsr__strlist_add(out, n->valuestring);
    }
    cJSON_Delete(doc);
    if (out->n == 0) fprintf(stderr, "devspec: probe: %s names no adapter\n", p.data);
    dsr__buf_free(&p);
    return out->n ? 0 : -1;
}

/* What the command line asks of probe. */
typedef struct probe_args {
    dsr_strlist files, adapters, pass;
    const char *out, *html, *spec;
    double timeout; /* -1: not given */
    int jobs;
} probe_args;

#define ARG(field) offsetof(probe_args, field)
#define OPT(name, kind, field, usage, help)                                                        \
    {                                                                                              \
        name, DSR_OPT_##kind, ARG(field), usage, help, NULL, 0, 0                                  \
    }

static const dsr_option PROBE_OPTIONS[] = {
    OPT("--adapter", LIST, adapters, "--adapter NAME",
        "an adapter, as devspec run takes it (repeatable; default\n"
        "every adapter of adapters.json)"),
    OPT("--out", STRING, out, "--out DIR",
        "the reports, logs and index.html (default reports/runs/probe)"),
    OPT("--html", STRING, html, "--html PATH", "the page (default OUT/index.html)"),
    OPT("--timeout", SECONDS, timeout, "--timeout SECONDS",
        "per case, as devspec run takes it (0 to 1e6)"),
    {"--jobs", DSR_OPT_COUNT, ARG(jobs), "--jobs N",
     "runs at a time, 1..64 (default the number of cores)", NULL, 1, 64},
    OPT("--spec", STRING, spec, "--spec DIR", "the spec directory (default: the suite's spec/)"),
    /* The comparison's options, handed to compare. */
    OPT("--by", PASS, pass, "--by statement|case|feature",
        "the table's rows, as compare takes it (default case,\n"
        "with --details)"),
    OPT("--status", PASS, pass, "--status S", "as compare takes it"),
    OPT("--library", PASS, pass, "--library LABEL", "as compare takes it"),
    OPT("--disagree", PASS_FLAG, pass, "--disagree", "as compare takes it"),
    OPT("--json", PASS_FLAG, pass, "--json", "as compare takes it"),
    OPT("--plain", PASS_FLAG, pass, "--plain / --color", "as compare takes them"),
    OPT("--color", PASS_FLAG, pass, NULL, NULL),
    OPT("--help", HELP, pass, "--help", "this help"),
    OPT("-h", HELP, pass, NULL, NULL),
};

#undef OPT
#undef ARG

static const dsr_command PROBE_COMMAND = {
    "probe",
    PROBE_OPTIONS,
    sizeof PROBE_OPTIONS / sizeof PROBE_OPTIONS[0],
    "FILE|DIR",
    offsetof(probe_args, files),
    0,
    "usage: devspec probe FILE|DIR... [--adapter NAME]... [OPTIONS]\n"
    "\n"
    "Runs the case files against every adapter of adapters/adapters.json (or those named),\n"
    "then compares the reports, one row per case with what each library returned.\n"
    "\n"
    "probe options:\n",
    "\n"
    "Exit status: 0 when every run completed (whatever the libraries did), 2 invalid case\n"
    "files, 3 an adapter could not start or a run stopped.\n"};

/* A probe under way: what the command line asked, and what it worked out from that. */
typedef struct probe {
    probe_args a;
    long jobs;       /* runs at a time */
    char self[4096]; /* this program, which each run is */
    char **names;    /* each adapter's report name (unique_names) */
    dsr_buf page;    /* the page's path */
    long concurrent; /* runs at once */
    long per_run;    /* --jobs of each run */
    char per_run_text[24];
    int *log_locks; /* the lock of each run's log, held until the probe ends (-1: none) */
} probe;

/* Each run's log is locked for the whole probe, as a run's report is: a second probe into
 * the same --out is refused before it touches the logs, naming the first, instead of
 * truncating the first one's logs and pointing at them for its own refusal. */
static int lock_logs(probe *p)
{
    int n = p->a.adapters.n;
    p->log_locks = dsr__xmalloc(sizeof *p->log_locks * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        p->log_locks[i] = -1;
    for (int i = 0; i < n; i++) {
        dsr_buf log = {0};
        dsr__buf_printf(&log, "%s/%s.log", p->a.out, p->names[i]);
        int got = dsr__output_lock(log.data, &p->log_locks[i]);
        if (got != 0) {
            long pid = got == 1 ? dsr__lock_holder(log.data) : -1;
            char by[40] = "";
            if (pid > 0) snprintf(by, sizeof by, " (process %ld)", pid);
            if (got == 1)
                fprintf(stderr,
                        "devspec: probe: another probe%s is writing %s (its log is locked); "
                        "give this probe another --out\n",
                        by, log.data);
            else
                fprintf(stderr, "devspec: probe: cannot write %s: %s\n", log.data,
                        dsr__strerror(errno));
            dsr__buf_free(&log);
            return DSR_EXIT_INCOMPLETE;
        }
        dsr__buf_free(&log);
    }
    return 0;
}

/* The checks before any adapter starts: case files given, this program found, the adapters
 * (adapters.json's when none is named), outputs that are no inputs, the case files valid,
 * the output folder made. Returns 0 or the exit status (said on stderr). */
static int prepare(probe *p, const char *source, const char *build, int rc)
{
    const probe_args *a = &p->a;
    if (!rc && a->files.n == 0)
        rc = usage("%s", "needs case files: devspec probe FILE|DIR... [--adapter NAME]...");
    p->jobs = a->jobs < 1 ? 1 : a->jobs;
    ssize_t sl = rc ? 0 : readlink("/proc/self/exe", p->self, sizeof p->self - 1);
    if (!rc && sl <= 0) {
        fprintf(stderr, "devspec: probe: cannot find its own program: %s\n", dsr__strerror(errno));
        rc = DSR_EXIT_INCOMPLETE;
    }
    if (!rc) p->self[sl] = '\0';
    if (!rc && a->adapters.n == 0 && adapter_names(source, &p->a.adapters) != 0)
        rc = DSR_EXIT_INCOMPLETE;
    p->names = unique_names(&a->adapters);
    if (a->html)
        dsr__buf_puts(&p->page, a->html);
    else
        dsr__buf_printf(&p->page, "%s/index.html", a->out);
    if (!rc) {
        dsr_strlist outputs = {0};
        for (int i = 0; i < a->adapters.n; i++) {
            dsr_buf b = {0};
            dsr__buf_printf(&b, "%s/%s.json", a->out, p->names[i]);
            dsr__strlist_add(&outputs, b.data);
            b.len = 0;
            dsr__buf_printf(&b, "%s/%s.log", a->out, p->names[i]);
            dsr__strlist_add(&outputs, b.data);
            dsr__buf_free(&b);
        }
        dsr__strlist_add(&outputs, p->page.data);
        dsr_inputs in = {0};
        probe_inputs(&a->files, a->spec, &a->adapters, source, build, &in);
        rc = check_outputs(&in, &outputs);
        dsr__inputs_free(&in);
        dsr__strlist_free(&outputs);
    }
    /* Each run has its own workers (--jobs): together no more than the cores. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    p->concurrent = p->jobs < a->adapters.n ? p->jobs : a->adapters.n;
    if (p->concurrent < 1) p->concurrent = 1;
    p->per_run = cores / p->concurrent > 0 ? cores / p->concurrent : 1;
    snprintf(p->per_run_text, sizeof p->per_run_text, "%ld", p->per_run);

    /* The case files are checked once, before any adapter starts. */
    if (!rc) {
        dsr_strlist v = {0};
        dsr__strlist_add(&v, "devspec");
        dsr__strlist_add(&v, "validate");
        add_spec_and_cases(&v, a->spec, &a->files);
        pid_t pid = spawn(p->self, v.items, NULL);
        int st = pid < 0 ? 127 : wait_status(pid);
        dsr__strlist_free(&v);
        if (st != 0) rc = DSR_EXIT_USAGE;
    }
    dsr_buf dirprobe = {0};
    dsr__buf_printf(&dirprobe, "%s/x", a->out);
    if (!rc && dsr__mkdir_parents(dirprobe.data) != 0) {
        fprintf(stderr, "devspec: probe: cannot create %s: %s\n", a->out, dsr__strerror(errno));
        rc = DSR_EXIT_INCOMPLETE;
    }
    dsr__buf_free(&dirprobe);
    if (!rc) rc = lock_logs(p);
    return rc;
}

/* Starts the run of adapter I: `devspec run` writing OUT/NAME.json, its output to
 * OUT/NAME.log. Returns its pid, or -1. */
static pid_t start_run(const probe *p, int i)
{
    const probe_args *a = &p->a;
    dsr_strlist v = {0};
    dsr_buf report = {0}, log = {0};
    dsr__buf_printf(&report, "%s/%s.json", a->out, p->names[i]);
    dsr__buf_printf(&log, "%s/%s.log", a->out, p->names[i]);
    dsr__strlist_add(&v, "devspec");
    dsr__strlist_add(&v, "run");
    dsr__strlist_add(&v, "--adapter");
    dsr__strlist_add(&v, a->adapters.items[i]);
    for (int k = 0; k < a->files.n; k++) {
        dsr__strlist_add(&v, "--cases");
        dsr__strlist_add(&v, a->files.items[k]);
    }
    dsr__strlist_add(&v, "--report");
    dsr__strlist_add(&v, report.data);
    dsr__strlist_add(&v, "--no-tap");
    dsr__strlist_add(&v, "--no-progress");
    dsr__strlist_add(&v, "--jobs");
    dsr__strlist_add(&v, p->per_run_text);
    if (a->spec) {
        dsr__strlist_add(&v, "--spec");
        dsr__strlist_add(&v, a->spec);
    }
    if (a->timeout >= 0) {
        /* checked as run checks it (a finite number from 0 to 1e6), once, before any run */
        char t[32];
        snprintf(t, sizeof t, "%.17g", a->timeout);
        dsr__strlist_add(&v, "--timeout");
        dsr__strlist_add(&v, t);
    }
    unlink(report.data);
    pid_t pid = spawn(p->self, v.items, log.data);
    dsr__strlist_free(&v);
    dsr__buf_free(&report);
    dsr__buf_free(&log);
    return pid;
}

/* The runs, JOBS at a time, each told as it ends. Returns the worst exit status of 2 and
 * over (0 when none). */
static int run_all(const probe *p)
{
    const dsr_strlist *adapters = &p->a.adapters;
    pid_t *pids = dsr__xmalloc(sizeof *pids * (size_t)(adapters->n + 1));
    double *started = dsr__xmalloc(sizeof *started * (size_t)(adapters->n + 1));
    int *codes = dsr__xmalloc(sizeof *codes * (size_t)(adapters->n + 1));
    int next = 0, running = 0, worst = 0;
    for (int i = 0; i < adapters->n; i++)
        pids[i] = 0;
    fprintf(stderr,
            "devspec: probe: the cases of %d path%s against %d adapter%s, %ld run%s at a "
            "time with --jobs %ld each\n",
            p->a.files.n, p->a.files.n == 1 ? "" : "s", adapters->n, adapters->n == 1 ? "" : "s",
            p->concurrent, p->concurrent == 1 ? "" : "s", p->per_run);
    while (next < adapters->n || running > 0) {
        while (next < adapters->n && running < p->jobs && !dsr__interrupted) {
            started[next] = dsr__now();
            pids[next] = start_run(p, next);
            if (pids[next] < 0) {
                codes[next] = 127;
                pids[next] = 0;
            } else
                running++;
            next++;
        }
        if (running == 0) break;
        int st;
        pid_t done = waitpid(-1, &st, 0);
        if (done < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < next; i++)
            if (pids[i] == done) {
                pids[i] = 0;
                running--;
                codes[i] = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                fprintf(stderr, "devspec: probe: %-18s exit %d in %.1f s%s\n", adapters->items[i],
                        codes[i], dsr__now() - started[i],
                        codes[i] >= DSR_EXIT_USAGE ? " (its log is beside its report)" : "");
                if (codes[i] >= DSR_EXIT_USAGE && codes[i] > worst) worst = codes[i];
            }
    }
    free(pids);
    free(started);
    free(codes);
    return worst;
}

/* The comparison of the reports there are, in the adapters' order. WORST is run_all's. */
static int compare_reports(const probe *p, const char *source, int worst)
{
    const probe_args *a = &p->a;
    dsr_strlist v = {0};
    dsr__strlist_add(&v, "compare");
    dsr__strlist_add(&v, "--by");
    dsr__strlist_add(&v, "case");
    dsr__strlist_add(&v, "--details");
    add_spec_and_cases(&v, a->spec, &a->files);
    dsr__strlist_add(&v, "--html");
    dsr__strlist_add(&v, p->page.data);
    for (int i = 0; i < a->pass.n; i++)
        dsr__strlist_add(&v, a->pass.items[i]);
    int reports = 0;
    for (int i = 0; i < a->adapters.n; i++) {
        dsr_buf report = {0};
        const char *rn = p->names[i];
        dsr__buf_printf(&report, "%s/%s.json", a->out, rn);
        if (access(report.data, R_OK) == 0) {
            dsr__strlist_add(&v, report.data);
            reports++;
        } else {
            fprintf(stderr, "devspec: probe: %s wrote no report (see %s/%s.log)\n",
                    a->adapters.items[i], a->out, rn);
            if (worst < DSR_EXIT_INCOMPLETE) worst = DSR_EXIT_INCOMPLETE;
        }
        dsr__buf_free(&report);
    }
    int rc = reports ? dsr__compare_main(v.n, v.items, source) : DSR_EXIT_INCOMPLETE;
    dsr__strlist_free(&v);
    /* An adapter that could not start or a run cut short is an exit status of 3; what the
     * libraries did is the table's business, not the exit status's. */
    if (!rc && worst >= DSR_EXIT_INCOMPLETE) rc = DSR_EXIT_INCOMPLETE;
    return rc;
}

int dsr__probe_main(int argc, char **argv, const char *source, const char *build)
{
    probe p = {.a = {.out = "reports/runs/probe",
                     .timeout = -1,
                     .jobs = (int)sysconf(_SC_NPROCESSORS_ONLN)}};
    int rc = dsr__options_parse(&PROBE_COMMAND, argc, argv, 1, &p.a);
    if (rc != DSR_OPT_HELP_SHOWN) {
        rc = prepare(&p, source, build, rc);
        int worst = rc ? 0 : run_all(&p);
        if (!rc && dsr__interrupted) rc = DSR_EXIT_INCOMPLETE;
        if (!rc) rc = compare_reports(&p, source, worst);
        for (int i = 0; p.log_locks && i < p.a.adapters.n; i++)
            if (p.log_locks[i] >= 0) close(p.log_locks[i]);
        free(p.log_locks);
        for (int i = 0; p.names && i < p.a.adapters.n; i++)
            free(p.names[i]);
        free(p.names);
    } else
        rc = 0;
    dsr__buf_free(&p.page);
    dsr__strlist_free(&p.a.files);
    dsr__strlist_free(&p.a.adapters);
    dsr__strlist_free(&p.a.pass);
    return rc;
}
