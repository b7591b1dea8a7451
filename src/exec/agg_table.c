/*
 * The group hash table and aggregate accumulators.
 *
 * A group key is encoded into bytes (per key: a NULL flag byte, then 8
 * bytes for integer-like and floating values, 1 for BOOLEAN, a 4-byte
 * length and the bytes for VARCHAR), hashed and looked up in an
 * open-addressing table of group ids. Aggregate states are stored as
 * columns indexed by group id (struct of arrays), updated in a tight loop
 * per aggregate after the batch's group ids are known.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/lm_exec.h"

typedef struct agg_state {
  int64_t *cnt; /* rows counted / non-NULL inputs seen */
  int64_t *i;   /* SUM int, MIN/MAX int-like and BOOLEAN */
  double *f;    /* SUM/AVG float, MIN/MAX float */
  __int128 *w;  /* AVG of integers: exact sum */
  char **s;     /* MIN/MAX VARCHAR: owned copies */
  int32_t *sl;
  lm_aggtable *seen; /* DISTINCT: the (group id, value) pairs seen */
} agg_state;

struct lm_aggtable {
  int n_keys;
  lm_type *key_types;
  int n_aggs;
  const lm_agg_spec *aggs;
  agg_state *st;
  uint32_t *slots; /* group id + 1; 0 = empty */
  uint64_t n_slots;
  uint64_t *hashes; /* per group */
  int64_t n_groups, cap;
  lm_buf keys;      /* encoded keys, back to back */
  int64_t *key_off; /* n_groups + 1 offsets into keys */
  lm_buf scratch;
  uint32_t *gid_buf;
  int64_t gid_cap;
  __int128 *check; /* lm_aggtable_check scratch, per group */
  int64_t check_cap;
};

static bool is_float(lm_type t) {
  return t.id == LM_TYPE_FLOAT64 || t.id == LM_TYPE_FLOAT32;
}

lm_aggtable *lm_aggtable_new(int n_keys, const lm_type *key_types, int n_aggs,
                             const lm_agg_spec *aggs) {
  lm_aggtable *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->n_keys = n_keys;
  t->n_aggs = n_aggs;
  t->aggs = aggs;
  t->key_types = calloc((size_t)n_keys + 1, sizeof(lm_type));
  t->st = calloc((size_t)n_aggs + 1, sizeof(agg_state));
  t->n_slots = 64;
  t->slots = calloc(t->n_slots, sizeof(uint32_t));
  t->key_off = calloc(1, sizeof(int64_t));
  if (!t->key_types || !t->st || !t->slots || !t->key_off) {
    lm_aggtable_free(t);
    return NULL;
  }
  if (n_keys)
    memcpy(t->key_types, key_types, sizeof(lm_type) * (size_t)n_keys);
  lm_buf_init(&t->keys);
  lm_buf_init(&t->scratch);
  return t;
}

void lm_aggtable_free(lm_aggtable *t) {
  if (!t)
    return;
  for (int a = 0; t->st && a < t->n_aggs; a++) {
    agg_state *s = &t->st[a];
    if (s->s)
      for (int64_t g = 0; g < t->n_groups; g++)
        free(s->s[g]);
    free(s->cnt);
    free(s->i);
    free(s->f);
    free(s->w);
    free(s->s);
    free(s->sl);
    lm_aggtable_free(s->seen);
  }
  free(t->st);
  free(t->key_types);
  free(t->slots);
  free(t->hashes);
  free(t->key_off);
  free(t->gid_buf);
  free(t->check);
  lm_buf_free(&t->keys);
  lm_buf_free(&t->scratch);
  free(t);
}

int64_t lm_aggtable_groups(const lm_aggtable *t) {
  return t->n_groups;
}

static int grow_arr(void **p, size_t elem, int64_t old, int64_t cap) {
  void *n = realloc(*p, elem * (size_t)cap);
  if (!n)
    return -1;
  memset((char *)n + elem * (size_t)old, 0, elem * (size_t)(cap - old));
  *p = n;
  return 0;
}

