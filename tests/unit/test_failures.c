/*
 * Failed-query isolation (docs/failures.md) through the embedded API only
 * (include/laminar.h): rows pushed with laminar_push_arrow into a changelog
 * source read by four queries; one of them meets more retractions than
 * insertions. The push succeeds, laminar_notices names the failed query and
 * the one downstream of it, laminar_query_state / laminar_query_failures
 * report them, and the other queries keep receiving every row (checked by
 * hand-computed values in the comments). DROP of the failed view works.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "laminar.h"
#include "lm_test.h"

static laminar_db *db;
static laminar_error err;

static int exec(const char *sql, laminar_result **r) {
  memset(&err, 0, sizeof err);
  int rc = laminar_execute(db, sql, r, &err);
  if (rc && !r)
    fprintf(stderr, "  %s\n  -> %s\n", sql, err.message);
  return rc;
}

/* ---- a producer's batch: g BIGINT, __weight BIGINT (no NULLs). Laminar
 * keeps the buffers (zero-copy) until it calls the parent's release, so
 * everything lives in one heap block freed there. ---- */

typedef struct pbatch {
  struct ArrowArray parent, c0, c1, *kids[2];
  const void *pbufs[1], *gb[2], *wb[2];
  int64_t data[];
} pbatch;

static void release_child(struct ArrowArray *a) {
  a->release = NULL;
}
static void release_parent(struct ArrowArray *a) {
  for (int i = 0; i < a->n_children; i++)
    if (a->children[i]->release)
      a->children[i]->release(a->children[i]);
  a->release = NULL;
  free(a->private_data);
}
static void release_schema(struct ArrowSchema *s) {
  s->release = NULL;
}

static struct ArrowSchema f_g = {"l",  "g",  NULL,           0,   0,
                                 NULL, NULL, release_schema, NULL};
static struct ArrowSchema f_w = {"l",  "__weight", NULL,           0,   0,
                                 NULL, NULL,       release_schema, NULL};
static struct ArrowSchema *fields[2] = {&f_g, &f_w};
static struct ArrowSchema root = {"+s",   "",   NULL,           0,   2,
                                  fields, NULL, release_schema, NULL};

/* Pushes n rows (g[i], w[i]) into source cl; returns the call's code. */
static int push(const int64_t *g, const int64_t *w, int64_t n) {
  pbatch *p = calloc(1, sizeof *p + sizeof(int64_t) * (size_t)(2 * n));
  if (!p)
    return -1;
  memcpy(p->data, g, sizeof(int64_t) * (size_t)n);
  memcpy(p->data + n, w, sizeof(int64_t) * (size_t)n);
  p->gb[1] = p->data;
  p->wb[1] = p->data + n;
  p->c0.length = p->c1.length = p->parent.length = n;
  p->c0.n_buffers = p->c1.n_buffers = 2;
  p->c0.buffers = p->gb;
  p->c1.buffers = p->wb;
  p->c0.release = p->c1.release = release_child;
  p->kids[0] = &p->c0;
  p->kids[1] = &p->c1;
  p->parent.n_buffers = 1;
  p->parent.buffers = p->pbufs;
  p->parent.n_children = 2;
  p->parent.children = p->kids;
  p->parent.release = release_parent;
  p->parent.private_data = p;
  /* the struct is moved: Laminar copies it and marks ours released */
  struct ArrowArray moved = p->parent;
  p->parent.release = NULL;
  memset(&err, 0, sizeof err);
  int rc = laminar_push_arrow(db, "cl", &moved, &root, &err);
  if (rc)
    fprintf(stderr, "  push -> %s\n", err.message);
  return rc;
}

/* The text of row 0, column c of `sql`'s result ("" on error). */
static const char *cell(const char *sql, int c, char *buf, size_t cap) {
  laminar_result *r = NULL;
  buf[0] = 0;
  if (!exec(sql, &r) && r && laminar_result_num_rows(r) > 0) {
    const char *v = laminar_result_value_text(r, 0, c);
    snprintf(buf, cap, "%s", v ? v : "NULL");
  }
  laminar_result_free(r);
  return buf;
}

static int state_of(const char *name, const char **error) {
  int st = -1;
  memset(&err, 0, sizeof err);
  if (laminar_query_state(db, name, &st, error, &err))
    return -1;
  return st;
}

