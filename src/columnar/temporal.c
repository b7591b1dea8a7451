/* columnar/temporal.c — timestamp parse/format, civil calendar, intervals. */
#include "base/lm_base.h"
#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

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

static inline bool alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline bool space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}

/* Digits at s[*i] (at most max of them); -1 when there are none or more. */
static int64_t digits(const char *s, size_t len, size_t *i, int max,
                      int *count) {
  int64_t v = 0;
  int n = 0;
  while (*i < len && dig(s[*i])) {
    if (n == max)
      return -1;
    v = v * 10 + (s[*i] - '0');
    (*i)++, n++;
  }
  if (count)
    *count = n;
  return n ? v : -1;
}

/* PostgreSQL's ParseFractionalSecond: rint(strtod(".ddd") * 10^6). The
 * digits s[a, b) follow the '.'; the result is 0 .. 1000000. */
static int64_t frac_us(const char *s, size_t a, size_t b) {
  char buf[72];
  size_t n = b - a;
  if (n > 64)
    n = 64; /* later digits cannot move the double */
  buf[0] = '0';
  buf[1] = '.';
  memcpy(buf + 2, s + a, n);
  buf[n + 2] = '\0';
  return (int64_t)rint(strtod(buf, NULL) * 1000000.0);
}

/* The words PostgreSQL's tokenizer keeps apart from a following digit or
 * '+' (its datetktbl): those are not the start of a zone name. */
static bool core_word(const char *w, size_t n) {
  static const char *const words[] = {
      "ad",       "am",        "at", "bc",      "d", "epoch",
      "h",        "infinity",  "j",  "julian",  "m", "mm",
      "now",      "on",        "pm", "s",       "t", "today",
      "tomorrow", "yesterday", "y",  "allballs"};
  for (size_t k = 0; k < sizeof words / sizeof *words; k++)
    if (strlen(words[k]) == n && !strncasecmp(w, words[k], n))
      return true;
  return false;
}

/* ------------------------------------------------ statement clock */

static _Thread_local int64_t stmt_now;

int64_t lm_dt_now_us(void) {
  if (stmt_now)
    return stmt_now;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * LM_US_PER_SEC + ts.tv_nsec / 1000;
}

int64_t lm_dt_clock_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * LM_US_PER_SEC + ts.tv_nsec / 1000;
}

void lm_dt_statement_begin(int64_t now_us) {
  stmt_now = now_us;
}

/* ------------------------------------ the forms rewritten to ISO */

static bool word_is(const char *w, size_t n, const char *x) {
  return strlen(x) == n && !strncasecmp(w, x, n);
}

/* 1-12 for a month name or its PostgreSQL abbreviation, else 0. */
static int month_word(const char *w, size_t n) {
  static const char *const names[] = {
      "january", "february", "march",     "april",   "may",      "june",
      "july",    "august",   "september", "october", "november", "december"};
  for (int m = 0; m < 12; m++)
    if ((n == 3 && !strncasecmp(w, names[m], 3)) || word_is(w, n, names[m]))
      return m + 1;
  return word_is(w, n, "sept") ? 9 : 0;
}

/* A day name or its abbreviation (PostgreSQL ignores them). */
static bool day_word(const char *w, size_t n) {
  static const char *const names[] = {
      "sun",      "sunday", "mon",       "monday", "tue",     "tues",
      "tuesday",  "wed",    "wednesday", "thu",    "thur",    "thurs",
      "thursday", "fri",    "friday",    "sat",    "saturday"};
  for (size_t k = 0; k < sizeof names / sizeof *names; k++)
    if (word_is(w, n, names[k]))
      return true;
  return false;
}

/* An ISO 8601 basic time at s[i]: HHMMSS or HHMM (then '.f' may follow),
 * a whole digit run not followed by ':'. Writes "HH:MM[:SS]" to *p and
 * returns the chars consumed, 0 when there is none. */
static size_t basic_time(const char *s, size_t len, size_t i, char *p,
                         size_t room) {
  size_t j = i;
  while (j < len && dig(s[j]))
    j++;
  size_t n = j - i;
  if ((n != 6 && n != 4) || (j < len && s[j] == ':') || room < 9)
    return 0;
  p[0] = s[i], p[1] = s[i + 1], p[2] = ':', p[3] = s[i + 2], p[4] = s[i + 3];
  if (n == 6)
    p[5] = ':', p[6] = s[i + 4], p[7] = s[i + 5];
  return n;
}

