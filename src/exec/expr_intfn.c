/*
 * PostgreSQL integer functions and bit operators, a batch at a time (bound
 * in plan/pgsyntax_bind.c and plan/func_bind2.c): & | # << >> ~, gcd,
 * lcm, to_hex, div, factorial, num_nulls, num_nonnulls, scale /
 * min_scale. The integer ones work at the width of their result type
 * (INT16 / INT32 / INT64, PostgreSQL's int2 / int4 / int8): a shift count
 * is masked to that width as PostgreSQL's C shifts do on x86-64 (1 << 32
 * is 1 for an integer), to_hex prints the two's complement of that width,
 * and gcd / lcm overflow at it ("integer out of range", 22003).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/lm_decimal.h"
#include "exec/lm_exec.h"
#include "exec/lm_strfn.h"

static int width_of(lm_type t) {
  return t.id == LM_TYPE_INT16 ? 16 : t.id == LM_TYPE_INT32 ? 32 : 64;
}

/* v wrapped to a signed integer of w bits. */
static int64_t wrap(int64_t v, int w) {
  return w == 16 ? (int64_t)(int16_t)v : w == 32 ? (int64_t)(int32_t)v : v;
}

static const char *range_msg(int w) {
  return w == 16   ? "smallint out of range"
         : w == 32 ? "integer out of range"
                   : "bigint out of range";
}

/* The bit operators over whole columns: one tight loop per batch. */
static int bitop(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                 lm_error *err) {
  lm_array **a = NULL;
  lm_builder b;
  int rc = lm_fn_begin(e, in, &a, &b, err);
  if (rc)
    return rc;
  int w = width_of(e->type);
  int mask = w == 64 ? 63 : 31; /* x86-64 shifts an int (even int2) by n & 31 */
  for (int64_t i = 0; i < in->num_rows; i++) {
    if (lm_fargs_null(a, e->n_args, i)) {
      lm_builder_append_null(&b);
      continue;
    }
    int64_t x = lm_array_get_i64(a[0], i);
    int64_t y = e->n_args > 1 ? lm_array_get_i64(a[1], i) : 0;
    int64_t r;
    switch (e->fn) {
    case LM_FN_BIT_AND:
      r = x & y;
      break;
    case LM_FN_BIT_OR:
      r = x | y;
      break;
    case LM_FN_BIT_XOR:
      r = x ^ y;
      break;
    case LM_FN_SHL:
      r = (int64_t)((uint64_t)x << ((int)y & mask));
      break;
    case LM_FN_SHR:
      r = x >> ((int)y & mask);
      break;
    default: /* LM_FN_BIT_NOT */
      r = ~x;
      break;
    }
    lm_builder_append_int(&b, wrap(r, w));
  }
  return lm_fn_end(e, a, &b, 0, out, err);
}

