/* compare_table.h: devspec compare's terminal table (compare_table.c), drawn from the
 * model (compare_model.h); the command (compare.c) uses both. */
#ifndef DEVSPEC_COMPARE_TABLE_H
#define DEVSPEC_COMPARE_TABLE_H

#include "compare_model.h"

typedef struct dsr_compare_view {
    const char *by; /* "statement", "case", "feature" */
    bool color;
    bool details;
    bool disagree_only;
    unsigned status_mask; /* bit per dsr_status; 0: any */
    int width;            /* terminal columns; 0: no limit */
} dsr_compare_view;

/* The bit of status S in a view's status_mask; 0 for no status. */
unsigned dsr__compare_status_bit(const char *s);
/* The model M as a table for a terminal, as V says. */
void dsr__compare_print_table(FILE *out, const cJSON *m, const dsr_compare_view *v);

#endif
