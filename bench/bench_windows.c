/*
 * Windowed aggregates (issue 4 item 9), in events/s per core (process CPU
 * time), each beside a plain C hash-aggregation loop over the same arrays in
 * the same run.
 *
 * Data: N events (default 8 M) pre-generated into in-memory batches of 4096
 * rows: key (BIGINT, or VARCHAR "user%07u" with -s), v BIGINT, ts TIMESTAMP
 * advancing 2 µs per event (500 K events/s of event time, 16 s for 8 M) with
 * up to 50 ms of disorder; keys uniform over K (1 K and 1 M). The source's
 * watermark is ts - 100 ms, so no row is late.
 *
 * Queries (each `SELECT k, <window>, COUNT(*), SUM(v) FROM ev GROUP BY k,
 * <window> EMIT ON WINDOW CLOSE`):
 *   tumble   tumble(ts, INTERVAL '1' SECOND)
 *   hop      hop(ts, INTERVAL '2' SECOND, INTERVAL '10' SECOND)
 *   session  session(ts, INTERVAL '1' SECOND)
 * Batches go through lm_engine_push (api/engine.h: the push path of
 * laminar_push_arrow after the C Data import, as bench_flights does), the
 * output is taken from a subscription's queue after every push (rows counted,
 * batches released); laminar_end_source closes the last windows; all timed.
 *
 * Reference: a plain C open-addressing hash table (key -> count, sum) per
 * pane (tumble: 1 s; hop: 2 s panes, a window's 5 panes merged into a scratch
 * table when it closes; session: key -> current session, closed when a row
 * comes gap after its last one), closing on the same watermark after each
 * batch. Both sides' totals (rows emitted, SUM(COUNT), SUM(SUM)) are printed
 * and COUNT/SUM totals checked equal.
 *
 * Usage: bench_windows [events=8000000] [repetitions=3] [-s] [-b] [-c]
 *        [q=NAME] [k=KEYS]
 *   -s  VARCHAR keys only; -b BIGINT keys only (default: both);
 *   -c  the source is a changelog (a trailing __weight BIGINT, every row
 *       +1; the column is appended to each batch inside the timed run):
 *       the windows' retractable states (for session: the changelog
 *       session operator, op_session_changelog.c);
 *   q=tumble|hop|session  that query only; k=1000|1000000  that key count.
 * Prints a markdown table (best repetition) and a `result` line per case.
 * Not a test: timings vary.
 */
#include "bench_common.h"

enum { Q_TUMBLE, Q_HOP, Q_SESSION, NQ };
static const char *QNAME[NQ] = {"tumble 1s", "hop 2s/10s", "session 1s"};
static const char *QWIN[NQ] = {
    "tumble(ts, INTERVAL '1' SECOND)",
    "hop(ts, INTERVAL '2' SECOND, INTERVAL '10' SECOND)",
    "session(ts, INTERVAL '1' SECOND)"};

typedef struct totals {
  int64_t rows, count, sum;
} totals;

/* --------------------------------------------------- the plain C reference */

typedef struct ent {
  int64_t key; /* BIGINT key, or a pointer to the bytes for VARCHAR */
  int32_t len; /* VARCHAR length */
  uint32_t hash;
  int64_t cnt, sum;    /* cnt == 0: empty slot */
  int64_t first, last; /* session only */
} ent;

typedef struct table {
  ent *e;
  uint64_t mask;
  int64_t id; /* the pane it holds, INT64_MIN = none */
  int64_t used;
} table;

static uint64_t hash_i64(int64_t k) {
  uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}
static uint64_t hash_str(const char *p, int32_t len) {
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
  for (int32_t i = 0; i < len; i++)
    h = (h ^ (uint8_t)p[i]) * 0x100000001b3ull;
  return h ^ (h >> 29);
}

static void table_init(table *t, int64_t groups) {
  uint64_t cap = 16;
  while (cap < (uint64_t)groups * 2)
    cap <<= 1;
  t->e = calloc(cap, sizeof *t->e);
  t->mask = cap - 1;
  t->id = INT64_MIN;
  t->used = 0;
}
static void table_clear(table *t) {
  memset(t->e, 0, (t->mask + 1) * sizeof *t->e);
  t->used = 0;
}

