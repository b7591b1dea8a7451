/* columnar/value.c — text form of values (lm_value_format and friends). */
#include "columnar/lm_columnar.h"
#include "columnar/lm_temporal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

static int put_f32(lm_buf *out, float f) {
  if (!isfinite(f))
    return put_nonfinite(out, f);
  char tmp[40];
  int first = f != 0 && fabsf(f) < FLT_MIN ? 1 : 6;
  for (int prec = first; prec <= 9; prec++) {
    snprintf(tmp, sizeof tmp, "%.*g", prec, (double)f);
    if (prec == 9 || strtof(tmp, NULL) == f)
      break;
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
  return lm_buf_append(out, tmp, (size_t)n);
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
    return put_i64(out, v->v.i);
  case LM_TYPE_FLOAT32:
    return put_f32(out, (float)v->v.f);
  case LM_TYPE_FLOAT64:
    return put_f64(out, v->v.f);
  case LM_TYPE_UTF8:
    return lm_buf_append(out, v->v.s.p,
                         v->v.s.len > 0 ? (size_t)v->v.s.len : 0);
  case LM_TYPE_TIMESTAMP: {
    char tmp[40];
    int n = lm_format_timestamp(ts_to_us(v->v.i, (lm_time_unit)v->type.unit),
                                'T', tmp);
    return lm_buf_append(out, tmp, (size_t)n);
  }
  case LM_TYPE_INTERVAL:
    return put_interval(out, v->v.i);
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
