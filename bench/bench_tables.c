/*
 * Tables (docs/tables.md): upserts and primary-key lookups, in rows/s per
 * core (process CPU time), beside a plain C open-addressing hash map
 * (key -> value, upsert / find) over the same arrays in the same run.
 *
 * Data: N rows (default 4 M) in batches of 4096 of (k BIGINT, v BIGINT),
 * keys uniform over K (1 K and 1 M). Laminar: lm_table_insert (upsert, and
 * the changelog batch it returns: -1 old rows, +1 new rows, released), then
 * lm_table_lookup of every batch's keys followed by lm_table_gather of the
 * found rows (a lookup join's work). The reference does the same upserts
 * into its map and the same finds (reading each found value).
 *
 * Usage: bench_tables [rows=4000000] [repetitions=3]
 * Prints a markdown table (best repetition). Not a test: timings vary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/engine.h"

enum { BATCH = 4096 };

static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* reference: open addressing, key -> value */
typedef struct ref_map {
  int64_t *keys, *vals;
  uint8_t *used;
  uint64_t mask;
} ref_map;

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

static void ref_init(ref_map *m, int64_t keys) {
  uint64_t n = 16;
  while (n < (uint64_t)keys * 2)
    n *= 2;
  m->keys = calloc(n, sizeof(int64_t));
  m->vals = calloc(n, sizeof(int64_t));
  m->used = calloc(n, 1);
  m->mask = n - 1;
}
static void ref_free(ref_map *m) {
  free(m->keys);
  free(m->vals);
  free(m->used);
}
static void ref_upsert(ref_map *m, int64_t k, int64_t v) {
  uint64_t i = mix((uint64_t)k) & m->mask;
  while (m->used[i] && m->keys[i] != k)
    i = (i + 1) & m->mask;
  m->used[i] = 1;
  m->keys[i] = k;
  m->vals[i] = v;
}
static int64_t ref_find(const ref_map *m, int64_t k, bool *found) {
  uint64_t i = mix((uint64_t)k) & m->mask;
  while (m->used[i]) {
    if (m->keys[i] == k) {
      *found = true;
      return m->vals[i];
    }
    i = (i + 1) & m->mask;
  }
  *found = false;
  return 0;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? atoll(argv[1]) : 4000000;
  int reps = argc > 2 ? atoi(argv[2]) : 3;
  int64_t key_counts[2] = {1000, 1000000};
  lm_schema *s = lm_schema_new(2);
  lm_schema_set_field(s, 0, "k", lm_type_make(LM_TYPE_INT64), false);
  lm_schema_set_field(s, 1, "v", lm_type_make(LM_TYPE_INT64), true);
  int nb = (int)((n + BATCH - 1) / BATCH);
  lm_batch **batches = calloc((size_t)nb, sizeof *batches);
  printf(
      "| operation | keys | M rows/s per core | reference M rows/s | ratio |\n"
      "|---|---:|---:|---:|---:|\n");
  for (int kc = 0; kc < 2; kc++) {
    int64_t K = key_counts[kc];
    for (int b = 0; b < nb; b++) {
      int64_t rows =
          n - (int64_t)b * BATCH < BATCH ? n - (int64_t)b * BATCH : BATCH;
      lm_batch_builder bb;
      lm_batch_builder_init(&bb, s, rows);
      for (int64_t r = 0; r < rows; r++) {
        lm_builder_append_i64_fast(&bb.cols[0], (int64_t)(rnd() % (uint64_t)K));
        lm_builder_append_i64_fast(&bb.cols[1], (int64_t)(rnd() % 1000));
      }
      lm_batch_release(batches[b]);
      lm_batch_builder_finish(&bb, &batches[b], NULL);
      lm_batch_builder_free(&bb);
    }
    double best[4] = {1e30, 1e30, 1e30, 1e30};
    int64_t found_l = 0, found_r = 0;
    for (int rep = 0; rep < reps; rep++) {
      int pk = 0;
      lm_table *t = lm_table_new(s, &pk, 1);
      lm_error err;
      lm_err_clear(&err);
      double t0 = cpu_s();
      for (int b = 0; b < nb; b++) {
        lm_batch *ch = NULL;
        if (lm_table_insert(t, "t", batches[b], &ch, &err)) {
          fprintf(stderr, "insert: %s\n", err.msg);
          return 1;
        }
        lm_batch_release(ch);
      }
      double t1 = cpu_s();
      int64_t ids[BATCH];
      found_l = 0;
      for (int b = 0; b < nb; b++) {
        lm_batch *g = NULL;
        if (lm_table_lookup(t, batches[b]->columns, batches[b]->num_rows, ids,
                            &err) ||
            lm_table_gather(t, ids, batches[b]->num_rows, &g, &err)) {
          fprintf(stderr, "lookup: %s\n", err.msg);
          return 1;
        }
        for (int64_t r = 0; r < g->num_rows; r++)
          found_l += ids[r] >= 0;
        lm_batch_release(g);
      }
      double t2 = cpu_s();
      lm_table_free(t);
      ref_map m;
      ref_init(&m, K);
      double t3 = cpu_s();
      for (int b = 0; b < nb; b++) {
        const int64_t *k = lm_array_i64(batches[b]->columns[0]);
        const int64_t *v = lm_array_i64(batches[b]->columns[1]);
        for (int64_t r = 0; r < batches[b]->num_rows; r++)
          ref_upsert(&m, k[r], v[r]);
      }
      double t4 = cpu_s();
      found_r = 0;
      int64_t sink = 0;
      for (int b = 0; b < nb; b++) {
        const int64_t *k = lm_array_i64(batches[b]->columns[0]);
        for (int64_t r = 0; r < batches[b]->num_rows; r++) {
          bool f;
          sink += ref_find(&m, k[r], &f);
          found_r += f;
        }
      }
      double t5 = cpu_s();
      if (sink == 42)
        printf(" ");
      ref_free(&m);
      double d[4] = {t1 - t0, t2 - t1, t4 - t3, t5 - t4};
      for (int i = 0; i < 4; i++)
        if (d[i] < best[i])
          best[i] = d[i];
    }
    if (found_l != found_r) {
      fprintf(stderr, "lookups disagree: %lld vs %lld\n", (long long)found_l,
              (long long)found_r);
      return 1;
    }
    const char *ops[2] = {"upsert (INSERT)", "lookup + gather"};
    for (int o = 0; o < 2; o++) {
      double l = (double)n / best[o] / 1e6, r = (double)n / best[o + 2] / 1e6;
      printf("| %s | %lld | %.2f | %.2f | %.2f |\n", ops[o], (long long)K, l, r,
             l / r);
    }
  }
  for (int b = 0; b < nb; b++)
    lm_batch_release(batches[b]);
  free(batches);
  lm_schema_release(s);
  return 0;
}
