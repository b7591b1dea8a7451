/*
 * PostgreSQL 15's interval {months, days, µs}: text in and out, arithmetic
 * and timestamp + interval (lm_interval.h).
 */
#include "columnar/lm_interval.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"

#define US_DAY INT64_C(86400000000)

/* the fields being read: PostgreSQL's pg_itm_in */
typedef struct acc {
  int64_t months, days, us;
} acc;

static bool add64(int64_t *a, int64_t b) {
  return !__builtin_add_overflow(*a, b, a);
}
static bool muladd(int64_t v, int64_t scale, int64_t *a) {
  int64_t p;
  return !__builtin_mul_overflow(v, scale, &p) && add64(a, p);
}
/* AdjustFractMicroseconds */
static bool frac_us(double frac, int64_t scale, acc *t) {
  if (frac == 0)
    return true;
  frac *= (double)scale;
  int64_t us = (int64_t)frac;
  frac -= (double)us;
  us += (int64_t)rint(frac);
  return add64(&t->us, us);
}
/* AdjustFractDays */
static bool frac_days(double frac, int scale, acc *t) {
  if (frac == 0)
    return true;
  frac *= scale;
  int64_t d = (int64_t)frac;
  if (!add64(&t->days, d))
    return false;
  return frac_us(frac - (double)d, US_DAY, t);
}
/* AdjustFractYears */
static bool frac_years(double frac, int scale, acc *t) {
  if (frac == 0)
    return true;
  return add64(&t->months, (int64_t)rint(frac * scale * 12));
}

typedef enum {
  U_NONE,
  U_US,
  U_MS,
  U_SEC,
  U_MIN,
  U_HOUR,
  U_DAY,
  U_WEEK,
  U_MONTH,
  U_YEAR,
  U_DECADE,
  U_CENTURY,
  U_MILLENNIUM
} unit_t;

static unit_t unit_of(const char *w, size_t n) {
  static const struct {
    const char *name;
    unit_t u;
  } tab[] = {
      {"microsecond", U_US},
      {"microseconds", U_US},
      {"us", U_US},
      {"usec", U_US},
      {"usecs", U_US},
      {"useconds", U_US},
      {"usecond", U_US},
      {"millisecond", U_MS},
      {"milliseconds", U_MS},
      {"ms", U_MS},
      {"msec", U_MS},
      {"msecs", U_MS},
      {"mseconds", U_MS},
      {"msecond", U_MS},
      {"second", U_SEC},
      {"seconds", U_SEC},
      {"s", U_SEC},
      {"sec", U_SEC},
      {"secs", U_SEC},
      {"minute", U_MIN},
      {"minutes", U_MIN},
      {"m", U_MIN},
      {"min", U_MIN},
      {"mins", U_MIN},
      {"hour", U_HOUR},
      {"hours", U_HOUR},
      {"h", U_HOUR},
      {"hr", U_HOUR},
      {"hrs", U_HOUR},
      {"day", U_DAY},
      {"days", U_DAY},
      {"d", U_DAY},
      {"week", U_WEEK},
      {"weeks", U_WEEK},
      {"w", U_WEEK},
      {"month", U_MONTH},
      {"months", U_MONTH},
      {"mon", U_MONTH},
      {"mons", U_MONTH},
      {"year", U_YEAR},
      {"years", U_YEAR},
      {"y", U_YEAR},
      {"yr", U_YEAR},
      {"yrs", U_YEAR},
      {"decade", U_DECADE},
      {"decades", U_DECADE},
      {"dec", U_DECADE},
      {"decs", U_DECADE},
      {"century", U_CENTURY},
      {"centuries", U_CENTURY},
      {"c", U_CENTURY},
      {"cent", U_CENTURY},
      {"millennium", U_MILLENNIUM},
      {"millennia", U_MILLENNIUM},
      {"mil", U_MILLENNIUM},
      {"mils", U_MILLENNIUM},
  };
  for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
    if (strlen(tab[i].name) == n && strncasecmp(tab[i].name, w, n) == 0)
      return tab[i].u;
  return U_NONE;
}

