/*
 * exec/agg_stat.c — the statistical aggregates' arithmetic: PostgreSQL
 * 15's numeric VAR / STDDEV (numeric_stddev_internal, select_div_scale,
 * sqrt_var) over exact 128-bit sums, in 256-bit integers, and its float8
 * regression state (float8_regr_accum / _combine and the final functions
 * of corr, covar_*, regr_*), step for step so the digits are its own.
 */
#include "exec/agg_stat.h"

#include <math.h>
#include <string.h>

typedef unsigned __int128 u128;
typedef __float128 f128;
extern f128 sqrtq(f128); /* libquadmath */

typedef struct u256 {
  u128 hi, lo;
} u256;

static u256 mul128(u128 a, u128 b) {
  uint64_t a0 = (uint64_t)a, a1 = (uint64_t)(a >> 64);
  uint64_t b0 = (uint64_t)b, b1 = (uint64_t)(b >> 64);
  u128 p00 = (u128)a0 * b0, p01 = (u128)a0 * b1, p10 = (u128)a1 * b0,
       p11 = (u128)a1 * b1;
  u128 mid = (p00 >> 64) + (uint64_t)p01 + (uint64_t)p10;
  u256 r;
  r.lo = (p00 & UINT64_MAX) | (mid << 64);
  r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
  return r;
}

static int cmp256(u256 a, u256 b) {
  if (a.hi != b.hi)
    return a.hi < b.hi ? -1 : 1;
  return a.lo < b.lo ? -1 : a.lo > b.lo;
}

static u256 sub256(u256 a, u256 b) {
  u256 r;
  r.lo = a.lo - b.lo;
  r.hi = a.hi - b.hi - (a.lo < b.lo);
  return r;
}

/* a * m + add; false on overflow */
static bool muladd256(u256 *a, uint64_t m, uint64_t add) {
  u256 lo = mul128(a->lo, m), hi = mul128(a->hi, m);
  if (hi.hi)
    return false;
  u256 r = lo;
  u128 h = r.hi + hi.lo;
  if (h < r.hi)
    return false;
  r.hi = h;
  u128 l = r.lo + add;
  if (l < r.lo && ++r.hi == 0)
    return false;
  r.lo = l;
  *a = r;
  return true;
}

/* q = a / d, *rem = a % d; d < 2^127, d > 0 */
static u256 divmod(u256 a, u128 d, u128 *rem) {
  u256 q = {0, 0};
  u128 r = 0;
  for (int i = 255; i >= 0; i--) {
    u128 bit = i >= 128 ? (a.hi >> (i - 128)) & 1 : (a.lo >> i) & 1;
    r = (r << 1) | bit;
    if (r >= d) {
      r -= d;
      if (i >= 128)
        q.hi |= (u128)1 << (i - 128);
      else
        q.lo |= (u128)1 << i;
    }
  }
  *rem = r;
  return q;
}

static bool is0(u256 a) {
  return !a.hi && !a.lo;
}

/* Decimal digits of a (a != 0) into buf (most significant first); the
 * count. */
static int digits(u256 a, char *buf) {
  char tmp[80];
  int n = 0;
  const u128 e19 = (u128)10000000000000000000ULL;
  while (!is0(a)) {
    u128 r;
    a = divmod(a, e19, &r);
    uint64_t c = (uint64_t)r;
    for (int k = 0; k < 19; k++) {
      tmp[n++] = (char)('0' + c % 10);
      c /= 10;
    }
  }
  while (n > 1 && tmp[n - 1] == '0')
    n--;
  for (int i = 0; i < n; i++)
    buf[i] = tmp[n - 1 - i];
  return n;
}

/* PostgreSQL's base-10000 weight and first digit of a@scale (a != 0). */
static void nbase(u256 a, int scale, int *weight, int *first) {
  char d[80];
  int n = digits(a, d);
  int e = n - 1 - scale; /* 10^e <= value < 10^(e+1) */
  int w = e >= 0 ? e / 4 : -((-e + 3) / 4);
  int k = e - 4 * w + 1; /* digits in the leading base-10000 group */
  int f = 0;
  for (int i = 0; i < k; i++)
    f = f * 10 + (i < n ? d[i] - '0' : 0);
  *weight = w;
  *first = f;
}

/* round(a / 10^k) half away from zero (a >= 0) */
static u256 round_down(u256 a, int k) {
  for (int i = 0; i < k; i++) {
    u128 r;
    a = divmod(a, 10, &r);
    if (i == k - 1 && r >= 5)
      muladd256(&a, 1, 1);
  }
  return a;
}

int lm_s256_add(lm_s256 *acc, lm_s256 b) {
  u128 lo = acc->lo + b.lo;
  lm_i128 hi;
  if (__builtin_add_overflow(acc->hi, b.hi, &hi) ||
      __builtin_add_overflow(hi, (lm_i128)(lo < acc->lo), &hi))
    return -1;
  acc->hi = hi;
  acc->lo = lo;
  return 0;
}