/* Rewrites the non-ISO forms of lm_dt_parse's comment into out->norm:
 * returns 1 (then *nlen is the new length), 0 when the text is left to the
 * ISO reader as it is, or an LM_DT_* code. */
static int rewrite_iso(const char *s, size_t len, lm_dt_text *out,
                       size_t *nlen) {
  char *b = out->norm;
  size_t cap = sizeof out->norm, o = 0, i = 0, date_end = 0;
  int64_t num[3] = {0, 0, 0};
  int nd[3] = {0, 0, 0}, nn = 0, month = 0;
  char sep = 0;
  bool words = false, iso = false;
  /* ISO `Y-M-D` with a year of 3+ digits: the ISO reader's */
  size_t j = 0;
  while (j < len && dig(s[j]))
    j++;
  if (j >= 3 && j < len && s[j] == '-' && j + 1 < len && dig(s[j + 1])) {
    iso = true;
    j++;
    while (j < len && dig(s[j]))
      j++;
    if (j < len && s[j] == '-') {
      j++;
      while (j < len && dig(s[j]))
        j++;
    }
    date_end = j;
  }
  while (!iso && i < len) {
    char c = s[i];
    int fields = nn + (month ? 1 : 0);
    if (space(c) || c == ',') {
      i++;
      continue;
    }
    if ((c == '-' || c == '/' || c == '.') && fields > 0 && fields < 3 &&
        i + 1 < len && (dig(s[i + 1]) || alpha(s[i + 1]))) {
      if (c != '-' || !month) /* Jan-05-2024 */
        sep = sep ? sep : c;
      i++;
      continue;
    }
    if (dig(c)) {
      size_t e = i;
      while (e < len && dig(s[e]))
        e++;
      if ((e < len && s[e] == ':') || fields >= 3)
        break; /* a time, or the date is complete */
      if (e - i > 9)
        return 0;
      int64_t v = 0;
      for (size_t k = i; k < e; k++)
        v = v * 10 + (s[k] - '0');
      num[nn] = v;
      nd[nn++] = (int)(e - i);
      i = date_end = e;
      if (month == 0 && nn == 1 && (nd[0] == 6 || nd[0] == 8) &&
          !(e < len && (s[e] == '-' || s[e] == '/' || s[e] == '.')))
        break; /* ISO basic YYYYMMDD / YYMMDD */
      continue;
    }
    if (alpha(c) && fields < 3) {
      size_t e = i;
      while (e < len && alpha(s[e]))
        e++;
      int m = month_word(s + i, e - i);
      if (m && !month && !(e < len && dig(s[e]))) {
        month = m;
        words = true;
        i = date_end = e;
        continue;
      }
      if (!nn && !month && day_word(s + i, e - i)) {
        words = true;
        i = date_end = e;
        continue;
      }
    }
    break;
  }
  int64_t y = 0, m = 0, d = 0;
  int ydig = 0;
  if (!iso) {
    if (month) {
      if (nn != 2)
        return LM_DT_BAD_FORMAT; /* `Jan 5`: no year */
      m = month;
      int yi = nd[0] >= 3 ? 0 : 1;
      y = num[yi], ydig = nd[yi], d = num[1 - yi];
    } else if (nn == 3 && sep && sep != ' ') {
      if (nd[0] >= 3) /* Y/M/D */
        y = num[0], ydig = nd[0], m = num[1], d = num[2];
      else /* DateStyle MDY */
        m = num[0], d = num[1], y = num[2], ydig = nd[2];
    } else if (nn == 1 && (nd[0] == 8 || nd[0] == 6)) {
      int yd = nd[0] - 4;
      y = num[0] / 10000, ydig = yd, m = num[0] / 100 % 100, d = num[0] % 100;
    } else {
      return words ? LM_DT_BAD_FORMAT : 0;
    }
    if (m > 99 || d > 99)
      return LM_DT_FIELD_OVERFLOW;
    if (ydig <= 2) { /* PostgreSQL: 70-99 are 19xx, 0-69 20xx, unless BC */
      bool bc = false;
      for (size_t k = date_end; k + 1 < len; k++)
        if ((s[k] == 'b' || s[k] == 'B') &&
            (s[k + 1] == 'c' || s[k + 1] == 'C') && !alpha(s[k - 1]) &&
            (k + 2 >= len || !alpha(s[k + 2])))
          bc = true;
      if (!bc)
        y += y < 70 ? 2000 : 1900;
    }
    o = (size_t)snprintf(b, cap, "%04lld-%02lld-%02lld", (long long)y,
                         (long long)m, (long long)d);
  } else {
    if (date_end + 1 > cap)
      return LM_DT_BAD_FORMAT;
    memcpy(b, s, date_end);
    o = date_end;
  }
  /* an ISO basic time after a 'T' or spaces */
  size_t k = date_end;
  bool rewrote_time = false;
  if (k < len && (s[k] == 'T' || s[k] == 't') && k + 1 < len && dig(s[k + 1])) {
    size_t n = basic_time(s, len, k + 1, b + o + 1, cap - o - 1);
    if (n) {
      b[o] = 'T';
      o += n == 6 ? 9 : 6;
      date_end = k + 1 + n;
      rewrote_time = true;
    }
  } else {
    while (k < len && space(s[k]))
      k++;
    if (k > date_end && k < len && dig(s[k])) {
      size_t n = basic_time(s, len, k, b + o + 1, cap - o - 1);
      if (n) {
        b[o] = ' ';
        o += n == 6 ? 9 : 6;
        date_end = k + n;
        rewrote_time = true;
      }
    }
  }
  if (iso && !rewrote_time)
    return 0;
  if (o + (len - date_end) + 2 > cap)
    return LM_DT_BAD_FORMAT; /* PostgreSQL refuses long texts too */
  if (date_end < len && !space(s[date_end]) && !rewrote_time && !iso &&
      !((s[date_end] == 'T' || s[date_end] == 't') && date_end + 1 < len &&
        dig(s[date_end + 1])))
    b[o++] = ' '; /* `20240105Z`, `Jan 5 2024BC`; not `20240105T10:11` */
  memcpy(b + o, s + date_end, len - date_end);
  o += len - date_end;
  b[o] = '\0';
  *nlen = o;
  return 1;
}

