/*
 * Projection and predicate pushdown into generated sources (docs/nexmark.md
 * "Projection pushdown", "Predicate pushdown"): which columns of a source
 * its consumers read, from their bound plans, so that a NEXMARK reader
 * generates only those (lm_nexmark_reader_project); and, when one query
 * reads the source, the simple conjuncts of its WHERE, so that the reader
 * skips the rows failing them (lm_nexmark_reader_filter). Conservative: any
 * consumer or plan shape not understood here reads every column and row.
 */
#include <string.h>

#include "api/engine.h"
#include "exec/lm_join.h"

/* Marks in used[0..n) the input columns x reads. */
static void mark_expr(const lm_bexpr *x, bool *used, int n) {
  if (!x)
    return;
  if (x->kind == LM_BX_COLUMN && x->col >= 0 && x->col < n)
    used[x->col] = true;
  for (int i = 0; i < x->n_args; i++)
    mark_expr(x->args[i], used, n);
  if (x->kind == LM_BX_SUBQUERY && x->sub) /* the outer values it reads */
    for (int i = 0; i < x->sub->n_params; i++)
      mark_expr(x->sub->param_exprs[i], used, n);
}

/* The input columns a plan over one input (no join, no Top-N) reads: WHERE,
 * GROUP BY keys, aggregate arguments, the window's time column, and the
 * projection when there is no aggregation. false when the plan has a
 * shape not understood here (the caller then takes every column). */
static bool mark_plan(const lm_plan *p, bool *used, int n) {
  if (!p || p->join || p->topn || p->n_sort || p->changelog_input ||
      !p->input_schema || p->input_schema->n_fields > n)
    return false;
  mark_expr(p->where, used, n);
  for (int k = 0; k < p->n_keys; k++)
    mark_expr(p->keys[k], used, n);
  for (int k = 0; k < p->n_aggs; k++)
    mark_expr(p->aggs[k].arg, used, n);
  if (p->window_time_col >= 0 && p->window_time_col < n)
    used[p->window_time_col] = true;
  if (!p->has_agg)
    for (int o = 0; o < p->n_out; o++)
      mark_expr(p->out[o], used, n);
  return true;
}

/* The leaves of a join plan in the order api/engine.c build_join gives
 * them q->ins[] slots: each input in turn, an input with a join of its own
 * replaced by its leaves (a shared window aggregate keeps its slot).
 * Returns the count, or -1 past max. */
typedef struct jleaf {
  const lm_join_plan *jp;
  int i;
} jleaf;

static int leaves(const lm_join_plan *jp, jleaf *out, int n, int max) {
  for (int i = 0; n >= 0 && i < jp->n_inputs; i++) {
    const lm_plan *sub = jp->inputs[i].sub;
    if (sub && sub->join) {
      n = leaves(sub->join, out, n, max);
    } else if (n < max) {
      out[n++] = (jleaf){jp, i};
    } else {
      n = -1;
    }
  }
  return n;
}

/* The columns leaf l reads: a subquery input what its plan reads; a table
 * input what its join step keeps (lm_join_step.pruned: keys, time,
 * residual and what the query reads after the join). */
static bool mark_leaf(jleaf l, bool *used, int n) {
  const lm_join_plan *jp = l.jp;
  const lm_join_input *ji = &jp->inputs[l.i];
  if (ji->sub)
    return mark_plan(ji->sub, used, n);
  if (!jp->n_steps)
    return false;
  const lm_join_step *js = &jp->steps[l.i ? l.i - 1 : 0];
  int side = l.i ? (js->swapped ? 0 : 1) : (js->swapped ? 1 : 0);
  const bool *pr = js->pruned[side];
  const lm_schema *ss = js->side_schema[side];
  if (!pr || js->n_proj[side] || !ss || ss->n_fields > n ||
      js->side_changelog[side])
    return false;
  for (int c = 0; c < ss->n_fields; c++)
    used[c] |= !pr[c];
  return true;
}

/* The columns input k of join query q (q->ins[k].node == src) reads. */
static bool mark_join_input(const lm_query *q, int k, bool *used, int n) {
  jleaf lv[64];
  const lm_join_plan *jp = q->plan ? q->plan->join : NULL;
  int nl = jp ? leaves(jp, lv, 0, 64) : -1;
  if (nl != q->n_ins || k >= nl)
    return false;
  return mark_leaf(lv[k], used, n);
}

