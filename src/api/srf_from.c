/*
 * api/srf_from.c — set-returning functions in ad-hoc queries
 * (api/srf_from.h, docs/functions.md).
 *
 * A function call in FROM is evaluated into a temporary relation before
 * the plain SELECT runs (as api/setop.c does for derived tables): its
 * arguments are computed by a SELECT — without FROM, or, when they read
 * columns of the FROM items before it (PostgreSQL's implicit LATERAL), as
 * SELECT DISTINCT args FROM <those items> — and each tuple of argument
 * values is expanded by the exec/srf.c cursors into batches of
 * LM_SRF_BATCH_ROWS rows. A lateral call's rows keep the argument values
 * in hidden columns, and the join gets `hidden = arg` in its ON (NULL-safe
 * when a NULL value made rows: a ROWS FROM partner or a scalar call): the
 * join of the items before it with this relation is then exactly the
 * lateral nested loop (a tuple without rows joins nothing; LEFT JOIN
 * LATERAL pads it with NULLs).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/srf_from.h"
#include "columnar/lm_decimal.h"
#include "columnar/lm_interval.h"
#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"
#include "exec/lm_exec.h"
#include "exec/lm_regex_are.h"
#include "exec/lm_srf.h"
#include "exec/lm_strfn.h"   /* lm_pg_type_name */
#include "plan/array_bind.h" /* lm_bind_list_of */
#include "plan/bind_internal.h"
#include "plan/whole_row_bind.h"

/* Rows a statement may materialize from one function call in FROM. */
#define SRF_MAX_ROWS INT64_C(100000000)
#define MAX_ARGS 256

static int nomem(lm_error *err) {
  return lm_err(err, LM_ERR_NOMEM, "out of memory");
}

#define perr lm_engine_pos_errf /* an error at line:col with a SQLSTATE */

/* ------------------------------------------------------------ AST walks */

static bool is_srf_call(const lm_expr *e) {
  return e && e->kind == LM_EXPR_FUNC && !e->over && lm_srf_is_name(e->name);
}

/* The first set-returning call in e (not inside subqueries), or NULL. */
static const lm_expr *find_srf(const lm_expr *e, int depth) {
  if (!e || depth > 300 || e->kind == LM_EXPR_SUBQUERY)
    return NULL;
  if (is_srf_call(e))
    return e;
  for (int i = 0; i < e->n_args; i++) {
    const lm_expr *x = find_srf(e->args[i], depth + 1);
    if (x)
      return x;
  }
  return NULL;
}

/* Whether e reads a column (not inside subqueries). */
static bool reads_cols(const lm_expr *e, int depth) {
  if (!e || depth > 300 || e->kind == LM_EXPR_SUBQUERY)
    return false;
  if (e->kind == LM_EXPR_COLUMN)
    return true;
  for (int i = 0; i < e->n_args; i++)
    if (reads_cols(e->args[i], depth + 1))
      return true;
  return false;
}

/* Whether e calls an aggregate (`over`: or a window function). */
static bool has_agg(const lm_expr *e, bool over, int depth) {
  if (!e || depth > 300 || e->kind == LM_EXPR_SUBQUERY)
    return false;
  if (e->kind == LM_EXPR_FUNC &&
      (over ? e->over : !e->over && e->name && lm_bind_is_agg_name(e->name)))
    return true;
  for (int i = 0; i < e->n_args; i++)
    if (has_agg(e->args[i], over, depth + 1))
      return true;
  return false;
}

static const lm_expr *from_srf(const lm_from *f, int depth) {
  if (!f || depth > 1000)
    return NULL;
  if (f->kind == LM_FROM_JOIN) {
    const lm_expr *x = find_srf(f->on, 0);
    if (!x)
      x = from_srf(f->left, depth + 1);
    return x ? x : from_srf(f->right, depth + 1);
  }
  return NULL;
}

static bool from_has_func(const lm_from *f, int depth) {
  if (!f || depth > 1000)
    return false;
  if (f->kind == LM_FROM_JOIN)
    return from_has_func(f->left, depth + 1) ||
           from_has_func(f->right, depth + 1);
  return f->kind == LM_FROM_FUNCTION;
}

bool lm_srf_select_applies(const lm_select *sel) {
  if (sel->setop || sel->values)
    return false;
  if (from_has_func(sel->from_clause, 0) || find_srf(sel->where, 0) ||
      find_srf(sel->having, 0) || from_srf(sel->from_clause, 0))
    return true;
  for (int i = 0; i < sel->n_items; i++)
    if (find_srf(sel->items[i].expr, 0))
      return true;
  for (int i = 0; i < sel->n_group_by; i++)
    if (find_srf(sel->group_by[i], 0))
      return true;
  for (int i = 0; i < sel->n_order_by; i++)
    if (find_srf(sel->order_by[i].expr, 0))
      return true;
  return false;
}

int64_t lm_srf_limit_cap(const lm_select *sel) {
  const lm_from *f = sel->from_clause;
  if (!f || f->kind != LM_FROM_FUNCTION || sel->limit < 0 || sel->where ||
      sel->n_group_by || sel->having || sel->distinct || sel->n_order_by ||
      sel->n_windows || sel->setop || sel->values || sel->offset < 0)
    return -1;
  for (int i = 0; i < sel->n_items; i++) {
    const lm_expr *e = sel->items[i].expr;
    if (has_agg(e, false, 0) || has_agg(e, true, 0) || find_srf(e, 0))
      return -1;
  }
  if (sel->limit > INT64_MAX - sel->offset)
    return -1;
  return sel->offset + sel->limit;
}

int lm_srf_check_continuous(const lm_select *sel, lm_error *err) {
  const lm_from *stack[64];
  int n = 0;
  if (sel->from_clause)
    stack[n++] = sel->from_clause;
  while (n) {
    const lm_from *f = stack[--n];
    if (f->kind == LM_FROM_JOIN) {
      if (n + 2 <= 64) {
        stack[n++] = f->right;
        stack[n++] = f->left;
      }
    } else if (f->kind == LM_FROM_FUNCTION) {
      return perr(err, LM_ERR_BIND, f->line, f->column, "0A000",
                  "a function call in FROM (%s) of a subquery or WITH "
                  "query of a continuous query is not supported yet; call "
                  "it in the outer query (FROM s, %s(...) g)",
                  f->name, f->name);
    }
  }
  for (int i = 0; i < sel->n_items; i++) {
    const lm_expr *x = find_srf(sel->items[i].expr, 0);
    if (x)
      return perr(err, LM_ERR_BIND, x->line, x->column, "0A000",
                  "set-returning functions (%s) in a subquery or WITH "
                  "query of a continuous query are not supported yet; call "
                  "it in the outer query's select list",
                  x->name);
  }
  return 0;
}

