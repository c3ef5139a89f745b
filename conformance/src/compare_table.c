/* devspec compare's terminal table, drawn from the model (compare_model.c): statements,
 * features or cases by libraries, a cell per library (or the aggregate of a statement's or
 * feature's cases), --details under each row, every string from a report shown safe for a
 * terminal (control characters escaped). */
#define _POSIX_C_SOURCE 200809L
#include "compare_table.h"

#include <stdlib.h>
#include <string.h>

static const char *short_status(const char *s)
{
    static const char *const names[][2] = {
        {"pass", "pass"},   {"fail", "FAIL"},    {"error", "ERROR"},
        {"skip", "skip"},   {"xfail", "xfail"},  {"xpass", "XPASS"},
        {"crash", "CRASH"}, {"timeout", "TIME"}, {"lacks", "LACKS"}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(names[i][0], s)) return names[i][1];
    return "?";
}

static const char *status_color(const char *s)
{
    if (!strcmp(s, "pass")) return "\033[32m";
    if (!strcmp(s, "skip") || !strcmp(s, "-")) return "\033[2m";
    if (!strcmp(s, "xfail")) return "\033[33m";
    return "\033[1;31m";
}

static const char *cell_status(const cJSON *cell)
{
    if (cJSON_IsString(cell)) return cell->valuestring;
    const char *s = str_of(cell, "status");
    return s ? s : "-";
}

/* Prints S for a terminal: control characters (a library's message may hold escape
 * sequences) become \xNN, a NUL (held as the bytes C0 80, see dsjson.h) \x00, and at most
 * MAX bytes are shown (0: all). */
static void put_safe(FILE *out, const char *s, size_t max)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++, n++) {
        if (max && n >= max) {
            fputs("...", out);
            return;
        }
        unsigned cp;
        size_t h = dsr__hidden_char((const char *)p, &cp);
        if (p[0] == 0xc0 && p[1] == 0x80) {
            fputs("\\x00", out);
            p++;
        } else if (h) {
            fprintf(out, "\\u%04x", cp);
            p += h - 1;
        } else if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\x%02x", *p);
        else
            fputc(*p, out);
    }
}

static void put_cell(FILE *out, const dsr_compare_view *v, const char *word, const char *status,
                     int width)
{
    if (v->color) fputs(status_color(status), out);
    fprintf(out, "%-*s", width, word);
    if (v->color) fputs("\033[0m", out);
}

typedef struct agg {
    int ran;
    int passed;
    int bad; /* fail, error, crash, timeout, lacks */
    int xfail;
} agg;

static void agg_add(agg *a, const cJSON *cell)
{
    const char *s = cell_status(cell);
    if (!strcmp(s, "-") || !strcmp(s, "skip")) return;
    a->ran++;
    if (!strcmp(s, "pass") || !strcmp(s, "xpass"))
        a->passed++;
    else if (!strcmp(s, "xfail"))
        a->xfail++;
    else
        a->bad++;
}

static const char *agg_status(const agg *a)
{
    return !a->ran ? "skip" : a->bad ? "fail" : a->xfail ? "xfail" : "pass";
}

/* Whether a row is shown: --disagree, and --status (some cell has one of the statuses). */
static bool row_wanted(const dsr_compare_view *v, bool disagree, unsigned statuses)
{
    if (v->disagree_only && !disagree) return false;
    if (v->status_mask && !(v->status_mask & statuses)) return false;
    return true;
}

unsigned dsr__compare_status_bit(const char *s)
{
    int k = dsr__status_parse(s);
    return k < 0 ? 0 : 1u << k;
}

static void print_value(FILE *out, const cJSON *v, size_t max)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(v, "error");
    if (cJSON_IsObject(e) && cJSON_GetArraySize(v) == 1) {
        const char *kind = str_of(e, "kind"), *msg = str_of(e, "message");
        const char *origin = str_of(e, "origin");
        fputs("raises ", out);
        put_safe(out, kind ? kind : "?", 80);
        if (origin && strcmp(origin, "library")) fprintf(out, " (origin %s)", origin);
        if (msg) {
            fputs(": ", out);
            put_safe(out, msg, max);
        }
        return;
    }
    char *s = dsr__print(v, false);
    put_safe(out, s ? s : "null", max);
    cJSON_free(s);
}

/* Under a case row: every outcome other than pass and skip, the libraries that had it, what
 * the step expected and what came back. */
