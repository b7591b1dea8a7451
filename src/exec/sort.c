/* ORDER BY / OFFSET / LIMIT over one batch: a stable sort of row indices,
 * then a gather. NULLs sort as PostgreSQL: last for ASC, first for DESC,
 * unless NULLS FIRST/LAST says otherwise; NaN above every number. Few rows
 * kept (OFFSET + LIMIT <= 1/8 of the rows): a bounded heap behind a
 * first-key reject filter (top_k); otherwise an LSD radix sort when every
 * key is an integer, date/time, DOUBLE or string column (radix_sort),
 * else (and under RADIX_MIN rows) a merge sort with typed comparisons. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/lm_decimal.h"
#include "exec/lm_exec.h"

/* One sort key resolved to its column's layout, so that comparing two
 * rows reads the values directly (no per-row type dispatch through
 * lm_array_cmp for the common types). */
typedef enum sk_kind {
  SK_GEN,  /* any other type: lm_array_cmp */
  SK_NULL, /* type NULL: every row NULL */
  SK_I64,  /* INT64, TIMESTAMP, INTERVAL (µs), TIME64, DURATION */
  SK_I32,  /* INT32, DATE32, TIME32 */
  SK_I16,
  SK_I8,
  SK_F64, /* NaN above every number, -0 = 0 */
  SK_STR, /* UTF8 / BINARY with int32 offsets, bytewise (not CHAR(n), jsonb) */
} sk_kind;

typedef struct skey {
  sk_kind kind;
  bool desc, nulls_first;
  const uint8_t *valid; /* validity bits, or NULL when no row is NULL */
  int64_t voff;         /* the array's offset into valid */
  const void *v;        /* typed values (offset applied); SK_STR offsets */
  const uint8_t *data;  /* SK_STR bytes */
  const lm_array *a;
} skey;

static void skey_init(skey *k, const lm_array *a, const lm_sort_key *sk) {
  memset(k, 0, sizeof *k);
  k->a = a;
  k->desc = sk->desc;
  k->nulls_first = sk->nulls_first;
  if (a->null_count > 0 && a->validity) {
    k->valid = a->validity->data;
    k->voff = a->offset;
  }
  switch (a->type.id) {
  case LM_TYPE_NULL:
    k->kind = SK_NULL;
    return;
  case LM_TYPE_INT64:
  case LM_TYPE_TIMESTAMP:
  case LM_TYPE_INTERVAL:
  case LM_TYPE_TIME64:
  case LM_TYPE_DURATION:
    k->kind = SK_I64;
    k->v = lm_array_i64(a);
    return;
  case LM_TYPE_INT32:
  case LM_TYPE_DATE32:
  case LM_TYPE_TIME32:
    k->kind = SK_I32;
    k->v = lm_array_i32(a);
    return;
  case LM_TYPE_INT16:
    k->kind = SK_I16;
    k->v = lm_array_i16(a);
    return;
  case LM_TYPE_INT8:
    k->kind = SK_I8;
    k->v = lm_array_i8(a);
    return;
  case LM_TYPE_FLOAT64:
    k->kind = SK_F64;
    k->v = lm_array_f64(a);
    return;
  case LM_TYPE_UTF8:
  case LM_TYPE_BINARY:
    if (lm_type_is_bpchar(a->type) || lm_type_is_jsonb(a->type))
      break;
    k->kind = SK_STR;
    k->v = (const int32_t *)a->values->data + a->offset;
    k->data = a->data ? a->data->data : NULL;
    return;
  default:
    break;
  }
  k->kind = SK_GEN;
}

static inline bool sk_null(const skey *k, int64_t i) {
  return k->kind == SK_NULL || (k->valid && !lm_bit_get(k->valid, k->voff + i));
}

#define SK_CMP3(p, q) (((p) > (q)) - ((p) < (q)))

/* Order of two non-NULL values of key k, ascending. */
static inline int sk_cmpv(const skey *k, int64_t x, int64_t y) {
  switch (k->kind) {
  case SK_I64:
    return SK_CMP3(((const int64_t *)k->v)[x], ((const int64_t *)k->v)[y]);
  case SK_I32:
    return SK_CMP3(((const int32_t *)k->v)[x], ((const int32_t *)k->v)[y]);
  case SK_I16:
    return SK_CMP3(((const int16_t *)k->v)[x], ((const int16_t *)k->v)[y]);
  case SK_I8:
    return SK_CMP3(((const int8_t *)k->v)[x], ((const int8_t *)k->v)[y]);
  case SK_F64: {
    double p = ((const double *)k->v)[x], q = ((const double *)k->v)[y];
    if (isnan(p) || isnan(q)) /* NaN above every number, as PostgreSQL */
      return isnan(p) && isnan(q) ? 0 : isnan(p) ? 1 : -1;
    return SK_CMP3(p, q);
  }
  case SK_STR: {
    const int32_t *o = k->v;
    int32_t pl = o[x + 1] - o[x], ql = o[y + 1] - o[y];
    int32_t m = pl < ql ? pl : ql;
    int c = m ? memcmp(k->data + o[x], k->data + o[y], (size_t)m) : 0;
    if (c)
      return c < 0 ? -1 : 1;
    return SK_CMP3(pl, ql);
  }
  default:
    return lm_array_cmp(k->a, x, k->a, y);
  }
}

