/*
 * sql/row_expr.c — row constructors in comparisons (docs/subqueries.md),
 * rewritten by the parser into scalar expressions with PostgreSQL 15's
 * meaning:
 *
 *   (a, b) = (c, d)      a = c AND b = d
 *   (a, b) <> (c, d)     a <> c OR b <> d
 *   (a, b) < (c, d)      a < c OR (a = c AND b < d)   (<=, >, >= alike:
 *                        the first pair that is unequal or NULL decides)
 *   (a, b) IS [NOT] DISTINCT FROM (c, d)   per pair, OR (AND)
 *   (a, b) [NOT] IN ((1, 'x'), ...)        OR of the row equalities
 *   (a, b) [NOT] BETWEEN [SYMMETRIC] r AND s   row >= r AND row <= s, ...
 *   (a, b) IS [NOT] NULL   every field NULL (none NULL): a IS NULL AND ...
 *   (a, b) op (SELECT x, y ...)            each column a scalar subquery
 *   (a, b) [NOT] IN (SELECT x, y ...)      TRUE when a row equals, else
 *                        NULL when one compares NULL, else FALSE: two
 *                        EXISTS over the subquery's rows
 *
 * Row constructors are `ROW(...)` and a parenthesized list of two or more
 * expressions, both parsed as a call of "row". The three-valued logic of
 * AND / OR gives PostgreSQL's NULL rules exactly. Operand expressions are
 * shared by the nodes made (evaluated up to twice).
 */
#include <stdio.h>
#include <string.h>

#include "sql/sql_internal.h"

bool lm_sql_is_row(const lm_expr *e) {
  return e && e->kind == LM_EXPR_FUNC && e->name && !strcmp(e->name, "row") &&
         !e->over && !e->distinct && !e->filter;
}

typedef struct rw {
  lm_arena *a;
  lm_error *err;
  int line, column; /* of the operator */
} rw;

static int fail(rw *w, int line, int column, const char *state,
                const char *msg) {
  lm_err_at(w->err, LM_ERR_PARSE, line, column, "%s", msg);
  return lm_err_state(w->err, state);
}

static lm_expr *node(rw *w, lm_expr_kind k, const lm_expr *at, int n_args) {
  lm_expr *e = lm_arena_alloc(w->a, sizeof *e);
  if (!e)
    return NULL;
  memset(e, 0, sizeof *e);
  e->kind = k;
  e->line = at ? at->line : w->line;
  e->column = at ? at->column : w->column;
  if (n_args) {
    e->args = lm_arena_alloc(w->a, sizeof *e->args * (size_t)n_args);
    if (!e->args)
      return NULL;
    memset(e->args, 0, sizeof *e->args * (size_t)n_args);
    e->n_args = n_args;
  }
  return e;
}

static lm_expr *bin(rw *w, lm_op op, lm_expr *l, lm_expr *r) {
  if (!l || !r)
    return NULL;
  lm_expr *e = node(w, LM_EXPR_BINARY, l, 2);
  if (!e)
    return NULL;
  e->op = op;
  e->args[0] = l;
  e->args[1] = r;
  if (op != LM_OP_AND && op != LM_OP_OR) {
    e->op_line = w->line;
    e->op_column = w->column;
  }
  return e;
}

static lm_expr *not_of(rw *w, lm_expr *x) {
  lm_expr *e = x ? node(w, LM_EXPR_UNARY, x, 1) : NULL;
  if (!e)
    return NULL;
  e->op = LM_OP_NOT;
  e->args[0] = x;
  return e;
}

static lm_expr *lit_bool(rw *w, const lm_expr *at, int v /* -1 NULL */) {
  lm_expr *e = node(w, LM_EXPR_LITERAL, at, 0);
  if (!e)
    return NULL;
  e->lit = v < 0 ? LM_LIT_NULL : LM_LIT_BOOL;
  e->bval = v > 0;
  return e;
}

