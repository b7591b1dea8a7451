/* Unit tests for plan/lm_plan.h: the binder (lm_plan_select,
 * lm_bind_scalar) driven by SQL parsed with lm_sql_parse against
 * hand-made schemas: expression types and implicit casts, errors with their
 * line:column and text, the aggregate split (keys, shared aggregate specs,
 * window detection), GROUP BY by alias and ordinal, ORDER BY by name,
 * ordinal and expression, SELECT * expansion and output names. */
#include <stdlib.h>

#include "base/lm_base.h"
#include "columnar/lm_columnar.h"
#include "lm_test.h"
#include "plan/lm_plan.h"
#include "sql/lm_sql.h"

#define US_SEC 1000000LL
#define US_MIN (60 * US_SEC)
#define US_HOUR (60 * US_MIN)

/* t(i INTEGER, b BIGINT, d DOUBLE, s VARCHAR, ts TIMESTAMP, flag BOOLEAN,
 *   k VARCHAR NOT NULL) */
static lm_schema *schema_t(void) {
  lm_schema *s = lm_schema_new(7);
  lm_schema_set_field(s, 0, "i", lm_type_make(LM_TYPE_INT32), true);
  lm_schema_set_field(s, 1, "b", lm_type_make(LM_TYPE_INT64), true);
  lm_schema_set_field(s, 2, "d", lm_type_make(LM_TYPE_FLOAT64), true);
  lm_schema_set_field(s, 3, "s", lm_type_make(LM_TYPE_UTF8), true);
  lm_schema_set_field(s, 4, "ts", lm_type_make(LM_TYPE_TIMESTAMP), true);
  lm_schema_set_field(s, 5, "flag", lm_type_make(LM_TYPE_BOOL), true);
  lm_schema_set_field(s, 6, "k", lm_type_make(LM_TYPE_UTF8), false);
  return s;
}

static lm_schema *S; /* the schema of t */

/* Parses `sql` (one SELECT) and plans it against S. Returns the status;
 * on success *out is the plan (caller frees). */
static int plan_sql(const char *sql, lm_plan **out, lm_error *err) {
  lm_sql_script *sc = NULL;
  *out = NULL;
  memset(err, 0, sizeof *err);
  int rc = lm_sql_parse(sql, strlen(sql), &sc, err);
  if (rc) {
    fprintf(stderr, "parse failed for \"%s\": %s\n", sql, err->msg);
    lm_test_failures++;
    return -1;
  }
  if (sc->n_stmts != 1 || sc->stmts[0]->kind != LM_STMT_SELECT) {
    fprintf(stderr, "not one SELECT: \"%s\"\n", sql);
    lm_test_failures++;
    lm_sql_script_free(sc);
    return -1;
  }
  rc = lm_plan_select(sc->stmts[0]->select, S, "t", out, err);
  lm_sql_script_free(sc); /* the plan must not point into the AST */
  return rc;
}

/* Plans and expects success (reports the error otherwise). */
static lm_plan *P(const char *sql) {
  lm_plan *p;
  lm_error err;
  int rc = plan_sql(sql, &p, &err);
  if (rc) {
    if (rc > 0)
      fprintf(stderr, "unexpected plan failure for \"%s\": %s\n", sql, err.msg);
    lm_test_failures++;
    return NULL;
  }
  return p;
}

/* Plans and expects LM_ERR_BIND with exactly `msg` (which includes the
 * "line:column: " prefix) at line:col. */
#define CHECK_PLAN_ERR(sql, l, c, want)                                        \
  do {                                                                         \
    lm_plan *p_;                                                               \
    lm_error e_;                                                               \
    int rc_ = plan_sql(sql, &p_, &e_);                                         \
    CHECK_EQ_I64(rc_, LM_ERR_BIND);                                            \
    CHECK(p_ == NULL);                                                         \
    CHECK_EQ_I64(e_.line, l);                                                  \
    CHECK_EQ_I64(e_.column, c);                                                \
    CHECK_EQ_STR(e_.msg, want);                                                \
    lm_plan_free(p_);                                                          \
  } while (0)

/* Binds the first select item of "SELECT <expr> FROM t" with lm_bind_scalar.
 * The script is kept alive in *sc for the caller to free (the arena owns
 * the bound expression). */
static int bind_expr(const char *expr, lm_arena *arena, lm_bexpr **out,
                     lm_error *err) {
  char sql[512];
  snprintf(sql, sizeof sql, "SELECT %s FROM t", expr);
  lm_sql_script *sc = NULL;
  memset(err, 0, sizeof *err);
  *out = NULL;
  if (lm_sql_parse(sql, strlen(sql), &sc, err)) {
    fprintf(stderr, "parse failed for \"%s\": %s\n", sql, err->msg);
    lm_test_failures++;
    return -1;
  }
  int rc =
      lm_bind_scalar(sc->stmts[0]->select->items[0].expr, S, arena, out, err);
  lm_sql_script_free(sc);
  return rc;
}

