/* The expectations file: a library's known results. One entry per line,
 *   <case id or glob> <status> [# reason]
 * with '#' comments and blank lines ignored. Statuses: fail, error, crash, timeout, lacks (an
 * expected failure of that exact class), skip (do not run: for cases that hang or damage
 * later cases), pass (documents a case that must pass; changes nothing), and
 * intermittent-crash: the library may crash at random in a case it names, and such a crash
 * out of process is run once more on a fresh worker, the second run's result being the
 * case's (run.c; spec/decisions.md, Runner and reports 46). The first entry that matches a
 * case is its expectation; intermittent-crash entries are matched apart, so that a case has
 * at most one of each. */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

static const char *const STATUS_NAMES[DSR_STATUS_COUNT] = {
    "pass", "fail", "error", "skip", "xfail", "xpass", "crash", "timeout", "lacks"};

const char *dsr__status_name(dsr_status s)
{
    return (unsigned)s < DSR_STATUS_COUNT ? STATUS_NAMES[s] : "?";
}

bool dsr__status_unexpected(dsr_status s)
{
    return s == DSR_FAIL || s == DSR_ERROR || s == DSR_CRASH || s == DSR_TIMEOUT || s == DSR_LACKS;
}

/* The entry status that is no result status: it never makes an xfail or an xpass. */
static const char INTERMITTENT[] = "intermittent-crash";

const char *dsr__expectation_status_name(const dsr_expectation *x)
{
    return x->intermittent ? INTERMITTENT : dsr__status_name(x->status);
}

int dsr__status_parse(const char *name)
{
    for (int i = 0; i < DSR_STATUS_COUNT; i++)
        if (!strcmp(STATUS_NAMES[i], name)) return i;
    return -1;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        *--e = '\0';
    return s;
}

int dsr__expectations_load(dsr_expectations *e, const char *path, FILE *err)
{
    memset(e, 0, sizeof *e);
    size_t len;
    char *text = dsr__read_file(path, &len);
    if (!text) {
        fprintf(err, "%s: cannot read expectations file: %s\n", path, dsr__strerror(errno));
        return 1;
    }
    int problems = dsr__expectations_parse(e, path, text, len, err);
    free(text);
    return problems;
}

int dsr__expectations_parse(dsr_expectations *e, const char *path, const char *data, size_t len,
                            FILE *err)
{
    memset(e, 0, sizeof *e);
    e->path = dsr__xstrdup(path);
    dsr__sha256_hex(data, len, e->sha256);
    /* The reasons go into the JSON report, the journal and TAP: the file must be UTF-8, and
     * a NUL byte would hide the rest of its line from the C strings below. */
    const char *nul = memchr(data, '\0', len);
    long bad = dsr__utf8_invalid_at(data, nul ? (size_t)(nul - data) : len);
    if (bad >= 0 || nul) {
        size_t off = bad >= 0 ? (size_t)bad : (size_t)(nul - data);
        int line = 1, col = 1;
        for (size_t i = 0; i < off; i++, col++)
            if (data[i] == '\n') line++, col = 0;
        fprintf(err, "%s:%d:%d: %s\n", path, line, col,
                bad >= 0 ? "invalid UTF-8 (an expectations file is UTF-8 text)"
                         : "NUL byte (an expectations file is text)");
        return 1;
    }
    char *text = dsr__xmalloc(len + 1);
    memcpy(text, data, len);
    text[len] = '\0';
    int problems = 0;
    int line = 0;
    char *save = NULL;
    /* strtok_r would merge empty lines and lose the numbering; split by hand. */
    for (char *p = text; p && *p; line++) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = '\0';
        char *cur = p;
        p = nl ? nl + 1 : NULL;
        char *reason = strchr(cur, '#');
        if (reason) *reason++ = '\0';
        cur = trim(cur);
        if (!*cur) continue;
        char *pattern = strtok_r(cur, " \t", &save);
        char *status = strtok_r(NULL, " \t", &save);
        char *extra = strtok_r(NULL, " \t", &save);
        bool intermittent = status && !strcmp(status, INTERMITTENT);
        int st = intermittent ? DSR_CRASH : status ? dsr__status_parse(status) : -1;
        if (!status) {
            fprintf(err,
                    "%s:%d: '%s' has no status (expected '<id or glob> <status> [# reason]')\n",
                    path, line + 1, pattern);
            problems++;
            continue;
        }
        if (extra) {
            fprintf(err, "%s:%d: unexpected '%s' after the status (a reason starts with '#')\n",
                    path, line + 1, extra);
            problems++;
            continue;
        }
        if (st < 0 || st == DSR_XFAIL || st == DSR_XPASS) {
            fprintf(err,
                    "%s:%d: '%s' is not a status here (use pass, fail, error, crash, "
                    "intermittent-crash, timeout, lacks or skip)\n",
                    path, line + 1, status);
            problems++;
            continue;
        }
        e->items = dsr__xrealloc(e->items, sizeof(dsr_expectation) * (size_t)(e->count + 1));
        dsr_expectation *x = &e->items[e->count++];
        x->pattern = dsr__xstrdup(pattern);
        x->status = (dsr_status)st;
        x->intermittent = intermittent;
        x->reason = dsr__xstrdup(reason ? trim(reason) : "");
        x->line = line + 1;
        x->matches = 0;
        x->shadowed_by = 0;
    }
    free(text);
    return problems;
}

void dsr__expectations_free(dsr_expectations *e)
{
    for (int i = 0; i < e->count; i++) {
        free(e->items[i].pattern);
        free(e->items[i].reason);
    }
    free(e->items);
    free(e->path);
    memset(e, 0, sizeof *e);
}

/* The first entry of E of the kind INTERMITTENT that matches ID, or -1; COUNT: the match is
 * counted, and the later entries of that kind that match ID too are shadowed by it for ID
 * (one that never applies to any case is reported as shadowed, not as stale). */
static int first_match(const dsr_expectations *e, const char *id, bool intermittent, bool count)
{
    for (int i = 0; e && i < e->count; i++) {
        dsr_expectation *x = &e->items[i];
        if (x->intermittent != intermittent || fnmatch(x->pattern, id, 0) != 0) continue;
        if (!count) return i;
        x->matches++;
        for (int k = i + 1; k < e->count; k++)
            if (e->items[k].intermittent == intermittent && !e->items[k].shadowed_by &&
                fnmatch(e->items[k].pattern, id, 0) == 0)
                e->items[k].shadowed_by = x->line;
        return i;
    }
    return -1;
}

dsr_expectation *dsr__expectations_match(dsr_expectations *e, const char *id)
{
    first_match(e, id, true, true);
    int i = first_match(e, id, false, true);
    return i < 0 ? NULL : &e->items[i];
}

const dsr_expectation *dsr__expectations_intermittent(const dsr_expectations *e, const char *id)
{
    int i = first_match(e, id, true, false);
    return i < 0 ? NULL : &e->items[i];
}

/* An expectation matches only the same outcome class: an expected fail that becomes a crash
 * is a new failure. */
void dsr__expectation_apply(dsr_result *res)
{
    res->raw_status = res->status;
    const dsr_expectation *x = res->expectation;
    if (!x || x->status == DSR_PASS || x->status == DSR_SKIP) return;
    if (res->status == DSR_PASS)
        res->status = DSR_XPASS;
    else if (res->status == x->status)
        res->status = DSR_XFAIL;
}
