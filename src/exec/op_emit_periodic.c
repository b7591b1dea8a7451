/*
 * EMIT PERIODICALLY INTERVAL 'n' UNIT (docs/windows.md): the changelog of
 * the operator before it is buffered and, at every processing-time tick
 * (lm_operator_tick: the engine's clock, virtual in script mode), emitted
 * consolidated: what changed since the previous tick, as -old/+new rows.
 * The watermark is held back with the rows and released after them.
 * Also: lm_changelog_consolidate, used by materialized views over a
 * changelog.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/lm_exec.h"
#include "exec/op_internal.h"

int lm_operator_tick(lm_operator *op, int64_t now_us, lm_error *err) {
  for (; op; op = op->next)
    if (op->tick)
      return op->tick(op, now_us, err);
  return 0;
}

int lm_changelog_consolidate(lm_schema *schema, lm_batch *const *batches, int n,
                             bool keep_weight, lm_schema *table_schema,
                             lm_batch **out, lm_error *err) {
  int nk = schema->n_fields - 1; /* the last column is __weight */
  *out = NULL;
  lm_type *kt = malloc(sizeof(lm_type) * (size_t)(nk + 1));
  lm_schema *ts = lm_schema_new(nk + 1);
  lm_agg_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.kind = LM_AGG_SUM;
  spec.in_type = spec.out_type = lm_type_make(LM_TYPE_INT64);
  lm_aggtable *t = NULL;
  lm_batch *sums = NULL;
  int32_t *idx = NULL;
  uint32_t *gids = NULL;
  int rc = 0;
  if (!kt || !ts) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  for (int c = 0; c < nk; c++) {
    kt[c] = schema->fields[c].type;
    lm_schema_set_field(ts, c, schema->fields[c].name, kt[c], true);
  }
  lm_schema_set_field(ts, nk, "__weight", lm_type_make(LM_TYPE_INT64), true);
  if (!(t = lm_aggtable_new(nk, kt, 1, &spec))) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  for (int i = 0; i < n && !rc; i++) {
    lm_batch *b = batches[i];
    lm_array *w = b->columns[nk];
    rc = lm_aggtable_update(t, b->columns, &w, NULL, b->num_rows, NULL, err);
  }
  if (rc)
    goto done;
  lm_batch_builder bb;
  if (lm_batch_builder_init(&bb, ts, lm_aggtable_groups(t))) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  rc = lm_aggtable_emit(t, NULL, 0, &bb, err);
  if (!rc)
    rc = lm_batch_builder_finish(&bb, &sums, err);
  lm_batch_builder_free(&bb);
  if (rc)
    goto done;
  /* rows to emit: retractions (net < 0) first, then insertions */
  const int64_t *w = lm_array_i64(sums->columns[nk]);
  int64_t total = 0;
  for (int64_t r = 0; r < sums->num_rows; r++)
    if (keep_weight || w[r] > 0)
      total += w[r] < 0 ? -w[r] : w[r];
  if (total > INT32_MAX) {
    rc = lm_err(err, LM_ERR_LIMIT, "changelog too large to consolidate");
    goto done;
  }
  idx = malloc(sizeof(int32_t) * (size_t)(total + 1));
  if (!idx) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  int64_t k = 0, n_neg = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int64_t r = 0; r < sums->num_rows; r++) {
      if (pass == 0 ? (w[r] >= 0 || !keep_weight) : w[r] <= 0)
        continue;
      for (int64_t c = w[r] < 0 ? -w[r] : w[r]; c > 0; c--)
        idx[k++] = (int32_t)r;
      if (pass == 0)
        n_neg = k;
    }
  lm_batch *rows = lm_batch_take(sums, idx, k);
  if (!rows) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  /* the weight column becomes -1/+1; or goes */
  int nc = keep_weight ? nk + 1 : nk;
  lm_array **cols = calloc((size_t)nc + 1, sizeof *cols);
  lm_builder wb;
  if (!cols ||
      (keep_weight && lm_builder_init(&wb, lm_type_make(LM_TYPE_INT64), k))) {
    free(cols);
    lm_batch_release(rows);
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  for (int c = 0; c < nk; c++)
    cols[c] = lm_array_retain(rows->columns[c]);
  if (keep_weight) {
    for (int64_t i = 0; i < k; i++)
      lm_builder_append_int(&wb, i < n_neg ? -1 : 1);
    if (lm_builder_finish(&wb, &cols[nk]))
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    lm_builder_free(&wb);
  }
  lm_batch_release(rows);
  if (rc) {
    for (int c = 0; c < nc; c++)
      lm_array_release(cols[c]);
    free(cols);
    goto done;
  }
  *out = lm_batch_new(lm_schema_retain(keep_weight ? schema : table_schema), k,
                      cols);
  free(cols);
  if (!*out)
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
done:
  lm_batch_release(sums);
  lm_aggtable_free(t);
  lm_schema_release(ts);
  free(kt);
  free(idx);
  free(gids);
  return rc;
}