/* val + frac (same sign) of unit u into t; false on overflow. */
static bool add_unit(acc *t, unit_t u, int64_t val, double frac) {
  switch (u) {
  case U_US:
    return add64(&t->us, val) && add64(&t->us, (int64_t)rint(frac));
  case U_MS:
    return muladd(val, 1000, &t->us) && frac_us(frac, 1000, t);
  case U_SEC:
  case U_NONE:
    return muladd(val, 1000000, &t->us) && frac_us(frac, 1000000, t);
  case U_MIN:
    return muladd(val, 60000000, &t->us) && frac_us(frac, 60000000, t);
  case U_HOUR:
    return muladd(val, INT64_C(3600000000), &t->us) &&
           frac_us(frac, INT64_C(3600000000), t);
  case U_DAY:
    return add64(&t->days, val) && frac_us(frac, US_DAY, t);
  case U_WEEK:
    return muladd(val, 7, &t->days) && frac_days(frac, 7, t);
  case U_MONTH:
    return add64(&t->months, val) && frac_days(frac, 30, t);
  case U_YEAR:
    return muladd(val, 12, &t->months) && frac_years(frac, 1, t);
  case U_DECADE:
    return muladd(val, 120, &t->months) && frac_years(frac, 10, t);
  case U_CENTURY:
    return muladd(val, 1200, &t->months) && frac_years(frac, 100, t);
  case U_MILLENNIUM:
    return muladd(val, 12000, &t->months) && frac_years(frac, 1000, t);
  }
  return false;
}

/* A number at s[*i]: [+-]digits[.digits]; *val its integer part, *frac
 * its fraction (signed). 0 ok, -1 bad, -2 overflow. */
static int read_num(const char *s, size_t n, size_t *i, int64_t *val,
                    double *frac) {
  size_t k = *i;
  bool neg = false;
  if (k < n && (s[k] == '+' || s[k] == '-'))
    neg = s[k++] == '-';
  size_t d0 = k;
  int64_t v = 0;
  bool big = false;
  while (k < n && isdigit((unsigned char)s[k])) {
    if (__builtin_mul_overflow(v, 10, &v) ||
        __builtin_add_overflow(v, s[k] - '0', &v))
      big = true;
    k++;
  }
  size_t nd = k - d0;
  double f = 0;
  if (k < n && s[k] == '.') {
    size_t f0 = ++k;
    while (k < n && isdigit((unsigned char)s[k]))
      k++;
    if (k > f0) {
      char tmp[64];
      size_t m = k - f0 > 40 ? 40 : k - f0;
      tmp[0] = '0';
      tmp[1] = '.';
      memcpy(tmp + 2, s + f0, m);
      tmp[m + 2] = 0;
      f = strtod(tmp, NULL);
    }
    nd += k - f0;
  }
  if (nd == 0)
    return -1;
  if (big)
    return -2;
  *val = neg ? -v : v;
  *frac = neg ? -f : f;
  *i = k;
  return 0;
}

/* "[-]H:MM[:SS[.f]]" at s[*i] (the sign read by the caller). */
static int read_clock(const char *s, size_t n, size_t *i, bool neg, acc *t) {
  size_t k = *i;
  int64_t f[3] = {0, 0, 0};
  double sfrac = 0;
  int nf = 0;
  for (; nf < 3; nf++) {
    size_t d0 = k;
    int64_t v = 0;
    while (k < n && isdigit((unsigned char)s[k])) {
      if (__builtin_mul_overflow(v, 10, &v) ||
          __builtin_add_overflow(v, s[k] - '0', &v))
        return -2;
      k++;
    }
    if (k == d0)
      return -1;
    f[nf] = v;
    if (nf == 2 && k < n && s[k] == '.') {
      size_t f0 = ++k;
      while (k < n && isdigit((unsigned char)s[k]))
        k++;
      char tmp[64];
      size_t m = k - f0 > 40 ? 40 : k - f0;
      tmp[0] = '0';
      tmp[1] = '.';
      memcpy(tmp + 2, s + f0, m);
      tmp[m + 2] = 0;
      sfrac = strtod(tmp, NULL);
    }
    if (nf < 2 && k < n && s[k] == ':') {
      k++;
      continue;
    }
    nf++;
    break;
  }
  if (nf < 2 || f[1] > 59 || f[2] > 60)
    return -2 + (nf < 2); /* "1:" is bad text */
  int64_t us = 0;
  if (!muladd(f[0], INT64_C(3600000000), &us) || !muladd(f[1], 60000000, &us) ||
      !muladd(f[2], 1000000, &us) || !add64(&us, (int64_t)rint(sfrac * 1e6)))
    return -2;
  if (!add64(&t->us, neg ? -us : us))
    return -2;
  *i = k;
  return 0;
}

