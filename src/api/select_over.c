/*
 * Ad-hoc SELECT with window functions (docs/window_functions.md).
 *
 * A query with f(...) OVER (...) runs in three steps, as PostgreSQL
 * evaluates it (window functions after WHERE, GROUP BY and HAVING):
 *   1. an inner SELECT with the same FROM / WHERE / GROUP BY / HAVING whose
 *      items are every window-free part the rest needs: each maximal
 *      window-free subtree of the select list and ORDER BY (__sN), and each
 *      window call's arguments, PARTITION BY and ORDER BY keys and frame
 *      offsets (__wK_...);
 *   2. each window call over those rows (exec/window_fn.c): one more
 *      column __wK;
 *   3. the select list's skeleton (window-free parts replaced by __sN,
 *      calls by __wK), DISTINCT, ORDER BY, LIMIT and OFFSET over the
 *      combined rows (lm_engine_select_rows).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/engine.h"
#include "api/over_json.h"
#include "columnar/lm_temporal.h"
#include "exec/lm_window_fn.h"

/* -------------------------------------------------------- AST helpers */

static bool expr_has_over(const lm_expr *e) {
  if (!e)
    return false;
  if (e->kind == LM_EXPR_FUNC && e->over)
    return true;
  for (int i = 0; i < e->n_args; i++)
    if (expr_has_over(e->args[i]))
      return true;
  return expr_has_over(e->filter);
}

static bool items_have_over(const lm_select *sel) {
  for (int i = 0; i < sel->n_items; i++)
    if (expr_has_over(sel->items[i].expr))
      return true;
  for (int i = 0; i < sel->n_order_by; i++)
    if (expr_has_over(sel->order_by[i].expr))
      return true;
  return false;
}

static bool clauses_have_over(const lm_select *sel) {
  if (expr_has_over(sel->where) || expr_has_over(sel->having))
    return true;
  for (int i = 0; i < sel->n_group_by; i++)
    if (expr_has_over(sel->group_by[i]))
      return true;
  return false;
}

static bool subquery_has_over(const lm_select *sel) {
  const lm_from *f = sel->from_clause;
  return f && f->kind == LM_FROM_SUBQUERY && f->subquery &&
         items_have_over(f->subquery);
}

bool lm_select_has_over(const lm_select *sel) {
  return sel && (items_have_over(sel) || clauses_have_over(sel) ||
                 subquery_has_over(sel));
}

/* --------------------------------------------------------- the rewrite */

typedef struct wcall {
  const lm_expr *call;
  const lm_expr *spec; /* holds partition_by / over_order / frame */
  lm_expr **part;
  int n_part;
  lm_order_item *order;
  int n_order;
  lm_window_frame *frame;
  int first_item; /* index of its first inner item */
  int n_args, fs_item, fe_item;
  bool count_star;
} wcall;

typedef struct rw {
  lm_arena *arena;
  const lm_select *sel;
  lm_select_item *items; /* the inner SELECT's items */
  int n_items, cap;
  wcall *calls;
  int n_calls, cap_calls;
  lm_error *err;
} rw;

static char *fmt_name(rw *r, const char *fmt, int a, int b) {
  char buf[64];
  snprintf(buf, sizeof buf, fmt, a, b);
  return lm_arena_strndup(r->arena, buf, strlen(buf));
}

static lm_expr *col_ref(rw *r, const char *name, const lm_expr *at) {
  lm_expr *c = lm_arena_alloc(r->arena, sizeof *c);
  if (!c)
    return NULL;
  c->kind = LM_EXPR_COLUMN;
  c->name = name;
  c->line = at ? at->line : 0;
  c->column = at ? at->column : 0;
  return c;
}

/* Adds an inner item (e AS name); returns its index or -1 on OOM. */
static int add_item(rw *r, lm_expr *e, const char *name) {
  if (r->n_items == r->cap) {
    int nc = r->cap ? r->cap * 2 : 16;
    lm_select_item *n = lm_arena_alloc(r->arena, sizeof *n * (size_t)nc);
    if (!n)
      return -1;
    if (r->n_items)
      memcpy(n, r->items, sizeof *n * (size_t)r->n_items);
    r->items = n;
    r->cap = nc;
  }
  r->items[r->n_items].expr = e;
  r->items[r->n_items].alias = name;
  return r->n_items++;
}

static int oom(rw *r) {
  return lm_err(r->err, LM_ERR_NOMEM, "out of memory");
}

/* CASE WHEN FALSE THEN other ELSE e END: e in the common type of e and
 * other (LAG/LEAD's value and default). */
static lm_expr *unify(rw *r, lm_expr *e, lm_expr *other) {
  lm_expr *f = lm_arena_alloc(r->arena, sizeof *f);
  lm_expr *c = lm_arena_alloc(r->arena, sizeof *c);
  lm_expr **a = lm_arena_alloc(r->arena, sizeof *a * 3);
  if (!f || !c || !a)
    return NULL;
  f->kind = LM_EXPR_LITERAL;
  f->lit = LM_LIT_BOOL;
  f->bval = false;
  f->line = e->line;
  f->column = e->column;
  *c = (lm_expr){0};
  c->kind = LM_EXPR_CASE;
  c->line = e->line;
  c->column = e->column;
  a[0] = f;
  a[1] = other;
  a[2] = e;
  c->args = a;
  c->n_args = 3;
  c->has_else = true;
  return c;
}