typedef struct per_op {
  lm_operator base;
  lm_schema *schema;
  int64_t interval, next_tick;
  lm_batch **buf;
  int n_buf, cap_buf;
  int64_t held_wm; /* not yet forwarded; INT64_MIN = none */
} per_op;

static int flush(per_op *o, lm_error *err) {
  int rc = 0;
  if (o->n_buf) {
    lm_batch *c = NULL;
    rc = lm_changelog_consolidate(o->schema, o->buf, o->n_buf, true, NULL, &c,
                                  err);
    for (int i = 0; i < o->n_buf; i++)
      lm_batch_release(o->buf[i]);
    o->n_buf = 0;
    if (!rc && c->num_rows)
      rc = lm_operator_emit(&o->base, c, err);
    lm_batch_release(c);
  }
  if (!rc && o->held_wm != INT64_MIN) {
    int64_t wm = o->held_wm;
    o->held_wm = INT64_MIN;
    rc = lm_operator_forward_watermark(&o->base, wm, err);
  }
  return rc;
}

static int per_push(lm_operator *op, lm_batch *b, lm_error *err) {
  per_op *o = (per_op *)op;
  if (o->n_buf == o->cap_buf) {
    int cap = o->cap_buf ? o->cap_buf * 2 : 16;
    lm_batch **nb = realloc(o->buf, sizeof(lm_batch *) * (size_t)cap);
    if (!nb)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    o->buf = nb;
    o->cap_buf = cap;
  }
  o->buf[o->n_buf++] = lm_batch_retain(b);
  return 0;
}

static int per_watermark(lm_operator *op, int64_t wm, lm_error *err) {
  per_op *o = (per_op *)op;
  o->held_wm = wm;
  return wm == INT64_MAX ? flush(o, err) : 0; /* the end: flush now */
}

static int per_tick(lm_operator *op, int64_t now, lm_error *err) {
  per_op *o = (per_op *)op;
  int64_t aligned = lm_floor_div(now, o->interval) * o->interval;
  if (o->next_tick == INT64_MIN)
    o->next_tick = aligned;
  int rc = 0;
  if (now >= o->next_tick) {
    o->next_tick = lm_sat_add(aligned, o->interval);
    rc = flush(o, err);
  }
  return rc ? rc : lm_operator_tick(op->next, now, err);
}

static void per_free(lm_operator *op) {
  per_op *o = (per_op *)op;
  for (int i = 0; i < o->n_buf; i++)
    lm_batch_release(o->buf[i]);
  free(o->buf);
  lm_schema_release(o->schema);
  free(o);
}

static const lm_operator_vt per_vt = {"emit_periodically", per_push,
                                      per_watermark, per_free};

lm_operator *lm_op_periodic_new(lm_schema *schema, int64_t interval_us) {
  per_op *o = calloc(1, sizeof *o);
  if (!o)
    return NULL;
  o->base.vt = &per_vt;
  o->base.tick = per_tick;
  o->schema = lm_schema_retain(schema);
  o->interval = interval_us > 0 ? interval_us : 1;
  o->next_tick = INT64_MIN;
  o->held_wm = INT64_MIN;
  return &o->base;
}
