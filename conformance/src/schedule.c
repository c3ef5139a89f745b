/*
 * schedule.c: the order in which --jobs N workers take the cases. A library that compiles a
 * program per operation, dtype and shape (JAX's XLA programs, tinygrad's kernels) compiles it
 * once per process, so cases that compile the same programs go to the same worker: the cases
 * are put in groups of one subject each, a group is taken whole by one worker, and the groups
 * keep the order of their first case. Within a group the cases keep the suite's order. The
 * report is unchanged: the main thread still writes the results in the suite's order.
 *
 * A case's subject (spec/decisions.md, Runner and reports 20) is what decides its programs:
 * the function it calls (a call step's fn; the fn of array.binary, array.unary and
 * array.create; otherwise its first step's op) and the set of dtypes its steps name. Shapes
 * are left out: with them JAX compiled as many programs again over the suite, in smaller
 * groups (spec/decisions.md, Runner and reports 20).
 */
#include <stdlib.h>
#include <string.h>

#include "devspec.h"

/* Adds to KEY (of CAP bytes, LEN used) each dtype named in V, once. */
static void add_dtypes(const cJSON *v, char *key, size_t cap, size_t *len)
{
    for (const cJSON *c = v ? v->child : NULL; c; c = c->next) {
        if (cJSON_IsString(c) && c->string && strcmp(c->string, "dtype") == 0) {
            const char *d = c->valuestring;
            size_t n = strlen(d);
            char *at = strstr(key, d);
            bool seen = at && (at == key || at[-1] == ',') && (at[n] == ',' || at[n] == '\0');
            if (!seen && *len + n + 2 < cap) {
                key[(*len)++] = ',';
                memcpy(key + *len, d, n + 1);
                *len += n;
            }
        } else if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
            add_dtypes(c, key, cap, len);
        }
    }
}

/* The subject of case C, in KEY (CAP bytes). */
static void subject(const dsr_case *c, char *key, size_t cap)
{
    const char *what = c->nsteps > 0 ? c->steps[0].op : "";
    for (int s = 0; s < c->nsteps; s++) {
        const cJSON *fn = cJSON_GetObjectItemCaseSensitive(c->steps[s].args, "fn");
        if (cJSON_IsString(fn) &&
            (strcmp(c->steps[s].op, "call") == 0 || strncmp(c->steps[s].op, "array.", 6) == 0)) {
            what = fn->valuestring;
            break;
        }
    }
    size_t len = (size_t)snprintf(key, cap, "%s", what);
    if (len >= cap) len = cap - 1;
    char dtypes[512] = "";
    size_t dlen = 0;
    for (int s = 0; s < c->nsteps; s++)
        add_dtypes(c->steps[s].args, dtypes, sizeof dtypes, &dlen);
    snprintf(key + len, cap - len, "%s", dtypes);
}

int *dsr__schedule(const struct dsr_case **sel, int total, int **group_end)
{
    int *group = dsr__xmalloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
    int *count = dsr__xmalloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
    char **keys = dsr__xmalloc(sizeof(char *) * (size_t)(total > 0 ? total : 1));
    dsr_strmap groups = {0};
    int ngroups = 0;
    for (int i = 0; i < total; i++) {
        char key[640];
        subject(sel[i], key, sizeof key);
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
    for (int g = 0; g < ngroups; g++)
        for (int k = start[g]; k < start[g + 1]; k++)
            end[k] = start[g + 1];
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