static inline ent *find(table *t, bool str, int64_t key, int32_t len,
                        uint64_t h) {
  uint64_t i = h & t->mask;
  for (;;) {
    ent *e = &t->e[i];
    if (e->cnt == 0) {
      e->key = key;
      e->len = len;
      e->hash = (uint32_t)h;
      t->used++;
      return e;
    }
    if (str ? (e->hash == (uint32_t)h && e->len == len &&
               memcmp((const char *)(intptr_t)e->key,
                      (const char *)(intptr_t)key, (size_t)len) == 0)
            : e->key == key)
      return e;
    i = (i + 1) & t->mask;
  }
}

/* emits every group of t into tot (and, when into != NULL, merges them) */
static void emit_table(table *t, bool str, table *into, totals *tot) {
  for (uint64_t i = 0; i <= t->mask; i++) {
    ent *e = &t->e[i];
    if (!e->cnt)
      continue;
    if (into) {
      ent *m = find(into, str, e->key, e->len, e->hash);
      m->cnt += e->cnt;
      m->sum += e->sum;
    } else {
      tot->rows++;
      tot->count += e->cnt;
      tot->sum += e->sum;
    }
  }
}

static int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static void reference(const dataset *d, int q, totals *tot) {
  memset(tot, 0, sizeof *tot);
  const bool str = d->str;
  const int64_t pane = q == Q_TUMBLE ? 1000000 : 2000000;
  const int per_win = q == Q_HOP ? 5 : 1; /* panes per window */
  const int64_t gap = 1000000;
  int64_t per_pane = pane / BENCH_STEP_US;
  int64_t groups = d->keys < per_pane ? d->keys : per_pane;
  int np = per_win + 2;
  table *panes = calloc((size_t)np, sizeof *panes);
  table scratch = {0}, sess = {0};
  if (q == Q_SESSION)
    table_init(&sess, d->keys);
  else {
    for (int i = 0; i < np; i++)
      table_init(&panes[i], groups);
    if (per_win > 1)
      table_init(&scratch,
                 d->keys < per_pane * per_win ? d->keys : per_pane * per_win);
  }
  int64_t max_ts = INT64_MIN, next_close = INT64_MIN; /* next window end */
  for (int b = 0; b <= d->nb; b++) {
    if (b < d->nb) {
      int64_t rows = d->batches[b]->num_rows;
      const int64_t *kk = d->k[b], *vv = d->v[b], *tt = d->ts[b];
      const int32_t *off = d->off[b];
      const char *data = d->data[b];
      for (int64_t r = 0; r < rows; r++) {
        int64_t key;
        int32_t len = 0;
        uint64_t h;
        if (str) {
          key = (int64_t)(intptr_t)(data + off[r]);
          len = off[r + 1] - off[r];
          h = hash_str(data + off[r], len);
        } else {
          key = kk[r];
          h = hash_i64(key);
        }
        int64_t ts = tt[r];
        if (ts > max_ts)
          max_ts = ts;
        if (q == Q_SESSION) {
          ent *e = find(&sess, str, key, len, h);
          if (e->cnt && ts >= e->last + gap) { /* the old session ends */
            tot->rows++;
            tot->count += e->cnt;
            tot->sum += e->sum;
            e->cnt = e->sum = 0;
          }
          if (!e->cnt)
            e->first = e->last = ts;
          else if (ts > e->last)
            e->last = ts;
          else if (ts < e->first)
            e->first = ts;
          e->cnt++;
          e->sum += vv[r];
          continue;
        }
        int64_t p = floordiv(ts, pane);
        table *t = &panes[p % np];
        if (t->id != p)
          t->id = p; /* a free pane (cleared when it expired) */
        ent *e = find(t, str, key, len, h);
        e->cnt++;
        e->sum += vv[r];
      }
    }
    if (q == Q_SESSION)
      continue;
    /* close windows the watermark passed (all at the end) */
    int64_t wm = b < d->nb ? max_ts - BENCH_DELAY_US : INT64_MAX;
    if (next_close == INT64_MIN)
      next_close = (floordiv(BENCH_T0_US - BENCH_DISORDER_US, pane) + 1) * pane;
    int64_t last_end = (floordiv(max_ts, pane) + per_win) * pane;
    while (next_close <= wm && next_close <= last_end) {
      int64_t p_last = next_close / pane - 1; /* the window's last pane */
      if (per_win == 1) {
        table *t = &panes[p_last % np];
        if (t->id == p_last) {
          emit_table(t, str, NULL, tot);
          table_clear(t);
          t->id = INT64_MIN;
        }
      } else {
        for (int64_t p = p_last - per_win + 1; p <= p_last; p++) {
          table *t = &panes[((p % np) + np) % np];
          if (t->id == p)
            emit_table(t, str, &scratch, tot);
        }
        if (scratch.used) {
          emit_table(&scratch, str, NULL, tot);
          table_clear(&scratch);
        }
        table *t = &panes[((p_last - per_win + 1) % np + np) % np];
        if (t->id == p_last - per_win + 1) { /* its last window closed */
          table_clear(t);
          t->id = INT64_MIN;
        }
      }
      next_close += pane;
    }
  }
  if (q == Q_SESSION) {
    emit_table(&sess, str, NULL, tot);
    free(sess.e);
  }
  for (int i = 0; i < np; i++)
    free(panes[i].e);
  free(panes);
  free(scratch.e);
}

