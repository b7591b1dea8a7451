/* Pipeline plumbing and the stateless operators: output, filter, project. */
#include <stdio.h>
#include <stdlib.h>

#include "exec/lm_exec.h"

/* Self time: the time of everything a timed region calls that is timed
 * itself (nested regions) is added to child_ns and subtracted from the
 * region's own. One thread runs a pipeline (engine.h). */
static _Thread_local int64_t child_ns;
/* read on every push: a plain flag (set between statements, not while a
 * pipeline runs on another thread) */
static bool timing_on = true;

void lm_op_timing_set(bool on) {
  timing_on = on;
}
bool lm_op_timing(void) {
  return timing_on;
}

void lm_op_timer_start(lm_op_timer *t) {
  if (!timing_on) {
    t->t0 = -1;
    return;
  }
  t->saved = child_ns;
  child_ns = 0;
  t->t0 = lm_now_ns();
}

void lm_op_timer_stop(lm_op_timer *t, lm_operator *op) {
  if (t->t0 < 0)
    return;
  int64_t dt = lm_now_ns() - t->t0;
  op->time_ns += dt - child_ns;
  child_ns = t->saved + dt;
}

int lm_operator_push(lm_operator *op, lm_batch *b, lm_error *err) {
  op->rows_in += b->num_rows;
  op->batches_in++;
  lm_op_timer t;
  lm_op_timer_start(&t);
  int rc = op->vt->push(op, b, err);
  lm_op_timer_stop(&t, op);
  return rc;
}

int lm_operator_watermark(lm_operator *op, int64_t wm, lm_error *err) {
  lm_op_timer t;
  lm_op_timer_start(&t);
  int rc = op->vt->watermark(op, wm, err);
  lm_op_timer_stop(&t, op);
  return rc;
}

int lm_operator_emit(lm_operator *op, lm_batch *b, lm_error *err) {
  op->rows_out += b->num_rows;
  if (!op->next || b->num_rows == 0)
    return 0;
  op->batches_out++;
  return lm_operator_push(op->next, b, err);
}

int lm_operator_forward_watermark(lm_operator *op, int64_t wm, lm_error *err) {
  return op->next ? lm_operator_watermark(op->next, wm, err) : 0;
}

static void plain_free(lm_operator *op) {
  free(op);
}

/* ---------------------------------------------------------------- output */

typedef struct output_op {
  lm_operator base;
  lm_output_cb cb;
} output_op;

static int output_push(lm_operator *op, lm_batch *b, lm_error *err) {
  output_op *o = (output_op *)op;
  op->rows_out += b->num_rows;
  op->batches_out++;
  return o->cb.batch ? o->cb.batch(o->cb.ctx, b, err) : 0;
}

static int output_wm(lm_operator *op, int64_t wm, lm_error *err) {
  output_op *o = (output_op *)op;
  return o->cb.watermark ? o->cb.watermark(o->cb.ctx, wm, err) : 0;
}

static const lm_operator_vt output_vt = {"output", output_push, output_wm,
                                         plain_free};

lm_operator *lm_op_output_new(lm_output_cb cb) {
  output_op *o = calloc(1, sizeof *o);
  if (!o)
    return NULL;
  o->base.vt = &output_vt;
  o->cb = cb;
  return &o->base;
}

/* ---------------------------------------------------------------- filter */

typedef struct filter_op {
  lm_operator base;
  const lm_bexpr *pred;
} filter_op;

static int filter_push(lm_operator *op, lm_batch *b, lm_error *err) {
  filter_op *f = (filter_op *)op;
  lm_batch *out;
  int rc = lm_batch_where(f->pred, b, &out, err);
  if (rc)
    return rc;
  rc = lm_operator_emit(op, out, err);
  lm_batch_release(out);
  return rc;
}

static const lm_operator_vt filter_vt = {
    "filter", filter_push, lm_operator_forward_watermark, plain_free};

lm_operator *lm_op_filter_new(const lm_bexpr *pred) {
  filter_op *f = calloc(1, sizeof *f);
  if (!f)
    return NULL;
  f->base.vt = &filter_vt;
  f->pred = pred;
  return &f->base;
}

/* --------------------------------------------------------------- project */

typedef struct project_op {
  lm_operator base;
  lm_bexpr *const *exprs;
  int n;
  lm_schema *schema;
  int weight_col;         /* changelog input: passed on; -1 = none */
  lm_schema *proj_schema; /* schema without __weight (weighted only) */
} project_op;