/* ----------------------------------------------- select-list rewrite */

#define MAX_SRF 64

typedef struct srf_set {
  const lm_expr *calls[MAX_SRF];
  int n;
  const char *names[MAX_SRF]; /* hidden column names */
  const char *qual;
} srf_set;

static int refuse_in(const lm_expr *e, const char *where, lm_error *err) {
  const lm_expr *x = find_srf(e, 0);
  if (!x)
    return 0;
  return perr(err, LM_ERR_BIND, x->line, x->column, "0A000",
              "set-returning functions are not allowed in %s", where);
}

/* Collects the set-returning calls of e into s. */
static int collect(const lm_expr *e, srf_set *s, lm_error *err, int depth) {
  if (!e || depth > 300 || e->kind == LM_EXPR_SUBQUERY)
    return 0;
  if (is_srf_call(e)) {
    for (int i = 0; i < e->n_args; i++) {
      const lm_expr *x = find_srf(e->args[i], 0);
      if (x)
        return perr(err, LM_ERR_BIND, x->line, x->column, "0A000",
                    "a set-returning function in the arguments of another "
                    "is not supported");
    }
    if (s->n == MAX_SRF)
      return perr(err, LM_ERR_BIND, e->line, e->column, "54000",
                  "too many set-returning functions in the select list");
    s->calls[s->n++] = e;
    return 0;
  }
  if (e->kind == LM_EXPR_CASE || e->kind == LM_EXPR_FUNC) {
    bool cond =
        e->kind == LM_EXPR_CASE || (e->name && !strcmp(e->name, "coalesce"));
    for (int i = 0; cond && i < e->n_args; i++) {
      const lm_expr *x = find_srf(e->args[i], 0);
      if (x) /* PostgreSQL: 0A000 as well */
        return perr(err, LM_ERR_BIND, x->line, x->column, "0A000",
                    "set-returning functions are not allowed in %s",
                    e->kind == LM_EXPR_CASE ? "CASE" : "COALESCE");
    }
  }
  for (int i = 0; i < e->n_args; i++) {
    int rc = collect(e->args[i], s, err, depth + 1);
    if (rc)
      return rc;
  }
  return 0;
}

/* e with its set-returning calls replaced by s's hidden columns (nodes
 * copied along the way; the rest shared). NULL on OOM. */
static lm_expr *subst(lm_arena *a, lm_expr *e, const srf_set *s, int depth) {
  if (!e || depth > 300 || e->kind == LM_EXPR_SUBQUERY)
    return e;
  for (int i = 0; i < s->n; i++)
    if (s->calls[i] == e) {
      lm_expr *c = lm_arena_alloc(a, sizeof *c);
      if (!c)
        return NULL;
      c->kind = LM_EXPR_COLUMN;
      c->line = e->line;
      c->column = e->column;
      c->table = s->qual;
      c->name = s->names[i];
      return c;
    }
  if (!find_srf(e, 0))
    return e;
  lm_expr *c = lm_arena_alloc(a, sizeof *c);
  lm_expr **args = lm_arena_alloc(a, sizeof *args * (size_t)(e->n_args + 1));
  if (!c || !args)
    return NULL;
  *c = *e;
  c->args = args;
  for (int i = 0; i < e->n_args; i++)
    if (!(args[i] = subst(a, e->args[i], s, depth + 1)))
      return NULL;
  return c;
}

/* The first aggregate call in e (not in subqueries) whose arguments call
 * a set-returning function: that call, else NULL. */
static const lm_expr *srf_in_agg(const lm_expr *e, int depth) {
  if (!e || depth > 300 || e->kind == LM_EXPR_SUBQUERY)
    return NULL;
  if (e->kind == LM_EXPR_FUNC && !e->over && e->name &&
      lm_bind_is_agg_name(e->name))
    for (int i = 0; i < e->n_args; i++) {
      const lm_expr *x = find_srf(e->args[i], 0);
      if (x)
        return x;
    }
  for (int i = 0; i < e->n_args; i++) {
    const lm_expr *x = srf_in_agg(e->args[i], depth + 1);
    if (x)
      return x;
  }
  return NULL;
}

/* Splitting a query with aggregates and set-returning calls in its select
 * list (PostgreSQL's ProjectSet over the Agg): the inner query computes
 * every SRF-free part (hidden columns \x01lN), the outer one the calls. */
typedef struct lift {
  lm_arena *a;
  lm_select_item *items; /* the inner query's */
  int n, cap;
} lift;

static bool is_plain_lit(const lm_expr *e) {
  while (e->kind == LM_EXPR_UNARY && e->op == LM_OP_NEG && e->n_args == 1)
    e = e->args[0];
  return e->kind == LM_EXPR_LITERAL;
}

/* e with its SRF-free parts (other than literals) replaced by references
 * to new inner columns; NULL on OOM. */
static lm_expr *lift_expr(lift *l, lm_expr *e, int depth) {
  if (!e || depth > 300)
    return e;
  if (!find_srf(e, 0)) {
    if (is_plain_lit(e))
      return e;
    if (l->n == l->cap) {
      int nc = l->cap ? l->cap * 2 : 16;
      lm_select_item *x = lm_arena_alloc(l->a, sizeof *x * (size_t)nc);
      if (!x)
        return NULL;
      if (l->n)
        memcpy(x, l->items, sizeof *x * (size_t)l->n);
      l->items = x;
      l->cap = nc;
    }
    char nm[32];
    snprintf(nm, sizeof nm, "\x01l%d", l->n);
    lm_expr *c = lm_arena_alloc(l->a, sizeof *c);
    char *cn = lm_arena_strndup(l->a, nm, strlen(nm));
    if (!c || !cn)
      return NULL;
    l->items[l->n].expr = e;
    l->items[l->n].alias = cn;
    l->n++;
    c->kind = LM_EXPR_COLUMN;
    c->line = e->line;
    c->column = e->column;
    c->name = cn;
    return c;
  }
  lm_expr *c = lm_arena_alloc(l->a, sizeof *c);
  lm_expr **args = lm_arena_alloc(l->a, sizeof *args * (size_t)(e->n_args + 1));
  if (!c || !args)
    return NULL;
  *c = *e;
  c->args = args;
  for (int i = 0; i < e->n_args; i++)
    if (!(args[i] = lift_expr(l, e->args[i], depth + 1)))
      return NULL;
  return c;
}

