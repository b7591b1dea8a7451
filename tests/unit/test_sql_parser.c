/* tests/unit/test_sql_parser.c — lexer, parser and expression printer.
 * Runs from the repository root (reads ../shared/cases/flights/pipeline.sql).
 * Exit status: 0 when every check passes, 1 otherwise. */
#include "columnar/lm_temporal.h"
#include "sql/lm_sql.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static int checks;

#define CHECK(cond)                                                            \
  do {                                                                         \
    checks++;                                                                  \
    if (!(cond)) {                                                             \
      failures++;                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

#define CHECK_STR(a, b)                                                        \
  do {                                                                         \
    checks++;                                                                  \
    const char *a_ = (a), *b_ = (b);                                           \
    if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                   \
      failures++;                                                              \
      fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__,  \
              a_ ? a_ : "(null)", b_ ? b_ : "(null)");                         \
    }                                                                          \
  } while (0)

static lm_sql_script *parse_ok_at(const char *sql, int line) {
  lm_sql_script *s = NULL;
  lm_error err = {0};
  int rc = lm_sql_parse(sql, strlen(sql), &s, &err);
  checks++;
  if (rc != 0 || !s) {
    failures++;
    fprintf(stderr, "%s:%d: parse failed: %s\n  sql: %s\n", __FILE__, line,
            err.msg, sql);
    return NULL;
  }
  return s;
}
#define parse_ok(sql) parse_ok_at((sql), __LINE__)

static void expect_error_at(const char *sql, size_t len, const char *msg,
                            int line) {
  lm_sql_script *s = NULL;
  lm_error err = {0};
  int rc = lm_sql_parse(sql, len, &s, &err);
  checks++;
  /* a syntax error (PostgreSQL's `syntax error at or near "X"`): msg is
   * "line:col: " + its HINT, what the parser expected */
  char full[sizeof err.msg + sizeof err.hint];
  const char *colon = strstr(err.msg, ": syntax error at ");
  if (colon && err.hint[0] && !strcmp(err.sqlstate, "42601"))
    snprintf(full, sizeof full, "%.*s: %s", (int)(colon - err.msg), err.msg,
             err.hint);
  else
    snprintf(full, sizeof full, "%s", err.msg);
  if (rc != LM_ERR_PARSE || s || strcmp(full, msg) != 0) {
    failures++;
    fprintf(stderr, "%s:%d: rc=%d msg=\"%s\", want \"%s\"\n", __FILE__, line,
            rc, full, msg);
  }
  lm_sql_script_free(s);
}
#define expect_error(sql, msg)                                                 \
  expect_error_at((sql), strlen(sql), (msg), __LINE__)

/* Fully parenthesized prefix form, to check tree shape. */
static void sexpr(const lm_expr *e, lm_buf *b) {
  static const char *ops[] = {
      "?",  "+", "-",  "*",   "/",  "%",   "=",   "<>", "<",
      "<=", ">", ">=", "and", "or", "not", "neg", "||"};
  switch (e->kind) {
  case LM_EXPR_LITERAL:
  case LM_EXPR_COLUMN:
  case LM_EXPR_STAR:
  case LM_EXPR_FUNC:
  case LM_EXPR_CAST:
  case LM_EXPR_CASE:
    lm_sql_expr_to_string(e, b);
    return;
  case LM_EXPR_UNARY:
  case LM_EXPR_BINARY:
    lm_buf_printf(b, "(%s", ops[e->op]);
    break;
  case LM_EXPR_IS_NULL:
    lm_buf_puts(b, e->negated ? "(isnotnull" : "(isnull");
    break;
  case LM_EXPR_BETWEEN:
    lm_buf_puts(b, e->negated ? "(notbetween" : "(between");
    break;
  case LM_EXPR_IN:
    lm_buf_puts(b, e->negated ? "(notin" : "(in");
    break;
  case LM_EXPR_LIKE:
    lm_buf_puts(b, e->negated ? "(notlike" : "(like");
    break;
  case LM_EXPR_SUBQUERY: {
    static const char *k[] = {"scalar", "exists", "any", "all"};
    lm_buf_printf(b, "(%s%s%s", e->negated ? "not" : "", k[e->subq],
                  e->subq >= LM_SUBQ_ANY ? ops[e->op] : "");
    break;
  }
  }
  for (int i = 0; i < e->n_args; i++) {
    lm_buf_putc(b, ' ');
    sexpr(e->args[i], b);
  }
  lm_buf_putc(b, ')');
}

/* Parses "SELECT <expr> FROM t" and returns the single item's expression
 * (the script is kept in *keep for the caller to free). */
static const lm_expr *one_expr(const char *expr, lm_sql_script **keep,
                               int line) {
  char sql[4096];
  snprintf(sql, sizeof sql, "SELECT %s FROM t", expr);
  *keep = parse_ok_at(sql, line);
  if (!*keep)
    return NULL;
  return (*keep)->stmts[0]->select->items[0].expr;
}

static void check_shape_at(const char *expr, const char *want, int line) {
  lm_sql_script *s;
  const lm_expr *e = one_expr(expr, &s, line);
  if (!e)
    return;
  lm_buf b;
  lm_buf_init(&b);
  sexpr(e, &b);
  checks++;
  if (strcmp(b.data ? b.data : "", want) != 0) {
    failures++;
    fprintf(stderr, "%s:%d: shape of %s = %s, want %s\n", __FILE__, line, expr,
            b.data, want);
  }
  lm_buf_free(&b);
  lm_sql_script_free(s);
}
#define check_shape(expr, want) check_shape_at((expr), (want), __LINE__)

/* Prints the expression and checks the text; the text must also parse back
 * to a tree that prints the same. */
static void check_print_at(const char *expr, const char *want, int line) {
  lm_sql_script *s;
  const lm_expr *e = one_expr(expr, &s, line);
  if (!e)
    return;
  lm_buf b;
  lm_buf_init(&b);
  lm_sql_expr_to_string(e, &b);
  checks++;
  if (strcmp(b.data ? b.data : "", want) != 0) {
    failures++;
    fprintf(stderr, "%s:%d: print of %s = %s, want %s\n", __FILE__, line, expr,
            b.data, want);
  }
  lm_sql_script *s2;
  const lm_expr *e2 = one_expr(b.data, &s2, line);
  if (e2) {
    lm_buf b1, b2;
    lm_buf_init(&b1);
    lm_buf_init(&b2);
    sexpr(e, &b1);
    sexpr(e2, &b2);
    checks++;
    if (strcmp(b1.data, b2.data) != 0) {
      failures++;
      fprintf(stderr, "%s:%d: reparse of %s: %s vs %s\n", __FILE__, line,
              b.data, b1.data, b2.data);
    }
    lm_buf_free(&b1);
    lm_buf_free(&b2);
    lm_sql_script_free(s2);
  }
  lm_buf_free(&b);
  lm_sql_script_free(s);
}
#define check_print(expr, want) check_print_at((expr), (want), __LINE__)

static char *expr_str(const lm_expr *e) {
  static char out[512];
  lm_buf b;
  lm_buf_init(&b);
  lm_sql_expr_to_string(e, &b);
  snprintf(out, sizeof out, "%s", b.data ? b.data : "");
  lm_buf_free(&b);
  return out;
}

/* ------------------------------------------------------------------ tests */

