/* The deterministic generator source: row i = (i, i * 1000 / rps, 'v<i>'). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connectors/lm_connectors.h"

typedef struct gen_reader {
  lm_source_reader base;
  lm_schema *schema;
  int64_t rps, max_rows, batch, next;
  int64_t started_us;
} gen_reader;

lm_schema *lm_generator_schema(void) {
  lm_schema *s = lm_schema_new(3);
  if (!s)
    return NULL;
  if (lm_schema_set_field(s, 0, "seq", lm_type_make(LM_TYPE_INT64), false) ||
      lm_schema_set_field(s, 1, "ts_ms", lm_type_make(LM_TYPE_INT64), false) ||
      lm_schema_set_field(s, 2, "value", lm_type_make(LM_TYPE_UTF8), false)) {
    lm_schema_release(s);
    return NULL;
  }
  return s;
}

/* Rows due by now for a paced (unbounded) generator. */
static int64_t due_rows(gen_reader *g) {
  int64_t el = lm_now_us() - g->started_us;
  return (int64_t)((__int128)el * g->rps / 1000000) + 1;
}

static int gen_poll(lm_source_reader *base, lm_batch **out, bool *eof,
                    lm_error *err) {
  gen_reader *g = (gen_reader *)base;
  *out = NULL;
  *eof = false;
  int64_t end = g->next + g->batch;
  if (g->max_rows >= 0) {
    if (g->next >= g->max_rows) {
      *eof = true;
      return 0;
    }
    if (end > g->max_rows)
      end = g->max_rows;
  } else {
    if (!g->started_us)
      g->started_us = lm_now_us();
    int64_t due = due_rows(g);
    if (end > due)
      end = due;
    if (end <= g->next)
      return 0;
  }
  lm_batch_builder bb;
  if (lm_batch_builder_init(&bb, g->schema, end - g->next))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  char v[32];
  for (int64_t i = g->next; i < end; i++) {
    lm_builder_append_i64_fast(&bb.cols[0], i);
    lm_builder_append_i64_fast(&bb.cols[1],
                               (int64_t)((__int128)i * 1000 / g->rps));
    int n = snprintf(v, sizeof v, "v%lld", (long long)i);
    lm_builder_append_str(&bb.cols[2], v, n);
  }
  g->next = end;
  int rc = lm_batch_builder_finish(&bb, out, err);
  lm_batch_builder_free(&bb);
  return rc;
}

static int64_t gen_wait(lm_source_reader *base) {
  gen_reader *g = (gen_reader *)base;
  if (g->max_rows >= 0 || !g->started_us)
    return 0;
  int64_t due_at = (int64_t)((__int128)g->next * 1000000 / g->rps);
  int64_t now = lm_now_us() - g->started_us;
  return due_at > now ? due_at - now : 0;
}

static void gen_free(lm_source_reader *base) {
  gen_reader *g = (gen_reader *)base;
  lm_schema_release(g->schema);
  free(g);
}

static int parse_count(const char *s, const char *name, int64_t min,
                       int64_t *out, lm_error *err) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end || v < min)
    return lm_err(err, LM_ERR_BIND,
                  "GENERATOR option '%s' must be an integer >= %lld, not '%s'",
                  name, (long long)min, s);
  *out = v;
  return 0;
}

int lm_generator_reader_new(const lm_kv *opts, int n_opts,
                            lm_source_reader **out, lm_error *err) {
  *out = NULL;
  gen_reader *g = calloc(1, sizeof *g);
  if (!g)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  g->base.poll = gen_poll;
  g->base.free = gen_free;
  g->base.wait_us = gen_wait;
  g->rps = 1000;
  g->max_rows = -1;
  g->batch = 1024;
  const char *v;
  int rc = 0;
  if ((v = lm_kv_get(opts, n_opts, "rows.per.second")))
    rc = parse_count(v, "rows.per.second", 1, &g->rps, err);
  if (!rc && (v = lm_kv_get(opts, n_opts, "max.rows")))
    rc = parse_count(v, "max.rows", 0, &g->max_rows, err);
  if (!rc && (v = lm_kv_get(opts, n_opts, "batch.max.size")))
    rc = parse_count(v, "batch.max.size", 1, &g->batch, err);
  g->schema = lm_generator_schema();
  if (!rc && !g->schema)
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (rc) {
    gen_free(&g->base);
    return rc;
  }
  g->base.unbounded = g->max_rows < 0;
  *out = &g->base;
  return 0;
}
