/* columnar/temporal.c — timestamp parse/format, civil calendar, intervals. */
#include "base/lm_base.h"
#include "columnar/lm_temporal.h"

#include <string.h>

int64_t lm_days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400; /* [0,399] */
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy; /* [0,146096] */
  return era * 146097 + doe - 719468;
}

void lm_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
  *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

static inline bool is_leap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned lm_days_in_month(int64_t y, unsigned m) {
  static const unsigned char dim[13] = {0,  31, 28, 31, 30, 31, 30,
                                        31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12)
    return 0;
  return m == 2 && is_leap(y) ? 29 : dim[m];
}

/* ------------------------------------------------------------ timestamps */

static inline bool dig(char c) {
  return c >= '0' && c <= '9';
}

/* Reads exactly two digits at s[i]. */
static inline int two(const char *s, size_t len, size_t i) {
  if (i + 2 > len || !dig(s[i]) || !dig(s[i + 1]))
    return -1;
  return (s[i] - '0') * 10 + (s[i + 1] - '0');
}

int lm_parse_timestamp(const char *s, size_t len, int64_t *out_us) {
  if (len < 10 || !s)
    return -1;
  if (!dig(s[0]) || !dig(s[1]) || !dig(s[2]) || !dig(s[3]) || s[4] != '-' ||
      s[7] != '-')
    return -1;
  int year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 +
             (s[3] - '0');
  int month = two(s, len, 5);
  int day = two(s, len, 8);
  if (year < 1 || month < 1 || month > 12 || day < 1 ||
      (unsigned)day > lm_days_in_month(year, (unsigned)month))
    return -1;
  int64_t days = lm_days_from_civil(year, (unsigned)month, (unsigned)day);
  int64_t us = days * LM_US_PER_DAY;
  if (len == 10) {
    *out_us = us;
    return 0;
  }
  char sep = s[10];
  if (sep != 'T' && sep != 't' && sep != ' ')
    return -1;
  int hh = two(s, len, 11);
  if (hh < 0 || hh > 23 || len < 16 || s[13] != ':')
    return -1;
  int mi = two(s, len, 14);
  if (mi < 0 || mi > 59)
    return -1;
  size_t i = 16;
  int ss = 0;
  int64_t frac = 0;
  if (i < len && s[i] == ':') {
    ss = two(s, len, i + 1);
    if (ss < 0 || ss > 59)
      return -1;
    i += 3;
    if (i < len && (s[i] == '.' || s[i] == ',')) {
      i++;
      size_t start = i;
      while (i < len && dig(s[i]) && i - start < 9) {
        if (i - start < 6)
          frac = frac * 10 + (s[i] - '0');
        i++;
      }
      size_t nd = i - start;
      if (nd == 0 || (i < len && dig(s[i])))
        return -1;
      for (size_t k = nd; k < 6; k++)
        frac *= 10;
    }
  }
  int64_t off_us = 0;
  if (i < len) {
    char z = s[i];
    if ((z == 'Z' || z == 'z') && i + 1 == len) {
      i++;
    } else if (z == '+' || z == '-') {
      int oh = two(s, len, i + 1);
      if (oh < 0 || oh > 23)
        return -1;
      i += 3;
      int om = 0;
      if (i < len) {
        if (s[i] == ':')
          i++;
        om = two(s, len, i);
        if (om < 0 || om > 59)
          return -1;
        i += 2;
      }
      off_us = (oh * INT64_C(60) + om) * LM_US_PER_MIN;
      if (z == '-')
        off_us = -off_us;
    } else {
      return -1;
    }
    if (i != len)
      return -1;
  }
  us += ((int64_t)hh * 3600 + mi * 60 + ss) * LM_US_PER_SEC + frac - off_us;
  *out_us = us;
  return 0;
}

static inline char *put2(char *p, unsigned v) {
  p[0] = (char)('0' + v / 10);
  p[1] = (char)('0' + v % 10);
  return p + 2;
}

