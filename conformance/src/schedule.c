/*
 * schedule.c: the order in which --jobs N workers take the cases. A library that compiles a
 * program per operation, dtype and shape (JAX's XLA programs, tinygrad's kernels) compiles it
 * once per process, so cases that compile the same programs go to the same worker: the cases
 * are put in groups, a group's cases in pieces, a piece is taken whole by one worker, and the
 * groups keep the order of their first case. Within a group the cases keep the suite's order.
 * The report is unchanged: the main thread still writes the results in the suite's order.
 *
 * A case's group (spec/decisions.md, Runner and reports 20) is the set of dtypes its steps
 * name: the programs cases share most are those that make their inputs (JAX compiles
 * asarray's conversion per dtype, shape and device), and those follow the dtypes, not the
 * function a case calls. A group's cases go in pieces of at most total / N cases (N workers,
 * a worker's share; the cases that name float32 alone are a third of the suite), and a worker
 * left without cases takes half of what another's run has not begun (run.c's take_run), so
 * that a large piece does not leave the others waiting. The key before, the function with its
 * dtypes, gave each worker most of the inputs' programs: conformance/bench/compile_graph.py
 * compares keys with the fewest programs two balanced workers must both compile.
 */
#include <stdlib.h>
#include <string.h>

#include "devspec.h"

enum { MAX_DTYPES = 32 };

/* Adds to NAMES (*N used) each dtype named in V that is not there yet. */
static void add_dtypes(const cJSON *v, const char **names, int *n)
{
    for (const cJSON *c = v ? v->child : NULL; c; c = c->next) {
        if (cJSON_IsString(c) && c->string && strcmp(c->string, "dtype") == 0) {
            bool seen = false;
            for (int k = 0; k < *n && !seen; k++)
                seen = strcmp(names[k], c->valuestring) == 0;
            if (!seen && *n < MAX_DTYPES) names[(*n)++] = c->valuestring;
        } else if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
            add_dtypes(c, names, n);
        }
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The group of case C, in KEY (CAP bytes): the set of dtypes its steps name (a call's
 * dtype, an array's, a create's), sorted, each after a comma; "" for none. */
static void group_key(const dsr_case *c, char *key, size_t cap)
{
    const char *names[MAX_DTYPES];
    int n = 0;
    for (int s = 0; s < c->nsteps; s++)
        add_dtypes(c->steps[s].args, names, &n);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    size_t len = 0;
    key[0] = '\0';
    for (int k = 0; k < n && len < cap; k++)
        len += (size_t)snprintf(key + len, cap - len, ",%s", names[k]);
}

int *dsr__schedule(const struct dsr_case **sel, int total, int jobs, int **group_end)
{
    int *group = dsr__xmalloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
    int *count = dsr__xmalloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
    char **keys = dsr__xmalloc(sizeof(char *) * (size_t)(total > 0 ? total : 1));
    dsr_strmap groups = {0};
    int ngroups = 0;
    for (int i = 0; i < total; i++) {
        char key[512];
        group_key(sel[i], key, sizeof key);
        keys[i] = dsr__xstrdup(key);
        int g = dsr__strmap_put(&groups, keys[i], ngroups);
        if (g < 0) {
            g = ngroups++;
            count[g] = 0;
        }
        group[i] = g;
        count[g]++;
    }
    /* Each group's first place in the order, then the cases in the suite's order. */
    int *start = dsr__xmalloc(sizeof(int) * (size_t)(ngroups + 1));
    int *next = dsr__xmalloc(sizeof(int) * (size_t)(ngroups + 1));
    start[0] = 0;
    for (int g = 0; g < ngroups; g++)
        start[g + 1] = start[g] + count[g];
    memcpy(next, start, sizeof(int) * (size_t)ngroups);
    int *order = dsr__xmalloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
    int *end = dsr__xmalloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
    for (int i = 0; i < total; i++)
        order[next[group[i]]++] = i;
    /* A group's places in pieces of at most PIECE, each ending where the next begins. */
    if (jobs < 1) jobs = 1;
    int piece = (total + jobs - 1) / jobs;
    if (piece < 1) piece = 1;
    for (int g = 0; g < ngroups; g++)
        for (int k = start[g]; k < start[g + 1]; k++) {
            int e = start[g] + ((k - start[g]) / piece + 1) * piece;
            end[k] = e < start[g + 1] ? e : start[g + 1];
        }
    dsr__strmap_free(&groups, false);
    for (int i = 0; i < total; i++)
        free(keys[i]);
    free(keys);
    free(group);
    free(count);
    free(start);
    free(next);
    *group_end = end;
    return order;
}