/* Whether ORDER BY item e names an output column of sel (an ordinal, or
 * a bare name some item is called). */
static bool names_output(const lm_select *sel, const lm_expr *e) {
  if (e->kind == LM_EXPR_LITERAL && e->lit == LM_LIT_INT)
    return true;
  if (e->kind != LM_EXPR_COLUMN || e->table)
    return false;
  for (int i = 0; i < sel->n_items; i++) {
    const char *nm = sel->items[i].alias
                         ? sel->items[i].alias
                         : lm_expr_default_name(sel->items[i].expr);
    if (nm && !strcmp(nm, e->name))
      return true;
  }
  return false;
}

static int agg_split(lm_arena *a, const lm_select *sel, const lm_select **out,
                     lm_error *err) {
  for (int i = 0; i < sel->n_items; i++)
    if (sel->items[i].expr->kind == LM_EXPR_STAR)
      return perr(err, LM_ERR_BIND, sel->items[i].expr->line,
                  sel->items[i].expr->column, "0A000",
                  "SELECT * beside set-returning functions and aggregates "
                  "is not supported");
  if (sel->n_distinct_on)
    return perr(err, LM_ERR_BIND, sel->line, sel->column, "0A000",
                "DISTINCT ON beside set-returning functions and aggregates "
                "is not supported");
  lift l = {a, NULL, 0, 0};
  lm_select *in = lm_arena_alloc(a, sizeof *in);
  lm_select *o = lm_arena_alloc(a, sizeof *o);
  lm_from *sub = lm_arena_alloc(a, sizeof *sub);
  lm_select_item *items =
      lm_arena_alloc(a, sizeof *items * (size_t)(sel->n_items + 1));
  lm_order_item *ob =
      lm_arena_alloc(a, sizeof *ob * (size_t)(sel->n_order_by + 1));
  if (!in || !o || !sub || !items || !ob)
    return nomem(err);
  for (int i = 0; i < sel->n_items; i++) {
    items[i] = sel->items[i];
    if (!items[i].alias)
      items[i].alias = lm_expr_default_name(sel->items[i].expr);
    if (!(items[i].expr = lift_expr(&l, sel->items[i].expr, 0)))
      return nomem(err);
  }
  for (int i = 0; i < sel->n_order_by; i++) {
    ob[i] = sel->order_by[i];
    if (!names_output(sel, ob[i].expr) &&
        !(ob[i].expr = lift_expr(&l, ob[i].expr, 0)))
      return nomem(err);
  }
  if (!l.n) { /* the inner query needs a column */
    lm_expr *one = lm_arena_alloc(a, sizeof *one);
    if (!one)
      return nomem(err);
    one->kind = LM_EXPR_LITERAL;
    one->lit = LM_LIT_INT;
    one->ival = 1;
    one->text = "1";
    one->line = sel->line;
    one->column = sel->column;
    l.items = lm_arena_alloc(a, sizeof *l.items);
    if (!l.items)
      return nomem(err);
    l.cap = 1;
    l.items[0].expr = one;
    l.items[0].alias = "\x01l0";
    l.n = 1;
  }
  *in = *sel;
  in->items = l.items;
  in->n_items = l.n;
  in->distinct = false;
  in->order_by = NULL;
  in->n_order_by = 0;
  in->limit = -1;
  in->offset = 0;
  in->limit_with_ties = false;
  in->ctes = NULL;
  in->n_ctes = 0;
  memset(sub, 0, sizeof *sub);
  sub->kind = LM_FROM_SUBQUERY;
  sub->line = sel->line;
  sub->column = sel->column;
  sub->subquery = in;
  sub->alias = "\x01agg";
  *o = *sel;
  o->items = items;
  o->order_by = ob;
  o->where = NULL;
  o->group_by = NULL;
  o->n_group_by = 0;
  o->group_elems = NULL;
  o->n_group_elems = 0;
  o->group_distinct = false;
  o->having = NULL;
  o->from_clause = sub;
  o->from_subquery = in;
  o->from = in->from;
  o->from_alias = sub->alias;
  *out = o;
  return 0;
}

