/*
 * PostgreSQL's numeric typing of SMALLINT / INTEGER / BIGINT and REAL /
 * DOUBLE PRECISION for the binder (bind_internal.h, docs/types.md):
 * int2 op int2 is int2, int4 with int2 or int4 is int4, anything with int8
 * is int8; real op real is real, real with any other number is double
 * precision (PostgreSQL's float48 operators); a CASE / COALESCE of a
 * real and a numeric value (a decimal constant, pk * 12.4) is real. An
 * integer literal is int4 when it fits, as PostgreSQL types it (int8
 * otherwise).
 */
#include <string.h>

#include "exec/lm_strfn.h"
#include "plan/bind_internal.h"

/* The width class of an integer type: 2, 4 or 8 (TINYINT counts as
 * SMALLINT, which PostgreSQL has instead); unsigned types are 8. */
static int int_width(lm_type t) {
  switch (t.id) {
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
    return 2;
  case LM_TYPE_INT32:
    return 4;
  default:
    return 8;
  }
}

lm_type lm_bind_num_type(const lm_bexpr *x) {
  lm_type t = x->type;
  if (t.id == LM_TYPE_INT64 && x->kind == LM_BX_LITERAL && x->lit_int4 &&
      !x->lit.is_null)
    return lm_type_make(LM_TYPE_INT32);
  return t;
}

lm_bexpr *lm_bind_out_int4(lm_bexpr *x) {
  if (x && x->kind == LM_BX_LITERAL && x->type.id == LM_TYPE_INT64 &&
      x->lit_int4 && !x->lit.is_null)
    x->type = x->lit.type = lm_type_make(LM_TYPE_INT32);
  return x;
}

lm_type lm_bind_num_merge(lm_type a, lm_type b, bool arith) {
  if (is_null(a))
    a = b;
  if (is_null(b))
    b = a;
  if (is_null(a))
    return lm_type_make(LM_TYPE_INT64);
  if (is_float(a) || is_float(b)) {
    bool f4a = a.id == LM_TYPE_FLOAT32, f4b = b.id == LM_TYPE_FLOAT32;
    /* real op real is real; CASE / COALESCE of real and integers too
     * (integers coerce to real implicitly); arithmetic of real with an
     * integer or a double is double precision (float48pl) */
    if ((f4a && f4b) || (!arith && ((f4a && is_int(b)) || (f4b && is_int(a)))))
      return lm_type_make(LM_TYPE_FLOAT32);
    return lm_type_make(LM_TYPE_FLOAT64);
  }
  int w = int_width(a) > int_width(b) ? int_width(a) : int_width(b);
  return lm_type_make(w == 2   ? LM_TYPE_INT16
                      : w == 4 ? LM_TYPE_INT32
                               : LM_TYPE_INT64);
}

lm_bexpr *lm_bind_pg_typeof(lm_bctx *c, const lm_expr *e, const lm_bexpr *x) {
  const char *name;
  if (x->kind == LM_BX_LITERAL && x->type.id == LM_TYPE_UTF8 &&
      !lm_type_is_json(x->type) && e->n_args == 1 &&
      e->args[0]->kind == LM_EXPR_LITERAL)
    name = "unknown"; /* a string constant before any coercion */
  else if (x->kind == LM_BX_LITERAL && x->type.id == LM_TYPE_FLOAT64 &&
           x->lit_text)
    name = "numeric"; /* 1.5: PostgreSQL's numeric constant */
  else
    name = lm_pg_type_name(lm_bind_num_type(x));
  lm_type t = lm_type_make(LM_TYPE_UTF8);
  lm_bexpr *b = lm_bind_node(c, LM_BX_LITERAL, t, e, 0);
  if (!b)
    return NULL;
  b->lit.type = t;
  b->lit.is_null = false;
  b->lit.v.s.p = name; /* a static string, never freed */
  b->lit.v.s.len = (int32_t)strlen(name);
  return b;
}

bool lm_bind_num_is_numeric(const lm_bexpr *x) {
  if (x->type.id == LM_TYPE_DECIMAL128)
    return true;
  if (x->type.id != LM_TYPE_FLOAT64)
    return false;
  switch (x->kind) {
  case LM_BX_LITERAL:
    return x->lit_text != NULL || x->pg_numeric;
  case LM_BX_BINARY:
    return x->pg_numeric;
  case LM_BX_UNARY:
    return x->op == LM_OP_NEG && x->n_args == 1 &&
           lm_bind_num_is_numeric(x->args[0]);
  case LM_BX_FUNC:
    switch (x->fn) {
    case LM_FN_ABS:
    case LM_FN_ROUND:
    case LM_FN_TRUNC:
    case LM_FN_FLOOR:
    case LM_FN_CEIL:
      return x->n_args >= 1 && lm_bind_num_is_numeric(x->args[0]);
    default:
      return false;
    }
  default:
    return false;
  }
}

bool lm_bind_num_numeric_op(const lm_bexpr *a, const lm_bexpr *b) {
  const lm_bexpr *ab[2] = {a, b};
  bool num = false;
  for (int k = 0; k < 2; k++) {
    if (lm_bind_num_is_numeric(ab[k]))
      num = true;
    else if (!lm_type_is_integer(ab[k]->type) && ab[k]->type.id != LM_TYPE_NULL)
      return false;
  }
  return num;
}

lm_type lm_bind_num_real(lm_type t, lm_bexpr *const *args, int n, int n_pairs) {
  if (t.id != LM_TYPE_FLOAT64)
    return t;
  bool real = false;
  for (int k = 0; k < n; k++) {
    if (k < n_pairs * 2 && k % 2 == 0)
      continue; /* a CASE condition */
    const lm_bexpr *x = args[k];
    lm_type_id id = x->type.id;
    if (id == LM_TYPE_NULL || lm_type_is_integer(x->type))
      continue;
    if (id == LM_TYPE_FLOAT32)
      real = true;
    else if (!lm_bind_num_is_numeric(x))
      return t; /* a DOUBLE value: double precision */
  }
  return real ? lm_type_make(LM_TYPE_FLOAT32) : t;
}