/* ISO 8601 "P..." (s[0] is 'P'). */
static int parse_iso(const char *s, size_t n, acc *t) {
  size_t i = 1;
  bool time = false, any = false;
  if (i >= n)
    return -1;
  while (i < n) {
    if (s[i] == 'T' || s[i] == 't') {
      if (time)
        return -1;
      time = true;
      i++;
      continue;
    }
    int64_t v;
    double fr;
    int rc = read_num(s, n, &i, &v, &fr);
    if (rc)
      return rc;
    if (i >= n)
      return -1;
    char d = (char)toupper((unsigned char)s[i++]);
    bool ok;
    if (!time) {
      ok = d == 'Y'   ? add_unit(t, U_YEAR, v, fr)
           : d == 'M' ? add_unit(t, U_MONTH, v, fr)
           : d == 'W' ? add_unit(t, U_WEEK, v, fr)
           : d == 'D' ? add_unit(t, U_DAY, v, fr)
                      : (rc = -1, false);
    } else {
      ok = d == 'H'   ? add_unit(t, U_HOUR, v, fr)
           : d == 'M' ? add_unit(t, U_MIN, v, fr)
           : d == 'S' ? add_unit(t, U_SEC, v, fr)
                      : (rc = -1, false);
    }
    if (!ok)
      return rc ? rc : -2;
    any = true;
  }
  return any ? 0 : -1;
}

static unit_t qual_unit(const char *u, size_t n) {
  if (!u || !n)
    return U_NONE;
  unit_t x = unit_of(u, n);
  return x == U_NONE ? U_SEC : x;
}

int lm_iv_parse(const char *s, size_t len, const char *unit, size_t unit_len,
                lm_iv *out) {
  acc t = {0, 0, 0};
  size_t i = 0;
  while (i < len && isspace((unsigned char)s[i]))
    i++;
  while (len > i && isspace((unsigned char)s[len - 1]))
    len--;
  if (i < len && (s[i] == 'P' || s[i] == 'p')) {
    int rc = parse_iso(s + i, len - i, &t);
    if (rc)
      return rc;
    goto done;
  }
  if (i < len && s[i] == '@')
    i++;
  bool any = false, ago = false;
  while (i < len) {
    while (i < len && isspace((unsigned char)s[i]))
      i++;
    if (i >= len)
      break;
    if (ago)
      return -1; /* nothing after "ago" */
    if (isalpha((unsigned char)s[i])) {
      size_t w = i;
      while (i < len && isalpha((unsigned char)s[i]))
        i++;
      if (i - w == 3 && strncasecmp(s + w, "ago", 3) == 0 && any) {
        ago = true;
        continue;
      }
      return -1;
    }
    /* a clock part? digits then ':' */
    size_t k = i;
    bool neg = false;
    if (k < len && (s[k] == '+' || s[k] == '-'))
      neg = s[k++] == '-';
    size_t d = k;
    while (d < len && isdigit((unsigned char)s[d]))
      d++;
    if (d > k && d < len && s[d] == ':') {
      int rc = read_clock(s, len, &k, neg, &t);
      if (rc)
        return rc;
      i = k;
      any = true;
      continue;
    }
    int64_t v;
    double fr;
    int rc = read_num(s, len, &i, &v, &fr);
    if (rc)
      return rc;
    while (i < len && isspace((unsigned char)s[i]))
      i++;
    unit_t u = U_NONE;
    if (i < len && isalpha((unsigned char)s[i])) {
      size_t w = i;
      while (i < len && isalpha((unsigned char)s[i]))
        i++;
      u = unit_of(s + w, i - w);
      if (u == U_NONE) {
        if (i - w == 3 && strncasecmp(s + w, "ago", 3) == 0)
          i = w; /* "5 ago": seconds, then ago */
        else
          return -1;
      }
    }
    if (u == U_NONE)
      u = qual_unit(unit, unit_len);
    if (!add_unit(&t, u, v, fr))
      return -2;
    any = true;
  }
  if (!any)
    return -1;
  if (ago) {
    t.months = -t.months;
    t.days = -t.days;
    if (t.us == INT64_MIN)
      return -2;
    t.us = -t.us;
  }
done:
  if (t.months > INT32_MAX || t.months < INT32_MIN || t.days > INT32_MAX ||
      t.days < INT32_MIN)
    return -2;
  out->months = (int32_t)t.months;
  out->days = (int32_t)t.days;
  out->us = t.us;
  return 0;
}

