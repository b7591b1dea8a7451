/*
 * PostgreSQL date/time functions over TIMESTAMP (µs since the epoch, no
 * zone: UTC), a batch at a time (bound in plan/func_bind.c):
 *
 *   to_char(ts, fmt)              PostgreSQL template patterns (below)
 *   to_timestamp(seconds)         DOUBLE epoch seconds -> TIMESTAMP
 *   to_timestamp(text, fmt)       the same patterns, parsed
 *   make_timestamp(y, mo, d, h, mi, sec)
 *   age(a, b)                     PostgreSQL's symbolic difference
 *
 * to_char patterns: YYYY YYY YY Y IYYY, MM, Mon MON mon, Month MONTH month,
 * DD, DDD, D, ID, Dy DY dy, Day DAY day, HH HH12 HH24, MI, SS, MS, US,
 * FF1..FF6, SSSS, AM PM am pm A.M. P.M. a.m. p.m., Q, WW, W, IW, J, AD BC
 * ad bc, the FM prefix (no padding), "quoted text" and \x; other
 * characters are copied. INTERVAL has no months in Laminar: age() returns
 * years * 365.25 days + months * 30 days + days + time, which is
 * PostgreSQL's EXTRACT(EPOCH FROM age(...)) (docs/functions.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "columnar/lm_temporal.h"
#include "exec/lm_exec.h"
#include "exec/lm_strfn.h"

static const char *const month_names[] = {
    "January", "February", "March",     "April",   "May",      "June",
    "July",    "August",   "September", "October", "November", "December"};
static const char *const day_names[] = {"Sunday",    "Monday",   "Tuesday",
                                        "Wednesday", "Thursday", "Friday",
                                        "Saturday"};

typedef struct tm_us {
  int64_t y;
  unsigned mo, d;
  int64_t days; /* since the epoch */
  int h, mi, s, us;
  int dow; /* 0 = Sunday */
  int doy; /* 1.. */
} tm_us;

static void split(int64_t us, tm_us *t) {
  t->days = lm_floor_div(us, LM_US_PER_DAY);
  int64_t tod = us - t->days * LM_US_PER_DAY;
  lm_civil_from_days(t->days, &t->y, &t->mo, &t->d);
  t->h = (int)(tod / LM_US_PER_HOUR);
  t->mi = (int)(tod / LM_US_PER_MIN % 60);
  t->s = (int)(tod / LM_US_PER_SEC % 60);
  t->us = (int)(tod % LM_US_PER_SEC);
  t->dow = (int)lm_floor_mod(t->days + 4, 7); /* 1970-01-01: Thursday */
  t->doy = (int)(t->days - lm_days_from_civil(t->y, 1, 1) + 1);
}

/* ISO 8601 week-numbering year and week of the day `days`. */
static void iso_week(int64_t days, int64_t *iy, int *iw) {
  int64_t y;
  unsigned m, d;
  lm_civil_from_days(days, &y, &m, &d);
  int64_t thursday = days - lm_floor_mod(days + 3, 7) + 3; /* same week */
  lm_civil_from_days(thursday, &y, &m, &d);
  *iy = y;
  *iw = (int)((thursday - lm_days_from_civil(y, 1, 1)) / 7 + 1);
}

static void put_num(lm_buf *o, int64_t v, int width, bool fm) {
  if (v < 0) { /* years BC are printed by magnitude with BC */
    lm_buf_putc(o, '-');
    v = -v;
  }
  lm_buf_printf(o, "%0*lld", fm ? 1 : width, (long long)v);
}

/* A name with PostgreSQL's case of the pattern: "Month" capitalised,
 * "MONTH" upper, "month" lower; padded to 9 unless FM. */
