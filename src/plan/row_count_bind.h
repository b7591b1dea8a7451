/*
 * plan/row_count_bind.h — count() of a row constructor: count((a, b)),
 * count(DISTINCT (a, b)), count(DISTINCT ROW(a, b)) FILTER (...), as
 * PostgreSQL counts record values (plan/row_count_bind.c,
 * docs/functions.md).
 */
#ifndef LM_ROW_COUNT_BIND_H
#define LM_ROW_COUNT_BIND_H

#include "plan/bind_internal.h"

/* Whether e is count(<row constructor>) (with or without DISTINCT). */
bool lm_row_count_applies(const lm_expr *e);

/* e (lm_row_count_applies) as count([DISTINCT] ARRAY[fields]) with its
 * FILTER kept: the fields themselves when they have one type an array
 * holds, else each as text (a float's -0 as 0), in c->arena; the fields
 * are bound over the aggregate's input (c->plan->input_schema) to learn
 * their types. NULL with c->err set: a field's binding error, or OOM. */
const lm_expr *lm_row_count_rewrite(lm_bctx *c, const lm_expr *e);

#endif