/* CASE WHEN f THEN x END (COUNT(*): x is TRUE). */
static lm_expr *filtered(rw *r, lm_expr *f, lm_expr *x) {
  lm_expr *c = lm_arena_alloc(r->arena, sizeof *c);
  lm_expr **a = lm_arena_alloc(r->arena, sizeof *a * 2);
  if (!c || !a)
    return NULL;
  if (x->kind == LM_EXPR_STAR) {
    lm_expr *t = lm_arena_alloc(r->arena, sizeof *t);
    if (!t)
      return NULL;
    t->kind = LM_EXPR_LITERAL;
    t->lit = LM_LIT_BOOL;
    t->bval = true;
    t->line = x->line;
    t->column = x->column;
    x = t;
  }
  c->kind = LM_EXPR_CASE;
  c->line = f->line;
  c->column = f->column;
  a[0] = f;
  a[1] = x;
  c->args = a;
  c->n_args = 2;
  return c;
}

static int over_misplaced(rw *r, const lm_expr *e, const char *where) {
  const lm_expr *f = e;
  (void)f;
  return lm_err_at(r->err, LM_ERR_BIND, e->line, e->column,
                   "window functions are not allowed in %s", where);
}

static const lm_expr *first_over(const lm_expr *e) {
  if (!e)
    return NULL;
  if (e->kind == LM_EXPR_FUNC && e->over)
    return e;
  for (int i = 0; i < e->n_args; i++) {
    const lm_expr *f = first_over(e->args[i]);
    if (f)
      return f;
  }
  return first_over(e->filter);
}

/* The PARTITION BY, ORDER BY and frame of window call e, its OVER w /
 * OVER (w ...) resolved against sel's WINDOW clause as PostgreSQL does. */
static int resolve_window(const lm_select *sel, const lm_expr *e, wcall *w,
                          lm_error *err) {
  w->call = e;
  w->part = e->partition_by;
  w->n_part = e->n_partition_by;
  w->order = e->over_order;
  w->n_order = e->n_over_order;
  w->frame = e->frame;
  /* OVER w / OVER (w ...): the named window's clauses, PostgreSQL's rules */
  const char *nm = e->over_name;
  int depth = 0;
  while (nm) {
    const lm_window_def *d = NULL;
    for (int i = 0; i < sel->n_windows; i++)
      if (!strcmp(sel->windows[i].name, nm))
        d = &sel->windows[i];
    if (!d) /* PostgreSQL's position: the name of the OVER (at depth 0) */
      return lm_err_at(
          err, LM_ERR_BIND,
          depth || !e->over_name_line ? e->line : e->over_name_line,
          depth || !e->over_name_line ? e->column : e->over_name_column,
          "window \"%s\" does not exist", nm);
    if (++depth > 32)
      return lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                       "window \"%s\" refers to itself", nm);
    if (w->n_part && d->spec->n_partition_by)
      return lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                       "cannot override PARTITION BY clause of window \"%s\"",
                       nm);
    if (!w->n_part) {
      w->part = d->spec->partition_by;
      w->n_part = d->spec->n_partition_by;
    }
    if (w->n_order && d->spec->n_over_order)
      return lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                       "cannot override ORDER BY clause of window \"%s\"", nm);
    if (!w->n_order) {
      w->order = d->spec->over_order;
      w->n_order = d->spec->n_over_order;
    }
    if (d->spec->frame && nm != e->over_name)
      return lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                       "cannot copy window \"%s\" because it has a frame "
                       "clause",
                       nm);
    if (!w->frame)
      w->frame = d->spec->frame;
    nm = d->spec->over_name;
  }
  return 0;
}