static int rewrite_select(lm_arena *a, const lm_select *sel,
                          const lm_select **out, lm_error *err) {
  *out = sel;
  for (int i = 0; i < sel->n_items; i++) {
    const lm_expr *x = srf_in_agg(sel->items[i].expr, 0);
    if (!x)
      x = srf_in_agg(sel->having, 0);
    if (x) /* PostgreSQL's check_agg_arguments */
      return perr(err, LM_ERR_BIND, x->line, x->column, "0A000",
                  "aggregate function calls cannot contain set-returning "
                  "function calls");
  }
  int rc = refuse_in(sel->where, "WHERE", err);
  if (!rc)
    rc = refuse_in(sel->having, "HAVING", err);
  for (int i = 0; !rc && i < sel->n_group_by; i++)
    rc = refuse_in(sel->group_by[i], "GROUP BY", err);
  for (int i = 0; !rc && i < sel->n_order_by; i++)
    rc = refuse_in(sel->order_by[i].expr, "ORDER BY (Laminar)", err);
  for (int i = 0; !rc && i < sel->n_distinct_on; i++)
    rc = refuse_in(sel->distinct_on[i], "DISTINCT ON (Laminar)", err);
  if (!rc) {
    const lm_expr *x = from_srf(sel->from_clause, 0);
    if (x)
      rc = perr(err, LM_ERR_BIND, x->line, x->column, "0A000",
                "set-returning functions are not allowed in JOIN "
                "conditions");
  }
  if (rc)
    return rc;
  srf_set s;
  memset(&s, 0, sizeof s);
  for (int i = 0; i < sel->n_items && !rc; i++)
    rc = collect(sel->items[i].expr, &s, err, 0);
  if (rc || !s.n)
    return rc;
  const lm_expr *first = s.calls[0];
  bool agg = sel->n_group_by || sel->having || sel->group_elems;
  bool over = false;
  for (int i = 0; i < sel->n_items; i++) {
    agg = agg || has_agg(sel->items[i].expr, false, 0);
    over = over || has_agg(sel->items[i].expr, true, 0);
  }
  if (agg && !over) { /* ProjectSet over the aggregate */
    const lm_select *o = NULL;
    if ((rc = agg_split(a, sel, &o, err)))
      return rc;
    return rewrite_select(a, o, out, err);
  }
  if (agg || over)
    return perr(err, LM_ERR_BIND, first->line, first->column, "0A000",
                "set-returning functions in the select list of a query "
                "with %s are not supported yet; compute the %s in a "
                "subquery in FROM and call %s over its rows",
                over ? "window functions" : "aggregates or GROUP BY",
                over ? "window functions" : "aggregates", first->name);
  s.qual = "\x01srf";
  lm_from *fn = lm_arena_alloc(a, sizeof *fn);
  lm_expr **calls = lm_arena_alloc(a, sizeof *calls * (size_t)s.n);
  const char **cols = lm_arena_alloc(a, sizeof *cols * (size_t)s.n);
  lm_select *c = lm_arena_alloc(a, sizeof *c);
  lm_select_item *items =
      lm_arena_alloc(a, sizeof *items * (size_t)sel->n_items);
  if (!fn || !calls || !cols || !c || !items)
    return nomem(err);
  for (int i = 0; i < s.n; i++) {
    char nm[32];
    snprintf(nm, sizeof nm, "\x01srf_c%d", i + 1);
    if (!(cols[i] = lm_arena_strndup(a, nm, strlen(nm))))
      return nomem(err);
    s.names[i] = cols[i];
    calls[i] = (lm_expr *)s.calls[i];
  }
  fn->kind = LM_FROM_FUNCTION;
  fn->line = first->line;
  fn->column = first->column;
  fn->name = first->name;
  fn->alias = s.qual;
  fn->funcs = calls;
  fn->n_funcs = s.n;
  fn->col_aliases = cols;
  fn->n_col_aliases = s.n;
  fn->lateral = true;
  *c = *sel;
  for (int i = 0; i < sel->n_items; i++) {
    items[i] = sel->items[i];
    if (!find_srf(items[i].expr, 0))
      continue;
    if (!items[i].alias)
      items[i].alias = lm_expr_default_name(items[i].expr);
    if (!(items[i].expr = subst(a, items[i].expr, &s, 0)))
      return nomem(err);
  }
  c->items = items;
  if (sel->from_clause) {
    lm_from *j = lm_arena_alloc(a, sizeof *j);
    if (!j)
      return nomem(err);
    j->kind = LM_FROM_JOIN;
    j->line = first->line;
    j->column = first->column;
    j->join = LM_SQL_JOIN_CROSS;
    j->left = sel->from_clause;
    j->right = fn;
    c->from_clause = j;
  } else {
    c->from_clause = fn;
  }
  c->from = NULL;
  c->from_subquery = NULL;
  c->from_alias = NULL;
  c->from_line = fn->line;
  c->from_column = fn->column;
  *out = c;
  return 0;
}

int lm_srf_rewrite_select(lm_arena *a, const lm_select *sel,
                          const lm_select **out, lm_error *err) {
  int rc = rewrite_select(a, sel, out, err);
  if (!rc && lm_srf_guard(a, *out, out)) /* srf_guard.c */
    rc = nomem(err);
  return rc;
}

/* ---------------------------------------------------- argument types */

static bool is_unknown_lit(const lm_expr *e) {
  return e->kind == LM_EXPR_LITERAL &&
         (e->lit == LM_LIT_STRING || e->lit == LM_LIT_NULL);
}

static const lm_expr *strip_neg(const lm_expr *e) {
  while (e->kind == LM_EXPR_UNARY && e->op == LM_OP_NEG && e->n_args == 1)
    e = e->args[0];
  return e;
}

/* A decimal literal (1.5, -0.25, 1e3: PostgreSQL's numeric constants):
 * its scale, else -1. */
static int dec_lit_scale(const lm_expr *e) {
  e = strip_neg(e);
  if (e->kind != LM_EXPR_LITERAL || e->lit != LM_LIT_DECIMAL || !e->text)
    return -1;
  const char *t = e->text, *dot = strchr(t, '.'), *ex = strpbrk(t, "eE");
  int frac = 0;
  if (dot)
    for (const char *q = dot + 1; *q >= '0' && *q <= '9'; q++)
      frac++;
  if (ex)
    frac -= atoi(ex + 1);
  return frac < 0 ? 0 : frac > 30 ? 30 : frac;
}

/* PostgreSQL's name of t, "unknown" for an untyped string literal */
static const char *pg_type_name(lm_type t, bool unknown) {
  return unknown ? "unknown" : lm_pg_type_name(t);
}

typedef lm_srf_call_plan call_plan;

static int no_such_fn(const lm_expr *call, const lm_schema *sc, int first,
                      lm_error *err) {
  char sig[400];
  size_t o = 0;
  sig[0] = 0;
  for (int i = 0; i < call->n_args && o < sizeof sig - 40; i++)
    o +=
        (size_t)snprintf(sig + o, sizeof sig - o, "%s%s", i ? ", " : "",
                         pg_type_name(sc->fields[first + i].type,
                                      is_unknown_lit(call->args[i]) &&
                                          call->args[i]->lit == LM_LIT_STRING));
  perr(err, LM_ERR_BIND, call->line, call->column, "42883",
       "function %s(%s) does not exist", call->name, sig);
  return lm_err_hint(err, "No function matches the given name and argument "
                          "types. You might need to add explicit type "
                          "casts."); /* PostgreSQL's HINT */
}

/* json_each(json) and the other JSON functions (exec/srf_json.c): one
 * argument of type json (jsonb for the jsonb_ ones), an unknown literal
 * or NULL read as that type; json_each / json_each_text only in FROM
 * (the parser splits them into their two columns there). */
