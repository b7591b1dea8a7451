/* Selection kernels: take (gather), filter, project, concatenate. */
#include <math.h>
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
  lm_array **cols = lm_calloc((size_t)nc + 1, sizeof *cols);
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

/* ---------------------------------------- selection-vector predicates */

/* The value class a comparison conjunct is evaluated in by sel_where. */
typedef enum sel_class {
  SEL_NONE,
  SEL_I64,
  SEL_I32,
  SEL_I16,
  SEL_F64,
  SEL_STR /* VARCHAR: bytewise, as the comparison operators */
} sel_class;

static sel_class class_of(lm_type t) {
  switch (t.id) {
  case LM_TYPE_INT64:
  case LM_TYPE_TIMESTAMP:
    return SEL_I64;
  case LM_TYPE_INT32:
  case LM_TYPE_DATE32:
    return SEL_I32;
  case LM_TYPE_INT16:
    return SEL_I16;
  case LM_TYPE_FLOAT64:
    return SEL_F64;
  case LM_TYPE_UTF8: /* jsonb: jsonb_cmp's order, the general path */
    return lm_type_is_jsonb(t) ? SEL_NONE : SEL_STR;
  default:
    return SEL_NONE;
  }
}

/* A column of b read by x (NULL when x is not a column of b with x's
 * type). */
static const lm_array *sel_column(const lm_bexpr *x, const lm_batch *b) {
  if (x->kind != LM_BX_COLUMN || x->col < 0 || x->col >= b->num_columns)
    return NULL;
  const lm_array *a = b->columns[x->col];
  return lm_type_eq(a->type, x->type) && a->length == b->num_rows ? a : NULL;
}

/* A comparison conjunct sel_where evaluates itself: column op column or
 * column op non-NULL literal (either side) of one type, of a class above.
 * *x, *y (NULL: the literal *lit) and *op (the column on the left) are
 * set when it is. */
static bool sel_simple(const lm_bexpr *e, const lm_batch *b, const lm_array **x,
                       const lm_array **y, const lm_value **lit, lm_op *op) {
  if (e->kind != LM_BX_BINARY || e->n_args != 2 || e->op < LM_OP_EQ ||
      e->op > LM_OP_GE)
    return false;
  const lm_bexpr *l = e->args[0], *r = e->args[1];
  if (!lm_type_eq(l->type, r->type) || class_of(l->type) == SEL_NONE)
    return false;
  static const lm_op flip[] = {
      [LM_OP_EQ] = LM_OP_EQ, [LM_OP_NE] = LM_OP_NE, [LM_OP_LT] = LM_OP_GT,
      [LM_OP_LE] = LM_OP_GE, [LM_OP_GT] = LM_OP_LT, [LM_OP_GE] = LM_OP_LE};
  *op = e->op;
  if (l->kind == LM_BX_LITERAL) { /* 1000 < x: x > 1000 */
    const lm_bexpr *t = l;
    l = r;
    r = t;
    *op = flip[e->op];
  }
  *x = sel_column(l, b);
  *y = NULL;
  *lit = NULL;
  if (r->kind == LM_BX_LITERAL && !r->lit.is_null)
    *lit = &r->lit;
  else if (!(*y = sel_column(r, b)))
    return false;
  return *x != NULL;
}

/* PostgreSQL's order of doubles: NaN equals NaN and sorts above the rest. */
static inline int f64_cmp(double a, double b) {
  if (a < b)
    return -1;
  if (a > b)
    return 1;
  if (a == b)
    return 0;
  return isnan(a) ? !isnan(b) : -1;
}

/* Bytewise order of two strings (the comparison operators' order). */
static inline int str_cmp(const lm_array *x, int64_t i, const char *b,
                          int32_t bl) {
  int32_t al;
  const char *a = lm_array_str(x, i, &al);
  int c = memcmp(a, b, (size_t)(al < bl ? al : bl));
  return c ? c : al < bl ? -1 : al > bl;
}

