/*
 * api/select_recursive.c — WITH RECURSIVE in ad-hoc queries
 * (docs/setops.md), as PostgreSQL 15 runs it.
 *
 * The WITH queries run once each, in dependency order (a WITH query may
 * read one written after it), each registered as a temporary relation of
 * its name (setop.c's temps). A WITH query that reads its own name must be
 * `non-recursive term UNION [ALL] recursive term`: the non-recursive term
 * runs once, giving the first working table; the recursive term then runs
 * over the working table (its self reference reads it) again and again,
 * each run's rows (for UNION: those not seen before, compared NULL equal
 * to NULL) becoming the next working table, until a run gives no new row.
 * The query's rows are all those rows, in that order. The column types are
 * the non-recursive term's; the recursive term's must convert to them by
 * UNION's rules without changing them (else PostgreSQL's 42804).
 *
 * The rules PostgreSQL checks before running (parse_cte.c) are checked on
 * the AST: one self reference, in the recursive term, not in a subquery
 * expression, an outer join's nullable side, INTERSECT ALL or EXCEPT;
 * no aggregate in the SELECT reading it; no ORDER BY / LIMIT / OFFSET on
 * the WITH query; no mutual recursion between WITH queries.
 *
 * A recursion that does not end stops with an error when the interrupt
 * flag is raised (laminar_interrupt) or when its rows pass
 * LM_RECURSIVE_MAX_BYTES (53200), unless its consumer is a streaming chain
 * ending in a LIMIT that has its rows (lazy consumers, below). The
 * recursive term is planned once when it is a plain SELECT over the
 * working table (term_init); SEARCH / CYCLE add their columns (scx).
 *
 * EXPLAIN shows `Recursive Union` with the non-recursive term and the
 * first run of the recursive term below it, whose self reference is a
 * `WorkTable Scan` (described by api/explain_adhoc.c's
 * lm_xt_recursive_close).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/engine.h"
#include "exec/expr_array.h"
#include "exec/lm_exec.h"
#include "exec/lm_srf.h"
#include "exec/lm_strfn.h"
#include "plan/bind_internal.h"

/* The rows of one recursive query may take this many bytes at most. */
#define LM_RECURSIVE_MAX_BYTES ((int64_t)1 << 30)
/* What each iteration counts at least, for that limit (the working
 * table's batch, its allocations). */
#define LM_RECURSIVE_ITER_BYTES 64

static int nomem(lm_error *err) {
  return lm_err(err, LM_ERR_NOMEM, "out of memory");
}

/* An error at line:col with SQLSTATE state (lm_engine_pos_errf). */
#define pos_err(err, line, col, state, ...)                                    \
  lm_engine_pos_errf(err, LM_ERR_BIND, line, col, state, __VA_ARGS__)

/* ------------------------------------------------------- AST walking */

/* Where a self reference sits (PostgreSQL's RecursionContext). */
typedef enum rctx {
  RC_OK = 0,
  RC_NONREC,  /* the non-recursive term */
  RC_SUBLINK, /* a subquery expression */
  RC_OUTER,   /* an outer join's nullable side */
  RC_INTERSECT /* INTERSECT ALL */,
  RC_EXCEPT, /* EXCEPT ALL's left, EXCEPT's right */
} rctx;

typedef struct walk {
  const char *name; /* the WITH query looked for */
  int n_refs;
  /* the first error met (a reference in a bad context, or the second) */
  bool bad;
  rctx bad_ctx;
  bool twice;
  int line, column;
  /* the plain SELECTs whose FROM reads the reference directly */
  const lm_select *reader;
} walk;

static void w_select(walk *w, const lm_select *s, rctx c, int depth);

static void w_expr(walk *w, const lm_expr *e, int depth) {
  if (!e || depth > 500)
    return;
  if (e->kind == LM_EXPR_SUBQUERY && e->subquery)
    w_select(w, e->subquery, RC_SUBLINK, depth + 1);
  for (int i = 0; i < e->n_args; i++)
    w_expr(w, e->args[i], depth + 1);
  w_expr(w, e->filter, depth + 1);
  for (int i = 0; i < e->n_partition_by; i++)
    w_expr(w, e->partition_by[i], depth + 1);
  for (int i = 0; i < e->n_over_order; i++)
    w_expr(w, e->over_order[i].expr, depth + 1);
  for (int i = 0; i < e->n_agg_order; i++)
    w_expr(w, e->agg_order[i].expr, depth + 1);
}

static void w_ref(walk *w, const lm_from *f, rctx c, const lm_select *s) {
  w->n_refs++;
  if (w->bad)
    return;
  if (c != RC_OK || w->n_refs > 1) {
    w->bad = true;
    w->bad_ctx = c;
    w->twice = c == RC_OK;
    w->line = f->line;
    w->column = f->column;
    return;
  }
  w->reader = s;
}

static void w_from(walk *w, const lm_from *f, rctx c, const lm_select *s,
                   int depth) {
  if (!f || depth > 1000)
    return;
  switch (f->kind) {
  case LM_FROM_TABLE:
    if (f->name && !strcmp(f->name, w->name))
      w_ref(w, f, c, s);
    return;
  case LM_FROM_SUBQUERY:
    w_select(w, f->subquery, c, depth + 1);
    return;
  case LM_FROM_FUNCTION:
    for (int i = 0; i < f->n_funcs; i++)
      w_expr(w, f->funcs[i], depth + 1);
    return;
  case LM_FROM_JOIN: {
    bool lo = f->join == LM_SQL_JOIN_RIGHT || f->join == LM_SQL_JOIN_FULL;
    bool ro =
        f->join == LM_SQL_JOIN_LEFT || f->join == LM_SQL_JOIN_FULL || f->asof;
    w_from(w, f->left, lo && c == RC_OK ? RC_OUTER : c, s, depth + 1);
    w_from(w, f->right, ro && c == RC_OK ? RC_OUTER : c, s, depth + 1);
    w_expr(w, f->on, depth + 1);
    return;
  }
  }
}

static void w_select(walk *w, const lm_select *s, rctx c, int depth) {
  if (!s || depth > 1000)
    return;
  for (int i = 0; i < s->n_ctes; i++) {
    if (!strcmp(s->ctes[i].name, w->name))
      return; /* shadowed (its own WITH query of that name) */
    w_select(w, s->ctes[i].query, c, depth + 1);
  }
  if (s->setop) {
    rctx l = c, r = c;
    if (s->setop == LM_SETOP_INTERSECT && s->set_all && c == RC_OK)
      l = r = RC_INTERSECT;
    if (s->setop == LM_SETOP_EXCEPT && c == RC_OK) {
      l = s->set_all ? RC_EXCEPT : c;
      r = RC_EXCEPT;
    }
    w_select(w, s->set_left, l, depth + 1);
    w_select(w, s->set_right, r, depth + 1);
  } else if (s->values) {
    for (int i = 0; i < s->n_values; i++)
      for (int j = 0; j < s->n_value_cols; j++)
        w_expr(w, s->values[i][j], depth + 1);
  } else {
    w_from(w, s->from_clause, c, s, depth + 1);
    for (int i = 0; i < s->n_items; i++)
      w_expr(w, s->items[i].expr, depth + 1);
    w_expr(w, s->where, depth + 1);
    for (int i = 0; i < s->n_group_by; i++)
      w_expr(w, s->group_by[i], depth + 1);
    w_expr(w, s->having, depth + 1);
  }
  for (int i = 0; i < s->n_order_by; i++)
    w_expr(w, s->order_by[i].expr, depth + 1);
  w_expr(w, s->limit_expr, depth + 1);
  w_expr(w, s->offset_expr, depth + 1);
}