static void test_flights_pipeline(void) {
  const char *path = "../shared/cases/flights/pipeline.sql";
  FILE *f = fopen(path, "rb");
  checks++;
  if (!f) {
    failures++;
    fprintf(stderr, "cannot open %s (run from the repository root)\n", path);
    return;
  }
  char buf[8192];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  lm_sql_script *s = parse_ok(buf);
  if (!s)
    return;
  CHECK(s->n_stmts == 5);
  if (s->n_stmts != 5)
    goto out;

  lm_stmt *src = s->stmts[0];
  CHECK(src->kind == LM_STMT_CREATE_SOURCE);
  CHECK(src->line == 3 && src->column == 1);
  CHECK_STR(src->name, "flights");
  CHECK(src->n_columns == 5);
  CHECK_STR(src->columns[0].name, "ts");
  CHECK(src->columns[0].type.id == LM_TYPE_TIMESTAMP);
  CHECK(src->columns[0].type.unit == LM_UNIT_MICRO);
  CHECK(src->columns[0].not_null);
  CHECK(src->columns[0].line == 4 && src->columns[0].column == 5);
  CHECK_STR(src->columns[1].name, "origin");
  CHECK(src->columns[1].type.id == LM_TYPE_UTF8 && src->columns[1].not_null);
  CHECK(src->columns[2].type.id == LM_TYPE_UTF8 && src->columns[2].not_null);
  CHECK_STR(src->columns[3].name, "delay");
  CHECK(src->columns[3].type.id == LM_TYPE_INT64 && !src->columns[3].not_null);
  CHECK(src->columns[4].type.id == LM_TYPE_INT64 && !src->columns[4].not_null);
  CHECK_STR(src->watermark_column, "ts");
  CHECK(src->wm_line == 9 && src->wm_column == 19);
  CHECK(src->watermark_expr != NULL);
  if (src->watermark_expr) {
    const lm_expr *w = src->watermark_expr;
    CHECK(w->kind == LM_EXPR_BINARY && w->op == LM_OP_SUB);
    CHECK(w->args[1]->kind == LM_EXPR_LITERAL &&
          w->args[1]->lit == LM_LIT_INTERVAL &&
          w->args[1]->ival == 10 * LM_US_PER_MIN);
    CHECK_STR(expr_str(w), "ts - INTERVAL '10' MINUTE");
  }
  CHECK_STR(src->connector, "FILES");
  CHECK(src->n_options == 2);
  if (src->n_options == 2) {
    CHECK_STR(src->options[0].key, "path");
    CHECK_STR(src->options[0].value, "../shared/data/flights-200k.csv");
    CHECK_STR(src->options[1].key, "mode");
    CHECK_STR(src->options[1].value, "once");
  }
  CHECK_STR(src->format, "CSV");
  CHECK(strncmp(src->text, "CREATE SOURCE flights (", 23) == 0);
  CHECK(strcmp(src->text + strlen(src->text) - 10, "FORMAT CSV") == 0);

  lm_stmt *st = s->stmts[1];
  CHECK(st->kind == LM_STMT_CREATE_STREAM);
  CHECK(st->line == 12 && st->column == 1);
  CHECK_STR(st->name, "hourly_delays");
  lm_select *q = st->select;
  CHECK(q->n_items == 5);
  CHECK(q->line == 13 && q->column == 5);
  CHECK_STR(expr_str(q->items[0].expr), "origin");
  CHECK(q->items[0].alias == NULL);
  CHECK_STR(expr_str(q->items[1].expr), "tumble(ts, INTERVAL '1' HOUR)");
  CHECK_STR(q->items[1].alias, "hour");
  CHECK(q->items[1].expr->args[1]->ival == LM_US_PER_HOUR);
  CHECK_STR(expr_str(q->items[2].expr), "count(*)");
  CHECK(q->items[2].expr->kind == LM_EXPR_FUNC &&
        q->items[2].expr->n_args == 1 &&
        q->items[2].expr->args[0]->kind == LM_EXPR_STAR);
  CHECK_STR(q->items[2].alias, "flights");
  CHECK_STR(expr_str(q->items[3].expr), "avg(delay)");
  CHECK_STR(q->items[3].alias, "avg_delay");
  CHECK_STR(expr_str(q->items[4].expr), "max(delay)");
  CHECK_STR(q->from, "flights");
  CHECK(q->from_line == 18 && q->from_column == 10);
  CHECK(q->n_group_by == 2);
  CHECK_STR(expr_str(q->group_by[1]), "tumble(ts, INTERVAL '1' HOUR)");
  CHECK(q->emit == LM_EMIT_ON_WINDOW_CLOSE);
  CHECK(q->limit == -1 && q->offset == 0);
  CHECK(strncmp(st->text, "CREATE STREAM hourly_delays AS", 30) == 0);
  CHECK(strcmp(st->text + strlen(st->text) - 20, "EMIT ON WINDOW CLOSE") == 0);

  lm_stmt *sk = s->stmts[2];
  CHECK(sk->kind == LM_STMT_CREATE_SINK);
  CHECK_STR(sk->name, "hourly_out");
  CHECK_STR(sk->sink_from, "hourly_delays");
  CHECK_STR(sk->connector, "FILES");
  CHECK(sk->n_options == 1);
  CHECK_STR(sk->options[0].key, "path");
  CHECK_STR(sk->options[0].value, "out/hourly_delays.ndjson");
  CHECK_STR(sk->format, "JSON");

  lm_stmt *mv = s->stmts[3];
  CHECK(mv->kind == LM_STMT_CREATE_MVIEW);
  CHECK_STR(mv->name, "delay_by_origin");
  CHECK(mv->select->n_items == 3);
  CHECK_STR(mv->select->items[2].alias, "total_delay");
  CHECK(mv->select->emit == LM_EMIT_DEFAULT);
  CHECK(mv->select->n_group_by == 1);

  lm_stmt *sel = s->stmts[4];
  CHECK(sel->kind == LM_STMT_SELECT);
  CHECK(sel->line == 30 && sel->column == 1);
  CHECK_STR(sel->text, "SELECT origin, flights, total_delay FROM "
                       "delay_by_origin ORDER BY flights DESC, origin LIMIT "
                       "10");
  CHECK(sel->select->n_order_by == 2);
  CHECK(sel->select->order_by[0].desc && !sel->select->order_by[1].desc);
  CHECK_STR(expr_str(sel->select->order_by[0].expr), "flights");
  CHECK(sel->select->limit == 10);
out:
  lm_sql_script_free(s);
}

static void test_seed_trades(void) {
  const char *sql =
      "CREATE SOURCE trades (\n"
      "    symbol VARCHAR NOT NULL,\n"
      "    price  DOUBLE NOT NULL,\n"
      "    volume BIGINT NOT NULL,\n"
      "    ts     TIMESTAMP NOT NULL,\n"
      "    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND\n"
      ") FROM KAFKA (\n"
      "    'bootstrap.servers' = 'kafka:9092',\n"
      "    'topic' = 'trades'\n"
      ") FORMAT JSON;\n"
      "CREATE STREAM minute_volume AS\n"
      "    SELECT symbol,\n"
      "           tumble(ts, INTERVAL '1' MINUTE) AS minute,\n"
      "           SUM(volume) AS volume,\n"
      "           MAX(price) AS high\n"
      "    FROM trades\n"
      "    GROUP BY symbol, tumble(ts, INTERVAL '1' MINUTE)\n"
      "    EMIT ON WINDOW CLOSE;\n"
      "CREATE SINK minute_volume_out FROM minute_volume\n"
      "    INTO KAFKA ('bootstrap.servers' = 'kafka:9092', 'topic' = "
      "'minute-volume')\n"
      "    FORMAT JSON;\n"
      "INSERT INTO trades VALUES ('AAPL', 189.5, 100, TIMESTAMP '2026-10-18 "
      "09:30:05'),\n"
      "  ('MSFT', 411.20, 30, TIMESTAMP '2026-10-18T09:30:41Z');\n"
      "INSERT INTO trades (symbol, volume) VALUES ('X', 1);\n";
  lm_sql_script *s = parse_ok(sql);
  if (!s)
    return;
  CHECK(s->n_stmts == 5);
  if (s->n_stmts == 5) {
    lm_stmt *src = s->stmts[0];
    CHECK(src->n_columns == 4);
    CHECK(src->columns[1].type.id == LM_TYPE_FLOAT64);
    CHECK_STR(src->connector, "KAFKA");
    CHECK_STR(src->options[0].key, "bootstrap.servers");
    CHECK(src->watermark_expr->args[1]->ival == 5 * LM_US_PER_SEC);
    lm_select *q = s->stmts[1]->select;
    CHECK_STR(q->items[1].alias, "minute");
    CHECK_STR(q->items[2].alias, "volume");
    CHECK_STR(q->items[3].alias, "high");
    CHECK_STR(expr_str(q->items[2].expr), "sum(volume)");
    CHECK(q->emit == LM_EMIT_ON_WINDOW_CLOSE);
    CHECK_STR(s->stmts[2]->connector, "KAFKA");
    CHECK_STR(s->stmts[2]->options[1].value, "minute-volume");
    lm_stmt *ins = s->stmts[3];
    CHECK(ins->kind == LM_STMT_INSERT);
    CHECK_STR(ins->name, "trades");
    CHECK(ins->n_rows == 2 && ins->n_values == 4);
    CHECK(ins->insert_columns == NULL);
    CHECK(ins->rows[0][0]->lit == LM_LIT_STRING);
    CHECK_STR(ins->rows[0][0]->text, "AAPL");
    CHECK(ins->rows[0][1]->lit == LM_LIT_DECIMAL &&
          ins->rows[0][1]->dval == 189.5);
    CHECK(ins->rows[0][2]->lit == LM_LIT_INT && ins->rows[0][2]->ival == 100);
    int64_t want;
    lm_parse_timestamp("2026-10-18 09:30:05", 19, &want);
    CHECK(ins->rows[0][3]->lit == LM_LIT_TIMESTAMP &&
          ins->rows[0][3]->ival == want);
    CHECK(ins->rows[1][3]->ival == want + 36 * LM_US_PER_SEC);
    lm_stmt *ins2 = s->stmts[4];
    CHECK(ins2->n_insert_columns == 2 && ins2->n_values == 2);
    CHECK_STR(ins2->insert_columns[1], "volume");
  }
  lm_sql_script_free(s);
}