/* The special words (the whole text), or LM_DT_SPECIAL_NONE. */
static int special_word(const char *w, size_t n) {
  static const struct {
    const char *w;
    int v;
  } words[] = {{"epoch", LM_DT_SPECIAL_EPOCH},
               {"infinity", LM_DT_SPECIAL_INFINITY},
               {"-infinity", LM_DT_SPECIAL_NEG_INFINITY},
               {"now", LM_DT_SPECIAL_NOW},
               {"today", LM_DT_SPECIAL_TODAY},
               {"tomorrow", LM_DT_SPECIAL_TOMORROW},
               {"yesterday", LM_DT_SPECIAL_YESTERDAY},
               {"allballs", LM_DT_SPECIAL_ALLBALLS}};
  for (size_t k = 0; k < sizeof words / sizeof *words; k++)
    if (word_is(w, n, words[k].w))
      return words[k].v;
  return LM_DT_SPECIAL_NONE;
}

static int dt_parse(const char *s, size_t len, lm_dt_text *out);

int lm_dt_parse(const char *s, size_t len, lm_dt_text *out) {
  memset(out, 0, sizeof *out);
  if (!s)
    return LM_DT_BAD_FORMAT;
  while (len > 0 && space(*s))
    s++, len--;
  while (len > 0 && space(s[len - 1]))
    len--;
  int sp = special_word(s, len);
  if (sp) {
    out->special = sp;
    return 0;
  }
  /* today / tomorrow / yesterday, then a time of that day */
  size_t w = 0;
  while (w < len && alpha(s[w]))
    w++;
  sp = special_word(s, w);
  if (w < len && space(s[w]) &&
      (sp == LM_DT_SPECIAL_TODAY || sp == LM_DT_SPECIAL_TOMORROW ||
       sp == LM_DT_SPECIAL_YESTERDAY)) {
    int rc = lm_dt_parse(s + w, len - w, out);
    if (rc)
      return rc;
    if (out->has_date || out->special)
      return LM_DT_BAD_FORMAT;
    out->special = sp;
    return 0;
  }
  size_t nlen = 0;
  int rc = rewrite_iso(s, len, out, &nlen);
  if (rc < 0)
    return rc;
  if (rc == 1) {
    s = out->norm;
    len = nlen;
  }
  return dt_parse(s, len, out);
}

