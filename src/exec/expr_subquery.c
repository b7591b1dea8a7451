/*
 * Subquery expressions (PostgreSQL's SubPlan / InitPlan): a scalar
 * subquery, EXISTS, x [NOT] IN (SELECT ...) and x op ANY|ALL (SELECT ...)
 * evaluated over a batch of the outer query. The inner query is run
 * through the plan's runner (api/select.c supplies it) once per distinct
 * tuple of the outer values it reads; its rows are cached by that tuple
 * for the rest of the statement, so an uncorrelated subquery runs once.
 *
 * A decorrelated subquery (plan/decorrelate.c) runs once instead, as the
 * build side of a hash join: its rows hashed by key tuple in a group
 * table without aggregates (exec/agg_table.c) and ordered by key; each
 * outer batch is then probed as a whole (decor_probe).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/lm_interval.h"
#include "columnar/lm_jsonb_ord.h"
#include "exec/lm_exec.h"

/* The distinct non-NULL values of an IN subquery's column (coerced to
 * the comparison type), hashed: PostgreSQL's hashed SubPlan. */
typedef struct subq_set {
  int64_t cap;   /* power of two */
  int64_t *slot; /* offset + 1 of the value's bytes in data; 0 = empty */
  uint64_t *hash;
  lm_buf data; /* per value: int32 length, then the bytes */
  bool has_null;
} subq_set;

typedef struct subq_entry {
  uint64_t hash;
  char *key; /* the parameter tuple, serialized (malloc'd) */
  size_t key_len;
  lm_batch *rows; /* the inner query's result (one reference) */
  subq_set *set;  /* IN: built on first use; NULL until then */
  int64_t gid;    /* decorrelated: the group's number while grouping */
} subq_entry;

static void set_free(subq_set *s) {
  if (!s)
    return;
  free(s->slot);
  free(s->hash);
  lm_buf_free(&s->data);
  free(s);
}

/* A decorrelated subquery's rows hashed by key tuple (decor_build). */
typedef struct decor_hash {
  lm_aggtable *keys; /* key tuple -> group (no aggregates) */
  int64_t n_groups;
  lm_batch *rows;     /* the decorrelated query's rows */
  int32_t *perm;      /* the rows with a non-NULL key, group by group */
  int64_t *start;     /* group g: rows perm[start[g] .. start[g + 1]) */
  lm_batch **slices;  /* per group, made on first use (ANY / ALL) */
  lm_array *value;    /* scalar: column 0 of rows, then the miss row */
  int32_t miss_at;    /* scalar: the miss row's index in value, or -1 */
  bool pairs_tried;   /* hashed IN: decor_pairs ran */
  lm_array *val;      /* hashed IN: the coerced values, or NULL */
  lm_aggtable *pairs; /* hashed IN: (group, value) of the big groups */
  uint8_t *has_null;  /* hashed IN: per group, a NULL value */
} decor_hash;

static void decor_hash_free(decor_hash *h) {
  if (!h)
    return;
  lm_aggtable_free(h->keys);
  lm_aggtable_free(h->pairs);
  for (int64_t g = 0; h->slices && g < h->n_groups; g++)
    lm_batch_release(h->slices[g]);
  free(h->slices);
  free(h->start);
  free(h->perm);
  free(h->has_null);
  lm_batch_release(h->rows);
  lm_array_release(h->value);
  lm_array_release(h->val);
  free(h);
}

struct lm_subq_cache {
  subq_entry *entries; /* open addressing, cap a power of two */
  int64_t n, cap;
  /* decorrelated: the rows hashed by key, and the rows of a key that has
   * none (one reference) */
  decor_hash *dh;
  subq_entry miss;
};

static _Thread_local int dry;
static _Thread_local int64_t dry_hits;

void lm_subq_dry(int delta) {
  dry += delta;
}

int64_t lm_subq_dry_hits(void) {
  return dry_hits;
}

void lm_subplan_reset(lm_subplan *sp) {
  if (!sp || !sp->cache)
    return;
  struct lm_subq_cache *c = sp->cache;
  for (int64_t i = 0; i < c->cap; i++) {
    free(c->entries[i].key);
    lm_batch_release(c->entries[i].rows);
    set_free(c->entries[i].set);
  }
  free(c->entries);
  decor_hash_free(c->dh);
  lm_batch_release(c->miss.rows);
  set_free(c->miss.set);
  free(c);
  sp->cache = NULL;
}

static bool is_bytes(lm_type_id t) {
  return t == LM_TYPE_UTF8 || t == LM_TYPE_LARGE_UTF8 || t == LM_TYPE_BINARY ||
         t == LM_TYPE_LARGE_BINARY || t == LM_TYPE_FIXED_SIZE_BINARY;
}

/* Appends row `row` of a to the key: a NULL flag, then the value's bytes
 * (strings with their length first; -0.0 and NaN normalized; an array its
 * item count, then its items so). span: an INTERVAL_MDN as its span
 * (lm_iv_span: '1 mon' and '30 days' give equal bytes, for = ANY's
 * hashed set; a jsonb its equality key, lm_jsonb_key), else as its three
 * fields (a parameter's identity; a jsonb its text). */
