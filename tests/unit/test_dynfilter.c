/* Unit tests for plan/dynfilter.c (lm_plan_dynfilter: which interval
 * join steps take a dynamic filter) and its effect at run time (the rows
 * the join drops, shown by EXPLAIN ANALYZE's "Rows Filtered"). The
 * results of filtered joins are checked against hand-computed answers in
 * tests/slt/joins_dynfilter.slt. Relations: bid (k BIGINT, i INT,
 * s VARCHAR, ts TIMESTAMP) with ts as event time. (A window aggregate
 * over a changelog, whose MAX could fall, is refused by the planner.) */
#include <stdlib.h>

#include "base/lm_base.h"
#include "laminar.h"
#include "lm_test.h"
#include "plan/lm_plan.h"
#include "sql/lm_sql.h"

static lm_schema *S4;

static int resolve(void *ctx, const char *name, int line, int col,
                   lm_rel_info *out, lm_error *err) {
  (void)ctx;
  memset(out, 0, sizeof *out);
  out->time_col = -1;
  if (!strcmp(name, "bid")) {
    out->schema = S4;
    out->time_col = 3;
  } else {
    return lm_err_at(err, LM_ERR_NOTFOUND, line, col, "no relation '%s'", name);
  }
  return 0;
}

/* Plans `sql` (a streaming join); -1 when planning failed, else whether
 * step 0 has a dynamic filter, with its fields in *st. */
static int dyn_of(const char *sql, lm_join_step *st, int line) {
  lm_sql_script *sc = NULL;
  lm_error err;
  memset(&err, 0, sizeof err);
  lm_plan *p = NULL;
  int rc = lm_sql_parse(sql, strlen(sql), &sc, &err);
  if (!rc)
    rc = lm_plan_join_select(sc->stmts[0]->select, resolve, NULL, false, 0, &p,
                             &err);
  lm_sql_script_free(sc);
  if (rc || !p->join || p->join->n_steps < 1) {
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, line, sql, err.msg);
    lm_plan_free(p);
    return -1;
  }
  *st = p->join->steps[0];
  int r = st->dyn ? 1 : 0;
  lm_plan_free(p);
  return r;
}

#define AGG(f, win, end)                                                       \
  "(SELECT " f "(k) AS m, " end "(ts, " win ") AS w FROM bid GROUP BY "        \
  "TUMBLE(ts, " win ") EMIT ON WINDOW CLOSE)"
#define TEN "INTERVAL '10' SECOND"
#define BOUND " AND B.ts BETWEEN B1.w - " TEN " AND B1.w"

static void expect(int want, const char *sql, int line) {
  lm_join_step st;
  int got = dyn_of(sql, &st, line);
  if (got != want)
    fprintf(stderr, "%s:%d: dynamic filter %d, want %d: %s\n", __FILE__, line,
            got, want, sql);
  CHECK(got == want);
}

/* Runs the statements of slt/joins_dynfilter.slt's q7 through the API and
 * returns the "Rows Filtered" count of EXPLAIN ANALYZE (-1 if absent). */