static void print_details(FILE *out, const dsr_compare_view *v, const cJSON *m, const cJSON *c)
{
    const cJSON *libs = cJSON_GetObjectItemCaseSensitive(m, "libraries");
    const cJSON *cells = cJSON_GetObjectItemCaseSensitive(c, "cells");
    int n = cJSON_GetArraySize(cells);
    bool *done = xcalloc((size_t)(n ? n : 1), sizeof *done);
    const char *desc = str_of(c, "description");
    if (desc) {
        fputs("      ", out);
        put_safe(out, desc, 400);
        fputc('\n', out);
    }
    for (int i = 0; i < n; i++) {
        const cJSON *ci = cJSON_GetArrayItem(cells, i);
        const char *key = str_of(ci, "outcome");
        if (done[i] || !cJSON_IsObject(ci)) continue;
        const char *st = cell_status(ci);
        if (!key && !strcmp(st, "skip")) {
            done[i] = true;
            continue;
        }
        fputs("    ", out);
        for (int k = i; k < n; k++) {
            const cJSON *ck = cJSON_GetArrayItem(cells, k);
            const char *kk = str_of(ck, "outcome");
            if (done[k] || !cJSON_IsObject(ck)) continue;
            if (k != i && !(key && kk && !strcmp(key, kk))) continue;
            done[k] = true;
            fputs(k == i ? "" : ", ", out);
            const char *label = str_of(cJSON_GetArrayItem(libs, k), "label");
            put_safe(out, label ? label : "?", 60);
            fputc(' ', out);
            put_cell(out, v, cell_status(ck), cell_status(ck), 0);
        }
        fputc('\n', out);
        const cJSON *step = cJSON_GetObjectItemCaseSensitive(ci, "step");
        const char *op = str_of(ci, "op");
        const cJSON *exp = cJSON_GetObjectItemCaseSensitive(ci, "expected");
        const cJSON *obs = cJSON_GetObjectItemCaseSensitive(ci, "observed");
        if (cJSON_IsNumber(step))
            fprintf(out, "      step %d%s%s%s\n", step->valueint, op ? " (" : "", op ? op : "",
                    op ? ")" : "");
        if (exp) {
            fputs("      expected  ", out);
            print_value(out, exp, 300);
            fputc('\n', out);
        }
        if (obs) {
            fputs("      observed  ", out);
            print_value(out, obs, 300);
            fputc('\n', out);
        }
        const char *reason = str_of(ci, "reason");
        if (reason && !obs) {
            fputs("      reason    ", out);
            put_safe(out, reason, 300);
            fputc('\n', out);
        }
    }
    /* The libraries that did not run the case, and why. */
    bool first = true;
    for (int i = 0; i < n; i++) {
        const cJSON *ci = cJSON_GetArrayItem(cells, i);
        if (strcmp(cell_status(ci), "skip")) continue;
        const cJSON *li = cJSON_GetArrayItem(libs, i);
        fputs(first ? "    skip: " : "; ", out);
        first = false;
        put_safe(out, str_of(li, "label") ? str_of(li, "label") : "?", 60);
        const char *reason = str_of(ci, "reason");
        if (reason) {
            fputs(" (", out);
            put_safe(out, reason, 200);
            fputc(')', out);
        } else {
            /* an unsupported skip: the case's features the library does not claim */
            const cJSON *claimed = cJSON_GetObjectItemCaseSensitive(li, "features_claimed");
            const cJSON *f;
            bool any = false;
            cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(c, "features"))
            {
                bool has = false;
                const cJSON *x;
                cJSON_ArrayForEach(x, claimed)
                {
                    has = has || (cJSON_IsString(x) && cJSON_IsString(f) &&
                                  !strcmp(x->valuestring, f->valuestring));
                }
                if (has || !cJSON_IsString(f)) continue;
                fputs(any ? ", " : " (lacks ", out);
                put_safe(out, f->valuestring, 80);
                any = true;
            }
            if (any) fputc(')', out);
        }
    }
    if (!first) fputc('\n', out);
    free(done);
}

/* Under a statement row: its level, text and source (spec/statements.json). */
static void print_statement(FILE *out, const cJSON *statements, const char *id)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, statements)
    {
        const char *sid = str_of(s, "id");
        if (!sid || strcmp(sid, id)) continue;
        const char *level = str_of(s, "level"), *text = str_of(s, "text");
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(s, "source");
        const char *title = str_of(src, "title"), *doc = str_of(src, "document");
        const char *section = str_of(src, "section");
        fputs("      ", out);
        put_safe(out, level ? level : "?", 40);
        fputs(": ", out);
        put_safe(out, text ? text : "", 0);
        fputs("\n      source: ", out);
        put_safe(out, title ? title : doc ? doc : "?", 200);
        if (section) {
            fputs(", ", out);
            put_safe(out, section, 200);
        }
        fputc('\n', out);
        return;
    }
}

