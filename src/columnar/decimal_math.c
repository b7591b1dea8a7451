/*
 * columnar/decimal_math.c — sqrt, ln, log10, log(b, x), exp and power of
 * DECIMAL128 values with PostgreSQL 15's numeric result scales
 * (numeric_sqrt, numeric_ln, log_var, numeric_exp, power_var /
 * power_var_int and their rscale rules, NUMERIC_MIN_SIG_DIGITS = 16).
 *
 * The scale of each result is PostgreSQL's, chosen from the argument
 * values exactly as PostgreSQL does. The digits are computed in IEEE
 * binary128 (__float128, libquadmath: 113 bits, about 34 significant
 * digits), then rounded half away from zero at that scale: they are
 * PostgreSQL's (exact, correctly rounded) digits wherever the result has
 * up to about 32 significant digits. power() with an integer exponent is
 * exact in 128-bit integers whenever base^n fits 38 digits.
 */
#include <math.h>
#include <stdbool.h>

#include "columnar/lm_decimal.h"
#include "columnar/lm_decimal_math.h"

typedef __float128 f128;
typedef unsigned __int128 u128;

/* libquadmath (quadmath.h is gcc's, clang does not ship it) */
extern f128 sqrtq(f128);
extern f128 logq(f128);
extern f128 log10q(f128);
extern f128 expq(f128);
extern f128 powq(f128, f128);

#define MIN_SIG_DIGITS 16
#define MAX_DISPLAY_SCALE 1000
#define MAX_RESULT_SCALE 2000

static f128 pow10q(int k) {
  f128 r = 1, b = 10;
  bool neg = k < 0;
  unsigned u = (unsigned)(neg ? -k : k);
  while (u) {
    if (u & 1)
      r *= b;
    b *= b;
    u >>= 1;
  }
  return neg ? 1 / r : r;
}

static f128 to_q(lm_i128 v, int s) {
  return (f128)v / pow10q(s);
}

static int clamp_scale(int r) {
  return r < 0 ? 0 : r > MAX_DISPLAY_SCALE ? MAX_DISPLAY_SCALE : r;
}

/* The decimal exponent e of |a@s| (10^e <= |x| < 10^(e+1)); a != 0. */
static int dec_exp(lm_i128 a, int s) {
  return lm_dec_digits(a) - 1 - s;
}

/* PostgreSQL's NumericVar view of a@s: weight (base-10000 groups), the
 * first two base-10000 digits as one number (d0 * 10000 + d1, or d0 when
 * the value has one group) and the decimal weight of that number. */
static void nbase2(lm_i128 a, int s, int *weight, double *digits,
                   int *dweight) {
  if (a == 0) {
    *weight = 0;
    *digits = 0;
    *dweight = 0;
    return;
  }
  u128 u = a < 0 ? (u128)0 - (u128)a : (u128)a;
  int e = dec_exp(a, s);
  int w = e >= 0 ? e / 4 : -((-e + 3) / 4);
  int x = -s - 4 * w + 4; /* floor(u * 10^x) = d0 * 10000 + d1 */
  u128 f, rest;
  if (x >= 0) {
    f = u * (u128)lm_dec_pow10(x);
    rest = 0;
  } else {
    u128 p = (u128)lm_dec_pow10(-x);
    f = u / p;
    rest = u % p;
  }
  *weight = w;
  if (f % 10000 == 0 && rest == 0) { /* ndigits == 1 */
    *digits = (double)(f / 10000);
    *dweight = w * 4;
  } else {
    *digits = (double)f;
    *dweight = w * 4 - 4;
  }
}

/* estimate_ln_dweight: the decimal weight of ln(a@s), a > 0. */
static int ln_dweight(lm_i128 a, int s) {
  lm_i128 one = lm_dec_pow10(s);
  /* 0.9 <= x <= 1.1: the weight of x - 1 */
  lm_i128 tenth = s >= 1 ? lm_dec_pow10(s - 1) : 0;
  if (s >= 1 && a >= one - tenth && a <= one + tenth) {
    lm_i128 d = a - one;
    return d == 0 ? 0 : dec_exp(d, s);
  }
  if (s == 0 && a == 1)
    return 0;
  int w, dw;
  double digits;
  nbase2(a, s, &w, &digits, &dw);
  if (digits == 0)
    return 0;
  double lnv = log(digits) + dw * 2.302585092994046;
  return (int)log10(fabs(lnv));
}

