/*
 * Decorrelating subquery expressions (docs/subqueries.md), as PostgreSQL
 * pulls up EXISTS / IN sublinks into semi / anti joins and DuckDB
 * flattens correlated aggregates into a grouped aggregate joined back.
 *
 * A correlated subquery whose outer references all sit in WHERE
 * conjuncts `inner_expr = outer_column` is rewritten (here, on the AST)
 * into one uncorrelated query: the same FROM and the other conjuncts,
 * returning the inner side of each equality (and the value, for a scalar
 * or ANY / ALL subquery), grouped by them when the subquery aggregates.
 * The evaluator (exec/expr_subquery.c) runs it once and hashes its rows
 * by those keys; an outer row's key tuple then finds exactly the rows the
 * correlated query would return for it (inner rows with a NULL key match
 * no outer row; an outer NULL key matches nothing), so EXISTS, IN / NOT
 * IN (with PostgreSQL's NULL rules) and the scalar forms keep their
 * meaning. A key with no rows gets what the subquery returns over no
 * rows: nothing, or for an aggregate its value over an empty input (the
 * `empty` query: COUNT gives 0, not NULL).
 *
 * A GROUP BY of the subquery is extended by the keys (HAVING kept); an
 * ORDER BY ... LIMIT n is kept without the LIMIT, which the evaluator
 * applies per key (its grouping by key keeps the rows' order): top-1 per
 * key. EXISTS may hold one more correlated conjunct `inner op outer`
 * (op < <= > >=): it becomes max(inner) (min for < / <=) per key, which
 * the evaluator compares with the outer value.
 *
 * Anything else (a reference outside those equalities, OFFSET, LIMIT or
 * HAVING over an aggregate without GROUP BY, window functions, set
 * operations) stays a per-key SubPlan; so does a decorrelated query that
 * fails or whose key types differ from the outer values' (decided when it
 * first runs).
 */
#include <string.h>

#include "plan/bind_internal.h"

/* Whether e is one of sp's outer references (by AST node). */
static int ref_index(const lm_subplan *sp, const lm_expr *e) {
  for (int i = 0; i < sp->n_refs; i++)
    if (sp->ref_exprs[i] == e)
      return i;
  return -1;
}

/* Whether e (not looking into subqueries) reads an outer reference. */
static bool has_ref(const lm_subplan *sp, const lm_expr *e) {
  if (!e)
    return false;
  if (ref_index(sp, e) >= 0)
    return true;
  for (int i = 0; i < e->n_args; i++)
    if (has_ref(sp, e->args[i]))
      return true;
  for (int i = 0; i < e->n_partition_by; i++)
    if (has_ref(sp, e->partition_by[i]))
      return true;
  for (int i = 0; i < e->n_over_order; i++)
    if (has_ref(sp, e->over_order[i].expr))
      return true;
  return has_ref(sp, e->filter);
}

/* agg: e calls an aggregate; win: a window function (not in subqueries). */
static void scan_calls(const lm_expr *e, bool *agg, bool *win) {
  if (!e)
    return;
  if (e->over)
    *win = true;
  else if (e->kind == LM_EXPR_FUNC && e->name && lm_bind_is_agg_name(e->name))
    *agg = true;
  for (int i = 0; i < e->n_args; i++)
    scan_calls(e->args[i], agg, win);
  scan_calls(e->filter, agg, win);
}

typedef struct conj_list {
  const lm_expr *v[64];
  int n;
} conj_list;

/* Splits e's AND tree into conjuncts; false when there are too many. */
static bool split_and(const lm_expr *e, conj_list *l) {
  if (e->kind == LM_EXPR_BINARY && e->op == LM_OP_AND && e->n_args == 2)
    return split_and(e->args[0], l) && split_and(e->args[1], l);
  if (l->n == (int)(sizeof l->v / sizeof l->v[0]))
    return false;
  l->v[l->n++] = e;
  return true;
}

