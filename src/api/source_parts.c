/* Event time per partition of a source (engine.h, "partitions"): the
 * source's watermark is the minimum over its partitions' watermarks
 * (DESIGN.md "Time semantics"), so rows of a partition that lags are not
 * late because another partition ran ahead. */
#include <stdlib.h>
#include <string.h>

#include "api/engine.h"

static int parts_grow(lm_parts *p, int n, int64_t now_us) {
  if (n <= p->n)
    return 0;
  if (n > p->cap) {
    int c = p->cap ? p->cap : 4;
    while (c < n)
      c *= 2;
    int64_t **arrs[4] = {&p->max_ts, &p->cand, &p->wm, &p->last_row_at};
    for (int i = 0; i < 4; i++) {
      int64_t *a = realloc(*arrs[i], sizeof(int64_t) * (size_t)c);
      if (!a)
        return -1;
      *arrs[i] = a;
    }
    p->cap = c;
  }
  for (int i = p->n; i < n; i++) {
    p->max_ts[i] = p->cand[i] = p->wm[i] = INT64_MIN;
    p->last_row_at[i] = now_us; /* the idle clock starts at discovery */
  }
  p->n = n;
  return 0;
}

int lm_parts_push(lm_parts *p, int part, int n_known, int col, int64_t delay,
                  int64_t skew, int64_t src_wm, int64_t now_us, bool keep_late,
                  lm_batch *b, lm_batch **out, int64_t *late, lm_error *err) {
  *out = NULL;
  if (part < 0)
    part = 0;
  if (parts_grow(p, (n_known > part ? n_known : part + 1), now_us))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  p->last_row_at[part] = now_us;
  if (col < 0) {
    *out = lm_batch_retain(b);
    return 0;
  }
  /* late against the source's watermark (the minimum), as it stood when
   * the batch arrived */
  return lm_wm_filter(b, col, &src_wm, delay, skew, &p->max_ts[part],
                      &p->cand[part], &p->wm[part], keep_late, late, out, err);
}

int lm_wm_filter(lm_batch *b, int col, const int64_t *late_wm, int64_t delay,
                 int64_t skew, int64_t *max_ts, int64_t *cand, int64_t *wm,
                 bool keep_late, int64_t *late, lm_batch **out, lm_error *err) {
  *out = NULL;
  int64_t n = b->num_rows;
  const lm_array *ts = b->columns[col];
  const int64_t *v = lm_array_i64(ts);
  int32_t *keep = malloc(sizeof(int32_t) * (size_t)(n + 1));
  if (!keep)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    if (lm_array_is_null(ts, i)) {
      keep[k++] = (int32_t)i;
      continue;
    }
    if (*late_wm != INT64_MIN && v[i] < *late_wm) {
      (*late)++;
      if (!keep_late)
        continue;
    }
    keep[k++] = (int32_t)i;
    lm_wm_observe(v[i], delay, skew, max_ts, cand, wm);
  }
  int rc = 0;
  if (k == n)
    *out = lm_batch_retain(b);
  else if (k > 0 && !(*out = lm_batch_take(b, keep, k)))
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  free(keep);
  return rc;
}

int64_t lm_parts_watermark(lm_parts *p, lm_source_reader *r, int64_t now_us,
                           int64_t idle_us) {
  if (r && r->n_partitions > p->n && parts_grow(p, r->n_partitions, now_us))
    return INT64_MIN; /* out of memory: hold the watermark */
  int64_t wm = INT64_MAX, top = INT64_MIN;
  bool any = false;
  for (int i = 0; i < p->n; i++) {
    if (p->wm[i] > top)
      top = p->wm[i];
    if (r && r->partition_done && r->partition_done(r, i))
      continue; /* exhausted: cannot hold the others back */
    if (idle_us > 0 && now_us - p->last_row_at[i] >= idle_us)
      continue; /* idle ('idle.timeout.ms') */
    if (p->wm[i] == INT64_MIN)
      return INT64_MIN; /* an active partition without rows yet holds it */
    if (p->wm[i] < wm)
      wm = p->wm[i];
    any = true;
  }
  return any ? wm : top;
}

int lm_parts_seed(lm_parts *p, int64_t max_ts, int64_t cand, int64_t wm,
                  int64_t now_us) {
  if (p->n || max_ts == INT64_MIN)
    return 0;
  if (parts_grow(p, 1, now_us))
    return -1;
  p->max_ts[0] = max_ts;
  p->cand[0] = cand;
  p->wm[0] = wm;
  return 0;
}

int64_t lm_parts_max_ts(const lm_parts *p) {
  int64_t m = INT64_MIN;
  for (int i = 0; i < p->n; i++)
    if (p->max_ts[i] > m)
      m = p->max_ts[i];
  return m;
}

void lm_parts_free(lm_parts *p) {
  free(p->max_ts);
  free(p->cand);
  free(p->wm);
  free(p->last_row_at);
  memset(p, 0, sizeof *p);
}