/* The ISO reader (lm_dt_parse's comment); out is zeroed but for norm. */
static int dt_parse(const char *s, size_t len, lm_dt_text *out) {
  size_t i = 0;
  int64_t year = 0, mon = 0, day = 0, hh = 0, mi = 0, ss = 0, fsec = 0;
  int ydig = 0;
  bool bc = false, era = false, overflow = false;
  /* the date: Y-M-D */
  size_t j = i;
  while (j < len && dig(s[j]))
    j++;
  if (j > i && j < len && s[j] == '-') {
    year = digits(s, len, &i, 9, &ydig);
    if (year < 0)
      return LM_DT_FIELD_OVERFLOW; /* 10 or more digits */
    i++;
    mon = digits(s, len, &i, 2, NULL);
    if (mon < 0 || i >= len || s[i] != '-')
      return LM_DT_BAD_FORMAT;
    i++;
    day = digits(s, len, &i, 2, NULL);
    if (day < 0)
      return LM_DT_BAD_FORMAT;
    out->has_date = true;
    /* a time follows after spaces or a 'T' */
    if (i < len && (s[i] == 'T' || s[i] == 't') && i + 1 < len && dig(s[i + 1]))
      i++;
    else {
      size_t k = i;
      while (k < len && space(s[k]))
        k++;
      if (k > i && k + 1 < len && dig(s[k]) &&
          (s[k + 1] == ':' ||
           (dig(s[k + 1]) && k + 2 < len && s[k + 2] == ':')))
        i = k;
    }
  }
  /* the time: H:M[:S[.f]] */
  j = i;
  while (j < len && dig(s[j]))
    j++;
  if (j > i && j < len && s[j] == ':' && (out->has_date || i == 0)) {
    hh = digits(s, len, &i, 2, NULL);
    if (hh < 0)
      return LM_DT_BAD_FORMAT;
    i++;
    mi = digits(s, len, &i, 2, NULL);
    if (mi < 0)
      return LM_DT_BAD_FORMAT;
    if (i < len && s[i] == ':') {
      i++;
      ss = digits(s, len, &i, 2, NULL);
      if (ss < 0)
        return LM_DT_BAD_FORMAT;
      /* (ISO 8601's ',' too, as before; PostgreSQL takes only '.') */
      if (i < len && (s[i] == '.' || s[i] == ',')) {
        size_t a = ++i;
        while (i < len && dig(s[i]))
          i++;
        fsec = frac_us(s, a, i);
      }
    }
    out->has_time = true;
  }
  if (!out->has_date && !out->has_time)
    return LM_DT_BAD_FORMAT;
  /* zone and era, in any order */
  bool tz_overflow = false;
  int ampm = 0; /* 1 AM, 2 PM */
  while (i < len) {
    if (space(s[i])) {
      i++;
      continue;
    }
    char c = s[i];
    if (c == '+' || c == '-') { /* PostgreSQL's DecodeTimezone */
      if (out->zone)
        return LM_DT_BAD_FORMAT;
      size_t st = i++;
      int nd;
      int64_t h = digits(s, len, &i, 9, &nd), m = 0, sec = 0;
      if (h < 0)
        return LM_DT_BAD_FORMAT;
      if (i < len && s[i] == ':') {
        i++;
        m = digits(s, len, &i, 9, NULL);
        if (m < 0)
          return LM_DT_BAD_FORMAT;
        if (i < len && s[i] == ':') {
          i++;
          sec = digits(s, len, &i, 9, NULL);
          if (sec < 0)
            return LM_DT_BAD_FORMAT;
        }
      } else if (i - st > 3) {
        m = h % 100;
        h /= 100;
      }
      if (i < len && !space(s[i]) && !alpha(s[i]))
        return LM_DT_BAD_FORMAT;
      if (h > 15 || m >= 60 || sec >= 60)
        tz_overflow = true;
      else {
        int32_t off = (int32_t)((h * 60 + m) * 60 + sec);
        out->offset_s = c == '-' ? -off : off;
      }
      out->zone = LM_DT_ZONE_OFFSET;
      continue;
    }
    if (!alpha(c))
      return LM_DT_BAD_FORMAT;
    size_t st = i;
    while (i < len && alpha(s[i]))
      i++;
    bool punct = false;
    if (i < len && (s[i] == '-' || s[i] == '/' || s[i] == '.'))
      punct = true;
    else if (i < len && (s[i] == '+' || dig(s[i])) &&
             !core_word(s + st, i - st))
      punct = true;
    if (punct) {
      while (i < len &&
             (s[i] == '+' || s[i] == '-' || s[i] == '/' || s[i] == '_' ||
              s[i] == '.' || s[i] == ':' || alpha(s[i]) || dig(s[i])))
        i++;
    }
    size_t wl = i - st;
    if (!punct && wl == 2 &&
        (!strncasecmp(s + st, "am", 2) || !strncasecmp(s + st, "pm", 2))) {
      if (ampm || !out->has_time)
        return LM_DT_BAD_FORMAT;
      ampm = s[st] == 'p' || s[st] == 'P' ? 2 : 1;
      continue;
    }
    if (!punct && wl == 2 &&
        (!strncasecmp(s + st, "bc", 2) || !strncasecmp(s + st, "ad", 2))) {
      if (era)
        return LM_DT_BAD_FORMAT;
      era = true;
      bc = s[st] == 'b' || s[st] == 'B';
      continue;
    }
    if (out->zone)
      return LM_DT_BAD_FORMAT;
    if (!punct &&
        (i - st == 1 || (wl == 4 && !strncasecmp(s + st, "zulu", 4))) &&
        (s[st] == 'z' || s[st] == 'Z')) {
      out->zone = LM_DT_ZONE_OFFSET;
      out->offset_s = 0;
      continue;
    }
    if (!punct && core_word(s + st, wl))
      return LM_DT_BAD_FORMAT; /* now, today, am...: not read */
    out->zone = LM_DT_ZONE_NAME;
    out->zone_name = s + st;
    out->zone_len = wl;
    out->zone_punct = punct;
  }
  if (era && !out->has_date)
    return LM_DT_BAD_FORMAT;
  /* ranges, as PostgreSQL's ValidateDate and DecodeDateTime check them */
  if (out->has_date) {
    if (ydig < 3 || year == 0)
      overflow = true; /* two-digit years are MDY/DMY territory */
    if (mon < 1 || mon > 12)
      overflow = true;
    int64_t y = bc ? 1 - year : year;
    if (!overflow && (day < 1 || day > lm_days_in_month(y, (unsigned)mon)))
      overflow = true;
    if (!overflow)
      out->days = lm_days_from_civil(y, (unsigned)mon, (unsigned)day);
  }
  if (out->has_time && ampm) { /* PostgreSQL: hours 0-12 with AM / PM */
    if (hh > 12)
      overflow = true;
    else if (ampm == 1 && hh == 12)
      hh = 0;
    else if (ampm == 2 && hh != 12)
      hh += 12;
  }
  if (out->has_time) {
    if (mi > 59 || ss > 60 || hh > 24 ||
        (hh == 24 && (mi > 0 || ss > 0 || fsec > 0)) || fsec > 1000000)
      overflow = true;
    out->time_us = ((hh * 60 + mi) * 60 + ss) * LM_US_PER_SEC + fsec;
  }
  if (overflow)
    return LM_DT_FIELD_OVERFLOW;
  if (tz_overflow)
    return LM_DT_TZDISP_OVERFLOW;
  return 0;
}

