/*
 * DECIMAL, DATE, TIME and BYTEA in the evaluator (expr_types.h): casts,
 * arithmetic and comparison, with PostgreSQL's results and errors.
 */
#include "exec/expr_types.h"
#include "exec/expr_decmath.h"

#include "exec/lm_strfn.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "columnar/lm_decimal.h"
#include "columnar/lm_temporal.h"

static bool ours(lm_type_id t) {
  return t == LM_TYPE_DECIMAL128 || t == LM_TYPE_DATE32 ||
         t == LM_TYPE_TIME64 || t == LM_TYPE_BINARY;
}

bool lm_types_cast_handles(lm_type from, lm_type to) {
  return ours(from.id) || ours(to.id);
}

static bool nul(const lm_array *a, int64_t i) {
  return a->type.id == LM_TYPE_NULL || lm_array_is_null(a, i);
}

static int oom(lm_error *err) {
  return lm_err(err, LM_ERR_NOMEM, "out of memory");
}

static int finish(lm_builder *b, lm_array **out, lm_error *err) {
  if (lm_builder_finish(b, out)) {
    lm_builder_free(b);
    return oom(err);
  }
  lm_builder_free(b);
  return 0;
}

/* The first 60 bytes of s[0, n) as a C string for messages. */
static const char *quote(char *buf, const char *s, int32_t n) {
  int k = n > 60 ? 60 : n;
  snprintf(buf, 64, "%.*s", k, s);
  return buf;
}

