/* devspec: the command line. */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The commands and, for run (whose options list, coverage and validate share), every option;
 * the options' lines come from the table (OPTIONS). */
static const char USAGE[] =
    "usage: devspec run [OPTIONS]        run the suite against an adapter\n"
    "       devspec list [cases|features|profiles|adapters] [--cases PATH]... [--json]\n"
    "       devspec coverage [--profile P]... [--core] [--fail-uncovered LEVELS] [--json]\n"
    "       devspec validate [--cases PATH]...  load and check case files, run nothing\n"
    "       devspec expectations REPORT.json  print an expectations file for the failures\n"
    "                                         of a report (review before committing it)\n"
    "       devspec compare [OPTIONS] REPORT.json... | DIR\n"
    "                                         the reports side by side: statements and\n"
    "                                         cases x libraries (devspec compare --help)\n"
    "       devspec probe FILE|DIR... [--adapter NAME]... [OPTIONS]\n"
    "                                         run case files against every named adapter\n"
    "                                         and compare what each library did\n"
    "       devspec repro REPORT.json [--out DIR] [--case GLOB]...\n"
    "                                         a reproducer for each failure of a run: a\n"
    "                                         script, or a replay file (devspec repro --help)\n"
    "       devspec verdict REPORT.json... [--profile P]...\n"
    "                                         one library's verdict per profile from the\n"
    "                                         runs that together serve it (oneflow and\n"
    "                                         oneflow-4)\n"
    "       devspec --help | --version\n"
    "\n"
    "run options:\n";

/* The notes after the options. */
static const char USAGE_NOTES[] =
    "\n"
    "Isolation: out of process (the default for NAME and programs) each adapter runs as one\n"
    "worker in its own process group; a crash is recorded as 'crash', the worker is\n"
    "restarted and the run goes on; a case past --timeout is killed and recorded as\n"
    "'timeout'. In-process adapters (PATH.so, --in-process) are NOT isolated: a crash or a\n"
    "hang of the library is one of the runner, and --timeout does not apply.\n"
    "\n"
    "Statuses: pass fail error skip xfail xpass crash timeout lacks.\n"
    "Exit status: 0 nothing unexpected; 1 unexpected fail, error, crash, timeout or lacks, or\n"
    "an expectations file that skips every case (also xpass, stale and shadowed expectations\n"
    "and skips of more than half of the cases with --strict); 2 usage error or invalid case,\n"
    "expectations or adapters files; 3 the adapter could not start, or the run is incomplete\n"
    "(restart limit, SIGINT, SIGTERM, SIGHUP), or an output could not be written.\n"
    "\n"
    "Files: an installed devspec reads PREFIX/share/devspec, found from its own executable;\n"
    "in a build tree, the file devspec-tree beside the executable names the source and build\n"
    "trees. Environment: DEVSPEC_SOURCE and DEVSPEC_BUILD override them (for the defaults and\n"
    "for ${SOURCE}/${BUILD} in adapters.json); NO_COLOR disables colour.\n";

static int usage_error(const char *fmt, const char *arg)
{
    return dsr__usage_error(NULL, fmt, arg);
}

/* The first SIGINT (or SIGTERM, or SIGHUP) stops the run cleanly: the case in flight is recorded as
 * interrupted (a skip that names the signal and the step), the worker killed, the reports written
 * with "complete": false. A second one ends the process at once, for an in-process adapter that
 * hangs and never gives control back. */
static void on_sigint(int sig)
{
    if (dsr__interrupted) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    dsr__interrupted = sig; /* the report names the signal */
}

/* --adapter python:MODULE (see open_python_module). */
#define PYTHON_PREFIX "python:"
#define PYTHON_ADAPTER "adapters/python/devspec_adapter.py"

typedef struct args {
    dsr_strlist cases, globs, features, excludes, profiles, adapter_files;
    dsr_strlist module_opts; /* python:MODULE's own options, passed on to the adapter */
    const char *adapter, *adapter_cmd, *expectations, *report, *junit, *trace, *spec,
        *fail_uncovered;
    dsr_strlist what; /* list: what to list */
    const char *python, *tap_version;
    bool tap, strict, progress, in_process, json, core, skip_crashes;
    double timeout, start_timeout;
    int max_restarts, max_reruns, jobs;
} args;

#define RUN(field) offsetof(args, field)
#define OPT(name, kind, field, usage, help)                                                        \
    {                                                                                              \
        name, DSR_OPT_##kind, RUN(field), usage, help, NULL, 0, 0                                  \
    }
#define COUNT(name, field, usage, help)                                                            \
    {                                                                                              \
        name, DSR_OPT_COUNT, RUN(field), usage, help, NULL, 0, DSR_OPT_COUNT_MAX                   \
    }

/* The options of run, list, coverage and validate (one struct, args), in the order of the
 * help; those with no line there are aliases or are named in the usage lines above them. */
