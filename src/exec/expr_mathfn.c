/*
 * PostgreSQL math functions, a batch at a time (bound in plan/func_bind.c):
 * trunc, sqrt, cbrt, ln, log10/log(x), log(b, x), exp, power, sign, pi,
 * degrees, radians, random, setseed, width_bucket. NULL in, NULL out.
 * Domain errors and overflow are errors with PostgreSQL's messages and
 * SQLSTATEs (float8 semantics: an infinite or zero result from finite,
 * non-zero inputs is "value out of range: overflow / underflow", 22003).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/lm_exec.h"
#include "exec/lm_strfn.h"

/* random(): one splitmix64 stream per thread; setseed(x) restarts it at a
 * state derived from x, so a seeded sequence is repeatable. Unseeded, it
 * starts from the address of the state and the clock. */
static _Thread_local uint64_t rng_state;
static _Thread_local bool rng_seeded;

static uint64_t splitmix64(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double next_random(void) {
  if (!rng_seeded) {
    rng_state = (uint64_t)(uintptr_t)&rng_state ^ (uint64_t)lm_now_us();
    rng_seeded = true;
  }
  return (double)(splitmix64() >> 11) * 0x1.0p-53; /* [0, 1) */
}

/* Trunc of v to d decimal places (d < 0: tens, hundreds...). */
static double trunc_places(double v, int64_t d) {
  if (d > 300)
    d = 300;
  if (d < -300)
    d = -300;
  double m = pow(10.0, (double)(d < 0 ? -d : d));
  double r = d >= 0 ? trunc(v * m) / m : trunc(v / m) * m;
  return isfinite(r) ? r : v;
}

static int range_error(lm_error *err, const lm_bexpr *e, double r) {
  return lm_fn_error(err, e, "22003", "value out of range: %s",
                     r == 0 ? "underflow" : "overflow");
}

/* One row of a DOUBLE function; x, y the arguments. 0 or an error. */
static int f64_row(const lm_bexpr *e, double x, double y, double *r,
                   lm_error *err) {
  switch (e->fn) {
  case LM_FN_TRUNC:
    *r = trunc(x);
    break;
  case LM_FN_SQRT:
    if (x < 0)
      return lm_fn_error(err, e, "2201F",
                         "cannot take square root of a negative number");
    *r = sqrt(x);
    break;
  case LM_FN_CBRT:
    *r = cbrt(x);
    break;
  case LM_FN_LN:
  case LM_FN_LOG10:
    if (x == 0)
      return lm_fn_error(err, e, "2201E", "cannot take logarithm of zero");
    if (x < 0)
      return lm_fn_error(err, e, "2201E",
                         "cannot take logarithm of a negative number");
    *r = e->fn == LM_FN_LN ? log(x) : log10(x);
    break;
  case LM_FN_LOG: /* log(base x, value y) */
    if (x == 0 || y == 0)
      return lm_fn_error(err, e, "2201E", "cannot take logarithm of zero");
    if (x < 0 || y < 0)
      return lm_fn_error(err, e, "2201E",
                         "cannot take logarithm of a negative number");
    if (x == 1)
      return lm_fn_error(err, e, "22012", "division by zero");
    /* near 1, log1p of the exact difference keeps the digits a numeric
     * logarithm (PostgreSQL's log(b, x)) keeps */
    *r = (fabs(y - 1) < 0.5 ? log1p(y - 1) : log(y)) /
         (fabs(x - 1) < 0.5 ? log1p(x - 1) : log(x));
    break;
  case LM_FN_EXP:
    *r = exp(x);
    if (!isnan(x) && !isinf(x) && (isinf(*r) || *r == 0))
      return range_error(err, e, *r);
    break;
  case LM_FN_POWER:
    if (x == 0 && y < 0)
      return lm_fn_error(err, e, "2201F",
                         "zero raised to a negative power is undefined");
    if (x < 0 && isfinite(y) && floor(y) != y)
      return lm_fn_error(err, e, "2201F",
                         "a negative number raised to a non-integer power "
                         "yields a complex result");
    *r = pow(x, y);
    if (isfinite(x) && isfinite(y) && (isinf(*r) || (*r == 0 && x != 0)))
      return range_error(err, e, *r);
    break;
  case LM_FN_SIGN:
    *r = x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
    break;
  case LM_FN_PI:
    *r = M_PI;
    break;
  case LM_FN_DEGREES:
    *r = x * (180.0 / M_PI);
    if (isinf(*r) && isfinite(x))
      return range_error(err, e, *r);
    break;
  case LM_FN_RADIANS:
    *r = x * (M_PI / 180.0);
    if ((isinf(*r) && isfinite(x)) || (*r == 0 && x != 0))
      return range_error(err, e, *r);
    break;
  case LM_FN_RANDOM:
    *r = next_random();
    break;
  default:
    return lm_fn_error(err, e, "0A000", "function not implemented");
  }
  return 0;
}

static int mathfn_row(const lm_bexpr *e, lm_array *const *a, int64_t i,
                      lm_builder *b, lm_buf *o, void *ctx, lm_error *err) {
  (void)o;
  (void)ctx;
  int rc;
  bool int_out = e->type.id == LM_TYPE_INT64;
  if (e->fn == LM_FN_SETSEED) {
    double s = lm_array_get_f64(a[0], i);
    if (!(s >= -1.0 && s <= 1.0)) {
      return lm_fn_error(err, e, "22003",
                         "setseed parameter %g is out of allowed range "
                         "[-1,1]",
                         s);
    }
    rng_state = (uint64_t)(int64_t)(s * 2147483647.0);
    rng_seeded = true;
    lm_builder_append_str(b, "", 0);
    return 0;
  }
  if (e->fn == LM_FN_WIDTH_BUCKET) {
    double x = lm_array_get_f64(a[0], i), lo = lm_array_get_f64(a[1], i),
           hi = lm_array_get_f64(a[2], i);
    int64_t cnt = lm_array_get_i64(a[3], i);
    if (cnt <= 0 || cnt > INT32_MAX) {
      return lm_fn_error(err, e, "2201G", "count must be greater than zero");
    }
    if (lo == hi) {
      return lm_fn_error(err, e, "2201G",
                         "lower bound cannot equal upper bound");
    }
    if (isnan(x) || isnan(lo) || isnan(hi) || isinf(lo) || isinf(hi)) {
      return lm_fn_error(err, e, "2201G",
                         "operand, lower bound, and upper bound cannot be "
                         "NaN");
    }
    int64_t r;
    if (lo < hi) {
      if (x < lo)
        r = 0;
      else if (x >= hi)
        r = cnt + 1;
      else
        r = (int64_t)((double)cnt * ((x - lo) / (hi - lo))) + 1;
    } else {
      if (x > lo)
        r = 0;
      else if (x <= hi)
        r = cnt + 1;
      else
        r = (int64_t)((double)cnt * ((lo - x) / (lo - hi))) + 1;
    }
    if (r > cnt + 1)
      r = cnt + 1;
    lm_builder_append_int(b, r);
    return 0;
  }
  if (int_out) { /* trunc(BIGINT[, n]), sign(BIGINT) */
    int64_t v = lm_array_get_i64(a[0], i);
    if (e->fn == LM_FN_SIGN) {
      v = v > 0 ? 1 : v < 0 ? -1 : 0;
    } else if (e->n_args > 1 && lm_array_get_i64(a[1], i) < 0) {
      int64_t d = -lm_array_get_i64(a[1], i), m = 1;
      while (d-- > 0 && m <= INT64_MAX / 10)
        m *= 10;
      v = d >= 0 ? 0 : v / m * m; /* 10^d beyond int64: 0 */
    }
    lm_builder_append_int(b, v);
    return 0;
  }
  double x = e->n_args > 0 ? lm_array_get_f64(a[0], i) : 0;
  double y =
      e->n_args > 1 && e->fn != LM_FN_TRUNC ? lm_array_get_f64(a[1], i) : 0;
  double r = 0;
  if (e->fn == LM_FN_TRUNC && e->n_args > 1)
    r = trunc_places(x, lm_array_get_i64(a[1], i));
  else if ((rc = f64_row(e, x, y, &r, err)))
    return rc;
  if (r == 0)
    r = 0; /* no -0 */
  lm_builder_append_double(b, r);
  return 0;
}

int lm_mathfn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                   lm_error *err) {
  return lm_fn_rows(e, in, e->n_args, mathfn_row, NULL, out, err);
}