bool lm_iv_text_has_months(const char *s, size_t len, const char *unit,
                           size_t unit_len) {
  lm_iv v;
  return lm_iv_parse(s, len, unit, unit_len, &v) == 0 && v.months != 0;
}

/* AddPostgresIntPart */
static int add_part(char *cp, int64_t value, const char *units, bool *is_zero,
                    bool *is_before) {
  if (value == 0)
    return 0;
  int n = sprintf(cp, "%s%s%lld %s%s", !*is_zero ? " " : "",
                  (*is_before && value > 0) ? "+" : "", (long long)value, units,
                  value != 1 ? "s" : "");
  *is_before = value < 0;
  *is_zero = false;
  return n;
}

int lm_iv_format(const lm_iv *v, char *buf) {
  char *cp = buf;
  bool is_zero = true, is_before = false;
  int64_t year = v->months / 12, mon = v->months % 12;
  cp += add_part(cp, year, "year", &is_zero, &is_before);
  cp += add_part(cp, mon, "mon", &is_zero, &is_before);
  cp += add_part(cp, v->days, "day", &is_zero, &is_before);
  int64_t t = v->us;
  if (is_zero || t != 0) {
    uint64_t a = t < 0 ? (uint64_t)0 - (uint64_t)t : (uint64_t)t;
    bool minus = t < 0;
    uint64_t hour = a / 3600000000u, rem = a % 3600000000u;
    cp +=
        sprintf(cp, "%s%s%02llu:%02llu:%02llu", is_zero ? "" : " ",
                minus ? "-" : (is_before ? "+" : ""), (unsigned long long)hour,
                (unsigned long long)(rem / 60000000u),
                (unsigned long long)(rem / 1000000u % 60));
    unsigned fs = (unsigned)(rem % 1000000u);
    if (fs) {
      cp += sprintf(cp, ".%06u", fs);
      while (cp[-1] == '0')
        cp--;
    }
  }
  *cp = 0;
  return (int)(cp - buf);
}

lm_iv lm_iv_from_us(int64_t us) {
  lm_iv v = {0, (int32_t)(us / US_DAY), us % US_DAY};
  return v;
}

lm_iv lm_iv_at(const lm_array *a, int64_t i) {
  if (a->type.id == LM_TYPE_INTERVAL_MDN) {
    const uint8_t *p = a->values->data + (size_t)(a->offset + i) * 16;
    lm_iv v;
    int64_t ns;
    memcpy(&v.months, p, 4);
    memcpy(&v.days, p + 4, 4);
    memcpy(&ns, p + 8, 8);
    v.us = ns / 1000;
    return v;
  }
  return lm_iv_from_us(lm_array_i64(a)[i]);
}

int lm_iv_store(void *slot16, const lm_iv *v) {
  int64_t ns;
  if (__builtin_mul_overflow(v->us, 1000, &ns))
    return -1;
  uint8_t *p = slot16;
  memcpy(p, &v->months, 4);
  memcpy(p + 4, &v->days, 4);
  memcpy(p + 8, &ns, 8);
  return 0;
}

int lm_iv_add(const lm_iv *a, const lm_iv *b, int sign, lm_iv *out) {
  int64_t m = (int64_t)a->months + sign * (int64_t)b->months;
  int64_t d = (int64_t)a->days + sign * (int64_t)b->days;
  int64_t u;
  bool of = sign > 0 ? __builtin_add_overflow(a->us, b->us, &u)
                     : __builtin_sub_overflow(a->us, b->us, &u);
  if (of || m > INT32_MAX || m < INT32_MIN || d > INT32_MAX || d < INT32_MIN)
    return -1;
  out->months = (int32_t)m;
  out->days = (int32_t)d;
  out->us = u;
  return 0;
}