int lm_s256_add_sq(lm_s256 *acc, lm_i128 x, int64_t w) {
  if (w == 0 || x == 0)
    return 0;
  u128 ax = x < 0 ? -(u128)x : (u128)x;
  u256 q = mul128(ax, ax); /* < 2^254 */
  uint64_t aw = w < 0 ? -(uint64_t)w : (uint64_t)w;
  if (aw != 1 && (!muladd256(&q, aw, 0) || q.hi >> 127))
    return -1;
  lm_s256 d = {(lm_i128)q.hi, q.lo};
  if (w < 0) { /* two's complement negation */
    d.lo = ~q.lo + 1;
    d.hi = (lm_i128)(~q.hi + (u128)(d.lo == 0));
  }
  return lm_s256_add(acc, d);
}

int lm_numvar_result(int64_t n, lm_i128 sx, lm_i128 sxx, int s, bool samp,
                     bool sd, int out_scale, lm_i128 *out) {
  lm_s256 w = {sxx < 0 ? -1 : 0, (u128)sxx};
  return lm_numvar_result256(n, sx, w, s, samp, sd, out_scale, out);
}

int lm_numvar_result256(int64_t n, lm_i128 sx, lm_s256 sxx, int s, bool samp,
                        bool sd, int out_scale, lm_i128 *out) {
  if (n <= 0 || (samp && n <= 1))
    return LM_NUMVAR_NULL;
  if (sxx.hi < 0) { /* not expected: a sum of squares */
    *out = 0;
    return 0;
  }
  u128 asx = sx < 0 ? -(u128)sx : (u128)sx;
  u256 num = {(u128)sxx.hi, sxx.lo}, sq = mul128(asx, asx);
  if (!muladd256(&num, (uint64_t)n, 0))
    return LM_NUMVAR_OVERFLOW;
  if (cmp256(num, sq) <= 0) {
    *out = 0; /* PostgreSQL's const_zero */
    return 0;
  }
  num = sub256(num, sq);
  u128 den = (u128)n * (u128)(samp ? n - 1 : n);
  if (den >> 126)
    return LM_NUMVAR_OVERFLOW;
  /* select_div_scale(num@2s, den@0) */
  int w1, f1, w2, f2;
  nbase(num, 2 * s, &w1, &f1);
  nbase((u256){0, den}, 0, &w2, &f2);
  int qw = w1 - w2;
  if (f1 <= f2)
    qw--;
  int rscale = 16 - qw * 4;
  if (rscale < 2 * s)
    rscale = 2 * s;
  if (rscale < 0)
    rscale = 0;
  if (rscale > 1000)
    rscale = 1000;
  /* q = round(num * 10^(rscale - 2s) / den) */
  u128 rem;
  u256 q = divmod(num, den, &rem);
  for (int i = 0; i < rscale - 2 * s; i++) {
    rem *= 10;
    if (!muladd256(&q, 10, (uint64_t)(rem / den)))
      return LM_NUMVAR_OVERFLOW;
    rem %= den;
  }
  if (rem >= den - rem && !muladd256(&q, 1, 1))
    return LM_NUMVAR_OVERFLOW;
  if (sd) { /* sqrt_var(q@rscale, rscale): isqrt(q * 10^rscale), rounded */
    u256 x = q;
    for (int i = 0; i < rscale; i++)
      if (!muladd256(&x, 10, 0))
        return LM_NUMVAR_OVERFLOW;
    if (x.hi >> 124)
      return LM_NUMVAR_OVERFLOW;
    f128 xf = (f128)x.hi * 0x1p64Q * 0x1p64Q + (f128)x.lo;
    u128 r = (u128)sqrtq(xf);
    while (cmp256(mul128(r, r), x) > 0)
      r--;
    while (cmp256(mul128(r + 1, r + 1), x) <= 0)
      r++;
    /* nearest: r + 1/2 <= sqrt(x) <=> (2r + 1)^2 <= 4x */
    u256 x4 = x;
    muladd256(&x4, 4, 0);
    if (cmp256(mul128(2 * r + 1, 2 * r + 1), x4) <= 0)
      r++;
    q = (u256){0, r};
  }
  if (rscale > out_scale) {
    q = round_down(q, rscale - out_scale);
  } else {
    for (int i = rscale; i < out_scale; i++)
      if (!muladd256(&q, 10, 0))
        return LM_NUMVAR_OVERFLOW;
  }
  if (q.hi || !lm_dec_fits((lm_i128)q.lo, 38) || q.lo >> 127)
    return LM_NUMVAR_OVERFLOW;
  *out = (lm_i128)q.lo;
  return 0;
}

/* ------------------------------------------------ float8 regression */