/* r rounded half away from zero at scale rs into *out; LM_DECM_TOOBIG
 * when it needs more than 38 digits. */
static int round_out(f128 r, int rs, lm_i128 *out) {
  f128 t = r * pow10q(rs);
  f128 lim = pow10q(38);
  if (!(t < lim && t > -lim))
    return LM_DECM_TOOBIG;
  lm_i128 i = (lm_i128)t; /* toward zero */
  f128 frac = t - (f128)i;
  if (frac >= (f128)0.5)
    i++;
  else if (frac <= (f128)-0.5)
    i--;
  if (!lm_dec_fits(i, 38))
    return LM_DECM_TOOBIG;
  *out = i;
  return 0;
}

/* x^n exactly (x = a@s, n >= 0) at scale s*n, when it fits 38 digits. */
static bool int_pow_exact(lm_i128 a, int s, int64_t n, lm_i128 *out,
                          int *scale) {
  if (n > 127 || (int64_t)s * n > 38)
    return false;
  lm_i128 r = 1, lim = lm_dec_pow10(38);
  for (int64_t k = 0; k < n; k++) {
    lm_i128 m;
    if (__builtin_mul_overflow(r, a, &m) || m >= lim || m <= -lim)
      return false;
    r = m;
  }
  *out = r;
  *scale = (int)(s * n);
  return true;
}

/* Whether b@sb is an integer that fits int32, into *n. */
static bool int_exponent(lm_i128 b, int sb, int64_t *n) {
  lm_i128 p = lm_dec_pow10(sb);
  if (b % p != 0)
    return false;
  lm_i128 q = b / p;
  if (q < INT32_MIN || q > INT32_MAX)
    return false;
  *n = (int64_t)q;
  return true;
}

/* -1, 0 or 1 as |a@sa| is below, at or above 1 (a finite). */
static int cmp_abs_one(lm_i128 a, int sa) {
  lm_i128 u = a < 0 ? -a : a, one = lm_dec_pow10(sa);
  return u < one ? -1 : u > one;
}

/* fn of NaN / ±Infinity (a or b special), PostgreSQL 15's rules
 * (numeric_sqrt, _ln, _log, _exp, _power): 0 with *out at scale 0, or an
 * LM_DECM_* error. */