/* Whether query q reads relation `name` anywhere. */
static bool reads(const lm_select *q, const char *name) {
  walk w;
  memset(&w, 0, sizeof w);
  w.name = name;
  w_select(&w, q, RC_OK, 0);
  return w.n_refs > 0;
}

/* The first aggregate call of e outside subqueries, or NULL. */
static const lm_expr *find_agg(const lm_expr *e, int depth) {
  if (!e || depth > 500 || e->kind == LM_EXPR_SUBQUERY)
    return NULL;
  if (e->kind == LM_EXPR_FUNC && e->name && !e->over &&
      lm_bind_is_agg_name(e->name))
    return e;
  for (int i = 0; i < e->n_args; i++) {
    const lm_expr *a = find_agg(e->args[i], depth + 1);
    if (a)
      return a;
  }
  return NULL;
}

/* Renames *b's columns to c's column list (`WITH t(a, b) AS ...`), if it
 * has one: *b is replaced by the renamed batch (the old reference is
 * released). 42P10 when the list is longer than *b's columns. */
static int apply_cols(const lm_cte *c, lm_batch **b, lm_error *err) {
  if (!c->n_cols)
    return 0;
  int nf = (*b)->schema->n_fields;
  if (c->n_cols > nf)
    return pos_err(err, c->line, c->column, "42P10",
                   "WITH query \"%s\" has %d columns available but %d "
                   "columns specified",
                   c->name, nf, c->n_cols);
  lm_batch *o = lm_batch_rename(*b, c->cols, c->n_cols);
  lm_batch_release(*b);
  *b = o;
  return o ? 0 : nomem(err);
}

/* PostgreSQL's checks of recursive WITH query c (checkWellFormedRecursion
 * and the aggregate rule); 0 or the error. */
static int check_form(const lm_cte *c, lm_error *err) {
  const lm_select *q = c->query;
  if (q->setop != LM_SETOP_UNION)
    return pos_err(err, c->line, c->column, "42P19",
                   "recursive query \"%s\" does not have the form "
                   "non-recursive-term UNION [ALL] recursive-term",
                   c->name);
  walk w;
  memset(&w, 0, sizeof w);
  w.name = c->name;
  w_select(&w, q->set_left, RC_NONREC, 0);
  if (!w.bad) {
    w.n_refs = 0;
    w_select(&w, q->set_right, RC_OK, 0);
  }
  if (w.bad) {
    static const char *const where[] = {"",
                                        "within its non-recursive term",
                                        "within a subquery",
                                        "within an outer join",
                                        "within INTERSECT",
                                        "within EXCEPT"};
    return pos_err(err, w.line, w.column, "42P19",
                   "recursive reference to query \"%s\" must not appear %s",
                   c->name, w.twice ? "more than once" : where[w.bad_ctx]);
  }
  if (q->n_order_by)
    return pos_err(err, q->order_by[0].expr->line, q->order_by[0].expr->column,
                   "0A000", "ORDER BY in a recursive query is not implemented");
  if (q->offset > 0 || q->offset_expr)
    return pos_err(err, q->line, q->column, "0A000",
                   "OFFSET in a recursive query is not implemented");
  if (q->limit >= 0 || q->limit_expr)
    return pos_err(err, q->line, q->column, "0A000",
                   "LIMIT in a recursive query is not implemented");
  const lm_select *s = w.reader;
  for (int i = 0; s && i <= s->n_items; i++) {
    const lm_expr *a =
        find_agg(i < s->n_items ? s->items[i].expr : s->having, 0);
    if (a)
      return pos_err(err, a->line, a->column, "42P19",
                     "aggregate functions are not allowed in a recursive "
                     "query's recursive term");
  }
  return 0;
}

/* Whether select-list expression e gives exactly one row per input row
 * and reads no other row: no aggregate, window function, set-returning
 * function or subquery (the body may then stop reading early). */
static bool row_local(const lm_expr *e, int depth) {
  if (!e)
    return true;
  if (depth > 500 || e->kind == LM_EXPR_SUBQUERY)
    return false;
  if (e->kind == LM_EXPR_FUNC && e->name) {
    char n[64];
    size_t k = 0;
    for (; e->name[k] && k < sizeof n - 1; k++)
      n[k] = (char)(e->name[k] >= 'A' && e->name[k] <= 'Z' ? e->name[k] + 32
                                                           : e->name[k]);
    n[k] = '\0';
    if (e->over || lm_bind_is_agg_name(n) || lm_srf_is_name(n))
      return false;
  }
  for (int i = 0; i < e->n_args; i++)
    if (!row_local(e->args[i], depth + 1))
      return false;
  return !e->filter && !e->n_agg_order;
}

/* ------------------------------------------------- lazy consumers
 *
 * PostgreSQL runs a recursion lazily: its consumer pulls rows, so a
 * recursion that never ends still answers `SELECT ... FROM t WHERE ...
 * LIMIT n`. Laminar runs the recursive term a whole iteration at a time;
 * a consumer that is a streaming chain ending in a LIMIT is recognized and
 * fed each iteration's new rows, and the recursion stops as soon as that
 * LIMIT has its rows (the body then runs over the rows so far, giving the
 * same answer as over all of them). A chain: the one SELECT reading the
 * recursive query (FROM it alone), then the SELECTs reading that one as a
 * derived table (FROM (...) s alone) or as a later WITH query read once,
 * each with row-wise select-list items and WHERE (no aggregate, window,
 * set-returning function or subquery), no DISTINCT, GROUP BY, HAVING or
 * ORDER BY, up to the first with a LIMIT (a constant or a subquery not
 * reading the WITH queries). What reads the LIMIT's rows does not matter
 * (`SELECT count(*) FROM (SELECT * FROM t LIMIT 5) s`). */

#define LAZY_MAX 32
typedef struct lazy {
  /* lv[0] reads the recursive query; lv[i + 1] reads lv[i]; lv[n - 1]
   * has the LIMIT */
  const lm_select *lv[LAZY_MAX];
  /* via[i]: the WITH query whose query lv[i] is (lv[i + 1] reads it by
   * name), or NULL: lv[i] is lv[i + 1]'s derived table */
  const lm_cte *via[LAZY_MAX];
  int n;
  bool filtered; /* a level has a WHERE: the levels run over the rows */
  int64_t need;  /* LIMIT + OFFSET of lv[n - 1] */
  int64_t got;   /* rows that reached lv[n - 1] so far */
} lazy;

/* Calls fn on every SELECT of s (itself, WITH queries, set operands,
 * derived tables, subquery expressions). */
typedef void (*sel_fn)(const lm_select *s, void *ctx);
static void each_select(const lm_select *s, sel_fn fn, void *ctx, int depth);

static void each_expr(const lm_expr *e, sel_fn fn, void *ctx, int depth) {
  if (!e || depth > 500)
    return;
  if (e->kind == LM_EXPR_SUBQUERY && e->subquery)
    each_select(e->subquery, fn, ctx, depth + 1);
  for (int i = 0; i < e->n_args; i++)
    each_expr(e->args[i], fn, ctx, depth + 1);
  each_expr(e->filter, fn, ctx, depth + 1);
}

