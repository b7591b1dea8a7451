/*
 * Exact DECIMAL128 arithmetic (lm_decimal.h): parsing, rescaling with
 * half-away-from-zero rounding, division at PostgreSQL's result scale.
 */
#include "columnar/lm_decimal.h"
#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

lm_i128 lm_dec_pow10(int k) {
  static const uint64_t p[20] = {1ULL,
                                 10ULL,
                                 100ULL,
                                 1000ULL,
                                 10000ULL,
                                 100000ULL,
                                 1000000ULL,
                                 10000000ULL,
                                 100000000ULL,
                                 1000000000ULL,
                                 10000000000ULL,
                                 100000000000ULL,
                                 1000000000000ULL,
                                 10000000000000ULL,
                                 100000000000000ULL,
                                 1000000000000000ULL,
                                 10000000000000000ULL,
                                 100000000000000000ULL,
                                 1000000000000000000ULL,
                                 10000000000000000000ULL};
  if (k <= 0)
    return 1;
  if (k > 38)
    k = 38;
  return k < 20 ? (lm_i128)p[k] : (lm_i128)p[19] * (lm_i128)p[k - 19];
}

bool lm_dec_fits(lm_i128 v, int precision) {
  lm_i128 lim = lm_dec_pow10(precision < 1 ? 38 : precision);
  return v < lim && v > -lim;
}

int lm_dec_digits(lm_i128 v) {
  u128 u = v < 0 ? (u128)0 - (u128)v : (u128)v;
  int n = 1;
  while (u >= 10) {
    u /= 10;
    n++;
  }
  return n;
}

static bool sp(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Whether s[i, n) starts with word w (ASCII, any case). */
static bool word_at(const char *s, size_t i, size_t n, const char *w) {
  size_t k = strlen(w);
  if (n - i < k)
    return false;
  for (size_t j = 0; j < k; j++) {
    char c = s[i + j];
    if (c >= 'A' && c <= 'Z')
      c = (char)(c - 'A' + 'a');
    if (c != w[j])
      return false;
  }
  return true;
}

/* PostgreSQL 15 numeric_in's special words ('NaN' unsigned; 'Infinity' and
 * 'inf' with an optional sign; any case), the whole trimmed s[i, n). */
static bool parse_special(const char *s, size_t i, size_t n, lm_i128 *out) {
  if (word_at(s, i, n, "nan") && n - i == 3) {
    *out = LM_DEC_NAN;
    return true;
  }
  bool neg = false;
  if (i < n && (s[i] == '+' || s[i] == '-'))
    neg = s[i++] == '-';
  if ((word_at(s, i, n, "infinity") && n - i == 8) ||
      (word_at(s, i, n, "inf") && n - i == 3)) {
    *out = neg ? LM_DEC_NINF : LM_DEC_PINF;
    return true;
  }
  return false;
}

int lm_dec_parse(const char *s, size_t n, int scale, lm_i128 *out,
                 int *frac_digits) {
  size_t i = 0;
  while (i < n && sp(s[i]))
    i++;
  while (n > i && sp(s[n - 1]))
    n--;
  if (i < n && !(s[i] >= '0' && s[i] <= '9') && parse_special(s, i, n, out)) {
    if (frac_digits)
      *frac_digits = 0;
    return 0;
  }
  bool neg = false;
  if (i < n && (s[i] == '+' || s[i] == '-'))
    neg = s[i++] == '-';
  /* digits into a 38-digit mantissa; the rest only for rounding */
  char dig[200];
  int nd = 0, point = -1, lead = 0;
  bool any = false;
  for (; i < n; i++) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      any = true;
      if (nd == 0 && c == '0' && point < 0) {
        lead++;
        continue;
      }
      if (nd >= (int)sizeof dig)
        return LM_DEC_EOVERFLOW;
      dig[nd++] = c;
    } else if (c == '.' && point < 0) {
      point = nd;
    } else {
      break;
    }
  }
  (void)lead;
  if (!any)
    return LM_DEC_ESYNTAX;
  int frac = point < 0 ? 0 : nd - point; /* digits after the point */
  long exp = 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    bool eneg = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
      eneg = s[i++] == '-';
    if (i >= n || s[i] < '0' || s[i] > '9')
      return LM_DEC_ESYNTAX;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
      if (exp < 100000)
        exp = exp * 10 + (s[i] - '0');
    if (eneg)
      exp = -exp;
  }
  if (i != n)
    return LM_DEC_ESYNTAX;
  /* value = dig * 10^(exp - frac); want round(value * 10^scale) */
  long shift = exp - frac + scale;
  long own = (long)frac - exp;
  if (frac_digits)
    *frac_digits = own < 0 ? 0 : own > 1000 ? 1000 : (int)own;
  lm_i128 v = 0;
  int keep = nd;
  if (shift < 0)
    keep = nd + (int)(shift < -1000 ? -1000 : shift);
  for (int k = 0; k < keep; k++) {
    if (v > (lm_i128)(((u128)1 << 126) / 5))
      return LM_DEC_EOVERFLOW;
    v = v * 10 + (dig[k] - '0');
    if (v >= lm_dec_pow10(38))
      return LM_DEC_EOVERFLOW;
  }
  if (shift < 0) {
    if (keep >= 0 && keep < nd && dig[keep] >= '5')
      v += 1;
  } else {
    for (long k = 0; k < shift; k++) {
      if (v >= lm_dec_pow10(37) && v != 0)
        return LM_DEC_EOVERFLOW;
      v *= 10;
    }
  }
  if (v >= lm_dec_pow10(38))
    return LM_DEC_EOVERFLOW;
  *out = neg ? -v : v;
  return 0;
}