static const dsr_option OPTIONS[] = {
    OPT("--adapter", STRING, adapter, "--adapter NAME|PATH",
        "a name from adapters/adapters.json (run out of process),\n"
        "an adapter program, or PATH.so loaded in process"),
    {NULL, DSR_OPT_TEXT, 0, "--adapter python:MODULE",
     "any module that is an array API namespace (numpy,\n"
     "array_api_strict, array_api_compat.torch, ...), driven by\n"
     "adapters/python with no code of its own",
     NULL, 0, 0},
    OPT("--python", STRING, python, "--python PATH",
        "the interpreter for python:MODULE (default: python3 on PATH)"),
    OPT("--compat", PASS_FLAG, module_opts, "--compat, --claims FILE",
        "with python:MODULE: passed on to the adapter (array-api-\n"
        "compat's device helpers; a [tool.devspec] file of settings)"),
    OPT("--claims", PASS, module_opts, NULL, NULL),
    OPT("--claim", PASS, module_opts, "--claim F, --unclaim F",
        "with python:MODULE: claim or never claim feature F"),
    OPT("--unclaim", PASS, module_opts, NULL, NULL),
    OPT("--device", PASS, module_opts, "--device Dn=DEVICE",
        "with python:MODULE: bind $Dn to the listed device DEVICE"),
    OPT("--adapter-cmd", STRING, adapter_cmd, "--adapter-cmd 'CMD'",
        "run CMD with /bin/sh as the out-of-process adapter"),
    OPT("--adapters", LIST, adapter_files, "--adapters FILE",
        "an adapters file of your own (the format of adapters.json;\n"
        "relative paths are relative to FILE), searched before the\n"
        "suite's; repeatable; also DEVSPEC_ADAPTERS=FILE:FILE..."),
    OPT("--in-process", FLAG_ON, in_process, "--in-process",
        "with a NAME: load its shared_object instead of its command\n"
        "(refused with --adapter-cmd, a program or python:MODULE)"),
    OPT("--cases", LIST, cases, "--cases FILE|DIR",
        "case files (repeatable; default: the suite's cases)"),
    OPT("--profile", LIST, profiles, "--profile P", "only the cases of profile P's features"),
    OPT("--feature", LIST, features, "--feature F", "only cases with feature F (repeatable)"),
    OPT("--exclude-feature", LIST, excludes, "--exclude-feature F",
        "drop cases with feature F (repeatable; applied last)"),
    OPT("--case", LIST, globs, "--case GLOB", "only cases whose ID matches GLOB (repeatable)"),
    OPT("--expectations", STRING, expectations, "--expectations FILE",
        "known results: '<id or glob> <status> [# reason]' lines\n"
        "(default: the named adapter's file from adapters.json)"),
    OPT("--report", STRING, report, "--report PATH",
        "JSON report (default reports/runs/<adapter>.json); streamed to\n"
        "PATH-without-.json + .jsonl while running"),
    OPT("--junit", STRING, junit, "--junit PATH", "also write JUnit XML"),
    OPT("--trace", STRING, trace, "--trace PATH",
        "write every request and reply line to PATH, '> ' and '< '\n"
        "before each"),
    OPT("--tap", FLAG_ON, tap, "--tap / --no-tap",
        "TAP on stdout (default: when stdout is not a terminal); the\n"
        "summary goes to stderr with TAP, to stdout without"),
    OPT("--no-tap", FLAG_OFF, tap, NULL, NULL),
    OPT("--tap-version", STRING, tap_version, "--tap-version 13|14",
        "the TAP version line (default 13, which prove accepts)"),
    OPT("--timeout", SECONDS, timeout, "--timeout SECONDS",
        "per case, out of process (default 10; 0: none)"),
    OPT("--start-timeout", SECONDS, start_timeout, "--start-timeout SECONDS",
        "for the adapter's hello, also after a restart (default 60)"),
    COUNT("--max-restarts", max_restarts, "--max-restarts N",
          "worker restarts before the run stops (default 10)"),
    COUNT("--max-reruns", max_reruns, "--max-reruns N",
          "cases run once more after a crash that an intermittent-crash\n"
          "entry covers (default 3; each rerun follows a restart)"),
    /* --jobs 0 is refused (a count >= 1), as probe refuses it: 0 reads as "none" to some
     * and as "as many as the cores" to others, and was silently one. */
    {"--jobs", DSR_OPT_COUNT, RUN(jobs), "--jobs N, -j N",
     "N >= 1 adapter workers, out of process, share the cases;\n"
     "reports and verdicts are those of --jobs 1 (default: the\n"
     "number of cores; in process, and for an SPMD adapter, 1; at\n"
     "most twice the cores, and no more than the cases)",
     NULL, 1, DSR_OPT_COUNT_MAX},
    {"-j", DSR_OPT_COUNT, RUN(jobs), NULL, NULL, NULL, 1, DSR_OPT_COUNT_MAX},
    OPT("--strict", FLAG_ON, strict, "--strict",
        "unexpected passes, stale and shadowed expectations, and\n"
        "skip entries for more than half of the cases fail the run"),
    OPT("--skip-expected-crashes", FLAG_ON, skip_crashes, "--skip-expected-crashes",
        "leave out the cases the expectations file says crash (each\n"
        "costs a restart of the adapter; the summary counts them)"),
    OPT("--no-progress", FLAG_OFF, progress, "--no-progress", "no progress line on stderr"),
    /* list and coverage (named in the usage lines) */
    OPT("--json", FLAG_ON, json, NULL, NULL),
    OPT("--core", FLAG_ON, core, NULL, NULL),
    OPT("--profile-core", FLAG_ON, core, NULL, NULL),
    OPT("--fail-uncovered", STRING, fail_uncovered, NULL, NULL),
    {NULL, DSR_OPT_TEXT, 0, NULL, "\ncommon options:", NULL, 0, 0},
    OPT("--spec", STRING, spec, "--spec DIR", "the spec directory (default: the suite's spec/)"),
    {"--help", DSR_OPT_HELP, 0, NULL, NULL, NULL, 0, 0},
    {"-h", DSR_OPT_HELP, 0, NULL, NULL, NULL, 0, 0},
};

#undef OPT
#undef COUNT
#undef RUN

/* run, list, coverage and validate: one table; list alone takes an argument (what to list). */
#define COMMAND(positional, max)                                                                   \
    {                                                                                              \
        NULL, OPTIONS, sizeof OPTIONS / sizeof OPTIONS[0], positional, offsetof(args, what), max,  \
            USAGE, USAGE_NOTES                                                                     \
    }
static const dsr_command RUN_COMMAND = COMMAND(NULL, 0);
static const dsr_command LIST_COMMAND = COMMAND("cases|features|profiles|adapters", 1);
#undef COMMAND

static int parse(int argc, char **argv, int first, args *a, const char *cmd)
{
    a->tap = !isatty(STDOUT_FILENO); /* TAP for a machine reading stdout; a person on a terminal
                                        gets the summary */
    a->progress = true;
    a->timeout = 10;
    a->start_timeout = 60;
    a->max_restarts = 10;
    a->max_reruns = 3;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    a->jobs = cores > 0 ? (int)(cores < 64 ? cores : 64) : 1;
    return dsr__options_parse(strcmp(cmd, "list") ? &RUN_COMMAND : &LIST_COMMAND, argc, argv, first,
                              a);
}