/* Registers window call e: its parts become inner items. */
static int add_call(rw *r, const lm_expr *e, int *k_out) {
  for (int i = 0; i < e->n_args; i++)
    if (first_over(e->args[i])) {
      const lm_expr *f = first_over(e->args[i]);
      return lm_err_at(r->err, LM_ERR_BIND, f->line, f->column,
                       "window function calls cannot be nested");
    }
  if (e->within_group) { /* percentile_cont / _disc, mode: PostgreSQL's */
    lm_err_at(r->err, LM_ERR_BIND, e->line, e->column,
              "OVER is not supported for ordered-set aggregate %s", e->name);
    return lm_err_state(r->err, "0A000");
  }
  if (e->distinct)
    return lm_err_at(r->err, LM_ERR_BIND, e->line, e->column,
                     "DISTINCT is not implemented for window functions");
  static const char *const aggs[] = {"count",
                                     "sum",
                                     "avg",
                                     "min",
                                     "max",
                                     "variance",
                                     "var_samp",
                                     "var_pop",
                                     "stddev",
                                     "stddev_samp",
                                     "stddev_pop",
                                     "bool_and",
                                     "bool_or",
                                     "every",
                                     "corr",
                                     "covar_pop",
                                     "covar_samp",
                                     "regr_slope",
                                     "regr_intercept",
                                     "regr_r2",
                                     "regr_avgx",
                                     "regr_avgy",
                                     "regr_sxx",
                                     "regr_syy",
                                     "regr_sxy",
                                     "regr_count",
                                     "bit_and",
                                     "bit_or",
                                     "bit_xor",
                                     NULL};
  bool is_agg = false;
  for (int i = 0; e->name && aggs[i]; i++)
    if (!strcmp(e->name, aggs[i]))
      is_agg = true;
  if (e->filter && !is_agg)
    return lm_err_at(r->err, LM_ERR_BIND, e->line, e->column,
                     "FILTER is not implemented for non-aggregate window "
                     "functions");
  if (e->filter && first_over(e->filter))
    return over_misplaced(r, first_over(e->filter), "FILTER");
  wcall w = {0};
  int rc = resolve_window(r->sel, e, &w, r->err);
  if (rc)
    return rc;
  int k = r->n_calls;
  w.first_item = r->n_items;
  bool lagl = e->name && (!strcmp(e->name, "lag") || !strcmp(e->name, "lead"));
  if (e->n_args == 1 && e->args[0]->kind == LM_EXPR_STAR && !e->filter) {
    w.count_star = true;
  } else {
    for (int i = 0; i < e->n_args; i++) {
      lm_expr *a = e->args[i];
      if (lagl && e->n_args == 3 && (i == 0 || i == 2))
        a = unify(r, a, e->args[2 - i]);
      if (e->filter) /* agg(x) FILTER (WHERE f) = agg(CASE WHEN f THEN x) */
        a = filtered(r, e->filter, a);
      if (!a || add_item(r, a, fmt_name(r, "__w%d_a%d", k, i)) < 0)
        return oom(r);
    }
    w.n_args = e->n_args;
  }
  for (int i = 0; i < w.n_part; i++) {
    if (first_over(w.part[i]))
      return over_misplaced(r, first_over(w.part[i]), "window definitions");
    if (add_item(r, w.part[i], fmt_name(r, "__w%d_p%d", k, i)) < 0)
      return oom(r);
  }
  for (int i = 0; i < w.n_order; i++) {
    if (first_over(w.order[i].expr))
      return over_misplaced(r, first_over(w.order[i].expr),
                            "window definitions");
    if (add_item(r, w.order[i].expr, fmt_name(r, "__w%d_o%d", k, i)) < 0)
      return oom(r);
  }
  w.fs_item = w.fe_item = -1;
  if (w.frame) {
    if (w.frame->start.offset &&
        (w.fs_item = add_item(r, w.frame->start.offset,
                              fmt_name(r, "__w%d_fs", k, 0))) < 0)
      return oom(r);
    if (w.frame->end.offset &&
        (w.fe_item = add_item(r, w.frame->end.offset,
                              fmt_name(r, "__w%d_fe", k, 0))) < 0)
      return oom(r);
  }
  if (r->n_calls == r->cap_calls) {
    int nc = r->cap_calls ? r->cap_calls * 2 : 8;
    wcall *n = lm_arena_alloc(r->arena, sizeof *n * (size_t)nc);
    if (!n)
      return oom(r);
    if (r->n_calls)
      memcpy(n, r->calls, sizeof *n * (size_t)r->n_calls);
    r->calls = n;
    r->cap_calls = nc;
  }
  r->calls[r->n_calls++] = w;
  *k_out = k;
  return 0;
}

/* True when e is a constant (literals under unary operators, casts and
 * binary operators): kept as it is in a skeleton, so that an argument that
 * must be a constant (round's digits, date_trunc's unit, AT TIME ZONE's
 * zone) stays one beside a window call, and literals keep their type from
 * the context as PostgreSQL's. */
static bool const_tree(const lm_expr *e) {
  if (!e)
    return false;
  if (e->kind == LM_EXPR_LITERAL)
    return true;
  if (e->kind != LM_EXPR_UNARY && e->kind != LM_EXPR_CAST &&
      e->kind != LM_EXPR_BINARY)
    return false;
  for (int i = 0; i < e->n_args; i++)
    if (!const_tree(e->args[i]))
      return false;
  return e->n_args > 0;
}

