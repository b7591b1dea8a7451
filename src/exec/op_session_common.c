/* Helpers shared by the two session window operators (op_session_window.c
 * over an append-only input, op_session_changelog.c over a changelog):
 * the opening of a push — evaluating the batch's keys and aggregate
 * arguments, splitting off the late rows and looking up each row's key —
 * and the growth of their per-key state arrays. */
#include <stdlib.h>
#include <string.h>

#include "exec/lm_exec.h"
#include "exec/op_internal.h"

int lm_session_in_open(lm_operator *op, const lm_plan *p, lm_batch *b,
                       lm_aggtable *kd, int64_t horizon, bool weighted,
                       lm_output_cb late, lm_session_in *in, lm_error *err) {
  memset(in, 0, sizeof *in);
  int64_t n = b->num_rows;
  if (p->n_keys > 64 || p->n_aggs > 64)
    return lm_err(err, LM_ERR_BIND, "too many GROUP BY keys or aggregates");
  int rc = lm_eval_inputs(p, b, in->keys, in->aggs, err);
  if (rc)
    return rc;
  if ((rc = lm_window_placeholder_keys(p, in->keys, n, err)))
    return rc;
  if (weighted) {
    in->wts = p->weight_col < b->num_columns
                  ? lm_array_i64(b->columns[p->weight_col])
                  : NULL;
    if (!in->wts)
      return lm_err(err, LM_ERR_EXEC,
                    "internal error: changelog without __weight");
  }
  int32_t *late_rows = malloc(sizeof(int32_t) * (size_t)(n + 1));
  in->sel = malloc(sizeof(int32_t) * (size_t)(n + 1));
  in->kids = malloc(sizeof(uint32_t) * (size_t)(n + 1));
  if (!late_rows || !in->sel || !in->kids) {
    free(late_rows);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  in->tc = b->columns[p->window_time_col];
  in->ts = lm_array_i64(in->tc);
  int64_t n_late = 0;
  lm_window_split_late(in->tc, n, horizon, in->wts, in->sel, &in->m, late_rows,
                       &n_late);
  rc = lm_window_send_late(op, late, b, late_rows, n_late, err);
  free(late_rows);
  if (!rc && in->m)
    rc = lm_aggtable_lookup(kd, in->keys, in->sel, in->m, in->kids, err);
  return rc;
}

void lm_session_in_free(const lm_plan *p, lm_session_in *in) {
  free(in->sel);
  free(in->kids);
  in->sel = NULL;
  in->kids = NULL;
  if (p->n_keys <= 64 && p->n_aggs <= 64) /* else nothing was evaluated */
    lm_release_inputs(p, in->keys, in->aggs);
}

int lm_grow_zeroed(void **arr, int64_t *cap, int64_t need, size_t elem,
                   lm_error *err) {
  if (need <= *cap)
    return 0;
  int64_t c = need * 2;
  char *a = realloc(*arr, elem * (size_t)c);
  if (!a)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  memset(a + elem * (size_t)*cap, 0, elem * (size_t)(c - *cap));
  *arr = a;
  *cap = c;
  return 0;
}