static int json_plan(const lm_expr *call, const lm_schema *sc, int first,
                     lm_srf_call_plan *cp, lm_error *err) {
  char nm[40];
  lm_srf_json_name(cp->kind, nm, sizeof nm);
  int op = lm_srf_json_op(cp->kind);
  if (op == LM_SRFJ_EACH || op == LM_SRFJ_EACHT)
    return perr(err, LM_ERR_BIND, call->line, call->column, "0A000",
                "%s in the select list is not supported (it returns a "
                "record): call it in FROM, as SELECT * FROM %s(...)",
                nm, nm);
  bool b = (cp->kind & LM_SRF_JSONB) != 0;
  lm_type want = lm_type_json(b);
  if (call->n_args == 1) {
    lm_type t = sc->fields[first].type;
    if (t.id == LM_TYPE_NULL || (is_unknown_lit(call->args[0]) &&
                                 call->args[0]->lit == LM_LIT_STRING)) {
      cp->cast[0] = want;
    } else if (!lm_type_eq(t, want)) {
      lm_expr c = *call;
      c.name = nm;
      return no_such_fn(&c, sc, first, err);
    }
    cp->out = lm_srf_json_out(cp->kind);
    return 0;
  }
  lm_expr c = *call;
  c.name = nm;
  return no_such_fn(&c, sc, first, err);
}

int lm_srf_plan_call(const lm_expr *call, const lm_schema *sc, int first,
                     lm_srf_call_plan *cp, lm_error *err) {
  memset(cp, 0, sizeof *cp);
  cp->first = first;
  cp->n = call->n_args;
  cp->srf = true;
  cp->kind = lm_srf_kind_of(call->name);
  int n = call->n_args;
  if (cp->kind == LM_SRF_UNNEST) { /* unnest(array): the item type */
    lm_type t = n == 1 ? sc->fields[first].type : lm_type_make(LM_TYPE_NULL);
    if (n == 1 && t.id == LM_TYPE_NULL)
      return perr(err, LM_ERR_BIND, call->line, call->column, "42804",
                  "could not determine polymorphic type because input has "
                  "type unknown");
    if (t.id != LM_TYPE_LIST)
      return no_such_fn(call, sc, first, err);
    cp->out = t.node->children[0].type;
    return 0;
  }
  if (lm_srf_is_json(cp->kind)) /* srf_json.c */
    return json_plan(call, sc, first, cp, err);
  if (n < 2 || n > 3)
    return no_such_fn(call, sc, first, err);
  if (cp->kind == LM_SRF_STRING_TO_TABLE || cp->kind == LM_SRF_REGEXP_SPLIT ||
      cp->kind == LM_SRF_REGEXP_MATCHES) {
    /* text arguments; unknown literals and NULLs taken as text */
    lm_type txt = lm_type_make(LM_TYPE_UTF8);
    cp->out = txt;
    if (cp->kind == LM_SRF_REGEXP_MATCHES && !lm_bind_list_of(txt, &cp->out))
      return nomem(err); /* text[] */
    const lm_expr *re = call->args[1], *fl = n > 2 ? call->args[2] : NULL;
    char msg[400];
    for (const char *q = cp->kind != LM_SRF_STRING_TO_TABLE && fl &&
                                 fl->kind == LM_EXPR_LITERAL &&
                                 fl->lit == LM_LIT_STRING && fl->text
                             ? fl->text
                             : "";
         *q; q++) { /* constant flags, checked as the cursor does */
      uint32_t o = 0;
      bool lit = false;
      if (*q == 'g' && cp->kind == LM_SRF_REGEXP_MATCHES)
        continue;
      if (*q == 'g')
        return perr(err, LM_ERR_BIND, fl->line, fl->column, "22023",
                    "regexp_split_to_table() does not support the "
                    "\"global\" option");
      if (*q == 'b')
        return perr(err, LM_ERR_BIND, fl->line, fl->column, "0A000",
                    "basic regular expressions (option \"b\") are not "
                    "supported");
      if (!lm_regex_option(*q, &o, &lit))
        return perr(err, LM_ERR_BIND, fl->line, fl->column, "22023",
                    "invalid regular expression option: \"%c\"", *q);
    }
    if (cp->kind != LM_SRF_STRING_TO_TABLE && re->kind == LM_EXPR_LITERAL &&
        re->lit == LM_LIT_STRING && re->text &&
        (!fl || (fl->kind == LM_EXPR_LITERAL && fl->lit == LM_LIT_STRING &&
                 fl->text)) &&
        lm_regex_check_pg(re->text, strlen(re->text), fl ? fl->text : NULL,
                          fl ? strlen(fl->text) : 0, msg, sizeof msg))
      return perr(err, LM_ERR_BIND, re->line, re->column, "2201B", "%s",
                  msg); /* a constant pattern, checked as the binder does */
    for (int i = 0; i < n; i++) {
      lm_type t = sc->fields[first + i].type;
      if (t.id == LM_TYPE_NULL)
        cp->cast[i] = txt;
      else if (t.id != LM_TYPE_UTF8 && t.id != LM_TYPE_LARGE_UTF8)
        return no_such_fn(call, sc, first, err);
    }
    return 0;
  }
  lm_type t[3];
  bool unk[3], strlit[3];
  int dscale[3];
  for (int i = 0; i < n; i++) {
    t[i] = sc->fields[first + i].type;
    unk[i] = is_unknown_lit(call->args[i]) || t[i].id == LM_TYPE_NULL;
    strlit[i] =
        is_unknown_lit(call->args[i]) && call->args[i]->lit == LM_LIT_STRING;
    dscale[i] = dec_lit_scale(call->args[i]);
  }
  bool tsish[2];
  for (int i = 0; i < 2; i++)
    tsish[i] =
        unk[i] || t[i].id == LM_TYPE_TIMESTAMP || t[i].id == LM_TYPE_DATE32;
  bool ts_family =
      n == 3 && tsish[0] && tsish[1] &&
      (t[2].id == LM_TYPE_INTERVAL || t[2].id == LM_TYPE_INTERVAL_MDN ||
       (strlit[2] && (!unk[0] || !unk[1] || strlit[0] || strlit[1])));
  if (ts_family) {
    bool plain = false, tz = false;
    for (int i = 0; i < 2; i++) {
      if (unk[i] || t[i].id != LM_TYPE_TIMESTAMP)
        continue;
      if (lm_type_is_tstz(t[i]))
        tz = true;
      else
        plain = true;
    }
    cp->out =
        plain && !tz ? lm_type_make(LM_TYPE_TIMESTAMP) : lm_type_timestamptz();
    for (int i = 0; i < 2; i++)
      if (unk[i] || t[i].id != cp->out.id ||
          lm_type_is_tstz(t[i]) != lm_type_is_tstz(cp->out))
        cp->cast[i] = cp->out;
    if (t[2].id != LM_TYPE_INTERVAL && t[2].id != LM_TYPE_INTERVAL_MDN)
      cp->cast[2] = lm_type_make(
          strlit[2] && call->args[2]->text &&
                  lm_iv_text_has_months(call->args[2]->text,
                                        strlen(call->args[2]->text), NULL, 0)
              ? LM_TYPE_INTERVAL_MDN /* '1 month': lm_interval.h */
              : LM_TYPE_INTERVAL);
    /* a TIMESTAMPTZ series moves by whole days in the session zone */
    const lm_expr *st = call->args[2];
    const lm_tz *z = lm_tz_session();
    if (lm_type_is_tstz(cp->out) && z && z != lm_tz_utc() &&
        st->kind == LM_EXPR_LITERAL && st->text &&
        (st->lit == LM_LIT_INTERVAL || st->lit == LM_LIT_STRING)) {
      int64_t us, days;
      const char *u = st->lit == LM_LIT_INTERVAL ? st->name : NULL;
      if (!lm_parse_interval_days(st->text, strlen(st->text), u,
                                  u ? strlen(u) : 0, &us, &days))
        cp->step_days = days;
    }
    return 0;
  }
  bool numeric = false, ok = true;
  int scale[3] = {0, 0, 0};
  bool all32 = true;
  for (int i = 0; i < n; i++) {
    if (unk[i])
      continue;
    if (t[i].id == LM_TYPE_DECIMAL128) {
      numeric = true;
      scale[i] = t[i].scale;
    } else if (dscale[i] >= 0) {
      numeric = true;
      scale[i] = dscale[i];
    } else if (lm_type_is_integer(t[i])) {
      if (t[i].id == LM_TYPE_INT64)
        all32 = false;
    } else {
      ok = false;
    }
  }
  if (!ok)
    return no_such_fn(call, sc, first, err);
  if (numeric) {
    int s =
        scale[0] > (n == 3 ? scale[2] : 0) ? scale[0] : (n == 3 ? scale[2] : 0);
    cp->out = lm_type_decimal128(38, s);
    for (int i = 0; i < n; i++)
      if (t[i].id != LM_TYPE_DECIMAL128)
        cp->cast[i] = lm_type_decimal128(38, unk[i] ? s : scale[i]);
    return 0;
  }
  cp->out = lm_type_make(all32 ? LM_TYPE_INT32 : LM_TYPE_INT64);
  for (int i = 0; i < n; i++)
    if (t[i].id != cp->out.id)
      cp->cast[i] = cp->out;
  return 0;
}