/* The skeleton of e over the combined rows (NULL with *r->err set). */
static lm_expr *skel(rw *r, lm_expr *e) {
  if (!expr_has_over(e)) {
    const char *nm = fmt_name(r, "__s%d", r->n_items, 0);
    if (!nm || add_item(r, e, nm) < 0) {
      oom(r);
      return NULL;
    }
    return col_ref(r, nm, e);
  }
  if (lm_over_is_json_agg(e)) { /* json_agg OVER: over_json.c */
    lm_expr *x = lm_over_json_agg(r->arena, e);
    if (!x) {
      oom(r);
      return NULL;
    }
    return skel(r, x);
  }
  if (e->kind == LM_EXPR_FUNC && e->over) {
    int k = -1;
    if (add_call(r, e, &k))
      return NULL;
    lm_expr *c = col_ref(r, fmt_name(r, "__w%d", k, 0), e);
    if (!c)
      oom(r);
    return c;
  }
  if (e->filter && expr_has_over(e->filter)) {
    over_misplaced(r, first_over(e->filter), "FILTER");
    return NULL;
  }
  lm_expr *c = lm_arena_alloc(r->arena, sizeof *c);
  lm_expr **a =
      lm_arena_alloc(r->arena, sizeof *a * (size_t)(e->n_args ? e->n_args : 1));
  if (!c || !a) {
    oom(r);
    return NULL;
  }
  *c = *e;
  c->args = a;
  for (int i = 0; i < e->n_args; i++)
    if (!(a[i] = const_tree(e->args[i]) ? e->args[i] : skel(r, e->args[i])))
      return NULL;
  return c;
}

static const char *default_name(const lm_expr *e) {
  return lm_expr_default_name(e); /* binder.c */
}

/* The whole days written in a frame offset that is an INTERVAL literal
 * or a string literal cast to INTERVAL ('1 day 02:00' -> 1), 0 otherwise:
 * a RANGE bound over a TIMESTAMPTZ key moves them in the session zone
 * (window_fn.c). */
static int64_t offset_days(const lm_expr *o) {
  int64_t us, days;
  if (o && o->kind == LM_EXPR_CAST && o->n_args == 1 &&
      o->cast_type.id == LM_TYPE_INTERVAL && o->args[0]->text &&
      o->args[0]->kind == LM_EXPR_LITERAL && o->args[0]->lit == LM_LIT_STRING)
    return lm_parse_interval_days(o->args[0]->text, strlen(o->args[0]->text),
                                  NULL, 0, &us, &days)
               ? 0
               : days;
  if (!o || o->kind != LM_EXPR_LITERAL || o->lit != LM_LIT_INTERVAL ||
      !o->text ||
      lm_parse_interval_days(o->text, strlen(o->text), o->name,
                             o->name ? strlen(o->name) : 0, &us, &days) ||
      us != o->ival)
    return 0;
  return days;
}

/* ------------------------------------------------------------ the run */

static int result_batch(laminar_result *r, lm_batch **out, lm_error *err) {
  return lm_batch_concat(r->schema, r->batches, r->n_batches, out, err);
}

/* A FROM (subquery) computing window functions whose outer query is not
 * a Top-N: the subquery's rows, then the outer query over them. */
static int select_over_subquery(laminar_db *db, const lm_select *sel,
                                laminar_result **res, lm_error *err) {
  laminar_result *sub = NULL;
  lm_xt_next_role(LM_XT_FROM_SUB, NULL, NULL); /* EXPLAIN's trace */
  int rc = lm_engine_select(db, sel->from_clause->subquery, &sub, err);
  if (rc)
    return rc;
  lm_batch *rows = NULL;
  rc = result_batch(sub, &rows, err);
  laminar_result_free(sub);
  if (rc)
    return rc;
  lm_select outer = *sel;
  outer.from_clause = NULL;
  outer.from_subquery = NULL;
  outer.from = sel->from_alias;
  lm_xt_subquery_input(sel->from_alias, rows->num_rows);
  rc = lm_engine_select_rows(&outer, rows, sel->from_alias, res, err);
  lm_batch_release(rows);
  return rc;
}