int lm_dec_rescale(lm_i128 v, int from, int to, lm_i128 *out) {
  if (to == from || lm_dec_is_special(v)) {
    *out = v;
    return 0;
  }
  if (to > from) {
    int k = to - from;
    if (k > 38 || !lm_dec_fits(v, 38 - k))
      return v == 0 ? (*out = 0, 0) : LM_DEC_EOVERFLOW;
    *out = v * lm_dec_pow10(k);
    return 0;
  }
  int k = from - to;
  if (k > 38) {
    *out = 0;
    return 0;
  }
  lm_i128 p = lm_dec_pow10(k), q = v / p, r = v % p;
  if (r < 0)
    r = -r;
  if (r * 2 >= p)
    q += v < 0 ? -1 : 1;
  *out = q;
  return 0;
}

int lm_dec_from_double(double d, int scale, lm_i128 *out) {
  if (!isfinite(d)) {
    *out = isnan(d) ? LM_DEC_NAN : d > 0 ? LM_DEC_PINF : LM_DEC_NINF;
    return 0;
  }
  char buf[64];
  int n = snprintf(buf, sizeof buf, "%.15g", d);
  return lm_dec_parse(buf, (size_t)n, scale, out, NULL);
}

double lm_dec_to_double(lm_i128 v, int scale) {
  if (lm_dec_is_special(v))
    return v == LM_DEC_NAN ? (double)NAN : v > 0 ? HUGE_VAL : -HUGE_VAL;
  char buf[64];
  int n = lm_dec_format(buf, v, scale);
  (void)n;
  return strtod(buf, NULL);
}

