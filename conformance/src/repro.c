/* devspec repro: a reproducer for each failing case of a run, written from its JSON report.
 *
 * For a Python library (the report's adapter is devspec-python, or --adapter python:MODULE)
 * it runs adapters/python's devspec_py.repro with the interpreter the run used (the report's
 * adapter.python; --python overrides), which writes one standalone script per case: the
 * adapter knows how each op maps to library calls, so the translation lives beside it.
 *
 * For any other adapter (a C library behind devspec-adapter-host, an in-process shared
 * object) it runs each case again, alone, as this same binary (`run --case ID --jobs 1
 * --trace`), and keeps the requests of that run as DIR/ID.jsonl: fed to the adapter's own
 * program on standard input (`devspec-adapter-host ADAPTER.so < DIR/ID.jsonl`, the command it
 * prints), they replay the case without the runner, under the vendor's debugger. A case run
 * alone starts from a fresh session, so the handles in the requests are those the adapter
 * gives again (spec/decisions.md, "Reproducers"). */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The observed statuses that get a reproducer (the same list as devspec_py/repro.py's
 * REPRO_STATUSES): every verdict against the library a maintainer acts on, a known failure
 * (xfail, observed fail) included. */
static const char *const REPRO_STATUSES[] = {"fail", "error", "crash", "timeout", "lacks", NULL};

typedef struct repro_args {
    dsr_strlist reports, globs, cases;
    const char *out, *python, *adapter;
} repro_args;

#define ARG(field) offsetof(repro_args, field)
#define OPT(name, kind, field, usage, help)                                                        \
    {                                                                                              \
        name, DSR_OPT_##kind, ARG(field), usage, help, NULL, 0, 0                                  \
    }

static const dsr_option REPRO_OPTIONS[] = {
    OPT("--out", STRING, out, "--out DIR",
        "where the reproducers go (created; default: REPORT without\n"
        ".json, then -repro, the folder the report's reproducer.file\n"
        "names)"),
    OPT("--case", LIST, globs, "--case GLOB",
        "only the failing cases whose ID matches GLOB (repeatable)"),
    OPT("--python", STRING, python, "--python PATH",
        "the interpreter for a Python library's scripts (default:\n"
        "the run's, from the report; else python3)"),
    OPT("--adapter", STRING, adapter, "--adapter NAME|PATH.so",
        "for a C adapter: the adapter to run the cases with again\n"
        "(default: the report's)"),
    OPT("--cases", LIST, cases, "--cases FILE|DIR", "the case files (default: the report's)"),
    {"--help", DSR_OPT_HELP, 0, "--help", "this help", NULL, 0, 0},
    {"-h", DSR_OPT_HELP, 0, NULL, NULL, NULL, 0, 0},
};

static const dsr_command REPRO_COMMAND = {
    "repro",
    REPRO_OPTIONS,
    sizeof REPRO_OPTIONS / sizeof REPRO_OPTIONS[0],
    "REPORT.json",
    offsetof(repro_args, reports),
    0,
    "usage: devspec repro REPORT.json [--out DIR] [--case GLOB]...\n"
    "\n"
    "Writes a reproducer for each case of the report whose observed status is fail, error,\n"
    "crash, timeout or lacks (known failures included):\n"
    "- a Python library: DIR/<case id>.py, a standalone script that imports only the\n"
    "  library, binds the devices the run bound, performs the case's steps and asserts\n"
    "  each outcome, naming the statements; `python DIR/<case id>.py` fails as devspec\n"
    "  reported and passes once the library is fixed. A step with no plain-Python form\n"
    "  (refarray as a DLPack peer, default-device control) is said at the top, and the\n"
    "  script stops there with NotImplementedError;\n"
    "- any other adapter: DIR/<case id>.jsonl, the requests of the case run again alone;\n"
    "  the adapter's own program replays them without the runner (the command is printed:\n"
    "  devspec-adapter-host ADAPTER.so < DIR/<case id>.jsonl).\n"
    "\n"
    "options:\n",
    NULL};

