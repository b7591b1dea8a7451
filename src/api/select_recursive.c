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
 * LM_RECURSIVE_MAX_BYTES (53200).
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
#include "exec/lm_exec.h"
#include "exec/lm_srf.h"
#include "exec/lm_strfn.h"
#include "plan/bind_internal.h"

/* The rows of one recursive query may take this many bytes at most. */
#define LM_RECURSIVE_MAX_BYTES ((int64_t)1 << 30)

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
    if (f->name && !lm_strcasecmp(f->name, w->name))
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
    if (!lm_strcasecmp(s->ctes[i].name, w->name))
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

/* How many rows of recursive WITH query `name` the body of sel needs when
 * it is a plain scan of it with a constant LIMIT (and OFFSET): LIMIT +
 * OFFSET; -1 when it may need them all. PostgreSQL runs the recursion
 * lazily, so `SELECT * FROM t LIMIT n` ends even when t's does not. */
static int64_t rows_needed(const lm_select *sel, const char *name) {
  if (sel->setop || sel->values || sel->distinct || sel->n_group_by ||
      sel->n_group_elems || sel->having || sel->where || sel->n_order_by ||
      sel->n_windows || sel->limit < 0 || sel->limit_expr || sel->offset_expr ||
      sel->limit_with_ties || !sel->from_clause ||
      sel->from_clause->kind != LM_FROM_TABLE || !sel->from_clause->name ||
      lm_strcasecmp(sel->from_clause->name, name))
    return -1;
  for (int i = 0; i < sel->n_items; i++)
    if (!row_local(sel->items[i].expr, 0))
      return -1;
  int64_t off = sel->offset > 0 ? sel->offset : 0;
  if (sel->limit > INT64_MAX - off)
    return -1;
  return sel->limit + off;
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

/* Run `n` of recursive query c: its rows r cast to the working table's
 * schema ws (*out, a new reference). */
static int conform(const lm_cte *c, const lm_schema *ws, lm_batch *first,
                   lm_batch *r, lm_batch **out, lm_error *err) {
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

/* Runs recursive WITH query c into a temporary relation of its name;
 * with UNION ALL it stops once it has `need` rows (>= 0; -1 = all). */
static int run_recursive(laminar_db *db, const lm_cte *c, int64_t need,
                         lm_error *err) {
  int rc = check_form(c, err);
  if (rc)
    return rc;
  lm_xt_next_role(LM_XT_CTE, c->name, NULL); /* EXPLAIN's trace */
  lm_xt *frame = lm_xt_open();
  lm_batch *w = NULL, *first = NULL;
  lm_batch **acc = NULL;
  int n_acc = 0, cap_acc = 0, iters = 0;
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
      if (n_acc == 256) { /* many small runs: one batch (less to allocate
                           * and free, and a cheaper concat at the end) */
        lm_batch *one = NULL;
        rc = lm_batch_concat(first->schema, acc, n_acc, &one, err);
        for (int i = 0; i < n_acc; i++)
          lm_batch_release(acc[i]);
        n_acc = 0;
        if (rc)
          break;
        acc[n_acc++] = one;
      }
      rows += w->num_rows;
      bytes += batch_bytes(w);
      if (bytes > LM_RECURSIVE_MAX_BYTES) {
        rc = pos_err(err, c->line, c->column, "53200",
                     "recursive query \"%s\" exceeded %lld MB of rows "
                     "after %d iterations",
                     c->name, (long long)(LM_RECURSIVE_MAX_BYTES >> 20), iters);
        break;
      }
      if (need >= 0 && rows >= need && c->query->set_all)
        break; /* the body reads no further (rows_needed) */
    }
    if (db->interrupted) {
      rc = lm_err(err, LM_ERR_BIND, "canceling statement due to user request");
      lm_err_state(err, "57014");
      break;
    }
    int base = db->n_temps;
    rc = lm_engine_temp_push(db, c->name, lm_batch_retain(w), false, err);
    if (rc)
      break;
    db->temps[db->n_temps - 1]->worktable = true;
    lm_batch *r = NULL;
    /* the first run is the one EXPLAIN shows */
    lm_xt_next_role(iters ? LM_XT_VALUES_ROW : LM_XT_OPERAND, NULL, NULL);
    rc = run_one(db, c->query->set_right, &r, err);
    lm_engine_temps_pop(db, base);
    iters++;
    lm_batch *n = NULL;
    if (!rc)
      rc = conform(c, w->schema, first, r, &n, err);
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
  /* EXPLAIN: the frame described as a Recursive Union, then closed */
  lm_xt_recursive_close(frame, rc, !c->query->set_all, iters, rows);
  if (!rc)
    rc = lm_engine_temp_push(db, c->name, all, false, err);
  else
    lm_batch_release(all);
  return rc;
}

/* ---------------------------------------------------------------- entry */

int lm_recursive_with(laminar_db *db, const lm_select *sel,
                      laminar_result **res, lm_error *err) {
  int n = sel->n_ctes, base = db->n_temps, rc = 0;
  *res = NULL;
  for (int i = 0; i < n && !rc; i++)
    for (int j = 0; j < i && !rc; j++)
      if (!lm_strcasecmp(sel->ctes[j].name, sel->ctes[i].name))
        rc = pos_err(err, sel->ctes[i].line, sel->ctes[i].column, "42712",
                     "WITH query name \"%s\" specified more than once",
                     sel->ctes[i].name);
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
      /* read by the body alone: it may need only its first rows */
      int64_t need = -1;
      bool alone = true;
      for (int j = 0; j < n; j++)
        alone = alone && !dep[j * n + order[k]];
      if (alone)
        need = rows_needed(sel, c->name);
      rc = run_recursive(db, c, need, err);
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
