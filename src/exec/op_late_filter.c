/*
 * Late-row filter at the head of a query over a watermarked source
 * (docs/windows.md, "Late rows"). It follows the source's watermark the
 * way the source does (largest event time seen minus the delay, row by
 * row, and every watermark it is sent) and drops, per query, the rows
 * below watermark - allowed lateness, passing them to the LATE DATA TO
 * target when there is one.
 */
#include <stdlib.h>

#include "columnar/lm_temporal.h"
#include "exec/lm_exec.h"
#include "exec/op_internal.h"

void lm_wm_observe(int64_t x, int64_t delay_us, int64_t skew_us,
                   int64_t *max_ts, int64_t *cand, int64_t *wm) {
  if (x <= *max_ts || !lm_ts_finite(x)) /* 'infinity' does not move it */
    return;
  if (skew_us > 0 && *max_ts != INT64_MIN &&
      (__int128)x - *max_ts > (__int128)skew_us) {
    /* far ahead: wait for a second event near it */
    __int128 d = (__int128)x - (*cand == INT64_MIN ? 0 : *cand);
    if (*cand == INT64_MIN || d > skew_us || d < -(__int128)skew_us) {
      *cand = x;
      return;
    }
    if (*cand > x)
      x = *cand;
    *cand = INT64_MIN;
  }
  *max_ts = x;
  int64_t w = lm_sat_add(x, -delay_us);
  if (w > *wm)
    *wm = w;
}

typedef struct lf_op {
  lm_operator base;
  int col;
  int64_t delay, skew, cand, lateness, max_ts, wm;
  bool wm_only; /* a partitioned source: only watermarks move wm */
  lm_output_cb late;
} lf_op;

/* Whether no row of v[0..n) (no NULLs) is late, as the row-by-row loop of
 * lf_push would find: the times never decrease and the first is at or
 * above the threshold. Then each row is at or above the largest before it,
 * so at or above its watermark (delay >= 0, no skew) less the lateness (>=
 * 0). The state then moves as the loop would move it: to the last row. */
static bool lf_in_order(lf_op *o, const int64_t *v, int64_t n) {
  if (n == 0 || o->skew > 0 || o->delay < 0 || o->lateness < 0 ||
      o->wm == INT64_MAX)
    return false;
  int64_t thr =
      o->wm == INT64_MIN ? INT64_MIN : lm_sat_add(o->wm, -o->lateness);
  /* (a row at INT64_MAX would make the watermark +inf: rows after late) */
  if (v[0] < thr || v[n - 1] == INT64_MAX)
    return false;
  bool down = false;
  for (int64_t i = 1; i < n; i++)
    down |= v[i] < v[i - 1];
  if (down)
    return false;
  if (!o->wm_only && v[n - 1] > o->max_ts)
    lm_wm_observe(v[n - 1], o->delay, o->skew, &o->max_ts, &o->cand, &o->wm);
  return true;
}

static int lf_push(lm_operator *op, lm_batch *b, lm_error *err) {
  lf_op *o = (lf_op *)op;
  int64_t n = b->num_rows;
  const lm_array *tc = b->columns[o->col];
  const int64_t *v = lm_array_i64(tc);
  /* the common case, rows in time order and none late: passed on whole */
  if (!tc->validity && lf_in_order(o, v, n))
    return lm_operator_emit(op, b, err);
  int32_t *keep = malloc(sizeof(int32_t) * (size_t)(n + 1));
  int32_t *late = malloc(sizeof(int32_t) * (size_t)(n + 1));
  int rc = 0;
  if (!keep || !late) {
    free(keep);
    free(late);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  int64_t k = 0, nl = 0;
  /* late: below wm - lateness (everything at the final watermark); the
   * threshold is recomputed only when a row moves the watermark */
  bool nulls = tc->validity != NULL, all_late = o->wm == INT64_MAX;
  int64_t thr =
      o->wm == INT64_MIN ? INT64_MIN : lm_sat_add(o->wm, -o->lateness);
  for (int64_t i = 0; i < n; i++) {
    if (nulls && lm_array_is_null(tc, i)) {
      keep[k++] = (int32_t)i; /* the window operators drop them */
      continue;
    }
    int64_t x = v[i];
    if (all_late || x < thr) {
      late[nl++] = (int32_t)i;
      continue;
    }
    keep[k++] = (int32_t)i;
    if (!o->wm_only && x > o->max_ts) {
      lm_wm_observe(x, o->delay, o->skew, &o->max_ts, &o->cand, &o->wm);
      all_late = o->wm == INT64_MAX;
      thr = o->wm == INT64_MIN ? INT64_MIN : lm_sat_add(o->wm, -o->lateness);
    }
  }
  op->late_dropped += nl;
  if (nl && o->late.batch) {
    lm_batch *l = lm_batch_take(b, late, nl);
    rc = l ? o->late.batch(o->late.ctx, l, err)
           : lm_err(err, LM_ERR_NOMEM, "out of memory");
    lm_batch_release(l);
  }
  if (!rc && k) {
    lm_batch *f = k == n ? lm_batch_retain(b) : lm_batch_take(b, keep, k);
    rc = f ? lm_operator_emit(op, f, err)
           : lm_err(err, LM_ERR_NOMEM, "out of memory");
    lm_batch_release(f);
  }
  free(keep);
  free(late);
  return rc;
}

static int lf_watermark(lm_operator *op, int64_t wm, lm_error *err) {
  lf_op *o = (lf_op *)op;
  if (wm > o->wm)
    o->wm = wm;
  return lm_operator_forward_watermark(op, wm, err);
}

static void lf_free(lm_operator *op) {
  free(op);
}

static const lm_operator_vt lf_vt = {"late_filter", lf_push, lf_watermark,
                                     lf_free};

void lm_op_late_filter_follow_rows(lm_operator *op, bool follow) {
  if (op && op->vt == &lf_vt)
    ((lf_op *)op)->wm_only = !follow;
}

lm_operator *lm_op_late_filter_new(int time_col, int64_t delay_us,
                                   int64_t skew_us, int64_t lateness_us,
                                   lm_output_cb late) {
  lf_op *o = calloc(1, sizeof *o);
  if (!o)
    return NULL;
  o->base.vt = &lf_vt;
  o->col = time_col;
  o->delay = delay_us;
  o->skew = skew_us;
  o->cand = INT64_MIN;
  o->lateness = lateness_us;
  o->max_ts = INT64_MIN;
  o->wm = INT64_MIN;
  o->late = late;
  return &o->base;
}
