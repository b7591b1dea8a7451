/*
 * SQL INTERVAL with months (INTERVAL_MDN) in expressions (expr_mdn.h).
 */
#include "exec/expr_mdn.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "columnar/lm_interval.h"
#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"
#include "exec/expr_num.h"
#include "exec/lm_strfn.h"

static bool is_iv(lm_type_id t) {
  return t == LM_TYPE_INTERVAL || t == LM_TYPE_INTERVAL_MDN;
}

bool lm_mdn_cast_handles(lm_type_id from, lm_type to) {
  if (from == LM_TYPE_INTERVAL_MDN)
    return to.id == LM_TYPE_UTF8 || to.id == LM_TYPE_INTERVAL ||
           to.id == LM_TYPE_INTERVAL_MDN;
  return to.id == LM_TYPE_INTERVAL_MDN &&
         (from == LM_TYPE_UTF8 || from == LM_TYPE_INTERVAL);
}

static int oom(lm_error *err) {
  return lm_err(err, LM_ERR_NOMEM, "out of memory");
}

/* v read from a µs INTERVAL constant: PostgreSQL's days as written
 * ('36 hours' is {0, 0, 36 h}, not {0, 1, 12 h}) when e casts an interval
 * literal (lm_plan.h iv_split) or a text literal cast to INTERVAL. */
static void written_days(const lm_bexpr *e, lm_iv *v) {
  const lm_bexpr *x = e && e->n_args == 1 ? e->args[0] : NULL;
  if (x && x->kind == LM_BX_LITERAL && x->iv_split) {
    v->us += ((int64_t)v->days - x->iv_days) * INT64_C(86400000000);
    v->days = x->iv_days;
    return;
  }
  if (x && x->kind == LM_BX_CAST && x->n_args == 1 &&
      x->args[0]->kind == LM_BX_LITERAL && !x->args[0]->lit.is_null &&
      x->args[0]->type.id == LM_TYPE_UTF8 && x->args[0]->lit.v.s.p) {
    lm_iv w;
    const lm_value *t = &x->args[0]->lit;
    if (!lm_iv_parse(t->v.s.p, (size_t)t->v.s.len, NULL, 0, &w) &&
        w.months == 0 && lm_iv_span(&w) == lm_iv_span(v))
      *v = w;
  }
}

int lm_mdn_cast(const lm_bexpr *e, const lm_array *a, lm_type to,
                lm_array **out, lm_error *err) {
  int64_t n = a->length;
  lm_type_id from = a->type.id;
  lm_builder b;
  if (to.id == LM_TYPE_UTF8) {
    if (lm_builder_init(&b, to, n))
      return oom(err);
    for (int64_t i = 0; i < n; i++) {
      if (lm_array_is_null(a, i)) {
        lm_builder_append_null(&b);
        continue;
      }
      lm_iv v = lm_iv_at(a, i);
      char buf[128];
      int k = lm_iv_format(&v, buf);
      lm_builder_append_str(&b, buf, k);
    }
    return lm_out_finish(&b, out, err);
  }
  if (lm_out_fixed(&b, to, n))
    return oom(err);
  int rc = 0;
  for (int64_t i = 0; i < n && !rc; i++) {
    if (lm_array_is_null(a, i)) {
      lm_out_null(&b, i);
      if (to.id == LM_TYPE_INTERVAL)
        ((int64_t *)b.values)[i] = 0;
      else
        memset(b.values + i * 16, 0, 16);
      continue;
    }
    lm_iv v;
    if (from == LM_TYPE_UTF8) {
      int32_t len;
      const char *p = lm_array_str(a, i, &len);
      int prc = lm_iv_parse(p, (size_t)len, NULL, 0, &v);
      if (prc) {
        int cut = len > 60 ? 60 : len;
        rc = prc == -2 ? lm_fn_error(err, e, "22015",
                                     "interval field value out of range: "
                                     "\"%.*s\"",
                                     cut, p)
                       : lm_fn_error(err, e, "22007",
                                     "invalid input syntax for type "
                                     "interval: \"%.*s\"",
                                     cut, p);
        break;
      }
    } else {
      v = lm_iv_at(a, i);
      if (from == LM_TYPE_INTERVAL && to.id == LM_TYPE_INTERVAL_MDN)
        written_days(e, &v);
    }
    if (to.id == LM_TYPE_INTERVAL) {
      int64_t us;
      if (v.months != 0) {
        rc = lm_fn_error(err, e, "0A000",
                         "an interval with months cannot be used as a "
                         "fixed duration (a count of microseconds) here");
        break;
      }
      if (__builtin_mul_overflow((int64_t)v.days, INT64_C(86400000000), &us) ||
          __builtin_add_overflow(us, v.us, &us)) {
        rc = lm_fn_error(err, e, "22008", "interval out of range");
        break;
      }
      ((int64_t *)b.values)[i] = us;
    } else if (lm_iv_store(b.values + i * 16, &v)) {
      rc = lm_fn_error(err, e, "22008", "interval out of range");
    }
  }
  if (rc) {
    lm_builder_free(&b);
    return rc;
  }
  return lm_out_finish(&b, out, err);
}