static bool sp(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool hexval_c(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}

static lm_i128 int_max_of(lm_type_id t) {
  switch (t) {
  case LM_TYPE_INT8:
    return INT8_MAX;
  case LM_TYPE_INT16:
    return INT16_MAX;
  case LM_TYPE_INT32:
    return INT32_MAX;
  default:
    return INT64_MAX;
  }
}

/* Whether a cast to DECIMAL may give ±Infinity. PostgreSQL 15 keeps it in
 * NUMERIC without (p, s) only: the binder marks a CAST to NUMERIC tprec
 * -1, to NUMERIC(p, s) tprec -2; other casts (implicit: a VALUES or UNION
 * column, PostgreSQL's unconstrained numeric) allow it unless assigning to
 * a declared column (tassign). */
static bool inf_ok(const lm_bexpr *e) {
  if (e && e->kind == LM_BX_CAST && e->tprec < 0)
    return e->tprec == -1;
  return !(e && e->tassign);
}

/* One row of a cast; appends to b or returns an error. */
static int cast_one(const lm_bexpr *e, const lm_array *a, int64_t i, lm_type to,
                    lm_builder *b, lm_buf *tmp, lm_error *err) {
  lm_type_id from = a->type.id;
  char q[64];
  if (to.id == LM_TYPE_DECIMAL128) {
    lm_i128 v = 0;
    int rc = 0;
    if (from == LM_TYPE_DECIMAL128)
      rc = lm_dec_rescale(lm_dec_get(a, i), a->type.scale, to.scale, &v);
    else if (lm_type_is_integer(a->type))
      rc = lm_dec_rescale(lm_array_get_i64(a, i), 0, to.scale, &v);
    else if (from == LM_TYPE_FLOAT32 && isfinite(lm_array_get_f64(a, i))) {
      /* float4 -> numeric keeps 6 significant digits (PostgreSQL's
       * FLT_DIG), float8 15 (lm_dec_from_double) */
      int n = snprintf(q, sizeof q, "%.6g", lm_array_get_f64(a, i));
      rc = lm_dec_parse(q, (size_t)n, to.scale, &v, NULL);
    } else if (from == LM_TYPE_FLOAT32 || from == LM_TYPE_FLOAT64) {
      rc = lm_dec_from_double(lm_array_get_f64(a, i), to.scale, &v);
    } else if (from == LM_TYPE_UTF8) {
      int32_t n;
      const char *s = lm_array_str(a, i, &n);
      rc = lm_dec_parse(s, (size_t)n, to.scale, &v, NULL);
      if (rc == LM_DEC_ESYNTAX)
        return lm_fn_error(err, e, "22P02",
                           "invalid input syntax for type numeric: \"%s\"",
                           quote(q, s, n));
    } else
      return lm_fn_error(err, e, "42846", "cannot cast type %s to numeric",
                         lm_pg_type_name(a->type));
    if (!rc && lm_dec_is_special(v) && (v == LM_DEC_NAN || inf_ok(e))) {
      lm_dec_append(b, v); /* NaN fits NUMERIC(p,s); Infinity: NUMERIC */
      return 0;
    }
    if (!rc && lm_dec_is_special(v)) {
      lm_fn_error(err, e, "22003", "numeric field overflow");
      return lm_err_detail(err,
                           "A field with precision %d, scale %d cannot hold "
                           "an infinite value.",
                           to.precision, to.scale);
    }
    if (rc || !lm_dec_fits(v, to.precision)) {
      /* PostgreSQL's message and DETAIL (10^0 shown as 1) */
      int maxd = to.precision - to.scale;
      lm_fn_error(err, e, "22003", "numeric field overflow");
      return lm_err_detail(err,
                           "A field with precision %d, scale %d must round "
                           "to an absolute value less than %s%d.",
                           to.precision, to.scale, maxd ? "10^" : "",
                           maxd ? maxd : 1);
    }
    lm_dec_append(b, v);
    return 0;
  }
  if (from == LM_TYPE_DECIMAL128) {
    lm_i128 v = lm_dec_get(a, i);
    int s = a->type.scale;
    if (lm_type_is_integer(to)) {
      lm_i128 r;
      if (lm_dec_is_special(v)) /* PostgreSQL's numeric_int4 & co. */
        return lm_fn_error(err, e, "22003", "cannot convert %s to %s",
                           v == LM_DEC_NAN ? "NaN" : "infinity",
                           lm_pg_type_name(to));
      lm_dec_rescale(v, s, 0, &r);
      if (r > int_max_of(to.id) || r < -int_max_of(to.id) - 1)
        return lm_fn_error(err, e, "22003", "%s out of range",
                           lm_pg_type_name(to));
      lm_builder_append_int(b, (int64_t)r);
    } else if (to.id == LM_TYPE_FLOAT32 || to.id == LM_TYPE_FLOAT64) {
      lm_builder_append_double(b, lm_dec_to_double(v, s));
    } else if (to.id == LM_TYPE_UTF8) {
      char buf[64];
      int k = lm_dec_format(buf, v, s);
      lm_builder_append_str(b, buf, k);
    } else
      return lm_fn_error(err, e, "42846", "cannot cast type numeric to %s",
                         lm_pg_type_name(to));
    return 0;
  }
  if (to.id == LM_TYPE_DATE32) {
    int64_t days;
    if (from == LM_TYPE_TIMESTAMP) {
      int64_t us = lm_array_get_i64(a, i);
      days = lm_ts_finite(us)       ? lm_floor_div(us, LM_US_PER_DAY)
             : us == LM_TS_INFINITY ? LM_DATE_INFINITY
                                    : LM_DATE_NEG_INFINITY;
    } else if (from == LM_TYPE_UTF8) {
      int32_t n;
      const char *s = lm_array_str(a, i, &n);
      const char *p = s;
      int32_t m = n;
      while (m > 0 && sp(*p))
        p++, m--;
      while (m > 0 && sp(p[m - 1]))
        m--;
      int prc = lm_parse_date(p, (size_t)m, &days);
      if (prc) {
        char msg[200];
        const char *state;
        lm_dt_message(prc, "date", p, (size_t)m, msg, sizeof msg, &state);
        return lm_fn_error(err, e, state, "%s", msg);
      }
    } else
      return lm_fn_error(err, e, "42846", "cannot cast type %s to date",
                         lm_pg_type_name(a->type));
    lm_builder_append_int(b, days);
    return 0;
  }
  if (from == LM_TYPE_DATE32) {
    int64_t d = lm_array_get_i64(a, i);
    if (to.id == LM_TYPE_TIMESTAMP)
      lm_builder_append_int(b, lm_date_finite(d)       ? d * LM_US_PER_DAY
                               : d == LM_DATE_INFINITY ? LM_TS_INFINITY
                                                       : LM_TS_NEG_INFINITY);
    else if (to.id == LM_TYPE_UTF8) {
      lm_buf_reset(tmp);
      if (lm_array_format_value(tmp, a, i, ""))
        return oom(err);
      lm_builder_append_str(b, tmp->data ? tmp->data : "", (int32_t)tmp->len);
    } else
      return lm_fn_error(err, e, "42846", "cannot cast type date to %s",
                         lm_pg_type_name(to));
    return 0;
  }
  if (to.id == LM_TYPE_TIME64) {
    int64_t us;
    if (from == LM_TYPE_TIMESTAMP) {
      us = lm_array_get_i64(a, i);
      us -= lm_floor_div(us, LM_US_PER_DAY) * LM_US_PER_DAY;
    } else if (from == LM_TYPE_INTERVAL) {
      us = lm_array_get_i64(a, i);
      us -= lm_floor_div(us, LM_US_PER_DAY) * LM_US_PER_DAY;
    } else if (from == LM_TYPE_UTF8) {
      int32_t n;
      const char *s = lm_array_str(a, i, &n);
      int prc = lm_parse_time_us(s, n, &us);
      if (prc) {
        char msg[200];
        const char *state;
        lm_dt_message(prc, "time", s, (size_t)n, msg, sizeof msg, &state);
        return lm_fn_error(err, e, state, "%s", msg);
      }
    } else
      return lm_fn_error(err, e, "42846", "cannot cast type %s to time",
                         lm_pg_type_name(a->type));
    lm_builder_append_int(b, us);
    return 0;
  }
  if (from == LM_TYPE_TIME64) {
    int64_t us = lm_array_get_i64(a, i);
    if (to.id == LM_TYPE_TIMESTAMP || to.id == LM_TYPE_INTERVAL)
      lm_builder_append_int(b, us); /* 1970-01-01 at that time */
    else if (to.id == LM_TYPE_UTF8) {
      lm_buf_reset(tmp);
      if (lm_array_format_value(tmp, a, i, ""))
        return oom(err);
      lm_builder_append_str(b, tmp->data ? tmp->data : "", (int32_t)tmp->len);
    } else
      return lm_fn_error(err, e, "42846", "cannot cast type time to %s",
                         lm_pg_type_name(to));
    return 0;
  }
  if (to.id == LM_TYPE_BINARY) {
    if (from != LM_TYPE_UTF8)
      return lm_fn_error(err, e, "42846", "cannot cast type %s to bytea",
                         lm_pg_type_name(a->type));
    int32_t n;
    const char *s = lm_array_str(a, i, &n);
    lm_buf_reset(tmp);
    int rc = lm_parse_bytea(s, n, tmp);
    if (rc == -2)
      return oom(err);
    if (rc == -4)
      return lm_fn_error(err, e, "22023",
                         "invalid hexadecimal data: odd number of digits");
    if (rc == -3) {
      const char *z = s + 2;
      while (z < s + n && (sp(*z) || hexval_c(*z)))
        z++;
      return lm_fn_error(err, e, "22023", "invalid hexadecimal digit: \"%c\"",
                         z < s + n ? *z : '?');
    }
    if (rc)
      return lm_fn_error(err, e, "22P02",
                         "invalid input syntax for type bytea: \"%s\"",
                         quote(q, s, n));
    lm_builder_append_str(b, tmp->data ? tmp->data : "", (int32_t)tmp->len);
    return 0;
  }
  if (from == LM_TYPE_BINARY && to.id == LM_TYPE_UTF8) {
    lm_buf_reset(tmp);
    if (lm_array_format_value(tmp, a, i, ""))
      return oom(err);
    lm_builder_append_str(b, tmp->data ? tmp->data : "", (int32_t)tmp->len);
    return 0;
  }
  return lm_fn_error(err, e, "42846", "cannot cast type %s to %s",
                     lm_pg_type_name(a->type), lm_pg_type_name(to));
}

int lm_types_cast(const lm_bexpr *e, lm_array *a, lm_type to, lm_array **out,
                  lm_error *err) {
  lm_builder b;
  if (lm_builder_init(&b, to, a->length))
    return oom(err);
  lm_buf tmp;
  lm_buf_init(&tmp);
  int rc = 0;
  for (int64_t i = 0; i < a->length && !rc; i++) {
    if (nul(a, i))
      lm_builder_append_null(&b);
    else
      rc = cast_one(e, a, i, to, &b, &tmp, err);
  }
  lm_buf_free(&tmp);
  if (rc) {
    lm_builder_free(&b);
    return rc;
  }
  return finish(&b, out, err);
}

bool lm_types_arith_handles(const lm_bexpr *e, const lm_array *x,
                            const lm_array *y) {
  return ours(e->type.id) || ours(x->type.id) || ours(y->type.id);
}

/* Unscaled value and scale of row i of a DECIMAL or integer array. */
static lm_i128 dec_at(const lm_array *a, int64_t i, int *scale) {
  if (a->type.id == LM_TYPE_DECIMAL128) {
    *scale = a->type.scale;
    return lm_dec_get(a, i);
  }
  *scale = 0;
  return lm_array_get_i64(a, i);
}

static int overflow(lm_error *err, const lm_bexpr *e) {
  lm_fn_error(err, e, "22003", "numeric field overflow");
  return lm_err_detail(err, "DECIMAL128 holds 38 digits.");
}

static int sign_of(lm_i128 v) {
  return v < 0 ? -1 : v > 0;
}

/* a op c when either is NaN or ±Infinity, as PostgreSQL 15's numeric_add,
 * _sub, _mul, _div and _mod: into *r, or an error. */
static int dec_special_op(const lm_bexpr *e, lm_i128 a, lm_i128 c, lm_i128 *r,
                          lm_error *err) {
  const lm_i128 NaN = LM_DEC_NAN, P = LM_DEC_PINF, N = LM_DEC_NINF;
  if (a == NaN || c == NaN) {
    *r = NaN;
    return 0;
  }
  bool ia = lm_dec_is_special(a), ic = lm_dec_is_special(c);
  switch (e->op) {
  case LM_OP_ADD:
    *r = ia && ic && a != c ? NaN : ia ? a : c;
    return 0;
  case LM_OP_SUB:
    *r = ia && ic && a == c ? NaN : ia ? a : c == P ? N : P;
    return 0;
  case LM_OP_MUL: {
    int sg = sign_of(a) * sign_of(c);
    *r = sg == 0 ? NaN : sg > 0 ? P : N;
    return 0;
  }
  case LM_OP_DIV:
    if (ia && ic) {
      *r = NaN;
    } else if (ia) {
      if (c == 0)
        return lm_fn_error(err, e, "22012", "division by zero");
      *r = sign_of(a) * sign_of(c) > 0 ? P : N;
    } else {
      *r = 0; /* finite / ±Infinity */
    }
    return 0;
  case LM_OP_MOD:
    if (ia) {
      if (c == 0)
        return lm_fn_error(err, e, "22012", "division by zero");
      *r = NaN;
    } else {
      *r = a; /* finite % ±Infinity: the dividend (scaled by the caller) */
    }
    return 0;
  default:
    return lm_fn_error(err, e, "42883", "operator does not exist for numeric");
  }
}

static int dec_op(const lm_bexpr *e, const lm_array *x, const lm_array *y,
                  int64_t i, lm_builder *b, lm_error *err) {
  int sa, sb, rs = e->type.scale;
  lm_i128 a = dec_at(x, i, &sa), c = dec_at(y, i, &sb), r = 0;
  if (lm_dec_is_special(a) || lm_dec_is_special(c)) {
    int rc = dec_special_op(e, a, c, &r, err);
    if (rc)
      return rc;
    if (!lm_dec_is_special(r) && r != 0 && lm_dec_rescale(r, sa, rs, &r))
      return overflow(err, e); /* x % Infinity is x */
    if (!lm_dec_is_special(r) && !lm_dec_fits(r, e->type.precision))
      return overflow(err, e);
    lm_dec_append(b, r);
    return 0;
  }
  switch (e->op) {
  case LM_OP_ADD:
  case LM_OP_SUB:
  case LM_OP_MOD: {
    int s = sa > sb ? sa : sb;
    if (lm_dec_rescale(a, sa, s, &a) || lm_dec_rescale(c, sb, s, &c))
      return overflow(err, e);
    if (e->op == LM_OP_MOD) {
      if (c == 0)
        return lm_fn_error(err, e, "22012", "division by zero");
      r = a % c;
    } else {
      r = e->op == LM_OP_ADD ? a + c : a - c;
    }
    if (lm_dec_rescale(r, s, rs, &r))
      return overflow(err, e);
    break;
  }
  case LM_OP_MUL: {
    if (__builtin_mul_overflow(a, c, &r) || !lm_dec_fits(r, 38))
      return overflow(err, e);
    if (lm_dec_rescale(r, sa + sb, rs, &r))
      return overflow(err, e);
    break;
  }
  case LM_OP_DIV: {
    if (c == 0)
      return lm_fn_error(err, e, "22012", "division by zero");
    int ps = lm_dec_div_scale(a, sa, c, sb);
    if (ps > rs)
      ps = rs;
    if (lm_dec_div(a, sa, c, sb, ps, &r) || lm_dec_rescale(r, ps, rs, &r))
      return overflow(err, e);
    break;
  }
  default:
    return lm_fn_error(err, e, "42883", "operator does not exist for numeric");
  }
  if (!lm_dec_fits(r, e->type.precision))
    return overflow(err, e);
  lm_dec_append(b, r);
  return 0;
}

static int date_range(lm_error *err, const lm_bexpr *e) {
  return lm_fn_error(err, e, "22008", "date out of range");
}

int lm_types_arith(const lm_bexpr *e, lm_array *x, lm_array *y, lm_array **out,
                   lm_error *err) {
  lm_builder b;
  if (lm_builder_init(&b, e->type, x->length))
    return oom(err);
  int rc = 0;
  lm_type_id tx = x->type.id, ty = y->type.id;
  for (int64_t i = 0; i < x->length && !rc; i++) {
    if (nul(x, i) || nul(y, i)) {
      lm_builder_append_null(&b);
      continue;
    }
    if (e->type.id == LM_TYPE_DECIMAL128) {
      rc = dec_op(e, x, y, i, &b, err);
      continue;
    }
    int64_t a = lm_array_get_i64(x, i), c = lm_array_get_i64(y, i), r = 0;
    /* an infinite date (lm_temporal.h) stays infinite; PostgreSQL 15
     * refuses date - date over one */
    int64_t inf = tx == LM_TYPE_DATE32 && !lm_date_finite(a)   ? a
                  : ty == LM_TYPE_DATE32 && !lm_date_finite(c) ? c
                                                               : 0;
    if (inf && tx == LM_TYPE_DATE32 && ty == LM_TYPE_DATE32) {
      rc = lm_fn_error(err, e, "22008", "cannot subtract infinite dates");
    } else if (inf && (tx == LM_TYPE_TIME64 || ty == LM_TYPE_TIME64)) {
      r = inf > 0 ? LM_TS_INFINITY : LM_TS_NEG_INFINITY;
    } else if (inf) {
      r = inf;
    } else if (tx == LM_TYPE_DATE32 && ty == LM_TYPE_DATE32) { /* date - date */
      r = a - c;
    } else if (tx == LM_TYPE_DATE32 && ty == LM_TYPE_TIME64) {
      r = a * LM_US_PER_DAY + c; /* date + time -> timestamp */
    } else if (tx == LM_TYPE_TIME64 && ty == LM_TYPE_DATE32) {
      r = c * LM_US_PER_DAY + a;
    } else if (tx == LM_TYPE_DATE32 || ty == LM_TYPE_DATE32) {
      /* date +- integer days (either order for +) */
      int64_t d = tx == LM_TYPE_DATE32 ? a : c,
              k = tx == LM_TYPE_DATE32 ? c : a;
      if (e->op == LM_OP_SUB)
        k = -k;
      r = d + k;
      /* PostgreSQL's date range: 4713 BC .. 5874897 AD */
      if (r < -2451545 || r > 2145031948)
        rc = date_range(err, e);
    } else if (tx == LM_TYPE_TIME64 && ty == LM_TYPE_TIME64) {
      r = a - c; /* time - time -> interval */
    } else if (tx == LM_TYPE_TIME64 || ty == LM_TYPE_TIME64) {
      /* time +- interval wraps around midnight */
      int64_t t = tx == LM_TYPE_TIME64 ? a : c,
              iv = tx == LM_TYPE_TIME64 ? c : a;
      iv %= LM_US_PER_DAY;
      if (e->op == LM_OP_SUB)
        iv = -iv;
      r = t + iv;
      r -= lm_floor_div(r, LM_US_PER_DAY) * LM_US_PER_DAY;
    } else {
      rc = lm_fn_error(err, e, "42883", "operator does not exist: %s",
                       lm_pg_type_name(x->type));
    }
    if (!rc)
      lm_builder_append_int(&b, r);
  }
  if (rc) {
    lm_builder_free(&b);
    return rc;
  }
  return finish(&b, out, err);
}

int lm_types_neg(const lm_bexpr *e, lm_array *x, lm_array **out,
                 lm_error *err) {
  (void)e;
  lm_builder b;
  if (lm_builder_init(&b, x->type, x->length))
    return oom(err);
  for (int64_t i = 0; i < x->length; i++) {
    if (nul(x, i))
      lm_builder_append_null(&b);
    else if (lm_dec_get(x, i) == LM_DEC_NAN) /* -NaN is NaN */
      lm_dec_append(&b, LM_DEC_NAN);
    else /* -Infinity is the negated sentinel (lm_decimal.h) */
      lm_dec_append(&b, -lm_dec_get(x, i));
  }
  return finish(&b, out, err);
}

int lm_types_cmp(const lm_array *x, int64_t i, const lm_array *y, int64_t j) {
  if (x->type.id == LM_TYPE_DECIMAL128 || y->type.id == LM_TYPE_DECIMAL128) {
    int sa, sb;
    lm_i128 a = dec_at(x, i, &sa), c = dec_at(y, j, &sb);
    /* compare at the larger scale; an overflow there decides by sign */
    int s = sa > sb ? sa : sb;
    lm_i128 a2, c2;
    bool oa = lm_dec_rescale(a, sa, s, &a2) != 0,
         oc = lm_dec_rescale(c, sb, s, &c2) != 0;
    if (oa || oc) {
      if (oa && !oc)
        return a < 0 ? -1 : 1;
      if (oc && !oa)
        return c < 0 ? 1 : -1;
    }
    return a2 < c2 ? -1 : a2 > c2;
  }
  if (x->type.id == LM_TYPE_BINARY) {
    int32_t al, bl;
    const char *a = lm_array_str(x, i, &al), *c = lm_array_str(y, j, &bl);
    int r = memcmp(a, c, (size_t)(al < bl ? al : bl));
    if (r)
      return r < 0 ? -1 : 1;
    return al < bl ? -1 : al > bl;
  }
  int64_t a = lm_array_get_i64(x, i), c = lm_array_get_i64(y, j);
  return a < c ? -1 : a > c;
}

int lm_types_decfn(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                   lm_error *err) {
  /* sqrt, ln, log, exp, power (expr_decmath.c) */
  if (e->args[2]->lit.v.i >= 10)
    return lm_decmath_eval(e, in, out, err);
  lm_array **a;
  lm_builder b;
  int rc = lm_fn_begin(e, in, &a, &b, err);
  if (rc)
    return rc;
  int which = (int)e->args[2]->lit.v.i, rs = e->type.scale;
  int s = a[0]->type.scale;
  for (int64_t i = 0; i < in->num_rows && !rc; i++) {
    if (nul(a[0], i)) {
      lm_builder_append_null(&b);
      continue;
    }
    lm_i128 v = lm_dec_get(a[0], i), r = 0;
    if (lm_dec_is_special(v)) {
      /* PostgreSQL: round / trunc / ceil / floor keep NaN and ±Infinity,
       * abs(-Infinity) is Infinity, sign(±Infinity) is ±1, sign(NaN) NaN */
      if (which == 2 && v == LM_DEC_NINF)
        v = LM_DEC_PINF;
      else if (which == 5 && v != LM_DEC_NAN)
        v = v > 0 ? 1 : -1;
      lm_dec_append(&b, v);
      continue;
    }
    switch (which) {
    case 2: /* abs */
      r = v < 0 ? -v : v;
      break;
    case 5: /* sign */
      r = v < 0 ? -1 : v > 0;
      break;
    default: {
      /* round / trunc to d digits (d may be negative), ceil, floor */
      int d = which <= 1 ? (int)e->args[1]->lit.v.i : 0;
      if (d >= s) {
        r = v;
      } else {
        int k = s - d > 38 ? 38 : s - d;
        lm_i128 p = lm_dec_pow10(k), q = v / p, m = v % p;
        if (which == 0) {
          lm_i128 am = m < 0 ? -m : m;
          if (am * 2 >= p)
            q += v < 0 ? -1 : 1;
        } else if (which == 3 && m > 0) {
          q += 1;
        } else if (which == 4 && m < 0) {
          q -= 1;
        }
        /* back to scale d, or to 0 with zeros for negative d */
        r = q;
        s = d;
        if (d < 0) {
          if (-d > 37 || !lm_dec_fits(q, 38 + d)) {
            rc = overflow(err, e);
            break;
          }
          r = q * lm_dec_pow10(-d);
          s = 0;
        }
      }
      if (!rc && lm_dec_rescale(r, s, rs, &r))
        rc = overflow(err, e);
      s = a[0]->type.scale;
      break;
    }
    }
    if (!rc && !lm_dec_fits(r, e->type.precision))
      rc = overflow(err, e);
    if (!rc)
      lm_dec_append(&b, r);
  }
  return lm_fn_end(e, a, &b, rc, out, err);
}
