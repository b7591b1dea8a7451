/* columnar/batch.c — record batches and batch builders. */
#include "columnar/lm_columnar.h"

#include <stdlib.h>
#include <string.h>

lm_batch *lm_batch_new(lm_schema *schema, int64_t num_rows,
                       lm_array **columns) {
  int n = schema ? schema->n_fields : 0;
  /* the column pointers live in the same allocation, after the struct */
  lm_batch *b = lm_aligned_alloc(sizeof *b + (size_t)n * sizeof *columns);
  if (!b) {
    for (int i = 0; i < n; i++)
      lm_array_release(columns[i]);
    lm_schema_release(schema);
    return NULL;
  }
  lm_array **cols = (lm_array **)(b + 1);
  if (n)
    memcpy(cols, columns, (size_t)n * sizeof *cols);
  b->refcnt = 1;
  b->schema = schema;
  b->num_rows = num_rows;
  b->num_columns = n;
  b->columns = cols;
  return b;
}

lm_batch *lm_batch_rename(const lm_batch *b, const char *const *names, int n) {
  int nf = b->schema->n_fields;
  lm_schema *s = lm_schema_new(nf);
  lm_array **cols = calloc((size_t)nf + 1, sizeof *cols);
  bool ok = s && cols;
  for (int c = 0; ok && c < nf; c++) {
    const lm_field *f = &b->schema->fields[c];
    ok = !lm_schema_set_field(s, c, c < n ? names[c] : f->name, f->type,
                              f->nullable) &&
         (!f->timezone || !lm_schema_set_timezone(s, c, f->timezone));
  }
  if (!ok) {
    lm_schema_release(s);
    free(cols);
    return NULL;
  }
  for (int c = 0; c < nf; c++)
    cols[c] = lm_array_retain(b->columns[c]);
  lm_batch *o = lm_batch_new(s, b->num_rows, cols);
  free(cols);
  return o;
}

lm_batch *lm_batch_retain(lm_batch *b) {
  if (b)
    __atomic_fetch_add(&b->refcnt, 1, __ATOMIC_RELAXED);
  return b;
}

void lm_batch_release(lm_batch *b) {
  if (!b || __atomic_sub_fetch(&b->refcnt, 1, __ATOMIC_ACQ_REL) != 0)
    return;
  for (int i = 0; i < b->num_columns; i++)
    lm_array_release(b->columns[i]);
  lm_schema_release(b->schema); /* b->columns is part of b */
  lm_aligned_free(b);
}

lm_batch *lm_batch_slice(lm_batch *b, int64_t off, int64_t len) {
  if (off < 0 || len < 0 || off > b->num_rows || len > b->num_rows - off)
    return NULL;
  int n = b->num_columns;
  lm_array **cols = lm_calloc(n ? (size_t)n : 1, sizeof *cols);
  if (!cols)
    return NULL;
  for (int i = 0; i < n; i++) {
    cols[i] = lm_array_slice(b->columns[i], off, len);
    if (!cols[i]) {
      for (int j = 0; j < i; j++)
        lm_array_release(cols[j]);
      free(cols);
      return NULL;
    }
  }
  lm_batch *r = lm_batch_new(lm_schema_retain(b->schema), len, cols);
  free(cols);
  return r;
}

int lm_batch_builder_init(lm_batch_builder *bb, lm_schema *schema,
                          int64_t capacity_hint) {
  bb->schema = NULL;
  bb->cols = NULL;
  int n = schema->n_fields;
  lm_builder *cols = lm_calloc(n ? (size_t)n : 1, sizeof *cols);
  if (!cols)
    return LM_ERR_NOMEM;
  for (int i = 0; i < n; i++) {
    int rc = lm_builder_init(&cols[i], schema->fields[i].type, capacity_hint);
    if (rc) {
      for (int j = 0; j <= i; j++)
        lm_builder_free(&cols[j]);
      free(cols);
      return rc;
    }
  }
  bb->schema = lm_schema_retain(schema);
  bb->cols = cols;
  return LM_OK;
}

int lm_batch_builder_finish(lm_batch_builder *bb, lm_batch **out,
                            lm_error *err) {
  *out = NULL;
  int n = bb->schema->n_fields;
  int64_t rows = lm_batch_builder_rows(bb);
  int rc = LM_OK;
  for (int i = 0; i < n; i++) {
    if (bb->cols[i].oom)
      rc = LM_ERR_NOMEM;
    else if (bb->cols[i].length != rows && rc == LM_OK)
      rc = LM_ERR_INVALID;
  }
  lm_array **arrs = lm_calloc(n > 0 ? (size_t)n : 1, sizeof *arrs);
  if (!arrs)
    rc = LM_ERR_NOMEM;
  for (int i = 0; i < n; i++) {
    lm_array *a = NULL;
    int r = lm_builder_finish(&bb->cols[i], &a);
    if (r && rc == LM_OK)
      rc = r;
    if (arrs)
      arrs[i] = a;
    else
      lm_array_release(a);
  }
  if (rc != LM_OK) {
    if (arrs)
      for (int i = 0; i < n; i++)
        lm_array_release(arrs[i]);
    free(arrs);
    if (rc == LM_ERR_INVALID)
      return lm_err(err, rc, "batch builder columns have different lengths");
    return lm_err(err, rc, "out of memory building a batch");
  }
  *out = lm_batch_new(lm_schema_retain(bb->schema), rows, arrs);
  free(arrs);
  if (!*out)
    return lm_err(err, LM_ERR_NOMEM, "out of memory building a batch");
  return LM_OK;
}

void lm_batch_builder_free(lm_batch_builder *bb) {
  if (bb->schema) {
    for (int i = 0; i < bb->schema->n_fields; i++)
      lm_builder_free(&bb->cols[i]);
  }
  free(bb->cols);
  lm_schema_release(bb->schema);
  bb->cols = NULL;
  bb->schema = NULL;
}