/* The parameter of sp that outer reference e reads (-1: none). */
static int param_of(const lm_subplan *sp, const lm_expr *e) {
  int r = ref_index(sp, e);
  if (r < 0 || e->kind != LM_EXPR_COLUMN)
    return -1;
  for (int k = 0; k < sp->n_params; k++)
    if (sp->params[k] == sp->ref_slots[r])
      return k;
  return -1;
}

lm_decor *lm_decorrelate(lm_arena *a, const lm_subplan *sp) {
  const lm_select *s = sp->sel;
  if (!s || sp->n_params < 1 || sp->n_params > 32 || !s->where ||
      s->setop != LM_SETOP_NONE || s->n_values > 0 ||
      s->n_group_by + sp->n_params > 64 || s->n_windows > 0 || s->n_items < 1 ||
      s->group_elems || /* grouping sets: the added keys would be in none */
      (!s->from && !s->from_clause && !s->from_subquery) || s->offset != 0)
    return NULL;
  bool exists = sp->kind == LM_SUBQ_EXISTS, grouped = s->n_group_by > 0;
  bool agg = false, win = false;
  for (int i = 0; i < s->n_items; i++)
    scan_calls(s->items[i].expr, &agg, &win);
  for (int i = 0; i < s->n_order_by; i++)
    scan_calls(s->order_by[i].expr, &agg, &win);
  scan_calls(s->having, &agg, &win);
  /* an aggregate over the whole correlated input: one row per key */
  bool agg_all = agg && !grouped;
  if (win || (agg_all && (exists || s->having)) || s->limit == 0 ||
      s->limit_with_ties || s->limit_expr || s->offset_expr ||
      /* per key: run as a SubPlan */
      (agg_all && s->limit != -1))
    return NULL;
  if (!exists && (s->n_items != 1 || !s->items[0].expr ||
                  s->items[0].expr->kind == LM_EXPR_STAR))
    return NULL;
  conj_list l = {.n = 0};
  if (!split_and(s->where, &l))
    return NULL;
  const lm_expr *key[32] = {0}; /* the inner side, per parameter */
  const lm_expr *rest[64];
  int n_rest = 0;
  /* EXISTS: one `inner op outer` inequality besides the equalities */
  const lm_expr *range_in = NULL;
  int range_p = -1;
  lm_op range_op = LM_OP_EQ;
  bool range_ok = exists && !grouped && !agg && !s->having;
  for (int i = 0; i < l.n; i++) {
    const lm_expr *c = l.v[i];
    int p = -1;
    const lm_expr *in = NULL;
    bool bin = c->kind == LM_EXPR_BINARY && c->n_args == 2;
    if (bin && c->op == LM_OP_EQ) {
      for (int side = 0; side < 2 && p < 0; side++) {
        p = param_of(sp, c->args[side]);
        in = c->args[1 - side];
      }
    }
    if (p >= 0 && !key[p] && !has_ref(sp, in) && !lm_expr_has_subquery(in)) {
      key[p] = in;
      continue;
    }
    if (bin && range_ok && range_p < 0 &&
        (c->op == LM_OP_LT || c->op == LM_OP_LE || c->op == LM_OP_GT ||
         c->op == LM_OP_GE)) {
      for (int side = 0; side < 2 && p < 0; side++) {
        p = param_of(sp, c->args[side]);
        in = c->args[1 - side];
        if (p >= 0 && side == 0) /* outer op inner: as inner op' outer */
          range_op = c->op == LM_OP_LT   ? LM_OP_GT
                     : c->op == LM_OP_LE ? LM_OP_GE
                     : c->op == LM_OP_GT ? LM_OP_LT
                                         : LM_OP_LE;
        else
          range_op = c->op;
      }
      if (p >= 0 && !has_ref(sp, in) && !lm_expr_has_subquery(in)) {
        range_p = p;
        range_in = in;
        continue;
      }
    }
    if (has_ref(sp, c))
      return NULL; /* correlated otherwise than by an equality */
    rest[n_rest++] = c;
  }
  int n_keys = 0, key_param[32];
  for (int k = 0; k < sp->n_params; k++) {
    if (key[k])
      key_param[n_keys++] = k;
    else if (k != range_p)
      return NULL; /* a reference elsewhere (e.g. in the select list) */
  }
  if (n_keys == 0)
    return NULL;
  if (range_p >= 0) { /* EXISTS (... inner > outer) = max(inner) > outer */
    exists = false;
    agg = true;
  }

  lm_decor *d = lm_arena_alloc(a, sizeof *d);
  lm_select *q = lm_arena_alloc(a, sizeof *q);
  int key_off = exists ? 0 : 1, n_items = key_off + n_keys;
  lm_select_item *items = lm_arena_alloc(a, sizeof *items * (size_t)n_items);
  int n_group = s->n_group_by + n_keys;
  lm_expr **group = agg || grouped
                        ? lm_arena_alloc(a, sizeof *group * (size_t)n_group)
                        : NULL;
  if (!d || !q || !items || ((agg || grouped) && !group))
    return NULL;
  for (int i = 0; i < s->n_group_by; i++)
    group[i] = s->group_by[i];
  *q = *s;
  if (range_p >= 0) { /* max(inner) for > / >=, min(inner) for < / <= */
    lm_expr *f = lm_arena_alloc(a, sizeof *f);
    lm_expr **fa = lm_arena_alloc(a, sizeof *fa);
    if (!f || !fa)
      return NULL;
    memset(f, 0, sizeof *f);
    f->kind = LM_EXPR_FUNC;
    f->name = range_op == LM_OP_GT || range_op == LM_OP_GE ? "max" : "min";
    f->line = range_in->line;
    f->column = range_in->column;
    fa[0] = (lm_expr *)range_in;
    f->args = fa;
    f->n_args = 1;
    items[0].expr = f;
    items[0].alias = NULL;
  } else if (!exists) {
    items[0] = s->items[0];
  }
  for (int k = 0; k < n_keys; k++) {
    const lm_expr *in = key[key_param[k]];
    items[key_off + k].expr = (lm_expr *)in;
    items[key_off + k].alias = NULL;
    if (agg || grouped)
      group[s->n_group_by + k] = (lm_expr *)in;
    d->key_param[k] = key_param[k];
  }
  d->n_keys = n_keys;
  d->range_param = range_p;
  d->range_op = range_op;
  q->items = items;
  q->n_items = n_items;
  /* LIMIT n applies per key: the rows stay in ORDER BY order (the
   * evaluator's grouping by key is stable) and each key keeps its first n
   * (EXISTS only needs one) */
  if (s->limit < 0 || exists || range_p >= 0) {
    q->order_by = NULL;
    q->n_order_by = 0;
  }
  q->limit = -1;
  q->where = NULL;
  for (int i = 0; i < n_rest; i++) {
    if (!q->where) {
      q->where = (lm_expr *)rest[i];
      continue;
    }
    lm_expr *and = lm_arena_alloc(a, sizeof *and);
    lm_expr **args = lm_arena_alloc(a, sizeof *args * 2);
    if (!and || !args)
      return NULL;
    and->kind = LM_EXPR_BINARY;
    and->op = LM_OP_AND;
    and->line = rest[i]->line;
    and->column = rest[i]->column;
    args[0] = q->where;
    args[1] = (lm_expr *)rest[i];
    and->args = args;
    and->n_args = 2;
    q->where = and;
  }
  if (agg || grouped) {
    q->group_by = group;
    q->n_group_by = n_group;
  }
  if (agg_all && range_p < 0) {
    /* over no rows: the same select list, WHERE false, no GROUP BY */
    lm_select *e = lm_arena_alloc(a, sizeof *e);
    lm_expr *no = lm_arena_alloc(a, sizeof *no);
    if (!e || !no)
      return NULL;
    *e = *s;
    no->kind = LM_EXPR_LITERAL;
    no->lit = LM_LIT_BOOL;
    no->bval = false;
    no->line = s->where->line;
    no->column = s->where->column;
    e->where = no;
    e->order_by = NULL;
    e->n_order_by = 0;
    d->empty = e;
  }
  d->sel = q;
  d->key_off = key_off;
  d->limit = exists || range_p >= 0 ? -1 : s->limit;
  return d;
}