int lm_regr_accum(lm_regr *st, double y, double x) {
  lm_regr r = *st;
  double n0 = st->n;
  r.n += 1.0;
  r.sx += x;
  r.sy += y;
  if (n0 > 0.0) {
    double tx = x * r.n - r.sx, ty = y * r.n - r.sy;
    double scale = 1.0 / (r.n * n0);
    r.sxx += tx * tx * scale;
    r.syy += ty * ty * scale;
    r.sxy += tx * ty * scale;
    if (isinf(r.sx) || isinf(r.sxx) || isinf(r.sy) || isinf(r.syy) ||
        isinf(r.sxy)) {
      if (((isinf(r.sx) || isinf(r.sxx)) && !isinf(st->sx) && !isinf(x)) ||
          ((isinf(r.sy) || isinf(r.syy)) && !isinf(st->sy) && !isinf(y)) ||
          (isinf(r.sxy) && !isinf(st->sx) && !isinf(x) && !isinf(st->sy) &&
           !isinf(y)))
        return -1;
      if (isinf(r.sxx))
        r.sxx = NAN;
      if (isinf(r.syy))
        r.syy = NAN;
      if (isinf(r.sxy))
        r.sxy = NAN;
    }
  } else {
    if (isnan(x) || isinf(x))
      r.sxx = r.sxy = NAN;
    if (isnan(y) || isinf(y))
      r.syy = r.sxy = NAN;
  }
  *st = r;
  return 0;
}

static int pl(double a, double b, double *out) {
  *out = a + b;
  return isinf(*out) && !isinf(a) && !isinf(b) ? -1 : 0;
}

int lm_regr_combine(lm_regr *a, const lm_regr *b) {
  if (b->n == 0.0)
    return 0;
  if (a->n == 0.0) {
    *a = *b;
    return 0;
  }
  lm_regr r;
  double n1 = a->n, n2 = b->n;
  r.n = n1 + n2;
  if (pl(a->sx, b->sx, &r.sx))
    return -1;
  double t1 = a->sx / n1 - b->sx / n2;
  r.sxx = a->sxx + b->sxx + n1 * n2 * t1 * t1 / r.n;
  if (isinf(r.sxx) && !isinf(a->sxx) && !isinf(b->sxx))
    return -1;
  if (pl(a->sy, b->sy, &r.sy))
    return -1;
  double t2 = a->sy / n1 - b->sy / n2;
  r.syy = a->syy + b->syy + n1 * n2 * t2 * t2 / r.n;
  if (isinf(r.syy) && !isinf(a->syy) && !isinf(b->syy))
    return -1;
  r.sxy = a->sxy + b->sxy + n1 * n2 * t1 * t2 / r.n;
  if (isinf(r.sxy) && !isinf(a->sxy) && !isinf(b->sxy))
    return -1;
  *a = r;
  return 0;
}

int lm_regr_fn_named(const char *name) {
  static const struct {
    const char *name;
    int fn;
  } m[] = {
      {"corr", LM_REGR_CORR},
      {"covar_pop", LM_REGR_COVAR_POP},
      {"covar_samp", LM_REGR_COVAR_SAMP},
      {"regr_slope", LM_REGR_SLOPE},
      {"regr_intercept", LM_REGR_INTERCEPT},
      {"regr_r2", LM_REGR_R2},
      {"regr_avgx", LM_REGR_AVGX},
      {"regr_avgy", LM_REGR_AVGY},
      {"regr_sxx", LM_REGR_SXX},
      {"regr_syy", LM_REGR_SYY},
      {"regr_sxy", LM_REGR_SXY},
      {"regr_count", -1},
  };
  for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
    if (!strcmp(name, m[i].name))
      return m[i].fn;
  return -2;
}

bool lm_regr_final(lm_regr_fn fn, const lm_regr *r, double *out) {
  double n = r->n;
  if (n < 1.0)
    return false;
  switch (fn) {
  case LM_REGR_CORR:
    if (r->sxx == 0 || r->syy == 0)
      return false;
    *out = r->sxy / sqrt(r->sxx * r->syy);
    return true;
  case LM_REGR_COVAR_POP:
    *out = r->sxy / n;
    return true;
  case LM_REGR_COVAR_SAMP:
    if (n < 2.0)
      return false;
    *out = r->sxy / (n - 1.0);
    return true;
  case LM_REGR_SLOPE:
    if (r->sxx == 0)
      return false;
    *out = r->sxy / r->sxx;
    return true;
  case LM_REGR_INTERCEPT:
    if (r->sxx == 0)
      return false;
    *out = (r->sy - r->sx * r->sxy / r->sxx) / n;
    return true;
  case LM_REGR_R2:
    if (r->sxx == 0)
      return false;
    *out = r->syy == 0 ? 1.0 : (r->sxy * r->sxy) / (r->sxx * r->syy);
    return true;
  case LM_REGR_AVGX:
    *out = r->sx / n;
    return true;
  case LM_REGR_AVGY:
    *out = r->sy / n;
    return true;
  case LM_REGR_SXX:
    *out = r->sxx;
    return true;
  case LM_REGR_SYY:
    *out = r->syy;
    return true;
  case LM_REGR_SXY:
    *out = r->sxy;
    return true;
  }
  return false;
}