static int usage(const char *fmt, const char *arg)
{
    return dsr__usage_error("repro", fmt, arg);
}

static const char *str_at(const cJSON *o, const char *a, const char *b)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b) v = cJSON_GetObjectItemCaseSensitive(v, b);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Runs ARGV (execvp: a bare name is looked up on PATH), stdout to OUT_FD when >= 0; returns
 * its exit status, 127 when it could not run. */
static int run_program(char **argv, int out_fd)
{
    pid_t pid = fork();
    if (pid < 0) return 127;
    if (pid == 0) {
        if (out_fd >= 0) dup2(out_fd, 1);
        execvp(argv[0], argv);
        fprintf(stderr, "devspec: repro: cannot run %s: %s\n", argv[0], dsr__strerror(errno));
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return 127;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* Whether hello came from the Python adapter (the report's header is written from it). */
static bool is_python_hello(const cJSON *hello)
{
    const char *name = str_at(hello, "adapter", "name");
    return name && !strcmp(name, "devspec-python");
}

static bool is_python(const cJSON *header)
{
    const char *name = str_at(header, "adapter", "name");
    const char *given = str_at(header, "adapter", "given");
    return (name && !strcmp(name, "devspec-python")) || (given && !strncmp(given, "python:", 7));
}

/* The scripts, written by devspec_py.repro under the run's interpreter. */
static int python_scripts(const repro_args *a, const cJSON *header, const char *source,
                          const char *build)
{
    const char *py = a->python ? a->python : str_at(header, "adapter", "python");
    if (!py) py = "python3";
    dsr_buf path = {0};
    dsr__buf_printf(&path, "%s/adapters/python", source);
    const char *old = getenv("PYTHONPATH");
    if (old && *old) dsr__buf_printf(&path, ":%s", old);
    setenv("PYTHONPATH", path.data, 1);
    dsr__buf_free(&path);
    dsr_strlist v = {0};
    const char *fixed[] = {py,      "-m",   "devspec_py.repro", "--report", a->reports.items[0],
                           "--out", a->out, "--source",         source};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        dsr__strlist_add(&v, fixed[i]);
    for (int i = 0; i < a->globs.n; i++) {
        dsr__strlist_add(&v, "--case");
        dsr__strlist_add(&v, a->globs.items[i]);
    }
    for (int i = 0; i < a->cases.n; i++) {
        dsr__strlist_add(&v, "--cases");
        dsr__strlist_add(&v, a->cases.items[i]);
    }
    /* A named adapter's environment (adapters.json's env: JAX's device count and 64-bit
     * types) is the library's configuration: the scripts set it before the import. */
    const char *given = str_at(header, "adapter", "given");
    dsr_named_adapter na;
    memset(&na, 0, sizeof na);
    if (given && !strchr(given, '/') && strncmp(given, "python:", 7) &&
        dsr__named_adapter_find(source, build, given, &na) == 0) {
        for (char **e = na.env; e && *e; e++) {
            dsr__strlist_add(&v, "--env");
            dsr__strlist_add(&v, *e);
        }
        dsr__named_adapter_free(&na);
    }
    int rc = run_program(v.items, -1);
    dsr__strlist_free(&v);
    if (rc == 127)
        fprintf(stderr,
                "devspec: repro: the interpreter %s could not run (--python PATH names "
                "another)\n",
                py);
    return rc == 0 ? 0 : rc == 2 ? DSR_EXIT_USAGE : DSR_EXIT_INCOMPLETE;
}

static bool selected(const cJSON *rec, const dsr_strlist *globs)
{
    const char *id = str_at(rec, "id", NULL);
    const char *st = str_at(rec, "observed_status", NULL);
    if (!st) st = str_at(rec, "status", NULL);
    if (!id || !st) return false;
    bool failing = false;
    for (int i = 0; REPRO_STATUSES[i]; i++)
        failing = failing || !strcmp(st, REPRO_STATUSES[i]);
    if (!failing) return false;
    if (globs->n == 0) return true;
    for (int i = 0; i < globs->n; i++)
        if (fnmatch(globs->items[i], id, 0) == 0) return true;
    return false;
}

/* TEXT with shell quotes where it needs them, added to B. */
static void shell_word(dsr_buf *b, const char *text)
{
    if (*text && strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                              "+-./:=_,@%") == strlen(text)) {
        dsr__buf_puts(b, text);
        return;
    }
    dsr__buf_puts(b, "'");
    for (const char *p = text; *p; p++)
        dsr__buf_puts(b, *p == '\'' ? "'\\''" : (char[]){*p, 0});
    dsr__buf_puts(b, "'");
}

/* The command that replays a file for ADAPTER: a named adapter's command, or the host
 * program with a shared object. */
static char *replay_command(const char *adapter, const char *source, const char *build)
{
    dsr_buf b = {0};
    dsr_named_adapter na;
    memset(&na, 0, sizeof na);
    if (!strchr(adapter, '/') && dsr__named_adapter_find(source, build, adapter, &na) == 0) {
        for (char **e = na.env; e && *e; e++) {
            shell_word(&b, *e);
            dsr__buf_puts(&b, " ");
        }
        for (char **w = na.command; w && *w; w++) {
            if (w != na.command) dsr__buf_puts(&b, " ");
            shell_word(&b, *w);
        }
        dsr__named_adapter_free(&na);
    } else {
        dsr__buf_printf(&b, "%s/adapters/host/devspec-adapter-host ", build);
        shell_word(&b, adapter);
    }
    return b.data;
}

/* The '> ' lines of the trace TRACE, without the prefix, as the replay file OUT. */
static int keep_requests(const char *trace, const char *out)
{
    size_t len = 0;
    char *text = dsr__read_file(trace, &len);
    if (!text) return -1;
    dsr_buf b = {0};
    for (char *line = text; line && *line;) {
        char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        if (n > 2 && line[0] == '>' && line[1] == ' ') {
            dsr__buf_add(&b, line + 2, n - 2);
            dsr__buf_puts(&b, "\n");
        }
        line = end ? end + 1 : NULL;
    }
    int rc = dsr__write_file_atomic(out, b.data ? b.data : "", b.len);
    dsr__buf_free(&b);
    free(text);
    return rc;
}

/* --adapter-cmd for what a run was given as a command line (words with spaces), else
 * --adapter. */
static const char *adapter_flag(const char *adapter)
{
    return strchr(adapter, ' ') ? "--adapter-cmd" : "--adapter";
}

/* The case ID run again alone with --trace; its requests kept as OUT/ID.jsonl. */
static int replay_one(const repro_args *a, const cJSON *header, const char *id, const char *adapter,
                      const char *self, const char *source)
{
    dsr_buf trace = {0}, report = {0}, file = {0};
    dsr__buf_printf(&trace, "%s/.%s.trace", a->out, id);
    dsr__buf_printf(&report, "%s/.%s.report.json", a->out, id);
    dsr__buf_printf(&file, "%s/%s.jsonl", a->out, id);
    dsr_strlist v = {0};
    const char *fixed[] = {self,
                           "run",
                           adapter_flag(adapter),
                           adapter,
                           "--case",
                           id,
                           "--jobs",
                           "1",
                           "--trace",
                           trace.data,
                           "--report",
                           report.data,
                           "--no-tap",
                           "--no-progress"};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        dsr__strlist_add(&v, fixed[i]);
    const char *adapters_file = str_at(header, "adapter", "adapters_file");
    if (adapters_file) {
        dsr__strlist_add(&v, "--adapters");
        dsr__strlist_add(&v, adapters_file);
    }
    if (a->cases.n)
        for (int i = 0; i < a->cases.n; i++) {
            dsr__strlist_add(&v, "--cases");
            dsr__strlist_add(&v, a->cases.items[i]);
        }
    else {
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(
                                  cJSON_GetObjectItemCaseSensitive(header, "config"), "cases"))
        {
            if (!cJSON_IsString(c)) continue;
            /* A relative path as the run was given it: from here, else from the source
             * tree (a run made in the checkout, reproduced elsewhere). */
            dsr_buf path = {0};
            if (c->valuestring[0] != '/' && access(c->valuestring, F_OK) != 0)
                dsr__buf_printf(&path, "%s/%s", source, c->valuestring);
            else
                dsr__buf_puts(&path, c->valuestring);
            dsr__strlist_add(&v, "--cases");
            dsr__strlist_add(&v, path.data);
            dsr__buf_free(&path);
        }
    }
    int devnull = open("/dev/null", O_WRONLY);
    int st = run_program(v.items, devnull);
    if (devnull >= 0) close(devnull);
    dsr__strlist_free(&v);
    int rc = 0;
    /* The run's status is the case's verdict (1 for a failure); only a run that could not
     * start or was cut short (2, 3, 127) has no trace to keep. */
    if (st > 1 || keep_requests(trace.data, file.data) != 0) {
        fprintf(stderr, "devspec: repro: %s: the case could not be run again (exit status %d)\n",
                id, st);
        rc = -1;
    } else
        printf("%s\n", file.data);
    unlink(trace.data);
    unlink(report.data);
    dsr_buf journal = {0};
    dsr__buf_printf(&journal, "%s/.%s.report.jsonl", a->out, id);
    unlink(journal.data);
    dsr__buf_free(&journal);
    dsr__buf_free(&trace);
    dsr__buf_free(&report);
    dsr__buf_free(&file);
    return rc;
}

/* Where `devspec repro REPORT` writes without --out: REPORT without .json, then "-repro". */
static char *default_out(const char *report)
{
    dsr_buf b = {0};
    size_t n = strlen(report);
    if (n > 5 && !strcmp(report + n - 5, ".json")) n -= 5;
    dsr__buf_add(&b, report, n);
    dsr__buf_puts(&b, "-repro");
    return b.data;
}

static bool failing_status(const char *st)
{
    for (int i = 0; st && REPRO_STATUSES[i]; i++)
        if (!strcmp(st, REPRO_STATUSES[i])) return true;
    return false;
}

bool dsr__repro_wanted(const char *observed)
{
    return failing_status(observed);
}

void dsr__repro_annotate(cJSON *cases, const cJSON *header, const char *report)
{
    char *out = default_out(report);
    const char *ext = is_python(header) ? ".py" : ".jsonl";
    cJSON *c;
    cJSON_ArrayForEach(c, cases)
    {
        const char *id = str_at(c, "id", NULL);
        if (!id || !failing_status(str_at(c, "observed_status", NULL))) continue;
        dsr_buf cmd = {0}, file = {0};
        dsr__buf_puts(&cmd, "devspec repro ");
        shell_word(&cmd, report);
        dsr__buf_printf(&cmd, " --case %s", id);
        dsr__buf_printf(&file, "%s/%s%s", out, id, ext);
        cJSON *r = cJSON_AddObjectToObject(c, "reproducer");
        cJSON_AddStringToObject(r, "command", cmd.data);
        cJSON_AddStringToObject(r, "file", file.data);
        dsr__buf_free(&cmd);
        dsr__buf_free(&file);
    }
    free(out);
}

void dsr__repro_summary(FILE *out, const dsr_run_state *r, const char *report)
{
    int n = 0;
    for (int i = 0; i < r->nresults; i++)
        n += failing_status(dsr__status_name(r->results[i].raw_status));
    if (!n || !report) return;
    char *dir = default_out(report);
    dsr_buf cmd = {0};
    shell_word(&cmd, report);
    fprintf(out,
            "reproducers: devspec repro %s writes %s/<case id>%s for each of the %d failure%s "
            "(known ones included; --case ID for one)\n",
            cmd.data, dir, r->hello && is_python_hello(r->hello) ? ".py" : ".jsonl", n,
            n == 1 ? "" : "s");
    dsr__buf_free(&cmd);
    free(dir);
}

/* The replay files of a C adapter's failing cases. */
static int replay_files(const repro_args *a, const cJSON *doc, const cJSON *header,
                        const char *source, const char *build)
{
    const char *adapter = a->adapter ? a->adapter : str_at(header, "adapter", "given");
    if (!adapter || !*adapter) {
        fprintf(stderr, "devspec: repro: the report names no adapter; give --adapter\n");
        return DSR_EXIT_USAGE;
    }
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0) {
        fprintf(stderr, "devspec: repro: cannot find its own program: %s\n", dsr__strerror(errno));
        return DSR_EXIT_INCOMPLETE;
    }
    self[sl] = '\0';
    int written = 0, failed = 0;
    const cJSON *rec;
    cJSON_ArrayForEach(rec, cJSON_GetObjectItemCaseSensitive(doc, "cases"))
    {
        if (!selected(rec, &a->globs)) continue;
        if (replay_one(a, header, str_at(rec, "id", NULL), adapter, self, source) == 0)
            written++;
        else
            failed++;
    }
    char *cmd = replay_command(adapter, source, build);
    fprintf(stderr,
            "devspec: repro: %d replay file%s in %s; replay one without the runner (under a "
            "debugger: gdb --args ... then run < FILE):\n  %s < %s/CASE.jsonl\n",
            written, written == 1 ? "" : "s", a->out, cmd, a->out);
    free(cmd);
    return failed ? DSR_EXIT_INCOMPLETE : 0;
}