bool lm_source_needed_cols(const lm_node *src, bool *need, int n) {
  for (int i = 0; i < n; i++)
    need[i] = false;
  bool all = src->kind != LM_NODE_SOURCE || src->n_sinks > 0 ||
             src->n_subs > 0 || !src->schema || src->schema->n_fields > n;
  for (int i = 0; !all && i < src->n_queries; i++) {
    const lm_query *q = src->queries[i];
    if (q->late_to || q->uni) { /* late rows go on whole */
      all = true;
    } else if (!q->n_ins) {
      all = q->input != src || !mark_plan(q->plan, need, n);
    } else {
      for (int k = 0; !all && k < q->n_ins; k++)
        if (q->ins[k].node == src)
          all = !mark_join_input(q, k, need, n);
    }
  }
  if (src->wm_col >= 0 && src->wm_col < n)
    need[src->wm_col] = true;
  if (src->proctime_col1 > 0 && src->proctime_col1 - 1 < n)
    need[src->proctime_col1 - 1] = true;
  int used = 0;
  for (int i = 0; i < n; i++) {
    if (all)
      need[i] = true;
    used += need[i];
  }
  return !all && src->schema && used < src->schema->n_fields;
}

/* ------------------------------------------------ predicate pushdown */

/* x's value when it is a non-NULL literal of an integer type, or a cast of
 * one to an integer type (widening: the value is kept), or of type `t`
 * (the column's, e.g. TIMESTAMP µs). */
static bool lit_value(const lm_bexpr *x, lm_type t, int64_t *v) {
  if (x->kind == LM_BX_CAST && x->n_args == 1 && lm_type_is_integer(x->type) &&
      x->args[0]->kind == LM_BX_LITERAL &&
      lm_type_is_integer(x->args[0]->type) && x->type.id >= x->args[0]->type.id)
    x = x->args[0];
  if (x->kind != LM_BX_LITERAL || x->lit.is_null)
    return false;
  bool ok = lm_type_is_integer(t) ? lm_type_is_integer(x->lit.type)
                                  : lm_type_eq(x->lit.type, t);
  if (ok)
    *v = x->lit.v.i;
  return ok;
}

/* A column of an INT64 or TIMESTAMP (µs) type, < n. */
static bool int_col(const lm_bexpr *x, int n) {
  return x->kind == LM_BX_COLUMN && x->col >= 0 && x->col < n &&
         (x->type.id == LM_TYPE_INT64 ||
          lm_type_eq(x->type, lm_type_make(LM_TYPE_TIMESTAMP)));
}

/* x as `col op literal`, `literal op col` or `col % k op literal` (k a
 * non-zero integer literal), into *p. */
static bool simple_pred(const lm_bexpr *x, int n, lm_gen_pred *p) {
  static const lm_op OPS[] = {LM_OP_EQ, LM_OP_NE, LM_OP_LT,
                              LM_OP_LE, LM_OP_GT, LM_OP_GE};
  static const lm_gen_cmp FLIP[] = {LM_GEN_EQ, LM_GEN_NE, LM_GEN_GT,
                                    LM_GEN_GE, LM_GEN_LT, LM_GEN_LE};
  if (x->kind != LM_BX_BINARY || x->n_args != 2)
    return false;
  int op = -1;
  for (int i = 0; i < 6; i++)
    if (x->op == OPS[i])
      op = i;
  if (op < 0)
    return false;
  const lm_bexpr *l = x->args[0], *r = x->args[1];
  bool flip = false;
  if (l->kind == LM_BX_LITERAL || l->kind == LM_BX_CAST) {
    const lm_bexpr *t = l;
    l = r;
    r = t;
    flip = true;
  }
  *p = (lm_gen_pred){-1, flip ? FLIP[op] : (lm_gen_cmp)op, 0, 0};
  if (l->kind == LM_BX_BINARY && l->op == LM_OP_MOD && l->n_args == 2 &&
      int_col(l->args[0], n) && lm_type_is_integer(l->args[0]->type)) {
    int64_t k;
    if (!lit_value(l->args[1], l->args[0]->type, &k) || k == 0 ||
        k == INT64_MIN)
      return false;
    p->mod = k < 0 ? -k : k; /* x % -k = x % k (the dividend's sign) */
    l = l->args[0];
  }
  if (!int_col(l, n) || !lit_value(r, l->type, &p->value))
    return false;
  p->col = l->col;
  return true;
}