static inline int str_cmp2(const lm_array *x, const lm_array *y, int64_t i) {
  int32_t bl;
  const char *b = lm_array_str(y, i, &bl);
  return str_cmp(x, i, b, bl);
}

/* Keeps in sel[0..*k) (every row of n when all) the rows where COND holds. */
#define SEL_KEEP(COND)                                                         \
  do {                                                                         \
    int64_t m_ = 0;                                                            \
    if (all) {                                                                 \
      for (int64_t i = 0; i < n; i++) {                                        \
        sel[m_] = (int32_t)i;                                                  \
        m_ += (COND) ? 1 : 0;                                                  \
      }                                                                        \
    } else {                                                                   \
      for (int64_t j = 0; j < *k; j++) {                                       \
        int64_t i = sel[j];                                                    \
        sel[m_] = (int32_t)i;                                                  \
        m_ += (COND) ? 1 : 0;                                                  \
      }                                                                        \
    }                                                                          \
    *k = m_;                                                                   \
  } while (0)
#define SEL_OPS(X, Y)                                                          \
  switch (op) {                                                                \
  case LM_OP_EQ:                                                               \
    SEL_KEEP((X) == (Y));                                                      \
    break;                                                                     \
  case LM_OP_NE:                                                               \
    SEL_KEEP((X) != (Y));                                                      \
    break;                                                                     \
  case LM_OP_LT:                                                               \
    SEL_KEEP((X) < (Y));                                                       \
    break;                                                                     \
  case LM_OP_LE:                                                               \
    SEL_KEEP((X) <= (Y));                                                      \
    break;                                                                     \
  case LM_OP_GT:                                                               \
    SEL_KEEP((X) > (Y));                                                       \
    break;                                                                     \
  default:                                                                     \
    SEL_KEEP((X) >= (Y));                                                      \
    break;                                                                     \
  }
#define SEL_TYPED(T, GET)                                                      \
  do {                                                                         \
    const T *xv = GET(x);                                                      \
    if (y) {                                                                   \
      const T *yv = GET(y);                                                    \
      SEL_OPS(xv[i], yv[i])                                                    \
    } else {                                                                   \
      const T c = (T)lit->v.i;                                                 \
      SEL_OPS(xv[i], c)                                                        \
    }                                                                          \
  } while (0)

/* Narrows the selection sel[0..*k) (all: every row of n) to the rows where
 * the comparison x op (y or lit) is TRUE (a NULL operand: not TRUE). */
static void sel_compare(const lm_array *x, const lm_array *y,
                        const lm_value *lit, lm_op op, int32_t *sel, int64_t n,
                        int64_t *k, bool all) {
  if (x->validity) {
    SEL_KEEP(!lm_array_is_null(x, i));
    all = false;
  }
  if (y && y->validity) {
    SEL_KEEP(!lm_array_is_null(y, i));
    all = false;
  }
  switch (class_of(x->type)) {
  case SEL_I64:
    SEL_TYPED(int64_t, lm_array_i64);
    break;
  case SEL_I32:
    SEL_TYPED(int32_t, lm_array_i32);
    break;
  case SEL_I16:
    SEL_TYPED(int16_t, lm_array_i16);
    break;
  case SEL_F64: {
    const double *xv = lm_array_f64(x);
    if (y) {
      const double *yv = lm_array_f64(y);
      SEL_OPS(f64_cmp(xv[i], yv[i]), 0)
    } else {
      const double c = lit->v.f;
      SEL_OPS(f64_cmp(xv[i], c), 0)
    }
    break;
  }
  case SEL_STR:
    if (y) {
      SEL_OPS(str_cmp2(x, y, i), 0)
    } else {
      const char *c = lit->v.s.p ? lit->v.s.p : "";
      int32_t cl = lit->v.s.len;
      SEL_OPS(str_cmp(x, i, c, cl), 0)
    }
    break;
  case SEL_NONE:
    break;
  }
}