static int key_add_as(lm_buf *k, const lm_array *a, int64_t row, bool span) {
  lm_value v;
  memset(&v, 0, sizeof v);
  lm_array_get_value(a, row, &v);
  if (v.is_null || a->type.id == LM_TYPE_NULL)
    return lm_buf_putc(k, 0);
  int rc = lm_buf_putc(k, 1);
  if (rc)
    return rc;
  if (a->type.id == LM_TYPE_LIST) { /* the items, not the array's address */
    int64_t s, e;
    lm_array_list_range(a, row, &s, &e);
    int64_t cnt = e - s;
    rc = lm_buf_append(k, &cnt, sizeof cnt);
    for (int64_t j = s; !rc && j < e; j++)
      rc = key_add_as(k, a->children[0], j, span);
    return rc;
  }
  if (span && a->type.id == LM_TYPE_INTERVAL_MDN) {
    __int128 sp =
        lm_iv_span_slot(a->values->data + (size_t)(a->offset + row) * 16);
    return lm_buf_append(k, &sp, sizeof sp);
  }
  if (is_bytes(a->type.id)) {
    int32_t len = v.v.s.len;
    const char *p = v.v.s.p;
    lm_buf tmp;
    lm_buf_init(&tmp);
    if (span && lm_type_is_jsonb(a->type)) { /* jsonb: '1' = '1.0' */
      size_t kl;
      p = lm_jsonb_key(p, (size_t)len, &tmp, &kl);
      len = (int32_t)kl;
    }
    rc = lm_buf_append(k, &len, sizeof len);
    if (!rc)
      rc = lm_buf_append(k, p, (size_t)len);
    lm_buf_free(&tmp);
    return rc;
  }
  if (a->type.id == LM_TYPE_FLOAT64 || a->type.id == LM_TYPE_FLOAT32) {
    double f = v.v.f;
    if (f == 0)
      f = 0;
    if (isnan(f))
      f = NAN;
    return lm_buf_append(k, &f, sizeof f);
  }
  return lm_buf_append(k, &v.v, sizeof v.v);
}

static int key_add(lm_buf *k, const lm_array *a, int64_t row) {
  return key_add_as(k, a, row, false);
}

static int cache_grow(struct lm_subq_cache *c) {
  int64_t cap = c->cap ? c->cap * 2 : 16;
  subq_entry *e = calloc((size_t)cap, sizeof *e);
  if (!e)
    return -1;
  for (int64_t i = 0; i < c->cap; i++) {
    if (!c->entries[i].key)
      continue;
    int64_t j = (int64_t)(c->entries[i].hash & (uint64_t)(cap - 1));
    while (e[j].key)
      j = (j + 1) & (cap - 1);
    e[j] = c->entries[i];
  }
  free(c->entries);
  c->entries = e;
  c->cap = cap;
  return 0;
}

/* The inner query's rows for the parameter values of outer row `row`
 * (params[k] row `row`): from the cache, or by running the query with the
 * slots set. *rows is borrowed from the cache. */