static lm_type_id type_of(const char *expr) {
  lm_arena a;
  lm_arena_init(&a, 4096);
  lm_bexpr *b;
  lm_error err;
  int rc = bind_expr(expr, &a, &b, &err);
  lm_type_id t = rc == 0 && b ? b->type.id : (lm_type_id)-1;
  if (rc > 0)
    fprintf(stderr, "bind of \"%s\" failed: %s\n", expr, err.msg);
  lm_arena_free(&a);
  return t;
}

/* Binding errors of a scalar expression (SELECT <expr> FROM t puts the
 * expression at column 8 of line 1). */
#define CHECK_BIND_ERR(expr, c, want)                                          \
  do {                                                                         \
    lm_arena a_;                                                               \
    lm_arena_init(&a_, 4096);                                                  \
    lm_bexpr *b_;                                                              \
    lm_error e_;                                                               \
    int rc_ = bind_expr(expr, &a_, &b_, &e_);                                  \
    CHECK_EQ_I64(rc_, LM_ERR_BIND);                                            \
    CHECK(b_ == NULL);                                                         \
    CHECK_EQ_I64(e_.line, 1);                                                  \
    CHECK_EQ_I64(e_.column, c);                                                \
    CHECK_EQ_STR(e_.msg, want);                                                \
    lm_arena_free(&a_);                                                        \
  } while (0)

/* ------------------------------------------------------------- types */

static void test_expression_types(void) {
  CHECK_EQ_I64(type_of("i"), LM_TYPE_INT32);
  CHECK_EQ_I64(type_of("i + b"), LM_TYPE_INT64);
  CHECK_EQ_I64(type_of("b + i"), LM_TYPE_INT64);
  CHECK_EQ_I64(type_of("i + d"), LM_TYPE_FLOAT64);
  CHECK_EQ_I64(type_of("b * 1.5"), LM_TYPE_DECIMAL128); /* numeric in PG */
  CHECK_EQ_I64(type_of("b / 2"), LM_TYPE_INT64);
  CHECK_EQ_I64(type_of("b % 2"), LM_TYPE_INT64);
  CHECK_EQ_I64(type_of("-i"), LM_TYPE_INT32); /* PostgreSQL: int4um */
  CHECK_EQ_I64(type_of("i + 1"), LM_TYPE_INT32);
  CHECK_EQ_I64(type_of("i + 3000000000"), LM_TYPE_INT64);
  CHECK_EQ_I64(type_of("NULL + b"), LM_TYPE_INT64);
  CHECK_EQ_I64(type_of("ts - INTERVAL '1' HOUR"), LM_TYPE_TIMESTAMP);
  CHECK_EQ_I64(type_of("ts + INTERVAL '5' SECOND"), LM_TYPE_TIMESTAMP);
  CHECK_EQ_I64(type_of("INTERVAL '1' DAY + ts"), LM_TYPE_TIMESTAMP);
  CHECK_EQ_I64(type_of("ts - ts"), LM_TYPE_INTERVAL);
  CHECK_EQ_I64(type_of("INTERVAL '1' HOUR * 2"), LM_TYPE_INTERVAL);
  CHECK_EQ_I64(type_of("ts > '2024-01-01 00:00:00'"), LM_TYPE_BOOL);
  CHECK_EQ_I64(type_of("s || b"), LM_TYPE_UTF8);
  CHECK_EQ_I64(type_of("b BETWEEN 1 AND 2"), LM_TYPE_BOOL);
  CHECK_EQ_I64(type_of("i IN (1, 2, 3)"), LM_TYPE_BOOL);
  CHECK_EQ_I64(type_of("s LIKE 'a%'"), LM_TYPE_BOOL);
  CHECK_EQ_I64(type_of("CASE WHEN flag THEN i ELSE d END"), LM_TYPE_FLOAT64);
  CHECK_EQ_I64(type_of("coalesce(i, b)"), LM_TYPE_INT64);
  CHECK_EQ_I64(type_of("CAST(s AS BIGINT)"), LM_TYPE_INT64);
  CHECK_EQ_I64(type_of("tumble(ts, INTERVAL '1' MINUTE)"), LM_TYPE_TIMESTAMP);
  CHECK_EQ_I64(type_of("length(s)"), LM_TYPE_INT64);
  CHECK_EQ_I64(type_of("abs(d)"), LM_TYPE_FLOAT64);

  /* The structure of implicit casts. */
  lm_arena a;
  lm_arena_init(&a, 4096);
  lm_bexpr *b;
  lm_error err;
  CHECK_EQ_I64(bind_expr("i + b", &a, &b, &err), 0);
  if (b) {
    CHECK_EQ_I64(b->kind, LM_BX_BINARY);
    CHECK_EQ_I64(b->op, LM_OP_ADD);
    CHECK_EQ_I64(b->args[0]->kind, LM_BX_CAST);
    CHECK_EQ_I64(b->args[0]->type.id, LM_TYPE_INT64);
    CHECK_EQ_I64(b->args[0]->args[0]->kind, LM_BX_COLUMN);
    CHECK_EQ_I64(b->args[0]->args[0]->col, 0);
    CHECK_EQ_I64(b->args[1]->kind, LM_BX_COLUMN);
    CHECK_EQ_I64(b->args[1]->col, 1);
  }
  /* comparing a TIMESTAMP with a string literal reads the literal as a
   * TIMESTAMP once, at bind time (PostgreSQL: 22P02 for a bad literal even
   * over no rows): a TIMESTAMP literal, 2024-01-01 = 1704067200 s */
  CHECK_EQ_I64(bind_expr("ts >= '2024-01-01 00:00:00'", &a, &b, &err), 0);
  if (b) {
    CHECK_EQ_I64(b->kind, LM_BX_BINARY);
    CHECK_EQ_I64(b->op, LM_OP_GE);
    CHECK_EQ_I64(b->args[0]->kind, LM_BX_COLUMN);
    CHECK_EQ_I64(b->args[1]->kind, LM_BX_LITERAL);
    CHECK_EQ_I64(b->args[1]->type.id, LM_TYPE_TIMESTAMP);
    CHECK_EQ_I64(b->args[1]->lit.v.i, INT64_C(1704067200000000));
  }
  /* ... also with the literal on the left */
  CHECK_EQ_I64(bind_expr("'2024-01-01' < ts", &a, &b, &err), 0);
  if (b) {
    CHECK_EQ_I64(b->args[0]->kind, LM_BX_LITERAL);
    CHECK_EQ_I64(b->args[0]->type.id, LM_TYPE_TIMESTAMP);
    CHECK_EQ_I64(b->args[0]->lit.v.i, INT64_C(1704067200000000));
    CHECK_EQ_I64(b->args[1]->kind, LM_BX_COLUMN);
  }
  /* INTERVAL literal value in µs; -literal is folded */
  CHECK_EQ_I64(bind_expr("INTERVAL '15' MINUTE", &a, &b, &err), 0);
  if (b) {
    CHECK_EQ_I64(b->kind, LM_BX_LITERAL);
    CHECK_EQ_I64(b->lit.v.i, 15 * US_MIN);
  }
  CHECK_EQ_I64(bind_expr("-5", &a, &b, &err), 0);
  if (b) {
    CHECK_EQ_I64(b->kind, LM_BX_LITERAL);
    CHECK_EQ_I64(b->lit.v.i, -5);
  }
  /* a string column against a timestamp column is not converted */
  CHECK_EQ_I64(bind_expr("ts = s", &a, &b, &err), LM_ERR_BIND);
  lm_arena_free(&a);
}

