/*
 * exec/expr_decfast.c — a tight loop for DECIMAL `*`, `+` and `-` over
 * DECIMAL128 and integer columns (Nexmark q1's `0.908 * price`: a decimal
 * constant times BIGINT), writing the values buffer directly. Rows that
 * need more than the plain loop (a NaN / ±Infinity operand, a product
 * beyond 38 digits, a result over the node's precision) send the whole
 * batch back to the general kernel (expr_types.c), which gives the same
 * values and the errors.
 */
#include "exec/expr_decfast.h"

#include <string.h>

#include "columnar/lm_decimal.h"
#include "exec/expr_num.h"

/* Whether a is an operand this loop reads: DECIMAL128, or a plain
 * (not dictionary) integer column. */
static bool readable(const lm_array *a) {
  switch (a->type.id) {
  case LM_TYPE_DECIMAL128:
  case LM_TYPE_INT64:
  case LM_TYPE_INT32:
  case LM_TYPE_INT16:
    return a->values != NULL;
  default:
    return false;
  }
}

static int scale_of(const lm_array *a) {
  return a->type.id == LM_TYPE_DECIMAL128 ? a->type.scale : 0;
}

/* Row i of a (valid) as an unscaled int128. */
static inline lm_i128 at(const lm_array *a, int64_t i) {
  switch (a->type.id) {
  case LM_TYPE_INT64:
    return lm_array_i64(a)[i];
  case LM_TYPE_INT32:
    return lm_array_i32(a)[i];
  case LM_TYPE_INT16:
    return lm_array_i16(a)[i];
  default: {
    const uint8_t *p = a->values->data + (size_t)(a->offset + i) * 16;
    uint64_t lo;
    int64_t hi;
    memcpy(&lo, p, 8);
    memcpy(&hi, p + 8, 8);
    return (lm_i128)(((unsigned __int128)(uint64_t)hi << 64) |
                     (unsigned __int128)lo);
  }
  }
}

static inline bool null_at(const lm_array *a, int64_t i) {
  return a->validity && lm_array_is_null(a, i);
}

int lm_dec_arith_fast(const lm_bexpr *e, const lm_array *x, const lm_array *y,
                      lm_array **out, lm_error *err) {
  if (e->type.id != LM_TYPE_DECIMAL128 || !readable(x) || !readable(y) ||
      x->length != y->length)
    return 1;
  int sa = scale_of(x), sb = scale_of(y), rs = e->type.scale;
  lm_i128 ka = 1, kb = 1; /* + -: both operands to the result's scale */
  if (e->op == LM_OP_MUL) {
    if (sa + sb != rs)
      return 1;
  } else if (e->op == LM_OP_ADD || e->op == LM_OP_SUB) {
    if (rs < sa || rs < sb || (sa != rs && sb != rs))
      return 1;
    ka = lm_dec_pow10(rs - sa);
    kb = lm_dec_pow10(rs - sb);
  } else {
    return 1;
  }
  int p =
      e->type.precision < 1 || e->type.precision > 38 ? 38 : e->type.precision;
  const lm_i128 lim = lm_dec_pow10(p), big = lm_dec_pow10(38);
  int64_t n = x->length;
  lm_builder b;
  if (lm_out_fixed(&b, e->type, n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  uint8_t *r = b.values;
  bool sub = e->op == LM_OP_SUB, mul = e->op == LM_OP_MUL;
  for (int64_t i = 0; i < n; i++) {
    lm_i128 v = 0;
    if (null_at(x, i) || null_at(y, i)) {
      lm_out_null(&b, i);
    } else {
      lm_i128 a = at(x, i), c = at(y, i);
      if (lm_dec_is_special(a) || lm_dec_is_special(c))
        goto general;
      if (mul) {
        if (a == (int64_t)a && c == (int64_t)c)
          v = (lm_i128)(int64_t)a * (int64_t)c; /* 64 x 64 bits: exact */
        else if (__builtin_mul_overflow(a, c, &v))
          goto general;
      } else {
        if (__builtin_mul_overflow(a, ka, &a) ||
            __builtin_mul_overflow(c, kb, &c) || a >= big || a <= -big ||
            c >= big || c <= -big)
          goto general;
        v = sub ? a - c : a + c; /* |a|, |c| < 10^38: no overflow */
      }
      if (v >= lim || v <= -lim)
        goto general;
    }
    uint64_t lo = (uint64_t)(unsigned __int128)v;
    int64_t hi = (int64_t)((unsigned __int128)v >> 64);
    memcpy(r + (size_t)i * 16, &lo, 8);
    memcpy(r + (size_t)i * 16 + 8, &hi, 8);
  }
  return lm_out_finish(&b, out, err);
general:
  lm_builder_free(&b);
  return 1;
}
