/* exec/expr_array.c — PostgreSQL's one-dimensional arrays over LIST
 * arrays (expr_array.h). Results are built as int32 offsets plus a list
 * of item indices gathered from one source array (lm_array_take_nullable),
 * so no value is allocated per row. */
#include "exec/expr_array.h"
#include "columnar/lm_array_text.h"
#include "exec/expr_num.h"
#include "exec/lm_strfn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_list(lm_type t) {
  return t.id == LM_TYPE_LIST || t.id == LM_TYPE_LARGE_LIST;
}

static inline bool nul(const lm_array *a, int64_t i) {
  return a->type.id == LM_TYPE_NULL || lm_array_is_null(a, i);
}

const char *lm_array_type_name(lm_type t) {
  lm_type it = t.node->children[0].type;
  switch (it.id) {
  case LM_TYPE_BOOL:
    return "boolean[]";
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
    return "smallint[]";
  case LM_TYPE_INT32:
    return "integer[]";
  case LM_TYPE_INT64:
    return "bigint[]";
  case LM_TYPE_FLOAT32:
    return "real[]";
  case LM_TYPE_FLOAT64:
    return "double precision[]";
  case LM_TYPE_UTF8:
  case LM_TYPE_LARGE_UTF8:
    return lm_type_is_bpchar(it) ? "character[]" : "text[]";
  case LM_TYPE_TIMESTAMP:
    return lm_type_is_tstz(it) ? "timestamp with time zone[]"
                               : "timestamp without time zone[]";
  case LM_TYPE_INTERVAL:
    return "interval[]";
  case LM_TYPE_DECIMAL128:
    return "numeric[]";
  case LM_TYPE_DATE32:
    return "date[]";
  case LM_TYPE_TIME64:
    return "time without time zone[]";
  case LM_TYPE_BINARY:
    return "bytea[]";
  default:
    return "unknown[]";
  }
}

/* ------------------------------------------------------- list building */

/* A LIST result under construction: per row its items, as indices into
 * one source array (-1: a NULL item), or NULL. */
typedef struct lbuild {
  int64_t n, row;
  lm_buffer *off, *valid;
  int64_t nulls;
  int32_t *idx;
  int64_t m, cap;
  bool oom, big;
} lbuild;

static int lb_init(lbuild *b, int64_t n, int64_t items_hint) {
  memset(b, 0, sizeof *b);
  b->n = n;
  b->off = lm_buffer_new((size_t)(n + 1) * sizeof(int32_t));
  b->valid = lm_buffer_new((size_t)(n + 7) / 8);
  b->cap = items_hint > 16 ? items_hint : 16;
  b->idx = malloc(sizeof *b->idx * (size_t)b->cap);
  if (!b->off || !b->valid || !b->idx) {
    lm_buffer_release(b->off);
    lm_buffer_release(b->valid);
    free(b->idx);
    return LM_ERR_NOMEM;
  }
  if (n > 0)
    memset(b->valid->data, 0xff, (size_t)(n + 7) / 8);
  return 0;
}

static void lb_free(lbuild *b) {
  lm_buffer_release(b->off);
  lm_buffer_release(b->valid);
  free(b->idx);
  memset(b, 0, sizeof *b);
}

static inline void lb_item(lbuild *b, int64_t k) {
  if (b->m == b->cap) {
    if (b->cap > INT32_MAX / 2) {
      b->big = true;
      return;
    }
    int32_t *p = realloc(b->idx, sizeof *p * (size_t)b->cap * 2);
    if (!p) {
      b->oom = true;
      return;
    }
    b->idx = p;
    b->cap *= 2;
  }
  b->idx[b->m++] = (int32_t)k;
}

/* Ends row b->row: NULL when null (its items, if any, are dropped). */
static inline void lb_row(lbuild *b, bool null) {
  int32_t *off = (int32_t *)b->off->data;
  if (null) {
    lm_bit_clear(b->valid->data, b->row);
    b->nulls++;
    b->m = off[b->row];
  }
  off[++b->row] = (int32_t)b->m;
}

/* The finished LIST of type t whose items are src's rows b->idx; b is
 * freed. */
