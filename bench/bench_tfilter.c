/*
 * The retracting temporal filter (exec/op_temporal_filter.c), in events/s
 * per core (process CPU time), beside a plain C loop doing the same work
 * over the same arrays in the same run.
 *
 * Data: bench_common.h's N events (default 4 M) in batches of 4096 rows: k
 * BIGINT, v BIGINT in [0, 1000), ts TIMESTAMP advancing 2 µs per event
 * with up to 50 ms of disorder; the watermark is ts - 100 ms, so no row is
 * late.
 *
 * Query: SELECT k, v, ts FROM ev WHERE ts > now() - INTERVAL '1' SECOND
 * EMIT CHANGES — every row enters at its push and leaves about 1 s of
 * event time (500 K events) later: the state holds ~500 K rows. Batches go
 * through lm_engine_push; the changelog is taken from a subscription
 * after every push; all timed.
 *
 * Reference: the same algorithm in plain C: per batch, rows with ts > now
 * - 1 s counted in and pushed on a binary min-heap by their exit time;
 * then now = the watermark floored to the second and the heap popped to
 * it. Both sides print the rows in, the rows out and the sum of v ·
 * weight; they must agree.
 *
 * Usage: bench_tfilter [events=4000000] [repetitions=3]
 * Prints a markdown table (best repetition) and a `result` line.
 * Not a test: timings vary.
 */
#include <time.h>

#include "bench_common.h"

#define WINDOW_US 1000000

static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct totals {
  int64_t in, out, vsum;
} totals;

/* ----------------------------------------------------- the plain C loop */

typedef struct hent {
  int64_t exit, v;
} hent;

static void heap_push(hent *h, int64_t *n, hent e) {
  int64_t i = (*n)++;
  while (i > 0) {
    int64_t p = (i - 1) / 2;
    if (h[p].exit <= e.exit)
      break;
    h[i] = h[p];
    i = p;
  }
  h[i] = e;
}

static hent heap_pop(hent *h, int64_t *n) {
  hent top = h[0], last = h[--(*n)];
  int64_t i = 0;
  for (;;) {
    int64_t c = 2 * i + 1;
    if (c >= *n)
      break;
    if (c + 1 < *n && h[c + 1].exit < h[c].exit)
      c++;
    if (last.exit <= h[c].exit)
      break;
    h[i] = h[c];
    i = c;
  }
  h[i] = last;
  return top;
}

static void reference(const dataset *d, totals *tot) {
  memset(tot, 0, sizeof *tot);
  hent *h = malloc(sizeof *h * (size_t)(d->n + 1));
  int64_t nh = 0, now = INT64_MIN, max_ts = INT64_MIN;
  for (int b = 0; b < d->nb; b++) {
    int64_t rows =
        b + 1 < d->nb ? BENCH_BATCH : d->n - (int64_t)b * BENCH_BATCH;
    for (int64_t r = 0; r < rows; r++) {
      int64_t ts = d->ts[b][r], v = d->v[b][r];
      if (ts > max_ts)
        max_ts = ts;
      int64_t exit = ts + WINDOW_US; /* ts > now - 1 s: now < ts + 1 s */
      if (now != INT64_MIN && exit <= now)
        continue;
      tot->in++;
      tot->vsum += v;
      heap_push(h, &nh, (hent){exit, v});
    }
    int64_t wm = max_ts - BENCH_DELAY_US;
    int64_t n2 = wm / 1000000 * 1000000; /* wm > 0 here */
    if (n2 > now) {
      now = n2;
      while (nh && h[0].exit <= now) {
        hent e = heap_pop(h, &nh);
        tot->out++;
        tot->vsum -= e.v;
      }
    }
  }
  free(h);
}

/* ------------------------------------------------------------ the engine */

static int engine(const dataset *d, totals *tot) {
  memset(tot, 0, sizeof *tot);
  const char *sql = "CREATE SOURCE ev (k BIGINT NOT NULL, v BIGINT NOT NULL,"
                    " ts TIMESTAMP NOT NULL,"
                    " WATERMARK FOR ts AS ts - INTERVAL '100' MILLISECOND);"
                    "CREATE STREAM out AS SELECT k, v, ts FROM ev"
                    " WHERE ts > now() - INTERVAL '1' SECOND EMIT CHANGES;";
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
  int vi = -1, wi = -1;
  for (int b = 0; b <= d->nb; b++) {
    if (b < d->nb ? lm_engine_push(db, src, d->batches[b], &err)
                  : laminar_end_source(db, "ev", (laminar_error *)&err)) {
      fprintf(stderr, "%s\n", err.msg);
      return 1;
    }
    for (int i = 0; i < sub->n; i++) {
      lm_batch *o = sub->q[i];
      if (vi < 0) {
        vi = lm_schema_find(o->schema, "v");
        wi = lm_schema_find(o->schema, "__weight");
      }
      const int64_t *v = lm_array_i64(o->columns[vi]);
      const int64_t *w = lm_array_i64(o->columns[wi]);
      for (int64_t r = 0; r < o->num_rows; r++) {
        if (w[r] > 0)
          tot->in += w[r];
        else
          tot->out -= w[r];
        tot->vsum += v[r] * w[r];
      }
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
  int64_t n = 4000000;
  int reps = 3;
  if (argc > 1)
    n = atoll(argv[1]);
  if (argc > 2)
    reps = atoi(argv[2]);
  dataset d;
  make_data(&d, false, 1000, n);
  double best_e = 1e99, best_r = 1e99;
  totals te = {0}, tr = {0};
  for (int r = 0; r < reps; r++) {
    double t0 = cpu_s();
    if (engine(&d, &te))
      return 1;
    double t1 = cpu_s();
    reference(&d, &tr);
    double t2 = cpu_s();
    if (t1 - t0 < best_e)
      best_e = t1 - t0;
    if (t2 - t1 < best_r)
      best_r = t2 - t1;
  }
  if (te.in != tr.in || te.out != tr.out || te.vsum != tr.vsum) {
    fprintf(stderr,
            "MISMATCH: engine in %lld out %lld vsum %lld, reference in %lld "
            "out %lld vsum %lld\n",
            (long long)te.in, (long long)te.out, (long long)te.vsum,
            (long long)tr.in, (long long)tr.out, (long long)tr.vsum);
    return 1;
  }
  double ee = (double)n / best_e, er = (double)n / best_r;
  printf("| query | events | rows in | rows out | Laminar events/s/core | "
         "plain C events/s | ratio |\n|---|---|---|---|---|---|---|\n");
  printf("| temporal_filter | %lld | %lld | %lld | %.2f M | %.2f M | %.2f |\n",
         (long long)n, (long long)te.in, (long long)te.out, ee / 1e6, er / 1e6,
         ee / er);
  printf("result query=temporal_filter events=%lld events_per_core_s=%.0f "
         "reference_events_per_s=%.0f\n",
         (long long)n, ee, er);
  free_data(&d);
  return 0;
}