static void test_sources_and_sinks(void) {
  lm_sql_script *s = parse_ok(
      "CREATE SOURCE ticks FROM GENERATOR ('rows.per.second' = '10');\n"
      "CREATE SOURCE IF NOT EXISTS g2 FROM GENERATOR (rows.per.second = 10, "
      "max.rows = -5, x = 1.5, flag = true) FORMAT json;\n"
      "CREATE SOURCE pushed (a INT NULL, b VARCHAR(20) NOT NULL, c TEXT, "
      "d SMALLINT, e TINYINT, f REAL, g DOUBLE PRECISION, h BOOLEAN, "
      "i INTEGER, j STRING, WATERMARK FOR d);\n"
      "CREATE SOURCE pre FROM FILES ('path' = 'x.csv') FORMAT CSV "
      "(ts TIMESTAMP, \"Mixed Case\" BIGINT);\n"
      "CREATE SINK IF NOT EXISTS k FROM v;\n"
      "create sink k2 from v into files ('path'='o.json') format json");
  if (!s)
    return;
  CHECK(s->n_stmts == 6);
  if (s->n_stmts != 6)
    goto out;
  lm_stmt *t = s->stmts[0];
  CHECK(t->n_columns == 0 && t->columns == NULL);
  CHECK_STR(t->connector, "GENERATOR");
  CHECK_STR(t->options[0].key, "rows.per.second");
  CHECK_STR(t->options[0].value, "10");
  CHECK(t->format == NULL);
  t = s->stmts[1];
  CHECK(t->if_not_exists);
  CHECK(t->n_options == 4);
  CHECK_STR(t->options[0].key, "rows.per.second");
  CHECK_STR(t->options[0].value, "10");
  CHECK_STR(t->options[1].key, "max.rows");
  CHECK_STR(t->options[1].value, "-5");
  CHECK_STR(t->options[2].value, "1.5");
  CHECK_STR(t->options[3].value, "true");
  CHECK_STR(t->format, "JSON");
  t = s->stmts[2];
  CHECK(t->n_columns == 10);
  CHECK(t->columns[0].type.id == LM_TYPE_INT32 && !t->columns[0].not_null);
  CHECK(t->columns[1].type.id == LM_TYPE_UTF8 && t->columns[1].not_null);
  CHECK(t->columns[2].type.id == LM_TYPE_UTF8);
  CHECK(t->columns[3].type.id == LM_TYPE_INT16);
  CHECK(t->columns[4].type.id == LM_TYPE_INT8);
  CHECK(t->columns[5].type.id == LM_TYPE_FLOAT32);
  CHECK(t->columns[6].type.id == LM_TYPE_FLOAT64);
  CHECK(t->columns[7].type.id == LM_TYPE_BOOL);
  CHECK(t->columns[8].type.id == LM_TYPE_INT32);
  CHECK(t->columns[9].type.id == LM_TYPE_UTF8);
  CHECK_STR(t->watermark_column, "d");
  CHECK(t->watermark_expr == NULL);
  CHECK(t->connector == NULL && t->format == NULL);
  t = s->stmts[3];
  CHECK_STR(t->connector, "FILES");
  CHECK_STR(t->format, "CSV");
  CHECK(t->n_columns == 2);
  CHECK_STR(t->columns[1].name, "Mixed Case");
  t = s->stmts[4];
  CHECK(t->kind == LM_STMT_CREATE_SINK && t->if_not_exists);
  CHECK(t->connector == NULL && t->n_options == 0);
  t = s->stmts[5];
  CHECK_STR(t->sink_from, "v");
  CHECK_STR(t->options[0].value, "o.json");
  CHECK_STR(t->format, "JSON");
  CHECK_STR(t->text,
            "create sink k2 from v into files ('path'='o.json') format json");
out:
  lm_sql_script_free(s);
}

static void test_misc_statements(void) {
  lm_sql_script *s = parse_ok(
      ";; DROP SOURCE s; DROP STREAM IF EXISTS st; DROP MATERIALIZED VIEW mv;"
      "DROP SINK k;; SHOW SOURCES; SHOW STREAMS; SHOW MATERIALIZED VIEWS;"
      "SHOW SINKS; DESCRIBE flights; DESC \"Quoted\"\"Name\";"
      "CREATE MATERIALIZED VIEW IF NOT EXISTS m AS SELECT * FROM t;"
      "-- comment only\n/* block /* nested */ */ ;");
  if (!s)
    return;
  CHECK(s->n_stmts == 11);
  if (s->n_stmts == 11) {
    CHECK(s->stmts[0]->kind == LM_STMT_DROP &&
          s->stmts[0]->object == LM_OBJ_SOURCE && !s->stmts[0]->if_exists);
    CHECK(s->stmts[0]->line == 1 && s->stmts[0]->column == 4);
    CHECK_STR(s->stmts[0]->text, "DROP SOURCE s");
    CHECK(s->stmts[1]->object == LM_OBJ_STREAM && s->stmts[1]->if_exists);
    CHECK_STR(s->stmts[1]->name, "st");
    CHECK(s->stmts[2]->object == LM_OBJ_MVIEW);
    CHECK(s->stmts[3]->object == LM_OBJ_SINK);
    CHECK(s->stmts[4]->kind == LM_STMT_SHOW &&
          s->stmts[4]->object == LM_OBJ_SOURCE);
    CHECK(s->stmts[5]->object == LM_OBJ_STREAM);
    CHECK(s->stmts[6]->object == LM_OBJ_MVIEW);
    CHECK(s->stmts[7]->object == LM_OBJ_SINK);
    CHECK(s->stmts[8]->kind == LM_STMT_DESCRIBE);
    CHECK_STR(s->stmts[8]->name, "flights");
    CHECK_STR(s->stmts[9]->name, "Quoted\"Name");
    CHECK(s->stmts[10]->kind == LM_STMT_CREATE_MVIEW &&
          s->stmts[10]->if_not_exists);
    CHECK(s->stmts[10]->select->items[0].expr->kind == LM_EXPR_STAR);
  }
  lm_sql_script_free(s);

  s = parse_ok("");
  CHECK(s && s->n_stmts == 0);
  lm_sql_script_free(s);
  s = parse_ok(" ;\n; -- nothing\n");
  CHECK(s && s->n_stmts == 0);
  lm_sql_script_free(s);
  /* not NUL-terminated: only len bytes are read */
  lm_error err;
  const char buf[] = {'S', 'H', 'O', 'W', ' ', 'S', 'I', 'N', 'K', 'S', 'x'};
  CHECK(lm_sql_parse(buf, 10, &s, &err) == 0 && s->n_stmts == 1);
  lm_sql_script_free(s);
}