/* Order of rows x and y by key k: direction and NULL placement applied
 * (a NULL against a value goes by NULLS FIRST/LAST only, not by DESC). */
static inline int sk_cmp(const skey *k, int64_t x, int64_t y) {
  bool xn = sk_null(k, x), yn = sk_null(k, y);
  if (xn || yn) {
    if (xn && yn)
      return 0;
    int c = xn ? 1 : -1;
    return k->nulls_first ? -c : c;
  }
  int c = sk_cmpv(k, x, y);
  return k->desc ? -c : c;
}

typedef struct sort_ctx {
  const skey *keys;
  int n;
} sort_ctx;

static int cmp_rows(const sort_ctx *s, int32_t x, int32_t y) {
  for (int k = 0; k < s->n; k++) {
    int c = sk_cmp(&s->keys[k], x, y);
    if (c)
      return c;
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

/* The first 8 bytes of SK_STR value i, big-endian, zero-padded: a word
 * that orders as the bytes do, up to ties. */
static inline uint64_t str_word(const skey *k, int64_t i) {
  const int32_t *o = k->v;
  int32_t len = o[i + 1] - o[i];
  uint8_t b[8] = {0};
  memcpy(b, k->data + o[i], (size_t)(len < 8 ? len : 8));
  uint64_t w = 0;
  for (int j = 0; j < 8; j++)
    w = w << 8 | b[j];
  return w;
}

/* Top-N's reject filter: the rows of [lo, hi) whose first key is not
 * strictly after row `top`'s (the last row kept so far) go to cand (at
 * most hi - lo entries); returns their count. Exact for every kind: the
 * candidates are then compared on all keys. A column without NULLs of an
 * integer, DOUBLE or string kind is scanned by a branch-free loop over the
 * values (strings by their first 8 bytes). */
static int64_t first_key_cands(const skey *k, int32_t top, int64_t lo,
                               int64_t hi, int32_t *cand) {
  int64_t nc = 0;
  if (k->valid || k->kind == SK_NULL || k->kind == SK_GEN) {
    for (int64_t i = lo; i < hi; i++) {
      cand[nc] = (int32_t)i;
      nc += sk_cmp(k, i, top) <= 0;
    }
    return nc;
  }
#define SK_SCAN(T)                                                             \
  do {                                                                         \
    const T *v = k->v;                                                         \
    T t = v[top];                                                              \
    if (k->desc)                                                               \
      for (int64_t i = lo; i < hi; i++) {                                      \
        cand[nc] = (int32_t)i;                                                 \
        nc += v[i] >= t;                                                       \
      }                                                                        \
    else                                                                       \
      for (int64_t i = lo; i < hi; i++) {                                      \
        cand[nc] = (int32_t)i;                                                 \
        nc += v[i] <= t;                                                       \
      }                                                                        \
  } while (0)
  switch (k->kind) {
  case SK_I64:
    SK_SCAN(int64_t);
    break;
  case SK_I32:
    SK_SCAN(int32_t);
    break;
  case SK_I16:
    SK_SCAN(int16_t);
    break;
  case SK_I8:
    SK_SCAN(int8_t);
    break;
  case SK_F64: {
    const double *v = k->v;
    double t = v[top];
    bool tn = isnan(t);
    for (int64_t i = lo; i < hi; i++) {
      /* PostgreSQL's order: NaN above every number */
      bool ok =
          k->desc ? (tn ? isnan(v[i]) : !(v[i] < t)) : (tn ? true : v[i] <= t);
      cand[nc] = (int32_t)i;
      nc += ok;
    }
    break;
  }
  case SK_STR: {
    uint64_t t = str_word(k, top);
    for (int64_t i = lo; i < hi; i++) {
      uint64_t w = str_word(k, i); /* a larger word: a larger string */
      cand[nc] = (int32_t)i;
      nc += k->desc ? w >= t : w <= t;
    }
    break;
  }
  default:
    break;
  }
#undef SK_SCAN
  return nc;
}

/* ORDER BY ... LIMIT: the first k (= OFFSET + LIMIT, 1 <= k <= n) of n
 * rows in the stable order, sorted, into h[0..k): a max-heap of k row
 * indices (the last kept row on top); each chunk of rows is first
 * filtered on the first key against the top row, and only the candidates
 * are compared on every key. O(n) for the filter, O(c log k) comparisons
 * for c candidates. */
#define TOPK_CHUNK 1024
#define RADIX_MIN 1024 /* rows: fewer are merge-sorted */
static void top_k(const sort_ctx *s, int32_t *h, int32_t *tmp, int64_t n,
                  int64_t k) {
  for (int64_t i = 0; i < k; i++)
    h[i] = (int32_t)i;
  for (int64_t i = k / 2; i-- > 0;)
    heap_down(s, h, k, i);
  int32_t cand[TOPK_CHUNK];
  for (int64_t lo = k; lo < n; lo += TOPK_CHUNK) {
    int64_t hi = n - lo < TOPK_CHUNK ? n : lo + TOPK_CHUNK;
    int64_t nc = first_key_cands(&s->keys[0], h[0], lo, hi, cand);
    for (int64_t j = 0; j < nc; j++)
      if (row_before(s, cand[j], h[0])) {
        h[0] = cand[j];
        heap_down(s, h, k, 0);
      }
  }
  qsort(h, (size_t)k, sizeof(int32_t), cmp_i32); /* positions, then a */
  merge_sort(s, h, tmp, k);                      /* stable sort */
}

/* Key word of row i for the radix sort: an unsigned value that orders as
 * the key does ascending (DOUBLE: the IEEE bits made monotone, -0 = 0,
 * every NaN one value above +Infinity; strings: str_word, equal words
 * only tie), NULL rows 0. */
static inline uint64_t radix_word(const skey *k, int64_t i) {
  switch (k->kind) {
  case SK_I64:
    return (uint64_t)((const int64_t *)k->v)[i] ^ ((uint64_t)1 << 63);
  case SK_I32:
    return (uint64_t)(int64_t)((const int32_t *)k->v)[i] ^ ((uint64_t)1 << 63);
  case SK_I16:
    return (uint64_t)(int64_t)((const int16_t *)k->v)[i] ^ ((uint64_t)1 << 63);
  case SK_I8:
    return (uint64_t)(int64_t)((const int8_t *)k->v)[i] ^ ((uint64_t)1 << 63);
  case SK_F64: {
    double d = ((const double *)k->v)[i];
    if (isnan(d))
      return UINT64_MAX;
    if (d == 0)
      d = 0; /* -0 = 0 */
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u >> 63 ? ~u : u | ((uint64_t)1 << 63);
  }
  case SK_STR:
    return str_word(k, i);
  default:
    return 0;
  }
}

/* Stable LSD radix sort of idx[0..n) (row indices, in position order on
 * entry) by the keys' words, last key first: per key its word (minus the
 * smallest, complemented for DESC; bytes equal in every row are skipped),
 * then a stable partition of its NULL rows to the front (NULLS FIRST) or
 * the back. Exact for integer, DATE/TIMESTAMP and DOUBLE keys and for
 * VARCHAR values of at most 8 bytes (no zero byte in UTF-8); with a longer
 * string (or BINARY) the words may tie, so the result is then checked
 * and, if two strings were left out of order, merge-sorted. Returns false (idx
 * untouched) when a key has another type or memory is short: the caller
 * merge-sorts. */
static bool radix_sort(const sort_ctx *s, int32_t *idx, int32_t *tmp,
                       int64_t n) {
  bool inexact = false;
  for (int j = 0; j < s->n; j++) {
    sk_kind kd = s->keys[j].kind;
    if (kd == SK_GEN)
      return false;
    /* BINARY may hold zero bytes, which the word's padding looks like */
    inexact |= kd == SK_STR && s->keys[j].a->type.id != LM_TYPE_UTF8;
  }
  uint64_t *w = malloc(sizeof(uint64_t) * (size_t)n);
  uint64_t *w2 = malloc(sizeof(uint64_t) * (size_t)n);
  uint8_t *nul = malloc((size_t)n);
  if (!w || !w2 || !nul) {
    free(w);
    free(w2);
    free(nul);
    return false;
  }
  int32_t *a = idx, *b = tmp;
  for (int j = s->n - 1; j >= 0; j--) {
    const skey *k = &s->keys[j];
    if (k->kind == SK_NULL)
      continue; /* every row NULL: no order */
    uint64_t lo = UINT64_MAX, hi = 0;
    bool any_null = false;
    for (int64_t i = 0; i < n; i++) {
      int32_t r = a[i];
      bool isn = k->valid && !lm_bit_get(k->valid, k->voff + r);
      uint64_t x = isn ? 0 : radix_word(k, r);
      if (k->kind == SK_STR && !isn) /* longer: the word may tie */
        inexact |=
            ((const int32_t *)k->v)[r + 1] - ((const int32_t *)k->v)[r] > 8;
      any_null |= isn;
      nul[i] = isn;
      w[i] = x;
      if (!isn) {
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
      }
    }
    if (lo <= hi) { /* some value: sort by (word - lo), or (hi - word) */
      uint64_t span = hi - lo;
      for (int64_t i = 0; i < n; i++)
        w[i] = nul[i] ? 0 : k->desc ? hi - w[i] : w[i] - lo;
      uint64_t diff = 0; /* the bits that vary */
      for (int64_t i = 0; i < n; i++)
        diff |= w[i] ^ w[0];
      int bytes = 0;
      while (bytes < 8 && (span >> (8 * bytes)))
        bytes++;
      int64_t cnt[256];
      for (int by = 0; by < bytes; by++) {
        int sh = 8 * by;
        if (!((diff >> sh) & 255))
          continue; /* this byte is the same in every row */
        memset(cnt, 0, sizeof cnt);
        for (int64_t i = 0; i < n; i++)
          cnt[(w[i] >> sh) & 255]++;
        int64_t sum = 0;
        for (int d = 0; d < 256; d++) {
          int64_t c = cnt[d];
          cnt[d] = sum;
          sum += c;
        }
        for (int64_t i = 0; i < n; i++) {
          int64_t o = cnt[(w[i] >> sh) & 255]++;
          w2[o] = w[i];
          b[o] = a[i];
        }
        uint64_t *tw = w;
        w = w2;
        w2 = tw;
        int32_t *ta = a;
        a = b;
        b = ta;
      }
      if (any_null && bytes) /* the NULL flags in the new order */
        for (int64_t i = 0; i < n; i++)
          nul[i] = k->valid && !lm_bit_get(k->valid, k->voff + a[i]);
    }
    if (any_null) { /* stable partition: NULLs first or last */
      int64_t o = 0;
      for (int pass = 0; pass < 2; pass++) {
        bool want = (pass == 0) == k->nulls_first;
        for (int64_t i = 0; i < n; i++)
          if ((bool)nul[i] == want)
            b[o++] = a[i];
      }
      int32_t *ta = a;
      a = b;
      b = ta;
    }
  }
  free(w);
  free(w2);
  free(nul);
  if (a != idx)
    memcpy(idx, a, sizeof(int32_t) * (size_t)n);
  if (inexact) /* strings equal in their first 8 bytes: check the order */
    for (int64_t i = 1; i < n; i++) {
      int c = cmp_rows(s, idx[i - 1], idx[i]);
      if (c > 0 || (c == 0 && idx[i - 1] > idx[i])) {
        merge_sort(s, idx, tmp, n);
        break;
      }
    }
  return true;
}

static int batch_sort(lm_batch *b, const lm_sort_key *keys, int n_keys,
                      int64_t offset, int64_t limit, bool ties, lm_batch **out,
                      lm_error *err) {
  int64_t n = b->num_rows;
  if (offset < 0)
    offset = 0;
  int64_t k = limit >= 0 && offset <= n - limit ? offset + limit : n;
  bool heap = n_keys && k > 0 && k <= n / 8 && !ties;
  int64_t m = heap ? k : n; /* the row indices kept */
  int32_t *idx = malloc(sizeof(int32_t) * (size_t)(m + 1));
  int32_t *tmp = malloc(sizeof(int32_t) * (size_t)(m + 1));
  skey *sk = calloc((size_t)n_keys + 1, sizeof *sk);
  if (!idx || !tmp || !sk) {
    free(idx);
    free(tmp);
    free(sk);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int j = 0; j < n_keys; j++)
    skey_init(&sk[j], b->columns[keys[j].expr->col], &keys[j]);
  sort_ctx s = {sk, n_keys};
  if (heap)
    top_k(&s, idx, tmp, n, k);
  else {
    for (int64_t i = 0; i < n; i++)
      idx[i] = (int32_t)i;
    if (n_keys && (n < RADIX_MIN || !radix_sort(&s, idx, tmp, n)))
      merge_sort(&s, idx, tmp, n);
  }
  int64_t start = offset > m ? m : offset;
  int64_t count = m - start;
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
  free(sk);
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