static uint64_t ugcd(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static int intfn_row(const lm_bexpr *e, lm_array *const *a, int64_t i,
                     lm_builder *b, lm_buf *o, void *ctx, lm_error *err) {
  (void)ctx;
  switch (e->fn) {
  case LM_FN_NUM_NULLS:
  case LM_FN_NUM_NONNULLS: {
    int64_t nulls = 0;
    for (int k = 0; k < e->n_args; k++)
      nulls += lm_farg_null(a[k], i);
    lm_builder_append_int(b,
                          e->fn == LM_FN_NUM_NULLS ? nulls : e->n_args - nulls);
    return 0;
  }
  case LM_FN_GCD:
  case LM_FN_LCM: {
    int w = width_of(e->type);
    int64_t x = lm_array_get_i64(a[0], i), y = lm_array_get_i64(a[1], i);
    int64_t lo = w == 16 ? INT16_MIN : w == 32 ? INT32_MIN : INT64_MIN;
    uint64_t ux = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
    uint64_t uy = y < 0 ? 0 - (uint64_t)y : (uint64_t)y;
    uint64_t g = ugcd(ux, uy);
    if (e->fn == LM_FN_GCD) {
      /* |MIN| is not representable: gcd(MIN, 0), gcd(MIN, MIN) */
      if (g > (uint64_t) - (lo + 1))
        return lm_fn_error(err, e, "22003", "%s", range_msg(w));
      lm_builder_append_int(b, (int64_t)g);
      return 0;
    }
    if (x == 0 || y == 0) {
      lm_builder_append_int(b, 0);
      return 0;
    }
    uint64_t l;
    if (__builtin_mul_overflow(ux / g, uy, &l) || l > (uint64_t) - (lo + 1))
      return lm_fn_error(err, e, "22003", "%s", range_msg(w));
    lm_builder_append_int(b, (int64_t)l);
    return 0;
  }
  case LM_FN_TO_HEX: {
    int w = width_of(a[0]->type);
    uint64_t v = (uint64_t)lm_array_get_i64(a[0], i);
    if (w < 64)
      v &= ((uint64_t)1 << w) - 1;
    if (w == 16) /* PostgreSQL has no int2 to_hex: int4's */
      v = (uint64_t)(uint32_t)(int32_t)lm_array_get_i64(a[0], i);
    char t[17];
    int n = 0;
    do {
      t[n++] = "0123456789abcdef"[v & 15];
      v >>= 4;
    } while (v);
    lm_buf_reset(o);
    for (int k = n - 1; k >= 0; k--)
      lm_buf_putc(o, t[k]);
    lm_builder_append_str(b, o->data, (int32_t)o->len);
    return 0;
  }
  case LM_FN_DIV:
    if (e->type.id == LM_TYPE_FLOAT64) {
      double x = lm_array_get_f64(a[0], i), y = lm_array_get_f64(a[1], i);
      if (y == 0)
        return lm_fn_error(err, e, "22012", "division by zero");
      double r = trunc(x / y);
      lm_builder_append_double(b, r == 0 ? 0 : r);
    } else {
      int64_t x = lm_array_get_i64(a[0], i), y = lm_array_get_i64(a[1], i);
      if (y == 0)
        return lm_fn_error(err, e, "22012", "division by zero");
      if (y == -1 && x == INT64_MIN)
        return lm_fn_error(err, e, "22003", "bigint out of range");
      lm_builder_append_int(b, x / y);
    }
    return 0;
  case LM_FN_FACTORIAL: {
    int64_t n = lm_array_get_i64(a[0], i);
    if (n < 0)
      return lm_fn_error(err, e, "22023",
                         "factorial of a negative number is undefined");
    if (n > 33) /* 34! has 39 digits: beyond DECIMAL(38) */
      return lm_fn_error(err, e, "22003",
                         "value overflows numeric format (factorial of more "
                         "than 33 is beyond 38 digits here)");
    lm_i128 r = 1;
    for (int64_t k = 2; k <= n; k++)
      r *= k;
    lm_dec_append(b, r);
    return 0;
  }
  case LM_FN_MIN_SCALE: {
    int s = a[0]->type.scale;
    if (lm_dec_is_special(lm_dec_get(a[0], i))) { /* PostgreSQL: NULL */
      lm_builder_append_null(b);
      return 0;
    }
    if (lm_array_get_i64(a[1], i)) { /* scale(): the type's */
      lm_builder_append_int(b, s);
      return 0;
    }
    lm_i128 v = lm_dec_get(a[0], i);
    while (s > 0 && v % 10 == 0) {
      v /= 10;
      s--;
    }
    lm_builder_append_int(b, s);
    return 0;
  }
  default:
    return lm_fn_error(err, e, "0A000", "function not implemented");
  }
}

int lm_intfn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                  lm_error *err) {
  if (e->fn >= LM_FN_BIT_AND && e->fn <= LM_FN_BIT_NOT)
    return bitop(e, in, out, err);
  int strict =
      e->fn == LM_FN_NUM_NULLS || e->fn == LM_FN_NUM_NONNULLS ? 0 : e->n_args;
  return lm_fn_rows(e, in, strict, intfn_row, NULL, out, err);
}