/* ------------------------------------------------------------ errors */

static void test_bind_errors(void) {
  /* operator type mismatch (PostgreSQL's words and types, reported at the
   * operator) */
  CHECK_BIND_ERR("s + 1", 10, "1:10: operator does not exist: text + integer");
  CHECK_BIND_ERR("1 + ts + ts", 10,
                 "1:10: operator does not exist: integer + timestamp without "
                 "time zone");
  CHECK_BIND_ERR("ts + ts", 11,
                 "1:11: operator does not exist: timestamp without time zone "
                 "+ timestamp without time zone");
  CHECK_BIND_ERR("b = s", 10, "1:10: operator does not exist: bigint = text");
  CHECK_BIND_ERR("flag AND b", 17,
                 "1:17: argument of AND must be type boolean, not type bigint");
  CHECK_BIND_ERR("NOT b", 12,
                 "1:12: argument of NOT must be type boolean, not type bigint");
  CHECK_BIND_ERR("nosuch + 1", 8, "1:8: column \"nosuch\" does not exist");
  CHECK_BIND_ERR("b + nosuch", 12, "1:12: column \"nosuch\" does not exist");
  CHECK_BIND_ERR("frob(b)", 8, "1:8: function frob(bigint) does not exist");
  CHECK_BIND_ERR("sum(b)", 8,
                 "1:8: aggregate function sum() is not allowed here");
  CHECK_BIND_ERR("tumble(b, INTERVAL '1' HOUR)", 15,
                 "1:15: tumble() needs a TIMESTAMP time column, found BIGINT");
  CHECK_BIND_ERR("tumble(ts, 3600)", 19,
                 "1:19: window size and offset must be INTERVAL literals");
  CHECK_BIND_ERR("tumble(ts, INTERVAL '1' HOUR, 5)", 38,
                 "1:38: window size and offset must be INTERVAL literals");
  CHECK_BIND_ERR("CASE WHEN b THEN 1 END", 18,
                 "1:18: CASE WHEN condition must be BOOLEAN");

  /* errors from full SELECT planning, with line:column */
  CHECK_PLAN_ERR("SELECT dealy FROM t", 1, 8,
                 "1:8: column \"dealy\" does not exist");
  CHECK_PLAN_ERR("SELECT k,\n       dealy + 1\nFROM t", 2, 8,
                 "2:8: column \"dealy\" does not exist");
  CHECK_PLAN_ERR("SELECT k FROM t AS x WHERE nope = 1", 1, 28,
                 "1:28: column \"nope\" does not exist");
  CHECK_PLAN_ERR(
      "SELECT k, b FROM t GROUP BY k", 1, 11,
      "1:11: column \"t.b\" must appear in the GROUP BY clause or be "
      "used in an aggregate function");
  CHECK_PLAN_ERR(
      "SELECT k, count(*) + b FROM t GROUP BY k", 1, 22,
      "1:22: column \"t.b\" must appear in the GROUP BY clause or be "
      "used in an aggregate function");
  CHECK_PLAN_ERR(
      "SELECT k, count(*) FROM t GROUP BY k HAVING b > 1", 1, 45,
      "1:45: column \"t.b\" must appear in the GROUP BY clause or be "
      "used in an aggregate function");
  CHECK_PLAN_ERR("SELECT k FROM t WHERE count(*) > 1", 1, 23,
                 "1:23: aggregate functions are not allowed in WHERE");
  CHECK_PLAN_ERR("SELECT k FROM t WHERE b > 1 AND sum(b) > 2", 1, 23,
                 "1:23: aggregate functions are not allowed in WHERE");
  CHECK_PLAN_ERR("SELECT sum(max(b)) FROM t", 1, 12,
                 "1:12: aggregate function calls cannot be nested");
  CHECK_PLAN_ERR("SELECT k FROM t WHERE b", 1, 23,
                 "1:23: argument of WHERE must be type boolean, not type "
                 "bigint");
  CHECK_PLAN_ERR("SELECT k FROM t\nWHERE s || 'x'", 2, 7,
                 "2:7: argument of WHERE must be type boolean, not type text");
  CHECK_PLAN_ERR("SELECT count(*) FROM t GROUP BY tumble(ts, 60)", 1, 44,
                 "1:44: window size and offset must be INTERVAL literals");
  CHECK_PLAN_ERR("SELECT count(*) FROM t\nGROUP BY tumble(ts, INTERVAL '1' "
                 "HOUR, '15 minutes')",
                 2, 40,
                 "2:40: window size and offset must be INTERVAL literals");
  CHECK_PLAN_ERR("SELECT count(*) FROM t GROUP BY tumble(ts, INTERVAL '0' "
                 "SECOND)",
                 1, 44, "1:44: window size must be positive");
  CHECK_PLAN_ERR("SELECT k + 1 FROM t", 1, 10,
                 "1:10: operator does not exist: text + integer");
  CHECK_PLAN_ERR("SELECT k FROM t GROUP BY 3", 1, 26,
                 "1:26: GROUP BY position 3 is not in select list");
  CHECK_PLAN_ERR("SELECT k FROM t ORDER BY 2", 1, 26,
                 "1:26: ORDER BY position 2 is not in select list");
  CHECK_PLAN_ERR("SELECT count(*) FROM t GROUP BY 1", 1, 8,
                 "1:8: aggregate functions are not allowed in GROUP BY");
  /* '*' stands for column references, as in PostgreSQL: each must be a
   * key (SELECT * over keys only is valid: tests/slt/sqlite_corpus_extra) */
  CHECK_PLAN_ERR("SELECT * FROM t GROUP BY k", 1, 8,
                 "1:8: column \"t.i\" must appear in the GROUP BY clause or be "
                 "used in an aggregate function");
  CHECK_PLAN_ERR(
      "SELECT k, count(*) FROM t GROUP BY k ORDER BY b", 1, 47,
      "1:47: column \"t.b\" must appear in the GROUP BY clause or be "
      "used in an aggregate function");
  CHECK_PLAN_ERR("SELECT sum(s) FROM t", 1, 8,
                 "1:8: function sum(text) does not exist");
  CHECK_PLAN_ERR("SELECT k FROM t GROUP BY k HAVING count(*)", 1, 35,
                 "1:35: argument of HAVING must be type boolean, not type "
                 "bigint");
  CHECK_PLAN_ERR("SELECT x.k FROM t", 1, 8,
                 "1:8: missing FROM-clause entry for table \"x\"");
  CHECK_PLAN_ERR("SELECT nosuch, count(*) FROM t GROUP BY k", 1, 8,
                 "1:8: column \"nosuch\" does not exist");
  CHECK_PLAN_ERR("SELECT k FROM t ORDER BY nosuch", 1, 26,
                 "1:26: column \"nosuch\" does not exist");
  CHECK_PLAN_ERR("SELECT count(*) AS c FROM t GROUP BY c", 1, 8,
                 "1:8: aggregate functions are not allowed in GROUP BY");
}