static void put_name(lm_buf *o, const char *name, int pcase, size_t abbrev,
                     bool fm) {
  size_t n = abbrev ? abbrev : strlen(name);
  for (size_t k = 0; k < n; k++) {
    char c = name[k];
    if (pcase == 2 || (pcase == 1 && k == 0))
      c = (char)(c >= 'a' && c <= 'z' ? c - 32 : c);
    else if (pcase == 0 || (pcase == 1 && k > 0))
      c = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    lm_buf_putc(o, c);
  }
  if (!abbrev && !fm)
    for (size_t k = n; k < 9; k++)
      lm_buf_putc(o, ' ');
}

/* 2 = all upper, 1 = capitalised, 0 = lower, judged on the pattern's first
 * two letters. */
static int pat_case(const char *p) {
  bool u0 = p[0] >= 'A' && p[0] <= 'Z', u1 = p[1] >= 'A' && p[1] <= 'Z';
  return u0 && u1 ? 2 : u0 ? 1 : 0;
}

static bool pre(const char *p, const char *kw) {
  return !strncasecmp(p, kw, strlen(kw));
}

static void to_char_one(lm_buf *o, int64_t us, const char *p, size_t len) {
  tm_us t;
  split(us, &t);
  const char *end = p + len;
  int64_t year = t.y <= 0 ? 1 - t.y : t.y; /* no year 0: 1 BC */
  while (p < end) {
    bool fm = false;
    if (end - p >= 2 && pre(p, "FM")) {
      fm = true;
      p += 2;
      if (p >= end)
        break;
    }
    size_t rest = (size_t)(end - p);
#define IS(kw) (rest >= sizeof(kw) - 1 && pre(p, kw))
    if (*p == '"') {
      for (p++; p < end && *p != '"'; p++) {
        if (*p == '\\' && p + 1 < end)
          p++;
        lm_buf_putc(o, *p);
      }
      if (p < end)
        p++;
    } else if (*p == '\\' && p + 1 < end) {
      lm_buf_putc(o, p[1]);
      p += 2;
    } else if (IS("HH24")) {
      put_num(o, t.h, 2, fm), p += 4;
    } else if (IS("HH12")) {
      put_num(o, t.h % 12 ? t.h % 12 : 12, 2, fm), p += 4;
    } else if (IS("HH")) {
      put_num(o, t.h % 12 ? t.h % 12 : 12, 2, fm), p += 2;
    } else if (IS("MI")) {
      put_num(o, t.mi, 2, fm), p += 2;
    } else if (IS("SSSS")) {
      put_num(o, t.h * 3600 + t.mi * 60 + t.s, 1, fm), p += 4;
    } else if (IS("SS")) {
      put_num(o, t.s, 2, fm), p += 2;
    } else if (IS("MS")) {
      put_num(o, t.us / 1000, 3, fm), p += 2;
    } else if (IS("US")) {
      put_num(o, t.us, 6, fm), p += 2;
    } else if (rest >= 3 && pre(p, "FF") && p[2] >= '1' && p[2] <= '6') {
      int d = p[2] - '0', v = t.us;
      for (int k = d; k < 6; k++)
        v /= 10;
      put_num(o, v, d, fm), p += 3;
    } else if (IS("A.M.") || IS("P.M.")) {
      bool up = p[0] == 'A' || p[0] == 'P';
      lm_buf_puts(o,
                  t.h >= 12 ? (up ? "P.M." : "p.m.") : (up ? "A.M." : "a.m."));
      p += 4;
    } else if (IS("AM") || IS("PM")) {
      bool up = p[0] == 'A' || p[0] == 'P';
      lm_buf_puts(o, t.h >= 12 ? (up ? "PM" : "pm") : (up ? "AM" : "am"));
      p += 2;
    } else if (IS("AD") || IS("BC")) {
      bool up = p[0] == 'A' || p[0] == 'B';
      lm_buf_puts(o, t.y <= 0 ? (up ? "BC" : "bc") : (up ? "AD" : "ad"));
      p += 2;
    } else if (IS("IYYY")) {
      int64_t iy;
      int iw;
      iso_week(t.days, &iy, &iw);
      put_num(o, iy <= 0 ? 1 - iy : iy, 4, fm), p += 4; /* BC: magnitude */
    } else if (IS("YYYY")) {
      put_num(o, year, 4, fm), p += 4;
    } else if (IS("YYY")) {
      put_num(o, year % 1000, 3, fm), p += 3;
    } else if (IS("YY")) {
      put_num(o, year % 100, 2, fm), p += 2;
    } else if (IS("Y") && !IS("Y,")) {
      put_num(o, year % 10, 1, fm), p += 1;
    } else if (IS("MONTH")) {
      put_name(o, month_names[t.mo - 1], pat_case(p), 0, fm), p += 5;
    } else if (IS("MON")) {
      put_name(o, month_names[t.mo - 1], pat_case(p), 3, fm), p += 3;
    } else if (IS("MM")) {
      put_num(o, t.mo, 2, fm), p += 2;
    } else if (IS("DAY")) {
      put_name(o, day_names[t.dow], pat_case(p), 0, fm), p += 3;
    } else if (IS("DY")) {
      put_name(o, day_names[t.dow], pat_case(p), 3, fm), p += 2;
    } else if (IS("DDD")) {
      put_num(o, t.doy, 3, fm), p += 3;
    } else if (IS("DD")) {
      put_num(o, t.d, 2, fm), p += 2;
    } else if (IS("D")) {
      put_num(o, t.dow + 1, 1, fm), p += 1;
    } else if (IS("ID")) {
      put_num(o, t.dow ? t.dow : 7, 1, fm), p += 2;
    } else if (IS("IW")) {
      int64_t iy;
      int iw;
      iso_week(t.days, &iy, &iw);
      put_num(o, iw, 2, fm), p += 2;
    } else if (IS("WW")) {
      put_num(o, (t.doy - 1) / 7 + 1, 2, fm), p += 2;
    } else if (IS("W")) {
      put_num(o, (t.d - 1) / 7 + 1, 1, fm), p += 1;
    } else if (IS("Q")) {
      put_num(o, (t.mo - 1) / 3 + 1, 1, fm), p += 1;
    } else if (IS("J")) {
      put_num(o, t.days + 2440588, 1, fm), p += 1;
    } else {
      lm_buf_putc(o, *p++);
    }
#undef IS
  }
}