static int grow_groups(lm_aggtable *t) {
  int64_t cap = t->cap ? t->cap * 2 : 64;
  if (grow_arr((void **)&t->hashes, sizeof(uint64_t), t->cap, cap) ||
      grow_arr((void **)&t->key_off, sizeof(int64_t), t->cap + 1, cap + 1))
    return -1;
  for (int a = 0; a < t->n_aggs; a++) {
    agg_state *s = &t->st[a];
    const lm_agg_spec *sp = &t->aggs[a];
    if (grow_arr((void **)&s->cnt, sizeof(int64_t), t->cap, cap))
      return -1;
    switch (sp->kind) {
    case LM_AGG_COUNT_STAR:
    case LM_AGG_COUNT:
      break;
    case LM_AGG_SUM:
      if (is_float(sp->in_type)) {
        if (grow_arr((void **)&s->f, sizeof(double), t->cap, cap))
          return -1;
      } else if (grow_arr((void **)&s->i, sizeof(int64_t), t->cap, cap))
        return -1;
      break;
    case LM_AGG_AVG:
      if (is_float(sp->in_type)) {
        if (grow_arr((void **)&s->f, sizeof(double), t->cap, cap))
          return -1;
      } else if (grow_arr((void **)&s->w, sizeof(__int128), t->cap, cap))
        return -1;
      break;
    case LM_AGG_MIN:
    case LM_AGG_MAX:
      if (sp->in_type.id == LM_TYPE_UTF8) {
        if (grow_arr((void **)&s->s, sizeof(char *), t->cap, cap) ||
            grow_arr((void **)&s->sl, sizeof(int32_t), t->cap, cap))
          return -1;
      } else if (is_float(sp->in_type)) {
        if (grow_arr((void **)&s->f, sizeof(double), t->cap, cap))
          return -1;
      } else if (grow_arr((void **)&s->i, sizeof(int64_t), t->cap, cap))
        return -1;
      break;
    }
  }
  t->cap = cap;
  return 0;
}

static int rehash(lm_aggtable *t) {
  uint64_t n = t->n_slots * 2;
  uint32_t *s = calloc(n, sizeof(uint32_t));
  if (!s)
    return -1;
  for (int64_t g = 0; g < t->n_groups; g++) {
    uint64_t h = t->hashes[g] & (n - 1);
    while (s[h])
      h = (h + 1) & (n - 1);
    s[h] = (uint32_t)(g + 1);
  }
  free(t->slots);
  t->slots = s;
  t->n_slots = n;
  return 0;
}

/* Encodes row r's key into t->scratch: per key a NULL flag byte, then the
 * value (8 bytes for integer-like and floating, 1 for BOOLEAN, a 4-byte
 * length plus the bytes for VARCHAR). Returns -1 on OOM. */
static int encode_key(lm_aggtable *t, lm_array *const *keys, int64_t r) {
  size_t need = (size_t)t->n_keys * 9;
  for (int k = 0; k < t->n_keys; k++)
    if (keys[k]->type.id == LM_TYPE_UTF8 && !lm_array_is_null(keys[k], r)) {
      int32_t len;
      lm_array_str(keys[k], r, &len);
      need += (size_t)len + 4;
    }
  lm_buf *b = &t->scratch;
  b->len = 0;
  if (b->cap < need + 1 && lm_buf_reserve(b, need + 1))
    return -1;
  char *p = b->data;
  for (int k = 0; k < t->n_keys; k++) {
    const lm_array *a = keys[k];
    if (a->type.id == LM_TYPE_NULL || lm_array_is_null(a, r)) {
      *p++ = 0;
      continue;
    }
    *p++ = 1;
    switch (a->type.id) {
    case LM_TYPE_UTF8: {
      int32_t len;
      const char *s = lm_array_str(a, r, &len);
      memcpy(p, &len, 4);
      memcpy(p + 4, s, (size_t)len);
      p += 4 + len;
      break;
    }
    case LM_TYPE_FLOAT32:
    case LM_TYPE_FLOAT64: {
      double d = lm_array_get_f64(a, r);
      if (d == 0)
        d = 0; /* -0.0 groups with 0.0 */
      if (isnan(d))
        d = NAN;
      memcpy(p, &d, 8);
      p += 8;
      break;
    }
    case LM_TYPE_BOOL:
      *p++ = lm_array_bool(a, r) ? 1 : 0;
      break;
    case LM_TYPE_INT64:
    case LM_TYPE_TIMESTAMP:
    case LM_TYPE_INTERVAL:
      memcpy(p, lm_array_i64(a) + r, 8);
      p += 8;
      break;
    default: {
      int64_t v = lm_array_get_i64(a, r);
      memcpy(p, &v, 8);
      p += 8;
    }
    }
  }
  b->len = (size_t)(p - b->data);
  return 0;
}

