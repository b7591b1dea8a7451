/* columnar/tz.c — TZif reader (RFC 8536), POSIX TZ strings, the zone
 * cache and local <-> UTC conversion with PostgreSQL's rules (lm_tz.h). */
#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One POSIX rule date: Jn (julian, no Feb 29), n (zero-based day of year),
 * Mm.w.d; time of day in seconds (may be negative or > 24 h in v3). */
typedef struct tz_rule_date {
  char kind; /* 'J', 'D' (zero-based), 'M' */
  int day, week, month;
  int32_t time;
} tz_rule_date;

typedef struct tz_type {
  int32_t off; /* seconds east */
  bool is_dst;
  uint32_t abbr; /* index into abbrs */
} tz_type;

struct lm_tz {
  char *name;
  int64_t *trans; /* UTC seconds, strictly ascending */
  uint8_t *idx;   /* type index per transition */
  int32_t n_trans;
  tz_type *types;
  int32_t n_types;
  char *abbrs; /* NUL-terminated strings */
  uint32_t n_abbrs;
  /* the POSIX rule (footer or a TZ string) */
  bool has_rule, rule_dst;
  int32_t std_off, dst_off; /* seconds east */
  char std_abbr[24], dst_abbr[24];
  tz_rule_date start, end;
};

void lm_tz_free(lm_tz *z) {
  if (!z)
    return;
  free(z->name);
  free(z->trans);
  free(z->idx);
  free(z->types);
  free(z->abbrs);
  free(z);
}

const char *lm_tz_name(const lm_tz *z) {
  return z ? z->name : "UTC";
}

/* ------------------------------------------------------- calendar help */

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b) != 0 && ((a < 0) != (b < 0)))
    q--;
  return q;
}

static bool leap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Days since the epoch of the rule date d in year y. */
static int64_t rule_day(const tz_rule_date *d, int64_t y) {
  int64_t jan1 = lm_days_from_civil(y, 1, 1);
  switch (d->kind) {
  case 'J': /* 1..365, Feb 29 never counted */
    return jan1 + d->day - 1 + (leap(y) && d->day >= 60 ? 1 : 0);
  case 'D':
    return jan1 + d->day;
  default: {
    int64_t first = lm_days_from_civil(y, (unsigned)d->month, 1);
    int wd1 = (int)(((first + 4) % 7 + 7) % 7); /* 1970-01-01: Thursday */
    int64_t day = 1 + (d->day - wd1 + 7) % 7 + (int64_t)(d->week - 1) * 7;
    int64_t dim = lm_days_in_month(y, (unsigned)d->month);
    while (day > dim)
      day -= 7;
    return first + day - 1;
  }
  }
}

/* UTC second of the DST start / end of year y. */
static int64_t rule_start(const lm_tz *z, int64_t y) {
  return rule_day(&z->start, y) * 86400 + z->start.time - z->std_off;
}
static int64_t rule_end(const lm_tz *z, int64_t y) {
  return rule_day(&z->end, y) * 86400 + z->end.time - z->dst_off;
}

static int64_t year_of(int64_t utc_s) {
  int64_t y;
  unsigned m, d;
  lm_civil_from_days(floor_div(utc_s, 86400), &y, &m, &d);
  return y;
}

/* The rule's DST start and end of the UTC year holding utc_s, cached per
 * thread for the last (zone, year): rows are usually close in time. */
static void rule_year(const lm_tz *z, int64_t utc_s, int64_t *s, int64_t *e) {
  static _Thread_local struct {
    const lm_tz *z;
    int64_t lo, hi, s, e;
  } c;
  if (c.z != z || utc_s < c.lo || utc_s >= c.hi) {
    int64_t y = year_of(utc_s);
    c.z = z;
    c.lo = lm_days_from_civil(y, 1, 1) * 86400;
    c.hi = lm_days_from_civil(y + 1, 1, 1) * 86400;
    c.s = rule_start(z, y);
    c.e = rule_end(z, y);
  }
  *s = c.s;
  *e = c.e;
}

/* Whether the rule puts utc_s in DST. */
static bool rule_in_dst(const lm_tz *z, int64_t utc_s) {
  if (!z->rule_dst)
    return false;
  int64_t s, e;
  rule_year(z, utc_s, &s, &e);
  if (s < e)
    return utc_s >= s && utc_s < e;
  return !(utc_s >= e && utc_s < s);
}

/* ------------------------------------------------------- offsets */