int main(void) {
  char buf[256];
  if (laminar_open(&db, &err)) {
    fprintf(stderr, "laminar_open: %s\n", err.message);
    return 1;
  }
  CHECK(!exec("CREATE SOURCE cl (g BIGINT, __weight BIGINT);"
              "CREATE MATERIALIZED VIEW agg AS SELECT g, COUNT(*) AS n FROM cl"
              " GROUP BY g;"
              "CREATE MATERIALIZED VIEW agg2 AS SELECT SUM(n) AS n FROM agg;"
              "CREATE MATERIALIZED VIEW tot AS SELECT COUNT(*) AS n, SUM(g)"
              " AS s FROM cl;"
              "CREATE STREAM pos AS SELECT g FROM cl WHERE g > 0",
              NULL));
  laminar_subscription *sub = NULL;
  CHECK(!laminar_subscribe(db, "pos", &sub, &err));
  CHECK_EQ_I64(laminar_query_failures(db), 0);

  int64_t g1[2] = {1, 2}, w1[2] = {1, 1};
  CHECK_EQ_I64(push(g1, w1, 2), 0);
  CHECK_EQ_STR(laminar_notices(db), "");

  /* g = 9 has no live row: agg refuses the batch and fails, agg2 with it;
   * the push itself succeeds */
  int64_t g2[2] = {3, 9}, w2[2] = {1, -1};
  CHECK_EQ_I64(push(g2, w2, 2), 0);
  const char *no = laminar_notices(db);
  /* an API push has no statement position: the notice starts with the
   * object */
  CHECK(strncmp(no, "materialized view agg failed and stopped", 40) == 0);
  CHECK(strstr(no, "more retractions than insertions") != NULL);
  CHECK(strstr(no, "\nmaterialized view agg2 failed and stopped") != NULL);
  CHECK_EQ_I64(laminar_query_failures(db), 2);
  const char *e = NULL;
  CHECK_EQ_I64(state_of("agg", &e), LAMINAR_QUERY_FAILED);
  CHECK(e && strstr(e, "more retractions than insertions for a group"));
  CHECK_EQ_I64(state_of("agg2", &e), LAMINAR_QUERY_FAILED);
  CHECK(e && strstr(e, "its input materialized view agg failed: more "
                       "retractions"));
  e = "x";
  CHECK_EQ_I64(state_of("tot", &e), LAMINAR_QUERY_RUNNING);
  CHECK(e == NULL);
  CHECK_EQ_I64(state_of("pos", NULL), LAMINAR_QUERY_RUNNING);
  CHECK_EQ_I64(state_of("cl", NULL), -1); /* a source has no query */
  CHECK_EQ_I64(err.code, LAMINAR_ERR_NOTFOUND);

  /* the others saw the whole batch: tot = 4 rows' weights 1 + 1 + 1 - 1 = 2,
   * SUM 1 + 2 + 3 - 9 = -3 */
  CHECK_EQ_STR(cell("SELECT n FROM tot", 0, buf, sizeof buf), "2");
  CHECK_EQ_STR(cell("SELECT s FROM tot", 0, buf, sizeof buf), "-3");
  /* reading the failed view reports its error */
  laminar_result *r = NULL;
  CHECK(exec("SELECT * FROM agg", &r) == LAMINAR_ERR_EXEC);
  CHECK(strstr(err.message, "materialized view 'agg': the query stopped "
                            "after an earlier error: more retractions"));
  laminar_result_free(r);

  /* later pushes reach the running queries only, with no new notice */
  int64_t g3[1] = {4}, w3[1] = {1};
  CHECK_EQ_I64(push(g3, w3, 1), 0);
  CHECK_EQ_STR(laminar_notices(db), "");
  CHECK_EQ_I64(laminar_query_failures(db), 2);
  CHECK_EQ_STR(cell("SELECT s FROM tot", 0, buf, sizeof buf), "1");
  /* pos: a filter over a changelog passes the weights on: 1, 2, 3, -9
   * (kept: 9 > 0), 4 -> five changelog rows */
  laminar_result *d = NULL;
  CHECK(!laminar_subscription_drain(sub, &d, &err));
  CHECK_EQ_I64(laminar_result_num_rows(d), 5);
  laminar_result_free(d);

  /* SHOW QUERIES: active false and the error for the failed ones */
  CHECK_EQ_STR(cell("SHOW QUERIES", 2, buf, sizeof buf), "false");
  CHECK(strstr(cell("SHOW QUERIES", 3, buf, sizeof buf),
               "more retractions than insertions"));

  /* DROP works on a failed view (CASCADE takes agg2), and it can be made
   * again: it starts with the rows pushed after it (a changelog source
   * keeps none) */
  CHECK(!exec("DROP MATERIALIZED VIEW agg CASCADE", NULL));
  CHECK_EQ_I64(state_of("agg", NULL), -1);
  CHECK_EQ_I64(state_of("agg2", NULL), -1);
  CHECK(!exec("CREATE MATERIALIZED VIEW agg AS SELECT g, COUNT(*) AS n FROM"
              " cl GROUP BY g",
              NULL));
  int64_t g4[1] = {5}, w4[1] = {1};
  CHECK_EQ_I64(push(g4, w4, 1), 0);
  CHECK_EQ_STR(cell("SELECT g, n FROM agg", 0, buf, sizeof buf), "5");
  CHECK_EQ_I64(state_of("agg", NULL), LAMINAR_QUERY_RUNNING);
  CHECK_EQ_I64(laminar_query_failures(db), 2);

  /* a failure met by laminar_end_source (the final watermark closes a
   * window whose merged HOP panes overflow SUM) is isolated the same way */
  CHECK(!exec("CREATE SOURCE ev (x DECIMAL(38,0), ts TIMESTAMP, WATERMARK FOR"
              " ts);"
              "CREATE STREAM h AS SELECT SUM(x) AS s FROM ev GROUP BY"
              " hop(ts, INTERVAL '1' SECOND, INTERVAL '2' SECOND)"
              " EMIT ON WINDOW CLOSE;"
              "CREATE STREAM t AS SELECT COUNT(*) AS n FROM ev GROUP BY"
              " tumble(ts, INTERVAL '1' SECOND) EMIT ON WINDOW CLOSE;"
              "INSERT INTO ev VALUES (99999999999999999999999999999999999999,"
              " TIMESTAMP '1970-01-01 00:00:00.5'),"
              " (1, TIMESTAMP '1970-01-01 00:00:01.5')",
              NULL));
  laminar_subscription *ts = NULL;
  CHECK(!laminar_subscribe(db, "t", &ts, &err));
  memset(&err, 0, sizeof err);
  CHECK_EQ_I64(laminar_end_source(db, "ev", &err), 0);
  CHECK(strstr(laminar_notices(db), "stream h failed and stopped") != NULL);
  CHECK(strstr(laminar_notices(db), "numeric field overflow") != NULL);
  CHECK_EQ_I64(state_of("h", NULL), LAMINAR_QUERY_FAILED);
  /* t closed [1, 2) at the end ([0, 1) closed at the INSERT's watermark
   * 1.5 s, before the subscription) */
  d = NULL;
  CHECK(!laminar_subscription_drain(ts, &d, &err));
  CHECK_EQ_I64(laminar_result_num_rows(d), 1);
  laminar_result_free(d);
  CHECK_EQ_I64(laminar_query_failures(db), 3);

  /* EMIT ON WINDOW CLOSE over a table can never emit: refused at CREATE,
   * at the EMIT keyword (line 2, column 3), SQLSTATE 0A000 */
  CHECK(exec("CREATE TABLE tb (ts TIMESTAMP, x BIGINT);", NULL) == 0);
  r = NULL;
  CHECK(exec("CREATE STREAM nw AS SELECT COUNT(*) AS n FROM tb GROUP BY\n"
             "  tumble(ts, INTERVAL '1' SECOND) EMIT ON WINDOW CLOSE",
             &r) == LAMINAR_ERR_BIND);
  laminar_result_free(r);
  CHECK_EQ_I64(err.line, 2);
  CHECK_EQ_I64(err.column, 35);
  CHECK_EQ_STR(err.sqlstate, "0A000");
  CHECK(strstr(err.message, "can never emit here") != NULL);

  laminar_unsubscribe(ts);
  laminar_unsubscribe(sub);
  laminar_close(db, &err);
  return lm_test_done("failures");
}