/* --------------------------------------------------------------- the engine */

static bool g_changelog; /* -c */

static int engine(const dataset *d, int q, totals *tot) {
  memset(tot, 0, sizeof *tot);
  char sql[2048];
  snprintf(sql, sizeof sql,
           "CREATE SOURCE ev (k %s NOT NULL, v BIGINT NOT NULL,"
           " ts TIMESTAMP NOT NULL,%s"
           " WATERMARK FOR ts AS ts - INTERVAL '100' MILLISECOND);"
           "CREATE STREAM out AS SELECT k, %s AS w, COUNT(*) AS c,"
           " SUM(v) AS s FROM ev GROUP BY k, %s EMIT ON WINDOW CLOSE;",
           d->str ? "VARCHAR" : "BIGINT",
           g_changelog ? " __weight BIGINT NOT NULL," : "", QWIN[q], QWIN[q]);
  laminar_db *db;
  laminar_error lerr;
  laminar_subscription *sub;
  if (laminar_open(&db, &lerr) || laminar_execute(db, sql, NULL, &lerr) ||
      laminar_subscribe(db, "out", &sub, &lerr)) {
    fprintf(stderr, "%s\n", lerr.message);
    return 1;
  }
  lm_node *src = lm_engine_find(db, "ev");
  lm_error err;
  lm_err_clear(&err);
  int ci = -1, si = -1;
  for (int b = 0; b <= d->nb; b++) {
    lm_batch *in = b < d->nb ? d->batches[b] : NULL, *wb = NULL;
    if (in && g_changelog) { /* + __weight = 1 */
      int nc = in->num_columns;
      lm_array **cols = calloc((size_t)nc + 1, sizeof *cols);
      lm_builder wbld;
      if (!cols ||
          lm_builder_init(&wbld, lm_type_make(LM_TYPE_INT64), in->num_rows))
        return 1;
      for (int64_t r = 0; r < in->num_rows; r++)
        lm_builder_append_int(&wbld, 1);
      lm_builder_finish(&wbld, &cols[nc]);
      lm_builder_free(&wbld);
      for (int c = 0; c < nc; c++)
        cols[c] = lm_array_retain(in->columns[c]);
      wb = lm_batch_new(lm_schema_retain(src->schema), in->num_rows, cols);
      free(cols);
      in = wb;
    }
    int prc = in ? lm_engine_push(db, src, in, &err)
                 : laminar_end_source(db, "ev", (laminar_error *)&err);
    lm_batch_release(wb);
    if (prc) {
      fprintf(stderr, "%s\n", err.msg);
      return 1;
    }
    for (int i = 0; i < sub->n; i++) {
      lm_batch *o = sub->q[i];
      if (ci < 0) {
        ci = lm_schema_find(o->schema, "c");
        si = lm_schema_find(o->schema, "s");
      }
      const int64_t *c = lm_array_i64(o->columns[ci]);
      const int64_t *s = lm_array_i64(o->columns[si]);
      for (int64_t r = 0; r < o->num_rows; r++) {
        tot->count += c[r];
        tot->sum += s[r];
      }
      tot->rows += o->num_rows;
      lm_batch_release(o);
    }
    sub->n = 0;
  }
  if (src->late_dropped)
    fprintf(stderr, "warning: %lld late rows dropped\n",
            (long long)src->late_dropped);
  laminar_unsubscribe(sub);
  laminar_close(db, NULL);
  return 0;
}