static void each_from(const lm_from *f, sel_fn fn, void *ctx, int depth) {
  if (!f || depth > 500)
    return;
  if (f->kind == LM_FROM_SUBQUERY)
    each_select(f->subquery, fn, ctx, depth + 1);
  if (f->kind == LM_FROM_JOIN) {
    each_from(f->left, fn, ctx, depth + 1);
    each_from(f->right, fn, ctx, depth + 1);
  }
}

static void each_select(const lm_select *s, sel_fn fn, void *ctx, int depth) {
  if (!s || depth > 500)
    return;
  fn(s, ctx);
  for (int i = 0; i < s->n_ctes; i++)
    each_select(s->ctes[i].query, fn, ctx, depth + 1);
  each_select(s->set_left, fn, ctx, depth + 1);
  each_select(s->set_right, fn, ctx, depth + 1);
  each_from(s->from_clause, fn, ctx, depth + 1);
  for (int i = 0; i < s->n_items; i++)
    each_expr(s->items[i].expr, fn, ctx, depth + 1);
  each_expr(s->where, fn, ctx, depth + 1);
  each_expr(s->having, fn, ctx, depth + 1);
}

typedef struct pfind {
  const lm_select *child, *parent;
} pfind;

static void find_parent_fn(const lm_select *s, void *ctx) {
  pfind *p = ctx;
  if (s->from_clause && s->from_clause->kind == LM_FROM_SUBQUERY &&
      s->from_clause->subquery == p->child)
    p->parent = s;
}

/* Whether expression e reads any of sel's WITH queries. */
static bool expr_reads_ctes(const lm_select *sel, const lm_expr *e) {
  for (int i = 0; e && i < sel->n_ctes; i++) {
    walk w;
    memset(&w, 0, sizeof w);
    w.name = sel->ctes[i].name;
    w_expr(&w, e, 0);
    if (w.n_refs)
      return true;
  }
  return false;
}

/* Whether level s passes its input's rows on one by one, in order. */
static bool streaming(const lm_select *s) {
  if (s->setop || s->values || s->distinct || s->n_distinct_on ||
      s->n_group_by || s->n_group_elems || s->having || s->n_order_by ||
      s->n_windows || s->limit_with_ties || !s->from_clause ||
      (s->from_clause->kind != LM_FROM_TABLE &&
       s->from_clause->kind != LM_FROM_SUBQUERY) ||
      !row_local(s->where, 0))
    return false;
  for (int i = 0; i < s->n_items; i++)
    if (!row_local(s->items[i].expr, 0))
      return false;
  return true;
}

/* References to `name` in sel's body and WITH queries other than skip;
 * *reader: the SELECT reading the first (walk.reader). */
static int count_refs(const lm_select *sel, const char *name, int skip,
                      const lm_select **reader) {
  walk w;
  memset(&w, 0, sizeof w);
  w.name = name;
  lm_select body = *sel;
  body.ctes = NULL;
  body.n_ctes = 0;
  w_select(&w, &body, RC_OK, 0);
  for (int j = 0; j < sel->n_ctes; j++)
    if (j != skip)
      w_select(&w, sel->ctes[j].query, RC_OK, 0);
  *reader = w.reader == &body ? sel : w.reader;
  return w.n_refs;
}

/* Finds the lazy consumer of sel's recursive WITH query k (z->n = 0: none;
 * the recursion then runs to its end). May compute a LIMIT's subquery. */
static int find_lazy(laminar_db *db, const lm_select *sel, int k, lazy *z,
                     lm_error *err) {
  memset(z, 0, sizeof *z);
  const lm_select *s = NULL;
  if (count_refs(sel, sel->ctes[k].name, k, &s) != 1 || !s ||
      s->from_clause->kind != LM_FROM_TABLE)
    return 0;
  for (int n = 0; n < LAZY_MAX; n++) {
    if (!streaming(s))
      return 0;
    z->lv[n] = s;
    z->filtered = z->filtered || s->where;
    bool lim = s->limit >= 0 || s->limit_expr;
    if (!lim && (s->offset > 0 || s->offset_expr))
      return 0;
    if (lim) {
      if (expr_reads_ctes(sel, s->limit_expr) ||
          expr_reads_ctes(sel, s->offset_expr))
        return 0;
      if (s->limit_expr || s->offset_expr) {
        int rc = lm_engine_limit_resolve(db, s, err);
        if (rc)
          return rc;
      }
      int64_t off = s->offset > 0 ? s->offset : 0;
      if (s->limit < 0 || s->limit > INT64_MAX - off)
        return 0;
      z->need = s->limit + off;
      z->n = n + 1;
      /* EXPLAIN's trace has no room for the levels' runs */
      if (z->filtered && lm_xt_on())
        z->n = 0;
      return 0;
    }
    /* up: the query reading s as a derived table, or as a WITH query */
    pfind p = {s, NULL};
    lm_select body = *sel;
    body.ctes = NULL;
    body.n_ctes = 0;
    each_select(&body, find_parent_fn, &p, 0);
    if (p.parent == &body)
      p.parent = sel;
    for (int j = 0; j < sel->n_ctes; j++)
      each_select(sel->ctes[j].query, find_parent_fn, &p, 0);
    if (!p.parent) {
      for (int j = 0; j < sel->n_ctes && !z->via[n]; j++)
        if (j != k && sel->ctes[j].query == s)
          z->via[n] = &sel->ctes[j];
      if (!z->via[n] ||
          count_refs(sel, z->via[n]->name, (int)(z->via[n] - sel->ctes),
                     &p.parent) != 1 ||
          !p.parent || p.parent->from_clause->kind != LM_FROM_TABLE)
        return 0;
    }
    s = p.parent;
  }
  return 0;
}

static int run_one(laminar_db *db, const lm_select *sel, lm_batch **out,
                   lm_error *err);

/* Feeds new rows w of recursive query c to consumer z; *done once its
 * LIMIT has its rows. */
static int lazy_feed(laminar_db *db, const lm_cte *c, lazy *z, lm_batch *w,
                     bool *done, lm_error *err) {
  int64_t n = w->num_rows;
  int rc = 0;
  if (z->filtered) {
    static const char hidden[] = "\001recursive lazy level";
    lm_batch *b = lm_batch_retain(w);
    const char *name = c->name;
    for (int i = 0; i < z->n && !rc; i++) {
      int base = db->n_temps;
      rc = lm_engine_temp_push(db, name, b, false, err);
      b = NULL;
      lm_select q = *z->lv[i];
      q.ctes = NULL; /* the body's WITH queries */
      q.n_ctes = 0;
      q.with_recursive = false;
      lm_from f;
      q.limit = -1;
      q.offset = 0;
      q.limit_expr = q.offset_expr = NULL;
      if (!rc && q.from_clause->kind == LM_FROM_SUBQUERY) {
        f = *q.from_clause;
        f.kind = LM_FROM_TABLE;
        f.name = name;
        f.subquery = NULL;
        f.col_aliases = NULL;
        f.n_col_aliases = 0;
        q.from_subquery = NULL;
        lm_sql_select_set_from(&q, &f);
      }
      if (!rc)
        rc = run_one(db, &q, &b, err);
      lm_engine_temps_pop(db, base);
      if (rc)
        break;
      if (i + 1 < z->n && z->via[i]) {
        rc = apply_cols(z->via[i], &b, err);
        name = z->via[i]->name;
      } else if (i + 1 < z->n) {
        const lm_from *pf = z->lv[i + 1]->from_clause;
        if (pf->n_col_aliases) {
          if (pf->n_col_aliases > b->schema->n_fields) {
            rc = pos_err(err, pf->line, pf->column, "42P10",
                         "table \"%s\" has %d columns available but %d "
                         "columns specified",
                         pf->alias ? pf->alias : "?", b->schema->n_fields,
                         pf->n_col_aliases);
          } else {
            lm_batch *o =
                lm_batch_rename(b, pf->col_aliases, pf->n_col_aliases);
            lm_batch_release(b);
            b = o;
            rc = o ? 0 : nomem(err);
          }
        }
        name = hidden;
      }
    }
    n = rc ? 0 : b->num_rows;
    lm_batch_release(b);
    if (rc) { /* a level that does not run alone (reads an outer query's
               * column, LATERAL): the recursion runs to its end */
      lm_err_clear(err);
      z->n = 0;
      return 0;
    }
  }
  z->got += n;
  *done = !rc && z->got >= z->need;
  return rc;
}

