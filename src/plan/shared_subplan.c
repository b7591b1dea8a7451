/*
 * plan/shared_subplan.c — common subexpressions among the inputs of one
 * query: two subqueries whose bound plans compute the same window
 * aggregate over the same input (Nexmark q5's AuctionBids and CountBids:
 * `count(*) ... GROUP BY auction, HOP(dateTime, ...)` twice, selecting
 * different columns). The engine (api/engine.c, build_join) then builds
 * the aggregate once and feeds the second consumer from the first's output
 * through a tee and a column selection, instead of folding every row into
 * two identical sets of pane tables.
 */
#include "plan/lm_plan.h"

static bool same_schema(const lm_schema *a, const lm_schema *b) {
  if (a == b)
    return true;
  if (!a || !b || a->n_fields != b->n_fields)
    return false;
  for (int i = 0; i < a->n_fields; i++)
    if (!lm_type_eq(a->fields[i].type, b->fields[i].type))
      return false;
  return true;
}

bool lm_plan_same_window_agg(const lm_plan *a, const lm_plan *c, int *map) {
  if (!a || !c || a->join || c->join || a->topn || c->topn || !a->has_agg ||
      !c->has_agg || a->changelog_input || c->changelog_input ||
      (a->window_kind != LM_WIN_TUMBLE && a->window_kind != LM_WIN_HOP &&
       a->window_kind != LM_WIN_CUMULATE))
    return false;
  if (a->window_kind != c->window_kind || a->window_key != c->window_key ||
      a->window_end_key != c->window_end_key ||
      a->window_time_col != c->window_time_col ||
      a->window_size_us != c->window_size_us ||
      a->window_slide_us != c->window_slide_us ||
      a->window_offset_us != c->window_offset_us ||
      a->allowed_lateness_us != c->allowed_lateness_us || a->emit != c->emit ||
      a->emit_interval_us != c->emit_interval_us ||
      lm_plan_time_is_window_end(a) != lm_plan_time_is_window_end(c) ||
      !same_schema(a->input_schema, c->input_schema) ||
      !lm_bexpr_equal(a->where, c->where) ||
      !lm_bexpr_equal(a->having, c->having) || a->n_keys != c->n_keys ||
      a->n_aggs != c->n_aggs)
    return false;
  for (int k = 0; k < a->n_keys; k++)
    if (!lm_bexpr_equal(a->keys[k], c->keys[k]))
      return false;
  for (int g = 0; g < a->n_aggs; g++) {
    const lm_agg_spec *x = &a->aggs[g], *y = &c->aggs[g];
    if (x->kind != y->kind || x->distinct != y->distinct ||
        !lm_type_eq(x->in_type, y->in_type) ||
        !lm_type_eq(x->out_type, y->out_type) ||
        !lm_bexpr_equal(x->arg, y->arg))
      return false;
  }
  /* every column of c is one of a's */
  for (int o = 0; o < c->n_out; o++) {
    map[o] = -1;
    for (int p = 0; p < a->n_out && map[o] < 0; p++)
      if (lm_bexpr_equal(a->out[p], c->out[o]))
        map[o] = p;
    if (map[o] < 0)
      return false;
  }
  return true;
}
