/* plan/topn_bind.c — binding of Top-N queries: a SELECT over a
 * FROM (SELECT ..., ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...) AS rn
 * FROM input ...) subquery filtered by rn <= N (lm_plan.topn; executed by
 * exec/op_topn.c; semantics in docs/changelog.md). Everything else with a
 * subquery or a window function is refused here with its line:column. */
#include "plan/bind_internal.h"
#include "plan/lm_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const k_other_window_fn =
    "window functions other than ROW_NUMBER in a streaming query are not "
    "supported yet";
static const char *const k_rn_filter =
    "a ROW_NUMBER subquery must be filtered by rn <= N (or rn < N, rn = 1, "
    "rn BETWEEN 1 AND N), with N an integer literal, and nothing else";

static bool is_row_number(const lm_expr *e) {
  return e->kind == LM_EXPR_FUNC && e->over && e->name &&
         !lm_strcasecmp(e->name, "row_number");
}

/* The first window function call (FUNC with OVER) in e, or NULL. */
static const lm_expr *find_over(const lm_expr *e) {
  if (!e)
    return NULL;
  if (e->kind == LM_EXPR_FUNC && e->over)
    return e;
  for (int i = 0; i < e->n_args; i++) {
    const lm_expr *f = find_over(e->args[i]);
    if (f)
      return f;
  }
  return find_over(e->filter);
}

static int over_error(const lm_expr *f, lm_error *err) {
  if (is_row_number(f))
    return lm_err_at(err, LM_ERR_BIND, f->line, f->column,
                     "ROW_NUMBER() OVER (...) is supported only as a column "
                     "of a subquery in FROM whose result is filtered by rn "
                     "<= N (Top-N, docs/changelog.md)");
  return lm_err_at(err, LM_ERR_BIND, f->line, f->column, "%s",
                   k_other_window_fn);
}

/* Refuses a window call in e (skipping `allowed`). */
static int no_over(const lm_expr *e, const lm_expr *allowed, lm_error *err) {
  if (!e || e == allowed)
    return 0;
  const lm_expr *f = find_over(e);
  return f ? over_error(f, err) : 0;
}

int lm_plan_check_no_over(const lm_select *sel, lm_error *err) {
  int rc = 0;
  for (int i = 0; !rc && i < sel->n_items; i++)
    rc = no_over(sel->items[i].expr, NULL, err);
  rc = rc ? rc : no_over(sel->where, NULL, err);
  for (int i = 0; !rc && i < sel->n_group_by; i++)
    rc = no_over(sel->group_by[i], NULL, err);
  rc = rc ? rc : no_over(sel->having, NULL, err);
  for (int i = 0; !rc && i < sel->n_order_by; i++)
    rc = no_over(sel->order_by[i].expr, NULL, err);
  return rc;
}

/* Whether e is a reference to the rn column (optionally alias-qualified). */
static bool is_rn_ref(const lm_expr *e, const char *rn, const char *alias) {
  return e && e->kind == LM_EXPR_COLUMN && e->name && !strcmp(e->name, rn) &&
         (!e->table || (alias && !strcmp(e->table, alias)));
}

static bool int_lit(const lm_expr *e, int64_t *v) {
  if (!e || e->kind != LM_EXPR_LITERAL || e->lit != LM_LIT_INT)
    return false;
  *v = e->ival;
  return true;
}

/* The N of the outer WHERE (rn <= N, rn < N, rn = 1, rn BETWEEN 1 AND N and
 * the mirrored comparisons), or an error at the WHERE. */