/* ----------------------------------------------------- aggregate split */

static void test_aggregate_split(void) {
  /* The same aggregate used twice (select list and HAVING, and twice in
   * the select list) is one spec. */
  lm_plan *p = P("SELECT k, sum(b) AS total, sum(b) * 2 AS twice, count(*) "
                 "FROM t GROUP BY k HAVING sum(b) > 10 AND count(*) > 0");
  if (p) {
    CHECK(p->has_agg);
    CHECK_EQ_I64(p->n_keys, 1);
    CHECK_EQ_I64(p->keys[0]->kind, LM_BX_COLUMN);
    CHECK_EQ_I64(p->keys[0]->col, 6);
    CHECK_EQ_STR(p->key_names[0], "k");
    CHECK_EQ_I64(p->n_aggs, 2);
    CHECK_EQ_I64(p->aggs[0].kind, LM_AGG_SUM);
    /* sum(bigint) is numeric, as PostgreSQL's */
    CHECK_EQ_I64(p->aggs[0].out_type.id, LM_TYPE_DECIMAL128);
    CHECK_EQ_I64(p->aggs[0].arg->kind, LM_BX_COLUMN);
    CHECK_EQ_I64(p->aggs[0].arg->col, 1);
    CHECK_EQ_I64(p->aggs[1].kind, LM_AGG_COUNT_STAR);
    CHECK(p->aggs[1].arg == NULL);
    CHECK_EQ_I64(p->window_key, -1);
    /* agg schema: [k, __agg0, __agg1]; k keeps NOT NULL */
    CHECK_EQ_I64(p->agg_schema->n_fields, 3);
    CHECK_EQ_STR(p->agg_schema->fields[0].name, "k");
    CHECK(!p->agg_schema->fields[0].nullable);
    CHECK_EQ_I64(p->agg_schema->fields[1].type.id, LM_TYPE_DECIMAL128);
    CHECK(p->agg_schema->fields[1].nullable);  /* SUM of nothing is NULL */
    CHECK(!p->agg_schema->fields[2].nullable); /* COUNT never is */
    /* projections over the agg schema */
    CHECK_EQ_I64(p->n_out, 4);
    CHECK_EQ_I64(p->out[0]->kind, LM_BX_COLUMN);
    CHECK_EQ_I64(p->out[0]->col, 0);
    CHECK_EQ_I64(p->out[1]->kind, LM_BX_COLUMN);
    CHECK_EQ_I64(p->out[1]->col, 1);
    CHECK_EQ_I64(p->out[2]->kind, LM_BX_BINARY);
    CHECK_EQ_I64(p->out[2]->args[0]->col, 1);
    CHECK_EQ_I64(p->out[3]->col, 2);
    CHECK(p->having != NULL);
    CHECK_EQ_STR(p->out_schema->fields[1].name, "total");
    CHECK_EQ_STR(p->out_schema->fields[2].name, "twice");
    CHECK_EQ_STR(p->out_schema->fields[3].name, "count");
    CHECK(!p->out_schema->fields[0].nullable);
    lm_plan_free(p);
  }

  /* Different argument or kind are different specs; AVG of an integer is
   * numeric (DECIMAL(38,16)); SUM of INTEGER widens to BIGINT; MIN keeps
   * the type. */
  p = P("SELECT sum(i), sum(b), avg(i), min(s), max(ts), count(d), count(*) "
        "FROM t");
  if (p) {
    CHECK(p->has_agg);
    CHECK_EQ_I64(p->n_keys, 0);
    CHECK_EQ_I64(p->n_aggs, 7);
    CHECK_EQ_I64(p->aggs[0].in_type.id, LM_TYPE_INT64);
    CHECK_EQ_I64(p->aggs[0].arg->kind, LM_BX_CAST);
    CHECK_EQ_I64(p->aggs[2].kind, LM_AGG_AVG);
    CHECK_EQ_I64(p->aggs[2].out_type.id, LM_TYPE_DECIMAL128);
    CHECK_EQ_I64(p->aggs[2].out_type.scale, 16);
    CHECK_EQ_I64(p->aggs[3].kind, LM_AGG_MIN);
    CHECK_EQ_I64(p->aggs[3].out_type.id, LM_TYPE_UTF8);
    CHECK_EQ_I64(p->aggs[4].kind, LM_AGG_MAX);
    CHECK_EQ_I64(p->aggs[4].out_type.id, LM_TYPE_TIMESTAMP);
    CHECK_EQ_I64(p->aggs[5].kind, LM_AGG_COUNT);
    CHECK_EQ_I64(p->aggs[6].kind, LM_AGG_COUNT_STAR);
    CHECK_EQ_STR(p->out_schema->fields[0].name, "sum");
    CHECK_EQ_STR(p->out_schema->fields[2].name, "avg");
    CHECK_EQ_STR(p->out_schema->fields[3].name, "min");
    CHECK_EQ_STR(p->out_schema->fields[6].name, "count");
    lm_plan_free(p);
  }

  /* count(*) and count(b) differ; count(b) twice is one */
  p = P("SELECT count(*), count(b), count(b) + 1 FROM t");
  if (p) {
    CHECK_EQ_I64(p->n_aggs, 2);
    lm_plan_free(p);
  }

  /* Window detection: tumble(ts, 1 h, 15 min) as the second key. */
  p = P("SELECT k, tumble(ts, INTERVAL '1' HOUR, INTERVAL '15' MINUTE) AS w, "
        "count(*) AS n FROM t GROUP BY k, tumble(ts, INTERVAL '1' HOUR, "
        "INTERVAL '15' MINUTE) EMIT ON WINDOW CLOSE");
  if (p) {
    /* k, the window start, and the window end added as a hidden key */
    CHECK_EQ_I64(p->n_keys, 3);
    CHECK_EQ_I64(p->window_key, 1);
    CHECK_EQ_I64(p->window_end_key, 2);
    CHECK_EQ_STR(p->key_names[2], "__window_end");
    CHECK_EQ_I64(p->window_kind, LM_WIN_TUMBLE);
    CHECK_EQ_I64(p->window_time_col, 4);
    CHECK_EQ_I64(p->window_size_us, US_HOUR);
    CHECK_EQ_I64(p->window_offset_us, 15 * US_MIN);
    CHECK_EQ_I64(p->emit, LM_EMIT_ON_WINDOW_CLOSE);
    CHECK_EQ_I64(p->keys[1]->kind, LM_BX_FUNC);
    CHECK_EQ_I64(p->keys[1]->fn, LM_FN_TUMBLE);
    /* the select item tumble(...) is the key */
    CHECK_EQ_I64(p->out[1]->kind, LM_BX_COLUMN);
    CHECK_EQ_I64(p->out[1]->col, 1);
    CHECK_EQ_I64(p->out_schema->fields[1].type.id, LM_TYPE_TIMESTAMP);
    CHECK_EQ_STR(p->out_schema->fields[1].name, "w");
    CHECK_EQ_STR(p->out_schema->fields[2].name, "n");
    lm_plan_free(p);
  }
  /* Window without offset, first key; tumble_end over the key. */
  p = P(
      "SELECT tumble(ts, INTERVAL '10' SECOND), tumble_end(ts, INTERVAL '10' "
      "SECOND) AS e, max(b) FROM t GROUP BY tumble(ts, INTERVAL '10' SECOND)");
  if (p) {
    CHECK_EQ_I64(p->window_key, 0);
    CHECK_EQ_I64(p->window_size_us, 10 * US_SEC);
    CHECK_EQ_I64(p->window_offset_us, 0);
    CHECK_EQ_STR(p->out_schema->fields[0].name, "tumble");
    CHECK_EQ_STR(p->out_schema->fields[1].name, "e");
    CHECK_EQ_I64(p->out_schema->fields[1].type.id, LM_TYPE_TIMESTAMP);
    /* tumble_end is the window end key (filled in by the operator) */
    CHECK_EQ_I64(p->out[1]->kind, LM_BX_COLUMN);
    CHECK_EQ_I64(p->out[1]->col, p->window_end_key);
    lm_plan_free(p);
  }
  /* The window key named through an alias or an ordinal. */
  p = P("SELECT tumble(ts, INTERVAL '5' MINUTE) AS w, count(*) FROM t GROUP "
        "BY w");
  if (p) {
    CHECK_EQ_I64(p->window_key, 0);
    CHECK_EQ_I64(p->window_size_us, 5 * US_MIN);
    CHECK_EQ_STR(p->key_names[0], "w");
    lm_plan_free(p);
  }
  p = P("SELECT k, tumble(ts, INTERVAL '2' DAY), count(*) FROM t GROUP BY 1, "
        "2");
  if (p) {
    CHECK_EQ_I64(p->window_key, 1);
    CHECK_EQ_I64(p->window_time_col, 4);
    CHECK_EQ_I64(p->window_size_us, 48 * US_HOUR);
    lm_plan_free(p);
  }
  /* A non-window GROUP BY keeps window_key -1. */
  p = P("SELECT k, count(*) FROM t GROUP BY k");
  if (p) {
    CHECK_EQ_I64(p->window_key, -1);
    CHECK_EQ_I64(p->window_time_col, -1);
    lm_plan_free(p);
  }
  /* An aggregate that appears only in ORDER BY must be computed: it gets
   * a spec and a slot in the aggregate schema (PostgreSQL accepts this). */
  p = P("SELECT k, count(*) FROM t GROUP BY k ORDER BY sum(b) DESC");
  if (p) {
    CHECK_EQ_I64(p->n_aggs, 2);
    /* Regression (fixed in 13df87c): the ORDER BY aggregate used to be
     * added to p->aggs after agg_schema was built, so the sort column
     * referred past the aggregate operator's output (a crash at run time). */
    CHECK_EQ_I64(p->agg_schema->n_fields, p->n_keys + p->n_aggs);
    CHECK_EQ_I64(p->n_sort, 1);
    CHECK_EQ_I64(p->out_schema->n_fields, 3); /* k, count, __sort */
    lm_plan_free(p);
  }
}