int lm_engine_select_over(laminar_db *db, const lm_select *sel,
                          laminar_result **res, lm_error *err) {
  if (!items_have_over(sel) && !clauses_have_over(sel)) {
    /* only the FROM subquery has window calls: a Top-N when it has that
     * shape, else computed by the subquery itself */
    int rc = lm_engine_select_plain(db, sel, res, err);
    if (rc != LM_ERR_BIND)
      return rc;
    lm_err_clear(err);
    return select_over_subquery(db, sel, res, err);
  }
  if (sel->emit != LM_EMIT_DEFAULT)
    return lm_engine_pos_err(
        err, LM_ERR_BIND, sel->line, sel->column,
        "EMIT is only allowed in CREATE STREAM / MATERIALIZED VIEW");
  const lm_expr *bad = first_over(sel->where);
  const char *where = "WHERE";
  if (!bad && (bad = first_over(sel->having)))
    where = "HAVING";
  for (int i = 0; !bad && i < sel->n_group_by; i++)
    if ((bad = first_over(sel->group_by[i])))
      where = "GROUP BY";
  if (bad)
    return lm_err_at(err, LM_ERR_BIND, bad->line, bad->column,
                     "window functions are not allowed in %s", where);
  lm_arena arena;
  lm_arena_init(&arena, 8192);
  rw r = {&arena, sel, NULL, 0, 0, NULL, 0, 0, err};
  int rc = 0;
  /* SELECT *: the inner query's first items, expanded there */
  int star = -1;
  for (int i = 0; i < sel->n_items; i++)
    if (sel->items[i].expr->kind == LM_EXPR_STAR) {
      if (star >= 0) {
        lm_arena_free(&arena);
        return lm_err_at(err, LM_ERR_BIND, sel->items[i].expr->line,
                         sel->items[i].expr->column,
                         "only one * is supported with window functions");
      }
      star = i;
      if (add_item(&r, sel->items[i].expr, NULL) < 0)
        rc = oom(&r);
    }
  lm_select_item *oitems =
      lm_arena_alloc(&arena, sizeof *oitems * (size_t)(sel->n_items + 1));
  lm_order_item *oorder =
      lm_arena_alloc(&arena, sizeof *oorder * (size_t)(sel->n_order_by + 1));
  if (!oitems || !oorder)
    rc = oom(&r);
  for (int i = 0; !rc && i < sel->n_items; i++) {
    if (i == star)
      continue;
    lm_expr *e = sel->items[i].expr;
    oitems[i].alias =
        sel->items[i].alias ? sel->items[i].alias : default_name(e);
    if (!(oitems[i].expr = skel(&r, e)))
      rc = err->code ? err->code : LM_ERR_NOMEM;
  }
  for (int i = 0; !rc && i < sel->n_order_by; i++) {
    lm_order_item o = sel->order_by[i];
    lm_expr *e = o.expr;
    bool keep = e->kind == LM_EXPR_LITERAL && e->lit == LM_LIT_INT;
    if (e->kind == LM_EXPR_COLUMN && !e->table)
      for (int j = 0; j < sel->n_items; j++)
        if (j != star && !strcmp(oitems[j].alias, e->name))
          keep = true;
    if (!keep && !(o.expr = skel(&r, e)))
      rc = err->code ? err->code : LM_ERR_NOMEM;
    oorder[i] = o;
  }
  if (!rc && r.n_items == 0 && add_item(&r, NULL, "__one") < 0)
    rc = oom(&r);
  if (!rc && r.items[r.n_items - 1].expr == NULL) {
    lm_expr *one = lm_arena_alloc(&arena, sizeof *one);
    if (!one)
      rc = oom(&r);
    else {
      one->kind = LM_EXPR_LITERAL;
      one->lit = LM_LIT_INT;
      one->ival = 1;
      r.items[r.n_items - 1].expr = one;
    }
  }
  /* 1. the inner query */
  laminar_result *ires = NULL;
  lm_batch *rows = NULL;
  if (!rc) {
    lm_select inner = *sel;
    inner.items = r.items;
    inner.n_items = r.n_items;
    inner.order_by = NULL;
    inner.n_order_by = 0;
    inner.windows = NULL;
    inner.n_windows = 0;
    inner.limit = -1;
    inner.offset = 0;
    inner.distinct = false;
    lm_xt_next_role(LM_XT_OVER_INNER, NULL, NULL); /* EXPLAIN's trace */
    rc = lm_engine_select(db, &inner, &ires, err);
  }
  if (!rc)
    rc = result_batch(ires, &rows, err);
  laminar_result_free(ires);
  /* 2. the window calls; the combined rows' columns: the star's, the
   * inner items, then __wK */
  int n_star = 0;
  lm_schema *bs = NULL;
  lm_array **cols = NULL;
  int n_cols = 0;
  if (!rc) {
    n_star = star >= 0 ? rows->schema->n_fields - (r.n_items - 1) : 0;
    n_cols = rows->schema->n_fields + r.n_calls;
    bs = lm_schema_new(n_cols);
    cols = calloc((size_t)n_cols + 1, sizeof *cols);
    if (!bs || !cols)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  const char **star_names =
      lm_arena_alloc(&arena, sizeof(char *) * (size_t)(n_star + 1));
  if (!star_names && !rc)
    rc = oom(&r);
  for (int c = 0; !rc && c < rows->schema->n_fields; c++) {
    const lm_field *f = &rows->schema->fields[c];
    if (c < n_star &&
        !(star_names[c] = lm_arena_strndup(&arena, f->name, strlen(f->name))))
      rc = oom(&r);
    char nm[32];
    snprintf(nm, sizeof nm, "__x%d", c);
    lm_schema_set_field(bs, c, c < n_star ? nm : f->name, f->type, true);
    cols[c] = lm_array_retain(rows->columns[c]);
  }
  int base = n_star - (star >= 0 ? 1 : 0); /* column of inner item i: base+i */
  for (int k = 0; !rc && k < r.n_calls; k++) {
    const wcall *w = &r.calls[k];
    lm_array *args[3] = {0}, *part[64], *order[64];
    bool desc[64], nf[64];
    if (w->n_part > 64 || w->n_order > 64) {
      rc = lm_err_at(err, LM_ERR_BIND, w->call->line, w->call->column,
                     "too many PARTITION BY / ORDER BY keys (at most 64)");
      break;
    }
    int it = w->first_item;
    for (int i = 0; i < w->n_args && i < 3; i++)
      args[i] = rows->columns[base + it + i];
    it += w->n_args;
    for (int i = 0; i < w->n_part; i++)
      part[i] = rows->columns[base + it + i];
    it += w->n_part;
    for (int i = 0; i < w->n_order; i++) {
      order[i] = rows->columns[base + it + i];
      desc[i] = w->order[i].desc;
      nf[i] = w->order[i].nulls ? w->order[i].nulls == 1 : desc[i];
    }
    lm_wf_call c = {0};
    c.fn = w->call->name;
    c.args = args;
    c.n_args = w->n_args > 3 ? 3 : w->n_args;
    if (w->n_args > 3) {
      rc = lm_err_at(err, LM_ERR_BIND, w->call->line, w->call->column,
                     "%s() takes at most 3 arguments", c.fn);
      break;
    }
    c.count_star = w->count_star;
    c.part = part;
    c.n_part = w->n_part;
    c.order = order;
    c.desc = desc;
    c.nulls_first = nf;
    c.n_order = w->n_order;
    if (w->frame) {
      c.has_frame = true;
      c.unit = w->frame->unit;
      c.start = w->frame->start.kind;
      c.end = w->frame->end.kind;
      c.start_off = w->fs_item >= 0 ? rows->columns[base + w->fs_item] : NULL;
      c.end_off = w->fe_item >= 0 ? rows->columns[base + w->fe_item] : NULL;
      c.start_days = offset_days(w->frame->start.offset);
      c.end_days = offset_days(w->frame->end.offset);
      c.exclude = w->frame->exclude;
    }
    c.line = w->call->line;
    c.column = w->call->column;
    lm_type t;
    lm_array *res_col = NULL;
    if (!(rc = lm_window_fn_type(&c, &t, err)))
      rc = lm_window_fn_eval(&c, rows->num_rows, &res_col, err);
    if (rc)
      break;
    lm_xt_window_call(w->call, w->part, w->n_part, w->order, w->n_order,
                      w->frame);
    int col = rows->schema->n_fields + k;
    char nm[32];
    snprintf(nm, sizeof nm, "__w%d", k);
    lm_schema_set_field(bs, col, nm, res_col->type, true);
    cols[col] = res_col;
  }
  lm_batch *all = NULL;
  if (!rc) {
    all = lm_batch_new(lm_schema_retain(bs), rows->num_rows, cols);
    free(cols); /* the references are the batch's now */
    cols = NULL;
    if (!all)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  if (cols)
    for (int c = 0; c < n_cols; c++)
      lm_array_release(cols[c]);
  free(cols);
  lm_schema_release(bs);
  lm_batch_release(rows);
  /* 3. the outer query */
  if (!rc) {
    int n_out = sel->n_items - (star >= 0 ? 1 : 0) + n_star;
    lm_select_item *fi =
        lm_arena_alloc(&arena, sizeof *fi * (size_t)(n_out + 1));
    if (!fi)
      rc = oom(&r);
    for (int i = 0, o = 0; !rc && i < sel->n_items; i++) {
      if (i != star) {
        fi[o++] = oitems[i];
        continue;
      }
      for (int c = 0; c < n_star && !rc; c++) {
        const lm_field *f = &all->schema->fields[c];
        lm_expr *x = col_ref(&r, f->name, sel->items[i].expr);
        if (!x) {
          rc = oom(&r);
          break;
        }
        fi[o].expr = x;
        fi[o++].alias = star_names[c];
      }
    }
    lm_select outer;
    memset(&outer, 0, sizeof outer);
    outer.line = sel->line;
    outer.column = sel->column;
    outer.distinct = sel->distinct;
    outer.items = fi;
    outer.n_items = n_out;
    outer.order_by = oorder;
    outer.n_order_by = sel->n_order_by;
    outer.limit = sel->limit;
    outer.offset = sel->offset;
    if (!rc)
      lm_xt_window_input(all->num_rows);
    if (!rc)
      rc = lm_engine_select_rows(&outer, all, NULL, res, err);
  }
  lm_batch_release(all);
  lm_arena_free(&arena);
  return rc;
}

/* ------------------------------------------- continuous queries: OVER */

/* The skeleton of e for a continuous query: window calls become __wK
 * column references (registered in calls), everything else is kept. */
static lm_expr *stream_skel(rw *r, lm_expr *e) {
  if (!expr_has_over(e))
    return e;
  if (e->kind == LM_EXPR_FUNC && e->over) {
    wcall w = {0};
    if (resolve_window(r->sel, e, &w, r->err))
      return NULL;
    if (r->n_calls == r->cap_calls) {
      int nc = r->cap_calls ? r->cap_calls * 2 : 8;
      wcall *n = lm_arena_alloc(r->arena, sizeof *n * (size_t)nc);
      if (!n) {
        oom(r);
        return NULL;
      }
      if (r->n_calls)
        memcpy(n, r->calls, sizeof *n * (size_t)r->n_calls);
      r->calls = n;
      r->cap_calls = nc;
    }
    int k = r->n_calls;
    r->calls[r->n_calls++] = w;
    lm_expr *c = col_ref(r, fmt_name(r, "__w%d", k, 0), e);
    if (!c)
      oom(r);
    return c;
  }
  lm_expr *c = lm_arena_alloc(r->arena, sizeof *c);
  lm_expr **a =
      lm_arena_alloc(r->arena, sizeof *a * (size_t)(e->n_args ? e->n_args : 1));
  if (!c || !a) {
    oom(r);
    return NULL;
  }
  *c = *e;
  c->args = a;
  for (int i = 0; i < e->n_args; i++)
    if (!(a[i] = stream_skel(r, e->args[i])))
      return NULL;
  return c;
}

static const char *const k_stream_over =
    "a window function over a stream must be SUM, AVG, COUNT, MIN or MAX "
    "OVER (PARTITION BY ... ORDER BY <event-time column> [ROWS BETWEEN n "
    "PRECEDING AND CURRENT ROW | RANGE BETWEEN INTERVAL '...' PRECEDING AND "
    "CURRENT ROW]) (ROW_NUMBER only as a Top-N: docs/window_functions.md)";

/* Checks and binds one call of a continuous query. */
static int stream_call(rw *r, const wcall *w, const lm_schema *in,
                       int *time_col, lm_over_call *oc) {
  const lm_expr *e = w->call;
  lm_error *err = r->err;
  const char *fn = e->name ? e->name : "";
  if (strcmp(fn, "sum") && strcmp(fn, "avg") && strcmp(fn, "count") &&
      strcmp(fn, "min") && strcmp(fn, "max"))
    return lm_err_at(err, LM_ERR_BIND, e->line, e->column, "%s", k_stream_over);
  if (e->distinct || e->filter)
    return lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                     "DISTINCT and FILTER are not supported in a window "
                     "function over a stream");
  for (int i = 0; i < e->n_args; i++)
    if (first_over(e->args[i]))
      return lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                       "window function calls cannot be nested");
  if (w->n_order != 1 || w->order[0].desc ||
      w->order[0].expr->kind != LM_EXPR_COLUMN)
    return lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                     "a window function over a stream needs ORDER BY its "
                     "event-time column, ascending");
  int tc = lm_schema_find(in, w->order[0].expr->name);
  if (tc < 0 || in->fields[tc].type.id != LM_TYPE_TIMESTAMP)
    return lm_err_at(err, LM_ERR_BIND, w->order[0].expr->line,
                     w->order[0].expr->column,
                     "ORDER BY of a window over a stream must be a TIMESTAMP "
                     "column of its input (its event time)");
  if (*time_col >= 0 && *time_col != tc)
    return lm_err_at(err, LM_ERR_BIND, w->order[0].expr->line,
                     w->order[0].expr->column,
                     "every window of a continuous query must be ordered by "
                     "the same event-time column");
  *time_col = tc;
  memset(oc, 0, sizeof *oc);
  /* a static name: the operator outlives the statement's syntax tree */
  oc->fn = !strcmp(fn, "sum")     ? "sum"
           : !strcmp(fn, "avg")   ? "avg"
           : !strcmp(fn, "count") ? "count"
           : !strcmp(fn, "min")   ? "min"
                                  : "max";
  oc->unit = LM_FRAME_RANGE;
  oc->preceding = -1;
  const lm_window_frame *f = w->frame;
  if (f && f->exclude) {
    lm_err_at(err, LM_ERR_BIND, f->xline, f->xcolumn,
              "EXCLUDE in a window over a stream is not supported (only "
              "EXCLUDE NO OTHERS, the default)");
    return lm_err_state(err, "0A000");
  }
  if (f) {
    if (f->unit == LM_FRAME_GROUPS || f->end.kind != LM_BOUND_CURRENT_ROW ||
        (f->start.kind != LM_BOUND_UNBOUNDED_PRECEDING &&
         f->start.kind != LM_BOUND_PRECEDING))
      return lm_err_at(err, LM_ERR_BIND, f->line, f->column,
                       "a window over a stream supports ROWS or RANGE "
                       "BETWEEN UNBOUNDED | n PRECEDING AND CURRENT ROW "
                       "(its rows are emitted when the watermark passes "
                       "them; following rows are not supported)");
    oc->unit = f->unit;
    if (f->start.kind == LM_BOUND_PRECEDING) {
      const lm_expr *o = f->start.offset;
      bool ok = f->unit == LM_FRAME_ROWS
                    ? o->kind == LM_EXPR_LITERAL && o->lit == LM_LIT_INT
                    : o->kind == LM_EXPR_LITERAL && o->lit == LM_LIT_INTERVAL;
      if (!ok || o->ival < 0)
        return lm_err_at(err, LM_ERR_BIND, o->line, o->column,
                         f->unit == LM_FRAME_ROWS
                             ? "ROWS n PRECEDING over a stream needs a "
                               "non-negative integer literal"
                             : "RANGE ... PRECEDING over a stream needs an "
                               "INTERVAL literal");
      oc->preceding = o->ival;
    }
  }
  bool star =
      !e->n_args || (e->n_args == 1 && e->args[0]->kind == LM_EXPR_STAR);
  if (star && strcmp(fn, "count"))
    return lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                     "%s() takes exactly one argument", fn);
  if (!star && e->n_args != 1)
    return lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                     "%s() takes exactly one argument", fn);
  int rc;
  if (!star && (rc = lm_bind_scalar(e->args[0], in, r->arena, &oc->arg, err)))
    return rc;
  lm_type at = oc->arg ? oc->arg->type : lm_type_make(LM_TYPE_INT64);
  if (lm_over_call_type(fn, at, &oc->out_type))
    return lm_err_at(err, LM_ERR_BIND, e->line, e->column,
                     "%s() OVER (...) of %s over a stream is not supported", fn,
                     lm_type_name(at));
  oc->n_part = w->n_part;
  oc->part =
      lm_arena_alloc(r->arena, sizeof *oc->part * (size_t)(w->n_part + 1));
  if (!oc->part)
    return oom(r);
  for (int i = 0; i < w->n_part; i++)
    if ((rc = lm_bind_scalar(w->part[i], in, r->arena, &oc->part[i], err)))
      return rc;
  return 0;
}