static int rows_for(lm_subplan *sp, lm_array *const *params, int64_t row,
                    lm_buf *key, subq_entry **ent, lm_error *err) {
  if (!sp->cache && !(sp->cache = calloc(1, sizeof *sp->cache)))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  struct lm_subq_cache *c = sp->cache;
  key->len = 0;
  for (int k = 0; k < sp->n_params; k++)
    if (key_add(key, params[k], row))
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
  uint64_t h = lm_hash_bytes(key->data ? key->data : "", key->len, 7);
  if ((c->n + 1) * 2 > c->cap && cache_grow(c))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int64_t j = (int64_t)(h & (uint64_t)(c->cap - 1));
  for (; c->entries[j].key; j = (j + 1) & (c->cap - 1)) {
    subq_entry *x = &c->entries[j];
    if (x->hash == h && x->key_len == key->len &&
        (!key->len || !memcmp(x->key, key->data, key->len))) {
      *ent = x;
      return 0;
    }
  }
  if (sp->decor && sp->decor->state == 1) { /* no inner row has the key */
    *ent = &c->miss;
    return 0;
  }
  for (int k = 0; k < sp->n_params; k++) {
    lm_array_get_value(params[k], row, sp->params[k]);
    sp->params[k]->type = params[k]->type;
  }
  lm_batch *b = NULL;
  int rc = sp->run(sp->run_ctx, sp, &b, err);
  if (rc)
    return rc;
  char *kc = malloc(key->len + 1);
  if (!kc) {
    lm_batch_release(b);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  if (key->len)
    memcpy(kc, key->data, key->len);
  c->entries[j].hash = h;
  c->entries[j].key = kc;
  c->entries[j].key_len = key->len;
  c->entries[j].rows = b;
  c->entries[j].set = NULL;
  c->n++;
  *ent = &c->entries[j];
  return 0;
}

/* Whether x IN (SELECT ...) can use a hash set: = ANY whose comparison is
 * (cast of) the left operand = (cast of) column 0, both of one type. */
static bool hashable(const lm_subplan *sp) {
  const lm_bexpr *c = sp->cmp;
  if (sp->kind != LM_SUBQ_ANY || !c || c->kind != LM_BX_BINARY ||
      c->op != LM_OP_EQ || c->n_args != 2 ||
      !lm_type_eq(c->args[0]->type, c->args[1]->type) ||
      c->args[0]->type.id == LM_TYPE_NULL)
    return false;
  const lm_bexpr *l = c->args[0], *r = c->args[1];
  if (l->kind == LM_BX_CAST)
    l = l->args[0];
  if (r->kind == LM_BX_CAST)
    r = r->args[0];
  return l->kind == LM_BX_PARAM && l->param == sp->left_slot &&
         r->kind == LM_BX_COLUMN && r->col == 0;
}

/* Finds (insert false) or adds (insert true) value bytes k in s. */
static bool set_probe(subq_set *s, const lm_buf *k, bool insert) {
  uint64_t h = lm_hash_bytes(k->data, k->len, 11);
  int64_t j = (int64_t)(h & (uint64_t)(s->cap - 1));
  for (; s->slot[j]; j = (j + 1) & (s->cap - 1)) {
    int32_t len;
    const char *at = s->data.data + s->slot[j] - 1;
    memcpy(&len, at, sizeof len);
    if (s->hash[j] == h && (size_t)len == k->len &&
        !memcmp(at + sizeof len, k->data, k->len))
      return true;
  }
  if (insert) {
    int32_t len = (int32_t)k->len;
    s->slot[j] = (int64_t)s->data.len + 1;
    s->hash[j] = h;
    if (lm_buf_append(&s->data, &len, sizeof len) ||
        lm_buf_append(&s->data, k->data, k->len))
      s->slot[j] = 0; /* OOM: left out; the caller checks */
  }
  return false;
}

/* The hash set of e's column 0 (coerced) for one cache entry. */
static int set_build(lm_subplan *sp, subq_entry *x, lm_error *err) {
  lm_array *col = NULL;
  int rc = lm_eval(sp->cmp->args[1], x->rows, &col, err);
  if (rc)
    return rc;
  subq_set *s = calloc(1, sizeof *s);
  int64_t n = col->length, cap = 16;
  while (cap < 2 * n + 16)
    cap *= 2;
  if (s) {
    s->cap = cap;
    s->slot = calloc((size_t)cap, sizeof *s->slot);
    s->hash = calloc((size_t)cap, sizeof *s->hash);
    lm_buf_init(&s->data);
  }
  lm_buf k;
  lm_buf_init(&k);
  if (!s || !s->slot || !s->hash)
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int64_t i = 0; !rc && i < n; i++) {
    k.len = 0;
    if (key_add_as(&k, col, i, true))
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    else if (k.len == 1 && k.data[0] == 0)
      s->has_null = true;
    else if (!set_probe(s, &k, true) && !set_probe(s, &k, false))
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lm_buf_free(&k);
  lm_array_release(col);
  if (rc) {
    set_free(s);
    return rc;
  }
  x->set = s;
  return 0;
}

/* The left operand of a hashable IN coerced as the comparison does, over
 * every row (*out: a new array). */
static int left_coerced(const lm_subplan *sp, lm_array *left, lm_array **out,
                        lm_error *err) {
  const lm_bexpr *l = sp->cmp->args[0];
  if (l->kind != LM_BX_CAST) {
    *out = lm_array_retain(left);
    return 0;
  }
  lm_schema *s = lm_schema_new(1);
  lm_array *cols[1] = {lm_array_retain(left)};
  lm_batch *b = NULL;
  if (s)
    lm_schema_set_field(s, 0, "x", left->type, true);
  if (s && (b = lm_batch_new(s, left->length, cols)))
    s = NULL; /* the batch holds it */
  else
    lm_array_release(cols[0]);
  lm_schema_release(s);
  if (!b)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_bexpr col, cast = *l;
  memset(&col, 0, sizeof col);
  col.kind = LM_BX_COLUMN;
  col.type = left->type;
  lm_bexpr *arg = &col;
  cast.args = &arg;
  int rc = lm_eval(&cast, b, out, err);
  lm_batch_release(b);
  return rc;
}

int lm_subplan_prime(lm_subplan *sp, lm_batch *rows, lm_error *err) {
  if (sp->n_params || sp->cache)
    return 0;
  if (!(sp->cache = calloc(1, sizeof *sp->cache)) || cache_grow(sp->cache))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  subq_entry *x = &sp->cache->entries[lm_hash_bytes("", 0, 7) & 15];
  if (!(x->key = malloc(1)))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  x->hash = lm_hash_bytes("", 0, 7);
  x->key_len = 0;
  x->rows = lm_batch_retain(rows);
  sp->cache->n = 1;
  return 0;
}

/* Whether inner key values of type a and outer values of type b are equal
 * exactly when key_add gives them equal bytes. */
static bool key_types_match(lm_type a, lm_type b) {
  if (lm_type_is_integer(a) && lm_type_is_integer(b))
    return true; /* both as int64 */
  if ((a.id == LM_TYPE_FLOAT32 || a.id == LM_TYPE_FLOAT64) &&
      (b.id == LM_TYPE_FLOAT32 || b.id == LM_TYPE_FLOAT64))
    return true; /* both as double, -0 and NaN normalized */
  bool ta = a.id == LM_TYPE_UTF8 || a.id == LM_TYPE_LARGE_UTF8;
  bool tb = b.id == LM_TYPE_UTF8 || b.id == LM_TYPE_LARGE_UTF8;
  /* the group table ignores a CHAR(n)'s trailing spaces: CHAR against
   * text is compared per key, as the binder coerced the equality */
  if (lm_type_is_jsonb(a) || lm_type_is_jsonb(b))
    return false; /* jsonb: '1' = '1.0', compared per key */
  if (ta || tb)
    return ta && tb && lm_type_is_bpchar(a) == lm_type_is_bpchar(b);
  if (a.id == LM_TYPE_DECIMAL128)
    return b.id == LM_TYPE_DECIMAL128 && a.scale == b.scale;
  switch (a.id) {
  case LM_TYPE_BOOL:
  case LM_TYPE_DATE32:
  case LM_TYPE_TIMESTAMP:
  case LM_TYPE_BINARY:
  case LM_TYPE_LARGE_BINARY:
  case LM_TYPE_UINT64:
    return lm_type_eq(a, b);
  default:
    return false; /* intervals compare normalized; others: per key */
  }
}

/* Runs one of the decorrelated queries of sp (*out: a new reference).
 * Nonzero when it fails or still reads an outer reference (the error is
 * dropped: the per-key SubPlan then decides). */
static int decor_run(lm_subplan *sp, const lm_select *sel, lm_batch **out) {
  lm_error e;
  lm_err_clear(&e);
  const lm_select *keep = sp->sel;
  sp->sel = sel;
  sp->decor->running = true;
  sp->decor->ref_hits = 0;
  int rc = sp->run(sp->run_ctx, sp, out, &e);
  sp->decor->running = false;
  sp->sel = keep;
  if (!rc && sp->decor->ref_hits) {
    lm_batch_release(*out);
    *out = NULL;
    rc = -1;
  }
  return rc;
}

/* Whether the group table encodes values of type t so that two values
 * are equal exactly when their encodings are (agg_table.c encode_key). */
static bool vec_key_type(lm_type t) {
  switch (t.id) {
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
  case LM_TYPE_INT32:
  case LM_TYPE_INT64:
  case LM_TYPE_UINT8:
  case LM_TYPE_UINT16:
  case LM_TYPE_UINT32:
  case LM_TYPE_UINT64:
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64:
  case LM_TYPE_UTF8:
  case LM_TYPE_BINARY:
  case LM_TYPE_BOOL:
  case LM_TYPE_DATE32:
  case LM_TYPE_TIMESTAMP:
  case LM_TYPE_DECIMAL128:
    return true;
  default:
    return false;
  }
}

/* Whether EXISTS (... inner op outer) can compare max / min(inner) of
 * type a with outer values of type b as int64: integers of any width, or
 * DATE / TIMESTAMP of one type. */
static bool range_types(lm_type a, lm_type b) {
  if (lm_type_is_integer(a) && lm_type_is_integer(b))
    return true;
  return (a.id == LM_TYPE_DATE32 || a.id == LM_TYPE_TIMESTAMP) &&
         lm_type_eq(a, b);
}

/* v op x for EXISTS (... inner op outer) (op: < <= > >=). */
static bool range_cmp(lm_op op, int64_t v, int64_t x) {
  switch (op) {
  case LM_OP_LT:
    return v < x;
  case LM_OP_LE:
    return v <= x;
  case LM_OP_GT:
    return v > x;
  default:
    return v >= x;
  }
}

/* Whether row i of any of keys[0..nk) is NULL. */
static bool any_null(lm_array *const *keys, int nk, int64_t i) {
  for (int k = 0; k < nk; k++)
    if (keys[k]->type.id == LM_TYPE_NULL || lm_array_is_null(keys[k], i))
      return true;
  return false;
}

/* Runs sp's decorrelated query once and hashes its rows by key tuple
 * (the build side of a hash semi / anti / left join, in an lm_aggtable
 * without aggregates): rows with a NULL in the key are dropped (they
 * match no outer row), the others are ordered by group (group g's rows
 * are [start[g], start[g + 1])). The rows of a key that has none go to
 * cache->miss. A scalar subquery's values (column 0, then the miss row if
 * any) are kept as one array of e's type, gathered per outer batch. On
 * any failure other than OOM, sp->decor->state becomes -1 (per-key runs)
 * and 0 is returned. */
static int decor_build(const lm_bexpr *e, lm_subplan *sp, lm_error *err) {
  lm_decor *d = sp->decor;
  int nk = d->n_keys, rc = 0;
  d->state = -1;
  if (sp->cache && sp->cache->n)
    return 0;
  lm_batch *rows = NULL, *empty = NULL;
  int32_t *sel = NULL, *perm = NULL;
  uint32_t *gids = NULL;
  lm_type key_types[32];
  decor_hash *h = NULL;
  if (decor_run(sp, d->sel, &rows))
    goto out;
  if (rows->num_columns != d->key_off + nk || rows->num_rows >= INT32_MAX)
    goto out;
  lm_array *const *keys = rows->columns + d->key_off;
  for (int k = 0; k < nk; k++) {
    lm_type pt = sp->param_exprs[d->key_param[k]]->type;
    key_types[k] = keys[k]->type;
    if (!vec_key_type(key_types[k]) || !vec_key_type(pt) ||
        !key_types_match(key_types[k], pt))
      goto out;
  }
  if (d->range_param >= 0 &&
      !range_types(rows->columns[0]->type,
                   sp->param_exprs[d->range_param]->type))
    goto out;
  if (d->empty) {
    if (decor_run(sp, d->empty, &empty) || empty->num_rows != 1)
      goto out;
  } else if (!(empty = lm_batch_slice(rows, 0, 0))) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto out;
  }
  if (!sp->cache && !(sp->cache = calloc(1, sizeof *sp->cache))) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto out;
  }
  int64_t n = rows->num_rows, m = 0;
  h = calloc(1, sizeof *h);
  sel = malloc(sizeof *sel * (size_t)(n + 1));
  perm = malloc(sizeof *perm * (size_t)(n + 1));
  gids = malloc(sizeof *gids * (size_t)(n + 1));
  if (!h || !sel || !perm || !gids ||
      !(h->keys = lm_aggtable_new(nk, key_types, 0, NULL))) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto out;
  }
  for (int64_t i = 0; i < n; i++)
    if (!any_null(keys, nk, i))
      sel[m++] = (int32_t)i;
  if ((rc = lm_aggtable_lookup(h->keys, keys, sel, m, gids, err)))
    goto out;
  int64_t ng = lm_aggtable_groups(h->keys);
  /* a counting sort of the rows by group: start[g + 1] counts, then
   * prefix sums; perm lists the rows group by group, in input order */
  if (!(h->start = calloc((size_t)ng + 2, sizeof *h->start))) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto out;
  }
  h->n_groups = ng;
  for (int64_t j = 0; j < m; j++)
    h->start[gids[j] + 1]++;
  for (int64_t g = 0; g < ng; g++)
    h->start[g + 1] += h->start[g];
  for (int64_t j = 0; j < m; j++)
    perm[h->start[gids[j]]++] = sel[j];
  for (int64_t g = ng; g > 0; g--) /* back to where each group starts */
    h->start[g] = h->start[g - 1];
  h->start[0] = 0;
  if (d->limit > 0) { /* LIMIT n per key: each group's first n rows */
    int64_t w = 0;
    for (int64_t g = 0; g < ng; g++) {
      int64_t r0 = h->start[g], r1 = h->start[g + 1];
      if (r1 - r0 > d->limit)
        r1 = r0 + d->limit;
      h->start[g] = w;
      for (int64_t r = r0; r < r1; r++)
        perm[w++] = perm[r];
    }
    h->start[ng] = w;
  }
  h->rows = lm_batch_retain(rows);
  h->perm = perm;
  perm = NULL;
  if (sp->kind == LM_SUBQ_SCALAR && e->type.id != LM_TYPE_NULL) {
    /* the values, then the miss row's: one array of e's type */
    lm_array *parts[2] = {rows->columns[0],
                          empty->num_rows ? empty->columns[0] : NULL};
    int np = empty->num_rows ? 2 : 1;
    bool same = true;
    for (int i = 0; i < np; i++)
      same = same && lm_type_eq(parts[i]->type, e->type);
    lm_error ce;
    lm_err_clear(&ce);
    if (same) {
      if (!(h->value = lm_array_concat(parts, np, &ce)))
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    } else { /* e.g. an all-NULL column: converted row by row, once */
      lm_builder b;
      if (lm_builder_init(&b, e->type, m + 1)) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      } else {
        for (int i = 0; i < np; i++)
          for (int64_t r = 0; r < parts[i]->length; r++)
            lm_builder_append_from(&b, parts[i], r);
        if (lm_builder_finish(&b, &h->value))
          rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        lm_builder_free(&b);
      }
    }
    h->miss_at = empty->num_rows ? (int32_t)n : -1;
  }
  if (!rc) {
    sp->cache->miss.rows = empty;
    empty = NULL;
    sp->cache->dh = h;
    h = NULL;
    d->state = 1;
  }
