/* devspec coverage: per profile, every statement of its features and the cases that cite
 * it, as text or JSON on stdout. */
#include "devspec.h"

#include <string.h>

static bool level_listed(const char *levels, const char *level)
{
    size_t n = strlen(level);
    for (const char *p = levels; *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && !strncmp(p, level, n)) return true;
        p += len + (comma ? 1 : 0);
    }
    return false;
}

/* Long: per profile, per feature, per statement, the cases citing it, printed as text or JSON
 * in the same walk. */
int dsr__coverage(const dsr_registry *reg, const dsr_suite *suite, char *const *profiles,
                  int nprofiles, bool core, bool json, const char *fail_uncovered)
{
    cJSON *out = cJSON_CreateArray();
    int uncovered_gate = 0;
    int shown = 0;
    for (int i = 0; i < reg->nprofiles; i++) {
        const dsr_profile *p = &reg->profiles[i];
        bool want = nprofiles == 0 && !core;
        for (int k = 0; k < nprofiles; k++)
            want = want || !strcmp(profiles[k], p->name);
        want = want || (core && p->core);
        if (!want) continue;
        shown++;
        cJSON *pj = cJSON_CreateObject();
        cJSON_AddStringToObject(pj, "profile", p->name);
        cJSON_AddBoolToObject(pj, "core", p->core);
        cJSON *stmts = cJSON_AddArrayToObject(pj, "statements");
        int total = 0, covered = 0;
        if (!json) printf("profile %s%s\n", p->name, p->core ? " (core)" : "");
        /* The statements of the profile: those of its features, each once. */
        for (int pass = 0; pass < 2; pass++) {
            char **feats = pass ? p->optional : p->required;
            int nf = pass ? p->noptional : p->nrequired;
            for (int fi = 0; fi < nf; fi++) {
                const dsr_feature *f = dsr__registry_feature(reg, feats[fi]);
                for (int s = 0; f && s < f->nstatements; s++) {
                    const char *id = f->statements[s];
                    bool seen = false;
                    for (const cJSON *x = stmts->child; x; x = x->next)
                        seen = seen || !strcmp(cJSON_GetObjectItem(x, "id")->valuestring, id);
                    if (seen) continue;
                    const dsr_statement *st = dsr__registry_statement(reg, id);
                    if (st && !dsr__statement_applies(st, p)) continue;
                    const char *level = st ? st->level : "";
                    bool testable = !st || st->testable;
                    cJSON *sj = cJSON_CreateObject();
                    cJSON_AddStringToObject(sj, "id", id);
                    cJSON_AddStringToObject(sj, "level", level);
                    cJSON_AddStringToObject(sj, "feature", f->name);
                    cJSON_AddBoolToObject(sj, "optional_feature", pass == 1);
                    cJSON_AddBoolToObject(sj, "testable", testable);
                    cJSON *cs = cJSON_AddArrayToObject(sj, "cases");
                    for (int fl = 0; fl < suite->nfiles; fl++)
                        for (int k = 0; k < suite->files[fl].ncases; k++) {
                            const dsr_case *c = &suite->files[fl].cases[k];
                            if (!dsr__case_counts(reg, c, p)) continue;
                            for (int x = 0; x < c->nspec; x++)
                                if (!strcmp(c->spec[x], id))
                                    cJSON_AddItemToArray(cs, cJSON_CreateString(c->id));
                        }
                    int n = cJSON_GetArraySize(cs);
                    total++;
                    covered += n > 0;
                    /* Only statements of required features that a case can observe gate. */
                    bool gate = n == 0 && pass == 0 && testable && fail_uncovered &&
                                level_listed(fail_uncovered, level);
                    uncovered_gate += gate;
                    cJSON_AddBoolToObject(sj, "covered", n > 0);
                    cJSON_AddItemToArray(stmts, sj);
                    if (!json) {
                        printf("  %-18s %-22s %-26s ", id, level[0] ? level : "?", f->name);
                        /* unspecified and informative statements are recorded, never checked */
                        bool checked = strcmp(level, "unspecified") && strcmp(level, "informative");
                        if (n == 0)
                            printf("%s\n", gate        ? "UNCOVERED (gating)"
                                           : !testable ? "not testable"
                                           : !checked  ? "not checked (level)"
                                                       : "uncovered");
                        else {
                            int k = 0;
                            for (const cJSON *x = cs->child; x; x = x->next, k++) {
                                if (k == 3) {
                                    printf(" ... (%d cases)", n);
                                    break;
                                }
                                printf("%s%s", k ? ", " : "", x->valuestring);
                            }
                            putchar('\n');
                        }
                    }
                }
            }
        }
        cJSON_AddNumberToObject(pj, "total", total);
        cJSON_AddNumberToObject(pj, "covered", covered);
        if (!json) printf("  %d of %d statements covered\n", covered, total);
        cJSON_AddItemToArray(out, pj);
    }
    if (json) {
        char *s = dsr__print(out, true);
        puts(s);
        cJSON_free(s);
    }
    cJSON_Delete(out);
    if (shown == 0)
        fprintf(stderr, "devspec: no profile selected%s\n",
                reg->have_profiles ? "" : " (spec/profiles.json does not exist yet)");
    if (uncovered_gate)
        fprintf(stderr, "devspec: %d statement%s of level %s without a case\n", uncovered_gate,
                uncovered_gate == 1 ? "" : "s", fail_uncovered);
    return uncovered_gate ? DSR_EXIT_UNEXPECTED : DSR_EXIT_OK;
}
