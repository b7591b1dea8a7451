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
 * characters are copied. to_char(interval, fmt) is interval_to_char
 * (to_char_iv: years and months from the months, then days and time);
 * age() and the other months-interval functions are in expr_mdn.c
 * (docs/functions.md).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columnar/lm_decimal.h"
#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"
#include "exec/expr_mdn.h"
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

/* ------------------------------------------------------------ to_char */

/* PostgreSQL's to_char template keywords (formatting.c DCH_keywords), in
 * its order: a keyword is matched case-sensitively, the first in this
 * list that the template continues with wins ("DDD" before "DD"). */
typedef enum dch {
  K_A_D,
  K_A_M,
  K_AD,
  K_AM,
  K_B_C,
  K_BC,
  K_CC,
  K_DAY_U,
  K_DDD,
  K_DD,
  K_DY_U,
  K_DAY_C,
  K_DY_C,
  K_D,
  K_FF1,
  K_FF2,
  K_FF3,
  K_FF4,
  K_FF5,
  K_FF6,
  K_FX,
  K_HH24,
  K_HH12,
  K_HH,
  K_IDDD,
  K_ID,
  K_IW,
  K_IYYY,
  K_IYY,
  K_IY,
  K_I,
  K_J,
  K_MI,
  K_MM,
  K_MONTH_U,
  K_MON_U,
  K_MS,
  K_MONTH_C,
  K_MON_C,
  K_OF,
  K_P_M,
  K_PM,
  K_Q,
  K_RM,
  K_SSSSS,
  K_SSSS,
  K_SS,
  K_TZH,
  K_TZM,
  K_TZ,
  K_US,
  K_WW,
  K_W,
  K_Y_YYY,
  K_YYYY,
  K_YYY,
  K_YY,
  K_Y,
  /* lower case */
  K_a_d,
  K_a_m,
  K_ad,
  K_am,
  K_b_c,
  K_bc,
  K_cc,
  K_day,
  K_ddd,
  K_dd,
  K_dy,
  K_d,
  K_ff1,
  K_ff2,
  K_ff3,
  K_ff4,
  K_ff5,
  K_ff6,
  K_fx,
  K_hh24,
  K_hh12,
  K_hh,
  K_iddd,
  K_id,
  K_iw,
  K_iyyy,
  K_iyy,
  K_iy,
  K_i,
  K_j,
  K_mi,
  K_mm,
  K_month,
  K_mon,
  K_ms,
  K_of,
  K_p_m,
  K_pm,
  K_q,
  K_rm,
  K_sssss,
  K_ssss,
  K_ss,
  K_tzh,
  K_tzm,
  K_tz,
  K_us,
  K_ww,
  K_w,
  K_y_yyy,
  K_yyyy,
  K_yyy,
  K_yy,
  K_y,
  K__COUNT
} dch;

static const char *const dch_names[K__COUNT] = {
    "A.D.",  "A.M.",  "AD",   "AM",   "B.C.", "BC",   "CC",   "DAY",   "DDD",
    "DD",    "DY",    "Day",  "Dy",   "D",    "FF1",  "FF2",  "FF3",   "FF4",
    "FF5",   "FF6",   "FX",   "HH24", "HH12", "HH",   "IDDD", "ID",    "IW",
    "IYYY",  "IYY",   "IY",   "I",    "J",    "MI",   "MM",   "MONTH", "MON",
    "MS",    "Month", "Mon",  "OF",   "P.M.", "PM",   "Q",    "RM",    "SSSSS",
    "SSSS",  "SS",    "TZH",  "TZM",  "TZ",   "US",   "WW",   "W",     "Y,YYY",
    "YYYY",  "YYY",   "YY",   "Y",    "a.d.", "a.m.", "ad",   "am",    "b.c.",
    "bc",    "cc",    "day",  "ddd",  "dd",   "dy",   "d",    "ff1",   "ff2",
    "ff3",   "ff4",   "ff5",  "ff6",  "fx",   "hh24", "hh12", "hh",    "iddd",
    "id",    "iw",    "iyyy", "iyy",  "iy",   "i",    "j",    "mi",    "mm",
    "month", "mon",   "ms",   "of",   "p.m.", "pm",   "q",    "rm",    "sssss",
    "ssss",  "ss",    "tzh",  "tzm",  "tz",   "us",   "ww",   "w",     "y,yyy",
    "yyyy",  "yyy",   "yy",   "y"};

/* The keyword the template p[0, rest) starts with, or -1. */
static int dch_search(const char *p, size_t rest) {
  for (int k = 0; k < K__COUNT; k++) {
    size_t l = strlen(dch_names[k]);
    if (dch_names[k][0] == p[0] && l <= rest && !memcmp(p, dch_names[k], l))
      return k;
  }
  return -1;
}

/* Folds the lower-case keywords onto their upper-case twins (the case of
 * the output is `lower`). */
static dch dch_fold(int k, bool *lower) {
  static const struct {
    dch lo, up;
  } pairs[] = {{K_a_d, K_A_D},   {K_a_m, K_A_M},     {K_ad, K_AD},
               {K_am, K_AM},     {K_b_c, K_B_C},     {K_bc, K_BC},
               {K_cc, K_CC},     {K_day, K_DAY_U},   {K_ddd, K_DDD},
               {K_dd, K_DD},     {K_dy, K_DY_U},     {K_d, K_D},
               {K_ff1, K_FF1},   {K_ff2, K_FF2},     {K_ff3, K_FF3},
               {K_ff4, K_FF4},   {K_ff5, K_FF5},     {K_ff6, K_FF6},
               {K_fx, K_FX},     {K_hh24, K_HH24},   {K_hh12, K_HH12},
               {K_hh, K_HH},     {K_iddd, K_IDDD},   {K_id, K_ID},
               {K_iw, K_IW},     {K_iyyy, K_IYYY},   {K_iyy, K_IYY},
               {K_iy, K_IY},     {K_i, K_I},         {K_j, K_J},
               {K_mi, K_MI},     {K_mm, K_MM},       {K_month, K_MONTH_U},
               {K_mon, K_MON_U}, {K_ms, K_MS},       {K_of, K_OF},
               {K_p_m, K_P_M},   {K_pm, K_PM},       {K_q, K_Q},
               {K_rm, K_RM},     {K_sssss, K_SSSSS}, {K_ssss, K_SSSS},
               {K_ss, K_SS},     {K_tzh, K_TZH},     {K_tzm, K_TZM},
               {K_tz, K_TZ},     {K_us, K_US},       {K_ww, K_WW},
               {K_w, K_W},       {K_y_yyy, K_Y_YYY}, {K_yyyy, K_YYYY},
               {K_yyy, K_YYY},   {K_yy, K_YY},       {K_y, K_Y}};
  *lower = false;
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    if ((int)pairs[i].lo == k) {
      *lower = true;
      return pairs[i].up;
    }
  return (dch)k;
}

/* The zone facts a to_char of a TIMESTAMPTZ prints (TZ, OF, TZH, TZM);
 * a TIMESTAMP has no abbreviation and offset 0, as in PostgreSQL. */
typedef struct tc_zone {
  int32_t off_s;      /* seconds east */
  const char *abbrev; /* NULL: TIMESTAMP (TZ prints nothing) */
} tc_zone;

/* PostgreSQL's ordinal suffix (get_th) of the number num[0, n): st, nd,
 * rd, th (the teens th), upper case when `up`. */
static const char *th_suffix(const char *num, size_t n, bool up) {
  char last = n ? num[n - 1] : '0';
  if (n > 1 && num[n - 2] == '1')
    last = '0';
  switch (last) {
  case '1':
    return up ? "ST" : "st";
  case '2':
    return up ? "ND" : "nd";
  case '3':
    return up ? "RD" : "rd";
  default:
    return up ? "TH" : "th";
  }
}

/* Appends the suffix of the number written at o->data[from..]. */
static void put_th(lm_buf *o, size_t from, bool up) {
  if (o->len > from)
    lm_buf_puts(o, th_suffix(o->data + from, o->len - from, up));
}

static void put_int(lm_buf *o, int64_t v, int width) {
  lm_buf_printf(o, "%0*lld", width, (long long)v);
}

/* A name in the case of its keyword: 2 upper, 1 capitalised, 0 lower;
 * padded to `pad` characters (0: none). */
static void put_word(lm_buf *o, const char *name, int wcase, size_t n,
                     int pad) {
  size_t k = 0;
  for (; k < n && name[k]; k++) {
    char c = name[k];
    if (wcase == 2 || (wcase == 1 && k == 0))
      c = (char)(c >= 'a' && c <= 'z' ? c - 32 : c);
    else
      c = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    lm_buf_putc(o, c);
  }
  for (; (int)k < pad; k++)
    lm_buf_putc(o, ' ');
}

static const char *const roman_months[] = {
    "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"};

/* to_char(ts, template) as PostgreSQL 15's DCH_to_char: us the local
 * wall-clock µs, z the zone facts. Appends to o. */