static void test_select_clauses(void) {
  lm_sql_script *s = parse_ok(
      "SELECT DISTINCT a, t.b AS bb, c cc, t.*, COUNT(DISTINCT d), 1 + 2 "
      "FROM src AS t WHERE a > 1 AND b IS NOT NULL GROUP BY 1, a, hour "
      "HAVING count(*) > 2 ORDER BY a DESC NULLS LAST, 2 ASC NULLS FIRST, b "
      "LIMIT 5 OFFSET 3 EMIT CHANGES;"
      "SELECT a FROM s x OFFSET 2 LIMIT 1 EMIT PERIODICALLY INTERVAL '5' "
      "SECOND;"
      "SELECT 1;"
      "SELECT a FROM s EMIT ON UPDATE; SELECT a FROM s EMIT FINAL;"
      "SELECT a FROM s EMIT AFTER WATERMARK; SELECT a FROM s EMIT ON "
      "WATERMARK; SELECT a FROM s LIMIT ALL");
  if (!s)
    return;
  CHECK(s->n_stmts == 8);
  if (s->n_stmts != 8)
    goto out;
  lm_select *q = s->stmts[0]->select;
  CHECK(q->distinct);
  CHECK(q->n_items == 6);
  CHECK_STR(q->items[1].alias, "bb");
  CHECK_STR(q->items[1].expr->table, "t");
  CHECK_STR(q->items[2].alias, "cc");
  CHECK(q->items[3].expr->kind == LM_EXPR_STAR);
  CHECK_STR(q->items[3].expr->table, "t");
  CHECK(q->items[4].expr->distinct);
  CHECK_STR(expr_str(q->items[4].expr), "count(DISTINCT d)");
  CHECK_STR(expr_str(q->items[5].expr), "1 + 2");
  CHECK_STR(q->from, "src");
  CHECK_STR(q->from_alias, "t");
  CHECK(q->where && q->where->op == LM_OP_AND);
  CHECK(q->n_group_by == 3);
  CHECK(q->group_by[0]->lit == LM_LIT_INT && q->group_by[0]->ival == 1);
  CHECK_STR(q->group_by[2]->name, "hour");
  CHECK(q->having != NULL);
  CHECK(q->n_order_by == 3);
  CHECK(q->order_by[0].desc && q->order_by[0].nulls == 2);
  CHECK(!q->order_by[1].desc && q->order_by[1].nulls == 1);
  CHECK(q->order_by[2].nulls == 0);
  CHECK(q->limit == 5 && q->offset == 3);
  CHECK(q->emit == LM_EMIT_CHANGES);
  q = s->stmts[1]->select;
  CHECK_STR(q->from_alias, "x");
  CHECK(q->limit == 1 && q->offset == 2);
  CHECK(q->emit == LM_EMIT_PERIODICALLY &&
        q->emit_interval_us == 5 * LM_US_PER_SEC);
  q = s->stmts[2]->select;
  CHECK(q->from == NULL && q->n_items == 1);
  CHECK(s->stmts[3]->select->emit == LM_EMIT_ON_UPDATE);
  CHECK(s->stmts[4]->select->emit == LM_EMIT_FINAL);
  CHECK(s->stmts[5]->select->emit == LM_EMIT_AFTER_WATERMARK);
  CHECK(s->stmts[6]->select->emit == LM_EMIT_AFTER_WATERMARK);
  CHECK(s->stmts[7]->select->limit == -1);
out:
  lm_sql_script_free(s);
}

static void test_keyword_names(void) {
  lm_sql_script *s = parse_ok(
      "SELECT ts, value, hour, minute, second, day, date, time, timestamp, "
      "count, sum, min, max, avg, seq, symbol, high, volume, origin, flights, "
      "interval, window, source, stream, sink, format, watermark "
      "FROM flights ORDER BY hour, timestamp");
  if (s) {
    lm_select *q = s->stmts[0]->select;
    CHECK(q->n_items == 27);
    for (int i = 0; i < q->n_items; i++)
      CHECK(q->items[i].expr->kind == LM_EXPR_COLUMN && !q->items[i].alias);
    CHECK_STR(q->items[8].expr->name, "timestamp");
    CHECK_STR(q->order_by[1].expr->name, "timestamp");
  }
  lm_sql_script_free(s);
  s = parse_ok("CREATE SOURCE hour (hour TIMESTAMP, value DOUBLE, date "
               "BIGINT, timestamp TIMESTAMP, watermark INT, count INT, "
               "WATERMARK FOR hour AS hour);"
               "SELECT count(*) AS count, sum(value) AS sum, min(x) AS min, "
               "MAX(x) max, avg(x) avg, tumble(ts, INTERVAL '1' DAY) day, "
               "x AS \"Quoted Alias\", x AS from FROM hour");
  if (s) {
    CHECK(s->stmts[0]->n_columns == 6);
    CHECK_STR(s->stmts[0]->columns[4].name, "watermark");
    lm_select *q = s->stmts[1]->select;
    CHECK_STR(q->items[0].alias, "count");
    CHECK_STR(q->items[3].alias, "max");
    CHECK_STR(q->items[4].alias, "avg");
    CHECK_STR(q->items[5].alias, "day");
    CHECK_STR(q->items[6].alias, "Quoted Alias");
    CHECK_STR(q->items[7].alias, "from");
    CHECK(q->items[5].expr->args[1]->ival == LM_US_PER_DAY);
  }
  lm_sql_script_free(s);
  s = parse_ok("SELECT \"MiXed\", MiXed, \"a\"\"b\" FROM \"T\"");
  if (s) {
    lm_select *q = s->stmts[0]->select;
    CHECK_STR(q->items[0].expr->name, "MiXed");
    CHECK_STR(q->items[1].expr->name, "mixed");
    CHECK_STR(q->items[2].expr->name, "a\"b");
    CHECK_STR(q->from, "T");
  }
  lm_sql_script_free(s);
}

