/* format/format_internal.c — value decoding and helpers shared by the CSV
 * and JSON readers/writers. */
#include "format/format_internal.h"

#include "columnar/lm_conform.h"
#include "columnar/lm_decimal.h"
#include "columnar/lm_interval.h"
#include "columnar/lm_temporal.h"
#include "columnar/lm_tz.h"
#include "exec/lm_fn5.h"
#include "exec/lm_jsonv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

bool lm_fmt_type_supported(lm_type t) {
  switch (t.id) {
  case LM_TYPE_NULL:
  case LM_TYPE_BOOL:
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
  case LM_TYPE_INT32:
  case LM_TYPE_INT64:
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64:
  case LM_TYPE_UTF8:
  case LM_TYPE_TIMESTAMP:
  case LM_TYPE_DATE32:
  case LM_TYPE_BINARY:
  case LM_TYPE_INTERVAL: /* PostgreSQL's interval text */
  case LM_TYPE_INTERVAL_MDN:
    return true;
  case LM_TYPE_DECIMAL128:
    return t.precision >= 1 && t.precision <= 38;
  case LM_TYPE_TIME64:
    return t.unit == LM_UNIT_MICRO;
  default:
    return false;
  }
}

void lm_fmt_int_range(lm_type t, int64_t *min, int64_t *max) {
  switch (t.id) {
  case LM_TYPE_INT8:
    *min = INT8_MIN, *max = INT8_MAX;
    break;
  case LM_TYPE_INT16:
    *min = INT16_MIN, *max = INT16_MAX;
    break;
  case LM_TYPE_INT32:
    *min = INT32_MIN, *max = INT32_MAX;
    break;
  default:
    *min = INT64_MIN, *max = INT64_MAX;
    break;
  }
}

static inline bool is_sp(char c) {
  return c == ' ' || c == '\t';
}

static inline void trim(const char **pp, size_t *plen) {
  const char *p = *pp;
  size_t n = *plen;
  while (n && is_sp(*p))
    p++, n--;
  while (n && is_sp(p[n - 1]))
    n--;
  *pp = p;
  *plen = n;
}

bool lm_fmt_is_blank(const char *p, size_t len) {
  trim(&p, &len);
  return len == 0;
}

int lm_fmt_parse_int(const char *p, size_t len, int64_t min, int64_t max,
                     int64_t *out) {
  trim(&p, &len);
  if (!len)
    return LM_FMT_SYNTAX;
  bool neg = false;
  if (*p == '-' || *p == '+') {
    neg = *p == '-';
    p++, len--;
    if (!len)
      return LM_FMT_SYNTAX;
  }
  uint64_t v = 0;
  bool over = false;
  if (len <= 18) {
    /* cannot overflow: at most 18 digits */
    for (size_t i = 0; i < len; i++) {
      unsigned d = (unsigned)(unsigned char)p[i] - '0';
      if (d > 9)
        return LM_FMT_SYNTAX;
      v = v * 10 + d;
    }
  } else {
    for (size_t i = 0; i < len; i++) {
      unsigned d = (unsigned)(unsigned char)p[i] - '0';
      if (d > 9)
        return LM_FMT_SYNTAX;
      if (v > (UINT64_MAX - d) / 10)
        over = true; /* keep scanning: syntax errors win */
      else
        v = v * 10 + d;
    }
  }
  if (over)
    return LM_FMT_RANGE;
  int64_t r;
  if (neg) {
    if (v > (uint64_t)INT64_MAX + 1)
      return LM_FMT_RANGE;
    r = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
  } else {
    if (v > (uint64_t)INT64_MAX)
      return LM_FMT_RANGE;
    r = (int64_t)v;
  }
  if (r < min || r > max)
    return LM_FMT_RANGE;
  *out = r;
  return LM_FMT_OK;
}