int dsr__repro_main(int argc, char **argv, const char *source, const char *build)
{
    repro_args a;
    memset(&a, 0, sizeof a);
    int rc = dsr__options_parse(&REPRO_COMMAND, argc, argv, 1, &a);
    if (rc == 0 && a.reports.n != 1)
        rc = usage("%s", "needs one report: devspec repro REPORT.json [--out DIR]");
    char *out = NULL;
    if (rc == 0 && !a.out) a.out = out = default_out(a.reports.items[0]);
    cJSON *doc = NULL;
    if (rc == 0) {
        size_t len = 0;
        char *text = dsr__read_file(a.reports.items[0], &len);
        size_t at = 0;
        doc = text ? dsj_parse(text, len, &at) : NULL;
        if (!text)
            fprintf(stderr, "devspec: repro: cannot read the report %s: %s\n", a.reports.items[0],
                    dsr__strerror(errno));
        else if (!doc)
            fprintf(stderr, "devspec: repro: %s is not JSON (at byte %zu)\n", a.reports.items[0],
                    at);
        else if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "cases")) ||
                 !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "header"))) {
            fprintf(stderr,
                    "devspec: repro: %s is not a devspec report (the .json devspec run "
                    "--report writes, with its header and cases)\n",
                    a.reports.items[0]);
            cJSON_Delete(doc);
            doc = NULL;
        }
        free(text);
        if (!doc) rc = DSR_EXIT_USAGE;
    }
    dsr_buf probe = {0};
    if (rc == 0) {
        dsr__buf_printf(&probe, "%s/x", a.out);
        if (dsr__mkdir_parents(probe.data) != 0) {
            fprintf(stderr, "devspec: repro: cannot create %s: %s\n", a.out, dsr__strerror(errno));
            rc = DSR_EXIT_INCOMPLETE;
        }
    }
    dsr__buf_free(&probe);
    if (rc == 0) {
        const cJSON *header = cJSON_GetObjectItemCaseSensitive(doc, "header");
        rc = is_python(header) ? python_scripts(&a, header, source, build)
                               : replay_files(&a, doc, header, source, build);
    }
    cJSON_Delete(doc);
    dsr__strlist_free(&a.reports);
    dsr__strlist_free(&a.globs);
    dsr__strlist_free(&a.cases);
    free(out);
    return rc == DSR_OPT_HELP_SHOWN ? 0 : rc;
}
