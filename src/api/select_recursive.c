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
 * LM_RECURSIVE_MAX_BYTES (53200), unless its consumers are streaming
 * chains ending in a LIMIT that have their rows (lazy consumers, below). The
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
#include "api/recursive_typmod.h"
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
  /* collect: every reference is recorded (refs[i] read by readers[i]),
   * in any context, instead of checked */
  bool collect;
  const lm_select *readers[16];
  const lm_from *refs[16];
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
  if (w->collect) {
    if (w->n_refs <= (int)(sizeof w->refs / sizeof w->refs[0])) {
      w->readers[w->n_refs - 1] = s;
      w->refs[w->n_refs - 1] = f;
    }
    return;
  }
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
 * PostgreSQL runs a recursion lazily: its consumers pull rows, so a
 * recursion that never ends still answers `SELECT ... FROM t WHERE ...
 * LIMIT n`. Laminar runs the recursive term a whole iteration at a time;
 * when every reference to the recursive query is read by a streaming chain
 * ending in a LIMIT, each chain is fed each iteration's new rows, and the
 * recursion stops as soon as every LIMIT has its rows (the query then runs
 * over the rows so far, each reader reading their prefix: the same answer
 * as over all of them). A chain: the SELECT reading the reference (FROM it
 * alone), then the SELECTs reading that one as a derived table (FROM (...)
 * s alone) or as a later WITH query (each of its readers continuing the
 * chain), each with row-wise select-list items and WHERE (no aggregate,
 * window, set-returning function or subquery), no DISTINCT, GROUP BY,
 * HAVING or ORDER BY, up to the first with a LIMIT (a constant or a
 * subquery not reading the WITH queries), or the query of an EXISTS (a
 * LIMIT 1) or of a scalar subquery (LIMIT 2: a second row is its error).
 * What reads the LIMIT's rows does not matter (`SELECT count(*) FROM
 * (SELECT * FROM t LIMIT 5) s`, `x IN (SELECT n FROM t LIMIT 2)`). A level
 * that does not run alone (its WHERE reads an outer query's column) makes
 * the recursion run to its end. */

#define LAZY_MAX 32
/* The chains of one recursive query at most (its references). */
#define LAZY_CHAINS 16
typedef struct lazy {
  /* lv[0] reads the recursive query; lv[i + 1] reads lv[i]; lv[n - 1]
   * has the LIMIT (or is an EXISTS / scalar subquery's query) */
  const lm_select *lv[LAZY_MAX];
  /* via[i]: the WITH query whose query lv[i] is (lv[i + 1] reads it by
   * name), or NULL: lv[i] is lv[i + 1]'s derived table */
  const lm_cte *via[LAZY_MAX];
  int n;
  bool filtered; /* a level has a WHERE: the levels run over the rows */
  int64_t need;  /* LIMIT + OFFSET of lv[n - 1] */
  int64_t got;   /* rows that reached lv[n - 1] so far */
  bool done;     /* got >= need */
} lazy;

/* Every reader of a recursive query, each a chain (n = 0: none, or a
 * reader that needs every row: the recursion runs to its end). */
typedef struct lazyset {
  lazy ch[LAZY_CHAINS];
  int n;
} lazyset;

/* Where a SELECT sits in the query (locate). */
typedef enum lkind {
  LK_NONE = 0,
  LK_DERIVED, /* parent's FROM is it alone */
  LK_EXPR,    /* a subquery expression's query (expr) */
  LK_CTE,     /* the query of the top WITH query cte */
  LK_OTHER,   /* a join operand, set operand, nested WITH query, ... */
} lkind;

typedef struct loc {
  const lm_select *child;
  lkind kind;
  const lm_select *parent;
  const lm_expr *expr;
  const lm_expr *up; /* LK_EXPR: the expression holding expr, or NULL */
  int cte;
} loc;

static void l_select(loc *l, const lm_select *s, const lm_select *top,
                     int depth);

static void l_expr(loc *l, const lm_expr *e, int depth) {
  if (!e || l->kind || depth > 500)
    return;
  if (e->kind == LM_EXPR_SUBQUERY && e->subquery) {
    if (e->subquery == l->child) {
      l->kind = LK_EXPR;
      l->expr = e;
      return;
    }
    l_select(l, e->subquery, NULL, depth + 1);
  }
  for (int i = 0; i < e->n_args; i++) {
    l_expr(l, e->args[i], depth + 1);
    if (l->kind == LK_EXPR && !l->up && l->expr == e->args[i])
      l->up = e;
  }
  l_expr(l, e->filter, depth + 1);
  for (int i = 0; i < e->n_partition_by; i++)
    l_expr(l, e->partition_by[i], depth + 1);
  for (int i = 0; i < e->n_over_order; i++)
    l_expr(l, e->over_order[i].expr, depth + 1);
  for (int i = 0; i < e->n_agg_order; i++)
    l_expr(l, e->agg_order[i].expr, depth + 1);
}

static void l_from(loc *l, const lm_from *f, int depth) {
  if (!f || l->kind || depth > 500)
    return;
  if (f->kind == LM_FROM_SUBQUERY) {
    if (f->subquery == l->child)
      l->kind = LK_OTHER; /* in a join: not alone */
    else
      l_select(l, f->subquery, NULL, depth + 1);
  } else if (f->kind == LM_FROM_FUNCTION) {
    for (int i = 0; i < f->n_funcs; i++)
      l_expr(l, f->funcs[i], depth + 1);
  } else if (f->kind == LM_FROM_JOIN) {
    l_from(l, f->left, depth + 1);
    l_from(l, f->right, depth + 1);
    l_expr(l, f->on, depth + 1);
    l_expr(l, f->match, depth + 1);
    l_expr(l, f->system_time, depth + 1);
  }
}

/* Finds l->child in s (top: the query whose WITH queries are the top
 * ones, LK_CTE). */
static void l_select(loc *l, const lm_select *s, const lm_select *top,
                     int depth) {
  if (!s || l->kind || depth > 500)
    return;
  for (int i = 0; i < s->n_ctes && !l->kind; i++) {
    if (s->ctes[i].query == l->child) {
      l->kind = s == top ? LK_CTE : LK_OTHER;
      l->cte = i;
      return;
    }
    l_select(l, s->ctes[i].query, NULL, depth + 1);
  }
  if (s->set_left == l->child || s->set_right == l->child) {
    l->kind = LK_OTHER;
    return;
  }
  l_select(l, s->set_left, NULL, depth + 1);
  l_select(l, s->set_right, NULL, depth + 1);
  if (s->from_clause && s->from_clause->kind == LM_FROM_SUBQUERY &&
      s->from_clause->subquery == l->child) {
    l->kind = LK_DERIVED;
    l->parent = s;
    return;
  }
  l_from(l, s->from_clause, depth + 1);
  for (int i = 0; i < s->n_items; i++)
    l_expr(l, s->items[i].expr, depth + 1);
  l_expr(l, s->where, depth + 1);
  for (int i = 0; i < s->n_group_by; i++)
    l_expr(l, s->group_by[i], depth + 1);
  l_expr(l, s->having, depth + 1);
  for (int i = 0; i < s->n_order_by; i++)
    l_expr(l, s->order_by[i].expr, depth + 1);
  l_expr(l, s->limit_expr, depth + 1);
  l_expr(l, s->offset_expr, depth + 1);
  for (int i = 0; s->values && i < s->n_values; i++)
    for (int j = 0; j < s->n_value_cols; j++)
      l_expr(l, s->values[i][j], depth + 1);
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

/* The references to `name` in sel's body and WITH queries other than
 * skip, in any context, into w (w->n_refs; at most LAZY_CHAINS recorded,
 * the readers as in sel). */
static void refs_of(const lm_select *sel, const char *name, int skip, walk *w) {
  memset(w, 0, sizeof *w);
  w->name = name;
  w->collect = true;
  lm_select body = *sel;
  body.ctes = NULL;
  body.n_ctes = 0;
  w_select(w, &body, RC_OK, 0);
  for (int j = 0; j < sel->n_ctes; j++)
    if (j != skip)
      w_select(w, sel->ctes[j].query, RC_OK, 0);
  for (int i = 0; i < w->n_refs && i < LAZY_CHAINS; i++)
    if (w->readers[i] == &body)
      w->readers[i] = sel;
}

/* Follows chain z (its first z->n levels known) up from level s, which
 * reads them (FROM alone); each path ending in a LIMIT, EXISTS or scalar
 * subquery is added to set; *ok = false for a path that needs every row.
 * May compute a LIMIT's subquery. */
static int lazy_up(laminar_db *db, const lm_select *sel, lazyset *set, lazy z,
                   const lm_select *s, bool *ok, int depth, lm_error *err) {
  for (; *ok; z.n++) {
    if (z.n >= LAZY_MAX || depth > 8 || !streaming(s)) {
      *ok = false;
      return 0;
    }
    z.lv[z.n] = s;
    z.via[z.n] = NULL;
    z.filtered = z.filtered || s->where;
    bool lim = s->limit >= 0 || s->limit_expr;
    loc l;
    memset(&l, 0, sizeof l);
    if (!lim) {
      l.child = s;
      l_select(&l, sel, sel, 0);
    }
    /* EXISTS stops at its first row, a scalar subquery at its second
     * (the error) */
    bool ex = l.kind == LK_EXPR && l.expr->subq == LM_SUBQ_EXISTS;
    bool sc = l.kind == LK_EXPR && l.expr->subq == LM_SUBQ_SCALAR &&
              !(l.up && l.up->kind == LM_EXPR_FUNC && l.up->name &&
                !strcmp(l.up->name, "__array_sub")); /* ARRAY(SELECT) */
    if (!lim && !ex && !sc && (s->offset > 0 || s->offset_expr)) {
      *ok = false;
      return 0;
    }
    if (lim || ex || sc) {
      if (expr_reads_ctes(sel, s->limit_expr) ||
          expr_reads_ctes(sel, s->offset_expr)) {
        *ok = false;
        return 0;
      }
      if (s->limit_expr || s->offset_expr) {
        int rc = lm_engine_limit_resolve(db, s, err);
        if (rc && s == sel)
          return rc;
        if (rc) { /* reads an outer query's column: it runs later */
          lm_err_clear(err);
          *ok = false;
          return 0;
        }
      }
      int64_t off = s->offset > 0 ? s->offset : 0;
      int64_t lt = ex ? 1 : sc ? 2 : s->limit;
      if (lim && s->limit >= 0 && s->limit < lt)
        lt = s->limit;
      if (lt < 0 || lt > INT64_MAX - off || set->n == LAZY_CHAINS ||
          (z.filtered && lm_xt_on())) { /* EXPLAIN's trace has no room
                                         * for the levels' runs */
        *ok = false;
        return 0;
      }
      z.need = lt + off;
      z.n++;
      set->ch[set->n++] = z;
      return 0;
    }
    if (l.kind == LK_DERIVED) {
      s = l.parent;
      continue;
    }
    if (l.kind != LK_CTE) {
      *ok = false;
      return 0;
    }
    /* a WITH query: each of its readers continues the chain */
    const lm_cte *c = &sel->ctes[l.cte];
    z.via[z.n] = c;
    z.n++;
    walk w;
    refs_of(sel, c->name, l.cte, &w);
    if (!w.n_refs || w.n_refs > LAZY_CHAINS) {
      *ok = false;
      return 0;
    }
    for (int i = 0; i < w.n_refs && *ok; i++) {
      if (w.readers[i]->from_clause != w.refs[i]) {
        *ok = false;
        return 0;
      }
      int rc = lazy_up(db, sel, set, z, w.readers[i], ok, depth + 1, err);
      if (rc)
        return rc;
    }
    return 0;
  }
  return 0;
}

/* Finds the lazy consumers of sel's recursive WITH query k: every
 * reference must be read by a chain (set->n = 0: not all are; the
 * recursion then runs to its end). May compute a LIMIT's subquery. */
static int find_lazy(laminar_db *db, const lm_select *sel, int k, lazyset *set,
                     lm_error *err) {
  set->n = 0;
  walk w;
  refs_of(sel, sel->ctes[k].name, k, &w);
  if (!w.n_refs || w.n_refs > LAZY_CHAINS)
    return 0;
  bool ok = true;
  for (int i = 0; i < w.n_refs && ok; i++) {
    if (w.readers[i]->from_clause != w.refs[i]) {
      ok = false;
      break;
    }
    lazy z;
    memset(&z, 0, sizeof z);
    int rc = lazy_up(db, sel, set, z, w.readers[i], &ok, 0, err);
    if (rc) {
      set->n = 0;
      return rc;
    }
  }
  if (!ok)
    set->n = 0;
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

/* The working table's DECIMAL types of recursive query c, as PostgreSQL's
 * numeric (no precision, a scale per value) within Decimal128: every
 * DECIMAL column of *b becomes DECIMAL(38, s), s the larger of its own
 * scale and that of the recursive term's rows r in the same column (r
 * NULL: its own). *b is replaced (a new reference) and *changed set when a
 * type changes; a value beyond 38 digits at the new scale is 22003 at the
 * non-recursive term's item. */
static int dec_widen(const lm_cte *c, lm_batch **b, const lm_batch *r,
                     bool *changed, lm_error *err) {
  const lm_schema *is = (*b)->schema;
  int nf = is->n_fields;
  bool any = false;
  for (int i = 0; i < nf; i++) {
    lm_type t = is->fields[i].type, u = t;
    /* numeric(p,s) in the non-recursive term stays (recursive_typmod.c) */
    if (t.id != LM_TYPE_DECIMAL128 || lm_recursive_typmod_fixed_dec(c, i))
      continue;
    if (r && i < r->schema->n_fields &&
        r->schema->fields[i].type.id == LM_TYPE_DECIMAL128 &&
        r->schema->fields[i].type.scale > u.scale)
      u.scale = r->schema->fields[i].type.scale;
    any |= !lm_type_eq(t, lm_type_decimal128(38, u.scale));
  }
  if (!any)
    return 0;
  lm_schema *s = lm_schema_new(nf);
  lm_array **cols = calloc((size_t)nf + 1, sizeof *cols);
  int rc = s && cols ? 0 : nomem(err);
  for (int i = 0; !rc && i < nf; i++) {
    lm_type t = is->fields[i].type;
    if (t.id == LM_TYPE_DECIMAL128 && !lm_recursive_typmod_fixed_dec(c, i)) {
      int sc = t.scale;
      if (r && i < r->schema->n_fields &&
          r->schema->fields[i].type.id == LM_TYPE_DECIMAL128 &&
          r->schema->fields[i].type.scale > sc)
        sc = r->schema->fields[i].type.scale;
      t = lm_type_decimal128(38, sc);
    }
    rc = lm_schema_set_field(s, i, is->fields[i].name, t,
                             is->fields[i].nullable);
    if (!rc && is->fields[i].timezone)
      rc = lm_schema_set_timezone(s, i, is->fields[i].timezone);
    if (!rc && is->mods)
      rc = lm_schema_set_typmod(s, i, lm_schema_typmod(is, i));
    if (rc)
      break;
    if (lm_type_eq(t, is->fields[i].type)) {
      cols[i] = lm_array_retain((*b)->columns[i]);
      continue;
    }
    lm_bexpr at; /* a 22003 names the non-recursive term's item */
    memset(&at, 0, sizeof at);
    item_pos(c->query->set_left, i, &at.line, &at.column);
    at.type = t;
    rc = lm_cast_items(&at, (*b)->columns[i], t, &cols[i], err);
  }
  lm_batch *o = NULL;
  if (!rc) {
    o = lm_batch_new(lm_schema_retain(s), (*b)->num_rows, cols);
    rc = o ? 0 : nomem(err);
  } else {
    for (int i = 0; cols && i < nf; i++)
      lm_array_release(cols[i]);
  }
  free(cols);
  lm_schema_release(s);
  if (rc)
    return rc;
  lm_batch_release(*b);
  *b = o;
  *changed = true;
  return 0;
}

/* Run `n` of recursive query c: its rows r cast to the working table's
 * schema ws (*out, a new reference). */
static int conform(const lm_cte *c, const lm_schema *ws, lm_batch *first,
                   lm_batch *r, lm_batch **out, lm_error *err) {
  bool same = r->schema->n_fields == ws->n_fields;
  for (int i = 0; same && i < ws->n_fields; i++)
    same = lm_type_eq(ws->fields[i].type, r->schema->fields[i].type) ||
           dec_fits(ws->fields[i].type, r->schema->fields[i].type) ||
           (!r->num_rows && /* no row to need the scale (dec_rescale) */
            dec_fits(r->schema->fields[i].type, ws->fields[i].type));
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
    if (a.id == LM_TYPE_DECIMAL128 && b.id == LM_TYPE_DECIMAL128) {
      snprintf(ta, sizeof ta, "numeric(%d,%d)", a.precision, a.scale);
      snprintf(tb, sizeof tb, "numeric(%d,%d)", b.precision, b.scale);
    }
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

/* The recursive term as an inner equi-join of the working table and one
 * other relation (`SELECT ... FROM e JOIN w ON e.parent = w.id`, either
 * order, or `FROM e, w WHERE e.parent = w.id`): the other relation's rows
 * and their hash on the join keys are built once, at the second iteration
 * (PostgreSQL's hash join keeps its hash table across iterations too), and
 * each iteration probes them with the working table; the joined rows then
 * go through the residual, WHERE and the select list. The rows come in the
 * order the query path gives (setop.c joins the smaller relation first, the
 * first written on a tie; the other one's rows then come in order, each
 * with its matches in their order). Other terms: jt->plan NULL. */
typedef struct jterm {
  lm_plan *plan;     /* the term over the joined rows (plan->join) */
  int ws;            /* the join side that is the working table */
  lm_batch *other;   /* the other side's rows, as entering the join */
  lm_aggtable *hash; /* their keys (rows with a NULL key left out) */
  int64_t *start;    /* group g's rows: rows[start[g] .. start[g + 1]) */
  int32_t *rows;
  int64_t n_raw; /* the other relation's rows */
  bool w_left;   /* the working table is written first in FROM */
} jterm;

static void jterm_free(jterm *jt) {
  lm_plan_free(jt->plan);
  lm_batch_release(jt->other);
  lm_aggtable_free(jt->hash);
  free(jt->start);
  free(jt->rows);
  memset(jt, 0, sizeof *jt);
}

/* The rows of relation `name`, as one batch (*out, a new reference). */
static int jterm_rows(laminar_db *db, const lm_join_input *ji, lm_batch **out,
                      lm_error *err) {
  lm_expr star;
  lm_select_item it;
  lm_select ss;
  lm_sql_select_star(&ss, &it, &star, ji->name, ji->line, ji->column);
  return run_one(db, &ss, out, err);
}

/* Whether select-list / WHERE of q qualify (row-wise, no grouping,
 * ordering or limit) and its FROM is `a JOIN b` or `a, b` of two
 * relations named. */
static bool jterm_shape(const lm_select *q) {
  const lm_from *f = q->from_clause;
  if (q->setop || q->values || q->distinct || q->n_distinct_on ||
      q->n_group_by || q->n_group_elems || q->having || q->n_order_by ||
      q->n_windows || q->limit >= 0 || q->limit_expr || q->offset > 0 ||
      q->offset_expr || q->emit || !f || f->kind != LM_FROM_JOIN ||
      (f->join != LM_SQL_JOIN_INNER && f->join != LM_SQL_JOIN_CROSS) ||
      f->asof || f->system_time || f->match || !f->left || !f->right ||
      f->left->kind != LM_FROM_TABLE || f->right->kind != LM_FROM_TABLE ||
      !row_local(q->where, 0) || !row_local(f->on, 0))
    return false;
  for (int i = 0; i < q->n_items; i++)
    if (!row_local(q->items[i].expr, 0))
      return false;
  return true;
}

/* Plans term q of recursive query c over working table wk (its rows are
 * pushed as the worktable while planning) and builds the other side's
 * hash; leaves jt->plan NULL when q does not qualify (any error is
 * cleared: the term then runs as a query). */
static void jterm_init(laminar_db *db, const lm_cte *c, const lm_select *q,
                       lm_batch *wk, jterm *jt) {
  memset(jt, 0, sizeof *jt);
  if (!jterm_shape(q))
    return;
  lm_error e;
  memset(&e, 0, sizeof e);
  int base = db->n_temps;
  if (lm_engine_temp_push(db, c->name, lm_batch_retain(wk), false, &e)) {
    lm_err_clear(&e);
    return;
  }
  db->temps[db->n_temps - 1]->worktable = true;
  lm_join_ctx jc = {db, NULL, 0, 0};
  lm_plan *p = NULL;
  int rc = lm_plan_join_select(q, lm_engine_join_resolve, &jc, true, 0, &p, &e);
  free(jc.nodes);
  lm_engine_temps_pop(db, base);
  const lm_join_plan *jp = rc ? NULL : p->join;
  const lm_join_step *st = jp && jp->n_steps == 1 ? &jp->steps[0] : NULL;
  int ws = -1;
  for (int i = 0; st && i < 2; i++)
    if (jp->inputs[i].name && !jp->inputs[i].subquery &&
        !jp->inputs[i].nested && !strcmp(jp->inputs[i].name, c->name))
      ws = ws < 0 ? i : 2;
  if (rc || !st || jp->n_inputs != 2 || ws < 0 || ws > 1 ||
      !jp->inputs[1 - ws].name || jp->inputs[1 - ws].subquery ||
      jp->inputs[1 - ws].nested || st->type != LM_PJOIN_INNER ||
      st->algo != LM_PJOIN_UPDATING || st->n_keys < 1 || st->swapped ||
      st->out_changelog || st->side_changelog[0] || st->side_changelog[1] ||
      st->dyn || st->n_keys > 64 ||
      st->out_schema->n_fields !=
          st->side_schema[0]->n_fields + st->side_schema[1]->n_fields ||
      p->has_agg || p->n_keys || p->n_aggs || p->topn || p->n_sort ||
      p->limit >= 0 || p->offset > 0 || p->distinct || p->n_distinct_on ||
      p->n_agg_order || p->n_tfilter || p->n_out != p->out_schema->n_fields) {
    lm_err_clear(&e);
    lm_plan_free(p);
    return;
  }
  jt->plan = p;
  jt->ws = ws;
  const lm_from *fl = q->from_clause->left;
  jt->w_left = fl->name && !strcmp(fl->name, c->name);
  int o = 1 - ws;
  /* the other side's rows, hashed once */
  lm_batch *raw = NULL;
  rc = jterm_rows(db, &jp->inputs[o], &raw, &e);
  if (!rc && st->n_proj[o])
    rc = lm_project(st->proj[o], st->n_proj[o], st->side_schema[o], raw,
                    &jt->other, &e);
  else if (!rc)
    jt->other = lm_batch_retain(raw);
  jt->n_raw = raw ? raw->num_rows : 0;
  lm_batch_release(raw);
  int nk = st->n_keys;
  lm_type types[64];
  lm_array *keys[64];
  for (int k = 0; !rc && k < nk; k++) {
    keys[k] = jt->other->columns[st->keys[o][k]];
    types[k] = keys[k]->type;
  }
  int64_t n = rc ? 0 : jt->other->num_rows;
  int32_t *sel = rc ? NULL : malloc(sizeof *sel * (size_t)(n + 1));
  uint32_t *g = rc ? NULL : malloc(sizeof *g * (size_t)(n + 1));
  if (!rc)
    jt->hash = lm_aggtable_new(nk, types, 0, NULL);
  if (!rc && (!sel || !g || !jt->hash))
    rc = LM_ERR_NOMEM;
  int64_t m = 0; /* a NULL key matches nothing */
  for (int64_t i = 0; !rc && i < n; i++) {
    bool null = false;
    for (int k = 0; k < nk && !null; k++)
      null = lm_array_is_null(keys[k], i);
    if (!null)
      sel[m++] = (int32_t)i;
  }
  if (!rc && n > INT32_MAX)
    rc = LM_ERR_NOMEM;
  if (!rc)
    rc = lm_aggtable_lookup(jt->hash, keys, sel, m, g, &e);
  int64_t ng = rc ? 0 : lm_aggtable_groups(jt->hash);
  if (!rc) {
    jt->start = calloc((size_t)ng + 2, sizeof *jt->start);
    jt->rows = malloc(sizeof *jt->rows * (size_t)(m + 1));
    if (!jt->start || !jt->rows)
      rc = LM_ERR_NOMEM;
  }
  for (int64_t j = 0; !rc && j < m; j++)
    jt->start[g[j] + 2]++;
  for (int64_t x = 0; !rc && x < ng; x++)
    jt->start[x + 2] += jt->start[x + 1];
  for (int64_t j = 0; !rc && j < m; j++) /* in row order within a group */
    jt->rows[jt->start[g[j] + 1]++] = sel[j];
  free(sel);
  free(g);
  if (rc) {
    lm_err_clear(&e);
    jterm_free(jt);
  }
}

typedef struct jpair {
  int32_t o, w; /* the other side's row, the working table's */
} jpair;

static int jpair_cmp(const void *a, const void *b) {
  const jpair *x = a, *y = b;
  if (x->o != y->o)
    return x->o < y->o ? -1 : 1;
  return (x->w > y->w) - (x->w < y->w);
}

/* Runs join term jt over working table w into *out (a new batch). */
static int jterm_run(const jterm *jt, lm_batch *w, lm_batch **out,
                     lm_error *err) {
  const lm_join_step *st = &jt->plan->join->steps[0];
  int ws = jt->ws, o = 1 - ws, nk = st->n_keys;
  lm_batch *wp = NULL;
  int rc = 0;
  if (st->n_proj[ws])
    rc = lm_project(st->proj[ws], st->n_proj[ws], st->side_schema[ws], w, &wp,
                    err);
  else
    wp = lm_batch_retain(w);
  if (rc)
    return rc;
  int64_t n = wp->num_rows;
  lm_array *keys[64];
  for (int k = 0; k < nk; k++)
    keys[k] = wp->columns[st->keys[ws][k]];
  uint32_t *g = malloc(sizeof *g * (size_t)(n + 1));
  jpair *pr = NULL;
  int64_t np = 0, cap = 0;
  if (!g)
    rc = nomem(err);
  if (!rc)
    rc = lm_aggtable_find(jt->hash, keys, NULL, n, g, err);
  for (int64_t i = 0; !rc && i < n; i++) {
    if (g[i] == UINT32_MAX)
      continue;
    int64_t a = jt->start[g[i]], b = jt->start[g[i] + 1];
    if (np + (b - a) > cap) {
      int64_t nc = cap ? cap * 2 : 1024;
      while (nc < np + (b - a))
        nc *= 2;
      jpair *q = nc < INT32_MAX ? realloc(pr, sizeof *pr * (size_t)nc) : NULL;
      if (!q) {
        rc = nomem(err);
        break;
      }
      pr = q;
      cap = nc;
    }
    for (int64_t j = a; j < b; j++)
      pr[np++] = (jpair){jt->rows[j], (int32_t)i};
  }
  free(g);
  /* the working table first: the other side's rows, each with its
   * matches */
  if (!rc && np > 1 && (n < jt->n_raw || (n == jt->n_raw && jt->w_left)))
    qsort(pr, (size_t)np, sizeof *pr, jpair_cmp);
  int32_t *io = NULL, *iw = NULL;
  if (!rc) {
    io = malloc(sizeof *io * (size_t)(np + 1));
    iw = malloc(sizeof *iw * (size_t)(np + 1));
    if (!io || !iw)
      rc = nomem(err);
  }
  for (int64_t i = 0; !rc && i < np; i++) {
    io[i] = pr[i].o;
    iw[i] = pr[i].w;
  }
  free(pr);
  lm_batch *to = rc ? NULL : lm_batch_take(jt->other, io, np);
  lm_batch *tw = rc ? NULL : lm_batch_take(wp, iw, np);
  free(io);
  free(iw);
  lm_batch_release(wp);
  if (!rc && (!to || !tw))
    rc = nomem(err);
  lm_batch *j = NULL;
  if (!rc) {
    const lm_batch *sd[2];
    sd[o] = to;
    sd[ws] = tw;
    int n0 = sd[0]->num_columns, n1 = sd[1]->num_columns;
    lm_array **cols = calloc((size_t)(n0 + n1) + 1, sizeof *cols);
    if (!cols)
      rc = nomem(err);
    for (int i = 0; !rc && i < n0 + n1; i++)
      cols[i] =
          lm_array_retain(i < n0 ? sd[0]->columns[i] : sd[1]->columns[i - n0]);
    if (!rc) {
      j = lm_batch_new(lm_schema_retain(st->out_schema), np, cols);
      if (!j)
        rc = nomem(err);
    }
    free(cols);
  }
  lm_batch_release(to);
  lm_batch_release(tw);
  lm_batch *f = NULL, *f2 = NULL;
  if (!rc)
    rc = lm_batch_where(st->residual, j, &f, err);
  if (!rc)
    rc = lm_batch_where(jt->plan->where, f, &f2, err);
  if (!rc)
    rc = lm_project(jt->plan->out, jt->plan->n_out, jt->plan->out_schema, f2,
                    out, err);
  lm_batch_release(j);
  lm_batch_release(f);
  lm_batch_release(f2);
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

/* The recursive term's rows r need a larger DECIMAL scale than the
 * working table's (`f + 0.5` over `1::numeric`): the first working table
 * *first and the rows so far acc[0, n_acc) take the wider types
 * (dec_widen, each replaced), the UNION's rows seen (*seen, types) are
 * held again at them and the term's plan is dropped (*replan: plan it
 * again). Errors: dec_widen's, out of memory. */
static int dec_rescale(const lm_cte *c, const lm_batch *r, lm_batch **first,
                       lm_batch **acc, int n_acc, lm_aggtable **seen,
                       lm_type *types, lm_plan **plan, bool *replan,
                       lm_error *err) {
  bool changed = false;
  if (!r->num_rows) /* the scale of rows that are not there */
    return 0;
  int rc = dec_widen(c, first, r, &changed, err);
  if (rc || !changed)
    return rc;
  for (int i = 0; !rc && i < n_acc; i++)
    rc = dec_widen(c, &acc[i], r, &changed, err);
  if (!rc && *seen) {
    int nf = (*first)->schema->n_fields;
    lm_aggtable_free(*seen);
    for (int i = 0; i < nf; i++)
      types[i] = (*first)->schema->fields[i].type;
    *seen = lm_aggtable_new(nf, types, 0, NULL);
    rc = *seen ? 0 : nomem(err);
    for (int i = 0; !rc && i < n_acc; i++) {
      lm_batch *b = lm_batch_retain(acc[i]); /* all of them new */
      rc = fresh_rows(*seen, &b, err);
      lm_batch_release(b);
    }
  }
  lm_plan_free(*plan);
  *plan = NULL;
  *replan = true;
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

/* The first column reference of e (outside subqueries, in PostgreSQL's
 * order) to a name in dup[0..n) — unqualified or qualified by qual. */
static const lm_expr *sc_dup_ref(const lm_expr *e, const char *const *dup,
                                 int n, const char *qual, int depth) {
  if (!e || depth > 500 || e->kind == LM_EXPR_SUBQUERY)
    return NULL;
  if (e->kind == LM_EXPR_COLUMN && e->name &&
      (!e->table || (qual && !strcmp(e->table, qual))))
    for (int i = 0; i < n; i++)
      if (!strcmp(e->name, dup[i]))
        return e;
  for (int i = 0; i < e->n_args; i++) {
    const lm_expr *r = sc_dup_ref(e->args[i], dup, n, qual, depth + 1);
    if (r)
      return r;
  }
  return sc_dup_ref(e->filter, dup, n, qual, depth + 1);
}

static const lm_expr *sc_dup_from(const lm_from *f, const char *const *dup,
                                  int n, const char *qual, int depth) {
  if (!f || depth > 500 || f->kind != LM_FROM_JOIN)
    return NULL;
  const lm_expr *r = sc_dup_from(f->left, dup, n, qual, depth + 1);
  if (!r)
    r = sc_dup_from(f->right, dup, n, qual, depth + 1);
  return r ? r : sc_dup_ref(f->on, dup, n, qual, depth + 1);
}

/* PostgreSQL analyses the recursive term with the SEARCH / CYCLE columns
 * after the query's own (ws): a reference there to a name the columns
 * then hold twice (`SEARCH ... SET n` where n is a column) is 42702
 * "column reference "n" is ambiguous", before the clauses' own checks. */
static int sc_ambiguous(const lm_cte *c, const lm_schema *ws, lm_error *err) {
  const char *names[3];
  int k = 0;
  if (c->n_search_cols)
    names[k++] = c->search_seq;
  if (c->n_cycle_cols) {
    names[k++] = c->cycle_mark;
    names[k++] = c->cycle_path;
  }
  const char *dup[3];
  int nd = 0;
  for (int i = 0; i < k; i++) {
    bool twice = sc_col(ws, ws->n_fields, names[i]) >= 0;
    for (int j = 0; j < k && !twice; j++)
      twice = j != i && !strcmp(names[j], names[i]);
    if (twice)
      dup[nd++] = names[i];
  }
  const lm_select *r = c->query->set_right;
  if (!nd || r->setop || r->values)
    return 0;
  const lm_from *ref = sc_ref(r->from_clause, c->name, 0);
  const char *qual = ref ? (ref->alias ? ref->alias : ref->name) : c->name;
  const lm_expr *e = sc_dup_from(r->from_clause, dup, nd, qual, 0);
  for (int i = 0; !e && i < r->n_items; i++)
    e = sc_dup_ref(r->items[i].expr, dup, nd, qual, 0);
  if (!e)
    e = sc_dup_ref(r->where, dup, nd, qual, 0);
  for (int i = 0; !e && i < r->n_group_by; i++)
    e = sc_dup_ref(r->group_by[i], dup, nd, qual, 0);
  if (!e)
    e = sc_dup_ref(r->having, dup, nd, qual, 0);
  if (!e)
    return 0;
  return pos_err(err, e->line, e->column, "42702",
                 "column reference \"%s\" is ambiguous", e->name);
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
  int arc = sc_ambiguous(c, ws, err);
  if (arc)
    return arc;
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
    return pos_err(err, sl, sc, "42601",
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
      return pos_err(err, cl, cc, "42601",
                     "cycle mark column name \"%s\" already used in WITH "
                     "query column list",
                     c->cycle_mark);
    if (sc_col(ws, ws->n_fields, c->cycle_path) >= 0)
      return pos_err(err, cl, cc, "42601",
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
 * it stops early once every lazy consumer of z (z->n > 0) has its rows. */
static int run_recursive(laminar_db *db, const lm_cte *c, lazyset *z,
                         lm_error *err) {
  int rc = 0;
  lm_xt_next_role(LM_XT_CTE, c->name, NULL); /* EXPLAIN's trace */
  lm_xt *frame = lm_xt_open();
  lm_batch *w = NULL, *first = NULL;
  lm_batch **acc = NULL;
  int n_acc = 0, cap_acc = 0, n_chunks = 0, iters = 0;
  term t = {NULL};
  jterm jt;
  memset(&jt, 0, sizeof jt);
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
  if (!rc) { /* numeric(10,2) anchors the recursive term widens: 42804 */
    bool *fixed = calloc((size_t)w->schema->n_fields + 1, sizeof *fixed);
    rc = fixed ? lm_recursive_typmod_check(c, w->schema, fixed, err)
               : nomem(err);
    free(fixed);
  }
  bool replan = false; /* DECIMAL: 38 digits, a larger scale (dec_widen) */
  if (!rc)
    rc = dec_widen(c, &w, NULL, &replan, err);
  replan = false;
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
      if (z->n) { /* each chain not yet satisfied reads the new rows */
        bool all = true;
        for (int i = 0; i < z->n && !rc; i++) {
          lazy *ch = &z->ch[i];
          if (ch->done)
            continue;
          rc = lazy_feed(db, c, ch, w, &ch->done, err);
          if (!ch->n) { /* a level does not run alone: every row */
            z->n = 0;
            all = false;
            break;
          }
          all = all && ch->done;
        }
        if (rc || (z->n && all))
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
    if ((iters == 1 || replan) && !lm_xt_on()) /* after a first run as a
                                                * query */
      term_init(c, rterm, wk->schema, &t);
    if ((iters == 1 || replan) && !lm_xt_on() && !t.plan) { /* a join */
      jterm_free(&jt);
      jterm_init(db, c, rterm, wk, &jt);
    }
    replan = false;
    if (t.plan) {
      rc = term_run(&t, wk, &r, err);
      lm_batch_release(wk);
    } else if (jt.plan) {
      rc = jterm_run(&jt, wk, &r, err);
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
      rc = dec_rescale(c, r, &first, acc, n_acc, &seen, types, &t.plan, &replan,
                       err);
      if (!rc)
        rc = conform(c, first->schema, first, r, &n, err);
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
  jterm_free(&jt);
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
      lazyset *z = malloc(sizeof *z);
      rc = z ? check_form(c, err) : nomem(err);
      if (!rc)
        rc = find_lazy(db, sel, order[k], z, err);
      if (!rc)
        rc = run_recursive(db, c, z, err);
      free(z);
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