/* The table's first lines: the counts, and each library with its number. */
static void print_legend(FILE *out, const cJSON *m)
{
    const cJSON *libs = cJSON_GetObjectItemCaseSensitive(m, "libraries");
    int nl = cJSON_GetArraySize(libs);
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(m, "summary");
    fprintf(out,
            "devspec compare: %d libraries, %d cases, %d where the libraries disagree, %d where "
            "they pass through different alternatives\n",
            nl, cJSON_GetObjectItemCaseSensitive(sum, "cases")->valueint,
            cJSON_GetObjectItemCaseSensitive(sum, "disagree")->valueint,
            (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(sum, "paths_differ")));
    int li = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, libs)
    {
        const char *ver = str_of(l, "version");
        const char *name = str_of(l, "library");
        const char *err = str_of(l, "error");
        const char *why = str_of(l, "incomplete_reason");
        fprintf(out, "  [%d] ", ++li);
        put_safe(out, str_of(l, "label"), 60);
        fputs(": ", out);
        put_safe(out, name ? name : "?", 60);
        fputc(' ', out);
        put_safe(out, ver ? ver : "?", 40);
        if (err || why) {
            fputs(" (incomplete: ", out);
            put_safe(out, err ? err : why, 200);
            fputc(')', out);
        }
        fputc('\n', out);
    }
}

/* The table's rows: label, disagreement mark, one cell per library. */
typedef struct rows {
    int n;
    char **labels;
    char *dis;             /* per row: '*' the outcomes differ, '~' only the alternatives passed */
    agg *cells;            /* n * the libraries */
    const cJSON **caserow; /* by case: the row's case */
} rows;

/* The rows V asks for: a row per case, or per statement or feature with the cases that cite
 * it, those the filters keep. */
static rows collect_rows(const cJSON *m, const dsr_compare_view *v, int nl)
{
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(m, "cases");
    const cJSON *statements = cJSON_GetObjectItemCaseSensitive(m, "statements");
    const cJSON *features = cJSON_GetObjectItemCaseSensitive(m, "features");
    bool by_case = !strcmp(v->by, "case");
    bool by_feature = !strcmp(v->by, "feature");
    const cJSON *groups = by_feature ? features : statements;
    int ngroups = by_case ? cJSON_GetArraySize(cases) : cJSON_GetArraySize(groups);
    int nrows = 0;
    char **labels = dsr__xmalloc(sizeof *labels * (size_t)(ngroups + 1));
    char *dis = dsr__xmalloc(sizeof *dis * (size_t)(ngroups + 1));
    const cJSON **caserow = dsr__xmalloc(sizeof *caserow * (size_t)(ngroups + 1));
    agg *cells = xcalloc((size_t)(ngroups + 1) * (size_t)(nl ? nl : 1), sizeof *cells);
    const cJSON *gi = by_case ? (cases ? cases->child : NULL) : (groups ? groups->child : NULL);
    for (int g = 0; g < ngroups && gi; g++, gi = gi->next) {
        const char *name = str_of(gi, by_case ? "id" : by_feature ? "name" : "id");
        if (!name) continue;
        agg *a = &cells[(size_t)nrows * (size_t)nl];
        bool d = false, pd = false;
        unsigned statuses = 0;
        int ncases = 0;
        /* A case row is its own case; a statement or feature row, the cases citing it. */
        for (const cJSON *c = by_case ? gi : cases->child; c; c = by_case ? NULL : c->next) {
            if (!by_case) {
                bool cites = false;
                const cJSON *x;
                cJSON_ArrayForEach(
                    x, cJSON_GetObjectItemCaseSensitive(c, by_feature ? "features" : "spec"))
                {
                    cites = cites || (cJSON_IsString(x) && !strcmp(x->valuestring, name));
                }
                if (!cites) continue;
            }
            ncases++;
            d = d || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "disagree"));
            pd = pd || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "paths_differ"));
            const cJSON *cell = cJSON_GetObjectItemCaseSensitive(c, "cells")->child;
            for (int k = 0; k < nl && cell; k++, cell = cell->next) {
                agg_add(&a[k], cell);
                statuses |= dsr__compare_status_bit(cell_status(cell));
            }
        }
        if (!ncases || !row_wanted(v, d, statuses)) {
            memset(a, 0, sizeof *a * (size_t)nl);
            continue;
        }
        labels[nrows] = (char *)name;
        dis[nrows] = d ? '*' : pd ? '~' : ' ';
        caserow[nrows] = by_case ? gi : NULL;
        nrows++;
    }
    return (rows){nrows, labels, dis, cells, caserow};
}