/* ------------------------------------------------------------ running */

static int run_one(laminar_db *db, const lm_select *sel, lm_batch **out,
                   lm_error *err) {
  laminar_result *r = NULL;
  int rc = lm_engine_select(db, sel, &r, err);
  if (!rc)
    rc = lm_batch_concat(r->schema, r->batches, r->n_batches, out, err);
  laminar_result_free(r);
  return rc;
}

static int64_t batch_bytes(const lm_batch *b) {
  int64_t n = 0;
  for (int i = 0; i < b->num_columns; i++) {
    const lm_array *a = b->columns[i];
    n += a->validity ? (int64_t)a->validity->size : 0;
    n += a->values ? (int64_t)a->values->size : 0;
    n += a->data ? (int64_t)a->data->size : 0;
  }
  return n;
}

/* Where column `col` of query q was written (its select-list item), for
 * the type error; q's position otherwise. */
static void item_pos(const lm_select *q, int col, int *line, int *column) {
  while (q->setop)
    q = q->set_left;
  *line = q->line;
  *column = q->column;
  if (!q->values && col < q->n_items && q->items[col].expr &&
      q->items[col].expr->line > 0) {
    *line = q->items[col].expr->line;
    *column = q->items[col].expr->column;
  }
}

/* Whether the recursive term's DECIMAL b converts exactly to the working
 * table's DECIMAL a (scale no larger; a value beyond a's precision is
 * 22003): 1::numeric's recursion f * 2, PostgreSQL's numeric. */
static bool dec_fits(lm_type a, lm_type b) {
  return a.id == LM_TYPE_DECIMAL128 && b.id == LM_TYPE_DECIMAL128 &&
         b.scale <= a.scale;
}

/* Run `n` of recursive query c: its rows r cast to the working table's
 * schema ws (*out, a new reference). */
static int conform(const lm_cte *c, const lm_schema *ws, lm_batch *first,
                   lm_batch *r, lm_batch **out, lm_error *err) {
  bool same = r->schema->n_fields == ws->n_fields;
  for (int i = 0; same && i < ws->n_fields; i++)
    same = lm_type_eq(ws->fields[i].type, r->schema->fields[i].type) ||
           dec_fits(ws->fields[i].type, r->schema->fields[i].type);
  if (same) { /* the working table's types already: its names only */
    lm_array **cols = calloc((size_t)ws->n_fields + 1, sizeof *cols);
    if (!cols)
      return nomem(err);
    int rc = 0;
    for (int i = 0; i < ws->n_fields && !rc; i++) {
      lm_type t = ws->fields[i].type;
      if (lm_type_eq(t, r->schema->fields[i].type)) {
        cols[i] = lm_array_retain(r->columns[i]);
        continue;
      }
      lm_bexpr at; /* a 22003 names the non-recursive term's item */
      memset(&at, 0, sizeof at);
      item_pos(c->query->set_left, i, &at.line, &at.column);
      at.type = t;
      rc = lm_cast_items(&at, r->columns[i], t, &cols[i], err);
    }
    *out =
        rc ? NULL
           : lm_batch_new(lm_schema_retain(first->schema), r->num_rows, cols);
    if (rc)
      for (int i = 0; i < ws->n_fields; i++)
        lm_array_release(cols[i]);
    free(cols);
    return rc ? rc : *out ? 0 : nomem(err);
  }
  lm_batch *head = lm_batch_slice(first, 0, 0);
  if (!head)
    return nomem(err);
  lm_batch *bs[2] = {head, r};
  const lm_select *qs[2] = {NULL, c->query->set_right};
  lm_batch *u = NULL;
  int rc = lm_setop_unify(bs, qs, 2, "UNION", &u, err);
  lm_batch_release(head);
  for (int i = 0; !rc && i < ws->n_fields; i++) {
    lm_type a = ws->fields[i].type, b = u->schema->fields[i].type;
    if (lm_type_eq(a, b))
      continue;
    char ta[64], tb[64];
    snprintf(ta, sizeof ta, "%s", lm_pg_type_name(a));
    snprintf(tb, sizeof tb, "%s", lm_pg_type_name(b));
    int l, col;
    item_pos(c->query->set_left, i, &l, &col);
    rc = pos_err(err, l, col, "42804",
                 "recursive query \"%s\" column %d has type %s in "
                 "non-recursive term but type %s overall",
                 c->name, i + 1, ta, tb);
  }
  if (rc) {
    lm_batch_release(u);
    return rc;
  }
  *out = u;
  return 0;
}

/* The recursive term planned once (PostgreSQL plans it once too): when it
 * is a plain SELECT over the working table alone, with row-wise items and
 * WHERE, its plan runs over each working table (WHERE, then the select
 * list); otherwise (joins, aggregates in subqueries, ...) the term runs as
 * a query each iteration. */
typedef struct term {
  lm_plan *plan; /* NULL = run the query */
} term;

static void term_init(const lm_cte *c, const lm_select *q, const lm_schema *ws,
                      term *t) {
  t->plan = NULL;
  if (!streaming(q) || q->limit >= 0 || q->limit_expr || q->offset > 0 ||
      q->offset_expr || q->from_clause->kind != LM_FROM_TABLE ||
      strcmp(q->from_clause->name, c->name) || q->emit ||
      q->from_clause->n_col_aliases)
    return;
  lm_error e;
  memset(&e, 0, sizeof e);
  lm_plan *p = NULL;
  if (lm_plan_select(q, (lm_schema *)ws, c->name, &p, &e)) {
    lm_err_clear(&e);
    return;
  }
  if (p->has_agg || p->n_keys || p->n_aggs || p->topn || p->join || p->n_sort ||
      p->limit >= 0 || p->offset > 0 || p->distinct || p->n_distinct_on ||
      p->n_agg_order || p->n_tfilter || p->n_out != p->out_schema->n_fields) {
    lm_plan_free(p);
    return;
  }
  t->plan = p;
}

/* Runs planned term t over working table w into *out (a new batch). */
static int term_run(const term *t, lm_batch *w, lm_batch **out, lm_error *err) {
  lm_batch *f = NULL;
  int rc = lm_batch_where(t->plan->where, w, &f, err);
  if (!rc)
    rc = lm_project(t->plan->out, t->plan->n_out, t->plan->out_schema, f, out,
                    err);
  lm_batch_release(f);
  return rc;
}

