/* Unit tests for shared subplans (plan/shared_subplan.c,
 * api/shared_input.c): which inputs of a query read another input's
 * window aggregate instead of computing their own, as EXPLAIN shows it
 * ("Shared:"). The results of shared plans are checked against
 * hand-computed answers in tests/slt/shared_subplan.slt. */
#include <stdlib.h>

#include "laminar.h"
#include "lm_test.h"

#define HOP "HOP(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND)"
#define HS "HOP_START(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND)"
#define HE "HOP_END(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND)"

/* Whether EXPLAIN of a view over `a` joined with MAX(num) over `c` (two
 * subqueries) says an input is shared; -1 on an error. */
static int shared(const char *a, const char *c) {
  laminar_db *db = NULL;
  laminar_error err;
  memset(&err, 0, sizeof err);
  if (laminar_open(&db, &err))
    return -1;
  char sql[4096];
  snprintf(sql, sizeof sql,
           "CREATE SOURCE bid (auction BIGINT, price BIGINT, ts TIMESTAMP, "
           "WATERMARK FOR ts);"
           "CREATE MATERIALIZED VIEW v AS SELECT A.auction, A.num FROM (%s) "
           "A JOIN (SELECT max(C.num) AS maxn, C.starttime, C.endtime FROM "
           "(%s) C GROUP BY C.starttime, C.endtime) M ON A.starttime = "
           "M.starttime AND A.endtime = M.endtime AND A.num >= M.maxn",
           a, c);
  laminar_result *r = NULL;
  int rc = laminar_execute(db, sql, NULL, &err);
  if (!rc)
    rc = laminar_execute(db, "EXPLAIN v", &r, &err);
  int got = rc ? -1 : 0;
  for (int64_t i = 0; !rc && r && i < laminar_result_num_rows(r); i++) {
    const char *t = laminar_result_value_text(r, i, 0);
    if (t && strstr(t, "Shared: "))
      got = 1;
  }
  if (rc)
    fprintf(stderr, "%s\n", err.message);
  laminar_result_free(r);
  laminar_close(db, &err);
  return got;
}

int main(void) {
  const char *a =
      "SELECT auction, count(*) AS num, " HS " AS starttime, " HE
      " AS endtime FROM bid GROUP BY auction, " HOP " EMIT ON WINDOW CLOSE";
  /* q5: the same aggregate, fewer columns */
  CHECK(shared(a, "SELECT count(*) AS num, " HS " AS starttime, " HE
                  " AS endtime FROM bid GROUP BY auction, " HOP
                  " EMIT ON WINDOW CLOSE") == 1);
  /* the same columns in another order */
  CHECK(shared(a, "SELECT " HE " AS endtime, count(*) AS num, " HS
                  " AS starttime FROM bid GROUP BY auction, " HOP
                  " EMIT ON WINDOW CLOSE") == 1);
  /* not shared: another WHERE, aggregate, key, window or emit mode, or a
   * column the first does not compute */
  CHECK(shared(a, "SELECT count(*) AS num, " HS " AS starttime, " HE
                  " AS endtime FROM bid WHERE price > 1 GROUP BY auction, " HOP
                  " EMIT ON WINDOW CLOSE") == 0);
  CHECK(shared(a, "SELECT sum(price) AS num, " HS " AS starttime, " HE
                  " AS endtime FROM bid GROUP BY auction, " HOP
                  " EMIT ON WINDOW CLOSE") == 0);
  CHECK(shared(a, "SELECT count(*) AS num, " HS " AS starttime, " HE
                  " AS endtime FROM bid GROUP BY price, " HOP
                  " EMIT ON WINDOW CLOSE") == 0);
  CHECK(shared(a, "SELECT count(*) AS num, HOP_START(ts, INTERVAL '5' "
                  "SECOND, INTERVAL '15' SECOND) AS starttime, HOP_END(ts, "
                  "INTERVAL '5' SECOND, INTERVAL '15' SECOND) AS endtime FROM "
                  "bid GROUP BY auction, HOP(ts, INTERVAL '5' SECOND, "
                  "INTERVAL '15' SECOND) EMIT ON WINDOW CLOSE") == 0);
  CHECK(shared(a, "SELECT count(*) AS num, " HS " AS starttime, " HE
                  " AS endtime FROM bid GROUP BY auction, " HOP
                  " EMIT FINAL") == 0);
  CHECK(shared(a, "SELECT count(*) + 1 AS num, " HS " AS starttime, " HE
                  " AS endtime FROM bid GROUP BY auction, " HOP
                  " EMIT ON WINDOW CLOSE") == 0);
  return lm_test_done("test_shared_subplan");
}
