/* Selection kernels: take (gather), filter, project, concatenate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/lm_exec.h"

lm_array *lm_array_take(const lm_array *a, const int32_t *idx, int64_t n) {
  /* every type, nested ones included (columnar/select.c) */
  return lm_array_take_nullable(a, idx, n);
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

/* Declared in lm_exec.h. */
int lm_batch_where(const lm_bexpr *where, lm_batch *b, lm_batch **out,
                   lm_error *err) {
  if (!where) {
    *out = lm_batch_retain(b);
    return 0;
  }
  lm_array *pred = NULL;
  int rc = lm_eval(where, b, &pred, err);
  if (rc)
    return rc;
  *out = lm_batch_filter(b, pred);
  lm_array_release(pred);
  return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
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
  /* Columns whose every batch has the schema's type are concatenated
   * directly (any type, nested included); a column whose batches differ
   * from the schema (e.g. an all-NULL column) goes through a builder,
   * which converts. */
  int nc = schema->n_fields;
  lm_array **cols = calloc((size_t)nc + 1, sizeof *cols);
  lm_array **parts = calloc((size_t)n + 1, sizeof *parts);
  int64_t rows = 0;
  int rc = 0;
  if (!cols || !parts) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  for (int i = 0; i < n; i++)
    rows += batches[i]->num_rows;
  for (int c = 0; c < nc && !rc; c++) {
    if (n == 0) { /* an empty column of the schema's type */
      cols[c] = lm_array_new_null(schema->fields[c].type, 0);
      if (!cols[c])
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      continue;
    }
    bool same = true;
    for (int i = 0; i < n; i++) {
      parts[i] = batches[i]->columns[c];
      same = same && lm_type_eq(parts[i]->type, schema->fields[c].type);
    }
    if (same) {
      lm_error e = {0};
      cols[c] = lm_array_concat(parts, n, &e);
      if (!cols[c])
        rc = lm_err(err, e.code ? e.code : LM_ERR_NOMEM, "column '%s': %s",
                    schema->fields[c].name, e.msg);
      continue;
    }
    lm_builder b;
    if (lm_builder_init(&b, schema->fields[c].type, rows)) {
      rc = lm_err(err, LM_ERR_INVALID, "cannot concatenate column '%s' of %s",
                  schema->fields[c].name, lm_type_name(schema->fields[c].type));
      break;
    }
    for (int i = 0; i < n; i++)
      for (int64_t r = 0; r < parts[i]->length; r++)
        lm_builder_append_from(&b, parts[i], r);
    if (lm_builder_finish(&b, &cols[c]))
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    lm_builder_free(&b);
  }
  if (!rc) {
    *out = lm_batch_new(lm_schema_retain(schema), rows, cols);
    if (!*out)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    free(cols);
    cols = NULL;
  }
done:
  if (cols)
    for (int c = 0; c < nc; c++)
      lm_array_release(cols[c]);
  free(cols);
  free(parts);
  return rc;
}
