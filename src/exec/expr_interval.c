/*
 * INTERVAL * number and INTERVAL / number as PostgreSQL 15's interval_mul
 * and interval_div compute them. Laminar's INTERVAL is a count of µs; it
 * is read as PostgreSQL's (days, time) pair (whole days of 24 hours,
 * truncated toward zero, and the rest), so that the fraction of the days
 * product cascades into the time as PostgreSQL's does (rounded to the µs
 * first, TSROUND), then the time product is rounded half to even (rint).
 */
#include "exec/expr_interval.h"

#include <math.h>

#include "exec/expr_num.h"
#include "exec/lm_strfn.h"

#define US_PER_DAY 86400000000LL
#define SECS_PER_DAY 86400.0

bool lm_interval_arith_handles(const lm_bexpr *e, const lm_array *x,
                               const lm_array *y) {
  lm_type_id tx = x->type.id, ty = y->type.id;
  return e->type.id == LM_TYPE_INTERVAL &&
         (e->op == LM_OP_MUL || e->op == LM_OP_DIV) &&
         ((tx == LM_TYPE_INTERVAL &&
           (ty == LM_TYPE_FLOAT64 || ty == LM_TYPE_INT64)) ||
          (ty == LM_TYPE_INTERVAL &&
           (tx == LM_TYPE_FLOAT64 || tx == LM_TYPE_INT64)));
}

static double tsround(double v) {
  return rint(v * 1e6) / 1e6;
}

/* span * factor (div: span / factor); 0, 1 out of range, 2 division by
 * zero. */
static int iv_row(int64_t span, double factor, bool div, int64_t *out) {
  if (div && factor == 0.0)
    return 2;
  int64_t day = span / US_PER_DAY, time = span - day * US_PER_DAY;
  double dd = div ? (double)day / factor : (double)day * factor;
  if (isnan(dd) || dd > INT32_MAX || dd < INT32_MIN)
    return 1;
  int64_t rday = (int32_t)dd;
  double sec = tsround((dd - (double)rday) * SECS_PER_DAY);
  if (fabs(sec) >= SECS_PER_DAY) {
    int whole = (int)(sec / SECS_PER_DAY);
    rday += whole;
    sec -= whole * SECS_PER_DAY;
  }
  if (rday > INT32_MAX || rday < INT32_MIN)
    return 1;
  double t =
      rint((div ? (double)time / factor : (double)time * factor) + sec * 1e6);
  /* FLOAT8_FITS_IN_INT64, and the sum in 64 bits */
  if (isnan(t) || !(t >= -9223372036854775808.0 && t < 9223372036854775808.0))
    return 1;
  int64_t r;
  if (__builtin_mul_overflow(rday, US_PER_DAY, &r) ||
      __builtin_add_overflow(r, (int64_t)t, &r))
    return 1;
  *out = r;
  return 0;
}

int lm_interval_arith(const lm_bexpr *e, lm_array *x, lm_array *y,
                      lm_array **out, lm_error *err) {
  bool iv_left = x->type.id == LM_TYPE_INTERVAL;
  lm_array *iv = iv_left ? x : y, *num = iv_left ? y : x;
  int64_t n = x->length;
  lm_builder b;
  if (lm_out_fixed(&b, e->type, n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int64_t *r = (int64_t *)b.values;
  const int64_t *va = lm_array_i64(iv);
  bool by_int = num->type.id == LM_TYPE_INT64;
  const double *fa = by_int ? NULL : lm_array_f64(num);
  const int64_t *ka = by_int ? lm_array_i64(num) : NULL;
  bool div = e->op == LM_OP_DIV;
  bool nulls = iv->validity || num->validity;
  for (int64_t i = 0; i < n; i++) {
    if (nulls && (lm_array_is_null(iv, i) || lm_array_is_null(num, i))) {
      lm_out_null(&b, i);
      r[i] = 0;
      continue;
    }
    int rc;
    if (by_int && !div) /* exact: PostgreSQL's float8 product of these */
      rc = __builtin_mul_overflow(va[i], ka[i], &r[i]) ? 1 : 0;
    else
      rc = iv_row(va[i], by_int ? (double)ka[i] : fa[i], div, &r[i]);
    if (rc) {
      lm_builder_free(&b);
      return rc == 2 ? lm_fn_error(err, e, "22012", "division by zero")
                     : lm_fn_error(err, e, "22008", "interval out of range");
    }
  }
  return lm_out_finish(&b, out, err);
}