static int special_math(lm_decm_fn fn, lm_i128 a, int sa, lm_i128 b, int sb,
                        lm_i128 *out) {
  const lm_i128 NaN = LM_DEC_NAN, P = LM_DEC_PINF, N = LM_DEC_NINF;
  int s1 = a < 0 ? -1 : a > 0, s2 = b < 0 ? -1 : b > 0;
  switch (fn) {
  case LM_DECM_SQRT:
    if (a == N)
      return LM_DECM_SQRT_NEG;
    *out = a;
    return 0;
  case LM_DECM_LN:
  case LM_DECM_LOG10:
    if (a == N)
      return LM_DECM_LOG_NEG;
    *out = a;
    return 0;
  case LM_DECM_EXP:
    *out = a == N ? 0 : a;
    return 0;
  case LM_DECM_LOG:
    if (a == NaN || b == NaN) {
      *out = NaN;
      return 0;
    }
    if (s1 < 0 || s2 < 0)
      return LM_DECM_LOG_NEG;
    if (s1 == 0 || s2 == 0)
      return LM_DECM_LOG_ZERO;
    *out = a == P ? (b == P ? NaN : 0) : P;
    return 0;
  case LM_DECM_POWER: {
    if (a == NaN || b == NaN) {
      /* NaN ^ 0 and 1 ^ NaN are 1 */
      bool one = (a == NaN && b == 0) ||
                 (b == NaN && !lm_dec_is_special(a) && a == lm_dec_pow10(sa));
      *out = one ? 1 : NaN;
      return 0;
    }
    bool b_int = lm_dec_is_special(b) || b % lm_dec_pow10(sb) == 0;
    if (s1 == 0 && s2 < 0)
      return LM_DECM_POW_ZERO_NEG;
    if (s1 < 0 && !b_int)
      return LM_DECM_POW_COMPLEX;
    if (s2 == 0) {
      *out = 1;
    } else if (s1 == 0) {
      *out = 0;
    } else if (!lm_dec_is_special(a) && a == lm_dec_pow10(sa)) {
      *out = 1;
    } else if (lm_dec_is_special(b)) {
      /* x ^ ±Infinity by |x| against 1 (x finite or infinite) */
      int c = lm_dec_is_special(a) ? 1 : cmp_abs_one(a, sa);
      *out = c == 0 ? 1 : (c < 0) == (b == N) ? P : 0;
    } else if (a == P) {
      *out = s2 < 0 ? 0 : P;
    } else { /* -Infinity ^ finite y */
      bool odd = b_int && ((b / lm_dec_pow10(sb)) % 2 != 0);
      *out = s2 < 0 ? 0 : odd ? N : P;
    }
    return 0;
  }
  }
  return LM_DECM_OVERFLOW;
}