/* ------------------------------------------- GROUP BY alias / ordinal */

static void test_group_by_forms(void) {
  lm_plan *p = P("SELECT upper(k) AS uk, count(*) FROM t GROUP BY uk");
  if (p) {
    CHECK_EQ_I64(p->n_keys, 1);
    CHECK_EQ_I64(p->keys[0]->kind, LM_BX_FUNC);
    CHECK_EQ_I64(p->keys[0]->fn, LM_FN_UPPER);
    CHECK_EQ_STR(p->key_names[0], "uk");
    CHECK_EQ_STR(p->agg_schema->fields[0].name, "uk");
    CHECK_EQ_I64(p->out[0]->kind, LM_BX_COLUMN);
    CHECK_EQ_I64(p->out[0]->col, 0);
    CHECK_EQ_STR(p->out_schema->fields[0].name, "uk");
    lm_plan_free(p);
  }
  p = P("SELECT count(*), b % 10 AS bucket FROM t GROUP BY 2");
  if (p) {
    CHECK_EQ_I64(p->n_keys, 1);
    CHECK_EQ_I64(p->keys[0]->kind, LM_BX_BINARY);
    CHECK_EQ_I64(p->keys[0]->op, LM_OP_MOD);
    CHECK_EQ_STR(p->key_names[0], "bucket");
    CHECK_EQ_I64(p->out[1]->kind, LM_BX_COLUMN);
    CHECK_EQ_I64(p->out[1]->col, 0);
    CHECK_EQ_I64(p->out[0]->col, 1);
    lm_plan_free(p);
  }
  /* An alias equal to an input column name: GROUP BY means the input
   * column (PostgreSQL). */
  p = P("SELECT upper(k) AS b, count(*) FROM t GROUP BY k, b");
  if (p) {
    CHECK_EQ_I64(p->n_keys, 2);
    CHECK_EQ_I64(p->keys[1]->kind, LM_BX_COLUMN);
    CHECK_EQ_I64(p->keys[1]->col, 1);
    lm_plan_free(p);
  }
  /* Grouping by an expression: the same expression in SELECT matches it;
   * an expression of the key is computed over the key. */
  p = P("SELECT b + 1, (b + 1) * 2 AS dbl FROM t GROUP BY b + 1");
  if (p) {
    CHECK_EQ_I64(p->n_aggs, 0);
    CHECK(p->has_agg);
    CHECK_EQ_I64(p->out[0]->kind, LM_BX_COLUMN);
    CHECK_EQ_I64(p->out[1]->kind, LM_BX_BINARY);
    CHECK_EQ_I64(p->out[1]->args[0]->kind, LM_BX_COLUMN);
    CHECK_EQ_STR(p->out_schema->fields[0].name, "?column?");
    lm_plan_free(p);
  }
}