static const double pow10_tab[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static bool ieq(const char *p, size_t n, const char *lit) {
  return lm_strncaseeq(p, n, lit);
}

int lm_fmt_parse_double(const char *p, size_t len, bool as_float32,
                        lm_buf *scratch, double *out) {
  trim(&p, &len);
  if (!len)
    return LM_FMT_SYNTAX;
  const char *s = p;
  size_t n = len;
  bool neg = false;
  if (*s == '-' || *s == '+') {
    neg = *s == '-';
    s++, n--;
  }
  if (!n)
    return LM_FMT_SYNTAX;
  /* Exact fast path (Clinger): up to 15 significant digits and at most 22
   * fraction digits, no exponent: mantissa and 10^k are exact doubles, so
   * one IEEE division is correctly rounded. Only for FLOAT64. */
  if (!as_float32 && n <= 24) {
    uint64_t m = 0;
    int digits = 0, frac = -1;
    size_t i = 0;
    for (; i < n; i++) {
      unsigned d = (unsigned)(unsigned char)s[i] - '0';
      if (d <= 9) {
        m = m * 10 + d;
        digits++;
        if (frac >= 0)
          frac++;
      } else if (s[i] == '.' && frac < 0) {
        frac = 0;
      } else {
        break;
      }
    }
    if (i == n && digits > 0 && digits <= 15) {
      double v = (double)m;
      if (frac > 0)
        v /= pow10_tab[frac];
      *out = neg ? -v : v;
      return LM_FMT_OK;
    }
  }
  /* Validate the character set first: digits, sign, '.', exponent, or an
   * inf/nan word; reject hex and anything strtod would skip. */
  if (ieq(s, n, "inf") || ieq(s, n, "infinity")) {
    *out = neg ? -INFINITY : INFINITY;
    return LM_FMT_OK;
  }
  if (ieq(s, n, "nan")) {
    *out = NAN;
    return LM_FMT_OK;
  }
  {
    bool seen_digit = false, seen_e = false, seen_dot = false;
    for (size_t i = 0; i < n; i++) {
      char c = s[i];
      if (c >= '0' && c <= '9') {
        seen_digit = true;
      } else if (c == '.' && !seen_dot && !seen_e) {
        seen_dot = true;
      } else if ((c == 'e' || c == 'E') && seen_digit && !seen_e) {
        seen_e = true;
        if (i + 1 < n && (s[i + 1] == '+' || s[i + 1] == '-'))
          i++;
        if (i + 1 >= n)
          return LM_FMT_SYNTAX;
      } else {
        return LM_FMT_SYNTAX;
      }
    }
    if (!seen_digit)
      return LM_FMT_SYNTAX;
  }
  char stackbuf[128];
  char *z = stackbuf;
  if (len >= sizeof stackbuf) {
    scratch->len = 0;
    if (lm_buf_reserve(scratch, len + 1))
      return LM_FMT_TOOBIG;
    z = scratch->data;
  }
  memcpy(z, p, len);
  z[len] = '\0';
  char *end = NULL;
  errno = 0;
  double v;
  if (as_float32) {
    float f = strtof(z, &end);
    if (errno == ERANGE && isinf(f))
      return LM_FMT_RANGE;
    v = f;
  } else {
    v = strtod(z, &end);
    if (errno == ERANGE && isinf(v))
      return LM_FMT_RANGE;
  }
  if (end != z + len)
    return LM_FMT_SYNTAX;
  *out = v;
  return LM_FMT_OK;
}

int lm_fmt_parse_bool(const char *p, size_t len, bool *out) {
  int v = lm_pg_bool(p, len);
  if (v < 0)
    return LM_FMT_SYNTAX;
  *out = v == 1;
  return LM_FMT_OK;
}

size_t lm_fmt_utf8_check(const char *ptr, size_t len) {
  const unsigned char *s = (const unsigned char *)ptr;
  size_t i = 0;
#ifdef __SSE2__
  size_t simd_at = 0; /* no block test before here (the last one failed) */
#endif
  while (i < len) {
#ifdef __SSE2__
    /* ASCII runs 64 bytes at a time (one movemask of the OR of four
     * loads): validating IPC string columns is a large share of a read;
     * after a block with non-ASCII bytes the bytewise path takes it */
    if (i >= simd_at && i + 64 <= len) {
      __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
      __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
      __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 32));
      __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 48));
      if (!_mm_movemask_epi8(
              _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)))) {
        i += 64;
        continue;
      }
      simd_at = i + 64;
    }
#endif
    if (i + 8 <= len) {
      uint64_t w;
      memcpy(&w, s + i, 8);
      if (!(w & 0x8080808080808080ULL)) {
        i += 8;
        continue;
      }
    }
    unsigned c = s[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t need;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      need = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      need = 2;
      if (c == 0xE0)
        lo = 0xA0;
      if (c == 0xED)
        hi = 0x9F; /* no UTF-16 surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
      need = 3;
      if (c == 0xF0)
        lo = 0x90;
      if (c == 0xF4)
        hi = 0x8F; /* <= U+10FFFF */
    } else {
      return i;
    }
    if (len - i <= need)
      return i;
    if (s[i + 1] < lo || s[i + 1] > hi)
      return i;
    for (size_t k = 2; k <= need; k++)
      if ((s[i + k] & 0xC0) != 0x80)
        return i;
    i += need + 1;
  }
  return len;
}