static int64_t find_or_add(lm_aggtable *t) {
  const char *kp = t->scratch.data ? t->scratch.data : "";
  size_t kl = t->scratch.len;
  uint64_t h = lm_hash_bytes(kp, kl, 0x51ed270b27bULL);
  uint64_t mask = t->n_slots - 1, i = h & mask;
  for (;;) {
    uint32_t s = t->slots[i];
    if (!s)
      break;
    int64_t g = (int64_t)s - 1;
    if (t->hashes[g] == h &&
        (size_t)(t->key_off[g + 1] - t->key_off[g]) == kl &&
        memcmp(t->keys.data + t->key_off[g], kp, kl) == 0)
      return g;
    i = (i + 1) & mask;
  }
  if (t->n_groups >= UINT32_MAX - 1)
    return -1;
  if (t->n_groups == t->cap && grow_groups(t))
    return -1;
  int64_t g = t->n_groups++;
  if (lm_buf_append(&t->keys, kp, kl))
    return -1;
  t->key_off[g + 1] = (int64_t)t->keys.len;
  t->hashes[g] = h;
  t->slots[i] = (uint32_t)(g + 1);
  if ((uint64_t)t->n_groups * 2 > t->n_slots && rehash(t))
    return -1;
  return g;
}

static inline bool isnull(const lm_array *a, int64_t r) {
  return a->validity && lm_array_is_null(a, r);
}

int lm_aggtable_lookup(lm_aggtable *t, lm_array *const *keys,
                       const int32_t *sel, int64_t n, uint32_t *gids,
                       lm_error *err) {
  for (int64_t j = 0; j < n; j++) {
    int64_t r = sel ? sel[j] : j;
    int64_t g = encode_key(t, keys, r) ? -1 : find_or_add(t);
    if (g < 0)
      return lm_err(err, LM_ERR_NOMEM, "out of memory (group table)");
    gids[j] = (uint32_t)g;
  }
  return 0;
}

int lm_aggtable_check(lm_aggtable *t, lm_array *const *in, const int32_t *sel,
                      int64_t n, const uint32_t *gids, lm_error *err) {
  for (int a = 0; a < t->n_aggs; a++) {
    const lm_agg_spec *sp = &t->aggs[a];
    const lm_array *x = in[a];
    if (sp->kind != LM_AGG_SUM || sp->distinct || is_float(sp->in_type) || !x ||
        x->type.id == LM_TYPE_NULL)
      continue;
    /* per group: the state plus this batch's rows, in 128 bits */
    if (t->n_groups > t->check_cap) {
      __int128 *c = realloc(t->check, sizeof(__int128) * (size_t)t->n_groups);
      if (!c)
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
      t->check = c;
      t->check_cap = t->n_groups;
    }
    const agg_state *s = &t->st[a];
    const int64_t *v = lm_array_i64(x);
    for (int64_t j = 0; j < n; j++)
      t->check[gids[j]] = s->i[gids[j]];
    bool bad = false;
    for (int64_t j = 0; j < n; j++) {
      int64_t r = sel ? sel[j] : j;
      if (x->null_count && isnull(x, r))
        continue;
      __int128 *c = &t->check[gids[j]];
      *c += v[r];
      /* a running sum beyond int64 is an overflow in SQL even if later
       * rows would bring it back: the same rows in one batch or in
       * several must give the same answer */
      if (*c > INT64_MAX || *c < INT64_MIN)
        bad = true;
    }
    if (bad)
      return lm_err(err, LM_ERR_EXEC, "integer out of range: overflow in SUM");
  }
  return 0;
}

