/* columnar/value.c — text form of values (lm_value_format and friends). */
#include "columnar/lm_array_text.h"
#include "columnar/lm_columnar.h"
#include "columnar/lm_decimal.h"
#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends a signed decimal integer without printf. */
static int put_i64(lm_buf *out, int64_t v) {
  char tmp[24];
  int n = 0;
  uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    tmp[sizeof tmp - 1 - n++] = (char)('0' + a % 10);
    a /= 10;
  } while (a);
  if (v < 0)
    tmp[sizeof tmp - 1 - n++] = '-';
  return lm_buf_append(out, tmp + sizeof tmp - n, (size_t)n);
}

static int put_nonfinite(lm_buf *out, double d) {
  if (isnan(d))
    return lm_buf_puts(out, "NaN");
  return lm_buf_puts(out, d < 0 ? "-Infinity" : "Infinity");
}

static int put_f64(lm_buf *out, double d) {
  if (!isfinite(d))
    return put_nonfinite(out, d);
  /* integral values below 1e15 print exactly as integers ("%.15g" would
   * give the same text) */
  if (d > -1e15 && d < 1e15 && d == (double)(int64_t)d &&
      !(d == 0 && signbit(d)))
    return put_i64(out, (int64_t)d);
  char tmp[40];
  /* 15 significant digits are exact for normal doubles (%g drops trailing
   * zeros, so the text is already shortest when it round-trips);
   * subnormals carry fewer digits, so they search from 1 */
  int first = d != 0 && fabs(d) < DBL_MIN ? 1 : 15;
  for (int prec = first; prec <= 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*g", prec, d);
    if (prec == 17 || strtod(tmp, NULL) == d)
      break;
  }
  return lm_buf_puts(out, tmp);
}

/* PostgreSQL's float4out (extra_float_digits 1): the shortest digits that
 * read back as f, written as %f when the decimal exponent is in [-4, 6)
 * and as %e otherwise ("123456", "1.234567e+06", "0.0001", "1e-05"). */
static int put_f32(lm_buf *out, float f) {
  if (!isfinite(f))
    return put_nonfinite(out, f);
  char tmp[48];
  int prec = 1;
  for (; prec < 9; prec++) {
    snprintf(tmp, sizeof tmp, "%.*e", prec - 1, (double)f);
    if (strtof(tmp, NULL) == f)
      break;
  }
  snprintf(tmp, sizeof tmp, "%.*e", prec - 1, (double)f);
  const char *ep = strchr(tmp, 'e');
  int exp = ep ? atoi(ep + 1) : 0;
  if (exp >= -4 && exp < 6) {
    int dec = prec - 1 - exp;
    snprintf(tmp, sizeof tmp, "%.*f", dec > 0 ? dec : 0, (double)f);
  }
  return lm_buf_puts(out, tmp);
}

static int64_t ts_to_us(int64_t v, lm_time_unit unit) {
  int64_t r;
  switch (unit) {
  case LM_UNIT_SECOND:
    if (lm_mul_overflow_i64(v, LM_US_PER_SEC, &r))
      return v < 0 ? INT64_MIN : INT64_MAX;
    return r;
  case LM_UNIT_MILLI:
    if (lm_mul_overflow_i64(v, 1000, &r))
      return v < 0 ? INT64_MIN : INT64_MAX;
    return r;
  case LM_UNIT_NANO:
    return lm_floor_div(v, 1000);
  default:
    return v;
  }
}

