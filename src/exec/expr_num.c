/*
 * SMALLINT, INTEGER and REAL arithmetic (expr_num.h): PostgreSQL's int2,
 * int4 and float4 operators. Integers are computed in 64 bits and checked
 * against their type's range (int2pl / int4pl ... raise "smallint out of
 * range" / "integer out of range", 22003); REAL in single precision with
 * float4's overflow / underflow checks (float.h's float_overflow_error).
 * The loops over rows without NULLs collect the overflow in a flag (no
 * branch per row) and raise once.
 */
#include "exec/expr_num.h"

#include <math.h>
#include <string.h>

#include "exec/lm_strfn.h"

static int oom(lm_error *err) {
  return lm_err(err, LM_ERR_NOMEM, "out of memory");
}

static inline bool isnull(const lm_array *a, int64_t i) {
  return a->validity && lm_array_is_null(a, i);
}

static const char *range_msg(lm_type_id t) {
  return t == LM_TYPE_INT16 ? "smallint out of range" : "integer out of range";
}

bool lm_num_arith_handles(const lm_bexpr *e, const lm_array *x,
                          const lm_array *y) {
  lm_type_id t = e->type.id;
  return (t == LM_TYPE_INT16 || t == LM_TYPE_INT32 || t == LM_TYPE_FLOAT32) &&
         x->type.id == t && y->type.id == t && x->length == y->length;
}

bool lm_num_neg_handles(const lm_bexpr *e, const lm_array *x) {
  lm_type_id t = e->type.id;
  return (t == LM_TYPE_INT16 || t == LM_TYPE_INT32 || t == LM_TYPE_FLOAT32) &&
         x->type.id == t;
}

/* + - * of two integer columns of type T (int16_t or int32_t) in 64 bits:
 * r[i] the result, *bad set when a row that is not NULL left T's range. */
#define INT_ADDSUBMUL(T, OP)                                                   \
  do {                                                                         \
    const T *xa = (const T *)xv, *ya = (const T *)yv;                          \
    T *r = (T *)rv;                                                            \
    if (!y) { /* a constant right operand */                                   \
      const int64_t c = ya[0];                                                 \
      for (int64_t i = 0; i < n; i++) {                                        \
        int64_t v = (int64_t)xa[i] OP c;                                       \
        r[i] = (T)v;                                                           \
        bad |= v != (T)v && !(nulls && isnull(x, i));                          \
      }                                                                        \
    } else if (!nulls) {                                                       \
      for (int64_t i = 0; i < n; i++) {                                        \
        int64_t v = (int64_t)xa[i] OP(int64_t) ya[i];                          \
        r[i] = (T)v;                                                           \
        bad |= v != (T)v;                                                      \
      }                                                                        \
    } else {                                                                   \
      for (int64_t i = 0; i < n; i++) {                                        \
        int64_t v = (int64_t)xa[i] OP(int64_t) ya[i];                          \
        r[i] = (T)v;                                                           \
        bad |= v != (T)v && !isnull(x, i) && !isnull(y, i);                    \
      }                                                                        \
    }                                                                          \
  } while (0)

/* / and % of integers of type T: division by zero and MIN / -1 checked per
 * row; NULL rows skipped (their slot 0). */
#define INT_DIVMOD(T, TMIN)                                                    \
  do {                                                                         \
    const T *xa = (const T *)xv, *ya = (const T *)yv;                          \
    T *r = (T *)rv;                                                            \
    for (int64_t i = 0; i < n; i++) {                                          \
      if (nulls && (isnull(x, i) || (y && isnull(y, i)))) {                    \
        r[i] = 0;                                                              \
        continue;                                                              \
      }                                                                        \
      int64_t a = xa[i], c = ya[y ? i : 0];                                    \
      if (c == 0) {                                                            \
        zero = true;                                                           \
        break;                                                                 \
      }                                                                        \
      if (a == (TMIN) && c == -1 && op == LM_OP_DIV) {                         \
        bad = true;                                                            \
        break;                                                                 \
      }                                                                        \
      r[i] = (T)(op == LM_OP_DIV ? a / c : a % c);                             \
    }                                                                          \
  } while (0)

/* REAL arithmetic, float4pl ... semantics: an infinite result of finite
 * operands overflows, a zero product / quotient of non-zero finite
 * operands underflows; / and % by zero are errors. */