static lm_expr *is_null(rw *w, lm_expr *x, bool neg) {
  lm_expr *e = node(w, LM_EXPR_IS_NULL, x, 1);
  if (!e)
    return NULL;
  e->args[0] = x;
  e->negated = neg;
  return e;
}

/* a IS [NOT] DISTINCT FROM b for one pair (as the parser's distinct_from). */
static lm_expr *distinct1(rw *w, lm_expr *a, lm_expr *b, bool not ) {
  lm_expr *c = node(w, LM_EXPR_CASE, a, 5);
  if (!c)
    return NULL;
  c->args[0] = is_null(w, a, false);
  c->args[1] = is_null(w, b, !not );
  c->args[2] = is_null(w, b, false);
  c->args[3] = lit_bool(w, a, !not );
  c->args[4] = bin(w, not ? LM_OP_EQ : LM_OP_NE, a, b);
  c->has_else = true;
  for (int i = 0; i < 5; i++)
    if (!c->args[i])
      return NULL;
  return c;
}

/* The row comparison L op R over n pairs. */
static lm_expr *cmp_rows(rw *w, lm_op op, lm_expr **l, lm_expr **r, int n) {
  lm_expr *acc = NULL;
  if (op == LM_OP_EQ || op == LM_OP_NE) {
    for (int i = 0; i < n; i++) {
      lm_expr *c = bin(w, op, l[i], r[i]);
      acc = acc ? bin(w, op == LM_OP_EQ ? LM_OP_AND : LM_OP_OR, acc, c) : c;
      if (!acc)
        return NULL;
    }
    return acc;
  }
  lm_op strict = op == LM_OP_LE ? LM_OP_LT : op == LM_OP_GE ? LM_OP_GT : op;
  acc = bin(w, op, l[n - 1], r[n - 1]);
  for (int i = n - 2; acc && i >= 0; i--)
    acc = bin(w, LM_OP_OR, bin(w, strict, l[i], r[i]),
              bin(w, LM_OP_AND, bin(w, LM_OP_EQ, l[i], r[i]), acc));
  return acc;
}

/* The number of output columns of q when the parser can tell (a plain
 * select list without '*'), else -1. */
static int query_width(const lm_select *q) {
  while (q->setop)
    q = q->set_left;
  if (q->values)
    return q->n_value_cols;
  for (int i = 0; i < q->n_items; i++)
    if (q->items[i].expr->kind == LM_EXPR_STAR)
      return -1;
  return q->n_items;
}

static int check_width(rw *w, const lm_expr *sq, int n) {
  int k = query_width(sq->subquery);
  if (k < 0 || k == n)
    return 0;
  return fail(w, sq->line, sq->column, "42601",
              k < n ? "subquery has too few columns"
                    : "subquery has too many columns");
}

/* FROM (q) AS __row(__c1, ..., __cn) */
static lm_from *row_from(rw *w, lm_select *q, int n, const lm_expr *at) {
  lm_from *f = lm_arena_alloc(w->a, sizeof *f);
  const char **cols = lm_arena_alloc(w->a, sizeof *cols * (size_t)n);
  if (!f || !cols)
    return NULL;
  memset(f, 0, sizeof *f);
  f->kind = LM_FROM_SUBQUERY;
  f->line = at->line;
  f->column = at->column;
  f->subquery = q;
  f->alias = "__row";
  for (int i = 0; i < n; i++) {
    char nm[24];
    snprintf(nm, sizeof nm, "__c%d", i + 1);
    if (!(cols[i] = lm_arena_strndup(w->a, nm, strlen(nm))))
      return NULL;
  }
  f->col_aliases = cols;
  f->n_col_aliases = n;
  return f;
}