/* --------------------------------------------------------- ORDER BY */

static void test_order_by(void) {
  lm_plan *p = P("SELECT k, b AS x FROM t ORDER BY x DESC, 1");
  if (p) {
    CHECK_EQ_I64(p->n_out, 2);
    CHECK_EQ_I64(p->out_schema->n_fields, 2);
    CHECK_EQ_I64(p->n_sort, 2);
    CHECK_EQ_I64(p->sort[0].expr->kind, LM_BX_COLUMN);
    CHECK_EQ_I64(p->sort[0].expr->col, 1);
    CHECK(p->sort[0].desc);
    CHECK(p->sort[0].nulls_first); /* DESC defaults to NULLS FIRST */
    CHECK_EQ_I64(p->sort[1].expr->col, 0);
    CHECK(!p->sort[1].desc);
    CHECK(!p->sort[1].nulls_first); /* ASC defaults to NULLS LAST */
    CHECK_EQ_I64(p->limit, -1);
    lm_plan_free(p);
  }
  p = P("SELECT k FROM t ORDER BY b * 2 ASC NULLS FIRST LIMIT 5 OFFSET 2");
  if (p) {
    CHECK_EQ_I64(p->n_out, 1);
    CHECK_EQ_I64(p->out_schema->n_fields, 2); /* hidden sort column */
    CHECK_EQ_STR(p->out_schema->fields[1].name, "__sort");
    CHECK_EQ_I64(p->out[1]->kind, LM_BX_BINARY);
    CHECK_EQ_I64(p->out[1]->type.id, LM_TYPE_INT64);
    CHECK_EQ_I64(p->sort[0].expr->col, 1);
    CHECK(p->sort[0].nulls_first);
    CHECK(!p->sort[0].desc);
    CHECK_EQ_I64(p->limit, 5);
    CHECK_EQ_I64(p->offset, 2);
    lm_plan_free(p);
  }
  /* An ORDER BY expression equal to an output expression reuses it. */
  p = P("SELECT b * 2 AS x, k FROM t ORDER BY b * 2 DESC NULLS LAST");
  if (p) {
    CHECK_EQ_I64(p->out_schema->n_fields, 2);
    CHECK_EQ_I64(p->sort[0].expr->col, 0);
    CHECK(!p->sort[0].nulls_first);
    lm_plan_free(p);
  }
  /* An input column not in the select list is a hidden column. */
  p = P("SELECT k FROM t ORDER BY ts");
  if (p) {
    CHECK_EQ_I64(p->n_out, 1);
    CHECK_EQ_I64(p->out_schema->n_fields, 2);
    CHECK_EQ_I64(p->out[1]->kind, LM_BX_COLUMN);
    CHECK_EQ_I64(p->out[1]->col, 4);
    CHECK_EQ_I64(p->out_schema->fields[1].type.id, LM_TYPE_TIMESTAMP);
    lm_plan_free(p);
  }
  /* Ordering an aggregate query by an output name of an aggregate. */
  p = P("SELECT k, count(*) AS n FROM t GROUP BY k ORDER BY n DESC, k");
  if (p) {
    CHECK_EQ_I64(p->sort[0].expr->col, 1);
    CHECK_EQ_I64(p->sort[1].expr->col, 0);
    CHECK_EQ_I64(p->out_schema->n_fields, 2);
    lm_plan_free(p);
  }
}