/* Parses `s` with the to_char patterns (numbers, month/day names, AM/PM);
 * literal pattern characters skip one input character. -1 on a mismatch. */
static int to_ts_parse(const char *s, size_t sl, const char *p, size_t pl,
                       int64_t *out) {
  int64_t y = 1, mo = 1, d = 1, h = 0, mi = 0, sec = 0, us = 0;
  bool pm = false, ampm = false;
  const char *se = s + sl, *pe = p + pl;
  while (p < pe) {
    size_t rest = (size_t)(pe - p);
    if (rest >= 2 && pre(p, "FM")) {
      p += 2;
      continue;
    }
    int width = 0;
    int64_t *dst = NULL;
    int64_t scale = 1;
#define IS(kw) (rest >= sizeof(kw) - 1 && pre(p, kw))
    if (IS("YYYY"))
      dst = &y, width = 4, p += 4;
    else if (IS("HH24"))
      dst = &h, width = 2, p += 4;
    else if (IS("HH12"))
      dst = &h, width = 2, p += 4, ampm = true;
    else if (IS("HH"))
      dst = &h, width = 2, p += 2, ampm = true;
    else if (IS("MI"))
      dst = &mi, width = 2, p += 2;
    else if (IS("SS"))
      dst = &sec, width = 2, p += 2;
    else if (IS("MS"))
      dst = &us, width = 3, p += 2, scale = 1000;
    else if (IS("US"))
      dst = &us, width = 6, p += 2;
    else if (IS("MM"))
      dst = &mo, width = 2, p += 2;
    else if (IS("DD"))
      dst = &d, width = 2, p += 2;
    else if (IS("AM") || IS("PM")) {
      while (s < se && *s == ' ')
        s++;
      if (se - s < 2)
        return -1;
      if (pre(s, "PM"))
        pm = true;
      else if (!pre(s, "AM"))
        return -1;
      s += 2, p += 2;
      continue;
    } else if (IS("MONTH") || IS("MON")) {
      bool full = IS("MONTH");
      p += full ? 5 : 3;
      while (s < se && *s == ' ')
        s++;
      int k = 0;
      for (; k < 12; k++) {
        size_t n = full ? strlen(month_names[k]) : 3;
        if ((size_t)(se - s) >= n && !strncasecmp(s, month_names[k], n)) {
          s += n;
          break;
        }
      }
      if (k == 12)
        return -1;
      mo = k + 1;
      continue;
    } else {
      /* a separator in the pattern skips one separator in the input */
      if (s < se && !(*s >= '0' && *s <= '9'))
        s++;
      p++;
      continue;
    }
#undef IS
    while (s < se && *s == ' ')
      s++;
    bool neg = s < se && *s == '-' && dst == &y;
    if (neg)
      s++;
    int64_t v = 0;
    int k = 0;
    for (; s < se && k < width + (dst == &y ? 2 : 0) && *s >= '0' && *s <= '9';
         k++, s++)
      v = v * 10 + (*s - '0');
    if (k == 0)
      return -1;
    if (dst == &us && scale == 1000)
      for (; k < 3; k++)
        v *= 10;
    else if (dst == &us)
      for (; k < 6; k++)
        v *= 10;
    *dst = (neg ? -v : v) * scale;
  }
  while (s < se && *s == ' ')
    s++;
  if (s < se)
    return -1;
  if (ampm) {
    if (h < 1 || h > 12)
      return -2;
    h = h % 12 + (pm ? 12 : 0);
  }
  if (mo < 1 || mo > 12 || d < 1 ||
      d > (int64_t)lm_days_in_month(y, (unsigned)mo) || h > 24 || mi > 59 ||
      sec > 60)
    return -2;
  *out = (lm_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 +
          mi * 60 + sec) *
             LM_US_PER_SEC +
         us;
  return 0;
}

