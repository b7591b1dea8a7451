/* tests/unit/test_setop.c — the parser's set operations (PostgreSQL's
 * precedence: INTERSECT binds tighter than UNION / EXCEPT, left to right
 * otherwise), WITH, VALUES, column aliases, and plan/join_order.c's greedy
 * inner join order. Exit status: 0 when every check passes. */
#include <stdlib.h>
#include <string.h>

#include "base/lm_base.h"
#include "lm_test.h"
#include "plan/lm_plan.h"
#include "sql/lm_sql.h"

static const lm_select *parse1(const char *sql, lm_sql_script **s) {
  lm_error err;
  *s = NULL;
  if (lm_sql_parse(sql, strlen(sql), s, &err) || !*s || (*s)->n_stmts != 1) {
    fprintf(stderr, "parse failed: %s: %s\n", sql, err.msg);
    return NULL;
  }
  return (*s)->stmts[0]->select;
}

static void parse_err(const char *sql, const char *want) {
  lm_sql_script *s = NULL;
  lm_error err;
  int rc = lm_sql_parse(sql, strlen(sql), &s, &err);
  CHECK(rc != 0);
  /* (a syntax error's expectation is its HINT) */
  bool hit = rc && (strstr(err.msg, want) || strstr(err.hint, want));
  if (rc && !hit)
    fprintf(stderr, "%s: got \"%s\", want \"%s\"\n", sql, err.msg, want);
  CHECK(hit);
  lm_sql_script_free(s);
}

static void test_precedence(void) {
  lm_sql_script *s;
  /* 1 UNION (2 INTERSECT 3) */
  const lm_select *q = parse1("SELECT 1 UNION SELECT 2 INTERSECT SELECT 3", &s);
  CHECK(q && q->setop == LM_SETOP_UNION && !q->set_all);
  CHECK(q && q->set_left->n_items == 1 &&
        q->set_right->setop == LM_SETOP_INTERSECT);
  lm_sql_script_free(s);
  /* (1 EXCEPT ALL 2) UNION 3: left to right */
  q = parse1("SELECT 1 EXCEPT ALL SELECT 2 UNION DISTINCT SELECT 3", &s);
  CHECK(q && q->setop == LM_SETOP_UNION && !q->set_all &&
        q->set_left->setop == LM_SETOP_EXCEPT && q->set_left->set_all);
  lm_sql_script_free(s);
  /* parentheses; ORDER BY / LIMIT after the last SELECT: the whole's */
  q = parse1("(SELECT a FROM t UNION SELECT b FROM u) INTERSECT SELECT c FROM "
             "v ORDER BY 1 DESC LIMIT 5 OFFSET 2",
             &s);
  CHECK(q && q->setop == LM_SETOP_INTERSECT &&
        q->set_left->setop == LM_SETOP_UNION && q->n_order_by == 1 &&
        q->order_by[0].desc && q->limit == 5 && q->offset == 2 &&
        q->set_right->n_order_by == 0 && q->set_right->limit == -1);
  lm_sql_script_free(s);
  q = parse1("(SELECT a FROM t ORDER BY a LIMIT 1) UNION ALL (SELECT b FROM u "
             "LIMIT 2) LIMIT 3",
             &s);
  CHECK(q && q->set_all && q->limit == 3 && q->set_left->limit == 1 &&
        q->set_left->n_order_by == 1 && q->set_right->limit == 2);
  lm_sql_script_free(s);
  /* implicit aliases before a set operator */
  q = parse1("SELECT a x FROM t y UNION SELECT b FROM u z EXCEPT SELECT 1 w",
             &s);
  CHECK(q && q->setop == LM_SETOP_EXCEPT &&
        !strcmp(q->set_left->set_left->items[0].alias, "x") &&
        !strcmp(q->set_left->set_left->from_alias, "y") &&
        !strcmp(q->set_left->set_right->from_alias, "z") &&
        !strcmp(q->set_right->items[0].alias, "w"));
  lm_sql_script_free(s);
  parse_err("SELECT a FROM t ORDER BY a UNION SELECT b FROM u",
            "1:28: ORDER BY, LIMIT or OFFSET before UNION");
  parse_err("(SELECT a FROM t LIMIT 1) LIMIT 2",
            "1:27: multiple ORDER BY / LIMIT / OFFSET clauses not allowed");
  parse_err("SELECT 1 UNION", "expected SELECT, VALUES or '('");
}