void lm_aggtable_truncate(lm_aggtable *t, int64_t n_groups) {
  if (n_groups >= t->n_groups)
    return;
  for (int a = 0; a < t->n_aggs; a++) {
    agg_state *s = &t->st[a];
    for (int64_t g = n_groups; g < t->n_groups; g++) {
      if (s->cnt)
        s->cnt[g] = 0;
      if (s->i)
        s->i[g] = 0;
      if (s->f)
        s->f[g] = 0;
      if (s->w)
        s->w[g] = 0;
      if (s->s) {
        free(s->s[g]);
        s->s[g] = NULL;
      }
    }
  }
  t->n_groups = n_groups;
  t->keys.len = (size_t)t->key_off[n_groups];
  memset(t->slots, 0, sizeof(uint32_t) * t->n_slots);
  for (int64_t g = 0; g < n_groups; g++) {
    uint64_t h = t->hashes[g] & (t->n_slots - 1);
    while (t->slots[h])
      h = (h + 1) & (t->n_slots - 1);
    t->slots[h] = (uint32_t)(g + 1);
  }
}

int lm_aggtable_update(lm_aggtable *t, lm_array *const *keys,
                       lm_array *const *in, const int32_t *sel, int64_t n,
                       uint32_t *gids, lm_error *err) {
  if (!gids) {
    if (n > t->gid_cap) {
      uint32_t *g = realloc(t->gid_buf, sizeof(uint32_t) * (size_t)(n + 1));
      if (!g)
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
      t->gid_buf = g;
      t->gid_cap = n;
    }
    gids = t->gid_buf;
  }
  int64_t before = t->n_groups;
  int rc = lm_aggtable_lookup(t, keys, sel, n, gids, err);
  if (!rc)
    rc = lm_aggtable_check(t, in, sel, n, gids, err);
  if (rc) {
    lm_aggtable_truncate(t, before); /* a failed batch leaves no trace */
    return rc;
  }
  return lm_aggtable_accumulate(t, in, sel, n, gids, err);
}

/* Folds rows sel[0..n) (NULL = 0..n-1) of x into aggregate a's states of
 * groups gids[0..n). */
static int accumulate_one(lm_aggtable *t, int a, const lm_array *x,
                          const int32_t *sel, int64_t n, const uint32_t *gids,
                          lm_error *err) {
  const lm_agg_spec *sp = &t->aggs[a];
  agg_state *s = &t->st[a];
  {
    if (sp->kind == LM_AGG_COUNT_STAR) {
      for (int64_t j = 0; j < n; j++)
        s->cnt[gids[j]]++;
      return 0;
    }
    if (x->type.id == LM_TYPE_NULL)
      return 0;
    bool nulls = x->null_count > 0;
    switch (sp->kind) {
    case LM_AGG_COUNT:
      for (int64_t j = 0; j < n; j++) {
        int64_t r = sel ? sel[j] : j;
        if (!nulls || !isnull(x, r))
          s->cnt[gids[j]]++;
      }
      break;
    case LM_AGG_SUM:
    case LM_AGG_AVG:
      if (is_float(sp->in_type)) {
        const double *v = lm_array_f64(x);
        for (int64_t j = 0; j < n; j++) {
          int64_t r = sel ? sel[j] : j;
          if (nulls && isnull(x, r))
            continue;
          s->f[gids[j]] += v[r];
          s->cnt[gids[j]]++;
        }
      } else if (sp->kind == LM_AGG_AVG) {
        const int64_t *v = lm_array_i64(x);
        for (int64_t j = 0; j < n; j++) {
          int64_t r = sel ? sel[j] : j;
          if (nulls && isnull(x, r))
            continue;
          s->w[gids[j]] += v[r];
          s->cnt[gids[j]]++;
        }
      } else {
        const int64_t *v = lm_array_i64(x);
        for (int64_t j = 0; j < n; j++) {
          int64_t r = sel ? sel[j] : j;
          if (nulls && isnull(x, r))
            continue;
          uint32_t g = gids[j];
          int64_t sum;
          if (lm_add_overflow_i64(s->i[g], v[r], &sum))
            return lm_err(err, LM_ERR_EXEC,
                          "integer out of range: overflow in SUM");
          s->i[g] = sum;
          s->cnt[g]++;
        }
      }
      break;
    case LM_AGG_MIN:
    case LM_AGG_MAX: {
      bool mx = sp->kind == LM_AGG_MAX;
      if (sp->in_type.id == LM_TYPE_UTF8) {
        for (int64_t j = 0; j < n; j++) {
          int64_t r = sel ? sel[j] : j;
          if (nulls && isnull(x, r))
            continue;
          uint32_t g = gids[j];
          int32_t len;
          const char *p = lm_array_str(x, r, &len);
          bool take = s->cnt[g] == 0;
          if (!take) {
            int32_t ol = s->sl[g];
            int c = memcmp(p, s->s[g], (size_t)(len < ol ? len : ol));
            if (!c)
              c = len < ol ? -1 : len > ol;
            take = mx ? c > 0 : c < 0;
          }
          if (take) {
            char *copy = malloc((size_t)len + 1);
            if (!copy)
              return lm_err(err, LM_ERR_NOMEM, "out of memory");
            memcpy(copy, p, (size_t)len);
            free(s->s[g]);
            s->s[g] = copy;
            s->sl[g] = len;
          }
          s->cnt[g]++;
        }
      } else if (is_float(sp->in_type)) {
        for (int64_t j = 0; j < n; j++) {
          int64_t r = sel ? sel[j] : j;
          if (nulls && isnull(x, r))
            continue;
          uint32_t g = gids[j];
          double v = lm_array_get_f64(x, r);
          /* NaN is the largest value (PostgreSQL) */
          if (s->cnt[g] == 0)
            s->f[g] = v;
          else if (mx ? (isnan(v) || v > s->f[g])
                      : (!isnan(v) && (isnan(s->f[g]) || v < s->f[g])))
            s->f[g] = v;
          s->cnt[g]++;
        }
      } else {
        for (int64_t j = 0; j < n; j++) {
          int64_t r = sel ? sel[j] : j;
          if (nulls && isnull(x, r))
            continue;
          uint32_t g = gids[j];
          int64_t v = lm_array_get_i64(x, r);
          if (s->cnt[g] == 0 || (mx ? v > s->i[g] : v < s->i[g]))
            s->i[g] = v;
          s->cnt[g]++;
        }
      }
      break;
    }
    default:
      break;
    }
  }
  return 0;
}