int lm_format_timestamp(int64_t us, char sep, char *buf) {
  /* floor division without overflow at INT64_MIN */
  int64_t days = us / LM_US_PER_DAY;
  int64_t rem = us % LM_US_PER_DAY;
  if (rem < 0) {
    rem += LM_US_PER_DAY; /* [0, day) */
    days--;
  }
  int64_t y;
  unsigned m, d;
  lm_civil_from_days(days, &y, &m, &d);
  char *p = buf;
  if (y >= 0 && y <= 9999) {
    unsigned yy = (unsigned)y;
    p = put2(p, yy / 100);
    p = put2(p, yy % 100);
  } else {
    /* rare: far past/future; at most 7 chars ("-292277") */
    char tmp[24];
    uint64_t a = y < 0 ? (uint64_t)0 - (uint64_t)y : (uint64_t)y;
    int n = 0;
    do {
      tmp[n++] = (char)('0' + a % 10);
      a /= 10;
    } while (a);
    while (n < 4)
      tmp[n++] = '0';
    if (y < 0)
      *p++ = '-';
    while (n)
      *p++ = tmp[--n];
  }
  *p++ = '-';
  p = put2(p, m);
  *p++ = '-';
  p = put2(p, d);
  *p++ = sep;
  unsigned secs = (unsigned)(rem / LM_US_PER_SEC);
  unsigned frac = (unsigned)(rem % LM_US_PER_SEC);
  p = put2(p, secs / 3600);
  *p++ = ':';
  p = put2(p, secs / 60 % 60);
  *p++ = ':';
  p = put2(p, secs % 60);
  if (frac) {
    *p++ = '.';
    for (int k = 5; k >= 0; k--) {
      p[k] = (char)('0' + frac % 10);
      frac /= 10;
    }
    p += 6;
  }
  *p = '\0';
  return (int)(p - buf);
}

/* ------------------------------------------------------------- intervals */

typedef struct {
  const char *name;
  int64_t us;
} unit_def;

static const unit_def UNITS[] = {
    {"microsecond", 1},
    {"microseconds", 1},
    {"us", 1},
    {"usec", 1},
    {"usecs", 1},
    {"millisecond", 1000},
    {"milliseconds", 1000},
    {"ms", 1000},
    {"msec", 1000},
    {"msecs", 1000},
    {"second", LM_US_PER_SEC},
    {"seconds", LM_US_PER_SEC},
    {"s", LM_US_PER_SEC},
    {"sec", LM_US_PER_SEC},
    {"secs", LM_US_PER_SEC},
    {"minute", LM_US_PER_MIN},
    {"minutes", LM_US_PER_MIN},
    {"m", LM_US_PER_MIN},
    {"min", LM_US_PER_MIN},
    {"mins", LM_US_PER_MIN},
    {"hour", LM_US_PER_HOUR},
    {"hours", LM_US_PER_HOUR},
    {"h", LM_US_PER_HOUR},
    {"hr", LM_US_PER_HOUR},
    {"hrs", LM_US_PER_HOUR},
    {"day", LM_US_PER_DAY},
    {"days", LM_US_PER_DAY},
    {"d", LM_US_PER_DAY},
    {"week", 7 * LM_US_PER_DAY},
    {"weeks", 7 * LM_US_PER_DAY},
    {"w", 7 * LM_US_PER_DAY},
};

static int64_t unit_us(const char *u, size_t n) {
  for (size_t k = 0; k < LM_ARRAY_LEN(UNITS); k++)
    if (lm_strncaseeq(u, n, UNITS[k].name))
      return UNITS[k].us;
  return -1;
}

/* A decimal number: sign, digits, optional '.' and digits. Parsed into
 * mant / 10^scale (at most 18 significant fraction digits kept). Returns
 * the chars consumed, 0 if none. */
static size_t parse_decimal(const char *s, size_t n, __int128 *mant,
                            int *scale) {
  size_t i = 0;
  bool neg = false;
  if (i < n && (s[i] == '+' || s[i] == '-'))
    neg = s[i++] == '-';
  __int128 m = 0;
  int sc = 0, ndig = 0;
  while (i < n && dig(s[i])) {
    m = m * 10 + (s[i] - '0');
    if (m > (__int128)INT64_MAX * 1000000)
      return 0; /* overflow */
    i++;
    ndig++;
  }
  if (i < n && s[i] == '.') {
    i++;
    while (i < n && dig(s[i])) {
      if (sc < 18 && m < (__int128)INT64_MAX * 1000000) {
        m = m * 10 + (s[i] - '0');
        sc++;
      }
      i++;
      ndig++;
    }
  }
  if (ndig == 0)
    return 0;
  *mant = neg ? -m : m;
  *scale = sc;
  return i;
}

static int scale_to_us(__int128 mant, int scale, int64_t unit, __int128 *out) {
  __int128 v = mant * unit;
  for (int k = 0; k < scale; k++)
    v /= 10;
  if (v > INT64_MAX || v < INT64_MIN)
    return -1;
  *out = v;
  return 0;
}

static inline bool sp(char c) {
  return c == ' ' || c == '\t';
}