static const int64_t US_YEAR = 31557600LL * 1000000; /* 365.25 days */
static const int64_t US_MONTH = 30LL * LM_US_PER_DAY;

/* PostgreSQL's age(a, b) (timestamp_age), as µs (see the file comment). */
static int64_t age_us(int64_t a, int64_t b) {
  tm_us t1, t2;
  split(a, &t1);
  split(b, &t2);
  int64_t fsec = t1.us - t2.us, sec = t1.s - t2.s, mi = t1.mi - t2.mi,
          h = t1.h - t2.h, d = (int64_t)t1.d - t2.d,
          mo = (int64_t)t1.mo - t2.mo, y = t1.y - t2.y;
  bool flip = a < b;
  if (flip)
    fsec = -fsec, sec = -sec, mi = -mi, h = -h, d = -d, mo = -mo, y = -y;
  while (fsec < 0)
    fsec += LM_US_PER_SEC, sec--;
  while (sec < 0)
    sec += 60, mi--;
  while (mi < 0)
    mi += 60, h--;
  while (h < 0)
    h += 24, d--;
  while (d < 0) {
    const tm_us *r = flip ? &t1 : &t2;
    d += lm_days_in_month(r->y, r->mo);
    mo--;
  }
  while (mo < 0)
    mo += 12, y--;
  if (flip)
    fsec = -fsec, sec = -sec, mi = -mi, h = -h, d = -d, mo = -mo, y = -y;
  return y * US_YEAR + mo * US_MONTH + d * LM_US_PER_DAY + h * LM_US_PER_HOUR +
         mi * LM_US_PER_MIN + sec * LM_US_PER_SEC + fsec;
}

#define MAX_TS_US 9223371331200000000LL /* 294276-12-31, PostgreSQL's end */

