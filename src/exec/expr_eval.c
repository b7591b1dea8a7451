/*
 * Vectorized expression evaluation: every node is evaluated for a whole
 * batch at once into a new array. Integer arithmetic is checked (overflow
 * is an error, never a wrap); NULL propagates except through AND/OR
 * (three-valued logic), IS NULL, COALESCE and CASE.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columnar/lm_interval.h"
#include "columnar/lm_jsonb_ord.h"
#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"
#include "exec/expr_array.h"
#include "exec/expr_decfast.h"
#include "exec/expr_inset.h"
#include "exec/expr_interval.h"
#include "exec/expr_mdn.h"
#include "exec/expr_num.h"
#include "exec/expr_types.h"
#include "exec/expr_tz.h"
#include "exec/lm_exec.h"
#include "exec/lm_fn5.h"
#include "exec/lm_strfn.h"

static int eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                lm_error *err);

static int at_err(lm_error *err, const lm_bexpr *e, const char *fmt,
                  const char *a) {
  char msg[512];
  snprintf(msg, sizeof msg, fmt, a ? a : "");
  if (e && e->line)
    return lm_err_at(err, LM_ERR_EXEC, e->line, e->column, "%s", msg);
  return lm_err(err, LM_ERR_EXEC, "%s", msg);
}

static inline bool isnull(const lm_array *a, int64_t i) {
  return a->validity && lm_array_is_null(a, i);
}

/* --------------------------------------------------------------- casts */

/* A CAST to TIMESTAMP(p) / TIME(p) (e->tprec = p + 1, p < 6): replaces *io
 * (µs, int64, length n) with a new array rounded to p fractional digits,
 * half away from zero as PostgreSQL's AdjustTimestampForTypmod; infinities
 * kept. Errors: LM_ERR_NOMEM (*io unchanged). */