static void to_char_one(lm_buf *o, int64_t us, const tc_zone *z, const char *p,
                        size_t len) {
  tm_us t;
  split(us, &t);
  const char *end = p + len;
  int64_t year = t.y <= 0 ? 1 - t.y : t.y; /* ADJUST_YEAR: no year 0 */
  int64_t iy = 0;
  int iw = 0;
  iso_week(t.days, &iy, &iw);
  int64_t iyear = iy <= 0 ? 1 - iy : iy;
  int isodow = t.dow ? t.dow : 7;
  while (p < end) {
    bool fm = false, tm = false;
    size_t rest = (size_t)(end - p);
    if (rest >= 2 && (!memcmp(p, "FM", 2) || !memcmp(p, "fm", 2)))
      fm = true, p += 2;
    else if (rest >= 2 && (!memcmp(p, "TM", 2) || !memcmp(p, "tm", 2)))
      tm = true, p += 2;
    if (p >= end)
      break;
    rest = (size_t)(end - p);
    int kw = dch_search(p, rest);
    if (kw < 0) {
      if (*p == '"') { /* a quoted literal; \ quotes the next character */
        for (p++; p < end; p++) {
          if (*p == '"') {
            p++;
            break;
          }
          if (*p == '\\' && p + 1 < end)
            p++;
          lm_buf_putc(o, *p);
        }
      } else {
        if (*p == '\\' && p + 1 < end && p[1] == '"')
          p++;
        lm_buf_putc(o, *p++);
      }
      continue;
    }
    p += strlen(dch_names[kw]);
    int th = 0; /* 1 th, 2 TH */
    if (end - p >= 2) {
      if (!memcmp(p, "TH", 2))
        th = 2, p += 2;
      else if (!memcmp(p, "th", 2))
        th = 1, p += 2;
      else if (!memcmp(p, "SP", 2))
        p += 2; /* PostgreSQL accepts SP and ignores it */
    }
    bool lower;
    int kc = kw; /* the keyword as written, for the case of names */
    dch k = dch_fold(kw, &lower);
    size_t from = o->len;
    bool num = true; /* a number: TH applies */
    int pad = fm ? 0 : 2;
    switch (k) {
    case K_A_D:
    case K_B_C:
      num = false;
      lm_buf_puts(o, t.y <= 0 ? (lower ? "b.c." : "B.C.")
                              : (lower ? "a.d." : "A.D."));
      break;
    case K_AD:
    case K_BC:
      num = false;
      lm_buf_puts(o, t.y <= 0 ? (lower ? "bc" : "BC") : (lower ? "ad" : "AD"));
      break;
    case K_A_M:
    case K_P_M:
      num = false;
      lm_buf_puts(o, t.h >= 12 ? (lower ? "p.m." : "P.M.")
                               : (lower ? "a.m." : "A.M."));
      break;
    case K_AM:
    case K_PM:
      num = false;
      lm_buf_puts(o, t.h >= 12 ? (lower ? "pm" : "PM") : (lower ? "am" : "AM"));
      break;
    case K_CC: {
      int64_t c = t.y > 0 ? (t.y - 1) / 100 + 1 : t.y / 100 - 1;
      if (c <= 99 && c >= -99)
        lm_buf_printf(o, "%0*lld", fm ? 0 : c >= 0 ? 2 : 3, (long long)c);
      else
        lm_buf_printf(o, "%lld", (long long)c);
      break;
    }
    case K_DAY_U:
    case K_DAY_C:
    case K_DY_U:
    case K_DY_C: {
      num = false;
      bool full = k == K_DAY_U || k == K_DAY_C;
      int wc = lower ? 0 : (k == K_DAY_C || k == K_DY_C) ? 1 : 2;
      put_word(o, day_names[t.dow], wc, full ? 99 : 3,
               full && !fm && !tm ? 9 : 0);
      break;
    }
    case K_MONTH_U:
    case K_MONTH_C:
    case K_MON_U:
    case K_MON_C: {
      num = false;
      bool full = k == K_MONTH_U || k == K_MONTH_C;
      int wc = lower ? 0 : (k == K_MONTH_C || k == K_MON_C) ? 1 : 2;
      put_word(o, month_names[t.mo - 1], wc, full ? 99 : 3,
               full && !fm && !tm ? 9 : 0);
      break;
    }
    case K_RM: {
      num = false;
      const char *r = roman_months[t.mo - 1];
      put_word(o, r, lower ? 0 : 2, 4, fm ? 0 : 4);
      break;
    }
    case K_DDD:
      put_int(o, t.doy, fm ? 0 : 3);
      break;
    case K_DD:
      put_int(o, t.d, pad);
      break;
    case K_D:
      put_int(o, t.dow + 1, 0);
      break;
    case K_ID:
      put_int(o, isodow, 0);
      break;
    case K_FF1:
    case K_FF2:
    case K_FF3:
    case K_FF4:
    case K_FF5:
    case K_FF6: {
      int d = (int)(k - K_FF1) + 1, v = t.us;
      for (int i = d; i < 6; i++)
        v /= 10;
      put_int(o, v, d); /* FM does not apply */
      break;
    }
    case K_MS:
      put_int(o, t.us / 1000, 3);
      break;
    case K_US:
      put_int(o, t.us, 6);
      break;
    case K_FX:
      num = false;
      break;
    case K_HH24:
      put_int(o, t.h, pad);
      break;
    case K_HH12:
    case K_HH:
      put_int(o, t.h % 12 ? t.h % 12 : 12, pad);
      break;
    case K_IDDD:
      put_int(o, (int64_t)(iw - 1) * 7 + isodow, fm ? 0 : 3);
      break;
    case K_IW:
      put_int(o, iw, pad);
      break;
    case K_IYYY:
      put_int(o, iyear, fm ? 0 : 4);
      break;
    case K_IYY:
      put_int(o, iyear % 1000, fm ? 0 : 3);
      break;
    case K_IY:
      put_int(o, iyear % 100, pad);
      break;
    case K_I:
      put_int(o, iyear % 10, fm ? 0 : 1);
      break;
    case K_J:
      put_int(o, t.days + 2440588, 0);
      break;
    case K_MI:
      put_int(o, t.mi, pad);
      break;
    case K_MM:
      put_int(o, t.mo, pad);
      break;
    case K_OF: {
      num = false;
      int32_t a = z->off_s < 0 ? -z->off_s : z->off_s;
      lm_buf_printf(o, "%c%0*d", z->off_s >= 0 ? '+' : '-', fm ? 0 : 2,
                    a / 3600);
      if (a % 3600)
        lm_buf_printf(o, ":%02d", a % 3600 / 60);
      break;
    }
    case K_TZH: {
      num = false;
      int32_t a = z->off_s < 0 ? -z->off_s : z->off_s;
      lm_buf_printf(o, "%c%02d", z->off_s >= 0 ? '+' : '-', a / 3600);
      break;
    }
    case K_TZM: {
      num = false;
      int32_t a = z->off_s < 0 ? -z->off_s : z->off_s;
      lm_buf_printf(o, "%02d", a % 3600 / 60);
      break;
    }
    case K_TZ:
      num = false;
      if (z->abbrev)
        put_word(o, z->abbrev, lower ? 0 : 2, 99, 0);
      break;
    case K_Q:
      put_int(o, (t.mo - 1) / 3 + 1, 0);
      break;
    case K_SSSSS:
    case K_SSSS:
      put_int(o, (int64_t)t.h * 3600 + t.mi * 60 + t.s, 0);
      break;
    case K_SS:
      put_int(o, t.s, pad);
      break;
    case K_WW:
      put_int(o, (t.doy - 1) / 7 + 1, pad);
      break;
    case K_W:
      put_int(o, (t.d - 1) / 7 + 1, 0);
      break;
    case K_Y_YYY: {
      int64_t th1 = year / 1000;
      lm_buf_printf(o, "%lld,%03lld", (long long)th1,
                    (long long)(year - th1 * 1000));
      break;
    }
    case K_YYYY:
      put_int(o, year, fm ? 0 : 4);
      break;
    case K_YYY:
      put_int(o, year % 1000, fm ? 0 : 3);
      break;
    case K_YY:
      put_int(o, year % 100, pad);
      break;
    case K_Y:
      put_int(o, year % 10, fm ? 0 : 1);
      break;
    default:
      num = false;
      break;
    }
    (void)kc;
    if (th && num)
      put_th(o, from, th == 2);
  }
}

/* ---------------------------------------------------- to_char(interval) */

/* PostgreSQL's Julian day arithmetic (datetime.c date2j / j2day,
 * timestamp.c date2iso*), in its int arithmetic: to_char of an interval
 * applies the ISO patterns to year 0, month 0 and the interval's days. */
static int64_t pg_date2j(int64_t y, int64_t m, int64_t d) {
  if (m > 2) {
    m += 1;
    y += 4800;
  } else {
    m += 13;
    y += 4799;
  }
  int64_t century = y / 100;
  int64_t julian = y * 365 - 32167;
  julian += y / 4 - century + century / 4;
  return julian + 7834 * m / 256 + d;
}

static int pg_j2day(int j) {
  j = (j + 1) % 7;
  return j < 0 ? j + 7 : j;
}

/* The first day (Monday) of ISO week 1 of year y. */
static int pg_iso_start(int y) {
  int day4 = (int)pg_date2j(y, 1, 4);
  return day4 - pg_j2day(day4 - 1);
}

/* PostgreSQL 15's date2j, j2day, date2isoyear, date2isoweek and
 * date2isoyearday in its 32-bit int arithmetic, wrapping on overflow as
 * PostgreSQL (built with -fwrapv) does: to_char of an interval applies them
 * to its years, months (-11..11, 0 included) and days, which can be far
 * outside a calendar. */
static int32_t w32(uint32_t x) {
  return (int32_t)x;
}

static int32_t iv_date2j(int32_t y, int32_t m, int32_t d) {
  uint32_t yy = (uint32_t)y, mm = (uint32_t)m;
  if (m > 2) {
    mm += 1;
    yy += 4800;
  } else {
    mm += 13;
    yy += 4799;
  }
  int32_t ys = w32(yy), century = ys / 100;
  uint32_t julian = yy * 365u - 32167u;
  julian += (uint32_t)(ys / 4) - (uint32_t)century + (uint32_t)(century / 4);
  julian += (uint32_t)(7834 * w32(mm) / 256) + (uint32_t)d;
  return w32(julian);
}

static int32_t iv_j2day(int32_t j) {
  j = w32((uint32_t)j + 1u) % 7;
  return j < 0 ? j + 7 : j;
}

/* day4 - day0: the Monday of ISO week 1 of year y */
static int32_t iv_week1(int32_t y) {
  int32_t day4 = iv_date2j(y, 1, 4);
  return w32((uint32_t)day4 - (uint32_t)iv_j2day(w32((uint32_t)day4 - 1u)));
}

/* date2isoweek (week) and date2isoyear (year) of y-m-d. */
static void iv_iso(int32_t y, int32_t m, int32_t d, int32_t *week,
                   int32_t *year) {
  int32_t dayn = iv_date2j(y, m, d), start = iv_week1(y);
  *year = y;
  if (dayn < start) {
    start = iv_week1(w32((uint32_t)y - 1u));
    *year = w32((uint32_t)y - 1u);
  }
  int32_t w = w32((uint32_t)dayn - (uint32_t)start) / 7 + 1;
  *week = w;
  if (w >= 52) {
    int32_t next = iv_week1(w32((uint32_t)*year + 1u));
    if (dayn >= next) {
      *week = w32((uint32_t)dayn - (uint32_t)next) / 7 + 1;
      *year = w32((uint32_t)*year + 1u);
    }
  }
}

/* date2isoweek keeps its year: its second look at the previous year uses
 * `year - 1` but the next-year test `year + 1` of the unchanged year. */
static int32_t iv_isoweek(int32_t y, int32_t m, int32_t d) {
  int32_t dayn = iv_date2j(y, m, d), start = iv_week1(y);
  if (dayn < start)
    start = iv_week1(w32((uint32_t)y - 1u));
  int32_t w = w32((uint32_t)dayn - (uint32_t)start) / 7 + 1;
  if (w >= 52) {
    int32_t next = iv_week1(w32((uint32_t)y + 1u));
    if (dayn >= next)
      w = w32((uint32_t)dayn - (uint32_t)next) / 7 + 1;
  }
  return w;
}

static int32_t iv_isoyear(int32_t y, int32_t m, int32_t d) {
  int32_t w, iy;
  iv_iso(y, m, d, &w, &iy);
  return iy;
}

/* date2isoyearday: the day's distance from its ISO year's week 1, + 1 */
static int32_t iv_isoyearday(int32_t y, int32_t m, int32_t d) {
  uint32_t r = (uint32_t)iv_date2j(y, m, d) -
               (uint32_t)iv_week1(iv_isoyear(y, m, d)) + 1u;
  return w32(r);
}

static const char *const rm_upper_rev[] = {
    "XII", "XI", "X", "IX", "VIII", "VII", "VI", "V", "IV", "III", "II", "I"};

/* to_char(interval, template) as PostgreSQL 15's interval_to_char
 * (interval2itm): an interval of `months` months, `days` days and the
 * time t (µs, its hours not folded into days: '36 hours' is HH24 36), as
 * years (months / 12), months (months % 12), days, hours, minutes,
 * seconds and µs, each with the sign of its field (truncated toward
 * zero). A µs interval is passed split as Laminar prints it (days, then a
 * time of day of the same sign). Returns 0, or -1 for a pattern tied to
 * calendar dates (22007). Appends to o. */