static void test_literals(void) {
  lm_sql_script *s;
  const lm_expr *e;
  e = one_expr("9223372036854775807", &s, __LINE__);
  CHECK(e && e->lit == LM_LIT_INT && e->ival == INT64_MAX);
  lm_sql_script_free(s);
  e = one_expr("9223372036854775808", &s, __LINE__);
  CHECK(e && e->lit == LM_LIT_DECIMAL);
  CHECK_STR(e ? e->text : NULL, "9223372036854775808");
  lm_sql_script_free(s);
  e = one_expr("-9223372036854775808", &s, __LINE__);
  CHECK(e && e->kind == LM_EXPR_LITERAL && e->lit == LM_LIT_INT &&
        e->ival == INT64_MIN);
  CHECK_STR(expr_str(e), "-9223372036854775808");
  lm_sql_script_free(s);
  e = one_expr("-9223372036854775809", &s, __LINE__);
  CHECK(e && e->lit == LM_LIT_DECIMAL && e->dval < -9.2e18);
  CHECK_STR(e ? e->text : NULL, "-9223372036854775809");
  lm_sql_script_free(s);
  e = one_expr("123456789012345678901234567890", &s, __LINE__);
  CHECK(e && e->lit == LM_LIT_DECIMAL && e->dval > 1.2e29);
  lm_sql_script_free(s);
  e = one_expr("-5", &s, __LINE__);
  CHECK(e && e->lit == LM_LIT_INT && e->ival == -5);
  CHECK(e && e->column == 8);
  lm_sql_script_free(s);
  e = one_expr("1.5", &s, __LINE__);
  CHECK(e && e->lit == LM_LIT_DECIMAL && e->dval == 1.5);
  lm_sql_script_free(s);
  e = one_expr(".5e1", &s, __LINE__);
  CHECK(e && e->lit == LM_LIT_DECIMAL && e->dval == 5.0);
  lm_sql_script_free(s);
  e = one_expr("1e3", &s, __LINE__);
  CHECK(e && e->lit == LM_LIT_DECIMAL && e->dval == 1000.0);
  lm_sql_script_free(s);
  e = one_expr("-2.5", &s, __LINE__);
  CHECK(e && e->lit == LM_LIT_DECIMAL && e->dval == -2.5);
  CHECK_STR(e ? e->text : NULL, "-2.5");
  lm_sql_script_free(s);
  e = one_expr("'it''s'", &s, __LINE__);
  CHECK(e && e->lit == LM_LIT_STRING);
  CHECK_STR(e ? e->text : NULL, "it's");
  CHECK_STR(expr_str(e), "'it''s'");
  lm_sql_script_free(s);
  e = one_expr("''", &s, __LINE__);
  CHECK_STR(e ? e->text : NULL, "");
  lm_sql_script_free(s);
  e = one_expr("TRUE", &s, __LINE__);
  CHECK(e && e->lit == LM_LIT_BOOL && e->bval);
  lm_sql_script_free(s);
  e = one_expr("false", &s, __LINE__);
  CHECK(e && e->lit == LM_LIT_BOOL && !e->bval);
  lm_sql_script_free(s);
  e = one_expr("NULL", &s, __LINE__);
  CHECK(e && e->lit == LM_LIT_NULL);
  lm_sql_script_free(s);
  e = one_expr("TIMESTAMP '2001-01-01 00:00:00'", &s, __LINE__);
  CHECK(e && e->lit == LM_LIT_TIMESTAMP &&
        e->ival == INT64_C(978307200) * LM_US_PER_SEC);
  CHECK_STR(expr_str(e), "TIMESTAMP '2001-01-01 00:00:00'");
  lm_sql_script_free(s);

  struct {
    const char *sql;
    int64_t us;
  } iv[] = {
      {"INTERVAL '10' MINUTE", 10 * LM_US_PER_MIN},
      {"INTERVAL '1' HOUR", LM_US_PER_HOUR},
      {"INTERVAL '5' SECOND", 5 * LM_US_PER_SEC},
      {"INTERVAL '5' SECONDS", 5 * LM_US_PER_SEC},
      {"interval '1.5' second", 1500000},
      {"INTERVAL '10 minutes'", 10 * LM_US_PER_MIN},
      {"INTERVAL '5 seconds'", 5 * LM_US_PER_SEC},
      {"INTERVAL '250' MILLISECOND", 250000},
      {"INTERVAL 3 MINUTES", 3 * LM_US_PER_MIN},
      {"INTERVAL '-2' DAY", -2 * LM_US_PER_DAY},
  };
  for (size_t i = 0; i < sizeof iv / sizeof iv[0]; i++) {
    e = one_expr(iv[i].sql, &s, __LINE__);
    checks++;
    if (!e || e->lit != LM_LIT_INTERVAL || e->ival != iv[i].us) {
      failures++;
      fprintf(stderr, "interval %s -> %" PRId64 ", want %" PRId64 "\n",
              iv[i].sql, e ? e->ival : 0, iv[i].us);
    }
    lm_sql_script_free(s);
  }
  e = one_expr("INTERVAL '1' HOUR", &s, __LINE__);
  CHECK_STR(expr_str(e), "INTERVAL '1' HOUR");
  lm_sql_script_free(s);
  e = one_expr("INTERVAL '10 minutes'", &s, __LINE__);
  CHECK_STR(expr_str(e), "INTERVAL '10 minutes'");
  lm_sql_script_free(s);
  e = one_expr("\"Mixed\"", &s, __LINE__);
  CHECK_STR(expr_str(e), "\"Mixed\""); /* quoted: parses back */
  lm_sql_script_free(s);
}

static void test_precedence(void) {
  check_shape("a OR b AND c", "(or a (and b c))");
  check_shape("a AND b OR c", "(or (and a b) c)");
  check_shape("NOT a AND b", "(and (not a) b)");
  check_shape("NOT a = b", "(not (= a b))");
  check_shape("NOT NOT a", "(not (not a))");
  check_shape("a = b AND c <> d", "(and (= a b) (<> c d))");
  check_shape("a + b * c", "(+ a (* b c))");
  check_shape("a * b + c", "(+ (* a b) c)");
  check_shape("a - b - c", "(- (- a b) c)");
  check_shape("a / b % c", "(% (/ a b) c)");
  check_shape("(a + b) * c", "(* (+ a b) c)");
  check_shape("a || b + c", "(|| a (+ b c))");
  check_shape("a || b = c", "(= (|| a b) c)");
  check_shape("-a * b", "(* (neg a) b)");
  check_shape("- a::BIGINT", "(neg CAST(a AS BIGINT))");
  check_shape("-5::BIGINT", "(neg CAST(5 AS BIGINT))");
  check_shape("a + b < c * d", "(< (+ a b) (* c d))");
  check_shape("a != b", "(<> a b)");
  check_shape("a == b", "(= a b)");
  check_shape("a <= b", "(<= a b)");
  check_shape("a >= b", "(>= a b)");
  check_shape("a IS NULL", "(isnull a)");
  check_shape("a + 1 IS NOT NULL", "(isnotnull (+ a 1))");
  check_shape("a IS NULL AND b", "(and (isnull a) b)");
  check_shape("a BETWEEN 1 AND 2 AND c", "(and (between a 1 2) c)");
  check_shape("a NOT BETWEEN b + 1 AND c * 2",
              "(notbetween a (+ b 1) (* c 2))");
  check_shape("a IN (1, 2, 3)", "(in a 1 2 3)");
  check_shape("a NOT IN ('x')", "(notin a 'x')");
  check_shape("a LIKE 'x%' OR b NOT LIKE 'y'",
              "(or (like a 'x%') (notlike b 'y'))");
  check_shape("NOT a IN (1)", "(not (in a 1))");
  check_shape("a - -b", "(- a (neg b))");
  check_shape("a - -1", "(- a -1)");
  check_shape("+a", "a");
  check_shape("- - 1", "1");
  check_shape("ts - INTERVAL '10' MINUTE", "(- ts INTERVAL '10' MINUTE)");
}

static void test_print(void) {
  check_print("origin", "origin");
  check_print("t.origin", "t.origin");
  check_print("COUNT(*)", "count(*)");
  check_print("SUM(delay)", "sum(delay)");
  check_print("Count(Distinct x)", "count(DISTINCT x)");
  check_print("tumble(ts, INTERVAL '1' HOUR)", "tumble(ts, INTERVAL '1' HOUR)");
  check_print("now()", "now()");
  check_print("a+b*c", "a + b * c");
  check_print("(a+b)*c", "(a + b) * c");
  check_print("a-(b-c)", "a - (b - c)");
  check_print("(a-b)-c", "a - b - c");
  check_print("-(a+b)", "-(a + b)");
  check_print("-(-a)", "-(-a)");
  check_print("-(-5)", "5");
  check_print("- (5 - 3)", "-(5 - 3)");
  check_print("NOT (a OR b)", "NOT (a OR b)");
  check_print("(a OR b) AND c", "(a OR b) AND c");
  check_print("a OR b AND c", "a OR b AND c");
  check_print("CAST(x AS BIGINT)", "CAST(x AS BIGINT)");
  check_print("x::DOUBLE", "CAST(x AS DOUBLE)");
  check_print("x :: varchar(10)", "CAST(x AS VARCHAR)");
  check_print("x IS NOT NULL", "x IS NOT NULL");
  check_print("(a OR b) IS NULL", "(a OR b) IS NULL");
  check_print("a BETWEEN 1 AND 2", "a BETWEEN 1 AND 2");
  check_print("a NOT IN (1, 2)", "a NOT IN (1, 2)");
  check_print("a LIKE 'x%'", "a LIKE 'x%'");
  check_print("a || 'x'", "a || 'x'");
  check_print("CASE WHEN a > 1 THEN 'big' ELSE 'small' END",
              "CASE WHEN a > 1 THEN 'big' ELSE 'small' END");
  check_print("CASE a WHEN 1 THEN 'one' WHEN 2 THEN 'two' END",
              "CASE a WHEN 1 THEN 'one' WHEN 2 THEN 'two' END");
  check_print("1.50", "1.50");
  check_print("-1.5e3", "-1.5e3");
  check_print("TRUE AND NOT FALSE", "TRUE AND NOT FALSE");
  check_print("NULL", "NULL");
  check_print("EXTRACT(hour FROM ts)", "date_part('hour', ts)");
}