/* The rows of r not yet in t (first occurrences; t takes them). */
static int fresh_rows(lm_aggtable *t, lm_batch **r, lm_error *err) {
  lm_batch *b = *r;
  int64_t before = lm_aggtable_groups(t);
  uint32_t *g = malloc(sizeof *g * (size_t)(b->num_rows + 1));
  int32_t *keep = malloc(sizeof *keep * (size_t)(b->num_rows + 1));
  int rc = (!g || !keep) ? nomem(err) : 0;
  if (!rc)
    rc = lm_aggtable_lookup(t, b->columns, NULL, b->num_rows, g, err);
  int64_t nk = 0, next = before;
  for (int64_t i = 0; !rc && i < b->num_rows; i++)
    if ((int64_t)g[i] >= next) { /* ids are dense, in first-seen order */
      keep[nk++] = (int32_t)i;
      next = (int64_t)g[i] + 1;
    }
  if (!rc && nk < b->num_rows) {
    lm_batch *o = lm_batch_take(b, keep, nk);
    if (!o) {
      rc = nomem(err);
    } else {
      lm_batch_release(b);
      *r = o;
    }
  }
  free(g);
  free(keep);
  return rc;
}

/* ------------------------------------------------ SEARCH and CYCLE
 *
 * PostgreSQL 14+'s SEARCH / CYCLE clauses of a recursive WITH query add
 * columns after its own: the search sequence column, then the cycle mark
 * and the cycle path. PostgreSQL's are a record[] (DEPTH FIRST, path), a
 * record (BREADTH FIRST: depth, column): Laminar has no record values, so
 * with one BY / CYCLE column c (more is 0A000) they are c's values:
 * DEPTH FIRST an array of c (`{1,2,4}` where PostgreSQL shows
 * `{(1),(2),(4)}`; ordered the same), BREADTH FIRST a bigint[] {depth, c}
 * (c an integer; PostgreSQL's `(0,1)`), the path an array of c. The mark
 * is TO v (cycle found: c already on the parent's path) or DEFAULT d
 * (TRUE / FALSE when not written); rows whose mark is v are not
 * recursed from (PostgreSQL's `WHERE mark <> v`). The recursive term is
 * run with the parent row's extra columns appended to its select list;
 * the new values are then computed from them (engine expressions over the
 * term's rows: array_append, = ANY, CASE). */

typedef struct scx {
  int nu; /* the WITH query's own columns */
  int n;  /* extra columns (seq, mark, path: those written) */
  const char *names[3];
  lm_sql_script *script;
  lm_arena arena;
  lm_bexpr *init[3]; /* over the first working table's own columns */
  lm_bexpr *step[3]; /* over own columns + the parent's extras (__rec_pK) */
  lm_bexpr *keep;    /* CYCLE: over a working table: mark <> v */
  lm_select term;    /* the recursive term with the parent's extras */
  lm_select_item *items;
  lm_expr *cols;
} scx;

static const char *const sc_parent[3] = {"__rec_p0", "__rec_p1", "__rec_p2"};

static void sc_free(scx *x) {
  lm_sql_script_free(x->script);
  if (x->n)
    lm_arena_free(&x->arena);
  free(x->items);
  free(x->cols);
}

static int sc_quote(lm_buf *b, const char *name) {
  int rc = lm_buf_puts(b, "\"");
  for (const char *s = name; !rc && *s; s++)
    rc = lm_buf_append(b, s, 1) || (*s == '"' ? lm_buf_puts(b, "\"") : 0);
  return rc ? rc : lm_buf_puts(b, "\"");
}

/* Index of column `name` among the first n of s, or -1. */
static int sc_col(const lm_schema *s, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(s->fields[i].name, name))
      return i;
  return -1;
}

/* The FROM node reading `name` in f (the worktable reference), or NULL. */
static const lm_from *sc_ref(const lm_from *f, const char *name, int depth) {
  if (!f || depth > 500)
    return NULL;
  if (f->kind == LM_FROM_TABLE && f->name && !lm_strcasecmp(f->name, name))
    return f;
  if (f->kind != LM_FROM_JOIN)
    return NULL;
  const lm_from *l = sc_ref(f->left, name, depth + 1);
  return l ? l : sc_ref(f->right, name, depth + 1);
}

/* Checks c's SEARCH / CYCLE clauses against its first working table's
 * schema ws (own columns) and prepares x (x->n = 0: none). */