/* __row.__c<i+1> */
static lm_expr *row_col(rw *w, int i, const lm_expr *at) {
  lm_expr *e = node(w, LM_EXPR_COLUMN, at, 0);
  char nm[24];
  snprintf(nm, sizeof nm, "__c%d", i + 1);
  if (!e || !(e->name = lm_arena_strndup(w->a, nm, strlen(nm))))
    return NULL;
  e->table = "__row";
  return e;
}

/* A subquery expression of kind k over `SELECT items FROM (q) AS __row(..)
 * [WHERE where]`. */
static lm_expr *wrap(rw *w, lm_subq_kind k, lm_select *q, int n, lm_expr *item,
                     lm_expr *where, const lm_expr *at) {
  lm_select *s = lm_arena_alloc(w->a, sizeof *s);
  lm_select_item *it = lm_arena_alloc(w->a, sizeof *it);
  lm_from *f = row_from(w, q, n, at);
  lm_expr *e = node(w, LM_EXPR_SUBQUERY, at, 0);
  if (!s || !it || !f || !e || !item)
    return NULL;
  memset(s, 0, sizeof *s);
  s->line = at->line;
  s->column = at->column;
  it->expr = item;
  it->alias = NULL;
  s->items = it;
  s->n_items = 1;
  s->from_clause = f;
  s->from_subquery = q;
  s->from = q->from;
  s->from_alias = f->alias;
  s->from_line = at->line;
  s->from_column = at->column;
  s->where = where;
  s->limit = -1;
  e->subquery = s;
  e->subq = k;
  return e;
}

/* (a, b) [NOT] IN (SELECT ...): CASE WHEN EXISTS (rows equal) THEN TRUE
 * WHEN EXISTS (rows comparing NULL) THEN NULL ELSE FALSE END. */
static lm_expr *in_subquery(rw *w, lm_expr **l, int n, lm_expr *sq) {
  lm_expr **cols = lm_arena_alloc(w->a, sizeof *cols * (size_t)n);
  if (!cols)
    return NULL;
  for (int i = 0; i < n; i++)
    if (!(cols[i] = row_col(w, i, sq)))
      return NULL;
  lm_expr *eq = cmp_rows(w, LM_OP_EQ, cols, l, n);
  lm_expr *eq2 = cmp_rows(w, LM_OP_EQ, cols, l, n);
  lm_expr *one = node(w, LM_EXPR_LITERAL, sq, 0);
  if (!eq || !eq2 || !one)
    return NULL;
  one->lit = LM_LIT_INT;
  one->ival = 1;
  lm_expr *hit = wrap(w, LM_SUBQ_EXISTS, sq->subquery, n, one, eq, sq);
  lm_expr *unk =
      wrap(w, LM_SUBQ_EXISTS, sq->subquery, n, one, is_null(w, eq2, false), sq);
  lm_expr *c = node(w, LM_EXPR_CASE, sq, 5);
  if (!hit || !unk || !c)
    return NULL;
  c->args[0] = hit;
  c->args[1] = lit_bool(w, sq, 1);
  c->args[2] = unk;
  c->args[3] = lit_bool(w, sq, -1);
  c->args[4] = lit_bool(w, sq, 0);
  c->has_else = true;
  for (int i = 0; i < 5; i++)
    if (!c->args[i])
      return NULL;
  /* `AND TRUE`: the column is named ?column? as PostgreSQL's, not case */
  lm_expr *x = bin(w, LM_OP_AND, c, lit_bool(w, sq, 1));
  return sq->negated ? not_of(w, x) : x;
}

static bool is_cmp(lm_op op) {
  return op == LM_OP_EQ || op == LM_OP_NE || op == LM_OP_LT || op == LM_OP_LE ||
         op == LM_OP_GT || op == LM_OP_GE;
}

/* Scalar subqueries, one per column of sq's row. */
static lm_expr **row_of_subquery(rw *w, lm_expr *sq, int n) {
  lm_expr **v = lm_arena_alloc(w->a, sizeof *v * (size_t)n);
  if (!v)
    return NULL;
  for (int i = 0; i < n; i++)
    if (!(v[i] = wrap(w, LM_SUBQ_SCALAR, sq->subquery, n, row_col(w, i, sq),
                      NULL, sq)))
      return NULL;
  return v;
}

