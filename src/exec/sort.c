/* ORDER BY / OFFSET / LIMIT over one batch: a stable merge sort of row
 * indices, then a gather. NULLs sort as PostgreSQL: last for ASC, first for
 * DESC, unless NULLS FIRST/LAST says otherwise; NaN above every number. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/lm_decimal.h"
#include "exec/lm_exec.h"

typedef struct sort_ctx {
  const lm_array **cols;
  const lm_sort_key *keys;
  int n;
} sort_ctx;

static int cmp_rows(const sort_ctx *s, int32_t x, int32_t y) {
  for (int k = 0; k < s->n; k++) {
    const lm_array *a = s->cols[k];
    bool xn = a->type.id == LM_TYPE_NULL || lm_array_is_null(a, x);
    bool yn = a->type.id == LM_TYPE_NULL || lm_array_is_null(a, y);
    int c = 0;
    if (xn || yn) {
      if (xn && yn)
        continue;
      /* null vs value: independent of ASC/DESC */
      c = xn ? 1 : -1;
      if (s->keys[k].nulls_first)
        c = -c;
      return c;
    }
    c = lm_array_cmp(a, x, a, y);
    if (c)
      return s->keys[k].desc ? -c : c;
  }
  return 0;
}

static void merge_sort(const sort_ctx *s, int32_t *v, int32_t *tmp, int64_t n) {
  if (n < 2)
    return;
  if (n <= 16) { /* insertion sort, stable */
    for (int64_t i = 1; i < n; i++) {
      int32_t x = v[i];
      int64_t j = i;
      while (j > 0 && cmp_rows(s, v[j - 1], x) > 0) {
        v[j] = v[j - 1];
        j--;
      }
      v[j] = x;
    }
    return;
  }
  int64_t m = n / 2;
  merge_sort(s, v, tmp, m);
  merge_sort(s, v + m, tmp, n - m);
  int64_t i = 0, j = m, k = 0;
  while (i < m && j < n)
    tmp[k++] = cmp_rows(s, v[j], v[i]) < 0 ? v[j++] : v[i++];
  while (i < m)
    tmp[k++] = v[i++];
  while (j < n)
    tmp[k++] = v[j++];
  memcpy(v, tmp, sizeof(int32_t) * (size_t)n);
}

/* Row x before row y in the stable order: by the keys, then by position. */
static bool row_before(const sort_ctx *s, int32_t x, int32_t y) {
  int c = cmp_rows(s, x, y);
  return c < 0 || (c == 0 && x < y);
}

static void heap_down(const sort_ctx *s, int32_t *h, int64_t k, int64_t i) {
  for (;;) {
    int64_t l = 2 * i + 1, m = i;
    if (l < k && row_before(s, h[m], h[l]))
      m = l;
    if (l + 1 < k && row_before(s, h[m], h[l + 1]))
      m = l + 1;
    if (m == i)
      return;
    int32_t t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return x < y ? -1 : x > y;
}

/* ORDER BY ... LIMIT: the first k (= OFFSET + LIMIT) of n rows in the
 * stable order, sorted, into idx[0..k): a max-heap of k row indices (the
 * last kept row on top), O(n log k) comparisons instead of O(n log n). */
static void top_k(const sort_ctx *s, int32_t *idx, int32_t *tmp, int64_t n,
                  int64_t k) {
  for (int64_t i = 0; i < k; i++)
    idx[i] = (int32_t)i;
  for (int64_t i = k / 2; i-- > 0;)
    heap_down(s, idx, k, i);
  for (int64_t i = k; i < n; i++)
    if (row_before(s, (int32_t)i, idx[0])) {
      idx[0] = (int32_t)i;
      heap_down(s, idx, k, 0);
    }
  qsort(idx, (size_t)k, sizeof(int32_t), cmp_i32); /* positions, then a */
  merge_sort(s, idx, tmp, k);                      /* stable sort */
}

static int batch_sort(lm_batch *b, const lm_sort_key *keys, int n_keys,
                      int64_t offset, int64_t limit, bool ties, lm_batch **out,
                      lm_error *err) {
  int64_t n = b->num_rows;
  int32_t *idx = malloc(sizeof(int32_t) * (size_t)(n + 1));
  int32_t *tmp = malloc(sizeof(int32_t) * (size_t)(n + 1));
  const lm_array **cols = calloc((size_t)n_keys + 1, sizeof *cols);
  if (!idx || !tmp || !cols) {
    free(idx);
    free(tmp);
    free(cols);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int k = 0; k < n_keys; k++)
    cols[k] = b->columns[keys[k].expr->col];
  for (int64_t i = 0; i < n; i++)
    idx[i] = (int32_t)i;
  sort_ctx s = {cols, keys, n_keys};
  if (offset < 0)
    offset = 0;
  int64_t k = limit >= 0 && offset <= n - limit ? offset + limit : n;
  if (n_keys && k > 0 && k <= n / 8 && !ties)
    top_k(&s, idx, tmp, n, k);
  else if (n_keys)
    merge_sort(&s, idx, tmp, n);
  int64_t start = offset > n ? n : offset;
  int64_t count = n - start;
  if (limit >= 0 && limit < count)
    count = limit;
  if (ties && n_keys && limit > 0) { /* the rows tied with the last one */
    while (start + count < n &&
           cmp_rows(&s, idx[start + count - 1], idx[start + count]) == 0)
      count++;
  }
  /* nothing to reorder or cut: the rows themselves, not a copy */
  *out = !n_keys && count == n ? lm_batch_retain(b)
                               : lm_batch_take(b, idx + start, count);
  free(idx);
  free(tmp);
  free(cols);
  return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
}

int lm_batch_sort(lm_batch *b, const lm_sort_key *keys, int n_keys,
                  int64_t offset, int64_t limit, lm_batch **out,
                  lm_error *err) {
  return batch_sort(b, keys, n_keys, offset, limit, false, out, err);
}

int lm_batch_sort_ties(lm_batch *b, const lm_sort_key *keys, int n_keys,
                       int64_t offset, int64_t limit, lm_batch **out,
                       lm_error *err) {
  return batch_sort(b, keys, n_keys, offset, limit, true, out, err);
}