static int to_char_iv(lm_buf *o, int32_t months, int32_t days, int64_t t,
                      const char *p, size_t len) {
  int32_t year = months / 12, mon = months % 12, mday = days;
  int64_t h = t / LM_US_PER_HOUR;
  int mi = (int)(t / LM_US_PER_MIN % 60), sec = (int)(t / LM_US_PER_SEC % 60);
  int fsec = (int)(t % LM_US_PER_SEC);
  /* tm_yday: the span in days, int arithmetic as PostgreSQL's */
  int32_t yday =
      w32(((uint32_t)year * 12u + (uint32_t)mon) * 30u + (uint32_t)mday);
  const char *end = p + len;
  while (p < end) {
    bool fm = false;
    size_t rest = (size_t)(end - p);
    if (rest >= 2 && (!memcmp(p, "FM", 2) || !memcmp(p, "fm", 2)))
      fm = true, p += 2;
    else if (rest >= 2 && (!memcmp(p, "TM", 2) || !memcmp(p, "tm", 2)))
      p += 2;
    if (p >= end)
      break;
    rest = (size_t)(end - p);
    int kw = dch_search(p, rest);
    if (kw < 0) {
      if (*p == '"') {
        for (p++; p < end; p++) {
          if (*p == '"') {
            p++;
            break;
          }
          if (*p == '\\' && p + 1 < end)
            p++;
          lm_buf_putc(o, *p);
        }
      } else {
        if (*p == '\\' && p + 1 < end && p[1] == '"')
          p++;
        lm_buf_putc(o, *p++);
      }
      continue;
    }
    p += strlen(dch_names[kw]);
    int th = 0;
    if (end - p >= 2) {
      if (!memcmp(p, "TH", 2))
        th = 2, p += 2;
      else if (!memcmp(p, "th", 2))
        th = 1, p += 2;
      else if (!memcmp(p, "SP", 2))
        p += 2;
    }
    bool lower;
    dch k = dch_fold(kw, &lower);
    size_t from = o->len;
    bool num = true;
    /* the width of a field: one more for a minus sign */
#define IVW(w, v) (fm ? 0 : (v) >= 0 ? (w) : (w) + 1)
    switch (k) {
    case K_A_M:
    case K_P_M:
      num = false;
      lm_buf_puts(o, h % 24 >= 12 ? (lower ? "p.m." : "P.M.")
                                  : (lower ? "a.m." : "A.M."));
      break;
    case K_AM:
    case K_PM:
      num = false;
      lm_buf_puts(o,
                  h % 24 >= 12 ? (lower ? "pm" : "PM") : (lower ? "am" : "AM"));
      break;
    case K_HH:
    case K_HH12:
      lm_buf_printf(o, "%0*lld", IVW(2, h),
                    (long long)(h % 12 == 0 ? 12 : h % 12));
      break;
    case K_HH24:
      lm_buf_printf(o, "%0*lld", IVW(2, h), (long long)h);
      break;
    case K_MI:
      lm_buf_printf(o, "%0*d", IVW(2, mi), mi);
      break;
    case K_SS:
      lm_buf_printf(o, "%0*d", IVW(2, sec), sec);
      break;
    case K_FF1:
    case K_FF2:
    case K_FF3:
    case K_FF4:
    case K_FF5:
    case K_FF6:
    case K_MS:
    case K_US: {
      int d = k == K_MS ? 3 : k == K_US ? 6 : (int)(k - K_FF1) + 1, v = fsec;
      for (int i = d; i < 6; i++)
        v /= 10;
      lm_buf_printf(o, "%0*d", d, v); /* FM does not apply */
      break;
    }
    case K_SSSSS:
    case K_SSSS:
      lm_buf_printf(o, "%lld", (long long)(h * 3600 + mi * 60 + sec));
      break;
    case K_MM:
      lm_buf_printf(o, "%0*d", IVW(2, mon), mon);
      break;
    case K_DDD:
      lm_buf_printf(o, "%0*d", fm ? 0 : 3, yday);
      break;
    case K_IDDD:
      lm_buf_printf(o, "%0*d", fm ? 0 : 3, iv_isoyearday(year, mon, mday));
      break;
    case K_DD:
      lm_buf_printf(o, "%0*d", fm ? 0 : 2, mday);
      break;
    case K_WW:
      lm_buf_printf(o, "%0*d", fm ? 0 : 2, (yday - 1) / 7 + 1);
      break;
    case K_IW:
      lm_buf_printf(o, "%0*d", fm ? 0 : 2, iv_isoweek(year, mon, mday));
      break;
    case K_Q:
      if (mon)
        lm_buf_printf(o, "%d", (mon - 1) / 3 + 1);
      break;
    case K_RM: /* PostgreSQL's array runs from XII down to I */
      num = false;
      if (mon || year) {
        int ix = mon == 0  ? (year >= 0 ? 0 : 11)
                 : mon < 0 ? -(mon + 1)
                           : 12 - mon;
        put_word(o, rm_upper_rev[ix], lower ? 0 : 2, 4, fm ? 0 : 4);
      }
      break;
    case K_FX:
      num = false;
      break;
    case K_CC: {
      int32_t c = year / 100;
      if (c <= 99 && c >= -99)
        lm_buf_printf(o, "%0*d", IVW(2, c), c);
      else
        lm_buf_printf(o, "%d", c);
      break;
    }
    case K_Y_YYY: {
      int32_t th1 = year / 1000;
      lm_buf_printf(o, "%d,%03d", th1, year - th1 * 1000);
      break;
    }
    case K_YYYY:
    case K_YYY:
    case K_YY:
    case K_Y:
    case K_IYYY:
    case K_IYY:
    case K_IY:
    case K_I: {
      /* the width follows the sign of the years, the value may be the ISO
       * year of (years, months, days) */
      bool iso = k == K_IYYY || k == K_IYY || k == K_IY || k == K_I;
      int32_t v = iso ? iv_isoyear(year, mon, mday) : year;
      int w = k == K_YYYY || k == K_IYYY ? 4
              : k == K_YYY || k == K_IYY ? 3
              : k == K_YY || k == K_IY   ? 2
                                         : 1;
      int32_t m = w == 4 ? 0 : w == 3 ? 1000 : w == 2 ? 100 : 10;
      if (m)
        v %= m;
      if (w == 1)
        lm_buf_printf(o, "%1d", v);
      else
        lm_buf_printf(o, "%0*d", IVW(w, year), v);
      break;
    }
    case K_W:
      lm_buf_printf(o, "%d", (mday - 1) / 7 + 1);
      break;
    case K_J:
      lm_buf_printf(o, "%d", iv_date2j(year, mon, mday));
      break;
    default: /* names of days and months, eras, zones, D, ID */
      return -1;
    }
#undef IVW
    if (th && num)
      put_th(o, from, th == 2);
  }
  return 0;
}

/* ---------------------------------------------------- to_char(number) */

/* PostgreSQL 15's to_char(number, template) (formatting.c NUM_processor)
 * in the C locale: decimal point '.', group separator ',', signs '+' /
 * '-', currency ' '. */
enum {
  N_COMMA,
  N_DEC,
  N_0,
  N_9,
  N_B,
  N_D,
  N_E,
  N_FM,
  N_G,
  N_L,
  N_MI,
  N_PL,
  N_PR,
  N_RN,
  N_SG,
  N_SP,
  N_S,
  N_TH,
  N_V,
  N_rn,
  N_th
};
static const struct {
  const char *name;
  int id;
} num_kw[] = {
    {",", N_COMMA}, {".", N_DEC},  {"0", N_0},   {"9", N_9},   {"B", N_B},
    {"D", N_D},     {"EEEE", N_E}, {"FM", N_FM}, {"G", N_G},   {"L", N_L},
    {"MI", N_MI},   {"PL", N_PL},  {"PR", N_PR}, {"RN", N_RN}, {"SG", N_SG},
    {"SP", N_SP},   {"S", N_S},    {"TH", N_TH}, {"V", N_V},   {"b", N_B},
    {"d", N_D},     {"eeee", N_E}, {"fm", N_FM}, {"g", N_G},   {"l", N_L},
    {"mi", N_MI},   {"pl", N_PL},  {"pr", N_PR}, {"rn", N_rn}, {"sg", N_SG},
    {"sp", N_SP},   {"s", N_S},    {"th", N_th}, {"v", N_V}};

enum {
  NF_DECIMAL = 1,
  NF_LDECIMAL = 2,
  NF_ZERO = 4,
  NF_BLANK = 8,
  NF_FILLMODE = 16,
  NF_LSIGN = 32,
  NF_BRACKET = 64,
  NF_MINUS = 128,
  NF_PLUS = 256,
  NF_ROMAN = 512,
  NF_MULTI = 1024,
  NF_EEEE = 2048
};
enum { LSIGN_NONE, LSIGN_PRE, LSIGN_POST };

typedef struct num_node {
  int id;  /* a keyword, or -1 for a literal character */
  char ch; /* the literal */
} num_node;

typedef struct num_desc {
  int pre, post, lsign, flag, pre_lsign_num, multi, zero_start, zero_end;
} num_desc;

/* Parses the template into nodes (n[0..*nn), at most len) and d; 0, or
 * an error message (PostgreSQL's) in msg. */