static int sc_prepare(const lm_cte *c, const lm_schema *ws, scx *x,
                      lm_error *err) {
  memset(x, 0, sizeof *x);
  x->nu = ws->n_fields;
  if (!c->n_search_cols && !c->n_cycle_cols)
    return 0;
  int sl = c->search_line, sc = c->search_column;
  int cl = c->cycle_line, cc = c->cycle_column;
  for (int i = 0; i < c->n_search_cols; i++) {
    if (sc_col(ws, ws->n_fields, c->search_cols[i]) < 0)
      return pos_err(err, sl, sc, "42601",
                     "search column \"%s\" not in WITH query column list",
                     c->search_cols[i]);
    for (int j = 0; j < i; j++)
      if (!strcmp(c->search_cols[j], c->search_cols[i]))
        return pos_err(err, sl, sc, "42701",
                       "search column \"%s\" specified more than once",
                       c->search_cols[i]);
  }
  if (c->n_search_cols && sc_col(ws, ws->n_fields, c->search_seq) >= 0)
    return pos_err(err, sl, sc, "42701",
                   "search sequence column name \"%s\" already used in WITH "
                   "query column list",
                   c->search_seq);
  for (int i = 0; i < c->n_cycle_cols; i++) {
    if (sc_col(ws, ws->n_fields, c->cycle_cols[i]) < 0)
      return pos_err(err, cl, cc, "42601",
                     "cycle column \"%s\" not in WITH query column list",
                     c->cycle_cols[i]);
    for (int j = 0; j < i; j++)
      if (!strcmp(c->cycle_cols[j], c->cycle_cols[i]))
        return pos_err(err, cl, cc, "42701",
                       "cycle column \"%s\" specified more than once",
                       c->cycle_cols[i]);
  }
  if (c->n_cycle_cols) {
    if (sc_col(ws, ws->n_fields, c->cycle_mark) >= 0)
      return pos_err(err, cl, cc, "42701",
                     "cycle mark column name \"%s\" already used in WITH "
                     "query column list",
                     c->cycle_mark);
    if (sc_col(ws, ws->n_fields, c->cycle_path) >= 0)
      return pos_err(err, cl, cc, "42701",
                     "cycle path column name \"%s\" already used in WITH "
                     "query column list",
                     c->cycle_path);
    if (!strcmp(c->cycle_mark, c->cycle_path))
      return pos_err(err, cl, cc, "42601",
                     "cycle mark column name and cycle path column name are "
                     "the same");
  }
  if (c->n_search_cols && c->n_cycle_cols) {
    if (!strcmp(c->search_seq, c->cycle_mark))
      return pos_err(err, sl, sc, "42601",
                     "search sequence column name and cycle mark column "
                     "name are the same");
    if (!strcmp(c->search_seq, c->cycle_path))
      return pos_err(err, sl, sc, "42601",
                     "search sequence column name and cycle path column "
                     "name are the same");
  }
  const lm_select *r = c->query->set_right;
  if (r->setop || r->values)
    return pos_err(err, r->line, r->column, "42601",
                   "with a SEARCH or CYCLE clause, the right side of the "
                   "UNION must be a SELECT");
  if (c->n_search_cols > 1 || c->n_cycle_cols > 1)
    return pos_err(err, c->n_search_cols > 1 ? sl : cl,
                   c->n_search_cols > 1 ? sc : cc, "0A000",
                   "%s with more than one column is not supported (no "
                   "record values)",
                   c->n_search_cols > 1 ? "SEARCH" : "CYCLE");
  if (c->search_breadth) {
    lm_type t = ws->fields[sc_col(ws, ws->n_fields, c->search_cols[0])].type;
    if (t.id != LM_TYPE_INT16 && t.id != LM_TYPE_INT32 && t.id != LM_TYPE_INT64)
      return pos_err(err, sl, sc, "0A000",
                     "SEARCH BREADTH FIRST BY a column of type %s is not "
                     "supported (no record values; an integer column is)",
                     lm_pg_type_name(t));
  }
  /* the expressions, as SQL text: init, step (3 each), keep */
  lm_buf b;
  lm_buf_init(&b);
  int rc = lm_buf_puts(&b, "SELECT ");
  char *to = NULL, *def = NULL;
  if (c->n_cycle_cols && c->cycle_to) {
    lm_buf tb, db;
    lm_buf_init(&tb);
    lm_buf_init(&db);
    if (lm_sql_expr_to_string(c->cycle_to, &tb) ||
        lm_sql_expr_to_string(c->cycle_default, &db) || lm_buf_puts(&tb, "") ||
        lm_buf_puts(&db, "")) {
      lm_buf_free(&tb);
      lm_buf_free(&db);
      lm_buf_free(&b);
      return nomem(err);
    }
    to = lm_strdup(tb.data);
    def = lm_strdup(db.data);
    lm_buf_free(&tb);
    lm_buf_free(&db);
  } else {
    to = lm_strdup("TRUE");
    def = lm_strdup("FALSE");
  }
  if (!to || !def)
    rc = LM_ERR_NOMEM;
  int k = 0;
  const char *sq = c->n_search_cols ? c->search_cols[0] : NULL;
  const char *cy = c->n_cycle_cols ? c->cycle_cols[0] : NULL;
  /* init */
  if (sq) {
    x->names[k++] = c->search_seq;
    rc = rc || lm_buf_puts(&b, "ARRAY[") ||
         (c->search_breadth ? lm_buf_puts(&b, "CAST(0 AS BIGINT), ") : 0) ||
         sc_quote(&b, sq) || lm_buf_puts(&b, "], ");
  }
  if (cy) {
    x->names[k++] = c->cycle_mark;
    x->names[k++] = c->cycle_path;
    rc = rc || lm_buf_puts(&b, "CASE WHEN FALSE THEN (") ||
         lm_buf_puts(&b, to) || lm_buf_puts(&b, ") ELSE (") ||
         lm_buf_puts(&b, def) || lm_buf_puts(&b, ") END, ARRAY[") ||
         sc_quote(&b, cy) || lm_buf_puts(&b, "], ");
  }
  x->n = k;
  /* step */
  k = 0;
  if (sq) {
    if (c->search_breadth)
      rc = rc || lm_buf_puts(&b, "ARRAY[") || sc_quote(&b, sc_parent[k]) ||
           lm_buf_puts(&b, "[1] + 1, ") || sc_quote(&b, sq) ||
           lm_buf_puts(&b, "], ");
    else
      rc = rc || lm_buf_puts(&b, "array_append(") ||
           sc_quote(&b, sc_parent[k]) || lm_buf_puts(&b, ", ") ||
           sc_quote(&b, sq) || lm_buf_puts(&b, "), ");
    k++;
  }
  if (cy) {
    /* on the path: PostgreSQL compares ROW(c) with record_eq, to which
     * two NULLs are equal, as array_position's IS NOT DISTINCT FROM */
    rc = rc || lm_buf_puts(&b, "CASE WHEN array_position(") ||
         sc_quote(&b, sc_parent[k + 1]) || lm_buf_puts(&b, ", ") ||
         sc_quote(&b, cy) || lm_buf_puts(&b, ") IS NOT NULL THEN (") ||
         lm_buf_puts(&b, to) || lm_buf_puts(&b, ") ELSE (") ||
         lm_buf_puts(&b, def) || lm_buf_puts(&b, ") END, array_append(") ||
         sc_quote(&b, sc_parent[k + 1]) || lm_buf_puts(&b, ", ") ||
         sc_quote(&b, cy) || lm_buf_puts(&b, "), ");
    /* keep */
    rc = rc || sc_quote(&b, c->cycle_mark) || lm_buf_puts(&b, " <> (") ||
         lm_buf_puts(&b, to) || lm_buf_puts(&b, ")");
  } else {
    rc = rc || lm_buf_puts(&b, "TRUE");
  }
  free(to);
  free(def);
  if (rc) {
    lm_buf_free(&b);
    return nomem(err);
  }
  lm_arena_init(&x->arena, 1024);
  lm_error pe;
  memset(&pe, 0, sizeof pe);
  rc = lm_sql_parse(b.data, b.len, &x->script, &pe);
  lm_buf_free(&b);
  if (rc || x->script->n_stmts != 1 || !x->script->stmts[0]->select ||
      x->script->stmts[0]->select->n_items != 2 * x->n + 1) {
    lm_err_clear(&pe);
    return pos_err(err, sq ? sl : cl, sq ? sc : cc, "42601",
                   "invalid CYCLE value");
  }
  const lm_select_item *it = x->script->stmts[0]->select->items;
  /* init over the own columns */
  for (int i = 0; i < x->n && !rc; i++)
    rc = lm_bind_scalar(it[i].expr, ws, &x->arena, &x->init[i], err);
  /* step over own columns + parents' extras (types: init's) */
  lm_schema *ss = rc ? NULL : lm_schema_new(x->nu + x->n);
  if (!rc && !ss)
    rc = nomem(err);
  for (int i = 0; !rc && i < x->nu; i++)
    rc = lm_schema_set_field(ss, i, ws->fields[i].name, ws->fields[i].type,
                             true);
  for (int i = 0; !rc && i < x->n; i++)
    rc = lm_schema_set_field(ss, x->nu + i, sc_parent[i], x->init[i]->type,
                             true);
  for (int i = 0; i < x->n && !rc; i++)
    rc = lm_bind_scalar(it[x->n + i].expr, ss, &x->arena, &x->step[i], err);
  lm_schema_release(ss);
  /* keep over a working table: own columns + extras */
  lm_schema *fs = rc ? NULL : lm_schema_new(x->nu + x->n);
  if (!rc && !fs)
    rc = nomem(err);
  for (int i = 0; !rc && i < x->nu; i++)
    rc = lm_schema_set_field(fs, i, ws->fields[i].name, ws->fields[i].type,
                             true);
  for (int i = 0; !rc && i < x->n; i++)
    rc =
        lm_schema_set_field(fs, x->nu + i, x->names[i], x->init[i]->type, true);
  if (!rc)
    rc = lm_bind_scalar(it[2 * x->n].expr, fs, &x->arena, &x->keep, err);
  lm_schema_release(fs);
  if (rc)
    return rc;
  /* the recursive term with the parent's extras after its items */
  const lm_from *ref = sc_ref(r->from_clause, c->name, 0);
  x->term = *r;
  x->items = calloc((size_t)(r->n_items + x->n), sizeof *x->items);
  x->cols = calloc((size_t)x->n, sizeof *x->cols);
  if (!x->items || !x->cols)
    return nomem(err);
  memcpy(x->items, r->items, sizeof *x->items * (size_t)r->n_items);
  for (int i = 0; i < x->n; i++) {
    lm_expr *e = &x->cols[i];
    e->kind = LM_EXPR_COLUMN;
    e->line = r->line;
    e->column = r->column;
    e->table = ref ? (ref->alias ? ref->alias : ref->name) : NULL;
    e->name = x->names[i];
    x->items[r->n_items + i].expr = e;
    x->items[r->n_items + i].alias = sc_parent[i];
  }
  x->term.items = x->items;
  x->term.n_items = r->n_items + x->n;
  return 0;
}