static void test_types(void) {
  lm_type t;
  CHECK(lm_sql_type_from_name("BIGINT", &t) == 0 && t.id == LM_TYPE_INT64);
  CHECK(lm_sql_type_from_name("bigint", &t) == 0 && t.id == LM_TYPE_INT64);
  CHECK(lm_sql_type_from_name("INT", &t) == 0 && t.id == LM_TYPE_INT32);
  CHECK(lm_sql_type_from_name("Integer", &t) == 0 && t.id == LM_TYPE_INT32);
  CHECK(lm_sql_type_from_name("SMALLINT", &t) == 0 && t.id == LM_TYPE_INT16);
  CHECK(lm_sql_type_from_name("TINYINT", &t) == 0 && t.id == LM_TYPE_INT8);
  CHECK(lm_sql_type_from_name("REAL", &t) == 0 && t.id == LM_TYPE_FLOAT32);
  /* FLOAT is PostgreSQL's double precision (FLOAT(p): tests/slt) */
  CHECK(lm_sql_type_from_name("FLOAT", &t) == 0 && t.id == LM_TYPE_FLOAT64);
  CHECK(lm_sql_type_from_name("FLOAT4", &t) == 0 && t.id == LM_TYPE_FLOAT32);
  CHECK(lm_sql_type_from_name("DOUBLE", &t) == 0 && t.id == LM_TYPE_FLOAT64);
  CHECK(lm_sql_type_from_name("double  precision", &t) == 0 &&
        t.id == LM_TYPE_FLOAT64);
  CHECK(lm_sql_type_from_name("VARCHAR", &t) == 0 && t.id == LM_TYPE_UTF8);
  CHECK(lm_sql_type_from_name("VARCHAR(255)", &t) == 0 && t.id == LM_TYPE_UTF8);
  CHECK(lm_sql_type_from_name("TEXT", &t) == 0 && t.id == LM_TYPE_UTF8);
  CHECK(lm_sql_type_from_name("STRING", &t) == 0 && t.id == LM_TYPE_UTF8);
  CHECK(lm_sql_type_from_name("BOOLEAN", &t) == 0 && t.id == LM_TYPE_BOOL);
  CHECK(lm_sql_type_from_name("TIMESTAMP", &t) == 0 &&
        t.id == LM_TYPE_TIMESTAMP && t.unit == LM_UNIT_MICRO);
  CHECK(lm_sql_type_from_name("FOO", &t) == -1);
  CHECK(lm_sql_type_from_name("BIGINT(3)", &t) == -1);
  CHECK(lm_sql_type_from_name("VARCHAR(x)", &t) == -1);
  CHECK(lm_sql_type_from_name("", &t) == -1);
  CHECK(lm_sql_type_from_name(NULL, &t) == -1);
}

