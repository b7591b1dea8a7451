/* exec/expr_inset.c — an OR chain of `column = constant` as a sorted set
 * of the constants (expr_inset.h). */
#include "exec/expr_inset.h"
#include "exec/expr_num.h"

#include "columnar/lm_decimal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool int_like(lm_type_id t) {
  return t == LM_TYPE_INT16 || t == LM_TYPE_INT32 || t == LM_TYPE_INT64 ||
         t == LM_TYPE_TIMESTAMP || t == LM_TYPE_INTERVAL || t == LM_TYPE_DATE32;
}

static bool int_type(lm_type_id t) {
  return t == LM_TYPE_INT16 || t == LM_TYPE_INT32 || t == LM_TYPE_INT64;
}

/* Whether x can stand for the value every term compares: no literal (a
 * constant term is folded), no subquery, no function whose value differs
 * per call (evaluated once per row instead of once per term). */
static bool pure(const lm_bexpr *x, int depth) {
  if (!x || depth > 64 || x->kind == LM_BX_SUBQUERY)
    return false;
  if (x->kind == LM_BX_FUNC &&
      (x->fn == LM_FN_RANDOM || x->fn == LM_FN_SETSEED ||
       x->fn == LM_FN_CLOCK_TIMESTAMP || x->fn == LM_FN_GEN_RANDOM_UUID))
    return false;
  for (int i = 0; i < x->n_args; i++)
    if (x->args[i] && !pure(x->args[i], depth + 1))
      return false;
  return true;
}

static bool same_value(const lm_value *a, const lm_value *b) {
  if (a->is_null || b->is_null)
    return a->is_null == b->is_null;
  if (!lm_type_eq(a->type, b->type))
    return false;
  switch (a->type.id) {
  case LM_TYPE_UTF8:
  case LM_TYPE_BINARY:
    return a->v.s.len == b->v.s.len &&
           (!a->v.s.len || !memcmp(a->v.s.p, b->v.s.p, (size_t)a->v.s.len));
  case LM_TYPE_DECIMAL128:
    return a->v.d128.lo == b->v.d128.lo && a->v.d128.hi == b->v.d128.hi;
  case LM_TYPE_INTERVAL_MDN:
    return a->v.mdn.months == b->v.mdn.months &&
           a->v.mdn.days == b->v.mdn.days && a->v.mdn.ns == b->v.mdn.ns;
  case LM_TYPE_BOOL:
    return a->v.b == b->v.b;
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64:
    return !memcmp(&a->v.f, &b->v.f, sizeof a->v.f);
  default:
    return a->v.i == b->v.i;
  }
}

/* Whether a and b are the same expression (every term's x of an IN list
 * is bound from the same syntax). */
static bool same_tree(const lm_bexpr *a, const lm_bexpr *b, int depth) {
  if (a == b)
    return true;
  if (!a || !b || depth > 64 || a->kind != b->kind ||
      !lm_type_eq(a->type, b->type) || a->n_args != b->n_args ||
      a->op != b->op || a->fn != b->fn || a->negated != b->negated ||
      a->has_else != b->has_else || a->icase != b->icase || a->tz != b->tz ||
      a->tprec != b->tprec || a->tlen != b->tlen || a->tbpchar != b->tbpchar ||
      a->tassign != b->tassign || a->param != b->param || a->sub != b->sub)
    return false;
  if (a->kind == LM_BX_COLUMN && a->col != b->col)
    return false;
  if (a->kind == LM_BX_LITERAL && !same_value(&a->lit, &b->lit))
    return false;
  for (int i = 0; i < a->n_args; i++)
    if (!same_tree(a->args[i], b->args[i], depth + 1))
      return false;
  return true;
}

/* A term: `x = k` / `k = x` (*x, *k set; *k NULL for `x = NULL`), or a NULL
 * constant (*x and *k NULL: `x = NULL` folded); false when it is neither. */