int lm_over_stream_plan(const lm_select *sel, lm_schema *in, int weight_col,
                        lm_select **outer, lm_schema **ext, lm_operator **op,
                        lm_error *err) {
  *outer = NULL;
  *ext = NULL;
  *op = NULL;
  if (!items_have_over(sel) && !clauses_have_over(sel))
    return 0;
  if (sel->n_group_by || sel->having || clauses_have_over(sel)) {
    const lm_expr *at = sel->n_group_by ? sel->group_by[0] : sel->having;
    if (!at)
      at = first_over(sel->where);
    return lm_err_at(err, LM_ERR_BIND, at ? at->line : sel->line,
                     at ? at->column : sel->column,
                     "window functions with GROUP BY, HAVING or in WHERE are "
                     "supported in ad-hoc queries only, not in a continuous "
                     "query");
  }
  /* a ranking or value function: left to the binder, which accepts
   * ROW_NUMBER as a Top-N and refuses the rest with its message */
  for (int i = 0; i < sel->n_items; i++) {
    const lm_expr *f = first_over(sel->items[i].expr);
    const char *fn = f && f->name ? f->name : "";
    if (f && strcmp(fn, "sum") && strcmp(fn, "avg") && strcmp(fn, "count") &&
        strcmp(fn, "min") && strcmp(fn, "max"))
      return 0;
  }
  lm_arena *arena = calloc(1, sizeof *arena);
  if (!arena)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_arena_init(arena, 8192);
  rw r = {arena, sel, NULL, 0, 0, NULL, 0, 0, err};
  int rc = 0;
  lm_select *o = lm_arena_alloc(arena, sizeof *o);
  lm_select_item *items =
      lm_arena_alloc(arena, sizeof *items * (size_t)(sel->n_items + 1));
  if (!o || !items)
    rc = oom(&r);
  for (int i = 0; !rc && i < sel->n_items; i++) {
    items[i] = sel->items[i];
    if (!items[i].alias && expr_has_over(sel->items[i].expr))
      items[i].alias = default_name(sel->items[i].expr);
    if (!(items[i].expr = stream_skel(&r, sel->items[i].expr)))
      rc = err->code ? err->code : LM_ERR_NOMEM;
  }
  lm_over_call *calls =
      rc ? NULL
         : lm_arena_alloc(arena, sizeof *calls * (size_t)(r.n_calls + 1));
  if (!rc && !calls)
    rc = oom(&r);
  int time_col = -1;
  for (int k = 0; !rc && k < r.n_calls; k++)
    rc = stream_call(&r, &r.calls[k], in, &time_col, &calls[k]);
  lm_bexpr *where = NULL;
  if (!rc && sel->where)
    rc = lm_bind_scalar(sel->where, in, arena, &where, err);
  lm_schema *s = NULL;
  if (!rc && !(s = lm_schema_new(in->n_fields + r.n_calls)))
    rc = oom(&r);
  for (int c = 0; !rc && c < in->n_fields; c++)
    lm_schema_set_field(s, c, in->fields[c].name, in->fields[c].type,
                        in->fields[c].nullable);
  for (int k = 0; !rc && k < r.n_calls; k++) {
    char nm[32];
    snprintf(nm, sizeof nm, "__w%d", k);
    lm_schema_set_field(s, in->n_fields + k, nm, calls[k].out_type, true);
  }
  if (!rc &&
      !(*op = weight_col >= 0
                  ? lm_op_over_changelog_new(where, time_col, weight_col, calls,
                                             r.n_calls, lm_schema_retain(s))
                  : lm_op_over_new(where, time_col, calls, r.n_calls,
                                   lm_schema_retain(s))))
    rc = oom(&r);
  if (rc) {
    lm_schema_release(s);
    lm_arena_free(arena);
    free(arena);
    return rc;
  }
  if (weight_col >= 0)
    lm_op_over_changelog_own_arena(*op, arena);
  else
    lm_op_over_own_arena(*op, arena);
  *o = *sel;
  o->items = items;
  o->where = NULL;
  o->windows = NULL;
  o->n_windows = 0;
  *outer = o;
  *ext = s;
  return 0;
}