bool lm_mdn_arith_handles(const lm_bexpr *e, const lm_array *x,
                          const lm_array *y) {
  if (e->op < LM_OP_ADD || e->op > LM_OP_DIV)
    return false;
  return e->type.id == LM_TYPE_INTERVAL_MDN ||
         x->type.id == LM_TYPE_INTERVAL_MDN ||
         y->type.id == LM_TYPE_INTERVAL_MDN;
}

static double num_at(const lm_array *a, int64_t i) {
  if (a->type.id == LM_TYPE_FLOAT64 || a->type.id == LM_TYPE_FLOAT32)
    return lm_array_get_f64(a, i);
  return (double)lm_array_get_i64(a, i);
}

int lm_mdn_arith(const lm_bexpr *e, const lm_array *x, const lm_array *y,
                 lm_array **out, lm_error *err) {
  int64_t n = x->length;
  lm_builder b;
  if (lm_out_fixed(&b, e->type, n))
    return oom(err);
  bool to_ts = e->type.id == LM_TYPE_TIMESTAMP;
  const lm_tz *zone = lm_type_is_tstz(e->type) ? lm_tz_session() : NULL;
  int rc = 0;
  for (int64_t i = 0; i < n && !rc; i++) {
    if (lm_array_is_null(x, i) || lm_array_is_null(y, i)) {
      lm_out_null(&b, i);
      if (to_ts)
        ((int64_t *)b.values)[i] = 0;
      else
        memset(b.values + i * 16, 0, 16);
      continue;
    }
    if (to_ts) { /* timestamp ± interval, interval + timestamp */
      bool ts_left = x->type.id == LM_TYPE_TIMESTAMP;
      int64_t ts = lm_array_i64(ts_left ? x : y)[i];
      lm_iv v = lm_iv_at(ts_left ? y : x, i);
      if (lm_ts_plus_iv(ts, &v, e->op == LM_OP_SUB ? -1 : 1, zone,
                        (int64_t *)b.values + i))
        rc = lm_fn_error(err, e, "22008", "timestamp out of range");
      continue;
    }
    lm_iv r;
    int k;
    if (is_iv(x->type.id) && is_iv(y->type.id)) {
      lm_iv p = lm_iv_at(x, i), q = lm_iv_at(y, i);
      k = lm_iv_add(&p, &q, e->op == LM_OP_SUB ? -1 : 1, &r);
    } else {
      bool iv_left = is_iv(x->type.id);
      lm_iv p = lm_iv_at(iv_left ? x : y, i);
      k = lm_iv_mul(&p, num_at(iv_left ? y : x, i), e->op == LM_OP_DIV, &r);
    }
    if (!k && lm_iv_store(b.values + i * 16, &r))
      k = -1;
    if (k)
      rc = k == -2 ? lm_fn_error(err, e, "22012", "division by zero")
                   : lm_fn_error(err, e, "22008", "interval out of range");
  }
  if (rc) {
    lm_builder_free(&b);
    return rc;
  }
  return lm_out_finish(&b, out, err);
}