static int put_interval(lm_buf *out, int64_t us) {
  int64_t days = us / LM_US_PER_DAY;
  int64_t rem = us % LM_US_PER_DAY;
  char tmp[64];
  int n = 0;
  if (days != 0) {
    n = snprintf(tmp, sizeof tmp, "%lld day%s", (long long)days,
                 days == 1 ? "" : "s");
    if (rem == 0)
      return lm_buf_append(out, tmp, (size_t)n);
    tmp[n++] = ' ';
  }
  uint64_t a = rem < 0 ? (uint64_t)0 - (uint64_t)rem : (uint64_t)rem;
  uint64_t secs = a / LM_US_PER_SEC, frac = a % LM_US_PER_SEC;
  n += snprintf(tmp + n, sizeof tmp - (size_t)n, "%s%02u:%02u:%02u",
                rem < 0 ? "-" : "", (unsigned)(secs / 3600),
                (unsigned)(secs / 60 % 60), (unsigned)(secs % 60));
  if (frac)
    n += snprintf(tmp + n, sizeof tmp - (size_t)n, ".%06u", (unsigned)frac);
  while (frac && tmp[n - 1] == '0') /* PostgreSQL: no trailing zeros */
    n--;
  return lm_buf_append(out, tmp, (size_t)n);
}

static int put_u64(lm_buf *out, uint64_t a) {
  char tmp[24];
  int n = 0;
  do {
    tmp[sizeof tmp - 1 - n++] = (char)('0' + a % 10);
    a /= 10;
  } while (a);
  return lm_buf_append(out, tmp + sizeof tmp - n, (size_t)n);
}

/* Shortest decimal that reads back as the same binary16 value. */
static int put_f16(lm_buf *out, double d) {
  if (!isfinite(d))
    return put_nonfinite(out, d);
  if (d == (double)(int64_t)d && !(d == 0 && signbit(d)))
    return put_i64(out, (int64_t)d); /* |d| <= 65504: integral, exact */
  uint16_t want = lm_double_to_half(d);
  char tmp[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*g", prec, d);
    if (prec == 17 || lm_double_to_half(strtod(tmp, NULL)) == want)
      break;
  }
  return lm_buf_puts(out, tmp);
}

/* DECIMAL128 (two's complement lo/hi) with `scale` digits after the point,
 * exactly: "123.45", "-0.05", "1200" (negative scale); the special values
 * (lm_decimal.h) as "NaN", "Infinity", "-Infinity". */
