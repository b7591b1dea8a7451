/* Conforming Arrow data to declared SQL column types (see lm_conform.h). */
#include "columnar/lm_conform.h"
#include "columnar/lm_decimal.h"
#include "columnar/lm_interval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int64_t per_sec[] = {1, 1000, 1000000, 1000000000};

static bool is_sql_int(lm_type_id id) {
  return id >= LM_TYPE_INT8 && id <= LM_TYPE_INT64;
}
static bool is_sql_float(lm_type_id id) {
  return id == LM_TYPE_FLOAT32 || id == LM_TYPE_FLOAT64;
}
static bool is_uint(lm_type_id id) {
  return id >= LM_TYPE_UINT8 && id <= LM_TYPE_UINT64;
}
/* Arrow-only types: no SQL spelling, text form when declared VARCHAR. */
static bool is_arrow_only(lm_type_id id) {
  return id >= LM_TYPE_UINT8 && id < LM_TYPE__COUNT && id != LM_TYPE_DICTIONARY;
}

bool lm_conform_possible(lm_type from, lm_type to) {
  if (lm_type_eq(from, to) || from.id == LM_TYPE_NULL)
    return true;
  if (from.id == LM_TYPE_DICTIONARY)
    return lm_conform_possible(lm_type_dict_value(from), to);
  switch (to.id) {
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
  case LM_TYPE_INT32:
  case LM_TYPE_INT64:
    return is_sql_int(from.id) || is_uint(from.id);
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64:
    return is_sql_int(from.id) || is_uint(from.id) || is_sql_float(from.id) ||
           from.id == LM_TYPE_FLOAT16 || from.id == LM_TYPE_DECIMAL128;
  case LM_TYPE_TIMESTAMP:
    return from.id == LM_TYPE_TIMESTAMP || from.id == LM_TYPE_DATE32;
  case LM_TYPE_INTERVAL:
    return from.id == LM_TYPE_DURATION;
  case LM_TYPE_INTERVAL_MDN: /* a table's INTERVAL: {0, µs / day, rest} */
    return from.id == LM_TYPE_DURATION || from.id == LM_TYPE_INTERVAL;
  case LM_TYPE_UTF8: /* the text form; INTERVAL (Arrow Duration(µs)) too */
    /* (VARCHAR into a CHAR(n) column and back: the text as is) */
    return is_arrow_only(from.id) || from.id == LM_TYPE_INTERVAL ||
           from.id == LM_TYPE_UTF8;
  case LM_TYPE_DECIMAL128: /* SQL NUMERIC(p,s): rescaled, checked */
    return from.id == LM_TYPE_DECIMAL128 || is_sql_int(from.id);
  case LM_TYPE_TIME64: /* SQL TIME: µs */
    return from.id == LM_TYPE_TIME32 || from.id == LM_TYPE_TIME64;
  case LM_TYPE_BINARY: /* SQL BYTEA */
    return from.id == LM_TYPE_LARGE_BINARY ||
           from.id == LM_TYPE_FIXED_SIZE_BINARY;
  default:
    return false;
  }
}

static double dec128_to_double(const lm_array *a, int64_t i, int scale) {
  const uint8_t *p = a->values->data + (a->offset + i) * 16;
  uint64_t lo;
  int64_t hi;
  memcpy(&lo, p, 8);
  memcpy(&hi, p + 8, 8);
  bool neg = hi < 0;
  if (neg) { /* two's complement negate */
    lo = ~lo + 1;
    hi = (int64_t)(~(uint64_t)hi + (lo == 0));
  }
  double v = (double)(uint64_t)hi * 18446744073709551616.0 + (double)lo;
  for (int k = 0; k < scale; k++)
    v /= 10.0;
  for (int k = 0; k > scale; k--)
    v *= 10.0;
  return neg ? -v : v;
}

static int int_range(lm_type_id id, int64_t *lo, int64_t *hi) {
  int bits = id == LM_TYPE_INT8    ? 8
             : id == LM_TYPE_INT16 ? 16
             : id == LM_TYPE_INT32 ? 32
                                   : 64;
  *hi = bits == 64 ? INT64_MAX : (int64_t)((1ull << (bits - 1)) - 1);
  *lo = -*hi - 1;
  return bits;
}