out:
  free(perm);
  free(sel);
  free(gids);
  decor_hash_free(h);
  lm_batch_release(rows);
  lm_batch_release(empty);
  if (rc)
    lm_subplan_reset(sp); /* a partly filled cache */
  return rc;
}

/* A BIGINT array of v[0..n) (a new reference), or NULL on OOM. */
static lm_array *i64_array(const int64_t *v, int64_t n) {
  lm_builder b;
  lm_array *a = NULL;
  if (lm_builder_init(&b, lm_type_make(LM_TYPE_INT64), n))
    return NULL;
  for (int64_t i = 0; i < n; i++)
    lm_builder_append_i64_fast(&b, v[i]);
  if (lm_builder_finish(&b, &a))
    a = NULL;
  lm_builder_free(&b);
  return a;
}

/* Groups with more rows than this get their values hashed for IN (the
 * pairs table); smaller ones are scanned. */
#define DECOR_SCAN_MAX 32

/* Whether non-NULL value i of a equals non-NULL value j of b (one type of
 * vec_key_type), as `=` over that type: floats with -0 = 0 and NaN = NaN,
 * as PostgreSQL orders them. */
static bool val_eq(const lm_array *a, int64_t i, const lm_array *b, int64_t j) {
  switch (a->type.id) {
  case LM_TYPE_INT64:
  case LM_TYPE_TIMESTAMP:
    return lm_array_i64(a)[i] == lm_array_i64(b)[j];
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64: {
    double x = lm_array_get_f64(a, i), y = lm_array_get_f64(b, j);
    return x == y || (isnan(x) && isnan(y));
  }
  case LM_TYPE_UTF8:
  case LM_TYPE_BINARY: {
    int32_t lx, ly;
    const char *x = lm_array_str(a, i, &lx), *y = lm_array_str(b, j, &ly);
    return lx == ly && (!lx || !memcmp(x, y, (size_t)lx));
  }
  case LM_TYPE_BOOL:
    return lm_array_bool(a, i) == lm_array_bool(b, j);
  case LM_TYPE_DECIMAL128:
    return !memcmp(a->values->data + (size_t)(a->offset + i) * 16,
                   b->values->data + (size_t)(b->offset + j) * 16, 16);
  default:
    return lm_array_get_i64(a, i) == lm_array_get_i64(b, j);
  }
}