static void test_with_values(void) {
  lm_sql_script *s;
  const lm_select *q =
      parse1("WITH a(x, y) AS (SELECT 1, 2), b AS MATERIALIZED "
             "(SELECT x FROM a) SELECT x FROM b",
             &s);
  CHECK(q && q->n_ctes == 2 && !strcmp(q->ctes[0].name, "a") &&
        q->ctes[0].n_cols == 2 && !strcmp(q->ctes[0].cols[1], "y") &&
        q->ctes[1].query->from && !strcmp(q->ctes[1].query->from, "a") &&
        q->with_line == 1 && q->with_column == 1 && !q->with_recursive);
  lm_sql_script_free(s);
  q = parse1(
      "WITH RECURSIVE r AS (SELECT 1 UNION ALL SELECT 2) SELECT * FROM r", &s);
  CHECK(q && q->with_recursive && q->ctes[0].query->setop == LM_SETOP_UNION);
  lm_sql_script_free(s);
  q = parse1("VALUES (1, 'a'), (2, NULL) ORDER BY 2", &s);
  CHECK(q && q->n_values == 2 && q->n_value_cols == 2 && q->n_order_by == 1);
  lm_sql_script_free(s);
  q = parse1("SELECT * FROM (VALUES (1)) v(x) JOIN t AS w(p, q) ON v.x = w.p",
             &s);
  CHECK(q && q->from_clause->kind == LM_FROM_JOIN &&
        q->from_clause->left->n_col_aliases == 1 &&
        !strcmp(q->from_clause->left->alias, "v") &&
        q->from_clause->right->n_col_aliases == 2);
  lm_sql_script_free(s);
  parse_err("VALUES (1, 2), (3)",
            "1:17: VALUES lists must all be the same length");
  parse_err("WITH a AS SELECT 1 SELECT 2", "'(' before the WITH query");
  parse_err("WITH a AS (1) SELECT 2", "expected SELECT, VALUES or WITH");
}

static void test_join_order(void) {
  /* a chain 0 - 2 - 1 - 3 (edges) with sizes 100, 50, 10, 80: start with
   * the smallest that has an equality (2, 10 rows), then its smallest
   * neighbour (1, 50), then 0 (100, connected to 2) or 3 (80, connected to
   * 1): 3, then 0 */
  int64_t rows[4] = {100, 50, 10, 80};
  int ea[3] = {0, 2, 1}, eb[3] = {2, 1, 3};
  int order[4];
  lm_join_order_greedy(4, rows, ea, eb, 3, order);
  CHECK(order[0] == 2 && order[1] == 1 && order[2] == 3 && order[3] == 0);
  /* no equality at all: smallest first */
  int64_t r2[3] = {5, 3, 9};
  lm_join_order_greedy(3, r2, NULL, NULL, 0, order);
  CHECK(order[0] == 1 && order[1] == 0 && order[2] == 2);
  /* a relation connected to nothing comes after the connected ones */
  int64_t r3[3] = {1, 100, 100};
  int a3[1] = {1}, b3[1] = {2};
  lm_join_order_greedy(3, r3, a3, b3, 1, order);
  CHECK(order[0] == 1 && order[1] == 2 && order[2] == 0);
}

int main(void) {
  test_precedence();
  test_with_values();
  test_join_order();
  return lm_test_done("test_setop");
}