static int arith_f32(const lm_bexpr *e, const lm_array *x, const lm_array *y,
                     const float *k, float *r, bool nulls, lm_error *err) {
  const float *xa = lm_array_f32(x), *ya = y ? lm_array_f32(y) : k;
  int64_t ystep = y ? 1 : 0;
  int64_t n = x->length;
  lm_op op = e->op;
  for (int64_t i = 0; i < n; i++) {
    if (nulls && (isnull(x, i) || (y && isnull(y, i)))) {
      r[i] = 0;
      continue;
    }
    float a = xa[i], c = ya[i * ystep], v;
    switch (op) {
    case LM_OP_ADD:
      v = a + c;
      break;
    case LM_OP_SUB:
      v = a - c;
      break;
    case LM_OP_MUL:
      v = a * c;
      break;
    case LM_OP_DIV:
      if (c == 0)
        return lm_fn_error(err, e, "22012", "division by zero");
      v = a / c;
      break;
    default: /* % (PostgreSQL has no float %: Laminar's fmod) */
      if (c == 0)
        return lm_fn_error(err, e, "22012", "division by zero");
      v = fmodf(a, c);
      break;
    }
    bool ovf = isinf(v) && !isinf(a) && !isinf(c);
    bool unf = v == 0 && a != 0 &&
               ((op == LM_OP_MUL && c != 0) || (op == LM_OP_DIV && !isinf(c)));
    if (ovf || unf)
      return lm_fn_error(err, e, "22003", "value out of range: %s",
                         ovf ? "overflow" : "underflow");
    r[i] = v;
  }
  return 0;
}

/* x op y, or x op *k when y is NULL (k: one value of e's C type). */
static int arith(const lm_bexpr *e, const lm_array *x, const lm_array *y,
                 const void *k, lm_array **out, lm_error *err) {
  int64_t n = x->length;
  lm_type_id t = e->type.id;
  lm_op op = e->op;
  bool nulls = x->null_count || (y && y->null_count);
  lm_builder b;
  if (lm_out_fixed(&b, e->type, n))
    return oom(err);
  void *rv = b.values;
  int rc = 0;
  if (t == LM_TYPE_FLOAT32) {
    rc = arith_f32(e, x, y, k, rv, nulls, err);
  } else {
    const void *xv = t == LM_TYPE_INT16 ? (const void *)lm_array_i16(x)
                                        : (const void *)lm_array_i32(x);
    const void *yv = !y                   ? k
                     : t == LM_TYPE_INT16 ? (const void *)lm_array_i16(y)
                                          : (const void *)lm_array_i32(y);
    bool bad = false, zero = false;
    if (t == LM_TYPE_INT16) {
      if (op == LM_OP_ADD)
        INT_ADDSUBMUL(int16_t, +);
      else if (op == LM_OP_SUB)
        INT_ADDSUBMUL(int16_t, -);
      else if (op == LM_OP_MUL)
        INT_ADDSUBMUL(int16_t, *);
      else
        INT_DIVMOD(int16_t, INT16_MIN);
    } else {
      if (op == LM_OP_ADD)
        INT_ADDSUBMUL(int32_t, +);
      else if (op == LM_OP_SUB)
        INT_ADDSUBMUL(int32_t, -);
      else if (op == LM_OP_MUL)
        INT_ADDSUBMUL(int32_t, *);
      else
        INT_DIVMOD(int32_t, INT32_MIN);
    }
    if (zero)
      rc = lm_fn_error(err, e, "22012", "division by zero");
    else if (bad)
      rc = lm_fn_error(err, e, "22003", "%s", range_msg(t));
  }
  if (rc) {
    lm_builder_free(&b);
    return rc;
  }
  if (nulls)
    for (int64_t i = 0; i < n; i++)
      if (isnull(x, i) || (y && isnull(y, i)))
        lm_out_null(&b, i);
  return lm_out_finish(&b, out, err);
}

int lm_num_arith(const lm_bexpr *e, const lm_array *x, const lm_array *y,
                 lm_array **out, lm_error *err) {
  return arith(e, x, y, NULL, out, err);
}

