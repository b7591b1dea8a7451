/*
 * Streaming OVER aggregation over a changelog input
 * (src/exec/op_over_changelog.c): a seeded random trace of insertions and
 * retractions (of live rows, at any time: out of order) pushed through SQL
 * into a __weight source, checked after every batch against the OVER
 * results recomputed from scratch over the multiset of live rows. The
 * query's changelog is applied by a materialized view; its rows must be
 * exactly the recomputed ones (as sorted text lines).
 *
 * The model: live rows (k, t, v) in arrival order; per partition k, the
 * rows sorted by (t, then the row's values k, v, then arrival), NULLs last
 * (v and t may be NULL);
 *   s3 = SUM(v)   ROWS BETWEEN 2 PRECEDING AND CURRENT ROW
 *   c  = COUNT(v) RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT
 *        ROW (rows with t in [t - 2 s, t], peers included; a NULL t: the
 *        NULL-t rows)
 *   mn = MIN(v)   RANGE UNBOUNDED PRECEDING (every row up to the last peer)
 *   n  = COUNT(*) ROWS UNBOUNDED PRECEDING, over PARTITION BY v % 2 (a
 *        second partitioning);
 *   a3 = ROUND(AVG(v) ROWS 2 PRECEDING * 1000), as a BIGINT.
 * A retraction of (k, t, v) removes the live equal row inserted last, as
 * the operator documents. LM_SEED=n replays one trace (longer);
 * LM_OVER_STEPS sets the steps per trace (default 120).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "laminar.h"
#include "lm_test.h"
#include "lm_test_sql.h"

static uint64_t rng;
static uint64_t rnd(void) {
  return lm_test_xorshift(&rng);
}
#define exec lm_test_exec

enum { MAXR = 3000, NULLV = -1000000 };

/* t: seconds (NULLV: NULL), v: value (NULLV: NULL) */
typedef lm_test_row row;

static row rows[MAXR];
static int n_rows;

/* (t, then the row's values k, v, then arrival) with NULLs last */
static int before(const row *a, int ia, const row *b, int ib) {
  bool an = a->t == NULLV, bn = b->t == NULLV;
  if (an != bn)
    return bn;
  if (!an && a->t != b->t)
    return a->t < b->t;
  if (a->k != b->k)
    return a->k < b->k;
  an = a->v == NULLV;
  bn = b->v == NULLV;
  if (an != bn)
    return bn;
  if (!an && a->v != b->v)
    return a->v < b->v;
  return ia < ib;
}

static void ts_text(char *buf, size_t n, int64_t s) {
  if (s == NULLV)
    snprintf(buf, n, "NULL");
  else
    lm_test_ts_text(buf, n, s, 'T');
}

/* The sorted text lines "k|t|v|s3|c|mn|n|a3" of every live row. */
static void expected(char *out, size_t cap) {
  static int ord[MAXR];
  size_t len = 0;
  out[0] = 0;
  for (int i = 0; i < n_rows; i++) {
    if (!rows[i].live)
      continue;
    const row *r = &rows[i];
    /* partition k, sorted */
    int n = 0;
    for (int j = 0; j < n_rows; j++)
      if (rows[j].live && rows[j].k == r->k)
        ord[n++] = j;
    for (int a = 1; a < n; a++) /* insertion sort */
      for (int b = a; b > 0 && before(&rows[ord[b]], ord[b], &rows[ord[b - 1]],
                                      ord[b - 1]);
           b--) {
        int t = ord[b];
        ord[b] = ord[b - 1];
        ord[b - 1] = t;
      }
    int p = 0;
    while (ord[p] != i)
      p++;
    /* s3: ROWS 2 PRECEDING */
    int64_t s3 = 0, s3n = 0;
    for (int q = p - 2 < 0 ? 0 : p - 2; q <= p; q++)
      if (rows[ord[q]].v != NULLV) {
        s3 += rows[ord[q]].v;
        s3n++;
      }
    /* c: RANGE 2 s PRECEDING (peers in); mn: RANGE UNBOUNDED */
    int64_t c = 0, mn = 0;
    bool any = false;
    for (int q = 0; q < n; q++) {
      const row *y = &rows[ord[q]];
      bool in_range, upto;
      if (r->t == NULLV) {
        in_range = y->t == NULLV;
        upto = true;
      } else {
        in_range = y->t != NULLV && y->t >= r->t - 2 && y->t <= r->t;
        upto = y->t != NULLV && y->t <= r->t;
      }
      if (in_range && y->v != NULLV)
        c++;
      if (upto && y->v != NULLV && (!any || y->v < mn)) {
        mn = y->v;
        any = true;
      }
    }
    /* n: COUNT(*) ROWS UNBOUNDED over PARTITION BY v % 2 */
    int64_t cnt = 0;
    for (int j = 0; j < n_rows; j++) {
      const row *y = &rows[j];
      if (!y->live)
        continue;
      bool same = (y->v == NULLV && r->v == NULLV) ||
                  (y->v != NULLV && r->v != NULLV && y->v % 2 == r->v % 2);
      if (same && (j == i || before(y, j, r, i)))
        cnt++;
    }
    char ts[32], vs[32], s3s[32], mns[32];
    ts_text(ts, sizeof ts, r->t);
    snprintf(vs, sizeof vs, "%lld", (long long)r->v);
    snprintf(s3s, sizeof s3s, "%lld", (long long)s3);
    snprintf(mns, sizeof mns, "%lld", (long long)mn);
    /* a3: ROUND(AVG(v) ROWS 2 PRECEDING * 1000), never a half (n <= 3) */
    char a3s[32] = "NULL";
    if (s3n)
      snprintf(a3s, sizeof a3s, "%lld",
               (long long)llround((double)s3 / (double)s3n * 1000.0));
    len += (size_t)snprintf(
        out + len, cap - len, "%c|%s|%s|%s|%lld|%s|%lld|%s\n", 'a' + r->k, ts,
        r->v == NULLV ? "NULL" : vs, s3n ? s3s : "NULL", (long long)c,
        any ? mns : "NULL", (long long)cnt, a3s);
  }
  lm_test_sort_lines(out);
}

