/* Helpers shared by the streaming OVER operators over an append-only input
 * (op_over.c) and over a changelog (op_over_changelog.c): a call's
 * function, partition ids, the values of a frame and its result. */
#include <stdlib.h>
#include <string.h>

#include "columnar/lm_decimal.h"
#include "exec/lm_window_fn.h"
#include "exec/op_internal.h"

lm_over_fn lm_over_fn_of(const lm_over_call *c, bool *isf) {
  const char *f = c->fn;
  lm_type_id at = c->arg ? c->arg->type.id : LM_TYPE_INT64;
  *isf =
      at == LM_TYPE_FLOAT32 || at == LM_TYPE_FLOAT64 || at == LM_TYPE_FLOAT16;
  return !strcmp(f, "count") ? LM_OVER_COUNT
         : !strcmp(f, "sum") ? LM_OVER_SUM
         : !strcmp(f, "avg") ? LM_OVER_AVG
         : !strcmp(f, "min") ? LM_OVER_MIN
                             : LM_OVER_MAX;
}

int lm_over_part_ids(const lm_over_call *c, lm_aggtable **keys,
                     const lm_batch *e, uint32_t *gid, int64_t *n_ids,
                     lm_error *err) {
  int64_t n = e->num_rows;
  if (!c->n_part) {
    memset(gid, 0, sizeof *gid * (size_t)n);
  } else {
    lm_array *karr[64] = {0};
    int rc = 0, nk = c->n_part > 64 ? 64 : c->n_part;
    for (int k = 0; !rc && k < nk; k++)
      rc = lm_eval(c->part[k], e, &karr[k], err);
    if (!rc && !*keys) {
      lm_type kt[64];
      for (int k = 0; k < nk; k++)
        kt[k] = karr[k]->type;
      if (!(*keys = lm_aggtable_new(nk, kt, 0, NULL)))
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    if (!rc)
      rc = lm_aggtable_lookup(*keys, karr, NULL, n, gid, err);
    for (int k = 0; k < nk; k++)
      lm_array_release(karr[k]);
    if (rc)
      return rc;
  }
  int64_t need = 1;
  for (int64_t i = 0; i < n; i++)
    if ((int64_t)gid[i] + 1 > need)
      need = (int64_t)gid[i] + 1;
  *n_ids = need;
  return 0;
}

int lm_over_avg_numeric(__int128 sum, int64_t cnt, int scale, __int128 *out) {
  return lm_dec_quotient(sum, 0, cnt, 0, scale, out) ? -1 : 0;
}

void lm_over_append_dec(lm_builder *b, __int128 v) {
  lm_dec_append(b, v);
}