static void free_args(args *a)
{
    dsr__strlist_free(&a->cases);
    dsr__strlist_free(&a->globs);
    dsr__strlist_free(&a->features);
    dsr__strlist_free(&a->excludes);
    dsr__strlist_free(&a->profiles);
    dsr__strlist_free(&a->adapter_files);
    dsr__strlist_free(&a->what);
    dsr__strlist_free(&a->module_opts);
}

static const char *root(const char *env, const char *fallback)
{
    const char *v = getenv(env);
    return v && v[0] ? v : fallback;
}

/* Where the suite's files are, found from the runner's own executable (no path is compiled
 * in): installed, PREFIX/bin/devspec reads PREFIX/share/devspec (spec/, conformance/cases,
 * conformance/expectations, adapters/adapters.json, adapters/python) and its adapters'
 * programs are under PREFIX (${BUILD} in the installed adapters.json); in a build tree,
 * BUILD/conformance/devspec reads the file devspec-tree beside it, which CMake writes with
 * the source and build folders. DEVSPEC_SOURCE and DEVSPEC_BUILD override both. */
static char tree_source[4400], tree_build[4400];
static char tree_how[4600]; /* how tree_source was found, for a message when it is wrong */

static void find_tree(void)
{
    static bool done;
    if (done) return;
    done = true;
    snprintf(tree_source, sizeof tree_source, ".");
    snprintf(tree_build, sizeof tree_build, ".");
    snprintf(tree_how, sizeof tree_how,
             "the current folder: this program's own folder was not found");
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return;
    *slash = '\0'; /* exe is now the executable's folder */
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/../share/devspec/spec/features.json", exe);
    if (access(probe, R_OK) == 0) {
        snprintf(tree_source, sizeof tree_source, "%s/../share/devspec", exe);
        snprintf(tree_build, sizeof tree_build, "%s/..", exe);
        snprintf(tree_how, sizeof tree_how, "the installed files beside this program");
        return;
    }
    snprintf(tree_how, sizeof tree_how,
             "the current folder: beside this program (%s) there is neither an installed "
             "../share/devspec nor a build tree's devspec-tree",
             exe);
    snprintf(probe, sizeof probe, "%s/devspec-tree", exe);
    FILE *f = fopen(probe, "re");
    if (!f) return;
    snprintf(tree_how, sizeof tree_how, "the build tree that %s names", probe);
    char line[4200];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!strncmp(line, "source=", 7)) snprintf(tree_source, sizeof tree_source, "%s", line + 7);
        if (!strncmp(line, "build=", 6)) snprintf(tree_build, sizeof tree_build, "%s", line + 6);
    }
    fclose(f);
}

static const char *source_root(void)
{
    find_tree();
    return root("DEVSPEC_SOURCE", tree_source);
}

static const char *build_root(void)
{
    find_tree();
    return root("DEVSPEC_BUILD", tree_build);
}

static int load(args *a, const char *source, dsr_registry *reg, dsr_suite *suite)
{
    double t0 = dsr__now();
    dsr_buf spec = {0};
    if (a->spec)
        dsr__buf_puts(&spec, a->spec);
    else
        dsr__buf_printf(&spec, "%s/spec", source);
    if (!a->spec) {
        /* A copied program finds no suite: say where it looked, and how to point it. */
        dsr_buf f = {0};
        dsr__buf_printf(&f, "%s/features.json", spec.data);
        bool missing = access(f.data, F_OK) != 0;
        dsr__buf_free(&f);
        if (missing) {
            const char *env = getenv("DEVSPEC_SOURCE");
            fprintf(stderr,
                    "devspec: the suite's files are not at %s (the source tree: %s); set "
                    "DEVSPEC_SOURCE to the folder that holds spec/ and conformance/cases, or "
                    "give --spec DIR and --cases PATH\n",
                    spec.data, env && env[0] ? "DEVSPEC_SOURCE" : tree_how);
            dsr__buf_free(&spec);
            memset(reg, 0, sizeof *reg); /* freed by the caller, as a registry that failed */
            return DSR_EXIT_USAGE;
        }
    }
    int rc = dsr__registry_load(reg, spec.data);
    dsr__buf_free(&spec);
    if (rc != 0) return DSR_EXIT_USAGE;
    if (a->cases.n == 0) {
        dsr_buf def = {0};
        dsr__buf_printf(&def, "%s/conformance/cases", source);
        dsr__strlist_add(&a->cases, def.data);
        dsr__buf_free(&def);
    }
    for (int i = 0; i < a->features.n; i++)
        if (!dsr__registry_feature(reg, a->features.items[i]))
            return usage_error("unknown feature '%s' (devspec list features)",
                               a->features.items[i]);
    for (int i = 0; i < a->excludes.n; i++)
        if (!dsr__registry_feature(reg, a->excludes.items[i]))
            return usage_error("unknown feature '%s' (devspec list features)",
                               a->excludes.items[i]);
    for (int i = 0; i < a->profiles.n; i++)
        if (!dsr__registry_profile(reg, a->profiles.items[i]))
            return usage_error("unknown profile '%s' (devspec list profiles)",
                               a->profiles.items[i]);
    int problems = dsr__suite_load(suite, reg, a->cases.items, a->cases.n, stderr);
    suite->load_seconds = dsr__now() - t0;
    if (problems) {
        fprintf(stderr, "devspec: %d problem%s in the case files; nothing was run\n", problems,
                problems == 1 ? "" : "s");
        return DSR_EXIT_USAGE;
    }
    return 0;
}

/* Loads the registry and the suite (SUITE zeroed by the caller); returns 0, or the exit
 * status (2) with both freed. */
static int load_all(args *a, const char *source, dsr_registry *reg, dsr_suite *suite)
{
    int rc = load(a, source, reg, suite);
    if (rc) {
        if (reg->spec_dir) dsr__registry_free(reg);
        dsr__suite_free(suite);
    }
    return rc;
}

/* --adapter python:MODULE: the Python adapter of the source tree (adapters/python) drives
 * MODULE, any array API namespace, in the interpreter PYTHON (python3 on PATH by default).
 * NULL with ERR set when the adapter program is missing. */