static int num_parse(const char *p, size_t len, num_node *n, int *nn,
                     num_desc *d, const char **msg) {
  const char *end = p + len;
  memset(d, 0, sizeof *d);
  *nn = 0;
  while (p < end) {
    int id = -1;
    size_t kl = 0;
    for (size_t k = 0; k < sizeof num_kw / sizeof *num_kw; k++) {
      size_t l = strlen(num_kw[k].name);
      if ((size_t)(end - p) >= l && !memcmp(p, num_kw[k].name, l)) {
        id = num_kw[k].id;
        kl = l;
        break;
      }
    }
    if (id < 0) {
      if (*p == '"') {
        for (p++; p < end; p++) {
          if (*p == '"') {
            p++;
            break;
          }
          if (*p == '\\' && p + 1 < end)
            p++;
          n[(*nn)++] = (num_node){-1, *p};
        }
      } else {
        if (*p == '\\' && p + 1 < end && p[1] == '"')
          p++;
        n[(*nn)++] = (num_node){-1, *p++};
      }
      continue;
    }
    p += kl;
    n[(*nn)++] = (num_node){id, 0};
    int f = d->flag;
    switch (id) {
    case N_9:
      if (f & NF_BRACKET)
        return *msg = "\"9\" must be ahead of \"PR\"", -1;
      if (f & NF_MULTI) {
        d->multi++;
        break;
      }
      if (f & NF_DECIMAL)
        d->post++;
      else
        d->pre++;
      break;
    case N_0:
      if (f & NF_BRACKET)
        return *msg = "\"0\" must be ahead of \"PR\"", -1;
      if (!(f & NF_ZERO) && !(f & NF_DECIMAL)) {
        d->flag |= NF_ZERO;
        d->zero_start = d->pre + 1;
      }
      if (!(f & NF_DECIMAL))
        d->pre++;
      else
        d->post++;
      d->zero_end = d->pre + d->post;
      break;
    case N_B:
      if (d->pre == 0 && d->post == 0 && !(f & NF_ZERO))
        d->flag |= NF_BLANK;
      break;
    case N_D:
    case N_DEC:
      if (f & NF_DECIMAL)
        return *msg = "multiple decimal points", -1;
      if (f & NF_MULTI)
        return *msg = "cannot use \"V\" and decimal point together", -1;
      d->flag |= NF_DECIMAL | (id == N_D ? NF_LDECIMAL : 0);
      break;
    case N_FM:
      d->flag |= NF_FILLMODE;
      break;
    case N_S:
      if (f & NF_LSIGN)
        return *msg = "cannot use \"S\" twice", -1;
      if (f & (NF_PLUS | NF_MINUS | NF_BRACKET))
        return *msg =
                   "cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together",
               -1;
      if (!(f & NF_DECIMAL)) {
        d->lsign = LSIGN_PRE;
        d->pre_lsign_num = d->pre;
        d->flag |= NF_LSIGN;
      } else if (d->lsign == LSIGN_NONE) {
        d->lsign = LSIGN_POST;
        d->flag |= NF_LSIGN;
      }
      break;
    case N_MI:
    case N_PL:
    case N_SG:
      if (f & NF_LSIGN)
        return *msg = id == N_MI   ? "cannot use \"S\" and \"MI\" together"
                      : id == N_PL ? "cannot use \"S\" and \"PL\" together"
                                   : "cannot use \"S\" and \"SG\" together",
               -1;
      d->flag |= id == N_MI   ? NF_MINUS
                 : id == N_PL ? NF_PLUS
                              : NF_MINUS | NF_PLUS;
      break;
    case N_PR:
      if (f & (NF_LSIGN | NF_PLUS | NF_MINUS))
        return *msg = "cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" "
                      "together",
               -1;
      d->flag |= NF_BRACKET;
      break;
    case N_RN:
    case N_rn:
      d->flag |= NF_ROMAN;
      break;
    case N_V:
      if (f & NF_DECIMAL)
        return *msg = "cannot use \"V\" and decimal point together", -1;
      d->flag |= NF_MULTI;
      break;
    case N_E:
      if (f & NF_EEEE)
        return *msg = "cannot use \"EEEE\" twice", -1;
      if (f & (NF_BLANK | NF_FILLMODE | NF_LSIGN | NF_BRACKET | NF_MINUS |
               NF_PLUS | NF_ROMAN | NF_MULTI))
        return *msg = "\"EEEE\" is incompatible with other formats", -1;
      d->flag |= NF_EEEE;
      break;
    default:
      break;
    }
  }
  if ((d->flag & NF_EEEE) &&
      (d->flag & ~(NF_EEEE | NF_DECIMAL | NF_ZERO | NF_LDECIMAL)))
    return *msg = "\"EEEE\" is incompatible with other formats", -1;
  return 0;
}

static void roman(int64_t v, char *out) {
  static const char *const th[] = {"", "M", "MM", "MMM"};
  static const char *const hu[] = {"",  "C",  "CC",  "CCC",  "CD",
                                   "D", "DC", "DCC", "DCCC", "CM"};
  static const char *const te[] = {"",  "X",  "XX",  "XXX",  "XL",
                                   "L", "LX", "LXX", "LXXX", "XC"};
  static const char *const on[] = {"",  "I",  "II",  "III",  "IV",
                                   "V", "VI", "VII", "VIII", "IX"};
  if (v < 1 || v > 3999) {
    strcpy(out, "###############");
    return;
  }
  sprintf(out, "%s%s%s%s", th[v / 1000], hu[v / 100 % 10], te[v / 10 % 10],
          on[v % 10]);
}

/* The number's digits as PostgreSQL lays them out: number (digits and
 * '.', no sign), *sign '+' or '-', *pre_spaces. */
typedef struct num_proc {
  num_desc *d;
  const char *number, *number_p, *last_relevant;
  char sign;
  bool sign_wrote, num_in;
  int num_curr, num_count, out_pre_spaces;
  lm_buf *o;
} num_proc;

static bool predec_space(const num_proc *np) {
  return !(np->d->flag & NF_ZERO) && np->number == np->number_p &&
         np->number[0] == '0' && np->d->post != 0;
}

static void num_part(num_proc *np, int id) {
  num_desc *d = np->d;
  lm_buf *o = np->o;
  int fl = d->flag;
  np->num_in = false;
  if (!np->sign_wrote &&
      (np->num_curr >= np->out_pre_spaces ||
       ((fl & NF_ZERO) && d->zero_start == np->num_curr)) &&
      (!predec_space(np) || (np->last_relevant && *np->last_relevant == '.'))) {
    if (fl & NF_LSIGN) {
      if (d->lsign == LSIGN_PRE) {
        lm_buf_putc(o, np->sign == '-' ? '-' : '+');
        np->sign_wrote = true;
      }
    } else if (fl & NF_BRACKET) {
      lm_buf_putc(o, np->sign == '+' ? ' ' : '<');
      np->sign_wrote = true;
    } else if (np->sign == '+') {
      if (!(fl & NF_FILLMODE))
        lm_buf_putc(o, ' ');
      np->sign_wrote = true;
    } else if (np->sign == '-') {
      lm_buf_putc(o, '-');
      np->sign_wrote = true;
    }
  }
  if (np->num_curr < np->out_pre_spaces &&
      (d->zero_start > np->num_curr || !(fl & NF_ZERO))) {
    if (!(fl & NF_FILLMODE))
      lm_buf_putc(o, ' ');
  } else if ((fl & NF_ZERO) && np->num_curr < np->out_pre_spaces &&
             d->zero_start <= np->num_curr) {
    lm_buf_putc(o, '0');
    np->num_in = true;
  } else {
    if (*np->number_p == '.') {
      if (!np->last_relevant || *np->last_relevant != '.')
        lm_buf_putc(o, '.');
      else if ((fl & NF_FILLMODE) && np->last_relevant &&
               *np->last_relevant == '.')
        lm_buf_putc(o, '.');
    } else {
      if (np->last_relevant && np->number_p > np->last_relevant && id != N_0)
        ;
      else if (predec_space(np)) {
        if (!(fl & NF_FILLMODE))
          lm_buf_putc(o, ' ');
        else if (np->last_relevant && *np->last_relevant == '.')
          lm_buf_putc(o, '0');
      } else {
        lm_buf_putc(o, *np->number_p);
        np->num_in = true;
      }
    }
    if (*np->number_p)
      np->number_p++;
  }
  int end = np->num_count + (np->out_pre_spaces ? 1 : 0) +
            ((fl & NF_DECIMAL) ? 1 : 0);
  if (np->last_relevant && np->last_relevant == np->number_p)
    end = np->num_curr;
  if (np->num_curr + 1 == end) {
    if (np->sign_wrote && (fl & NF_BRACKET))
      lm_buf_putc(o, np->sign == '+' ? ' ' : '>');
    else if ((fl & NF_LSIGN) && d->lsign == LSIGN_POST)
      lm_buf_putc(o, np->sign == '-' ? '-' : '+');
  }
  np->num_curr++;
}

/* A number to_char formats: a BIGINT, a DOUBLE or a DECIMAL (unscaled
 * dv at scale ds). */
typedef struct num_arg {
  int kind; /* 0 BIGINT (iv), 1 DOUBLE (dv), 2 DECIMAL (dec, ds) */
  int64_t iv;
  double dv;
  lm_i128 dec;
  int ds;
} num_arg;

/* The digits of |v| into out (at least 40 bytes), NUL-terminated: "0" for
 * 0. Returns their count. */
static int dec_digits(lm_i128 v, char *out) {
  unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
  char tmp[48];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  for (int i = 0; i < n; i++)
    out[i] = tmp[n - 1 - i];
  out[n] = 0;
  return n;
}

/* Rounds the digit string d[0, n) (no point; the last `drop` digits are
 * cut) half away from zero, as PostgreSQL's numeric round: returns the
 * new count (one more when a carry adds a leading 1), d updated. */
static int round_digits(char *d, int n, int drop) {
  if (drop <= 0)
    return n;
  bool up = drop <= n && d[n - drop] >= '5';
  n -= drop;
  if (n < 0)
    n = 0;
  d[n] = 0;
  if (!up)
    return n;
  int i = n - 1;
  while (i >= 0 && d[i] == '9')
    d[i--] = '0';
  if (i >= 0) {
    d[i]++;
    return n;
  }
  memmove(d + 1, d, (size_t)n + 1);
  d[0] = '1';
  return n + 1;
}

/* PostgreSQL's numeric_out_sci(v, rscale) of v at scale ds, with the
 * leading space of a positive number (numeric_to_char's EEEE): the
 * significand rounded to rscale digits after the point (10.00e+04 when
 * rounding carries, as PostgreSQL), "e", the exponent's sign and at least
 * two digits. */
static int dec_sci(lm_buf *o, lm_i128 v, int ds, int rscale) {
  char d[48];
  int n = dec_digits(v, d);
  int expo = v == 0 ? 0 : n - 1 - ds;
  /* the significand's digits: 1 + rscale of d, rounded */
  size_t cap = (size_t)rscale + 50;
  char *sig = malloc(cap);
  if (!sig)
    return -1;
  memcpy(sig, d, (size_t)n + 1);
  int sn = n, want = 1 + rscale;
  if (sn < want) {
    memset(sig + sn, '0', (size_t)(want - sn));
    sn = want;
    sig[sn] = 0;
  }
  sn = round_digits(sig, sn, sn - want);
  int ip = sn - rscale; /* 1, or 2 after a carry */
  lm_buf_putc(o, v < 0 ? '-' : ' ');
  lm_buf_append(o, sig, (size_t)ip);
  if (rscale > 0) {
    lm_buf_putc(o, '.');
    lm_buf_append(o, sig + ip, (size_t)rscale);
  }
  lm_buf_printf(o, "e%+03d", expo);
  free(sig);
  return 0;
}

/* to_char(number, fmt) into o. 0, or with *msg (PostgreSQL's message):
 * -1 a bad template (42601), -2 out of memory, -3 V overflowing a BIGINT
 * or RN of a DECIMAL beyond an integer (22003). */