/* For a hashable x IN (SELECT ...): the values coerced as the comparison
 * does (sp->cmp's right side over the rows), per group whether one is
 * NULL, and a hash table of the (group, value) pairs of the groups with
 * more than DECOR_SCAN_MAX rows. Nothing is built (no error) when the
 * coerced type cannot be compared that way. */
static int decor_pairs(lm_subplan *sp, decor_hash *h, lm_error *err) {
  h->pairs_tried = true;
  int rc = 0;
  lm_array *val = NULL, *cols[2] = {NULL, NULL};
  int64_t n = 0;
  int32_t *sel = NULL;
  int64_t *g64 = NULL;
  uint32_t *gids = NULL;
  if ((rc = lm_eval(sp->cmp->args[1], h->rows, &val, err)))
    return rc;
  if (!vec_key_type(val->type))
    goto out;
  h->has_null = calloc((size_t)h->n_groups + 1, 1);
  if (!h->has_null) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto out;
  }
  for (int64_t g = 0; g < h->n_groups; g++) {
    int64_t r0 = h->start[g], r1 = h->start[g + 1];
    bool big = r1 - r0 > DECOR_SCAN_MAX;
    for (int64_t r = r0; r < r1; r++)
      if (val->type.id == LM_TYPE_NULL || lm_array_is_null(val, h->perm[r]))
        h->has_null[g] = 1;
      else if (big)
        n++;
  }
  if (n > 0) { /* keyed by (group, value), both without NULLs */
    sel = malloc(sizeof *sel * (size_t)n);
    g64 = malloc(sizeof *g64 * (size_t)n);
    gids = malloc(sizeof *gids * (size_t)n);
    if (!sel || !g64 || !gids) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto out;
    }
    n = 0;
    for (int64_t g = 0; g < h->n_groups; g++)
      if (h->start[g + 1] - h->start[g] > DECOR_SCAN_MAX)
        for (int64_t r = h->start[g]; r < h->start[g + 1]; r++)
          if (val->type.id != LM_TYPE_NULL &&
              !lm_array_is_null(val, h->perm[r])) {
            g64[n] = g;
            sel[n++] = h->perm[r];
          }
    lm_type types[2] = {lm_type_make(LM_TYPE_INT64), val->type};
    if (!(cols[0] = i64_array(g64, n)) ||
        !(cols[1] = lm_array_take_nullable(val, sel, n)) ||
        !(h->pairs = lm_aggtable_new(2, types, 0, NULL)) ||
        lm_aggtable_reserve(h->pairs, n, 0)) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto out;
    }
    rc = lm_aggtable_lookup(h->pairs, cols, NULL, n, gids, err);
  }
  if (!rc) {
    h->val = val;
    val = NULL;
  }
