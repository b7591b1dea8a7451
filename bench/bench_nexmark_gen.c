/*
 * The Nexmark generator alone (FROM NEXMARK readers, batches discarded),
 * in events/s per core (process CPU time), beside a plain C reference loop
 * measured in the same run:
 *   reference  fills 7 int64 columns (a bid's column count) for N rows in
 *              batches of the same size, reusing its buffers;
 *   all        person + auction + bid readers over event ids [0, N): every
 *              column of every event (the "generator alone");
 *   bid        the bid reader alone (0.92 N rows, all 7 columns);
 *   bid_ints   the bid reader with only auction, bidder, price, dateTime.
 * events/s counts event ids covered (N), so `bid` and `all` compare
 * directly. Usage: bench_nexmark_gen [events=20000000] [repetitions=3]
 * [batch.size=4096] [parts]; parts is a comma-separated list of
 * all, bid, bid_ints, person (the person reader alone), auction (the auction
 * reader alone); default all,bid,bid_ints. An argument that is not a number
 * in range (batch.size 1..1048576) or an unknown part: a message, exit 2.
 * Prints a markdown table (best of the repetitions) and one `result` line per
 * part. Not a test: timings vary.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPARTS 6

#include "connectors/lm_connectors.h"

typedef struct part {
  const char *name;
  int64_t rows, cpu_us, bytes;
} part;

static int run_table(const char *table, const char *cols, int64_t events,
                     const char *batch, part *p) {
  char ev[32];
  snprintf(ev, sizeof ev, "%lld", (long long)events);
  lm_kv opts[3] = {{"table", table}, {"events.num", ev}, {"batch.size", batch}};
  lm_error err;
  lm_err_clear(&err);
  lm_schema *s = NULL;
  if (cols) { /* a projection: the listed columns only */
    lm_schema *full = lm_nexmark_table_schema(2);
    lm_schema *d = lm_schema_new(4);
    const char *names[4] = {"auction", "bidder", "price", "dateTime"};
    for (int i = 0; i < 4; i++) {
      int k = lm_schema_find(full, names[i]);
      lm_schema_set_field(d, i, names[i], full->fields[k].type, false);
    }
    lm_nexmark_source_schema(opts, 3, d, &s, &err);
    lm_schema_release(d);
    lm_schema_release(full);
  }
  lm_source_reader *r;
  int64_t t0 = lm_cpu_time_us();
  if (lm_nexmark_reader_new(s, opts, 3, &r, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  for (;;) {
    lm_batch *b = NULL;
    bool eof = false;
    if (r->poll(r, &b, &eof, &err)) {
      fprintf(stderr, "%s\n", err.msg);
      return 1;
    }
    if (b) {
      p->rows += b->num_rows;
      for (int c = 0; c < b->num_columns; c++) {
        const lm_array *a = b->columns[c];
        p->bytes += a->length * 8;
        if (a->data)
          p->bytes += a->data->size;
      }
      lm_batch_release(b);
    } else if (eof) {
      break;
    }
  }
  r->free(r);
  p->cpu_us += lm_cpu_time_us() - t0;
  lm_schema_release(s);
  return 0;
}

static void reference(int64_t events, int64_t batch, part *p) {
  int64_t *cols[7];
  for (int c = 0; c < 7; c++)
    cols[c] = malloc(sizeof(int64_t) * (size_t)batch);
  volatile int64_t sink = 0;
  int64_t t0 = lm_cpu_time_us();
  for (int64_t i = 0; i < events; i += batch) {
    int64_t n = events - i < batch ? events - i : batch;
    for (int64_t k = 0; k < n; k++) {
      int64_t x = i + k;
      cols[0][k] = x * 3;
      cols[1][k] = x ^ 0x5555;
      cols[2][k] = x + 1000;
      cols[3][k] = x * 7 + 1;
      cols[4][k] = x >> 3;
      cols[5][k] = x * 1000;
      cols[6][k] = x & 1023;
    }
    sink += cols[0][n - 1] + cols[6][n / 2];
  }
  (void)sink;
  p->cpu_us += lm_cpu_time_us() - t0;
  p->rows += events;
  p->bytes += events * 56;
  for (int c = 0; c < 7; c++)
    free(cols[c]);
}

/* Whether part `name` runs: all parts but person and auction when `only`
 * is NULL, else the comma-separated ones listed. */
static bool want(const char *only, const char *name) {
  if (!only)
    return strcmp(name, "person") && strcmp(name, "auction");
  size_t n = strlen(name);
  for (const char *p = only; (p = strstr(p, name)); p += n)
    if ((p == only || p[-1] == ',') && (p[n] == ',' || p[n] == 0))
      return true;
  return false;
}

static void keep_best(part *best, const part *p) {
  if (best->cpu_us == 0 || p->cpu_us < best->cpu_us)
    *best = *p;
}

/* Parses argument `what` = s as a whole decimal integer in [lo, hi] into
 * *out; false (after a message on stderr) when it is not one. */
static bool arg_int(const char *what, const char *s, int64_t lo, int64_t hi,
                    int64_t *out) {
  char *end = NULL;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end || v < lo || v > hi) {
    fprintf(stderr,
            "bench_nexmark_gen: %s must be an integer from %lld to %lld, "
            "got '%s'\nusage: bench_nexmark_gen [events=20000000] "
            "[repetitions=3] [batch.size=4096] [parts: all,bid,bid_ints,"
            "person,auction]\n",
            what, (long long)lo, (long long)hi, s);
    return false;
  }
  *out = v;
  return true;
}

