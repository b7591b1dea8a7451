/*
 * exec/op_tee.c — a tee: every batch and watermark goes to the operator's
 * next and to a second pipeline. A subplan computed once and read by two
 * consumers of one query (api/engine.c: two identical window aggregates
 * over the same input, Nexmark q5's AuctionBids and CountBids) feeds the
 * second consumer through it.
 */
#include <stdlib.h>

#include "exec/lm_exec.h"

typedef struct tee_op {
  lm_operator base;
  lm_operator *second; /* owned */
} tee_op;

static int tee_push(lm_operator *op, lm_batch *b, lm_error *err) {
  tee_op *t = (tee_op *)op;
  int rc = lm_operator_emit(op, b, err);
  return rc ? rc : lm_operator_push(t->second, b, err);
}

static int tee_watermark(lm_operator *op, int64_t wm, lm_error *err) {
  tee_op *t = (tee_op *)op;
  int rc = lm_operator_forward_watermark(op, wm, err);
  return rc ? rc : lm_operator_watermark(t->second, wm, err);
}

/* processing-time ticks reach both pipelines (EMIT PERIODICALLY) */
static int tee_tick(lm_operator *op, int64_t now_us, lm_error *err) {
  tee_op *t = (tee_op *)op;
  int rc = lm_operator_tick(op->next, now_us, err);
  return rc ? rc : lm_operator_tick(t->second, now_us, err);
}

static void tee_free(lm_operator *op) {
  tee_op *t = (tee_op *)op;
  lm_pipeline_free(t->second);
  free(t);
}

static const lm_operator_vt tee_vt = {"tee", tee_push, tee_watermark, tee_free};

lm_operator *lm_op_tee_new(lm_operator *second) {
  tee_op *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->base.vt = &tee_vt;
  t->base.tick = tee_tick;
  t->second = second;
  return &t->base;
}