/* Column c of b cast to type `to` (a new reference in *out). */
static int cast_col(const lm_batch *b, int c, lm_type to, lm_array **out,
                    lm_error *err) {
  lm_bexpr col, cast;
  lm_bexpr *arg = &col;
  memset(&col, 0, sizeof col);
  memset(&cast, 0, sizeof cast);
  col.kind = LM_BX_COLUMN;
  col.type = b->columns[c]->type;
  col.col = c;
  cast.kind = LM_BX_CAST;
  cast.type = to;
  cast.args = &arg;
  cast.n_args = 1;
  cast.tz = lm_tz_session();
  return lm_eval(&cast, b, out, err);
}

/* ------------------------------------------------------------ FROM item */

typedef struct batch_list {
  lm_batch **b;
  int n, cap;
} batch_list;

static int list_add(batch_list *l, lm_batch *b, lm_error *err) {
  if (l->n == l->cap) {
    int nc = l->cap ? l->cap * 2 : 8;
    lm_batch **x = realloc(l->b, sizeof *x * (size_t)nc);
    if (!x) {
      lm_batch_release(b);
      return nomem(err);
    }
    l->b = x;
    l->cap = nc;
  }
  l->b[l->n++] = b;
  return 0;
}

/* Expansion state of one FROM item. */
typedef struct expand {
  const lm_from *f;
  int nf;               /* calls */
  const call_plan *cps; /* per call */
  lm_array **args;      /* converted argument columns (all calls') */
  const lm_batch *raw;  /* the arguments as computed (hidden columns) */
  const int *params;    /* raw columns kept as hidden columns */
  int n_params;
  bool ord;
  int64_t cap; /* rows left to make (-1 = no cap) */
  lm_batch_builder bb;
  batch_list out;
  int64_t made;
  /* per hidden column: a row was made for a NULL value (a ROWS FROM
   * partner or a scalar call still has rows): joined NULL-safely */
  bool null_seen[MAX_ARGS];
  lm_srf_rx rx[MAX_SRF]; /* regexp_split_to_table's patterns */
} expand;

static int flush(expand *x, lm_error *err) {
  if (!lm_batch_builder_rows(&x->bb))
    return 0;
  lm_batch *b = NULL;
  int rc = lm_batch_builder_finish(&x->bb, &b, err);
  return rc ? rc : list_add(&x->out, b, err);
}

