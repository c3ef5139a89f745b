/* devspec compare: the differential matrix of several reports, side by side. The command:
 * its options, reading the reports and the spec (compare_model.c builds the matrix), and the
 * views: the terminal table (compare_table.c), the model as JSON, the page (compare_html.c).
 * Statements and features aggregate the cases that cite them. */
#define _POSIX_C_SOURCE 200809L
#include "compare_table.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* What the command line asks of compare. */
typedef struct compare_args {
    dsr_strlist paths, cases, only, statuses;
    const char *spec, *html, *by;
    bool json, plain, color, quiet, disagree, details;
} compare_args;

static const char *check_by(const char *v)
{
    return strcmp(v, "statement") && strcmp(v, "case") && strcmp(v, "feature")
               ? "--by takes statement, case or feature, not '%s'"
               : NULL;
}

static const char *check_status(const char *v)
{
    return dsr__compare_status_bit(v)
               ? NULL
               : "unknown status '%s' (pass fail error skip xfail xpass crash timeout "
                 "lacks)";
}

#define ARG(field) offsetof(compare_args, field)
#define OPT(name, kind, field, usage, help)                                                        \
    {                                                                                              \
        name, DSR_OPT_##kind, ARG(field), usage, help, NULL, 0, 0                                  \
    }

static const dsr_option COMPARE_OPTIONS[] = {
    OPT("--html", STRING, html, "--html PATH",
        "also write the matrix as one self-contained HTML page"),
    OPT("--json", FLAG_ON, json, "--json", "print the matrix model as JSON instead of the table"),
    {"--by", DSR_OPT_STRING, ARG(by), "--by statement|case|feature",
     "the table's rows (default statement)", check_by, 0, 0},
    OPT("--details", FLAG_ON, details, "--details",
        "under each case row, what each library returned where a\n"
        "step did not hold, beside what the case expected; under\n"
        "each statement row, its level, text and source"),
    OPT("--library", LIST, only, "--library LABEL",
        "only this library (repeatable, in the order given)"),
    {"--status", DSR_OPT_LIST, ARG(statuses), "--status S",
     "only rows where some library has status S (repeatable)", check_status, 0, 0},
    OPT("--disagree", FLAG_ON, disagree, "--disagree",
        "only rows where the libraries' observed results differ"),
    OPT("--cases", LIST, cases, "--cases PATH",
        "case files for descriptions and steps (default the suite's)"),
    OPT("--plain", FLAG_ON, plain, "--plain / --color",
        "no colour (the default when stdout is not a terminal) / colour"),
    OPT("--color", FLAG_ON, color, NULL, NULL),
    OPT("--quiet", FLAG_ON, quiet, "--quiet", "no table (with --html)"),
    OPT("--spec", STRING, spec, "--spec DIR", "the spec directory (default: the suite's spec/)"),
    OPT("--help", HELP, paths, "--help", "this help"),
    OPT("-h", HELP, paths, NULL, NULL),
};

#undef OPT
#undef ARG

static const dsr_command COMPARE_COMMAND = {
    "compare",
    COMPARE_OPTIONS,
    sizeof COMPARE_OPTIONS / sizeof COMPARE_OPTIONS[0],
    "REPORT.json|DIR",
    offsetof(compare_args, paths),
    0,
    "usage: devspec compare [OPTIONS] REPORT.json... | DIR\n"
    "\n"
    "The reports side by side, one column per library: statements, features or cases x\n"
    "libraries in the terminal, and one self-contained HTML page with --html. A DIR gives\n"
    "its *.json reports. devspec probe runs case files and compares their reports so\n"
    "(devspec probe --help).\n"
    "\n"
    "compare options:\n",
    "\n"
    "Exit status: 0; 2 a usage error or a report that cannot be read; 3 the page could not be\n"
    "written.\n"};

static void compare_args_free(compare_args *a)
{
    dsr__strlist_free(&a->paths);
    dsr__strlist_free(&a->cases);
    dsr__strlist_free(&a->only);
    dsr__strlist_free(&a->statuses);
}

static int usage(const char *fmt, const char *arg)
{
    return dsr__usage_error("compare", fmt, arg);
}

/* The command: the reports read (compare_model.c), the checks that the page replaces no
 * input, the spec and case files, then the views; the cleanup is one place at the end. */
