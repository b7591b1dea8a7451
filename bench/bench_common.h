/*
 * Shared by the event-stream benchmarks (bench_windows.c, bench_over.c):
 * the splitmix64 generator and their data set.
 *
 * Data: n events pre-generated into batches of BENCH_BATCH rows: k (BIGINT
 * uniform over `keys`, or VARCHAR "user%07u" when str), v BIGINT in
 * [0, 1000), ts TIMESTAMP = BENCH_T0_US + i * BENCH_STEP_US minus up to
 * BENCH_DISORDER_US of jitter (µs). The generator restarts from one seed
 * for every data set, so every benchmark sees the same events.
 */
#ifndef LM_BENCH_COMMON_H
#define LM_BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/engine.h"

#define BENCH_BATCH 4096
#define BENCH_STEP_US 2         /* event time per event: 500 K events/s */
#define BENCH_DISORDER_US 50000 /* ts jitter, below the watermark delay */
#define BENCH_DELAY_US 100000   /* WATERMARK FOR ts AS ts - 100 ms */
#define BENCH_T0_US 1700000000000000LL

static uint64_t bench_rng_state = 0x9E3779B97F4A7C15ull;
static inline uint64_t bench_rnd(void) { /* splitmix64 */
  uint64_t z = (bench_rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

typedef struct dataset {
  bool str;
  int64_t keys, n;
  int nb;
  lm_batch **batches; /* owned */
  /* the same values as flat arrays per batch (views into the batches;
   * k for BIGINT keys, off/data for VARCHAR ones) */
  const int64_t **k, **v, **ts;
  const int32_t **off;
  const char **data;
} dataset;

static inline void make_data(dataset *d, bool str, int64_t keys, int64_t n) {
  memset(d, 0, sizeof *d);
  d->str = str;
  d->keys = keys;
  d->n = n;
  d->nb = (int)((n + BENCH_BATCH - 1) / BENCH_BATCH);
  d->batches = calloc((size_t)d->nb, sizeof *d->batches);
  d->k = calloc((size_t)d->nb, sizeof *d->k);
  d->v = calloc((size_t)d->nb, sizeof *d->v);
  d->ts = calloc((size_t)d->nb, sizeof *d->ts);
  d->off = calloc((size_t)d->nb, sizeof *d->off);
  d->data = calloc((size_t)d->nb, sizeof *d->data);
  bench_rng_state = 0x9E3779B97F4A7C15ull;
  lm_schema *s = lm_schema_new(3);
  lm_schema_set_field(s, 0, "k",
                      lm_type_make(str ? LM_TYPE_UTF8 : LM_TYPE_INT64), false);
  lm_schema_set_field(s, 1, "v", lm_type_make(LM_TYPE_INT64), false);
  lm_schema_set_field(s, 2, "ts", lm_type_make(LM_TYPE_TIMESTAMP), false);
  int64_t i = 0;
  for (int b = 0; b < d->nb; b++) {
    int64_t rows = n - i < BENCH_BATCH ? n - i : BENCH_BATCH;
    lm_builder bk, bv, bt;
    lm_builder_init(&bk, s->fields[0].type, rows);
    lm_builder_init(&bv, s->fields[1].type, rows);
    lm_builder_init(&bt, s->fields[2].type, rows);
    for (int64_t r = 0; r < rows; r++, i++) {
      uint64_t x = bench_rnd();
      uint32_t key = (uint32_t)((x & 0xffffffffu) % (uint64_t)keys);
      if (str) {
        char buf[16];
        int len = snprintf(buf, sizeof buf, "user%07u", key);
        lm_builder_append_str_fast(&bk, buf, len);
      } else
        lm_builder_append_i64_fast(&bk, (int64_t)key);
      lm_builder_append_i64_fast(&bv, (int64_t)((x >> 32) % 1000));
      int64_t jitter = (int64_t)((x >> 42) % BENCH_DISORDER_US);
      lm_builder_append_i64_fast(&bt, BENCH_T0_US + i * BENCH_STEP_US - jitter);
    }
    lm_array *cols[3];
    lm_builder_finish(&bk, &cols[0]);
    lm_builder_finish(&bv, &cols[1]);
    lm_builder_finish(&bt, &cols[2]);
    lm_builder_free(&bk);
    lm_builder_free(&bv);
    lm_builder_free(&bt);
    d->batches[b] = lm_batch_new(lm_schema_retain(s), rows, cols);
    if (str) {
      d->off[b] = (const int32_t *)cols[0]->values->data + cols[0]->offset;
      d->data[b] = (const char *)cols[0]->data->data;
    } else
      d->k[b] = lm_array_i64(cols[0]);
    d->v[b] = lm_array_i64(cols[1]);
    d->ts[b] = lm_array_i64(cols[2]);
  }
  lm_schema_release(s);
}

static inline void free_data(dataset *d) {
  for (int b = 0; b < d->nb; b++)
    lm_batch_release(d->batches[b]);
  free(d->batches);
  free(d->k);
  free(d->v);
  free(d->ts);
  free(d->off);
  free(d->data);
}

#endif