int main(int argc, char **argv) {
  int64_t events = 20000000, reps = 3, bsz = 4096;
  const char *batch = argc > 3 ? argv[3] : "4096";
  const char *only = argc > 4 ? argv[4] : NULL;
  /* a non-number used to become 0 (atoll): batch.size 0 never advanced */
  if ((argc > 1 && !arg_int("events", argv[1], 1, INT64_MAX / 2, &events)) ||
      (argc > 2 && !arg_int("repetitions", argv[2], 1, 1000000, &reps)) ||
      !arg_int("batch.size", batch, 1, 1 << 20, &bsz))
    return 2;
  static const char *const names[] = {"all", "bid", "bid_ints", "person",
                                      "auction"};
  for (const char *q = only; q && *q;) {
    size_t n = strcspn(q, ",");
    bool ok = false;
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
      ok = ok || (strlen(names[k]) == n && !strncmp(q, names[k], n));
    if (!ok) {
      fprintf(stderr,
              "bench_nexmark_gen: unknown part '%.*s' (parts: "
              "all,bid,bid_ints,person,auction)\n",
              (int)n, q);
      return 2;
    }
    q += n + (q[n] == ',');
  }
  if (events < 50)
    events = 50;
  part best[NPARTS] = {{"reference", 0, 0, 0}, {"all", 0, 0, 0},
                       {"bid", 0, 0, 0},       {"bid_ints", 0, 0, 0},
                       {"person", 0, 0, 0},    {"auction", 0, 0, 0}};
  for (int rep = 0; rep < reps; rep++) {
    part p[NPARTS];
    for (int i = 0; i < NPARTS; i++)
      p[i] = (part){best[i].name, 0, 0, 0};
    reference(events, bsz, &p[0]);
    if ((want(only, "all") &&
         (run_table("person", NULL, events, batch, &p[1]) ||
          run_table("auction", NULL, events, batch, &p[1]) ||
          run_table("bid", NULL, events, batch, &p[1]))) ||
        (want(only, "bid") && run_table("bid", NULL, events, batch, &p[2])) ||
        (want(only, "bid_ints") &&
         run_table("bid", "ints", events, batch, &p[3])) ||
        (want(only, "person") &&
         run_table("person", NULL, events, batch, &p[4])) ||
        (want(only, "auction") &&
         run_table("auction", NULL, events, batch, &p[5])))
      return 1;
    for (int i = 0; i < NPARTS; i++)
      if (p[i].cpu_us)
        keep_best(&best[i], &p[i]);
  }
  double ref = (double)events * 1e6 / (double)best[0].cpu_us;
  printf("Nexmark generator, %lld events, batch.size %s, best of %d "
         "(CPU time)\n\n",
         (long long)events, batch, (int)reps);
  printf("| part | rows | CPU ms | M events/s per core | MB/s out | ratio to "
         "reference |\n|---|---:|---:|---:|---:|---:|\n");
  for (int i = 0; i < NPARTS; i++) {
    if (!best[i].cpu_us)
      continue;
    double eps = (double)events * 1e6 / (double)best[i].cpu_us;
    printf("| %s | %lld | %.1f | %.2f | %.0f | %.3f |\n", best[i].name,
           (long long)best[i].rows, (double)best[i].cpu_us / 1000.0, eps / 1e6,
           (double)best[i].bytes / (double)best[i].cpu_us, eps / ref);
  }
  printf("\n");
  for (int i = 0; i < NPARTS; i++) {
    if (!best[i].cpu_us)
      continue;
    double eps = (double)events * 1e6 / (double)best[i].cpu_us;
    printf("result part=%s events=%lld rows=%lld events_per_core_s=%.0f "
           "ratio=%.4f\n",
           best[i].name, (long long)events, (long long)best[i].rows, eps,
           eps / ref);
  }
  return 0;
}