int main(int argc, char **argv) {
  int64_t n = 8000000;
  int reps = 3, pos = 0;
  bool do_int = true, do_str = true;
  const char *only_q = NULL;
  int64_t only_k = 0;
  for (int i = 1; i < argc; i++) {
    if (!strncmp(argv[i], "q=", 2))
      only_q = argv[i] + 2;
    else if (!strncmp(argv[i], "k=", 2))
      only_k = atoll(argv[i] + 2);
    else if (!strcmp(argv[i], "-s"))
      do_int = false, do_str = true;
    else if (!strcmp(argv[i], "-b"))
      do_str = false, do_int = true;
    else if (!strcmp(argv[i], "-c"))
      g_changelog = true;
    else if (pos++ == 0)
      n = atoll(argv[i]);
    else
      reps = atoi(argv[i]);
  }
  if (n < BENCH_BATCH)
    n = BENCH_BATCH;
  if (reps < 1)
    reps = 1;
  const int64_t KEYS[2] = {1000, 1000000};
  printf("windowed aggregates, %lld events in batches of %d, %d "
         "repetitions (best), 500 K events/s of event time, disorder %d ms\n\n",
         (long long)n, BENCH_BATCH, reps, BENCH_DISORDER_US / 1000);
  printf("| query | key | keys | M events/s per core | reference M events/s "
         "| ratio | rows out |\n");
  printf("|---|---|---:|---:|---:|---:|---:|\n");
  fflush(stdout);
  int rc = 0;
  static char results[8192];
  size_t rl = 0;
  for (int st = 0; st < 2; st++) {
    if ((st == 0 && !do_int) || (st == 1 && !do_str))
      continue;
    for (int ki = 0; ki < 2; ki++) {
      if (only_k && KEYS[ki] != only_k)
        continue;
      dataset d;
      make_data(&d, st == 1, KEYS[ki], n);
      for (int q = 0; q < NQ; q++) {
        if (only_q && strncmp(QNAME[q], only_q, strlen(only_q)))
          continue;
        int64_t best_e = INT64_MAX, best_r = INT64_MAX;
        totals te, tr;
        for (int r = 0; r < reps; r++) {
          int64_t t0 = lm_cpu_time_us();
          reference(&d, q, &tr);
          int64_t t1 = lm_cpu_time_us();
          if (engine(&d, q, &te))
            return 1;
          int64_t t2 = lm_cpu_time_us();
          if (t1 - t0 < best_r)
            best_r = t1 - t0;
          if (t2 - t1 < best_e)
            best_e = t2 - t1;
        }
        double me = (double)n / (double)(best_e ? best_e : 1);
        double mr = (double)n / (double)(best_r ? best_r : 1);
        printf("| %s | %s | %lld | %.2f | %.2f | %.2f | %lld |\n", QNAME[q],
               st ? "VARCHAR" : "BIGINT", (long long)KEYS[ki], me, mr, me / mr,
               (long long)te.rows);
        rl += snprintf(results + rl, sizeof results - rl,
                       "result query=%s key=%s keys=%lld events=%lld "
                       "events_per_core_s=%.0f reference_per_core_s=%.0f "
                       "rows=%lld ref_rows=%lld\n",
                       q == Q_TUMBLE ? "tumble"
                       : q == Q_HOP  ? "hop"
                                     : "session",
                       st ? "varchar" : "bigint", (long long)KEYS[ki],
                       (long long)n, me * 1e6, mr * 1e6, (long long)te.rows,
                       (long long)tr.rows);
        if (te.count != tr.count || te.sum != tr.sum) {
          fprintf(stderr,
                  "MISMATCH %s: engine count %lld sum %lld, reference count "
                  "%lld sum %lld\n",
                  QNAME[q], (long long)te.count, (long long)te.sum,
                  (long long)tr.count, (long long)tr.sum);
          rc = 1;
        }
        fflush(stdout);
      }
      free_data(&d);
    }
  }
  printf("\n%s", results);
  return rc;
}
