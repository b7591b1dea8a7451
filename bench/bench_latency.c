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
 * clock). The loop writes the next batch into a slot of a producer ring
 * and exports it by hand as an Arrow C Data struct array (four int64
 * children pointing into the slot, the schema exported once: what an
 * application producing its own rows does; done before the batch is due,
 * so not in the timing: a producer's event is ready when it is due; a slot
 * is reused once Laminar has called its array's release), waits (spins)
 * until the batch is due, calls laminar_push_arrow, then
 * laminar_subscription_poll until the queue is empty (the subscriber runs
 * in the same thread: the engine is synchronous, so the rows are queued
 * when the push returns). Latency of an output row = the time its
 * subscription_poll returned - the time its input batch was due (for the
 * tumble query: the batch whose watermark closed the window), so falling
 * behind the offered load counts (no coordinated omission). Three figures
 * per output row / batch, each as p50 / p99 / p999:
 *   due -> callback   poll return - the batch's due time: end to end,
 *                     including any backlog (the loop behind the schedule);
 *   push -> callback  poll return - the push call's start: the engine's
 *                     time per event (push timestamp -> subscriber), the
 *                     pacing wait excluded;
 *   pacing lag        the push call's start - the batch's due time, per
 *                     batch: how late the loop was (the scheduler taking
 *                     the CPU away, or the previous pushes not done yet).
 * and the achieved rate (events / the run's wall time) beside the rate the
 * loop's own work allows: B / the median time of one batch's work (making
 * and exporting it, push, polls; the spin-wait excluded), what one core
 * would sustain when nothing else runs on it (the median leaves out the
 * batches during which the thread was descheduled). On a loaded machine the
 * achieved rate is lower by the share of the CPU the thread did not get.
 *
 * Case `ref` is the machine's floor, measured the same way in the same
 * run: no engine, a plain C loop that copies the batch in (memcpy of its
 * four columns), keeps the rows with an even price and hands them to a
 * subscriber callback through a function pointer. Its tail is what the
 * scheduler does to any thread on this machine.
 *
 * Usage: bench_latency [seconds=2] [rate=1000000] [batch sizes=1,16,256]
 *                      [cases=ref,filter,tumble] [timing=off|on] [cpu=-1]
 * timing: operator timing for EXPLAIN ANALYZE (laminar_set_operator_timing;
 * off by default here: two clock reads per operator and batch). cpu >= 0:
 * the thread is pinned to that CPU (sched_setaffinity; the scheduler can
 * still run other threads there: a pin does not reserve the core). Prints a
 * markdown table (µs) and one `result` line per case (on stderr). Not a
 * test.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity */
#endif
#include <sched.h>
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
static const char *const NAME[3] = {"filter", "tumble", "ref"};

/* ------------------------------------------------------ producer ring */

/* One batch of the producer: four int64 columns of up to cap rows, and the
 * C Data structs that point into them; free again once the consumer has
 * called the parent array's release. */
typedef struct slot {
  int64_t *col[4]; /* 64-byte aligned, cap values each */
  const void *bufs[4][2];
  const void *pbufs[1];
  struct ArrowArray kids[4], *kptr[4];
  int busy;
} slot;

typedef struct ring {
  slot **s;
  int n, next;
  int64_t cap;
} ring;

static void release_child(struct ArrowArray *a) {
  a->release = NULL;
}

static void release_parent(struct ArrowArray *a) {
  slot *sl = a->private_data;
  for (int c = 0; c < 4; c++)
    if (sl->kids[c].release)
      sl->kids[c].release(&sl->kids[c]);
  a->release = NULL;
  sl->busy = 0;
}

static void *xalloc(size_t n) {
  void *p = aligned_alloc(64, (n + 63) & ~(size_t)63);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  return p;
}

/* A free slot of the ring (a new one when every slot is still held). */
static slot *ring_take(ring *r) {
  for (int i = 0; i < r->n; i++) {
    slot *sl = r->s[(r->next + i) % r->n];
    if (!sl->busy) {
      r->next = (r->next + i + 1) % r->n;
      sl->busy = 1;
      return sl;
    }
  }
  r->s = realloc(r->s, sizeof(slot *) * (size_t)(r->n + 1));
  slot *sl = calloc(1, sizeof *sl);
  if (!r->s || !sl) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  for (int c = 0; c < 4; c++)
    sl->col[c] = xalloc(sizeof(int64_t) * (size_t)r->cap);
  r->s[r->n++] = sl;
  sl->busy = 1;
  return sl;
}

static void ring_free(ring *r) {
  for (int i = 0; i < r->n; i++) {
    for (int c = 0; c < 4; c++)
      free(r->s[i]->col[c]);
    free(r->s[i]);
  }
  free(r->s);
}

/* Exports the slot's first n rows as a struct array of four NOT NULL int64
 * children (id, k, price, ts) into *out (moved to the consumer). */
static void slot_export(slot *sl, int64_t n, struct ArrowArray *out) {
  for (int c = 0; c < 4; c++) {
    sl->bufs[c][0] = NULL;
    sl->bufs[c][1] = sl->col[c];
    sl->kids[c] = (struct ArrowArray){.length = n,
                                      .n_buffers = 2,
                                      .buffers = sl->bufs[c],
                                      .release = release_child};
    sl->kptr[c] = &sl->kids[c];
  }
  sl->pbufs[0] = NULL;
  *out = (struct ArrowArray){.length = n,
                             .n_buffers = 1,
                             .n_children = 4,
                             .buffers = sl->pbufs,
                             .children = sl->kptr,
                             .release = release_parent,
                             .private_data = sl};
}

/* The producer's values of event id (the same in every case). */
static void fill(slot *sl, int64_t r, int64_t id, int64_t ts0, double rate) {
  sl->col[0][r] = id;
  sl->col[1][r] = id & 15;
  sl->col[2][r] = (id * 7919) % 1000;
  sl->col[3][r] = ts0 + (int64_t)((double)id * 1e6 / rate);
}

/* Spins until due; counts the batch as late when it starts > 1 µs after. */
static void wait_due(int64_t due, int64_t *behind) {
  int64_t t = now_ns();
  if (t < due) {
    while (now_ns() < due)
      ;
  } else if (t - due > 1000) {
    (*behind)++;
  }
}

static void report(int which, int64_t bsize, int64_t events, int64_t out_rows,
                   samples *lat, samples *svc, samples *lag, int64_t behind,
                   int64_t nb, double rate, int64_t wall_ns, samples *work) {
  qsort(lat->v, (size_t)lat->n, sizeof(int64_t), cmp64);
  qsort(svc->v, (size_t)svc->n, sizeof(int64_t), cmp64);
  qsort(lag->v, (size_t)lag->n, sizeof(int64_t), cmp64);
  double got = (double)events * 1e9 / (double)(wall_ns > 0 ? wall_ns : 1);
  qsort(work->v, (size_t)work->n, sizeof(int64_t), cmp64);
  double w50 = pct(work, 0.5); /* µs per batch */
  double cpu_rate = (double)bsize * 1e6 / (w50 > 0.001 ? w50 : 0.001);
  printf("| %s | %lld | %lld | %lld | %.2f | %.2f | %.2f | %.2f | %.2f | "
         "%.2f | %.2f | %.2f | %.2f | %.1f%% | %.0f | %.0f |\n",
         NAME[which], (long long)bsize, (long long)events, (long long)out_rows,
         pct(lat, 0.5), pct(lat, 0.99), pct(lat, 0.999), pct(svc, 0.5),
         pct(svc, 0.99), pct(svc, 0.999), pct(lag, 0.5), pct(lag, 0.99),
         pct(lag, 0.999), 100.0 * (double)behind / (double)(nb ? nb : 1), got,
         cpu_rate);
  fflush(stdout);
  fprintf(stderr,
          "result case=%s batch=%lld rate=%.0f achieved_rate=%.0f "
          "capacity=%.0f "
          "due_p50_us=%.2f due_p99_us=%.2f due_p999_us=%.2f "
          "push_p50_us=%.2f push_p99_us=%.2f push_p999_us=%.2f "
          "lag_p50_us=%.2f lag_p99_us=%.2f late_batches=%lld\n",
          NAME[which], (long long)bsize, rate, got, cpu_rate, pct(lat, 0.5),
          pct(lat, 0.99), pct(lat, 0.999), pct(svc, 0.5), pct(svc, 0.99),
          pct(svc, 0.999), pct(lag, 0.5), pct(lag, 0.99), (long long)behind);
  free(lat->v);
  free(svc->v);
  free(lag->v);
  free(work->v);
}

/* ------------------------------------------------- reference C loop */

/* The rows the reference hands its subscriber. */
typedef struct ref_out {
  int64_t *col[4];
  int64_t n;
} ref_out;
typedef void (*ref_cb)(void *ctx, const ref_out *rows);

typedef struct ref_ctx {
  samples *lat, *svc;
  int64_t due, t_push, out_rows;
} ref_ctx;

static void ref_subscriber(void *ctx, const ref_out *rows) {
  ref_ctx *c = ctx;
  int64_t got = now_ns();
  add(c->lat, got - c->due, rows->n);
  add(c->svc, got - c->t_push, rows->n);
  c->out_rows += rows->n;
}

/* The reference's "push": the batch copied in, the rows with an even price
 * kept, the subscriber called with them. */
static __attribute__((noinline)) void ref_push(int64_t *const in[4], int64_t n,
                                               int64_t *const copy[4],
                                               ref_out *o, ref_cb cb,
                                               void *ctx) {
  for (int c = 0; c < 4; c++)
    memcpy(copy[c], in[c], sizeof(int64_t) * (size_t)n);
  o->n = 0;
  for (int64_t i = 0; i < n; i++)
    if (copy[2][i] % 2 == 0) {
      for (int c = 0; c < 4; c++)
        o->col[c][o->n] = copy[c][i];
      o->n++;
    }
  if (o->n)
    cb(ctx, o);
}

static int run_ref(double seconds, double rate, int64_t bsize) {
  ring rg = {.cap = bsize};
  int64_t *copy[4], *outc[4];
  for (int c = 0; c < 4; c++) {
    copy[c] = xalloc(sizeof(int64_t) * (size_t)bsize);
    outc[c] = xalloc(sizeof(int64_t) * (size_t)bsize);
  }
  ref_out o = {.col = {outc[0], outc[1], outc[2], outc[3]}};
  int64_t events = (int64_t)(seconds * rate), nb = events / bsize;
  double gap_ns = (double)bsize * 1e9 / rate;
  samples lat = {0}, svc = {0}, lag = {0};
  ref_ctx cx = {.lat = &lat, .svc = &svc};
  samples work = {0};
  int64_t behind = 0, id = 0;
  const int64_t ts0 = INT64_C(1735689600000000);
  int64_t start = now_ns() + 1000000;
  for (int64_t i = 0; i < nb; i++) {
    int64_t due = start + (int64_t)((double)i * gap_ns);
    int64_t t0 = now_ns();
    slot *sl = ring_take(&rg);
    for (int64_t r = 0; r < bsize; r++, id++)
      fill(sl, r, id, ts0, rate);
    int64_t t1 = now_ns();
    wait_due(due, &behind);
    cx.due = due;
    cx.t_push = now_ns();
    add(&lag, cx.t_push - due, 1);
    ref_push(sl->col, bsize, copy, &o, ref_subscriber, &cx);
    sl->busy = 0;
    add(&work, (t1 - t0) + (now_ns() - cx.t_push), 1);
  }
  int64_t wall = now_ns() - start;
  report(2, bsize, events, cx.out_rows, &lat, &svc, &lag, behind, nb, rate,
         wall, &work);
  for (int c = 0; c < 4; c++) {
    free(copy[c]);
    free(outc[c]);
  }
  ring_free(&rg);
  return 0;
}

/* ------------------------------------------------------------ engine */

static int run_case(int which, double seconds, double rate, int64_t bsize) {
  if (which == 2)
    return run_ref(seconds, rate, bsize);
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
  lm_error err;
  lm_err_clear(&err);
  struct ArrowSchema sch; /* exported once, borrowed by every push */
  if (lm_cdata_export_schema(s, &sch, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  ring rg = {.cap = bsize};
  int64_t events = (int64_t)(seconds * rate), nb = events / bsize;
  double gap_ns = (double)bsize * 1e9 / rate;
  samples lat = {0}, svc = {0}, lag = {0};
  samples work = {0};
  int64_t behind = 0, out_rows = 0, id = 0;
  /* event time: µs from a fixed epoch, advancing with the schedule */
  const int64_t ts0 = INT64_C(1735689600000000);
  int64_t start = now_ns() + 1000000;
  for (int64_t i = 0; i < nb; i++) {
    int64_t due = start + (int64_t)((double)i * gap_ns);
    /* the producer's batch is made before it is due: what is timed is the
     * engine (push -> subscriber), not making the Arrow array */
    int64_t t0 = now_ns();
    slot *sl = ring_take(&rg);
    for (int64_t r = 0; r < bsize; r++, id++)
      fill(sl, r, id, ts0, rate);
    struct ArrowArray arr;
    slot_export(sl, bsize, &arr);
    int64_t t1 = now_ns();
    wait_due(due, &behind);
    int64_t t_push = now_ns();
    add(&lag, t_push - due, 1);
    if (laminar_push_arrow(db, "ev", &arr, &sch, &e)) {
      fprintf(stderr, "%s: %s\n", NAME[which], e.message);
      return 1;
    }
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
    add(&work, (t1 - t0) + (now_ns() - t_push), 1);
  }
  int64_t wall = now_ns() - start;
  sch.release(&sch);
  lm_schema_release(s);
  laminar_unsubscribe(sub);
  laminar_close(db, NULL);
  ring_free(&rg); /* every slot released by now */
  report(which, bsize, events, out_rows, &lat, &svc, &lag, behind, nb, rate,
         wall, &work);
  return 0;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 2.0;
  double rate = argc > 2 ? atof(argv[2]) : 1e6;
  const char *sizes = argc > 3 ? argv[3] : "1,16,256";
  const char *cases = argc > 4 ? argv[4] : "ref,filter,tumble";
  bool timing = argc > 5 && !strcmp(argv[5], "on");
  int cpu = argc > 6 ? atoi(argv[6]) : -1;
  if (seconds <= 0 || rate <= 0)
    return 2;
  laminar_set_operator_timing(timing);
  bool pinned = false;
  if (cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pinned = sched_setaffinity(0, sizeof set, &set) == 0;
    if (!pinned)
      perror("sched_setaffinity");
  }
  char where[32] = "not pinned";
  if (pinned)
    snprintf(where, sizeof where, "pinned to CPU %d", cpu);
  printf("push -> subscriber latency, %.0f events/s offered, %.1f s per "
         "case, operator timing %s, %s (µs; due -> callback: from the "
         "batch's due time, backlog included; push -> callback: from the "
         "push call, the pacing wait excluded; pacing lag: push call - due "
         "time, per batch)\n\n",
         rate, seconds, timing ? "on" : "off", where);
  printf("| case | batch rows | events | rows out | due→cb p50 | due→cb p99 | "
         "due→cb p999 | push→cb p50 | push→cb p99 | push→cb p999 | lag p50 "
         "| lag p99 | lag p999 | batches late >1 µs | achieved events/s | "
         "capacity events/s "
         "|\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:"
         "|---:|---:|---:|---:|---:|---:|\n");
  static const int order[3] = {2, 0, 1}; /* the reference first */
  for (int o = 0; o < 3; o++) {
    int which = order[o];
    for (const char *p = sizes; strstr(cases, NAME[which]) && *p;) {
      int64_t b = atoll(p);
      if (b > 0 && run_case(which, seconds, rate, b))
        return 1;
      p = strchr(p, ',');
      if (!p)
        break;
      p++;
    }
  }
  return 0;
}