/* One value into builder b (declared type to), or an error. */
static int conv_row(const lm_array *a, int64_t i, lm_type to, lm_builder *b,
                    lm_buf *tmp, const char *ctx, lm_error *err) {
  lm_type ft = a->type;
  if (to.id == LM_TYPE_UTF8) {
    if (ft.id == LM_TYPE_LARGE_UTF8) {
      int64_t len;
      const uint8_t *p = lm_array_bytes(a, i, &len);
      if (len > INT32_MAX || b->data_len > INT32_MAX - len)
        return lm_err(err, LM_ERR_LIMIT,
                      "%s: LARGE_VARCHAR data beyond 2 GiB does not fit "
                      "VARCHAR",
                      ctx);
      lm_builder_append_str(b, (const char *)p, (int32_t)len);
      return 0;
    }
    tmp->len = 0;
    if ((a->type.id == LM_TYPE_LIST || a->type.id == LM_TYPE_LARGE_LIST)
            ? lm_array_format_json(tmp, a, i) /* a nested value: its JSON */
            : lm_array_format_value(tmp, a, i, NULL))
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    if (tmp->len > (size_t)INT32_MAX ||
        b->data_len > INT32_MAX - (int64_t)tmp->len)
      return lm_err(err, LM_ERR_LIMIT, "%s: text beyond 2 GiB", ctx);
    lm_builder_append_str(b, tmp->data, (int32_t)tmp->len);
    return 0;
  }
  if (is_sql_int(to.id)) {
    int64_t lo, hi;
    int_range(to.id, &lo, &hi);
    int64_t v = lm_array_get_i64(a, i);
    bool bad = ft.id == LM_TYPE_UINT64 ? (uint64_t)v > (uint64_t)hi
                                       : (v < lo || v > hi);
    if (bad) {
      char num[32];
      if (ft.id == LM_TYPE_UINT64)
        snprintf(num, sizeof num, "%llu", (unsigned long long)(uint64_t)v);
      else
        snprintf(num, sizeof num, "%lld", (long long)v);
      return lm_err(err, LM_ERR_EXEC, "%s: value %s is out of range for %s",
                    ctx, num, lm_type_name(to));
    }
    lm_builder_append_int(b, v);
    return 0;
  }
  if (is_sql_float(to.id)) {
    double d = ft.id == LM_TYPE_DECIMAL128 ? dec128_to_double(a, i, ft.scale)
                                           : lm_array_get_f64(a, i);
    lm_builder_append_double(b, d);
    return 0;
  }
  if (to.id == LM_TYPE_TIMESTAMP) {
    int64_t v = lm_array_get_i64(a, i), du = per_sec[to.unit & 3];
    if (ft.id == LM_TYPE_DATE32) {
      if (lm_mul_overflow_i64(v, 86400 * du, &v))
        return lm_err(err, LM_ERR_EXEC, "%s: date out of range", ctx);
    } else {
      int64_t fu = per_sec[ft.unit & 3];
      if (du >= fu) {
        if (lm_mul_overflow_i64(v, du / fu, &v))
          return lm_err(err, LM_ERR_EXEC, "%s: timestamp out of range", ctx);
      } else
        v = lm_floor_div(v, fu / du);
    }
    lm_builder_append_int(b, v);
    return 0;
  }
  if (to.id == LM_TYPE_DECIMAL128) {
    lm_i128 v = ft.id == LM_TYPE_DECIMAL128 ? lm_dec_get(a, i)
                                            : (lm_i128)lm_array_get_i64(a, i);
    int fs = ft.id == LM_TYPE_DECIMAL128 ? ft.scale : 0;
    /* NaN fits NUMERIC(p,s), Infinity does not (PostgreSQL 15) */
    if (v != LM_DEC_NAN &&
        (lm_dec_rescale(v, fs, to.scale, &v) || !lm_dec_fits(v, to.precision)))
      return lm_err(err, LM_ERR_EXEC,
                    "%s: numeric field overflow for DECIMAL(%d, %d)", ctx,
                    to.precision, to.scale);
    lm_dec_append(b, v);
    return 0;
  }
  if (to.id == LM_TYPE_TIME64) { /* TIME32 s/ms, TIME64 ns -> µs */
    int64_t v = lm_array_get_i64(a, i), fu = per_sec[ft.unit & 3];
    v = fu <= 1000000 ? v * (1000000 / fu) : lm_floor_div(v, fu / 1000000);
    lm_builder_append_int(b, v);
    return 0;
  }
  if (to.id == LM_TYPE_BINARY) {
    int64_t len;
    const uint8_t *p = lm_array_bytes(a, i, &len);
    if (len > INT32_MAX || b->data_len > INT32_MAX - len)
      return lm_err(err, LM_ERR_LIMIT, "%s: binary data beyond 2 GiB", ctx);
    lm_builder_append_str(b, (const char *)p, (int32_t)len);
    return 0;
  }
  if (to.id == LM_TYPE_INTERVAL || to.id == LM_TYPE_INTERVAL_MDN) {
    /* from DURATION(unit) or INTERVAL (µs) to µs */
    int64_t v = lm_array_get_i64(a, i),
            fu = ft.id == LM_TYPE_INTERVAL ? 1000000 : per_sec[ft.unit & 3];
    if (fu <= 1000000) {
      if (lm_mul_overflow_i64(v, 1000000 / fu, &v))
        return lm_err(err, LM_ERR_EXEC, "%s: duration out of range", ctx);
    } else
      v = lm_floor_div(v, fu / 1000000);
    if (to.id == LM_TYPE_INTERVAL_MDN) {
      lm_iv iv = lm_iv_from_us(v);
      lm_value x;
      memset(&x, 0, sizeof x);
      x.type = to;
      x.v.mdn.days = iv.days;
      x.v.mdn.ns = iv.us * 1000; /* |µs| below a day */
      lm_builder_append_value(b, &x);
      return 0;
    }
    lm_builder_append_int(b, v);
    return 0;
  }
  return LM_ERR_BIND;
}

