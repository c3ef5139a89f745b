/* compare_model.h: devspec compare's model (compare_model.c: the reports and case files
 * read, the matrix built from them), private to compare's parts: the terminal table
 * (compare_table.c, compare_table.h) and the command (compare.c) stand on it. The page is
 * compare_html.c's (devspec.h). */
#ifndef DEVSPEC_COMPARE_MODEL_H
#define DEVSPEC_COMPARE_MODEL_H

#include "devspec.h"

#include <string.h>

/* Zeroed memory for N items of SIZE bytes; like dsr__xmalloc, running out ends the program. */
static inline void *xcalloc(size_t n, size_t size)
{
    void *p = dsr__xmalloc(n * size);
    memset(p, 0, n * size);
    return p;
}

/* O's string member KEY, or NULL. */
static inline const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The reports and case files read. */
typedef struct dsr_compare_in dsr_compare_in;

/* The spec's files the model carries (statements and profiles may be missing). */
typedef struct dsr_compare_spec {
    cJSON *statements;
    cJSON *features;
    cJSON *profiles;
} dsr_compare_spec;

dsr_compare_in *dsr__compare_in_new(void);
/* The report schema (spec/schema/report.json) that reports read afterwards are checked
 * against: a value of a type it does not allow is named on stderr and left out. A schema
 * that cannot be read checks nothing. */
void dsr__compare_set_schema(dsr_compare_in *in, const char *path);
void dsr__compare_in_free(dsr_compare_in *in);
/* Reads the reports of PATHS (files, and the *.json reports of folders: a file there that is
 * no report is left out with a note) and keeps those labelled ONLY, in that order (none:
 * all). Returns 0, or 2 said on stderr (a report that cannot be read, a label no report
 * has, no report at all). */
int dsr__compare_read_reports(dsr_compare_in *in, char *const *paths, int npaths, char *const *only,
                              int nonly);
/* The path of the report read from the file PATH names, or NULL. */
const char *dsr__compare_report_file(const dsr_compare_in *in, const char *path);
/* Reads the case files at PATH (a file or a folder) for the cases' descriptions and steps. */
void dsr__compare_add_cases(dsr_compare_in *in, const char *path);
/* Reads the spec's files of DIR: 0, or -1 (said on stderr) when features.json cannot be. */
int dsr__compare_spec_read(dsr_compare_spec *sp, const char *dir);
void dsr__compare_spec_free(dsr_compare_spec *sp);
/* The model of what IN holds (REG: the registry for the cases' profiles, or NULL).
 * Deterministic: the same reports, in the same order, give the same bytes. */
cJSON *dsr__compare_model(dsr_compare_in *in, const dsr_compare_spec *sp, const dsr_registry *reg);
/* A copy of S safe for a terminal: control characters as \xNN, hidden ones as \uNNNN, a
 * NUL (the bytes C0 80, see dsjson.h) as \x00 (the caller frees it). */
char *dsr__compare_safe_dup(const char *s);

#endif
