/* case_step.h: one step of a case (case_step.c: its op, arguments, references and
 * outcome), private to the case loader; case_load.c calls it for each step. */
#ifndef DEVSPEC_CASE_STEP_H
#define DEVSPEC_CASE_STEP_H

#include "case_check.h"

/* Loads and checks step V of a case into ST. */
void dsr__load_step(dsr_loader *L, dsr_step *st, const cJSON *v);

#endif