out:
  if (rc) {
    lm_aggtable_free(h->pairs);
    h->pairs = NULL;
  }
  lm_array_release(cols[0]);
  lm_array_release(cols[1]);
  free(sel);
  free(g64);
  free(gids);
  lm_array_release(val);
  return rc;
}

/* For the outer rows i that hit a group (gids[i]) and whose x (lco) is
 * not NULL, pg[i]: whether x is one of the group's values (a scan of a
 * small group, a probe of the pairs table for a big one); other rows'
 * pg[i] are left unset. */
static int decor_pairs_probe(decor_hash *h, const uint32_t *gids, lm_array *lco,
                             int64_t n, uint8_t *pg, lm_error *err) {
  int32_t *sel = NULL;
  int64_t *g64 = NULL;
  uint32_t *out = NULL;
  lm_array *cols[2] = {NULL, NULL};
  int64_t m = 0;
  int rc = 0;
  const lm_array *v = h->val;
  for (int64_t i = 0; i < n; i++) {
    uint32_t g = gids[i];
    if (g == UINT32_MAX || lm_array_is_null(lco, i))
      continue;
    int64_t r0 = h->start[g], r1 = h->start[g + 1];
    if (r1 - r0 > DECOR_SCAN_MAX) {
      m++;
      continue;
    }
    bool hit = false;
    const int32_t *pr = h->perm;
    if (v->type.id == LM_TYPE_INT64 && !v->validity) {
      const int64_t *vv = lm_array_i64(v), x = lm_array_i64(lco)[i];
      for (int64_t r = r0; r < r1 && !hit; r++)
        hit = vv[pr[r]] == x;
    } else {
      for (int64_t r = r0; r < r1 && !hit; r++)
        hit = !lm_array_is_null(v, pr[r]) && val_eq(v, pr[r], lco, i);
    }
    pg[i] = hit;
  }
  if (m == 0)
    return 0;
  sel = malloc(sizeof *sel * (size_t)m);
  g64 = malloc(sizeof *g64 * (size_t)m);
  out = malloc(sizeof *out * (size_t)m);
  if (!sel || !g64 || !out) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto out;
  }
  m = 0;
  for (int64_t i = 0; i < n; i++)
    if (gids[i] != UINT32_MAX && !lm_array_is_null(lco, i) &&
        h->start[gids[i] + 1] - h->start[gids[i]] > DECOR_SCAN_MAX) {
      g64[m] = gids[i];
      sel[m++] = (int32_t)i;
    }
  if (!(cols[0] = i64_array(g64, m)) ||
      !(cols[1] = lm_array_take_nullable(lco, sel, m))) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto out;
  }
  if ((rc = lm_aggtable_find(h->pairs, cols, NULL, m, out, err)))
    goto out;
  for (int64_t j = 0; j < m; j++)
    pg[sel[j]] = out[j] != UINT32_MAX;