static dsr_adapter *open_python_module(const char *source, const char *module, const char *python,
                                       const dsr_strlist *opts, char *err, size_t errlen)
{
    size_t len = strlen(source) + sizeof PYTHON_ADAPTER + 1;
    char *program = dsr__xmalloc(len);
    snprintf(program, len, "%s/%s", source, PYTHON_ADAPTER);
    if (access(program, R_OK) != 0) {
        snprintf(err, errlen, "no Python adapter at %s (DEVSPEC_SOURCE names the source tree)",
                 program);
        free(program);
        return NULL;
    }
    /* The module's own options (--compat, --claim, ...) follow, as given. */
    char **av = dsr__xmalloc(sizeof *av * (size_t)(opts->n + 5));
    int n = 0;
    av[n++] = (char *)(python ? python : "python3");
    av[n++] = program;
    av[n++] = "--module";
    av[n++] = (char *)module;
    for (int i = 0; i < opts->n; i++)
        av[n++] = opts->items[i];
    av[n] = NULL;
    char *noenv[] = {NULL};
    dsr_adapter *ad = dsr__adapter_open_cmd(av, noenv);
    free(av);
    free(program);
    return ad;
}

/* Every file and folder the run reads, none of which an output may replace: the case files
 * and folders, the expectations file, the spec folder, the adapters files, and what the
 * adapter is made of (its program, the words of --adapter-cmd that name files, the
 * in-process shared object, the interpreter and the folder of the Python adapter). */
static void run_inputs(const args *a, const char *source, const char *expectations,
                       const dsr_named_adapter *named, dsr_inputs *in)
{
    for (int i = 0; i < a->cases.n; i++)
        dsr__inputs_add_tree(in, a->cases.items[i], "case");
    dsr__inputs_add(in, expectations, "expectations");
    dsr_buf b = {0};
    if (a->spec)
        dsr__buf_puts(&b, a->spec);
    else
        dsr__buf_printf(&b, "%s/spec", source);
    dsr__inputs_add_tree(in, b.data, "spec");
    b.len = 0;
    dsr__buf_printf(&b, "%s/adapters/adapters.json", source);
    dsr__inputs_add(in, b.data, "adapters");
    for (int i = 0; i < a->adapter_files.n; i++)
        dsr__inputs_add(in, a->adapter_files.items[i], "adapters");
    const char *x = a->adapter;
    size_t n = x ? strlen(x) : 0;
    if (a->adapter_cmd) {
        dsr__inputs_add_words(in, a->adapter_cmd, "adapter program");
    } else if (!strncmp(x, PYTHON_PREFIX, strlen(PYTHON_PREFIX))) {
        dsr__inputs_add_program(in, a->python ? a->python : "python3", "Python interpreter");
        b.len = 0;
        dsr__buf_printf(&b, "%s/adapters/python", source);
        dsr__inputs_add_tree(in, b.data, "Python adapter");
    } else if (n > 3 && !strcmp(x + n - 3, ".so")) {
        dsr__inputs_add(in, x, "in-process adapter");
    } else if (strchr(x, '/')) {
        dsr__inputs_add(in, x, "adapter program");
    } else if (named->name) {
        dsr__named_adapter_inputs(named, in);
    }
    dsr__buf_free(&b);
}

/* Outputs never destroy inputs (dsr__check_run_outputs): --report, or the default report
 * where its name is known before the run (the adapter's LABEL), checked before anything
 * runs (exit 2). A default report named after the library's hello is checked when the
 * report opens (dsr__report_open). */
static int check_run_outputs(const args *a, const dsr_inputs *in, const char *label)
{
    char *fallback = !a->report && label ? dsr__report_default_path(label) : NULL;
    int rc = dsr__check_run_outputs(a->report ? a->report : fallback,
                                    a->report ? "--report" : "the default report (no --report)",
                                    a->junit, a->trace, in);
    free(fallback);
    return rc;
}

