/* The command line's options: each subcommand is a table (dsr_command) that says what every
 * option sets in the subcommand's own struct and how --help shows it. One parser reads every
 * subcommand's arguments, one printer writes every subcommand's help, and every usage error
 * names the option or argument and the reason. */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The longest timeout accepted, in seconds (11.5 days): a number beyond it is a mistake, and
 * deadlines stay far from where a double loses its sub-second precision. */
#define MAX_SECONDS 1e6

/* Where the help's text column starts, and the width of the option column before it. */
#define HELP_INDENT 26
#define HELP_OPTION 23

static bool takes_value(dsr_opt_kind k)
{
    return k == DSR_OPT_LIST || k == DSR_OPT_STRING || k == DSR_OPT_SECONDS || k == DSR_OPT_COUNT ||
           k == DSR_OPT_PASS;
}

static int usage(const dsr_command *c, const char *fmt, const char *arg)
{
    return dsr__usage_error(c->prefix, fmt, arg);
}

/* "--timeout needs a finite number of seconds from 0 to 1e6, not 'x'" */
static int bad_value(const dsr_command *c, const dsr_option *o, const char *what, const char *v)
{
    char fmt[160];
    snprintf(fmt, sizeof fmt, "%s needs %s, not '%%s'", o->name, what);
    return usage(c, fmt, v);
}

/* Stores V, the value of option O (NULL for one that takes none), in OUT. Returns 0 or the
 * usage error's status. */
static int set_option(const dsr_command *c, const dsr_option *o, const char *v, void *out)
{
    char *at = (char *)out + o->field;
    char *end;
    if (v && o->check) {
        const char *why = o->check(v);
        if (why) return usage(c, why, v);
    }
    switch (o->kind) {
    case DSR_OPT_LIST:
        dsr__strlist_add((dsr_strlist *)(void *)at, v);
        return 0;
    case DSR_OPT_STRING:
        *(const char **)(void *)at = v;
        return 0;
    case DSR_OPT_SECONDS: {
        /* "nan", "inf" and "1e400" (which strtod reads as infinity) would turn the timeout
         * off silently and put a null timeout into the report. */
        errno = 0;
        double s = strtod(v, &end);
        if (*end || !v[0] || errno == ERANGE || !isfinite(s) || s < 0 || s > MAX_SECONDS)
            return bad_value(c, o, "a finite number of seconds from 0 to 1e6", v);
        *(double *)(void *)at = s;
        return 0;
    }
    case DSR_OPT_COUNT: {
        errno = 0;
        long n = strtol(v, &end, 10);
        if (*end || !v[0] || errno == ERANGE || n < o->lo || n > o->hi) {
            char what[64];
            if (o->hi == DSR_OPT_COUNT_MAX)
                snprintf(what, sizeof what, "a count >= %d", o->lo);
            else
                snprintf(what, sizeof what, "a count %d..%d", o->lo, o->hi);
            return bad_value(c, o, what, v);
        }
        *(int *)(void *)at = (int)n;
        return 0;
    }
    case DSR_OPT_FLAG_ON:
    case DSR_OPT_FLAG_OFF:
        *(bool *)(void *)at = o->kind == DSR_OPT_FLAG_ON;
        return 0;
    case DSR_OPT_PASS:
    case DSR_OPT_PASS_FLAG:
        dsr__strlist_add((dsr_strlist *)(void *)at, o->name);
        if (v) dsr__strlist_add((dsr_strlist *)(void *)at, v);
        return 0;
    case DSR_OPT_HELP:
    case DSR_OPT_TEXT:
        return 0;
    }
    return 0;
}

/* The option of C that ARG names ("--name" or "--name=value"), or NULL; *VALUE is the value
 * after '=' or NULL. */
static const dsr_option *find(const dsr_command *c, const char *arg, const char **value)
{
    *value = NULL;
    for (size_t k = 0; k < c->noptions; k++) {
        const dsr_option *o = &c->options[k];
        if (!o->name || o->kind == DSR_OPT_TEXT) continue;
        size_t n = strlen(o->name);
        if (strncmp(arg, o->name, n)) continue;
        if (arg[n] == '\0') return o;
        if (arg[n] == '=' && takes_value(o->kind)) {
            *value = arg + n + 1;
            return o;
        }
    }
    return NULL;
}

static bool is_help(const char *arg)
{
    return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

int dsr__options_parse(const dsr_command *c, int argc, char **argv, int first, void *out)
{
    /* --help anywhere is the help, whatever else is there (a person asking for it while a
     * command line is half written). */
    for (int i = first; i < argc; i++)
        if (is_help(argv[i])) {
            dsr__options_help(c, stdout);
            return DSR_OPT_HELP_SHOWN;
        }
    int positionals = 0;
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        const char *v;
        const dsr_option *o = find(c, arg, &v);
        if (!o) {
            bool option = arg[0] == '-' && arg[1];
            if (c->positional && !option &&
                (!c->max_positional || positionals < c->max_positional)) {
                dsr__strlist_add((dsr_strlist *)(void *)((char *)out + c->positional_field), arg);
                positionals++;
                continue;
            }
            return usage(c,
                         c->positional && option ? "unknown option '%s'"
                                                 : "unknown option or argument '%s'",
                         arg);
        }
        if (takes_value(o->kind) && !v) {
            if (i + 1 >= argc) return usage(c, "%s needs a value", arg);
            v = argv[++i];
        }
        int rc = set_option(c, o, v, out);
        if (rc) return rc;
    }
    return 0;
}

/* TEXT at the help's text column: its lines after the first are indented to it. */
static void put_indented(FILE *out, const char *text)
{
    for (const char *p = text; *p; p++) {
        fputc(*p, out);
        if (*p == '\n' && p[1]) fprintf(out, "%*s", HELP_INDENT, "");
    }
    fputc('\n', out);
}

void dsr__options_help(const dsr_command *c, FILE *out)
{
    if (c->intro) fputs(c->intro, out);
    for (size_t k = 0; k < c->noptions; k++) {
        const dsr_option *o = &c->options[k];
        if (!o->usage) {
            if (o->kind == DSR_OPT_TEXT && o->help) fprintf(out, "%s\n", o->help);
            continue;
        }
        int n = (int)strlen(o->usage);
        if (!o->help || !o->help[0]) {
            fprintf(out, "  %s\n", o->usage);
            continue;
        }
        fprintf(out, "  %s%*s", o->usage, n > HELP_OPTION ? 2 : HELP_OPTION + 1 - n, "");
        put_indented(out, o->help);
    }
    if (c->notes) fputs(c->notes, out);
}