static int64_t filtered_rows(const char *agg_fn) {
  laminar_db *db = NULL;
  laminar_error err;
  memset(&err, 0, sizeof err);
  if (laminar_open(&db, &err))
    return -2;
  char sql[2048];
  snprintf(sql, sizeof sql,
           "CREATE SOURCE bid (auction BIGINT, price BIGINT, ts TIMESTAMP, "
           "WATERMARK FOR ts AS ts - INTERVAL '5' SECOND);"
           "CREATE STREAM q AS SELECT B.auction, B.price, B.ts FROM bid B "
           "JOIN (SELECT %s(price) AS mp, TUMBLE_END(ts, " TEN ") AS wend "
           "FROM bid GROUP BY TUMBLE(ts, " TEN ") EMIT ON WINDOW CLOSE) B1 "
           "ON B.price = B1.mp WHERE B.ts BETWEEN B1.wend - " TEN
           " AND B1.wend",
           agg_fn);
  static const char *const ins[] = {
      "(1, 5, 1), (2, 9, 3)",
      "(3, 7, 2), (4, 9, 4), (5, 12, 10)",
      "(6, 12, 6), (7, 3, 11)",
      "(8, 12, 8), (9, 11, 7), (10, 4, 13), (14, 9, 10)",
      "(11, 15, 20), (12, 14, 19)",
      "(13, 1, 36)",
  };
  int rc = laminar_execute(db, sql, NULL, &err);
  for (size_t i = 0; !rc && i < sizeof ins / sizeof ins[0]; i++) {
    /* (auction, price, seconds) -> a TIMESTAMP through to_timestamp */
    char b[512], v[400];
    const char *p = ins[i];
    size_t n = 0;
    long a, pr, s;
    int used;
    v[0] = 0;
    while (sscanf(p, " (%ld, %ld, %ld)%n", &a, &pr, &s, &used) == 3) {
      n += (size_t)snprintf(v + n, sizeof v - n,
                            "%s(%ld, %ld, TIMESTAMP '1970-01-01 00:00:%02ld')",
                            n ? ", " : "", a, pr, s);
      p += used;
      while (*p == ',' || *p == ' ')
        p++;
    }
    snprintf(b, sizeof b, "INSERT INTO bid VALUES %s", v);
    rc = laminar_execute(db, b, NULL, &err);
  }
  laminar_result *r = NULL;
  if (!rc)
    rc = laminar_execute(db, "EXPLAIN (ANALYZE, TIMING OFF) q", &r, &err);
  int64_t got = -1;
  for (int64_t i = 0; !rc && r && i < laminar_result_num_rows(r); i++) {
    const char *t = laminar_result_value_text(r, i, 0);
    const char *f = t ? strstr(t, "Rows Filtered: ") : NULL;
    if (f)
      got = strtoll(f + 15, NULL, 10);
  }
  if (rc)
    fprintf(stderr, "%s: %s\n", agg_fn, err.message);
  laminar_result_free(r);
  laminar_close(db, &err);
  return got;
}

