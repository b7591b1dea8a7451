/*
 * Streaming OVER aggregation (exec/op_over.c), in events/s per core
 * (process CPU time), beside a plain C loop doing the same work over the
 * same arrays in the same run.
 *
 * Data: N events (default 4 M) in batches of 4096 rows: k BIGINT uniform
 * over K keys (default 1000), v BIGINT in [0, 1000), ts TIMESTAMP advancing
 * 2 µs per event with up to 50 ms of disorder; the watermark is ts - 100 ms,
 * so no row is late.
 *
 * Queries:
 *   rows   SELECT k, v, AVG(v) OVER (PARTITION BY k ORDER BY ts
 *              ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS a FROM ev
 *   range  ... RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW
 * (Nexmark q6's shape). Batches go through lm_engine_push; the output is
 * taken from a subscription after every push; laminar_end_source flushes
 * the rest; all timed.
 *
 * Reference: the same algorithm in plain C: pending rows buffered, after
 * each batch the rows below the watermark sorted by time (stable), then per
 * key (an array indexed by key) a ring of the frame's values with a running
 * sum. Both sides print rows emitted and the sum of a; they must agree.
 *
 *   rows_float, range_float: the same over AVG(CAST(v AS DOUBLE)) (the
 *          compensated float sum of op_over.c)
 * Usage: bench_over [events=4000000] [repetitions=3] [k=KEYS]
 *                   [q=rows|range|rows_float|range_float]
 * Prints a markdown table (best repetition) and a `result` line per case.
 * Not a test: timings vary.
 */
#include <time.h>

#include "bench_common.h"

#define ROWS_PRECEDING 10
#define RANGE_US 1000000

static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct totals {
  int64_t rows;
  double sum;
} totals;

/* ----------------------------------------------------- the plain C loop */

typedef struct prow {
  int64_t ts, k, v;
} prow;

#define RING 2048 /* > the rows of one key within RANGE_US */
typedef struct ring {
  int64_t ts[RING], v[RING];
  int head, len;
  int64_t sum;
} ring;