static int round_tprec(const lm_bexpr *e, lm_array **io, lm_error *err) {
  static const int64_t scale[6] = {1000000, 100000, 10000, 1000, 100, 10};
  const lm_array *a = *io;
  if (a->type.id != LM_TYPE_TIMESTAMP && a->type.id != LM_TYPE_TIME64)
    return 0;
  int64_t s = scale[e->tprec - 1], h = s / 2, n = a->length;
  lm_builder b;
  if (lm_out_fixed(&b, a->type, n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  const int64_t *v = lm_array_i64(a);
  /* PostgreSQL rounds ties away from its epoch, 2000-01-01 (µs after ours) */
  const int64_t off =
      a->type.id == LM_TYPE_TIMESTAMP ? INT64_C(946684800000000) : 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t x = v[i];
    if (a->validity && lm_array_is_null(a, i)) {
      lm_out_null(&b, i);
      x = 0;
    } else if (a->type.id == LM_TYPE_TIMESTAMP && !lm_ts_finite(x)) {
      /* ±infinity stays */
    } else if (x > INT64_MIN / 2 && x < INT64_MAX / 2) {
      int64_t y = x - off;
      y = y >= 0 ? (y + h) / s * s : -((-y + h) / s * s);
      x = y + off;
    }
    ((int64_t *)b.values)[i] = x;
  }
  lm_array *r;
  if (lm_out_finish(&b, &r, err))
    return LM_ERR_NOMEM;
  lm_array_release(*io);
  *io = r;
  return 0;
}

/* A CAST to VARCHAR(n) / CHAR(n) (e->tlen = n, e->tbpchar, e->tassign;
 * lm_plan.h): replaces *io (UTF8, n rows) with the values cut to n
 * characters (an assignment: 22001 unless only spaces are cut), CHAR's
 * padded with spaces to n. Errors: 22001, LM_ERR_NOMEM (*io unchanged). */
static int char_typmod(const lm_bexpr *e, lm_array **io, lm_error *err) {
  const lm_array *a = *io;
  int64_t n = a->length;
  lm_builder b;
  if (lm_builder_init(&b, a->type, n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int rc = 0;
  for (int64_t i = 0; i < n && !rc; i++) {
    if (a->validity && lm_array_is_null(a, i)) {
      lm_builder_append_null(&b);
      continue;
    }
    int32_t len;
    const char *s = lm_array_str(a, i, &len);
    int32_t cut = len, chars = 0; /* byte length of the first tlen chars */
    for (int32_t k = 0; k < len; k++) {
      if (((unsigned char)s[k] & 0xC0) == 0x80)
        continue;
      if (e->tlen > 0 && chars == e->tlen) {
        cut = k;
        break;
      }
      chars++;
    }
    if (cut < len && e->tassign) {
      for (int32_t k = cut; k < len && !rc; k++)
        if (s[k] != ' ')
          rc = lm_fn_error(err, e, "22001", "value too long for type %s(%d)",
                           e->tbpchar ? "character" : "character varying",
                           (int)e->tlen);
      if (rc)
        break;
    }
    if (e->tbpchar && chars < e->tlen) {
      int32_t pad = e->tlen - chars;
      char small[64];
      char *t = (size_t)cut + (size_t)pad <= sizeof small
                    ? small
                    : malloc((size_t)cut + (size_t)pad);
      if (!t) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        break;
      }
      memcpy(t, s, (size_t)cut);
      memset(t + cut, ' ', (size_t)pad);
      lm_builder_append_str(&b, t, cut + pad);
      if (t != small)
        free(t);
    } else {
      lm_builder_append_str(&b, s, cut);
    }
  }
  lm_array *r = NULL;
  if (rc) {
    lm_builder_free(&b);
    return rc;
  }
  if ((rc = lm_out_finish(&b, &r, err)))
    return rc;
  lm_array_release(*io);
  *io = r;
  return 0;
}

/* How many bytes of s (len bytes) to quote in a message: at most max,
 * never cutting a UTF-8 character. */
static int utf8_cut(const char *s, int32_t len, int max) {
  int n = len > max ? max : (int)len;
  while (n > 0 && n < len && ((unsigned char)s[n] & 0xC0) == 0x80)
    n--;
  return n;
}

static bool is_i64_class(lm_type_id id) {
  return id == LM_TYPE_INT64 || id == LM_TYPE_TIMESTAMP ||
         id == LM_TYPE_INTERVAL;
}

static int64_t int_min(lm_type_id id) {
  switch (id) {
  case LM_TYPE_INT8:
    return INT8_MIN;
  case LM_TYPE_INT16:
    return INT16_MIN;
  case LM_TYPE_INT32:
    return INT32_MIN;
  default:
    return INT64_MIN;
  }
}
static int64_t int_max(lm_type_id id) {
  switch (id) {
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

/* PostgreSQL's interval text (IntervalStyle postgres) of us µs: "1 day",
 * "-1 days -01:00:00", "00:00:00.5" (the whole days apart, each part with
 * its own sign, the fraction without trailing zeros). */
static void fmt_interval(lm_buf *o, int64_t us) {
  int64_t days = us / LM_US_PER_DAY, rem = us % LM_US_PER_DAY;
  if (days)
    lm_buf_printf(o, "%lld day%s", (long long)days, days == 1 ? "" : "s");
  if (days && !rem)
    return;
  if (days)
    lm_buf_putc(o, ' ');
  uint64_t a = rem < 0 ? (uint64_t)0 - (uint64_t)rem : (uint64_t)rem;
  lm_buf_printf(o, "%s%02llu:%02llu:%02llu", rem < 0 ? "-" : "",
                (unsigned long long)(a / LM_US_PER_HOUR),
                (unsigned long long)(a / LM_US_PER_MIN % 60),
                (unsigned long long)(a / LM_US_PER_SEC % 60));
  if (a % LM_US_PER_SEC) {
    lm_buf_printf(o, ".%06llu", (unsigned long long)(a % LM_US_PER_SEC));
    while (o->data[o->len - 1] == '0') /* PostgreSQL: 00:00:00.5 */
      o->data[--o->len] = '\0';
  }
}

/* A SMALLINT/INT/TINYINT column widened to BIGINT type `to` (never out of
 * range) in one loop: a new values buffer, a's validity bitmap shared
 * (callers pass a->offset == 0 when a has one). NULL rows hold 0, as the
 * builder writes them. *out: a new reference; LM_ERR_NOMEM on OOM. */
static int widen_to_i64(const lm_array *a, lm_type to, lm_array **out,
                        lm_error *err) {
  int64_t n = a->length;
  lm_buffer *vb = lm_buffer_new(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
  if (!vb)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int64_t *o = (int64_t *)vb->data;
  if (a->type.id == LM_TYPE_INT32) {
    const int32_t *v = lm_array_i32(a);
    for (int64_t i = 0; i < n; i++)
      o[i] = v[i];
  } else if (a->type.id == LM_TYPE_INT16) {
    const int16_t *v = lm_array_i16(a);
    for (int64_t i = 0; i < n; i++)
      o[i] = v[i];
  } else {
    const int8_t *v = lm_array_i8(a);
    for (int64_t i = 0; i < n; i++)
      o[i] = v[i];
  }
  lm_buffer *vd = NULL;
  int64_t nulls = 0;
  if (a->validity && a->null_count > 0) {
    vd = lm_buffer_retain(a->validity);
    nulls = a->null_count;
    for (int64_t i = 0; i < n; i++)
      if (lm_array_is_null(a, i))
        o[i] = 0;
  }
  *out = lm_array_new(to, n, nulls, 0, vd, vb, NULL, 0, NULL, NULL);
  return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
}

static int cast_array(const lm_bexpr *e, lm_array *a, lm_type to,
                      lm_array **out, lm_error *err) {
  lm_type_id from = a->type.id;
  int64_t n = a->length;
  if (lm_type_eq(a->type, to)) {
    *out = lm_array_retain(a);
    return 0;
  }
  if (from == LM_TYPE_NULL) {
    *out = lm_array_new_null(to, n);
    return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  if (lm_mdn_cast_handles(from, to)) /* intervals with months, expr_mdn.c */
    return lm_mdn_cast(e, a, to, out, err);
  if (lm_array_cast_handles(a->type, to)) /* expr_array.c: SQL arrays */
    return lm_array_cast(e, a, to, out, err);
  if (lm_uuid_cast_handles(a->type, to)) /* expr_fn5.c: uuid */
    return lm_uuid_cast(e, a, to, out, err);
  if (lm_json_cast_handles(a->type, to)) /* expr_json2.c: json / jsonb */
    return lm_json_cast(e, a, to, out, err);
  if (from == LM_TYPE_UTF8 && to.id == LM_TYPE_UTF8) {
    /* CHAR(n) to text drops the padding (PostgreSQL's rtrim); text to
     * CHAR keeps the text (char_typmod pads it to n) */
    bool trim = lm_type_is_bpchar(a->type) && !lm_type_is_bpchar(to);
    lm_builder b;
    if (lm_builder_init(&b, to, n))
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++) {
      if (isnull(a, i)) {
        lm_builder_append_null(&b);
        continue;
      }
      int32_t len;
      const char *v = lm_array_str(a, i, &len);
      while (trim && len > 0 && v[len - 1] == ' ')
        len--;
      lm_builder_append_str(&b, v, len);
    }
    return lm_out_finish(&b, out, err);
  }
  if (lm_tz_cast_handles(a->type, to)) /* expr_tz.c: TIMESTAMPTZ */
    return lm_tz_cast(e, a, to, out, err);
  if (lm_types_cast_handles(a->type, to)) /* expr_types.c */
    return lm_types_cast(e, a, to, out, err);
  if (to.id == LM_TYPE_INT64 &&
      (from == LM_TYPE_INT32 || from == LM_TYPE_INT16 ||
       from == LM_TYPE_INT8) &&
      (!a->validity || a->offset == 0))
    return widen_to_i64(a, to, out, err);
  lm_builder b;
  if (lm_builder_init(&b, to, n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_buf tmp;
  lm_buf_init(&tmp);
  int rc = 0;
  char txt[64];
  for (int64_t i = 0; i < n && !rc; i++) {
    if (isnull(a, i)) {
      lm_builder_append_null(&b);
      continue;
    }
    switch (to.id) {
    case LM_TYPE_INT8:
    case LM_TYPE_INT16:
    case LM_TYPE_INT32:
    case LM_TYPE_INT64:
    case LM_TYPE_INTERVAL:
    case LM_TYPE_TIMESTAMP: {
      int64_t v = 0;
      if (lm_type_is_integer(a->type) || from == LM_TYPE_BOOL ||
          is_i64_class(from)) {
        if ((to.id == LM_TYPE_TIMESTAMP || to.id == LM_TYPE_INTERVAL) &&
            from != to.id && from != LM_TYPE_INT64) {
          rc = at_err(err, e, "cannot cast %s", lm_type_name(a->type));
          break;
        }
        v = lm_array_get_i64(a, i);
      } else if (from == LM_TYPE_FLOAT32 || from == LM_TYPE_FLOAT64) {
        /* half to even (float8 to int, PostgreSQL's rint); an assignment
         * of a numeric-in-PostgreSQL value (tassign) half away */
        double d = e->tassign ? round(lm_array_get_f64(a, i))
                              : nearbyint(lm_array_get_f64(a, i));
        if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
          rc = lm_fn_error(err, e, "22003", "%s out of range",
                           lm_pg_type_name(to));
          break;
        }
        v = (int64_t)d;
      } else if (from == LM_TYPE_UTF8) {
        int32_t len;
        const char *p = lm_array_str(a, i, &len);
        if (to.id == LM_TYPE_TIMESTAMP) {
          while (len > 0 && isspace((unsigned char)*p))
            p++, len--;
          while (len > 0 && isspace((unsigned char)p[len - 1]))
            len--;
          /* PostgreSQL's timestamp_in: a zone in the text is ignored */
          int prc = lm_tz_parse_timestamp(p, (size_t)len, lm_tz_session(), &v);
          if (prc != 0) {
            char m[200];
            const char *state;
            lm_dt_message(prc, "timestamp", p, (size_t)len, m, sizeof m,
                          &state);
            rc = lm_fn_error(err, e, state, "%s", m);
            break;
          }
        } else if (to.id == LM_TYPE_INTERVAL) {
          if (lm_parse_interval(p, (size_t)len, NULL, 0, &v) != 0) {
            char s[80];
            snprintf(s, sizeof s, "%.*s", utf8_cut(p, len, 60), p);
            lm_iv iv; /* PostgreSQL's other forms (lm_interval.h) */
            int prc = lm_iv_parse(p, (size_t)len, NULL, 0, &iv);
            if (prc == 0 && iv.months == 0 &&
                !__builtin_mul_overflow((int64_t)iv.days, LM_US_PER_DAY, &v) &&
                !__builtin_add_overflow(v, iv.us, &v))
              goto iv_ok; /* '1 day ago', 'P1D', '@ 2 hours' */
            if (prc == 0 && iv.months != 0)
              rc = lm_fn_error(err, e, "0A000",
                               "INTERVAL '%s': an interval with months here "
                               "must be a constant (a text column's months "
                               "are not supported, docs/types.md)",
                               s);
            else if (prc == -2)
              rc = lm_fn_error(err, e, "22015",
                               "interval field value out of range: \"%s\"", s);
            else
              rc = lm_fn_error(err, e, "22007",
                               "invalid input syntax for type interval: "
                               "\"%s\"",
                               s);
            break;
          }
        iv_ok:;
        } else {
          snprintf(txt, sizeof txt, "%.*s", utf8_cut(p, len, 62), p);
          const char *q = txt;
          while (isspace((unsigned char)*q))
            q++;
          char *end;
          errno = 0;
          long long ll = strtoll(q, &end, 10);
          bool none = end == q; /* nothing parsed: empty or only spaces */
          while (*end && isspace((unsigned char)*end))
            end++;
          bool digits_only = !none && !*end && len <= 62;
          if (!digits_only) {
            rc = lm_fn_error(err, e, "22P02",
                             "invalid input syntax for type %s: \"%s\"",
                             lm_pg_type_name(to), txt);
            break;
          }
          if (errno || ll < int_min(to.id) || ll > int_max(to.id)) {
            rc = lm_fn_error(err, e, "22003",
                             "value \"%s\" is out of range for type %s", txt,
                             lm_pg_type_name(to));
            break;
          }
          v = ll;
        }
      } else {
        rc = at_err(err, e, "cannot cast %s", lm_type_name(a->type));
        break;
      }
      if (v < int_min(to.id) || v > int_max(to.id)) {
        rc = lm_fn_error(err, e, "22003", "%s out of range",
                         to.id == LM_TYPE_INT32 ? "integer"
                                                : lm_pg_type_name(to));
        break;
      }
      lm_builder_append_int(&b, v);
      break;
    }
    case LM_TYPE_FLOAT32:
    case LM_TYPE_FLOAT64:
      if (lm_type_is_numeric(a->type)) {
        double d = lm_array_get_f64(a, i);
        float f = (float)d;
        if (to.id == LM_TYPE_FLOAT32 && from == LM_TYPE_FLOAT64 &&
            ((isinf(f) && !isinf(d)) || (f == 0 && d != 0))) {
          /* PostgreSQL's float8 -> float4 (dtof) */
          rc = lm_fn_error(err, e, "22003", "value out of range: %s",
                           isinf(f) ? "overflow" : "underflow");
          break;
        }
        lm_builder_append_double(&b, d);
      } else if (from == LM_TYPE_UTF8) {
        int32_t len;
        const char *p = lm_array_str(a, i, &len);
        snprintf(txt, sizeof txt, "%.*s", utf8_cut(p, len, 62), p);
        char *end;
        const char *q = txt;
        while (isspace((unsigned char)*q))
          q++;
        /* PostgreSQL: decimal notation, NaN, [+-]Infinity / inf; no hex */
        bool hex = false;
        for (const char *h = q; *h; h++)
          hex |= *h == 'x' || *h == 'X' || *h == 'p' || *h == 'P';
        errno = 0;
        /* REAL reads its text as float4in: single precision directly */
        double d = to.id == LM_TYPE_FLOAT32 ? (double)strtof(q, &end)
                                            : strtod(q, &end);
        bool none = end == q; /* nothing parsed: empty or only spaces */
        while (*end && isspace((unsigned char)*end))
          end++;
        if (none || *end || len > 62 || hex) {
          rc = lm_fn_error(err, e, "22P02",
                           "invalid input syntax for type %s: \"%s\"",
                           lm_pg_type_name(to), txt);
          break;
        }
        if (errno == ERANGE && (isinf(d) || d == 0)) {
          rc =
              lm_fn_error(err, e, "22003", "\"%s\" is out of range for type %s",
                          txt, lm_pg_type_name(to));
          break;
        }
        lm_builder_append_double(&b, d);
      } else {
        rc = at_err(err, e, "cannot cast %s to DOUBLE", lm_type_name(a->type));
      }
      break;
    case LM_TYPE_BOOL:
      if (lm_type_is_integer(a->type)) {
        lm_builder_append_bool(&b, lm_array_get_i64(a, i) != 0);
      } else if (from == LM_TYPE_UTF8) {
        int32_t len;
        const char *p = lm_array_str(a, i, &len);
        snprintf(txt, sizeof txt, "%.*s", utf8_cut(p, len, 62), p);
        int bv = lm_pg_bool(p, (size_t)len);
        if (bv >= 0)
          lm_builder_append_bool(&b, bv == 1);
        else
          rc =
              lm_fn_error(err, e, "22P02",
                          "invalid input syntax for type boolean: \"%s\"", txt);
      } else {
        rc = at_err(err, e, "cannot cast %s to BOOLEAN", lm_type_name(a->type));
      }
      break;
    case LM_TYPE_UTF8:
      lm_buf_reset(&tmp);
      if (from == LM_TYPE_TIMESTAMP) {
        char ts[48];
        int k = lm_format_timestamp(lm_array_get_i64(a, i), ' ', ts);
        /* PostgreSQL's text: the fraction without trailing zeros */
        bool bc = k > 3 && !memcmp(ts + k - 3, " BC", 3);
        int end = bc ? k - 3 : k;
        if (memchr(ts, '.', (size_t)end))
          while (ts[end - 1] == '0')
            end--;
        lm_buf_append(&tmp, ts, (size_t)end);
        if (bc)
          lm_buf_append(&tmp, " BC", 3);
      } else if (from == LM_TYPE_INTERVAL) {
        fmt_interval(&tmp, lm_array_get_i64(a, i));
      } else {
        lm_array_format_value(&tmp, a, i, "");
      }
      lm_builder_append_str(&b, tmp.data ? tmp.data : "", (int32_t)tmp.len);
      break;
    default:
      rc = at_err(err, e, "cannot cast to %s", lm_type_name(to));
    }
  }
  lm_buf_free(&tmp);
  if (rc) {
    lm_builder_free(&b);
    return rc;
  }
  return lm_out_finish(&b, out, err);
}

/* ---------------------------------------------------------- arithmetic */

/* x op y over BIGINTs; y NULL: every row's right operand is *k (a
 * literal, not broadcast into an array). */
static int arith_i64(const lm_bexpr *e, lm_array *x, lm_array *y,
                     const int64_t *k, lm_array **out, lm_error *err) {
  int64_t n = x->length;
  lm_builder b;
  if (lm_out_fixed(&b, e->type, n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int64_t *r = (int64_t *)b.values;
  const int64_t *xa = lm_array_i64(x), *ya = y ? lm_array_i64(y) : k;
  int64_t ystep = y ? 1 : 0;
  bool nulls = x->null_count || (y && y->null_count);
  lm_op op = e->op;
  if (!y && op == LM_OP_MOD && *k > 0 && *k <= (int64_t)UINT32_MAX) {
    /* x % k for a literal k in [1, 2^32): Lemire's fastmod (Lemire, Kaser
     * and Kurz 2019, exact for 32-bit operands) for the x in [0, 2^32)
     * (Nexmark q2's auction ids), the % instruction for the others; a
     * NULL's slot gets 0, as below */
    const uint64_t d = (uint64_t)*k, m = UINT64_MAX / d + 1;
    for (int64_t i = 0; i < n; i++) {
      uint64_t a = (uint64_t)xa[i];
      r[i] = a <= UINT32_MAX ? (int64_t)(((unsigned __int128)(m * a) * d) >> 64)
                             : xa[i] % *k;
    }
    if (nulls)
      for (int64_t i = 0; i < n; i++)
        if (isnull(x, i)) {
          lm_out_null(&b, i);
          r[i] = 0;
        }
    return lm_out_finish(&b, out, err);
  }
  /* timestamps (lm_temporal.h): infinity stays infinity through ±
   * interval, a finite result must be in PostgreSQL's range, and
   * PostgreSQL 15 refuses to subtract infinite timestamps */
  bool ts_x = x->type.id == LM_TYPE_TIMESTAMP,
       ts_y = y ? y->type.id == LM_TYPE_TIMESTAMP
                : e->n_args > 1 && e->args[1]->type.id == LM_TYPE_TIMESTAMP;
  bool ts_out = e->type.id == LM_TYPE_TIMESTAMP && (ts_x || ts_y) &&
                (op == LM_OP_ADD || op == LM_OP_SUB);
  bool ts_diff = ts_x && ts_y && e->type.id == LM_TYPE_INTERVAL;
  for (int64_t i = 0; i < n; i++) {
    if (nulls && (isnull(x, i) || (y && isnull(y, i)))) {
      lm_out_null(&b, i);
      r[i] = 0;
      continue;
    }
    int64_t a = xa[i], c = ya[i * ystep], v = 0;
    bool ovf = false;
    if (ts_out || ts_diff) {
      bool inf_a = ts_x && !lm_ts_finite(a), inf_c = ts_y && !lm_ts_finite(c);
      if (ts_diff && (inf_a || inf_c)) {
        lm_builder_free(&b);
        return lm_fn_error(err, e, "22008",
                           "cannot subtract infinite timestamps");
      }
      if (ts_out && (inf_a || inf_c)) {
        r[i] = inf_a ? a : c;
        continue;
      }
      if (ts_out) {
        ovf = op == LM_OP_ADD ? lm_add_overflow_i64(a, c, &v)
                              : lm_sub_overflow_i64(a, c, &v);
        if (ovf || v < LM_DT_MIN_DAYS * LM_US_PER_DAY ||
            v >= LM_TS_END_DAYS * LM_US_PER_DAY) {
          lm_builder_free(&b);
          return lm_fn_error(err, e, "22008", "timestamp out of range");
        }
        r[i] = v;
        continue;
      }
    }
    switch (op) {
    case LM_OP_ADD:
      ovf = lm_add_overflow_i64(a, c, &v);
      break;
    case LM_OP_SUB:
      ovf = lm_sub_overflow_i64(a, c, &v);
      break;
    case LM_OP_MUL:
      ovf = lm_mul_overflow_i64(a, c, &v);
      break;
    case LM_OP_DIV:
    case LM_OP_MOD:
      if (c == 0) {
        lm_builder_free(&b);
        return lm_fn_error(err, e, "22012", "division by zero");
      }
      if (a == INT64_MIN && c == -1) {
        if (op == LM_OP_MOD)
          v = 0;
        else
          ovf = true;
      } else
        v = op == LM_OP_DIV ? a / c : a % c;
      break;
    default:
      break;
    }
    if (ovf) {
      lm_builder_free(&b);
      return lm_fn_error(err, e, "22003", "bigint out of range");
    }
    r[i] = v;
  }
  return lm_out_finish(&b, out, err);
}

static int arith_f64(const lm_bexpr *e, lm_array *x, lm_array *y,
                     lm_array **out, lm_error *err) {
  int64_t n = x->length;
  lm_builder b;
  if (lm_out_fixed(&b, e->type, n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  double *r = (double *)b.values;
  const double *xa = lm_array_f64(x), *ya = lm_array_f64(y);
  for (int64_t i = 0; i < n; i++) {
    if (isnull(x, i) || isnull(y, i)) {
      lm_out_null(&b, i);
      r[i] = 0;
      continue;
    }
    double a = xa[i], c = ya[i];
    switch (e->op) {
    case LM_OP_ADD:
      r[i] = a + c;
      break;
    case LM_OP_SUB:
      r[i] = a - c;
      break;
    case LM_OP_MUL:
      r[i] = a * c;
      break;
    case LM_OP_DIV:
      if (c == 0 && !isnan(a)) { /* NaN / 0 is NaN (PostgreSQL's float8div) */
        lm_builder_free(&b);
        return lm_fn_error(err, e, "22012", "division by zero");
      }
      r[i] = a / c;
      break;
    case LM_OP_MOD:
      if (c == 0) {
        lm_builder_free(&b);
        return lm_fn_error(err, e, "22012", "division by zero");
      }
      r[i] = fmod(a, c);
      break;
    default:
      r[i] = 0;
    }
    /* float8 semantics: an infinite result of finite operands overflows;
     * a zero product / quotient of non-zero finite operands underflows */
    bool ovf = isinf(r[i]) && !isinf(a) && !isinf(c);
    bool unf =
        r[i] == 0 && a != 0 &&
        ((e->op == LM_OP_MUL && c != 0) || (e->op == LM_OP_DIV && !isinf(c)));
    if (ovf || unf) {
      lm_builder_free(&b);
      return lm_fn_error(err, e, "22003", "value out of range: %s",
                         ovf ? "overflow" : "underflow");
    }
  }
  return lm_out_finish(&b, out, err);
}

/* ---------------------------------------------------------- comparison */

static int cmp_str(const char *a, int32_t al, const char *b, int32_t bl) {
  int c = memcmp(a, b, (size_t)(al < bl ? al : bl));
  if (c)
    return c;
  return al < bl ? -1 : al > bl;
}

/* The comparison of two BIGINT-class (or two DOUBLE) columns of one type,
 * without NaNs on the DOUBLE side: the result bits of every row into r
 * (rows with a NULL are cleared after), a tight loop per operator. */
#define CMP_LOOP(T, OP)                                                        \
  for (int64_t i = 0; i < n; i++)                                              \
    if (((const T *)xa)[i] OP((const T *)ya)[i])                               \
      r[i >> 3] |= (uint8_t)(1u << (i & 7));
#define CMP_ALL(T)                                                             \
  switch (e->op) {                                                             \
  case LM_OP_EQ:                                                               \
    CMP_LOOP(T, ==) break;                                                     \
  case LM_OP_NE:                                                               \
    CMP_LOOP(T, !=) break;                                                     \
  case LM_OP_LT:                                                               \
    CMP_LOOP(T, <) break;                                                      \
  case LM_OP_LE:                                                               \
    CMP_LOOP(T, <=) break;                                                     \
  case LM_OP_GT:                                                               \
    CMP_LOOP(T, >) break;                                                      \
  default:                                                                     \
    CMP_LOOP(T, >=) break;                                                     \
  }

static bool compare_fast(const lm_bexpr *e, lm_array *x, lm_array *y,
                         lm_builder *b) {
  int64_t n = x->length;
  lm_type_id t = x->type.id;
  bool i64 = is_i64_class(t) && y->type.id == t;
  bool f64 = t == LM_TYPE_FLOAT64 && y->type.id == t;
  if (!(i64 || f64) || y->length != n)
    return false;
  const void *xa =
      i64 ? (const void *)lm_array_i64(x) : (const void *)lm_array_f64(x);
  const void *ya =
      i64 ? (const void *)lm_array_i64(y) : (const void *)lm_array_f64(y);
  if (f64) /* NaN: PostgreSQL's order, the general loop */
    for (int64_t i = 0; i < n; i++)
      if (isnan(((const double *)xa)[i]) || isnan(((const double *)ya)[i]))
        return false;
  uint8_t *r = b->values;
  if (i64) {
    CMP_ALL(int64_t)
  } else {
    CMP_ALL(double)
  }
  if (x->validity || y->validity)
    for (int64_t i = 0; i < n; i++)
      if (isnull(x, i) || isnull(y, i)) {
        r[i >> 3] &= (uint8_t) ~(1u << (i & 7));
        lm_out_null(b, i);
      }
  return true;
}

/* x op c for a constant c (not NULL): a BIGINT-class or DOUBLE column of
 * c's type, no NaN on either side. The result bits in a tight loop, without
 * making c a column. false (nothing built) when x or c does not qualify. */
#define CMPC_LOOP(T, OP, C)                                                    \
  for (int64_t i = 0; i < n; i++)                                              \
    if (((const T *)xa)[i] OP(C))                                              \
      r[i >> 3] |= (uint8_t)(1u << (i & 7));
#define CMPC_ALL(T, C)                                                         \
  switch (op) {                                                                \
  case LM_OP_EQ:                                                               \
    CMPC_LOOP(T, ==, C) break;                                                 \
  case LM_OP_NE:                                                               \
    CMPC_LOOP(T, !=, C) break;                                                 \
  case LM_OP_LT:                                                               \
    CMPC_LOOP(T, <, C) break;                                                  \
  case LM_OP_LE:                                                               \
    CMPC_LOOP(T, <=, C) break;                                                 \
  case LM_OP_GT:                                                               \
    CMPC_LOOP(T, >, C) break;                                                  \
  default:                                                                     \
    CMPC_LOOP(T, >=, C) break;                                                 \
  }

static bool compare_const(lm_array *x, const lm_value *c, lm_op op,
                          lm_builder *b) {
  int64_t n = x->length;
  lm_type_id t = x->type.id;
  bool i64 = is_i64_class(t), f64 = t == LM_TYPE_FLOAT64;
  if (!(i64 || f64) || !lm_type_eq(x->type, c->type) || c->is_null)
    return false;
  const void *xa =
      i64 ? (const void *)lm_array_i64(x) : (const void *)lm_array_f64(x);
  if (f64) { /* NaN: PostgreSQL's order, the general loop */
    if (isnan(c->v.f))
      return false;
    for (int64_t i = 0; i < n; i++)
      if (isnan(((const double *)xa)[i]))
        return false;
  }
  uint8_t *r = b->values;
  if (i64) {
    const int64_t k = c->v.i;
    CMPC_ALL(int64_t, k)
  } else {
    const double k = c->v.f;
    CMPC_ALL(double, k)
  }
  if (x->validity)
    for (int64_t i = 0; i < n; i++)
      if (isnull(x, i)) {
        r[i >> 3] &= (uint8_t) ~(1u << (i & 7));
        lm_out_null(b, i);
      }
  return true;
}

/* e (a comparison) when one side is a literal compare_const takes: the
 * other side evaluated, the literal not broadcast. -1: not taken (the
 * caller evaluates e as usual); otherwise 0 or the error code. */
static int compare_literal(const lm_bexpr *e, const lm_batch *in,
                           lm_array **out, lm_error *err) {
  static const lm_op flip[] = {
      [LM_OP_EQ] = LM_OP_EQ, [LM_OP_NE] = LM_OP_NE, [LM_OP_LT] = LM_OP_GT,
      [LM_OP_LE] = LM_OP_GE, [LM_OP_GT] = LM_OP_LT, [LM_OP_GE] = LM_OP_LE};
  const lm_bexpr *l = e->args[0], *r = e->args[1];
  lm_op op = e->op;
  if (l->kind == LM_BX_LITERAL && r->kind != LM_BX_LITERAL) {
    l = e->args[1];
    r = e->args[0];
    op = flip[e->op];
  }
  if (r->kind != LM_BX_LITERAL || r->lit.is_null ||
      !lm_type_eq(l->type, r->type) ||
      !(is_i64_class(l->type.id) || l->type.id == LM_TYPE_FLOAT64))
    return -1;
  lm_array *x = NULL;
  int rc = eval(l, in, &x, err);
  if (rc)
    return rc;
  lm_builder b;
  if (lm_out_fixed(&b, e->type, x->length)) {
    lm_array_release(x);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lm_value c = r->lit;
  c.type = r->type;
  if (!compare_const(x, &c, op, &b)) {
    lm_builder_free(&b);
    rc = -1; /* NaN or another shape: the general path */
  } else {
    rc = lm_out_finish(&b, out, err);
  }
  lm_array_release(x);
  return rc;
}

static int compare(const lm_bexpr *e, lm_array *x, lm_array *y, lm_array **out,
                   lm_error *err) {
  int64_t n = x->length;
  lm_builder b;
  if (lm_out_fixed(&b, e->type, n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  uint8_t *r = b.values;
  lm_type_id t = x->type.id;
  bool jsonb = lm_type_is_jsonb(x->type) || lm_type_is_jsonb(y->type);
  if (t == LM_TYPE_NULL || y->type.id == LM_TYPE_NULL) {
    for (int64_t i = 0; i < n; i++)
      lm_out_null(&b, i);
    return lm_out_finish(&b, out, err);
  }
  if (compare_fast(e, x, y, &b))
    return lm_out_finish(&b, out, err);
  for (int64_t i = 0; i < n; i++) {
    if (isnull(x, i) || isnull(y, i)) {
      lm_out_null(&b, i);
      continue;
    }
    int c;
    if (t == LM_TYPE_INTERVAL_MDN || y->type.id == LM_TYPE_INTERVAL_MDN) {
      c = lm_mdn_cmp(x, i, y, i); /* expr_mdn.c */
    } else if (t == LM_TYPE_DECIMAL128 || t == LM_TYPE_DATE32 ||
               t == LM_TYPE_TIME64 || t == LM_TYPE_BINARY) {
      c = lm_types_cmp(x, i, y, i); /* expr_types.c */
    } else if (is_i64_class(t) || lm_type_is_integer(x->type)) {
      int64_t a = lm_array_get_i64(x, i), d = lm_array_get_i64(y, i);
      c = a < d ? -1 : a > d;
    } else if (t == LM_TYPE_FLOAT64 || t == LM_TYPE_FLOAT32) {
      double a = lm_array_get_f64(x, i), d = lm_array_get_f64(y, i);
      /* NaN sorts above everything and equals itself (PostgreSQL). */
      if (isnan(a) || isnan(d))
        c = isnan(a) && isnan(d) ? 0 : isnan(a) ? 1 : -1;
      else
        c = a < d ? -1 : a > d;
    } else if (t == LM_TYPE_BOOL) {
      c = (int)lm_array_bool(x, i) - (int)lm_array_bool(y, i);
    } else if (t == LM_TYPE_UTF8) {
      int32_t al, bl;
      const char *a = lm_array_str(x, i, &al), *d = lm_array_str(y, i, &bl);
      c = jsonb ? lm_jsonb_cmp(a, (size_t)al, d, (size_t)bl)
                : cmp_str(a, al, d, bl);
    } else {
      lm_builder_free(&b);
      return at_err(err, e, "cannot compare values of type %s",
                    lm_type_name(x->type));
    }
    if (lm_cmp_holds(e->op, c))
      lm_bit_set(r, i);
  }
  return lm_out_finish(&b, out, err);
}

static int logic(const lm_bexpr *e, lm_array *x, lm_array *y, lm_array **out,
                 lm_error *err) {
  int64_t n = x->length;
  lm_builder b;
  if (lm_out_fixed(&b, e->type, n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  bool is_and = e->op == LM_OP_AND;
  for (int64_t i = 0; i < n; i++) {
    bool xn = x->type.id == LM_TYPE_NULL || isnull(x, i);
    bool yn = y->type.id == LM_TYPE_NULL || isnull(y, i);
    bool xv = !xn && lm_array_bool(x, i), yv = !yn && lm_array_bool(y, i);
    if (is_and) {
      if ((!xn && !xv) || (!yn && !yv))
        continue; /* false */
      if (xn || yn)
        lm_out_null(&b, i);
      else
        lm_bit_set(b.values, i);
    } else {
      if ((!xn && xv) || (!yn && yv)) {
        lm_bit_set(b.values, i);
        continue;
      }
      if (xn || yn)
        lm_out_null(&b, i);
    }
  }
  return lm_out_finish(&b, out, err);
}

/* Evaluates e over the rows sel[0..n) of `in` (all of them when n is
 * in->num_rows and sel is the identity): *out has n rows. */
static int eval_rows(const lm_bexpr *e, const lm_batch *in, const int32_t *sel,
                     int64_t n, lm_array **out, lm_error *err) {
  if (n == in->num_rows)
    return eval(e, in, out, err);
  lm_batch *sub = lm_batch_take(in, sel, n);
  if (!sub)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  int rc = eval(e, sub, out, err);
  lm_batch_release(sub);
  return rc;
}

/* AND / OR with PostgreSQL's left-to-right short circuit: the right side
 * is evaluated only on the rows the left side does not decide (so `x <> 0
 * AND 10 / x > 1` raises no division by zero), three-valued. */
static int logic_lazy(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                      lm_error *err) {
  int64_t n = in->num_rows;
  lm_array *x = NULL, *y = NULL;
  int rc = eval(e->args[0], in, &x, err);
  if (rc)
    return rc;
  bool is_and = e->op == LM_OP_AND;
  int32_t *sel = malloc(sizeof(int32_t) * (size_t)(n + 1));
  if (!sel) {
    lm_array_release(x);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  int64_t n_sel = 0;
  for (int64_t i = 0; i < n; i++) {
    bool xn = x->type.id == LM_TYPE_NULL || isnull(x, i);
    if (xn || lm_array_bool(x, i) == is_and)
      sel[n_sel++] = (int32_t)i;
  }
  if (n_sel > 0 && (rc = eval_rows(e->args[1], in, sel, n_sel, &y, err))) {
    free(sel);
    lm_array_release(x);
    return rc;
  }
  lm_builder b;
  if (lm_out_fixed(&b, e->type, n)) {
    free(sel);
    lm_array_release(x);
    lm_array_release(y);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    bool xn = x->type.id == LM_TYPE_NULL || isnull(x, i);
    bool xv = !xn && lm_array_bool(x, i);
    if (k < n_sel && sel[k] == i) {
      bool yn = y->type.id == LM_TYPE_NULL || isnull(y, k);
      bool yv = !yn && lm_array_bool(y, k);
      k++;
      /* here x is NULL or the neutral value (TRUE for AND, FALSE for OR) */
      if (!yn && yv != is_and) { /* y decides */
        if (yv)
          lm_bit_set(b.values, i);
      } else if (xn || yn) {
        lm_out_null(&b, i);
      } else if (is_and) {
        lm_bit_set(b.values, i);
      }
    } else if (xv) { /* decided by x: FALSE for AND, TRUE for OR */
      lm_bit_set(b.values, i);
    }
  }
  free(sel);
  lm_array_release(x);
  lm_array_release(y);
  return lm_out_finish(&b, out, err);
}

static int concat(const lm_bexpr *e, lm_array *x, lm_array *y, lm_array **out,
                  lm_error *err) {
  lm_builder b;
  if (lm_builder_init(&b, e->type, x->length))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_buf t;
  lm_buf_init(&t);
  for (int64_t i = 0; i < x->length; i++) {
    if (isnull(x, i) || isnull(y, i)) {
      lm_builder_append_null(&b);
      continue;
    }
    int32_t al, bl;
    const char *a = lm_array_str(x, i, &al), *c = lm_array_str(y, i, &bl);
    lm_buf_reset(&t);
    lm_buf_append(&t, a, (size_t)al);
    lm_buf_append(&t, c, (size_t)bl);
    lm_builder_append_str(&b, t.data ? t.data : "", (int32_t)t.len);
  }
  lm_buf_free(&t);
  return lm_out_finish(&b, out, err);
}

/* ------------------------------------------------------------ LIKE */

static int32_t utf8_len(const char *s, int32_t len, int32_t i) {
  int32_t j = i + 1;
  while (j < len && ((unsigned char)s[j] & 0xC0) == 0x80)
    j++;
  return j - i;
}

static bool bytes_eq(const char *a, const char *b, int32_t n, bool icase) {
  if (!icase)
    return !memcmp(a, b, (size_t)n);
  for (int32_t k = 0; k < n; k++) {
    unsigned char x = (unsigned char)a[k], y = (unsigned char)b[k];
    if (x >= 'A' && x <= 'Z')
      x = (unsigned char)(x + 32);
    if (y >= 'A' && y <= 'Z')
      y = (unsigned char)(y + 32);
    if (x != y)
      return false;
  }
  return true;
}

typedef struct like_tok {
  uint8_t kind; /* 0 one literal character, 1 '_', 2 '%', 3 a trailing
                 * escape character (an error only when reached) */
  int32_t off, len;
} like_tok;

/* PostgreSQL LIKE / ILIKE (ASCII case folding): '_' one character, '%'
 * any run, `esc` (esc_len bytes: one character, or 0 for none) makes the
 * next pattern character literal. 1 match, 0 no match, -1 when the match
 * reaches an escape character that ends the pattern while text remains
 * (PostgreSQL 15's MatchText: 'a' LIKE 'a\' is false, 'ab' LIKE 'a\' and
 * 'a' LIKE '%\' are errors), -2 out of memory. */
static int like_match(const char *s, int32_t sl, const char *p, int32_t pl,
                      const char *esc, int32_t esc_len, bool icase) {
  like_tok stack[128], *t = stack;
  if (pl > 128 && !(t = malloc(sizeof *t * (size_t)pl)))
    return -2;
  int32_t nt = 0;
  int rc = 1;
  for (int32_t k = 0; k < pl;) {
    int32_t n = utf8_len(p, pl, k);
    if (esc_len && n == esc_len && !memcmp(p + k, esc, (size_t)n)) {
      k += n;
      if (k >= pl) {
        t[nt++] = (like_tok){3, k, 0};
        break;
      }
      n = utf8_len(p, pl, k);
      t[nt++] = (like_tok){0, k, n};
    } else if (p[k] == '%') {
      if (!nt || t[nt - 1].kind != 2)
        t[nt++] = (like_tok){2, k, 1};
    } else {
      t[nt++] = (like_tok){p[k] == '_' ? 1 : 0, k, n};
    }
    k += n;
  }
  if (rc == 1) {
    int32_t si = 0, ti = 0, star_t = -1, star_s = 0;
    bool ok = true;
    while (si < sl) {
      if (ti < nt && t[ti].kind == 3) {
        ok = false;
        rc = -1;
        break;
      }
      if (ti < nt && t[ti].kind == 1) {
        si += utf8_len(s, sl, si);
        ti++;
      } else if (ti < nt && t[ti].kind == 0 && si + t[ti].len <= sl &&
                 utf8_len(s, sl, si) == t[ti].len &&
                 bytes_eq(s + si, p + t[ti].off, t[ti].len, icase)) {
        si += t[ti].len;
        ti++;
      } else if (ti < nt && t[ti].kind == 2) {
        /* PostgreSQL checks the escape after a '%' (and the '_' that
         * follow it) before trying any position */
        int32_t j = ti + 1, need = 0;
        while (j < nt && (t[j].kind == 1 || t[j].kind == 2))
          need += t[j++].kind == 1;
        if (j < nt && t[j].kind == 3) {
          for (int32_t q = si; q < sl && need > 0; q += utf8_len(s, sl, q))
            need--;
          if (need == 0) {
            ok = false;
            rc = -1;
            break;
          }
        }
        star_t = ti++;
        star_s = si;
      } else if (star_t >= 0) {
        ti = star_t + 1;
        star_s += utf8_len(s, sl, star_s);
        si = star_s;
      } else {
        ok = false;
        break;
      }
    }
    while (ok && ti < nt && t[ti].kind == 2)
      ti++;
    if (rc != -1)
      rc = ok && ti == nt;
  }
  if (t != stack)
    free(t);
  return rc;
}

/* ----------------------------------------------------------- functions */

static bool unit_is(const char *u, const char *name) {
  size_t l = strlen(name);
  return !lm_strcasecmp(u, name) || (!strncasecmp(u, name, l) &&
                                     (u[l] == 's' || u[l] == 'S') && !u[l + 1]);
}

/* A date_trunc / date_part unit, resolved once per call (not per row). */
typedef enum date_unit {
  DU_MICROSECOND,
  DU_MILLISECOND,
  DU_SECOND,
  DU_MINUTE,
  DU_HOUR,
  DU_DAY,
  DU_WEEK,
  DU_MONTH,
  DU_QUARTER,
  DU_YEAR,
  DU_EPOCH,
  DU_DOW,
  DU_ISODOW,
  DU_DECADE,
  DU_CENTURY,
  DU_MILLENNIUM,
  DU_ISOYEAR,
  DU_JULIAN,
  DU_OTHER, /* date_trunc: year; date_part: doy */
} date_unit;

static date_unit date_unit_of(const char *u) {
  static const struct {
    const char *name;
    date_unit unit;
  } plural[] = {{"microsecond", DU_MICROSECOND},
                {"millisecond", DU_MILLISECOND},
                {"second", DU_SECOND},
                {"minute", DU_MINUTE},
                {"hour", DU_HOUR},
                {"day", DU_DAY},
                {"week", DU_WEEK},
                {"month", DU_MONTH},
                {"quarter", DU_QUARTER},
                {"year", DU_YEAR},
                {"epoch", DU_EPOCH},
                {"decade", DU_DECADE},
                {"century", DU_CENTURY},
                {"millennium", DU_MILLENNIUM}};
  for (size_t k = 0; k < sizeof plural / sizeof plural[0]; k++)
    if (unit_is(u, plural[k].name))
      return plural[k].unit;
  if (!lm_strcasecmp(u, "dow"))
    return DU_DOW;
  if (!lm_strcasecmp(u, "isodow"))
    return DU_ISODOW;
  if (!lm_strcasecmp(u, "isoyear"))
    return DU_ISOYEAR;
  if (!lm_strcasecmp(u, "julian"))
    return DU_JULIAN;
  return DU_OTHER;
}

/* The unit of row i of a non-constant date_trunc / date_part unit
 * (PostgreSQL evaluates it per row): 0 with *du, or PostgreSQL's error
 * (22023 not recognized, 0A000 a time zone field of a TIMESTAMP). */
static int date_unit_row(const lm_bexpr *e, const char *s, int32_t len,
                         bool trunc, date_unit *du, lm_error *err) {
  static const char *const names[] = {
      "microsecond", "millisecond", "second",    "minute",  "hour",
      "day",         "week",        "month",     "quarter", "year",
      "decade",      "century",     "millennium"};
  static const char *const part_only[] = {"dow",   "isodow",  "doy",
                                          "epoch", "isoyear", "julian"};
  char u[64];
  int32_t l = len < (int32_t)sizeof u - 1 ? len : (int32_t)sizeof u - 1;
  for (int32_t k = 0; k < l; k++)
    u[k] = (char)tolower((unsigned char)s[k]);
  u[l] = 0;
  bool ok = (int32_t)strlen(u) == len;
  bool known = false;
  for (size_t k = 0; ok && !known && k < sizeof names / sizeof names[0]; k++)
    known = unit_is(u, names[k]);
  for (size_t k = 0; ok && !known && !trunc && k < 6; k++)
    known = !strcmp(u, part_only[k]);
  if (known) {
    *du = date_unit_of(u);
    return 0;
  }
  if (ok && !trunc &&
      (!strcmp(u, "timezone") || !strcmp(u, "timezone_hour") ||
       !strcmp(u, "timezone_minute")))
    return lm_fn_error(err, e, "0A000",
                       "unit \"%s\" not supported for type timestamp "
                       "without time zone",
                       u);
  return lm_fn_error(err, e, "22023",
                     "unit \"%s\" not recognized for type timestamp "
                     "without time zone",
                     u);
}

/* date_trunc('unit', ts) and date_part('field', ts) on UTC instants
 * (PostgreSQL semantics: weeks start on Monday, dow 0 = Sunday, second and
 * epoch carry the fraction). */
static int date_func(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                     lm_error *err) {
  lm_array *a;
  int rc = eval(e->args[1], in, &a, err);
  if (rc)
    return rc;
  /* a constant unit is resolved once; another is read per row */
  const lm_bexpr *ue = e->args[0];
  lm_array *ua = NULL;
  bool konst = ue->kind == LM_BX_LITERAL && !ue->lit.is_null;
  date_unit du = konst ? date_unit_of(ue->lit.v.s.p) : DU_OTHER;
  if (!konst && (rc = eval(ue, in, &ua, err))) {
    lm_array_release(a);
    return rc;
  }
  const char *last_u = NULL; /* the text of the last row's unit */
  int32_t last_ul = -1;
  int64_t n = in->num_rows;
  lm_builder b;
  if (lm_out_fixed(&b, e->type, n)) {
    lm_array_release(a);
    lm_array_release(ua);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  bool trunc = e->fn == LM_FN_DATE_TRUNC;
  int64_t last_days = INT64_MIN, y = 0; /* the civil date of the last day */
  unsigned m = 1, d = 1;                /* (rows often share a day) */
  for (int64_t i = 0; i < n; i++) {
    if (a->type.id == LM_TYPE_NULL || isnull(a, i)) {
      lm_out_null(&b, i);
      continue;
    }
    if (ua) {
      int32_t ul;
      if (ua->type.id == LM_TYPE_NULL || isnull(ua, i)) {
        lm_out_null(&b, i);
        ((int64_t *)b.values)[i] = 0;
        continue;
      }
      const char *ut = lm_array_str(ua, i, &ul);
      if (ul != last_ul || memcmp(ut, last_u, (size_t)ul)) {
        if ((rc = date_unit_row(e, ut, ul, trunc, &du, err))) {
          lm_array_release(a);
          lm_array_release(ua);
          lm_builder_free(&b);
          return rc;
        }
        last_u = ut;
        last_ul = ul;
      }
    }
    int64_t us = lm_array_i64(a)[i];
    if (!lm_ts_finite(us)) {
      /* PostgreSQL: date_trunc keeps infinity; the fields that grow with
       * time (year, decade, century, millennium, isoyear, epoch) are
       * ±Infinity, the others NULL */
      if (trunc) {
        ((int64_t *)b.values)[i] = us;
      } else if (e->type.id == LM_TYPE_FLOAT64 &&
                 (du == DU_YEAR || du == DU_DECADE || du == DU_CENTURY ||
                  du == DU_MILLENNIUM || du == DU_ISOYEAR || du == DU_EPOCH)) {
        ((double *)b.values)[i] = us > 0 ? INFINITY : -INFINITY;
      } else {
        lm_out_null(&b, i);
        ((int64_t *)b.values)[i] = 0;
      }
      continue;
    }
    int64_t days = lm_floor_div(us, LM_US_PER_DAY);
    int64_t tod = us - days * LM_US_PER_DAY; /* µs into the day, >= 0 */
    if (days != last_days) {
      lm_civil_from_days(days, &y, &m, &d);
      last_days = days;
    }
    int64_t dow_mon0 = lm_floor_mod(days + 3, 7); /* 1970-01-01: Thursday */
    if (trunc) {
      int64_t r;
      switch (du) {
      case DU_MICROSECOND:
        r = us;
        break;
      case DU_MILLISECOND:
        r = lm_floor_div(us, 1000) * 1000;
        break;
      case DU_SECOND:
        r = lm_floor_div(us, LM_US_PER_SEC) * LM_US_PER_SEC;
        break;
      case DU_MINUTE:
        r = lm_floor_div(us, LM_US_PER_MIN) * LM_US_PER_MIN;
        break;
      case DU_HOUR:
        r = lm_floor_div(us, LM_US_PER_HOUR) * LM_US_PER_HOUR;
        break;
      case DU_DAY:
        r = days * LM_US_PER_DAY;
        break;
      case DU_WEEK:
        r = (days - dow_mon0) * LM_US_PER_DAY;
        break;
      case DU_MONTH:
        r = lm_days_from_civil(y, m, 1) * LM_US_PER_DAY;
        break;
      case DU_QUARTER:
        r = lm_days_from_civil(y, (m - 1) / 3 * 3 + 1, 1) * LM_US_PER_DAY;
        break;
      case DU_DECADE: /* PostgreSQL's timestamp_trunc (y: 0 = 1 BC) */
      case DU_CENTURY:
      case DU_MILLENNIUM: {
        int64_t w = du == DU_DECADE ? 10 : du == DU_CENTURY ? 100 : 1000;
        int64_t ty = du == DU_DECADE
                         ? (y > 0 ? y / 10 * 10 : -((8 - (y - 1)) / 10) * 10)
                     : y > 0 ? (y + w - 1) / w * w - (w - 1)
                             : -((w - 1 - (y - 1)) / w) * w + 1;
        r = lm_days_from_civil(ty, 1, 1) * LM_US_PER_DAY;
        break;
      }
      default:
        r = lm_days_from_civil(y, 1, 1) * LM_US_PER_DAY;
      }
      ((int64_t *)b.values)[i] = r;
      continue;
    }
    double sec = (double)(tod % LM_US_PER_MIN) / 1e6, dv = 0;
    bool f64 = e->type.id == LM_TYPE_FLOAT64; /* BIGINT: Flink's hour() */
    if (du == DU_SECOND) {
      dv = sec;
    } else if (du == DU_MILLISECOND) {
      dv = (double)(tod % LM_US_PER_MIN) / 1e3;
    } else if (du == DU_MICROSECOND) {
      dv = (double)(tod % LM_US_PER_MIN);
    } else if (du == DU_EPOCH) {
      dv = (double)us / 1e6;
    } else if (du == DU_JULIAN) { /* the Julian day, with the time */
      dv = (double)(days + 2440588) + (double)tod / 86400e6;
    } else {
      int64_t v;
      if (du == DU_MINUTE)
        v = tod / LM_US_PER_MIN % 60;
      else if (du == DU_HOUR)
        v = tod / LM_US_PER_HOUR;
      else if (du == DU_DAY)
        v = d;
      else if (du == DU_MONTH)
        v = m;
      else if (du == DU_QUARTER)
        v = (m - 1) / 3 + 1;
      else if (du == DU_YEAR)
        v = y > 0 ? y : y - 1; /* no year 0: 1 BC is -1 */
      else if (du == DU_DOW)
        v = (dow_mon0 + 1) % 7; /* Sunday = 0 */
      else if (du == DU_ISODOW)
        v = dow_mon0 + 1;       /* Monday = 1 .. Sunday = 7 */
      else if (du == DU_DECADE) /* PostgreSQL: year / 10, floored */
        v = lm_floor_div(y, 10);
      else if (du == DU_CENTURY) /* 1 = 1..100; 0 and BC negative */
        v = y > 0 ? (y + 99) / 100 : -((99 - (y - 1)) / 100);
      else if (du == DU_MILLENNIUM)
        v = y > 0 ? (y + 999) / 1000 : -((999 - (y - 1)) / 1000);
      else if (du == DU_WEEK || du == DU_ISOYEAR) {
        /* ISO 8601: the week of the Thursday of this week */
        int64_t thu = days - dow_mon0 + 3, ty;
        unsigned tm, td;
        lm_civil_from_days(thu, &ty, &tm, &td);
        v = du == DU_WEEK ? (thu - lm_days_from_civil(ty, 1, 1)) / 7 + 1
            : ty > 0      ? ty
                          : ty - 1; /* PostgreSQL's isoyear: 1 BC is -1 */
      } else                   /* doy */
        v = days - lm_days_from_civil(y, 1, 1) + 1;
      dv = (double)v;
    }
    if (f64)
      ((double *)b.values)[i] = dv;
    else
      ((int64_t *)b.values)[i] = (int64_t)dv;
  }
  lm_array_release(a);
  lm_array_release(ua);
  return lm_out_finish(&b, out, err);
}

/* trim/ltrim/rtrim (spaces), replace (every occurrence, left to right,
 * an empty `from` changes nothing) and concat (NULL arguments skipped), as
 * in PostgreSQL. */
static int string_func(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                       lm_error *err) {
  int64_t n = in->num_rows;
  int na = e->n_args, rc = 0;
  lm_array **args = calloc((size_t)LM_MAX(na, 1), sizeof *args);
  if (!args)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int i = 0; i < na && !rc; i++)
    rc = eval(e->args[i], in, &args[i], err);
  lm_builder b;
  memset(&b, 0, sizeof b);
  lm_buf t;
  lm_buf_init(&t);
  if (!rc && lm_builder_init(&b, e->type, n))
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int64_t i = 0; i < n && !rc; i++) {
    bool any_null = false;
    for (int k = 0; k < na; k++)
      any_null |= args[k]->type.id == LM_TYPE_NULL || isnull(args[k], i);
    if (any_null && e->fn != LM_FN_CONCAT) {
      lm_builder_append_null(&b);
      continue;
    }
    lm_buf_reset(&t);
    int32_t len = 0;
    const char *s = args[0]->type.id == LM_TYPE_NULL || isnull(args[0], i)
                        ? ""
                        : lm_array_str(args[0], i, &len);
    if (e->fn == LM_FN_CONCAT) {
      for (int k = 0; k < na; k++) {
        if (args[k]->type.id == LM_TYPE_NULL || isnull(args[k], i))
          continue;
        const char *p = lm_array_str(args[k], i, &len);
        lm_buf_append(&t, p, (size_t)len);
      }
    } else if (e->fn == LM_FN_REPLACE) {
      int32_t fl, tl;
      const char *f = lm_array_str(args[1], i, &fl);
      const char *to = lm_array_str(args[2], i, &tl);
      for (int32_t k = 0; k < len;) {
        if (fl > 0 && k + fl <= len && !memcmp(s + k, f, (size_t)fl)) {
          lm_buf_append(&t, to, (size_t)tl);
          k += fl;
        } else
          lm_buf_putc(&t, s[k++]);
      }
    } else {
      int32_t a = 0, z = len;
      if (e->fn != LM_FN_RTRIM)
        while (a < z && s[a] == ' ')
          a++;
      if (e->fn != LM_FN_LTRIM)
        while (z > a && s[z - 1] == ' ')
          z--;
      lm_buf_append(&t, s + a, (size_t)(z - a));
    }
    if (t.len > INT32_MAX)
      rc = at_err(err, e, "string result too long", NULL);
    else
      lm_builder_append_str(&b, t.data ? t.data : "", (int32_t)t.len);
  }
  lm_buf_free(&t);
  for (int i = 0; i < na; i++)
    lm_array_release(args[i]);
  free(args);
  if (rc) {
    lm_builder_free(&b);
    return rc;
  }
  return lm_out_finish(&b, out, err);
}

/* COALESCE as PostgreSQL evaluates it: argument k only on the rows where
 * the arguments before it were all NULL. */
static int coalesce_lazy(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                         lm_error *err) {
  int64_t n = in->num_rows;
  size_t sz = sizeof(int32_t) * (size_t)(n + 1);
  int32_t *rem = malloc(sz), *keep = malloc(sz), *branch = malloc(sz),
          *pos = malloc(sz);
  lm_array **res = calloc((size_t)e->n_args + 1, sizeof *res);
  int rc = 0;
  if (!rem || !keep || !branch || !pos || !res) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  int64_t n_rem = n;
  for (int64_t i = 0; i < n; i++) {
    rem[i] = (int32_t)i;
    branch[i] = -1;
  }
  for (int k = 0; k < e->n_args && n_rem > 0; k++) {
    if ((rc = eval_rows(e->args[k], in, rem, n_rem, &res[k], err)))
      goto done;
    int64_t n_keep = 0;
    for (int64_t j = 0; j < n_rem; j++) {
      if (res[k]->type.id == LM_TYPE_NULL || isnull(res[k], j)) {
        keep[n_keep++] = rem[j];
      } else {
        branch[rem[j]] = k;
        pos[rem[j]] = (int32_t)j;
      }
    }
    memcpy(rem, keep, sizeof(int32_t) * (size_t)n_keep);
    n_rem = n_keep;
  }
  lm_builder b;
  if (lm_builder_init(&b, e->type, n)) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  for (int64_t i = 0; i < n; i++) {
    if (branch[i] < 0)
      lm_builder_append_null(&b);
    else
      lm_builder_append_from(&b, res[branch[i]], pos[i]);
  }
  rc = lm_out_finish(&b, out, err);
done:
  free(rem);
  free(keep);
  free(branch);
  free(pos);
  if (res)
    for (int k = 0; k < e->n_args; k++)
      lm_array_release(res[k]);
  free(res);
  return rc;
}

/* One value of a and one of b (same type, both non-NULL) compared as
 * PostgreSQL orders them (NaN above every number). */
static int cmp_values(const lm_array *a, int64_t i, const lm_array *b,
                      int64_t j) {
  lm_type_id t = a->type.id;
  if (t == LM_TYPE_FLOAT64 || t == LM_TYPE_FLOAT32) {
    double x = lm_array_get_f64(a, i), y = lm_array_get_f64(b, j);
    if (isnan(x) || isnan(y))
      return isnan(x) && isnan(y) ? 0 : isnan(x) ? 1 : -1;
    return x < y ? -1 : x > y;
  }
  if (t == LM_TYPE_UTF8) {
    int32_t al, bl;
    const char *x = lm_array_str(a, i, &al), *y = lm_array_str(b, j, &bl);
    if (lm_type_is_jsonb(a->type) && lm_type_is_jsonb(b->type))
      return lm_jsonb_cmp(x, (size_t)al, y, (size_t)bl); /* jsonb_cmp */
    return cmp_str(x, al, y, bl);
  }
  if (t == LM_TYPE_BOOL)
    return (int)lm_array_bool(a, i) - (int)lm_array_bool(b, j);
  if (t == LM_TYPE_DECIMAL128 || t == LM_TYPE_BINARY)
    return lm_types_cmp(a, i, b, j); /* expr_types.c */
  return lm_array_cmp(a, i, b, j);
}

/* GREATEST / LEAST (NULL arguments ignored; NULL only when all are) and
 * NULLIF(a, b) (a, or NULL when a = b), all over one common type; NULLIF's
 * optional third argument is the value returned (a in its own type, e's). */
static int cond_func(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                     lm_error *err) {
  int64_t n = in->num_rows;
  lm_array **a = NULL;
  lm_builder b;
  int rc = lm_fn_begin(e, in, &a, &b, err);
  if (rc)
    return rc;
  if (e->type.id == LM_TYPE_NULL) {
    for (int64_t i = 0; i < n; i++)
      lm_builder_append_null(&b);
  } else if (e->fn == LM_FN_NULLIF) {
    for (int64_t i = 0; i < n; i++) {
      if (lm_farg_null(a[0], i))
        lm_builder_append_null(&b);
      else if (!lm_farg_null(a[1], i) && !cmp_values(a[0], i, a[1], i))
        lm_builder_append_null(&b);
      else /* a third argument: the first in its own type (func_bind.c) */
        lm_builder_append_from(&b, a[e->n_args == 3 ? 2 : 0], i);
    }
  } else {
    int sign = e->fn == LM_FN_GREATEST ? 1 : -1;
    for (int64_t i = 0; i < n; i++) {
      int best = -1;
      for (int k = 0; k < e->n_args; k++)
        if (!lm_farg_null(a[k], i) &&
            (best < 0 || sign * cmp_values(a[k], i, a[best], i) > 0))
          best = k;
      if (best < 0)
        lm_builder_append_null(&b);
      else
        lm_builder_append_from(&b, a[best], i);
    }
  }
  return lm_fn_end(e, a, &b, rc, out, err);
}

static int func_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                     lm_error *err) {
  int64_t n = in->num_rows;
  lm_array *a = NULL;
  int rc;
  if (e->fn == LM_FN_COALESCE)
    return coalesce_lazy(e, in, out, err);
  if (e->fn == LM_FN_DATE_TRUNC || e->fn == LM_FN_DATE_PART)
    return date_func(e, in, out, err);
  if (e->fn >= LM_FN_TRIM && e->fn <= LM_FN_CONCAT)
    return string_func(e, in, out, err);
  if (e->fn >= LM_FN_DATE_FORMAT && e->fn <= LM_FN_COUNT_CHAR)
    return lm_strfn_eval(e, in, out, err); /* expr_strfn.c */
  if (e->fn >= LM_FN_GREATEST && e->fn <= LM_FN_NULLIF)
    return cond_func(e, in, out, err);
  if (e->fn >= LM_FN_TRUNC && e->fn <= LM_FN_WIDTH_BUCKET)
    return lm_mathfn_eval(e, in, out, err);
  if (e->fn >= LM_FN_OCTET_LENGTH && e->fn <= LM_FN_CHR)
    return lm_textfn_eval(e, in, out, err);
  if (e->fn >= LM_FN_REGEX_OP && e->fn <= LM_FN_REGEXP_SUBSTR)
    return lm_regexfn_eval(e, in, out, err);
  if (e->fn >= LM_FN_TO_CHAR && e->fn <= LM_FN_AGE)
    return lm_datefn_eval(e, in, out, err);
  if (e->fn >= LM_FN_JSON_GET && e->fn <= LM_FN_JSON_GET_TEXT)
    return lm_jsonfn_eval(e, in, out, err);
  if (e->fn >= LM_FN_JSON_PATH && e->fn <= LM_FN_JSONB_DELETE)
    return lm_json2_eval(e, in, out, err); /* expr_json2.c */
  if (e->fn == LM_FN_REGEXP_COUNT || e->fn == LM_FN_REGEXP_INSTR)
    return lm_regexfn_eval(e, in, out, err); /* expr_regexfn.c */
  if (e->fn == LM_FN_DATE_BIN)
    return lm_datebin_eval(e, in, out, err); /* expr_datebin.c */
  if (e->fn >= LM_FN_BIT_AND && e->fn <= LM_FN_MIN_SCALE)
    return lm_intfn_eval(e, in, out, err); /* expr_intfn.c */
  if (e->fn >= LM_FN_SIN && e->fn <= LM_FN_ATANH)
    return lm_trigfn_eval(e, in, out, err); /* expr_trigfn.c */
  if (e->fn >= LM_FN_TRANSLATE && e->fn <= LM_FN_SHA256)
    return lm_fmtfn_eval(e, in, out, err); /* expr_fmtfn.c */
  if (e->fn >= LM_FN_TO_NUMBER && e->fn <= LM_FN_BYTEA_BITS)
    return lm_fn5_eval(e, in, out, err); /* expr_fn5.c */
  if (e->fn >= LM_FN_ARR_CTOR && e->fn <= LM_FN_ARR_SUB)
    return lm_arrayfn_eval(e, in, out, err); /* expr_array.c */
  if (e->fn == LM_FN_DECIMAL_FN)
    return lm_types_decfn(e, in, out, err); /* expr_types.c */
  /* abs of SMALLINT, INTEGER, REAL: expr_num.c */
  if (e->fn == LM_FN_ABS &&
      (e->type.id == LM_TYPE_INT16 || e->type.id == LM_TYPE_INT32 ||
       e->type.id == LM_TYPE_FLOAT32))
    return lm_num_abs(e, in, out, err);
  lm_array *a1 = NULL, *a2 = NULL; /* optional 2nd and 3rd arguments */
  if ((rc = eval(e->args[0], in, &a, err)))
    return rc;
  bool window = e->fn == LM_FN_TUMBLE || e->fn == LM_FN_TUMBLE_END ||
                (e->fn >= LM_FN_HOP && e->fn <= LM_FN_SESSION_END);
  if (e->n_args > 1 && !window && (rc = eval(e->args[1], in, &a1, err))) {
    lm_array_release(a);
    return rc;
  }
  if (e->n_args > 2 && e->fn == LM_FN_SUBSTR &&
      (rc = eval(e->args[2], in, &a2, err))) {
    lm_array_release(a);
    lm_array_release(a1);
    return rc;
  }
  lm_builder b;
  switch (e->fn) {
  case LM_FN_SUBSTR: {
    if ((rc = lm_builder_init(&b, e->type, n)))
      break;
    for (int64_t i = 0; i < n; i++) {
      if (isnull(a, i) || isnull(a1, i) || (a2 && isnull(a2, i))) {
        lm_builder_append_null(&b);
        continue;
      }
      int32_t len;
      const char *s = lm_array_str(a, i, &len);
      int64_t start = lm_array_i64(a1)[i], cnt = a2 ? lm_array_i64(a2)[i] : -1;
      if (a2 && cnt < 0) {
        lm_builder_free(&b);
        lm_array_release(a);
        lm_array_release(a1);
        lm_array_release(a2);
        at_err(err, e, "negative substring length not allowed", NULL);
        return lm_err_state(err, "22011"); /* substring_error */
      }
      /* characters [start, start + cnt) intersected with [1, n] */
      int64_t end =
          a2 ? (start > INT64_MAX - cnt ? INT64_MAX : start + cnt) : INT64_MAX;
      int64_t from = start < 1 ? 1 : start;
      int32_t pos = 0, bs = len, be = len;
      for (int64_t ch = 1; pos <= len; ch++) {
        if (ch == from)
          bs = pos;
        if (ch == end) {
          be = pos;
          break;
        }
        if (pos == len)
          break;
        pos++;
        while (pos < len && ((unsigned char)s[pos] & 0xC0) == 0x80)
          pos++;
      }
      if (from >= end)
        bs = be = 0;
      if (bs > be)
        bs = be;
      lm_builder_append_str(&b, s + bs, be - bs);
    }
    break;
  }
  case LM_FN_TUMBLE:
  case LM_FN_TUMBLE_END:
  case LM_FN_HOP:
  case LM_FN_HOP_END:
  case LM_FN_CUMULATE:
  case LM_FN_CUMULATE_END:
  case LM_FN_SESSION:
  case LM_FN_SESSION_END: {
    /* As a scalar: the earliest window containing ts (docs/windows.md);
     * a session is only known to the session operator: [ts, ts + gap). */
    int64_t a1v = e->args[1]->lit.v.i;
    int64_t a2v = e->n_args > 2 ? e->args[2]->lit.v.i : 0;
    int64_t a3v = e->n_args > 3 ? e->args[3]->lit.v.i : 0;
    if ((rc = lm_out_fixed(&b, e->type, n)))
      break;
    int64_t *r = (int64_t *)b.values;
    const int64_t *ts = lm_array_i64(a);
    for (int64_t i = 0; i < n; i++) {
      if (isnull(a, i)) {
        lm_out_null(&b, i);
        r[i] = 0;
        continue;
      }
      int64_t t = ts[i], start, end;
      switch (e->fn) {
      case LM_FN_HOP:
      case LM_FN_HOP_END: /* slide a1v, size a2v, offset a3v */
        start =
            lm_clamp_i64(lm_floor_align128((__int128)t - a2v, a1v, a3v) + a1v);
        if (__builtin_add_overflow(start, a2v, &end))
          end = INT64_MAX;
        break;
      case LM_FN_CUMULATE:
      case LM_FN_CUMULATE_END: /* step a1v, max size a2v, offset a3v */
        start = lm_clamp_i64(lm_floor_align128(t, a2v, a3v));
        end = lm_clamp_i64(lm_floor_align128(t, a1v, start) + a1v);
        break;
      case LM_FN_SESSION:
      case LM_FN_SESSION_END:
        start = t;
        if (__builtin_add_overflow(t, a1v, &end))
          end = INT64_MAX;
        break;
      default: /* tumble: size a1v, offset a2v */
        start = lm_clamp_i64(lm_floor_align128(t, a1v, a2v));
        if (__builtin_add_overflow(start, a1v, &end))
          end = INT64_MAX;
        break;
      }
      r[i] = e->fn == LM_FN_TUMBLE || e->fn == LM_FN_HOP ||
                     e->fn == LM_FN_CUMULATE || e->fn == LM_FN_SESSION
                 ? start
                 : end;
    }
    break;
  }
  case LM_FN_ABS:
  case LM_FN_ROUND:
  case LM_FN_FLOOR:
  case LM_FN_CEIL: {
    if ((rc = lm_out_fixed(&b, e->type, n)))
      break;
    bool f = e->type.id == LM_TYPE_FLOAT64;
    for (int64_t i = 0; i < n; i++) {
      if (isnull(a, i)) {
        lm_out_null(&b, i);
        continue;
      }
      if (f) {
        double v = lm_array_f64(a)[i];
        if (e->fn == LM_FN_ROUND && a1) {
          if (isnull(a1, i)) {
            lm_out_null(&b, i);
            continue;
          }
          int64_t d = lm_array_i64(a1)[i];
          if (d > 300)
            d = 300;
          if (d < -300)
            d = -300;
          double m = pow(10.0, (double)(d < 0 ? -d : d));
          double r = d >= 0 ? round(v * m) / m : round(v / m) * m;
          /* large |v| * m may be inexact or infinite: keep v then */
          v = isfinite(r) ? r : v;
        } else {
          v = e->fn == LM_FN_ABS     ? fabs(v)
              : e->fn == LM_FN_ROUND ? (e->negated ? round(v) : nearbyint(v))
              : e->fn == LM_FN_FLOOR ? floor(v)
                                     : ceil(v);
        }
        if (v == 0 && e->negated)
          v = 0; /* no -0 from a numeric origin (PostgreSQL's numeric) */
        ((double *)b.values)[i] = v;
      } else {
        int64_t v = lm_array_i64(a)[i];
        if (e->fn == LM_FN_ROUND && a1 && !isnull(a1, i) &&
            lm_array_i64(a1)[i] < 0) {
          /* round(1234, -2) = 1200, half away from zero */
          int64_t d = -lm_array_i64(a1)[i], m = 1;
          while (d-- > 0 && m <= INT64_MAX / 10)
            m *= 10;
          int64_t q = v / m, rem = v % m;
          if (rem >= (m + 1) / 2)
            q++;
          if (rem <= -((m + 1) / 2))
            q--;
          if (lm_mul_overflow_i64(q, m, &v))
            v = q > 0 ? INT64_MAX : INT64_MIN;
        } else if (e->fn == LM_FN_ROUND && a1 && isnull(a1, i)) {
          lm_out_null(&b, i);
          continue;
        }
        if (e->fn == LM_FN_ABS) {
          if (v == INT64_MIN) {
            lm_builder_free(&b);
            lm_array_release(a);
            return lm_fn_error(err, e, "22003", "bigint out of range");
          }
          v = v < 0 ? -v : v;
        }
        ((int64_t *)b.values)[i] = v;
      }
    }
    break;
  }
  case LM_FN_LOWER:
  case LM_FN_UPPER:
  case LM_FN_LENGTH: {
    if (e->fn == LM_FN_LENGTH) {
      if ((rc = lm_out_fixed(&b, e->type, n)))
        break;
    } else if ((rc = lm_builder_init(&b, e->type, n)))
      break;
    lm_buf t;
    lm_buf_init(&t);
    for (int64_t i = 0; i < n; i++) {
      if (isnull(a, i)) {
        if (e->fn == LM_FN_LENGTH)
          lm_out_null(&b, i);
        else
          lm_builder_append_null(&b);
        continue;
      }
      int32_t len;
      const char *s = lm_array_str(a, i, &len);
      if (e->fn == LM_FN_LENGTH) {
        int64_t chars = 0;
        for (int32_t k = 0; k < len; k++)
          chars += ((unsigned char)s[k] & 0xC0) != 0x80;
        ((int64_t *)b.values)[i] = chars;
        continue;
      }
      lm_buf_reset(&t);
      lm_buf_append(&t, s, (size_t)len);
      for (size_t k = 0; k < t.len; k++)
        t.data[k] =
            (char)(e->fn == LM_FN_LOWER ? tolower((unsigned char)t.data[k])
                                        : toupper((unsigned char)t.data[k]));
      lm_builder_append_str(&b, t.data ? t.data : "", len);
    }
    lm_buf_free(&t);
    break;
  }
  default:
    lm_array_release(a);
    lm_array_release(a1);
    lm_array_release(a2);
    return at_err(err, e, "function not implemented", NULL);
  }
  lm_array_release(a);
  lm_array_release(a1);
  lm_array_release(a2);
  if (rc)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  return lm_out_finish(&b, out, err);
}

/* ----------------------------------------------------------------- CASE */

static int case_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                     lm_error *err) {
  int64_t n = in->num_rows;
  int n_pairs = (e->n_args - (e->has_else ? 1 : 0)) / 2;
  /* branch[i] = the branch whose result row i takes (-1 = NULL), pos[i] its
   * index in that branch's result. Each branch is evaluated only on its
   * own rows, so an error in a branch not taken (e.g. division by zero) is
   * not raised. */
  size_t sz = sizeof(int32_t) * (size_t)(n + 1);
  int32_t *rem = malloc(sz), *keep = malloc(sz), *sel = malloc(sz);
  int32_t *branch = malloc(sz), *pos = malloc(sz);
  lm_array **res = calloc((size_t)n_pairs + 1, sizeof(lm_array *));
  int rc = 0;
  if (!rem || !keep || !sel || !branch || !pos || !res) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  int64_t n_rem = n;
  for (int64_t i = 0; i < n; i++) {
    rem[i] = (int32_t)i;
    branch[i] = -1;
  }
  for (int k = 0; k <= n_pairs && n_rem > 0; k++) {
    bool is_else = k == n_pairs;
    if (is_else && !e->has_else)
      break;
    int64_t n_sel = 0, n_keep = 0;
    if (is_else) {
      memcpy(sel, rem, sizeof(int32_t) * (size_t)n_rem);
      n_sel = n_rem;
    } else {
      lm_batch *sub = lm_batch_take(in, rem, n_rem);
      lm_array *cond = NULL;
      if (!sub) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        goto done;
      }
      rc = eval(e->args[2 * k], sub, &cond, err);
      lm_batch_release(sub);
      if (rc)
        goto done;
      for (int64_t i = 0; i < n_rem; i++) {
        bool t = cond->type.id == LM_TYPE_BOOL && !isnull(cond, i) &&
                 lm_array_bool(cond, i);
        if (t)
          sel[n_sel++] = rem[i];
        else
          keep[n_keep++] = rem[i];
      }
      lm_array_release(cond);
    }
    if (n_sel > 0) {
      lm_batch *taken = lm_batch_take(in, sel, n_sel);
      if (!taken) {
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
        goto done;
      }
      rc = eval(e->args[is_else ? e->n_args - 1 : 2 * k + 1], taken, &res[k],
                err);
      lm_batch_release(taken);
      if (rc)
        goto done;
      for (int64_t j = 0; j < n_sel; j++) {
        branch[sel[j]] = k;
        pos[sel[j]] = (int32_t)j;
      }
    }
    if (is_else) {
      n_rem = 0;
    } else {
      memcpy(rem, keep, sizeof(int32_t) * (size_t)n_keep);
      n_rem = n_keep;
    }
  }
  lm_builder b;
  if (lm_builder_init(&b, e->type, n)) {
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
    goto done;
  }
  for (int64_t i = 0; i < n; i++) {
    const lm_array *r = branch[i] >= 0 ? res[branch[i]] : NULL;
    if (!r || r->type.id == LM_TYPE_NULL || isnull(r, pos[i]))
      lm_builder_append_null(&b);
    else
      lm_builder_append_from(&b, r, pos[i]);
  }
  rc = lm_out_finish(&b, out, err);
done:
  free(rem);
  free(keep);
  free(sel);
  free(branch);
  free(pos);
  if (res)
    for (int k = 0; k <= n_pairs; k++)
      lm_array_release(res[k]);
  free(res);
  return rc;
}

/* ------------------------------------------------------------ dispatch */

static int broadcast(const lm_bexpr *e, int64_t n, lm_array **out,
                     lm_error *err) {
  if (e->lit.is_null || e->type.id == LM_TYPE_NULL) {
    *out = lm_array_new_null(e->type, n);
    return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  lm_builder b;
  if (lm_type_width(e->type) == 8) {
    if (lm_out_fixed(&b, e->type, n))
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    int64_t bits;
    if (e->type.id == LM_TYPE_FLOAT64)
      memcpy(&bits, &e->lit.v.f, 8);
    else
      bits = e->lit.v.i;
    int64_t *r = (int64_t *)b.values;
    for (int64_t i = 0; i < n; i++)
      r[i] = bits;
    return lm_out_finish(&b, out, err);
  }
  if (e->type.id == LM_TYPE_DECIMAL128) { /* 0.908 * price: 16 bytes a row */
    if (lm_out_fixed(&b, e->type, n))
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    uint8_t d[16];
    memcpy(d, &e->lit.v.d128.lo, 8);
    memcpy(d + 8, &e->lit.v.d128.hi, 8);
    for (int64_t i = 0; i < n; i++)
      memcpy(b.values + (size_t)i * 16, d, 16);
    return lm_out_finish(&b, out, err);
  }
  if (lm_builder_init(&b, e->type, n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_value v = e->lit;
  v.type = e->type;
  for (int64_t i = 0; i < n; i++)
    lm_builder_append_value(&b, &v);
  return lm_out_finish(&b, out, err);
}

/* e (BIGINT + - * / % BIGINT) when its right operand is a non-NULL
 * literal: the left side evaluated, the literal not broadcast; the same
 * results and errors as arith_i64 over a broadcast column. -1: not taken
 * (the caller evaluates e as usual); otherwise 0 or the error code. */
static int arith_literal(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                         lm_error *err) {
  const lm_bexpr *l = e->args[0], *r = e->args[1];
  if (r->kind != LM_BX_LITERAL || r->lit.is_null || l->kind == LM_BX_LITERAL ||
      e->type.id != LM_TYPE_INT64 || l->type.id != LM_TYPE_INT64 ||
      r->type.id != LM_TYPE_INT64)
    return -1;
  lm_array *x = NULL;
  int rc = eval(l, in, &x, err);
  if (rc)
    return rc;
  if (x->type.id == LM_TYPE_INT64) {
    int64_t k = r->lit.v.i;
    rc = arith_i64(e, x, NULL, &k, out, err);
  } else if (x->type.id == LM_TYPE_NULL) { /* as the general path */
    *out = lm_array_new_null(e->type, in->num_rows);
    rc = *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
  } else { /* another shape: the general path's kernels */
    lm_array *y = NULL;
    rc = broadcast(r, in->num_rows, &y, err);
    if (!rc)
      rc = lm_types_arith_handles(e, x, y) ? lm_types_arith(e, x, y, out, err)
                                           : arith_i64(e, x, y, NULL, out, err);
    lm_array_release(y);
  }
  lm_array_release(x);
  return rc;
}

static int eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
                lm_error *err) {
  int rc;
  *out = NULL;
  if (lm_stack_low()) /* 54001, PostgreSQL's check_stack_depth */
    return lm_stack_check(err);
  switch (e->kind) {
  case LM_BX_COLUMN:
    *out = lm_array_retain(in->columns[e->col]);
    return 0;
  case LM_BX_LITERAL:
    return broadcast(e, in->num_rows, out, err);
  case LM_BX_CAST: {
    lm_array *a;
    if ((rc = eval(e->args[0], in, &a, err)))
      return rc;
    rc = cast_array(e, a, e->type, out, err);
    lm_array_release(a);
    if (!rc && e->tprec > 0 && e->tprec <= 6)
      rc = round_tprec(e, out, err);
    if (!rc && (e->tlen > 0 || e->tbpchar) && (*out)->type.id == LM_TYPE_UTF8)
      rc = char_typmod(e, out, err);
    if (rc && *out) { /* a rounding / length error: no result */
      lm_array_release(*out);
      *out = NULL;
    }
    return rc;
  }
  case LM_BX_IS_NULL: {
    lm_array *a;
    if ((rc = eval(e->args[0], in, &a, err)))
      return rc;
    lm_builder b;
    if (lm_out_fixed(&b, e->type, in->num_rows)) {
      lm_array_release(a);
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    for (int64_t i = 0; i < in->num_rows; i++) {
      bool nl = a->type.id == LM_TYPE_NULL || isnull(a, i);
      if (nl != e->negated)
        lm_bit_set(b.values, i);
    }
    lm_array_release(a);
    return lm_out_finish(&b, out, err);
  }
  case LM_BX_UNARY: {
    lm_array *a;
    if ((rc = eval(e->args[0], in, &a, err)))
      return rc;
    int64_t n = in->num_rows;
    if (e->type.id == LM_TYPE_DECIMAL128 && a->type.id == LM_TYPE_DECIMAL128) {
      rc = lm_types_neg(e, a, out, err); /* expr_types.c */
      lm_array_release(a);
      return rc;
    }
    if (e->type.id == LM_TYPE_INTERVAL_MDN) {
      rc = lm_mdn_neg(e, a, out, err); /* expr_mdn.c */
      lm_array_release(a);
      return rc;
    }
    if (e->op != LM_OP_NOT && lm_num_neg_handles(e, a)) {
      rc = lm_num_neg(e, a, out, err); /* expr_num.c */
      lm_array_release(a);
      return rc;
    }
    lm_builder b;
    if (lm_out_fixed(&b, e->type, n)) {
      lm_array_release(a);
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    for (int64_t i = 0; i < n; i++) {
      if (a->type.id == LM_TYPE_NULL || isnull(a, i)) {
        lm_out_null(&b, i);
        continue;
      }
      if (e->op == LM_OP_NOT) {
        if (!lm_array_bool(a, i))
          lm_bit_set(b.values, i);
      } else if (e->type.id == LM_TYPE_FLOAT64) {
        ((double *)b.values)[i] = -lm_array_f64(a)[i];
      } else {
        int64_t v = lm_array_i64(a)[i];
        if (v == INT64_MIN) {
          lm_builder_free(&b);
          lm_array_release(a);
          return lm_fn_error(err, e, "22003", "bigint out of range");
        }
        ((int64_t *)b.values)[i] = -v;
      }
    }
    lm_array_release(a);
    return lm_out_finish(&b, out, err);
  }
  case LM_BX_BINARY: {
    if (e->op == LM_OP_OR && e->inset && /* `c = k OR c = k2 ...`: a set */
        (rc = lm_inset_eval(e, in, out, err)) != -1) /* expr_inset.c */
      return rc;
    if (e->op == LM_OP_AND || e->op == LM_OP_OR)
      return logic_lazy(e, in, out, err);
    if (e->op >= LM_OP_EQ && e->op <= LM_OP_GE && e->n_args == 2 &&
        (rc = compare_literal(e, in, out, err)) != -1)
      return rc; /* column op constant, the constant not made a column */
    if (e->op >= LM_OP_ADD && e->op <= LM_OP_MOD && e->n_args == 2 &&
        (rc = arith_literal(e, in, out, err)) != -1)
      return rc; /* the same for BIGINT arithmetic */
    if (e->op >= LM_OP_ADD && e->op <= LM_OP_MOD && e->n_args == 2 &&
        (rc = lm_num_arith_literal(e, in, out, err)) != -1)
      return rc; /* and for SMALLINT, INTEGER, REAL (expr_num.c) */
    lm_array *x, *y;
    if ((rc = eval(e->args[0], in, &x, err)))
      return rc;
    if ((rc = eval(e->args[1], in, &y, err))) {
      lm_array_release(x);
      return rc;
    }
    switch (e->op) {
    case LM_OP_AND:
    case LM_OP_OR:
      rc = logic(e, x, y, out, err);
      break;
    case LM_OP_EQ:
    case LM_OP_NE:
    case LM_OP_LT:
    case LM_OP_LE:
    case LM_OP_GT:
    case LM_OP_GE:
      rc = compare(e, x, y, out, err);
      break;
    case LM_OP_CONCAT:
      rc = concat(e, x, y, out, err);
      break;
    default:
      if (x->type.id == LM_TYPE_NULL || y->type.id == LM_TYPE_NULL) {
        *out = lm_array_new_null(e->type, in->num_rows);
        rc = *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
      } else if (lm_mdn_arith_handles(e, x, y)) {
        rc = lm_mdn_arith(e, x, y, out, err); /* expr_mdn.c */
      } else if (lm_interval_arith_handles(e, x, y)) {
        rc = lm_interval_arith(e, x, y, out, err); /* expr_interval.c */
      } else if (lm_types_arith_handles(e, x, y)) {
        rc = lm_dec_arith_fast(e, x, y, out, err); /* expr_decfast.c */
        if (rc == 1)
          rc = lm_types_arith(e, x, y, out, err); /* expr_types.c */
      } else if (lm_num_arith_handles(e, x, y)) {
        rc = lm_num_arith(e, x, y, out, err); /* expr_num.c: int2/4, real */
      } else if (e->type.id == LM_TYPE_FLOAT64)
        rc = arith_f64(e, x, y, out, err);
      else
        rc = arith_i64(e, x, y, NULL, out, err);
    }
    lm_array_release(x);
    lm_array_release(y);
    return rc;
  }
  case LM_BX_FUNC:
    return func_eval(e, in, out, err);
  case LM_BX_LIKE: {
    lm_array **a = NULL;
    if ((rc = lm_fargs_eval(e, in, &a, err)))
      return rc;
    lm_builder b;
    if (lm_out_fixed(&b, e->type, in->num_rows)) {
      lm_fargs_free(a, e->n_args);
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    }
    for (int64_t i = 0; i < in->num_rows && !rc; i++) {
      bool nul = false;
      for (int k = 0; k < e->n_args; k++)
        nul |= lm_farg_null(a[k], i);
      if (nul) {
        lm_out_null(&b, i);
        continue;
      }
      int32_t sl, pl, el = 1;
      const char *s = lm_array_str(a[0], i, &sl),
                 *pt = lm_array_str(a[1], i, &pl);
      const char *esc = "\\";
      if (e->n_args > 2) {
        esc = lm_array_str(a[2], i, &el);
        if (el > 0 && utf8_len(esc, el, 0) != el) {
          rc = lm_fn_error(err, e, "22025", "invalid escape string");
          break;
        }
      }
      int m = like_match(s, sl, pt, pl, esc, el, e->icase);
      if (m == -1)
        rc = lm_fn_error(err, e, "22025",
                         "LIKE pattern must not end with escape character");
      else if (m == -2)
        rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      else if ((m == 1) != e->negated)
        lm_bit_set(b.values, i);
    }
    lm_fargs_free(a, e->n_args);
    if (rc) {
      lm_builder_free(&b);
      return rc;
    }
    return lm_out_finish(&b, out, err);
  }
  case LM_BX_CASE:
    return case_eval(e, in, out, err);
  case LM_BX_PARAM: {
    lm_bexpr v = *e; /* the slot's current value, as a literal */
    v.lit = *e->param;
    v.lit.type = e->type;
    return broadcast(&v, in->num_rows, out, err);
  }
  case LM_BX_SUBQUERY:
    return lm_eval_subquery(e, in, out, err);
  }
  return lm_err(err, LM_ERR_EXEC, "unsupported expression");
}

int lm_eval(const lm_bexpr *e, const lm_batch *in, lm_array **out,
            lm_error *err) {
  return eval(e, in, out, err);
}

int lm_cast_items(const lm_bexpr *e, lm_array *a, lm_type to, lm_array **out,
                  lm_error *err) {
  return cast_array(e, a, to, out, err);
}

/* ------------------------------------- helpers of the function files */

const char *lm_pg_type_name(lm_type t) {
  switch (t.id) {
  case LM_TYPE_NULL:
    return "unknown";
  case LM_TYPE_BOOL:
    return "boolean";
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
    return "smallint";
  case LM_TYPE_INT32:
    return "integer";
  case LM_TYPE_INT64:
    return "bigint";
  case LM_TYPE_FLOAT32:
    return "real";
  case LM_TYPE_FLOAT64:
    return "double precision";
  case LM_TYPE_UTF8:
  case LM_TYPE_LARGE_UTF8:
    return lm_type_is_jsonb(t)  ? "jsonb"
           : lm_type_is_json(t) ? "json"
           : lm_type_is_uuid(t) ? "uuid"
                                : "text";
  case LM_TYPE_TIMESTAMP:
    return lm_type_is_tstz(t) ? "timestamp with time zone"
                              : "timestamp without time zone";
  case LM_TYPE_INTERVAL:
  case LM_TYPE_INTERVAL_MDN:
    return "interval";
  case LM_TYPE_DECIMAL128:
    return "numeric";
  case LM_TYPE_DATE32:
    return "date";
  case LM_TYPE_TIME64:
    return "time without time zone";
  case LM_TYPE_BINARY:
    return "bytea";
  case LM_TYPE_LIST: /* a SQL array: its item's name and [] */
  case LM_TYPE_LARGE_LIST:
    return lm_array_type_name(t); /* expr_array.c */
  default:
    return lm_type_name(t);
  }
}

int lm_fargs_eval(const lm_bexpr *e, const lm_batch *in, lm_array ***out,
                  lm_error *err) {
  lm_array **a = calloc((size_t)e->n_args + 1, sizeof *a);
  if (!a)
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  for (int i = 0; i < e->n_args; i++) {
    int rc = eval(e->args[i], in, &a[i], err);
    if (rc) {
      lm_fargs_free(a, i);
      return rc;
    }
  }
  *out = a;
  return 0;
}

int lm_fn_begin(const lm_bexpr *e, const lm_batch *in, lm_array ***args,
                lm_builder *b, lm_error *err) {
  int rc = lm_fargs_eval(e, in, args, err);
  if (rc)
    return rc;
  if (lm_builder_init(b, e->type, in->num_rows)) {
    lm_fargs_free(*args, e->n_args);
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  return 0;
}

int lm_fn_end(const lm_bexpr *e, lm_array **args, lm_builder *b, int rc,
              lm_array **out, lm_error *err) {
  lm_fargs_free(args, e->n_args);
  if (rc) {
    lm_builder_free(b);
    return rc;
  }
  return lm_out_finish(b, out, err);
}

int lm_fn_rows(const lm_bexpr *e, const lm_batch *in, int strict,
               lm_fn_row_fn row, void *ctx, lm_array **out, lm_error *err) {
  lm_array **a = NULL;
  lm_builder b;
  int rc = lm_fn_begin(e, in, &a, &b, err);
  if (rc)
    return rc;
  lm_buf o;
  lm_buf_init(&o);
  for (int64_t i = 0; i < in->num_rows && !rc; i++) {
    if (lm_fargs_null(a, strict, i))
      lm_builder_append_null(&b);
    else
      rc = row(e, a, i, &b, &o, ctx, err);
  }
  lm_buf_free(&o);
  return lm_fn_end(e, a, &b, rc, out, err);
}

void lm_fargs_free(lm_array **a, int n) {
  if (!a)
    return;
  for (int i = 0; i < n; i++)
    lm_array_release(a[i]);
  free(a);
}

int lm_fn_error(lm_error *err, const lm_bexpr *e, const char *state,
                const char *fmt, ...) {
  char msg[700];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (e && e->line)
    lm_err_at(err, LM_ERR_EXEC, e->line, e->column, "%s", msg);
  else
    lm_err(err, LM_ERR_EXEC, "%s", msg);
  lm_err_state(err, state);
  return LM_ERR_EXEC;
}
