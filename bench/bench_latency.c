/*
 * Push -> subscriber latency of the embedded API (include/laminar.h), at an
 * offered load of RATE events/s (default 1,000,000), for
 *   filter  CREATE STREAM f AS SELECT id, price, ts FROM ev WHERE price % 2 = 0
 *   tumble  CREATE STREAM t AS SELECT k, tumble(ts, INTERVAL '1' MILLISECOND)
 *           AS w, COUNT(*) AS n, SUM(price) AS s FROM ev GROUP BY k,
 *           tumble(ts, INTERVAL '1' MILLISECOND) EMIT ON WINDOW CLOSE
 *           (16 keys; the watermark is the event time: WATERMARK FOR ts AS ts)
 * over a pushed source ev (id BIGINT, k BIGINT, price BIGINT, ts TIMESTAMP).
 *
 * Events come in batches of B rows (1, 16, 256 by default); batch i is due
 * at start + i * B / RATE seconds on the wall clock and carries event times
 * start + i * B / RATE (so 1 ms windows close at the pace of the wall
 * clock). The loop builds the next batch as an Arrow C Data struct array
 * (lm_cdata_export_batch; before it is due, so not in the timing: a
 * producer's event is ready when it is due), waits (spins) until the batch
 * is due, calls laminar_push_arrow, then laminar_subscription_poll until
 * the queue is empty (the subscriber runs in the same thread: the engine is
 * synchronous, so the rows are queued when the push returns). Latency of an
 * output row = the time its subscription_poll returned - the time its input
 * batch was due (for the tumble query: the batch whose watermark closed the
 * window), so falling behind the offered load counts (no coordinated
 * omission). Also printed: the service time (push call start -> poll
 * return) and whether the loop kept up with the load.
 *
 * Usage: bench_latency [seconds=2] [rate=1000000] [batch sizes=1,16,256]
 *                      [cases=filter,tumble] [timing=off|on]
 * timing: operator timing for EXPLAIN ANALYZE (laminar_set_operator_timing;
 * off by default here: two clock reads per operator and batch). Prints a
 * markdown table (µs) and one `result` line per case. Not a test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "columnar/lm_cdata.h"
#include "columnar/lm_columnar.h"
#include "laminar.h"

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

typedef struct samples {
  int64_t *v;
  int64_t n, cap;
} samples;

static void add(samples *s, int64_t v, int64_t times) {
  while (times-- > 0) {
    if (s->n == s->cap) {
      s->cap = s->cap ? s->cap * 2 : 1 << 16;
      s->v = realloc(s->v, sizeof(int64_t) * (size_t)s->cap);
      if (!s->v) {
        fprintf(stderr, "out of memory\n");
        exit(1);
      }
    }
    s->v[s->n++] = v;
  }
}

static double pct(samples *s, double q) {
  if (!s->n)
    return 0;
  int64_t i = (int64_t)(q * (double)s->n);
  if (i >= s->n)
    i = s->n - 1;
  return (double)s->v[i] / 1000.0;
}

static const char *const DDL =
    "CREATE SOURCE ev (id BIGINT NOT NULL, k BIGINT NOT NULL, price BIGINT "
    "NOT NULL, ts TIMESTAMP NOT NULL, WATERMARK FOR ts AS ts);";
static const char *const QUERY[2] = {
    "CREATE STREAM out AS SELECT id, price, ts FROM ev WHERE price % 2 = 0;",
    "CREATE STREAM out AS SELECT k, tumble(ts, INTERVAL '1' MILLISECOND) AS "
    "w, COUNT(*) AS n, SUM(price) AS s FROM ev GROUP BY k, tumble(ts, "
    "INTERVAL '1' MILLISECOND) EMIT ON WINDOW CLOSE;"};
static const char *const NAME[2] = {"filter", "tumble"};

static int run_case(int which, double seconds, double rate, int64_t bsize) {
  laminar_db *db;
  laminar_error e;
  laminar_subscription *sub;
  if (laminar_open(&db, &e) || laminar_execute(db, DDL, NULL, &e) ||
      laminar_execute(db, QUERY[which], NULL, &e) ||
      laminar_subscribe(db, "out", &sub, &e)) {
    fprintf(stderr, "%s: %s\n", NAME[which], e.message);
    return 1;
  }
  lm_schema *s = lm_schema_new(4);
  lm_schema_set_field(s, 0, "id", lm_type_make(LM_TYPE_INT64), false);
  lm_schema_set_field(s, 1, "k", lm_type_make(LM_TYPE_INT64), false);
  lm_schema_set_field(s, 2, "price", lm_type_make(LM_TYPE_INT64), false);
  lm_schema_set_field(s, 3, "ts", lm_type_make(LM_TYPE_TIMESTAMP), false);
  lm_batch_builder bb;
  lm_batch_builder_init(&bb, s, bsize);
  int64_t events = (int64_t)(seconds * rate);
  int64_t nb = events / bsize;
  double gap_ns = (double)bsize * 1e9 / rate;
  samples lat = {0}, svc = {0};
  int64_t behind = 0, out_rows = 0, id = 0;
  lm_error err;
  lm_err_clear(&err);
  /* event time: µs from a fixed epoch, advancing with the schedule */
  const int64_t ts0 = INT64_C(1735689600000000);
  int64_t start = now_ns() + 1000000;
  /* due time of the batch that last moved the watermark past a window */
  for (int64_t i = 0; i < nb; i++) {
    int64_t due = start + (int64_t)((double)i * gap_ns);
    /* the producer's batch is made before it is due: what is timed is the
     * engine (push -> subscriber), not making the Arrow array */
    for (int64_t r = 0; r < bsize; r++, id++) {
      lm_builder_append_i64_fast(&bb.cols[0], id);
      lm_builder_append_i64_fast(&bb.cols[1], id & 15);
      lm_builder_append_i64_fast(&bb.cols[2], (id * 7919) % 1000);
      lm_builder_append_i64_fast(&bb.cols[3],
                                 ts0 + (int64_t)((double)id * 1e6 / rate));
    }
    lm_batch *b;
    struct ArrowArray arr;
    struct ArrowSchema sch;
    if (lm_batch_builder_finish(&bb, &b, &err) ||
        lm_cdata_export_batch(b, &arr, &sch, &err)) {
      fprintf(stderr, "%s\n", err.msg);
      return 1;
    }
    lm_batch_release(b);
    int64_t t = now_ns();
    if (t < due) {
      while ((t = now_ns()) < due)
        ;
    } else if (t - due > 1000) {
      behind++;
    }
    int64_t t_push = now_ns();
    if (laminar_push_arrow(db, "ev", &arr, &sch, &e)) {
      fprintf(stderr, "%s: %s\n", NAME[which], e.message);
      return 1;
    }
    sch.release(&sch);
    for (;;) {
      struct ArrowArray oa;
      struct ArrowSchema os;
      bool has = false;
      if (laminar_subscription_poll(sub, &oa, &os, &has, &e)) {
        fprintf(stderr, "%s: %s\n", NAME[which], e.message);
        return 1;
      }
      if (!has)
        break;
      int64_t got = now_ns();
      add(&lat, got - due, oa.length);
      add(&svc, got - t_push, oa.length);
      out_rows += oa.length;
      oa.release(&oa);
      os.release(&os);
    }
  }
  lm_batch_builder_free(&bb);
  lm_schema_release(s);
  laminar_unsubscribe(sub);
  laminar_close(db, NULL);
  qsort(lat.v, (size_t)lat.n, sizeof(int64_t), cmp64);
  qsort(svc.v, (size_t)svc.n, sizeof(int64_t), cmp64);
  printf("| %s | %lld | %lld | %lld | %.2f | %.2f | %.2f | %.2f | %.2f | "
         "%.2f | %.1f%% |\n",
         NAME[which], (long long)bsize, (long long)events, (long long)out_rows,
         pct(&lat, 0.5), pct(&lat, 0.99), pct(&lat, 0.999), pct(&svc, 0.5),
         pct(&svc, 0.99), pct(&svc, 0.999),
         100.0 * (double)behind / (double)(nb ? nb : 1));
  fprintf(stderr,
          "result case=%s batch=%lld rate=%.0f p50_us=%.2f p99_us=%.2f "
          "p999_us=%.2f late_batches=%lld\n",
          NAME[which], (long long)bsize, rate, pct(&lat, 0.5), pct(&lat, 0.99),
          pct(&lat, 0.999), (long long)behind);
  free(lat.v);
  free(svc.v);
  return 0;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 2.0;
  double rate = argc > 2 ? atof(argv[2]) : 1e6;
  const char *sizes = argc > 3 ? argv[3] : "1,16,256";
  const char *cases = argc > 4 ? argv[4] : "filter,tumble";
  bool timing = argc > 5 && !strcmp(argv[5], "on");
  if (seconds <= 0 || rate <= 0)
    return 2;
  laminar_set_operator_timing(timing);
  printf("push -> subscriber latency, %.0f events/s offered, %.1f s per "
         "case, operator timing %s (µs; latency from the batch's due time, "
         "service from the push call)\n\n",
         rate, seconds, timing ? "on" : "off");
  printf("| case | batch rows | events | rows out | p50 | p99 | p999 | "
         "service p50 | service p99 | service p999 | batches late >1 µs "
         "|\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int which = 0; which < 2; which++)
    for (const char *p = sizes; strstr(cases, NAME[which]) && *p;) {
      int64_t b = atoll(p);
      if (b > 0 && run_case(which, seconds, rate, b))
        return 1;
      p = strchr(p, ',');
      if (!p)
        break;
      p++;
    }
  return 0;
}