/* Appends the extra columns to own-column rows b (*b replaced): init's
 * (parent NULL) or step's over b's columns and parent's extra columns
 * (the recursive term's last x->n). full: the working table schema. */
static int sc_extend(const scx *x, lm_schema *full, lm_batch **b,
                     const lm_batch *parent, lm_error *err) {
  lm_batch *in = *b;
  lm_batch *ev = NULL;
  int rc = 0;
  if (parent) { /* own columns + the parent's extras, as step reads */
    lm_schema *ss = lm_schema_new(x->nu + x->n);
    lm_array **cols = calloc((size_t)(x->nu + x->n), sizeof *cols);
    for (int i = 0; ss && cols && i < x->nu + x->n; i++) {
      const lm_array *a =
          i < x->nu ? in->columns[i]
                    : parent->columns[parent->num_columns - x->n + i - x->nu];
      cols[i] = lm_array_retain((lm_array *)a);
      lm_schema_set_field(
          ss, i, i < x->nu ? in->schema->fields[i].name : sc_parent[i - x->nu],
          a->type, true);
    }
    ev = ss && cols ? lm_batch_new(ss, in->num_rows, cols) : NULL;
    if (!ev && (!ss || !cols))
      lm_schema_release(ss);
    free(cols);
    if (!ev)
      return nomem(err);
  }
  lm_array **cols = calloc((size_t)(x->nu + x->n), sizeof *cols);
  if (!cols)
    rc = nomem(err);
  for (int i = 0; !rc && i < x->nu; i++)
    cols[i] = lm_array_retain(in->columns[i]);
  for (int i = 0; !rc && i < x->n; i++)
    rc = lm_eval(parent ? x->step[i] : x->init[i], parent ? ev : in,
                 &cols[x->nu + i], err);
  lm_batch *o = NULL;
  if (!rc) {
    o = lm_batch_new(lm_schema_retain(full), in->num_rows, cols);
    if (!o)
      rc = nomem(err);
  } else {
    for (int i = 0; cols && i < x->nu + x->n; i++)
      lm_array_release(cols[i]);
  }
  free(cols);
  lm_batch_release(ev);
  if (rc)
    return rc;
  lm_batch_release(in);
  *b = o;
  return 0;
}

/* The own columns of b (first nu), a new batch. */
static lm_batch *sc_own(const lm_batch *b, int nu) {
  lm_schema *s = lm_schema_new(nu);
  lm_array **cols = calloc((size_t)nu + 1, sizeof *cols);
  lm_batch *o = NULL;
  if (s && cols) {
    for (int i = 0; i < nu; i++) {
      lm_schema_set_field(s, i, b->schema->fields[i].name,
                          b->schema->fields[i].type,
                          b->schema->fields[i].nullable);
      cols[i] = lm_array_retain(b->columns[i]);
    }
    o = lm_batch_new(s, b->num_rows, cols);
  } else {
    lm_schema_release(s);
  }
  free(cols);
  return o;
}

/* Runs recursive WITH query c into a temporary relation of its name;
 * it stops early once lazy consumer z (z->n > 0) has its rows. */
static int run_recursive(laminar_db *db, const lm_cte *c, lazy *z,
                         lm_error *err) {
  int rc = 0;
  lm_xt_next_role(LM_XT_CTE, c->name, NULL); /* EXPLAIN's trace */
  lm_xt *frame = lm_xt_open();
  lm_batch *w = NULL, *first = NULL;
  lm_batch **acc = NULL;
  int n_acc = 0, cap_acc = 0, n_chunks = 0, iters = 0;
  term t = {NULL};
  int64_t bytes = 0, rows = 0;
  lm_aggtable *seen = NULL;
  lm_type *types = NULL;
  /* the non-recursive term: the first working table */
  lm_batch *b0 = NULL;
  lm_xt_next_role(LM_XT_OPERAND, NULL, NULL);
  rc = run_one(db, c->query->set_left, &b0, err);
  if (!rc) {
    lm_batch *bs[1] = {b0};
    const lm_select *qs[1] = {c->query->set_left};
    rc = lm_setop_unify(bs, qs, 1, "UNION", &w, err);
    lm_batch_release(b0);
  }
  if (!rc)
    rc = apply_cols(c, &w, err);
  /* SEARCH / CYCLE: their columns after the query's own */
  scx x;
  memset(&x, 0, sizeof x);
  lm_batch *own = NULL; /* first's own columns (conform) */
  if (!rc)
    rc = sc_prepare(c, w->schema, &x, err);
  if (!rc && x.n) {
    lm_schema *full = lm_schema_new(x.nu + x.n);
    if (!full)
      rc = nomem(err);
    for (int i = 0; !rc && i < x.nu + x.n; i++)
      rc = lm_schema_set_field(
          full, i, i < x.nu ? w->schema->fields[i].name : x.names[i - x.nu],
          i < x.nu ? w->schema->fields[i].type : x.init[i - x.nu]->type, true);
    if (!rc)
      rc = sc_extend(&x, full, &w, NULL, err);
    lm_schema_release(full);
  }
  int nf = rc ? 0 : w->schema->n_fields;
  if (!rc && !c->query->set_all) {
    types = calloc((size_t)nf + 1, sizeof *types);
    for (int i = 0; types && i < nf; i++)
      types[i] = w->schema->fields[i].type;
    seen = types ? lm_aggtable_new(nf, types, 0, NULL) : NULL;
    rc = seen ? fresh_rows(seen, &w, err) : nomem(err);
  }
  if (!rc)
    first = lm_batch_retain(w);
  if (!rc)
    own = x.n ? sc_own(first, x.nu) : lm_batch_retain(first);
  if (!rc && !own)
    rc = nomem(err);
  const lm_select *rterm = x.n ? &x.term : c->query->set_right;
  /* the recursive term over each working table until no new row */
  /* (EXPLAIN without ANALYZE: the first run only) */
  for (bool ran = false;
       !rc && (w->num_rows > 0 || !ran) && !(ran && lm_xt_dry()); ran = true) {
    if (w->num_rows > 0) {
      if (n_acc == cap_acc) {
        int cap = cap_acc ? cap_acc * 2 : 16;
        lm_batch **na = realloc(acc, sizeof *na * (size_t)cap);
        if (!na) {
          rc = nomem(err);
          break;
        }
        acc = na;
        cap_acc = cap;
      }
      acc[n_acc++] = lm_batch_retain(w);
      if (n_acc - n_chunks == 256) { /* many small runs: one batch of the
                                      * last 256 (less to allocate and free,
                                      * each row copied once) */
        lm_batch *one = NULL;
        rc = lm_batch_concat(first->schema, acc + n_chunks, n_acc - n_chunks,
                             &one, err);
        for (int i = n_chunks; i < n_acc; i++)
          lm_batch_release(acc[i]);
        n_acc = n_chunks;
        if (rc)
          break;
        acc[n_acc++] = one;
        n_chunks = n_acc;
      }
      rows += w->num_rows;
      /* an iteration costs at least LM_RECURSIVE_ITER_BYTES: an endless
       * recursion of a row at a time stops too (after ~16 M iterations) */
      bytes += batch_bytes(w) + LM_RECURSIVE_ITER_BYTES;
      /* UNION: the rows seen are held a second time (keys + hash slots) */
      int64_t held = bytes + (seen ? lm_aggtable_key_bytes(seen) +
                                         16 * lm_aggtable_groups(seen)
                                   : 0);
      /* and the next iteration builds about as much as the working table
       * again, several times over (join state, its output, the casts) */
      if (held + 3 * batch_bytes(w) > LM_RECURSIVE_MAX_BYTES) {
        rc = pos_err(err, c->line, c->column, "53200",
                     "recursive query \"%s\" exceeded %lld MB of rows "
                     "after %d iterations",
                     c->name, (long long)(LM_RECURSIVE_MAX_BYTES >> 20), iters);
        break;
      }
      if (z->n) {
        bool done = false;
        rc = lazy_feed(db, c, z, w, &done, err);
        if (rc || done)
          break; /* the body reads no further */
      }
    }
    if (db->interrupted) {
      rc = lm_err(err, LM_ERR_BIND, "canceling statement due to user request");
      lm_err_state(err, "57014");
      break;
    }
    lm_batch *r = NULL;
    lm_batch *wk = NULL; /* CYCLE: the rows not marked as cycles */
    if (x.n)
      rc = lm_batch_where(x.keep, w, &wk, err);
    else
      wk = lm_batch_retain(w);
    if (rc)
      break;
    if (iters == 1 && !lm_xt_on()) /* after a first run as a query */
      term_init(c, rterm, wk->schema, &t);
    if (t.plan) {
      rc = term_run(&t, wk, &r, err);
      lm_batch_release(wk);
    } else {
      int base = db->n_temps;
      rc = lm_engine_temp_push(db, c->name, wk, false, err);
      if (rc)
        break;
      db->temps[db->n_temps - 1]->worktable = true;
      /* the first run is the one EXPLAIN shows */
      lm_xt_next_role(iters ? LM_XT_VALUES_ROW : LM_XT_OPERAND, NULL, NULL);
      rc = run_one(db, rterm, &r, err);
      lm_engine_temps_pop(db, base);
    }
    iters++;
    lm_batch *n = NULL;
    if (!rc && x.n) {
      lm_batch *ro = sc_own(r, x.nu);
      rc = ro ? conform(c, own->schema, own, ro, &n, err) : nomem(err);
      lm_batch_release(ro);
      if (!rc)
        rc = sc_extend(&x, first->schema, &n, r, err);
    } else if (!rc) {
      rc = conform(c, w->schema, first, r, &n, err);
    }
    lm_batch_release(r);
    if (!rc && seen)
      rc = fresh_rows(seen, &n, err);
    if (rc) {
      lm_batch_release(n);
      break;
    }
    lm_batch_release(w);
    w = n;
  }
  lm_batch *all = NULL;
  if (!rc)
    rc = lm_batch_concat(first->schema, acc, n_acc, &all, err);
  for (int i = 0; i < n_acc; i++)
    lm_batch_release(acc[i]);
  free(acc);
  lm_batch_release(w);
  lm_batch_release(first);
  lm_aggtable_free(seen);
  free(types);
  lm_plan_free(t.plan);
  lm_batch_release(own);
  sc_free(&x);
  /* EXPLAIN: the frame described as a Recursive Union, then closed */
  lm_xt_recursive_close(frame, rc, !c->query->set_all, iters, rows);
  if (!rc)
    rc = lm_engine_temp_push(db, c->name, all, false, err);
  else
    lm_batch_release(all);
  return rc;
}