/* The table's last lines: what its marks and cells mean. */
static void print_footer(FILE *out, int nrows, bool by_case)
{
    if (!nrows) fputs("(no row matches the filters)\n", out);
    fputc('\n', out);
    fprintf(out,
            "%d row%s. * the libraries disagree: their observed results differ. ~ they all pass, "
            "through different either alternatives.\n",
            nrows, nrows == 1 ? "" : "s");
    if (!by_case)
        fputs("A cell is passed/ran of the cases that cite it (skipped cases left out); - none "
              "ran.\n",
              out);
}

void dsr__compare_print_table(FILE *out, const cJSON *m, const dsr_compare_view *v)
{
    const cJSON *libs = cJSON_GetObjectItemCaseSensitive(m, "libraries");
    int nl = cJSON_GetArraySize(libs);
    const cJSON *statements = cJSON_GetObjectItemCaseSensitive(m, "statements");
    bool by_case = !strcmp(v->by, "case");
    bool by_feature = !strcmp(v->by, "feature");
    print_legend(out, m);
    rows t = collect_rows(m, v, nl);
    int nrows = t.n;
    char **labels = t.labels;
    char *dis = t.dis;
    agg *cells = t.cells;
    const cJSON **caserow = t.caserow;

    /* Column widths: the labels when the table fits, else the library numbers. */
    int lw = 10;
    for (int r = 0; r < nrows; r++) {
        char *safe = dsr__compare_safe_dup(labels[r]);
        int n = (int)strlen(safe);
        free(safe);
        if (n > lw) lw = n;
    }
    if (lw > 48) lw = 48;
    int *cw = dsr__xmalloc(sizeof *cw * (size_t)(nl ? nl : 1));
    int total = lw + 3;
    for (int k = 0; k < nl; k++) {
        const char *label = str_of(cJSON_GetArrayItem(libs, k), "label");
        cw[k] = (int)strlen(label);
        if (cw[k] < 7) cw[k] = 7;
        total += cw[k] + 1;
    }
    /* Too wide for the terminal: columns by number (the legend above names them), as narrow
     * as their words, and the row labels cut to what is left (at least 16). */
    bool numbered = v->width && total > v->width;
    if (numbered) {
        int narrow = by_case ? 5 : 7; /* "CRASH" / "120/130" */
        total = lw + 3;
        for (int k = 0; k < nl; k++) {
            cw[k] = narrow;
            total += narrow + 1;
        }
        if (total > v->width) lw = lw - (total - v->width) > 16 ? lw - (total - v->width) : 16;
    }
    fputc('\n', out);
    fprintf(out, "%-*s   ", lw, by_case ? "case" : by_feature ? "feature" : "statement");
    for (int k = 0; k < nl; k++) {
        if (numbered) {
            fprintf(out, "[%d]%-*s", k + 1, cw[k] - 2 - (k + 1 >= 10), "");
        } else {
            const char *label = str_of(cJSON_GetArrayItem(libs, k), "label");
            put_safe(out, label, 0);
            fprintf(out, "%*s", cw[k] + 1 - (int)strlen(label), "");
        }
    }
    fputc('\n', out);
    for (int r = 0; r < nrows; r++) {
        char *safe = dsr__compare_safe_dup(labels[r]);
        if ((int)strlen(safe) > lw)
            fprintf(out, "%.*s...", lw - 3, safe);
        else
            fprintf(out, "%-*s", lw, safe);
        free(safe);
        fprintf(out, " %c ", dis[r]);
        const agg *a = &cells[(size_t)r * (size_t)nl];
        for (int k = 0; k < nl; k++) {
            char word[32];
            const char *st;
            if (by_case) {
                const cJSON *cell =
                    cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(caserow[r], "cells"), k);
                st = cell_status(cell);
                snprintf(word, sizeof word, "%s", !strcmp(st, "-") ? "-" : short_status(st));
            } else {
                st = agg_status(&a[k]);
                if (a[k].ran)
                    snprintf(word, sizeof word, "%d/%d", a[k].passed, a[k].ran);
                else
                    snprintf(word, sizeof word, "-");
                if (!a[k].ran) st = "-";
            }
            put_cell(out, v, word, st, cw[k]);
            fputc(' ', out);
        }
        fputc('\n', out);
        if (by_case && v->details) print_details(out, v, m, caserow[r]);
        if (!by_case && !by_feature && v->details) print_statement(out, statements, labels[r]);
    }
    print_footer(out, nrows, by_case);
    free(cw);
    free(labels);
    free(dis);
    free(cells);
    free((void *)caserow);
}