static int datefn_row(const lm_bexpr *e, lm_array *const *a, int64_t i,
                      lm_builder *b, lm_buf *o, void *ctx, lm_error *err) {
  (void)ctx;
  int rc = 0;
  switch (e->fn) {
  case LM_FN_TO_CHAR: {
    int32_t fl;
    const char *f = lm_array_str(a[1], i, &fl);
    if (!lm_ts_finite(lm_array_get_i64(a[0], i))) {
      lm_builder_append_null(b); /* PostgreSQL: to_char(infinity) is NULL */
      break;
    }
    lm_buf_reset(o);
    to_char_one(o, lm_array_get_i64(a[0], i), f, (size_t)fl);
    lm_builder_append_str(b, o->data ? o->data : "", (int32_t)o->len);
    break;
  }
  case LM_FN_TO_TIMESTAMP: {
    int64_t v;
    if (e->n_args == 1) {
      double s = lm_array_get_f64(a[0], i);
      if (isnan(s)) {
        rc = lm_fn_error(err, e, "22008", "timestamp cannot be NaN");
        break;
      }
      /* as PostgreSQL: seconds since 2000-01-01 first, then µs, rint */
      double us = nearbyint((s - 946684800.0) * 1e6) + 946684800e6;
      if (!(us >= -210866803200e6 && us < (double)MAX_TS_US)) {
        rc = lm_fn_error(err, e, "22008", "timestamp out of range: \"%g\"", s);
        break;
      }
      v = (int64_t)us;
    } else {
      int32_t sl, fl;
      const char *s = lm_array_str(a[0], i, &sl);
      const char *f = lm_array_str(a[1], i, &fl);
      int r = to_ts_parse(s, (size_t)sl, f, (size_t)fl, &v);
      if (r) {
        int q = sl > 60 ? 60 : (int)sl; /* never cutting a character */
        while (q > 0 && q < sl && ((unsigned char)s[q] & 0xC0) == 0x80)
          q--;
        rc = lm_fn_error(err, e, r == -2 ? "22008" : "22007",
                         r == -2 ? "date/time field value out of range: "
                                   "\"%.*s\""
                                 : "invalid value \"%.*s\" for the format",
                         q, s);
        break;
      }
    }
    lm_builder_append_int(b, v);
    break;
  }
  case LM_FN_MAKE_TIMESTAMP: {
    int64_t y = lm_array_get_i64(a[0], i), mo = lm_array_get_i64(a[1], i),
            d = lm_array_get_i64(a[2], i), h = lm_array_get_i64(a[3], i),
            mi = lm_array_get_i64(a[4], i);
    double sec = lm_array_get_f64(a[5], i);
    if (y == 0 || y < -4713 || y > 294276 || mo < 1 || mo > 12 || d < 1 ||
        d > (int64_t)lm_days_in_month(y < 0 ? y + 1 : y, (unsigned)mo)) {
      rc = lm_fn_error(err, e, "22008",
                       "date field value out of range: %lld-%02lld-%02lld",
                       (long long)y, (long long)mo, (long long)d);
      break;
    }
    if (h < 0 || mi < 0 || !(sec >= 0) || h > 24 || mi > 59 || sec > 60 ||
        (h == 24 && (mi > 0 || sec > 0))) {
      rc = lm_fn_error(err, e, "22008",
                       "time field value out of range: %lld:%02lld:%02g",
                       (long long)h, (long long)mi, sec);
      break;
    }
    int64_t days =
        lm_days_from_civil(y < 0 ? y + 1 : y, (unsigned)mo, (unsigned)d);
    int64_t v = days * LM_US_PER_DAY + h * LM_US_PER_HOUR + mi * LM_US_PER_MIN +
                (int64_t)nearbyint(sec * 1e6);
    lm_builder_append_int(b, v);
    break;
  }
  case LM_FN_AGE:
    lm_builder_append_int(
        b, age_us(lm_array_get_i64(a[0], i), lm_array_get_i64(a[1], i)));
    break;
  default:
    rc = lm_fn_error(err, e, "0A000", "function not implemented");
  }
  return rc;
}

int lm_datefn_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                   lm_error *err) {
  return lm_fn_rows(e, in, e->n_args, datefn_row, NULL, out, err);
}
