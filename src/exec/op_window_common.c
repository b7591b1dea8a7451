/* Helpers shared by the window operators (op_window_aggregate.c,
 * op_session_window.c, op_session_changelog.c): building and emitting
 * result rows with the window columns filled in, the __weight column of a
 * changelog, lateness and window state against the watermark, compaction
 * of a state table, and the session operators' schedule heap. */
#include <stdlib.h>
#include <string.h>

#include "columnar/lm_temporal.h"
#include "exec/lm_exec.h"
#include "exec/op_internal.h"

int64_t lm_sat_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

lm_array *lm_const_ts_array(lm_type type, int64_t n, int64_t v) {
  lm_builder b;
  lm_array *a = NULL;
  if (lm_builder_init(&b, type, n))
    return NULL;
  if (lm_type_width(type) == 8 && b.capacity >= n) {
    int64_t *d = (int64_t *)b.values;
    for (int64_t i = 0; i < n; i++)
      d[i] = v;
    b.length = n;
  } else
    for (int64_t i = 0; i < n; i++)
      lm_builder_append_int(&b, v);
  if (lm_builder_finish(&b, &a))
    a = NULL;
  lm_builder_free(&b);
  return a;
}

int lm_with_weight(lm_batch *b, lm_schema *schema, int64_t weight,
                   lm_batch **out, lm_error *err) {
  int nc = b->num_columns;
  lm_array **cols = calloc((size_t)nc + 1, sizeof *cols);
  lm_builder wb;
  if (!cols || lm_builder_init(&wb, lm_type_make(LM_TYPE_INT64), b->num_rows)) {
    free(cols);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int64_t i = 0; i < b->num_rows; i++)
    lm_builder_append_i64_fast(&wb, weight);
  int rc = lm_builder_finish(&wb, &cols[nc]);
  lm_builder_free(&wb);
  if (rc) {
    free(cols);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int c = 0; c < nc; c++)
    cols[c] = lm_array_retain(b->columns[c]);
  *out = lm_batch_new(lm_schema_retain(schema), b->num_rows, cols);
  free(cols);
  return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
}