int dsr__compare_main(int argc, char **argv, const char *source)
{
    compare_args a = {.by = "statement"};
    int rc = dsr__options_parse(&COMPARE_COMMAND, argc, argv, 1, &a);
    if (rc == DSR_OPT_HELP_SHOWN)
        rc = 0;
    else if (!rc && a.paths.n == 0)
        rc = usage("%s", "needs reports: devspec compare REPORT.json... | DIR");
    if (rc || a.paths.n == 0) {
        compare_args_free(&a);
        return rc;
    }
    const char *spec = a.spec, *html = a.html;
    bool json = a.json, plain = a.plain, force_color = a.color, quiet = a.quiet;
    dsr_compare_view v = {.by = a.by, .details = a.details, .disagree_only = a.disagree};
    for (int i = 0; i < a.statuses.n; i++)
        v.status_mask |= dsr__compare_status_bit(a.statuses.items[i]);
    char **paths = a.paths.items, **cases = a.cases.items, **only = a.only.items;
    int npaths = a.paths.n, ncases = a.cases.n, nonly = a.only.n;

    dsr_compare_in *in = dsr__compare_in_new();
    /* The reports' schema is the runner's (the source tree's), whatever --spec names. */
    dsr_buf schema = {0};
    dsr__buf_printf(&schema, "%s/spec/schema/report.json", source);
    dsr__compare_set_schema(in, schema.data);
    dsr__buf_free(&schema);
    rc = dsr__compare_read_reports(in, paths, npaths, only, nonly);
    /* The page never replaces a report it was made from, nor a case file. */
    const char *report = html && !rc ? dsr__compare_report_file(in, html) : NULL;
    if (report) {
        fprintf(stderr, "devspec: compare: --html %s is the report %s\n", html, report);
        rc = DSR_EXIT_USAGE;
    }
    dsr_buf specdir = {0};
    if (spec)
        dsr__buf_puts(&specdir, spec);
    else
        dsr__buf_printf(&specdir, "%s/spec", source);
    /* Nor a case file, nor a file of the spec it reads. */
    dsr_inputs inputs = {0};
    for (int i = 0; i < ncases; i++)
        dsr__inputs_add_tree(&inputs, cases[i], "case");
    dsr__inputs_add_tree(&inputs, specdir.data, "spec");
    if (!rc) rc = dsr__check_output("compare", html, "--html", &inputs);
    dsr__inputs_free(&inputs);
    dsr_compare_spec sp = {0};
    dsr_registry reg;
    bool have_reg = false;
    if (!rc) {
        if (dsr__compare_spec_read(&sp, specdir.data) != 0 ||
            dsr__registry_load(&reg, specdir.data) != 0)
            rc = DSR_EXIT_USAGE;
        else
            have_reg = true;
    }
    if (!rc) {
        if (ncases == 0) {
            dsr_buf def = {0};
            dsr__buf_printf(&def, "%s/conformance/cases", source);
            if (dsr__is_dir(def.data)) dsr__compare_add_cases(in, def.data);
            dsr__buf_free(&def);
        }
        for (int i = 0; i < ncases; i++)
            dsr__compare_add_cases(in, cases[i]);
        cJSON *m = dsr__compare_model(in, &sp, have_reg ? &reg : NULL);
        if (html && dsr__compare_html_write(html, m) != 0) {
            fprintf(stderr, "devspec: compare: cannot write %s: %s\n", html, dsr__strerror(errno));
            rc = DSR_EXIT_INCOMPLETE;
        }
        if (json) {
            char *s = dsr__print(m, true);
            puts(s);
            cJSON_free(s);
        } else if (!quiet) {
            bool tty = isatty(1);
            const char *nc = getenv("NO_COLOR");
            v.color = force_color || (tty && !plain && !(nc && nc[0]));
            if (tty && !plain) {
                struct winsize ws;
                if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) v.width = ws.ws_col;
            }
            dsr__compare_print_table(stdout, m, &v);
        }
        if (html && !rc) fprintf(stderr, "devspec: compare: wrote %s\n", html);
        cJSON_Delete(m);
    }
    if (have_reg) dsr__registry_free(&reg);
    dsr__compare_spec_free(&sp);
    dsr__buf_free(&specdir);
    dsr__compare_in_free(in);
    compare_args_free(&a);
    return rc;
}
