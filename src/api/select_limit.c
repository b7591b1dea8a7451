/* api/select_limit.c — LIMIT / OFFSET / FETCH FIRST counts holding a
 * subquery (`LIMIT (SELECT max(n) FROM t)`), computed each time the query
 * runs, before its first row, as PostgreSQL does (the parser folds constant
 * counts itself: sql/limit_fold.c). The count is the value of SELECT
 * <count> run as its own query: a column there is an enclosing query's
 * value (in a correlated subquery), a column of no enclosing query
 * PostgreSQL's 42P10 "argument of LIMIT must not contain variables" (the
 * query's own columns are not visible there); more than one row is 21000;
 * the value is coerced to bigint as PostgreSQL's (a numeric rounds half
 * away from zero, a float to even; another type is 42804); NULL is no
 * limit (LIMIT) or 0 (OFFSET); a negative count is 2201W / 2201X. */
#include "api/engine.h"
#include "exec/lm_strfn.h" /* lm_pg_type_name */

#include <math.h>
#include <stdio.h>
#include <string.h>

static int fail(lm_error *err, const lm_expr *e, const char *state,
                const char *msg) {
  lm_engine_pos_err(err, LM_ERR_EXEC, e->line, e->column, msg);
  return lm_err_state(err, state);
}

/* A numeric's text rounded half away from zero into *v; false when it does
 * not fit bigint. */
static bool numeric_text_int(const char *s, int64_t *v) {
  bool neg = *s == '-';
  if (*s == '-' || *s == '+')
    s++;
  uint64_t m = 0;
  for (; *s >= '0' && *s <= '9'; s++) {
    unsigned d = (unsigned)(*s - '0');
    if (m > (UINT64_MAX - d) / 10)
      return false;
    m = m * 10 + d;
  }
  if (*s == '.' && s[1] >= '5' && s[1] <= '9')
    m++;
  if (m > (uint64_t)INT64_MAX + neg)
    return false;
  *v = neg ? (int64_t)(0 - m) : (int64_t)m;
  return true;
}

/* The first column e names (looking into subqueries' select lists and
 * WHERE), or NULL. */
static const lm_expr *first_column(const lm_expr *e, int depth) {
  if (!e || depth > 64)
    return NULL;
  if (e->kind == LM_EXPR_COLUMN)
    return e;
  for (int i = 0; i < e->n_args; i++) {
    const lm_expr *c = first_column(e->args[i], depth + 1);
    if (c)
      return c;
  }
  const lm_select *q = e->kind == LM_EXPR_SUBQUERY ? e->subquery : NULL;
  for (int i = 0; q && i < q->n_items; i++) {
    const lm_expr *c = first_column(q->items[i].expr, depth + 1);
    if (c)
      return c;
  }
  return q ? first_column(q->where, depth + 1) : NULL;
}

/* The value of count expression e (what: "LIMIT" / "OFFSET") of a query
 * whose own input has schema own (NULL: not known). */
static int count_of(laminar_db *db, const lm_expr *e, const char *what,
                    const lm_schema *own, bool *is_null, int64_t *out,
                    lm_error *err) {
  lm_select q;
  memset(&q, 0, sizeof q);
  lm_select_item it;
  memset(&it, 0, sizeof it);
  it.expr = (lm_expr *)e;
  q.items = &it;
  q.n_items = 1;
  q.limit = -1;
  q.line = e->line;
  q.column = e->column;
  laminar_result *r = NULL;
  int rc = lm_engine_select(db, &q, &r, err);
  const lm_expr *col = rc ? first_column(e, 0) : NULL;
  if (rc &&
      (!strcmp(err->sqlstate, "42703") || !strcmp(err->sqlstate, "42P01")) &&
      !(own && col && lm_schema_find(own, col->name) < 0)) {
    /* a column no enclosing query has: one of this query's (PostgreSQL) */
    char m[80];
    snprintf(m, sizeof m, "argument of %s must not contain variables", what);
    int line = err->line, col = err->column;
    lm_engine_pos_err(err, LM_ERR_BIND, line ? line : e->line,
                      line ? col : e->column, m);
    return lm_err_state(err, "42P10");
  }
  if (rc)
    return rc;
  lm_type t = r->schema->fields[0].type;
  const lm_array *a = NULL;
  int64_t row = 0;
  for (int i = 0; i < r->n_batches && !a; i++)
    if (r->batches[i]->num_rows > 0)
      a = r->batches[i]->columns[0];
  *is_null = !a || t.id == LM_TYPE_NULL || lm_array_is_null(a, row);
  char msg[200];
  if (lm_type_is_integer(t)) {
    if (!*is_null)
      *out = lm_array_get_i64(a, row);
  } else if (t.id == LM_TYPE_FLOAT32 || t.id == LM_TYPE_FLOAT64) {
    if (!*is_null) {
      double d = nearbyint(lm_array_get_f64(a, row));
      if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
        rc = fail(err, e, "22003", "bigint out of range");
      else
        *out = (int64_t)d;
    }
  } else if (t.id == LM_TYPE_DECIMAL128) {
    if (!*is_null) {
      const char *s = laminar_result_value_text(r, row, 0);
      if (!s || !numeric_text_int(s, out))
        rc = fail(err, e, "22003", "bigint out of range");
    }
  } else if (t.id != LM_TYPE_NULL) {
    snprintf(msg, sizeof msg, "argument of %s must be type bigint, not type %s",
             what, lm_pg_type_name(t));
    rc = fail(err, e, "42804", msg);
  }
  laminar_result_free(r);
  return rc;
}

int lm_engine_limit_resolve(laminar_db *db, const lm_select *sel,
                            lm_error *err) {
  lm_select *s = (lm_select *)sel; /* the counts are recomputed each run */
  const lm_node *in = sel->from && !lm_select_needs_join_plan(sel)
                          ? lm_engine_find(db, sel->from)
                          : NULL;
  const lm_schema *own = in ? in->table_schema : NULL;
  bool nul = false;
  int64_t v = 0;
  if (s->limit_expr) {
    int rc = count_of(db, s->limit_expr, "LIMIT", own, &nul, &v, err);
    if (rc)
      return rc;
    if (!nul && v < 0)
      return fail(err, s->limit_expr, "2201W", "LIMIT must not be negative");
    /* NULL: no limit, WITH TIES too (PostgreSQL checks only a constant) */
    s->limit = nul ? -1 : v;
  }
  if (s->offset_expr) {
    int rc = count_of(db, s->offset_expr, "OFFSET", own, &nul, &v, err);
    if (rc)
      return rc;
    if (!nul && v < 0)
      return fail(err, s->offset_expr, "2201X", "OFFSET must not be negative");
    s->offset = nul ? 0 : v;
  }
  return 0;
}
