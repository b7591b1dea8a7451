/* exec/expr_dkey.c — the order keys behind array_agg(DISTINCT x),
 * json_agg(DISTINCT x) and jsonb_agg(DISTINCT x) (plan/array_bind.c,
 * plan/json_agg_bind.c). Those run as string_agg(DISTINCT k ...) over
 *
 *   k = LM_FN_ARR_DKEY(x, t, nulls_low): hex(order key of x) "." hex(t)
 *
 * where t is x's item text (array_out item or JSON text). string_agg's
 * DISTINCT keeps one k per distinct text and orders them bytewise; the
 * key is written so that this order is PostgreSQL's order of the type
 * (numbers by value, text by its bytes as in the C collation, a NULL x
 * "z" after every value, or "!" before every value when nulls_low). '.'
 * sorts below every hex digit, so a key that is a prefix of another sorts
 * first. LM_FN_ARR_DKEY_OUT(s, sep) takes the joined keys apart again
 * (split at ',', which neither hex nor '.' uses) and joins the t's by sep.
 */
#include "exec/expr_array.h"

#include "columnar/lm_decimal.h"
#include "columnar/lm_interval.h"
#include "exec/expr_num.h"
#include "exec/lm_strfn.h"

#include <math.h>
#include <string.h>

static const char HEX[] = "0123456789abcdef";

static int put_hex(lm_buf *o, const void *p, size_t n) {
  const uint8_t *s = p;
  if (lm_buf_reserve(o, o->len + 2 * n + 1))
    return LM_ERR_NOMEM;
  for (size_t k = 0; k < n; k++) {
    o->data[o->len++] = HEX[s[k] >> 4];
    o->data[o->len++] = HEX[s[k] & 15];
  }
  return 0;
}

static int put_u64(lm_buf *o, uint64_t u) {
  uint8_t be[8];
  for (int k = 7; k >= 0; k--, u >>= 8)
    be[k] = (uint8_t)u;
  return put_hex(o, be, 8);
}

static int put_i128(lm_buf *o, __int128 v) {
  unsigned __int128 u = (unsigned __int128)v ^ ((unsigned __int128)1 << 127);
  return put_u64(o, (uint64_t)(u >> 64)) || put_u64(o, (uint64_t)u);
}

bool lm_dkey_type_ok(lm_type t) {
  switch (t.id) {
  case LM_TYPE_BOOL:
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
  case LM_TYPE_INT32:
  case LM_TYPE_INT64:
  case LM_TYPE_UINT8:
  case LM_TYPE_UINT16:
  case LM_TYPE_UINT32:
  case LM_TYPE_UINT64:
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64:
  case LM_TYPE_DECIMAL128:
  case LM_TYPE_DATE32:
  case LM_TYPE_TIMESTAMP:
  case LM_TYPE_TIME64:
  case LM_TYPE_INTERVAL:
  case LM_TYPE_INTERVAL_MDN:
  case LM_TYPE_BINARY:
    return true;
  case LM_TYPE_UTF8:
    return !lm_type_is_json(t);
  default:
    return false;
  }
}

/* The order key of row i of a (not NULL). */
static int put_key(lm_buf *o, const lm_array *a, int64_t i) {
  switch (a->type.id) {
  case LM_TYPE_BOOL:
    return lm_buf_putc(o, lm_array_bool(a, i) ? '1' : '0');
  case LM_TYPE_UINT8:
  case LM_TYPE_UINT16:
  case LM_TYPE_UINT32:
  case LM_TYPE_UINT64:
    return put_u64(o, (uint64_t)lm_array_get_i64(a, i));
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64: {
    double d = a->type.id == LM_TYPE_FLOAT32 ? (double)lm_array_f32(a)[i]
                                             : lm_array_f64(a)[i];
    if (isnan(d))
      return put_u64(o, UINT64_MAX); /* above +Infinity, as PostgreSQL */
    if (d == 0)
      d = 0; /* -0 = 0 */
    uint64_t u;
    memcpy(&u, &d, 8);
    u = (u >> 63) ? ~u : u | ((uint64_t)1 << 63);
    return put_u64(o, u);
  }
  case LM_TYPE_DECIMAL128:
    return put_i128(o, (__int128)lm_dec_get(a, i));
  case LM_TYPE_INTERVAL:
  case LM_TYPE_INTERVAL_MDN: {
    lm_iv v = lm_iv_at(a, i);
    return put_i128(o, lm_iv_span(&v));
  }
  case LM_TYPE_UTF8:
  case LM_TYPE_BINARY: {
    int64_t n;
    const uint8_t *p = lm_array_bytes(a, i, &n);
    return put_hex(o, p, (size_t)n);
  }
  default: /* integers, dates, timestamps, times: int64 order */
    return put_u64(o, (uint64_t)lm_array_get_i64(a, i) ^ ((uint64_t)1 << 63));
  }
}