/* x op y for rows, expanded (lm_sql_row_expand); NULL with w->err set on
 * an error (rc in *rc). */
static lm_expr *row_cmp(rw *w, lm_op op, lm_expr *x, lm_expr *y, int *rc) {
  lm_expr *c = bin(w, op, x, y);
  if (!c) {
    *rc = lm_err(w->err, LM_ERR_NOMEM, "out of memory");
    return NULL;
  }
  c->op_line = w->line;
  c->op_column = w->column;
  if ((*rc = lm_sql_row_expand(w->a, &c, w->err)))
    return NULL;
  return c;
}

/* (a, b) [NOT] BETWEEN [SYMMETRIC] lo AND hi, PostgreSQL's rewrite:
 * x >= lo AND x <= hi (NOT: x < lo OR x > hi); SYMMETRIC also tries the
 * bounds swapped (OR; NOT: AND). Each comparison is a row comparison. */
static int row_between(rw *w, lm_expr **pe) {
  lm_expr *e = *pe, *x = e->args[0];
  int rc = 0;
  lm_expr *r[2] = {NULL, NULL};
  for (int k = 0; k < (e->symmetric ? 2 : 1); k++) {
    lm_expr *lo = e->args[1 + k], *hi = e->args[2 - k];
    lm_expr *a = row_cmp(w, e->negated ? LM_OP_LT : LM_OP_GE, x, lo, &rc);
    lm_expr *b =
        a ? row_cmp(w, e->negated ? LM_OP_GT : LM_OP_LE, x, hi, &rc) : NULL;
    if (!b)
      return rc;
    if (!(r[k] = bin(w, e->negated ? LM_OP_OR : LM_OP_AND, a, b)))
      return lm_err(w->err, LM_ERR_NOMEM, "out of memory");
  }
  lm_expr *out =
      r[1] ? bin(w, e->negated ? LM_OP_AND : LM_OP_OR, r[0], r[1]) : r[0];
  if (!out)
    return lm_err(w->err, LM_ERR_NOMEM, "out of memory");
  *pe = out;
  return 0;
}