/* Index of the last transition <= t, or -1. */
static int32_t find_trans(const lm_tz *z, int64_t t) {
  int32_t lo = 0, hi = z->n_trans - 1, r = -1;
  while (lo <= hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (z->trans[mid] <= t) {
      r = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return r;
}

static bool use_rule(const lm_tz *z, int64_t t) {
  if (!z->has_rule)
    return false;
  if (z->n_types == 0)
    return true;
  if (z->n_trans == 0)
    return z->rule_dst;
  return t >= z->trans[z->n_trans - 1];
}

int32_t lm_tz_offset_at(const lm_tz *z, int64_t utc_s, bool *is_dst,
                        const char **abbrev) {
  if (!z)
    z = lm_tz_utc();
  bool d = false;
  int32_t off = 0;
  const char *ab = "UTC";
  if (use_rule(z, utc_s)) {
    d = rule_in_dst(z, utc_s);
    off = d ? z->dst_off : z->std_off;
    ab = d ? z->dst_abbr : z->std_abbr;
  } else if (z->n_types > 0) {
    int32_t i = find_trans(z, utc_s);
    const tz_type *ty = &z->types[i < 0 ? 0 : z->idx[i]];
    d = ty->is_dst;
    off = ty->off;
    ab = z->abbrs + ty->abbr;
  }
  if (is_dst)
    *is_dst = d;
  if (abbrev)
    *abbrev = ab;
  return off;
}

int64_t lm_tz_to_local(const lm_tz *z, int64_t utc_us) {
  if (!lm_ts_finite(utc_us))
    return utc_us; /* infinity is infinity in every zone */
  int64_t s = floor_div(utc_us, LM_US_PER_SEC);
  return utc_us + (int64_t)lm_tz_offset_at(z, s, NULL, NULL) * LM_US_PER_SEC;
}

/* The first transition strictly after t: *boundary and the offset after it.
 * false when there is none (a zone without DST from t on). */
static bool next_boundary(const lm_tz *z, int64_t t, int64_t *boundary,
                          int32_t *after) {
  if (z->n_trans > 0 && t < z->trans[z->n_trans - 1]) {
    int32_t i = find_trans(z, t) + 1; /* first > t */
    *boundary = z->trans[i];
    *after = z->types[z->idx[i]].off;
    return true;
  }
  if (!z->has_rule || !z->rule_dst ||
      (z->n_types > 0 && z->n_trans == 0 && !z->rule_dst))
    return false;
  int64_t best = INT64_MAX, s, e;
  rule_year(z, t, &s, &e); /* this UTC year's changes (cached) */
  if (s > t)
    best = s;
  if (e > t && e < best)
    best = e;
  if (best == INT64_MAX) { /* after both: the next year's first */
    int64_t y = year_of(t) + 1;
    s = rule_start(z, y);
    e = rule_end(z, y);
    best = s < e ? s : e;
  }
  if (best == INT64_MAX)
    return false;
  *boundary = best;
  *after = lm_tz_offset_at(z, best, NULL, NULL);
  return true;
}

int64_t lm_tz_from_local(const lm_tz *z, int64_t local_us, int32_t *offset_s) {
  if (!z)
    z = lm_tz_utc();
  if (!lm_ts_finite(local_us)) {
    if (offset_s)
      *offset_s = 0;
    return local_us;
  }
  int64_t t = floor_div(local_us, LM_US_PER_SEC);
  /* PostgreSQL's DetermineTimeZoneOffsetInternal: the boundary following
   * the instant one day before t read as UTC, and the offsets around it */
  int64_t prev = t - 86400;
  int32_t before = lm_tz_offset_at(z, prev, NULL, NULL), after = 0, off;
  int64_t boundary = 0;
  if (!next_boundary(z, prev, &boundary, &after)) {
    off = before;
  } else {
    int64_t bt = t - before, at = t - after;
    if (bt < boundary && at < boundary)
      off = before;
    else if (bt > boundary && at >= boundary)
      off = after;
    else /* gap: prefer "before"; overlap: prefer "after" */
      off = bt > at ? before : after;
  }
  if (offset_s)
    *offset_s = off;
  return local_us - (int64_t)off * LM_US_PER_SEC;
}

/* ------------------------------------------------------- text forms */

int lm_tz_format_offset(int32_t off_s, char *buf) {
  char sign = off_s < 0 ? '-' : '+';
  int64_t a = off_s < 0 ? -(int64_t)off_s : off_s;
  int h = (int)(a / 3600), m = (int)(a / 60 % 60), s = (int)(a % 60);
  if (s)
    return snprintf(buf, 16, "%c%02d:%02d:%02d", sign, h, m, s);
  if (m)
    return snprintf(buf, 16, "%c%02d:%02d", sign, h, m);
  return snprintf(buf, 16, "%c%02d", sign, h);
}

int lm_tz_format(int64_t utc_us, const lm_tz *z, char *buf) {
  if (!lm_ts_finite(utc_us))
    return lm_format_timestamp(utc_us, ' ', buf); /* "infinity" */
  int32_t off =
      lm_tz_offset_at(z, floor_div(utc_us, LM_US_PER_SEC), NULL, NULL);
  int64_t local = utc_us + (int64_t)off * LM_US_PER_SEC;
  int n = lm_format_timestamp(local, ' ', buf);
  bool bc = n > 3 && !memcmp(buf + n - 3, " BC", 3);
  if (bc)
    n -= 3; /* PostgreSQL: "0001-12-31 00:00:00+00 BC" */
  /* PostgreSQL drops the fraction's trailing zeros */
  char *dot = memchr(buf, '.', (size_t)n);
  if (dot) {
    while (n > 0 && buf[n - 1] == '0')
      n--;
  }
  n += lm_tz_format_offset(off, buf + n);
  if (bc) {
    memcpy(buf + n, " BC", 4);
    n += 3;
  }
  return n;
}

/* ------------------------------------------------------- POSIX strings */

typedef struct pcur {
  const char *s;
  size_t len, i;
} pcur;

static int pc(const pcur *c) {
  return c->i < c->len ? (unsigned char)c->s[c->i] : -1;
}

/* A zone name: <...> or a run of characters that are not digits, ',',
 * '+', '-' (PostgreSQL accepts short and empty names). */
static bool p_name(pcur *c, char *out, size_t cap) {
  size_t n = 0;
  if (pc(c) == '<') {
    c->i++;
    while (pc(c) >= 0 && pc(c) != '>') {
      if (n + 1 < cap)
        out[n++] = (char)pc(c);
      c->i++;
    }
    if (pc(c) != '>')
      return false;
    c->i++;
  } else {
    int ch;
    while ((ch = pc(c)) >= 0 && !(ch >= '0' && ch <= '9') && ch != ',' &&
           ch != '+' && ch != '-') {
      if (n + 1 < cap)
        out[n++] = (char)ch;
      c->i++;
    }
  }
  out[n] = '\0';
  return true;
}

static bool p_num(pcur *c, int max, int *v) {
  int n = 0, k = 0;
  while (pc(c) >= '0' && pc(c) <= '9') {
    n = n * 10 + (pc(c) - '0');
    c->i++;
    if (++k > 3 || n > max)
      return false;
  }
  *v = n;
  return k > 0;
}

/* [+-]hh[:mm[:ss]] -> seconds (sign applied); hours up to max_h. */
static bool p_secs(pcur *c, int max_h, int32_t *out) {
  int sign = 1, h, m = 0, s = 0;
  if (pc(c) == '-' || pc(c) == '+') {
    sign = pc(c) == '-' ? -1 : 1;
    c->i++;
  }
  if (!p_num(c, max_h, &h))
    return false;
  if (pc(c) == ':') {
    c->i++;
    if (!p_num(c, 59, &m))
      return false;
    if (pc(c) == ':') {
      c->i++;
      if (!p_num(c, 59, &s))
        return false;
    }
  }
  *out = sign * (h * 3600 + m * 60 + s);
  return true;
}

static bool p_rule_date(pcur *c, tz_rule_date *d) {
  int v;
  if (pc(c) == 'J') {
    c->i++;
    if (!p_num(c, 365, &v) || v < 1)
      return false;
    d->kind = 'J';
    d->day = v;
  } else if (pc(c) == 'M') {
    c->i++;
    d->kind = 'M';
    if (!p_num(c, 12, &d->month) || d->month < 1 || pc(c) != '.')
      return false;
    c->i++;
    if (!p_num(c, 5, &d->week) || d->week < 1 || pc(c) != '.')
      return false;
    c->i++;
    if (!p_num(c, 6, &d->day))
      return false;
  } else {
    if (!p_num(c, 365, &v))
      return false;
    d->kind = 'D';
    d->day = v;
  }
  d->time = 7200;
  if (pc(c) == '/') {
    c->i++;
    if (!p_secs(c, 167, &d->time))
      return false;
  }
  return true;
}

/* Parses the TZ string into z's rule fields. Returns the byte offset of
 * the error, or -1 when it parsed. */
static long parse_rule(lm_tz *z, const char *s, size_t len) {
  pcur c = {s, len, 0};
  int32_t off;
  if (!p_name(&c, z->std_abbr, sizeof z->std_abbr))
    return (long)c.i;
  if (!p_secs(&c, 167, &off)) /* PostgreSQL's getsecs: 0..167 hours */
    return (long)c.i;
  z->std_off = -off;
  z->has_rule = true;
  z->rule_dst = false;
  if (c.i == c.len)
    return -1;
  if (!p_name(&c, z->dst_abbr, sizeof z->dst_abbr) || !z->dst_abbr[0])
    return (long)c.i;
  z->rule_dst = true;
  z->dst_off = z->std_off + 3600;
  if (pc(&c) >= 0 && pc(&c) != ',') {
    if (!p_secs(&c, 167, &off))
      return (long)c.i;
    z->dst_off = -off;
  }
  if (pc(&c) < 0) { /* no rule: the US rule (posixrules) */
    z->start = (tz_rule_date){'M', 0, 2, 3, 7200};
    z->end = (tz_rule_date){'M', 0, 1, 11, 7200};
    return -1;
  }
  if (pc(&c) != ',')
    return (long)c.i;
  c.i++;
  if (!p_rule_date(&c, &z->start))
    return (long)c.i;
  if (pc(&c) != ',')
    return (long)c.i;
  c.i++;
  if (!p_rule_date(&c, &z->end))
    return (long)c.i;
  return c.i == c.len ? -1 : (long)c.i;
}

int lm_tz_parse_posix(const char *s, size_t len, const char *name, lm_tz **out,
                      lm_error *err) {
  *out = NULL;
  lm_tz *z = calloc(1, sizeof *z);
  if (!z || !(z->name = strdup(name ? name : "")))
    return free(z), lm_err(err, LM_ERR_NOMEM, "out of memory");
  long at = parse_rule(z, s, len);
  if (at >= 0) {
    lm_tz_free(z);
    return lm_err(err, LM_ERR_PARSE, "TZ string: byte %ld: invalid", at);
  }
  *out = z;
  return 0;
}

/* ------------------------------------------------------- TZif */

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         p[3];
}
static int64_t be64(const uint8_t *p) {
  return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

typedef struct tzif_hdr {
  int version;
  uint32_t isut, isstd, leap, time, type, chars;
} tzif_hdr;

static int read_hdr(const uint8_t *d, size_t len, size_t at, tzif_hdr *h,
                    lm_error *err) {
  if (len < 44 || at > len - 44)
    return lm_err(err, LM_ERR_PARSE, "TZif: byte %zu: truncated header", at);
  if (memcmp(d + at, "TZif", 4) != 0)
    return lm_err(err, LM_ERR_PARSE, "TZif: byte %zu: bad magic", at);
  uint8_t v = d[at + 4];
  if (v != 0 && (v < '2' || v > '9'))
    return lm_err(err, LM_ERR_PARSE, "TZif: byte %zu: bad version", at + 4);
  h->version = v ? v - '0' : 1;
  h->isut = be32(d + at + 20);
  h->isstd = be32(d + at + 24);
  h->leap = be32(d + at + 28);
  h->time = be32(d + at + 32);
  h->type = be32(d + at + 36);
  h->chars = be32(d + at + 40);
  if (h->type == 0 || h->type > 256 || h->chars == 0 ||
      (h->isut && h->isut != h->type) || (h->isstd && h->isstd != h->type))
    return lm_err(err, LM_ERR_PARSE, "TZif: byte %zu: bad counts", at + 20);
  return 0;
}

/* Bytes of the data block after a header with time size ts (4 or 8). */
static uint64_t block_size(const tzif_hdr *h, int ts) {
  return (uint64_t)h->time * (uint64_t)ts + h->time + (uint64_t)h->type * 6 +
         h->chars + (uint64_t)h->leap * (uint64_t)(ts + 4) + h->isstd + h->isut;
}

int lm_tzif_parse(const uint8_t *d, size_t len, const char *name, lm_tz **out,
                  lm_error *err) {
  *out = NULL;
  tzif_hdr h;
  int rc = read_hdr(d, len, 0, &h, err);
  if (rc)
    return rc;
  size_t at = 44;
  int ts = 4;
  uint64_t bs = block_size(&h, 4);
  if (bs > len - at)
    return lm_err(err, LM_ERR_PARSE, "TZif: byte %zu: truncated data", at);
  if (h.version >= 2) { /* skip the v1 block: use the 64-bit one */
    at += (size_t)bs;
    if ((rc = read_hdr(d, len, at, &h, err)))
      return rc;
    at += 44;
    ts = 8;
    bs = block_size(&h, 8);
    if (bs > len - at)
      return lm_err(err, LM_ERR_PARSE, "TZif: byte %zu: truncated data", at);
  }
  if (h.leap)
    return lm_err(err, LM_ERR_PARSE,
                  "TZif: byte %zu: leap-second zones are not supported", at);
  lm_tz *z = calloc(1, sizeof *z);
  if (!z)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  z->n_trans = (int32_t)h.time;
  z->n_types = (int32_t)h.type;
  z->n_abbrs = h.chars;
  z->name = strdup(name ? name : "");
  z->trans = malloc(h.time ? h.time * sizeof *z->trans : 1);
  z->idx = malloc(h.time ? h.time : 1);
  z->types = malloc(h.type * sizeof *z->types);
  z->abbrs = malloc((size_t)h.chars + 1);
  if (!z->name || !z->trans || !z->idx || !z->types || !z->abbrs) {
    lm_tz_free(z);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  const uint8_t *p = d + at;
  for (uint32_t i = 0; i < h.time; i++) {
    z->trans[i] = ts == 8 ? be64(p + (size_t)i * 8)
                          : (int64_t)(int32_t)be32(p + (size_t)i * 4);
    if (i > 0 && z->trans[i] <= z->trans[i - 1]) {
      lm_tz_free(z);
      return lm_err(err, LM_ERR_PARSE,
                    "TZif: byte %zu: transition times not ascending",
                    at + (size_t)i * (size_t)ts);
    }
  }
  p += (size_t)h.time * (size_t)ts;
  for (uint32_t i = 0; i < h.time; i++) {
    if (p[i] >= h.type) {
      lm_tz_free(z);
      return lm_err(err, LM_ERR_PARSE, "TZif: byte %zu: bad type index",
                    (size_t)(p - d) + i);
    }
    z->idx[i] = p[i];
  }
  p += h.time;
  for (uint32_t i = 0; i < h.type; i++) {
    const uint8_t *r = p + (size_t)i * 6;
    int32_t off = (int32_t)be32(r);
    if (off == INT32_MIN || off < -25 * 3600 || off > 26 * 3600 || r[4] > 1 ||
        r[5] >= h.chars) {
      lm_tz_free(z);
      return lm_err(err, LM_ERR_PARSE, "TZif: byte %zu: bad time type",
                    (size_t)(r - d));
    }
    z->types[i] = (tz_type){off, r[4] == 1, r[5]};
  }
  p += (size_t)h.type * 6;
  memcpy(z->abbrs, p, h.chars);
  z->abbrs[h.chars] = '\0';
  if (z->abbrs[h.chars - 1] != '\0') { /* the last string must end */
    lm_tz_free(z);
    return lm_err(err, LM_ERR_PARSE,
                  "TZif: byte %zu: abbreviations not NUL-terminated",
                  (size_t)(p - d) + h.chars - 1);
  }
  p += h.chars + (size_t)h.isstd + h.isut;
  /* v2+: the footer "\n<TZ string>\n" */
  if (ts == 8) {
    size_t f = (size_t)(p - d);
    if (f >= len || d[f] != '\n') {
      lm_tz_free(z);
      return lm_err(err, LM_ERR_PARSE, "TZif: byte %zu: missing footer", f);
    }
    const uint8_t *nl = memchr(d + f + 1, '\n', len - f - 1);
    if (!nl) {
      lm_tz_free(z);
      return lm_err(err, LM_ERR_PARSE, "TZif: byte %zu: unterminated footer",
                    f);
    }
    size_t fl = (size_t)(nl - (d + f + 1));
    if (fl > 0) {
      long e = parse_rule(z, (const char *)d + f + 1, fl);
      if (e >= 0) {
        lm_tz_free(z);
        return lm_err(err, LM_ERR_PARSE, "TZif: byte %zu: bad TZ string",
                      f + 1 + (size_t)e);
      }
    }
  }
  *out = z;
  return 0;
}

/* ------------------------------------------------------- cache, lookup */

static lm_tz utc_zone = {
    .name = "UTC", .has_rule = true, .std_abbr = "UTC", .dst_abbr = "UTC"};

const lm_tz *lm_tz_utc(void) {
  return &utc_zone;
}

#define TZ_CACHE_MAX 4096
typedef struct tz_entry {
  char *key; /* the name as given */
  lm_tz *zone;
} tz_entry;
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static tz_entry cache[TZ_CACHE_MAX];
static int n_cache;

static _Thread_local const lm_tz *session_zone;

const lm_tz *lm_tz_session(void) {
  return session_zone ? session_zone : &utc_zone;
}
const lm_tz *lm_tz_session_set(const lm_tz *z) {
  const lm_tz *old = lm_tz_session();
  session_zone = z;
  return old;
}

/* Reads a whole file (at most 1 MiB: zone files are a few KiB). */
static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 20, n = 0;
  uint8_t *buf = malloc(cap);
  if (buf)
    n = fread(buf, 1, cap, f);
  fclose(f);
  *len = n;
  return buf;
}

static bool safe_name(const char *s) {
  if (!*s || *s == '/' || strlen(s) > 200)
    return false;
  for (const char *p = s; *p; p++) {
    unsigned char ch = (unsigned char)*p;
    if (!(isalnum(ch) || ch == '/' || ch == '_' || ch == '-' || ch == '+'))
      return false;
    if (ch == '/' && p[1] == '/')
      return false;
  }
  /* no "." components (".." cannot appear: '.' is not allowed above) */
  return true;
}

/* Resolves name case-insensitively under dir, component by component;
 * writes the canonical relative path into canon. */
static bool find_file(const char *dir, const char *name, char *canon,
                      size_t cap) {
  char path[1024];
  size_t cl = 0;
  canon[0] = '\0';
  const char *p = name;
  while (*p) {
    const char *e = strchr(p, '/');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    snprintf(path, sizeof path, "%s/%s", dir, canon);
    DIR *dh = opendir(path);
    if (!dh)
      return false;
    struct dirent *de;
    bool found = false;
    while ((de = readdir(dh))) {
      if (strlen(de->d_name) == n && !strncasecmp(de->d_name, p, n)) {
        if (cl + n + 2 > cap) {
          closedir(dh);
          return false;
        }
        if (cl)
          canon[cl++] = '/';
        memcpy(canon + cl, de->d_name, n);
        cl += n;
        canon[cl] = '\0';
        found = true;
        break;
      }
    }
    closedir(dh);
    if (!found)
      return false;
    p += n;
    if (*p == '/')
      p++;
  }
  return cl > 0;
}

/* A number of hours, the whole string (strtod), as PostgreSQL's
 * check_timezone reads it: the offset is (long)(-hours * 3600) seconds
 * west (truncated), then written as the POSIX string "<+HH:MM>-HH:MM",
 * whose hours must be 0..167. *out_of_range is set (and NULL returned)
 * for a number outside that, NULL alone when name is not a number. */
static lm_tz *numeric_zone(const char *name, bool *out_of_range) {
  char *end;
  *out_of_range = false;
  double h = strtod(name, &end);
  if (end == name || *end)
    return NULL;
  double w = -h * 3600.0; /* seconds west, as PostgreSQL's gmtoffset */
  if (!(w > -604800.0 && w < 604800.0)) {
    *out_of_range = true; /* also inf and nan */
    return NULL;
  }
  int32_t off = -(int32_t)w; /* truncated toward zero, then east */
  lm_tz *z = calloc(1, sizeof *z);
  if (!z)
    return NULL;
  char o[16];
  int32_t a = off < 0 ? -off : off;
  if (a % 60)
    snprintf(o, sizeof o, "%02d:%02d:%02d", a / 3600, a / 60 % 60, a % 60);
  else if (a % 3600)
    snprintf(o, sizeof o, "%02d:%02d", a / 3600, a / 60 % 60);
  else
    snprintf(o, sizeof o, "%02d", a / 3600);
  char nm[64];
  snprintf(nm, sizeof nm, "<%c%s>%c%s", off >= 0 ? '+' : '-', o,
           off >= 0 ? '-' : '+', o);
  if (!(z->name = strdup(nm))) {
    free(z);
    return NULL;
  }
  z->has_rule = true;
  z->std_off = off;
  snprintf(z->std_abbr, sizeof z->std_abbr, "%c%.12s", off >= 0 ? '+' : '-', o);
  return z;
}

static int bad_zone(lm_error *err, const char *name) {
  lm_err(err, LM_ERR_INVALID,
         "invalid value for parameter \"TimeZone\": \"%.200s\"", name);
  return lm_err_state(err, "22023");
}

static int lookup(const char *name, bool numeric, const lm_tz **out,
                  lm_error *err);
/* A time zone abbreviation (the table below): a fixed offset in seconds
 * east, or (zone != NULL) a dynamic one, that zone's offset. */
typedef struct tz_abbrev {
  const char *name;
  int32_t off;
  const char *zone;
} tz_abbrev;
static const tz_abbrev *find_abbrev(const char *name);

int lm_tz_lookup(const char *name, const lm_tz **out, lm_error *err) {
  return lookup(name, true, out, err);
}

int lm_tz_lookup_at(const char *name, const lm_tz **out, lm_error *err) {
  return lookup(name, false, out, err);
}

static int lookup(const char *name, bool numeric, const lm_tz **out,
                  lm_error *err) {
  *out = NULL;
  if (!name)
    return bad_zone(err, "");
  if (!strcasecmp(name, "UTC")) {
    *out = &utc_zone;
    return 0;
  }
  char key[300]; /* the mode, then the name */
  if (strlen(name) > 256)
    return bad_zone(err, name);
  snprintf(key, sizeof key, "%c%s", numeric ? 'n' : 'p', name);
  pthread_mutex_lock(&cache_mu);
  for (int i = 0; i < n_cache; i++)
    if (!strcmp(cache[i].key, key)) {
      *out = cache[i].zone;
      pthread_mutex_unlock(&cache_mu);
      return 0;
    }
  pthread_mutex_unlock(&cache_mu);

  bool out_of_range = false;
  lm_tz *z = numeric ? numeric_zone(name, &out_of_range) : NULL;
  if (!numeric && strlen(name) < 64) {
    /* AT TIME ZONE, timezone(), date_trunc(): an abbreviation first, as
     * PostgreSQL's timestamp_zone (SET TIME ZONE takes none) */
    char low[64];
    size_t k = 0;
    for (; name[k]; k++)
      low[k] = (char)tolower((unsigned char)name[k]);
    low[k] = '\0';
    const tz_abbrev *ab = find_abbrev(low);
    if (ab && ab->zone)
      return lookup(ab->zone, false, out, err);
    if (ab && (z = calloc(1, sizeof *z)) != NULL) {
      for (k = 0; low[k]; k++)
        low[k] = (char)toupper((unsigned char)low[k]);
      if (!(z->name = strdup(low))) {
        free(z);
        return lm_err(err, LM_ERR_NOMEM, "out of memory");
      }
      z->has_rule = true;
      z->std_off = ab->off;
      snprintf(z->std_abbr, sizeof z->std_abbr, "%.12s", low);
    }
  }
  if (out_of_range) {
    bad_zone(err, name);
    return lm_err_detail(err, "UTC timezone offset is out of range.");
  }
  if (!z && safe_name(name)) {
    const char *dir = getenv("TZDIR");
    if (!dir || !*dir)
      dir = "/usr/share/zoneinfo";
    char canon[512], path[1024];
    if (find_file(dir, name, canon, sizeof canon)) {
      snprintf(path, sizeof path, "%s/%s", dir, canon);
      size_t len = 0;
      uint8_t *data = slurp(path, &len);
      lm_error e2;
      if (data && lm_tzif_parse(data, len, canon, &z, &e2) != 0)
        z = NULL;
      free(data);
    }
  }
  if (!z) {
    lm_error e2;
    size_t n = strlen(name);
    /* PostgreSQL upper-cases the name before reading it as a TZ string */
    if (n < 256 && lm_tz_parse_posix(name, n, name, &z, &e2) == 0) {
      for (char *q = z->std_abbr; *q; q++)
        *q = (char)toupper((unsigned char)*q);
      for (char *q = z->dst_abbr; *q; q++)
        *q = (char)toupper((unsigned char)*q);
      for (char *q = z->name; *q; q++)
        *q = (char)toupper((unsigned char)*q);
    } else {
      z = NULL;
    }
  }
  if (!z)
    return bad_zone(err, name);
  char *kc = strdup(key);
  if (!kc) {
    lm_tz_free(z);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  pthread_mutex_lock(&cache_mu);
  for (int i = 0; i < n_cache; i++) /* raced with another thread */
    if (!strcmp(cache[i].key, key)) {
      *out = cache[i].zone;
      pthread_mutex_unlock(&cache_mu);
      free(kc);
      lm_tz_free(z);
      return 0;
    }
  if (n_cache >= TZ_CACHE_MAX) {
    pthread_mutex_unlock(&cache_mu);
    free(kc);
    lm_tz_free(z);
    return lm_err(err, LM_ERR_LIMIT, "too many distinct time zones (%d)",
                  TZ_CACHE_MAX);
  }
  cache[n_cache].key = kc;
  cache[n_cache].zone = z;
  n_cache++;
  pthread_mutex_unlock(&cache_mu);
  *out = z;
  return 0;
}

/* ------------------------------------------------------- TIMESTAMPTZ text */

/* PostgreSQL 15's default time zone abbreviations (share/timezonesets/
 * Default, the `timezone_abbreviations = 'Default'` set), sorted: a fixed
 * offset in seconds east, or (zone != NULL) a dynamic abbreviation whose
 * offset is that zone's at the time read. */

static const tz_abbrev ABBREVS[] = {
    {"acdt", 37800, NULL},
    {"acsst", 37800, NULL},
    {"acst", 34200, NULL},
    {"act", -18000, NULL},
    {"acwst", 31500, NULL},
    {"adt", -10800, NULL},
    {"aedt", 39600, NULL},
    {"aesst", 39600, NULL},
    {"aest", 36000, NULL},
    {"aft", 16200, NULL},
    {"akdt", -28800, NULL},
    {"akst", -32400, NULL},
    {"almst", 25200, NULL},
    {"almt", 21600, NULL},
    {"amst", 0, "Asia/Yerevan"},
    {"amt", -14400, NULL},
    {"anast", 0, "Asia/Anadyr"},
    {"anat", 0, "Asia/Anadyr"},
    {"arst", 0, "America/Argentina/Buenos_Aires"},
    {"art", 0, "America/Argentina/Buenos_Aires"},
    {"ast", -14400, NULL},
    {"awsst", 32400, NULL},
    {"awst", 28800, NULL},
    {"azost", 0, NULL},
    {"azot", -3600, NULL},
    {"azst", 0, "Asia/Baku"},
    {"azt", 0, "Asia/Baku"},
    {"bdst", 7200, NULL},
    {"bdt", 21600, NULL},
    {"bnt", 28800, NULL},
    {"bort", 28800, NULL},
    {"bot", -14400, NULL},
    {"bra", -10800, NULL},
    {"brst", -7200, NULL},
    {"brt", -10800, NULL},
    {"bst", 3600, NULL},
    {"btt", 21600, NULL},
    {"cadt", 37800, NULL},
    {"cast", 34200, NULL},
    {"cct", 28800, NULL},
    {"cdt", -18000, NULL},
    {"cest", 7200, NULL},
    {"cet", 3600, NULL},
    {"cetdst", 7200, NULL},
    {"chadt", 49500, NULL},
    {"chast", 45900, NULL},
    {"chut", 36000, NULL},
    {"ckt", 0, "Pacific/Rarotonga"},
    {"clst", -10800, NULL},
    {"clt", 0, "America/Santiago"},
    {"cot", -18000, NULL},
    {"cst", -21600, NULL},
    {"cxt", 25200, NULL},
    {"davt", 0, "Antarctica/Davis"},
    {"ddut", 36000, NULL},
    {"easst", 0, "Pacific/Easter"},
    {"east", 0, "Pacific/Easter"},
    {"eat", 10800, NULL},
    {"edt", -14400, NULL},
    {"eest", 10800, NULL},
    {"eet", 7200, NULL},
    {"eetdst", 10800, NULL},
    {"egst", 0, NULL},
    {"egt", -3600, NULL},
    {"est", -18000, NULL},
    {"fet", 10800, NULL},
    {"fjst", 46800, NULL},
    {"fjt", 43200, NULL},
    {"fkst", 0, "Atlantic/Stanley"},
    {"fkt", 0, "Atlantic/Stanley"},
    {"fnst", -3600, NULL},
    {"fnt", -7200, NULL},
    {"galt", -21600, NULL},
    {"gamt", -32400, NULL},
    {"gest", 0, "Asia/Tbilisi"},
    {"get", 0, "Asia/Tbilisi"},
    {"gft", -10800, NULL},
    {"gilt", 43200, NULL},
    {"gmt", 0, NULL},
    {"gyt", 0, "America/Guyana"},
    {"hkt", 28800, NULL},
    {"hst", -36000, NULL},
    {"ict", 25200, NULL},
    {"idt", 10800, NULL},
    {"iot", 0, "Indian/Chagos"},
    {"irkst", 0, "Asia/Irkutsk"},
    {"irkt", 0, "Asia/Irkutsk"},
    {"irt", 12600, NULL},
    {"ist", 7200, NULL},
    {"jayt", 32400, NULL},
    {"jst", 32400, NULL},
    {"kdt", 36000, NULL},
    {"kgst", 21600, NULL},
    {"kgt", 0, "Asia/Bishkek"},
    {"kost", 0, "Pacific/Kosrae"},
    {"krast", 0, "Asia/Krasnoyarsk"},
    {"krat", 0, "Asia/Krasnoyarsk"},
    {"kst", 32400, NULL},
    {"lhdt", 0, "Australia/Lord_Howe"},
    {"lhst", 37800, NULL},
    {"ligt", 36000, NULL},
    {"lint", 0, "Pacific/Kiritimati"},
    {"lkt", 0, "Asia/Colombo"},
    {"magst", 0, "Asia/Magadan"},
    {"magt", 0, "Asia/Magadan"},
    {"mart", -34200, NULL},
    {"mawt", 0, "Antarctica/Mawson"},
    {"mdt", -21600, NULL},
    {"mest", 7200, NULL},
    {"mesz", 7200, NULL},
    {"met", 3600, NULL},
    {"metdst", 7200, NULL},
    {"mez", 3600, NULL},
    {"mht", 43200, NULL},
    {"mmt", 23400, NULL},
    {"mpt", 36000, NULL},
    {"msd", 14400, NULL},
    {"msk", 0, "Europe/Moscow"},
    {"mst", -25200, NULL},
    {"must", 18000, NULL},
    {"mut", 14400, NULL},
    {"mvt", 18000, NULL},
    {"myt", 28800, NULL},
    {"ndt", -9000, NULL},
    {"nft", -12600, NULL},
    {"novst", 0, "Asia/Novosibirsk"},
    {"novt", 0, "Asia/Novosibirsk"},
    {"npt", 20700, NULL},
    {"nst", -12600, NULL},
    {"nut", 0, "Pacific/Niue"},
    {"nzdt", 46800, NULL},
    {"nzst", 43200, NULL},
    {"nzt", 43200, NULL},
    {"omsst", 0, "Asia/Omsk"},
    {"omst", 0, "Asia/Omsk"},
    {"pdt", -25200, NULL},
    {"pet", -18000, NULL},
    {"petst", 0, "Asia/Kamchatka"},
    {"pett", 0, "Asia/Kamchatka"},
    {"pgt", 36000, NULL},
    {"pht", 28800, NULL},
    {"pkst", 21600, NULL},
    {"pkt", 18000, NULL},
    {"pmdt", -7200, NULL},
    {"pmst", -10800, NULL},
    {"pont", 39600, NULL},
    {"pst", -28800, NULL},
    {"pwt", 32400, NULL},
    {"pyst", -10800, NULL},
    {"pyt", 0, "America/Asuncion"},
    {"ret", 14400, NULL},
    {"sadt", 37800, NULL},
    {"sast", 7200, NULL},
    {"sct", 14400, NULL},
    {"sgt", 0, "Asia/Singapore"},
    {"taht", -36000, NULL},
    {"tft", 18000, NULL},
    {"tjt", 18000, NULL},
    {"tkt", 0, "Pacific/Fakaofo"},
    {"tmt", 0, "Asia/Ashgabat"},
    {"tot", 46800, NULL},
    {"trut", 36000, NULL},
    {"tvt", 43200, NULL},
    {"uct", 0, NULL},
    {"ulast", 32400, NULL},
    {"ulat", 0, "Asia/Ulaanbaatar"},
    {"ut", 0, NULL},
    {"utc", 0, NULL},
    {"uyst", -7200, NULL},
    {"uyt", -10800, NULL},
    {"uzst", 21600, NULL},
    {"uzt", 18000, NULL},
    {"vet", 0, "America/Caracas"},
    {"vlast", 0, "Asia/Vladivostok"},
    {"vlat", 0, "Asia/Vladivostok"},
    {"volt", 0, "Europe/Volgograd"},
    {"vut", 39600, NULL},
    {"wadt", 28800, NULL},
    {"wakt", 43200, NULL},
    {"wast", 25200, NULL},
    {"wat", 3600, NULL},
    {"wdt", 32400, NULL},
    {"wet", 0, NULL},
    {"wetdst", 3600, NULL},
    {"wft", 43200, NULL},
    {"wgst", -7200, NULL},
    {"wgt", -10800, NULL},
    {"xjt", 21600, NULL},
    {"yakst", 0, "Asia/Yakutsk"},
    {"yakt", 0, "Asia/Yakutsk"},
    {"yapt", 36000, NULL},
    {"yekst", 21600, NULL},
    {"yekt", 0, "Asia/Yekaterinburg"},
    {"z", 0, NULL},
    {"zulu", 0, NULL},
};

static int abbrev_cmp(const void *k, const void *e) {
  return strcmp((const char *)k, ((const tz_abbrev *)e)->name);
}

static int abbrev_sort(const void *a, const void *b) {
  return strcmp(((const tz_abbrev *)a)->name, ((const tz_abbrev *)b)->name);
}

/* PostgreSQL's own abbreviation file, read once per process when it is
 * installed (docs/timezones.md): `NAME OFFSET [D]` or `NAME ZONE` per
 * line, '#' comments; @INCLUDE and @OVERRIDE lines are not followed (the
 * Default set has none). NULL (then ABBREVS) when absent or unreadable. */
static tz_abbrev *file_abbrevs;
static size_t n_file_abbrevs;
static pthread_once_t abbrev_once = PTHREAD_ONCE_INIT;

static void load_abbrevs(void) {
  const char *path = getenv("LM_PG_TIMEZONESETS");
  if (!path || !*path)
    path = "/usr/share/postgresql/15/timezonesets/Default";
  size_t len = 0;
  uint8_t *data = slurp(path, &len);
  if (!data)
    return;
  size_t cap = 1024, n = 0;
  tz_abbrev *v = malloc(cap * sizeof *v);
  bool bad = !v;
  char *text = (char *)data;
  for (size_t i = 0; i < len && !bad;) {
    size_t e = i;
    while (e < len && text[e] != '\n')
      e++;
    char line[512];
    size_t ll = e - i < sizeof line - 1 ? e - i : sizeof line - 1;
    memcpy(line, text + i, ll);
    line[ll] = '\0';
    i = e + 1;
    char *hash = strchr(line, '#');
    if (hash)
      *hash = '\0';
    char *save = NULL, *name = strtok_r(line, " \t\r", &save);
    char *what = name ? strtok_r(NULL, " \t\r", &save) : NULL;
    if (!name || !what || name[0] == '@')
      continue;
    if (n == cap) {
      tz_abbrev *g = realloc(v, 2 * cap * sizeof *v);
      if (!g) {
        bad = true;
        break;
      }
      v = g, cap *= 2;
    }
    for (char *q = name; *q; q++)
      *q = (char)tolower((unsigned char)*q);
    tz_abbrev a = {strdup(name), 0, NULL};
    if (isdigit((unsigned char)what[0]) || what[0] == '+' || what[0] == '-')
      a.off = (int32_t)strtol(what, NULL, 10);
    else
      a.zone = strdup(what);
    if (!a.name || (!a.zone && !isdigit((unsigned char)what[0]) &&
                    what[0] != '+' && what[0] != '-')) {
      bad = true;
      break;
    }
    v[n++] = a;
  }
  free(data);
  if (bad || n == 0) { /* keep the built-in table (the strings leak once) */
    free(v);
    return;
  }
  qsort(v, n, sizeof *v, abbrev_sort);
  file_abbrevs = v;
  n_file_abbrevs = n;
}

/* The abbreviation `name` (lower case) of the set in force, or NULL. */
static const tz_abbrev *find_abbrev(const char *name) {
  pthread_once(&abbrev_once, load_abbrevs);
  if (file_abbrevs)
    return bsearch(name, file_abbrevs, n_file_abbrevs, sizeof *file_abbrevs,
                   abbrev_cmp);
  return bsearch(name, ABBREVS, sizeof ABBREVS / sizeof *ABBREVS,
                 sizeof *ABBREVS, abbrev_cmp);
}

int lm_tz_special(const lm_dt_text *f, const lm_tz *z, bool local,
                  int64_t *out_us) {
  if (!z)
    z = lm_tz_utc();
  switch (f->special) {
  case LM_DT_SPECIAL_INFINITY:
    *out_us = LM_TS_INFINITY;
    return 0;
  case LM_DT_SPECIAL_NEG_INFINITY:
    *out_us = LM_TS_NEG_INFINITY;
    return 0;
  case LM_DT_SPECIAL_EPOCH:
    *out_us = 0; /* 1970-01-01 00:00:00, UTC or wall clock alike */
    return 0;
  case LM_DT_SPECIAL_NOW: {
    int64_t now = lm_dt_now_us();
    *out_us = local ? lm_tz_to_local(z, now) : now;
    return 0;
  }
  case LM_DT_SPECIAL_TODAY:
  case LM_DT_SPECIAL_TOMORROW:
  case LM_DT_SPECIAL_YESTERDAY: {
    int64_t day = floor_div(lm_tz_to_local(z, lm_dt_now_us()), LM_US_PER_DAY);
    day += f->special == LM_DT_SPECIAL_TOMORROW    ? 1
           : f->special == LM_DT_SPECIAL_YESTERDAY ? -1
                                                   : 0;
    int64_t t = day * LM_US_PER_DAY + (f->has_time ? f->time_us : 0);
    if (local)
      *out_us = t;
    else if (f->zone == LM_DT_ZONE_OFFSET)
      *out_us = t - (int64_t)f->offset_s * LM_US_PER_SEC;
    else
      *out_us = lm_tz_from_local(z, t, NULL);
    return 0;
  }
  default:
    return LM_DT_BAD_FORMAT;
  }
}

static int resolve_zone(const lm_dt_text *f, int64_t local, const lm_tz **zone,
                        int64_t *fixed_off_s, bool *fixed);

int lm_tz_parse_timestamp(const char *s, size_t len, const lm_tz *session,
                          int64_t *out_us) {
  lm_dt_text f;
  int rc = lm_dt_parse(s, len, &f);
  if (rc)
    return rc;
  if (f.special)
    return lm_tz_special(&f, session, true, out_us);
  if (!f.has_date)
    return LM_DT_BAD_FORMAT;
  if (f.days < LM_DT_MIN_DAYS || f.days >= LM_TS_END_DAYS)
    return LM_DT_OUT_OF_RANGE;
  int64_t local = f.days * LM_US_PER_DAY + f.time_us;
  if (f.zone == LM_DT_ZONE_NAME) { /* checked, then ignored (PostgreSQL) */
    const lm_tz *z = NULL;
    int64_t off;
    bool fixed;
    if ((rc = resolve_zone(&f, local, &z, &off, &fixed)))
      return rc;
  }
  *out_us = local;
  return 0;
}

int lm_tz_parse_timestamptz(const char *s, size_t len, const lm_tz *session,
                            int64_t *out_us) {
  lm_dt_text f;
  int rc = lm_dt_parse(s, len, &f);
  if (rc)
    return rc;
  if (f.special)
    return lm_tz_special(&f, session, false, out_us);
  if (!f.has_date)
    return LM_DT_BAD_FORMAT;
  if (f.days < LM_DT_MIN_DAYS || f.days >= LM_TS_END_DAYS)
    return LM_DT_OUT_OF_RANGE;
  int64_t local = f.days * LM_US_PER_DAY + f.time_us;
  const lm_tz *zone = session;
  if (f.zone == LM_DT_ZONE_OFFSET) {
    *out_us = local - (int64_t)f.offset_s * LM_US_PER_SEC;
    return 0;
  }
  if (f.zone == LM_DT_ZONE_NAME) {
    int64_t off;
    bool fixed;
    if ((rc = resolve_zone(&f, local, &zone, &off, &fixed)))
      return rc;
    if (fixed) {
      *out_us = local - off * LM_US_PER_SEC;
      return 0;
    }
  }
  *out_us = lm_tz_from_local(zone, local, NULL);
  return 0;
}

/* The zone name of f: a fixed abbreviation (*fixed, *fixed_off_s seconds
 * east) or a zone (*zone). 0 or LM_DT_BAD_FORMAT / LM_DT_BAD_ZONE. */
static int resolve_zone(const lm_dt_text *f, int64_t local, const lm_tz **zone,
                        int64_t *fixed_off_s, bool *fixed) {
  (void)local;
  *fixed = false;
  char name[256];
  if (f->zone_len >= sizeof name)
    return f->zone_punct ? LM_DT_BAD_ZONE : LM_DT_BAD_FORMAT;
  for (size_t k = 0; k < f->zone_len; k++)
    name[k] = (char)tolower((unsigned char)f->zone_name[k]);
  name[f->zone_len] = '\0';
  /* abbreviations first, as PostgreSQL's DecodeTimezoneAbbrev */
  const tz_abbrev *ab = f->zone_punct ? NULL : find_abbrev(name);
  if (ab && !ab->zone) {
    *fixed = true;
    *fixed_off_s = ab->off;
    return 0;
  }
  lm_error e2;
  if (ab) {
    if (lm_tz_lookup_at(ab->zone, zone, &e2) != 0)
      return LM_DT_BAD_FORMAT;
  } else if (!strcmp(name, "z") || !strcmp(name, "zulu")) {
    *zone = lm_tz_utc();
  } else if (!safe_name(name) || lm_tz_lookup_at(name, zone, &e2) != 0) {
    /* PostgreSQL: an unknown all-letters word is a syntax error, a
     * name with punctuation `time zone "x" not recognized` */
    return f->zone_punct ? LM_DT_BAD_ZONE : LM_DT_BAD_FORMAT;
  }
  return 0;
}