out:
  lm_array_release(cols[0]);
  lm_array_release(cols[1]);
  free(sel);
  free(g64);
  free(out);
  return rc;
}

/* Group g's rows (g < 0: the miss rows) as a batch borrowed from h. */
static lm_batch *decor_group(struct lm_subq_cache *c, int64_t g) {
  decor_hash *h = c->dh;
  if (g < 0)
    return c->miss.rows;
  if (!h->slices &&
      !(h->slices = calloc((size_t)h->n_groups + 1, sizeof *h->slices)))
    return NULL;
  if (!h->slices[g])
    h->slices[g] = lm_batch_take(h->rows, h->perm + h->start[g],
                                 h->start[g + 1] - h->start[g]);
  return h->slices[g];
}

/* x op ANY / ALL over the rows: three-valued (ANY: TRUE when one
 * comparison is TRUE, else NULL when one is NULL, else FALSE; ALL the
 * dual). *res: 1 TRUE, 0 FALSE, -1 NULL. */
static int any_all(lm_subplan *sp, const lm_array *left, int64_t row,
                   lm_batch *rows, int *res, lm_error *err) {
  bool any = sp->kind == LM_SUBQ_ANY;
  if (rows->num_rows == 0) {
    *res = any ? 0 : 1;
    return 0;
  }
  lm_array_get_value(left, row, sp->left_slot);
  sp->left_slot->type = left->type;
  lm_array *c = NULL;
  int rc = lm_eval(sp->cmp, rows, &c, err);
  if (rc)
    return rc;
  bool saw_null = false;
  *res = any ? 0 : 1;
  for (int64_t i = 0; i < c->length; i++) {
    lm_value v;
    lm_array_get_value(c, i, &v);
    if (v.is_null || c->type.id == LM_TYPE_NULL) {
      saw_null = true;
    } else if (v.v.b == any) {
      *res = any ? 1 : 0;
      lm_array_release(c);
      return 0;
    }
  }
  lm_array_release(c);
  if (saw_null)
    *res = -1;
  return 0;
}

/* The decorrelated subquery e over a whole outer batch of n rows (the
 * probe side): one hash probe per row of the key tuple (params), then a
 * gather of the scalar values, the hit flags of EXISTS, or for a hashed
 * IN a second probe of (key, x) pairs; other ANY / ALL comparisons run
 * over each row's group. *out: a new array of e's type. */
