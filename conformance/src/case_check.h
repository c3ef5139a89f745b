/* case_check.h: the case loader's state and case_check.c's checks (where it is in a file,
 * its problems, the checks of every object), private to the loader's files: case_step.c (a
 * step, case_step.h) and case_load.c (cases, files, folders, the suite) stand on it. */
#ifndef DEVSPEC_CASE_CHECK_H
#define DEVSPEC_CASE_CHECK_H

#include "devspec.h"

#define DSR_LOAD_MAX_DEPTH 64

typedef struct dsr_loader {
    const dsr_registry *reg;
    dsr_file *file;
    FILE *err;
    int problems;
    dsr_seg path[DSR_LOAD_MAX_DEPTH];
    int depth;
    /* names bound so far in the current case */
    const char **bound;
    int nbound;
    int max_device;        /* highest $Dn mentioned, -1 for none */
    int ranks;             /* the case's ranks, for expect_ranks */
    bool informative_only; /* every statement the case cites is informative */
    int latest_version;    /* the latest version of signatures.json among those of the
                            * statements the case cites; -1: none of them has one */
} dsr_loader;

/* The path to the value being checked: a key or an index pushed before a value is checked
 * and popped after it. */
void dsr__load_push_key(dsr_loader *L, const char *key);
void dsr__load_push_index(dsr_loader *L, int i);
void dsr__load_pop(dsr_loader *L);
/* A problem at the current path ("FILE:LINE:COL: FIELD: ..."); _key: at the NTH occurrence
 * of the last key itself rather than at its value. */
void dsr__load_problem(dsr_loader *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dsr__load_problem_key(dsr_loader *L, int nth, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "an object", "a list", "a string", "a number", "a boolean", "null". */
const char *dsr__load_type_name(const cJSON *v);
/* Every duplicate key under V, each reported once. */
void dsr__load_duplicates(dsr_loader *L, const cJSON *v);
/* False (each reported) when OBJ has a field not in ALLOWED (NULL-terminated). */
bool dsr__load_only_keys(dsr_loader *L, const cJSON *obj, const char *const *allowed);

#endif
