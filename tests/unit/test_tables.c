/*
 * Tables (src/api/table.c) and per-partition watermarks
 * (src/api/source_parts.c): a seeded random trace of upserts (with
 * repeated keys in one INSERT), DELETEs and UPDATEs through SQL, checked
 * after every step against a brute-force model: the table's rows, its
 * primary-key lookups (lm_table_lookup / lm_table_gather, the interface of
 * lookup joins), a materialized view over it, and laminar_changes. The
 * trace replaces rows often enough that compaction runs many times.
 */
#include <stdlib.h>
#include <string.h>

#include "api/engine.h"
#include "laminar.h"
#include "lm_test.h"
#include "lm_test_sql.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void) {
  return lm_test_xorshift(&rng);
}
#define exec lm_test_exec

enum { K = 40 };

static void check_model(laminar_db *db, const bool *present, const int64_t *v,
                        int step) {
  lm_node *t = lm_engine_find(db, "t");
  CHECK(t && t->kind == LM_NODE_TABLE && t->n_pk == 1 && t->pk_cols[0] == 0);
  int64_t n = 0, sum = 0;
  for (int k = 0; k < K; k++)
    if (present[k]) {
      n++;
      sum += v[k];
    }
  CHECK_EQ_I64(lm_table_rows(t->table), n);
  /* lookups of every key (and of a NULL key) */
  lm_builder kb;
  lm_builder_init(&kb, lm_type_make(LM_TYPE_INT64), K + 1);
  for (int k = 0; k < K; k++)
    lm_builder_append_int(&kb, k);
  lm_builder_append_null(&kb);
  lm_array *keys = NULL;
  lm_builder_finish(&kb, &keys);
  lm_builder_free(&kb);
  int64_t ids[K + 1];
  lm_error err;
  lm_err_clear(&err);
  CHECK_EQ_I64(lm_table_lookup(t->table, &keys, K + 1, ids, &err), 0);
  lm_batch *g = NULL;
  CHECK_EQ_I64(lm_table_gather(t->table, ids, K + 1, &g, &err), 0);
  for (int k = 0; g && k <= K; k++) {
    bool want = k < K && present[k];
    CHECK_EQ_I64(ids[k] >= 0, want);
    CHECK_EQ_I64(!lm_array_is_null(g->columns[0], k), want);
    if (want && ids[k] >= 0) {
      CHECK_EQ_I64(lm_array_get_i64(g->columns[0], k), k);
      CHECK_EQ_I64(lm_array_get_i64(g->columns[1], k), v[k]);
    }
  }
  lm_batch_release(g);
  lm_array_release(keys);
  /* an ad-hoc aggregate over the table and the view over it */
  const char *qs[2] = {"SELECT COUNT(*), SUM(v) FROM t", "SELECT * FROM agg"};
  for (int i = 0; i < 2; i++) {
    laminar_result *r = NULL;
    CHECK_EQ_I64(exec(db, qs[i], &r), 0);
    if (!r)
      continue;
    CHECK_EQ_I64(laminar_result_num_rows(r), 1);
    const char *c = laminar_result_value_text(r, 0, 0);
    CHECK(c && strtoll(c, NULL, 10) == n);
    const char *s = laminar_result_value_text(r, 0, 1);
    if (n)
      CHECK(s && strtoll(s, NULL, 10) == sum);
    else
      CHECK(s == NULL);
    if (lm_test_failures)
      fprintf(stderr, "  (step %d: n %lld sum %lld)\n", step, (long long)n,
              (long long)sum);
    laminar_result_free(r);
  }
}