/* "[-]HH:MM[:SS[.f]]" at s; returns chars consumed or 0. */
static size_t parse_clock(const char *s, size_t n, __int128 *out) {
  size_t i = 0;
  bool neg = false;
  if (i < n && (s[i] == '+' || s[i] == '-'))
    neg = s[i++] == '-';
  int64_t parts[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    size_t st = i;
    int64_t v = 0;
    while (i < n && dig(s[i]) && i - st < 9)
      v = v * 10 + (s[i++] - '0');
    if (i == st)
      return 0;
    parts[k] = v;
    if (k == 0) {
      if (i >= n || s[i] != ':')
        return 0;
      i++;
    }
  }
  if (parts[1] > 59)
    return 0;
  __int128 us = (__int128)parts[0] * LM_US_PER_HOUR + parts[1] * LM_US_PER_MIN;
  if (i < n && s[i] == ':') {
    i++;
    __int128 mant;
    int scale;
    if (i >= n || !dig(s[i]))
      return 0;
    size_t c = parse_decimal(s + i, n - i, &mant, &scale);
    if (!c)
      return 0;
    __int128 secs;
    if (scale_to_us(mant, scale, LM_US_PER_SEC, &secs))
      return 0;
    if (secs >= 60 * LM_US_PER_SEC)
      return 0;
    us += secs;
    i += c;
  }
  *out = neg ? -us : us;
  return i;
}

/* A part in a day-based unit (day, week) adds its whole days to *days
 * and leaves the rest (fractions of a day) in *part. */
static void split_days(int64_t u, __int128 *part, __int128 *days) {
  if (u != LM_US_PER_DAY && u != 7 * LM_US_PER_DAY)
    return;
  __int128 d = *part / LM_US_PER_DAY; /* toward zero, as PostgreSQL */
  *days += d;
  *part -= d * LM_US_PER_DAY;
}

static int parse_interval(const char *num, size_t num_len, const char *unit,
                          size_t unit_len, int64_t *out_us, int64_t *out_days);

int lm_parse_interval(const char *num, size_t num_len, const char *unit,
                      size_t unit_len, int64_t *out_us) {
  return parse_interval(num, num_len, unit, unit_len, out_us, NULL);
}

int lm_parse_interval_days(const char *num, size_t num_len, const char *unit,
                           size_t unit_len, int64_t *out_us,
                           int64_t *out_days) {
  return parse_interval(num, num_len, unit, unit_len, out_us, out_days);
}

static int parse_interval(const char *num, size_t num_len, const char *unit,
                          size_t unit_len, int64_t *out_us, int64_t *out_days) {
  __int128 days = 0;
  if (out_days)
    *out_days = 0;
  if (!num)
    return -1;
  size_t a = 0, b = num_len;
  while (a < b && sp(num[a]))
    a++;
  while (b > a && sp(num[b - 1]))
    b--;
  if (a == b)
    return -1;
  const char *s = num + a;
  size_t n = b - a;
  __int128 mant, v;
  int scale;
  if (unit && unit_len > 0) {
    int64_t u = unit_us(unit, unit_len);
    if (u < 0)
      return -1;
    size_t c = parse_decimal(s, n, &mant, &scale);
    if (c != n || scale_to_us(mant, scale, u, &v))
      return -1;
    *out_us = (int64_t)v;
    split_days(u, &v, &days);
    if (out_days)
      *out_days = (int64_t)days;
    return 0;
  }
  /* whole-string form */
  __int128 total = 0;
  size_t i = 0;
  int parts = 0;
  bool had_clock = false;
  while (i < n) {
    while (i < n && sp(s[i]))
      i++;
    if (i >= n)
      break;
    __int128 part;
    size_t c = had_clock ? 0 : parse_clock(s + i, n - i, &part);
    if (c) {
      had_clock = true;
      i += c;
    } else {
      c = parse_decimal(s + i, n - i, &mant, &scale);
      if (!c)
        return -1;
      i += c;
      while (i < n && sp(s[i]))
        i++;
      size_t us0 = i;
      while (i < n &&
             ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')))
        i++;
      int64_t u;
      if (i == us0) {
        if (parts > 0 || i < n)
          return -1; /* bare number must be alone */
        u = LM_US_PER_SEC;
      } else {
        u = unit_us(s + us0, i - us0);
        if (u < 0)
          return -1;
      }
      if (scale_to_us(mant, scale, u, &part))
        return -1;
      split_days(u, &part, &days);
    }
    if (i < n && !sp(s[i]))
      return -1;
    total += part;
    if (total > INT64_MAX || total < INT64_MIN)
      return -1;
    parts++;
  }
  if (parts == 0)
    return -1;
  total += days * LM_US_PER_DAY;
  if (total > INT64_MAX || total < INT64_MIN)
    return -1;
  *out_us = (int64_t)total;
  if (out_days)
    *out_days = (int64_t)days;
  return 0;
}