void lm_dt_message(int rc, const char *type_name, const char *s, size_t len,
                   char *buf, size_t cap, const char **sqlstate) {
  size_t n = len;
  if (n > 60) {
    n = 60;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
      n--; /* not inside a UTF-8 sequence */
  }
  switch (rc) {
  case LM_DT_FIELD_OVERFLOW:
    *sqlstate = "22008";
    snprintf(buf, cap, "date/time field value out of range: \"%.*s\"", (int)n,
             s);
    break;
  case LM_DT_TZDISP_OVERFLOW:
    *sqlstate = "22009";
    snprintf(buf, cap, "time zone displacement out of range: \"%.*s\"", (int)n,
             s);
    break;
  case LM_DT_BAD_ZONE: {
    lm_dt_text f;
    char z[64] = "";
    (void)lm_dt_parse(s, len, &f);
    if (f.zone == LM_DT_ZONE_NAME) {
      size_t k = 0;
      for (; k < f.zone_len && k + 1 < sizeof z; k++)
        z[k] = (char)tolower((unsigned char)f.zone_name[k]);
      z[k] = '\0';
    }
    *sqlstate = "22023";
    snprintf(buf, cap, "time zone \"%s\" not recognized", z);
    break;
  }
  case LM_DT_OUT_OF_RANGE:
    *sqlstate = "22008";
    snprintf(buf, cap, "%s out of range: \"%.*s\"",
             strcmp(type_name, "date") ? "timestamp" : "date", (int)n, s);
    break;
  default:
    *sqlstate = "22007";
    snprintf(buf, cap, "invalid input syntax for type %s: \"%.*s\"", type_name,
             (int)n, s);
  }
}