static int put_decimal(lm_buf *out, uint64_t lo, int64_t hi, int scale) {
  unsigned __int128 u =
      ((unsigned __int128)(uint64_t)hi << 64) | (unsigned __int128)lo;
  if (lm_dec_is_special((lm_i128)u))
    return lm_buf_puts(out, (lm_i128)u == LM_DEC_NAN ? "NaN"
                            : (lm_i128)u > 0         ? "Infinity"
                                                     : "-Infinity");
  bool neg = hi < 0;
  if (neg)
    u = ~u + 1;
  char dig[48];
  int n = 0;
  do {
    dig[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  char tmp[96];
  int k = 0;
  if (neg)
    tmp[k++] = '-';
  if (scale <= 0) {
    while (n)
      tmp[k++] = dig[--n];
    for (int z = 0; z < -scale && k < (int)sizeof tmp; z++)
      tmp[k++] = '0';
  } else {
    int ip = n - scale; /* digits before the point */
    if (ip <= 0) {
      tmp[k++] = '0';
      tmp[k++] = '.';
      for (int z = 0; z < -ip; z++)
        tmp[k++] = '0';
      while (n)
        tmp[k++] = dig[--n];
    } else {
      while (n > scale)
        tmp[k++] = dig[--n];
      tmp[k++] = '.';
      while (n)
        tmp[k++] = dig[--n];
    }
  }
  return lm_buf_append(out, tmp, (size_t)k);
}

/* Unit of a value to nanoseconds. */
static const int64_t NS_PER_UNIT[] = {1000000000, 1000000, 1000, 1};

/* HH:MM:SS[.f] of a non-negative count of nanoseconds (hours may exceed
 * 23); the fraction has as many digits as it needs, at most 9 (PostgreSQL
 * prints TIME and INTERVAL so: 12:00:00.5, not 12:00:00.500000). */
static int put_hms_ns(lm_buf *out, uint64_t ns) {
  uint64_t secs = ns / 1000000000u, frac = ns % 1000000000u;
  char tmp[64];
  int n = snprintf(tmp, sizeof tmp, "%02llu:%02u:%02u",
                   (unsigned long long)(secs / 3600),
                   (unsigned)(secs / 60 % 60), (unsigned)(secs % 60));
  if (frac % 1000)
    n += snprintf(tmp + n, sizeof tmp - (size_t)n, ".%09u", (unsigned)frac);
  else if (frac)
    n += snprintf(tmp + n, sizeof tmp - (size_t)n, ".%06u",
                  (unsigned)(frac / 1000));
  while (frac && tmp[n - 1] == '0')
    n--;
  return lm_buf_append(out, tmp, (size_t)n);
}

/* Time of day (TIME32/TIME64) in its unit. */
static int put_time(lm_buf *out, int64_t v, int unit) {
  if (v < 0) /* not a valid time of day; keep the number visible */
    return put_i64(out, v);
  return put_hms_ns(out, (uint64_t)v * (uint64_t)NS_PER_UNIT[unit & 3]);
}

/* DURATION in its unit: "[-][N day(s) ]HH:MM:SS[.f]" like INTERVAL. */
static int put_duration(lm_buf *out, int64_t v, int unit) {
  uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  uint64_t per = (uint64_t)NS_PER_UNIT[unit & 3];
  uint64_t per_day = 86400000000000ull / per;
  uint64_t days = a / per_day, rem = a % per_day;
  int rc;
  if (v < 0 && (rc = lm_buf_putc(out, '-')))
    return rc;
  if (days) {
    if ((rc = lm_buf_printf(out, "%llu day%s", (unsigned long long)days,
                            days == 1 ? "" : "s")))
      return rc;
    if (rem == 0)
      return 0;
    if ((rc = lm_buf_putc(out, ' ')))
      return rc;
  }
  return put_hms_ns(out, rem * per);
}

/* INTERVAL_MDN, PostgreSQL style (EncodeInterval): "1 year 2 mons 3 days
 * 04:05:06.789", "-1 mons -2 days", "-1 days +02:00:00"; sub-µs ns kept. */
static int put_mdn(lm_buf *out, int32_t months, int32_t days, int64_t ns) {
  int rc = 0;
  bool any = false, before = false;
  int64_t y = months / 12, mo = months % 12;
  int64_t part[3] = {y, mo, days};
  static const char *const name[3] = {"year", "mon", "day"};
  for (int k = 0; k < 3 && !rc; k++) {
    if (!part[k])
      continue;
    rc = lm_buf_printf(out, "%s%s%lld %s%s", any ? " " : "",
                       before && part[k] > 0 ? "+" : "", (long long)part[k],
                       name[k], part[k] != 1 ? "s" : "");
    before = part[k] < 0;
    any = true;
  }
  if (rc || (any && ns == 0))
    return rc;
  if (any && (rc = lm_buf_putc(out, ' ')))
    return rc;
  if ((ns < 0 || before) && (rc = lm_buf_putc(out, ns < 0 ? '-' : '+')))
    return rc;
  return put_hms_ns(out, ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns);
}

/* Bytes as PostgreSQL's bytea hex form: "\x0102ff". */
static int put_hex(lm_buf *out, const uint8_t *p, int64_t n) {
  static const char hex[] = "0123456789abcdef";
  if (lm_buf_reserve(out, (size_t)n * 2 + 2) || lm_buf_append(out, "\\x", 2))
    return LM_ERR_NOMEM;
  for (int64_t i = 0; i < n; i++) {
    char c[2] = {hex[p[i] >> 4], hex[p[i] & 15]};
    if (lm_buf_append(out, c, 2))
      return LM_ERR_NOMEM;
  }
  return 0;
}

/* A JSON string of s[0, n) (quotes, backslash and control characters
 * escaped; bytes >= 0x80 copied). */
static int put_json_string(lm_buf *out, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  if (lm_buf_putc(out, '"'))
    return LM_ERR_NOMEM;
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\')
      continue;
    if (i > run && lm_buf_append(out, s + run, i - run))
      return LM_ERR_NOMEM;
    run = i + 1;
    char e[6] = {'\\', (char)c, 0, 0, 0, 0};
    size_t k = 2;
    switch (c) {
    case '"':
    case '\\':
      break;
    case '\n':
      e[1] = 'n';
      break;
    case '\r':
      e[1] = 'r';
      break;
    case '\t':
      e[1] = 't';
      break;
    default:
      e[1] = 'u';
      e[2] = '0';
      e[3] = '0';
      e[4] = hex[c >> 4];
      e[5] = hex[c & 15];
      k = 6;
    }
    if (lm_buf_append(out, e, k))
      return LM_ERR_NOMEM;
  }
  if (n > run && lm_buf_append(out, s + run, n - run))
    return LM_ERR_NOMEM;
  return lm_buf_putc(out, '"');
}

static int format_json_rec(lm_buf *out, const lm_array *a, int64_t i);

int lm_array_format_json(lm_buf *out, const lm_array *a, int64_t i) {
  return format_json_rec(out, a, i);
}

static int format_json_rec(lm_buf *out, const lm_array *a, int64_t i) {
  if (a->type.id == LM_TYPE_NULL || lm_array_is_null(a, i))
    return lm_buf_append(out, "null", 4);
  int rc;
  switch (a->type.id) {
  case LM_TYPE_DICTIONARY:
    return format_json_rec(out, a->dictionary, lm_array_dict_index(a, i));
  case LM_TYPE_LIST:
  case LM_TYPE_LARGE_LIST: {
    int64_t s, e;
    lm_array_list_range(a, i, &s, &e);
    if ((rc = lm_buf_putc(out, '[')))
      return rc;
    for (int64_t k = s; k < e; k++) {
      if ((k > s && (rc = lm_buf_append(out, ", ", 2))) ||
          (rc = format_json_rec(out, a->children[0], k)))
        return rc;
    }
    return lm_buf_putc(out, ']');
  }
  case LM_TYPE_STRUCT: {
    if ((rc = lm_buf_putc(out, '{')))
      return rc;
    for (int c = 0; c < a->n_children; c++) {
      const char *name = a->type.node->children[c].name;
      if ((c && (rc = lm_buf_append(out, ", ", 2))) ||
          (rc = put_json_string(out, name, strlen(name))) ||
          (rc = lm_buf_append(out, ": ", 2)) ||
          (rc = format_json_rec(out, a->children[c], a->offset + i)))
        return rc;
    }
    return lm_buf_putc(out, '}');
  }
  case LM_TYPE_BOOL:
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
  case LM_TYPE_INT32:
  case LM_TYPE_INT64:
  case LM_TYPE_UINT8:
  case LM_TYPE_UINT16:
  case LM_TYPE_UINT32:
  case LM_TYPE_UINT64:
    return lm_array_format_value(out, a, i, "null");
  case LM_TYPE_DECIMAL128: { /* NaN, ±Infinity: strings, as PostgreSQL */
    lm_i128 d = lm_dec_get(a, i);
    if (lm_dec_is_special(d))
      return d == LM_DEC_NAN ? lm_buf_append(out, "\"NaN\"", 5)
             : d > 0         ? lm_buf_append(out, "\"Infinity\"", 10)
                             : lm_buf_append(out, "\"-Infinity\"", 11);
    return lm_array_format_value(out, a, i, "null");
  }
  case LM_TYPE_FLOAT16:
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64: {
    double d = lm_array_get_f64(a, i);
    if (isnan(d)) /* as PostgreSQL's to_json: a string */
      return lm_buf_append(out, "\"NaN\"", 5);
    if (isinf(d))
      return d > 0 ? lm_buf_append(out, "\"Infinity\"", 10)
                   : lm_buf_append(out, "\"-Infinity\"", 11);
    return lm_array_format_value(out, a, i, "null");
  }
  default: {
    lm_buf tmp;
    lm_buf_init(&tmp);
    rc = lm_array_format_value(&tmp, a, i, "");
    if (!rc)
      rc = put_json_string(out, tmp.data ? tmp.data : "", tmp.len);
    lm_buf_free(&tmp);
    return rc;
  }
  }
}

int lm_value_format(lm_buf *out, const lm_value *v, const char *null_text) {
  if (v->is_null || v->type.id == LM_TYPE_NULL)
    return null_text ? lm_buf_puts(out, null_text) : lm_buf_append(out, "", 0);
  switch (v->type.id) {
  case LM_TYPE_BOOL:
    return lm_buf_puts(out, v->v.b ? "true" : "false");
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
  case LM_TYPE_INT32:
  case LM_TYPE_INT64:
  case LM_TYPE_UINT8:
  case LM_TYPE_UINT16:
  case LM_TYPE_UINT32:
    return put_i64(out, v->v.i);
  case LM_TYPE_UINT64:
    return put_u64(out, (uint64_t)v->v.i);
  case LM_TYPE_FLOAT16:
    return put_f16(out, v->v.f);
  case LM_TYPE_FLOAT32:
    return put_f32(out, (float)v->v.f);
  case LM_TYPE_FLOAT64:
    return put_f64(out, v->v.f);
  case LM_TYPE_UTF8:
  case LM_TYPE_LARGE_UTF8:
    return lm_buf_append(out, v->v.s.p,
                         v->v.s.len > 0 ? (size_t)v->v.s.len : 0);
  case LM_TYPE_BINARY:
  case LM_TYPE_LARGE_BINARY:
  case LM_TYPE_FIXED_SIZE_BINARY:
    return put_hex(out, (const uint8_t *)v->v.s.p, v->v.s.len);
  case LM_TYPE_TIMESTAMP: {
    char tmp[64];
    if (lm_type_is_tstz(v->type)) { /* in the session zone (lm_tz.h) */
      int k = lm_tz_format(v->v.i, lm_tz_session(), tmp);
      return lm_buf_append(out, tmp, (size_t)k);
    }
    int n = lm_format_timestamp(ts_to_us(v->v.i, (lm_time_unit)v->type.unit),
                                'T', tmp);
    return lm_buf_append(out, tmp, (size_t)n);
  }
  case LM_TYPE_INTERVAL:
    return put_interval(out, v->v.i);
  case LM_TYPE_DECIMAL128:
    return put_decimal(out, v->v.d128.lo, v->v.d128.hi, v->type.scale);
  case LM_TYPE_DATE32: {
    char tmp[32];
    int n = lm_format_date(v->v.i, tmp); /* "0044-03-15 BC" as PostgreSQL */
    return lm_buf_append(out, tmp, (size_t)n);
  }
  case LM_TYPE_TIME32:
  case LM_TYPE_TIME64:
    return put_time(out, v->v.i, v->type.unit);
  case LM_TYPE_DURATION:
    return put_duration(out, v->v.i, v->type.unit);
  case LM_TYPE_INTERVAL_MDN:
    return put_mdn(out, v->v.mdn.months, v->v.mdn.days, v->v.mdn.ns);
  case LM_TYPE_LIST: /* PostgreSQL's array text: {1,2,NULL} */
  case LM_TYPE_LARGE_LIST:
    return v->v.ref.a ? lm_list_format_pg(out, v->v.ref.a, v->v.ref.i)
                      : lm_buf_append(out, "", 0);
  case LM_TYPE_STRUCT:
    return v->v.ref.a ? format_json_rec(out, v->v.ref.a, v->v.ref.i)
                      : lm_buf_append(out, "", 0);
  default:
    return null_text ? lm_buf_puts(out, null_text) : lm_buf_append(out, "", 0);
  }
}

int lm_array_format_value(lm_buf *out, const lm_array *a, int64_t i,
                          const char *null_text) {
  lm_value v;
  lm_array_get_value(a, i, &v);
  return lm_value_format(out, &v, null_text);
}