static int cmp_prow(const void *a, const void *b) {
  const prow *x = a, *y = b;
  return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void reference(const dataset *d, bool range, totals *tot) {
  memset(tot, 0, sizeof *tot);
  prow *pend = malloc(sizeof *pend * (size_t)(d->n + 1));
  prow *emit = malloc(sizeof *emit * (size_t)(d->n + 1));
  ring *rg = calloc((size_t)d->keys, sizeof *rg);
  int64_t np = 0, max_ts = INT64_MIN;
  for (int b = 0; b <= d->nb; b++) {
    int64_t wm;
    if (b < d->nb) {
      int64_t rows =
          b + 1 < d->nb ? BENCH_BATCH : d->n - (int64_t)b * BENCH_BATCH;
      for (int64_t r = 0; r < rows; r++) {
        pend[np++] = (prow){d->ts[b][r], d->k[b][r], d->v[b][r]};
        if (d->ts[b][r] > max_ts)
          max_ts = d->ts[b][r];
      }
      wm = max_ts - BENCH_DELAY_US;
    } else {
      wm = INT64_MAX;
    }
    int64_t ne = 0, nk = 0;
    for (int64_t i = 0; i < np; i++) {
      if (pend[i].ts < wm)
        emit[ne++] = pend[i];
      else
        pend[nk++] = pend[i];
    }
    np = nk;
    /* stable enough: equal times are rare and the sum is order-free */
    qsort(emit, (size_t)ne, sizeof *emit, cmp_prow);
    /* a run of rows of one time: all in their frames first (RANGE peers
     * share a frame), then each row's average */
    for (int64_t i = 0; i < ne;) {
      int64_t j = i + 1;
      if (range)
        while (j < ne && emit[j].ts == emit[i].ts)
          j++;
      for (int64_t x = i; x < j; x++) {
        ring *g = &rg[emit[x].k];
        int at = (g->head + g->len) % RING;
        g->ts[at] = emit[x].ts;
        g->v[at] = emit[x].v;
        g->len++;
        g->sum += emit[x].v;
        if (range) {
          while (g->ts[g->head] < emit[x].ts - RANGE_US) {
            g->sum -= g->v[g->head];
            g->head = (g->head + 1) % RING;
            g->len--;
          }
        } else if (g->len > ROWS_PRECEDING + 1) {
          g->sum -= g->v[g->head];
          g->head = (g->head + 1) % RING;
          g->len--;
        }
      }
      for (int64_t x = i; x < j; x++) {
        ring *g = &rg[emit[x].k];
        tot->sum += (double)g->sum / g->len;
        tot->rows++;
      }
      i = j;
    }
  }
  free(pend);
  free(emit);
  free(rg);
}

/* ------------------------------------------------------------ the engine */

static int engine(const dataset *d, bool range, bool fl, totals *tot) {
  memset(tot, 0, sizeof *tot);
  char sql[1024];
  snprintf(sql, sizeof sql,
           "CREATE SOURCE ev (k BIGINT NOT NULL, v BIGINT NOT NULL,"
           " ts TIMESTAMP NOT NULL,"
           " WATERMARK FOR ts AS ts - INTERVAL '100' MILLISECOND);"
           "CREATE STREAM out AS SELECT k, v, AVG(%s) OVER (PARTITION BY k"
           " ORDER BY ts %s) AS a FROM ev;",
           fl ? "CAST(v AS DOUBLE)" : "v",
           range ? "RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT "
                   "ROW"
                 : "ROWS BETWEEN 10 PRECEDING AND CURRENT ROW");
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
  int ai = -1;
  for (int b = 0; b <= d->nb; b++) {
    if (b < d->nb ? lm_engine_push(db, src, d->batches[b], &err)
                  : laminar_end_source(db, "ev", (laminar_error *)&err)) {
      fprintf(stderr, "%s\n", err.msg);
      return 1;
    }
    for (int i = 0; i < sub->n; i++) {
      lm_batch *o = sub->q[i];
      if (ai < 0)
        ai = lm_schema_find(o->schema, "a");
      const double *a = lm_array_f64(o->columns[ai]);
      for (int64_t r = 0; r < o->num_rows; r++)
        tot->sum += a[r];
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
  int64_t n = 4000000, keys = 1000;
  int reps = 3, pos = 0;
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strncmp(argv[i], "k=", 2))
      keys = atoll(argv[i] + 2);
    else if (!strncmp(argv[i], "q=", 2))
      only = argv[i] + 2;
    else if (pos++ == 0)
      n = atoll(argv[i]);
    else
      reps = atoi(argv[i]);
  }
  dataset d;
  make_data(&d, false, keys, n);
  printf("| query | events | keys | Laminar events/s/core | plain C events/s "
         "| ratio |\n|---|---|---|---|---|---|\n");
  for (int q = 0; q < 4; q++) {
    bool range = q % 2 == 1, fl = q >= 2;
    const char *name = fl ? (range ? "range_float" : "rows_float")
                          : (range ? "range" : "rows");
    if (only && strcmp(only, name))
      continue;
    double best_e = 1e99, best_r = 1e99;
    totals te = {0}, tr = {0};
    for (int r = 0; r < reps; r++) {
      double t0 = cpu_s();
      if (engine(&d, range, fl, &te))
        return 1;
      double t1 = cpu_s();
      reference(&d, range, &tr);
      double t2 = cpu_s();
      if (t1 - t0 < best_e)
        best_e = t1 - t0;
      if (t2 - t1 < best_r)
        best_r = t2 - t1;
    }
    if (te.rows != tr.rows ||
        (te.sum - tr.sum) > 1e-6 * (tr.sum > 0 ? tr.sum : 1) ||
        (tr.sum - te.sum) > 1e-6 * (tr.sum > 0 ? tr.sum : 1)) {
      fprintf(stderr,
              "MISMATCH %s: engine %lld rows sum %.6f, reference %lld rows "
              "sum %.6f\n",
              name, (long long)te.rows, te.sum, (long long)tr.rows, tr.sum);
      return 1;
    }
    double ee = (double)n / best_e, er = (double)n / best_r;
    printf("| %s | %lld | %lld | %.2f M | %.2f M | %.2f |\n", name,
           (long long)n, (long long)keys, ee / 1e6, er / 1e6, ee / er);
    printf("result query=over_%s events=%lld events_per_core_s=%.0f "
           "reference_events_per_s=%.0f\n",
           name, (long long)n, ee, er);
  }
  for (int b = 0; b < d.nb; b++)
    lm_batch_release(d.batches[b]);
  free(d.batches);
  free(d.k);
  free(d.v);
  free(d.ts);
  return 0;
}