int lm_sql_row_expand(lm_arena *a, lm_expr **pe, lm_error *err) {
  lm_expr *e = *pe;
  rw w = {a, err, e->op_line ? e->op_line : e->line,
          e->op_line ? e->op_column : e->column};
  lm_expr *out = NULL;
  if (e->kind == LM_EXPR_BINARY && is_cmp(e->op)) {
    lm_expr *l = e->args[0], *r = e->args[1];
    bool rl = lm_sql_is_row(l), rr = lm_sql_is_row(r);
    if (!rl && !rr)
      return 0;
    bool sl = l->kind == LM_EXPR_SUBQUERY && l->subq == LM_SUBQ_SCALAR;
    bool sr = r->kind == LM_EXPR_SUBQUERY && r->subq == LM_SUBQ_SCALAR;
    if ((rl && !rr && !sr) || (rr && !rl && !sl))
      return fail(&w, w.line, w.column, "42883",
                  "operator does not exist: record and a value that is not "
                  "a row");
    int n = rl ? l->n_args : r->n_args;
    if (rl && rr && l->n_args != r->n_args)
      return fail(&w, w.line, w.column, "42601",
                  "unequal number of entries in row expressions");
    int rc = sr ? check_width(&w, r, n) : sl ? check_width(&w, l, n) : 0;
    if (rc)
      return rc;
    lm_expr **lv = rl ? l->args : row_of_subquery(&w, l, n);
    lm_expr **rv = rr ? r->args : row_of_subquery(&w, r, n);
    out = lv && rv && n ? cmp_rows(&w, e->op, lv, rv, n) : NULL;
    if (!n)
      out = lit_bool(
          &w, e, e->op == LM_OP_EQ || e->op == LM_OP_LE || e->op == LM_OP_GE);
  } else if (e->kind == LM_EXPR_BETWEEN &&
             (lm_sql_is_row(e->args[0]) || lm_sql_is_row(e->args[1]) ||
              lm_sql_is_row(e->args[2]))) {
    return row_between(&w, pe);
  } else if (e->kind == LM_EXPR_IN && lm_sql_is_row(e->args[0])) {
    lm_expr *l = e->args[0];
    for (int i = 1; i < e->n_args; i++) {
      lm_expr *r = e->args[i];
      if (!lm_sql_is_row(r))
        return fail(&w, r->line, r->column, "42883",
                    "operator does not exist: record = a value that is not "
                    "a row");
      if (r->n_args != l->n_args)
        return fail(&w, r->line, r->column, "42601",
                    "unequal number of entries in row expressions");
      lm_expr *c = cmp_rows(&w, LM_OP_EQ, l->args, r->args, l->n_args);
      out = out ? bin(&w, LM_OP_OR, out, c) : c;
      if (!out)
        break;
    }
    if (out && e->negated)
      out = not_of(&w, out);
  } else if (e->kind == LM_EXPR_SUBQUERY && e->n_args == 1 &&
             lm_sql_is_row(e->args[0])) {
    lm_expr *l = e->args[0];
    bool in = (e->subq == LM_SUBQ_ANY && e->op == LM_OP_EQ) ||
              (e->subq == LM_SUBQ_ALL && e->op == LM_OP_NE);
    if (!in)
      return fail(&w, e->line, e->column, "0A000",
                  "a row compared with ANY / ALL (SELECT ...) is supported "
                  "for = ANY (IN) and <> ALL (NOT IN) only");
    int rc = check_width(&w, e, l->n_args);
    if (rc)
      return rc;
    bool neg = e->negated != (e->subq == LM_SUBQ_ALL);
    lm_expr sq = *e;
    sq.negated = neg;
    out = in_subquery(&w, l->args, l->n_args, &sq);
  } else if (e->kind == LM_EXPR_IS_NULL && e->booltest == 0 && e->n_args == 1 &&
             lm_sql_is_row(e->args[0]) && e->args[0]->n_args > 0) {
    /* row IS NULL: every field NULL; IS NOT NULL: none NULL */
    const lm_expr *l = e->args[0];
    for (int i = 0; i < l->n_args; i++) {
      lm_expr *c = node(&w, LM_EXPR_IS_NULL, l->args[i], 1);
      if (!c)
        break;
      c->args[0] = l->args[i];
      c->negated = e->negated;
      out = out ? bin(&w, LM_OP_AND, out, c) : c;
      if (!out)
        break;
    }
  } else {
    return 0;
  }
  if (!out)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  *pe = out;
  return 0;
}

int lm_sql_row_distinct(lm_arena *a, lm_expr *l, lm_expr *r, bool not,
                        lm_expr **out, lm_error *err) {
  rw w = {a, err, l->line, l->column};
  if (!lm_sql_is_row(l) || !lm_sql_is_row(r))
    return fail(&w, l->line, l->column, "42883",
                "operator does not exist: record IS DISTINCT FROM a value "
                "that is not a row");
  if (l->n_args != r->n_args)
    return fail(&w, l->line, l->column, "42601",
                "unequal number of entries in row expressions");
  lm_expr *acc = NULL;
  for (int i = 0; i < l->n_args; i++) {
    lm_expr *c = distinct1(&w, l->args[i], r->args[i], not );
    acc = acc ? bin(&w, not ? LM_OP_AND : LM_OP_OR, acc, c) : c;
    if (!acc)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  *out = acc ? acc : lit_bool(&w, l, not );
  return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
}
