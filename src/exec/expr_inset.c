/* exec/expr_inset.c — an OR chain of `column = constant` as a sorted set
 * of the constants (expr_inset.h). */
#include "exec/expr_inset.h"
#include "exec/expr_num.h"

#include <stdlib.h>
#include <string.h>

static bool int_like(lm_type_id t) {
  return t == LM_TYPE_INT16 || t == LM_TYPE_INT32 || t == LM_TYPE_INT64 ||
         t == LM_TYPE_TIMESTAMP || t == LM_TYPE_INTERVAL || t == LM_TYPE_DATE32;
}

/* The column and constant of leaf x = `c = k` / `k = c`; false when x is
 * not such a test. */
static bool leaf_parts(const lm_bexpr *x, const lm_bexpr **col,
                       const lm_bexpr **k) {
  if (!x || x->kind != LM_BX_BINARY || x->op != LM_OP_EQ || x->n_args != 2)
    return false;
  const lm_bexpr *a = x->args[0], *b = x->args[1];
  if (a->kind == LM_BX_LITERAL) {
    const lm_bexpr *t = a;
    a = b;
    b = t;
  }
  if (a->kind != LM_BX_COLUMN || b->kind != LM_BX_LITERAL || b->lit.is_null ||
      !lm_type_eq(a->type, b->type))
    return false;
  lm_type_id t = a->type.id;
  if (!(int_like(t) || (t == LM_TYPE_UTF8 && !lm_type_is_bpchar(a->type))))
    return false;
  *col = a;
  *k = b;
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

const lm_inset *lm_inset_build(lm_bexpr *const *leaves, int n, lm_arena *a) {
  if (n < LM_INSET_MIN)
    return NULL;
  const lm_bexpr *c0 = NULL, *k = NULL;
  for (int i = 0; i < n; i++) {
    const lm_bexpr *c;
    if (!leaf_parts(leaves[i], &c, &k) ||
        (c0 && (c->col != c0->col || !lm_type_eq(c->type, c0->type))))
      return NULL;
    c0 = c;
  }
  lm_inset *s = lm_arena_alloc(a, sizeof *s);
  if (!s)
    return NULL;
  memset(s, 0, sizeof *s);
  s->type = c0->type;
  bool str = c0->type.id == LM_TYPE_UTF8;
  if (str)
    s->strs = lm_arena_alloc(a, sizeof *s->strs * (size_t)n);
  else
    s->ints = lm_arena_alloc(a, sizeof *s->ints * (size_t)n);
  if (str ? !s->strs : !s->ints)
    return NULL;
  for (int i = 0; i < n; i++) {
    const lm_bexpr *c;
    leaf_parts(leaves[i], &c, &k);
    if (str) {
      s->strs[i].p = k->lit.v.s.p ? k->lit.v.s.p : "";
      s->strs[i].len = k->lit.v.s.len;
    } else {
      s->ints[i] = k->lit.v.i;
    }
  }
  int64_t m = 0;
  if (str) {
    qsort(s->strs, (size_t)n, sizeof *s->strs, cmp_str);
    for (int i = 0; i < n; i++)
      if (!m || cmp_str(&s->strs[m - 1], &s->strs[i]))
        s->strs[m++] = s->strs[i];
  } else {
    qsort(s->ints, (size_t)n, sizeof *s->ints, cmp_i64);
    for (int i = 0; i < n; i++)
      if (!m || s->ints[m - 1] != s->ints[i])
        s->ints[m++] = s->ints[i];
  }
  s->n = m;
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

int lm_inset_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                  lm_error *err) {
  const lm_inset *s = e->inset;
  /* the column from the first term, not from the set: a plan rewrite that
   * renumbers columns (join_bind.c's remap) updates the tree only */
  const lm_bexpr *l = e, *c, *k;
  while (l->kind == LM_BX_BINARY && l->op == LM_OP_OR && l->n_args == 2)
    l = l->args[0];
  if (!leaf_parts(l, &c, &k) || c->col < 0 || c->col >= in->num_columns)
    return -1;
  const lm_array *x = in->columns[c->col];
  lm_type_id t = x->type.id;
  if (t != LM_TYPE_NULL && (t == LM_TYPE_UTF8) != (s->type.id == LM_TYPE_UTF8))
    return -1;
  int64_t n = in->num_rows;
  lm_builder b;
  if (lm_out_fixed(&b, e->type, n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
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
    } else if (t == LM_TYPE_INT16) {
      hit = has_int(s, lm_array_i16(x)[i]);
    } else if (t == LM_TYPE_INT32 || t == LM_TYPE_DATE32) {
      hit = has_int(s, lm_array_i32(x)[i]);
    } else {
      hit = has_int(s, lm_array_i64(x)[i]);
    }
    if (hit)
      lm_bit_set(b.values, i);
  }
  return lm_out_finish(&b, out, err);
}