int main(void) {
  S4 = lm_schema_new(4);
  lm_schema_set_field(S4, 0, "k", lm_type_make(LM_TYPE_INT64), true);
  lm_schema_set_field(S4, 1, "i", lm_type_make(LM_TYPE_INT32), true);
  lm_schema_set_field(S4, 2, "s", lm_type_make(LM_TYPE_UTF8), true);
  lm_schema_set_field(S4, 3, "ts", lm_type_make(LM_TYPE_TIMESTAMP), true);

  /* q7's shape: MAX, the window end as time, either operand order */
  lm_join_step st;
  CHECK(dyn_of("SELECT B.k FROM bid B JOIN " AGG(
                   "MAX", TEN, "TUMBLE_END") " B1 ON B.k = B1.m" BOUND,
               &st, __LINE__) == 1);
  CHECK(st.dyn_side == 0 && st.dyn_key == 0 && st.dyn_agg == 0 && st.dyn_max &&
        st.dyn_time_end);
  expect(1,
         "SELECT B.k FROM bid B JOIN " AGG(
             "MIN", TEN, "TUMBLE_END") " B1 ON B1.m = B.k" BOUND,
         __LINE__);
  /* the window start as time: TUMBLE_START */
  expect(1,
         "SELECT B.k FROM bid B JOIN " AGG(
             "MAX", TEN, "TUMBLE_START") " B1 ON B.k = B1.m AND B.ts BETWEEN "
                                         "B1.w AND B1.w + " TEN,
         __LINE__);
  /* the aggregate on the left: the right rows are filtered */
  CHECK(
      dyn_of("SELECT B.k FROM " AGG(
                 "MAX", TEN, "TUMBLE_END") " B1 JOIN bid B ON B.k = B1.m" BOUND,
             &st, __LINE__) == 1);
  CHECK(st.dyn_side == 1);
  /* a second key: still one row per window, the filter holds */
  expect(1,
         "SELECT B.k FROM bid B JOIN (SELECT MAX(k) AS m, SUM(k) AS t, "
         "TUMBLE_END(ts, " TEN ") AS w FROM bid GROUP BY TUMBLE(ts, " TEN
         ") EMIT ON WINDOW CLOSE) B1 ON B.k = B1.m AND B.k = B1.t" BOUND,
         __LINE__);

  /* not filtered: an outer join (unmatched bids are emitted) */
  expect(0,
         "SELECT B.k FROM bid B LEFT JOIN " AGG(
             "MAX", TEN, "TUMBLE_END") " B1 ON B.k = B1.m" BOUND,
         __LINE__);
  /* SUM, COUNT: not monotone bounds of the key */
  expect(0,
         "SELECT B.k FROM bid B JOIN " AGG(
             "SUM", TEN, "TUMBLE_END") " B1 ON B.k = B1.m" BOUND,
         __LINE__);
  /* grouped by more than the window: several rows per window */
  expect(
      0,
      "SELECT B.k FROM bid B JOIN (SELECT i, MAX(k) AS m, TUMBLE_END(ts, " TEN
      ") AS w FROM bid GROUP BY i, TUMBLE(ts, " TEN
      ") EMIT ON WINDOW CLOSE) B1 ON B.k = B1.m" BOUND,
      __LINE__);
  /* a computed key (the MAX plus one) */
  expect(0,
         "SELECT B.k FROM bid B JOIN " AGG(
             "MAX", TEN, "TUMBLE_END") " B1 ON B.k = B1.m + 1" BOUND,
         __LINE__);
  /* a cast key: INT MAX against a BIGINT */
  expect(0,
         "SELECT B.k FROM bid B JOIN (SELECT MAX(i) AS m, TUMBLE_END(ts, " TEN
         ") AS w FROM bid GROUP BY TUMBLE(ts, " TEN
         ") EMIT ON WINDOW CLOSE) B1 ON B.k = B1.m" BOUND,
         __LINE__);
  /* ALLOW LATENESS: a window's value changes after it was emitted */
  expect(0,
         "SELECT B.k FROM bid B JOIN (SELECT MAX(k) AS m, TUMBLE_END(ts, " TEN
         ") AS w FROM bid GROUP BY TUMBLE(ts, " TEN
         ") EMIT ON WINDOW CLOSE ALLOW LATENESS INTERVAL '1' SECOND) B1 "
         "ON B.k = B1.m" BOUND,
         __LINE__);
  /* at run time (tests/slt/joins_dynfilter.slt's pushes as INSERTs; each
   * INSERT is one batch, watermark ts - 5 s). The join's side of a batch
   * runs before the aggregate folds it, so the bounds are those of the
   * earlier batches. MAX: dropped are 3 (7 < 9 at 2 s), 7 (3 < 12 at
   * 11 s), 9 (11 < 12 at 7 s), 10 (4 < 12 at 13 s) and 14 (9 at 10 s,
   * below 12 in both windows it can join): 5. MIN: 3 and 4 (7, 9 > 5 at
   * 2 s, 4 s), 6, 8, 9 (12, 12, 11 > 5), 10 (4 > 3 at 13 s), 14 (9 at
   * 10 s: > 5 and > 3), 12 (14 > 3 at 19 s): 8; kept are 1, 2 (no value
   * yet), 5 and 11 (on a window end: the next window has no value yet),
   * 7 (3 <= 12), 13. */
  CHECK_EQ_I64(filtered_rows("MAX"), 5);
  CHECK_EQ_I64(filtered_rows("MIN"), 8);

  lm_schema_release(S4);
  return lm_test_done("test_dynfilter");
}