int lm_parse_timestamp(const char *s, size_t len, int64_t *out_us) {
  lm_dt_text f;
  int rc = lm_dt_parse(s, len, &f);
  if (rc)
    return rc;
  if (f.special)
    return lm_tz_special(&f, lm_tz_utc(), false, out_us);
  if (!f.has_date)
    return LM_DT_BAD_FORMAT;
  if (f.zone == LM_DT_ZONE_NAME) {
    if (f.zone_punct ||
        !((f.zone_len == 3 && (!strncasecmp(f.zone_name, "UTC", 3) ||
                               !strncasecmp(f.zone_name, "GMT", 3)))))
      return LM_DT_BAD_FORMAT;
    f.offset_s = 0;
  }
  if (f.days < LM_DT_MIN_DAYS || f.days >= LM_TS_END_DAYS)
    return LM_DT_OUT_OF_RANGE;
  *out_us =
      f.days * LM_US_PER_DAY + f.time_us - (int64_t)f.offset_s * LM_US_PER_SEC;
  return 0;
}

int lm_parse_date(const char *s, size_t len, int64_t *out_days) {
  lm_dt_text f;
  int rc = lm_dt_parse(s, len, &f);
  if (rc)
    return rc;
  if (f.special == LM_DT_SPECIAL_INFINITY ||
      f.special == LM_DT_SPECIAL_NEG_INFINITY) {
    *out_days = f.special == LM_DT_SPECIAL_INFINITY ? LM_DATE_INFINITY
                                                    : LM_DATE_NEG_INFINITY;
    return 0;
  }
  if (f.special) { /* the date of that instant in the session's zone */
    int64_t us;
    if ((rc = lm_tz_special(&f, lm_tz_session(), true, &us)))
      return rc;
    *out_days = us / LM_US_PER_DAY - (us % LM_US_PER_DAY < 0);
    return 0;
  }
  if (!f.has_date)
    return LM_DT_BAD_FORMAT;
  if (f.days < LM_DT_MIN_DAYS || f.days >= LM_DATE_END_DAYS)
    return LM_DT_OUT_OF_RANGE;
  *out_days = f.days;
  return 0;
}

static inline char *put2(char *p, unsigned v) {
  p[0] = (char)('0' + v / 10);
  p[1] = (char)('0' + v % 10);
  return p + 2;
}

/* "YYYY-MM-DD" of day `days`; *bc set for years before 1 AD. */
static char *put_date(char *p, int64_t days, bool *bc) {
  int64_t y;
  unsigned m, d;
  lm_civil_from_days(days, &y, &m, &d);
  /* PostgreSQL's years BC (0 is 1 BC) within its range (from 4714 BC);
   * beyond it (no PostgreSQL value) the astronomical year with a '-' */
  *bc = y <= 0 && y >= -4713;
  if (*bc)
    y = 1 - y;
  if (y < 0) {
    *p++ = '-';
    y = -y;
  }
  if (y <= 9999) {
    unsigned yy = (unsigned)y;
    p = put2(p, yy / 100);
    p = put2(p, yy % 100);
  } else {
    char tmp[24];
    uint64_t a = (uint64_t)y;
    int n = 0;
    do {
      tmp[n++] = (char)('0' + a % 10);
      a /= 10;
    } while (a);
    while (n)
      *p++ = tmp[--n];
  }
  *p++ = '-';
  p = put2(p, m);
  *p++ = '-';
  p = put2(p, d);
  return p;
}