/* The run's options from the command line's (the adapter's own are set by cmd_run). */
static void run_options(const args *a, const char *expectations, dsr_options *o)
{
    o->cases = a->cases.items;
    o->ncases = a->cases.n;
    o->case_globs = a->globs.items;
    o->ncase_globs = a->globs.n;
    o->features = a->features.items;
    o->nfeatures = a->features.n;
    o->exclude_features = a->excludes.items;
    o->nexclude_features = a->excludes.n;
    o->profile = a->profiles.n ? a->profiles.items[0] : NULL;
    o->expectations = expectations;
    o->report = a->report;
    o->junit = a->junit;
    o->trace = a->trace;
    o->tap = a->tap;
    o->tap_version = a->tap_version && !strcmp(a->tap_version, "14") ? 14 : 13;
    o->strict = a->strict;
    o->skip_crashes = a->skip_crashes;
    o->progress = a->progress && isatty(2);
    const char *nc = getenv("NO_COLOR");
    o->color = o->progress && !(nc && nc[0]);
    o->timeout = a->timeout;
    o->start_timeout = a->start_timeout;
    o->max_restarts = a->max_restarts;
    o->max_reruns = a->max_reruns;
    o->jobs = a->jobs > 0 ? a->jobs : 1;
    /* Each worker is a process of the adapter's (a Python library loads for seconds): more
     * than two per core only costs their start-up. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int most = cores > 0 && cores < 32 ? 2 * (int)cores : 64;
    if (o->jobs > most) {
        fprintf(stderr,
                "devspec: --jobs %d: at most %d workers (twice the %ld cores) are started\n",
                o->jobs, most, cores > 0 ? cores : 1);
        o->jobs = most;
    }
}

/* The adapter NAMED (found in an adapters file as X): its shared object in process, or its
 * command. NULL with ERR set when it cannot be opened; *TRANSPORT is set in process. */
static dsr_adapter *open_named(dsr_named_adapter *named, const char *x, bool in_process, char *err,
                               size_t errlen, const char **transport)
{
    dsr_adapter *ad = NULL;
    char *why_not;
    if (in_process) {
        if (!named->shared_object)
            snprintf(err, errlen, "adapter '%s' has no shared_object for --in-process", x);
        else {
            /* In process the adapter's environment is the runner's own. */
            for (char **e = named->env; e && *e; e++) {
                char *eq = strchr(*e, '=');
                if (eq) {
                    *eq = '\0';
                    setenv(*e, eq + 1, 1);
                    *eq = '=';
                }
            }
            ad = dsr__adapter_open_so(named->shared_object, err, errlen);
            *transport = "in-process";
        }
    } else if (!named->command || !named->command[0]) {
        snprintf(err, errlen, "adapter '%s' has no command", x);
    } else if ((why_not = dsr__named_adapter_unavailable(named))) {
        snprintf(err, errlen, "%s", why_not);
        free(why_not);
    } else {
        ad = dsr__adapter_open_cmd(named->command, named->env);
    }
    return ad;
}

/* The four spellings of an adapter (--adapter-cmd, python:MODULE, a path, a name in
 * adapters.json) are resolved here into the label, transport and expectations the report
 * records, so that their precedence reads in one place (a name is opened by open_named); the
 * run's options are run_options. */
/* The combinations of run's options that mean nothing: usage errors (2), else 0. An option
 * that would be ignored is refused rather than silently dropped. */
static int check_run_args(const args *a)
{
    if (!a->adapter && !a->adapter_cmd)
        return usage_error("%s", "run needs --adapter NAME|PATH or --adapter-cmd 'CMD'");
    if (a->profiles.n > 1) return usage_error("%s", "run takes one --profile");
    if (a->tap_version && strcmp(a->tap_version, "13") && strcmp(a->tap_version, "14"))
        return usage_error("--tap-version is 13 or 14, not '%s'", a->tap_version);
    if (a->python && (!a->adapter || strncmp(a->adapter, PYTHON_PREFIX, strlen(PYTHON_PREFIX))))
        return usage_error("%s", "--python goes with --adapter python:MODULE");
    if (a->module_opts.n && (a->adapter_cmd || !a->adapter ||
                             strncmp(a->adapter, PYTHON_PREFIX, strlen(PYTHON_PREFIX))))
        return usage_error("%s goes with --adapter python:MODULE", a->module_opts.items[0]);
    if (a->adapter && !a->adapter_cmd && !strcmp(a->adapter, PYTHON_PREFIX))
        return usage_error("%s", "--adapter python:MODULE needs a module name");
    /* --in-process picks a named adapter's shared_object; a command, a program or a Python
     * module has none, and a PATH.so is loaded in process without it. */
    if (a->in_process && a->adapter_cmd)
        return usage_error("%s", "--in-process goes with --adapter NAME, not --adapter-cmd (a "
                                 "command runs out of process)");
    if (a->in_process &&
        (strchr(a->adapter, '/') || !strncmp(a->adapter, PYTHON_PREFIX, strlen(PYTHON_PREFIX)))) {
        size_t n = strlen(a->adapter);
        if (n <= 3 || strcmp(a->adapter + n - 3, ".so"))
            return usage_error("--in-process goes with --adapter NAME (an adapters.json entry "
                               "with a shared_object) or PATH.so, not '%s', which runs out of "
                               "process",
                               a->adapter);
    }
    return 0;
}

/* What an adapters file entry says its library needs, over what the command line asked. */
static void entry_limits(const dsr_named_adapter *named, dsr_options *o)
{
    /* An adapter whose library cannot take several workers in one run says so in its entry
     * ("jobs"): more are never started, whatever --jobs asks, and stderr says so. */
    if (named->jobs > 0 && o->jobs > named->jobs) {
        fprintf(stderr, "devspec: %s: %d worker%s (its adapters file entry's \"jobs\"), not %d\n",
                named->name, named->jobs, named->jobs == 1 ? "" : "s", o->jobs);
        o->jobs = named->jobs;
    }
    /* A library that compiles its kernels on first use (CLBlast through PoCL) says how long
     * one case may take ("timeout"): a shorter --timeout is raised to it, and stderr says so. */
    if (named->timeout > o->timeout) {
        fprintf(stderr,
                "devspec: %s: a case may take %g s (its adapters file entry's "
                "\"timeout\"), not %g s\n",
                named->name, named->timeout, o->timeout);
        o->timeout = named->timeout;
    }
}

static int cmd_run(args *a, int argc, char **argv)
{
    const char *source = source_root();
    const char *build = build_root();
    int rc = check_run_args(a);
    if (rc) return rc;

    dsr_registry reg;
    dsr_suite suite = {0};
    rc = load_all(a, source, &reg, &suite);
    if (rc) return rc;

    dsr_named_adapter named = {0};
    int found = -1;
    dsr_adapter *ad = NULL;
    char err[512] = "";
    char *label = NULL;
    const char *transport = "out-of-process";
    const char *expectations = a->expectations;
    if (a->adapter_cmd) {
        char *argv_sh[] = {"/bin/sh", "-c", (char *)a->adapter_cmd, NULL};
        char *noenv[] = {NULL};
        ad = dsr__adapter_open_cmd(argv_sh, noenv);
        label = a->adapter ? dsr__xstrdup(a->adapter) : NULL;
    } else {
        const char *x = a->adapter;
        size_t n = strlen(x);
        bool so = n > 3 && !strcmp(x + n - 3, ".so");
        if (!strncmp(x, PYTHON_PREFIX, strlen(PYTHON_PREFIX))) {
            const char *module = x + strlen(PYTHON_PREFIX);
            ad = open_python_module(source, module, a->python, &a->module_opts, err, sizeof err);
            label = dsr__xstrdup(module);
        } else if (so || strchr(x, '/')) {
            const char *base = strrchr(x, '/') ? strrchr(x, '/') + 1 : x;
            label = dsr__xstrdup(base);
            char *dot = strrchr(label, '.');
            if (dot && dot != label) *dot = '\0';
            if (so) {
                ad = dsr__adapter_open_so(x, err, sizeof err);
                transport = "in-process";
            } else {
                char *av[] = {(char *)x, NULL};
                char *noenv[] = {NULL};
                ad = dsr__adapter_open_cmd(av, noenv);
            }
        } else if ((found = dsr__named_adapter_find(source, build, x, &named)) == 0) {
            label = dsr__xstrdup(named.name);
            if (!expectations) expectations = named.expectations;
            ad = open_named(&named, x, a->in_process, err, sizeof err, &transport);
        } else if (found == -2) {
            /* An adapters file that cannot be read or is not valid is the command line's
             * fault, as a case file's is: a usage error, before anything runs. */
            fprintf(stderr, "devspec: the adapters file %s cannot be used (see above)\n",
                    named.file ? named.file : "adapters/adapters.json");
        } else {
            snprintf(err, sizeof err, "unknown adapter '%s'", x);
        }
    }
    dsr_expectations ex = {0};
    dsr_inputs inputs = {0};
    run_inputs(a, source, expectations, &named, &inputs);
    int code;
    if ((code = check_run_outputs(a, &inputs, label)) != 0) goto out;
    if (found == -2) {
        code = DSR_EXIT_USAGE;
        goto out;
    }
    if (!ad) {
        fprintf(stderr, "devspec: the adapter could not start: %s\n", err);
        code = DSR_EXIT_INCOMPLETE;
        goto out;
    }
    if (expectations && dsr__expectations_load(&ex, expectations, stderr) != 0) {
        code = DSR_EXIT_USAGE;
        goto out;
    }
    dsr_options o = {0};
    run_options(a, expectations, &o);
    if (found == 0) entry_limits(&named, &o);
    o.inputs = &inputs;
    o.adapter_label = label;
    o.adapter_spec = a->adapter_cmd ? a->adapter_cmd : a->adapter;
    o.adapters_file = found == 0 ? named.file : NULL;
    o.adapter_replaces_suite_entry = named.replaces_suite_entry;
    o.transport = transport;
    o.source = source;
    o.build = build;
    o.argc = argc;
    o.argv = argv;
    code = dsr__run(&o, &reg, &suite, ex.path ? &ex : NULL, ad);
out:
    dsr__adapter_destroy(ad);
    dsr__inputs_free(&inputs);
    dsr__expectations_free(&ex);
    dsr__named_adapter_free(&named);
    free(label);
    dsr__suite_free(&suite);
    dsr__registry_free(&reg);
    return code;
}

/* The dtypes case C makes per device, derived from its steps (case_load.c):
 * {"$D0": ["uint8", ...], ...}, for `devspec list cases --json`. */
static cJSON *case_dtypes(const dsr_case *c)
{
    cJSON *o = cJSON_CreateObject();
    for (int k = 0; k < DSR_MAX_DEVICES; k++) {
        if (!c->dtypes_on[k] || k >= c->devices) continue;
        cJSON *list = cJSON_CreateArray();
        for (int b = 0; dsr__dtype_names[b]; b++)
            if (c->dtypes_on[k] & (1u << b))
                cJSON_AddItemToArray(list, cJSON_CreateString(dsr__dtype_names[b]));
        char name[4] = {'$', 'D', (char)('0' + k), 0};
        cJSON_AddItemToObject(o, name, list);
    }
    return o;
}

static int cmd_list(args *a)
{
    const char *source = source_root();
    const char *what = a->what.n ? a->what.items[0] : "cases";
    if (!strcmp(what, "adapters"))
        return dsr__named_adapter_list(source, build_root(), stdout) == 0 ? DSR_EXIT_OK
                                                                          : DSR_EXIT_USAGE;
    if (strcmp(what, "cases") && strcmp(what, "features") && strcmp(what, "profiles"))
        return usage_error("list what? '%s' (cases, features, profiles, adapters)", what);
    dsr_registry reg;
    dsr_suite suite = {0};
    int rc = load_all(a, source, &reg, &suite);
    if (rc) return rc;
    cJSON *out = a->json ? cJSON_CreateArray() : NULL;
    if (!strcmp(what, "cases")) {
        for (int f = 0; f < suite.nfiles; f++)
            for (int k = 0; k < suite.files[f].ncases; k++) {
                const dsr_case *c = &suite.files[f].cases[k];
                if (out) {
                    cJSON *j = cJSON_CreateObject();
                    cJSON_AddStringToObject(j, "id", c->id);
                    cJSON_AddStringToObject(j, "file", c->file->name);
                    cJSON_AddNumberToObject(j, "devices", c->devices);
                    cJSON_AddItemToObject(j, "features",
                                          dsr__json_strings(c->features, c->nfeatures));
                    cJSON_AddItemToObject(j, "spec", dsr__json_strings(c->spec, c->nspec));
                    cJSON_AddItemToObject(j, "dtypes", case_dtypes(c));
                    cJSON_AddItemToArray(out, j);
                } else {
                    printf("%s\t%s\t", c->id, c->file->name);
                    for (int i = 0; i < c->nfeatures; i++)
                        printf("%s%s", i ? "," : "", c->features[i]);
                    putchar('\n');
                }
            }
    } else if (!strcmp(what, "features")) {
        for (int i = 0; i < reg.nfeatures; i++) {
            int n = 0;
            for (int f = 0; f < suite.nfiles; f++)
                for (int k = 0; k < suite.files[f].ncases; k++)
                    for (int x = 0; x < suite.files[f].cases[k].nfeatures; x++)
                        n += !strcmp(suite.files[f].cases[k].features[x], reg.features[i].name);
            if (out) {
                cJSON *j = cJSON_CreateObject();
                cJSON_AddStringToObject(j, "name", reg.features[i].name);
                cJSON_AddNumberToObject(j, "cases", n);
                cJSON_AddItemToArray(out, j);
            } else
                printf("%-28s %4d case%s\n", reg.features[i].name, n, n == 1 ? "" : "s");
        }
    } else {
        for (int i = 0; i < reg.nprofiles; i++) {
            const dsr_profile *p = &reg.profiles[i];
            if (out) {
                cJSON *j = cJSON_CreateObject();
                cJSON_AddStringToObject(j, "name", p->name);
                cJSON_AddBoolToObject(j, "core", p->core);
                cJSON_AddItemToObject(
                    j, "required",
                    dsr__json_strings((const char *const *)p->required, p->nrequired));
                cJSON_AddItemToObject(
                    j, "optional",
                    dsr__json_strings((const char *const *)p->optional, p->noptional));
                cJSON_AddItemToArray(out, j);
            } else {
                printf("%s%s:", p->name, p->core ? " (core)" : "");
                for (int k = 0; k < p->nrequired; k++)
                    printf(" %s", p->required[k]);
                for (int k = 0; k < p->noptional; k++)
                    printf(" [%s]", p->optional[k]);
                putchar('\n');
            }
        }
        if (!reg.have_profiles)
            fprintf(stderr, "devspec: %s/profiles.json does not exist yet\n", reg.spec_dir);
    }
    if (out) {
        char *s = dsr__print(out, true);
        puts(s);
        cJSON_free(s);
        cJSON_Delete(out);
    }
    dsr__suite_free(&suite);
    dsr__registry_free(&reg);
    return 0;
}

/* devspec coverage: per profile, every statement of its features and the cases that cite
 * it. With --fail-uncovered LEVELS the exit status is 1 when a statement of one of those
 * levels has no case, in the selected profiles (all, --profile P, or --core). */
static int cmd_coverage(args *a)
{
    const char *source = source_root();
    dsr_registry reg;
    dsr_suite suite = {0};
    int rc = load_all(a, source, &reg, &suite);
    if (rc) return rc;
    if (a->fail_uncovered) {
        for (const char *p = a->fail_uncovered; *p;) {
            const char *comma = strchr(p, ',');
            size_t len = comma ? (size_t)(comma - p) : strlen(p);
            char lv[64];
            snprintf(lv, sizeof lv, "%.*s", (int)(len < 63 ? len : 63), p);
            if (strcmp(lv, "must") && strcmp(lv, "should") && strcmp(lv, "may") &&
                strcmp(lv, "implementation-defined")) {
                dsr__suite_free(&suite);
                dsr__registry_free(&reg);
                return usage_error("--fail-uncovered: unknown level '%s' (must, should, may, "
                                   "implementation-defined)",
                                   lv);
            }
            p += len + (comma ? 1 : 0);
        }
    }
    int gate = dsr__coverage(&reg, &suite, a->profiles.items, a->profiles.n, a->core, a->json,
                             a->fail_uncovered);
    dsr__suite_free(&suite);
    dsr__registry_free(&reg);
    return gate;
}

static int cmd_validate(args *a)
{
    const char *source = source_root();
    dsr_registry reg;
    dsr_suite suite = {0};
    int rc = load_all(a, source, &reg, &suite);
    if (rc) return rc;
    printf("%d case file%s, %d cases: valid\n", suite.nfiles, suite.nfiles == 1 ? "" : "s",
           suite.ncases);
    dsr__registry_free(&reg);
    dsr__suite_free(&suite);
    return 0;
}

/* devspec expectations REPORT: one line per case whose observed status was a failure
 * (fail, error, crash, timeout), with its message as the reason, so a baseline is
 * regenerated from a run and reviewed as a diff. The reasons need a human: a maintainer
 * replaces each with the library's issue. This is the file of the report at PATH, on stdout. */
static int expectations_of(const char *path)
{
    /* Its one output is standard output: never the report it reads (`>> REPORT` would append
     * to it; `> REPORT` has emptied it before devspec starts, and is named rather than read
     * as "not a report"). */
    struct stat so, sr;
    if (fstat(STDOUT_FILENO, &so) == 0 && S_ISREG(so.st_mode) && stat(path, &sr) == 0 &&
        so.st_dev == sr.st_dev && so.st_ino == sr.st_ino) {
        fprintf(stderr, "devspec: expectations: standard output is the report %s it reads\n", path);
        return DSR_EXIT_USAGE;
    }
    size_t len;
    char *text = dsr__read_file(path, &len);
    if (!text) {
        fprintf(stderr, "devspec: cannot read %s: %s\n", path, dsr__strerror(errno));
        return DSR_EXIT_USAGE;
    }
    cJSON *doc = dsj_parse(text, len, NULL);
    free(text);
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(doc, "cases");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(doc, "type");
    if (!cJSON_IsArray(cases) || !cJSON_IsString(type) ||
        strcmp(type->valuestring, "devspec-report") != 0) {
        fprintf(stderr,
                "devspec: %s is not a devspec JSON report (no \"type\": \"devspec-report\" with a "
                "\"cases\" list)\n",
                path);
        cJSON_Delete(doc);
        return DSR_EXIT_USAGE;
    }
    const cJSON *hdr = cJSON_GetObjectItemCaseSensitive(doc, "header");
    const cJSON *lib = cJSON_GetObjectItemCaseSensitive(hdr, "library");
    const cJSON *ln = cJSON_GetObjectItemCaseSensitive(lib, "name");
    const cJSON *lv = cJSON_GetObjectItemCaseSensitive(lib, "version");
    printf("# Known results of %s %s, from %s. Replace each reason with the library's issue.\n",
           cJSON_IsString(ln) ? ln->valuestring : "?", cJSON_IsString(lv) ? lv->valuestring : "?",
           path);
    const cJSON *c;
    int timeouts = 0;
    cJSON_ArrayForEach(c, cases)
    {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "id");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(c, "observed_status");
        const cJSON *why = cJSON_GetObjectItemCaseSensitive(c, "reason");
        if (!cJSON_IsString(id) || !cJSON_IsString(st)) continue;
        int s = dsr__status_parse(st->valuestring);
        if (s != DSR_FAIL && s != DSR_ERROR && s != DSR_CRASH && s != DSR_TIMEOUT && s != DSR_LACKS)
            continue;
        /* A timeout depends on the machine's load (a first call that compiles, a busy CI
         * runner): it is written commented out, never as an entry a later run trusts. */
        if (s == DSR_TIMEOUT) {
            timeouts++;
            fputs("# TIMEOUT, not an entry (it depends on the machine's load; rerun, or keep it "
                  "with a reason of your own): ",
                  stdout);
        }
        printf("%s %s", id->valuestring, st->valuestring);
        if (cJSON_IsString(why) && why->valuestring[0]) {
            fputs(" # ", stdout);
            /* one line: the reason ends at the first newline */
            for (const char *p = why->valuestring; *p && *p != '\n'; p++)
                putchar(*p);
        }
        putchar('\n');
    }
    if (timeouts)
        fprintf(stderr,
                "devspec: expectations: %d timeout%s written as comments, not entries: a timeout "
                "depends on the machine's load; rerun the cases before keeping one\n",
                timeouts, timeouts == 1 ? "" : "s");
    cJSON_Delete(doc);
    return 0;
}