int lm_conform_array(lm_array *a, lm_type to, const char *ctx, lm_array **out,
                     lm_error *err) {
  *out = NULL;
  if (lm_type_eq(a->type, to)) {
    *out = lm_array_retain(a);
    return 0;
  }
  if (!lm_conform_possible(a->type, to))
    return LM_ERR_BIND;
  if (a->type.id == LM_TYPE_NULL) {
    *out = lm_array_new_null(to, a->length);
    return *out ? 0 : lm_err(err, LM_ERR_NOMEM, "out of memory");
  }
  if (a->type.id == LM_TYPE_DICTIONARY) {
    lm_array *d = lm_array_dictionary_decode(a);
    if (!d)
      return lm_err(err, LM_ERR_NOMEM, "out of memory");
    int rc = lm_conform_array(d, to, ctx, out, err);
    lm_array_release(d);
    return rc;
  }
  lm_builder b;
  if (lm_builder_init(&b, to, a->length))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_buf tmp;
  memset(&tmp, 0, sizeof tmp);
  int rc = 0;
  for (int64_t i = 0; i < a->length && !rc; i++) {
    if (lm_array_is_null(a, i))
      lm_builder_append_null(&b);
    else
      rc = conv_row(a, i, to, &b, &tmp, ctx, err);
  }
  lm_buf_free(&tmp);
  if (!rc && lm_builder_finish(&b, out))
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_builder_free(&b);
  return rc;
}

/* ------------------------------------------------- VARCHAR(n) / CHAR(n) */

int lm_char_assign(const char *s, int32_t len, lm_typmod m, int32_t *keep,
                   int32_t *pad) {
  int32_t cut = len, chars = 0; /* the bytes of the first n characters */
  for (int32_t k = 0; k < len; k++) {
    if (((unsigned char)s[k] & 0xC0) == 0x80)
      continue;
    if (m.char_len > 0 && chars == m.char_len) {
      cut = k;
      break;
    }
    chars++;
  }
  for (int32_t k = cut; k < len; k++)
    if (s[k] != ' ')
      return -1;
  *keep = cut;
  *pad = m.bpchar && chars < m.char_len ? m.char_len - chars : 0;
  return 0;
}

const char *lm_char_type_name(lm_typmod m, char *buf, size_t n) {
  snprintf(buf, n, "%s(%d)", m.bpchar ? "character" : "character varying",
           (int)m.char_len);
  return buf;
}

int lm_conform_chars(lm_array *a, lm_typmod m, const char *ctx,
                     int64_t first_row, lm_array **out, lm_error *err) {
  bool change = false;
  for (int64_t i = 0; i < a->length && a->type.id == LM_TYPE_UTF8; i++) {
    if (lm_array_is_null(a, i))
      continue;
    int32_t len, keep, pad;
    const char *s = lm_array_str(a, i, &len);
    if (lm_char_assign(s, len, m, &keep, &pad)) {
      char tn[64];
      lm_err(err, LM_ERR_EXEC, "%s: row %lld: value too long for type %s", ctx,
             (long long)(first_row + i), lm_char_type_name(m, tn, sizeof tn));
      return lm_err_state(err, "22001");
    }
    if (keep != len || pad)
      change = true;
  }
  if (!change) {
    *out = lm_array_retain(a);
    return 0;
  }
  lm_builder b;
  if (lm_builder_init(&b, a->type, a->length))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_buf tmp;
  lm_buf_init(&tmp);
  int rc = 0;
  for (int64_t i = 0; i < a->length && !rc; i++) {
    if (lm_array_is_null(a, i)) {
      lm_builder_append_null(&b);
      continue;
    }
    int32_t len, keep, pad;
    const char *s = lm_array_str(a, i, &len);
    (void)lm_char_assign(s, len, m, &keep, &pad);
    lm_buf_reset(&tmp);
    if (lm_buf_append(&tmp, s, (size_t)keep) ||
        lm_buf_reserve(&tmp, (size_t)pad + 1)) {
      rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
      break;
    }
    memset(tmp.data + tmp.len, ' ', (size_t)pad);
    lm_builder_append_str(&b, tmp.len + (size_t)pad ? tmp.data : "",
                          keep + pad);
  }
  lm_buf_free(&tmp);
  if (!rc && lm_builder_finish(&b, out))
    rc = lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_builder_free(&b);
  return rc;
}