static void actual(laminar_db *db, char *out, size_t cap) {
  lm_test_query_lines(db, "SELECT k, ts, v, s3, c, mn, n, a3 FROM v", 8, true,
                      out, cap);
}

static int run(uint64_t seed, int steps) {
  rng = seed;
  n_rows = 0;
  int fails = lm_test_failures;
  laminar_db *db = NULL;
  laminar_error e;
  if (laminar_open(&db, &e))
    return 1;
  CHECK(!exec(db,
              "CREATE SOURCE cl (k VARCHAR, v BIGINT, ts TIMESTAMP, "
              "__weight BIGINT)",
              NULL));
  CHECK(!exec(db,
              "CREATE MATERIALIZED VIEW v AS SELECT k, ts, v, "
              "SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 "
              "PRECEDING AND CURRENT ROW) AS s3, "
              "COUNT(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN "
              "INTERVAL '2' SECOND PRECEDING AND CURRENT ROW) AS c, "
              "MIN(v) OVER (PARTITION BY k ORDER BY ts) AS mn, "
              "COUNT(*) OVER (PARTITION BY v % 2 ORDER BY ts ROWS BETWEEN "
              "UNBOUNDED PRECEDING AND CURRENT ROW) AS n, "
              "CAST(ROUND(AVG(v) OVER (PARTITION BY k ORDER BY ts ROWS "
              "BETWEEN 2 PRECEDING AND CURRENT ROW) * 1000) AS BIGINT) AS a3 "
              "FROM cl",
              NULL));
  static char exp[1 << 18], act[1 << 18];
  char sql[2048];
  for (int step = 0; step < steps && n_rows < MAXR - 10; step++) {
    int nb = 1 + (int)(rnd() % 5);
    size_t len = (size_t)snprintf(sql, sizeof sql, "INSERT INTO cl VALUES ");
    for (int j = 0; j < nb; j++) {
      int64_t k, t, v, w;
      int live = lm_test_live(rows, n_rows);
      if (live && rnd() % 3 == 0) { /* retract a live row */
        int i = lm_test_nth_live(rows, n_rows, (int)(rnd() % (uint64_t)live));
        k = rows[i].k;
        t = rows[i].t;
        v = rows[i].v;
        w = -1;
        for (int q = n_rows - 1; q >= 0; q--) /* the last equal one */
          if (rows[q].live && rows[q].k == k && rows[q].t == t &&
              rows[q].v == v) {
            rows[q].live = false;
            break;
          }
      } else {
        k = (int64_t)(rnd() % 3);
        t = rnd() % 16 == 0 ? NULLV : (int64_t)(rnd() % 10);
        v = rnd() % 12 == 0 ? NULLV : (int64_t)(rnd() % 9) - 3;
        w = 1;
        rows[n_rows++] = (row){(int)k, t, v, true};
      }
      char ts[64], tv[32], vv[32];
      ts_text(tv, sizeof tv, t);
      if (t == NULLV)
        snprintf(ts, sizeof ts, "NULL");
      else
        snprintf(ts, sizeof ts, "TIMESTAMP '%.10s %s'", tv, tv + 11);
      if (v == NULLV)
        snprintf(vv, sizeof vv, "NULL");
      else
        snprintf(vv, sizeof vv, "%lld", (long long)v);
      len += (size_t)snprintf(sql + len, sizeof sql - len,
                              "%s('%c', %s, %s, %lld)", j ? ", " : "",
                              (char)('a' + k), vv, ts, (long long)w);
    }
    CHECK(!exec(db, sql, NULL));
    expected(exp, sizeof exp);
    actual(db, act, sizeof act);
    CHECK_EQ_STR(act, exp);
    if (lm_test_failures != fails) {
      fprintf(stderr, "seed %llu step %d (last batch: %s)\n",
              (unsigned long long)seed, step, sql);
      break;
    }
  }
  laminar_close(db, &e);
  return lm_test_failures != fails;
}

int main(void) {
  const char *s = getenv("LM_SEED");
  const char *st = getenv("LM_OVER_STEPS");
  int steps = st ? atoi(st) : 120;
  if (s) {
    run(strtoull(s, NULL, 10), st ? steps : 600);
  } else {
    for (uint64_t seed = 1; seed <= 4; seed++)
      if (run(seed * 0x9E3779B97F4A7C15ULL, steps))
        break;
  }
  return lm_test_done("test_over_changelog");
}