int lm_mdn_neg(const lm_bexpr *e, const lm_array *x, lm_array **out,
               lm_error *err) {
  int64_t n = x->length;
  lm_builder b;
  if (lm_out_fixed(&b, e->type, n))
    return oom(err);
  for (int64_t i = 0; i < n; i++) {
    if (x->type.id == LM_TYPE_NULL || lm_array_is_null(x, i)) {
      lm_out_null(&b, i);
      memset(b.values + i * 16, 0, 16);
      continue;
    }
    lm_iv v = lm_iv_at(x, i), z = {0, 0, 0}, r;
    if (lm_iv_add(&z, &v, -1, &r) || lm_iv_store(b.values + i * 16, &r)) {
      lm_builder_free(&b);
      return lm_fn_error(err, e, "22008", "interval out of range");
    }
  }
  return lm_out_finish(&b, out, err);
}

int lm_mdn_cmp(const lm_array *x, int64_t i, const lm_array *y, int64_t j) {
  lm_iv p = lm_iv_at(x, i), q = lm_iv_at(y, j);
  __int128 a = lm_iv_span(&p), c = lm_iv_span(&q);
  return a < c ? -1 : a > c;
}

bool lm_mdn_fn_handles(lm_func_id fn) {
  return fn == LM_FN_MAKE_INTERVAL || fn == LM_FN_JUSTIFY_DAYS ||
         fn == LM_FN_JUSTIFY_HOURS || fn == LM_FN_JUSTIFY_INTERVAL ||
         fn == LM_FN_INTERVAL_PART || fn == LM_FN_AGE || fn == LM_FN_IV_FIELD ||
         fn == LM_FN_IV_MAKE;
}

/* Row i of an integer or DECIMAL(38,0) array as an int128. */
static __int128 wide_at(const lm_array *a, int64_t i) {
  if (a->type.id != LM_TYPE_DECIMAL128)
    return lm_array_get_i64(a, i);
  __int128 v;
  memcpy(&v, a->values->data + (size_t)(a->offset + i) * 16, 16);
  return v;
}

static void append_iv(lm_builder *b, const lm_iv *v) {
  lm_value x;
  memset(&x, 0, sizeof x);
  x.type = lm_type_make(LM_TYPE_INTERVAL_MDN);
  x.v.mdn.months = v->months;
  x.v.mdn.days = v->days;
  x.v.mdn.ns = v->us * 1000;
  lm_builder_append_value(b, &x);
}

static bool us_fits_ns(int64_t us) {
  return us <= INT64_MAX / 1000 && us >= INT64_MIN / 1000;
}

/* PostgreSQL's interval_part_common (date_part's float8) */
static double iv_part(const char *u, const lm_iv *v) {
  int64_t year = v->months / 12, mon = v->months % 12;
  int64_t t = v->us;
  int64_t hour = t / LM_US_PER_HOUR;
  t -= hour * LM_US_PER_HOUR;
  int64_t min = t / LM_US_PER_MIN;
  t -= min * LM_US_PER_MIN; /* seconds and fraction, in µs */
  if (!strncasecmp(u, "microsecond", 11))
    return (double)t;
  if (!strncasecmp(u, "millisecond", 11))
    return (double)t / 1e3;
  if (!strncasecmp(u, "second", 6))
    return (double)t / 1e6;
  if (!strncasecmp(u, "minute", 6))
    return (double)min;
  if (!strncasecmp(u, "hour", 4))
    return (double)hour;
  if (!strncasecmp(u, "day", 3))
    return (double)v->days;
  if (!strncasecmp(u, "month", 5))
    return (double)mon;
  if (!strncasecmp(u, "quarter", 7))
    return (double)(mon / 3 + 1);
  if (!strncasecmp(u, "year", 4))
    return (double)year;
  if (!strncasecmp(u, "decade", 6))
    return (double)(year / 10);
  if (!strncasecmp(u, "centur", 6))
    return (double)(year / 100);
  if (!strncasecmp(u, "millenn", 7))
    return (double)(year / 1000);
  if (!strncasecmp(u, "epoch", 5)) {
    double d = 365.25 * (double)(v->months / 12) +
               30.0 * (double)(v->months % 12) + (double)v->days;
    return (double)v->us / 1e6 + d * 86400.0;
  }
  return 0;
}