static int to_char_num(lm_buf *o, const num_arg *x, const char *fmt, size_t len,
                       const char **msg) {
  bool is_int = x->kind == 0;
  int64_t iv = x->iv;
  double dv = x->dv;
  num_node stack[64], *n = stack;
  if (len > 64 && !(n = malloc(sizeof *n * len)))
    return *msg = "out of memory", -2;
  num_desc d;
  int nn, rc = num_parse(fmt, len, n, &nn, &d, msg);
  char *num = NULL;
  if (rc)
    goto done;
  char sign = '+';
  int out_pre_spaces = 0;
  size_t cap = (size_t)d.pre + (size_t)d.post + (size_t)d.multi + 400;
  num = malloc(cap);
  if (!num) {
    *msg = "out of memory";
    rc = -2;
    goto done;
  }
  if (d.flag & NF_ROMAN) {
    int64_t rv = 0;
    if (x->kind == 2) { /* numeric_round(v, 0), then numeric_int4 */
      lm_i128 q;
      if (lm_dec_rescale(x->dec, x->ds, 0, &q) || q > INT32_MAX ||
          q < INT32_MIN) {
        *msg = "integer out of range";
        rc = -3;
        goto done;
      }
      rv = (int64_t)q;
    } else {
      rv = is_int ? iv
                  : (int64_t)(isfinite(dv) && fabs(dv) < 1e9 ? rint(dv) : 0);
    }
    roman(rv, num);
    d.lsign = d.pre_lsign_num = d.post = d.pre = 0;
    d.flag = NF_ROMAN | (d.flag & NF_FILLMODE);
    for (int i = 0; i < nn; i++) {
      if (n[i].id == N_RN || n[i].id == N_rn) {
        char low[32];
        size_t l = strlen(num);
        for (size_t k = 0; k <= l && k < sizeof low; k++)
          low[k] = n[i].id == N_rn && num[k] >= 'A' && num[k] <= 'Z'
                       ? (char)(num[k] + 32)
                       : num[k];
        if (d.flag & NF_FILLMODE)
          lm_buf_puts(o, low);
        else
          lm_buf_printf(o, "%15s", low);
      } else if (n[i].id < 0) {
        lm_buf_putc(o, n[i].ch);
      }
    }
    goto done;
  }
  if ((d.flag & NF_EEEE) && x->kind == 2) {
    if (dec_sci(o, x->dec, x->ds, d.post)) {
      *msg = "out of memory";
      rc = -2;
    }
    goto done;
  }
  if (d.flag & NF_EEEE) {
    double v = is_int ? (double)iv : dv;
    if (!isfinite(v)) {
      size_t w = (size_t)d.pre + (size_t)d.post + 6;
      for (size_t k = 0; k < w; k++)
        num[k] = '#';
      num[0] = ' ';
      num[d.pre + 1] = '.';
      num[w] = 0;
    } else {
      snprintf(num, cap, "%+.*e", d.post, v);
      if (num[0] == '+')
        num[0] = ' ';
    }
    lm_buf_puts(o, num);
    goto done;
  }
  const char *digits;
  int pre_len;
  if (x->kind == 2) {
    /* numeric_to_char: v * 10^multi rounded to post digits, written as
     * numeric_out writes it (a leading 0 before the point) */
    char dd[48];
    int n = dec_digits(x->dec, dd), sc = x->ds;
    memcpy(num, dd, (size_t)n + 1);
    if (d.flag & NF_MULTI) {
      sc -= d.multi;
      d.pre += d.multi;
    }
    if (sc < 0) { /* whole: zeros after the digits */
      if (!(n == 1 && num[0] == '0')) {
        memset(num + n, '0', (size_t)-sc);
        n += -sc;
      }
      sc = 0;
      num[n] = 0;
    }
    if (sc > d.post) {
      n = round_digits(num, n, sc - d.post);
      sc = d.post;
    }
    if (n <= sc) { /* a leading 0 and zeros after the point */
      memmove(num + 1 + (sc - n), num, (size_t)n + 1);
      memset(num, '0', (size_t)(1 + sc - n));
      n = sc + 1;
    }
    bool zero = true;
    for (int q = 0; q < n; q++)
      if (num[q] != '0')
        zero = false;
    sign = x->dec < 0 && !zero ? '-' : '+';
    pre_len = n - sc;
    /* the point, the fraction's digits, then zeros to post */
    memmove(num + pre_len + 1, num + pre_len, (size_t)sc + 1);
    if (d.post) {
      num[pre_len] = '.';
      memset(num + pre_len + 1 + sc, '0', (size_t)(d.post - sc));
      num[pre_len + 1 + d.post] = 0;
    } else {
      num[pre_len] = 0;
    }
  } else if (is_int) {
    int64_t v = iv;
    if (d.flag & NF_MULTI) {
      for (int k = 0; k < d.multi; k++)
        if (__builtin_mul_overflow(v, 10, &v)) {
          *msg = "bigint out of range";
          rc = -3;
          goto done;
        }
      d.pre += d.multi;
    }
    snprintf(num, cap, "%lld", (long long)v);
    if (num[0] == '-') {
      sign = '-';
      memmove(num, num + 1, strlen(num));
    }
    pre_len = (int)strlen(num);
    if (d.post) {
      num[pre_len] = '.';
      memset(num + pre_len + 1, '0', (size_t)d.post);
      num[pre_len + 1 + d.post] = 0;
    }
  } else {
    double v = dv;
    if (d.flag & NF_MULTI) {
      v = dv * pow(10, d.multi);
      d.pre += d.multi;
    }
    int l0 = isnan(v) ? 3 : isinf(v) ? 8 : snprintf(num, cap, "%.0f", fabs(v));
    if (l0 >= (int)cap - 1) { /* a huge value: '#' below */
      l0 = (int)cap;
    }
    if (l0 >= 15) /* DBL_DIG */
      d.post = 0;
    else if (l0 + d.post > 15)
      d.post = 15 - l0;
    if (isnan(v) || isinf(v)) /* PostgreSQL's snprintf spelling */
      snprintf(num, cap, "%s",
               isnan(v) ? "NaN"
               : v < 0  ? "-Infinity"
                        : "Infinity");
    else if (l0 >= (int)cap) {
      memset(num, '9', 399);
      num[399] = 0;
    } else {
      snprintf(num, cap, "%.*f", d.post, v);
    }
    if (num[0] == '-') {
      sign = '-';
      memmove(num, num + 1, strlen(num));
    }
    const char *dot = strchr(num, '.');
    pre_len = dot ? (int)(dot - num) : (int)strlen(num);
  }
  if (pre_len < d.pre) {
    out_pre_spaces = d.pre - pre_len;
  } else if (pre_len > d.pre) {
    memset(num, '#', (size_t)(d.pre + d.post + 1));
    num[d.pre] = '.';
    num[d.pre + d.post + 1] = 0;
  }
  digits = num;
  /* NUM_processor */
  num_proc np = {&d, digits, digits, NULL, sign, false, false, 0, 0, 0, o};
  if (d.zero_start)
    d.zero_start--;
  if ((d.flag & (NF_PLUS | NF_MINUS))) {
    np.sign_wrote = !((d.flag & NF_PLUS) && !(d.flag & NF_MINUS));
  } else {
    if (np.sign != '-' && (d.flag & NF_FILLMODE))
      d.flag &= ~NF_BRACKET;
    np.sign_wrote =
        np.sign == '+' && (d.flag & NF_FILLMODE) && !(d.flag & NF_LSIGN);
    if (d.lsign == LSIGN_PRE && d.pre == d.pre_lsign_num)
      d.lsign = LSIGN_POST;
  }
  np.num_count = d.post + d.pre - 1;
  np.out_pre_spaces = out_pre_spaces;
  if ((d.flag & NF_FILLMODE) && (d.flag & NF_DECIMAL)) {
    const char *dot = strchr(digits, '.');
    if (dot) {
      const char *r = dot;
      for (const char *q = dot + 1; *q; q++)
        if (*q != '0')
          r = q;
      np.last_relevant = r;
    }
    if (np.last_relevant && d.zero_end > np.out_pre_spaces) {
      int lz = (int)strlen(digits) - 1;
      if (d.zero_end - np.out_pre_spaces < lz)
        lz = d.zero_end - np.out_pre_spaces;
      if (np.last_relevant < digits + lz)
        np.last_relevant = digits + lz;
    }
  }
  if (!np.sign_wrote && np.out_pre_spaces == 0)
    np.num_count++;
  for (int i = 0; i < nn; i++) {
    int id = n[i].id;
    bool fm = d.flag & NF_FILLMODE;
    switch (id) {
    case -1:
      lm_buf_putc(o, n[i].ch);
      break;
    case N_9:
    case N_0:
    case N_DEC:
    case N_D:
      num_part(&np, id);
      break;
    case N_COMMA:
    case N_G:
      if (!np.num_in) {
        if (!fm)
          lm_buf_putc(o, ' ');
      } else {
        lm_buf_putc(o, ',');
      }
      break;
    case N_L:
      lm_buf_putc(o, ' ');
      break;
    case N_TH:
    case N_th:
      if (*digits == '#' || np.sign == '-' || (d.flag & NF_DECIMAL))
        break;
      lm_buf_puts(o, th_suffix(digits, strlen(digits), id == N_TH));
      break;
    case N_MI:
      if (np.sign == '-')
        lm_buf_putc(o, '-');
      else if (!fm)
        lm_buf_putc(o, ' ');
      break;
    case N_PL:
      if (np.sign == '+')
        lm_buf_putc(o, '+');
      else if (!fm)
        lm_buf_putc(o, ' ');
      break;
    case N_SG:
      lm_buf_putc(o, np.sign);
      break;
    default:
      break;
    }
  }
done:
  /* PostgreSQL writes the end of the digits, a NUL, when the template has
   * more digits than the number (float8: 15 significant) and its text
   * ends there */
  if (o->data && memchr(o->data, 0, o->len))
    o->len = strlen(o->data);
  free(num);
  if (n != stack)
    free(n);
  return rc;
}

/* --------------------------------------------- to_timestamp / to_date */

/* An error of the to_timestamp / to_date reader: PostgreSQL 15's SQLSTATE,
 * message, DETAIL and HINT (empty when none). */
typedef struct ts_err {
  const char *state;
  char msg[160], detail[128], hint[128];
} ts_err;

/* One node of a parsed template (formatting.c parse_format): a keyword
 * (k >= 0, its FM / TH suffixes), else one character: a separator, a space
 * or other text. */
typedef struct ts_node {
  int k; /* dch, -1 for a character */
  bool fm, th;
  char ch; /* 'S' separator, ' ' space, 'C' text */
} ts_node;

/* The fields read (formatting.c TmFromChar); 0 is "not given". */
typedef struct ts_fields {
  int mode; /* 0 none, 1 Gregorian, 2 ISO week */
  int hh, pm, mi, ss, ssss, d, dd, ddd, mm, ms, year, bc, ww, w, cc, j, us,
      yysz, clock12, tzsign, tzh, tzm, ff;
} ts_fields;

