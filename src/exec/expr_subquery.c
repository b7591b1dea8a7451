/*
 * Subquery expressions (PostgreSQL's SubPlan / InitPlan): a scalar
 * subquery, EXISTS, x [NOT] IN (SELECT ...) and x op ANY|ALL (SELECT ...)
 * evaluated over a batch of the outer query. The inner query is run
 * through the plan's runner (api/select.c supplies it) once per distinct
 * tuple of the outer values it reads; its rows are cached by that tuple
 * for the rest of the statement, so an uncorrelated subquery runs once.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

struct lm_subq_cache {
  subq_entry *entries; /* open addressing, cap a power of two */
  int64_t n, cap;
  /* decorrelated: the rows of a key not in entries (one reference) and
   * its IN set */
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
 * (strings with their length first; -0.0 and NaN normalized). */
static int key_add(lm_buf *k, const lm_array *a, int64_t row) {
  lm_value v;
  memset(&v, 0, sizeof v);
  lm_array_get_value(a, row, &v);
  if (v.is_null || a->type.id == LM_TYPE_NULL)
    return lm_buf_putc(k, 0);
  int rc = lm_buf_putc(k, 1);
  if (rc)
    return rc;
  if (is_bytes(a->type.id)) {
    int32_t len = v.v.s.len;
    rc = lm_buf_append(k, &len, sizeof len);
    return rc ? rc : lm_buf_append(k, v.v.s.p, (size_t)len);
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
    if (key_add(&k, col, i))
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
  if (ta || tb)
    return ta && tb;
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

/* Runs sp's decorrelated query once and fills the cache with its rows
 * grouped by key tuple (an entry per tuple, as if each had been run per
 * key), plus the rows of a key that has none (cache->miss). On any
 * failure other than OOM, sp->decor->state becomes -1 (per-key runs) and
 * 0 is returned. */
static int decor_build(lm_subplan *sp, lm_error *err) {
  lm_decor *d = sp->decor;
  int nk = sp->n_params, rc = 0;
  d->state = -1;
  if (sp->cache && sp->cache->n)
    return 0;
  lm_batch *rows = NULL, *empty = NULL, *sorted = NULL;
  int64_t *slot_of = NULL, *count = NULL;
  int32_t *perm = NULL;
  lm_array **cols = NULL;
  lm_buf key;
  lm_buf_init(&key);
  if (decor_run(sp, d->sel, &rows))
    goto out;
  if (rows->num_columns != d->key_off + nk || rows->num_rows > INT32_MAX)
    goto out;
  for (int k = 0; k < nk; k++)
    if (!key_types_match(rows->columns[d->key_off + k]->type,
                         sp->param_exprs[k]->type))
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
  struct lm_subq_cache *c = sp->cache;
  int64_t n = rows->num_rows, m = 0, n_groups = 0;
  slot_of = malloc(sizeof *slot_of * (size_t)(n + 1)); /* the row's group */
  count = calloc((size_t)n + 2, sizeof *count);
  perm = malloc(sizeof *perm * (size_t)(n + 1));
  cols = calloc((size_t)rows->num_columns, sizeof *cols);
  if (!slot_of || !count || !perm || !cols) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto out;
  }
  /* group the rows by key tuple (an entry per group, gid its number); a
   * NULL in the key matches no outer row */
  for (int64_t i = 0; i < n && !rc; i++) {
    bool null = false;
    key.len = 0;
    for (int k = 0; k < nk && !rc; k++) {
      size_t at = key.len;
      if (key_add(&key, rows->columns[d->key_off + k], i))
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      else if (key.data[at] == 0)
        null = true;
    }
    slot_of[i] = -1;
    if (rc || null)
      continue;
    if ((c->n + 1) * 2 > c->cap && cache_grow(c)) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      break;
    }
    uint64_t h = lm_hash_bytes(key.data, key.len, 7);
    int64_t j = (int64_t)(h & (uint64_t)(c->cap - 1));
    for (; c->entries[j].key; j = (j + 1) & (c->cap - 1)) {
      subq_entry *x = &c->entries[j];
      if (x->hash == h && x->key_len == key.len &&
          !memcmp(x->key, key.data, key.len))
        break;
    }
    subq_entry *x = &c->entries[j];
    if (!x->key) {
      if (!(x->key = malloc(key.len + 1))) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        break;
      }
      memcpy(x->key, key.data, key.len);
      x->hash = h;
      x->key_len = key.len;
      x->gid = n_groups++;
      c->n++;
    }
    slot_of[i] = x->gid;
    count[x->gid + 1]++;
    m++;
  }
  if (rc)
    goto out;
  for (int64_t g = 0; g < n_groups; g++) /* count[g]: where group g starts */
    count[g + 1] += count[g];
  for (int64_t i = 0; i < n; i++)
    if (slot_of[i] >= 0)
      perm[count[slot_of[i]]++] = (int32_t)i;
  for (int k = 0; k < rows->num_columns; k++)
    if (!(cols[k] = lm_array_take_nullable(rows->columns[k], perm, m))) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      break;
    }
  if (!rc) {
    sorted = lm_batch_new(lm_schema_retain(rows->schema), m, cols);
    for (int k = 0; k < rows->num_columns; k++)
      cols[k] = NULL; /* taken by lm_batch_new, also on failure */
    if (!sorted)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  /* count[g] is now where group g ends, count[g - 1] where it starts */
  for (int64_t j = 0; !rc && j < c->cap; j++) {
    subq_entry *x = &c->entries[j];
    if (!x->key)
      continue;
    int64_t start = x->gid ? count[x->gid - 1] : 0;
    if (!(x->rows = lm_batch_slice(sorted, start, count[x->gid] - start)))
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  if (!rc) {
    c->miss.rows = empty;
    empty = NULL;
    d->state = 1;
  }
out:
  if (cols)
    for (int k = 0; rows && k < rows->num_columns; k++)
      lm_array_release(cols[k]);
  free(cols);
  free(perm);
  free(slot_of);
  free(count);
  lm_buf_free(&key);
  lm_batch_release(rows);
  lm_batch_release(sorted);
  lm_batch_release(empty);
  if (rc)
    lm_subplan_reset(sp); /* a partly filled cache */
  return rc;
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
    rc = decor_build(sp, err); /* once: then every key from the cache */
  bool hashed = !rc && left && hashable(sp);
  if (hashed)
    rc = left_coerced(sp, left, &lco, err);
  if (rc)
    goto done;
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
      if (key_add(&key, lco, i)) {
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