/* The simple predicates among the AND-ed conjuncts of x (the others are
 * left to the query): appended to p[*np], at most max. */
static void conjuncts(const lm_bexpr *x, int n, lm_gen_pred *p, int *np,
                      int max) {
  if (!x)
    return;
  if (x->kind == LM_BX_BINARY && x->op == LM_OP_AND && x->n_args == 2) {
    conjuncts(x->args[0], n, p, np, max);
    conjuncts(x->args[1], n, p, np, max);
  } else if (*np < max && simple_pred(x, n, &p[*np])) {
    ++*np;
  }
}

int lm_source_filter_preds(const lm_node *src, lm_gen_pred *p, int max) {
  if (src->kind != LM_NODE_SOURCE || src->n_sinks > 0 || src->n_subs > 0 ||
      src->n_queries != 1 || !src->schema || src->proctime_col1)
    return 0;
  /* the watermark follows the skipped rows' dateTime
   * (lm_nexmark_reader_time_through) */
  if (src->wm_col >= 0 &&
      (src->wm_col >= src->schema->n_fields ||
       lm_strcasecmp(src->schema->fields[src->wm_col].name, "dateTime")))
    return 0;
  const lm_query *q = src->queries[0];
  const lm_plan *pl = q->plan;
  if (q->late_to || q->uni || q->n_ins || q->input != src || q->lateness > 0 ||
      q->proctime || !pl || pl->join || pl->topn || pl->n_sort ||
      pl->changelog_input || !pl->input_schema ||
      pl->input_schema->n_fields > src->schema->n_fields)
    return 0;
  int np = 0;
  conjuncts(pl->where, pl->input_schema->n_fields, p, &np, max);
  return np;
}

/* ------------------------------------------- late materialization */

/* Whether leaf l (input l.i of a query's top join plan jp, a table input)
 * enters a join step whose dynamic filter (lm_join_step.dyn) drops its
 * rows, with no key projection: then *step is the step and *side the
 * leaf's side of it. */
static bool dyn_leaf(jleaf l, const lm_join_plan *jp, int *step, int *side) {
  if (l.jp != jp || jp->inputs[l.i].sub || !jp->n_steps)
    return false;
  int s = l.i ? l.i - 1 : 0;
  const lm_join_step *js = &jp->steps[s];
  int sd = l.i ? (js->swapped ? 0 : 1) : (js->swapped ? 1 : 0);
  if (!js->dyn || js->dyn_side != sd || js->n_proj[sd] ||
      js->side_changelog[sd] || js->time_col[sd] < 0 || js->dyn_key < 0 ||
      js->dyn_key >= js->n_keys || !js->side_schema[sd])
    return false;
  *step = s;
  *side = sd;
  return true;
}