static const dsr_option EXPECTATIONS_OPTIONS[] = {
    {"--help", DSR_OPT_HELP, 0, "--help", "this help", NULL, 0, 0},
    {"-h", DSR_OPT_HELP, 0, NULL, NULL, NULL, 0, 0},
};

static const dsr_command EXPECTATIONS_COMMAND = {
    NULL,
    EXPECTATIONS_OPTIONS,
    sizeof EXPECTATIONS_OPTIONS / sizeof EXPECTATIONS_OPTIONS[0],
    "REPORT.json",
    0,
    0,
    "usage: devspec expectations REPORT.json\n"
    "\n"
    "Prints an expectations file for the failures of a report: a line '<id> <status> # reason'\n"
    "per case whose observed status was fail, error, crash or lacks, the reason the report's\n"
    "message (replace it with the library's issue); a timeout is written as a comment, since\n"
    "it depends on the machine's load. Review it before committing it.\n"
    "\n"
    "options:\n",
    NULL};

static int cmd_expectations(int argc, char **argv)
{
    dsr_strlist reports = {0};
    int rc = dsr__options_parse(&EXPECTATIONS_COMMAND, argc, argv, 2, &reports);
    if (rc == 0 && reports.n != 1)
        rc = usage_error("%s", "expectations needs one report: devspec expectations REPORT.json");
    if (rc) {
        dsr__strlist_free(&reports);
        return rc == DSR_OPT_HELP_SHOWN ? 0 : rc;
    }
    int code = expectations_of(reports.items[0]);
    dsr__strlist_free(&reports);
    return code;
}