static int append_timestamp(lm_builder *b, const char *p, size_t len) {
  trim(&p, &len);
  int64_t us;
  /* TIMESTAMPTZ text may name its zone ('... America/New_York', 'EST'):
   * read as SQL reads it, zone-less text as UTC */
  int prc = !len ? LM_DT_BAD_FORMAT
            : lm_type_is_tstz(b->type)
                ? lm_tz_parse_timestamptz(p, len, lm_tz_utc(), &us)
                : lm_parse_timestamp(p, len, &us);
  if (prc != 0)
    return prc == LM_DT_BAD_FORMAT ? LM_FMT_SYNTAX : LM_FMT_RANGE;
  int64_t v = us;
  switch ((lm_time_unit)b->type.unit) {
  case LM_UNIT_SECOND:
    v = lm_floor_div(us, 1000000);
    break;
  case LM_UNIT_MILLI:
    v = lm_floor_div(us, 1000);
    break;
  case LM_UNIT_NANO:
    if (lm_mul_overflow_i64(us, 1000, &v))
      return LM_FMT_RANGE;
    break;
  default:
    break;
  }
  lm_builder_append_i64_fast(b, v);
  return LM_FMT_OK;
}

/* A json / jsonb column: the text validated (LM_FMT_SYNTAX when it is no
 * JSON), jsonb's normalized (exec/lm_jsonv.h). */
static int append_json(lm_builder *b, const char *p, size_t len,
                       lm_buf *scratch) {
  lm_arena ar;
  lm_arena_init(&ar, 1024);
  lm_jv *v;
  bool jsonb = lm_type_is_jsonb(b->type);
  int rc = lm_jv_parse(&ar, p, len, jsonb, &v, NULL, 0);
  if (!rc && jsonb) {
    lm_buf own;
    lm_buf *o = scratch;
    if (!o) {
      lm_buf_init(&own);
      o = &own;
    }
    lm_buf_reset(o);
    rc = lm_jv_out(o, v, false);
    if (!rc)
      lm_builder_append_str(b, o->data ? o->data : "", (int32_t)o->len);
    if (o == &own)
      lm_buf_free(&own);
  } else if (!rc) {
    lm_builder_append_str(b, p, (int32_t)len);
  }
  lm_arena_free(&ar);
  return rc < 0 ? LM_FMT_TOOBIG : rc ? LM_FMT_SYNTAX : LM_FMT_OK;
}