int lm_dec_format(char *buf, lm_i128 v, int scale) {
  if (lm_dec_is_special(v)) {
    const char *w = v == LM_DEC_NAN ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
    size_t k = strlen(w);
    memcpy(buf, w, k + 1);
    return (int)k;
  }
  u128 u = v < 0 ? (u128)0 - (u128)v : (u128)v;
  char dig[48];
  int n = 0;
  do {
    dig[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  int k = 0;
  if (v < 0)
    buf[k++] = '-';
  if (scale <= 0) {
    while (n)
      buf[k++] = dig[--n];
  } else if (n <= scale) {
    buf[k++] = '0';
    buf[k++] = '.';
    for (int z = 0; z < scale - n; z++)
      buf[k++] = '0';
    while (n)
      buf[k++] = dig[--n];
  } else {
    while (n > scale)
      buf[k++] = dig[--n];
    buf[k++] = '.';
    while (n)
      buf[k++] = dig[--n];
  }
  buf[k] = '\0';
  return k;
}

/* round(|a| / |b| * 10^k) for k >= 0 by long division, without overflow
 * (the remainder stays below |b| < 2^127). */
static int udiv_scaled(u128 a, u128 b, int k, u128 *out) {
  u128 q = a / b, r = a % b;
  const u128 lim = (u128)lm_dec_pow10(38);
  for (int j = 0; j <= k; j++) {
    /* next digit d = floor(10 r / b), r = 10 r mod b */
    unsigned d = 0;
    u128 t = 0;
    for (int m = 0; m < 10; m++) {
      t += r; /* t < b + r < 2^128 */
      if (t >= b) {
        t -= b;
        d++;
      }
    }
    r = t;
    if (j == k) {
      if (d >= 5)
        q++;
      break;
    }
    if (q > lim)
      return LM_DEC_EOVERFLOW;
    q = q * 10 + d;
  }
  if (q >= lim)
    return LM_DEC_EOVERFLOW;
  *out = q;
  return 0;
}

int lm_dec_div(lm_i128 a, int sa, lm_i128 b, int sb, int rscale, lm_i128 *out) {
  bool neg = (a < 0) != (b < 0);
  u128 ua = a < 0 ? (u128)0 - (u128)a : (u128)a;
  u128 ub = b < 0 ? (u128)0 - (u128)b : (u128)b;
  int k = rscale - sa + sb;
  u128 q;
  if (k >= 0) {
    if (udiv_scaled(ua, ub, k, &q))
      return LM_DEC_EOVERFLOW;
  } else {
    /* divide by b * 10^-k; if that exceeds 38 digits the result is 0 */
    int m = -k;
    if (m > 38 || ub > (u128)lm_dec_pow10(38 - m)) {
      *out = 0;
      return 0;
    }
    if (udiv_scaled(ua, ub * (u128)lm_dec_pow10(m), 0, &q))
      return LM_DEC_EOVERFLOW;
  }
  *out = neg ? -(lm_i128)q : (lm_i128)q;
  return 0;
}

/* weight (in base-10000 digit groups) and first base-10000 digit of a@s,
 * as PostgreSQL's NumericVar holds them; 0 has weight 0, digit 0. */
static void nbase(lm_i128 a, int s, int *weight, int *first) {
  if (a == 0) {
    *weight = 0;
    *first = 0;
    return;
  }
  u128 u = a < 0 ? (u128)0 - (u128)a : (u128)a;
  int e = lm_dec_digits(a) - 1 - s; /* 10^e <= |x| < 10^(e+1) */
  int w = e >= 0 ? e / 4 : -((-e + 3) / 4);
  int x = -s - 4 * w; /* first = floor(u * 10^x) */
  u128 f;
  if (x >= 0)
    f = u * (u128)lm_dec_pow10(x);
  else
    f = -x > 38 ? 0 : u / (u128)lm_dec_pow10(-x);
  *weight = w;
  *first = (int)f;
}

int lm_dec_div_scale(lm_i128 a, int sa, lm_i128 b, int sb) {
  int w1, f1, w2, f2;
  nbase(a, sa, &w1, &f1);
  nbase(b, sb, &w2, &f2);
  int qweight = w1 - w2;
  if (f1 <= f2)
    qweight--;
  int rscale = 16 - qweight * 4;
  if (rscale < sa)
    rscale = sa;
  if (rscale < sb)
    rscale = sb;
  if (rscale < 0)
    rscale = 0;
  if (rscale > 1000)
    rscale = 1000;
  return rscale;
}

/* weight and first digit in base 10000 of u (0: weight 0, digit 0), as
 * nbase for integers below 2^64 */
static void nbase64(uint64_t u, int *weight, uint64_t *first) {
  int w = 0;
  uint64_t p = 1;
  while (u / p >= 10000) {
    p *= 10000;
    w++;
  }
  *weight = w;
  *first = u / p;
}

int lm_dec_quotient(lm_i128 a, int sa, lm_i128 b, int sb, int rs,
                    lm_i128 *out) {
  u128 ua = a < 0 ? (u128)0 - (u128)a : (u128)a;
  u128 ub = b < 0 ? (u128)0 - (u128)b : (u128)b;
  if (sa == 0 && sb == 0 && rs >= 0 && rs <= 38 && !(ua >> 64) && !(ub >> 64) &&
      ub) {
    /* integers (AVG's sum / count): select_div_scale and the division in
     * one 128-bit step */
    int w1, w2;
    uint64_t f1, f2;
    nbase64((uint64_t)ua, &w1, &f1);
    nbase64((uint64_t)ub, &w2, &f2);
    int ps = 16 - 4 * (w1 - w2 - (f1 <= f2 ? 1 : 0));
    if (ps < 0)
      ps = 0;
    if (ps > rs)
      ps = rs;
    if (ps <= 18) {
      u128 n = ua * (u128)lm_dec_pow10(ps), q = n / ub, r = n % ub;
      if (r >= ub - r) /* half away from zero */
        q++;
      if (q >= (u128)lm_dec_pow10(38 - (rs - ps)))
        return LM_DEC_EOVERFLOW;
      q *= (u128)lm_dec_pow10(rs - ps);
      *out = (a < 0) != (b < 0) ? -(lm_i128)q : (lm_i128)q;
      return 0;
    }
  }
  int ps = lm_dec_div_scale(a, sa, b, sb);
  if (ps > rs)
    ps = rs;
  if (lm_dec_div(a, sa, b, sb, ps, out) || lm_dec_rescale(*out, ps, rs, out) ||
      !lm_dec_fits(*out, 38))
    return LM_DEC_EOVERFLOW;
  return 0;
}

bool lm_dec_find_special(const lm_array *a, lm_i128 *out) {
  if (!a)
    return false;
  if (a->type.id == LM_TYPE_DECIMAL128) {
    for (int64_t i = 0; i < a->length; i++) {
      if (a->null_count && lm_array_is_null(a, i))
        continue;
      lm_i128 v = lm_dec_get(a, i);
      if (lm_dec_is_special(v)) {
        *out = v;
        return true;
      }
    }
    return false;
  }
  /* nested: every child row (rows outside a slice included: a value there
   * is refused too, which errs on the safe side) */
  for (int c = 0; c < a->n_children; c++)
    if (lm_dec_find_special(a->children[c], out))
      return true;
  return false;
}

lm_i128 lm_dec_get(const lm_array *a, int64_t i) {
  const uint8_t *p = a->values->data + (size_t)(a->offset + i) * 16;
  uint64_t lo;
  int64_t hi;
  memcpy(&lo, p, 8);
  memcpy(&hi, p + 8, 8);
  return (lm_i128)(((u128)(uint64_t)hi << 64) | (u128)lo);
}

void lm_dec_append(lm_builder *b, lm_i128 v) {
  lm_value x;
  memset(&x, 0, sizeof x);
  x.type = b->type;
  x.v.d128.lo = (uint64_t)(u128)v;
  x.v.d128.hi = (int64_t)((u128)v >> 64);
  lm_builder_append_value(b, &x);
}

/* TIME text as PostgreSQL's time_in reads it (lm_dt_parse: a date or a
 * zone is ignored; 24:00:00 allowed, a fraction rounded to µs, more than
 * 24:00:00 a field out of range) -> µs since midnight; 0 or LM_DT_*. */
int lm_parse_time_us(const char *s, int32_t n, int64_t *out) {
  lm_dt_text f;
  int rc = lm_dt_parse(s, n > 0 ? (size_t)n : 0, &f);
  if (rc)
    return rc;
  if (f.special == LM_DT_SPECIAL_ALLBALLS) {
    *out = 0; /* PostgreSQL's 'allballs': 00:00:00 */
    return 0;
  }
  if (f.special == LM_DT_SPECIAL_NOW) { /* the session zone's time of day */
    int64_t us;
    if ((rc = lm_tz_special(&f, lm_tz_session(), true, &us)))
      return rc;
    *out = us - (us / LM_US_PER_DAY - (us % LM_US_PER_DAY < 0)) * LM_US_PER_DAY;
    return 0;
  }
  if (f.special) /* PostgreSQL: 'today'::time is a syntax error */
    return LM_DT_BAD_FORMAT;
  if (!f.has_time)
    return LM_DT_BAD_FORMAT;
  if (f.time_us > 24 * LM_US_PER_HOUR)
    return LM_DT_FIELD_OVERFLOW;
  *out = f.time_us;
  return 0;
}

/* PostgreSQL bytea input: "\x" hex (spaces between bytes), else the escape
 * format (\\ and \ooo). Appends to buf; -1 on bad input. */
int lm_parse_bytea(const char *s, int32_t n, lm_buf *buf) {
  if (n >= 2 && s[0] == '\\' && (s[1] == 'x' || s[1] == 'X')) {
    for (int32_t i = 2; i < n;) {
      if (sp(s[i])) {
        i++;
        continue;
      }
      if (lm_hex_digit(s[i]) < 0)
        return -3;
      if (i + 1 >= n)
        return -4;
      int h = lm_hex_digit(s[i]), l = lm_hex_digit(s[i + 1]);
      if (l < 0)
        return sp(s[i + 1]) ? -4 : -3;
      if (lm_buf_putc(buf, (char)(h * 16 + l)))
        return -2;
      i += 2;
    }
    return 0;
  }
  for (int32_t i = 0; i < n;) {
    if (s[i] != '\\') {
      if (lm_buf_putc(buf, s[i++]))
        return -2;
      continue;
    }
    if (i + 1 < n && s[i + 1] == '\\') {
      if (lm_buf_putc(buf, '\\'))
        return -2;
      i += 2;
      continue;
    }
    if (i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
        s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
      int v = (s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0');
      if (lm_buf_putc(buf, (char)v))
        return -2;
      i += 4;
      continue;
    }
    return -1;
  }
  return 0;
}