static void test_errors(void) {
  expect_error("SELEC * FROM t",
               "1:1: expected a statement (CREATE, INSERT, DELETE, UPDATE, "
               "DROP, SHOW, DESCRIBE, SELECT), found 'SELEC' (did you mean "
               "SELECT?)");
  /* `a FORM`: PostgreSQL takes FORM as a's alias and fails at t (psql:
   * `SELECT x FORM t1` is `syntax error at or near "t1"`); after `*`
   * (no alias) the misspelt FROM is the error */
  expect_error("CREATE STREAM s AS SELECT * FORM t",
               "1:29: expected FROM, found 'FORM' (did you mean FROM?)");
  expect_error("CREATE STREAM s AS SELECT a FORM t",
               "1:34: expected FROM, found 't'");
  expect_error("CREATE STREAM s AS\n  SELECT a\n  FROM t\n  WHER a > 1",
               "4:3: expected WHERE, GROUP BY, HAVING, ORDER BY, LIMIT, "
               "OFFSET, EMIT, ';' or end of input, found 'WHER' (did you "
               "mean WHERE?)");
  expect_error("SELECT a FROM t ORDER BY a LIMT 5",
               "1:28: expected LIMIT, OFFSET, EMIT, ';' or end of input, "
               "found 'LIMT' (did you mean LIMIT?)");
  expect_error("SELECT 'abc FROM t",
               "1:8: unterminated quoted string at or near \"'abc FROM t\"");
  expect_error("SELECT a FROM t;\nSELECT \"abc",
               "2:8: unterminated quoted identifier at or near "
               "\"\"abc\"");
  expect_error("SELECT 1 /* open", "1:10: unterminated /* comment");
  expect_error("SELECT 12abc", "1:8: bad number '12abc'");
  expect_error("SELECT 1e+", "1:8: bad number '1e': exponent has no digits");
  expect_error("SELECT a @ b", "1:10: unexpected character '@'");
  expect_error("SELECT count(a FROM t",
               "1:16: expected ',' or ')', found 'FROM'");
  expect_error("SELECT (a + b FROM t", "1:15: expected ')', found 'FROM'");
  expect_error("SELECT a +",
               "1:11: expected an expression, found end of input");
  expect_error("CREATE SOURCE s (a FOO)", "1:20: type \"foo\" does not exist");
  expect_error("CREATE SOURCE s (\n  a BIGINT,\n  b VARCHR NOT NULL\n)",
               "3:5: type \"varchr\" does not exist");
  expect_error("SELECT a FROM t garbage more",
               "1:17: expected WHERE, GROUP BY, HAVING, ORDER BY, LIMIT, "
               "OFFSET, EMIT, ';' or end of input, found 'garbage'");
  expect_error("SELECT a FROM t WHERE a > 1 GROUP BY a)",
               "1:39: expected HAVING, ORDER BY, LIMIT, OFFSET, EMIT, ';' or "
               "end of input, found ')'");
  expect_error("SELECT 1; SELECT 2 3", "1:20: expected FROM, found '3'");
  expect_error("DROP SOURCE s extra", "1:15: expected ';' or end of input, "
                                      "found 'extra'");
  expect_error("CREATE SOURCE s (a INT) FORM FILES ('path' = 'x')",
               "1:25: expected FROM, FORMAT, ';' or end of input, found "
               "'FORM' (did you mean FROM?)");
  expect_error("CREATE INDEX t (a INT)", "1:16: expected ON, found '('");
  expect_error("CREATE UNIQUE INDEX i ON t (a + 1)",
               "1:31: expected ',' or ')', found '+'");
  expect_error("CREATE TABLE t (a INT, UNIQUE a)",
               "1:31: expected '(', found 'a'");
  expect_error("REINDEX i", "1:9: expected INDEX or TABLE, found 'i'");
  expect_error("CREATE TABLE t (a INT PRIMARY KEY, PRIMARY KEY (a))",
               "1:36: multiple primary keys for table \"t\" are not allowed");
  expect_error("CREATE TABLE t (a INT PRIMARY)",
               "1:30: expected KEY, found ')'");
  expect_error("UPDATE t SET a 1", "1:16: expected '=', found '1'");
  expect_error("DELETE t", "1:8: expected FROM, found 't'");
  expect_error("INSERT INTO t DEFAULT VALUES",
               "1:15: expected VALUES or SELECT, found 'DEFAULT'");
  expect_error("CREATE STREM s AS SELECT 1",
               "1:8: expected SOURCE, STREAM, [MATERIALIZED] VIEW, SINK, "
               "TABLE or INDEX, found 'STREM' (did you mean STREAM?)");
  expect_error("CREATE STREAM s SELECT a FROM t",
               "1:17: expected AS, found 'SELECT'");
  expect_error("INSERT INTO t VALUES (1, 2), (3)",
               "1:31: VALUES lists must all be the same length");
  expect_error("INSERT INTO t (a, b, c) VALUES (1, 2)",
               "1:22: INSERT has more target columns than expressions");
  /* PostgreSQL 15: 22008 date/time field value out of range */
  expect_error("SELECT TIMESTAMP '2001-13-01 00:00:00'",
               "1:18: date/time field value out of range: \"2001-13-01 "
               "00:00:00\"");
  expect_error("SELECT INTERVAL 'ten' MINUTE",
               "1:17: invalid input syntax for type interval: \"ten\"");
  expect_error("SELECT a FROM t EMIT SOMETIMES",
               "1:22: expected ON WINDOW CLOSE, CHANGES, ON UPDATE, FINAL, "
               "AFTER WATERMARK or PERIODICALLY, found 'SOMETIMES'");
  expect_error("SELECT a FROM t EMIT ON WINDOW CLSE",
               "1:32: expected CLOSE, found 'CLSE' (did you mean CLOSE?)");
  expect_error("SELECT a FROM t\nWHERE a IS 5",
               "2:12: expected NULL, NOT NULL, TRUE, FALSE, UNKNOWN or [NOT] "
               "DISTINCT FROM, found '5'");
  expect_error("CREATE SOURCE s (a INT, a BIGINT)",
               "1:25: column \"a\" specified more than once");
  expect_error("CREATE SOURCE s (a INT,)",
               "1:24: expected a column definition, found ')'");
  expect_error("CREATE SOURCE s ()",
               "1:18: expected a column definition, found ')'");
  expect_error("SELECT a FROM t LIMIT -1", "1:23: LIMIT must not be negative");
  /* the count is an expression, folded as PostgreSQL evaluates it (a
   * column is computed when the query runs: an enclosing query's value in
   * a correlated subquery, else 42P10, tests/cases/errors_pg.sql) */
  expect_error("SELECT a FROM t LIMIT 99999999999999999999",
               "1:23: bigint out of range");
  expect_error("SELECT CASE WHEN a THEN 1",
               "1:26: expected WHEN, ELSE or END, found end of input");
  expect_error("SELECT a FROM select", "1:15: expected a source, stream, "
                                       "view or table name, found 'select'");
  expect_error("SELECT \"\" FROM t", "1:8: zero-length quoted identifier");
  expect_error("SELECT sum(x) FILTER (x > 1) FROM t",
               "1:23: expected WHERE, found 'x'");
  expect_error("SELECT sum(x) FILTER (WHERE x > 1 FROM t",
               "1:35: expected ')', found 'FROM'");
  {
    lm_sql_script *k = NULL;
    const lm_expr *e =
        one_expr("count(DISTINCT x) FILTER (WHERE y > 1)", &k, __LINE__);
    CHECK(e && e->kind == LM_EXPR_FUNC && e->distinct && e->filter &&
          e->filter->kind == LM_EXPR_BINARY && e->filter->op == LM_OP_GT);
    lm_sql_script_free(k);
  }
  { /* a FROM-less subquery in FROM is a one-row derived table, as in PG */
    lm_sql_script *k = NULL;
    lm_error e;
    const char *q1 = "SELECT * FROM (SELECT 1) AS c";
    CHECK(lm_sql_parse(q1, strlen(q1), &k, &e) == 0);
    lm_sql_script_free(k);
  }
  {
    /* subqueries nest to any depth (docs/joins.md) */
    lm_sql_script *k = parse_ok_at(
        "SELECT * FROM (SELECT a FROM (SELECT a FROM t) u) v", __LINE__);
    const lm_select *q = k ? k->stmts[0]->select : NULL;
    CHECK(q && q->from_clause && q->from_clause->kind == LM_FROM_SUBQUERY &&
          !strcmp(q->from_clause->alias, "v") &&
          q->from_subquery->from_clause->kind == LM_FROM_SUBQUERY &&
          !strcmp(q->from_subquery->from_clause->alias, "u") &&
          !strcmp(q->from_subquery->from_subquery->from, "t"));
    lm_sql_script_free(k);
  }
  /* VALUES in FROM is a derived table (setop.c); a bare expression is not */
  expect_error("SELECT * FROM (1)", "1:15: expected SELECT after '(' in FROM");
  {
    lm_sql_script *k = NULL;
    lm_error e;
    const char *q2 = "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(x, y)";
    CHECK(lm_sql_parse(q2, strlen(q2), &k, &e) == 0);
    const lm_select *q = k ? k->stmts[0]->select : NULL;
    CHECK(q && q->from_clause && q->from_clause->kind == LM_FROM_SUBQUERY &&
          q->from_clause->subquery->n_values == 2 &&
          q->from_clause->subquery->n_value_cols == 2 &&
          q->from_clause->n_col_aliases == 2 &&
          !strcmp(q->from_clause->col_aliases[1], "y"));
    lm_sql_script_free(k);
  }
  expect_error("SELECT * FROM (SELECT a FROM t WHERE a > 1",
               "1:43: expected ')' after the subquery, found end of input");
  expect_error("SELECT row_number() OVER (ORDER BY a LIMIT 1) FROM t",
               "1:38: expected ',' or ')', found 'LIMIT'");
  {
    lm_sql_script *k = NULL;
    const lm_expr *e = one_expr(
        "row_number() OVER (PARTITION BY k, j ORDER BY x DESC NULLS LAST)", &k,
        __LINE__);
    CHECK(e && e->kind == LM_EXPR_FUNC && e->over && e->n_args == 0 &&
          e->n_partition_by == 2 && e->n_over_order == 1 &&
          e->over_order[0].desc && e->over_order[0].nulls == 2);
    lm_sql_script_free(k);
    e = one_expr("row_number() OVER ()", &k, __LINE__);
    CHECK(e && e->over && !e->n_partition_by && !e->n_over_order);
    lm_sql_script_free(k);
    k = parse_ok_at("SELECT k FROM (SELECT k, row_number() OVER (ORDER BY "
                    "x) AS rn FROM s WHERE x > 0) AS t WHERE rn <= 3",
                    __LINE__);
    const lm_select *q = k ? k->stmts[0]->select : NULL;
    CHECK(q && q->from_subquery && !strcmp(q->from, "s") && q->from_alias &&
          !strcmp(q->from_alias, "t") && q->where &&
          q->from_subquery->n_items == 2 && q->from_subquery->where &&
          q->from_subquery->items[1].expr->over);
    lm_sql_script_free(k);
  }
  expect_error("SELECT CAST(a AS BLOB) FROM t",
               "1:18: type \"blob\" does not exist");
  expect_error("SELECT a::", "1:11: expected a type name, found end of input");
  expect_error("CREATE SOURCE s (a INT) FROM FILES ('path' 'x')",
               "1:44: expected '=', found string 'x'");
  expect_error("CREATE SOURCE s (a INT NOT NUL)",
               "1:28: expected NULL, found 'NUL' (did you mean NULL?)");
  expect_error("SELECT a FROM t ORDER BY a DESCC",
               "1:28: expected LIMIT, OFFSET, EMIT, ';' or end of input, "
               "found 'DESCC' (did you mean DESC?)");
  {
    /* joins: a left-deep tree (docs/joins.md) */
    lm_sql_script *k = parse_ok_at(
        "SELECT * FROM t AS x JOIN u y ON x.a = y.a LEFT OUTER JOIN v "
        "USING (a, b) LEFT SEMI JOIN w ON true CROSS JOIN z, zz",
        __LINE__);
    const lm_select *q = k ? k->stmts[0]->select : NULL;
    const lm_from *f = q ? q->from_clause : NULL;
    CHECK(q && !q->from && f && f->kind == LM_FROM_JOIN &&
          f->join == LM_SQL_JOIN_CROSS && !strcmp(f->right->name, "zz"));
    f = f ? f->left : NULL; /* CROSS JOIN z */
    CHECK(f && f->join == LM_SQL_JOIN_CROSS && !f->on);
    f = f ? f->left : NULL;
    CHECK(f && f->join == LM_SQL_JOIN_LEFT_SEMI && f->on);
    f = f ? f->left : NULL;
    CHECK(f && f->join == LM_SQL_JOIN_LEFT && f->n_using == 2 &&
          !strcmp(f->using_cols[1], "b") && !f->on);
    f = f ? f->left : NULL;
    CHECK(f && f->join == LM_SQL_JOIN_INNER && f->line == 1 &&
          f->column == 22 && f->on && !strcmp(f->right->alias, "y") &&
          f->left->kind == LM_FROM_TABLE && !strcmp(f->left->alias, "x"));
    lm_sql_script_free(k);
    k = parse_ok_at("SELECT * FROM o JOIN r FOR SYSTEM_TIME AS OF o.ts AS rr "
                    "ON o.c = rr.c RIGHT ANTI JOIN q ON true",
                    __LINE__);
    f = k ? k->stmts[0]->select->from_clause : NULL;
    CHECK(f && f->join == LM_SQL_JOIN_RIGHT_ANTI && f->left->system_time &&
          !strcmp(f->left->right->alias, "rr") &&
          f->left->system_time->kind == LM_EXPR_COLUMN);
    lm_sql_script_free(k);
    k = parse_ok_at("SELECT * FROM t LEFT ASOF JOIN q MATCH_CONDITION("
                    "NEAREST(t.ts, q.ts)) ON t.s = q.s ASOF JOIN p "
                    "MATCH_CONDITION(t.ts >= p.ts)",
                    __LINE__);
    f = k ? k->stmts[0]->select->from_clause : NULL;
    CHECK(f && f->asof && f->join == LM_SQL_JOIN_INNER && f->match && !f->on &&
          f->left->asof && f->left->join == LM_SQL_JOIN_LEFT &&
          f->left->match->kind == LM_EXPR_FUNC && f->left->on);
    lm_sql_script_free(k);
  }
  expect_error("SELECT a FROM t JOIN u WHERE a = 1",
               "1:24: expected ON or USING after the joined relation, found "
               "'WHERE'");
  expect_error("SELECT a FROM t LEFT SEMI u ON true",
               "1:27: expected JOIN, found 'u'");
  expect_error("SELECT a FROM t CROSS JOIN u ON true",
               "1:17: a CROSS JOIN takes no ON condition");
  expect_error("SELECT a FROM t JOIN u MATCH_CONDITION(a) ON true",
               "1:24: MATCH_CONDITION belongs to an ASOF JOIN");
  expect_error("SELECT a FROM t JOIN u USING ()",
               "1:31: expected a column name, found ')'");
  expect_error("SHOW INDEXES", "1:6: expected SOURCES, STREAMS, "
                               "MATERIALIZED VIEWS, SINKS, TABLES or "
                               "QUERIES, found "
                               "'INDEXES'");
  /* a lexer error after a good statement is reported at its position only
   * when reached; an earlier syntax error wins */
  expect_error("SELECT a FROM; SELECT 'x",
               "1:14: expected a source, stream, view or table name, found "
               "';'");
  const char nul[] = "SELECT a\0 FROM t";
  /* the text is checked before lexing: a NUL or invalid UTF-8 anywhere is
   * reported at its own position */
  expect_error_at(nul, sizeof nul - 1, "1:9: NUL byte in SQL text", __LINE__);
  const char bad[] = "SELECT 'a\xff' FROM t";
  expect_error_at(bad, sizeof bad - 1,
                  "1:10: invalid UTF-8 in SQL text (byte 0xFF)", __LINE__);
  const char surrogate[] = "SELECT '\xed\xa0\x80'";
  expect_error_at(surrogate, sizeof surrogate - 1,
                  "1:9: invalid UTF-8 in SQL text (byte 0xED)", __LINE__);
}