int lm_fmt_append_text(lm_builder *b, const char *p, size_t len,
                       lm_buf *scratch) {
  switch (b->type.id) {
  case LM_TYPE_INT64: {
    int64_t v;
    /* inline fast path: plain digits with an optional '-' */
    if (len && len <= 18) {
      size_t i = 0;
      bool neg = p[0] == '-';
      i = neg;
      uint64_t u = 0;
      if (i < len) {
        for (; i < len; i++) {
          unsigned d = (unsigned)(unsigned char)p[i] - '0';
          if (d > 9)
            break;
          u = u * 10 + d;
        }
        if (i == len) {
          lm_builder_append_i64_fast(b, neg ? -(int64_t)u : (int64_t)u);
          return LM_FMT_OK;
        }
      }
    }
    int rc = lm_fmt_parse_int(p, len, INT64_MIN, INT64_MAX, &v);
    if (rc)
      return rc;
    lm_builder_append_i64_fast(b, v);
    return LM_FMT_OK;
  }
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
  case LM_TYPE_INT32: {
    int64_t v, lo, hi;
    lm_fmt_int_range(b->type, &lo, &hi);
    int rc = lm_fmt_parse_int(p, len, lo, hi, &v);
    if (rc)
      return rc;
    lm_builder_append_int(b, v);
    return LM_FMT_OK;
  }
  case LM_TYPE_FLOAT64:
  case LM_TYPE_FLOAT32: {
    double v;
    int rc =
        lm_fmt_parse_double(p, len, b->type.id == LM_TYPE_FLOAT32, scratch, &v);
    if (rc)
      return rc;
    if (b->type.id == LM_TYPE_FLOAT64)
      lm_builder_append_f64_fast(b, v);
    else
      lm_builder_append_double(b, v);
    return LM_FMT_OK;
  }
  case LM_TYPE_BOOL: {
    bool v;
    if (lm_fmt_parse_bool(p, len, &v))
      return LM_FMT_SYNTAX;
    lm_builder_append_bool(b, v);
    return LM_FMT_OK;
  }
  case LM_TYPE_UTF8:
    if (len > (size_t)INT32_MAX || (int64_t)len > INT32_MAX - b->data_len)
      return LM_FMT_TOOBIG;
    if (lm_fmt_utf8_check(p, len) != len)
      return LM_FMT_UTF8;
    if (lm_type_is_json(b->type))
      return append_json(b, p, len, scratch);
    if (lm_type_is_uuid(b->type)) { /* canonical text (exec/expr_fn5.c) */
      char u[36];
      if (!lm_uuid_parse(p, len, u))
        return LM_FMT_SYNTAX;
      lm_builder_append_str(b, u, 36);
      return LM_FMT_OK;
    }
    lm_builder_append_str_fast(b, p, (int32_t)len);
    return LM_FMT_OK;
  case LM_TYPE_TIMESTAMP:
    return append_timestamp(b, p, len);
  case LM_TYPE_DECIMAL128: { /* exact, rounded half away to the scale */
    lm_i128 v;
    int rc = lm_dec_parse(p, len, b->type.scale, &v, NULL);
    if (rc == LM_DEC_ESYNTAX)
      return LM_FMT_SYNTAX;
    /* NaN fits NUMERIC(p,s), Infinity does not (PostgreSQL 15) */
    if (rc || (v != LM_DEC_NAN && !lm_dec_fits(v, b->type.precision)))
      return LM_FMT_RANGE;
    lm_dec_append(b, v);
    return LM_FMT_OK;
  }
  case LM_TYPE_DATE32: { /* YYYY-MM-DD (a time part is dropped) */
    int64_t days;
    int prc = lm_parse_date(p, len, &days);
    if (prc)
      return prc == LM_DT_BAD_FORMAT ? LM_FMT_SYNTAX : LM_FMT_RANGE;
    lm_builder_append_int(b, days);
    return LM_FMT_OK;
  }
  case LM_TYPE_TIME64: {
    int64_t us;
    if (b->type.unit != LM_UNIT_MICRO || len > INT32_MAX ||
        lm_parse_time_us(p, (int32_t)len, &us))
      return LM_FMT_SYNTAX;
    lm_builder_append_int(b, us);
    return LM_FMT_OK;
  }
  case LM_TYPE_BINARY: { /* PostgreSQL bytea text: \x hex or escapes */
    if (len > (size_t)INT32_MAX / 2)
      return LM_FMT_TOOBIG;
    lm_buf_reset(scratch);
    int rc = lm_parse_bytea(p, (int32_t)len, scratch);
    if (rc == -2)
      return LM_FMT_TOOBIG;
    if (rc)
      return LM_FMT_SYNTAX;
    lm_builder_append_str(b, scratch->data ? scratch->data : "",
                          (int32_t)scratch->len);
    return LM_FMT_OK;
  }
  case LM_TYPE_INTERVAL:
  case LM_TYPE_INTERVAL_MDN: { /* PostgreSQL's text (lm_interval.h) */
    lm_iv v;
    uint8_t slot[16];
    int prc = lm_iv_parse(p, len, NULL, 0, &v);
    if (prc)
      return prc == -2 ? LM_FMT_RANGE : LM_FMT_SYNTAX;
    if (b->type.id == LM_TYPE_INTERVAL) { /* µs: no months */
      int64_t us;
      if (v.months ||
          __builtin_mul_overflow((int64_t)v.days, INT64_C(86400000000), &us) ||
          __builtin_add_overflow(us, v.us, &us))
        return LM_FMT_RANGE;
      lm_builder_append_int(b, us);
      return LM_FMT_OK;
    }
    if (lm_iv_store(slot, &v))
      return LM_FMT_RANGE;
    lm_value x;
    memset(&x, 0, sizeof x);
    x.type = b->type;
    memcpy(&x.v.mdn.months, slot, 4);
    memcpy(&x.v.mdn.days, slot + 4, 4);
    memcpy(&x.v.mdn.ns, slot + 8, 8);
    lm_builder_append_value(b, &x);
    return LM_FMT_OK;
  }
  case LM_TYPE_NULL:
    return LM_FMT_SYNTAX; /* only NULL fits a NULL column */
  default:
    return LM_FMT_NOTYPE;
  }
}

void lm_fmt_snippet(char *dst, size_t cap, const char *p, size_t len) {
  static const char hex[] = "0123456789abcdef";
  size_t o = 0, i = 0;
  while (i < len && i < 40 && o + 8 < cap) {
    unsigned char c = (unsigned char)p[i];
    size_t seq = 1;
    if (c >= 0x80) {
      size_t avail = LM_MIN(len - i, (size_t)4);
      seq = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
      if (seq > avail || lm_fmt_utf8_check(p + i, seq) != seq)
        seq = 0;
    } else if (c < 0x20 || c == 0x7f) {
      seq = 0;
    }
    if (seq) {
      memcpy(dst + o, p + i, seq);
      o += seq;
      i += seq;
    } else {
      dst[o++] = '\\';
      dst[o++] = 'x';
      dst[o++] = hex[c >> 4];
      dst[o++] = hex[c & 15];
      i++;
    }
  }
  if (i < len && o + 3 < cap) {
    memcpy(dst + o, "...", 3);
    o += 3;
  }
  dst[o] = '\0';
}