static int lb_finish(lbuild *b, const lm_bexpr *e, lm_type t,
                     const lm_array *src, lm_array **out, lm_error *err) {
  if (b->oom || b->big) {
    bool big = b->big;
    lb_free(b);
    return big ? lm_fn_error(err, e, "54000",
                             "array size exceeds the maximum allowed (%d)",
                             INT32_MAX)
               : lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lm_array *items = lm_array_take_nullable(src, b->idx, b->m);
  if (!items) {
    lb_free(b);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lm_buffer *valid = b->nulls ? b->valid : NULL;
  if (!b->nulls)
    lm_buffer_release(b->valid);
  *out =
      lm_array_new(t, b->n, b->nulls, 0, valid, b->off, NULL, 1, &items, NULL);
  free(b->idx);
  memset(b, 0, sizeof *b);
  return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
}

/* One array of the item rows of the arrays a[0..k) (all of one item
 * type): *base[j] is where a[j]'s items start in it. NULL on OOM. */
static lm_array *join_items(lm_array *const *a, int k, int64_t *base,
                            lm_error *err) {
  lm_array *parts[4];
  int64_t at = 0;
  for (int j = 0; j < k; j++) {
    parts[j] = is_list(a[j]->type) ? a[j]->children[0] : a[j];
    base[j] = at;
    at += parts[j]->length;
  }
  if (at > INT32_MAX) {
    lm_err(err, LM_ERR_LIMIT, "array items beyond 2^31 - 1");
    lm_err_state(err, "54000");
    return NULL;
  }
  return lm_array_concat(parts, k, err);
}

/* Whether item x of a and item y of b are not distinct (both NULL or
 * equal). */
static inline bool same(const lm_array *a, int64_t x, const lm_array *b,
                        int64_t y) {
  bool nx = nul(a, x), ny = nul(b, y);
  if (nx || ny)
    return nx && ny;
  return lm_array_cmp(a, x, b, y) == 0;
}

/* Whether bound expression x reads nothing of a row (a constant). */
static bool is_const(const lm_bexpr *x) {
  if (x->kind == LM_BX_COLUMN || x->kind == LM_BX_PARAM ||
      x->kind == LM_BX_SUBQUERY)
    return false;
  if (x->kind == LM_BX_FUNC &&
      (x->fn == LM_FN_RANDOM || x->fn == LM_FN_CLOCK_TIMESTAMP ||
       x->fn == LM_FN_SETSEED || x->fn == LM_FN_GEN_RANDOM_UUID))
    return false;
  for (int i = 0; i < x->n_args; i++)
    if (x->args[i] && !is_const(x->args[i]))
      return false;
  return true;
}

/* x evaluated once (1 row) when constant, else over every row of in;
 * *one tells which. */
static int eval_maybe_once(const lm_bexpr *x, const lm_batch *in,
                           lm_array **out, bool *one, lm_error *err) {
  *one = in->num_rows > 1 && is_const(x);
  if (!*one)
    return lm_eval(x, in, out, err);
  lm_schema *s = lm_schema_new(0);
  lm_batch *b = s ? lm_batch_new(s, 1, NULL) : NULL;
  if (!b)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int rc = lm_eval(x, b, out, err);
  lm_batch_release(b);
  return rc;
}

/* ---------------------------------------------------------------- casts */

bool lm_array_cast_handles(lm_type from, lm_type to) {
  return (is_list(to) && (from.id == LM_TYPE_UTF8 || is_list(from))) ||
         (is_list(from) && to.id == LM_TYPE_UTF8);
}

static int to_text(lm_array *a, lm_type to, lm_array **out, lm_error *err) {
  lm_builder b;
  if (lm_builder_init(&b, to, a->length))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_buf t;
  lm_buf_init(&t);
  for (int64_t i = 0; i < a->length; i++) {
    if (nul(a, i)) {
      lm_builder_append_null(&b);
      continue;
    }
    lm_buf_reset(&t);
    if (lm_list_format_pg(&t, a, i) || t.len > INT32_MAX) {
      b.oom = true;
      break;
    }
    lm_builder_append_str(&b, t.data ? t.data : "", (int32_t)t.len);
  }
  lm_buf_free(&t);
  return lm_out_finish(&b, out, err);
}

/* a LIST's rows over new items (same offsets and validity) */
static int relist(lm_array *a, lm_type to, lm_array *items, lm_array **out,
                  lm_error *err) {
  *out = lm_array_new(to, a->length, a->null_count, a->offset,
                      a->validity ? lm_buffer_retain(a->validity) : NULL,
                      lm_buffer_retain(a->values), NULL, 1, &items, NULL);
  return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
}

int lm_array_cast(const lm_bexpr *e, lm_array *a, lm_type to, lm_array **out,
                  lm_error *err) {
  if (to.id == LM_TYPE_UTF8)
    return to_text(a, to, out, err);
  lm_type it = to.node->children[0].type;
  if (is_list(a->type)) {
    if (a->type.id != LM_TYPE_LIST)
      return lm_fn_error(err, e, "0A000",
                         "LARGE_LIST arrays are not supported");
    lm_array *items = NULL;
    int rc = lm_cast_items(e, a->children[0], it, &items, err);
    return rc ? rc : relist(a, to, items, out, err);
  }
  /* text: PostgreSQL's array_in, the items then cast from their text */
  lbuild lb;
  lm_builder ib;
  if (lb_init(&lb, a->length, a->length))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (lm_builder_init(&ib, lm_type_make(LM_TYPE_UTF8), a->length)) {
    lb_free(&lb);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  int rc = 0;
  for (int64_t i = 0; i < a->length && !rc; i++) {
    if (nul(a, i)) {
      lb_row(&lb, true);
      continue;
    }
    int32_t len;
    const char *p = lm_array_str(a, i, &len);
    char msg[600];
    const char *state = "22P02";
    int64_t k0 = ib.length;
    int64_t k = lm_list_parse_pg(p, (size_t)len, &ib, msg, sizeof msg, &state);
    if (k < 0) {
      char *nl = strchr(msg, '\n');
      if (nl)
        *nl = 0;
      rc = lm_fn_error(err, e, state, "%s", msg);
      if (nl)
        lm_err_detail(err, "%s", nl + 1);
      break;
    }
    for (int64_t j = k0; j < ib.length; j++)
      lb_item(&lb, j);
    lb_row(&lb, false);
  }
  lm_array *txt = NULL, *items = NULL;
  if (!rc && (rc = lm_builder_finish(&ib, &txt)))
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_builder_free(&ib);
  if (!rc)
    rc = lm_cast_items(e, txt, it, &items, err);
  lm_array_release(txt);
  if (rc) {
    lb_free(&lb);
    return rc;
  }
  /* the items are already in order: lb's indices are 0..m */
  rc = lb_finish(&lb, e, to, items, out, err);
  lm_array_release(items);
  return rc;
}

/* ------------------------------------------------------------ functions */

static int ctor(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                lm_error *err) {
  int64_t n = in->num_rows;
  int k = e->n_args;
  lm_type it = e->type.node->children[0].type;
  lm_array **a = NULL, *src = NULL;
  int rc;
  if (k == 0) {
    src = lm_array_new_null(it, 0);
    if (!src)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
  } else {
    if ((rc = lm_fargs_eval(e, in, &a, err)))
      return rc;
    src = lm_array_concat(a, k, err);
    lm_fargs_free(a, k);
    if (!src)
      return err->code ? err->code : lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lbuild b;
  if (lb_init(&b, n, n * k)) {
    lm_array_release(src);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int64_t i = 0; i < n; i++) {
    for (int j = 0; j < k; j++)
      lb_item(&b, (int64_t)j * n + i);
    lb_row(&b, false);
  }
  rc = lb_finish(&b, e, e->type, src, out, err);
  lm_array_release(src);
  return rc;
}

static int cmp_i64s(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

/* Integers of any width, or both of one DATE / TIMESTAMP type. */
static bool set_types(lm_type x, lm_type c) {
  if (lm_type_is_integer(x) && lm_type_is_integer(c))
    return x.id != LM_TYPE_UINT64 && c.id != LM_TYPE_UINT64;
  return (x.id == LM_TYPE_DATE32 || x.id == LM_TYPE_TIMESTAMP) &&
         lm_type_eq(x, c);
}

/* x = ANY (arr) / x <> ALL (arr) of one constant array arr (row 0 of a,
 * not NULL, items c[s, t)) of integers, dates or timestamps: a sorted set
 * of its items, each row one binary search (expr_inset.c does so for IN
 * lists). 0 done (*out), -1 not this case, else an error code. */
static int any_set(const lm_bexpr *e, const lm_array *x, const lm_array *c,
                   int64_t s, int64_t t, int64_t n, bool all, lm_array **out,
                   lm_error *err) {
  if (t - s < 16 || (all ? e->op != LM_OP_NE : e->op != LM_OP_EQ) ||
      x->type.id == LM_TYPE_NULL || !set_types(x->type, c->type))
    return -1;
  int64_t *v = malloc(sizeof *v * (size_t)(t - s)), m = 0;
  if (!v)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  bool unknown = false;
  for (int64_t k = s; k < t; k++) {
    if (nul(c, k))
      unknown = true;
    else
      v[m++] = lm_array_get_i64(c, k);
  }
  qsort(v, (size_t)m, sizeof *v, cmp_i64s);
  lm_builder b;
  if (lm_out_fixed(&b, lm_type_make(LM_TYPE_BOOL), n)) {
    free(v);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int64_t i = 0; i < n; i++) {
    if (nul(x, i)) {
      lm_out_null(&b, i);
      continue;
    }
    int64_t y = lm_array_get_i64(x, i), lo = 0, hi = m;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (v[mid] < y)
        lo = mid + 1;
      else
        hi = mid;
    }
    bool hit = lo < m && v[lo] == y; /* x equals an item */
    if (hit) {
      if (!all) /* = ANY: true; <> ALL: false */
        lm_bit_set(b.values, i);
    } else if (unknown) /* a NULL item: unknown either way */
      lm_out_null(&b, i);
    else if (all)
      lm_bit_set(b.values, i);
  }
  free(v);
  return lm_out_finish(&b, out, err);
}

/* x op ANY|ALL (arr), PostgreSQL's NULL rules; a constant array is
 * evaluated once. */
static int any_all(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                   lm_error *err) {
  int64_t n = in->num_rows;
  lm_array *x = NULL, *a = NULL;
  bool one;
  int rc = lm_eval(e->args[0], in, &x, err);
  if (rc || (rc = eval_maybe_once(e->args[1], in, &a, &one, err))) {
    lm_array_release(x);
    return rc;
  }
  bool all = e->negated;
  const lm_array *c = a->type.id == LM_TYPE_NULL ? NULL : a->children[0];
  if (one && c && !nul(a, 0)) { /* a long constant list: a sorted set */
    int64_t s0, t0;
    lm_array_list_range(a, 0, &s0, &t0);
    rc = any_set(e, x, c, s0, t0, n, all, out, err);
    if (rc != -1) {
      lm_array_release(x);
      lm_array_release(a);
      return rc;
    }
  }
  lm_builder b;
  if (lm_out_fixed(&b, lm_type_make(LM_TYPE_BOOL), n)) {
    lm_array_release(x);
    lm_array_release(a);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t ai = one ? 0 : i;
    if (!c || nul(a, ai)) {
      lm_out_null(&b, i);
      continue;
    }
    int64_t s, t;
    lm_array_list_range(a, ai, &s, &t);
    if (s == t) { /* empty: ANY false, ALL true */
      if (all)
        lm_bit_set(b.values, i);
      continue;
    }
    if (nul(x, i)) {
      lm_out_null(&b, i);
      continue;
    }
    bool hit = false, unknown = false;
    for (int64_t k = s; k < t; k++) {
      if (nul(c, k)) {
        unknown = true;
        continue;
      }
      bool r = lm_cmp_holds(e->op, lm_array_cmp(x, i, c, k));
      if (r != all) {
        hit = true;
        break;
      }
    }
    if (hit)
      (void)(all ? 0 : (lm_bit_set(b.values, i), 0));
    else if (unknown)
      lm_out_null(&b, i);
    else if (all)
      lm_bit_set(b.values, i);
  }
  lm_array_release(x);
  lm_array_release(a);
  return lm_out_finish(&b, out, err);
}

/* The predicate of x [NOT] [I]LIKE / ~ / ~* / !~ / !~* ANY|ALL (a)
 * (LM_FN_ARR_ANY_MATCH) as a node over a batch of two text columns: 0 the
 * subject, 1 the pattern. pa: its two argument slots. */
static void match_pred(const lm_bexpr *e, lm_bexpr *pred, lm_bexpr *cols,
                       lm_bexpr **pa) {
  memset(pred, 0, sizeof *pred);
  memset(cols, 0, 2 * sizeof *cols);
  for (int k = 0; k < 2; k++) {
    cols[k].kind = LM_BX_COLUMN;
    cols[k].type = lm_type_make(LM_TYPE_UTF8);
    cols[k].col = k;
    pa[k] = &cols[k];
  }
  cols[0].type = e->args[0]->type;
  pred->type = lm_type_make(LM_TYPE_BOOL);
  pred->line = e->line;
  pred->column = e->column;
  pred->args = pa;
  pred->n_args = 2;
  if (e->op == LM_OP_EQ || e->op == LM_OP_NE) {
    pred->kind = LM_BX_LIKE;
    pred->negated = e->op == LM_OP_NE;
    pred->icase = e->icase;
  } else {
    pred->kind = LM_BX_FUNC;
    pred->fn = LM_FN_REGEX_OP;
    pred->icase = e->op == LM_OP_REGEX_I || e->op == LM_OP_NOT_REGEX_I;
    pred->negated = e->op == LM_OP_NOT_REGEX || e->op == LM_OP_NOT_REGEX_I;
  }
}

/* Folds item result r[k] (NULL: unknown) into row state: *hit when it
 * decides the row (ANY: true, ALL: false), *unknown for a NULL. */
static void match_fold(const lm_array *r, int64_t k, bool all, bool *hit,
                       bool *unknown) {
  if (nul(r, k))
    *unknown = true;
  else if (lm_array_bool(r, k) != all)
    *hit = true;
}

/* x LIKE ANY (a) and its kin: the predicate over every (x, item) pair,
 * folded with PostgreSQL's ANY / ALL rules (empty: ANY false, ALL true;
 * else a deciding item, else NULL when one is NULL). A constant array is
 * matched pattern by pattern over the whole batch (a regex compiles once
 * per pattern); otherwise the pairs are gathered into one batch. */
static int any_match(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                     lm_error *err) {
  int64_t n = in->num_rows;
  lm_array *x = NULL, *a = NULL;
  bool one;
  int rc = lm_eval(e->args[0], in, &x, err);
  if (rc || (rc = eval_maybe_once(e->args[1], in, &a, &one, err))) {
    lm_array_release(x);
    return rc;
  }
  bool all = e->negated;
  const lm_array *c = a->type.id == LM_TYPE_NULL ? NULL : a->children[0];
  lm_bexpr pred, cols[2], *pa[2];
  match_pred(e, &pred, cols, pa);
  /* per row: 0 undecided, 1 hit, 2 unknown (bit) */
  uint8_t *st = calloc((size_t)(n > 0 ? n : 1), 1);
  int32_t *ix = NULL, *ic = NULL;
  lm_array *cols_v[2] = {NULL, NULL}, *r = NULL;
  if (!st) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  if (one && c && !nul(a, 0)) {
    int64_t s0, t0;
    lm_array_list_range(a, 0, &s0, &t0);
    if (!(ic = malloc(sizeof *ic * (size_t)(n > 0 ? n : 1)))) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
    for (int64_t k = s0; k < t0 && !rc; k++) {
      for (int64_t i = 0; i < n; i++)
        ic[i] = (int32_t)k;
      lm_array_release(cols_v[1]);
      lm_array_release(r);
      r = NULL;
      if (!(cols_v[1] = lm_array_take_nullable(c, ic, n))) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        break;
      }
      cols_v[0] = x;
      lm_batch tb = {1, in->schema, n, 2, cols_v};
      if ((rc = lm_eval(&pred, &tb, &r, err)))
        break;
      for (int64_t i = 0; i < n; i++) {
        bool hit = false, unk = false;
        match_fold(r, i, all, &hit, &unk);
        st[i] |= (uint8_t)((hit ? 1 : 0) | (unk ? 2 : 0));
      }
    }
    cols_v[0] = NULL;
  } else if (c && !one) {
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
      int64_t s, t;
      if (!nul(a, i) && !nul(x, i)) {
        lm_array_list_range(a, i, &s, &t);
        m += t - s;
      }
    }
    if (m > INT32_MAX) {
      rc = lm_fn_error(err, e, "54000", "array items beyond 2^31 - 1");
      goto done;
    }
    ix = malloc(sizeof *ix * (size_t)(m > 0 ? m : 1));
    ic = malloc(sizeof *ic * (size_t)(m > 0 ? m : 1));
    if (!ix || !ic) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
    int64_t q = 0;
    for (int64_t i = 0; i < n; i++) {
      int64_t s, t;
      if (nul(a, i) || nul(x, i))
        continue;
      lm_array_list_range(a, i, &s, &t);
      for (int64_t k = s; k < t; k++, q++)
        ix[q] = (int32_t)i, ic[q] = (int32_t)k;
    }
    if (!(cols_v[0] = lm_array_take_nullable(x, ix, m)) ||
        !(cols_v[1] = lm_array_take_nullable(c, ic, m))) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      goto done;
    }
    lm_batch tb = {1, in->schema, m, 2, cols_v};
    if ((rc = lm_eval(&pred, &tb, &r, err)))
      goto done;
    for (int64_t k = 0; k < m; k++) {
      bool hit = false, unk = false;
      match_fold(r, k, all, &hit, &unk);
      st[ix[k]] |= (uint8_t)((hit ? 1 : 0) | (unk ? 2 : 0));
    }
  }
  lm_builder b;
  if (lm_out_fixed(&b, lm_type_make(LM_TYPE_BOOL), n)) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t ai = one ? 0 : i, s, t;
    if (!c || nul(a, ai)) {
      lm_out_null(&b, i);
      continue;
    }
    lm_array_list_range(a, ai, &s, &t);
    if (s == t) { /* empty: ANY false, ALL true */
      if (all)
        lm_bit_set(b.values, i);
    } else if (nul(x, i)) {
      lm_out_null(&b, i);
    } else if (st[i] & 1) {
      if (!all)
        lm_bit_set(b.values, i);
    } else if (st[i] & 2) {
      lm_out_null(&b, i);
    } else if (all) {
      lm_bit_set(b.values, i);
    }
  }
  rc = lm_out_finish(&b, out, err);
done:
  free(st);
  free(ix);
  free(ic);
  lm_array_release(cols_v[0]);
  lm_array_release(cols_v[1]);
  lm_array_release(r);
  lm_array_release(x);
  lm_array_release(a);
  return rc;
}

