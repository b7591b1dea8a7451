/* Helpers shared by the window operators (op_window_aggregate.c,
 * op_session_window.c): building result rows with the window columns
 * filled in, and the __weight column of a changelog. */
#include <stdlib.h>
#include <string.h>

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
    lm_builder_append_int(&wb, weight);
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