int lm_fmt_error(lm_error *err, int code, const char *source, int64_t line,
                 int64_t column, const char *fmt, ...) {
  if (!err)
    return code;
  char text[768];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (n < 0)
    text[0] = '\0';
  int l = line > INT32_MAX ? INT32_MAX : (int)line;
  int c = column > INT32_MAX ? INT32_MAX : (int)column;
  lm_err_at(err, code, l, c, "%s", text);
  n = snprintf(err->msg, sizeof err->msg, "%.200s:%d:%d: %s",
               source ? source : "<input>", l, c, text);
  if (n < 0)
    err->msg[0] = '\0';
  return code;
}

int lm_fmt_put_int(lm_buf *out, int64_t v) {
  char tmp[24];
  int n = 0;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    tmp[sizeof tmp - 1 - n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0)
    tmp[sizeof tmp - 1 - n++] = '-';
  return lm_buf_append(out, tmp + sizeof tmp - n, (size_t)n);
}

int lm_fmt_queue_push(lm_fmt_queue *q, lm_batch *b) {
  if (q->head > 0 && q->head == q->len)
    q->head = q->len = 0;
  if (q->len == q->cap) {
    if (q->head > 0) {
      memmove(q->items, q->items + q->head,
              (q->len - q->head) * sizeof *q->items);
      q->len -= q->head;
      q->head = 0;
    }
    if (q->len == q->cap) {
      size_t cap = q->cap ? q->cap * 2 : 8;
      lm_batch **it = realloc(q->items, cap * sizeof *it);
      if (!it) {
        lm_batch_release(b);
        return LM_ERR_NOMEM;
      }
      q->items = it;
      q->cap = cap;
    }
  }
  q->items[q->len++] = b;
  return LM_OK;
}

lm_batch *lm_fmt_queue_pop(lm_fmt_queue *q) {
  if (q->head == q->len)
    return NULL;
  lm_batch *b = q->items[q->head++];
  if (q->head == q->len)
    q->head = q->len = 0;
  return b;
}

void lm_fmt_queue_free(lm_fmt_queue *q) {
  for (size_t i = q->head; i < q->len; i++)
    lm_batch_release(q->items[i]);
  free(q->items);
  memset(q, 0, sizeof *q);
}

int lm_fmt_flush_batch(lm_batch_builder *bb, int64_t n, lm_fmt_queue *q,
                       lm_error *err) {
  lm_batch *b = NULL;
  if (bb->schema->n_fields == 0) {
    b = lm_batch_new(lm_schema_retain(bb->schema), n, NULL);
    if (!b)
      return lm_err(err, LM_ERR_NOMEM, "out of memory building a batch");
  } else {
    int rc = lm_batch_builder_finish(bb, &b, err);
    if (rc)
      return rc;
  }
  int rc = lm_fmt_queue_push(q, b);
  if (rc)
    return lm_err(err, rc, "out of memory queueing a batch");
  return LM_OK;
}

int lm_fmt_append_chars(lm_builder *b, const char *p, size_t len, lm_typmod m,
                        lm_buf *scratch) {
  if (b->type.id != LM_TYPE_UTF8 || (!m.char_len && !m.bpchar))
    return lm_fmt_append_text(b, p, len, scratch);
  if (len > (size_t)INT32_MAX)
    return LM_FMT_TOOBIG;
  if (lm_fmt_utf8_check(p, len) != len)
    return LM_FMT_UTF8;
  int32_t keep, pad;
  if (lm_char_assign(p, (int32_t)len, m, &keep, &pad))
    return LM_FMT_TOOLONG;
  if (!pad)
    return lm_fmt_append_text(b, p, (size_t)keep, scratch);
  lm_buf_reset(scratch);
  if (lm_buf_append(scratch, p, (size_t)keep) ||
      lm_buf_reserve(scratch, (size_t)pad))
    return LM_FMT_TOOBIG; /* out of memory: the caller's message is close */
  memset(scratch->data + scratch->len, ' ', (size_t)pad);
  return lm_fmt_append_text(b, scratch->data, scratch->len + (size_t)pad, NULL);
}