static int rn_limit(const lm_select *sel, const char *rn, int64_t *n,
                    lm_error *err) {
  const lm_expr *w = sel->where;
  if (!w)
    return lm_err_at(err, LM_ERR_BIND, sel->line, sel->column, "%s",
                     k_rn_filter);
  int64_t v = 0, lo = 0;
  const char *alias = sel->from_alias;
  bool ok = false;
  if (w->kind == LM_EXPR_BETWEEN && !w->negated && w->n_args == 3 &&
      is_rn_ref(w->args[0], rn, alias) && int_lit(w->args[1], &lo) &&
      int_lit(w->args[2], &v)) {
    if (lo != 1)
      return lm_err_at(err, LM_ERR_BIND, w->line, w->column,
                       "rn BETWEEN needs a lower bound of 1 (Top-N)");
    ok = true;
  } else if (w->kind == LM_EXPR_BINARY && w->n_args == 2) {
    lm_op op = w->op;
    const lm_expr *l = w->args[0], *r = w->args[1];
    if (!is_rn_ref(l, rn, alias) && is_rn_ref(r, rn, alias)) {
      const lm_expr *t = l; /* N >= rn -> rn <= N */
      l = r;
      r = t;
      op = op == LM_OP_GE   ? LM_OP_LE
           : op == LM_OP_GT ? LM_OP_LT
           : op == LM_OP_EQ ? LM_OP_EQ
                            : LM_OP_NONE;
    }
    if (is_rn_ref(l, rn, alias) && int_lit(r, &v)) {
      if (op == LM_OP_LE) {
        ok = true;
      } else if (op == LM_OP_LT) {
        v = v - 1;
        ok = true;
      } else if (op == LM_OP_EQ) {
        if (v != 1)
          return lm_err_at(err, LM_ERR_BIND, w->line, w->column,
                           "rn = N is supported for N = 1 only (use rn <= N "
                           "for the top N)");
        ok = true;
      }
    }
  }
  if (!ok)
    return lm_err_at(err, LM_ERR_BIND, w->line, w->column, "%s", k_rn_filter);
  if (v < 1)
    return lm_err_at(err, LM_ERR_BIND, w->line, w->column,
                     "the rn filter keeps no row: N must be at least 1");
  *n = v;
  return 0;
}

static bool reads_col(const lm_bexpr *x, int col) {
  if (!x)
    return false;
  if (x->kind == LM_BX_COLUMN && x->col == col)
    return true;
  for (int i = 0; i < x->n_args; i++)
    if (reads_col(x->args[i], col))
      return true;
  return false;
}

/* Checks the subquery's shape; *rn_item receives its ROW_NUMBER item. */
static int check_inner(const lm_select *in, int *rn_item, lm_error *err) {
  *rn_item = -1;
  for (int i = 0; i < in->n_items; i++) {
    const lm_expr *e = in->items[i].expr;
    if (e->kind == LM_EXPR_FUNC && e->over) {
      if (!is_row_number(e))
        return over_error(e, err);
      if (*rn_item >= 0)
        return lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                         "only one ROW_NUMBER() per subquery is supported");
      if (e->n_args || e->distinct || e->filter)
        return lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                         "ROW_NUMBER() takes no arguments");
      if (!e->n_over_order)
        return lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                         "ROW_NUMBER() OVER (...) needs an ORDER BY: the "
                         "Top-N order");
      for (int k = 0; k < e->n_partition_by; k++)
        if (find_over(e->partition_by[k]))
          return over_error(find_over(e->partition_by[k]), err);
      for (int k = 0; k < e->n_over_order; k++)
        if (find_over(e->over_order[k].expr))
          return over_error(find_over(e->over_order[k].expr), err);
      *rn_item = i;
      continue;
    }
    int rc = no_over(e, NULL, err);
    if (rc)
      return rc;
  }
  if (*rn_item < 0)
    return lm_err_at(err, LM_ERR_BIND, in->line, in->column,
                     "a subquery in FROM must compute ROW_NUMBER() OVER "
                     "(PARTITION BY ... ORDER BY ...) (Top-N); other "
                     "subqueries are not supported yet");
  const char *bad = NULL;
  if (in->n_group_by || in->having)
    bad = "a ROW_NUMBER subquery cannot aggregate yet: aggregate in a "
          "materialized view and rank over it";
  else if (in->n_order_by || in->limit >= 0 || in->offset > 0 ||
           in->limit_expr || in->offset_expr)
    bad = "ORDER BY, LIMIT and OFFSET are not supported inside a ROW_NUMBER "
          "subquery (the order is the OVER clause's)";
  else if (in->distinct)
    bad = "SELECT DISTINCT is not supported inside a ROW_NUMBER subquery";
  else if (in->emit || in->allowed_lateness_us || in->late_data_to)
    bad = "EMIT, ALLOW LATENESS and LATE DATA TO belong to the outer query";
  if (bad)
    return lm_err_at(err, LM_ERR_BIND, in->line, in->column, "%s", bad);
  return no_over(in->where, NULL, err);
}