static void test_random_trace(void) {
  laminar_db *db = NULL;
  laminar_error e;
  CHECK_EQ_I64(laminar_open(&db, &e), 0);
  CHECK_EQ_I64(
      exec(db, "CREATE TABLE t (k BIGINT PRIMARY KEY, v BIGINT)", NULL), 0);
  CHECK_EQ_I64(exec(db,
                    "CREATE MATERIALIZED VIEW agg AS "
                    "SELECT COUNT(*) AS n, SUM(v) AS s FROM t",
                    NULL),
               0);
  bool present[K] = {0};
  int64_t v[K] = {0};
  char sql[4096];
  for (int step = 0; step < 1500 && !lm_test_failures; step++) {
    int op = (int)(rnd() % 10);
    int64_t want_changes = 0;
    if (op < 5) { /* an upsert of 1..12 rows, keys may repeat */
      int n = 1 + (int)(rnd() % 12);
      size_t l = (size_t)snprintf(sql, sizeof sql, "INSERT INTO t VALUES ");
      for (int i = 0; i < n; i++) {
        int k = (int)(rnd() % K);
        int64_t x = (int64_t)(rnd() % 1000) - 500;
        l += (size_t)snprintf(sql + l, sizeof sql - l, "%s(%d, %lld)",
                              i ? ", " : "", k, (long long)x);
        present[k] = true; /* the last row of a key wins */
        v[k] = x;
      }
      want_changes = n;
    } else if (op < 7) { /* DELETE WHERE k % m = r */
      int m = 2 + (int)(rnd() % 6), r = (int)(rnd() % (unsigned)m);
      snprintf(sql, sizeof sql, "DELETE FROM t WHERE k %% %d = %d", m, r);
      for (int k = 0; k < K; k++)
        if (present[k] && k % m == r) {
          present[k] = false;
          want_changes++;
        }
    } else { /* UPDATE SET v = v * 2 + 1 WHERE v < x */
      int64_t x = (int64_t)(rnd() % 1000) - 500;
      snprintf(sql, sizeof sql, "UPDATE t SET v = v * 2 + 1 WHERE v < %lld",
               (long long)x);
      for (int k = 0; k < K; k++)
        if (present[k] && v[k] < x) {
          v[k] = v[k] * 2 + 1;
          if (v[k] > 1000000000 || v[k] < -1000000000)
            v[k] = 0; /* keep the numbers small: reset below */
          want_changes++;
        }
      /* the reset above is applied in SQL too */
      size_t l = strlen(sql);
      snprintf(sql + l, sizeof sql - l,
               "; UPDATE t SET v = 0 WHERE v > 1000000000 OR v < -1000000000");
    }
    CHECK_EQ_I64(exec(db, sql, NULL), 0);
    if (op < 7)
      CHECK_EQ_I64(laminar_changes(db), want_changes);
    check_model(db, present, v, step);
  }
  laminar_close(db, &e);
}

/* The source watermark over partitions: held while an active partition has
 * no row, the minimum otherwise; exhausted and idle ones do not count. */
static bool done_flags[4];
static bool part_done(lm_source_reader *r, int p) {
  (void)r;
  return done_flags[p];
}

static void test_partitions(void) {
  lm_parts p = {0};
  lm_source_reader r;
  memset(&r, 0, sizeof r);
  r.n_partitions = 3;
  r.partition_done = part_done;
  lm_schema *s = lm_schema_new(1);
  lm_schema_set_field(s, 0, "ts", lm_type_make(LM_TYPE_TIMESTAMP), true);
  int64_t times[3][2] = {{100, 200}, {10, 20}, {50, 60}};
  int64_t late = 0;
  lm_error err;
  lm_err_clear(&err);
  /* partition 0 first: 1 and 2 have no rows -> held */
  for (int part = 0; part < 3; part++) {
    lm_builder b;
    lm_builder_init(&b, lm_type_make(LM_TYPE_TIMESTAMP), 2);
    lm_builder_append_int(&b, times[part][0]);
    lm_builder_append_int(&b, times[part][1]);
    lm_array *a = NULL;
    lm_builder_finish(&b, &a);
    lm_builder_free(&b);
    lm_batch *in = lm_batch_new(lm_schema_retain(s), 2, &a), *out = NULL;
    int64_t src_wm = lm_parts_watermark(&p, &r, 0, 0);
    CHECK_EQ_I64(lm_parts_push(&p, part, 3, 0, 5, 0, src_wm, 0, false, in, &out,
                               &late, &err),
                 0);
    CHECK(out && out->num_rows == 2); /* nothing late */
    lm_batch_release(out);
    lm_batch_release(in);
    int64_t w = lm_parts_watermark(&p, &r, 0, 0);
    CHECK_EQ_I64(w, part < 2 ? INT64_MIN : 20 - 5); /* min(195, 15, 55) */
  }
  CHECK_EQ_I64(late, 0);
  CHECK_EQ_I64(lm_parts_max_ts(&p), 200);
  done_flags[1] = true; /* the slow one is exhausted: min(195, 55) */
  CHECK_EQ_I64(lm_parts_watermark(&p, &r, 0, 0), 55);
  /* idle: partition 2's last row was at processing time 0; at 1000 µs
   * with a 500 µs timeout it no longer counts */
  CHECK_EQ_I64(lm_parts_watermark(&p, &r, 1000, 500), 195);
  CHECK_EQ_I64(lm_parts_watermark(&p, &r, 400, 500), 55);
  done_flags[0] = done_flags[2] = true; /* all exhausted: the largest */
  CHECK_EQ_I64(lm_parts_watermark(&p, &r, 0, 0), 195);
  lm_parts_free(&p);
  lm_schema_release(s);
}

int main(void) {
  test_partitions();
  test_random_trace();
  return lm_test_done("test_tables");
}