/* The rows of argument tuple r. */
static int expand_row(expand *x, int64_t r, lm_error *err) {
  lm_srf_series cur[MAX_SRF];
  lm_srf_split spl[MAX_SRF];
  bool scalar_left[MAX_SRF];
  int rc = 0;
  for (int j = 0; j < x->nf; j++) {
    const call_plan *cp = &x->cps[j];
    scalar_left[j] = !cp->srf;
    if (!cp->srf)
      continue;
    lm_value v[3];
    for (int i = 0; i < cp->n; i++)
      lm_array_get_value(x->args[cp->first + i], r, &v[i]);
    if (cp->kind != LM_SRF_SERIES)
      rc = lm_srf_split_init(&spl[j], cp->kind, &v[0], &v[1],
                             cp->n == 3 ? &v[2] : NULL, &x->rx[j], err);
    else
      rc = lm_srf_series_init(&cur[j], cp->out, &v[0], &v[1],
                              cp->n == 3 ? &v[2] : NULL, cp->step_days,
                              cp->step_days ? lm_tz_session() : NULL, err);
    if (rc) {
      const lm_expr *call = x->f->funcs[j];
      if (!err->line) { /* at the call */
        char m[sizeof err->msg], st[sizeof err->sqlstate];
        snprintf(m, sizeof m, "%s", err->msg);
        memcpy(st, err->sqlstate, sizeof st);
        lm_engine_pos_err(err, rc, call->line, call->column, m);
        if (st[0])
          lm_err_state(err, st);
      }
      return rc;
    }
  }
  int64_t ord = 0;
  for (;;) {
    int64_t room = LM_SRF_BATCH_ROWS - lm_batch_builder_rows(&x->bb);
    if (x->cap >= 0 && room > x->cap - x->made)
      room = x->cap - x->made;
    if (room <= 0) {
      if (x->cap >= 0 && x->made >= x->cap)
        return 0;
      if ((rc = flush(x, err)))
        return rc;
      continue;
    }
    int64_t got[MAX_SRF], most = 0;
    for (int j = 0; j < x->nf; j++) {
      lm_builder *b = &x->bb.cols[j];
      if (x->cps[j].srf && x->cps[j].kind != LM_SRF_SERIES) {
        got[j] = lm_srf_split_fill(&spl[j], b, room);
      } else if (x->cps[j].srf) {
        got[j] = lm_srf_series_fill(&cur[j], b, room);
      } else if (scalar_left[j]) {
        lm_value v;
        lm_array_get_value(x->args[x->cps[j].first], r, &v);
        lm_builder_append_value(b, &v);
        scalar_left[j] = false;
        got[j] = 1;
      } else {
        got[j] = 0;
      }
      most = got[j] > most ? got[j] : most;
    }
    if (!most)
      return 0;
    for (int j = 0; j < x->nf; j++)
      for (int64_t k = got[j]; k < most; k++)
        lm_builder_append_null(&x->bb.cols[j]);
    int c = x->nf;
    if (x->ord) {
      for (int64_t k = 0; k < most; k++)
        lm_builder_append_int(&x->bb.cols[c], ++ord);
      c++;
    }
    for (int p = 0; p < x->n_params; p++, c++) {
      const lm_array *a = x->raw->columns[x->params[p]];
      for (int64_t k = 0; k < most; k++)
        lm_builder_append_from(&x->bb.cols[c], a, r);
    }
    for (int p = 0; p < x->n_params; p++)
      if (lm_array_is_null(x->raw->columns[x->params[p]], r))
        x->null_seen[p] = true;
    x->made += most;
    if (x->made > SRF_MAX_ROWS)
      return perr(err, LM_ERR_LIMIT, x->f->line, x->f->column, "54000",
                  "%s in FROM makes more than %lld rows, more than Laminar "
                  "materializes for one statement; put a LIMIT directly "
                  "over it (the rows are then made lazily) or narrow the "
                  "range",
                  x->f->name, (long long)SRF_MAX_ROWS);
  }
}

/* An AST node at f's position with up to two operands (NULL operands make
 * a NULL result: OOM). */
static lm_expr *ast_node(lm_arena *a, lm_expr_kind kind, lm_op op, lm_expr *l,
                         lm_expr *r, const lm_from *f) {
  return lm_sql_op_node(a, kind, op, l, r, f->line, f->column);
}

/* `SELECT e FROM f(...) e` where f's one column is not named e (value):
 * each batch of out gets a hidden copy of column 0 named for the
 * whole-row reference (plan/whole_row_bind.h). */
static int add_whole_row(batch_list *out, const char *alias, lm_error *err) {
  char nm[300];
  lm_whole_row_name(alias, nm, sizeof nm);
  for (int i = 0; i < out->n; i++) {
    lm_batch *b = out->b[i];
    const lm_schema *s = b->schema;
    int n = b->num_columns;
    lm_schema *ns = lm_schema_new(n + 1);
    lm_array **cols = malloc(sizeof *cols * (size_t)(n + 1));
    int rc = ns && cols ? 0 : -1;
    for (int k = 0; !rc && k < n; k++)
      rc = lm_schema_set_field(ns, k, s->fields[k].name, s->fields[k].type,
                               s->fields[k].nullable);
    if (!rc)
      rc = lm_schema_set_field(ns, n, nm, s->fields[0].type, true);
    if (rc) {
      lm_schema_release(ns);
      free(cols);
      return nomem(err);
    }
    for (int k = 0; k < n; k++)
      cols[k] = lm_array_retain(b->columns[k]);
    cols[n] = lm_array_retain(b->columns[0]);
    lm_batch *nb = lm_batch_new(ns, b->num_rows, cols);
    free(cols);
    if (!nb)
      return nomem(err);
    lm_batch_release(b);
    out->b[i] = nb;
  }
  return 0;
}