static void test_depth(void) {
  size_t n = 100000;
  char *sql = malloc(n + 64);
  strcpy(sql, "SELECT ");
  memset(sql + 7, '(', n);
  strcpy(sql + 7 + n, "1");
  lm_sql_script *s = NULL;
  lm_error err;
  int rc = lm_sql_parse(sql, strlen(sql), &s, &err);
  CHECK(rc == LM_ERR_PARSE && s == NULL);
  /* PostgreSQL's 54001: the stack check or the 10,000-level limit */
  CHECK(strstr(err.msg, "stack depth limit exceeded") != NULL);
  CHECK(!strcmp(err.sqlstate, "54001"));
  CHECK(err.line == 1 && err.column > 7 && err.column < 7 + 10001);

  /* 200 levels are fine */
  strcpy(sql, "SELECT ");
  memset(sql + 7, '(', 200);
  sql[207] = '1';
  memset(sql + 208, ')', 200);
  sql[408] = '\0';
  s = parse_ok(sql);
  CHECK(s != NULL);
  lm_sql_script_free(s);

  /* long operator chains, unary chains and NOT chains are bounded too
   * (AND / OR chains are balanced trees: 50,000 terms parse, below) */
  const char *units[] = {"1+", "- ", "NOT ", "a||", "1 = "};
  for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
    size_t ul = strlen(units[u]);
    size_t reps = 50000;
    char *q = malloc(16 + ul * reps + 8);
    strcpy(q, "SELECT ");
    size_t o = 7;
    for (size_t i = 0; i < reps; i++, o += ul)
      memcpy(q + o, units[u], ul);
    strcpy(q + o, "1");
    rc = lm_sql_parse(q, strlen(q), &s, &err);
    CHECK(rc == LM_ERR_PARSE && s == NULL);
    CHECK(strstr(err.msg, "stack depth limit exceeded") != NULL);
    free(q);
  }
  {
    size_t reps = 50000;
    char *q = malloc(16 + 6 * reps + 8);
    strcpy(q, "SELECT ");
    for (size_t i = 0; i < reps; i++)
      memcpy(q + 7 + 6 * i, "1 AND ", 6);
    strcpy(q + 7 + 6 * reps, "1");
    s = parse_ok(q);
    CHECK(s != NULL);
    lm_sql_script_free(s);
    free(q);
  }
  /* too many columns */
  {
    lm_buf b;
    lm_buf_init(&b);
    lm_buf_puts(&b, "CREATE SOURCE s (");
    for (int i = 0; i < 4097; i++)
      lm_buf_printf(&b, "%sc%d INT", i ? ", " : "", i);
    lm_buf_puts(&b, ")");
    rc = lm_sql_parse(b.data, b.len, &s, &err);
    CHECK(rc == LM_ERR_PARSE && strstr(err.msg, "too many columns"));
    lm_buf_free(&b);
  }
  /* x::INT::INT::... */
  {
    size_t reps = 50000;
    char *q = malloc(16 + 5 * reps);
    strcpy(q, "SELECT x");
    for (size_t i = 0; i < reps; i++)
      memcpy(q + 8 + 5 * i, "::INT", 5);
    q[8 + 5 * reps] = '\0';
    rc = lm_sql_parse(q, strlen(q), &s, &err);
    CHECK(rc == LM_ERR_PARSE && strstr(err.msg, "stack depth limit exceeded"));
    free(q);
  }
  free(sql);
}

/* Subquery expressions: the form, the operand and the comparison. */
static void test_subqueries(void) {
  check_shape("(SELECT 1)", "(scalar)");
  check_shape("((SELECT 1))", "(scalar)");
  check_shape("EXISTS (SELECT * FROM u)", "(exists)");
  check_shape("NOT EXISTS (SELECT * FROM u)", "(not (exists))");
  check_shape("a IN (SELECT x FROM u)", "(any= a)");
  check_shape("a NOT IN (SELECT x FROM u)", "(notany= a)");
  check_shape("a + 1 > ALL (SELECT x FROM u)", "(all> (+ a 1))");
  check_shape("a < SOME (SELECT x FROM u)", "(any< a)");
  check_shape("a <> ANY (SELECT x FROM u WHERE u.y = t.a)", "(any<> a)");
  check_shape("a = (SELECT x FROM u) + 1", "(= a (+ (scalar) 1))");
  check_shape("a IN (1, 2) AND EXISTS (SELECT 1)", "(and (in a 1 2) (exists))");
  check_shape("(SELECT (SELECT 1) FROM u)", "(scalar)");
  lm_sql_script *s;
  const lm_expr *e =
      one_expr("a IN (SELECT x FROM u WHERE x > 1)", &s, __LINE__);
  checks++;
  if (!e || !e->subquery || !e->subquery->where ||
      strcmp(e->subquery->from, "u") != 0) {
    failures++;
    fprintf(stderr, "%s:%d: IN (SELECT ...) lost its query\n", __FILE__,
            __LINE__);
  }
  lm_sql_script_free(s);
  expect_error("SELECT EXISTS (1) FROM t",
               "1:15: expected SELECT after EXISTS (");
  expect_error("SELECT (SELECT 1 FROM t",
               "1:24: expected ')' after the subquery, found end of input");
}

int main(void) {
  test_subqueries();
  test_flights_pipeline();
  test_seed_trades();
  test_sources_and_sinks();
  test_misc_statements();
  test_select_clauses();
  test_keyword_names();
  test_literals();
  test_precedence();
  test_print();
  test_types();
  test_errors();
  test_depth();
  if (failures) {
    fprintf(stderr, "test_sql_parser: %d of %d checks failed\n", failures,
            checks);
    return 1;
  }
  printf("test_sql_parser: %d checks passed\n", checks);
  return 0;
}