/* PostgreSQL 15 interval_mul (factor) / interval_div (1 / factor, but
 * divided field by field as interval_div does). */
int lm_iv_mul(const lm_iv *v, double factor, bool div, lm_iv *out) {
  if (div && factor == 0.0)
    return -2;
  double mm = div ? v->months / factor : v->months * factor;
  if (isnan(mm) || mm > INT32_MAX || mm < INT32_MIN)
    return -1;
  double dd = div ? v->days / factor : v->days * factor;
  if (isnan(dd) || dd > INT32_MAX || dd < INT32_MIN)
    return -1;
  int32_t rm = (int32_t)mm, rd = (int32_t)dd;
  /* the months' fraction into days (30 each; interval_div rounds it to
   * the µs, TSROUND, interval_mul does not), the days' into seconds */
  double mrem = (mm - rm) * 30.0;
  if (div)
    mrem = rint(mrem * 1e6) / 1e6;
  double sec_rem = (dd - rd + mrem - (int32_t)mrem) * 86400.0;
  sec_rem = rint(sec_rem * 1e6) / 1e6;
  int64_t day = rd;
  if (fabs(sec_rem) >= 86400.0) {
    int whole = (int)(sec_rem / 86400.0);
    day += whole;
    sec_rem -= whole * 86400.0;
  }
  day += (int32_t)mrem;
  if (day > INT32_MAX || day < INT32_MIN)
    return -1;
  rd = (int32_t)day;
  double t = rint((div ? (double)v->us / factor : (double)v->us * factor) +
                  sec_rem * 1e6);
  if (isnan(t) || !(t >= -9223372036854775808.0 && t < 9223372036854775808.0))
    return -1;
  out->months = rm;
  out->days = rd;
  out->us = (int64_t)t;
  return 0;
}

static bool ts_ok(int64_t us) {
  int64_t day = us >= 0 ? us / US_DAY : -((-(us + 1)) / US_DAY) - 1;
  return day >= LM_DT_MIN_DAYS && day < LM_TS_END_DAYS - 7;
}

int lm_ts_plus_iv(int64_t ts, const lm_iv *iv, int sign, const lm_tz *zone,
                  int64_t *out) {
  if (!lm_ts_finite(ts)) { /* infinity stays itself */
    *out = ts;
    return 0;
  }
  int64_t months = sign * (int64_t)iv->months, days = sign * (int64_t)iv->days;
  int64_t us = iv->us;
  if (sign < 0) {
    if (us == INT64_MIN)
      return -1;
    us = -us;
  }
  int64_t t = ts;
  if (months != 0 || days != 0) {
    int64_t local = zone ? lm_tz_to_local(zone, t) : t;
    int64_t day = local >= 0 ? local / US_DAY : -((-(local + 1)) / US_DAY) - 1;
    int64_t tod = local - day * US_DAY;
    if (months != 0) {
      int64_t y;
      unsigned m, d;
      lm_civil_from_days(day, &y, &m, &d);
      int64_t mi = y * 12 + (m - 1) + months;
      y = mi >= 0 ? mi / 12 : -((-(mi + 1)) / 12) - 1;
      m = (unsigned)(mi - y * 12 + 1);
      if (y < -4713 || y > 294276)
        return -1;
      unsigned dim = lm_days_in_month(y, m);
      if (d > dim)
        d = dim;
      day = lm_days_from_civil(y, m, d);
    }
    day += days;
    if (day < LM_DT_MIN_DAYS - 1 || day > LM_TS_END_DAYS)
      return -1;
    local = day * US_DAY + tod;
    t = zone ? lm_tz_from_local(zone, local, NULL) : local;
  }
  if (__builtin_add_overflow(t, us, &t) || !ts_ok(t))
    return -1;
  *out = t;
  return 0;
}

int64_t lm_ts_iv_reach(int64_t e, const lm_iv *k, const lm_tz *zone) {
  int64_t x0, y;
  if (lm_ts_plus_iv(e, k, -1, zone, &x0))
    return k->months > 0 || k->days > 0 || k->us > 0 ? INT64_MIN : INT64_MAX;
  int64_t lo = x0 - 4 * US_DAY, hi = x0 + 4 * US_DAY;
  if (lm_ts_plus_iv(hi, k, 1, zone, &y) || y < e)
    return hi;
  while (lo < hi) { /* the least now in (lo, hi] with now + k >= e */
    int64_t mid = lo + (hi - lo) / 2;
    if (!lm_ts_plus_iv(mid, k, 1, zone, &y) && y >= e)
      hi = mid;
    else
      lo = mid + 1;
  }
  return hi;
}

