/*
 * api/over_json.h — the JSON aggregates as window functions in ad-hoc
 * queries: json_agg, jsonb_agg, json_object_agg, jsonb_object_agg OVER
 * (...) (docs/functions.md "JSON"), rewritten over string_agg OVER, which
 * exec/window_fn.c computes, as plan/json_agg_bind.c does for GROUP BY.
 */
#ifndef LM_OVER_JSON_H
#define LM_OVER_JSON_H

#include "base/lm_base.h"
#include "sql/lm_sql.h"

/* Whether e is one of those calls with OVER and the argument count it
 * takes (other counts keep the window machinery's error). */
bool lm_over_is_json_agg(const lm_expr *e);

/* e (lm_over_is_json_agg) as
 *   CAST(open || ltrim(string_agg(json:agg_item_auto(args), ', ') OVER
 *        (e's window), E'\n ') || close AS json / jsonb)
 * in arena a (the window, FILTER and DISTINCT of e kept on string_agg; no
 * rows in the frame: NULL, as PostgreSQL). NULL on OOM. */
lm_expr *lm_over_json_agg(lm_arena *a, const lm_expr *e);

#endif