int lm_window_rows(const lm_plan *p, const lm_aggtable *t, const uint32_t *gids,
                   int64_t n, const int64_t *ws, const int64_t *we, int64_t ws0,
                   int64_t we0, lm_schema *wschema, int64_t weight,
                   lm_batch **out, lm_error *err) {
  *out = NULL;
  if (!gids)
    n = lm_aggtable_groups(t);
  uint32_t *live = NULL;
  if (p->changelog_input) {
    /* over a changelog, a group whose rows were all retracted has no row */
    live = malloc(sizeof(uint32_t) * (size_t)(n + 1));
    if (!live)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
      uint32_t g = gids ? gids[i] : (uint32_t)i;
      if (lm_aggtable_group_rows(t, g) > 0) {
        if (ws || we) { /* per-row window bounds follow their rows */
          k = -1;
          break;
        }
        live[k++] = g;
      }
    }
    if (k < 0) {
      free(live);
      live = NULL;
    } else {
      gids = live;
      n = k;
    }
  }
  lm_batch_builder bb;
  if (lm_batch_builder_init(&bb, p->agg_schema, n)) {
    free(live);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lm_batch *agg = NULL;
  int rc = lm_aggtable_emit(t, gids, n, &bb, err);
  if (!rc)
    rc = lm_batch_builder_finish(&bb, &agg, err);
  lm_batch_builder_free(&bb);
  free(live);
  if (rc)
    return rc;
  /* the window columns: ws/we per row */
  int nc = agg->num_columns;
  lm_array **cols = calloc((size_t)nc + 1, sizeof *cols);
  if (!cols) {
    lm_batch_release(agg);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int c = 0; c < nc; c++) {
    if (c != p->window_key && c != p->window_end_key) {
      cols[c] = lm_array_retain(agg->columns[c]);
      continue;
    }
    lm_builder b;
    const int64_t *v = c == p->window_key ? ws : we;
    int64_t v0 = c == p->window_key ? ws0 : we0;
    if (lm_builder_init(&b, p->agg_schema->fields[c].type, n) == 0) {
      for (int64_t i = 0; i < n; i++)
        lm_builder_append_int(&b, v ? v[i] : v0);
      if (lm_builder_finish(&b, &cols[c]))
        cols[c] = NULL;
      lm_builder_free(&b);
    }
    if (!cols[c])
      rc = LM_ERR_NOMEM;
  }
  int64_t rows = agg->num_rows;
  lm_batch_release(agg);
  if (rc) {
    for (int c = 0; c < nc; c++)
      lm_array_release(cols[c]);
    free(cols);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  agg = lm_batch_new(lm_schema_retain(p->agg_schema), rows, cols);
  free(cols);
  if (!agg)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_batch *proj = NULL;
  rc = lm_post_aggregate(p, agg, &proj, err);
  lm_batch_release(agg);
  if (rc)
    return rc;
  if (!weight) {
    *out = proj;
    return 0;
  }
  rc = lm_with_weight(proj, wschema, weight, out, err);
  lm_batch_release(proj);
  return rc;
}

int lm_window_placeholder_keys(const lm_plan *p, lm_array **keys, int64_t n,
                               lm_error *err) {
  for (int pass = 0; pass < 2; pass++) {
    int k = pass ? p->window_end_key : p->window_key;
    lm_array_release(keys[k]);
    keys[k] = lm_const_ts_array(p->agg_schema->fields[k].type, n, 0);
    if (!keys[k])
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  return 0;
}

bool lm_window_changelog(const lm_plan *plan, lm_window_emit mode) {
  return mode == LM_WEMIT_UPDATES ||
         (mode == LM_WEMIT_CLOSE && plan->allowed_lateness_us > 0);
}

bool lm_window_closed(int64_t wm, int64_t end) {
  return wm != INT64_MIN && end <= wm;
}

bool lm_window_expired(int64_t wm, int64_t end, int64_t lateness) {
  return wm != INT64_MIN &&
         (wm == INT64_MAX || lm_sat_add(end, lateness) <= wm);
}

int64_t lm_window_horizon(int64_t wm, int64_t lateness) {
  if (wm == INT64_MIN || wm == INT64_MAX)
    return wm;
  return lm_sat_add(wm, -lateness);
}

void lm_window_split_late(const lm_array *tc, int64_t n, int64_t horizon,
                          const int64_t *wts, int32_t *sel, int64_t *m,
                          int32_t *late, int64_t *n_late) {
  const int64_t *ts = lm_array_i64(tc);
  int64_t k = 0, l = 0;
  for (int64_t i = 0; i < n; i++) {
    /* no time a window can hold: NULL, 'infinity', '-infinity' */
    if (lm_array_is_null(tc, i) || ts[i] < horizon || !lm_ts_finite(ts[i]))
      late[l++] = (int32_t)i;
    else if (!wts || wts[i] != 0)
      sel[k++] = (int32_t)i;
  }
  *m = k;
  *n_late = l;
}

int lm_window_send_late(lm_operator *op, lm_output_cb late, lm_batch *b,
                        const int32_t *rows, int64_t n, lm_error *err) {
  op->late_dropped += n;
  if (!n || !late.batch)
    return 0;
  lm_batch *l = lm_batch_take(b, rows, n);
  if (!l)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int rc = late.batch(late.ctx, l, err);
  lm_batch_release(l);
  return rc;
}

int lm_window_emit_batch(lm_operator *op, lm_batch *b, lm_error *err) {
  int rc = b->num_rows ? lm_operator_emit(op, b, err) : 0;
  lm_batch_release(b);
  return rc;
}

int lm_window_emit_rows(lm_operator *op, const lm_plan *p, const lm_aggtable *t,
                        const lm_window_row *r, int64_t n, lm_schema *wschema,
                        int64_t weight, lm_error *err) {
  if (!n)
    return 0;
  uint32_t *g = malloc(sizeof(uint32_t) * (size_t)n);
  int64_t *ws = malloc(sizeof(int64_t) * (size_t)n);
  int64_t *we = malloc(sizeof(int64_t) * (size_t)n);
  int rc = 0;
  if (!g || !ws || !we) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  } else {
    for (int64_t i = 0; i < n; i++) {
      g[i] = r[i].g;
      ws[i] = r[i].ws;
      we[i] = r[i].we;
    }
    lm_batch *b = NULL;
    rc = lm_window_rows(p, t, g, n, ws, we, 0, 0, wschema, weight, &b, err);
    if (!rc)
      rc = lm_window_emit_batch(op, b, err);
  }
  free(g);
  free(ws);
  free(we);
  return rc;
}

int lm_window_compact(const lm_plan *p, lm_aggtable **t, uint32_t *g, int64_t n,
                      lm_error *err) {
  lm_aggtable *nt = lm_plan_new_aggtable(p);
  uint32_t *dg = malloc(sizeof(uint32_t) * (size_t)(n + 1));
  int64_t *ids = malloc(sizeof(int64_t) * (size_t)(n + 1));
  int rc = 0;
  if (!nt || !dg || !ids) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  rc = lm_aggtable_intern(nt, *t, g, n, true, ids, err);
  for (int64_t i = 0; i < n && !rc; i++)
    dg[i] = (uint32_t)ids[i];
  if (!rc)
    rc = lm_aggtable_merge_groups(nt, dg, *t, g, n, err);
  if (!rc) {
    memcpy(g, dg, sizeof(uint32_t) * (size_t)n);
    lm_aggtable_free(*t);
    *t = nt;
    nt = NULL;
  }
done:
  lm_aggtable_free(nt);
  free(dg);
  free(ids);
  return rc;
}

int lm_wheap_push(lm_wheap *h, int64_t key, int64_t id, int32_t ix) {
  if (h->n == h->cap) {
    int64_t cap = h->cap ? h->cap * 2 : 256;
    lm_wheap_ent *a = realloc(h->a, sizeof(lm_wheap_ent) * (size_t)cap);
    if (!a)
      return -1;
    h->a = a;
    h->cap = cap;
  }
  int64_t i = h->n++;
  while (i > 0) {
    int64_t up = (i - 1) / 2;
    if (h->a[up].key <= key)
      break;
    h->a[i] = h->a[up];
    i = up;
  }
  h->a[i] = (lm_wheap_ent){key, id, ix};
  return 0;
}

void lm_wheap_pop(lm_wheap *h) {
  lm_wheap_ent x = h->a[--h->n];
  int64_t i = 0, n = h->n;
  for (;;) {
    int64_t c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && h->a[c + 1].key < h->a[c].key)
      c++;
    if (x.key <= h->a[c].key)
      break;
    h->a[i] = h->a[c];
    i = c;
  }
  if (n)
    h->a[i] = x;
}