int lm_num_arith_literal(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                         lm_error *err) {
  const lm_bexpr *l = e->args[0], *r = e->args[1];
  lm_type_id t = e->type.id;
  if (!(t == LM_TYPE_INT16 || t == LM_TYPE_INT32 || t == LM_TYPE_FLOAT32) ||
      r->kind != LM_BX_LITERAL || r->lit.is_null || l->kind == LM_BX_LITERAL ||
      l->type.id != t || r->type.id != t)
    return -1;
  lm_array *x = NULL;
  int rc = lm_eval(l, in, &x, err);
  if (rc)
    return rc;
  if (x->type.id == LM_TYPE_NULL) { /* as the general path */
    lm_array_release(x);
    *out = lm_array_new_null(e->type, in->num_rows);
    return *out ? 0 : oom(err);
  }
  if (x->type.id != t) {
    lm_array_release(x);
    return lm_fn_error(err, e, "XX000", "%s operand of type %s",
                       lm_type_name(e->type), lm_type_name(x->type));
  }
  int16_t k16 = (int16_t)r->lit.v.i;
  int32_t k32 = (int32_t)r->lit.v.i;
  float kf = (float)r->lit.v.f;
  const void *k = t == LM_TYPE_INT16   ? (const void *)&k16
                  : t == LM_TYPE_INT32 ? (const void *)&k32
                                       : (const void *)&kf;
  rc = arith(e, x, NULL, k, out, err);
  lm_array_release(x);
  return rc;
}

int lm_num_neg(const lm_bexpr *e, const lm_array *x, lm_array **out,
               lm_error *err) {
  int64_t n = x->length;
  lm_type_id t = e->type.id;
  bool nulls = x->null_count > 0;
  lm_builder b;
  if (lm_out_fixed(&b, e->type, n))
    return oom(err);
  bool bad = false;
  if (t == LM_TYPE_FLOAT32) {
    const float *xa = lm_array_f32(x);
    float *r = (float *)b.values;
    for (int64_t i = 0; i < n; i++)
      r[i] = -xa[i];
  } else if (t == LM_TYPE_INT16) {
    const int16_t *xa = lm_array_i16(x);
    int16_t *r = (int16_t *)b.values;
    for (int64_t i = 0; i < n; i++) {
      bool m = xa[i] == INT16_MIN && !(nulls && isnull(x, i));
      bad |= m;
      r[i] = m ? 0 : (int16_t)-xa[i];
    }
  } else {
    const int32_t *xa = lm_array_i32(x);
    int32_t *r = (int32_t *)b.values;
    for (int64_t i = 0; i < n; i++) {
      bool m = xa[i] == INT32_MIN && !(nulls && isnull(x, i));
      bad |= m;
      r[i] = m || xa[i] == INT32_MIN ? 0 : -xa[i];
    }
  }
  if (bad) {
    lm_builder_free(&b);
    return lm_fn_error(err, e, "22003", "%s", range_msg(t));
  }
  if (nulls)
    for (int64_t i = 0; i < n; i++)
      if (isnull(x, i))
        lm_out_null(&b, i);
  return lm_out_finish(&b, out, err);
}

int lm_num_abs(const lm_bexpr *e, const lm_batch *in, lm_array **out,
               lm_error *err) {
  lm_array *x = NULL;
  int rc = lm_eval(e->args[0], in, &x, err);
  if (rc)
    return rc;
  int64_t n = x->length;
  lm_type_id t = e->type.id;
  if (x->type.id != t) {
    lm_array_release(x);
    return lm_fn_error(err, e, "XX000", "abs(): argument of type %s",
                       lm_type_name(x->type));
  }
  bool nulls = x->null_count > 0, bad = false;
  lm_builder b;
  if (lm_out_fixed(&b, e->type, n)) {
    lm_array_release(x);
    return oom(err);
  }
  if (t == LM_TYPE_FLOAT32) {
    const float *xa = lm_array_f32(x);
    float *r = (float *)b.values;
    for (int64_t i = 0; i < n; i++)
      r[i] = fabsf(xa[i]);
  } else if (t == LM_TYPE_INT16) {
    const int16_t *xa = lm_array_i16(x);
    int16_t *r = (int16_t *)b.values;
    for (int64_t i = 0; i < n; i++) {
      bad |= xa[i] == INT16_MIN && !(nulls && isnull(x, i));
      r[i] = (int16_t)(xa[i] < 0 ? -(int32_t)xa[i] : xa[i]);
    }
  } else {
    const int32_t *xa = lm_array_i32(x);
    int32_t *r = (int32_t *)b.values;
    for (int64_t i = 0; i < n; i++) {
      bad |= xa[i] == INT32_MIN && !(nulls && isnull(x, i));
      r[i] = (int32_t)(xa[i] < 0 ? -(int64_t)xa[i] : xa[i]);
    }
  }
  if (!bad && nulls)
    for (int64_t i = 0; i < n; i++)
      if (isnull(x, i))
        lm_out_null(&b, i);
  lm_array_release(x);
  if (bad) {
    lm_builder_free(&b);
    return lm_fn_error(err, e, "22003", "%s", range_msg(t));
  }
  return lm_out_finish(&b, out, err);
}
