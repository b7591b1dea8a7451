/*
 * PostgreSQL trigonometric and hyperbolic functions, a batch at a time
 * (bound in plan/func_bind2.c): sin cos tan cot asin acos atan atan2, the
 * degree variants sind .. atan2d and sinh .. atanh. DOUBLE in, DOUBLE
 * out, NULL in, NULL out. Domain errors are PostgreSQL's 22003 "input is
 * out of range". The degree variants follow PostgreSQL's float.c exactly
 * (argument reduction to the first quadrant, results scaled so that
 * sind(30) = 0.5, tand(45) = 1, asind(0.5) = 30 come out exact).
 */
#include <math.h>

#include "exec/lm_exec.h"
#include "exec/lm_strfn.h"

#define RADIANS_PER_DEGREE 0.0174532925199432957692

/* PostgreSQL computes these at run time (volatile) so that the compiler's
 * constant folding cannot change them; so do we. */
typedef struct trig_k {
  double sin_30, one_minus_cos_60, asin_0_5, acos_0_5, atan_1_0, tan_45, cot_45;
} trig_k;

static double sind_0_to_30(const trig_k *k, double x) {
  volatile double sin_x = sin(x * RADIANS_PER_DEGREE);
  return (sin_x / k->sin_30) / 2.0;
}

static double cosd_0_to_60(const trig_k *k, double x) {
  volatile double one_minus_cos_x = 1.0 - cos(x * RADIANS_PER_DEGREE);
  return 1.0 - (one_minus_cos_x / k->one_minus_cos_60) / 2.0;
}

static double sind_q1(const trig_k *k, double x) {
  return x <= 30.0 ? sind_0_to_30(k, x) : cosd_0_to_60(k, 90.0 - x);
}

static double cosd_q1(const trig_k *k, double x) {
  return x <= 60.0 ? cosd_0_to_60(k, x) : sind_0_to_30(k, 90.0 - x);
}

static double asind_q1(const trig_k *k, double x) {
  if (x <= 0.5) {
    volatile double asin_x = asin(x);
    return (asin_x / k->asin_0_5) * 30.0;
  }
  volatile double acos_x = acos(x);
  return 90.0 - (acos_x / k->acos_0_5) * 60.0;
}

static double acosd_q1(const trig_k *k, double x) {
  if (x <= 0.5) {
    volatile double asin_x = asin(x);
    return 90.0 - (asin_x / k->asin_0_5) * 30.0;
  }
  volatile double acos_x = acos(x);
  return (acos_x / k->acos_0_5) * 60.0;
}

static void init_k(trig_k *k) {
  volatile double d30 = 30.0, d60 = 60.0, half = 0.5, one = 1.0;
  k->sin_30 = sin(d30 * RADIANS_PER_DEGREE);
  k->one_minus_cos_60 = 1.0 - cos(d60 * RADIANS_PER_DEGREE);
  k->asin_0_5 = asin(half);
  k->acos_0_5 = acos(half);
  k->atan_1_0 = atan(one);
  k->tan_45 = sind_q1(k, 45.0) / cosd_q1(k, 45.0);
  k->cot_45 = cosd_q1(k, 45.0) / sind_q1(k, 45.0);
}

static int out_of_range(lm_error *err, const lm_bexpr *e) {
  return lm_fn_error(err, e, "22003", "input is out of range");
}

/* check_float8_val: an infinite result from finite input (unless inf_ok)
 * or a zero one from non-zero input (unless zero_ok) is out of range */
static int check(lm_error *err, const lm_bexpr *e, double r, bool inf_ok,
                 bool zero_ok) {
  if (!inf_ok && isinf(r))
    return lm_fn_error(err, e, "22003", "value out of range: overflow");
  if (!zero_ok && r == 0.0)
    return lm_fn_error(err, e, "22003", "value out of range: underflow");
  return 0;
}

/* The degree functions' reduction of x (finite) to [0, 90]: *sign is the
 * result's sign; cos: the cosine's reduction, else the sine's / tangent's
 * (tan: the tangent's, odd about 90). */
static double reduce(double x, int kind, double *sign) {
  *sign = 1.0;
  x = fmod(x, 360.0);
  if (kind == 1) { /* cos */
    if (x < 0.0)
      x = -x;
    if (x > 180.0)
      x = 360.0 - x;
    if (x > 90.0) {
      x = 180.0 - x;
      *sign = -*sign;
    }
    return x;
  }
  if (x < 0.0) {
    x = -x;
    *sign = -*sign;
  }
  if (x > 180.0) {
    x = 360.0 - x;
    *sign = -*sign;
  }
  if (x > 90.0) {
    x = 180.0 - x;
    if (kind == 2) /* tan, cot */
      *sign = -*sign;
  }
  return x;
}