/* ------------------------------------------- SELECT * and output names */

static void test_star_and_names(void) {
  lm_plan *p = P("SELECT * FROM t");
  if (p) {
    CHECK(!p->has_agg);
    CHECK_EQ_I64(p->n_out, 7);
    CHECK_EQ_I64(p->out_schema->n_fields, 7);
    for (int f = 0; f < 7; f++) {
      CHECK_EQ_I64(p->out[f]->kind, LM_BX_COLUMN);
      CHECK_EQ_I64(p->out[f]->col, f);
      CHECK_EQ_STR(p->out_schema->fields[f].name, S->fields[f].name);
      CHECK(lm_type_eq(p->out_schema->fields[f].type, S->fields[f].type));
    }
    CHECK(!p->out_schema->fields[6].nullable); /* k NOT NULL kept */
    CHECK(p->out_schema->fields[0].nullable);
    CHECK(p->where == NULL);
    lm_plan_free(p);
  }
  p = P("SELECT b, *, k AS kk FROM t WHERE flag");
  if (p) {
    CHECK_EQ_I64(p->n_out, 9);
    CHECK_EQ_STR(p->out_schema->fields[0].name, "b");
    CHECK_EQ_STR(p->out_schema->fields[1].name, "i");
    CHECK_EQ_STR(p->out_schema->fields[7].name, "k");
    CHECK_EQ_STR(p->out_schema->fields[8].name, "kk");
    CHECK(p->where != NULL);
    lm_plan_free(p);
  }
  p = P("SELECT b AS total, t.d, abs(d), lower(s), b + 1, CAST(b AS DOUBLE), "
        "coalesce(s, 'x'), tumble(ts, INTERVAL '1' MINUTE), 42 FROM t");
  if (p) {
    CHECK_EQ_I64(p->n_out, 9);
    CHECK_EQ_STR(p->out_schema->fields[0].name, "total");
    CHECK_EQ_STR(p->out_schema->fields[1].name, "d");
    CHECK_EQ_STR(p->out_schema->fields[2].name, "abs");
    CHECK_EQ_STR(p->out_schema->fields[3].name, "lower");
    CHECK_EQ_STR(p->out_schema->fields[4].name, "?column?");
    CHECK_EQ_STR(p->out_schema->fields[5].name, "b"); /* PG: b::float8 -> b */
    CHECK_EQ_STR(p->out_schema->fields[6].name, "coalesce");
    CHECK_EQ_STR(p->out_schema->fields[7].name, "tumble");
    CHECK_EQ_STR(p->out_schema->fields[8].name, "?column?");
    CHECK_EQ_I64(p->out_schema->fields[5].type.id, LM_TYPE_FLOAT64);
    lm_plan_free(p);
  }
  /* Function names are case-insensitive and reported lower-case. */
  p = P("SELECT COUNT(*), Sum(b) FROM t");
  if (p) {
    CHECK_EQ_STR(p->out_schema->fields[0].name, "count");
    CHECK_EQ_STR(p->out_schema->fields[1].name, "sum");
    lm_plan_free(p);
  }
  /* lm_bind_scalar without a schema: literals only */
  lm_sql_script *sc = NULL;
  lm_error err;
  const char *sql = "SELECT 1 + 2, b FROM t";
  CHECK_EQ_I64(lm_sql_parse(sql, strlen(sql), &sc, &err), 0);
  if (sc) {
    lm_arena a;
    lm_arena_init(&a, 1024);
    lm_bexpr *b = NULL;
    CHECK_EQ_I64(
        lm_bind_scalar(sc->stmts[0]->select->items[0].expr, NULL, &a, &b, &err),
        0);
    CHECK(b && b->type.id == LM_TYPE_INT32); /* 1 + 2: integer */
    CHECK_EQ_I64(
        lm_bind_scalar(sc->stmts[0]->select->items[1].expr, NULL, &a, &b, &err),
        LM_ERR_BIND);
    CHECK_EQ_STR(err.msg, "1:15: column 'b' cannot be used here");
    lm_arena_free(&a);
    lm_sql_script_free(sc);
  }
}

int main(void) {
  S = schema_t();
  test_expression_types();
  test_bind_errors();
  test_aggregate_split();
  test_group_by_forms();
  test_order_by();
  test_star_and_names();
  lm_schema_release(S);
  return lm_test_done("test_plan");
}