int lm_srf_from_eval(laminar_db *db, lm_arena *a, const lm_from *f,
                     const lm_from *left, int64_t cap, const char *name,
                     lm_expr **on, lm_error *err) {
  *on = NULL;
  int nf = f->n_funcs;
  if (nf < 1 || nf > MAX_SRF)
    return perr(err, LM_ERR_BIND, f->line, f->column, "54000",
                "too many functions in ROWS FROM");
  /* the arguments as select items: a set-returning call's arguments, a
   * scalar call itself */
  lm_select_item items[MAX_ARGS];
  int n_items = 0;
  bool lateral = false;
  call_plan cps[MAX_SRF];
  for (int j = 0; j < nf; j++) {
    lm_expr *call = f->funcs[j];
    bool srf = is_srf_call(call);
    int n = srf ? call->n_args : 1;
    if (n_items + n > MAX_ARGS)
      return perr(err, LM_ERR_BIND, call->line, call->column, "54000",
                  "too many function arguments in FROM");
    for (int i = 0; i < call->n_args; i++) {
      const lm_expr *x = find_srf(call->args[i], 0);
      if (x)
        return perr(err, LM_ERR_BIND, x->line, x->column, "0A000",
                    "set-returning functions must appear at top level of "
                    "FROM");
    }
    cps[j].first = n_items;
    cps[j].n = n;
    cps[j].srf = srf;
    for (int i = 0; i < n; i++) {
      items[n_items].expr = srf ? call->args[i] : call;
      items[n_items].alias = NULL;
      lateral = lateral || reads_cols(items[n_items].expr, 0);
      n_items++;
    }
  }
  if (!left)
    lateral = false;
  lm_select s;
  memset(&s, 0, sizeof s);
  s.line = f->line;
  s.column = f->column;
  s.items = items;
  s.n_items = n_items;
  s.limit = -1;
  s.adhoc_rewritten = true;
  if (lateral) {
    s.distinct = true;
    lm_sql_select_set_from(&s, left);
  }
  laminar_result *res = NULL;
  lm_batch *raw = NULL;
  int rc = lm_engine_select(db, &s, &res, err);
  if (!rc)
    rc = lm_batch_concat(res->schema, res->batches, res->n_batches, &raw, err);
  laminar_result_free(res);
  if (rc)
    return rc;
  /* types, then the converted arguments */
  lm_array *args[MAX_ARGS];
  int n_conv = 0;
  for (int j = 0; j < nf && !rc; j++) {
    if (!cps[j].srf) {
      cps[j].out = raw->schema->fields[cps[j].first].type;
      continue;
    }
    int first = cps[j].first;
    rc = lm_srf_plan_call(f->funcs[j], raw->schema, first, &cps[j], err);
  }
  for (int j = 0; j < nf && !rc; j++)
    for (int i = 0; i < cps[j].n && !rc; i++) {
      int c = cps[j].first + i;
      lm_type to = cps[j].srf && i < 3 ? cps[j].cast[i] : (lm_type){0};
      if (cps[j].srf && i < 3 && to.id != LM_TYPE_NULL)
        rc = cast_col(raw, c, to, &args[c], err);
      else
        args[c] = lm_array_retain(raw->columns[c]);
      if (!rc)
        n_conv = c + 1;
    }
  /* the hidden columns: the arguments that read columns */
  int params[MAX_ARGS], n_params = 0;
  if (lateral)
    for (int i = 0; i < n_items; i++)
      if (reads_cols(items[i].expr, 0))
        params[n_params++] = i;
  /* the output schema: as PostgreSQL names the columns */
  int n_out = nf + (f->ordinality ? 1 : 0);
  const char *rel = f->alias ? f->alias : f->name;
  if (!rc && f->n_col_aliases > n_out)
    rc = perr(err, LM_ERR_BIND, f->line, f->column, "42P10",
              "table \"%s\" has %d columns available but %d columns "
              "specified",
              rel, n_out, f->n_col_aliases);
  lm_schema *sc = rc ? NULL : lm_schema_new(n_out + n_params);
  if (!rc && !sc)
    rc = nomem(err);
  char hid[MAX_ARGS][40];
  for (int j = 0; !rc && j < nf; j++) {
    const char *nm = j < f->n_col_aliases  ? f->col_aliases[j]
                     : nf == 1 && f->alias ? f->alias
                                           : f->funcs[j]->name;
    rc = lm_schema_set_field(sc, j, nm, cps[j].out, true);
  }
  if (!rc && f->ordinality)
    rc = lm_schema_set_field(
        sc, nf, nf < f->n_col_aliases ? f->col_aliases[nf] : "ordinality",
        lm_type_make(LM_TYPE_INT64), false);
  for (int p = 0; !rc && p < n_params; p++) {
    snprintf(hid[p], sizeof hid[p], "%csrf_p%d_%d", LM_SRF_HIDDEN, db->n_temps,
             p + 1);
    rc = lm_schema_set_field(sc, n_out + p, hid[p],
                             raw->schema->fields[params[p]].type, true);
  }
  expand x;
  memset(&x, 0, sizeof x);
  x.f = f;
  x.nf = nf;
  x.cps = cps;
  x.args = args;
  x.raw = raw;
  x.params = params;
  x.n_params = n_params;
  x.ord = f->ordinality;
  x.cap = cap;
  bool bb_ok = false;
  if (!rc)
    bb_ok = !(rc = lm_batch_builder_init(&x.bb, sc, LM_SRF_BATCH_ROWS));
  for (int64_t r = 0; !rc && r < raw->num_rows; r++) {
    if (x.cap >= 0 && x.made >= x.cap)
      break;
    rc = expand_row(&x, r, err);
  }
  if (!rc)
    rc = flush(&x, err);
  if (!rc && !x.out.n) { /* no rows: one empty batch */
    lm_batch *e = NULL;
    rc = lm_batch_builder_finish(&x.bb, &e, err);
    if (!rc)
      rc = list_add(&x.out, e, err);
  }
  if (bb_ok)
    lm_batch_builder_free(&x.bb);
  if (!rc &&
      lm_whole_row_needed(f->alias, nf, f->ordinality, sc->fields[0].name))
    rc = add_whole_row(&x.out, f->alias, err);
  for (int j = 0; j < nf; j++)
    lm_srf_rx_free(&x.rx[j]);
  for (int i = 0; i < n_conv; i++)
    lm_array_release(args[i]);
  lm_batch_release(raw);
  lm_schema_release(sc);
  /* the temporary relation */
  if (!rc) {
    rc = lm_engine_temp_push(db, name, x.out.b[0], false, err);
    x.out.b[0] = NULL;
    lm_node *n = rc ? NULL : db->temps[db->n_temps - 1];
    if (n && x.out.n > 1) {
      lm_batch **st = realloc(n->store, sizeof *st * (size_t)x.out.n);
      if (!st) {
        rc = nomem(err);
      } else {
        n->store = st;
        for (int i = 1; i < x.out.n; i++) {
          st[n->n_store++] = x.out.b[i];
          x.out.b[i] = NULL;
        }
        n->cap_store = n->n_store;
      }
    }
  }
  for (int i = 0; i < x.out.n; i++)
    lm_batch_release(x.out.b[i]);
  free(x.out.b);
  if (rc || !n_params)
    return rc;
  /* ON: hidden = argument, for each argument that reads columns (NULL-
   * safe, (h = arg OR h IS NULL AND arg IS NULL), when a NULL made rows) */
  lm_expr *cond = NULL;
  for (int p = 0; p < n_params; p++) {
    char *hn = lm_arena_strndup(a, hid[p], strlen(hid[p]));
    lm_expr *col = ast_node(a, LM_EXPR_COLUMN, LM_OP_NONE, NULL, NULL, f);
    if (!hn || !col)
      return nomem(err);
    col->table = rel;
    col->name = hn;
    lm_expr *arg = items[params[p]].expr;
    lm_expr *eq = ast_node(a, LM_EXPR_BINARY, LM_OP_EQ, col, arg, f);
    if (eq && x.null_seen[p]) {
      lm_expr *both =
          ast_node(a, LM_EXPR_BINARY, LM_OP_AND,
                   ast_node(a, LM_EXPR_IS_NULL, LM_OP_NONE, col, NULL, f),
                   ast_node(a, LM_EXPR_IS_NULL, LM_OP_NONE, arg, NULL, f), f);
      eq = ast_node(a, LM_EXPR_BINARY, LM_OP_OR, eq, both, f);
    }
    cond = cond ? ast_node(a, LM_EXPR_BINARY, LM_OP_AND, cond, eq, f) : eq;
    if (!cond)
      return nomem(err);
  }
  *on = cond;
  return 0;
}