static int trig_row(const lm_bexpr *e, double x, double y, const trig_k *k,
                    double *r, lm_error *err) {
  double s;
  switch (e->fn) {
  case LM_FN_SIN:
  case LM_FN_COS:
  case LM_FN_TAN:
  case LM_FN_COT:
    if (isnan(x)) {
      *r = NAN;
      return 0;
    }
    if (isinf(x))
      return out_of_range(err, e);
    if (e->fn == LM_FN_COT) {
      *r = 1.0 / tan(x);
      return check(err, e, *r, true, true); /* cot(0) is Infinity */
    }
    *r = e->fn == LM_FN_SIN ? sin(x) : e->fn == LM_FN_COS ? cos(x) : tan(x);
    return check(err, e, *r, e->fn == LM_FN_TAN, true);
  case LM_FN_ASIN:
  case LM_FN_ACOS:
    if (isnan(x)) {
      *r = NAN;
      return 0;
    }
    if (x < -1.0 || x > 1.0)
      return out_of_range(err, e);
    *r = e->fn == LM_FN_ASIN ? asin(x) : acos(x);
    return check(err, e, *r, false, true);
  case LM_FN_ATAN:
    *r = isnan(x) ? NAN : atan(x);
    return check(err, e, *r, false, true);
  case LM_FN_ATAN2:
    *r = isnan(x) || isnan(y) ? NAN : atan2(x, y);
    return check(err, e, *r, false, true);
  case LM_FN_SIND:
  case LM_FN_COSD:
  case LM_FN_TAND:
  case LM_FN_COTD: {
    if (isnan(x)) {
      *r = NAN;
      return 0;
    }
    if (isinf(x))
      return out_of_range(err, e);
    int kind = e->fn == LM_FN_COSD ? 1 : e->fn == LM_FN_SIND ? 0 : 2;
    double a = reduce(x, kind, &s);
    if (e->fn == LM_FN_SIND)
      *r = s * sind_q1(k, a);
    else if (e->fn == LM_FN_COSD)
      *r = s * cosd_q1(k, a);
    else if (e->fn == LM_FN_TAND) {
      volatile double t = sind_q1(k, a) / cosd_q1(k, a);
      *r = s * (t / k->tan_45);
    } else {
      volatile double t = cosd_q1(k, a) / sind_q1(k, a);
      *r = s * (t / k->cot_45);
    }
    if (kind == 2 && *r == 0.0)
      *r = 0.0; /* no -0 (PostgreSQL) */
    return check(err, e, *r, kind == 2, true);
  }
  case LM_FN_ASIND:
  case LM_FN_ACOSD:
    if (isnan(x)) {
      *r = NAN;
      return 0;
    }
    if (x < -1.0 || x > 1.0)
      return out_of_range(err, e);
    if (e->fn == LM_FN_ASIND)
      *r = x >= 0.0 ? asind_q1(k, x) : -asind_q1(k, -x);
    else
      *r = x >= 0.0 ? acosd_q1(k, x) : 90.0 + asind_q1(k, -x);
    return check(err, e, *r, false, true);
  case LM_FN_ATAND: {
    if (isnan(x)) {
      *r = NAN;
      return 0;
    }
    volatile double t = atan(x);
    *r = (t / k->atan_1_0) * 45.0;
    return check(err, e, *r, false, true);
  }
  case LM_FN_ATAN2D: {
    if (isnan(x) || isnan(y)) {
      *r = NAN;
      return 0;
    }
    volatile double t = atan2(x, y);
    *r = (t / k->atan_1_0) * 45.0;
    return check(err, e, *r, false, true);
  }
  case LM_FN_SINH:
    *r = sinh(x); /* overflows to ±Infinity, as PostgreSQL */
    return 0;
  case LM_FN_COSH:
    *r = cosh(x);
    return check(err, e, *r, true, false);
  case LM_FN_TANH:
    *r = tanh(x);
    return check(err, e, *r, false, true);
  case LM_FN_ASINH:
    *r = asinh(x);
    return check(err, e, *r, true, true);
  case LM_FN_ACOSH:
    if (x < 1.0) /* NaN passes, as PostgreSQL */
      return out_of_range(err, e);
    *r = acosh(x);
    return check(err, e, *r, true, true);
  case LM_FN_ATANH:
    if (x < -1.0 || x > 1.0)
      return out_of_range(err, e);
    *r = x == -1.0 ? -INFINITY : x == 1.0 ? INFINITY : atanh(x);
    return check(err, e, *r, true, true);
  default:
    return lm_fn_error(err, e, "0A000", "function not implemented");
  }
}

static int trigfn_row(const lm_bexpr *e, lm_array *const *a, int64_t i,
                      lm_builder *b, lm_buf *o, void *ctx, lm_error *err) {
  (void)o;
  double x = lm_array_get_f64(a[0], i);
  double y = e->n_args > 1 ? lm_array_get_f64(a[1], i) : 0;
  double r = 0;
  int rc = trig_row(e, x, y, ctx, &r, err);
  if (!rc)
    lm_builder_append_double(b, r);
  return rc;
}

int lm_trigfn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                   lm_error *err) {
  trig_k k;
  init_k(&k);
  return lm_fn_rows(e, in, e->n_args, trigfn_row, &k, out, err);
}