/* WHERE as a list of conjuncts (its AND tree's leaves, left to right),
 * evaluated as PostgreSQL evaluates a qual list: a row goes on to the next
 * conjunct only while every earlier one is TRUE (so `a > 100 AND b / 0 =
 * 1` fails for no row with a <= 100 or a NULL). The rows kept are a
 * selection vector narrowed conjunct by conjunct: a comparison sel_simple
 * takes reads the columns at the selected rows directly (no literal
 * materialized as a column, no copy); any other conjunct is evaluated
 * over the selected rows only; an empty selection stops early. *out: the
 * rows kept. 0, or the error of a conjunct / LM_ERR_NOMEM; *out is NULL
 * with 0 returned when where has more than 64 conjuncts (the caller
 * evaluates it as one expression). */
static int sel_where(const lm_bexpr *where, lm_batch *b, lm_batch **out,
                     lm_error *err) {
  enum { MAXC = 64 };
  const lm_bexpr *conj[MAXC], *stack[MAXC];
  int nc = 0, top = 0;
  stack[top++] = where;
  *out = NULL;
  while (top) {
    const lm_bexpr *e = stack[--top];
    if (e->kind == LM_BX_BINARY && e->op == LM_OP_AND && e->n_args == 2 &&
        top + 2 <= MAXC) {
      stack[top++] = e->args[1];
      stack[top++] = e->args[0];
    } else if (nc == MAXC) {
      return 0;
    } else {
      conj[nc++] = e;
    }
  }
  int64_t n = b->num_rows, k = n;
  if (n > INT32_MAX)
    return 0;
  int32_t *sel = malloc(sizeof(int32_t) * (size_t)(n + 1));
  if (!sel)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  bool all = true; /* sel not filled yet: every row */
  int rc = 0;
  for (int c = 0; c < nc && k > 0 && !rc; c++) {
    const lm_array *x, *y;
    const lm_value *lit;
    lm_op op;
    if (sel_simple(conj[c], b, &x, &y, &lit, &op)) {
      sel_compare(x, y, lit, op, sel, n, &k, all);
      all = false;
      continue;
    }
    lm_batch *sub = all ? lm_batch_retain(b) : lm_batch_take(b, sel, k);
    lm_array *pred = NULL;
    if (!sub)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    else
      rc = lm_eval(conj[c], sub, &pred, err);
    lm_batch_release(sub);
    if (rc)
      break;
    bool is_bool = pred->type.id == LM_TYPE_BOOL;
    int64_t m = 0;
    for (int64_t j = 0; j < k; j++)
      if (is_bool && !lm_array_is_null(pred, j) && lm_array_bool(pred, j))
        sel[m++] = all ? (int32_t)j : sel[j];
    k = m;
    all = false;
    lm_array_release(pred);
  }
  if (!rc) {
    /* no row left: an empty slice (no copy of any column) */
    *out = k == n   ? lm_batch_retain(b)
           : k == 0 ? lm_batch_slice(b, 0, 0)
                    : lm_batch_take(b, sel, k);
    if (!*out)
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  free(sel);
  return rc;
}

/* Declared in lm_exec.h. */
int lm_batch_where(const lm_bexpr *where, lm_batch *b, lm_batch **out,
                   lm_error *err) {
  if (!where) {
    *out = lm_batch_retain(b);
    return 0;
  }
  int rc = sel_where(where, b, out, err);
  if (rc || *out)
    return rc;
  lm_array *pred = NULL;
  if ((rc = lm_eval(where, b, &pred, err)))
    return rc;
  *out = lm_batch_filter(b, pred);
  lm_array_release(pred);
  return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
}

int lm_project(lm_bexpr *const *exprs, int n, lm_schema *schema,
               const lm_batch *in, lm_batch **out, lm_error *err) {
  lm_array **cols = lm_calloc((size_t)n + 1, sizeof *cols);
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
  lm_array **cols = lm_calloc((size_t)nc + 1, sizeof *cols);
  lm_array **parts = lm_calloc((size_t)n + 1, sizeof *parts);
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