int lm_iv_age(int64_t a, int64_t b, const lm_tz *zone, lm_iv *out) {
  if (zone) {
    a = lm_tz_to_local(zone, a);
    b = lm_tz_to_local(zone, b);
  }
  int64_t fa[7], fb[7]; /* year, mon, mday, hour, min, sec, usec */
  int64_t *f[2] = {fa, fb};
  int64_t v[2] = {a, b};
  for (int k = 0; k < 2; k++) {
    int64_t day = v[k] >= 0 ? v[k] / US_DAY : -((-(v[k] + 1)) / US_DAY) - 1;
    int64_t tod = v[k] - day * US_DAY;
    int64_t y;
    unsigned m, d;
    lm_civil_from_days(day, &y, &m, &d);
    f[k][0] = y;
    f[k][1] = m;
    f[k][2] = d;
    f[k][3] = tod / 3600000000LL;
    f[k][4] = tod / 60000000LL % 60;
    f[k][5] = tod / 1000000LL % 60;
    f[k][6] = tod % 1000000LL;
  }
  /* PostgreSQL's timestamp_age: field differences, then borrow; when the
   * result is negative the borrowing runs on the negated fields. */
  int64_t usec = fa[6] - fb[6], sec = fa[5] - fb[5], min = fa[4] - fb[4],
          hour = fa[3] - fb[3], mday = fa[2] - fb[2], mon = fa[1] - fb[1],
          year = fa[0] - fb[0];
  bool neg = a < b;
  if (neg) {
    usec = -usec, sec = -sec, min = -min, hour = -hour, mday = -mday,
    mon = -mon, year = -year;
  }
  while (usec < 0) {
    usec += 1000000;
    sec--;
  }
  while (sec < 0) {
    sec += 60;
    min--;
  }
  while (min < 0) {
    min += 60;
    hour--;
  }
  while (hour < 0) {
    hour += 24;
    mday--;
  }
  while (mday < 0) {
    /* the days in the earlier date's month (PostgreSQL's day_tab) */
    int64_t *early = neg ? fa : fb;
    mday += lm_days_in_month(early[0], (unsigned)early[1]);
    mon--;
  }
  while (mon < 0) {
    mon += 12;
    year--;
  }
  if (neg) {
    usec = -usec, sec = -sec, min = -min, hour = -hour, mday = -mday,
    mon = -mon, year = -year;
  }
  int64_t months = year * 12 + mon;
  if (months > INT32_MAX || months < INT32_MIN)
    return -1;
  out->months = (int32_t)months;
  out->days = (int32_t)mday;
  out->us = ((hour * 60 + min) * 60 + sec) * 1000000LL + usec;
  return 0;
}

int lm_iv_justify(const lm_iv *v, bool hours, bool days, lm_iv *out) {
  int64_t m = v->months, d = v->days, t = v->us;
  if (hours) {
    d += t / US_DAY;
    t -= (t / US_DAY) * US_DAY;
  }
  if (days) {
    m += d / 30;
    d -= (d / 30) * 30;
  }
  if (hours && days) { /* justify_interval's sign fixes */
    if (m > 0 && (d < 0 || (d == 0 && t < 0))) {
      d += 30;
      m--;
    } else if (m < 0 && (d > 0 || (d == 0 && t > 0))) {
      d -= 30;
      m++;
    }
  }
  if (hours) {
    if (d > 0 && t < 0) {
      t += US_DAY;
      d--;
    } else if (d < 0 && t > 0) {
      t -= US_DAY;
      d++;
    }
  } else if (days) {
    if (m > 0 && d < 0) {
      d += 30;
      m--;
    } else if (m < 0 && d > 0) {
      d -= 30;
      m++;
    }
  }
  if (m > INT32_MAX || m < INT32_MIN || d > INT32_MAX || d < INT32_MIN)
    return -1;
  out->months = (int32_t)m;
  out->days = (int32_t)d;
  out->us = t;
  return 0;
}