static int dkey(const lm_bexpr *e, lm_array **a, int64_t n, lm_array **out,
                lm_error *err) {
  lm_builder b;
  if (lm_builder_init(&b, e->type, n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_buf o;
  lm_buf_init(&o);
  bool low = n > 0 && e->n_args > 2 && !lm_array_is_null(a[2], 0) &&
             a[2]->type.id != LM_TYPE_NULL && lm_array_get_i64(a[2], 0) != 0;
  for (int64_t i = 0; i < n && !b.oom; i++) {
    if (a[1]->type.id == LM_TYPE_NULL || lm_array_is_null(a[1], i)) {
      lm_builder_append_null(&b); /* no text: string_agg skips it */
      continue;
    }
    lm_buf_reset(&o);
    int rc;
    if (a[0]->type.id == LM_TYPE_NULL || lm_array_is_null(a[0], i))
      rc = lm_buf_putc(&o, low ? '!' : 'z');
    else
      rc = put_key(&o, a[0], i);
    int32_t tn;
    const char *t = lm_array_str(a[1], i, &tn);
    if (rc || lm_buf_putc(&o, '.') || put_hex(&o, t, (size_t)tn) ||
        o.len > INT32_MAX)
      b.oom = true;
    else
      lm_builder_append_str(&b, o.data, (int32_t)o.len);
  }
  lm_buf_free(&o);
  return lm_out_finish(&b, out, err);
}

static int dkey_out(const lm_bexpr *e, lm_array **a, int64_t n, lm_array **out,
                    lm_error *err) {
  lm_builder b;
  if (lm_builder_init(&b, e->type, n))
    return lm_err(err, LM_ERR_NOMEM, "out of memory");
  lm_buf o;
  lm_buf_init(&o);
  for (int64_t i = 0; i < n && !b.oom; i++) {
    if (a[0]->type.id == LM_TYPE_NULL || lm_array_is_null(a[0], i)) {
      lm_builder_append_null(&b);
      continue;
    }
    int32_t sn = 0, pn = 0;
    const char *s = lm_array_str(a[0], i, &sn);
    const char *sep = a[1]->type.id == LM_TYPE_NULL || lm_array_is_null(a[1], i)
                          ? ""
                          : lm_array_str(a[1], i, &pn);
    lm_buf_reset(&o);
    bool first = true;
    for (int32_t k = 0; k < sn && !b.oom;) {
      int32_t end = k;
      while (end < sn && s[end] != ',')
        end++;
      const char *dot = memchr(s + k, '.', (size_t)(end - k));
      if (!first && lm_buf_append(&o, sep, (size_t)pn))
        b.oom = true;
      first = false;
      for (const char *h = dot ? dot + 1 : s + end; h + 1 < s + end; h += 2) {
        int hi = lm_hex_digit(h[0]), lo = lm_hex_digit(h[1]);
        if (lm_buf_putc(&o, (char)((hi << 4) | lo)))
          b.oom = true;
      }
      k = end + 1;
    }
    if (o.len > INT32_MAX)
      b.oom = true;
    if (!b.oom)
      lm_builder_append_str(&b, o.data ? o.data : "", (int32_t)o.len);
  }
  lm_buf_free(&o);
  return lm_out_finish(&b, out, err);
}

int lm_dkey_eval(const lm_bexpr *e, lm_array **a, int64_t n, lm_array **out,
                 lm_error *err) {
  return e->fn == LM_FN_ARR_DKEY ? dkey(e, a, n, out, err)
                                 : dkey_out(e, a, n, out, err);
}