bool lm_source_lazy_cols(const lm_node *src, bool *lazy, int n, int *key_col,
                         int *time_col, lm_operator **join) {
  bool other[LM_PUSHDOWN_MAX_COLS] = {0}, mine[LM_PUSHDOWN_MAX_COLS] = {0};
  for (int i = 0; i < n; i++)
    lazy[i] = false;
  *join = NULL;
  if (src->kind != LM_NODE_SOURCE || src->n_sinks > 0 || src->n_subs > 0 ||
      !src->schema || src->schema->n_fields > n || n > LM_PUSHDOWN_MAX_COLS ||
      src->proctime_col1)
    return false;
  const lm_join_step *cand = NULL;
  int cside = 0;
  for (int i = 0; i < src->n_queries; i++) {
    const lm_query *q = src->queries[i];
    bool seen = false; /* a self-join lists its query once per input */
    for (int h = 0; h < i; h++)
      seen |= src->queries[h] == q;
    if (seen)
      continue;
    if (q->late_to || q->uni)
      return false;
    if (!q->n_ins) {
      if (q->input != src || !mark_plan(q->plan, other, n))
        return false;
      continue;
    }
    jleaf lv[64];
    const lm_join_plan *jp = q->plan ? q->plan->join : NULL;
    int nl = jp ? leaves(jp, lv, 0, 64) : -1;
    if (nl != q->n_ins)
      return false;
    for (int k = 0; k < q->n_ins; k++) {
      if (q->ins[k].node != src)
        continue;
      int st, sd;
      if (!cand && dyn_leaf(lv[k], jp, &st, &sd) && st < q->n_joins &&
          lv[k].jp->steps[st].side_schema[sd]->n_fields <= n) {
        if (!mark_leaf(lv[k], mine, n))
          return false;
        cand = &jp->steps[st];
        cside = sd;
        *join = q->joins[st]; /* the top plan's steps come first */
      } else if (!mark_leaf(lv[k], other, n)) {
        return false;
      }
    }
  }
  if (!cand)
    return false;
  *key_col = cand->keys[cside][cand->dyn_key];
  *time_col = cand->time_col[cside];
  if (src->wm_col >= 0 && src->wm_col < n)
    other[src->wm_col] = true;
  bool any = false;
  for (int c = 0; c < n; c++) {
    lazy[c] = mine[c] && !other[c] && c != *key_col && c != *time_col;
    any |= lazy[c];
  }
  return any;
}

/* lm_gen_verdict_fn over a join's dynamic filter (ctx: the join) */
static void join_verdict(void *ctx, int64_t t, lm_gen_verdict *v) {
  lm_join_dynfilter_verdict(ctx, t, &v->t_lo, &v->t_hi, &v->k_lo, &v->k_hi);
}

int lm_source_pushdown(lm_node *src, lm_source_reader *r, lm_error *err) {
  if (!r || !src->connector || lm_strcasecmp(src->connector, "NEXMARK"))
    return 0;
  bool need[LM_PUSHDOWN_MAX_COLS];
  lm_schema *rs = src->read_schema ? src->read_schema : src->schema;
  lm_gen_pred preds[LM_GEN_MAX_PREDS];
  int np = rs ? lm_source_filter_preds(src, preds, LM_GEN_MAX_PREDS) : 0;
  for (int k = 0; k < np; k++)
    if (preds[k].col >= rs->n_fields)
      np = 0;
  bool applied;
  int rc = lm_nexmark_reader_filter(r, preds, np, &applied, err);
  if (rc)
    return rc;
  if (!rs || !src->schema || src->schema->n_fields > LM_PUSHDOWN_MAX_COLS)
    return lm_nexmark_reader_project(r, NULL, 0, err);
  bool some = lm_source_needed_cols(src, need, LM_PUSHDOWN_MAX_COLS);
  if ((rc =
           lm_nexmark_reader_project(r, some ? need : NULL, rs->n_fields, err)))
    return rc;
  /* columns only a dynamically filtered join side reads: made only for
   * the rows its filter keeps */
  bool lazy[LM_PUSHDOWN_MAX_COLS];
  int key = -1, time = -1;
  lm_operator *join = NULL;
  bool on = lm_source_lazy_cols(src, lazy, LM_PUSHDOWN_MAX_COLS, &key, &time,
                                &join) &&
            key < rs->n_fields && time < rs->n_fields;
  return lm_nexmark_reader_lazy(r, lazy, on ? rs->n_fields : 0, key, time,
                                on ? join_verdict : NULL, join, &applied);
}

int lm_source_filter_watermark(laminar_db *db, lm_node *src, bool *moved,
                               lm_error *err) {
  *moved = false;
  if (!src->reader || src->wm_col < 0 || src->ended || !src->connector ||
      lm_strcasecmp(src->connector, "NEXMARK"))
    return 0;
  int64_t t = lm_nexmark_reader_time_through(src->reader);
  if (t == INT64_MIN || (src->max_ts != INT64_MIN && t <= src->max_ts))
    return 0;
  src->max_ts = t;
  *moved = true;
  return lm_engine_watermark(db, src, t - src->wm_delay, err);
}