/* Every command's output ends here: a write to stdout that failed (a full disk, /dev/full,
 * a closed pipe) is reported and makes the exit status 3 when it was 0 or 1. */
static int stdout_checked(int rc)
{
    if (dsr__flush_failed(stdout)) {
        fprintf(stderr, "devspec: cannot write to standard output: %s\n", dsr__strerror(errno));
        return rc == DSR_EXIT_USAGE ? DSR_EXIT_USAGE : DSR_EXIT_INCOMPLETE;
    }
    return rc;
}

int main(int argc, char **argv)
{
    dsr__memory_setup();
    if (argc < 2) {
        dsr__options_help(&RUN_COMMAND, stderr);
        return DSR_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        dsr__options_help(&RUN_COMMAND, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("devspec %s (protocol %d, report version %d)\n", DEVSPEC_VERSION,
               DSR_PROTOCOL_VERSION, DSR_REPORT_VERSION);
#ifdef DEVSPEC_BUILT_WITHOUT
        /* What the build left out (CMake's DEVSPEC_LEFT_OUT), one part per line. */
        for (const char *p = DEVSPEC_BUILT_WITHOUT, *e; *p; p = *e ? e + 1 : e) {
            e = strchr(p, '\n');
            if (e == NULL) e = p + strlen(p);
            printf("built without %.*s\n", (int)(e - p), p);
        }
#endif
        return 0;
    }
    if (!strcmp(cmd, "expectations")) return stdout_checked(cmd_expectations(argc, argv));
    if (strcmp(cmd, "run") && strcmp(cmd, "list") && strcmp(cmd, "coverage") &&
        strcmp(cmd, "validate") && strcmp(cmd, "compare") && strcmp(cmd, "probe") &&
        strcmp(cmd, "repro") && strcmp(cmd, "verdict"))
        return usage_error("unknown command '%s' (run, list, coverage, validate, expectations, "
                           "compare, probe, repro, verdict)",
                           cmd);
    if (!strcmp(cmd, "compare")) return dsr__compare_main(argc - 1, argv + 1, source_root());
    if (!strcmp(cmd, "probe"))
        return dsr__probe_main(argc - 1, argv + 1, source_root(), build_root());
    if (!strcmp(cmd, "repro"))
        return stdout_checked(dsr__repro_main(argc - 1, argv + 1, source_root(), build_root()));
    if (!strcmp(cmd, "verdict"))
        return stdout_checked(dsr__verdict_main(argc - 1, argv + 1, source_root()));

    signal(SIGPIPE, SIG_IGN);
    /* Only a run has something to save on a signal (its reports); list, coverage and
     * validate keep the default action and end at once. */
    if (!strcmp(cmd, "run")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sigint;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0; /* no SA_RESTART: poll() must return EINTR */
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        /* A closed terminal or ssh session (SIGHUP) stops a run as Ctrl-C does: the reports
         * are finished as interrupted rather than lost with the process. Under nohup it is
         * ignored already, and stays so. */
        struct sigaction hup;
        if (sigaction(SIGHUP, NULL, &hup) == 0 && hup.sa_handler != SIG_IGN)
            sigaction(SIGHUP, &sa, NULL);
    }

    args a;
    memset(&a, 0, sizeof a);
    int rc = parse(argc, argv, 2, &a, cmd);
    if (rc == DSR_OPT_HELP_SHOWN)
        rc = 0;
    else if (rc == 0) {
        /* Adapters files of one's own: --adapters FILE (repeatable), then DEVSPEC_ADAPTERS
         * (FILE:FILE...), both before the suite's adapters/adapters.json. */
        const char *env = getenv("DEVSPEC_ADAPTERS");
        for (const char *p = env; p && *p;) {
            const char *colon = strchr(p, ':');
            size_t len = colon ? (size_t)(colon - p) : strlen(p);
            if (len) {
                char *one = dsr__xmalloc(len + 1);
                memcpy(one, p, len);
                one[len] = '\0';
                dsr__strlist_add(&a.adapter_files, one);
                free(one);
            }
            p += len + (colon ? 1 : 0);
        }
        dsr__named_adapter_files(a.adapter_files.items, a.adapter_files.n);
        if (!strcmp(cmd, "run"))
            rc = cmd_run(&a, argc, argv);
        else if (!strcmp(cmd, "list"))
            rc = cmd_list(&a);
        else if (!strcmp(cmd, "coverage"))
            rc = cmd_coverage(&a);
        else
            rc = cmd_validate(&a);
    }
    free_args(&a);
    return stdout_checked(rc);
}