/* DISTINCT: only the first occurrence of each (group, value) pair is
 * folded in. The pairs live in a nested group table keyed by (group id,
 * value); a lookup that creates an entry marks a first occurrence. */
static int accumulate_distinct(lm_aggtable *t, int a, lm_array *x,
                               const int32_t *sel, int64_t n,
                               const uint32_t *gids, lm_error *err) {
  agg_state *s = &t->st[a];
  if (!s->seen) {
    lm_type kt[2] = {lm_type_make(LM_TYPE_INT64), x->type};
    if (!(s->seen = lm_aggtable_new(2, kt, 0, NULL)))
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lm_builder gb;
  lm_array *garr = NULL;
  uint32_t *ids = malloc(sizeof(uint32_t) * (size_t)(n + 1));
  uint32_t *g2 = malloc(sizeof(uint32_t) * (size_t)(n + 1));
  int32_t *sel2 = malloc(sizeof(int32_t) * (size_t)(n + 1));
  int rc = 0;
  if (!ids || !g2 || !sel2 ||
      lm_builder_init(&gb, lm_type_make(LM_TYPE_INT64), x->length)) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  if (gb.capacity < x->length && lm_builder_grow(&gb, x->length)) {
    lm_builder_free(&gb);
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  /* the group id of each row, at the row's position in x */
  memset(gb.values, 0, sizeof(int64_t) * (size_t)x->length);
  for (int64_t j = 0; j < n; j++)
    ((int64_t *)gb.values)[sel ? sel[j] : j] = gids[j];
  gb.length = x->length;
  rc = lm_builder_finish(&gb, &garr);
  lm_builder_free(&gb);
  if (rc) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  lm_array *keys[2] = {garr, x};
  int64_t next = lm_aggtable_groups(s->seen);
  if ((rc = lm_aggtable_lookup(s->seen, keys, sel, n, ids, err)))
    goto done;
  int64_t k = 0;
  for (int64_t j = 0; j < n; j++) {
    if (ids[j] != next)
      continue; /* seen before, in an earlier batch or earlier in this one */
    next++;
    int64_t r = sel ? sel[j] : j;
    if (x->type.id == LM_TYPE_NULL || isnull(x, r))
      continue;
    sel2[k] = (int32_t)r;
    g2[k++] = gids[j];
  }
  rc = accumulate_one(t, a, x, sel2, k, g2, err);
done:
  lm_array_release(garr);
  free(ids);
  free(g2);
  free(sel2);
  return rc;
}

int lm_aggtable_accumulate(lm_aggtable *t, lm_array *const *in,
                           const int32_t *sel, int64_t n, const uint32_t *gids,
                           lm_error *err) {
  for (int a = 0; a < t->n_aggs; a++) {
    const lm_agg_spec *sp = &t->aggs[a];
    bool distinct =
        sp->distinct && (sp->kind == LM_AGG_COUNT || sp->kind == LM_AGG_SUM ||
                         sp->kind == LM_AGG_AVG);
    int rc = distinct ? accumulate_distinct(t, a, in[a], sel, n, gids, err)
                      : accumulate_one(t, a, in[a], sel, n, gids, err);
    if (rc)
      return rc;
  }
  return 0;
}

static const char *decode_key(lm_builder *b, lm_type t, const char *p) {
  if (*p++ == 0) {
    lm_builder_append_null(b);
    return p;
  }
  switch (t.id) {
  case LM_TYPE_UTF8: {
    int32_t len;
    memcpy(&len, p, 4);
    lm_builder_append_str(b, p + 4, len);
    return p + 4 + len;
  }
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64: {
    double d;
    memcpy(&d, p, 8);
    lm_builder_append_double(b, d);
    return p + 8;
  }
  case LM_TYPE_BOOL:
    lm_builder_append_bool(b, *p != 0);
    return p + 1;
  default: {
    int64_t v;
    memcpy(&v, p, 8);
    lm_builder_append_int(b, v);
    return p + 8;
  }
  }
}

int lm_aggtable_emit(const lm_aggtable *t, const uint32_t *gids, int64_t n,
                     lm_batch_builder *bb, lm_error *err) {
  if (!gids)
    n = t->n_groups;
  for (int64_t j = 0; j < n; j++) {
    int64_t g = gids ? gids[j] : j;
    const char *p = t->keys.data + t->key_off[g];
    for (int k = 0; k < t->n_keys; k++)
      p = decode_key(&bb->cols[k], t->key_types[k], p);
    for (int a = 0; a < t->n_aggs; a++) {
      const lm_agg_spec *sp = &t->aggs[a];
      const agg_state *s = &t->st[a];
      lm_builder *b = &bb->cols[t->n_keys + a];
      int64_t c = s->cnt[g];
      switch (sp->kind) {
      case LM_AGG_COUNT_STAR:
      case LM_AGG_COUNT:
        lm_builder_append_int(b, c);
        break;
      case LM_AGG_SUM:
        if (!c)
          lm_builder_append_null(b);
        else if (is_float(sp->in_type))
          lm_builder_append_double(b, s->f[g]);
        else
          lm_builder_append_int(b, s->i[g]);
        break;
      case LM_AGG_AVG:
        if (!c)
          lm_builder_append_null(b);
        else if (is_float(sp->in_type))
          lm_builder_append_double(b, s->f[g] / (double)c);
        else
          lm_builder_append_double(
              b, (double)((long double)s->w[g] / (long double)c));
        break;
      case LM_AGG_MIN:
      case LM_AGG_MAX:
        if (!c)
          lm_builder_append_null(b);
        else if (sp->in_type.id == LM_TYPE_UTF8)
          lm_builder_append_str(b, s->s[g] ? s->s[g] : "", s->sl[g]);
        else if (is_float(sp->in_type))
          lm_builder_append_double(b, s->f[g]);
        else if (sp->in_type.id == LM_TYPE_BOOL)
          lm_builder_append_bool(b, s->i[g] != 0);
        else
          lm_builder_append_int(b, s->i[g]);
        break;
      }
    }
  }
  for (int c = 0; c < bb->schema->n_fields; c++)
    if (bb->cols[c].oom)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
  return 0;
}