int lm_mdn_fn_row(const lm_bexpr *e, lm_array *const *a, int64_t i,
                  lm_builder *b, lm_error *err) {
  lm_iv r;
  switch (e->fn) {
  case LM_FN_MAKE_INTERVAL: {
    int64_t v[6];
    for (int k = 0; k < 6; k++)
      v[k] = lm_array_get_i64(a[k], i);
    double sec = lm_array_get_f64(a[6], i);
    __int128 m = (__int128)v[0] * 12 + v[1], d = (__int128)v[2] * 7 + v[3];
    __int128 t = ((__int128)v[4] * 60 + v[5]) * LM_US_PER_MIN;
    double su = rint(sec * 1e6);
    if (isnan(sec) || !(su > -9.2e18 && su < 9.2e18) || m > INT32_MAX ||
        m < INT32_MIN || d > INT32_MAX || d < INT32_MIN)
      return lm_fn_error(err, e, "22008", "interval out of range");
    t += (__int128)su;
    if (t > INT64_MAX / 1000 || t < INT64_MIN / 1000)
      return lm_fn_error(err, e, "22008", "interval out of range");
    r.months = (int32_t)m;
    r.days = (int32_t)d;
    r.us = (int64_t)t;
    break;
  }
  case LM_FN_JUSTIFY_DAYS:
  case LM_FN_JUSTIFY_HOURS:
  case LM_FN_JUSTIFY_INTERVAL: {
    lm_iv v = lm_iv_at(a[0], i);
    if (lm_iv_justify(&v, e->fn != LM_FN_JUSTIFY_DAYS,
                      e->fn != LM_FN_JUSTIFY_HOURS, &r))
      return lm_fn_error(err, e, "22008", "interval out of range");
    break;
  }
  case LM_FN_INTERVAL_PART: {
    lm_iv v = lm_iv_at(a[1], i);
    lm_builder_append_double(b, iv_part(e->args[0]->lit.v.s.p, &v));
    return 0;
  }
  case LM_FN_IV_FIELD: { /* sum(interval)'s fields (mdn_bind.c) */
    lm_iv v = lm_iv_at(a[0], i);
    int64_t k = lm_array_get_i64(a[1], i);
    lm_builder_append_int(b, k == 0 ? v.months : k == 1 ? v.days : v.us);
    return 0;
  }
  case LM_FN_IV_MAKE: { /* their sums, as interval_pl; avg: / count */
    __int128 m = wide_at(a[0], i), d = wide_at(a[1], i), t = wide_at(a[2], i);
    if (m > INT32_MAX || m < INT32_MIN || d > INT32_MAX || d < INT32_MIN ||
        t > INT64_MAX / 1000 || t < INT64_MIN / 1000)
      return lm_fn_error(err, e, "22008", "interval out of range");
    r.months = (int32_t)m;
    r.days = (int32_t)d;
    r.us = (int64_t)t;
    if (e->n_args == 4) { /* interval_avg: interval_div(sum, count) */
      lm_iv q = r;
      int64_t n = lm_array_get_i64(a[3], i);
      if (n == 0) {
        lm_builder_append_null(b);
        return 0;
      }
      if (lm_iv_mul(&q, (double)n, true, &r))
        return lm_fn_error(err, e, "22008", "interval out of range");
    }
    break;
  }
  case LM_FN_AGE: /* of TIMESTAMPs: a TIMESTAMPTZ is cast to local time */
    if (lm_iv_age(lm_array_get_i64(a[0], i), lm_array_get_i64(a[1], i), NULL,
                  &r))
      return lm_fn_error(err, e, "22008", "interval out of range");
    break;
  default:
    return lm_fn_error(err, e, "0A000", "function not implemented");
  }
  if (!us_fits_ns(r.us))
    return lm_fn_error(err, e, "22008", "interval out of range");
  append_iv(b, &r);
  return 0;
}