static int ts_fail(ts_err *x, const char *state, const char *detail,
                   const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int ts_fail(ts_err *x, const char *state, const char *detail,
                   const char *hint, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(x->msg, sizeof x->msg, fmt, ap);
  va_end(ap);
  x->state = state;
  snprintf(x->detail, sizeof x->detail, "%s", detail ? detail : "");
  snprintf(x->hint, sizeof x->hint, "%s", hint ? hint : "");
  return -1;
}

/* The date convention of keyword k: 1 Gregorian, 2 ISO week, 0 neither. */
static int ts_mode(dch k) {
  switch (k) {
  case K_DDD:
  case K_DD:
  case K_D:
  case K_MM:
  case K_MONTH_U:
  case K_MON_U:
  case K_MONTH_C:
  case K_MON_C:
  case K_RM:
  case K_WW:
  case K_W:
  case K_Y_YYY:
  case K_YYYY:
  case K_YYY:
  case K_YY:
  case K_Y:
    return 1;
  case K_IDDD:
  case K_ID:
  case K_IW:
  case K_IYYY:
  case K_IYY:
  case K_IY:
  case K_I:
    return 2;
  default:
    return 0;
  }
}

/* Whether keyword k reads digits (DCH_keywords' is_digit). */
static bool ts_is_digit(dch k) {
  switch (k) {
  case K_A_D:
  case K_A_M:
  case K_AD:
  case K_AM:
  case K_B_C:
  case K_BC:
  case K_DAY_U:
  case K_DY_U:
  case K_DAY_C:
  case K_DY_C:
  case K_FX:
  case K_MONTH_U:
  case K_MON_U:
  case K_MONTH_C:
  case K_MON_C:
  case K_OF:
  case K_P_M:
  case K_PM:
  case K_RM:
  case K_TZH:
  case K_TZ:
    return false;
  default:
    return true;
  }
}

static bool ts_sep(char c) {
  return c > 0x20 && c < 0x7F && !(c >= 'A' && c <= 'Z') &&
         !(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9');
}

static bool ts_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}

/* from_char_set_int: a field given twice must agree. */
static int ts_set(int *dst, int v, int k, ts_err *x) {
  if (*dst != 0 && *dst != v)
    return ts_fail(x, "22007",
                   "This value contradicts a previous setting for the same "
                   "field type.",
                   NULL,
                   "conflicting values for \"%s\" field in formatting string",
                   dch_names[k]);
  *dst = v;
  return 0;
}

/* from_char_parse_int_len: an integer of `len` characters (or as many as
 * strtol reads in FM mode / before a non-digit node) at *s; its length. */
static int ts_int(int *dst, const char **s, int len, const ts_node *n,
                  ts_err *x) {
  while (ts_space(**s))
    (*s)++;
  const char *init = *s;
  char copy[16];
  int used = (int)strlen(*s);
  if (used > len)
    used = len;
  memcpy(copy, *s, (size_t)used);
  copy[used] = 0;
  /* the next node: a non-digit keyword, a non-digit character or the end
   * (is_next_separator) */
  bool sep = n->th;
  if (!sep) {
    const ts_node *m = n + 1;
    sep = m->k == -2 || (m->k >= 0 ? !ts_is_digit(dch_fold(m->k, &(bool){0}))
                                   : !(m->ch == 'C' && m[0].th));
  }
  long v;
  errno = 0;
  if (n->fm || sep) {
    char *end;
    v = strtol(init, &end, 10);
    *s = end;
  } else {
    if (used < len) {
      char d[128];
      snprintf(d, sizeof d, "Field requires %d characters, but only %d remain.",
               len, used);
      return ts_fail(x, "22007", d,
                     "If your source string is not fixed-width, try using "
                     "the \"FM\" modifier.",
                     "source string too short for \"%s\" formatting field",
                     dch_names[n->k]);
    }
    char *last;
    v = strtol(copy, &last, 10);
    used = (int)(last - copy);
    if (used > 0 && used < len) {
      char d[128];
      snprintf(d, sizeof d,
               "Field requires %d characters, but only %d could be parsed.",
               len, used);
      return ts_fail(x, "22007", d,
                     "If your source string is not fixed-width, try using "
                     "the \"FM\" modifier.",
                     "invalid value \"%s\" for \"%s\"", copy, dch_names[n->k]);
    }
    *s += used;
  }
  if (*s == init)
    return ts_fail(x, "22007", "Value must be an integer.", NULL,
                   "invalid value \"%s\" for \"%s\"", copy, dch_names[n->k]);
  if (errno == ERANGE || v < INT32_MIN || v > INT32_MAX)
    return ts_fail(x, "22008",
                   "Value must be in the range -2147483648 to "
                   "2147483647.",
                   NULL, "value for \"%s\" in source string is out of range",
                   dch_names[n->k]);
  if (dst && ts_set(dst, (int)v, n->k, x))
    return -1;
  return (int)(*s - init);
}

/* from_char_seq_search: the first of words (NULL-ended) that *s starts
 * with, any case; its index, *s past it. */
static int ts_seq(int *out, const char **s, const char *const *words,
                  const ts_node *n, ts_err *x) {
  for (int i = 0; words[i]; i++) {
    size_t l = strlen(words[i]);
    if (!strncasecmp(*s, words[i], l)) {
      *s += l;
      *out = i;
      return 0;
    }
  }
  char copy[16];
  size_t len = strlen(dch_names[n->k]);
  snprintf(copy, sizeof copy, "%.*s", (int)len, *s);
  return ts_fail(x, "22007",
                 "The given value did not match any of the allowed values "
                 "for this field.",
                 NULL, "invalid value \"%s\" for \"%s\"", copy,
                 dch_names[n->k]);
}

/* PostgreSQL's Julian day back to y-m-d (j2date), in int64; the other way
 * is pg_date2j. */

static void ts_j2date(int64_t jd, int *year, int *month, int *day) {
  uint64_t julian = (uint64_t)jd + 32044;
  uint64_t quad = julian / 146097;
  uint64_t extra = (julian - quad * 146097) * 4 + 3;
  julian += 60 + quad * 3 + extra / 146097;
  quad = julian / 1461;
  julian -= quad * 1461;
  int64_t y = (int64_t)(julian * 4 / 1461);
  julian = ((y != 0) ? ((julian + 305) % 365) : ((julian + 306) % 366)) + 123;
  y += (int64_t)quad * 4;
  *year = (int)(y - 4800);
  quad = julian * 2141 / 65536;
  *day = (int)(julian - 7834 * quad / 256);
  *month = (int)((quad + 10) % 12 + 1);
}

static int64_t ts_isoweek2j(int y, int week) {
  return (int64_t)(week - 1) * 7 + pg_iso_start(y);
}

static bool ts_leap(int y) {
  return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

/* Reads s with template p as PostgreSQL 15's to_timestamp / to_date
 * (formatting.c DCH_from_char and do_to_timestamp, non-FX and FX modes):
 * *out the wall-clock µs, or with TZH / TZM (*has_tz) the UTC instant. 0,
 * or -1 with *x set. */
static int to_ts_parse(const char *s0, size_t sl, const char *p0, size_t pl,
                       int64_t *out, bool *has_tz, ts_err *x) {
  *has_tz = false;
  char *s = malloc(sl + 1), *p = malloc(pl + 1);
  ts_node *nodes = malloc((pl + 2) * sizeof *nodes);
  if (!s || !p || !nodes) {
    free(s);
    free(p);
    free(nodes);
    return ts_fail(x, "53200", NULL, NULL, "out of memory");
  }
  memcpy(s, s0, sl);
  s[sl] = 0;
  memcpy(p, p0, pl);
  p[pl] = 0;
  /* parse_format */
  int nn = 0;
  for (const char *t = p; *t;) {
    bool fm = false;
    if (!strncmp(t, "FM", 2) || !strncmp(t, "fm", 2))
      fm = true, t += 2;
    else if (!strncmp(t, "TM", 2) || !strncmp(t, "tm", 2))
      t += 2;
    int k = *t ? dch_search(t, strlen(t)) : -1;
    if (k >= 0) {
      ts_node *n = &nodes[nn++];
      n->k = k, n->fm = fm, n->th = false, n->ch = 0;
      t += strlen(dch_names[k]);
      if (!strncmp(t, "TH", 2) || !strncmp(t, "th", 2))
        n->th = true, t += 2;
      else if (!strncmp(t, "SP", 2))
        t += 2;
    } else if (*t == '"') {
      for (t++; *t;) {
        if (*t == '"') {
          t++;
          break;
        }
        if (*t == '\\' && t[1])
          t++;
        ts_node *n = &nodes[nn++];
        n->k = -1, n->fm = n->th = false, n->ch = 'C';
        t++;
        while (((unsigned char)*t & 0xC0) == 0x80)
          t++;
      }
    } else if (*t) {
      if (*t == '\\' && t[1] == '"')
        t++;
      ts_node *n = &nodes[nn++];
      n->k = -1, n->fm = n->th = false;
      /* a digit character: th marks "a digit follows" (is_next_separator) */
      n->ch = ts_sep(*t) ? 'S' : ts_space(*t) ? ' ' : 'C';
      if (*t >= '0' && *t <= '9')
        n->th = true;
      t++;
      while (((unsigned char)*t & 0xC0) == 0x80)
        t++;
    }
  }
  nodes[nn].k = -2; /* the end */
  nodes[nn].ch = 0;
  nodes[nn].th = nodes[nn].fm = false;

  ts_fields f = {0};
  bool fx = false;
  int extra = 0, rc = 0;
  const char *c = s;
  static const char *const ampm[] = {"am", "pm", "AM", "PM", NULL};
  static const char *const ampm_l[] = {"a.m.", "p.m.", "A.M.", "P.M.", NULL};
  static const char *const adbc[] = {"ad", "bc", "AD", "BC", NULL};
  static const char *const adbc_l[] = {"a.d.", "b.c.", "A.D.", "B.C.", NULL};
  static const char *const rm_up[] = {"XII", "XI", "X", "IX", "VIII",
                                      "VII", "VI", "V", "IV", "III",
                                      "II",  "I",  NULL};
  static const char *const mon_s[] = {"Jan", "Feb", "Mar", "Apr", "May",
                                      "Jun", "Jul", "Aug", "Sep", "Oct",
                                      "Nov", "Dec", NULL};
  static const char *const day_s[] = {"Sun", "Mon", "Tue", "Wed",
                                      "Thu", "Fri", "Sat", NULL};
  const char *mon_f[13], *day_f[8];
  for (int i = 0; i < 12; i++)
    mon_f[i] = month_names[i];
  mon_f[12] = NULL;
  for (int i = 0; i < 7; i++)
    day_f[i] = day_names[i];
  day_f[7] = NULL;
  for (ts_node *n = nodes; n->k != -2 && *c && !rc; n++) {
    if (!fx && (n->k < 0 || n == nodes))
      while (*c && ts_space(*c))
        c++, extra++;
    if (n->k < 0 && n->ch != 'C') {
      if (!fx) {
        extra--;
        if (ts_space(*c) || ts_sep(*c)) {
          c++;
          while (((unsigned char)*c & 0xC0) == 0x80)
            c++;
          extra++;
        }
      } else {
        c++;
        while (((unsigned char)*c & 0xC0) == 0x80)
          c++;
      }
      continue;
    }
    if (n->k < 0) {
      if (!fx && extra > 0) {
        extra--;
      } else {
        c++;
        while (((unsigned char)*c & 0xC0) == 0x80)
          c++;
      }
      continue;
    }
    bool lower;
    dch k = dch_fold(n->k, &lower);
    int mode = ts_mode(k);
    if (mode) {
      if (!f.mode)
        f.mode = mode;
      else if (f.mode != mode) {
        rc = ts_fail(x, "22007", NULL,
                     "Do not mix Gregorian and ISO week date conventions in a "
                     "formatting template.",
                     "invalid combination of date conventions");
        break;
      }
    }
    int v = 0, len;
    switch (k) {
    case K_FX:
      fx = true;
      break;
    case K_A_M:
    case K_P_M:
      rc = ts_seq(&v, &c, ampm_l, n, x);
      if (!rc)
        rc = ts_set(&f.pm, v % 2, n->k, x);
      f.clock12 = 1;
      break;
    case K_AM:
    case K_PM:
      rc = ts_seq(&v, &c, ampm, n, x);
      if (!rc)
        rc = ts_set(&f.pm, v % 2, n->k, x);
      f.clock12 = 1;
      break;
    case K_HH:
    case K_HH12:
      rc = ts_int(&f.hh, &c, 2, n, x) < 0;
      f.clock12 = 1;
      break;
    case K_HH24:
      rc = ts_int(&f.hh, &c, 2, n, x) < 0;
      break;
    case K_MI:
      rc = ts_int(&f.mi, &c, 2, n, x) < 0;
      break;
    case K_SS:
      rc = ts_int(&f.ss, &c, 2, n, x) < 0;
      break;
    case K_MS:
      len = ts_int(&f.ms, &c, 3, n, x);
      rc = len < 0;
      f.ms *= len == 1 ? 100 : len == 2 ? 10 : 1;
      break;
    case K_FF1:
    case K_FF2:
    case K_FF3:
    case K_FF4:
    case K_FF5:
    case K_FF6:
    case K_US:
      if (k != K_US)
        f.ff = (int)(k - K_FF1) + 1;
      len = ts_int(&f.us, &c, k == K_US ? 6 : f.ff, n, x);
      rc = len < 0;
      f.us *= len == 1   ? 100000
              : len == 2 ? 10000
              : len == 3 ? 1000
              : len == 4 ? 100
              : len == 5 ? 10
                         : 1;
      break;
    case K_SSSSS:
    case K_SSSS:
      rc = ts_int(&f.ssss, &c, (int)strlen(dch_names[k]), n, x) < 0;
      break;
    case K_TZ:
    case K_OF:
      rc = ts_fail(x, "0A000", NULL, NULL,
                   "formatting field \"%s\" is only supported in to_char",
                   dch_names[n->k]);
      break;
    case K_TZH:
      if (*c == '+' || *c == '-' || *c == ' ') {
        f.tzsign = *c == '-' ? -1 : 1;
        c++;
      } else {
        f.tzsign = extra > 0 && c[-1] == '-' ? -1 : 1;
      }
      rc = ts_int(&f.tzh, &c, 2, n, x) < 0;
      break;
    case K_TZM:
      if (!f.tzsign)
        f.tzsign = 1;
      rc = ts_int(&f.tzm, &c, 2, n, x) < 0;
      break;
    case K_A_D:
    case K_B_C:
    case K_AD:
    case K_BC:
      rc = ts_seq(&v, &c, k == K_A_D || k == K_B_C ? adbc_l : adbc, n, x);
      if (!rc)
        rc = ts_set(&f.bc, v % 2, n->k, x);
      break;
    case K_MONTH_U:
    case K_MONTH_C:
    case K_MON_U:
    case K_MON_C:
      rc = ts_seq(&v, &c, k == K_MONTH_U || k == K_MONTH_C ? mon_f : mon_s, n,
                  x);
      if (!rc)
        rc = ts_set(&f.mm, v + 1, n->k, x);
      break;
    case K_MM:
      rc = ts_int(&f.mm, &c, 2, n, x) < 0;
      break;
    case K_DAY_U:
    case K_DAY_C:
    case K_DY_U:
    case K_DY_C:
      rc = ts_seq(&v, &c, k == K_DAY_U || k == K_DAY_C ? day_f : day_s, n, x);
      if (!rc && !(rc = ts_set(&f.d, v, n->k, x)))
        f.d++; /* as PostgreSQL: a day name given twice conflicts */
      break;
    case K_DDD:
    case K_IDDD:
      rc = ts_int(&f.ddd, &c, 3, n, x) < 0;
      break;
    case K_DD:
      rc = ts_int(&f.dd, &c, 2, n, x) < 0;
      break;
    case K_D:
      rc = ts_int(&f.d, &c, 1, n, x) < 0;
      break;
    case K_ID:
      rc = ts_int(&f.d, &c, 1, n, x) < 0;
      if (!rc && ++f.d > 7) /* Sunday = 1, as D */
        f.d = 1;
      break;
    case K_WW:
    case K_IW:
      rc = ts_int(&f.ww, &c, 2, n, x) < 0;
      break;
    case K_Q:
      rc = ts_int(NULL, &c, 1, n, x) < 0;
      break;
    case K_CC:
      rc = ts_int(&f.cc, &c, 2, n, x) < 0;
      break;
    case K_Y_YYY: {
      int mil, yrs, nch = 0;
      if (sscanf(c, "%d,%03d%n", &mil, &yrs, &nch) < 2) {
        rc = ts_fail(x, "22007", NULL, NULL,
                     "invalid input string for \"Y,YYY\"");
        break;
      }
      rc = ts_set(&f.year, yrs + mil * 1000, n->k, x);
      f.yysz = 4;
      c += nch;
      break;
    }
    case K_YYYY:
    case K_IYYY:
      rc = ts_int(&f.year, &c, 4, n, x) < 0;
      f.yysz = 4;
      break;
    case K_YYY:
    case K_IYY:
    case K_YY:
    case K_IY:
    case K_Y:
    case K_I: {
      int w = k == K_YYY || k == K_IYY ? 3 : k == K_YY || k == K_IY ? 2 : 1;
      len = ts_int(&f.year, &c, w, n, x);
      rc = len < 0;
      if (!rc && len < 4) /* adjust_partial_year_to_2020 */
        f.year = f.year < 70     ? f.year + 2000
                 : f.year < 100  ? f.year + 1900
                 : f.year < 520  ? f.year + 2000
                 : f.year < 1000 ? f.year + 1000
                                 : f.year;
      f.yysz = w;
      break;
    }
    case K_RM:
      rc = ts_seq(&v, &c, rm_up, n, x);
      if (!rc)
        rc = ts_set(&f.mm, 12 - v, n->k, x);
      break;
    case K_W:
      rc = ts_int(&f.w, &c, 1, n, x) < 0;
      break;
    case K_J:
      rc = ts_int(&f.j, &c, 1, n, x) < 0;
      break;
    default:
      break;
    }
    if (rc)
      break;
    if (n->th && ts_is_digit(k) && k != K_TZM) { /* SKIP_THth */
      if (*c)
        c++;
      if (*c)
        c++;
    }
    if (!fx) {
      extra = 0;
      while (*c && ts_space(*c))
        c++, extra++;
    }
  }
  free(p);
  free(nodes);
  if (rc) {
    free(s);
    return -1;
  }
  /* do_to_timestamp */
  int year = 0, mon = 1, mday = 1, hour = 0, min = 0, sec = 0;
  int64_t fsec = 0;
  bool ymask = false, mmask = false, dmask = false;
  if (f.ssss) {
    hour = f.ssss / 3600;
    min = f.ssss % 3600 / 60;
    sec = f.ssss % 60;
  }
  if (f.ss)
    sec = f.ss;
  if (f.mi)
    min = f.mi;
  if (f.hh)
    hour = f.hh;
  if (f.clock12) {
    if (hour < 1 || hour > 12) {
      ts_fail(x, "22008", NULL,
              "Use the 24-hour clock, or give an hour between 1 and 12.",
              "hour \"%d\" is invalid for the 12-hour clock", hour);
      free(s);
      return -1;
    }
    if (f.pm && hour < 12)
      hour += 12;
    else if (!f.pm && hour == 12)
      hour = 0;
  }
  if (f.year) {
    if (f.cc && f.yysz <= 2) {
      if (f.bc)
        f.cc = -f.cc;
      year = f.year % 100;
      if (year)
        year =
            f.cc >= 0 ? year + (f.cc - 1) * 100 : (f.cc + 1) * 100 - year + 1;
      else
        year = f.cc * 100 + (f.cc >= 0 ? 0 : 1);
    } else {
      year = f.year;
      if (f.bc)
        year = -year;
      if (year < 0)
        year++;
    }
    ymask = true;
  } else if (f.cc) {
    if (f.bc)
      f.cc = -f.cc;
    year = f.cc >= 0 ? (f.cc - 1) * 100 + 1 : f.cc * 100 + 1;
    ymask = true;
  }
  if (f.j) {
    ts_j2date(f.j, &year, &mon, &mday);
    ymask = mmask = dmask = true;
  }
  if (f.ww) {
    if (f.mode == 2) {
      int64_t jd = ts_isoweek2j(year, f.ww);
      if (f.d)
        jd += f.d > 1 ? f.d - 2 : 6;
      ts_j2date(jd, &year, &mon, &mday);
      ymask = mmask = dmask = true;
    } else {
      f.ddd = (f.ww - 1) * 7 + 1;
    }
  }
  if (f.w)
    f.dd = (f.w - 1) * 7 + 1;
  if (f.dd)
    mday = f.dd, dmask = true;
  if (f.mm)
    mon = f.mm, mmask = true;
  if (f.ddd && (mon <= 1 || mday <= 1)) {
    if (!year && !f.bc) {
      ts_fail(x, "22007", NULL, NULL,
              "cannot calculate day of year without year information");
      free(s);
      return -1;
    }
    if (f.mode == 2) {
      int64_t j0 = ts_isoweek2j(year, 1) - 1;
      ts_j2date(j0 + f.ddd, &year, &mon, &mday);
      ymask = mmask = dmask = true;
    } else {
      static const int ysum[2][13] = {
          {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365},
          {0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366}};
      const int *y = ysum[ts_leap(year)];
      int i = 1;
      for (; i <= 12; i++)
        if (f.ddd <= y[i])
          break;
      if (mon <= 1)
        mon = i;
      if (mday <= 1)
        mday = f.ddd - y[i - 1];
      mmask = dmask = true;
    }
  }
  fsec = (int64_t)f.ms * 1000 + f.us;
  bool bad = false;
  if (mmask && (mon < 1 || mon > 12))
    bad = true;
  if (dmask && (mday < 1 || mday > 31))
    bad = true;
  static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (!bad && ymask && mmask && dmask &&
      mday > mdays[mon - 1] + (mon == 2 && ts_leap(year)))
    bad = true;
  if (bad || hour < 0 || hour >= 24 || min < 0 || min >= 60 || sec < 0 ||
      sec >= 60 || fsec < 0 || fsec >= LM_US_PER_SEC) {
    ts_fail(x, "22008", NULL, NULL,
            "date/time field value out of range: \"%.60s\"", s);
    free(s);
    return -1;
  }
  if (f.tzsign && (f.tzh < 0 || f.tzh > 15 || f.tzm < 0 || f.tzm >= 60)) {
    ts_fail(x, "22009", NULL, NULL,
            "time zone displacement out of range: \"%.60s\"", s);
    free(s);
    return -1;
  }
  free(s);
  /* the Julian day of a year before -4713 or after 5874897 is refused as
   * PostgreSQL's IS_VALID_JULIAN */
  if (year < -4713 || year > 5874898 || mon < 1 || mon > 12) {
    ts_fail(x, "22008", NULL, NULL, "date out of range");
    return -1;
  }
  int64_t days = pg_date2j(year, mon, mday) - 2440588; /* 1970-01-01 */
  int64_t v = ((days * 24 + hour) * 60 + min) * 60 + sec;
  *out = v * LM_US_PER_SEC + fsec;
  if (f.ff && f.ff < 6) { /* AdjustTimestampForTypmod: round to ff digits */
    int64_t u = 1;
    for (int i = f.ff; i < 6; i++)
      u *= 10;
    *out = *out >= 0 ? (*out + u / 2) / u * u : -((-*out + u / 2) / u * u);
  }
  if (f.tzsign) { /* TZH:TZM, the input's offset east of UTC */
    *out -= (int64_t)f.tzsign * (f.tzh * 3600 + f.tzm * 60) * LM_US_PER_SEC;
    *has_tz = true;
  }
  return 0;
}

#define MAX_TS_US 9223371331200000000LL /* 294276-12-31, PostgreSQL's end */

/* Sets err from a to_timestamp / to_date reader error (at e). */
static int ts_report(const lm_bexpr *e, const ts_err *x, lm_error *err) {
  if (!strcmp(x->state, "53200"))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int rc = lm_fn_error(err, e, x->state, "%s", x->msg);
  if (x->detail[0])
    lm_err_detail(err, "%s", x->detail);
  if (x->hint[0])
    lm_err_hint(err, "%s", x->hint);
  return rc;
}

/* The zone of make_timestamptz's per-row zone text zs[0, zl), as
 * PostgreSQL 15's parse_sane_timezone: "+05:30" / "-3" are ISO offsets
 * (east of UTC), a leading digit is 22023 `invalid input syntax for type
 * numeric time zone`, else an abbreviation or a zone name (22023 `time
 * zone "x" not recognized`). Zones are cached by lm_tz_lookup_at. */
static int row_zone(const lm_bexpr *e, const char *zs, int32_t zl,
                    const lm_tz **z, lm_error *err) {
  char name[256];
  if (zl <= 0 || zl >= (int32_t)sizeof name - 1 || memchr(zs, 0, (size_t)zl))
    return lm_fn_error(err, e, "22023", "time zone \"%.*s\" not recognized",
                       zl > 60 ? 60 : (int)zl, zs);
  memcpy(name, zs, (size_t)zl);
  name[zl] = 0;
  if (name[0] >= '0' && name[0] <= '9') {
    int rc = lm_fn_error(err, e, "22023",
                         "invalid input syntax for type numeric time zone: "
                         "\"%s\"",
                         name);
    lm_err_hint(err, "Numeric time zones must have \"-\" or \"+\" as first "
                     "character.");
    return rc;
  }
  if (name[0] == '+' || name[0] == '-') { /* DecodeTimezone: ISO, east */
    char *q = name + 1;
    long hr = strtol(q, &q, 10), mn = 0, sc = 0;
    bool ok = q > name + 1;
    if (ok && *q == ':') {
      mn = strtol(q + 1, &q, 10);
      if (*q == ':')
        sc = strtol(q + 1, &q, 10);
    } else if (ok && !*q && zl > 3) { /* +hhmm */
      mn = hr % 100;
      hr /= 100;
    }
    if (ok && !*q) {
      if (hr < 0 || hr > 15 || mn < 0 || mn >= 60 || sc < 0 || sc >= 60)
        return lm_fn_error(err, e, "22023",
                           "numeric time zone \"%s\" out of range", name);
      /* a fixed POSIX zone: POSIX counts west, so the sign flips */
      snprintf(name, sizeof name, "LMZ%c%ld:%02ld:%02ld",
               zs[0] == '+' ? '-' : '+', hr, mn, sc);
    }
  }
  lm_error e2;
  if (lm_tz_lookup_at(name, z, &e2) != 0)
    return lm_fn_error(err, e, "22023", "time zone \"%.*s\" not recognized",
                       zl > 60 ? 60 : (int)zl, zs);
  return 0;
}

static int datefn_row(const lm_bexpr *e, lm_array *const *a, int64_t i,
                      lm_builder *b, lm_buf *o, void *ctx, lm_error *err) {
  (void)ctx;
  int rc = 0;
  if (lm_mdn_fn_handles(e->fn)) /* interval functions: expr_mdn.c */
    return lm_mdn_fn_row(e, a, i, b, err);
  switch (e->fn) {
  case LM_FN_TO_CHAR: {
    int32_t fl;
    const char *f = lm_array_str(a[1], i, &fl);
    int64_t v =
        a[0]->type.id == LM_TYPE_INTERVAL_MDN ? 0 : lm_array_get_i64(a[0], i);
    if (a[0]->type.id == LM_TYPE_INTERVAL ||
        a[0]->type.id == LM_TYPE_INTERVAL_MDN) {
      if (fl == 0) { /* an empty template is NULL */
        lm_builder_append_null(b);
        break;
      }
      /* |v| < 2^63 µs: its days fit an int32 */
      int32_t months = 0, days = (int32_t)(v / LM_US_PER_DAY);
      int64_t t = v % LM_US_PER_DAY;
      if (a[0]->type.id == LM_TYPE_INTERVAL_MDN) { /* {months, days, ns} */
        int64_t ns;
        const char *slot =
            (const char *)a[0]->values->data + (size_t)(a[0]->offset + i) * 16;
        memcpy(&months, slot, 4);
        memcpy(&days, slot + 4, 4);
        memcpy(&ns, slot + 8, 8);
        t = ns / 1000;
      }
      lm_buf_reset(o);
      if (to_char_iv(o, months, days, t, f, (size_t)fl)) {
        rc = lm_fn_error(err, e, "22007",
                         "invalid format specification for an interval "
                         "value");
        break;
      }
      lm_builder_append_str(b, o->data ? o->data : "", (int32_t)o->len);
      break;
    }
    if (!lm_ts_finite(v) || fl == 0) {
      /* PostgreSQL: to_char(infinity) and an empty template are NULL */
      lm_builder_append_null(b);
      break;
    }
    tc_zone z = {0, NULL};
    if (lm_type_is_tstz(a[0]->type)) { /* fields in the bound zone */
      const lm_tz *tz = e->tz ? e->tz : lm_tz_utc();
      z.off_s =
          lm_tz_offset_at(tz, lm_floor_div(v, LM_US_PER_SEC), NULL, &z.abbrev);
      v += (int64_t)z.off_s * LM_US_PER_SEC;
    }
    lm_buf_reset(o);
    to_char_one(o, v, &z, f, (size_t)fl);
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
      if (isinf(s)) { /* PostgreSQL: infinity / -infinity */
        lm_builder_append_int(b, s > 0 ? LM_TS_INFINITY : LM_TS_NEG_INFINITY);
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
      ts_err x;
      bool has_tz;
      if (to_ts_parse(s, (size_t)sl, f, (size_t)fl, &v, &has_tz, &x)) {
        rc = ts_report(e, &x, err);
        break;
      }
      /* the result is cast from the session's wall clock (func_bind.c):
       * an instant given with TZH is handed over as that wall clock */
      if (has_tz && e->tz)
        v = lm_tz_to_local(e->tz, v);
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
    if (e->n_args == 7) { /* make_timestamptz(..., zone): mktstz_bind.c */
      int32_t zl;
      const char *zs = lm_array_str(a[6], i, &zl);
      const lm_tz *z = NULL;
      if ((rc = row_zone(e, zs, zl, &z, err)) != 0)
        break;
      v = lm_tz_from_local(z, v, NULL);
    }
    lm_builder_append_int(b, v);
    break;
  }
  case LM_FN_TO_CHAR_NUM: {
    int32_t fl;
    const char *f = lm_array_str(a[1], i, &fl);
    num_arg x = {0};
    if (a[0]->type.id == LM_TYPE_DECIMAL128 &&
        lm_dec_is_special(lm_dec_get(a[0], i))) { /* as float8's NaN / inf */
      x.kind = 1;
      x.dv = lm_dec_to_double(lm_dec_get(a[0], i), 0);
    } else if (a[0]->type.id == LM_TYPE_DECIMAL128) {
      x.kind = 2;
      x.dec = lm_dec_get(a[0], i);
      x.ds = a[0]->type.scale;
    } else if (a[0]->type.id == LM_TYPE_FLOAT64) {
      x.kind = 1;
      x.dv = lm_array_get_f64(a[0], i);
    } else {
      x.iv = lm_array_get_i64(a[0], i);
    }
    lm_buf_reset(o);
    const char *msg = NULL;
    int r = to_char_num(o, &x, f, (size_t)fl, &msg);
    if (r == -2) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      break;
    }
    if (r) {
      rc = lm_fn_error(err, e, r == -3 ? "22003" : "42601", "%s", msg);
      break;
    }
    lm_builder_append_str(b, o->data ? o->data : "", (int32_t)o->len);
    break;
  }
  case LM_FN_TO_DATE: {
    int32_t sl, fl;
    const char *s = lm_array_str(a[0], i, &sl);
    const char *f = lm_array_str(a[1], i, &fl);
    int64_t v;
    ts_err x;
    bool has_tz;
    if (to_ts_parse(s, (size_t)sl, f, (size_t)fl, &v, &has_tz, &x)) {
      rc = ts_report(e, &x, err);
      break;
    }
    lm_builder_append_int(b, lm_floor_div(v, LM_US_PER_DAY));
    break;
  }
  case LM_FN_MAKE_DATE: {
    int64_t y = lm_array_get_i64(a[0], i), mo = lm_array_get_i64(a[1], i),
            d = lm_array_get_i64(a[2], i);
    /* PostgreSQL: negative years are BC; no year 0 */
    if (y == 0 || mo < 1 || mo > 12 || d < 1 || y > 5874897 || y < -4714 ||
        d > (int64_t)lm_days_in_month(y < 0 ? y + 1 : y, (unsigned)mo)) {
      rc = lm_fn_error(err, e, "22008",
                       "date field value out of range: %lld-%02lld-%02lld",
                       (long long)y, (long long)mo, (long long)d);
      break;
    }
    int64_t days =
        lm_days_from_civil(y < 0 ? y + 1 : y, (unsigned)mo, (unsigned)d);
    if (days < LM_DT_MIN_DAYS) {
      rc = lm_fn_error(err, e, "22008", "date out of range: %lld-%02lld-%02lld",
                       (long long)y, (long long)mo, (long long)d);
      break;
    }
    lm_builder_append_int(b, days);
    break;
  }
  case LM_FN_MAKE_TIME: {
    int64_t h = lm_array_get_i64(a[0], i), mi = lm_array_get_i64(a[1], i);
    double sec = lm_array_get_f64(a[2], i);
    if (h < 0 || mi < 0 || mi > 59 || !(sec >= 0) || sec > 60 || h > 24 ||
        (h == 24 && (mi > 0 || sec > 0))) {
      rc = lm_fn_error(err, e, "22008",
                       "time field value out of range: %lld:%02lld:%02g",
                       (long long)h, (long long)mi, sec);
      break;
    }
    lm_builder_append_int(b, h * LM_US_PER_HOUR + mi * LM_US_PER_MIN +
                                 (int64_t)nearbyint(sec * 1e6));
    break;
  }
  case LM_FN_CLOCK_TIMESTAMP:
    lm_builder_append_int(b, lm_dt_clock_us());
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