static bool leaf_parts(const lm_bexpr *t, const lm_bexpr **xo,
                       const lm_bexpr **k) {
  *xo = *k = NULL;
  if (t && t->kind == LM_BX_LITERAL && t->lit.is_null &&
      (t->type.id == LM_TYPE_BOOL || t->type.id == LM_TYPE_NULL))
    return true;
  if (!t || t->kind != LM_BX_BINARY || t->op != LM_OP_EQ || t->n_args != 2)
    return false;
  const lm_bexpr *a = t->args[0], *b = t->args[1];
  if (a->kind == LM_BX_LITERAL) {
    const lm_bexpr *s = a;
    a = b;
    b = s;
  }
  if (a->kind == LM_BX_LITERAL || b->kind != LM_BX_LITERAL)
    return false;
  lm_type_id at = a->type.id;
  if (!(int_like(at) || at == LM_TYPE_FLOAT64 || at == LM_TYPE_DECIMAL128 ||
        (at == LM_TYPE_UTF8 && !lm_type_is_bpchar(a->type) &&
         !lm_type_is_jsonb(a->type)))) /* jsonb: '1' = '1.0' */
    return false;
  if (!b->lit.is_null &&
      !(lm_type_eq(a->type, b->type) ||
        (int_type(at) && int_type(b->type.id)) ||
        (at == LM_TYPE_DECIMAL128 && b->type.id == LM_TYPE_DECIMAL128)))
    return false; /* (a DECIMAL of another scale: rescaled, dec_at) */
  if (!b->lit.is_null && b->type.id == LM_TYPE_FLOAT64 && isnan(b->lit.v.f))
    return false; /* NaN = NaN is true in PostgreSQL */
  *xo = a;
  *k = b->lit.is_null ? NULL : b;
  return true;
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

static int cmp_bytes(const char *ap, int32_t al, const char *bp, int32_t bl) {
  int c = memcmp(ap, bp, (size_t)(al < bl ? al : bl));
  return c ? c : (al > bl) - (al < bl);
}

static int cmp_str(const void *x, const void *y) {
  const struct lm_inset_str *a = x, *b = y;
  return cmp_bytes(a->p, a->len, b->p, b->len);
}

static int cmp_f64(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static int cmp_i128(const void *x, const void *y) {
  __int128 a, b;
  memcpy(&a, x, sizeof a);
  memcpy(&b, y, sizeof b);
  return (a > b) - (a < b);
}

/* A DECIMAL128 literal's unscaled value at scale `scale` (*v); false
 * when no value of that scale equals it (1.005 at scale 2, or beyond 38
 * digits): the term can match no row. */
static bool dec_at(const lm_bexpr *k, int scale, __int128 *v) {
  const lm_value *l = &k->lit;
  __int128 x = (__int128)(((unsigned __int128)(uint64_t)l->v.d128.hi << 64) |
                          (uint64_t)l->v.d128.lo);
  const __int128 lim = (__int128)1 << 126;
  if (lm_dec_is_special(x)) { /* NaN, ±Infinity: any scale */
    *v = x;
    return true;
  }
  for (int s = k->type.scale; s < scale; s++) {
    if (x > lim / 10 || x < -lim / 10)
      return false;
    x *= 10;
  }
  for (int s = k->type.scale; s > scale; s--) {
    if (x % 10)
      return false;
    x /= 10;
  }
  *v = x;
  return true;
}

const lm_inset *lm_inset_build(lm_bexpr *const *leaves, int n, lm_arena *a) {
  if (n < LM_INSET_MIN)
    return NULL;
  const lm_bexpr *x0 = NULL, *x, *k;
  bool has_null = false;
  int nk = 0;
  for (int i = 0; i < n; i++) {
    if (!leaf_parts(leaves[i], &x, &k))
      return NULL;
    if (!k) {
      has_null = true;
      if (!x)
        continue;
    }
    if (!x0) {
      if (!pure(x, 0))
        return NULL;
      x0 = x;
    } else if (x->kind == LM_BX_COLUMN
                   ? x0->kind != LM_BX_COLUMN || x->col != x0->col ||
                         !lm_type_eq(x->type, x0->type)
                   : !same_tree(x, x0, 0)) {
      return NULL;
    }
    nk += k != NULL;
  }
  if (!x0)
    return NULL;
  lm_inset *s = lm_arena_alloc(a, sizeof *s);
  if (!s)
    return NULL;
  memset(s, 0, sizeof *s);
  s->type = x0->type;
  s->has_null = has_null;
  lm_type_id t = x0->type.id;
  size_t cnt = (size_t)(nk ? nk : 1);
  if (t == LM_TYPE_UTF8)
    s->strs = lm_arena_alloc(a, sizeof *s->strs * cnt);
  else if (t == LM_TYPE_FLOAT64)
    s->dbls = lm_arena_alloc(a, sizeof *s->dbls * cnt);
  else if (t == LM_TYPE_DECIMAL128)
    s->decs = lm_arena_alloc(a, sizeof *s->decs * cnt);
  else
    s->ints = lm_arena_alloc(a, sizeof *s->ints * cnt);
  if (!s->strs && !s->dbls && !s->ints && !s->decs)
    return NULL;
  int64_t m = 0;
  for (int i = 0; i < n; i++) {
    leaf_parts(leaves[i], &x, &k);
    if (!k)
      continue;
    if (t == LM_TYPE_UTF8) {
      s->strs[m].p = k->lit.v.s.p ? k->lit.v.s.p : "";
      s->strs[m].len = k->lit.v.s.len;
    } else if (t == LM_TYPE_FLOAT64) {
      s->dbls[m] = k->lit.v.f;
    } else if (t == LM_TYPE_DECIMAL128) {
      if (!dec_at(k, x0->type.scale, &s->decs[m]))
        continue; /* equals no value of x's scale */
    } else {
      s->ints[m] = k->lit.v.i;
    }
    m++;
  }
  int64_t u = 0;
  if (t == LM_TYPE_UTF8) {
    qsort(s->strs, (size_t)m, sizeof *s->strs, cmp_str);
    for (int64_t i = 0; i < m; i++)
      if (!u || cmp_str(&s->strs[u - 1], &s->strs[i]))
        s->strs[u++] = s->strs[i];
  } else if (t == LM_TYPE_DECIMAL128) {
    qsort(s->decs, (size_t)m, sizeof *s->decs, cmp_i128);
    for (int64_t i = 0; i < m; i++)
      if (!u || s->decs[u - 1] != s->decs[i])
        s->decs[u++] = s->decs[i];
  } else if (t == LM_TYPE_FLOAT64) {
    qsort(s->dbls, (size_t)m, sizeof *s->dbls, cmp_f64);
    for (int64_t i = 0; i < m; i++)
      if (!u || s->dbls[u - 1] != s->dbls[i])
        s->dbls[u++] = s->dbls[i];
  } else {
    qsort(s->ints, (size_t)m, sizeof *s->ints, cmp_i64);
    for (int64_t i = 0; i < m; i++)
      if (!u || s->ints[u - 1] != s->ints[i])
        s->ints[u++] = s->ints[i];
  }
  s->n = u;
  return s;
}

void lm_inset_attach(lm_bexpr *x, lm_arena *a) {
  if (!x || x->kind != LM_BX_BINARY || x->op != LM_OP_OR)
    return;
  /* the terms in order, with an explicit stack (a chain written with
   * parentheses may be deep) */
  int n = 0, cap = 64, sp = 0, scap = 64;
  lm_bexpr **terms = malloc(sizeof *terms * (size_t)cap);
  lm_bexpr **stack = malloc(sizeof *stack * (size_t)scap);
  bool ok = terms && stack;
  if (ok)
    stack[sp++] = x;
  while (ok && sp > 0) {
    lm_bexpr *y = stack[--sp];
    if (y->kind == LM_BX_BINARY && y->op == LM_OP_OR && y->n_args == 2) {
      if (sp + 2 > scap) {
        lm_bexpr **ns = realloc(stack, sizeof *ns * (size_t)(scap *= 2));
        if (!(ok = ns != NULL))
          break;
        stack = ns;
      }
      stack[sp++] = y->args[1]; /* the left operand is taken first */
      stack[sp++] = y->args[0];
      continue;
    }
    const lm_bexpr *c, *k;
    if (!leaf_parts(y, &c, &k)) { /* not a set: stop early */
      ok = false;
      break;
    }
    if (n == cap) {
      lm_bexpr **nt = realloc(terms, sizeof *nt * (size_t)(cap *= 2));
      if (!(ok = nt != NULL))
        break;
      terms = nt;
    }
    terms[n++] = y;
  }
  if (ok)
    x->inset = lm_inset_build(terms, n, a);
  free(terms);
  free(stack);
}

static bool has_int(const lm_inset *s, int64_t v) {
  int64_t lo = 0, hi = s->n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (s->ints[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < s->n && s->ints[lo] == v;
}

static bool has_str(const lm_inset *s, const char *p, int32_t len) {
  int64_t lo = 0, hi = s->n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (cmp_bytes(s->strs[mid].p, s->strs[mid].len, p, len) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < s->n && !cmp_bytes(s->strs[lo].p, s->strs[lo].len, p, len);
}

static bool has_dec(const lm_inset *s, __int128 v) {
  int64_t lo = 0, hi = s->n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (s->decs[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < s->n && s->decs[lo] == v;
}

static bool has_dbl(const lm_inset *s, double v) {
  int64_t lo = 0, hi = s->n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (s->dbls[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < s->n && s->dbls[lo] == v;
}

/* x of the first term that has one (a NULL constant term has none), found
 * in the tree, not kept in the set: a plan rewrite that renumbers columns
 * (join_bind.c's remap) updates the tree only. */
static const lm_bexpr *term_x(const lm_bexpr *e) {
  const lm_bexpr *l = e, *x, *k;
  while (l->kind == LM_BX_BINARY && l->op == LM_OP_OR && l->n_args == 2)
    l = l->args[0];
  if (!leaf_parts(l, &x, &k))
    return NULL;
  if (x)
    return x;
  /* rare (the first term is NULL): left to right with a stack */
  int sp = 0, cap = 64;
  const lm_bexpr **st = malloc(sizeof *st * (size_t)cap);
  if (!st)
    return NULL;
  st[sp++] = e;
  while (sp > 0 && !x) {
    const lm_bexpr *y = st[--sp];
    if (y->kind == LM_BX_BINARY && y->op == LM_OP_OR && y->n_args == 2) {
      if (sp + 2 > cap) {
        const lm_bexpr **ns = realloc(st, sizeof *ns * (size_t)(cap *= 2));
        if (!ns)
          break;
        st = ns;
      }
      st[sp++] = y->args[1];
      st[sp++] = y->args[0];
    } else if (!leaf_parts(y, &x, &k)) {
      break;
    }
  }
  free(st);
  return x;
}

int lm_inset_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                  lm_error *err) {
  const lm_inset *s = e->inset;
  const lm_bexpr *c = term_x(e);
  if (!c ||
      (c->kind == LM_BX_COLUMN && (c->col < 0 || c->col >= in->num_columns)))
    return -1;
  lm_array *owned = NULL;
  const lm_array *x;
  if (c->kind == LM_BX_COLUMN) {
    x = in->columns[c->col];
  } else { /* an expression (lower(s), a + 1): once per row */
    int rc = lm_eval(c, in, &owned, err);
    if (rc)
      return rc;
    x = owned;
  }
  lm_type_id t = x->type.id;
  bool str = s->type.id == LM_TYPE_UTF8, dbl = s->type.id == LM_TYPE_FLOAT64;
  bool dec = s->type.id == LM_TYPE_DECIMAL128;
  if (t != LM_TYPE_NULL &&
      ((t == LM_TYPE_UTF8) != str || (t == LM_TYPE_FLOAT64) != dbl ||
       (t == LM_TYPE_DECIMAL128) != dec ||
       (dec && !lm_type_eq(x->type, s->type)) ||
       (!str && !dbl && !dec && !int_like(t)))) {
    lm_array_release(owned);
    return -1;
  }
  int64_t n = in->num_rows;
  lm_builder b;
  if (lm_out_fixed(&b, e->type, n)) {
    lm_array_release(owned);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  for (int64_t i = 0; i < n; i++) {
    if (t == LM_TYPE_NULL ||
        (x->validity && !lm_bit_get(x->validity->data, x->offset + i))) {
      lm_out_null(&b, i);
      continue;
    }
    bool hit;
    if (t == LM_TYPE_UTF8) {
      int32_t len;
      const char *p = lm_array_str(x, i, &len);
      hit = has_str(s, p, len);
    } else if (t == LM_TYPE_FLOAT64) {
      hit = has_dbl(s, lm_array_f64(x)[i]);
    } else if (t == LM_TYPE_DECIMAL128) {
      hit = has_dec(s, lm_dec_get(x, i));
    } else if (t == LM_TYPE_INT16) {
      hit = has_int(s, lm_array_i16(x)[i]);
    } else if (t == LM_TYPE_INT32 || t == LM_TYPE_DATE32) {
      hit = has_int(s, lm_array_i32(x)[i]);
    } else {
      hit = has_int(s, lm_array_i64(x)[i]);
    }
    if (hit)
      lm_bit_set(b.values, i);
    else if (s->has_null) /* x = NULL among the terms: unknown */
      lm_out_null(&b, i);
  }
  lm_array_release(owned);
  return lm_out_finish(&b, out, err);
}