int lm_dec_math(lm_decm_fn fn, lm_i128 a, int sa, lm_i128 b, int sb,
                lm_i128 *out, int *rscale) {
  int rs = 0;
  bool two = fn == LM_DECM_LOG || fn == LM_DECM_POWER;
  if (lm_dec_is_special(a) || (two && lm_dec_is_special(b))) {
    *rscale = 0;
    return special_math(fn, a, sa, b, sb, out);
  }
  switch (fn) {
  case LM_DECM_SQRT: {
    if (a < 0)
      return LM_DECM_SQRT_NEG;
    int w, dw;
    double dg;
    nbase2(a, sa, &w, &dg, &dw);
    int sweight = (w + 1) * 4 / 2 - 1;
    rs = MIN_SIG_DIGITS - sweight;
    rs = clamp_scale(rs < sa ? sa : rs);
    *rscale = rs;
    return round_out(sqrtq(to_q(a, sa)), rs, out);
  }
  case LM_DECM_LN:
  case LM_DECM_LOG10: {
    if (a == 0)
      return LM_DECM_LOG_ZERO;
    if (a < 0)
      return LM_DECM_LOG_NEG;
    /* log(x) is log(10, x): ln(10) has decimal weight 0 */
    rs = MIN_SIG_DIGITS - ln_dweight(a, sa);
    rs = clamp_scale(rs < sa ? sa : rs);
    *rscale = rs;
    f128 x = to_q(a, sa);
    return round_out(fn == LM_DECM_LN ? logq(x) : log10q(x), rs, out);
  }
  case LM_DECM_LOG: { /* log(base a, x b) */
    if (a == 0)
      return LM_DECM_LOG_ZERO;
    if (a < 0)
      return LM_DECM_LOG_NEG;
    if (b == 0)
      return LM_DECM_LOG_ZERO;
    if (b < 0)
      return LM_DECM_LOG_NEG;
    if (a == lm_dec_pow10(sa))
      return LM_DECM_DIV_ZERO; /* ln(1) = 0 */
    rs = MIN_SIG_DIGITS - (ln_dweight(b, sb) - ln_dweight(a, sa));
    rs = rs < sa ? sa : rs;
    rs = clamp_scale(rs < sb ? sb : rs);
    *rscale = rs;
    return round_out(logq(to_q(b, sb)) / logq(to_q(a, sa)), rs, out);
  }
  case LM_DECM_EXP: {
    double val = lm_dec_to_double(a, sa) * 0.434294481903252;
    val = val < -MAX_RESULT_SCALE  ? -MAX_RESULT_SCALE
          : val > MAX_RESULT_SCALE ? MAX_RESULT_SCALE
                                   : val;
    rs = MIN_SIG_DIGITS - (int)val;
    rs = clamp_scale(rs < sa ? sa : rs);
    *rscale = rs;
    double x = lm_dec_to_double(a, sa); /* exp_var's overflow test */
    if (x >= MAX_RESULT_SCALE * 3)
      return LM_DECM_OVERFLOW;
    if (val >= 38) /* the result has over 38 digits before the point */
      return LM_DECM_TOOBIG;
    if (val < -(double)rs - 1) { /* rounds to zero at its scale */
      *out = 0;
      return 0;
    }
    return round_out(expq(to_q(a, sa)), rs, out);
  }
  case LM_DECM_POWER: {
    if (a == 0 && b < 0)
      return LM_DECM_POW_ZERO_NEG;
    int64_t n;
    if (int_exponent(b, sb, &n)) {
      /* power_var_int: PostgreSQL 15 takes max(16, base scale) */
      rs = clamp_scale(MIN_SIG_DIGITS < sa ? sa : MIN_SIG_DIGITS);
      *rscale = rs;
      lm_i128 p;
      int ps;
      if (n >= 0 && int_pow_exact(a, sa, n, &p, &ps))
        return lm_dec_rescale(p, ps, rs, out) ? LM_DECM_TOOBIG : 0;
      if (a == 0) { /* 0^n, n > 0 */
        *out = 0;
        return 0;
      }
      f128 x = to_q(a, sa);
      f128 r = powq(x, (f128)n);
      double lg = (double)n * log10(fabs(lm_dec_to_double(a, sa)));
      if (lg > 1000 * 6.03)
        return LM_DECM_OVERFLOW;
      if (lg < -(double)rs - 1) {
        *out = 0;
        return 0;
      }
      return round_out(r, rs, out);
    }
    if (a == 0) { /* 0 ^ non-integer */
      *rscale = MIN_SIG_DIGITS;
      *out = 0;
      return 0;
    }
    if (a < 0)
      return LM_DECM_POW_COMPLEX;
    double val = log(lm_dec_to_double(a, sa)) * lm_dec_to_double(b, sb);
    if (fabs(val) > MAX_RESULT_SCALE * 3.01) {
      if (val > 0)
        return LM_DECM_OVERFLOW;
      *rscale = MAX_DISPLAY_SCALE;
      *out = 0;
      return 0;
    }
    val *= 0.434294481903252;
    rs = MIN_SIG_DIGITS - (int)val;
    rs = rs < sa ? sa : rs;
    rs = clamp_scale(rs < sb ? sb : rs);
    *rscale = rs;
    if (val >= 38)
      return LM_DECM_TOOBIG;
    if (val < -(double)rs - 1) {
      *out = 0;
      return 0;
    }
    return round_out(powq(to_q(a, sa), to_q(b, sb)), rs, out);
  }
  }
  return LM_DECM_TOOBIG;
}

const char *lm_dec_math_error(int code, const char **sqlstate) {
  switch (code) {
  case LM_DECM_SQRT_NEG:
    *sqlstate = "2201F";
    return "cannot take square root of a negative number";
  case LM_DECM_LOG_ZERO:
    *sqlstate = "2201E";
    return "cannot take logarithm of zero";
  case LM_DECM_LOG_NEG:
    *sqlstate = "2201E";
    return "cannot take logarithm of a negative number";
  case LM_DECM_DIV_ZERO:
    *sqlstate = "22012";
    return "division by zero";
  case LM_DECM_POW_ZERO_NEG:
    *sqlstate = "2201F";
    return "zero raised to a negative power is undefined";
  case LM_DECM_POW_COMPLEX:
    *sqlstate = "2201F";
    return "a negative number raised to a non-integer power yields a "
           "complex result";
  case LM_DECM_OVERFLOW:
    *sqlstate = "22003";
    return "value overflows numeric format";
  default:
    *sqlstate = "22003";
    return "numeric field overflow";
  }
}