/* Binds a scalar over `input` with the names of `scope` (NULL = input's). */
static int bind_in(const lm_expr *e, lm_schema *input, const lm_scope *scope,
                   lm_arena *arena, lm_bexpr **out, lm_error *err) {
  if (!scope)
    return lm_bind_scalar(e, input, arena, out, err);
  lm_bctx c = {arena, input, NULL, NULL, false, err, 0, false, scope, NULL, 0};
  lm_err_clear(err);
  *out = lm_bind_expr(&c, e);
  return *out ? 0 : (err->code ? err->code : LM_ERR_BIND);
}

/* lm_plan_topn over `input` named by `scope` (NULL: input's own names),
 * the subquery being `in` with `in_where` for its WHERE. */
static int topn_bind(const lm_select *sel, const lm_select *in,
                     const lm_expr *in_where, lm_schema *input,
                     const char *from_name, const lm_scope *scope,
                     lm_plan **out, lm_error *err) {
  int rn_item = -1;
  int rc = check_inner(in, &rn_item, err);
  if (rc)
    return rc;
  const lm_expr *rnx = in->items[rn_item].expr;
  const char *rn =
      in->items[rn_item].alias ? in->items[rn_item].alias : "row_number";
  /* the outer query: projections of the subquery's rows, rn filter */
  if ((rc = no_over(sel->having, NULL, err)))
    return rc;
  for (int i = 0; i < sel->n_items; i++)
    if ((rc = no_over(sel->items[i].expr, NULL, err)))
      return rc;
  if (sel->n_group_by || sel->having)
    return lm_err_at(err, LM_ERR_BIND, sel->line, sel->column,
                     "GROUP BY over a ROW_NUMBER subquery is not supported "
                     "yet: make the Top-N a view and aggregate over it");
  if (sel->distinct)
    return lm_err_at(err, LM_ERR_BIND, sel->line, sel->column,
                     "SELECT DISTINCT over a ROW_NUMBER subquery is not "
                     "supported");
  int64_t n = 0;
  if ((rc = rn_limit(sel, rn, &n, err)))
    return rc;

  /* the subquery without its rn item, bound over the input */
  lm_select is = *in;
  is.where = (lm_expr *)in_where;
  is.from_subquery = NULL;
  is.items =
      malloc(sizeof *is.items * (size_t)(in->n_items > 1 ? in->n_items : 1));
  if (!is.items)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  is.n_items = 0;
  for (int i = 0; i < in->n_items; i++)
    if (i != rn_item)
      is.items[is.n_items++] = in->items[i];
  lm_plan *ip = NULL;
  if (is.n_items == 0)
    rc = lm_err_at(err, LM_ERR_BIND, in->line, in->column,
                   "a ROW_NUMBER subquery needs at least one other column");
  else
    rc = lm_plan_select_scope(&is, input, from_name, scope, &ip, err);
  free(is.items);
  if (rc)
    return rc;
  if (ip->has_agg) {
    lm_plan_free(ip);
    return lm_err_at(err, LM_ERR_BIND, in->line, in->column,
                     "a ROW_NUMBER subquery cannot aggregate yet: aggregate "
                     "in a materialized view and rank over it");
  }
  /* PARTITION BY and ORDER BY, over the input */
  lm_bexpr **part = lm_arena_alloc(
      &ip->arena, sizeof(lm_bexpr *) * (size_t)(rnx->n_partition_by + 1));
  lm_sort_key *order = lm_arena_alloc(
      &ip->arena, sizeof(lm_sort_key) * (size_t)(rnx->n_over_order + 1));
  if (!part || !order) {
    lm_plan_free(ip);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int k = 0; k < rnx->n_partition_by; k++)
    if ((rc = bind_in(rnx->partition_by[k], input, scope, &ip->arena, &part[k],
                      err))) {
      lm_plan_free(ip);
      return rc;
    }
  for (int k = 0; k < rnx->n_over_order; k++) {
    const lm_order_item *oi = &rnx->over_order[k];
    if ((rc = bind_in(oi->expr, input, scope, &ip->arena, &order[k].expr,
                      err))) {
      lm_plan_free(ip);
      return rc;
    }
    order[k].desc = oi->desc;
    /* PostgreSQL's default: NULLs sort as larger than every value */
    order[k].nulls_first = oi->nulls ? oi->nulls == 1 : oi->desc;
  }
  /* the subquery's schema: its columns, then rn */
  int nc = ip->out_schema->n_fields;
  lm_schema *ts = lm_schema_new(nc + 1);
  if (!ts) {
    lm_plan_free(ip);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int c = 0; c < nc; c++) {
    const lm_field *f = &ip->out_schema->fields[c];
    lm_schema_set_field(ts, c, f->name, f->type, f->nullable);
  }
  lm_schema_set_field(ts, nc, rn, lm_type_make(LM_TYPE_INT64), false);
  lm_select os = *sel;
  os.from_subquery = NULL;
  os.where = NULL;
  lm_plan *p = NULL;
  rc = lm_plan_select(&os, ts, sel->from_alias ? sel->from_alias : "subquery",
                      &p, err);
  lm_schema_release(ts);
  if (rc) {
    lm_plan_free(ip);
    return rc;
  }
  p->topn = ip;
  if (p->has_agg) {
    lm_plan_free(p);
    return lm_err_at(err, LM_ERR_BIND, sel->line, sel->column,
                     "aggregates over a ROW_NUMBER subquery are not "
                     "supported yet: make the Top-N a view and aggregate "
                     "over it");
  }
  p->topn_part = part;
  p->n_topn_part = rnx->n_partition_by;
  p->topn_order = order;
  p->n_topn_order = rnx->n_over_order;
  p->topn_limit = n;
  p->topn_rn_col = nc;
  for (int o = 0; o < p->out_schema->n_fields; o++)
    if (reads_col(p->out[o], nc))
      p->topn_rank_visible = true;
  *out = p;
  return 0;
}

int lm_plan_topn(const lm_select *sel, lm_schema *input, const char *from_name,
                 lm_plan **out, lm_error *err) {
  lm_error local;
  if (!err)
    err = &local;
  *out = NULL;
  lm_err_clear(err);
  return topn_bind(sel, sel->from_subquery, sel->from_subquery->where, input,
                   from_name, NULL, out, err);
}

int lm_plan_topn_scope(const lm_select *sel, const lm_select *in,
                       const lm_expr *in_where, lm_schema *input,
                       const lm_scope *scope, lm_plan **out, lm_error *err) {
  lm_error local;
  if (!err)
    err = &local;
  *out = NULL;
  lm_err_clear(err);
  return topn_bind(sel, in, in_where, input, NULL, scope, out, err);
}

void lm_plan_topn_time_attr(lm_plan *p, int time_col) {
  if (!p || !p->topn || time_col < 0 || p->changelog_input ||
      p->topn_limit != 1 || p->n_topn_order != 1)
    return;
  const lm_sort_key *k = &p->topn_order[0];
  if (k->desc && k->expr && k->expr->kind == LM_BX_COLUMN &&
      k->expr->col == time_col)
    p->topn_ties_last = true;
}