int lm_format_date(int64_t days, char *buf) {
  if (!lm_date_finite(days))
    return sprintf(buf, "%s", days > 0 ? "infinity" : "-infinity");
  bool bc;
  char *p = put_date(buf, days, &bc);
  if (bc) {
    memcpy(p, " BC", 3);
    p += 3;
  }
  *p = '\0';
  return (int)(p - buf);
}

int lm_format_timestamp(int64_t us, char sep, char *buf) {
  if (!lm_ts_finite(us))
    return sprintf(buf, "%s", us > 0 ? "infinity" : "-infinity");
  /* floor division without overflow at INT64_MIN */
  int64_t days = us / LM_US_PER_DAY;
  int64_t rem = us % LM_US_PER_DAY;
  if (rem < 0) {
    rem += LM_US_PER_DAY; /* [0, day) */
    days--;
  }
  bool bc;
  char *p = put_date(buf, days, &bc);
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
  if (bc) {
    memcpy(p, " BC", 3);
    p += 3;
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

/* The number s[0, n) (as parse_decimal read it) times unit µs, rounded as
 * PostgreSQL's AdjustMicroseconds: the integer part exactly, the fraction
 * (strtod) times the unit truncated to µs, then its rest rint-ed. */
static int unit_to_us(const char *s, size_t n, int64_t unit, __int128 *out) {
  size_t i = 0;
  bool neg = false;
  if (i < n && (s[i] == '+' || s[i] == '-'))
    neg = s[i++] == '-';
  __int128 ip = 0;
  while (i < n && dig(s[i])) {
    ip = ip * 10 + (s[i++] - '0');
    if (ip > (__int128)INT64_MAX)
      return -1;
  }
  __int128 v = ip * unit;
  if (i < n && s[i] == '.') {
    size_t a = ++i;
    while (i < n && dig(s[i]))
      i++;
    char buf[72];
    size_t k = i - a > 64 ? 64 : i - a;
    buf[0] = '0';
    buf[1] = '.';
    memcpy(buf + 2, s + a, k);
    buf[k + 2] = '\0';
    double frac = strtod(buf, NULL) * (double)unit;
    int64_t us = (int64_t)frac;
    frac -= (double)us;
    us += (int64_t)rint(frac);
    v += us;
  }
  if (neg)
    v = -v;
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
    if (i >= n || !dig(s[i]))
      return 0;
    int64_t sec = 0;
    while (i < n && dig(s[i]) && sec < 100)
      sec = sec * 10 + (s[i++] - '0');
    if (sec >= 60)
      return 0;
    us += sec * LM_US_PER_SEC;
    if (i < n && s[i] == '.') { /* PostgreSQL: rint(fraction * 10^6) */
      size_t a = ++i;
      while (i < n && dig(s[i]))
        i++;
      us += frac_us(s, a, i);
    }
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

bool lm_interval_has_months(const char *s, size_t len) {
  static const char *const words[] = {
      "y",         "yr",      "yrs",       "year",   "years",   "mon",
      "mons",      "month",   "months",    "decade", "decades", "dec",
      "decs",      "century", "centuries", "cent",   "c",       "millennium",
      "millennia", "mil",     "mils"};
  for (size_t i = 0; i < len;) {
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'))) {
      i++;
      continue;
    }
    size_t j = i;
    while (j < len &&
           ((s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z')))
      j++;
    for (size_t k = 0; k < sizeof words / sizeof *words; k++)
      if (strlen(words[k]) == j - i && !strncasecmp(s + i, words[k], j - i))
        return true;
    i = j;
  }
  return false;
}

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
    if (c != n || unit_to_us(s, c, u, &v))
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
      const char *num0 = s + i;
      size_t num_len = c;
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
      if (unit_to_us(num0, num_len, u, &part))
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
