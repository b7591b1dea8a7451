/*
 * Tumbling-window aggregate with EMIT ON WINDOW CLOSE.
 *
 * Each open window [start, start + size) owns a group table (the window
 * start is part of the key, so emission is a plain table scan). A batch's
 * rows are split by window; rows whose window has already closed
 * (start + size <= watermark) are late: dropped and counted. When the
 * watermark reaches a window's end the window emits one row per group,
 * windows in ascending order, and its state is freed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/lm_exec.h"
#include "exec/op_internal.h"

typedef struct window {
  int64_t start;
  lm_aggtable *t;
} window;

typedef struct win_op {
  lm_operator base;
  const lm_plan *plan;
  window *wins; /* sorted by start */
  int64_t n_wins, cap_wins;
  int64_t wm; /* INT64_MIN until the first watermark */
  int32_t *sel;
  int64_t sel_cap;
} win_op;

/* Windows with start <= close_limit(wm, size), i.e. end <= wm, are closed
 * (computed without overflow for any wm). */
static int64_t close_limit(int64_t wm, int64_t size) {
  if (wm == INT64_MAX) /* the final watermark, +infinity: everything closes */
    return INT64_MAX;
  int64_t lim;
  if (__builtin_sub_overflow(wm, size, &lim))
    return INT64_MIN;
  return lim;
}

static int64_t find_window(win_op *o, int64_t start, bool *found) {
  int64_t lo = 0, hi = o->n_wins;
  while (lo < hi) {
    int64_t mid = (lo + hi) / 2;
    if (o->wins[mid].start < start)
      lo = mid + 1;
    else
      hi = mid;
  }
  *found = lo < o->n_wins && o->wins[lo].start == start;
  return lo;
}

static window *get_window(win_op *o, int64_t start) {
  bool found;
  int64_t i = find_window(o, start, &found);
  if (found)
    return &o->wins[i];
  if (o->n_wins == o->cap_wins) {
    int64_t cap = o->cap_wins ? o->cap_wins * 2 : 8;
    window *w = realloc(o->wins, sizeof(window) * (size_t)cap);
    if (!w)
      return NULL;
    o->wins = w;
    o->cap_wins = cap;
  }
  lm_aggtable *t = lm_plan_new_aggtable(o->plan);
  if (!t)
    return NULL;
  memmove(&o->wins[i + 1], &o->wins[i],
          sizeof(window) * (size_t)(o->n_wins - i));
  o->wins[i].start = start;
  o->wins[i].t = t;
  o->n_wins++;
  return &o->wins[i];
}

typedef struct win_row {
  int64_t start;
  int32_t row;
} win_row;

static int cmp_win_row(const void *x, const void *y) {
  const win_row *a = x, *b = y;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return (a->row > b->row) - (a->row < b->row);
}

static int win_push(lm_operator *op, lm_batch *b, lm_error *err) {
  win_op *o = (win_op *)op;
  const lm_plan *p = o->plan;
  int64_t n = b->num_rows, size = p->window_size_us;
  lm_array *keys[64] = {0}, *aggs[64] = {0};
  if (p->n_keys > 64 || p->n_aggs > 64)
    return lm_err(err, LM_ERR_BIND, "too many GROUP BY keys or aggregates");
  int rc = lm_eval_inputs(p, b, keys, aggs, err);
  if (rc)
    goto done;
  if ((rc = lm_scratch_grow((void **)&o->sel, &o->sel_cap, n, sizeof(int32_t),
                            err)))
    goto done;
  const lm_array *wk = keys[p->window_key];
  const int64_t *starts = lm_array_i64(wk);
  /* Group the rows by window: (start, row) pairs, sorted when the batch is
   * not already in window order, then one table update per run of equal
   * starts (rows keep their order inside a run). */
  win_row *wr = malloc(sizeof(win_row) * (size_t)(n + 1));
  if (!wr) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  int64_t m = 0;
  bool sorted = true;
  for (int64_t i = 0; i < n; i++) {
    if (lm_array_is_null(wk, i)) { /* no event time: cannot be placed */
      op->late_dropped++;
      continue;
    }
    wr[m].start = starts[i];
    wr[m].row = (int32_t)i;
    if (m > 0 && wr[m].start < wr[m - 1].start)
      sorted = false;
    m++;
  }
  if (!sorted)
    qsort(wr, (size_t)m, sizeof *wr, cmp_win_row);
  for (int64_t a = 0; a < m && !rc;) {
    int64_t start = wr[a].start, k = 0;
    while (a < m && wr[a].start == start)
      o->sel[k++] = wr[a++].row;
    if (o->wm != INT64_MIN && start <= close_limit(o->wm, size)) {
      op->late_dropped += k; /* window already closed */
      continue;
    }
    window *w = get_window(o, start);
    if (!w) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      break;
    }
    rc = lm_aggtable_update(w->t, keys, aggs, o->sel, k, NULL, err);
  }
  free(wr);
done:
  lm_release_inputs(p, keys, aggs);
  return rc;
}

static int emit_window(win_op *o, window *w, lm_error *err) {
  lm_batch *out = NULL;
  int rc = lm_aggtable_result(o->plan, w->t, NULL, 0, &out, err);
  if (!rc)
    rc = lm_operator_emit(&o->base, out, err);
  lm_batch_release(out);
  return rc;
}

static int win_watermark(lm_operator *op, int64_t wm, lm_error *err) {
  win_op *o = (win_op *)op;
  if (o->wm != INT64_MIN && wm <= o->wm)
    return 0;
  o->wm = wm;
  int64_t size = o->plan->window_size_us, closed = 0;
  int rc = 0;
  int64_t lim = close_limit(wm, size);
  while (closed < o->n_wins && o->wins[closed].start <= lim) {
    rc = emit_window(o, &o->wins[closed], err);
    lm_aggtable_free(o->wins[closed].t);
    closed++;
    if (rc)
      break;
  }
  if (closed) {
    memmove(o->wins, o->wins + closed,
            sizeof(window) * (size_t)(o->n_wins - closed));
    o->n_wins -= closed;
  }
  if (rc)
    return rc;
  return lm_operator_forward_watermark(op, wm, err);
}

static void win_free(lm_operator *op) {
  win_op *o = (win_op *)op;
  for (int64_t i = 0; i < o->n_wins; i++)
    lm_aggtable_free(o->wins[i].t);
  free(o->wins);
  free(o->sel);
  free(o);
}

static const lm_operator_vt win_vt = {"window_aggregate", win_push,
                                      win_watermark, win_free};

lm_operator *lm_op_window_aggregate_new(const lm_plan *plan) {
  win_op *o = calloc(1, sizeof *o);
  if (!o)
    return NULL;
  o->base.vt = &win_vt;
  o->plan = plan;
  o->wm = INT64_MIN;
  return &o->base;
}