/* ---------------------------------------------------------------- entry */

int lm_sc_not_recursive(const lm_cte *c, lm_error *err) {
  return pos_err(err, c->line, c->column, "42601",
                 "WITH query is not recursive");
}

int lm_recursive_with(laminar_db *db, const lm_select *sel,
                      laminar_result **res, lm_error *err) {
  int n = sel->n_ctes, base = db->n_temps, rc = 0;
  *res = NULL;
  for (int i = 0; i < n && !rc; i++)
    for (int j = 0; j < i && !rc; j++)
      if (!strcmp(sel->ctes[j].name, sel->ctes[i].name))
        rc = pos_err(err, sel->ctes[i].line, sel->ctes[i].column, "42712",
                     "WITH query name \"%s\" specified more than once",
                     sel->ctes[i].name);
  for (int i = 0; i < n && !rc; i++) /* SEARCH / CYCLE: recursive only */
    if ((sel->ctes[i].n_search_cols || sel->ctes[i].n_cycle_cols) &&
        !reads(sel->ctes[i].query, sel->ctes[i].name))
      rc = lm_sc_not_recursive(&sel->ctes[i], err);
  if (rc)
    return rc;
  /* dependencies: dep[i * n + j] when query i reads query j */
  bool *dep = calloc((size_t)n * (size_t)n + 1, sizeof *dep);
  int *order = calloc((size_t)n + 1, sizeof *order);
  int *state = calloc((size_t)n + 1, sizeof *state); /* 0, 1 open, 2 done */
  if (!dep || !order || !state)
    rc = nomem(err);
  for (int i = 0; !rc && i < n; i++)
    for (int j = 0; j < n; j++)
      dep[i * n + j] = j != i && reads(sel->ctes[i].query, sel->ctes[j].name);
  /* topological order, the written order among independent queries */
  int n_order = 0;
  for (int i = 0; !rc && i < n; i++) {
    if (state[i])
      continue;
    /* iterative DFS from i */
    int *stack = calloc((size_t)n + 1, sizeof *stack);
    int *next = calloc((size_t)n + 1, sizeof *next);
    int sp = 0;
    if (!stack || !next) {
      free(stack);
      free(next);
      rc = nomem(err);
      break;
    }
    stack[sp++] = i;
    state[i] = 1;
    while (sp && !rc) {
      int v = stack[sp - 1];
      int j = next[v];
      while (j < n && !dep[v * n + j])
        j++;
      if (j < n) {
        next[v] = j + 1;
        if (state[j] == 1) { /* a cycle */
          rc = pos_err(err, sel->ctes[i].line, sel->ctes[i].column, "0A000",
                       "mutual recursion between WITH items is not "
                       "implemented");
        } else if (!state[j]) {
          state[j] = 1;
          stack[sp++] = j;
        }
      } else {
        state[v] = 2;
        order[n_order++] = v;
        sp--;
      }
    }
    free(stack);
    free(next);
  }
  for (int k = 0; !rc && k < n_order; k++) {
    const lm_cte *c = &sel->ctes[order[k]];
    if (reads(c->query, c->name)) {
      /* a streaming consumer may need only its first rows */
      lazy z;
      rc = check_form(c, err);
      if (!rc)
        rc = find_lazy(db, sel, order[k], &z, err);
      if (!rc)
        rc = run_recursive(db, c, &z, err);
      continue;
    }
    lm_batch *b = NULL;
    lm_xt_next_role(LM_XT_CTE, c->name, NULL); /* EXPLAIN's trace */
    rc = run_one(db, c->query, &b, err);
    if (!rc)
      rc = apply_cols(c, &b, err);
    if (!rc) {
      rc = lm_engine_temp_push(db, c->name, b, false, err);
      b = NULL;
    }
    lm_batch_release(b);
  }
  free(dep);
  free(order);
  free(state);
  lm_select body = *sel;
  body.ctes = NULL;
  body.n_ctes = 0;
  body.with_recursive = false;
  lm_xt_next_role(LM_XT_BODY, NULL, NULL);
  if (!rc)
    rc = lm_engine_select(db, &body, res, err);
  if (!rc)
    lm_xt_with_done(sel);
  lm_engine_temps_pop(db, base);
  return rc;
}
