/*
 * plan/dynfilter.c — dynamic (runtime) join filters: which interval join
 * steps can drop rows of one input using the running state of the other.
 *
 * Nexmark q7 joins every bid with the maximum price of its 10 s tumbling
 * window (`B.price = B1.maxprice` and B.dateTime within the window). A
 * window's final MAX is at least the MAX of the rows it has folded so
 * far, so a row whose key is below that running value for every window it
 * could join can never match: it need not be probed nor stored. This is
 * the semi-join reduction DBSP applies to q7, and a dynamic filter as
 * DuckDB and Trino push from a join's build side into its probe side,
 * here pushed from a window aggregate's open panes.
 *
 * The rule (lm_plan_dynfilter) recognizes, on a planned INNER or SEMI
 * interval join step, an input that is a subquery whose plan is a TUMBLE
 * or HOP aggregate
 *   - over an append-only input (no changelog), without ALLOW LATENESS,
 *     and whose output reaches the join append-only (each window emitted
 *     once, with its final value);
 *   - grouped by the window only (one row per window);
 *   - whose join key column (through the join's key projection and the
 *     subquery's select list, as plain column references, no cast) is an
 *     integer-like MIN or MAX aggregate, the other side's key being
 *     BIGINT;
 *   - whose event-time column in the join is the window end or start.
 * Everything else about the step is unchanged; the engine connects the
 * join to the aggregate operator when it builds the query (api/engine.c,
 * lm_join_set_dynfilter).
 */
#include <string.h>

#include "plan/lm_plan.h"

/* Column c of step side `side` as a column of the side's input before the
 * key projection, or -1 when it is computed. */
static int base_col(const lm_join_step *st, int side, int c) {
  if (c < 0)
    return -1;
  if (!st->n_proj[side])
    return c;
  if (c >= st->n_proj[side])
    return -1;
  const lm_bexpr *x = st->proj[side][c];
  return x->kind == LM_BX_COLUMN ? x->col : -1;
}

/* The aggregate-schema column of output column c of plan q, or -1. */
static int agg_col(const lm_plan *q, int c) {
  if (c < 0 || c >= q->n_out || q->out[c]->kind != LM_BX_COLUMN)
    return -1;
  return q->out[c]->col;
}

static bool is_window_only(const lm_plan *q) {
  if (!q || q->topn || !q->has_agg || q->changelog_input ||
      (q->window_kind != LM_WIN_TUMBLE && q->window_kind != LM_WIN_HOP) ||
      q->allowed_lateness_us != 0 || q->window_key < 0 ||
      q->window_slide_us <= 0 || q->window_size_us <= 0)
    return false;
  for (int k = 0; k < q->n_keys; k++)
    if (k != q->window_key && k != q->window_end_key)
      return false;
  return true;
}

/* Fills st's dyn fields when side `as` (the aggregate) of step st, fed by
 * input plan q, can filter the other side. */
static bool try_side(lm_join_step *st, int as, const lm_plan *q) {
  int fs = 1 - as;
  if (st->side_changelog[as] || st->side_changelog[fs] || !is_window_only(q))
    return false;
  int tc = agg_col(q, base_col(st, as, st->time_col[as]));
  if (tc < 0 || (tc != q->window_key && tc != q->window_end_key))
    return false;
  for (int k = 0; k < st->n_keys; k++) {
    int c = agg_col(q, base_col(st, as, st->keys[as][k]));
    int a = c - q->n_keys;
    if (c < 0 || a < 0 || a >= q->n_aggs)
      continue;
    const lm_agg_spec *sp = &q->aggs[a];
    if (sp->kind != LM_AGG_MAX && sp->kind != LM_AGG_MIN)
      continue;
    lm_type_id in = sp->in_type.id;
    if ((in != LM_TYPE_INT64 && in != LM_TYPE_INT32 && in != LM_TYPE_INT16 &&
         in != LM_TYPE_INT8) ||
        sp->out_type.id != in)
      continue;
    const lm_schema *fsc = st->side_schema[fs];
    if (fsc->fields[st->keys[fs][k]].type.id != LM_TYPE_INT64)
      continue;
    st->dyn = true;
    st->dyn_side = fs;
    st->dyn_key = k;
    st->dyn_agg = a;
    st->dyn_max = sp->kind == LM_AGG_MAX;
    st->dyn_time_end = tc == q->window_end_key;
    return true;
  }
  return false;
}

void lm_plan_dynfilter(lm_plan *p) {
  lm_join_plan *jp = p ? p->join : NULL;
  for (int i = 0; jp && i < jp->n_inputs; i++)
    if (jp->inputs[i].sub)
      lm_plan_dynfilter(jp->inputs[i].sub);
  for (int s = 0; jp && s < jp->n_steps; s++) {
    lm_join_step *st = &jp->steps[s];
    st->dyn = false;
    if (st->algo != LM_PJOIN_INTERVAL || st->swapped ||
        (st->type != LM_PJOIN_INNER && st->type != LM_PJOIN_SEMI))
      continue;
    /* side 1 is input s + 1; side 0 is input 0 only for the first step */
    if (!try_side(st, 1, jp->inputs[s + 1].sub) && s == 0)
      (void)try_side(st, 0, jp->inputs[0].sub);
  }
}
