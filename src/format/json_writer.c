/* format/json_writer.c — NDJSON output of record batches (lm_json.h). */
#include "format/lm_json.h"

#include "format/format_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bytes that can be copied verbatim inside a JSON string. */
static inline bool plain(unsigned char c) {
  return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

int lm_json_write_string(lm_buf *out, const char *s, size_t len) {
  static const char hex[] = "0123456789abcdef";
  if (lm_buf_reserve(out, len + 2))
    return LM_ERR_NOMEM;
  if (lm_buf_putc(out, '"'))
    return LM_ERR_NOMEM;
  const unsigned char *p = (const unsigned char *)s, *e = p + len;
  while (p < e) {
    const unsigned char *q = p;
    while (q < e && plain(*q))
      q++;
    if (q > p && lm_buf_append(out, p, (size_t)(q - p)))
      return LM_ERR_NOMEM;
    p = q;
    if (p == e)
      break;
    unsigned char c = *p;
    if (c >= 0x80) {
      size_t seq = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
      if ((size_t)(e - p) >= seq &&
          lm_fmt_utf8_check((const char *)p, seq) == seq) {
        if (lm_buf_append(out, p, seq))
          return LM_ERR_NOMEM;
        p += seq;
      } else {
        if (lm_buf_append(out, "\xEF\xBF\xBD", 3))
          return LM_ERR_NOMEM;
        p++;
      }
      continue;
    }
    char esc[7] = {'\\', 0, 0, 0, 0, 0, 0};
    size_t n = 2;
    switch (c) {
    case '"':
      esc[1] = '"';
      break;
    case '\\':
      esc[1] = '\\';
      break;
    case '\b':
      esc[1] = 'b';
      break;
    case '\f':
      esc[1] = 'f';
      break;
    case '\n':
      esc[1] = 'n';
      break;
    case '\r':
      esc[1] = 'r';
      break;
    case '\t':
      esc[1] = 't';
      break;
    default:
      esc[1] = 'u';
      esc[2] = '0';
      esc[3] = '0';
      esc[4] = hex[c >> 4];
      esc[5] = hex[c & 15];
      n = 6;
      break;
    }
    if (lm_buf_append(out, esc, n))
      return LM_ERR_NOMEM;
    p++;
  }
  return lm_buf_putc(out, '"');
}

static int put_value(lm_buf *out, const lm_array *a, int64_t i) {
  if (a->type.id == LM_TYPE_NULL || lm_array_is_null(a, i))
    return lm_buf_append(out, "null", 4);
  switch (a->type.id) {
  case LM_TYPE_UTF8: {
    int32_t n;
    const char *p = lm_array_str(a, i, &n);
    if (lm_type_is_json(a->type)) /* json / jsonb: the value itself */
      return lm_buf_append(out, p, (size_t)n);
    return lm_json_write_string(out, p, (size_t)n);
  }
  case LM_TYPE_BOOL:
    return lm_array_bool(a, i) ? lm_buf_append(out, "true", 4)
                               : lm_buf_append(out, "false", 5);
  case LM_TYPE_INT8:
  case LM_TYPE_INT16:
  case LM_TYPE_INT32:
  case LM_TYPE_INT64:
    return lm_fmt_put_int(out, lm_array_get_i64(a, i));
  case LM_TYPE_FLOAT32:
  case LM_TYPE_FLOAT64: {
    double v = a->type.id == LM_TYPE_FLOAT32 ? (double)lm_array_f32(a)[i]
                                             : lm_array_f64(a)[i];
    if (isnan(v)) /* as PostgreSQL's to_json: a string, read back */
      return lm_buf_append(out, "\"NaN\"", 5);
    if (isinf(v))
      return v > 0 ? lm_buf_append(out, "\"Infinity\"", 10)
                   : lm_buf_append(out, "\"-Infinity\"", 11);
    return lm_array_format_value(out, a, i, "null");
  }
  case LM_TYPE_UINT8:
  case LM_TYPE_UINT16:
  case LM_TYPE_UINT32:
  case LM_TYPE_UINT64:
  case LM_TYPE_FLOAT16:
  case LM_TYPE_DECIMAL128:
  case LM_TYPE_LIST:
  case LM_TYPE_LARGE_LIST:
  case LM_TYPE_STRUCT:
    /* numbers (exact), arrays and objects (columnar/value.c) */
    return lm_array_format_json(out, a, i);
  case LM_TYPE_DICTIONARY:
    return put_value(out, a->dictionary, lm_array_dict_index(a, i));
  case LM_TYPE_LARGE_UTF8: {
    int64_t n;
    const uint8_t *p = lm_array_bytes(a, i, &n);
    return lm_json_write_string(out, (const char *)p, (size_t)n);
  }
  default: { /* TIMESTAMP, INTERVAL, DATE, TIME, DURATION, binary (bytea
              * hex), future types: their text as a string */
    if (lm_buf_putc(out, '"'))
      return LM_ERR_NOMEM;
    size_t start = out->len;
    if (lm_array_format_value(out, a, i, ""))
      return LM_ERR_NOMEM;
    /* escape only if the text needs it (timestamps never do) */
    bool clean = true;
    for (size_t k = start; k < out->len; k++)
      if (!plain((unsigned char)out->data[k]))
        clean = false;
    if (!clean) {
      lm_buf tmp;
      lm_buf_init(&tmp);
      int rc = lm_buf_append(&tmp, out->data + start, out->len - start);
      out->len = start - 1;
      if (!rc)
        rc = lm_json_write_string(out, tmp.data, tmp.len);
      lm_buf_free(&tmp);
      return rc;
    }
    return lm_buf_putc(out, '"');
  }
  }
}

int lm_json_write_batch(lm_buf *out, const lm_batch *b) {
  int nc = b->num_columns;
  /* the escaped `"key":` prefixes, once per batch */
  lm_buf keys;
  lm_buf_init(&keys);
  size_t offs[64];
  size_t *off = nc + 1 <= 64 ? offs : malloc((size_t)(nc + 1) * sizeof *off);
  int rc = off ? LM_OK : LM_ERR_NOMEM;
  for (int c = 0; c < nc && rc == LM_OK; c++) {
    off[c] = keys.len;
    const char *name = b->schema->fields[c].name;
    if (!name)
      name = "";
    rc = lm_json_write_string(&keys, name, strlen(name));
    if (!rc)
      rc = lm_buf_putc(&keys, ':');
  }
  if (off)
    off[nc] = keys.len;
  for (int64_t i = 0; i < b->num_rows && rc == LM_OK; i++) {
    rc = lm_buf_putc(out, '{');
    for (int c = 0; c < nc && rc == LM_OK; c++) {
      if (c)
        rc = lm_buf_putc(out, ',');
      if (!rc)
        rc = lm_buf_append(out, keys.data + off[c], off[c + 1] - off[c]);
      if (!rc)
        rc = put_value(out, b->columns[c], i);
    }
    if (!rc)
      rc = lm_buf_append(out, "}\n", 2);
  }
  if (off != offs)
    free(off);
  lm_buf_free(&keys);
  return rc ? LM_ERR_NOMEM : LM_OK;
}
