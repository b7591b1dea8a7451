/*
 * tests/unit/lm_test_reader.h — helpers for the unit tests of the
 * streaming text readers (test_csv.c, test_json.c): a schema from a table
 * of columns, a canonical text form of a batch, and the check that feeding
 * a text in pieces gives what feeding it whole gives. Header-only (every
 * test_*.c is its own executable); include after lm_test.h.
 */
#ifndef LM_TEST_READER_H
#define LM_TEST_READER_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lm_reader_text.h"

/* One column of a test schema. */
typedef struct col_spec {
  const char *name;
  lm_type_id type;
  bool nullable;
} col_spec;

/* A new schema of the n columns cols[0..n) (the caller releases it). */
static inline lm_schema *mk_schema(const col_spec *cols, int n) {
  lm_schema *s = lm_schema_new(n);
  for (int i = 0; i < n; i++)
    lm_schema_set_field(s, i, cols[i].name, lm_type_make(cols[i].type),
                        cols[i].nullable);
  return s;
}

/* lm_dump_batch with a "!! bad array" line for a bad column. */
static inline void dump_batch(lm_buf *o, const lm_batch *b) {
  lm_dump_batch(o, b, 0);
}

/* Pops r's batches into dump (dump_batch), releasing them. */
static inline void lm_test_drain(const lm_reader_vt *vt, void *r,
                                 lm_buf *dump) {
  lm_batch *b;
  while ((b = vt->next(r)) != NULL) {
    dump_batch(dump, b);
    lm_batch_release(b);
  }
}

/* Feeds data[0..len) to r in pieces ending at the given cut offsets
 * (ascending), then finishes. Fills dump with all batches and a final
 * "OK rows=N" / "ERROR rc line:column msg" line. Returns the status (the
 * error in *err_out when not NULL). r stays the caller's. */
static inline int lm_test_read(const lm_reader_vt *vt, void *r,
                               const char *data, size_t len, const size_t *cuts,
                               int ncuts, lm_buf *dump, lm_error *err_out) {
  lm_error err;
  lm_err_clear(&err);
  int rc = 0;
  size_t pos = 0;
  for (int i = 0; i <= ncuts && rc == 0; i++) {
    size_t to = i < ncuts ? cuts[i] : len;
    rc = vt->feed(r, data + pos, to - pos, &err);
    pos = to;
    lm_test_drain(vt, r, dump);
  }
  if (rc == 0)
    rc = vt->finish(r, &err);
  lm_test_drain(vt, r, dump);
  if (rc)
    lm_buf_printf(dump, "ERROR %d %d:%d %s\n", rc, err.line, err.column,
                  err.msg);
  else
    lm_buf_printf(dump, "OK rows=%" PRId64 "\n", vt->rows(r));
  if (err_out)
    *err_out = err;
  return rc;
}

/* A reader run for lm_test_check_splits: reads text[0..len) of a schema
 * and options, fed in pieces ending at cuts[0..ncuts) (ascending byte
 * offsets), appending every batch (dump_batch) and a final status line to
 * dump. */
typedef struct lm_test_split_ctx {
  lm_schema *s;
  const void *options;
} lm_test_split_ctx;
typedef void (*lm_test_split_run)(const lm_test_split_ctx *c, const char *text,
                                  size_t len, const size_t *cuts, int ncuts,
                                  lm_buf *dump);

/* Every single split point, byte-at-a-time feeding and (when random_cuts
 * > 0) that many random multi-cuts (seed 42) must give the same dump as
 * one feed. */
static inline void lm_test_check_splits(lm_test_split_run run,
                                        const lm_test_split_ctx *c,
                                        const char *text, size_t len,
                                        int random_cuts) {
  lm_buf ref;
  lm_buf_init(&ref);
  run(c, text, len, NULL, 0, &ref);
  int bad = 0;
  for (size_t cut = 0; cut <= len; cut++) {
    lm_buf d;
    lm_buf_init(&d);
    run(c, text, len, &cut, 1, &d);
    if (strcmp(d.data, ref.data) != 0 && bad++ < 3)
      fprintf(stderr, "split at %zu differs:\n%s\nvs\n%s\n", cut, d.data,
              ref.data);
    lm_buf_free(&d);
  }
  CHECK(bad == 0);
  size_t *all = malloc((len + 1) * sizeof *all);
  for (size_t i = 0; i < len; i++)
    all[i] = i;
  lm_buf d;
  lm_buf_init(&d);
  run(c, text, len, all, (int)len, &d);
  CHECK_EQ_STR(d.data, ref.data);
  lm_buf_free(&d);
  uint64_t seed = 42;
  for (int t = 0; t < random_cuts; t++) {
    int n = 0;
    for (size_t i = 0; i < len; i++)
      if (lm_test_rand(&seed) % 7 == 0)
        all[n++] = i;
    lm_buf_init(&d);
    run(c, text, len, all, n, &d);
    CHECK(strcmp(d.data, ref.data) == 0);
    lm_buf_free(&d);
  }
  free(all);
  lm_buf_free(&ref);
}

#endif