static int project_push(lm_operator *op, lm_batch *b, lm_error *err) {
  project_op *p = (project_op *)op;
  lm_batch *out;
  int rc =
      lm_project(p->exprs, p->n, p->proj_schema ? p->proj_schema : p->schema, b,
                 &out, err);
  if (rc)
    return rc;
  if (p->weight_col >= 0) { /* append the input's __weight column */
    if (p->weight_col >= b->num_columns) {
      lm_batch_release(out);
      return lm_err(err, LM_ERR_EXEC,
                    "internal error: changelog input without __weight");
    }
    int nc = out->num_columns;
    lm_array **cols = calloc((size_t)nc + 1, sizeof *cols);
    if (!cols) {
      lm_batch_release(out);
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    for (int c = 0; c < nc; c++)
      cols[c] = lm_array_retain(out->columns[c]);
    cols[nc] = lm_array_retain(b->columns[p->weight_col]);
    int64_t rows = out->num_rows;
    lm_batch_release(out);
    out = lm_batch_new(lm_schema_retain(p->schema), rows, cols);
    free(cols);
    if (!out)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  rc = lm_operator_emit(op, out, err);
  lm_batch_release(out);
  return rc;
}

static void project_free(lm_operator *op) {
  lm_schema_release(((project_op *)op)->schema);
  lm_schema_release(((project_op *)op)->proj_schema);
  free(op);
}

static const lm_operator_vt project_vt = {
    "project", project_push, lm_operator_forward_watermark, project_free};

lm_operator *lm_op_project_new(lm_bexpr *const *exprs, int n,
                               lm_schema *schema) {
  project_op *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  p->base.vt = &project_vt;
  p->exprs = exprs;
  p->n = n;
  p->schema = lm_schema_retain(schema);
  p->weight_col = -1;
  return &p->base;
}

lm_operator *lm_op_project_weighted_new(lm_bexpr *const *exprs, int n,
                                        lm_schema *schema, int weight_col) {
  if (schema->n_fields != n + 1)
    return NULL;
  lm_schema *ps = lm_schema_new(n);
  if (!ps)
    return NULL;
  for (int i = 0; i < n; i++)
    lm_schema_set_field(ps, i, schema->fields[i].name, schema->fields[i].type,
                        schema->fields[i].nullable);
  project_op *p = (project_op *)lm_op_project_new(exprs, n, schema);
  if (!p) {
    lm_schema_release(ps);
    return NULL;
  }
  p->weight_col = weight_col;
  p->proj_schema = ps;
  return &p->base;
}

/* -------------------------------------------------------------- pipeline */

lm_window_emit lm_plan_window_emit(const lm_plan *plan) {
  switch (plan->emit) {
  case LM_EMIT_ON_WINDOW_CLOSE:
  case LM_EMIT_AFTER_WATERMARK:
    return LM_WEMIT_CLOSE;
  case LM_EMIT_FINAL:
    return LM_WEMIT_FINAL;
  default: /* no EMIT, CHANGES, ON UPDATE, PERIODICALLY: an updating result */
    return LM_WEMIT_UPDATES;
  }
}

lm_operator *lm_pipeline_build(const lm_plan *plan, lm_schema *out_schema,
                               bool changelog, lm_output_cb out,
                               lm_operator **agg_op, lm_error *err) {
  lm_output_cb none = {NULL, NULL, NULL};
  return lm_pipeline_build_ex(plan, out_schema, changelog, out, none, agg_op,
                              err);
}

lm_operator *lm_pipeline_build_ex(const lm_plan *plan, lm_schema *out_schema,
                                  bool changelog, lm_output_cb out,
                                  lm_output_cb late, lm_operator **agg_op,
                                  lm_error *err) {
  lm_operator *ops[6];
  int n = 0;
  if (agg_op)
    *agg_op = NULL;
  if (plan->where)
    ops[n++] = lm_op_filter_new(plan->where);
  bool periodic = changelog && plan->emit == LM_EMIT_PERIODICALLY;
  if (plan->topn) { /* [subquery WHERE] -> Top-N -> outer projection */
    if (plan->topn->where)
      ops[n++] = lm_op_filter_new(plan->topn->where);
    ops[n++] = lm_op_topn_new(plan);
    ops[n++] = lm_op_project_weighted_new(plan->out, plan->out_schema->n_fields,
                                          out_schema, plan->topn_rn_col + 1);
  } else if (plan->has_agg && plan->window_kind != LM_WIN_NONE) {
    lm_window_emit mode = lm_plan_window_emit(plan);
    if (!changelog && mode == LM_WEMIT_UPDATES)
      mode = LM_WEMIT_CLOSE; /* the caller takes final rows only */
    lm_schema *ws = lm_window_changelog(plan, mode) ? out_schema : NULL;
    ops[n++] = plan->window_kind == LM_WIN_SESSION
                   ? lm_op_session_window_new(plan, mode, ws, late)
                   : lm_op_window_aggregate_new(plan, mode, ws, late);
  } else if (plan->has_agg) {
    ops[n] = lm_op_aggregate_new(plan, out_schema, changelog);
    if (agg_op)
      *agg_op = ops[n];
    n++;
  } else if (plan->n_tfilter) { /* rows in +1, out -1 as now() moves */
    ops[n++] = lm_op_temporal_filter_new(plan, out_schema);
  } else if (plan->changelog_input) { /* the weight flows through */
    ops[n++] = lm_op_project_weighted_new(plan->out, plan->out_schema->n_fields,
                                          out_schema, plan->weight_col);
  } else {
    ops[n++] = lm_op_project_new(plan->out, plan->out_schema->n_fields,
                                 plan->out_schema);
  }
  if (periodic)
    ops[n++] = lm_op_periodic_new(out_schema, plan->emit_interval_us);
  ops[n++] = lm_op_output_new(out);
  for (int i = 0; i < n; i++) {
    if (!ops[i]) {
      for (int k = 0; k < n; k++)
        if (ops[k])
          ops[k]->vt->free(ops[k]);
      lm_err(err, LM_ERR_NOMEM, "out of memory");
      return NULL;
    }
  }
  for (int i = 0; i + 1 < n; i++)
    ops[i]->next = ops[i + 1];
  return ops[0];
}

void lm_pipeline_free(lm_operator *head) {
  while (head) {
    lm_operator *next = head->next;
    head->vt->free(head);
    head = next;
  }
}