static int decor_probe(const lm_bexpr *e, lm_subplan *sp, lm_array **params,
                       lm_array *left, lm_array *lco, bool hashed, int64_t n,
                       lm_array **out, lm_error *err) {
  struct lm_subq_cache *c = sp->cache;
  decor_hash *h = c->dh;
  int rc = 0;
  uint32_t *gids = malloc(sizeof *gids * (size_t)(n + 1));
  uint8_t *pg = NULL; /* hashed IN: (group, x) found */
  int32_t *idx = NULL;
  lm_builder b;
  bool have_b = false;
  if (!gids)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  const lm_decor *d = sp->decor;
  lm_array *pk[32];
  for (int k = 0; k < d->n_keys; k++)
    pk[k] = params[d->key_param[k]];
  if ((rc = lm_aggtable_find(h->keys, pk, NULL, n, gids, err)))
    goto done;
  if (sp->kind == LM_SUBQ_SCALAR) {
    for (int64_t i = 0; i < n; i++)
      if (gids[i] != UINT32_MAX &&
          h->start[gids[i] + 1] - h->start[gids[i]] > 1) {
        rc = lm_err(err, LM_ERR_EXEC,
                    "more than one row returned by a subquery used as an "
                    "expression");
        lm_err_state(err, "21000");
        goto done;
      }
    if (e->type.id == LM_TYPE_NULL) {
      if (!(*out = lm_array_new_null(e->type, n)))
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
    if (!(idx = malloc(sizeof *idx * (size_t)(n + 1)))) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
    for (int64_t i = 0; i < n; i++)
      idx[i] = gids[i] == UINT32_MAX ? h->miss_at : h->perm[h->start[gids[i]]];
    if (!(*out = lm_array_take_nullable(h->value, idx, n)))
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  if (hashed && !h->pairs_tried && (rc = decor_pairs(sp, h, err)))
    goto done;
  if (hashed && h->val) {
    if (!(pg = malloc((size_t)n + 1))) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
    if ((rc = decor_pairs_probe(h, gids, lco, n, pg, err)))
      goto done;
  }
  if (lm_builder_init(&b, e->type, n)) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  have_b = true;
  lm_batch *miss = c->miss.rows;
  for (int64_t i = 0; i < n && !rc; i++) {
    uint32_t g = gids[i];
    int res; /* 1 TRUE, 0 FALSE, -1 NULL */
    if (sp->kind == LM_SUBQ_EXISTS && d->range_param >= 0) {
      /* some inner value op x: max / min(inner) op x, NULLs FALSE */
      const lm_array *v = h->rows->columns[0], *x = params[d->range_param];
      int64_t r = g == UINT32_MAX ? -1 : h->perm[h->start[g]];
      res = r >= 0 && !lm_array_is_null(v, r) && !lm_array_is_null(x, i) &&
            x->type.id != LM_TYPE_NULL &&
            range_cmp(d->range_op, lm_array_get_i64(v, r),
                      lm_array_get_i64(x, i));
    } else if (sp->kind == LM_SUBQ_EXISTS) {
      res = g != UINT32_MAX;
    } else if (g == UINT32_MAX && miss->num_rows == 0) {
      res = sp->kind == LM_SUBQ_ANY ? 0 : 1; /* over no rows */
    } else if (pg && g != UINT32_MAX) {      /* hashed IN */
      res = lm_array_is_null(lco, i) ? -1 : pg[i] ? 1 : h->has_null[g] ? -1 : 0;
    } else {
      lm_batch *rows = decor_group(c, g == UINT32_MAX ? -1 : (int64_t)g);
      if (!rows) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        break;
      }
      rc = any_all(sp, left, i, rows, &res, err);
    }
    if (res >= 0 && e->negated)
      res = !res;
    if (res < 0)
      lm_builder_append_null(&b);
    else
      lm_builder_append_bool(&b, res == 1);
  }
  if (!rc) {
    rc = lm_builder_finish(&b, out);
    if (rc)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
done:
  if (have_b)
    lm_builder_free(&b);
  free(gids);
  free(pg);
  free(idx);
  return rc;
}

int lm_eval_subquery(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                     lm_error *err) {
  lm_subplan *sp = e->sub;
  int64_t n = in->num_rows;
  int rc = 0;
  if (dry > 0) { /* a query run only to be planned: NULL, nothing run */
    dry_hits++;
    *out = lm_array_new_null(e->type, n);
    return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lm_array **params = calloc((size_t)sp->n_params + 1, sizeof *params);
  lm_array *left = NULL, *lco = NULL;
  lm_buf key;
  lm_buf_init(&key);
  lm_builder b;
  bool have_b = false;
  if (!params) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  for (int k = 0; k < sp->n_params && !rc; k++)
    rc = lm_eval(sp->param_exprs[k], in, &params[k], err);
  if (!rc && e->n_args > 0)
    rc = lm_eval(e->args[0], in, &left, err);
  if (!rc && n > 0 && sp->decor && sp->decor->state == 0)
    rc = decor_build(e, sp, err); /* once: then probed batch by batch */
  bool hashed = !rc && left && hashable(sp);
  if (hashed)
    rc = left_coerced(sp, left, &lco, err);
  if (rc)
    goto done;
  if (n > 0 && sp->decor && sp->decor->state == 1 && sp->cache &&
      sp->cache->dh) {
    rc = decor_probe(e, sp, params, left, lco, hashed, n, out, err);
    goto done;
  }
  bool null_type = e->type.id == LM_TYPE_NULL;
  if (!null_type) {
    if (lm_builder_init(&b, e->type, n)) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
    have_b = true;
  }
  for (int64_t i = 0; i < n && !rc; i++) {
    subq_entry *ent = NULL;
    if ((rc = rows_for(sp, params, i, &key, &ent, err)))
      break;
    lm_batch *rows = ent->rows;
    int res = -1; /* BOOLEAN forms: 1, 0, -1 = NULL */
    switch (sp->kind) {
    case LM_SUBQ_SCALAR:
      if (rows->num_rows > 1) {
        rc = lm_err(err, LM_ERR_EXEC,
                    "more than one row returned by a subquery used as an "
                    "expression");
        lm_err_state(err, "21000");
        break;
      }
      if (null_type)
        continue;
      if (rows->num_rows == 0)
        lm_builder_append_null(&b);
      else
        lm_builder_append_from(&b, rows->columns[0], 0);
      continue;
    case LM_SUBQ_EXISTS:
      res = rows->num_rows > 0;
      break;
    case LM_SUBQ_ANY:
    case LM_SUBQ_ALL:
      if (!hashed || rows->num_rows == 0) {
        rc = any_all(sp, left, i, rows, &res, err);
        break;
      }
      if (!ent->set && (rc = set_build(sp, ent, err)))
        break;
      key.len = 0;
      if (key_add_as(&key, lco, i, true)) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        break;
      }
      if (key.len == 1 && key.data[0] == 0)
        res = -1; /* NULL IN (non-empty set) */
      else
        res = set_probe(ent->set, &key, false) ? 1
              : ent->set->has_null             ? -1
                                               : 0;
      break;
    }
    if (rc)
      break;
    if (res >= 0 && e->negated)
      res = !res;
    if (res < 0) {
      lm_builder_append_null(&b);
    } else {
      lm_value v;
      memset(&v, 0, sizeof v);
      v.type = e->type;
      v.v.b = res == 1;
      lm_builder_append_value(&b, &v);
    }
  }
  if (!rc && null_type) {
    *out = lm_array_new_null(e->type, n);
    if (!*out)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  } else if (!rc) {
    rc = lm_builder_finish(&b, out);
    lm_builder_free(&b);
    have_b = false;
    if (rc)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
done:
  if (have_b)
    lm_builder_free(&b);
  if (params)
    for (int k = 0; k < sp->n_params; k++)
      lm_array_release(params[k]);
  free(params);
  lm_array_release(left);
  lm_array_release(lco);
  lm_buf_free(&key);
  return rc;
}
