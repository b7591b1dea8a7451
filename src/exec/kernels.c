/* Selection kernels: take (gather), filter, project, concatenate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/lm_exec.h"

lm_array *lm_array_take(const lm_array *a, const int32_t *idx, int64_t n) {
  lm_builder b;
  if (a->type.id == LM_TYPE_NULL)
    return lm_array_new_null(a->type, n);
  if (lm_builder_init(&b, a->type, n))
    return NULL;
  int w = lm_type_width(a->type);
  if (w == 8 && !a->null_count) {
    if (b.capacity < n && lm_builder_grow(&b, n)) {
      lm_builder_free(&b);
      return NULL;
    }
    const int64_t *v = (const int64_t *)a->values->data + a->offset;
    int64_t *r = (int64_t *)b.values;
    for (int64_t i = 0; i < n; i++)
      r[i] = v[idx[i]];
    b.length = n;
  } else if (a->type.id == LM_TYPE_UTF8 && !a->null_count) {
    const int32_t *off = (const int32_t *)a->values->data + a->offset;
    int64_t bytes = 0;
    for (int64_t i = 0; i < n; i++)
      bytes += off[idx[i] + 1] - off[idx[i]];
    if (bytes > INT32_MAX || lm_builder_grow_data(&b, bytes)) {
      lm_builder_free(&b);
      return NULL;
    }
    for (int64_t i = 0; i < n; i++) {
      int32_t len;
      const char *p = lm_array_str(a, idx[i], &len);
      lm_builder_append_str(&b, p, len);
    }
  } else {
    for (int64_t i = 0; i < n; i++)
      lm_builder_append_from(&b, a, idx[i]);
  }
  lm_array *out = NULL;
  int rc = lm_builder_finish(&b, &out);
  lm_builder_free(&b);
  return rc ? NULL : out;
}

lm_batch *lm_batch_take(const lm_batch *b, const int32_t *idx, int64_t n) {
  int nc = b->num_columns;
  lm_array **cols = calloc((size_t)nc + 1, sizeof *cols);
  if (!cols)
    return NULL;
  for (int c = 0; c < nc; c++) {
    cols[c] = lm_array_take(b->columns[c], idx, n);
    if (!cols[c]) {
      while (c--)
        lm_array_release(cols[c]);
      free(cols);
      return NULL;
    }
  }
  lm_batch *r = lm_batch_new(lm_schema_retain(b->schema), n, cols);
  free(cols);
  return r;
}

lm_batch *lm_batch_filter(lm_batch *b, const lm_array *pred) {
  int64_t n = b->num_rows, k = 0;
  int32_t *idx = malloc(sizeof(int32_t) * (size_t)(n + 1));
  if (!idx)
    return NULL;
  bool bool_pred = pred->type.id == LM_TYPE_BOOL;
  for (int64_t i = 0; i < n; i++)
    if (bool_pred && !lm_array_is_null(pred, i) && lm_array_bool(pred, i))
      idx[k++] = (int32_t)i;
  lm_batch *r;
  if (k == n)
    r = lm_batch_retain(b);
  else
    r = lm_batch_take(b, idx, k);
  free(idx);
  return r;
}

int lm_project(lm_bexpr *const *exprs, int n, lm_schema *schema,
               const lm_batch *in, lm_batch **out, lm_error *err) {
  lm_array **cols = calloc((size_t)n + 1, sizeof *cols);
  if (!cols)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int i = 0; i < n; i++) {
    int rc = lm_eval(exprs[i], in, &cols[i], err);
    if (rc) {
      while (i--)
        lm_array_release(cols[i]);
      free(cols);
      return rc;
    }
  }
  *out = lm_batch_new(lm_schema_retain(schema), in->num_rows, cols);
  free(cols);
  return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
}

int lm_batch_concat(lm_schema *schema, lm_batch *const *batches, int n,
                    lm_batch **out, lm_error *err) {
  if (n == 1) {
    *out = lm_batch_retain(batches[0]);
    return 0;
  }
  lm_batch_builder bb;
  int64_t rows = 0;
  for (int i = 0; i < n; i++)
    rows += batches[i]->num_rows;
  if (lm_batch_builder_init(&bb, schema, rows))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int c = 0; c < schema->n_fields; c++)
    for (int i = 0; i < n; i++) {
      const lm_array *a = batches[i]->columns[c];
      for (int64_t r = 0; r < a->length; r++)
        lm_builder_append_from(&bb.cols[c], a, r);
    }
  int rc = lm_batch_builder_finish(&bb, out, err);
  lm_batch_builder_free(&bb);
  return rc;
}
