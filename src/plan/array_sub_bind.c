/*
 * plan/array_sub_bind.c — ARRAY(SELECT ...) (docs/functions.md "Arrays"):
 * the parser's "__array_sub"(scalar subquery) rewritten into an aggregate
 * subquery and bound as one, correlated or not:
 *
 *   ARRAY(SELECT x FROM f WHERE w ORDER BY k)
 *     -> COALESCE((SELECT array_agg(x ORDER BY k) FROM f WHERE w), '{}')
 *
 * when the inner query is a plain one (no aggregate, GROUP BY, DISTINCT,
 * window, LIMIT, set operation); otherwise the query is read as a derived
 * table, (SELECT array_agg(c) FROM (query) AS s(c)), its rows in the order
 * the derived table delivers them. No rows: an empty array, as PostgreSQL
 * (array_agg alone gives NULL). More than one column: 42601 "subquery must
 * return only one column".
 */
#include <string.h>

#include "exec/lm_srf.h"
#include "plan/bind_internal.h"

static void *nalloc(lm_bctx *c, size_t n) {
  void *p = lm_arena_alloc(c->arena, n);
  if (!p)
    lm_err(c->err, LM_ERR_NOMEM, "out of memory");
  else
    memset(p, 0, n);
  return p;
}

/* Whether e calls an aggregate, a window function or a set-returning
 * function (not inside a subquery: that one has its own rows). */
static bool aggregates(const lm_expr *e, int depth) {
  if (!e || depth > 300)
    return depth > 300;
  if (e->kind == LM_EXPR_SUBQUERY)
    return false;
  if (e->kind == LM_EXPR_FUNC &&
      (e->over ||
       (e->name && (lm_bind_is_agg_name(e->name) || lm_srf_is_name(e->name)))))
    return true;
  for (int i = 0; i < e->n_args; i++)
    if (aggregates(e->args[i], depth + 1))
      return true;
  return false;
}

static bool plain(const lm_select *q) {
  return !q->setop && !q->values && !q->distinct && !q->n_group_by &&
         !q->n_group_elems && !q->having && !q->n_windows && q->limit < 0 &&
         q->offset <= 0 && !q->limit_expr && !q->offset_expr && !q->n_ctes &&
         q->n_items == 1 && q->items[0].expr &&
         q->items[0].expr->kind != LM_EXPR_STAR &&
         !aggregates(q->items[0].expr, 0);
}

/* ORDER BY k of the inner query as array_agg's ORDER BY: an ordinal 1 or
 * the item's alias is the item. */
static int agg_order(lm_bctx *c, const lm_select *q, lm_expr *call) {
  if (!q->n_order_by)
    return 0;
  lm_order_item *o = nalloc(c, sizeof *o * (size_t)q->n_order_by);
  if (!o)
    return -1;
  for (int i = 0; i < q->n_order_by; i++) {
    o[i] = q->order_by[i];
    const lm_expr *k = o[i].expr;
    if (k->kind == LM_EXPR_LITERAL && k->lit == LM_LIT_INT) {
      if (k->ival != 1) {
        lm_bind_fail(c, k, "ORDER BY position %s is not in select list",
                     k->text ? k->text : "?", NULL);
        lm_err_state(c->err, "42P10");
        return -1;
      }
      o[i].expr = q->items[0].expr;
    } else if (k->kind == LM_EXPR_COLUMN && !k->table && q->items[0].alias &&
               k->name && !strcmp(k->name, q->items[0].alias)) {
      o[i].expr = q->items[0].expr;
    }
  }
  call->agg_order = o;
  call->n_agg_order = q->n_order_by;
  return 0;
}

lm_bexpr *lm_bind_array_sub(lm_bctx *c, const lm_expr *e) {
  const lm_expr *sq = e->n_args == 1 ? e->args[0] : NULL;
  if (!sq || sq->kind != LM_EXPR_SUBQUERY || !sq->subquery) {
    lm_bind_fail(c, e, "ARRAY( needs a subquery", NULL, NULL);
    lm_err_state(c->err, "42601");
    return NULL;
  }
  const lm_select *q = sq->subquery;
  if (!q->setop && !q->values && q->n_items > 1) {
    lm_bind_fail(c, sq, "subquery must return only one column", NULL, NULL);
    lm_err_state(c->err, "42601");
    return NULL;
  }
  lm_select *nq = nalloc(c, sizeof *nq);
  lm_select_item *it = nalloc(c, sizeof *it);
  lm_expr *call = nalloc(c, sizeof *call), **cargs = nalloc(c, sizeof *cargs);
  if (!nq || !it || !call || !cargs)
    return NULL;
  call->kind = LM_EXPR_FUNC;
  call->name = "array_agg";
  call->line = e->line;
  call->column = e->column;
  call->args = cargs;
  call->n_args = 1;
  it->expr = call;
  it->alias = "array";
  if (plain(q)) {
    *nq = *q;
    cargs[0] = q->items[0].expr;
    if (agg_order(c, q, call))
      return NULL;
    nq->order_by = NULL;
    nq->n_order_by = 0;
  } else {
    /* SELECT array_agg(c) FROM (q) AS "array"(c) */
    lm_from *f = nalloc(c, sizeof *f);
    const char **cols = nalloc(c, sizeof *cols);
    lm_expr *col = nalloc(c, sizeof *col);
    if (!f || !cols || !col)
      return NULL;
    cols[0] = "\x01"
              "c";
    f->kind = LM_FROM_SUBQUERY;
    f->line = q->line;
    f->column = q->column;
    f->subquery = (lm_select *)q;
    f->alias = "\x01"
               "array";
    f->col_aliases = cols;
    f->n_col_aliases = 1;
    col->kind = LM_EXPR_COLUMN;
    col->name = cols[0];
    col->line = e->line;
    col->column = e->column;
    cargs[0] = col;
    nq->line = q->line;
    nq->column = q->column;
    nq->limit = -1;
    lm_sql_select_set_from(nq, f);
  }
  nq->items = it;
  nq->n_items = 1;
  /* COALESCE((SELECT ...), '{}') */
  lm_expr *sub = nalloc(c, sizeof *sub), *lit = nalloc(c, sizeof *lit),
          *co = nalloc(c, sizeof *co), **coargs = nalloc(c, 2 * sizeof *coargs);
  if (!sub || !lit || !co || !coargs)
    return NULL;
  *sub = *sq;
  sub->subquery = nq;
  lit->kind = LM_EXPR_LITERAL;
  lit->lit = LM_LIT_STRING;
  lit->text = "{}";
  lit->line = e->line;
  lit->column = e->column;
  co->kind = LM_EXPR_FUNC;
  co->name = "coalesce";
  co->line = e->line;
  co->column = e->column;
  coargs[0] = sub;
  coargs[1] = lit;
  co->args = coargs;
  co->n_args = 2;
  return lm_bind_expr(c, co);
}