/* The functions with a fixed-width or text result over array args[0]. */
static int scalar_fn(const lm_bexpr *e, lm_array **a, int64_t n, lm_array **out,
                     lm_error *err) {
  lm_builder b;
  if (lm_builder_init(&b, e->type, n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_buf t;
  lm_buf_init(&t);
  int rc = 0;
  const lm_array *c = a[0]->type.id == LM_TYPE_NULL ? NULL : a[0]->children[0];
  for (int64_t i = 0; i < n && !rc; i++) {
    if (!c || nul(a[0], i)) {
      lm_builder_append_null(&b);
      continue;
    }
    int64_t s, f;
    lm_array_list_range(a[0], i, &s, &f);
    int64_t len = f - s;
    switch (e->fn) {
    case LM_FN_ARR_LENGTH:
    case LM_FN_ARR_LOWER:
      if (nul(a[1], i) || lm_array_get_i64(a[1], i) != 1 || len == 0)
        lm_builder_append_null(&b);
      else
        lm_builder_append_int(&b, e->fn == LM_FN_ARR_LOWER ? 1 : len);
      break;
    case LM_FN_ARR_CARDINALITY:
      lm_builder_append_int(&b, len);
      break;
    case LM_FN_ARR_NDIMS:
      if (len == 0)
        lm_builder_append_null(&b);
      else
        lm_builder_append_int(&b, 1);
      break;
    case LM_FN_ARR_DIMS: {
      if (len == 0) {
        lm_builder_append_null(&b);
        break;
      }
      char d[40];
      int k = snprintf(d, sizeof d, "[1:%lld]", (long long)len);
      lm_builder_append_str(&b, d, k);
      break;
    }
    case LM_FN_ARR_POSITION: {
      int64_t from = s;
      if (e->n_args > 2) {
        if (nul(a[2], i)) {
          rc =
              lm_fn_error(err, e, "22004", "initial position must not be null");
          break;
        }
        int64_t st = lm_array_get_i64(a[2], i);
        from = st < 1 ? s : st - 1 > len ? f : s + st - 1;
      }
      int64_t at = -1;
      for (int64_t k = from; k < f && at < 0; k++)
        if (same(c, k, a[1], i))
          at = k - s + 1;
      if (at < 0)
        lm_builder_append_null(&b);
      else
        lm_builder_append_int(&b, at);
      break;
    }
    case LM_FN_ARR_TO_STRING: {
      if (nul(a[1], i)) {
        lm_builder_append_null(&b);
        break;
      }
      int32_t sl, nl = 0;
      const char *sep = lm_array_str(a[1], i, &sl), *ns = NULL;
      if (e->n_args > 2 && !nul(a[2], i))
        ns = lm_array_str(a[2], i, &nl);
      lm_buf_reset(&t);
      bool first = true;
      for (int64_t k = s; k < f; k++) {
        bool isn = nul(c, k);
        if (isn && !ns)
          continue;
        if (!first)
          lm_buf_append(&t, sep, (size_t)sl);
        first = false;
        if (isn)
          lm_buf_append(&t, ns, (size_t)nl);
        else if (lm_list_item_text(&t, c, k))
          b.oom = true;
      }
      if (t.len > INT32_MAX)
        b.oom = true;
      else
        lm_builder_append_str(&b, t.data ? t.data : "", (int32_t)t.len);
      break;
    }
    default:
      rc = lm_fn_error(err, e, "XX000", "unknown array function");
    }
  }
  lm_buf_free(&t);
  if (rc) {
    lm_builder_free(&b);
    return rc;
  }
  return lm_out_finish(&b, out, err);
}

/* The functions with an array result. */
static int list_fn(const lm_bexpr *e, lm_array **a, int64_t n, lm_array **out,
                   lm_error *err) {
  int64_t base[4] = {0, 0, 0, 0};
  lm_type it = e->type.node->children[0].type;
  /* the arguments whose items (or values) the result holds */
  int from[3] = {0, 1, 2}, nsrc = 2;
  if (e->fn == LM_FN_ARR_REPLACE)
    from[1] = 2;
  else if (e->fn != LM_FN_ARR_APPEND && e->fn != LM_FN_ARR_PREPEND &&
           e->fn != LM_FN_ARR_CAT)
    nsrc = 1;
  lm_array *src = NULL;
  if (e->fn == LM_FN_ARR_POSITIONS) {
    src = lm_array_new_null(it, 0); /* positions come from a builder */
  } else {
    lm_array *parts[3];
    int64_t pb[3];
    for (int j = 0; j < nsrc; j++)
      parts[j] = a[from[j]];
    src = join_items(parts, nsrc, pb, err);
    for (int j = 0; j < nsrc; j++)
      base[from[j]] = pb[j];
  }
  if (!src)
    return err->code ? err->code : lm_err(err, LM_ERR_NOMEM, "out of memory");
  lbuild b;
  if (lb_init(&b, n,
              a[0]->type.id == LM_TYPE_NULL ? n
              : is_list(a[0]->type)         ? a[0]->children[0]->length + n
                                            : n)) {
    lm_array_release(src);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lm_builder pos; /* array_positions' items */
  bool use_pos = e->fn == LM_FN_ARR_POSITIONS;
  if (use_pos && lm_builder_init(&pos, it, n)) {
    lb_free(&b);
    lm_array_release(src);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  int rc = 0;
  const lm_array *c0 = is_list(a[0]->type) ? a[0]->children[0] : NULL;
  for (int64_t i = 0; i < n && !rc; i++) {
    int64_t s = 0, f = 0, s1 = 0, f1 = 0;
    bool n0 = nul(a[0], i);
    if (is_list(a[0]->type) && !n0)
      lm_array_list_range(a[0], i, &s, &f);
    switch (e->fn) {
    case LM_FN_ARR_APPEND: /* (a, x): a NULL array is empty */
      for (int64_t q = s; q < f; q++)
        lb_item(&b, base[0] + q);
      lb_item(&b, nul(a[1], i) ? -1 : base[1] + i);
      lb_row(&b, false);
      break;
    case LM_FN_ARR_PREPEND: { /* (x, a) */
      bool n1 = nul(a[1], i);
      if (!n1)
        lm_array_list_range(a[1], i, &s1, &f1);
      lb_item(&b, n0 ? -1 : base[0] + i);
      for (int64_t q = s1; q < f1; q++)
        lb_item(&b, base[1] + q);
      lb_row(&b, false);
      break;
    }
    case LM_FN_ARR_CAT: {
      bool n1 = nul(a[1], i);
      if (!n1)
        lm_array_list_range(a[1], i, &s1, &f1);
      for (int64_t q = s; q < f; q++)
        lb_item(&b, base[0] + q);
      for (int64_t q = s1; q < f1; q++)
        lb_item(&b, base[1] + q);
      lb_row(&b, n0 && n1);
      break;
    }
    case LM_FN_ARR_REMOVE:
    case LM_FN_ARR_REPLACE:
      for (int64_t q = s; q < f; q++) {
        bool eq = same(c0, q, a[1], i);
        if (!eq)
          lb_item(&b, base[0] + q);
        else if (e->fn == LM_FN_ARR_REPLACE)
          lb_item(&b, nul(a[2], i) ? -1 : base[2] + i);
      }
      lb_row(&b, n0);
      break;
    case LM_FN_ARR_SUBSCRIPT:
      break;
    case LM_FN_ARR_SLICE: {
      bool omit_lo = e->tlen & 1, omit_hi = e->tlen & 2;
      if (n0 || (!omit_lo && nul(a[1], i)) || (!omit_hi && nul(a[2], i))) {
        lb_row(&b, true);
        break;
      }
      int64_t lo = omit_lo ? 1 : lm_array_get_i64(a[1], i),
              hi = omit_hi ? f - s : lm_array_get_i64(a[2], i);
      if (lo < 1)
        lo = 1;
      if (hi > f - s)
        hi = f - s;
      for (int64_t q = lo; q <= hi; q++)
        lb_item(&b, base[0] + s + q - 1);
      lb_row(&b, false);
      break;
    }
    case LM_FN_ARR_TRIM: {
      if (n0 || nul(a[1], i)) {
        lb_row(&b, true);
        break;
      }
      int64_t drop = lm_array_get_i64(a[1], i);
      if (drop < 0 || drop > f - s) {
        rc = lm_fn_error(err, e, "2202E",
                         "number of elements to trim must be between 0 and "
                         "%lld",
                         (long long)(f - s));
        break;
      }
      for (int64_t q = s; q < f - drop; q++)
        lb_item(&b, base[0] + q);
      lb_row(&b, false);
      break;
    }
    case LM_FN_ARR_POSITIONS:
      if (!n0)
        for (int64_t q = s; q < f; q++)
          if (same(c0, q, a[1], i)) {
            lb_item(&b, pos.length);
            lm_builder_append_int(&pos, q - s + 1);
          }
      lb_row(&b, n0);
      break;
    default:
      rc = lm_fn_error(err, e, "XX000", "unknown array function");
    }
  }
  if (use_pos) {
    lm_array_release(src);
    src = NULL;
    if (!rc && lm_builder_finish(&pos, &src))
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    lm_builder_free(&pos);
  }
  if (rc) {
    lb_free(&b);
    lm_array_release(src);
    return rc;
  }
  rc = lb_finish(&b, e, e->type, src, out, err);
  lm_array_release(src);
  return rc;
}

/* a[i]: the item, NULL out of range */
static int subscript(const lm_bexpr *e, lm_array **a, int64_t n, lm_array **out,
                     lm_error *err) {
  if (a[0]->type.id == LM_TYPE_NULL) {
    *out = lm_array_new_null(e->type, n);
    return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  int32_t *idx = malloc(sizeof *idx * (size_t)(n ? n : 1));
  if (!idx)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int64_t i = 0; i < n; i++) {
    idx[i] = -1;
    if (nul(a[0], i) || nul(a[1], i))
      continue;
    int64_t s, f, k = lm_array_get_i64(a[1], i);
    lm_array_list_range(a[0], i, &s, &f);
    if (k >= 1 && k <= f - s)
      idx[i] = (int32_t)(s + k - 1);
  }
  *out = lm_array_take_nullable(a[0]->children[0], idx, n);
  free(idx);
  return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
}

/* string_to_array(s, sep[, null]) */
static int split(const lm_bexpr *e, lm_array **a, int64_t n, lm_array **out,
                 lm_error *err) {
  lbuild b;
  lm_builder ib;
  if (lb_init(&b, n, n * 2))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  if (lm_builder_init(&ib, lm_type_make(LM_TYPE_UTF8), n * 2)) {
    lb_free(&b);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int64_t i = 0; i < n; i++) {
    if (nul(a[0], i)) {
      lb_row(&b, true);
      continue;
    }
    int32_t sl, dl = 0, nl = 0;
    const char *s = lm_array_str(a[0], i, &sl), *d = NULL, *ns = NULL;
    if (!nul(a[1], i))
      d = lm_array_str(a[1], i, &dl);
    if (e->n_args > 2 && !nul(a[2], i))
      ns = lm_array_str(a[2], i, &nl);
    int32_t p = 0;
    while (p < sl || (p == 0 && sl > 0)) {
      int32_t q, next;
      if (!d) { /* NULL delimiter: each character */
        q = p + 1;
        while (q < sl && ((unsigned char)s[q] & 0xc0) == 0x80)
          q++;
        next = q;
      } else if (dl == 0) { /* '' : the whole string */
        q = sl;
        next = sl;
      } else {
        const char *hit = NULL;
        for (int32_t j = p; j + dl <= sl && !hit; j++)
          if (!memcmp(s + j, d, (size_t)dl))
            hit = s + j;
        q = hit ? (int32_t)(hit - s) : sl;
        next = hit ? q + dl : sl + 1;
      }
      if (ns && q - p == nl && !memcmp(s + p, ns, (size_t)nl))
        lm_builder_append_null(&ib);
      else
        lm_builder_append_str(&ib, s + p, q - p);
      lb_item(&b, ib.length - 1);
      if (next > sl) /* after the last delimiter-free piece */
        break;
      p = next;
      if (p == sl && d && dl > 0) { /* a trailing delimiter: one more '' */
        if (ns && nl == 0)
          lm_builder_append_null(&ib);
        else
          lm_builder_append_str(&ib, "", 0);
        lb_item(&b, ib.length - 1);
        break;
      }
    }
    lb_row(&b, false);
  }
  lm_array *items = NULL;
  int rc = lm_builder_finish(&ib, &items);
  lm_builder_free(&ib);
  if (rc) {
    lb_free(&b);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  rc = lb_finish(&b, e, e->type, items, out, err);
  lm_array_release(items);
  return rc;
}

/* a op b, a @> b, a && b */
static int pair_fn(const lm_bexpr *e, lm_array **a, int64_t n, lm_array **out,
                   lm_error *err) {
  lm_builder b;
  if (lm_out_fixed(&b, lm_type_make(LM_TYPE_BOOL), n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int64_t i = 0; i < n; i++) {
    if (nul(a[0], i) || nul(a[1], i)) {
      lm_out_null(&b, i);
      continue;
    }
    bool r;
    if (e->fn == LM_FN_ARR_CMP) {
      r = lm_cmp_holds(e->op, lm_array_cmp(a[0], i, a[1], i));
    } else {
      int64_t s0, f0, s1, f1;
      lm_array_list_range(a[0], i, &s0, &f0);
      lm_array_list_range(a[1], i, &s1, &f1);
      const lm_array *c0 = a[0]->children[0], *c1 = a[1]->children[0];
      bool contains = e->fn == LM_FN_ARR_CONTAINS;
      r = contains;
      for (int64_t q = s1; q < f1; q++) {
        bool found = false;
        if (!nul(c1, q))
          for (int64_t p = s0; p < f0 && !found; p++)
            found = !nul(c0, p) && lm_array_cmp(c0, p, c1, q) == 0;
        if (contains && !found) {
          r = false;
          break;
        }
        if (!contains && found) {
          r = true;
          break;
        }
      }
    }
    if (r)
      lm_bit_set(b.values, i);
  }
  return lm_out_finish(&b, out, err);
}

/* array_agg's items: x as array_out writes it, NULL as NULL */
static int item_text(const lm_bexpr *e, lm_array **a, int64_t n, lm_array **out,
                     lm_error *err) {
  lm_builder b;
  if (lm_builder_init(&b, e->type, n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_buf t, q;
  lm_buf_init(&t);
  lm_buf_init(&q);
  for (int64_t i = 0; i < n; i++) {
    if (nul(a[0], i)) {
      lm_builder_append_str(&b, "NULL", 4);
      continue;
    }
    lm_buf_reset(&t);
    lm_buf_reset(&q);
    if (lm_list_item_text(&t, a[0], i) ||
        lm_list_put_item(&q, t.data ? t.data : "", t.len) || q.len > INT32_MAX)
      b.oom = true;
    else
      lm_builder_append_str(&b, q.data ? q.data : "", (int32_t)q.len);
  }
  lm_buf_free(&t);
  lm_buf_free(&q);
  return lm_out_finish(&b, out, err);
}

int lm_arrayfn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                    lm_error *err) {
  if (e->fn == LM_FN_ARR_CTOR)
    return ctor(e, in, out, err);
  if (e->fn == LM_FN_ARR_ANY)
    return any_all(e, in, out, err);
  if (e->fn == LM_FN_ARR_ANY_MATCH)
    return any_match(e, in, out, err);
  lm_array **a = NULL;
  int rc = lm_fargs_eval(e, in, &a, err);
  if (rc)
    return rc;
  int64_t n = in->num_rows;
  /* a NULL-typed array argument (NULL::int[] folded) reads as NULL rows */
  for (int j = 0; j < e->n_args && !rc; j++) {
    if (a[j]->type.id == LM_TYPE_NULL && is_list(e->args[j]->type)) {
      lm_array *z = lm_array_new_null(e->args[j]->type, n);
      if (!z)
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      lm_array_release(a[j]);
      a[j] = z;
    }
  }
  if (!rc) {
    switch (e->fn) {
    case LM_FN_ARR_SUBSCRIPT:
      rc = subscript(e, a, n, out, err);
      break;
    case LM_FN_ARR_ITEM_TEXT:
      rc = item_text(e, a, n, out, err);
      break;
    case LM_FN_ARR_DKEY:
    case LM_FN_ARR_DKEY_OUT:
      rc = lm_dkey_eval(e, a, n, out, err);
      break;
    case LM_FN_STRING_TO_ARRAY:
      rc = split(e, a, n, out, err);
      break;
    case LM_FN_ARR_CMP:
    case LM_FN_ARR_CONTAINS:
    case LM_FN_ARR_OVERLAP:
      rc = pair_fn(e, a, n, out, err);
      break;
    case LM_FN_ARR_LENGTH:
    case LM_FN_ARR_LOWER:
    case LM_FN_ARR_CARDINALITY:
    case LM_FN_ARR_NDIMS:
    case LM_FN_ARR_DIMS:
    case LM_FN_ARR_POSITION:
    case LM_FN_ARR_TO_STRING:
      rc = scalar_fn(e, a, n, out, err);
      break;
    default:
      rc = list_fn(e, a, n, out, err);
    }
  }
  lm_fargs_free(a, e->n_args);
  return rc;
}
