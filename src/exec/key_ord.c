/*
 * Order-preserving encoding of SQL arrays and INTERVAL_MDN values
 * (key_ord.h). Layout of an array: per item a marker byte (1 a value,
 * 2 NULL), then the value; a 0 byte ends the array, so a prefix sorts
 * first. Values: integers (DATE, TIMESTAMP, µs INTERVAL too) 8 bytes
 * big-endian with the sign bit flipped; floating point 8 bytes ordered as
 * PostgreSQL's float8 (-0 = 0, NaN last); BOOLEAN 1 byte; strings their
 * bytes with 0 escaped as 0 0xff, ended by 0 0 (C collation); DECIMAL128
 * 16 bytes big-endian, sign flipped; INTERVAL_MDN its 128-bit span so;
 * a nested array as above.
 */
#include "exec/key_ord.h"

#include <math.h>
#include <string.h>

#include "columnar/lm_decimal.h"
#include "columnar/lm_interval.h"

static int put_be(lm_buf *o, unsigned __int128 u, int n) {
  char b[16];
  for (int i = n - 1; i >= 0; i--, u >>= 8)
    b[i] = (char)(uint8_t)u;
  return lm_buf_append(o, b, (size_t)n);
}

static unsigned __int128 get_be(const char *p, int n) {
  unsigned __int128 u = 0;
  for (int i = 0; i < n; i++)
    u = (u << 8) | (uint8_t)p[i];
  return u;
}

static bool is_bytes(lm_type_id id) {
  return id == LM_TYPE_UTF8 || id == LM_TYPE_BINARY ||
         id == LM_TYPE_LARGE_UTF8 || id == LM_TYPE_LARGE_BINARY;
}

/* The value of row r of a (not NULL). */
static int enc_value(lm_buf *o, const lm_array *a, int64_t r) {
  lm_type_id id = a->type.id;
  if (id == LM_TYPE_DICTIONARY)
    return enc_value(o, a->dictionary, lm_array_dict_index(a, r));
  if (id == LM_TYPE_LIST) {
    int64_t s, e;
    lm_array_list_range(a, r, &s, &e);
    const lm_array *c = a->children[0];
    for (int64_t k = s; k < e; k++) {
      bool nul = c->type.id == LM_TYPE_NULL || lm_array_is_null(c, k);
      int rc = lm_buf_putc(o, nul ? 2 : 1);
      if (!rc && !nul)
        rc = enc_value(o, c, k);
      if (rc)
        return rc;
    }
    return lm_buf_putc(o, 0);
  }
  if (id == LM_TYPE_INTERVAL_MDN) {
    __int128 sp =
        lm_iv_span_slot(a->values->data + (size_t)(a->offset + r) * 16);
    return put_be(o, (unsigned __int128)sp ^ ((unsigned __int128)1 << 127), 16);
  }
  if (id == LM_TYPE_DECIMAL128)
    return put_be(
        o, (unsigned __int128)lm_dec_get(a, r) ^ ((unsigned __int128)1 << 127),
        16);
  if (is_bytes(id)) {
    int64_t len;
    const uint8_t *p = lm_array_bytes(a, r, &len);
    for (int64_t i = 0; i < len; i++) {
      int rc = lm_buf_putc(o, (char)p[i]);
      if (!rc && p[i] == 0)
        rc = lm_buf_putc(o, (char)0xff);
      if (rc)
        return rc;
    }
    return lm_buf_append(o, "\0\0", 2);
  }
  if (id == LM_TYPE_BOOL)
    return lm_buf_putc(o, lm_array_bool(a, r) ? 1 : 0);
  if (id == LM_TYPE_FLOAT32 || id == LM_TYPE_FLOAT64) {
    double d = lm_array_get_f64(a, r);
    if (d == 0)
      d = 0;
    if (isnan(d))
      d = NAN;
    uint64_t u;
    memcpy(&u, &d, 8);
    u = (u >> 63) ? ~u : u | (1ULL << 63);
    return put_be(o, u, 8);
  }
  uint64_t u = (uint64_t)lm_array_get_i64(a, r) ^ (1ULL << 63);
  return put_be(o, u, 8);
}

int lm_ord_encode(lm_buf *o, const lm_array *a, int64_t r) {
  return enc_value(o, a, r);
}

/* Decodes one value of type t at p into b; returns the end. */
static const char *dec_value(lm_builder *b, lm_type t, const char *p,
                             const char *end) {
  switch (t.id) {
  case LM_TYPE_LIST: {
    lm_builder *items = lm_builder_list_items(b);
    lm_type it = t.node->children[0].type;
    while (p < end && *p != 0) {
      char m = *p++;
      if (m == 2) {
        if (items)
          lm_builder_append_null(items);
      } else if (items)
        p = dec_value(items, it, p, end);
      else /* out of memory: skip the item by decoding it nowhere */
        return end;
    }
    if (items)
      lm_builder_list_end(b);
    return p < end ? p + 1 : end;
  }
  case LM_TYPE_INTERVAL_MDN: {
    __int128 sp = (__int128)(get_be(p, 16) ^ ((unsigned __int128)1 << 127));
    lm_value v;
    memset(&v, 0, sizeof v);
    v.type = t;
    v.v.mdn.days = (int32_t)(sp / 86400000000LL);
    v.v.mdn.ns = (int64_t)(sp % 86400000000LL) * 1000;
    lm_builder_append_value(b, &v);
    return p + 16;
  }
  case LM_TYPE_DECIMAL128:
    lm_dec_append(b, (lm_i128)(get_be(p, 16) ^ ((unsigned __int128)1 << 127)));
    return p + 16;
  case LM_TYPE_UTF8:
  case LM_TYPE_BINARY:
  case LM_TYPE_LARGE_UTF8:
  case LM_TYPE_LARGE_BINARY: {
    lm_buf s;
    lm_buf_init(&s);
    while (p + 1 < end && !(p[0] == 0 && p[1] == 0)) {
      if (lm_buf_putc(&s, *p))
        break;
      p += (p[0] == 0) ? 2 : 1; /* 0 0xff: a 0 byte */
    }
    lm_builder_append_str(b, s.data ? s.data : "", (int32_t)s.len);
    lm_buf_free(&s);
    return p + 2;
  }
  case LM_TYPE_BOOL:
    lm_builder_append_bool(b, *p != 0);
    return p + 1;
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64: {
    uint64_t u = (uint64_t)get_be(p, 8);
    u = (u >> 63) ? u & ~(1ULL << 63) : ~u;
    double d;
    memcpy(&d, &u, 8);
    lm_builder_append_double(b, d);
    return p + 8;
  }
  default:
    lm_builder_append_int(b, (int64_t)((uint64_t)get_be(p, 8) ^ (1ULL << 63)));
    return p + 8;
  }
}

void lm_ord_decode(lm_builder *b, lm_type t, const char *p, int32_t len) {
  dec_value(b, t, p, p + len);
}
